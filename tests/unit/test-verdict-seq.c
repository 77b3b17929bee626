/*
 * test-verdict-seq.c - advisor/stats-seq.c, advisor/verdict-mc.c and
 * advisor/verdict-seq.c: the sequential, paired, outcome-aware verdict (v3),
 * one table or case per rule.
 *
 * Where the expected values come from:
 *  [published] Lan-DeMets O'Brien-Fleming bounds, one-sided alpha 0.025:
 *              K = 5 equally spaced 4.8769 3.3569 2.6803 2.2898 2.0310,
 *              K = 3 3.7103 2.5114 1.9930 (gsDesign sfLDOF / ldbounds);
 *              the fixed OBF constant C(5, 0.05 two-sided) = 2.040
 *              (Jennison & Turnbull 2000, table 2.3). Clopper-Pearson 5/10
 *              at 95 %: [0.187086, 0.812914] (Clopper & Pearson 1934 tables).
 *  [hand]      Fisher: C(10,3) C(10,0) / C(20,3) = 120/1140;
 *              (C(10,5) C(10,1) + C(10,6) C(10,0)) / C(20,6) = 2730/38760.
 *              DerSimonian-Laird: y = (0, .3, .6), v = .01 each: Q = 18,
 *              tau2 = 0.08, I2 = 16/18; y = (.1, .3, 0), v = (.01, .02,
 *              .04): tau2 = 0, pooled = 25/175. Binomial(n, 1/2) tails:
 *              P(X >= 5 | 5) = 1/32, P(X >= 8 | 10) = 56/1024, P(X >= 9 |
 *              10) = 11/1024. Clopper-Pearson 0/10: upper 1 - 0.025^(1/10).
 *              AR(1) variance factor n = 5, rho = .5: 1 + 2 (.4 + .15 +
 *              .05 + .0125) = 2.225.
 *  [python]    /usr/bin/python3, statistics module, a direct transcription
 *              of the definitions in advisor.h (pooled residual
 *              autocorrelation, Marriott-Pope, AR(1) factor, robust t):
 *              the 3-arm, 8-round table Y below gives rho 0.830545454545,
 *              with arm 0 round 4 and arm 2 round 7 missing 0.372863854613;
 *              candidate 1: mean 0.03625, sd 0.00916125381313, f
 *              5.2088076421, se 0.0117066657376, t 3.09652644165;
 *              vif(40, .3) = 1.82653061224; HSD(0.5, -4) = 0.119202922022,
 *              HSD(0.5, 2) = 0.731058578630.
 *  [enum]      exact sizes of the sequential sign test by enumerating every
 *              sign sequence (2^12), computed in the test itself.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/advisor.h"
#include "swaptune/randtest.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.12g, want %.12g (abs tol %g)", what, got, want, tol);
}

/* ---- statistics ---- */

static void test_normal(void **state)
{
	(void)state;
	assert_close(stats_norm_quantile(0.975), 1.9599639845400536, 1e-12, "z 0.975");
	assert_close(stats_norm_quantile(0.025), -1.9599639845400536, 1e-12, "z 0.025");
	assert_close(stats_norm_cdf(1.9599639845400536), 0.975, 1e-14, "Phi");
	assert_true(isnan(stats_norm_quantile(0.0)));
	assert_true(isnan(stats_norm_quantile(1.0)));
}

struct obf_case {
	size_t k;
	double t[5];
	double want[5];
};

static void test_obf_bounds_published(void **state)
{
	static const struct obf_case cases[] = {
		{ 5, { 0.2, 0.4, 0.6, 0.8, 1.0 }, { 4.8769, 3.3569, 2.6803, 2.2898, 2.0310 } },
		{ 3, { 1.0 / 3, 2.0 / 3, 1.0 }, { 3.7103, 2.5114, 1.9930 } },
		{ 1, { 1.0 }, { 1.9600 } },	/* one look: the fixed design */
	};
	double b[5];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(stats_gs_obf_bounds(cases[i].t, cases[i].k, 0.025, b, NULL), 0);
		for (size_t j = 0; j < cases[i].k; j++)
			assert_close(b[j], cases[i].want[j], 1.5e-4, "LD-OBF bound");
	}
}

static void test_gs_cross_obf_constant(void **state)
{
	static const double t[5] = { 0.2, 0.4, 0.6, 0.8, 1.0 };
	double b[5], c[5], total = 0;

	(void)state;
	for (int k = 0; k < 5; k++)
		b[k] = 2.040 * sqrt(5.0 / (k + 1));
	assert_int_equal(stats_gs_cross(t, b, 5, 0.0, c, NULL), 0);
	for (int k = 0; k < 5; k++)
		total += c[k];
	/* C is published to 3 decimals: dalpha/dC ~ 0.06, so +-3e-5 */
	assert_close(total, 0.025, 5e-5, "OBF C = 2.040 spends 0.025");
	/* one look with drift: Phi(drift - b) */
	assert_int_equal(stats_gs_cross(t + 4, b + 4, 1, 3.0, c, NULL), 0);
	assert_close(c[0], stats_norm_cdf(3.0 - b[4]), 1e-12, "one look");
	assert_int_equal(stats_gs_cross(t, b, 0, 0.0, c, NULL), -EINVAL);
}

struct fisher_case {
	unsigned xa, na, xb, nb;
	double want;
};

