/*
 * test-verdict.c - the verdict as shown (struct verdict_result, advisor.h):
 * what judge_run() (src/judge.c) makes of the sequential verdict for the
 * renderers, and the stable names of advisor/verdict.c.
 *
 * Every figure checked here is the sequential verdict's own (j->r2) or is
 * recomputed in the test from the input (means, sd, counts): the view must
 * pass them on, not compute a second answer. The inputs are small
 * deterministic tables, 12 rounds judged by a fixed one-look plan.
 */
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
#include "swaptune/judge.h"

#define ROUNDS 12

static struct verdict2_input g_in;
static struct verdict_result g_v;
static struct judgement g_j;

/* Baseline around 1000 ops/s with round-to-round wiggle shared by the arms. */
static const double host[ROUNDS] = { 1000, 1040, 980, 1010, 970, 1030, 990, 1020, 1000, 960,
				     1015, 995 };
static const double wig[ROUNDS] = { 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.0,
				    0.995, 1.005 };

/* Arm a: factor f on the host's rounds; fail_from: rounds from which it was OOM-killed. */
static void arm(size_t a, const char *name, int pc, double f, size_t fail_from)
{
	struct verdict2_arm *x = &g_in.arms[a];

	snprintf(x->name, sizeof(x->name), "%s", name);
	x->is_baseline = a == 0;
	x->fail_order = pc;
	for (size_t r = 0; r < ROUNDS; r++) {
		x->outcome[r] = r >= fail_from ? VERDICT_OUT_OOM : VERDICT_OUT_OK;
		x->primary[r] = r >= fail_from ? 0.0 : host[r] * f * (a ? wig[(r + 3 * a) % ROUNDS] : 1.0);
		x->cost[VERDICT_SEC_ZSWPOUT_PAGES][r] = 10000 + 10 * (double)r;
	}
	x->has_cost[VERDICT_SEC_ZSWPOUT_PAGES] = true;
	if (g_in.n_arms < a + 1)
		g_in.n_arms = a + 1;
}

static void three_arms(double f1, double f0)
{
	verdict2_input_clear(&g_in);
	g_in.metric = VERDICT_METRIC_THROUGHPUT;
	snprintf(g_in.metric_name, sizeof(g_in.metric_name), "throughput");
	g_in.n_rounds = ROUNDS;
	arm(0, "pc3", 3, 1.0, ROUNDS);
	arm(1, "pc1", 1, f1, ROUNDS);
	arm(2, "pc0", 0, f0, ROUNDS);
}

static void judge(const struct verdict2_opts *o)
{
	struct judge_plan p;
	struct st_err e = { 0 };

	judge_plan_fixed(&p, ROUNDS);
	if (judge_run(&(struct judge_case){ &g_in, &p }, o, "pc3", &g_j, &g_v, &e) != 0)
		fail_msg("judge_run: %s", e.msg);
}

static bool has_reason(const char *want)
{
	for (size_t i = 0; i < g_v.n_reasons; i++)
		if (strstr(g_v.reasons[i], want))
			return true;
	return false;
}

/* The arm's shown mean and sd are those of its completed trials. */
static void assert_moments(size_t a)
{
	double x[ROUNDS];
	size_t n = 0;

	for (size_t r = 0; r < ROUNDS; r++)
		if (g_in.arms[a].outcome[r] == VERDICT_OUT_OK)
			x[n++] = g_in.arms[a].primary[r];
	assert_int_equal(g_v.arms[a].n, n);
	if (n) {
		assert_true(fabs(g_v.arms[a].mean - stats_mean(x, n)) < 1e-9);
		if (n > 1)
			assert_true(fabs(g_v.arms[a].stddev - stats_stddev(x, n)) < 1e-9);
	}
}

/* A clear win: CHANGE, and every shown figure is the sequential verdict's. */
static void test_change_passes_figures_on(void **state)
{
	(void)state;
	three_arms(1.01, 1.10);
	judge(NULL);
	assert_true(g_j.judged);
	assert_int_equal(g_j.r2.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(g_v.kind, VERDICT_CHANGE);
	assert_int_equal(g_v.chosen, 2);
	assert_int_equal(g_v.baseline, 0);
	assert_int_equal(g_v.confidence, VERDICT_CONF_HIGH);
	assert_true(g_v.decisive);
	assert_int_equal(g_v.n_arms, 3);

	assert_int_equal(g_v.arms[0].status, VERDICT_ARM_BASELINE);
	assert_false(g_v.arms[0].compared);
	assert_true(isnan(g_v.arms[0].effect_pct) && isnan(g_v.arms[0].p_one_sided));

	assert_int_equal(g_v.arms[2].status, VERDICT_ARM_BETTER);
	assert_true(g_v.arms[2].compared && g_v.arms[2].shown && g_v.arms[2].decisive);
	assert_true(g_v.arms[2].effect_pct == g_j.r2.arms[2].effect_pct);
	assert_true(g_v.arms[2].ci_low_pct == g_j.r2.arms[2].ci_low_pct);
	assert_true(g_v.arms[2].ci_high_pct == g_j.r2.arms[2].ci_high_pct);
	assert_true(g_v.arms[2].p_one_sided == g_j.r2.arms[2].p_one);
	assert_true(g_v.arms[2].effect_pct > 8 && g_v.arms[2].effect_pct < 12);
	assert_true(g_v.arms[2].ci_low_pct > 0 && g_v.arms[2].ci_low_pct < g_v.arms[2].effect_pct);
	/* 12 rounds all in one direction: the exact sign-flip p is 2^-12 */
	assert_true(fabs(g_v.arms[2].p_one_sided - 1.0 / 4096) < 1e-12);
	/* pc1 is 1 % faster: not shown, its test's p passed on as well */
	assert_false(g_v.arms[1].shown);
	assert_true(g_v.arms[1].p_one_sided == g_j.r2.arms[1].p_one);
	assert_true(g_v.arms[1].status == VERDICT_ARM_NOISY || g_v.arms[1].status == VERDICT_ARM_NO_GAIN);
	for (size_t a = 0; a < 3; a++)
		assert_moments(a);
	/* the guard on pages swapped out was evaluated, no rise */
	assert_true(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].compared);
	assert_true(fabs(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].change_pct) < 1e-9);
	assert_false(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].vetoes);
	assert_false(g_v.arms[2].sec[VERDICT_SEC_PSI_SOME_US].compared);
	/* the headline first */
	assert_true(g_v.n_reasons >= 1);
	assert_string_equal(g_v.reasons[0], g_j.r2.reasons[0]);
}

