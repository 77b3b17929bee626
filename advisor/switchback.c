/*
 * switchback.c - the pure core of `swaptune switchback`: the schedule of
 * randomised blocks with washout, and the exact sequential sign-flip
 * randomisation analysis with its minimum-effect filter, guardrails,
 * intervals by test inversion, and carryover and trend checks. The design
 * and its justification are in include/swaptune/switchback.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/randtest.h"
#include "swaptune/switchback.h"

/* ---- plan and schedule ---- */

void sb_plan_init(struct sb_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->n_arms = 2;
	/*
	 * 15 blocks of 2 x 30 s = 15 minutes. The washout is half the window:
	 * on PostgreSQL (pgbench -S, zswap, 512 MiB memcg) pc0's gain over pc3
	 * was still growing 10-20 s after a switch. Looks at 8/12/15 blocks:
	 * 2^8 patterns cannot spend the first look's 0.0021, so it can only
	 * stop for futility; 12 and 15 can decide.
	 */
	p->n_blocks = 15;
	p->window_s = 30.0;
	p->washout_s = 15.0;
	p->n_looks = 3;
	p->looks[0] = 8;
	p->looks[1] = 12;
	p->looks[2] = 15;
	/*
	 * 2 %, not the probe's 2.5 %: the randomisation test is exact, so its
	 * false-change rate sits AT alpha (the simulator saw 2.46-2.58 % at
	 * 2.5 %, 20 000 runs a model), while the probe's approximations land
	 * below theirs; at 2 % the promise "at most 2.5 %" holds with room.
	 */
	p->alpha = 0.02;
	p->seed = 1;
	p->draws = SB_DRAWS_DEFAULT;
}

void sb_opts_init(struct sb_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->min_effect = 2.0;
	for (int c = 0; c < SB_COSTS_MAX; c++)
		o->guard_margin[c] = 25.0;
	o->guard_alpha = 0.05;
	o->futility_alpha = 0.025;
	o->check_alpha = 0.05;
	o->impute_factor = 1.25;
	o->want_ci = false;
	o->checks = true;
}

static uint64_t sm64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Lan-DeMets O'Brien-Fleming-type spending: alpha(t) = 2 - 2 Phi(z_{1-a/2} / sqrt t). */
static double obf_spent(double alpha, double t)
{
	if (t >= 1.0)
		return alpha;
	return 2.0 - 2.0 * stats_norm_cdf(stats_norm_quantile(1.0 - alpha / 2.0) / sqrt(t));
}

static int plan_check(const struct sb_plan *p, struct st_err *e)
{
	if (p->n_arms < 2 || p->n_arms > SB_ARMS_MAX)
		return err_set(e, -EINVAL, "switchback needs 2 to %d arms, not %u", SB_ARMS_MAX, p->n_arms);
	if (p->n_blocks < 2 || p->n_blocks > SB_BLOCKS_MAX)
		return err_set(e, -EINVAL, "switchback needs 2 to %d blocks, not %u", SB_BLOCKS_MAX,
			       p->n_blocks);
	if (!(p->window_s > 0) || !(p->washout_s >= 0) || !(p->washout_s < p->window_s) ||
	    !isfinite(p->window_s))
		return err_set(e, -EINVAL, "the washout (%g s) must be shorter than the window (%g s)",
			       p->washout_s, p->window_s);
	if (p->n_looks < 1 || p->n_looks > SB_LOOKS_MAX)
		return err_set(e, -EINVAL, "switchback needs 1 to %d looks", SB_LOOKS_MAX);
	for (unsigned k = 0; k < p->n_looks; k++)
		if (p->looks[k] < 2 || (k && p->looks[k] <= p->looks[k - 1]))
			return err_set(e, -EINVAL, "looks must be increasing block counts from 2 on");
	if (p->looks[p->n_looks - 1] != p->n_blocks)
		return err_set(e, -EINVAL, "the last look (%u blocks) must be the last block (%u)",
			       p->looks[p->n_looks - 1], p->n_blocks);
	if (!(p->alpha > 0 && p->alpha < 0.5))
		return err_set(e, -EINVAL, "alpha must be in (0, 0.5)");
	if (p->draws < 99 || p->draws > RT_DRAWS_MAX)
		return err_set(e, -EINVAL, "Monte-Carlo draws must be 99 to %d", RT_DRAWS_MAX);
	return 0;
}

