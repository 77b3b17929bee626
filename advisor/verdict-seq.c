/*
 * verdict-seq.c - the sequential, paired, outcome-aware verdict (v4): the
 * design (looks, spending, truncation), one look at the data (speed on the
 * rounds both arms completed by the exact sequential randomisation test of
 * randtest.c, failures by the exact sequential sign test, guardrails and
 * vetoes spent over the looks) and its reasons, and what a report adds
 * (the median-unbiased estimate after an early stop, intervals, power).
 * Contracts are in include/swaptune/advisor.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/randtest.h"

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
	o->busy_psi_pct = 10.0;
	o->intervals = true;
	o->order_fixed = false;
}

void verdict2_input_clear(struct verdict2_input *in)
{
	memset(in, 0, sizeof(*in));
	for (size_t a = 0; a < VERDICT_ARMS_MAX; a++)
		for (size_t r = 0; r < VERDICT2_ROUNDS_MAX; r++)
			in->arms[a].cpu_pressure_pct[r] = in->arms[a].cpu_share[r] = NAN;
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
	case VERDICT2_GUARD_NOT_COMPARABLE: return "not_comparable";
	}
	return "unknown";
}

const char *verdict2_path_name(enum verdict2_path p)
{
	switch (p) {
	case VERDICT2_PATH_NONE:	return "none";
	case VERDICT2_PATH_SPEED:	return "speed";
	case VERDICT2_PATH_FAILURE:	return "failure";
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

/* ---- the design ------------------------------------------------------- */

static int check_rounds(const unsigned *rounds, size_t n_looks, struct st_err *e)
{
	if (!rounds || n_looks < 1 || n_looks > VERDICT2_LOOKS_MAX)
		return err_set(e, -EINVAL, "design: 1 to %d looks", VERDICT2_LOOKS_MAX);
	if (rounds[0] < 2 || rounds[n_looks - 1] > VERDICT2_ROUNDS_MAX)
		return err_set(e, -EINVAL, "design: looks must be within 2..%d rounds",
			       VERDICT2_ROUNDS_MAX);
	for (size_t i = 1; i < n_looks; i++)
		if (rounds[i] <= rounds[i - 1])
			return err_set(e, -EINVAL, "design: look rounds must increase");
	return 0;
}

int verdict2_design_init(struct verdict2_design *d, const unsigned *rounds,
			 size_t n_looks, size_t n_candidates, double alpha,
			 struct st_err *e)
{
	int rc;

	if (!d)
		return err_set(e, -EINVAL, "design: no design");
	if ((rc = check_rounds(rounds, n_looks, e)) < 0)
		return rc;
	if (n_candidates < 1 || n_candidates >= VERDICT_ARMS_MAX || !(alpha > 0.0 && alpha < 0.5))
		return err_set(e, -EINVAL, "design: need candidates and 0 < alpha < 0.5");
	memset(d, 0, sizeof(*d));
	d->n_looks = d->n_planned = n_looks;
	d->n_candidates = n_candidates;
	d->alpha = alpha;
	d->alpha_speed = (1.0 - VERDICT2_FAIL_SHARE) * alpha;
	d->alpha_fail = VERDICT2_FAIL_SHARE * alpha;
	d->gamma = VERDICT2_GAMMA;
	d->min_effect_pct = 2.0;
	for (size_t i = 0; i < n_looks; i++) {
		d->rounds[i] = d->planned[i] = rounds[i];
		double t = (double)rounds[i] / (double)rounds[n_looks - 1];

		d->frac[i] = i + 1 == n_looks ? 1.0 : stats_hsd_spend(t, d->gamma);
		d->frac_fail[i] = i + 1 == n_looks ? 1.0 : stats_hsd_spend(t, VERDICT2_FAIL_GAMMA);
	}
	return 0;
}

int verdict2_design_truncate(struct verdict2_design *d, unsigned r, struct st_err *e)
{
	size_t k = 0;

	if (!d || d->n_looks < 1)
		return err_set(e, -EINVAL, "design: no design");
	if (r < 2)
		return err_set(e, -EINVAL, "design: a look needs at least 2 rounds");
	if (r >= d->rounds[d->n_looks - 1])
		return 0;
	while (k < d->n_looks && d->rounds[k] < r)
		k++;
	/* looks 0..k-1 keep rounds and levels; look k ends the design at r */
	d->rounds[k] = r;
	d->frac[k] = d->frac_fail[k] = 1.0;
	d->n_looks = k + 1;
	for (size_t i = k + 1; i < VERDICT2_LOOKS_MAX; i++) {
		d->rounds[i] = 0;
		d->frac[i] = d->frac_fail[i] = 0.0;
	}
	return 0;
}

unsigned verdict2_fail_rounds_min(const struct verdict2_design *d)
{
	return (unsigned)ceil(-log2(d->alpha_fail) - 1e-9);
}

/* ---- small helpers ---------------------------------------------------- */

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

/* Signed log (positive = better) -> speed-up percent, never below -100 %. */
static double gain_pct(double m)
{
	return expm1(m) * 100.0;
}

/* Signed log -> the metric's own candidate / baseline - 1, percent. */
static double own_pct(double m, bool hb)
{
	return expm1(hb ? m : -m) * 100.0;
}

static bool failed(enum verdict_outcome o)
{
	return o == VERDICT_OUT_OOM || o == VERDICT_OUT_TIMEOUT || o == VERDICT_OUT_FAILED;
}

static const char *cost_name(size_t c)
{
	/* the swap-out guard counts zswpout and pswpout alike (src/metric.c) */
	return c == VERDICT2_COST_P99_LATENCY ? "p99_latency" : c == VERDICT_SEC_ZSWPOUT_PAGES ?
	       "swapout_pages" : verdict_secondary_name((enum verdict_secondary)c);
}

static const char *metric_label(const struct verdict2_input *in)
{
	return in->metric_name[0] ? in->metric_name : "the primary metric";
}

/* The level of look k of a path with overall level a: its increment of frac. */
static double look_level(const struct verdict2_design *d, size_t k, double a)
{
	return a * (d->frac[k] - (k ? d->frac[k - 1] : 0.0));
}

/* ---- input ---------------------------------------------------------------- */

static int check_input(const struct verdict2_design *d, size_t look,
		       const struct verdict2_input *in, const struct verdict2_opts *o,
		       int *baseline, struct st_err *e)
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
	if (!(o->guard_alpha > 0.0 && o->guard_alpha < 0.5) || !(o->oom_veto_alpha > 0.0 &&
	    o->oom_veto_alpha < 0.5) || !(o->min_effect_pct >= 0.0) || !(o->ni_margin_pct >= 0.0) ||
	    !(o->guard_margin_pct >= 0.0))
		return err_set(e, -EINVAL, "verdict: bad options");
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
	unsigned n, f;

	for (size_t r = 0; r < in->n_rounds; r++)
		switch (in->arms[a].outcome[r]) {
		case VERDICT_OUT_OK:		ar->n_ok++; break;
		case VERDICT_OUT_OOM:		ar->n_oom++; break;
		case VERDICT_OUT_TIMEOUT:	ar->n_timeout++; break;
		case VERDICT_OUT_FAILED:	ar->n_failed++; break;
		case VERDICT_OUT_MISSING:	ar->n_missing++; break;
		}
	n = (unsigned)(in->n_rounds - ar->n_missing);
	f = (unsigned)(ar->n_oom + ar->n_timeout + ar->n_failed);
	ar->fail_rate = ar->fail_lo = ar->fail_hi = NAN;
	if (n > 0) {
		ar->fail_rate = (double)f / n;
		stats_clopper_pearson(f, n, 0.95, &ar->fail_lo, &ar->fail_hi);
	}
}

