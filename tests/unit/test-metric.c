/*
 * test-metric.c - the probe's metric table (keys unique and unchanged, each
 * advisor cost fed by exactly one metric) and the one builder of the
 * advisor's input from a probe run's rows.
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

#include "swaptune/metric.h"

static void test_table(void **state)
{
	int fed[VERDICT_SEC_COUNT] = { 0 };

	(void)state;
	for (int m = 0; m < PM_COUNT; m++) {
		const struct metric_def *d = &metric_defs[m];

		assert_non_null(d->key);
		assert_non_null(d->row->label);
		assert_non_null(d->row->unit);
		assert_int_equal(metric_find(d->key), m);
		if (vocab_secondary_of(m) != METRIC_SEC_NONE) {
			assert_in_range(vocab_secondary_of(m), 0, VERDICT_SEC_COUNT - 1);
			fed[vocab_secondary_of(m)]++;
			/* the advisor's costs are all lower-is-better */
			assert_int_equal(d->row->direction, METRIC_LOWER_BETTER);
		}
	}
	for (int s = 0; s < VERDICT_SEC_COUNT; s++)
		assert_int_equal(fed[s], 1);
	/* stored keys never change: old databases must still load */
	assert_string_equal(metric_defs[PM_RA_WASTED].key, "swap_ra_wasted");
	assert_string_equal(metric_defs[PM_PSI_SOME_US].key, "psi_some_us");
	assert_string_equal(metric_defs[PM_THROUGHPUT].key, "throughput_ops");
	assert_int_equal(metric_find("wasted_ra"), -1);
	assert_int_equal(metric_find("psi.some_us"), -1);
}

/* The busy-host covariates of one stored trial, NAN where the row lacks them. */
static void test_cpu_covariates(void **state)
{
	struct store_metric m[] = {
		{ .key = "throughput_ops", .value = 1000 },
		{ .key = "cpu_pressure_pct", .value = 87.5 },
		{ .key = "cpu_share", .value = 0.31 },
	};
	struct store_probe_trial t = { .n_metrics = 3, .metrics = m };
	double pct, share;

	(void)state;
	metric_trial_cpu_covariates(&t, &pct, &share);
	assert_float_equal(pct, 87.5, 1e-12);
	assert_float_equal(share, 0.31, 1e-12);
	t.n_metrics = 1;		/* an older run: neither stored */
	metric_trial_cpu_covariates(&t, &pct, &share);
	assert_true(isnan(pct));
	assert_true(isnan(share));
	/* the stored keys of the covariates never change either */
	assert_int_equal(metric_find("cpu_pressure_pct"), PM_CPU_PRESSURE_PCT);
	assert_int_equal(metric_find("cpu_share"), PM_CPU_SHARE);
	assert_int_equal(metric_defs[PM_CPU_SHARE].row->direction, METRIC_NEUTRAL);
}

/*
 * The stored busy-host covariates reach the sequential verdict's per-round
 * fields, and a round whose trial ran under high host CPU pressure is
 * flagged busy by the verdict (its reasons name the round).
 */
static void test_busy_round_flagged(void **state)
{
	static struct verdict2_input in;
	static struct verdict2_result res;
	static const double base[] = { 100, 104, 98, 101, 97 };
	struct store_metric quiet[] = { { "cpu_pressure_pct", 1.5 }, { "cpu_share", 0.97 } },
			    busy[] = { { "cpu_pressure_pct", 64.0 }, { "cpu_share", 0.93 } };
	struct store_probe_trial t[10];
	struct store_probe_run run;
	struct verdict2_design d;
	unsigned looks[] = { 5 };
	bool named = false;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.n_arms = 2;
	run.arms[0].id = 11;
	snprintf(run.arms[0].name, sizeof(run.arms[0].name), "pc3");
	run.arms[1].id = 12;
	snprintf(run.arms[1].name, sizeof(run.arms[1].name), "pc0");
	for (int r = 0; r < 5; r++)
		for (int a = 0; a < 2; a++) {
			bool hot = r == 2 && a == 1;	/* round 3's pc0 trial ran under a CPU hog */

			t[2 * r + a] = (struct store_probe_trial){
				.id = 2 * r + a + 1, .arm_id = 11 + a, .round = r + 1, .seq = 2 * r + a + 1,
				.status = "ok", .have_primary = true, .primary = base[r] * (a ? 1.1 : 1.0),
				.n_metrics = 2, .metrics = hot ? busy : quiet };
		}
	run.trials = t;
	run.n_trials = 10;
	assert_int_equal(metric_verdict2_input(&run, &in), 0);
	assert_int_equal(in.n_rounds, 5);
	assert_float_equal(in.arms[1].cpu_pressure_pct[2], 64.0, 1e-12);
	assert_float_equal(in.arms[0].cpu_pressure_pct[2], 1.5, 1e-12);
	assert_float_equal(in.arms[1].cpu_share[2], 0.93, 1e-12);
	assert_true(isnan(in.arms[0].cpu_share[5]));	/* a round not run: unknown */
	in.metric = VERDICT_METRIC_THROUGHPUT;
	in.arms[0].is_baseline = true;
	assert_int_equal(verdict2_design_init(&d, looks, 1, 1, 0.025, NULL), 0);
	assert_int_equal(verdict2_look(&d, 0, &in, NULL, &res, NULL), 0);
	assert_int_equal(res.n_busy_rounds, 1);
	assert_int_equal(res.arms[1].n_busy, 1);
	for (size_t i = 0; i < res.n_reasons; i++)
		named |= strstr(res.reasons[i], "the host was busy") && strstr(res.reasons[i], "(3)");
	assert_true(named);
	/* the failure test's order: the stored page-cluster, read back through the registry's parser */
	{
		static const char *const stored[][2] = {
			{ "{\"page-cluster\":\"0\"}", "0" }, { "{\"page-cluster\":\"3\"}", "3" },
			{ "{\"page-cluster\":\"32\"}", "1000" },	/* out of the registry's range */
			{ "{\"page-cluster\":\"-1\"}", "1000" }, { "{\"page-cluster\":\"1x\"}", "1000" },
			{ "{\"page-cluster\":1}", "1000" },		/* not the stored spelling */
			{ "{\"zswap.enabled\":\"N\"}", "1000" }, { "not json", "1000" },
		};

		for (size_t i = 0; i < sizeof(stored) / sizeof(stored[0]); i++) {
			snprintf(run.arms[1].settings, sizeof(run.arms[1].settings), "%s", stored[i][0]);
			assert_int_equal(metric_verdict2_input(&run, &in), 0);
			if (in.arms[1].fail_order != atoi(stored[i][1]))
				fail_msg("%s: order %d, want %s", stored[i][0], in.arms[1].fail_order, stored[i][1]);
		}
	}
}

