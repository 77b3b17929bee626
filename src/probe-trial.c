/*
 * probe-trial.c - one probe trial (see probe-int.h): apply the arm's
 * settings, empty the probe's own swap and the zswap pool (the host's page
 * cache only with --drop-host-caches), fork the workload into a fresh leaf
 * memory cgroup, count around it (vmstat, zswap, memory and CPU PSI, CPU
 * steal and run queue, PMU, rusage, memcg), wait with a stop and a time
 * cap, judge its status, then empty and remove its group.
 */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe-int.h"
#include "swaptune/pmu.h"
#include "swaptune/stop.h"

struct counters {
	struct st_kvtab vm;
	struct st_kvtab zs;
	bool zs_ok;
	struct st_psi psi, cpu_psi;
	bool psi_ok, cpu_psi_ok;
	struct host_cpu_stat cpu;
	bool cpu_ok;
	double at;			/* probe_now_s() of the read */
};

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
	k->cpu_psi_ok = host_read_psi(h, HOST_PSI_CPU, &k->cpu_psi, NULL) == 0;
	k->cpu_ok = host_read_cpu_stat(h, &k->cpu, NULL) == 0;
	k->at = probe_now_s();
	return 0;
}

static void put(struct probe_trial *t, enum probe_metric m, double v)
{
	t->have[m] = true;
	t->v[m] = v;
}

static bool kvtab_get(const void *arg, const char *key, uint64_t *v)
{
	return kv_get(arg, key, v);
}

/* Metric m's delta over the trial, from its vocabulary row's keys in a (before) and b (after). */
static void put_delta(struct probe_trial *t, enum probe_metric m, const struct st_kvtab *a,
		      const struct st_kvtab *b)
{
	const struct vocab_row *r = metric_defs[m].row;
	uint64_t x, y;

	if (vocab_value(r, false, kvtab_get, a, &x) && vocab_value(r, false, kvtab_get, b, &y))
		put(t, m, y >= x ? (double)(y - x) : 0);
}

