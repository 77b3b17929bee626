/*
 * test-probe-budget.c - the probe's time budget (src/probe-budget.c) on a
 * hand-made engine state: expected trial and round times from the trials
 * seen, the ceiling, the rounds that fit and the plan cut to them, the
 * refusal (exit 2, naming the --max-time it needs), --allow-short, the
 * question's "raise the budget", and the administrative final look.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../src/probe-int.h"

struct fixture {
	struct probe_config c;
	struct probe_plan p;
	struct probe_result r;
	struct engine E;
};

/* Three arms, the default plan, a budget of max_s of which used_s are gone. */
static struct fixture *fixture(double max_s, double used_s)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct st_err e = {0};

	assert_non_null(f);
	probe_config_init(&f->c);
	assert_int_equal(probe_arms_parse_list("pc3,pc1,pc0", f->c.arms, PROBE_ARMS_MAX, &f->c.narms, &e), 0);
	f->c.max_time_s = max_s;
	f->E.c = &f->c;
	f->E.p = &f->p;
	f->E.r = &f->r;
	f->E.plan0 = f->c.plan;
	f->E.start_s = probe_now_s() - used_s;
	return f;
}

/* A finished trial of arm that took s seconds. */
static void trial(struct fixture *f, int arm, bool warmup, enum probe_trial_status st, double s)
{
	struct probe_trial t = { .arm = arm, .warmup = warmup, .status = st, .duration_s = s };

	probe_budget_trial_end(&f->E, &t);
}

/* The warm-up's first estimates: rescaled trials; a killed one at least the completed ones' mean. */
static void test_warmup_estimates(void **state)
{
	struct fixture *f = fixture(180, 0);
	struct probe_trial t[] = {
		{ .arm = 0, .warmup = true, .status = PROBE_TRIAL_OOM, .duration_s = 2.4 },
		{ .arm = 1, .warmup = true, .status = PROBE_TRIAL_OK, .duration_s = 5.5 },
		{ .arm = 2, .warmup = true, .status = PROBE_TRIAL_OK, .duration_s = 5.9 },
		{ .arm = 1, .warmup = false, .status = PROBE_TRIAL_OK, .duration_s = 50 },	/* not warm-up */
	};

	(void)state;
	t[1].have[PM_ELAPSED_S] = true;
	t[1].v[PM_ELAPSED_S] = 3.0;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(probe_trials_push(&f->r, &t[i]), 0);
	/* as measured: the killed arm at the completed ones' mean (5.7 s), not its 2.4 s */
	probe_budget_warmup(&f->E, 1.0);
	assert_float_equal(f->E.warm_est_s[1], 5.5, 1e-9);
	assert_float_equal(f->E.warm_est_s[2], 5.9, 1e-9);
	assert_float_equal(f->E.warm_est_s[0], 5.7, 1e-9);
	assert_float_equal(probe_budget_round_s(&f->E), 17.1, 1e-9);
	/* rescaled to twice the accesses: the measured phase (3 s) twice as long */
	probe_budget_warmup(&f->E, 2.0);
	assert_float_equal(f->E.warm_est_s[1], 8.5, 1e-9);
	assert_float_equal(f->E.warm_est_s[0], (8.5 + 5.9) / 2, 1e-9);
	/* a killed trial longer than the others stays at its own length; every arm killed: as measured */
	f->r.trials[0].duration_s = 9;
	probe_budget_warmup(&f->E, 1.0);
	assert_float_equal(f->E.warm_est_s[0], 9, 1e-9);
	f->r.trials[1].status = f->r.trials[2].status = PROBE_TRIAL_OOM;
	f->r.trials[0].duration_s = 2.4;
	probe_budget_warmup(&f->E, 1.0);
	assert_float_equal(f->E.warm_est_s[0], 2.4, 1e-9);
	free(f->r.trials);
	free(f);
}

static void test_expected_times(void **state)
{
	struct fixture *f = fixture(180, 0);

	(void)state;
	/* nothing seen: the plan's guess */
	f->p.est_trial_s = 4;
	assert_float_equal(probe_budget_trial_s(&f->E, 0), 4, 1e-9);
	/* the warm-up's rescaled trials, then the arm's own measured ones */
	f->E.warm_est_s[0] = 10;
	f->E.warm_est_s[1] = 6;
	assert_float_equal(probe_budget_trial_s(&f->E, 0), 10, 1e-9);
	assert_float_equal(probe_budget_trial_s(&f->E, 2), 8, 1e-9);	/* unseen: the others' mean */
	trial(f, 0, false, PROBE_TRIAL_OK, 12);
	trial(f, 0, false, PROBE_TRIAL_OOM, 4);		/* OOM-killed: at its own length */
	trial(f, 0, false, PROBE_TRIAL_INTERRUPTED, 1);	/* says nothing */
	trial(f, 1, true, PROBE_TRIAL_OK, 100);		/* a warm-up is not a measured trial */
	assert_float_equal(probe_budget_trial_s(&f->E, 0), 8, 1e-9);
	assert_float_equal(probe_budget_trial_s(&f->E, 1), 6, 1e-9);
	assert_float_equal(probe_budget_round_s(&f->E), 8 + 6 + 7, 1e-9);
	/* the ceiling, with the teardown kept */
	f->E.setup_s = 2;
	assert_true(probe_budget_fits(&f->E, 170));
	assert_false(probe_budget_fits(&f->E, 179));
	f->c.max_time_s = 0;
	assert_true(probe_budget_fits(&f->E, 1e9));
	free(f);
}

