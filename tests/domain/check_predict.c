/* check_predict.c: the predictor and its leave-one-model-out backtest
 * (domain/predict.c) on synthetic data whose true efficiencies are known.
 * Ceilings are numbers here, as the store will pass them; the RTX 4090
 * ones are what the ceiling arithmetic gives for Q4_K_M weights at the
 * chat-short context (Llama 3.1 8B 164.56 tok/s, Llama 3.2 3B 405.21,
 * Qwen2.5 7B 173.96).  Expected figures marked "by hand" were computed in
 * Python from the formulas in predict.h. */
#include "check_util.h"

#include <math.h>

#include "domain/predict.h"
#include "util/buf.h"

#define N_OF(a) (sizeof a / sizeof *a)

static struct predict_result predict_ok(const struct predict_combo *rows, size_t n,
					const char *model, const char *hw, const char *backend,
					double ceiling)
{
	struct predict_query q = { model, hw, backend, ceiling, NULL };
	struct predict_result r;

	ck_assert_int_eq(predict(rows, n, &q, &r), 0);
	return r;
}

/* The basis text of r for RTX 4090 and llama.cpp must read want. */
static void assert_basis(const struct predict_result *r, const char *want)
{
	struct buf b = BUF_INIT;

	predict_basis(r, "RTX 4090", "llama.cpp", &b);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_str_eq(b.buf, want);
	buf_release(&b);
}

/* The case: Llama 3.1 8B and Llama 3.2 3B at about 70% of their
 * ceilings on an RTX 4090 with llama.cpp, from 10 and 12 keys, predict a
 * third model at about 70% of its ceiling, labelled with its basis. */
START_TEST(two_llamas_predict_a_third)
{
	static const struct predict_combo rows[] = {
		{ "llama-3-1-8b", "rtx-4090", "llama.cpp", 0.70 * 164.56, 164.56, 10, 25 },
		{ "llama-3-2-3b", "rtx-4090", "llama.cpp", 0.71 * 405.21, 405.21, 12, 12 },
	};
	struct predict_result r = predict_ok(rows, 2, "qwen2-5-7b", "rtx-4090", "llama.cpp", 173.96);

	ck_assert_int_eq(r.step, PREDICT_BACKEND_ON_HW);
	ck_assert_str_eq(predict_step_name(r.step), "backend_on_hardware");
	ck_assert_double_lt(fabs(r.tok_s / (0.70 * 173.96) - 1), 0.15);
	ck_assert_double_lt(fabs(r.efficiency - 0.705), 0.001);   /* sqrt(0.70 x 0.71) */
	ck_assert(r.low < r.tok_s && r.tok_s < r.high);
	ck_assert_int_eq(r.models, 2);
	ck_assert_int_eq(r.combos, 2);
	ck_assert_int_eq(r.keys, 22);
	ck_assert_int_eq(r.runs, 37);
	ck_assert_double_eq(r.widen, 1);
	assert_basis(&r, "from 37 runs of 2 other models on RTX 4090 with llama.cpp");
	ck_assert_str_eq(r.from, "from 37 runs of 2 other models on rtx-4090 with llama.cpp");
	{
		struct predict_query q = { "qwen2-5-7b", "rtx-4090", "llama.cpp", 173.96, "RTX 4090" };
		struct predict_result named;

		ck_assert_int_eq(predict(rows, 2, &q, &named), 0);
		ck_assert_str_eq(named.from, "from 37 runs of 2 other models on RTX 4090 with llama.cpp");
	}
	/* the two spread less than the floor: t(0.90, 1) x 0.05 x sqrt(1.5) */
	ck_assert_double_lt(fabs(log(r.eff_high / r.efficiency) - 3.077684 * 0.05 * sqrt(1.5)), 1e-9);
}
END_TEST

/* The interval of two models at 60% and 80%: geometric mean, and the
 * t interval on logarithms (by hand: 0.6928, 0.3218 .. 1.4915). */
