/* outlier_sums.c: a population's exact fixed-point sums over its key values, and the mean, spread
 * and flag bounds they give. */
#include "store/outlier_int.h"

#include <math.h>
#include <string.h>

/*
 * Numerical soundness.  A population (a cluster, or a combination) keeps
 * n, S = Σq and Q = Σq² of its values, one per signing key (the key's
 * median decode there), where q = round(x · 10^9) is the value x in decimal
 * fixed point (resolution 1e-9 tok/s, so a rate sent with up to nine
 * decimals, as clients send them, is held exactly), clamped to
 * |q| <= 2^62 (|x| <= 4.6e9 tok/s).  S is
 * a 128-bit and Q a 256-bit integer, so adding and removing runs is exact
 * and order-independent: after any sequence of inserts, upholds and
 * dismissals the sums equal those of a fresh pass over the key values, with
 * no drift (a key's old value is removed as it was stored, a double, so it
 * quantizes to the same q it was added as).  The spread is D = n·Q − S² = n² · (population variance), also
 * computed exactly in 256 bits (it cannot be negative), so there is no
 * cancellation however large the mean is against the spread; the only
 * roundings are the final conversions of S/n and D/n² to long double and
 * of the results to double (relative error about 1e-16).
 *
 * Compared with an exact two-pass computation over the unrounded values,
 * the mean and standard deviation differ by at most the quantization,
 * 0.5e-9 tok/s each, plus that final rounding; so a flag can differ only
 * for a run within 2e-9 + 1e-12 · (|mean| + 3σ) tok/s of a bound.
 *
 * The flag itself compares the run's real value with the bounds
 * lo = mean − 3σ and hi = mean + 3σ (doubles): flagged when x < lo or
 * x > hi.  A run at exactly 3σ is not flagged (the contract says "more
 * than").  When σ = 0 (every counted value equal after quantization, or one
 * run) nothing is flagged: there is no spread to stand out from.
 */

#define MAXQ ((int64_t)1 << 62)

/* ---- 256-bit arithmetic (only what the sums need) ---- */

static struct u256 u256_of(u128 v)
{
	return (struct u256){ { (uint64_t)v, (uint64_t)(v >> 64), 0, 0 } };
}

static struct u256 u256_add(struct u256 a, struct u256 b)
{
	struct u256 r;
	u128 c = 0;
	int i;

	for (i = 0; i < 4; i++) {
		c += (u128)a.w[i] + b.w[i];
		r.w[i] = (uint64_t)c;
		c >>= 64;
	}
	return r;
}

/* a − b modulo 2^256; *borrow is set when b > a. */
static struct u256 u256_sub(struct u256 a, struct u256 b, int *borrow)
{
	struct u256 r;
	uint64_t br = 0;
	int i;

	for (i = 0; i < 4; i++) {
		u128 d = (u128)a.w[i] - b.w[i] - br;
		r.w[i] = (uint64_t)d;
		br = (uint64_t)(d >> 64) ? 1 : 0;
	}
	*borrow = (int)br;
	return r;
}

/* a · m modulo 2^256. */
static struct u256 u256_mul64(struct u256 a, uint64_t m)
{
	struct u256 r;
	u128 c = 0;
	int i;

	for (i = 0; i < 4; i++) {
		c += (u128)a.w[i] * m;
		r.w[i] = (uint64_t)c;
		c >>= 64;
	}
	return r;
}

/* v², exactly. */
static struct u256 u256_sq(u128 v)
{
	uint64_t h = (uint64_t)(v >> 64), l = (uint64_t)v;
	struct u256 r = u256_of((u128)l * l), hl = u256_of((u128)h * l), hh = u256_of((u128)h * h);

	hl = u256_add(hl, hl);                                    /* 2hl < 2^129 */
	r = u256_add(r, (struct u256){ { 0, hl.w[0], hl.w[1], hl.w[2] } });
	return u256_add(r, (struct u256){ { 0, 0, hh.w[0], hh.w[1] } });
}

