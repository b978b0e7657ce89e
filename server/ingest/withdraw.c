/* withdraw.c: the holder of a run's key withdraws the run (migration 0013). */
#include "ingest/withdraw.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "http/answer.h"
#include "http/cache.h"
#include "ingest/jws.h"
#include "ingest/validate.h"
#include "http/defer.h"
#include "http/store_err.h"
#include "store/outlier.h"
#include "store/run_store.h"
#include "store/tlog_store.h"
#include "util/sha256.h"
#include "util/timefmt.h"
#include "util/utf8.h"

static const char sql_lookup[] =
	"SELECT r.key_thumbprint, w.run_id IS NOT NULL FROM runs r "
	"LEFT JOIN run_withdrawals w ON w.run_id = r.id WHERE r.id = ?";
static const char sql_insert[] =
	"INSERT INTO run_withdrawals(run_id, withdrawn_at, reason, jws, jws_sha256) "
	"VALUES (?, ?, ?, ?, ?)";
/* The path an upheld ruling takes: the summaries' triggers (0004, 0007)
 * see the run leave; no change when a ruling took it out already. */
static const char sql_leave[] =
	"UPDATE runs SET status = 'upheld' WHERE id = ? AND status = 'ok'";

/* A withdrawal on its way to the writer, the state of its row (defer.h). */
struct withdrawal {
	struct db_job j;
	char run_id[sizeof ((struct req *)0)->arg];
	const char *jws;          /* the exact bytes sent (the request's body) */
	size_t jws_len;
	char *reason;
	unsigned char sha[crypto_hash_sha256_BYTES];   /* of the exact JWS */
	char withdrawn_at[TIMEFMT_LEN];
};

DEFER_STATE(struct withdrawal, j);

/* Frees what the withdrawal owns (release; defer.c frees the state). */
static void withdrawal_release(void *state)
{
	struct withdrawal *wd = state;

	free(wd->reason);
}

/* Writer: records the withdrawal and takes the run out of its cluster and
 * every summary, in one transaction.  DB_CONFLICT when the run was
 * withdrawn already (or these bytes were used before). */
static int withdraw_run(struct dbconn *w, struct db_job *j)
{
	struct withdrawal *wd = container_of(j, struct withdrawal, j);
	sqlite3_stmt *st;
	int rc;

	time_now_rfc3339(wd->withdrawn_at);
	if (!(st = db_stmt(w, sql_insert)))
		return DB_ERR;
	db_bind_text(st, 1, wd->run_id);
	db_bind_text(st, 2, wd->withdrawn_at);
	db_bind_text(st, 3, wd->reason);
	sqlite3_bind_blob(st, 4, wd->jws, (int)wd->jws_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 5, wd->sha, sizeof wd->sha, SQLITE_STATIC);
	rc = db_status_of(sqlite3_step(st));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != DB_OK)
		return rc;
	if (!(st = db_stmt(w, sql_leave)))
		return DB_ERR;
	db_bind_text(st, 1, wd->run_id);
	rc = db_status_of(sqlite3_step(st));
	sqlite3_reset(st);
	if (rc == DB_OK && sqlite3_changes(w->h) > 0)
		rc = outlier_run_status_changed(w, wd->run_id, NULL);
	/* The withdrawal's exact JWS bytes become an entry of the public log,
	 * in this transaction. */
	if (rc == DB_OK)
		rc = tlog_store_append(w, TLOG_WITHDRAWAL, wd->run_id, wd->sha, NULL);
	return rc;
}

/* On the sync thread, after the commit (or its failure): a withdrawal
 * moves a cluster's figures and every list, so the whole render cache
 * goes (as after a ruling). */
static void withdraw_done(struct req *r, void *state)
{
	struct withdrawal *wd = state;

	if (wd->j.rc == DB_OK)
		cache_clear(r->app->cache);
}

/* Answers once the withdrawal is stored, or why it is not: 200, 409,
 * 503. */
static int withdraw_finish(struct req *r, void *state, struct answer *a)
{
	struct withdrawal *wd = state;
	char origin[300], url[480];
	json_t *body;
	int rc;

	if (wd->j.rc == DB_CONFLICT)
		return err_set(&a->err, 409, "already_withdrawn", NULL, "%s",
			       "This run is withdrawn already; a withdrawal cannot be sent twice.");
	if (wd->j.rc != DB_OK)
		return http_db_err(&a->err, wd->j.rc);
	http_origin(r, origin, sizeof origin);
	snprintf(url, sizeof url, "%s/r/%s", origin, wd->run_id);
	body = json_pack("{s:s, s:s, s:s, s:s, s:s}", "run_id", wd->run_id,
			 "status", "withdrawn", "withdrawn_at", wd->withdrawn_at,
			 "reason", wd->reason, "url", url);
	rc = body ? answer_json(a, 200, body, NULL) : -1;
	json_decref(body);
	return rc;
}

/* The run's key thumbprint into thumb and whether it is withdrawn;
 * DB_OK, DB_NOTFOUND or another db_status. */
static int run_lookup(struct req *r, char thumb[48], int *withdrawn)
{
	struct dbconn *c = db_reader(r->app->db);
	sqlite3_stmt *st = c ? db_stmt(c, sql_lookup) : NULL;
	const char *t;
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, r->arg);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		t = (const char *)sqlite3_column_text(st, 0);
		snprintf(thumb, 48, "%s", t ? t : "");
		*withdrawn = sqlite3_column_int(st, 1);
		rc = DB_OK;
	} else {
		rc = rc == SQLITE_DONE ? DB_NOTFOUND : db_status_of(rc);
	}
	sqlite3_reset(st);
	return rc;
}

