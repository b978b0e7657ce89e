/* outlier.c: per-cluster statistics and 3-sigma outlier flags. */
#include "outlier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char sql_members[] =
	"SELECT id, decode_tok_s, outlier, status FROM runs "
	"WHERE suite_version = ? AND model_digest = ? AND hw_class = ? AND backend_name = ?";
static const char sql_flag[] = "UPDATE runs SET outlier = ? WHERE id = ?";
static const char sql_upsert[] =
	"INSERT INTO clusters(suite_version, model_digest, hw_class, backend_name, n, mean, stddev) "
	"VALUES (?, ?, ?, ?, ?, ?, ?) "
	"ON CONFLICT(suite_version, model_digest, hw_class, backend_name) "
	"DO UPDATE SET n = excluded.n, mean = excluded.mean, stddev = excluded.stddev";
static const char sql_drop[] =
	"DELETE FROM clusters WHERE suite_version = ? AND model_digest = ? AND hw_class = ? AND backend_name = ?";

int outlier_is_flagged(double x, double mean, double sd)
{
	return sd > 0 && fabs(x - mean) > 3.0 * sd;
}

struct member {
	char id[24];
	double x;
	int flagged, counted;
};

static void bind_key(sqlite3_stmt *st, const struct cluster_key *k)
{
	db_bind_text(st, 1, k->suite);
	db_bind_text(st, 2, k->digest);
	db_bind_text(st, 3, k->hw_class);
	db_bind_text(st, 4, k->backend);
}

/* Loads the cluster's runs into a malloc'd array; returns the count or -1. */
static long load(struct dbconn *w, const struct cluster_key *k, struct member **out)
{
	sqlite3_stmt *st = db_stmt(w, sql_members);
	struct member *m = NULL, *p;
	size_t n = 0, cap = 0;
	int rc;

	if (!st)
		return -1;
	bind_key(st, k);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *status = (const char *)sqlite3_column_text(st, 3);

		if (!id || !status)     /* out of memory: fail the write */
			goto fail;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			p = realloc(m, cap * sizeof *m);
			if (!p)
				goto fail;
			m = p;
		}
		snprintf(m[n].id, sizeof m[n].id, "%s", id);
		m[n].x = sqlite3_column_double(st, 1);
		m[n].flagged = sqlite3_column_int(st, 2);
		m[n].counted = !strcmp(status, "ok");
		n++;
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_reset(st);
	*out = m;
	return (long)n;
fail:
	sqlite3_reset(st);
	free(m);
	return -1;
}

/* Stores the cluster's figures, or removes the row when nothing counts. */
static int store_stats(struct dbconn *w, const struct cluster_key *k,
		       long n, double mean, double sd)
{
	sqlite3_stmt *st = db_stmt(w, n ? sql_upsert : sql_drop);
	int rc;

	if (!st)
		return DB_ERR;
	bind_key(st, k);
	if (n) {
		sqlite3_bind_int64(st, 5, n);
		sqlite3_bind_double(st, 6, mean);
		sqlite3_bind_double(st, 7, sd);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Writes a run's new flag. */
static int set_flag(struct dbconn *w, const char *id, int flagged)
{
	sqlite3_stmt *st = db_stmt(w, sql_flag);
	int rc;

	if (!st)
		return DB_ERR;
	sqlite3_bind_int(st, 1, flagged);
	db_bind_text(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int outlier_recompute(struct dbconn *w, const struct cluster_key *k, json_t *ids)
{
	struct member *m = NULL;
	double sum = 0, ss = 0, mean = 0, sd = 0;
	long n, i, counted = 0;
	int rc = DB_OK;

	n = load(w, k, &m);
	if (n < 0)
		return DB_ERR;
	for (i = 0; i < n; i++)
		if (m[i].counted) {
			sum += m[i].x;
			counted++;
		}
	if (counted) {
		mean = sum / (double)counted;
		for (i = 0; i < n; i++)
			if (m[i].counted)
				ss += (m[i].x - mean) * (m[i].x - mean);
		sd = sqrt(ss / (double)counted);
	}
	rc = store_stats(w, k, counted, mean, sd);
	for (i = 0; rc == DB_OK && i < n; i++) {
		int f = m[i].counted && outlier_is_flagged(m[i].x, mean, sd);
		if (f != m[i].flagged)
			rc = set_flag(w, m[i].id, f);
		if (json_is_array(ids))
			json_array_append_new(ids, json_string(m[i].id));
	}
	free(m);
	return rc;
}