static uint64_t pool_size(unsigned n, uint64_t draws)
{
	return n <= SB_ENUM_BLOCKS ? (uint64_t)1 << n : draws + 1;
}

int sb_design_init(struct sb_design *d, const struct sb_plan *p, struct st_err *e)
{
	uint64_t s;
	double prev = 0;
	int rc = plan_check(p, e);

	if (rc < 0)
		return rc;
	memset(d, 0, sizeof(*d));
	d->plan = *p;
	d->alpha_each = p->alpha / (p->n_arms - 1);
	d->first_decidable_look = p->n_looks;
	for (unsigned k = 0; k < p->n_looks; k++) {
		double cum = obf_spent(d->alpha_each, (double)p->looks[k] / p->n_blocks);

		d->spend[k] = cum - prev;
		d->spend_cum[k] = cum;
		prev = cum;
		if (d->first_decidable_look == p->n_looks &&
		    floor(d->spend_cum[k] * (double)pool_size(p->looks[k], p->draws) + 1e-9) >= 1)
			d->first_decidable_look = k;
	}
	/* a fresh order per block: Fisher-Yates from the recorded seed */
	s = p->seed ^ 0x5b5c4d3e2f1a0918ULL;
	for (unsigned b = 0; b < p->n_blocks; b++) {
		for (unsigned a = 0; a < p->n_arms; a++)
			d->order[b][a] = (uint8_t)a;
		for (unsigned i = p->n_arms - 1; i > 0; i--) {
			unsigned j = (unsigned)(sm64(&s) % (i + 1));
			uint8_t t = d->order[b][i];

			d->order[b][i] = d->order[b][j];
			d->order[b][j] = t;
		}
	}
	return 0;
}

int sb_window_at(const struct sb_design *d, unsigned i, struct sb_window *w)
{
	unsigned k = d->plan.n_arms;

	if (i >= d->plan.n_blocks * k)
		return -EINVAL;
	w->index = i;
	w->block = i / k;
	w->pos = i % k;
	w->arm = d->order[w->block][w->pos];
	w->start_s = i * d->plan.window_s;
	w->count_start_s = w->start_s + d->plan.washout_s;
	w->end_s = w->start_s + d->plan.window_s;
	w->switched = i == 0 || d->order[(i - 1) / k][(i - 1) % k] != w->arm;
	return 0;
}

int sb_budget_of(const struct sb_design *d, double sd_contrast, struct sb_budget *out,
		 struct st_err *e)
{
	const struct sb_plan *p = &d->plan;
	struct verdict2_design vd;
	int rc;

	memset(out, 0, sizeof(*out));
	out->duration_s = p->n_blocks * p->n_arms * p->window_s;
	out->counted_s = p->n_blocks * p->n_arms * (p->window_s - p->washout_s);
	out->counted_frac = out->counted_s / out->duration_s;
	for (unsigned k = 0; k < p->n_looks; k++)
		out->p_floor[k] = 1.0 / (double)pool_size(p->looks[k], p->draws);
	out->effect80_pct = NAN;
	if (!(sd_contrast > 0))
		return 0;
	/* the normal approximation of the probe's design with the same looks and spending */
	rc = verdict2_design_init(&vd, p->looks, p->n_looks, p->n_arms - 1, p->alpha, e);
	if (rc < 0)
		return rc;
	out->effect80_pct = verdict2_effect_for_power(&vd, 0.8, sd_contrast);
	return 0;
}

/* ---- the sequential sign-flip test: the advisor's randomisation engine ---- */

int sb_seq_test(const struct sb_seq *s, const struct rt_contrasts *x, double shift, int sign,
		struct sb_work *w, struct sb_test *t)
{
	unsigned n = x && x->n <= SB_BLOCKS_MAX ? (unsigned)x->n : 0;
	const unsigned *looks = s->looks;
	const double *spend = s->spend;
	struct rt_design d = { .score = RT_SCORE_SUM, .enum_max = SB_ENUM_BLOCKS };
	struct rt_result r;
	double cum = 0.0;
	int rc;

