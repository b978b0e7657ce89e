/* chart.c: line and bar charts as inline SVG, drawn by the server. */
#include "render/chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/badge_svg.h"
#include "render/html.h"
#include "util/utf8.h"
#include "util/numfmt.h"

/* The plot area inside the viewBox, in user units.  Text is laid out for
 * the largest size it is drawn at: 18 units, a phone's (style.css), with
 * the advances of Verdana (badge_text_width), wider than the fonts pages
 * use, so what fits here fits there. */
#define PAD_LEFT 72        /* the least room left of the plot */
#define PAD_RIGHT 16
#define PAD_BOTTOM 58
#define TITLE_Y 22         /* the title's first baseline */
#define LINE_H 24          /* one more line of title or legend */
#define TOP_PLAIN 40       /* plot top under a one-line title */
#define INSET 14           /* line charts keep end markers off the axes */
#define TEXT_PX 18.0       /* the largest font size of the chart's text */
#define MARGIN 6           /* text keeps this far from the drawing's edge */
#define Y_TITLE_X 18       /* the rotated y label's baseline: it spans about 4..23 */
#define Y_TITLE_GAP 8      /* between it and the widest y tick label */
#define Y_TICKS 5
#define MAX_TICKS 24

/* Okabe-Ito blue, vermillion, bluish green and reddish purple: apart for
 * color-blind readers, and on light and dark pages (style.css lightens
 * them for dark mode).  Each series also has its own dash and marker. */
static const char *const series_color[CHART_MAX_SERIES] = { "#0072b2", "#d55e00", "#009e73", "#cc79a7" };
static const char *const series_dash[CHART_MAX_SERIES] = { "", " stroke-dasharray=\"6 4\"",
	" stroke-dasharray=\"2 3\"", " stroke-dasharray=\"10 3 2 3\"" };

/* One axis: its domain [lo, hi] and tick step.  On a log2 axis lo, hi and
 * step are exponents of two. */
struct axis {
	double lo, hi, step;
	int log2;
};

/* Everything one rendering needs: the chart, the plot frame, the axes and
 * the points in x order. */
struct plot {
	const struct chart *c;
	size_t n;
	double left, right, top, bottom;
	struct axis x, y;
	size_t order[CHART_MAX_POINTS];
	size_t title_cut;          /* the title's second line starts here; 0: one line */
	int legend_rows;
};

/* How wide s is drawn at TEXT_PX, in user units (generously). */
static double text_w(const char *s)
{
	return badge_text_width(s) * TEXT_PX / 11.0;
}

/* ---- numbers for people ----------------------------------------------------- */

/* Appends a token count the way context lengths are spoken: 1024 as "1K",
 * 131072 as "128K", 1536 as "1.5K", 2^20 as "1M"; below 1024 as is. */
static void fmt_tokens(struct buf *out, double v)
{
	double k = v / 1024, m = v / 1048576;

	if (!(fabs(v) >= 1024))
		numfmt_int(out, v);
	else if (fabs(m) >= 1)
		buf_printf(out, m == floor(m) ? "%.0fM" : "%.1fM", m);
	else
		buf_printf(out, k == floor(k) ? "%.0fK" : "%.1fK", k);
}

/* Appends a linear tick label with as many decimals as step needs. */
static void fmt_tick(struct buf *out, double v, double step)
{
	int dec = step >= 1 || step <= 0 ? 0 : (int)ceil(-log10(step) - 1e-9);

	numfmt_fixed(out, v, dec > 8 ? 8 : dec);
}

/* Appends an x value as the chart's tick style asks. */
static void fmt_x(struct buf *out, const struct chart *c, double v)
{
	if (c->x_ticks == CHART_TICK_TOKENS)
		fmt_tokens(out, v);
	else
		numfmt_int(out, v);
}

/* ---- scales ------------------------------------------------------------------ */

/* A round step (1, 2 or 5 times a power of ten) cutting range into about
 * target pieces. */
