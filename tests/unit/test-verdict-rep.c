/*
 * test-verdict-rep.c - advisor/verdict-rep.c: the replication rule, one
 * case per rule (alpha per replication summing to at most alpha, k = 1
 * passes through, a lucky run does not survive earlier null runs, a real
 * effect repeated is a change, aborted runs count with z = 0, the failure
 * endpoint pooled on its own, a run's own veto binds (and a pooled crossing
 * its guardrail holds back is named as such), pooled futility
 * keeps, INVALID stays, the per-run figures of a judged run, bad input).
 *
 * Where the expected values come from:
 *  [hand] Stouffer with equal weights: z = sum z_i / sqrt(k). p = 1e-4 gives
 *         z_i = 3.71901648545568; three such runs z = 6.44152..., two null
 *         runs (p = 0.5, z = 0) and one such run z = 2.14717..., p 0.0159.
 *         alpha_k for alpha 0.025: k = 1 0.0234375, k = 2 0.025/32,
 *         k = 3 0.025/64; alpha_each = (1 - VERDICT2_FAIL_SHARE) alpha_k (two arms).
 *  [hand] DerSimonian-Laird: y = (.1, .3, 0), v = (.01, .02, .04): Q =
 *         1.928571 < 2 so tau2 = 0, pooled = 25/175.
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

static void assert_close(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.12g, want %.12g (abs tol %g)", what, got, want, tol);
}

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
}

/* Run j: candidate 1 with stagewise p, estimate mean_log (se 0.02), weight sqrt(40). */
static void set_run(size_t j, double p_stage, double mean_log)
{
	in.arm[j][1] = (struct verdict2_rep_arm){ .compared = true, .weight = sqrt(40.0),
		.p_stage = p_stage, .mean_log = mean_log, .se_log = 0.02, .p_fail_stage = NAN };
	in.arm[j][0] = (struct verdict2_rep_arm){ .weight = sqrt(40.0) };
}

static void test_alpha_schedule(void **state)
{
	double sum = 0;

	(void)state;
	assert_close(verdict2_rep_alpha(0.025, 1), 0.0234375, 1e-15, "first run");
	assert_close(verdict2_rep_alpha(0.025, 2), 0.025 / 32, 1e-15, "second run");
	assert_close(verdict2_rep_alpha(0.025, 3), 0.025 / 64, 1e-15, "third run");
	for (size_t k = 1; k <= 60; k++)
		sum += verdict2_rep_alpha(0.025, k);
	assert_true(sum <= 0.025);
	assert_true(isnan(verdict2_rep_alpha(0.025, 0)));
}

static void test_first_run_passes_through(void **state)
{
	(void)state;
	setup(1, VERDICT2_STOP_CHANGE);
	set_run(0, 1e-4, 0.05);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_false(out.overrode);
	assert_close(out.alpha_k, 0.0234375, 1e-15, "alpha_1");
}

static void test_lucky_run_does_not_survive(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_CHANGE);
	set_run(0, 0.5, 0.0);
	set_run(1, 0.5, 0.0);
	set_run(2, 1e-4, 0.06);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_close(out.arms[1].z, 3.71901648545568 / sqrt(3.0), 1e-9, "Stouffer z");
	assert_close(out.alpha_each, (1.0 - VERDICT2_FAIL_SHARE) * 0.025 / 64, 1e-15, "speed share of run 3");
	assert_int_equal(out.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_true(out.overrode);
	assert_non_null(strstr(out.reason, "earlier runs count"));
	assert_non_null(strstr(out.reason, "no change shown at the bound for run 3"));
}

static void test_real_effect_repeated(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_CHANGE);
	for (size_t j = 0; j < 3; j++)
		set_run(j, 1e-4, 0.05);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_close(out.arms[1].z, 3.71901648545568 * sqrt(3.0), 1e-9, "Stouffer z");
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(out.path, VERDICT2_PATH_SPEED);
	assert_true(out.arms[1].crosses);
	assert_close(out.arms[1].pooled.effect_pct, expm1(0.05) * 100, 1e-9, "pooled effect");
	/* the same with a run aborted before its first look: z = 0, its weight counts */
	setup(4, VERDICT2_STOP_CHANGE);
	for (size_t j = 0; j < 3; j++)
		set_run(j, 1e-4, 0.05);
	verdict2_rep_arm_of(NULL, 1, 40, &in.arm[3][1]);
	verdict2_rep_arm_of(NULL, 0, 40, &in.arm[3][0]);
	assert_true(in.arm[3][1].aborted);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_close(out.arms[1].z, 3.71901648545568 * 3.0 / 2.0, 1e-9, "aborted run: z 0, weight 1");
	assert_close(out.alpha_k, 0.025 / 128, 1e-15, "it took a share");
}

