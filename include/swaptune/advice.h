/*
 * advice.h - glue between the store, the host facts and the pure advisor:
 * loads a stored probe run into the sequential verdict's input, turns host_facts into the
 * rules' input, and renders verdicts and rule results (human and JSON).
 *
 * A probe run in the store is a runs row of kind "probe" with arms (name,
 * settings JSON, emulated), trials (status "ok" / "oom" / "failed", warmup
 * flag, primary_value) and per-trial metrics (key -> value). Warm-up trials
 * are never used; "oom" trials count as OOM kills of their arm; "failed"
 * trials (setup errors) are counted and reported but not used.
 *
 * The baseline (the arm that stands for the current setting) is, first
 * found: the name the caller passes (--baseline), the run's params
 * "baseline", the arm whose settings match the settings snapshot saved
 * with the run before it started, the arm matching the host's current
 * settings, else the first arm. Where it came from is recorded.
 */
#ifndef SWAPTUNE_ADVICE_H
#define SWAPTUNE_ADVICE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "swaptune/advisor.h"
#include "swaptune/err.h"
#include "swaptune/facts.h"
#include "swaptune/host.h"
#include "swaptune/judge.h"
#include "swaptune/store.h"

#define RECOMMEND_SCHEMA "swaptune.recommend/2"

struct advice_setting {
	char name[32];
	char value[SETTING_VALUE_MAX];
};

struct advice_arm {
	int64_t arm_id;
	char name[VERDICT_NAME_MAX];
	int n_settings;
	struct advice_setting settings[SETTINGS_MAX];
	bool emulated;
	char note[256];
	unsigned n_ok, n_oom, n_failed, n_warmup;
};

struct advice_run {
	int64_t run_id;
	char status[24];
	char started_at[40];
	char workload[RUN_PARAMS_NAME_MAX];
	struct run_params p;		/* the run's params as the store decoded them (owned:
					 * advice_run_free()); p.doc NULL if none */
	char baseline_source[80];	/* how the baseline was chosen, for the reasons */
	size_t n_arms;
	struct advice_arm arms[VERDICT_ARMS_MAX];
	struct verdict2_input in2;	/* the trials by round, arms in the same order */
	struct judge_plan plan;		/* the analysis plan stored with the run */
	char recipe[JUDGE_RECIPE_LEN];	/* judge_recipe() of params and arms, "" if none */
};

/* The newest probe run that ended "ok" (else the newest probe run); -ENOENT if none. */
int advice_latest_probe_run(struct store *st, int64_t *run_id, struct st_err *e);

/*
 * Load run_id into r (zeroed first). h (may be NULL) is used only to find
 * the baseline among the host's current settings; baseline (may be NULL)
 * forces the baseline arm by name (-EINVAL if no such arm). -ENOENT if the
 * run does not exist or is not a probe; -EBADMSG for rows that make no sense
 * (no arms, a settings column that is not JSON).
 */
int advice_load_run(struct store *st, const struct host *h, int64_t run_id,
		    const char *baseline, struct advice_run *r, struct st_err *e);
/* The same from rows the caller loaded (store_probe_run_load()), kept in their order. */
int advice_load_rows(struct store *st, const struct host *h, const struct store_probe_run *run,
		     const char *baseline, struct advice_run *r, struct st_err *e);
/* What a loaded run owns (its params), also after a failed load; r may be NULL. */
void advice_run_free(struct advice_run *r);

/*
 * Judge a loaded run by its stored plan (judge.h): v in the shape every
 * renderer reads, j with the sequential details. min_effect_pct < 0 = the
 * plan's; another value makes the judgement exploratory, as does a
 * baseline other than the plan's.
 */
int advice_judge(const struct advice_run *r, double min_effect_pct, struct verdict_result *v,
		 struct judgement *j, struct st_err *e);

/*
 * The replication rule (advisor.h, verdict2_replicate()) applied to a
 * loaded run: the probe runs of this host stored before it with the same
 * recipe count as earlier replications. Each is judged alone by its own
 * plan against this run's baseline; every one that reached its first look
 * (and so gave a verdict, whatever it was, even if stopped later) counts in
 * k and is pooled; a run stopped before its first look gave no verdict and
 * is not a replication.
 */