static void test_fisher(void **state)
{
	static const struct fisher_case cases[] = {
		{ 3, 10, 0, 10, 120.0 / 1140.0 },
		{ 5, 10, 1, 10, 2730.0 / 38760.0 },
		{ 0, 10, 3, 10, 1.0 },		/* at least 0: certain */
		{ 0, 5, 0, 5, 1.0 },
		{ 5, 5, 0, 5, 1.0 / 252.0 },	/* C(10,5) = 252 */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_close(stats_fisher_greater(cases[i].xa, cases[i].na, cases[i].xb, cases[i].nb),
			     cases[i].want, 1e-12, "fisher");
	assert_true(isnan(stats_fisher_greater(4, 3, 0, 3)));
}

static void test_mad_outliers(void **state)
{
	static const double x[] = { 1, 2, 3, 4, 100 };
	static const double flat[] = { 5, 5, 5, 5, 9 };
	bool flag[5];

	(void)state;
	/* median 3, MAD 1: M(100) = 0.6745 * 97, M(1) = 1.35 */
	assert_int_equal(stats_mad_outliers(x, 5, flag), 1);
	assert_true(flag[4]);
	assert_false(flag[0]);
	/* MAD 0: nothing can be called an outlier */
	assert_int_equal(stats_mad_outliers(flat, 5, NULL), 0);
	assert_int_equal(stats_mad_outliers(x, 2, NULL), 0);
}

static void test_pool_dl(void **state)
{
	static const double y1[] = { 0.0, 0.3, 0.6 }, v1[] = { 0.01, 0.01, 0.01 };
	static const double y2[] = { 0.1, 0.3, 0.0 }, v2[] = { 0.01, 0.02, 0.04 };
	static const double bad_v[] = { 0.01, 0.0, 0.01 };
	struct stats_pool p;
	struct verdict2_pooled vp;

	(void)state;
	assert_int_equal(stats_pool_dl(y1, v1, 3, 0.95, &p, NULL), 0);
	assert_close(p.q, 18.0, 1e-12, "Q");
	assert_close(p.tau2, 0.08, 1e-12, "tau2");
	assert_close(p.pooled, 0.3, 1e-12, "pooled");
	assert_close(p.se, sqrt(0.09 / 3.0), 1e-12, "se");
	assert_close(p.i2, 16.0 / 18.0, 1e-12, "I2");
	assert_close(p.ci_low, 0.3 - 1.9599639845400536 * sqrt(0.03), 1e-9, "ci");

	assert_int_equal(stats_pool_dl(y2, v2, 3, 0.95, &p, NULL), 0);
	assert_close(p.q, 1.9285714285714286, 1e-12, "Q below k - 1");
	assert_close(p.tau2, 0.0, 0.0, "tau2 = 0");
	assert_close(p.pooled, 25.0 / 175.0, 1e-12, "fixed-effect mean");
	assert_close(p.se, sqrt(1.0 / 175.0), 1e-12, "fixed-effect se");

	/* a lucky run does not carry the pool: 0.6 alone would be +82 % */
	assert_int_equal(verdict2_pool_runs(y1, v1, 3, &vp, NULL), 0);
	assert_close(vp.effect_pct, expm1(0.3) * 100, 1e-9, "pooled effect");
	assert_true(vp.ci_low_pct < 0.0);
	assert_int_equal(stats_pool_dl(y1, bad_v, 3, 0.95, &p, NULL), -EINVAL);
}


static void test_spend(void **state)
{
	(void)state;
	assert_close(stats_hsd_spend(0.3, 0.0), 0.3, 1e-15, "gamma 0 is linear");
	assert_close(stats_hsd_spend(0.5, -4.0), 0.119202922022, 1e-11, "HSD -4");
	assert_close(stats_hsd_spend(0.5, 2.0), 0.731058578630, 1e-11, "HSD 2");
	assert_close(stats_hsd_spend(1.0, -4.0), 1.0, 1e-15, "all spent at t = 1");
	assert_true(isnan(stats_hsd_spend(1.5, 0.0)));
}

static void test_binomial_and_cp(void **state)
{
	double lo, hi;

	(void)state;
	assert_close(stats_binom_half_upper(5, 5), 1.0 / 32, 1e-15, "5 of 5");
	assert_close(stats_binom_half_upper(8, 10), 56.0 / 1024, 1e-14, "8 of 10");
	assert_close(stats_binom_half_upper(0, 10), 1.0, 0.0, "x 0");
	assert_close(stats_binom_half_upper(11, 10), 0.0, 0.0, "x > n");
	assert_int_equal(stats_clopper_pearson(5, 10, 0.95, &lo, &hi), 0);
	assert_close(lo, 0.187086, 1e-6, "CP 5/10 low");
	assert_close(hi, 0.812914, 1e-6, "CP 5/10 high");
	assert_int_equal(stats_clopper_pearson(0, 10, 0.95, &lo, &hi), 0);
	assert_close(lo, 0.0, 0.0, "CP 0/10 low");
	assert_close(hi, 0.30849710781876083, 1e-10, "CP 0/10 high");
	assert_int_equal(stats_clopper_pearson(10, 10, 0.95, &lo, &hi), 0);
	assert_close(lo, 0.6915028921812392, 1e-10, "CP 10/10 low");
	assert_int_equal(stats_clopper_pearson(11, 10, 0.95, &lo, &hi), -EINVAL);
}

/* [enum] P(reject at look 1 or 2) for the sign test with disc {d1, d2} and crit {c1, c2}. */
static double enum_size(unsigned d1, unsigned d2, unsigned c1, unsigned c2, unsigned *w2_min)
{
	unsigned total = 0, rej = 0;

	for (unsigned s = 0; s < (1u << d2); s++) {
		unsigned w1 = (unsigned)__builtin_popcount(s & ((1u << d1) - 1));
		unsigned w2 = (unsigned)__builtin_popcount(s);

		total++;
		rej += w1 >= c1 || w2 >= c2;
	}
	(void)w2_min;
	return (double)rej / total;
}

static void test_sign_seq(void **state)
{
	struct stats_sign_seq s;
	unsigned disc[2] = { 5, 10 }, wins[2] = { 5, 9 }, d2[2] = { 6, 12 }, w2[2] = { 6, 6 };
	double a1[2] = { 0.01, 0.02 }, a2[2] = { 0.02, 0.03 }, one = 0.001;
	unsigned ten = 10;

	(void)state;
	assert_int_equal(stats_sign_seq(&ten, &ten, 1, &one, &s, NULL), 0);
	assert_int_equal(s.crit[0], 10);
	assert_int_equal(s.rejected_at, 0);
	assert_close(s.p_stage, 1.0 / 1024, 1e-15, "10 of 10");
	/* look 1 cannot reject (1/32 > 0.01): its alpha carries to look 2 */
	assert_int_equal(stats_sign_seq(disc, wins, 2, a1, &s, NULL), 0);
	assert_int_equal(s.crit[0], 6);
	assert_int_equal(s.crit[1], 9);
	assert_int_equal(s.rejected_at, 1);
	assert_close(s.p_stage, 11.0 / 1024, 1e-14, "stagewise p");
	assert_close(s.size[1], enum_size(5, 10, 6, 9, NULL), 1e-14, "exact size = enumeration");
	/* look 1 rejects 6 of 6; look 2's critical count keeps the total within 0.03 */
	assert_int_equal(stats_sign_seq(d2, w2, 2, a2, &s, NULL), 0);
	assert_int_equal(s.crit[0], 6);
	assert_int_equal(s.rejected_at, 0);
	assert_close(s.size[0], 1.0 / 64, 1e-15, "look 1 size");
	assert_close(s.size[1], enum_size(6, 12, 6, s.crit[1], NULL), 1e-14, "look 2 size");
	assert_true(s.size[1] <= 0.03);
	assert_true(enum_size(6, 12, 6, s.crit[1] - 1, NULL) > 0.03);
	disc[1] = 4;
	assert_int_equal(stats_sign_seq(disc, wins, 2, a1, &s, NULL), -EINVAL);
}

/* ---- the design ---- */

static void test_design(void **state)
{
	unsigned one[] = { 10 }, looks[] = VERDICT2_DEFAULT_LOOKS;
	struct verdict2_design d, t;

	(void)state;
	assert_int_equal(verdict2_design_init(&d, one, 1, 1, 0.02, NULL), 0);
	assert_close(d.alpha_speed, 0.59 * 0.02, 1e-15, "speed share");
	assert_close(d.alpha_fail, 0.41 * 0.02, 1e-15, "failure share");
	assert_true(d.alpha_fail >= ldexp(1.0, -7));	/* 7 discordant rounds can show a failing baseline */
	assert_int_equal(verdict2_fail_rounds_min(&d), 7);
	/* the default design: spending in proportion to rounds */
	assert_int_equal(verdict2_design_init(&d, looks, VERDICT2_DEFAULT_N_LOOKS, 2, 0.025, NULL), 0);
	for (size_t k = 1; k < d.n_looks; k++)
		assert_true(d.frac[k] > d.frac[k - 1] && d.frac_fail[k] > d.frac_fail[k - 1]);
	assert_close(d.frac[0], 5.0 / 40, 1e-15, "linear spending");
	assert_close(d.frac[d.n_looks - 1], 1.0, 0.0, "all spent at the last look");
	/* truncation keeps the levels of looks before it; the last spends the rest */
	t = d;
	assert_int_equal(verdict2_design_truncate(&t, 12, NULL), 0);
	assert_int_equal(t.n_looks, 3);
	assert_int_equal(t.rounds[2], 12);
	assert_int_equal(t.n_planned, d.n_looks);
	assert_close(t.frac[0], d.frac[0], 0.0, "look 1 kept");
	assert_close(t.frac[1], d.frac[1], 0.0, "look 2 kept");
	assert_close(t.frac[2], 1.0, 0.0, "the rest at 12");
	assert_int_equal(verdict2_design_truncate(&t, 8, NULL), 0);	/* twice: planned stays */
	assert_int_equal(t.n_looks, 2);
	assert_close(t.frac[0], d.frac[0], 0.0, "look 1 still kept");
	t = d;
	assert_int_equal(verdict2_design_truncate(&t, 3, NULL), 0);
	assert_int_equal(t.n_looks, 1);
	assert_int_equal(t.rounds[0], 3);
	t = d;
	assert_int_equal(verdict2_design_truncate(&t, 60, NULL), 0);
	assert_int_equal(t.n_looks, d.n_looks);
	assert_int_equal(verdict2_design_truncate(&t, 1, NULL), -EINVAL);
}

/* ---- the verdict ---- */

static struct verdict2_input g_in;
static struct verdict2_result g_res;

/* Arm a: n rounds of values (NAN = not OK, with outcome fail). */
static void set_arm(struct verdict2_input *in, size_t a, const char *name, bool base,
		    const double *v, size_t n, enum verdict_outcome fail)
{
	struct verdict2_arm *arm = &in->arms[a];

	snprintf(arm->name, sizeof(arm->name), "%s", name);
	arm->is_baseline = base;
	for (size_t r = 0; r < n; r++) {
		arm->outcome[r] = isnan(v[r]) ? fail : VERDICT_OUT_OK;
		arm->primary[r] = isnan(v[r]) ? 0.0 : v[r];
	}
	if (in->n_arms < a + 1)
		in->n_arms = a + 1;
	in->n_rounds = n;
}

static void design1(struct verdict2_design *d, unsigned rounds, size_t cands)
{
	unsigned r[] = { rounds };

	assert_int_equal(verdict2_design_init(d, r, 1, cands, 0.025, NULL), 0);
}

static bool has_reason(const struct verdict2_result *r, const char *want)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (strstr(r->reasons[i], want))
			return true;
	return false;
}

