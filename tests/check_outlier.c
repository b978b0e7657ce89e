/* check_outlier.c: cluster statistics and 3-sigma flags of server/store/outlier.c, on a temporary database. */
#include "check_util.h"
#include "check_tmpdb.h"
#include "store/db.h"
#include "util/log.h"
#include "store/outlier.h"

#include <math.h>
#include <sodium.h>
#include <unistd.h>

/* ---- fixtures ---- */

static struct tmpdb T;
static struct db *db;

static void setup(void)
{
	tmpdb_begin(&T, "check_outlier");
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
	db = tmpdb_open(&T, NULL);
}

static void teardown(void)
{
	db_close(db);
	db = NULL;
	tmpdb_end(&T);
}

/* Runs fn(w, arg) as one job on the writer thread; returns its status. */
struct fn_job {
	struct db_job j;
	int (*fn)(struct dbconn *w, void *arg);
	void *arg;
};

static int fn_run(struct dbconn *w, struct db_job *j)
{
	struct fn_job *f = (struct fn_job *)j;
	return f->fn(w, f->arg);
}

static int in_writer(int (*fn)(struct dbconn *, void *), void *arg)
{
	struct fn_job f = { .j = { .run = fn_run }, .fn = fn, .arg = arg };
	return db_write(db, &f.j);
}

/* ---- runs ---- */

/* One run to store: its id, cluster key parts and decode tok/s. */
struct run {
	const char *id, *suite, *digest, *hw_class, *backend;
	double x;
};

static const char sql_insert[] =
	"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, "
	"accelerator, hw_slug, hw_class, backend_name, backend_version, decode_tok_s, "
	"created_at, received_at, key_thumbprint, alg, payload, jws, jws_sha256) "
	"VALUES (?, ?, 'M', 'm', ?, 'M3 Ultra', 'm3-ultra', ?, ?, '1', ?, "
	"'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 't', 'EdDSA', '{}', x'00', randomblob(32))";

static int insert_run(struct dbconn *w, const struct run *r)
{
	sqlite3_stmt *st = db_stmt(w, sql_insert);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, r->id);
	db_bind_text(st, 2, r->suite);
	db_bind_text(st, 3, r->digest);
	db_bind_text(st, 4, r->hw_class);
	db_bind_text(st, 5, r->backend);
	sqlite3_bind_double(st, 6, r->x);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

/* Inserts the runs of a NULL-id-terminated array and recomputes the
 * cluster of the first (or of key, when set), collecting ids. */
struct batch {
	const struct run *runs;
	const struct cluster_key *key;
	json_t *ids;
	unsigned long vm_steps;   /* out: SQLite VM progress ticks of the recompute */
};

static int count_step(void *arg)
{
	(*(unsigned long *)arg)++;
	return 0;
}

static int batch_run(struct dbconn *w, void *arg)
{
	struct batch *b = arg;
	const struct run *r;
	struct cluster_key k;
	int rc;

	for (r = b->runs; r && r->id; r++)
		if ((rc = insert_run(w, r)) != DB_OK)
			return rc;
	k = b->key ? *b->key : (struct cluster_key){ b->runs[0].suite, b->runs[0].digest,
						       b->runs[0].hw_class, b->runs[0].backend };
	b->vm_steps = 0;
	sqlite3_progress_handler(w->h, 1, count_step, &b->vm_steps);
	rc = outlier_recompute(w, &k, b->ids);
	sqlite3_progress_handler(w->h, 0, NULL, NULL);
	return rc;
}

/* ---- reading back, on a connection of our own ---- */

static sqlite3 *raw(void)
{
	char path[300];
	sqlite3 *h = NULL;

	snprintf(path, sizeof path, "%s", T.path);
	ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	return h;
}

