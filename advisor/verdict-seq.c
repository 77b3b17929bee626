/*
 * verdict-seq.c - the sequential, paired, outcome-aware verdict: per-round
 * paired log-ratios of the primary metric, Lan-DeMets O'Brien-Fleming looks
 * with Bonferroni over candidates, failed trials imputed as the worst
 * result, OOM rates by Fisher's exact test, guardrails as non-inferiority,
 * and power at the CV seen. Contracts are in include/swaptune/advisor.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/advisor.h"

void verdict2_opts_init(struct verdict2_opts *o)
{
	o->min_effect_pct = 2.0;
	o->guard_margin_pct = 25.0;
	o->guard_alpha = 0.05;
	o->guard_mask = (1u << VERDICT_SEC_CPU_NS_PER_OP) | (1u << VERDICT_SEC_PSI_SOME_US) |
			(1u << VERDICT_SEC_ZSWPOUT_PAGES) | (1u << VERDICT2_COST_P99_LATENCY);
	o->ni_margin_pct = 5.0;
	o->oom_veto_alpha = 0.05;
	o->invalid_frac = 0.5;
	o->impute_factor = 1.25;
}

const char *verdict2_decision_name(enum verdict2_decision d)
{
	switch (d) {
	case VERDICT2_CONTINUE:		return "continue";
	case VERDICT2_STOP_CHANGE:	return "change";
	case VERDICT2_STOP_KEEP:	return "keep";
	case VERDICT2_STOP_INCONCLUSIVE: return "inconclusive";
	case VERDICT2_STOP_INVALID:	return "invalid";
	}
	return "unknown";
}

const char *verdict2_guard_status_name(enum verdict2_guard_status s)
{
	switch (s) {
	case VERDICT2_GUARD_UNUSED:	return "unused";
	case VERDICT2_GUARD_SHOWN:	return "shown";
	case VERDICT2_GUARD_NOT_SHOWN:	return "not_shown";
	case VERDICT2_GUARD_HARM:	return "harm";
	case VERDICT2_GUARD_UNAVAILABLE: return "unavailable";
	}
	return "unknown";
}

const char *verdict_outcome_name(enum verdict_outcome o)
{
	switch (o) {
	case VERDICT_OUT_MISSING:	return "missing";
	case VERDICT_OUT_OK:		return "ok";
	case VERDICT_OUT_OOM:		return "oom";
	case VERDICT_OUT_TIMEOUT:	return "timeout";
	case VERDICT_OUT_FAILED:	return "failed";
	}
	return "unknown";
}

int verdict2_design_init(struct verdict2_design *d, const unsigned *rounds,
			 size_t n_looks, size_t n_candidates, double alpha,
			 struct st_err *e)
{
	double t[VERDICT2_LOOKS_MAX];
	int rc;

	if (!d || !rounds || n_looks < 1 || n_looks > VERDICT2_LOOKS_MAX)
		return err_set(e, -EINVAL, "design: 1 to %d looks", VERDICT2_LOOKS_MAX);
	if (n_candidates < 1 || n_candidates >= VERDICT_ARMS_MAX || !(alpha > 0.0 && alpha < 0.5))
		return err_set(e, -EINVAL, "design: need candidates and 0 < alpha < 0.5");
	if (rounds[0] < 2 || rounds[n_looks - 1] > VERDICT2_ROUNDS_MAX)
		return err_set(e, -EINVAL, "design: looks must be within 2..%d rounds",
			       VERDICT2_ROUNDS_MAX);
	for (size_t i = 1; i < n_looks; i++)
		if (rounds[i] <= rounds[i - 1])
			return err_set(e, -EINVAL, "design: look rounds must increase");
	memset(d, 0, sizeof(*d));
	d->n_looks = n_looks;
	d->n_candidates = n_candidates;
	d->alpha = alpha;
	d->alpha_each = alpha / (double)n_candidates;
	for (size_t i = 0; i < n_looks; i++) {
		d->rounds[i] = rounds[i];
		t[i] = (double)rounds[i] / (double)rounds[n_looks - 1];
	}
	rc = stats_gs_obf_bounds(t, n_looks, d->alpha_each, d->z_bound, e);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n_looks; i++)
		d->nominal_p[i] = 1.0 - stats_norm_cdf(d->z_bound[i]);
	return 0;
}

double verdict2_power(const struct verdict2_design *d, double effect_pct, double sd_log)
{
	double t[VERDICT2_LOOKS_MAX], cross[VERDICT2_LOOKS_MAX], drift, p = 0.0;
	size_t k;

	if (!d || d->n_looks < 1 || !(effect_pct > -100.0) || !(sd_log > 0.0) || !isfinite(sd_log))
		return NAN;
	k = d->n_looks;
	for (size_t i = 0; i < k; i++)
		t[i] = (double)d->rounds[i] / (double)d->rounds[k - 1];
	drift = log1p(effect_pct / 100.0) * sqrt((double)d->rounds[k - 1]) / sd_log;
	if (stats_gs_cross(t, d->z_bound, k, drift, cross, NULL) < 0)
		return NAN;
	for (size_t i = 0; i < k; i++)
		p += cross[i];
	return p > 1.0 ? 1.0 : p;
}

double verdict2_effect_for_power(const struct verdict2_design *d, double power, double sd_log)
{
	double lo = 0.0, hi = 10.0;	/* log-ratios: no gain .. x22 026 */

	if (!(power > 0.0) || !(power < 1.0))
		return NAN;
	if (!(verdict2_power(d, expm1(hi) * 100.0, sd_log) >= power))
		return NAN;
	while (hi - lo > 1e-5) {
		double mid = (lo + hi) / 2;

		if (verdict2_power(d, expm1(mid) * 100.0, sd_log) >= power)
			hi = mid;
		else
			lo = mid;
	}
	return expm1(hi) * 100.0;
}

