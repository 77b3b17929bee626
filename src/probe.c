/*
 * probe.c - the probe engine (see probe.h): arms, plan, lock, trials in
 * fresh processes and memory cgroups, counter deltas, statistics, the store
 * and the result document.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store-int.h" /* TEMPORARY: SQL moves into the store (issue 8) */
#include "swaptune/facts.h"
#include "swaptune/journal.h"
#include "swaptune/pmu.h"
#include "swaptune/probe.h"
#include "swaptune/scratch-swap.h"

#define MiB (1024ull * 1024)

/* A trial may start once the zswap pool holds at most this many pages. */
#define POOL_CLEAN_PAGES 256
/* Time allowed on top of the measured-phase cap for setup and teardown. */
#define TRIAL_SLACK_S 60.0

const struct probe_metric_def probe_metric_defs[PM_COUNT] = {
	[PM_THROUGHPUT] = { "throughput_ops", "ops/s" },
	[PM_WALL_S] = { "wall_s", "s" },
	[PM_CMD_METRIC] = { "metric", "" },
	[PM_ELAPSED_S] = { "elapsed_s", "s" },
	[PM_SETUP_S] = { "setup_s", "s" },
	[PM_OPS] = { "ops", "ops" },
	[PM_LAT_P50_NS] = { "lat_p50_ns", "ns" },
	[PM_LAT_P99_NS] = { "lat_p99_ns", "ns" },
	[PM_LAT_P999_NS] = { "lat_p999_ns", "ns" },
	[PM_ZSWPIN] = { "zswpin", "pages" },
	[PM_ZSWPOUT] = { "zswpout", "pages" },
	[PM_ZSWPWB] = { "zswpwb", "pages" },
	[PM_PSWPIN] = { "pswpin", "pages" },
	[PM_PSWPOUT] = { "pswpout", "pages" },
	[PM_SWAP_RA] = { "swap_ra", "pages" },
	[PM_SWAP_RA_HIT] = { "swap_ra_hit", "pages" },
	[PM_RA_WASTED] = { "swap_ra_wasted", "pages" },
	[PM_PGMAJFAULT] = { "pgmajfault", "faults" },
	[PM_REFAULT_ANON] = { "workingset_refault_anon", "pages" },
	[PM_REFAULT_FILE] = { "workingset_refault_file", "pages" },
	[PM_PSI_SOME_US] = { "psi_some_us", "us" },
	[PM_PSI_FULL_US] = { "psi_full_us", "us" },
	[PM_CPU_USER_NS] = { "cpu_user_ns", "ns" },
	[PM_CPU_SYS_NS] = { "cpu_sys_ns", "ns" },
	[PM_CPU_NS_PER_OP] = { "cpu_ns_per_op", "ns" },
	[PM_TASK_CLOCK_NS] = { "task_clock_ns", "ns" },
	[PM_CTX_SWITCHES] = { "context_switches", "switches" },
	[PM_CYCLES] = { "cycles", "cycles" },
	[PM_INSTRUCTIONS] = { "instructions", "instructions" },
	[PM_MAJ_FAULTS] = { "maj_faults", "faults" },
	[PM_MIN_FAULTS] = { "min_faults", "faults" },
	[PM_MEMCG_PEAK_BYTES] = { "memcg_peak_bytes", "bytes" },
	[PM_MEMCG_PGMAJFAULT] = { "memcg_pgmajfault", "faults" },
	[PM_ZSWAP_STORED_BEFORE] = { "zswap_stored_pages_before", "pages" },
	[PM_ZSWAP_POOL_LIMIT_HIT] = { "zswap_pool_limit_hit", "events" },
	[PM_ZSWAP_REJECT_POOR] = { "zswap_reject_compress_poor", "pages" },
	[PM_ZSWAP_WRITTEN_BACK] = { "zswap_written_back_pages", "pages" },
};

const char *probe_trial_status_name(enum probe_trial_status s)
{
	switch (s) {
	case PROBE_TRIAL_OK: return "ok";
	case PROBE_TRIAL_OOM: return "oom";
	case PROBE_TRIAL_FAILED: return "failed";
	case PROBE_TRIAL_TIMEOUT: return "timeout";
	case PROBE_TRIAL_INTERRUPTED: return "interrupted";
	}
	return "?";
}

/* ---- arms ------------------------------------------------------------ */

static void arm_set(struct probe_arm *a, const char *name, const char *value)
{
	for (int i = 0; i < a->nset; i++)
		if (!strcmp(a->set[i].name, name)) {
			snprintf(a->set[i].value, sizeof(a->set[i].value), "%s", value);
			return;
		}
	if (a->nset < PROBE_ARM_SET_MAX) {
		snprintf(a->set[a->nset].name, sizeof(a->set[a->nset].name), "%s", name);
		snprintf(a->set[a->nset].value, sizeof(a->set[a->nset].value), "%s", value);
		a->nset++;
	}
}

int probe_arm_builtin(const char *name, struct probe_arm *a)
{
	memset(a, 0, sizeof(*a));
	if (!strcmp(name, "pc3") || !strcmp(name, "pc1") || !strcmp(name, "pc0")) {
		snprintf(a->name, sizeof(a->name), "%s", name);
		arm_set(a, "page-cluster", name + 2);
	} else if (!strcmp(name, "bypass")) {
		snprintf(a->name, sizeof(a->name), "bypass");
		a->bypass = true;
		/* until detection says otherwise: the usual emulation */
		arm_set(a, "page-cluster", "0");
	} else {
		return -ENOENT;
	}
	a->builtin = true;
	return 0;
}

static bool valid_arm_name(const char *s, size_t n)
{
	if (n == 0 || n >= PROBE_ARM_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

int probe_arm_parse(const struct host *h, const char *spec, struct probe_arm *a,
		    struct st_err *e)
{
	const char *colon = strchr(spec, ':');
	char list[512], *save = NULL;

	memset(a, 0, sizeof(*a));
	if (!colon || !valid_arm_name(spec, (size_t)(colon - spec)))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "arm \"%s\": expected NAME:key=value,... with NAME of letters, digits, '-', '_' or '.'",
				    spec);
	snprintf(a->name, sizeof(a->name), "%.*s", (int)(colon - spec), spec);
	if (strlen(colon + 1) >= sizeof(list))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s: too long", a->name);
	snprintf(list, sizeof(list), "%s", colon + 1);
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), norm[SETTING_VALUE_MAX];
		const struct setting_def *d;
		struct st_err e1 = {0};

		if (!eq || eq == t || !eq[1])
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "arm %s: \"%s\" is not key=value", a->name, t);
		*eq = '\0';
		d = settings_find(t);
		if (!d)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "arm %s: unknown setting \"%s\" (known: page-cluster, vma_ra_enabled, zswap.enabled, zswap.compressor, zswap.max_pool_percent, zswap.accept_threshold_percent, zswap.shrinker_enabled)",
					    a->name, t);
		for (int i = 0; i < a->nset; i++)
			if (!strcmp(a->set[i].name, d->name))
				return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
						    "arm %s: %s is given twice", a->name, d->name);
		if (a->nset >= PROBE_ARM_SET_MAX)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "arm %s: more than %d settings", a->name, PROBE_ARM_SET_MAX);
		if (settings_normalize(h, d, eq + 1, norm, sizeof(norm), &e1) < 0)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s: %s", a->name, e1.msg);
		arm_set(a, d->name, norm);
	}
	if (a->nset == 0)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s sets nothing", a->name);
	return 0;
}

int probe_arms_parse_list(const char *list, struct probe_arm *arms, int max,
			  int *n, struct st_err *e)
{
	char buf[512], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (int i = 0; i < *n; i++)
			if (!strcmp(arms[i].name, t))
				return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s is listed twice", t);
		if (*n >= max)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "more than %d arms", max);
		if (probe_arm_builtin(t, &arms[*n]) < 0)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "unknown arm \"%s\" (built in: pc3, pc1, pc0, bypass; "
					    "custom ones with --arm NAME:key=value,...)", t);
		(*n)++;
	}
	if (*n == 0)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "empty arm list");
	return 0;
}

void probe_arm_describe(const struct probe_arm *a, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->nset && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? ", " : "",
					 a->set[i].name, a->set[i].value);
	if (a->zram && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%sswap on zram", used ? ", " : "");
	if (!buf[0])
		snprintf(buf, len, "host settings");
}

/* ---- round order ----------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void probe_round_order(uint64_t seed, unsigned round, int n, int *order)
{
	uint64_t s = seed ^ ((uint64_t)round * 0xd1b54a32d192ed03ULL);

	for (int i = 0; i < n; i++)
		order[i] = i;
	splitmix64(&s);
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(splitmix64(&s) % (uint64_t)(i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/* ---- statistics ------------------------------------------------------ */

int probe_stat_compute(const double *x, size_t n, double level, struct probe_stat *out)
{
	out->n = n;
	out->mean = out->stddev = out->ci_low = out->ci_high = NAN;
	if (n == 0)
		return 0;
	out->mean = stats_mean(x, n);
	if (n < 2) {
		out->ci_low = out->ci_high = NAN;
		return 0;
	}
	out->stddev = stats_stddev(x, n);
	if (isfinite(out->stddev)) {
		double t = stats_t_quantile(0.5 + level / 2, (double)(n - 1));
		double half = t * out->stddev / sqrt((double)n);

		out->ci_low = out->mean - half;
		out->ci_high = out->mean + half;
	}
	return 0;
}

/* ---- configuration and plan ------------------------------------------ */

