/*
 * verdict-rep.c - the runs of one recipe as the stages of one sequential
 * design: the first run judged alone at its share of the recipe's alpha,
 * every later stage by Stouffer's combination (equal weights, fixed in
 * advance) of each run's exact stagewise p-values, speed and failures
 * apart, against bounds that spend what is left of the recipe's alpha half
 * at a time. Contracts in advisor.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/randtest.h"

double verdict2_first_alpha(double alpha)
{
	return alpha * VERDICT2_FIRST_SHARE;
}

/* What stage j (0-based) spends of a_first and a_cont. */
static double stage_spend(size_t j, double a_first, double a_cont)
{
	return j == 0 ? a_first : ldexp(a_cont, -(int)j);
}

/*
 * A per-thread memo of the latest bounds computed: they depend on the two
 * levels only, and a stage's bounds are a prefix of a later stage's.
 */
struct bounds_memo {
	double a_first, a_cont;
	size_t k;
	double c[VERDICT2_REPS_MAX];
};

static _Thread_local struct bounds_memo bmemo[4];
static _Thread_local unsigned bmemo_next;

int verdict2_stage_bounds(size_t k, double a_first, double a_cont, double *c, struct st_err *e)
{
	double t[VERDICT2_REPS_MAX], cross[VERDICT2_REPS_MAX];
	struct bounds_memo *m;

	if (k < 1 || k > VERDICT2_REPS_MAX || !(a_first > 0.0 && a_first < 0.5) ||
	    !(a_cont > 0.0 && a_cont < 0.5))
		return err_set(e, -EINVAL, "stage bounds: 1 to %d stages, levels in (0, 0.5)",
			       VERDICT2_REPS_MAX);
	for (unsigned i = 0; i < 4; i++)
		if (bmemo[i].k >= k && bmemo[i].a_first == a_first && bmemo[i].a_cont == a_cont) {
			memcpy(c, bmemo[i].c, k * sizeof(*c));
			return 0;
		}
	/* Z_j = sum of j standard normals / sqrt j: a Brownian path at times 1..k */
	for (size_t j = 0; j < k; j++)
		t[j] = (double)(j + 1) / VERDICT2_REPS_MAX;
	c[0] = stats_norm_quantile(1.0 - a_first);
	for (size_t j = 1; j < k; j++) {
		double lo = 0.0, hi = 40.0, want = stage_spend(j, a_first, a_cont);

		for (int it = 0; it < 60; it++) {
			double mid = 0.5 * (lo + hi);
			int rc;

			c[j] = mid;
			if ((rc = stats_gs_cross(t, c, j + 1, 0.0, cross, e)) < 0)
				return rc;
			if (cross[j] > want)
				lo = mid;
			else
				hi = mid;
		}
		c[j] = hi;
	}
	m = &bmemo[bmemo_next++ % 4];
	m->a_first = a_first;
	m->a_cont = a_cont;
	m->k = k;
	memcpy(m->c, c, k * sizeof(*c));
	return 0;
}