int verdict2_pool_runs(const double *y, const double *v, size_t k,
		       struct verdict2_pooled *out, struct st_err *e)
{
	int rc;

	if (!out)
		return err_set(e, -EINVAL, "pooling: no result");
	rc = stats_pool_dl(y, v, k, 0.95, &out->pool, e);
	if (rc < 0)
		return rc;
	out->effect_pct = expm1(out->pool.pooled) * 100.0;
	out->ci_low_pct = expm1(out->pool.ci_low) * 100.0;
	out->ci_high_pct = expm1(out->pool.ci_high) * 100.0;
	return 0;
}

/* ---- the look ------------------------------------------------------- */

static void reason(struct verdict2_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reason(struct verdict2_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n_reasons >= VERDICT_REASONS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(r->reasons[r->n_reasons++], VERDICT_REASON_LEN, fmt, ap);
	va_end(ap);
}

static bool higher_better(enum verdict_metric m)
{
	return m == VERDICT_METRIC_THROUGHPUT || m == VERDICT_METRIC_HIGHER_BETTER;
}

/* Signed log scale -> "positive = better" percent. */
static double effect_of(double m, bool hb)
{
	return (hb ? expm1(m) : -expm1(-m)) * 100.0;
}

static int check_input(const struct verdict2_design *d, size_t look,
		       const struct verdict2_input *in, int *baseline, struct st_err *e)
{
	*baseline = -1;
	if (!d || !in || look >= d->n_looks)
		return err_set(e, -EINVAL, "verdict: no design, input, or look %zu out of range", look);
	if (in->n_rounds > VERDICT2_ROUNDS_MAX || in->n_arms < 2 || in->n_arms > VERDICT_ARMS_MAX)
		return err_set(e, -EINVAL, "verdict: %zu rounds, %zu arms out of range",
			       in->n_rounds, in->n_arms);
	if (in->n_arms - 1 != d->n_candidates)
		return err_set(e, -EINVAL, "verdict: design is for %zu candidates, input has %zu",
			       d->n_candidates, in->n_arms - 1);
	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm *arm = &in->arms[a];

		if (arm->is_baseline) {
			if (*baseline >= 0)
				return err_set(e, -EINVAL, "verdict: several baselines");
			*baseline = (int)a;
		}
		for (size_t r = 0; r < in->n_rounds; r++) {
			if (arm->outcome[r] > VERDICT_OUT_FAILED)
				return err_set(e, -EINVAL, "verdict: arm %s round %zu: bad outcome",
					       arm->name, r + 1);
			if (arm->outcome[r] != VERDICT_OUT_OK)
				continue;
			if (!isfinite(arm->primary[r]) || !(arm->primary[r] > 0.0))
				return err_set(e, -EINVAL, "verdict: arm %s round %zu: primary value "
					       "must be finite and positive", arm->name, r + 1);
			for (size_t c = 0; c < VERDICT2_COSTS; c++)
				if (arm->has_cost[c] &&
				    !(isfinite(arm->cost[c][r]) && arm->cost[c][r] >= 0.0))
					return err_set(e, -EINVAL, "verdict: arm %s round %zu: cost %zu "
						       "must be finite and >= 0", arm->name, r + 1, c);
		}
	}
	if (*baseline < 0)
		return err_set(e, -EINVAL, "verdict: no baseline arm");
	return 0;
}