static int flag_of(const char *id)
{
	sqlite3 *h = raw();
	sqlite3_stmt *st;
	int v = -1;

	sqlite3_prepare_v2(h, "SELECT outlier FROM runs WHERE id = ?", -1, &st, NULL);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* The stored figures of a cluster; returns 0 when it has no row. */
static int stats_of(const struct cluster_key *k, long *n, double *mean, double *sd)
{
	sqlite3 *h = raw();
	sqlite3_stmt *st;
	int found;

	sqlite3_prepare_v2(h, "SELECT n, mean, stddev FROM clusters WHERE suite_version = ? "
			   "AND model_digest = ? AND hw_class = ? AND backend_name = ?", -1, &st, NULL);
	sqlite3_bind_text(st, 1, k->suite, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, k->digest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, k->hw_class, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, k->backend, -1, SQLITE_TRANSIENT);
	found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		*n = sqlite3_column_int64(st, 0);
		*mean = sqlite3_column_double(st, 1);
		*sd = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return found;
}

/* Population mean and standard deviation of xs, one pass (Welford), so the
 * check does not share the server's two-pass arithmetic. */
static void welford(const double *xs, int n, double *mean, double *sd)
{
	double m = 0, s = 0, d;
	int i;

	for (i = 0; i < n; i++) {
		d = xs[i] - m;
		m += d / (i + 1);
		s += d * (xs[i] - m);
	}
	*mean = m;
	*sd = sqrt(s / n);
}

#define S1 "suite-v1"
#define D1 "sha256:00112233445566778899aabbccddeeff"
#define FP "3f9a0c11d2e4b5a6"

static const struct cluster_key K1 = { S1, D1, FP, "mlx" };

/* Twelve runs of K1: eleven near 100 and r11 at 200. */
static const struct run twelve[] = {
	{ "r_aaaaaaaaa00", S1, D1, FP, "mlx", 100.0 },
	{ "r_aaaaaaaaa01", S1, D1, FP, "mlx", 100.6 },
	{ "r_aaaaaaaaa02", S1, D1, FP, "mlx", 99.4 },
	{ "r_aaaaaaaaa03", S1, D1, FP, "mlx", 100.3 },
	{ "r_aaaaaaaaa04", S1, D1, FP, "mlx", 99.7 },
	{ "r_aaaaaaaaa05", S1, D1, FP, "mlx", 100.1 },
	{ "r_aaaaaaaaa06", S1, D1, FP, "mlx", 99.9 },
	{ "r_aaaaaaaaa07", S1, D1, FP, "mlx", 100.2 },
	{ "r_aaaaaaaaa08", S1, D1, FP, "mlx", 99.8 },
	{ "r_aaaaaaaaa09", S1, D1, FP, "mlx", 100.4 },
	{ "r_aaaaaaaaa10", S1, D1, FP, "mlx", 99.6 },
	{ "r_aaaaaaaaa11", S1, D1, FP, "mlx", 200.0 },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};

static void store(const struct run *runs, const struct cluster_key *k, json_t *ids)
{
	struct batch b = { runs, k, ids, 0 };
	ck_assert_int_eq(in_writer(batch_run, &b), DB_OK);
}

/* The stored figures of k equal an independent computation over xs. */
static void assert_stats(const struct cluster_key *k, const double *xs, int n)
{
	double mean, sd, want_mean, want_sd;
	long got_n;

	ck_assert(stats_of(k, &got_n, &mean, &sd));
	welford(xs, n, &want_mean, &want_sd);
	ck_assert_int_eq(got_n, n);
	ck_assert_double_eq_tol(mean, want_mean, 1e-9);
	ck_assert_double_eq_tol(sd, want_sd, 1e-9);
}

/* ---- tests ---- */

START_TEST(test_is_flagged)
{
	ck_assert_int_eq(outlier_is_flagged(100, 100, 0), 0);
	ck_assert_int_eq(outlier_is_flagged(1e9, 100, 0), 0);        /* no spread: nothing stands out */
	ck_assert_int_eq(outlier_is_flagged(130, 100, 10), 0);       /* exactly 3 sd is not more */
	ck_assert_int_eq(outlier_is_flagged(70, 100, 10), 0);
	ck_assert_int_eq(outlier_is_flagged(130.0001, 100, 10), 1);
	ck_assert_int_eq(outlier_is_flagged(69.9999, 100, 10), 1);   /* below counts too */
	ck_assert_int_eq(outlier_is_flagged(129.9, 100, 10), 0);
}
END_TEST

START_TEST(test_recompute_flags_far_run_and_stores_figures)
{
	json_t *ids = json_array();
	double xs[12];
	int i;

	store(twelve, NULL, ids);
	for (i = 0; i < 12; i++) {
		xs[i] = twelve[i].x;
		ck_assert_int_eq(flag_of(twelve[i].id), i == 11);
	}
	assert_stats(&K1, xs, 12);
	/* The runs whose flag changed, whose badges must go from the cache
	 * (the other pages follow their cluster's generation). */
	ck_assert_uint_eq(json_array_size(ids), 1);
	ck_assert_str_eq(json_string_value(json_array_get(ids, 0)), "r_aaaaaaaaa11");
	json_decref(ids);
}
END_TEST

START_TEST(test_clusters_are_kept_apart_by_every_key_part)
{
	/* Same values but one key part differs: suite, digest, hardware class
	 * (strict-anon slug instead of fingerprint) and backend. */
	static const struct run others[] = {
		{ "r_bbbbbbbbb00", "suite-v2", D1, FP, "mlx", 5000.0 },
		{ "r_bbbbbbbbb01", S1, "sha256:ffeeddccbbaa99887766554433221100", FP, "mlx", 5000.0 },
		{ "r_bbbbbbbbb02", S1, D1, "slug:m3-ultra", "mlx", 5000.0 },
		{ "r_bbbbbbbbb03", S1, D1, FP, "llama.cpp", 5000.0 },
		{ NULL, NULL, NULL, NULL, NULL, 0 },
	};
	double xs[12];
	int i;

	store(others, &K1, NULL);     /* K1 has no members yet: no row */
	store(twelve, NULL, NULL);
	for (i = 0; i < 12; i++)
		xs[i] = twelve[i].x;
	assert_stats(&K1, xs, 12);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 1);
	for (i = 0; i < 4; i++) {
		struct cluster_key k = { others[i].suite, others[i].digest,
					 others[i].hw_class, others[i].backend };
		long n;
		double mean, sd;

		ck_assert_int_eq(flag_of(others[i].id), 0);
		store((const struct run[]){ { NULL, NULL, NULL, NULL, NULL, 0 } }, &k, NULL);
		ck_assert(stats_of(&k, &n, &mean, &sd));
		ck_assert_int_eq(n, 1);
		ck_assert_double_eq(mean, 5000.0);
		ck_assert_double_eq(sd, 0.0);
	}
}
END_TEST

