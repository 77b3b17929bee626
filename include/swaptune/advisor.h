/*
 * advisor.h - the pure advisor: statistics, the probe verdict, and rules that
 * judge a host from its state alone.
 *
 * Everything here takes plain structs and returns plain structs: no I/O, no
 * globals, no allocation. Sizes are bounded by the *_MAX constants below;
 * inputs beyond them are rejected with -EINVAL. Functions that can fail
 * return 0 or a negative errno-style code with the detail in a struct st_err
 * (which may be NULL). Results that exist but are statistically meaningless
 * are flagged and carry NAN rather than an invented number.
 */
#ifndef SWAPTUNE_ADVISOR_H
#define SWAPTUNE_ADVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"

/* ======================================================================
 * Statistics (advisor/stats.c)
 * ====================================================================== */

/* Largest sample per arm accepted by the two-sample tests. */
#define STATS_SAMPLES_MAX 64

/* Exact permutation enumeration is used up to this many splits. */
#define STATS_PERM_EXACT_MAX 20000
/* Monte-Carlo rounds when stats_permutation() is given rounds == 0. */
#define STATS_PERM_ROUNDS_DEFAULT 10000

/*
 * Mean of x[0..n). NAN when n == 0 or any value is not finite. Computed
 * around x[0] so that n identical values give exactly that value.
 */
double stats_mean(const double *x, size_t n);

/*
 * Sample standard deviation (n - 1 denominator). NAN when n < 2 or any value
 * is not finite; exactly 0 when all values are identical.
 */
double stats_stddev(const double *x, size_t n);

/*
 * Regularized incomplete beta function I_x(a, b) for a > 0, b > 0,
 * 0 <= x <= 1 (continued fraction, modified Lentz). NAN on invalid arguments
 * or if the fraction fails to converge.
 */
double stats_beta_inc_reg(double a, double b, double x);

/*
 * Student-t distribution with df > 0 degrees of freedom (df need not be an
 * integer): P(T <= t). NAN for df <= 0 or non-finite df, NAN t.
 */
double stats_t_cdf(double t, double df);

/* Two-sided tail probability P(|T| >= |t|), accurate for tiny values. */
double stats_t_p_two_sided(double t, double df);

/*
 * Quantile: the t with P(T <= t) = p, for 0 < p < 1 and df > 0 (bisection on
 * the tail, relative accuracy ~1e-13). NAN on invalid arguments.
 */
double stats_t_quantile(double p, double df);

enum stats_welch_flag {
	STATS_WELCH_OK = 0,
	/* Both arms are constant and equal: no difference, t and p undefined. */
	STATS_WELCH_IDENTICAL,
	/* Both arms are constant but differ: t is infinite, p undefined. */
	STATS_WELCH_CONSTANT,
};

/*
 * Welch's unequal-variance comparison of arm a (candidate) against arm b
 * (baseline). diff = mean_a - mean_b; the confidence interval is for that
 * difference at the given level (e.g. 0.95). The *_pct fields express diff
 * and its interval as percent of |mean_b| (the baseline mean is taken as
 * exact, as is usual for a relative effect); they are NAN when mean_b == 0.
 * With flag != STATS_WELCH_OK, t and df are NAN or infinite, p is NAN and the
 * interval collapses to the observed difference.
 */
struct stats_welch {
	size_t n_a, n_b;
	double mean_a, mean_b;
	double sd_a, sd_b;
	double diff, diff_pct;
	double se;			/* standard error of diff */
	double t, df;			/* Welch-Satterthwaite df */
	double p;			/* two-sided */
	double level;			/* confidence level of the interval */
	double ci_low, ci_high;		/* interval of diff */
	double ci_low_pct, ci_high_pct;	/* the same, percent of |mean_b| */
	enum stats_welch_flag flag;
};

/*
 * Returns -EINVAL if either arm has fewer than 2 or more than
 * STATS_SAMPLES_MAX values, a value is not finite, or level is not in (0, 1).
 */
int stats_welch(const double *a, size_t n_a, const double *b, size_t n_b,
		double level, struct stats_welch *out, struct st_err *e);

/*
 * The relative change mean_a / mean_b - 1 of a Welch result, in percent,
 * with Fieller's interval at w->level and w's degrees of freedom: unlike
 * ci_low_pct/ci_high_pct (the difference's interval over mean_b, as if
 * mean_b were exact) it never goes below -100 % for positive data and widens
 * when mean_b is uncertain. Both arms constant: the exact ratio. -ERANGE
 * when mean_b <= 0 or is not distinguishable from 0 (the interval is
 * unbounded); -EINVAL for a NULL argument.
 */
int stats_welch_ratio_ci(const struct stats_welch *w, double *lo_pct, double *hi_pct);

/*
 * Two-sided permutation test of the difference of means: the fraction of
 * ways to split the pooled values into groups of n_a and n_b whose
 * |mean difference| is at least the observed one. Exact enumeration when the
 * number of splits C(n_a + n_b, n_a) <= STATS_PERM_EXACT_MAX, else `rounds`
 * random splits (STATS_PERM_ROUNDS_DEFAULT when 0) from a splitmix64 stream
 * seeded with `seed`, with p = (hits + 1) / (rounds + 1). Deterministic for a
 * given seed.
 */
struct stats_perm {
	double p;
	double p_floor;		/* smallest p these sample sizes can produce */
	double n_splits;	/* C(n_a + n_b, n_a), may be huge */
	uint64_t n_evaluated;	/* splits enumerated or drawn */
	bool exact;
};

