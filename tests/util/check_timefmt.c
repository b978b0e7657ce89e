/* check_timefmt.c: RFC 3339 timestamps written and parsed, and the clock
 * with its test file (server/util/timefmt.c). */
#include <time.h>
#include <unistd.h>

#include "check_util.h"
#include "util/timefmt.h"

/* t as time_rfc3339 writes it, in a static buffer. */
static const char *fmt(long long t)
{
	static char out[TIMEFMT_LEN];

	time_rfc3339((time_t)t, out);
	return out;
}

START_TEST(writes_utc_to_the_second)
{
	ck_assert_str_eq(fmt(0), "1970-01-01T00:00:00Z");
	ck_assert_str_eq(fmt(1777371120), "2026-04-28T10:12:00Z");
	ck_assert_str_eq(fmt(1709251199), "2024-02-29T23:59:59Z");
	ck_assert_str_eq(fmt(951782400), "2000-02-29T00:00:00Z");
	/* Outside the four-digit years: the bounds. */
	ck_assert_str_eq(fmt(-1), "1970-01-01T00:00:00Z");
	ck_assert_str_eq(fmt(253402300799LL), "9999-12-31T23:59:59Z");
	ck_assert_str_eq(fmt(253402300800LL), "9999-12-31T23:59:59Z");
	ck_assert_str_eq(fmt(1LL << 50), "9999-12-31T23:59:59Z");
}
END_TEST

/* s parsed; fails the test when it does not parse. */
static long long parsed(const char *s)
{
	long long t = -42;

	ck_assert_msg(time_parse_rfc3339_utc(s, &t) == 0, "%s did not parse", s);
	return t;
}

START_TEST(parses_what_it_writes_and_what_rfc3339_allows)
{
	long long t;
	int i;

	ck_assert_int_eq(parsed("1970-01-01T00:00:00Z"), 0);
	ck_assert_int_eq(parsed("2026-04-28T10:12:00Z"), 1777371120);
	ck_assert_int_eq(parsed("2026-04-28t10:12:00z"), 1777371120);
	ck_assert_int_eq(parsed("2026-04-28T10:12:00+00:00"), 1777371120);
	ck_assert_int_eq(parsed("2026-04-28T10:12:00.5Z"), 1777371120);        /* fraction dropped */
	ck_assert_int_eq(parsed("2026-04-28T10:12:00.999999999Z"), 1777371120);
	ck_assert_int_eq(parsed("2000-02-29T00:00:00Z"), 951782400);
	ck_assert_int_eq(parsed("9999-12-31T23:59:59Z"), 253402300799LL);
	ck_assert_int_eq(parsed("1969-12-31T23:59:59Z"), -1);
	/* Every written time reads back, against the C library's calendar. */
	srand(3);
	for (i = 0; i < 20000; i++) {
		long long v = (long long)(((unsigned long long)rand() << 16 ^ (unsigned)rand()) %
					  253402300800ULL);
		struct tm tm;
		time_t tt = (time_t)v;

		ck_assert_ptr_nonnull(gmtime_r(&tt, &tm));
		ck_assert_int_eq(timegm(&tm), v);
		t = parsed(fmt(v));
		ck_assert_msg(t == v, "%s read back as %lld, not %lld", fmt(v), t, v);
	}
}
END_TEST

/* What time_parse_rfc3339_utc returns for s; *out must stay untouched on a
 * refusal. */
static int refusal(const char *s)
{
	long long t = -42;
	int rc = time_parse_rfc3339_utc(s, &t);

	if (rc)
		ck_assert_int_eq(t, -42);
	return rc;
}

