/* outlier_pop.c: the rows of the two populations a run is judged in: its
 * cluster (clusters) and its combination (combos, with each key's row in
 * combo_keys), read and written whole, and a key's run moving in or out of
 * a combination's flag population. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/netcap.h"
#include "util/log.h"

/* clusters is written by this upsert and the delete below only, never by
 * REPLACE: with recursive_triggers off a REPLACE's delete fires no
 * trigger, and row_counts (migration 0023) and backend_runs (0037) would
 * drift from the table. */
static const char sql_cl_get[] =
	"SELECT n, sum_q, sum_qq, keys, new_keys, mean, stddev FROM clusters WHERE " WHERE_KEY;
static const char sql_cl_put[] =
	"INSERT INTO clusters(suite_version, model_digest, hw_class, backend_name, n, mean, "
	"stddev, sum_q, sum_qq, keys, new_keys) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
	"ON CONFLICT(suite_version, model_digest, hw_class, backend_name) DO UPDATE SET "
	"n = excluded.n, mean = excluded.mean, stddev = excluded.stddev, sum_q = excluded.sum_q, "
	"sum_qq = excluded.sum_qq, keys = excluded.keys, new_keys = excluded.new_keys";
static const char sql_cl_drop[] = "DELETE FROM clusters WHERE " WHERE_KEY;

#define COMBO_COLS "key_id, first_at, runs, keys, sum_q, sum_qq, t_runs, t_keys, med, p25, p75, " \
	"pre_keys, med_prefill, ttft_keys, med_ttft, best_decode, best_id, " \
	"q1_b, q1_below, q1_n, q1_sum, q2_b, q2_below, q2_n, q2_sum, q3_b, q3_below, q3_n, q3_sum, " \
	"pre_b, pre_below, pre_n, pre_sum, ttft_b, ttft_below, ttft_n, ttft_sum, sort_prefill, sort_ttft, " \
	"mean, stddev, disputed, confirmed"
static const char sql_co_get[] = "SELECT cid, " COMBO_COLS " FROM combos WHERE " WHERE_COMBO;
/* A new combination's empty row (its figures come with the store). */
static const char sql_co_new[] =
	"INSERT INTO combos(suite_version, model_slug, model_digest, hw_slug, backend_name, key_id, "
	"first_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING cid";
/* The figures no index holds: one write of the table's row.  The indexed
 * ones (median, sort prefill, sort TTFT, best) each by its own statement,
 * only when it moved, so an upload rewrites only the index entries whose
 * figure changed. */
static const char sql_co_set[] =
	"UPDATE combos SET runs = ?2, keys = ?3, sum_q = ?4, sum_qq = ?5, t_runs = ?6, t_keys = ?7, "
	"p25 = ?8, p75 = ?9, pre_keys = ?10, med_prefill = ?11, ttft_keys = ?12, med_ttft = ?13, "
	"q1_b = ?14, q1_below = ?15, q1_n = ?16, q1_sum = ?17, q2_b = ?18, q2_below = ?19, q2_n = ?20, "
	"q2_sum = ?21, q3_b = ?22, q3_below = ?23, q3_n = ?24, q3_sum = ?25, pre_b = ?26, "
	"pre_below = ?27, pre_n = ?28, pre_sum = ?29, ttft_b = ?30, ttft_below = ?31, ttft_n = ?32, "
	"ttft_sum = ?33, mean = ?34, stddev = ?35, confirmed = ?36, disputed = ?37 WHERE cid = ?1";
/* Two networks among the keys that count in a combination's figures (a
 * key without one is its own): with the cap, at most a few rows a
 * network, so the scan stops within a few rows. */
static const char sql_co_nets[] =
	"SELECT EXISTS (SELECT 1 FROM combo_keys a WHERE a.cid = ?1 AND a.t_runs > 0 AND "
	"coalesce(a.net, a.key_thumbprint) <> (SELECT coalesce(b.net, b.key_thumbprint) "
	"FROM combo_keys b WHERE b.cid = ?1 AND b.t_runs > 0 LIMIT 1))";
_Static_assert(OUTLIER_CONFIRM_NETS == 2, "sql_co_nets asks for a second network");
static const char sql_co_med[] = "UPDATE combos SET med = ?2, rank_med = ?3 WHERE cid = ?1";
static const char sql_co_pre[] = "UPDATE combos SET sort_prefill = ?2 WHERE cid = ?1";
static const char sql_co_ttft[] = "UPDATE combos SET sort_ttft = ?2 WHERE cid = ?1";
static const char sql_co_best[] =
	"UPDATE combos SET best_decode = ?2, best_id = ?3, rank_best = ?4 WHERE cid = ?1";