/* Two arms, 10 rounds: base around 100, cand = base x f with small wiggles. */
static void two_arms(double f, enum verdict_metric metric)
{
	static const double base[] = { 100, 104, 98, 101, 97, 103, 99, 102, 100, 96 };
	static const double wig[] = { 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.0 };
	double cand[10];

	verdict2_input_clear(&g_in);
	g_in.metric = metric;
	snprintf(g_in.metric_name, sizeof(g_in.metric_name), "%s",
		 metric == VERDICT_METRIC_WALL_TIME ? "wall time" : "throughput");
	for (size_t r = 0; r < 10; r++)
		cand[r] = base[r] * f * wig[r];
	set_arm(&g_in, 0, "pc3", true, base, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, cand, 10, VERDICT_OUT_OOM);
}

static void test_speed_change_and_scales(void **state)
{
	static struct rt_work w;
	struct verdict2_design d;
	const struct verdict2_arm_result *ar = &g_res.arms[1];
	struct rt_design rd = { .score = RT_SCORE_HUBER, .n_looks = 1 };
	struct rt_result rr;
	double dd[10], lo, hi;

	(void)state;
	design1(&d, 10, 1);
	two_arms(1.10, VERDICT_METRIC_THROUGHPUT);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	for (size_t r = 0; r < 10; r++)
		dd[r] = log(g_in.arms[1].primary[r]) - log(g_in.arms[0].primary[r]);
	/* the look is the engine's test at the design's level, with Huber scores */
	rd.n_at[0] = 10;
	rd.spend_cum[0] = d.alpha_speed;
	assert_int_equal(rt_seq_test(&rd, &(struct rt_contrasts){ dd, 10 }, 0.0, 1, &w, &rr), 0);
	assert_true(ar->compared);
	assert_int_equal(ar->n, 10);
	assert_true(ar->crosses && rr.rejects);
	assert_close(ar->p_stage, rr.p_stage, 0.0, "the engine's stagewise p");
	assert_close(ar->mean_log, rt_estimate(RT_SCORE_HUBER, dd, 10), 0.0, "the engine's estimate");
	assert_close(ar->effect_pct, expm1(ar->mean_log) * 100, 1e-9, "speed-up scale");
	assert_close(ar->ratio_pct, ar->effect_pct, 1e-9, "throughput: the same");
	rt_interval(&rd, &(struct rt_contrasts){ dd, 10 }, ar->mean_log, &w, &lo, &hi);
	assert_close(ar->ci_low_pct, expm1(lo) * 100, 1e-9, "repeated CI");
	assert_true(ar->ci_low_pct > 0.0);	/* crossing: the interval excludes 0 */
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_res.path, VERDICT2_PATH_SPEED);
	assert_true(has_reason(&g_res, "change to pc0: throughput +"));
	assert_true(has_reason(&g_res, "by the exact randomisation test"));
	assert_true(has_reason(&g_res, "smallest estimated gain worth a change"));
	assert_int_equal(verdict2_finish(&d, &g_in, NULL, &g_res, NULL), 0);
	assert_false(ar->adjusted);	/* one look: no early stop, no winner's curse to adjust */
	assert_true(ar->p_stage > 0.0 && ar->p_stage <= d.alpha_speed);
	assert_true(isnan(g_res.power_min_effect));	/* not beside a change */
	/* without intervals the decision is the same (the simulator's way) */
	{
		struct verdict2_opts o;
		struct verdict2_result r2;

		verdict2_opts_init(&o);
		o.intervals = false;
		assert_int_equal(verdict2_look(&d, 0, &g_in, &o, &r2, NULL), 0);
		assert_int_equal(r2.decision, g_res.decision);
		assert_true(isnan(r2.arms[1].ci_low_pct));
		assert_close(r2.arms[1].p_stage, ar->p_stage, 0.0, "same test");
	}
	/* wall time 10 % longer in the candidate: worse; the metric's own ratio is +10 % */
	two_arms(1.10, VERDICT_METRIC_WALL_TIME);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(ar->ratio_pct > 8.0 && ar->ratio_pct < 12.0);
	assert_close(ar->effect_pct, (1.0 / (1.0 + ar->ratio_pct / 100) - 1) * 100, 1e-9, "speed-up");
	assert_true(ar->ci_low_pct > -100.0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
	/* wall time 10 % shorter: a change, stated as wall time -9 % (lower is better) */
	two_arms(0.90, VERDICT_METRIC_WALL_TIME);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_true(ar->ratio_pct < 0 && ar->ratio_lo_pct < ar->ratio_hi_pct && ar->ratio_hi_pct < 0);
	assert_true(has_reason(&g_res, "(lower is better)"));
}

