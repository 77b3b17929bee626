/*
 * utc.h - wall-clock time as the change workflow and its commands use it:
 * Unix time as a double (deadlines) and its ISO 8601 UTC spelling.
 */
#ifndef SWAPTUNE_UTC_H
#define SWAPTUNE_UTC_H

#include <stddef.h>

/* Now, in seconds since the epoch (CLOCK_REALTIME). */
double utc_now(void);

/* "2026-12-01T02:03:04Z" for Unix time t into buf; returns buf. */
const char *utc_iso(double t, char *buf, size_t len);

#endif
