/*
 * verdict.c - the advisor's verdict on a probe run: compare every arm with
 * the baseline (the current setting), rule out arms that were OOM-killed,
 * veto wins paid for with a secondary cost, and explain the outcome in plain
 * English. Contracts are in include/swaptune/advisor.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/advisor.h"

/* Fixed so that the same data always gives the same verdict. */
#define VERDICT_PERM_SEED 0x73776170747566eeULL

void verdict_opts_init(struct verdict_opts *o)
{
	o->min_effect_pct = 2.0;
	o->alpha = 0.05;
	o->veto_pct = 25.0;
	o->veto_mask = VERDICT_SEC_BIT(VERDICT_SEC_CPU_NS_PER_OP) |
		       VERDICT_SEC_BIT(VERDICT_SEC_PSI_SOME_US) |
		       VERDICT_SEC_BIT(VERDICT_SEC_ZSWPOUT_PAGES);
	o->min_trials = 3;
	o->perm_seed = VERDICT_PERM_SEED;
	o->perm_rounds = STATS_PERM_ROUNDS_DEFAULT;
}

const char *verdict_kind_name(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_KEEP:		return "keep";
	case VERDICT_CHANGE:		return "change";
	case VERDICT_INCONCLUSIVE:	return "inconclusive";
	}
	return "unknown";
}

const char *verdict_confidence_name(enum verdict_confidence c)
{
	switch (c) {
	case VERDICT_CONF_LOW:		return "low";
	case VERDICT_CONF_MEDIUM:	return "medium";
	case VERDICT_CONF_HIGH:		return "high";
	}
	return "unknown";
}

const char *verdict_arm_status_name(enum verdict_arm_status s)
{
	switch (s) {
	case VERDICT_ARM_BASELINE:	return "baseline";
	case VERDICT_ARM_BETTER:	return "better";
	case VERDICT_ARM_VETOED:	return "vetoed";
	case VERDICT_ARM_BELOW_MIN:	return "below_min_effect";
	case VERDICT_ARM_EQUIVALENT:	return "equivalent";
	case VERDICT_ARM_NO_GAIN:	return "no_gain";
	case VERDICT_ARM_WORSE:		return "worse";
	case VERDICT_ARM_NOISY:		return "noisy";
	case VERDICT_ARM_TOO_FEW:	return "too_few";
	case VERDICT_ARM_OOM_FAILED:	return "oom_failed";
	case VERDICT_ARM_COMPLETED:	return "completed";
	}
	return "unknown";
}

const char *verdict_secondary_name(enum verdict_secondary s)
{
	switch (s) {
	case VERDICT_SEC_ZSWPIN_PAGES:		return "zswpin_pages";
	case VERDICT_SEC_ZSWPOUT_PAGES:		return "zswpout_pages";
	case VERDICT_SEC_WASTED_RA_PAGES:	return "wasted_ra_pages";
	case VERDICT_SEC_CPU_NS_PER_OP:		return "cpu_ns_per_op";
	case VERDICT_SEC_MAJOR_FAULTS:		return "major_faults";
	case VERDICT_SEC_PSI_SOME_US:		return "psi_some_us";
	case VERDICT_SEC_COUNT:			break;
	}
	return "unknown";
}

/* Words for reasons, as a user would say them. */
static const char *secondary_words(enum verdict_secondary s)
{
	switch (s) {
	case VERDICT_SEC_ZSWPIN_PAGES:		return "zswpin";
	case VERDICT_SEC_ZSWPOUT_PAGES:		return "zswpout";
	case VERDICT_SEC_WASTED_RA_PAGES:	return "wasted readahead";
	case VERDICT_SEC_CPU_NS_PER_OP:		return "CPU time per operation";
	case VERDICT_SEC_MAJOR_FAULTS:		return "major faults";
	case VERDICT_SEC_PSI_SOME_US:		return "memory stall (PSI)";
	case VERDICT_SEC_COUNT:			break;
	}
	return "?";
}

static bool higher_is_better(enum verdict_metric m)
{
	return m == VERDICT_METRIC_THROUGHPUT || m == VERDICT_METRIC_HIGHER_BETTER;
}

