/*
 * pmu.c - what CPU counters this host offers (libpfm4 encodes the events,
 * perf_event_open tells whether the kernel will count them), and counting
 * them system-wide, for a process or for a cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
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
			snprintf(pi->hw_reason, sizeof(pi->hw_reason), "no CPU PMU under %s/%s",
				 h->root, HOST_EVENT_SOURCES);
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
			 "no hardware PMU exposed to this machine (no CPU PMU under /" HOST_EVENT_SOURCES "; perf::cycles does not open)");
	pi->sw_available = try_event("perf::PERF_COUNT_SW_TASK_CLOCK", pi->sw_reason,
				     sizeof(pi->sw_reason)) == 0;
	(void)e;
	return 0;
}

/* ---- counting ---- */

struct event_spec {
	const char *pfm;	/* libpfm4 name */
	const char *name;	/* our name */
	bool hardware;
};

static const struct event_spec hw_events[] = {
	{ "perf::cycles", "cycles", true },
	{ "perf::instructions", "instructions", true },
	{ "perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS", "dtlb_load_misses", true },
};

static const struct event_spec sw_events[] = {
	{ "perf::PERF_COUNT_SW_TASK_CLOCK", "task_clock_ns", false },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ", "major_faults", false },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN", "minor_faults", false },
	{ "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", "context_switches", false },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* pfm_initialize() once per process, whichever thread (the TUI's engine or screen) asks first */
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_rc;

static void pfm_init(void)
{
	pfm_init_rc = pfm_initialize();
}

static int pfm_ready(char *reason, size_t len)
{
	pthread_once(&pfm_once, pfm_init);
	if (pfm_init_rc != PFM_SUCCESS) {
		snprintf(reason, len, "libpfm4 failed to initialise: %s", pfm_strerror(pfm_init_rc));
		return -ENOSYS;
	}
	return 0;
}

static const char *target_name(enum pmu_target t)
{
	return t == PMU_TARGET_SYSTEM ? "system-wide" : t == PMU_TARGET_PID ? "the process" :
	       "the cgroup";
}

/*
 * Open one event on every CPU slot of c. Returns 0, or -errno of the first
 * failure with nothing left open and reason filled.
 */
static int open_event(struct pmu_counters *c, const struct event_spec *sp, int id,
		      char *reason, size_t len)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int slot = c->nevents, ret, opened = 0;
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	pid_t pid = -1;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(sp->pfm, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(reason, len, "libpfm4 cannot encode %s: %s", sp->pfm, pfm_strerror(ret));
		return -EINVAL;
	}
	attr.size = sizeof(attr);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 0;
	if (c->target == PMU_TARGET_PID) {
		pid = id;
		attr.inherit = 1;	/* the workload's children count too */
	} else if (c->target == PMU_TARGET_CGROUP) {
		pid = id;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	for (int j = 0; j < c->ncpus; j++) {
		int cpu = c->target == PMU_TARGET_PID ? -1 : j;
		int fd = (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, flags);

		if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
			/* perf_event_paranoid 2 still allows user-space counting */
			attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
			fd = (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, flags);
		}
		if (fd < 0 && errno == ENODEV && cpu >= 0) {
			c->fds[slot * c->ncpus + j] = -1;	/* offline CPU */
			continue;
		}
		if (fd < 0) {
			int saved = errno;

			for (int k = 0; k < j; k++)
				if (c->fds[slot * c->ncpus + k] >= 0)
					close(c->fds[slot * c->ncpus + k]);
			if (saved == ENOENT || saved == EOPNOTSUPP || saved == ENODEV)
				snprintf(reason, len, "%s: %s (no hardware PMU exposed to this machine)",
					 sp->pfm, strerror(saved));
			else if (saved == EACCES || saved == EPERM)
				snprintf(reason, len, "%s: %s (counting %s needs root or a lower kernel.perf_event_paranoid)",
					 sp->pfm, strerror(saved), target_name(c->target));
			else
				snprintf(reason, len, "%s: %s", sp->pfm, strerror(saved));
			return -saved;
		}
		c->fds[slot * c->ncpus + j] = fd;
		opened++;
	}
	if (!opened) {
		snprintf(reason, len, "%s: no online CPU", sp->pfm);
		return -ENODEV;
	}
	snprintf(c->ev[slot].name, sizeof(c->ev[slot].name), "%s", sp->name);
	c->ev[slot].hardware = sp->hardware;
	c->ev[slot].value = 0;
	c->nevents++;
	return 0;
}

