/* page_lists.c: /outliers (flagged runs) and /disputes (open threads), each
 * within one suite, on the browse machinery: its suite rule, its ?after=
 * cursor (keyset paging: a page costs its rows, whatever its depth) and
 * its pager (templates/_list_pager.html). */
#include "pages/page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "util/buf.h"
#include "store/db.h"
#include "util/timefmt.h"
#include "render/html.h"
#include "util/numfmt.h"

#define PER_PAGE 50

static const char sql_outliers[] =
	"SELECT r.id, r.model_name, r.model_slug, r.accelerator, r.hw_slug, r.hw_class, "
	"r.backend_name, r.backend_version, r.decode_tok_s, r.demo, r.received_at, "
	"c.n AS cluster_n, c.mean AS cluster_mean, c.stddev AS cluster_stddev, "
	"t.state AS dispute_state, t.posts AS dispute_posts "
	"FROM runs r JOIN clusters c ON c.suite_version = r.suite_version "
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class "
	"AND c.backend_name = r.backend_name "
	"LEFT JOIN dispute_threads t ON t.run_id = r.id "
	"WHERE r.outlier = 1 AND r.status = 'ok' AND r.suite_version = ?1 "
	"AND (r.received_at, r.id) < (?2, ?3) "
	"ORDER BY r.received_at DESC, r.id DESC LIMIT ?4";
static const char sql_disputes[] =
	"SELECT t.run_id AS id, t.opened_at, t.last_post_at, t.last_post_id, t.posts, "
	"r.model_name, r.model_slug, r.accelerator, r.hw_slug, r.backend_name, "
	"r.decode_tok_s, r.outlier, r.demo, r.suite_version "
	"FROM dispute_threads t JOIN runs r ON r.id = t.run_id "
	"WHERE t.state = 'open' AND t.suite_version = ?1 "
	"AND (t.last_post_id, t.run_id) < (?2, ?3) "
	"ORDER BY t.last_post_id DESC, t.run_id DESC LIMIT ?4";
/* Paging backwards by the same keys: from the cursor (inclusive) up, the
 * row ?4 places above it, which is where the previous page starts after.
 * The same indexes and joins, read the other way. */
static const char sql_outliers_up[] =
	"SELECT r.received_at, r.id "
	"FROM runs r JOIN clusters c ON c.suite_version = r.suite_version "
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class "
	"AND c.backend_name = r.backend_name "
	"WHERE r.outlier = 1 AND r.status = 'ok' AND r.suite_version = ?1 "
	"AND (r.received_at, r.id) >= (?2, ?3) "
	"ORDER BY r.received_at, r.id LIMIT 1 OFFSET ?4";
static const char sql_disputes_up[] =
	"SELECT t.last_post_id, t.run_id "
	"FROM dispute_threads t JOIN runs r ON r.id = t.run_id "
	"WHERE t.state = 'open' AND t.suite_version = ?1 "
	"AND (t.last_post_id, t.run_id) >= (?2, ?3) "
	"ORDER BY t.last_post_id, t.run_id LIMIT 1 OFFSET ?4";

/* Both lists read an index that holds exactly their rows in their order
 * (migration 0007: runs_outliers_list, dispute_threads_open) from the
 * cursor on, so a page costs its rows, never a pass over the runs. */
const char *const page_lists_sql[] = { sql_outliers, sql_disputes, sql_outliers_up,
	sql_disputes_up, NULL };

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

/* One list: its statement, the column that orders it (a number, or for
 * a time, an RFC 3339 text read as seconds), and its path. */
struct list {
	const char *sql;
	const char *sql_up;    /* the row a page above the cursor (see above) */
	const char *key;
	int key_is_time;
	const char *path;
};

/* Binds the suite and b's cursor (?after=<key>:<run id>; none: past the
 * first row) and n, the limit or the offset. */
static void list_bind(const struct browse *b, const struct list *l, sqlite3_stmt *st, int n)
{
	char t[TIMEFMT_LEN];

	db_bind_text(st, 1, b->suite);
	if (!l->key_is_time)
		browse_bind_after(b, st, 2);
	else {
		if (b->has_after)
			time_rfc3339((time_t)b->after_decode, t);
		db_bind_text(st, 2, b->has_after ? t : "~");
		db_bind_text(st, 3, b->after_id);
	}
	sqlite3_bind_int(st, 4, n);
}

/* The cursor of the row st stands on (its key, its run id). */
static void row_cursor(const struct list *l, sqlite3_stmt *st, char *out, size_t n)
{
	long long t = 0;
	const char *k = (const char *)sqlite3_column_text(st, 0);

	if (l->key_is_time)
		time_parse_rfc3339_utc(k ? k : "", &t);
	browse_cursor(out, n, l->key_is_time ? (double)t : sqlite3_column_double(st, 0),
		      (const char *)sqlite3_column_text(st, 1));
}

