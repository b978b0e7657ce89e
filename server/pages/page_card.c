/* page_card.c: the link-preview cards: a run's, its SVG (drawn by
 * render/card_svg.c) and its PNG (rasterized by render/raster.c while the
 * connection is suspended), from the render cache like the badge; and a
 * model's and a hardware's page card (/card/m/<slug>, /card/hw/<slug>):
 * the page's name, its counts and its five fastest rows by typical
 * decode, its SVG kept as the page is (a list page's key, stale on a
 * list write), and its PNG rasterized the same way from that kept SVG. */
#include "pages/page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "http/answer.h"
#include "store/typical.h"
#include "http/cache.h"
#include "pages/browse.h"
#include "render/card_svg.h"
#include "render/raster.h"
#include "store/db.h"
#include "store/names.h"
#include "store/run_store.h"
#include "util/container_of.h"
#include "util/log.h"
#include "util/numfmt.h"
#include "util/slug.h"

static const char sql_card[] =
	"SELECT decode_tok_s, prefill_tok_s, ttft_ms, model_name, accelerator, "
	"backend_name, backend_version, outlier, status, "
	"EXISTS (SELECT 1 FROM run_withdrawals WHERE run_id = runs.id), demo, capped, marks "
	"FROM runs WHERE id = ?";

#define RETRY_OFF 3600    /* s: no rasterizer until the operator installs one */
#define RETRY_BUSY 2
#define RETRY_FAILED 5

/* A PNG being drawn for a suspended request: freed by job_free when the
 * request ends. */
struct card_job {
	struct raster_job rj;
	struct req *r;
	struct buf svg;
	uint64_t gen;            /* the cache's generation before the read */
	unsigned lead;           /* the flight of its PNG it leads (0: none) */
	char etag[40];
	char key[CACHE_ID_MAX + 1];  /* kept in the cache under this id */
};

/* The column as a double, NAN when it is NULL. */
static double col_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Fills in from the current row of sql_card; the strings live until the
 * statement is reset.  Withdrawn, capped, upheld, an open dispute, the
 * outlier flag: the first that holds is the mark, as on the badge. */
static void fill(struct card_run *in, sqlite3_stmt *st)
{
	const char *status = (const char *)sqlite3_column_text(st, 8);

	in->decode_tok_s = sqlite3_column_double(st, 0);
	in->prefill_tok_s = col_or_nan(st, 1);
	in->ttft_ms = col_or_nan(st, 2);
	in->model = (const char *)sqlite3_column_text(st, 3);
	in->hardware = (const char *)sqlite3_column_text(st, 4);
	in->backend = (const char *)sqlite3_column_text(st, 5);
	in->backend_version = (const char *)sqlite3_column_text(st, 6);
	in->demo = sqlite3_column_int(st, 10);
	if (sqlite3_column_int(st, 9))
		in->mark = CARD_MARK_WITHDRAWN;
	else if (sqlite3_column_int(st, 11))
		in->mark = CARD_MARK_CAPPED;
	else if (status && !strcmp(status, "upheld"))
		in->mark = CARD_MARK_UPHELD;
	else if (sqlite3_column_int(st, 12) & TYPICAL_MARK_DISPUTED)
		in->mark = CARD_MARK_DISPUTED;
	else if (sqlite3_column_int(st, 7))
		in->mark = CARD_MARK_OUTLIER;
	else
		in->mark = CARD_MARK_NONE;
}

/* Appends the card of run r->arg to svg.  Returns 0, 404 when there is no
 * such run, or 503 (the database, or memory). */
static unsigned draw_run(struct req *r, struct buf *svg)
{
	struct card_run in = { 0, NAN, NAN, NULL, NULL, NULL, NULL, CARD_MARK_NONE, 0 };
	struct dbconn *c;
	sqlite3_stmt *st;
	unsigned ret = 503;
	int rc;

	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_card)))
		return 503;
	db_bind_text(st, 1, r->arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		ret = 404;
	else if (rc == SQLITE_ROW) {
		fill(&in, st);
		ret = card_render_run(&in, svg) < 0 ? 503 : 0;
	}
	sqlite3_reset(st);
	return ret;
}