static void count_outcomes(const struct verdict2_input *in, size_t a,
			   struct verdict2_arm_result *ar)
{
	for (size_t r = 0; r < in->n_rounds; r++)
		switch (in->arms[a].outcome[r]) {
		case VERDICT_OUT_OK:		ar->n_ok++; break;
		case VERDICT_OUT_OOM:		ar->n_oom++; break;
		case VERDICT_OUT_TIMEOUT:	ar->n_timeout++; break;
		case VERDICT_OUT_FAILED:	ar->n_failed++; break;
		case VERDICT_OUT_MISSING:	ar->n_missing++; break;
		}
}

/* The signed log value of a trial, failures imputed as worse than any OK. */
static double signed_log(const struct verdict2_input *in, size_t a, size_t r,
			 double worst_log, double penalty, bool hb)
{
	double v;

	if (in->arms[a].outcome[r] == VERDICT_OUT_OK)
		v = log(in->arms[a].primary[r]);
	else
		v = hb ? worst_log - penalty : worst_log + penalty;
	return hb ? v : -v;
}

/* Mean, sd, se, df, t of the comparison of arm a with baseline b. */
static void compare_primary(const struct verdict2_input *in, size_t a, size_t b,
			    double worst_log, double penalty, struct verdict2_arm_result *ar)
{
	bool hb = higher_better(in->metric);
	double x[VERDICT2_ROUNDS_MAX], y[VERDICT2_ROUNDS_MAX], dd[VERDICT2_ROUNDS_MAX];
	size_t nx = 0, ny = 0, nd = 0;

	ar->paired = true;
	for (size_t r = 0; r < in->n_rounds; r++) {
		bool ha = in->arms[a].outcome[r] != VERDICT_OUT_MISSING;
		bool hbse = in->arms[b].outcome[r] != VERDICT_OUT_MISSING;

		if (ha)
			x[nx++] = signed_log(in, a, r, worst_log, penalty, hb);
		if (hbse)
			y[ny++] = signed_log(in, b, r, worst_log, penalty, hb);
		if (ha && hbse)
			dd[nd++] = x[nx - 1] - y[ny - 1];
		else if (ha || hbse)
			ar->paired = false;
	}
	if (ar->paired) {
		ar->n = nd;
		if (nd < 2)
			return;
		ar->mean_log = stats_mean(dd, nd);
		ar->sd_log = stats_stddev(dd, nd);
		ar->se_log = ar->sd_log / sqrt((double)nd);
		ar->df = (double)nd - 1.0;
		ar->n_outliers = stats_mad_outliers(dd, nd, NULL);
	} else {
		struct stats_welch w;

		ar->n = nx < ny ? nx : ny;
		if (nx < 2 || ny < 2 || stats_welch(x, nx, y, ny, 0.95, &w, NULL) < 0)
			return;
		ar->mean_log = w.diff;
		ar->sd_log = w.se * sqrt((double)ar->n);
		ar->se_log = w.se;
		ar->df = isfinite(w.df) ? w.df : (double)(nx + ny - 2);
	}
	ar->compared = true;
	if (ar->se_log > 0.0) {
		ar->t = ar->mean_log / ar->se_log;
		ar->p_one = 1.0 - stats_t_cdf(ar->t, ar->df);
	} else {
		ar->t = ar->mean_log > 0.0 ? INFINITY : ar->mean_log < 0.0 ? -INFINITY : 0.0;
		ar->p_one = ar->mean_log > 0.0 ? 0.0 : 1.0;
	}
}

