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

/* The 66 noncharacters, exactly: every plane's last two code points and
 * U+FDD0..U+FDEF, and nothing beside them. */
START_TEST(noncharacters_exactly)
{
	uint32_t cp, plane;
	int count = 0;

	for (cp = 0; cp <= 0x10ffff; cp++)
		count += utf8_is_noncharacter(cp);
	ck_assert_int_eq(count, 66);
	for (plane = 0; plane <= 0x10; plane++) {
		ck_assert(utf8_is_noncharacter(plane << 16 | 0xfffe));
		ck_assert(utf8_is_noncharacter(plane << 16 | 0xffff));
		ck_assert(!utf8_is_noncharacter(plane << 16 | 0xfffd));
	}
	ck_assert(utf8_is_noncharacter(0xfdd0) && utf8_is_noncharacter(0xfdef));
	ck_assert(!utf8_is_noncharacter(0xfdcf) && !utf8_is_noncharacter(0xfdf0));
	ck_assert(!utf8_is_noncharacter(0x11fffe));
}
END_TEST

/* Controls are C0, DEL and C1; XML's Char production leaves out C0 but
 * tab, LF and CR, the surrogates, U+FFFE and U+FFFF. */
START_TEST(controls_and_xml_chars)
{
	uint32_t cp;

	for (cp = 0; cp < 0x20; cp++) {
		ck_assert(utf8_is_control(cp));
		ck_assert_int_eq(utf8_is_xml_char(cp), cp == 9 || cp == 10 || cp == 13);
	}
	ck_assert(utf8_is_control(0x7f) && utf8_is_control(0x80) && utf8_is_control(0x9f));
	ck_assert(!utf8_is_control(0x20) && !utf8_is_control(0xa0) && !utf8_is_control(0x7e));
	ck_assert(utf8_is_xml_char(0x20) && utf8_is_xml_char(0xd7ff) && !utf8_is_xml_char(0xd800));
	ck_assert(!utf8_is_xml_char(0xdfff) && utf8_is_xml_char(0xe000) && utf8_is_xml_char(0xfffd));
	ck_assert(!utf8_is_xml_char(0xfffe) && !utf8_is_xml_char(0xffff));
	ck_assert(utf8_is_xml_char(0x10000) && utf8_is_xml_char(0x1fffe) && utf8_is_xml_char(0x10ffff));
	ck_assert(!utf8_is_xml_char(0x110000));
}
END_TEST

/* utf8_text_bad finds the first code point no output can carry, by byte
 * offset, and lets tab and LF through only in text of several lines. */
START_TEST(text_bad_finds_the_first)
{
	uint32_t cp = 0;

	ck_assert_int_eq(utf8_text_bad(U("Qwen \xc3\xa9\xf0\x9f\x98\x80"), 11, 0, &cp), -1);
	ck_assert_int_eq(utf8_text_bad(U("ab\xef\xbf\xbf"), 5, 0, &cp), 2);
	ck_assert_uint_eq(cp, 0xffff);
	ck_assert_int_eq(utf8_text_bad(U("\xef\xb7\x90x"), 4, 1, &cp), 0);
	ck_assert_uint_eq(cp, 0xfdd0);
	ck_assert_int_eq(utf8_text_bad(U("x\xf4\x8f\xbf\xbe"), 5, 0, &cp), 1);
	ck_assert_uint_eq(cp, 0x10fffe);
	ck_assert_int_eq(utf8_text_bad(U("a\tb\nc"), 5, 1, &cp), -1);
	ck_assert_int_eq(utf8_text_bad(U("a\tb"), 3, 0, &cp), 1);
	ck_assert_uint_eq(cp, '\t');
	ck_assert_int_eq(utf8_text_bad(U("a\rb"), 3, 1, &cp), 1);
	ck_assert_int_eq(utf8_text_bad(U("a\x7f"), 2, 1, &cp), 1);
	ck_assert_int_eq(utf8_text_bad(U("a\xc2\x85"), 3, 1, &cp), 1);
	ck_assert_uint_eq(cp, 0x85);
	ck_assert_int_eq(utf8_text_bad(U("a\0b"), 3, 1, &cp), 1);
	ck_assert_int_eq(utf8_text_bad(U("ab\xff"), 3, 1, &cp), 2);
	ck_assert_uint_eq(cp, 0xfffd);
}
END_TEST

