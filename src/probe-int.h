/*
 * probe-int.h - private to the probe engine's files (src/probe-*.c): the
 * engine state shared by setup, rounds, trials and bypass detection, and
 * the helpers they call across files. The public API is probe.h.
 *
 *   probe-arms.c     arm parsing, built-in arms, describe, round order
 *   probe-plan.c     configuration defaults, the plan and its headroom check
 *   probe-engine.c   setup and teardown, rounds, probe_run()
 *   probe-trial.c    one trial: prepare the host, fork, count, judge
 *   probe-bypass.c   native zswap readahead bypass detection
 *   probe-rows.c     trials <-> the store's rows (store-probe.c)
 *   probe-results.c  per-arm summary, the verdict, the result document
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
	char look_msg[160];		/* where the sequential design stands, for progress */
};

/* probe-arms.c: set (or replace) one setting of an arm. */
void probe_arm_set(struct probe_arm *a, const char *name, const char *value);

/* probe-plan.c: the workload is a command (cmd), not a built-in pattern. */
bool probe_is_cmd(const struct probe_config *c);

/* probe-engine.c */
double probe_now_s(void);
bool probe_stopped(const struct engine *E);
void probe_report(struct engine *E, enum probe_phase ph, const char *arm, unsigned round,
		  const char *msg);
int probe_trials_push(struct probe_result *r, const struct probe_trial *t);
int probe_engine_setup(struct engine *E, struct st_err *e);
void probe_engine_teardown(struct engine *E, struct st_err *e);

/*
 * probe-trial.c: one trial of arm a with config c (E->c, or the detection
 * check's own). Returns < 0 only when the host could not be prepared or
 * cleaned up (the probe stops); a workload that failed is a trial status.
 */
int probe_trial_run(struct engine *E, const struct probe_arm *a, const struct probe_config *c,
		    struct probe_trial *t, struct st_err *e);

/* probe-bypass.c: the detection trial, and the bypass arms settled by it. */
int probe_engine_detect(struct engine *E, struct probe_bypass_check *out, struct st_err *e);
void probe_settle_bypass_arms(struct engine *E, const struct probe_bypass_check *chk);

/* probe-results.c */
/* r->summary from r->trials (the verdict is left alone). */
void probe_summary_stats(const struct probe_config *c, struct probe_result *r);
cJSON *probe_params_json(const struct probe_config *c, const struct probe_plan *p);
const char *probe_primary_key(const struct probe_config *c);
/*
 * Judge rows by c->plan (judge.h) into r->verdict and r->judgement; the
 * sequential decision at the last look reached. Returns it (CONTINUE when
 * the rows could not be judged).
 */
enum verdict2_decision probe_judge_rows(const struct probe_config *c, int baseline,
					const struct store_probe_run *rows, struct probe_result *r);

#endif