static const char sql_co_drop[] = "DELETE FROM combos WHERE cid = ?1";


#define CKEY_COLS "runs, mid_x, mid_id, val, t_runs, t_x, t_id, t_val, " \
	"pre_runs, pre_b, pre_below, pre_n, pre_sum, pre_val, ttft_runs, ttft_b, ttft_below, ttft_n, " \
	"ttft_sum, ttft_val, net"
static const char sql_ck_get[] =
	"SELECT " CKEY_COLS " FROM combo_keys WHERE cid = ?1 AND key_thumbprint = ?2";
static const char sql_ck_put[] =
	"INSERT INTO combo_keys(cid, key_thumbprint, " CKEY_COLS ") VALUES (?1, ?2, ?7, ?8, ?9, "
	"?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27) "
	"ON CONFLICT DO UPDATE SET runs = excluded.runs, mid_x = excluded.mid_x, "
	"mid_id = excluded.mid_id, val = excluded.val, t_runs = excluded.t_runs, t_x = excluded.t_x, "
	"t_id = excluded.t_id, t_val = excluded.t_val, pre_runs = excluded.pre_runs, "
	"pre_b = excluded.pre_b, pre_below = excluded.pre_below, pre_n = excluded.pre_n, "
	"pre_sum = excluded.pre_sum, pre_val = excluded.pre_val, ttft_runs = excluded.ttft_runs, "
	"ttft_b = excluded.ttft_b, ttft_below = excluded.ttft_below, ttft_n = excluded.ttft_n, "
	"ttft_sum = excluded.ttft_sum, ttft_val = excluded.ttft_val, net = coalesce(net, excluded.net)";
static const char sql_ck_drop[] = "DELETE FROM combo_keys WHERE cid = ?1 AND key_thumbprint = ?2";

const char *const outlier_pop_sql[] = {
	sql_cl_get, sql_cl_put, sql_cl_drop, sql_co_get, sql_co_new, sql_co_set, sql_co_med,
	sql_co_pre, sql_co_ttft, sql_co_best, sql_co_drop, sql_ck_get, sql_ck_put, sql_ck_drop,
	sql_co_nets, NULL
};

/* ---- clusters ---- */

