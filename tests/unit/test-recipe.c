/*
 * test-recipe.c - recipe_read() and recipe_rerun_line() in src/recipe.c:
 * the report fixture's params read into the config verify re-runs and the
 * rerun line the report prints; a cmd recipe's words quoted; every numeric
 * field of the recipe table (recipe_field_at()) refused just outside its
 * range and as text; and
 * crafted recipes (unknown workload, argv on a built-in workload, baseline
 * not an arm, too many arms, a bad limit mode, bad looks, a busy-host look
 * or metric that does not hold together) refused with a
 * message naming the run and the value; the table's identity flags agree
 * with judge_recipe(). No host: built-in arms only.
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

#include "swaptune/recipe.h"
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

#define FIXTURE "{\"workload\":{\"name\":\"anon-zipf\",\"working_set_bytes\":268435456,\"ops\":131072," \
	"\"seed\":7,\"zipf_theta\":0.99},\"memcg\":{\"version\":2,\"limit_bytes\":134217728,\"limit_mode\":\"max\"}," \
	"\"method\":{\"reps\":4,\"warmup\":true,\"adaptive\":false,\"seed\":7,\"duration_cap_s\":60}," \
	"\"arm_names\":[\"pc3\",\"pc1\",\"pc0\"],\"baseline\":\"pc3\"}"

/* A run as advice_load_run() leaves it: params, arms pc3/pc1/pc0 (or names), plan. */
static struct advice_run *run_new(const char *params, const char *const *arms)
{
	static const char *const dflt[] = { "pc3", "pc1", "pc0", NULL };
	struct advice_run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->run_id = 42;
	run_params_decode(params, &r->p);
	snprintf(r->workload, sizeof(r->workload), "anon-zipf");
	for (const char *const *a = arms ? arms : dflt; *a; a++) {
		snprintf(r->arms[r->n_arms].name, sizeof(r->arms[0].name), "%s", *a);
		r->n_arms++;
	}
	judge_plan_from_params(r->p.doc, &r->plan);
	return r;
}

/* FIXTURE with "key":value put into section (replacing an existing key). */
static void with(char *out, size_t len, const char *section, const char *key, const char *value)
{
	cJSON *o = cJSON_Parse(FIXTURE), *s = cJSON_GetObjectItem(o, section);
	char *t;

	if (!s)
		s = cJSON_AddObjectToObject(o, section);
	cJSON_DeleteItemFromObject(s, key);
	cJSON_AddItemToObject(s, key, cJSON_Parse(value));
	t = cJSON_PrintUnformatted(o);
	snprintf(out, len, "%s", t);
	cJSON_free(t);
	cJSON_Delete(o);
}

static int read_params(const char *params, const char *const *arms, struct recipe *rec,
		       struct st_err *e)
{
	struct advice_run *run = run_new(params, arms);
	int r;

	memset(e, 0, sizeof(*e));
	recipe_free(rec);	/* what an earlier read left (rec starts zeroed) */
	r = recipe_read(NULL, run, rec, e);
	advice_run_free(run);
	free(run);
	return r;
}

static void test_fixture(void **state)
{
	struct recipe *rec = calloc(1, sizeof(*rec));
	struct st_err e;
	char line[4096];

	(void)state;
	assert_int_equal(read_params(FIXTURE, NULL, rec, &e), 0);
	assert_string_equal(rec->c.workload->name, "anon-zipf");
	assert_int_equal(rec->c.wp.working_set_bytes, 268435456);
	assert_int_equal(rec->c.memcg_limit_bytes, 134217728);
	assert_int_equal(rec->c.wp.ops, 131072);
	assert_int_equal(rec->c.seed, 7);
	assert_true(rec->c.wp.zipf_theta == 0.99);
	assert_true(rec->c.duration_s == 60);
	assert_int_equal(rec->c.narms, 3);
	assert_int_equal(rec->c.baseline, 0);
	assert_int_equal(rec->c.reps, 4);
	assert_true(rec->c.warmup);
	assert_int_equal(recipe_rerun_line(rec, line, sizeof(line)), 0);
	/* the line tests/expected/report-run.txt holds */
	assert_string_equal(line, "sudo swaptune probe --workload anon-zipf --arms pc3,pc1,pc0 --baseline pc3"
			    " --reps 4 --working-set 256M --memcg-limit 128M --ops 131072"
			    " --duration 60s --zipf-theta 0.99");
	assert_int_equal(recipe_rerun_line(rec, line, 20), -ENOSPC);
	recipe_free(rec);
	free(rec);
}