static void test_missing_pairs(void **state)
{
	struct verdict2_design d;
	const struct verdict2_arm_result *ar = &g_res.arms[1];

	(void)state;
	design1(&d, 10, 1);
	two_arms(1.10, VERDICT_METRIC_THROUGHPUT);
	g_in.arms[1].outcome[4] = VERDICT_OUT_OOM;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	/* nine pairs: the test on the rounds both completed, at the look's level */
	assert_int_equal(ar->n, 9);
	assert_true(ar->crosses);
	assert_close(ar->fail_rate, 0.1, 1e-15, "failure rate");
	assert_true(has_reason(&g_res, "failures are their own endpoint, never a speed"));
}

/* The baseline dies: a change by the failure path, continuous as its completions go to 0. */
static void test_failure_path(void **state)
{
	double base[12], cand[12];
	struct verdict2_design d;
	const struct verdict2_arm_result *ar = &g_res.arms[1];

	(void)state;
	design1(&d, 12, 1);
	for (size_t keep_ok = 0; keep_ok <= 3; keep_ok++) {
		for (size_t r = 0; r < 12; r++) {
			cand[r] = 100 + (double)(r % 3);
			base[r] = r < keep_ok ? 100 + (double)(r % 2) : NAN;
		}
		verdict2_input_clear(&g_in);
		g_in.metric = VERDICT_METRIC_THROUGHPUT;
		set_arm(&g_in, 0, "pc3", true, base, 12, VERDICT_OUT_OOM);
		set_arm(&g_in, 1, "pc0", false, cand, 12, VERDICT_OUT_OOM);
		g_in.arms[0].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = g_in.arms[1].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = true;
		for (size_t r = 0; r < 12; r++) {
			g_in.arms[0].cost[VERDICT_SEC_CPU_NS_PER_OP][r] = 100 + 30 * (double)(r % 2);
			g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP][r] = 100 + 40 * (double)(r % 3);
		}
		assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
		if (!ar->fail_shown)
			fail_msg("keep_ok %zu: won %u lost %u", keep_ok, ar->disc_won, ar->disc_lost);
		assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
		assert_int_equal(g_res.path, VERDICT2_PATH_FAILURE);
		assert_int_equal(ar->disc_won, 12 - keep_ok);
		if (keep_ok < 2)
			assert_int_equal(ar->guard[VERDICT_SEC_CPU_NS_PER_OP].status,
					 VERDICT2_GUARD_NOT_COMPARABLE);
	}
	assert_true(has_reason(&g_res, "change to pc0: pc3 fails more often than pc0"));
	/* two candidates replace a baseline that never completes: the faster of them, head to head */
	{
		double slow[12], fast[12];
		unsigned two[] = { 12 };

		assert_int_equal(verdict2_design_init(&d, two, 1, 2, 0.025, NULL), 0);
		for (size_t r = 0; r < 12; r++) {
			base[r] = NAN;
			slow[r] = 100 + (double)(r % 3);
			fast[r] = 130 + (double)(r % 2);
		}
		verdict2_input_clear(&g_in);
		g_in.metric = VERDICT_METRIC_THROUGHPUT;
		set_arm(&g_in, 0, "pc3", true, base, 12, VERDICT_OUT_OOM);
		set_arm(&g_in, 1, "pc1", false, slow, 12, VERDICT_OUT_OOM);
		set_arm(&g_in, 2, "pc0", false, fast, 12, VERDICT_OUT_OOM);
		assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
		assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
		assert_int_equal(g_res.chosen, 2);
		assert_true(has_reason(&g_res, "pc0 is preferred to pc1, which could also replace pc3: "
				       "neither failed more often; pc0 was 29.2 % faster on the 12 rounds both completed"));
		design1(&d, 12, 1);
		verdict2_input_clear(&g_in);
		g_in.metric = VERDICT_METRIC_THROUGHPUT;
	}
	/* the candidate shown 30 % slower on the rounds both completed: the harm veto */
	for (size_t r = 0; r < 12; r++) {	/* pc3 completes 5 rounds of 12 */
		base[r] = r % 2 == 0 && r < 10 ? 100 + (double)(r % 4) : NAN;
		cand[r] = 70 + (double)(r % 3);
	}
	set_arm(&g_in, 0, "pc3", true, base, 12, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, cand, 12, VERDICT_OUT_OOM);
	g_in.arms[0].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = false;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(ar->fail_shown);
	assert_true(ar->worse_than_ni);
	assert_int_not_equal(g_res.decision, VERDICT2_STOP_CHANGE);
}

