/*
 * sim-common.h - what the two offline simulators (sim.c: probe verdicts,
 * sim-switchback.c: switchback verdicts) share: a seeded random number
 * generator and the Clopper-Pearson bounds their gates use.
 */
#ifndef SWAPTUNE_SIM_COMMON_H
#define SWAPTUNE_SIM_COMMON_H

#include <stdint.h>

/* splitmix64: the next 64 random bits of the stream in *s. */
uint64_t rng_next(uint64_t *s);
/* Uniform on (0, 1), never 0 or 1. */
double rng_unif(uint64_t *s);
/* Standard normal (Box-Muller). */
double rng_norm(uint64_t *s);

/* One-sided 95 % Clopper-Pearson upper bound for x successes of n. */
double cp_upper(unsigned x, unsigned n);
/* One-sided 95 % Clopper-Pearson lower bound for x successes of n. */
double cp_lower(unsigned x, unsigned n);

#endif