	memset(t, 0, sizeof(*t));
	if (n < 1 || n > SB_BLOCKS_MAX || s->n_looks < 1 || s->n_looks > SB_LOOKS_MAX ||
	    s->draws < 1 || s->draws > RT_DRAWS_MAX)
		return -EINVAL;
	d.draws = (unsigned)s->draws;
	d.seed = s->seed;
	/* looks reached: those at or below n, and the partial one that n falls short of */
	for (unsigned k = 0; k < s->n_looks; k++) {
		cum += spend[k];
		d.n_at[k] = looks[k] < n ? looks[k] : n;
		d.spend_cum[k] = cum < 0.4999 ? cum : 0.4999;
		d.n_looks = k + 1;
		if (looks[k] >= n)
			break;
	}
	if ((rc = rt_seq_test(&d, x, shift, sign, &w->rt, &r)) < 0)
		return rc;
	t->n = n;
	t->exact = r.exact;
	t->n_assign = r.n_pool;
	t->p_floor = r.p_floor;
	t->p_fixed = r.p_fixed;
	t->p_seq = r.p_survivors;
	t->spend = spend[r.look];
	t->rejects = r.rejects;
	t->reject_look = (unsigned)r.reject_look;
	return 0;
}

/* ---- analysis helpers ---- */

/*
 * What sb_analyse() judges: look `look` of design d over input in, its
 * first n blocks (validate()), under options o, with scratch w.
 */
struct look {
	const struct sb_design *d;
	unsigned look, n;
	const struct sb_input *in;
	const struct sb_opts *o;
	struct sb_work *w;
};

/* design d's own schedule up to look `look` (0-based) */
static struct sb_seq seq_of(const struct sb_design *d, unsigned look)
{
	return (struct sb_seq){ d->plan.looks, look + 1, d->spend, d->plan.draws, d->plan.seed };
}

static double signed_x(const struct sb_metric *m, double v)
{
	double x = m->kind == SB_RATE ? log(v) : v;

	return m->higher_better ? x : -x;
}

/* contrast units -> effect units: percent for rates, metric units for levels */
static double effect_of(const struct sb_metric *m, double x)
{
	return m->kind == SB_RATE ? (exp(x) - 1.0) * 100.0 : x;
}

static double contrast_of(const struct sb_metric *m, double eff)
{
	return m->kind == SB_RATE ? log1p(eff / 100.0) : eff;
}

