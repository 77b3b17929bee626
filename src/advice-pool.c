/*
 * advice-pool.c - replications of a probe recipe: finds the earlier probe
 * runs of a run's recipe in the store, judges each alone, and applies the
 * advisor's replication rule (verdict2_replicate()) so that re-running
 * until one run says CHANGE does not work. See advice.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"

/*
 * The arm's figures for its stage of the recipe's design, from a run judged
 * alone; a run that stopped before its first look counts as aborted (a
 * stage with no evidence).
 */
static void rep_arm(const struct advice_run *r, const struct judgement *j, int i,
		    struct verdict2_rep_arm *x)
{
	struct verdict2_input *cut = malloc(sizeof(*cut));

	memset(x, 0, sizeof(*x));
	if (!cut)
		return;
	/* the rounds the judgement read: up to the last look the run reached */
	*cut = r->in2;
	if (j->judged && j->plan.looks[j->look] < cut->n_rounds)
		cut->n_rounds = j->plan.looks[j->look];
	verdict2_rep_arm_of(cut, j->judged ? &j->r2 : NULL, (size_t)i, x);
	free(cut);
}

static int arm_named(const struct advice_run *r, const char *name)
{
	for (size_t i = 0; i < r->n_arms; i++)
		if (!strcmp(r->arms[i].name, name))
			return (int)i;
	return -1;
}

/* An earlier run of the recipe, judged alone. */
struct earlier {
	int64_t id;
	struct verdict2_rep_arm arm[VERDICT_ARMS_MAX];
};

/*
 * Run x->id judged alone against base, its arms aligned with cur's. False
 * when it is not a replication: not loadable, or another recipe once its
 * arms' settings are known, or no measured round at all. A run stopped
 * before its first look gave no verdict but counts (aborted: a share of
 * alpha, no evidence), so that aborting unpromising runs cannot help a
 * change through. One that measured nothing (a budget refusal after the
 * warm-up, a stop during it) is not a replication: there was no result to
 * abort on, and counting it cost the run it told the user to make (a
 * memcached probe refused at 3 min, re-run at 8m and 6m as asked: run 3
 * said CHANGE alone and on runs 2-3 pooled, INCONCLUSIVE with the refusal
 * counted as run 1).
 */
static bool add_earlier(struct store *st, const struct host *h, const char *base,
			const struct advice_run *cur, double min_effect_pct, struct earlier *x)
{
	struct advice_run *r = calloc(1, sizeof(*r));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct judgement *j = calloc(1, sizeof(*j));
	bool counted = false;

	if (r && v && j && advice_load_run(st, h, x->id, base, r, NULL) == 0 &&
	    !strcmp(r->recipe, cur->recipe) && r->in2.n_rounds > 0 &&
	    advice_judge(r, min_effect_pct, v, j, NULL) == 0) {
		counted = true;
		for (size_t i = 0; i < cur->n_arms; i++) {
			int k = arm_named(r, cur->arms[i].name);

			if (k >= 0)
				rep_arm(r, j, k, &x->arm[i]);
		}
	}
	advice_run_free(r);
	free(r);
	free(v);
	free(j);
	return counted;
}

/*
 * A candidate the run alone chose and the pooled verdict did not, as the
 * pool sees it: its pooled gain crosses (held back by a cost guardrail:
 * "better", as a run alone would show it), the baseline fails credibly more
 * often, no gain, or not shown.
 */
static enum verdict_arm_status pooled_status(const struct verdict2_rep_arm_result *a)
{
	if (a->crosses)
		return VERDICT_ARM_BETTER;
	if (a->fail_shown)
		return VERDICT_ARM_COMPLETED;
	if (a->futile)
		return VERDICT_ARM_NO_GAIN;
	return VERDICT_ARM_NOISY;
}

/* The pooled verdict into v: kind, chosen arm, arm statuses, first reasons. */
static void override(const struct advice_run *r, const struct advice_pool *p,
		     struct verdict_result *v)
{
	char t[VERDICT_REASON_LEN], ids[VERDICT_REASON_LEN] = "";
	/* the pooled judgement's own reason first, when it has one */
	size_t off = 0, shift = p->rep.reason[0] ? 2 : 1;