/* 180 s, 30 s used, a round of 3 x 10 s: 4 rounds fit, the first look needs 5. */
static struct fixture *short_budget(void)
{
	struct fixture *f = fixture(180, 30);

	for (int i = 0; i < 3; i++)
		f->E.warm_est_s[i] = 10;
	f->E.setup_s = 1;
	return f;
}

static void test_refused(void **state)
{
	struct fixture *f = short_budget();
	struct st_err e = {0};

	(void)state;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), -ETIME);
	assert_int_equal(err_exit_status(&e), ST_EXIT_USAGE);
	assert_true(f->r.budget.refused);
	assert_int_equal(f->r.budget.rounds_fit, 4);
	assert_int_equal(f->r.budget.first_look, 5);
	/* 30 used + 5 rounds x 30 + 1 teardown = 181 s; +10 % = 199 s: 4 minutes */
	assert_float_equal(f->r.budget.need_s, 181, 0.5);
	assert_float_equal(f->r.budget.suggest_s, 240, 1e-9);
	assert_non_null(strstr(e.msg, "3 min fits 4 rounds; the first look needs 5 rounds"));
	assert_non_null(strstr(e.msg, "(--max-time 4m)"));
	assert_non_null(strstr(e.msg, "--allow-short"));
	free(f);
}

static void test_allow_short(void **state)
{
	struct fixture *f = short_budget();
	struct st_err e = {0};

	(void)state;
	f->c.short_policy = PROBE_SHORT_ALLOW;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), 0);
	assert_true(f->r.budget.short_run);
	assert_int_equal(f->c.plan.n_looks, 1);
	assert_int_equal(f->c.plan.looks[0], 4);
	assert_non_null(strstr(f->r.budget.text, "a short run, judged once at round 4"));
	/* not even two rounds: refused though allowed */
	free(f);
	f = fixture(60, 30);
	for (int i = 0; i < 3; i++)
		f->E.warm_est_s[i] = 10;
	f->c.short_policy = PROBE_SHORT_ALLOW;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), -ETIME);
	assert_true(f->r.budget.refused);
	free(f);
}

static enum probe_short_answer say_extend(const struct probe_budget *b, void *arg)
{
	int *asked = arg;

	(void)b;
	(*asked)++;
	return PROBE_SHORT_EXTEND;
}

static struct probe_progress seen;

static void seen_progress(const struct probe_progress *pr, void *arg)
{
	*(struct probe_progress *)arg = *pr;
}

static void test_ask_extend(void **state)
{
	struct fixture *f = short_budget();
	struct st_err e = {0};
	int asked = 0;

	(void)state;
	f->c.short_policy = PROBE_SHORT_ASK;
	f->c.short_ask = say_extend;
	f->c.short_arg = &asked;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), 0);
	assert_int_equal(asked, 1);
	assert_true(f->r.budget.extended);
	assert_float_equal(f->c.max_time_s, 240, 1e-9);
	/*
	 * 240 - 30 - 1 = 209 s: 6 rounds; the plan is cut at the next look
	 * after them (10), not at 6: rounds go on while one fits, and the
	 * ceiling's administrative look takes the final one
	 */
	assert_int_equal(f->r.budget.rounds_fit, 6);
	assert_int_equal(f->c.plan.n_looks, 2);
	assert_int_equal(f->c.plan.looks[1], 10);
	assert_non_null(strstr(f->r.budget.text, "4 min fits 6 rounds"));
	assert_non_null(strstr(f->r.budget.text, "looks kept at rounds 5, 10: rounds go on while another "
			       "fits, and the last complete one takes the final look"));
	/* the progress shows the 6 rounds expected, then the one running beyond them */
	f->c.reps = 10;
	f->E.planned_trials = 30;
	f->c.progress = seen_progress;
	f->c.progress_arg = &seen;
	probe_report(&f->E, PROBE_PHASE_TRIAL, "pc3", 1, NULL);
	assert_int_equal(seen.rounds, 6);
	assert_int_equal(seen.trials, 18);
	probe_report(&f->E, PROBE_PHASE_TRIAL, "pc3", 7, NULL);
	assert_int_equal(seen.rounds, 7);
	assert_int_equal(seen.trials, 21);
	free(f);
}

