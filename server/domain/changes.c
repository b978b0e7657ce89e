/* changes.c: the Mann-Whitney U test between two backend versions' key
 * values, and the pairs of consecutive versions it is run on (see
 * changes.h). */
#include "domain/changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "domain/version.h"

/* One pooled value and its side. */
struct obs {
	double v;
	int to;            /* 1: the "to" side */
};

/* A group of tied pooled values: its doubled midrank, its size, and how
 * many of it are on the side the exact distribution counts. */
struct group {
	long d;
	int t, mine;
};

static int obs_cmp(const void *a, const void *b)
{
	double x = ((const struct obs *)a)->v, y = ((const struct obs *)b)->v;

	return (x > y) - (x < y);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of x[0..n) (n >= 1), the mean of the middle two when n is
 * even, using scratch (n doubles) for the sort; x is not changed. */
static double median_of(const double *x, int n, double *scratch)
{
	memcpy(scratch, x, (size_t)n * sizeof *x);
	qsort(scratch, (size_t)n, sizeof *scratch, dbl_cmp);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/* C(n, k) as a double (exact for the sizes used here, n <= 40). */
static double binom(int n, int k)
{
	double c = 1;
	int i;

	for (i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/* Splits the sorted pooled values o[0..N) into tie groups g (room for N),
 * counting in each the members whose side is mine_to; returns the number
 * of groups. */
static int tie_groups(const struct obs *o, int N, int mine_to, struct group *g)
{
	int i = 0, ng = 0;

	while (i < N) {
		int j = i;

		g[ng].mine = 0;
		while (j < N && o[j].v == o[i].v)
			g[ng].mine += o[j++].to == mine_to;
		g[ng].t = j - i;
		g[ng].d = 2L * i + (j - i) + 1;   /* 2 x the mean of ranks i+1 .. j */
		ng++;
		i = j;
	}
	return ng;
}

/* The exact two-sided p of a doubled rank sum w_obs of m values, over the
 * ng tie groups g of N pooled values: every split into m and N - m
 * equally likely.  Returns p, or -1 when memory ran out. */
static double exact_p(const struct group *g, int ng, int N, int m, long w_obs)
{
	long wmax = (long)m * (2L * N - m + 1), w, total_w = wmax + 1;
	double *cur = calloc((size_t)(m + 1) * (size_t)total_w, sizeof *cur);
	double *nxt = calloc((size_t)(m + 1) * (size_t)total_w, sizeof *nxt);
	double le = 0, ge = 0, all = binom(N, m), p = -1;
	int i, k, j;

	if (!cur || !nxt)
		goto out;
	cur[0] = 1;
	for (i = 0; i < ng; i++) {
		memset(nxt, 0, (size_t)(m + 1) * (size_t)total_w * sizeof *nxt);
		for (k = 0; k <= m; k++)
			for (w = 0; w <= wmax; w++) {
				double f = cur[k * total_w + w];

				for (j = 0; f != 0 && j <= g[i].t && k + j <= m; j++)
					nxt[(k + j) * total_w + w + j * g[i].d] += f * binom(g[i].t, j);
			}
		double *swap = cur;
		cur = nxt;
		nxt = swap;
	}
	for (w = 0; w <= wmax; w++) {
		le += w <= w_obs ? cur[m * total_w + w] : 0;
		ge += w >= w_obs ? cur[m * total_w + w] : 0;
	}
	p = fmin(1, 2 * fmin(le, ge) / all);
out:
	free(cur);
	free(nxt);
	return p;
}

/* The normal approximation's two-sided p of U for sides n1, n2, with the
 * tie correction over the ng groups g and a continuity correction of 1/2. */
static double normal_p(double u, int n1, int n2, const struct group *g, int ng)
{
	double N = n1 + n2, ties = 0, var, z;
	int i;

	for (i = 0; i < ng; i++)
		ties += (double)g[i].t * g[i].t * g[i].t - g[i].t;
	var = n1 * (double)n2 / 12 * ((N + 1) - ties / (N * (N - 1)));
	if (!(var > 0))
		return 1;
	z = (fabs(u - n1 * (double)n2 / 2) - 0.5) / sqrt(var);
	return z > 0 ? fmin(1, erfc(z / sqrt(2))) : 1;
}

/* Fills the pooled, sorted values of both sides into o (room for N);
 * 0, or -1 when a value is not finite. */
static int pool(const double *from, int nf, const double *to, int nt, struct obs *o)
{
	int i;

	for (i = 0; i < nf + nt; i++) {
		o[i].to = i >= nf;
		o[i].v = o[i].to ? to[i - nf] : from[i];
		if (!isfinite(o[i].v))
			return -1;
	}
	qsort(o, (size_t)(nf + nt), sizeof *o, obs_cmp);
	return 0;
}

/* U of the "to" side and the two-sided p (exact or normal, as changes.h
 * says) into out; 0, or -1 when memory ran out. */
static int test_ranks(const struct obs *o, int nf, int nt, struct group *g,
		      struct changes_test *out)
{
	int N = nf + nt, small_to = nt <= nf, m = small_to ? nt : nf;
	int ng = tie_groups(o, N, 1, g), i;
	long w_to = 0, w_small;

	for (i = 0; i < ng; i++)
		w_to += g[i].mine * g[i].d;
	out->u = w_to / 2.0 - nt * (nt + 1) / 2.0;
	out->exact = N <= CHANGES_EXACT_MAX;
	if (!out->exact) {
		out->p = normal_p(out->u, nf, nt, g, ng);
		return 0;
	}
	w_small = small_to ? w_to : (long)N * (N + 1) - w_to;
	out->p = exact_p(g, ng, N, m, w_small);
	return out->p < 0 ? -1 : 0;
}

int changes_test(const double *from, int n_from, const double *to, int n_to,
		 struct changes_test *out)
{
	int N = n_from + n_to, rc = -1;
	struct obs *o = NULL;
	struct group *g = NULL;
	double *scratch = NULL;
	struct changes_test t = { .n_from = n_from, .n_to = n_to };

	if (n_from < 1 || n_to < 1)
		return -1;
	o = malloc((size_t)N * sizeof *o);
	g = malloc((size_t)N * sizeof *g);
	scratch = malloc((size_t)N * sizeof *scratch);
	if (!o || !g || !scratch || pool(from, n_from, to, n_to, o) < 0 ||
	    test_ranks(o, n_from, n_to, g, &t) < 0)
		goto out;
	t.median_from = median_of(from, n_from, scratch);
	t.median_to = median_of(to, n_to, scratch);
	t.change_pct = t.median_from > 0 ? round((t.median_to / t.median_from - 1) * 1000) / 10 : 0;
	t.changed = n_from >= CHANGES_MIN_KEYS && n_to >= CHANGES_MIN_KEYS && t.p < CHANGES_ALPHA;
	*out = t;
	rc = 0;
out:
	free(o);
	free(g);
	free(scratch);
	return rc;
}

/* Sorts v[0..n) by version_cmp of backend, stably (insertion: a
 * combination has tens of versions, and the comparison needs backend). */
static void sort_versions(const char *backend, struct changes_version *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct changes_version x = v[i];

		for (j = i; j > 0 && version_cmp(backend, v[j - 1].version, x.version) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* 1 when v[i] (v sorted) sorts between two other versions and a newer
 * one was seen before it. */
static int late_between(const char *backend, const struct changes_version *v, size_t n, size_t i)
{
	size_t j;
	int older = 0, newer_first = 0;

	for (j = 0; j < n; j++) {
		int c = version_cmp(backend, v[j].version, v[i].version);

		if (c < 0)
			older = 1;
		else if (c > 0 && v[j].first_seen < v[i].first_seen)
			newer_first = 1;
	}
	return older && newer_first;
}

/* 1 when v[i] has the keys and networks a side needs (twice them when it
 * came late between two others). */
static int testable(const char *backend, const struct changes_version *v, size_t n, size_t i,
		    int min_nets)
{
	int times = late_between(backend, v, n, i) ? 2 : 1;

	return version_parsable(backend, v[i].version) && v[i].n >= times * CHANGES_MIN_KEYS &&
	       v[i].nets >= times * min_nets;
}

long changes_find(const char *backend, struct changes_version *v, size_t n,
		  struct changes_pair *out, size_t cap, int min_nets)
{
	size_t i, prev = 0;
	long found = 0;
	int have_prev = 0;

	sort_versions(backend, v, n);
	for (i = 0; i < n; i++) {
		if (!testable(backend, v, n, i, min_nets))
			continue;
		if (have_prev && (size_t)found < cap &&
		    version_cmp(backend, v[prev].version, v[i].version) != 0) {
			out[found].from = prev;
			out[found].to = i;
			if (changes_test(v[prev].values, v[prev].n, v[i].values, v[i].n,
					 &out[found].t) < 0)
				return -1;
			found++;
		}
		prev = i;
		have_prev = 1;
	}
	return found;
}
