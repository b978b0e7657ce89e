/* card.c: serving a run's link-preview card, its SVG (drawn by
 * render/card_svg.c) and its PNG (rasterized by render/raster.c while the
 * connection is suspended), from the render cache like the badge. */
#include "pages/card.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "http/answer.h"
#include "http/cache.h"
#include "render/card_svg.h"
#include "render/raster.h"
#include "store/db.h"
#include "store/run_store.h"
#include "util/container_of.h"
#include "util/log.h"

static const char sql_card[] =
	"SELECT decode_tok_s, prefill_tok_s, ttft_ms, model_name, accelerator, "
	"backend_name, backend_version, outlier, status, "
	"EXISTS (SELECT 1 FROM run_withdrawals WHERE run_id = runs.id), demo "
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
	char etag[40];
	char key[CACHE_ID_MAX + 1];  /* kept in the cache under this id */
};

/* The column as a double, NAN when it is NULL. */
static double col_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Fills in from the current row of sql_card; the strings live until the
 * statement is reset.  Withdrawn outranks upheld, which outranks the
 * outlier flag, as on the badge. */
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
	else if (status && !strcmp(status, "upheld"))
		in->mark = CARD_MARK_UPHELD;
	else if (sqlite3_column_int(st, 7))
		in->mark = CARD_MARK_OUTLIER;
	else
		in->mark = CARD_MARK_NONE;
}

/* Appends the card of run id to svg.  Returns 0, 404 when there is no
 * such run, or 503 (the database, or memory). */
static unsigned draw(struct req *r, struct buf *svg)
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

/* The refusal for draw()'s status: 404, or 503 (the database, or memory). */
static int fail(unsigned status, const struct buf *svg, struct answer *a)
{
	if (status == 404)
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	return buf_error(svg) ? err_nomem(&a->err) : err_unavailable(&a->err, MSG_DB_DOWN);
}

/* See card.h. */
int card_run_svg(struct req *r, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_BADGE };
	struct cache *c = r->app->cache;
	struct buf svg = BUF_INIT;
	struct http_kept *k;
	unsigned status;
	uint64_t gen;
	int rc;

	if (!run_id_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	gen = cache_gen(c);
	if ((k = cache_get(c, r->arg, REP_CARD_SVG)))
		return answer_kept(a, k);
	if ((status = draw(r, &svg))) {
		rc = fail(status, &svg, a);
		buf_release(&svg);
		return rc;
	}
	answer_keep(a, c, r->arg, REP_CARD_SVG, gen, 0);
	return answer_buf(a, 200, CT_SVG, &svg, &o);
}

/* Frees a card_job (r->job_free): the SVG, the PNG and the job. */
static void job_free(void *p)
{
	struct card_job *j = p;

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
	struct http_kept *k;

	if (j->rj.status != RASTER_OK) {
		if (j->rj.status == RASTER_FAILED)
			log_error("card %s: %s %s", r->arg, RASTER_PROGRAM, j->rj.err.message);
		r->retry_after = j->rj.status == RASTER_BUSY ? RETRY_BUSY : RETRY_FAILED;
		return err_unavailable(&a->err, j->rj.status == RASTER_BUSY ? MSG_RASTER_BUSY : MSG_RASTER_FAILED);
	}
	if (!(k = http_kept_build(200, CT_PNG, j->rj.png.buf, j->rj.png.len, CC_BADGE, j->etag)))
		return err_nomem(&a->err);
	cache_put(r->app->cache, j->key, REP_CARD_PNG, j->gen, 0, http_kept_ref(k));
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
 * whatever was written since), else under key.  The request is suspended
 * while it is drawn (finish answers). */
static int png_start(struct req *r, struct card_job *j, const char *key, struct answer *a)
{
	struct http_kept *k;
	int rc;

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
		if ((k = cache_get(r->app->cache, j->key, REP_CARD_PNG))) {
			rc = answer_kept(a, k);
			goto out;
		}
	}
	j->r = r;
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
int card_run_png(struct req *r, struct answer *a)
{
	struct cache *c = r->app->cache;
	struct card_job *j;
	struct http_kept *k;
	unsigned status;
	uint64_t gen;
	int rc;

	if (!run_id_valid(r->arg))
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	gen = cache_gen(c);
	if ((k = cache_get(c, r->arg, REP_CARD_PNG)))
		return answer_kept(a, k);
	if (!(j = job_new(gen)))
		return err_nomem(&a->err);
	if ((status = draw(r, &j->svg))) {
		rc = fail(status, &j->svg, a);
		job_free(j);
		return rc;
	}
	return png_start(r, j, r->arg, a);
}

/* See card.h. */
int card_png_of(struct req *r, struct buf *svg, uint64_t gen, struct answer *a)
{
	struct card_job *j;

	if (!(j = job_new(gen))) {
		buf_release(svg);
		return err_nomem(&a->err);
	}
	j->svg = *svg;
	buf_init(svg);
	return png_start(r, j, NULL, a);
}
