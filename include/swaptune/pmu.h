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
#include <stdint.h>

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

/* ---- counting ---- */

enum pmu_target {
	PMU_TARGET_SYSTEM,	/* every CPU (needs root or paranoid <= 0) */
	PMU_TARGET_PID,		/* one process and its future children */
	PMU_TARGET_CGROUP,	/* a cgroup (perf_event cgroup fd; v2, or v1 perf_event) */
};

#define PMU_MAX_EVENTS 8
#define PMU_MAX_CPUS 512

struct pmu_event_value {
	char name[64];		/* "cycles", "instructions", "dtlb_load_misses", "task_clock_ns", ... */
	bool hardware;
	uint64_t value;		/* scaled for multiplexing, summed over CPUs */
};

struct pmu_counters {
	int nevents;
	struct pmu_event_value ev[PMU_MAX_EVENTS];
	int fds[PMU_MAX_EVENTS * PMU_MAX_CPUS];	/* event i, CPU slot j at [i * ncpus + j] */
	int ncpus;		/* CPU slots per event: online CPUs, or 1 for a pid */
	enum pmu_target target;
	bool using_hardware;	/* false: software fallback */
	char note[256];		/* what was used and why the others were not */
};

/*
 * Open hardware events (cycles, instructions, dTLB load misses) where the
 * PMU allows, plus the software events (task-clock, major/minor faults,
 * context switches), for target (pid or cgroup fd as id; ignored for
 * SYSTEM). Hardware events that do not open are left out and c->note says
 * why. Fails only when not even software events can be opened (-EACCES:
 * perf_event_paranoid, -ENOENT/-EOPNOTSUPP: no perf events here); then c is
 * closed and c->note holds the reason too. Live host only.
 */
int pmu_counters_open(struct pmu_counters *c, enum pmu_target target, int id,
		      struct st_err *e);
/*
 * Read current totals into c->ev[].value (monotonic while the target lives;
 * callers take deltas). No allocation.
 */
int pmu_counters_read(struct pmu_counters *c, struct st_err *e);
/* Close every fd; safe on a closed or zeroed struct. */
void pmu_counters_close(struct pmu_counters *c);

#endif
