/* outlier.c: per-cluster statistics and 3-sigma outlier flags, kept incrementally.
 * One cohesive thing (the running sums, their repair and the flags they
 * decide must agree), so it is one file past the usual 600 lines. */
#include "store/outlier.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http/cache.h"
#include "util/log.h"
#include "util/timefmt.h"

/*
 * Numerical soundness.  A cluster keeps n, S = Σq and Q = Σq² of its
 * counted runs, where q = round(x · 10^9) is the decode rate x in decimal
 * fixed point (resolution 1e-9 tok/s, so a rate sent with up to nine
 * decimals, as clients send them, is held exactly), clamped to
 * |q| <= 2^62 (|x| <= 4.6e9 tok/s).  S is
 * a 128-bit and Q a 256-bit integer, so adding and removing runs is exact
 * and order-independent: after any sequence of inserts, upholds and
 * dismissals the sums equal those of a fresh pass over the runs, with no
 * drift.  The spread is D = n·Q − S² = n² · (population variance), also
 * computed exactly in 256 bits (it cannot be negative), so there is no
 * cancellation however large the mean is against the spread; the only
 * roundings are the final conversions of S/n and D/n² to long double and
 * of the results to double (relative error about 1e-16).
 *
 * Compared with an exact two-pass computation over the unrounded values,
 * the mean and standard deviation differ by at most the quantization,
 * 0.5e-9 tok/s each, plus that final rounding; so a flag can differ only
 * for a run within 2e-9 + 1e-12 · (|mean| + 3σ) tok/s of a bound.
 *
 * The flag itself compares the run's real value with the bounds
 * lo = mean − 3σ and hi = mean + 3σ (doubles): flagged when x < lo or
 * x > hi.  A run at exactly 3σ is not flagged (the contract says "more
 * than").  When σ = 0 (every counted value equal after quantization, or one
 * run) nothing is flagged: there is no spread to stand out from.
 */

#define MAXQ ((int64_t)1 << 62)

typedef unsigned __int128 u128;

/* A 256-bit unsigned integer, least significant limb first. */
struct u256 {
	uint64_t w[4];
};

/* The figures kept in a cluster's row. */
struct fig {
	long long n;
	__int128 s;
	struct u256 qq;
	long long keys, new_keys;
};

/* ---- 256-bit arithmetic (only what the sums need) ---- */

static struct u256 u256_of(u128 v)
{
	return (struct u256){ { (uint64_t)v, (uint64_t)(v >> 64), 0, 0 } };
}

static struct u256 u256_add(struct u256 a, struct u256 b)
{
	struct u256 r;
	u128 c = 0;
	int i;

	for (i = 0; i < 4; i++) {
		c += (u128)a.w[i] + b.w[i];
		r.w[i] = (uint64_t)c;
		c >>= 64;
	}
	return r;
}

/* a − b modulo 2^256; *borrow is set when b > a. */
static struct u256 u256_sub(struct u256 a, struct u256 b, int *borrow)
{
	struct u256 r;
	uint64_t br = 0;
	int i;

	for (i = 0; i < 4; i++) {
		u128 d = (u128)a.w[i] - b.w[i] - br;
		r.w[i] = (uint64_t)d;
		br = (uint64_t)(d >> 64) ? 1 : 0;
	}
	*borrow = (int)br;
	return r;
}

/* a · m modulo 2^256. */
static struct u256 u256_mul64(struct u256 a, uint64_t m)
{
	struct u256 r;
	u128 c = 0;
	int i;

	for (i = 0; i < 4; i++) {
		c += (u128)a.w[i] * m;
		r.w[i] = (uint64_t)c;
		c >>= 64;
	}
	return r;
}

/* v², exactly. */
static struct u256 u256_sq(u128 v)
{
	uint64_t h = (uint64_t)(v >> 64), l = (uint64_t)v;
	struct u256 r = u256_of((u128)l * l), hl = u256_of((u128)h * l), hh = u256_of((u128)h * h);

