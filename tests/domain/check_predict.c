/* check_predict.c: the predictor, its index and its leave-one-model-out
 * backtest (domain/predict.c, predict_backtest.c) on synthetic data whose
 * truth is known.  Ceilings are numbers here, as the store passes them.
 * Figures marked "by hand" were computed in Python from the formulas in
 * predict.h. */
#include "check_util.h"

#include <math.h>

#include "domain/predict.h"
#include "util/buf.h"

#define D4 0        /* dense, 4-bit */
#define D16 2       /* dense, 16-bit */
#define M4 3        /* MoE, 4-bit */

/* Names for generated models. */
static const char *name_of(int i)
{
	static char names[200][8];

	snprintf(names[i], sizeof names[i], "m%03d", i);
	return names[i];
}

/* An evidence row: 8 keys, runs as given. */
static struct predict_combo row(const char *model, const char *hw, const char *kin,
				const char *backend, int cls, double median, double ceiling,
				long long runs)
{
	return (struct predict_combo){ model, hw, kin, backend, cls, median, ceiling,
				       PREDICT_MIN_KEYS, runs };
}

static struct predict_result predict_ok(const struct predict_combo *rows, size_t n,
					const struct predict_query *q)
{
	struct predict_index ix;
	struct predict_result r;

	ck_assert_int_eq(predict_index_build(rows, n, &ix, NULL), 0);
	predict(&ix, q, &r);
	predict_index_free(&ix);
	return r;
}

static struct predict_query query(const char *model, const char *hw, const char *kin,
				  const char *backend, int cls, double ceiling)
{
	return (struct predict_query){ model, hw, kin, backend, cls, ceiling, NULL };
}

START_TEST(classes_and_kin)
{
	ck_assert_str_eq(predict_class_name(predict_class(0, 4.85)), "dense-4bit");   /* Q4_K_M */
	ck_assert_str_eq(predict_class_name(predict_class(0, 5.0)), "dense-4bit");    /* Q4_1 */
	ck_assert_str_eq(predict_class_name(predict_class(0, 5.5)), "dense-8bit");    /* Q5_0 */
	ck_assert_str_eq(predict_class_name(predict_class(0, 8.5)), "dense-8bit");    /* Q8_0 */
	ck_assert_str_eq(predict_class_name(predict_class(0, 16)), "dense-16bit");
	ck_assert_str_eq(predict_class_name(predict_class(1, 4.25)), "moe-4bit");     /* MXFP4 */
	ck_assert_str_eq(predict_class_words(predict_class(1, 8.5)), "MoE 5- to 8-bit");
	ck_assert_int_eq(predict_class(0, NAN), -1);
	ck_assert_int_eq(predict_class(0, 0), -1);
	ck_assert_str_eq(predict_class_name(-1), "unknown");
	ck_assert_str_eq(predict_kin("nvidia", 0), "nvidia");
	ck_assert_str_eq(predict_kin("amd", 1), "amd-cpu");
	ck_assert_str_eq(predict_kin("amd", 0), "amd");
	ck_assert_ptr_null(predict_kin("qualcomm", 0));
	ck_assert_str_eq(predict_kin_words("apple"), "Apple silicon");
	ck_assert_str_eq(predict_kin_words("intel-cpu"), "Intel processors");
	ck_assert_str_eq(predict_step_name(PREDICT_SAME_KIN), "same_vendor");
	ck_assert_str_eq(predict_method_name(PREDICT_TIME), "time");
	ck_assert_ptr_null(predict_refusal_name(PREDICT_OK));
	ck_assert_str_eq(predict_refusal_name(PREDICT_NO_FIT), "does_not_fit");
}
END_TEST

/* Three other models at 60, 70 and 80% of one ceiling: the ratio's
 * median of the models (0.7), from step 1, with its basis.  Two
 * are not enough, and the model's own rows never count. */
