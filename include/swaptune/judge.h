/*
 * judge.h - how every command judges a probe run: the analysis plan fixed
 * before the data (stored with the run), the sequential paired verdict of
 * the advisor (verdict2_look) at the last planned look the run reached, and
 * its translation into the verdict_result the renderers, apply, verify and
 * the TUI read. One place, so that probe, recommend, apply, verify, report
 * and the TUI cannot disagree about a run; its verdict line is also the
 * switchback's, so that the two kinds of run read alike.
 */
#ifndef SWAPTUNE_JUDGE_H
#define SWAPTUNE_JUDGE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "swaptune/advisor.h"
#include "swaptune/err.h"

/*
 * The analysis plan (params "plan" of a probe run). looks[] are the looks
 * of the design as it stands; when it was truncated (a time budget fixed
 * after the warm-up, or an administrative stop when time ran out),
 * planned[] holds the looks first planned (n_planned > 0): the looks before
 * the last keep the bounds they had in that design and the last look spends
 * what is left (verdict2_design_truncate()). alpha is the false-change
 * bound over every run of the recipe: a run alone is judged at
 * verdict2_rep_alpha(alpha, 1).
 */
struct judge_plan {
	bool recorded;			/* false: not stored (an older run) */
	bool sequential;		/* looks at several rounds; false = fixed --reps */
	size_t n_looks;
	unsigned looks[VERDICT2_LOOKS_MAX];
	size_t n_planned;		/* 0: never truncated */
	unsigned planned[VERDICT2_LOOKS_MAX];
	double alpha;			/* one-sided false-change bound over all runs of the recipe */
	double min_effect_pct;		/* the smallest estimated gain worth a change */
	char baseline[VERDICT_NAME_MAX];
	/*
	 * The arms' order was drawn afresh in every round (params "order":
	 * "random", since v4), what the randomisation tests rest on; false for
	 * a run stored before, whose rounds followed a fixed cycle.
	 */
	bool order_random;
};

/* The default plan: sequential looks VERDICT2_DEFAULT_LOOKS, alpha 0.025, 2 %. */
void judge_plan_default(struct judge_plan *p);
/* The plan of a fixed design of n rounds (--reps N, or a run without a plan). */
void judge_plan_fixed(struct judge_plan *p, unsigned n);
/*
 * The design now ends at round max_rounds: the looks below it are kept, a
 * last look at max_rounds spends what is left (nothing changes when
 * max_rounds is at or beyond the last look). The looks first planned are
 * recorded on the first truncation, so that looks already taken keep their
 * bounds: the same call serves a budget before any measured trial and an
 * administrative stop after some looks.
 */
void judge_plan_truncate(struct judge_plan *p, unsigned max_rounds);
/* From a run's decoded params (run_params.doc, its "plan"); recorded = false when absent. */
void judge_plan_from_params(const cJSON *params, struct judge_plan *p);
cJSON *judge_plan_json(const struct judge_plan *p);

/*
 * The design a plan is judged by, for n_candidates (arms - 1): a run alone
 * gets the first run's share of the plan's alpha (verdict2_rep_alpha(alpha,
 * 1)); a truncated plan is its planned design truncated at its last look;
 * d->min_effect_pct is the plan's. For the probe's plan: the bounds, and
 * verdict2_effect_for_power(d, 0.8, sd) for what a budget can answer.
 * Errors of verdict2_design_init().
 */
int judge_plan_design(const struct judge_plan *p, size_t n_candidates,
		      struct verdict2_design *d, struct st_err *e);

/* The outcome of judging a run. */
struct judgement {
	struct judge_plan plan;		/* as used */
	struct verdict2_design design;
	bool judged;			/* the run reached a planned look */
	size_t look;			/* index into plan.looks */
	bool exploratory;		/* judged with other values than the plan's */
	char exploratory_why[160];
	struct verdict2_result r2;	/* verdict2_look() then verdict2_finish() */
	double effect_80_pct;		/* r2.effect_80_pct: KEEP and INCONCLUSIVE only, else NAN */
};

/* The run being judged: its rounds (baseline marked) and the plan it ran by. */
struct judge_case {
	const struct verdict2_input *in;
	const struct judge_plan *plan;
};

/*
 * Judge c->in by c->plan at the last look of the plan that the run
 * reached (in->n_rounds). opts may override the minimum effect: a
 * value other than the plan's makes the judgement exploratory, and so does
 * a baseline other than the plan's (name given in baseline_used). The
 * result is also written into v, the verdict as shown (advisor.h) that the
 * renderers and commands read: status per arm, effect
 * (positive = better, on the speed-up scale exp(mean log-ratio) - 1, which
 * never passes -100 %) and interval, reasons (the sequential verdict's,
 * first the headline, which states the metric's own ratio and direction).
 * Runs that did not reach the first look, or have fewer than 2 rounds, are
 * INCONCLUSIVE with the reason. -EINVAL for a malformed input.
 */
int judge_run(const struct judge_case *c, const struct verdict2_opts *opts, const char *baseline_used,
	      struct judgement *j, struct verdict_result *v, struct st_err *e);

/*
 * The recipe of a probe run: what was measured and against what, without
 * what differs from one repetition to the next. A canonical JSON of the
 * params' workload (name, working set, command and metric, pattern
 * parameters; the accesses per trial only when they were given rather than
 * calibrated), the memcg limit, --min-trial, whether the primary metric
 * was per CPU second (method.busy_host.per_cpu_second, in the hashed JSON
 * only when true, so a run judged by wall time keeps the recipe it had
 * before), the baseline, the arm names and, when arm_settings is given,
 * each arm's settings (an object {"arm": {"key": "value"}}) - hashed
 * (FNV-1a 64) into 16 hex digits.
 * Seeds, time budgets, looks, rounds, alpha and the minimum effect are not
 * part of it: a re-run with another seed, budget or --reps is a replication
 * of the same recipe, and changing them does not make a new one.
 * params is the run's decoded params document (run_params.doc).
 * -EBADMSG (out = "") when params is not a JSON object with a workload.
 */
#define JUDGE_RECIPE_LEN 17
int judge_recipe(const cJSON *params, const cJSON *arm_settings, char out[JUDGE_RECIPE_LEN]);

/* JSON of a judgement: plan, look, rounds, decision, error rates, exploratory. */
cJSON *judge_json(const struct judgement *j);

/*
 * The one verdict line of a run, probe or switchback, wherever it is shown
 * (probe, recommend, switchback, verify, reports, the TUI, which reads it):
 *     Verdict: CHANGE to <arm>      arm: the arm chosen
 *     Verdict: KEEP <arm>           arm: the baseline
 *     Verdict: INCONCLUSIVE         arm not used (may be NULL)
 * The arm's name comes from the store and is escaped here. Scripts read
 * --json instead: the same three words as verdict.kind (probe) and
 * switchback.decision.
 */
void judge_verdict_print(FILE *f, enum verdict_kind kind, const char *arm);

#endif