/* ---- one candidate ------------------------------------------------------- */

/*
 * What the judging of one candidate reads: candidate a against baseline b
 * at look `look` (0-based) of design d, over input in under options o,
 * with the randomisation engine's scratch w.
 */
struct pairing {
	const struct verdict2_design *d;
	size_t look;
	const struct verdict2_input *in;
	const struct verdict2_opts *o;
	size_t a, b;
	struct rt_work *w;
};

/*
 * The sequential sign tests on the rounds where exactly one of a and b
 * failed; ar's speed comparison is judged already. At the design's last
 * look, a count of won rounds one short of what the exact test can show
 * alone is completed by that comparison: an exact test of a discrete count
 * cannot spend its whole level (at 6 of 6 rounds, p is 1/64 against a
 * level of 0.82 %), and the randomised test that does would reject at the
 * boundary count with probability gamma = (level - P(beyond)) / P(at); the
 * speed test's p, independent of which arm failed in the discordant
 * rounds when the arms do not differ, takes the uniform draw's place.
 * p_stage - P(at) (1 - p) is then a valid p-value of the combined test.
 */
/* The rounds in which exactly one of two arms a and b failed: won when b failed, lost when a did. */
struct discordant {
	unsigned won, lost;
};

/* Adds the discordant rounds in [from, to) to t. */
static void count_discordant(const struct verdict2_input *in, size_t a, size_t b, size_t from,
			     size_t to, struct discordant *t)
{
	for (size_t r = from; r < to && r < in->n_rounds; r++) {
		enum verdict_outcome oa = in->arms[a].outcome[r], ob = in->arms[b].outcome[r];

		t->won += oa == VERDICT_OUT_OK && failed(ob);
		t->lost += failed(oa) && ob == VERDICT_OUT_OK;
	}
}

/* The direction-signed log-ratios of a over b (positive = a better) on the rounds both completed; their count. */
static size_t paired_log_ratios(const struct verdict2_input *in, size_t a, size_t b, double *dd)
{
	bool hb = higher_better(in->metric);
	size_t n = 0;

	for (size_t r = 0; r < in->n_rounds; r++) {
		const struct verdict2_arm *x = &in->arms[a], *y = &in->arms[b];
		double v;

		if (x->outcome[r] != VERDICT_OUT_OK || y->outcome[r] != VERDICT_OUT_OK)
			continue;
		v = log(x->primary[r]) - log(y->primary[r]);
		dd[n++] = hb ? v : -v;
	}
	return n;
}

/*
 * The speed comparison's one-sided p that a is faster (fixed sample, its
 * randomisation test on the rounds both completed), as a tie-breaker: 1
 * without two pairs or when a is not ahead (a p of 0.5 or more), so it
 * only ever favours the faster arm.
 */
static double speed_tiebreak_p(const struct verdict2_input *in, size_t a, size_t b,
			       struct verdict2_arm_result *ar, struct rt_work *w)
{
	double c[VERDICT2_ROUNDS_MAX];
	size_t n;

	if (!ar->compared || ar->n < 2)
		return 1.0;
	n = paired_log_ratios(in, a, b, c);
	ar->p_one = rt_p_one(RT_SCORE_HUBER, &(struct rt_contrasts){ c, n }, 0.0, 1, w);
	return ar->p_one < 0.5 ? ar->p_one : 1.0;
}

static void judge_failures(const struct pairing *p, struct verdict2_arm_result *ar)
{
	const struct verdict2_design *d = p->d;
	const struct verdict2_input *in = p->in;
	size_t look = p->look;
	unsigned disc[VERDICT2_LOOKS_MAX], won[VERDICT2_LOOKS_MAX], lost[VERDICT2_LOOKS_MAX];
	double lv_fail[VERDICT2_LOOKS_MAX], lv_veto[VERDICT2_LOOKS_MAX];
	struct stats_sign_seq sf, sv;
	struct discordant t = { 0, 0 };
	size_t r = 0;
	unsigned w, l;

	for (size_t j = 0; j <= look; j++) {
		size_t end = j == look ? in->n_rounds : d->rounds[j];

		count_discordant(in, p->a, p->b, r, end, &t);
		r = end;
		disc[j] = t.won + t.lost;
		won[j] = t.won;
		lost[j] = t.lost;
		lv_fail[j] = d->alpha_fail * d->frac_fail[j];
		lv_veto[j] = p->o->oom_veto_alpha * d->frac_fail[j];
	}
	w = ar->disc_won = t.won;
	l = ar->disc_lost = t.lost;
	ar->p_fail_stage = 1.0;
	ar->fail_speed_p = 1.0;
	if (stats_sign_seq(disc, won, look + 1, lv_fail, &sf, NULL) == 0) {
		ar->fail_shown = sf.rejected_at >= 0;
		ar->p_fail_stage = w ? sf.p_stage : 1.0;
		if (!ar->fail_shown && look + 1 == d->n_looks && w > l &&
		    w + 1 >= verdict2_fail_rounds_min(d) && sf.p_at > 0.0) {
			double q = speed_tiebreak_p(in, p->a, p->b, ar, p->w);
			double ps = sf.p_stage - sf.p_at * (1.0 - q);

			ar->fail_speed_p = q;
			ar->p_fail_stage = ps > 0.0 ? ps : 0.0;
			ar->fail_by_speed = ar->fail_shown = q < 1.0 && ps <= lv_fail[look] * (1.0 + 1e-12);
		}
	}
	if (stats_sign_seq(disc, lost, look + 1, lv_veto, &sv, NULL) == 0)
		ar->oom_vetoed = sv.rejected_at >= 0;
}

/*
 * The randomisation design of candidate a's speed test at look `look`: its
 * contrasts (rounds both completed, in round order) into c[], their number
 * at each look, and the levels alpha_speed / candidates x frac.
 */
static size_t speed_design(const struct pairing *p, double *c, struct rt_design *rd)
{
	const struct verdict2_design *d = p->d;
	const struct verdict2_input *in = p->in;
	size_t look = p->look, a = p->a, b = p->b;
	size_t n = paired_log_ratios(in, a, b, c);

	memset(rd, 0, sizeof(*rd));
	rd->score = RT_SCORE_HUBER;
	rd->n_looks = look + 1;
	for (size_t j = 0; j <= look; j++) {
		size_t end = j == look ? in->n_rounds : d->rounds[j], m = 0;

		for (size_t r = 0; r < end && r < in->n_rounds; r++)
			m += in->arms[a].outcome[r] == VERDICT_OUT_OK && in->arms[b].outcome[r] == VERDICT_OUT_OK;
		rd->n_at[j] = (unsigned)m;
		rd->spend_cum[j] = d->alpha_speed / (double)d->n_candidates * d->frac[j];
	}
	return n;
}

