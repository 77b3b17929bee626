/*
 * verdict-rep.c - the replication rule: the k-th run of one recipe judged
 * on all k runs, by Stouffer's combination of each run's exact stagewise
 * p-values (speed and failures apart), at a share of the plan's alpha that
 * shrinks with every run so that the shares over any number of runs sum to
 * at most alpha. Contracts in advisor.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/advisor.h"

double verdict2_rep_alpha(double alpha, size_t k)
{
	if (k == 0)
		return NAN;
	return k == 1 ? alpha * (1.0 - 1.0 / 16.0) : ldexp(alpha, -(int)(k > 60 ? 60 : k) - 3);
}

void verdict2_rep_arm_of(const struct verdict2_result *r, size_t i, unsigned planned_rounds,
			 struct verdict2_rep_arm *out)
{
	memset(out, 0, sizeof(*out));
	out->weight = sqrt((double)(planned_rounds ? planned_rounds : 1));
	out->p_stage = out->p_fail_stage = out->mean_log = out->se_log = NAN;
	if (!r || r->decision == VERDICT2_STOP_INVALID) {
		out->aborted = !r;
		return;
	}
	if ((int)i == r->baseline || i >= r->n_arms)
		return;
	out->compared = r->arms[i].compared && isfinite(r->arms[i].p_stage);
	out->p_stage = r->arms[i].p_stage;
	out->mean_log = r->arms[i].mean_log;
	out->se_log = r->arms[i].se_log;
	out->fail_counted = r->arms[i].disc_won + r->arms[i].disc_lost > 0;
	out->p_fail_stage = r->arms[i].p_fail_stage;
}

/* z of a p-value, kept finite. */
static double z_of(double p)
{
	if (!(p > 1e-15))
		p = 1e-15;
	if (!(p < 1.0 - 1e-15))
		p = 1.0 - 1e-15;
	return stats_norm_quantile(1.0 - p);
}

static void pool_arm(const struct verdict2_rep_input *in, size_t i, const struct verdict2_rep_result *rr,
		     double min_effect_pct, struct verdict2_rep_arm_result *ar)
{
	double y[VERDICT2_REPS_MAX], v[VERDICT2_REPS_MAX], zs = 0, zf = 0, w2 = 0;
	size_t n = 0;

	memset(ar, 0, sizeof(*ar));
	ar->z = ar->p_one = ar->z_fail = ar->p_fail = ar->ci_low_pct = NAN;
	ar->pooled.effect_pct = ar->pooled.ci_low_pct = ar->pooled.ci_high_pct = NAN;
	for (size_t j = 0; j < in->k; j++) {
		const struct verdict2_rep_arm *a = &in->arm[j][i];
		double w = a->weight > 0 ? a->weight : 1.0;

		/* every run counts with its planned weight; one without evidence adds z = 0 */
		w2 += w * w;
		if (a->compared)
			zs += w * z_of(a->p_stage);
		if (a->fail_counted)
			zf += w * z_of(a->p_fail_stage);
		if (a->compared && isfinite(a->mean_log) && a->se_log > 0) {
			y[n] = a->mean_log;
			v[n++] = a->se_log * a->se_log;
		}
	}
	ar->z = zs / sqrt(w2);
	ar->p_one = 1.0 - stats_norm_cdf(ar->z);
	ar->z_fail = zf / sqrt(w2);
	ar->p_fail = 1.0 - stats_norm_cdf(ar->z_fail);
	ar->fail_shown = ar->p_fail < rr->alpha_fail_each;
	ar->n_runs = n;
	if (n == 0 || verdict2_pool_runs(y, v, n, &ar->pooled, NULL) < 0)
		return;
	ar->ci_low_pct = expm1(ar->pooled.pool.pooled - stats_norm_quantile(1.0 - rr->alpha_each) *
			       ar->pooled.pool.se) * 100.0;
	ar->crosses = ar->p_one < rr->alpha_each && ar->pooled.effect_pct >= min_effect_pct;
	ar->min_effect_confirmed = ar->ci_low_pct >= min_effect_pct;
	ar->futile = expm1(ar->pooled.pool.pooled + stats_norm_quantile(0.975) *
			   ar->pooled.pool.se) * 100.0 < min_effect_pct;
}

static int check(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		 double alpha, struct st_err *e)
{
	if (!in || !own)
		return err_set(e, -EINVAL, "replication: no input");
	if (in->k < 1 || in->k > VERDICT2_REPS_MAX)
		return err_set(e, -EINVAL, "replication: 1 to %d runs, not %zu", VERDICT2_REPS_MAX, in->k);
	if (in->n_arms != own->n_arms || in->n_arms < 2 || in->n_arms > VERDICT_ARMS_MAX ||
	    in->baseline != own->baseline || in->baseline < 0)
		return err_set(e, -EINVAL, "replication: arms or baseline differ from the run's");
	if (!(alpha > 0.0 && alpha < 0.5))
		return err_set(e, -EINVAL, "replication: alpha must be in (0, 0.5)");
	return 0;
}

/* Whether the latest run itself rules candidate i out. */
static bool own_bars(const struct verdict2_result *own, size_t i)
{
	const struct verdict2_arm_result *a = &own->arms[i];

	return a->oom_vetoed || a->guard_harm;
}

