/*
 * sb-engine.c - running `swaptune switchback` (sbrun.h): the plan checked
 * against the host, then the arms' settings switched under the live
 * workload window by window in the design's randomised blocks (every write
 * journaled first), one tick a second that reads the kernel's counters and
 * the workload's figure and lets the PSI guardrail act, a window's values
 * into the store as soon as it ends, the sequential looks, and the settings
 * put back whatever ends the run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "sb-int.h"
#include "swaptune/fmt.h"
#include "swaptune/facts.h"
#include "swaptune/journal.h"
#include "swaptune/sampler.h"
#include "swaptune/stop.h"
#include "swaptune/utc.h"

#define GUARD_MIN_S 2.0		/* the guard reads PSI over at least this long after a switch */

void sbrun_config_init(struct sbrun_config *c)
{
	memset(c, 0, sizeof(*c));
	sb_plan_init(&c->plan);
	c->min_effect = 2.0;
	sbm_spec_init(&c->metric, SBM_KERNEL);
	/*
	 * 60 %: PostgreSQL swapping to zswap in a 512 MiB memcg ran at PSI full
	 * 10-14 % under either setting (NOTES of issue 20); a setting that stalls
	 * every task most of the time is harm, not noise.
	 */
	c->psi_full_max = 60.0;
	c->psi_some_max = 0;
	c->guard_span_s = 5.0;
	c->max_failures = 3;
	c->origin = "switchback";
}

/* ---- the plan ---- */

static int plan_touch(const struct host *h, const struct sbrun_config *c, struct sbrun_plan *p,
		      struct st_err *e)
{
	for (int a = 0; a < c->narms; a++)
		for (int k = 0; k < c->arms[a].nset; k++) {
			const struct probe_setting *s = &c->arms[a].set[k];
			const struct setting_def *d = settings_find(s->name);
			bool seen = false;
			int r;

			if (!d)
				return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "arm %s: %s is not a setting swaptune knows",
						    c->arms[a].name, s->name);
			for (int t = 0; t < p->ntouch; t++)
				seen |= !strcmp(p->touch[t].name, d->name);
			if (seen)
				continue;
			snprintf(p->touch[p->ntouch].name, sizeof(p->touch[0].name), "%s", d->name);
			r = settings_read(h, d, p->touch[p->ntouch].current,
					  sizeof(p->touch[0].current), e);
			if (r < 0)
				return err_prefix(e, "arm %s", c->arms[a].name);
			p->ntouch++;
		}
	return 0;
}

/* Which kernel figures this host gives, and whether of the cgroup: one tick of a sampler. */
static int plan_scope(const struct host *h, const struct sbrun_config *c, struct sbrun_plan *p,
		      struct st_err *e)
{
	struct sampler_opts so = { .cgroup = c->cgroup[0] ? c->cgroup : NULL, .zswap_pool = false };
	struct sampler *s = NULL;
	uint64_t v;
	int r = sampler_open(&s, h, &so, e);

	if (r < 0)
		return r;
	sampler_tick(s, 1, 0, NULL);
	for (int f = 0; f < SBK_COUNT; f++) {
		const struct sbm_kernel_def *d = &sbm_kernel_defs[f];

		p->kern_cgroup[f] = c->cgroup[0] && d->cgroup != SC_COUNT && sampler_counter(s, d->cgroup, &v);
		p->kern_have[f] = p->kern_cgroup[f] || (d->host != SC_COUNT && sampler_counter(s, d->host, &v));
	}
	sampler_close(s);
	if (c->cgroup[0]) {
		struct st_err e1 = {0};
		bool cpu = host_cgroup_cpu_locate(h, c->cgroup, &p->cpu, &e1) == 0;

		for (int f = 0; f < SBK_COUNT; f++)
			if (sbm_kernel_defs[f].cgroup_cpu)
				p->kern_have[f] = p->kern_cgroup[f] = cpu;
	}
	snprintf(p->psi_scope, sizeof(p->psi_scope), "%s", p->kern_cgroup[SBK_PSI_FULL] ? "cgroup" : "host");
	return 0;
}

static int plan_cgroup(const struct host *h, const struct sbrun_config *c, struct sbrun_plan *p,
		       struct st_err *e)
{
	char root[PATH_MAX];
	int r;

	if (!c->cgroup[0])
		return 0;
	if (strstr(c->cgroup, ".."))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "--cgroup %s: \"..\" is not allowed", c->cgroup);
	if ((r = memcg_locate(h, &p->cgroup_version, root, sizeof(root), e)) < 0)
		return r;
	memset(&p->cg, 0, sizeof(p->cg));
	p->cg.h = h;
	p->cg.version = p->cgroup_version;
	snprintf(p->cg.rel, sizeof(p->cg.rel), "%s/%s", root, c->cgroup + strspn(c->cgroup, "/"));
	/* opened as the reads will be: beneath the sysroot, so a symlink out of it is refused here */
	r = host_openat(h, p->cg.rel, O_RDONLY | O_DIRECTORY);
	if (r == -EXDEV)
		return err_set_exit(e, -EXDEV, ST_EXIT_USAGE,
				    "--cgroup %s: /%s leads out of the sysroot %s (a symbolic link); refused",
				    c->cgroup, p->cg.rel, h->root);
	if (r < 0)
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "--cgroup %s: no such cgroup under /%s (give the workload's path relative to the memory controller)",
				    c->cgroup, root);
	close(r);
	p->cgroup_found = true;
	return 0;
}

