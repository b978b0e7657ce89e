/* check_barchart.c: the server-drawn bar chart of server/render/barchart.c. */
#include "check_util.h"
#include "render/badge_svg.h"
#include "render/barchart.h"

#include <math.h>

/* The SVG of bars; the caller frees. */
static char *chart(const struct barchart_bar *bars, size_t n)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(barchart_svg(&b, "Best <decode> & more", "tok/s", bars, n), 0);
	return buf_detach(&b, NULL);
}

/* The width="..." of the n-th <rect> of svg (0-based), or -1. */
static double rect_width(const char *svg, int n)
{
	const char *p = svg;

	while ((p = strstr(p, "<rect")) && n--)
		p++;
	if (!p || !(p = strstr(p, "width=\"")))
		return -1;
	return strtod(p + 7, NULL);
}

/* Bars are in proportion to the largest value, in the order given, each
 * labelled with its value and unit. */
START_TEST(bars_in_proportion)
{
	struct barchart_bar bars[] = { { "big", 200, NULL }, { "half", 100, NULL }, { "zero", 0, NULL } };
	char *svg = chart(bars, 3);
	double w0 = rect_width(svg, 0), w1 = rect_width(svg, 1);

	ck_assert_msg(w0 > 0 && fabs(w1 * 2 - w0) < 0.2, "widths %g %g", w0, w1);
	ck_assert_ptr_nonnull(strstr(svg, "200.0 tok/s"));
	ck_assert_ptr_nonnull(strstr(svg, "100.0 tok/s"));
	ck_assert(strstr(svg, ">big<") < strstr(svg, ">half<"));
	ck_assert_ptr_nonnull(strstr(svg, "role=\"img\""));
	free(svg);
}
END_TEST

/* Labels and title are escaped, long labels cut with an ellipsis (the
 * tooltip keeps the whole label), and values that are not finite or are
 * negative draw no bar. */
START_TEST(labels_escaped_and_cut)
{
	struct barchart_bar bars[] = {
		{ "<script>alert(1)</script>", 5, NULL },
		{ "A hardware name far longer than the label column", 4, NULL },
		{ "nan", NAN, NULL },
		{ "neg", -1, NULL },
	};
	char *svg = chart(bars, 4);

	ck_assert_ptr_null(strstr(svg, "<script"));
	ck_assert_ptr_nonnull(strstr(svg, "&lt;script&gt;"));
	ck_assert_ptr_nonnull(strstr(svg, "aria-label=\"Best &lt;decode&gt; &amp; more\""));
	ck_assert_ptr_nonnull(strstr(svg, "\xe2\x80\xa6</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>A hardware name far longer than the label column: 4.0 tok/s</title>"));
	ck_assert_double_lt(rect_width(svg, 2), 0);   /* two rects only */
	free(svg);
}
END_TEST

/* A long name is cut after a whole word that fits, never inside the word
 * that tells the hardware apart, and every text stays inside the drawing:
 * a label never starts left of 0 (it is drawn right-aligned), and the
 * widest value ends before the right edge. */
START_TEST(labels_cut_at_words_and_everything_fits)
{
	struct barchart_bar bars[] = {
		{ "Ryzen AI Max+ 395 (Radeon 8060S)", 1234.5, NULL },
		{ "RTX 4090 Laptop", 9.5, NULL },
		{ "Supercalifragilisticexpialidocious-GPU-9000", 1, NULL },
	};
	char *svg = chart(bars, 3);
	const char *p;

	ck_assert_ptr_nonnull(strstr(svg, ">Ryzen AI Max+ 395\xe2\x80\xa6</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">RTX 4090 Laptop</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">Supercalifragilisticex"));
	/* The longest bar ends where its value's text still fits. */
	p = strstr(svg, "1,234 tok/s</text>");
	ck_assert_ptr_nonnull(p);
	while (p > svg && strncmp(p, "<text x=\"", 9))
		p--;
	ck_assert_double_le(strtod(p + 9, NULL) + badge_text_width("1,234 tok/s") * 14 / 11.0,
			    BARCHART_WIDTH);
	free(svg);
}
END_TEST

/* A label with a second line (what ran on the hardware) shows both whole,
 * each right-aligned inside the drawing, the title saying both; rows are
 * taller, and bars without a sub line draw one line. */
START_TEST(sub_lines_show_what_ran_whole)
{
	struct barchart_bar bars[] = {
		{ "RTX 5090", 302.4, "exllamav2 EXL2-4.0bpw" },
		{ "M3 Ultra", 150.0, "llama.cpp Q4_K_M (gguf)" },
		{ "M3 Pro", 20.0, NULL },
	};
	char *svg = chart(bars, 3);

	ck_assert_ptr_nonnull(strstr(svg, ">RTX 5090</text>"));
	ck_assert_ptr_nonnull(strstr(svg, " font-size=\"13\" fill=\"currentColor\">exllamav2 EXL2-4.0bpw</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">llama.cpp Q4_K_M (gguf)</text>"));
	ck_assert_ptr_null(strstr(svg, "\xe2\x80\xa6"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>RTX 5090 \xc2\xb7 exllamav2 EXL2-4.0bpw: 302.4 tok/s</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>M3 Pro: 20.0 tok/s</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "height=\"148\""));   /* 2 * 8 + 3 * 44 */
	ck_assert_double_le(badge_text_width("llama.cpp Q4_K_M (gguf)") * 13 / 11.0, 194);
	free(svg);
}
END_TEST

/* No bars is a one-line "no data" chart, still titled. */
START_TEST(no_bars_says_so)
{
	char *svg = chart(NULL, 0);

	ck_assert_ptr_nonnull(strstr(svg, "no data"));
	ck_assert_ptr_null(strstr(svg, "<rect"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>Best &lt;decode&gt; &amp; more</title>"));
	free(svg);
}
END_TEST

static Suite *suite_barchart(void)
{
	Suite *s = suite_create("barchart");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bars_in_proportion);
	tcase_add_test(tc, labels_escaped_and_cut);
	tcase_add_test(tc, labels_cut_at_words_and_everything_fits);
	tcase_add_test(tc, sub_lines_show_what_ran_whole);
	tcase_add_test(tc, no_bars_says_so);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_barchart)
