/* predict.c: predicted decode from other models' efficiencies, its basis in
 * words, and the leave-one-model-out backtest (see predict.h). */
#include "domain/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/numfmt.h"
#include "util/utf8.h"

/* One combination in a step's scope: its model and log efficiency. */
struct point {
	const char *model;
	double x;                 /* ln(median / ceiling) */
	const struct predict_combo *row;
};

/* Student's t at 0.90 for 1..30 degrees of freedom (scipy.stats.t.ppf). */
static const double t90[30] = {
	3.077684, 1.885618, 1.637744, 1.533206, 1.475884, 1.439756, 1.414924, 1.396815,
	1.383029, 1.372184, 1.363430, 1.356217, 1.350171, 1.345030, 1.340606, 1.336757,
	1.333379, 1.330391, 1.327728, 1.325341, 1.323188, 1.321237, 1.319460, 1.317836,
	1.316345, 1.314972, 1.313703, 1.312527, 1.311434, 1.310415,
};

/* The 0.90 quantile of Student's t with df >= 1 degrees of freedom: the
 * table, then the Cornish-Fisher expansion about the normal's 1.2815516
 * (within 1e-5 from 31 on). */
static double t_quantile(int df)
{
	const double z = 1.2815515655446004, z3 = z * z * z, z5 = z3 * z * z;

	if (df <= 30)
		return t90[df - 1];
	return z + (z3 + z) / (4.0 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96.0 * df * df);
}

static int str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* 1 when row is evidence for q at all: another model, enough keys, a
 * median and a ceiling. */
static int usable(const struct predict_combo *r, const struct predict_query *q)
{
	return r->model && !str_eq(r->model, q->model) && r->keys >= PREDICT_MIN_KEYS &&
	       r->median > 0 && isfinite(r->median) && r->ceiling > 0 && isfinite(r->ceiling);
}

/* 1 when row is in step's scope for q. */
static int in_scope(const struct predict_combo *r, const struct predict_query *q,
		    enum predict_step step)
{
	switch (step) {
	case PREDICT_BACKEND_ON_HW:
		return str_eq(r->hw, q->hw) && str_eq(r->backend, q->backend);
	case PREDICT_BACKEND_ALL_HW:
		return str_eq(r->backend, q->backend);
	case PREDICT_ALL_BACKENDS_ON_HW:
		return str_eq(r->hw, q->hw);
	default:
		return 0;
	}
}

static int point_cmp(const void *a, const void *b)
{
	const struct point *p = a, *r = b;
	int c = strcmp(p->model, r->model);

	return c ? c : (p->x > r->x) - (p->x < r->x);
}

/* The points of step's scope into pt (room for n), sorted by model then
 * value; returns how many. */
static size_t gather(const struct predict_combo *rows, size_t n, const struct predict_query *q,
		     enum predict_step step, struct point *pt)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (usable(&rows[i], q) && in_scope(&rows[i], q, step)) {
			pt[m].model = rows[i].model;
			pt[m].x = log(rows[i].median / rows[i].ceiling);
			pt[m++].row = &rows[i];
		}
	qsort(pt, m, sizeof *pt, point_cmp);
	return m;
}

/* Collapses the sorted points pt[0..m) to one per model, its median, in
 * place (pt[k].x); fills the counts of r; returns the number of models. */
static int per_model(struct point *pt, size_t m, struct predict_result *r)
{
	size_t i = 0, j;
	int k = 0;

	while (i < m) {
		for (j = i; j < m && strcmp(pt[j].model, pt[i].model) == 0; j++) {
			r->keys += pt[j].row->keys;
			r->runs += pt[j].row->runs;
			r->combos++;
		}
		pt[k].x = (j - i) % 2 ? pt[i + (j - i) / 2].x
				      : (pt[i + (j - i) / 2 - 1].x + pt[i + (j - i) / 2].x) / 2;
		k++;
		i = j;
	}
	return k;
}

/* The interval of k model log efficiencies pt[0..k) (k >= 2) widened by
 * widen, into r's efficiency fields. */
static void interval(const struct point *pt, int k, double widen, struct predict_result *r)
{
	double mean = 0, ss = 0, s, h;
	int i;

	for (i = 0; i < k; i++)
		mean += pt[i].x / k;
	for (i = 0; i < k; i++)
		ss += (pt[i].x - mean) * (pt[i].x - mean);
	s = fmax(sqrt(ss / (k - 1)), PREDICT_MIN_SPREAD);
	h = t_quantile(k - 1) * s * sqrt(1 + 1.0 / k) * widen;
	r->efficiency = exp(mean);
	r->eff_low = exp(mean - h);
	r->eff_high = exp(mean + h);
}

static double round2(double x)
{
	return round(x * 100) / 100;
}

/* Writes predict_basis() of r for q into r->from, cut between code points
 * to fit; 0, or -1 when memory ran out. */