static double nice_step(double range, int target)
{
	double raw = range / target, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* A linear axis covering [lo, hi] with ends on round ticks.  A domain of
 * one value is widened around it. */
static void linear_axis(struct axis *a, double lo, double hi, int target)
{
	double d, step;

	if (!(hi > lo)) {
		d = lo == 0 ? 1 : fabs(lo) / 2;
		lo -= d;
		hi += d;
	}
	step = nice_step(hi - lo, target);
	a->log2 = 0;
	if (!isfinite(step) || step <= 0 || !isfinite(hi - lo)) {
		a->lo = lo;
		a->hi = hi;
		a->step = 0;
		return;
	}
	a->step = step;
	a->lo = floor(lo / step + 1e-9) * step;
	a->hi = ceil(hi / step - 1e-9) * step;
}

/* A log2 axis from the power of two at or below lo to the one at or above
 * hi (both > 0), at least two octaves wide, at most about eight ticks. */
static void log2_axis(struct axis *a, double lo, double hi)
{
	a->log2 = 1;
	a->lo = floor(log2(lo));
	a->hi = ceil(log2(hi));
	if (a->hi - a->lo < 1) {      /* one value: widen, never below 1 from 1 */
		a->lo -= a->lo == 0 ? 0 : 1;
		a->hi += a->lo == 0 && a->hi == 0 ? 2 : 1;
	}
	a->step = ceil((a->hi - a->lo) / 8);
}

/* The position of value v along [from, to] on axis a. */
static double scale(const struct axis *a, double v, double from, double to)
{
	double t = a->log2 ? log2(v) : v;

	return from + (t - a->lo) / (a->hi - a->lo) * (to - from);
}

static double px(const struct plot *p, double x)
{
	double inset = p->c->kind == CHART_LINE ? INSET : 0;

	return scale(&p->x, x, p->left + inset, p->right - inset);
}

static double py(const struct plot *p, double y)
{
	return scale(&p->y, y, p->bottom, p->top);
}

/* 1 when point i of series s is drawn: finite, and positive x on log2. */
static int drawn(const struct plot *p, size_t s, size_t i)
{
	double x = p->c->x[i], y = p->c->series[s].y[i];

	if (!isfinite(y) || !isfinite(x))
		return 0;
	return !p->x.log2 || x > 0;
}

/* The range of finite x (lo, hi, and whether all are > 0); returns how
 * many x are finite. */
static size_t x_range(const struct plot *p, double *lo, double *hi, int *positive)
{
	size_t i, k = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	*positive = 1;
	for (i = 0; i < p->n; i++) {
		double x = p->c->x[i];
		if (!isfinite(x))
			continue;
		*lo = fmin(*lo, x);
		*hi = fmax(*hi, x);
		*positive &= x > 0;
		k++;
	}
	return k;
}

/* Sets both axes from the data: y from 0 (or the lowest value) to a round
 * maximum; x on log2 when asked and every x is positive.  Returns the
 * number of points that will be drawn. */
static size_t set_axes(struct plot *p)
{
	double xlo, xhi, ylo = 0, yhi = -INFINITY;
	size_t s, i, k = 0;
	int positive;

	x_range(p, &xlo, &xhi, &positive);
	p->x.log2 = p->c->kind == CHART_LINE && p->c->x_scale == CHART_LOG2 && positive;
	for (s = 0; s < p->c->nseries; s++)
		for (i = 0; i < p->n; i++)
			if (drawn(p, s, i)) {
				ylo = fmin(ylo, p->c->series[s].y[i]);
				yhi = fmax(yhi, p->c->series[s].y[i]);
				k++;
			}
	if (!(yhi > ylo))
		yhi = ylo + 1;
	linear_axis(&p->y, ylo, yhi, Y_TICKS);
	if (!k || !isfinite(xlo)) {   /* nothing to draw: a plain 0..1 axis */
		xlo = 0;
		xhi = 1;
		p->x.log2 = 0;
	}
	if (p->x.log2)
		log2_axis(&p->x, xlo, xhi);
	else
		linear_axis(&p->x, xlo, xhi, 6);
	return k;
}

/* Fills p->order with the point indices sorted by x (stable; non-finite x
 * last), so lines run left to right. */
static void sort_points(struct plot *p)
{
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		size_t v = p->order[i] = i;
		double xv = p->c->x[v];
		for (j = i; j > 0; j--) {
			double xo = p->c->x[p->order[j - 1]];
			if (!(xo > xv) && !(isnan(xo) && !isnan(xv)))
				break;
			p->order[j] = p->order[j - 1];
		}
		p->order[j] = v;
	}
}

/* ---- drawing ------------------------------------------------------------------ */

/* The root element, its <title> and the visible title, on two lines when
 * it is too wide for one (broken at p->title_cut). */