static void add_reason(struct sb_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_reason(struct sb_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n_reasons >= SB_REASONS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(r->reasons[r->n_reasons++], SB_REASON_LEN, fmt, ap);
	va_end(ap);
}

/* positions of arm a in every block */
static unsigned pos_of(const struct sb_design *d, unsigned b, unsigned a)
{
	for (unsigned p = 0; p < d->plan.n_arms; p++)
		if (d->order[b][p] == a)
			return p;
	return 0;
}

/*
 * Signed x of every window (FAILED imputed) for one series (value or a
 * cost): x[b][p]. Returns -EINVAL on bad values, 1 when a rate has a value
 * <= 0 (unavailable for costs), else 0.
 */
static int series_x(const struct look *L, const struct sb_metric *m,
		    const double (*val)[SB_ARMS_MAX], double x[][SB_ARMS_MAX])
{
	const struct sb_input *in = L->in;
	unsigned n = L->n, k = L->d->plan.n_arms;
	double f = L->o->impute_factor, lo = INFINITY, hi = -INFINITY, spread;

	for (unsigned b = 0; b < n; b++)
		for (unsigned p = 0; p < k; p++) {
			double v = val[b][p];

			if (in->outcome[b][p] != SB_WIN_OK)
				continue;
			if (!isfinite(v))
				return -EINVAL;
			if (m->kind == SB_RATE && v <= 0)
				return 1;
			x[b][p] = signed_x(m, v);
			lo = fmin(lo, x[b][p]);
			hi = fmax(hi, x[b][p]);
		}
	/* a failure counts as the worst completed window made worse, never dropped */
	spread = fmax(fabs(lo), hi - lo);
	if (!(spread > 0))
		spread = 1.0;
	for (unsigned b = 0; b < n; b++)
		for (unsigned p = 0; p < k; p++) {
			if (in->outcome[b][p] == SB_WIN_OK)
				continue;
			if (!isfinite(lo))	/* nothing completed: all failures tie */
				x[b][p] = 0;
			else if (m->kind == SB_RATE)
				x[b][p] = lo - log(f);
			else
				x[b][p] = lo - (f - 1.0) * spread;
		}
	return 0;
}

static void contrasts(const struct sb_design *d, const double x[][SB_ARMS_MAX], unsigned n,
		      unsigned arm, double *c)
{
	for (unsigned b = 0; b < n; b++)
		c[b] = x[b][pos_of(d, b, arm)] - x[b][pos_of(d, b, 0)];
}

/* fixed-sample one-sided exact p of "mean > shift" (sign +1) or "< shift" (-1) */
static double p_one(const struct sb_design *d, const double *c, unsigned n, double shift,
		    int sign, struct sb_work *w)
{
	unsigned lk = n;
	double sp = 0;
	struct sb_seq s = { &lk, 1, &sp, d->plan.draws, d->plan.seed };
	struct sb_test t;

	if (sb_seq_test(&s, &(struct rt_contrasts){ c, n }, shift, sign, w, &t) < 0)
		return NAN;
	return t.p_fixed;
}

static double mean_of(const double *c, unsigned n)
{
	return stats_mean(c, n);
}

static double p_two(const struct sb_design *d, const double *c, unsigned n, struct sb_work *w)
{
	double a = p_one(d, c, n, 0, 1, w), b = p_one(d, c, n, 0, -1, w);

	return fmin(1.0, 2.0 * fmin(a, b));
}

/* Whether the sequential test of "effect = shift" rejects, in direction sign, by look `look`. */
static bool seq_rejects(const struct look *L, const double *c, double shift, int sign)
{
	struct sb_seq s = seq_of(L->d, L->look);
	struct sb_test t;

	if (sb_seq_test(&s, &(struct rt_contrasts){ c, L->n }, shift, sign, L->w, &t) < 0)
		return false;
	return t.rejects;
}

/*
 * Repeated confidence interval by inversion: the shifts the sequential test
 * has not rejected, either way, by this look. -inf/+inf when even an extreme
 * shift cannot be rejected (too few blocks for the spending).
 */
static void ci_invert(const struct look *L, const double *c, double mean, double *lo, double *hi)
{
	double span = 0;

	for (unsigned b = 0; b < L->n; b++)
		span = fmax(span, fabs(c[b] - mean));
	span = 4.0 * span + 1e-6;
	for (int side = 0; side < 2; side++) {
		int sign = side ? -1 : 1;
		double in = mean, out = mean - sign * span;	/* not rejected, rejected */

		if (!seq_rejects(L, c, out, sign)) {
			*(side ? hi : lo) = side ? INFINITY : -INFINITY;
			continue;
		}
		for (int it = 0; it < 50 && fabs(in - out) > 1e-9 * (1.0 + fabs(mean)); it++) {
			double mid = (in + out) / 2;

			if (seq_rejects(L, c, mid, sign))
				out = mid;
			else
				in = mid;
		}
		*(side ? hi : lo) = (in + out) / 2;
	}
}

static int guard_one(const struct look *L, unsigned ci, unsigned arm, double xw[][SB_ARMS_MAX],
		     struct sb_guard *g)
{
	const struct sb_design *d = L->d;
	const struct sb_opts *o = L->o;
	struct sb_work *w = L->w;
	unsigned n = L->n;
	struct sb_metric m = L->in->cost_metric[ci];
	double rise[SB_BLOCKS_MAX], margin;
	int rc;

	m.higher_better = false;	/* a cost: the imputation makes a failure costly */
	rc = series_x(L, &m, (const double (*)[SB_ARMS_MAX])L->in->cost[ci], xw);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		g->status = SB_GUARD_UNAVAILABLE;
		g->rise = g->p_below = g->p_above = NAN;
		return 0;
	}
	contrasts(d, (const double (*)[SB_ARMS_MAX])xw, n, arm, rise);
	for (unsigned b = 0; b < n; b++)
		rise[b] = -rise[b];	/* signed x was -cost: + = costs more */
	margin = contrast_of(&m, o->guard_margin[ci]);
	g->rise = effect_of(&m, mean_of(rise, n));
	g->p_below = p_one(d, rise, n, margin, -1, w);
	g->p_above = p_one(d, rise, n, margin, 1, w);
	g->status = g->p_above <= o->guard_alpha ? SB_GUARD_HARM :
		    g->p_below <= o->guard_alpha ? SB_GUARD_SHOWN : SB_GUARD_NOT_SHOWN;
	return 0;
}

