/* check_html.c: the escapers of server/render/html.c and the buffer of buf.c. */
#include "check_util.h"
#include "util/buf.h"
#include "render/html.h"

static char *esc(void (*fn)(struct buf *, const char *), const char *in)
{
	struct buf b = BUF_INIT;
	fn(&b, in);
	ck_assert_int_eq(buf_error(&b), 0);
	return buf_detach(&b, NULL);
}

#define ESC_EQ(fn, in, want) do { char *s_ = esc(fn, in); \
	ck_assert_str_eq(s_, want); free(s_); } while (0)

START_TEST(text_escapes_markup)
{
	ESC_EQ(html_txt, "<script>alert('x')</script>",
	       "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	ESC_EQ(html_txt, "a & \"b\"", "a &amp; &quot;b&quot;");
	ESC_EQ(html_txt, "plain", "plain");
	ESC_EQ(html_txt, "line\nbreak\ttab", "line\nbreak\ttab");
	ESC_EQ(html_txt, "bell\x07", "bell\xef\xbf\xbd");
}
END_TEST

/* U+2068 FSI ... U+2069 PDI around text with bidi controls. */
#define FSI "\xe2\x81\xa8"
#define PDI "\xe2\x81\xa9"
#define RLO "\xe2\x80\xae"
#define RLI "\xe2\x81\xa7"
#define ZWSP "\xe2\x80\x8b"

START_TEST(bidi_text_is_isolated)
{
	/* An override ends with the text, not at the end of the heading. */
	ESC_EQ(html_txt, "Qwen" RLO "evil", FSI "Qwen" RLO "evil" PDI);
	ESC_EQ(html_attr, "a" RLO "\"b", FSI "a" RLO "&quot;b" PDI);
	/* A PDI of its own would close our isolate early: dropped ... */
	ESC_EQ(html_txt, "x" PDI RLO "y", FSI "x" RLO "y" PDI);
	/* ... unless it closes an isolate the text opened itself. */
	ESC_EQ(html_txt, RLI "ab" PDI "<", FSI RLI "ab" PDI "&lt;" PDI);
	/* An isolate it leaves open is closed before ours, so our PDI closes
	 * our isolate, not its (issue 37, L5). */
	ESC_EQ(html_txt, "ab" RLI "cd", FSI "ab" RLI "cd" PDI PDI);
	ESC_EQ(html_attr, FSI FSI "x" PDI, FSI FSI FSI "x" PDI PDI PDI);
	/* Marks count too (U+200F RLM, U+061C ALM). */
	ESC_EQ(html_txt, "a\xe2\x80\x8f", FSI "a\xe2\x80\x8f" PDI);
	ESC_EQ(html_txt, "a\xd8\x9c", FSI "a\xd8\x9c" PDI);
	/* Text without them is unchanged: a zero-width space reorders
	 * nothing, and other scripts are not touched. */
	ESC_EQ(html_txt, "a" ZWSP "b", "a" ZWSP "b");
	ESC_EQ(html_txt, "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d 7B", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d 7B");
}
END_TEST

/* Whatever the stored text holds, the output is XML 1.0 Chars: U+FFFE,
 * U+FFFF and malformed bytes become U+FFFD, in text, in attributes and
 * inside a bidi isolate; the noncharacters XML allows and other planes
 * pass. */
#define RC "\xef\xbf\xbd"
START_TEST(outside_xml_char_becomes_replacement)
{
	ESC_EQ(html_txt, "Qwen\xef\xbf\xbf", "Qwen" RC);
	ESC_EQ(html_txt, "\xef\xbf\xbeRTX", RC "RTX");
	ESC_EQ(html_attr, "a\xef\xbf\xbf&", "a" RC "&amp;");
	ESC_EQ(html_txt, "a\xff\xfe b", "a" RC RC " b");
	ESC_EQ(html_txt, "cut\xe2\x82", "cut" RC RC);
	ESC_EQ(html_txt, "\xed\xa0\x80", RC RC RC);               /* a surrogate */
	ESC_EQ(html_txt, RLO "\xef\xbf\xbf", FSI RLO RC PDI);
	ESC_EQ(html_txt, "\xef\xb7\x90\xf0\x9f\xbf\xbe\xf0\x9f\x98\x80\xef\xbf\xbd",
	       "\xef\xb7\x90\xf0\x9f\xbf\xbe\xf0\x9f\x98\x80\xef\xbf\xbd");
	ESC_EQ(html_txt, "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac");
}
END_TEST

START_TEST(attr_escapes_whitespace)
{
	ESC_EQ(html_attr, "a\"b' onmouseover=x", "a&quot;b&#39; onmouseover=x");
	ESC_EQ(html_attr, "a\nb", "a&#10;b");
}
END_TEST

START_TEST(url_arg_percent_encodes)
{
	ESC_EQ(html_url_arg, "M3 Ultra/&x=\"1\"", "M3%20Ultra%2F%26x%3D%221%22");
	ESC_EQ(html_url_arg, "a-b_c.d~e", "a-b_c.d~e");
	ESC_EQ(html_url_arg, "\xc3\xa9", "%C3%A9");
}
END_TEST

START_TEST(lines_keep_breaks)
{
	ESC_EQ(html_txt_lines, "one\r\n<two>\nthree", "one<br>\n&lt;two&gt;<br>\nthree");
}
END_TEST

START_TEST(buf_grows_and_detaches)
{
	struct buf b = BUF_INIT;
	char *s;
	size_t n;
	int i;

	ck_assert_str_eq(b.buf, "");
	for (i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert(strncmp(b.buf, "0,1,2,", 6) == 0);
	ck_assert_uint_eq(b.len, strlen(b.buf));
	s = buf_detach(&b, &n);
	ck_assert_uint_eq(n, strlen(s));
	ck_assert_str_eq(b.buf, "");
	free(s);
}
END_TEST

START_TEST(buf_error_is_sticky)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "x");
	buf_grow(&b, BUF_MAX);
	ck_assert_int_ne(buf_error(&b), 0);
	buf_puts(&b, "more");
	ck_assert_int_ne(buf_error(&b), 0);
	ck_assert_str_eq(b.buf, "x");
	ck_assert_ptr_null(buf_detach(&b, NULL));
	buf_release(&b);
}
END_TEST

static Suite *suite_html(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, text_escapes_markup);
	tcase_add_test(tc, attr_escapes_whitespace);
	tcase_add_test(tc, outside_xml_char_becomes_replacement);
	tcase_add_test(tc, bidi_text_is_isolated);
	tcase_add_test(tc, url_arg_percent_encodes);
	tcase_add_test(tc, lines_keep_breaks);
	tcase_add_test(tc, buf_grows_and_detaches);
	tcase_add_test(tc, buf_error_is_sticky);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_html)
