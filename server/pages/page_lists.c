/* page_lists.c: /outliers (flagged runs) and /disputes (open threads, or
 * with ?state= the upheld or dismissed ones), each
 * within one suite, on the browse machinery: its suite rule, its ?after=
 * cursor (keyset paging: a page costs its rows, whatever its depth) and
 * its pager (templates/_list_pager.html). */
#include "pages/page.h"
#include "pages/kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "pages/browse.h"
#include "util/buf.h"
#include "store/db.h"
#include "store/names.h"
#include "store/outlier.h"
#include "util/timefmt.h"
#include "render/html.h"
#include "util/numfmt.h"
#include "util/textcut.h"
#include "util/nelem.h"

#define PER_PAGE 50
#define SNIPPET_READ "400"     /* characters of the latest post read */
#define SNIPPET_MAX 160        /* ... and shown, cut at a word */

/* ?sort= of each list.  The first is its order without ?sort=. */
static const struct browse_order outlier_orders[] = {
	{ "date", "Received", "newest first", 0 },
	{ "decode", "Decode tok/s", "fastest decode first", 0 },
	{ "prefill", "Prefill tok/s", "fastest prefill first", 0 },
	{ "ttft", "TTFT ms", "quickest first token first", 1 },
};
static const struct browse_order dispute_orders[] = {
	{ "activity", "Latest post", "latest post first", 0 },
	{ "opened", "Opened", "newest thread first", 0 },
	{ "posts", "Posts", "most posts first", 0 },
	{ "decode", "Decode tok/s", "fastest run first", 0 },
};

/* A page of a list after the cursor (?2, ?3) in one order, key k: the
 * rows below it (cmp "<", dir " DESC") or above it for an ascending order
 * (">", ""); ?4 is the limit.  UP is the same list read the other way from
 * the cursor (inclusive): the row ?4 places before it, which is where the
 * previous page starts after.  A key that is an expression (an index on
 * coalesce(...)) is compared as "k <= ?2 AND (k < ?2 OR id < ?3)", which
 * SQLite seeks in the index; on a plain column the row value does, ties
 * included. */
#define AFTER(k, id, cmp) " AND (" k ", " id ") " cmp " (?2, ?3) "
#define AFTER_X(k, id, cmp) " AND " k " " cmp "= ?2 AND (" k " " cmp " ?2 OR " id " " cmp " ?3) "
#define AFTER_XE(k, id, cmp) " AND " k " " cmp "= ?2 AND (" k " " cmp " ?2 OR " id " " cmp "= ?3) "
#define PAGE(from, k, id, after, dir) from after "ORDER BY " k dir ", " id dir " LIMIT ?4"
#define UP(k, id, from, after, dir) "SELECT " k ", " id " " from after \
	"ORDER BY " k dir ", " id dir " LIMIT 1 OFFSET ?4"

/* /outliers: flagged runs that count, in one suite, each order read from
 * its partial index (migrations 0007 and 0018), the clusters and threads
 * joined by key. */
#define OUT_CLUSTER "LEFT JOIN clusters c ON c.suite_version = r.suite_version " \
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class " \
	"AND c.backend_name = r.backend_name "
#define OUT_WHERE "WHERE r.outlier = 1 AND r.status = 'ok' AND r.suite_version = ?1"
#define OUT_FROM "FROM runs r " OUT_CLUSTER OUT_WHERE
/* With the combination that judges a run whose cluster has fewer than 11
 * keys (migration 0020), and the run's verdicts (why it is flagged). */
#define OUT_SELECT "SELECT r.id, " NAMES_MODEL("r.model_slug", "r.model_name") " AS model_name, " \
	"r.model_slug, " NAMES_HW("r.hw_slug", "r.accelerator") " AS accelerator, r.hw_slug, r.hw_class, " \
	"r.backend_name, r.backend_version, r.decode_tok_s, r.prefill_tok_s, r.ttft_ms, r.demo, " \
	"r.received_at, c.n AS cluster_n, c.mean AS cluster_mean, c.stddev AS cluster_stddev, " \
	"c.keys AS cluster_keys, o.runs AS combo_runs, o.keys AS combo_keys, o.mean AS combo_mean, " \
	"o.stddev AS combo_stddev, r.flag_bits, " \
	"t.state AS dispute_state, t.posts AS dispute_posts " \
	"FROM runs r " OUT_CLUSTER "LEFT JOIN combos o ON o.suite_version = r.suite_version " \
	"AND o.model_slug = r.model_slug AND o.model_digest = r.model_digest " \
	"AND o.hw_slug = r.hw_slug AND o.backend_name = r.backend_name " \
	"LEFT JOIN dispute_threads t ON t.run_id = r.id " OUT_WHERE
