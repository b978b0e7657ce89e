/* check_text.c: the plain-text rules of dispute posts, author names and
 * notes (server/disputes/text.c, dispute_text_field). */
#include "check_util.h"
#include "disputes/dispute_int.h"

/* dispute_text_field on s (NULL: absent) with at most max characters;
 * returns the cleaned text ("(none)" when it is NULL) or "!" + the error's
 * field when refused, in a static buffer. */
static const char *field(const char *s, long max, int lines, int required)
{
	static char out[sizeof ((struct err *)0)->field + sizeof ((struct err *)0)->message + 4];
	struct err e;
	char *t = (char *)1;

	if (dispute_text_field(s, s ? strlen(s) : 0, "body", max, lines, required, &t, &e) < 0) {
		ck_assert_ptr_null(t);
		ck_assert_uint_eq(e.status, 422);
		ck_assert_str_eq(e.code, "schema_violation");
		snprintf(out, sizeof out, "!%s %s", e.field, e.message);
		return out;
	}
	snprintf(out, sizeof out, "%s", t ? t : "(none)");
	free(t);
	return out;
}

/* Line breaks: CR LF and a lone CR become LF, or a space in a one-line
 * field; white space is trimmed at both ends, kept inside. */
START_TEST(cleans_line_breaks_and_trims)
{
	ck_assert_str_eq(field("  two\r\nlines\rthree\n ", 100, 1, 1), "two\nlines\nthree");
	ck_assert_str_eq(field("\tAnn  Lee\r\n", 100, 0, 1), "Ann  Lee");
	ck_assert_str_eq(field("a\r\nb", 100, 0, 1), "a b");
	ck_assert_str_eq(field("a\nb", 100, 0, 1), "a b");
	ck_assert_str_eq(field("caf\xc3\xa9", 100, 1, 1), "caf\xc3\xa9");
}
END_TEST

/* Counted in code points after cleaning: max is the limit, one more is
 * refused with a sentence naming the field and the limit. */
START_TEST(length_counts_code_points_after_cleaning)
{
	char s[64];

	ck_assert_str_eq(field("\xc3\xa9\xc3\xa9\xc3\xa9", 3, 1, 1), "\xc3\xa9\xc3\xa9\xc3\xa9");
	ck_assert_str_eq(field("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, 1, 1),
			 "!body The \"body\" field is longer than 3 characters; shorten it.");
	ck_assert_str_eq(field("   abc   ", 3, 1, 1), "abc");            /* trimmed first */
	ck_assert_str_eq(field("a\r\nb", 3, 1, 1), "a\nb");                /* CR LF is one */
	memset(s, 'x', 10);
	s[10] = '\0';
	ck_assert_str_eq(field(s, 10, 1, 1), s);
}
END_TEST

/* Absent, empty and white-space-only: refused when required, none when
 * optional. */
START_TEST(empty_and_absent)
{
	ck_assert_str_eq(field(NULL, 10, 1, 0), "(none)");
	ck_assert_str_eq(field("", 10, 1, 0), "(none)");
	ck_assert_str_eq(field(" \r\n\t ", 10, 1, 0), "(none)");
	ck_assert_str_eq(field(NULL, 10, 1, 1),
			 "!body Write the dispute in \"body\": 1 to 10 characters of plain text.");
	ck_assert_str_eq(field(" \n ", 10, 1, 1),
			 "!body The \"body\" field is empty; write 1 to 10 characters.");
}
END_TEST

/* Bytes that are not UTF-8, or a NUL inside, are refused. */
START_TEST(not_utf8_or_nul_refused)
{
	char *t = (char *)1;
	struct err e;

	ck_assert_str_eq(field("caf\xe9", 10, 1, 1),
			 "!body The \"body\" field must be UTF-8 text without NUL characters.");
	ck_assert_str_eq(field("\xed\xa0\x80", 10, 1, 1),
			 "!body The \"body\" field must be UTF-8 text without NUL characters.");
	ck_assert_int_eq(dispute_text_field("a\0b", 3, "body", 10, 1, 1, &t, &e), -1);
	ck_assert_ptr_null(t);
}
END_TEST

static Suite *suite_text(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, cleans_line_breaks_and_trims);
	tcase_add_test(tc, length_counts_code_points_after_cleaning);
	tcase_add_test(tc, empty_and_absent);
	tcase_add_test(tc, not_utf8_or_nul_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_text)
