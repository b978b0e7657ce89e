/* outlier_backfill.c: fills the figures of clusters migrated without their
 * sums, at start-up, a few hundred clusters per transaction. */
#include "store/outlier_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char sql_has_sums[] =
	"SELECT count(*) FROM pragma_table_info('clusters') WHERE name = 'sum_q'";
static const char sql_pending_count[] = "SELECT count(*) FROM clusters WHERE sum_q IS NULL";
static const char sql_pending[] =
	"SELECT suite_version, model_digest, hw_class, backend_name FROM clusters "
	"WHERE sum_q IS NULL LIMIT 256";

#define BATCH 256

/* Recomputes up to BATCH pending clusters in one transaction; *done gets
 * how many. */
static int backfill_batch(struct dbconn *w, long *done)
{
	sqlite3_stmt *st = db_stmt(w, sql_pending);
	char *col[BATCH][4];
	long n = 0, i;
	int rc, j;

	*done = 0;
	if (!st)
		return DB_ERR;
	memset(col, 0, sizeof col);
	while (n < BATCH && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (j = 0; j < 4; j++)
			col[n][j] = strdup((const char *)sqlite3_column_text(st, j));
		n++;
	}
	sqlite3_reset(st);
	rc = sqlite3_exec(w->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? DB_OK : DB_ERR;
	for (i = 0; i < n && rc == DB_OK; i++) {
		struct cluster_key k = { col[i][0], col[i][1], col[i][2], col[i][3] };

		rc = k.suite && k.digest && k.hw_class && k.backend ? outlier_recompute(w, &k, NULL) : DB_ERR;
	}
	if (rc == DB_OK && sqlite3_exec(w->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = DB_ERR;
	if (rc != DB_OK)
		sqlite3_exec(w->h, "ROLLBACK", NULL, NULL, NULL);
	for (i = 0; i < n; i++)
		for (j = 0; j < 4; j++)
			free(col[i][j]);
	*done = n;
	return rc;
}

int outlier_backfill(struct dbconn *w, char *err, size_t errlen)
{
	sqlite3_stmt *st = db_stmt(w, sql_pending_count);
	long long total = 0, has = 0;
	long done = 0, n;
	time_t last = 0;
	int rc;

	if (!st || step_all(db_stmt(w, sql_has_sums), NULL, &has) != DB_OK || !has)
		return DB_OK;           /* before migration 0006 (tests of older schemas) */
	if ((rc = step_all(st, NULL, &total)) != DB_OK) {
		snprintf(err, errlen, "cannot count the clusters to fill: %s", sqlite3_errmsg(w->h));
		return DB_ERR;
	}
	if (!total)
		return DB_OK;
	fprintf(stderr, "llm-speedd: filling the figures of %lld outlier clusters\n", total);
	do {
		if ((rc = backfill_batch(w, &n)) != DB_OK) {
			snprintf(err, errlen, "cannot fill cluster figures: %s", sqlite3_errmsg(w->h));
			return rc;
		}
		done += n;
		if (n && time(NULL) != last) {
			last = time(NULL);
			fprintf(stderr, "llm-speedd: cluster figures %ld/%lld\n", done, total);
		}
	} while (n > 0);
	fprintf(stderr, "llm-speedd: cluster figures done (%ld clusters)\n", done);
	return DB_OK;
}
