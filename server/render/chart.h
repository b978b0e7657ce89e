/* chart.h: small line and bar charts drawn by the server as inline SVG.
 *
 * Pure rendering, no I/O: the caller fills a struct chart with one x array
 * and one or two y series and gets markup that reads without JavaScript
 * and passes a Content-Security-Policy without 'unsafe-inline' (colors are
 * SVG presentation attributes and classes, never style attributes).
 *
 *   static const double ctx[] = { 32768, 65536, 131072 };
 *   static const double dec[] = { 80.1, 64.0, 45.2 };
 *   struct chart_series s = { "decode tok/s", dec };
 *   struct chart c = { .title = "Decode by context length",
 *                      .x_label = "context tokens", .y_label = "tok/s",
 *                      .x = ctx, .n = 3, .series = &s, .nseries = 1,
 *                      .x_scale = CHART_LOG2, .x_ticks = CHART_TICK_TOKENS };
 *   struct buf svg = BUF_INIT;
 *   if (chart_render_svg(&c, &svg)) goto out;
 *   ...
 *   buf_release(&svg);
 */
#ifndef LLMS_CHART_H
#define LLMS_CHART_H

#include <stddef.h>

#include "util/buf.h"

enum chart_kind {
	CHART_LINE = 0,   /* markers joined by a line, x placed on its scale */
	CHART_BAR = 1     /* grouped bars, one slot per x value, in order */
};

enum chart_scale {
	CHART_LINEAR = 0,
	CHART_LOG2 = 1    /* falls back to linear when any x is <= 0 */
};

enum chart_ticks {
	CHART_TICK_NUM = 0,     /* x tick labels as numfmt_fig */
	CHART_TICK_TOKENS = 1   /* 1024 -> "1K", 131072 -> "128K", 1536 -> "1.5K" */
};

/* One series: name is the legend text (any bytes; escaped on output), y
 * holds chart.n values aligned with chart.x.  Non-finite values are not
 * drawn. */
struct chart_series {
	const char *name;
	const double *y;
};

#define CHART_MAX_SERIES 4   /* two for a run's own figures, up to four runs compared */
#define CHART_MAX_POINTS 256   /* points past this are not drawn */
#define CHART_WIDTH 560        /* viewBox size in user units */
#define CHART_HEIGHT 320

struct chart {
	enum chart_kind kind;
	const char *title;         /* visible, and the <title> / aria-label */
	const char *x_label;       /* under the x axis */
	const char *y_label;       /* beside the y axis, rotated */
	const double *x;           /* n values; NULL only when n is 0 */
	size_t n;
	const struct chart_series *series;
	size_t nseries;            /* 1 or 2 */
	enum chart_scale x_scale;  /* line charts only */
	enum chart_ticks x_ticks;
};

/* Appends one <svg class="chart"> to out: a visible title, a legend when
 * there are two series (or one with a name), a y axis from 0 (or the
 * lowest value when it is negative) to a rounded maximum with labelled
 * ticks and grid lines, an x axis with labelled ticks (powers of two on a
 * log2 scale), the axis labels, and the series: the first solid with round
 * markers, the second dashed with square markers, each marker carrying a
 * <title> with its x and y.  role="img", aria-label equal to the <title>.
 * Every piece of text goes through html_txt or html_attr; coordinates are
 * printed with one decimal.  An empty chart (n 0, or nothing finite) draws
 * its axes and says "no data".  Returns 0, or -1 when c is invalid (no
 * series or more than CHART_MAX_SERIES, x NULL with n > 0, a series
 * without y) or out is in error. */
int chart_render_svg(const struct chart *c, struct buf *out);

#endif
