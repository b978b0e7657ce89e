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

static Suite *suite_form(void)
{
	Suite *s = suite_create("form");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, decodes_plus_and_escapes);
	tcase_add_test(tc, absent_empty_and_prefix_names);
	tcase_add_test(tc, broken_escapes_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_form)
