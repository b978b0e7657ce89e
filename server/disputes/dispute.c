/* dispute.c: dispute threads: posts, signed replies, the form and moderation. */
#include "disputes/dispute.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "http/cache.h"
#include "disputes/confusable.h"
#include "store/db.h"
#include "store/defer.h"
#include "http/form.h"
#include "render/html.h"
#include "ingest/jws.h"
#include "store/outlier.h"
#include "pages/page.h"
#include "http/ratelimit.h"
#include "store/run_store.h"
#include "render/tmpl.h"
#include "util/timefmt.h"

static const char sql_run[] = "SELECT key_thumbprint FROM runs WHERE id = ?";
static const char sql_thread[] =
	"SELECT state, note, resolved_at, posts FROM dispute_threads WHERE run_id = ?";
static const char sql_posts[] =
	"SELECT id, run_id, author, body, by_submitter, created_at FROM dispute_posts "
	"WHERE run_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3";
/* The submitter's latest posts that are not on the page (?2, ?3]. */
static const char sql_pinned[] =
	"SELECT id, run_id, author, body, by_submitter, created_at FROM dispute_posts "
	"WHERE run_id = ?1 AND by_submitter = 1 AND (id <= ?2 OR id > ?3) "
	"ORDER BY id DESC LIMIT ?4";
static const char sql_signed_seen[] =
	"SELECT id FROM dispute_posts WHERE run_id = ? AND signed_sha256 = ?";
static const char sql_open_thread[] =
	"INSERT INTO dispute_threads(run_id, state, opened_at, last_post_at) "
	"VALUES (?1, 'open', ?2, ?2) ON CONFLICT(run_id) DO NOTHING";
static const char sql_add_post[] =
	"INSERT INTO dispute_posts(run_id, author, body, by_submitter, created_at, signed_sha256) "
	"VALUES (?, ?, ?, ?, ?, ?)";
static const char sql_bump_thread[] =
	"UPDATE dispute_threads SET last_post_at = ?1, last_post_id = ?2, "
	"posts = posts + 1 WHERE run_id = ?3";
static const char sql_run_cluster[] =
	"SELECT suite_version, model_digest, hw_class, backend_name, status "
	"FROM runs WHERE id = ?";
static const char sql_rule[] =
	"INSERT INTO dispute_threads(run_id, state, note, opened_at, resolved_at, last_post_at) "
	"VALUES (?1, ?2, ?3, ?4, ?4, ?4) ON CONFLICT(run_id) DO UPDATE SET "
	"state = excluded.state, note = excluded.note, resolved_at = excluded.resolved_at";
static const char sql_set_status[] = "UPDATE runs SET status = ? WHERE id = ?";

/* Fills e and returns -1, for one-line refusals. */
static int refuse(struct err *e, unsigned status, const char *code,
		  const char *field, const char *message)
{
	return err_set(e, status, code, field, "%s", message);
}

/* ---- plain text ---- */

/* The number of characters of UTF-8 s[0..n), or -1 when it is not valid
 * UTF-8 (overlong forms, surrogates and values past U+10FFFF included) or
 * holds a NUL. */
static long utf8_chars(const unsigned char *s, size_t n)
{
	size_t i = 0, k, len;
	unsigned long cp;
	long count = 0;

	while (i < n) {
		unsigned char c = s[i];
		if (c == 0)
			return -1;
		len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		      (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n)
			return -1;
		cp = len == 1 ? c : c & (0x7f >> len);
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return -1;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return -1;
		i += len;
		count++;
	}
	return count;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A malloc'd copy of s[0..n) with CR LF and lone CR turned into LF (into a
 * space when !lines) and white space trimmed at both ends; NULL when out of
 * memory. */
static char *clean_text(const char *s, size_t n, int lines)
{
	char *out = malloc(n + 1), *o = out, *start;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\r') {
			if (i + 1 < n && s[i + 1] == '\n')
				i++;
			c = '\n';
		}
		*o++ = c == '\n' && !lines ? ' ' : c;
	}
	while (o > out && is_space(o[-1]))
		o--;
	*o = '\0';
	for (start = out; is_space(*start); start++)
		;
	memmove(out, start, (size_t)(o - start) + 1);
	return out;
}

/* Checks one text field and stores its cleaned copy in *out (NULL when
 * empty and optional).  Returns 0, or -1 with e filled. */
