/* check_outlier.c: cluster statistics and 3-sigma flags of server/outlier.c, on a temporary database. */
#include "check_util.h"
#include "db.h"
#include "log.h"
#include "outlier.h"

#include <math.h>
#include <sodium.h>
#include <unistd.h>

/* ---- fixtures ---- */

static char tmpdir[256];
static struct db *db;

static void setup(void)
{
	char path[300], mig[600], err[512] = "";

	snprintf(tmpdir, sizeof tmpdir, "%s/check_outlier.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_ge(sodium_init(), 0);
	log_set_quiet(1);
	snprintf(path, sizeof path, "%s/test.db", tmpdir);
	snprintf(mig, sizeof mig, "%s/migrations", repo_root());
	ck_assert_msg(db_open(path, mig, &db, err, sizeof err) == DB_OK, "db_open: %s", err);
}

static void teardown(void)
{
	char cmd[600];

	db_close(db);
	db = NULL;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "check_outlier: could not remove %s\n", tmpdir);
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

	snprintf(path, sizeof path, "%s/test.db", tmpdir);
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

static void exec_raw(const char *sql)
{
	sqlite3 *h = raw();
	ck_assert_int_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
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
	ck_assert_uint_eq(json_array_size(ids), 12);   /* every page showing the figures */
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

START_TEST(test_upheld_runs_leave_the_statistics)
{
	double xs[11];
	long n;
	double mean, sd;
	int i;

	store(twelve, NULL, NULL);
	exec_raw("UPDATE runs SET status = 'upheld' WHERE id = 'r_aaaaaaaaa11'");
	store((const struct run[]){ { NULL, NULL, NULL, NULL, NULL, 0 } }, &K1, NULL);
	for (i = 0; i < 11; i++)
		xs[i] = twelve[i].x;
	assert_stats(&K1, xs, 11);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 0);   /* out of the cluster, so not flagged */
	/* When nothing counts any more the cluster's row goes. */
	exec_raw("UPDATE runs SET status = 'upheld'");
	store((const struct run[]){ { NULL, NULL, NULL, NULL, NULL, 0 } }, &K1, NULL);
	ck_assert(!stats_of(&K1, &n, &mean, &sd));
	/* And back in when the ruling is reversed. */
	exec_raw("UPDATE runs SET status = 'ok'");
	store((const struct run[]){ { NULL, NULL, NULL, NULL, NULL, 0 } }, &K1, NULL);
	ck_assert_int_eq(flag_of("r_aaaaaaaaa11"), 1);
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

START_TEST(test_cost_grows_with_the_cluster_not_the_table)
{
	struct batch b = { (const struct run[]){ { NULL, NULL, NULL, NULL, NULL, 0 } }, &K1, NULL, 0 };
	unsigned long small, big;
	int n = 5000;

	store(twelve, NULL, NULL);
	ck_assert_int_eq(in_writer(batch_run, &b), DB_OK);
	small = b.vm_steps;
	ck_assert_int_eq(in_writer(fill_others, &n), DB_OK);
	ck_assert_int_eq(in_writer(batch_run, &b), DB_OK);
	big = b.vm_steps;
	/* 5000 more runs elsewhere: the recompute does (about) the same work;
	 * a scan would take thousands of steps more. */
	ck_assert_msg(big < small + 200, "recompute took %lu VM steps with 12 runs, %lu with 5012", small, big);
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
	tcase_add_test(t, test_cost_grows_with_the_cluster_not_the_table);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_outlier)