START_TEST(interval_by_hand)
{
	static const struct predict_combo rows[] = {
		{ "a", "hw", "mlx", 60, 100, 8, 8 },
		{ "b", "hw", "mlx", 80, 100, 9, 9 },
	};
	struct predict_query q = { "c", "hw", "mlx", 50, NULL };
	struct predict_result r;

	ck_assert_int_eq(predict(rows, 2, &q, &r), 0);
	ck_assert_double_eq_tol(r.efficiency, 0.6928203230275509, 1e-12);
	ck_assert_double_eq_tol(r.eff_low, 0.32182134170424487, 1e-6);
	ck_assert_double_eq_tol(r.eff_high, 1.4915107788007482, 1e-6);
	ck_assert_double_eq(r.tok_s, 34.64);                      /* rounded to 0.01 */
	ck_assert_double_eq(r.low, 16.09);
	ck_assert_double_eq(r.high, 74.58);
}
END_TEST

/* Below the minimum: one other model, or a second with 7 keys, gives no
 * figure; 8 keys each is enough.  The model's own rows never count. */
START_TEST(minimum_evidence)
{
	struct predict_combo rows[] = {
		{ "a", "rtx-4090", "llama.cpp", 70, 100, 30, 90 },
		{ "b", "rtx-4090", "llama.cpp", 72, 100, 7, 7 },
		{ "me", "rtx-4090", "llama.cpp", 50, 100, 100, 300 },
		{ "me", "rtx-4090", "llama.cpp", 51, 90, 100, 300 },
	};
	struct predict_result r = predict_ok(rows, 1, "me", "rtx-4090", "llama.cpp", 150);

	ck_assert_int_eq(r.step, PREDICT_NONE);
	ck_assert_double_eq(r.tok_s, 0);
	ck_assert_str_eq(r.from, "too few runs to predict: a prediction needs 2 other models "
			 "measured by 8 submitters each");
	assert_basis(&r, "too few runs to predict: a prediction needs 2 other models "
			 "measured by 8 submitters each");
	r = predict_ok(rows, 4, "me", "rtx-4090", "llama.cpp", 150);
	ck_assert_int_eq(r.step, PREDICT_NONE);
	rows[1].keys = 8;
	r = predict_ok(rows, 4, "me", "rtx-4090", "llama.cpp", 150);
	ck_assert_int_eq(r.step, PREDICT_BACKEND_ON_HW);
	ck_assert_int_eq(r.models, 2);
	ck_assert_int_eq(r.runs, 97);
	/* without a ceiling there is nothing to multiply */
	ck_assert_int_eq(predict_ok(rows, 4, "me", "rtx-4090", "llama.cpp", 0).step, PREDICT_NONE);
	ck_assert_int_eq(predict_ok(rows, 4, "me", "rtx-4090", "llama.cpp", NAN).step, PREDICT_NONE);
	/* a row without a ceiling is not evidence */
	rows[1].ceiling = NAN;
	ck_assert_int_eq(predict_ok(rows, 4, "me", "rtx-4090", "llama.cpp", 150).step, PREDICT_NONE);
	ck_assert_int_eq(predict_ok(NULL, 0, "me", "rtx-4090", "llama.cpp", 150).step, PREDICT_NONE);
}
END_TEST

/* A model's weights files are one model: its efficiency is their median. */
START_TEST(each_model_weighs_once)
{
	static const struct predict_combo rows[] = {
		{ "a", "hw", "vllm", 40, 100, 8, 8 },       /* a: 0.4, 0.5, 0.9: median 0.5 */
		{ "a", "hw", "vllm", 90, 100, 8, 8 },
		{ "a", "hw", "vllm", 50, 100, 8, 8 },
		{ "b", "hw", "vllm", 50, 100, 8, 8 },
	};
	struct predict_result r = predict_ok(rows, 4, "c", "hw", "vllm", 200);

	ck_assert_int_eq(r.models, 2);
	ck_assert_int_eq(r.combos, 4);
	ck_assert_double_eq_tol(r.efficiency, 0.5, 1e-12);
	ck_assert_double_eq(r.tok_s, 100);
}
END_TEST

