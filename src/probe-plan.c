/*
 * probe-plan.c - the plan of a probe (see probe.h): resolves the swap
 * size, scratch directory and baseline arm, lists the settings the arms
 * touch with their values now, checks the memory headroom, estimates the
 * run time, and says in words every change the probe makes to the host.
 * Reads the host; changes nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe-int.h"
#include "swaptune/fingerprint.h"
#include "swaptune/fmt.h"

bool probe_is_cmd(const struct probe_config *c)
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

	if (probe_is_cmd(c))
		return -1;
	/* preparation ~0.5 s, fill + swap-out ~2 s/GiB, ~8 us per access (half fault) */
	est = 0.5 + 2.0 * ws_gib + ops * 8e-6;
	/* the measured phase is calibrated from the warm-up to last min_trial_s */
	if (c->min_trial_s > ops * 8e-6)
		est += c->min_trial_s - ops * 8e-6;
	if (c->duration_s > 0 && est > c->duration_s + 0.5 + 2.0 * ws_gib)
		est = c->duration_s + 0.5 + 2.0 * ws_gib;
	return est;
}

/* MemAvailable against the memcg, the zswap pool (worst case: nothing compresses) and a margin. */
static int plan_headroom(const struct host *h, const struct probe_config *c, struct probe_plan *p,
			 struct st_err *e)
{
	struct st_kvtab mi;
	int r;

	p->working_set_bytes = c->wp.working_set_bytes;
	p->memcg_limit_bytes = c->memcg_limit_bytes;
	kv_init(&mi);
	if ((r = host_read_meminfo(h, &mi, e)) < 0) {
		kv_free(&mi);
		return r;
	}
	kv_get(&mi, "MemAvailable", &p->available_bytes);
	kv_free(&mi);
	p->need_bytes = c->memcg_limit_bytes +
			(probe_is_cmd(c) ? c->swap_size_bytes / 2 : c->wp.working_set_bytes) + 256 * MiB;
	if (p->available_bytes < p->need_bytes && !c->force)
		return err_set_exit(e, -ENOMEM, ST_EXIT_DENIED,
				    "not enough free memory: the probe needs about %llu MiB, MemAvailable is %llu MiB "
				    "(lower --working-set/--memcg-limit, or --force)",
				    (unsigned long long)(p->need_bytes / MiB),
				    (unsigned long long)(p->available_bytes / MiB));
	return 0;
}

/* Rounds, trials and the time they should take. */
static void plan_estimate(const struct probe_config *c, struct probe_plan *p)
{
	unsigned first = c->plan.looks[0], last = c->plan.looks[c->plan.n_looks - 1];

	/* the fewest rounds (the first look) and the most (the last) */
	p->rounds = first + (c->warmup ? 1 : 0);
	p->trials = p->rounds * (unsigned)c->narms + (p->detect_bypass ? 1 : 0);
	p->max_trials = (last + (c->warmup ? 1 : 0)) * (unsigned)c->narms +
			(p->detect_bypass ? 1 : 0);
	p->est_trial_s = estimate_trial_s(c);
	if (p->est_trial_s < 0) {
		/* cmd: unknown until it ran once; the cap bounds it, and so does the budget (one trial over) */
		double cap = c->duration_s + TRIAL_SLACK_S / 4;

		p->est_total_s = -1;
		p->est_max_s = cap * p->max_trials;
		if (c->max_time_s > 0 && p->est_max_s > c->max_time_s + cap)
			p->est_max_s = c->max_time_s + cap;
	} else {
		p->est_total_s = 2.0 + p->est_trial_s * p->trials;
		p->est_max_s = 2.0 + p->est_trial_s * p->max_trials;
		/* a sequential plan keeps only the looks that fit the time budget */
		if (c->plan.sequential && c->max_time_s > 0 && p->est_max_s > c->max_time_s)
			p->est_max_s = c->max_time_s;
	}
}

/*
 * The one change a probe cannot put back: on a kernel that swaps in large
 * folios, enabling zswap for the first time since boot turns that off until
 * the next reboot. Every arm is measured after the probe enables it (at set
 * up, before the warm-up), so the arms compare alike; but an arm with zswap
 * off does not then measure a host that never enabled zswap.
 */
static void plan_zswap_lasting(const struct host *h, struct probe_plan *p)
{
	struct kernel_fingerprint *fp = malloc(sizeof(*fp));

	p->zswap_lasting = false;
	p->zswap_lasting_why[0] = '\0';
	if (!fp)
		return;
	if (p->enable_zswap) {
		fingerprint_read(h, NULL, fp);
		if (fingerprint_zswap_enable_hazard(fp)) {
			p->zswap_lasting = true;
			snprintf(p->zswap_lasting_why, sizeof(p->zswap_lasting_why),
				 "kernel %s: %s; zswap: %s", fp->release, fp->large_folio_swapin_why,
				 fp->zswap_ever_why);
		}
	}
	free(fp);
}

