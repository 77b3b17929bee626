/*
 * test-judge-recipe.c - judge_recipe() in src/judge.c: which differences
 * between two probe runs' params make another recipe (workload, working
 * set, command, metric, memcg limit, --min-trial, baseline, arm names and
 * settings, accesses when not calibrated) and which do not (seeds, time
 * budgets, looks and rounds, alpha, minimum effect, calibrated accesses,
 * key order, a stored "recipe" field); judged per CPU second is another
 * recipe, and a run judged by wall time keeps the hash it always had.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/judge.h"
#include "swaptune/run-params.h"

/* judge_recipe() of params text, decoded as the store decodes a row */
static int recipe_of_text(const char *params, const cJSON *arms, char out[JUDGE_RECIPE_LEN])
{
	struct run_params p;
	int r;

	run_params_decode(params, &p);
	r = judge_recipe(p.doc, arms, out);
	run_params_free(&p);
	return r;
}

#define BASE "{\"workload\":{\"name\":\"anon-runs\",\"working_set_bytes\":%s,\"ops\":%s,\"seed\":%s," \
	"\"run_pages\":4},\"memcg\":{\"version\":1,\"limit_bytes\":%s,\"limit_mode\":\"limit_in_bytes\"}," \
	"\"method\":{\"reps\":%s,\"seed\":%s,\"min_trial_s\":%s,\"max_time_s\":%s%s},\"arm_names\":[%s]," \
	"\"baseline\":\"%s\",\"plan\":{\"sequential\":true,\"looks\":[%s],\"alpha\":%s,\"min_effect_pct\":%s}}"

struct p {
	const char *ws, *ops, *wseed, *limit, *reps, *seed, *min_trial, *max_time, *arms, *base,
		   *looks, *alpha, *min_effect;
	const char *busy;	/* "" or ",\"busy_host\":{...}" in method */
};

static const struct p ref = { "268435456", "1000", "7", "134217728", "25", "99", "2", "180",
			      "\"pc3\",\"pc0\"", "pc3", "5,10,15,20,25", "0.025", "2", "" };

static void recipe(const struct p *x, const char *arm_settings, char out[JUDGE_RECIPE_LEN])
{
	char buf[2048];
	cJSON *a = arm_settings ? cJSON_Parse(arm_settings) : NULL;

	snprintf(buf, sizeof(buf), BASE, x->ws, x->ops, x->wseed, x->limit, x->reps, x->seed,
		 x->min_trial, x->max_time, x->busy, x->arms, x->base, x->looks, x->alpha, x->min_effect);
	assert_int_equal(recipe_of_text(buf, a, out), 0);
	assert_int_equal(strlen(out), 16);
	cJSON_Delete(a);
}

static void test_same_and_other_recipes(void **state)
{
	static const struct { const char *what; size_t off; const char *val; bool same; } t[] = {
		{ "workload seed", offsetof(struct p, wseed), "8", true },
		{ "order seed", offsetof(struct p, seed), "1234", true },
		{ "rounds", offsetof(struct p, reps), "10", true },
		{ "time budget", offsetof(struct p, max_time), "60", true },
		{ "looks", offsetof(struct p, looks), "5,10", true },
		{ "alpha", offsetof(struct p, alpha), "0.05", true },
		{ "minimum effect", offsetof(struct p, min_effect), "5", true },
		{ "calibrated accesses", offsetof(struct p, ops), "123456", true },
		{ "arm order", offsetof(struct p, arms), "\"pc0\",\"pc3\"", true },
		{ "working set", offsetof(struct p, ws), "536870912", false },
		{ "memcg limit", offsetof(struct p, limit), "67108864", false },
		{ "min trial", offsetof(struct p, min_trial), "1", false },
		{ "arms", offsetof(struct p, arms), "\"pc3\",\"pc1\"", false },
		{ "baseline", offsetof(struct p, base), "pc0", false },
	};
	char r0[JUDGE_RECIPE_LEN], r1[JUDGE_RECIPE_LEN];

	(void)state;
	recipe(&ref, NULL, r0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct p x = ref;

		*(const char **)((char *)&x + t[i].off) = t[i].val;
		recipe(&x, NULL, r1);
		if (t[i].same != !strcmp(r0, r1))
			fail_msg("%s: want %s recipe", t[i].what, t[i].same ? "the same" : "another");
	}
}

