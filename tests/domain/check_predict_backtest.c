/* check_predict_backtest.c: the leave-one-model-out backtest
 * (domain/predict_backtest.c) on real published figures
 * (tests/vectors/calibration/decode.json, each with its source) against
 * the real reference data (static/reference/): leaving each model out in
 * turn, the site's mean error must be at most 0.8 times the better of the
 * two rules of thumb on the same points, and its 80% intervals must cover
 * 70-95% of them.  The synthetic cases whose truth is known are in
 * check_predict.c.  LLMSPEED_VERBOSE=1 prints the figures. */
#include "check_ref.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>

#include "domain/ceiling.h"
#include "domain/predict.h"
#include "domain/resolve.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The calibration set's points as evidence rows, resolved as uploads are
 * and counted as measured by PREDICT_MIN_KEYS keys each (a published
 * figure stands for a combination many people measured).  Returns the
 * number of rows (room for max), each one's source in srcs[] (the set's
 * "src"); *points is the set's size. */
static size_t load_rows(json_t *root, struct predict_combo *rows, const char **srcs, size_t max,
			size_t *points)
{
	const json_t *pts = json_object_get(root, "points"), *pt;
	size_t i, n = 0;

	*points = json_array_size(pts);
	json_array_foreach(pts, i, pt) {
		const char *accel = str(pt, "accelerator_summary");
		int apple = accel && (!strncmp(accel, "Apple", 5) || strstr(accel, "Ryzen AI"));
		double mem = json_number_value(json_object_get(pt, "memory_gb"));
		struct resolve_in in = {
			.model_name = str(pt, "model_name"), .quant = str(pt, "quant"),
			.format = str(pt, "format"), .backend = str(pt, "backend"),
			.accel = accel, .cpu_model = accel,
			.vram_gb = apple ? 0 : mem, .ram_gb = apple ? mem : 0,
			.gpu_cores = (int)json_integer_value(json_object_get(pt, "gpu_cores")),
		};
		struct resolve_out out;

		if (n == max || resolve_run(ref, &in, &out) < 0 || !out.model || !out.hw)
			continue;
		if (predict_row(ref, out.model->id, out.q.name, out.hw->slug, in.backend,
				json_number_value(json_object_get(pt, "decode_tok_s")),
				PREDICT_MIN_KEYS, 1, &rows[n]) == 0)
			srcs[n++] = str(pt, "src");
	}
	return n;
}

static void print_errors(const char *who, const struct predict_errors *e)
{
	printf("  %-22s n=%3d mean %5.1f%%  median %5.1f%%  p90 %5.1f%%  worst %6.1f%%\n", who, e->n,
	       e->mean, e->median, e->p90, e->worst);
}

static void print_backtest(const struct predict_backtest *b, size_t points, size_t rows)
{
	int step;

	printf("calibration set: %zu points, %zu evidence rows, %d predicted, %d unpredicted\n",
	       points, rows, b->tested, b->unpredicted);
	print_errors("site", &b->site);
	print_errors("0.7 x ceiling", &b->share);
	print_errors("hardware median", &b->hw_median);
	printf("  80%% interval covers %.1f%% out of sample; median width %.2fx; %d too uncertain\n",
	       100 * b->coverage, b->median_width, b->too_wide);
	for (step = PREDICT_SAME_HW; step < PREDICT_STEPS; step++) {
		printf(" step %d (%s): %d points, method %s (ratio %.1f%%, time %.1f%%), "
		       "interval %s%.3f..%.3f\n", step, predict_step_name((enum predict_step)step),
		       b->by_step[step], predict_method_name(b->calib.method[step]),
		       b->method_mean[step][PREDICT_RATIO], b->method_mean[step][PREDICT_TIME],
		       b->calib.pooled[step] ? "pooled " : "", b->calib.lo[step], b->calib.hi[step]);
		print_errors("site", &b->step_site[step]);
		print_errors("0.7 x ceiling", &b->step_share[step]);
		print_errors("hardware median", &b->step_hw_median[step]);
	}
}

