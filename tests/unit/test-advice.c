/*
 * test-advice.c - the glue of src/advice.c: stored probe runs (inserted into
 * a scratch store the way the probe engine writes them) become exactly the
 * sequential verdict's input (warm-up, OOM and failed trials sorted out,
 * secondary costs only when every trial has them, the metric's direction,
 * the baseline from each of its sources); host facts of the vm-v1 fixture
 * become the rules' input; and arm settings JSON is parsed. (The settings
 * diff moved with the change workflow: tests/unit/test-change.c.)
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "../../src/store-int.h"

#include "swaptune/advice.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char dir[PATH_MAX], dbpath[PATH_MAX + 16];
static struct host h;
static struct store st;

static int setup(void **state)
{
	(void)state;
	return fx_open_copy_with_store("vm-v1", dir, dbpath, &h, &st);
}

static int teardown(void **state)
{
	(void)state;
	fx_close_copy_with_store(dir, &h, &st);
	return 0;
}

static int64_t add_run(const char *kind, const char *status, const char *params,
		       const char *summary)
{
	sqlite3_stmt *s;
	struct st_err e = {0};

	assert_int_equal(store_prepare(&st, "INSERT INTO runs (kind, status, params, summary)"
				       " VALUES (?1, ?2, ?3, ?4)", &s, &e), 0);
	sqlite3_bind_text(s, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
	if (params)
		sqlite3_bind_text(s, 3, params, -1, SQLITE_STATIC);
	if (summary)
		sqlite3_bind_text(s, 4, summary, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	return sqlite3_last_insert_rowid(st.db);
}

static int64_t add_arm(int64_t run, const char *name, const char *settings, int emulated)
{
	sqlite3_stmt *s;
	struct st_err e = {0};

	assert_int_equal(store_prepare(&st, "INSERT INTO arms (run_id, name, settings, emulated)"
				       " VALUES (?1, ?2, ?3, ?4)", &s, &e), 0);
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, settings, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, emulated);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	return sqlite3_last_insert_rowid(st.db);
}

static int64_t add_trial(int64_t run, int64_t arm, int round, int seq, int warmup,
			 const char *status, double primary)
{
	sqlite3_stmt *s;
	struct st_err e = {0};

	assert_int_equal(store_prepare(&st, "INSERT INTO trials (run_id, arm_id, round, seq, warmup,"
				       " status, primary_value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
				       &s, &e), 0);
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_int64(s, 2, arm);
	sqlite3_bind_int(s, 3, round);
	sqlite3_bind_int(s, 4, seq);
	sqlite3_bind_int(s, 5, warmup);
	sqlite3_bind_text(s, 6, status, -1, SQLITE_STATIC);
	if (!isnan(primary))
		sqlite3_bind_double(s, 7, primary);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	return sqlite3_last_insert_rowid(st.db);
}

static void add_metric(int64_t trial, const char *key, double v)
{
	sqlite3_stmt *s;
	struct st_err e = {0};

	assert_int_equal(store_prepare(&st, "INSERT INTO metrics (trial_id, key, value) VALUES (?1, ?2, ?3)",
				       &s, &e), 0);
	sqlite3_bind_int64(s, 1, trial);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 3, v);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
}

#define SUMMARY_TP "{\"primary_metric\":{\"key\":\"throughput_ops\",\"name\":\"throughput\",\"higher_is_better\":true}}"

/*
 * A run of three arms in the engine's shape: warm-up round 0, then rounds
 * 1..4 in shuffled order. pc0 was OOM-killed once and had one failed trial;
 * pc1 lacks cpu_ns_per_op in one trial (so that cost is dropped for it).
 */
