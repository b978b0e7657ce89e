/* check_numfmt.c: figures, counts (with their nouns), sigma and dates (util/numfmt.c). */
#include <math.h>

#include "check_util.h"
#include "util/numfmt.h"

/* v formatted by fn; the caller frees. */
static char *fmt(void (*fn)(struct buf *, double), double v)
{
	struct buf b = BUF_INIT;

	fn(&b, v);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

#define CK_FMT(fn, v, want) do {                      \
		char *got_ = fmt(fn, v);                     \
		ck_assert_str_eq(got_, want);                \
		free(got_);                                  \
	} while (0)

START_TEST(fig_rules)
{
	CK_FMT(numfmt_fig, 112.2, "112.2");
	CK_FMT(numfmt_fig, 204, "204.0");
	CK_FMT(numfmt_fig, 50, "50.0");          /* TTFT 50 and 53.4 read alike */
	CK_FMT(numfmt_fig, 539.34, "539.3");
	CK_FMT(numfmt_fig, 999.96, "1,000");
	CK_FMT(numfmt_fig, 7313.9, "7,314");     /* the same kind of figure as "3,596" */
	CK_FMT(numfmt_fig, 400000, "400,000");
	CK_FMT(numfmt_fig, 1234567.8, "1,234,568");
	CK_FMT(numfmt_fig, 0.42, "0.42");
	CK_FMT(numfmt_fig, 0.05, "0.050");
	CK_FMT(numfmt_fig, 0.996, "1.0");
	CK_FMT(numfmt_fig, 0, "0");
	CK_FMT(numfmt_fig, -3.5, "-3.5");
	CK_FMT(numfmt_fig, -0.01, "-0.010");
	CK_FMT(numfmt_fig, -1500, "-1,500");
	CK_FMT(numfmt_fig, -0.04, "-0.040");
	CK_FMT(numfmt_fig, NAN, "?");
	CK_FMT(numfmt_fig, INFINITY, "?");
	CK_FMT(numfmt_fig, 1e300, "1e+300");
}
END_TEST

START_TEST(int_rules)
{
	CK_FMT(numfmt_int, 4096, "4,096");
	CK_FMT(numfmt_int, 131072, "131,072");
	CK_FMT(numfmt_int, 1, "1");
	CK_FMT(numfmt_int, 0, "0");
	CK_FMT(numfmt_int, 2.5, "2.5");
	CK_FMT(numfmt_int, NAN, "?");
}
END_TEST

START_TEST(count_words)
{
	struct buf b = BUF_INIT;

	numfmt_count(&b, 1, "post", "posts");
	buf_puts(&b, "|");
	numfmt_count(&b, 0, "post", "posts");
	buf_puts(&b, "|");
	numfmt_count(&b, 1204, "run", "runs");
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_str_eq(b.buf, "1 post|0 posts|1,204 runs");
	buf_release(&b);
}
END_TEST

START_TEST(sig3_rules)
{
	CK_FMT(numfmt_sig3, 16.0, "16.0");
	CK_FMT(numfmt_sig3, 8.5, "8.50");
	CK_FMT(numfmt_sig3, 4.6855, "4.69");
	CK_FMT(numfmt_sig3, 9.996, "10.0");
	CK_FMT(numfmt_sig3, 162.6, "163");
	CK_FMT(numfmt_sig3, 1234.6, "1,235");
	CK_FMT(numfmt_sig3, 0.5, "0.500");
	CK_FMT(numfmt_sig3, NAN, "?");
}
END_TEST

START_TEST(sigma_words)
{
	CK_FMT(numfmt_sigma, -4.18, "4.2 below");
	CK_FMT(numfmt_sigma, 3.04, "3.0 above");
	CK_FMT(numfmt_sigma, 0, "at");
}
END_TEST

/* ts as numfmt_date writes it, or "(none)" when it refuses. */
static char *date(const char *ts)
{
	struct buf b = BUF_INIT;

	if (numfmt_date(&b, ts, strlen(ts)) < 0) {
		ck_assert_uint_eq(b.len, 0);
		buf_puts(&b, "(none)");
	}
	return buf_detach(&b, NULL);
}

START_TEST(dates)
{
	static const char *const cases[][2] = {
		{ "2026-11-30T18:04:05Z", "30 Nov 2026" },
		{ "2026-01-02T00:00:00.123Z", "2 Jan 2026" },
		{ "2026-12-31", "31 Dec 2026" },
		{ "2026-13-01T00:00:00Z", "(none)" },
		{ "2026-00-01", "(none)" },
		{ "2026-11-3", "(none)" },
		{ "2026/11/30", "(none)" },
		{ "2026-11-30 18:04", "(none)" },
		{ "<b>", "(none)" },
		{ "", "(none)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = date(cases[i][0]);
		ck_assert_msg(!strcmp(got, cases[i][1]), "%s: got %s, want %s",
			      cases[i][0], got, cases[i][1]);
		free(got);
	}
}
END_TEST

/* numfmt_fixed(v, dec) formatted; the caller frees. */
static char *fixed(double v, int dec)
{
	struct buf b = BUF_INIT;

	numfmt_fixed(&b, v, dec);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

#define CK_FIXED(v, dec, want) do {                   \
		char *got_ = fixed(v, dec);                  \
		ck_assert_str_eq(got_, want);                \
		free(got_);                                  \
	} while (0)

/* The writer under every figure: commas every three digits of the whole
 * part only, any number of decimals, "-0" written without its sign, "?"
 * for what is not a number, %.3g from 1e15. */
START_TEST(fixed_rules)
{
	CK_FIXED(0, 0, "0");
	CK_FIXED(999, 0, "999");
	CK_FIXED(1000, 0, "1,000");
	CK_FIXED(999999.5, 0, "1,000,000");
	CK_FIXED(1234.5678, 3, "1,234.568");
	CK_FIXED(0.00012345, 6, "0.000123");
	CK_FIXED(-1234567.25, 2, "-1,234,567.25");
	CK_FIXED(-0.0, 1, "0.0");
	CK_FIXED(-0.04, 1, "0.0");              /* rounds to zero: no "-0.0" */
	CK_FIXED(-0.06, 1, "-0.1");
	CK_FIXED(-999.96, 1, "-1,000.0");
	CK_FIXED(999999999999999.0, 0, "999,999,999,999,999");
	CK_FIXED(1e15, 0, "1e+15");
	CK_FIXED(-2.5e20, 2, "-2.5e+20");
	CK_FIXED(NAN, 1, "?");
	CK_FIXED(-INFINITY, 1, "?");
}
END_TEST

/* A figure appended after what the buffer holds already. */
START_TEST(appends)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "decode ");
	numfmt_fig(&b, 7313.9);
	buf_puts(&b, " tok/s, ");
	numfmt_sigma(&b, -2.26);
	buf_puts(&b, ", ");
	ck_assert_int_eq(numfmt_date(&b, "2026-02-03T04:05:06Z", 20), 0);
	ck_assert_str_eq(b.buf, "decode 7,314 tok/s, 2.3 below, 3 Feb 2026");
	buf_release(&b);
}
END_TEST

static Suite *suite_numfmt(void)
{
	Suite *s = suite_create("numfmt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fig_rules);
	tcase_add_test(tc, int_rules);
	tcase_add_test(tc, sig3_rules);
	tcase_add_test(tc, count_words);
	tcase_add_test(tc, sigma_words);
	tcase_add_test(tc, dates);
	tcase_add_test(tc, fixed_rules);
	tcase_add_test(tc, appends);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_numfmt)
