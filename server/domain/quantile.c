/* quantile.c: log buckets, quantile positions and rounding (see quantile.h). */
#include "domain/quantile.h"

#include <math.h>
#include <stdlib.h>

int quantile_bucket(double x)
{
	if (!(x >= QUANTILE_MIN))
		return QUANTILE_ZERO_BUCKET;
	if (x > 1e30)
		x = 1e30;
	return (int)floor(QUANTILE_PER_DOUBLING * log2(x));
}

double quantile_value(int b)
{
	if (b <= QUANTILE_ZERO_BUCKET)
		return 0;
	return exp2((b + 0.5) / QUANTILE_PER_DOUBLING);
}

double quantile_bucket_value(int b, long long n, double sum)
{
	double v;

	if (n <= 0)
		return quantile_value(b);
	v = sum / (double)n;
	return v >= 0 ? v : 0;       /* a sum's rounding, as values come and go */
}

void quantile_position(double q, long long n, long long *rank, double *frac)
{
	double h = q * (double)(n - 1);

	if (n <= 1 || h <= 0) {
		*rank = 0;
		*frac = 0;
		return;
	}
	*rank = (long long)floor(h);
	if (*rank >= n - 1) {
		*rank = n - 1;
		*frac = 0;
		return;
	}
	*frac = h - (double)*rank;
}

double quantile_mix(double lo, double hi, double frac)
{
	return frac > 0 ? lo + frac * (hi - lo) : lo;
}

double quantile_round(double x, double step)
{
	double per = round(1 / step);     /* 100 a tok/s, 10 a ms: dividing gives the nearest double */

	return round(x * per) / per;
}

static int qb_cmp(const void *x, const void *y)
{
	int a = ((const struct qbucket *)x)->b, b = ((const struct qbucket *)y)->b;

	return a < b ? -1 : a > b;
}

size_t quantile_merge(struct qbucket *v, size_t n)
{
	size_t i, j = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof *v, qb_cmp);
	for (i = 0; i < n; i++) {
		if (j && v[j - 1].b == v[i].b) {
			v[j - 1].n += v[i].n;
			v[j - 1].sum += v[i].sum;
		} else
			v[j++] = v[i];
	}
	return j;
}

void quantile_of(const struct qbucket *v, size_t n, long long total, double q,
		 int *b, long long *below, long long *bn, double *bsum, double *value)
{
	long long rank, acc = 0;
	double frac;
	size_t i;

	quantile_position(q, total, &rank, &frac);
	for (i = 0; i + 1 < n && rank >= acc + v[i].n; i++)
		acc += v[i].n;
	*b = v[i].b;
	*below = acc;
	*bn = v[i].n;
	*bsum = v[i].sum;
	*value = quantile_bucket_value(v[i].b, v[i].n, v[i].sum);
	if (frac > 0 && rank + 1 >= acc + v[i].n && i + 1 < n)
		*value = quantile_mix(*value, quantile_bucket_value(v[i + 1].b, v[i + 1].n, v[i + 1].sum), frac);
}
