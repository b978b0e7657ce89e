/* check_rankstrip.c: the run page's rank strip, server/render/rankstrip.c. */
#include "check_util.h"
#include "render/rankstrip.h"

/* The x of the first "<tag class=\"cls\" x=\"" after from, or -1. */
static double x_of(const char *svg, const char *what)
{
	const char *p = strstr(svg, what);

	return p ? atof(p + strlen(what)) : -1;
}

/* One bar per non-empty bucket, the cluster's drawn over the weights
 * file's, the mark at the run's bucket, and the label escaped in the
 * aria-label and the title. */
START_TEST(bars_mark_and_label)
{
	static const long long all_n[] = { 3, 0, 6, 1 }, cl_n[] = { 2 };
	struct rankstrip_hist all = { 64, all_n, 4 }, cl = { 66, cl_n, 1 };
	struct buf out = BUF_INIT;
	const char *p;
	int bars = 0;

	rankstrip_svg(&out, &all, &cl, 66, "Fast <runs> & \"slow\"");
	ck_assert(!buf_error(&out));
	ck_assert(!strncmp(out.buf, "<svg class=\"rank-strip\"", 23));
	ck_assert_ptr_nonnull(strstr(out.buf, "aria-label=\"Fast &lt;runs&gt; &amp; &quot;slow&quot;\""));
	ck_assert_ptr_nonnull(strstr(out.buf, "<title>Fast &lt;runs&gt; &amp; &quot;slow&quot;</title>"));
	for (p = out.buf; (p = strstr(p, "<rect class=\"all\"")); p++)
		bars++;
	ck_assert_int_eq(bars, 3);
	ck_assert_ptr_nonnull(strstr(out.buf, "<rect class=\"cluster\""));
	/* Bucket 66 is the third of four: its bar and the mark sit there. */
	ck_assert_double_eq_tol(x_of(out.buf, "<rect class=\"cluster\" x=\""), 8 + 2 * 86, 0.1);
	ck_assert_double_eq_tol(x_of(out.buf, "<path class=\"mark\" d=\"M"), 8 + 2.5 * 86, 0.1);
	ck_assert(!strcmp(out.buf + out.len - 6, "</svg>"));
	buf_release(&out);
}
END_TEST

/* A run outside the weights file's range (its only run, say) widens the
 * strip to it, and the mark stays inside the drawing. */
START_TEST(mark_outside_the_bars_widens_the_strip)
{
	static const long long all_n[] = { 5 };
	struct rankstrip_hist all = { 10, all_n, 1 }, none = { 0, NULL, 0 };
	struct buf out = BUF_INIT;
	double x;

	rankstrip_svg(&out, &all, &none, 40, "x");
	x = x_of(out.buf, "<path class=\"mark\" d=\"M");
	ck_assert(x > 8 && x < 352);
	ck_assert_ptr_null(strstr(out.buf, "class=\"cluster\""));
	buf_release(&out);
	rankstrip_svg(&out, &none, &none, 40, "x");
	ck_assert_ptr_null(strstr(out.buf, "<rect"));
	ck_assert_double_eq_tol(x_of(out.buf, "<path class=\"mark\" d=\"M"), 180, 0.1);
	buf_release(&out);
}
END_TEST

static Suite *suite_rankstrip(void)
{
	Suite *s = suite_create("rankstrip");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bars_mark_and_label);
	tcase_add_test(tc, mark_outside_the_bars_widens_the_strip);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_rankstrip)
