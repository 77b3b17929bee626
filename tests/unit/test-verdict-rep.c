/*
 * test-verdict-rep.c - advisor/verdict-rep.c: the runs of a recipe as the
 * stages of one sequential design, one case per rule (the first run's
 * share, the stage bounds, k = 1 passes through, a lucky run does not
 * survive earlier null runs, a real effect repeated is a change though no
 * run alone showed it, aborted runs are stages with z = 0, the failure
 * endpoint on its own, a run's own veto binds (and a crossing its
 * guardrail holds back is named as such), pooled futility keeps, INVALID
 * stays, the per-run figures of a judged run, bad input).
 *
 * Where the expected values come from:
 *  [scipy] the stage bounds for one of one candidate (speed: a_first =
 *          0.59 x 2 %, a_cont = 0.59 x 0.5 %), with scipy 1.10's norm and
 *          multivariate_normal (Z_i = sum of i standard normals / sqrt i,
 *          corr(Z_i, Z_j) = sqrt(i / j)): c1 = norm.isf(0.0118) =
 *          2.2635793356; c2 solves P(Z1 < c1, Z2 >= c2) = a_cont / 2:
 *          2.782991; c3 solves P(Z1 < c1, Z2 < c2, Z3 >= c3) = a_cont / 4:
 *          2.95991 (Genz integration, +-0.003). One of two candidates
 *          (levels halved): c1 2.518070, c2 3.027508.
 *  [hand] Stouffer with equal weights: z = sum z_i / sqrt(k). p = 1e-4 gives
 *         z_i = 3.71901648545568; p = 0.02 gives 2.05374891063182.
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

/* Run j: candidate 1 with stagewise p and 20 contrasts of mean mean_log (+-0.01). */
static void set_run(size_t j, double p_stage, double mean_log)
{
	struct verdict2_rep_arm *a = &in.arm[j][1];

	*a = (struct verdict2_rep_arm){ .compared = true, .p_stage = p_stage, .p_fail_stage = NAN,
					.n = 20 };
	for (size_t r = 0; r < 20; r++)
		a->c[r] = mean_log + (r % 2 ? 0.01 : -0.01) * (double)(1 + r % 3);
	in.arm[j][0] = (struct verdict2_rep_arm){ .p_stage = NAN };
}

static void test_first_alpha_and_bounds(void **state)
{
	double c[VERDICT2_REPS_MAX], t[VERDICT2_REPS_MAX], cross[VERDICT2_REPS_MAX], sum = 0;

	(void)state;
	assert_close(verdict2_first_alpha(0.025), 0.02, 1e-15, "first run's share");
	assert_int_equal(verdict2_stage_bounds(3, 0.59 * 0.02, 0.59 * 0.005, c, NULL), 0);
	assert_close(c[0], 2.2635793356, 1e-8, "c1 [scipy]");
	assert_close(c[1], 2.782991, 2e-4, "c2 [scipy]");
	assert_close(c[2], 2.95991, 5e-3, "c3 [scipy]");
	assert_int_equal(verdict2_stage_bounds(2, 0.59 * 0.01, 0.59 * 0.0025, c, NULL), 0);
	assert_close(c[0], 2.518070, 1e-5, "c1 of one of two candidates [scipy]");
	assert_close(c[1], 3.027508, 2e-4, "c2 of one of two candidates [scipy]");
	/* over every stage the design spends at most a_first + a_cont */
	assert_int_equal(verdict2_stage_bounds(VERDICT2_REPS_MAX, 0.0118, 0.00295, c, NULL), 0);
	for (size_t j = 0; j < VERDICT2_REPS_MAX; j++)
		t[j] = (double)(j + 1) / VERDICT2_REPS_MAX;
	assert_int_equal(stats_gs_cross(t, c, VERDICT2_REPS_MAX, 0.0, cross, NULL), 0);
	for (size_t j = 0; j < VERDICT2_REPS_MAX; j++)
		sum += cross[j];
	assert_true(sum <= 0.0118 + 0.00295 + 1e-6);
	assert_true(sum >= 0.0118 + 0.00295 * (1 - 1.0 / 16384) - 1e-6);
	/* later stages need more, but far less than a fresh threshold at their share */
	for (size_t j = 1; j < VERDICT2_REPS_MAX; j++) {
		assert_true(c[j] > c[j - 1] || j == 1);
		assert_true(c[j] < stats_norm_quantile(1.0 - ldexp(0.00295, -(int)j)));
	}
	assert_int_equal(verdict2_stage_bounds(0, 0.01, 0.01, c, NULL), -EINVAL);
	assert_int_equal(verdict2_stage_bounds(VERDICT2_REPS_MAX + 1, 0.01, 0.01, c, NULL), -EINVAL);
	assert_int_equal(verdict2_stage_bounds(2, 0.0, 0.01, c, NULL), -EINVAL);
}

