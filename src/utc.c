/*
 * utc.c - wall-clock time helpers: now as a Unix time, and the ISO 8601
 * UTC spelling of one. See utc.h.
 */
#include <time.h>

#include "swaptune/utc.h"

double utc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *utc_iso(double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}
