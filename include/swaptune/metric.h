/*
 * metric.h - the probe's per-trial metrics, a view of the counter
 * vocabulary (vocab.h): the key stored in the database and written in JSON,
 * what kind of number it is and which of the advisor's secondary costs it
 * feeds. And the one builder of the advisor's input (struct verdict2_input)
 * from a probe run's stored rows, used by recommend, apply and verify
 * (advice.c) and by the probe for its own summary, so both judge a run the
 * same way.
 */
#ifndef SWAPTUNE_METRIC_H
#define SWAPTUNE_METRIC_H

#include <stdbool.h>

#include "swaptune/advisor.h"
#include "swaptune/store.h"
#include "swaptune/vocab.h"

/*
 * enum probe_metric (PM_*), struct metric_def and metric_defs[] - the
 * per-trial view - are made from the counter vocabulary's rows (vocab.h,
 * vocab-rows.h): a metric is a TRIAL line there, its label, unit and
 * direction are its row's (metric_defs[m].row).
 */

/* The metric whose key is key, or -1. */
int metric_find(const char *key);

/*
 * The verdict's metric for a run's primary key ("throughput_ops", "wall_s",
 * "metric"; for "metric" higher_is_better gives the direction), and in
 * *label the key's label ("" for an unknown key; static storage).
 */
enum verdict_metric metric_primary(const char *key, bool higher_is_better, const char **label);

/* metric_primary() into in->metric and in->metric_name. */
void metric_verdict_primary(const char *key, bool higher_is_better, struct verdict2_input *in);

/*
 * The sequential verdict's input from a probe run's rows (store_probe_run_load(),
 * or rows made from a probe's in-memory trials): every measured trial
 * in its round's slot with its outcome ("ok" with a positive primary value,
 * "oom", "timeout", "failed"; "interrupted" is a missing trial, and so is
 * a round an arm never ran), the primary value and the guarded costs
 * (the secondary costs and p99 latency) of completed trials, and the
 * busy-host covariates (cpu_pressure_pct[], cpu_share[]) of every trial
 * with an outcome (metric_trial_cpu_covariates(), NAN where not stored).
 * in->n_rounds is the last round with any outcome. Leaves metric, metric_name and
 * is_baseline alone. -EBADMSG for more arms than the advisor takes.
 */
int metric_verdict2_input(const struct store_probe_run *run, struct verdict2_input *in);

/*
 * The two busy-host covariates of one trial, as the sequential verdict's
 * per-round fields want them (struct verdict2_arm cpu_pressure_pct[] and
 * cpu_share[]): the host's CPU pressure during
 * the trial (PSI "some", % of the trial process's wall time) and the trial
 * process's CPU time over its wall time (1 = one CPU all the time; above 1
 * for a command with several threads). NAN where the trial's row lacks the
 * metric (an older run, a kernel without CPU PSI).
 */
void metric_trial_cpu_covariates(const struct store_probe_trial *t, double *cpu_pressure_pct,
				 double *cpu_share);

#endif
