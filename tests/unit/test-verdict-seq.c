/*
 * test-verdict-seq.c - advisor/stats-seq.c and advisor/verdict-seq.c: the
 * sequential, paired, outcome-aware verdict, one table or case per rule.
 *
 * Where the expected values come from:
 *  [published] Lan-DeMets O'Brien-Fleming bounds, one-sided alpha 0.025:
 *              K = 5 equally spaced 4.8769 3.3569 2.6803 2.2898 2.0310,
 *              K = 3 3.7103 2.5114 1.9930 (gsDesign sfLDOF / ldbounds);
 *              the fixed OBF constant C(5, 0.05 two-sided) = 2.040
 *              (Jennison & Turnbull 2000, table 2.3), so bounds
 *              2.040 sqrt(5/k) cross with total probability 0.025.
 *  [hand]      Fisher: C(10,3) C(10,0) / C(20,3) = 120/1140;
 *              (C(10,5) C(10,1) + C(10,6) C(10,0)) / C(20,6) = 2730/38760.
 *              DerSimonian-Laird: y = (0, .3, .6), v = .01 each: Q = 18,
 *              c = 300 - 30000/300 = 200, tau2 = (18 - 2)/200 = 0.08,
 *              se = sqrt(.09/3), I2 = 16/18; y = (.1, .3, 0), v = (.01, .02,
 *              .04): Q = 1.928571 < 2 so tau2 = 0, pooled = 25/175.
 *  [stdlib]    Python 3 standard library: paired log-ratios with
 *              statistics.mean/stdev, the t tail by the power-series
 *              incomplete beta of test-stats.c, t(0.975, 4) = 2.776445105
 *              from the textbook table, NormalDist for normal values:
 *                d = [log(c/b) for c, b in zip(cand, base)]
 *                m, sd = mean(d), stdev(d); se = sd/sqrt(5); t = m/se
 *                effect = expm1(m); ci = expm1(m -+ 2.776445105 se)
 *              power of one look: NormalDist().cdf(log(1.05) * 5 / 0.05 - 1.959964).
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

/* ---- the verdict ---- */

static struct verdict2_input g_in;
static struct verdict2_result g_res;

/* Arm a: n rounds of values (NAN = not OK, with outcome o). */
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

/* [stdlib] numbers for base / cand below */
static const double BASE[] = { 100, 110, 90, 105, 95 };
static const double CAND[] = { 103, 112, 94, 107, 99 };

static void test_paired_numbers(void **state)
{
	struct verdict2_design d;
	const struct verdict2_arm_result *ar;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, BASE, 5, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, CAND, 5, VERDICT_OUT_OOM);
	design1(&d, 5, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	ar = &g_res.arms[1];
	assert_true(ar->paired);
	assert_int_equal(ar->n, 5);
	assert_close(ar->mean_log, 0.0302347725044787, 1e-13, "mean log");
	assert_close(ar->sd_log, 0.0119962314656992, 1e-13, "sd log");
	assert_close(ar->t, 5.63568707369179, 1e-10, "t");
	assert_close(ar->p_one, 0.00243927795990767, 1e-12, "p one-sided");
	assert_close(ar->t_bound, 2.776445105, 1e-8, "t(0.975, 4)");
	assert_close(ar->effect_pct, 3.06964847458, 1e-9, "effect");
	assert_close(ar->ci_low_pct, 1.54577375386, 1e-7, "ci low");
	assert_close(ar->ci_high_pct, 4.61639164249, 1e-7, "ci high");
	assert_true(ar->crosses);
	/* 1.55 % < 2 %: significant, but the minimum effect is not confirmed */
	assert_false(ar->min_effect_confirmed);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_res.chosen, 1);
	assert_true(has_reason(&g_res, "not confirmed"));
	assert_true(has_reason(&g_res, "false-change rate <= 2.5%"));
	assert_true(isfinite(g_res.power_min_effect));

	/* the same numbers as wall times: lower is better, so pc0 is 3.1 % worse */
	g_in.metric = VERDICT_METRIC_WALL_TIME;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	ar = &g_res.arms[1];
	assert_close(ar->effect_pct, -3.06964847458, 1e-9, "reduction");
	assert_close(ar->ci_low_pct, -4.61639164249, 1e-7, "ci low");
	assert_close(ar->ci_high_pct, -1.54577375386, 1e-7, "ci high");
	assert_false(ar->crosses);
	assert_true(ar->futile);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
}