/* The one-look design of a fixed-sample test at level lvl on n contrasts. */
static void fixed_design(size_t n, double lvl, struct rt_design *rd)
{
	memset(rd, 0, sizeof(*rd));
	rd->score = RT_SCORE_HUBER;
	rd->n_looks = 1;
	rd->n_at[0] = (unsigned)n;
	rd->spend_cum[0] = lvl;
	rd->enum_max = 12;
}

/* The repeated confidence interval of ar's speed (its estimate set) and what follows from it. */
static void speed_interval(const struct pairing *p, const struct rt_design *rd, const struct rt_contrasts *x,
			   struct verdict2_arm_result *ar)
{
	bool hb = higher_better(p->in->metric);
	const struct verdict2_opts *o = p->o;
	struct rt_work *w = p->w;
	double lo, hi;

	ar->p_one = rt_p_one(RT_SCORE_HUBER, x, 0.0, 1, w);
	rt_interval(rd, x, ar->mean_log, w, &lo, &hi);
	/* the interval and the test agree at 0 (a search on a noisy scale may not) */
	if (!ar->crosses && lo > 0.0)
		lo = 0.0;
	ar->ci_low_pct = gain_pct(lo);
	ar->ci_high_pct = gain_pct(hi);
	ar->ratio_lo_pct = own_pct(hb ? lo : hi, hb);
	ar->ratio_hi_pct = own_pct(hb ? hi : lo, hb);
	ar->need_pct = gain_pct(ar->mean_log - lo);
	ar->min_effect_confirmed = ar->ci_low_pct >= o->min_effect_pct;
	/* the one-sided 97.5 % upper bound that futility reads */
	{
		struct rt_design fd;

		fixed_design(x->n, 0.025, &fd);
		rt_interval(&fd, x, ar->mean_log, w, &lo, &hi);
		ar->ucb97_pct = gain_pct(hi);
	}
}

/* Speed of a against b on the rounds both completed. */
static void judge_speed(const struct pairing *p, struct verdict2_arm_result *ar)
{
	const struct verdict2_opts *o = p->o;
	struct rt_work *w = p->w;
	bool hb = higher_better(p->in->metric);
	double c[VERDICT2_ROUNDS_MAX];
	struct rt_design rd;
	struct rt_contrasts x = { c, 0 };
	struct rt_result rr;
	size_t n;

	ar->mean_log = ar->sd_log = ar->p_one = NAN;
	ar->effect_pct = ar->ci_low_pct = ar->ci_high_pct = NAN;
	ar->ratio_pct = ar->ratio_lo_pct = ar->ratio_hi_pct = NAN;
	ar->ucb97_pct = ar->need_pct = NAN;
	ar->adj_effect_pct = ar->adj_ci_low_pct = ar->adj_ci_high_pct = ar->p_stage = NAN;
	n = x.n = speed_design(p, c, &rd);
	ar->n = n;
	if (n < 2 || rt_seq_test(&rd, &x, 0.0, 1, w, &rr) < 0)
		return;
	ar->compared = true;
	ar->crosses = rr.rejects;
	ar->p_stage = rr.p_stage;
	ar->mean_log = rt_estimate(RT_SCORE_HUBER, c, n);
	ar->sd_log = stats_stddev(c, n);
	ar->effect_pct = gain_pct(ar->mean_log);
	ar->ratio_pct = own_pct(ar->mean_log, hb);
	ar->futile = rt_rejects(RT_SCORE_HUBER, &x, log1p(o->min_effect_pct / 100.0), -1, 0.025, w);
	ar->worse_than_ni = rt_rejects(RT_SCORE_HUBER, &x, -log1p(o->ni_margin_pct / 100.0), -1,
				       look_level(p->d, p->look, o->guard_alpha), w);
	if (o->intervals)
		speed_interval(p, &rd, &x, ar);
}

/*
 * The per-round rises of cost c of a over b on the rounds both completed,
 * log((cost_a + 1) / (cost_b + 1)): one unit of the cost's own (a page, a
 * microsecond, a nanosecond) so that a zero reading compares.
 */
static size_t cost_rises(const struct verdict2_input *in, size_t a, size_t b, size_t c, double *g)
{
	size_t n = 0;

	for (size_t r = 0; r < in->n_rounds; r++)
		if (in->arms[a].outcome[r] == VERDICT_OUT_OK && in->arms[b].outcome[r] == VERDICT_OUT_OK)
			g[n++] = log1p(in->arms[a].cost[c][r]) - log1p(in->arms[b].cost[c][r]);
	return n;
}

/* Guardrail c of a against b. */
static void judge_guard(const struct pairing *p, size_t c, struct verdict2_guard *g)
{
	const struct verdict2_input *in = p->in;
	const struct verdict2_opts *o = p->o;
	size_t a = p->a, b = p->b;
	struct rt_work *w = p->w;
	double dd[VERDICT2_ROUNDS_MAX], lim = log1p(o->guard_margin_pct / 100.0), any = 0.0;
	size_t n;

	g->status = VERDICT2_GUARD_UNUSED;
	g->rise_pct = g->ucb_pct = g->lcb_pct = NAN;
	g->level = look_level(p->d, p->look, o->guard_alpha);
	if (!(o->guard_mask & (1u << c)) || (!in->arms[a].has_cost[c] && !in->arms[b].has_cost[c]))
		return;
	if (!in->arms[a].has_cost[c] || !in->arms[b].has_cost[c]) {
		/* measured for one arm only: nothing to compare, and so not shown */
		g->status = VERDICT2_GUARD_UNAVAILABLE;
		return;
	}
	n = cost_rises(in, a, b, c, dd);
	g->n = n;
	if (n < 2) {
		g->status = VERDICT2_GUARD_NOT_COMPARABLE;
		return;
	}
	for (size_t i = 0; i < n; i++)
		any += fabs(dd[i]);
	if (any == 0.0) {
		/* the same reading in every round: nothing rose */
		g->status = VERDICT2_GUARD_SHOWN;
		g->rise_pct = g->ucb_pct = g->lcb_pct = 0.0;
		return;
	}
	g->rise_pct = expm1(rt_estimate(RT_SCORE_HUBER, dd, n)) * 100.0;
	if (rt_rejects(RT_SCORE_HUBER, &(struct rt_contrasts){ dd, n }, lim, -1, g->level, w))
		g->status = VERDICT2_GUARD_SHOWN;
	else if (rt_rejects(RT_SCORE_HUBER, &(struct rt_contrasts){ dd, n }, lim, 1, g->level, w))
		g->status = VERDICT2_GUARD_HARM;
	else
		g->status = VERDICT2_GUARD_NOT_SHOWN;
	if (o->intervals) {
		struct rt_design rd;
		double lo, hi;

		fixed_design(n, g->level, &rd);
		rt_interval(&rd, &(struct rt_contrasts){ dd, n }, log1p(g->rise_pct / 100.0), w, &lo, &hi);
		g->lcb_pct = expm1(lo) * 100.0;
		g->ucb_pct = expm1(hi) * 100.0;
	}
}