static void open_svg(struct buf *b, const struct plot *p)
{
	const char *t = p->c->title ? p->c->title : "";

	buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		   "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
		   CHART_WIDTH, CHART_HEIGHT, CHART_WIDTH, CHART_HEIGHT);
	html_attr(b, t);
	buf_puts(b, "\" font-family=\"system-ui, sans-serif\" font-size=\"13\" "
		 "fill=\"currentColor\"><title>");
	html_txt(b, t);
	buf_printf(b, "</title>\n<text class=\"chart-title\" x=\"8\" y=\"%d\" "
		   "font-size=\"15\" font-weight=\"bold\">", TITLE_Y);
	if (!p->title_cut) {
		html_txt(b, t);
	} else {
		html_txt_n(b, t, p->title_cut - 1);
		buf_printf(b, "</text>\n<text class=\"chart-title\" x=\"8\" y=\"%d\" "
			   "font-size=\"15\" font-weight=\"bold\">", TITLE_Y + LINE_H);
		html_txt(b, t + p->title_cut);
	}
	buf_puts(b, "</text>\n");
}

/* The group attributes of series s: its class and colors. */
static void series_group(struct buf *b, size_t s)
{
	buf_printf(b, "<g class=\"series s%zu\" stroke=\"%s\" fill=\"%s\" stroke-width=\"2\"%s>",
		   s + 1, series_color[s], series_color[s], series_dash[s]);
}

/* The marker of series s at (x, y), undashed: a circle for the first
 * series, a square for the second, then a hollow circle and a hollow
 * square; marker_end() closes it. */
static void marker(struct buf *b, size_t s, double x, double y)
{
	if (s % 2 == 0)
		buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"", x, y);
	else
		buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\"", x - 4.5, y - 4.5);
	if (s >= 2)
		buf_puts(b, " fill=\"none\"");
	buf_puts(b, " stroke-dasharray=\"none\"");
}

/* 1 when the chart has a legend: two series or more, or one with a name. */
static int has_legend(const struct chart *c)
{
	return c->nseries > 1 || utf8_len(c->series[0].name);
}

/* The most lines one legend name wraps onto. */
#define LEGEND_LINES 4

/* The name of series s, "" for none. */
static const char *series_name(const struct plot *p, size_t s)
{
	return p->c->series[s].name ? p->c->series[s].name : "";
}

/* How wide name[from..to) is drawn. */
static double span_w(const char *name, size_t from, size_t to)
{
	struct buf t = BUF_INIT;
	double w;

	buf_add(&t, name + from, to - from);
	w = buf_error(&t) ? 0 : text_w(t.buf);
	buf_release(&t);
	return w;
}

/* Wraps name into lines of at most room (its words whole: a line breaks
 * after a space, a hyphen or a comma; a word wider than room stands on
 * its own line): how many lines (1..LEGEND_LINES), each after the first
 * starting at at[k - 1] (its leading spaces skipped). */
static int wrap_name(const char *name, double room, size_t at[LEGEND_LINES - 1])
{
	size_t n = strlen(name), start = 0, i, fit;
	int lines = 1;

	while (lines < LEGEND_LINES && span_w(name, start, n) > room) {
		fit = 0;
		for (i = start + 1; i < n; i++) {
			int brk = name[i] == ' ' || name[i - 1] == '-' || name[i - 1] == ',';

			if (!brk)
				continue;
			if (fit && span_w(name, start, i) > room)
				break;
			fit = i;
		}
		if (!fit)
			break;
		while (name[fit] == ' ')
			fit++;
		at[lines - 1] = start = fit;
		lines++;
	}
	return lines;
}

/* The lines legend item s takes (wrap_name), breaks into at. */
static int legend_lines(const struct plot *p, size_t s, size_t at[LEGEND_LINES - 1])
{
	/* A tenth kept back: a wrapped line is long, and fonts differ. */
	return wrap_name(series_name(p, s), 0.9 * (CHART_WIDTH - MARGIN - p->left - 36), at);
}

/* Where legend item s goes: its x and its row, items laid left to right
 * from the plot's left edge and onto a new row when one would pass the
 * drawing's right edge; a name too long for one row wraps onto more
 * (never cut), and the next item starts under it. */
