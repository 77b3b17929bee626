/*
 * metric.c - the probe's metric table (see metric.h) and the one builder of
 * the advisor's input from a probe run's rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/metric.h"

#define LO METRIC_LOWER_BETTER
#define HI METRIC_HIGHER_BETTER
#define NEU METRIC_NEUTRAL
#define NONE METRIC_SEC_NONE

/*
 * Not folded with the sampler's tables (src/sampler.c: SM_* per-tick
 * values, SC_* running counters), though some twenty rows read the same
 * kernel source (vmstat zswpin, PSI totals, zswap debugfs, perf events): a
 * row here is one trial's delta or level (pages over the trial, us of
 * stall, a latency percentile), judged by direction and fed to the
 * advisor's costs, under a key stored in the metrics table; a sampler row
 * is a per-second rate, a percent of the tick or a level in bytes, under a
 * key of the JSON-lines schema (swaptune.sample/1) and a Prometheus name.
 * Same source, other quantity and unit, and both spellings are published
 * names that cannot change; most rows on either side have no counterpart
 * (latencies, ops, rusage and memcg peak here; reclaim scans, PSI avg10,
 * meminfo and pool levels, IPC there). One table would be two tables side
 * by side.
 */
const struct metric_def metric_defs[PM_COUNT] = {
	[PM_THROUGHPUT] = { "throughput_ops", "throughput", "ops/s", HI, METRIC_KIND_PRIMARY, NONE },
	[PM_WALL_S] = { "wall_s", "wall time", "s", LO, METRIC_KIND_PRIMARY, NONE },
	[PM_CMD_METRIC] = { "metric", "command metric", "", NEU, METRIC_KIND_PRIMARY, NONE },
	[PM_ELAPSED_S] = { "elapsed_s", "measured phase", "s", LO, METRIC_KIND_GAUGE, NONE },
	[PM_SETUP_S] = { "setup_s", "workload setup", "s", NEU, METRIC_KIND_GAUGE, NONE },
	[PM_OPS] = { "ops", "operations", "ops", NEU, METRIC_KIND_GAUGE, NONE },
	[PM_LAT_P50_NS] = { "lat_p50_ns", "access latency p50", "ns", LO, METRIC_KIND_LATENCY, NONE },
	[PM_LAT_P99_NS] = { "lat_p99_ns", "access latency p99", "ns", LO, METRIC_KIND_LATENCY, NONE },
	[PM_LAT_P999_NS] = { "lat_p999_ns", "access latency p99.9", "ns", LO, METRIC_KIND_LATENCY, NONE },
	[PM_ZSWPIN] = { "zswpin", "zswap swap-ins", "pages", LO, METRIC_KIND_COUNTER,
			VERDICT_SEC_ZSWPIN_PAGES },
	[PM_ZSWPOUT] = { "zswpout", "zswap swap-outs", "pages", LO, METRIC_KIND_COUNTER,
			 VERDICT_SEC_ZSWPOUT_PAGES },
	[PM_ZSWPWB] = { "zswpwb", "zswap writebacks", "pages", LO, METRIC_KIND_COUNTER, NONE },
	[PM_PSWPIN] = { "pswpin", "swap-ins from the device", "pages", LO, METRIC_KIND_COUNTER, NONE },
	[PM_PSWPOUT] = { "pswpout", "swap-outs to the device", "pages", LO, METRIC_KIND_COUNTER, NONE },
	[PM_SWAP_RA] = { "swap_ra", "swap readahead", "pages", NEU, METRIC_KIND_COUNTER, NONE },
	[PM_SWAP_RA_HIT] = { "swap_ra_hit", "swap readahead hits", "pages", HI, METRIC_KIND_COUNTER, NONE },
	[PM_RA_WASTED] = { "swap_ra_wasted", "wasted swap readahead", "pages", LO, METRIC_KIND_DERIVED,
			   VERDICT_SEC_WASTED_RA_PAGES },
	[PM_PGMAJFAULT] = { "pgmajfault", "major faults (host)", "faults", LO, METRIC_KIND_COUNTER,
			    VERDICT_SEC_MAJOR_FAULTS },
	[PM_REFAULT_ANON] = { "workingset_refault_anon", "anon refaults", "pages", LO,
			      METRIC_KIND_COUNTER, NONE },
	[PM_REFAULT_FILE] = { "workingset_refault_file", "file refaults", "pages", LO,
			      METRIC_KIND_COUNTER, NONE },
	[PM_PSI_SOME_US] = { "psi_some_us", "memory stall (PSI some)", "us", LO, METRIC_KIND_COUNTER,
			     VERDICT_SEC_PSI_SOME_US },
	[PM_PSI_FULL_US] = { "psi_full_us", "memory stall (PSI full)", "us", LO, METRIC_KIND_COUNTER, NONE },
	[PM_CPU_USER_NS] = { "cpu_user_ns", "user CPU", "ns", LO, METRIC_KIND_COUNTER, NONE },
	[PM_CPU_SYS_NS] = { "cpu_sys_ns", "system CPU", "ns", LO, METRIC_KIND_COUNTER, NONE },
	[PM_CPU_NS_PER_OP] = { "cpu_ns_per_op", "CPU per operation", "ns", LO, METRIC_KIND_DERIVED,
			       VERDICT_SEC_CPU_NS_PER_OP },
	[PM_TASK_CLOCK_NS] = { "task_clock_ns", "task clock", "ns", LO, METRIC_KIND_COUNTER, NONE },
	[PM_CTX_SWITCHES] = { "context_switches", "context switches", "switches", LO,
			      METRIC_KIND_COUNTER, NONE },
	[PM_CYCLES] = { "cycles", "CPU cycles", "cycles", LO, METRIC_KIND_COUNTER, NONE },
	[PM_INSTRUCTIONS] = { "instructions", "instructions", "instructions", NEU, METRIC_KIND_COUNTER, NONE },
	[PM_MAJ_FAULTS] = { "maj_faults", "major faults (workload)", "faults", LO, METRIC_KIND_COUNTER, NONE },
	[PM_MIN_FAULTS] = { "min_faults", "minor faults (workload)", "faults", NEU, METRIC_KIND_COUNTER, NONE },
	[PM_MEMCG_PEAK_BYTES] = { "memcg_peak_bytes", "memory cgroup peak", "bytes", NEU,
				  METRIC_KIND_GAUGE, NONE },
	[PM_MEMCG_PGMAJFAULT] = { "memcg_pgmajfault", "major faults (memory cgroup)", "faults", LO,
				  METRIC_KIND_COUNTER, NONE },
	[PM_ZSWAP_STORED_BEFORE] = { "zswap_stored_pages_before", "zswap pool before the trial", "pages",
				     NEU, METRIC_KIND_GAUGE, NONE },
	[PM_ZSWAP_POOL_LIMIT_HIT] = { "zswap_pool_limit_hit", "zswap pool limit hits", "events", LO,
				      METRIC_KIND_COUNTER, NONE },
	[PM_ZSWAP_REJECT_POOR] = { "zswap_reject_compress_poor", "zswap poor-compression rejects",
				   "pages", LO, METRIC_KIND_COUNTER, NONE },
	[PM_ZSWAP_WRITTEN_BACK] = { "zswap_written_back_pages", "zswap pages written back", "pages", LO,
				    METRIC_KIND_COUNTER, NONE },
	[PM_PREPARE_S] = { "prepare_s", "trial preparation", "s", NEU, METRIC_KIND_GAUGE, NONE },
	[PM_PROCESS_S] = { "process_s", "trial process wall time", "s", NEU, METRIC_KIND_GAUGE, NONE },
	[PM_CLEANUP_S] = { "cleanup_s", "trial cgroup emptying", "s", NEU, METRIC_KIND_GAUGE, NONE },
	[PM_CPU_PSI_SOME_US] = { "cpu_psi_some_us", "host CPU stall (PSI some)", "us", NEU,
				 METRIC_KIND_COUNTER, NONE },
	[PM_CPU_PRESSURE_PCT] = { "cpu_pressure_pct", "host CPU pressure", "%", NEU, METRIC_KIND_DERIVED,
				  NONE },
	[PM_CPU_STEAL_MS] = { "cpu_steal_ms", "host CPU steal", "ms", NEU, METRIC_KIND_COUNTER, NONE },
	[PM_PROCS_RUNNING] = { "procs_running", "runnable tasks (host)", "tasks", NEU, METRIC_KIND_GAUGE,
			       NONE },
	[PM_CPU_SHARE] = { "cpu_share", "trial CPU time / wall time", "ratio", NEU, METRIC_KIND_DERIVED,
			   NONE },
};