static const char *better_word(enum verdict_metric m, bool better)
{
	if (m == VERDICT_METRIC_THROUGHPUT || m == VERDICT_METRIC_WALL_TIME)
		return better ? "faster" : "slower";
	return better ? "better" : "worse";
}

/* Context for building one verdict. */
struct judge {
	const struct verdict_input *in;
	const struct verdict_opts *o;
	struct verdict_result *out;
	size_t base;
	double level_pct;
};

static void add_reason(struct verdict_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_reason(struct verdict_result *out, const char *fmt, ...)
{
	va_list ap;

	if (out->n_reasons >= VERDICT_REASONS_MAX) {
		out->n_reasons_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(out->reasons[out->n_reasons], VERDICT_REASON_LEN, fmt, ap);
	va_end(ap);
	out->n_reasons++;
}

/* Reasons quote p like a paper does: three decimals, or a bound. */
static const char *fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "p undefined");
	else if (p < 0.001)
		snprintf(buf, len, "p < 0.001");
	else
		snprintf(buf, len, "p = %.3f", p);
	return buf;
}

static const char *arm_name(const struct judge *j, size_t i)
{
	return j->in->arms[i].name;
}

static const char *metric_words(const struct judge *j)
{
	return j->in->metric_name[0] ? j->in->metric_name : "the primary metric";
}

static int validate(const struct verdict_input *in, const struct verdict_opts *o,
		    size_t *base, struct st_err *e)
{
	size_t n_base = 0;

	if (!isfinite(o->alpha) || o->alpha <= 0.0 || o->alpha >= 0.5)
		return err_set(e, -EINVAL, "verdict: alpha %g not in (0, 0.5)", o->alpha);
	if (!isfinite(o->min_effect_pct) || o->min_effect_pct < 0.0)
		return err_set(e, -EINVAL, "verdict: minimum effect %g %% is not a non-negative number",
			       o->min_effect_pct);
	if (!isfinite(o->veto_pct) || o->veto_pct < 0.0)
		return err_set(e, -EINVAL, "verdict: veto threshold %g %% is not a non-negative number",
			       o->veto_pct);
	if (o->min_trials < 2 || o->min_trials > VERDICT_TRIALS_MAX)
		return err_set(e, -EINVAL, "verdict: minimum trials %zu not in 2..%d",
			       o->min_trials, VERDICT_TRIALS_MAX);
	if (in->metric > VERDICT_METRIC_LOWER_BETTER)
		return err_set(e, -EINVAL, "verdict: unknown metric kind %d", (int)in->metric);
	if (!memchr(in->metric_name, '\0', sizeof(in->metric_name)))
		return err_set(e, -EINVAL, "verdict: metric name is not terminated");
	if (in->n_arms < 1 || in->n_arms > VERDICT_ARMS_MAX)
		return err_set(e, -EINVAL, "verdict: %zu arms, need 1..%d",
			       in->n_arms, VERDICT_ARMS_MAX);
	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict_arm *a = &in->arms[i];

		if (!memchr(a->name, '\0', sizeof(a->name)) || !a->name[0])
			return err_set(e, -EINVAL, "verdict: arm %zu has no name", i);
		if (a->n_trials > VERDICT_TRIALS_MAX)
			return err_set(e, -EINVAL, "verdict: arm %s has %zu trials, at most %d supported",
				       a->name, a->n_trials, VERDICT_TRIALS_MAX);
		for (size_t t = 0; t < a->n_trials; t++)
			if (!isfinite(a->primary[t]))
				return err_set(e, -EINVAL, "verdict: arm %s trial %zu: %s is not a finite number",
					       a->name, t + 1, in->metric_name[0] ? in->metric_name : "metric");
		for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
			if (!a->has_secondary[s])
				continue;
			for (size_t t = 0; t < a->n_trials; t++)
				if (!isfinite(a->secondary[s][t]))
					return err_set(e, -EINVAL, "verdict: arm %s trial %zu: %s is not a finite number",
						       a->name, t + 1, verdict_secondary_name(s));
		}
		if (a->is_baseline) {
			*base = i;
			n_base++;
		}
	}
	if (n_base != 1)
		return err_set(e, -EINVAL, "verdict: %zu arms marked as the current setting, need exactly 1",
			       n_base);
	return 0;
}