/*
 * The swap-out guardrail counts what left memory either way: a zswap arm's
 * zswpout against a zswap-off arm's pswpout (zswpout 0) compare, and
 * zswap's writebacks (in both counters) are counted once.
 */
static void test_swapout_cost(void **state)
{
	static struct verdict2_input in;
	struct store_metric zon[] = { { "zswpout", 30000 }, { "pswpout", 500 }, { "zswpwb", 400 } },
			    zoff[] = { { "zswpout", 0 }, { "pswpout", 29000 } };
	struct store_probe_trial t[2] = {
		{ .id = 1, .arm_id = 11, .round = 1, .seq = 1, .status = "ok", .have_primary = true,
		  .primary = 100, .n_metrics = 2, .metrics = zoff },
		{ .id = 2, .arm_id = 12, .round = 1, .seq = 2, .status = "ok", .have_primary = true,
		  .primary = 120, .n_metrics = 3, .metrics = zon },
	};
	struct store_probe_run run;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.n_arms = 2;
	run.arms[0].id = 11;
	snprintf(run.arms[0].name, sizeof(run.arms[0].name), "nozswap");
	run.arms[1].id = 12;
	snprintf(run.arms[1].name, sizeof(run.arms[1].name), "zswap");
	run.trials = t;
	run.n_trials = 2;
	assert_int_equal(metric_verdict2_input(&run, &in), 0);
	assert_true(in.arms[0].has_cost[VERDICT_SEC_ZSWPOUT_PAGES] && in.arms[1].has_cost[VERDICT_SEC_ZSWPOUT_PAGES]);
	assert_float_equal(in.arms[0].cost[VERDICT_SEC_ZSWPOUT_PAGES][0], 29000, 1e-9);
	assert_float_equal(in.arms[1].cost[VERDICT_SEC_ZSWPOUT_PAGES][0], 30000 + 500 - 400, 1e-9);
}

static void test_primary(void **state)
{
	struct verdict2_input in;

	(void)state;
	metric_verdict_primary("throughput_ops", false, &in);
	assert_int_equal(in.metric, VERDICT_METRIC_THROUGHPUT);
	assert_string_equal(in.metric_name, "throughput");
	metric_verdict_primary("wall_s", true, &in);
	assert_int_equal(in.metric, VERDICT_METRIC_WALL_TIME);
	assert_string_equal(in.metric_name, "wall time");
	metric_verdict_primary("metric", true, &in);
	assert_int_equal(in.metric, VERDICT_METRIC_HIGHER_BETTER);
	assert_string_equal(in.metric_name, "command metric");
	metric_verdict_primary("metric", false, &in);
	assert_int_equal(in.metric, VERDICT_METRIC_LOWER_BETTER);
}

/* The metric and its label without an input. */
static void test_primary_bare(void **state)
{
	const char *label = NULL;

	(void)state;
	assert_int_equal(metric_primary("throughput_ops", false, &label), VERDICT_METRIC_THROUGHPUT);
	assert_string_equal(label, "throughput");
	assert_int_equal(metric_primary("wall_s", true, &label), VERDICT_METRIC_WALL_TIME);
	assert_string_equal(label, "wall time");
	assert_int_equal(metric_primary("metric", true, &label), VERDICT_METRIC_HIGHER_BETTER);
	assert_string_equal(label, "command metric");
	assert_int_equal(metric_primary("no-such-key", false, &label), VERDICT_METRIC_LOWER_BETTER);
	assert_string_equal(label, "");
}