static double lag1(const double *x, unsigned n)
{
	double m = mean_of(x, n), num = 0, den = 0;

	if (n < 3)
		return NAN;
	for (unsigned i = 0; i < n; i++) {
		den += (x[i] - m) * (x[i] - m);
		if (i)
			num += (x[i] - m) * (x[i - 1] - m);
	}
	return den > 0 ? num / den : NAN;
}

/* Level trend (arm means removed) and lag-1 autocorrelation of the windows in time order. */
static void check_trend(const struct look *L, const double x[][SB_ARMS_MAX], struct sb_checks *ck)
{
	const struct sb_design *d = L->d;
	const struct sb_input *in = L->in;
	unsigned n = L->n, k = d->plan.n_arms, nw = 0;
	double arm_sum[SB_ARMS_MAX] = { 0 }, arm_n[SB_ARMS_MAX] = { 0 };
	double r[SB_BLOCKS_MAX * SB_ARMS_MAX], t[SB_BLOCKS_MAX * SB_ARMS_MAX];
	double tm, rm, sxy = 0, sxx = 0, sse = 0, slope, se;

	for (unsigned b = 0; b < n; b++)
		for (unsigned p = 0; p < k; p++) {
			arm_sum[d->order[b][p]] += x[b][p];
			arm_n[d->order[b][p]]++;
		}
	for (unsigned b = 0; b < n; b++)
		for (unsigned p = 0; p < k; p++) {
			unsigned a = d->order[b][p];
			/* back to the unsigned scale: a trend up is a rising value */
			double v = x[b][p] - arm_sum[a] / arm_n[a];

			r[nw] = in->metric.higher_better ? v : -v;
			t[nw++] = (b * k + p + 0.5) * d->plan.window_s;
		}
	ck->ac1_windows = lag1(r, nw);
	tm = mean_of(t, nw);
	rm = mean_of(r, nw);
	for (unsigned i = 0; i < nw; i++) {
		sxy += (t[i] - tm) * (r[i] - rm);
		sxx += (t[i] - tm) * (t[i] - tm);
	}
	slope = sxy / sxx;
	for (unsigned i = 0; i < nw; i++) {
		double e = r[i] - rm - slope * (t[i] - tm);

		sse += e * e;
	}
	se = nw > 2 ? sqrt(sse / (nw - 2) / sxx) : NAN;
	ck->trend_pct_h = in->metric.kind == SB_RATE ? (exp(slope * 3600.0) - 1.0) * 100.0 :
			  slope * 3600.0;
	ck->trend_pct_run = in->metric.kind == SB_RATE ?
			    (exp(slope * nw * d->plan.window_s) - 1.0) * 100.0 :
			    slope * nw * d->plan.window_s;
	ck->trend_p = se > 0 ? stats_t_p_two_sided(slope / se, nw - 2.0) : NAN;
	ck->trend_flag = ck->trend_p < 0.05;
}