/*
 * Welch plus permutation test of a vs b. Welch has no p for constant arms;
 * the permutation test still does, so significance falls back to it.
 */
static int compare_samples(const struct judge *j, const double *a, size_t n_a,
			   const double *b, size_t n_b, struct stats_welch *w,
			   struct stats_perm *perm, bool *significant)
{
	int rc;

	rc = stats_welch(a, n_a, b, n_b, 1.0 - j->o->alpha, w, NULL);
	if (rc)
		return rc;
	rc = stats_permutation(a, n_a, b, n_b, j->o->perm_seed, j->o->perm_rounds,
			       perm, NULL);
	if (rc)
		return rc;
	if (w->flag == STATS_WELCH_OK)
		*significant = w->p < j->o->alpha;
	else if (w->flag == STATS_WELCH_CONSTANT)
		*significant = perm->p < j->o->alpha;
	else
		*significant = false;
	return 0;
}

static void compare_secondaries(const struct judge *j, size_t i)
{
	const struct verdict_arm *a = &j->in->arms[i], *b = &j->in->arms[j->base];
	struct verdict_arm_result *r = &j->out->arms[i];

	for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
		struct verdict_secondary_result *sr = &r->sec[s];
		struct stats_welch w;
		struct stats_perm perm;

		sr->mean = NAN;
		sr->change_pct = NAN;
		sr->p = NAN;
		if (!a->has_secondary[s])
			continue;
		if (a->n_trials > 0)
			sr->mean = stats_mean(a->secondary[s], a->n_trials);
		if (i == j->base || !b->has_secondary[s] ||
		    a->n_trials < 2 || b->n_trials < 2)
			continue;
		if (compare_samples(j, a->secondary[s], a->n_trials,
				    b->secondary[s], b->n_trials, &w, &perm,
				    &sr->significant))
			continue;
		sr->compared = true;
		sr->change_pct = w.diff_pct;
		sr->p = w.flag == STATS_WELCH_OK ? w.p : perm.p;
		/*
		 * A zero baseline has no percentage: report, never veto. A cost
		 * that grew less than the primary metric improved is a price
		 * worth paying (a 4x faster arm may stall 70 % more in total):
		 * only a cost growing faster than the win vetoes it.
		 */
		sr->vetoes = (j->o->veto_mask & VERDICT_SEC_BIT(s)) &&
			     sr->significant && isfinite(sr->change_pct) &&
			     sr->change_pct > j->o->veto_pct &&
			     !(r->compared && isfinite(r->effect_pct) &&
			       sr->change_pct <= r->effect_pct);
	}
}

/* Primary-metric comparison of arm i with the baseline. */
static int compare_arm(const struct judge *j, size_t i, enum stats_welch_flag *flag)
{
	const struct verdict_arm *a = &j->in->arms[i], *b = &j->in->arms[j->base];
	struct verdict_arm_result *r = &j->out->arms[i];
	struct stats_welch w;
	struct stats_perm perm;
	bool hb = higher_is_better(j->in->metric);
	int rc;

	*flag = STATS_WELCH_OK;
	if (i == j->base || a->n_trials < 2 || b->n_trials < 2)
		return 0;
	rc = compare_samples(j, a->primary, a->n_trials, b->primary, b->n_trials,
			     &w, &perm, &r->significant);
	if (rc)
		return rc;
	if (!isfinite(w.diff_pct))
		return 0;	/* baseline mean 0: no relative effect to judge */
	r->compared = true;
	*flag = w.flag;
	r->effect_pct = hb ? w.diff_pct : -w.diff_pct;
	r->ci_low_pct = hb ? w.ci_low_pct : -w.ci_high_pct;
	r->ci_high_pct = hb ? w.ci_high_pct : -w.ci_low_pct;
	r->p_welch = w.p;
	r->p_perm = perm.p;
	r->perm_exact = perm.exact;
	r->decisive = verdict_comparison_decisive(r, j->o->min_effect_pct);
	return 0;
}