START_TEST(refusals_say_why)
{
	/* -1: not RFC 3339 */
	ck_assert_int_eq(refusal(""), -1);
	ck_assert_int_eq(refusal("2026-04-28"), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12Z"), -1);
	ck_assert_int_eq(refusal("2026-04-28 10:12:00Z"), -1);
	ck_assert_int_eq(refusal("2026-4-28T10:12:00Z"), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00"), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00.Z"), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00.1234567890Z"), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00Z "), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00ZZ"), -1);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00+0000"), -1);
	ck_assert_int_eq(refusal("+026-04-28T10:12:00Z"), -1);
	/* -2: an offset other than UTC ("-00:00" is RFC 3339's unknown offset) */
	ck_assert_int_eq(refusal("2026-04-28T10:12:00+02:00"), -2);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00-00:00"), -2);
	ck_assert_int_eq(refusal("2026-04-28T10:12:00.5-07:30"), -2);
	/* -3: no such date or time */
	ck_assert_int_eq(refusal("2026-02-29T10:12:00Z"), -3);
	ck_assert_int_eq(refusal("1900-02-29T10:12:00Z"), -3);
	ck_assert_int_eq(refusal("2026-04-31T10:12:00Z"), -3);
	ck_assert_int_eq(refusal("2026-00-10T10:12:00Z"), -3);
	ck_assert_int_eq(refusal("2026-13-10T10:12:00Z"), -3);
	ck_assert_int_eq(refusal("2026-04-00T10:12:00Z"), -3);
	ck_assert_int_eq(refusal("2026-04-28T24:00:00Z"), -3);
	ck_assert_int_eq(refusal("2026-04-28T10:60:00Z"), -3);
	ck_assert_int_eq(refusal("2026-12-31T23:59:60Z"), -3);      /* no leap seconds */
}
END_TEST

/* ---- the clock ---- */

static char clock_file[256];

/* Writes text to the test clock's file. */
static void clock_write(const char *text)
{
	FILE *f = fopen(clock_file, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void clock_setup(void)
{
	int fd;

	snprintf(clock_file, sizeof clock_file, "%s/check_timefmt.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(clock_file);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void clock_teardown(void)
{
	time_test_clock(NULL);
	unlink(clock_file);
}

/* 1 when time_now() lies within the real clock around it moved by off. */
static int now_is_real_plus(long long off)
{
	long long before = (long long)time(NULL), t = time_now(), after = (long long)time(NULL);

	return t >= before + off && t <= after + off;
}

START_TEST(real_clock_unless_a_test_clock_is_set)
{
	char s[TIMEFMT_LEN];

	ck_assert(now_is_real_plus(0));
	/* A file that holds no time is refused and changes nothing. */
	clock_write("soon\n");
	ck_assert_int_eq(time_test_clock(clock_file), -1);
	ck_assert(now_is_real_plus(0));
	clock_write("");
	ck_assert_int_eq(time_test_clock(clock_file), -1);
	clock_write("12 34\n");
	ck_assert_int_eq(time_test_clock(clock_file), -1);
	clock_write("99999999999999999999999\n");
	ck_assert_int_eq(time_test_clock(clock_file), -1);
	ck_assert_int_eq(time_test_clock("/nonexistent/clock"), -1);
	ck_assert(now_is_real_plus(0));
	/* A frozen time, and its RFC 3339 form. */
	clock_write(" 1777371120\n");
	ck_assert_int_eq(time_test_clock(clock_file), 0);
	ck_assert_int_eq(time_now(), 1777371120);
	time_now_rfc3339(s);
	ck_assert_str_eq(s, "2026-04-28T10:12:00Z");
	/* The file is read at every call: offsets either way. */
	clock_write("+3600\n");
	ck_assert(now_is_real_plus(3600));
	clock_write("-86400");
	ck_assert(now_is_real_plus(-86400));
	/* A file that cannot be read later gives the real clock. */
	clock_write("later");
	ck_assert(now_is_real_plus(0));
	unlink(clock_file);
	ck_assert(now_is_real_plus(0));
	clock_write("0\n");
	ck_assert_int_eq(time_now(), 0);
	/* NULL: the real clock again, whatever the file says. */
	ck_assert_int_eq(time_test_clock(NULL), 0);
	ck_assert(now_is_real_plus(0));
}
END_TEST

static Suite *suite_timefmt(void)
{
	Suite *s = suite_create("timefmt");
	TCase *tc = tcase_create("core");
	TCase *clock = tcase_create("clock");

	tcase_add_test(tc, writes_utc_to_the_second);
	tcase_add_test(tc, parses_what_it_writes_and_what_rfc3339_allows);
	tcase_add_test(tc, refusals_say_why);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(clock, clock_setup, clock_teardown);
	tcase_add_test(clock, real_clock_unless_a_test_clock_is_set);
	suite_add_tcase(s, clock);
	return s;
}

CHECK_MAIN(suite_timefmt)
