/*
 * fuzz-metric.c - libFuzzer target: the cmd probe's metric extraction from
 * a benchmark's output (fio JSON, stress-ng YAML, sysbench text), on
 * arbitrary bytes, not NUL-terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/metric-extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const specs[] = {
		"fio:read.iops", "fio:read.clat_ns.mean", "stress-ng:vm.bogo-ops-per-second-real-time",
		"sysbench:events_per_second", "sysbench:latency_p95_ms",
	};
	char *copy = malloc(size ? size : 1);
	char why[200];
	double v;

	if (!copy)
		return 0;
	memcpy(copy, data, size);	/* a buffer of exactly size bytes: ASan sees overreads */
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		(void)metric_extract(specs[i], copy, size, &v, why, sizeof(why));
	free(copy);
	return 0;
}