static double primary_p(const struct verdict_arm_result *r, enum stats_welch_flag flag)
{
	if (flag == STATS_WELCH_OK)
		return r->p_welch;
	if (flag == STATS_WELCH_CONSTANT)
		return r->p_perm;
	return NAN;
}

/*
 * Holm's step-down over the arms compared with the baseline: with k arms
 * each tested at alpha, the chance that some arm wins by noise alone grows
 * towards 1 - (1 - alpha)^k. Sorted by p, the i-th (from 0) must be below
 * alpha / (k - i), and testing stops at the first that is not. It can only
 * take significance away.
 */
static void holm_adjust(const struct judge *j, const enum stats_welch_flag *flags)
{
	size_t idx[VERDICT_ARMS_MAX], k = 0;
	double alpha = j->o->alpha;
	bool stop = false;

	for (size_t i = 0; i < j->in->n_arms; i++) {
		j->out->arms[i].alpha_used = alpha;
		if (i != j->base && j->out->arms[i].compared)
			idx[k++] = i;
	}
	/* insertion sort by p, NAN last: at most VERDICT_ARMS_MAX arms */
	for (size_t a = 1; a < k; a++)
		for (size_t b = a; b > 0; b--) {
			double pb = primary_p(&j->out->arms[idx[b]], flags[idx[b]]);
			double pa = primary_p(&j->out->arms[idx[b - 1]], flags[idx[b - 1]]);

			if (!(isnan(pa) || pb < pa))
				break;
			size_t t = idx[b];
			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	for (size_t rank = 0; rank < k; rank++) {
		struct verdict_arm_result *r = &j->out->arms[idx[rank]];
		double p = primary_p(r, flags[idx[rank]]);

		r->alpha_used = alpha / (double)(k - rank);
		if (stop || !(p < r->alpha_used)) {
			stop = true;
			r->holm_demoted = r->significant;
			r->significant = false;
		}
		r->decisive = verdict_comparison_decisive(r, j->o->min_effect_pct);
	}
}

bool verdict_comparison_decisive(const struct verdict_arm_result *r,
				 double min_effect_pct)
{
	double m = min_effect_pct;

	if (!r || !r->compared)
		return false;
	if (r->significant && (r->ci_low_pct >= m || r->ci_high_pct < m))
		return true;
	return r->ci_low_pct > -m && r->ci_high_pct < m;
}

static enum verdict_arm_status classify(const struct judge *j, size_t i)
{
	const struct verdict_arm_result *r = &j->out->arms[i];
	double m = j->o->min_effect_pct;

	if (i == j->base)
		return VERDICT_ARM_BASELINE;
	if (r->n_oom_killed > 0)
		return VERDICT_ARM_OOM_FAILED;
	if (r->n < j->o->min_trials || j->out->arms[j->base].n < j->o->min_trials ||
	    !r->compared)
		return VERDICT_ARM_TOO_FEW;
	if (r->significant && r->effect_pct > 0.0)
		return r->effect_pct >= m ? VERDICT_ARM_BETTER : VERDICT_ARM_BELOW_MIN;
	if (r->significant && r->effect_pct < 0.0)
		return VERDICT_ARM_WORSE;
	if (r->ci_low_pct > -m && r->ci_high_pct < m)
		return VERDICT_ARM_EQUIVALENT;
	if (r->ci_high_pct < m)
		return VERDICT_ARM_NO_GAIN;
	return VERDICT_ARM_NOISY;
}

/* The vetoing secondary with the largest increase, or -1. */
static int worst_veto(const struct verdict_arm_result *r)
{
	int worst = -1;

	for (int s = 0; s < VERDICT_SEC_COUNT; s++)
		if (r->sec[s].vetoes &&
		    (worst < 0 || r->sec[s].change_pct > r->sec[worst].change_pct))
			worst = s;
	return worst;
}

static void reason_oom(const struct judge *j, size_t i)
{
	const struct verdict_arm_result *r = &j->out->arms[i];
	unsigned total = r->n_oom_killed + (unsigned)r->n;

	add_reason(j->out, "%s%s was OOM-killed in its memory cgroup in %u of %u trial%s; "
		   "it loses to every arm that completed",
		   arm_name(j, i), i == j->base ? " (current)" : "",
		   r->n_oom_killed, total, total == 1 ? "" : "s");
}

static void reason_arm(const struct judge *j, size_t i)
{
	const struct verdict_arm_result *r = &j->out->arms[i];
	const struct verdict_arm_result *b = &j->out->arms[j->base];
	enum verdict_metric mt = j->in->metric;
	const char *name = arm_name(j, i), *base = arm_name(j, j->base);
	double m = j->o->min_effect_pct, lv = j->level_pct;
	char p[32];
	int s;

	fmt_p(p, sizeof(p), r->p_welch);
	if (r->holm_demoted && r->status != VERDICT_ARM_OOM_FAILED)
		add_reason(j->out, "%s: %s would be significant alone, but not below %.4g, Holm's threshold for this arm with several arms compared",
			   name, p, r->alpha_used);
	switch (r->status) {
	case VERDICT_ARM_BASELINE:
		if (r->n_oom_killed > 0)
			reason_oom(j, i);
		else if (r->n < j->o->min_trials)
			add_reason(j->out, "%s (current): only %zu completed trial%s, need at least %zu",
				   name, r->n, r->n == 1 ? "" : "s", j->o->min_trials);
		break;
	case VERDICT_ARM_BETTER:
		add_reason(j->out, "%s is %.1f %% %s than %s (%g %% CI %.1f %% .. %.1f %%, %s, n = %zu vs %zu)",
			   name, r->effect_pct, better_word(mt, true), base, lv,
			   r->ci_low_pct, r->ci_high_pct, p, r->n, b->n);
		break;
	case VERDICT_ARM_VETOED:
		s = worst_veto(r);
		add_reason(j->out, "%s wins %s (%.1f %% %s) but costs %.1f %% more %s (%s): vetoed",
			   name, metric_words(j), r->effect_pct, better_word(mt, true),
			   r->sec[s].change_pct, secondary_words((enum verdict_secondary)s),
			   fmt_p(p, sizeof(p), r->sec[s].p));
		break;
	case VERDICT_ARM_BELOW_MIN:
		add_reason(j->out, "%s: difference %.1f %% is below the %g %% minimum effect (%g %% CI %.1f %% .. %.1f %%, %s)",
			   name, r->effect_pct, m, lv, r->ci_low_pct, r->ci_high_pct, p);
		break;
	case VERDICT_ARM_EQUIVALENT:
		add_reason(j->out, "%s: no difference from %s (%+.1f %%, %g %% CI %.1f %% .. %.1f %% lies within %g %% either way)",
			   name, base, r->effect_pct, lv, r->ci_low_pct, r->ci_high_pct, m);
		break;
	case VERDICT_ARM_NO_GAIN:
		add_reason(j->out, "%s: no significant difference from %s (%+.1f %%, %s); the %g %% CI %.1f %% .. %.1f %% rules out a %g %% gain",
			   name, base, r->effect_pct, p, lv, r->ci_low_pct, r->ci_high_pct, m);
		break;
	case VERDICT_ARM_WORSE:
		add_reason(j->out, "%s is %.1f %% %s than %s (%g %% CI %.1f %% .. %.1f %%, %s): regression risk",
			   name, -r->effect_pct, better_word(mt, false), base, lv,
			   -r->ci_high_pct, -r->ci_low_pct, p);
		break;
	case VERDICT_ARM_NOISY:
		add_reason(j->out, "%s: %+.1f %% vs %s but not significant (%g %% CI %.1f %% .. %.1f %%, %s): too noisy, more trials needed",
			   name, r->effect_pct, base, lv, r->ci_low_pct, r->ci_high_pct, p);
		break;
	case VERDICT_ARM_TOO_FEW:
		if (r->n < j->o->min_trials)
			add_reason(j->out, "%s: only %zu completed trial%s, need at least %zu",
				   name, r->n, r->n == 1 ? "" : "s", j->o->min_trials);
		else if (!r->compared && b->n >= j->o->min_trials)
			add_reason(j->out, "%s: %s averages 0, so no relative effect can be computed",
				   name, base);
		break;
	case VERDICT_ARM_OOM_FAILED:
		reason_oom(j, i);
		break;
	case VERDICT_ARM_COMPLETED:
		break;
	}
}

/* Notes that qualify a comparison, after its main reason. */
static void reason_caveats(const struct judge *j, size_t i, enum stats_welch_flag flag)
{
	const struct verdict_arm_result *r = &j->out->arms[i];
	char p[32];

	if (!r->compared)
		return;
	fmt_p(p, sizeof(p), r->p_perm);
	if (flag == STATS_WELCH_CONSTANT)
		add_reason(j->out, "%s: every trial of both arms gave the same value, so the Welch test is undefined; "
			   "significance comes from the permutation test (%s)", arm_name(j, i), p);
	else if (r->status == VERDICT_ARM_BETTER && r->p_perm >= j->o->alpha)
		add_reason(j->out, "%s: the distribution-free permutation test does not confirm it (%s, n = %zu vs %zu)",
			   arm_name(j, i), p, r->n, j->out->arms[j->base].n);
}

static enum verdict_confidence change_confidence(const struct judge *j, size_t c)
{
	const struct verdict_arm_result *r = &j->out->arms[c];
	double a = j->o->alpha;
	bool clears = r->ci_low_pct >= j->o->min_effect_pct;
	bool perm_ok = r->p_perm < a;

	if (r->p_welch < a / 5.0 && clears && perm_ok)
		return VERDICT_CONF_HIGH;
	if (clears || perm_ok)
		return VERDICT_CONF_MEDIUM;
	return VERDICT_CONF_LOW;
}

/* Baseline completed: pick among the candidates by their comparisons. */
static void judge_normal(struct judge *j, const enum stats_welch_flag *flags)
{
	struct verdict_result *out = j->out;
	const struct verdict_input *in = j->in;
	int chosen = -1, runner = -1;
	bool unsure = false, all_settled = true, any_veto = false;
	double lv = j->level_pct;
	char p[32];

	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict_arm_result *r = &out->arms[i];

		if (i == j->base)
			continue;
		if (r->status == VERDICT_ARM_BETTER) {
			if (chosen < 0 || r->effect_pct > out->arms[chosen].effect_pct) {
				runner = chosen;
				chosen = (int)i;
			} else if (runner < 0 || r->effect_pct > out->arms[runner].effect_pct) {
				runner = (int)i;
			}
		}
		if (r->status == VERDICT_ARM_NOISY || r->status == VERDICT_ARM_TOO_FEW)
			unsure = true;
		if (r->status == VERDICT_ARM_VETOED)
			any_veto = true;
		if (r->status == VERDICT_ARM_TOO_FEW ||
		    (r->status != VERDICT_ARM_OOM_FAILED && !r->decisive))
			all_settled = false;
	}
	out->decisive = all_settled && out->arms[j->base].n >= j->o->min_trials;

	if (in->n_arms == 1) {
		out->kind = VERDICT_INCONCLUSIVE;
		out->chosen = -1;
		out->confidence = VERDICT_CONF_LOW;
		out->decisive = true;
		add_reason(out, "only %s was measured: there is nothing to compare it with",
			   arm_name(j, j->base));
		return;
	}

	if (chosen >= 0) {
		out->kind = VERDICT_CHANGE;
		out->chosen = chosen;
		out->confidence = change_confidence(j, (size_t)chosen);
		reason_arm(j, (size_t)chosen);
		reason_caveats(j, (size_t)chosen, flags[chosen]);
		if (runner >= 0) {
			const struct verdict_arm *c = &in->arms[chosen], *u = &in->arms[runner];
			struct stats_welch w;
			struct stats_perm perm;
			bool sig = false;

			if (!compare_samples(j, c->primary, c->n_trials, u->primary,
					     u->n_trials, &w, &perm, &sig))
				add_reason(out, "%s is also %.1f %% %s than %s, %s %s (%s)",
					   u->name, out->arms[runner].effect_pct,
					   better_word(in->metric, true), arm_name(j, j->base),
					   sig ? "but significantly behind" : "and not clearly different from",
					   c->name, fmt_p(p, sizeof(p), w.flag == STATS_WELCH_OK ? w.p : perm.p));
		}
	} else if (unsure) {
		out->kind = VERDICT_INCONCLUSIVE;
		out->chosen = -1;
		out->confidence = VERDICT_CONF_LOW;
		add_reason(out, "inconclusive: not enough evidence to change from %s or to keep it; run more trials",
			   arm_name(j, j->base));
	} else {
		bool high = !any_veto;

		for (size_t i = 0; i < in->n_arms; i++)
			if (i != j->base && out->arms[i].status != VERDICT_ARM_OOM_FAILED &&
			    !out->arms[i].decisive)
				high = false;
		out->kind = VERDICT_KEEP;
		out->chosen = (int)j->base;
		out->confidence = high ? VERDICT_CONF_HIGH : VERDICT_CONF_MEDIUM;
		if (any_veto)
			add_reason(out, "keep %s: the arms that are significantly %s by at least %g %% cost too much elsewhere",
				   arm_name(j, j->base), better_word(in->metric, true),
				   j->o->min_effect_pct);
		else
			add_reason(out, "keep %s: no arm is significantly %s by at least %g %% (%g %% confidence)",
				   arm_name(j, j->base), better_word(in->metric, true),
				   j->o->min_effect_pct, lv);
	}

	for (size_t i = 0; i < in->n_arms; i++) {
		if ((int)i == chosen)
			continue;
		reason_arm(j, i);
		if (i != j->base && out->arms[i].status != VERDICT_ARM_BETTER)
			reason_caveats(j, i, flags[i]);
	}
}

