/* check_buf.c: the growable buffer of server/util/buf.c and its sticky error. */
#include "check_util.h"
#include "util/buf.h"

/* Appends of every kind land in order, NUL-terminated, bytes kept as given. */
START_TEST(appends_in_order)
{
	struct buf b = BUF_INIT;

	ck_assert_str_eq(b.buf, "");
	buf_puts(&b, "ab");
	buf_putc(&b, 'c');
	buf_printf(&b, "%d-%s", 42, "x");
	buf_add(&b, "\0z", 2);
	ck_assert_uint_eq(b.len, 9);
	ck_assert_int_eq(memcmp(b.buf, "abc42-x\0z", 9), 0);
	ck_assert_int_eq(b.buf[b.len], '\0');
	ck_assert_int_eq(buf_error(&b), 0);
	buf_release(&b);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_str_eq(b.buf, "");
}
END_TEST

/* Many small appends grow the buffer and keep every byte. */
START_TEST(grows_past_many_appends)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < 20000; i++)
		buf_putc(&b, (char)('a' + i % 26));
	ck_assert_uint_eq(b.len, 20000);
	ck_assert_uint_ge(b.cap, b.len + 1);
	for (i = 0; i < 20000; i++)
		ck_assert_int_eq(b.buf[i], 'a' + (int)(i % 26));
	buf_release(&b);
}
END_TEST

/* Past BUF_MAX the buffer stops growing and remembers it; later appends
 * change nothing until buf_reset clears the error. */
START_TEST(error_is_sticky_until_reset)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "kept");
	buf_grow(&b, BUF_MAX + 1);
	ck_assert_int_eq(buf_error(&b), -1);
	buf_puts(&b, "more");
	ck_assert_int_eq(buf_error(&b), -1);
	ck_assert_ptr_nonnull(b.buf);
	ck_assert_int_eq(b.buf[b.len], '\0');
	ck_assert_msg(strstr(b.buf, "more") == NULL, "appended after the error: %s", b.buf);
	buf_reset(&b);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_uint_eq(b.len, 0);
	buf_puts(&b, "again");
	ck_assert_str_eq(b.buf, "again");
	buf_release(&b);
}
END_TEST

/* buf_detach hands over the string and leaves an empty buffer. */
START_TEST(detach_hands_over)
{
	struct buf b = BUF_INIT;
	size_t n = 0;
	char *s;

	buf_printf(&b, "%s=%u", "k", 7u);
	s = buf_detach(&b, &n);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "k=7");
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_str_eq(b.buf, "");
	free(s);
	buf_release(&b);
}
END_TEST

static Suite *suite_buf(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, appends_in_order);
	tcase_add_test(tc, grows_past_many_appends);
	tcase_add_test(tc, error_is_sticky_until_reset);
	tcase_add_test(tc, detach_hands_over);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_buf)
