/*
 * switchback.h - the pure core of `swaptune switchback` (advisor/switchback.c):
 * the schedule of a switchback experiment on a live workload and its exact
 * randomisation analysis. Plain structs in, plain structs out: no I/O, no
 * globals, no allocation (the caller hands in a struct sb_work, ~1 MiB).
 *
 * Why randomised blocks and not Bojinov et al.'s coin-flip design, how a
 * window's contrast and the exact sequential sign-flip test are built, the
 * decision rule and the smallest p a design can reach: docs/design.md,
 * "The switchback experiment".
 */
#ifndef SWAPTUNE_SWITCHBACK_H
#define SWAPTUNE_SWITCHBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/randtest.h"

#define SB_ARMS_MAX	4
#define SB_BLOCKS_MAX	64
#define SB_LOOKS_MAX	8
#define SB_SLICES_MAX	16
#define SB_COSTS_MAX	4
#define SB_NAME_MAX	32
#define SB_REASONS_MAX	12
#define SB_REASON_LEN	200
/* exact enumeration up to 2^16 sign patterns, Monte Carlo beyond */
#define SB_ENUM_BLOCKS	16
#define SB_ENUM_MAX	(1u << SB_ENUM_BLOCKS)
#define SB_DRAWS_DEFAULT 9999

/* The plan's knobs; sb_plan_init() sets the defaults shown. */
struct sb_plan {
	unsigned n_arms;		/* 2: baseline (arm 0) + candidates */
	unsigned n_blocks;		/* 15 (15 minutes) */
	double window_s;		/* 30 */
	double washout_s;		/* 15 */
	unsigned n_looks;		/* 3 */
	unsigned looks[SB_LOOKS_MAX];	/* blocks at each look: 8, 12, 15 */
	double alpha;			/* 0.02 one-sided false-change bound (exact) */
	uint64_t seed;			/* schedule seed (record it) */
	uint64_t draws;			/* Monte-Carlo draws beyond enumeration */
};

void sb_plan_init(struct sb_plan *p);

/* A plan made concrete: the schedule and the error spending. */
struct sb_design {
	struct sb_plan plan;
	double alpha_each;			/* alpha / (n_arms - 1) */
	double spend[SB_LOOKS_MAX];		/* increment of alpha_each spent at look k */
	double spend_cum[SB_LOOKS_MAX];
	unsigned first_decidable_look;		/* first look whose spend allows a stop (n_looks if none) */
	uint8_t order[SB_BLOCKS_MAX][SB_ARMS_MAX];	/* arm at position p of block b */
};

/*
 * -EINVAL unless 2 <= n_arms <= SB_ARMS_MAX, 2 <= n_blocks <= SB_BLOCKS_MAX,
 * 0 <= washout_s < window_s, 1 <= n_looks <= SB_LOOKS_MAX with looks
 * strictly increasing, looks[0] >= 2 and looks[last] == n_blocks, 0 < alpha
 * < 0.5 and draws >= 99.
 */
int sb_design_init(struct sb_design *d, const struct sb_plan *p, struct st_err *e);

/* One window of the schedule: seconds from the start of the experiment. */
struct sb_window {
	unsigned index, block, pos, arm;
	double start_s, count_start_s, end_s;	/* counted part: [count_start_s, end_s) */
	bool switched;				/* the arm differs from the previous window's */
};

/* Window i (0 <= i < n_blocks * n_arms) of the schedule; -EINVAL beyond. */
int sb_window_at(const struct sb_design *d, unsigned i, struct sb_window *w);

/*
 * What the budget can answer: duration, counted fraction, the smallest
 * p-value at each look, and the smallest gain found with 80 % power if the
 * per-block log-ratio contrast of a rate has standard deviation sd_contrast
 * (0.05 = about 5 %): verdict2_effect_for_power()'s normal approximation
 * with the same looks, alpha and O'Brien-Fleming bounds. The randomisation
 * test's discreteness costs a little more (see the simulator's table).
 */
struct sb_budget {
	double duration_s, counted_s, counted_frac;
	double p_floor[SB_LOOKS_MAX];
	double effect80_pct;		/* rates: gain in percent; NAN without sd_contrast */
};

int sb_budget_of(const struct sb_design *d, double sd_contrast, struct sb_budget *out,
		 struct st_err *e);

/* ---- analysis ---- */

enum sb_kind {
	SB_RATE = 0,		/* > 0; log-ratio contrasts, effects in percent */
	SB_LEVEL,		/* may be 0 (PSI %); differences, effects in metric units */
};

