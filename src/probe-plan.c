/*
 * probe-plan.c - probe configuration defaults and the plan (see probe.h):
 * resolves the swap size, scratch directory and baseline arm, lists the
 * settings the arms touch with their values now, checks the memory headroom
 * and estimates the run time. Reads the host; changes nothing.
 */
#include <stdio.h>
#include <string.h>

#include "probe-int.h"

void probe_config_init(struct probe_config *c)
{
	memset(c, 0, sizeof(*c));
	workload_params_init(&c->wp);
	c->baseline = -1;
	judge_plan_default(&c->plan);
	c->reps = c->plan.looks[c->plan.n_looks - 1];
	c->max_reps = c->reps;
	c->warmup = true;
	probe_seed_set(c, 1);
	c->min_trial_s = 2.0;
	c->max_time_s = 180;
	c->duration_s = 60;
	c->limit_mode = MEMCG_LIMIT_MAX;
	c->bypass_mode = PROBE_BYPASS_PC0;
}

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
		/* cmd: unknown until it ran once; the cap bounds it */
		p->est_total_s = -1;
		p->est_max_s = (c->duration_s + TRIAL_SLACK_S / 4) * p->max_trials;
	} else {
		p->est_total_s = 2.0 + p->est_trial_s * p->trials;
		p->est_max_s = 2.0 + p->est_trial_s * p->max_trials;
		/* a sequential plan keeps only the looks that fit the time budget */
		if (c->plan.sequential && c->max_time_s > 0 && p->est_max_s > c->max_time_s)
			p->est_max_s = c->max_time_s;
	}
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
	p->mount_debugfs = h->live && (host_list_dir(h, HOST_DEBUGFS, list, sizeof(list), NULL) < 0 ||
				       !list[0]);

	if ((r = plan_headroom(h, c, p, e)) < 0)
		return r;
	plan_estimate(c, p);
	return 0;
}
