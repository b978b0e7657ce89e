/* outlier_keys.c: signing keys behind a cluster: each key's count of
 * stored runs, its runs and median in each cluster (cluster_keys), and
 * which keys are new. */
#include "store/outlier_int.h"

#include "util/timefmt.h"

/* The count is read, then written: no RETURNING, which SQLite serves
 * through a temporary table at a cost larger than the read. */
static const char sql_key_new[] =
	"INSERT INTO signing_keys(thumbprint, runs, first_seen) VALUES (?1, 1, ?2)";
static const char sql_key_set[] = "UPDATE signing_keys SET runs = ?2 WHERE thumbprint = ?1";
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
static const char sql_ck_get[] =
	"SELECT runs, mid_x, mid_id, val FROM cluster_keys WHERE " WHERE_KEY " AND key_thumbprint = ?5";
static const char sql_ck_put[] =
	"INSERT INTO cluster_keys(suite_version, model_digest, hw_class, backend_name, "
	"key_thumbprint, runs, mid_x, mid_id, val) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
	"ON CONFLICT DO UPDATE SET runs = excluded.runs, mid_x = excluded.mid_x, "
	"mid_id = excluded.mid_id, val = excluded.val";
static const char sql_ck_drop[] =
	"DELETE FROM cluster_keys WHERE " WHERE_KEY " AND key_thumbprint = ?5";

const char *const outlier_keys_sql[] = {
	sql_key_new, sql_key_set, sql_key_forget, sql_key_runs, sql_key_newness,
	sql_key_cluster, sql_ck_get, sql_ck_put, sql_ck_drop, NULL
};

/* ---- signing keys ---- */

/* The number of runs key has stored (0: none). */
static int key_runs(struct dbconn *w, const char *key, long long *runs)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_runs);

	*runs = 0;
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, key);
	return outlier_step_all(st, NULL, runs);
}

/* Adds delta to new_keys of the cluster(s) key has counted runs in. */
static int key_newness(struct dbconn *w, const char *key, int delta)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_newness);

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, key);
	sqlite3_bind_int(st, 2, delta);
	return outlier_step_all(st, NULL, NULL);
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
		*tag = outlier_cluster_tag((const char *)sqlite3_column_text(st, 0),
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
int outlier_key_count(struct dbconn *w, const char *key, int sign, unsigned *tag)
{
	sqlite3_stmt *st;
	char now[32];
	long long runs = 0;
	int rc;

	if ((rc = key_runs(w, key, &runs)) != DB_OK)
		return rc;
	if (sign < 0 && runs <= 0)
		return DB_OK;          /* nothing stored under it (as the UPDATE found nothing) */
	if (!(st = db_stmt(w, sign > 0 && runs == 0 ? sql_key_new : sql_key_set)))
		return DB_ERR;
	db_bind_text(st, 1, key);
	runs += sign;
	if (sign > 0 && runs == 1) {
		time_now_rfc3339(now);
		db_bind_text(st, 2, now);
	} else {
		sqlite3_bind_int64(st, 2, runs);
	}
	if ((rc = outlier_step_all(st, NULL, NULL)) != DB_OK)
		return rc;
	if (sign > 0 && runs == 2 && (rc = key_cluster_tag(w, key, tag)) != DB_OK)
		return rc;
	if (sign > 0 && runs == 2)
		return key_newness(w, key, -1);
	if (sign < 0 && runs == 1)
		return key_newness(w, key, 1);
	if (sign < 0 && runs <= 0 && (st = db_stmt(w, sql_key_forget))) {
		db_bind_text(st, 1, key);
		return outlier_step_all(st, NULL, NULL);
	}
	return st ? DB_OK : DB_ERR;
}

int outlier_cluster_key_move(struct dbconn *w, const struct cluster_key *k, const char *key,
		     double x, const char *id, int sign, struct cluster_row *row)
{
	struct mset set = { MSET_CLUSTER, k, NULL, key };
	sqlite3_stmt *st = outlier_keyed(w, sql_ck_get, k);
	struct mptr p;
	long long total;
	double old;
	int rc, had;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 5, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		outlier_mptr_read(&p, sqlite3_column_int64(st, 0), st, 1);
	else
		outlier_mptr_read(&p, 0, st, 1);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_status_of(rc);
	had = p.n > 0;
	old = p.val;
	rc = sign > 0 ? outlier_mset_added(w, &set, &p, x, id) : outlier_mset_removed(w, &set, &p, x, id);
	if (rc != DB_OK)
		return rc;
	outlier_fig_replace(&row->f, had, old, p.n > 0, p.val);
	row->runs += sign;
	if (had != (p.n > 0)) {          /* the key joined or left the cluster */
		if ((rc = key_runs(w, key, &total)) != DB_OK)
			return rc;
		if (total == 1)
			row->new_keys += sign;
	}
	if (!(st = outlier_keyed(w, p.n > 0 ? sql_ck_put : sql_ck_drop, k)))
		return DB_ERR;
	db_bind_text(st, 5, key);
	if (p.n > 0) {
		sqlite3_bind_int64(st, 6, p.n);
		outlier_mptr_bind(&p, st, 7);
	}
	return outlier_step_all(st, NULL, NULL);
}
