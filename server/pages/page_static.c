/* page_static.c: health check, reference pages and static files. */
#include "pages/page.h"
#include "pages/kinds.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "util/buf.h"
#include "util/log.h"
#include "render/tmpl.h"
#include "store/predict_read.h"
#include "util/numfmt.h"

enum MHD_Result page_healthz(struct req *r)
{
	return http_send(r, 200, CT_TEXT, "ok\n", 3, NULL);
}

/* x with one decimal, as the backtest's table prints it, a new string. */
static json_t *pct_text(double x)
{
	struct buf t = BUF_INIT;
	json_t *s;

	numfmt_fixed(&t, x, 1);
	s = json_string(buf_error(&t) ? "" : t.buf);
	buf_release(&t);
	return s;
}

/* One row of the backtest's table: who, and e's figures as printed. */
static json_t *errors_row(const char *who, const struct predict_errors *e, json_t *coverage)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "who", who, "mean", pct_text(e->mean),
			 "median", pct_text(e->median), "p90", pct_text(e->p90),
			 "worst", pct_text(e->worst), "coverage", coverage);
}

/* The steps as the backtest met them: each one's points, the way the
 * backtest kept and the two ways' mean errors. */
static json_t *steps_json(const struct predict_backtest *b)
{
	static const char *const words[PREDICT_STEPS] = {
		"", "the same hardware", "the same vendor's hardware", "all hardware",
	};
	json_t *a = json_array();
	int step;

	for (step = PREDICT_SAME_HW; step < PREDICT_STEPS; step++)
		json_array_append_new(a, json_pack("{s:i, s:s, s:i, s:s, s:o, s:o, s:o}", "step", step,
			"name", words[step], "tested", b->by_step[step],
			"method", b->calib.method[step] == PREDICT_TIME ? "the time per token" :
								       "the share of the ceiling",
			"mean", pct_text(b->step_site[step].mean),
			"ratio_mean", pct_text(b->method_mean[step][PREDICT_RATIO]),
			"time_mean", pct_text(b->method_mean[step][PREDICT_TIME])));
	return a;
}

/* The leave-one-model-out backtest as /methodology shows it, recomputed
 * by the refresh thread from today's data (store/predict_read.h); before
 * its first run, as over no data (the page then reads as it will once it
 * ran on an empty database, so its ETag does not move at start-up). */
static json_t *backtest_json(void)
{
	struct predict_backtest b;
	long long at, rows;
	json_t *o;

	if (predict_read_backtest(&b, &at, &rows) < 0) {
		memset(&b, 0, sizeof b);
		rows = 0;
	}
	o = json_pack("{s:i, s:i, s:I, s:b, s:o, s:i, s:o, s:i}", "tested", b.tested,
		"unpredicted", b.unpredicted, "combinations", (json_int_t)rows, "has_tests", b.tested > 0,
		"coverage_pct", pct_text(100 * b.coverage), "inside", b.inside,
		"median_width", pct_text(b.median_width), "too_wide", b.too_wide);
	json_object_set_new(o, "rows", json_pack("[o, o, o]",
		errors_row("The site's predictions", &b.site, pct_text(100 * b.coverage)),
		errors_row("0.7 \xc3\x97 ceiling", &b.share, json_string("\xe2\x80\x93")),
		errors_row("The hardware's median efficiency \xc3\x97 ceiling", &b.hw_median,
			   json_string("\xe2\x80\x93"))));
	json_object_set_new(o, "steps", steps_json(&b));
	return o;
}

/* /glossary, /methodology, /privacy: a title and the security contact
 * (privacy's #reporting names it). */
json_t *page_reference_view(struct page_view *v)
{
	static const char *const titles[PAGE_KIND__MAX] = {
		[PAGE_GLOSSARY] = "Glossary",
		[PAGE_METHODOLOGY] = "Methodology",
		[PAGE_PRIVACY] = "Privacy",
	};
	const char *title = titles[v->kind - page_kinds];
	json_t *m;

	m = json_pack("{s:s, s:s?}", "title", title ? title : "llm-speed",
		      "security_contact", v->r->app->cfg.security_contact);
	if (m && v->kind == &page_kinds[PAGE_METHODOLOGY])
		json_object_set_new(m, "backtest", backtest_json());
	return m;
}

/* ---- static files, loaded once at start ---- */

struct static_file {
	char name[64];
	struct MHD_Response *resp;
	char etag[40];
	size_t bytes;
};

static struct static_file statics[32];
static size_t nstatics;

/* Loads one file as a reusable response. */
static int load_static(const char *dir, const char *name)
{
	struct static_file *s = &statics[nstatics];
	struct buf path = BUF_INIT, body = BUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *f;
	int rc = -1;

	buf_printf(&path, "%s/%s", dir, name);
	f = fopen(path.buf, "rb");
	if (!f)
		goto out;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&body, chunk, n);
	fclose(f);
	if (buf_error(&body))
		goto out;
	snprintf(s->name, sizeof s->name, "%s", name);
	http_etag_of(body.buf, body.len, s->etag);
	s->resp = http_build(http_ctype_of_name(name), body.buf, body.len, CC_STATIC, s->etag);
	s->bytes = body.len;
	if (s->resp) {
		nstatics++;
		rc = 0;
	}
out:
	buf_release(&body);
	buf_release(&path);
	return rc;
}

int page_static_init(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d)) && nstatics < sizeof statics / sizeof statics[0]) {
		if (de->d_name[0] == '.' || de->d_type == DT_DIR ||
		    strlen(de->d_name) >= sizeof statics[0].name)
			continue;   /* static/reference/ is data the server reads */
		if (load_static(dir, de->d_name) < 0)
			log_error("cannot load static file %s/%s", dir, de->d_name);
	}
	closedir(d);
	return 0;
}

void page_static_free(void)
{
	while (nstatics)
		MHD_destroy_response(statics[--nstatics].resp);
}

enum MHD_Result page_static_file(struct req *r)
{
	size_t i;

	for (i = 0; i < nstatics; i++) {
		if (strcmp(statics[i].name, r->arg))
			continue;
		if (http_etag_matches(r, statics[i].etag))
			return http_not_modified(r, statics[i].etag, CC_STATIC);
		return http_send_prebuilt(r, 200, statics[i].resp, statics[i].bytes);
	}
	return http_fail(r, 404, "not_found", "There is no such static file.", NULL);
}

enum MHD_Result page_favicon(struct req *r)
{
	snprintf(r->arg, sizeof r->arg, "favicon.ico");
	return page_static_file(r);
}