/* Every vmstat and zswap debugfs counter of the vocabulary that has a per-trial value. */
static void counters_delta(struct probe_trial *t, const struct counters *a,
			   const struct counters *b)
{
	for (int m = 0; m < PM_COUNT; m++) {
		const struct metric_def *d = &metric_defs[m];

		if (d->kind != METRIC_KIND_COUNTER)
			continue;
		if (d->row->source == VSRC_VMSTAT)
			put_delta(t, (enum probe_metric)m, &a->vm, &b->vm);
		else if (d->row->source == VSRC_ZSWAP && a->zs_ok && b->zs_ok)
			put_delta(t, (enum probe_metric)m, &a->zs, &b->zs);
	}
	if (t->have[PM_SWAP_RA] && t->have[PM_SWAP_RA_HIT])
		put(t, PM_RA_WASTED, t->v[PM_SWAP_RA] > t->v[PM_SWAP_RA_HIT] ?
				     t->v[PM_SWAP_RA] - t->v[PM_SWAP_RA_HIT] : 0);
	if (a->psi_ok && b->psi_ok) {
		if (a->psi.some.present && b->psi.some.present)
			put(t, PM_PSI_SOME_US, (double)(b->psi.some.total_us - a->psi.some.total_us));
		if (a->psi.full.present && b->psi.full.present)
			put(t, PM_PSI_FULL_US, (double)(b->psi.full.total_us - a->psi.full.total_us));
	}
	if (a->cpu_psi_ok && b->cpu_psi_ok && b->cpu_psi.some.total_us >= a->cpu_psi.some.total_us) {
		double us = (double)(b->cpu_psi.some.total_us - a->cpu_psi.some.total_us);

		put(t, PM_CPU_PSI_SOME_US, us);
		if (b->at > a->at)
			put(t, PM_CPU_PRESSURE_PCT, 100 * us / ((b->at - a->at) * 1e6));
	}
	if (a->cpu_ok && b->cpu_ok && a->cpu.have_steal && b->cpu.have_steal &&
	    b->cpu.steal >= a->cpu.steal && sysconf(_SC_CLK_TCK) > 0)
		put(t, PM_CPU_STEAL_MS, (double)(b->cpu.steal - a->cpu.steal) * 1000.0 /
				       (double)sysconf(_SC_CLK_TCK));
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
		r = journal_set(&E->j, name, val, true, NULL, e);
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

/*
 * What a trial starts from: the probe's own scratch swap switched off and
 * on again (which empties it and its zswap entries) and the pool checked;
 * the previous trial's group was emptied and removed when it ended
 * (memcg_destroy()), so nothing of it is left charged. Other processes'
 * page cache is left alone: the host-wide sync, drop_caches and compaction
 * run only when the user asked for them (--drop-host-caches).
 */
static int prepare_host(struct engine *E, const struct probe_arm *a, struct probe_trial *t,
			struct st_err *e)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint64_t pages = 0;
	int r;

	if (E->c->drop_host_caches) {
		sync();
		if ((r = host_write(E->h, HOST_DROP_CACHES, "3", e)) < 0)
			return err_prefix(e, "cannot drop caches before a trial");
		/* compaction is best effort: some kernels lack it */
		host_write(E->h, HOST_COMPACT_MEMORY, "1", NULL);
	}
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
	if (probe_is_cmd(c)) {
		put(t, PM_WALL_S, (double)w->wall_ns / 1e9);
		if (w->metric_matched)
			put(t, PM_CMD_METRIC, w->metric_value);
		if (w->user_ns + w->sys_ns > 0)
			put(t, PM_CMD_CPU_S, (double)(w->user_ns + w->sys_ns) / 1e9);
	} else {
		put(t, PM_THROUGHPUT, w->throughput_ops);
		/* the measured phase's own CPU (the workload reads its rusage around it) */
		if (w->user_ns + w->sys_ns > 0)
			put(t, PM_OPS_PER_CPU_S, (double)w->ops * 1e9 / (double)(w->user_ns + w->sys_ns));
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
	int m = metric_find(probe_primary_key(c));

	return m >= 0 && t->have[m] ? t->v[m] : NAN;
}

/* Everything one trial holds between its steps. */
struct trial_ctx {
	struct counters before, after;
	struct pmu_counters *pc;
	double pstart[PMU_MAX_EVENTS];
	struct workload_result *res;
	struct memcg m;
	int resp[2], gop[2], status;
	uint64_t oom0, oom1;
	bool pmu_ok, reaped, eof, timed_out, interrupted;
	size_t got;
	double t0, forked_at, reaped_at, next_sample;
	double runq_sum;		/* procs_running samples while it ran */
	unsigned runq_n;
	struct rusage ru;
	pid_t pid;
};

/* PMU counters on the child, read once at the go; the first trial notes what the PMU gave. */
static void trial_pmu_open(struct engine *E, struct trial_ctx *x)
{
	struct st_err pe = {0};

	x->pmu_ok = pmu_counters_open(x->pc, PMU_TARGET_PID, x->pid, &pe) == 0;
	if (x->pmu_ok && pmu_counters_read(x->pc, NULL) < 0) {
		pmu_counters_close(x->pc);
		x->pmu_ok = false;
	}
	for (int i = 0; x->pmu_ok && i < x->pc->nevents; i++)
		x->pstart[i] = (double)x->pc->ev[i].value;
	if (!E->pmu_noted) {
		snprintf(E->r->cpu_counters, sizeof(E->r->cpu_counters), "%s",
			 x->pmu_ok ? (x->pc->note[0] ? x->pc->note : "hardware and software events") :
			 pe.msg[0] ? pe.msg : "perf events unavailable");
		E->pmu_noted = true;
	}
}

/* Prepare the host, make the group, fork the child, start the counters, let it go. */
static int trial_start(struct engine *E, const struct probe_arm *a, const struct probe_config *c,
		       struct probe_trial *t, struct trial_ctx *x, struct st_err *e)
{
	char name[MEMCG_NAME_MAX];
	int r;

	if ((r = apply_arm(E, a, e)) < 0 || (r = prepare_host(E, a, t, e)) < 0)
		return r;
	snprintf(name, sizeof(name), MEMCG_PREFIX "probe-%d-%u", (int)getpid(), t->seq);
	if ((r = memcg_create(&x->m, E->h, journal_hooks(&E->j), name,
			      (struct memcg_limit){ c->memcg_limit_bytes, c->limit_mode }, e)) < 0)
		return r;
	memcg_oom_kills(&x->m, &x->oom0, NULL);
	if (pipe2(x->resp, O_CLOEXEC) < 0 || pipe2(x->gop, O_CLOEXEC) < 0)
		return err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	x->forked_at = probe_now_s();
	put(t, PM_PREPARE_S, x->forked_at - x->t0);
	x->pid = fork();
	if (x->pid < 0)
		return err_set(e, -errno, "cannot fork the trial process: %s", strerror(errno));
	if (x->pid == 0) {
		close(x->resp[0]);
		close(x->gop[1]);
		trial_child(c, &x->m, x->resp[1], x->gop[0], getppid());
	}
	close(x->resp[1]);
	close(x->gop[0]);
	x->resp[1] = x->gop[0] = -1;

	/* counters start once the child sits in its group, before it runs */
	trial_pmu_open(E, x);
	if ((r = counters_read(E->h, &x->before, e)) < 0) {
		kill(x->pid, SIGKILL);
		waitpid(x->pid, NULL, 0);
		return r;
	}
	write_all(x->gop[1], "g", 1);
	close(x->gop[1]);
	x->gop[1] = -1;
	return 0;
}

/*
 * The host's run queue while the trial runs, every half second: tasks
 * runnable on the host, less this reader itself (it is running while it
 * reads), so a quiet host reads about 1 while the trial computes.
 */
static void sample_runq(struct engine *E, struct trial_ctx *x)
{
	struct host_cpu_stat cs;
	double now = probe_now_s();

	if (x->reaped || now < x->next_sample)
		return;
	x->next_sample = now + 0.5;
	if (host_read_cpu_stat(E->h, &cs, NULL) == 0 && cs.have_procs && cs.procs_running >= 1) {
		x->runq_sum += (double)(cs.procs_running - 1);
		x->runq_n++;
	}
}

/* Read the child's result and reap it; kill it on a stop or at the time cap. */
static void trial_wait(struct engine *E, const struct probe_config *c, struct trial_ctx *x)
{
	double deadline = probe_now_s() + (c->duration_s > 0 ? 2 * c->duration_s + TRIAL_SLACK_S : 3600);
	double reaped_at = 0;

	while (!x->reaped || !x->eof) {
		struct pollfd pf = { .fd = x->resp[0], .events = POLLIN };

		sample_runq(E, x);

		if (!x->interrupted && probe_stopped(E)) {
			x->interrupted = true;
			kill(x->pid, SIGKILL);
		}
		if (!x->reaped && !x->timed_out && probe_now_s() > deadline) {
			x->timed_out = true;
			kill(x->pid, SIGKILL);
		}
		if (!x->eof && poll(&pf, 1, 100) > 0) {
			ssize_t n = read(x->resp[0], (char *)x->res + x->got,
					 x->got < sizeof(*x->res) ? sizeof(*x->res) - x->got : 0);

			if (n == 0 || x->got >= sizeof(*x->res))
				x->eof = true;
			else if (n > 0)
				x->got += (size_t)n;
		} else if (x->eof) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (!x->reaped && wait4(x->pid, &x->status, WNOHANG, &x->ru) == x->pid) {
			x->reaped = true;
			reaped_at = x->reaped_at = probe_now_s();
		}
		/* a stray holder of the pipe must not keep us: the child's result is all we need */
		if (x->reaped && !x->eof && (x->got >= sizeof(*x->res) || probe_now_s() > reaped_at + 2))
			x->eof = true;
	}
}

/* The counters' deltas and the workload's own figures into t. */
static void trial_collect(struct engine *E, const struct probe_config *c, struct probe_trial *t,
			  struct trial_ctx *x)
{
	struct st_kvtab ms;
	uint64_t v;

	if (x->pmu_ok && pmu_counters_read(x->pc, NULL) == 0)
		pmu_delta(t, x->pc, x->pstart);
	counters_read(E->h, &x->after, NULL);
	counters_delta(t, &x->before, &x->after);
	memcg_oom_kills(&x->m, &x->oom1, NULL);
	kv_init(&ms);
	if (memcg_read_stat(&x->m, &ms, NULL) == 0 &&
	    (kv_get(&ms, "pgmajfault", &v) || kv_get(&ms, "total_pgmajfault", &v)))
		put(t, PM_MEMCG_PGMAJFAULT, (double)v);
	kv_free(&ms);
	if (memcg_peak_bytes(&x->m, &v, NULL) == 0)
		put(t, PM_MEMCG_PEAK_BYTES, (double)v);
	put(t, PM_CPU_USER_NS, (double)tv_ns(x->ru.ru_utime));
	put(t, PM_CPU_SYS_NS, (double)tv_ns(x->ru.ru_stime));
	if (x->reaped && x->reaped_at > x->forked_at) {
		double wall = x->reaped_at - x->forked_at;

		put(t, PM_PROCESS_S, wall);
		put(t, PM_CPU_SHARE, (double)(tv_ns(x->ru.ru_utime) + tv_ns(x->ru.ru_stime)) / 1e9 / wall);
	}
	if (x->runq_n)
		put(t, PM_PROCS_RUNNING, x->runq_sum / x->runq_n);
	if (x->got == sizeof(*x->res))
		fill_from_result(c, t, x->res);
}

/* The trial's status, CPU per operation and primary value. */
static void trial_judge(const struct probe_config *c, struct probe_trial *t, const struct trial_ctx *x)
{
	const struct workload_result *res = x->res;

	if (x->interrupted) {
		t->status = PROBE_TRIAL_INTERRUPTED;
		snprintf(t->note, sizeof(t->note), "stopped by signal %d", stop_requested(c->stop));
	} else if (x->oom1 > x->oom0) {
		t->status = PROBE_TRIAL_OOM;
		snprintf(t->note, sizeof(t->note), "OOM-killed in its memory cgroup (%llu kill%s)",
			 (unsigned long long)(x->oom1 - x->oom0), x->oom1 - x->oom0 == 1 ? "" : "s");
	} else if (x->timed_out) {
		t->status = PROBE_TRIAL_TIMEOUT;
		snprintf(t->note, sizeof(t->note), "killed after %.0f s", t->duration_s);
	} else if (WIFSIGNALED(x->status)) {
		t->status = PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "trial process killed by signal %d",
			 WTERMSIG(x->status));
	} else if (x->got != sizeof(*res)) {
		t->status = PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "trial process exited with status %d and no result",
			 WIFEXITED(x->status) ? WEXITSTATUS(x->status) : -1);
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
	else if (probe_is_cmd(c) && t->have[PM_CPU_USER_NS])
		put(t, PM_CPU_NS_PER_OP, t->v[PM_CPU_USER_NS] + t->v[PM_CPU_SYS_NS]);
	if (t->status == PROBE_TRIAL_OK)
		t->primary = primary_of(c, t);
	if (t->status == PROBE_TRIAL_OK && !isfinite(t->primary)) {
		t->status = PROBE_TRIAL_FAILED;
		snprintf(t->note, sizeof(t->note), "no primary metric (%s)",
			 c->primary == PROBE_PRIMARY_METRIC ? "--metric-regex did not match" : "empty result");
	}
}