static int64_t typical_run(const char *params, const char *summary)
{
	int64_t run = add_run("probe", "ok", params, summary);
	int64_t a3 = add_arm(run, "pc3", "{\"page-cluster\":\"3\"}", 0);
	int64_t a1 = add_arm(run, "pc1", "{\"page-cluster\":\"1\"}", 0);
	int64_t a0 = add_arm(run, "pc0", "{\"page-cluster\":\"0\"}", 1);
	static const double v3[] = { 1000, 1010, 990, 1005 }, v1[] = { 1100, 1120, 1090, 1110 };
	static const double v0[] = { 1200, 1210, 1190 };
	int seq = 1;
	int64_t t;

	t = add_trial(run, a3, 0, seq++, 1, "ok", 900);
	add_metric(t, "zswpout", 1);
	add_trial(run, a1, 0, seq++, 1, "ok", 901);
	add_trial(run, a0, 0, seq++, 1, "ok", 902);
	for (int r = 1; r <= 4; r++) {
		t = add_trial(run, a1, r, seq++, 0, "ok", v1[r - 1]);
		add_metric(t, "zswpout", 5000 + r);
		if (r != 2)
			add_metric(t, "cpu_ns_per_op", 70 + r);
		t = add_trial(run, a3, r, seq++, 0, "ok", v3[r - 1]);
		add_metric(t, "zswpout", 4000 + r);
		add_metric(t, "cpu_ns_per_op", 60 + r);
		add_metric(t, "swap_ra", 100 * r);
		add_metric(t, "swap_ra_hit", 10 * r);
		add_metric(t, "swap_ra_wasted", 90 * r);
		add_metric(t, "pgmajfault", 7 * r);
		add_metric(t, "psi_some_us", 1000 * r);
		if (r == 2) {
			add_trial(run, a0, r, seq++, 0, "oom", NAN);
		} else if (r == 3) {
			add_trial(run, a0, r, seq++, 0, "failed", NAN);
		} else {
			t = add_trial(run, a0, r, seq++, 0, "ok", v0[r == 1 ? 0 : 1]);
			add_metric(t, "zswpout", 3000 + r);
		}
	}
	/* the third pc0 value comes from a round added by adaptive mode */
	t = add_trial(run, a0, 5, seq++, 0, "ok", v0[2]);
	add_metric(t, "zswpout", 3005);
	return run;
}

