/* check_typical.c: the typical figures of server/store/typical*.c and the
 * arithmetic of server/domain/quantile.c: buckets and their precision, a
 * combination's median over keys with the outlier left out, digests kept
 * apart, one model on one hardware (typical_model_hw), and every statement
 * of the writer's flag and typical code planned on an index. */
#include "check_stats.h"

#include "store/names.h"
#include "store/typical.h"

static void setup(void)
{
	stats_setup();
}

static void teardown(void)
{
	stats_teardown();
}

static const struct place q4 = { "llama-3-1-8b-instruct", D1, "rtx-4090", "slug:rtx-4090",
				 "llama.cpp", "Q4_K_M" };
static const struct place q4_mlx = { "llama-3-1-8b-instruct", D1, "rtx-4090", "slug:rtx-4090",
				     "mlx", "Q4_K_M" };
static const struct place q8 = { "llama-3-1-8b-instruct", D2, "rtx-4090", "slug:rtx-4090",
				 "llama.cpp", "Q8_0" };
static const struct place other_hw = { "llama-3-1-8b-instruct", D1, "m3-ultra", "slug:m3-ultra",
				       "llama.cpp", "Q4_K_M" };

static struct mrun mk(const char *id, const char *key, const struct place *p, double x)
{
	struct mrun r = { "", "", p, x, 10 * x, 1000 / x, 1, 0 };

	snprintf(r.id, sizeof r.id, "%s", id);
	snprintf(r.key, sizeof r.key, "%s", key);
	return r;
}

/* ---- domain/quantile.c ---- */

START_TEST(test_buckets_hold_values_within_their_precision)
{
	double x;
	long long r;
	double f;

	for (x = 1e-5; x < 1e7; x *= 1.0137) {
		double v = quantile_value(quantile_bucket(x));

		ck_assert_msg(fabs(v - x) <= 0.0028 * x, "%.9g reads back as %.9g", x, v);
		ck_assert_int_le(quantile_bucket(x), quantile_bucket(x * 1.0001));
	}
	ck_assert_double_eq(quantile_value(quantile_bucket(0)), 0);
	ck_assert_int_eq(quantile_bucket(NAN), QUANTILE_ZERO_BUCKET);
	quantile_position(0.5, 4, &r, &f);
	ck_assert(r == 1 && f == 0.5);
	quantile_position(0.25, 5, &r, &f);
	ck_assert(r == 1 && f == 0);
	quantile_position(0.75, 1, &r, &f);
	ck_assert(r == 0 && f == 0);
	ck_assert_double_eq(quantile_mix(10, 20, 0.25), 12.5);
	ck_assert_double_eq(quantile_round(123.456, 0.01), 123.46);
	ck_assert_double_eq(quantile_round(98.76, 0.1), 98.8);
	{
		/* A bucket stands for the mean of its values. */
		struct qbucket v[4] = { { 5, 1, 1.0 }, { 3, 2, 1.0 }, { 5, 2, 2.5 }, { 9, 1, 2.0 } };
		int b;
		long long below, bn;
		double val, sum;
		size_t n = quantile_merge(v, 4);

		ck_assert_uint_eq(n, 3);
		ck_assert(v[0].b == 3 && v[1].b == 5 && v[1].n == 3 && v[1].sum == 3.5);
		quantile_of(v, n, 6, 0.5, &b, &below, &bn, &sum, &val);
		ck_assert(b == 5 && below == 2 && bn == 3 && sum == 3.5);
		ck_assert_double_eq(val, 3.5 / 3);
		ck_assert_double_eq(quantile_bucket_value(7, 0, 0), quantile_value(7));
	}
}
END_TEST

/* Fourteen keys near 100 and one key's run at 250 (below 1.5 times its
 * ceiling, so judged by the spread): the median over keys is about 100,
 * the best is the best unflagged run, the 250 is left out. */