/* Non-inferiority on rounds both arms completed (the OOM path). */
static void primary_ni(const struct verdict2_input *in, size_t a, size_t b, double level_one,
		       struct verdict2_arm_result *ar)
{
	bool hb = higher_better(in->metric);
	double dd[VERDICT2_ROUNDS_MAX];
	size_t n = 0;
	double m, se;

	for (size_t r = 0; r < in->n_rounds; r++)
		if (in->arms[a].outcome[r] == VERDICT_OUT_OK && in->arms[b].outcome[r] == VERDICT_OUT_OK) {
			double v = log(in->arms[a].primary[r]) - log(in->arms[b].primary[r]);

			dd[n++] = hb ? v : -v;
		}
	ar->ni_lcb_pct = NAN;
	if (n < 2)
		return;
	m = stats_mean(dd, n);
	se = stats_stddev(dd, n) / sqrt((double)n);
	ar->ni_lcb_pct = effect_of(m - stats_t_quantile(level_one, (double)n - 1.0) * se, hb);
}

static void guard_one(const struct verdict2_input *in, size_t a, size_t b, size_t c,
		      const struct verdict2_opts *o, struct verdict2_guard *g)
{
	double dd[VERDICT2_ROUNDS_MAX], sa = 0.0, sb = 0.0, m, se, q;
	size_t n = 0, zeros = 0;

	g->status = VERDICT2_GUARD_UNUSED;
	g->rise_pct = g->ucb_pct = NAN;
	if (!(o->guard_mask & (1u << c)) || !in->arms[a].has_cost[c] || !in->arms[b].has_cost[c])
		return;
	for (size_t r = 0; r < in->n_rounds; r++) {
		double va = in->arms[a].cost[c][r], vb = in->arms[b].cost[c][r];

		if (in->arms[a].outcome[r] != VERDICT_OUT_OK || in->arms[b].outcome[r] != VERDICT_OUT_OK)
			continue;
		sa += va;
		sb += vb;
		if (va > 0.0 && vb > 0.0)
			dd[n++] = log(va) - log(vb);
		else
			zeros++;
	}
	g->n = n;
	if (zeros) {
		/* 0 against 0 everywhere: nothing rose. Else no ratio to bound. */
		g->status = sa == 0.0 && sb == 0.0 ? VERDICT2_GUARD_SHOWN : VERDICT2_GUARD_UNAVAILABLE;
		if (g->status == VERDICT2_GUARD_SHOWN)
			g->rise_pct = g->ucb_pct = 0.0;
		return;
	}
	if (n < 2) {
		g->status = VERDICT2_GUARD_NOT_SHOWN;
		return;
	}
	m = stats_mean(dd, n);
	se = stats_stddev(dd, n) / sqrt((double)n);
	q = stats_t_quantile(1.0 - o->guard_alpha, (double)n - 1.0);
	g->rise_pct = expm1(m) * 100.0;
	g->ucb_pct = expm1(m + q * se) * 100.0;
	if (g->ucb_pct <= o->guard_margin_pct)
		g->status = VERDICT2_GUARD_SHOWN;
	else if (expm1(m - q * se) * 100.0 > o->guard_margin_pct)
		g->status = VERDICT2_GUARD_HARM;
	else
		g->status = VERDICT2_GUARD_NOT_SHOWN;
}

static const char *cost_name(size_t c)
{
	return c == VERDICT2_COST_P99_LATENCY ? "p99_latency" :
	       verdict_secondary_name((enum verdict_secondary)c);
}

