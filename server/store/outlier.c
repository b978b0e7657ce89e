/* outlier.c: per-cluster statistics and 3-sigma outlier flags, kept
 * incrementally: the cluster row, the flag range updates, runs entering and
 * leaving, rebuilding and reading.  The sums are in outlier_sums.c, the
 * signing keys in outlier_keys.c, the start-up backfill in outlier_backfill.c. */
#include "store/outlier_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- SQL ---- */

static const char sql_fig_get[] =
	"SELECT n, sum_q, sum_qq, keys, new_keys FROM clusters WHERE " WHERE_KEY;
static const char sql_fig_put[] =
	"INSERT INTO clusters(suite_version, model_digest, hw_class, backend_name, n, mean, "
	"stddev, sum_q, sum_qq, keys, new_keys) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
	"ON CONFLICT(suite_version, model_digest, hw_class, backend_name) DO UPDATE SET "
	"n = excluded.n, mean = excluded.mean, stddev = excluded.stddev, sum_q = excluded.sum_q, "
	"sum_qq = excluded.sum_qq, keys = excluded.keys, new_keys = excluded.new_keys";
static const char sql_fig_drop[] = "DELETE FROM clusters WHERE " WHERE_KEY;
static const char sql_fig_read[] =
	"SELECT n, mean, stddev, keys, new_keys FROM clusters WHERE " WHERE_KEY;

/* The three seeks of a flag update, in runs_cluster_flag. */
static const char sql_flag_below[] =
	"UPDATE runs SET outlier = 1 WHERE " WHERE_KEY " AND status = 'ok' AND outlier = 0 "
	"AND decode_tok_s < ?5 RETURNING id";
static const char sql_flag_above[] =
	"UPDATE runs SET outlier = 1 WHERE " WHERE_KEY " AND status = 'ok' AND outlier = 0 "
	"AND decode_tok_s > ?5 RETURNING id";
static const char sql_flag_inside[] =
	"UPDATE runs SET outlier = 0 WHERE " WHERE_KEY " AND status = 'ok' AND outlier = 1 "
	"AND decode_tok_s >= ?5 AND decode_tok_s <= ?6 RETURNING id";
static const char sql_unflag_run[] =
	"UPDATE runs SET outlier = 0 WHERE id = ? AND outlier <> 0 RETURNING id";

static const char sql_members[] =
	"SELECT decode_tok_s FROM runs WHERE " WHERE_KEY " AND status = 'ok'";
static const char sql_run_of[] =
	"SELECT suite_version, model_digest, hw_class, backend_name, decode_tok_s, "
	"key_thumbprint, status FROM runs WHERE id = ?";

static const char sql_ck_clear[] = "DELETE FROM cluster_keys WHERE " WHERE_KEY;
static const char sql_ck_fill[] =
	"INSERT INTO cluster_keys SELECT suite_version, model_digest, hw_class, backend_name, "
	"key_thumbprint, count(*) FROM runs WHERE " WHERE_KEY " AND status = 'ok' "
	"GROUP BY key_thumbprint";
static const char sql_ck_count[] =
	"SELECT count(*), coalesce(sum(s.runs = 1), 0) FROM cluster_keys ck "
	"JOIN signing_keys s ON s.thumbprint = ck.key_thumbprint WHERE ck." WHERE_KEY;

static void bind_key(sqlite3_stmt *st, const struct cluster_key *k)
{
	db_bind_text(st, 1, k->suite);
	db_bind_text(st, 2, k->digest);
	db_bind_text(st, 3, k->hw_class);
	db_bind_text(st, 4, k->backend);
}

/* Steps st to the end, appending the first column of each row to ids
 * when it is an array; *last gets the first column of the last row as an
 * integer (when last is set).  Resets st. */
int step_all(sqlite3_stmt *st, json_t *ids, long long *last)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (last)
			*last = sqlite3_column_int64(st, 0);
		if (json_is_array(ids) && sqlite3_column_text(st, 0))
			json_array_append_new(ids, json_string((const char *)sqlite3_column_text(st, 0)));
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Prepares sql with the cluster key bound to ?1..?4. */
sqlite3_stmt *keyed(struct dbconn *w, const char *sql, const struct cluster_key *k)
{
	sqlite3_stmt *st = db_stmt(w, sql);

	if (st)
		bind_key(st, k);
	return st;
}

/* ---- the cluster row ---- */

/* Reads k's figures; a missing row is an empty cluster.  *stale is set
 * when the row's sums were never filled (a database the backfill has not
 * reached). */