void verdict2_rep_arm_of(const struct verdict2_input *in, const struct verdict2_result *r,
			 size_t i, struct verdict2_rep_arm *out)
{
	memset(out, 0, sizeof(*out));
	out->p_stage = out->p_fail_stage = NAN;
	if (in && in->n_rounds <= VERDICT2_ROUNDS_MAX && in->n_arms <= VERDICT_ARMS_MAX &&
	    i < in->n_arms && (!r || r->baseline >= 0)) {
		int b = -1;

		for (size_t a = 0; a < in->n_arms; a++)
			if (in->arms[a].is_baseline)
				b = (int)a;
		for (size_t rr = 0; b >= 0 && (int)i != b && rr < in->n_rounds; rr++) {
			const struct verdict2_arm *x = &in->arms[i], *y = &in->arms[b];
			double v;

			if (x->outcome[rr] != VERDICT_OUT_OK || y->outcome[rr] != VERDICT_OUT_OK ||
			    !(x->primary[rr] > 0.0) || !(y->primary[rr] > 0.0))
				continue;
			v = log(x->primary[rr]) - log(y->primary[rr]);
			out->c[out->n++] = in->metric == VERDICT_METRIC_THROUGHPUT ||
					   in->metric == VERDICT_METRIC_HIGHER_BETTER ? v : -v;
		}
	}
	if (!r || r->decision == VERDICT2_STOP_INVALID) {
		out->aborted = !r;
		return;
	}
	if ((int)i == r->baseline || i >= r->n_arms)
		return;
	out->compared = r->arms[i].compared && isfinite(r->arms[i].p_stage);
	out->crossed = r->arms[i].crosses;
	out->fail_shown = r->arms[i].fail_shown;
	out->p_stage = r->arms[i].p_stage;
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

/*
 * Whether the latest stage (k >= 2) crosses for one path: Z_k = sum of
 * z_1..z_k / sqrt k against c[k - 1], into *z_last. Only the latest: a
 * re-run that contradicts the earlier ones takes the recipe's evidence
 * below its bound again (what re-running guards against: a difference
 * of one period), and requiring it removes changes only.
 */
static bool stages_cross(const double *z, size_t k, const double *c, double *z_last)
{
	double sum = 0.0;

	for (size_t j = 0; j < k; j++)
		sum += z[j];
	*z_last = sum / sqrt((double)k);
	return k > 1 && *z_last >= c[k - 1];
}

/* The estimate and 95 % interval over every run's contrasts, and futility. */
static void pool_contrasts(const struct verdict2_rep_input *in, size_t i, double min_effect_pct,
			   struct rt_work *w, struct verdict2_rep_arm_result *ar)
{
	static const double level = 0.025;
	double all[VERDICT2_REPS_MAX * VERDICT2_ROUNDS_MAX], est, lo, hi;
	struct rt_design rd = { .score = RT_SCORE_HUBER, .n_looks = 1, .enum_max = 12 };
	size_t n = 0;

	for (size_t j = 0; j < in->k; j++)
		for (size_t r = 0; r < in->arm[j][i].n && r < VERDICT2_ROUNDS_MAX; r++)
			all[n++] = in->arm[j][i].c[r];
	ar->n = n;
	if (n < 2)
		return;
	est = rt_estimate(RT_SCORE_HUBER, all, n);
	ar->effect_pct = expm1(est) * 100.0;
	ar->futile = rt_rejects(RT_SCORE_HUBER, &(struct rt_contrasts){ all, n }, log1p(min_effect_pct / 100.0), -1,
				level, w);
	ar->pooled.effect_pct = ar->effect_pct;
	ar->pooled.pool.k = ar->n_runs;
	ar->pooled.pool.pooled = est;
	ar->pooled.pool.se = ar->pooled.pool.q = ar->pooled.pool.tau2 = ar->pooled.pool.i2 = NAN;
	if (in->no_intervals)
		return;
	rd.n_at[0] = (unsigned)n;
	rd.spend_cum[0] = level;
	rt_interval(&rd, &(struct rt_contrasts){ all, n }, est, w, &lo, &hi);
	ar->ci_low_pct = expm1(lo) * 100.0;
	ar->ci_high_pct = expm1(hi) * 100.0;
	ar->pooled.ci_low_pct = ar->ci_low_pct;
	ar->pooled.ci_high_pct = ar->ci_high_pct;
	ar->pooled.pool.ci_low = lo;
	ar->pooled.pool.ci_high = hi;
	ar->min_effect_confirmed = ar->ci_low_pct >= min_effect_pct;
}

static void pool_arm(const struct verdict2_rep_input *in, size_t i, const struct verdict2_rep_result *rr,
		     double min_effect_pct, struct rt_work *w, struct verdict2_rep_arm_result *ar)
{
	double zs[VERDICT2_REPS_MAX], zf[VERDICT2_REPS_MAX], cs[VERDICT2_REPS_MAX], cf[VERDICT2_REPS_MAX];
	double C = (double)(in->n_arms - 1), a_first = rr->alpha_first;
	bool sx, fx;

	memset(ar, 0, sizeof(*ar));
	ar->z = ar->p_one = ar->z_fail = ar->p_fail = ar->bound = ar->bound_fail = NAN;
	ar->effect_pct = ar->ci_low_pct = ar->ci_high_pct = NAN;
	ar->pooled.effect_pct = ar->pooled.ci_low_pct = ar->pooled.ci_high_pct = NAN;
	for (size_t j = 0; j < in->k; j++) {
		const struct verdict2_rep_arm *a = &in->arm[j][i];

		/* a run without evidence for the arm is a stage with z = 0 */
		zs[j] = a->compared ? z_of(a->p_stage) : 0.0;
		zf[j] = a->fail_counted ? z_of(a->p_fail_stage) : 0.0;
		ar->n_runs += a->compared;
	}
	if (verdict2_stage_bounds(in->k, (1.0 - VERDICT2_FAIL_SHARE) * a_first / C,
				  (1.0 - VERDICT2_FAIL_SHARE) * rr->alpha_cont / C, cs, NULL) < 0 ||
	    verdict2_stage_bounds(in->k, VERDICT2_FAIL_SHARE * a_first / C,
				  VERDICT2_FAIL_SHARE * rr->alpha_cont / C, cf, NULL) < 0)
		return;
	/* the first run alone (stage 1), or the latest stage */
	sx = stages_cross(zs, in->k, cs, &ar->z);
	fx = stages_cross(zf, in->k, cf, &ar->z_fail);
	if (in->k == 1) {
		sx = in->arm[0][i].crossed;
		fx = in->arm[0][i].fail_shown;
	}
	ar->bound = cs[in->k - 1];
	ar->bound_fail = cf[in->k - 1];
	ar->p_one = 1.0 - stats_norm_cdf(ar->z);
	ar->p_fail = 1.0 - stats_norm_cdf(ar->z_fail);
	ar->fail_shown = fx;
	pool_contrasts(in, i, min_effect_pct, w, ar);
	ar->shown = sx;
	ar->crosses = sx && ar->effect_pct >= min_effect_pct;
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
		    own->arms[i].guard_not_shown && (!b || out->arms[i].z > b->z))
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
		snprintf(out->reason, sizeof(out->reason), "over %zu runs of this recipe: %+.1f %% "
			 "(95 %% CI %+.1f to %+.1f %%), shown at stage %zu (Z %.2f >= %.2f, or the "
			 "first run alone)", in->k, b->effect_pct, b->ci_low_pct, b->ci_high_pct, in->k,
			 b->z, b->bound);
	else if (out->decision == VERDICT2_STOP_CHANGE)
		snprintf(out->reason, sizeof(out->reason), "over %zu runs of this recipe: the baseline "
			 "fails more often (stage Z %.2f, bound %.2f, or the first run alone)", in->k,
			 b->z_fail, b->bound_fail);
	else if (out->decision == VERDICT2_STOP_KEEP)
		snprintf(out->reason, sizeof(out->reason), "over %zu runs of this recipe: no candidate "
			 "gains %.1f %%", in->k, min_effect_pct);
	else if ((b = held_back(in, own, out)))
		snprintf(out->reason, sizeof(out->reason), "over %zu runs of this recipe: a gain of "
			 "%+.1f %% is shown (stage %zu: Z %.2f, bound %.2f), but this run could not rule "
			 "out a cost beyond its guardrail's margin (below)%s", in->k, b->effect_pct, in->k,
			 b->z, b->bound, alone);
	else
		snprintf(out->reason, sizeof(out->reason), "over %zu runs of this recipe: no change "
			 "shown yet (stage %zu of the recipe's sequential design)%s", in->k, in->k, alone);
}

