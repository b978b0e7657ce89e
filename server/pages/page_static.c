/* page_static.c: health check, reference pages, static files, error pages,
 * and the shared page renderer. */
#include "pages/page.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "util/buf.h"
#include "util/log.h"
#include "render/tmpl.h"

enum MHD_Result page_healthz(struct req *r)
{
	return http_send(r, 200, CT_TEXT, "ok\n", 3, NULL);
}

/* Renders template name with model (plus the site-wide fields) into b. */
static int render(struct req *r, const char *name, json_t *model, struct buf *b)
{
	char origin[300];

	http_origin(r, origin, sizeof origin);
	json_object_set_new(model, "origin", json_string(origin));
	if (!json_object_get(model, "title"))
		json_object_set_new(model, "title", json_string("llm-speed"));
	/* The header's nav marks the page with aria-current: {{#nav.home}}. */
	json_object_set_new(model, "nav", json_pack("{s:b}", name, 1));
	if (tmpl_set_render(r->app->tmpl, name, model, b) < 0 || buf_error(b)) {
		log_error("template %s failed to render", name);
		return -1;
	}
	return 0;
}

static enum MHD_Result render_failed(struct req *r)
{
	static const char msg[] = "The page could not be rendered.\n";
	return http_send(r, 500, CT_TEXT, msg, sizeof msg - 1, NULL);
}

enum MHD_Result page_render(struct req *r, const char *name, json_t *model,
			    unsigned status)
{
	struct http_opts o = { .cache_control = status == 200 ? CC_PAGE : CC_NONE,
			       .etag = 1 };
	struct buf b = BUF_INIT;
	enum MHD_Result ret;

	if (render(r, name, model, &b) < 0)
		ret = render_failed(r);
	else
		ret = http_send(r, status, CT_HTML, b.buf, b.len, &o);
	buf_release(&b);
	return ret;
}

enum MHD_Result page_render_cached(struct req *r, const char *name, json_t *model,
				   enum cache_rep rep, uint64_t gen)
{
	return page_render_cached_tag(r, name, model, rep, gen, 0);
}

enum MHD_Result page_render_cached_tag(struct req *r, const char *name, json_t *model,
				       enum cache_rep rep, uint64_t gen, unsigned tag)
{
	struct buf b = BUF_INIT;
	enum MHD_Result ret;

	if (render(r, name, model, &b) < 0)
		ret = render_failed(r);
	else
		ret = cache_send_tagged(r->app->cache, r, r->arg, rep, gen, tag, 200, CT_HTML,
					b.buf, b.len, CC_PAGE);
	buf_release(&b);
	return ret;
}

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when the
 * bytes there are not one (overlong, surrogate, past U+10FFFF, cut off). */
static size_t utf8_seq(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
		   (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	unsigned long cp = n == 1 ? s[0] : s[0] & (0x7f >> n);
	size_t i;

	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (!n || (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The request path as a JSON string: libmicrohttpd hands it over
 * %-decoded, so it may hold any bytes; those that are not UTF-8 show as
 * U+FFFD (jansson refuses the string otherwise, and the page with it). */
static json_t *path_json(const char *path)
{
	const unsigned char *p = (const unsigned char *)(path ? path : "/");
	struct buf b = BUF_INIT;
	json_t *v;
	size_t n;

	while (*p) {
		n = utf8_seq(p);
		if (n)
			buf_add(&b, p, n);
		else
			buf_puts(&b, "\xef\xbf\xbd");
		p += n ? n : 1;
	}
	v = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return v ? v : json_string("/");
}

enum MHD_Result page_error(struct req *r, unsigned status, const char *message)
{
	json_t *m = json_pack("{s:s, s:i, s:s, s:o}", "title", "Not found",
			      "status", (int)status, "message", message,
			      "path", path_json(r->path));
	enum MHD_Result ret;

	if (status != 404)
		json_object_set_new(m, "title", json_string(status >= 500 ? "Server trouble" : "Request refused"));
	ret = page_render(r, "error", m, status);
	json_decref(m);
	return ret;
}

/* /glossary, /methodology, /privacy: templates of the same name. */
enum MHD_Result page_reference(struct req *r)
{
	static const char *const titles[][2] = {
		{ "/glossary", "Glossary" },
		{ "/methodology", "Methodology" },
		{ "/privacy", "Privacy" },
	};
	enum MHD_Result ret = MHD_NO;
	size_t i;
	json_t *m;

	for (i = 0; i < sizeof titles / sizeof titles[0]; i++) {
		if (strcmp(r->path, titles[i][0]))
			continue;
		m = json_pack("{s:s}", "title", titles[i][1]);
		ret = page_render(r, r->path + 1, m, 200);
		json_decref(m);
		return ret;
	}
	return page_error(r, 404, "There is no such reference page.");
}

/* ---- static files, loaded once at start ---- */

struct static_file {
	char name[64];
	struct MHD_Response *resp;
	char etag[40];
};

static struct static_file statics[32];
static size_t nstatics;

static const char *ctype_of(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (dot && !strcmp(dot, ".css"))
		return CT_CSS;
	if (dot && !strcmp(dot, ".svg"))
		return CT_SVG;
	if (dot && !strcmp(dot, ".txt"))
		return CT_TEXT;
	if (dot && !strcmp(dot, ".ico"))
		return "image/x-icon";
	return "application/octet-stream";
}

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
	s->resp = http_build(ctype_of(name), body.buf, body.len, CC_STATIC, s->etag);
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
		return http_send_prebuilt(r, 200, statics[i].resp);
	}
	return http_error(r, 404, "not_found", "There is no such static file.", NULL);
}

enum MHD_Result page_favicon(struct req *r)
{
	snprintf(r->arg, sizeof r->arg, "favicon.ico");
	return page_static_file(r);
}