/* -EINVAL if an arm is empty or above STATS_SAMPLES_MAX, or a value is not finite. */
int stats_permutation(const double *a, size_t n_a, const double *b, size_t n_b,
		      uint64_t seed, uint64_t rounds, struct stats_perm *out,
		      struct st_err *e);

/* Mean, sample stddev and the CI of the mean (Student t); NAN where undefined. */
struct stats_summary {
	size_t n;
	double mean, stddev, ci_low, ci_high;
};

/* Summarize x[0..n) at confidence level (0.95): n < 2 has no stddev or CI. */
int stats_summarize(const double *x, size_t n, double level, struct stats_summary *out);

/* ======================================================================
 * Verdict on a probe run (advisor/verdict.c)
 * ====================================================================== */

#define VERDICT_ARMS_MAX	16
#define VERDICT_TRIALS_MAX	STATS_SAMPLES_MAX
#define VERDICT_NAME_MAX	32
#define VERDICT_REASONS_MAX	16
#define VERDICT_REASON_LEN	200

/* Direction and wording of the primary metric. */
enum verdict_metric {
	VERDICT_METRIC_THROUGHPUT = 0,	/* higher is better; "faster"/"slower" */
	VERDICT_METRIC_WALL_TIME,	/* lower is better; "faster"/"slower" */
	VERDICT_METRIC_HIGHER_BETTER,	/* any score; "better"/"worse" */
	VERDICT_METRIC_LOWER_BETTER,
};

/* Secondary costs, all lower-is-better, one value per completed trial. */
enum verdict_secondary {
	VERDICT_SEC_ZSWPIN_PAGES = 0,
	VERDICT_SEC_ZSWPOUT_PAGES,
	VERDICT_SEC_WASTED_RA_PAGES,	/* swap_ra - swap_ra_hit */
	VERDICT_SEC_CPU_NS_PER_OP,
	VERDICT_SEC_MAJOR_FAULTS,
	VERDICT_SEC_PSI_SOME_US,	/* PSI memory "some" stall time */
	VERDICT_SEC_COUNT
};

#define VERDICT_SEC_BIT(s) (1u << (s))

/*
 * One arm of a probe. primary[] and secondary[][] hold the n_trials trials
 * that completed; trials whose workload was OOM-killed in its memory cgroup
 * are only counted in n_oom_killed (they have no valid measurement and are
 * never averaged). A secondary metric is used only when has_secondary[] is
 * set, and then all n_trials values must be finite.
 */
struct verdict_arm {
	char name[VERDICT_NAME_MAX];		/* "pc3", "bypass", ... */
	bool is_baseline;			/* the current setting: exactly one arm */
	size_t n_trials;
	double primary[VERDICT_TRIALS_MAX];
	unsigned n_oom_killed;
	bool has_secondary[VERDICT_SEC_COUNT];
	double secondary[VERDICT_SEC_COUNT][VERDICT_TRIALS_MAX];
};

/* About 57 KiB: keep it static or on the heap rather than deep on a stack. */
struct verdict_input {
	enum verdict_metric metric;
	char metric_name[VERDICT_NAME_MAX];	/* "throughput", "wall time"; "" = "the primary metric" */
	size_t n_arms;
	struct verdict_arm arms[VERDICT_ARMS_MAX];
};

/*
 * Knobs; verdict_opts_init() sets the defaults shown.
 *
 * A winner is vetoed when one of the secondary costs in veto_mask is more
 * than veto_pct percent higher than the baseline's with Welch p < alpha,
 * and grew by more percent than the primary metric improved (a cost rising
 * slower than the win is a price worth paying).
 * Default 25 %: large enough that run-to-run noise in counters such as
 * zswpout does not veto a real win, small enough that a win bought with a
 * quarter more CPU per operation or memory stall is not recommended. The
 * default mask holds CPU per op, PSI stall and zswpout. Major faults and
 * wasted readahead are left out on purpose: dropping readahead *raises*
 * major faults by design (hits were minor faults), so vetoing on them would
 * veto every page-cluster win; zswpin likewise moves with the setting.
 * Secondaries whose baseline mean is 0 are reported but never veto.
 */
struct verdict_opts {
	double min_effect_pct;		/* 2.0: smallest improvement worth a change */
	double alpha;			/* 0.05: significance level, CI = 1 - alpha */
	double veto_pct;		/* 25.0 */
	unsigned veto_mask;		/* VERDICT_SEC_BIT()s, see above */
	size_t min_trials;		/* 3: fewer completed trials = too few samples */
	uint64_t perm_seed;		/* fixed default, so verdicts are reproducible */
	uint64_t perm_rounds;		/* 10000 Monte-Carlo splits when not exact */
};

void verdict_opts_init(struct verdict_opts *o);

enum verdict_kind {
	VERDICT_KEEP = 0,		/* keep the baseline (current) setting */
	VERDICT_CHANGE,			/* change to arms[chosen] */
	VERDICT_INCONCLUSIVE,		/* not enough evidence either way */
};