/*
 * Three arms, one look at 8 rounds at a first run's alpha (what a busy
 * host's 3-minute probe fits): the baseline fails in nfail rounds, pc1 and
 * pc0 fail where their masks say.
 */
static void seq_arms(size_t nfail, unsigned pc1_fails, unsigned pc0_fails, int pc1_order, int pc0_order)
{
	double base[8], a1[8], a0[8];

	for (size_t r = 0; r < 8; r++) {
		base[r] = r < nfail ? NAN : 100 + (double)(r % 2);
		a1[r] = pc1_fails & (1u << r) ? NAN : 110 + (double)(r % 3);
		a0[r] = pc0_fails & (1u << r) ? NAN : 112 + (double)(r % 2);
	}
	verdict2_input_clear(&g_in);
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, base, 8, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc1", false, a1, 8, VERDICT_OUT_OOM);
	set_arm(&g_in, 2, "pc0", false, a0, 8, VERDICT_OUT_OOM);
	g_in.arms[0].fail_order = 3;
	g_in.arms[1].fail_order = pc1_order;
	g_in.arms[2].fail_order = pc0_order;
}

static void test_failure_sequence(void **state)
{
	unsigned eight[] = { 8 };
	struct verdict2_design d;

	(void)state;
	assert_int_equal(verdict2_design_init(&d, eight, 1, 2, verdict2_first_alpha(0.025), NULL), 0);
	/* the whole share for each candidate in turn: 7 discordant rounds are enough (2^-7 <= alpha_fail) */
	assert_true(d.alpha_fail >= ldexp(1.0, -7));
	assert_true(d.alpha_fail / 2 < ldexp(1.0, -7));	/* split over the two (Bonferroni) they were not */
	seq_arms(7, 0, 0, 1, 0);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_res.path, VERDICT2_PATH_FAILURE);
	assert_true(g_res.arms[1].fail_shown && g_res.arms[2].fail_shown);
	assert_int_equal(g_res.arms[2].disc_won, 7);
	/* 6 are not alone (2^-6 > alpha_fail), nor with candidates slower on the rounds both completed */
	seq_arms(6, 0, 0, 1, 0);
	g_in.arms[0].primary[6] = g_in.arms[0].primary[7] = 130;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_false(g_res.arms[1].fail_shown || g_res.arms[2].fail_shown);
	assert_false(g_res.arms[2].fail_by_speed);
	assert_float_equal(g_res.arms[2].fail_speed_p, 1.0, 0);	/* slower: no tie-break */
	assert_int_not_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_true(has_reason(&g_res, "pc3 failed in 6 of the 6 rounds where one of pc3 and pc0 failed: too "
			       "few to tell; failures alone show a difference only from 7 such rounds"));
	/*
	 * with both candidates faster on the 2 rounds both completed (112 and
	 * 113 against 100 and 101): one short of 7, the speed p breaks the tie
	 * (p = 2^-6 q <= alpha_fail when q <= 0.52)
	 */
	seq_arms(6, 0, 0, 1, 0);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[2].fail_by_speed && g_res.arms[2].fail_shown);
	assert_true(g_res.arms[2].fail_speed_p < 0.52);
	assert_float_equal(g_res.arms[2].p_fail_stage, ldexp(g_res.arms[2].fail_speed_p, -6), 1e-12);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_res.path, VERDICT2_PATH_FAILURE);
	assert_true(has_reason(&g_res, "(exact sign test, completed by speed)"));
	assert_true(has_reason(&g_res, "one won round short of what the sign test shows alone"));
	/* two short (5 of 5): never by failures, however fast (the speed path may decide on its own) */
	seq_arms(5, 0, 0, 1, 0);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_false(g_res.arms[1].fail_shown || g_res.arms[2].fail_shown);
	assert_false(g_res.arms[1].fail_by_speed || g_res.arms[2].fail_by_speed);
	assert_int_not_equal(g_res.path, VERDICT2_PATH_FAILURE);
	/* pc0 first fails with the baseline, so pc1's own evidence is gated: no change */
	seq_arms(7, 0, 0x7f, 1, 0);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_false(g_res.arms[2].fail_shown);
	assert_false(g_res.arms[1].fail_shown);
	assert_true(g_res.arms[1].fail_gated);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_true(has_reason(&g_res, "pc1: pc3 failed more often than it (7 of 7 rounds"));
	assert_true(has_reason(&g_res, "fixed order"));
	/* the same data with pc1 first: pc1 is shown, pc0 (after it) is not, the change is to pc1 */
	seq_arms(7, 0, 0x7f, 0, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].fail_shown);
	assert_false(g_res.arms[2].fail_shown || g_res.arms[2].fail_gated);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_res.chosen, 1);
	/* equal order: listing order (pc1 before pc0) */
	seq_arms(7, 0, 0x7f, 0, 0);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.chosen, 1);
}

