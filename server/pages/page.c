/* page.c: what every page shares: the one handler of the page kinds
 * (page_serve: builder, then HTML, JSON or CSV), the renderer (template +
 * view model -> HTML with ETag, optionally kept in the render cache, and
 * the keys kept list pages go under) and the error page. */
#include "pages/page.h"

#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "disputes/dispute.h"
#include "pages/browse.h"
#include "pages/kinds.h"
#include "util/jsonw.h"
#include "render/tmpl.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/sha256.h"
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

/* The answer when a template does not render: 500, plain text. */
static int render_failed(struct answer *a)
{
	static const char msg[] = "The page could not be rendered.\n";
	return answer_static(a, 500, CT_TEXT, msg, sizeof msg - 1, NULL);
}

int page_render(struct req *r, const char *name, json_t *model, unsigned status,
		struct answer *a)
{
	struct http_opts o = { .cache_control = status == 200 ? CC_PAGE : CC_NONE,
			       .etag = 1 };
	struct buf b = BUF_INIT;

	if (render(r, name, model, status, &b) < 0) {
		buf_release(&b);
		return render_failed(a);
	}
	return answer_buf(a, status, CT_HTML, &b, &o);
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

void page_error(struct req *r, const struct err *e, struct answer *a)
{
	json_t *m = json_pack("{s:s, s:i, s:s, s:o}", "title", "Not found",
			      "status", (int)e->status, "message", e->message,
			      "path", path_json(r->path));

	if (e->status != 404)
		json_object_set_new(m, "title", json_string(e->status >= 500 ? "Server trouble" : "Request refused"));
	else if (m)
		json_object_set_new(m, "examples", page_examples(r));
	if (page_render(r, "error", m, e->status, a) < 0)
		err_nomem(&a->err);
	json_decref(m);
}

/* ---- the keys of kept list pages ---- */

/* Every query argument some page reads (http_query compares names
 * ignoring ASCII case): the pages of the kinds table, browse.c's filters
 * and cursors, /fit's inputs, /search, /compare, the dispute thread's
 * ?after=.  A name not here is read by no page: it changes no answer.
 * tests/http/test_query_known.py checks the list against every getter
 * call in server/ (http_query and the functions that pass a name on to
 * it), both ways. */
static const char *const query_known[] = {
	"after", "backend", "bandwidth_gb_s", "batch", "context", "cursor", "digest",
	"digests_after", "format", "from", "hw", "kv", "memory", "memory_gb", "model",
	"overhead_gb", "page", "q", "r", "sort", "state", "suite", "sustained", "with",
};

int page_query_known(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof query_known / sizeof query_known[0]; i++)
		if (!strcasecmp(name, query_known[i]))
			return 1;
	return 0;
}

/* The key's input, and whether the query keeps the page out of the cache. */
struct keyin {
	struct buf in;
	int sort, suite, hw, backend, other;
};

/* Adds one query argument to the key's input: key (lower-cased, as the
 * pages read it either way) and value, each ended by a NUL (no argument
 * can hold one).  Arguments no page reads (page_query_known) are left
 * out: they change nothing, so they make no copy of their own (?x=1,
 * ?x=2, ... are all the page without them).  Of the rest only ?sort=,
 * ?suite=, ?backend= and ?hw=, once each and not empty, may stand in the
 * query of a kept page: each takes a value from a short list (anything
 * else is a 400 or a 404, which are not kept; a ?hw= naming hardware
 * without runs is not kept either, browse_hw_listed()), so the pages kept
 * are bounded by the models, hardware and backends that exist.  Cursors
 * and other filters are built each time. */
static void key_arg(void *ctx, const char *k, const char *v)
{
	struct keyin *ki = ctx;
	int *seen = !strcasecmp(k, "sort") ? &ki->sort : !strcasecmp(k, "suite") ? &ki->suite
		  : !strcasecmp(k, "hw") ? &ki->hw : !strcasecmp(k, "backend") ? &ki->backend : NULL;
	size_t n = strlen(k) + 1, i;

	if (!page_query_known(k))
		return;
	if (!seen || (*seen)++ || !v || !*v)
		ki->other = 1;
	for (i = 0; i < n; i++)
		buf_putc(&ki->in, k[i] >= 'A' && k[i] <= 'Z' ? k[i] - 'A' + 'a' : k[i]);
	buf_add(&ki->in, v ? v : "", (v ? strlen(v) : 0) + 1);
}

/* See page.h. */
int page_list_key(struct req *r, const char *path, int query, char key[CACHE_ID_MAX + 1])
{
	struct keyin ki = { .in = BUF_INIT };
	unsigned char d[32];

	buf_add(&ki.in, path, strlen(path) + 1);
	if (query)
		http_query_each(r, key_arg, &ki);
	if (buf_error(&ki.in) || ki.other) {
		buf_release(&ki.in);
		return -1;
	}
	sha256_digest(d, ki.in.buf, ki.in.len);
	buf_release(&ki.in);
	key[0] = 'L';
	sodium_bin2hex(key + 1, CACHE_ID_MAX, d, 16);
	return 0;
}

static const char sql_hw_listed[] =
	"SELECT 1 FROM hw_index WHERE suite_version = ?1 AND hw_slug = ?2 AND runs > 0";

/* 1 when b's ?hw= names hardware with runs in b's suite, or there is no
 * ?hw= (any slug-shaped value is valid there, so pages for hardware
 * without runs are not kept: what is kept stays bounded by what exists);
 * 0 when not or when the database does not say.  Inside b's snapshot. */