static int fig_load(struct dbconn *w, const struct cluster_key *k, struct fig *f, int *stale)
{
	sqlite3_stmt *st = keyed(w, sql_fig_get, k);
	int rc;

	memset(f, 0, sizeof *f);
	*stale = 0;
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 1) != 16 || sqlite3_column_bytes(st, 2) != 32) {
			*stale = 1;
		} else {
			uint64_t s[2];

			f->n = sqlite3_column_int64(st, 0);
			be_get(sqlite3_column_blob(st, 1), s, 2);
			f->s = (__int128)(((u128)s[1] << 64) | s[0]);
			be_get(sqlite3_column_blob(st, 2), f->qq.w, 4);
			f->keys = sqlite3_column_int64(st, 3);
			f->new_keys = sqlite3_column_int64(st, 4);
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Writes k's figures, or removes the row when no run counts. */
static int fig_store(struct dbconn *w, const struct cluster_key *k, const struct fig *f,
		     double mean, double sd)
{
	unsigned char sb[16], qb[32];
	uint64_t s[2] = { (uint64_t)(u128)f->s, (uint64_t)((u128)f->s >> 64) };
	sqlite3_stmt *st = keyed(w, f->n > 0 ? sql_fig_put : sql_fig_drop, k);

	if (!st)
		return DB_ERR;
	if (f->n > 0) {
		be_put(sb, s, 2);
		be_put(qb, f->qq.w, 4);
		sqlite3_bind_int64(st, 5, f->n);
		sqlite3_bind_double(st, 6, mean);
		sqlite3_bind_double(st, 7, sd);
		sqlite3_bind_blob(st, 8, sb, sizeof sb, SQLITE_TRANSIENT);
		sqlite3_bind_blob(st, 9, qb, sizeof qb, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 10, f->keys);
		sqlite3_bind_int64(st, 11, f->new_keys);
	}
	return step_all(st, NULL, NULL);
}

/* Moves the flags of k's counted runs to the bounds [lo, hi]: three
 * range seeks that touch only the runs whose flag changes. */
static int reflag(struct dbconn *w, const struct cluster_key *k, double lo, double hi, json_t *ids)
{
	sqlite3_stmt *st;
	int rc;

	if (!(st = keyed(w, sql_flag_below, k)))
		return DB_ERR;
	sqlite3_bind_double(st, 5, lo);
	if ((rc = step_all(st, ids, NULL)) != DB_OK)
		return rc;
	if (!(st = keyed(w, sql_flag_above, k)))
		return DB_ERR;
	sqlite3_bind_double(st, 5, hi);
	if ((rc = step_all(st, ids, NULL)) != DB_OK)
		return rc;
	if (!(st = keyed(w, sql_flag_inside, k)))
		return DB_ERR;
	sqlite3_bind_double(st, 5, lo);
	sqlite3_bind_double(st, 6, hi);
	return step_all(st, ids, NULL);
}

/* Stores f as k's figures and moves the flags to match. */
static int fig_commit(struct dbconn *w, const struct cluster_key *k, const struct fig *f, json_t *ids)
{
	double mean, sd, lo, hi;
	int rc;

	moments(f, &mean, &sd, &lo, &hi);
	if ((rc = fig_store(w, k, f, mean, sd)) != DB_OK)
		return rc;
	return reflag(w, k, lo, hi, ids);
}

/* Reads k's figures, rebuilding them first from the runs as they are now
 * when they were never filled; *rebuilt says so. */
static int fig_get(struct dbconn *w, const struct cluster_key *k, struct fig *f,
		   int *rebuilt, json_t *ids)
{
	int rc = fig_load(w, k, f, rebuilt);

	if (rc == DB_OK && *rebuilt && (rc = outlier_recompute(w, k, ids)) == DB_OK)
		rc = fig_load(w, k, f, &(int){ 0 });
	return rc;
}

/* ---- entering and leaving ---- */

/* A run with value x, signed by key, starts (sign 1) or stops (−1)
 * counting in cluster k.  visible: runs already shows the change (the run
 * is inserted, or its status set), so a rebuild from runs includes it. */
static int cluster_move(struct dbconn *w, const struct cluster_key *k, const char *id,
			double x, const char *key, int sign, int visible, json_t *ids)
{
	struct fig f;
	sqlite3_stmt *st;
	int rc, rebuilt;

	if ((rc = fig_get(w, k, &f, &rebuilt, ids)) != DB_OK)
		return rc;
	if (rebuilt && visible)
		return DB_OK;
	fig_move(&f, x, sign);
	if ((rc = cluster_key_move(w, k, key, sign, &f)) != DB_OK)
		return rc;
	if (sign < 0) {             /* out of the cluster, so not flagged */
		if (!(st = db_stmt(w, sql_unflag_run)))
			return DB_ERR;
		db_bind_text(st, 1, id);
		if ((rc = step_all(st, ids, NULL)) != DB_OK)
			return rc;
	}
	return fig_commit(w, k, &f, ids);
}

int outlier_run_added(struct dbconn *w, const struct cluster_key *k, const char *id,
		      double x, const char *thumbprint, json_t *ids, unsigned *other_tag)
{
	int rc = key_count(w, thumbprint, 1, other_tag);

	if (rc != DB_OK)
		return rc;
	return cluster_move(w, k, id, x, thumbprint, 1, 1, ids);
}

/* A run as stored: its cluster, value, key and status (copies). */
struct run_ref {
	char *col[7];
	struct cluster_key k;
	double x;
	int counted;
};

static void run_ref_free(struct run_ref *r)
{
	int i;

	for (i = 0; i < 7; i++)
		free(r->col[i]);
}

/* Reads run id; DB_NOTFOUND when there is none. */
static int run_ref_get(struct dbconn *w, const char *id, struct run_ref *r)
{
	sqlite3_stmt *st = db_stmt(w, sql_run_of);
	int rc, i;

	memset(r, 0, sizeof *r);
	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		for (i = 0; i < 7; i++)
			if (i != 4 && !(r->col[i] = strdup(sqlite3_column_text(st, i)
							   ? (const char *)sqlite3_column_text(st, i) : "")))
				rc = SQLITE_NOMEM;
		r->x = sqlite3_column_double(st, 4);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW) {
		run_ref_free(r);
		return rc == SQLITE_DONE ? DB_NOTFOUND : db_status_of(rc);
	}
	r->k = (struct cluster_key){ r->col[0], r->col[1], r->col[2], r->col[3] };
	r->counted = !strcmp(r->col[6], "ok");
	return DB_OK;
}