START_TEST(three_other_models_on_the_same_hardware)
{
	struct predict_combo rows[] = {
		row("a", "rtx-4090", "nvidia", "llama.cpp", D4, 60, 100, 10),
		row("b", "rtx-4090", "nvidia", "llama.cpp", D4, 70, 100, 11),
		row("c", "rtx-4090", "nvidia", "llama.cpp", D4, 80, 100, 12),
		row("me", "rtx-4090", "nvidia", "llama.cpp", D4, 10, 100, 99),
	};
	struct predict_query q = query("me", "rtx-4090", "nvidia", "llama.cpp", D4, 200);
	struct predict_result r = predict_ok(rows, 4, &q);
	struct buf b = BUF_INIT;

	ck_assert_int_eq(r.step, PREDICT_SAME_HW);
	ck_assert_int_eq(r.method, PREDICT_RATIO);          /* one ceiling: no time fit */
	ck_assert_double_eq_tol(r.efficiency, 0.7, 1e-12);
	ck_assert_double_eq(r.tok_s, 140);
	ck_assert_int_eq(r.models, 3);
	ck_assert_int_eq(r.combos, 3);
	ck_assert_int_eq(r.runs, 33);
	ck_assert_int_eq(r.keys, 3 * PREDICT_MIN_KEYS);
	ck_assert_str_eq(r.from, "from 33 runs of 3 other dense 4-bit models on rtx-4090 with "
			 "llama.cpp; their typical share of the ceiling");
	predict_basis(&r, "RTX 4090", "nvidia", "llama.cpp", &b);
	ck_assert_str_eq(b.buf, "from 33 runs of 3 other dense 4-bit models on RTX 4090 with "
			 "llama.cpp; their typical share of the ceiling");
	buf_release(&b);
	/* no backtest point: no interval, so too uncertain */
	ck_assert_int_eq(r.has_interval, 0);
	ck_assert_int_eq(r.too_uncertain, 1);
	r = predict_ok(rows + 1, 3, &q);
	ck_assert_int_eq(r.step, PREDICT_NONE);
	ck_assert_str_eq(r.from, "too few runs to predict: a prediction needs 3 other dense 4-bit "
			 "models measured with llama.cpp by 8 submitters each");
	rows[0].keys = PREDICT_MIN_KEYS - 1;                 /* thin: not evidence */
	ck_assert_int_eq(predict_ok(rows, 4, &q).step, PREDICT_NONE);
	rows[0].keys = PREDICT_MIN_KEYS;
	q.ceiling = NAN;
	ck_assert_int_eq(predict_ok(rows, 4, &q).step, PREDICT_NONE);
	q.ceiling = 200;
	q.cls = -1;
	ck_assert_int_eq(predict_ok(rows, 4, &q).step, PREDICT_NONE);
}
END_TEST

/* Dense and MoE, 4- and 16-bit weights never mix: MoE runs at 45% do
 * not pull a dense prediction, nor dense 16-bit runs at 95%. */
START_TEST(classes_do_not_mix)
{
	const struct predict_combo rows[] = {
		row("a", "m4-max", "apple", "mlx", D4, 70, 100, 1),
		row("b", "m4-max", "apple", "mlx", D4, 70, 100, 1),
		row("c", "m4-max", "apple", "mlx", D4, 70, 100, 1),
		row("d", "m4-max", "apple", "mlx", M4, 45, 100, 1),
		row("e", "m4-max", "apple", "mlx", M4, 45, 100, 1),
		row("f", "m4-max", "apple", "mlx", M4, 45, 100, 1),
		row("g", "m4-max", "apple", "mlx", D16, 95, 100, 1),
		row("h", "m4-max", "apple", "mlx", D16, 95, 100, 1),
		row("i", "m4-max", "apple", "mlx", D16, 95, 100, 1),
	};
	struct predict_query q = query("new", "m4-max", "apple", "mlx", D4, 50);

	ck_assert_double_eq(predict_ok(rows, 9, &q).tok_s, 35);
	q.cls = M4;
	ck_assert_double_eq(predict_ok(rows, 9, &q).tok_s, 22.5);
	q.cls = D16;
	ck_assert_double_eq(predict_ok(rows, 9, &q).tok_s, 47.5);
	q.backend = "llama.cpp";                               /* nor backends */
	ck_assert_int_eq(predict_ok(rows, 9, &q).step, PREDICT_NONE);
}
END_TEST

/* The steps in order: too few on this machine, its kin; too few there,
 * all hardware; each saying why. */
