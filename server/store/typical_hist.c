/* typical_hist.c: the fine buckets of the typical figures (combo_hist) and
 * the pointers that read quantiles from them.  A pointer names the bucket
 * that holds the quantile's rank, with the count of values below it and
 * in it (and their sum: a bucket stands for the mean of its values), so
 * one value entering or leaving moves it by one bucket at most:
 * one seek for the next non-empty bucket, whatever the number of values. */
#include "store/outlier_int.h"

#include "domain/quantile.h"

/* A key's buckets (key_hist: few rows per key) and a combination's
 * (combo_hist, one integer key per bucket: typical_hist_id(), so an upload's
 * bucket writes are rowid seeks).  Each statement in the two forms:
 * [0] key_hist with ?1 cid, ?2 key, ?3 metric, ?4 bucket, ?5 the value;
 * [1] combo_hist with ?1 the bucket's id, ?2 the value, ?3 the end of
 * the histogram's ids (the other side of a range). */
#define K_WHERE "cid = ?1 AND key_thumbprint = ?2 AND metric = ?3"
/* (No RETURNING: SQLite buffers its rows in a temporary table, which
 * costs more here than reading the row first.) */
static const char sql_get_key[] =
	"SELECT n, sum FROM key_hist WHERE " K_WHERE " AND bucket = ?4";
static const char sql_get_combo[] =
	"SELECT n, sum FROM combo_hist WHERE hid = ?1";
static const char *const sql_get[2] = { sql_get_key, sql_get_combo };
static const char sql_new_key[] =
	"INSERT INTO key_hist VALUES (?1, ?2, ?3, ?4, 1, ?5)";
static const char sql_new_combo[] =
	"INSERT INTO combo_hist VALUES (?1, 1, ?2)";
static const char *const sql_new[2] = { sql_new_key, sql_new_combo };
/* A bucket's new count (key_hist ?6, combo_hist ?4) and sum (?5, ?2). */
static const char sql_put_key[] =
	"UPDATE key_hist SET n = ?6, sum = ?5 WHERE " K_WHERE " AND bucket = ?4";
static const char sql_put_combo[] =
	"UPDATE combo_hist SET n = ?4, sum = ?2 WHERE hid = ?1";
static const char *const sql_put[2] = { sql_put_key, sql_put_combo };
static const char sql_drop_key[] =
	"DELETE FROM key_hist WHERE " K_WHERE " AND bucket = ?4";
static const char sql_drop_combo[] =
	"DELETE FROM combo_hist WHERE hid = ?1";
static const char *const sql_drop[2] = { sql_drop_key, sql_drop_combo };
static const char sql_above_key[] =
	"SELECT bucket, n, sum FROM key_hist WHERE " K_WHERE " AND bucket > ?4 ORDER BY bucket LIMIT 1";
static const char sql_above_combo[] =
	"SELECT hid, n, sum FROM combo_hist WHERE hid > ?1 AND hid <= ?3 ORDER BY hid LIMIT 1";
static const char *const sql_above[2] = { sql_above_key, sql_above_combo };
static const char sql_below_key[] =
	"SELECT bucket, n, sum FROM key_hist WHERE " K_WHERE " AND bucket < ?4 ORDER BY bucket DESC LIMIT 1";
static const char sql_below_combo[] =
	"SELECT hid, n, sum FROM combo_hist WHERE hid < ?1 AND hid >= ?3 ORDER BY hid DESC LIMIT 1";
static const char *const sql_below[2] = { sql_below_key, sql_below_combo };

const char *const typical_hist_sql[] = { sql_get_key, sql_get_combo, sql_new_key, sql_new_combo, sql_put_key, sql_put_combo, sql_drop_key, sql_drop_combo, sql_above_key, sql_above_combo, sql_below_key, sql_below_combo, NULL };

long long typical_hist_id(long long cid, int metric, int b)
{
	return (cid * 4 + metric) * HIST_SPAN + b + HIST_OFFSET;
}

/* Prepares one of the two forms of sql for bucket b of h, its value (or
 * step) bound. */