static void legend_at(const struct plot *p, size_t s, double *x, int *row)
{
	size_t i, at[LEGEND_LINES - 1];

	*x = p->left;
	*row = 0;
	for (i = 0; i <= s; i++) {
		int lines = legend_lines(p, i, at);
		double w = lines > 1 ? CHART_WIDTH - MARGIN - p->left
				     : fmin(36 + text_w(series_name(p, i)), CHART_WIDTH - MARGIN - p->left);

		if (*x > p->left && *x + w > CHART_WIDTH - MARGIN) {
			*x = p->left;
			(*row)++;
		}
		if (i < s && lines > 1) {
			*x = p->left;
			*row += lines;
		} else if (i < s) {
			*x += w + 24;
		}
	}
}

/* The baseline of legend row `row`. */
static double legend_y(const struct plot *p, int row)
{
	return TITLE_Y + (p->title_cut ? LINE_H : 0) + 28 + row * LINE_H;
}

/* Appends the legend name of series s drawn from x at baseline y: one
 * line as it is, or its lines (wrap_name) as tspans under each other; a
 * single word wider than the room left is cut with "…" at a code point. */
static void legend_name(struct buf *b, const struct plot *p, size_t s, double x)
{
	const char *name = series_name(p, s);
	double room = CHART_WIDTH - MARGIN - x;
	size_t i = 0, keep = 0, n = strlen(name), at[LEGEND_LINES - 1];
	struct buf t = BUF_INIT;
	int lines = legend_lines(p, s, at), k;

	if (lines > 1) {
		for (k = 0; k < lines; k++) {
			/* The spaces a line breaks at end the line before it, so
			 * the text reads as the name. */
			size_t from = k ? at[k - 1] : 0, to = k + 1 < lines ? at[k] : n;

			buf_printf(b, "<tspan x=\"%.1f\" dy=\"%d\">", x, k ? LINE_H : 0);
			html_txt_n(b, name + from, to - from);
			buf_puts(b, "</tspan>");
		}
		return;
	}
	if (text_w(name) <= room) {
		html_txt(b, name);
		return;
	}
	while (i < n) {
		i += utf8_prefix(name + i, n - i, 1);
		buf_reset(&t);
		buf_add(&t, name, i);
		buf_puts(&t, "\xe2\x80\xa6");
		if (buf_error(&t) || text_w(t.buf) > room)
			break;
		keep = i;
	}
	buf_release(&t);
	html_txt_n(b, name, keep);
	buf_puts(b, "\xe2\x80\xa6");
}

/* The legend: a line sample with its marker and the name, per series;
 * none for a single unnamed series. */
static void legend(struct buf *b, const struct plot *p)
{
	const struct chart *c = p->c;
	double x, y;
	size_t s;
	int row;

	if (!has_legend(c))
		return;
	buf_puts(b, "<g class=\"legend\">");
	for (s = 0; s < c->nseries; s++) {
		legend_at(p, s, &x, &row);
		y = legend_y(p, row);
		series_group(b, s);
		if (c->kind == CHART_LINE)
			buf_printf(b, "<path d=\"M%.1f %.1fH%.1f\" fill=\"none\"/>", x, y - 5, x + 28);
		marker(b, s, x + 14, y - 5);
		buf_printf(b, "/></g><text x=\"%.1f\" y=\"%.1f\">", x + 36, y);
		legend_name(b, p, s, x + 36);
		buf_puts(b, "</text>");
	}
	buf_puts(b, "</g>\n");
}

/* Horizontal grid lines and y tick labels. */
static void y_axis(struct buf *b, const struct plot *p)
{
	const struct axis *a = &p->y;
	int i, n = a->step > 0 ? (int)floor((a->hi - a->lo) / a->step + 0.5) : 1;

	buf_puts(b, "<g class=\"grid\" stroke=\"currentColor\" stroke-opacity=\"0.18\">");
	for (i = 1; i <= n && i <= MAX_TICKS; i++)
		buf_printf(b, "<path d=\"M%.1f %.1fH%.1f\"/>", p->left,
			   py(p, a->lo + i * (a->hi - a->lo) / n), p->right);
	buf_puts(b, "</g>\n<g class=\"ticks y\" text-anchor=\"end\">");
	for (i = 0; i <= n && i <= MAX_TICKS; i++) {
		double v = a->lo + i * (a->hi - a->lo) / n;
		if (fabs(v) < fabs(a->step) * 1e-9)
			v = 0;
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", p->left - 8, py(p, v) + 4.5);
		fmt_tick(b, v, a->step);
		buf_puts(b, "</text>");
	}
	buf_puts(b, "</g>\n");
}

