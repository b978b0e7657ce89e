/* twins.c: a page kind's CSV twin (its table and columns are in kinds.c)
 * and its <link rel="alternate"> list (JSON, CSV, Atom feed). */
#include "pages/browse.h"
#include "pages/kinds.h"

#include <stdio.h>
#include <string.h>

#include "pages/page.h"
#include "render/csv.h"
#include "render/html.h"
#include "util/buf.h"

/* The site path of a row's "url" column: its run's page ("id", or the
 * best run's, "best_id"), or a search result's page.  Nothing when the
 * row lacks what it needs. */
static void run_path_of(struct buf *p, const json_t *row, const char *key)
{
	const char *id = json_string_value(json_object_get(row, key));

	if (id && *id) {
		buf_puts(p, "/r/");
		html_url_arg(p, id);
	}
}

/* Appends to p the site path a row's "url" column links to (nothing
 * when the row lacks what it needs). */
static void url_of(struct buf *p, const json_t *row, enum page_csv_url u)
{
	const char *kind = json_string_value(json_object_get(row, "kind"));
	const char *slug = json_string_value(json_object_get(row, "slug"));

	if (u == CSV_URL_RUN || u == CSV_URL_BEST || u == CSV_URL_BEST_RUN) {
		run_path_of(p, row, u == CSV_URL_RUN ? "id" : u == CSV_URL_BEST ? "best_id" : "best_run");
		return;
	}
	if (u != CSV_URL_NAME || !kind || !slug || !*slug)
		return;
	buf_puts(p, !strcmp(kind, "model") ? "/m/" : !strcmp(kind, "hw") ? "/hw/" : "/?backend=");
	html_url_arg(p, slug);
}

/* /compare's figures as rows (new reference): for each figure and each
 * run compared, the run's members with figure, unit, lower_better, value
 * and pct (the % from run 1; null when not comparable). */
json_t *twins_compare_rows(const json_t *m)
{
	const json_t *runs = json_object_get(m, "runs"), *f, *cell;
	json_t *all = json_array(), *o;
	size_t i, k;

	json_array_foreach(csv_path(m, "figures.rows"), i, f)
		json_array_foreach(json_object_get(f, "cells"), k, cell) {
			if (!all || !(o = json_object()))
				break;
			json_object_update(o, json_array_get(runs, k));
			json_object_set(o, "figure", json_object_get(f, "label"));
			json_object_set(o, "unit", json_object_get(f, "unit"));
			json_object_set(o, "lower_better", json_object_get(f, "lower_better"));
			json_object_set(o, "value", json_object_get(cell, "value"));
			json_object_set(o, "pct", json_object_get(cell, "pct"));
			json_array_append_new(all, o);
		}
	return all;
}

/* One row of the cheatsheet's CSV: entry e of model mo's cell on
 * hardware h, with the model's and hardware's names and slugs (new). */
static json_t *sheet_row(const json_t *mo, const json_t *h, const json_t *e)
{
	json_t *o = json_copy((json_t *)e);

	if (o) {
		json_object_set(o, "model", json_object_get(mo, "name"));
		json_object_set(o, "model_slug", json_object_get(mo, "slug"));
		json_object_set(o, "hardware", json_object_get(h, "name"));
		json_object_set(o, "hw_slug", json_object_get(h, "slug"));
	}
	return o;
}

json_t *twins_cheatsheet_rows(const json_t *m)
{
	const json_t *hw = json_object_get(m, "hardware"), *row, *c, *e;
	json_t *all = json_array();
	size_t i, k, j;

	json_array_foreach(json_object_get(m, "rows"), i, row)
		json_array_foreach(json_object_get(row, "cells"), k, c)
			json_array_foreach(json_object_get(c, "entries"), j, e)
				json_array_append_new(all, sheet_row(json_object_get(row, "model"),
								     json_array_get(hw, k), e));
	return all;
}

/* The rows of table t in m (new reference), or NULL when m has none. */
static json_t *table_rows(const struct page_csv *t, const json_t *m)
{
	const json_t *o;

	if (t->rows_of)
		return t->rows_of(m);
	o = csv_path(m, t->rows);
	return json_is_array(o) ? json_incref((json_t *)o) : NULL;
}

/* Gives each row the absolute address its "url" column links to (t->url). */
static int add_urls(struct req *r, const struct page_csv *t, json_t *rows)
{
	struct buf url = BUF_INIT;
	char origin[300];
	json_t *row;
	size_t i;
	int rc;

	http_origin(r, origin, sizeof origin);
	json_array_foreach(rows, i, row) {
		buf_reset(&url);
		buf_puts(&url, origin);
		url_of(&url, row, t->url);
		if (url.len > strlen(origin) && !buf_error(&url))
			json_object_set_new(row, "url", json_stringn(url.buf, url.len));
	}
	rc = buf_error(&url);
	buf_release(&url);
	return rc;
}

