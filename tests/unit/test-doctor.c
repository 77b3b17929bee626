/*
 * test-doctor.c - the doctor checks table (src/doctor.c): the table itself,
 * the root check on a live host as root and not, and which required checks
 * decide whether probing can work, on facts collected from fixtures; and a
 * tree with unreadable kernel files: only those parts are n/a.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "swaptune/doctor.h"

static const struct doctor_result *result(const struct doctor_result *res, const char *name)
{
	for (size_t i = 0; i < doctor_count(); i++)
		if (!strcmp(doctor_at(i)->name, name))
			return &res[i];
	fail_msg("no check %s", name);
	return NULL;
}

static void test_table(void **state)
{
	(void)state;
	assert_true(doctor_count() >= 14);
	for (size_t i = 0; i < doctor_count(); i++) {
		const struct doctor_check *c = doctor_at(i);

		assert_non_null(c->run);
		assert_ptr_equal(doctor_find(c->name), c);
		for (size_t k = i + 1; k < doctor_count(); k++)
			assert_string_not_equal(c->name, doctor_at(k)->name);
	}
	assert_null(doctor_at(doctor_count()));
	assert_null(doctor_find("nonexistent"));
	assert_true(doctor_find("root")->required);
	assert_true(doctor_find("swap")->required);
	assert_true(doctor_find("zswap")->required);
	assert_true(doctor_find("memory-cgroup")->required);
	assert_false(doctor_find("psi")->required);
	assert_false(doctor_find("native-bypass")->required);
	assert_false(doctor_find("cluster-effect")->required);
	assert_string_equal(doctor_status_name(DOCTOR_OK), "ok");
	assert_string_equal(doctor_status_name(DOCTOR_WARN), "warn");
	assert_string_equal(doctor_status_name(DOCTOR_FAIL), "fail");
	assert_string_equal(doctor_status_name(DOCTOR_SKIPPED), "skipped");
}

static void test_root_and_readiness(void **state)
{
	struct doctor_result res[64];
	struct host_facts f;
	struct st_err e = {0};
	struct host fx, live;
	struct doctor_env env;

	(void)state;
	assert_true(doctor_count() <= 64);
	fx_host(&fx, "vm-v1");
	assert_int_equal(facts_collect(&fx, &f, &e), 0);

	/* a captured tree: root is not this host's business */
	env = (struct doctor_env){ .h = &fx, .f = &f, .root = false };
	assert_true(doctor_run_all(&env, res));
	assert_int_equal(result(res, "root")->status, DOCTOR_SKIPPED);
	assert_int_equal(result(res, "rotational-swap")->status, DOCTOR_WARN);
	assert_string_equal(result(res, "rotational-swap")->fix,
			    "swapoff /dev/vdb for the probe, or move swap to a non-rotational device");
	assert_int_equal(result(res, "native-bypass")->status, DOCTOR_SKIPPED);
	assert_string_equal(result(res, "native-bypass")->message,
			    "a behavioural check: run swaptune doctor --behaviour (root, ~2 s, changes settings briefly)");
	for (size_t i = 0; i < doctor_count(); i++) {
		assert_true(res[i].message[0] != '\0');
		/* a fix hint exactly when there is something to fix */
		if (res[i].status == DOCTOR_OK || res[i].status == DOCTOR_SKIPPED)
			assert_string_equal(res[i].fix, "");
		else
			assert_true(res[i].fix[0] != '\0');
	}

	/* the live host, not root: probing cannot work */
	assert_int_equal(host_open(&live, "/", &e), 0);
	env = (struct doctor_env){ .h = &live, .f = &f, .root = false };
	assert_false(doctor_run_all(&env, res));
	assert_int_equal(result(res, "root")->status, DOCTOR_FAIL);
	assert_string_equal(result(res, "root")->fix, "run it as root: sudo swaptune doctor");
	env.root = true;
	assert_true(doctor_run_all(&env, res));
	assert_int_equal(result(res, "root")->status, DOCTOR_OK);
	host_close(&live);
	facts_free(&f);
	host_close(&fx);

	/* no zswap: the zswap check fails and the checks that need it skip */
	fx_host(&fx, "no-zswap");
	assert_int_equal(facts_collect(&fx, &f, &e), 0);
	env = (struct doctor_env){ .h = &fx, .f = &f, .root = true };
	assert_false(doctor_run_all(&env, res));
	assert_int_equal(result(res, "zswap")->status, DOCTOR_FAIL);
	assert_int_equal(result(res, "zswap-enabled")->status, DOCTOR_SKIPPED);
	assert_int_equal(result(res, "zswap-debugfs")->status, DOCTOR_SKIPPED);
	assert_int_equal(result(res, "psi")->status, DOCTOR_WARN);
	assert_int_equal(result(res, "vmstat-counters")->status, DOCTOR_WARN);
	assert_int_equal(result(res, "perf-paranoid")->status, DOCTOR_OK);
	facts_free(&f);
	host_close(&fx);

	/* hardware PMU, zswap on, debugfs missing */
	fx_host(&fx, "missing-debugfs");
	assert_int_equal(facts_collect(&fx, &f, &e), 0);
	env = (struct doctor_env){ .h = &fx, .f = &f, .root = true };
	assert_true(doctor_run_all(&env, res));
	assert_int_equal(result(res, "cpu-counters")->status, DOCTOR_OK);
	assert_string_equal(result(res, "cpu-counters")->message, "hardware counters (cpu)");
	assert_int_equal(result(res, "zswap-enabled")->status, DOCTOR_OK);
	assert_int_equal(result(res, "zswap-debugfs")->status, DOCTOR_WARN);
	assert_string_equal(result(res, "zswap-debugfs")->fix, "mount -t debugfs none /sys/kernel/debug");
	assert_int_equal(result(res, "perf-paranoid")->status, DOCTOR_WARN);
	facts_free(&f);
	host_close(&fx);
}

