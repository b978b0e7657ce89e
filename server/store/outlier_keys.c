/* outlier_keys.c: signing keys behind a cluster: each key's count of
 * stored runs, the clusters it counts in, and which keys are new. */
#include "store/outlier_int.h"

#include "http/cache.h"
#include "util/timefmt.h"

static const char sql_key_sign[] =
	"INSERT INTO signing_keys(thumbprint, runs, first_seen) VALUES (?1, 1, ?2) "
	"ON CONFLICT(thumbprint) DO UPDATE SET runs = runs + 1 RETURNING runs";
static const char sql_key_unsign[] =
	"UPDATE signing_keys SET runs = runs - 1 WHERE thumbprint = ? RETURNING runs";
static const char sql_key_forget[] = "DELETE FROM signing_keys WHERE thumbprint = ? AND runs <= 0";
static const char sql_key_runs[] = "SELECT runs FROM signing_keys WHERE thumbprint = ?";
static const char sql_key_newness[] =
	"UPDATE clusters SET new_keys = new_keys + ?2 "
	"WHERE (suite_version, model_digest, hw_class, backend_name) IN "
	"(SELECT suite_version, model_digest, hw_class, backend_name FROM cluster_keys "
	"WHERE key_thumbprint = ?1)";
static const char sql_key_cluster[] =
	"SELECT suite_version, model_digest, hw_class, backend_name FROM cluster_keys "
	"WHERE key_thumbprint = ? LIMIT 1";
static const char sql_ck_enter[] =
	"INSERT INTO cluster_keys VALUES (?1, ?2, ?3, ?4, ?5, 1) ON CONFLICT DO UPDATE "
	"SET runs = runs + 1 RETURNING runs";
static const char sql_ck_leave[] =
	"UPDATE cluster_keys SET runs = runs - 1 WHERE " WHERE_KEY " AND key_thumbprint = ?5 "
	"RETURNING runs";
static const char sql_ck_drop[] =
	"DELETE FROM cluster_keys WHERE " WHERE_KEY " AND key_thumbprint = ?5 AND runs <= 0";

/* ---- signing keys ---- */

/* The number of runs key has stored (0: none). */
static int key_runs(struct dbconn *w, const char *key, long long *runs)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_runs);

	*runs = 0;
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, key);
	return step_all(st, NULL, runs);
}

/* Adds delta to new_keys of the cluster(s) key has counted runs in. */
static int key_newness(struct dbconn *w, const char *key, int delta)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_newness);

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, key);
	sqlite3_bind_int(st, 2, delta);
	return step_all(st, NULL, NULL);
}

/* The cache tag of the cluster key's runs count in (0: none). */
static int key_cluster_tag(struct dbconn *w, const char *key, unsigned *tag)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_cluster);
	int rc;

	if (!tag)
		return DB_OK;
	*tag = 0;
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*tag = cache_cluster_tag((const char *)sqlite3_column_text(st, 0),
					 (const char *)sqlite3_column_text(st, 1),
					 (const char *)sqlite3_column_text(st, 2),
					 (const char *)sqlite3_column_text(st, 3));
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* key stored one more run (sign 1) or one fewer (−1).  A key is new while
 * it has stored exactly one run, so passing 1 <-> 2 changes the new count
 * of the cluster its single run counts in; *tag (when set) gets that
 * cluster's cache tag when it loses a new key. */
int key_count(struct dbconn *w, const char *key, int sign, unsigned *tag)
{
	sqlite3_stmt *st = db_stmt(w, sign > 0 ? sql_key_sign : sql_key_unsign);
	char now[32];
	long long runs = 0;
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, key);
	if (sign > 0) {
		time_now_rfc3339(now);
		db_bind_text(st, 2, now);
	}
	if ((rc = step_all(st, NULL, &runs)) != DB_OK)
		return rc;
	if (sign > 0 && runs == 2 && (rc = key_cluster_tag(w, key, tag)) != DB_OK)
		return rc;
	if (sign > 0 && runs == 2)
		return key_newness(w, key, -1);
	if (sign < 0 && runs == 1)
		return key_newness(w, key, 1);
	if (sign < 0 && runs <= 0 && (st = db_stmt(w, sql_key_forget))) {
		db_bind_text(st, 1, key);
		return step_all(st, NULL, NULL);
	}
	return st ? DB_OK : DB_ERR;
}

/* key's runs in cluster k go up (sign 1) or down (−1) by one; the
 * cluster's key counts in f follow. */
int cluster_key_move(struct dbconn *w, const struct cluster_key *k, const char *key,
		     int sign, struct fig *f)
{
	sqlite3_stmt *st = keyed(w, sign > 0 ? sql_ck_enter : sql_ck_leave, k);
	long long runs = -1, total;
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 5, key);
	if ((rc = step_all(st, NULL, &runs)) != DB_OK)
		return rc;
	if (runs != (sign > 0 ? 1 : 0))
		return DB_OK;               /* the key was, and stays, behind the cluster */
	if ((rc = key_runs(w, key, &total)) != DB_OK)
		return rc;
	f->keys += sign;
	if (total == 1)
		f->new_keys += sign;
	if (sign < 0 && (st = keyed(w, sql_ck_drop, k))) {
		db_bind_text(st, 5, key);
		return step_all(st, NULL, NULL);
	}
	return st ? DB_OK : DB_ERR;
}

