/* typical_hist.c: the fine buckets of the typical figures (combo_hist) and
 * the pointers that read quantiles from them.  A pointer names the bucket
 * that holds the quantile's rank, with the count of values below it and
 * in it (and their sum: a bucket stands for the mean of its values), so
 * one value entering or leaving moves it by one bucket at most:
 * one seek for the next non-empty bucket, whatever the number of values. */
#include "store/outlier_int.h"

#include "domain/quantile.h"

#define H_WHERE WHERE_COMBO " AND key_thumbprint = ?6 AND metric = ?7"
static const char sql_add[] =
	"INSERT INTO combo_hist VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9) "
	"ON CONFLICT DO UPDATE SET n = n + 1, sum = sum + excluded.sum RETURNING n, sum";
static const char sql_sub[] =
	"UPDATE combo_hist SET n = n - 1, sum = sum - ?9 WHERE " H_WHERE " AND bucket = ?8 RETURNING n, sum";
static const char sql_adjust[] =
	"UPDATE combo_hist SET sum = sum + ?9 WHERE " H_WHERE " AND bucket = ?8 RETURNING sum";
static const char sql_drop[] =
	"DELETE FROM combo_hist WHERE " H_WHERE " AND bucket = ?8";
static const char sql_above[] =
	"SELECT bucket, n, sum FROM combo_hist WHERE " H_WHERE " AND bucket > ?8 ORDER BY bucket LIMIT 1";
static const char sql_below[] =
	"SELECT bucket, n, sum FROM combo_hist WHERE " H_WHERE " AND bucket < ?8 ORDER BY bucket DESC LIMIT 1";

const char *const typical_hist_sql[] = { sql_add, sql_sub, sql_adjust, sql_drop, sql_above,
	sql_below, NULL };

static sqlite3_stmt *hist_stmt(struct dbconn *w, const char *sql, const struct hist *h, int b)
{
	sqlite3_stmt *st = combo_keyed(w, sql, h->k);

	if (st) {
		db_bind_text(st, 6, h->key);
		sqlite3_bind_int(st, 7, h->metric);
		sqlite3_bind_int(st, 8, b);
	}
	return st;
}

/* The nearest non-empty bucket above (dir 1) or below (−1) b. */
static int next_bucket(struct dbconn *w, const struct hist *h, int b, int dir, int *nb, long long *nn,
		       double *ns)
{
	sqlite3_stmt *st = hist_stmt(w, dir > 0 ? sql_above : sql_below, h, b);
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*nb = sqlite3_column_int(st, 0);
		*nn = sqlite3_column_int64(st, 1);
		*ns = sqlite3_column_double(st, 2);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return DB_ERR;        /* a pointer past the last value: they disagree */
	return rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

/* Bucket b gains (sign 1) or loses value v; *now and *sum get its new
 * count and sum. */
static int count_move(struct dbconn *w, const struct hist *h, int b, double v, int sign,
		      long long *now, double *sum)
{
	sqlite3_stmt *st = hist_stmt(w, sign > 0 ? sql_add : sql_sub, h, b);
	int rc;

	*now = 0;
	*sum = 0;
	if (!st)
		return DB_ERR;
	sqlite3_bind_double(st, 9, v);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*now = sqlite3_column_int64(st, 0);
		*sum = sqlite3_column_double(st, 1);
		rc = sqlite3_step(st);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	if (*now > 0)
		return DB_OK;
	if (!(st = hist_stmt(w, sql_drop, h, b)))
		return DB_ERR;
	return step_all(st, NULL, NULL);
}

/* Moves p to the bucket holding rank of total values after a change of
 * sign at bucket b, whose count is now bn. */
static int fix(struct dbconn *w, const struct hist *h, struct hptr *p, long long total, double q,
	       int b, int sign, long long bn, double bs)
{
	long long rank, guard;
	double frac, ns;
	int rc, nb;
	long long nn;

	if (total <= 0)
		return DB_OK;
	if (total == 1 && sign > 0) {      /* it was empty */
		p->b = b;
		p->below = 0;
		p->n = bn;
		p->sum = bs;
		return DB_OK;
	}
	if (b < p->b) {
		p->below += sign;
	} else if (b == p->b) {
		p->n = bn;
		p->sum = bs;
	}
	quantile_position(q, total, &rank, &frac);
	for (guard = 0; guard < 4; guard++) {
		if (rank < p->below) {
			if ((rc = next_bucket(w, h, p->b, -1, &nb, &nn, &ns)) != DB_OK)
				return rc;
			p->b = nb;
			p->n = nn;
			p->sum = ns;
			p->below -= nn;
		} else if (rank >= p->below + p->n) {
			if ((rc = next_bucket(w, h, p->b, 1, &nb, &nn, &ns)) != DB_OK)
				return rc;
			p->below += p->n;
			p->b = nb;
			p->n = nn;
			p->sum = ns;
		} else {
			return DB_OK;
		}
	}
	return DB_ERR;    /* one change moves a rank by one bucket at most, two when one empties */
}

int hist_move(struct dbconn *w, const struct hist *h, double v, int sign, long long total,
	      struct hptr *p, const double *qs, int np)
{
	int b = quantile_bucket(v), rc, i;
	long long now;
	double sum;

	rc = count_move(w, h, b, v, sign, &now, &sum);
	for (i = 0; rc == DB_OK && i < np; i++)
		rc = fix(w, h, &p[i], total, qs[i], b, sign, now, sum);
	return rc;
}

int hist_adjust(struct dbconn *w, const struct hist *h, double old, double now,
		struct hptr *p, int np)
{
	sqlite3_stmt *st = hist_stmt(w, sql_adjust, h, quantile_bucket(old));
	double sum = 0;
	int rc, i;

	if (!st)
		return DB_ERR;
	sqlite3_bind_double(st, 9, now - old);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		sum = sqlite3_column_double(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? DB_ERR : db_status_of(rc);
	for (i = 0; i < np; i++)
		if (p[i].b == quantile_bucket(old))
			p[i].sum = sum;
	return DB_OK;
}

int hist_value(struct dbconn *w, const struct hist *h, const struct hptr *p, long long total,
	       double q, double *v)
{
	long long rank, nn;
	double frac, lo, ns;
	int nb, rc;

	if (total <= 0)
		return DB_ERR;
	quantile_position(q, total, &rank, &frac);
	lo = quantile_bucket_value(p->b, p->n, p->sum);
	if (frac <= 0 || rank + 1 < p->below + p->n) {
		*v = lo;
		return DB_OK;
	}
	if ((rc = next_bucket(w, h, p->b, 1, &nb, &nn, &ns)) != DB_OK)
		return rc;
	*v = quantile_mix(lo, quantile_bucket_value(nb, nn, ns), frac);
	return DB_OK;
}