	for (size_t i = 0; i + 1 < p->n_ids && off < sizeof(ids); i++)
		off += (size_t)snprintf(ids + off, sizeof(ids) - off, "%s%lld", i ? ", " : "",
					(long long)p->run_ids[i]);
	if (p->rep.overrode) {
		/* the run's own choice, not the pooled one: its status as the pool sees it */
		if (v->chosen >= 0 && v->kind == VERDICT_CHANGE && v->chosen != p->rep.chosen)
			v->arms[v->chosen].status = pooled_status(&p->rep.arms[v->chosen]);
		switch (p->rep.decision) {
		case VERDICT2_STOP_CHANGE:
			v->kind = VERDICT_CHANGE;
			v->confidence = VERDICT_CONF_HIGH;
			v->arms[p->rep.chosen].status = VERDICT_ARM_BETTER;
			break;
		case VERDICT2_STOP_KEEP:
			v->kind = VERDICT_KEEP;
			v->confidence = VERDICT_CONF_HIGH;
			break;
		default:
			v->kind = VERDICT_INCONCLUSIVE;
			v->confidence = VERDICT_CONF_LOW;
		}
		v->chosen = p->rep.chosen;
		v->decisive = true;
	}
	snprintf(t, sizeof(t), "earlier runs of this recipe count: run %lld is run %zu of recipe %s "
		 "(earlier: %s%s); this run alone says %s", (long long)r->run_id, p->k, r->recipe, ids,
		 p->n_beyond ? " and older" : "", verdict_kind_name(p->own_kind));
	if (v->n_reasons + shift > VERDICT_REASONS_MAX) {
		v->n_reasons_dropped += v->n_reasons + shift - VERDICT_REASONS_MAX;
		v->n_reasons = VERDICT_REASONS_MAX - shift;
	}
	memmove(&v->reasons[shift], &v->reasons[0], sizeof(v->reasons[0]) * v->n_reasons);
	/* under a pooled verdict that is not the run's own, the run's headline (its first reason) is its own */
	if (p->rep.overrode && v->n_reasons > 0) {
		char own[VERDICT_REASON_LEN];

		snprintf(own, sizeof(own), "this run alone: %s", v->reasons[shift]);
		memcpy(v->reasons[shift], own, sizeof(own));
	}
	if (shift == 2)
		snprintf(v->reasons[0], VERDICT_REASON_LEN, "%s", p->rep.reason);
	snprintf(v->reasons[shift - 1], VERDICT_REASON_LEN, "%s", t);
	v->n_reasons += shift;
}

