/* thread.c: a run's dispute thread as read: head, posts by page, the
 * submitter's pinned posts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "disputes/dispute_int.h"
#include "render/html.h"
#include "util/buf.h"
#include "util/timefmt.h"

static const char sql_thread[] =
	"SELECT state, note, resolved_at, posts FROM dispute_threads WHERE run_id = ?";
static const char sql_posts[] =
	"SELECT id, run_id, author, body, by_submitter, created_at FROM dispute_posts "
	"WHERE run_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3";
static const char sql_pinned[] =
	"SELECT id, run_id, author, body, by_submitter, created_at FROM dispute_posts "
	"WHERE run_id = ?1 AND by_submitter = 1 AND (id <= ?2 OR id > ?3) "
	"ORDER BY id DESC LIMIT ?4";

/* Plain text as HTML with its line breaks kept, as a JSON string. */
static json_t *lines_html(const char *s)
{
	struct buf b = BUF_INIT;
	json_t *v;

	if (!s)
		return json_null();
	html_txt_lines(&b, s);
	v = buf_error(&b) ? NULL : json_stringn(b.buf, b.len);
	buf_release(&b);
	return v;
}

/* Adds body_html and turns by_submitter into a boolean, for a post row. */
static void post_dress(json_t *p)
{
	json_t *by = json_object_get(p, "by_submitter");

	json_object_set_new(p, "by_submitter", json_boolean(json_integer_value(by)));
	json_object_set_new(p, "body_html",
			    lines_html(json_string_value(json_object_get(p, "body"))));
}

/* The thread's row as the view model's head, or an empty open thread. */
static json_t *thread_head(struct dbconn *c, const char *id)
{
	sqlite3_stmt *st = db_stmt(c, sql_thread);
	json_t *t, *row;
	const char *state;
	int rc;

	if (!st)
		return NULL;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	row = rc == SQLITE_ROW ? db_row_json(st)
		: json_pack("{s:s, s:n, s:n, s:i}", "state", "open", "note",
			    "resolved_at", "posts", 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		json_decref(row);
		return NULL;
	}
	if (!(state = json_string_value(json_object_get(row, "state")))) {
		json_decref(row);   /* out of memory */
		return NULL;
	}
	t = json_pack("{s:s, s:O, s:o, s:O, s:O}", "state", state,
		      "note", json_object_get(row, "note"),
		      "note_html", lines_html(json_string_value(json_object_get(row, "note"))),
		      "resolved_at", json_object_get(row, "resolved_at"),
		      "count", json_object_get(row, "posts"));
	json_object_set_new(t, "resolution", strcmp(state, "open") ? json_string(state) : json_null());
	json_object_set_new(t, "upheld", json_boolean(!strcmp(state, "upheld")));
	json_object_set_new(t, "dismissed", json_boolean(!strcmp(state, "dismissed")));
	json_decref(row);
	return t;
}

/* Runs a bound post query and dresses its rows; NULL on failure. */
static json_t *posts_of(sqlite3_stmt *st)
{
	json_t *a = db_rows_json(st);
	size_t i;

	for (i = 0; a && i < json_array_size(a); i++)
		post_dress(json_array_get(a, i));
	return a;
}

/* One page of the thread: the posts after post id `after`, oldest first,
 * at most DISPUTE_THREAD_MAX; *more is set when later posts exist. */
static json_t *thread_page(struct dbconn *c, const char *id, long long after, int *more)
{
	sqlite3_stmt *st = db_stmt(c, sql_posts);
	json_t *a;

	if (!st)
		return NULL;
	db_bind_text(st, 1, id);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_int(st, 3, DISPUTE_THREAD_MAX + 1);
	if (!(a = posts_of(st)))
		return NULL;
	*more = json_array_size(a) > DISPUTE_THREAD_MAX;
	if (*more)
		json_array_remove(a, DISPUTE_THREAD_MAX);
	return a;
}

/* The submitter's latest DISPUTE_PINNED_MAX posts outside the page
 * (after, last], oldest first, so a long thread cannot bury them. */
static json_t *thread_pinned(struct dbconn *c, const char *id, long long after, long long last)
{
	sqlite3_stmt *st = db_stmt(c, sql_pinned);
	json_t *a, *out;
	size_t i;

	if (!st)
		return NULL;
	db_bind_text(st, 1, id);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_int64(st, 3, last);
	sqlite3_bind_int(st, 4, DISPUTE_PINNED_MAX);
	if (!(a = posts_of(st)) || !(out = json_array())) {
		json_decref(a);
		return NULL;
	}
	for (i = json_array_size(a); i > 0; i--)
		json_array_append(out, json_array_get(a, i - 1));
	json_decref(a);
	return out;
}

long long dispute_after(struct req *r)
{
	const char *s = http_query(r, "after");
	long long v = 0;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
		return 0;
	sscanf(s, "%lld", &v);
	return v;
}

/* Adds the page (posts, after, next_after, truncated) and the pinned
 * submitter posts to thread t; -1 on failure. */
static int thread_add_posts(struct dbconn *c, const char *id, long long after, json_t *t)
{
	json_t *posts, *pinned, *lastp;
	long long last;
	int more = 0;

	if (!(posts = thread_page(c, id, after, &more)))
		return -1;
	lastp = json_array_get(posts, json_array_size(posts) - 1);
	last = lastp ? (long long)json_integer_value(json_object_get(lastp, "id")) : after;
	if (!more)
		last = 0x7fffffffffffffffLL;   /* nothing later to pin */
	if (!(pinned = thread_pinned(c, id, after, last))) {
		json_decref(posts);
		return -1;
	}
	json_object_set_new(t, "after", after ? json_integer((json_int_t)after) : json_null());
	json_object_set_new(t, "next_after", more ? json_integer((json_int_t)last) : json_null());
	json_object_set_new(t, "truncated", json_boolean(more));
	json_object_set_new(t, "posts", posts);
	json_object_set_new(t, "pinned", json_boolean(json_array_size(pinned) > 0));
	json_object_set_new(t, "submitter_posts", pinned);
	return 0;
}

json_t *dispute_thread_json(struct req *r, const char *id)
{
	char token[DISPUTE_TOKEN_LEN];
	struct dbconn *c = db_reader(r->app->db);
	json_t *t;

	if (!c || !(t = thread_head(c, id)))
		return NULL;
	if (thread_add_posts(c, id, dispute_after(r), t) < 0) {
		json_decref(t);
		return NULL;
	}
	dispute_form_token(id, time_now(), token);
	json_object_set_new(t, "form_token", json_string(token));
	return t;
}