/* Accesses given with --min-trial 0 are part of the recipe; calibrated ones are not. */
static void test_uncalibrated_ops(void **state)
{
	struct p a = ref, b = ref;
	char r0[JUDGE_RECIPE_LEN], r1[JUDGE_RECIPE_LEN];

	(void)state;
	a.min_trial = b.min_trial = "0";
	b.ops = "2000";
	recipe(&a, NULL, r0);
	recipe(&b, NULL, r1);
	assert_string_not_equal(r0, r1);
}

/* Arm settings: another value is another recipe; key order is not. */
static void test_arm_settings(void **state)
{
	char r0[JUDGE_RECIPE_LEN], r1[JUDGE_RECIPE_LEN], r2[JUDGE_RECIPE_LEN];

	(void)state;
	recipe(&ref, "{\"pc3\":{\"page-cluster\":\"3\",\"x\":\"1\"},\"pc0\":{\"page-cluster\":\"0\"}}", r0);
	recipe(&ref, "{\"pc0\":{\"page-cluster\":\"0\"},\"pc3\":{\"x\":\"1\",\"page-cluster\":\"3\"}}", r1);
	recipe(&ref, "{\"pc3\":{\"page-cluster\":\"3\",\"x\":\"2\"},\"pc0\":{\"page-cluster\":\"0\"}}", r2);
	assert_string_equal(r0, r1);
	assert_string_not_equal(r0, r2);
}

/*
 * Judged per CPU second (method.busy_host.per_cpu_second) is another
 * experiment than judged by wall time, at the same sizes: another recipe.
 * A run judged by wall time keeps the recipe it had before the metric was
 * part of it, busy host or not (the value pinned is what judge_recipe()
 * gave for ref before), so the runs already stored still pool.
 */
static void test_per_cpu_second(void **state)
{
	struct p cpu = ref, wall = ref, busy_wall = ref, per_cpu = ref;
	char r0[JUDGE_RECIPE_LEN], r1[JUDGE_RECIPE_LEN], r2[JUDGE_RECIPE_LEN], r3[JUDGE_RECIPE_LEN],
	     r4[JUDGE_RECIPE_LEN];

	(void)state;
	recipe(&ref, NULL, r0);
	assert_string_equal(r0, "a8cb3e236094969c");
	/* a busy host, sizes given: judged per CPU second */
	cpu.busy = ",\"busy_host\":{\"idle_cpus\":0.12,\"cpus\":2,\"mode\":\"adapt\",\"per_cpu_second\":true,"
		   "\"scaled\":false,\"runnable\":2}";
	recipe(&cpu, NULL, r1);
	assert_string_not_equal(r0, r1);
	/* a busy host measured by wall time (--busy-host ignore, or an arm CPU time cannot judge) */
	wall.busy = ",\"busy_host\":{\"idle_cpus\":0.12,\"cpus\":2,\"mode\":\"ignore\",\"per_cpu_second\":false,"
		    "\"scaled\":false,\"runnable\":2}";
	recipe(&wall, NULL, r2);
	assert_string_equal(r0, r2);
	busy_wall.busy = ",\"busy_host\":{\"idle_cpus\":0.3,\"cpus\":2,\"mode\":\"adapt\",\"per_cpu_second\":false,"
			 "\"scaled\":false,\"runnable\":1}";
	recipe(&busy_wall, NULL, r3);
	assert_string_equal(r0, r3);
	/* --busy-host per-cpu on a quiet host: the same experiment as the busy host's per CPU second */
	per_cpu.busy = ",\"busy_host\":{\"idle_cpus\":1.9,\"cpus\":2,\"mode\":\"per-cpu\",\"per_cpu_second\":true,"
		       "\"scaled\":false,\"runnable\":0}";
	recipe(&per_cpu, NULL, r4);
	assert_string_equal(r1, r4);
}

static void test_no_params(void **state)
{
	char r[JUDGE_RECIPE_LEN] = "x";

	(void)state;
	assert_int_equal(recipe_of_text("", NULL, r), -EBADMSG);
	assert_string_equal(r, "");
	assert_int_equal(recipe_of_text("{\"baseline\":\"pc3\"}", NULL, r), -EBADMSG);
	assert_int_equal(recipe_of_text("not json", NULL, r), -EBADMSG);
	assert_int_equal(recipe_of_text(NULL, NULL, r), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_and_other_recipes),
		cmocka_unit_test(test_uncalibrated_ops),
		cmocka_unit_test(test_arm_settings),
		cmocka_unit_test(test_per_cpu_second),
		cmocka_unit_test(test_no_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
