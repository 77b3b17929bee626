/*
 * probe-busy.c - a probe on a busy host (--busy-host). Before the plan, a
 * short look at the host's CPU time (HOST_STAT twice) says how many CPUs are
 * free for the workload. When fewer than PROBE_BUSY_IDLE_MIN are, a trial
 * gets a share of a CPU, and its wall time measures the other load more than
 * the setting: measured under two CPU hogs on two cores, the log-ratio of
 * throughput between rounds had a standard deviation of 0.31, that of the
 * same trials' operations per CPU second 0.07 (docs/statistics.md, "Busy
 * hosts"). So the probe judges per CPU second (built-in workloads: operations
 * of the measured phase per second of its own user + system CPU, which on
 * zswap holds the decompressing, reading ahead and reclaiming that the
 * setting changes; a command: its CPU seconds) and runs a built-in workload
 * smaller (working set and limit alike, so the same share of it swaps) so the
 * rounds of the first look fit the budget. Not smaller: under CPU starvation
 * pc3's readahead gets it OOM-killed in its cgroup more often the smaller the
 * limit (the hog alone: 1 of 8 trials at 128 MiB, 7 of 8 at 64 MiB; the hog
 * and four compilers: 5 of 8 at 32 MiB), and a trial that does not finish
 * gives no speed to compare. What the user set is not scaled.
 * The decision is made before anything is measured and is stored in the
 * recipe, so a re-run repeats it; nothing here depends on the arms' results.
 * --busy-host per-cpu asks for the metric whatever the look sees, at the
 * sizes given: the rerun line of a run judged per CPU second carries it, so
 * a quiet host repeats the same experiment instead of judging wall time.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "swaptune/probe.h"
#include "swaptune/host.h"
#include "swaptune/settings.h"
#include "swaptune/workload.h"
#include "swaptune/fmt.h"
#include "probe-int.h"

#define BUSY_SAMPLES 10

const char *const probe_busy_modes[] = { "adapt", "ignore", "per-cpu", NULL };

static uint64_t total_ticks(const struct host_cpu_stat *s)
{
	return s->user + s->nice + s->system + s->idle + s->iowait + s->irq + s->softirq + s->steal;
}

/* CPUs free for the workload between a and b, from their tick counts; false when nothing moved. */
bool probe_busy_idle(const struct host_cpu_stat *a, const struct host_cpu_stat *b, double wall_s,
		     double hz, double *idle_cpus, unsigned *cpus)
{
	uint64_t t0 = total_ticks(a), t1 = total_ticks(b);
	uint64_t free0 = a->idle + a->iowait + a->nice, free1 = b->idle + b->iowait + b->nice;
	double span, cpu;

	if (!a->have_cpu || !b->have_cpu || t1 <= t0 || free1 < free0 || wall_s <= 0 || hz <= 0)
		return false;
	span = (double)(t1 - t0);
	cpu = span / (wall_s * hz);
	*cpus = (unsigned)lround(cpu < 1 ? 1 : cpu);
	*idle_cpus = (double)(free1 - free0) / span * (double)*cpus;
	return true;
}

int probe_busy_check(const struct host *h, unsigned ms, struct probe_busy *b, struct st_err *e)
{
	struct host_cpu_stat s0, s1;
	double w0, w1, runq = 0;
	unsigned nrunq = 0;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!h->live)
		return 0;	/* a captured tree does not move: nothing to see */
	if ((rc = host_read_cpu_stat(h, &s0, e)) < 0)
		return rc;
	w0 = probe_now_s();
	/* runnable tasks, sampled through the look (each read counts the reader too) */
	for (unsigned i = 0; i < BUSY_SAMPLES; i++) {
		usleep(ms * 1000u / BUSY_SAMPLES);
		if ((rc = host_read_cpu_stat(h, &s1, e)) < 0)
			return rc;
		if (s1.have_procs && s1.procs_running >= 1) {
			runq += (double)(s1.procs_running - 1);
			nrunq++;
		}
	}
	w1 = probe_now_s();
	b->known = probe_busy_idle(&s0, &s1, w1 - w0, (double)sysconf(_SC_CLK_TCK), &b->idle_cpus,
				   &b->cpus);
	b->busy = b->known && b->idle_cpus < PROBE_BUSY_IDLE_MIN;
	b->runnable = nrunq ? runq / nrunq : 0;
	b->share = probe_busy_share(b->cpus, b->runnable, nrunq > 0);
	return 0;
}

double probe_busy_share(unsigned cpus, double runnable, bool known)
{
	/* a new task among `runnable` others on `cpus` CPUs, all at the same weight */
	if (!known || runnable + 1 <= cpus)
		return 1;
	return (double)cpus / (runnable + 1);
}

/*
 * Per CPU second compares arms whose swap traffic is all CPU work: the
 * readahead settings on zswap (and the bypass arm, zswap or zram in RAM).
 * An arm that turns zswap off or changes its pool sends pages to the swap
 * device, whose waits CPU time does not count (zswap against disk would look
 * cheaper on disk): the settings table says which are CPU-visible
 * (setting_def.cpu_visible). The first other setting, in words, into why.
 */
static bool cpu_blind_setting(const struct probe_config *c, char *why, size_t n)
{
	for (int i = 0; i < c->narms; i++)
		for (int k = 0; k < c->arms[i].nset; k++) {
			const char *name = c->arms[i].set[k].name;
			const struct setting_def *d = settings_find(name);

			if (c->arms[i].bypass || (d && d->cpu_visible))
				continue;
			snprintf(why, n, "arm %s sets %s: CPU time would not see the waits of what it swaps",
				 c->arms[i].name, name);
			return true;
		}
	return false;
}