static void test_first_run_passes_through(void **state)
{
	(void)state;
	setup(1, VERDICT2_STOP_CHANGE);
	set_run(0, 1e-4, 0.05);
	in.arm[0][1].crossed = true;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_false(out.overrode);
	assert_close(out.alpha_k, 0.02, 1e-15, "stage 1 spends the first run's share");
}

static void test_lucky_run_does_not_survive(void **state)
{
	(void)state;
	setup(3, VERDICT2_STOP_CHANGE);
	set_run(0, 0.5, 0.0);
	set_run(1, 0.5, 0.0);
	set_run(2, 1e-4, 0.06);
	in.arm[2][1].crossed = true;	/* alone it would have changed */
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_close(out.arms[1].z, 3.71901648545568 / sqrt(3.0), 1e-9, "Stouffer z");
	assert_close(out.arms[1].bound, 2.95991, 5e-3, "stage 3's bound");
	assert_close(out.alpha_k, 0.005 / 4, 1e-15, "stage 3 spends a quarter of the rest");
	assert_int_equal(out.decision, VERDICT2_STOP_INCONCLUSIVE);
	assert_true(out.overrode);
	assert_non_null(strstr(out.reason, "earlier runs count"));
	assert_non_null(strstr(out.reason, "no change shown yet (stage 3"));
}

static void test_real_effect_repeated(void **state)
{
	(void)state;
	/* two runs with stagewise p 0.02 each: neither alone crosses its 1.18 % */
	setup(2, VERDICT2_STOP_INCONCLUSIVE);
	set_run(0, 0.02, 0.05);
	set_run(1, 0.02, 0.05);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	/* z_i = 2.0537: Z_2 = 2.904 >= 2.783, though each run alone (2.05 < 2.26) did not cross */
	assert_close(out.arms[1].z, 2.0 * 2.05374891063182 / sqrt(2.0), 1e-9, "Stouffer z");
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(out.path, VERDICT2_PATH_SPEED);
	assert_true(out.arms[1].crosses && out.arms[1].shown);
	assert_int_equal(out.arms[1].n, 40);
	assert_close(out.arms[1].effect_pct, expm1(0.05) * 100, 0.6, "pooled effect");
	assert_true(out.arms[1].ci_low_pct > 2.0 && out.arms[1].min_effect_confirmed);
	/* the same with a run aborted before its first look between them: a stage with z = 0 */
	setup(3, VERDICT2_STOP_INCONCLUSIVE);
	set_run(0, 0.02, 0.05);
	set_run(2, 0.02, 0.05);
	verdict2_rep_arm_of(NULL, NULL, 1, &in.arm[1][1]);
	verdict2_rep_arm_of(NULL, NULL, 0, &in.arm[1][0]);
	assert_true(in.arm[1][1].aborted);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_close(out.arms[1].z, 2.0 * 2.05374891063182 / sqrt(3.0), 1e-9, "aborted: z 0");
	assert_int_equal(out.decision, VERDICT2_STOP_INCONCLUSIVE);
	/* a gain below the minimum effect is shown, not changed to */
	setup(2, VERDICT2_STOP_INCONCLUSIVE);
	set_run(0, 0.001, 0.01);
	set_run(1, 0.001, 0.01);
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_true(out.arms[1].shown);
	assert_false(out.arms[1].crosses);
	assert_int_not_equal(out.decision, VERDICT2_STOP_CHANGE);
}