/* The endpoint that makes candidate ar eligible for a change, if any. */
static enum verdict2_path arm_path(const struct verdict2_arm_result *ar,
				   const struct verdict2_opts *o)
{
	bool guards_shown = true, guard_harm = false;

	for (size_t c = 0; c < VERDICT2_COSTS; c++) {
		enum verdict2_guard_status s = ar->guard[c].status;

		/* a guardrail that could not be evaluated is not a pass */
		guards_shown &= s == VERDICT2_GUARD_UNUSED || s == VERDICT2_GUARD_SHOWN;
		guard_harm |= s == VERDICT2_GUARD_HARM;
	}
	if (ar->oom_vetoed)
		return VERDICT2_PATH_NONE;
	if (ar->crosses && ar->effect_pct >= o->min_effect_pct && guards_shown)
		return VERDICT2_PATH_SPEED;
	if (ar->fail_shown && !ar->worse_than_ni && !guard_harm)
		return VERDICT2_PATH_FAILURE;
	return VERDICT2_PATH_NONE;
}

static void judge_arm(const struct pairing *p, struct verdict2_arm_result *ar)
{
	judge_speed(p, ar);
	judge_failures(p, ar);
	for (size_t c = 0; c < VERDICT2_COSTS; c++) {
		enum verdict2_guard_status s;

		judge_guard(p, c, &ar->guard[c]);
		s = ar->guard[c].status;
		ar->guard_harm |= s == VERDICT2_GUARD_HARM;
		ar->guard_not_shown |= s == VERDICT2_GUARD_NOT_SHOWN || s == VERDICT2_GUARD_NOT_COMPARABLE ||
				       s == VERDICT2_GUARD_UNAVAILABLE;
	}
}

/*
 * The failure test's fixed sequence: candidates in ascending fail_order
 * (ties: listing order); each was tested at the whole failure share, and
 * one counts as shown only while every one before it was shown too. Then
 * each candidate's path, which depends on it.
 */
static void fail_sequence(const struct verdict2_input *in, int baseline,
			  const struct verdict2_opts *o, struct verdict2_result *out)
{
	bool done[VERDICT_ARMS_MAX] = { false }, open = true;

	done[baseline] = true;
	for (;;) {
		struct verdict2_arm_result *ar;
		int next = -1;

		for (size_t a = 0; a < in->n_arms; a++)
			if (!done[a] && (next < 0 || in->arms[a].fail_order < in->arms[next].fail_order))
				next = (int)a;
		if (next < 0)
			return;
		done[next] = true;
		ar = &out->arms[next];
		ar->fail_gated = !open && ar->fail_shown;
		ar->fail_shown = open && ar->fail_shown;
		open = ar->fail_shown;
		ar->path = arm_path(ar, o);
	}
}

/* ---- the decision and its words --------------------------------------------- */

/*
 * An inconclusive end where the baseline failed more often than a candidate
 * but in too few rounds: how many the exact test needs (its least p-value
 * with n discordant rounds is 2^-n), for the candidate with the most (the
 * first in the failure test's sequence among equals).
 */
static void fail_short_words(const struct verdict2_design *d, const struct verdict2_input *in,
			     struct verdict2_result *out)
{
	unsigned need = verdict2_fail_rounds_min(d);
	int best = -1;

	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];

		if ((int)a == out->baseline || ar->fail_shown || ar->fail_gated || ar->disc_won <= ar->disc_lost)
			continue;
		if (best < 0 || ar->disc_won > out->arms[best].disc_won ||
		    (ar->disc_won == out->arms[best].disc_won &&
		     in->arms[a].fail_order < in->arms[best].fail_order))
			best = (int)a;
	}
	if (best < 0 || out->arms[best].disc_won + out->arms[best].disc_lost >= need)
		return;
	reason(out, "%s failed in %u of the %u rounds where one of %s and %s failed: too few to tell; "
	       "failures alone show a difference only from %u such rounds (this run's exact test at "
	       "%.2f %%): more rounds would tell", in->arms[out->baseline].name, out->arms[best].disc_won,
	       out->arms[best].disc_won + out->arms[best].disc_lost, in->arms[out->baseline].name,
	       in->arms[best].name, need, 100 * d->alpha_fail);
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

/* A candidate that cannot be changed to at any later look either. */
static bool ruled_out(const struct verdict2_arm_result *ar)
{
	return ar->path == VERDICT2_PATH_NONE &&
	       (ar->oom_vetoed || ar->guard_harm ||
		(ar->compared && ar->futile && ar->disc_won <= ar->disc_lost));
}

/* "throughput +12.3 % [+4.1, +21.2]" or "wall time -10.9 % [-17.5, -3.9] (lower is better)" */
static void effect_words(const struct verdict2_input *in, const struct verdict2_arm_result *ar,
			 char *buf, size_t len)
{
	const char *dir = higher_better(in->metric) ? "" : " (lower is better)";

	if (isfinite(ar->ratio_lo_pct) || isfinite(ar->ratio_hi_pct))
		snprintf(buf, len, "%s %+.1f %% [%+.1f, %+.1f]%s", metric_label(in), ar->ratio_pct,
			 ar->ratio_lo_pct, ar->ratio_hi_pct, dir);
	else
		snprintf(buf, len, "%s %+.1f %%%s", metric_label(in), ar->ratio_pct, dir);
}

static void explain_guards(struct verdict2_result *out, int a, const char *name,
			   const struct verdict2_opts *o, bool failure_path)
{
	const struct verdict2_arm_result *ar = &out->arms[a];

	for (size_t c = 0; c < VERDICT2_COSTS; c++) {
		const struct verdict2_guard *g = &ar->guard[c];

		if (g->status == VERDICT2_GUARD_NOT_COMPARABLE)
			reason(out, "%s: %s is not comparable: %zu round%s where both arms completed%s",
			       name, cost_name(c), g->n, g->n == 1 ? "" : "s",
			       failure_path ? "; it does not block a change away from failures" :
			       "; more rounds are needed");
		else if (g->status == VERDICT2_GUARD_NOT_SHOWN && isfinite(g->ucb_pct))
			reason(out, "%s: %s may rise more than the %.0f %% margin (up to %+.0f %%); more "
			       "rounds are needed to rule that out", name, cost_name(c),
			       o->guard_margin_pct, g->ucb_pct);
		else if (g->status == VERDICT2_GUARD_NOT_SHOWN)
			reason(out, "%s: %s may rise more than the %.0f %% margin; more rounds are needed "
			       "to rule that out", name, cost_name(c), o->guard_margin_pct);
		else if (g->status == VERDICT2_GUARD_HARM && isfinite(g->lcb_pct))
			reason(out, "%s: %s rises %+.0f %% (at least %+.0f %%), beyond the %.0f %% margin",
			       name, cost_name(c), g->rise_pct, g->lcb_pct, o->guard_margin_pct);
		else if (g->status == VERDICT2_GUARD_HARM)
			reason(out, "%s: %s rises %+.0f %%, beyond the %.0f %% margin", name, cost_name(c),
			       g->rise_pct, o->guard_margin_pct);
		else if (g->status == VERDICT2_GUARD_UNAVAILABLE)
			reason(out, "%s: %s was measured for one of the two arms only: the guardrail "
			       "cannot be evaluated, so it does not let a change through", name,
			       cost_name(c));
	}
}

