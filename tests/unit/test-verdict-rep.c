/*
 * test-verdict-rep.c - advisor/verdict-rep.c: the replication rule, one
 * case per rule (alpha per replication, k = 1 passes through, a lucky run
 * does not survive earlier null runs, a real effect repeated is a change, a
 * run's own veto binds, pooled futility keeps, INVALID stays, summed OOM
 * counts, the DerSimonian-Laird arithmetic, bad input).
 *
 * Where the expected values come from:
 *  [hand] y = (.1, .3, 0), v = (.01, .02, .04) (df 0: no widening): Q =
 *         1.928571 < 2 so tau2 = 0, pooled = 25/175, se = sqrt(1/175)
 *         (the same case as test-verdict-seq.c's stats_pool_dl table).
 *  [hand] Fisher: 15 of 30 against 0 of 30 = C(30,15) / C(60,15)
 *         = 155117520 / 53194089192720 = 2.9161e-6.
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

static struct verdict2_rep_input in;
static struct verdict2_result own;
static struct verdict2_rep_result out;

/* Two arms (baseline 0, candidate 1); own says `d` (chosen 1 on CHANGE). */
static void setup(size_t k, enum verdict2_decision d)
{
	memset(&in, 0, sizeof(in));
	memset(&own, 0, sizeof(own));
	in.k = k;
	in.n_arms = 2;
	in.baseline = 0;
	in.higher_better = true;
	own.n_arms = 2;
	own.baseline = 0;
	own.decision = d;
	own.chosen = d == VERDICT2_STOP_CHANGE ? 1 : d == VERDICT2_STOP_KEEP ? 0 : -1;
	own.arms[1].ni_shown = true;
}

static void set_run(size_t j, double mean_log, double se_log, double df)
{
	in.arm[j][1] = (struct verdict2_rep_arm){ .compared = true, .mean_log = mean_log,
		.se_log = se_log, .df = df, .n_trials = 10 };
	in.arm[j][0] = (struct verdict2_rep_arm){ .n_trials = 10 };
}

static void test_alpha_schedule(void **state)
{
	(void)state;
	assert_true(isnan(verdict2_rep_alpha(0.025, 0)));
	assert_float_equal(verdict2_rep_alpha(0.025, 1), 0.025, 1e-15);
	/* k >= 2: alpha 2^-(k + 3): the replications together spend at most alpha / 16 */
	assert_float_equal(verdict2_rep_alpha(0.025, 2), 0.025 / 32, 1e-15);
	assert_float_equal(verdict2_rep_alpha(0.025, 3), 0.025 / 64, 1e-15);
	{
		double sum = 0;

		for (size_t k = 2; k < 60; k++)
			sum += verdict2_rep_alpha(0.025, k);
		assert_true(sum <= 0.025 / 16 + 1e-15);
	}
}

static void test_first_run_passes_through(void **state)
{
	(void)state;
	setup(1, VERDICT2_STOP_CHANGE);
	set_run(0, 0.05, 0.01, 24);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(out.chosen, 1);
	assert_false(out.overrode);
	assert_float_equal(out.alpha_k, 0.025, 1e-15);
}

/* Runs 1 and 2 show nothing; run 3 alone crosses: pooled, it does not. */
static void test_lucky_run_does_not_survive(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_CHANGE);
	set_run(0, 0.0, 0.012, 24);
	set_run(1, -0.005, 0.012, 24);
	set_run(2, 0.045, 0.012, 24);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_int_equal(out.chosen, -1);
	assert_true(out.overrode);
	assert_int_equal(out.arms[1].n_runs, 3);
	assert_false(out.arms[1].crosses);
	assert_non_null(strstr(out.reason, "earlier runs count"));
	assert_float_equal(out.alpha_each, 0.025 / 64, 1e-15);
}

/* The same +10 % three times: the pooled test crosses. */
static void test_real_effect_repeated(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_INCONCLUSIVE);
	for (size_t j = 0; j < 3; j++)
		set_run(j, log(1.10), 0.02, 9);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(out.chosen, 1);
	assert_true(out.overrode);
	assert_float_equal(out.arms[1].pooled.effect_pct, 10.0, 1e-9);
	assert_true(out.arms[1].p_one < out.alpha_each);
	assert_true(out.arms[1].min_effect_confirmed);
	/* a minimum effect of 9 %: it crosses, but the lower bound does not clear 9 % */
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 9.0, &out, NULL), 0);
	assert_true(out.arms[1].crosses);
	assert_false(out.arms[1].min_effect_confirmed);
}