/*
 * Confidence of the verdict:
 *   CHANGE (baseline completed):
 *     high   - Welch p < alpha / 5, the whole CI of the effect is at or above
 *              min_effect_pct, and the permutation test agrees (p < alpha);
 *     medium - Welch p < alpha and either the CI clears min_effect_pct or
 *              the permutation test agrees;
 *     low    - Welch p < alpha only.
 *   CHANGE (baseline OOM-killed):
 *     high   - the baseline was killed in every trial, the chosen arm
 *              completed at least min_trials trials, and it is the only arm
 *              that completed or is significantly better than the runner-up;
 *     medium - otherwise.
 *   KEEP:
 *     high   - every candidate that completed is decisive (see
 *              verdict_comparison_decisive()) or failed by OOM kill;
 *     medium - otherwise (e.g. a small significant gain whose CI still
 *              reaches the minimum effect, or a vetoed winner).
 *   INCONCLUSIVE: always low.
 */
enum verdict_confidence {
	VERDICT_CONF_LOW = 0,
	VERDICT_CONF_MEDIUM,
	VERDICT_CONF_HIGH,
};

/* How a candidate arm compares with the baseline. */
enum verdict_arm_status {
	VERDICT_ARM_BASELINE = 0,
	VERDICT_ARM_BETTER,		/* significant and effect >= min effect */
	VERDICT_ARM_VETOED,		/* better, but a secondary cost vetoed it */
	VERDICT_ARM_BELOW_MIN,		/* significant gain smaller than min effect */
	VERDICT_ARM_EQUIVALENT,		/* CI entirely inside +-min effect */
	VERDICT_ARM_NO_GAIN,		/* not significant, CI rules out a min-effect gain */
	VERDICT_ARM_WORSE,		/* significantly worse: regression risk */
	VERDICT_ARM_NOISY,		/* not significant, CI reaches the min effect */
	VERDICT_ARM_TOO_FEW,		/* it or the baseline below min_trials, or baseline mean 0 */
	VERDICT_ARM_OOM_FAILED,		/* OOM-killed in at least one trial */
	VERDICT_ARM_COMPLETED,		/* completed while the baseline was OOM-killed */
};

struct verdict_secondary_result {
	bool compared;			/* both arms have it, n >= 2 each */
	double mean;			/* this arm */
	double change_pct;		/* vs baseline, + = costs more; NAN if baseline mean 0 */
	double p;			/* Welch, NAN if undefined */
	bool significant;
	bool vetoes;
};

/*
 * Per arm. Statistics of the primary metric are over completed trials.
 * Fields from "compared" on describe the comparison with the baseline and
 * are NAN / false when compared is false (an arm or the baseline has fewer
 * than 2 completed trials, and always for the baseline itself).
 * effect_pct is signed so that positive = better than the baseline, whatever
 * the metric's direction; the CI is of that effect.
 */
struct verdict_arm_result {
	enum verdict_arm_status status;
	size_t n;			/* completed trials used */
	unsigned n_oom_killed;
	double mean, stddev;		/* stddev NAN when n < 2 */
	bool compared;
	double effect_pct;
	double ci_low_pct, ci_high_pct;	/* (1 - alpha) CI of effect_pct */
	double p_welch;			/* NAN when undefined (constant arms) */
	double p_perm;
	bool perm_exact;
	/*
	 * p_welch (or p_perm when Welch is undefined) below alpha_used: Holm's
	 * step-down threshold over the arms compared with the baseline (alpha
	 * itself with one arm), so that more arms do not mean more false
	 * changes. CIs stay the unadjusted (1 - alpha) intervals.
	 */
	bool significant;
	double alpha_used;
	bool holm_demoted;		/* p < alpha, but not below alpha_used */
	bool decisive;
	struct verdict_secondary_result sec[VERDICT_SEC_COUNT];
};

struct verdict_result {
	enum verdict_kind kind;
	int chosen;			/* CHANGE: new arm; KEEP: baseline; INCONCLUSIVE: -1 */
	int baseline;
	enum verdict_confidence confidence;
	bool decisive;			/* adaptive stopping may stop now */
	size_t n_arms;
	struct verdict_arm_result arms[VERDICT_ARMS_MAX];
	size_t n_reasons;
	size_t n_reasons_dropped;	/* reasons that did not fit */
	char reasons[VERDICT_REASONS_MAX][VERDICT_REASON_LEN];	/* first = headline */
};

/*
 * Judge a probe run. opts NULL = defaults. The verdict:
 *   - an arm with any OOM-killed trial has failed and loses to every arm
 *     that completed; if the baseline failed, the best arm that completed
 *     all its trials is recommended (INCONCLUSIVE if none did), with no
 *     secondary veto: the baseline has no valid costs to compare with;
 *   - otherwise CHANGE to the candidate with the largest effect among those
 *     that are significantly better by at least min_effect_pct and not
 *     vetoed; else INCONCLUSIVE if some candidate has too few trials or is
 *     noisy with a CI reaching min_effect_pct; else KEEP, with the reason.
 * -EINVAL for no or several baselines, sizes beyond the maxima, non-finite
 * values, or invalid options.
 */
int verdict_compute(const struct verdict_input *in,
		    const struct verdict_opts *opts,
		    struct verdict_result *out, struct st_err *e);

/*
 * Whether one comparison is settled, for adaptive stopping: with the
 * effect CI [lo, hi] and m = min_effect_pct, decisive when
 *   significant and (lo >= m or hi < m)   - a real gain of at least m, or a
 *                                           real difference that cannot be a
 *                                           gain of m (small gain or loss);
 *   or -m < lo and hi < m                  - equivalent within +-m.
 * False when the arm was not compared.
 */
bool verdict_comparison_decisive(const struct verdict_arm_result *r,
				 double min_effect_pct);