/* Everything about candidate a against baseline b at this look. */
static void judge_arm(const struct verdict2_design *d, size_t look,
		      const struct verdict2_input *in, const struct verdict2_opts *o,
		      size_t a, size_t b, double worst_log, double penalty,
		      struct verdict2_arm_result *ar)
{
	bool hb = higher_better(in->metric);
	unsigned n_a, n_b;

	compare_primary(in, a, b, worst_log, penalty, ar);
	ar->effect_pct = ar->ci_low_pct = ar->ci_high_pct = ar->ucb97_pct = ar->need_pct = NAN;
	ar->t_bound = NAN;
	if (ar->compared) {
		double df = ar->df > 0.0 ? ar->df : 1.0;
		double tb = stats_t_quantile(1.0 - d->nominal_p[look], df);
		double q97 = stats_t_quantile(0.975, df);

		ar->t_bound = tb;
		ar->effect_pct = effect_of(ar->mean_log, hb);
		ar->ci_low_pct = effect_of(ar->mean_log - tb * ar->se_log, hb);
		ar->ci_high_pct = effect_of(ar->mean_log + tb * ar->se_log, hb);
		ar->ucb97_pct = effect_of(ar->mean_log + q97 * ar->se_log, hb);
		ar->need_pct = effect_of(tb * ar->se_log, hb);
		/* a significant gain whose estimate is below the minimum effect is no reason to change */
		ar->crosses = ar->mean_log > 0.0 && ar->ci_low_pct > 0.0 &&
			      ar->effect_pct >= o->min_effect_pct;
		ar->min_effect_confirmed = ar->ci_low_pct >= o->min_effect_pct;
		ar->futile = ar->ucb97_pct < o->min_effect_pct;
	}
	/* OOM: the exact test of rates, both ways. */
	n_a = (unsigned)(in->n_rounds - ar->n_missing);
	{
		struct verdict2_arm_result tmp = { 0 };

		count_outcomes(in, b, &tmp);
		n_b = (unsigned)(in->n_rounds - tmp.n_missing);
		ar->p_oom_worse = stats_fisher_greater((unsigned)ar->n_oom, n_a, (unsigned)tmp.n_oom, n_b);
		ar->p_oom_base_worse = stats_fisher_greater((unsigned)tmp.n_oom, n_b, (unsigned)ar->n_oom, n_a);
	}
	ar->oom_vetoed = ar->n_oom > 0 && ar->p_oom_worse < o->oom_veto_alpha;
	primary_ni(in, a, b, 1.0 - d->alpha_each, ar);
	ar->ni_shown = isfinite(ar->ni_lcb_pct) && ar->ni_lcb_pct >= -o->ni_margin_pct;
	ar->oom_path = ar->p_oom_base_worse < d->nominal_p[look] && ar->ni_shown;
	for (size_t c = 0; c < VERDICT2_COSTS; c++) {
		guard_one(in, a, b, c, o, &ar->guard[c]);
		ar->guard_harm |= ar->guard[c].status == VERDICT2_GUARD_HARM;
		ar->guard_not_shown |= ar->guard[c].status == VERDICT2_GUARD_NOT_SHOWN;
	}
}

/* Worst OK value of the run on the log scale; false if nothing completed. */
static bool worst_ok(const struct verdict2_input *in, double *worst_log)
{
	bool hb = higher_better(in->metric), any = false;

	for (size_t a = 0; a < in->n_arms; a++)
		for (size_t r = 0; r < in->n_rounds; r++) {
			double v;

			if (in->arms[a].outcome[r] != VERDICT_OUT_OK)
				continue;
			v = log(in->arms[a].primary[r]);
			if (!any || (hb ? v < *worst_log : v > *worst_log))
				*worst_log = v;
			any = true;
		}
	return any;
}

static bool probe_invalid(const struct verdict2_input *in, const struct verdict2_result *out,
			  const struct verdict2_opts *o)
{
	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];
		size_t n = ar->n_ok + ar->n_oom + ar->n_timeout + ar->n_failed;

		if (n == 0 || (double)(n - ar->n_ok) < o->invalid_frac * (double)n)
			return false;
	}
	return true;
}