static int set_from(struct predict_result *r, const struct predict_query *q)
{
	struct buf b = BUF_INIT;
	size_t len;
	const char *hw = q->hw_name ? q->hw_name : q->hw ? q->hw : "";

	predict_basis(r, hw, q->backend ? q->backend : "", &b);
	if (buf_error(&b)) {
		buf_release(&b);
		return -1;
	}
	len = utf8_cut(b.buf, b.len, sizeof r->from - 1);
	memcpy(r->from, b.buf, len);
	r->from[len] = '\0';
	buf_release(&b);
	return 0;
}

int predict(const struct predict_combo *rows, size_t n, const struct predict_query *q,
	    struct predict_result *out)
{
	static const double widen[PREDICT_STEPS] = {
		0, 1, PREDICT_WIDEN_ALL_HW, PREDICT_WIDEN_ALL_BACKENDS,
	};
	struct point *pt = malloc((n ? n : 1) * sizeof *pt);
	struct predict_result r;
	int step, k;

	if (!pt)
		return -1;
	memset(out, 0, sizeof *out);
	for (step = PREDICT_BACKEND_ON_HW; step < PREDICT_STEPS; step++) {
		size_t m = q->ceiling > 0 && isfinite(q->ceiling) ? gather(rows, n, q, step, pt) : 0;

		memset(&r, 0, sizeof r);
		if ((k = per_model(pt, m, &r)) < PREDICT_MIN_MODELS)
			continue;
		interval(pt, k, widen[step], &r);
		r.step = (enum predict_step)step;
		r.widen = widen[step];
		r.models = k;
		r.tok_s = round2(q->ceiling * r.efficiency);
		r.low = round2(q->ceiling * r.eff_low);
		r.high = round2(q->ceiling * r.eff_high);
		*out = r;
		break;
	}
	free(pt);
	return set_from(out, q);
}

const char *predict_step_name(enum predict_step step)
{
	switch (step) {
	case PREDICT_BACKEND_ON_HW:
		return "backend_on_hardware";
	case PREDICT_BACKEND_ALL_HW:
		return "backend_on_all_hardware";
	case PREDICT_ALL_BACKENDS_ON_HW:
		return "all_backends_on_hardware";
	default:
		return "none";
	}
}

void predict_basis(const struct predict_result *r, const char *hw_name, const char *backend,
		   struct buf *out)
{
	if (r->step == PREDICT_NONE) {
		buf_printf(out, "too few runs to predict: a prediction needs %d other models "
			   "measured by %d submitters each", PREDICT_MIN_MODELS, PREDICT_MIN_KEYS);
		return;
	}
	buf_puts(out, "from ");
	numfmt_count(out, r->runs, "run", "runs");
	buf_puts(out, " of ");
	numfmt_count(out, r->models, "other model", "other models");
	if (r->step == PREDICT_BACKEND_ON_HW)
		buf_printf(out, " on %s with %s", hw_name, backend);
	else if (r->step == PREDICT_BACKEND_ALL_HW)
		buf_printf(out, " with %s on all hardware, as too few were measured on %s",
			   backend, hw_name);
	else
		buf_printf(out, " on %s with all backends, as too few were measured with %s",
			   hw_name, backend);
	if (r->widen > 1) {
		buf_puts(out, " (interval widened ");
		numfmt_fig(out, r->widen);
		buf_puts(out, "\xc3\x97)");
	}
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* 1 when row is one the backtest tests. */
static int testable(const struct predict_combo *r)
{
	return r->keys >= PREDICT_TEST_MIN_KEYS && r->median > 0 && isfinite(r->median) &&
	       r->ceiling > 0 && isfinite(r->ceiling) && r->model;
}

int predict_backtest(const struct predict_combo *rows, size_t n, struct predict_backtest *out)
{
	double *err = malloc((n ? n : 1) * sizeof *err);
	struct predict_backtest b = { 0 };
	size_t i;

	if (!err)
		return -1;
	for (i = 0; i < n; i++) {
		const struct predict_combo *c = &rows[i];
		struct predict_query q = { c->model, c->hw, c->backend, c->ceiling, NULL };
		struct predict_result r;

		if (!testable(c))
			continue;
		if (predict(rows, n, &q, &r) < 0) {
			free(err);
			return -1;
		}
		if (r.step == PREDICT_NONE) {
			b.unpredicted++;
			continue;
		}
		err[b.tested++] = fabs(r.tok_s / c->median - 1) * 100;
		b.inside += r.low <= c->median && c->median <= r.high;
		b.by_step[r.step]++;
	}
	if (b.tested) {
		qsort(err, (size_t)b.tested, sizeof *err, dbl_cmp);
		b.median_abs_pct = b.tested % 2 ? err[b.tested / 2]
						: (err[b.tested / 2 - 1] + err[b.tested / 2]) / 2;
		b.inside_share = (double)b.inside / b.tested;
	}
	free(err);
	*out = b;
	return 0;
}