/* The same points met in each step: the steps after the first widen the
 * log half-width by 1.5 and 2, and say why. */
START_TEST(fallback_steps_widen)
{
	static const struct predict_combo on_hw[] = {
		{ "a", "rtx-4090", "llama.cpp", 60, 100, 8, 10 },
		{ "b", "rtx-4090", "llama.cpp", 80, 100, 8, 11 },
	};
	static const struct predict_combo other_hw[] = {
		{ "a", "rtx-3090", "llama.cpp", 60, 100, 8, 10 },
		{ "b", "m2", "llama.cpp", 80, 100, 8, 11 },
		{ "x", "rtx-4090", "vllm", 10, 100, 30, 30 },  /* alone: step 3 needs two */
	};
	static const struct predict_combo other_backend[] = {
		{ "a", "rtx-4090", "vllm", 60, 100, 8, 10 },
		{ "b", "rtx-4090", "exllamav2", 80, 100, 8, 11 },
		{ "c", "m2", "llama.cpp", 99, 100, 8, 11 },      /* one model: step 2 needs two */
	};
	struct predict_result r1 = predict_ok(on_hw, 2, "q", "rtx-4090", "llama.cpp", 100);
	struct predict_result r2 = predict_ok(other_hw, 3, "q", "rtx-4090", "llama.cpp", 100);
	struct predict_result r3 = predict_ok(other_backend, 3, "q", "rtx-4090", "llama.cpp", 100);
	double h1 = log(r1.eff_high / r1.efficiency);

	ck_assert_int_eq(r1.step, PREDICT_BACKEND_ON_HW);
	ck_assert_int_eq(r2.step, PREDICT_BACKEND_ALL_HW);
	ck_assert_int_eq(r3.step, PREDICT_ALL_BACKENDS_ON_HW);
	ck_assert_double_eq_tol(r2.efficiency, r1.efficiency, 1e-12);
	ck_assert_double_eq_tol(log(r2.eff_high / r2.efficiency), 1.5 * h1, 1e-12);
	ck_assert_double_eq_tol(log(r2.efficiency / r2.eff_low), 1.5 * h1, 1e-12);
	ck_assert_double_eq_tol(log(r3.eff_high / r3.efficiency), 2 * h1, 1e-12);
	ck_assert_str_eq(predict_step_name(r2.step), "backend_on_all_hardware");
	ck_assert_str_eq(predict_step_name(r3.step), "all_backends_on_hardware");
	ck_assert_str_eq(predict_step_name(PREDICT_NONE), "none");
	assert_basis(&r2, "from 21 runs of 2 other models with llama.cpp on all hardware, "
			  "as too few were measured on RTX 4090 (interval widened 1.5\xc3\x97)");
	assert_basis(&r3, "from 21 runs of 2 other models on RTX 4090 with all backends, "
			  "as too few were measured with llama.cpp (interval widened 2.0\xc3\x97)");
}
END_TEST

/* Step 1 wins when it has enough, whatever the wider steps hold; counts
 * with thousands are written with commas. */
START_TEST(first_step_with_evidence_wins)
{
	static const struct predict_combo rows[] = {
		{ "a", "rtx-4090", "llama.cpp", 70, 100, 800, 1200 },
		{ "b", "rtx-4090", "llama.cpp", 70, 100, 9, 34 },
		{ "c", "m2", "llama.cpp", 20, 100, 50, 50 },
		{ "d", "rtx-4090", "vllm", 20, 100, 50, 50 },
	};
	struct predict_result r = predict_ok(rows, 4, "q", "rtx-4090", "llama.cpp", 100);

	ck_assert_int_eq(r.step, PREDICT_BACKEND_ON_HW);
	ck_assert_double_eq_tol(r.efficiency, 0.7, 1e-12);
	assert_basis(&r, "from 1,234 runs of 2 other models on RTX 4090 with llama.cpp");
}
END_TEST

