/* log.c: timestamped operator log lines on stderr. */
#include "util/log.h"
#include "util/timefmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static int quiet;

void log_set_quiet(int q)
{
	quiet = q;
}

/* One line: the time, level and fmt's text, cut at 1,023 bytes. */
__attribute__((format(printf, 2, 0)))
static void vlog(const char *level, const char *fmt, va_list ap)
{
	char line[1024], ts[TIMEFMT_LEN];

	time_now_rfc3339(ts);
	vsnprintf(line, sizeof line, fmt, ap);
	fprintf(stderr, "%s %s %s\n", ts, level, line);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vlog("info", fmt, ap);
	va_end(ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error", fmt, ap);
	va_end(ap);
}
