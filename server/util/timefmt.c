/* timefmt.c: RFC 3339 UTC timestamps, written and parsed. */
#include "util/timefmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last second RFC 3339's four-digit year can write. */
#define TIME_LAST 253402300799LL

void time_rfc3339(time_t t, char out[TIMEFMT_LEN])
{
	struct tm tm;

	if (t < 0)
		t = 0;
	if ((long long)t > TIME_LAST)
		t = (time_t)TIME_LAST;
	if (!gmtime_r(&t, &tm)) {
		strcpy(out, "1970-01-01T00:00:00Z");
		return;
	}
	strftime(out, TIMEFMT_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void time_now_rfc3339(char out[TIMEFMT_LEN])
{
	time_rfc3339((time_t)time_now(), out);
}

/* ---- the clock ---- */

/* The test clock's file, NULL for the real clock (set once, before the
 * threads start, so read without a lock). */
static const char *test_clock_path;

/* The time test clock file path gives against the real clock real, into
 * *out: a frozen time, or an offset when the number has a sign.  Returns 0,
 * or -1 when the file cannot be read or holds anything else. */
static int test_clock_read(const char *path, long long real, long long *out)
{
	char text[32], *start, *end;
	long long v;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	start = text + strspn(text, " \t\r\n");
	errno = 0;
	v = strtoll(start, &end, 10);
	if (errno || end == start || strspn(end, " \t\r\n") != strlen(end))
		return -1;
	*out = (*start == '+' || *start == '-') ? real + v : v;
	return 0;
}

long long time_now(void)
{
	long long real = (long long)time(NULL), t;

	if (test_clock_path && test_clock_read(test_clock_path, real, &t) == 0)
		return t;
	return real;
}

int time_test_clock(const char *path)
{
	long long t;

	if (path && test_clock_read(path, 0, &t) < 0)
		return -1;
	test_clock_path = path;
	return 0;
}

/* ---- parsing ---- */

/* Reads n ASCII digits at s into *v; returns 0, or -1 on a non-digit. */
static int digits(const char *s, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

/* Days in month m (1..12) of year y, proleptic Gregorian. */
static int month_days(int y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return days[m - 1] + (m == 2 && leap);
}

/* Days from 1970-01-01 to y-m-d (Howard Hinnant's days_from_civil). */
static long long days_from_civil(int y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Length of the time-offset part at s that means UTC ("Z", "z", "+00:00"),
 * 0 when s is another offset, -1 when s is not an offset at all. */
static int utc_suffix(const char *s)
{
	int hh, mm;

	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0')
		return 1;
	if ((s[0] != '+' && s[0] != '-') || digits(s + 1, 2, &hh) || s[3] != ':' ||
	    digits(s + 4, 2, &mm) || s[6] != '\0')
		return -1;
	return (s[0] == '+' && hh == 0 && mm == 0) ? 6 : 0;
}

int time_parse_rfc3339_utc(const char *s, long long *out)
{
	int y, mo, d, h, mi, sec, f = 0, z;

	if (strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
	    s[7] != '-' || digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
	    digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &mi) ||
	    s[16] != ':' || digits(s + 17, 2, &sec))
		return -1;
	s += 19;
	if (*s == '.') {
		while (s[1 + f] >= '0' && s[1 + f] <= '9')
			f++;
		if (f < 1 || f > 9)
			return -1;
		s += 1 + f;
	}
	z = utc_suffix(s);
	if (z <= 0)
		return z == 0 ? -2 : -1;
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 ||
	    sec > 59)
		return -3;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	return 0;
}