/* Text of only spaces, bidirectional controls and other invisible
 * characters has nothing visible; one letter is enough. */
START_TEST(visible_text)
{
	/* U+202E U+2066 space U+2069 U+200F U+200B U+00A0 U+3000 U+FEFF U+FE0F U+00AD */
	static const char blank[] = "\xe2\x80\xae\xe2\x81\xa6 \xe2\x81\xa9\xe2\x80\x8f\xe2\x80\x8b"
				    "\xc2\xa0\xe3\x80\x80\xef\xbb\xbf\xef\xb8\x8f\xc2\xad";
	char name[12];

	ck_assert(!utf8_has_visible(U(""), 0));
	ck_assert(!utf8_has_visible(U(" \t\n"), 3));
	ck_assert(!utf8_has_visible(U(blank), sizeof blank - 1));
	ck_assert(!utf8_has_visible(U("\xf3\xa0\x80\x81\xe2\xa0\x80"), 7));   /* a tag, U+2800 */
	ck_assert(utf8_has_visible(U("\xe2\x80\xae" "a"), 4));
	ck_assert(utf8_has_visible(U("\xd0\x9f"), 2));
	ck_assert(utf8_is_invisible(0x200b) && !utf8_is_invisible(0x200a) && utf8_is_space(0x200a));
	utf8_cp_name(0xffff, name);
	ck_assert_str_eq(name, "U+FFFF");
	utf8_cp_name(7, name);
	ck_assert_str_eq(name, "U+0007");
	utf8_cp_name(0x10fffe, name);
	ck_assert_str_eq(name, "U+10FFFE");
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

static long line_unsafe(const char *s, uint32_t *cp)
{
	return utf8_line_unsafe((const unsigned char *)s, strlen(s), cp);
}

/* Issue 37, L5: line and paragraph separators, and isolates that do not
 * pair up, in text shown on one line inside the page's own isolate. */
START_TEST(line_unsafe_finds_separators_and_unpaired_isolates)
{
	uint32_t cp = 0;

	ck_assert_int_eq(line_unsafe("M3 Ultra", &cp), -1);
	ck_assert_int_eq(line_unsafe("a\xe2\x81\xa6" "b\xe2\x81\xa9" "c", &cp), -1);  /* LRI b PDI */
	ck_assert_int_eq(line_unsafe("\xe2\x81\xa8\xe2\x81\xa7x\xe2\x81\xa9\xe2\x81\xa9", &cp), -1);
	ck_assert_int_eq(line_unsafe("Qwen\xe2\x80\xae" "3", &cp), -1);       /* an override ends with the isolate */
	ck_assert_int_eq(line_unsafe("M3 Ultra \xe2\x80\xa8", &cp), 9);
	ck_assert_uint_eq(cp, 0x2028);
	ck_assert_int_eq(line_unsafe("a\xe2\x80\xa9", &cp), 1);
	ck_assert_uint_eq(cp, 0x2029);
	ck_assert_int_eq(line_unsafe("ab\xe2\x81\xa8" "cd", &cp), 2);          /* FSI left open */
	ck_assert_uint_eq(cp, 0x2068);
	ck_assert_int_eq(line_unsafe("\xe2\x81\xa6\xe2\x81\xa9\xe2\x81\xa7x", &cp), 6);  /* the second, RLI */
	ck_assert_uint_eq(cp, 0x2067);
	ck_assert_int_eq(line_unsafe("x\xe2\x81\xa9", &cp), 1);                /* PDI closing nothing */
	ck_assert_uint_eq(cp, 0x2069);
	ck_assert_int_eq(line_unsafe("", &cp), -1);
}
END_TEST

static Suite *suite_utf8(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, decodes_each_length);
	tcase_add_test(tc, refuses_malformed);
	tcase_add_test(tc, counts);
	tcase_add_test(tc, noncharacters_exactly);
	tcase_add_test(tc, controls_and_xml_chars);
	tcase_add_test(tc, text_bad_finds_the_first);
	tcase_add_test(tc, visible_text);
	tcase_add_test(tc, prefixes);
	tcase_add_test(tc, cuts_between_code_points);
	tcase_add_test(tc, line_unsafe_finds_separators_and_unpaired_isolates);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_utf8)