static void explain_guards(struct verdict2_result *out, int a, const char *name)
{
	const struct verdict2_arm_result *ar = &out->arms[a];

	for (size_t c = 0; c < VERDICT2_COSTS; c++) {
		const struct verdict2_guard *g = &ar->guard[c];

		if (g->status == VERDICT2_GUARD_NOT_SHOWN && g->n < 2)
			reason(out, "%s: %s cannot be bounded yet: %zu round%s where both arms completed "
			       "(the others were OOM-killed, timed out or failed); more rounds can show it",
			       name, cost_name(c), g->n, g->n == 1 ? "" : "s");
		else if (g->status == VERDICT2_GUARD_NOT_SHOWN)
			reason(out, "%s: no rise of %s beyond the margin could not be shown "
			       "(upper bound %+.1f%%, %zu rounds)", name, cost_name(c), g->ucb_pct, g->n);
		else if (g->status == VERDICT2_GUARD_HARM)
			reason(out, "%s: %s rises %+.1f%%, beyond the margin", name, cost_name(c),
			       g->rise_pct);
		else if (g->status == VERDICT2_GUARD_UNAVAILABLE)
			reason(out, "%s: guardrail %s cannot be shown (zero counts)", name,
			       cost_name(c));
	}
}

static void decide(const struct verdict2_design *d, size_t look, const struct verdict2_input *in,
		   const struct verdict2_opts *o, struct verdict2_result *out)
{
	int best = -1, pending = -1;
	bool all_keep = true;

	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];

		if ((int)a == out->baseline)
			continue;
		if ((ar->crosses || ar->oom_path) && !ar->oom_vetoed && !ar->guard_harm) {
			if (ar->guard_not_shown) {
				if (pending < 0 || ar->effect_pct > out->arms[pending].effect_pct)
					pending = (int)a;
			} else if (best < 0 || ar->effect_pct > out->arms[best].effect_pct ||
				   (isnan(out->arms[best].effect_pct) && !isnan(ar->effect_pct))) {
				best = (int)a;
			}
		}
		if (!(ar->futile || ar->oom_vetoed || ar->guard_harm))
			all_keep = false;
	}
	if (best >= 0) {
		const struct verdict2_arm_result *ar = &out->arms[best];

		out->decision = VERDICT2_STOP_CHANGE;
		out->chosen = best;
		if (ar->crosses)
			reason(out, "change to %s: %s %+.1f%% (%.1f%% to %+.1f%%), beyond the "
			       "look-%zu bound; minimum effect %.1f%% %s", in->arms[best].name,
			       in->metric_name[0] ? in->metric_name : "the primary metric",
			       ar->effect_pct, ar->ci_low_pct, ar->ci_high_pct, look + 1,
			       o->min_effect_pct, ar->min_effect_confirmed ? "confirmed" : "not confirmed");
		else
			reason(out, "change to %s: the baseline is OOM-killed credibly more often "
			       "(%zu vs %zu, Fisher p %.2g) and %s is no more than %.0f%% worse",
			       in->arms[best].name, out->arms[out->baseline].n_oom, ar->n_oom,
			       ar->p_oom_base_worse, in->arms[best].name, o->ni_margin_pct);
		explain_guards(out, best, in->arms[best].name);
		return;
	}
	if (all_keep) {
		out->decision = VERDICT2_STOP_KEEP;
		out->chosen = out->baseline;
		reason(out, "keep %s: every candidate is ruled out (cannot gain %.1f%%, "
		       "or vetoed by a cost or by OOM kills)",
		       in->arms[out->baseline].name, o->min_effect_pct);
		for (size_t a = 0; a < in->n_arms; a++) {
			const struct verdict2_arm_result *ar = &out->arms[a];

			if ((int)a == out->baseline)
				continue;
			if (ar->oom_vetoed)
				reason(out, "%s: OOM-killed more often than the baseline (%zu vs %zu, "
				       "Fisher p %.2g)", in->arms[a].name, ar->n_oom,
				       out->arms[out->baseline].n_oom, ar->p_oom_worse);
			if (ar->guard_harm)
				explain_guards(out, (int)a, in->arms[a].name);
		}
	} else if (!out->last_look) {
		out->decision = VERDICT2_CONTINUE;
		out->chosen = -1;
		reason(out, "continue to %u rounds", d->rounds[look + 1]);
	} else {
		out->decision = VERDICT2_STOP_INCONCLUSIVE;
		out->chosen = -1;
		if (pending >= 0)
			reason(out, "inconclusive: %s gains but a guardrail was not shown",
			       in->arms[pending].name);
		else
			reason(out, "inconclusive: no change shown, and a gain of %.1f%% cannot "
			       "be ruled out", o->min_effect_pct);
	}
	if (pending >= 0)
		explain_guards(out, pending, in->arms[pending].name);
}