static void test_unpaired_when_round_missing(void **state)
{
	struct verdict2_design d;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, BASE, 5, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, CAND, 5, VERDICT_OUT_OOM);
	g_in.arms[1].outcome[4] = VERDICT_OUT_MISSING;	/* interrupted */
	design1(&d, 5, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_false(g_res.arms[1].paired);
	assert_true(g_res.arms[1].compared);
	assert_int_equal(g_res.arms[1].n_missing, 1);
	/* Welch on logs: the between-round spread swamps the 3 % */
	assert_false(g_res.arms[1].crosses);
}

/* One baseline OOM kill is an outcome, not the verdict. */
static void test_single_oom_is_not_a_verdict(void **state)
{
	static const double b[] = { 100, NAN, 99, 101, 100, 98, 102, 100, 99, 101 };
	static const double c[] = { 99, 101, 100, 100, 98, 101, 99, 102, 100, 100 };
	struct verdict2_design d;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 10, VERDICT_OUT_OOM);
	design1(&d, 10, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[0].n_oom, 1);
	assert_true(g_res.arms[1].paired);
	assert_int_equal(g_res.arms[1].n, 10);	/* the killed round is kept, imputed */
	assert_false(g_res.arms[1].oom_path);	/* 1 of 10 vs 0: Fisher p = 0.5 */
	assert_close(g_res.arms[1].p_oom_base_worse, 0.5, 1e-12, "fisher 1/10 vs 0/10");
	assert_int_not_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_true(has_reason(&g_res, "1 OOM-killed"));
	/* a killed candidate trial counts as its worst result, both ways */
	g_in.arms[0].outcome[1] = VERDICT_OUT_OK;
	g_in.arms[0].primary[1] = 100;
	g_in.arms[1].outcome[3] = VERDICT_OUT_TIMEOUT;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[1].n_timeout, 1);
	assert_true(g_res.arms[1].mean_log < 0.0);
}

static void test_oom_path_and_veto(void **state)
{
	/* the baseline dies in 8 of 12 rounds; the candidate never, and is equal */
	static const double b[] = { NAN, 100, NAN, NAN, 101, NAN, NAN, 99, NAN, NAN, 100, NAN };
	static const double c[] = { 100, 99, 101, 100, 100, 99, 101, 100, 100, 101, 99, 100 };
	struct verdict2_design d;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 12, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 12, VERDICT_OUT_OOM);
	design1(&d, 12, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	/* 8/12 vs 0/12: C(12,8) C(12,0) / C(24,8) */
	assert_close(g_res.arms[1].p_oom_base_worse, 495.0 / 735471.0, 1e-12, "fisher");
	assert_true(g_res.arms[1].ni_shown);
	assert_true(g_res.arms[1].oom_path);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_res.chosen, 1);

	/* guardrails hold on the OOM path too: PSI 60 % higher vetoes it */
	g_in.arms[0].has_cost[VERDICT_SEC_PSI_SOME_US] = true;
	g_in.arms[1].has_cost[VERDICT_SEC_PSI_SOME_US] = true;
	for (int r = 0; r < 12; r++) {
		g_in.arms[0].cost[VERDICT_SEC_PSI_SOME_US][r] = 1000 + r;
		g_in.arms[1].cost[VERDICT_SEC_PSI_SOME_US][r] = 1600 + r;
	}
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].oom_path);
	assert_int_equal(g_res.arms[1].guard[VERDICT_SEC_PSI_SOME_US].status, VERDICT2_GUARD_HARM);
	assert_int_not_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	g_in.arms[0].has_cost[VERDICT_SEC_PSI_SOME_US] = false;
	g_in.arms[1].has_cost[VERDICT_SEC_PSI_SOME_US] = false;

	/* swap roles: now the candidate dies; it is vetoed and never chosen */
	set_arm(&g_in, 0, "pc3", true, c, 12, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, b, 12, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].oom_vetoed);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
}

static void test_probe_invalid(void **state)
{
	static const double b[] = { NAN, 100, NAN, NAN };
	static const double c[] = { NAN, NAN, 100, NAN };
	struct verdict2_design d;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 4, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 4, VERDICT_OUT_FAILED);
	design1(&d, 4, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INVALID);
	assert_true(has_reason(&g_res, "raise the memory limit"));
}