START_TEST(steps_widen_in_order)
{
	const struct predict_combo rows[] = {
		row("a", "rtx-4090", "nvidia", "llama.cpp", D4, 80, 100, 1),
		row("b", "rtx-3090", "nvidia", "llama.cpp", D4, 80, 100, 1),
		row("c", "rtx-3090", "nvidia", "llama.cpp", D4, 80, 100, 1),
		row("d", "m2-ultra", "apple", "llama.cpp", D4, 50, 100, 1),
		row("e", "m3-max", "apple", "llama.cpp", D4, 50, 100, 1),
		row("f", "m1", "apple", "llama.cpp", D4, 50, 100, 1),
		row("g", "m1", "apple", "llama.cpp", D4, 50, 100, 1),
	};
	struct predict_query q = query("new", "rtx-4090", "nvidia", "llama.cpp", D4, 100);
	struct predict_result r = predict_ok(rows, 7, &q);
	struct buf b = BUF_INIT;

	ck_assert_int_eq(r.step, PREDICT_SAME_KIN);
	ck_assert_double_eq(r.tok_s, 80);
	ck_assert_int_eq(r.models, 3);
	predict_basis(&r, "RTX 4090", "nvidia", "llama.cpp", &b);
	ck_assert_str_eq(b.buf, "from 3 runs of 3 other dense 4-bit models on NVIDIA GPUs with "
			 "llama.cpp, as fewer than 3 were measured on RTX 4090; their typical share "
			 "of the ceiling");
	buf_release(&b);
	q.hw = "rx-7900-xtx";
	q.kin = "amd";
	r = predict_ok(rows, 7, &q);
	ck_assert_int_eq(r.step, PREDICT_ALL_HW);
	ck_assert_int_eq(r.models, 7);
	ck_assert_double_eq_tol(r.efficiency, 0.5, 1e-12);   /* median of 3 x 0.8, 4 x 0.5 */
	ck_assert_str_eq(r.from, "from 7 runs of 7 other dense 4-bit models with llama.cpp on all "
			 "hardware, as fewer than 3 were measured on AMD GPUs; their typical share of "
			 "the ceiling");
	q.kin = NULL;                                  /* unknown kin: straight to all */
	ck_assert_int_eq(predict_ok(rows, 7, &q).step, PREDICT_ALL_HW);
	q.hw = "m1";                                   /* m1's own three: step 1 */
	q.kin = "apple";
	q.model = "zz";
	ck_assert_int_eq(predict_ok(rows, 7, &q).step, PREDICT_SAME_KIN);   /* f, g: two models */
}
END_TEST

/* Runs on one machine whose time per token is exactly a / ceiling + b
 * (a = 1.1, b = 3 ms): the time model finds them and predicts a small,
 * fast model below the share of its ceiling the large ones reach. */
START_TEST(time_model_fits_an_overhead)
{
	struct predict_combo rows[6];
	static const double ceilings[6] = { 20, 40, 60, 90, 130, 180 };
	struct predict_query q = query("small", "rtx-4090", "nvidia", "llama.cpp", D4, 400);
	struct predict_result r;
	int i;

	for (i = 0; i < 6; i++)
		rows[i] = row(name_of(i), "rtx-4090", "nvidia", "llama.cpp", D4,
			      1 / (1.1 / ceilings[i] + 0.003), ceilings[i], 1);
	r = predict_ok(rows, 6, &q);
	ck_assert_int_eq(r.step, PREDICT_SAME_HW);
	ck_assert_int_eq(r.method, PREDICT_TIME);
	ck_assert_double_eq_tol(r.time_a, 1.1, 1e-9);
	ck_assert_double_eq_tol(r.time_b, 0.003, 1e-12);
	ck_assert_double_eq_tol(r.tok_s, 1 / (1.1 / 400 + 0.003), 0.006);
	ck_assert_double_lt(r.efficiency, 0.5);
	ck_assert(strstr(r.from, "; time per token fitted to the ceiling"));
}
END_TEST

/* A time fit that means nothing (b below 0: the fast ones are the
 * efficient ones) gives way to the ratio. */
