/*
 * test-run-params.c - a run's params decoded once (src/run-params.c): the
 * fields of an apply, a rollback, a recording and a probe come out typed;
 * a crafted document (wrong types, ids out of range, fractions, names too
 * long) leaves those fields unset and names the first in why; text that
 * is not JSON keeps no document; a copy owns its own document.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "swaptune/run-params.h"

static void test_apply(void **state)
{
	struct run_params p;

	(void)state;
	run_params_decode("{\"source_run\":6,\"arm\":\"pc0\",\"settings\":{\"page-cluster\":\"0\"},"
			  "\"persist\":true,\"confirm_within_s\":300,\"confirm_deadline_unix\":1796133750.06,"
			  "\"who\":{\"uid\":0,\"user\":\"root\",\"sudo_user\":\"ann\"}}", &p);
	assert_non_null(p.doc);
	assert_int_equal(p.source_run, 6);
	assert_true(p.has_arm);
	assert_string_equal(p.arm, "pc0");
	assert_non_null(p.settings);
	assert_string_equal(cJSON_GetObjectItem(p.settings, "page-cluster")->valuestring, "0");
	assert_true(p.persist);
	assert_true(p.confirm_within_s == 300);
	assert_true(p.confirm_deadline_unix == 1796133750.06);
	assert_true(p.has_uid);
	assert_int_equal(p.uid, 0);
	assert_string_equal(p.user, "root");
	assert_string_equal(p.sudo_user, "ann");
	assert_string_equal(p.why, "");
	run_params_free(&p);
	assert_null(p.doc);
}

static void test_rollback_sample_probe(void **state)
{
	struct run_params p;

	(void)state;
	run_params_decode("{\"reason\":\"watchdog\",\"apply_run\":12}", &p);
	assert_int_equal(p.to, 0);
	assert_string_equal(p.reason, "watchdog");
	assert_int_equal(p.apply_run, 12);
	assert_false(p.has_uid);
	run_params_free(&p);
	run_params_decode("{\"interval_s\":0.5,\"duration_s\":60,\"cgroup\":\"/svc\",\"pid\":42,"
			  "\"cpu_counters\":false}", &p);
	assert_true(p.interval_s == 0.5 && p.duration_s == 60);
	assert_string_equal(p.cgroup, "/svc");
	assert_int_equal(p.pid, 42);
	assert_true(p.cpu_counters_off);
	run_params_free(&p);
	run_params_decode("{\"workload\":{\"name\":\"anon-seq\"},\"baseline\":\"pc3\"}", &p);
	assert_string_equal(p.workload, "anon-seq");
	assert_string_equal(p.baseline, "pc3");
	run_params_free(&p);
	run_params_decode("{\"workload\":\"cmd\",\"verify_of\":3}", &p);
	assert_string_equal(p.workload, "cmd");
	assert_int_equal(p.verify_of, 3);
	run_params_free(&p);
}

/* nothing read back is trusted: each bad field unset, the first named */
static void test_crafted(void **state)
{
	struct run_params p;

	(void)state;
	run_params_decode("{\"source_run\":-3,\"arm\":7,\"to\":1.5,\"apply_run\":1e300,"
			  "\"who\":{\"uid\":-1,\"user\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"},"
			  "\"interval_s\":0,\"pid\":99999999,\"confirm_within_s\":\"5m\",\"settings\":[1],"
			  "\"confirm_deadline_unix\":-1}", &p);
	assert_non_null(p.doc);
	assert_int_equal(p.source_run, 0);
	assert_false(p.has_arm);
	assert_int_equal(p.to, 0);
	assert_int_equal(p.apply_run, 0);
	assert_false(p.has_uid);
	assert_string_equal(p.user, "");
	assert_true(p.interval_s == 0);
	assert_int_equal(p.pid, 0);
	assert_true(p.confirm_within_s == 0);
	assert_true(p.confirm_deadline_unix == 0);
	assert_null(p.settings);
	assert_string_equal(p.why, "params: source_run is not a whole number in range");
	run_params_free(&p);
	/* not JSON, or not an object: no fields */
	run_params_decode("not json", &p);
	assert_null(p.doc);
	assert_string_equal(p.why, "params: the document is not JSON");
	run_params_free(&p);
	run_params_decode("[1,2]", &p);
	assert_non_null(p.doc);
	assert_int_equal(p.source_run, 0);
	run_params_free(&p);
	run_params_decode(NULL, &p);
	assert_null(p.doc);
	assert_string_equal(p.why, "");
}

/* A copy owns its own document: the original freed, the copy still reads. */
static void test_copy(void **state)
{
	struct run_params p, q;

	(void)state;
	run_params_decode("{\"settings\":{\"page-cluster\":\"1\"},\"workload\":{\"name\":\"cmd\"},"
			  "\"baseline\":\"pc3\",\"plan\":{\"looks\":[5]},\"pid\":0}", &p);
	assert_int_equal(run_params_copy(&q, &p), 0);
	assert_true(q.doc != p.doc);
	assert_true(q.settings != p.settings);
	run_params_free(&p);
	assert_string_equal(cJSON_GetObjectItem(q.settings, "page-cluster")->valuestring, "1");
	assert_non_null(cJSON_GetObjectItem(q.doc, "plan"));
	assert_string_equal(q.workload, "cmd");
	assert_string_equal(q.baseline, "pc3");
	assert_string_equal(q.why, "params: pid is not a whole number in range");
	run_params_free(&q);
	/* nothing to copy: nothing owned */
	run_params_decode(NULL, &p);
	assert_int_equal(run_params_copy(&q, &p), 0);
	assert_null(q.doc);
	assert_null(q.settings);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_rollback_sample_probe),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