static long double u256_ld(struct u256 a)
{
	return ldexpl((long double)a.w[3], 192) + ldexpl((long double)a.w[2], 128) +
	       ldexpl((long double)a.w[1], 64) + (long double)a.w[0];
}

void outlier_be_put(unsigned char *p, const uint64_t *w, int limbs)
{
	int i, b;

	for (i = 0; i < limbs; i++)
		for (b = 0; b < 8; b++)
			p[(limbs - 1 - i) * 8 + (7 - b)] = (unsigned char)(w[i] >> (8 * b));
}

void outlier_be_get(const unsigned char *p, uint64_t *w, int limbs)
{
	int i, b;

	for (i = 0; i < limbs; i++) {
		w[i] = 0;
		for (b = 0; b < 8; b++)
			w[i] |= (uint64_t)p[(limbs - 1 - i) * 8 + (7 - b)] << (8 * b);
	}
}

/* ---- the statistic ---- */

/* x in fixed point, clamped (see the comment at the top). */
static int64_t quantize(double x)
{
	long double s = x * OUTLIER_SCALE;

	if (isnan(s))
		return 0;
	if (s >= (long double)MAXQ)
		return MAXQ;
	if (s <= -(long double)MAXQ)
		return -MAXQ;
	return llroundl(s);
}

static u128 mag(__int128 v)
{
	return v < 0 ? -(u128)v : (u128)v;
}

/* Adds (sign 1) or removes (sign −1) value x. */
void outlier_fig_move(struct fig *f, double x, int sign)
{
	int64_t q = quantize(x);
	struct u256 q2 = u256_sq(mag(q));
	int borrow;

	f->n += sign;
	f->s += sign > 0 ? (__int128)q : -(__int128)q;
	f->qq = sign > 0 ? u256_add(f->qq, q2) : u256_sub(f->qq, q2, &borrow);
}

/* Mean and population standard deviation from the exact sums, and the
 * bounds outside which a run is flagged (infinite when σ = 0). */
void outlier_moments(const struct fig *f, double *mean, double *sd, double *lo, double *hi)
{
	struct u256 d;
	long double nn = (long double)f->n, var;
	int borrow = 0;

	*mean = *sd = 0;
	*lo = -INFINITY;
	*hi = INFINITY;
	if (f->n <= 0)
		return;
	d = u256_sub(u256_mul64(f->qq, (uint64_t)f->n), u256_sq(mag(f->s)), &borrow);
	var = borrow ? 0 : u256_ld(d) / (nn * nn);     /* borrow: impossible, n·Q >= S² */
	*mean = (double)((long double)f->s / nn / OUTLIER_SCALE);
	*sd = (double)(sqrtl(var) / OUTLIER_SCALE);
	if (*sd > 0) {
		*lo = *mean - 3.0 * *sd;
		*hi = *mean + 3.0 * *sd;
	}
}

void outlier_fig_replace(struct fig *f, int has_old, double old, int has_new, double now)
{
	if (has_old)
		outlier_fig_move(f, old, -1);
	if (has_new)
		outlier_fig_move(f, now, 1);
}

void outlier_fig_blobs(const struct fig *f, unsigned char s[16], unsigned char qq[32])
{
	uint64_t w[2] = { (uint64_t)(u128)f->s, (uint64_t)((u128)f->s >> 64) };

	outlier_be_put(s, w, 2);
	outlier_be_put(qq, f->qq.w, 4);
}

int outlier_fig_of_blobs(struct fig *f, long long n, const void *s, int slen, const void *qq, int qqlen)
{
	uint64_t w[2];

	memset(f, 0, sizeof *f);
	if (slen != 16 || qqlen != 32 || !s || !qq)
		return -1;
	f->n = n;
	outlier_be_get(s, w, 2);
	f->s = (__int128)(((u128)w[1] << 64) | w[0]);
	outlier_be_get(qq, f->qq.w, 4);
	return 0;
}

int outlier_is_flagged(double x, double mean, double sd)
{
	return sd > 0 && (x < mean - 3.0 * sd || x > mean + 3.0 * sd);
}