static int text_field(const char *s, size_t n, const char *field, long max,
		      int lines, int required, char **out, struct err *e)
{
	char msg[200];
	long chars;

	*out = NULL;
	if (!s && !required)
		return 0;
	if (!s) {
		snprintf(msg, sizeof msg, "Write the dispute in \"%s\": 1 to %ld characters of plain text.", field, max);
		return refuse(e, 422, "schema_violation", field, msg);
	}
	if ((chars = utf8_chars((const unsigned char *)s, n)) < 0) {
		snprintf(msg, sizeof msg, "The \"%s\" field must be UTF-8 text without NUL characters.", field);
		return refuse(e, 422, "schema_violation", field, msg);
	}
	if (!(*out = clean_text(s, n, lines)))
		return refuse(e, 503, "unavailable", NULL, MSG_NOMEM);
	chars = utf8_chars((const unsigned char *)*out, strlen(*out));
	if (chars > max || (required && chars == 0)) {
		free(*out);
		*out = NULL;
		snprintf(msg, sizeof msg, chars ? "The \"%s\" field is longer than %ld characters; shorten it."
			 : "The \"%s\" field is empty; write 1 to %ld characters.", field, max);
		return refuse(e, 422, "schema_violation", field, msg);
	}
	if (chars == 0) {
		free(*out);
		*out = NULL;
	}
	return 0;
}

/* ---- reading threads ---- */

/* 0 when run id exists (its key thumbprint copied to thumb), DB_NOTFOUND,
 * or another negative db_status. */
static int run_lookup(struct req *r, const char *id, char thumb[48])
{
	struct dbconn *c;
	sqlite3_stmt *st;
	int rc;

	if (!run_id_valid(id))
		return DB_NOTFOUND;
	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_run)))
		return DB_ERR;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(thumb, 48, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? DB_OK : rc == SQLITE_DONE ? DB_NOTFOUND : DB_ERR;
}

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
static void post_dress(json_t *p, int html)
{
	json_t *by = json_object_get(p, "by_submitter");

	json_object_set_new(p, "by_submitter", json_boolean(json_integer_value(by)));
	if (html)
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
		post_dress(json_array_get(a, i), 1);
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
	dispute_form_token(id, (long long)time(NULL), token);
	json_object_set_new(t, "form_token", json_string(token));
	return t;
}

/* ---- the form token ---- */

#define TOKEN_DAY 86400

static unsigned char form_key[crypto_auth_KEYBYTES];
static pthread_once_t form_key_once = PTHREAD_ONCE_INIT;
static int form_key_loaded;

/* Draws a process-only form key, once, unless dispute_init() loaded the
 * database's key (unit tests run without a database). */
static void form_key_init(void)
{
	if (sodium_init() < 0)
		abort();
	if (!form_key_loaded)
		randombytes_buf(form_key, sizeof form_key);
}

static const char sql_key_get[] = "SELECT value FROM secrets WHERE name = 'form_key'";
static const char sql_key_put[] = "INSERT INTO secrets(name, value) VALUES ('form_key', ?)";

/* Writer job: reads the stored form key, storing a fresh one the first
 * time, into form_key. */