/* broken-several: four bad files; each is a problem of its own, the rest is read */
static void test_unreadable_parts(void **state)
{
	struct doctor_result res[64];
	struct host_facts f;
	struct st_err e = {0};
	struct doctor_env env;
	struct host fx;
	const struct facts_problem *p;

	(void)state;
	fx_host(&fx, "broken-several");
	assert_int_equal(facts_collect_all(&fx, &f, &e), 0);
	assert_int_equal(f.n_problems, 4);
	assert_non_null(p = facts_problem(&f, "swaps"));
	assert_int_equal(p->err.code, -EBADMSG);
	assert_int_equal(strncmp(p->file, fx.root, strlen(fx.root)), 0);
	assert_string_equal(p->file + strlen(fx.root), "/proc/swaps");
	assert_int_equal(strncmp(p->err.msg, p->file, strlen(p->file)), 0);
	assert_non_null(facts_problem(&f, "zswap.enabled"));
	assert_non_null(facts_problem(&f, "zswap-debugfs"));
	assert_non_null(facts_problem(&f, "psi"));
	assert_null(facts_problem(&f, "page-cluster"));
	assert_false(f.have_swaps);
	assert_int_equal(f.nswaps, 0);
	assert_true(f.zswap_present);
	assert_false(f.have_zswap_enabled);
	assert_false(f.zswap_stats_available);
	assert_false(f.psi_available);
	assert_int_equal(f.ra_algo, RA_UNKNOWN);
	/* what was readable is there */
	assert_true(f.have_meminfo);
	assert_true(f.mem_total_bytes > 0);
	assert_true(f.have_page_cluster);
	assert_int_equal(f.page_cluster, 3);
	assert_true(f.have_vmstat);
	assert_true(f.have_swap_ra);
	assert_true(f.have_cgroup);
	assert_string_equal(f.hostname, "broken-node-3");

	env = (struct doctor_env){ .h = &fx, .f = &f, .root = true };
	assert_false(doctor_run_all(&env, res));	/* swap is required */
	assert_int_equal(result(res, "swap")->status, DOCTOR_FAIL);
	assert_int_equal(strncmp(result(res, "swap")->message, "n/a: ", 5), 0);
	assert_int_equal(result(res, "rotational-swap")->status, DOCTOR_WARN);
	assert_int_equal(result(res, "zswap-enabled")->status, DOCTOR_WARN);
	assert_int_equal(result(res, "psi")->status, DOCTOR_WARN);
	assert_int_equal(result(res, "page-cluster")->status, DOCTOR_OK);
	assert_int_equal(result(res, "memory-cgroup")->status, DOCTOR_OK);
	for (size_t i = 0; i < doctor_count(); i++)
		if (!strncmp(res[i].message, "n/a: ", 5))
			assert_true(res[i].fix[0] != '\0');
	facts_free(&f);

	/* the strict form: the first problem is the error */
	err_reset(&e);
	assert_int_equal(facts_collect(&fx, &f, &e), -EBADMSG);
	assert_string_equal(e.msg, f.problems[0].err.msg);
	facts_free(&f);
	host_close(&fx);
}