static void test_failures_pooled(void **state)
{
	(void)state;
	setup(2, VERDICT2_STOP_INCONCLUSIVE);
	for (size_t j = 0; j < 2; j++) {
		set_run(j, 0.5, 0.0);
		in.arm[j][1].fail_counted = true;
		in.arm[j][1].p_fail_stage = 1e-4;
	}
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_true(out.arms[1].fail_shown);
	assert_int_equal(out.decision, VERDICT2_STOP_CHANGE);
	assert_int_equal(out.path, VERDICT2_PATH_FAILURE);
	/* shown slower than the margin in the latest run: the harm veto binds */
	own.arms[1].worse_than_ni = true;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_int_not_equal(out.decision, VERDICT2_STOP_CHANGE);
	/*
	 * the first run alone showed it, the second contradicts it: the latest
	 * stage is what counts (a re-run guards against a difference of one
	 * period), and it does not cross
	 */
	setup(2, VERDICT2_STOP_INCONCLUSIVE);
	set_run(0, 0.5, 0.0);
	set_run(1, 0.5, 0.0);
	in.arm[0][1].fail_shown = true;
	in.arm[0][1].fail_counted = in.arm[1][1].fail_counted = true;
	in.arm[0][1].p_fail_stage = 0.005;
	in.arm[1][1].p_fail_stage = 0.6;
	assert_int_equal(verdict2_replicate(&in, &own, 0.025, 2.0, &out, NULL), 0);
	assert_false(out.arms[1].fail_shown);
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
	/* shown, and the guardrail holds it back: the reason says so, not "no change shown" */
	assert_true(out.arms[1].crosses);
	assert_non_null(strstr(out.reason, "is shown (stage 3"));
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
	assert_string_equal(out.reason, "over 2 runs of this recipe: not judged, this run itself is invalid");
	assert_false(out.overrode);
}

static void test_rep_arm_of_and_pool(void **state)
{
	static struct verdict2_input vin;
	struct verdict2_rep_arm x;
	double y[] = { 0.1, 0.3, 0.0 }, v[] = { 0.01, 0.02, 0.04 };
	struct verdict2_pooled p;

	(void)state;
	setup(1, VERDICT2_STOP_CHANGE);
	own.arms[1].compared = true;
	own.arms[1].crosses = true;
	own.arms[1].p_stage = 0.001;
	own.arms[1].disc_won = 3;
	own.arms[1].p_fail_stage = 0.125;
	verdict2_input_clear(&vin);
	vin.metric = VERDICT_METRIC_WALL_TIME;
	vin.n_arms = 2;
	vin.n_rounds = 4;
	vin.arms[0].is_baseline = true;
	for (size_t r = 0; r < 4; r++) {
		vin.arms[0].outcome[r] = r == 2 ? VERDICT_OUT_OOM : VERDICT_OUT_OK;
		vin.arms[1].outcome[r] = VERDICT_OUT_OK;
		vin.arms[0].primary[r] = 10.0;
		vin.arms[1].primary[r] = 8.0;
	}
	verdict2_rep_arm_of(&vin, &own, 1, &x);
	assert_true(x.compared && !x.aborted && x.fail_counted && x.crossed);
	assert_close(x.p_stage, 0.001, 0.0, "p");
	/* the rounds both completed, signed so that positive is better (lower wall time) */
	assert_int_equal(x.n, 3);
	assert_close(x.c[0], log(10.0 / 8.0), 1e-15, "contrast");
	verdict2_rep_arm_of(&vin, &own, 0, &x);
	assert_false(x.compared);
	assert_int_equal(x.n, 0);
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
		cmocka_unit_test(test_first_alpha_and_bounds),
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