/*
 * Two or more candidates could replace a baseline that fails credibly: they
 * are compared with each other, failures first, then head to head on the
 * rounds both completed, not by their gains over the baseline's few
 * completed rounds (a CPU-hog run of session 9 chose pc1, OOM-killed once in
 * 10 trials, over pc0, never killed and the faster of the two, by +53.4 %
 * against +52.3 % on pc3's 2 completed rounds).
 */
static void test_failure_choice(void **state)
{
	double base[10], x[10], y[10], z[10];
	struct verdict2_design d;

	(void)state;
	design1(&d, 10, 2);
	for (size_t r = 0; r < 10; r++) {
		base[r] = r < 2 ? 100 + (double)r : NAN;	/* pc3 fails 8 of 10 */
		x[r] = r == 5 ? NAN : 150 + (double)(r % 3);	/* pc1: the larger gain, faster, killed once */
		y[r] = 130 + (double)(r % 2);			/* pc0: never killed */
	}
	verdict2_input_clear(&g_in);
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, base, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc1", false, x, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 2, "pc0", false, y, 10, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_true(g_res.arms[1].path != VERDICT2_PATH_NONE && g_res.arms[2].path != VERDICT2_PATH_NONE);
	assert_true(g_res.arms[1].effect_pct > g_res.arms[2].effect_pct);
	assert_int_equal(g_res.chosen, 2);
	assert_true(has_reason(&g_res, "pc0 is preferred to pc1, which could also replace pc3: failures first; "
			       "of the 1 round where one of the two failed, pc1 failed in 1"));
	/* neither killed: the faster head to head, though its gain over pc3's 2 rounds is the smaller */
	x[5] = 150;
	for (size_t r = 0; r < 10; r++)
		y[r] = r < 2 ? 140 : 160 + (double)(r % 2);
	set_arm(&g_in, 1, "pc1", false, x, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 2, "pc0", false, y, 10, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].effect_pct > g_res.arms[2].effect_pct);
	assert_int_equal(g_res.chosen, 2);
	assert_true(has_reason(&g_res, "neither failed more often; pc0 was"));
	assert_true(has_reason(&g_res, "on the 10 rounds both completed (pc3's few completed rounds are a poor yardstick)"));
	/*
	 * three candidates, each killed once in a different round, whose head-to-head
	 * comparisons run in a circle (each pair's rounds hold a different one of
	 * rounds 2-4): the choice is the first of equals, whatever the scan order
	 */
	design1(&d, 10, 3);
	for (size_t r = 0; r < 10; r++) {
		base[r] = NAN;
		x[r] = y[r] = z[r] = 100;
	}
	x[2] = NAN; y[2] = 100; z[2] = 200;	/* pc0 beats pc1 */
	y[3] = NAN; x[3] = 200; z[3] = 100;	/* pc2 beats pc0 */
	z[4] = NAN; x[4] = 100; y[4] = 200;	/* pc1 beats pc2 */
	verdict2_input_clear(&g_in);
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, base, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc2", false, x, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 2, "pc1", false, y, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 3, "pc0", false, z, 10, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	for (size_t a = 1; a <= 3; a++)
		assert_int_not_equal(g_res.arms[a].path, VERDICT2_PATH_NONE);
	assert_int_equal(g_res.chosen, 1);
	assert_true(has_reason(&g_res, "pc2 is chosen over pc1, which could also replace pc3 and is preferred to it "
			       "alone, because pc2 is preferred to at least as many of the other candidates"));
	assert_true(has_reason(&g_res, "pc2 is preferred to pc0, which could also replace pc3: neither failed more "
			       "often; pc2 was"));
}