static void test_guardrails(void **state)
{
	static const double b[] = { 1000, 1010, 990, 1005, 995, 1000 };
	static const double c[] = { 1100, 1112, 1088, 1105, 1096, 1101 };	/* +10 % */
	static const double cpu_b[] = { 50, 51, 49, 50, 50, 51 };
	static const double cpu_up[] = { 75, 76, 74, 76, 75, 75 };	/* +50 % */
	static const double cpu_noisy[] = { 40, 70, 45, 65, 50, 60 };
	unsigned looks[] = { 3, 6 };
	struct verdict2_design d;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 6, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 6, VERDICT_OUT_OOM);
	g_in.arms[0].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = true;
	g_in.arms[1].has_cost[VERDICT_SEC_CPU_NS_PER_OP] = true;
	memcpy(g_in.arms[0].cost[VERDICT_SEC_CPU_NS_PER_OP], cpu_b, sizeof(cpu_b));
	memcpy(g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP], cpu_up, sizeof(cpu_up));
	assert_int_equal(verdict2_design_init(&d, looks, 2, 1, 0.025, NULL), 0);
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].crosses);
	assert_int_equal(g_res.arms[1].guard[VERDICT_SEC_CPU_NS_PER_OP].status, VERDICT2_GUARD_HARM);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
	assert_true(has_reason(&g_res, "cpu_ns_per_op rises"));

	/* noisy cost: no rise beyond 25 % cannot be shown -> inconclusive at the end */
	memcpy(g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP], cpu_noisy, sizeof(cpu_noisy));
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[1].guard[VERDICT_SEC_CPU_NS_PER_OP].status,
			 VERDICT2_GUARD_NOT_SHOWN);
	assert_int_equal(g_res.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_true(has_reason(&g_res, "could not be shown"));

	/* zeros on one side only: reported as unavailable, not silently passed */
	memset(g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP], 0, sizeof(cpu_b));
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[1].guard[VERDICT_SEC_CPU_NS_PER_OP].status,
			 VERDICT2_GUARD_UNAVAILABLE);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_true(has_reason(&g_res, "cannot be shown (zero counts)"));

	/* the guardrail shown: same cost both sides */
	memcpy(g_in.arms[1].cost[VERDICT_SEC_CPU_NS_PER_OP], cpu_b, sizeof(cpu_b));
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[1].guard[VERDICT_SEC_CPU_NS_PER_OP].status, VERDICT2_GUARD_SHOWN);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
	assert_true(g_res.arms[1].min_effect_confirmed);
}

/* Early looks need much more; the bound and what it takes are reported. */
static void test_sequential_looks(void **state)
{
	static const double b[] = { 100, 104, 96, 102, 98 };
	static const double c[] = { 104, 106, 101, 107, 101 };
	unsigned looks[] = VERDICT2_DEFAULT_LOOKS;
	struct verdict2_design d, fixed;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 5, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 5, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_design_init(&d, looks, 5, 1, 0.025, NULL), 0);
	assert_close(d.z_bound[0], 4.8769, 1.5e-4, "look 1 bound");
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_CONTINUE);
	assert_true(g_res.arms[1].need_pct > g_res.arms[1].effect_pct);
	assert_true(has_reason(&g_res, "continue to 10 rounds"));
	/* the same data as a fixed 5-round design (--reps 5) does cross */
	design1(&fixed, 5, 1);
	assert_int_equal(verdict2_look(&fixed, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.decision, VERDICT2_STOP_CHANGE);
}

/* KEEP early when no candidate can reach the minimum effect. */
static void test_futility_keep(void **state)
{
	double b[10], c[10];
	unsigned looks[] = { 10, 20 };
	struct verdict2_design d;

	(void)state;
	for (int r = 0; r < 10; r++) {
		b[r] = 1000 + (r % 3);
		c[r] = b[r] * (r % 2 ? 1.001 : 0.999);
	}
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 10, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 10, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_design_init(&d, looks, 2, 1, 0.025, NULL), 0);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_true(g_res.arms[1].futile);
	assert_int_equal(g_res.decision, VERDICT2_STOP_KEEP);
	assert_int_equal(g_res.chosen, 0);
}

static void test_outliers_kept(void **state)
{
	static const double b[] = { 100, 100, 100, 100, 100, 100, 100 };
	static const double c[] = { 101, 102, 101, 103, 102, 101, 160 };
	struct verdict2_design d;

	(void)state;
	memset(&g_in, 0, sizeof(g_in));
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	set_arm(&g_in, 0, "pc3", true, b, 7, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "pc0", false, c, 7, VERDICT_OUT_OOM);
	design1(&d, 7, 1);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, NULL), 0);
	assert_int_equal(g_res.arms[1].n_outliers, 1);
	assert_int_equal(g_res.arms[1].n, 7);
	assert_true(has_reason(&g_res, "1 outlying round(s)"));
}