START_TEST(test_later_runs_clear_an_earlier_flag)
{
	static const struct run more[] = {
		{ "r_ccccccccc00", S1, D1, FP, "mlx", 199.0 },
		{ "r_ccccccccc01", S1, D1, FP, "mlx", 201.0 },
		{ "r_ccccccccc02", S1, D1, FP, "mlx", 198.0 },
		{ NULL, NULL, NULL, NULL, NULL, 0 },
	};
	double xs[15];
	int i;

	store(twelve, NULL, NULL);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 1);
	store(more, NULL, NULL);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 0);
	for (i = 0; i < 12; i++)
		xs[i] = twelve[i].x;
	for (i = 0; i < 3; i++)
		xs[12 + i] = more[i].x;
	assert_stats(&K1, xs, 15);
}
END_TEST

/* Sets a run's status and tells the cluster, as a moderator's ruling does. */
struct status_change {
	const char *id, *status;
};

static int status_run(struct dbconn *w, void *arg)
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

/* A later withdrawal: outlier_run_withdrawn, then the DELETE. */
static int withdraw_run(struct dbconn *w, void *arg)
{
	const char *id = arg;
	sqlite3_stmt *st;
	int rc = outlier_run_withdrawn(w, id, NULL);

	if (rc != DB_OK)
		return rc;
	if (!(st = db_stmt(w, "DELETE FROM runs WHERE id = ?")))
		return DB_ERR;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

static void set_status(const char *id, const char *status)
{
	struct status_change c = { id, status };
	ck_assert_int_eq(in_writer(status_run, &c), DB_OK);
}

START_TEST(test_upheld_runs_leave_the_statistics)
{
	double xs[11];
	long n;
	double mean, sd;
	int i;

	store(twelve, NULL, NULL);
	set_status("r_aaaaaaaaa11", "upheld");
	for (i = 0; i < 11; i++)
		xs[i] = twelve[i].x;
	assert_stats(&K1, xs, 11);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 0);   /* out of the cluster, so not flagged */
	/* When nothing counts any more the cluster's row goes. */
	for (i = 0; i < 11; i++)
		set_status(twelve[i].id, "upheld");
	ck_assert(!stats_of(&K1, &n, &mean, &sd));
	/* And back in when the rulings are reversed. */
	for (i = 0; i < 12; i++)
		set_status(twelve[i].id, "ok");
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 1);
	for (i = 0; i < 12; i++)
		xs[i < 11 ? i : 0] = twelve[i].x;
	assert_stats(&K1, (double[]){ 100.0, 100.6, 99.4, 100.3, 99.7, 100.1, 99.9, 100.2,
				       99.8, 100.4, 99.6, 200.0 }, 12);
}
END_TEST

