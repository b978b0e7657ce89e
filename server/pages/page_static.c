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
#include "store/forecast.h"
#include "util/numfmt.h"
#include "util/nelem.h"

int page_healthz(struct req *r, struct answer *a)
{
	return answer_static(a, 200, CT_TEXT, "ok\n", 3, NULL);
}

/* The leave-one-model-out backtest as /methodology shows it, recomputed
 * by the refresh thread from today's data (store/forecast.h); before
 * its first run, as over no data (the page then reads as it will once it
 * ran on an empty database, so its ETag does not move at start-up). */
static json_t *backtest_json(void)
{
	struct predict_backtest b;
	long long at, rows;
	struct buf t = BUF_INIT;
	json_t *o;

	if (forecast_backtest(&b, &at, &rows) < 0) {
		memset(&b, 0, sizeof b);
		rows = 0;
	}
	numfmt_fixed(&t, b.median_abs_pct, 1);
	o = json_pack("{s:i, s:i, s:i, s:f, s:f, s:I, s:s, s:i, s:i, s:i}",
		"tested", b.tested, "inside", b.inside, "unpredicted", b.unpredicted,
		"median_abs_pct", b.median_abs_pct, "inside_share", b.inside_share,
		"combinations", (json_int_t)rows, "median_abs_pct_text", t.buf ? t.buf : "",
		"inside_pct", (int)(b.inside_share * 100 + 0.5),
		"by_backend_on_hardware", b.by_step[PREDICT_BACKEND_ON_HW],
		"by_wider", b.by_step[PREDICT_BACKEND_ALL_HW] + b.by_step[PREDICT_ALL_BACKENDS_ON_HW]);
	json_object_set_new(o, "has_tests", json_boolean(b.tested > 0));
	buf_release(&t);
	return o;
}

/* A reference page's view model: its title and the security contact
 * (privacy's #reporting names it); a new reference. */
static json_t *reference_view(struct page_view *v, const char *title)
{
	return json_pack("{s:s, s:s?}", "title", title,
			 "security_contact", v->r->app->cfg.security_contact);
}

/* /glossary; a new reference. */
json_t *page_glossary_view(struct page_view *v)
{
	return reference_view(v, "Glossary");
}

/* /methodology, with the backtest of the predictions; a new reference. */
json_t *page_methodology_view(struct page_view *v)
{
	json_t *m = reference_view(v, "Methodology");

	if (m)
		json_object_set_new(m, "backtest", backtest_json());
	return m;
}

/* /privacy; a new reference. */
json_t *page_privacy_view(struct page_view *v)
{
	return reference_view(v, "Privacy");
}

/* ---- static files, loaded once at start ---- */

struct static_file {
	char name[64];
	struct http_kept *kept;   /* built once, held until exit */
};

static struct static_file statics[32];
static size_t nstatics;

/* Loads one file as a reusable response. */
static int load_static(const char *dir, const char *name)
{
	struct static_file *s = &statics[nstatics];
	struct buf path = BUF_INIT, body = BUF_INIT;
	char chunk[8192], etag[40];
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
	http_etag_of(body.buf, body.len, etag);
	s->kept = http_kept_build(200, http_ctype_of_name(name), body.buf, body.len, CC_STATIC, etag);
	if (s->kept) {
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
	while ((de = readdir(d)) && nstatics < NELEM(statics)) {
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
		http_kept_unref(statics[--nstatics].kept);
}

int page_static_file(struct req *r, struct answer *a)
{
	size_t i;

	for (i = 0; i < nstatics; i++)
		if (!strcmp(statics[i].name, r->arg))
			return answer_kept(a, http_kept_ref(statics[i].kept));
	return err_set(&a->err, 404, "not_found", NULL, "%s", "There is no such static file.");
}

int page_favicon(struct req *r, struct answer *a)
{
	snprintf(r->arg, sizeof r->arg, "favicon.ico");
	return page_static_file(r, a);
}
