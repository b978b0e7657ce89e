/* outlier_median.c: the exact median of one key's runs in a cluster or a
 * combination, kept as a pointer to the lower middle run in an index
 * ordered by (decode, id).  A run joining or leaving the set moves the
 * middle by one place at most: one seek for the neighbour, and one more
 * for the upper middle when the count is even.  No pass over the key's
 * runs, however many it has. */
#include "store/outlier_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The neighbours of (?x, ?id) in one key's runs: the greatest below
 * (pred) and the least above (succ). */
#define C_SET "SELECT decode_tok_s, id FROM runs WHERE " WHERE_KEY " AND key_thumbprint = ?5 " \
	"AND status = 'ok' AND flag_bits < 4 AND (decode_tok_s, id) "
static const char sql_c_pred[] = C_SET "< (?6, ?7) ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
static const char sql_c_succ[] = C_SET "> (?6, ?7) ORDER BY decode_tok_s, id LIMIT 1";
#define W_SET(flag) "SELECT decode_tok_s, id FROM runs WHERE " WHERE_COMBO \
	" AND key_thumbprint = ?6 AND outlier = " flag " AND status = 'ok' AND flag_bits < 4 AND (decode_tok_s, id) "
static const char sql_w0_pred[] = W_SET("0") "< (?7, ?8) ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
static const char sql_w0_succ[] = W_SET("0") "> (?7, ?8) ORDER BY decode_tok_s, id LIMIT 1";
static const char sql_w1_pred[] = W_SET("1") "< (?7, ?8) ORDER BY decode_tok_s DESC, id DESC LIMIT 1";
static const char sql_w1_succ[] = W_SET("1") "> (?7, ?8) ORDER BY decode_tok_s, id LIMIT 1";

const char *const outlier_median_sql[] = {
	sql_c_pred, sql_c_succ, sql_w0_pred, sql_w0_succ, sql_w1_pred, sql_w1_succ, NULL
};

/* -1, 0, 1 as (xa, ida) is below, at or above (xb, idb). */
static int cmp(double xa, const char *ida, double xb, const char *idb)
{
	if (xa != xb)
		return xa < xb ? -1 : 1;
	return strcmp(ida, idb) < 0 ? -1 : strcmp(ida, idb) > 0;
}

