/*
 * pmu.c - what CPU counters this host offers (libpfm4 encodes the events,
 * perf_event_open tells whether the kernel will count them).
 */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "swaptune/pmu.h"

/* event_source devices that are not a CPU's hardware PMU */
static const char *const not_cpu_pmu[] = {
	"software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr",
	"power", "cstate_core", "cstate_pkg", "intel_bts", NULL,
};

static bool is_cpu_pmu(const char *name)
{
	for (int i = 0; not_cpu_pmu[i]; i++)
		if (!strcmp(name, not_cpu_pmu[i]))
			return false;
	/* uncore PMUs do not count a task's cycles */
	return strncmp(name, "uncore", 6) != 0;
}

/* Encode name with libpfm4 and try to open it on this process. */
static int try_event(const char *name, char *reason, size_t len)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret, fd;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(reason, len, "libpfm4 cannot encode %s: %s", name, pfm_strerror(ret));
		return -1;
	}
	attr.disabled = 1;
	attr.exclude_kernel = 0;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		int saved = errno;

		if (saved == ENOENT || saved == EOPNOTSUPP || saved == ENODEV)
			snprintf(reason, len, "perf_event_open(%s): %s (no hardware PMU exposed to this machine)",
				 name, strerror(saved));
		else if (saved == EACCES || saved == EPERM)
			snprintf(reason, len, "perf_event_open(%s): %s (perf_event_paranoid too strict for this user)",
				 name, strerror(saved));
		else
			snprintf(reason, len, "perf_event_open(%s): %s", name, strerror(saved));
		/* also with exclude_kernel, for paranoid >= 2 */
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd < 0)
			return -1;
		reason[0] = '\0';
	}
	close(fd);
	return 0;
}

int pmu_probe(const struct host *h, struct pmu_info *pi, struct st_err *e)
{
	char devs[1024];
	uint64_t paranoid;
	int ret;

	memset(pi, 0, sizeof(*pi));
	pi->paranoid = -99;
	if (host_read_u64(h, HOST_PERF_PARANOID, &paranoid, NULL) == 0)
		pi->paranoid = (int)paranoid;
	else {
		/* the value can be negative (-1), which host_read_u64 rejects */
		char buf[32];

		if (host_read_line(h, HOST_PERF_PARANOID, buf, sizeof(buf), NULL) == 0)
			sscanf(buf, "%d", &pi->paranoid);
	}
	if (host_list_dir(h, HOST_EVENT_SOURCES, devs, sizeof(devs), NULL) == 0) {
		for (char *save = NULL, *t = strtok_r(devs, " ", &save); t;
		     t = strtok_r(NULL, " ", &save))
			if (is_cpu_pmu(t)) {
				pi->hw_pmu_sysfs = true;
				snprintf(pi->hw_pmu_name, sizeof(pi->hw_pmu_name), "%s", t);
				break;
			}
	}
	if (!h->live) {
		pi->hw_available = pi->hw_pmu_sysfs;
		pi->sw_available = true;
		if (!pi->hw_pmu_sysfs)
			snprintf(pi->hw_reason, sizeof(pi->hw_reason),
				 "no CPU PMU under /sys/bus/event_source/devices");
		return 0;
	}
	pi->probed_live = true;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(pi->hw_reason, sizeof(pi->hw_reason), "libpfm4 failed to initialise: %s",
			 pfm_strerror(ret));
		snprintf(pi->sw_reason, sizeof(pi->sw_reason), "%s", pi->hw_reason);
		return 0;
	}
	pi->hw_available = try_event("perf::cycles", pi->hw_reason, sizeof(pi->hw_reason)) == 0;
	if (!pi->hw_available && !pi->hw_pmu_sysfs && !strstr(pi->hw_reason, "paranoid"))
		snprintf(pi->hw_reason, sizeof(pi->hw_reason),
			 "no hardware PMU exposed to this machine (no CPU PMU under /sys/bus/event_source/devices; perf::cycles does not open)");
	pi->sw_available = try_event("perf::PERF_COUNT_SW_TASK_CLOCK", pi->sw_reason,
				     sizeof(pi->sw_reason)) == 0;
	(void)e;
	return 0;
}