bool probe_busy_per_cpu_refused(const struct probe_config *c, char *why, size_t n)
{
	if (c->primary == PROBE_PRIMARY_METRIC) {
		snprintf(why, n, "the primary metric is the command's own (%s): CPU time would replace it",
			 c->wp.metric_spec[0] ? "--metric" : "--metric-regex");
		return true;
	}
	return cpu_blind_setting(c, why, n);
}

bool probe_busy_recorded(const struct probe_config *c)
{
	return c->busy.busy || c->busy_mode == PROBE_BUSY_PER_CPU;
}

void probe_busy_adapt(struct probe_config *c, bool ws_given, bool limit_given, bool ops_given)
{
	struct probe_busy *b = &c->busy;

	if (c->busy_mode == PROBE_BUSY_PER_CPU) {
		/* asked for, busy or not; what cannot be judged so was refused before (cmd-probe.c) */
		if (!probe_busy_per_cpu_refused(c, b->why_wall, sizeof(b->why_wall))) {
			c->primary = PROBE_PRIMARY_CPU;
			b->per_cpu = true;
		}
		return;
	}
	if (!b->busy || c->busy_mode == PROBE_BUSY_IGNORE)
		return;
	if (c->primary == PROBE_PRIMARY_METRIC) {
		/* a command's own metric is the user's question: kept */
	} else if (cpu_blind_setting(c, b->why_wall, sizeof(b->why_wall))) {
		/* an arm changes where pages go: CPU time would not see its I/O waits */
	} else {
		c->primary = PROBE_PRIMARY_CPU;
		b->per_cpu = true;
	}
	if (probe_is_cmd(c))
		return;
	if (ws_given || limit_given || ops_given) {
		snprintf(b->why_not_scaled, sizeof(b->why_not_scaled), "--%s was given",
			 ws_given ? "working-set" : limit_given ? "memcg-limit" : "ops");
		return;
	}
	b->ws_was = c->wp.working_set_bytes;
	b->limit_was = c->memcg_limit_bytes;
	b->scale = PROBE_BUSY_SCALE;
	c->wp.working_set_bytes = (uint64_t)((double)c->wp.working_set_bytes * b->scale);
	c->memcg_limit_bytes = (uint64_t)((double)c->memcg_limit_bytes * b->scale);
	b->scaled = true;
}

/* Append to out (n bytes) at *k, as snprintf would: *k counts what did not fit too. */
static void add(char *out, size_t n, size_t *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char *out, size_t n, size_t *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*k += (size_t)vsnprintf(out + (*k < n ? *k : n), *k < n ? n - *k : 0, fmt, ap);
	va_end(ap);
}

size_t probe_busy_text(const struct probe_config *c, char *out, size_t n)
{
	const struct probe_busy *b = &c->busy;
	char ws[32], lim[32], ws0[32], lim0[32];
	size_t k = 0;

	if (n)
		out[0] = 0;
	if (!n || !probe_busy_recorded(c))
		return 0;
	if (b->known)
		add(out, n, &k, "%.1f of %u CPUs idle before the probe", b->idle_cpus, b->cpus);
	if (c->busy_mode == PROBE_BUSY_PER_CPU && b->per_cpu) {
		add(out, n, &k, "%sjudged per CPU second of the workload, as asked (--busy-host per-cpu)%s",
		    b->known ? ": " : "", probe_is_cmd(c) ? "" : "; sizes as given");
		return k;
	}
	if (c->busy_mode == PROBE_BUSY_IGNORE) {
		add(out, n, &k, "; measured as on a quiet host (--busy-host ignore)");
		return k;
	}
	if (b->per_cpu)
		add(out, n, &k, ": judged per CPU second of the workload (its wall time would measure the other load)");
	else if (b->why_wall[0])
		add(out, n, &k, ": wall time kept (%s)", b->why_wall);
	else
		add(out, n, &k, ": the command's own metric is kept");
	if (b->scaled)
		add(out, n, &k, "; working set %s in a %s limit (half of %s in %s) so the rounds fit: it would "
		    "get about %.0f %% of a CPU (%.1f other tasks were runnable)",
		    fmt_bytes(c->wp.working_set_bytes, ws, sizeof(ws)),
		    fmt_bytes(c->memcg_limit_bytes, lim, sizeof(lim)), fmt_bytes(b->ws_was, ws0, sizeof(ws0)),
		    fmt_bytes(b->limit_was, lim0, sizeof(lim0)), 100 * b->share, b->runnable);
	else if (b->why_not_scaled[0])
		add(out, n, &k, "; sizes as given (%s)", b->why_not_scaled);
	return k;
}

cJSON *probe_busy_json(const struct probe_config *c)
{
	const struct probe_busy *b = &c->busy;
	cJSON *o = cJSON_CreateObject();

	/* a busy host was always seen; per-cpu on a captured tree sees nothing */
	if (b->known) {
		cJSON_AddNumberToObject(o, "idle_cpus", round(b->idle_cpus * 100) / 100);
		cJSON_AddNumberToObject(o, "cpus", b->cpus);
	}
	cJSON_AddStringToObject(o, "mode", probe_busy_modes[c->busy_mode]);
	cJSON_AddBoolToObject(o, "per_cpu_second", b->per_cpu);
	cJSON_AddBoolToObject(o, "scaled", b->scaled);
	if (b->known)
		cJSON_AddNumberToObject(o, "runnable", round(b->runnable * 100) / 100);
	if (b->scaled) {
		cJSON_AddNumberToObject(o, "scale", b->scale);
		cJSON_AddNumberToObject(o, "working_set_bytes_asked", (double)b->ws_was);
		cJSON_AddNumberToObject(o, "memcg_limit_bytes_asked", (double)b->limit_was);
	}
	return o;
}
