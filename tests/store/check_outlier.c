/* check_outlier.c: the flags of server/store/outlier*.c (contract section 4)
 * on a temporary database: each key counting once, the wider combination
 * below 11 keys, the ceiling flag, rulings, the start-up fill, the cost of
 * an upload, and every figure against an exact recomputation from scratch
 * after random uploads, rulings and withdrawals (check_stats.h). */
#include "check_stats.h"

#include <unistd.h>

static void setup(void)
{
	stats_setup();
}

static void teardown(void)
{
	stats_teardown();
}

/* One machine each (a fingerprint per key), all in one combination. */
static const struct place mlx_a = { "m", D1, "m3-ultra", "aaaaaaaaaaaaaaaa", "mlx", "4bit" };
static const struct place mlx_b = { "m", D1, "m3-ultra", "bbbbbbbbbbbbbbbb", "mlx", "4bit" };
static const struct place mlx_anon = { "m", D1, "m3-ultra", "slug:m3-ultra", "mlx", "4bit" };
/* The same fingerprint sent with another accelerator name. */
static const struct place max_a = { "m", D1, "m3-max", "aaaaaaaaaaaaaaaa", "mlx", "4bit" };
static const struct place llama = { "llama-3-1-8b-instruct", D2, "rtx-4090", "slug:rtx-4090",
				    "llama.cpp", "Q4_K_M" };
static struct place fp_of[40];
static char fp_text[40][20];

/* A place of combination mlx_a's with a fingerprint of its own (i). */
static const struct place *own_machine(int i)
{
	snprintf(fp_text[i], sizeof fp_text[i], "%016x", 0x1000 + i);
	fp_of[i] = mlx_a;
	fp_of[i].hw_class = fp_text[i];
	return &fp_of[i];
}

static struct mrun mk(const char *id, const char *key, const struct place *p, double x)
{
	struct mrun r = { "", "", p, x, 10 * x, 1000 / x, 1, 0 };

	snprintf(r.id, sizeof r.id, "%s", id);
	snprintf(r.key, sizeof r.key, "%s", key);
	return r;
}

/* The checked state of run id as its JSON would say: the governing
 * population's key count. */
static int deciding_keys(const char *id)
{
	sqlite3 *h = raw();
	double v = q1(h, "SELECT CASE WHEN c.keys >= 11 THEN c.keys ELSE w.keys END FROM runs r "
		      "JOIN clusters c ON c.suite_version = r.suite_version AND c.model_digest = r.model_digest "
		      "AND c.hw_class = r.hw_class AND c.backend_name = r.backend_name "
		      "JOIN combos w ON w.suite_version = r.suite_version AND w.model_slug = r.model_slug "
		      "AND w.model_digest = r.model_digest AND w.hw_slug = r.hw_slug "
		      "AND w.backend_name = r.backend_name WHERE r.id = ?", &id, 1, NULL, 0);

	sqlite3_close(h);
	return (int)v;
}

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

/* Issue 23, finding 1: one key's eleven uploads weigh as one. */
START_TEST(test_one_key_cannot_flag_another)
{
	struct mrun m[12];
	char id[16];
	int i;

	m[0] = mk("r_victim00000", "victim", &mlx_a, 200);
	ck_assert(!store_run(&m[0]));
	for (i = 0; i < 11; i++) {
		snprintf(id, sizeof id, "r_other%06u", (unsigned)i % 1000000u);
		m[i + 1] = mk(id, "other", &mlx_a, 100 + 0.1 * (i % 3));
		ck_assert(!store_run(&m[i + 1]));
	}
	ck_assert_int_eq(flag_of("r_victim00000"), 0);
	/* Two keys: nobody can be flagged, so nobody is checked. */
	ck_assert_int_eq(deciding_keys("r_victim00000"), 2);
	ck_assert_int_eq(check_exact(m, 12), 0);
}
END_TEST

/* Fourteen keys near 100 and one key's run at 400 in one cluster: the
 * cluster decides (15 keys) and flags it, and only it. */