int verdict2_look(const struct verdict2_design *d, size_t look,
		  const struct verdict2_input *in, const struct verdict2_opts *opts,
		  struct verdict2_result *out, struct st_err *e)
{
	struct verdict2_opts def;
	double worst_log = 0.0, penalty, ss = 0.0, dfs = 0.0;
	int baseline, rc;

	if (!opts) {
		verdict2_opts_init(&def);
		opts = &def;
	}
	if (!out)
		return err_set(e, -EINVAL, "verdict: no result");
	rc = check_input(d, look, in, &baseline, e);
	if (rc < 0)
		return rc;
	if (!(opts->impute_factor > 1.0))
		return err_set(e, -EINVAL, "verdict: impute_factor must exceed 1");
	memset(out, 0, sizeof(*out));
	out->baseline = baseline;
	out->chosen = -1;
	out->look = look;
	out->last_look = look + 1 == d->n_looks;
	out->n_rounds = in->n_rounds;
	out->n_arms = in->n_arms;
	out->false_change_bound = d->alpha;
	for (size_t a = 0; a < in->n_arms; a++)
		count_outcomes(in, a, &out->arms[a]);
	if (!worst_ok(in, &worst_log) || probe_invalid(in, out, opts)) {
		out->decision = VERDICT2_STOP_INVALID;
		out->sd_log = out->power_min_effect = NAN;
		reason(out, "probe invalid: every arm fails in at least %.0f%% of its trials; "
		       "raise the memory limit or the timeout", opts->invalid_frac * 100.0);
		return 0;
	}
	penalty = log(opts->impute_factor);
	for (size_t a = 0; a < in->n_arms; a++) {
		struct verdict2_arm_result *ar = &out->arms[a];

		if ((int)a == baseline)
			continue;
		judge_arm(d, look, in, opts, a, (size_t)baseline, worst_log, penalty, ar);
		if (ar->compared && ar->df > 0.0) {
			ss += ar->sd_log * ar->sd_log * ar->df;
			dfs += ar->df;
		}
	}
	out->sd_log = dfs > 0.0 ? sqrt(ss / dfs) : NAN;
	decide(d, look, in, opts, out);
	/* The power integral is the costly part of a look: only when it stops. */
	out->power_min_effect = out->decision == VERDICT2_CONTINUE ? NAN :
				verdict2_power(d, opts->min_effect_pct, out->sd_log);
	if (isfinite(out->power_min_effect))
		reason(out, "false-change rate <= %.1f%%; power ~ %.0f%% for >= %.1f%% at the "
		       "variation seen (sd of log-ratio %.3f) over %u rounds", d->alpha * 100.0,
		       out->power_min_effect * 100.0, opts->min_effect_pct, out->sd_log,
		       d->rounds[d->n_looks - 1]);
	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];

		if (ar->n_oom + ar->n_timeout + ar->n_failed)
			reason(out, "%s: %zu OOM-killed, %zu timed out, %zu failed of %zu trials "
			       "(counted as the worst result)", in->arms[a].name, ar->n_oom,
			       ar->n_timeout, ar->n_failed, in->n_rounds - ar->n_missing);
		if (ar->n_outliers)
			reason(out, "%s: %zu outlying round(s) (|modified z| > 3.5), kept",
			       in->arms[a].name, ar->n_outliers);
	}
	return 0;
}
