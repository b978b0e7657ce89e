/* page_badge.c: serving run badges from the render cache (drawing is in
 * render/badge_svg.c).  A cache hit reads no SQL and renders nothing. */
#include "pages/page.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "http/answer.h"
#include "render/badge_svg.h"
#include "http/cache.h"
#include "store/db.h"
#include "store/run_store.h"
#include "store/typical.h"
#include "util/jsonw.h"

/* The run, and whether its combination is confirmed (contract section 9). */
static const char sql_badge[] =
	"SELECT r.decode_tok_s, r.model_name, r.accelerator, r.outlier, r.status, "
	"EXISTS (SELECT 1 FROM run_withdrawals WHERE run_id = r.id), r.demo, r.capped, "
	"r.marks, c.confirmed, r.suite_version, r.model_digest, r.hw_slug, r.backend_name "
	"FROM runs r LEFT JOIN combos c ON c.suite_version = r.suite_version "
	"AND c.model_slug = r.model_slug AND c.model_digest = r.model_digest "
	"AND c.hw_slug = r.hw_slug AND c.backend_name = r.backend_name WHERE r.id = ?";

/* One representation of the badge: its cache slot, type and renderer. */
struct badge_kind {
	enum cache_rep rep;
	const char *ctype;
	int (*render)(const struct badge_in *in, struct buf *out);
};

/* Appends the SVG badge for in; 0 or -1. */
static int render_svg(const struct badge_in *in, struct buf *out)
{
	return badge_render_svg(in, out, NULL);
}

/* Appends the shields.io endpoint JSON for in; 0 or -1.  The message is
 * the SVG's, so both say the same; jansson escapes it. */
static int render_json(const struct badge_in *in, struct buf *out)
{
	int missing = in->state == BADGE_NOT_FOUND;
	struct buf msg = BUF_INIT;
	json_t *o = NULL;
	char *s = NULL;
	int ret = -1;

	if (badge_message(in, &msg))
		goto out;
	o = json_pack("{s:i, s:s, s:s, s:s, s:i}", "schemaVersion", 1,
		      "label", badge_label(in), "message", msg.buf,
		      "color", badge_color(in->state),
		      "cacheSeconds", missing ? CC_BADGE_MISSING_TTL : CC_BADGE_TTL);
	if (o && missing)
		json_object_set_new(o, "isError", json_true());
	if (!o || !(s = jsonw_dumps(o, JSONW_ASCII)))
		goto out;
	buf_puts(out, s);
	ret = buf_error(out);
out:
	free(s);
	json_decref(o);
	buf_release(&msg);
	return ret;
}

static const struct badge_kind kind_svg = { REP_BADGE_SVG, CT_SVG, render_svg };
static const struct badge_kind kind_json = { REP_BADGE_JSON, CT_JSON, render_json };

/* Renders in as k into a: 200 with CC_BADGE and an ETag, or 404 with
 * CC_BADGE_MISSING.  When cache is set the answer is kept as the id's
 * entry (a negative one for 404), unless an invalidation happened since
 * gen.  0, or -1 out of memory. */
static int badge_answer(struct req *r, const struct badge_kind *k,
			const struct badge_in *in, int cache, uint64_t gen, struct cache_tags tags,
			struct answer *a)
{
	unsigned status = in->state == BADGE_NOT_FOUND ? 404 : 200;
	const char *cc = status == 200 ? CC_BADGE : CC_BADGE_MISSING;
	struct http_opts o = { .cache_control = cc };
	struct buf b = BUF_INIT;

	if (k->render(in, &b) < 0) {
		buf_release(&b);
		return err_nomem(&a->err);
	}
	if (cache)
		answer_keep(a, r->app->cache, r->arg, k->rep, gen, tags);
	return answer_buf(a, status, k->ctype, &b, &o);
}

/* Fills in from the current row of sql_badge (badge_state_of decides the
 * state).  The strings point into the statement and live until it is
 * reset. */
static void fill(struct badge_in *in, sqlite3_stmt *st)
{
	const char *status = (const char *)sqlite3_column_text(st, 4);
	int capped = sqlite3_column_int(st, 7);
	int disputed = (sqlite3_column_int(st, 8) & TYPICAL_MARK_DISPUTED) != 0;
	int confirmed = sqlite3_column_int(st, 9);

	in->decode_tok_s = sqlite3_column_double(st, 0);
	in->model = (const char *)sqlite3_column_text(st, 1);
	in->hardware = (const char *)sqlite3_column_text(st, 2);
	in->demo = sqlite3_column_int(st, 6);
	in->state = badge_state_of(&(struct badge_facts){
		.withdrawn = sqlite3_column_int(st, 5), .capped = capped,
		.upheld = status && !strcmp(status, "upheld"), .disputed = disputed,
		.flagged = sqlite3_column_int(st, 3), .confirmed = confirmed });
}

/* The cache tags of the row: its combination, whose confirmation the
 * badge shows. */
static struct cache_tags tags_of(sqlite3_stmt *st)
{
	return (struct cache_tags){ { 0, run_store_combo_tag(
		(const char *)sqlite3_column_text(st, 10), (const char *)sqlite3_column_text(st, 11),
		(const char *)sqlite3_column_text(st, 12), (const char *)sqlite3_column_text(st, 13)) } };
}

/* The cache miss: reads the run, renders k while the row is live into
 * a, kept (found or not) for the next request. */
static int from_db(struct req *r, const struct badge_kind *k, uint64_t gen, struct answer *a)
{
	struct badge_in in = { BADGE_NOT_FOUND, 0, NULL, NULL, 0 };
	struct dbconn *c;
	sqlite3_stmt *st;
	int rc;

	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_badge)))
		return err_unavailable(&a->err, MSG_DB_DOWN);
	db_bind_text(st, 1, r->arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fill(&in, st);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = badge_answer(r, k, &in, 1, gen, rc == SQLITE_ROW ? tags_of(st) : CACHE_NO_TAGS, a);
	else
		rc = err_unavailable(&a->err, MSG_DB_DOWN);
	sqlite3_reset(st);
	return rc;
}

/* page_build_answer_fn of each form: the badge from the database, kept
 * (found or not); the generation is taken before the read so a
 * concurrent commit drops what it puts. */
static int build_svg(struct req *r, struct answer *a)
{
	return from_db(r, &kind_svg, cache_gen(r->app->cache), a);
}

static int build_json(struct req *r, struct answer *a)
{
	return from_db(r, &kind_json, cache_gen(r->app->cache), a);
}

/* Both routes: a malformed id is a 404 badge at once (no SQL, nothing
 * cached for it); then the cache; then the database, one build of a
 * missing badge however many ask for it at once (page_kept_serve). */
static int serve(struct req *r, const struct badge_kind *k, page_build_answer_fn build,
		 struct answer *a)
{
	static const struct badge_in missing = { BADGE_NOT_FOUND, 0, NULL, NULL, 0 };

	if (!run_id_valid(r->arg))
		return badge_answer(r, k, &missing, 0, 0, CACHE_NO_TAGS, a);
	return page_kept_serve(r, a, r->arg, k->rep, build, NULL);
}

int page_badge_svg(struct req *r, struct answer *a)
{
	return serve(r, &kind_svg, build_svg, a);
}

int page_badge_json(struct req *r, struct answer *a)
{
	return serve(r, &kind_json, build_json, a);
}