struct advice_pool {
	bool applied;			/* k >= 2: the verdict is the pooled one */
	size_t k;			/* runs of the recipe up to and with this one */
	size_t n_ids;
	int64_t run_ids[VERDICT2_REPS_MAX];	/* the runs counted, oldest first, this one last */
	size_t n_beyond;		/* older runs beyond VERDICT2_REPS_MAX, counted in k only */
	enum verdict_kind own_kind;	/* this run judged alone */
	int own_chosen;
	struct verdict2_rep_result rep;
};

/* Where advice_judge_pooled() puts a run's verdict and what it came from. */
struct advice_verdict {
	struct verdict_result *v;	/* the verdict, the pooled one when earlier runs count */
	struct judgement *j;		/* the run judged alone (advice_judge()) */
	struct advice_pool *pool;	/* how it was pooled (may be NULL) */
};

/*
 * advice_judge() into out->v and out->j, then the replication rule over
 * the earlier runs of r's recipe in st: when there are some, v's kind,
 * chosen arm and the status of the arms concerned are the pooled
 * verdict's, and its first reasons say which runs were pooled and that
 * earlier runs count. out->pool (may be NULL) receives the details.
 */
int advice_judge_pooled(struct store *st, const struct host *h, const struct advice_run *r,
			double min_effect_pct, const struct advice_verdict *out, struct st_err *e);

/*
 * verify's answer for the applied arm (index arm in the re-run, -1 none) of
 * a re-run judged by advice_judge_pooled(): "holds" (*holds true),
 * "vetoed", "weaker", "gone", "reversed", "oom", "inconclusive" or
 * "no-arm". A veto by a cost guardrail, a reversal or OOM kills in the
 * re-run itself stand (a vetoed gain never holds); otherwise, when earlier
 * runs were pooled, the pooled comparison of the arm at the re-run's alpha_k
 * decides: it crosses with the minimum effect confirmed (the lower bound at
 * alpha_k clears it, as a run alone must) - holds; a pooled gain
 * significant but not shown to reach the minimum effect - weaker;
 * pooled-futile - gone; else inconclusive. Without
 * pooling, the re-run's own arm status decides the same way.
 */
const char *advice_verify_result(const struct verdict_result *v, const struct advice_pool *p,
				 int arm, bool *holds);

/* JSON of a pool ("replication" in recommend and verify documents). */
cJSON *advice_pool_json(const struct advice_run *r, const struct advice_pool *p);
/* Lines for the text output (nothing when the pool was not applied). */
void advice_pool_print(FILE *out, const struct advice_run *r, const struct advice_pool *p);

/* The arm called name, or NULL. */
const struct advice_arm *advice_run_arm(const struct advice_run *r, const char *name);

/* Host facts -> the rules' input (since-boot counters; no window). */
void advice_rules_input(const struct host_facts *f, struct advisor_host_facts *a);

/*
 * The recommend document (mode "probe") for a verdict on a probe run, j the
 * judgement it came from (its minimum effect and plan alpha are shown).
 */
cJSON *advice_verdict_json(const struct advice_run *r, const struct judgement *j,
			   const struct verdict_result *v);

/* Human-readable verdict: headline, the arm table, reasons, the next command. */
void advice_verdict_print(FILE *out, const struct advice_run *r,
			  const struct judgement *j, const struct verdict_result *v);

/*
 * How a person applies run_id's settings with the safety net: the look first
 * (--dry-run), the apply with its dead man's switch (--confirm-within), the
 * confirmation that keeps it. Every "To apply" hint (recommend, switchback,
 * the reports) gives all three, in lines that fit 100 columns.
 */
#define ADVICE_APPLY_CONFIRM_WITHIN ADVISOR_CONFIRM_WITHIN
/* The hint as a heading and three commands (sudo where root is needed). */
void advice_apply_hint_lines(int64_t run_id, char lines[4][96]);
/* For a terminal: "To apply: ...", the two others indented below. */
void advice_apply_hint_print(FILE *out, int64_t run_id);

/* The rules' results as a JSON array / as text (findings first). */
cJSON *advice_rules_json(const struct advisor_rule_result *res, size_t n);
void advice_rules_print(FILE *out, const struct advisor_rule_result *res, size_t n);

/* A settings JSON object {"page-cluster":"0", ...} into out[]; -EBADMSG if not one. */
int advice_parse_settings(const char *json, struct advice_setting *out, int max,
			  int *n, struct st_err *e);

#endif
