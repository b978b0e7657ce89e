/* outlier_backfill.c: the start-up fill after migration 0020 (and the
 * ceiling flags when the reference data changed), in steps that each pick
 * up where a stopped start left them: the clusters' key figures, the
 * combinations' key figures, every run's verdicts and flag, the typical
 * figures, the models' and hardware's leaders, the ceiling verdicts. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "domain/ceiling.h"
#include "util/log.h"
#include "util/sha256.h"

static const char sql_has_0020[] =
	"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'stats_state'";
static const char sql_c_pending[] =
	"SELECT suite_version, model_digest, hw_class, backend_name FROM clusters "
	"WHERE sum_q IS NULL LIMIT 256";
static const char sql_c_count[] = "SELECT count(*) FROM clusters WHERE sum_q IS NULL";
static const char sql_w_pending[] =
	"SELECT suite_version, model_slug, model_digest, hw_slug, backend_name FROM combos "
	"WHERE filled < 2 AND filled = ?1 LIMIT 256";
static const char sql_w_count[] = "SELECT count(*) FROM combos WHERE filled < 2 AND filled = ?1";
static const char sql_state_get[] = "SELECT value FROM stats_state WHERE name = ?";
static const char sql_state_put[] =
	"INSERT INTO stats_state VALUES (?1, ?2) ON CONFLICT DO UPDATE SET value = excluded.value";
/* The verdicts from scratch: clear them, set each population's, then the
 * flags they give. */
static const char sql_v_clear[] =
	"UPDATE runs SET flag_bits = flag_bits & 4 WHERE rowid IN (SELECT rowid FROM runs "
	"INDEXED BY runs_cluster_decode WHERE status = 'ok' AND (flag_bits & 3) <> 0)";
static const char sql_v_unflag[] = "UPDATE runs SET outlier = 0 WHERE outlier = 1";
static const char sql_v_clusters[] =
	"SELECT suite_version, model_digest, hw_class, backend_name, mean, stddev FROM clusters "
	"WHERE stddev > 0";
static const char sql_v_cluster_set[] =
	"UPDATE runs SET flag_bits = flag_bits | 1 WHERE rowid IN (SELECT rowid FROM runs WHERE "
	WHERE_KEY " AND status = 'ok' AND flag_bits < 4 AND (decode_tok_s < ?5 OR decode_tok_s > ?6))";
static const char sql_v_combos[] =
	"SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, mean, stddev "
	"FROM combos WHERE stddev > 0";
static const char sql_v_combo_set[] =
	"UPDATE runs SET flag_bits = flag_bits | 2 WHERE rowid IN (SELECT rowid FROM runs WHERE "
	WHERE_COMBO " AND status = 'ok' AND flag_bits < 4 AND (decode_tok_s < ?6 OR decode_tok_s > ?7))";
static const char sql_v_flags[] =
	"UPDATE runs SET outlier = 1 WHERE rowid IN (SELECT r.rowid FROM runs r "
	"INDEXED BY runs_cluster_decode JOIN clusters c ON c.suite_version = r.suite_version "
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class "
	"AND c.backend_name = r.backend_name WHERE r.status = 'ok' AND r.flag_bits <> 0 "
	"AND ((r.flag_bits & 6) OR (c.keys >= 11 AND (r.flag_bits & 1))))";
/* The ceiling verdicts: every counted run whose ceiling bit may differ. */
static const char sql_ceil_scan[] =
	"SELECT rowid, model_slug, hw_slug, decode_tok_s, flag_bits, marks FROM runs "
	"INDEXED BY runs_ok_model_hw_be WHERE status = 'ok'";
static const char sql_ceil_run[] =
	"SELECT model_quant, hw_bin, outlier, suite_version, model_digest, hw_class, "
	"backend_name FROM runs WHERE rowid = ?";