/*
 * After each round of a probe: *decisive = whether more rounds could still
 * change the verdict (see verdict_result.decisive: every completed candidate
 * decisive and at min_trials, or the OOM outcome settled). Same errors as
 * verdict_compute().
 */
int verdict_is_decisive(const struct verdict_input *in,
			const struct verdict_opts *opts, bool *decisive,
			struct st_err *e);

/* Stable lowercase names for JSON: "keep", "high", "better", "zswpout_pages"... */
const char *verdict_kind_name(enum verdict_kind k);
const char *verdict_confidence_name(enum verdict_confidence c);
const char *verdict_arm_status_name(enum verdict_arm_status s);
const char *verdict_secondary_name(enum verdict_secondary s);

/* ======================================================================
 * Sequential statistics (advisor/stats-seq.c)
 * ====================================================================== */

/* Standard normal CDF and quantile (0 < p < 1; NAN otherwise). */
double stats_norm_cdf(double z);
double stats_norm_quantile(double p);

#define STATS_GS_LOOKS_MAX 16

/*
 * Group-sequential crossing probabilities for one-sided upper bounds.
 * t[0..k) are the information fractions of the looks (0 < t[0] < ... <=
 * 1), b[] the z-scale bounds, drift the mean of Z at t = 1 (0 under H0).
 * cross[i] = P(first crossing at look i). Recursive numerical integration of
 * the Brownian-motion score (Armitage-McPherson-Rowe, Simpson rule on 401
 * points per look, absolute error ~1e-6). -EINVAL on bad arguments.
 */
int stats_gs_cross(const double *t, const double *b, size_t k, double drift,
		   double *cross, struct st_err *e);

/*
 * Lan-DeMets O'Brien-Fleming-type bounds: alpha(t) = 2 - 2 Phi(z_{1-a/2} /
 * sqrt(t)) is spent at each look; b[i] is solved so that the crossing
 * probability at look i under H0 is the increment. One look gives the fixed
 * design's z_{1-alpha}. -EINVAL on bad arguments.
 */
int stats_gs_obf_bounds(const double *t, size_t k, double alpha, double *b,
			struct st_err *e);

/*
 * Fisher's exact test, one-sided: the probability, given the margins, of
 * at least x_a events out of n_a in arm a when arm b had x_b of n_b, i.e.
 * small when arm a's rate is credibly higher. NAN on bad counts.
 */
double stats_fisher_greater(unsigned x_a, unsigned n_a, unsigned x_b, unsigned n_b);

/*
 * Modified z-scores M = 0.6745 (x - median) / MAD; values with |M| > 3.5
 * are outliers (Iglewicz-Hoaglin). Returns how many, and marks them in
 * flag[] when flag is not NULL. 0 when n < 3 or MAD = 0. n <= STATS_SAMPLES_MAX.
 */
size_t stats_mad_outliers(const double *x, size_t n, bool *flag);

/*
 * DerSimonian-Laird random-effects pooling of k estimates y[i] (e.g. per-run
 * log effects) with within-run variances v[i] > 0. level is the two-sided
 * confidence level of the pooled interval (normal). q is Cochran's Q,
 * tau2 the between-run variance (>= 0), i2 = max(0, (Q - (k-1)) / Q).
 */
struct stats_pool {
	size_t k;
	double pooled, se, ci_low, ci_high;
	double q, tau2, i2;
};

/* -EINVAL if k < 1, k > STATS_SAMPLES_MAX, a value is not finite or v <= 0. */
int stats_pool_dl(const double *y, const double *v, size_t k, double level,
		  struct stats_pool *out, struct st_err *e);

/* ======================================================================
 * Sequential, paired, outcome-aware verdict (advisor/verdict-seq.c)
 *
 * The design a probe should be judged by: every round runs every arm once
 * (a block), so the primary metric is compared as per-round paired
 * log-ratios candidate / baseline, analysed at planned looks with
 * O'Brien-Fleming-type group-sequential bounds. Trials that were OOM-killed,
 * timed out or failed are outcomes, never dropped. This sits beside
 * verdict_compute(), which stays as it was.
 * ====================================================================== */

#define VERDICT2_ROUNDS_MAX	STATS_SAMPLES_MAX
#define VERDICT2_LOOKS_MAX	STATS_GS_LOOKS_MAX
/* Guarded costs: the VERDICT_SEC_* costs, then p99 latency. */
#define VERDICT2_COST_P99_LATENCY	VERDICT_SEC_COUNT
#define VERDICT2_COSTS			(VERDICT_SEC_COUNT + 1)

/* What became of an arm's trial in one round. */
enum verdict_outcome {
	VERDICT_OUT_MISSING = 0,	/* no trial in this round (not run, interrupted) */
	VERDICT_OUT_OK,			/* completed: primary and costs are valid */
	VERDICT_OUT_OOM,		/* OOM-killed in its memory cgroup */
	VERDICT_OUT_TIMEOUT,
	VERDICT_OUT_FAILED,		/* any other failure of the workload */
};

/*
 * One arm: outcome[r], primary[r] and cost[c][r] for rounds r in
 * [0, n_rounds) of the input; primary and cost values are read only where
 * outcome is OK. A cost is used only when has_cost[c] is set, and then must
 * be finite and >= 0 in every OK round. Warm-up trials are not given.
 */
struct verdict2_arm {
	char name[VERDICT_NAME_MAX];
	bool is_baseline;
	enum verdict_outcome outcome[VERDICT2_ROUNDS_MAX];
	double primary[VERDICT2_ROUNDS_MAX];
	bool has_cost[VERDICT2_COSTS];
	double cost[VERDICT2_COSTS][VERDICT2_ROUNDS_MAX];
};