/* A candidate the latest run vetoes (a cost in harm, or OOM kills) is never chosen. */
static void test_own_veto_binds(void **state)
{
	static const struct { bool harm, oom_veto, not_shown; enum verdict2_decision want; } t[] = {
		{ true, false, false, VERDICT2_STOP_KEEP },
		{ false, true, false, VERDICT2_STOP_KEEP },
		{ false, false, true, VERDICT2_STOP_INCONCLUSIVE },
		{ false, false, false, VERDICT2_STOP_CHANGE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		setup(3, VERDICT2_STOP_INCONCLUSIVE);
		for (size_t j = 0; j < 3; j++)
			set_run(j, log(1.10), 0.02, 9);
		own.arms[1].guard_harm = t[i].harm;
		own.arms[1].oom_vetoed = t[i].oom_veto;
		own.arms[1].guard_not_shown = t[i].not_shown;
		assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
		assert_int_equal(out.decision, t[i].want);
	}
}

/* Precisely nothing, three times: KEEP even though the run alone ran out of looks. */
static void test_pooled_futility_keeps(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_INCONCLUSIVE);
	for (size_t j = 0; j < 3; j++)
		set_run(j, 0.001 * (double)j, 0.004, 24);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_true(out.arms[1].futile);
	assert_int_equal(out.decision, VERDICT2_STOP_KEEP);
	assert_int_equal(out.chosen, 0);
}

static void test_invalid_stays(void **state)
{
	(void)state;
	setup(2, VERDICT2_STOP_INVALID);
	set_run(0, log(1.2), 0.01, 9);
	set_run(1, log(1.2), 0.01, 9);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_INVALID);
	assert_false(out.overrode);
}

/* OOM counts are summed over the runs: 15 of 30 against 0 of 30. */
static void test_oom_counts_summed(void **state)
{
	(void)state;
	for (int ni = 0; ni < 2; ni++) {
		setup(3, VERDICT2_STOP_INCONCLUSIVE);
		for (size_t j = 0; j < 3; j++) {
			set_run(j, 0.0, 0.05, 4);
			in.arm[j][0].n_oom = 5;
		}
		own.arms[1].ni_shown = ni;
		assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
		assert_float_equal(out.arms[1].p_oom_base_worse, 155117520.0 / 53194089192720.0, 1e-12);
		assert_true(out.arms[1].oom_path);
		assert_int_equal(out.decision, ni ? VERDICT2_STOP_CHANGE : VERDICT2_STOP_INCONCLUSIVE);
	}
}

/* The DerSimonian-Laird arithmetic, without the small-df widening (df 0). */
static void test_pool_arithmetic(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_INCONCLUSIVE);
	set_run(0, 0.1, 0.1, 0);
	set_run(1, 0.3, sqrt(0.02), 0);
	set_run(2, 0.0, 0.2, 0);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_float_equal(out.arms[1].pooled.pool.tau2, 0.0, 1e-15);
	assert_float_equal(out.arms[1].pooled.pool.pooled, 25.0 / 175.0, 1e-12);
	assert_float_equal(out.arms[1].z, (25.0 / 175.0) / sqrt(1.0 / 175.0), 1e-9);
	assert_float_equal(out.arms[1].pooled.effect_pct, expm1(25.0 / 175.0) * 100, 1e-9);
	/* a small df widens a run's variance by (t / z)^2: the pooled z shrinks */
	set_run(0, 0.1, 0.1, 4);
	{
		double z0 = out.arms[1].z;

		assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
		assert_true(out.arms[1].z < z0);
	}
	/* lower-is-better: the sign convention of the effect stays "+ = better" */
	in.higher_better = false;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_float_equal(out.arms[1].pooled.effect_pct,
			   -expm1(-out.arms[1].pooled.pool.pooled) * 100, 1e-9);
}

static void test_errors(void **state)
{
	(void)state;
	setup(0, VERDICT2_STOP_KEEP);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), -EINVAL);
	setup(VERDICT2_REPS_MAX + 1, VERDICT2_STOP_KEEP);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), -EINVAL);
	setup(2, VERDICT2_STOP_KEEP);
	own.n_arms = 3;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), -EINVAL);
	setup(2, VERDICT2_STOP_KEEP);
	own.baseline = 1;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), -EINVAL);
	setup(2, VERDICT2_STOP_KEEP);
	assert_int_equal(verdict2_replicate(&in, &own, 0.6, 2.0, &out, NULL), -EINVAL);
	assert_int_equal(verdict2_replicate(NULL, &own, 0.025, 2.0, &out, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alpha_schedule),
		cmocka_unit_test(test_first_run_passes_through),
		cmocka_unit_test(test_lucky_run_does_not_survive),
		cmocka_unit_test(test_real_effect_repeated),
		cmocka_unit_test(test_own_veto_binds),
		cmocka_unit_test(test_pooled_futility_keeps),
		cmocka_unit_test(test_invalid_stays),
		cmocka_unit_test(test_oom_counts_summed),
		cmocka_unit_test(test_pool_arithmetic),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