static const char sql_ceil_status[] = "UPDATE runs SET status = ?2 WHERE rowid = ?1";
static const char sql_ceil_bits[] = "UPDATE runs SET flag_bits = ?2 WHERE rowid = ?1";
/* outlier_rebuild_all: everything back to "not filled". */
static const char sql_reset[] =
	"DELETE FROM combo_hist; DELETE FROM key_hist; DELETE FROM combo_keys; DELETE FROM combos; "
	"INSERT INTO combos(suite_version, model_slug, model_digest, hw_slug, backend_name, key_id, "
	"first_at, filled) SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, "
	"min(id), 0, 0 FROM runs INDEXED BY runs_ok_model_hw_be WHERE status = 'ok' "
	"GROUP BY suite_version, model_slug, model_digest, hw_slug, backend_name; "
	"UPDATE combos SET first_at = (SELECT unixepoch(received_at) FROM runs WHERE id = combos.key_id); "
	"DELETE FROM clusters; "
	"INSERT INTO clusters(suite_version, model_digest, hw_class, backend_name, n, mean, stddev) "
	"SELECT DISTINCT suite_version, model_digest, hw_class, backend_name, 0, 0, 0 "
	"FROM runs INDEXED BY runs_cluster_decode WHERE status = 'ok'; "
	"DELETE FROM cluster_keys; "
	"INSERT OR REPLACE INTO stats_state VALUES ('flags', 'pending'), ('tops', 'pending')";

#define BATCH 256

static int exec(struct dbconn *w, const char *sql)
{
	return sqlite3_exec(w->h, sql, NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
}

/* Ends the step's savepoint (its own transaction at start-up, or part of
 * the caller's): kept when rc is DB_OK, undone otherwise. */
static int end(struct dbconn *w, int rc)
{
	if (rc == DB_OK)
		return exec(w, "RELEASE fill");
	exec(w, "ROLLBACK TO fill");
	exec(w, "RELEASE fill");
	return rc;
}

/* Runs fn over every row (up to BATCH) of pending, in one transaction;
 * *done gets how many.  Rows are text columns, ncol of them. */
static int batch(struct dbconn *w, sqlite3_stmt *st, int ncol,
		 int (*fn)(struct dbconn *, char **cols), long *done)
{
	char *col[BATCH][5];
	long n = 0, i;
	int rc, j;

	*done = 0;
	memset(col, 0, sizeof col);
	while (n < BATCH && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (j = 0; j < ncol; j++)
			col[n][j] = strdup((const char *)sqlite3_column_text(st, j));
		n++;
	}
	sqlite3_reset(st);
	rc = exec(w, "SAVEPOINT fill");
	for (i = 0; i < n && rc == DB_OK; i++) {
		for (j = 0; j < ncol; j++)
			if (!col[i][j])
				rc = DB_ERR;
		if (rc == DB_OK)
			rc = fn(w, col[i]);
	}
	rc = end(w, rc);
	for (i = 0; i < n; i++)
		for (j = 0; j < ncol; j++)
			free(col[i][j]);
	*done = n;
	return rc;
}

static int do_cluster(struct dbconn *w, char **c)
{
	struct cluster_key k = { c[0], c[1], c[2], c[3] };

	return outlier_cluster_rebuild(w, &k);
}

static int do_combo(struct dbconn *w, char **c)
{
	struct combo_key k = { c[0], c[1], c[2], c[3], c[4] };

	return outlier_combo_rebuild(w, &k);
}

static int do_typical(struct dbconn *w, char **c)
{
	struct combo_key k = { c[0], c[1], c[2], c[3], c[4] };

	return outlier_typical_rebuild(w, &k);
}

/* Repeats batches of one step until none is left, with progress. */
static int step_loop(struct dbconn *w, const char *what, const char *count_sql, const char *sql,
		     int filled, int ncol, int (*fn)(struct dbconn *, char **), int quiet)
{
	sqlite3_stmt *st = db_stmt(w, count_sql);
	long long total = 0;
	long done = 0, n;
	time_t last = 0;
	int rc;

	if (!st)
		return DB_ERR;
	if (filled >= 0)
		sqlite3_bind_int(st, 1, filled);
	if ((rc = outlier_step_all(st, NULL, &total)) != DB_OK || !total)
		return rc;
	if (!quiet)
		log_info("%s: %lld to fill", what, total);
	do {
		if (!(st = db_stmt(w, sql)))
			return DB_ERR;
		if (filled >= 0)
			sqlite3_bind_int(st, 1, filled);
		if ((rc = batch(w, st, ncol, fn, &n)) != DB_OK)
			return rc;
		done += n;
		if (!quiet && n && time(NULL) != last) {
			last = time(NULL);
			log_info("%s %ld/%lld", what, done, total);
		}
	} while (n > 0);
	return DB_OK;
}

static int state_is(struct dbconn *w, const char *name, const char *value)
{
	sqlite3_stmt *st = db_stmt(w, sql_state_get);
	int rc, is = 0;

	if (!st)
		return -1;
	db_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		is = value ? !strcmp((const char *)sqlite3_column_text(st, 0), value) : 1;
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? is : -1;
}

static int state_set(struct dbconn *w, const char *name, const char *value)
{
	sqlite3_stmt *st = db_stmt(w, sql_state_put);

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, value);
	return outlier_step_all(st, NULL, NULL);
}