/* About 72 KiB: static or heap. Primary values must be > 0 where OK. */
struct verdict2_input {
	enum verdict_metric metric;
	char metric_name[VERDICT_NAME_MAX];
	size_t n_rounds;		/* rounds run so far (block count) */
	size_t n_arms;
	struct verdict2_arm arms[VERDICT_ARMS_MAX];
};

/*
 * The plan, fixed before the first round: looks after rounds[0] < ... <
 * rounds[n_looks - 1] (the maximum), one-sided overall alpha, split by
 * Bonferroni over n_candidates (arms - 1). z_bound[i] are the Lan-DeMets
 * O'Brien-Fleming bounds at information fraction rounds[i] / rounds[last]
 * for alpha / n_candidates; nominal_p[i] = 1 - Phi(z_bound[i]) is the
 * one-sided p a candidate must beat at look i. A fixed design (--reps N) is
 * the single look { N }.
 */
struct verdict2_design {
	size_t n_looks;
	unsigned rounds[VERDICT2_LOOKS_MAX];
	size_t n_candidates;
	double alpha;			/* overall one-sided false-change bound */
	double alpha_each;		/* alpha / n_candidates */
	double z_bound[VERDICT2_LOOKS_MAX];
	double nominal_p[VERDICT2_LOOKS_MAX];
};

/* The default schedule 5, 10, 15, 20, 25 rounds at alpha 0.025. */
#define VERDICT2_DEFAULT_LOOKS	{ 5, 10, 15, 20, 25 }
#define VERDICT2_DEFAULT_N_LOOKS 5

/*
 * -EINVAL unless 1 <= n_looks <= VERDICT2_LOOKS_MAX, rounds strictly
 * increasing with 2 <= rounds[0] and rounds[last] <= VERDICT2_ROUNDS_MAX,
 * n_candidates >= 1 and 0 < alpha < 0.5.
 */
int verdict2_design_init(struct verdict2_design *d, const unsigned *rounds,
			 size_t n_looks, size_t n_candidates, double alpha,
			 struct st_err *e);

/*
 * Knobs; verdict2_opts_init() sets the defaults shown. The false-change
 * bound (alpha) belongs to the design, fixed before the first round.
 *   min_effect_pct 2    - a gain worth a change; "confirmed" only when the
 *                         CI's lower bound clears it; KEEP early when every
 *                         candidate's one-sided 97.5 % upper bound is below.
 *   guard_margin_pct 25 - a cost may rise at most this much: its one-sided
 *                         (1 - guard_alpha) upper bound must be below it.
 *   guard_alpha 0.05
 *   guard_mask          - CPU per op, PSI some, zswpout, p99 latency.
 *   ni_margin_pct 5     - the OOM path: a candidate may be this much worse
 *                         on the primary metric (lower bound) and still
 *                         replace a baseline that is OOM-killed more often.
 *   oom_veto_alpha 0.05 - a candidate OOM-killed more often than the
 *                         baseline (one-sided Fisher p below) is vetoed.
 *   invalid_frac 0.5    - every arm failing (not OK) in at least this
 *                         fraction of its trials makes the probe invalid.
 *   impute_factor 1.25  - a failed trial counts as the worst OK value of
 *                         the run made this much worse (divided for
 *                         higher-is-better, multiplied otherwise). In the
 *                         simulator (tests/sim) 1.05 gave more power under
 *                         2 % OOM kills (71 % vs 59 % for +5 %) but an A/A
 *                         false-change rate of 2.95 % on 2 000 probes, above
 *                         the 2.5 % bound; 1.25 stays below it.
 */
struct verdict2_opts {
	double min_effect_pct;
	double guard_margin_pct;
	double guard_alpha;
	unsigned guard_mask;		/* bits 1u << cost index */
	double ni_margin_pct;
	double oom_veto_alpha;
	double invalid_frac;
	double impute_factor;
};

void verdict2_opts_init(struct verdict2_opts *o);

enum verdict2_decision {
	VERDICT2_CONTINUE = 0,		/* run more rounds up to the next look */
	VERDICT2_STOP_CHANGE,		/* change to arms[chosen] */
	VERDICT2_STOP_KEEP,		/* keep the baseline */
	VERDICT2_STOP_INCONCLUSIVE,	/* last look, neither shown */
	VERDICT2_STOP_INVALID,		/* every arm fails often: raise the limit */
};

enum verdict2_guard_status {
	VERDICT2_GUARD_UNUSED = 0,	/* not in the mask or not measured */
	VERDICT2_GUARD_SHOWN,		/* upper bound of the rise within the margin */
	VERDICT2_GUARD_NOT_SHOWN,	/* too few rounds or too noisy to show it */
	VERDICT2_GUARD_HARM,		/* lower bound of the rise above the margin */
	VERDICT2_GUARD_UNAVAILABLE,	/* zero counts: a ratio cannot be formed */
};

struct verdict2_guard {
	enum verdict2_guard_status status;
	size_t n;			/* paired OK rounds */
	double rise_pct;		/* point estimate, + = costs more */
	double ucb_pct;			/* one-sided (1 - guard_alpha) upper bound */
};