static sqlite3_stmt *hist_stmt(struct dbconn *w, const char *const sql[2], const struct hist *h,
			       int b, double v)
{
	int combo = !*h->key;
	sqlite3_stmt *st = db_stmt(w, sql[combo]);

	if (!st)
		return NULL;
	if (combo) {
		sqlite3_bind_int64(st, 1, typical_hist_id(h->cid, h->metric, b));
		sqlite3_bind_double(st, 2, v);
		sqlite3_bind_int64(st, 3, typical_hist_id(h->cid, h->metric, QUANTILE_ZERO_BUCKET));
		return st;
	}
	sqlite3_bind_int64(st, 1, h->cid);
	db_bind_text(st, 2, h->key);
	sqlite3_bind_int(st, 3, h->metric);
	sqlite3_bind_int(st, 4, b);
	sqlite3_bind_double(st, 5, v);
	return st;
}

/* The nearest non-empty bucket above (dir 1) or below (−1) b. */
static int next_bucket(struct dbconn *w, const struct hist *h, int b, int dir, int *nb, long long *nn,
		       double *ns)
{
	sqlite3_stmt *st = hist_stmt(w, dir > 0 ? sql_above : sql_below, h, b, 0);
	int rc;

	if (!st)
		return DB_ERR;
	if (!*h->key && dir > 0)   /* the other end of the histogram's ids */
		sqlite3_bind_int64(st, 3, typical_hist_id(h->cid, h->metric, HIST_SPAN - 1 - HIST_OFFSET));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*nb = *h->key ? sqlite3_column_int(st, 0)
			      : (int)(sqlite3_column_int64(st, 0) - typical_hist_id(h->cid, h->metric, 0));
		*nn = sqlite3_column_int64(st, 1);
		*ns = sqlite3_column_double(st, 2);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return DB_ERR;        /* a pointer past the last value: they disagree */
	return rc == SQLITE_ROW ? DB_OK : db_status_of(rc);
}

/* Bucket b's count and sum (0, 0 when it is empty). */
static int bucket_get(struct dbconn *w, const struct hist *h, int b, long long *n, double *sum)
{
	sqlite3_stmt *st = hist_stmt(w, sql_get, h, b, 0);
	int rc;

	*n = 0;
	*sum = 0;
	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		*sum = sqlite3_column_double(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Writes bucket b as count n and sum (had: it had a row); drops it at 0. */
static int bucket_put(struct dbconn *w, const struct hist *h, int b, int had, long long n, double sum)
{
	sqlite3_stmt *st = hist_stmt(w, n <= 0 ? sql_drop : had ? sql_put : sql_new, h, b, sum);

	if (!st)
		return DB_ERR;
	if (n > 0 && had)
		sqlite3_bind_int64(st, *h->key ? 6 : 4, n);
	return outlier_step_all(st, NULL, NULL);
}

/* Bucket b gains (sign 1) or loses value v; *now and *sum get its new
 * count and sum. */
static int count_move(struct dbconn *w, const struct hist *h, int b, double v, int sign,
		      long long *now, double *sum)
{
	long long n;
	double s;
	int rc;

	if ((rc = bucket_get(w, h, b, &n, &s)) != DB_OK)
		return rc;
	if (sign < 0 && n <= 0)
		return DB_ERR;          /* a value leaving a bucket that does not hold it */
	*now = n + sign;
	*sum = *now > 0 ? s + sign * v : 0;
	return bucket_put(w, h, b, n > 0, *now, *sum);
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

int typical_hist_move(struct dbconn *w, const struct hist *h, double v, int sign, long long total,
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

int typical_hist_adjust(struct dbconn *w, const struct hist *h, double old, double now,
		struct hptr *p, int np)
{
	int b = quantile_bucket(old), rc, i;
	long long n;
	double sum;

	if ((rc = bucket_get(w, h, b, &n, &sum)) != DB_OK)
		return rc;
	if (n <= 0)
		return DB_ERR;
	sum += now - old;
	if ((rc = bucket_put(w, h, b, 1, n, sum)) != DB_OK)
		return rc;
	for (i = 0; i < np; i++)
		if (p[i].b == b)
			p[i].sum = sum;
	return DB_OK;
}

int typical_hist_value(struct dbconn *w, const struct hist *h, const struct hptr *p, long long total,
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
