/* rankstrip.c: the run page's rank strip (rankstrip.h), drawn as inline
 * SVG from two histograms of decode rates; no I/O. */
#include "render/rankstrip.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/html.h"
#include "util/numfmt.h"

/* The strip's geometry, in user units. */
#define STRIP_W 360.0
#define STRIP_PAD 8.0      /* bars and tick labels keep off both edges */
#define BARS_TOP 4.0
#define BARS_BASE 34.0     /* the bars' baseline, which is the axis */
#define LABEL_Y 51.0       /* tick labels' baseline; 12 units high */
#define STRIP_H 56.0
#define LABEL_GAP 10.0     /* between two tick labels */

/* The position of decode rate v on the strip of buckets lo..hi. */
static double strip_x(double v, int lo, int hi)
{
	double bw = (STRIP_W - 2 * STRIP_PAD) / (double)(hi - lo + 1);

	return STRIP_PAD + (RANKSTRIP_PER_DOUBLING * log2(v) - lo) * bw;
}

/* The width of a tick label at 12 units: digits and commas at 0.62 em. */
static double label_w(const char *s)
{
	return 12 * 0.62 * (double)strlen(s);
}

/* Rate v as a tick label into t: a whole number ("1,000") or, sig3, three
 * significant digits ("16.0", "8.50"). */
static void rate_text(char *t, size_t n, double v, int sig3)
{
	struct buf f = BUF_INIT;

	if (sig3)
		numfmt_sig3(&f, v);
	else
		numfmt_int(&f, v);
	snprintf(t, n, "%s", buf_error(&f) ? "?" : f.buf);
	buf_release(&f);
}

/* Labelled ticks under the strip at round rates (1, 2 and 5 times a power
 * of ten) between its ends, as many as fit apart; when fewer than two fit,
 * the ends' own rates instead.  Every label stays inside the drawing. */
static void strip_axis(struct buf *s, int lo, int hi)
{
	static const double steps[] = { 1, 2, 5 };
	double from = exp2(lo / RANKSTRIP_PER_DOUBLING), to = exp2((hi + 1) / RANKSTRIP_PER_DOUBLING);
	double x[12], last = -1e9, v;
	char t[12][32];
	int k, e, n = 0, i;

	for (e = (int)floor(log10(from)); e <= (int)ceil(log10(to)); e++)
		for (k = 0; k < 3 && n < 12; k++) {
			v = steps[k] * pow(10, e);
			if (v < from || v > to)
				continue;
			x[n] = strip_x(v, lo, hi);
			rate_text(t[n], sizeof t[n], v, v < 1);
			if (x[n] - label_w(t[n]) / 2 < 1 || x[n] + label_w(t[n]) / 2 > STRIP_W - 1 ||
			    x[n] - label_w(t[n]) / 2 < last + LABEL_GAP)
				continue;
			last = x[n] + label_w(t[n]) / 2;
			n++;
		}
	buf_puts(s, "<g class=\"axis\" font-size=\"12\" text-anchor=\"middle\">");
	if (n >= 2) {
		for (i = 0; i < n; i++)
			buf_printf(s, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"currentColor\"/>"
				   "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x[i], BARS_BASE, BARS_BASE + 4,
				   x[i], LABEL_Y, t[i]);
	} else {
		rate_text(t[0], sizeof t[0], from, 1);
		rate_text(t[1], sizeof t[1], to, 1);
		buf_printf(s, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"currentColor\"/>"
			   "<text x=\"2\" y=\"%.1f\" text-anchor=\"start\">%s</text>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
			   STRIP_PAD, BARS_BASE, BARS_BASE + 4, STRIP_W - STRIP_PAD, BARS_BASE, BARS_BASE + 4,
			   LABEL_Y, t[0], STRIP_W - 2, LABEL_Y, t[1]);
	}
	buf_puts(s, "</g>");
}

void rankstrip_svg(struct buf *s, const struct rankstrip_hist *all, const struct rankstrip_hist *cl,
		   int b, const char *label)
{
	int lo = all->len ? all->lo : b, hi = all->len ? all->lo + all->len - 1 : b, i;
	long long max = 1;
	double bw, x, hgt = BARS_BASE - BARS_TOP;

	lo = lo < b ? lo : b;
	hi = hi > b ? hi : b;
	for (i = 0; i < all->len; i++)
		max = all->n[i] > max ? all->n[i] : max;
	bw = (STRIP_W - 2 * STRIP_PAD) / (double)(hi - lo + 1);
	buf_printf(s, "<svg class=\"rank-strip\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		   "width=\"%.0f\" height=\"%.0f\" role=\"img\" font-family=\"system-ui, sans-serif\" "
		   "fill=\"currentColor\" aria-label=\"", STRIP_W, STRIP_H, STRIP_W, STRIP_H);
	html_attr(s, label);
	buf_puts(s, "\"><title>");
	html_txt(s, label);
	buf_puts(s, "</title>");
	for (i = 0; i < all->len; i++) {
		double bh = hgt * (double)all->n[i] / (double)max;
		x = STRIP_PAD + (double)(all->lo + i - lo) * bw;
		if (all->n[i])
			buf_printf(s, "<rect class=\"all\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"#8c959f\"/>", x, BARS_BASE - bh, bw, bh);
	}
	for (i = 0; i < cl->len; i++) {
		double bh = hgt * (double)cl->n[i] / (double)max;
		x = STRIP_PAD + (double)(cl->lo + i - lo) * bw;
		if (cl->n[i] && cl->lo + i >= lo && cl->lo + i <= hi)
			buf_printf(s, "<rect class=\"cluster\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"#0072b2\"/>", x, BARS_BASE - bh, bw, bh);
	}
	buf_printf(s, "<path class=\"baseline\" d=\"M%.1f %.1fH%.1f\" stroke=\"currentColor\"/>",
		   STRIP_PAD, BARS_BASE + 0.5, STRIP_W - STRIP_PAD);
	strip_axis(s, lo, hi);
	x = STRIP_PAD + ((double)(b - lo) + 0.5) * bw;
	buf_printf(s, "<path class=\"mark\" d=\"M%.1f 1V%.1f\" stroke=\"#d55e00\" stroke-width=\"2.5\"/></svg>",
		   x, BARS_BASE + 2);
}