static void test_oom_veto_and_invalid(void **state)
{
	double base[12], cand[12], dead[12];
	struct verdict2_design d;

	(void)state;
	design1(&d, 12, 1);
	for (size_t r = 0; r < 12; r++) {
		base[r] = 100 + (double)(r % 3);
		cand[r] = r < 2 ? 120 : NAN;
		dead[r] = r < 4 ? 100 : NAN;
	}
	verdict2_input_clear(&g_in);
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, base, 12, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, cand, 12, VERDICT_OUT_TIMEOUT);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].oom_vetoed);
	assert_int_equal(g_res.arms[1].n_timeout, 10);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
	assert_true(has_reason(&g_res, "pc0 fails more often than pc3"));
	set_arm(&g_in, 0, "pc3", true, dead, 12, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INVALID);
}

static void test_guardrails(void **state)
{
	struct verdict2_design d;
	const struct verdict2_guard *g = &g_res.arms[1].guard[VERDICT_SEC_CPU_NS_PER_OP];

	(void)state;
	design1(&d, 10, 1);
	two_arms(1.20, VERDICT_METRIC_THROUGHPUT);
	for (size_t a = 0; a < 2; a++)
		g_in.arms[a].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = true;
	for (size_t r = 0; r < 10; r++) {
		g_in.arms[0].cost[VERDICT_SEC_CPU_NS_PER_OP][r] = 1000 + 10 * (double)(r % 3);
		g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP][r] = 1600 + 10 * (double)(r % 2);
	}
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g->status, VERDICT2_GUARD_HARM);
	assert_close(g->level, 0.05, 1e-15, "one look spends the guard alpha");
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
	assert_true(has_reason(&g_res, "beyond the 25 % margin"));
	for (size_t r = 0; r < 10; r++)
		g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP][r] = 1050 + 10 * (double)(r % 2);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g->status, VERDICT2_GUARD_SHOWN);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	for (size_t r = 0; r < 10; r++)
		g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP][r] = r % 2 ? 400 : 2200;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g->status, VERDICT2_GUARD_NOT_SHOWN);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_true(has_reason(&g_res, "cpu_ns_per_op may rise more than the 25 % margin (up to"));
	assert_true(has_reason(&g_res, "more rounds are needed to rule that out"));
	/*
	 * A zero reading is a reading (one unit added to both): a candidate with
	 * ten times the memory stall of a baseline that read 0 in one round is
	 * harm, not "unavailable" (which v3 counted as passed, and changed).
	 */
	g = &g_res.arms[1].guard[VERDICT_SEC_PSI_SOME_US];
	for (size_t a = 0; a < 2; a++) {
		g_in.arms[a].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = false;
		g_in.arms[a].has_cost[VERDICT_SEC_PSI_SOME_US] = true;
	}
	for (size_t r = 0; r < 10; r++) {
		g_in.arms[0].cost[VERDICT_SEC_PSI_SOME_US][r] = r == 3 ? 0 : 5000 + 100 * (double)(r % 3);
		g_in.arms[1].cost[VERDICT_SEC_PSI_SOME_US][r] = 50000 + 1000 * (double)(r % 2);
	}
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g->status, VERDICT2_GUARD_HARM);
	assert_int_not_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	/* measured for the candidate only: it cannot be evaluated, and that is not a pass */
	g_in.arms[0].has_cost[VERDICT_SEC_PSI_SOME_US] = false;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g->status, VERDICT2_GUARD_UNAVAILABLE);
	assert_int_equal(g_res.arms[1].path, VERDICT2_PATH_NONE);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_true(has_reason(&g_res, "psi_some_us was measured for one of the two arms only"));
	assert_true(has_reason(&g_res, "does not let a change through"));
}

static void test_looks_futility_and_words(void **state)
{
	unsigned looks[] = { 5, 10 }, looks8[] = { 8, 10 };
	struct verdict2_design d;

	(void)state;
	assert_int_equal(verdict2_design_init(&d, looks, 2, 1, 0.025, NULL), 0);
	/* at 5 rounds nothing can be shown (the least p of 5 sign flips is 1/32): continue */
	two_arms(1.30, VERDICT_METRIC_THROUGHPUT);
	g_in.n_rounds = 5;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_CONTINUE);
	assert_true(has_reason(&g_res, "continue to 10 rounds"));
	/* a large gain stopping at look 1 (8 rounds) of 2: the median-unbiased estimate and interval */
	assert_int_equal(verdict2_design_init(&d, looks8, 2, 1, 0.025, NULL), 0);
	two_arms(1.30, VERDICT_METRIC_THROUGHPUT);
	g_in.n_rounds = 8;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(verdict2_finish(&d, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].adjusted);
	assert_true(g_res.arms[1].adj_ci_low_pct < g_res.arms[1].adj_effect_pct &&
		    g_res.arms[1].adj_effect_pct < g_res.arms[1].adj_ci_high_pct);
	assert_true(g_res.arms[1].adj_ci_low_pct > 10.0 && g_res.arms[1].adj_ci_high_pct < 50.0);
	assert_true(has_reason(&g_res, "adjusted for that (median-unbiased, normal approximation)"));
	assert_true(has_reason(&g_res, "The interval shown is the repeated-confidence interval"));
	/* the same with the baseline OOM-killed in one round: 7 pairs; the test's own inversion adjusts */
	two_arms(1.30, VERDICT_METRIC_THROUGHPUT);
	g_in.n_rounds = 8;
	g_in.arms[0].outcome[2] = VERDICT_OUT_OOM;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(verdict2_finish(&d, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[1].n, 7);
	assert_true(g_res.arms[1].adjusted);
	g_in.arms[0].outcome[2] = VERDICT_OUT_OK;
	assert_int_equal(verdict2_design_init(&d, looks, 2, 1, 0.025, NULL), 0);
	two_arms(1.003, VERDICT_METRIC_THROUGHPUT);
	g_in.n_rounds = 10;
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].futile);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
	assert_int_equal(verdict2_finish(&d, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.power_min_effect >= 0.0 && g_res.power_min_effect <= 1.0);
	assert_true(g_res.effect_80_pct >= 2.0);
	assert_true(has_reason(&g_res, "this design finds a gain of 2.0 %"));
	/* busy rounds are flagged; serial dependence is said */
	g_in.arms[0].cpu_pressure_pct[2] = 35.0;
	g_in.arms[1].cpu_pressure_pct[7] = 12.0;
	g_in.arms[1].cpu_pressure_pct[8] = 3.0;
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.n_busy_rounds, 2);
	assert_true(has_reason(&g_res, "the host was busy (CPU pressure >= 10 %, or a trial got less "
			       "than half the usual CPU share) during 2 rounds (3, 8): kept, paired within "
			       "the round"));
	assert_int_equal(g_res.arms[1].n_busy, 2);
	/* runs of busy rounds are ranges */
	g_in.arms[1].cpu_pressure_pct[3] = 20.0;
	g_in.arms[1].cpu_pressure_pct[4] = 20.0;
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_true(has_reason(&g_res, "during 4 rounds (3-5, 8): kept"));
	g_in.arms[1].cpu_pressure_pct[3] = g_in.arms[1].cpu_pressure_pct[4] = 0;
	for (size_t r = 0; r < 10; r++)
		g_in.arms[0].cpu_share[r] = g_in.arms[1].cpu_share[r] = 0.95;
	g_in.arms[1].cpu_share[5] = 0.40;	/* starved of CPU */
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.n_busy_rounds, 3);
	assert_true(has_reason(&g_res, "false-change rate of this run's design <= 2.50 %"));
}

