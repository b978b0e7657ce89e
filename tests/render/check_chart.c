/* check_chart.c: the inline SVG charts of server/render/chart.c and its number
 * formats, with the SVG read back by a real XML parser (python3's
 * ElementTree). */
#include "check_util.h"
#include "render/chart.h"
#include "util/buf.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOSTILE "<script>alert(1)</script>&\"' ]]><!--"

/* ---- helpers ------------------------------------------------------------------ */

/* The SVG of c; the caller frees. */
static char *render(const struct chart *c)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(chart_render_svg(c, &b), 0);
	return buf_detach(&b, NULL);
}

/* What every chart must be, and the helpers a test's assertions use, are
 * in tests/check_chart.py, which runs them on the SVG. */

/* Writes svg and asserts (python, one statement a line) to a temporary
 * folder and runs tests/check_chart.py on them.  Returns its exit
 * status: 0 when the SVG parsed and every assertion held. */
static int py_check(const char *svg, const char *asserts)
{
	char dir[] = "/tmp/check_chart_XXXXXX", svgp[64], pyp[64], cmd[1400];
	FILE *f;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(svgp, sizeof svgp, "%s/c.svg", dir);
	snprintf(pyp, sizeof pyp, "%s/c.py", dir);
	f = fopen(svgp, "w");
	ck_assert_ptr_nonnull(f);
	fputs(svg, f);
	ck_assert_int_eq(fclose(f), 0);
	f = fopen(pyp, "w");
	ck_assert_ptr_nonnull(f);
	fputs(asserts, f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/tests/check_chart.py' %s %s",
		 repo_root(), svgp, pyp);
	rc = system(cmd);
	unlink(svgp);
	unlink(pyp);
	rmdir(dir);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Renders c and requires asserts to hold; returns nothing, fails the test. */
static void check_chart(const struct chart *c, const char *asserts)
{
	char *svg = render(c);

	ck_assert_msg(py_check(svg, asserts) == 0, "python checks failed for:\n%s", svg);
	free(svg);
}

/* ---- numbers ------------------------------------------------------------------ */

/* ---- known inputs ------------------------------------------------------------------ */

static const double ctx[] = { 32768, 65536, 131072 };
static const double dec[] = { 80.1, 64.0, 45.2 };
static const double pre[] = { 546.0, 437.0, 327.0 };

static struct chart decay_chart(struct chart_series *s)
{
	struct chart c = { .kind = CHART_LINE, .title = "Decode and prefill by context",
		.x_label = "context length", .y_label = "tok/s", .x = ctx, .n = 3,
		.series = s, .nseries = 2, .x_scale = CHART_LOG2,
		.x_ticks = CHART_TICK_TOKENS };
	s[0] = (struct chart_series){ "decode tok/s", dec };
	s[1] = (struct chart_series){ "prefill tok/s", pre };
	return c;
}

START_TEST(line_log2_context)
{
	struct chart_series s[2];
	struct chart c = decay_chart(s);

	check_chart(&c,
		"assert title == 'Decode and prefill by context', title\n"
		"assert ticks('x') == ['32K', '64K', '128K'], ticks('x')\n"
		"assert ticks('y') == ['0', '100', '200', '300', '400', '500', '600'] or ticks('y') == ['0', '200', '400', '600'], ticks('y')\n"
		"assert label('x') == 'context length' and label('y') == 'tok/s'\n"
		"assert legend() == ['decode tok/s', 'prefill tok/s'], legend()\n"
		"d, p = marks(1), marks(2)\n"
		"assert len(d) == 3 and len(p) == 3, (d, p)\n"
		"xs = [m[0] for m in d]\n"
		"assert abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.2, xs\n"   /* doublings evenly apart */
		"assert [m[0] for m in p] == xs\n"
		"for m, v in zip(d + p, [80.1, 64.0, 45.2, 546.0, 437.0, 327.0]):\n"
		"    assert abs(yval(m[1]) - v) < 1.0, (m, v, yval(m[1]))\n"
		"assert d[0][2] == 'context length 32K: decode tok/s 80.1', d[0][2]\n"
		"assert p[2][2] == 'context length 128K: prefill tok/s 327.0', p[2][2]\n"
		"assert [round(x) for x, y in path(1)] == [round(x) for x in xs], path(1)\n"
		"assert notext == []\n");
}
END_TEST

/* Text never runs into text or out of the drawing at a phone's 18 units:
 * the plot's left edge moves right for wide y tick labels, so they clear
 * the rotated y label; long legend names take a second row; a long title
 * breaks onto two lines.  (Widths here are generous: 0.62 em a character.) */
START_TEST(layout_clears_text_at_phone_size)
{
	static const double bs[] = { 1, 2, 4, 8, 16 };
	static const double a[] = { 70, 260, 470, 850, 1480 };
	static const double b[] = { 60, 200, 400, 700, 1200 };
	struct chart_series s[4] = { { "NVIDIA GeForce RTX 4090, llama.cpp", a }, { "M3 Ultra, mlx", b },
		{ "RTX 5090, exllamav2", a }, { "Ryzen AI Max+ 395, vllm", b } };
	struct chart c = { .kind = CHART_LINE,
		.title = "Aggregate throughput by batch size, streams run serially",
		.x_label = "batch size", .y_label = "aggregate tok/s", .x = bs, .n = 5, .series = s,
		.nseries = 4, .x_scale = CHART_LOG2 };

	check_chart(&c,
		"W = lambda t: 0.62 * 18 * len(t)\n"
		"ys = [t for g in root.iter(ns + 'g') if 'ticks' in cls(g) and 'y' in cls(g) for t in g.findall(ns + 'text')]\n"
		"assert T(ys[-1]) == '1,500', [T(t) for t in ys]\n"
		"assert all(float(t.get('x')) - W(T(t)) >= 24 for t in ys), [(t.get('x'), T(t)) for t in ys]\n"
		"lt = [t for g in root.findall(ns + 'g') if 'legend' in cls(g) for t in g.findall(ns + 'text')]\n"
		"assert len({t.get('y') for t in lt}) >= 2, [t.get('y') for t in lt]\n"
		"assert all(float(t.get('x')) + W(T(t)) <= 560 for t in lt), [(t.get('x'), T(t)) for t in lt]\n"
		"tt = [t for t in root.iter(ns + 'text') if cls(t) == ['chart-title']]\n"
		"assert len(tt) == 2 and ' '.join(T(t) for t in tt) == title, [T(t) for t in tt]\n"
		"assert all(8 + W(T(t)) <= 560 for t in tt), [T(t) for t in tt]\n"
		"top = min(float(y) for y in re.findall(r'M[0-9.]+ ([0-9.]+)V', root.find(ns + 'path[@class=\"axis\"]').get('d')))\n"
		"assert top > max(float(t.get('y')) for t in lt) + 6, top\n");
}
END_TEST

/* A legend name too long for one row wraps onto lines under each other,
 * each inside the drawing, never cut; its text reads as the name, and the
 * plot starts below its last line (issue 38: "Qwen3-Coder-30B-A3B-Instruc…"). */
START_TEST(long_legend_names_wrap_whole)
{
	static const double bs[] = { 1, 2, 4 };
	static const double a[] = { 70, 260, 470 };
	static const double b[] = { 60, 200, 400 };
	struct chart_series s[2] = {
		{ "Qwen3-Coder-30B-A3B-Instruct-1M-Extended-Context, NVIDIA GeForce RTX 4090, llama.cpp b6123", a },
		{ "M3 Ultra, mlx", b } };
	struct chart c = { .kind = CHART_LINE, .title = "By batch", .x_label = "batch size",
		.y_label = "aggregate tok/s", .x = bs, .n = 3, .series = s, .nseries = 2,
		.x_scale = CHART_LOG2 };

	check_chart(&c,
		"W = lambda t: 0.62 * 18 * len(t)\n"
		"assert legend() == ['Qwen3-Coder-30B-A3B-Instruct-1M-Extended-Context, NVIDIA GeForce RTX 4090, llama.cpp b6123', 'M3 Ultra, mlx'], legend()\n"
		"assert '\u2026' not in ''.join(legend())\n"
		"lt = [t for g in root.findall(ns + 'g') if 'legend' in cls(g) for t in g.findall(ns + 'text')]\n"
		"spans = lt[0].findall(ns + 'tspan')\n"
		"assert len(spans) >= 2, [T(x) for x in spans]\n"
		"assert all(float(x.get('x')) + W(T(x).rstrip()) <= 560 for x in spans), [T(x) for x in spans]\n"
		"rows = float(lt[0].get('y')) + 24 * (len(spans) - 1)\n"
		"assert float(lt[1].get('y')) > rows, (lt[1].get('y'), rows)\n"
		"top = min(float(y) for y in re.findall(r'M[0-9.]+ ([0-9.]+)V', root.find(ns + 'path[@class=\"axis\"]').get('d')))\n"
		"assert top > float(lt[1].get('y')) + 6, top\n");
}
END_TEST

START_TEST(line_log2_batch)
{
	static const double bs[] = { 1, 4, 8, 16 };
	static const double agg[] = { 112.0, 113.0, 112.5, 111.0 };
	static const double per[] = { 112.0, 28.2, 14.1, 6.9 };
	struct chart_series s[2] = { { "aggregate", agg }, { "per-stream", per } };
	struct chart c = { .kind = CHART_LINE, .title = "By batch", .x_label = "batch size",
		.y_label = "tok/s", .x = bs, .n = 4, .series = s, .nseries = 2,
		.x_scale = CHART_LOG2 };

	check_chart(&c,
		"assert ticks('x') == ['1', '2', '4', '8', '16'], ticks('x')\n"
		"assert ticks('y')[0] == '0' and num(ticks('y')[-1]) >= 113, ticks('y')\n"
		"a = marks(1)\n"
		"assert len(a) == 4 and len(marks(2)) == 4\n"
		"assert abs((a[2][0] - a[1][0]) - (a[3][0] - a[2][0])) < 0.2\n"
		"assert abs((a[1][0] - a[0][0]) - 2 * (a[2][0] - a[1][0])) < 0.2\n"
		"assert abs(yval(marks(2)[3][1]) - 6.9) < 1\n");
}
END_TEST

START_TEST(line_linear_sorted)
{
	static const double x[] = { 11000, 2100, 16000, 6400 };   /* out of order */
	static const double y[] = { 99, 110, 95, 104 };
	struct chart_series s = { "decode", y };
	struct chart c = { .kind = CHART_LINE, .title = "Linear", .x_label = "context",
		.y_label = "tok/s", .x = x, .n = 4, .series = &s, .nseries = 1 };

	check_chart(&c,
		"t = [num(v) for v in ticks('x')]\n"
		"assert t[0] <= 2100 and t[-1] >= 16000 and len(t) >= 3, t\n"
		"assert len(set(round(b - a, 6) for a, b in zip(t, t[1:]))) == 1, t\n"
		"assert ticks('x')[-1].count(',') == 1, ticks('x')\n"
		"px = [p[0] for p in path(1)]\n"
		"assert px == sorted(px) and len(px) == 4, px\n"
		"assert legend() == ['decode']\n");
}
END_TEST

START_TEST(bar_known)
{
	static const double turn[] = { 1, 2, 3, 4 };
	static const double ttft[] = { 610, 420, 450, 480 };
	struct chart_series s = { "TTFT", ttft };
	struct chart c = { .kind = CHART_BAR, .title = "TTFT per turn", .x_label = "turn",
		.y_label = "ms", .x = turn, .n = 4, .series = &s, .nseries = 1 };

	check_chart(&c,
		"assert ticks('x') == ['1', '2', '3', '4'], ticks('x')\n"
		"b = bars(1)\n"
		"assert [m[2] for m in b] == ['turn 1: TTFT 610.0', 'turn 2: TTFT 420.0', 'turn 3: TTFT 450.0', 'turn 4: TTFT 480.0'], b\n"
		"for m, v in zip(b, [610, 420, 450, 480]):\n"
		"    assert abs(yval(m[1]) - v) < 1.0, (m, v)\n"
		"assert [m[0] for m in b] == sorted(m[0] for m in b)\n");
}
END_TEST

START_TEST(unnamed_single_series_has_no_legend)
{
	static const double x[] = { 1, 2 };
	static const double y[] = { 3, 4 };
	struct chart_series s = { NULL, y };
	struct chart c = { .kind = CHART_LINE, .title = "t", .x_label = "x", .y_label = "y",
		.x = x, .n = 2, .series = &s, .nseries = 1 };

	check_chart(&c, "assert legend() == []\nassert len(marks(1)) == 2\n");
}
END_TEST

/* ---- hostile text ------------------------------------------------------------------ */

START_TEST(hostile_text_escaped)
{
	struct chart_series s[2];
	struct chart c = decay_chart(s);
	char *svg;

	c.title = c.x_label = c.y_label = HOSTILE;
	s[0].name = HOSTILE;
	s[1].name = "ctl\x01\x1f and \xc3\xa9";
	svg = render(&c);
	ck_assert_ptr_null(strstr(svg, "<script"));
	ck_assert_ptr_null(strstr(svg, "<!--"));
	ck_assert_ptr_nonnull(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"));
	ck_assert_int_eq(py_check(svg,
		"H = '<script>alert(1)</script>&\"\\' ]]><!--'\n"
		"assert title == H, title\n"
		"assert label('x') == H and label('y') == H\n"
		"assert legend()[0] == H, legend()\n"
		"assert legend()[1] == 'ctl\\ufffd\\ufffd and \\u00e9', legend()\n"
		"assert marks(1)[0][2] == H + ' 32K: ' + H + ' 80.1', marks(1)[0][2]\n"
		"assert not any(e.tag.endswith('script') for e in root.iter())\n"), 0);
	free(svg);
}
END_TEST

/* ---- degenerate input -------------------------------------------------------------- */

START_TEST(empty_chart_says_no_data)
{
	struct chart_series s = { "decode", NULL };
	struct chart c = { .kind = CHART_LINE, .title = "Empty", .x_label = "x",
		.y_label = "y", .x = NULL, .n = 0, .series = &s, .nseries = 1,
		.x_scale = CHART_LOG2 };

	check_chart(&c, "assert notext == ['no data']\nassert marks(1) == []\nassert ticks('x') == []\n"
		"assert num(ticks('y')[0]) == 0\n");
	c.kind = CHART_BAR;
	check_chart(&c, "assert notext == ['no data']\n");
}
END_TEST

START_TEST(nothing_finite_says_no_data)
{
	static const double x[] = { 1, 2 };
	static const double y[] = { NAN, INFINITY };
	struct chart_series s = { "decode", y };
	struct chart c = { .kind = CHART_LINE, .title = "NaN", .x_label = "x",
		.y_label = "y", .x = x, .n = 2, .series = &s, .nseries = 1 };

	check_chart(&c, "assert notext == ['no data']\nassert marks(1) == []\n");
}
END_TEST

START_TEST(one_point)
{
	static const double x[] = { 4096 };
	static const double y[] = { 50 };
	static const double one[] = { 1 };
	struct chart_series s = { "decode", y };
	struct chart c = { .kind = CHART_LINE, .title = "One", .x_label = "ctx",
		.y_label = "tok/s", .x = x, .n = 1, .series = &s, .nseries = 1,
		.x_scale = CHART_LOG2, .x_ticks = CHART_TICK_TOKENS };

	check_chart(&c, "assert len(marks(1)) == 1\nassert '4K' in ticks('x'), ticks('x')\n"
		"assert abs(yval(marks(1)[0][1]) - 50) < 1\n");
	c.x_scale = CHART_LINEAR;
	check_chart(&c, "assert len(marks(1)) == 1 and len(ticks('x')) >= 2, ticks('x')\n");
	c.x = one;
	c.x_scale = CHART_LOG2;
	c.x_ticks = CHART_TICK_NUM;
	check_chart(&c, "assert ticks('x')[0] == '1', ticks('x')\n");
	c.kind = CHART_BAR;
	check_chart(&c, "assert len(bars(1)) == 1 and ticks('x') == ['1']\n");
}
END_TEST

START_TEST(all_zero_values)
{
	static const double x[] = { 1, 2, 4 };
	static const double y[] = { 0, 0, 0 };
	struct chart_series s = { "zero", y };
	struct chart c = { .kind = CHART_LINE, .title = "Zeros", .x_label = "x",
		.y_label = "y", .x = x, .n = 3, .series = &s, .nseries = 1,
		.x_scale = CHART_LOG2 };

	check_chart(&c, "assert len(marks(1)) == 3\nassert num(ticks('y')[0]) == 0 and num(ticks('y')[-1]) > 0\n"
		"assert all(abs(m[1] - ybase()) < 0.1 for m in marks(1))\n");
	c.kind = CHART_BAR;
	check_chart(&c, "assert len(bars(1)) == 3\n");
}
END_TEST

START_TEST(gaps_and_nonpositive_x)
{
	static const double x[] = { 0, 2, 4, 8 };
	static const double y[] = { 10, NAN, 30, 40 };
	struct chart_series s = { "s", y };
	struct chart c = { .kind = CHART_LINE, .title = "Gaps", .x_label = "x",
		.y_label = "y", .x = x, .n = 4, .series = &s, .nseries = 1,
		.x_scale = CHART_LOG2 };

	/* x = 0 cannot sit on a log scale: the axis turns linear and keeps it. */
	check_chart(&c, "assert len(marks(1)) == 3 and len(path(1)) == 3\n"
		"assert ticks('x')[0] == '0', ticks('x')\n");
}
END_TEST

START_TEST(huge_and_tiny_values)
{
	static const double x[] = { 1, 1e300 };
	static const double y[] = { 1e300, 1e-300 };
	static const double y2[] = { 0.004, 0.009 };
	struct chart_series s = { "s", y };
	struct chart c = { .kind = CHART_LINE, .title = "Huge", .x_label = "x",
		.y_label = "y", .x = x, .n = 2, .series = &s, .nseries = 1,
		.x_scale = CHART_LINEAR };

	check_chart(&c, "assert len(marks(1)) == 2\n");
	c.x_scale = CHART_LOG2;
	check_chart(&c, "assert len(marks(1)) == 2\n");
	s.y = y2;
	check_chart(&c, "assert ticks('y')[-1] == '0.010', ticks('y')\n");
}
END_TEST

START_TEST(many_points_capped)
{
	static double x[CHART_MAX_POINTS + 50], y[CHART_MAX_POINTS + 50];
	struct chart_series s = { "s", y };
	struct chart c = { .kind = CHART_BAR, .title = "Many", .x_label = "x",
		.y_label = "y", .x = x, .n = CHART_MAX_POINTS + 50, .series = &s,
		.nseries = 1 };
	size_t i;

	for (i = 0; i < c.n; i++) {
		x[i] = (double)i + 1;
		y[i] = (double)(i % 7);
	}
	check_chart(&c, "assert len(bars(1)) == 256\nassert 0 < len(ticks('x')) <= 13, ticks('x')\n");
}
END_TEST

START_TEST(invalid_input_refused)
{
	static const double x[] = { 1 };
	struct chart_series s[CHART_MAX_SERIES + 1] = { { "a", x }, { "b", x }, { "c", x },
							{ "d", x }, { "e", x } };
	struct chart c = { .kind = CHART_LINE, .title = "t", .x = x, .n = 1,
		.series = s, .nseries = 1 };
	struct buf b = BUF_INIT;

	ck_assert_int_eq(chart_render_svg(NULL, &b), -1);
	c.nseries = 0;
	ck_assert_int_eq(chart_render_svg(&c, &b), -1);
	c.nseries = CHART_MAX_SERIES + 1;
	ck_assert_int_eq(chart_render_svg(&c, &b), -1);
	c.nseries = 1;
	c.x = NULL;
	ck_assert_int_eq(chart_render_svg(&c, &b), -1);
	c.x = x;
	s[0].y = NULL;
	ck_assert_int_eq(chart_render_svg(&c, &b), -1);
	c.series = NULL;
	ck_assert_int_eq(chart_render_svg(&c, &b), -1);
	ck_assert_uint_eq(b.len, 0);
	buf_release(&b);
}
END_TEST

START_TEST(no_style_attributes)
{
	struct chart_series s[2];
	struct chart c = decay_chart(s);
	char *svg = render(&c);

	/* CSP style-src 'self' would drop these: colors are presentation
	 * attributes and classes only. */
	ck_assert_ptr_null(strstr(svg, "style="));
	ck_assert_ptr_null(strstr(svg, "<style"));
	ck_assert_ptr_nonnull(strstr(svg, "class=\"series s1\""));
	ck_assert_ptr_nonnull(strstr(svg, "stroke=\"#0072b2\""));
	free(svg);
}
END_TEST

static Suite *suite_chart(void)
{
	Suite *s = suite_create("chart");
	TCase *k = tcase_create("known");
	TCase *e = tcase_create("edges");

	tcase_add_test(k, line_log2_context);
	tcase_add_test(k, line_log2_batch);
	tcase_add_test(k, layout_clears_text_at_phone_size);
	tcase_add_test(k, line_linear_sorted);
	tcase_add_test(k, bar_known);
	tcase_add_test(k, unnamed_single_series_has_no_legend);
	tcase_add_test(k, long_legend_names_wrap_whole);
	tcase_add_test(k, hostile_text_escaped);
	tcase_add_test(k, no_style_attributes);
	tcase_add_test(e, empty_chart_says_no_data);
	tcase_add_test(e, nothing_finite_says_no_data);
	tcase_add_test(e, one_point);
	tcase_add_test(e, all_zero_values);
	tcase_add_test(e, gaps_and_nonpositive_x);
	tcase_add_test(e, huge_and_tiny_values);
	tcase_add_test(e, many_points_capped);
	tcase_add_test(e, invalid_input_refused);
	tcase_set_timeout(k, 30);
	tcase_set_timeout(e, 60);
	suite_add_tcase(s, k);
	suite_add_tcase(s, e);
	return s;
}

CHECK_MAIN(suite_chart)
