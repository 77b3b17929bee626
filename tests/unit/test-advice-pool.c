/*
 * test-advice-pool.c - advice_verify_result() in src/advice-pool.c: verify's
 * answer from the re-run's own arm status and, when earlier runs of the
 * recipe were pooled, the pooled comparison. One row per rule; in
 * particular a gain vetoed by a cost in the re-run never holds, pooled or
 * not. (advice_judge_pooled() on a store: tests/t0311.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/advice.h"

enum pooled { NONE, CROSSES, CROSSES_BELOW_MIN, WEAKER, FUTILE, NOISY };

static void test_verify_result(void **state)
{
	static const struct {
		enum verdict_arm_status alone;
		enum pooled pooled;
		const char *want;
		bool holds;
	} t[] = {
		{ VERDICT_ARM_BETTER, NONE, "holds", true },
		{ VERDICT_ARM_COMPLETED, NONE, "holds", true },
		{ VERDICT_ARM_VETOED, NONE, "vetoed", false },
		{ VERDICT_ARM_VETOED, CROSSES, "vetoed", false },	/* pooled or not */
		{ VERDICT_ARM_BELOW_MIN, NONE, "weaker", false },
		{ VERDICT_ARM_NO_GAIN, NONE, "gone", false },
		{ VERDICT_ARM_EQUIVALENT, NONE, "gone", false },
		{ VERDICT_ARM_WORSE, NONE, "reversed", false },
		{ VERDICT_ARM_WORSE, CROSSES, "reversed", false },
		{ VERDICT_ARM_OOM_FAILED, CROSSES, "oom", false },
		{ VERDICT_ARM_NOISY, NONE, "inconclusive", false },
		{ VERDICT_ARM_TOO_FEW, NONE, "inconclusive", false },
		/* pooled with the original run and earlier verifies */
		{ VERDICT_ARM_NOISY, CROSSES, "holds", true },
		{ VERDICT_ARM_BETTER, NOISY, "inconclusive", false },	/* a lucky re-run alone */
		{ VERDICT_ARM_BETTER, WEAKER, "weaker", false },
		/* crosses, but the lower bound does not reach the minimum effect */
		{ VERDICT_ARM_BELOW_MIN, CROSSES_BELOW_MIN, "weaker", false },
		{ VERDICT_ARM_NOISY, FUTILE, "gone", false },
	};
	static struct verdict_result v;
	static struct advice_pool p;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct verdict2_rep_arm_result *a = &p.rep.arms[1];
		bool holds = !t[i].holds;
		const char *got;

		memset(&v, 0, sizeof(v));
		memset(&p, 0, sizeof(p));
		v.n_arms = 2;
		v.arms[1].status = t[i].alone;
		p.applied = t[i].pooled != NONE;
		/* shown: a stage crossed, whether or not the estimate reached the minimum effect */
		a->shown = t[i].pooled == CROSSES || t[i].pooled == CROSSES_BELOW_MIN ||
			   t[i].pooled == WEAKER;
		a->crosses = t[i].pooled == CROSSES || t[i].pooled == CROSSES_BELOW_MIN;
		a->min_effect_confirmed = t[i].pooled == CROSSES;
		a->futile = t[i].pooled == FUTILE;
		got = advice_verify_result(&v, &p, 1, &holds);
		if (strcmp(got, t[i].want) || holds != t[i].holds)
			fail_msg("row %zu: got %s/%d, want %s/%d", i, got, holds, t[i].want, t[i].holds);
	}
	assert_string_equal(advice_verify_result(&v, &p, -1, &(bool){ true }), "no-arm");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