static void failure_words(struct verdict2_result *out, const struct verdict2_input *in, int a,
			  const char *lead)
{
	const struct verdict2_arm_result *ar = &out->arms[a], *br = &out->arms[out->baseline];
	unsigned fb = (unsigned)(br->n_oom + br->n_timeout + br->n_failed);
	unsigned fa = (unsigned)(ar->n_oom + ar->n_timeout + ar->n_failed);

	const char *how = ar->fail_by_speed ? "exact sign test, completed by speed" : "exact sign test";

	reason(out, "%s%s fails more often than %s: %u of %zu trials (%.0f %% [%.0f, %.0f]) against "
	       "%u of %zu (%.0f %% [%.0f, %.0f]); of %u rounds where one of the two failed, %s "
	       "failed in %u (%s)", lead, in->arms[out->baseline].name, in->arms[a].name,
	       fb, in->n_rounds - br->n_missing, 100 * br->fail_rate, 100 * br->fail_lo,
	       100 * br->fail_hi, fa, in->n_rounds - ar->n_missing, 100 * ar->fail_rate,
	       100 * ar->fail_lo, 100 * ar->fail_hi, ar->disc_won + ar->disc_lost,
	       in->arms[out->baseline].name, ar->disc_won, how);
}

static void reason_change(const struct verdict2_design *d, size_t look,
			  const struct verdict2_input *in, const struct verdict2_opts *o,
			  struct verdict2_result *out)
{
	const struct verdict2_arm_result *ar = &out->arms[out->chosen];
	const char *name = in->arms[out->chosen].name;
	char eff[120];

	if (out->path == VERDICT2_PATH_SPEED) {
		effect_words(in, ar, eff, sizeof(eff));
		reason(out, "change to %s: %s against %s over %zu rounds both completed, shown at "
		       "look %zu by the exact randomisation test (stagewise one-sided p %.2g <= %.2g %%)",
		       name, eff, in->arms[out->baseline].name, ar->n, look + 1, ar->p_stage,
		       100 * d->alpha_speed / (double)d->n_candidates * d->frac[look]);
		if (isfinite(ar->ci_low_pct))
			reason(out, "%s: the smallest estimated gain worth a change is %.1f %%: %s", name,
			       o->min_effect_pct, ar->min_effect_confirmed ? "the whole interval clears "
			       "it (minimum effect confirmed)" : "the estimate clears it, the interval's "
			       "lower bound does not");
		return;
	}
	{
		char lead[VERDICT_NAME_MAX + 16];

		snprintf(lead, sizeof(lead), "change to %s: ", name);
		failure_words(out, in, out->chosen, lead);
	}
	if (ar->fail_by_speed)
		reason(out, "%s: one won round short of what the sign test shows alone; %s was faster on "
		       "the %zu rounds both completed (one-sided p %.2g), the tie-breaker at that count: "
		       "together p %.2g <= %.2g %%", name, name, ar->n, ar->fail_speed_p, ar->p_fail_stage,
		       100 * d->alpha_fail);
	if (ar->compared) {
		effect_words(in, ar, eff, sizeof(eff));
		reason(out, "%s: on the %zu rounds both completed, %s; not shown to be slower by more "
		       "than the %.0f %% margin", name, ar->n, eff, o->ni_margin_pct);
	} else {
		reason(out, "%s: %zu round%s both completed: speed not compared (a failure is not "
		       "counted as a speed)", name, ar->n, ar->n == 1 ? "" : "s");
	}
}

static void reason_keep(const struct verdict2_input *in, const struct verdict2_opts *o,
			struct verdict2_result *out)
{
	reason(out, "keep %s: no candidate can gain %.1f %%, or each is ruled out by failures or "
	       "a cost", in->arms[out->baseline].name, o->min_effect_pct);
	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];

		if ((int)a == out->baseline)
			continue;
		if (ar->oom_vetoed)
			reason(out, "%s fails more often than %s: %zu of %zu trials against %zu of %zu "
			       "(exact sign test on the %u rounds where one of the two failed)",
			       in->arms[a].name, in->arms[out->baseline].name,
			       ar->n_oom + ar->n_timeout + ar->n_failed, in->n_rounds - ar->n_missing,
			       out->arms[out->baseline].n_oom + out->arms[out->baseline].n_timeout +
			       out->arms[out->baseline].n_failed,
			       in->n_rounds - out->arms[out->baseline].n_missing,
			       ar->disc_won + ar->disc_lost);
		else if (ar->guard_harm)
			explain_guards(out, (int)a, in->arms[a].name, o, false);
		else if (ar->compared && isfinite(ar->ucb97_pct))
			reason(out, "%s: %+.1f %%; a gain of %.1f %% is ruled out (97.5 %% upper bound "
			       "%+.1f %%)", in->arms[a].name, ar->effect_pct, o->min_effect_pct,
			       ar->ucb97_pct);
		else if (ar->compared)
			reason(out, "%s: %+.1f %%; a gain of %.1f %% is ruled out (one-sided 2.5 %%)",
			       in->arms[a].name, ar->effect_pct, o->min_effect_pct);
	}
}

enum prefer_rule { PREFER_TIE, PREFER_EFFECT, PREFER_FAILURES, PREFER_SPEED, PREFER_EDGE };

/*
 * Eligible candidate x against eligible candidate y: sign > 0 when x is
 * preferred, < 0 when y is, 0 when nothing tells them apart; rule says what
 * decided. When it was the two head to head: won / lost the rounds where
 * exactly one of them failed and it was y / x, n the rounds both completed
 * and speed the mean log-ratio of x over y on them (positive = x better).
 */
struct preference {
	int sign;
	enum prefer_rule rule;
	struct discordant disc;	/* of x against y */
	size_t n;
	double speed;
};

/*
 * The larger effect against the baseline, the figure the verdict shows,
 * unless the baseline is shown to fail more often than either: then the
 * few rounds it completed are a poor yardstick (a CPU-hog run, session 9:
 * pc1 +53.4 % and pc0 +52.3 % against pc3 on its 2 completed rounds, so pc1
 * was chosen, though it was OOM-killed once in 10 trials and pc0 never, and
 * pc0 was the faster of the two on the 9 rounds both completed), so the two
 * are compared with each other, failures first as the failure endpoint is:
 * the one that failed in fewer of the rounds where exactly one of the two
 * failed; then the faster on the rounds both completed; then the larger
 * effect against the baseline, or edge in failures over it. The choice
 * between eligible candidates does not change the false-change rate: each
 * is eligible on its own evidence against the baseline.
 */