#define OUT_DESC(k) PAGE(OUT_SELECT, k, "r.id", AFTER(k, "r.id", "<"), " DESC"), \
	UP(k, "r.id", OUT_FROM, AFTER(k, "r.id", ">="), "")
#define OUT_DESC_X(k) PAGE(OUT_SELECT, k, "r.id", AFTER_X(k, "r.id", "<"), " DESC"), \
	UP(k, "r.id", OUT_FROM, AFTER_XE(k, "r.id", ">"), "")
#define OUT_ASC_X(k) PAGE(OUT_SELECT, k, "r.id", AFTER_X(k, "r.id", ">"), ""), \
	UP(k, "r.id", OUT_FROM, AFTER_XE(k, "r.id", "<"), " DESC")
/* Each order's {page, page backwards} statements, given to W. */
#define OUTLIER_SQL(W) \
	W(OUT_DESC("r.received_at")) \
	W(OUT_DESC("r.decode_tok_s")) \
	W(OUT_DESC_X("coalesce(r.prefill_tok_s, 0)")) \
	W(OUT_ASC_X("coalesce(r.ttft_ms, 1e300)"))
#define SQL_ROW(pair) { pair },
#define SQL_FLAT(pair) pair,
static const char *const sql_outliers[][2] = { OUTLIER_SQL(SQL_ROW) };

/* /disputes: open threads of one suite, each order read from its partial
 * index (0007, 0018); the thread holds its run's decode rate (0018).  Each
 * row brings the start of its latest post (one primary-key seek). */
#define DSP_JOIN "FROM dispute_threads t JOIN runs r ON r.id = t.run_id "
#define DSP_WHERE(state) "WHERE t.state = '" state "' AND t.suite_version = ?1"
#define DSP_SELECT(state) "SELECT t.run_id AS id, t.opened_at, t.last_post_at, t.last_post_id, t.posts, " \
	"t.resolved_at, " NAMES_MODEL("r.model_slug", "r.model_name") " AS model_name, r.model_slug, " \
	NAMES_HW("r.hw_slug", "r.accelerator") " AS accelerator, r.hw_slug, r.backend_name, " \
	"t.decode_tok_s, r.outlier, r.demo, r.suite_version, " \
	"substr(p.body, 1, " SNIPPET_READ ") AS latest_body, p.author AS latest_author, " \
	"p.by_submitter AS latest_by_submitter " DSP_JOIN \
	"LEFT JOIN dispute_posts p ON p.id = t.last_post_id " DSP_WHERE(state)
#define DSP_DESC(state, k) PAGE(DSP_SELECT(state), k, "t.run_id", AFTER(k, "t.run_id", "<"), " DESC"), \
	UP(k, "t.run_id", DSP_JOIN DSP_WHERE(state), AFTER(k, "t.run_id", ">="), "")
#define DISPUTE_SQL(W) \
	W(DSP_DESC("open", "t.last_post_id")) \
	W(DSP_DESC("open", "t.opened_at")) \
	W(DSP_DESC("open", "t.posts")) \
	W(DSP_DESC("open", "t.decode_tok_s"))
static const char *const sql_disputes[][2] = { DISPUTE_SQL(SQL_ROW) };

/* /disputes?state=upheld and ?state=dismissed: the ruled threads of one
 * suite, latest post first, read from dispute_threads_state (0003: state,
 * then the latest post), which seeks the state and the cursor and passes
 * over the threads of other suites; threads with the same latest post
 * (ruled with no post, 0) are put in order by run id after the seek.  An
 * index led by the suite (a migration) would make both exact. */
#define RULED_SQL(W) \
	W(DSP_DESC("upheld", "t.last_post_id")) \
	W(DSP_DESC("dismissed", "t.last_post_id"))
static const char *const sql_ruled[][2] = { RULED_SQL(SQL_ROW) };   /* upheld, dismissed */
const char *const page_lists_ruled_sql[] = { RULED_SQL(SQL_FLAT) NULL };

/* Each list reads an index that holds exactly its rows in its order from
 * the cursor on, so a page costs its rows, never a pass over the runs. */
const char *const page_lists_sql[] = { OUTLIER_SQL(SQL_FLAT) DISPUTE_SQL(SQL_FLAT) NULL };

