/* moderate.c: a moderator rules on a thread; upheld runs leave the rankings. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "http/answer.h"
#include "disputes/dispute_int.h"
#include "http/cache.h"
#include "http/ratelimit.h"
#include "http/defer.h"
#include "http/store_err.h"
#include "store/outlier.h"
#include "store/tlog_store.h"
#include "util/timefmt.h"

static const char sql_run_cluster[] =
	"SELECT suite_version, model_digest, hw_class, backend_name, status "
	"FROM runs WHERE id = ?";
static const char sql_rule[] =
	"INSERT INTO dispute_threads(run_id, state, note, opened_at, resolved_at, last_post_at) "
	"VALUES (?1, ?2, ?3, ?4, ?4, ?4) ON CONFLICT(run_id) DO UPDATE SET "
	"state = excluded.state, note = excluded.note, resolved_at = excluded.resolved_at";
static const char sql_set_status[] = "UPDATE runs SET status = ? WHERE id = ?";

/* A ruling on its way to the writer, the state of its row (defer.h). */
struct rule_job {
	struct db_job j;
	char run_id[sizeof ((struct req *)0)->arg];
	const char *state;        /* "upheld" or "dismissed" (static) */
	char *note;
	char resolved_at[32];
	int withdrawn;            /* the run was withdrawn: it stayed out */
};

DEFER_STATE(struct rule_job, j);

/* Frees what the ruling owns (release; defer.c frees the state). */
static void rule_release(void *state)
{
	struct rule_job *rj = state;

	free(rj->note);
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
	if ((rc = dispute_step(st)) != DB_OK)
		return rc;
	if (!sqlite3_changes(w->h)) {
		rj->withdrawn = 1;  /* withdrawn: it stays out (migration 0013) */
		return DB_OK;
	}
	return outlier_run_status_changed(w, rj->run_id, NULL);
}

/* Writer: appends the ruling's canonical record (run id, resolution, note,
 * time; schema/TLOG.md) to the transparency log. */
static int log_ruling(struct dbconn *w, const struct rule_job *rj)
{
	const char *fields[4] = { rj->run_id, rj->state, rj->note, rj->resolved_at };
	unsigned char sha[32];

	tlog_store_entry_sha(sha, "ruling", fields, 4);
	return tlog_store_append(w, TLOG_RULING, rj->run_id, sha, NULL);
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
		rc = dispute_step(st);
	}
	if (rc == DB_OK)
		rc = rule_status(w, rj, run);
	if (rc == DB_OK)
		rc = log_ruling(w, rj);
	sqlite3_reset(run);
	return rc;
}

/* On the sync thread, after the commit (or its failure): a ruling can
 * move a whole cluster's figures and every list, so the whole cache goes,
 * here, right after the commit (as post.c's post_done drops its page). */
static void rule_done(struct req *r, void *state)
{
	struct rule_job *rj = state;

	if (rj->j.rc == DB_OK)
		cache_clear(r->app->cache);
}

/* Answers the moderator once the ruling is stored: 200 with the ruling,
 * 404, 503. */
static int rule_finish(struct req *r, void *state, struct answer *a)
{
	struct rule_job *rj = state;
	json_t *body;
	int rc;

	if (rj->j.rc == DB_NOTFOUND)
		return err_set(&a->err, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	if (rj->j.rc != DB_OK)
		return http_db_err(&a->err, rj->j.rc);
	body = json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s}", "run_id", rj->run_id,
			 "state", rj->state, "resolution", rj->state, "note", rj->note,
			 "resolved_at", rj->resolved_at,
			 "run_status", rj->withdrawn ? "withdrawn"
				 : strcmp(rj->state, "upheld") ? "ok" : "upheld");
	rc = body ? answer_json(a, 200, body, NULL) : -1;
	json_decref(body);
	return rc;
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

	if (dispute_member_str(o, "resolution", &res, &n) > 0)
		for (i = 0; i < 2; i++)
			if (n == strlen(states[i]) && !strcmp(res, states[i]))
				rj->state = states[i];
	if (!rj->state)
		return err_set(e, 422, "schema_violation", "resolution", "%s", "The \"resolution\" member must be \"upheld\" or \"dismissed\".");
	if (dispute_member_str(o, "note", &note, &n) < 0)
		return err_set(e, 422, "schema_violation", "note", "%s", "The \"note\" member must be a string, or left out.");
	return dispute_text_field(note, n, "note", DISPUTE_NOTE_MAX, 1, 0, &rj->note, e);
}

/* Checks the moderator, the run and the ruling into its state (the row's
 * check); 0, or -1 with e filled. */
static int rule_check(struct req *r, void *state, struct err *e)
{
	const char *want = r->app->cfg.moderator_token;
	struct rule_job *rj = state;
	char thumb[48], addr[80];
	json_t *o;
	int rc;

	snprintf(rj->run_id, sizeof rj->run_id, "%s", r->arg);
	if (!want || !*want)
		return err_set(e, 401, "invalid_token", NULL, "%s", "Moderation is not configured on this server: the operator must set LLMSPEED_MODERATOR_TOKEN.");
	/* Guesses have an allowance of their own (DISPUTE_MODERATOR_GUESSES),
	 * checked before the token is compared, so that a guess over it
	 * learns nothing; a wrong token uses it up, and no posting
	 * allowance. */
	http_client_key(r, addr, sizeof addr);
	if ((r->retry_after = ratelimit_check(r->app->moderator_rl, addr)) > 0)
		return err_set(e, 429, "rate_limited", NULL, "%s", "Too many wrong moderator tokens from this address; wait for the time in Retry-After.");
	if (!is_moderator(r)) {
		ratelimit_take(r->app->moderator_rl, addr);
		return err_set(e, 401, "invalid_token", NULL, "%s", "Send the moderator token as \"Authorization: Bearer <token>\"; the one sent is missing or wrong.");
	}
	if (dispute_run_check(r, thumb, e) < 0)
		return -1;
	if (!http_ctype_is(r, CT_JSON))
		return err_set(e, 415, "unsupported_media_type", NULL, "%s", "Send the ruling as Content-Type: application/json.");
	if (!(o = dispute_load_object(r->body.buf, r->body.len, e)))
		return -1;
	rc = rule_fields(o, rj, e);
	json_decref(o);
	return rc;
}

const struct defer_row dispute_resolve_write = {
	sizeof(struct rule_job), rule_check, rule_run, rule_done, rule_finish, rule_release,
};