static struct preference compare_eligible(const struct verdict2_input *in,
					  const struct verdict2_result *out, size_t x, size_t y)
{
	const struct verdict2_arm_result *ax = &out->arms[x], *ay = &out->arms[y];
	int edge_x = (int)ax->disc_won - (int)ax->disc_lost;
	int edge_y = (int)ay->disc_won - (int)ay->disc_lost;
	struct preference p = { .speed = NAN };
	double dd[VERDICT2_ROUNDS_MAX];

	if (ax->fail_shown || ay->fail_shown) {
		count_discordant(in, x, y, 0, in->n_rounds, &p.disc);
		p.rule = PREFER_FAILURES;
		if (p.disc.won != p.disc.lost) {
			p.sign = p.disc.won > p.disc.lost ? 1 : -1;
			return p;
		}
		p.n = paired_log_ratios(in, x, y, dd);
		p.rule = PREFER_SPEED;
		if (p.n > 0 && (p.speed = stats_mean(dd, p.n)) != 0.0) {
			p.sign = p.speed > 0.0 ? 1 : -1;
			return p;
		}
	}
	p.rule = PREFER_EFFECT;
	if (!isnan(ax->effect_pct) && !isnan(ay->effect_pct) && ax->effect_pct != ay->effect_pct) {
		p.sign = ax->effect_pct > ay->effect_pct ? 1 : -1;
		return p;
	}
	p.rule = edge_x != edge_y ? PREFER_EDGE : PREFER_TIE;
	p.sign = edge_x > edge_y ? 1 : edge_x < edge_y ? -1 : 0;
	return p;
}

/*
 * How many other eligible candidates x is preferred to. The chosen one beats
 * the most (the first in the arm order among equals), so that with three or
 * more the choice does not depend on the order they are compared in when
 * the pairwise comparisons, on different rounds each, run in a circle.
 */
static size_t beats(const struct verdict2_input *in, const struct verdict2_result *out, size_t x)
{
	size_t n = 0;

	for (size_t a = 0; a < in->n_arms; a++)
		n += a != x && (int)a != out->baseline && out->arms[a].path != VERDICT2_PATH_NONE &&
		     compare_eligible(in, out, x, a).sign > 0;
	return n;
}

/* Why the chosen candidate was preferred to each other eligible one. */
static void reason_preferred(const struct verdict2_input *in, struct verdict2_result *out)
{
	const char *best = in->arms[out->chosen].name, *base = in->arms[out->baseline].name;
	size_t b = (size_t)out->chosen;

	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];
		const char *other = in->arms[a].name;
		struct preference p;

		if (a == b || (int)a == out->baseline || ar->path == VERDICT2_PATH_NONE)
			continue;
		p = compare_eligible(in, out, b, a);
		if (p.sign < 0) {
			reason(out, "%s is chosen over %s, which could also replace %s and is preferred "
			       "to it alone, because %s is preferred to at least as many of the other "
			       "candidates (the first in the arm order among equals)", best, other, base,
			       best);
			continue;
		}
		switch (p.rule) {
		case PREFER_FAILURES:
			reason(out, "%s is preferred to %s, which could also replace %s: failures first; of "
			       "the %u round%s where one of the two failed, %s failed in %u", best, other,
			       base, p.disc.won + p.disc.lost, p.disc.won + p.disc.lost == 1 ? "" : "s", other, p.disc.won);
			break;
		case PREFER_SPEED:
			reason(out, "%s is preferred to %s, which could also replace %s: neither failed more "
			       "often; %s was %.1f %% faster on the %zu rounds both completed (%s's few "
			       "completed rounds are a poor yardstick)", best, other, base, best,
			       100 * expm1(p.speed), p.n, base);
			break;
		case PREFER_EFFECT:
			reason(out, "%s is preferred to %s, which could also replace %s: the larger gain "
			       "against %s (%+.1f %% against %+.1f %%)", best, other, base, base,
			       out->arms[b].effect_pct, ar->effect_pct);
			break;
		case PREFER_EDGE:
			reason(out, "%s is preferred to %s, which could also replace %s: the larger edge in "
			       "failures over %s (%d against %d rounds)", best, other, base, base,
			       (int)out->arms[b].disc_won - (int)out->arms[b].disc_lost,
			       (int)ar->disc_won - (int)ar->disc_lost);
			break;
		case PREFER_TIE:
			reason(out, "%s and %s could both replace %s and nothing measured tells them "
			       "apart: %s is the first in the arm order", best, other, base, best);
			break;
		}
	}
}

static void decide(const struct verdict2_design *d, size_t look, const struct verdict2_input *in,
		   const struct verdict2_opts *o, struct verdict2_result *out)
{
	int best = -1, pending = -1;
	size_t n_eligible = 0, best_beats = 0;
	bool all_out = true;

	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];

		if ((int)a == out->baseline)
			continue;
		n_eligible += ar->path != VERDICT2_PATH_NONE;
		if (ar->path != VERDICT2_PATH_NONE) {
			size_t k = beats(in, out, a);

			if (best < 0 || k > best_beats) {
				best = (int)a;
				best_beats = k;
			}
		}
		if (ar->path == VERDICT2_PATH_NONE && ar->crosses && !ar->oom_vetoed && !ar->guard_harm &&
		    ar->effect_pct >= o->min_effect_pct && ar->guard_not_shown)
			pending = (int)a;
		all_out &= ruled_out(ar);
	}
	if (best >= 0) {
		out->decision = VERDICT2_STOP_CHANGE;
		out->chosen = best;
		out->path = out->arms[best].path;
		reason_change(d, look, in, o, out);
		if (n_eligible > 1)
			reason_preferred(in, out);
		explain_guards(out, best, in->arms[best].name, o, out->path == VERDICT2_PATH_FAILURE);
		return;
	}
	if (all_out) {
		out->decision = VERDICT2_STOP_KEEP;
		out->chosen = out->baseline;
		reason_keep(in, o, out);
		return;
	}
	out->chosen = -1;
	if (!out->last_look) {
		out->decision = VERDICT2_CONTINUE;
		reason(out, "continue to %u rounds", d->rounds[look + 1]);
	} else {
		out->decision = VERDICT2_STOP_INCONCLUSIVE;
		if (pending >= 0)
			reason(out, "inconclusive: %s gains, but a cost it may raise could not be "
			       "ruled out", in->arms[pending].name);
		else
			reason(out, "inconclusive: no change shown, and a gain of %.1f %% cannot be "
			       "ruled out", o->min_effect_pct);
		for (size_t a = 0; a < in->n_arms; a++)
			if (out->arms[a].fail_gated)
				reason(out, "%s: %s failed more often than it (%u of %u rounds where one "
				       "of the two failed), but the failure test takes the candidates in "
				       "a fixed order, least readahead first, and one before it was not "
				       "shown", in->arms[a].name, in->arms[out->baseline].name,
				       out->arms[a].disc_won, out->arms[a].disc_won + out->arms[a].disc_lost);
		fail_short_words(d, in, out);
	}
	if (pending >= 0)
		explain_guards(out, pending, in->arms[pending].name, o, false);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median CPU share of the completed trials that have one, NAN if none. */
