/* card_page.c: the link-preview cards of model and hardware pages
 * (/card/m/<slug>.png|.svg, /card/hw/<slug>.png|.svg): the page's name,
 * its counts and its five fastest rows by typical decode, drawn by
 * card_render_page (render/card_svg.c) and rasterized as a run's card is
 * (card.c, card_png_of). */
#include "pages/card.h"

#include <string.h>

#include "app.h"
#include "http/answer.h"
#include "pages/browse.h"
#include "render/card_svg.h"
#include "store/db.h"
#include "store/names.h"
#include "util/numfmt.h"
#include "util/slug.h"

/* What a page card lists: the model's hardware, or the hardware's
 * models, each by its best combination's median decode over submitters. */
struct kind {
	const char *word;        /* the card's band: "model", "hardware" */
	const char *names;       /* search_names.kind */
	const char *heading;
	const char *rows_sql;    /* ?1 suite, ?2 slug: name, median; best first */
	const char *count_sql;   /* ?1 suite, ?2 slug: runs, rows listed */
	const char *count_one, *count_many;
	int rows_hw;             /* the rows name hardware */
	const char *none;        /* the 404's sentence */
};

/* The rows a card shows, in SQL. */
#define CARD_ROWS_MAX_STR "5"
_Static_assert(CARD_ROWS_MAX == 5, "CARD_ROWS_MAX_STR is CARD_ROWS_MAX");

static const struct kind model_kind = {
	"model", "model", "Fastest hardware",
	"SELECT " NAMES_HW("hw_slug", "hw_slug") ", max(med) FROM combos "
	"WHERE suite_version = ?1 AND model_slug = ?2 AND t_runs > 0 AND med IS NOT NULL "
	"GROUP BY hw_slug ORDER BY 2 DESC, hw_slug LIMIT " CARD_ROWS_MAX_STR,
	"SELECT coalesce(sum(t_runs), 0), count(DISTINCT hw_slug) FROM combos "
	"WHERE suite_version = ?1 AND model_slug = ?2 AND t_runs > 0",
	"machine", "machines", 1,
	"No run names this model; its page is /m/<slug> with the slug of a model that was measured.",
};

static const struct kind hw_kind = {
	"hardware", "hw", "Fastest models",
	"SELECT " NAMES_MODEL("model_slug", "model_slug") ", max(med) FROM combos "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND t_runs > 0 AND med IS NOT NULL "
	"GROUP BY model_slug ORDER BY 2 DESC, model_slug LIMIT " CARD_ROWS_MAX_STR,
	"SELECT coalesce(sum(t_runs), 0), count(DISTINCT model_slug) FROM combos "
	"WHERE suite_version = ?1 AND hw_slug = ?2 AND t_runs > 0",
	"model", "models", 0,
	"No run names this hardware; its page is /hw/<slug> with the slug of hardware that was measured.",
};

static const char sql_name[] = "SELECT name FROM search_names WHERE kind = ?1 AND slug = ?2";

/* Binds the suite and the slug as ?1 and ?2 of st. */
static void bind2(sqlite3_stmt *st, const struct browse *b, const char *first)
{
	db_bind_text(st, 1, first);
	db_bind_text(st, 2, b->r->arg);
}

/* Appends the card of k for the slug in r->arg to svg.  0; 404 when no
 * run names the slug; 503 (the database, or memory). */
static unsigned draw(struct browse *b, const struct kind *k, struct buf *svg)
{
	struct card_page in = { k->word, NULL, NULL, k->heading, "median decode tok/s", { { 0 } }, 0, 0 };
	struct buf title = BUF_INIT, sub = BUF_INIT, names[CARD_ROWS_MAX];
	sqlite3_stmt *st;
	long long runs = 0, listed = 0;
	unsigned ret = 503;
	size_t i;
	int rc;

	for (i = 0; i < CARD_ROWS_MAX; i++)
		buf_init(&names[i]);
	if (!(st = db_stmt(b->c, sql_name)))
		goto out;
	db_bind_text(st, 1, k->names);
	db_bind_text(st, 2, b->r->arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		buf_puts(&title, (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		ret = 404;
		goto out;
	}
	if (rc != SQLITE_ROW || !(st = db_stmt(b->c, k->count_sql)))
		goto out;
	bind2(st, b, b->suite);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		runs = sqlite3_column_int64(st, 0);
		listed = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW || !(st = db_stmt(b->c, k->rows_sql)))
		goto out;
	bind2(st, b, b->suite);
	while (in.nrows < CARD_ROWS_MAX && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_puts(&names[in.nrows], (const char *)sqlite3_column_text(st, 0));
		in.rows[in.nrows].name = names[in.nrows].buf;
		in.rows[in.nrows].value = sqlite3_column_double(st, 1);
		in.rows[in.nrows].hw = k->rows_hw;
		in.nrows++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto out;
	numfmt_count(&sub, runs, "counted run", "counted runs");
	buf_puts(&sub, k->rows_hw ? " on " : " of ");
	numfmt_count(&sub, listed, k->count_one, k->count_many);
	buf_printf(&sub, ", %s", b->suite);
	in.title = title.buf;
	in.subtitle = sub.buf;
	in.demo = browse_has_demo(b) == 1;
	if (buf_error(&title) || buf_error(&sub) || card_render_page(&in, svg) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < CARD_ROWS_MAX; i++)
		buf_release(&names[i]);
	buf_release(&title);
	buf_release(&sub);
	return ret;
}

/* Draws k's card for r into svg within a browse request (its suite, its
 * snapshot), its cache generation into *gen; 0, or -1 with the refusal in
 * a: 404 for a slug no run names, 503 (the database, or memory). */
static int drawn(struct req *r, const struct kind *k, struct buf *svg, uint64_t *gen,
		 struct answer *a)
{
	struct browse b;
	unsigned status;

	if (!slug_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", k->none);
	if (browse_begin(&b, r) < 0) {
		browse_end(&b);
		a->err = b.err;
		return -1;
	}
	*gen = b.gen;
	status = draw(&b, k, svg);
	browse_end(&b);
	if (status == 404)
		return err_set(&a->err, 404, "not_found", NULL, "%s", k->none);
	if (status)
		return buf_error(svg) ? err_nomem(&a->err) : err_unavailable(&a->err, MSG_DB_DOWN);
	return 0;
}

/* The SVG of k's card: 200, not kept (one read of a few rows). */
static int svg_answer(struct req *r, const struct kind *k, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_BADGE, .etag = 1 };
	struct buf svg = BUF_INIT;
	uint64_t gen;

	if (drawn(r, k, &svg, &gen, a) < 0) {
		buf_release(&svg);
		return -1;
	}
	return answer_buf(a, 200, CT_SVG, &svg, &o);
}

/* The PNG of k's card, kept in the cache by what it shows. */
static int png_answer(struct req *r, const struct kind *k, struct answer *a)
{
	struct buf svg = BUF_INIT;
	uint64_t gen;

	if (drawn(r, k, &svg, &gen, a) < 0) {
		buf_release(&svg);
		return -1;
	}
	return card_png_of(r, &svg, gen, a);
}

/* See card.h. */
int card_model_png(struct req *r, struct answer *a) { return png_answer(r, &model_kind, a); }
int card_model_svg(struct req *r, struct answer *a) { return svg_answer(r, &model_kind, a); }
int card_hw_png(struct req *r, struct answer *a) { return png_answer(r, &hw_kind, a); }
int card_hw_svg(struct req *r, struct answer *a) { return svg_answer(r, &hw_kind, a); }