static void test_load_run(void **state)
{
	struct advice_run *r = calloc(1, sizeof(*r));
	struct st_err e = {0};
	int64_t run;
	const struct verdict2_arm *a3, *a1, *a0;

	(void)state;
	run = typical_run("{\"workload\":{\"name\":\"anon-zipf\"},\"baseline\":\"pc3\"}", SUMMARY_TP);
	advice_run_free(r);
	if (advice_load_run(&st, &h, run, NULL, r, &e) < 0)
		fail_msg("advice_load_run: %s", e.msg);
	assert_int_equal(r->n_arms, 3);
	assert_int_equal(r->in2.n_arms, 3);
	assert_string_equal(r->workload, "anon-zipf");
	assert_int_equal(r->in2.metric, VERDICT_METRIC_THROUGHPUT);
	assert_string_equal(r->in2.metric_name, "throughput");
	assert_string_equal(r->baseline_source, "named by the probe run");
	a3 = &r->in2.arms[0];
	a1 = &r->in2.arms[1];
	a0 = &r->in2.arms[2];
	assert_string_equal(a3->name, "pc3");
	assert_true(a3->is_baseline);
	assert_false(a1->is_baseline || a0->is_baseline);

	/* warm-ups never used; every trial in its round's slot, rounds 1..5 */
	assert_int_equal(r->in2.n_rounds, 5);
	for (int k = 0; k < 4; k++) {
		assert_int_equal(a3->outcome[k], VERDICT_OUT_OK);
		assert_int_equal(a1->outcome[k], VERDICT_OUT_OK);
	}
	assert_true(a3->primary[0] == 1000 && a3->primary[1] == 1010 &&
		    a3->primary[2] == 990 && a3->primary[3] == 1005);
	assert_true(a1->primary[0] == 1100 && a1->primary[3] == 1110);
	/* a round an arm never ran is missing, not a failure */
	assert_int_equal(a3->outcome[4], VERDICT_OUT_MISSING);
	/* OOM and failure are outcomes of their rounds, never speeds */
	assert_int_equal(a0->outcome[0], VERDICT_OUT_OK);
	assert_int_equal(a0->outcome[1], VERDICT_OUT_OOM);
	assert_int_equal(a0->outcome[2], VERDICT_OUT_FAILED);
	assert_int_equal(a0->outcome[3], VERDICT_OUT_OK);
	assert_int_equal(a0->outcome[4], VERDICT_OUT_OK);
	assert_true(a0->primary[0] == 1200 && a0->primary[3] == 1210 && a0->primary[4] == 1190);
	assert_int_equal(r->arms[2].n_oom, 1);
	assert_int_equal(r->arms[2].n_failed, 1);
	assert_int_equal(r->arms[2].n_warmup, 1);
	assert_int_equal(r->arms[2].n_ok, 3);
	assert_true(r->arms[2].emulated);
	assert_int_equal(r->arms[0].n_settings, 1);
	assert_string_equal(r->arms[0].settings[0].name, "page-cluster");
	assert_string_equal(r->arms[0].settings[0].value, "3");
	/* the failure test's order: least readahead first (the stored page-cluster) */
	assert_true(a0->fail_order < a1->fail_order && a1->fail_order < a3->fail_order);

	/* costs: all-or-nothing per arm over its completed trials */
	assert_true(a3->has_cost[VERDICT_SEC_ZSWPOUT_PAGES]);
	assert_true(a3->cost[VERDICT_SEC_ZSWPOUT_PAGES][0] == 4001 &&
		    a3->cost[VERDICT_SEC_ZSWPOUT_PAGES][3] == 4004);
	assert_true(a3->has_cost[VERDICT_SEC_CPU_NS_PER_OP]);
	assert_true(a3->cost[VERDICT_SEC_CPU_NS_PER_OP][2] == 63);
	assert_true(a3->has_cost[VERDICT_SEC_WASTED_RA_PAGES]);
	assert_true(a3->cost[VERDICT_SEC_WASTED_RA_PAGES][1] == 180);
	assert_true(a3->has_cost[VERDICT_SEC_MAJOR_FAULTS]);
	assert_true(a3->cost[VERDICT_SEC_MAJOR_FAULTS][3] == 28);
	assert_true(a3->has_cost[VERDICT_SEC_PSI_SOME_US]);
	assert_true(a3->cost[VERDICT_SEC_PSI_SOME_US][0] == 1000);
	assert_false(a3->has_cost[VERDICT_SEC_ZSWPIN_PAGES]);
	assert_true(a1->has_cost[VERDICT_SEC_ZSWPOUT_PAGES]);
	assert_false(a1->has_cost[VERDICT_SEC_CPU_NS_PER_OP]);
	assert_true(a0->has_cost[VERDICT_SEC_ZSWPOUT_PAGES]);
	assert_true(a0->cost[VERDICT_SEC_ZSWPOUT_PAGES][0] == 3001 &&
		    a0->cost[VERDICT_SEC_ZSWPOUT_PAGES][3] == 3004 &&
		    a0->cost[VERDICT_SEC_ZSWPOUT_PAGES][4] == 3005);

	/* and the advisor takes it as it is */
	{
		struct verdict_result *v = calloc(1, sizeof(*v));
		struct judgement *j = calloc(1, sizeof(*j));

		assert_int_equal(advice_judge(r, -1, v, j, &e), 0);
		assert_int_equal(v->baseline, 0);
		assert_int_equal(v->n_arms, 3);
		/* no plan stored: a fixed design of the 5 rounds it has, too few to show +10 % */
		assert_true(j->judged);
		assert_false(j->plan.sequential);
		assert_int_equal(j->plan.looks[0], 5);
		assert_int_equal(v->kind, VERDICT_INCONCLUSIVE);
		assert_int_equal(v->arms[1].status, VERDICT_ARM_NOISY);
		assert_int_equal(v->arms[1].n, 4);
		assert_int_equal(v->arms[2].n, 3);
		assert_int_equal(v->arms[2].n_oom_killed, 1);
		/* and its arms ran in a fixed cycle: its p-values are approximate */
		assert_false(j->plan.order_random);
		{
			bool said = false;

			for (size_t i = 0; i < v->n_reasons; i++)
				said |= strstr(v->reasons[i], "approximate: its arms ran in a fixed cycle") != NULL;
			assert_true(said);
			for (size_t i = 0; i < v->n_reasons; i++)
				assert_null(strstr(v->reasons[i], "exact, as the order"));
		}
		free(j);
		free(v);
	}
	advice_run_free(r);
	free(r);
}

