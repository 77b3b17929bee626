/*
 * verdict-power.c - what a design can find: the power of the probe's speed
 * path under the normal approximation of its randomisation test, for the
 * plan's and the verdict's power lines. Contracts in advisor.h; the
 * simulator (tests/sim, sim -X) holds it to the real rule.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/randtest.h"

/* the sign-flip test's Huber scores against the mean's, under normal noise */
#define POWER_EFFICIENCY	0.95
/*
 * The same paths for every gain (so power rises in steps as the gain
 * does): their own error, 0.8 points of power at 80 %, moves the printed
 * gain by a few hundredths of a percentage point; more paths cost time in every
 * verdict that prints power.
 */
#define POWER_PATHS		2500
#define POWER_SEED		0x9d2c5680a1b3e7f1ULL
/*
 * Looks of at most this many rounds are decided by the rule's own test
 * (rt_seq_test() on the same pattern pool, once per path over all of
 * them) whenever the path comes within POWER_EXACT_SLACK of the normal
 * approximation's bound at one of them: with few rounds the test's
 * discreteness (at 7 rounds only all 7 signs positive can show a gain) is
 * what the power is, and the approximation's bounds assume every earlier
 * look spent its whole share, where the exact test, unable to spend all
 * of it with few rounds, carries the rest forward (sim -Xp -a 3: without
 * this 3 arms found the printed gain 83-85 % of the time at 13-24 rounds
 * instead of 80 %).
 */
#define POWER_EXACT_MAX		24
#define POWER_EXACT_SLACK	0.5
#define POWER_EXACT_SURE	12
/* a z bound that is never reached: a look that cannot reject */
#define Z_NEVER			40.0

