/*
 * test-settings.c - the settings registry (src/settings.c): lookup,
 * validation and canonical spelling of every type, equality, reading,
 * writing (into a private copy of a fixture) and snapshots of each fixture.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "swaptune/settings.h"

static const struct setting_def *def(const char *name)
{
	const struct setting_def *d = settings_find(name);

	assert_non_null(d);
	return d;
}

static void test_registry(void **state)
{
	(void)state;
	assert_true(settings_count() >= 7);
	assert_true(settings_count() <= SETTINGS_MAX);
	assert_ptr_equal(settings_find("vm.page-cluster"), def("page-cluster"));
	assert_null(settings_find("page_cluster"));
	assert_null(settings_find(""));
	assert_string_equal(def("page-cluster")->path, HOST_PAGE_CLUSTER);
	assert_string_equal(def("vma_ra_enabled")->path, HOST_VMA_RA);
	assert_int_equal(def("zswap.enabled")->type, SETTING_BOOL_YN);
	assert_int_equal(def("zswap.compressor")->type, SETTING_COMPRESSOR);
	for (size_t i = 0; i < settings_count(); i++) {
		const struct setting_def *d = settings_at(i);

		assert_ptr_equal(settings_find(d->name), d);
		assert_non_null(d->summary);
		if (!strncmp(d->name, "zswap.", 6))
			assert_string_equal(d->modparam, d->name);
	}
	assert_null(settings_at(settings_count()));
}

/* normalize NAME IN on fixture: expect OUT, or an error when out is NULL */
static void norm(const struct host *h, const char *name, const char *in, const char *out)
{
	struct st_err e = {0};
	char buf[SETTING_VALUE_MAX] = "untouched";
	int r = settings_normalize(h, def(name), in, buf, sizeof(buf), &e);

	if (out) {
		if (r != 0)
			fail_msg("%s=%s: %s", name, in, e.msg);
		assert_string_equal(buf, out);
	} else {
		assert_int_equal(r, -EINVAL);
		assert_true(strncmp(e.msg, name, strlen(name)) == 0);
	}
}

static void test_normalize(void **state)
{
	struct st_err e = {0};
	struct host h;
	char buf[SETTING_VALUE_MAX];

	(void)state;
	fx_host(&h, "v2-zswap-on");
	norm(&h, "page-cluster", "0", "0");
	norm(&h, "page-cluster", "31", "31");
	norm(&h, "page-cluster", "007", "7");
	norm(&h, "page-cluster", "32", NULL);
	norm(&h, "page-cluster", "-1", NULL);
	norm(&h, "page-cluster", "3x", NULL);
	norm(&h, "page-cluster", "", NULL);
	norm(&h, "page-cluster", "99999999999999999999", NULL);
	norm(&h, "zswap.max_pool_percent", "100", "100");
	norm(&h, "zswap.max_pool_percent", "101", NULL);
	assert_int_equal(settings_normalize(&h, def("page-cluster"), "32", buf, sizeof(buf), &e), -EINVAL);
	assert_string_equal(e.msg, "page-cluster: \"32\" is not a number from 0 to 31");
	err_reset(&e);

	norm(&h, "zswap.enabled", "on", "Y");
	norm(&h, "zswap.enabled", "1", "Y");
	norm(&h, "zswap.enabled", "TRUE", "Y");
	norm(&h, "zswap.enabled", "n", "N");
	norm(&h, "zswap.enabled", "off", "N");
	norm(&h, "zswap.enabled", "maybe", NULL);
	norm(&h, "zswap.enabled", "", NULL);
	norm(&h, "vma_ra_enabled", "1", "true");
	norm(&h, "vma_ra_enabled", "Y", "true");
	norm(&h, "vma_ra_enabled", "no", "false");
	norm(&h, "vma_ra_enabled", "2", NULL);

	/* compressors: only what this sysroot's /proc/crypto offers */
	norm(&h, "zswap.compressor", "zstd", "zstd");
	norm(&h, "zswap.compressor", "lz4", "lz4");
	norm(&h, "zswap.compressor", "deflate", "deflate");
	norm(&h, "zswap.compressor", "brotli", NULL);
	norm(&h, "zswap.compressor", "zst", NULL);
	assert_int_equal(settings_normalize(&h, def("zswap.compressor"), "brotli", buf,
					    sizeof(buf), &e), -EINVAL);
	assert_string_equal(e.msg, "zswap.compressor: \"brotli\" is not offered by this kernel "
			    "(available: zstd lz4 lzo-rle lzo deflate)");
	host_close(&h);

	fx_host(&h, "vm-v1");
	norm(&h, "zswap.compressor", "lzo", "lzo");
	norm(&h, "zswap.compressor", "zstd", NULL);
	host_close(&h);
}