static int key_run(struct dbconn *w, struct db_job *j)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_get);
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == (int)sizeof form_key) {
		memcpy(form_key, sqlite3_column_blob(st, 0), sizeof form_key);
		sqlite3_reset(st);
		return DB_OK;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE || !(st = db_stmt(w, sql_key_put)))
		return DB_ERR;
	randombytes_buf(form_key, sizeof form_key);
	sqlite3_bind_blob(st, 1, form_key, sizeof form_key, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int dispute_init(struct db *db)
{
	struct db_job j = { .run = key_run };

	if (db_write(db, &j) != DB_OK)
		return -1;
	form_key_loaded = 1;
	return 0;
}

/* The token for run_id in day window day. */
static void token_of(const char *run_id, long long day, char out[DISPUTE_TOKEN_LEN])
{
	unsigned char mac[crypto_auth_BYTES];
	char msg[200];
	int n;

	pthread_once(&form_key_once, form_key_init);
	n = snprintf(msg, sizeof msg, "dispute-form\n%s\n%lld", run_id, day);
	if (n < 0 || (size_t)n >= sizeof msg)
		n = 0;
	crypto_auth(mac, (const unsigned char *)msg, (unsigned long long)n, form_key);
	sodium_bin2base64(out, DISPUTE_TOKEN_LEN, mac, sizeof mac,
			  sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

void dispute_form_token(const char *run_id, long long now, char out[DISPUTE_TOKEN_LEN])
{
	token_of(run_id, now / TOKEN_DAY, out);
}

/* How many days before now's the token for run_id was made, looking back
 * at most max days; -1 when it is no token of this process for run_id. */
static int token_age(const char *run_id, const char *token, long long now, int max)
{
	char want[DISPUTE_TOKEN_LEN];
	size_t n = strlen(token);
	int back;

	for (back = 0; back <= max; back++) {
		token_of(run_id, now / TOKEN_DAY - back, want);
		if (n != strlen(want))
			return -1;
		if (sodium_memcmp(token, want, n) == 0)
			return back;
	}
	return -1;
}

int dispute_form_token_ok(const char *run_id, const char *token, long long now)
{
	return token_age(run_id, token, now, 1) >= 0;
}

/* How far back a refused token is still recognised as one of ours from a
 * page cached on an older day (the cache has no expiry of its own). */
#define TOKEN_STALE_DAYS 400

/* 1 when token is one this process made for run_id on a day before the
 * accepted ones: the page that carried it is a stale cached copy.  A made-up
 * token is not, so it cannot be used to empty the cache at will. */
static int token_stale(const char *run_id, const char *token, long long now)
{
	return token_age(run_id, token, now, TOKEN_STALE_DAYS) > 1;
}

/* ---- posting ---- */

/* A post on its way to the writer; lives until the request ends. */
struct post_job {
	struct db_job j;
	struct req *r;
	char run_id[sizeof ((struct req *)0)->arg];
	char *author, *body;
	int by_submitter;
	int has_sig;              /* signed: sig_sha is the payload's SHA-256 */
	unsigned char sig_sha[32];
	long long replay_of;      /* out: the post this signed payload made before */
	long long id;
	char created_at[32];
};

static void post_free(void *p)
{
	struct post_job *pj = p;

	free(pj->author);
	free(pj->body);
	free(pj);
}

/* Steps a bound write statement; returns a db_status. */
static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* The post the same signed payload made before on this run, or 0. */
static long long signed_seen(struct dbconn *w, const struct post_job *p)
{
	sqlite3_stmt *st = db_stmt(w, sql_signed_seen);
	long long id = 0;

	if (!st)
		return 0;
	db_bind_text(st, 1, p->run_id);
	sqlite3_bind_blob(st, 2, p->sig_sha, sizeof p->sig_sha, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return id;
}

/* Writer: opens the thread if needed, adds the post, bumps the thread; a
 * signed payload seen before adds nothing (replay_of is set). */
static int post_run(struct dbconn *w, struct db_job *j)
{
	struct post_job *p = container_of(j, struct post_job, j);
	sqlite3_stmt *st;
	int rc;

	if (p->has_sig && (p->replay_of = signed_seen(w, p)) > 0)
		return DB_OK;
	time_now_rfc3339(p->created_at);
	if (!(st = db_stmt(w, sql_open_thread)))
		return DB_ERR;
	db_bind_text(st, 1, p->run_id);
	db_bind_text(st, 2, p->created_at);
	if ((rc = step_done(st)) != DB_OK)
		return rc == DB_CONFLICT ? DB_NOTFOUND : rc;   /* the run is gone */
	if (!(st = db_stmt(w, sql_add_post)))
		return DB_ERR;
	db_bind_text(st, 1, p->run_id);
	db_bind_text(st, 2, p->author);
	db_bind_text(st, 3, p->body);
	sqlite3_bind_int(st, 4, p->by_submitter);
	db_bind_text(st, 5, p->created_at);
	if (p->has_sig)
		sqlite3_bind_blob(st, 6, p->sig_sha, sizeof p->sig_sha, SQLITE_STATIC);
	if ((rc = step_done(st)) != DB_OK)
		return rc == DB_CONFLICT ? DB_NOTFOUND : rc;
	p->id = (long long)sqlite3_last_insert_rowid(w->h);
	if (!(st = db_stmt(w, sql_bump_thread)))
		return DB_ERR;
	db_bind_text(st, 1, p->created_at);
	sqlite3_bind_int64(st, 2, p->id);
	db_bind_text(st, 3, p->run_id);
	return step_done(st);
}

/* Writer: the commit is done (or failed).  Drops the run's cached page
 * here, right after the commit, as upload.c does, and not when the answer
 * is sent, which need not happen for a client that went away.  Then wakes
 * the connection. */
static void job_done(struct db_job *j)
{
	struct post_job *p = container_of(j, struct post_job, j);

	if (p->j.rc == DB_OK)
		cache_invalidate(p->r->app->cache, p->run_id);
	defer_wake(p->r);
}

/* Hands the checked post to the writer and suspends the connection. */
static enum MHD_Result post_submit(struct req *r, struct post_job *p)
{
	p->r = r;
	snprintf(p->run_id, sizeof p->run_id, "%s", r->arg);
	p->j.run = post_run;
	return defer_submit(r, &p->j, job_done, p, post_free);
}

/* The 201 body: the created post. */
static json_t *post_created_json(const struct post_job *p)
{
	return json_pack("{s:I, s:s, s:s?, s:s, s:b, s:s}",
		"id", (json_int_t)p->id, "run_id", p->run_id, "author", p->author,
		"body", p->body, "by_submitter", p->by_submitter,
		"created_at", p->created_at);
}

/* Answers once the writer has stored (or failed to store) the post. */
static enum MHD_Result post_finish(struct req *r)
{
	struct post_job *p = r->job;
	struct http_opts o = { 0 };
	char origin[300], loc[600];
	enum MHD_Result ret;
	json_t *body;

	if (p->j.rc == DB_NOTFOUND)
		return http_fail(r, 404, "not_found", MSG_NO_RUN, NULL);
	if (p->j.rc != DB_OK)
		return http_fail(r, 503, "unavailable", db_status_message(p->j.rc), NULL);
	if (p->replay_of) {
		snprintf(loc, sizeof loc, "This signed post was received before (post %lld) and is not posted again; "
			 "to post once more, sign a new payload with a fresh \"nonce\" or \"iat\".", p->replay_of);
		return http_fail(r, 409, "replayed_post", loc, NULL);
	}
	if (r->html) {
		/* A new URL each time, so a browser's cached copy of the run
		 * page (max-age 60) is not shown instead of the new post. */
		snprintf(loc, sizeof loc, "/r/%s?posted=%lld#dispute", p->run_id, p->id);
		o.location = loc;
		return http_send(r, 303, CT_TEXT, "See the thread.\n", 16, &o);
	}
	http_origin(r, origin, sizeof origin);
	snprintf(loc, sizeof loc, "%s/r/%s#dispute-post-%lld", origin, p->run_id, p->id);
	o.location = loc;
	body = post_created_json(p);
	ret = http_send_json(r, 201, body, &o);
	json_decref(body);
	return ret;
}

/* Takes one post from the client's allowance; 1 when over it (the wait is
 * in r->retry_after). */
static int rate_limited(struct req *r)
{
	char key[80];

	http_client_key(r, key, sizeof key);
	r->retry_after = ratelimit_take(r->app->dispute_rl, key);
	return r->retry_after > 0;
}

/* A string member of o: 1 with s/n set, 0 when absent or null, -1 when of
 * another type. */
static int member_str(const json_t *o, const char *k, const char **s, size_t *n)
{
	json_t *v = json_object_get(o, k);

	*s = NULL;
	*n = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*s = json_string_value(v);
	*n = json_string_length(v);
	return 1;
}

/* Checks author and body of the JSON object o into p. */
static int post_fields(const json_t *o, struct post_job *p, struct err *e)
{
	const char *author, *body;
	size_t alen, blen;

	if (member_str(o, "author", &author, &alen) < 0)
		return refuse(e, 422, "schema_violation", "author",
			      "The \"author\" member must be a string, or left out to post anonymously.");
	if (member_str(o, "body", &body, &blen) < 0)
		return refuse(e, 422, "schema_violation", "body",
			      "The \"body\" member must be a string of 1 to 4000 characters.");
	if (text_field(author, alen, "author", DISPUTE_AUTHOR_MAX, 0, 0, &p->author, e) < 0 ||
	    text_field(body, blen, "body", DISPUTE_BODY_MAX, 1, 1, &p->body, e) < 0)
		return -1;
	return 0;
}

/* Parses bytes as a JSON object; 400 invalid_json otherwise. */
static json_t *load_object(const char *s, size_t n, struct err *e)
{
	json_error_t je;
	json_t *o = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	char msg[300];

	if (!o) {
		snprintf(msg, sizeof msg, "The body is not valid JSON (%s at character %d); send a JSON object.",
			 je.text, je.position);
		refuse(e, 400, "invalid_json", NULL, msg);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		refuse(e, 400, "invalid_json", NULL, "The body must be a JSON object.");
		return NULL;
	}
	return o;
}

/* An unsigned post may not take a name that reads as the submitter's or
 * a moderator's (see confusable.h); 0, or -1 with e filled. */
static int author_unreserved(const struct post_job *p, struct err *e)
{
	if (!p->author || !confusable_reserved(p->author))
		return 0;
	return refuse(e, 422, "reserved_author", "author",
		      "That name reads as \"submitter\" or \"moderator\", which only posts signed with the "
		      "run's key and moderators' rulings are shown as; choose another name, or leave it empty.");
}

/* An unsigned post: {"author"?, "body"}. */
static int post_from_json(struct req *r, struct post_job *p, struct err *e)
{
	json_t *o = load_object(r->body.buf, r->body.len, e);
	int rc;

	if (!o)
		return -1;
	rc = post_fields(o, p, e);
	json_decref(o);
	return rc < 0 ? rc : author_unreserved(p, e);
}

/* Checks the signed payload's run_id and key against the run. */
static int signed_by_run(struct req *r, const struct jws *j, const json_t *o,
			 const char *thumb, struct err *e)
{
	json_t *v = json_object_get(o, "run_id");
	const char *id = json_string_value(v);
	char msg[300];

	if (!id || json_string_length(v) != strlen(r->arg) || strcmp(id, r->arg)) {
		snprintf(msg, sizeof msg, "The \"run_id\" member of the signed payload must be the id of the run in the URL, %s.", r->arg);
		return refuse(e, 422, "schema_violation", "run_id", msg);
	}
	if (strcmp(j->thumbprint, thumb)) {
		snprintf(msg, sizeof msg, "This post is signed by a key other than the one that signed run %s; "
			 "sign it with that run's key, or post it unsigned as JSON.", r->arg);
		return refuse(e, 403, "forbidden_key", NULL, msg);
	}
	return 0;
}

/* Checks the optional "iat" (a whole number of seconds since 1970 within
 * DISPUTE_IAT_WINDOW of now) and "nonce" (a string of 1 to 200 characters)
 * of a signed post, which make its payload unique. */
static int replay_fields(const json_t *o, long long now, struct err *e)
{
	json_t *iat = json_object_get(o, "iat"), *nonce = json_object_get(o, "nonce");
	char msg[200];

	if (iat && (!json_is_integer(iat) ||
		    llabs((long long)json_integer_value(iat) - now) > DISPUTE_IAT_WINDOW)) {
		snprintf(msg, sizeof msg, "The \"iat\" member must be the signing time in whole seconds since 1970, "
			 "within %d seconds of the server's clock; sign the post again now.", DISPUTE_IAT_WINDOW);
		return refuse(e, 422, "schema_violation", "iat", msg);
	}
	if (nonce && (!json_is_string(nonce) || json_string_length(nonce) < 1 ||
		      json_string_length(nonce) > 200))
		return refuse(e, 422, "schema_violation", "nonce",
			      "The \"nonce\" member must be a string of 1 to 200 characters, fresh for every post.");
	return 0;
}

/* A signed post: a JWS of {"run_id", "body", "author"?, "iat"?, "nonce"?}
 * by the run's key. */
static int post_from_jws(struct req *r, struct post_job *p, const char *thumb,
			 struct err *e)
{
	struct jws j;
	json_t *o = NULL;
	int rc = -1;

	if (jws_parse_verify(r->body.buf, r->body.len, &j, e) != JWS_OK)
		return -1;
	if (!(o = load_object((const char *)j.payload, j.payload_len, e)))
		goto out;
	if (signed_by_run(r, &j, o, thumb, e) < 0 || replay_fields(o, (long long)time(NULL), e) < 0 ||
	    post_fields(o, p, e) < 0)
		goto out;
	p->by_submitter = 1;
	p->has_sig = 1;
	crypto_hash_sha256(p->sig_sha, j.payload, j.payload_len);
	rc = 0;
out:
	json_decref(o);
	jws_free(&j);
	return rc;
}

/* Checks an API post into p; 0, or -1 with e filled. */
static int api_check(struct req *r, struct post_job *p, struct err *e)
{
	char thumb[48];
	int rc = run_lookup(r, r->arg, thumb);

	if (rc == DB_NOTFOUND)
		return refuse(e, 404, "not_found", NULL, MSG_NO_RUN);
	if (rc != DB_OK)
		return refuse(e, 503, "unavailable", NULL, MSG_DB_DOWN);
	if (http_ctype_is(r, CT_JSON))
		rc = post_from_json(r, p, e);
	else if (http_ctype_is(r, CT_JOSE))
		rc = post_from_jws(r, p, thumb, e);
	else
		return refuse(e, 415, "unsupported_media_type", NULL,
			      "Send the post as Content-Type: application/json ({\"author\", \"body\"}), "
			      "or application/jose signed with the run's key.");
	if (rc == 0 && rate_limited(r))
		return refuse(e, 429, "rate_limited", NULL,
			      "Too many dispute posts from this address; wait for the time in Retry-After and post again.");
	return rc;
}

enum MHD_Result dispute_api_post(struct req *r)
{
	struct post_job *p;
	struct err e;

	if (r->job)
		return post_finish(r);
	if (!(p = calloc(1, sizeof *p)))
		return http_fail(r, 503, "unavailable", MSG_NOMEM, NULL);
	if (api_check(r, p, &e) < 0) {
		post_free(p);
		return http_reply_err(r, &e);
	}
	return post_submit(r, p);
}

/* ---- the form ---- */

/* 1 when the origin o[0..n) ("scheme://host[:port]") is this site's: the
 * configured origin, or without --base-url the address the client used. */
static int origin_is_ours(struct req *r, const char *o, size_t n)
{
	static const char *const schemes[] = { "http://", "https://" };
	const char *host = http_header(r, "Host");
	char own[300];
	size_t i, sl, ol;

	http_origin(r, own, sizeof own);
	ol = strlen(own);
	if (ol && own[ol - 1] == '/')
		ol--;                 /* --base-url https://host/ */
	if (n == ol && !strncasecmp(o, own, n))
		return 1;
	if (r->app->cfg.base_url || !host)
		return 0;
	for (i = 0; i < 2; i++) {
		sl = strlen(schemes[i]);
		if (n == sl + strlen(host) && !strncasecmp(o, schemes[i], sl) &&
		    !strncasecmp(o + sl, host, n - sl))
			return 1;
	}
	return 0;
}

/* 1 when the request came from a page of this site: its Origin, or
 * without one the origin part of its Referer, is ours. */
static int same_site(struct req *r)
{
	const char *o = http_header(r, "Origin");
	const char *ref = http_header(r, "Referer");
	const char *p;

	if (o)
		return origin_is_ours(r, o, strlen(o));
	if (!ref || !(p = strstr(ref, "://")))
		return 0;
	p = strchr(p + 3, '/');
	return origin_is_ours(r, ref, p ? (size_t)(p - ref) : strlen(ref));
}

/* Reads author, body and token from the form into p and token. */
static int form_fields(struct req *r, struct post_job *p, struct buf *token,
		       struct err *e)
{
	struct buf author = BUF_INIT, body = BUF_INIT;
	int ha, hb, rc = -1;

	ha = form_field(r->body.buf, r->body.len, "author", &author);
	hb = form_field(r->body.buf, r->body.len, "body", &body);
	if (ha < 0 || hb < 0 || form_field(r->body.buf, r->body.len, "token", token) < 0)
		refuse(e, 400, "malformed_form", NULL, "The form data is malformed (a broken %-escape); post it again from the run page.");
	else if (buf_error(&author) || buf_error(&body) || buf_error(token))
		refuse(e, 503, "unavailable", NULL, MSG_NOMEM);
	else if (text_field(ha ? author.buf : NULL, author.len, "author", DISPUTE_AUTHOR_MAX, 0, 0, &p->author, e) == 0 &&
		 text_field(hb ? body.buf : NULL, body.len, "body", DISPUTE_BODY_MAX, 1, 1, &p->body, e) == 0)
		rc = author_unreserved(p, e);
	buf_release(&author);
	buf_release(&body);
	return rc;
}

/* Checks the browser form into p: the run, where it came from, its token,
 * its fields and the client's allowance. */
static int form_check(struct req *r, struct post_job *p, struct err *e)
{
	struct buf token = BUF_INIT;
	char thumb[48];
	int rc = run_lookup(r, r->arg, thumb);

	if (rc == DB_NOTFOUND)
		return refuse(e, 404, "not_found", NULL, MSG_NO_RUN);
	if (rc != DB_OK)
		return refuse(e, 503, "unavailable", NULL, MSG_DB_DOWN);
	if (!same_site(r))
		return refuse(e, 403, "cross_site", NULL, "This form can only be posted from the run's page on this site; open the run page and post from there.");
	if (!http_ctype_is(r, "application/x-www-form-urlencoded"))
		return refuse(e, 415, "unsupported_media_type", NULL, "The form must be sent as application/x-www-form-urlencoded; post it from the run page.");
	rc = form_fields(r, p, &token, e);
	if (rc == 0 && !dispute_form_token_ok(r->arg, token.buf, (long long)time(NULL))) {
		/* The page that carried it may be cached from an older day. */
		if (token_stale(r->arg, token.buf, (long long)time(NULL)))
			cache_invalidate(r->app->cache, r->arg);
		rc = refuse(e, 403, "invalid_form_token", NULL, "This form has expired or was not made by this site; reload the run page and post again.");
	}
	buf_release(&token);
	if (rc == 0 && rate_limited(r))
		rc = refuse(e, 429, "rate_limited", NULL, "Too many dispute posts from this address; wait a minute and post again.");
	return rc;
}

enum MHD_Result dispute_form_post(struct req *r)
{
	struct post_job *p;
	struct err e;

	if (r->job)
		return post_finish(r);
	if (!(p = calloc(1, sizeof *p)))
		return http_fail(r, 503, NULL, MSG_NOMEM, NULL);
	if (form_check(r, p, &e) < 0) {
		post_free(p);
		return http_reply_err(r, &e);
	}
	return post_submit(r, p);
}

/* ---- moderation ---- */

/* A ruling on its way to the writer. */
struct rule_job {
	struct db_job j;
	struct req *r;
	char run_id[sizeof ((struct req *)0)->arg];
	const char *state;        /* "upheld" or "dismissed" (static) */
	char *note;
	char resolved_at[32];
};

static void rule_free(void *p)
{
	struct rule_job *rj = p;

	free(rj->note);
	free(rj);
}

/* Writer: moves the run in or out of its cluster, as the ruling says. */
static int rule_status(struct dbconn *w, struct rule_job *rj, sqlite3_stmt *run)
{
	const char *want = strcmp(rj->state, "upheld") ? "ok" : "upheld";
	const char *now = (const char *)sqlite3_column_text(run, 4);
	sqlite3_stmt *st;
	int rc;

	if (!now)
		return DB_ERR;      /* out of memory */
	if (!strcmp(now, want))
		return DB_OK;
	if (!(st = db_stmt(w, sql_set_status)))
		return DB_ERR;
	db_bind_text(st, 1, want);
	db_bind_text(st, 2, rj->run_id);
	if ((rc = step_done(st)) != DB_OK)
		return rc;
	return outlier_run_status_changed(w, rj->run_id, NULL);
}

/* Writer: records the ruling on the thread and applies it to the run. */
static int rule_run(struct dbconn *w, struct db_job *j)
{
	struct rule_job *rj = container_of(j, struct rule_job, j);
	sqlite3_stmt *run, *st;
	int rc;

	time_now_rfc3339(rj->resolved_at);
	if (!(run = db_stmt(w, sql_run_cluster)))
		return DB_ERR;
	db_bind_text(run, 1, rj->run_id);
	if ((rc = sqlite3_step(run)) != SQLITE_ROW) {
		sqlite3_reset(run);
		return rc == SQLITE_DONE ? DB_NOTFOUND : db_status_of(rc);
	}
	rc = DB_ERR;
	if ((st = db_stmt(w, sql_rule))) {
		db_bind_text(st, 1, rj->run_id);
		db_bind_text(st, 2, rj->state);
		db_bind_text(st, 3, rj->note);
		db_bind_text(st, 4, rj->resolved_at);
		rc = step_done(st);
	}
	if (rc == DB_OK)
		rc = rule_status(w, rj, run);
	sqlite3_reset(run);
	return rc;
}

/* Writer: the ruling is committed (or failed).  A ruling can move a whole
 * cluster's figures and every list, so the whole cache goes, here, right
 * after the commit (see job_done).  Then wakes the connection. */
static void rule_done(struct db_job *j)
{
	struct rule_job *rj = container_of(j, struct rule_job, j);

	if (rj->j.rc == DB_OK)
		cache_clear(rj->r->app->cache);
	defer_wake(rj->r);
}

/* Answers the moderator once the ruling is stored. */
static enum MHD_Result rule_finish(struct req *r)
{
	struct rule_job *rj = r->job;
	enum MHD_Result ret;
	json_t *body;

	if (rj->j.rc == DB_NOTFOUND)
		return http_fail(r, 404, "not_found", MSG_NO_RUN, NULL);
	if (rj->j.rc != DB_OK)
		return http_fail(r, 503, "unavailable", db_status_message(rj->j.rc), NULL);
	body = json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s}", "run_id", rj->run_id,
			 "state", rj->state, "resolution", rj->state, "note", rj->note,
			 "resolved_at", rj->resolved_at,
			 "run_status", strcmp(rj->state, "upheld") ? "ok" : "upheld");
	ret = http_send_json(r, 200, body, NULL);
	json_decref(body);
	return ret;
}

/* 1 when the request carries the moderator token (compared in constant
 * time over hashes, so neither length nor content leaks). */
static int is_moderator(struct req *r)
{
	const char *want = r->app->cfg.moderator_token;
	const char *auth = http_header(r, "Authorization");
	unsigned char a[32], b[32];

	if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
		return 0;
	auth += 7;
	crypto_generichash(a, sizeof a, (const unsigned char *)auth, strlen(auth), NULL, 0);
	crypto_generichash(b, sizeof b, (const unsigned char *)want, strlen(want), NULL, 0);
	return sodium_memcmp(a, b, sizeof a) == 0;
}

/* Reads the ruling {"resolution": "upheld"|"dismissed", "note"?} into rj. */
static int rule_fields(const json_t *o, struct rule_job *rj, struct err *e)
{
	static const char *const states[] = { "upheld", "dismissed" };
	const char *res, *note;
	size_t n, i;

	if (member_str(o, "resolution", &res, &n) > 0)
		for (i = 0; i < 2; i++)
			if (n == strlen(states[i]) && !strcmp(res, states[i]))
				rj->state = states[i];
	if (!rj->state)
		return refuse(e, 422, "schema_violation", "resolution", "The \"resolution\" member must be \"upheld\" or \"dismissed\".");
	if (member_str(o, "note", &note, &n) < 0)
		return refuse(e, 422, "schema_violation", "note", "The \"note\" member must be a string, or left out.");
	return text_field(note, n, "note", DISPUTE_NOTE_MAX, 1, 0, &rj->note, e);
}

/* Checks the moderator, the run and the ruling. */
static int rule_check(struct req *r, struct rule_job *rj, struct err *e)
{
	const char *want = r->app->cfg.moderator_token;
	char thumb[48];
	json_t *o;
	int rc;

	if (!want || !*want)
		return refuse(e, 401, "invalid_token", NULL, "Moderation is not configured on this server: the operator must set LLMSPEED_MODERATOR_TOKEN.");
	if (!is_moderator(r)) {
		if (rate_limited(r))
			return refuse(e, 429, "rate_limited", NULL, "Too many failed moderator attempts from this address; wait for the time in Retry-After.");
		return refuse(e, 401, "invalid_token", NULL, "Send the moderator token as \"Authorization: Bearer <token>\"; the one sent is missing or wrong.");
	}
	rc = run_lookup(r, r->arg, thumb);
	if (rc == DB_NOTFOUND)
		return refuse(e, 404, "not_found", NULL, MSG_NO_RUN);
	if (rc != DB_OK)
		return refuse(e, 503, "unavailable", NULL, MSG_DB_DOWN);
	if (!http_ctype_is(r, CT_JSON))
		return refuse(e, 415, "unsupported_media_type", NULL, "Send the ruling as Content-Type: application/json.");
	if (!(o = load_object(r->body.buf, r->body.len, e)))
		return -1;
	rc = rule_fields(o, rj, e);
	json_decref(o);
	return rc;
}

enum MHD_Result dispute_api_resolve(struct req *r)
{
	struct rule_job *rj;
	struct err e;

	if (r->job)
		return rule_finish(r);
	if (!(rj = calloc(1, sizeof *rj)))
		return http_fail(r, 503, "unavailable", MSG_NOMEM, NULL);
	if (rule_check(r, rj, &e) < 0) {
		rule_free(rj);
		return http_reply_err(r, &e);
	}
	rj->r = r;
	snprintf(rj->run_id, sizeof rj->run_id, "%s", r->arg);
	rj->j.run = rule_run;
	return defer_submit(r, &rj->j, rule_done, rj, rule_free);
}