int pmu_counters_open(struct pmu_counters *c, enum pmu_target target, int id,
		      struct st_err *e)
{
	char hw_reason[200] = "", sw_reason[200] = "", used[160] = "";
	size_t ul = 0;
	long ncpu;
	int r, sw_err = 0;

	memset(c, 0, sizeof(*c));
	c->target = target;
	if (target == PMU_TARGET_PID) {
		c->ncpus = 1;
	} else {
		ncpu = sysconf(_SC_NPROCESSORS_CONF);
		c->ncpus = ncpu < 1 ? 1 : ncpu > PMU_MAX_CPUS ? PMU_MAX_CPUS : (int)ncpu;
	}
	if (pfm_ready(c->note, sizeof(c->note)) < 0) {
		c->ncpus = 0;
		return err_set_exit(e, -ENOSYS, ST_EXIT_DENIED, "no CPU counters: %s", c->note);
	}
	for (size_t i = 0; i < NELEM(hw_events); i++) {
		char why[200];

		r = open_event(c, &hw_events[i], id, why, sizeof(why));
		if (r < 0 && !hw_reason[0])
			snprintf(hw_reason, sizeof(hw_reason), "%s", why);
		if (r < 0 && i == 0)
			break;	/* no cycles: no hardware PMU, skip the rest */
	}
	c->using_hardware = c->nevents > 0;
	for (size_t i = 0; i < NELEM(sw_events); i++) {
		char why[200];

		/* a CPU-wide task-clock runs all the time, idle included: no information */
		if (target == PMU_TARGET_SYSTEM && !strcmp(sw_events[i].name, "task_clock_ns"))
			continue;
		r = open_event(c, &sw_events[i], id, why, sizeof(why));
		if (r < 0 && !sw_reason[0]) {
			snprintf(sw_reason, sizeof(sw_reason), "%s", why);
			sw_err = r;
		}
	}
	for (int i = 0; i < c->nevents; i++)
		ul += (size_t)snprintf(used + ul, ul < sizeof(used) ? sizeof(used) - ul : 0,
				       "%s%s", i ? "," : "", c->ev[i].name);
	if (c->nevents == 0) {
		snprintf(c->note, sizeof(c->note), "no CPU counters for %s: %s",
			 target_name(target), sw_reason[0] ? sw_reason : hw_reason);
		c->ncpus = 0;
		return err_set_exit(e, sw_err ? sw_err : -ENOENT,
				    sw_err == -EACCES || sw_err == -EPERM ? ST_EXIT_DENIED : 0,
				    "%s", c->note);
	}
	if (!c->using_hardware)
		snprintf(c->note, sizeof(c->note), "software events (%s) for %s%s; no hardware events: %s",
			 used, target_name(target),
			 target == PMU_TARGET_SYSTEM ? ", task-clock left out (system-wide it counts idle time)" : "",
			 hw_reason);
	else if (hw_reason[0] || sw_reason[0])
		snprintf(c->note, sizeof(c->note), "hardware and software events (%s) for %s; missing: %s",
			 used, target_name(target), hw_reason[0] ? hw_reason : sw_reason);
	else
		snprintf(c->note, sizeof(c->note), "hardware and software events (%s) for %s",
			 used, target_name(target));
	return 0;
}

int pmu_counters_read(struct pmu_counters *c, struct st_err *e)
{
	for (int i = 0; i < c->nevents; i++) {
		double sum = 0;

		for (int j = 0; j < c->ncpus; j++) {
			uint64_t v[3];	/* value, time enabled, time running */
			int fd = c->fds[i * c->ncpus + j];
			ssize_t n;

			if (fd < 0)
				continue;
			n = read(fd, v, sizeof(v));
			if (n != (ssize_t)sizeof(v))
				return err_set(e, n < 0 ? -errno : -EIO, "cannot read CPU counter %s: %s",
					       c->ev[i].name, n < 0 ? strerror(errno) : "short read");
			/* multiplexed: extrapolate to the whole enabled time */
			if (v[2] && v[2] < v[1])
				sum += (double)v[0] * ((double)v[1] / (double)v[2]);
			else
				sum += (double)v[0];
		}
		c->ev[i].value = (uint64_t)sum;
	}
	return 0;
}

void pmu_counters_close(struct pmu_counters *c)
{
	for (int i = 0; i < c->nevents; i++)
		for (int j = 0; j < c->ncpus; j++)
			if (c->fds[i * c->ncpus + j] >= 0)
				close(c->fds[i * c->ncpus + j]);
	c->nevents = 0;
	c->ncpus = 0;
}