int outlier_cluster_row_load(struct dbconn *w, const struct cluster_key *k, struct cluster_row *row)
{
	sqlite3_stmt *st = outlier_keyed(w, sql_cl_get, k);
	int rc;

	memset(row, 0, sizeof *row);
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		row->exists = 1;
		row->runs = sqlite3_column_int64(st, 0);
		row->new_keys = sqlite3_column_int64(st, 4);
		row->mean = sqlite3_column_double(st, 5);
		row->sd = sqlite3_column_double(st, 6);
		if (outlier_fig_of_blobs(&row->f, sqlite3_column_int64(st, 3),
				 sqlite3_column_blob(st, 1), sqlite3_column_bytes(st, 1),
				 sqlite3_column_blob(st, 2), sqlite3_column_bytes(st, 2)) < 0) {
			log_error("outlier: cluster %s/%s/%s/%s has no sums (the start-up fill did not finish)",
				  k->suite, k->digest, k->hw_class, k->backend);
			rc = SQLITE_CORRUPT;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int outlier_cluster_row_store(struct dbconn *w, const struct cluster_key *k, const struct cluster_row *row)
{
	unsigned char sb[16], qb[32];
	sqlite3_stmt *st = outlier_keyed(w, row->runs > 0 ? sql_cl_put : sql_cl_drop, k);

	if (!st)
		return DB_ERR;
	if (row->runs > 0) {
		outlier_fig_blobs(&row->f, sb, qb);
		sqlite3_bind_int64(st, 5, row->runs);
		sqlite3_bind_double(st, 6, row->mean);
		sqlite3_bind_double(st, 7, row->sd);
		sqlite3_bind_blob(st, 8, sb, sizeof sb, SQLITE_TRANSIENT);
		sqlite3_bind_blob(st, 9, qb, sizeof qb, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 10, row->f.n);
		sqlite3_bind_int64(st, 11, row->new_keys);
	}
	return outlier_step_all(st, NULL, NULL);
}

/* ---- combos ---- */

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* A pointer from its four columns (bucket, below, n, sum) from i on. */
static void hptr_read(struct hptr *p, sqlite3_stmt *st, int i)
{
	p->b = sqlite3_column_int(st, i);
	p->below = sqlite3_column_int64(st, i + 1);
	p->n = sqlite3_column_int64(st, i + 2);
	p->sum = sqlite3_column_double(st, i + 3);
}

static void hptr_bind(const struct hptr *p, int valid, sqlite3_stmt *st, int i)
{
	int k;

	if (!valid) {
		for (k = 0; k < 4; k++)
			sqlite3_bind_null(st, i + k);
		return;
	}
	sqlite3_bind_int(st, i, p->b);
	sqlite3_bind_int64(st, i + 1, p->below);
	sqlite3_bind_int64(st, i + 2, p->n);
	sqlite3_bind_double(st, i + 3, p->sum);
}

/* The indexed figures row would be stored with: median, sort prefill
 * (0 when unknown), sort TTFT (1e300 when unknown), best (NAN: NULL). */
static void sort_figures(const struct combo_row *row, double v[4])
{
	int any = row->t_runs > 0;

	v[0] = any ? row->med : NAN;
	v[1] = any && !isnan(row->med_prefill) ? row->med_prefill : 0;
	v[2] = any && !isnan(row->med_ttft) ? row->med_ttft : 1e300;
	v[3] = any ? row->best_decode : NAN;
}

int outlier_combo_row_load(struct dbconn *w, const struct combo_key *k, struct combo_row *row)
{
	sqlite3_stmt *st = outlier_combo_keyed(w, sql_co_get, k);
	const char *s;
	int rc, i;

	memset(row, 0, sizeof *row);
	row->med = row->p25 = row->p75 = row->med_prefill = row->med_ttft = row->best_decode = NAN;
	sort_figures(row, row->stored);
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		row->exists = 1;
		row->cid = sqlite3_column_int64(st, 0);
		if ((s = (const char *)sqlite3_column_text(st, 1)))
			snprintf(row->key_id, sizeof row->key_id, "%s", s);
		row->first_at = sqlite3_column_int64(st, 2);
		row->runs = sqlite3_column_int64(st, 3);
		if (outlier_fig_of_blobs(&row->f, sqlite3_column_int64(st, 4),
				 sqlite3_column_blob(st, 5), sqlite3_column_bytes(st, 5),
				 sqlite3_column_blob(st, 6), sqlite3_column_bytes(st, 6)) < 0 && row->runs > 0) {
			log_error("outlier: combination %s/%s/%s/%s has no sums (the start-up fill did not finish)",
				  k->model, k->digest, k->hw, k->backend);
			rc = SQLITE_CORRUPT;
		}
		row->t_runs = sqlite3_column_int64(st, 7);
		row->t_keys = sqlite3_column_int64(st, 8);
		row->med = col_real(st, 9);
		row->p25 = col_real(st, 10);
		row->p75 = col_real(st, 11);
		row->pre_keys = sqlite3_column_int64(st, 12);
		row->med_prefill = col_real(st, 13);
		row->ttft_keys = sqlite3_column_int64(st, 14);
		row->med_ttft = col_real(st, 15);
		row->best_decode = col_real(st, 16);
		if ((s = (const char *)sqlite3_column_text(st, 17)))
			snprintf(row->best_id, sizeof row->best_id, "%s", s);
		for (i = 0; i < 3; i++)
			hptr_read(&row->q[i], st, 18 + 4 * i);
		hptr_read(&row->pre, st, 30);
		hptr_read(&row->ttft, st, 34);
		/* As stored, whatever the counts say (a row the backfill left
		 * half made holds the defaults). */
		row->stored[0] = col_real(st, 9);
		row->stored[1] = col_real(st, 38);
		row->stored[2] = col_real(st, 39);
		row->stored[3] = col_real(st, 16);
		row->mean = sqlite3_column_double(st, 40);
		row->sd = sqlite3_column_double(st, 41);
		row->disputed = sqlite3_column_int64(st, 42);
		row->confirmed = row->stored_confirmed = sqlite3_column_int(st, 43);
		snprintf(row->stored_best_id, sizeof row->stored_best_id, "%s", row->best_id);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int outlier_combo_row_open(struct dbconn *w, const struct combo_key *k, const char *id, long long first_at,
		   struct combo_row *row)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = outlier_combo_row_load(w, k, row)) != DB_OK || row->exists)
		return rc;
	if (!(st = outlier_combo_keyed(w, sql_co_new, k)))
		return DB_ERR;
	db_bind_text(st, 6, id);
	sqlite3_bind_int64(st, 7, first_at);
	if ((rc = outlier_step_all(st, NULL, &row->cid)) != DB_OK)
		return rc;
	row->exists = 1;
	snprintf(row->key_id, sizeof row->key_id, "%s", id);
	row->first_at = first_at;
	return DB_OK;
}