static void test_power(void **state)
{
	struct verdict2_design d1, d5;
	unsigned looks[] = VERDICT2_DEFAULT_LOOKS;
	double p;

	(void)state;
	design1(&d1, 25, 1);
	/* [stdlib] one look: Phi(log(1.05) * 5 / 0.05 - 1.959964) */
	assert_close(verdict2_power(&d1, 5.0, 0.05), 0.9982445141791917, 1e-9, "one look");
	assert_int_equal(verdict2_design_init(&d5, looks, 5, 2, 0.025, NULL), 0);
	p = verdict2_power(&d5, 5.0, sqrt(2 * log1p(0.05 * 0.05)));
	/* sequential + Bonferroni costs power, but not much (OBF) */
	assert_true(p > 0.85 && p < 0.9);
	assert_true(verdict2_power(&d5, 2.0, 0.07) < p);
	assert_close(verdict2_power(&d5, 0.0, 0.07), d5.alpha_each, 1e-5, "power at 0 = alpha");
	assert_true(isnan(verdict2_power(&d5, 5.0, 0.0)));
	/* inverted: one look, Phi(log(1+g) * 5 / 0.05 - 1.959964) = 0.8 at
	 * log(1+g) = (1.959964 + 0.841621) * 0.01 [stdlib NormalDist] */
	assert_close(verdict2_effect_for_power(&d1, 0.8, 0.05), expm1(0.02801585) * 100, 2e-3, "inverse, one look");
	p = verdict2_effect_for_power(&d5, 0.8, 0.07);
	assert_true(verdict2_power(&d5, p, 0.07) >= 0.8);
	assert_true(verdict2_power(&d5, p * 0.99, 0.07) < 0.8);
	assert_true(isnan(verdict2_effect_for_power(&d5, 1.0, 0.07)));
	assert_true(isnan(verdict2_effect_for_power(&d5, 0.8, 0.0)));
}

static void test_errors(void **state)
{
	unsigned bad[] = { 5, 5 }, big[] = { 100 }, ok[] = { 5 };
	struct verdict2_design d;
	struct st_err e = { 0 };

	(void)state;
	assert_int_equal(verdict2_design_init(&d, bad, 2, 1, 0.025, &e), -EINVAL);
	assert_int_equal(verdict2_design_init(&d, big, 1, 1, 0.025, &e), -EINVAL);
	assert_int_equal(verdict2_design_init(&d, ok, 1, 0, 0.025, &e), -EINVAL);
	assert_int_equal(verdict2_design_init(&d, ok, 1, 1, 0.025, &e), 0);
	memset(&g_in, 0, sizeof(g_in));
	set_arm(&g_in, 0, "a", false, BASE, 5, VERDICT_OUT_OOM);
	set_arm(&g_in, 1, "b", false, CAND, 5, VERDICT_OUT_OOM);
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, &e), -EINVAL);	/* no baseline */
	g_in.arms[0].is_baseline = true;
	assert_int_equal(verdict2_look(&d, 1, &g_in, NULL, &g_res, &e), -EINVAL);	/* look */
	g_in.arms[1].primary[2] = -1;
	assert_int_equal(verdict2_look(&d, 0, &g_in, NULL, &g_res, &e), -EINVAL);
	assert_string_equal(verdict2_decision_name(VERDICT2_STOP_INVALID), "invalid");
	assert_string_equal(verdict_outcome_name(VERDICT_OUT_OOM), "oom");
	assert_string_equal(verdict2_guard_status_name(VERDICT2_GUARD_NOT_SHOWN), "not_shown");
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
		cmocka_unit_test(test_paired_numbers),
		cmocka_unit_test(test_unpaired_when_round_missing),
		cmocka_unit_test(test_single_oom_is_not_a_verdict),
		cmocka_unit_test(test_oom_path_and_veto),
		cmocka_unit_test(test_probe_invalid),
		cmocka_unit_test(test_guardrails),
		cmocka_unit_test(test_sequential_looks),
		cmocka_unit_test(test_futility_keep),
		cmocka_unit_test(test_outliers_kept),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