void probe_config_init(struct probe_config *c)
{
	memset(c, 0, sizeof(*c));
	workload_params_init(&c->wp);
	c->baseline = -1;
	c->reps = 3;
	c->max_reps = 10;
	c->warmup = true;
	c->seed = 1;
	c->duration_s = 60;
	c->limit_mode = MEMCG_LIMIT_MAX;
	c->bypass_mode = PROBE_BYPASS_PC0;
}

static bool is_cmd(const struct probe_config *c)
{
	return c->workload && c->workload->pattern == WORKLOAD_PAT_NONE;
}

static void add_touch(struct probe_plan *p, const struct host *h, const char *name)
{
	const struct setting_def *d = settings_find(name);

	for (int i = 0; i < p->ntouch; i++)
		if (!strcmp(p->touch[i].name, name))
			return;
	if ((size_t)p->ntouch >= sizeof(p->touch) / sizeof(p->touch[0]))
		return;
	snprintf(p->touch[p->ntouch].name, sizeof(p->touch[0].name), "%s", name);
	if (!d || settings_read(h, d, p->touch[p->ntouch].current,
				sizeof(p->touch[0].current), NULL) < 0)
		snprintf(p->touch[p->ntouch].current, sizeof(p->touch[0].current), "?");
	p->ntouch++;
}

static const char *touch_current(const struct probe_plan *p, const char *name)
{
	for (int i = 0; i < p->ntouch; i++)
		if (!strcmp(p->touch[i].name, name))
			return p->touch[i].current;
	return NULL;
}

/* The arm whose settings are all what the host has now (not bypass). */
static int matching_arm(const struct probe_config *c, const struct probe_plan *p)
{
	for (int i = 0; i < c->narms; i++) {
		const struct probe_arm *a = &c->arms[i];
		bool all = a->nset > 0 && !a->bypass;

		for (int k = 0; all && k < a->nset; k++) {
			const struct setting_def *d = settings_find(a->set[k].name);
			const char *cur = touch_current(p, a->set[k].name);

			all = d && cur && settings_equal(d, cur, a->set[k].value);
		}
		if (all)
			return i;
	}
	return -1;
}

/* Rough seconds per trial, measured on a 2-core VM with zswap/lzo (see tests/). */
static double estimate_trial_s(const struct probe_config *c)
{
	double ws_gib = (double)c->wp.working_set_bytes / (1024.0 * MiB);
	double ops = c->workload ? (double)workload_ops(c->workload, &c->wp) : 0;
	double est;

	if (is_cmd(c))
		return -1;
	/* preparation ~0.5 s, fill + swap-out ~2 s/GiB, ~8 us per access (half fault) */
	est = 0.5 + 2.0 * ws_gib + ops * 8e-6;
	if (c->duration_s > 0 && est > c->duration_s + 0.5 + 2.0 * ws_gib)
		est = c->duration_s + 0.5 + 2.0 * ws_gib;
	return est;
}

int probe_plan(const struct host *h, struct probe_config *c, struct probe_plan *p,
	       struct st_err *e)
{
	struct st_swap sw[HOST_MAX_SWAPS];
	struct st_kvtab mi;
	char root[PATH_MAX], reason[WORKLOAD_REASON_MAX], list[64];
	const struct setting_value *zen;
	struct settings_snapshot snap;
	int nsw = 0, r;

	memset(p, 0, sizeof(*p));
	if (!c->workload)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "no workload");
	if (c->narms < 1)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "no arms");
	if (c->reps < 1 || c->reps > PROBE_REPS_MAX)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "--reps must be 1..%d", PROBE_REPS_MAX);
	if (c->adaptive && (c->max_reps < c->reps || c->max_reps > PROBE_REPS_MAX))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "--max-reps must be from --reps (%u) to %d", c->reps, PROBE_REPS_MAX);
	if (c->memcg_limit_bytes < 16 * MiB)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "--memcg-limit below 16 MiB cannot hold a workload");
	if (!is_cmd(c) && c->wp.working_set_bytes <= c->memcg_limit_bytes)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "the working set (%llu MiB) must exceed the memcg limit (%llu MiB), or nothing swaps",
				    (unsigned long long)(c->wp.working_set_bytes / MiB),
				    (unsigned long long)(c->memcg_limit_bytes / MiB));
	c->wp.max_duration_s = c->duration_s;

	if ((r = memcg_locate(h, &p->memcg_version, root, sizeof(root), e)) < 0)
		return r;
	if (c->limit_mode == MEMCG_LIMIT_HIGH && p->memcg_version != 2)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "--limit-mode high needs the memory controller on cgroup v2; this host has it on v1");

	if (!c->scratch_dir[0] && h->live &&
	    (r = scratch_swap_default_dir(c->scratch_dir, sizeof(c->scratch_dir), e)) < 0)
		return r;
	snprintf(p->scratch_dir, sizeof(p->scratch_dir), "%s", c->scratch_dir);
	if (!c->wp.scratch_dir[0])
		snprintf(c->wp.scratch_dir, sizeof(c->wp.scratch_dir), "%s", c->scratch_dir);
	if (!c->workload->supported(&c->wp, reason, sizeof(reason)))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "workload %s cannot run: %s",
				    c->workload->name, reason);

	/* settings the arms write, with their values now */
	for (int i = 0; i < c->narms; i++)
		for (int k = 0; k < c->arms[i].nset; k++)
			add_touch(p, h, c->arms[i].set[k].name);
	for (int i = 0; i < c->narms; i++)
		if (c->arms[i].bypass)
			p->detect_bypass = true;
	if (c->baseline < 0) {
		c->baseline = matching_arm(c, p);
		if (c->baseline < 0)
			c->baseline = 0;
	}
	if (c->baseline >= c->narms)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "baseline arm out of range");
	p->baseline = c->baseline;

	if ((r = settings_snapshot(h, &snap, e)) < 0)
		return r;
	zen = settings_snapshot_get(&snap, "zswap.enabled");
	if (!zen || !zen->present)
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "this kernel has no zswap (no /%s): the probe measures zswap swap-in",
				    HOST_ZSWAP_PARAMS);
	p->enable_zswap = !settings_equal(settings_find("zswap.enabled"), zen->value, "Y");

	if ((r = host_read_swaps(h, sw, HOST_MAX_SWAPS, &nsw, e)) < 0)
		return r;
	p->have_host_swap = nsw > 0;
	if (nsw > 0) {
		snprintf(p->host_swap, sizeof(p->host_swap), "%s", sw[0].path);
		for (int i = 0; i < nsw; i++)
			if (sw[i].rotational == 1)
				p->host_swap_rotational = true;
	}
	if (!c->swap_size_bytes) {
		uint64_t ws = is_cmd(c) ? 2 * c->memcg_limit_bytes : c->wp.working_set_bytes;

		c->swap_size_bytes = ws + ws / 2 + 64 * MiB;
		if (c->swap_size_bytes < 512 * MiB)
			c->swap_size_bytes = 512 * MiB;
	}
	p->swap_bytes = p->have_host_swap ? 0 : c->swap_size_bytes;
	p->mount_debugfs = h->live && (host_list_dir(h, HOST_DEBUGFS, list, sizeof(list), NULL) < 0 ||
				       !list[0]);

	p->working_set_bytes = c->wp.working_set_bytes;
	p->memcg_limit_bytes = c->memcg_limit_bytes;
	kv_init(&mi);
	if ((r = host_read_meminfo(h, &mi, e)) < 0) {
		kv_free(&mi);
		return r;
	}
	kv_get(&mi, "MemAvailable", &p->available_bytes);
	kv_free(&mi);
	/* the memcg, the zswap pool (worst case: nothing compresses) and a margin */
	p->need_bytes = c->memcg_limit_bytes +
			(is_cmd(c) ? c->swap_size_bytes / 2 : c->wp.working_set_bytes) + 256 * MiB;
	if (p->available_bytes < p->need_bytes && !c->force)
		return err_set_exit(e, -ENOMEM, ST_EXIT_DENIED,
				    "not enough free memory: the probe needs about %llu MiB, MemAvailable is %llu MiB "
				    "(lower --working-set/--memcg-limit, or --force)",
				    (unsigned long long)(p->need_bytes / MiB),
				    (unsigned long long)(p->available_bytes / MiB));

	p->rounds = c->reps + (c->warmup ? 1 : 0);
	p->trials = p->rounds * (unsigned)c->narms + (p->detect_bypass ? 1 : 0);
	p->max_trials = c->adaptive ? (c->max_reps + (c->warmup ? 1 : 0)) * (unsigned)c->narms +
				      (p->detect_bypass ? 1 : 0) : p->trials;
	p->est_trial_s = estimate_trial_s(c);
	if (p->est_trial_s < 0) {
		/* cmd: unknown until it ran once; the cap bounds it */
		p->est_total_s = -1;
		p->est_max_s = (c->duration_s + TRIAL_SLACK_S / 4) * p->max_trials;
	} else {
		p->est_total_s = 2.0 + p->est_trial_s * p->trials;
		p->est_max_s = 2.0 + p->est_trial_s * p->max_trials;
	}
	return 0;
}

/* ---- lock ------------------------------------------------------------ */

