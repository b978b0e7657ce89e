/* barchart.c: horizontal bar charts as inline SVG. */
#include "render/barchart.h"

#include <math.h>
#include <string.h>

#include "render/html.h"
#include "util/numfmt.h"
#include "util/utf8.h"

#define LABEL_X 180    /* right edge of the labels */
#define BAR_X 188      /* left edge of the bars */
#define BAR_MAX 140    /* longest bar; the value text follows it */
#define BAR_H 18
#define TOP 8

/* Appends s as text, cut after max characters (UTF-8 aware) with an
 * ellipsis. */
static void put_label(struct buf *out, const char *s, size_t max)
{
	size_t n = strlen(s), i = utf8_prefix(s, n, max);

	html_txt_n(out, s, i);
	if (i < n)
		buf_puts(out, "\xe2\x80\xa6");
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

/* One row: label, bar, value, and a <title> with the whole text. */
static void put_row(struct buf *out, const struct barchart_bar *bar, const char *unit,
		    double max, unsigned y)
{
	double w = max > 0 ? bar->value / max * BAR_MAX : 0;

	if (w < 1)
		w = 1;
	buf_puts(out, "<g><title>");
	html_txt(out, bar->label);
	buf_puts(out, ": ");
	numfmt_fig(out, bar->value);
	buf_putc(out, ' ');
	html_txt(out, unit);
	buf_printf(out, "</title><text x=\"%d\" y=\"%u\" text-anchor=\"end\" fill=\"currentColor\">",
		   LABEL_X, y + 14);
	put_label(out, bar->label, BARCHART_LABEL_MAX);
	buf_printf(out, "</text><rect x=\"%d\" y=\"%u\" width=\"%.1f\" height=\"%d\" fill=\"#3f6fb5\"/>",
		   BAR_X, y + 1, w, BAR_H);
	buf_printf(out, "<text x=\"%.1f\" y=\"%u\" fill=\"currentColor\">",
		   BAR_X + w + 6, y + 14);
	numfmt_fig(out, bar->value);
	buf_putc(out, ' ');
	html_txt(out, unit);
	buf_puts(out, "</text></g>\n");
}

int barchart_svg(struct buf *out, const char *title, const char *unit,
		 const struct barchart_bar *bars, size_t n)
{
	double max = max_of(bars, n);
	unsigned rows = 0, y;
	size_t i;

	for (i = 0; i < n && i < BARCHART_MAX_BARS; i++)
		rows += drawable(bars[i].value);
	buf_printf(out, "<svg class=\"barchart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
		   "viewBox=\"0 0 %d %u\" width=\"%d\" height=\"%u\" font-size=\"14\" "
		   "font-family=\"system-ui, sans-serif\" aria-label=\"",
		   BARCHART_WIDTH, 2 * TOP + (rows ? rows : 1) * BARCHART_ROW,
		   BARCHART_WIDTH, 2 * TOP + (rows ? rows : 1) * BARCHART_ROW);
	html_attr(out, title);
	buf_puts(out, "\"><title>");
	html_txt(out, title);
	buf_puts(out, "</title>\n");
	y = TOP;
	for (i = 0; i < n && i < BARCHART_MAX_BARS; i++) {
		if (!drawable(bars[i].value))
			continue;
		put_row(out, &bars[i], unit, max, y);
		y += BARCHART_ROW;
	}
	if (!rows)
		buf_printf(out, "<text x=\"%d\" y=\"%d\" fill=\"currentColor\">no data</text>\n",
			   BAR_X, TOP + 14);
	buf_puts(out, "</svg>");
	return buf_error(out);
}
