/*
 * test-metric-extract.c - a cmd probe's primary metric from fio JSON,
 * stress-ng YAML and sysbench text (probes/metric-extract.c), and the
 * judgement's refusal of a wall time that cannot move (src/judge.c).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swaptune/judge.h"
#include "swaptune/metric-extract.h"

static const char fio_json[] =
	"{\"fio version\":\"fio-3.33\",\"jobs\":["
	"{\"jobname\":\"a\",\"read\":{\"iops\":1000.5,\"bw\":4002,\"clat_ns\":{\"mean\":900.0}},\"write\":{\"iops\":0}},"
	"{\"jobname\":\"b\",\"read\":{\"iops\":999.5,\"bw\":3998,\"clat_ns\":{\"mean\":1100.0}},\"write\":{\"iops\":0}}]}";

static const char stress_yaml[] =
	"---\nsystem-info:\n      hostname: vm\nmetrics:\n"
	"    - stressor: cpu\n      bogo-ops: 10\n      bogo-ops-per-second-real-time: 5.5\n"
	"    - stressor: vm\n      bogo-ops: 4096\n      bogo-ops-per-second-usr-sys-time: 1000.25\n"
	"      bogo-ops-per-second-real-time: 2048.5\n...\n";

static const char sysbench_txt[] =
	"sysbench 1.0.20\n\nGeneral statistics:\n    total time:                          10.0012s\n"
	"CPU speed:\n    events per second:  1234.56\n\nLatency (ms):\n         min:  0.79\n"
	"         avg:                                    0.81\n         max:  4.10\n"
	"         95th percentile:                        0.83\n";

static void test_specs(void **state)
{
	char why[400];
	bool hb;

	(void)state;
	assert_int_equal(metric_spec_check("fio:read.iops", &hb, why, sizeof(why)), 0);
	assert_true(hb);
	assert_int_equal(metric_spec_check("fio:read.clat_ns.mean", &hb, why, sizeof(why)), 0);
	assert_false(hb);
	assert_int_equal(metric_spec_check("stress-ng:vm.bogo-ops-per-second-real-time", &hb, why, sizeof(why)), 0);
	assert_true(hb);
	assert_int_equal(metric_spec_check("sysbench:latency_p95_ms", &hb, why, sizeof(why)), 0);
	assert_false(hb);
	assert_int_equal(metric_spec_check("sysbench:events_per_second", &hb, why, sizeof(why)), 0);
	assert_true(hb);
	static const char *const bad[] = { "", "fio", "fio:", "fio:iops", "iperf:x.y", "sysbench:nope",
					   "fio:read.iops;rm", "stress-ng:vm", "fio:../x.y" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (metric_spec_check(bad[i], &hb, why, sizeof(why)) != -EINVAL)
			fail_msg("spec '%s' accepted", bad[i]);
}

static void test_extract(void **state)
{
	char why[200];
	double v = 0;

	(void)state;
	assert_int_equal(metric_extract("fio:read.iops", fio_json, strlen(fio_json), &v, why, sizeof(why)), 0);
	assert_float_equal(v, 2000.0, 1e-9);		/* summed over jobs */
	assert_int_equal(metric_extract("fio:read.clat_ns.mean", fio_json, strlen(fio_json), &v, why, sizeof(why)), 0);
	assert_float_equal(v, 1000.0, 1e-9);		/* latencies averaged */
	assert_int_equal(metric_extract("fio:trim.iops", fio_json, strlen(fio_json), &v, why, sizeof(why)), -ENOENT);
	assert_int_equal(metric_extract("fio:read.iops", "not json", 8, &v, why, sizeof(why)), -EBADMSG);
	assert_int_equal(metric_extract("stress-ng:vm.bogo-ops-per-second-real-time", stress_yaml,
					strlen(stress_yaml), &v, why, sizeof(why)), 0);
	assert_float_equal(v, 2048.5, 1e-9);		/* the vm entry, not cpu's */
	assert_int_equal(metric_extract("stress-ng:cpu.bogo-ops-per-second-real-time", stress_yaml,
					strlen(stress_yaml), &v, why, sizeof(why)), 0);
	assert_float_equal(v, 5.5, 1e-9);
	assert_int_equal(metric_extract("stress-ng:io.bogo-ops", stress_yaml, strlen(stress_yaml), &v,
					why, sizeof(why)), -ENOENT);
	assert_int_equal(metric_extract("sysbench:events_per_second", sysbench_txt, strlen(sysbench_txt),
					&v, why, sizeof(why)), 0);
	assert_float_equal(v, 1234.56, 1e-9);
	assert_int_equal(metric_extract("sysbench:latency_avg_ms", sysbench_txt, strlen(sysbench_txt),
					&v, why, sizeof(why)), 0);
	assert_float_equal(v, 0.81, 1e-9);
	assert_int_equal(metric_extract("sysbench:latency_p95_ms", sysbench_txt, strlen(sysbench_txt),
					&v, why, sizeof(why)), 0);
	assert_float_equal(v, 0.83, 1e-9);
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(metric_extract("sysbench:events_per_second", sysbench_txt, 20, &v, why, sizeof(why)),
			 -ENOENT);
}

/* wall time that cannot move: no verdict, with the reason */
static void test_fixed_wall_time(void **state)
{
	struct verdict2_input *in = calloc(1, sizeof(*in));
	struct judgement *j = calloc(1, sizeof(*j));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct judge_plan plan;

	(void)state;
	assert_non_null(in);
	assert_non_null(j);
	assert_non_null(v);
	in->metric = VERDICT_METRIC_WALL_TIME;
	in->n_arms = 2;
	in->n_rounds = 5;
	strcpy(in->arms[0].name, "pc3");
	strcpy(in->arms[1].name, "pc0");
	in->arms[0].is_baseline = true;
	for (size_t r = 0; r < 5; r++)
		for (int a = 0; a < 2; a++) {
			in->arms[a].outcome[r] = VERDICT_OUT_OK;
			in->arms[a].primary[r] = 10.0 + 0.001 * (double)((r + (size_t)a) % 3);
		}
	judge_plan_fixed(&plan, 5);
	assert_int_equal(judge_run(&(struct judge_case){ in, &plan }, NULL, "pc3", j, v, NULL), 0);
	assert_int_equal(v->kind, VERDICT_INCONCLUSIVE);
	assert_false(j->judged);
	assert_non_null(strstr(v->reasons[0], "fixed time"));
	/* the same with real spread is judged */
	for (size_t r = 0; r < 5; r++)
		in->arms[1].primary[r] = 9.0 + 0.3 * (double)(r % 2);
	assert_int_equal(judge_run(&(struct judge_case){ in, &plan }, NULL, "pc3", j, v, NULL), 0);
	assert_true(j->judged);
	free(in);
	free(j);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_specs),
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_fixed_wall_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
