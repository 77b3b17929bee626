/*
 * fmt.h - units for people, used by the commands and the TUI alike: sizes
 * formatted with binary units, and parsers for the durations and sizes
 * given on the command line. No I/O.
 */
#ifndef SWAPTUNE_FMT_H
#define SWAPTUNE_FMT_H

#include <stddef.h>

/* Parse "200ms", "2s", "1m", "1h" (bare number = seconds) into ns. -EINVAL, -ERANGE. */
int fmt_parse_duration(const char *s, long long *ns);
/* Parse "512M", "1G", "4096" (bytes) with binary units. -EINVAL. */
int fmt_parse_size(const char *s, unsigned long long *bytes);
/* "1.5 GiB", "512 B": into buf, which is returned. */
const char *fmt_bytes(unsigned long long b, char *buf, size_t len);

#endif
