/* page.c: what every page shares: the one handler of the page kinds
 * (page_serve: builder, then HTML, JSON or CSV), the renderer (template +
 * view model -> HTML with ETag, optionally kept in the render cache) and
 * the error page. */
#include "pages/page.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "pages/kinds.h"
#include "util/jsonw.h"
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

json_t *page_view_browsed(struct page_view *v, struct browse *b, json_t *m)
{
	/* The page and its JSON twin are kept, not the CSV (built each time). */
	v->keep_list = m && (v->kind->flags & PAGE_LISTED) && !b->csv && browse_hw_listed(b);
	browse_end(b);
	if (!m && b->err.status)
		v->err = b->err;
	v->gen = b->gen;
	return m;
}

/* The view model m as JSON: kept in the response cache as (keep_id, rep)
 * when the builder said so, else with an ETag. */
static enum MHD_Result send_json(struct page_view *v, json_t *m)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	enum MHD_Result ret;
	char *s;

	char key[CACHE_ID_MAX + 1];
	int listed = v->keep_list && browse_list_key(v->r, key) == 0;

	if (!v->keep_id && !listed)
		return http_send_json(v->r, 200, m, &o);
	if (!(s = jsonw_dumps(m, JSONW_ASCII)))
		return http_fail(v->r, 503, NULL, MSG_NOMEM, NULL);
	if (listed)   /* a list's twin: stale after any write, like its page */
		ret = cache_send_tagged(v->r->app->cache, v->r, key, REP_LIST_HTML, v->gen, 0, 200,
					CT_JSON, s, strlen(s), CC_PAGE);
	else
		ret = cache_send_tagged(v->r->app->cache, v->r, v->keep_id, v->rep, v->gen, v->tag, 200,
					CT_JSON, s, strlen(s), CC_PAGE);
	free(s);
	return ret;
}

/* The view model m as the kind's page, with its twins and feed as
 * alternates and its nav entry marked; kept in the list cache or as
 * (keep_id, rep) when the builder said so. */
static enum MHD_Result send_html(struct page_view *v, json_t *m)
{
	const char *tmpl = v->kind->tmpl;
	char key[CACHE_ID_MAX + 1];

	twins_add_alternates(v, m);
	if (v->kind->nav && !json_object_get(m, "nav"))
		json_object_set_new(m, "nav", json_pack("{s:b}", v->kind->nav, 1));
	if (v->keep_list && browse_list_key(v->r, key) == 0)
		return render_keep(v->r, tmpl, m, key, REP_LIST_HTML, v->gen, 0);
	if (v->keep_id)
		return render_keep(v->r, tmpl, m, v->keep_id, v->rep, v->gen, v->tag);
	return page_render(v->r, tmpl, m, 200);
}

enum MHD_Result page_serve(struct req *r)
{
	struct page_view v = { .r = r, .kind = &page_kinds[r->kind], .format = r->format,
			       .err = ERR_INIT };
	enum MHD_Result ret;
	json_t *m;

	if ((v.kind->flags & PAGE_LISTED) && browse_cached(r, &ret))
		return ret;
	v.gen = cache_gen(r->app->cache);
	m = v.kind->build(&v);
	if (!m && v.answered)
		return v.ret;
	if (!m) {
		if (!v.err.status)
			err_unavailable(&v.err, MSG_NOMEM);
		return http_reply_err(r, &v.err);
	}
	if (v.format == HTTP_FMT_CSV)
		ret = twins_send_csv(&v, m);
	else if (v.format == HTTP_FMT_JSON)
		ret = send_json(&v, m);
	else
		ret = send_html(&v, m);
	json_decref(m);
	return ret;
}
