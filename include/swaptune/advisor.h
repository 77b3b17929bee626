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
#include "swaptune/verdict-secondary.h"

/* ======================================================================
 * Statistics (advisor/stats.c)
 * ====================================================================== */

/* Largest sample per arm accepted by the two-sample tests. */
#define STATS_SAMPLES_MAX 64

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

/* The two arms compared: a, the candidate, against b, the baseline. */
struct stats_pair {
	const double *a;
	size_t n_a;
	const double *b;
	size_t n_b;
};

/*
 * Returns -EINVAL if either arm has fewer than 2 or more than
 * STATS_SAMPLES_MAX values, a value is not finite, or level is not in (0, 1).
 */
int stats_welch(const struct stats_pair *x, double level, struct stats_welch *out, struct st_err *e);

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

/* Mean, sample stddev and the CI of the mean (Student t); NAN where undefined. */
struct stats_summary {
	size_t n;
	double mean, stddev, ci_low, ci_high;
};

/* Summarize x[0..n) at confidence level (0.95): n < 2 has no stddev or CI. */
int stats_summarize(const double *x, size_t n, double level, struct stats_summary *out);

/* ======================================================================
 * The verdict as it is shown (advisor/verdict.c): its kinds, the status of
 * each arm and the names of the costs, read off a judged look of the
 * sequential verdict (verdict2_result, below). Every renderer, apply,
 * verify and the TUI read this one view of a judgement.
 * ====================================================================== */

#define VERDICT_ARMS_MAX	16
#define VERDICT_NAME_MAX	32
#define VERDICT_REASONS_MAX	16
#define VERDICT_REASON_LEN	256

/* Direction and wording of the primary metric. */
enum verdict_metric {
	VERDICT_METRIC_THROUGHPUT = 0,	/* higher is better; "faster"/"slower" */
	VERDICT_METRIC_WALL_TIME,	/* lower is better; "faster"/"slower" */
	VERDICT_METRIC_HIGHER_BETTER,	/* any score; "better"/"worse" */
	VERDICT_METRIC_LOWER_BETTER,
};

/*
 * Secondary costs (enum verdict_secondary, VERDICT_SEC_*), all
 * lower-is-better, one value per completed trial: rows of the counter
 * table (vocab-rows.h's SECONDARY lines; names in vocab.h's table).
 */

enum verdict_kind {
	VERDICT_KEEP = 0,		/* keep the baseline (current) setting */
	VERDICT_CHANGE,			/* change to arms[chosen] */
	VERDICT_INCONCLUSIVE,		/* not enough evidence either way */
};

/* high for a CHANGE or KEEP the design decided, low for INCONCLUSIVE. */
enum verdict_confidence {
	VERDICT_CONF_LOW = 0,
	VERDICT_CONF_MEDIUM,
	VERDICT_CONF_HIGH,
};

/* How a candidate compares with the baseline. */
enum verdict_arm_status {
	VERDICT_ARM_BASELINE = 0,
	VERDICT_ARM_BETTER,		/* shown better by at least the minimum effect */
	VERDICT_ARM_VETOED,		/* better, but a cost rises beyond its margin */
	VERDICT_ARM_BELOW_MIN,		/* shown better, by less than the minimum effect */
	VERDICT_ARM_EQUIVALENT,		/* (kept for the schema: no longer given) */
	VERDICT_ARM_NO_GAIN,		/* a gain of the minimum effect is ruled out */
	VERDICT_ARM_WORSE,		/* shown worse: its whole interval below 0 */
	VERDICT_ARM_NOISY,		/* neither shown nor ruled out */
	VERDICT_ARM_TOO_FEW,		/* fewer than 2 rounds both completed */
	VERDICT_ARM_OOM_FAILED,		/* fails credibly more often, or never completed */
	VERDICT_ARM_COMPLETED,		/* completed where the baseline failed credibly more */
};

/*
 * One arm as shown. n, mean and stddev describe its completed trials up to
 * the look judged; effect_pct (positive = better, on the speed-up scale),
 * its interval and p_one_sided (the fixed-sample one-sided p of "no gain"
 * of the randomisation test) are verdict2_arm_result's, NAN when the arm
 * was not compared (and always for the baseline). shown: its sequential
 * test rejected "no gain"; decisive: shown, or a gain ruled out. sec[] is
 * the arm's cost guardrails: compared when the guard could be evaluated,
 * change_pct the estimated rise (+ = costs more), vetoes when the rise is
 * shown beyond its margin for the arm changed to.
 */
struct verdict_secondary_result {
	bool compared;
	double change_pct;
	bool significant;		/* shown beyond its margin */
	bool vetoes;
};

struct verdict_arm_result {
	enum verdict_arm_status status;
	size_t n;
	unsigned n_oom_killed;
	double mean, stddev;
	bool compared;
	double effect_pct;
	double ci_low_pct, ci_high_pct;
	double p_one_sided;
	bool shown;
	bool decisive;
	struct verdict_secondary_result sec[VERDICT_SEC_COUNT];
};