struct sb_metric {
	char name[SB_NAME_MAX];
	enum sb_kind kind;
	bool higher_better;
};

enum sb_outcome {
	SB_WIN_MISSING = 0,	/* not run (the run ended): the block is incomplete */
	SB_WIN_OK,
	SB_WIN_FAILED,		/* the workload command failed or a guardrail switched back */
};

/*
 * Everything is indexed by block and POSITION in the block (the design says
 * which arm held it). value: the metric over the counted part. slice (when
 * n_slices > 0): the whole window, washout included, cut into n_slices equal
 * parts of slice_s seconds from the switch, for the carryover checks; the
 * first n_washout_slices of them are the washout. cost: guarded costs, same
 * layout as value. Blocks [0, n_blocks) must be complete (no MISSING);
 * FAILED windows are outcomes, imputed as the run's worst OK value made
 * impute_factor worse.
 */
struct sb_input {
	struct sb_metric metric;
	unsigned n_blocks;
	enum sb_outcome outcome[SB_BLOCKS_MAX][SB_ARMS_MAX];
	double value[SB_BLOCKS_MAX][SB_ARMS_MAX];
	unsigned n_slices, n_washout_slices;
	double slice_s;
	double slice[SB_BLOCKS_MAX][SB_ARMS_MAX][SB_SLICES_MAX];
	unsigned n_costs;
	struct sb_metric cost_metric[SB_COSTS_MAX];
	double cost[SB_COSTS_MAX][SB_BLOCKS_MAX][SB_ARMS_MAX];
	char arm_names[SB_ARMS_MAX][SB_NAME_MAX];	/* for the reasons; "" = "armN" */
};

/*
 * min_effect       2      rates: percent; levels: metric units
 * guard_margin[c]  25     rates: percent rise; levels: metric units
 * guard_alpha      0.05   one-sided level of the guardrails
 * futility_alpha   0.025  KEEP when the exact test says effect < min_effect
 * check_alpha      0.05   carryover and trend checks
 * impute_factor    1.25   a FAILED window = worst OK value made this much worse
 * want_ci          false  repeated confidence interval by test inversion
 * checks           true   the carryover, trend and drift checks (the
 *                         simulator turns them off: they never decide)
 */
struct sb_opts {
	double min_effect;
	double guard_margin[SB_COSTS_MAX];
	double guard_alpha;
	double futility_alpha;
	double check_alpha;
	double impute_factor;
	bool want_ci;
	bool checks;
};

void sb_opts_init(struct sb_opts *o);

enum sb_decision {
	SB_CONTINUE = 0,
	SB_CHANGE,
	SB_KEEP,
	SB_INCONCLUSIVE,
};

enum sb_guard_status {
	SB_GUARD_UNUSED = 0,
	SB_GUARD_SHOWN,		/* upper bound of the rise below the margin */
	SB_GUARD_NOT_SHOWN,
	SB_GUARD_HARM,		/* lower bound of the rise above the margin */
	SB_GUARD_UNAVAILABLE,	/* a rate cost with a value <= 0 */
};

struct sb_guard {
	enum sb_guard_status status;
	double rise;		/* percent (rates) or units (levels), + = costs more */
	double p_below;		/* exact p of "rise >= margin" (shown when <= guard_alpha) */
	double p_above;		/* exact p of "rise <= margin" (harm when <= guard_alpha) */
};

/* The randomisation test of one contrast series at one look. */
struct sb_test {
	unsigned n;			/* blocks used */
	bool exact;
	uint64_t n_assign;		/* assignments in the pool (2^n, or draws + 1) */
	double p_fixed;			/* one-sided, this look alone */
	double p_seq;			/* survivors reaching S_obs / N, compared with spend */
	double spend;			/* alpha spent at this look */
	double p_floor;			/* 1 / n_assign */
	bool rejects;			/* at this look or an earlier one */
	unsigned reject_look;
};

struct sb_arm_result {
	char name[SB_NAME_MAX];
	unsigned n_failed;
	double mean_contrast;		/* signed, positive = better */
	double sd_contrast;
	double effect;			/* percent (rates) or units (levels), positive = better */
	struct sb_test test;
	bool min_effect_ok;		/* filter: effect >= min_effect */
	bool futile;
	bool fails_more;		/* more FAILED windows than the baseline */
	double ci_low, ci_high;		/* repeated CI (want_ci), effect units; NAN otherwise */
	struct sb_guard guard[SB_COSTS_MAX];
	bool guard_harm, guard_not_shown;
};

