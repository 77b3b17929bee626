/*
 * sim-common.c - the random numbers and Clopper-Pearson bounds of the
 * offline simulators (sim-common.h).
 */
#include <math.h>

#include "swaptune/advisor.h"
#include "sim-common.h"

uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double rng_unif(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

double rng_norm(uint64_t *s)
{
	return sqrt(-2.0 * log(rng_unif(s))) * cos(2.0 * M_PI * rng_unif(s));
}

double cp_upper(unsigned x, unsigned n)
{
	double lo = 0, hi = 1;

	if (x >= n)
		return 1.0;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (stats_beta_inc_reg(n - x, x + 1.0, 1.0 - mid) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

double cp_lower(unsigned x, unsigned n)
{
	return 1.0 - cp_upper(n - x, n);
}