struct verdict_result {
	enum verdict_kind kind;
	int chosen;			/* CHANGE: new arm; KEEP: baseline; INCONCLUSIVE: -1 */
	int baseline;
	enum verdict_confidence confidence;
	bool decisive;			/* the design stopped */
	size_t n_arms;
	struct verdict_arm_result arms[VERDICT_ARMS_MAX];
	size_t n_reasons;
	size_t n_reasons_dropped;	/* reasons that did not fit */
	char reasons[VERDICT_REASONS_MAX][VERDICT_REASON_LEN];	/* first = headline */
};

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
 * Group-sequential crossing probabilities for one-sided upper bounds of a
 * normal score. t[0..k) are the information fractions of the looks (0 <
 * t[0] < ... <= 1), b[] the z-scale bounds, drift the mean of Z at t = 1.
 * cross[i] = P(first crossing at look i). Recursive numerical integration
 * (Armitage-McPherson-Rowe). Used by the v2 method the simulator keeps to
 * show what the gates reject. -EINVAL on bad arguments.
 */
int stats_gs_cross(const double *t, const double *b, size_t k, double drift,
		   double *cross, struct st_err *e);

/* Lan-DeMets O'Brien-Fleming-type z bounds (the v2 method). -EINVAL on bad arguments. */
int stats_gs_obf_bounds(const double *t, size_t k, double alpha, double *b,
			struct st_err *e);

/*
 * Fisher's exact test, one-sided: the probability, given the margins, of
 * at least x_a events out of n_a in arm a when arm b had x_b of n_b.
 * NAN on bad counts.
 */
double stats_fisher_greater(unsigned x_a, unsigned n_a, unsigned x_b, unsigned n_b);

/*
 * Modified z-scores M = 0.6745 (x - median) / MAD; values with |M| > 3.5
 * are outliers (Iglewicz-Hoaglin). Returns how many, and marks them in
 * flag[] when flag is not NULL. 0 when n < 3 or MAD = 0. n <= STATS_SAMPLES_MAX.
 */
size_t stats_mad_outliers(const double *x, size_t n, bool *flag);

/*
 * DerSimonian-Laird random-effects pooling of k estimates y[i] with
 * within-run variances v[i] > 0, for display of pooled replications.
 * level is the two-sided confidence level of the pooled interval (normal).
 */
struct stats_pool {
	size_t k;
	double pooled, se, ci_low, ci_high;
	double q, tau2, i2;
};

/* -EINVAL if k < 1, k > STATS_SAMPLES_MAX, a value is not finite or v <= 0. */
int stats_pool_dl(const double *y, const double *v, size_t k, double level,
		  struct stats_pool *out, struct st_err *e);

/*
 * Hwang-Shih-DeCani spending: the share of alpha spent by information
 * fraction t in [0, 1], (1 - exp(-gamma t)) / (1 - exp(-gamma)), and t
 * itself for gamma = 0 (alpha spent in proportion to the rounds run).
 * gamma < 0 spends late (O'Brien-Fleming-like), > 0 early (Pocock-like).
 * NAN for t outside [0, 1].
 */
double stats_hsd_spend(double t, double gamma);

/* P(X >= x) for X ~ Binomial(n, 1/2), exact. 1 for x == 0, 0 for x > n. */
double stats_binom_half_upper(unsigned x, unsigned n);

/*
 * Clopper-Pearson (exact) two-sided interval for a binomial proportion x/n
 * at the given level (0.95). -EINVAL for x > n, n == 0 or a bad level.
 */
int stats_clopper_pearson(unsigned x, unsigned n, double level, double *lo, double *hi);

/*
 * Exact group-sequential sign test on discordant pairs. At look i, disc[i]
 * pairs (cumulative, non-decreasing) disagree and wins[i] of them go the
 * tested way; under the null each disagreement is a fair coin, whatever the
 * counts (they carry no information about the direction). The critical
 * value crit[i] is the smallest count such that the exact probability of
 * rejecting at some look <= i, given disc[0..i], is <= alpha_cum[i] (non-
 * decreasing cumulative levels); crit[i] = disc[i] + 1 when no count can
 * reject. Alpha a look cannot use (the test is discrete) stays available to
 * later looks. rejected_at is the first look with wins >= crit (-1 none);
 * size[i] the exact cumulative size. p_stage is the stagewise-ordering
 * p-value at the last look given: the probability of rejecting at an
 * earlier look, plus of reaching the last look with at least its wins.
 */
struct stats_sign_seq {
	size_t k;
	unsigned crit[STATS_GS_LOOKS_MAX];
	double size[STATS_GS_LOOKS_MAX];
	int rejected_at;
	double p_stage;
	double p_at;		/* of p_stage: the mass at the count observed where it was taken */
};

