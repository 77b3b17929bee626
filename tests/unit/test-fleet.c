/*
 * test-fleet.c - the pure fleet model (src/fleet.c): DerSimonian-Laird
 * pooling against a hand computation, per-run log effects, grouping of like
 * hosts, fleet advice and its "too little to go on" threshold, and the
 * export-document checks import relies on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fleet.h"

/*
 * By hand: y = (0, 0.5, 0.1), v = (0.01, 0.01, 0.04). Fixed weights
 * (100, 100, 25): sum 225, sum of squares 20625, mu_FE = 52.5 / 225 = 0.23333.
 * Q = 100 * 0.23333^2 + 100 * 0.26667^2 + 25 * 0.13333^2 = 13.
 * C = 225 - 20625 / 225 = 133.333; tau^2 = (13 - 2) / 133.333 = 0.0825.
 * Random weights 1/0.0925, 1/0.0925, 1/0.1225 sum to 29.78489;
 * mu = 6.221732 / 29.78489 = 0.208889, se = sqrt(1 / 29.78489) = 0.183232.
 */
static void test_pool_dl_hand(void **state)
{
	const double y[] = { 0.0, 0.5, 0.1 }, v[] = { 0.01, 0.01, 0.04 };
	struct fleet_pooled p;

	(void)state;
	assert_int_equal(fleet_pool_dl(y, v, 3, &p, NULL), 0);
	assert_int_equal(p.k, 3);
	assert_float_equal(p.q, 13.0, 1e-9);
	assert_float_equal(p.tau2, 0.0825, 1e-9);
	assert_float_equal(p.mu, 0.208889, 1e-6);
	assert_float_equal(p.se, 0.183232, 1e-6);
	assert_float_equal(p.ci_low, 0.208889 - 1.959964 * 0.183232, 1e-5);
	assert_float_equal(p.effect_pct, (exp(0.208889) - 1) * 100, 1e-3);
}

/* Homogeneous effects: Q < k - 1, tau^2 = 0, the fixed-effect answer. */
static void test_pool_dl_homogeneous(void **state)
{
	const double y[] = { 0.1, 0.3, 0.2 }, v[] = { 0.01, 0.04, 0.02 };
	struct fleet_pooled p;

	(void)state;
	assert_int_equal(fleet_pool_dl(y, v, 3, &p, NULL), 0);
	assert_float_equal(p.tau2, 0.0, 0);
	assert_float_equal(p.mu, 27.5 / 175, 1e-12);
	assert_float_equal(p.se, sqrt(1.0 / 175), 1e-12);
	assert_float_equal(p.q, 0.928571, 1e-6);
}

static void test_pool_dl_edges(void **state)
{
	const double y[] = { 0.2, NAN }, v[] = { 0.04, 0.01 };
	struct fleet_pooled p;

	(void)state;
	assert_int_equal(fleet_pool_dl(y, v, 0, &p, NULL), -EINVAL);
	assert_int_equal(fleet_pool_dl(y, v, 2, &p, NULL), -EINVAL);
	assert_int_equal(fleet_pool_dl(y, v, 1, &p, NULL), 0);
	assert_float_equal(p.mu, 0.2, 1e-12);
	assert_float_equal(p.se, 0.2, 1e-12);
	assert_float_equal(p.tau2, 0, 0);
}

/* fleet_log_effect() of two arms given as mean, sd and ok trials */
static bool log_effect(double mean_c, double sd_c, unsigned n_c, double mean_b, double sd_b,
		       unsigned n_b, double *y, double *v)
{
	struct fleet_arm c = { .n_ok = n_c, .mean = mean_c, .sd = sd_c };
	struct fleet_arm b = { .n_ok = n_b, .mean = mean_b, .sd = sd_b };

	return fleet_log_effect(&c, &b, y, v);
}

static void test_log_effect(void **state)
{
	double y, v;

	(void)state;
	/* ln(110/100); 10^2/(4*110^2) + 5^2/(4*100^2) */
	assert_true(log_effect(110, 10, 4, 100, 5, 4, &y, &v));
	assert_float_equal(y, log(1.1), 1e-12);
	assert_float_equal(v, 100.0 / (4 * 12100) + 25.0 / 40000, 1e-15);
	assert_false(log_effect(110, 10, 1, 100, 5, 4, &y, &v));
	assert_false(log_effect(0, 10, 4, 100, 5, 4, &y, &v));
	assert_false(log_effect(110, NAN, 4, 100, 5, 4, &y, &v));
}

static void test_names(void **state)
{
	char mm[16];

	(void)state;
	fleet_kernel_major_minor("6.8.0-45-generic", mm, sizeof(mm));
	assert_string_equal(mm, "6.8");
	fleet_kernel_major_minor("6.18.44-fc", mm, sizeof(mm));
	assert_string_equal(mm, "6.18");
	fleet_kernel_major_minor("linux", mm, sizeof(mm));
	assert_string_equal(mm, "");
	assert_string_equal(fleet_backend_name("/dev/zram0", "host"), "zram");
	assert_string_equal(fleet_backend_name("/dev/vda3", "host"), "disk");
	assert_string_equal(fleet_backend_name("/dev/loop3", "scratch-loop"), "loop");
	assert_string_equal(fleet_backend_name("", ""), "unknown");
}