/* Sets each population's verdicts where its bounds exclude a run. */
static int population_verdicts(struct dbconn *w, const char *list, const char *set, int nkey)
{
	sqlite3_stmt *st = db_stmt(w, list), *up;
	int rc, i;

	if (!st)
		return DB_ERR;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double mean = sqlite3_column_double(st, nkey), sd = sqlite3_column_double(st, nkey + 1);

		if (!(up = db_stmt(w, set))) {
			rc = SQLITE_ERROR;
			break;
		}
		for (i = 0; i < nkey; i++)
			db_bind_text(up, i + 1, (const char *)sqlite3_column_text(st, i));
		sqlite3_bind_double(up, nkey + 1, mean - 3.0 * sd);
		sqlite3_bind_double(up, nkey + 2, mean + 3.0 * sd);
		if (outlier_step_all(up, NULL, NULL) != DB_OK) {
			rc = SQLITE_ERROR;
			break;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Every verdict and flag from the populations' figures, in one
 * transaction. */
static int all_verdicts(struct dbconn *w)
{
	int rc = exec(w, "SAVEPOINT fill");

	if (rc == DB_OK)
		rc = exec(w, sql_v_clear);
	if (rc == DB_OK)
		rc = exec(w, sql_v_unflag);
	if (rc == DB_OK)
		rc = population_verdicts(w, sql_v_clusters, sql_v_cluster_set, 4);
	if (rc == DB_OK)
		rc = population_verdicts(w, sql_v_combos, sql_v_combo_set, 5);
	if (rc == DB_OK)
		rc = exec(w, sql_v_flags);
	if (rc == DB_OK)
		rc = state_set(w, "flags", "done");
	return end(w, rc);
	return rc;
}

/* Sets run rowid's status. */
static int ceil_status(struct dbconn *w, long long rowid, const char *status)
{
	sqlite3_stmt *st = db_stmt(w, sql_ceil_status);

	if (!st)
		return DB_ERR;
	sqlite3_bind_int64(st, 1, rowid);
	db_bind_text(st, 2, status);
	return outlier_step_all(st, NULL, NULL);
}

/* The ceiling verdict of every counted run against the reference data as
 * loaded now; flags move as they would on upload.  One transaction. */
static int ceiling_verdicts(struct dbconn *w, const char *hex, int quiet)
{
	sqlite3_stmt *st = db_stmt(w, sql_ceil_scan), *q;
	struct { long long rowid; int bits, marks; } *v = NULL, *grown;
	size_t n = 0, cap = 0, i;
	const char *heaviest = db_reference() && ceiling_format(db_reference(), "f32") ? "f32" : "fp16";
	int rc;

	if (!st)
		return DB_ERR;
	if ((rc = exec(w, "SAVEPOINT fill")) != DB_OK)
		return rc;
	/* Candidates: a ceiling bit or mark now, or a decode above the lowest
	 * peak ceiling the model could have there (the heaviest weights;
	 * tested exactly below). */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int bits = sqlite3_column_int(st, 4), marks = sqlite3_column_int(st, 5);
		double x = sqlite3_column_double(st, 3);

		if (!(bits & FLAG_CEILING) && !(marks & MARK_ABOVE_PEAK) &&
		    !outlier_above_peak((const char *)sqlite3_column_text(st, 1), heaviest,
					(const char *)sqlite3_column_text(st, 2), 0, x))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(grown = realloc(v, cap * sizeof *v))) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = grown;
		}
		v[n].rowid = sqlite3_column_int64(st, 0);
		v[n].marks = marks;
		v[n++].bits = bits;
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
	if (n && !quiet)
		log_info("judging %zu runs against their bandwidth ceiling anew", n);
	for (i = 0; rc == DB_OK && i < n; i++) {
		struct frun r;
		int now, peak;

		if ((rc = outlier_frun_load(w, v[i].rowid, NULL, &r)) != DB_OK || !(q = db_stmt(w, sql_ceil_run)))
			break;
		sqlite3_bind_int64(q, 1, v[i].rowid);
		if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
			sqlite3_reset(q);
			rc = DB_ERR;
			break;
		}
		now = outlier_above_ceiling(r.model, (const char *)sqlite3_column_text(q, 0),
					    r.hw, sqlite3_column_int(q, 1), r.x) ? FLAG_CEILING : 0;
		peak = outlier_above_peak(r.model, (const char *)sqlite3_column_text(q, 0),
					  r.hw, sqlite3_column_int(q, 1), r.x) ? MARK_ABOVE_PEAK : 0;
		sqlite3_reset(q);
		rc = DB_OK;
		if (peak != (v[i].marks & MARK_ABOVE_PEAK) &&
		    (rc = typical_marks_set(w, r.id, peak, MARK_ABOVE_PEAK & ~peak)) != DB_OK)
			break;
		if (now == (v[i].bits & FLAG_CEILING))
			continue;
		/* A run above its ceiling takes no part in any population: it
		 * leaves them all by the path a ruling takes, and comes back
		 * with its new verdict. */
		if ((rc = ceil_status(w, v[i].rowid, "upheld")) != DB_OK ||
		    (rc = outlier_run_status_changed(w, r.id, NULL)) != DB_OK)
			break;
		if (!(q = db_stmt(w, sql_ceil_bits)))
			break;
		sqlite3_bind_int64(q, 1, v[i].rowid);
		sqlite3_bind_int(q, 2, now);
		if ((rc = outlier_step_all(q, NULL, NULL)) != DB_OK ||
		    (rc = ceil_status(w, v[i].rowid, "ok")) != DB_OK)
			break;
		rc = outlier_run_status_changed(w, r.id, NULL);
	}
	free(v);
	if (rc == DB_OK)
		rc = state_set(w, "ceiling_ref", hex);
	return end(w, rc);
	return rc;
}

