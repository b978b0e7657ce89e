/* page_lists.c: /outliers (flagged runs) and /disputes (open threads), each within one suite. */
#include "pages/page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "util/buf.h"
#include "store/db.h"
#include "render/html.h"
#include "util/numfmt.h"

#define PER_PAGE 50
#define PAGE_MAX 100000

static const char sql_outliers[] =
	"SELECT r.id, r.model_name, r.model_slug, r.accelerator, r.hw_slug, r.hw_class, "
	"r.backend_name, r.backend_version, r.decode_tok_s, r.demo, r.received_at, "
	"c.n AS cluster_n, c.mean AS cluster_mean, c.stddev AS cluster_stddev, "
	"t.state AS dispute_state, t.posts AS dispute_posts "
	"FROM runs r JOIN clusters c ON c.suite_version = r.suite_version "
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class "
	"AND c.backend_name = r.backend_name "
	"LEFT JOIN dispute_threads t ON t.run_id = r.id "
	"WHERE r.outlier = 1 AND r.status = 'ok' AND r.suite_version = ? "
	"ORDER BY r.received_at DESC, r.id DESC LIMIT ? OFFSET ?";
static const char sql_disputes[] =
	"SELECT t.run_id AS id, t.opened_at, t.last_post_at, t.posts, "
	"r.model_name, r.model_slug, r.accelerator, r.hw_slug, r.backend_name, "
	"r.decode_tok_s, r.outlier, r.demo, r.suite_version "
	"FROM dispute_threads t JOIN runs r ON r.id = t.run_id "
	"WHERE t.state = 'open' AND t.suite_version = ? "
	"ORDER BY t.last_post_id DESC, t.run_id DESC LIMIT ? OFFSET ?";

/* Both lists read an index that holds exactly their rows in their order
 * (migration 0007: runs_outliers_list, dispute_threads_open), so a page
 * costs its rows and the offset, never a pass over the runs. */
const char *const page_lists_sql[] = { sql_outliers, sql_disputes, NULL };

/* The ?page= number (1 when absent); 0 when it is not a whole number in
 * 1..PAGE_MAX. */
static long page_number(struct req *r)
{
	const char *s = http_query(r, "page");
	char *end;
	long p;

	if (!s)
		return 1;
	p = strtol(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && p >= 1 && p <= PAGE_MAX ? p : 0;
}

/* Member k of o as numfmt writes a figure, as a new JSON string ("" for
 * no number). */
static json_t *fmt_num(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k), *s;
	struct buf b = BUF_INIT;

	if (!json_is_number(v))
		return json_string("");
	numfmt_fig(&b, json_number_value(v));
	s = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return s;
}

/* The link to page p of path, keeping the suite argument when given. */
static json_t *page_link(const char *path, const char *suite, long p)
{
	struct buf b = BUF_INIT;
	json_t *v;

	buf_printf(&b, "%s?page=%ld", path, p);
	if (suite) {
		buf_puts(&b, "&suite=");
		html_url_arg(&b, suite);
	}
	v = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return v;
}

/* Trims rows to PER_PAGE and adds page, prev and next to the model. */
static void paginate(json_t *m, json_t *rows, const char *path,
		     const char *suite, long page)
{
	int more = json_array_size(rows) > PER_PAGE;

	if (more)
		json_array_remove(rows, PER_PAGE);
	json_object_set_new(m, "page", json_integer(page));
	json_object_set_new(m, "prev", page > 1 ? page_link(path, suite, page - 1) : json_null());
	json_object_set_new(m, "next", more ? page_link(path, suite, page + 1) : json_null());
	json_object_set_new(m, "pager", json_boolean(page > 1 || more));
	json_object_set(m, "rows", rows);
	json_object_set_new(m, "count", json_integer((json_int_t)json_array_size(rows)));
}

/* Runs st (bound but for the last two parameters, limit and offset) for
 * page and returns up to PER_PAGE + 1 rows, or NULL. */
static json_t *page_rows(sqlite3_stmt *st, int at, long page)
{
	sqlite3_bind_int(st, at, PER_PAGE + 1);
	sqlite3_bind_int64(st, at + 1, (sqlite3_int64)(page - 1) * PER_PAGE);
	return db_rows_json(st);
}