	hl = u256_add(hl, hl);                                    /* 2hl < 2^129 */
	r = u256_add(r, (struct u256){ { 0, hl.w[0], hl.w[1], hl.w[2] } });
	return u256_add(r, (struct u256){ { 0, 0, hh.w[0], hh.w[1] } });
}

static long double u256_ld(struct u256 a)
{
	return ldexpl((long double)a.w[3], 192) + ldexpl((long double)a.w[2], 128) +
	       ldexpl((long double)a.w[1], 64) + (long double)a.w[0];
}

static void be_put(unsigned char *p, const uint64_t *w, int limbs)
{
	int i, b;

	for (i = 0; i < limbs; i++)
		for (b = 0; b < 8; b++)
			p[(limbs - 1 - i) * 8 + (7 - b)] = (unsigned char)(w[i] >> (8 * b));
}

static void be_get(const unsigned char *p, uint64_t *w, int limbs)
{
	int i, b;

	for (i = 0; i < limbs; i++) {
		w[i] = 0;
		for (b = 0; b < 8; b++)
			w[i] |= (uint64_t)p[(limbs - 1 - i) * 8 + (7 - b)] << (8 * b);
	}
}

/* ---- the statistic ---- */

/* x in fixed point, clamped (see the comment at the top). */
static int64_t quantize(double x)
{
	long double s = x * OUTLIER_SCALE;

	if (isnan(s))
		return 0;
	if (s >= (long double)MAXQ)
		return MAXQ;
	if (s <= -(long double)MAXQ)
		return -MAXQ;
	return llroundl(s);
}

static u128 mag(__int128 v)
{
	return v < 0 ? -(u128)v : (u128)v;
}

/* Adds (sign 1) or removes (sign −1) value x. */
static void fig_move(struct fig *f, double x, int sign)
{
	int64_t q = quantize(x);
	struct u256 q2 = u256_sq(mag(q));
	int borrow;

	f->n += sign;
	f->s += sign > 0 ? (__int128)q : -(__int128)q;
	f->qq = sign > 0 ? u256_add(f->qq, q2) : u256_sub(f->qq, q2, &borrow);
}

/* Mean and population standard deviation from the exact sums, and the
 * bounds outside which a run is flagged (infinite when σ = 0). */
static void moments(const struct fig *f, double *mean, double *sd, double *lo, double *hi)
{
	struct u256 d;
	long double nn = (long double)f->n, var;
	int borrow = 0;

	*mean = *sd = 0;
	*lo = -INFINITY;
	*hi = INFINITY;
	if (f->n <= 0)
		return;
	d = u256_sub(u256_mul64(f->qq, (uint64_t)f->n), u256_sq(mag(f->s)), &borrow);
	var = borrow ? 0 : u256_ld(d) / (nn * nn);     /* borrow: impossible, n·Q >= S² */
	*mean = (double)((long double)f->s / nn / OUTLIER_SCALE);
	*sd = (double)(sqrtl(var) / OUTLIER_SCALE);
	if (*sd > 0) {
		*lo = *mean - 3.0 * *sd;
		*hi = *mean + 3.0 * *sd;
	}
}

int outlier_is_flagged(double x, double mean, double sd)
{
	return sd > 0 && (x < mean - 3.0 * sd || x > mean + 3.0 * sd);
}

/* ---- SQL ---- */

#define WHERE_KEY "suite_version = ?1 AND model_digest = ?2 AND hw_class = ?3 AND backend_name = ?4"

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
static int step_all(sqlite3_stmt *st, json_t *ids, long long *last)
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
static sqlite3_stmt *keyed(struct dbconn *w, const char *sql, const struct cluster_key *k)
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
static int key_count(struct dbconn *w, const char *key, int sign, unsigned *tag)
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
static int cluster_key_move(struct dbconn *w, const struct cluster_key *k, const char *key,
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

/* ---- backfill ---- */

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