/* Faster, but swapping out twice the pages: vetoed, said so on the cost. */
static void test_guard_veto(void **state)
{
	(void)state;
	three_arms(1.0, 1.10);
	for (size_t r = 0; r < ROUNDS; r++)
		g_in.arms[2].cost[VERDICT_SEC_ZSWPOUT_PAGES][r] *= 2;
	judge(NULL);
	assert_true(g_j.judged);
	assert_int_equal(g_v.arms[2].status, VERDICT_ARM_VETOED);
	assert_true(g_v.arms[2].shown);
	assert_true(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].compared);
	/* the guard reads log((c + 1) / (b + 1)): a doubling is a rise just under 100 % */
	assert_true(fabs(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].change_pct - 100) < 0.02);
	assert_true(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].significant);
	assert_true(g_v.arms[2].sec[VERDICT_SEC_ZSWPOUT_PAGES].vetoes);
	assert_true(g_v.kind != VERDICT_CHANGE || g_v.chosen != 2);
}

/* OOM-killed in every round: failed, counted, never a speed. */
static void test_oom_failed(void **state)
{
	(void)state;
	three_arms(1.0, 1.0);
	arm(2, "pc0", 0, 1.0, 0);
	judge(NULL);
	assert_true(g_j.judged);
	assert_int_equal(g_v.arms[2].status, VERDICT_ARM_OOM_FAILED);
	assert_int_equal(g_v.arms[2].n_oom_killed, ROUNDS);
	assert_int_equal(g_v.arms[2].n, 0);
	assert_false(g_v.arms[2].compared);
	assert_true(isnan(g_v.arms[2].p_one_sided));
	assert_true(g_v.kind != VERDICT_CHANGE || g_v.chosen != 2);
}

/* Too few rounds for the plan: no verdict, every candidate too few, said why. */
static void test_not_judged(void **state)
{
	(void)state;
	three_arms(1.0, 1.10);
	g_in.n_rounds = 1;
	judge(NULL);
	assert_false(g_j.judged);
	assert_int_equal(g_v.kind, VERDICT_INCONCLUSIVE);
	assert_int_equal(g_v.chosen, -1);
	assert_false(g_v.decisive);
	assert_int_equal(g_v.arms[0].status, VERDICT_ARM_BASELINE);
	assert_int_equal(g_v.arms[2].status, VERDICT_ARM_TOO_FEW);
	assert_true(isnan(g_v.arms[2].p_one_sided) && isnan(g_v.arms[2].effect_pct));
	assert_int_equal(g_v.arms[2].n, 1);
	assert_true(has_reason("fewer than the plan's first look at 12: no verdict"));
	/* the minimum effect shown is the plan's even without a judgement */
	assert_true(g_j.design.min_effect_pct == 2.0);
}

/* Another minimum effect than the plan's: judged, and called exploratory. */
static void test_exploratory(void **state)
{
	struct verdict2_opts o;

	(void)state;
	three_arms(1.01, 1.10);
	verdict2_opts_init(&o);
	o.min_effect_pct = 15;
	judge(&o);
	assert_true(g_j.exploratory);
	assert_true(g_j.design.min_effect_pct == 15);
	assert_int_equal(g_v.arms[2].status, VERDICT_ARM_BELOW_MIN);
	assert_true(has_reason("exploratory: minimum effect 15 % instead of the plan's 2 %"));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(verdict_kind_name(VERDICT_CHANGE), "change");
	assert_string_equal(verdict_kind_name(VERDICT_INCONCLUSIVE), "inconclusive");
	assert_string_equal(verdict_confidence_name(VERDICT_CONF_HIGH), "high");
	assert_string_equal(verdict_arm_status_name(VERDICT_ARM_OOM_FAILED), "oom_failed");
	assert_string_equal(verdict_arm_status_name(VERDICT_ARM_BELOW_MIN), "below_min_effect");
	assert_string_equal(verdict_secondary_name(VERDICT_SEC_WASTED_RA_PAGES), "wasted_ra_pages");
	assert_string_equal(verdict_secondary_name(VERDICT_SEC_ZSWPOUT_PAGES), "zswpout_pages");
	assert_string_equal(verdict_secondary_name(VERDICT_SEC_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change_passes_figures_on),
		cmocka_unit_test(test_guard_veto),
		cmocka_unit_test(test_oom_failed),
		cmocka_unit_test(test_not_judged),
		cmocka_unit_test(test_exploratory),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