int advice_judge_pooled(struct store *st, const struct host *h, const struct advice_run *r,
			double min_effect_pct, const struct advice_verdict *out, struct st_err *e)
{
	struct verdict_result *v = out->v;
	struct judgement *j = out->j;
	struct advice_pool local, *p = out->pool ? out->pool : &local;
	struct store_probe_earlier *rows = NULL;
	struct verdict2_rep_input *in = NULL;
	struct earlier *got = NULL;
	size_t n = 0, m = 0, k_total;
	char mine[JUDGE_RECIPE_LEN];
	double alpha;
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = advice_judge(r, min_effect_pct, v, j, e)) < 0)
		return rc;
	p->own_kind = v->kind;
	p->own_chosen = v->chosen;
	p->k = 1;
	p->n_ids = 1;
	p->run_ids[0] = r->run_id;
	if (!r->recipe[0] || !j->judged || judge_recipe(r->p.doc, NULL, mine) < 0)
		return 0;
	if ((rc = store_probe_earlier(st, r->run_id, &rows, &n, e)) < 0)
		return rc;
	/* the earlier runs whose params give this recipe (confirmed with arms on loading) */
	{
		size_t kept = 0;

		for (size_t i = 0; i < n; i++) {
			char rec[JUDGE_RECIPE_LEN];

			if (judge_recipe(rows[i].p.doc, NULL, rec) == 0 && !strcmp(rec, mine))
				rows[kept++] = rows[i];
			else
				run_params_free(&rows[i].p);
		}
		n = kept;
	}
	got = calloc(n ? n : 1, sizeof(*got));
	in = calloc(1, sizeof(*in));
	if (!got || !in) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		got[m].id = rows[i].id;
		m += add_earlier(st, h, r->arms[v->baseline].name, r, min_effect_pct, &got[m]);
	}
	if (m == 0)
		goto out;
	k_total = m + 1;
	/*
	 * The recipe's design has VERDICT2_REPS_MAX stages, its first runs:
	 * a later run adds nothing (its stage would spend alpha the design no
	 * longer has), and the verdict is the last stage's, with this run's
	 * guardrails and vetoes.
	 */
	if (k_total > VERDICT2_REPS_MAX)
		p->n_beyond = k_total - VERDICT2_REPS_MAX;
	in->k = k_total - p->n_beyond;
	in->n_arms = r->n_arms;
	in->baseline = v->baseline;
	in->higher_better = r->in2.metric == VERDICT_METRIC_THROUGHPUT ||
			    r->in2.metric == VERDICT_METRIC_HIGHER_BETTER;
	p->n_ids = 0;
	/* the oldest runs are the design's first stages */
	for (size_t i = 0; i < in->k - (p->n_beyond ? 0 : 1); i++) {
		memcpy(in->arm[p->n_ids], got[i].arm, sizeof(got[i].arm));
		p->run_ids[p->n_ids++] = got[i].id;
	}
	if (!p->n_beyond) {
		for (size_t i = 0; i < r->n_arms; i++)
			rep_arm(r, j, (int)i, &in->arm[in->k - 1][i]);
		p->run_ids[p->n_ids++] = r->run_id;
	}
	p->k = k_total;
	alpha = j->plan.alpha;
	rc = verdict2_replicate(in, &j->r2, alpha, min_effect_pct >= 0 ? min_effect_pct :
				j->plan.min_effect_pct, &p->rep, e);
	if (rc < 0)
		goto out;
	p->applied = true;
	override(r, p, v);
out:
	store_probe_earlier_free(rows, n);
	free(got);
	free(in);
	return rc;
}

static void add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *advice_pool_json(const struct advice_run *r, const struct advice_pool *p)
{
	cJSON *o = cJSON_CreateObject(), *ids, *arms;

	cJSON_AddStringToObject(o, "recipe", r->recipe);
	cJSON_AddBoolToObject(o, "pooled", p->applied);
	cJSON_AddNumberToObject(o, "k", (double)p->k);
	ids = cJSON_AddArrayToObject(o, "runs");
	for (size_t i = 0; i < p->n_ids; i++)
		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)p->run_ids[i]));
	cJSON_AddNumberToObject(o, "older_runs_not_listed", (double)p->n_beyond);
	cJSON_AddStringToObject(o, "own_verdict", verdict_kind_name(p->own_kind));
	if (!p->applied)
		return o;
	add_num(o, "alpha_first", p->rep.alpha_first);
	add_num(o, "alpha_continuation", p->rep.alpha_cont);
	add_num(o, "alpha_k", p->rep.alpha_k);
	cJSON_AddStringToObject(o, "decision", verdict2_decision_name(p->rep.decision));
	cJSON_AddStringToObject(o, "reason", p->rep.reason);
	arms = cJSON_AddArrayToObject(o, "arms");
	for (size_t i = 0; i < p->rep.n_arms; i++) {
		const struct verdict2_rep_arm_result *a = &p->rep.arms[i];
		cJSON *x;

		if ((int)i == p->rep.chosen && p->rep.decision == VERDICT2_STOP_KEEP)
			continue;
		if (a->n_runs == 0)
			continue;
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", r->arms[i].name);
		cJSON_AddNumberToObject(x, "runs_pooled", (double)a->n_runs);
		cJSON_AddNumberToObject(x, "rounds_pooled", (double)a->n);
		add_num(x, "effect_pct", a->effect_pct);
		add_num(x, "ci95_low_pct", a->ci_low_pct);
		add_num(x, "ci95_high_pct", a->ci_high_pct);
		add_num(x, "z", a->z);
		add_num(x, "bound", a->bound);
		add_num(x, "p_one", a->p_one);
		add_num(x, "z_fail", a->z_fail);
		add_num(x, "bound_fail", a->bound_fail);
		cJSON_AddBoolToObject(x, "shown", a->shown);
		cJSON_AddBoolToObject(x, "crosses", a->crosses);
		cJSON_AddBoolToObject(x, "fail_shown", a->fail_shown);
		cJSON_AddBoolToObject(x, "futile", a->futile);
		cJSON_AddItemToArray(arms, x);
	}
	return o;
}