/* Early-against-late and the stepwise carryover order, for candidate `arm`. */
static void check_carry(const struct look *L, unsigned arm, struct sb_checks *ck)
{
	const struct sb_design *d = L->d;
	const struct sb_input *in = L->in;
	const struct sb_opts *o = L->o;
	struct sb_work *w = L->w;
	unsigned n = L->n, ns = in->n_slices, nwo = in->n_washout_slices, nc, half, m = 0;
	double ds[SB_SLICES_MAX][SB_BLOCKS_MAX], early[SB_BLOCKS_MAX], late[SB_BLOCKS_MAX];
	double e[SB_BLOCKS_MAX];

	ck->carry_early = ck->carry_late = ck->carry_p = ck->carry_s = NAN;
	ck->carry_slices = -1;
	for (unsigned s = 0; s < SB_SLICES_MAX; s++)
		ck->slice_effect[s] = NAN;
	if (ns < 4 || ns > SB_SLICES_MAX || nwo + 2 > ns)
		return;
	nc = ns - nwo;
	half = nc / 2;
	for (unsigned b = 0; b < n; b++) {
		unsigned pc = pos_of(d, b, arm), pb = pos_of(d, b, 0);
		bool ok = in->outcome[b][pc] == SB_WIN_OK && in->outcome[b][pb] == SB_WIN_OK;

		for (unsigned s = 0; ok && s < ns; s++) {
			double vc = in->slice[b][pc][s], vb = in->slice[b][pb][s];

			if (!isfinite(vc) || !isfinite(vb) ||
			    (in->metric.kind == SB_RATE && (vc <= 0 || vb <= 0)))
				ok = false;
			else
				ds[s][m] = signed_x(&in->metric, vc) - signed_x(&in->metric, vb);
		}
		if (!ok)
			continue;
		early[m] = late[m] = 0;
		for (unsigned s = nwo; s < ns; s++)
			*(s < nwo + half ? &early[m] : &late[m]) += ds[s][m];
		early[m] /= half;
		late[m] /= nc - half;
		m++;
	}
	if (m < 2)
		return;
	for (unsigned s = 0; s < ns; s++)
		ck->slice_effect[s] = effect_of(&in->metric, mean_of(ds[s], m));
	ck->carry_early = effect_of(&in->metric, mean_of(early, m));
	ck->carry_late = effect_of(&in->metric, mean_of(late, m));
	for (unsigned b = 0; b < m; b++)
		e[b] = early[b] - late[b];
	ck->carry_p = p_two(d, e, m, w);
	ck->carry_flag = ck->carry_p < o->check_alpha;
	/*
	 * Stepwise, in fixed sequence: does the window still change after slice
	 * s? The early-against-late test on slices [s, ns); the first s it does
	 * not reject is the carryover order. Halves, not single slices: one
	 * slice of a live series is too noisy to be told from the plateau.
	 */
	if (!(p_two(d, late, m, w) < o->check_alpha))
		return;
	for (unsigned s = 0; s + 2 <= ns; s++) {
		unsigned mid = s + (ns - s) / 2;

		for (unsigned b = 0; b < m; b++) {
			double ea = 0, eb = 0;

			for (unsigned j = s; j < ns; j++)
				*(j < mid ? &ea : &eb) += ds[j][b];
			e[b] = ea / (mid - s) - eb / (ns - mid);
		}
		if (!(p_two(d, e, m, w) < o->check_alpha)) {
			ck->carry_slices = (int)s;
			break;
		}
	}
	if (ck->carry_slices < 0)
		ck->carry_slices = (int)ns - 1;
	ck->carry_s = ck->carry_slices * in->slice_s;
	ck->washout_short = (unsigned)ck->carry_slices > nwo;
}

static void check_drift(const struct look *L, const double *c, struct sb_checks *ck)
{
	unsigned n = L->n;
	double z[SB_BLOCKS_MAX], cm = mean_of(c, n);

	ck->ac1_contrast = lag1(c, n);
	for (unsigned b = 0; b < n; b++)
		z[b] = (b - (n - 1) / 2.0) * (c[b] - cm);
	ck->drift_p = n >= 4 ? p_two(L->d, z, n, L->w) : NAN;
	ck->drift_flag = ck->drift_p < L->o->check_alpha;
}

static int validate(const struct sb_design *d, unsigned look, const struct sb_input *in,
		    unsigned *n, struct st_err *e)
{
	if (look >= d->plan.n_looks)
		return err_set(e, -EINVAL, "look %u is beyond the plan's %u looks", look + 1,
			       d->plan.n_looks);
	if (in->n_blocks > SB_BLOCKS_MAX || in->n_costs > SB_COSTS_MAX)
		return err_set(e, -EINVAL, "too many blocks or costs");
	*n = in->n_blocks < d->plan.looks[look] ? in->n_blocks : d->plan.looks[look];
	if (*n < 2)
		return err_set(e, -EINVAL, "a switchback look needs 2 complete blocks, not %u", *n);
	for (unsigned b = 0; b < *n; b++)
		for (unsigned p = 0; p < d->plan.n_arms; p++)
			if (in->outcome[b][p] != SB_WIN_OK && in->outcome[b][p] != SB_WIN_FAILED)
				return err_set(e, -EINVAL, "block %u position %u has no window", b + 1,
					       p + 1);
	return 0;
}

static void decide(const struct sb_design *d, const struct sb_input *in, const struct sb_opts *o,
		   struct sb_result *out)
{
	const struct sb_metric *m = &in->metric;
	const char *unit = m->kind == SB_RATE ? "%" : "";
	bool all_stop = true;
	int best = -1;