int probe_lock(const struct host *h, const char *db_path, int *fd, char *path,
	       size_t len, struct st_err *e)
{
	char buf[32];
	ssize_t n;

	if (h->live) {
		if (mkdir("/run/swaptune", 0755) < 0 && errno != EEXIST)
			return err_set_exit(e, -errno, ST_EXIT_DENIED, "cannot create /run/swaptune: %s",
					    strerror(errno));
		snprintf(path, len, "/run/swaptune/probe.lock");
	} else {
		snprintf(path, len, "%s.probe.lock", db_path);
	}
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return err_set_exit(e, -errno, ST_EXIT_DENIED, "cannot open lock %s: %s", path,
				    strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;

		n = pread(*fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		close(*fd);
		*fd = -1;
		if (saved == EWOULDBLOCK)
			return err_set_exit(e, -EBUSY, ST_EXIT_DENIED,
					    "another swaptune probe is running (pid %d, lock %s): wait for it to finish",
					    atoi(buf), path);
		return err_set_exit(e, -saved, ST_EXIT_DENIED, "cannot lock %s: %s", path, strerror(saved));
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	/* the pid is a courtesy for the message above: failing to write it is fine */
	if (ftruncate(*fd, 0) == 0)
		(void)!pwrite(*fd, buf, strlen(buf), 0);
	return 0;
}

void probe_unlock(int fd)
{
	if (fd >= 0) {
		(void)!ftruncate(fd, 0);
		flock(fd, LOCK_UN);
		close(fd);
	}
}

/* ---- the engine ------------------------------------------------------ */

struct counters {
	struct st_kvtab vm;
	struct st_kvtab zs;
	bool zs_ok;
	struct st_psi psi;
	bool psi_ok;
};

struct engine {
	const struct host *h;
	struct store *st;
	struct probe_config *c;
	const struct probe_plan *p;
	struct probe_result *r;
	struct journal j;
	bool journaled;
	struct scratch_swap swap, zram;
	bool have_swap, have_zram;
	int64_t arm_ids[PROBE_ARMS_MAX];
	unsigned seq;
	double trial_s_sum;
	unsigned trial_s_n;
	struct timespec t0;
	unsigned planned_trials;
	bool pmu_noted;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool stopped(const struct engine *E)
{
	return E->c->stop && *E->c->stop;
}

static void progress(struct engine *E, enum probe_phase ph, const char *arm, unsigned round,
		     bool warmup, const char *msg)
{
	struct probe_progress pr = {
		.phase = ph, .arm = arm, .round = round,
		.rounds = E->c->reps, .trial = E->seq, .trials = E->planned_trials,
		.eta_s = -1, .msg = msg,
	};

	(void)warmup;
	if (!E->c->progress)
		return;
	if (E->trial_s_n)
		pr.eta_s = E->trial_s_sum / E->trial_s_n *
			   (double)(E->planned_trials > E->seq ? E->planned_trials - E->seq + 1 : 1);
	else if (E->p->est_trial_s > 0)
		pr.eta_s = E->p->est_trial_s *
			   (double)(E->planned_trials > E->seq ? E->planned_trials - E->seq + 1 : 1);
	E->c->progress(&pr, E->c->progress_arg);
}

static void counters_init(struct counters *k)
{
	memset(k, 0, sizeof(*k));
	kv_init(&k->vm);
	kv_init(&k->zs);
}

static void counters_free(struct counters *k)
{
	kv_free(&k->vm);
	kv_free(&k->zs);
}

static int counters_read(const struct host *h, struct counters *k, struct st_err *e)
{
	int r = host_read_vmstat(h, &k->vm, e);

	if (r < 0)
		return r;
	k->zs_ok = host_read_zswap_stats(h, &k->zs, NULL) == 0;
	k->psi_ok = host_read_psi(h, HOST_PSI_MEMORY, &k->psi, NULL) == 0;
	return 0;
}

static void put(struct probe_trial *t, enum probe_metric m, double v)
{
	t->have[m] = true;
	t->v[m] = v;
}

static void put_delta(struct probe_trial *t, enum probe_metric m, const struct st_kvtab *a,
		      const struct st_kvtab *b, const char *key)
{
	uint64_t x, y;

	if (kv_get(a, key, &x) && kv_get(b, key, &y))
		put(t, m, y >= x ? (double)(y - x) : 0);
}

static void counters_delta(struct probe_trial *t, const struct counters *a,
			   const struct counters *b)
{
	static const struct { enum probe_metric m; const char *key; } vm[] = {
		{ PM_ZSWPIN, "zswpin" }, { PM_ZSWPOUT, "zswpout" }, { PM_ZSWPWB, "zswpwb" },
		{ PM_PSWPIN, "pswpin" }, { PM_PSWPOUT, "pswpout" }, { PM_SWAP_RA, "swap_ra" },
		{ PM_SWAP_RA_HIT, "swap_ra_hit" }, { PM_PGMAJFAULT, "pgmajfault" },
		{ PM_REFAULT_ANON, "workingset_refault_anon" },
		{ PM_REFAULT_FILE, "workingset_refault_file" },
	}, zs[] = {
		{ PM_ZSWAP_POOL_LIMIT_HIT, "pool_limit_hit" },
		{ PM_ZSWAP_REJECT_POOR, "reject_compress_poor" },
		{ PM_ZSWAP_WRITTEN_BACK, "written_back_pages" },
	};

	for (size_t i = 0; i < sizeof(vm) / sizeof(vm[0]); i++)
		put_delta(t, vm[i].m, &a->vm, &b->vm, vm[i].key);
	if (t->have[PM_SWAP_RA] && t->have[PM_SWAP_RA_HIT])
		put(t, PM_RA_WASTED, t->v[PM_SWAP_RA] > t->v[PM_SWAP_RA_HIT] ?
				     t->v[PM_SWAP_RA] - t->v[PM_SWAP_RA_HIT] : 0);
	if (a->zs_ok && b->zs_ok)
		for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++)
			put_delta(t, zs[i].m, &a->zs, &b->zs, zs[i].key);
	if (a->psi_ok && b->psi_ok) {
		if (a->psi.some.present && b->psi.some.present)
			put(t, PM_PSI_SOME_US, (double)(b->psi.some.total_us - a->psi.some.total_us));
		if (a->psi.full.present && b->psi.full.present)
			put(t, PM_PSI_FULL_US, (double)(b->psi.full.total_us - a->psi.full.total_us));
	}
}

/* Pages in the zswap pool: debugfs stored_pages, else meminfo Zswapped. */
static int pool_pages(const struct host *h, uint64_t *pages)
{
	struct st_kvtab t;
	uint64_t v = 0;
	int r;

	kv_init(&t);
	r = host_read_zswap_stats(h, &t, NULL);
	if (r == 0 && kv_get(&t, "stored_pages", &v)) {
		*pages = v;
		kv_free(&t);
		return 0;
	}
	r = host_read_meminfo(h, &t, NULL);
	if (r == 0 && kv_get(&t, "Zswapped", &v)) {
		*pages = v / (uint64_t)sysconf(_SC_PAGESIZE);
		kv_free(&t);
		return 0;
	}
	kv_free(&t);
	return -ENOENT;
}

/* Settings an arm's trial runs with: its own, and the host's original for the rest. */
static int apply_arm(struct engine *E, const struct probe_arm *a, struct st_err *e)
{
	for (int i = 0; i < E->p->ntouch; i++) {
		const char *name = E->p->touch[i].name, *val = E->p->touch[i].current;
		int r;

		for (int k = 0; k < a->nset; k++)
			if (!strcmp(a->set[k].name, name))
				val = a->set[k].value;
		r = journal_set(&E->j, name, val, true, NULL, 0, e);
		if (r < 0)
			return err_prefix(e, "arm %s", a->name);
	}
	return 0;
}

/* Make the arm's swap device the only active scratch device, freshly emptied. */
static int prepare_swap(struct engine *E, const struct probe_arm *a, struct st_err *e)
{
	struct scratch_swap *want = a->zram && E->have_zram ? &E->zram :
				    E->have_swap ? &E->swap : NULL;
	int r;

	if (E->have_swap && (r = scratch_swap_off(&E->swap, e)) < 0)
		return r;
	if (E->have_zram && (r = scratch_swap_off(&E->zram, e)) < 0)
		return r;
	return want ? scratch_swap_on(want, e) : 0;
}

static int prepare_host(struct engine *E, const struct probe_arm *a, struct probe_trial *t,
			struct st_err *e)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint64_t pages = 0;
	int r;

	sync();
	if ((r = host_write(E->h, HOST_DROP_CACHES, "3", e)) < 0)
		return err_prefix(e, "cannot drop caches before a trial");
	/* compaction is best effort: some kernels lack it */
	host_write(E->h, HOST_COMPACT_MEMORY, "1", NULL);
	if ((r = prepare_swap(E, a, e)) < 0)
		return r;
	for (int i = 0; i < 40; i++) {
		if (pool_pages(E->h, &pages) < 0 || pages <= POOL_CLEAN_PAGES)
			break;
		nanosleep(&ts, NULL);
	}
	put(t, PM_ZSWAP_STORED_BEFORE, (double)pages);
	if (pages > POOL_CLEAN_PAGES)
		snprintf(t->note, sizeof(t->note), "zswap pool held %llu pages when the trial started",
			 (unsigned long long)pages);
	return 0;
}

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The trial process: join the group, wait for the go, run, report. Never returns. */
static void trial_child(const struct probe_config *c, const struct memcg *m, int resfd,
			int gofd, pid_t parent)
{
	static struct workload_result res;
	struct st_err e = {0};
	sigset_t none;
	char go;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(3);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	memset(&res, 0, sizeof(res));
	if (memcg_attach(m, 0, &e) < 0) {
		res.failed = true;
		snprintf(res.reason, sizeof(res.reason), "cannot join memory cgroup %s: %s", m->name,
			 e.msg);
		write_all(resfd, &res, sizeof(res));
		_exit(2);
	}
	if (read(gofd, &go, 1) != 1)
		_exit(3);
	c->workload->run(&c->wp, &res, &e);
	write_all(resfd, &res, sizeof(res));
	_exit(0);
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* Deltas of the PMU events since start[] (values at the go). */
static void pmu_delta(struct probe_trial *t, const struct pmu_counters *pc, const double *start)
{
	static const struct { enum probe_metric m; const char *name; } map[] = {
		{ PM_TASK_CLOCK_NS, "task_clock_ns" }, { PM_CTX_SWITCHES, "context_switches" },
		{ PM_CYCLES, "cycles" }, { PM_INSTRUCTIONS, "instructions" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		for (int k = 0; k < pc->nevents; k++)
			if (!strcmp(pc->ev[k].name, map[i].name)) {
				double d = (double)pc->ev[k].value - start[k];

				put(t, map[i].m, d > 0 ? d : 0);
			}
}

static void fill_from_result(const struct probe_config *c, struct probe_trial *t,
			     const struct workload_result *w)
{
	if (is_cmd(c)) {
		put(t, PM_WALL_S, (double)w->wall_ns / 1e9);
		if (w->metric_matched)
			put(t, PM_CMD_METRIC, w->metric_value);
	} else {
		put(t, PM_THROUGHPUT, w->throughput_ops);
		put(t, PM_ELAPSED_S, (double)w->elapsed_ns / 1e9);
		put(t, PM_SETUP_S, (double)w->setup_ns / 1e9);
		put(t, PM_OPS, (double)w->ops);
		put(t, PM_LAT_P50_NS, (double)w->lat_p50_ns);
		put(t, PM_LAT_P99_NS, (double)w->lat_p99_ns);
		put(t, PM_LAT_P999_NS, (double)w->lat_p999_ns);
	}
	put(t, PM_MAJ_FAULTS, (double)w->maj_faults);
	put(t, PM_MIN_FAULTS, (double)w->min_faults);
}

static double primary_of(const struct probe_config *c, const struct probe_trial *t)
{
	enum probe_metric m = c->primary == PROBE_PRIMARY_WALL ? PM_WALL_S :
			      c->primary == PROBE_PRIMARY_METRIC ? PM_CMD_METRIC : PM_THROUGHPUT;

	return t->have[m] ? t->v[m] : NAN;
}

/*
 * One trial of arm a: prepare, fresh cgroup, fork, count, wait, judge.
 * Returns < 0 only when the host could not be prepared or cleaned up (the
 * probe stops); a workload that failed is a trial status.
 */
static int run_trial(struct engine *E, const struct probe_arm *a, const struct probe_config *c,
		     struct probe_trial *t, struct st_err *e)
{
	struct counters before, after;
	struct pmu_counters *pc = NULL;
	double pstart[PMU_MAX_EVENTS] = { 0 };
	struct workload_result *res;
	struct memcg m;
	char name[MEMCG_NAME_MAX];
	int resp[2] = { -1, -1 }, gop[2] = { -1, -1 }, status = 0, r;
	uint64_t oom0 = 0, oom1 = 0;
	bool pmu_ok = false, reaped = false, eof = false, timed_out = false, interrupted = false;
	size_t got = 0;
	double t0 = now_s(), deadline, reaped_at = 0;
	struct rusage ru;
	pid_t pid;

	memset(&m, 0, sizeof(m));
	counters_init(&before);
	counters_init(&after);
	t->primary = NAN;
	res = calloc(1, sizeof(*res));
	pc = calloc(1, sizeof(*pc));
	if (!res || !pc) {
		free(res);
		free(pc);
		return err_set(e, -ENOMEM, "out of memory");
	}

	if ((r = apply_arm(E, a, e)) < 0 || (r = prepare_host(E, a, t, e)) < 0)
		goto out;
	snprintf(name, sizeof(name), MEMCG_PREFIX "probe-%d-%u", (int)getpid(), t->seq);
	if ((r = memcg_create(&m, E->h, journal_hooks(&E->j), name, c->memcg_limit_bytes, c->limit_mode, e)) < 0)
		goto out;
	memcg_oom_kills(&m, &oom0, NULL);
	if (pipe2(resp, O_CLOEXEC) < 0 || pipe2(gop, O_CLOEXEC) < 0) {
		r = err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = err_set(e, -errno, "cannot fork the trial process: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(resp[0]);
		close(gop[1]);
		trial_child(c, &m, resp[1], gop[0], getppid());
	}
	close(resp[1]);
	close(gop[0]);
	resp[1] = gop[0] = -1;

	/* counters start once the child sits in its group, before it runs */
	{
		struct st_err pe = {0};

		pmu_ok = pmu_counters_open(pc, PMU_TARGET_PID, pid, &pe) == 0;
		if (pmu_ok && pmu_counters_read(pc, NULL) < 0) {
			pmu_counters_close(pc);
			pmu_ok = false;
		}
		for (int i = 0; pmu_ok && i < pc->nevents; i++)
			pstart[i] = (double)pc->ev[i].value;
		if (!E->pmu_noted) {
			snprintf(E->r->cpu_counters, sizeof(E->r->cpu_counters), "%s",
				 pmu_ok ? (pc->note[0] ? pc->note : "hardware and software events") :
				 pe.msg[0] ? pe.msg : "perf events unavailable");
			E->pmu_noted = true;
		}
	}
	if ((r = counters_read(E->h, &before, e)) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	write_all(gop[1], "g", 1);
	close(gop[1]);
	gop[1] = -1;

	deadline = now_s() + (c->duration_s > 0 ? 2 * c->duration_s + TRIAL_SLACK_S : 3600);
	while (!reaped || !eof) {
		struct pollfd pf = { .fd = resp[0], .events = POLLIN };

		if (!interrupted && stopped(E)) {
			interrupted = true;
			kill(pid, SIGKILL);
		}
		if (!reaped && !timed_out && now_s() > deadline) {
			timed_out = true;
			kill(pid, SIGKILL);
		}
		if (!eof && poll(&pf, 1, 100) > 0) {
			ssize_t n = read(resp[0], (char *)res + got,
					 got < sizeof(*res) ? sizeof(*res) - got : 0);

			if (n == 0 || got >= sizeof(*res))
				eof = true;
			else if (n > 0)
				got += (size_t)n;
		} else if (eof) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (!reaped) {
			pid_t w = wait4(pid, &status, WNOHANG, &ru);

			if (w == pid) {
				reaped = true;
				reaped_at = now_s();
			}
		}
		/* a stray holder of the pipe must not keep us: the child's result is all we need */
		if (reaped && !eof && (got >= sizeof(*res) || now_s() > reaped_at + 2))
			eof = true;
	}
	t->duration_s = now_s() - t0;

	if (pmu_ok && pmu_counters_read(pc, NULL) == 0)
		pmu_delta(t, pc, pstart);
	counters_read(E->h, &after, NULL);
	counters_delta(t, &before, &after);
	memcg_oom_kills(&m, &oom1, NULL);
	{
		struct st_kvtab ms;
		uint64_t v;

		kv_init(&ms);
		if (memcg_read_stat(&m, &ms, NULL) == 0 &&
		    (kv_get(&ms, "pgmajfault", &v) || kv_get(&ms, "total_pgmajfault", &v)))
			put(t, PM_MEMCG_PGMAJFAULT, (double)v);
		kv_free(&ms);
		if (memcg_peak_bytes(&m, &v, NULL) == 0)
			put(t, PM_MEMCG_PEAK_BYTES, (double)v);
	}
	put(t, PM_CPU_USER_NS, (double)tv_ns(ru.ru_utime));
	put(t, PM_CPU_SYS_NS, (double)tv_ns(ru.ru_stime));
	if (got == sizeof(*res))
		fill_from_result(c, t, res);

	if (interrupted) {
		t->status = PROBE_TRIAL_INTERRUPTED;
		snprintf(t->note, sizeof(t->note), "stopped by signal %d", (int)*c->stop);
	} else if (oom1 > oom0) {
		t->status = PROBE_TRIAL_OOM;
		snprintf(t->note, sizeof(t->note), "OOM-killed in its memory cgroup (%llu kill%s)",
			 (unsigned long long)(oom1 - oom0), oom1 - oom0 == 1 ? "" : "s");
	} else if (timed_out) {
		t->status = PROBE_TRIAL_TIMEOUT;
		snprintf(t->note, sizeof(t->note), "killed after %.0f s", t->duration_s);
	} else if (WIFSIGNALED(status)) {
		t->status = PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "trial process killed by signal %d",
			 WTERMSIG(status));
	} else if (got != sizeof(*res)) {
		t->status = PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "trial process exited with status %d and no result",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	} else if (res->failed) {
		t->status = res->timed_out ? PROBE_TRIAL_TIMEOUT : PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "%s", res->reason);
	} else {
		t->status = PROBE_TRIAL_OK;
		if (res->time_limited && !t->note[0])
			snprintf(t->note, sizeof(t->note), "measured phase stopped at the %.0f s cap",
				 c->duration_s);
	}
	if (t->have[PM_CPU_USER_NS] && t->have[PM_CPU_SYS_NS] && t->have[PM_OPS] && t->v[PM_OPS] > 0)
		put(t, PM_CPU_NS_PER_OP, (t->v[PM_CPU_USER_NS] + t->v[PM_CPU_SYS_NS]) / t->v[PM_OPS]);
	else if (is_cmd(c) && t->have[PM_CPU_USER_NS])
		put(t, PM_CPU_NS_PER_OP, t->v[PM_CPU_USER_NS] + t->v[PM_CPU_SYS_NS]);
	if (t->status == PROBE_TRIAL_OK)
		t->primary = primary_of(c, t);
	if (t->status == PROBE_TRIAL_OK && !isfinite(t->primary)) {
		t->status = PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "no primary metric (%s)",
			 c->primary == PROBE_PRIMARY_METRIC ? "--metric-regex did not match" : "empty result");
	}
	r = 0;
out:
	if (pmu_ok)
		pmu_counters_close(pc);
	free(pc);
	for (int i = 0; i < 2; i++) {
		if (resp[i] >= 0)
			close(resp[i]);
		if (gop[i] >= 0)
			close(gop[i]);
	}
	if (m.created) {
		struct st_err e2 = {0};
		int r2 = memcg_destroy(&m, &e2);

		if (r2 < 0 && r == 0)
			r = err_set(e, r2, "%s", e2.msg);
	}
	counters_free(&before);
	counters_free(&after);
	free(res);
	return r;
}

/* ---- store ----------------------------------------------------------- */

static char *arm_settings_json(const struct probe_arm *a)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	for (int i = 0; i < a->nset; i++)
		cJSON_AddStringToObject(o, a->set[i].name, a->set[i].value);
	if (a->zram)
		cJSON_AddStringToObject(o, "swap", "zram");
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static int store_arms(struct engine *E, struct st_err *e)
{
	for (int i = 0; i < E->c->narms; i++) {
		const struct probe_arm *a = &E->c->arms[i];
		sqlite3_stmt *stmt;
		char *set = arm_settings_json(a);
		int r;

		if (!set)
			return err_set(e, -ENOMEM, "out of memory");
		r = store_prepare(E->st,
			"INSERT INTO arms (run_id, name, settings, emulated, note) VALUES (?1, ?2, ?3, ?4, ?5)",
			&stmt, e);
		if (r == 0) {
			sqlite3_bind_int64(stmt, 1, E->r->run_id);
			sqlite3_bind_text(stmt, 2, a->name, -1, SQLITE_STATIC);
			sqlite3_bind_text(stmt, 3, set, -1, SQLITE_STATIC);
			sqlite3_bind_int(stmt, 4, a->emulated);
			if (a->note[0])
				sqlite3_bind_text(stmt, 5, a->note, -1, SQLITE_STATIC);
			r = store_step_done(E->st, stmt, e);
			sqlite3_finalize(stmt);
			E->arm_ids[i] = sqlite3_last_insert_rowid(E->st->db);
		}
		cJSON_free(set);
		if (r < 0)
			return r;
	}
	return 0;
}

static int store_trial(struct engine *E, const struct probe_trial *t, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int64_t id;
	int r;

	if (t->arm < 0)
		return 0;
	if ((r = store_exec(E->st, "BEGIN IMMEDIATE", e)) < 0)
		return r;
	r = store_prepare(E->st,
		"INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value, note)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &stmt, e);
	if (r == 0) {
		sqlite3_bind_int64(stmt, 1, E->r->run_id);
		sqlite3_bind_int64(stmt, 2, E->arm_ids[t->arm]);
		sqlite3_bind_int(stmt, 3, (int)t->round);
		sqlite3_bind_int(stmt, 4, (int)t->seq);
		sqlite3_bind_int(stmt, 5, t->warmup);
		sqlite3_bind_text(stmt, 6, probe_trial_status_name(t->status), -1, SQLITE_STATIC);
		if (isfinite(t->primary))
			sqlite3_bind_double(stmt, 7, t->primary);
		if (t->note[0])
			sqlite3_bind_text(stmt, 8, t->note, -1, SQLITE_STATIC);
		r = store_step_done(E->st, stmt, e);
		sqlite3_finalize(stmt);
	}
	id = sqlite3_last_insert_rowid(E->st->db);
	if (r == 0)
		r = store_prepare(E->st, "INSERT INTO metrics (trial_id, key, value) VALUES (?1, ?2, ?3)",
				  &stmt, e);
	if (r == 0) {
		for (int m = 0; m < PM_COUNT && r == 0; m++) {
			if (!t->have[m] || !isfinite(t->v[m]))
				continue;
			sqlite3_reset(stmt);
			sqlite3_bind_int64(stmt, 1, id);
			sqlite3_bind_text(stmt, 2, probe_metric_defs[m].key, -1, SQLITE_STATIC);
			sqlite3_bind_double(stmt, 3, t->v[m]);
			r = store_step_done(E->st, stmt, e);
		}
		if (r == 0 && t->duration_s > 0) {
			sqlite3_reset(stmt);
			sqlite3_bind_int64(stmt, 1, id);
			sqlite3_bind_text(stmt, 2, "trial_s", -1, SQLITE_STATIC);
			sqlite3_bind_double(stmt, 3, t->duration_s);
			r = store_step_done(E->st, stmt, e);
		}
		sqlite3_finalize(stmt);
	}
	if (r == 0)
		return store_exec(E->st, "COMMIT", e);
	store_exec(E->st, "ROLLBACK", NULL);
	return r;
}

/* ---- summary and verdict --------------------------------------------- */

static const struct { enum verdict_secondary s; enum probe_metric m; } secondary_map[] = {
	{ VERDICT_SEC_ZSWPIN_PAGES, PM_ZSWPIN },
	{ VERDICT_SEC_ZSWPOUT_PAGES, PM_ZSWPOUT },
	{ VERDICT_SEC_WASTED_RA_PAGES, PM_RA_WASTED },
	{ VERDICT_SEC_CPU_NS_PER_OP, PM_CPU_NS_PER_OP },
	{ VERDICT_SEC_MAJOR_FAULTS, PM_PGMAJFAULT },
	{ VERDICT_SEC_PSI_SOME_US, PM_PSI_SOME_US },
};

static void verdict_input_build(const struct probe_config *c, int baseline,
				const struct probe_result *r, struct verdict_input *in)
{
	memset(in, 0, sizeof(*in));
	switch (c->primary) {
	case PROBE_PRIMARY_THROUGHPUT:
		in->metric = VERDICT_METRIC_THROUGHPUT;
		snprintf(in->metric_name, sizeof(in->metric_name), "throughput");
		break;
	case PROBE_PRIMARY_WALL:
		in->metric = VERDICT_METRIC_WALL_TIME;
		snprintf(in->metric_name, sizeof(in->metric_name), "wall time");
		break;
	case PROBE_PRIMARY_METRIC:
		in->metric = c->metric_higher_better ? VERDICT_METRIC_HIGHER_BETTER :
						       VERDICT_METRIC_LOWER_BETTER;
		snprintf(in->metric_name, sizeof(in->metric_name), "the command's metric");
		break;
	}
	in->n_arms = (size_t)c->narms;
	for (int i = 0; i < c->narms && i < VERDICT_ARMS_MAX; i++) {
		struct verdict_arm *va = &in->arms[i];

		snprintf(va->name, sizeof(va->name), "%s", c->arms[i].name);
		va->is_baseline = i == baseline;
		for (size_t s = 0; s < sizeof(secondary_map) / sizeof(secondary_map[0]); s++)
			va->has_secondary[secondary_map[s].s] = true;
		for (size_t k = 0; k < r->ntrials; k++) {
			const struct probe_trial *t = &r->trials[k];

			if (t->arm != i || t->warmup)
				continue;
			if (t->status == PROBE_TRIAL_OOM) {
				va->n_oom_killed++;
				continue;
			}
			if (t->status != PROBE_TRIAL_OK || va->n_trials >= VERDICT_TRIALS_MAX)
				continue;
			va->primary[va->n_trials] = t->primary;
			for (size_t s = 0; s < sizeof(secondary_map) / sizeof(secondary_map[0]); s++) {
				enum probe_metric m = secondary_map[s].m;

				if (t->have[m] && isfinite(t->v[m]))
					va->secondary[secondary_map[s].s][va->n_trials] = t->v[m];
				else
					va->has_secondary[secondary_map[s].s] = false;
			}
			va->n_trials++;
		}
	}
}

void probe_summarize(const struct probe_config *c, int baseline, struct probe_result *r)
{
	struct verdict_input *in = malloc(sizeof(*in));
	double *x = malloc((r->ntrials + 1) * sizeof(double));

	memset(r->summary, 0, sizeof(r->summary));
	r->have_verdict = false;
	if (!in || !x) {
		free(in);
		free(x);
		return;
	}
	for (int i = 0; i < c->narms; i++) {
		struct probe_arm_summary *s = &r->summary[i];
		size_t n = 0;

		for (size_t k = 0; k < r->ntrials; k++) {
			const struct probe_trial *t = &r->trials[k];

			if (t->arm != i || t->warmup || t->status == PROBE_TRIAL_INTERRUPTED)
				continue;
			s->trials++;
			if (t->status == PROBE_TRIAL_OK) {
				s->completed++;
				x[n++] = t->primary;
			} else if (t->status == PROBE_TRIAL_OOM) {
				s->oom++;
			} else {
				s->failed++;
			}
		}
		probe_stat_compute(x, n, 0.95, &s->primary);
		for (int m = 0; m < PM_COUNT; m++) {
			n = 0;
			for (size_t k = 0; k < r->ntrials; k++) {
				const struct probe_trial *t = &r->trials[k];

				if (t->arm == i && !t->warmup && t->status == PROBE_TRIAL_OK &&
				    t->have[m] && isfinite(t->v[m]))
					x[n++] = t->v[m];
			}
			s->have[m] = n > 0;
			probe_stat_compute(x, n, 0.95, &s->m[m]);
		}
	}
	verdict_input_build(c, baseline, r, in);
	r->have_verdict = c->narms >= 2 && verdict_compute(in, NULL, &r->verdict, NULL) == 0;
	free(in);
	free(x);
}

static bool decisive_now(const struct probe_config *c, int baseline, const struct probe_result *r)
{
	struct verdict_input *in = malloc(sizeof(*in));
	bool d = false;

	if (!in)
		return false;
	verdict_input_build(c, baseline, r, in);
	if (verdict_is_decisive(in, NULL, &d, NULL) < 0)
		d = false;
	free(in);
	return d;
}

/* ---- setup, detection, teardown -------------------------------------- */

static int read_machine_id(char *buf, size_t len)
{
	FILE *f = fopen("/etc/machine-id", "re");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, len, "unknown");
	return 0;
}

static int engine_setup(struct engine *E, struct st_err *e)
{
	const struct probe_plan *p = E->p;
	struct probe_result *r = E->r;
	int rc;

	progress(E, PROBE_PHASE_SETUP, NULL, 0, false, "setting up");
	if (p->mount_debugfs) {
		struct st_err e1 = {0};

		/* without debugfs the pool is checked through meminfo: not fatal */
		if (scratch_debugfs_mount(E->h, journal_hooks(&E->j), &r->debugfs_mounted, &e1) < 0)
			snprintf(r->bypass_evidence, sizeof(r->bypass_evidence), "%s", "");
	}
	if (p->enable_zswap) {
		rc = journal_set(&E->j, "zswap.enabled", "Y", true, NULL, 0, e);
		if (rc < 0)
			return err_prefix(e, "cannot enable zswap for the probe");
		r->zswap_enabled_by_probe = true;
	}
	if (!p->have_host_swap) {
		rc = scratch_swap_create_loop(&E->swap, E->h, journal_hooks(&E->j), E->c->scratch_dir,
					      E->c->swap_size_bytes, e);
		if (rc < 0)
			return rc;
		E->have_swap = true;
		snprintf(r->swap_kind, sizeof(r->swap_kind), "scratch-loop");
		snprintf(r->swap_device, sizeof(r->swap_device), "%s", E->swap.dev);
		snprintf(r->swap_file, sizeof(r->swap_file), "%s", E->swap.file);
		r->swap_bytes = E->swap.size_bytes;
		r->swap_direct_io = E->swap.direct_io;
	} else {
		snprintf(r->swap_kind, sizeof(r->swap_kind), "host");
		snprintf(r->swap_device, sizeof(r->swap_device), "%s", p->host_swap);
	}
	{
		struct host_facts f;
		struct st_err e1 = {0};

		if (facts_collect(E->h, &f, &e1) == 0)
			snprintf(r->readahead, sizeof(r->readahead), "%s",
				 f.ra_algo == RA_VMA ? "vma" : "cluster");
		facts_free(&f);
	}
	return 0;
}

static int engine_zram(struct engine *E, struct st_err *e)
{
	int rc = scratch_swap_create_zram(&E->zram, E->h, journal_hooks(&E->j), E->c->swap_size_bytes, e);

	if (rc < 0)
		return rc;
	E->have_zram = true;
	return scratch_swap_off(&E->zram, e);
}

static int trials_push(struct probe_result *r, const struct probe_trial *t);

/* The detection trial: sequential sweep, page-cluster 3. */
static int engine_detect(struct engine *E, struct probe_bypass_check *out, struct st_err *e)
{
	struct probe_config *dc = malloc(sizeof(*dc));
	struct probe_arm a;
	struct probe_trial t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!dc)
		return err_set(e, -ENOMEM, "out of memory");
	*dc = *E->c;
	dc->workload = workload_find("anon-seq");
	workload_params_init(&dc->wp);
	dc->wp.working_set_bytes = 64 * MiB;
	dc->wp.ops = 64 * MiB / (uint64_t)sysconf(_SC_PAGESIZE);
	dc->wp.max_duration_s = 30;
	dc->duration_s = 30;
	dc->memcg_limit_bytes = 32 * MiB;
	dc->limit_mode = MEMCG_LIMIT_MAX;
	dc->primary = PROBE_PRIMARY_THROUGHPUT;
	probe_arm_builtin("pc3", &a);
	memset(&t, 0, sizeof(t));
	t.arm = -1;
	t.seq = ++E->seq;
	progress(E, PROBE_PHASE_DETECT, NULL, 0, false,
		 "checking whether the kernel bypasses readahead for zswap");
	rc = dc->workload ? run_trial(E, &a, dc, &t, e) :
			    err_set(e, -ENOENT, "the anon-seq workload is missing from this build");
	free(dc);
	if (rc < 0)
		return rc;
	if (trials_push(E->r, &t) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	out->swap_ra = (uint64_t)t.v[PM_SWAP_RA];
	out->swap_ra_hit = (uint64_t)t.v[PM_SWAP_RA_HIT];
	out->zswpin = (uint64_t)t.v[PM_ZSWPIN];
	out->conclusive = t.status == PROBE_TRIAL_OK && t.have[PM_ZSWPIN] && out->zswpin >= 256;
	out->native = out->conclusive && out->swap_ra * 20 < out->zswpin;
	if (!out->conclusive)
		snprintf(out->evidence, sizeof(out->evidence),
			 "inconclusive: the check swapped in %llu pages from zswap (%s%s)",
			 (unsigned long long)out->zswpin, probe_trial_status_name(t.status),
			 t.note[0] ? ": " : "");
	else
		snprintf(out->evidence, sizeof(out->evidence),
			 "a sequential swap-in of %llu pages from zswap with page-cluster=3 %s swap_ra by %llu (%llu hits): %s",
			 (unsigned long long)out->zswpin, out->swap_ra ? "raised" : "left",
			 (unsigned long long)out->swap_ra, (unsigned long long)out->swap_ra_hit,
			 out->native ? "the kernel skips readahead for zswap" : "no native bypass");
	if (!out->conclusive && t.note[0]) {
		size_t n = strlen(out->evidence);

		snprintf(out->evidence + n - 1, sizeof(out->evidence) - n + 1, "%s)", t.note);
	}
	return 0;
}

static void settle_bypass_arms(struct engine *E, const struct probe_bypass_check *chk)
{
	struct probe_result *r = E->r;

	r->bypass = chk->native ? PROBE_BYPASS_NATIVE : PROBE_BYPASS_EMULATED;
	r->bypass_mode = E->c->bypass_mode;
	snprintf(r->bypass_evidence, sizeof(r->bypass_evidence), "%s", chk->evidence);
	for (int i = 0; i < E->c->narms; i++) {
		struct probe_arm *a = &E->c->arms[i];

		if (!a->bypass)
			continue;
		if (chk->native) {
			a->emulated = false;
			arm_set(a, "page-cluster", "3");
			snprintf(a->note, sizeof(a->note),
				 "native: this kernel skips readahead for zswap swap-in (page-cluster=3 kept for other swap)");
		} else if (E->c->bypass_mode == PROBE_BYPASS_ZRAM && E->have_zram) {
			a->emulated = true;
			a->zram = true;
			arm_set(a, "page-cluster", "3");
			snprintf(a->note, sizeof(a->note),
				 "emulated: zswap in front of zram, a synchronous device for which the kernel skips swap readahead");
		} else {
			a->emulated = true;
			arm_set(a, "page-cluster", "0");
			snprintf(a->note, sizeof(a->note),
				 "emulated by page-cluster=0: no native zswap readahead bypass in this kernel");
		}
	}
}

static void engine_teardown(struct engine *E, struct st_err *e)
{
	struct probe_result *r = E->r;
	struct st_err e1 = {0};
	int first = 0, rc;

	progress(E, PROBE_PHASE_TEARDOWN, NULL, 0, false, "restoring the host");
	if (E->have_zram && (rc = scratch_swap_destroy(&E->zram, &e1)) < 0 && !first)
		first = rc;
	if (E->have_swap && (rc = scratch_swap_destroy(&E->swap, &e1)) < 0 && !first)
		first = rc;
	if (r->debugfs_mounted && (rc = scratch_debugfs_umount(E->h, journal_hooks(&E->j), &e1)) < 0 && !first)
		first = rc;
	/* settings, and anything the steps above left pending */
	if (E->journaled) {
		rc = journal_restore(&E->j, &r->restored, &e1);
		if (rc < 0 && !first)
			first = rc;
	}
	if (first) {
		snprintf(r->restore_error, sizeof(r->restore_error), "%s", e1.msg);
		err_set(e, first, "%s", e1.msg);
	}
}

/* ---- running --------------------------------------------------------- */

static int trials_push(struct probe_result *r, const struct probe_trial *t)
{
	if (r->ntrials == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct probe_trial *v = realloc(r->trials, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->trials = v;
		r->cap = cap;
	}
	r->trials[r->ntrials++] = *t;
	return 0;
}

static cJSON *params_json(const struct probe_config *c, const struct probe_plan *p);

static int run_round(struct engine *E, unsigned round, bool warmup, struct st_err *e)
{
	int order[PROBE_ARMS_MAX];

	probe_round_order(E->c->seed, round, E->c->narms, order);
	for (int k = 0; k < E->c->narms; k++) {
		struct probe_arm *a = &E->c->arms[order[k]];
		struct probe_trial t;
		int rc;

		if (stopped(E))
			return 0;
		memset(&t, 0, sizeof(t));
		t.arm = order[k];
		t.round = round;
		t.warmup = warmup;
		t.seq = ++E->seq;
		progress(E, PROBE_PHASE_TRIAL, a->name, round, warmup, NULL);
		rc = run_trial(E, a, E->c, &t, e);
		if (rc < 0)
			return rc;
		if (trials_push(E->r, &t) < 0)
			return err_set(e, -ENOMEM, "out of memory");
		if (t.status != PROBE_TRIAL_INTERRUPTED) {
			E->trial_s_sum += t.duration_s;
			E->trial_s_n++;
		}
		if ((rc = store_trial(E, &t, e)) < 0)
			return rc;
	}
	return 0;
}

int probe_run(const struct host *h, struct store *st, struct probe_config *c,
	      const struct probe_plan *p, struct probe_result *r, struct st_err *e)
{
	struct engine E;
	struct host_facts *f = calloc(1, sizeof(*f));
	struct st_err e_run = {0};
	char mid[128], *params = NULL;
	double t0 = now_s();
	int rc = 0;

	memset(r, 0, sizeof(*r));
	memset(&E, 0, sizeof(E));
	r->status = "failed";
	E.h = h;
	E.st = st;
	E.c = c;
	E.p = p;
	E.r = r;
	E.planned_trials = p->trials;
	if (!f)
		return err_set(e, -ENOMEM, "out of memory");
	if (!h->live) {
		free(f);
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "probe runs workloads on the running kernel: it cannot run under --sysroot (use --dry-run)");
	}

	rc = facts_collect(h, f, e);
	if (rc == 0) {
		snprintf(r->kernel, sizeof(r->kernel), "%s", f->kernel);
		snprintf(r->hostname, sizeof(r->hostname), "%s", f->hostname);
		snprintf(r->zswap_compressor, sizeof(r->zswap_compressor), "%s", f->zswap_compressor);
		r->memcg_version = p->memcg_version;
		read_machine_id(mid, sizeof(mid));
		rc = store_register_host(st, mid, f->hostname, f->kernel, e);
	}
	if (rc == 0) {
		cJSON *pj = params_json(c, p);

		params = pj ? cJSON_PrintUnformatted(pj) : NULL;
		cJSON_Delete(pj);
		rc = store_run_begin(st, "probe", params, &r->run_id, e);
		cJSON_free(params);
	}
	if (rc == 0)
		rc = store_snapshot_save(st, r->run_id, "before probe", &f->settings, NULL, e);
	facts_free(f);
	free(f);
	if (rc < 0)
		return rc;
	journal_begin(&E.j, st, h, r->run_id, e);
	E.journaled = true;

	rc = engine_setup(&E, &e_run);
	if (rc == 0 && p->detect_bypass && !stopped(&E)) {
		struct probe_bypass_check chk;

		if (c->bypass_mode == PROBE_BYPASS_ZRAM)
			rc = engine_zram(&E, &e_run);
		if (rc == 0)
			rc = engine_detect(&E, &chk, &e_run);
		if (rc == 0)
			settle_bypass_arms(&E, &chk);
	}
	if (rc == 0)
		rc = store_arms(&E, &e_run);
	if (rc == 0 && c->warmup)
		rc = run_round(&E, 0, true, &e_run);
	for (unsigned round = 1; rc == 0 && !stopped(&E); round++) {
		if (round > c->reps && !c->adaptive)
			break;
		if (round > c->reps) {
			probe_summarize(c, c->baseline, r);
			if (decisive_now(c, c->baseline, r)) {
				r->adaptive_stopped = true;
				break;
			}
			if (round > c->max_reps)
				break;
			E.planned_trials += (unsigned)c->narms;
		}
		rc = run_round(&E, round, false, &e_run);
		if (rc == 0 && !stopped(&E))
			r->rounds = round;
	}

	engine_teardown(&E, rc < 0 ? NULL : &e_run);
	probe_summarize(c, c->baseline, r);
	r->elapsed_s = now_s() - t0;
	if (c->stop && *c->stop) {
		r->status = "interrupted";
		r->signal = (int)*c->stop;
	} else if (rc < 0 || r->restore_error[0]) {
		r->status = "failed";
		snprintf(r->error, sizeof(r->error), "%s", e_run.msg);
	} else {
		r->status = "ok";
	}
	{
		cJSON *doc = probe_result_to_json(c, p, r);
		char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
		struct st_err e2 = {0};

		store_run_end(st, r->run_id, r->status, text, &e2);
		cJSON_free(text);
		cJSON_Delete(doc);
	}
	if (!strcmp(r->status, "failed")) {
		err_set(e, rc < 0 ? rc : -EIO, "%s", e_run.msg);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

void probe_result_free(struct probe_result *r)
{
	free(r->trials);
	r->trials = NULL;
	r->ntrials = r->cap = 0;
}

/* ---- JSON ------------------------------------------------------------ */

static void add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *stat_json(const struct probe_stat *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "n", (double)s->n);
	add_num(o, "mean", s->mean);
	add_num(o, "stddev", s->stddev);
	add_num(o, "ci95_low", s->ci_low);
	add_num(o, "ci95_high", s->ci_high);
	return o;
}

static const char *primary_key(const struct probe_config *c)
{
	return probe_metric_defs[c->primary == PROBE_PRIMARY_WALL ? PM_WALL_S :
				 c->primary == PROBE_PRIMARY_METRIC ? PM_CMD_METRIC :
				 PM_THROUGHPUT].key;
}

static cJSON *primary_json(const struct probe_config *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "key", primary_key(c));
	switch (c->primary) {
	case PROBE_PRIMARY_THROUGHPUT:
		cJSON_AddStringToObject(o, "name", "throughput");
		cJSON_AddStringToObject(o, "unit", "ops/s");
		cJSON_AddBoolToObject(o, "higher_is_better", true);
		break;
	case PROBE_PRIMARY_WALL:
		cJSON_AddStringToObject(o, "name", "wall time");
		cJSON_AddStringToObject(o, "unit", "s");
		cJSON_AddBoolToObject(o, "higher_is_better", false);
		break;
	case PROBE_PRIMARY_METRIC:
		cJSON_AddStringToObject(o, "name", "command metric");
		cJSON_AddStringToObject(o, "unit", "");
		cJSON_AddBoolToObject(o, "higher_is_better", c->metric_higher_better);
		break;
	}
	return o;
}

static cJSON *params_json(const struct probe_config *c, const struct probe_plan *p)
{
	cJSON *root = cJSON_CreateObject(), *w, *o, *a;

	w = cJSON_AddObjectToObject(root, "workload");
	cJSON_AddStringToObject(w, "name", c->workload ? c->workload->name : "");
	if (is_cmd(c)) {
		a = cJSON_AddArrayToObject(w, "argv");
		for (char *const *v = c->wp.argv; v && *v; v++)
			cJSON_AddItemToArray(a, cJSON_CreateString(*v));
		if (c->wp.metric_regex[0])
			cJSON_AddStringToObject(w, "metric_regex", c->wp.metric_regex);
		if (c->wp.run_as_uid != (uid_t)-1)
			cJSON_AddNumberToObject(w, "run_as_uid", (double)c->wp.run_as_uid);
	} else {
		cJSON_AddNumberToObject(w, "working_set_bytes", (double)c->wp.working_set_bytes);
		cJSON_AddNumberToObject(w, "ops", c->workload ? (double)workload_ops(c->workload, &c->wp) : 0);
		cJSON_AddNumberToObject(w, "seed", (double)c->wp.seed);
		if (c->workload && c->workload->pattern == WORKLOAD_PAT_ZIPF)
			cJSON_AddNumberToObject(w, "zipf_theta", c->wp.zipf_theta ? c->wp.zipf_theta :
						WORKLOAD_DEFAULT_ZIPF_THETA);
		if (c->workload && c->workload->pattern == WORKLOAD_PAT_STRIDE)
			cJSON_AddNumberToObject(w, "stride_pages", (double)(c->wp.stride_pages ? c->wp.stride_pages :
						WORKLOAD_DEFAULT_STRIDE_PAGES));
		if (c->workload && c->workload->pattern == WORKLOAD_PAT_RUNS)
			cJSON_AddNumberToObject(w, "run_pages", (double)(c->wp.run_pages ? c->wp.run_pages :
						WORKLOAD_DEFAULT_RUN_PAGES));
		if (c->workload && c->workload->pattern == WORKLOAD_PAT_FILE_MIX)
			cJSON_AddNumberToObject(w, "file_bytes", (double)(c->wp.file_bytes ? c->wp.file_bytes :
						c->wp.working_set_bytes / 2));
	}
	o = cJSON_AddObjectToObject(root, "memcg");
	cJSON_AddNumberToObject(o, "version", p->memcg_version);
	cJSON_AddNumberToObject(o, "limit_bytes", (double)c->memcg_limit_bytes);
	cJSON_AddStringToObject(o, "limit_mode", p->memcg_version == 1 ? "limit_in_bytes" :
				c->limit_mode == MEMCG_LIMIT_HIGH ? "high" : "max");
	o = cJSON_AddObjectToObject(root, "method");
	cJSON_AddNumberToObject(o, "reps", c->reps);
	cJSON_AddBoolToObject(o, "warmup", c->warmup);
	cJSON_AddBoolToObject(o, "adaptive", c->adaptive);
	if (c->adaptive)
		cJSON_AddNumberToObject(o, "max_reps", c->max_reps);
	cJSON_AddNumberToObject(o, "seed", (double)c->seed);
	cJSON_AddNumberToObject(o, "duration_cap_s", c->duration_s);
	a = cJSON_AddArrayToObject(root, "arm_names");
	for (int i = 0; i < c->narms; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->arms[i].name));
	cJSON_AddStringToObject(root, "baseline", c->arms[p->baseline].name);
	return root;
}

static cJSON *trial_json(const struct probe_config *c, const struct probe_trial *t)
{
	cJSON *o = cJSON_CreateObject(), *m;

	cJSON_AddStringToObject(o, "arm", t->arm >= 0 ? c->arms[t->arm].name : "detect");
	cJSON_AddNumberToObject(o, "round", t->round);
	cJSON_AddNumberToObject(o, "seq", t->seq);
	cJSON_AddBoolToObject(o, "warmup", t->warmup);
	cJSON_AddStringToObject(o, "status", probe_trial_status_name(t->status));
	add_num(o, "primary", t->primary);
	add_num(o, "duration_s", t->duration_s);
	if (t->note[0])
		cJSON_AddStringToObject(o, "note", t->note);
	else
		cJSON_AddNullToObject(o, "note");
	m = cJSON_AddObjectToObject(o, "metrics");
	for (int k = 0; k < PM_COUNT; k++)
		if (t->have[k])
			add_num(m, probe_metric_defs[k].key, t->v[k]);
	return o;
}

static const char *bypass_name(const struct probe_result *r)
{
	switch (r->bypass) {
	case PROBE_BYPASS_NATIVE: return "native";
	case PROBE_BYPASS_EMULATED:
		return r->bypass_mode == PROBE_BYPASS_ZRAM ? "emulated-zram" : "emulated-pc0";
	default: return NULL;
	}
}

cJSON *probe_result_to_json(const struct probe_config *c, const struct probe_plan *p,
			    const struct probe_result *r)
{
	cJSON *root = cJSON_CreateObject(), *o, *a, *params;

	cJSON_AddStringToObject(root, "schema", PROBE_SCHEMA);
	cJSON_AddNumberToObject(root, "run_id", (double)r->run_id);
	cJSON_AddStringToObject(root, "status", r->status ? r->status : "failed");
	if (r->signal)
		cJSON_AddNumberToObject(root, "signal", r->signal);
	if (r->error[0])
		cJSON_AddStringToObject(root, "error", r->error);
	add_num(root, "elapsed_s", r->elapsed_s);

	o = cJSON_AddObjectToObject(root, "host");
	cJSON_AddStringToObject(o, "kernel", r->kernel);
	cJSON_AddStringToObject(o, "hostname", r->hostname);
	cJSON_AddStringToObject(o, "readahead", r->readahead[0] ? r->readahead : "unknown");
	cJSON_AddStringToObject(o, "zswap_compressor", r->zswap_compressor);
	cJSON_AddBoolToObject(o, "zswap_enabled_by_probe", r->zswap_enabled_by_probe);
	cJSON_AddBoolToObject(o, "debugfs_mounted_by_probe", r->debugfs_mounted);
	cJSON_AddStringToObject(o, "cpu_counters", r->cpu_counters[0] ? r->cpu_counters : "not used");
	a = cJSON_AddObjectToObject(o, "swap");
	cJSON_AddStringToObject(a, "kind", r->swap_kind[0] ? r->swap_kind : "none");
	cJSON_AddStringToObject(a, "device", r->swap_device);
	if (r->swap_file[0]) {
		cJSON_AddStringToObject(a, "backing_file", r->swap_file);
		cJSON_AddNumberToObject(a, "size_bytes", (double)r->swap_bytes);
		cJSON_AddBoolToObject(a, "direct_io", r->swap_direct_io);
	}

	params = params_json(c, p);
	cJSON_AddItemToObject(root, "workload", cJSON_DetachItemFromObject(params, "workload"));
	cJSON_AddItemToObject(root, "memcg", cJSON_DetachItemFromObject(params, "memcg"));
	o = cJSON_DetachItemFromObject(params, "method");
	cJSON_AddNumberToObject(o, "rounds", r->rounds);
	cJSON_AddBoolToObject(o, "adaptive_stopped", r->adaptive_stopped);
	cJSON_AddItemToObject(root, "method", o);
	cJSON_Delete(params);
	cJSON_AddItemToObject(root, "primary_metric", primary_json(c));

	o = cJSON_AddObjectToObject(root, "bypass");
	if (bypass_name(r))
		cJSON_AddStringToObject(o, "mode", bypass_name(r));
	else
		cJSON_AddNullToObject(o, "mode");
	cJSON_AddBoolToObject(o, "native", r->bypass == PROBE_BYPASS_NATIVE);
	if (r->bypass_evidence[0])
		cJSON_AddStringToObject(o, "evidence", r->bypass_evidence);
	else
		cJSON_AddNullToObject(o, "evidence");

	a = cJSON_AddArrayToObject(root, "arms");
	for (int i = 0; i < c->narms; i++) {
		const struct probe_arm *arm = &c->arms[i];
		const struct probe_arm_summary *s = &r->summary[i];
		cJSON *ao = cJSON_CreateObject(), *so, *mo;

		cJSON_AddStringToObject(ao, "name", arm->name);
		cJSON_AddBoolToObject(ao, "baseline", i == c->baseline);
		so = cJSON_AddObjectToObject(ao, "settings");
		for (int k = 0; k < arm->nset; k++)
			cJSON_AddStringToObject(so, arm->set[k].name, arm->set[k].value);
		if (arm->zram)
			cJSON_AddStringToObject(so, "swap", "zram");
		cJSON_AddBoolToObject(ao, "emulated", arm->emulated);
		if (arm->note[0])
			cJSON_AddStringToObject(ao, "note", arm->note);
		else
			cJSON_AddNullToObject(ao, "note");
		cJSON_AddNumberToObject(ao, "trials", s->trials);
		cJSON_AddNumberToObject(ao, "completed", s->completed);
		cJSON_AddNumberToObject(ao, "oom_kills", s->oom);
		cJSON_AddNumberToObject(ao, "failed", s->failed);
		cJSON_AddItemToObject(ao, "primary", stat_json(&s->primary));
		mo = cJSON_AddObjectToObject(ao, "metrics");
		for (int m = 0; m < PM_COUNT; m++)
			if (s->have[m])
				cJSON_AddItemToObject(mo, probe_metric_defs[m].key, stat_json(&s->m[m]));
		if (r->have_verdict) {
			const struct verdict_arm_result *vr = &r->verdict.arms[i];
			cJSON *vo = cJSON_AddObjectToObject(ao, "comparison");

			cJSON_AddStringToObject(vo, "status", verdict_arm_status_name(vr->status));
			add_num(vo, "effect_pct", vr->compared ? vr->effect_pct : NAN);
			add_num(vo, "ci95_low_pct", vr->compared ? vr->ci_low_pct : NAN);
			add_num(vo, "ci95_high_pct", vr->compared ? vr->ci_high_pct : NAN);
			add_num(vo, "p_welch", vr->compared ? vr->p_welch : NAN);
			cJSON_AddBoolToObject(vo, "significant", vr->significant);
		}
		cJSON_AddItemToArray(a, ao);
	}

	o = cJSON_AddObjectToObject(root, "verdict");
	if (r->have_verdict) {
		cJSON *rs;

		cJSON_AddStringToObject(o, "kind", verdict_kind_name(r->verdict.kind));
		if (r->verdict.chosen >= 0 && r->verdict.chosen < c->narms)
			cJSON_AddStringToObject(o, "arm", c->arms[r->verdict.chosen].name);
		else
			cJSON_AddNullToObject(o, "arm");
		cJSON_AddStringToObject(o, "confidence", verdict_confidence_name(r->verdict.confidence));
		cJSON_AddBoolToObject(o, "decisive", r->verdict.decisive);
		rs = cJSON_AddArrayToObject(o, "reasons");
		for (size_t k = 0; k < r->verdict.n_reasons; k++)
			cJSON_AddItemToArray(rs, cJSON_CreateString(r->verdict.reasons[k]));
	} else {
		cJSON_AddNullToObject(o, "kind");
	}

	a = cJSON_AddArrayToObject(root, "trials");
	for (size_t k = 0; k < r->ntrials; k++)
		cJSON_AddItemToArray(a, trial_json(c, &r->trials[k]));

	o = cJSON_AddObjectToObject(root, "restore");
	cJSON_AddNumberToObject(o, "changes_undone", r->restored);
	cJSON_AddBoolToObject(o, "complete", !r->restore_error[0]);
	if (r->restore_error[0])
		cJSON_AddStringToObject(o, "error", r->restore_error);
	return root;
}

/* ---- standalone bypass detection ------------------------------------- */

int probe_detect_native_bypass(const struct host *h, struct store *st,
			       struct probe_bypass_check *out, struct st_err *e)
{
	struct probe_config *c = malloc(sizeof(*c));
	struct probe_plan *p = malloc(sizeof(*p));
	struct probe_result *r = calloc(1, sizeof(*r));
	struct engine E;
	struct st_err e1 = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c || !p || !r) {
		free(c);
		free(p);
		free(r);
		return err_set(e, -ENOMEM, "out of memory");
	}
	probe_config_init(c);
	c->workload = workload_find("anon-seq");
	c->wp.working_set_bytes = 64 * MiB;
	c->memcg_limit_bytes = 32 * MiB;
	c->narms = 1;
	probe_arm_builtin("pc3", &c->arms[0]);
	rc = c->workload ? probe_plan(h, c, p, e) : err_set(e, -ENOENT, "no anon-seq workload");
	if (rc == 0 && !h->live)
		rc = err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED, "the bypass check runs on the live host only");
	if (rc == 0) {
		memset(&E, 0, sizeof(E));
		E.h = h;
		E.st = st;
		E.c = c;
		E.p = p;
		E.r = r;
		journal_begin(&E.j, st, h, 0, e);
		E.journaled = true;
		rc = engine_setup(&E, e);
		if (rc == 0)
			rc = engine_detect(&E, out, e);
		engine_teardown(&E, rc < 0 ? &e1 : e);
		if (rc == 0 && r->restore_error[0])
			rc = -EIO;
	}
	free(c);
	free(p);
	free(r);
	return rc;
}
