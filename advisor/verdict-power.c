/*
 * verdict-power.c - what a design can find: the power of the probe's speed
 * path under the normal approximation of its randomisation test, for the
 * plan's and the verdict's power lines. Contracts in advisor.h; the
 * simulator (tests/sim, sim -X) holds it to the real rule.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "swaptune/advisor.h"

/* the sign-flip test's Huber scores against the mean's, under normal noise */
#define POWER_EFFICIENCY	0.95
#define POWER_PATHS		20000
#define POWER_SEED		0x9d2c5680a1b3e7f1ULL
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
			continue;
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

double verdict2_power(const struct verdict2_design *d, double effect_pct, double sd_log)
{
	double b[VERDICT2_LOOKS_MAX], theta, m, q97 = stats_norm_quantile(0.975);
	uint64_t s = POWER_SEED;
	unsigned hits = 0;

	if (!d || d->n_looks < 1 || d->n_candidates < 1 || !(effect_pct > -100.0) ||
	    !(sd_log > 0.0) || !isfinite(sd_log) || z_bounds(d, b) < 0)
		return NAN;
	/* per round, in units of the contrasts' sd: the effect and the minimum effect */
	theta = log1p(effect_pct / 100.0) / sd_log;
	m = log1p(d->min_effect_pct / 100.0) / sd_log;
	for (unsigned p = 0; p < POWER_PATHS; p++) {
		double w = 0.0;
		unsigned prev = 0;

		for (size_t j = 0; j < d->n_looks; j++) {
			unsigned n = d->rounds[j];
			double mean, z;

			w += norm(&s) * sqrt((double)(n - prev));
			prev = n;
			mean = theta + w / n;
			z = mean * sqrt(POWER_EFFICIENCY * n);
			if (z >= b[j] && mean >= m) {
				hits++;
				break;
			}
			/* futility: the one-sided 97.5 % upper bound below the minimum effect */
			if (n >= 6 && mean + q97 / sqrt(POWER_EFFICIENCY * n) < m)
				break;
		}
	}
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