static int hw_listed(struct browse *b)
{
	sqlite3_stmt *st;
	int rc;

	if (!b->hw)
		return 1;
	if (!(st = db_stmt(b->c, sql_hw_listed)))
		return 0;
	db_bind_text(st, 1, b->suite);
	db_bind_text(st, 2, b->hw);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW;
}

json_t *page_view_browsed(struct page_view *v, struct browse *b, json_t *m)
{
	/* The page and its JSON twin are kept, not the CSV (built each time). */
	v->keep = m && (v->kind->flags & PAGE_LISTED) && !b->csv && hw_listed(b) && v->key[0];
	browse_end(b);
	if (!m && b->err.status)
		v->err = b->err;
	v->gen = b->gen;
	return m;
}

json_t *page_view_redirect(struct page_view *v, unsigned status, const char *cache_control,
			   const char *to)
{
	v->redirect.status = status;
	v->redirect.cache_control = cache_control;
	buf_reset(&v->redirect.to);
	buf_puts(&v->redirect.to, to);
	return NULL;
}

/* Where v's answer is kept in the response cache, by its kind's flags
 * (once per request): a listed page by its path and query
 * (page_list_key; never a CSV twin, built each time), a run's page
 * under its id unless ?after= asks for a later page of its thread.  1
 * with v->key and v->rep set (the builder still says whether its answer
 * is kept, v->keep), else 0 with v->key empty. */
static int keep_key(struct page_view *v)
{
	struct req *r = v->r;

	if ((v->kind->flags & PAGE_LISTED) && v->format != HTTP_FMT_CSV &&
	    page_list_key(r, r->path, !(v->kind->flags & PAGE_NO_QUERY), v->key) == 0) {
		v->rep = REP_LIST_HTML;
		return 1;
	}
	v->key[0] = '\0';
	if ((v->kind->flags & PAGE_KEPT_RUN) && strlen(r->arg) < sizeof v->key && !dispute_after(r)) {
		memcpy(v->key, r->arg, strlen(r->arg) + 1);
		v->rep = v->format == HTTP_FMT_HTML ? REP_RUN_HTML : REP_RUN_JSON;
		return 1;
	}
	return 0;
}

/* Keeps a's body as v says, with v's note. */
static void keep(struct page_view *v, struct answer *a)
{
	answer_keep(a, v->r->app->cache, v->key, v->rep, v->gen, v->tags);
	snprintf(a->keep_note, sizeof a->keep_note, "%s", v->note);
}

/* The view model m as JSON, kept in the response cache when v says so,
 * else with an ETag. */
static int json_answer(struct page_view *v, json_t *m, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };

	if (v->keep)
		keep(v, a);
	return answer_json(a, 200, m, &o);
}

/* The view model m as the kind's page, with its twins and feed as
 * alternates and its nav entry marked; kept in the response cache when v
 * says so.  A page of another template (v->tmpl) is that page alone. */
static int html_answer(struct page_view *v, json_t *m, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	struct buf b = BUF_INIT;

	if (v->tmpl)
		return page_render(v->r, v->tmpl, m, v->status, a);
	twins_add_alternates(v, m);
	if ((v->kind->flags & PAGE_NAV) && !json_object_get(m, "nav"))
		json_object_set_new(m, "nav", json_pack("{s:b}", v->kind->name, 1));
	if (!v->keep)
		return page_render(v->r, v->kind->tmpl, m, 200, a);
	if (render(v->r, v->kind->tmpl, m, 200, &b) < 0) {
		buf_release(&b);
		return render_failed(a);
	}
	keep(v, a);
	return answer_buf(a, 200, CT_HTML, &b, &o);
}

/* What the builder said instead of a view model: its redirect (the
 * target as the body), or its refusal. */
static int refusal_answer(struct page_view *v, struct answer *a)
{
	struct http_opts o = { .cache_control = v->redirect.cache_control };

	if (!v->redirect.status) {
		a->err = v->err;
		return -1;
	}
	o.location = v->redirect.to.buf;
	return answer_body(a, v->redirect.status, CT_TEXT, v->redirect.to.buf, v->redirect.to.len, &o);
}

/* page_build_answer_fn of the page kinds: the builder's answer for r,
 * rendered in the route's form and kept as it says (under the key
 * keep_key gives), on whatever thread builds it (page_kept.c). */
static int page_build(struct req *r, struct answer *a)
{
	struct page_view v = { .r = r, .kind = &page_kinds[r->kind], .format = r->format,
			       .err = ERR_INIT, .redirect.to = BUF_INIT, .status = 200 };
	json_t *m;
	int rc;

	keep_key(&v);
	v.gen = cache_gen(r->app->cache);
	if (!(m = v.kind->build(&v)))
		rc = refusal_answer(&v, a);
	else if (v.format == HTTP_FMT_CSV)
		rc = twins_csv(&v, m, a);
	else if (v.format == HTTP_FMT_JSON)
		rc = json_answer(&v, m, a);
	else
		rc = html_answer(&v, m, a);
	json_decref(m);
	buf_release(&v.redirect.to);
	return rc;
}

/* The one handler of the page kinds: the kept answer when there is one
 * (fresh, or stale while it is rebuilt off the request path), else the
 * builder's, built once however many ask for it (page_kept_serve); a
 * page not kept is built here. */
int page_serve(struct req *r, struct answer *a)
{
	struct page_view v = { .r = r, .kind = &page_kinds[r->kind], .format = r->format };

	if (!keep_key(&v))
		return page_build(r, a);
	return page_kept_serve(r, a, v.key, v.rep, page_build, v.kind->visit);
}
