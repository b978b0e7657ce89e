/* timefmt.h: timestamps as the site stores and shows them. */
#ifndef LLMS_TIMEFMT_H
#define LLMS_TIMEFMT_H

#include <time.h>

#define TIMEFMT_LEN 32

/* Writes t as RFC 3339 in UTC to the second, e.g. "2026-04-28T10:12:00Z";
 * a t before 1970 or after 9999 writes that bound. */
void time_rfc3339(time_t t, char out[TIMEFMT_LEN]);

/* The same for the current time. */
void time_now_rfc3339(char out[TIMEFMT_LEN]);

/* Parses an RFC 3339 date-time in UTC (YYYY-MM-DDTHH:MM:SS[.frac](Z|+00:00))
 * into seconds since the epoch.  Returns 0, -1 when s is not RFC 3339, -2
 * when its offset is not UTC, -3 when it is not a real date or time. */
int time_parse_rfc3339_utc(const char *s, long long *out);

#endif