/* -EINVAL for k outside 1..STATS_GS_LOOKS_MAX, decreasing or > 256 disc, wins > disc. */
int stats_sign_seq(const unsigned *disc, const unsigned *wins, size_t k, const double *alpha_cum,
		   struct stats_sign_seq *out, struct st_err *e);

/* ======================================================================
 * Sequential, paired, outcome-aware verdict, v4 (advisor/verdict-seq.c,
 * advisor/verdict-power.c, on the engine of swaptune/randtest.h)
 *
 * Every round runs every arm once, in an order drawn afresh from the run's
 * recorded seed (probe_round_order()). Two endpoints, judged at planned
 * looks: speed (the per-round log-ratio of the primary on the rounds a
 * candidate and the baseline both completed, in an exact sequential
 * randomisation test with Huber scores, rt_seq_test()) and failure (the
 * discordant rounds, one arm failed and the other completed, in an exact
 * sequential sign test, stats_sign_seq()). VERDICT2_FAIL_SHARE of the run's
 * alpha goes to the failure test, the rest to speed (Bonferroni over the
 * candidates); the failure test is a fixed sequence in ascending
 * verdict2_arm.fail_order.
 * A candidate is changed to
 *   by speed:   its test rejects "no gain" at the look, its estimated gain
 *               is at least the minimum effect (a filter on the estimate,
 *               not a test), it does not fail credibly more often than the
 *               baseline, and every cost guardrail is shown (one that
 *               cannot be evaluated is not shown: it blocks the change);
 *   by failure: the baseline fails credibly more often than it, and on the
 *               rounds both completed its speed is not shown worse than
 *               the non-inferiority margin, and no cost is shown to rise
 *               beyond its margin (a harm veto; with fewer than 2 rounds
 *               both completed a cost is "not comparable").
 * Guardrails compare log((cost + 1) / (baseline cost + 1)) per round; they,
 * the harm veto and the OOM veto spend their own alpha over the looks.
 * Why each piece is as it is: docs/design.md, "The probe's verdict".
 * ====================================================================== */

#define VERDICT2_ROUNDS_MAX	STATS_SAMPLES_MAX
#define VERDICT2_LOOKS_MAX	STATS_GS_LOOKS_MAX
/* Guarded costs: the VERDICT_SEC_* costs, then p99 latency. */
#define VERDICT2_COST_P99_LATENCY	VERDICT_SEC_COUNT
#define VERDICT2_COSTS			(VERDICT_SEC_COUNT + 1)

/*
 * The default schedule: looks after 5, 10, 15, 20, 30 and 40 rounds, alpha
 * spent in proportion to the rounds (gamma 0); a budget that fits fewer
 * rounds truncates it (verdict2_design_truncate()).
 */
#define VERDICT2_DEFAULT_LOOKS	{ 5, 10, 15, 20, 30, 40 }
#define VERDICT2_DEFAULT_N_LOOKS 6
#define VERDICT2_GAMMA		0.0
/*
 * The first run's share of a recipe's false-change budget (2.0 % of the
 * plan's 2.5 %); the rest is the continuation's over every later run
 * (advisor/verdict-rep.c).
 */
#define VERDICT2_FIRST_SHARE	0.8
/*
 * Share of a run's alpha given to the failure endpoint (the speed test gets
 * the rest), and its spending: HSD gamma 4, front-loaded (64 % by a quarter
 * of the rounds).
 */