static void test_builder(void **state)
{
	static struct verdict2_input in;
	struct store_metric m0[] = {
		{ "zswpin", 10 }, { "wasted_ra", 99 }, { "swap_ra", 50 }, { "swap_ra_hit", 20 },
		{ "trial_s", 3 },
	}, m1[] = {
		{ "zswpin", 12 }, { "swap_ra_wasted", 7 }, { "swap_ra", 50 }, { "swap_ra_hit", 20 },
	}, m2[] = { { "zswpin", 1e9 } };
	struct store_probe_trial t[] = {
		{ .id = 1, .arm_id = 11, .round = 0, .seq = 1, .warmup = true, .status = "ok",
		  .have_primary = true, .primary = 1, .n_metrics = 1, .metrics = m2 },
		{ .id = 2, .arm_id = 11, .round = 1, .seq = 2, .status = "ok",
		  .have_primary = true, .primary = 100, .n_metrics = 5, .metrics = m0 },
		{ .id = 3, .arm_id = 12, .round = 1, .seq = 3, .status = "oom" },
		{ .id = 4, .arm_id = 11, .round = 2, .seq = 4, .status = "ok",
		  .have_primary = true, .primary = 110, .n_metrics = 4, .metrics = m1 },
		{ .id = 5, .arm_id = 12, .round = 2, .seq = 5, .status = "ok",
		  .have_primary = false },	/* no primary: a failed trial, never a speed */
		{ .id = 6, .arm_id = 12, .round = 3, .seq = 6, .status = "ok",
		  .have_primary = true, .primary = 120, .n_metrics = 1, .metrics = m2 },
		{ .id = 7, .arm_id = 11, .round = 3, .seq = 7, .status = "failed" },
		{ .id = 8, .arm_id = 11, .round = 4, .seq = 8, .status = "interrupted" },
	};
	struct store_probe_run run;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.n_arms = 2;
	run.arms[0].id = 11;
	snprintf(run.arms[0].name, sizeof(run.arms[0].name), "pc3");
	run.arms[1].id = 12;
	snprintf(run.arms[1].name, sizeof(run.arms[1].name), "pc0");
	run.trials = t;
	run.n_trials = sizeof(t) / sizeof(t[0]);
	assert_int_equal(metric_verdict2_input(&run, &in), 0);

	assert_int_equal(in.n_arms, 2);
	/* an interrupted trial is no round: the last round with an outcome is 3 */
	assert_int_equal(in.n_rounds, 3);
	assert_string_equal(in.arms[0].name, "pc3");
	assert_int_equal(in.arms[0].outcome[0], VERDICT_OUT_OK);
	assert_int_equal(in.arms[0].outcome[1], VERDICT_OUT_OK);
	assert_int_equal(in.arms[0].outcome[2], VERDICT_OUT_FAILED);
	assert_int_equal(in.arms[0].outcome[3], VERDICT_OUT_MISSING);
	assert_true(in.arms[0].primary[0] == 100 && in.arms[0].primary[1] == 110);
	assert_true(in.arms[0].has_cost[VERDICT_SEC_ZSWPIN_PAGES]);
	assert_true(in.arms[0].cost[VERDICT_SEC_ZSWPIN_PAGES][1] == 12);
	/* "wasted_ra" is no key of ours: the first trial falls back to swap_ra - swap_ra_hit */
	assert_true(in.arms[0].has_cost[VERDICT_SEC_WASTED_RA_PAGES]);
	assert_true(in.arms[0].cost[VERDICT_SEC_WASTED_RA_PAGES][0] == 30);
	assert_true(in.arms[0].cost[VERDICT_SEC_WASTED_RA_PAGES][1] == 7);
	assert_false(in.arms[0].has_cost[VERDICT_SEC_PSI_SOME_US]);

	assert_int_equal(in.arms[1].outcome[0], VERDICT_OUT_OOM);
	assert_int_equal(in.arms[1].outcome[1], VERDICT_OUT_FAILED);
	assert_int_equal(in.arms[1].outcome[2], VERDICT_OUT_OK);
	assert_true(in.arms[1].primary[2] == 120);
	assert_false(in.arms[1].has_cost[VERDICT_SEC_WASTED_RA_PAGES]);
	assert_true(in.arms[1].has_cost[VERDICT_SEC_ZSWPIN_PAGES]);
	assert_false(in.arms[0].is_baseline || in.arms[1].is_baseline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_cpu_covariates),
		cmocka_unit_test(test_busy_round_flagged),
		cmocka_unit_test(test_swapout_cost),
		cmocka_unit_test(test_primary),
		cmocka_unit_test(test_primary_bare),
		cmocka_unit_test(test_builder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