int metric_find(const char *key)
{
	for (int m = 0; m < PM_COUNT; m++)
		if (!strcmp(metric_defs[m].key, key))
			return m;
	return -1;
}

enum verdict_metric metric_primary(const char *key, bool higher_is_better, const char **label)
{
	int m = metric_find(key);

	*label = m >= 0 ? metric_defs[m].label : "";
	if (m == PM_THROUGHPUT)
		return VERDICT_METRIC_THROUGHPUT;
	if (m == PM_WALL_S)
		return VERDICT_METRIC_WALL_TIME;
	return higher_is_better ? VERDICT_METRIC_HIGHER_BETTER : VERDICT_METRIC_LOWER_BETTER;
}

void metric_verdict_primary(const char *key, bool higher_is_better, struct verdict_input *in)
{
	const char *label;

	in->metric = metric_primary(key, higher_is_better, &label);
	snprintf(in->metric_name, sizeof(in->metric_name), "%s", label);
}

static int arm_index(const struct store_probe_run *run, int64_t arm_id)
{
	for (size_t i = 0; i < run->n_arms; i++)
		if (run->arms[i].id == arm_id)
			return (int)i;
	return -1;
}

/* One used trial's secondary costs into slot n of va; have[] counts trials with each. */
/*
 * The guarded costs of one trial by cost index (the VERDICT_SEC_* costs,
 * then p99 latency): got[c] set for each present; wasted readahead falls
 * back to swap_ra - swap_ra_hit for rows without a key of their own.
 */