START_TEST(time_model_gives_way_when_it_means_nothing)
{
	const struct predict_combo rows[] = {
		row("a", "hw", "nvidia", "vllm", D4, 10, 20, 1),
		row("b", "hw", "nvidia", "vllm", D4, 60, 100, 1),
		row("c", "hw", "nvidia", "vllm", D4, 190, 200, 1),
	};
	struct predict_query q = query("new", "hw", "nvidia", "vllm", D4, 100);
	struct predict_result r = predict_ok(rows, 3, &q);

	ck_assert_int_eq(r.method, PREDICT_RATIO);
	ck_assert_double_eq_tol(r.efficiency, 0.6, 1e-12);
}
END_TEST

/* Models combine by their median, each model once: two inflated models
 * among five, one of them with eleven combinations, leave the figure at
 * the honest three's;
 * a geometric mean over combinations would have put it near 0.9.  With
 * an even number the two middle models are averaged. */
START_TEST(models_combine_by_their_median)
{
	struct predict_combo rows[16];
	struct predict_query q = query("me", "rtx-4090", "nvidia", "llama.cpp", D4, 100);
	struct predict_result r;
	size_t n = 0;
	int i;

	rows[n++] = row("a", "rtx-4090", "nvidia", "llama.cpp", D4, 50, 100, 3);
	rows[n++] = row("b", "rtx-4090", "nvidia", "llama.cpp", D4, 55, 100, 3);
	rows[n++] = row("c", "rtx-4090", "nvidia", "llama.cpp", D4, 60, 100, 3);
	rows[n++] = row("x", "rtx-4090", "nvidia", "llama.cpp", D4, 99, 100, 3);
	for (i = 0; i < 10; i++)
		rows[n++] = row("y", "rtx-4090", "nvidia", "llama.cpp", D4, 99, 100, 3);
	r = predict_ok(rows, n, &q);
	ck_assert_int_eq(r.step, PREDICT_SAME_HW);
	ck_assert_int_eq(r.models, 5);
	ck_assert_double_eq_tol(r.efficiency, 0.6, 1e-12);
	ck_assert_double_eq(r.tok_s, 60);
	q.model = "c";                                 /* c left out: b and x */
	r = predict_ok(rows, n, &q);
	ck_assert_int_eq(r.models, 4);
	ck_assert_double_eq_tol(r.efficiency, (0.55 + 0.99) / 2, 1e-12);
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

/* n models on one machine, a / ceiling + b with log-normal noise of the
 * given spread, ceilings 20 to 400 tok/s. */
static void world(struct predict_combo *rows, int n, double a, double b, double spread,
		  unsigned long long seed)
{
	int i;

	for (i = 0; i < n; i++) {
		double c = 20 + 380.0 * i / (n - 1);

		rows[i] = row(name_of(i), "rtx-4090", "nvidia", "llama.cpp", D4,
			      exp(spread * gauss(&seed)) / (a / c + b), c, 1);
		rows[i].keys = PREDICT_MIN_KEYS + i % 3;
	}
}

/* Sixty models with a per-token overhead and 12% noise: the backtest
 * keeps the time model on step 1, its intervals cover about 80% out of
 * sample, and the site beats both rules of thumb. */
START_TEST(backtest_keeps_the_better_way_and_calibrates)
{
	struct predict_combo rows[60];
	struct predict_index ix;
	struct predict_backtest b;
	struct predict_query q = query("new", "rtx-4090", "nvidia", "llama.cpp", D4, 300);
	struct predict_result r;

	world(rows, 60, 1.15, 0.002, 0.12, 99);
	ck_assert_int_eq(predict_index_build(rows, 60, &ix, &b), 0);
	ck_assert_int_eq(b.tested, 60);
	ck_assert_int_eq(b.by_step[PREDICT_SAME_HW], 60);
	ck_assert_int_eq(b.calib.method[PREDICT_SAME_HW], PREDICT_TIME);
	ck_assert_double_lt(b.method_mean[PREDICT_SAME_HW][PREDICT_TIME],
			    b.method_mean[PREDICT_SAME_HW][PREDICT_RATIO]);
	ck_assert_double_ge(b.coverage, 0.70);
	ck_assert_double_le(b.coverage, 0.90);
	ck_assert_int_eq(b.calib.have[PREDICT_SAME_HW], 1);
	ck_assert_int_eq(b.calib.pooled[PREDICT_SAME_HW], 0);
	ck_assert_double_lt(b.calib.lo[PREDICT_SAME_HW], 0);
	ck_assert_double_gt(b.calib.hi[PREDICT_SAME_HW], 0);
	ck_assert_double_lt(b.site.mean, fmin(b.share.mean, b.hw_median.mean));
	ck_assert_double_le(b.site.median, b.site.p90);
	ck_assert_double_le(b.site.p90, b.site.worst);
	ck_assert_double_lt(b.median_width, PREDICT_TOO_WIDE);
	/* A page's prediction carries the step's interval: about 1.4x wide. */
	predict(&ix, &q, &r);
	ck_assert_int_eq(r.has_interval, 1);
	ck_assert(r.low < r.tok_s && r.tok_s < r.high);
	ck_assert_double_eq_tol(log(r.high / r.low),
				b.calib.hi[PREDICT_SAME_HW] - b.calib.lo[PREDICT_SAME_HW], 1e-3);
	ck_assert_int_eq(r.too_uncertain, 0);
	ck_assert_double_lt(fabs(r.tok_s * (1.15 / 300 + 0.002) - 1), 0.05);
	predict_index_free(&ix);
}
END_TEST

/* Noise of a factor of two: intervals wider than 3x, too uncertain to
 * rely on, figure and interval kept. */
START_TEST(wide_intervals_are_too_uncertain)
{
	struct predict_combo rows[40];
	struct predict_index ix;
	struct predict_backtest b;
	struct predict_query q = query("new", "rtx-4090", "nvidia", "llama.cpp", D4, 300);
	struct predict_result r;

	world(rows, 40, 1.2, 0, 0.7, 5);
	ck_assert_int_eq(predict_index_build(rows, 40, &ix, &b), 0);
	predict(&ix, &q, &r);
	ck_assert_int_eq(r.step, PREDICT_SAME_HW);
	ck_assert_int_eq(r.has_interval, 1);
	ck_assert_double_gt(r.width, PREDICT_TOO_WIDE);
	ck_assert_int_eq(r.too_uncertain, 1);
	ck_assert(r.low < r.tok_s && r.tok_s < r.high);
	ck_assert_int_gt(b.too_wide, 20);
	predict_index_free(&ix);
}
END_TEST

/* Leaving a model out leaves all of it out: x at 10% on m2 must not
 * predict x on the RTX 4090, and the backtest predicts x on m2 from a, b
 * and c alone: 600% off, by hand.  The rules on the same point: 0.7 x
 * ceiling and m2's median efficiency of the others (0.7). */
START_TEST(backtest_leaves_the_whole_model_out)
{
	const struct predict_combo rows[] = {
		row("x", "rtx-4090", "nvidia", "llama.cpp", D4, 70, 100, 1),
		row("x", "m2", "apple", "llama.cpp", D4, 10, 100, 1),
		row("a", "m2", "apple", "llama.cpp", D4, 70, 100, 1),
		row("b", "m2", "apple", "llama.cpp", D4, 70, 100, 1),
		row("c", "m2", "apple", "llama.cpp", D4, 70, 100, 1),
		{ "t", "m2", "apple", "llama.cpp", D4, 35, 100, 3, 3 },   /* tested, not evidence */
	};
	struct predict_query q = query("x", "rtx-4090", "nvidia", "llama.cpp", D4, 100);
	struct predict_index ix;
	struct predict_backtest b;

	ck_assert_int_eq(predict_index_build(rows, 6, &ix, &b), 0);
	ck_assert_int_eq(b.tested, 6);
	ck_assert_int_eq(b.by_step[PREDICT_ALL_HW], 1);        /* x on the RTX 4090 */
	ck_assert_int_eq(b.by_step[PREDICT_SAME_HW], 5);
	ck_assert_double_eq_tol(b.site.worst, 600, 1e-9);      /* x on m2 */
	ck_assert_double_eq_tol(b.share.worst, 600, 1e-9);
	ck_assert_double_eq_tol(b.hw_median.worst, 600, 1e-9);
	{
		struct predict_result r;

		predict(&ix, &q, &r);
		ck_assert_double_eq(r.tok_s, 70);
	}
	predict_index_free(&ix);
	ck_assert_int_eq(predict_index_build(rows, 2, &ix, &b), 0);   /* x alone: nothing */
	ck_assert_int_eq(b.tested, 0);
	ck_assert_int_eq(b.unpredicted, 2);
	ck_assert_double_eq(b.site.mean, 0);
	ck_assert_double_eq(b.coverage, 0);
	predict_index_free(&ix);
}
END_TEST

/* The errors' figures by hand: four points 10, 20, 30, 40% off; p90 is
 * the nearest rank. */
START_TEST(error_figures_by_hand)
{
	struct predict_combo rows[4 + 3];
	struct predict_index ix;
	struct predict_backtest b;
	static const double off[4] = { 1.1, 1.2, 1.3, 1.4 };
	int i;

	/* three anchors at 50% on one machine, tested points elsewhere */
	for (i = 0; i < 3; i++)
		rows[i] = row(name_of(i), "h", "nvidia", "ollama", D4, 50, 100, 1);
	for (i = 0; i < 4; i++) {
		rows[3 + i] = row(name_of(10 + i), name_of(20 + i), "nvidia", "ollama", D16,
				  50 * off[i], 100, 1);
		rows[3 + i].keys = PREDICT_TEST_MIN_KEYS;
		rows[3 + i].cls = D4;
	}
	ck_assert_int_eq(predict_index_build(rows, 7, &ix, &b), 0);
	ck_assert_int_eq(b.by_step[PREDICT_SAME_KIN], 4);
	ck_assert_int_eq(b.step_site[PREDICT_SAME_KIN].n, 4);
	/* predicted 50 against 55, 60, 65, 70 */
	ck_assert_double_eq_tol(b.step_site[PREDICT_SAME_KIN].mean,
				25 * (0.1 / 1.1 + 0.2 / 1.2 + 0.3 / 1.3 + 0.4 / 1.4), 1e-9);
	ck_assert_double_eq_tol(b.step_site[PREDICT_SAME_KIN].worst, 100 * 0.4 / 1.4, 1e-9);
	ck_assert_double_eq_tol(b.step_site[PREDICT_SAME_KIN].p90, 100 * 0.4 / 1.4, 1e-9);
	ck_assert_double_eq_tol(b.step_site[PREDICT_SAME_KIN].median,
				50 * (0.2 / 1.2 + 0.3 / 1.3), 1e-9);
	predict_index_free(&ix);
}
END_TEST

/* A name too long for the basis text is cut between two code points. */
START_TEST(long_name_cut_between_code_points)
{
	const struct predict_combo rows[] = {
		row("a", "hw", "apple", "mlx", D4, 60, 100, 8),
		row("b", "hw", "apple", "mlx", D4, 80, 100, 9),
		row("c", "hw", "apple", "mlx", D4, 70, 100, 9),
	};
	char name[1201];
	struct predict_query q = query("d", "hw", "apple", "mlx", D4, 50);
	struct predict_result r;
	size_t i, len;

	for (i = 0; i < 600; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);             /* é */
	name[1200] = '\0';
	q.hw_name = name;
	r = predict_ok(rows, 3, &q);
	len = strlen(r.from);
	ck_assert_uint_le(len, PREDICT_FROM_MAX - 1);
	ck_assert_uint_ge(len, PREDICT_FROM_MAX - 2);
	ck_assert_int_eq((unsigned char)r.from[len - 1], 0xa9);  /* the last é whole */
	ck_assert(strncmp(r.from, "from 26 runs of 3 other dense 4-bit models on \xc3\xa9", 48) == 0);
}
END_TEST

static Suite *suite_predict(void)
{
	Suite *s = suite_create("predict");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, classes_and_kin);
	tcase_add_test(tc, three_other_models_on_the_same_hardware);
	tcase_add_test(tc, classes_do_not_mix);
	tcase_add_test(tc, steps_widen_in_order);
	tcase_add_test(tc, time_model_fits_an_overhead);
	tcase_add_test(tc, time_model_gives_way_when_it_means_nothing);
	tcase_add_test(tc, models_combine_by_their_median);
	tcase_add_test(tc, backtest_keeps_the_better_way_and_calibrates);
	tcase_add_test(tc, wide_intervals_are_too_uncertain);
	tcase_add_test(tc, backtest_leaves_the_whole_model_out);
	tcase_add_test(tc, error_figures_by_hand);
	tcase_add_test(tc, long_name_cut_between_code_points);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_predict)