/* Member k of o as browse_fig() writes it ("" for no number). */
static json_t *fmt_num(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? browse_fig(json_number_value(v)) : json_string("");
}

/* Member k of o, a count of posts, in words ("1 post", "3 posts"); null
 * for none. */
static json_t *posts_text(const json_t *o, const char *k)
{
	json_int_t n = json_integer_value(json_object_get(o, k));
	struct buf b = BUF_INIT;
	json_t *v;

	if (n <= 0)
		return json_null();
	numfmt_count(&b, n, "post", "posts");
	v = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return v;
}

/* Adds the formatted figures of one flagged run for the page: why it is
 * flagged (reason "above_ceiling" or "cluster"), the population that
 * decides (outlier_by_cluster: judged_by,
 * judging_mean, judging_stddev, judging_keys, judging_runs) and its sigma
 * there. */
static void outlier_row(json_t *o)
{
	double x = json_number_value(json_object_get(o, "decode_tok_s"));
	long long ckeys = json_integer_value(json_object_get(o, "cluster_keys"));
	int by_cluster = outlier_by_cluster(ckeys, json_integer_value(json_object_get(o, "combo_keys")),
					    json_integer_value(json_object_get(o, "flag_bits")));
	double mean = json_number_value(json_object_get(o, by_cluster ? "cluster_mean" : "combo_mean"));
	double sd = json_number_value(json_object_get(o, by_cluster ? "cluster_stddev" : "combo_stddev"));
	int ceiling = (json_integer_value(json_object_get(o, "flag_bits")) & 4) != 0;
	struct buf s = BUF_INIT;
	char why[200], needs[60];

	json_object_set_new(o, "reason", json_string(ceiling ? "above_ceiling" : "cluster"));
	json_object_set_new(o, "judged_by", json_string(by_cluster ? "cluster" : "combination"));
	json_object_set(o, "judging_mean", json_object_get(o, by_cluster ? "cluster_mean" : "combo_mean"));
	json_object_set(o, "judging_stddev", json_object_get(o, by_cluster ? "cluster_stddev" : "combo_stddev"));
	json_object_set(o, "judging_keys", json_object_get(o, by_cluster ? "cluster_keys" : "combo_keys"));
	json_object_set(o, "judging_runs", json_object_get(o, by_cluster ? "cluster_n" : "combo_runs"));
	snprintf(needs, sizeof needs, "; needs %d submitters to flag", OUTLIER_MIN_KEYS);
	if (ceiling)
		snprintf(why, sizeof why, "far above the bandwidth ceiling");
	else if (by_cluster)
		snprintf(why, sizeof why, "its cluster: %lld submitters, %lld runs", ckeys,
			 (long long)json_integer_value(json_object_get(o, "cluster_n")));
	else if (ckeys >= OUTLIER_MIN_KEYS)
		snprintf(why, sizeof why, "same weights, hardware and backend: %lld submitters, %lld runs",
			 (long long)json_integer_value(json_object_get(o, "combo_keys")),
			 (long long)json_integer_value(json_object_get(o, "combo_runs")));
	else
		snprintf(why, sizeof why, "same weights, hardware and backend: %lld submitters, %lld runs "
			 "(its cluster has %lld%s)",
			 (long long)json_integer_value(json_object_get(o, "combo_keys")),
			 (long long)json_integer_value(json_object_get(o, "combo_runs")), ckeys, needs);
	json_object_set_new(o, "why", json_string(why));

	json_object_set_new(o, "sigma", sd > 0 ? json_real((x - mean) / sd) : json_null());
	numfmt_sigma(&s, sd > 0 ? (x - mean) / sd : 0.0);
	json_object_set_new(o, "sigma_text", buf_error(&s) ? NULL : json_stringn(s.buf, s.len));
	buf_release(&s);
	json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s"));
	json_object_set_new(o, "prefill_text", fmt_num(o, "prefill_tok_s"));
	json_object_set_new(o, "ttft_text", fmt_num(o, "ttft_ms"));
	json_object_set_new(o, "mean_text", fmt_num(o, "judging_mean"));
	json_object_set_new(o, "stddev_text", fmt_num(o, "judging_stddev"));
	json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	if (json_is_null(json_object_get(o, "dispute_state")))
		json_object_set_new(o, "dispute_state", json_string("none"));
	json_object_set_new(o, "dispute_posts_text", posts_text(o, "dispute_posts"));
}