static int plan_metric(const struct host *h, const struct sbrun_config *c, struct sbrun_plan *p,
		       struct st_err *e)
{
	const struct sbm_spec *m = &c->metric;
	char why[400], words[SBM_CMD_MAX + 1], *argv[SBM_ARGV_MAX];
	double v;

	if (m->source == SBM_CMD && sbm_split_argv(m->cmd, words, sizeof(words), argv, why, sizeof(why)) < 0)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "--metric-cmd: %s", why);
	/* checked alike with and without --dry-run, live or under --sysroot */
	if (m->source == SBM_CMD && !sbm_cmd_findable(argv[0]))
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "--metric-cmd: %s is not an executable here (nor in " SBM_CMD_PATH ")", argv[0]);
	if (m->source == SBM_FILE && access(m->path, R_OK) < 0)
		return err_set_exit(e, -errno, ST_EXIT_USAGE, "--metric-file: cannot read %s: %s", m->path,
				    strerror(errno));
	if ((m->source == SBM_FILE || m->source == SBM_PROM) && h->live &&
	    sbm_sample_value(m, &v, why, sizeof(why)) < 0)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "the metric cannot be read now: %s", why);
	if (m->source == SBM_KERNEL && !m->cpu_per_work && !p->kern_have[m->kernel])
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED, "--metric %s: this host does not give it%s",
				    sbm_kernel_defs[m->kernel].name,
				    m->kernel == SBK_CPU ? " (it needs --cgroup with CPU accounting)" : "");
	if (m->cpu_per_work && !p->kern_have[SBK_CPU])
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "--metric cpu-per-work needs the CPU time of the workload's cgroup (--cgroup with cpu.stat or cpuacct.usage)");
	p->slices_of_metric = m->source != SBM_CMD;
	return 0;
}

/* --max-time: the blocks that fit, the looks above them dropped. */
static int plan_budget(struct sbrun_config *c, struct st_err *e)
{
	struct sb_plan *pl = &c->plan;
	double block_s = pl->n_arms * pl->window_s;
	unsigned fit, n = 0, looks[SB_LOOKS_MAX];

	if (!(c->max_time_s > 0) || c->max_time_s >= pl->n_blocks * block_s)
		return 0;
	fit = (unsigned)floor(c->max_time_s / block_s + 1e-9);
	if (fit < 2)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "--max-time %.0f s holds %u block%s of %u x %.0f s windows: a switchback needs 2",
				    c->max_time_s, fit, fit == 1 ? "" : "s", pl->n_arms, pl->window_s);
	for (unsigned k = 0; k < pl->n_looks; k++)
		if (pl->looks[k] < fit)
			looks[n++] = pl->looks[k];
	looks[n++] = fit;
	memcpy(pl->looks, looks, n * sizeof(looks[0]));
	pl->n_looks = n;
	pl->n_blocks = fit;
	return 0;
}

int sbrun_plan(const struct host *h, struct sbrun_config *c, struct sbrun_plan *p,
	       struct st_err *e)
{
	int r;

	memset(p, 0, sizeof(*p));
	if (c->narms < 2 || c->narms > SB_ARMS_MAX)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "a switchback needs 2 to %d arms, not %d",
				    SB_ARMS_MAX, c->narms);
	for (int a = 0; a < c->narms; a++)
		if (c->arms[a].bypass)
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "the bypass arm needs the probe's detection trial; in a switchback use pc0 (its usual emulation) or a custom --arm");
	c->plan.n_arms = (unsigned)c->narms;
	if ((r = plan_budget(c, e)) < 0)
		return r;
	if ((r = sb_design_init(&p->design, &c->plan, e)) < 0) {
		e->exit = ST_EXIT_USAGE;
		return r;
	}
	if ((r = plan_touch(h, c, p, e)) < 0 || (r = plan_cgroup(h, c, p, e)) < 0 ||
	    (r = plan_scope(h, c, p, e)) < 0 || (r = plan_metric(h, c, p, e)) < 0)
		return r;
	sb_slices_for(c->plan.window_s, c->plan.washout_s, &p->n_slices, &p->n_washout_slices, &p->slice_s);
	sb_budget_of(&p->design, 0, &p->budget, e);
	for (int i = 0; i < 3; i++) {
		struct sb_budget b;

		p->effect80[i] = NAN;
		if (sbm_kind(&c->metric) == SB_RATE && sb_budget_of(&p->design, 0.05 * (i + 1), &b, NULL) == 0)
			p->effect80[i] = b.effect80_pct;
	}
	return 0;
}

/* ---- the run ---- */

