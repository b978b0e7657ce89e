/* check_stats.h: what check_outlier.c and check_typical.c share: a
 * temporary database with the reference data loaded, runs stored the way
 * the writer stores them, rulings, and a model of every run that the
 * exact recomputation (check_exact) checks the stored flags, cluster and
 * combination figures, typical figures and leaders against, computed
 * from scratch here with none of the server's code. */
#ifndef LLMS_CHECK_STATS_H
#define LLMS_CHECK_STATS_H

#include <math.h>
#include <sodium.h>
#include <string.h>

#include "check_util.h"
#include "check_tmpdb.h"
#include "domain/ceiling.h"
#include "domain/quantile.h"
#include "store/db.h"
#include "store/outlier.h"
#include "util/log.h"

static struct tmpdb T;
static struct db *db;
static struct ceiling_ref *ref;

static inline void stats_setup(void)
{
	struct err err = ERR_INIT;
	char dir[1024];

	tmpdb_begin(&T, "check_stats");
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
	snprintf(dir, sizeof dir, "%s/static/reference", repo_root());
	ck_assert_ptr_nonnull(ref = ceiling_load(dir, &err));
	db_set_reference(ref);
	db = tmpdb_open(&T, NULL);
}

static inline void stats_teardown(void)
{
	db_close(db);
	db = NULL;
	db_set_reference(NULL);
	ceiling_free(ref);
	tmpdb_end(&T);
}

/* Runs fn(w, arg) as one job on the writer thread; returns its status. */
struct fn_job {
	struct db_job j;
	int (*fn)(struct dbconn *w, void *arg);
	void *arg;
};

static inline int fn_run(struct dbconn *w, struct db_job *j)
{
	struct fn_job *f = (struct fn_job *)j;
	return f->fn(w, f->arg);
}

static inline int in_writer(int (*fn)(struct dbconn *, void *), void *arg)
{
	struct fn_job f = { .j = { .run = fn_run }, .fn = fn, .arg = arg };
	return db_write(db, &f.j);
}

static inline int count_step(void *arg)
{
	(*(unsigned long *)arg)++;
	return 0;
}

/* Where a run is: its model, digest, hardware slug and class, backend and
 * quantization. */
struct place {
	const char *model, *digest, *hw, *hw_class, *backend, *quant;
};

#define S1 "suite-v1"
#define D1 "sha256:00112233445566778899aabbccddeeff"
#define D2 "sha256:ffeeddccbbaa99887766554433221100"

/* What the model knows of a run. */
struct mrun {
	char id[16], key[24];
	const struct place *p;
	double x, prefill, ttft;
	int ok, withdrawn;
};

/* ---- storing, as the writer does ---- */

static const char sql_insert[] =
	"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, model_quant, "
	"accelerator, hw_slug, hw_class, backend_name, backend_version, decode_tok_s, prefill_tok_s, "
	"ttft_ms, created_at, received_at, key_thumbprint, alg, payload, jws, jws_sha256) "
	"VALUES (?1, 'suite-v1', 'M', ?2, ?3, ?4, 'Acc', ?5, ?6, ?7, '1', ?8, ?9, ?10, "
	"'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', ?11, 'EdDSA', '{}', x'00', randomblob(32))";

struct add {
	const struct mrun *r;
	unsigned long vm_steps;   /* out: SQLite VM ticks of outlier_run_added */
	int flagged;              /* out: the run's flag after it */
};

