/* timefmt.c: RFC 3339 UTC timestamps. */
#include "util/timefmt.h"

void time_rfc3339(time_t t, char out[TIMEFMT_LEN])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, TIMEFMT_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void time_now_rfc3339(char out[TIMEFMT_LEN])
{
	time_rfc3339(time(NULL), out);
}
