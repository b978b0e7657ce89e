/* predict_backtest.c: the leave-one-model-out backtest (predict.h): both
 * ways to a figure on every tested combination, the method each step
 * keeps, the intervals from the residuals, the coverage out of sample and
 * the two rules of thumb on the same points. */
#include "domain/predict.h"
#include "domain/predict_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One tested combination. */
struct point {
	const struct predict_combo *row;
	enum predict_step step;
	double pred[PREDICT_METHODS];   /* the figure each way */
	double res;                     /* ln(measured ÷ the kept figure) */
};

/* ---- samples whose quantiles leave one model out ---- */

/* A value, the part of the sample it is in (a step, a hardware) and the
 * model it came from. */
struct item {
	const char *part, *model;
	double v;
};

/* A model's item in a part, by its position in the sorted items. */
struct skip {
	const char *part, *model;
	size_t pos;
};

/* Items sorted by (part, value), and a skip entry for each, sorted by
 * (part, model, position): a model's items in a part are a run of them. */
struct sample {
	struct item *it;
	struct skip *skip;
	size_t n;
};

static int item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	int c = strcmp(a->part, b->part);

	return c ? c : (a->v > b->v) - (a->v < b->v);
}

static int skip_cmp(const void *x, const void *y)
{
	const struct skip *a = x, *b = y;
	int c = strcmp(a->part, b->part);

	if (!c)
		c = strcmp(a->model, b->model);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* Sorts s's n items and makes its skip entries; 0, or -1 without memory. */
static int sample_sort(struct sample *s)
{
	size_t i;

	if (!(s->skip = malloc((s->n ? s->n : 1) * sizeof *s->skip)))
		return -1;
	qsort(s->it, s->n, sizeof *s->it, item_cmp);
	for (i = 0; i < s->n; i++)
		s->skip[i] = (struct skip){ s->it[i].part, s->it[i].model, i };
	qsort(s->skip, s->n, sizeof *s->skip, skip_cmp);
	return 0;
}

/* Orders an item (skip 0) or a skip entry (skip 1) at i against part and
 * model (NULL: any). */
static int key_cmp(const struct sample *s, int skip, size_t i, const char *part, const char *model)
{
	const char *p = skip ? s->skip[i].part : s->it[i].part;
	int c = strcmp(p, part);

	return c || !model ? c : strcmp(skip ? s->skip[i].model : s->it[i].model, model);
}

/* [*lo, *hi) of the items (skip 0) of part, or of the skip entries (skip
 * 1) of part and model. */
static void sample_range(const struct sample *s, int skip, const char *part, const char *model,
			 size_t *lo, size_t *hi)
{
	int side;

	for (side = 0; side < 2; side++) {
		size_t l = 0, h = s->n;

		while (l < h) {
			size_t m = l + (h - l) / 2;
			int c = key_cmp(s, skip, m, part, model);

			if (c < 0 || (side && c == 0))
				l = m + 1;
			else
				h = m;
		}
		*(side ? hi : lo) = l;
	}
}

/* The position of the k-th (from 0) of the items from a on that are not
 * at the positions of ex[0..nex) (ascending). */
static size_t nth_kept(size_t a, size_t k, const struct skip *ex, size_t nex)
{
	size_t i = a + k, j;

	for (j = 0; j < nex && ex[j].pos <= i; j++)
		i++;
	return i;
}

/* The p-quantile (linear between ranks) of part's values without model's
 * (NULL: all) into *q; 0, or -1 when fewer than min values are left. */
static int sample_quantile(const struct sample *s, const char *part, const char *model,
			   double p, size_t min, double *q)
{
	size_t a, b, c = 0, d = 0, m, k, i, j;
	double h;

	sample_range(s, 0, part, NULL, &a, &b);
	if (model)
		sample_range(s, 1, part, model, &c, &d);
	m = (b - a) - (d - c);
	if (m < min || m == 0)
		return -1;
	h = (double)(m - 1) * p;
	k = (size_t)floor(h);
	i = nth_kept(a, k, s->skip + c, d - c);
	j = k + 1 < m ? nth_kept(a, k + 1, s->skip + c, d - c) : i;
	*q = s->it[i].v + (h - (double)k) * (s->it[j].v - s->it[i].v);
	return 0;
}

static void sample_free(struct sample *s)
{
	free(s->it);
	free(s->skip);
}

/* ---- errors ---- */

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The error figures of e[0..n) (sorted here). */
static struct predict_errors errors_of(double *e, int n)
{
	struct predict_errors r = { n, 0, 0, 0, 0 };
	int i;

	if (n == 0)
		return r;
	qsort(e, (size_t)n, sizeof *e, dbl_cmp);
	for (i = 0; i < n; i++)
		r.mean += e[i] / n;
	r.median = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
	r.p90 = e[(int)ceil(0.9 * n) - 1];
	r.worst = e[n - 1];
	return r;
}

static double abs_pct(double predicted, double measured)
{
	return fabs(predicted / measured - 1) * 100;
}

/* ---- the backtest ---- */

/* 1 when the backtest tests r: named, of a class, from
 * PREDICT_TEST_MIN_KEYS keys, with a median and a ceiling. */
static int testable(const struct predict_combo *r)
{
	return r->model && r->hw && r->backend && r->cls >= 0 && r->cls < PREDICT_CLASSES &&
	       r->keys >= PREDICT_TEST_MIN_KEYS && r->median > 0 && isfinite(r->median) &&
	       r->ceiling > 0 && isfinite(r->ceiling);
}

/* The query a page would make for r's combination, r's model left out. */
static struct predict_query query_of(const struct predict_combo *r)
{
	return (struct predict_query){ r->model, r->hw, r->kin, r->backend, r->cls, r->ceiling, NULL };
}

/* Predicts every testable row both ways into pt (room for n); returns how
 * many were predicted, and counts the rest in b. */
static size_t predict_points(const struct predict_index *ix, const struct predict_combo *rows,
			     size_t n, struct point *pt, struct predict_backtest *b)
{
	static const enum predict_method way[PREDICT_METHODS][PREDICT_STEPS] = {
		{ PREDICT_RATIO, PREDICT_RATIO, PREDICT_RATIO, PREDICT_RATIO },
		{ PREDICT_TIME, PREDICT_TIME, PREDICT_TIME, PREDICT_TIME },
	};
	size_t i, t = 0;
	int m;

	for (i = 0; i < n; i++) {
		struct predict_query q = query_of(&rows[i]);
		struct predict_result r;

		if (!testable(&rows[i]))
			continue;
		for (m = 0; m < PREDICT_METHODS; m++) {
			predict_with(ix, &q, way[m], &r);
			pt[t].pred[m] = r.tok_s;
		}
		if (r.step == PREDICT_NONE) {
			b->unpredicted++;
			continue;
		}
		pt[t].row = &rows[i];
		pt[t++].step = r.step;
	}
	return t;
}

/* Keeps, step by step, the way with the lower mean error (the ratio on a
 * tie; the default, the time model, where a step has no point), and each
 * point's residual from it. */
static void choose(struct point *pt, size_t t, struct predict_backtest *b)
{
	int count[PREDICT_STEPS] = { 0 }, step, m;
	size_t i;

	for (i = 0; i < t; i++) {
		count[pt[i].step]++;
		for (m = 0; m < PREDICT_METHODS; m++)
			b->method_mean[pt[i].step][m] += abs_pct(pt[i].pred[m], pt[i].row->median);
	}
	for (step = PREDICT_SAME_HW; step < PREDICT_STEPS; step++) {
		for (m = 0; m < PREDICT_METHODS && count[step]; m++)
			b->method_mean[step][m] /= count[step];
		b->calib.method[step] = !count[step] ? PREDICT_TIME :
			b->method_mean[step][PREDICT_TIME] < b->method_mean[step][PREDICT_RATIO] ?
			PREDICT_TIME : PREDICT_RATIO;
	}
	for (i = 0; i < t; i++)
		pt[i].res = log(pt[i].row->median / pt[i].pred[b->calib.method[pt[i].step]]);
}

static const char *const step_part[PREDICT_STEPS] = { "", "1", "2", "3" };

/* The residuals of pt in a sample, each twice: in its step's part and in
 * the pooled part "". */
static int residual_sample(const struct point *pt, size_t t, struct sample *s)
{
	size_t i;

	s->n = 2 * t;
	if (!(s->it = malloc((s->n ? s->n : 1) * sizeof *s->it)))
		return -1;
	for (i = 0; i < t; i++) {
		s->it[2 * i] = (struct item){ step_part[pt[i].step], pt[i].row->model, pt[i].res };
		s->it[2 * i + 1] = (struct item){ "", pt[i].row->model, pt[i].res };
	}
	return sample_sort(s);
}

/* The interval's log quantiles for step without model's residuals (NULL:
 * all): from the step's own, else pooled; 0, or -1 when too few. */
static int band(const struct sample *s, enum predict_step step, const char *model,
		double *lo, double *hi, int *pooled)
{
	const double tail = (1 - PREDICT_BAND) / 2;
	const char *part = step_part[step];

	*pooled = 0;
	if (sample_quantile(s, part, model, tail, PREDICT_MIN_RESIDUALS, lo) < 0) {
		part = "";
		*pooled = 1;
		if (sample_quantile(s, part, model, tail, PREDICT_MIN_RESIDUALS, lo) < 0)
			return -1;
	}
	return sample_quantile(s, part, model, 1 - tail, PREDICT_MIN_RESIDUALS, hi);
}

/* The calibration predictions use (all points), and each point's
 * interval from the other models' points: coverage and widths. */
static int calibrate(const struct point *pt, size_t t, struct predict_backtest *b)
{
	struct sample s = { 0 };
	double *width = malloc((t ? t : 1) * sizeof *width);
	int step, nw = 0, rc = -1;
	size_t i;

	if (!width || residual_sample(pt, t, &s) < 0)
		goto out;
	for (step = PREDICT_SAME_HW; step < PREDICT_STEPS; step++)
		b->calib.have[step] = band(&s, (enum predict_step)step, NULL, &b->calib.lo[step],
					   &b->calib.hi[step], &b->calib.pooled[step]) == 0;
	for (i = 0; i < t; i++) {
		double lo, hi;
		int pooled;

		if (band(&s, pt[i].step, pt[i].row->model, &lo, &hi, &pooled) < 0) {
			b->too_wide++;
			continue;
		}
		b->inside += lo <= pt[i].res && pt[i].res <= hi;
		width[nw] = exp(hi - lo);
		b->too_wide += !(width[nw++] <= PREDICT_TOO_WIDE);
	}
	if (nw) {
		qsort(width, (size_t)nw, sizeof *width, dbl_cmp);
		b->median_width = nw % 2 ? width[nw / 2] : (width[nw / 2 - 1] + width[nw / 2]) / 2;
	}
	b->coverage = t ? (double)b->inside / (double)t : 0;
	rc = 0;
out:
	sample_free(&s);
	free(width);
	return rc;
}

/* The evidence's efficiencies by hardware (part: its slug) and pooled
 * (part ""), for the second rule of thumb. */
static int efficiency_sample(const struct predict_combo *rows, size_t n, struct sample *s)
{
	size_t i;

	if (!(s->it = malloc((n ? 2 * n : 1) * sizeof *s->it)))
		return -1;
	s->n = 0;
	for (i = 0; i < n; i++) {
		const struct predict_combo *r = &rows[i];
		double e = r->median / r->ceiling;

		if (!testable(r) || r->keys < PREDICT_MIN_KEYS)
			continue;
		s->it[s->n++] = (struct item){ r->hw, r->model, e };
		s->it[s->n++] = (struct item){ "", r->model, e };
	}
	return sample_sort(s);
}

/* The errors of the site (at 3i), the first rule (3i + 1) and the second
 * (3i + 2) of each point into e (room for 3t). */
static int point_errors(const struct predict_combo *rows, size_t n, const struct point *pt,
			size_t t, const struct predict_calib *cal, double *e)
{
	struct sample s = { 0 };
	size_t i;

	if (efficiency_sample(rows, n, &s) < 0) {
		sample_free(&s);
		return -1;
	}
	for (i = 0; i < t; i++) {
		const struct predict_combo *r = pt[i].row;
		double med = 0;

		if (sample_quantile(&s, r->hw, r->model, 0.5, 1, &med) < 0)
			sample_quantile(&s, "", r->model, 0.5, 1, &med);
		e[3 * i] = abs_pct(pt[i].pred[cal->method[pt[i].step]], r->median);
		e[3 * i + 1] = abs_pct(PREDICT_RULE_SHARE * r->ceiling, r->median);
		e[3 * i + 2] = abs_pct(med * r->ceiling, r->median);
	}
	sample_free(&s);
	return 0;
}

/* The site's and the rules' error figures, over all points (step
 * PREDICT_NONE) and per step. */
static int score(const struct predict_combo *rows, size_t n, const struct point *pt, size_t t,
		 struct predict_backtest *b)
{
	double *e = malloc((t ? 4 * t : 1) * sizeof *e), *one = e + 3 * t;
	int step, who;

	if (!e || point_errors(rows, n, pt, t, &b->calib, e) < 0) {
		free(e);
		return -1;
	}
	for (step = PREDICT_NONE; step < PREDICT_STEPS; step++)
		for (who = 0; who < 3; who++) {
			struct predict_errors *out[3][2] = {
				{ &b->site, &b->step_site[step] },
				{ &b->share, &b->step_share[step] },
				{ &b->hw_median, &b->step_hw_median[step] },
			};
			size_t i;
			int k = 0;

			for (i = 0; i < t; i++)
				if (step == PREDICT_NONE || pt[i].step == (enum predict_step)step)
					one[k++] = e[3 * i + who];
			*out[who][step != PREDICT_NONE] = errors_of(one, k);
			if (step != PREDICT_NONE)
				b->by_step[step] = k;
		}
	free(e);
	return 0;
}

int predict_index_build(const struct predict_combo *rows, size_t n, struct predict_index *ix,
			struct predict_backtest *bt)
{
	struct point *pt = malloc((n ? n : 1) * sizeof *pt);
	struct predict_backtest b;
	size_t t;
	int rc = -1;

	memset(&b, 0, sizeof b);
	if (!pt || predict_index_cells(rows, n, ix) < 0) {
		free(pt);
		return -1;
	}
	t = predict_points(ix, rows, n, pt, &b);
	b.tested = (int)t;
	choose(pt, t, &b);
	if (calibrate(pt, t, &b) == 0 && score(rows, n, pt, t, &b) == 0)
		rc = 0;
	free(pt);
	if (rc < 0) {
		predict_index_free(ix);
		return -1;
	}
	ix->calib = b.calib;
	if (bt)
		*bt = b;
	return 0;
}
