/* page_lists.c: /outliers (flagged runs) and /disputes (open threads), each within one suite. */
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "buf.h"
#include "db.h"
#include "html.h"

#define PER_PAGE 50
#define PAGE_MAX 100000

static const char sql_newest_suite[] = "SELECT max(suite_version) FROM runs";
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
	"WHERE t.state = 'open' AND r.suite_version = ? "
	"ORDER BY t.last_post_id DESC, t.run_id DESC LIMIT ? OFFSET ?";

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

/* Member k of o with that many decimals as a new JSON string ("" for no
 * number). */
static json_t *fmt_num(const json_t *o, const char *k, int decimals)
{
	json_t *v = json_object_get(o, k);
	char s[64];

	if (!json_is_number(v))
		return json_string("");
	snprintf(s, sizeof s, "%.*f", decimals, json_number_value(v));
	return json_string(s);
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

/* The suite to list: ?suite=, else the newest one stored; into out.
 * Returns 0, -1 when the database failed, -2 when ?suite= is no suite
 * name (longer than out, or not UTF-8 text). */
static int suite_of(struct req *r, struct dbconn *c, char *out, size_t n)
{
	const char *q = http_query(r, "suite");
	sqlite3_stmt *st;
	json_t *ok;
	int rc;

	out[0] = '\0';
	if (q) {
		if (strlen(q) >= n || !(ok = json_string(q)))
			return -2;
		json_decref(ok);
		snprintf(out, n, "%s", q);
		return 0;
	}
	if (!(st = db_stmt(c, sql_newest_suite)))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Adds the formatted figures of one flagged run for the page. */
static void outlier_row(json_t *o)
{
	double x = json_number_value(json_object_get(o, "decode_tok_s"));
	double mean = json_number_value(json_object_get(o, "cluster_mean"));
	double sd = json_number_value(json_object_get(o, "cluster_stddev"));
	char s[64];

	json_object_set_new(o, "sigma", sd > 0 ? json_real((x - mean) / sd) : json_null());
	snprintf(s, sizeof s, "%+.2f", sd > 0 ? (x - mean) / sd : 0.0);
	json_object_set_new(o, "sigma_text", json_string(s));
	json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s", 1));
	json_object_set_new(o, "mean_text", fmt_num(o, "cluster_mean", 1));
	json_object_set_new(o, "stddev_text", fmt_num(o, "cluster_stddev", 2));
	json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	if (json_is_null(json_object_get(o, "dispute_state")))
		json_object_set_new(o, "dispute_state", json_string("none"));
}

/* Runs sql (its first parameter the suite, then the paging ones) for the
 * suite the request names (the newest by default), writing it to suite;
 * returns page page's rows, or NULL with *status 400 for a bad ?suite= and
 * 503 when the database failed. */
static json_t *suite_rows(struct req *r, const char *sql, long page,
			  unsigned *status, char suite[160])
{
	struct dbconn *c = db_reader(r->app->db);
	sqlite3_stmt *st;
	int rc;

	*status = 503;
	if (!c || (rc = suite_of(r, c, suite, 160)) == -1 || !(st = db_stmt(c, sql)))
		return NULL;
	if (rc == -2) {
		*status = 400;
		return NULL;
	}
	db_bind_text(st, 1, suite);
	return page_rows(st, 2, page);
}

/* The view model of /outliers: flagged runs of one suite, newest first;
 * NULL with *status 400 for a bad ?suite=, 503 when the database failed. */
static json_t *outliers_model(struct req *r, long page, unsigned *status)
{
	char suite[160];
	json_t *m, *rows;
	size_t i;

	if (!(rows = suite_rows(r, sql_outliers, page, status, suite)))
		return NULL;
	for (i = 0; i < json_array_size(rows); i++)
		outlier_row(json_array_get(rows, i));
	m = json_pack("{s:s, s:s}", "title", "Outliers", "suite", suite);
	paginate(m, rows, "/outliers", http_query(r, "suite"), page);
	json_decref(rows);
	return m;
}

/* The view model of /disputes: open threads of runs of one suite (suites
 * are never blended), latest post first; NULL with *status 400 for a bad
 * ?suite=, 503 when the database failed. */
static json_t *disputes_model(struct req *r, long page, unsigned *status)
{
	char suite[160];
	json_t *m, *rows, *o;
	size_t i;

	if (!(rows = suite_rows(r, sql_disputes, page, status, suite)))
		return NULL;
	json_array_foreach(rows, i, o) {
		json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s", 1));
		json_object_set_new(o, "outlier", json_boolean(json_integer_value(json_object_get(o, "outlier"))));
		json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	}
	m = json_pack("{s:s, s:s}", "title", "Disputes", "suite", suite);
	paginate(m, rows, "/disputes", http_query(r, "suite"), page);
	json_decref(rows);
	return m;
}

/* Renders a list page from its model builder: 400 for a bad page number
 * or suite, 503 when the database does not answer. */
static enum MHD_Result list_page(struct req *r, const char *name,
				 json_t *(*build)(struct req *, long, unsigned *))
{
	long page = page_number(r);
	enum MHD_Result ret;
	unsigned status;
	json_t *m;

	if (!page)
		return page_error(r, 400, "The page number must be a whole number from 1 to 100000, as in ?page=2.");
	if (!(m = build(r, page, &status)))
		return status == 400
			? page_error(r, 400, "The suite must be a suite name such as suite-v1, as in ?suite=suite-v1.")
			: page_error(r, 503, "The database is not answering; try again shortly.");
	ret = page_render(r, name, m, 200);
	json_decref(m);
	return ret;
}

enum MHD_Result page_outliers(struct req *r)
{
	return list_page(r, "outliers", outliers_model);
}

enum MHD_Result page_disputes(struct req *r)
{
	return list_page(r, "disputes", disputes_model);
}
