/* gauge.c: a measured speed against its bandwidth ceiling as inline SVG. */
#include "render/gauge.h"

#include <math.h>

#include "render/html.h"

#define PAD 1.0           /* the bar's room from the top and bottom edges */

/* x of value v on a scale whose full width is top. */
static double at(double v, double top)
{
	double x = v / top * GAUGE_WIDTH;

	return x < 0 ? 0 : x > GAUGE_WIDTH ? GAUGE_WIDTH : x;
}

int gauge_svg(struct buf *out, double value, double low, double high, const char *label)
{
	double top, lo, hi;

	if (!isfinite(value) || !isfinite(low) || !isfinite(high) || value < 0 || low <= 0 || high < low)
		return -1;
	top = value > high ? value : high;
	lo = at(low, top);
	hi = at(high, top);
	buf_printf(out, "<svg class=\"gauge\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
		   "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" preserveAspectRatio=\"none\" aria-label=\"",
		   GAUGE_WIDTH, GAUGE_HEIGHT, GAUGE_WIDTH, GAUGE_HEIGHT);
	html_attr(out, label ? label : "");
	buf_puts(out, "\"><title>");
	html_txt(out, label ? label : "");
	buf_puts(out, "</title>");
	buf_printf(out, "<rect class=\"track\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>",
		   PAD, GAUGE_WIDTH, GAUGE_HEIGHT - 2 * PAD);
	if (hi - lo >= 1.0)
		buf_printf(out, "<rect class=\"band\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\"/>",
			   lo, hi - lo, GAUGE_HEIGHT);
	buf_printf(out, "<rect class=\"fill\" x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
		   PAD + 3, at(value, top), GAUGE_HEIGHT - 2 * PAD - 6);
	/* The ceiling's top: a mark the bar reaches at 100%. */
	buf_printf(out, "<line class=\"top\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\"/></svg>",
		   hi > GAUGE_WIDTH - 1 ? GAUGE_WIDTH - 1 : hi, hi > GAUGE_WIDTH - 1 ? GAUGE_WIDTH - 1 : hi,
		   GAUGE_HEIGHT);
	return buf_error(out);
}
