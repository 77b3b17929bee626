/*
 * doctor.c - the prerequisite checks of `swaptune doctor`, one function per
 * row of the checks[] table (see doctor.h). Paths in fix hints are built
 * from the host layer's HOST_* names so that this file never spells them.
 * Fix hints are host commands: a registered setting is changed with
 * `swaptune apply` (journaled, reversible); messages that name a file read
 * name it under the sysroot, as this process saw it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/doctor.h"
#include "swaptune/vocab.h"

static void set(struct doctor_result *r, enum doctor_status s, const char *fix,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void set(struct doctor_result *r, enum doctor_status s, const char *fix,
		const char *fmt, ...)
{
	va_list ap;

	r->status = s;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
	snprintf(r->fix, sizeof(r->fix), "%s", fix ? fix : "");
}

/* rel under the sysroot as this process sees it (the live host: "/" then rel). */
static const char *at(const struct doctor_env *env, const char *rel, char *buf, size_t len)
{
	if (host_path(env->h, rel, buf, len) < 0)
		snprintf(buf, len, "/%s", rel);
	return buf;
}

/*
 * The check's input could not be read (facts_collect_all()): n/a with the
 * reason. A required check cannot pass on a file it could not read.
 */
static bool unreadable(const struct doctor_env *env, struct doctor_result *r, const char *part,
		       bool required)
{
	const struct facts_problem *p = facts_problem(env->f, part);

	if (!p)
		return false;
	set(r, required ? DOCTOR_FAIL : DOCTOR_WARN,
	    env->h->live ? "the kernel file does not read as this kernel writes it: check it, and swaptune status" :
	    "the captured tree holds a file that does not parse: capture it again",
	    "n/a: %s", p->err.msg);
	return true;
}

static void check_root(const struct doctor_env *env, struct doctor_result *r)
{
	if (!env->h->live)
		set(r, DOCTOR_SKIPPED, NULL,
		    "the sysroot is a captured tree, not this host: run doctor on the host itself");
	else if (env->root)
		set(r, DOCTOR_OK, NULL, "running as root");
	else
		set(r, DOCTOR_FAIL, "run it as root: sudo swaptune doctor",
		    "not root: probing changes kernel settings and makes cgroups");
}

static void check_page_cluster(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;

	if (unreadable(env, r, "page-cluster", true))
		return;
	if (f->have_page_cluster && f->page_cluster == 0)
		set(r, DOCTOR_OK, NULL, "0 (no swap readahead)");
	else if (f->have_page_cluster)
		set(r, DOCTOR_OK, NULL, "%d (up to %d pages per swap-in)", f->page_cluster,
		    1 << (f->page_cluster > 30 ? 30 : f->page_cluster));
	else
		set(r, DOCTOR_FAIL, "use a kernel with swap support (CONFIG_SWAP)",
		    "vm.page-cluster is not available: the probe's arms cannot be set");
}

/* The block device under the root filesystem ("vda"), or "" if unknown. */
static void root_blockdev(const struct host *h, char *out, size_t len)
{
	char *buf = malloc(HOST_MOUNTS_MAX), *p, *nl;

	out[0] = '\0';
	if (!buf || host_read(h, HOST_MOUNTS, buf, HOST_MOUNTS_MAX, NULL) < 0) {
		free(buf);
		return;
	}
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		char dev[256], mnt[256];

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		/* the last mount on / wins, as in the kernel */
		if (sscanf(p, "%255s %255s", dev, mnt) == 2 && !strcmp(mnt, "/") &&
		    !strncmp(dev, "/dev/", 5))
			snprintf(out, len, "%s", strrchr(dev, '/') + 1);
	}
	free(buf);
}