/* A failed warm-up and kept looks short of what the failure test needs: the plan says so. */
static void test_fail_rounds(void **state)
{
	struct probe_trial warm[3] = {
		{ .arm = 0, .warmup = true, .status = PROBE_TRIAL_OOM },
		{ .arm = 1, .warmup = true, .status = PROBE_TRIAL_OK },
		{ .arm = 2, .warmup = true, .status = PROBE_TRIAL_OK },
	};
	struct fixture *f = short_budget();
	struct st_err e = {0};

	(void)state;
	f->c.max_time_s = 240;	/* 240 - 30 - 1 = 209 s: 6 rounds of 30 s */
	f->r.trials = warm;
	f->r.ntrials = 3;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), 0);
	assert_int_equal(f->r.budget.rounds_fit, 6);
	/* 2^-7 <= the failure share of a first run's alpha < 2^-6 */
	assert_int_equal(f->r.budget.fail_rounds, 7);
	assert_non_null(strstr(f->r.budget.text, "the warm-up of pc3 failed, and failures alone show an arm "
			       "failing more often only after 7 rounds where one of the two failed (6 when the "
			       "other is also faster where both completed): about 4 min 1 s (--max-time 6m)"));
	/* a warm-up that completed everywhere: no such sentence */
	warm[0].status = PROBE_TRIAL_OK;
	f->c.max_time_s = 240;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), 0);
	assert_null(strstr(f->r.budget.text, "warm-up of"));
	/* 7 rounds fit: the failure test can answer, nothing said */
	warm[0].status = PROBE_TRIAL_OOM;
	f->c.max_time_s = 270;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), 0);
	assert_int_equal(f->r.budget.rounds_fit, 7);
	assert_null(strstr(f->r.budget.text, "warm-up of"));
	f->r.trials = NULL;
	free(f);
}

static void test_fits(void **state)
{
	struct fixture *f = fixture(600, 20);
	struct st_err e = {0};

	(void)state;
	for (int i = 0; i < 3; i++)
		f->E.warm_est_s[i] = 2;
	assert_int_equal(probe_budget_plan(&f->E, 0, &e), 0);
	assert_false(f->r.budget.short_run);
	assert_int_equal(f->c.plan.n_looks, 6);	/* every look fits: nothing cut */
	assert_non_null(strstr(f->r.budget.text, "10 min fits every round of the plan"));
	/* the design's power, stated at two variations: more variation, a larger gain */
	assert_true(isfinite(f->r.budget.effect80_pct[0]) && f->r.budget.effect80_pct[0] > 0);
	assert_true(f->r.budget.effect80_pct[1] > f->r.budget.effect80_pct[0]);
	assert_non_null(strstr(f->r.budget.text, "with 80 % power it finds a gain of"));
	free(f);
}

static void test_admin_stop(void **state)
{
	struct fixture *f = fixture(180, 170);
	cJSON *j;

	(void)state;
	/* looks at 5 and 10 taken; time ran out with 12 rounds complete and the 13th begun */
	assert_true(probe_budget_admin_stop(&f->E, 12, 2, true));
	assert_int_equal(f->c.plan.n_looks, 3);
	assert_int_equal(f->c.plan.looks[2], 12);
	assert_non_null(strstr(f->r.budget.stop_text, "administrative final look at round 12"));
	assert_non_null(strstr(f->r.budget.stop_text, "looks taken at rounds 5, 10)"));
	j = probe_budget_json(&f->r.budget);
	f->r.budget.known = true;
	cJSON_Delete(j);
	j = probe_budget_json(&f->r.budget);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "administrative_look"), "round")->valueint, 12);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "administrative_look"),
						     "incomplete_round_dropped")));
	cJSON_Delete(j);
	assert_null(strstr(f->r.budget.stop_text, "judged again"));
	/* time ran out right after the look at round 10 was taken: that look becomes the last */
	free(f);
	f = fixture(180, 170);
	assert_true(probe_budget_admin_stop(&f->E, 10, 2, false));
	assert_int_equal(f->c.plan.n_looks, 2);
	assert_int_equal(f->c.plan.looks[1], 10);
	assert_non_null(strstr(f->r.budget.stop_text, "final look at round 10, the look taken there judged "
			       "again as the last"));
	/* one round: nothing to judge, the plan is left alone */
	free(f);
	f = fixture(180, 170);
	assert_false(probe_budget_admin_stop(&f->E, 1, 0, false));
	assert_int_equal(f->c.plan.n_looks, 6);
	/* and it says so: no "final look" that is not taken (t0207 saw one on a loaded host) */
	assert_null(strstr(f->r.budget.stop_text, "final look"));
	assert_non_null(strstr(f->r.budget.stop_text, "after 1 complete round: too few to judge (a look needs 2 rounds), no verdict"));
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expected_times),
		cmocka_unit_test(test_warmup_estimates),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_allow_short),
		cmocka_unit_test(test_ask_extend),
		cmocka_unit_test(test_fail_rounds),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_admin_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