/* The sort key of one order: the row member holding it (a number, or for
 * a time, an RFC 3339 text read as seconds) and the key a row without the
 * figure sorts as (as the index's coalesce() does). */
struct list_key {
	const char *member;
	int is_time;
	double null_key;
};

/* One list: its path, its orders, per order its statements
 * (sql[sort][0] the page, [1] the row a page above the cursor) and key,
 * and the ?state= its links keep (NULL: none). */
struct list {
	const char *path;
	struct browse_orders orders;
	const char *const (*sql)[2];
	const struct list_key *keys;
	const char *state;
};

/* One page's list and order. */
struct listq {
	const struct list *l;
	int sort;
};

/* Binds the suite and b's cursor (?after=<key>:<run id>; none: before
 * the first row, whichever way the order runs) and n, the limit or the
 * offset. */
static void list_bind(const struct browse *b, const struct listq *q, sqlite3_stmt *st, int n)
{
	char t[TIMEFMT_LEN];

	db_bind_text(st, 1, b->suite);
	if (q->l->orders.o[q->sort].ascending && !b->has_after) {
		sqlite3_bind_double(st, 2, -HUGE_VAL);
		db_bind_text(st, 3, "");
	} else if (!q->l->keys[q->sort].is_time) {
		browse_bind_after(b, st, 2);
	} else {
		/* A cursor past year 9999 (or past time_t) reads as year 9999. */
		if (b->has_after)
			time_rfc3339(b->after_decode < 253402300799.0 ? (time_t)b->after_decode
								    : (time_t)253402300799LL, t);
		db_bind_text(st, 2, b->has_after ? t : "~");
		db_bind_text(st, 3, b->after_id);
	}
	sqlite3_bind_int(st, 4, n);
}

/* The cursor of the row st stands on (its key, its run id). */
static void row_cursor(const struct listq *q, sqlite3_stmt *st, char *out, size_t n)
{
	long long t = 0;
	const char *k = (const char *)sqlite3_column_text(st, 0);

	if (q->l->keys[q->sort].is_time)
		time_parse_rfc3339_utc(k ? k : "", &t);
	browse_cursor(out, n, q->l->keys[q->sort].is_time ? (double)t : sqlite3_column_double(st, 0),
		      (const char *)sqlite3_column_text(st, 1));
}

/* The ?sort= value of q's links: none for the list's default order. */
static const char *sort_arg(const struct listq *q)
{
	return q->sort ? q->l->orders.o[q->sort].key : NULL;
}

/* The link to the page before the cursor's: its own cursor is the row
 * PER_PAGE places above the current one; none that far up means the first
 * page.  JSON null on the first page, NULL on a database error. */
static json_t *list_prev(struct browse *b, const struct listq *q)
{
	sqlite3_stmt *st;
	char cur[80];
	int rc;

	if (!b->has_after)
		return json_null();
	if (!(st = db_stmt(b->c, q->l->sql[q->sort][1])))
		return NULL;
	list_bind(b, q, st, PER_PAGE);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_cursor(q, st, cur, sizeof cur);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return NULL;
	return browse_link(b, q->l->path, NULL, "state", q->l->state, "sort", sort_arg(q),
			   "after", rc == SQLITE_ROW ? cur : NULL, NULL);
}

/* The cursor after row o, as ?after= reads it. */
static void list_cursor(const struct listq *q, const json_t *o, char *out, size_t n)
{
	const struct list_key *lk = &q->l->keys[q->sort];
	json_t *k = json_object_get(o, lk->member);
	long long t = 0;
	double key = json_is_number(k) ? json_number_value(k) : lk->null_key;

	if (lk->is_time) {
		time_parse_rfc3339_utc(json_string_value(k) ? json_string_value(k) : "", &t);
		key = (double)t;
	}
	browse_cursor(out, n, key, json_string_value(json_object_get(o, "id")));
}

/* What list_sort_href() needs: the request and its list. */
struct sort_ctx {
	const struct browse *b;
	const struct listq *q;
};

/* One "Sort by" link of a list: its first page in that order. */
static json_t *list_sort_href(void *ctx, const char *sort)
{
	const struct sort_ctx *c = ctx;

	return browse_link(c->b, c->q->l->path, NULL, "state", c->q->l->state, "sort", sort, NULL);
}

/* Adds rows (trimmed to PER_PAGE), the pager and the sort links to m:
 * "next" after the last row when more exist, "prev" and "first" when this
 * page came from a cursor, "paged" when any is there, each in the page's
 * order.  Returns -1 when the database failed. */