/* One x tick with its label at position x. */
static void x_tick(struct buf *b, const struct plot *p, double x)
{
	buf_printf(b, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"currentColor\"/>"
		   "<text x=\"%.1f\" y=\"%.1f\">", x, p->bottom, p->bottom + 5,
		   x, p->bottom + 20);
}

/* X ticks and labels: powers of two on log2, round steps on linear, one
 * per category (thinned when crowded) for bars. */
static void x_axis(struct buf *b, const struct plot *p)
{
	const struct axis *a = &p->x;
	size_t i, every;
	double t;

	buf_puts(b, "<g class=\"ticks x\" text-anchor=\"middle\">");
	if (p->c->kind == CHART_BAR) {
		every = p->n > 12 ? (p->n + 11) / 12 : 1;
		for (i = 0; i < p->n; i += every) {
			x_tick(b, p, p->left + (i + 0.5) * (p->right - p->left) / (double)p->n);
			fmt_x(b, p->c, p->c->x[i]);
			buf_puts(b, "</text>");
		}
	} else {
		for (i = 0; i <= MAX_TICKS && a->step > 0; i++) {
			t = a->lo + (double)i * a->step;
			if (t > a->hi + a->step * 1e-9)
				break;
			if (fabs(t) < a->step * 1e-9)
				t = 0;
			x_tick(b, p, px(p, a->log2 ? exp2(t) : t));
			if (a->log2)
				fmt_x(b, p->c, exp2(t));
			else if (p->c->x_ticks == CHART_TICK_TOKENS)
				fmt_tokens(b, t);
			else
				fmt_tick(b, t, a->step);
			buf_puts(b, "</text>");
		}
	}
	buf_puts(b, "</g>\n");
}

/* The two axis lines and the axis labels. */
static void frame(struct buf *b, const struct plot *p)
{
	buf_printf(b, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" "
		   "stroke=\"currentColor\"/>\n", p->left, p->top, p->bottom, p->right);
	buf_printf(b, "<text class=\"axis-label x\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		   (p->left + p->right) / 2, CHART_HEIGHT - 12);
	html_txt(b, p->c->x_label);
	buf_printf(b, "</text>\n<text class=\"axis-label y\" transform=\"rotate(-90)\" "
		   "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", -(p->top + p->bottom) / 2, Y_TITLE_X);
	html_txt(b, p->c->y_label);
	buf_puts(b, "</text>\n");
}

/* The tooltip of point i of series s: "x label value: series value". */
static void point_title(struct buf *b, const struct plot *p, size_t s, size_t i)
{
	buf_puts(b, "<title>");
	html_txt(b, p->c->x_label);
	buf_putc(b, ' ');
	fmt_x(b, p->c, p->c->x[i]);
	buf_puts(b, ": ");
	html_txt(b, p->c->series[s].name);
	buf_putc(b, ' ');
	numfmt_fig(b, p->c->series[s].y[i]);
	buf_puts(b, "</title>");
}

/* Series s as a line through its drawn points, in x order, with markers. */
static void line_series(struct buf *b, const struct plot *p, size_t s)
{
	const double *y = p->c->series[s].y;
	size_t k, i, drawn_n = 0;

	series_group(b, s);
	buf_puts(b, "<path fill=\"none\" d=\"");
	for (k = 0; k < p->n; k++) {
		i = p->order[k];
		if (!drawn(p, s, i))
			continue;
		buf_printf(b, "%s%.1f %.1f", drawn_n++ ? "L" : "M", px(p, p->c->x[i]), py(p, y[i]));
	}
	buf_puts(b, "\"/>");
	for (k = 0; k < p->n; k++) {
		i = p->order[k];
		if (!drawn(p, s, i))
			continue;
		marker(b, s, px(p, p->c->x[i]), py(p, y[i]));
		buf_puts(b, ">");
		point_title(b, p, s, i);
		buf_puts(b, s % 2 ? "</rect>" : "</circle>");
	}
	buf_puts(b, "</g>\n");
}

/* Series s as one bar per category, beside the other series' bars. */
static void bar_series(struct buf *b, const struct plot *p, size_t s)
{
	double slot = (p->right - p->left) / (double)p->n;
	double w = slot * 0.7 / (double)p->c->nseries;
	double base = py(p, p->y.lo > 0 ? p->y.lo : 0);
	size_t i;

	series_group(b, s);
	for (i = 0; i < p->n; i++) {
		double x = p->left + (double)i * slot + slot * 0.15 + (double)s * w, top;
		if (!drawn(p, s, i))
			continue;
		top = py(p, p->c->series[s].y[i]);
		buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			   "stroke-dasharray=\"none\">", x, fmin(top, base), w, fabs(base - top));
		point_title(b, p, s, i);
		buf_puts(b, "</rect>");
	}
	buf_puts(b, "</g>\n");
}