/* Fills the table with n runs of clusters other than K1. */
static int fill_others(struct dbconn *w, void *arg)
{
	int i, n = *(int *)arg, rc = DB_OK;
	char id[16], fp[17];

	for (i = 0; rc == DB_OK && i < n; i++) {
		snprintf(id, sizeof id, "r_x%010d", i);
		snprintf(fp, sizeof fp, "%016x", (unsigned)i % 97);
		rc = insert_run(w, &(struct run){ id, S1, D1, fp, "mlx", 50.0 + i % 13 });
	}
	return rc;
}

/* ---- incremental updates against an exact two-pass recomputation ---- */

/* One upload as the writer stores it: the row, then outlier_run_added. */
struct add {
	char id[16];
	const struct cluster_key *k;
	double x;
	char key[24];
	unsigned long vm_steps;   /* out: SQLite VM ticks of outlier_run_added */
};

static const char sql_insert_keyed[] =
	"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, "
	"accelerator, hw_slug, hw_class, backend_name, backend_version, decode_tok_s, "
	"created_at, received_at, key_thumbprint, alg, payload, jws, jws_sha256) "
	"VALUES (?, ?, 'M', 'm', ?, 'M3 Ultra', 'm3-ultra', ?, ?, '1', ?, "
	"'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', ?, 'EdDSA', '{}', x'00', randomblob(32))";

static int add_run(struct dbconn *w, void *arg)
{
	struct add *a = arg;
	sqlite3_stmt *st = db_stmt(w, sql_insert_keyed);
	int rc;

	if (!st)
		return DB_ERR;
	db_bind_text(st, 1, a->id);
	db_bind_text(st, 2, a->k->suite);
	db_bind_text(st, 3, a->k->digest);
	db_bind_text(st, 4, a->k->hw_class);
	db_bind_text(st, 5, a->k->backend);
	sqlite3_bind_double(st, 6, a->x);
	db_bind_text(st, 7, a->key);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_status_of(rc);
	a->vm_steps = 0;
	sqlite3_progress_handler(w->h, 1, count_step, &a->vm_steps);
	rc = outlier_run_added(w, a->k, a->id, a->x, a->key, NULL, NULL);
	sqlite3_progress_handler(w->h, 0, NULL, NULL);
	return rc;
}

/* What the model knows of a run. */
struct mrun {
	char id[16], key[24];
	double x;
	int ok;
};

/* Checks the stored figures, flags and key counts of k against a two-pass
 * computation in long double over the model's runs.  Flags may differ only
 * within the tolerance of outlier_sums.c's comment. */