START_TEST(test_the_outlier_never_enters_the_typical_figures)
{
	struct mrun m[16];
	char id[16], key[16];
	struct dbconn *c;
	json_t *rows, *row;
	int i;

	for (i = 0; i < 14; i++) {
		snprintf(id, sizeof id, "r_near%07u", (unsigned)i % 10000000u);
		snprintf(key, sizeof key, "key%d", i);
		m[i] = mk(id, key, &q4, 96 + 0.5 * i);
		store_run(&m[i]);
	}
	m[14] = mk("r_far00000000", "odd", &q4, 250);
	ck_assert(store_run(&m[14]));
	check_exact(m, 15);
	ck_assert_ptr_nonnull(c = db_reader(db));
	ck_assert_int_eq(typical_model_hw(c, S1, q4.model, "rtx-4090", &rows), DB_OK);
	ck_assert_uint_eq(json_array_size(rows), 1);
	row = json_array_get(rows, 0);
	/* 14 keys, 96.0 to 102.5: the median 99.25, from bucket means. */
	ck_assert_double_le(fabs(json_real_value(json_object_get(row, "median_decode_tok_s")) - 99.25), 0.6);
	ck_assert_double_eq(json_real_value(json_object_get(row, "best_decode_tok_s")), 102.5);
	ck_assert_str_eq(json_string_value(json_object_get(row, "best_run")), "r_near0000013");
	ck_assert_int_eq(json_integer_value(json_object_get(row, "runs")), 14);
	ck_assert_int_eq(json_integer_value(json_object_get(row, "keys")), 14);
	ck_assert_int_eq(json_integer_value(json_object_get(row, "flagged_runs")), 1);
	ck_assert(json_is_false(json_object_get(row, "one_submitter")));
	ck_assert_str_eq(json_string_value(json_object_get(row, "backend")), "llama.cpp");
	json_decref(rows);
}
END_TEST

/* A hundred uploads of one key weigh as one value. */
START_TEST(test_one_key_weighs_once)
{
	struct mrun m[110];
	char id[16];
	int n = 0, i;

	m[n++] = mk("r_a0000000000", "a", &q4, 100);
	m[n++] = mk("r_b0000000000", "b", &q4, 102);
	for (i = 0; i < 100; i++) {
		snprintf(id, sizeof id, "r_busy%07u", (unsigned)i % 10000000u);
		m[n++] = mk(id, "busy", &q4, 150 + 0.01 * i);
	}
	for (i = 0; i < n; i++)
		store_run(&m[i]);
	check_exact(m, n);
	{
		sqlite3 *h = raw();

		/* Keys 100, 102, 150.5: the median is 102, not ~150. */
		ck_assert_double_le(fabs(q1(h, "SELECT med FROM combos", NULL, 0, NULL, 0) - 102), 0.6);
		ck_assert_int_eq((int)q1(h, "SELECT t_keys FROM combos", NULL, 0, NULL, 0), 3);
		ck_assert_int_eq((int)q1(h, "SELECT t_runs FROM combos", NULL, 0, NULL, 0), 102);
		sqlite3_close(h);
	}
}
END_TEST

/* One model on one hardware: a row per weights file and backend, the
 * highest median first, other hardware left out; one key says so. */
START_TEST(test_model_on_hardware_keeps_digests_apart)
{
	struct mrun m[] = {
		mk("r_q4cpp000000", "a", &q4, 120), mk("r_q4cpp000001", "b", &q4, 124),
		mk("r_q4mlx000000", "a", &q4_mlx, 140),
		mk("r_q8cpp000000", "c", &q8, 80), mk("r_q8cpp000001", "d", &q8, 82),
		mk("r_othhw000000", "a", &other_hw, 300),
	};
	struct dbconn *c;
	json_t *rows;
	size_t i;

	for (i = 0; i < sizeof m / sizeof *m; i++)
		store_run(&m[i]);
	check_exact(m, (int)(sizeof m / sizeof *m));
	ck_assert_ptr_nonnull(c = db_reader(db));
	ck_assert_int_eq(typical_model_hw(c, S1, q4.model, "rtx-4090", &rows), DB_OK);
	ck_assert_uint_eq(json_array_size(rows), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "backend")), "mlx");
	ck_assert(json_is_true(json_object_get(json_array_get(rows, 0), "one_submitter")));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 1), "digest")), D1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 2), "digest")), D2);
	/* Two keys in distinct buckets: their mean, exactly. */
	ck_assert_double_eq(json_real_value(json_object_get(json_array_get(rows, 2), "median_decode_tok_s")), 81);
	ck_assert_double_eq(json_real_value(json_object_get(json_array_get(rows, 0), "median_decode_tok_s")), 140);
	for (i = 0; i < 3; i++)
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, i), "hw_slug")), "rtx-4090");
	json_decref(rows);
	ck_assert_int_eq(typical_model_hw(c, S1, "no-such-model", "rtx-4090", &rows), DB_OK);
	ck_assert_uint_eq(json_array_size(rows), 0);
	json_decref(rows);
}
END_TEST