/* Checks the reason s[0..n) (UTF-8, which jansson guarantees): 1 to
 * WITHDRAW_REASON_MAX characters, with no character no output can carry
 * (a noncharacter, a control character but line breaks and tabs) and
 * something visible (not only spaces, bidirectional controls and other
 * invisible characters, which would show an empty reason).  Returns 0, or
 * -1 with e filled. */
static int reason_check(const char *s, size_t n, struct err *e)
{
	uint32_t cp;
	char name[12];
	long chars;

	if (utf8_text_bad((const unsigned char *)s, n, 1, &cp) >= 0) {
		utf8_cp_name(cp, name);
		return err_set(e, 422, "schema_violation", "reason", "The \"reason\" member contains %s, %s; remove it.",
			       name, utf8_is_noncharacter(cp) ? "a noncharacter" : "a control character");
	}
	chars = utf8_count((const unsigned char *)s, n);
	if (chars < 1 || chars > WITHDRAW_REASON_MAX)
		return err_set(e, 422, "schema_violation", "reason", "The \"reason\" member must be a string of 1 to %d characters.", WITHDRAW_REASON_MAX);
	if (!utf8_has_visible((const unsigned char *)s, n))
		return err_set(e, 422, "schema_violation", "reason", "%s", "The \"reason\" member has nothing visible in it, only spaces or invisible characters; say why the run is withdrawn.");
	return 0;
}

/* Checks the signed payload {"run_id", "action": "withdraw", "reason"}. */
static int payload_check(struct req *r, const json_t *o, struct withdrawal *wd,
			 struct err *e)
{
	json_t *id = json_object_get(o, "run_id"), *act = json_object_get(o, "action");
	json_t *why = json_object_get(o, "reason");

	if (!json_is_object(o))
		return err_set(e, 400, "invalid_json", NULL, "%s", "The signed payload must be a JSON object {\"run_id\", \"action\", \"reason\"}.");
	if (!json_is_string(id) || json_string_length(id) != strlen(r->arg) ||
	    strcmp(json_string_value(id), r->arg))
		return err_set(e, 422, "schema_violation", "run_id", "The \"run_id\" member of the signed payload must be the id of the run in the URL, %s.", r->arg);
	if (!json_is_string(act) || json_string_length(act) != 8 ||
	    strcmp(json_string_value(act), "withdraw"))
		return err_set(e, 422, "schema_violation", "action", "%s", "The \"action\" member of the signed payload must be \"withdraw\".");
	if (!json_is_string(why))
		return err_set(e, 422, "schema_violation", "reason", "The \"reason\" member must be a string of 1 to %d characters.", WITHDRAW_REASON_MAX);
	if (reason_check(json_string_value(why), json_string_length(why), e) < 0)
		return -1;
	if (!(wd->reason = strdup(json_string_value(why))))
		return err_nomem(e);
	return 0;
}

/* Checks the request into its state (the row's check): the run, the
 * signature, the key, the payload; 0, or -1 with e filled. */
static int withdraw_check(struct req *r, void *state, struct err *e)
{
	struct withdrawal *wd = state;
	struct jws j;
	json_t *o = NULL;
	char thumb[48];
	int withdrawn = 0, rc;

	if (!run_id_valid(r->arg))
		return err_set(e, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	if ((rc = run_lookup(r, thumb, &withdrawn)) == DB_NOTFOUND)
		return err_set(e, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	if (rc != DB_OK)
		return err_unavailable(e, MSG_DB_DOWN);
	if (!http_ctype_is(r, CT_JOSE))
		return err_set(e, 415, "unsupported_media_type", NULL, "%s", "Send the withdrawal as Content-Type: application/jose, a JWS signed with the run's key.");
	if (jws_parse_verify(r->body.buf, r->body.len, &j, e) != JWS_OK)
		return -1;
	rc = -1;
	if (strcmp(j.thumbprint, thumb)) {
		err_set(e, 403, "forbidden_key", NULL, "This withdrawal is signed by a key other than the one that signed run %s; only that key can withdraw it.", r->arg);
		goto out;
	}
	if (validate_json_depth(j.payload, j.payload_len, VALIDATE_MAX_DEPTH) > VALIDATE_MAX_DEPTH) {
		err_set(e, 400, "invalid_json", NULL, "The signed payload nests arrays and objects more than %d deep; send {\"run_id\", \"action\", \"reason\"}.", VALIDATE_MAX_DEPTH);
		goto out;
	}
	o = json_loadb((const char *)j.payload, j.payload_len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
	if (payload_check(r, o, wd, e) < 0)
		goto out;
	if (withdrawn) {
		err_set(e, 409, "already_withdrawn", NULL, "%s", "This run is withdrawn already; a withdrawal cannot be sent twice.");
		goto out;
	}
	sha256_digest(wd->sha, r->body.buf, r->body.len);
	snprintf(wd->run_id, sizeof wd->run_id, "%s", r->arg);
	wd->jws = r->body.buf;
	wd->jws_len = r->body.len;
	rc = 0;
out:
	json_decref(o);
	jws_free(&j);
	return rc;
}

const struct defer_row withdraw_write = {
	sizeof(struct withdrawal), withdraw_check, withdraw_run, withdraw_done, withdraw_finish,
	withdrawal_release,
};