/*
 * Per arm. Counts cover rounds [0, n_rounds). For candidates: d_r is the
 * direction-signed log-ratio (positive = better) of the round's primary
 * values after imputation; paired is false when some round misses a trial
 * of this arm or the baseline, and the comparison is then Welch on the
 * signed logs. effect_pct = exp(mean) - 1 (higher-is-better) or
 * 1 - exp(-mean) (lower-is-better: a reduction), both "positive = better".
 * ci_*_pct is the repeated confidence interval at this look's bound
 * (mean -+ t_bound se), so lcb > 0 is exactly crossing the efficacy bound;
 * ucb97_pct the one-sided 97.5 % fixed-sample upper bound used for
 * futility. need_pct is the smallest observed effect that would cross now
 * (what it would take to stop). p_one is the fixed-sample one-sided p.
 */
struct verdict2_arm_result {
	size_t n_ok, n_oom, n_timeout, n_failed, n_missing;
	bool compared;
	bool paired;
	size_t n;			/* pairs (or min arm size when unpaired) */
	double mean_log, sd_log, se_log, df, t, p_one;
	double t_bound;
	double effect_pct, ci_low_pct, ci_high_pct, ucb97_pct, need_pct;
	bool crosses;			/* efficacy bound crossed */
	bool min_effect_confirmed;	/* ci_low_pct >= min_effect_pct */
	bool futile;			/* ucb97_pct < min_effect_pct */
	size_t n_outliers;		/* |modified z| > 3.5 among d_r, kept */
	double p_oom_base_worse;	/* Fisher: baseline OOM-killed more */
	double p_oom_worse;		/* Fisher: this arm OOM-killed more */
	bool oom_vetoed;
	bool ni_shown;			/* OOM path: non-inferior on OK pairs */
	double ni_lcb_pct;
	bool oom_path;			/* eligible because the baseline dies */
	struct verdict2_guard guard[VERDICT2_COSTS];
	bool guard_harm, guard_not_shown;
};

struct verdict2_result {
	enum verdict2_decision decision;
	int chosen;			/* CHANGE: the arm; KEEP: baseline; else -1 */
	int baseline;
	size_t look;			/* as given */
	bool last_look;
	size_t n_rounds;
	double false_change_bound;	/* design alpha */
	double sd_log;			/* pooled sd of d_r over candidates, NAN if none */
	double power_min_effect;	/* verdict2_power() at min_effect_pct, sd_log;
					 * computed when the look stops, else NAN */
	size_t n_arms;
	struct verdict2_arm_result arms[VERDICT_ARMS_MAX];
	size_t n_reasons;
	char reasons[VERDICT_REASONS_MAX][VERDICT_REASON_LEN];	/* first = headline */
};

/*
 * Judge the data at look `look` (0-based index into d->rounds) of design d.
 * in->n_rounds is normally d->rounds[look]; the bound of the look is used
 * whatever it is. Decision:
 *   INVALID  every arm failed (not OK) in >= invalid_frac of its trials;
 *   CHANGE   the candidate with the largest effect among those that cross
 *            the efficacy bound (or, OOM path, whose baseline is OOM-killed
 *            credibly more often - Fisher p below nominal_p[look] - while
 *            the candidate is non-inferior within ni_margin_pct on rounds
 *            both completed), not OOM-vetoed, with no guardrail in harm
 *            and every guardrail shown (a guardrail not shown means
 *            CONTINUE, or INCONCLUSIVE at the last look);
 *   KEEP     every candidate futile or vetoed; at the last look also when
 *            none crossed and all are futile;
 *   INCONCLUSIVE at the last look otherwise; CONTINUE before it.
 * opts NULL = defaults. -EINVAL for no or several baselines, a look out of
 * range, n_rounds above VERDICT2_ROUNDS_MAX, n_arms - 1 not equal to
 * d->n_candidates, non-finite or non-positive primary values in OK rounds.
 */
int verdict2_look(const struct verdict2_design *d, size_t look,
		  const struct verdict2_input *in, const struct verdict2_opts *opts,
		  struct verdict2_result *out, struct st_err *e);

/*
 * Approximate power of design d to change to one candidate whose true gain
 * is effect_pct, when d_r has standard deviation sd_log: the probability
 * that Z_k ~ N(log(1 + effect) sqrt(rounds_k) / sd_log, 1) crosses
 * z_bound by the last look (normal approximation; the t bounds used in
 * verdict2_look() cost a little power at the first looks). NAN on bad input.
 */
double verdict2_power(const struct verdict2_design *d, double effect_pct, double sd_log);

/*
 * Random-effects pooling of runs of the same recipe: y[i] the per-run log
 * effect (verdict2_arm_result.mean_log) and v[i] its variance (se_log^2).
 * Thin wrapper over stats_pool_dl() at level 0.95 that reports the pooled
 * effect in percent (exp - 1), so re-running until one run says CHANGE
 * pools every run instead of keeping the lucky one.
 */
struct verdict2_pooled {
	struct stats_pool pool;
	double effect_pct, ci_low_pct, ci_high_pct;
};

int verdict2_pool_runs(const double *y, const double *v, size_t k,
		       struct verdict2_pooled *out, struct st_err *e);