/* Fails when the plan of sql reads a table front to back, looks rows up
 * without an index, or sorts. */
static void check_plan(sqlite3 *h, const char *sql)
{
	char q[4096];
	sqlite3_stmt *st;

	snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
	ck_assert_msg(sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);

		ck_assert_msg(strncmp(d, "SCAN ", 5) != 0 || !strcmp(d, "SCAN CONSTANT ROW"),
			      "full scan in %s: %s", sql, d);
		ck_assert_msg(!strstr(d, "TEMP B-TREE"), "sort in %s: %s", sql, d);
		if (!strncmp(d, "SEARCH ", 7))
			ck_assert_msg(strstr(d, "INDEX") || strstr(d, "PRIMARY KEY") || strstr(d, "rowid"),
				      "no index in %s: %s", sql, d);
	}
	sqlite3_finalize(st);
}

/* What an upload runs: every statement a seek, whatever the data. */
START_TEST(test_every_writer_statement_uses_an_index)
{
	const char *const *sets[] = { outlier_sql, outlier_median_sql, outlier_pop_sql, outlier_keys_sql,
				      typical_hist_sql, typical_tops_sql, typical_read_sql, outlier_clip_sql, names_sql };
	struct dbconn *c = db_reader(db);
	size_t i, k, total = 0;

	ck_assert_ptr_nonnull(c);
	for (i = 0; i < sizeof sets / sizeof sets[0]; i++)
		for (k = 0; sets[i][k]; k++, total++)
			check_plan(c->h, sets[i][k]);
	ck_assert_uint_ge(total, 40);
}
END_TEST

/* Issue 35: the best run is the fastest counted, unflagged run that is
 * not above its peak-bandwidth ceiling (about 205 tok/s for Llama 3.1 8B
 * Q4_K_M on an RTX 4090) and not under an open dispute; a mark changing
 * moves the best at once. */
static int mark(struct dbconn *w, void *arg)
{
	const char **a = arg;

	return typical_marks_set(w, a[0], a[1] ? TYPICAL_MARK_DISPUTED : 0,
				 a[1] ? 0 : TYPICAL_MARK_DISPUTED);
}

static void best_is(const char *want)
{
	sqlite3 *h = raw();
	const char *args[1] = { q4.digest };
	char got[32] = "";

	q1(h, "SELECT best_id FROM combos WHERE model_digest = ?1", args, 1, got, sizeof got);
	sqlite3_close(h);
	ck_assert_str_eq(got, want);
}

START_TEST(test_the_best_run_can_stand)
{
	struct mrun m[16];
	char id[16], key[16];
	const char *a[2];
	int i;

	for (i = 0; i < 14; i++) {
		snprintf(id, sizeof id, "r_sprd%07u", (unsigned)i);
		snprintf(key, sizeof key, "key%d", i);
		m[i] = mk(id, key, &q4, 60 + 10 * i);
		store_run(&m[i]);
	}
	m[14] = mk("r_abovepeak00", "peak", &q4, 230);
	ck_assert(!store_run(&m[14]));          /* not flagged: below 1.5x */
	check_exact(m, 15);
	best_is("r_sprd0000013");               /* 190, not the 230 */
	a[0] = "r_sprd0000013";
	a[1] = "open";
	ck_assert_int_eq(in_writer(mark, a), DB_OK);
	best_is("r_sprd0000012");
	a[1] = NULL;
	ck_assert_int_eq(in_writer(mark, a), DB_OK);
	best_is("r_sprd0000013");
}
END_TEST

static Suite *suite_typical(void)
{
	Suite *s = suite_create("typical");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_buckets_hold_values_within_their_precision);
	tcase_add_test(t, test_the_outlier_never_enters_the_typical_figures);
	tcase_add_test(t, test_one_key_weighs_once);
	tcase_add_test(t, test_model_on_hardware_keeps_digests_apart);
	tcase_add_test(t, test_every_writer_statement_uses_an_index);
	tcase_add_test(t, test_the_best_run_can_stand);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(suite_typical)