void advice_pool_print(FILE *out, const struct advice_run *r, const struct advice_pool *p)
{
	if (!p->applied)
		return;
	fprintf(out, "\nReplications: run %lld is run %zu of its recipe (%s); runs pooled:", (long long)r->run_id,
		p->k, r->recipe);
	for (size_t i = 0; i < p->n_ids; i++)
		fprintf(out, " %lld", (long long)p->run_ids[i]);
	if (p->n_beyond)
		fprintf(out, " (and %zu older, counted)", p->n_beyond);
	fprintf(out, "\n  Earlier runs count: the runs of a recipe are the stages of one sequential "
		"design (the first\n  alone at %.3g %%, then each stage combines all runs so far, "
		"spending half of the other %.3g %%);\n  this run alone says %s.\n",
		100 * p->rep.alpha_first, 100 * p->rep.alpha_cont, verdict_kind_name(p->own_kind));
	fprintf(out, "  %-12s %5s %9s  %-21s %6s %6s %s\n", "arm", "runs", "pooled", "95% ci", "Z",
		"bound", "");
	for (size_t i = 0; i < p->rep.n_arms; i++) {
		const struct verdict2_rep_arm_result *a = &p->rep.arms[i];

		if (a->n_runs == 0)
			continue;
		fprintf(out, "  %-12s %5zu %+8.1f%%  [%+6.1f%%, %+6.1f%%] %6.2f %6.2f %s\n",
			r->arms[i].name, a->n_runs, a->effect_pct, a->ci_low_pct, a->ci_high_pct, a->z,
			a->bound, a->crosses ? "shown" : a->shown ? "shown, below the minimum effect" :
			a->futile ? "futile" : "");
	}
}

/*
 * How the applied arm compares now, from the re-run judged alone. A gain
 * that a cost guardrail vetoes does not hold: the change would not have
 * been recommended with that cost.
 */
static const char *alone_result(const struct verdict_result *v, int arm, bool *holds)
{
	*holds = false;
	if (arm < 0)
		return "no-arm";
	switch (v->arms[arm].status) {
	case VERDICT_ARM_BETTER:
	case VERDICT_ARM_COMPLETED:
		*holds = true;
		return "holds";
	case VERDICT_ARM_VETOED:
		return "vetoed";
	case VERDICT_ARM_BELOW_MIN:
		return "weaker";
	case VERDICT_ARM_EQUIVALENT:
	case VERDICT_ARM_NO_GAIN:
		return "gone";
	case VERDICT_ARM_WORSE:
		return "reversed";
	case VERDICT_ARM_OOM_FAILED:
		return "oom";
	case VERDICT_ARM_NOISY:
	case VERDICT_ARM_TOO_FEW:
		return "inconclusive";
	case VERDICT_ARM_BASELINE:
		break;
	}
	return "inconclusive";
}

const char *advice_verify_result(const struct verdict_result *v, const struct advice_pool *p,
				 int arm, bool *holds)
{
	const char *alone = alone_result(v, arm, holds);
	const struct verdict2_rep_arm_result *a;

	if (arm < 0 || !p->applied || !strcmp(alone, "vetoed") || !strcmp(alone, "reversed") ||
	    !strcmp(alone, "oom"))
		return alone;
	a = &p->rep.arms[arm];
	*holds = a->crosses && a->min_effect_confirmed;
	if (*holds)
		return "holds";
	if (a->shown)
		return "weaker";
	return a->futile ? "gone" : "inconclusive";
}