	for (unsigned a = 1; a < d->plan.n_arms; a++) {
		const struct sb_arm_result *ar = &out->arms[a];
		bool ok = ar->test.rejects && ar->min_effect_ok && !ar->guard_harm &&
			  !ar->guard_not_shown && !ar->fails_more;

		if (ok && (best < 0 || ar->effect > out->arms[best].effect))
			best = (int)a;
		if (!(ar->futile || ar->guard_harm))
			all_stop = false;
	}
	if (best > 0) {
		out->decision = SB_CHANGE;
		out->chosen = best;
		add_reason(out, "change to %s: %s %+.2f%s, exact sequential randomisation p %.4g "
			   "within the %.4g spent by look %u (false-change bound %.3g)",
			   out->arms[best].name, m->name, out->arms[best].effect, unit,
			   out->arms[best].test.p_seq, out->arms[best].test.spend,
			   out->arms[best].test.reject_look + 1, d->plan.alpha);
	} else if (all_stop) {
		out->decision = SB_KEEP;
		out->chosen = 0;
		add_reason(out, "keep %s: no candidate can gain the minimum effect of %g%s "
			   "(exact one-sided test at %g) or a guardrail shows harm",
			   out->arms[0].name, o->min_effect, unit, o->futility_alpha);
	} else {
		out->decision = out->last_look ? SB_INCONCLUSIVE : SB_CONTINUE;
		out->chosen = -1;
		add_reason(out, out->last_look ? "inconclusive: neither a gain nor its absence shown "
			   "in %u blocks" : "continue: nothing settled after %u blocks", out->n_blocks);
	}
	for (unsigned a = 1; a < d->plan.n_arms; a++) {
		const struct sb_arm_result *ar = &out->arms[a];

		if (ar->test.rejects && !ar->min_effect_ok)
			add_reason(out, "%s: significant, but %+.2f%s is below the minimum effect %g%s "
				   "(filter on the estimate)", ar->name, ar->effect, unit,
				   o->min_effect, unit);
		if (ar->guard_harm || ar->guard_not_shown)
			add_reason(out, "%s: a guardrail %s", ar->name,
				   ar->guard_harm ? "shows harm" : "is not yet shown");
		if (ar->fails_more)
			add_reason(out, "%s: %u failed windows against the baseline's %u", ar->name,
				   ar->n_failed, out->arms[0].n_failed);
	}
}

static void analyse_arm(const struct look *L, unsigned a, const double x[][SB_ARMS_MAX], double *c,
			struct sb_arm_result *ar)
{
	const struct sb_design *d = L->d;
	const struct sb_opts *o = L->o;
	const struct sb_metric *m = &L->in->metric;
	struct sb_seq s = seq_of(d, L->look);
	unsigned n = L->n;

	contrasts(d, x, n, a, c);
	ar->mean_contrast = mean_of(c, n);
	ar->sd_contrast = stats_stddev(c, n);
	ar->effect = effect_of(m, ar->mean_contrast);
	sb_seq_test(&s, &(struct rt_contrasts){ c, n }, 0, 1, L->w, &ar->test);
	ar->min_effect_ok = ar->effect >= o->min_effect;
	ar->futile = p_one(d, c, n, contrast_of(m, o->min_effect), -1, L->w) <= o->futility_alpha;
	ar->ci_low = ar->ci_high = NAN;
	if (o->want_ci) {
		double lo, hi;

		ci_invert(L, c, ar->mean_contrast, &lo, &hi);
		ar->ci_low = isfinite(lo) ? effect_of(m, lo) : lo;
		ar->ci_high = isfinite(hi) ? effect_of(m, hi) : hi;
	}
}

/*
 * A metric that read one value in every OK window of the blocks judged (a
 * counter that never moved): no effect, interval or trend to estimate, and
 * the verdict says so first.
 */
static void metric_flat(const struct sb_input *in, unsigned n, unsigned k, struct sb_result *out)
{
	unsigned seen = 0;
	double v = NAN;

	for (unsigned b = 0; b < n; b++)
		for (unsigned p = 0; p < k; p++) {
			if (in->outcome[b][p] != SB_WIN_OK || !isfinite(in->value[b][p]))
				continue;
			if (seen++ && in->value[b][p] != v)
				return;
			v = in->value[b][p];
		}
	if (seen < 2)
		return;
	out->flat = true;
	add_reason(out, "the metric did not vary: all %u measured windows read %g, so it cannot tell "
		   "the arms apart; choose a metric that moves with the workload", seen, v);
}