/* 0 when c can be drawn. */
static int invalid(const struct chart *c)
{
	size_t s;

	if (!c || !c->nseries || c->nseries > CHART_MAX_SERIES || !c->series ||
	    (c->n && !c->x))
		return -1;
	for (s = 0; s < c->nseries; s++)
		if (c->n && !c->series[s].y)
			return -1;
	return 0;
}

/* The widest y tick label, in user units at TEXT_PX. */
static double y_labels_w(const struct plot *p)
{
	const struct axis *a = &p->y;
	int i, n = a->step > 0 ? (int)floor((a->hi - a->lo) / a->step + 0.5) : 1;
	struct buf t = BUF_INIT;
	double w = 0;

	for (i = 0; i <= n && i <= MAX_TICKS; i++) {
		double v = a->lo + i * (a->hi - a->lo) / n;

		if (fabs(v) < fabs(a->step) * 1e-9)
			v = 0;
		buf_reset(&t);
		fmt_tick(&t, v, a->step);
		if (!buf_error(&t))
			w = fmax(w, text_w(t.buf));
	}
	buf_release(&t);
	return w;
}

/* How wide the bold title text s is drawn (bold is about an eighth wider). */
static double title_w(const char *s)
{
	return text_w(s) * 1.15;
}

/* Where the title must break to fit the drawing's width: 0 when it fits
 * on one line, else the byte after the last space that lets the first line
 * fit (the first space when none does). */
static size_t title_break(const char *t)
{
	struct buf first = BUF_INIT;
	size_t i, cut = 0, any = 0;

	if (!t || title_w(t) <= CHART_WIDTH - 8 - MARGIN)
		return 0;
	for (i = 0; t[i]; i++) {
		if (t[i] != ' ')
			continue;
		any = any ? any : i + 1;
		buf_reset(&first);
		buf_add(&first, t, i);
		if (!buf_error(&first) && title_w(first.buf) <= CHART_WIDTH - 8 - MARGIN)
			cut = i + 1;
	}
	buf_release(&first);
	return cut ? cut : any;
}

/* Lays out what the data leaves open: the plot's left edge clears the
 * rotated y label and the widest y tick label, and its top clears the
 * title's lines and the legend's rows. */
static void lay_out(struct plot *p)
{
	double x;
	int row = 0;

	p->left = fmax(PAD_LEFT, Y_TITLE_X + 5 + Y_TITLE_GAP + y_labels_w(p) + 8);
	p->title_cut = title_break(p->c->title);
	if (has_legend(p->c)) {
		size_t at[LEGEND_LINES - 1];

		legend_at(p, p->c->nseries - 1, &x, &row);
		p->top = legend_y(p, row + legend_lines(p, p->c->nseries - 1, at) - 1) + 12;
	} else {
		p->top = TOP_PLAIN + (p->title_cut ? LINE_H : 0);
	}
}

int chart_render_svg(const struct chart *c, struct buf *out)
{
	struct plot p;
	size_t s, k;

	if (invalid(c))
		return -1;
	memset(&p, 0, sizeof p);
	p.c = c;
	p.n = c->n > CHART_MAX_POINTS ? CHART_MAX_POINTS : c->n;
	p.right = CHART_WIDTH - PAD_RIGHT;
	p.bottom = CHART_HEIGHT - PAD_BOTTOM;
	k = set_axes(&p);
	lay_out(&p);
	sort_points(&p);
	open_svg(out, &p);
	legend(out, &p);
	y_axis(out, &p);
	if (k)
		x_axis(out, &p);
	frame(out, &p);
	for (s = 0; k && s < c->nseries; s++)
		(c->kind == CHART_BAR ? bar_series : line_series)(out, &p, s);
	if (!k)
		buf_printf(out, "<text class=\"no-data\" x=\"%.1f\" y=\"%.1f\" "
			   "text-anchor=\"middle\">no data</text>\n",
			   (p.left + p.right) / 2, (p.top + p.bottom) / 2);
	buf_puts(out, "</svg>");
	return buf_error(out);
}