/* ======================================================================
 * Replications of one recipe (advisor/verdict-rep.c)
 *
 * A probe can be re-run. Judged alone, every run has the design's
 * false-change rate, so an operator who re-runs until one run says CHANGE
 * finds one with probability near 1 - (1 - alpha)^K. The replication rule:
 * the first run of a recipe is judged alone at the design's alpha; the k-th
 * run (k >= 2) is judged on the evidence of all k runs pooled
 * (DerSimonian-Laird over the per-run log effects) at one-sided
 * verdict2_rep_alpha(alpha, k) = alpha * 2^-(k+3), Bonferroni over
 * candidates. By the union bound an operator who re-runs for ever says
 * CHANGE falsely with probability at most alpha (1 + 1/32 + 1/64 + ...) =
 * 1.0625 alpha (2.66 % at the default 2.5 %). The first run keeps the whole
 * design alpha (its power is the design's), so the replications get only a
 * sliver: in the simulator's "persistent operator" scenario (tests/sim, 5
 * runs, stop at the first CHANGE) alpha 2^-(k+1) and 2^-(k+2) gave 2.87 %
 * and 2.76 % false changes at CV 5 % (CP95 upper bound above 3 %), 2^-(k+3)
 * 2.64 % (2.92 %), against 11.5 % for runs judged alone; the first run alone
 * is ~2.5 %. A real +5 % is still found within 5 runs 99 % of the time.
 * ====================================================================== */

#define VERDICT2_REPS_MAX	32

/* One arm of one earlier (or the latest) run, as judged alone. */
struct verdict2_rep_arm {
	bool compared;			/* the run had an estimate for this arm */
	double mean_log, se_log, df;	/* verdict2_arm_result: signed, + = better */
	unsigned n_oom, n_trials;	/* OOM kills and trials run (OK or not) */
};

/*
 * k runs of one recipe, oldest first, the run being judged last; arms
 * aligned with the latest run's (by name, done by the caller), arm[j][i]
 * with compared = false where run j had no such arm or no estimate.
 */
struct verdict2_rep_input {
	size_t k;
	size_t n_arms;
	int baseline;
	bool higher_better;
	struct verdict2_rep_arm arm[VERDICT2_REPS_MAX][VERDICT_ARMS_MAX];
};

struct verdict2_rep_arm_result {
	size_t n_runs;			/* runs with an estimate, pooled */
	struct verdict2_pooled pooled;	/* 95 % interval, effect in the metric's direction */
	double z, p_one;		/* pooled one-sided test of "no gain" */
	double ci_low_pct;		/* lower bound at the run's alpha_k */
	bool crosses;			/* p_one < alpha_each and effect >= min effect */
	bool min_effect_confirmed;	/* ci_low_pct >= min effect */
	bool futile;			/* one-sided 97.5 % upper bound < min effect */
	double p_oom_base_worse;	/* Fisher on the summed OOM counts */
	bool oom_path;			/* baseline OOM-killed credibly more, summed */
};

struct verdict2_rep_result {
	size_t k;
	double alpha_k;			/* this run's one-sided false-change share */
	double alpha_each;		/* alpha_k / candidates */
	enum verdict2_decision decision;
	int chosen;
	bool overrode;			/* decision differs from the run's own */
	size_t n_arms;
	struct verdict2_rep_arm_result arms[VERDICT_ARMS_MAX];
	char reason[VERDICT_REASON_LEN];	/* the pooled headline */
};

/* alpha for the k-th run of a recipe (k >= 1): alpha, then alpha * 2^-(k+3). NAN for k 0. */
double verdict2_rep_alpha(double alpha, size_t k);

/*
 * Judge the latest of k runs of a recipe on the pooled evidence. own is the
 * latest run judged alone (verdict2_look()), whose guardrails and OOM veto
 * still bind: a candidate vetoed in the latest run cannot be chosen. With
 * k == 1 the decision is own's. Otherwise:
 *   INVALID       when own is INVALID;
 *   CHANGE        to the candidate with the largest pooled effect among those
 *                 whose pooled test crosses at alpha_each (or whose baseline
 *                 is OOM-killed credibly more often over all k runs - Fisher
 *                 p below alpha_each - while own shows non-inferiority), not
 *                 OOM-vetoed, no guardrail in harm or not shown in own;
 *   KEEP          when own says KEEP, or every candidate is pooled-futile or
 *                 vetoed in own;
 *   INCONCLUSIVE  otherwise (in particular when own alone says CHANGE).
 * min_effect_pct as in the plan. -EINVAL for k outside 1..VERDICT2_REPS_MAX,
 * arms not matching own, a bad alpha.
 */
int verdict2_replicate(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		       double alpha, double min_effect_pct, struct verdict2_rep_result *out,
		       struct st_err *e);

const char *verdict2_decision_name(enum verdict2_decision d);
const char *verdict2_guard_status_name(enum verdict2_guard_status s);
const char *verdict_outcome_name(enum verdict_outcome o);

/* ======================================================================
 * Rules from host state alone (advisor/rules.c, advisor/rule-<area>.c)
 * ====================================================================== */

#define ADVISOR_SWAPS_MAX	32
#define ADVISOR_RULES_MAX	32	/* room for every rule's result */
#define ADVISOR_MSG_LEN		256

/* A fact the kernel may or may not expose: read `v` only when `known`. */
struct advisor_u64 {
	bool known;
	uint64_t v;
};

struct advisor_bool {
	bool known;
	bool v;
};

enum advisor_swap_type {
	ADVISOR_SWAP_UNKNOWN = 0,
	ADVISOR_SWAP_PARTITION,
	ADVISOR_SWAP_FILE,
	ADVISOR_SWAP_ZRAM,		/* partition on a zram device */
};

/* An active swap area (a line of /proc/swaps). */
struct advisor_swap {
	char name[64];
	enum advisor_swap_type type;
	struct advisor_bool rotational;	/* of the device, or of the device under a file */
	struct advisor_u64 size_bytes;
	struct advisor_u64 used_bytes;
};