/* Fails unless templates/methodology.html holds the sentence fmt makes. */
static void assert_page_says(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void assert_page_says(const char *fmt, ...)
{
	char *page = read_file_in(repo_root(), "templates/methodology.html", NULL);
	char want[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof want, fmt, ap);
	va_end(ap);
	ck_assert_ptr_nonnull(page);
	ck_assert_msg(strstr(page, want), "methodology.html lacks \"%s\"", want);
	free(page);
}

/* /methodology states these figures in words: they must be today's. */
static void assert_methodology_says(const struct predict_backtest *b, size_t points)
{
	char *page = read_file_in(repo_root(), "templates/methodology.html", NULL);
	char want[1024];

	ck_assert_ptr_nonnull(page);
	snprintf(want, sizeof want, "%zu decode figures", points);
	ck_assert_msg(strstr(page, want), "methodology.html lacks \"%s\"", want);
	snprintf(want, sizeof want, "mean error of <strong>%.1f%%</strong> (median %.1f%%, 90th "
		 "percentile %.1f%%, worst %.1f%%) over %d predicted figures, against %.1f%% for "
		 "0.7 \xc3\x97 the ceiling and %.1f%% for the hardware's median efficiency, with "
		 "%.1f%% of the figures inside their 80%% interval", b->site.mean, b->site.median,
		 b->site.p90, b->site.worst, b->tested, b->share.mean, b->hw_median.mean,
		 100 * b->coverage);
	ck_assert_msg(strstr(page, want), "methodology.html lacks \"%s\"", want);
	free(page);
}

/* The bar, on the same points: mean error at most 0.8x the
 * better rule's, the 80% interval covering 70-95% out of sample. */
START_TEST(beats_both_rules_on_published_figures)
{
	json_error_t je;
	char *text = read_vector("calibration/decode.json", NULL);
	json_t *root = text ? json_loads(text, 0, &je) : NULL;
	struct predict_combo rows[1024];
	const char *srcs[1024];
	struct predict_index ix;
	struct predict_backtest b;
	size_t points, n;
	double better;

	ck_assert_ptr_nonnull(root);
	n = load_rows(root, rows, srcs, 1024, &points);
	ck_assert_uint_ge(points, 280);
	ck_assert_uint_ge(n, 0.9 * points);
	ck_assert_int_eq(predict_index_build(rows, n, &ix, &b), 0);
	if (getenv("LLMSPEED_VERBOSE"))
		print_backtest(&b, points, n);
	ck_assert_int_ge(b.tested, (int)(0.85 * n));
	ck_assert_int_eq(b.site.n, b.tested);
	ck_assert_int_eq(b.share.n, b.tested);
	ck_assert_int_eq(b.hw_median.n, b.tested);
	better = fmin(b.share.mean, b.hw_median.mean);
	ck_assert_msg(b.site.mean <= 0.8 * better, "site %.1f%%, rules %.1f%% and %.1f%%",
		      b.site.mean, b.share.mean, b.hw_median.mean);
	ck_assert_double_ge(b.coverage, 0.70);
	ck_assert_double_le(b.coverage, 0.95);
	assert_methodology_says(&b, points);
	/* The same hardware is the narrowest step and the best one. */
	ck_assert_double_lt(b.step_site[PREDICT_SAME_HW].mean, b.step_hw_median[PREDICT_SAME_HW].mean);
	ck_assert_double_lt(b.step_site[PREDICT_SAME_HW].mean, b.step_site[PREDICT_ALL_HW].mean);
	predict_index_free(&ix);
	json_decref(root);
	free(text);
}
END_TEST

/* The errors of one way of predicting, summed over points. */
struct tally {
	int n;
	double sum;
};

static void tally_add(struct tally *t, double predicted, double measured)
{
	t->n++;
	t->sum += 100 * fabs(predicted / measured - 1);
}

static double tally_mean(const struct tally *t)
{
	return t->n ? t->sum / t->n : 0;
}

/* The second rule of thumb for rows[i] from the rows whose source is not
 * its own, its model left out: the median efficiency of its hardware
 * there (of all hardware where that has none) x its ceiling. */
static double hw_median_rule(const struct predict_combo *rows, const char **srcs, size_t n,
			     size_t i)
{
	double eff[1024];
	size_t j, m;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (j = m = 0; j < n; j++)
			if (strcmp(srcs[j], srcs[i]) && strcmp(rows[j].model, rows[i].model) &&
			    (pass || !strcmp(rows[j].hw, rows[i].hw)))
				eff[m++] = rows[j].median / rows[j].ceiling;
		if (m)
			break;
	}
	if (!m)
		return 0;
	qsort(eff, m, sizeof eff[0], cmp_double);
	return rows[i].ceiling * (m % 2 ? eff[m / 2] : (eff[m / 2 - 1] + eff[m / 2]) / 2);
}