/* doctor --behaviour's two trials as the command hands them over: the
 * cluster-effect row proves, fails to prove or waives page-cluster's
 * effect on readahead, never "ok" without both trials' figures. */
static void test_pc_effect(void **state)
{
	struct doctor_result res[64];
	struct host_facts f;
	struct st_err e = {0};
	struct host fx;
	struct doctor_bypass b;
	struct doctor_env env;
	const struct doctor_result *r;

	(void)state;
	fx_host(&fx, "vm-v1");
	assert_int_equal(facts_collect(&fx, &f, &e), 0);
	env = (struct doctor_env){ .h = &fx, .f = &f, .root = true, .bypass = &b };

	/* not asked for */
	env.bypass = NULL;
	doctor_run_all(&env, res);
	r = result(res, "cluster-effect");
	assert_int_equal(r->status, DOCTOR_SKIPPED);
	assert_string_equal(r->message,
			    "a behavioural check: run swaptune doctor --behaviour (root, ~2 s, changes settings briefly)");
	env.bypass = &b;

	/* page-cluster 3 read ahead, 0 did not: proven */
	b = (struct doctor_bypass){ .ran = true, .conclusive = true, .pc_ran = true,
				    .pc_conclusive = true, .pc_governs = true };
	snprintf(b.pc_evidence, sizeof(b.pc_evidence), "by 14334 with page-cluster=3 and by 0 with page-cluster=0");
	doctor_run_all(&env, res);
	r = result(res, "cluster-effect");
	assert_int_equal(r->status, DOCTOR_OK);
	assert_string_equal(r->message, "page-cluster governs swap readahead here: "
			    "by 14334 with page-cluster=3 and by 0 with page-cluster=0");
	assert_string_equal(r->fix, "");

	/* both read ahead alike: a warning that says what it means */
	b.pc_governs = false;
	doctor_run_all(&env, res);
	r = result(res, "cluster-effect");
	assert_int_equal(r->status, DOCTOR_WARN);
	assert_non_null(strstr(r->message, "page-cluster does not change swap readahead on this kernel"));
	assert_non_null(strstr(r->fix, "no difference between page-cluster arms"));

	/* the second trial did not swap enough, or never ran */
	b.pc_conclusive = false;
	doctor_run_all(&env, res);
	assert_int_equal(result(res, "cluster-effect")->status, DOCTOR_WARN);
	assert_non_null(strstr(result(res, "cluster-effect")->message, "not proven"));
	b = (struct doctor_bypass){ .ran = true };
	doctor_run_all(&env, res);
	assert_int_equal(result(res, "cluster-effect")->status, DOCTOR_WARN);
	assert_string_equal(result(res, "cluster-effect")->message,
			    "not proven: the page-cluster 3 trial was inconclusive");

	/* a native bypass: page-cluster does not reach zswap, nothing to prove */
	b = (struct doctor_bypass){ .ran = true, .conclusive = true, .native = true };
	doctor_run_all(&env, res);
	assert_int_equal(result(res, "cluster-effect")->status, DOCTOR_OK);
	assert_non_null(strstr(result(res, "cluster-effect")->message, "not needed"));

	/* the check could not run */
	b = (struct doctor_bypass){ .ran = true, .error = -5 };
	snprintf(b.error_msg, sizeof(b.error_msg), "cannot open /dev/loop-control");
	doctor_run_all(&env, res);
	assert_int_equal(result(res, "cluster-effect")->status, DOCTOR_WARN);
	assert_string_equal(result(res, "cluster-effect")->message,
			    "could not run: cannot open /dev/loop-control");
	facts_free(&f);
	host_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_root_and_readiness),
		cmocka_unit_test(test_pc_effect),
		cmocka_unit_test(test_unreadable_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