int probe_plan(const struct host *h, struct probe_config *c, struct probe_plan *p,
	       struct st_err *e)
{
	struct st_swap sw[HOST_MAX_SWAPS];
	char root[PATH_MAX], reason[WORKLOAD_REASON_MAX], list[64];
	const struct setting_value *zen;
	struct settings_snapshot snap;
	int nsw = 0, r;

	memset(p, 0, sizeof(*p));
	if (!c->workload)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "no workload");
	if (c->narms < 1)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "no arms");
	if (c->plan.n_looks < 1 || c->plan.looks[0] < 1 ||
	    c->plan.looks[c->plan.n_looks - 1] > PROBE_REPS_MAX)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "--reps must be 1..%d", PROBE_REPS_MAX);
	if (c->memcg_limit_bytes < 16 * MiB)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "--memcg-limit below 16 MiB cannot hold a workload");
	if (!probe_is_cmd(c) && c->wp.working_set_bytes <= c->memcg_limit_bytes)
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
	plan_zswap_lasting(h, p);

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
		uint64_t ws = probe_is_cmd(c) ? 2 * c->memcg_limit_bytes : c->wp.working_set_bytes;

		c->swap_size_bytes = ws + ws / 2 + 64 * MiB;
		if (c->swap_size_bytes < 512 * MiB)
			c->swap_size_bytes = 512 * MiB;
	}
	p->swap_bytes = p->have_host_swap ? 0 : c->swap_size_bytes;
	if (!p->have_host_swap && !host_exists(h, HOST_LOOP_CONTROL)) {
		char where[PATH_MAX];

		p->load_loop_module = host_module_state(h, "loop", "drivers/block/loop", where,
							sizeof(where)) == HOST_MOD_LOADABLE;
	}
	p->mount_debugfs = h->live && (host_list_dir(h, HOST_DEBUGFS, list, sizeof(list), NULL) < 0 ||
				       !list[0]);

	if ((r = plan_headroom(h, c, p, e)) < 0)
		return r;
	plan_estimate(c, p);
	return 0;
}

/* ---- the host changes, in words ----------------------------------------- */

struct changes {
	struct probe_change *v;
	int n, max;
};