/* Sets one indexed figure of row cid (v NAN: NULL): the median with its
 * rank (typical.h), the best with its run id and rank, or another. */
static int set_figure(struct dbconn *w, const char *sql, long long cid, double v, const char *id,
		      int which, int confirmed)
{
	sqlite3_stmt *st = db_stmt(w, sql);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, cid);
	bind_real(st, 2, v);
	if (which == 0)
		bind_real(st, 3, isnan(v) ? NAN : typical_rank(v, confirmed));
	if (which == 3) {
		db_bind_text(st, 3, id && *id ? id : NULL);
		bind_real(st, 4, isnan(v) ? NAN : typical_rank(v, confirmed));
	}
	return outlier_step_all(st, NULL, NULL);
}

/* Whether row is confirmed (contract section 9): OUTLIER_CONFIRM_KEYS keys
 * count in its figures, from OUTLIER_CONFIRM_NETS networks unless the
 * network cap is lifted. */
static int confirmed_of(struct dbconn *w, const struct combo_row *row, int *confirmed)
{
	sqlite3_stmt *st;
	long long nets = 0;
	int rc;

	*confirmed = 0;
	if (row->t_keys < OUTLIER_CONFIRM_KEYS)
		return DB_OK;
	if (!netcap_keys()) {
		*confirmed = 1;
		return DB_OK;
	}
	if (!(st = db_stmt(w, sql_co_nets)))
		return DB_ERR;
	sqlite3_bind_int64(st, 1, row->cid);
	rc = outlier_step_all(st, NULL, &nets);
	*confirmed = nets > 0;      /* a second network: OUTLIER_CONFIRM_NETS */
	return rc;
}

/* Whether two stored figures differ (NAN is NULL). */
static int moved(double a, double b)
{
	return isnan(a) != isnan(b) || (!isnan(a) && a != b);
}

int outlier_combo_row_store(struct dbconn *w, const struct combo_key *k, struct combo_row *row)
{
	static const char *const sets[3] = { sql_co_med, sql_co_pre, sql_co_ttft };
	unsigned char sb[16], qb[32];
	double v[4];
	const char *best;
	sqlite3_stmt *st;
	int i, rc, confirmed;

	(void)k;
	if (!row->exists)
		return DB_OK;
	if (row->runs <= 0) {
		if (!(st = db_stmt(w, sql_co_drop)))
			return DB_ERR;
		sqlite3_bind_int64(st, 1, row->cid);
		return outlier_step_all(st, NULL, NULL);
	}
	if ((rc = confirmed_of(w, row, &confirmed)) != DB_OK)
		return rc;
	row->confirmed = confirmed;
	if (!(st = db_stmt(w, sql_co_set)))
		return DB_ERR;
	outlier_fig_blobs(&row->f, sb, qb);
	sqlite3_bind_int64(st, 1, row->cid);
	sqlite3_bind_int64(st, 2, row->runs);
	sqlite3_bind_int64(st, 3, row->f.n);
	sqlite3_bind_blob(st, 4, sb, sizeof sb, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 5, qb, sizeof qb, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, row->t_runs);
	sqlite3_bind_int64(st, 7, row->t_keys);
	bind_real(st, 8, row->t_keys > 0 ? row->p25 : NAN);
	bind_real(st, 9, row->t_keys > 0 ? row->p75 : NAN);
	sqlite3_bind_int64(st, 10, row->pre_keys);
	bind_real(st, 11, row->pre_keys > 0 ? row->med_prefill : NAN);
	sqlite3_bind_int64(st, 12, row->ttft_keys);
	bind_real(st, 13, row->ttft_keys > 0 ? row->med_ttft : NAN);
	for (i = 0; i < 3; i++)
		hptr_bind(&row->q[i], row->t_keys > 0, st, 14 + 4 * i);
	hptr_bind(&row->pre, row->pre_keys > 0, st, 26);
	hptr_bind(&row->ttft, row->ttft_keys > 0, st, 30);
	sqlite3_bind_double(st, 34, row->mean);
	sqlite3_bind_double(st, 35, row->sd);
	sqlite3_bind_int(st, 36, confirmed);
	sqlite3_bind_int64(st, 37, row->disputed);
	if ((rc = outlier_step_all(st, NULL, NULL)) != DB_OK)
		return rc;
	sort_figures(row, v);
	for (i = 0; i < 3; i++)
		if ((moved(v[i], row->stored[i]) || (i == 0 && confirmed != row->stored_confirmed)) &&
		    (rc = set_figure(w, sets[i], row->cid, v[i], NULL, i, confirmed)) != DB_OK)
			return rc;
	best = row->t_runs > 0 ? row->best_id : "";
	if ((moved(v[3], row->stored[3]) || strcmp(best, row->stored_best_id) ||
	     confirmed != row->stored_confirmed) &&
	    (rc = set_figure(w, sql_co_best, row->cid, v[3], best, 3, confirmed)) != DB_OK)
		return rc;
	memcpy(row->stored, v, sizeof v);
	snprintf(row->stored_best_id, sizeof row->stored_best_id, "%s", best);
	row->stored_confirmed = confirmed;
	return DB_OK;
}

