/* check_form.c: urlencoded form decoding (server/http/form.c). */
#include "check_util.h"
#include "util/buf.h"
#include "http/form.h"

/* Looks field up in body; returns form_field's result, value in out. */
static int get(const char *body, const char *field, struct buf *out)
{
	buf_reset(out);
	return form_field(body, strlen(body), field, out);
}

START_TEST(decodes_plus_and_escapes)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(get("author=Ann+Lee&body=a%3Cb%3E%0Ac", "body", &b), 1);
	ck_assert_str_eq(b.buf, "a<b>\nc");
	ck_assert_int_eq(get("author=Ann+Lee&body=x", "author", &b), 1);
	ck_assert_str_eq(b.buf, "Ann Lee");
	buf_release(&b);
}
END_TEST

START_TEST(absent_empty_and_prefix_names)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(get("bodyx=1&xbody=2", "body", &b), 0);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_int_eq(get("body=&author=z", "body", &b), 1);
	ck_assert_str_eq(b.buf, "");
	ck_assert_int_eq(get("body&author=z", "body", &b), 1);
	ck_assert_int_eq(get("body=first&body=second", "body", &b), 1);
	ck_assert_str_eq(b.buf, "first");
	buf_release(&b);
}
END_TEST

START_TEST(broken_escapes_are_refused)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(get("body=%4", "body", &b), -1);
	ck_assert_int_eq(get("body=%", "body", &b), -1);
	ck_assert_int_eq(get("body=%zz", "body", &b), -1);
	ck_assert_int_eq(get("body=ok%41", "body", &b), 1);
	ck_assert_str_eq(b.buf, "okA");
	buf_release(&b);
}
END_TEST

/* Escapes in either case, '+' only from a plain plus (%2B stays a plus),
 * '=' inside a value kept, a NUL byte decoded as one byte. */
START_TEST(escapes_in_detail)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(get("body=%c3%A9%2B+%2b", "body", &b), 1);
	ck_assert_str_eq(b.buf, "\xc3\xa9+ +");
	ck_assert_int_eq(get("body=a=b=c", "body", &b), 1);
	ck_assert_str_eq(b.buf, "a=b=c");
	ck_assert_int_eq(get("body=a%00b", "body", &b), 1);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_mem_eq(b.buf, "a\0b", 3);
	ck_assert_int_eq(get("body=%26%3D", "body", &b), 1);      /* & and = escaped */
	ck_assert_str_eq(b.buf, "&=");
	/* An escape cut by the next field's '&' is broken too. */
	ck_assert_int_eq(get("body=%4&x=1", "body", &b), -1);
	ck_assert_int_eq(get("x=%zz&body=ok", "body", &b), 1);     /* only its own value counts */
	ck_assert_str_eq(b.buf, "ok");
	buf_release(&b);
}
END_TEST

/* Only n bytes are read, names are matched as sent (not decoded), and the
 * value is appended to what out holds. */
START_TEST(bounds_names_and_appending)
{
	const char *body = "a=1&body=hello&z=2";
	struct buf b = BUF_INIT;

	ck_assert_int_eq(form_field(body, 6, "body", &b), 0);       /* "a=1&bo" */
	ck_assert_int_eq(form_field("body=%41", 7, "body", &b), -1); /* "%4": the 1 is past n */
	ck_assert_int_eq(form_field(body, 11, "body", &b), 1);      /* "...&body=he" */
	ck_assert_str_eq(b.buf, "he");
	buf_reset(&b);
	ck_assert_int_eq(get("bo%64y=x&Body=y", "body", &b), 0);
	buf_puts(&b, "value: ");
	ck_assert_int_eq(form_field(body, strlen(body), "z", &b), 1);
	ck_assert_str_eq(b.buf, "value: 2");
	buf_reset(&b);
	ck_assert_int_eq(get("", "body", &b), 0);
	ck_assert_int_eq(get("&&body=x&", "body", &b), 1);
	ck_assert_str_eq(b.buf, "x");
	buf_release(&b);
}
END_TEST

static Suite *suite_form(void)
{
	Suite *s = suite_create("form");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, decodes_plus_and_escapes);
	tcase_add_test(tc, absent_empty_and_prefix_names);
	tcase_add_test(tc, broken_escapes_are_refused);
	tcase_add_test(tc, escapes_in_detail);
	tcase_add_test(tc, bounds_names_and_appending);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_form)