static int list_pager(struct browse *b, const struct listq *q, json_t *m, json_t *rows)
{
	int more = json_array_size(rows) > PER_PAGE;
	json_t *prev = list_prev(b, q);
	struct sort_ctx ctx = { b, q };
	char cur[80];

	if (!prev)
		return -1;
	json_object_set_new(m, "prev", prev);

	if (more) {
		json_array_remove(rows, PER_PAGE);
		list_cursor(q, json_array_get(rows, PER_PAGE - 1), cur, sizeof cur);
	}
	json_object_set_new(m, "next", more ? browse_link(b, q->l->path, NULL, "state", q->l->state,
							  "sort", sort_arg(q), "after", cur, NULL) : json_null());
	json_object_set_new(m, "first", b->has_after ? browse_link(b, q->l->path, NULL, "state", q->l->state,
								    "sort", sort_arg(q), NULL) : json_null());
	json_object_set_new(m, "paged", json_boolean(more || b->has_after));
	json_object_set(m, "rows", rows);
	json_object_set_new(m, "count", json_integer((json_int_t)json_array_size(rows)));
	return browse_add_orders(m, &q->l->orders, q->sort, list_sort_href, &ctx);
}

/* One page of q's rows for the suite b resolved, or NULL when the
 * database failed. */
static json_t *list_rows(struct browse *b, const struct listq *q)
{
	sqlite3_stmt *st = db_stmt(b->c, q->l->sql[q->sort][0]);

	if (!st)
		return NULL;
	list_bind(b, q, st, PER_PAGE + 1);
	return db_rows_json(st);
}

#define ORDERS(o) { o, (int)(NELEM(o)) }
static const struct list_key outlier_keys[] = {
	{ "received_at", 1, 0 }, { "decode_tok_s", 0, 0 }, { "prefill_tok_s", 0, 0 },
	{ "ttft_ms", 0, 1e300 },
};
static const struct list_key dispute_keys[] = {
	{ "last_post_id", 0, 0 }, { "opened_at", 1, 0 }, { "posts", 0, 0 }, { "decode_tok_s", 0, 0 },
};

_Static_assert(NELEM(outlier_keys) == NELEM(outlier_orders) && NELEM(sql_outliers) == NELEM(outlier_orders),
	       "one key and one pair of statements per order of /outliers");
_Static_assert(NELEM(dispute_keys) == NELEM(dispute_orders) && NELEM(sql_disputes) == NELEM(dispute_orders),
	       "one key and one pair of statements per order of /disputes");

static const struct list outliers = { "/outliers", ORDERS(outlier_orders), sql_outliers, outlier_keys, NULL };
static const struct list disputes = { "/disputes", ORDERS(dispute_orders), sql_disputes, dispute_keys, NULL };
/* The ruled threads: the latest post first, their one order. */
static const struct list upheld = { "/disputes", { dispute_orders, 1 }, sql_ruled, dispute_keys, "upheld" };
static const struct list dismissed = { "/disputes", { dispute_orders, 1 }, sql_ruled + 1, dispute_keys, "dismissed" };

/* The view model of /outliers: flagged runs of one suite in the order
 * q names; NULL when the database failed. */
static json_t *outliers_model(struct browse *b, const struct listq *q)
{
	json_t *m, *rows;
	size_t i;

	if (!(rows = list_rows(b, q)))
		return NULL;
	for (i = 0; i < json_array_size(rows); i++)
		outlier_row(json_array_get(rows, i));
	m = json_pack("{s:s, s:s}", "title", "Outliers", "suite", b->suite);
	if (m && list_pager(b, q, m, rows) < 0) {
		json_decref(m);
		m = NULL;
	}
	json_decref(rows);
	return m;
}

/* The start of a thread's latest post for the list: its white space
 * collapsed to single spaces, cut after a word to SNIPPET_MAX; null when
 * the thread has no post. */
static json_t *snippet_of(const json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "latest_body"));
	struct buf flat = BUF_INIT, b = BUF_INIT;
	json_t *v = NULL;

	if (!s)
		return json_null();
	for (; *s; s++) {
		int space = *s == ' ' || *s == '\n' || *s == '\t' || *s == '\r';

		if (!space)
			buf_putc(&flat, *s);
		else if (flat.len && flat.buf[flat.len - 1] != ' ')
			buf_putc(&flat, ' ');
	}
	if (!buf_error(&flat))
		textcut_words(&b, flat.len ? flat.buf : "", SNIPPET_MAX);
	if (!buf_error(&flat) && !buf_error(&b))
		v = json_stringn(b.buf, b.len);
	buf_release(&flat);
	buf_release(&b);
	return v;
}