struct sbe {
	const struct host *h;
	struct store *st;
	struct sbrun_config *c;
	const struct sbrun_plan *p;
	struct sbrun_result *r;
	struct journal j;
	bool journaled;
	struct sampler *smp;
	int64_t arm_ids[SB_ARMS_MAX];
	double t0, wall0;	/* monotonic and Unix time of the first window's start */
	int cur_arm;		/* whose settings the host has now; -1: the host's own */
	unsigned failures, empty_ticks;
	uint64_t oom_kills;	/* the workload cgroup's OOM kills when the run began */
	bool oom_known;		/* ... when the kernel gives that count */
	double dt;		/* seconds between ticks */
	unsigned tps;		/* ticks per slice (0 without slices) */
	unsigned K;		/* ticks per window (tick 0 .. K) */
	unsigned cs;		/* tick where the counted part starts */
	/* the current window's ticks */
	double *t;		/* seconds from its nominal start */
	double (*kc)[SBK_COUNT];	/* the kernel's raw counters, NAN = n/a */
	double *m;		/* the sampled metric, NAN = n/a */
	char why[256];		/* why the last metric sample failed */
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool stopped(const struct sbe *E)
{
	return stop_requested(E->c->stop) != 0;
}

static void report(struct sbe *E, enum sbrun_phase ph, unsigned i, const char *msg)
{
	unsigned k = E->p->design.plan.n_arms, n = E->p->design.plan.n_blocks * k;
	struct sbrun_progress pr = {
		.phase = ph, .window = i + 1, .windows = n, .block = i / k + 1,
		.blocks = E->p->design.plan.n_blocks, .msg = msg,
		.eta_s = (n - i) * E->p->design.plan.window_s,
	};

	if (i < n)
		pr.arm = E->c->arms[E->p->design.order[i / k][i % k]].name;
	if (E->c->progress)
		E->c->progress(&pr, E->c->progress_arg);
}

/* The settings of arm a on the host: its own values, the host's for what it leaves alone. */
static int apply_arm(struct sbe *E, int a, struct st_err *e)
{
	const struct probe_arm *arm = &E->c->arms[a];

	for (int t = 0; t < E->p->ntouch; t++) {
		const char *v = E->p->touch[t].current;
		int r;

		for (int k = 0; k < arm->nset; k++)
			if (!strcmp(arm->set[k].name, E->p->touch[t].name))
				v = arm->set[k].value;
		r = journal_set(&E->j, E->p->touch[t].name, v, true, NULL, e);
		if (r < 0)
			return err_prefix(e, "cannot switch to arm %s", arm->name);
	}
	E->cur_arm = a;
	return 0;
}

static bool sc(const struct sampler *s, enum sample_counter c, double *v)
{
	uint64_t x;

	if (!sampler_counter(s, c, &x))
		return false;
	*v = (double)x;
	return true;
}

static double sum2(const struct sampler *s, enum sample_counter a, enum sample_counter b)
{
	double x, y;

	return sc(s, a, &x) && sc(s, b, &y) ? x + y : NAN;
}

static double one(const struct sampler *s, enum sample_counter c)
{
	double x;

	return sc(s, c, &x) ? x : NAN;
}

/* The raw counters of every figure now (after a sampler tick). */
static void read_kern(struct sbe *E, double *kc)
{
	const bool *cg = E->p->kern_cgroup;
	const struct sampler *s = E->smp;
	uint64_t ns;

	for (int f = 0; f < SBK_COUNT; f++) {
		const struct sbm_kernel_def *d = &sbm_kernel_defs[f];

		if (d->cgroup_cpu)
			kc[f] = E->p->kern_have[f] && host_cgroup_cpu_ns(E->h, &E->p->cpu, &ns) == 0 ?
				(double)ns : NAN;
		else if (cg[f])
			kc[f] = one(s, d->cgroup);
		else if (d->host_plus != SC_COUNT)
			kc[f] = sum2(s, d->host_plus, d->host);
		else
			kc[f] = d->host != SC_COUNT ? one(s, d->host) : NAN;
	}
}

/* A figure's rate between ticks a and b of the current window, in its unit. */
static double kern_rate(const struct sbe *E, int f, unsigned a, unsigned b)
{
	double dv = E->kc[b][f] - E->kc[a][f], dt = E->t[b] - E->t[a];

	if (!isfinite(dv) || dv < 0 || !(dt > 0))
		return NAN;
	if (sbm_kernel_defs[f].per != 1)
		return dv / dt / sbm_kernel_defs[f].per;
	return dv / dt;
}

/* The sampled metric between ticks a and b: a counter's rate, a gauge's mean. */
static double metric_over(const struct sbe *E, unsigned a, unsigned b)
{
	if (E->c->metric.counter) {
		double dv = E->m[b] - E->m[a], dt = E->t[b] - E->t[a];

		return isfinite(dv) && dv >= 0 && dt > 0 ? dv / dt : NAN;
	}
	return b > a ? sbm_mean_finite(E->m + a + 1, b - a) : NAN;
}

/* One tick: the sampler, the kernel's counters, the sampled metric. */
static void take_tick(struct sbe *E, unsigned k, double nominal_start)
{
	double now = mono();
	struct st_err e1 = {0};

	sampler_tick(E->smp, (uint64_t)(now * 1e9), (uint64_t)((E->wall0 + now - E->t0) * 1e9), &e1);
	E->t[k] = now - nominal_start;
	read_kern(E, E->kc[k]);
	E->m[k] = NAN;
	if (E->c->metric.source == SBM_FILE || E->c->metric.source == SBM_PROM) {
		double v;

		if (sbm_sample_value(&E->c->metric, &v, E->why, sizeof(E->why)) == 0)
			E->m[k] = v;
	}
}

/* The guardrail: PSI over the last guard_span_s of a candidate window. */
static bool guard_trips(struct sbe *E, unsigned k, struct sbrun_window *w)
{
	const struct sbrun_config *c = E->c;
	unsigned j = 0;

	if (w->arm == 0 || E->cur_arm == 0 || w->outcome == SB_WIN_FAILED || E->t[k] - E->t[0] < GUARD_MIN_S)
		return false;
	while (j + 1 < k && E->t[k] - E->t[j + 1] >= c->guard_span_s)
		j++;
	for (int f = SBK_PSI_SOME; f <= SBK_PSI_FULL; f++) {
		double lim = f == SBK_PSI_FULL ? c->psi_full_max : c->psi_some_max;
		double v = kern_rate(E, f, j, k);

		if (lim > 0 && isfinite(v) && v > lim) {
			snprintf(w->failure, sizeof(w->failure),
				 "PSI memory %s of the %s %.1f %% over the last %.0f s, above %g %%: switched back to %s",
				 f == SBK_PSI_FULL ? "full" : "some", E->p->psi_scope, v, E->t[k] - E->t[j], lim,
				 c->arms[0].name);
			return true;
		}
	}
	return false;
}

/*
 * The workload's cgroup: gone, without a process for two ticks, or an OOM
 * kill in it ends the run. A service that lost a process to its cgroup's
 * limit (on a candidate setting or not) is no longer the one measured, and
 * the settings go back before it can lose another.
 */
static bool workload_gone(struct sbe *E, const struct sbrun_window *w)
{
	pid_t pid;
	int n = 0;
	uint64_t kills;
	struct st_err e1 = {0};

	if (!E->p->cgroup_found)
		return false;
	if (memcg_pids(&E->p->cg, &pid, 1, &n, &e1) < 0) {
		snprintf(E->r->stop_reason, sizeof(E->r->stop_reason), "the workload's cgroup %s is gone",
			 E->c->cgroup);
		return true;
	}
	if (E->oom_known && memcg_oom_kills(&E->p->cg, &kills, NULL) == 0 && kills > E->oom_kills) {
		snprintf(E->r->stop_reason, sizeof(E->r->stop_reason),
			 "the workload's cgroup %s OOM-killed %llu process%s in window %u (arm %s): "
			 "the run ends with the settings restored",
			 E->c->cgroup, (unsigned long long)(kills - E->oom_kills), kills - E->oom_kills > 1 ? "es" : "",
			 w->index + 1, E->c->arms[w->arm].name);
		return true;
	}
	E->empty_ticks = n ? 0 : E->empty_ticks + 1;
	if (E->empty_ticks < 2)
		return false;
	snprintf(E->r->stop_reason, sizeof(E->r->stop_reason),
		 "the workload's cgroup %s has no process left (the workload exited)", E->c->cgroup);
	return true;
}

/* Sleep until monotonic time t; false when a signal asked to stop. */
static bool sleep_until(const struct sbe *E, double t)
{
	struct timespec ts = { .tv_sec = (time_t)t, .tv_nsec = (long)((t - floor(t)) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		if (stopped(E))
			return false;
	return !stopped(E);
}

static void window_env(const struct sbe *E, const struct sbrun_window *w, struct sbm_window_env *env)
{
	env->index = w->index;
	env->block = w->block;
	env->start_unix = E->wall0 + w->start_s;
	env->count_start_unix = E->wall0 + w->count_start_s;
	env->end_unix = E->wall0 + w->end_s;
	env->stop = E->c->stop;
}

/* The workload's figure over the counted part; NAN with w->failure set when there is none. */
static double window_metric(struct sbe *E, struct sbrun_window *w, double cmd_at_cs)
{
	const struct sbm_spec *m = &E->c->metric;
	struct sbm_window_env env;
	char why[400];
	double v = NAN;

	if (m->source == SBM_KERNEL && !m->cpu_per_work)
		return w->kern[m->kernel];
	if (m->source == SBM_CMD) {
		window_env(E, w, &env);
		if (sbm_cmd_value(m, &env, &v, why, sizeof(why)) < 0) {
			snprintf(w->failure, sizeof(w->failure), "%s", why);
			return NAN;
		}
		if (m->counter)
			v = v >= cmd_at_cs && w->end_s > w->count_start_s ?
			    (v - cmd_at_cs) / (w->end_s - w->count_start_s) : NAN;
	} else {
		v = metric_over(E, E->cs, E->K);
		if (!isfinite(v))
			snprintf(w->failure, sizeof(w->failure), "the metric could not be read: %s",
				 E->why[0] ? E->why : "a counter went backwards or a sample is missing");
	}
	if (isfinite(v) && m->cpu_per_work)
		v = v > 0 ? w->kern[SBK_CPU] / v : NAN;
	return v;
}

/* The window's figures from its ticks: the kernel's, the primary, its slices. */
static void window_values(struct sbe *E, struct sbrun_window *w, double cmd_at_cs)
{
	double v;

	w->count_start_s = E->t[E->cs];
	w->end_s = w->start_s + E->t[E->K];
	w->count_start_s += w->start_s;
	for (int f = 0; f < SBK_COUNT; f++)
		w->kern[f] = kern_rate(E, f, E->cs, E->K);
	w->n_slices = E->tps ? E->p->n_slices : 0;
	for (unsigned q = 0; q < SB_SLICES_MAX; q++)
		w->slice[q] = NAN;
	for (unsigned q = 0; q < w->n_slices && E->p->slices_of_metric; q++) {
		unsigned a = q * E->tps, b = a + E->tps;
		const struct sbm_spec *m = &E->c->metric;

		if (m->source == SBM_KERNEL && !m->cpu_per_work)
			w->slice[q] = kern_rate(E, m->kernel, a, b);
		else if (!m->cpu_per_work)
			w->slice[q] = metric_over(E, a, b);
	}
	v = window_metric(E, w, cmd_at_cs);
	if (w->outcome == SB_WIN_FAILED)
		return;
	if (!isfinite(v) || (sbm_kind(&E->c->metric) == SB_RATE && v <= 0)) {
		w->outcome = SB_WIN_FAILED;
		if (!w->failure[0])
			snprintf(w->failure, sizeof(w->failure), "no work counted in the window (%g)", v);
		return;
	}
	w->outcome = SB_WIN_OK;
	w->value = v;
}

static int window_store(struct sbe *E, const struct sbrun_window *w, struct st_err *e)
{
	struct store_sb_window *row = calloc(1, sizeof(*row));
	int r;

	if (!row)
		return err_set(e, -ENOMEM, "out of memory");
	row->idx = w->index;
	row->block = w->block;
	row->pos = w->pos;
	row->arm_id = E->arm_ids[w->arm];
	snprintf(row->started_at, sizeof(row->started_at), "%s", w->started_at);
	row->start_s = w->start_s;
	row->switch_s = w->switch_s;
	row->count_start_s = w->count_start_s;
	row->end_s = w->end_s;
	snprintf(row->outcome, sizeof(row->outcome), "%s", w->outcome == SB_WIN_OK ? "ok" : "failed");
	row->have_value = w->outcome == SB_WIN_OK;
	row->value = w->value;
	snprintf(row->failure, sizeof(row->failure), "%s", w->failure);
	row->failed_at_s = w->failed_at_s;
	for (int f = 0; f < SBK_COUNT; f++) {
		snprintf(row->metrics[row->n_metrics].key, sizeof(row->metrics[0].key), "%s",
			 sbm_kernel_defs[f].key);
		row->metrics[row->n_metrics++].value = w->kern[f];
	}
	for (unsigned q = 0; q < w->n_slices; q++) {
		sb_slice_key(q, row->metrics[row->n_metrics].key, sizeof(row->metrics[0].key));
		row->metrics[row->n_metrics++].value = w->slice[q];
	}
	r = store_sb_window_add(E->st, E->r->run_id, row, e);
	free(row);
	return r;
}

/* The ticks of window w, from its switch to its end; 1 when the run must end. */
static int window_ticks(struct sbe *E, struct sbrun_window *w, double nominal, double *cmd_at_cs,
			struct st_err *e)
{
	struct sbm_window_env env;
	char why[400];

	for (unsigned k = 1; k <= E->K; k++) {
		if (!sleep_until(E, nominal + k * E->dt))
			return 1;
		take_tick(E, k, nominal);
		if (k == E->cs && E->c->metric.source == SBM_CMD && E->c->metric.counter) {
			w->count_start_s = w->start_s + E->t[k];
			window_env(E, w, &env);
			if (sbm_cmd_value(&E->c->metric, &env, cmd_at_cs, why, sizeof(why)) < 0)
				snprintf(w->failure, sizeof(w->failure), "%s", why);
		}
		if (guard_trips(E, k, w)) {
			int r = apply_arm(E, 0, e);

			w->outcome = SB_WIN_FAILED;
			w->failed_at_s = E->t[k];
			report(E, SBRUN_PHASE_GUARD, w->index, w->failure);
			if (r < 0)
				return r;
		}
		if (workload_gone(E, w))
			return 1;
	}
	return 0;
}

/* Window i: switch, tick, judge its values, store it. 1 when the run must end now. */
static int run_window(struct sbe *E, unsigned i, struct st_err *e)
{
	struct sbrun_window *w = &E->r->w[i];
	struct sb_window sw;
	double nominal, cmd_at_cs = NAN;
	char msg[300];
	int r;

	sb_window_at(&E->p->design, i, &sw);
	memset(w, 0, sizeof(*w));
	w->index = i;
	w->block = sw.block;
	w->pos = sw.pos;
	w->arm = sw.arm;
	w->start_s = sw.start_s;
	w->switch_s = w->failed_at_s = w->value = NAN;
	nominal = E->t0 + sw.start_s;
	if (!sleep_until(E, nominal))
		return 1;
	utc_iso(E->wall0 + sw.start_s, w->started_at, sizeof(w->started_at));
	if (E->cur_arm != (int)sw.arm) {
		if ((r = apply_arm(E, (int)sw.arm, e)) < 0)
			return r;
		w->switch_s = mono() - E->t0;
	}
	take_tick(E, 0, nominal);
	r = window_ticks(E, w, nominal, &cmd_at_cs, e);
	if (r != 0)
		return r;
	window_values(E, w, cmd_at_cs);
	if ((r = window_store(E, w, e)) < 0)
		return r;
	E->r->n_windows = i + 1;
	E->failures += w->outcome == SB_WIN_FAILED;
	if (w->outcome == SB_WIN_OK)
		snprintf(msg, sizeof(msg), "%.4g", w->value);
	else
		snprintf(msg, sizeof(msg), "FAILED: %s", w->failure);
	report(E, SBRUN_PHASE_WINDOW, i, msg);
	if (E->c->max_failures && E->failures >= E->c->max_failures) {
		snprintf(E->r->stop_reason, sizeof(E->r->stop_reason),
			 "%u windows failed (the limit is %u): the run ends with the settings restored",
			 E->failures, E->c->max_failures);
		return 1;
	}
	return 0;
}

static void arm_names(const struct sbe *E, char names[][SB_NAME_MAX])
{
	for (int a = 0; a < SB_ARMS_MAX; a++)
		snprintf(names[a], SB_NAME_MAX, "%s", a < E->c->narms ? E->c->arms[a].name : "");
}

/* The run's windows so far, as the analysis takes them. */
static struct sb_windows windows_of(const struct sbe *E, const char (*names)[SB_NAME_MAX])
{
	return (struct sb_windows){ .d = &E->p->design, .m = &E->c->metric, .w = E->r->w,
				    .n = E->r->n_windows, .n_slices = E->p->n_slices,
				    .n_washout_slices = E->p->n_washout_slices, .slice_s = E->p->slice_s,
				    .names = names };
}

/* After block b (1-based) ends: a look there decides or not. 1 = decided. */
static int look_at(struct sbe *E, unsigned b)
{
	const struct sb_plan *pl = &E->p->design.plan;
	char names[SB_ARMS_MAX][SB_NAME_MAX], msg[300];
	struct sb_windows ws;
	struct sb_result *res = calloc(1, sizeof(*res));
	struct st_err e1 = {0};
	unsigned look = 0;
	int r = 0;

	for (unsigned k = 0; k < pl->n_looks; k++)
		if (pl->looks[k] == b)
			r = 1;
	if (!r || !res) {
		free(res);
		return 0;
	}
	arm_names(E, names);
	ws = windows_of(E, names);
	r = sb_judge_windows(&ws, E->c->min_effect, false, &look, res, &e1);
	if (r == 1) {
		snprintf(msg, sizeof(msg), "look %u/%u at block %u: %s", look + 1, pl->n_looks, b,
			 sb_decision_name(res->decision));
		report(E, SBRUN_PHASE_LOOK, E->r->n_windows - 1, msg);
		r = res->decision != SB_CONTINUE && b < pl->n_blocks;
		if (r)
			snprintf(E->r->stop_reason, sizeof(E->r->stop_reason), "decided at look %u of %u (%s)",
				 look + 1, pl->n_looks, sb_decision_name(res->decision));
	} else {
		r = 0;
	}
	free(res);
	return r;
}

cJSON *sbrun_params_json(const struct sbrun_config *c, const struct sbrun_plan *p)
{
	static const char *const src[] = { "kernel", "cmd", "file", "prom" };
	const struct sb_plan *pl = &p->design.plan;
	cJSON *o = cJSON_CreateObject(), *x, *a, *sch, *m, *g;

	cJSON_AddStringToObject(o, "origin", c->origin ? c->origin : "switchback");
	if (c->verify_of)
		cJSON_AddNumberToObject(o, "verify_of", (double)c->verify_of);
	x = cJSON_AddObjectToObject(o, "plan");
	cJSON_AddNumberToObject(x, "arms", pl->n_arms);
	cJSON_AddNumberToObject(x, "blocks", pl->n_blocks);
	cJSON_AddNumberToObject(x, "window_s", pl->window_s);
	cJSON_AddNumberToObject(x, "washout_s", pl->washout_s);
	a = cJSON_AddArrayToObject(x, "looks");
	for (unsigned k = 0; k < pl->n_looks; k++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(pl->looks[k]));
	cJSON_AddNumberToObject(x, "alpha", pl->alpha);
	fmt_json_u53(x, "seed", pl->seed);
	cJSON_AddNumberToObject(x, "draws", (double)pl->draws);
	cJSON_AddNumberToObject(x, "min_effect", c->min_effect);
	sch = cJSON_AddArrayToObject(o, "schedule");
	for (unsigned b = 0; b < pl->n_blocks; b++) {
		cJSON *row = cJSON_CreateArray();

		for (unsigned q = 0; q < pl->n_arms; q++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber(p->design.order[b][q]));
		cJSON_AddItemToArray(sch, row);
	}
	a = cJSON_AddArrayToObject(o, "arms");
	for (int i = 0; i < c->narms; i++) {
		cJSON *ao = cJSON_CreateObject(), *so = cJSON_AddObjectToObject(ao, "settings");

		cJSON_AddStringToObject(ao, "name", c->arms[i].name);
		for (int k = 0; k < c->arms[i].nset; k++)
			cJSON_AddStringToObject(so, c->arms[i].set[k].name, c->arms[i].set[k].value);
		cJSON_AddItemToArray(a, ao);
	}
	cJSON_AddStringToObject(o, "baseline", c->arms[0].name);
	m = cJSON_AddObjectToObject(o, "metric");
	cJSON_AddStringToObject(m, "source", src[c->metric.source]);
	cJSON_AddStringToObject(m, "kernel", sbm_kernel_defs[c->metric.kernel].name);
	cJSON_AddStringToObject(m, "cmd", c->metric.cmd);
	cJSON_AddStringToObject(m, "path", c->metric.path);
	cJSON_AddStringToObject(m, "url", c->metric.url);
	cJSON_AddStringToObject(m, "name", c->metric.name);
	cJSON_AddStringToObject(m, "label", c->metric.label);
	cJSON_AddBoolToObject(m, "counter", c->metric.counter);
	cJSON_AddBoolToObject(m, "higher_better", c->metric.higher_better);
	cJSON_AddBoolToObject(m, "cpu_per_work", c->metric.cpu_per_work);
	cJSON_AddStringToObject(o, "cgroup", c->cgroup);
	g = cJSON_AddObjectToObject(o, "guard");
	cJSON_AddNumberToObject(g, "psi_full_max", c->psi_full_max);
	cJSON_AddNumberToObject(g, "psi_some_max", c->psi_some_max);
	cJSON_AddNumberToObject(g, "span_s", c->guard_span_s);
	cJSON_AddNumberToObject(g, "max_failures", c->max_failures);
	cJSON_AddStringToObject(g, "psi_scope", p->psi_scope);
	x = cJSON_AddObjectToObject(o, "slices");
	cJSON_AddNumberToObject(x, "n", p->slices_of_metric ? p->n_slices : 0);
	cJSON_AddNumberToObject(x, "washout", p->slices_of_metric ? p->n_washout_slices : 0);
	cJSON_AddNumberToObject(x, "slice_s", p->slices_of_metric ? p->slice_s : 0);
	x = cJSON_AddObjectToObject(o, "settings_now");
	for (int t = 0; t < p->ntouch; t++)
		cJSON_AddStringToObject(x, p->touch[t].name, p->touch[t].current);
	x = cJSON_AddObjectToObject(o, "scope");
	for (int f = 0; f < SBK_COUNT; f++)
		cJSON_AddStringToObject(x, sbm_kernel_defs[f].key, !p->kern_have[f] ? "n/a" :
					p->kern_cgroup[f] ? "cgroup" : "host");
	if (c->max_time_s > 0)
		cJSON_AddNumberToObject(o, "max_time_s", c->max_time_s);
	return o;
}

/* Host facts, the run and its plan, the snapshot before it, the arms' rows. */
static int engine_begin(struct sbe *E, struct st_err *e)
{
	struct host_facts *f = calloc(1, sizeof(*f));
	cJSON *pj = sbrun_params_json(E->c, E->p);
	char mid[128], *params = pj ? cJSON_PrintUnformatted(pj) : NULL;
	int r = !f || !params ? err_set(e, -ENOMEM, "out of memory") : facts_collect(E->h, f, e);

	cJSON_Delete(pj);
	if (r == 0) {
		host_read_machine_id(E->h, mid, sizeof(mid));
		r = store_register_host(E->st, mid, f->hostname, f->kernel, e);
	}
	if (r == 0)
		r = store_run_begin(E->st, SBRUN_KIND, params, &E->r->run_id, e);
	if (r == 0)
		r = store_snapshot_save(E->st, E->r->run_id, "before switchback", &f->settings, NULL, e);
	for (int a = 0; r == 0 && a < E->c->narms; a++) {
		struct store_probe_arm row = { 0 };
		cJSON *so = cJSON_CreateObject();
		char *txt;

		for (int k = 0; k < E->c->arms[a].nset; k++)
			cJSON_AddStringToObject(so, E->c->arms[a].set[k].name, E->c->arms[a].set[k].value);
		txt = cJSON_PrintUnformatted(so);
		snprintf(row.name, sizeof(row.name), "%s", E->c->arms[a].name);
		snprintf(row.settings, sizeof(row.settings), "%s", txt ? txt : "{}");
		r = store_probe_arm_add(E->st, E->r->run_id, &row, &E->arm_ids[a], e);
		cJSON_free(txt);
		cJSON_Delete(so);
	}
	cJSON_free(params);
	if (f)
		facts_free(f);
	free(f);
	return r;
}

/* The tick grid: slices of whole ticks (<= 1 s apart), the counted part on a tick. */
static int engine_grid(struct sbe *E, struct st_err *e)
{
	const struct sb_plan *pl = &E->p->design.plan;

	if (E->p->n_slices) {
		E->tps = (unsigned)ceil(E->p->slice_s - 1e-9);
		E->dt = E->p->slice_s / E->tps;
		E->K = E->tps * E->p->n_slices;
		E->cs = E->tps * E->p->n_washout_slices;
	} else {
		E->tps = 0;
		E->K = (unsigned)ceil(pl->window_s - 1e-9);
		E->dt = pl->window_s / E->K;
		E->cs = (unsigned)lround(pl->washout_s / E->dt);
	}
	if (E->cs >= E->K)
		E->cs = E->K - 1;
	E->t = calloc(E->K + 1, sizeof(*E->t));
	E->m = calloc(E->K + 1, sizeof(*E->m));
	E->kc = calloc(E->K + 1, sizeof(*E->kc));
	if (!E->t || !E->m || !E->kc)
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
}

static int engine_windows(struct sbe *E, struct st_err *e)
{
	struct sampler_opts so = { .cgroup = E->p->cgroup_found ? E->c->cgroup : NULL };
	unsigned k = E->p->design.plan.n_arms, n = E->p->design.plan.n_blocks * k;
	int r;

	if ((r = engine_grid(E, e)) < 0 || (r = sampler_open(&E->smp, E->h, &so, e)) < 0)
		return r;
	E->oom_known = E->p->cgroup_found && memcg_oom_kills(&E->p->cg, &E->oom_kills, NULL) == 0;
	report(E, SBRUN_PHASE_START, 0, "starting");
	E->t0 = mono() + 0.2;
	E->wall0 = utc_now() + 0.2;
	for (unsigned i = 0; i < n; i++) {
		r = run_window(E, i, e);
		if (r != 0)
			return r < 0 ? r : 0;
		if ((i + 1) % k == 0) {
			E->r->blocks_done = (i + 1) / k;
			if (look_at(E, (i + 1) / k))
				return 0;
		}
	}
	return 0;
}

static void engine_end(struct sbe *E, int rc, const struct st_err *e_run)
{
	struct sbrun_result *r = E->r;
	char names[SB_ARMS_MAX][SB_NAME_MAX];
	struct sb_windows ws;
	cJSON *sum = cJSON_CreateObject();
	struct st_err e1 = {0};
	unsigned look = 0;
	char *text;

	if (stop_requested(E->c->stop)) {
		r->status = "interrupted";
		r->signal = stop_requested(E->c->stop);
		snprintf(r->stop_reason, sizeof(r->stop_reason), "stopped by signal %d", r->signal);
	} else if (rc < 0 || r->restore_error[0]) {
		r->status = "failed";
		snprintf(r->error, sizeof(r->error), "%s", rc < 0 ? e_run->msg : r->restore_error);
	} else {
		r->status = r->stop_reason[0] && strncmp(r->stop_reason, "decided", 7) ? "stopped" : "ok";
	}
	arm_names(E, names);
	ws = windows_of(E, names);
	r->have_verdict = sb_judge_windows(&ws, E->c->min_effect, true, &look, &r->verdict, &e1) == 1;
	cJSON_AddStringToObject(sum, "status", r->status);
	cJSON_AddStringToObject(sum, "stop_reason", r->stop_reason);
	cJSON_AddNumberToObject(sum, "windows", r->n_windows);
	cJSON_AddNumberToObject(sum, "blocks", r->blocks_done);
	cJSON_AddStringToObject(sum, "decision", !r->have_verdict || r->verdict.decision == SB_CONTINUE ?
				"inconclusive" : sb_decision_name(r->verdict.decision));
	if (r->have_verdict && r->verdict.chosen >= 0)
		cJSON_AddStringToObject(sum, "chosen", names[r->verdict.chosen]);
	cJSON_AddNumberToObject(sum, "restored", r->restored);
	if (r->error[0])
		cJSON_AddStringToObject(sum, "error", r->error);
	text = cJSON_PrintUnformatted(sum);
	store_run_end(E->st, r->run_id, r->status, text, &e1);
	cJSON_free(text);
	cJSON_Delete(sum);
}

int sbrun_run(const struct host *h, struct store *st, struct sbrun_config *c,
	      const struct sbrun_plan *p, struct sbrun_result *r, struct st_err *e)
{
	struct sbe E = { .h = h, .st = st, .c = c, .p = p, .r = r, .cur_arm = -1 };
	struct st_err e_run = {0}, e_rest = {0};
	double t_start = mono();
	int rc;

	memset(r, 0, sizeof(*r));
	r->status = "failed";
	E.r = r;
	if (!h->live)
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_USAGE,
				    "switchback changes the running kernel's settings: it cannot run under --sysroot (use --dry-run)");
	r->w = calloc(SBRUN_WINDOWS_MAX, sizeof(*r->w));
	if (!r->w)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = engine_begin(&E, e)) < 0) {
		if (r->run_id > 0)
			store_run_end(st, r->run_id, "failed", NULL, NULL);
		return rc;
	}
	journal_begin(&E.j, st, h, r->run_id, e);
	E.journaled = true;
	rc = engine_windows(&E, &e_run);
	/* the settings back first, whatever ended the run */
	if (journal_restore(&E.j, &r->restored, &e_rest) < 0)
		snprintf(r->restore_error, sizeof(r->restore_error), "%s", e_rest.msg);
	report(&E, SBRUN_PHASE_END, r->n_windows ? r->n_windows - 1 : 0, "settings restored");
	if (E.smp)
		sampler_close(E.smp);
	free(E.t);
	free(E.m);
	free(E.kc);
	r->elapsed_s = mono() - t_start;
	engine_end(&E, rc, &e_run);
	if (!strcmp(r->status, "failed")) {
		err_set(e, rc < 0 ? rc : -EIO, "%s", r->error);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}
