/*
 * verdict-int.h - between the files of the v3 verdict (advisor/), not an
 * API: the Monte-Carlo side (verdict-mc.c) that verdict-seq.c and
 * verdict-rep.c call. Everything public is in include/swaptune/advisor.h.
 */
#ifndef SWAPTUNE_VERDICT_INT_H
#define SWAPTUNE_VERDICT_INT_H

#include "swaptune/advisor.h"

/* Paths of the estimation set (rho 0), for power and bias-adjusted estimates. */
#define VMC_EST_PATHS 20000

/*
 * The speed bounds of d: bound[] and nominal_p[] from d's rounds, planned
 * looks, frac[], alpha_speed and n_candidates (set by the caller, key
 * too). fixed: the number of leading bounds already in d->bound that are
 * kept (a truncated design), 0 for a planned one.
 */
int vmc_design_bounds(struct verdict2_design *d, size_t fixed, struct st_err *e);

/*
 * The least-favourable (1 - p) quantile and tail P(T >= t) of one
 * candidate's t at look k of d with all pairs complete, from the design's
 * own paths (so that they agree with its bounds). NAN if d is unknown.
 */
double vmc_look_quantile(const struct verdict2_design *d, size_t k, double p);
double vmc_look_tail(const struct verdict2_design *d, size_t k, double t);

/*
 * Stagewise p-value of one candidate at look k of d for a complete-data t:
 * the least favourable over rho of P(crossing an earlier look) + P(reaching
 * look k with at least t). NAN when the design's paths are not at hand.
 */
double vmc_stage_p(const struct verdict2_design *d, size_t k, double t);

/*
 * On the estimation set (independent rounds, per-arm sd 1, so the
 * difference of two arms has sd sqrt 2): the probability that the rule
 * changes to candidate 1 when its log gain is theta (path units), others
 * 0, minimum effect min_log (path units), futility with q97[k] the 97.5 %
 * null quantile at look k.
 */
double vmc_power(const struct verdict2_design *d, double theta, double min_log, const double *q97);

/*
 * Median-unbiased estimate (stagewise ordering) of a candidate stopped at
 * look k with estimate m (path units) and the 1 - level two-sided
 * interval, in path units. -ENOMEM or -EINVAL.
 */
int vmc_adjust(const struct verdict2_design *d, size_t k, double m, double level,
	       double *est, double *lo, double *hi);

/*
 * For tests: the Monte-Carlo kernel on innovations z[a * N + r] (AR(1) with
 * rho per arm, no effect): each candidate's t after N rounds, which must be
 * what stats_pooled_rho() and stats_robust_t() give on the same series.
 */
void vmc_kernel_t(size_t A, size_t N, const double *z, double rho, double *t_out);

#endif
