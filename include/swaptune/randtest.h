/*
 * randtest.h - the advisor's one sequential randomisation engine
 * (advisor/randtest.c): exact group-sequential sign-flip tests on per-round
 * contrasts, used by the probe's verdict and by switchback.
 *
 * Every round runs each arm once in an order drawn afresh at random; the
 * contrast of round r is d_r = x_c - x_b for a candidate c against the
 * baseline b (x signed so that positive = better), and a statistic S =
 * sum_r f_r score(d_r) is compared with its values over sign patterns f.
 * Why that is exact, and what it does not protect against:
 * docs/design.md, "The randomisation engine".
 *
 * Scores: RT_SCORE_SUM uses d itself (the mean's test); RT_SCORE_HUBER uses
 * psi(d / s) = sign(d) min(|d| / s, RT_HUBER_K), s the smaller of two
 * estimates of the noise's sd over the contrasts of the look, median |d| /
 * 0.6745 and median ||d| - median |d|| / 0.40. A function of |d| only, so
 * the same for every sign pattern: one wild round counts at most
 * RT_HUBER_K typical ones.
 *
 * Sequential looks: look j uses the first n_at[j] contrasts (non-
 * decreasing: rounds where an arm failed give none) and the cumulative
 * level spend_cum[j]. Over a pool of N sign patterns (the observed one and
 * N - 1 drawn), at look j the patterns not stopped earlier are ranked by
 * their S_j and at most floor(spend_cum[j] N) - (stopped so far) of them,
 * those strictly above the next one, stop. The observed pattern is
 * exchangeable with the drawn ones under the null, so P(stop) <=
 * spend_cum[last]. Draws are the same for every call (a fixed stream,
 * pattern i's signs for contrast r depend on i and r only), so a test over
 * more contrasts and looks repeats every decision an earlier call made on a
 * prefix of them: a re-run that continues the evidence of earlier runs
 * cannot undo or redo their looks.
 */
#ifndef SWAPTUNE_RANDTEST_H
#define SWAPTUNE_RANDTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* contrasts over every run of a recipe that a test may span */
#define RT_CONTRASTS_MAX	2048
#define RT_LOOKS_MAX		64
/* Monte-Carlo sign patterns drawn beside the observed one (probe) */
#define RT_DRAWS_DEFAULT	4095
#define RT_DRAWS_MAX		16383
/* exact enumeration of every sign pattern up to this many contrasts (when asked) */
#define RT_ENUM_MAX		16
#define RT_HUBER_K		1.345

enum rt_score {
	RT_SCORE_SUM = 0,
	RT_SCORE_HUBER,
};

struct rt_design {
	enum rt_score score;
	size_t n_looks;
	unsigned n_at[RT_LOOKS_MAX];	/* contrasts at each look, non-decreasing */
	double spend_cum[RT_LOOKS_MAX];	/* cumulative one-sided level, non-decreasing, < 0.5 */
	unsigned draws;			/* drawn patterns (0 = RT_DRAWS_DEFAULT) */
	/*
	 * Enumerate all 2^n patterns when the last look has n <= enum_max
	 * contrasts (0: always draw; a test that later runs may extend must
	 * draw, so that it repeats its earlier decisions).
	 */
	unsigned enum_max;
	uint64_t seed;			/* of the draws; 0 = the engine's fixed stream */
};

struct rt_result {
	bool rejects;			/* at some look up to the last given */
	size_t reject_look;		/* the first look that rejected */
	size_t look;			/* the look the p-values refer to: reject_look, else the last */
	double stat;			/* the observed statistic at that look */
	double p_fixed;			/* that look alone, one-sided: patterns with S >= observed / N */
	double p_survivors;		/* patterns not stopped before it with S >= observed / N */
	double p_stage;			/* stagewise ordering: stopped earlier, plus the above */
	double p_floor;			/* 1 / N */
	uint64_t n_pool;		/* N */
	bool exact;			/* enumerated */
};

#define RT_POOL_MAX	((1u << RT_ENUM_MAX) > RT_DRAWS_MAX + 1 ? (1u << RT_ENUM_MAX) : RT_DRAWS_MAX + 1)

/*
 * The engine's working memory (about 1.5 MiB: static or heap, one per
 * thread). Its contents mean nothing between calls.
 */
struct rt_work {
	double s[RT_POOL_MAX];			/* each pattern's statistic at the look */
	double v[RT_POOL_MAX];			/* the survivors', for selection */
	uint64_t alive[RT_POOL_MAX / 64];	/* patterns not stopped yet */
	double table[RT_CONTRASTS_MAX / 8][256];	/* S over each byte of signs */
	double score[RT_CONTRASTS_MAX];
};

/* The contrasts a test is given: c[0..n), positive = the candidate better. */
struct rt_contrasts {
	const double *c;
	size_t n;
};

/*
 * Test "the contrasts x are symmetric about shift" against "larger"
 * (sign +1) or "smaller" (sign -1), sequentially over the looks of d (the
 * test stops at the first that rejects; looks whose n_at exceeds n are
 * not taken, nor those after). -EINVAL for bad designs (no looks, n_at
 * decreasing or above RT_CONTRASTS_MAX, levels decreasing or outside
 * [0, 0.5)), non-finite contrasts, n above RT_CONTRASTS_MAX.
 * With no contrast at a look, its statistic is 0 for every pattern.
 */
int rt_seq_test(const struct rt_design *d, const struct rt_contrasts *x, double shift, int sign,
		struct rt_work *w, struct rt_result *out);

/*
 * The one-sided fixed-sample p of the same (a single look at all n, no
 * stopping): patterns with S >= observed over N; and whether that test
 * rejects at level (the same decision as a one-look rt_seq_test(), found
 * without counting beyond what decides it). A per-thread memo keeps the
 * survivors of the latest looks judged, so that judging look after look
 * pays for each look once (the results are the same without it).
 */
bool rt_rejects(enum rt_score score, const struct rt_contrasts *x, double shift, int sign,
		double level, struct rt_work *w);
double rt_p_one(enum rt_score score, const struct rt_contrasts *x, double shift, int sign,
		struct rt_work *w);

/*
 * The normal approximation of the test's statistic on x[0..n): S / sqrt(sum
 * of the squared scores), standard normal over the sign patterns (and never
 * above sqrt(n)); for power computations that cannot afford the patterns.
 * NAN when n == 0.
 */
double rt_z(enum rt_score score, const double *x, size_t n);

/*
 * The estimate that goes with the test: the shift at which the observed
 * statistic is 0 (the mean for RT_SCORE_SUM, Huber's M-estimate of
 * location with the scale recomputed at each shift for RT_SCORE_HUBER).
 * NAN when n == 0.
 */
double rt_estimate(enum rt_score score, const double *c, size_t n);

/*
 * The interval of shifts the sequential test of d does not reject either
 * way (a repeated confidence interval at its levels: lo > shift 0 exactly
 * when the test at 0 rejects "larger"), by bisection; -inf / +inf when
 * even a far shift is not rejected. est is rt_estimate().
 */
void rt_interval(const struct rt_design *d, const struct rt_contrasts *x, double est,
		 struct rt_work *w, double *lo, double *hi);

/* The pattern pool of d for n contrasts: 2^n enumerated, or draws + 1. */
uint64_t rt_pool_size(const struct rt_design *d, size_t n);

#endif
