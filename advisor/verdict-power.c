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
#define POWER_PATHS		5000
#define POWER_SEED		0x9d2c5680a1b3e7f1ULL
/*
 * Looks of at most this many rounds are decided by the rule's own test
 * (rt_seq_test() on the same pattern pool) wherever the normal
 * approximation says the bound is within reach: with few rounds the test's
 * discreteness (at 7 rounds only all 7 signs positive can show a gain) is
 * what the power is.
 */
#define POWER_EXACT_MAX		12
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

	for (size_t j = 0; j < K; j++)
		t[j] = (double)d->rounds[j] / (double)d->rounds[K - 1];
	for (size_t j = 0; j < K; j++) {
		double level = d->alpha_speed / (double)d->n_candidates * d->frac[j], lo = 0.0, hi = Z_NEVER;
		double spent = 0.0;

		b[j] = Z_NEVER;
		if (ldexp(1.0, -(int)d->rounds[j]) > level)
			continue;	/* no sign pattern of n rounds is that rare */
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
 * P_theta(an outcome at least as extreme as the one observed, in the
 * stagewise ordering): crossing a bound before look k, or reaching look k
 * with a z at least z_obs, for the z process of the looks' contrasts with
 * drift theta sqrt(n_k) / sd at look k.
 */
static double stage_tail(const double *t, const double *b_in, size_t k, double z_obs, double theta,
			 double n_k, double sd)
{
	double b[VERDICT2_LOOKS_MAX], cross[VERDICT2_LOOKS_MAX], p = 0.0;

	memcpy(b, b_in, k * sizeof(*b));
	b[k] = z_obs;
	if (stats_gs_cross(t, b, k + 1, theta * sqrt(POWER_EFFICIENCY * n_k) / sd, cross, NULL) < 0)
		return NAN;
	for (size_t j = 0; j <= k; j++)
		p += cross[j];
	return p;
}

int verdict2_stage_adjust(const struct verdict2_design *d, size_t look, const unsigned *n_at,
			  double est_log, double sd_log, double *est, double *lo, double *hi)
{
	double b[VERDICT2_LOOKS_MAX], t[VERDICT2_LOOKS_MAX], z_obs, q[3] = { 0.5, 0.025, 0.975 }, out[3];
	double nk;

	if (!d || look >= d->n_looks || !n_at || !(sd_log > 0.0) || !isfinite(est_log) ||
	    n_at[look] < 2 || z_bounds(d, b) < 0)
		return -1;
	nk = (double)n_at[look];
	for (size_t j = 0; j <= look; j++) {
		if (j && n_at[j] < n_at[j - 1])
			return -1;
		t[j] = n_at[j] ? (double)n_at[j] / nk : 1e-9 * (double)(j + 1);
	}
	z_obs = est_log * sqrt(POWER_EFFICIENCY * nk) / sd_log;
	for (int i = 0; i < 3; i++) {
		/* the tail rises with theta: bisect within 12 standard errors */
		double se = sd_log / sqrt(POWER_EFFICIENCY * nk), a = est_log - 12 * se, c = est_log + 12 * se;

		for (int it = 0; it < 60; it++) {
			double mid = 0.5 * (a + c), p = stage_tail(t, b, look, z_obs, mid, nk, sd_log);

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
 * The power path of one probe: rounds of contrasts N(theta, 1) in units of
 * their sd, and at each look the randomisation test's normal approximation
 * with its own Huber scores (rt_z(): the sign-flip distribution's variance,
 * which grows with the effect, and never above sqrt(n): the few rounds of
 * an early look cannot say much however large the gain). The minimum
 * effect filters the estimate; futility rejects "a gain of the minimum
 * effect" at 2.5 % one-sided, as the rule does.
 */
/*
 * Whether the rule's sequential randomisation test (the same design: looks
 * 0..j at their cumulative levels, the same pattern pool) crosses at look
 * j on the contrasts x of the path.
 */
static bool rule_crosses(const struct verdict2_design *d, size_t j, const double *x, struct rt_work *w)
{
	struct rt_design rd;
	struct rt_result rr;

	memset(&rd, 0, sizeof(rd));
	rd.score = RT_SCORE_HUBER;
	rd.n_looks = j + 1;
	for (size_t i = 0; i <= j; i++) {
		rd.n_at[i] = d->rounds[i];
		rd.spend_cum[i] = d->alpha_speed / (double)d->n_candidates * d->frac[i];
	}
	return rt_seq_test(&rd, x, d->rounds[j], 0.0, 1, w, &rr) == 0 && rr.rejects && rr.reject_look == j;
}

static bool path_changes(const struct verdict2_design *d, const double *b, double theta, double m,
			 uint64_t *s, struct rt_work *w)
{
	double x[VERDICT2_ROUNDS_MAX], xm[VERDICT2_ROUNDS_MAX], sx = 0.0, q97 = stats_norm_quantile(0.975);
	unsigned prev = 0;

	for (size_t j = 0; j < d->n_looks; j++) {
		unsigned n = d->rounds[j];

		for (unsigned r = prev; r < n; r++) {
			x[r] = theta + norm(s);
			xm[r] = x[r] - m;
			sx += x[r];
		}
		prev = n;
		if (b[j] < Z_NEVER && sx / n >= m) {
			double z = rt_z(RT_SCORE_HUBER, x, n);

			if (n > POWER_EXACT_MAX && z >= b[j])
				return true;
			/* few rounds: the rule's own test decides where the bound is within reach */
			if (n <= POWER_EXACT_MAX && z >= sign_flip_bound(b[j], n) && rule_crosses(d, j, x, w))
				return true;
		}
		if (ldexp(1.0, -(int)n) <= 0.025 && rt_z(RT_SCORE_HUBER, xm, n) <= -q97)
			return false;
	}
	return false;
}

double verdict2_power(const struct verdict2_design *d, double effect_pct, double sd_log)
{
	double b[VERDICT2_LOOKS_MAX], theta, m;
	uint64_t s = POWER_SEED;
	unsigned hits = 0;
	struct rt_work *w;

	if (!d || d->n_looks < 1 || d->n_candidates < 1 || !(effect_pct > -100.0) ||
	    !(sd_log > 0.0) || !isfinite(sd_log) || z_bounds(d, b) < 0)
		return NAN;
	/* per round, in units of the contrasts' sd: the effect and the minimum effect */
	theta = log1p(effect_pct / 100.0) / sd_log;
	m = log1p(d->min_effect_pct / 100.0) / sd_log;
	if (!(w = malloc(sizeof(*w))))
		return NAN;
	for (unsigned p = 0; p < POWER_PATHS; p++)
		hits += path_changes(d, b, theta, m, &s, w);
	free(w);
	return (double)hits / POWER_PATHS;
}

double verdict2_effect_for_power(const struct verdict2_design *d, double power, double sd_log)
{
	double lo, hi = log(1001.0);

	if (!d || !(power > 0.0) || !(power < 1.0))
		return NAN;
	lo = log1p(d->min_effect_pct / 100.0);
	if (!(verdict2_power(d, expm1(hi) * 100.0, sd_log) >= power))
		return NAN;
	if (verdict2_power(d, expm1(lo) * 100.0, sd_log) >= power)
		return d->min_effect_pct;
	/* power grows about linearly in log(1 + gain) / sd: bracket near the answer first */
	{
		double guess = lo + 4.0 * sd_log;

		while (guess < hi && verdict2_power(d, expm1(guess) * 100.0, sd_log) < power) {
			lo = guess;
			guess += 2.0 * sd_log;
		}
		hi = guess < hi ? guess : hi;
	}
	while (hi - lo > 1e-4) {
		double mid = (lo + hi) / 2;

		if (verdict2_power(d, expm1(mid) * 100.0, sd_log) >= power)
			hi = mid;
		else
			lo = mid;
	}
	return expm1(hi) * 100.0;
}
