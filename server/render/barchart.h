/* barchart.h: a horizontal bar chart drawn by the server as inline SVG.
 *
 * Pure rendering, no I/O.  Colors are presentation attributes (the
 * Content-Security-Policy forbids style attributes), text follows the
 * page's color through currentColor, and every label goes through the
 * escapers of html.h.
 *
 *   struct barchart_bar bars[] = { { "M3 Ultra", 192.5 }, { "M3 Pro", 19.4 } };
 *   barchart_svg(&out, "Best decode tok/s per hardware", "tok/s", bars, 2);
 */
#ifndef LLMS_BARCHART_H
#define LLMS_BARCHART_H

#include <stddef.h>

#include "util/buf.h"

struct barchart_bar {
	const char *label;   /* any bytes; escaped, cut to fit (see barchart_svg) */
	double value;        /* drawn when finite and >= 0 */
	const char *sub;     /* NULL, or a second line under the label (what ran: "exllamav2 EXL2-4.0bpw") */
};

#define BARCHART_WIDTH 430   /* drawn at this size: a 390 px phone scales its 14 px text no lower than 11 px */
#define BARCHART_ROW 28
#define BARCHART_ROW2 44   /* a row whose label has a second line */
#define BARCHART_LABEL_MAX 40   /* code points of a label looked at, at most */
#define BARCHART_MAX_BARS 64   /* bars past this are not drawn */

/* Appends one <svg class="barchart" role="img"> to out, its aria-label and
 * <title> equal to title: a row per bar in the order given, the label
 * right-aligned before the bar, the bar's length in proportion to the
 * largest value, and the value with one decimal and unit after it; each
 * row carries a <title> "label: value unit".  No bars: a one-line "no
 * data" chart.  When any bar has a sub line, every row is BARCHART_ROW2
 * tall and the sub line is drawn under its label, right-aligned in the
 * same column, in smaller text (class "sub"); the row's <title> is
 * "label · sub: value unit".  A label or sub line too wide for its column is cut after its last
 * whole word that fits, with "…" (after a code point when its first word
 * alone does not fit), and the longest bar leaves room for the widest
 * value, so no text leaves the drawing.  Returns 0, or -1 when out is in
 * error. */
int barchart_svg(struct buf *out, const char *title, const char *unit,
		 const struct barchart_bar *bars, size_t n);

#endif