/* Where the baseline comes from, in order of precedence. */
static void test_baseline_sources(void **state)
{
	struct advice_run *r = calloc(1, sizeof(*r));
	struct st_err e = {0};
	struct settings_snapshot snap;
	int64_t run;

	(void)state;
	/* the fixture's page-cluster is 3: the host matches pc3 */
	run = typical_run("{\"workload\":{\"name\":\"anon-seq\"}}", SUMMARY_TP);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), 0);
	assert_true(r->in2.arms[0].is_baseline);
	assert_string_equal(r->baseline_source, "the host's current setting");

	/* the snapshot saved with the run beats the host now */
	memset(&snap, 0, sizeof(snap));
	snap.n = 1;
	snprintf(snap.items[0].name, sizeof(snap.items[0].name), "page-cluster");
	snap.items[0].present = true;
	snprintf(snap.items[0].value, sizeof(snap.items[0].value), "1");
	assert_int_equal(store_snapshot_save(&st, run, "before probe", &snap, NULL, &e), 0);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), 0);
	assert_true(r->in2.arms[1].is_baseline);
	assert_false(r->in2.arms[0].is_baseline);
	assert_non_null(strstr(r->baseline_source, "the setting before the probe (snapshot "));

	/* --baseline beats all */
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, "pc0", r, &e), 0);
	assert_true(r->in2.arms[2].is_baseline);
	assert_false(r->in2.arms[1].is_baseline);
	assert_string_equal(r->baseline_source, "chosen with --baseline");
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, "pc9", r, &e), -EINVAL);
	assert_string_equal(e.msg, "probe run 1 has no arm \"pc9\"");
	err_reset(&e);

	/* nothing matches: the first arm, said so */
	run = add_run("probe", "ok", "{}", NULL);
	add_arm(run, "x", "{\"page-cluster\":\"2\"}", 0);
	add_arm(run, "y", "{\"page-cluster\":\"1\"}", 0);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), 0);
	assert_true(r->in2.arms[0].is_baseline);
	assert_string_equal(r->baseline_source,
			    "the first arm (no arm matches the setting before the probe)");
	/* A/A: both arms match the host: ambiguous, so the first */
	run = add_run("probe", "ok", "{}", NULL);
	add_arm(run, "a", "{\"page-cluster\":\"3\"}", 0);
	add_arm(run, "b", "{\"page-cluster\":\"3\"}", 0);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), 0);
	assert_true(r->in2.arms[0].is_baseline && !r->in2.arms[1].is_baseline);
	advice_run_free(r);
	free(r);
}

static void test_metric_direction(void **state)
{
	static const struct {
		const char *params, *summary;
		enum verdict_metric metric;
		const char *name;
	} cases[] = {
		{ "{\"workload\":{\"name\":\"anon-zipf\"}}", NULL, VERDICT_METRIC_THROUGHPUT, "throughput" },
		{ "{\"workload\":{\"name\":\"cmd\"}}", NULL, VERDICT_METRIC_WALL_TIME, "wall time" },
		{ "{\"workload\":{\"name\":\"cmd\"}}",
		  "{\"primary_metric\":{\"key\":\"wall_s\",\"name\":\"wall time\",\"higher_is_better\":false}}",
		  VERDICT_METRIC_WALL_TIME, "wall time" },
		{ "{\"workload\":{\"name\":\"cmd\"}}",
		  "{\"primary_metric\":{\"key\":\"metric\",\"name\":\"command metric\",\"higher_is_better\":false}}",
		  VERDICT_METRIC_LOWER_BETTER, "command metric" },
		{ "{\"workload\":{\"name\":\"cmd\"}}",
		  "{\"primary_metric\":{\"key\":\"metric\",\"name\":\"command metric\",\"higher_is_better\":true}}",
		  VERDICT_METRIC_HIGHER_BETTER, "command metric" },
		{ "not json", "not json", VERDICT_METRIC_THROUGHPUT, "throughput" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct advice_run *r = calloc(1, sizeof(*r));
		struct st_err e = {0};
		int64_t run = add_run("probe", "ok", cases[i].params, cases[i].summary);

		add_arm(run, "pc3", "{\"page-cluster\":\"3\"}", 0);
		advice_run_free(r);
		assert_int_equal(advice_load_run(&st, NULL, run, NULL, r, &e), 0);
		if (r->in2.metric != cases[i].metric)
			fail_msg("case %zu: metric %d, want %d", i, r->in2.metric, cases[i].metric);
		assert_string_equal(r->in2.metric_name, cases[i].name);
		advice_run_free(r);
		free(r);
	}
}

static void test_load_errors(void **state)
{
	struct advice_run *r = calloc(1, sizeof(*r));
	struct st_err e = {0};
	int64_t run, id;

	(void)state;
	assert_int_equal(advice_latest_probe_run(&st, &id, &e), -ENOENT);
	err_reset(&e);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, 99, NULL, r, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no run 99 in "));
	err_reset(&e);
	run = add_run("apply", "ok", NULL, NULL);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), -ENOENT);
	assert_string_equal(e.msg, "run 1 is a apply run, not a probe");
	err_reset(&e);
	run = add_run("probe", "failed", NULL, NULL);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), -EBADMSG);
	assert_string_equal(e.msg, "probe run 2 has no arms (did it start?)");
	err_reset(&e);
	add_arm(run, "bad", "[1,2]", 0);
	advice_run_free(r);
	assert_int_equal(advice_load_run(&st, &h, run, NULL, r, &e), -EBADMSG);
	assert_string_equal(e.msg, "probe run 2 arm bad: arm settings are not a JSON object: [1,2]");
	err_reset(&e);

	/* the latest ok run wins over a newer failed one */
	assert_int_equal(advice_latest_probe_run(&st, &id, &e), 0);
	assert_int_equal(id, 2);
	run = add_run("probe", "ok", NULL, NULL);
	add_run("probe", "failed", NULL, NULL);
	assert_int_equal(advice_latest_probe_run(&st, &id, &e), 0);
	assert_int_equal(id, run);
	advice_run_free(r);
	free(r);
}

