/*
 * pmu.h - CPU counters through libpfm4 + perf_event_open.
 *
 * pmu_probe() says whether hardware counters (cycles, instructions, dTLB
 * misses) can be used here, else whether software events can, and why not.
 * On a sysroot other than "/" only the captured sysfs is consulted (event
 * source devices); the trial perf_event_open runs on the live host only.
 */
#ifndef SWAPTUNE_PMU_H
#define SWAPTUNE_PMU_H

#include <stdbool.h>

#include "swaptune/err.h"
#include "swaptune/host.h"

struct pmu_info {
	bool probed_live;	/* a trial perf_event_open was made */
	bool hw_pmu_sysfs;	/* a CPU PMU is listed under event_source/devices */
	char hw_pmu_name[64];
	bool hw_available;	/* hardware events can be counted */
	bool sw_available;	/* software events can be counted */
	int paranoid;		/* kernel.perf_event_paranoid, or -99 unknown */
	char hw_reason[200];	/* why hardware events are not available */
	char sw_reason[200];
};

int pmu_probe(const struct host *h, struct pmu_info *pi, struct st_err *e);

#endif