#define VERDICT2_FAIL_SHARE	0.41
#define VERDICT2_FAIL_GAMMA	4.0

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
 * Per-round covariates of a busy host (NAN = unknown; the probe engine
 * fills them): cpu_pressure_pct, the host's CPU PSI "some" share during the
 * trial in percent; cpu_share, the trial's CPU seconds over its wall
 * seconds. They flag busy rounds in the reasons (CPU pressure at or above
 * verdict2_opts.busy_psi_pct, or a CPU share below half the run's median);
 * they do not adjust the estimate.
 */
struct verdict2_arm {
	char name[VERDICT_NAME_MAX];
	bool is_baseline;
	enum verdict_outcome outcome[VERDICT2_ROUNDS_MAX];
	double primary[VERDICT2_ROUNDS_MAX];
	bool has_cost[VERDICT2_COSTS];
	double cost[VERDICT2_COSTS][VERDICT2_ROUNDS_MAX];
	double cpu_pressure_pct[VERDICT2_ROUNDS_MAX];
	double cpu_share[VERDICT2_ROUNDS_MAX];
	/*
	 * The failure test's fixed sequence: candidates are tested in
	 * ascending fail_order (ties: listing order). Set before the data
	 * (metric_verdict2_input(): the arm's page-cluster, least readahead
	 * first); 0 everywhere tests in listing order.
	 */
	int fail_order;
};

/* About 80 KiB: static or heap. Primary values must be > 0 where OK. */
struct verdict2_input {
	enum verdict_metric metric;
	char metric_name[VERDICT_NAME_MAX];
	size_t n_rounds;		/* rounds run so far (block count) */
	size_t n_arms;
	struct verdict2_arm arms[VERDICT_ARMS_MAX];
};

/* Zero in and mark every covariate unknown (NAN). */
void verdict2_input_clear(struct verdict2_input *in);

/*
 * The plan, fixed before the first round. Looks after rounds[0] < ... <
 * rounds[n_looks - 1]. When the design was truncated (a time budget, or an
 * administrative stop when time ran out), planned[] holds the looks first
 * planned: the looks before the last keep the levels they had in the
 * planned design, and the last look spends what is left, so that the
 * levels of looks already taken never change. frac[i] is the share of the
 * speed path's, the guardrails' and the harm veto's alpha spent by look i
 * (stats_hsd_spend of rounds[i] / planned last at VERDICT2_GAMMA, and 1 at
 * the last look); frac_fail[i] the same for the failure test and the OOM
 * veto at VERDICT2_FAIL_GAMMA. A candidate's speed test spends
 * alpha_speed / n_candidates x frac[i] by look i.
 */
struct verdict2_design {
	size_t n_looks;
	unsigned rounds[VERDICT2_LOOKS_MAX];
	size_t n_planned;
	unsigned planned[VERDICT2_LOOKS_MAX];
	size_t n_candidates;
	double alpha;			/* the run's one-sided false-change bound, both paths */
	double alpha_speed;		/* (1 - VERDICT2_FAIL_SHARE) alpha, all candidates */
	double alpha_fail;		/* VERDICT2_FAIL_SHARE alpha, the candidates in sequence */
	double gamma;
	double frac[VERDICT2_LOOKS_MAX];
	double frac_fail[VERDICT2_LOOKS_MAX];	/* the same for the failure test and the OOM veto */
	double min_effect_pct;		/* of the plan: power and "needs" filter on it */
};

/*
 * A design: looks rounds[0..n_looks), n_candidates + 1 arms, the run's
 * alpha. min_effect_pct is set to 2. -EINVAL unless 1 <= n_looks <=
 * VERDICT2_LOOKS_MAX, rounds strictly increasing with 2 <= rounds[0] and
 * rounds[last] <= VERDICT2_ROUNDS_MAX, 1 <= n_candidates <
 * VERDICT_ARMS_MAX and 0 < alpha < 0.5.
 */
int verdict2_design_init(struct verdict2_design *d, const unsigned *rounds,
			 size_t n_looks, size_t n_candidates, double alpha,
			 struct st_err *e);

/*
 * End design d at round r (2 <= r; a budget that keeps fewer looks, or an
 * administrative stop): its looks before r are kept with their levels, a
 * final look at r spends what is left of every path's alpha. r at or
 * beyond the last look changes nothing. Truncating twice keeps the first
 * planned design. Same errors as verdict2_design_init().
 */
int verdict2_design_truncate(struct verdict2_design *d, unsigned r, struct st_err *e);

/*
 * The fewest discordant rounds (one arm failed, the other completed) with
 * which design d's failure test can show anything: its exact sign test's
 * least p-value with n such rounds is 2^-n, so the smallest n with 2^-n <=
 * alpha_fail (7 for a first run's 0.82 %).
 */
unsigned verdict2_fail_rounds_min(const struct verdict2_design *d);

/*
 * Knobs; verdict2_opts_init() sets the defaults shown. The false-change
 * bound (alpha) belongs to the design, fixed before the first round.
 *   min_effect_pct 2    - the smallest estimated gain worth a change: a
 *                         filter on the estimate, not a test; "confirmed"
 *                         when the interval's lower bound clears it too.
 *                         KEEP early when every candidate's one-sided
 *                         97.5 % upper bound is below it.
 *   guard_margin_pct 25 - a cost may rise at most this much: its upper
 *                         bound must be within it (speed path).
 *   guard_alpha 0.05    - over the whole design, per guardrail.
 *   guard_mask          - CPU per op, PSI some, zswpout, p99 latency.
 *   ni_margin_pct 5     - the failure path's harm veto: a candidate shown
 *                         more than this much slower is not changed to.
 *   oom_veto_alpha 0.05 - a candidate that fails credibly more often than
 *                         the baseline (sequential sign test) is vetoed.
 *   invalid_frac 0.5    - every arm failing (not OK) in at least this
 *                         fraction of its trials makes the probe invalid.
 *   busy_psi_pct 10     - a trial during which the host's CPU pressure
 *                         ("some") was at or above this is flagged busy.
 *   intervals true      - compute each candidate's repeated confidence
 *                         interval at every look (descriptive: the decision
 *                         never reads it; the simulator turns it off).
 */
struct verdict2_opts {
	double min_effect_pct;
	double guard_margin_pct;
	double guard_alpha;
	unsigned guard_mask;		/* bits 1u << cost index */
	double ni_margin_pct;
	double oom_veto_alpha;
	double invalid_frac;
	double busy_psi_pct;
	bool intervals;
	bool order_fixed;		/* the arms ran in a fixed cycle (a run from before v4) */
};

void verdict2_opts_init(struct verdict2_opts *o);

enum verdict2_decision {
	VERDICT2_CONTINUE = 0,		/* run more rounds up to the next look */
	VERDICT2_STOP_CHANGE,		/* change to arms[chosen] */
	VERDICT2_STOP_KEEP,		/* keep the baseline */
	VERDICT2_STOP_INCONCLUSIVE,	/* last look, neither shown */
	VERDICT2_STOP_INVALID,		/* every arm fails often: raise the limit */
};

/* Which endpoint makes a candidate eligible for a change. */
enum verdict2_path {
	VERDICT2_PATH_NONE = 0,
	VERDICT2_PATH_SPEED,		/* faster, shown */
	VERDICT2_PATH_FAILURE,		/* the baseline fails credibly more often */
};

enum verdict2_guard_status {
	VERDICT2_GUARD_UNUSED = 0,	/* not in the mask or not measured */
	VERDICT2_GUARD_SHOWN,		/* upper bound of the rise within the margin */
	VERDICT2_GUARD_NOT_SHOWN,	/* too few rounds or too noisy to rule a rise out */
	VERDICT2_GUARD_HARM,		/* lower bound of the rise above the margin */
	VERDICT2_GUARD_UNAVAILABLE,	/* zero counts: a ratio cannot be formed */
	VERDICT2_GUARD_NOT_COMPARABLE,	/* fewer than 2 rounds both arms completed */
};

struct verdict2_guard {
	enum verdict2_guard_status status;
	size_t n;			/* paired OK rounds */
	double rise_pct;		/* point estimate, + = costs more */
	double ucb_pct, lcb_pct;	/* bounds at this look's guard level */
	double level;			/* one-sided level of this look */
};

/*
 * Per arm. Counts cover rounds [0, n_rounds). For a candidate:
 * Failures: fail_* is the arm's failure rate (OOM, timeout, failed) over
 * its trials with a 95 % Clopper-Pearson interval (also for the baseline);
 * disc_won / disc_lost count the rounds where the baseline failed and this
 * arm completed / the reverse; fail_shown: the sequential sign test shows
 * the baseline failing more often (p_fail_stage its stagewise p) and so did
 * every candidate before it in the fixed sequence (fail_gated: its own test
 * showed it, an earlier candidate's did not). At the design's last look a
 * count one short of what the exact test needs alone (at least
 * verdict2_fail_rounds_min() - 1 won, more won than lost) is completed by
 * the speed comparison as a randomised test's tie-breaker: shown when
 * p_stage - P(that count) (1 - fail_speed_p) <= alpha_fail, fail_speed_p
 * the speed test's one-sided least-favourable p (1 when not below 0.5 or
 * fewer than 2 pairs; fail_by_speed says it decided); oom_vetoed:
 * the same test the other way, at oom_veto_alpha, shows this arm failing
 * more often.
 * Speed, on the n rounds both completed (compared when n >= 2): d_r the
 * direction-signed log-ratio (positive = better); mean_log the estimate
 * that goes with the test (rt_estimate(): Huber's M-estimate of the
 * log-ratio, the typical round's), sd_log the sd of d_r (descriptive);
 * crosses: the sequential randomisation test rejects "no gain" by this
 * look (the looks' levels alpha_speed / n_candidates x frac). effect_pct
 * and its interval are on the speed-up scale exp(mean_log) - 1 (positive =
 * better, never below -100 %: for a lower-is-better metric, baseline /
 * candidate - 1); ratio_* is the metric's own candidate / baseline - 1 (for
 * wall time, negative is better). The interval is the repeated confidence
 * interval of the sequential test at this look (the shifts it does not
 * reject either way, rt_interval()), so a lower bound above 0 is crossing;
 * need_pct the smallest estimated effect that would cross now (the
 * estimate less the lower bound); the three are computed when
 * opts->intervals is set, NAN otherwise. futile: the fixed-sample test
 * rejects "a gain of min_effect_pct or more" at 2.5 % one-sided (ucb97_pct
 * the matching upper bound, set by verdict2_finish()). worse_than_ni: the
 * fixed-sample test at this look's guard level rejects "no worse than
 * -ni_margin_pct". p_one the fixed-sample one-sided p of "no gain"; p_stage
 * the stagewise p-value of the sequential test at this look (replications
 * combine it).
 * Set by verdict2_finish(): adj_*, for the arm changed to by speed at a
 * look before the design's last, the median-unbiased estimate (stagewise
 * ordering: the shift whose stagewise p is one half) and its 95 % interval
 * (the shifts whose stagewise p, either way, is above 2.5 %), adjusted
 * false otherwise; ucb97_pct; and n_outliers.
 */
struct verdict2_arm_result {
	size_t n_ok, n_oom, n_timeout, n_failed, n_missing;
	double fail_rate, fail_lo, fail_hi;
	unsigned disc_won, disc_lost;
	bool fail_shown, fail_gated, oom_vetoed;
	double p_fail_stage;
	bool fail_by_speed;		/* shown with the speed comparison's tie-break */
	double fail_speed_p;
	bool compared;
	size_t n;
	double mean_log, sd_log, p_one;
	double effect_pct, ci_low_pct, ci_high_pct;
	double ratio_pct, ratio_lo_pct, ratio_hi_pct;
	double ucb97_pct, need_pct;
	bool crosses;			/* the sequential test rejects "no gain" */
	bool min_effect_confirmed;	/* ci_low_pct >= min_effect_pct */
	bool futile;			/* a gain of min_effect_pct is ruled out */
	bool worse_than_ni;
	enum verdict2_path path;	/* eligible for a change by this endpoint */
	bool adjusted;
	double adj_effect_pct, adj_ci_low_pct, adj_ci_high_pct;
	double p_stage;
	size_t n_outliers;		/* |modified z| > 3.5 among d_r, kept */
	size_t n_busy;			/* paired rounds with a trial flagged busy */
	struct verdict2_guard guard[VERDICT2_COSTS];
	bool guard_harm, guard_not_shown;
};

struct verdict2_result {
	enum verdict2_decision decision;
	int chosen;			/* CHANGE: the arm; KEEP: baseline; else -1 */
	int baseline;
	enum verdict2_path path;	/* of the change */
	size_t look;			/* as given */
	bool last_look;
	size_t n_rounds;
	double false_change_bound;	/* the design's alpha */
	double sd_log;			/* pooled sd of d_r over candidates, NAN if none */
	double sd_log_robust;		/* the same from their median absolute deviation */
	double power_min_effect;	/* verdict2_finish(): KEEP/INCONCLUSIVE only, else NAN */
	double effect_80_pct;		/* the same: the gain found 80 % of the time */
	size_t n_busy_rounds;		/* rounds with a trial flagged busy */
	size_t n_arms;
	struct verdict2_arm_result arms[VERDICT_ARMS_MAX];
	size_t n_reasons;
	char reasons[VERDICT_REASONS_MAX][VERDICT_REASON_LEN];	/* first = headline */
};

/*
 * Judge the data at look `look` of design d (in->n_rounds is normally
 * d->rounds[look]; the look's levels are used whatever it is). Decision:
 *   INVALID      every arm failed (not OK) in >= invalid_frac of its trials;
 *   CHANGE       to the eligible candidate (see the section's comment) with
 *                the largest speed effect (a candidate without one last);
 *   KEEP         every candidate ruled out: futile on speed without an edge
 *                in failures, OOM-vetoed, a cost shown in harm, or shown
 *                worse than the non-inferiority margin;
 *   INCONCLUSIVE at the last look otherwise; CONTINUE before it.
 * opts NULL = defaults. Only what the decision needs is computed: call
 * verdict2_finish() for what a report shows. -EINVAL for no or several
 * baselines, a look out of range, n_rounds above VERDICT2_ROUNDS_MAX,
 * n_arms - 1 not d->n_candidates, non-finite or non-positive primary values
 * in OK rounds, bad options.
 */
int verdict2_look(const struct verdict2_design *d, size_t look,
		  const struct verdict2_input *in, const struct verdict2_opts *opts,
		  struct verdict2_result *out, struct st_err *e);

/*
 * What a report of a judged look shows beyond the decision: the intervals
 * (when verdict2_look() did not compute them) and outliers of every
 * compared candidate; the median-unbiased estimate of a change by speed at
 * an early stop; for KEEP and INCONCLUSIVE the power for the minimum
 * effect and the gain found 80 % of the time at the variation seen (the
 * robust sd of the log-ratios, sd_log_robust; with their reason line). r must come from
 * verdict2_look() on the same d, look, in and opts. -EINVAL on mismatch.
 */
int verdict2_finish(const struct verdict2_design *d, const struct verdict2_input *in,
		    const struct verdict2_opts *opts, struct verdict2_result *r, struct st_err *e);

/*
 * Power of design d's speed path to change to one candidate whose true gain
 * is effect_pct when the per-round log-ratio has standard deviation sd_log,
 * the other candidates equal to the baseline and rounds independent
 * (advisor/verdict-power.c): the normal approximation of the rule - each
 * look's level turned into a z bound by the exact crossing probabilities
 * of a Brownian path (stats_gs_cross()), no stop at a look whose
 * contrasts cannot reach its level (2^-n above it), the minimum-effect
 * filter and the futility stop - on 20 000 paths with common random
 * numbers. NAN on bad input.
 */
double verdict2_power(const struct verdict2_design *d, double effect_pct, double sd_log);
/* Where a candidate's speed test stopped a design, and with what. */
struct verdict2_stop {
	size_t look;		/* the look it stopped at */
	const unsigned *n_at;	/* [0..look]: the contrasts at each look */
	double est_log;		/* the estimate that stopped it (log units) */
	double sd_log;		/* the robust sd of the log-ratio */
};
/*
 * The median-unbiased estimate (stagewise ordering) of a candidate whose
 * speed test stopped design d as s says, and its 95 % interval (the
 * shifts at which an outcome as extreme is 2.5 % and 97.5 % likely), in
 * log units, under the normal approximation of the test (the looks'
 * levels as z bounds, verdict2_power()'s) at s->sd_log. The interval
 * covers the truth 95 % of the time over every outcome of the design, not
 * given an early stop. -1 on bad input.
 */
int verdict2_stage_adjust(const struct verdict2_design *d, const struct verdict2_stop *s,
			  double *est, double *lo, double *hi);
/*
 * The smallest gain (percent, never below d->min_effect_pct) found with the
 * given power at sd_log by verdict2_power(), by bisection to 0.01 % of
 * the log-ratio. NAN on bad input or beyond +100 000 %.
 */
double verdict2_effect_for_power(const struct verdict2_design *d, double power, double sd_log);

/*
 * Random-effects pooling of runs of the same recipe for display: y[i] the
 * per-run log effect and v[i] its variance; the pooled effect in percent.
 */
struct verdict2_pooled {
	struct stats_pool pool;
	double effect_pct, ci_low_pct, ci_high_pct;
};

int verdict2_pool_runs(const double *y, const double *v, size_t k,
		       struct verdict2_pooled *out, struct st_err *e);

/* ======================================================================
 * Runs of one recipe: continuation (advisor/verdict-rep.c)
 *
 * The runs of a recipe are the stages of one sequential design fixed
 * before the first run: stage 1 is the first run, judged alone at
 * verdict2_first_alpha(alpha); stage k >= 2 combines the first k runs by
 * Stouffer with equal weights, Z_k = sum of z_i / sqrt(k), z_i = Phi^-1(1 -
 * p_i) with p_i run i's exact stagewise p-value judged alone (speed, and
 * failures apart), against a bound c_k (verdict2_stage_bounds()). A run
 * aborted before its first look is a stage with z = 0. At most
 * VERDICT2_REPS_MAX runs. Why: docs/design.md, "Runs of one recipe".
 * ====================================================================== */

#define VERDICT2_REPS_MAX	STATS_GS_LOOKS_MAX

/* One arm of one earlier (or the latest) run, as judged alone. */
struct verdict2_rep_arm {
	bool compared;			/* the run had a speed comparison for this arm */
	bool aborted;			/* the run stopped before its first look */
	bool crossed;			/* judged alone: its speed test rejected */
	bool fail_shown;		/* judged alone: the baseline shown to fail more */
	double p_stage;			/* speed: stagewise p of "no gain" (1 if none) */
	double p_fail_stage;		/* failures: stagewise p of "baseline fails more" */
	bool fail_counted;		/* the run had discordant rounds for it */
	size_t n;			/* its contrasts (direction-signed log-ratios) */
	double c[VERDICT2_ROUNDS_MAX];
};

/*
 * k runs of one recipe, oldest first, the run being judged last; arms
 * aligned with the latest run's (by name, done by the caller), arm[j][i]
 * with compared = false where run j had no such arm or no comparison.
 */
struct verdict2_rep_input {
	size_t k;
	size_t n_arms;
	int baseline;
	bool higher_better;
	bool no_intervals;		/* skip the display intervals (the simulator) */
	struct verdict2_rep_arm arm[VERDICT2_REPS_MAX][VERDICT_ARMS_MAX];
};

struct verdict2_rep_arm_result {
	size_t n_runs;			/* runs with a speed comparison */
	size_t n;			/* their contrasts, pooled */
	double effect_pct;		/* the estimate over every run's contrasts */
	double ci_low_pct, ci_high_pct;	/* its 95 % interval (fixed sample, display) */
	struct verdict2_pooled pooled;	/* random-effects pooling of the runs (display) */
	double z, bound;		/* Stouffer of the speed p-values, stage k's bound */
	double p_one;			/* 1 - Phi(z) */
	double z_fail, bound_fail;	/* the same for failures */
	double p_fail;
	bool shown;			/* speed: the latest stage crosses (before the minimum-effect filter) */
	bool crosses;			/* speed: shown, and the estimate >= min effect */
	bool min_effect_confirmed;	/* ci_low_pct >= min effect */
	bool futile;			/* a gain of the min effect ruled out (2.5 %) */
	bool fail_shown;		/* failures: the latest stage crosses */
};

struct verdict2_rep_result {
	size_t k;
	double alpha_first;		/* the first run's share */
	double alpha_cont;		/* the continuation's, over every later run */
	double alpha_k;			/* spent at this stage, both paths, all candidates */
	enum verdict2_decision decision;
	int chosen;
	enum verdict2_path path;
	bool overrode;			/* decision differs from the run's own */
	size_t n_arms;
	struct verdict2_rep_arm_result arms[VERDICT_ARMS_MAX];
	char reason[VERDICT_REASON_LEN];	/* the pooled headline */
};

/* The first run's share of a recipe's alpha: alpha VERDICT2_FIRST_SHARE. */
double verdict2_first_alpha(double alpha);

/*
 * The bounds c[0..k) of the stage statistic Z for one candidate: c[0] =
 * Phi^-1(1 - a_first), then c[j] such that Z crosses first at stage j + 1
 * with probability a_cont 2^-(j + 1) when every z is standard normal.
 * -EINVAL for k outside 1..VERDICT2_REPS_MAX or levels outside (0, 0.5).
 */
int verdict2_stage_bounds(size_t k, double a_first, double a_cont, double *c, struct st_err *e);

/*
 * The figures of candidate i of a run judged alone (verdict2_look(), then
 * verdict2_finish() or verdict2_stage_pvalues()) for a later stage: its
 * p-values, its own decisions and its contrasts from in. A run that never
 * reached a look: give r NULL (aborted: z = 0).
 */
void verdict2_rep_arm_of(const struct verdict2_input *in, const struct verdict2_result *r,
			 size_t i, struct verdict2_rep_arm *out);

/*
 * Judge the latest of k runs of a recipe on the evidence of all k. own is
 * the latest run judged alone (verdict2_look(), verdict2_finish()), whose
 * guardrails, harm and OOM vetoes still bind. alpha is the plan's (the
 * whole budget over all runs). With k == 1 the decision is own's.
 * Otherwise:
 *   INVALID       when own is INVALID;
 *   CHANGE        to the candidate with the largest pooled effect among
 *                 those whose latest stage crosses (Z_k at least c_k; with
 *                 the pooled estimate at least the minimum effect and own's
 *                 guardrails shown) or whose failure stage crosses (with
 *                 own's harm vetoes clear), not vetoed in own;
 *   KEEP          when own says KEEP, or every candidate is pooled-futile
 *                 without a failure edge, or vetoed in own;
 *   INCONCLUSIVE  otherwise (in particular when own alone says CHANGE).
 * -EINVAL for k outside 1..VERDICT2_REPS_MAX, arms not matching own, a bad
 * alpha; -ENOMEM.
 */
int verdict2_replicate(const struct verdict2_rep_input *in, const struct verdict2_result *own,
		       double alpha, double min_effect_pct, struct verdict2_rep_result *out,
		       struct st_err *e);

const char *verdict2_decision_name(enum verdict2_decision d);
const char *verdict2_guard_status_name(enum verdict2_guard_status s);
const char *verdict2_path_name(enum verdict2_path p);
const char *verdict_outcome_name(enum verdict_outcome o);

/* ======================================================================
 * Rules from host state alone (advisor/rules.c, advisor/rule-<area>.c)
 * ====================================================================== */

#define ADVISOR_SWAPS_MAX	32
#define ADVISOR_RULES_MAX	32	/* room for every rule's result */
#define ADVISOR_MSG_LEN		384

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
	struct advisor_u64 page_size_bytes;	/* turns page counts into sizes in messages */

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
/*
 * The command a fix text names to change a registered setting, with the
 * safety net of recommend's "To apply" line: undone after 5 minutes unless
 * `swaptune apply --confirm` keeps it (advice.h's ADVICE_APPLY_CONFIRM_WITHIN).
 */
#define ADVISOR_CONFIRM_WITHIN "5m"
#define ADVISOR_APPLY "swaptune apply --confirm-within " ADVISOR_CONFIRM_WITHIN
#define ADVISOR_APPLY_NET "undone unless swaptune apply --confirm keeps it"

/* "in the last N s" for a sampled window, else "since boot". */
void advisor_span_words(const struct advisor_host_facts *f, char *buf, size_t len);
/*
 * An amount of memory counted in pages, in the style of the rest of the
 * output (fmt_bytes, fmt_num): "390.6 MiB" when the page size is known,
 * with " (100.0k pages)" after it when count is true (where the count is
 * what a threshold or a counter speaks of); "100.0k pages" when the page
 * size is unknown. Into buf, which is returned.
 */
const char *advisor_pages_words(const struct advisor_host_facts *f, uint64_t pages, bool count,
				char *buf, size_t len);

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
