/*
 * metric.h - the probe's per-trial metric vocabulary, in one table: the key
 * stored in the database and written in JSON, a human label, the unit, which
 * direction is better, what kind of number it is, and which of the
 * advisor's secondary costs it feeds. And the one builder of the advisor's
 * input (struct verdict_input) from a probe run's stored rows, used by
 * recommend, apply and verify (advice.c) and by the probe for its own
 * summary, so both judge a run the same way.
 */
#ifndef SWAPTUNE_METRIC_H
#define SWAPTUNE_METRIC_H

#include <stdbool.h>

#include "swaptune/advisor.h"
#include "swaptune/store.h"

enum probe_metric {
	PM_THROUGHPUT = 0,	/* ops/s of the measured phase */
	PM_WALL_S,		/* cmd: fork to exit */
	PM_CMD_METRIC,		/* cmd: number matched by --metric-regex */
	PM_ELAPSED_S,		/* measured phase */
	PM_SETUP_S,
	PM_OPS,
	PM_LAT_P50_NS,
	PM_LAT_P99_NS,
	PM_LAT_P999_NS,
	PM_ZSWPIN,		/* /proc/vmstat deltas, pages */
	PM_ZSWPOUT,
	PM_ZSWPWB,
	PM_PSWPIN,
	PM_PSWPOUT,
	PM_SWAP_RA,
	PM_SWAP_RA_HIT,
	PM_RA_WASTED,		/* swap_ra - swap_ra_hit */
	PM_PGMAJFAULT,
	PM_REFAULT_ANON,
	PM_REFAULT_FILE,
	PM_PSI_SOME_US,		/* host memory PSI total deltas */
	PM_PSI_FULL_US,
	PM_CPU_USER_NS,		/* the trial process and its children (wait4) */
	PM_CPU_SYS_NS,
	PM_CPU_NS_PER_OP,
	PM_TASK_CLOCK_NS,	/* perf software event, inherited */
	PM_CTX_SWITCHES,
	PM_CYCLES,		/* hardware, when the PMU allows */
	PM_INSTRUCTIONS,
	PM_MAJ_FAULTS,		/* the workload's own rusage */
	PM_MIN_FAULTS,
	PM_MEMCG_PEAK_BYTES,
	PM_MEMCG_PGMAJFAULT,
	PM_ZSWAP_STORED_BEFORE,	/* pages in the pool when the trial started */
	PM_ZSWAP_POOL_LIMIT_HIT,
	PM_ZSWAP_REJECT_POOR,
	PM_ZSWAP_WRITTEN_BACK,
	PM_PREPARE_S,		/* the trial's phases: host preparation before the fork, */
	PM_PROCESS_S,		/* the trial process from fork to reap, */
	PM_CLEANUP_S,		/* emptying and removing its memory cgroup */
	PM_CPU_PSI_SOME_US,	/* busy-host covariates: host CPU PSI "some" total delta, */
	PM_CPU_PRESSURE_PCT,	/* that as a share of the trial process's wall time, */
	PM_CPU_STEAL_MS,	/* host CPU steal (all CPUs), */
	PM_PROCS_RUNNING,	/* runnable tasks on the host, mean over the trial, */
	PM_CPU_SHARE,		/* the trial process's CPU time / its wall time */
	PM_COUNT
};

enum metric_direction {
	METRIC_NEUTRAL = 0,		/* context, neither better nor worse */
	METRIC_LOWER_BETTER,
	METRIC_HIGHER_BETTER,
};

enum metric_kind {
	METRIC_KIND_PRIMARY = 0,	/* a candidate primary metric */
	METRIC_KIND_COUNTER,		/* a counter's delta over the trial */
	METRIC_KIND_GAUGE,		/* a level read once */
	METRIC_KIND_DERIVED,		/* computed from other metrics */
	METRIC_KIND_LATENCY,		/* a latency percentile */
};

/* The secondary field of a metric that feeds none of the advisor's costs. */
#define METRIC_SEC_NONE (-1)

struct metric_def {
	const char *key;		/* database and JSON key: "zswpin" (never renamed) */
	const char *label;		/* "zswap swap-ins" */
	const char *unit;		/* "ops/s", "pages", "ns", ... */
	enum metric_direction direction;
	enum metric_kind kind;
	int secondary;			/* enum verdict_secondary, or METRIC_SEC_NONE */
};

extern const struct metric_def metric_defs[PM_COUNT];

/* The metric whose key is key, or -1. */
int metric_find(const char *key);

/*
 * The verdict's metric for a run's primary key ("throughput_ops", "wall_s",
 * "metric"; for "metric" higher_is_better gives the direction), and in
 * *label the key's label ("" for an unknown key; static storage).
 */
enum verdict_metric metric_primary(const char *key, bool higher_is_better, const char **label);

/* metric_primary() into in->metric and in->metric_name. */
void metric_verdict_primary(const char *key, bool higher_is_better, struct verdict_input *in);

/*
 * The advisor's arms from a probe run's rows (store_probe_run_load(), or rows
 * made from a probe's in-memory trials): in->n_arms and every arm's name,
 * primary values and secondary costs, in trial order (round, seq). Warm-up
 * trials are skipped; "oom" trials count in n_oom_killed; trials not "ok" or
 * without a primary value are not used; at most VERDICT_TRIALS_MAX per arm.
 * A secondary is used for an arm only when every used trial has it (wasted
 * readahead falls back to swap_ra - swap_ra_hit). Leaves in->metric,
 * metric_name and is_baseline alone. -EBADMSG when the run has more arms
 * than the advisor takes.
 */
int metric_verdict_arms(const struct store_probe_run *run, struct verdict_input *in);

/*
 * The sequential verdict's input from the same rows: every measured trial
 * in its round's slot with its outcome ("ok" with a positive primary value,
 * "oom", "timeout", "failed"; "interrupted" is a missing trial, and so is
 * a round an arm never ran), the primary value and the guarded costs
 * (the secondary costs and p99 latency) of completed trials. in->n_rounds
 * is the last round with any outcome. Leaves metric, metric_name and
 * is_baseline alone. -EBADMSG for more arms than the advisor takes.
 */
int metric_verdict2_input(const struct store_probe_run *run, struct verdict2_input *in);

/*
 * The two busy-host covariates of one trial, as the sequential verdict's
 * per-round fields want them (struct verdict2_arm cpu_pressure_pct[] and
 * cpu_share[], once the advisor has them): the host's CPU pressure during
 * the trial (PSI "some", % of the trial process's wall time) and the trial
 * process's CPU time over its wall time (1 = one CPU all the time; above 1
 * for a command with several threads). NAN where the trial's row lacks the
 * metric (an older run, a kernel without CPU PSI).
 */
void metric_trial_cpu_covariates(const struct store_probe_trial *t, double *cpu_pressure_pct,
				 double *cpu_share);

#endif