/* One sub-range's neighbour of (x, id) in direction dir (−1 pred, 1 succ). */
static int probe(struct dbconn *w, const struct mset *s, const char *sql, int dir,
		 double x, const char *id, int *found, double *nx, char nid[16])
{
	sqlite3_stmt *st;
	int rc, at;

	if (s->kind == MSET_CLUSTER) {
		st = outlier_keyed(w, sql, s->c);
		at = 6;
	} else {
		st = outlier_combo_keyed(w, sql, s->k);
		at = 7;
	}
	if (!st)
		return DB_ERR;
	db_bind_text(st, at - 1, s->key);
	sqlite3_bind_double(st, at, x);
	db_bind_text(st, at + 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		double v = sqlite3_column_double(st, 0);
		const char *vid = (const char *)sqlite3_column_text(st, 1);

		if (vid && (!*found || cmp(v, vid, *nx, nid) == dir * -1)) {
			*nx = v;
			snprintf(nid, 16, "%s", vid);
			*found = 1;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* The neighbour of (x, id) in s in direction dir: the nearer of the
 * sub-ranges' (a combination's counted runs are its unflagged and its
 * flagged ones, two ranges of runs_combo_key).  *found 0 when none. */
static int neighbour(struct dbconn *w, const struct mset *s, int dir, double x, const char *id,
		     int *found, double *nx, char nid[16])
{
	int rc;

	*found = 0;
	switch (s->kind) {
	case MSET_CLUSTER:
		return probe(w, s, dir < 0 ? sql_c_pred : sql_c_succ, dir, x, id, found, nx, nid);
	case MSET_COMBO_CLEAN:
		return probe(w, s, dir < 0 ? sql_w0_pred : sql_w0_succ, dir, x, id, found, nx, nid);
	default:
		rc = probe(w, s, dir < 0 ? sql_w0_pred : sql_w0_succ, dir, x, id, found, nx, nid);
		return rc == DB_OK ? probe(w, s, dir < 0 ? sql_w1_pred : sql_w1_succ, dir, x, id,
					   found, nx, nid) : rc;
	}
}

/* Moves p to its neighbour in direction dir (one must exist). */
static int step(struct dbconn *w, const struct mset *s, struct mptr *p, int dir)
{
	double nx;
	char nid[16];
	int found, rc = neighbour(w, s, dir, p->x, p->id, &found, &nx, nid);

	if (rc != DB_OK)
		return rc;
	if (!found)
		return DB_ERR;        /* the pointer and the index disagree */
	p->x = nx;
	memcpy(p->id, nid, sizeof p->id);
	return DB_OK;
}

/* p's median: its run for an odd count, else the mean with the next. */
static int value(struct dbconn *w, const struct mset *s, struct mptr *p)
{
	double nx;
	char nid[16];
	int found, rc;

	if (p->n <= 0) {
		p->val = NAN;
		return DB_OK;
	}
	if (p->n % 2) {
		p->val = p->x;
		return DB_OK;
	}
	if ((rc = neighbour(w, s, 1, p->x, p->id, &found, &nx, nid)) != DB_OK)
		return rc;
	if (!found)
		return DB_ERR;
	p->val = (p->x + nx) / 2;
	return DB_OK;
}

int outlier_mset_added(struct dbconn *w, const struct mset *s, struct mptr *p, double x, const char *id)
{
	int rc = DB_OK;

	if (p->n <= 0) {
		p->n = 1;
		p->x = x;
		snprintf(p->id, sizeof p->id, "%s", id);
		p->val = x;
		return DB_OK;
	}
	/* Lower middle of n: rank (n - 1) / 2.  A run below it pushes it up a
	 * place, which an odd count must undo; one above leaves it, which an
	 * even count must follow. */
	if (cmp(x, id, p->x, p->id) < 0) {
		if (p->n % 2)
			rc = step(w, s, p, -1);
	} else if (p->n % 2 == 0) {
		rc = step(w, s, p, 1);
	}
	p->n++;
	return rc == DB_OK ? value(w, s, p) : rc;
}

int outlier_mset_removed(struct dbconn *w, const struct mset *s, struct mptr *p, double x, const char *id)
{
	int c = cmp(x, id, p->x, p->id), odd = (int)(p->n % 2), rc = DB_OK;
	double nx;
	char nid[16];
	int found;

	if (p->n <= 1) {
		p->n = 0;
		p->val = NAN;
		return DB_OK;
	}
	if (c == 0) {         /* the middle itself went: its neighbour takes its place */
		if ((rc = neighbour(w, s, odd ? -1 : 1, x, id, &found, &nx, nid)) != DB_OK)
			return rc;
		if (!found)
			return DB_ERR;
		p->x = nx;
		memcpy(p->id, nid, sizeof p->id);
	} else if (c < 0 && !odd) {
		rc = step(w, s, p, 1);
	} else if (c > 0 && odd) {
		rc = step(w, s, p, -1);
	}
	p->n--;
	return rc == DB_OK ? value(w, s, p) : rc;
}

void outlier_mptr_read(struct mptr *p, long long n, sqlite3_stmt *st, int i)
{
	const char *id = (const char *)sqlite3_column_text(st, i + 1);

	memset(p, 0, sizeof *p);
	p->n = n;
	p->val = NAN;
	if (n <= 0 || !id)
		return;
	p->x = sqlite3_column_double(st, i);
	snprintf(p->id, sizeof p->id, "%s", id);
	p->val = sqlite3_column_type(st, i + 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i + 2);
}

void outlier_mptr_bind(const struct mptr *p, sqlite3_stmt *st, int i)
{
	if (p->n <= 0) {
		sqlite3_bind_null(st, i);
		sqlite3_bind_null(st, i + 1);
		sqlite3_bind_null(st, i + 2);
		return;
	}
	sqlite3_bind_double(st, i, p->x);
	db_bind_text(st, i + 1, p->id);
	sqlite3_bind_double(st, i + 2, p->val);
}
