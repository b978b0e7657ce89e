/* check_utf8.c: the one UTF-8 reader of server/util/utf8.c. */
#include "check_util.h"
#include "util/utf8.h"

#define U(s) ((const unsigned char *)(s))

/* Well-formed sequences of each length decode to their code point. */
START_TEST(decodes_each_length)
{
	uint32_t cp;

	ck_assert_uint_eq(utf8_seq(U("A"), 1, &cp), 1);
	ck_assert_uint_eq(cp, 'A');
	ck_assert_uint_eq(utf8_seq(U("\xc3\xa9"), 2, &cp), 2);
	ck_assert_uint_eq(cp, 0xe9);
	ck_assert_uint_eq(utf8_seq(U("\xe2\x82\xac"), 3, &cp), 3);
	ck_assert_uint_eq(cp, 0x20ac);
	ck_assert_uint_eq(utf8_seq(U("\xf0\x9f\x98\x80"), 4, &cp), 4);
	ck_assert_uint_eq(cp, 0x1f600);
}
END_TEST

/* Overlong forms, surrogates, values past U+10FFFF, stray continuation
 * bytes and cut-off sequences are refused (0, U+FFFD). */
START_TEST(refuses_malformed)
{
	static const struct { const char *s; size_t n; } bad[] = {
		{ "\xc0\x80", 2 },              /* overlong NUL */
		{ "\xe0\x80\xaf", 3 },          /* overlong '/' */
		{ "\xed\xa0\x80", 3 },          /* surrogate U+D800 */
		{ "\xf4\x90\x80\x80", 4 },      /* U+110000 */
		{ "\x80", 1 },                  /* continuation byte alone */
		{ "\xe2\x82", 2 },              /* cut off */
		{ "\xe2\x82\xac", 2 },          /* cut off by n */
	};
	uint32_t cp;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cp = 0;
		ck_assert_msg(utf8_seq(U(bad[i].s), bad[i].n, &cp) == 0, "case %zu accepted", i);
		ck_assert_uint_eq(cp, 0xfffd);
		ck_assert_uint_eq(utf8_next(U(bad[i].s), bad[i].n, &cp), 1);
	}
}
END_TEST

/* utf8_count counts code points of valid text and refuses bad bytes and
 * NULs; utf8_len counts lead bytes of a C string. */
START_TEST(counts)
{
	ck_assert_int_eq(utf8_count(U("a\xc3\xa9\xe2\x82\xac"), 6), 3);
	ck_assert_int_eq(utf8_count(U(""), 0), 0);
	ck_assert_int_eq(utf8_count(U("a\0b"), 3), -1);
	ck_assert_int_eq(utf8_count(U("a\xff"), 2), -1);
	ck_assert_uint_eq(utf8_len("a\xc3\xa9\xf0\x9f\x98\x80"), 3);
	ck_assert_uint_eq(utf8_len(NULL), 0);
}
END_TEST

/* utf8_prefix measures the first max code points; a malformed byte counts
 * one, as utf8_next steps. */
START_TEST(prefixes)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";   /* a é € 😀 z */

	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 0), 0);
	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 1), 1);
	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 2), 3);
	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 3), 6);
	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 4), 10);
	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 5), 11);
	ck_assert_uint_eq(utf8_prefix(s, strlen(s), 99), 11);
	ck_assert_uint_eq(utf8_prefix(s, 8, 4), 7);      /* n cuts the 😀: its first byte counts one */
	ck_assert_uint_eq(utf8_prefix(s, 8, 9), 8);      /* n ends it */
	ck_assert_uint_eq(utf8_prefix("\xff\xfex", 3, 2), 2);
	ck_assert_uint_eq(utf8_prefix("", 0, 3), 0);
}
END_TEST

/* utf8_cut backs up to a code point boundary at most max bytes in. */
START_TEST(cuts_between_code_points)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
	static const size_t want[] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 11, 11 };
	size_t max;

	for (max = 0; max < sizeof want / sizeof want[0]; max++)
		ck_assert_msg(utf8_cut(s, strlen(s), max) == want[max], "max %zu: %zu", max,
			      utf8_cut(s, strlen(s), max));
	ck_assert_uint_eq(utf8_cut(s, 3, 2), 1);
	ck_assert_uint_eq(utf8_cut(s, 3, 3), 3);
	ck_assert_uint_eq(utf8_cut(NULL, 0, 5), 0);
}
END_TEST

static Suite *suite_utf8(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, decodes_each_length);
	tcase_add_test(tc, refuses_malformed);
	tcase_add_test(tc, counts);
	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, cuts_between_code_points);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_utf8)