START_TEST(test_cluster_of_many_keys_flags_the_odd_run)
{
	struct mrun m[15];
	char id[16], key[16];
	int i;

	for (i = 0; i < 14; i++) {
		snprintf(id, sizeof id, "r_near%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "key%d", i);
		m[i] = mk(id, key, &mlx_a, 98 + 0.3 * i);
		ck_assert(!store_run(&m[i]));
	}
	m[14] = mk("r_far00000000", "odd", &mlx_a, 400);
	ck_assert(store_run(&m[14]));
	ck_assert_int_eq(flag_of("r_far00000000"), 1);
	ck_assert_int_eq(deciding_keys("r_far00000000"), 15);
	ck_assert_int_eq(check_exact(m, 15), 0);
}
END_TEST

/* Finding 2: a fingerprint nobody else uses is judged by the combination. */
START_TEST(test_own_fingerprint_is_checked_against_the_combination)
{
	struct mrun m[15];
	char id[16], key[16];
	int i;

	for (i = 0; i < 14; i++) {
		snprintf(id, sizeof id, "r_mach%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "key%d", i);
		m[i] = mk(id, key, own_machine(i), 98 + 0.3 * i);
		ck_assert(!store_run(&m[i]));
	}
	m[14] = mk("r_alone000000", "alone", own_machine(30), 950);
	ck_assert(store_run(&m[14]));
	{
		sqlite3 *h = raw();
		const char *id0 = m[14].id;

		/* Its own cluster has one key: the combination's verdict (2) decides. */
		ck_assert_int_eq((int)q1(h, "SELECT flag_bits FROM runs WHERE id = ?", &id0, 1, NULL, 0), 2);
		sqlite3_close(h);
	}
	ck_assert_int_eq(deciding_keys(m[14].id), 15);
	ck_assert_int_eq(check_exact(m, 15), 0);
}
END_TEST

/* A 2,000 tok/s Llama 3.1 8B Q4_K_M run on an RTX 4090, alone: above 1.5
 * times its peak-bandwidth ceiling (about 205 tok/s), flagged whatever the
 * cluster's size; 250 is not. */
START_TEST(test_far_above_the_ceiling_is_flagged_alone)
{
	struct mrun m[2] = { mk("r_ceiling0000", "k", &llama, 2000), mk("r_ceiling0001", "k2", &llama, 250) };
	sqlite3 *h;
	const char *id = m[0].id;

	ck_assert(store_run(&m[0]));
	ck_assert(!store_run(&m[1]));
	h = raw();
	ck_assert_int_eq((int)q1(h, "SELECT flag_bits FROM runs WHERE id = ?", &id, 1, NULL, 0), 4);
	sqlite3_close(h);
	ck_assert_int_eq(flag_of(m[1].id), 0);
	/* It never enters the typical figures: the combination's best is the 250. */
	check_exact(m, 2);
	/* Upheld and dismissed, it comes back flagged. */
	set_status(m[0].id, "upheld");
	ck_assert_int_eq(flag_of(m[0].id), 0);
	m[0].ok = 0;
	check_exact(m, 2);
	set_status(m[0].id, "ok");
	m[0].ok = 1;
	ck_assert_int_eq(flag_of(m[0].id), 1);
	check_exact(m, 2);
}
END_TEST

/* The combination judges every run; a cluster reaching 11 keys judges its
 * runs too, and stops when it falls below: exactly the runs only it flags
 * change flag. */
START_TEST(test_eleventh_key_moves_the_decision)
{
	struct mrun m[64];
	char id[16], key[16];
	int n = 0, i;

	/* The combination: thirty keys spread 80 to 120 on machines of their own. */
	for (i = 0; i < 30; i++) {
		snprintf(id, sizeof id, "r_wide%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "w%d", i);
		m[n] = mk(id, key, own_machine(i % 30), 80 + 40.0 * i / 29);
		store_run(&m[n++]);
	}
	/* One shared machine: nine tight keys near 100, one at 103. */
	for (i = 0; i < 10; i++) {
		snprintf(id, sizeof id, "r_shar%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "s%d", i);
		m[n] = mk(id, key, &mlx_b, i == 9 ? 103 : 100 + 0.01 * i);
		store_run(&m[n++]);
	}
	ck_assert_int_eq(check_exact(m, n), 0);
	/* Ten keys: the cluster cannot judge, the wide combination passes it. */
	ck_assert_int_eq(flag_of("r_shar0000009"), 0);
	m[n] = mk("r_shar0000010", "s10", &mlx_b, 100);
	store_run(&m[n++]);
	ck_assert_int_eq(check_exact(m, n), 0);
	/* Eleven keys: the cluster judges too, and flags it. */
	ck_assert_int_eq(flag_of("r_shar0000009"), 1);
	set_status("r_shar0000010", "upheld");
	m[n - 1].ok = 0;
	ck_assert_int_eq(check_exact(m, n), 0);
	ck_assert_int_eq(flag_of("r_shar0000009"), 0);
}
END_TEST

START_TEST(test_exactly_three_sigma_and_no_spread)
{
	/* Nine keys at 0 and one at 10: mean 1, sd 3, the last is exactly
	 * 3 sd away (10 - 1 = 9 = 3 x 3): not flagged, "more than" is strict. */
	struct mrun r;
	char id[16], key[16];
	int i;

	for (i = 0; i < 10; i++) {
		snprintf(id, sizeof id, "r_edge%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "k%d", i);
		r = mk(id, key, &mlx_a, i == 9 ? 10.0 : 1e-300);   /* quantizes to 0 */
		store_run(&r);
	}
	ck_assert_int_eq(flag_of("r_edge0000009"), 0);
	/* sd = 0: every key's value equal, nothing flagged however many runs. */
	for (i = 0; i < 30; i++) {
		snprintf(id, sizeof id, "r_flat%07u", (unsigned)i % 10000000u);
		r = mk(id, i % 2 ? "f1" : "f2", &mlx_b, 42.0);
		store_run(&r);
	}
	ck_assert_int_eq(flag_of("r_flat0000029"), 0);
}
END_TEST

/* A key whose runs agree is one value however many runs it sends, and a
 * key's own odd run among its many is flagged. */
START_TEST(test_a_keys_odd_run_among_its_own)
{
	struct mrun m[40];
	char id[16], key[16];
	int n = 0, i;

	for (i = 0; i < 12; i++) {
		snprintf(id, sizeof id, "r_k%010u", (unsigned)i % 1000000000u);
		snprintf(key, sizeof key, "k%d", i);
		m[n] = mk(id, key, &mlx_a, 99 + 0.2 * i);
		store_run(&m[n++]);
	}
	for (i = 0; i < 20; i++) {
		snprintf(id, sizeof id, "r_many%07u", (unsigned)i % 10000000u);
		m[n] = mk(id, "k0", &mlx_a, i == 19 ? 160 : 99.5);
		store_run(&m[n++]);
	}
	ck_assert_int_eq(flag_of("r_many0000019"), 1);
	ck_assert_int_eq(flag_of("r_many0000000"), 0);
	ck_assert_int_eq(check_exact(m, n), 0);
}
END_TEST

/* An upload's cost does not grow with its cluster nor with its key's run
 * count: a few B-tree levels more at most at 3,000 runs of one key. */
START_TEST(test_upload_cost_does_not_grow_with_the_cluster)
{
	struct mrun r;
	struct add a = { &r, 0, 0 };
	unsigned long small = 0, big;
	char id[16], key[16];
	int i, n = 3000;

	for (i = 0; i < 12; i++) {
		snprintf(id, sizeof id, "r_base%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "b%d", i);
		r = mk(id, key, &mlx_a, 100 + 0.1 * i);
		store_run(&r);
	}
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "r_c%010u", (unsigned)i % 1000000000u);
		r = mk(id, "heavy", &mlx_a, 100 + (i % 11) * 0.1);
		ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
		if (i == 20)
			small = a.vm_steps;
	}
	big = a.vm_steps;
	ck_assert_msg(big < small + 150, "an upload took %lu VM steps at 21 runs of its key, %lu at %d",
		      small, big, n);
}
END_TEST

static unsigned long long rng_state;

/* A standard normal draw for the tests below (Box-Muller on rnd()). */
static double rnd(void);
static double gauss(void)
{
	double u = rnd(), v = rnd();

	return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* The same for a cluster of many keys, as real data are: each key's
 * machine a few per cent off the typical speed (its own offset), each run
 * 2% off its key's.  The mean VM steps of an upload stay the same from
 * 400 runs to 4,000: the keys' medians are pointers, the bounds move by
 * little and the band between an old and a new bound holds few runs. */
START_TEST(test_upload_cost_does_not_grow_with_a_cluster_of_many_keys)
{
	enum { KEYS = 150, RUNS = 4000, WIN = 200 };
	double off[KEYS];
	unsigned long early = 0, late = 0;
	struct mrun r;
	struct add a = { &r, 0, 0 };
	char id[16], key[16];
	int i, k;

	rng_state = 0x243f6a8885a308d3ULL;
	for (k = 0; k < KEYS; k++)
		off[k] = exp(0.04 * gauss());
	for (i = 0; i < RUNS; i++) {
		k = i < KEYS ? i : (int)(rnd() * KEYS);
		snprintf(id, sizeof id, "r_h%010u", (unsigned)i % 1000000000u);
		snprintf(key, sizeof key, "hk%d", k);
		r = mk(id, key, &mlx_a, 100 * off[k] * (1 + 0.02 * gauss()));
		ck_assert_int_eq(in_writer(add_run, &a), DB_OK);
		if (i >= 400 && i < 400 + WIN)
			early += a.vm_steps;
		if (i >= RUNS - WIN)
			late += a.vm_steps;
	}
	early /= WIN;
	late /= WIN;
	ck_assert_msg(late < early + early / 5 + 100,
		      "an upload took %lu VM steps on average at 400 runs of %d keys, %lu at %d",
		      early, KEYS, late, RUNS);
}
END_TEST

/* The displayed typical figures against the exact ones over random
 * clusters of many keys whose values spread widely (1 to 1,000 tok/s, a
 * key holding 1 to 40 runs), with withdrawals: each within
 * QUANTILE_PRECISION (0.6%, under the 1% the figures promise). */
START_TEST(test_typical_figures_within_precision_over_random_clusters)
{
	enum { MAXRUNS = 700 };
	const struct place *places[] = { &mlx_a, &mlx_b, &mlx_anon, &llama };
	struct mrun *m = calloc(MAXRUNS, sizeof *m);
	int n = 0, keys, k, j, i;

	rng_state = 0x13198a2e03707344ULL * (unsigned)(_i + 3);
	keys = 20 + (int)(rnd() * 60);
	for (k = 0; k < keys && n < MAXRUNS; k++) {
		const struct place *p = places[(int)(rnd() * 4)];
		double base = exp(log(1.0) + rnd() * log(1000.0));
		int runs = 1 + (int)(rnd() * rnd() * 40);
		char key[16];

		snprintf(key, sizeof key, "rk%d", k);
		for (j = 0; j < runs && n < MAXRUNS; j++, n++) {
			char id[16];

			snprintf(id, sizeof id, "r_p%u%09u", (unsigned)_i % 10u, (unsigned)n % 1000000000u);
			m[n] = mk(id, key, p, base * (1 + 0.05 * gauss()));
			m[n].prefill = base * 8 * (1 + 0.2 * rnd());
			m[n].ttft = 1000 / base * (1 + 0.2 * rnd());
			store_run(&m[n]);
		}
	}
	for (i = 0; i < n / 20; i++) {    /* a few withdrawals */
		j = (int)(rnd() * n);
		if (!m[j].ok)
			continue;
		set_status(m[j].id, "upheld");
		m[j].ok = 0;
		m[j].withdrawn = 1;
	}
	check_exact(m, n);
	free(m);
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

/* ---- random changes against the exact recomputation ---- */

static unsigned long long rng_state;

static double rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

START_TEST(test_incremental_matches_exact_recomputation)
{
	enum { OPS = 360 };
	const struct place *places[] = { &mlx_a, &mlx_a, &mlx_a, &mlx_b, &mlx_anon, &max_a, &llama };
	struct mrun *m = calloc(OPS, sizeof *m);
	int n = 0, op, i, near = 0, flagged = 0;

	rng_state = 0x9e3779b97f4a7c15ULL * (unsigned)(_i + 1);
	for (op = 0; op < OPS; op++) {
		double u = rnd();

		if (u < 0.7 || n < 3) {
			const struct place *p = places[(int)(rnd() * 7)];
			double far = rnd() < 0.06 ? (rnd() < 0.5 ? 0.6 : 1.8) : 1;
			char id[16], key[24];

			snprintf(id, sizeof id, "r_%u%010u", (unsigned)_i % 10u, (unsigned)op % 1000000000u);
			/* Many steady keys (so clusters pass 11 keys), and fresh ones. */
			if (rnd() < 0.75)
				snprintf(key, sizeof key, "steady%d", (int)(rnd() * 16));
			else
				snprintf(key, sizeof key, "fresh%d", op);
			m[n] = mk(id, key, p, (100 + 6 * (rnd() - 0.5)) * far);
			if (p == &llama && rnd() < 0.2)
				m[n].x = 2000;         /* far above its ceiling */
			m[n].prefill = 500 + 300 * rnd();
			m[n].ttft = rnd() < 0.05 ? 0 : 50 + 200 * rnd();
			store_run(&m[n]);
			n++;
		} else if (u < 0.78) {       /* a withdrawal: out for good */
			i = (int)(rnd() * n);
			if (m[i].withdrawn || !m[i].ok)
				continue;
			set_status(m[i].id, "upheld");
			m[i].ok = 0;
			m[i].withdrawn = 1;
		} else {
			int want_ok = u >= 0.9;   /* dismiss an upheld run, else uphold */

			i = (int)(rnd() * n);
			if (m[i].withdrawn || m[i].ok == want_ok)
				continue;
			set_status(m[i].id, want_ok ? "ok" : "upheld");
			m[i].ok = want_ok;
		}
		if (op % 30 == 29 || op == OPS - 1)
			near += check_exact(m, n);
	}
	/* Not vacuous: flags of every kind happened. */
	{
		sqlite3 *h = raw();

		flagged = (int)q1(h, "SELECT count(*) FROM runs WHERE outlier = 1", NULL, 0, NULL, 0);
		ck_assert_msg(flagged > 0, "no run flagged");
		ck_assert(q1(h, "SELECT count(*) FROM runs WHERE flag_bits & 4", NULL, 0, NULL, 0) > 0);
		ck_assert(q1(h, "SELECT count(*) FROM clusters WHERE keys >= 11", NULL, 0, NULL, 0) > 0);
		sqlite3_close(h);
	}
	ck_assert_msg(near <= OPS / 10, "%d checks fell within the tolerance", near);
	/* A rebuild from scratch gives the same state. */
	ck_assert_int_eq(in_writer(rebuild_all, NULL), DB_OK);
	check_exact(m, n);
	free(m);
}
END_TEST

/* Runs the migrations up to 0019 on a fresh database, fills it the old
 * way (raw rows, old flags), then opens it with 0020: the start-up fill
 * brings every figure and flag to the key rule. */
static int insert_raw(struct dbconn *w, void *arg)
{
	const struct mrun *m = arg;
	static const char sql[] =
		"INSERT INTO runs(id, suite_version, model_name, model_slug, model_digest, model_quant, "
		"accelerator, hw_slug, hw_class, backend_name, backend_version, decode_tok_s, prefill_tok_s, "
		"ttft_ms, created_at, received_at, key_thumbprint, alg, payload, jws, jws_sha256, outlier) "
		"VALUES (?1, 'suite-v1', 'M', ?2, ?3, ?4, 'Acc', ?5, ?6, ?7, '1', ?8, ?9, ?10, "
		"'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', ?11, 'EdDSA', '{}', x'00', randomblob(32), ?12)";
	sqlite3_stmt *st;
	int i, rc = DB_OK;

	for (i = 0; rc == DB_OK && m[i].p; i++) {
		if (!(st = db_stmt(w, sql)))
			return DB_ERR;
		db_bind_text(st, 1, m[i].id);
		db_bind_text(st, 2, m[i].p->model);
		db_bind_text(st, 3, m[i].p->digest);
		db_bind_text(st, 4, m[i].p->quant);
		db_bind_text(st, 5, m[i].p->hw);
		db_bind_text(st, 6, m[i].p->hw_class);
		db_bind_text(st, 7, m[i].p->backend);
		sqlite3_bind_double(st, 8, m[i].x);
		sqlite3_bind_double(st, 9, m[i].prefill);
		sqlite3_bind_double(st, 10, m[i].ttft);
		db_bind_text(st, 11, m[i].key);
		sqlite3_bind_int(st, 12, i % 7 == 0);   /* old flags, some wrong */
		rc = sqlite3_step(st) == SQLITE_DONE ? DB_OK : DB_ERR;
		sqlite3_reset(st);
	}
	return rc;
}

START_TEST(test_migration_brings_existing_databases_to_the_key_rule)
{
	struct err err = ERR_INIT;
	char old[300], cmd[2000];
	struct mrun m[40];
	char id[16], key[16];
	int n = 0, i;

	memset(m, 0, sizeof m);
	m[n++] = mk("r_victim00000", "victim", &mlx_a, 200);
	for (i = 0; i < 11; i++) {
		snprintf(id, sizeof id, "r_other%06u", (unsigned)i % 1000000u);
		m[n++] = mk(id, "other", &mlx_a, 100 + 0.1 * i);
	}
	for (i = 0; i < 14; i++) {
		snprintf(id, sizeof id, "r_mach%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "key%d", i);
		m[n++] = mk(id, key, own_machine(i), 98 + 0.3 * i);
	}
	m[n++] = mk("r_alone000000", "alone", own_machine(31), 950);
	m[n++] = mk("r_ceiling0000", "c", &llama, 2000);
	db_close(db);
	db = NULL;
	snprintf(old, sizeof old, "%s/old_migrations", T.dir);
	snprintf(cmd, sizeof cmd, "rm -f '%s'* && mkdir -p '%s' && cp %s/migrations/00[01]*.sql '%s/' && "
		 "rm -f '%s'/002*.sql", T.path, old, repo_root(), old, old);
	ck_assert_int_eq(system(cmd), 0);
	db_after_migrate = outlier_backfill;   /* as commands.c does */
	ck_assert_msg(db_open(T.path, old, &db, &err) == DB_OK, "%s", err.message);
	ck_assert_int_eq(in_writer(insert_raw, m), DB_OK);
	db_close(db);
	snprintf(cmd, sizeof cmd, "%s/migrations", repo_root());
	ck_assert_msg(db_open(T.path, cmd, &db, &err) == DB_OK, "%s", err.message);
	ck_assert_int_eq(check_exact(m, n), 0);
	/* Its own cluster of two keys cannot judge it, but its combination
	 * (17 keys near 100) does: both populations check every run now. */
	ck_assert_int_eq(flag_of("r_victim00000"), 1);
	ck_assert_int_eq(flag_of("r_alone000000"), 1);
	ck_assert_int_eq(flag_of("r_ceiling0000"), 1);
	/* And the uploads after it carry on from there. */
	m[n] = mk("r_after000000", "after", own_machine(32), 99);
	store_run(&m[n++]);
	ck_assert_int_eq(check_exact(m, n), 0);
}
END_TEST

/* Sigma clipping (issue 37, C2): one key at 1e12 tok/s, flagged, leaves
 * its combination's population, so the 800 tok/s run among twelve keys
 * near 100 is flagged too; without clipping the spread (about 1e11) would
 * pass everything.  The model "m" has no ceiling: clipping alone does it. */
START_TEST(test_one_extreme_key_cannot_mask_a_flag)
{
	struct mrun m[16];
	char id[16], key[16];
	int n = 0, i;

	for (i = 0; i < 12; i++) {
		snprintf(id, sizeof id, "r_hon%08u", (unsigned)i);
		snprintf(key, sizeof key, "h%d", i);
		m[n] = mk(id, key, own_machine(i), 97 + 0.5 * i);
		store_run(&m[n++]);
	}
	m[n] = mk("r_huge0000000", "huge", own_machine(12), 1e12);
	ck_assert(store_run(&m[n++]));
	m[n] = mk("r_odd00000000", "odd", own_machine(13), 800);
	ck_assert(store_run(&m[n++]));
	ck_assert_int_eq(check_exact(m, n), 0);
	for (i = 0; i < 12; i++)
		ck_assert_int_eq(flag_of(m[i].id), 0);
	/* The huge key leaving (a ruling) changes nothing for the 800. */
	set_status("r_huge0000000", "upheld");
	m[12].ok = 0;
	ck_assert_int_eq(check_exact(m, n), 0);
	ck_assert_int_eq(flag_of("r_odd00000000"), 1);
}
END_TEST

/* A run above its ceiling takes no part in any population: its 2,000
 * tok/s leaves the combination's key count and spread as they were, so a
 * 150 tok/s run among tight keys near 100 (below 1.5x its ceiling) is
 * still flagged by them. */
START_TEST(test_a_run_above_its_ceiling_never_enters_a_population)
{
	struct mrun m[16];
	char id[16], key[16];
	const char *args[1];
	sqlite3 *h;
	int n = 0, i;

	for (i = 0; i < 12; i++) {
		snprintf(id, sizeof id, "r_tight%06u", (unsigned)i);
		snprintf(key, sizeof key, "t%d", i);
		m[n] = mk(id, key, &llama, 99 + 0.2 * i);
		store_run(&m[n++]);
	}
	m[n] = mk("r_ceil0000000", "c", &llama, 2000);
	ck_assert(store_run(&m[n++]));
	h = raw();
	args[0] = llama.digest;
	ck_assert_int_eq((int)q1(h, "SELECT keys FROM combos WHERE model_digest = ?1", args, 1, NULL, 0), 12);
	ck_assert_int_eq((int)q1(h, "SELECT runs FROM combos WHERE model_digest = ?1", args, 1, NULL, 0), 12);
	sqlite3_close(h);
	m[n] = mk("r_high0000000", "hi", &llama, 150);
	ck_assert(store_run(&m[n++]));
	ck_assert_int_eq(check_exact(m, n), 0);
}
END_TEST

static Suite *suite_outlier(void)
{
	Suite *s = suite_create("outlier");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_is_flagged);
	tcase_add_test(t, test_one_key_cannot_flag_another);
	tcase_add_test(t, test_cluster_of_many_keys_flags_the_odd_run);
	tcase_add_test(t, test_own_fingerprint_is_checked_against_the_combination);
	tcase_add_test(t, test_far_above_the_ceiling_is_flagged_alone);
	tcase_add_test(t, test_eleventh_key_moves_the_decision);
	tcase_add_test(t, test_exactly_three_sigma_and_no_spread);
	tcase_add_test(t, test_a_keys_odd_run_among_its_own);
	tcase_add_test(t, test_upload_cost_does_not_grow_with_the_cluster);
	tcase_add_test(t, test_upload_cost_does_not_grow_with_a_cluster_of_many_keys);
	tcase_add_loop_test(t, test_typical_figures_within_precision_over_random_clusters, 0, 4);
	tcase_add_test(t, test_start_up_count_reads_only_waiting_clusters);
	tcase_add_test(t, test_migration_brings_existing_databases_to_the_key_rule);
	tcase_add_test(t, test_one_extreme_key_cannot_mask_a_flag);
	tcase_add_test(t, test_a_run_above_its_ceiling_never_enters_a_population);
	tcase_add_loop_test(t, test_incremental_matches_exact_recomputation, 0, 3);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_outlier)
