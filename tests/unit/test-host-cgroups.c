/*
 * test-host-cgroups.c - the memory cgroup walk of the host layer
 * (src/host-cgroups.c) on copies of the fixture trees: v2 and v1 keys,
 * memory.swap.current and memory.pressure beside memory.stat, the depth and
 * row limits, a root without memory.stat kept as a row without figures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture-util.h"
#include "swaptune/host-cgroups.h"

static const struct host_cgroup_stat *find(const struct host_cgroup_stat *rows, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].path, path))
			return &rows[i];
	return NULL;
}

static void v2_tree(char *dir)
{
	fx_copy("v2-zswap-on", dir);
	fx_write(dir, "sys/fs/cgroup/system.slice/db.service/memory.stat",
		 "anon 734003200\nfile 1048576\nzswap 4194304\nzswapped 16777216\nzswpin 50\n"
		 "zswpout 900\nworkingset_refault_anon 100\nworkingset_refault_file 10\npgmajfault 7\n");
	fx_write(dir, "sys/fs/cgroup/system.slice/db.service/memory.swap.current", "268435456\n");
	fx_write(dir, "sys/fs/cgroup/system.slice/db.service/memory.pressure",
		 "some avg10=3.25 avg60=0.50 avg300=0.10 total=12345\n"
		 "full avg10=1.00 avg60=0.00 avg300=0.00 total=10\n");
}

static void test_v2(void **state)
{
	char dir[PATH_MAX];
	struct host h;
	struct host_cgroups sc = { .truncated = true };
	const struct host_cgroup_stat *r;
	struct st_err e = { 0 };

	(void)state;
	v2_tree(dir);
	fx_host(&h, dir);
	assert_int_equal(host_cgroups_scan(&h, 4, 0, &sc, &e), 0);
	assert_int_equal(sc.version, 2);
	assert_false(sc.truncated);
	assert_int_equal(sc.n, 3);
	/* breadth first from the root, which has no memory.stat in this tree */
	assert_string_equal(sc.rows[0].path, "/");
	assert_int_equal(sc.rows[0].depth, 0);
	assert_false(sc.rows[0].have[HCG_ANON]);
	assert_non_null(r = find(sc.rows, sc.n, "/system.slice"));
	assert_int_equal(r->depth, 1);
	assert_true(r->have[HCG_ANON] && r->have[HCG_ZSWAP] && r->have[HCG_ZSWPIN]);
	assert_int_equal(r->val[HCG_ANON], 2147483648ull);
	assert_int_equal(r->val[HCG_ZSWAP], 314572800ull);
	assert_int_equal(r->val[HCG_ZSWPIN], 88213);
	assert_false(r->have[HCG_SWAP]);	/* no memory.swap.current there */
	assert_non_null(r = find(sc.rows, sc.n, "/system.slice/db.service"));
	assert_int_equal(r->depth, 2);
	assert_true(r->have[HCG_SWAP]);
	assert_int_equal(r->val[HCG_SWAP], 268435456ull);
	assert_int_equal(r->val[HCG_REFAULT_ANON], 100);
	assert_int_equal(r->val[HCG_REFAULT_FILE], 10);
	assert_int_equal(r->val[HCG_PGMAJFAULT], 7);
	assert_true(r->have_psi);
	assert_float_equal(r->psi.some.avg10, 3.25, 1e-9);
	assert_float_equal(r->psi.full.avg10, 1.0, 1e-9);
	free(sc.rows);

	/* one level deep: db.service is not reached */
	assert_int_equal(host_cgroups_scan(&h, 1, 0, &sc, &e), 0);
	assert_int_equal(sc.n, 2);
	assert_null(find(sc.rows, sc.n, "/system.slice/db.service"));
	free(sc.rows);

	/* two rows at most: the walk says more were there */
	assert_int_equal(host_cgroups_scan(&h, 4, 2, &sc, &e), 0);
	assert_int_equal(sc.n, 2);
	assert_true(sc.truncated);
	free(sc.rows);
	host_close(&h);
	fx_remove(dir);
}

static void test_v1(void **state)
{
	char dir[PATH_MAX];
	struct host h;
	struct host_cgroups sc = { .truncated = true };
	const struct host_cgroup_stat *r;
	struct st_err e = { 0 };

	(void)state;
	fx_copy("vm-v1", dir);
	fx_write(dir, "sys/fs/cgroup/memory/swaptune-x/memory.stat",
		 "rss 1\ntotal_rss 52428800\ntotal_cache 4096\ntotal_swap 1048576\n"
		 "total_pgmajfault 3\ntotal_workingset_refault_anon 20\n");
	fx_host(&h, dir);
	assert_int_equal(host_cgroups_scan(&h, 4, 0, &sc, &e), 0);
	assert_int_equal(sc.version, 1);
	assert_non_null(r = find(sc.rows, sc.n, "/swaptune-x"));
	/* v1: the hierarchical total_* keys, no zswap per cgroup */
	assert_int_equal(r->val[HCG_ANON], 52428800ull);
	assert_int_equal(r->val[HCG_FILE], 4096);
	assert_true(r->have[HCG_SWAP]);
	assert_int_equal(r->val[HCG_SWAP], 1048576ull);
	assert_false(r->have[HCG_ZSWAP]);
	assert_int_equal(r->val[HCG_PGMAJFAULT], 3);
	free(sc.rows);
	host_close(&h);
	fx_remove(dir);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(host_cgroup_field_name(HCG_SWAP), "swap");
	assert_string_equal(host_cgroup_field_name(HCG_COUNT), "?");
	assert_false(host_cgroup_field_counter(HCG_ZSWAP));
	assert_true(host_cgroup_field_counter(HCG_REFAULT_ANON));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