int outlier_run_status_changed(struct dbconn *w, const char *id, json_t *ids)
{
	struct run_ref r;
	int rc = run_ref_get(w, id, &r);

	if (rc != DB_OK)
		return rc;
	rc = cluster_move(w, &r.k, id, r.x, r.col[5], r.counted ? 1 : -1, 1, ids);
	run_ref_free(&r);
	return rc;
}

int outlier_run_withdrawn(struct dbconn *w, const char *id, json_t *ids)
{
	struct run_ref r;
	int rc = run_ref_get(w, id, &r);

	if (rc != DB_OK)
		return rc;
	if (r.counted)
		rc = cluster_move(w, &r.k, id, r.x, r.col[5], -1, 0, ids);
	if (rc == DB_OK)
		rc = key_count(w, r.col[5], -1, NULL);
	run_ref_free(&r);
	return rc;
}

/* ---- rebuilding ---- */

/* Recounts k's keys from its runs into cluster_keys and f. */
static int recount_keys(struct dbconn *w, const struct cluster_key *k, struct fig *f)
{
	sqlite3_stmt *st;
	int rc;

	if (!(st = keyed(w, sql_ck_clear, k)) || (rc = step_all(st, NULL, NULL)) != DB_OK)
		return st ? rc : DB_ERR;
	if (!(st = keyed(w, sql_ck_fill, k)) || (rc = step_all(st, NULL, NULL)) != DB_OK)
		return st ? rc : DB_ERR;
	if (!(st = keyed(w, sql_ck_count, k)))
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		f->keys = sqlite3_column_int64(st, 0);
		f->new_keys = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

int outlier_recompute(struct dbconn *w, const struct cluster_key *k, json_t *ids)
{
	sqlite3_stmt *st = keyed(w, sql_members, k);
	struct fig f;
	int rc;

	memset(&f, 0, sizeof f);
	if (!st)
		return DB_ERR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fig_move(&f, sqlite3_column_double(st, 0), 1);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	if ((rc = recount_keys(w, k, &f)) != DB_OK)
		return rc;
	return fig_commit(w, k, &f, ids);
}

/* ---- reading ---- */

int outlier_figures(struct dbconn *c, const struct cluster_key *k, struct cluster_figures *out)
{
	sqlite3_stmt *st = keyed(c, sql_fig_read, k);
	int rc;

	memset(out, 0, sizeof *out);
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->n = sqlite3_column_int64(st, 0);
		out->mean = sqlite3_column_double(st, 1);
		out->stddev = sqlite3_column_double(st, 2);
		out->keys = sqlite3_column_int64(st, 3);
		out->new_keys = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return DB_NOTFOUND;
	return rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}