/* Baseline OOM-killed: any arm that completed every trial beats it. */
static void judge_failed_baseline(struct judge *j)
{
	struct verdict_result *out = j->out;
	const struct verdict_input *in = j->in;
	const struct verdict_arm_result *b = &out->arms[j->base];
	bool hb = higher_is_better(in->metric);
	int chosen = -1, runner = -1, n_done = 0;
	bool separated = false;
	char p[32];

	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict_arm_result *r = &out->arms[i];

		if (i == j->base || r->n_oom_killed > 0 || r->n == 0)
			continue;
		out->arms[i].status = VERDICT_ARM_COMPLETED;
		n_done++;
		if (chosen < 0 || (hb ? r->mean > out->arms[chosen].mean
				      : r->mean < out->arms[chosen].mean)) {
			runner = chosen;
			chosen = (int)i;
		} else if (runner < 0 || (hb ? r->mean > out->arms[runner].mean
					     : r->mean < out->arms[runner].mean)) {
			runner = (int)i;
		}
	}

	if (chosen < 0) {
		out->kind = VERDICT_INCONCLUSIVE;
		out->chosen = -1;
		out->confidence = VERDICT_CONF_LOW;
		out->decisive = true;	/* more rounds of the same setup will not help */
		add_reason(out, "inconclusive: no arm completed its trials without an OOM kill; "
			   "raise the probe's memory limit or shrink its working set");
		for (size_t i = 0; i < in->n_arms; i++)
			if (out->arms[i].n_oom_killed > 0)
				reason_oom(j, i);
		return;
	}

	out->kind = VERDICT_CHANGE;
	out->chosen = chosen;
	add_reason(out, "%s (current) was OOM-killed in its memory cgroup in %u of %u trials; "
		   "%s completed all %zu: change to %s",
		   arm_name(j, j->base), b->n_oom_killed, b->n_oom_killed + (unsigned)b->n,
		   arm_name(j, (size_t)chosen), out->arms[chosen].n, arm_name(j, (size_t)chosen));

	if (runner >= 0) {
		const struct verdict_arm *c = &in->arms[chosen], *u = &in->arms[runner];
		const struct verdict_arm_result *rc = &out->arms[chosen];
		double diff = fabs(rc->mean - out->arms[runner].mean);
		double rel = out->arms[runner].mean != 0.0
			     ? 100.0 * diff / fabs(out->arms[runner].mean) : NAN;
		struct stats_welch w;
		struct stats_perm perm;

		if (c->n_trials >= 2 && u->n_trials >= 2 &&
		    !compare_samples(j, c->primary, c->n_trials, u->primary,
				     u->n_trials, &w, &perm, &separated))
			add_reason(out, "%s also completed; %s is %.1f %% %s (%s%s)",
				   u->name, c->name, rel, better_word(in->metric, true),
				   fmt_p(p, sizeof(p), w.flag == STATS_WELCH_OK ? w.p : perm.p),
				   separated ? "" : ", not significant");
		else
			add_reason(out, "%s also completed; too few trials to tell it from %s",
				   u->name, c->name);
	}

	out->confidence = b->n == 0 && out->arms[chosen].n >= j->o->min_trials &&
			  (n_done == 1 || separated)
			  ? VERDICT_CONF_HIGH : VERDICT_CONF_MEDIUM;
	out->decisive = out->arms[chosen].n >= j->o->min_trials &&
			(n_done == 1 || separated);

	for (size_t i = 0; i < in->n_arms; i++)
		if (i != j->base && out->arms[i].n_oom_killed > 0)
			reason_oom(j, i);
}

