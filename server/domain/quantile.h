/* quantile.h: the arithmetic of typical figures: fine log buckets (the
 * bucket of a value and the value a bucket stands for), the position of a
 * quantile among n ordered values, and rounding a figure before it is
 * printed.  Pure: no state, no allocation.
 *
 * Precision.  A bucket spans a ratio of 2^(1/QUANTILE_PER_DOUBLING) =
 * 1.0054, and stands for its geometric middle, so a value read back from
 * its bucket is within 0.27% of it; a bucket stands for the mean of the
 * values in it, so a figure from one value (or equal ones) is exact.  The typical figures take each key's
 * own median (exact for decode; read from its buckets for prefill and
 * TTFT) and place it in a bucket again before the median and quartiles
 * over keys are read: each is within 0.6% of the same quantile computed
 * exactly from the runs (QUANTILE_PRECISION; tests/store/check_typical.c checks
 * it against a recomputation from scratch). */
#ifndef LLMS_QUANTILE_H
#define LLMS_QUANTILE_H

#include <stddef.h>

#define QUANTILE_PER_DOUBLING 128
/* Values below this (a TTFT of 0 ms) share one bucket that stands for 0. */
#define QUANTILE_MIN 1e-6
#define QUANTILE_ZERO_BUCKET (-2700)     /* below floor(128 * log2(1e-6)) = -2552 */
/* The largest relative error of a typical figure against the exact one. */
#define QUANTILE_PRECISION 0.006

/* The bucket of x: floor(QUANTILE_PER_DOUBLING * log2(x)), or
 * QUANTILE_ZERO_BUCKET for x below QUANTILE_MIN (and NaN). */
int quantile_bucket(double x);

/* The value bucket b stands for: its geometric middle, 0 for the zero
 * bucket. */
double quantile_value(int b);

/* The position of quantile q (0..1) among n >= 1 ordered values, as linear
 * interpolation between order statistics places it: h = q (n - 1); *rank
 * gets floor(h) (0-based) and *frac the part past it (the share of the
 * next value to mix in; 0 when rank is the last). */
void quantile_position(double q, long long n, long long *rank, double *frac);

/* lo + frac (hi - lo). */
double quantile_mix(double lo, double hi, double frac);

/* A bucket, the values in it and their sum, for quantiles over a whole
 * histogram held in memory (the start-up fill).  A bucket's value is the
 * mean of its values (exact for a bucket of one value, and always inside
 * the bucket), falling back to its middle. */
struct qbucket {
	int b;
	long long n;
	double sum;
};
/* The value a bucket of n values summing to sum stands for. */
double quantile_bucket_value(int b, long long n, double sum);
/* Sorts v by bucket and merges equal buckets; returns the new count. */
size_t quantile_merge(struct qbucket *v, size_t n);
/* Over the sorted, merged buckets v holding total values: the bucket that
 * holds quantile q's rank (*b, with *below values below it and *bn in it)
 * and the quantile's value, read as quantile_position() places it. */
void quantile_of(const struct qbucket *v, size_t n, long long total, double q,
		 int *b, long long *below, long long *bn, double *bsum, double *value);

/* x rounded to the nearest multiple of step (0.01 tok/s, 0.1 ms), half
 * away from zero, as the pages and the JSON print computed figures. */
double quantile_round(double x, double step);

#endif
