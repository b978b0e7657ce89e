/* timefmt.h: timestamps as the site stores and shows them. */
#ifndef LLMS_TIMEFMT_H
#define LLMS_TIMEFMT_H

#include <time.h>

#define TIMEFMT_LEN 32

/* Writes t as RFC 3339 in UTC to the second, e.g. "2026-04-28T10:12:00Z";
 * a t before 1970 or after 9999 writes that bound. */
void time_rfc3339(time_t t, char out[TIMEFMT_LEN]);

/* The same for the current time (time_now()). */
void time_now_rfc3339(char out[TIMEFMT_LEN]);

/* The current time in seconds since the epoch: the real clock, or, once
 * time_test_clock() has been called, the test clock.  Every date the site
 * stores or compares (received, posted, ruled, form tokens, created_at's
 * window, snapshot names) comes from here; durations use CLOCK_MONOTONIC. */
long long time_now(void);

/* Tests only (the hidden --test-clock FILE, set by main.c and nothing
 * else): from now on time_now() reads FILE at every call.  FILE holds a
 * whole number of seconds: "1777371120" is that time, frozen; "+90" or
 * "-5" is the real clock moved by that much.  A read that fails (a file
 * being replaced, say) gives the real clock.  Call it before any thread
 * starts; path must outlive every call of time_now(), and NULL goes back
 * to the real clock.  Returns 0, or -1 (nothing changed) when FILE cannot
 * be read as a time now. */
int time_test_clock(const char *path);

/* Parses an RFC 3339 date-time in UTC (YYYY-MM-DDTHH:MM:SS[.frac](Z|+00:00))
 * into seconds since the epoch.  Returns 0, -1 when s is not RFC 3339, -2
 * when its offset is not UTC, -3 when it is not a real date or time. */
int time_parse_rfc3339_utc(const char *s, long long *out);

#endif