static uint64_t sm64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unif(uint64_t *s)
{
	return ((double)(sm64(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double norm(uint64_t *s)
{
	return sqrt(-2.0 * log(unif(s))) * cos(2.0 * M_PI * unif(s));
}

/*
 * The z bounds of one candidate's looks: look j spends up to level[j]
 * cumulatively; a look whose n rounds cannot reach its level (2^-n above
 * it: no sign pattern is that rare) never stops and leaves its share to
 * the next. 0 or -1.
 */
static int z_bounds(const struct verdict2_design *d, double *b)
{
	double t[VERDICT2_LOOKS_MAX], cross[VERDICT2_LOOKS_MAX];
	size_t K = d->n_looks;

	double given = 0.0;	/* what the looks before spent, on their grids */

	for (size_t j = 0; j < K; j++)
		t[j] = (double)d->rounds[j] / (double)d->rounds[K - 1];

	for (size_t j = 0; j < K; j++) {
		double level = d->alpha_speed / (double)d->n_candidates * d->frac[j], lo = 0.0, hi = Z_NEVER;
		double spent = 0.0, grid = ldexp(1.0, -(int)d->rounds[j]);

		b[j] = Z_NEVER;
		if (grid > level)
			continue;	/* no sign pattern of n rounds is that rare */
		/*
		 * n signs make 2^n equally likely patterns, drawn into a pool of
		 * RT_DRAWS_DEFAULT + 1: a look spends whole steps of the coarser
		 * grid, and what it cannot spend goes to the next look
		 */
		grid = fmax(grid, 1.0 / (RT_DRAWS_DEFAULT + 1.0));
		level = given + floor((level - given) / grid + 1e-9) * grid;
		if (level <= given)
			continue;
		given = level;
		if (j > 0) {
			if (stats_gs_cross(t, b, j, 0.0, cross, NULL) < 0)
				return -1;
			for (size_t i = 0; i < j; i++)
				spent += cross[i];
		}
		for (int it = 0; it < 60; it++) {
			double mid = 0.5 * (lo + hi);

			b[j] = mid;
			if (stats_gs_cross(t, b, j + 1, 0.0, cross, NULL) < 0)
				return -1;
			if (spent + cross[j] > level)
				lo = mid;
			else
				hi = mid;
		}
		b[j] = hi;
	}
	return 0;
}

/*
 * A z bound on the scale of the sign-flip statistic T = sum a / sqrt(sum
 * a^2) of n rounds. T is bounded by sqrt(n), and under the sharp null with
 * normal-like scores it is the one-sample t statistic's monotone transform
 * t = T sqrt((n - 1) / (n - T^2)) with n - 1 degrees of freedom (Efron
 * 1969): the same tail on that scale, T = t sqrt(n / (n - 1 + t^2)), is
 * lower than the normal bound for few rounds, as the exact test's is.
 */
static double sign_flip_bound(double z, unsigned n)
{
	double tq;

	if (z >= Z_NEVER || n < 2)
		return Z_NEVER;
	tq = stats_t_quantile(stats_norm_cdf(z), (double)(n - 1));
	if (!isfinite(tq))
		return z;
	return tq * sqrt((double)n / ((double)(n - 1) + tq * tq));
}

/*
 * P(an outcome at least as extreme as the one observed, in the stagewise
 * ordering): crossing a bound before look k, or reaching look k with a z
 * at least z_obs, for the z process of the looks' contrasts with drift
 * `drift` at look k (theta sqrt(n_k) / sd for a true shift theta).
 */
static double stage_tail(const double *t, const double *b_in, size_t k, double z_obs, double drift)
{
	double b[VERDICT2_LOOKS_MAX], cross[VERDICT2_LOOKS_MAX], p = 0.0;

	memcpy(b, b_in, k * sizeof(*b));
	b[k] = z_obs;
	if (stats_gs_cross(t, b, k + 1, drift, cross, NULL) < 0)
		return NAN;
	for (size_t j = 0; j <= k; j++)
		p += cross[j];
	return p;
}

int verdict2_stage_adjust(const struct verdict2_design *d, const struct verdict2_stop *s,
			  double *est, double *lo, double *hi)
{
	double b[VERDICT2_LOOKS_MAX], t[VERDICT2_LOOKS_MAX], z_obs, q[3] = { 0.5, 0.025, 0.975 }, out[3];
	double nk;

	if (!d || !s || s->look >= d->n_looks || !s->n_at || !(s->sd_log > 0.0) || !isfinite(s->est_log) ||
	    s->n_at[s->look] < 2 || z_bounds(d, b) < 0)
		return -1;
	nk = (double)s->n_at[s->look];
	for (size_t j = 0; j <= s->look; j++) {
		if (j && s->n_at[j] < s->n_at[j - 1])
			return -1;
		t[j] = s->n_at[j] ? (double)s->n_at[j] / nk : 1e-9 * (double)(j + 1);
	}
	z_obs = s->est_log * sqrt(POWER_EFFICIENCY * nk) / s->sd_log;
	for (int i = 0; i < 3; i++) {
		/* the tail rises with theta: bisect within 12 standard errors */
		double se = s->sd_log / sqrt(POWER_EFFICIENCY * nk), a = s->est_log - 12 * se, c = s->est_log + 12 * se;

		for (int it = 0; it < 60; it++) {
			double mid = 0.5 * (a + c);
			double p = stage_tail(t, b, s->look, z_obs, mid * sqrt(POWER_EFFICIENCY * nk) / s->sd_log);

			if (!isfinite(p))
				return -1;
			if (p < q[i])
				a = mid;
			else
				c = mid;
		}
		out[i] = 0.5 * (a + c);
	}
	*est = out[0];
	*lo = out[1];
	*hi = out[2];
	return 0;
}

/*
 * The look at which the rule's sequential randomisation test (the same
 * design: looks at their cumulative levels, the same pattern pool) first
 * rejects on the contrasts x of the path, over the looks 0..J; J + 1 when
 * none does. The rule reads "crosses" as "rejected at this look or an
 * earlier one".
 */
static size_t rule_reject_look(const struct verdict2_design *d, size_t J, const double *x, struct rt_work *w)
{
	struct rt_design rd;
	struct rt_result rr;

	memset(&rd, 0, sizeof(rd));
	rd.score = RT_SCORE_HUBER;
	rd.n_looks = J + 1;
	for (size_t i = 0; i <= J; i++) {
		rd.n_at[i] = d->rounds[i];
		rd.spend_cum[i] = d->alpha_speed / (double)d->n_candidates * d->frac[i];
	}
	if (rt_seq_test(&rd, &(struct rt_contrasts){ x, d->rounds[J] }, 0.0, 1, w, &rr) == 0 && rr.rejects)
		return rr.reject_look;
	return J + 1;
}

/* What one power path needs of its design, computed once per design. */
struct power_bounds {
	double b[VERDICT2_LOOKS_MAX];		/* the normal approximation's z bounds */
	double near[VERDICT2_LOOKS_MAX];	/* from here the exact test is asked */
	size_t n_exact;				/* looks of at most POWER_EXACT_MAX rounds */
	double q97;				/* the normal's 97.5 % point, for futility */
};

/*
 * The power path of one probe: rounds of contrasts N(theta, 1) in units of
 * their sd, and at each look the rule's crossing - the exact test for the
 * looks of few rounds (above), beyond them the randomisation test's normal
 * approximation with its own Huber scores (rt_z(): the sign-flip
 * distribution's variance, which grows with the effect, and never above
 * sqrt(n)). The minimum effect filters the estimate; futility rejects "a
 * gain of the minimum effect" at 2.5 % one-sided, as the rule does, and
 * the probe keeps only when every candidate is futile at the same look:
 * with 3 arms the other candidate (no gain, its contrasts sharing the
 * baseline's noise) keeps a probe going whose gaining candidate was futile
 * at one look and crosses at a later one. The power printed is for one
 * candidate gaining, the others not.
 */
static bool path_changes(const struct verdict2_design *d, const struct power_bounds *pb, double theta,
			 double m, uint64_t *s, struct rt_work *w)
{
	static const double half = 0.70710678118654752440;
	double x[VERDICT2_ROUNDS_MAX], xm[VERDICT2_ROUNDS_MAX], q97 = pb->q97;
	double y[VERDICT_ARMS_MAX][VERDICT2_ROUNDS_MAX], z[VERDICT2_LOOKS_MAX], sx = 0.0;
	size_t others = d->n_candidates - 1, K = d->n_looks, exact_look = K, sure = K;
	unsigned N = d->rounds[K - 1];
	bool ask = false, crossed = false;

	if (others >= VERDICT_ARMS_MAX)
		others = VERDICT_ARMS_MAX - 1;
	for (unsigned r = 0; r < N; r++) {
		if (others) {
			double e0 = half * norm(s);

			x[r] = theta + half * norm(s) - e0;
			for (size_t k = 0; k < others; k++)
				y[k][r] = half * norm(s) - e0 - m;
		} else {
			x[r] = theta + norm(s);
		}
		xm[r] = x[r] - m;
	}
	for (size_t j = 0; j < K; j++)
		z[j] = pb->b[j] < Z_NEVER ? rt_z(RT_SCORE_HUBER, x, d->rounds[j]) : -Z_NEVER;
	/*
	 * The exact test is asked over the looks before the first at which the
	 * approximation crosses with more than POWER_EXACT_SURE rounds (there
	 * the exact test, the more lenient, has crossed too).
	 */
	for (size_t j = 0; j < pb->n_exact; j++) {
		if (d->rounds[j] > POWER_EXACT_SURE && z[j] >= pb->b[j]) {
			sure = j;
			break;
		}
		ask |= z[j] >= pb->near[j];
	}
	if (ask && sure > 0)
		exact_look = rule_reject_look(d, (sure < pb->n_exact ? sure : pb->n_exact) - 1, x, w);
	if (sure < exact_look)
		exact_look = sure;
	for (size_t j = 0, prev = 0; j < K; j++) {
		unsigned n = d->rounds[j];
		bool all_futile;

		for (unsigned r = (unsigned)prev; r < n; r++)
			sx += x[r];
		prev = n;
		crossed |= j < pb->n_exact ? exact_look <= j : z[j] >= pb->b[j];
		if (crossed && sx / n >= m)
			return true;
		/* the probe keeps only once every candidate is futile at the same look */
		if (ldexp(1.0, -(int)n) > 0.025)
			continue;
		all_futile = rt_z(RT_SCORE_HUBER, xm, n) <= -q97;
		for (size_t k = 0; k < others && all_futile; k++)
			all_futile = rt_z(RT_SCORE_HUBER, y[k], n) <= -q97;
		if (all_futile)
			return false;
	}
	return false;
}

double verdict2_power(const struct verdict2_design *d, double effect_pct, double sd_log)
{
	struct power_bounds pb;
	double theta, m;
	uint64_t s = POWER_SEED;
	unsigned hits = 0;
	struct rt_work *w;

	if (!d || d->n_looks < 1 || d->n_candidates < 1 || !(effect_pct > -100.0) ||
	    !(sd_log > 0.0) || !isfinite(sd_log) || z_bounds(d, pb.b) < 0)
		return NAN;
	pb.n_exact = 0;
	pb.q97 = stats_norm_quantile(0.975);	/* once: a bisection of erfc() calls */
	for (size_t j = 0; j < d->n_looks; j++) {
		pb.near[j] = sign_flip_bound(pb.b[j], d->rounds[j]) - POWER_EXACT_SLACK;
		if (d->rounds[j] <= POWER_EXACT_MAX)
			pb.n_exact = j + 1;
	}
	/* per round, in units of the contrasts' sd: the effect and the minimum effect */
	theta = log1p(effect_pct / 100.0) / sd_log;
	m = log1p(d->min_effect_pct / 100.0) / sd_log;
	if (!(w = malloc(sizeof(*w))))
		return NAN;
	for (unsigned p = 0; p < POWER_PATHS; p++)
		hits += path_changes(d, &pb, theta, m, &s, w);
	free(w);
	return (double)hits / POWER_PATHS;
}

double verdict2_effect_for_power(const struct verdict2_design *d, double power, double sd_log)
{
	double lo, hi, top = log(1001.0), f_lo, f_hi;
	int kept = 0;

	if (!d || !(power > 0.0) || !(power < 1.0))
		return NAN;
	lo = log1p(d->min_effect_pct / 100.0);
	f_lo = verdict2_power(d, expm1(lo) * 100.0, sd_log) - power;
	if (!isfinite(f_lo))
		return NAN;
	if (f_lo >= 0.0)
		return d->min_effect_pct;
	/* power grows about linearly in log(1 + gain) / sd: bracket near the answer first */
	for (hi = lo + 4.0 * sd_log;; hi += 2.0 * sd_log) {
		if (hi > top)
			hi = top;
		f_hi = verdict2_power(d, expm1(hi) * 100.0, sd_log) - power;
		if (!isfinite(f_hi))
			return NAN;
		if (f_hi >= 0.0)
			break;
		if (hi >= top)
			return NAN;	/* not even a thousandfold gain is found that often */
		lo = hi;
		f_lo = f_hi;
	}
	/*
	 * Then false position on the power curve (the same paths for every
	 * gain, so it rises in steps of 1 / POWER_PATHS), Illinois style: an
	 * end kept twice has its value halved, so that the curve's flat top
	 * cannot stall it. To 0.05 % of the gain, a tenth of what is printed.
	 */
	for (int it = 0; it < 60 && hi - lo > 5e-4; it++) {
		double mid = lo + (hi - lo) * f_lo / (f_lo - f_hi), f_mid;

		if (!(mid > lo && mid < hi))
			mid = 0.5 * (lo + hi);
		f_mid = verdict2_power(d, expm1(mid) * 100.0, sd_log) - power;
		if (!isfinite(f_mid))
			return NAN;
		if (f_mid >= 0.0) {
			hi = mid;
			f_hi = f_mid;
			if (kept == -1)
				f_lo /= 2.0;
			kept = -1;
		} else {
			lo = mid;
			f_lo = f_mid;
			if (kept == 1)
				f_hi /= 2.0;
			kept = 1;
		}
	}
	return expm1(hi) * 100.0;
}