static void test_cmd_quoted(void **state)
{
	struct recipe *rec = calloc(1, sizeof(*rec));
	struct st_err e;
	char line[4096];

	(void)state;
	assert_int_equal(read_params("{\"workload\":{\"name\":\"cmd\",\"argv\":[\"sh\",\"-c\",\"echo 1; touch x\"],"
				     "\"metric_regex\":\"([0-9]+)\"},\"method\":{\"seed\":3,\"drop_host_caches\":true},"
				     "\"baseline\":\"pc0\"}",
				     (const char *const[]){ "pc3", "pc0", NULL }, rec, &e), 0);
	assert_int_equal(rec->c.primary, PROBE_PRIMARY_METRIC);
	assert_string_equal(rec->c.wp.argv[2], "echo 1; touch x");
	assert_null(rec->c.wp.argv[3]);
	assert_int_equal(rec->c.baseline, 1);
	assert_true(rec->c.drop_host_caches);
	assert_int_equal(recipe_rerun_line(rec, line, sizeof(line)), 0);
	assert_string_equal(line, "sudo swaptune probe --workload cmd --arms pc3,pc0 --baseline pc0"
			    " --drop-host-caches --metric-regex '([0-9]+)' -- sh -c 'echo 1; touch x'");
	recipe_free(rec);
	free(rec);
}

/* Every numeric field: below its minimum, above its maximum, a fraction if whole, text. */
static void test_fields_out_of_range(void **state)
{
	struct recipe *rec = calloc(1, sizeof(*rec));
	char params[8192], want[160], v[64];
	struct st_err e;

	(void)state;
	for (size_t i = 0; i < recipe_field_count(); i++) {
		const struct recipe_field *f = recipe_field_at(i);
		double bad[3] = { f->min > 0 ? f->min / 2 - 1 : -1, f->max * 2 + 1, NAN };

		if (f->integer)
			bad[2] = f->min + 0.5;
		for (int k = 0; k < 4; k++) {
			if (k == 2 && !f->integer)
				continue;
			if (k == 3)
				snprintf(v, sizeof(v), "\"12\"");
			else
				snprintf(v, sizeof(v), "%.17g", bad[k]);
			with(params, sizeof(params), f->section, f->key, v);
			assert_int_equal(read_params(params, NULL, rec, &e), -EBADMSG);
			snprintf(want, sizeof(want), "probe run 42: %s.%s ", f->section, f->key);
			if (!strstr(e.msg, want))
				fail_msg("%s.%s = %s: \"%s\"", f->section, f->key, v, e.msg);
			assert_int_equal(e.exit, ST_EXIT_RUNTIME);
			recipe_free(rec);
		}
		/* and its bounds are accepted */
		snprintf(v, sizeof(v), "%.17g", f->integer ? ceil(f->min) : f->min);
		with(params, sizeof(params), f->section, f->key, v);
		if (read_params(params, NULL, rec, &e) != 0)
			fail_msg("%s.%s = %s refused: %s", f->section, f->key, v, e.msg);
		assert_true(rec->have[i]);
		recipe_free(rec);
	}
	free(rec);
}

/*
 * A run judged per CPU second on a busy host is re-run so, at the sizes it
 * stored, and its rerun line says --busy-host per-cpu; a wall-time run's
 * line does not; a --busy-host per-cpu run on a quiet host reads back.
 */