/* Monotonic counters (/proc/vmstat and zswap debugfs). */
struct advisor_counters {
	struct advisor_u64 swap_ra, swap_ra_hit;
	struct advisor_u64 zswpin, zswpout, pswpin;
	struct advisor_u64 zswap_pool_limit_hit;
	struct advisor_u64 zswap_reject_compress_poor;
	struct advisor_u64 zswap_reject_compress_fail;
	struct advisor_u64 zswap_reject_alloc_fail;
	struct advisor_u64 zswap_reject_kmemcache_fail;
	struct advisor_u64 zswap_reject_reclaim_fail;
	struct advisor_u64 zswap_written_back_pages;
};

/*
 * What is known about a host. since_boot holds the counters as read; when
 * the caller sampled twice, window holds the deltas over window_s seconds
 * and has_window is set: rules then judge the recent past ("rising") and
 * fall back to since-boot totals otherwise.
 */
struct advisor_host_facts {
	bool swaps_known;			/* /proc/swaps was read */
	size_t n_swaps;
	struct advisor_swap swaps[ADVISOR_SWAPS_MAX];

	struct advisor_bool zswap_present;	/* the kernel has zswap */
	struct advisor_bool zswap_enabled;
	char zswap_compressor[32];		/* "" = unknown */
	struct advisor_u64 zswap_max_pool_pct;
	struct advisor_bool zswap_shrinker_enabled;	/* unknown before ~6.8 */
	struct advisor_u64 zswap_stored_pages;		/* gauge */
	struct advisor_u64 zswap_pool_total_bytes;	/* gauge */

	struct advisor_u64 page_cluster;
	struct advisor_bool vma_ra_enabled;
	struct advisor_u64 mem_total_bytes;

	struct advisor_counters since_boot;
	bool has_window;
	double window_s;
	struct advisor_counters window;
};

enum advisor_rule_status {
	ADVISOR_RULE_OK = 0,
	ADVISOR_RULE_SKIPPED,		/* a needed fact is unknown, or it does not apply */
	ADVISOR_RULE_FINDING,
};

enum advisor_severity {
	ADVISOR_SEV_INFO = 0,
	ADVISOR_SEV_WARN,
};

/*
 * One rule's outcome. message is always set (what was seen, or why the rule
 * was skipped); fix and probe only for findings, probe being a suggested
 * command such as "swaptune probe --arms pc3,pc1,pc0" ("" if none).
 */
struct advisor_rule_result {
	const char *rule;		/* the rule's name, static storage */
	enum advisor_rule_status status;
	enum advisor_severity severity;
	char message[ADVISOR_MSG_LEN];
	char fix[ADVISOR_MSG_LEN];
	char probe[128];
};

/* A named rule: check() fills r (status, message, ...) from the facts. */
struct advisor_rule {
	const char *name;		/* "readahead-hit-ratio" */
	const char *area;		/* "readahead", "zswap", "swap" */
	const char *summary;		/* one line for --help and docs */
	void (*check)(const struct advisor_host_facts *f,
		      struct advisor_rule_result *r);
};

/* The rule table, in the order rules run. */
extern const struct advisor_rule *const advisor_rules[];
extern const size_t advisor_rules_count;

/* The rule called name, or NULL. */
const struct advisor_rule *advisor_rule_find(const char *name);

/*
 * Run one rule: r is cleared, r->rule set, then the rule fills it.
 * -EINVAL if the facts are malformed (n_swaps beyond ADVISOR_SWAPS_MAX).
 */
int advisor_rule_run(const struct advisor_rule *rule,
		     const struct advisor_host_facts *f,
		     struct advisor_rule_result *r, struct st_err *e);

/*
 * Run every rule in table order into out[0..*n_out). -ENOSPC if out_max is
 * smaller than advisor_rules_count (ADVISOR_RULES_MAX always fits), -EINVAL
 * for malformed facts.
 */
int advisor_rules_run(const struct advisor_host_facts *f,
		      struct advisor_rule_result *out, size_t out_max,
		      size_t *n_out, struct st_err *e);

/*
 * For rule implementations. The counters rules should judge: the sampled
 * window when there is one, else the totals since boot.
 */
const struct advisor_counters *advisor_facts_recent(const struct advisor_host_facts *f);
/*
 * Preconditions shared by rules: each returns true when the rule can go on,
 * else marks it skipped with the reason. need_active_swaps: the list of swap
 * areas is known and not empty. need_zswap_on: the kernel has zswap and it
 * is enabled.
 */
bool advisor_rule_need_active_swaps(const struct advisor_host_facts *f,
				    struct advisor_rule_result *r);
bool advisor_rule_need_zswap_on(const struct advisor_host_facts *f,
				struct advisor_rule_result *r);
/* "in the last N s" for a sampled window, else "since boot". */
void advisor_span_words(const struct advisor_host_facts *f, char *buf, size_t len);

/* Set status (and severity) and the printf-style message. */
void advisor_rule_ok(struct advisor_rule_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void advisor_rule_skip(struct advisor_rule_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void advisor_rule_finding(struct advisor_rule_result *r, enum advisor_severity sev,
			  const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The fix text of a finding, and the suggested probe command (NULL = none). */
void advisor_rule_fix(struct advisor_rule_result *r, const char *probe,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

const char *advisor_rule_status_name(enum advisor_rule_status s);
const char *advisor_severity_name(enum advisor_severity s);

#endif