int sb_analyse(const struct sb_look *at, const struct sb_opts *opts, struct sb_work *w,
	       struct sb_result *out, struct st_err *e)
{
	const struct sb_design *d = at->d;
	const struct sb_input *in = at->in;
	unsigned look = at->look;
	struct sb_opts def;
	const struct sb_opts *o = opts;
	double x[SB_BLOCKS_MAX][SB_ARMS_MAX], xw[SB_BLOCKS_MAX][SB_ARMS_MAX];
	double c[SB_BLOCKS_MAX], c1[SB_BLOCKS_MAX];
	unsigned n = 0, k = d->plan.n_arms;
	struct look L;
	int rc = validate(d, look, in, &n, e);

	if (rc < 0)
		return rc;
	if (!o) {
		sb_opts_init(&def);
		o = &def;
	}
	memset(out, 0, sizeof(*out));
	L = (struct look){ .d = d, .look = look, .n = n, .in = in, .o = o, .w = w };
	rc = series_x(&L, &in->metric, (const double (*)[SB_ARMS_MAX])in->value, x);
	if (rc != 0)
		return err_set(e, -EINVAL, "%s: a window value is not finite%s", in->metric.name,
			       in->metric.kind == SB_RATE ? " or not above 0 (a rate)" : "");
	out->look = look;
	out->n_blocks = n;
	out->last_look = look == d->plan.n_looks - 1;
	out->false_change_bound = d->plan.alpha;
	out->n_arms = k;
	for (unsigned b = 0; b < n; b++)
		for (unsigned p = 0; p < k; p++)
			out->arms[d->order[b][p]].n_failed += in->outcome[b][p] == SB_WIN_FAILED;
	for (unsigned a = 0; a < k; a++) {
		if (in->arm_names[a][0])
			snprintf(out->arms[a].name, SB_NAME_MAX, "%s", in->arm_names[a]);
		else
			snprintf(out->arms[a].name, SB_NAME_MAX, "arm%u", a);
	}
	for (unsigned a = 1; a < k; a++) {
		struct sb_arm_result *ar = &out->arms[a];

		analyse_arm(&L, a, (const double (*)[SB_ARMS_MAX])x, c, ar);
		if (a == 1)
			memcpy(c1, c, sizeof(c));
		ar->fails_more = ar->n_failed > out->arms[0].n_failed;
		for (unsigned ci = 0; ci < in->n_costs; ci++) {
			rc = guard_one(&L, ci, a, xw, &ar->guard[ci]);
			if (rc < 0)
				return err_set(e, rc, "%s: a cost value is not finite",
					       in->cost_metric[ci].name);
			ar->guard_harm |= ar->guard[ci].status == SB_GUARD_HARM;
			ar->guard_not_shown |= ar->guard[ci].status == SB_GUARD_NOT_SHOWN;
		}
	}
	if (o->checks) {
		check_trend(&L, (const double (*)[SB_ARMS_MAX])x, &out->checks);
		check_drift(&L, c1, &out->checks);
		check_carry(&L, 1, &out->checks);
	} else {
		struct sb_checks *ck = &out->checks;

		ck->carry_early = ck->carry_late = ck->carry_p = ck->carry_s = NAN;
		ck->trend_pct_h = ck->trend_pct_run = ck->trend_p = NAN;
		ck->drift_p = ck->ac1_windows = ck->ac1_contrast = NAN;
		ck->carry_slices = -1;
		for (unsigned s = 0; s < SB_SLICES_MAX; s++)
			ck->slice_effect[s] = NAN;
	}
	metric_flat(in, n, k, out);
	decide(d, in, o, out);
	return 0;
}

const char *sb_decision_name(enum sb_decision dec)
{
	switch (dec) {
	case SB_CONTINUE:	return "continue";
	case SB_CHANGE:		return "change";
	case SB_KEEP:		return "keep";
	case SB_INCONCLUSIVE:	return "inconclusive";
	}
	return "unknown";
}

const char *sb_guard_status_name(enum sb_guard_status s)
{
	switch (s) {
	case SB_GUARD_UNUSED:		return "unused";
	case SB_GUARD_SHOWN:		return "shown";
	case SB_GUARD_NOT_SHOWN:	return "not_shown";
	case SB_GUARD_HARM:		return "harm";
	case SB_GUARD_UNAVAILABLE:	return "unavailable";
	}
	return "unknown";
}