/* Adds what the page shows of one thread: its figures, the snippet of its
 * latest post and who wrote it, its posts in words. */
static void dispute_row(json_t *o)
{
	int by_sub = json_integer_value(json_object_get(o, "latest_by_submitter")) == 1;

	json_object_set_new(o, "decode_text", fmt_num(o, "decode_tok_s"));
	json_object_set_new(o, "outlier", json_boolean(json_integer_value(json_object_get(o, "outlier"))));
	json_object_set_new(o, "demo", json_boolean(json_integer_value(json_object_get(o, "demo"))));
	json_object_set_new(o, "latest_by_submitter", json_boolean(by_sub));
	json_object_set_new(o, "latest_snippet", snippet_of(o));
	json_object_del(o, "latest_body");
	json_object_set_new(o, "posts_text", posts_text(o, "posts"));
}

/* The three views of /disputes, as tabs [{label, href, selected}]. */
static json_t *state_views(const struct browse *b, const struct list *l)
{
	static const char *const states[][2] = {
		{ NULL, "Open" }, { "upheld", "Upheld" }, { "dismissed", "Dismissed" } };
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < 3; i++) {
		int on = l->state ? states[i][0] && !strcmp(l->state, states[i][0]) : !states[i][0];

		json_array_append_new(a, json_pack("{s:s, s:o*, s:b}", "label", states[i][1],
			"href", browse_link(b, "/disputes", NULL, "state", states[i][0], NULL), "selected", on));
	}
	return a;
}

/* The view model of /disputes: the threads of runs of one suite (suites
 * are never blended) in the state and order q names; NULL when the
 * database failed. */
static json_t *disputes_model(struct browse *b, const struct listq *q)
{
	const char *state = q->l->state ? q->l->state : "open";
	json_t *m, *rows, *o;
	size_t i;

	if (!(rows = list_rows(b, q)))
		return NULL;
	json_array_foreach(rows, i, o)
		dispute_row(o);
	m = json_pack("{s:s, s:s, s:s, s:b, s:b, s:b, s:o}", "title", "Disputes", "suite", b->suite,
		      "state", state, "open", !strcmp(state, "open"), "upheld", !strcmp(state, "upheld"),
		      "dismissed", !strcmp(state, "dismissed"), "views", state_views(b, q->l));
	if (m && list_pager(b, q, m, rows) < 0) {
		json_decref(m);
		m = NULL;
	}
	json_decref(rows);
	return m;
}

/* List l's view model from its model builder.  The suite follows the
 * browse pages' rules (browse_begin): ?suite= when it has runs (404 when
 * not, 400 when it is no suite name), else the newest by version order,
 * so suite-v10 comes after suite-v9; NULL with a 400 for a malformed
 * ?after= or an unknown ?sort= (naming the allowed ones), a 503 when the
 * database does not answer. */
static json_t *list_view(struct page_view *v, const struct list *l,
			 json_t *(*build)(struct browse *, const struct listq *))
{
	struct listq q = { l, 0 };
	struct browse b;
	json_t *m = NULL;

	if (browse_begin(&b, v->r) < 0 || (q.sort = browse_take_order(&b, &l->orders)) < 0)
		return page_view_browsed(v, &b, NULL);
	if (!(m = build(&b, &q)))
		browse_error(&b, 503, MSG_DB_DOWN);
	return page_view_browsed(v, &b, m);
}

json_t *page_outliers_view(struct page_view *v)
{
	return list_view(v, &outliers, outliers_model);
}

/* GET /disputes (.json, .csv): ?state= open (the default), upheld or
 * dismissed picks the threads; anything else is 400 naming the three. */
json_t *page_disputes_view(struct page_view *v)
{
	const char *st = http_query(v->r, "state");
	const struct list *l = !st || !*st || !strcmp(st, "open") ? &disputes
			     : !strcmp(st, "upheld") ? &upheld : !strcmp(st, "dismissed") ? &dismissed : NULL;
	struct browse b;

	if (l)
		return list_view(v, l, disputes_model);
	if (browse_begin(&b, v->r) == 0)
		browse_error(&b, 400, "The state= argument must be open, upheld or dismissed.");
	return page_view_browsed(v, &b, NULL);
}
