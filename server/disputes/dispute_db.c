/* dispute_db.c: what the dispute files share: the run lookup, a write step,
 * the posting allowance and JSON members. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "disputes/dispute_int.h"
#include "http/ratelimit.h"
#include "ingest/validate.h"
#include "store/run_store.h"

static const char sql_run[] = "SELECT key_thumbprint FROM runs WHERE id = ?";

/* 0 when run id exists (its key thumbprint copied to thumb), DB_NOTFOUND,
 * or another negative db_status. */
int dispute_run_lookup(struct req *r, const char *id, char thumb[48])
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

int dispute_run_check(struct req *r, char thumb[48], struct err *e)
{
	int rc = dispute_run_lookup(r, r->arg, thumb);

	if (rc == DB_NOTFOUND)
		return err_set(e, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	if (rc != DB_OK)
		return err_unavailable(e, MSG_DB_DOWN);
	return 0;
}

/* Steps a bound write statement; returns a db_status. */
int dispute_step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Takes one post from the client's allowance; 1 when over it (the wait is
 * in r->retry_after). */
int dispute_rate_limited(struct req *r)
{
	char key[80];

	http_client_key(r, key, sizeof key);
	r->retry_after = ratelimit_take(r->app->dispute_rl, key);
	return r->retry_after > 0;
}

/* A string member of o: 1 with s/n set, 0 when absent or null, -1 when of
 * another type. */
int dispute_member_str(const json_t *o, const char *k, const char **s, size_t *n)
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

/* Parses bytes as a JSON object; 400 invalid_json otherwise. */
json_t *dispute_load_object(const char *s, size_t n, struct err *e)
{
	json_error_t je;
	json_t *o = NULL;
	char msg[300];

	if (validate_json_depth((const unsigned char *)s, n, VALIDATE_MAX_DEPTH) > VALIDATE_MAX_DEPTH) {
		err_set(e, 400, "invalid_json", NULL, "The body nests arrays and objects more than %d deep; send a JSON object.", VALIDATE_MAX_DEPTH);
		return NULL;
	}
	if (!(o = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je))) {
		snprintf(msg, sizeof msg, "The body is not valid JSON (%s at character %d); send a JSON object.",
			 je.text, je.position);
		err_set(e, 400, "invalid_json", NULL, "%s", msg);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		err_set(e, 400, "invalid_json", NULL, "%s", "The body must be a JSON object.");
		return NULL;
	}
	return o;
}