static void trial_costs_of(const struct store_probe_trial *t, double v[VERDICT2_COSTS],
			   bool got[VERDICT2_COSTS])
{
	double ra = NAN, ra_hit = NAN;

	for (int c = 0; c < VERDICT2_COSTS; c++)
		got[c] = false;
	for (size_t k = 0; k < t->n_metrics; k++) {
		int m = metric_find(t->metrics[k].key);
		double x = t->metrics[k].value;

		if (m == PM_SWAP_RA)
			ra = x;
		else if (m == PM_SWAP_RA_HIT)
			ra_hit = x;
		if (m < 0 || !isfinite(x))
			continue;
		if (m == PM_LAT_P99_NS) {
			v[VERDICT2_COST_P99_LATENCY] = x;
			got[VERDICT2_COST_P99_LATENCY] = true;
		} else if (metric_defs[m].secondary != METRIC_SEC_NONE) {
			v[metric_defs[m].secondary] = x;
			got[metric_defs[m].secondary] = true;
		}
	}
	if (!got[VERDICT_SEC_WASTED_RA_PAGES] && isfinite(ra) && isfinite(ra_hit) && ra >= ra_hit) {
		v[VERDICT_SEC_WASTED_RA_PAGES] = ra - ra_hit;
		got[VERDICT_SEC_WASTED_RA_PAGES] = true;
	}
}

static void trial_secondaries(const struct store_probe_trial *t, struct verdict_arm *va, size_t n,
			      unsigned have[VERDICT_SEC_COUNT])
{
	double v[VERDICT2_COSTS];
	bool got[VERDICT2_COSTS];

	trial_costs_of(t, v, got);
	for (int s = 0; s < VERDICT_SEC_COUNT; s++)
		if (got[s]) {
			va->secondary[s][n] = v[s];
			have[s]++;
		}
}

int metric_verdict_arms(const struct store_probe_run *run, struct verdict_input *in)
{
	unsigned have[VERDICT_ARMS_MAX][VERDICT_SEC_COUNT];

	if (run->n_arms > VERDICT_ARMS_MAX)
		return -EBADMSG;
	memset(have, 0, sizeof(have));
	in->n_arms = run->n_arms;
	for (size_t i = 0; i < run->n_arms; i++) {
		memset(&in->arms[i], 0, sizeof(in->arms[i]));
		snprintf(in->arms[i].name, sizeof(in->arms[i].name), "%s", run->arms[i].name);
	}
	for (size_t k = 0; k < run->n_trials; k++) {
		const struct store_probe_trial *t = &run->trials[k];
		int ai = arm_index(run, t->arm_id);
		struct verdict_arm *va;

		if (ai < 0 || t->warmup)
			continue;
		va = &in->arms[ai];
		if (!strcmp(t->status, "oom")) {
			va->n_oom_killed++;
			continue;
		}
		if (strcmp(t->status, "ok") || !t->have_primary || va->n_trials >= VERDICT_TRIALS_MAX)
			continue;
		va->primary[va->n_trials] = t->primary;
		trial_secondaries(t, va, va->n_trials, have[ai]);
		va->n_trials++;
	}
	for (size_t i = 0; i < run->n_arms; i++)
		for (int s = 0; s < VERDICT_SEC_COUNT; s++)
			in->arms[i].has_secondary[s] = in->arms[i].n_trials > 0 &&
						       have[i][s] == in->arms[i].n_trials;
	return 0;
}

