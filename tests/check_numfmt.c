/* check_numfmt.c: figures, counts (with their nouns), sigma, dates (util/numfmt.c) and title cuts (util/textcut.c). */
#include <math.h>

#include "check_util.h"
#include "util/numfmt.h"
#include "util/textcut.h"

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

/* s cut to max; the caller frees. */
static char *cut(const char *s, size_t max)
{
	struct buf b = BUF_INIT;

	textcut(&b, s, max);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

START_TEST(title_cuts)
{
	char *t;

	t = cut("short", 10);
	ck_assert_str_eq(t, "short");
	free(t);
	t = cut("0123456789", 10);              /* exactly max: kept whole */
	ck_assert_str_eq(t, "0123456789");
	free(t);
	t = cut("0123456789A", 10);
	ck_assert_str_eq(t, "012345678\xe2\x80\xa6");
	free(t);
	t = cut("a&b&c", 10);                    /* "&" is five wide as "&amp;" */
	ck_assert_str_eq(t, "a&b\xe2\x80\xa6");
	free(t);
	t = cut("ab\xc3\xa9\xc3\xa9\xc3\xa9xyz", 5);  /* cut between code points */
	ck_assert_str_eq(t, "ab\xc3\xa9\xc3\xa9\xe2\x80\xa6");
	free(t);
}
END_TEST

/* The short hardware name of s. */
static void ck_hw(const char *s, const char *want)
{
	size_t len, at = textcut_hw(s, strlen(s), &len);

	ck_assert_msg(len == strlen(want) && !strncmp(s + at, want, len),
		      "%s: got %.*s, want %s", s, (int)len, s + at, want);
}

/* s cut by textcut_words to max; the caller frees. */
static char *cut_words(const char *s, size_t max)
{
	struct buf b = BUF_INIT;

	textcut_words(&b, s, max);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

START_TEST(word_cuts)
{
	const struct { const char *s; size_t max; const char *want; } cases[] = {
		{ "short enough", 12, "short enough" },
		{ "These figures look too good", 20, "These figures look\xe2\x80\xa6" },
		{ "These figures look too good", 18, "These figures\xe2\x80\xa6" },
		{ "a  b   spaced", 5, "a  b\xe2\x80\xa6" },
		/* One long word: cut inside it rather than keep almost nothing. */
		{ "ab Supercalifragilistic", 12, "ab Supercal\xe2\x80\xa6" },
		{ "caf\xc3\xa9 au lait", 8, "caf\xc3\xa9 au\xe2\x80\xa6" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = cut_words(cases[i].s, cases[i].max);

		ck_assert_msg(!strcmp(got, cases[i].want), "%s cut to %zu: %s", cases[i].s, cases[i].max, got);
		free(got);
	}
}
END_TEST

START_TEST(hardware_short_names)
{
	ck_hw("NVIDIA GeForce RTX 4090", "RTX 4090");
	ck_hw("NVIDIA GeForce RTX 4090 Laptop GPU", "RTX 4090 Laptop");
	ck_hw("Apple M3 Ultra", "M3 Ultra");
	ck_hw("AMD Radeon RX 7900 XTX", "Radeon RX 7900 XTX");
	ck_hw("nvidia  H100 ", "H100");
	ck_hw("M3 Pro", "M3 Pro");
	ck_hw("NVIDIA", "NVIDIA");          /* the last word stays */
	ck_hw("Apple GPU", "GPU");
	ck_hw("", "");
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
	tcase_add_test(tc, title_cuts);
	tcase_add_test(tc, hardware_short_names);
	tcase_add_test(tc, word_cuts);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_numfmt)