/* Stricter than the site's own backtest: each source held out whole
 * (its setup, its machines, its way of measuring), its points predicted
 * from the other sources' evidence alone, calibrated by their backtest,
 * each point's model left out as well.  The bar (0.8x the better
 * rule) is the leave-one-model-out test's above; here the site must still
 * beat both rules on the same points and cover 70-95%, and /methodology
 * must state today's figures. */
START_TEST(holds_with_each_source_held_out)
{
	json_error_t je;
	char *text = read_vector("calibration/decode.json", NULL);
	json_t *root = text ? json_loads(text, 0, &je) : NULL;
	static struct predict_combo rows[1024], others[1024];
	const char *srcs[1024];
	struct tally site = { 0, 0 }, share = { 0, 0 }, hw_median = { 0, 0 };
	size_t points, n, i, j, m;
	int inside = 0, unpredicted = 0, sources = 0;
	double better;

	ck_assert_ptr_nonnull(root);
	n = load_rows(root, rows, srcs, 1024, &points);
	for (i = 0; i < n; i++) {
		struct predict_index ix;
		struct predict_backtest b;

		for (j = 0; j < i && strcmp(srcs[j], srcs[i]); j++)
			;
		if (j < i)
			continue;                       /* that source was held out already */
		sources++;
		for (j = m = 0; j < n; j++)
			if (strcmp(srcs[j], srcs[i]))
				others[m++] = rows[j];
		ck_assert_int_eq(predict_index_build(others, m, &ix, &b), 0);
		for (j = i; j < n; j++) {
			const struct predict_combo *c = &rows[j];
			struct predict_query q = { c->model, c->hw, c->kin, c->backend, c->cls,
						   c->ceiling, NULL };
			struct predict_result r;
			double rule;

			if (strcmp(srcs[j], srcs[i]))
				continue;
			predict(&ix, &q, &r);
			rule = hw_median_rule(rows, srcs, n, j);
			if (r.step == PREDICT_NONE || rule <= 0) {
				unpredicted++;
				continue;
			}
			tally_add(&site, r.tok_s, c->median);
			tally_add(&share, PREDICT_RULE_SHARE * c->ceiling, c->median);
			tally_add(&hw_median, rule, c->median);
			inside += r.has_interval && r.low <= c->median && c->median <= r.high;
		}
		predict_index_free(&ix);
	}
	if (getenv("LLMSPEED_VERBOSE"))
		printf("each of %d sources held out: %d predicted, %d unpredicted; mean error site "
		       "%.1f%%, 0.7 x ceiling %.1f%%, hardware median %.1f%%; %.1f%% inside\n",
		       sources, site.n, unpredicted, tally_mean(&site), tally_mean(&share),
		       tally_mean(&hw_median), 100.0 * inside / site.n);
	fflush(stdout);
	ck_assert_int_ge(sources, 20);
	ck_assert_int_ge(site.n, (int)(0.75 * n));
	better = fmin(tally_mean(&share), tally_mean(&hw_median));
	ck_assert_msg(tally_mean(&site) < better, "site %.1f%%, better rule %.1f%%",
		      tally_mean(&site), better);
	ck_assert_int_ge(inside, (int)ceil(0.70 * site.n));
	ck_assert_int_le(inside, (int)(0.95 * site.n));
	assert_page_says("Holding out each of the set's %d sources whole instead (its machines, "
			 "its setup and its way of measuring), and predicting its figures from the "
			 "other sources alone, is harder: a mean error of <strong>%.1f%%</strong> over "
			 "%d predicted figures, against %.1f%% for 0.7 \xc3\x97 the ceiling and %.1f%% "
			 "for the hardware's median efficiency, with %.1f%% inside their 80%% interval",
			 sources, tally_mean(&site), site.n, tally_mean(&share), tally_mean(&hw_median),
			 100.0 * inside / site.n);
	json_decref(root);
	free(text);
}
END_TEST

static Suite *suite_predict_backtest(void)
{
	Suite *s = suite_create("predict_backtest");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, ref_setup, ref_teardown);
	tcase_add_test(tc, beats_both_rules_on_published_figures);
	tcase_add_test(tc, holds_with_each_source_held_out);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_predict_backtest)