/* A name too long for the basis text is cut between two code points. */
START_TEST(long_name_cut_between_code_points)
{
	static const struct predict_combo rows[] = {
		{ "a", "hw", "mlx", 60, 100, 8, 8 },
		{ "b", "hw", "mlx", 80, 100, 9, 9 },
	};
	char name[1201];
	struct predict_query q = { "c", "hw", "mlx", 50, name };
	struct predict_result r;
	size_t i, len;

	for (i = 0; i < 600; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);             /* é */
	name[1200] = '\0';
	ck_assert_int_eq(predict(rows, 2, &q, &r), 0);
	len = strlen(r.from);
	ck_assert_uint_le(len, PREDICT_FROM_MAX - 1);
	ck_assert_uint_ge(len, PREDICT_FROM_MAX - 2);
	ck_assert_int_eq((unsigned char)r.from[len - 1], 0xa9);  /* the last é whole */
	ck_assert(strncmp(r.from, "from 17 runs of 2 other models on \xc3\xa9", 36) == 0);
}
END_TEST

/* By hand: three models at 60, 70, 80% on one machine, each predicted
 * from the other two: errors 24.72, 1.03, 18.99%; all inside. */
START_TEST(backtest_by_hand)
{
	static const struct predict_combo rows[] = {
		{ "a", "hw", "llama.cpp", 60, 100, 10, 10 },
		{ "b", "hw", "llama.cpp", 70, 100, 10, 10 },
		{ "c", "hw", "llama.cpp", 80, 100, 10, 10 },
		{ "d", "hw", "llama.cpp", 80, 100, 2, 2 },      /* too few keys to test */
	};
	struct predict_backtest b;

	ck_assert_int_eq(predict_backtest(rows, 4, &b), 0);
	ck_assert_int_eq(b.tested, 3);
	ck_assert_int_eq(b.by_step[PREDICT_BACKEND_ON_HW], 3);
	ck_assert_int_eq(b.inside, 3);
	ck_assert_double_eq(b.inside_share, 1);
	ck_assert_double_eq_tol(b.median_abs_pct, 18.9875, 1e-9);
	ck_assert_int_eq(b.unpredicted, 0);
	ck_assert_int_eq(predict_backtest(rows, 2, &b), 0);   /* one other model: none */
	ck_assert_int_eq(b.tested, 0);
	ck_assert_int_eq(b.unpredicted, 2);
	ck_assert_double_eq(b.median_abs_pct, 0);
}
END_TEST

/* Leaving one model out leaves all of it out: its run on other hardware
 * must not predict it (at 10% of the ceiling it would pull the figure). */
START_TEST(backtest_leaves_whole_model_out)
{
	static const struct predict_combo rows[] = {
		{ "x", "rtx-4090", "llama.cpp", 70, 100, 10, 10 },
		{ "x", "m2", "llama.cpp", 10, 100, 10, 10 },
		{ "a", "m2", "llama.cpp", 70, 100, 10, 10 },
		{ "b", "m2", "llama.cpp", 70, 100, 10, 10 },
	};
	struct predict_backtest b;

	ck_assert_int_eq(predict_backtest(rows, 4, &b), 0);
	/* x on rtx-4090 from a and b (step 2): exact; x on m2 from a and b
	 * (step 1): 600% off; a and b from each other and x's m2 row. */
	ck_assert_int_eq(b.by_step[PREDICT_BACKEND_ALL_HW], 1);
	ck_assert_int_eq(b.by_step[PREDICT_BACKEND_ON_HW], 3);
	{
		struct predict_result r = predict_ok(rows, 4, "x", "rtx-4090", "llama.cpp", 100);

		ck_assert_double_eq(r.tok_s, 70);
	}
}
END_TEST