static inline int add_run(struct dbconn *w, void *arg)
{
	struct add *a = arg;
	const struct mrun *r = a->r;
	sqlite3_stmt *st = db_stmt(w, sql_insert);
	json_t *ids = json_array();
	struct outlier_run o;
	size_t i;
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, r->id);
	db_bind_text(st, 2, r->p->model);
	db_bind_text(st, 3, r->p->digest);
	db_bind_text(st, 4, r->p->quant);
	db_bind_text(st, 5, r->p->hw);
	db_bind_text(st, 6, r->p->hw_class);
	db_bind_text(st, 7, r->p->backend);
	sqlite3_bind_double(st, 8, r->x);
	sqlite3_bind_double(st, 9, r->prefill);
	sqlite3_bind_double(st, 10, r->ttft);
	db_bind_text(st, 11, r->key);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	o = (struct outlier_run){ .id = r->id, .received_at = "2026-01-01T00:00:00Z",
		.c = { S1, r->p->digest, r->p->hw_class, r->p->backend },
		.k = { S1, r->p->model, r->p->digest, r->p->hw, r->p->backend },
		.key = r->key, .x = r->x, .prefill = r->prefill, .ttft = r->ttft,
		.quant = r->p->quant, .format = NULL };
	a->vm_steps = 0;
	sqlite3_progress_handler(w->h, 1, count_step, &a->vm_steps);
	rc = outlier_run_added(w, &o, ids, NULL);
	sqlite3_progress_handler(w->h, 0, NULL, NULL);
	a->flagged = 0;
	for (i = 0; i < json_array_size(ids); i++)
		a->flagged |= !strcmp(json_string_value(json_array_get(ids, i)), r->id);
	json_decref(ids);
	return rc;
}

/* Stores r; returns 1 when it came out flagged. */
static inline int store_run(const struct mrun *r)
{
	struct add a = { r, 0, 0 };

	ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
	return a.flagged;
}

struct status_change {
	const char *id, *status;
};

static inline int status_run(struct dbconn *w, void *arg)
{
	struct status_change *c = arg;
	sqlite3_stmt *st = db_stmt(w, "UPDATE runs SET status = ? WHERE id = ?");
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, c->status);
	db_bind_text(st, 2, c->id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	return outlier_run_status_changed(w, c->id, NULL);
}

static inline void set_status(const char *id, const char *status)
{
	struct status_change c = { id, status };
	ck_assert_int_eq(in_writer(status_run, &c), DB_OK);
}

static inline int rebuild_all(struct dbconn *w, void *arg)
{
	(void)arg;
	return outlier_rebuild_all(w);
}

/* ---- reading back, on a connection of our own ---- */