static void assert_exact(const struct cluster_key *k, const struct mrun *m, int n, int *near)
{
	long double sum = 0, ss = 0, mean, sd;
	double got_mean, got_sd, tol;
	long got_n;
	int i, j, cnt = 0, keys = 0, fresh = 0;

	for (i = 0; i < n; i++)
		if (m[i].ok) {
			sum += m[i].x;
			cnt++;
		}
	if (!cnt) {
		ck_assert(!stats_of(k, &got_n, &got_mean, &got_sd));
		return;
	}
	mean = sum / cnt;
	for (i = 0; i < n; i++)
		if (m[i].ok)
			ss += (m[i].x - mean) * (m[i].x - mean);
	sd = sqrtl(ss / cnt);
	ck_assert(stats_of(k, &got_n, &got_mean, &got_sd));
	ck_assert_int_eq(got_n, cnt);
	tol = 2e-9 + 1e-12 * (fabsl(mean) + 3 * sd);
	ck_assert_msg(fabsl(got_mean - mean) <= tol, "mean %.17g, exact %.17Lg", got_mean, mean);
	ck_assert_msg(fabsl(got_sd - sd) <= tol, "sd %.17g, exact %.17Lg", got_sd, sd);
	for (i = 0; i < n; i++) {
		long double dist = fabsl(m[i].x - mean) - 3 * sd;
		int want = m[i].ok && sd > 0 && dist > 0, got = flag_of(m[i].id);

		if (m[i].ok && fabsl(dist) <= tol)
			(*near)++;
		else
			ck_assert_msg(got == want, "%s (%.17g, %s): flag %d, exact %d (%.3Lg sd from the mean)",
				      m[i].id, m[i].x, m[i].ok ? "ok" : "upheld", got, want,
				      sd > 0 ? (m[i].x - mean) / sd : 0.0L);
	}
	/* Keys: distinct keys of counted runs; new ones have one run in all. */
	for (i = 0; i < n; i++) {
		int first = m[i].ok, total = 0;

		for (j = 0; j < n; j++) {
			if (strcmp(m[j].key, m[i].key))
				continue;
			total++;
			if (j < i && m[j].ok)
				first = 0;
		}
		if (first) {
			keys++;
			fresh += total == 1;
		}
	}
	{
		sqlite3 *h = raw();
		sqlite3_stmt *st;

		sqlite3_prepare_v2(h, "SELECT keys, new_keys FROM clusters WHERE suite_version = ? "
				   "AND model_digest = ? AND hw_class = ? AND backend_name = ?", -1, &st, NULL);
		sqlite3_bind_text(st, 1, k->suite, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, k->digest, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, k->hw_class, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, k->backend, -1, SQLITE_TRANSIENT);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_int_eq(sqlite3_column_int(st, 0), keys);
		ck_assert_int_eq(sqlite3_column_int(st, 1), fresh);
		sqlite3_finalize(st);
		sqlite3_close(h);
	}
}

static unsigned long long rng_state;

static double rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* A value of distribution kind: around 100, huge with a tiny spread,
 * tiny, or mostly equal; now and then far away. */
static double draw(int kind)
{
	double far = rnd() < 0.05 ? (rnd() < 0.5 ? -1 : 1) * (5 + 20 * rnd()) : 0;

	switch (kind) {
	case 0:   /* some near the 3-sigma bounds (sd is about 1.5 here) */
		if (rnd() < 0.15)
			return 100 + (rnd() < 0.5 ? -1 : 1) * (3.5 + 2 * rnd());
		return 100 + 5 * (rnd() - 0.5) + 5 * far;
	case 1: return 4.5e9 + 0.01 * (rnd() - 0.5) + 0.01 * far;   /* mean 1e12 sd */
	case 2: return 1e-4 + 1e-5 * rnd() + 1e-5 * fabs(far);
	default: return rnd() < 0.85 ? 50.0 : rnd() < 0.7 ? 50.25 : 50 + 3 * (rnd() - 0.5) + far;
	}
}

static const char *kinds[] = { "normal", "huge", "tiny", "equal" };