/* A Gaussian draw from a fixed sequence (Box-Muller). */
static double gauss(unsigned long long *s)
{
	double u1, u2;

	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u1 = ((*s >> 11) + 0.5) / 9007199254740992.0;
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u2 = ((*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static const char *const model_names[] = {
	"m00", "m01", "m02", "m03", "m04", "m05", "m06", "m07", "m08", "m09",
	"m10", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19",
	"m20", "m21", "m22", "m23", "m24", "m25", "m26", "m27", "m28", "m29",
	"m30", "m31", "m32", "m33", "m34", "m35", "m36", "m37", "m38", "m39",
	"m40", "m41", "m42", "m43", "m44", "m45", "m46", "m47", "m48", "m49",
	"m50", "m51", "m52", "m53", "m54", "m55", "m56", "m57", "m58", "m59",
};

/* Sixty models whose true efficiencies on one machine are 70% times a
 * log-normal factor of spread 0.12, with ceilings from 20 to 400 tok/s:
 * the backtest's figures are what that spread implies: about 80% inside
 * (the interval's nominal coverage) and a median error near 0.6745 x
 * 0.12 = 8%. */
START_TEST(backtest_coverage_is_nominal)
{
	struct predict_combo rows[60];
	unsigned long long s = 12345;
	struct predict_backtest b;
	size_t i;

	for (i = 0; i < 60; i++) {
		double ceiling = 20 + 380 * (double)i / 59;

		rows[i] = (struct predict_combo){ model_names[i], "rtx-4090", "llama.cpp",
			ceiling * 0.70 * exp(0.12 * gauss(&s)), ceiling, 8 + (int)i % 5, 20 };
	}
	ck_assert_int_eq(predict_backtest(rows, 60, &b), 0);
	ck_assert_int_eq(b.tested, 60);
	ck_assert_double_ge(b.inside_share, 0.70);
	ck_assert_double_le(b.inside_share, 0.90);
	ck_assert_double_ge(b.median_abs_pct, 4);
	ck_assert_double_le(b.median_abs_pct, 12);
	/* a new model at exactly 70% is predicted within 5% */
	{
		struct predict_result r = predict_ok(rows, 60, "new", "rtx-4090", "llama.cpp", 173.96);

		ck_assert_double_lt(fabs(r.tok_s / (0.70 * 173.96) - 1), 0.05);
		ck_assert_int_eq(r.models, 60);
	}
}
END_TEST

/* With the fewest models (two predicting a third), over 2,000 draws of
 * such worlds the interval still holds the third's efficiency at least 80%
 * of the time (more: the floor widens the narrowest). */
START_TEST(coverage_with_two_models)
{
	unsigned long long s = 777;
	int world, inside = 0;

	for (world = 0; world < 2000; world++) {
		struct predict_combo rows[2] = {
			{ "a", "hw", "mlx", 100 * 0.9 * exp(0.10 * gauss(&s)), 100, 8, 8 },
			{ "b", "hw", "mlx", 100 * 0.9 * exp(0.10 * gauss(&s)), 100, 8, 8 },
		};
		double truth = 100 * 0.9 * exp(0.10 * gauss(&s));
		struct predict_result r = predict_ok(rows, 2, "c", "hw", "mlx", 100);

		inside += r.low <= truth && truth <= r.high;
	}
	ck_assert_int_ge(inside, 1600);
	ck_assert_int_le(inside, 1950);
}
END_TEST

static Suite *suite_predict(void)
{
	Suite *s = suite_create("predict");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, two_llamas_predict_a_third);
	tcase_add_test(tc, interval_by_hand);
	tcase_add_test(tc, minimum_evidence);
	tcase_add_test(tc, each_model_weighs_once);
	tcase_add_test(tc, fallback_steps_widen);
	tcase_add_test(tc, first_step_with_evidence_wins);
	tcase_add_test(tc, long_name_cut_between_code_points);
	tcase_add_test(tc, backtest_by_hand);
	tcase_add_test(tc, backtest_leaves_whole_model_out);
	tcase_add_test(tc, backtest_coverage_is_nominal);
	tcase_add_test(tc, coverage_with_two_models);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_predict)