/* The link to the page before the cursor's: its own cursor is the row
 * PER_PAGE places above the current one; none that far up means the first
 * page.  JSON null on the first page, NULL on a database error. */
static json_t *list_prev(struct browse *b, const struct list *l)
{
	sqlite3_stmt *st;
	char cur[80];
	int rc;

	if (!b->has_after)
		return json_null();
	if (!(st = db_stmt(b->c, l->sql_up)))
		return NULL;
	list_bind(b, l, st, PER_PAGE);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_cursor(l, st, cur, sizeof cur);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return NULL;
	return browse_link(b, l->path, NULL, "after", rc == SQLITE_ROW ? cur : NULL, NULL);
}

/* The cursor after row o, as ?after= reads it. */
static void list_cursor(const struct list *l, const json_t *o, char *out, size_t n)
{
	json_t *k = json_object_get(o, l->key);
	long long t = 0;

	if (l->key_is_time)
		time_parse_rfc3339_utc(json_string_value(k) ? json_string_value(k) : "", &t);
	browse_cursor(out, n, l->key_is_time ? (double)t : json_number_value(k),
		      json_string_value(json_object_get(o, "id")));
}

/* Adds rows (trimmed to PER_PAGE) and the pager to m: "next" after the
 * last row when more exist, "prev" and "first" when this page came from a
 * cursor, "paged" when any is there.  Returns -1 when the database failed. */
static int list_pager(struct browse *b, const struct list *l, json_t *m, json_t *rows)
{
	int more = json_array_size(rows) > PER_PAGE;
	json_t *prev = list_prev(b, l);
	char cur[64];

	if (!prev)
		return -1;
	json_object_set_new(m, "prev", prev);

	if (more) {
		json_array_remove(rows, PER_PAGE);
		list_cursor(l, json_array_get(rows, PER_PAGE - 1), cur, sizeof cur);
	}
	json_object_set_new(m, "next", more ? browse_link(b, l->path, NULL, "after", cur, NULL)
				   : json_null());
	json_object_set_new(m, "first", b->has_after ? browse_link(b, l->path, NULL, NULL)
				    : json_null());
	json_object_set_new(m, "paged", json_boolean(more || b->has_after));
	json_object_set(m, "rows", rows);
	json_object_set_new(m, "count", json_integer((json_int_t)json_array_size(rows)));
	return 0;
}

/* One page of list l's rows for the suite b resolved, or NULL when the
 * database failed. */
static json_t *list_rows(struct browse *b, const struct list *l)
{
	sqlite3_stmt *st = db_stmt(b->c, l->sql);

	if (!st)
		return NULL;
	list_bind(b, l, st, PER_PAGE + 1);
	return db_rows_json(st);
}

static const struct list outliers = { sql_outliers, sql_outliers_up, "received_at", 1, "/outliers" };
static const struct list disputes = { sql_disputes, sql_disputes_up, "last_post_id", 0, "/disputes" };

/* The view model of /outliers: flagged runs of one suite, newest first;
 * NULL when the database failed. */
static json_t *outliers_model(struct browse *b)
{
	json_t *m, *rows;
	size_t i;

	if (!(rows = list_rows(b, &outliers)))
		return NULL;
	for (i = 0; i < json_array_size(rows); i++)
		outlier_row(json_array_get(rows, i));
	m = json_pack("{s:s, s:s}", "title", "Outliers", "suite", b->suite);
	if (m && list_pager(b, &outliers, m, rows) < 0) {
		json_decref(m);
		m = NULL;
	}
	json_decref(rows);
	return m;
}

/* The view model of /disputes: open threads of runs of one suite (suites
 * are never blended), latest post first; NULL when the database failed. */
static json_t *disputes_model(struct browse *b)
{
	json_t *m, *rows, *o;
	size_t i;

	if (!(rows = list_rows(b, &disputes)))
		return NULL;
	json_array_foreach(rows, i, o) {
		json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s"));
		json_object_set_new(o, "outlier", json_boolean(json_integer_value(json_object_get(o, "outlier"))));
		json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	}
	m = json_pack("{s:s, s:s}", "title", "Disputes", "suite", b->suite);
	if (m && list_pager(b, &disputes, m, rows) < 0) {
		json_decref(m);
		m = NULL;
	}
	json_decref(rows);
	return m;
}

/* Renders a list page from its model builder.  The suite follows the
 * browse pages' rules (browse_begin): ?suite= when it has runs (404 when
 * not, 400 when it is no suite name), else the newest by version order,
 * so suite-v10 comes after suite-v9; 400 for a malformed ?after=, 503 when
 * the database does not answer. */
static enum MHD_Result list_page(struct req *r, const char *name,
				 json_t *(*build)(struct browse *))
{
	struct browse b;
	json_t *m;

	if (browse_begin(&b, r) < 0)
		return browse_fail(&b);
	if (!(m = build(&b))) {
		browse_error(&b, 503, MSG_DB_DOWN);
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