static void test_rules_input(void **state)
{
	struct host_facts f;
	struct advisor_host_facts a;
	struct st_err e = {0};

	(void)state;
	if (facts_collect(&h, &f, &e) < 0)
		fail_msg("facts_collect: %s", e.msg);
	advice_rules_input(&f, &a);
	assert_true(a.swaps_known);
	assert_int_equal(a.n_swaps, 1);
	assert_string_equal(a.swaps[0].name, "/dev/vdb");
	assert_int_equal(a.swaps[0].type, ADVISOR_SWAP_PARTITION);
	assert_true(a.swaps[0].rotational.known && a.swaps[0].rotational.v);
	assert_true(a.swaps[0].size_bytes.known && a.swaps[0].size_bytes.v == 8388604ULL * 1024);
	assert_true(a.swaps[0].used_bytes.v == 163840ULL * 1024);
	assert_true(a.zswap_present.known && a.zswap_present.v);
	assert_true(a.zswap_enabled.known && !a.zswap_enabled.v);
	assert_string_equal(a.zswap_compressor, "lzo");
	assert_true(a.zswap_max_pool_pct.known && a.zswap_max_pool_pct.v == 20);
	assert_true(a.zswap_shrinker_enabled.known && !a.zswap_shrinker_enabled.v);
	assert_true(a.page_cluster.known && a.page_cluster.v == 3);
	assert_true(a.vma_ra_enabled.known && a.vma_ra_enabled.v);
	assert_true(a.mem_total_bytes.known && a.mem_total_bytes.v == f.mem_total_bytes);
	{
		uint64_t v;

		assert_true(kv_get(&f.vmstat, "swap_ra", &v));
		assert_true(a.since_boot.swap_ra.known && a.since_boot.swap_ra.v == v);
		assert_true(kv_get(&f.vmstat, "zswpout", &v));
		assert_true(a.since_boot.zswpout.known && a.since_boot.zswpout.v == v);
		assert_int_equal(a.zswap_stored_pages.known, f.zswap_stats_available);
		if (f.zswap_stats_available && kv_get(&f.zswap_stats, "pool_limit_hit", &v))
			assert_true(a.since_boot.zswap_pool_limit_hit.known &&
				    a.since_boot.zswap_pool_limit_hit.v == v);
	}
	assert_false(a.has_window);
	facts_free(&f);
}

static void test_parse_settings(void **state)
{
	struct advice_setting s[SETTINGS_MAX];
	struct st_err e = {0};
	int n;

	(void)state;
	assert_int_equal(advice_parse_settings("{\"page-cluster\":\"0\",\"zswap.enabled\":\"Y\","
					       "\"n\":2,\"b\":true,\"skip\":null}", s, SETTINGS_MAX, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_string_equal(s[0].value, "0");
	assert_string_equal(s[2].name, "n");
	assert_string_equal(s[2].value, "2");
	assert_string_equal(s[3].value, "1");
	assert_int_equal(advice_parse_settings("{}", s, SETTINGS_MAX, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_int_equal(advice_parse_settings(NULL, s, SETTINGS_MAX, &n, &e), -EBADMSG);
	assert_int_equal(advice_parse_settings("{\"a\":\"1\",\"b\":\"2\"}", s, 1, &n, &e), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_load_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_sources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metric_direction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_settings, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