/* Adds the formatted figures of one flagged run for the page. */
static void outlier_row(json_t *o)
{
	double x = json_number_value(json_object_get(o, "decode_tok_s"));
	double mean = json_number_value(json_object_get(o, "cluster_mean"));
	double sd = json_number_value(json_object_get(o, "cluster_stddev"));
	struct buf s = BUF_INIT;

	json_object_set_new(o, "sigma", sd > 0 ? json_real((x - mean) / sd) : json_null());
	numfmt_sigma(&s, sd > 0 ? (x - mean) / sd : 0.0);
	json_object_set_new(o, "sigma_text", buf_error(&s) ? NULL : json_stringn(s.buf, s.len));
	buf_release(&s);
	json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s"));
	json_object_set_new(o, "mean_text", fmt_num(o, "cluster_mean"));
	json_object_set_new(o, "stddev_text", fmt_num(o, "cluster_stddev"));
	json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	if (json_is_null(json_object_get(o, "dispute_state")))
		json_object_set_new(o, "dispute_state", json_string("none"));
}

/* Runs sql (its first parameter the suite, then the paging ones) for the
 * suite b resolved; returns page page's rows, or NULL when the database
 * failed. */
static json_t *suite_rows(struct browse *b, const char *sql, long page)
{
	sqlite3_stmt *st = db_stmt(b->c, sql);

	if (!st)
		return NULL;
	db_bind_text(st, 1, b->suite);
	return page_rows(st, 2, page);
}

/* The view model of /outliers: flagged runs of one suite, newest first;
 * NULL when the database failed. */
static json_t *outliers_model(struct browse *b, long page)
{
	json_t *m, *rows;
	size_t i;

	if (!(rows = suite_rows(b, sql_outliers, page)))
		return NULL;
	for (i = 0; i < json_array_size(rows); i++)
		outlier_row(json_array_get(rows, i));
	m = json_pack("{s:s, s:s}", "title", "Outliers", "suite", b->suite);
	paginate(m, rows, "/outliers", b->suite_given ? b->suite : NULL, page);
	json_decref(rows);
	return m;
}

/* The view model of /disputes: open threads of runs of one suite (suites
 * are never blended), latest post first; NULL when the database failed. */
static json_t *disputes_model(struct browse *b, long page)
{
	json_t *m, *rows, *o;
	size_t i;

	if (!(rows = suite_rows(b, sql_disputes, page)))
		return NULL;
	json_array_foreach(rows, i, o) {
		json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s"));
		json_object_set_new(o, "outlier", json_boolean(json_integer_value(json_object_get(o, "outlier"))));
		json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	}
	m = json_pack("{s:s, s:s}", "title", "Disputes", "suite", b->suite);
	paginate(m, rows, "/disputes", b->suite_given ? b->suite : NULL, page);
	json_decref(rows);
	return m;
}

/* Renders a list page from its model builder.  The suite follows the
 * browse pages' rules (browse_begin): ?suite= when it has runs (404 when
 * not, 400 when it is no suite name), else the newest by version order,
 * so suite-v10 comes after suite-v9.  400 for a bad page number, 503 when
 * the database does not answer. */
static enum MHD_Result list_page(struct req *r, const char *name,
				 json_t *(*build)(struct browse *, long))
{
	long page = page_number(r);
	struct browse b;
	json_t *m;

	if (browse_begin(&b, r, 1) < 0)
		return browse_fail(&b);
	if (!page) {
		browse_error(&b, 400, "The page number must be a whole number from 1 to 100000, as in ?page=2.");
		return browse_fail(&b);
	}
	if (!(m = build(&b, page))) {
		browse_error(&b, 503, "The database is not answering; try again shortly.");
		return browse_fail(&b);
	}
	return browse_send(&b, name, m);
}

enum MHD_Result page_outliers(struct req *r)
{
	return list_page(r, "outliers", outliers_model);
}

enum MHD_Result page_disputes(struct req *r)
{
	return list_page(r, "disputes", disputes_model);
}
