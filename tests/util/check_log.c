/* check_log.c: operator log lines (server/util/log.c): their form, the
 * clock they carry, what --quiet silences. */
#include <unistd.h>

#include "check_util.h"
#include "util/log.h"
#include "util/timefmt.h"

static char clock_file[256];

/* Freezes the clock at 2026-04-28T10:12:00Z through a test clock file. */
static void setup(void)
{
	FILE *f;

	snprintf(clock_file, sizeof clock_file, "%s/check_log.clock.%d",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	f = fopen(clock_file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("1777371120\n", f);
	fclose(f);
	ck_assert_int_eq(time_test_clock(clock_file), 0);
	log_set_quiet(0);
}

static void teardown(void)
{
	time_test_clock(NULL);
	log_set_quiet(0);
	unlink(clock_file);
}

/* What fn wrote to stderr; the caller frees. */
static char *captured(void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	char *out;
	long n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	ck_assert_int_ge(dup2(fileno(tmp), 2), 0);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = ftell(tmp);
	out = calloc(1, (size_t)n + 1);
	rewind(tmp);
	ck_assert_uint_eq(fread(out, 1, (size_t)n, tmp), (size_t)n);
	fclose(tmp);
	return out;
}

static void info_and_error(void)
{
	log_info("applied migration %s in %.1f s", "0001_init.sql", 0.25);
	log_error("sqlite: %s (%d)", "disk I/O error", 10);
}

START_TEST(one_line_each_with_time_and_level)
{
	char *got = captured(info_and_error);

	ck_assert_str_eq(got, "2026-04-28T10:12:00Z info applied migration 0001_init.sql in 0.2 s\n"
			      "2026-04-28T10:12:00Z error sqlite: disk I/O error (10)\n");
	free(got);
}
END_TEST

/* --quiet (log_set_quiet(1)) silences information, never errors. */
START_TEST(quiet_keeps_only_errors)
{
	char *got;

	log_set_quiet(1);
	got = captured(info_and_error);
	ck_assert_str_eq(got, "2026-04-28T10:12:00Z error sqlite: disk I/O error (10)\n");
	free(got);
	log_set_quiet(0);
	got = captured(info_and_error);
	ck_assert_ptr_nonnull(strstr(got, " info "));
	free(got);
}
END_TEST

static void long_line(void)
{
	char s[3000];

	memset(s, 'x', sizeof s - 1);
	s[sizeof s - 1] = '\0';
	log_error("%s", s);
}

/* A message is cut to 1,023 bytes and the line still ends. */
START_TEST(long_messages_are_cut_not_lost)
{
	char *got = captured(long_line);
	size_t head = strlen("2026-04-28T10:12:00Z error ");

	ck_assert_uint_eq(strlen(got), head + 1023 + 1);
	ck_assert_int_eq(got[strlen(got) - 1], '\n');
	ck_assert_uint_eq(strspn(got + head, "x"), 1023);
	free(got);
}
END_TEST

static Suite *suite_log(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_line_each_with_time_and_level);
	tcase_add_test(tc, quiet_keeps_only_errors);
	tcase_add_test(tc, long_messages_are_cut_not_lost);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite_log)
