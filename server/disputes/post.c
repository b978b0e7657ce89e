/* post.c: posting to a thread: the API (JSON or a JWS by the run's key)
 * and the browser form. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "http/answer.h"
#include "disputes/dispute_int.h"
#include "util/confusable.h"
#include "http/cache.h"
#include "http/form.h"
#include "ingest/jws.h"
#include "http/defer.h"
#include "http/store_err.h"
#include "store/tlog_store.h"
#include "store/typical.h"
#include "util/timefmt.h"

#define MSG_POSTS_LIMITED "Too many dispute posts from this address; wait for the time in Retry-After (a minute at most) and post again."

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

/* A post on its way to the writer, the state of its row (defer.h); lives
 * until the request ends. */
struct post_job {
	struct db_job j;
	char run_id[sizeof ((struct req *)0)->arg];
	char *author, *body;
	int by_submitter;
	int opened;                   /* 1: this post opened the thread */
	int has_sig;              /* signed: sig_sha is the payload's SHA-256 */
	unsigned char sig_sha[32];
	unsigned char jws_sha[32];  /* signed: SHA-256 of the exact JWS bytes */
	long long replay_of;      /* out: the post this signed payload made before */
	long long id;
	char created_at[32];
};

DEFER_STATE(struct post_job, j);

/* Frees what the post owns (release; defer.c frees the state). */
static void post_release(void *state)
{
	struct post_job *pj = state;

	free(pj->author);
	free(pj->body);
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

/* Writer: appends the stored post to the transparency log: the SHA-256 of
 * its exact JWS bytes when signed, else of its canonical record (run id,
 * post id, author, body, time; schema/TLOG.md). */
static int log_post(struct dbconn *w, const struct post_job *p)
{
	unsigned char sha[32];
	char ref[200], id[24];
	const char *fields[5];

	snprintf(id, sizeof id, "%lld", p->id);
	snprintf(ref, sizeof ref, "%s/%s", p->run_id, id);
	if (p->has_sig) {
		memcpy(sha, p->jws_sha, sizeof sha);
	} else {
		fields[0] = p->run_id;
		fields[1] = id;
		fields[2] = p->author;
		fields[3] = p->body;
		fields[4] = p->created_at;
		tlog_store_entry_sha(sha, "post", fields, 5);
	}
	return tlog_store_append(w, TLOG_POST, ref, sha, NULL);
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
	if ((rc = dispute_step(st)) != DB_OK)
		return rc == DB_CONFLICT ? DB_NOTFOUND : rc;   /* the run is gone */
	/* A thread opened now: the run is under open dispute, never a best
	 * run, and its rows say "disputed" (store/typical.h). */
	if ((p->opened = sqlite3_changes(w->h) > 0) &&
	    (rc = typical_marks_set(w, p->run_id, TYPICAL_MARK_DISPUTED, 0)) != DB_OK)
		return rc;
	if (!(st = db_stmt(w, sql_add_post)))
		return DB_ERR;
	db_bind_text(st, 1, p->run_id);
	db_bind_text(st, 2, p->author);
	db_bind_text(st, 3, p->body);
	sqlite3_bind_int(st, 4, p->by_submitter);
	db_bind_text(st, 5, p->created_at);
	if (p->has_sig)
		sqlite3_bind_blob(st, 6, p->sig_sha, sizeof p->sig_sha, SQLITE_STATIC);
	if ((rc = dispute_step(st)) != DB_OK)
		return rc == DB_CONFLICT ? DB_NOTFOUND : rc;
	p->id = (long long)sqlite3_last_insert_rowid(w->h);
	if ((rc = log_post(w, p)) != DB_OK)
		return rc;
	if (!(st = db_stmt(w, sql_bump_thread)))
		return DB_ERR;
	db_bind_text(st, 1, p->created_at);
	sqlite3_bind_int64(st, 2, p->id);
	db_bind_text(st, 3, p->run_id);
	return dispute_step(st);
}

/* On the sync thread, after the commit (or its failure): drops the run's
 * cached page here, right after the commit, as upload.c does, and not
 * when the answer is sent, which need not happen for a client that went
 * away. */
static void post_done(struct req *r, void *state)
{
	struct post_job *p = state;

	if (p->j.rc == DB_OK && p->opened)
		cache_clear(r->app->cache);      /* every list, card and badge naming it */
	else if (p->j.rc == DB_OK) {
		cache_invalidate(r->app->cache, p->run_id);
		cache_bump_lists(r->app->cache); /* /outliers and /disputes count the posts */
	}
}

/* The 201 body: the created post. */
static json_t *post_created_json(const struct post_job *p)
{
	return json_pack("{s:I, s:s, s:s?, s:s, s:b, s:s}",
		"id", (json_int_t)p->id, "run_id", p->run_id, "author", p->author,
		"body", p->body, "by_submitter", p->by_submitter,
		"created_at", p->created_at);
}

/* Answers once the writer has stored (or failed to store) the post: 201
 * with the post (303 back to the thread for the form), 404, 409 for a
 * replay, 503. */
static int post_finish(struct req *r, void *state, struct answer *a)
{
	struct post_job *p = state;
	struct http_opts o = { 0 };
	char origin[300], loc[600];
	json_t *body;
	int rc;

	if (p->j.rc == DB_NOTFOUND)
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	if (p->j.rc != DB_OK)
		return http_db_err(&a->err, p->j.rc);
	if (p->replay_of)
		return err_set(&a->err, 409, "replayed_post", NULL,
			       "This signed post was received before (post %lld) and is not posted again; "
			       "to post once more, sign a new payload with a fresh \"nonce\" or \"iat\".", p->replay_of);
	if (r->html) {
		/* A new URL each time, so a browser's cached copy of the run
		 * page (max-age 60) is not shown instead of the new post. */
		snprintf(loc, sizeof loc, "/r/%s?posted=%lld#dispute", p->run_id, p->id);
		o.location = loc;
		return answer_body(a, 303, CT_TEXT, "See the thread.\n", 16, &o);
	}
	http_origin(r, origin, sizeof origin);
	snprintf(loc, sizeof loc, "%s/r/%s#dispute-post-%lld", origin, p->run_id, p->id);
	o.location = loc;
	body = post_created_json(p);
	rc = body ? answer_json(a, 201, body, &o) : -1;
	json_decref(body);
	return rc;
}


/* Checks author and body of the JSON object o into p. */
static int post_fields(const json_t *o, struct post_job *p, struct err *e)
{
	const char *author, *body;
	size_t alen, blen;

	if (dispute_member_str(o, "author", &author, &alen) < 0)
		return err_set(e, 422, "schema_violation", "author",
			      "The \"author\" member must be a string, or left out to post anonymously.");
	if (dispute_member_str(o, "body", &body, &blen) < 0)
		return err_set(e, 422, "schema_violation", "body",
			      "The \"body\" member must be a string of 1 to 4000 characters.");
	if (dispute_text_field(author, alen, "author", DISPUTE_AUTHOR_MAX, 0, 0, &p->author, e) < 0 ||
	    dispute_text_field(body, blen, "body", DISPUTE_BODY_MAX, 1, 1, &p->body, e) < 0)
		return -1;
	return 0;
}

/* An unsigned post may not take a name that reads as the submitter's or
 * a moderator's (see confusable.h); 0, or -1 with e filled. */
static int author_unreserved(const struct post_job *p, struct err *e)
{
	if (!p->author || !confusable_reserved(p->author))
		return 0;
	return err_set(e, 422, "reserved_author", "author",
		      "That name reads as \"submitter\" or \"moderator\", which only posts signed with the "
		      "run's key and moderators' rulings are shown as; choose another name, or leave it empty.");
}

/* An unsigned post: {"author"?, "body"}. */
static int post_from_json(struct req *r, struct post_job *p, struct err *e)
{
	json_t *o = dispute_load_object(r->body.buf, r->body.len, e);
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
		return err_set(e, 422, "schema_violation", "run_id", "%s", msg);
	}
	if (strcmp(j->thumbprint, thumb)) {
		snprintf(msg, sizeof msg, "This post is signed by a key other than the one that signed run %s; "
			 "sign it with that run's key, or post it unsigned as JSON.", r->arg);
		return err_set(e, 403, "forbidden_key", NULL, "%s", msg);
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
		return err_set(e, 422, "schema_violation", "iat", "%s", msg);
	}
	if (nonce && (!json_is_string(nonce) || json_string_length(nonce) < 1 ||
		      json_string_length(nonce) > 200))
		return err_set(e, 422, "schema_violation", "nonce",
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
	if (!(o = dispute_load_object((const char *)j.payload, j.payload_len, e)))
		goto out;
	if (signed_by_run(r, &j, o, thumb, e) < 0 || replay_fields(o, time_now(), e) < 0 ||
	    post_fields(o, p, e) < 0)
		goto out;
	p->by_submitter = 1;
	p->has_sig = 1;
	crypto_hash_sha256(p->sig_sha, j.payload, j.payload_len);
	crypto_hash_sha256(p->jws_sha, (const unsigned char *)r->body.buf, r->body.len);
	rc = 0;
out:
	json_decref(o);
	jws_free(&j);
	return rc;
}

/* Checks an API post into its state (the API row's check); 0, or -1 with
 * e filled. */
static int api_check(struct req *r, void *state, struct err *e)
{
	struct post_job *p = state;
	char thumb[48];
	int rc;

	snprintf(p->run_id, sizeof p->run_id, "%s", r->arg);
	if (dispute_run_check(r, thumb, e) < 0)
		return -1;
	if (http_ctype_is(r, CT_JSON))
		rc = post_from_json(r, p, e);
	else if (http_ctype_is(r, CT_JOSE))
		rc = post_from_jws(r, p, thumb, e);
	else
		return err_set(e, 415, "unsupported_media_type", NULL,
			      "Send the post as Content-Type: application/json ({\"author\", \"body\"}), "
			      "or application/jose signed with the run's key.");
	if (rc == 0 && dispute_rate_limited(r))
		return err_set(e, 429, "rate_limited", NULL, "%s", MSG_POSTS_LIMITED);
	return rc;
}

const struct defer_row dispute_api_write = {
	sizeof(struct post_job), api_check, post_run, post_done, post_finish, post_release,
};

/* ---- the form ---- */


/* Reads author, body and token from the form into p and token. */
static int form_fields(struct req *r, struct post_job *p, struct buf *token,
		       struct err *e)
{
	struct buf author = BUF_INIT, body = BUF_INIT;
	int ha, hb, rc = -1;

	ha = form_field(r->body.buf, r->body.len, "author", &author);
	hb = form_field(r->body.buf, r->body.len, "body", &body);
	if (ha < 0 || hb < 0 || form_field(r->body.buf, r->body.len, "token", token) < 0)
		err_set(e, 400, "malformed_form", NULL, "%s", "The form data is malformed (a broken %-escape); post it again from the run page.");
	else if (buf_error(&author) || buf_error(&body) || buf_error(token))
		err_nomem(e);
	else if (dispute_text_field(ha ? author.buf : NULL, author.len, "author", DISPUTE_AUTHOR_MAX, 0, 0, &p->author, e) == 0 &&
		 dispute_text_field(hb ? body.buf : NULL, body.len, "body", DISPUTE_BODY_MAX, 1, 1, &p->body, e) == 0)
		rc = author_unreserved(p, e);
	buf_release(&author);
	buf_release(&body);
	return rc;
}

/* Checks the browser form into its state (the form row's check): the
 * run, where it came from, its token, its fields and the client's
 * allowance. */
static int form_check(struct req *r, void *state, struct err *e)
{
	struct post_job *p = state;
	struct buf token = BUF_INIT;
	char thumb[48];
	int rc;

	snprintf(p->run_id, sizeof p->run_id, "%s", r->arg);
	if (dispute_run_check(r, thumb, e) < 0)
		return -1;
	if (!dispute_same_site(r))
		return err_set(e, 403, "cross_site", NULL, "%s", "This form can only be posted from the run's page on this site; open the run page and post from there.");
	if (!http_ctype_is(r, "application/x-www-form-urlencoded"))
		return err_set(e, 415, "unsupported_media_type", NULL, "%s", "The form must be sent as application/x-www-form-urlencoded; post it from the run page.");
	rc = form_fields(r, p, &token, e);
	if (rc == 0 && !dispute_form_token_ok(r->arg, token.buf, time_now())) {
		/* The page that carried it may be cached from an older day. */
		if (dispute_token_stale(r->arg, token.buf, time_now()))
			cache_invalidate(r->app->cache, r->arg);
		rc = err_set(e, 403, "invalid_form_token", NULL, "%s", "This form has expired or was not made by this site; reload the run page and post again.");
	}
	buf_release(&token);
	if (rc == 0 && dispute_rate_limited(r))
		rc = err_set(e, 429, "rate_limited", NULL, "%s", MSG_POSTS_LIMITED);
	return rc;
}

const struct defer_row dispute_form_write = {
	sizeof(struct post_job), form_check, post_run, post_done, post_finish, post_release,
};