static void test_failures_pooled(void **state)
{
	(void)state;
	setup(2, VERDICT2_STOP_INCONCLUSIVE);
	for (size_t j = 0; j < 2; j++) {
		set_run(j, 0.5, 0.0);
		in.arm[j][1].fail_counted = true;
		in.arm[j][1].p_fail_stage = 1e-5;
	}
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_true(out.arms[1].fail_shown);
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(out.path, VERDICT2_PATH_FAILURE);
	/* shown slower than the margin in the latest run: the harm veto binds */
	own.arms[1].worse_than_ni = true;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_not_equal(out.decision, VERDICT2_STOP_CHANGE);
}

static void test_own_veto_binds(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_KEEP);
	for (size_t j = 0; j < 3; j++)
		set_run(j, 1e-4, 0.05);
	own.arms[1].guard_harm = true;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_KEEP);
	own.arms[1].guard_harm = false;
	own.arms[1].oom_vetoed = true;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_not_equal(out.decision, VERDICT2_STOP_CHANGE);
	own.arms[1].oom_vetoed = false;
	own.arms[1].guard_not_shown = true;
	own.decision = VERDICT2_STOP_INCONCLUSIVE;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_INCONCLUSIVE);
	/* the pool crosses and the guardrail holds it back: the reason says so, not "no change shown" */
	assert_true(out.arms[1].crosses);
	assert_non_null(strstr(out.reason, "crosses the bound for run 3"));
	assert_non_null(strstr(out.reason, "guardrail"));
	assert_null(strstr(out.reason, "no change shown"));
}

static void test_pooled_futility_keeps(void **state)
{
	(void)state;
	setup(2, VERDICT2_STOP_INCONCLUSIVE);
	set_run(0, 0.8, -0.02);
	set_run(1, 0.7, -0.015);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_true(out.arms[1].futile);
	assert_int_equal(out.decision, VERDICT2_STOP_KEEP);
}

static void test_invalid_stays(void **state)
{
	(void)state;
	setup(2, VERDICT2_STOP_INVALID);
	set_run(0, 1e-4, 0.05);
	set_run(1, 1e-4, 0.05);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_INVALID);
	/* said, not left empty (recommend printed a blank first reason) */
	assert_string_equal(out.reason, "pooled over 2 runs of this recipe: not judged, this run itself is invalid");
	assert_false(out.overrode);
}

static void test_rep_arm_of_and_pool(void **state)
{
	struct verdict2_rep_arm x;
	double y[] = { 0.1, 0.3, 0.0 }, v[] = { 0.01, 0.02, 0.04 };
	struct verdict2_pooled p;

	(void)state;
	setup(1, VERDICT2_STOP_CHANGE);
	own.arms[1].compared = true;
	own.arms[1].p_stage = 0.001;
	own.arms[1].mean_log = 0.04;
	own.arms[1].se_log = 0.01;
	own.arms[1].disc_won = 3;
	own.arms[1].p_fail_stage = 0.125;
	verdict2_rep_arm_of(&own, 1, 25, &x);
	assert_true(x.compared && !x.aborted && x.fail_counted);
	assert_close(x.weight, 5.0, 1e-15, "weight by planned rounds");
	assert_close(x.p_stage, 0.001, 0.0, "p");
	verdict2_rep_arm_of(&own, 0, 25, &x);
	assert_false(x.compared);
	assert_int_equal(verdict2_pool_runs(y, v, 3, &p, NULL), 0);
	assert_close(p.pool.pooled, 25.0 / 175.0, 1e-12, "fixed-effect mean");
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
	assert_int_equal(verdict2_replicate(&in, &own, 0.6, 2.0, &out, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alpha_schedule),
		cmocka_unit_test(test_first_run_passes_through),
		cmocka_unit_test(test_lucky_run_does_not_survive),
		cmocka_unit_test(test_real_effect_repeated),
		cmocka_unit_test(test_failures_pooled),
		cmocka_unit_test(test_own_veto_binds),
		cmocka_unit_test(test_pooled_futility_keeps),
		cmocka_unit_test(test_invalid_stays),
		cmocka_unit_test(test_rep_arm_of_and_pool),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