static void check_swap(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;
	char dev[64], where[PATH_MAX];
	int rot = -1;

	if (unreadable(env, r, "swaps", true))
		return;
	if (f->nswaps > 0) {
		char list[160] = "";

		for (int i = 0; i < f->nswaps && i < 3; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", f->swaps[i].path);
		int zram = 0;

		for (int i = 0; i < f->nswaps; i++)
			zram += f->swaps[i].zram;
		set(r, DOCTOR_OK, NULL, "%d swap device%s active: %s%s%s", f->nswaps,
		    f->nswaps == 1 ? "" : "s", list, f->nswaps > 3 ? ", ..." : "",
		    zram == f->nswaps ? " (zram skips swap readahead: page-cluster does not act on it)" : "");
		return;
	}
	if (host_exists(env->h, HOST_LOOP_CONTROL)) {
		set(r, DOCTOR_OK, NULL,
		    "no swap active; a probe makes a scratch swap on a loop device (non-rotational)");
		return;
	}
	/* loop as a module nothing loaded (no systemd static nodes): the probe loads it */
	if (host_module_state(env->h, "loop", "drivers/block/loop", where, sizeof(where)) ==
	    HOST_MOD_LOADABLE) {
		set(r, DOCTOR_OK, NULL,
		    "no swap active and loop is a module not loaded (/%s): a probe runs modprobe loop, "
		    "then makes a scratch swap on a loop device (non-rotational)", where);
		return;
	}
	if (host_exists(env->h, HOST_ZRAM_CONTROL) ||
	    host_exists(env->h, HOST_CLASS_BLOCK "/zram0")) {
		set(r, DOCTOR_OK, NULL, "no swap active; a probe makes a scratch swap on zram");
		return;
	}
	root_blockdev(env->h, dev, sizeof(dev));
	if (dev[0] && host_blockdev_rotational(env->h, dev, &rot) == 0 && rot == 0) {
		set(r, DOCTOR_OK, NULL,
		    "no swap active; a probe makes a scratch swap file on / (non-rotational %s)", dev);
		return;
	}
	if (rot == 1) {
		set(r, DOCTOR_WARN, "modprobe loop, or modprobe zram, for a non-rotational scratch swap",
		    "no swap active; a scratch swap file on / would sit on rotational %s, which forces cluster readahead",
		    dev);
		return;
	}
	set(r, DOCTOR_FAIL, "add a swap device (swapon), or modprobe loop or zram for a scratch swap",
	    "no swap active and no loop device, zram or known root device for a scratch swap");
}

static void check_zswap(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;
	char p[PATH_MAX];

	if (f->zswap_present)
		set(r, DOCTOR_OK, NULL, "built in, compressor %s",
		    f->zswap_compressor[0] ? f->zswap_compressor : "unknown");
	else
		set(r, DOCTOR_FAIL, "use a kernel built with CONFIG_ZSWAP=y",
		    "zswap is not in this kernel (no %s)", at(env, HOST_ZSWAP_PARAMS, p, sizeof(p)));
}

static void check_zswap_enabled(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;

	if (!f->zswap_present)
		set(r, DOCTOR_SKIPPED, NULL, "zswap is not in this kernel");
	else if (unreadable(env, r, "zswap.enabled", false))
		return;
	else if (f->zswap_enabled)
		set(r, DOCTOR_OK, NULL, "on");
	else
		set(r, DOCTOR_WARN,
		    "to swap to zswap all the time: " ADVISOR_APPLY " --persist zswap.enabled=Y "
		    "(" ADVISOR_APPLY_NET "; swaptune rollback undoes it)",
		    "off: this host does not swap to zswap now (a probe turns it on for its trials)");
}

static void check_debugfs(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;
	const char *fallback = f->zswap_meminfo ? "; pool size comes from meminfo Zswap/Zswapped" :
			       "; the pool is not measured";

	if (!f->zswap_present)
		set(r, DOCTOR_SKIPPED, NULL, "zswap is not in this kernel");
	else if (unreadable(env, r, "zswap-debugfs", false))
		return;
	else if (f->zswap_stats_available)
		set(r, DOCTOR_OK, NULL, "zswap counters readable (%zu files)", f->zswap_stats.n);
	else if (strstr(f->zswap_stats_reason, "not mounted"))
		set(r, DOCTOR_WARN, "mount -t debugfs none /" HOST_DEBUGFS,
		    "debugfs is not mounted: no zswap pool counters%s", fallback);
	else
		set(r, DOCTOR_WARN, "run as root for the debugfs zswap counters",
		    "%s%s", f->zswap_stats_reason, fallback);
}

static void check_memory_cgroup(const struct doctor_env *env, struct doctor_result *r)
{
	const struct st_cgroup_info *ci = &env->f->cgroup;
	char rel[PATH_MAX + 32], ctl[512], p[PATH_MAX];
	bool enabled = false;

	if (unreadable(env, r, "cgroups", true))
		return;
	if (!ci->memory_v1 && !ci->memory_v2) {
		set(r, DOCTOR_FAIL,
		    "mount the memory controller (cgroup v1) or enable it on cgroup2 (cgroup_enable=memory)",
		    "no memory controller (cgroup mode %s): a probe cannot limit its workload",
		    cgroup_mode_name(ci->mode));
		return;
	}
	if (!host_exists(env->h, ci->memory_root)) {
		set(r, DOCTOR_FAIL, "check /" HOST_MOUNTS " and remount the memory controller",
		    "memory controller root %s is missing", at(env, ci->memory_root, p, sizeof(p)));
		return;
	}
	if (ci->memory_v2) {
		/* a child gets memory.max only if the root hands the controller down */
		snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", ci->memory_root);
		if (host_read_line(env->h, rel, ctl, sizeof(ctl), NULL) == 0)
			for (char *save = NULL, *t = strtok_r(ctl, " ", &save); t;
			     t = strtok_r(NULL, " ", &save))
				if (!strcmp(t, "memory"))
					enabled = true;
		if (!enabled) {
			char fix[DOCTOR_TEXT_MAX];

			snprintf(fix, sizeof(fix), "echo +memory > /%s", rel);
			set(r, DOCTOR_FAIL, fix,
			    "memory is not in %s, so a new leaf cgroup gets no memory limit",
			    at(env, rel, p, sizeof(p)));
			return;
		}
	}
	if (!env->h->live) {
		/* who may write a captured tree says nothing about the host it came from */
		set(r, DOCTOR_OK, NULL, "%s at /%s (a captured tree: writability is checked on the host)",
		    ci->memory_v1 ? "v1" : "v2", ci->memory_root);
		return;
	}
	if (!host_writable(env->h, ci->memory_root)) {
		set(r, DOCTOR_FAIL, "run as root",
		    "/%s is not writable by this user: a probe cannot make its cgroup",
		    ci->memory_root);
		return;
	}
	set(r, DOCTOR_OK, NULL, "%s at /%s, writable for a new leaf (access checked, nothing created)",
	    ci->memory_v1 ? "v1" : "v2", ci->memory_root);
}

static void check_psi(const struct doctor_env *env, struct doctor_result *r)
{
	char p[PATH_MAX];

	if (unreadable(env, r, "psi", false))
		return;
	if (env->f->psi_available)
		set(r, DOCTOR_OK, NULL, "memory pressure is reported");
	else
		set(r, DOCTOR_WARN, "boot with psi=1 (the kernel needs CONFIG_PSI)",
		    "no %s: memory stalls are not measured", at(env, HOST_PSI_MEMORY, p, sizeof(p)));
}

static void check_pmu(const struct doctor_env *env, struct doctor_result *r)
{
	const struct pmu_info *p = &env->f->pmu;

	if (p->hw_available)
		set(r, DOCTOR_OK, NULL, "hardware counters (%s)",
		    p->hw_pmu_name[0] ? p->hw_pmu_name : "cpu");
	else if (p->sw_available)
		set(r, DOCTOR_WARN,
		    "CPU cost falls back to task-clock; for cycles and dTLB misses use a host with a hardware PMU",
		    "software events only: %s", p->hw_reason);
	else
		set(r, DOCTOR_WARN, "run as root or lower kernel.perf_event_paranoid",
		    "no CPU counters: %s", p->sw_reason);
}

static void check_rotational(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;
	char fix[DOCTOR_TEXT_MAX];

	if (unreadable(env, r, "swaps", false))
		return;
	for (int i = 0; i < f->nswaps; i++) {
		if (f->swaps[i].rotational != 1)
			continue;
		snprintf(fix, sizeof(fix),
			 "swapoff %s for the probe, or move swap to a non-rotational device",
			 f->swaps[i].path);
		set(r, DOCTOR_WARN, fix,
		    "%s is rotational: the whole host uses cluster readahead, whatever vma_ra_enabled says",
		    f->swaps[i].path);
		return;
	}
	set(r, DOCTOR_OK, NULL, "%s",
	    f->nswaps ? "no active swap device is rotational" : "no swap device active");
}

static void check_paranoid(const struct doctor_env *env, struct doctor_result *r)
{
	int p = env->f->pmu.paranoid;

	if (p == -99)
		set(r, DOCTOR_SKIPPED, NULL, "kernel.perf_event_paranoid is not available");
	else if (env->h->live && env->root)
		set(r, DOCTOR_OK, NULL, "%d (root is not restricted by it)", p);
	else if (p <= 1)
		set(r, DOCTOR_OK, NULL, "%d: kernel-mode CPU time can be counted", p);
	else
		set(r, DOCTOR_WARN, "run as root, or sysctl kernel.perf_event_paranoid=1",
		    "%d: without root, kernel-mode time (where swap-in happens) is not counted", p);
}

static void check_vma_ra(const struct doctor_env *env, struct doctor_result *r)
{
	const struct host_facts *f = env->f;

	if (unreadable(env, r, "vma_ra_enabled", false))
		return;
	if (!f->have_vma_ra)
		set(r, DOCTOR_WARN, "use kernel 4.14 or newer for VMA readahead",
		    "this kernel has no vma_ra_enabled switch: cluster readahead only");
	else if (f->vma_ra_enabled)
		set(r, DOCTOR_OK, NULL, "true: VMA readahead unless a rotational swap device is active");
	else
		set(r, DOCTOR_WARN, ADVISOR_APPLY " vma_ra_enabled=true (" ADVISOR_APPLY_NET "; swaptune rollback undoes it)",
		    "false: the whole host uses cluster readahead");
}

static void check_counters(const struct doctor_env *env, struct doctor_result *r)
{
	const struct st_kvtab *vm = &env->f->vmstat;
	bool zsw = kv_get(vm, vocab_key(V_ZSWPIN), NULL) && kv_get(vm, vocab_key(V_ZSWPOUT), NULL);
	bool ra = env->f->have_swap_ra;
	bool wb = kv_get(vm, vocab_key(V_ZSWPWB), NULL);
	char p[PATH_MAX];

	if (unreadable(env, r, "vmstat", false))
		return;
	at(env, HOST_VMSTAT, p, sizeof(p));
	if (zsw && ra)
		set(r, DOCTOR_OK, NULL, "%s, %s, %s and %s are counted%s%s%s", vocab_key(V_ZSWPIN),
		    vocab_key(V_ZSWPOUT), vocab_key(V_SWAP_RA), vocab_key(V_SWAP_RA_HIT),
		    wb ? " (and " : "", wb ? vocab_key(V_ZSWPWB) : "", wb ? ")" : "");
	else if (!zsw && !ra)
		set(r, DOCTOR_WARN, "use kernel 5.19 or newer",
		    "no zswpin/zswpout and no swap_ra/swap_ra_hit in %s: neither zswap traffic nor readahead is measured",
		    p);
	else if (!zsw)
		set(r, DOCTOR_WARN, "use kernel 5.19 or newer",
		    "no zswpin/zswpout in %s (kernel older than 5.19): zswap traffic is not measured",
		    p);
	else
		set(r, DOCTOR_WARN, "use kernel 4.14 or newer",
		    "no swap_ra/swap_ra_hit in %s: readahead hits are not measured", p);
}

/* The rows of doctor --behaviour: skipped when not asked for, a warning when it could not run. */
static bool behaviour_missing(const struct doctor_bypass *b, struct doctor_result *r)
{
	if (!b || !b->ran)
		set(r, DOCTOR_SKIPPED, NULL,
		    "a behavioural check: run swaptune doctor --behaviour (root, ~2 s, changes settings briefly)");
	else if (b->error)
		set(r, DOCTOR_WARN, "see swaptune doctor --behaviour --json for the error",
		    "could not run: %s", b->error_msg);
	else
		return false;
	return true;
}

static void check_native_bypass(const struct doctor_env *env, struct doctor_result *r)
{
	const struct doctor_bypass *b = env->bypass;

	if (behaviour_missing(b, r))
		return;
	if (!b->conclusive)
		set(r, DOCTOR_WARN, "retry on a quieter host",
		    "inconclusive: %s", b->evidence);
	else if (b->native)
		set(r, DOCTOR_OK, NULL, "native: %s", b->evidence);
	else
		set(r, DOCTOR_OK, NULL, "not in this kernel, the bypass arm is emulated: %s",
		    b->evidence);
}

/* Every page-cluster arm assumes page-cluster moves readahead: proven here. */
static void check_pc_effect(const struct doctor_env *env, struct doctor_result *r)
{
	const struct doctor_bypass *b = env->bypass;

	if (behaviour_missing(b, r))
		return;
	if (b->conclusive && b->native)
		set(r, DOCTOR_OK, NULL,
		    "not needed: the kernel skips readahead for zswap swap-in whatever page-cluster says");
	else if (!b->pc_ran || !b->pc_conclusive)
		set(r, DOCTOR_WARN, "retry on a quieter host",
		    "not proven: %s", b->pc_ran ? b->pc_evidence : "the page-cluster 3 trial was inconclusive");
	else if (b->pc_governs)
		set(r, DOCTOR_OK, NULL, "page-cluster governs swap readahead here: %s", b->pc_evidence);
	else
		set(r, DOCTOR_WARN,
		    "expect no difference between page-cluster arms here; details: swaptune doctor --behaviour --json",
		    "page-cluster does not change swap readahead on this kernel: %s",
		    b->pc_evidence);
}

static const struct doctor_check checks[] = {
	{ "root", true, check_root },
	{ "page-cluster", true, check_page_cluster },
	{ "swap", true, check_swap },
	{ "zswap", true, check_zswap },
	{ "zswap-enabled", false, check_zswap_enabled },
	{ "zswap-debugfs", false, check_debugfs },
	{ "memory-cgroup", true, check_memory_cgroup },
	{ "psi", false, check_psi },
	{ "cpu-counters", false, check_pmu },
	{ "rotational-swap", false, check_rotational },
	{ "perf-paranoid", false, check_paranoid },
	{ "vma-readahead", false, check_vma_ra },
	{ "vmstat-counters", false, check_counters },
	{ "native-bypass", false, check_native_bypass },
	{ "cluster-effect", false, check_pc_effect },
};

size_t doctor_count(void)
{
	return sizeof(checks) / sizeof(checks[0]);
}

const struct doctor_check *doctor_at(size_t i)
{
	return i < doctor_count() ? &checks[i] : NULL;
}

const struct doctor_check *doctor_find(const char *name)
{
	for (size_t i = 0; i < doctor_count(); i++)
		if (!strcmp(checks[i].name, name))
			return &checks[i];
	return NULL;
}

bool doctor_run_all(const struct doctor_env *env, struct doctor_result *out)
{
	bool ready = true;

	for (size_t i = 0; i < doctor_count(); i++) {
		memset(&out[i], 0, sizeof(out[i]));
		checks[i].run(env, &out[i]);
		if (checks[i].required && out[i].status == DOCTOR_FAIL)
			ready = false;
	}
	return ready;
}

const char *doctor_status_name(enum doctor_status s)
{
	switch (s) {
	case DOCTOR_OK: return "ok";
	case DOCTOR_WARN: return "warn";
	case DOCTOR_FAIL: return "fail";
	default: return "skipped";
	}
}