/* Close what the trial opened and remove its group; r is the trial's result so far. */
static int trial_cleanup(struct trial_ctx *x, int r, struct st_err *e)
{
	if (x->pmu_ok)
		pmu_counters_close(x->pc);
	for (int i = 0; i < 2; i++) {
		if (x->resp[i] >= 0)
			close(x->resp[i]);
		if (x->gop[i] >= 0)
			close(x->gop[i]);
	}
	if (x->m.created) {
		struct st_err e2 = {0};
		int r2 = memcg_destroy(&x->m, &e2);

		if (r2 < 0 && r == 0)
			r = err_set(e, r2, "%s", e2.msg);
	}
	counters_free(&x->before);
	counters_free(&x->after);
	free(x->pc);
	free(x->res);
	free(x);
	return r;
}

/* One trial of arm a: prepare, fresh cgroup, fork, count, wait, judge. */
int probe_trial_run(struct engine *E, const struct probe_arm *a, const struct probe_config *c,
		    struct probe_trial *t, struct st_err *e)
{
	struct trial_ctx *x = calloc(1, sizeof(*x));
	int r;

	if (!x)
		return err_set(e, -ENOMEM, "out of memory");
	x->resp[0] = x->resp[1] = x->gop[0] = x->gop[1] = -1;
	x->t0 = probe_now_s();
	counters_init(&x->before);
	counters_init(&x->after);
	t->primary = NAN;
	x->res = calloc(1, sizeof(*x->res));
	x->pc = calloc(1, sizeof(*x->pc));
	if (!x->res || !x->pc)
		return trial_cleanup(x, err_set(e, -ENOMEM, "out of memory"), e);
	if ((r = trial_start(E, a, c, t, x, e)) < 0)
		return trial_cleanup(x, r, e);
	trial_wait(E, c, x);
	trial_collect(E, c, t, x);
	trial_judge(c, t, x);
	{
		double t0 = x->t0, c0 = probe_now_s();

		r = trial_cleanup(x, 0, e);
		put(t, PM_CLEANUP_S, probe_now_s() - c0);
		/* the whole trial, its group's emptying included: what the time budget counts */
		t->duration_s = probe_now_s() - t0;
	}
	return r;
}