/* A power line only where it informs: 3 wild rounds give no "80 % of the time it finds +7384 %". */
static void test_power_words_uninformative(void **state)
{
	static const double base[] = { 100, 104, 98 }, cand[] = { 200, 52, 130 };
	struct verdict2_design d;

	(void)state;
	design1(&d, 3, 1);
	verdict2_input_clear(&g_in);
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	snprintf(g_in.metric_name, sizeof(g_in.metric_name), "throughput");
	set_arm(&g_in, 0, "pc3", true, base, 3, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, cand, 3, VERDICT_OUT_OOM);
	g_in.n_rounds = 3;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_int_equal(verdict2_finish(&d, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.effect_80_pct > 100.0 || !isfinite(g_res.effect_80_pct));
	assert_false(has_reason(&g_res, "80 % of the time it finds"));
	assert_true(has_reason(&g_res, "over 3 rounds) this design finds even a doubling less than "
			       "80 % of the time: more rounds, or a steadier workload, are needed to judge"));
}

static void test_power(void **state)
{
	unsigned looks[] = VERDICT2_DEFAULT_LOOKS;
	struct verdict2_design d;
	double p2, p5, p10, x;

	(void)state;
	assert_int_equal(verdict2_design_init(&d, looks, VERDICT2_DEFAULT_N_LOOKS, 2, 0.025, NULL), 0);
	p2 = verdict2_power(&d, 2.0, 0.0707);
	p5 = verdict2_power(&d, 5.0, 0.0707);
	p10 = verdict2_power(&d, 10.0, 0.0707);
	assert_true(p2 < p5 && p5 < p10);
	assert_true(p5 > 0.7 && p5 < 0.95);
	x = verdict2_effect_for_power(&d, 0.8, 0.0707);
	assert_true(x > 2.0 && x < 10.0);
	assert_close(verdict2_power(&d, x, 0.0707), 0.8, 0.01, "power at the X it names");
	x = verdict2_effect_for_power(&d, 0.8, 0.001);
	assert_true(x >= 2.0 && x < 2.06);	/* never below the minimum effect */
	assert_true(isnan(verdict2_power(&d, 5.0, 0.0)));
}

static void test_errors(void **state)
{
	unsigned bad[] = { 5, 5 }, one[] = { 1 };
	struct verdict2_design d;
	struct verdict2_opts o;

	(void)state;
	assert_int_equal(verdict2_design_init(&d, bad, 2, 1, 0.025, NULL), -EINVAL);
	assert_int_equal(verdict2_design_init(&d, one, 1, 1, 0.025, NULL), -EINVAL);
	assert_int_equal(verdict2_design_init(&d, bad, 1, 0, 0.025, NULL), -EINVAL);
	design1(&d, 10, 1);
	two_arms(1.1, VERDICT_METRIC_THROUGHPUT);
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), -EINVAL);
	g_in.arms[1].is_baseline = true;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), -EINVAL);
	g_in.arms[1].is_baseline = false;
	g_in.arms[1].primary[3] = -1;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), -EINVAL);
	two_arms(1.1, VERDICT_METRIC_THROUGHPUT);
	verdict2_opts_init(&o);
	o.guard_alpha = 0;
	assert_int_equal(verdict2_look(&d, 0, &g_in, &o, &g_res, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_obf_bounds_published),
		cmocka_unit_test(test_gs_cross_obf_constant),
		cmocka_unit_test(test_fisher),
		cmocka_unit_test(test_mad_outliers),
		cmocka_unit_test(test_pool_dl),
		cmocka_unit_test(test_spend),
		cmocka_unit_test(test_binomial_and_cp),
		cmocka_unit_test(test_sign_seq),
		cmocka_unit_test(test_design),
		cmocka_unit_test(test_speed_change_and_scales),
		cmocka_unit_test(test_missing_pairs),
		cmocka_unit_test(test_failure_path),
		cmocka_unit_test(test_failure_sequence),
		cmocka_unit_test(test_failure_choice),
		cmocka_unit_test(test_oom_veto_and_invalid),
		cmocka_unit_test(test_guardrails),
		cmocka_unit_test(test_looks_futility_and_words),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_power_words_uninformative),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