/* The refusal for draw_run()'s status: 404, or 503 (the database, or memory). */
static int fail(unsigned status, const struct buf *svg, struct answer *a)
{
	if (status == 404)
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	return buf_error(svg) ? err_nomem(&a->err) : err_unavailable(&a->err, MSG_DB_DOWN);
}

/* page_build_answer_fn of the run card's SVG: drawn from the database,
 * kept (the generation taken before the read). */
static int build_run_svg(struct req *r, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_BADGE };
	struct cache *c = r->app->cache;
	struct buf svg = BUF_INIT;
	uint64_t gen = cache_gen(c);
	unsigned status;
	int rc;

	if ((status = draw_run(r, &svg))) {
		rc = fail(status, &svg, a);
		buf_release(&svg);
		return rc;
	}
	answer_keep(a, c, r->arg, REP_CARD_SVG, gen, CACHE_NO_TAGS);
	return answer_buf(a, 200, CT_SVG, &svg, &o);
}

/* See card.h: one build of a missing SVG however many ask at once. */
int page_card_run_svg(struct req *r, struct answer *a)
{
	if (!run_id_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	return page_kept_serve(r, a, r->arg, REP_CARD_SVG, build_run_svg, NULL);
}

/* Frees a card_job (r->job_free): the SVG, the PNG and the job (its
 * flight landed, when it still leads one). */
static void job_free(void *p)
{
	struct card_job *j = p;

	if (j->lead && j->r)
		cache_land(j->r->app->cache, j->lead);
	buf_release(&j->rj.png);
	buf_release(&j->svg);
	free(j);
}

/* raster_job.queued: suspends the request, under the pool's lock, before
 * any thread can finish the job and resume it. */
static void job_queued(struct raster_job *rj)
{
	struct card_job *j = container_of(rj, struct card_job, rj);

	MHD_suspend_connection(j->r->conn);
}

/* raster_job.done, on a pool thread: wakes the request, which r->resume
 * (finish) answers. */
static void job_done(struct raster_job *rj)
{
	struct card_job *j = container_of(rj, struct card_job, rj);

	MHD_resume_connection(j->r->conn);
}

/* The answer once the PNG is drawn (or not), r->resume: 200 kept in the
 * cache unless the run changed meanwhile, or the 503 the job's status
 * means. */
static int finish(struct req *r, struct answer *a)
{
	struct card_job *j = r->job;
	struct cache *c = r->app->cache;
	unsigned lead = j->lead;
	struct http_kept *k;

	j->lead = 0;
	answer_lead(a, c, lead);      /* a refusal lands the flight when it is sent */
	if (j->rj.status != RASTER_OK) {
		if (j->rj.status == RASTER_FAILED)
			log_error("card %s: %s %s", r->arg, RASTER_PROGRAM, j->rj.err.message);
		r->retry_after = j->rj.status == RASTER_BUSY ? RETRY_BUSY : RETRY_FAILED;
		return err_unavailable(&a->err, j->rj.status == RASTER_BUSY ? MSG_RASTER_BUSY : MSG_RASTER_FAILED);
	}
	if (!(k = http_kept_build(200, CT_PNG, j->rj.png.buf, j->rj.png.len, CC_BADGE, j->etag)))
		return err_nomem(&a->err);
	cache_put_led(c, lead, j->key, REP_CARD_PNG, j->gen, CACHE_NO_TAGS, http_kept_ref(k));
	answer_lead(a, c, 0);
	cache_land(c, lead);          /* kept: its waiters look again */
	return answer_kept(a, k);
}

/* The PNG's ETag: of the rasterizer's version and the SVG, so that the
 * same drawing by the same rasterizer keeps its tag across restarts and
 * a 304 is answered without drawing. */
static void png_etag(struct raster *rs, const struct buf *svg, char out[40])
{
	struct buf b = BUF_INIT;

	buf_puts(&b, raster_version(rs));
	buf_putc(&b, '\n');
	buf_add(&b, svg->buf, svg->len);
	http_etag_of(b.buf, b.len, out);
	buf_release(&b);
}

/* Rasterizes the SVG in j->svg for r into a (j is r's from here on:
 * freed with it, or here): 503 without a rasterizer, 304 when
 * If-None-Match holds the PNG's tag; with key NULL, the PNG kept under a
 * key of that tag (a page's card: the same drawing is the same PNG,
 * whatever was written since), else under key (j->lead: the flight of it
 * the caller leads).  The request is suspended while it is drawn (finish
 * answers), or while another request's drawing of the same key is under
 * way (then again(r, a) answers it). */
static int png_start(struct req *r, struct card_job *j, const char *key,
		     int (*again)(struct req *, struct answer *), struct answer *a)
{
	struct http_kept *k;
	int rc;

	j->r = r;
	if (!raster_version(r->app->raster)) {   /* after the read: an unknown run is 404 */
		r->retry_after = RETRY_OFF;
		rc = err_unavailable(&a->err, MSG_NO_RASTER);
		goto out;
	}
	png_etag(r->app->raster, &j->svg, j->etag);
	if (http_etag_matches(r, j->etag)) {
		rc = answer_not_modified(a, j->etag, CC_BADGE);
		goto out;
	}
	if (key)
		snprintf(j->key, sizeof j->key, "%s", key);
	else {
		snprintf(j->key, sizeof j->key, "P%.32s", j->etag + 1);
		/* One drawing of a PNG however many ask for it at once. */
		if ((rc = page_kept_look(r, a, j->key, REP_CARD_PNG, again, &k, &j->lead)) || k) {
			rc = rc ? 0 : answer_kept(a, k);
			goto out;
		}
	}
	j->rj.svg = j->svg.buf;
	j->rj.len = j->svg.len;
	j->rj.queued = job_queued;
	j->rj.done = job_done;
	r->job = j;                /* the request frees it when it ends */
	r->job_free = job_free;
	r->resume = finish;
	if (raster_submit(r->app->raster, &j->rj) < 0) {
		r->job = NULL;
		r->job_free = NULL;
		r->resume = NULL;
		r->retry_after = RETRY_BUSY;
		rc = err_unavailable(&a->err, MSG_RASTER_BUSY);
		goto out;
	}
	return answer_later(a);
out:
	job_free(j);
	return rc;
}

/* A new job, its buffers empty, or NULL out of memory. */
static struct card_job *job_new(uint64_t gen)
{
	struct card_job *j = calloc(1, sizeof *j);

	if (!j)
		return NULL;
	buf_init(&j->svg);
	buf_init(&j->rj.png);
	j->gen = gen;
	return j;
}

/* See card.h. */
int page_card_run_png(struct req *r, struct answer *a)
{
	struct cache *c = r->app->cache;
	struct card_job *j;
	struct http_kept *k;
	unsigned status;
	uint64_t gen;
	int rc;

	unsigned lead;

	if (!run_id_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	gen = cache_gen(c);
	/* One drawing of a missing card however many ask for it at once. */
	if ((rc = page_kept_look(r, a, r->arg, REP_CARD_PNG, page_card_run_png, &k, &lead)))
		return 0;
	if (k)
		return answer_kept(a, k);
	if (!(j = job_new(gen))) {
		cache_land(c, lead);
		return err_nomem(&a->err);
	}
	j->r = r;
	j->lead = lead;
	if ((status = draw_run(r, &j->svg))) {
		rc = fail(status, &j->svg, a);
		job_free(j);
		return rc;
	}
	return png_start(r, j, r->arg, page_card_run_png, a);
}

/* See card.h. */
int page_card_png_of(struct req *r, struct buf *svg, uint64_t gen,
		     int (*again)(struct req *, struct answer *), struct answer *a)
{
	struct card_job *j;

	if (!(j = job_new(gen))) {
		buf_release(svg);
		return err_nomem(&a->err);
	}
	j->svg = *svg;
	buf_init(svg);
	return png_start(r, j, NULL, again, a);
}

/* ---- the cards of model and hardware pages ---- */

/* What a page card lists: the model's hardware, or the hardware's
 * models, each by its best combination's median decode over submitters. */
struct kind {
	const char *svg;         /* its SVG's path before the slug */
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

/* A card's rows read only its own model's or hardware's combinations:
 * the index named, as left to itself SQLite takes an index ordered for
 * the GROUP BY (combos_best_hw, combos_digest_best) and walks the whole
 * suite's combinations in it (75 ms a card at 200,000 runs). */
#define CARD_ROWS(name, index, slug_col, row_col) \
	"SELECT " name ", max(med) FROM combos INDEXED BY " index " WHERE suite_version = ?1 AND " \
	slug_col " = ?2 AND t_runs > 0 AND med IS NOT NULL AND confirmed = 1 GROUP BY " row_col \
	" ORDER BY 2 DESC, " row_col " LIMIT " CARD_ROWS_MAX_STR
#define CARD_COUNT(slug_col, row_col) \
	"SELECT coalesce(sum(t_runs), 0), count(DISTINCT " row_col ") FROM combos " \
	"WHERE suite_version = ?1 AND " slug_col " = ?2 AND t_runs > 0"
static const char sql_model_rows[] =
	CARD_ROWS(NAMES_HW("hw_slug", "hw_slug"), "combos_digest_med", "model_slug", "hw_slug");
static const char sql_model_count[] = CARD_COUNT("model_slug", "hw_slug");
static const char sql_hw_rows[] =
	CARD_ROWS(NAMES_MODEL("model_slug", "model_slug"), "combos_med_hw", "hw_slug", "model_slug");
static const char sql_hw_count[] = CARD_COUNT("hw_slug", "model_slug");

/* The cards' statements, for the unit test of query plans. */
const char *const page_card_sql[] = { sql_model_rows, sql_model_count, sql_hw_rows, sql_hw_count, NULL };

static const struct kind model_kind = {
	"/card/m/", "model", "model", "Fastest hardware",
	sql_model_rows,
	sql_model_count,
	"kind of hardware", "kinds of hardware", 1,
	"No run names this model; its page is /m/<slug> with the slug of a model that was measured.",
};

static const struct kind hw_kind = {
	"/card/hw/", "hardware", "hw", "Fastest models",
	sql_hw_rows,
	sql_hw_count,
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
static unsigned draw_page(struct browse *b, const struct kind *k, struct buf *svg)
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
	status = draw_page(&b, k, svg);
	browse_end(&b);
	if (status == 404)
		return err_set(&a->err, 404, "not_found", NULL, "%s", k->none);
	if (status)
		return buf_error(svg) ? err_nomem(&a->err) : err_unavailable(&a->err, MSG_DB_DOWN);
	return 0;
}

/* The key k's SVG for r is kept under, whichever form r asks for:
 * page_list_key of the SVG's path and r's query; 0, or -1 when the query
 * makes none (or out of memory). */
static int card_key(struct req *r, const struct kind *k, char key[CACHE_ID_MAX + 1])
{
	struct buf path = BUF_INIT;
	int rc = -1;

	buf_printf(&path, "%s%s.svg", k->svg, r->arg);
	if (!buf_error(&path))
		rc = page_list_key(r, path.buf, 1, key);
	buf_release(&path);
	return rc;
}

/* 1 when the SVG of r's card may be kept under its key (card_key): its
 * query names nothing but ?suite=.  The card reads no other argument, so
 * each value of ?sort=, ?hw= or ?backend= (which the key holds) would
 * keep one more copy of the same drawing: those are built once however
 * many ask at once, and not kept. */
static int svg_keepable(struct req *r)
{
	return !http_query(r, "sort") && !http_query(r, "hw") && !http_query(r, "backend");
}

/* page_build_answer_fn of k's SVG, on whatever thread builds it: 200
 * with CC_BADGE and the ETag of its bytes, kept as its page is (under
 * card_key as a list page, the generation taken before the read, so it
 * goes stale with the page on the next list write); a refusal is not
 * kept. */
static int build_svg(struct req *r, const struct kind *k, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_BADGE, .etag = 1 };
	char key[CACHE_ID_MAX + 1];
	struct buf svg = BUF_INIT;
	uint64_t gen;

	if (drawn(r, k, &svg, &gen, a) < 0) {
		buf_release(&svg);
		return -1;
	}
	if (svg_keepable(r) && card_key(r, k, key) == 0)
		answer_keep(a, r->app->cache, key, REP_LIST_HTML, gen, CACHE_NO_TAGS);
	return answer_buf(a, 200, CT_SVG, &svg, &o);
}

static int build_model_svg(struct req *r, struct answer *a) { return build_svg(r, &model_kind, a); }
static int build_hw_svg(struct req *r, struct answer *a) { return build_svg(r, &hw_kind, a); }

/* The SVG of k's card: a malformed slug is a 404 at once; then the kept
 * copy, fresh or stale while it is rebuilt off the request path, or one
 * build however many ask at once (page_kept_serve), as its page is
 * served; a query that makes no key (a cursor, a filter the card does
 * not keep by) is drawn here, as such a page is built. */
static int svg_answer(struct req *r, const struct kind *k, page_build_answer_fn build,
		      struct answer *a)
{
	char key[CACHE_ID_MAX + 1];

	if (!slug_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", k->none);
	if (card_key(r, k, key) < 0)
		return build(r, a);
	return page_kept_serve(r, a, key, REP_LIST_HTML, build, NULL);
}

/* The SVG for r's PNG: build's answer for r built here as the SVG's
 * route would build it, leading flight lead (landed here), kept as that
 * route keeps it; 0 with its bytes appended to svg, or -1 with the
 * refusal in a. */
static int svg_here(struct req *r, page_build_answer_fn build, unsigned lead, struct buf *svg,
		    struct answer *a)
{
	struct answer s = ANSWER_INIT;
	int rc;

	answer_lead(&s, r->app->cache, lead);
	rc = build(r, &s);
	answer_store(&s);               /* kept, and the flight lands */
	if (rc < 0 || s.err.status) {
		if (!s.err.status)
			err_nomem(&s.err);
		*a = s;                 /* the refusal is r's */
		return -1;
	}
	if (s.kept)
		http_kept_body(s.kept, svg);
	else
		buf_add(svg, s.bytes ? s.bytes : s.body.buf, s.len);
	answer_release(&s);
	return 0;
}

/* The PNG of k's card, drawn from its SVG as the SVG's route keeps it,
 * so a PNG asked for again reads nothing: the kept copy (fresh, or stale
 * while build has it redrawn off the request path, page_kept_rebuild),
 * or the one build of it under way waited for (r suspended, then again
 * answers), or, with neither, drawn here and kept for both forms; then
 * rasterized, the PNG kept under a key of what it shows
 * (page_card_png_of). */
static int png_answer(struct req *r, const struct kind *k, page_build_answer_fn build,
		      int (*again)(struct req *, struct answer *), struct answer *a)
{
	char key[CACHE_ID_MAX + 1];
	struct http_kept *kept = NULL;
	struct buf svg = BUF_INIT;
	unsigned lead = 0;

	if (!slug_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", k->none);
	if (card_key(r, k, key) == 0 && page_kept_look(r, a, key, REP_LIST_HTML, again, &kept, &lead))
		return 0;               /* suspended on that one build */
	if (kept) {
		if (lead)
			page_kept_rebuild(r, lead, REP_LIST_HTML, build);
		http_kept_body(kept, &svg);
		http_kept_unref(kept);
	} else if (svg_here(r, build, lead, &svg, a) < 0) {
		buf_release(&svg);
		return -1;
	}
	if (buf_error(&svg)) {
		buf_release(&svg);
		return err_nomem(&a->err);
	}
	return page_card_png_of(r, &svg, cache_gen(r->app->cache), again, a);
}

/* See card.h. */
int page_card_model_png(struct req *r, struct answer *a) { return png_answer(r, &model_kind, build_model_svg, page_card_model_png, a); }
int page_card_model_svg(struct req *r, struct answer *a) { return svg_answer(r, &model_kind, build_model_svg, a); }
int page_card_hw_png(struct req *r, struct answer *a) { return png_answer(r, &hw_kind, build_hw_svg, page_card_hw_png, a); }
int page_card_hw_svg(struct req *r, struct answer *a) { return svg_answer(r, &hw_kind, build_hw_svg, a); }