/*
 * Checks, reported with every look (need n_slices >= 4 for the carryover
 * ones; NAN / false otherwise). For candidate 1 (the first candidate):
 *  carry_early/late: effect over the first and second half of the counted
 *   slices; carry_p: exact two-sided sign-flip p of early - late (sharp null:
 *   the within-window profile does not depend on the arm).
 *  carry_slices: estimated carryover order in slices, in the manner of
 *   Bojinov et al.'s stepwise procedure (test orders 0, 1, ... until one is
 *   not rejected): for s = 0, 1, ... the exact early-against-late test on
 *   slices [s, n_slices) (first half against second half), in fixed
 *   sequence at check_alpha; the first s not rejected. -1 when the late
 *   effect itself is not significant (nothing to carry); n_slices - 1 when
 *   every step rejects.
 *   carry_s = carry_slices * slice_s; washout_short when it exceeds the washout.
 *  trend_pct_h: least-squares slope of the log (or level) window values in
 *   time (arm means removed), per hour; trend_pct_run the same over the
 *   span of the windows judged (per hour saturates at -100 % for a steep
 *   fall); trend_p its approximate two-sided p (descriptive).
 *  drift_p: exact-for-constant-effect sign-flip p of the block contrasts'
 *   correlation with time (does the effect change over the run?).
 *  ac1_windows / ac1_contrast: lag-1 autocorrelation of window values in
 *   time order and of the block contrasts.
 */
struct sb_checks {
	double carry_early, carry_late, carry_p;
	bool carry_flag;
	int carry_slices;
	double carry_s;
	bool washout_short;
	double slice_effect[SB_SLICES_MAX];
	double trend_pct_h, trend_pct_run, trend_p;
	double drift_p;
	bool trend_flag, drift_flag;
	double ac1_windows, ac1_contrast;
};

struct sb_result {
	enum sb_decision decision;
	int chosen;			/* CHANGE: the arm; KEEP: 0; else -1 */
	unsigned look, n_blocks;
	bool last_look;
	double false_change_bound;
	unsigned n_arms;
	struct sb_arm_result arms[SB_ARMS_MAX];	/* [0] is the baseline (no test) */
	struct sb_checks checks;
	bool flat;			/* every OK window judged read one value: nothing to estimate */
	size_t n_reasons;
	char reasons[SB_REASONS_MAX][SB_REASON_LEN];
};

/* Scratch space for the enumeration: static or heap (about 0.5 MiB). */
struct sb_work {
	struct rt_work rt;	/* the advisor's randomisation engine (randtest.h) */
};

/* The look being judged: look `look` (0-based) of design d, over the windows in. */
struct sb_look {
	const struct sb_design *d;
	unsigned look;
	const struct sb_input *in;
};

/*
 * Judge look at->look of design at->d. Uses blocks [0, min(n_blocks,
 * looks[look])) - a run cut short by its budget is judged at the look it
 * reached with that look's spending. opts NULL = defaults. -EINVAL on a
 * look out of range, fewer than 2 complete blocks, a MISSING window inside
 * them, non-finite values, a rate <= 0 in an OK window, or draws above what
 * struct sb_work holds.
 */
int sb_analyse(const struct sb_look *at, const struct sb_opts *opts, struct sb_work *w,
	       struct sb_result *out, struct st_err *e);

/*
 * The schedule a sequential test runs against: looks[0..n_looks) in blocks
 * (the last may exceed the blocks there are: looks beyond them are not
 * reached), spend[] the per-look increments of alpha; draws and seed for
 * Monte Carlo beyond SB_ENUM_BLOCKS blocks. A design's own is
 * { plan.looks, look + 1, spend, plan.draws, plan.seed }. Not owned.
 */
struct sb_seq {
	const unsigned *looks;
	unsigned n_looks;
	const double *spend;
	uint64_t draws, seed;
};

/*
 * The exact sequential sign-flip test itself, for the simulator and tests:
 * contrasts x (positive = better) against schedule s. Fills t for the
 * last look reached (<= n). shift is subtracted from every contrast first
 * (test of "effect = shift"); sign -1 tests the other tail. -EINVAL on n or
 * n_looks out of range or draws beyond RT_DRAWS_MAX.
 */
int sb_seq_test(const struct sb_seq *s, const struct rt_contrasts *x, double shift, int sign,
		struct sb_work *w, struct sb_test *t);

const char *sb_decision_name(enum sb_decision d);
const char *sb_guard_status_name(enum sb_guard_status s);

#endif
