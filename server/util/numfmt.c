/* numfmt.c: figures, counts and dates as the pages write them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/numfmt.h"

void numfmt_fixed(struct buf *out, double v, int dec)
{
	char s[64];
	size_t i, neg, intlen;

	if (!isfinite(v)) {
		buf_putc(out, '?');
		return;
	}
	if (fabs(v) >= 1e15) {
		buf_printf(out, "%.3g", v);
		return;
	}
	snprintf(s, sizeof s, "%.*f", dec, v);
	neg = s[0] == '-';
	if (neg && strspn(s + 1, "0.") == strlen(s + 1)) {
		memmove(s, s + 1, strlen(s));   /* "-0.0" reads as "0.0" */
		neg = 0;
	}
	intlen = strcspn(s + neg, ".");
	buf_add(out, s, neg);
	for (i = 0; i < intlen; i++) {
		if (i && (intlen - i) % 3 == 0)
			buf_putc(out, ',');
		buf_putc(out, s[neg + i]);
	}
	buf_puts(out, s + neg + intlen);
}

void numfmt_fig(struct buf *out, double v)
{
	double a = fabs(v);
	int dec;

	if (a == 0) {
		buf_putc(out, '0');
		return;
	}
	if (a < 1) {
		dec = 1 - (int)floor(log10(a));
		dec = dec > 8 ? 8 : dec;
		if (round(a * pow(10, dec)) >= pow(10, dec))
			dec = 1;   /* 0.996 rounds up to "1.0", as 1 is written */
		numfmt_fixed(out, v, dec);
	} else {
		numfmt_fixed(out, v, a < 999.95 ? 1 : 0);   /* 999.96 is "1,000" */
	}
}

void numfmt_sig3(struct buf *out, double v)
{
	int mag, dec;

	if (!isfinite(v)) {
		buf_putc(out, '?');
		return;
	}
	mag = v > 0 ? (int)floor(log10(v)) : 0;
	/* Rounding can carry into the next power of ten (9.996 -> "10.0"). */
	if (v > 0 && fabs(v) >= 9.995 * pow(10, mag))
		mag++;
	dec = mag >= 2 ? 0 : 2 - mag;
	numfmt_fixed(out, v, dec > 8 ? 8 : dec);
}

void numfmt_int(struct buf *out, double v)
{
	if (isfinite(v) && v == floor(v))
		numfmt_fixed(out, v, 0);
	else
		numfmt_fig(out, v);
}

void numfmt_count(struct buf *out, long long n, const char *one, const char *many)
{
	numfmt_fixed(out, (double)n, 0);
	buf_putc(out, ' ');
	buf_puts(out, n == 1 ? one : many);
}

void numfmt_sigma(struct buf *out, double sigma)
{
	if (sigma == 0) {
		buf_puts(out, "at");
		return;
	}
	numfmt_fig(out, fabs(sigma));
	buf_puts(out, sigma < 0 ? " below" : " above");
}

/* Reads n digits at s into *v; returns 0, or -1 if one is not a digit. */
static int digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

int numfmt_date(struct buf *out, const char *ts, size_t len)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int y, m, d;

	if (len < 10 || ts[4] != '-' || ts[7] != '-' || digits(ts, 4, &y) < 0 ||
	    digits(ts + 5, 2, &m) < 0 || digits(ts + 8, 2, &d) < 0 ||
	    m < 1 || m > 12 || d < 1 || d > 31 || (len > 10 && ts[10] != 'T'))
		return -1;
	buf_printf(out, "%d %s %04d", d, months[m - 1], y);
	return 0;
}

int numfmt_shortest(char out[NUMFMT_SHORTEST_LEN], double x)
{
	char *e, *keep, *s;
	int p, n = 0;

	out[0] = '\0';
	if (!isfinite(x))
		return -1;
	for (p = 15; p <= 17; p++) {
		n = snprintf(out, NUMFMT_SHORTEST_LEN, "%.*g", p, x);
		if (strtod(out, NULL) == x)
			break;         /* %.17g always reads back */
	}
	if (!(e = strchr(out, 'e')))
		return n;
	/* "e+07" -> "e7", "e-07" -> "e-7": the sign "-" stays, "+" and
	 * leading zeros go (one digit is always left). */
	keep = s = e + 1;
	if (*s == '-')
		keep = ++s;
	else if (*s == '+')
		s++;
	while (*s == '0' && s[1])
		s++;
	memmove(keep, s, strlen(s) + 1);
	return (int)strlen(out);
}
