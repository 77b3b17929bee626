/*
 * metric-extract.h - the primary metric of a `cmd` probe read from the
 * machine-readable output of common benchmarks, chosen with
 * `--metric TOOL:PATH`:
 *
 *   fio:read.iops        fio --output-format=json: PATH inside every job
 *                        (jobs[].read.iops), summed over jobs; latencies
 *                        (a path with "lat") are averaged and lower is better
 *   stress-ng:vm.bogo-ops-per-second-real-time
 *                        stress-ng --metrics --yaml /dev/stdout: the key of
 *                        the named stressor's entry under "metrics:"
 *   sysbench:events_per_second | sysbench:latency_avg_ms |
 *   sysbench:latency_p95_ms
 *                        sysbench's text report ("events per second:",
 *                        "avg:", "95th percentile:")
 *
 * Pure functions over the captured stdout; no I/O.
 */
#ifndef SWAPTUNE_METRIC_EXTRACT_H
#define SWAPTUNE_METRIC_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>

#define METRIC_SPEC_MAX 96

/*
 * Check a spec ("fio:read.iops"): 0 and *higher_better set, or -EINVAL with
 * the accepted forms in why.
 */
int metric_spec_check(const char *spec, bool *higher_better, char *why, size_t len);

/*
 * The value spec names in the command's stdout (text, len bytes, need not
 * be NUL-terminated). 0 and *value set, -ENOENT when the output does not
 * hold it (why says what was missing), -EBADMSG when it is not parseable.
 */
int metric_extract(const char *spec, const char *text, size_t len, double *value,
		   char *why, size_t why_len);

#endif