static void test_equal(void **state)
{
	(void)state;
	assert_true(settings_equal(def("zswap.enabled"), "Y", "1"));
	assert_true(settings_equal(def("zswap.enabled"), "N", "off"));
	assert_false(settings_equal(def("zswap.enabled"), "Y", "N"));
	assert_false(settings_equal(def("zswap.enabled"), "junk", "junk"));
	assert_true(settings_equal(def("vma_ra_enabled"), "true", "Y"));
	assert_true(settings_equal(def("page-cluster"), "3", "03"));
	assert_false(settings_equal(def("page-cluster"), "3", "4"));
	assert_false(settings_equal(def("page-cluster"), "3", "3x"));
	assert_true(settings_equal(def("zswap.compressor"), "lzo", "lzo"));
	assert_false(settings_equal(def("zswap.compressor"), "lzo", "lzo-rle"));
}

static void test_read_write(void **state)
{
	struct st_err e = {0};
	struct host h;
	char dir[PATH_MAX], buf[SETTING_VALUE_MAX];

	(void)state;
	fx_host(&h, "vm-v1");
	assert_int_equal(settings_read(&h, def("page-cluster"), buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "3");
	assert_int_equal(settings_read(&h, def("vma_ra_enabled"), buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "true");
	host_close(&h);

	fx_host(&h, "broken-pagecluster");
	assert_int_equal(settings_read(&h, def("page-cluster"), buf, sizeof(buf), &e), -EBADMSG);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/sys/vm/page-cluster: line 1: expected a number 0..31, found \"banana\"");
	err_reset(&e);
	host_close(&h);

	fx_host(&h, "no-zswap");
	assert_int_equal(settings_read(&h, def("zswap.enabled"), buf, sizeof(buf), &e), -ENOENT);
	err_reset(&e);
	assert_int_equal(settings_write_raw(&h, def("zswap.enabled"), "Y", &e), -ENOENT);
	err_reset(&e);
	host_close(&h);

	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	assert_int_equal(settings_write_raw(&h, def("page-cluster"), "0", &e), 0);
	assert_string_equal(fx_read(dir, HOST_PAGE_CLUSTER, buf, sizeof(buf)), "0");
	assert_int_equal(settings_write_raw(&h, def("zswap.enabled"), "Y", &e), 0);
	assert_string_equal(fx_read(dir, HOST_ZSWAP_PARAMS "/enabled", buf, sizeof(buf)), "Y");
	/* only what the registry takes reaches the file, in its canonical spelling */
	assert_int_equal(settings_write_raw(&h, def("page-cluster"), "banana", &e), -EINVAL);
	err_reset(&e);
	assert_int_equal(settings_write_raw(&h, def("page-cluster"), "99", &e), -EINVAL);
	err_reset(&e);
	assert_string_equal(fx_read(dir, HOST_PAGE_CLUSTER, buf, sizeof(buf)), "0");
	assert_int_equal(settings_write_raw(&h, def("zswap.compressor"), "lzo\n$(id)", &e), -EINVAL);
	err_reset(&e);
	assert_int_equal(settings_write_raw(&h, def("zswap.enabled"), "off", &e), 0);
	assert_string_equal(fx_read(dir, HOST_ZSWAP_PARAMS "/enabled", buf, sizeof(buf)), "N");
	assert_int_equal(settings_write_raw(&h, def("zswap.enabled"), "Y", &e), 0);
	/* a kernel that answers with another spelling of the same value is fine */
	assert_int_equal(settings_write_raw(&h, def("vma_ra_enabled"), "false", &e), 0);
	assert_int_equal(settings_read(&h, def("vma_ra_enabled"), buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "false");
	/* a boolean the kernel never writes is bad input, not "off" */
	fx_write(dir, HOST_VMA_RA, "maybe\n");
	assert_int_equal(settings_read(&h, def("vma_ra_enabled"), buf, sizeof(buf), &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "expected true or false"));
	err_reset(&e);
	fx_write(dir, HOST_ZSWAP_PARAMS "/enabled", "maybe\n");
	assert_int_equal(settings_read(&h, def("zswap.enabled"), buf, sizeof(buf), &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "expected Y or N"));
	err_reset(&e);
	fx_write(dir, HOST_PAGE_CLUSTER, "99999999999999999999\n");
	assert_int_equal(settings_read(&h, def("page-cluster"), buf, sizeof(buf), &e), -EBADMSG);
	err_reset(&e);
	host_close(&h);
	fx_remove(dir);
}

static const char *val(const struct settings_snapshot *s, const char *name)
{
	const struct setting_value *v = settings_snapshot_get(s, name);

	assert_non_null(v);
	return v->present ? v->value : NULL;
}

static void test_snapshots(void **state)
{
	struct settings_snapshot s;
	struct st_err e = {0};
	struct host h;

	(void)state;
	fx_host(&h, "vm-v1");
	assert_int_equal(settings_snapshot(&h, &s, &e), 0);
	assert_int_equal(s.n, (int)settings_count());
	assert_string_equal(val(&s, "page-cluster"), "3");
	assert_string_equal(val(&s, "vma_ra_enabled"), "true");
	assert_string_equal(val(&s, "zswap.enabled"), "N");
	assert_string_equal(val(&s, "zswap.compressor"), "lzo");
	assert_string_equal(val(&s, "zswap.max_pool_percent"), "20");
	assert_string_equal(val(&s, "zswap.accept_threshold_percent"), "90");
	assert_string_equal(val(&s, "zswap.shrinker_enabled"), "N");
	assert_null(settings_snapshot_get(&s, "nonexistent"));
	host_close(&h);

	fx_host(&h, "v2-zswap-on");
	assert_int_equal(settings_snapshot(&h, &s, &e), 0);
	assert_string_equal(val(&s, "zswap.enabled"), "Y");
	assert_string_equal(val(&s, "zswap.compressor"), "zstd");
	assert_string_equal(val(&s, "zswap.shrinker_enabled"), "Y");
	host_close(&h);

	fx_host(&h, "zram-only");
	assert_int_equal(settings_snapshot(&h, &s, &e), 0);
	assert_string_equal(val(&s, "zswap.enabled"), "N");
	assert_string_equal(val(&s, "zswap.compressor"), "lzo-rle");
	host_close(&h);

	/* no zswap: the zswap settings are listed but absent */
	fx_host(&h, "no-zswap");
	assert_int_equal(settings_snapshot(&h, &s, &e), 0);
	assert_int_equal(s.n, (int)settings_count());
	assert_string_equal(val(&s, "page-cluster"), "3");
	assert_null(val(&s, "zswap.enabled"));
	assert_null(val(&s, "zswap.compressor"));
	assert_int_equal(e.code, 0);
	host_close(&h);

	fx_host(&h, "missing-debugfs");
	assert_int_equal(settings_snapshot(&h, &s, &e), 0);
	assert_string_equal(val(&s, "zswap.enabled"), "Y");
	host_close(&h);

	fx_host(&h, "broken-pagecluster");
	assert_int_equal(settings_snapshot(&h, &s, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "page-cluster"));
	host_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_read_write),
		cmocka_unit_test(test_snapshots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