static void mkrun(struct fleet_run *r, const char *mid, const char *kernel, double base,
		  double cand, bool higher)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->machine_id, sizeof(r->machine_id), "%s", mid);
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernel);
	snprintf(r->cpu_model, sizeof(r->cpu_model), "cpu");
	snprintf(r->backend, sizeof(r->backend), "disk");
	snprintf(r->workload, sizeof(r->workload), "anon-seq");
	snprintf(r->baseline, sizeof(r->baseline), "pc3");
	snprintf(r->verdict, sizeof(r->verdict), "switch");
	r->higher_is_better = higher;
	r->n_arms = 2;
	r->arms[0] = (struct fleet_arm){ .name = "pc3", .n_trials = 5, .n_ok = 5, .mean = base, .sd = 10 };
	r->arms[1] = (struct fleet_arm){ .name = "pc0", .n_trials = 6, .n_ok = 5, .n_oom = 1,
					 .mean = cand, .sd = 10 };
}

static void test_group_and_advise(void **state)
{
	struct fleet_run runs[4];
	struct fleet_group *g;
	struct fleet_advice a;
	struct fleet_target t = { "6.8", "disk", "" };
	size_t ng;
	double y, v;

	(void)state;
	mkrun(&runs[0], "m1", "6.8.0-45-generic", 1000, 1100, true);
	mkrun(&runs[1], "m2", "6.8.0-45-generic", 1000, 1080, true);
	mkrun(&runs[2], "m2", "6.8.0-45-generic", 1000, 1120, true);
	mkrun(&runs[3], "m3", "6.1.0-13-amd64", 10, 9, false);	/* wall time: lower is better */
	assert_int_equal(fleet_group_runs(runs, 4, &g, &ng, NULL), 0);
	assert_int_equal(ng, 2);
	assert_int_equal(g[0].n_runs, 3);
	assert_int_equal(g[0].n_hosts, 2);
	assert_int_equal(g[0].n_trials, 33);
	assert_int_equal(g[0].n_oom, 3);
	assert_string_equal(g[0].verdicts[0].kind, "switch");
	assert_int_equal(g[0].verdicts[0].n, 3);
	assert_int_equal(g[0].n_arms, 1);
	assert_string_equal(g[0].arms[0].name, "pc0");
	assert_int_equal(g[0].arms[0].pooled.k, 3);
	assert_true(g[0].arms[0].pooled.mu > log(1.08) && g[0].arms[0].pooled.mu < log(1.12));
	/* lower is better: 10 -> 9 is a gain, so the signed effect is -ln(0.9) */
	assert_true(log_effect(9, 10, 5, 10, 10, 5, &y, &v));
	assert_float_equal(g[1].arms[0].pooled.mu, -y, 1e-12);
	free(g);

	assert_int_equal(fleet_advise(runs, 4, &t, &a, NULL), 0);
	assert_int_equal(a.n_runs, 3);
	assert_int_equal(a.n_hosts, 2);
	assert_true(a.enough);
	assert_int_equal(a.best, 0);
	assert_true(a.best_significant);
	/* two runs from one host: too little to go on */
	assert_int_equal(fleet_advise(runs + 1, 2, &t, &a, NULL), 0);
	assert_int_equal(a.n_hosts, 1);
	assert_false(a.enough);
	/* no host on 5.15 */
	snprintf(t.kernel_mm, sizeof(t.kernel_mm), "5.15");
	assert_int_equal(fleet_advise(runs, 4, &t, &a, NULL), 0);
	assert_int_equal(a.n_runs, 0);
	assert_false(a.enough);
}

static int parse(const char *text, struct st_err *e)
{
	cJSON *d = NULL;
	int r = fleet_doc_parse(text, strlen(text), &d, e);

	cJSON_Delete(d);
	return r;
}

#define HOST "\"host\":{\"machine_id\":\"m\",\"hostname\":\"h\",\"kernel\":null,\"swaptune_version\":\"1\"}"

static void test_doc_parse(void **state)
{
	struct st_err e = {0};
	char deep[200];

	(void)state;
	assert_int_equal(parse("{\"schema\":\"swaptune.export/1\",\"exported_at\":\"2026-11-30T00:00:00Z\"," HOST ",\"runs\":[]}", &e), 0);
	/* a key twice, and a date no calendar has */
	assert_int_equal(parse("{\"schema\":\"swaptune.export/1\",\"exported_at\":\"2026-11-30T00:00:00Z\","
			       HOST ",\"runs\":[],\"runs\":[]}", &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "given twice"));
	err_reset(&e);
	assert_int_equal(parse("{\"schema\":\"swaptune.export/1\",\"exported_at\":\"2026-02-30T00:00:00Z\","
			       HOST ",\"runs\":[]}", &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "exported_at"));
	err_reset(&e);
	assert_int_equal(parse("{\"schema\":\"swaptune.export/9\"}", &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "swaptune.export/9"));
	err_reset(&e);
	assert_int_equal(parse("{\"schema\":\"swaptune.export/1\",\"exported_at\":\"2026-11-30T00:00:00Z\"," HOST
			       ",\"runs\":[{\"id\":-1}]}", &e), -EBADMSG);
	assert_string_equal(e.msg, "runs[0].id: negative");
	err_reset(&e);
	memset(deep, '[', 40);
	memset(deep + 40, ']', 40);
	deep[80] = '\0';
	assert_int_equal(parse(deep, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "nested deeper"));
	err_reset(&e);
	assert_int_equal(parse("{\"schema\":\"swaptune.export/1\",", &e), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_dl_hand),
		cmocka_unit_test(test_pool_dl_homogeneous),
		cmocka_unit_test(test_pool_dl_edges),
		cmocka_unit_test(test_log_effect),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_group_and_advise),
		cmocka_unit_test(test_doc_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
