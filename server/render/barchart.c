/* barchart.c: horizontal bar charts as inline SVG. */
#include "render/barchart.h"

#include <math.h>
#include <string.h>

#include "render/badge_svg.h"
#include "render/html.h"
#include "util/numfmt.h"
#include "util/utf8.h"

/* Text is measured with Verdana's advances (badge_text_width) at the
 * chart's 14 px, wider than the fonts pages use, so what fits here fits
 * there. */
#define FONT_PX 14.0
#define SUB_PX 13.0    /* a label's second line */
#define LABEL_X 200    /* right edge of the labels */
#define LABEL_ROOM 194 /* ... and how wide they may be: none starts left of 6 */
#define BAR_X 208      /* left edge of the bars */
#define BAR_MIN 40     /* the longest bar is at least this long */
#define GAP 6          /* between a bar and its value */
#define MARGIN 4       /* the value ends this far from the right edge */
#define BAR_H 18
#define TOP 8
#define ELLIPSIS "\xe2\x80\xa6"

/* How wide s[0..n) is drawn at px, "…" after it when dots; in user units. */
static double text_w(const char *s, size_t n, int dots, double px)
{
	char t[BARCHART_LABEL_MAX * 4 + 4];

	if (n > sizeof t - 4)
		n = sizeof t - 4;
	memcpy(t, s, n);
	strcpy(t + n, dots ? ELLIPSIS : "");
	return badge_text_width(t) * px / 11.0;
}

/* Appends label s (at most BARCHART_LABEL_MAX code points of it) as text
 * drawn at px no wider than LABEL_ROOM: whole, or cut after its last word that fits
 * with "…" ("Ryzen AI Max+ 395…", never "…yzen AI"), or when even the
 * first word does not fit, after its last code point that does. */
static void put_label(struct buf *out, const char *s, double px)
{
	size_t n = strlen(s), i = 0, chars = 0, word = 0, fit = 0;

	while (i < n && chars < BARCHART_LABEL_MAX) {
		i += utf8_prefix(s + i, n - i, 1);
		chars++;
		if (text_w(s, i, 1, px) <= LABEL_ROOM) {
			fit = i;
			if (!s[i] || s[i] == ' ')
				word = i;
		}
	}
	if (!s[i] && text_w(s, i, 0, px) <= LABEL_ROOM) {
		html_txt_n(out, s, i);
		return;
	}
	while (word && s[word - 1] == ' ')
		word--;
	html_txt_n(out, s, word ? word : fit);
	buf_puts(out, ELLIPSIS);
}

/* The value's text after a bar: "112.2 tok/s". */
static void put_value(struct buf *out, double v, const char *unit)
{
	numfmt_fig(out, v);
	buf_putc(out, ' ');
	html_txt(out, unit);
}

static int drawable(double v)
{
	return isfinite(v) && v >= 0;
}

/* The largest drawable value, or 0. */
static double max_of(const struct barchart_bar *bars, size_t n)
{
	double m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (drawable(bars[i].value) && bars[i].value > m)
			m = bars[i].value;
	return m;
}

/* The longest bar: what the widest value's text leaves of the width. */
static double bar_max(const struct barchart_bar *bars, size_t n, const char *unit)
{
	struct buf t = BUF_INIT;
	double vw = 0;
	size_t i;

	for (i = 0; i < n && i < BARCHART_MAX_BARS; i++) {
		if (!drawable(bars[i].value))
			continue;
		buf_reset(&t);
		put_value(&t, bars[i].value, unit);
		if (!buf_error(&t))
			vw = fmax(vw, badge_text_width(t.buf) * FONT_PX / 11.0);
	}
	buf_release(&t);
	return fmax(BAR_MIN, BARCHART_WIDTH - MARGIN - GAP - vw - BAR_X);
}

/* One row, row units tall: label (and its sub line when two), bar, value,
 * and a <title> with the whole text. */
static void put_row(struct buf *out, const struct barchart_bar *bar, const char *unit,
		    double max, double longest, unsigned y, int two)
{
	double w = max > 0 ? bar->value / max * longest : 0;
	unsigned mid = two ? y + (BARCHART_ROW2 - BARCHART_ROW) / 2 : y;   /* where a one-line row would be */

	if (w < 1)
		w = 1;
	buf_puts(out, "<g><title>");
	html_txt(out, bar->label);
	if (bar->sub && *bar->sub) {
		buf_puts(out, " \xc2\xb7 ");
		html_txt(out, bar->sub);
	}
	buf_puts(out, ": ");
	numfmt_fig(out, bar->value);
	buf_putc(out, ' ');
	html_txt(out, unit);
	buf_printf(out, "</title><text x=\"%d\" y=\"%u\" text-anchor=\"end\" fill=\"currentColor\">",
		   LABEL_X, two ? y + 17 : y + 14);
	put_label(out, bar->label, FONT_PX);
	buf_puts(out, "</text>");
	if (two && bar->sub && *bar->sub) {
		buf_printf(out, "<text class=\"sub\" x=\"%d\" y=\"%u\" text-anchor=\"end\" font-size=\"%g\" "
			   "fill=\"currentColor\">", LABEL_X, y + 34, SUB_PX);
		put_label(out, bar->sub, SUB_PX);
		buf_puts(out, "</text>");
	}
	buf_printf(out, "<rect x=\"%d\" y=\"%u\" width=\"%.1f\" height=\"%d\" fill=\"#3f6fb5\"/>",
		   BAR_X, mid + 1, w, BAR_H);
	buf_printf(out, "<text x=\"%.1f\" y=\"%u\" fill=\"currentColor\">",
		   BAR_X + w + GAP, mid + 14);
	put_value(out, bar->value, unit);
	buf_puts(out, "</text></g>\n");
}

int barchart_svg(struct buf *out, const char *title, const char *unit,
		 const struct barchart_bar *bars, size_t n)
{
	double max = max_of(bars, n), longest = bar_max(bars, n, unit);
	unsigned rows = 0, y, row = BARCHART_ROW;
	int two = 0;
	size_t i;

	for (i = 0; i < n && i < BARCHART_MAX_BARS; i++) {
		rows += drawable(bars[i].value);
		two |= drawable(bars[i].value) && bars[i].sub && *bars[i].sub;
	}
	if (two)
		row = BARCHART_ROW2;
	buf_printf(out, "<svg class=\"barchart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
		   "viewBox=\"0 0 %d %u\" width=\"%d\" height=\"%u\" font-size=\"14\" "
		   "font-family=\"system-ui, sans-serif\" aria-label=\"",
		   BARCHART_WIDTH, 2 * TOP + (rows ? rows : 1) * row,
		   BARCHART_WIDTH, 2 * TOP + (rows ? rows : 1) * row);
	html_attr(out, title);
	buf_puts(out, "\"><title>");
	html_txt(out, title);
	buf_puts(out, "</title>\n");
	y = TOP;
	for (i = 0; i < n && i < BARCHART_MAX_BARS; i++) {
		if (!drawable(bars[i].value))
			continue;
		put_row(out, &bars[i], unit, max, longest, y, two);
		y += row;
	}
	if (!rows)
		buf_printf(out, "<text x=\"%d\" y=\"%d\" fill=\"currentColor\">no data</text>\n",
			   BAR_X, TOP + 14);
	buf_puts(out, "</svg>");
	return buf_error(out);
}
