/*
 * probe-int.h - private to the probe engine's files (src/probe-*.c): the
 * engine state shared by setup, rounds, trials and bypass detection, and
 * the helpers they call across files. The public API is probe.h.
 *
 * Bottom up; each file calls only the ones above it in this list:
 *
 *   probe-arms.c     arm parsing, built-in arms, describe, round order
 *                    (probe-arms.h; it takes nothing from here)
 *   probe.c          configuration defaults and seeds, trial status names,
 *                    freeing a result (probe.h alone; nothing from here)
 *   probe-state.c    the engine's clock, stop flag, progress reports and
 *                    trial list
 *   probe-budget.c   the time budget: expected trial times, the rounds that
 *                    fit, the refusal or short run, the administrative look
 *   probe-plan.c     the plan and its headroom check, the host changes
 *                    in words
 *   probe-busy.c     the look at the host's idle CPUs before a probe, and
 *                    what a busy host changes
 *   probe-rows.c     trials <-> the store's rows (store-probe.c)
 *   probe-results.c  per-arm summary, the verdict, the result document
 *   probe-trial.c    one trial: prepare the host, fork, count, judge
 *   probe-setup.c    setting the host up for a probe, and restoring it
 *   probe-bypass.c   native zswap readahead bypass detection: a client of
 *                    setup and trial, called by the round loop
 *   probe-engine.c   the round loop, probe_run()
 */
#ifndef SWAPTUNE_PROBE_INT_H
#define SWAPTUNE_PROBE_INT_H

#include <time.h>

#include "swaptune/journal.h"
#include "swaptune/metric.h"
#include "swaptune/probe.h"
#include "swaptune/scratch-swap.h"

#define MiB (1024ull * 1024)

/* A trial may start once the zswap pool holds at most this many pages. */
#define POOL_CLEAN_PAGES 256
/* Time allowed on top of the measured-phase cap for setup and teardown. */
#define TRIAL_SLACK_S 60.0

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
	double start_s;			/* probe_now_s() when the run began */
	char look_msg[320];		/* where the sequential design stands, for progress */
	/* the time budget (probe-budget.c) */
	struct judge_plan plan0;	/* the plan before the budget cut it */
	double setup_s;			/* setting the host up took this: kept for teardown */
	double warm_est_s[PROBE_ARMS_MAX];	/* warm-up trial of each arm, rescaled */
	double arm_sum_s[PROBE_ARMS_MAX];	/* measured trials of each arm */
	unsigned arm_n[PROBE_ARMS_MAX];
	double gap_sum_s;		/* time between trials (rows, looks, progress) */
	unsigned gap_n;
	double prev_start_s, prev_dur_s;
	bool out_of_time;		/* a trial was not started: it would not fit */
	unsigned round_started;		/* trials of the current round started */
};

/* probe-plan.c: the workload is a command (cmd), not a built-in pattern. */
bool probe_is_cmd(const struct probe_config *c);

/* probe-state.c */
double probe_now_s(void);
bool probe_stopped(const struct engine *E);
/* the rounds a run is expected to complete: those that fit the budget, or `last` if fewer */
unsigned probe_expected_rounds(const struct probe_budget *b, unsigned last);
void probe_report(struct engine *E, enum probe_phase ph, const char *arm, unsigned round,
		  const char *msg);
/* A line the front end should keep on screen (what the time budget can answer). */
void probe_report_keep(struct engine *E, unsigned round, const char *msg);
int probe_trials_push(struct probe_result *r, const struct probe_trial *t);

/* probe-setup.c: the host before the first trial and after the last. */
int probe_engine_setup(struct engine *E, struct st_err *e);
/* zram set up (and swapped off again) for the bypass emulated by zram. */
int probe_engine_zram(struct engine *E, struct st_err *e);
void probe_engine_teardown(struct engine *E, struct st_err *e);

/*
 * probe-trial.c: one trial of arm a with config c (E->c, or the detection
 * check's own). Returns < 0 only when the host could not be prepared or
 * cleaned up (the probe stops); a workload that failed is a trial status.
 */
int probe_trial_run(struct engine *E, const struct probe_arm *a, const struct probe_config *c,
		    struct probe_trial *t, struct st_err *e);

/* probe-budget.c (see struct probe_budget in probe.h) */
/* each arm's first time estimate from its warm-up trial, rescaled by ratio (the
 * calibrated accesses over the warm-up's); a failed one at least the completed ones' mean */
void probe_budget_warmup(struct engine *E, double ratio);
/* A trial of arm `arm` is about to start / has ended (t: its row). */
void probe_budget_trial_start(struct engine *E);
void probe_budget_trial_end(struct engine *E, const struct probe_trial *t);
/* Seconds a trial of arm is expected to take, the gap to the next included. */
double probe_budget_trial_s(const struct engine *E, int arm);
/* Seconds a round of every arm is expected to take. */
double probe_budget_round_s(const struct engine *E);
/* Whether need_s more (and the teardown) fit before the ceiling. */
bool probe_budget_fits(const struct engine *E, double need_s);
/*
 * After the warm-up (or round 1 without one): the rounds that fit, the plan
 * cut to them, what that can answer (r->budget, reported as progress), and
 * when the first look does not fit: c->short_policy decides - refuse (exit
 * 2 with what it needs), a short run, or a longer budget. < 0 = refused.
 */
int probe_budget_plan(struct engine *E, unsigned rounds_done, struct st_err *e);
/*
 * Time ran out after `rounds` complete rounds, k looks taken (partial: a
 * round was left incomplete): the plan cut to `rounds` for the final look.
 * Returns true when a final look is due (rounds >= 2).
 */
bool probe_budget_admin_stop(struct engine *E, unsigned rounds, size_t k, bool partial);
/* The budget as stored with the run (params "method"."budget"). */
cJSON *probe_budget_json(const struct probe_budget *b);
/* "6 min 40 s" and "7m" (a --max-time value); both into buf. */
const char *probe_fmt_secs(double s, char *buf, size_t len);

/*
 * probe-bypass.c: the detection trial (zram first when the bypass is
 * emulated by it), and the bypass arms settled by what it found.
 */
int probe_engine_bypass(struct engine *E, struct st_err *e);

/* probe-results.c */
/* r->summary from r->trials (the verdict is left alone). */
void probe_summary_stats(const struct probe_config *c, struct probe_result *r);
cJSON *probe_params_json(const struct probe_config *c, const struct probe_plan *p);
/*
 * Judge rows by c->plan (judge.h) into r->verdict and r->judgement; the
 * sequential decision at the last look reached. Returns it (CONTINUE when
 * the rows could not be judged).
 */
enum verdict2_decision probe_judge_rows(const struct probe_config *c, int baseline,
					const struct store_probe_run *rows, struct probe_result *r);

#endif