int twins_csv(struct page_view *v, json_t *m, struct answer *a)
{
	struct http_opts o = { .cache_control = CC_PAGE, .etag = 1 };
	const struct page_csv *t = &v->kind->csv_tables[0];
	struct buf out = BUF_INIT;
	json_t *rows = table_rows(t, m);
	int rc = -1;

	if (!rows && v->kind->csv_tables[1].cols && (rows = table_rows(&v->kind->csv_tables[1], m)))
		t = &v->kind->csv_tables[1];
	if (!rows)
		rows = json_array();
	if (rows && !add_urls(v->r, t, rows) && !csv_table(&out, rows, t->cols, t->ncols))
		rc = answer_buf(a, 200, CT_CSV, &out, &o);
	buf_release(&out);
	json_decref(rows);
	return rc;
}

/* Where query arguments are carried: out from start on is "?k=v&k=v". */
struct carry {
	struct req *r;
	struct buf *out;
	size_t start;
};

/* 1 when the escaped key and its "=" (esc) already start an argument of
 * c's query (escaped, a key or value holds no '?', '&' or '='). */
static int carried(const struct carry *c, const char *esc)
{
	const char *q = c->out->buf + c->start;

	for (; (q = strstr(q, esc)); q++)
		if (q[-1] == '?' || q[-1] == '&')
			return 1;
	return 0;
}

/* Carries one argument as the page read it: a key's first value
 * (http_query()'s), when not empty, once; both URL-escaped. */
static void carry_one(void *ctx, const char *k, const char *v)
{
	struct carry *c = ctx;
	const char *first = http_query(c->r, k);
	struct buf esc = BUF_INIT;

	if (!v || !*v || !first || strcmp(first, v) || !page_query_known(k))
		return;
	html_url_arg(&esc, k);
	buf_putc(&esc, '=');
	if (!buf_error(&esc) && !buf_error(c->out) && !carried(c, esc.buf)) {
		buf_putc(c->out, c->out->len > c->start ? '&' : '?');
		buf_add(c->out, esc.buf, esc.len);
		html_url_arg(c->out, v);
	}
	buf_release(&esc);
}

/* Appends to href r's query as a twin reads it: every argument with its
 * first value, empty ones left out (the pages read them as absent),
 * URL-escaped. */
static void carry_query(struct req *r, struct buf *href)
{
	struct carry c = { r, href, href->len };

	if (!buf_error(href))
		http_query_each(r, carry_one, &c);
}

json_t *browse_twin_href(const struct browse *b, const char *path)
{
	struct buf href = BUF_INIT;
	json_t *s;

	buf_puts(&href, path);
	carry_query(b->r, &href);
	s = buf_error(&href) ? NULL : json_stringn(href.buf, href.len);
	buf_release(&href);
	return s;
}

/* One alternate {type, href, title}: pattern as it is when it has no '*',
 * else the page's own address (r->path, each segment URL-escaped, which
 * fills every star of the kind's path) followed by what pattern adds to
 * the kind's path kpath (".json", ".atom": a twin's and a feed's pattern
 * is the page's and a suffix, page_kinds_check makes sure); then, with
 * carry, the request's query (carry_query(); the feeds read none). */
static json_t *alternate(struct req *r, const char *type, const char *title,
			 const char *pattern, const char *kpath, int carry)
{
	struct buf href = BUF_INIT;
	json_t *o = NULL;

	if (strchr(pattern, '*')) {
		page_meta_address(&href, "", r->path);
		buf_puts(&href, pattern + strlen(kpath));
	} else {
		buf_puts(&href, pattern);
	}
	if (carry)
		carry_query(r, &href);
	if (!buf_error(&href))
		o = json_pack("{s:s, s:s, s:s}", "type", type, "href", href.buf, "title", title);
	buf_release(&href);
	return o;
}

void twins_add_alternates(struct page_view *v, json_t *m)
{
	const struct page_kind_def *k = v->kind;
	/* A page kept under its id (a run's) is the same page whatever else
	 * its query holds: its twins' links carry none of it. */
	int carry = !((k->flags & PAGE_KEPT_RUN) && v->keep);
	json_t *a;

	if (!(k->json || k->csv || k->feed) || !(a = json_array()))
		return;
	if (k->json)
		json_array_append_new(a, alternate(v->r, CT_JSON, "JSON", k->json, k->path, carry));
	if (k->csv)
		json_array_append_new(a, alternate(v->r, MT_CSV, "CSV", k->csv, k->path, carry));
	if (k->feed)
		json_array_append_new(a, alternate(v->r, CT_ATOM, "Atom feed", k->feed, k->path, 0));
	json_object_set_new(m, "alternates", a);
}