static double median_share(const struct verdict2_input *in)
{
	double v[VERDICT_ARMS_MAX * VERDICT2_ROUNDS_MAX];
	size_t n = 0;

	for (size_t a = 0; a < in->n_arms; a++)
		for (size_t r = 0; r < in->n_rounds; r++)
			if (in->arms[a].outcome[r] == VERDICT_OUT_OK && isfinite(in->arms[a].cpu_share[r]))
				v[n++] = in->arms[a].cpu_share[r];
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(v[0]), cmp_dbl);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * A trial the host's load may have slowed: CPU pressure at or above the
 * threshold while it ran, or it got less than half the CPU share the run's
 * trials typically got.
 */
static bool trial_busy(const struct verdict2_arm *x, size_t r, double med, const struct verdict2_opts *o)
{
	return (isfinite(x->cpu_pressure_pct[r]) && x->cpu_pressure_pct[r] >= o->busy_psi_pct) ||
	       (isfinite(x->cpu_share[r]) && isfinite(med) && x->cpu_share[r] < 0.5 * med);
}

/* Failures, busy rounds, serial dependence and outliers, after the headline. */
static void reason_details(const struct verdict2_design *d, const struct verdict2_input *in,
			   const struct verdict2_opts *o, struct verdict2_result *out)
{
	char rounds[96] = "";
	size_t off = 0;
	bool busy_round[VERDICT2_ROUNDS_MAX] = { false };
	double med = median_share(in);

	for (size_t a = 0; a < in->n_arms; a++) {
		const struct verdict2_arm_result *ar = &out->arms[a];
		size_t nf = ar->n_oom + ar->n_timeout + ar->n_failed;

		if (nf)
			reason(out, "%s: %zu of %zu trials failed (%.0f %% [%.0f, %.0f]): OOM-killed in its "
			       "memory cgroup in %zu of %zu, timed out in %zu, other failures %zu; failures "
			       "are their own endpoint, never a speed", in->arms[a].name, nf,
			       in->n_rounds - ar->n_missing, 100 * ar->fail_rate, 100 * ar->fail_lo,
			       100 * ar->fail_hi, ar->n_oom, in->n_rounds - ar->n_missing, ar->n_timeout,
			       ar->n_failed);
	}
	for (size_t r = 0; r < in->n_rounds; r++) {
		const struct verdict2_arm *b = &in->arms[out->baseline];
		bool busy = false;

		for (size_t a = 0; a < in->n_arms; a++) {
			const struct verdict2_arm *x = &in->arms[a];

			busy |= trial_busy(x, r, med, o);
			if ((int)a != out->baseline && x->outcome[r] == VERDICT_OUT_OK &&
			    b->outcome[r] == VERDICT_OUT_OK && (trial_busy(x, r, med, o) || trial_busy(b, r, med, o)))
				out->arms[a].n_busy++;
		}
		if (!busy)
			continue;
		out->n_busy_rounds++;
		busy_round[r] = true;
	}
	/* runs of busy rounds as ranges ("1-6, 9"), so the list fits the reason */
	for (size_t r = 0; r < in->n_rounds && off < sizeof(rounds) - 16; r++) {
		size_t end = r;

		if (!busy_round[r])
			continue;
		while (end + 1 < in->n_rounds && busy_round[end + 1])
			end++;
		if (end > r)
			off += (size_t)snprintf(rounds + off, sizeof(rounds) - off, "%s%zu-%zu",
						off ? ", " : "", r + 1, end + 1);
		else
			off += (size_t)snprintf(rounds + off, sizeof(rounds) - off, "%s%zu", off ? ", " : "",
						r + 1);
		r = end;
	}
	if (out->n_busy_rounds)
		reason(out, "the host was busy (CPU pressure >= %.0f %%, or a trial got less than half the "
		       "usual CPU share) during %zu round%s (%s): kept, paired within the round",
		       o->busy_psi_pct, out->n_busy_rounds, out->n_busy_rounds == 1 ? "" : "s", rounds);
	if (o->order_fixed)
		reason(out, "false-change rate of this run's design <= %.2f %% (speed %.2f %%, failures "
		       "%.2f %%), approximate: its arms ran in a fixed cycle (stored before verdict v4); "
		       "exact only for an order drawn afresh every round", 100 * d->alpha, 100 * d->alpha_speed,
		       100 * (d->alpha - d->alpha_speed));
	else
		reason(out, "false-change rate of this run's design <= %.2f %% (speed %.2f %%, failures "
		       "%.2f %%): exact, as the order of the arms is drawn afresh in every round, "
		       "whatever the noise does over time", 100 * d->alpha, 100 * d->alpha_speed,
		       100 * (d->alpha - d->alpha_speed));
}

/*
 * 1.4826 x the median absolute deviation of every candidate's log-ratios
 * from their own median, pooled: the sd a normal noise would show, without
 * the few wild rounds that the test's scores cap. NAN without 2 pairs.
 */
static double robust_sd(const struct verdict2_input *in, int baseline)
{
	double dev[VERDICT_ARMS_MAX * VERDICT2_ROUNDS_MAX], c[VERDICT2_ROUNDS_MAX];
	size_t m = 0;

	for (size_t a = 0; a < in->n_arms; a++) {
		size_t n;
		double med;

		if ((int)a == baseline || (n = paired_log_ratios(in, a, (size_t)baseline, c)) < 2)
			continue;
		qsort(c, n, sizeof(c[0]), cmp_dbl);
		med = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
		for (size_t i = 0; i < n; i++)
			dev[m++] = fabs(c[i] - med);
	}
	if (m < 2)
		return NAN;
	qsort(dev, m, sizeof(dev[0]), cmp_dbl);
	return 1.4826 * (m % 2 ? dev[m / 2] : 0.5 * (dev[m / 2 - 1] + dev[m / 2]));
}

int verdict2_look(const struct verdict2_design *d, size_t look,
		  const struct verdict2_input *in, const struct verdict2_opts *opts,
		  struct verdict2_result *out, struct st_err *e)
{
	struct verdict2_opts def;
	struct rt_work *w;
	double ss = 0.0, dfs = 0.0;
	int baseline, rc;