int verdict2_replicate(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		       double alpha, double min_effect_pct, struct verdict2_rep_result *out,
		       struct st_err *e)
{
	int rc = check(in, own, alpha, e), best = -1;
	bool all_keep = true;
	struct rt_work *w;

	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->k = in->k;
	out->n_arms = in->n_arms;
	out->alpha_first = verdict2_first_alpha(alpha);
	out->alpha_cont = alpha - out->alpha_first;
	out->alpha_k = stage_spend(in->k - 1, out->alpha_first, out->alpha_cont);
	out->decision = own->decision;
	out->chosen = own->chosen;
	out->path = own->path;
	if (!(w = malloc(sizeof(*w))))
		return err_set(e, -ENOMEM, "replication: out of memory");
	for (size_t i = 0; i < in->n_arms; i++)
		if ((int)i != in->baseline)
			pool_arm(in, i, out, min_effect_pct, w, &out->arms[i]);
	free(w);
	if (own->decision == VERDICT2_STOP_INVALID && in->k > 1)
		snprintf(out->reason, sizeof(out->reason), "over %zu runs of this recipe: not "
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
		    (best < 0 || (isnan(out->arms[best].effect_pct) && !isnan(ar->effect_pct)) ||
		     ar->effect_pct > out->arms[best].effect_pct)) {
			best = (int)i;
			out->path = p;
		}
		if (!((ar->futile && !(ar->z_fail > 0.0)) || own_bars(own, i)))
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