static void change(struct changes *ch, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void change(struct changes *ch, const char *kind, const char *fmt, ...)
{
	va_list ap;

	if (ch->n >= ch->max)
		return;
	snprintf(ch->v[ch->n].kind, sizeof(ch->v[0].kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(ch->v[ch->n].text, sizeof(ch->v[0].text), fmt, ap);
	va_end(ap);
	ch->n++;
}

/* Each setting an arm writes: its value now and the values of the arms. */
static void changes_settings(const struct probe_config *c, const struct probe_plan *p,
			     struct changes *ch)
{
	for (int i = 0; i < p->ntouch; i++) {
		char vals[200] = "";
		size_t n = 0;

		for (int a = 0; a < c->narms && n < sizeof(vals); a++) {
			const char *v = p->touch[i].current;

			for (int k = 0; k < c->arms[a].nset; k++)
				if (!strcmp(c->arms[a].set[k].name, p->touch[i].name))
					v = c->arms[a].set[k].value;
			n += (size_t)snprintf(vals + n, sizeof(vals) - n, "%s%s %s", a ? ", " : "",
					      c->arms[a].name, v);
		}
		change(ch, "setting", "%s (host-wide): now %s; during each arm's trials %s; restored at the end",
		       p->touch[i].name, p->touch[i].current, vals);
	}
	if (p->detect_bypass)
		change(ch, "setting", "page-cluster (host-wide): 3 for a short bypass check, and the bypass arm's "
		       "settings are decided by it");
}

/* Swap: the scratch device (or the host's), zram, zswap, debugfs. */
static void changes_swap(const struct probe_config *c, const struct probe_plan *p, struct changes *ch)
{
	char b1[32], esc[PATH_MAX * 4 + 1];

	if (p->enable_zswap)
		change(ch, "zswap", "zswap.enabled (host-wide): now N, Y during the probe, so any swap on the "
		       "host goes through zswap meanwhile; restored at the end");
	if (p->zswap_lasting)
		change(ch, "zswap", "large-folio swap-in (host-wide, NOT restored): %s; enabling zswap turns "
		       "it off until the next reboot, and no setting restores it. Every arm is measured "
		       "after it, so the arms compare alike, but none measures large-folio swap-in from a "
		       "synchronous swap device such as zram, as this host could do until now",
		       p->zswap_lasting_why);
	if (!p->have_host_swap)
		change(ch, "scratch-swap", "%sa %s sparse file %s/swaptune-swap-<pid>.img (mode 0600) on a free loop "
		       "device, marked non-rotational, swapped on for the probe (the host's only swap meanwhile: "
		       "other processes may swap to it too, and are read back in when it is switched off); "
		       "switched off and on before every trial, which empties it and its zswap entries; detached "
		       "and removed at the end",
		       p->load_loop_module ? "the loop module loaded first (modprobe loop; it stays loaded), then " : "",
		       fmt_bytes(p->swap_bytes, b1, sizeof(b1)),
		       p->scratch_dir[0] ? fmt_escape(p->scratch_dir, esc, sizeof(esc)) : "(default)");
	else
		change(ch, "host-swap", "the host's swap %s is used as it is, never switched off%s; the zswap pool "
		       "is not emptied between trials", fmt_escape(p->host_swap, esc, sizeof(esc)),
		       p->host_swap_rotational ? " (rotational: the host uses cluster readahead)" : "");
	for (int i = 0; i < c->narms; i++)
		if (c->arms[i].bypass && c->bypass_mode == PROBE_BYPASS_ZRAM) {
			change(ch, "zram", "/dev/zram0 (when unused) sized %s for the bypass arm's trials, reset "
			       "at the end", fmt_bytes(c->swap_size_bytes, b1, sizeof(b1)));
			break;
		}
	if (p->mount_debugfs)
		change(ch, "debugfs", "debugfs mounted on /%s for the zswap counters, unmounted at the end",
		       HOST_DEBUGFS);
	if (p->detect_bypass)
		change(ch, "bypass-check", "one extra trial first: a 64 MiB sequential swap-in in its own 32 MiB "
		       "memory cgroup, to see whether the kernel bypasses readahead for zswap");
}

/* Cgroups, page cache, memory pressure, time. */
static void changes_effects(const struct probe_config *c, const struct probe_plan *p, struct changes *ch)
{
	char b1[32], b2[32], b3[32], b4[32], t1[32];
	const char *limit = p->memcg_version == 1 ? "memory.limit_in_bytes" :
			    c->limit_mode == MEMCG_LIMIT_HIGH ? "memory.high" : "memory.max";

	change(ch, "cgroups", "a new memory cgroup (v%d) per trial, %sprobe-<pid>-<trial>, directly under "
	       "the memory controller's root, %s %s; only the trial's process runs in it; emptied (%s) and "
	       "removed after the trial. No other cgroup is touched", p->memcg_version, MEMCG_PREFIX,
	       limit, fmt_bytes(c->memcg_limit_bytes, b1, sizeof(b1)),
	       p->memcg_version == 1 ? "memory.force_empty" : "memory.reclaim");
	if (c->drop_host_caches)
		change(ch, "page-cache", "--drop-host-caches: before every trial (up to %u times) sync, drop the "
		       "whole host's page cache (/%s = 3) and compact memory (/%s): every service re-reads its "
		       "files afterwards", p->max_trials, HOST_DROP_CACHES, HOST_COMPACT_MEMORY);
	else
		change(ch, "page-cache", "the host's page cache is left alone: only what the trial's own cgroup "
		       "holds is dropped when it ends (files the workload read first, its own files); no "
		       "drop_caches, no compaction (--drop-host-caches would do both before every trial)");
	if (probe_is_cmd(c))
		change(ch, "memory-pressure", "the command runs in a %s limit and swaps through zswap beyond it; "
		       "the host needs about %s free for it, the pool and a margin (MemAvailable %s now)",
		       fmt_bytes(c->memcg_limit_bytes, b1, sizeof(b1)), fmt_bytes(p->need_bytes, b2, sizeof(b2)),
		       fmt_bytes(p->available_bytes, b3, sizeof(b3)));
	else
		change(ch, "memory-pressure", "a %s working set in the %s limit: at least %s swapped out and in "
		       "through zswap in every trial; the host needs about %s free for the limit, the pool and a "
		       "margin (MemAvailable %s now)", fmt_bytes(c->wp.working_set_bytes, b1, sizeof(b1)),
		       fmt_bytes(c->memcg_limit_bytes, b2, sizeof(b2)),
		       fmt_bytes(c->wp.working_set_bytes - c->memcg_limit_bytes, b3, sizeof(b3)),
		       fmt_bytes(p->need_bytes, t1, sizeof(t1)), fmt_bytes(p->available_bytes, b4, sizeof(b4)));
	if (c->max_time_s > 0)
		change(ch, "time", "at most %s (--max-time, a ceiling: no trial starts that is expected to end "
		       "after it) for %u to %u trials; after the warm-up it says how many rounds fit, and stops "
		       "(exit 2, host restored) when the first look at %u rounds does not, unless --allow-short",
		       probe_fmt_secs(c->max_time_s, b1, sizeof(b1)), p->trials, p->max_trials, c->plan.looks[0]);
	else
		change(ch, "time", "no time limit (--max-time 0): %u to %u trials, about %s each",
		       p->trials, p->max_trials, probe_fmt_secs(p->est_trial_s, b1, sizeof(b1)));
}

int probe_plan_changes(const struct probe_config *c, const struct probe_plan *p,
		       struct probe_change *out, int max)
{
	struct changes ch = { .v = out, .n = 0, .max = max };

	changes_settings(c, p, &ch);
	changes_swap(c, p, &ch);
	changes_effects(c, p, &ch);
	return ch.n;
}