	if (!opts) {
		verdict2_opts_init(&def);
		opts = &def;
	}
	if (!out)
		return err_set(e, -EINVAL, "verdict: no result");
	if ((rc = check_input(d, look, in, opts, &baseline, e)) < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->baseline = baseline;
	out->chosen = -1;
	out->look = look;
	out->last_look = look + 1 == d->n_looks;
	out->n_rounds = in->n_rounds;
	out->n_arms = in->n_arms;
	out->false_change_bound = d->alpha;
	out->power_min_effect = out->effect_80_pct = NAN;
	for (size_t a = 0; a < in->n_arms; a++)
		count_outcomes(in, a, &out->arms[a]);
	if (probe_invalid(in, out, opts)) {
		out->decision = VERDICT2_STOP_INVALID;
		out->sd_log = out->sd_log_robust = NAN;
		reason(out, "probe invalid: every arm fails in at least %.0f %% of its trials; "
		       "raise the memory limit or the timeout", opts->invalid_frac * 100.0);
		reason_details(d, in, opts, out);
		return 0;
	}
	if (!(w = malloc(sizeof(*w))))
		return err_set(e, -ENOMEM, "verdict: out of memory");
	for (size_t a = 0; a < in->n_arms; a++) {
		struct verdict2_arm_result *ar = &out->arms[a];

		if ((int)a == baseline) {
			ar->mean_log = ar->sd_log = ar->p_one = NAN;
			ar->effect_pct = ar->ci_low_pct = ar->ci_high_pct = NAN;
			ar->ratio_pct = ar->ratio_lo_pct = ar->ratio_hi_pct = NAN;
			ar->ucb97_pct = ar->need_pct = NAN;
			ar->adj_effect_pct = ar->adj_ci_low_pct = ar->adj_ci_high_pct = NAN;
			ar->p_stage = ar->p_fail_stage = NAN;
			continue;
		}
		judge_arm(&(struct pairing){ d, look, in, opts, a, (size_t)baseline, w }, ar);
		if (ar->compared && ar->n > 1) {
			ss += ar->sd_log * ar->sd_log * (double)(ar->n - 1);
			dfs += (double)(ar->n - 1);
		}
	}
	free(w);
	fail_sequence(in, baseline, opts, out);
	out->sd_log = dfs > 0.0 ? sqrt(ss / dfs) : NAN;
	out->sd_log_robust = robust_sd(in, baseline);
	decide(d, look, in, opts, out);
	reason_details(d, in, opts, out);
	return 0;
}

/* ---- what a report adds ----------------------------------------------------- */

/*
 * After a stop by speed before the design's last look, the estimate that
 * stopped is biased up (it stopped because it was large): the stagewise
 * ordering's median-unbiased estimate and its 95 % interval, from the
 * normal approximation of the test at the robust sd of the log-ratios.
 * Only the estimate is shown: the simulator (sim -X) finds that interval
 * covering +10 % in 69-77 % of early stops, as the approximation misreads
 * how likely an early stop was; the interval shown stays the repeated
 * confidence interval, which covers whatever the stop.
 */
static void adjust_arm(const struct pairing *p, double sd_robust, struct verdict2_arm_result *ar)
{
	double c[VERDICT2_ROUNDS_MAX], est, lo, hi;
	struct rt_design rd;

	speed_design(p, c, &rd);
	if (verdict2_stage_adjust(p->d, &(struct verdict2_stop){ p->look, rd.n_at, ar->mean_log, sd_robust },
				  &est, &lo, &hi) < 0)
		return;
	ar->adjusted = true;
	ar->adj_effect_pct = gain_pct(est);
	ar->adj_ci_low_pct = gain_pct(lo);
	ar->adj_ci_high_pct = gain_pct(hi);
}

/* Outliers, the adjusted estimate and intervals of candidate a, for the report. */
static void finish_arm(const struct verdict2_design *d, const struct verdict2_input *in,
		       const struct verdict2_opts *o, struct verdict2_result *r, size_t a, struct rt_work *w)
{
	struct verdict2_arm_result *ar = &r->arms[a];
	struct pairing p = { d, r->look, in, o, a, (size_t)r->baseline, w };
	double c[VERDICT2_ROUNDS_MAX];
	size_t n = paired_log_ratios(in, a, p.b, c);
	bool stopped = r->decision != VERDICT2_CONTINUE;

	if (!ar->compared)
		return;
	if (!isfinite(ar->ci_low_pct) && !isfinite(ar->ci_high_pct)) {
		struct rt_design rd;

		speed_design(&p, c, &rd);
		speed_interval(&p, &rd, &(struct rt_contrasts){ c, n }, ar);
	}
	ar->n_outliers = stats_mad_outliers(c, n, NULL);
	if (ar->n_outliers)
		reason(r, "%s: %zu outlying round(s) (|modified z| > 3.5), kept: each counts at most "
		       "%.3g typical ones in the test", in->arms[a].name, ar->n_outliers, RT_HUBER_K);
	/* the winner's curse of stopping early: the change's estimate, after an early stop */
	if (stopped && r->look + 1 < d->n_looks && (int)a == r->chosen && r->path == VERDICT2_PATH_SPEED) {
		adjust_arm(&p, r->sd_log_robust, ar);
		if (ar->adjusted)
			reason(r, "%s: stopped early, so its estimate is likely high (it stopped because it "
			       "was large); adjusted for that (median-unbiased, normal approximation): %+.1f %%. "
			       "The interval shown is the repeated-confidence interval, valid wherever the "
			       "design stops", in->arms[a].name, ar->adj_effect_pct);
	}
}

int verdict2_finish(const struct verdict2_design *d, const struct verdict2_input *in,
		    const struct verdict2_opts *opts, struct verdict2_result *r, struct st_err *e)
{
	struct verdict2_opts def;
	struct rt_work *w;

	if (!opts) {
		verdict2_opts_init(&def);
		opts = &def;
	}
	if (!d || !in || !r || r->look >= d->n_looks || r->n_arms != in->n_arms)
		return err_set(e, -EINVAL, "verdict: finish needs the look's design, input and result");
	if (r->decision == VERDICT2_STOP_INVALID)
		return 0;
	if (!(w = malloc(sizeof(*w))))
		return err_set(e, -ENOMEM, "verdict: out of memory");
	for (size_t a = 0; a < r->n_arms; a++)
		if ((int)a != r->baseline)
			finish_arm(d, in, opts, r, a, w);
	free(w);
	if (r->decision != VERDICT2_STOP_KEEP && r->decision != VERDICT2_STOP_INCONCLUSIVE)
		return 0;
	if (!(r->sd_log_robust > 0.0))
		return 0;
	/* the robust sd: what the test's scores see, not the one wild round */
	r->power_min_effect = verdict2_power(d, opts->min_effect_pct, r->sd_log_robust);
	r->effect_80_pct = verdict2_effect_for_power(d, 0.8, r->sd_log_robust);
	/* a power line only where it informs: not "80 % of the time it finds +7384 %" from 2 rounds */
	if (isfinite(r->power_min_effect) && isfinite(r->effect_80_pct) && r->effect_80_pct <= 100.0)
		reason(r, "this design finds a gain of %.1f %% %.0f %% of the time at the variation "
		       "seen (robust sd of log-ratio %.3f, rounds independent); 80 %% of the time it "
		       "finds %.1f %%", opts->min_effect_pct, 100 * r->power_min_effect,
		       r->sd_log_robust, r->effect_80_pct);
	else if (isfinite(r->power_min_effect))
		reason(r, "at the variation seen (robust sd of log-ratio %.3f over %zu rounds) this "
		       "design finds even a doubling less than 80 %% of the time: more rounds, or a "
		       "steadier workload, are needed to judge", r->sd_log_robust, r->n_rounds);
	return 0;
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
