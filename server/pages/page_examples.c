/* page_examples.c: the pages a "Not found" page offers instead (issue 38,
 * item 14): a run, a model, a hardware and a model-on-hardware page that
 * exist in this database (the most measured model and hardware of the
 * suite, and the model's best run), never the address that was missing,
 * and a search for the name that was asked for.  A handful of seeks in
 * the summary rows model_index and hw_index (migration 0012), whatever
 * the data. */
#include "pages/page.h"

#include <stdio.h>
#include <string.h>

#include "app.h"
#include "ingest/validate.h"
#include "render/html.h"
#include "store/db.h"
#include "util/buf.h"
#include "util/slug.h"

/* The two most measured models and hardware of the suite (two: one may be
 * the page that was missing), with a model's best run and leading
 * hardware. */
static const char sql_models[] =
	"SELECT model_slug, best_id, top_hw FROM model_index INDEXED BY model_index_runs "
	"WHERE suite_version = ?1 ORDER BY runs DESC, model_slug DESC LIMIT 2";
static const char sql_hws[] =
	"SELECT hw_slug, NULL, NULL FROM hw_index INDEXED BY hw_index_runs "
	"WHERE suite_version = ?1 ORDER BY runs DESC, hw_slug DESC LIMIT 2";
static const char sql_name[] = "SELECT name FROM search_names WHERE kind = ?1 AND slug = ?2";

const char *const page_examples_sql[] = { sql_models, sql_hws, sql_name, NULL };

/* The example {href, name} for prefix and slug (and then, when tail is
 * not NULL, "/hw/" and tail), named by kind's shown name when there is
 * one; NULL when it is the address r asked for. */
static json_t *example(struct req *r, struct dbconn *c, const char *kind, const char *prefix,
		       const char *slug, const char *tail)
{
	sqlite3_stmt *st = db_stmt(c, sql_name);
	struct buf href = BUF_INIT;
	json_t *o = NULL;

	buf_puts(&href, prefix);
	html_url_arg(&href, slug);
	if (tail) {
		buf_puts(&href, "/hw/");
		html_url_arg(&href, tail);
	}
	if (!buf_error(&href) && strcmp(href.buf, r->path ? r->path : "")) {
		const char *name = slug;

		if (st && kind) {
			db_bind_text(st, 1, kind);
			db_bind_text(st, 2, slug);
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
				name = (const char *)sqlite3_column_text(st, 0);
		}
		o = json_pack("{s:s, s:s}", "href", href.buf, "name", name);
		if (st)
			sqlite3_reset(st);
	}
	buf_release(&href);
	return o;
}

/* Reads sql's rows (slug, best run, leading hardware) into the first
 * example of each kind that is not r's own address. */
static void take(struct req *r, struct dbconn *c, const char *sql, int model, json_t *m)
{
	sqlite3_stmt *st = db_stmt(c, sql);
	char slug[SLUG_MAX + 1], run[32], hw[SLUG_MAX + 1];
	int rows = 0;

	if (!st)
		return;
	db_bind_text(st, 1, VALIDATE_SUITE);
	while (sqlite3_step(st) == SQLITE_ROW && rows < 2) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		const char *b = (const char *)sqlite3_column_text(st, 1);
		const char *h = (const char *)sqlite3_column_text(st, 2);
		json_t *e;

		rows++;
		snprintf(slug, sizeof slug, "%s", s ? s : "");
		snprintf(run, sizeof run, "%s", b ? b : "");
		snprintf(hw, sizeof hw, "%s", h ? h : "");
		if (!slug[0])
			continue;
		if (!json_object_get(m, model ? "model" : "hw") &&
		    (e = example(r, c, model ? "model" : "hw", model ? "/m/" : "/hw/", slug, NULL)))
			json_object_set_new(m, model ? "model" : "hw", e);
		if (model && run[0] && !json_object_get(m, "run") &&
		    (e = example(r, c, NULL, "/r/", run, NULL)))
			json_object_set_new(m, "run", e);
		if (model && hw[0] && !json_object_get(m, "model_hw") &&
		    (e = example(r, c, NULL, "/m/", slug, hw)))
			json_object_set_new(m, "model_hw", e);
	}
	sqlite3_reset(st);
}

/* The search for the last segment of r's path, when it reads as a name
 * (a slug's characters, without its twin's extension). */
static json_t *search_for(struct req *r)
{
	const char *p = r->path ? strrchr(r->path, '/') : NULL;
	char q[SLUG_MAX + 1];
	struct buf href = BUF_INIT;
	json_t *o = NULL;
	size_t n;

	if (!p || !p[1])
		return NULL;
	snprintf(q, sizeof q, "%s", p + 1);
	n = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.");
	if (q[n] || n < 2)
		return NULL;
	if ((p = strchr(q, '.')))
		q[p - q] = '\0';
	if (strlen(q) < 2)
		return NULL;
	buf_puts(&href, "/search?q=");
	html_url_arg(&href, q);
	if (!buf_error(&href))
		o = json_pack("{s:s, s:s}", "href", href.buf, "q", q);
	buf_release(&href);
	return o;
}

json_t *page_examples(struct req *r)
{
	struct dbconn *c = db_reader(r->app->db);
	json_t *m = json_object(), *s;

	if (!m)
		return NULL;
	if (c) {
		take(r, c, sql_models, 1, m);
		take(r, c, sql_hws, 0, m);
	}
	json_object_set_new(m, "any", json_boolean(json_object_size(m) > 0));
	if ((s = search_for(r)))
		json_object_set_new(m, "search", s);
	return m;
}
