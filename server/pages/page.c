/* page.c: what every page shares: the renderer (template + view model ->
 * HTML with ETag, optionally kept in the render cache) and the error page. */
#include "pages/page.h"

#include <stdint.h>
#include <string.h>

#include "app.h"
#include "render/tmpl.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/utf8.h"

/* Renders template name with model (plus the site-wide fields and the
 * head block of page_meta_add, for an answer with status) into b. */
static int render(struct req *r, const char *name, json_t *model, unsigned status,
		  struct buf *b)
{
	char origin[300];

	http_origin(r, origin, sizeof origin);
	json_object_set_new(model, "origin", json_string(origin));
	if (!json_object_get(model, "title"))
		json_object_set_new(model, "title", json_string("llm-speed"));
	/* The header's nav marks the page with aria-current ({{#nav.home}}):
	 * by the model's "nav" member when the page sets one, else by the
	 * template's name. */
	if (!json_object_get(model, "nav"))
		json_object_set_new(model, "nav", json_pack("{s:b}", name, 1));
	if (page_meta_add(r, name, model, status) < 0 ||
	    tmpl_set_render(r->app->tmpl, name, model, b) < 0 || buf_error(b)) {
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

	if (render(r, name, model, status, &b) < 0)
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

/* Renders name for r and answers with it, keeping it in the cache as
 * (id, rep) with the cluster tag tag (0: none). */
static enum MHD_Result render_keep(struct req *r, const char *name, json_t *model,
				   const char *id, enum cache_rep rep, uint64_t gen, unsigned tag)
{
	struct buf b = BUF_INIT;
	enum MHD_Result ret;

	if (render(r, name, model, 200, &b) < 0)
		ret = render_failed(r);
	else
		ret = cache_send_tagged(r->app->cache, r, id, rep, gen, tag, 200, CT_HTML,
					b.buf, b.len, CC_PAGE);
	buf_release(&b);
	return ret;
}

enum MHD_Result page_render_cached_tag(struct req *r, const char *name, json_t *model,
				       enum cache_rep rep, uint64_t gen, unsigned tag)
{
	return render_keep(r, name, model, r->arg, rep, gen, tag);
}

enum MHD_Result page_render_kept(struct req *r, const char *name, json_t *model,
				 const char *id, enum cache_rep rep, uint64_t gen)
{
	return render_keep(r, name, model, id, rep, gen, 0);
}

/* The request path as a JSON string: libmicrohttpd hands it over
 * %-decoded, so it may hold any bytes; those that are not UTF-8 show as
 * U+FFFD (jansson refuses the string otherwise, and the page with it). */
static json_t *path_json(const char *path)
{
	const unsigned char *p = (const unsigned char *)(path ? path : "/");
	struct buf b = BUF_INIT;
	json_t *v;
	uint32_t cp;
	size_t n;

	while (*p) {
		n = utf8_seq(p, 4, &cp);   /* NUL-terminated: stops at the NUL */
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

enum MHD_Result page_error(struct req *r, const struct err *e)
{
	json_t *m = json_pack("{s:s, s:i, s:s, s:o}", "title", "Not found",
			      "status", (int)e->status, "message", e->message,
			      "path", path_json(r->path));
	enum MHD_Result ret;

	if (e->status != 404)
		json_object_set_new(m, "title", json_string(e->status >= 500 ? "Server trouble" : "Request refused"));
	ret = page_render(r, "error", m, e->status);
	json_decref(m);
	return ret;
}