static enum verdict2_path rep_path(const struct verdict2_rep_arm_result *ar,
				   const struct verdict2_result *own, size_t i)
{
	const struct verdict2_arm_result *a = &own->arms[i];

	if (own_bars(own, i))
		return VERDICT2_PATH_NONE;
	if (ar->crosses && !a->guard_not_shown)
		return VERDICT2_PATH_SPEED;
	if (ar->fail_shown && !a->worse_than_ni)
		return VERDICT2_PATH_FAILURE;
	return VERDICT2_PATH_NONE;
}

/*
 * A candidate whose pooled gain crosses its bound but that this run's cost
 * guardrail holds back (its rise beyond the margin not ruled out): the one
 * with the smallest p, or NULL.
 */
static const struct verdict2_rep_arm_result *held_back(const struct verdict2_rep_input *in,
							const struct verdict2_result *own,
							const struct verdict2_rep_result *out)
{
	const struct verdict2_rep_arm_result *b = NULL;

	for (size_t i = 0; i < in->n_arms; i++)
		if ((int)i != in->baseline && out->arms[i].crosses && !own_bars(own, i) &&
		    own->arms[i].guard_not_shown && (!b || out->arms[i].p_one < b->p_one))
			b = &out->arms[i];
	return b;
}

static void rep_reason(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		       double min_effect_pct, struct verdict2_rep_result *out)
{
	const struct verdict2_rep_arm_result *b = out->chosen >= 0 ? &out->arms[out->chosen] : NULL;
	const char *alone = own->decision == VERDICT2_STOP_CHANGE ?
			    "; this run alone would say CHANGE, but earlier runs count" : "";

	if (out->decision == VERDICT2_STOP_CHANGE && out->path == VERDICT2_PATH_SPEED)
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: "
			 "%+.1f %% (95 %% CI %+.1f to %+.1f %%), beyond the bound for run %zu "
			 "(one-sided p %.2g < %.2g)", in->k, b->pooled.effect_pct, b->pooled.ci_low_pct,
			 b->pooled.ci_high_pct, in->k, b->p_one, out->alpha_each);
	else if (out->decision == VERDICT2_STOP_CHANGE)
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: the "
			 "baseline fails more often (one-sided p %.2g < %.2g)", in->k, b->p_fail,
			 out->alpha_fail_each);
	else if (out->decision == VERDICT2_STOP_KEEP)
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: "
			 "no candidate gains %.1f %%", in->k, min_effect_pct);
	else if ((b = held_back(in, own, out)))
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: a gain of "
			 "%+.1f %% crosses the bound for run %zu (one-sided p %.2g < %.2g), but this run "
			 "could not rule out a cost beyond its guardrail's margin (below)%s", in->k,
			 b->pooled.effect_pct, in->k, b->p_one, out->alpha_each, alone);
	else
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: no "
			 "change shown at the bound for run %zu (one-sided %.2g per candidate)%s",
			 in->k, in->k, out->alpha_each, alone);
}

int verdict2_replicate(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		       double alpha, double min_effect_pct, struct verdict2_rep_result *out,
		       struct st_err *e)
{
	int rc = check(in, own, alpha, e), best = -1;
	bool all_keep = true;
	size_t C;

	if (rc < 0)
		return rc;
	C = in->n_arms - 1;
	memset(out, 0, sizeof(*out));
	out->k = in->k;
	out->n_arms = in->n_arms;
	out->alpha_k = verdict2_rep_alpha(alpha, in->k);
	out->alpha_each = (1.0 - VERDICT2_FAIL_SHARE) * out->alpha_k / (double)C;
	out->alpha_fail_each = VERDICT2_FAIL_SHARE * out->alpha_k / (double)C;
	out->decision = own->decision;
	out->chosen = own->chosen;
	out->path = own->path;
	for (size_t i = 0; i < in->n_arms; i++)
		if ((int)i != in->baseline)
			pool_arm(in, i, out, min_effect_pct, &out->arms[i]);
	if (own->decision == VERDICT2_STOP_INVALID && in->k > 1)
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: not "
			 "judged, this run itself is invalid", in->k);
	if (in->k == 1 || own->decision == VERDICT2_STOP_INVALID)
		return 0;
	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict2_rep_arm_result *ar = &out->arms[i];
		enum verdict2_path p;

		if ((int)i == in->baseline)
			continue;
		p = rep_path(ar, own, i);
		if (p != VERDICT2_PATH_NONE &&
		    (best < 0 || (isnan(out->arms[best].pooled.effect_pct) && !isnan(ar->pooled.effect_pct)) ||
		     ar->pooled.effect_pct > out->arms[best].pooled.effect_pct)) {
			best = (int)i;
			out->path = p;
		}
		if (!((ar->futile && ar->z_fail <= 0.0) || own_bars(own, i)))
			all_keep = false;
	}
	if (best >= 0) {
		out->decision = VERDICT2_STOP_CHANGE;
		out->chosen = best;
		out->path = rep_path(&out->arms[best], own, (size_t)best);
	} else if (own->decision == VERDICT2_STOP_KEEP || all_keep) {
		out->decision = VERDICT2_STOP_KEEP;
		out->chosen = own->baseline;
		out->path = VERDICT2_PATH_NONE;
	} else {
		out->decision = VERDICT2_STOP_INCONCLUSIVE;
		out->chosen = -1;
		out->path = VERDICT2_PATH_NONE;
	}
	rep_reason(in, own, min_effect_pct, out);
	out->overrode = out->decision != own->decision || out->chosen != own->chosen;
	return 0;
}
