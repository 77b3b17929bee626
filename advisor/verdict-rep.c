/*
 * verdict-rep.c - the replication rule: the k-th run of one recipe judged on
 * the evidence of all k runs pooled (DerSimonian-Laird), at a share of the
 * false-change rate that halves with every replication, so that re-running
 * until one run says CHANGE does not work. Contracts in advisor.h.
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
	return k == 1 ? alpha : ldexp(alpha, -(int)(k > 60 ? 60 : k) - 3);
}

/* Signed log scale -> "positive = better" percent. */
static double effect_of(double m, bool hb)
{
	return (hb ? expm1(m) : -expm1(-m)) * 100.0;
}

/*
 * The variance a run contributes: se^2, widened by (t_{df} / z) at 97.5 %
 * so that a run judged on few rounds (t with 4 degrees of freedom) does not
 * enter the normal-theory pooling as more precise than it is.
 */
static double run_var(const struct verdict2_rep_arm *a)
{
	double se = a->se_log > 1e-9 ? a->se_log : 1e-9;
	double w = a->df >= 1.0 ? stats_t_quantile(0.975, a->df) / stats_norm_quantile(0.975) : 1.0;

	return se * se * w * w;
}

static void pool_arm(const struct verdict2_rep_input *in, size_t i, double alpha_each,
		     double min_effect_pct, struct verdict2_rep_arm_result *ar)
{
	double y[VERDICT2_REPS_MAX], v[VERDICT2_REPS_MAX];
	unsigned oom_a = 0, n_a = 0, oom_b = 0, n_b = 0;
	size_t n = 0;

	memset(ar, 0, sizeof(*ar));
	ar->z = ar->p_one = ar->ci_low_pct = NAN;
	ar->pooled.effect_pct = ar->pooled.ci_low_pct = ar->pooled.ci_high_pct = NAN;
	for (size_t j = 0; j < in->k; j++) {
		const struct verdict2_rep_arm *a = &in->arm[j][i], *b = &in->arm[j][in->baseline];

		oom_a += a->n_oom;
		n_a += a->n_trials;
		oom_b += b->n_oom;
		n_b += b->n_trials;
		if (!a->compared || !isfinite(a->mean_log) || !isfinite(a->se_log))
			continue;
		y[n] = a->mean_log;
		v[n++] = run_var(a);
	}
	ar->p_oom_base_worse = n_a && n_b ? stats_fisher_greater(oom_b, n_b, oom_a, n_a) : NAN;
	ar->oom_path = oom_b > 0 && ar->p_oom_base_worse < alpha_each;
	ar->n_runs = n;
	if (n == 0 || stats_pool_dl(y, v, n, 0.95, &ar->pooled.pool, NULL) < 0)
		return;
	ar->pooled.effect_pct = effect_of(ar->pooled.pool.pooled, in->higher_better);
	ar->pooled.ci_low_pct = effect_of(ar->pooled.pool.ci_low, in->higher_better);
	ar->pooled.ci_high_pct = effect_of(ar->pooled.pool.ci_high, in->higher_better);
	ar->z = ar->pooled.pool.pooled / ar->pooled.pool.se;
	ar->p_one = 1.0 - stats_norm_cdf(ar->z);
	ar->ci_low_pct = effect_of(ar->pooled.pool.pooled -
				   stats_norm_quantile(1.0 - alpha_each) * ar->pooled.pool.se,
				   in->higher_better);
	ar->crosses = ar->p_one < alpha_each && ar->pooled.effect_pct >= min_effect_pct;
	ar->min_effect_confirmed = ar->ci_low_pct >= min_effect_pct;
	ar->futile = effect_of(ar->pooled.pool.pooled + stats_norm_quantile(0.975) *
			       ar->pooled.pool.se, in->higher_better) < min_effect_pct;
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

int verdict2_replicate(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		       double alpha, double min_effect_pct, struct verdict2_rep_result *out,
		       struct st_err *e)
{
	int rc = check(in, own, alpha, e), best = -1;
	bool all_keep = true;

	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->k = in->k;
	out->n_arms = in->n_arms;
	out->alpha_k = verdict2_rep_alpha(alpha, in->k);
	out->alpha_each = out->alpha_k / (double)(in->n_arms - 1);
	out->decision = own->decision;
	out->chosen = own->chosen;
	for (size_t i = 0; i < in->n_arms; i++)
		if ((int)i != in->baseline)
			pool_arm(in, i, out->alpha_each, min_effect_pct, &out->arms[i]);
	if (in->k == 1 || own->decision == VERDICT2_STOP_INVALID)
		return 0;
	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict2_rep_arm_result *ar = &out->arms[i];
		bool eligible;

		if ((int)i == in->baseline)
			continue;
		eligible = (ar->crosses || (ar->oom_path && own->arms[i].ni_shown)) && !own_bars(own, i) &&
			   !own->arms[i].guard_not_shown;
		if (eligible && (best < 0 || ar->pooled.effect_pct > out->arms[best].pooled.effect_pct ||
				 (isnan(out->arms[best].pooled.effect_pct) && !isnan(ar->pooled.effect_pct))))
			best = (int)i;
		if (!(ar->futile || own_bars(own, i)))
			all_keep = false;
	}
	if (best >= 0) {
		out->decision = VERDICT2_STOP_CHANGE;
		out->chosen = best;
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: "
			 "%+.1f%% (95%% CI %+.1f%% to %+.1f%%), beyond the bound for run %zu "
			 "(one-sided p %.2g < %.2g)", in->k, out->arms[best].pooled.effect_pct,
			 out->arms[best].pooled.ci_low_pct, out->arms[best].pooled.ci_high_pct, in->k,
			 out->arms[best].p_one, out->alpha_each);
	} else if (own->decision == VERDICT2_STOP_KEEP || all_keep) {
		out->decision = VERDICT2_STOP_KEEP;
		out->chosen = own->baseline;
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: "
			 "no candidate gains %.1f%%", in->k, min_effect_pct);
	} else {
		out->decision = VERDICT2_STOP_INCONCLUSIVE;
		out->chosen = -1;
		snprintf(out->reason, sizeof(out->reason), "pooled over %zu runs of this recipe: no "
			 "change shown at the bound for run %zu (one-sided %.2g per candidate)%s",
			 in->k, in->k, out->alpha_each, own->decision == VERDICT2_STOP_CHANGE ?
			 "; this run alone would say CHANGE, but earlier runs count" : "");
	}
	out->overrode = out->decision != own->decision || out->chosen != own->chosen;
	return 0;
}
