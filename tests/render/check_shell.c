/* check_shell.c: the shell-word escaper of server/render/shell.c, read
 * back by a real POSIX shell. */
#include <stdio.h>

#include "check_util.h"
#include "render/shell.h"
#include "util/buf.h"

/* What /bin/sh makes of `printf '%s\n' WORD`: the word it read, or NULL
 * when it read several or none. */
static char *sh_reads(const char *word)
{
	struct buf cmd = BUF_INIT;
	char out[512];
	size_t n;
	FILE *p;

	buf_printf(&cmd, "set -- %s; [ $# -eq 1 ] && printf '%%s' \"$1\"", word);
	p = popen(cmd.buf, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	buf_release(&cmd);
	return pclose(p) == 0 ? strdup(out) : NULL;
}

static void round_trip(const char *s)
{
	struct buf b = BUF_INIT;
	char *got;

	ck_assert_int_eq(shell_arg(&b, s), 0);
	ck_assert(b.buf[0] == '\'' && b.buf[b.len - 1] == '\'');
	got = sh_reads(b.buf);
	ck_assert_msg(got && !strcmp(got, s), "%s read back as %s", b.buf, got ? got : "(several words)");
	free(got);
	buf_release(&b);
}

START_TEST(every_argument_reads_back_as_one_word)
{
	round_trip("Qwen2.5-7B");
	round_trip("Acme Coder 30B");
	round_trip("it's");
	round_trip("''");
	round_trip("$(touch /tmp/pwned) `id` ${HOME} \\ ! * ? [a] ~ # ; & | < > ( ) { }");
	round_trip("a\nb");
	round_trip("x --server=https://evil.example/");
	round_trip("Llama \xe2\x80\x94 \xd0\x9f\xd0\x9e\xd0\x94");
}
END_TEST

START_TEST(an_option_is_never_an_argument)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "cmd ");
	ck_assert_int_eq(shell_arg(&b, "--server=https://evil.example/x"), -1);
	ck_assert_int_eq(shell_arg(&b, "-rf"), -1);
	ck_assert_int_eq(shell_arg(&b, ""), -1);
	ck_assert_int_eq(shell_arg(&b, NULL), -1);
	ck_assert_str_eq(b.buf, "cmd ");
	buf_release(&b);
}
END_TEST

static Suite *suite_shell(void)
{
	Suite *s = suite_create("shell");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_argument_reads_back_as_one_word);
	tcase_add_test(tc, an_option_is_never_an_argument);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_shell)