START_TEST(test_incremental_matches_two_pass_recomputation)
{
	enum { OPS = 300 };
	struct cluster_key k = { S1, D1, FP, kinds[_i] };
	struct mrun *m = calloc(OPS, sizeof *m);
	int n = 0, op, i, near = 0;

	rng_state = 0x9e3779b97f4a7c15ULL * (unsigned)(_i + 1);
	for (op = 0; op < OPS; op++) {
		double u = rnd();

		if (u < 0.7 || n < 3) {
			struct add a = { .k = &k, .x = draw(_i) };
			long cn;
			double cm, csd;

			/* Now and then a run placed near a 3-sigma bound as they stand. */
			if (rnd() < 0.15 && stats_of(&k, &cn, &cm, &csd) && csd > 0)
				a.x = cm + (rnd() < 0.5 ? -1 : 1) * (3 + 0.2 * (rnd() - 0.5)) * csd;

			snprintf(a.id, sizeof a.id, "r_%d%010d", _i, op);
			/* A few steady keys, and fresh ones (a swarm). */
			if (rnd() < 0.5)
				snprintf(a.key, sizeof a.key, "steady%d", (int)(rnd() * 5));
			else
				snprintf(a.key, sizeof a.key, "fresh%d", op);
			ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
			snprintf(m[n].id, sizeof m[n].id, "%s", a.id);
			snprintf(m[n].key, sizeof m[n].key, "%s", a.key);
			m[n].x = a.x;
			m[n].ok = 1;
			n++;
		} else if (u < 0.75) {       /* a withdrawal */
			i = (int)(rnd() * n);
			ck_assert_int_eq(in_writer(withdraw_run, m[i].id), DB_OK);
			m[i] = m[--n];
		} else {
			int want_ok = u >= 0.87;   /* dismiss an upheld run, else uphold */

			i = (int)(rnd() * n);
			if (m[i].ok == want_ok)
				continue;
			set_status(m[i].id, want_ok ? "ok" : "upheld");
			m[i].ok = want_ok;
		}
		if (op % 20 == 19 || op == OPS - 1)
			assert_exact(&k, m, n, &near);
	}
	/* Not vacuous: the sequence flagged runs. */
	{
		sqlite3 *h = raw();
		sqlite3_stmt *st;

		sqlite3_prepare_v2(h, "SELECT count(*) FROM runs WHERE outlier = 1", -1, &st, NULL);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_msg(sqlite3_column_int(st, 0) > 0 || _i == 2, "no run flagged");
		sqlite3_finalize(st);
		sqlite3_close(h);
	}
	ck_assert_msg(near <= OPS / 10, "%d checks fell within the tolerance", near);
	free(m);
}
END_TEST

START_TEST(test_exactly_three_sigma_and_no_spread)
{
	/* Nine runs at 0 and one at 10: mean 1, sd 3, the last is exactly
	 * 3 sd away (10 - 1 = 9 = 3 x 3): not flagged, "more than" is strict. */
	struct cluster_key k = { S1, D1, FP, "edge" };
	struct add a = { .k = &k };
	int i;

	for (i = 0; i < 10; i++) {
		snprintf(a.id, sizeof a.id, "r_edge%07d", i % 10);
		snprintf(a.key, sizeof a.key, "k%d", i);
		a.x = i == 9 ? 10.0 : 1e-300;   /* quantizes to 0 */
		ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
	}
	ck_assert_int_eq(flag_of("r_edge0000009"), 0);
	/* sd = 0: every value equal, nothing flagged however many runs. */
	k.backend = "flat";
	for (i = 0; i < 30; i++) {
		snprintf(a.id, sizeof a.id, "r_flat%07d", i % 100);
		a.x = 42.0;
		ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
	}
	{
		long n;
		double mean, sd;

		ck_assert(stats_of(&k, &n, &mean, &sd));
		ck_assert_double_eq(mean, 42.0);
		ck_assert_double_eq(sd, 0.0);
	}
	ck_assert_int_eq(flag_of("r_flat0000029"), 0);
}
END_TEST