static inline sqlite3 *raw(void)
{
	sqlite3 *h = NULL;

	ck_assert_int_eq(sqlite3_open_v2(T.path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	return h;
}

/* The one number (or text, into out) of a query with text parameters. */
static inline double q1(sqlite3 *h, const char *sql, const char *const *args, int nargs, char *out, size_t n)
{
	sqlite3_stmt *st;
	double v = NAN;
	int i;

	ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	for (i = 0; i < nargs; i++)
		sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_TRANSIENT);
	if (out)
		out[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			v = sqlite3_column_double(st, 0);
		if (out && sqlite3_column_text(st, 0))
			snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return v;
}

static inline int flag_of(const char *id)
{
	sqlite3 *h = raw();
	double v = q1(h, "SELECT outlier FROM runs WHERE id = ?", &id, 1, NULL, 0);

	sqlite3_close(h);
	return (int)v;
}

/* ---- the exact figures, from scratch ---- */

static inline int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile q of n sorted values, linear between order statistics. */
static inline double quant_of(const double *v, int n, double q)
{
	double h = q * (n - 1);
	int i = (int)floor(h);

	return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* The median of the values (sorted here): the middle one, or the mean of
 * the two middle ones. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the exact check ---- */

/* The key values of one population: the exact median of each key's
 * counted runs in it (sel picks the population's runs), with its mean,
 * standard deviation (two-pass, long double), bounds and key count. */
struct xpop {
	int keys;
	long double mean, sd;
	double lo, hi;
};

static inline int same_cluster(const struct place *a, const struct place *b)
{
	return !strcmp(a->digest, b->digest) && !strcmp(a->hw_class, b->hw_class) &&
	       !strcmp(a->backend, b->backend);
}

static inline int same_combo(const struct place *a, const struct place *b)
{
	return !strcmp(a->model, b->model) && !strcmp(a->digest, b->digest) &&
	       !strcmp(a->hw, b->hw) && !strcmp(a->backend, b->backend);
}

static inline int ceiling_flagged(const struct mrun *r)
{
	return outlier_above_ceiling(r->p->model, r->p->quant, r->p->hw, 0, r->x);
}

/* A key value as the sums hold it: clamped to 2^62 / OUTLIER_SCALE (about
 * 4.6e9 tok/s; outlier_sums.c), though runs are compared by their own. */
static inline long double xclamp(double v)
{
	long double max = 4611686018427387904.0L / OUTLIER_SCALE;

	return v > max ? max : v < -max ? -max : v;
}

/* Mean, standard deviation (two-pass, long double) and bounds of the key
 * values not left out. */
static inline void xmoments(struct xpop *p, const double *vals, const char *out, int nk)
{
	long double sum = 0, ss = 0;
	int i, k = 0;

	p->mean = p->sd = 0;
	p->lo = -INFINITY;
	p->hi = INFINITY;
	for (i = 0; i < nk; i++)
		if (!out[i]) {
			sum += xclamp(vals[i]);
			k++;
		}
	if (!k)
		return;
	p->mean = sum / k;
	for (i = 0; i < nk; i++)
		if (!out[i])
			ss += (xclamp(vals[i]) - p->mean) * (xclamp(vals[i]) - p->mean);
	p->sd = sqrtl(ss / k);
	if (p->sd > 0) {
		p->lo = (double)(p->mean - 3 * p->sd);
		p->hi = (double)(p->mean + 3 * p->sd);
	}
}

/* pop's figures over the runs r with in(r, of) and ok (unflagged only, and
 * using flags, when clean), a run above its ceiling never among them:
 * each key's exact median, then sigma clipping (a key whose value and
 * every run lie outside the bounds leaves, and the bounds are computed
 * again, at most OUTLIER_CLIP_ROUNDS times).  keys counts every key. */
static inline struct xpop xpop_of(const struct mrun *m, int n, const struct place *of,
				  int (*in)(const struct place *, const struct place *),
				  const int *flags, int clean, double *vals, const char *only_key,
				  double *kval)
{
	struct xpop p = { 0, 0, 0, -INFINITY, INFINITY };
	double *xs = malloc(sizeof *xs * (size_t)(n ? n : 1));
	int *owner = malloc(sizeof *owner * (size_t)(n ? n : 1));
	char *out = calloc((size_t)(n ? n : 1), 1);
	int i, j, k, round, left;

	for (i = 0; i < n; i++) {
		owner[i] = -1;
		if (!m[i].ok || !in(m[i].p, of) || (clean && flags[i]) || ceiling_flagged(&m[i]))
			continue;
		for (j = 0; j < i; j++)
			if (owner[j] >= 0 && !strcmp(m[j].key, m[i].key))
				break;
		owner[i] = j < i ? owner[j] : p.keys++;
	}
	for (k = 0; k < p.keys; k++) {
		int c = 0;

		for (i = 0; i < n; i++)
			if (owner[i] == k)
				xs[c++] = m[i].x;
		vals[k] = median(xs, c);
		for (i = 0; i < n; i++)
			if (owner[i] == k && only_key && !strcmp(only_key, m[i].key))
				*kval = vals[k];
	}
	xmoments(&p, vals, out, p.keys);
	for (round = 0; round < OUTLIER_CLIP_ROUNDS && p.sd > 0; round++) {
		for (left = 0, k = 0; k < p.keys; k++) {
			int all_out = 1;

			if (out[k] || (vals[k] >= p.lo && vals[k] <= p.hi))
				continue;
			for (i = 0; i < n; i++)
				if (owner[i] == k && m[i].x >= p.lo && m[i].x <= p.hi)
					all_out = 0;
			if (all_out) {
				out[k] = 1;
				left++;
			}
		}
		if (!left)
			break;
		{
			/* A round that would leave no spread is not taken. */
			struct xpop q = p;

			xmoments(&q, vals, out, p.keys);
			if (!(q.sd > 0))
				break;
			p = q;
		}
	}
	free(xs);
	free(owner);
	free(out);
	return p;
}

/* Checks every stored flag and verdict against the rule computed here;
 * flags within the sums' tolerance of a bound are skipped and counted in
 * *near.  Fills flags[] with the stored flags (for the typical check). */
static inline void check_flags(const struct mrun *m, int n, int *flags, int *near)
{
	double *vals = malloc(sizeof *vals * (size_t)(n ? n : 1)), kv;
	const struct place *seen[64];
	struct xpop cs[64], ws[64];
	int nseen = 0, i, j;
	sqlite3 *h = raw();

	for (i = 0; i < n; i++) {
		const char *id = m[i].id;
		struct xpop c, w;
		double tolc, tolw;
		int bits, got, b0, b1, b2, want;

		for (j = 0; j < nseen && seen[j] != m[i].p; j++)
			;
		if (j == nseen) {
			ck_assert_int_lt(nseen, 64);
			seen[nseen] = m[i].p;
			cs[nseen] = xpop_of(m, n, m[i].p, same_cluster, NULL, 0, vals, NULL, &kv);
			ws[nseen] = xpop_of(m, n, m[i].p, same_combo, NULL, 0, vals, NULL, &kv);
			nseen++;
		}
		c = cs[j];
		w = ws[j];
		tolc = 2e-9 + 1e-12 * (double)(fabsl(c.mean) + 3 * c.sd);
		tolw = 2e-9 + 1e-12 * (double)(fabsl(w.mean) + 3 * w.sd);
		bits = (int)q1(h, "SELECT flag_bits FROM runs WHERE id = ?", &id, 1, NULL, 0);
		got = (int)q1(h, "SELECT outlier FROM runs WHERE id = ?", &id, 1, NULL, 0);
		b0 = m[i].x < c.lo || m[i].x > c.hi;
		b1 = m[i].x < w.lo || m[i].x > w.hi;
		b2 = ceiling_flagged(&m[i]);
		want = m[i].ok && (b2 || b1 || (c.keys >= OUTLIER_MIN_KEYS && b0));
		flags[i] = got;
		if (!m[i].ok) {
			ck_assert_msg(got == 0 && (bits & 3) == 0, "%s not counted: flag %d bits %d", id, got, bits);
			continue;
		}
		if (fabs(m[i].x - c.lo) <= tolc || fabs(m[i].x - c.hi) <= tolc ||
		    fabs(m[i].x - w.lo) <= tolw || fabs(m[i].x - w.hi) <= tolw) {
			(*near)++;
			continue;
		}
		if (b2)
			b0 = b1 = 0;   /* above its ceiling: in no population */
		ck_assert_msg(got == want && bits == (b0 | b1 << 1 | b2 << 2),
			      "%s (%.17g, key %s): flag %d bits %d, exact %d bits %d "
			      "(cluster %d keys %.6Lg sd %.6Lg, combination %d keys %.6Lg sd %.6Lg)",
			      id, m[i].x, m[i].key, got, bits, want, b0 | b1 << 1 | b2 << 2,
			      c.keys, c.mean, c.sd, w.keys, w.mean, w.sd);
	}
	sqlite3_close(h);
	free(vals);
}

/* The stored figures of every cluster and combination and every key's
 * median in them against the exact ones. */
static inline void check_populations(const struct mrun *m, int n)
{
	double *vals = malloc(sizeof *vals * (size_t)(n ? n : 1)), kv;
	sqlite3 *h = raw();
	int i, j, counted, c;

	for (i = 0; i < n; i++) {
		const struct place *p = m[i].p;

		for (c = 0; c < 2; c++) {
			int (*in)(const struct place *, const struct place *) = c ? same_combo : same_cluster;
			const char *where = c ? "suite_version = 'suite-v1' AND model_slug = ?1 AND "
				"model_digest = ?2 AND hw_slug = ?3 AND backend_name = ?4"
				: "suite_version = 'suite-v1' AND model_digest = ?2 AND hw_class = ?3 "
				"AND backend_name = ?4";
			const char *args[5] = { p->model, p->digest, c ? p->hw : p->hw_class, p->backend, m[i].key };
			char sql[400];
			struct xpop x;
			double tol;

			for (j = 0; j < i && !in(m[j].p, p); j++)
				;
			if (j < i)
				continue;   /* checked already */
			x = xpop_of(m, n, p, in, NULL, 0, vals, NULL, &kv);
			for (counted = 0, j = 0; j < n; j++)
				counted += m[j].ok && in(m[j].p, p) && !ceiling_flagged(&m[j]);
			snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE %s", c ? "combos" : "clusters", where);
			ck_assert_int_eq((int)q1(h, sql, args, 4, NULL, 0), counted > 0);
			if (!counted)
				continue;
			tol = 2e-9 + 1e-12 * (double)(fabsl(x.mean) + 3 * x.sd);
			snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE %s", c ? "runs" : "n",
				 c ? "combos" : "clusters", where);
			ck_assert_int_eq((int)q1(h, sql, args, 4, NULL, 0), counted);
			snprintf(sql, sizeof sql, "SELECT keys FROM %s WHERE %s", c ? "combos" : "clusters", where);
			ck_assert_int_eq((int)q1(h, sql, args, 4, NULL, 0), x.keys);
			snprintf(sql, sizeof sql, "SELECT mean FROM %s WHERE %s", c ? "combos" : "clusters", where);
			ck_assert_msg(fabsl(q1(h, sql, args, 4, NULL, 0) - x.mean) <= tol, "mean of %s", sql);
			snprintf(sql, sizeof sql, "SELECT stddev FROM %s WHERE %s", c ? "combos" : "clusters", where);
			ck_assert_msg(fabsl(q1(h, sql, args, 4, NULL, 0) - x.sd) <= tol, "sd of %s", sql);
		}
	}
	/* Each key's exact median in its cluster and combination. */
	for (i = 0; i < n; i++) {
		const struct place *p = m[i].p;
		const char *ca[4] = { p->digest, p->hw_class, p->backend, m[i].key };
		const char *wa[5] = { p->model, p->digest, p->hw, p->backend, m[i].key };
		double want = NAN;

		if (!m[i].ok)
			continue;
		xpop_of(m, n, p, same_cluster, NULL, 0, vals, m[i].key, &want);
		if (isnan(want))
			continue;   /* every run of the key is above its ceiling */
		ck_assert_double_eq(q1(h, "SELECT val FROM cluster_keys WHERE suite_version = 'suite-v1' "
				       "AND model_digest = ?1 AND hw_class = ?2 AND backend_name = ?3 "
				       "AND key_thumbprint = ?4", ca, 4, NULL, 0), want);
		xpop_of(m, n, p, same_combo, NULL, 0, vals, m[i].key, &want);
		ck_assert_double_eq(q1(h, "SELECT k.val FROM combo_keys k JOIN combos c ON c.cid = k.cid "
				       "WHERE c.suite_version = 'suite-v1' AND c.model_slug = ?1 "
				       "AND c.model_digest = ?2 AND c.hw_slug = ?3 AND c.backend_name = ?4 "
				       "AND k.key_thumbprint = ?5", wa, 5, NULL, 0), want);
	}
	sqlite3_close(h);
	free(vals);
}

/* |got - want| within the typical figures' precision. */
#define ASSERT_NEAR(got, want, what) ck_assert_msg( \
	fabs((got) - (want)) <= QUANTILE_PRECISION * fabs(want) + 1e-9, \
	"%s: %.9g, exact %.9g (%.3f%%)", what, (double)(got), (double)(want), \
	100.0 * fabs((got) - (want)) / fabs(want))

/* The median of metric (0 decode, 1 prefill, 2 TTFT) of key's unflagged
 * counted runs in p's combination; NAN when none. */
static inline double key_value(const struct mrun *m, int n, const int *flags, const struct place *p,
			       const char *key, int metric, int *runs)
{
	double *xs = malloc(sizeof *xs * (size_t)(n ? n : 1)), v;
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (m[i].ok && !flags[i] && same_combo(m[i].p, p) && !strcmp(m[i].key, key))
			xs[k++] = metric == 0 ? m[i].x : metric == 1 ? m[i].prefill : m[i].ttft;
	v = k ? median(xs, k) : NAN;
	if (runs)
		*runs = k;
	free(xs);
	return v;
}

/* The stored typical figures of every combination (counts, each key's
 * values, the quartiles and medians over keys, the best run) against the
 * exact ones over the runs flags[] leaves in. */
static inline void check_typical(const struct mrun *m, int n, const int *flags)
{
	double *dv = malloc(sizeof *dv * (size_t)(n ? n : 1)), *pv = malloc(sizeof *pv * (size_t)(n ? n : 1));
	double *tv = malloc(sizeof *tv * (size_t)(n ? n : 1));
	sqlite3 *h = raw();
	int i, j, k;

	for (i = 0; i < n; i++) {
		const struct place *p = m[i].p;
		const char *wa[4] = { p->model, p->digest, p->hw, p->backend };
		int keys = 0, runs = 0, best = -1, nd = 0;
		char got_best[32];

#define WHERE_W " WHERE suite_version = 'suite-v1' AND model_slug = ?1 AND model_digest = ?2 " \
	"AND hw_slug = ?3 AND backend_name = ?4"
/* A key's row of a combination (combo_keys names it by cid). */
#define KEY_OF(col) "SELECT k." col " FROM combo_keys k JOIN combos c USING (cid)" WHERE_W \
	" AND k.key_thumbprint = ?5"
		for (j = 0; j < i && !same_combo(m[j].p, p); j++)
			;
		if (j < i || q1(h, "SELECT count(*) FROM combos" WHERE_W, wa, 4, NULL, 0) == 0)
			continue;
		/* Per key: the exact decode median, and the prefill and TTFT ones. */
		for (j = 0; j < n; j++) {
			const char *ka[5] = { p->model, p->digest, p->hw, p->backend, m[j].key };
			int kr;

			if (!m[j].ok || flags[j] || !same_combo(m[j].p, p))
				continue;
			runs++;
			/* The best: the fastest run not above its peak ceiling. */
			if (!outlier_above_peak(m[j].p->model, m[j].p->quant, m[j].p->hw, 0, m[j].x) &&
			    (best < 0 || m[j].x > m[best].x || (m[j].x == m[best].x && strcmp(m[j].id, m[best].id) > 0)))
				best = j;
			for (k = 0; k < j; k++)
				if (m[k].ok && !flags[k] && same_combo(m[k].p, p) && !strcmp(m[k].key, m[j].key))
					break;
			if (k < j)
				continue;
			dv[nd] = key_value(m, n, flags, p, m[j].key, 0, &kr);
			pv[nd] = key_value(m, n, flags, p, m[j].key, 1, NULL);
			tv[nd] = key_value(m, n, flags, p, m[j].key, 2, NULL);
			ck_assert_double_eq(q1(h, KEY_OF("t_val"),
					       ka, 5, NULL, 0), dv[nd]);
			ck_assert_int_eq((int)q1(h, KEY_OF("t_runs"),
						 ka, 5, NULL, 0), kr);
			ASSERT_NEAR(q1(h, KEY_OF("pre_val"),
				       ka, 5, NULL, 0), pv[nd], "a key's median prefill");
			ASSERT_NEAR(q1(h, KEY_OF("ttft_val"),
				       ka, 5, NULL, 0), tv[nd], "a key's median TTFT");
			nd++;
		}
		keys = nd;
		ck_assert_int_eq((int)q1(h, "SELECT t_runs FROM combos" WHERE_W, wa, 4, NULL, 0), runs);
		ck_assert_int_eq((int)q1(h, "SELECT t_keys FROM combos" WHERE_W, wa, 4, NULL, 0), keys);
		/* The board's count reads rank_med from combos_med*'s index
		 * alone (pages/page_home.c): it is NULL exactly when med is. */
		ck_assert_int_eq(isnan(q1(h, "SELECT rank_med FROM combos" WHERE_W, wa, 4, NULL, 0)),
				 isnan(q1(h, "SELECT med FROM combos" WHERE_W, wa, 4, NULL, 0)));
		if (!keys) {
			ck_assert(isnan(q1(h, "SELECT med FROM combos" WHERE_W, wa, 4, NULL, 0)));
			ck_assert(isnan(q1(h, "SELECT best_decode FROM combos" WHERE_W, wa, 4, NULL, 0)));
			continue;
		}
		qsort(dv, (size_t)keys, sizeof *dv, dcmp);
		qsort(pv, (size_t)keys, sizeof *pv, dcmp);
		qsort(tv, (size_t)keys, sizeof *tv, dcmp);
		ASSERT_NEAR(q1(h, "SELECT med FROM combos" WHERE_W, wa, 4, NULL, 0), quant_of(dv, keys, 0.5), "median");
		ASSERT_NEAR(q1(h, "SELECT p25 FROM combos" WHERE_W, wa, 4, NULL, 0), quant_of(dv, keys, 0.25), "p25");
		ASSERT_NEAR(q1(h, "SELECT p75 FROM combos" WHERE_W, wa, 4, NULL, 0), quant_of(dv, keys, 0.75), "p75");
		ASSERT_NEAR(q1(h, "SELECT med_prefill FROM combos" WHERE_W, wa, 4, NULL, 0),
			    quant_of(pv, keys, 0.5), "median prefill");
		ASSERT_NEAR(q1(h, "SELECT med_ttft FROM combos" WHERE_W, wa, 4, NULL, 0),
			    quant_of(tv, keys, 0.5), "median TTFT");
		if (best < 0) {
			ck_assert(isnan(q1(h, "SELECT best_decode FROM combos" WHERE_W, wa, 4, NULL, 0)));
			continue;
		}
		ck_assert_double_eq(q1(h, "SELECT best_decode FROM combos" WHERE_W, wa, 4, NULL, 0), m[best].x);
		q1(h, "SELECT best_id FROM combos" WHERE_W, wa, 4, got_best, sizeof got_best);
		ck_assert_str_eq(got_best, m[best].id);
#undef WHERE_W
#undef KEY_OF
	}
	/* Each model's and hardware's leader is the first of its combinations
	 * by (median, key_id), its best the first by (best, key_id). */
	ck_assert_int_eq((int)q1(h, "SELECT count(*) FROM model_index i WHERE "
		"i.top_key IS NOT (SELECT key_id FROM combos c WHERE c.suite_version = i.suite_version "
		"AND c.model_slug = i.model_slug AND c.t_runs > 0 ORDER BY c.med DESC, c.key_id DESC LIMIT 1) "
		"OR i.top_med IS NOT coalesce((SELECT med FROM combos c WHERE c.suite_version = i.suite_version "
		"AND c.model_slug = i.model_slug AND c.t_runs > 0 ORDER BY c.med DESC, c.key_id DESC LIMIT 1), -1) "
		"OR i.best_id IS NOT (SELECT best_id FROM combos c WHERE c.suite_version = i.suite_version "
		"AND c.model_slug = i.model_slug AND c.t_runs > 0 ORDER BY c.best_decode DESC, c.key_id DESC LIMIT 1)",
		NULL, 0, NULL, 0), 0);
	ck_assert_int_eq((int)q1(h, "SELECT count(*) FROM hw_index i WHERE "
		"i.top_key IS NOT (SELECT key_id FROM combos c WHERE c.suite_version = i.suite_version "
		"AND c.hw_slug = i.hw_slug AND c.t_runs > 0 ORDER BY c.med DESC, c.key_id DESC LIMIT 1) "
		"OR i.best_id IS NOT (SELECT best_id FROM combos c WHERE c.suite_version = i.suite_version "
		"AND c.hw_slug = i.hw_slug AND c.t_runs > 0 ORDER BY c.best_decode DESC, c.key_id DESC LIMIT 1)",
		NULL, 0, NULL, 0), 0);
	sqlite3_close(h);
	free(dv);
	free(pv);
	free(tv);
}

/* Everything at once; returns the flags within tolerance of a bound. */
static inline int check_exact(const struct mrun *m, int n)
{
	int *flags = calloc((size_t)(n ? n : 1), sizeof *flags), near = 0;

	check_flags(m, n, flags, &near);
	check_populations(m, n);
	check_typical(m, n, flags);
	free(flags);
	return near;
}

#endif