static void test_busy_host(void **state)
{
	struct recipe *rec = calloc(1, sizeof(*rec));
	char params[8192], line[4096], text[400];
	struct st_err e;

	(void)state;
	assert_int_equal(read_params(FIXTURE, NULL, rec, &e), 0);
	assert_int_equal(rec->c.primary, PROBE_PRIMARY_THROUGHPUT);
	assert_false(rec->c.busy.busy);
	recipe_free(rec);
	with(params, sizeof(params), "method", "busy_host",
	     "{\"idle_cpus\":0.12,\"cpus\":2,\"mode\":\"adapt\",\"per_cpu_second\":true,\"scaled\":true,"
	     "\"scale\":0.5,\"runnable\":2}");
	assert_int_equal(read_params(params, NULL, rec, &e), 0);
	assert_int_equal(rec->c.primary, PROBE_PRIMARY_CPU);
	assert_string_equal(probe_primary_key(&rec->c), "ops_per_cpu_s");
	assert_true(probe_primary_higher_better(&rec->c));
	assert_true(rec->c.busy.busy && rec->c.busy.per_cpu && rec->c.busy.scaled);
	assert_float_equal(rec->c.busy.share, 2.0 / 3, 1e-9);
	/* the stored sizes are the halved ones: nothing is halved again */
	assert_int_equal(rec->c.wp.working_set_bytes, 268435456);
	assert_int_equal(rec->c.busy.ws_was, 2 * 268435456ull);
	/* its rerun line pins the metric at those sizes (a quiet host would judge wall time) */
	assert_int_equal(recipe_rerun_line(rec, line, sizeof(line)), 0);
	assert_string_equal(line, "sudo swaptune probe --workload anon-zipf --arms pc3,pc1,pc0 --baseline pc3"
			    " --reps 4 --busy-host per-cpu --working-set 256M --memcg-limit 128M"
			    " --ops 131072 --duration 60s --zipf-theta 0.99");
	recipe_free(rec);
	/* a busy host measured by wall time (--busy-host ignore): its line does not pin a metric */
	with(params, sizeof(params), "method", "busy_host",
	     "{\"idle_cpus\":0.12,\"cpus\":2,\"mode\":\"ignore\",\"per_cpu_second\":false,\"scaled\":false}");
	assert_int_equal(read_params(params, NULL, rec, &e), 0);
	assert_int_equal(rec->c.primary, PROBE_PRIMARY_THROUGHPUT);
	assert_int_equal(recipe_rerun_line(rec, line, sizeof(line)), 0);
	assert_null(strstr(line, "--busy-host"));
	recipe_free(rec);
	/* --busy-host per-cpu on a quiet host: per CPU second, the host not busy, the line pins it */
	with(params, sizeof(params), "method", "busy_host",
	     "{\"idle_cpus\":1.9,\"cpus\":2,\"mode\":\"per-cpu\",\"per_cpu_second\":true,\"scaled\":false,"
	     "\"runnable\":0}");
	assert_int_equal(read_params(params, NULL, rec, &e), 0);
	assert_int_equal(rec->c.busy_mode, PROBE_BUSY_PER_CPU);
	assert_int_equal(rec->c.primary, PROBE_PRIMARY_CPU);
	assert_true(rec->c.busy.known && rec->c.busy.per_cpu);
	assert_false(rec->c.busy.busy || rec->c.busy.scaled);
	assert_int_equal(rec->c.wp.working_set_bytes, 268435456);
	assert_true(probe_busy_text(&rec->c, text, sizeof(text)) > 0);
	assert_string_equal(text, "1.9 of 2 CPUs idle before the probe: judged per CPU second of the workload, "
			    "as asked (--busy-host per-cpu); sizes as given");
	assert_int_equal(recipe_rerun_line(rec, line, sizeof(line)), 0);
	assert_non_null(strstr(line, " --busy-host per-cpu "));
	recipe_free(rec);
	/* and where the look saw nothing */
	with(params, sizeof(params), "method", "busy_host", "{\"mode\":\"per-cpu\",\"per_cpu_second\":true}");
	assert_int_equal(read_params(params, NULL, rec, &e), 0);
	assert_int_equal(rec->c.primary, PROBE_PRIMARY_CPU);
	assert_false(rec->c.busy.known || rec->c.busy.busy);
	recipe_free(rec);
	free(rec);
}