static int tops_step(struct dbconn *w)
{
	int rc = exec(w, "SAVEPOINT fill");

	if (rc == DB_OK)
		rc = typical_tops_all(w);
	if (rc == DB_OK)
		rc = state_set(w, "tops", "done");
	return end(w, rc);
	return rc;
}

/* Every step still to do; quiet: no progress lines. */
static int fill(struct dbconn *w, int quiet)
{
	unsigned char fp[32];
	char hex[65];
	int rc, i;

	if ((rc = step_loop(w, "cluster figures", sql_c_count, sql_c_pending, -1, 4, do_cluster, quiet)) != DB_OK ||
	    (rc = step_loop(w, "combination figures", sql_w_count, sql_w_pending, 0, 5, do_combo, quiet)) != DB_OK)
		return rc;
	if (state_is(w, "flags", "pending") == 1 && (rc = all_verdicts(w)) != DB_OK)
		return rc;
	if ((rc = step_loop(w, "typical figures", sql_w_count, sql_w_pending, 1, 5, do_typical, quiet)) != DB_OK)
		return rc;
	if (state_is(w, "tops", "pending") == 1 && (rc = tops_step(w)) != DB_OK)
		return rc;
	if (!db_reference())
		return DB_OK;
	ceiling_fingerprint(db_reference(), fp);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", fp[i]);
	if (state_is(w, "ceiling_ref", hex) == 1)
		return DB_OK;
	return ceiling_verdicts(w, hex, quiet);
}

int outlier_backfill(struct dbconn *w, struct err *err)
{
	long long has = 0;
	int rc;

	if (outlier_step_all(db_stmt(w, sql_has_0020), NULL, &has) != DB_OK || !has)
		return DB_OK;          /* before migration 0020 (tests of older schemas) */
	if ((rc = fill(w, 0)) != DB_OK)
		err_internal(err, "cannot fill the outlier and typical figures: %s",
			 sqlite3_errmsg(w->h));
	return rc;
}

int outlier_backfill_ceilings(struct dbconn *w, struct err *err)
{
	int rc = state_set(w, "ceiling_ref", "");

	if (rc == DB_OK)
		rc = fill(w, 0);
	if (rc != DB_OK)
		err_internal(err, "cannot judge the runs against their ceilings: %s",
			 sqlite3_errmsg(w->h));
	return rc;
}

int outlier_rebuild_all(struct dbconn *w)
{
	int rc = exec(w, "SAVEPOINT rebuild");

	if (rc == DB_OK)
		rc = exec(w, sql_reset);
	if (rc == DB_OK)
		rc = exec(w, "RELEASE rebuild");
	/* the ceiling verdicts are kept: they depend on the run alone */
	return rc == DB_OK ? fill(w, 1) : rc;
}
