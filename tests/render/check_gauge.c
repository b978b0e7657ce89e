/* check_gauge.c: the speed-against-ceiling bar of server/render/gauge.c. */
#include "check_util.h"
#include "render/gauge.h"

#include <math.h>

/* The SVG of one gauge; the caller frees. */
static char *gauge(double v, double lo, double hi, const char *label)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(gauge_svg(&b, v, lo, hi, label), 0);
	return buf_detach(&b, NULL);
}

/* The number after attr in the first element whose text starts with tag, or -1. */
static double num_of(const char *svg, const char *tag, const char *attr)
{
	const char *p = strstr(svg, tag);

	if (!p || !(p = strstr(p, attr)))
		return -1;
	return strtod(p + strlen(attr), NULL);
}

/* The bar is the value's share of the ceiling; a range is a band from low
 * to high, an exact ceiling none; the ceiling's mark sits at its top. */
START_TEST(bar_in_proportion_to_the_ceiling)
{
	char *svg = gauge(60, 120, 120, "half");

	ck_assert_double_eq_tol(num_of(svg, "<rect class=\"fill\"", "width=\""), GAUGE_WIDTH / 2.0, 0.1);
	ck_assert_ptr_null(strstr(svg, "class=\"band\""));
	ck_assert_double_eq_tol(num_of(svg, "<line class=\"top\"", "x1=\""), GAUGE_WIDTH - 1, 0.1);
	free(svg);
	svg = gauge(50, 100, 200, "range");
	ck_assert_double_eq_tol(num_of(svg, "<rect class=\"fill\"", "width=\""), GAUGE_WIDTH / 4.0, 0.1);
	ck_assert_double_eq_tol(num_of(svg, "<rect class=\"band\"", "x=\""), GAUGE_WIDTH / 2.0, 0.1);
	ck_assert_double_eq_tol(num_of(svg, "<rect class=\"band\"", "width=\""), GAUGE_WIDTH / 2.0, 0.1);
	free(svg);
}
END_TEST

/* Above the ceiling the bar fills the width and the ceiling's mark moves
 * inside it: nothing is drawn past the viewBox. */
START_TEST(above_the_ceiling_stays_inside)
{
	char *svg = gauge(300, 100, 100, "over");

	ck_assert_double_eq_tol(num_of(svg, "<rect class=\"fill\"", "width=\""), GAUGE_WIDTH, 0.1);
	ck_assert_double_eq_tol(num_of(svg, "<line class=\"top\"", "x1=\""), GAUGE_WIDTH / 3.0, 0.1);
	free(svg);
}
END_TEST

/* The label is escaped for its attribute and its <title>. */
START_TEST(label_escaped)
{
	char *svg = gauge(1, 2, 2, "a \"<b>\" & c");

	ck_assert_ptr_nonnull(strstr(svg, "aria-label=\"a &quot;&lt;b&gt;&quot; &amp; c\""));
	ck_assert_ptr_nonnull(strstr(svg, "&lt;b&gt;") && strstr(strstr(svg, "<title>"), "&amp; c</title>")
			      ? svg : NULL);
	ck_assert_ptr_null(strstr(svg, "<b>"));
	free(svg);
}
END_TEST

/* Figures that cannot be drawn append nothing. */
START_TEST(bad_figures_refused)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(gauge_svg(&b, NAN, 1, 2, "x"), -1);
	ck_assert_int_eq(gauge_svg(&b, 1, 0, 2, "x"), -1);
	ck_assert_int_eq(gauge_svg(&b, 1, 3, 2, "x"), -1);
	ck_assert_int_eq(gauge_svg(&b, -1, 1, 2, "x"), -1);
	ck_assert_int_eq(gauge_svg(&b, 1, 1, INFINITY, "x"), -1);
	ck_assert_uint_eq(b.len, 0);
	buf_release(&b);
}
END_TEST

static Suite *suite_gauge(void)
{
	Suite *s = suite_create("gauge");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bar_in_proportion_to_the_ceiling);
	tcase_add_test(tc, above_the_ceiling_stays_inside);
	tcase_add_test(tc, label_escaped);
	tcase_add_test(tc, bad_figures_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_gauge)
