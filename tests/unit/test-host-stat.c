/*
 * test-host-stat.c - the host layer's CPU statistics reader
 * (src/host-stat.c): the aggregate cpu line with and without steal, the
 * procs_ lines, garbage refused, a long intr line read whole, and the file
 * read under a private sysroot tree.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture-util.h"
#include "swaptune/host.h"

static const char stat_6_18[] =
	"cpu  40610 0 20403 91093 929 0 507 37 0 0\n"
	"cpu0 17408 0 7822 51327 34 0 171 20 0 0\n"
	"cpu1 23202 0 12580 39765 894 0 336 17 0 0\n"
	"intr 4815162 0 9 0 0\n"
	"ctxt 23000000\n"
	"btime 1764600000\n"
	"processes 17324\n"
	"procs_running 5\n"
	"procs_blocked 1\n"
	"softirq 1 2 3 4 5 6 7 8 9 10 11\n";

static void test_parse(void **state)
{
	struct host_cpu_stat s;
	struct st_err e = {0};

	(void)state;
	assert_int_equal(host_cpu_stat_parse(&s, stat_6_18, "stat", &e), 0);
	assert_true(s.have_cpu);
	assert_true(s.have_steal);
	assert_int_equal(s.user, 40610);
	assert_int_equal(s.system, 20403);
	assert_int_equal(s.idle, 91093);
	assert_int_equal(s.iowait, 929);
	assert_int_equal(s.softirq, 507);
	assert_int_equal(s.steal, 37);
	assert_true(s.have_procs);
	assert_int_equal(s.procs_running, 5);
	assert_int_equal(s.procs_blocked, 1);
}

static void test_old_and_partial(void **state)
{
	struct host_cpu_stat s;
	struct st_err e = {0};

	(void)state;
	/* a 2.6.9 kernel: no steal field, no procs_blocked line */
	assert_int_equal(host_cpu_stat_parse(&s, "cpu  1 2 3 4 5 6 7\nprocs_running 2\n", "stat", &e), 0);
	assert_true(s.have_cpu);
	assert_false(s.have_steal);
	assert_int_equal(s.steal, 0);
	assert_false(s.have_procs);
	/* neither line: nothing to go on */
	assert_int_equal(host_cpu_stat_parse(&s, "ctxt 5\n", "stat", &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "no cpu line"));
}

static void test_garbage(void **state)
{
	static const char *const bad[] = {
		"cpu  1 2 x 4\nprocs_running 1\nprocs_blocked 0\n",
		"cpu  1 2 3\n",
		"cpu  -1 2 3 4\n",
		"cpu  1 2 3 4 99999999999999999999999\n",
		"cpu  1 2 3 4\nprocs_running many\nprocs_blocked 0\n",
		"cpu  1 2 3 4\nprocs_blocked 1 2\n",
	};
	struct host_cpu_stat s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct st_err e = {0};

		assert_int_equal(host_cpu_stat_parse(&s, bad[i], "stat", &e), -EBADMSG);
		assert_true(e.msg[0] != '\0');
	}
}

/* The file under a sysroot, with an intr line far longer than any fixed buffer. */
static void test_read_tree(void **state)
{
	char root[PATH_MAX], path[PATH_MAX + 32];
	struct host_cpu_stat s;
	struct st_err e = {0};
	struct host h;
	FILE *f;

	(void)state;
	fx_scratch(root);
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(host_open(&h, root, &e), 0);
	assert_int_equal(host_read_cpu_stat(&h, &s, &e), -ENOENT);

	snprintf(path, sizeof(path), "%s/proc/stat", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "cpu  10 0 20 30 0 0 0 4 0 0\nintr 1");
	for (int i = 0; i < 100000; i++)
		fprintf(f, " %d", i % 7);
	fprintf(f, "\nprocs_running 3\nprocs_blocked 0\n");
	fclose(f);
	err_reset(&e);
	assert_int_equal(host_read_cpu_stat(&h, &s, &e), 0);
	assert_int_equal(s.user, 10);
	assert_int_equal(s.steal, 4);
	assert_int_equal(s.procs_running, 3);
	assert_true(s.have_procs);
	host_close(&h);
	fx_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_old_and_partial),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_read_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
