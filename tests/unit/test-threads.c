/*
 * test-threads.c - what the TUI does at once: its engine thread (a probe
 * or a switchback, panel-probe.c and panel-switchback.c) reads the host,
 * judges it and opens CPU counters while the screen's thread reads the same
 * host for its panels. Here two workers and the main thread do both on a
 * captured tree and must each get what one thread alone gets. Under
 * `make check-tsan` (ThreadSanitizer, halt_on_error) a shared buffer or an
 * unguarded first-use in the host layer fails the run even when the
 * values happen to come out right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture-util.h"

#include "swaptune/colour.h"
#include "swaptune/doctor.h"
#include "swaptune/facts.h"
#include "swaptune/fmt.h"
#include "swaptune/pmu.h"
#include "swaptune/recipe.h"
#include "swaptune/stop.h"

#define ROUNDS 25
#define WORKERS 2

struct expect {
	struct host h;
	char compressors[512];
	struct st_cgroup_info cgroup;
	struct doctor_result res[64];
};

struct worker {
	const struct expect *x;
	int id;
	int wrong;		/* rounds whose values differed from one thread's */
	size_t recipe_fields;	/* what recipe_field_count() and colour_on(stderr) said */
	bool colour;
	char what[200];		/* the first difference */
};

/* One screen refresh or one engine step: facts, doctor, a name, a signal, counters. */
static void one_round(struct worker *w)
{
	struct host_facts f;
	struct doctor_result res[64];
	struct doctor_env env;
	struct pmu_counters pc;
	struct st_err e = { 0 };
	char name[64], want[64];
	const char *got;

	if (facts_collect_all(&w->x->h, &f, &e) < 0) {
		w->wrong++;
		snprintf(w->what, sizeof(w->what), "facts: %s", e.msg);
		return;
	}
	if (strcmp(f.compressors, w->x->compressors) || memcmp(&f.cgroup, &w->x->cgroup, sizeof(f.cgroup))) {
		w->wrong++;
		snprintf(w->what, sizeof(w->what), "compressors \"%s\" or the cgroup mounts differ", f.compressors);
	}
	env = (struct doctor_env){ .h = &w->x->h, .f = &f, .root = false };
	doctor_run_all(&env, res);
	for (size_t i = 0; i < doctor_count(); i++)
		if (res[i].status != w->x->res[i].status || strcmp(res[i].message, w->x->res[i].message)) {
			w->wrong++;
			snprintf(w->what, sizeof(w->what), "doctor %s: \"%s\"", doctor_at(i)->name, res[i].message);
		}
	facts_free(&f);

	snprintf(name, sizeof(name), "swaptune-\x1b-thread-%d", w->id);
	snprintf(want, sizeof(want), "swaptune-\\x1b-thread-%d", w->id);
	got = fmt_printable(name);
	if (strcmp(got, want)) {
		w->wrong++;
		snprintf(w->what, sizeof(w->what), "fmt_printable: \"%s\"", got);
	}
	snprintf(want, sizeof(want), "signal %d", 40 + w->id);
	got = stop_signal_name(40 + w->id);
	if (strcmp(got, want)) {
		w->wrong++;
		snprintf(w->what, sizeof(w->what), "stop_signal_name: \"%s\"", got);
	}
	/* tables and answers made once, by whichever thread asks first (compared after the join) */
	w->recipe_fields = recipe_field_count();
	w->colour = colour_on(stderr);
	/* libpfm4 is initialised by whichever thread opens counters first */
	err_reset(&e);
	if (pmu_counters_open(&pc, PMU_TARGET_PID, (int)getpid(), &e) == 0)
		pmu_counters_close(&pc);
}

static void *run(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < ROUNDS; i++)
		one_round(w);
	return NULL;
}

static void on_fixture(const char *fixture)
{
	struct expect x;
	struct host_facts f;
	struct doctor_env env;
	struct st_err e = { 0 };
	struct worker w[WORKERS + 1];
	pthread_t th[WORKERS];

	memset(&x, 0, sizeof(x));
	fx_host(&x.h, fixture);
	assert_true(doctor_count() <= 64);
	assert_int_equal(facts_collect_all(&x.h, &f, &e), 0);
	snprintf(x.compressors, sizeof(x.compressors), "%s", f.compressors);
	x.cgroup = f.cgroup;
	env = (struct doctor_env){ .h = &x.h, .f = &f, .root = false };
	doctor_run_all(&env, x.res);
	facts_free(&f);

	for (int i = 0; i <= WORKERS; i++)
		w[i] = (struct worker){ .x = &x, .id = i };
	for (int i = 0; i < WORKERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
	run(&w[WORKERS]);	/* the screen's thread */
	for (int i = 0; i < WORKERS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i <= WORKERS; i++) {
		if (w[i].wrong)
			fail_msg("%s, thread %d: %d wrong (%s)", fixture, i, w[i].wrong, w[i].what);
		assert_int_equal(w[i].recipe_fields, recipe_field_count());
		assert_int_equal(w[i].colour, colour_on(stderr));
	}
	host_close(&x.h);
}

static void test_host_readers_v1(void **state)
{
	(void)state;
	on_fixture("vm-v1");
}

static void test_host_readers_v2(void **state)
{
	(void)state;
	on_fixture("debian12-v2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_readers_v1),
		cmocka_unit_test(test_host_readers_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