START_TEST(test_upload_cost_does_not_grow_with_the_cluster)
{
	struct add a = { .k = &K1 };
	unsigned long small = 0, big = 0;
	int i, n = 3000, others = 2000;

	ck_assert_int_eq(in_writer(fill_others, &others), DB_OK);   /* other clusters */
	for (i = 0; i < n; i++) {
		snprintf(a.id, sizeof a.id, "r_c%010d", i);
		snprintf(a.key, sizeof a.key, "key%d", i % 7);
		a.x = 100 + (i % 11) * 0.1;
		ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
		if (i == 20)
			small = a.vm_steps;
	}
	big = a.vm_steps;
	/* 150 times the runs: a few more B-tree levels at most, where a pass
	 * over the cluster would take thousands of steps more. */
	ck_assert_msg(big < small + 100, "an upload took %lu VM steps at 21 runs, %lu at %d",
		      small, big, n);
}
END_TEST

/* Start-up asks how many clusters wait for their figures: an index of the
 * waiting ones answers it (migration 0019), never a pass over all clusters. */
START_TEST(test_start_up_count_reads_only_waiting_clusters)
{
	struct dbconn *c = db_reader(db);
	sqlite3_stmt *st = NULL;
	char plan[512] = "";

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(sqlite3_prepare_v2(c->h, "EXPLAIN QUERY PLAN SELECT count(*) FROM clusters "
					    "WHERE sum_q IS NULL", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		snprintf(plan + strlen(plan), sizeof plan - strlen(plan), "%s;",
			 (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	ck_assert_msg(strstr(plan, "clusters_unfilled") != NULL, "plan: %s", plan);
}
END_TEST

/* Runs the migrations up to 0005 on a fresh database, fills it the old
 * way, then opens it with 0006: the backfill fills every cluster's figures
 * and key counts from the runs. */
static int insert_twelve(struct dbconn *w, void *arg)
{
	int i, rc = DB_OK;

	for (i = 0; rc == DB_OK && twelve[i].id; i++)
		rc = insert_run(w, &twelve[i]);
	return rc;
}

START_TEST(test_migration_backfills_existing_clusters)
{
	char old[300], path[300], cmd[2000], err[512] = "";
	double xs[12];
	int i;

	db_close(db);
	db = NULL;
	snprintf(old, sizeof old, "%s/old_migrations", T.dir);
	snprintf(path, sizeof path, "%s", T.path);
	snprintf(cmd, sizeof cmd, "rm -f '%s'* && mkdir -p '%s' && cp %s/migrations/000[1-5]_*.sql '%s/'",
		 path, old, repo_root(), old);
	ck_assert_int_eq(system(cmd), 0);
	db_after_migrate = outlier_backfill;   /* as commands.c does */
	ck_assert_msg(db_open(path, old, &db, err, sizeof err) == DB_OK, "%s", err);
	ck_assert_int_eq(in_writer(insert_twelve, NULL), DB_OK);
	db_close(db);
	snprintf(cmd, sizeof cmd, "%s/migrations", repo_root());
	ck_assert_msg(db_open(path, cmd, &db, err, sizeof err) == DB_OK, "%s", err);
	for (i = 0; i < 12; i++)
		xs[i] = twelve[i].x;
	assert_stats(&K1, xs, 12);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 1);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa00"), 0);
}
END_TEST

static Suite *suite_outlier(void)
{
	Suite *s = suite_create("outlier");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_is_flagged);
	tcase_add_test(t, test_recompute_flags_far_run_and_stores_figures);
	tcase_add_test(t, test_clusters_are_kept_apart_by_every_key_part);
	tcase_add_test(t, test_later_runs_clear_an_earlier_flag);
	tcase_add_test(t, test_upheld_runs_leave_the_statistics);
	tcase_add_test(t, test_exactly_three_sigma_and_no_spread);
	tcase_add_test(t, test_migration_backfills_existing_clusters);
	tcase_add_test(t, test_upload_cost_does_not_grow_with_the_cluster);
	tcase_add_test(t, test_start_up_count_reads_only_waiting_clusters);
	tcase_add_loop_test(t, test_incremental_matches_two_pass_recomputation, 0, 4);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_outlier)