static void test_crafted(void **state)
{
	static const struct { const char *section, *key, *value, *want; } t[] = {
		{ "workload", "name", "\"anon-zipf;reboot\"", "workload \"anon-zipf;reboot\" is not a workload of this build" },
		{ "workload", "name", "7", "workload.name 7 is not a string" },
		{ "workload", "argv", "[\"rm\",\"-rf\",\"/\"]", "workload.argv with the built-in workload anon-zipf" },
		{ "workload", "run_as_uid", "0", "workload.run_as_uid with the built-in workload" },
		{ "memcg", "limit_mode", "\"banana\"", "memcg.limit_mode \"banana\" is not max, high" },
		{ "method", "adaptive", "1", "method.adaptive 1 is not true or false" },
		{ "plan", "looks", "[5,3]", "plan.looks are not increasing rounds" },
		{ "plan", "looks", "[5,100000]", "plan.looks are not increasing rounds" },
		{ "method", "busy_host", "7", "method.busy_host is not an object" },
		{ "method", "busy_host", "{\"idle_cpus\":1.5,\"cpus\":2,\"mode\":\"adapt\"}",
		  "method.busy_host.idle_cpus 1.5 is not a number from 0 to below 0.8" },
		{ "method", "busy_host", "{\"idle_cpus\":0.1,\"cpus\":0.5,\"mode\":\"adapt\"}",
		  "method.busy_host.cpus 0.5 is not a whole number of CPUs" },
		{ "method", "busy_host", "{\"idle_cpus\":0.1,\"cpus\":2,\"mode\":\"yes\"}",
		  "method.busy_host.mode \"yes\" is not adapt, ignore or per-cpu (as --busy-host takes)" },
		{ "method", "busy_host", "{\"idle_cpus\":0.1,\"cpus\":2,\"mode\":\"ignore\",\"per_cpu_second\":true}",
		  "per CPU second with --busy-host ignore" },
		{ "method", "busy_host", "{\"idle_cpus\":0.1,\"cpus\":2,\"mode\":\"adapt\",\"scaled\":\"y\"}",
		  "method.busy_host.scaled \"y\" is not true or false" },
		{ "method", "busy_host", "{\"idle_cpus\":0.1,\"cpus\":2,\"mode\":\"adapt\",\"scaled\":true,\"scale\":0.01}",
		  "method.busy_host.scale 0.01 is not 0.5" },
		{ "method", "busy_host", "{\"idle_cpus\":0.1,\"cpus\":2,\"mode\":\"adapt\",\"runnable\":-1}",
		  "method.busy_host.runnable -1 is not a number of tasks" },
		/* per-cpu: per CPU second at the sizes given, whatever the look saw (and it saw sense) */
		{ "method", "busy_host", "{\"mode\":\"per-cpu\",\"per_cpu_second\":false,\"scaled\":false}",
		  "method.busy_host says wall time with --busy-host per-cpu" },
		{ "method", "busy_host", "{\"mode\":\"per-cpu\",\"scaled\":false}",
		  "method.busy_host says wall time with --busy-host per-cpu" },
		{ "method", "busy_host", "{\"mode\":\"per-cpu\",\"per_cpu_second\":true,\"scaled\":true,\"scale\":0.5}",
		  "method.busy_host says scaled sizes with --busy-host per-cpu" },
		{ "method", "busy_host", "{\"idle_cpus\":3,\"cpus\":2,\"mode\":\"per-cpu\",\"per_cpu_second\":true}",
		  "method.busy_host.idle_cpus 3 is more than its 2 CPUs" },
		{ "method", "busy_host", "{\"idle_cpus\":-1,\"cpus\":2,\"mode\":\"per-cpu\",\"per_cpu_second\":true}",
		  "method.busy_host.idle_cpus -1 is not a number from 0 to 65536" },
		{ "method", "busy_host", "{\"idle_cpus\":1.5,\"mode\":\"per-cpu\",\"per_cpu_second\":true}",
		  "method.busy_host.cpus (absent) is not a whole number of CPUs" },
		{ "method", "busy_host", "{\"cpus\":2,\"mode\":\"per-cpu\",\"per_cpu_second\":true}",
		  "method.busy_host.idle_cpus (absent) is not a number" },
	};
	struct recipe *rec = calloc(1, sizeof(*rec));
	char params[8192];
	struct st_err e;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		with(params, sizeof(params), t[i].section, t[i].key, t[i].value);
		assert_int_equal(read_params(params, NULL, rec, &e), -EBADMSG);
		if (!strstr(e.msg, "probe run 42: ") || !strstr(e.msg, t[i].want))
			fail_msg("case %zu: \"%s\"", i, e.msg);
		recipe_free(rec);
	}
	/* the baseline must be an arm; arms at most PROBE_ARMS_MAX, each once */
	assert_int_equal(read_params("{\"workload\":{\"name\":\"anon-seq\"},\"baseline\":\"pc7\"}", NULL, rec, &e),
			 -EBADMSG);
	assert_non_null(strstr(e.msg, "baseline \"pc7\" is not one of the arms"));
	assert_int_equal(read_params("{\"workload\":{\"name\":\"anon-seq\"}}",
				     (const char *const[]){ "pc3", "pc3", NULL }, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "arm pc3 is stored twice"));
	assert_int_equal(read_params("{\"workload\":{\"name\":\"anon-seq\"}}",
				     (const char *const[]){ "pc3", "pc1", "pc0", "bypass", "pc3", "pc1", "pc0",
							    "bypass", "pc3", NULL }, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "9 arms, more than 8"));
	/* a custom arm needs a host to check its settings */
	assert_int_equal(read_params("{\"workload\":{\"name\":\"anon-seq\"}}",
				     (const char *const[]){ "pc3", "mine", NULL }, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "arm \"mine\" has custom settings"));
	/* per CPU second would replace a command's own metric */
	assert_int_equal(read_params("{\"workload\":{\"name\":\"cmd\",\"argv\":[\"true\"],\"metric_regex\":\"x(1)\"},"
				     "\"method\":{\"busy_host\":{\"mode\":\"per-cpu\",\"per_cpu_second\":true}}}",
				     NULL, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "method.busy_host says per CPU second, but the primary metric is the "
			       "command's own (--metric-regex)"));
	assert_int_equal(read_params("{\"workload\":{\"name\":\"cmd\",\"argv\":[\"true\"],\"metric_regex\":\"x(1)\"},"
				     "\"method\":{\"busy_host\":{\"idle_cpus\":0.1,\"cpus\":2,\"mode\":\"adapt\","
				     "\"per_cpu_second\":true}}}", NULL, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "method.busy_host says per CPU second, but"));
	/* a cmd without its command, or with a word that is no string */
	assert_int_equal(read_params("{\"workload\":{\"name\":\"cmd\"}}", NULL, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "workload cmd without a command"));
	assert_int_equal(read_params("{\"workload\":{\"name\":\"cmd\",\"argv\":[\"ls\",{}]}}", NULL, rec, &e),
			 -EBADMSG);
	assert_non_null(strstr(e.msg, "workload.argv word 2, an object, is not a command word"));
	/* no params, or not an object */
	assert_int_equal(read_params("", NULL, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "probe run 42 has no stored parameters"));
	assert_int_equal(read_params("[1]", NULL, rec, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "not a JSON object"));
	recipe_free(rec);
	free(rec);
}