/* ---- combo_keys ---- */

int outlier_ckey_row_load(struct dbconn *w, long long cid, const char *key, struct ckey_row *row)
{
	sqlite3_stmt *st = db_stmt(w, sql_ck_get);
	int rc;

	memset(row, 0, sizeof *row);
	row->all.val = row->clean.val = row->pre_val = row->ttft_val = NAN;
	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, cid);
	db_bind_text(st, 2, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		row->exists = 1;
		outlier_mptr_read(&row->all, sqlite3_column_int64(st, 0), st, 1);
		outlier_mptr_read(&row->clean, sqlite3_column_int64(st, 4), st, 5);
		row->pre_runs = sqlite3_column_int64(st, 8);
		hptr_read(&row->pre, st, 9);
		row->pre_val = col_real(st, 13);
		row->ttft_runs = sqlite3_column_int64(st, 14);
		hptr_read(&row->ttft, st, 15);
		row->ttft_val = col_real(st, 19);
		if (sqlite3_column_text(st, 20))
			snprintf(row->net, sizeof row->net, "%s", (const char *)sqlite3_column_text(st, 20));
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int outlier_ckey_row_store(struct dbconn *w, long long cid, const char *key, const struct ckey_row *row)
{
	sqlite3_stmt *st = db_stmt(w, row->all.n > 0 ? sql_ck_put : sql_ck_drop);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, cid);
	db_bind_text(st, 2, key);
	if (row->all.n <= 0)
		return outlier_step_all(st, NULL, NULL);
	sqlite3_bind_int64(st, 7, row->all.n);
	outlier_mptr_bind(&row->all, st, 8);
	sqlite3_bind_int64(st, 11, row->clean.n);
	outlier_mptr_bind(&row->clean, st, 12);
	sqlite3_bind_int64(st, 15, row->pre_runs);
	hptr_bind(&row->pre, row->pre_runs > 1, st, 16);
	bind_real(st, 20, row->pre_runs > 0 ? row->pre_val : NAN);
	sqlite3_bind_int64(st, 21, row->ttft_runs);
	hptr_bind(&row->ttft, row->ttft_runs > 1, st, 22);
	bind_real(st, 26, row->ttft_runs > 0 ? row->ttft_val : NAN);
	db_bind_text(st, 27, row->net[0] ? row->net : NULL);
	return outlier_step_all(st, NULL, NULL);
}

int outlier_combo_key_move(struct dbconn *w, const struct combo_key *k, const char *key,
		   double x, const char *id, int sign, struct ckey_row *kr, struct combo_row *cr)
{
	struct mset s = { MSET_COMBO_ALL, NULL, k, key };
	int had = kr->all.n > 0, rc;
	double old = kr->all.val;

	rc = sign > 0 ? outlier_mset_added(w, &s, &kr->all, x, id) : outlier_mset_removed(w, &s, &kr->all, x, id);
	if (rc != DB_OK)
		return rc;
	outlier_fig_replace(&cr->f, had, old, kr->all.n > 0, kr->all.val);
	cr->runs += sign;
	return DB_OK;
}