static enum verdict_outcome trial_outcome(const struct store_probe_trial *t)
{
	if (!strcmp(t->status, "ok"))
		/* a log-ratio needs a positive value: anything else is a failed trial */
		return t->have_primary && isfinite(t->primary) && t->primary > 0 ?
		       VERDICT_OUT_OK : VERDICT_OUT_FAILED;
	if (!strcmp(t->status, "oom"))
		return VERDICT_OUT_OOM;
	if (!strcmp(t->status, "timeout"))
		return VERDICT_OUT_TIMEOUT;
	if (!strcmp(t->status, "failed"))
		return VERDICT_OUT_FAILED;
	return VERDICT_OUT_MISSING;	/* interrupted: the probe stopped, not the arm */
}

/* The costs of one OK trial into round slot r (negative values are not costs). */
static void trial_costs(const struct store_probe_trial *t, struct verdict2_arm *va, size_t r,
			bool got[VERDICT2_COSTS])
{
	double v[VERDICT2_COSTS];

	trial_costs_of(t, v, got);
	for (int c = 0; c < VERDICT2_COSTS; c++)
		if (got[c] && v[c] >= 0)
			va->cost[c][r] = v[c];
		else
			got[c] = false;
}

void metric_trial_cpu_covariates(const struct store_probe_trial *t, double *cpu_pressure_pct,
				 double *cpu_share)
{
	*cpu_pressure_pct = *cpu_share = NAN;
	for (size_t k = 0; k < t->n_metrics; k++) {
		int m = metric_find(t->metrics[k].key);

		if (m == PM_CPU_PRESSURE_PCT)
			*cpu_pressure_pct = t->metrics[k].value;
		else if (m == PM_CPU_SHARE)
			*cpu_share = t->metrics[k].value;
	}
}

int metric_verdict2_input(const struct store_probe_run *run, struct verdict2_input *in)
{
	unsigned ok[VERDICT_ARMS_MAX] = { 0 }, have[VERDICT_ARMS_MAX][VERDICT2_COSTS];

	if (run->n_arms > VERDICT_ARMS_MAX)
		return -EBADMSG;
	memset(have, 0, sizeof(have));
	in->n_arms = run->n_arms;
	in->n_rounds = 0;
	for (size_t i = 0; i < run->n_arms; i++) {
		memset(&in->arms[i], 0, sizeof(in->arms[i]));
		snprintf(in->arms[i].name, sizeof(in->arms[i].name), "%s", run->arms[i].name);
	}
	for (size_t k = 0; k < run->n_trials; k++) {
		const struct store_probe_trial *t = &run->trials[k];
		int ai = arm_index(run, t->arm_id);
		struct verdict2_arm *va;
		bool got[VERDICT2_COSTS] = { false };
		size_t r;

		if (ai < 0 || t->warmup || t->round < 1 || t->round > VERDICT2_ROUNDS_MAX)
			continue;
		r = t->round - 1;
		va = &in->arms[ai];
		va->outcome[r] = trial_outcome(t);
		if (va->outcome[r] == VERDICT_OUT_MISSING)
			continue;
		if (t->round > in->n_rounds)
			in->n_rounds = t->round;
		if (va->outcome[r] != VERDICT_OUT_OK)
			continue;
		va->primary[r] = t->primary;
		trial_costs(t, va, r, got);
		ok[ai]++;
		for (int c = 0; c < VERDICT2_COSTS; c++)
			have[ai][c] += got[c];
	}
	/* a cost counts for an arm only when every completed trial has it */
	for (size_t i = 0; i < run->n_arms; i++)
		for (int c = 0; c < VERDICT2_COSTS; c++)
			in->arms[i].has_cost[c] = ok[i] > 0 && have[i][c] == ok[i];
	return 0;
}