/*
 * The table's identity flags are judge_recipe()'s key list: changing a
 * field changes the run's recipe fingerprint exactly when the table says it
 * is part of the recipe (a run with --min-trial, whose accesses were
 * calibrated: then ops is not part of it).
 */
static void test_identity_is_judges(void **state)
{
	char base[8192], params[8192], v[64], fa[JUDGE_RECIPE_LEN], fb[JUDGE_RECIPE_LEN];
	cJSON *o, *x;

	(void)state;
	with(base, sizeof(base), "method", "min_trial_s", "2");
	assert_int_equal(recipe_of_text(base, NULL, fa), 0);
	o = cJSON_Parse(base);
	for (size_t i = 0; i < recipe_field_count(); i++) {
		const struct recipe_field *f = recipe_field_at(i);
		char *t;

		x = cJSON_GetObjectItem(cJSON_GetObjectItem(o, f->section), f->key);
		snprintf(v, sizeof(v), "%.17g", x && x->valuedouble == f->min ?
			 f->min + (f->integer ? 1 : 0.5) : f->min);
		cJSON_DeleteItemFromObject(cJSON_GetObjectItem(o, f->section), f->key);
		cJSON_AddItemToObject(cJSON_GetObjectItem(o, f->section), f->key, cJSON_Parse(v));
		t = cJSON_PrintUnformatted(o);
		snprintf(params, sizeof(params), "%s", t);
		cJSON_free(t);
		assert_int_equal(recipe_of_text(params, NULL, fb), 0);
		if ((strcmp(fa, fb) != 0) != f->identity)
			fail_msg("%s.%s: the table says %s part of the recipe, judge_recipe() %s", f->section,
				 f->key, f->identity ? "it is" : "it is not", strcmp(fa, fb) ? "agrees not" : "ignores it");
		cJSON_Delete(o);
		o = cJSON_Parse(base);
	}
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_cmd_quoted),
		cmocka_unit_test(test_fields_out_of_range),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_busy_host),
		cmocka_unit_test(test_identity_is_judges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