int verdict_compute(const struct verdict_input *in,
		    const struct verdict_opts *opts,
		    struct verdict_result *out, struct st_err *e)
{
	struct verdict_opts defaults;
	enum stats_welch_flag flags[VERDICT_ARMS_MAX];
	struct judge j;
	int rc;

	if (!in || !out)
		return err_set(e, -EINVAL, "verdict: no input or no result struct");
	if (!opts) {
		verdict_opts_init(&defaults);
		opts = &defaults;
	}
	memset(out, 0, sizeof(*out));
	rc = validate(in, opts, &j.base, e);
	if (rc)
		return rc;
	j.in = in;
	j.o = opts;
	j.out = out;
	j.level_pct = 100.0 * (1.0 - opts->alpha);
	out->n_arms = in->n_arms;
	out->baseline = (int)j.base;

	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict_arm *a = &in->arms[i];
		struct verdict_arm_result *r = &out->arms[i];

		r->n = a->n_trials;
		r->n_oom_killed = a->n_oom_killed;
		r->mean = a->n_trials ? stats_mean(a->primary, a->n_trials) : NAN;
		r->stddev = a->n_trials >= 2 ? stats_stddev(a->primary, a->n_trials) : NAN;
		r->effect_pct = r->ci_low_pct = r->ci_high_pct = NAN;
		r->p_welch = r->p_perm = NAN;
		rc = compare_arm(&j, i, &flags[i]);
		if (rc)
			return err_set(e, rc, "verdict: comparing arm %s failed", a->name);
		compare_secondaries(&j, i);
	}
	holm_adjust(&j, flags);
	for (size_t i = 0; i < in->n_arms; i++) {
		struct verdict_arm_result *r = &out->arms[i];

		r->status = classify(&j, i);
		if (r->status == VERDICT_ARM_BETTER && worst_veto(r) >= 0)
			r->status = VERDICT_ARM_VETOED;
	}

	if (out->arms[j.base].n_oom_killed > 0)
		judge_failed_baseline(&j);
	else
		judge_normal(&j, flags);
	return 0;
}

int verdict_is_decisive(const struct verdict_input *in,
			const struct verdict_opts *opts, bool *decisive,
			struct st_err *e)
{
	struct verdict_result r;
	int rc;

	if (!decisive)
		return err_set(e, -EINVAL, "verdict: no result pointer");
	rc = verdict_compute(in, opts, &r, e);
	if (rc)
		return rc;
	*decisive = r.decisive;
	return 0;
}
