/*
 * test-fingerprint.c - the kernel fingerprint (src/fingerprint.c) on the
 * fixture trees and edited copies: release, cgroup version, readahead mode
 * and why (vma_ra_enabled, a rotational swap partition, the disk under a
 * swap file), zswap ever enabled since boot and its evidence, mTHP sizes
 * and large-folio swap-in, MGLRU, zswap shrinker and v2 writeback; missing
 * files as unknown; the differences that change advice; JSON written and
 * read back, and crafted JSON refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fixture-util.h"
#include "swaptune/fingerprint.h"

static void read_fixture(const char *name, const struct fp_hints *hints, struct kernel_fingerprint *fp)
{
	struct host h;

	fx_host(&h, name);
	fingerprint_read(&h, hints, fp);
	host_close(&h);
}

/* This VM's capture: 6.18, hybrid with memory on v1, a rotational swap partition, zswap used. */
static void test_vm_v1(void **state)
{
	struct kernel_fingerprint fp;

	(void)state;
	read_fixture("vm-v1", NULL, &fp);
	assert_string_equal(fp.release, "6.18.44-fc-v657");
	assert_true(fp.have_cgroup);
	assert_int_equal(fp.cgroup, CGROUP_HYBRID);
	assert_int_equal(fp.memcg_version, 1);
	assert_int_equal(fp.readahead, RA_CLUSTER);
	assert_non_null(strstr(fp.readahead_why, "/dev/vdb is rotational"));
	/* off now, but vmstat shows stores since boot */
	assert_int_equal(fp.zswap_ever, FP_YES);
	assert_string_equal(fp.zswap_ever_why, "vmstat zswpout is 401122 since boot");
	/* no transparent_hugepage in the capture: unknown, not "no" */
	assert_int_equal(fp.mthp_anon, FP_UNKNOWN);
	assert_int_equal(fp.n_mthp, 0);
	/* zswap was used: large folios are off whatever mTHP says */
	assert_int_equal(fp.large_folio_swapin, FP_NO);
	assert_non_null(strstr(fp.large_folio_swapin_why, "falls back to order 0 until reboot"));
	assert_int_equal(fp.mglru, FP_UNKNOWN);
	assert_int_equal(fp.zswap_writeback, FP_UNKNOWN);
	assert_false(fingerprint_zswap_enable_hazard(&fp));
}

/* Debian 12's 6.1 on cgroup v2 with a virtio disk (rotational) as swap. */
static void test_debian12(void **state)
{
	struct kernel_fingerprint fp;
	char buf[512];

	(void)state;
	read_fixture("debian12-v2", NULL, &fp);
	assert_string_equal(fp.release, "6.1.0-57-amd64");
	assert_int_equal(fp.cgroup, CGROUP_V2);
	assert_int_equal(fp.memcg_version, 2);
	assert_int_equal(fp.readahead, RA_CLUSTER);
	assert_non_null(strstr(fp.readahead_why, "/dev/vdb is rotational"));
	assert_int_equal(fp.zswap_ever, FP_NO);
	assert_non_null(strstr(fp.zswap_ever_why, "no trace"));
	assert_string_equal(fp.thp_enabled, "always");
	assert_int_equal(fp.pmd_kb, 2048);
	assert_int_equal(fp.n_mthp, 0);
	assert_int_equal(fp.mthp_anon, FP_NO);	/* THP without per-size directories */
	assert_int_equal(fp.large_folio_swapin, FP_NO);
	assert_string_equal(fp.large_folio_swapin_why, "this kernel predates large-folio swap-in (~6.13)");
	assert_int_equal(fp.mglru, FP_NO);
	assert_string_equal(fp.mglru_value, "0x0000");
	assert_int_equal(fp.zswap_shrinker, FP_UNKNOWN);	/* no shrinker_enabled before ~6.8 */
	assert_int_equal(fp.zswap_writeback, FP_NO);	/* system.slice has memory.stat, no zswap.writeback */
	fingerprint_summary(&fp, buf, sizeof(buf));
	assert_string_equal(buf, "6.1.0-57-amd64, cgroup v2, cluster readahead, zswap enabled since boot: no, "
			    "large-folio swap-in: no, MGLRU: off");
}

/* 6.14 with swap on zram only and a 64 kB mTHP size on: large folios possible. */
static void test_mthp_zram(void **state)
{
	struct kernel_fingerprint fp;
	struct fp_hints no = { .swaptune_enabled_zswap = FP_NO };

	(void)state;
	read_fixture("mthp-zram", &no, &fp);
	assert_int_equal(fp.readahead, RA_VMA);
	assert_non_null(strstr(fp.readahead_why, "all swap is zram"));
	assert_int_equal(fp.zswap_ever, FP_NO);
	assert_non_null(strstr(fp.zswap_ever_why, "swaptune did not enable it during this boot"));
	assert_string_equal(fp.thp_enabled, "madvise");
	assert_int_equal(fp.n_mthp, 8);
	assert_int_equal(fp.mthp[0].size_kb, 16);	/* ascending, whatever the directory order */
	assert_int_equal(fp.mthp[2].size_kb, 64);
	assert_string_equal(fp.mthp[2].enabled, "always");
	assert_int_equal(fp.mthp[7].size_kb, 2048);
	assert_string_equal(fp.mthp[7].enabled, "inherit");
	assert_int_equal(fp.mthp_anon, FP_YES);
	assert_int_equal(fp.large_folio_swapin, FP_YES);
	assert_true(fingerprint_zswap_enable_hazard(&fp));
	assert_int_equal(fp.mglru, FP_YES);
	assert_int_equal(fp.zswap_shrinker, FP_YES);
	assert_int_equal(fp.zswap_writeback, FP_YES);
}

/* Each kind of evidence that zswap was enabled since boot ends large-folio swap-in. */
static void test_zswap_ever_evidence(void **state)
{
	char dir[PATH_MAX], words[512];
	struct kernel_fingerprint before, fp;
	struct fp_hints yes = { .swaptune_enabled_zswap = FP_YES };
	struct host h;

	(void)state;
	read_fixture("mthp-zram", NULL, &before);
	fx_copy("mthp-zram", dir);
	fx_host(&h, dir);

	/* swaptune's journal says it enabled zswap during this boot */
	fingerprint_read(&h, &yes, &fp);
	assert_int_equal(fp.zswap_ever, FP_YES);
	assert_non_null(strstr(fp.zswap_ever_why, "journal"));
	assert_int_equal(fp.large_folio_swapin, FP_NO);
	assert_false(fingerprint_zswap_enable_hazard(&fp));
	assert_int_equal(fingerprint_diff(&before, &fp, words, sizeof(words)), FP_DIFF_LARGE_FOLIO);
	assert_string_equal(words, "large-folio swap-in possible -> not possible");

	/* the command line */
	fx_write(dir, "proc/cmdline", "BOOT_IMAGE=/vmlinuz ro zswap.enabled=1 quiet\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.zswap_ever, FP_YES);
	assert_non_null(strstr(fp.zswap_ever_why, "command line"));
	/* "nozswap.enabled=1" is another parameter */
	fx_write(dir, "proc/cmdline", "BOOT_IMAGE=/vmlinuz ro xzswap.enabled=1 zswap.enabled=0\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.zswap_ever, FP_NO);

	/* stores since boot, though off now */
	fx_write(dir, "proc/vmstat", "nr_free_pages 1000\npgpgin 5\nzswpin 0\nzswpout 17\nswap_ra 0\nswap_ra_hit 0\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.zswap_ever, FP_YES);
	assert_string_equal(fp.zswap_ever_why, "vmstat zswpout is 17 since boot");

	/* enabled now */
	fx_write(dir, "sys/module/zswap/parameters/enabled", "Y\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.zswap_ever, FP_YES);
	assert_string_equal(fp.zswap_ever_why, "zswap is enabled now");

	/* off, nothing stored, but vmstat unreadable: unknown, and so is the large-folio answer */
	fx_write(dir, "sys/module/zswap/parameters/enabled", "N\n");
	fx_write(dir, "proc/vmstat", "zswpout banana\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.zswap_ever, FP_UNKNOWN);
	assert_int_equal(fp.large_folio_swapin, FP_UNKNOWN);
	assert_false(fingerprint_zswap_enable_hazard(&fp));
	host_close(&h);
	fx_remove(dir);

	/* no zswap in the kernel at all: never */
	read_fixture("no-zswap", NULL, &fp);
	assert_int_equal(fp.zswap_ever, FP_NO);
	assert_string_equal(fp.zswap_ever_why, "zswap is not in this kernel");
	assert_int_equal(fp.zswap_shrinker, FP_UNKNOWN);
}

/* "inherit" follows the top-level mode; sizes at or above the PMD size do not count. */
static void test_mthp_inherit(void **state)
{
	char dir[PATH_MAX];
	struct kernel_fingerprint fp;
	struct host h;
	const char *t = "sys/kernel/mm/transparent_hugepage";
	char rel[256];

	(void)state;
	fx_copy("mthp-zram", dir);
	fx_host(&h, dir);
	snprintf(rel, sizeof(rel), "%s/hugepages-64kB/enabled", t);
	fx_write(dir, rel, "always [inherit] madvise never\n");
	snprintf(rel, sizeof(rel), "%s/enabled", t);
	fx_write(dir, rel, "always madvise [never]\n");
	fingerprint_read(&h, NULL, &fp);
	/* 64 kB and 2 MB inherit "never"; 2 MB would not count anyway */
	assert_int_equal(fp.mthp_anon, FP_NO);
	assert_int_equal(fp.large_folio_swapin, FP_NO);
	assert_string_equal(fp.large_folio_swapin_why,
			    "no mTHP size below the PMD size is enabled for anonymous memory");
	fx_write(dir, rel, "[always] madvise never\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.mthp_anon, FP_YES);
	/* only the PMD size on: not a size swap-in takes */
	snprintf(rel, sizeof(rel), "%s/hugepages-64kB/enabled", t);
	fx_write(dir, rel, "always inherit madvise [never]\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.mthp_anon, FP_NO);
	/* garbage in a size's file: that size is skipped */
	fx_write(dir, rel, "[sometimes]\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.n_mthp, 7);
	host_close(&h);
	fx_remove(dir);
}

/* The disk under a swap file decides, as a swap partition's does. */
static void test_swap_file_on_rotational_disk(void **state)
{
	char dir[PATH_MAX], rel[128], swaps[512];
	struct kernel_fingerprint fp;
	struct stat st;
	struct host h;

	(void)state;
	fx_copy("mthp-zram", dir);
	fx_write(dir, "var/swapfile", "");
	assert_int_equal(stat(dir, &st), 0);
	snprintf(swaps, sizeof(swaps), "Filename\tType\tSize\tUsed\tPriority\n"
		 "/var/swapfile                           file\t\t1048572\t\t0\t\t-2\n");
	fx_write(dir, "proc/swaps", swaps);
	snprintf(rel, sizeof(rel), "sys/dev/block/%u:%u/queue/rotational", major(st.st_dev),
		 minor(st.st_dev));
	fx_write(dir, rel, "1\n");
	fx_host(&h, dir);
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.readahead, RA_CLUSTER);
	assert_non_null(strstr(fp.readahead_why, "/var/swapfile is rotational"));
	fx_write(dir, rel, "0\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.readahead, RA_VMA);
	/* vma_ra_enabled false decides before any device */
	fx_write(dir, "sys/kernel/mm/swap/vma_ra_enabled", "false\n");
	fingerprint_read(&h, NULL, &fp);
	assert_int_equal(fp.readahead, RA_CLUSTER);
	assert_string_equal(fp.readahead_why, "vma_ra_enabled is false");
	host_close(&h);
	fx_remove(dir);
}

/* A tree with nothing but a release: every part unknown, no error. */
/*
 * The running kernel (read only): no lru_gen directory beside mm/swap and
 * mm/transparent_hugepage is a kernel built without MGLRU, "off (not
 * built)"; with one, its value. A tree with fewer mm directories stays
 * unknown (test_missing_files, test_vm_v1).
 */
static void test_live_mglru(void **state)
{
	struct kernel_fingerprint fp;
	struct st_err e;
	struct host h;

	(void)state;
	assert_int_equal(host_open(&h, "/", &e), 0);
	fingerprint_read(&h, NULL, &fp);
	if (access("/sys/kernel/mm/swap", F_OK) != 0 || access("/sys/kernel/mm/transparent_hugepage", F_OK) != 0) {
		assert_int_equal(fp.mglru, FP_UNKNOWN);
	} else if (access("/sys/kernel/mm/lru_gen", F_OK) != 0) {
		assert_int_equal(fp.mglru, FP_NO);
		assert_string_equal(fp.mglru_value, "not built");
	} else {
		assert_int_not_equal(fp.mglru, FP_UNKNOWN);
		assert_true(strncmp(fp.mglru_value, "0x", 2) == 0);
	}
	host_close(&h);
}

static void test_missing_files(void **state)
{
	char dir[PATH_MAX];
	struct kernel_fingerprint fp;
	struct host h;

	(void)state;
	fx_scratch(dir);
	fx_write(dir, "proc/sys/kernel/osrelease", "6.12.0\n");
	fx_write(dir, "sys/kernel/mm/swap/vma_ra_enabled", "true\n");
	fx_host(&h, dir);
	fingerprint_read(&h, NULL, &fp);
	assert_string_equal(fp.release, "6.12.0");
	assert_false(fp.have_cgroup);
	assert_int_equal(fp.readahead, RA_UNKNOWN);	/* no proc/swaps */
	assert_int_equal(fp.zswap_ever, FP_NO);		/* no zswap parameters: not in this kernel */
	assert_int_equal(fp.mthp_anon, FP_UNKNOWN);
	assert_int_equal(fp.large_folio_swapin, FP_NO);	/* 6.12 predates it */
	assert_int_equal(fp.mglru, FP_UNKNOWN);
	assert_int_equal(fp.zswap_shrinker, FP_UNKNOWN);
	assert_int_equal(fp.zswap_writeback, FP_UNKNOWN);
	host_close(&h);
	fx_remove(dir);
}

static void test_diff(void **state)
{
	struct kernel_fingerprint v1, deb, unknown;
	char words[512];

	(void)state;
	read_fixture("vm-v1", NULL, &v1);
	read_fixture("debian12-v2", NULL, &deb);
	assert_int_equal(fingerprint_diff(&v1, &v1, words, sizeof(words)), 0);
	assert_string_equal(words, "");
	/* both cluster (a rotational swap disk each), large folios off in both */
	assert_int_equal(fingerprint_diff(&v1, &deb, words, sizeof(words)),
			 FP_DIFF_RELEASE | FP_DIFF_CGROUP);
	assert_string_equal(words, "kernel 6.18.44-fc-v657 -> 6.1.0-57-amd64, cgroup v1 -> v2");
	deb.readahead = RA_VMA;
	deb.mglru = FP_YES;
	v1.mglru = FP_NO;
	assert_int_equal(fingerprint_diff(&v1, &deb, words, sizeof(words)),
			 FP_DIFF_RELEASE | FP_DIFF_CGROUP | FP_DIFF_READAHEAD | FP_DIFF_MGLRU);
	assert_string_equal(words, "kernel 6.18.44-fc-v657 -> 6.1.0-57-amd64, cgroup v1 -> v2, "
			    "readahead cluster -> VMA, MGLRU off -> on");
	/* unknown on one side is no difference; words may be NULL */
	fingerprint_unknown(&unknown);
	assert_int_equal(fingerprint_diff(&unknown, &deb, NULL, 0), 0);
	/* a short buffer is cut, never overrun */
	assert_int_not_equal(fingerprint_diff(&v1, &deb, words, 12), 0);
	assert_int_equal(strlen(words), 11);
}

static void test_json_round_trip(void **state)
{
	const char *const fixtures[] = { "vm-v1", "debian12-v2", "mthp-zram", "no-zswap" };

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct kernel_fingerprint fp, back;
		struct st_err e = { 0 };
		cJSON *o;
		char *s1, *s2;

		read_fixture(fixtures[i], NULL, &fp);
		o = fingerprint_to_json(&fp);
		s1 = cJSON_PrintUnformatted(o);
		assert_int_equal(fingerprint_from_json(o, &back, &e), 0);
		cJSON_Delete(o);
		o = fingerprint_to_json(&back);
		s2 = cJSON_PrintUnformatted(o);
		assert_string_equal(s1, s2);
		assert_int_equal(fingerprint_diff(&fp, &back, NULL, 0), 0);
		assert_int_equal(back.large_folio_swapin, fp.large_folio_swapin);
		free(s1);
		free(s2);
		cJSON_Delete(o);
	}
}

/* Crafted JSON, as an import or a damaged store could hold it. */
static void test_json_refused(void **state)
{
	static const struct {
		const char *key, *value, *why;
	} cases[] = {
		{ "release", "7", "release is not a string" },
		{ "release", "\"6.1\\u001b[31m\"", "release holds control characters" },
		{ "cgroup", "\"v3\"", "cgroup is not v1, v2, hybrid, none or null" },
		{ "memory_cgroup_version", "3", "memory_cgroup_version is not a whole number" },
		{ "readahead", "\"sideways\"", "readahead is not vma, cluster or null" },
		{ "zswap_ever_enabled", "\"yes\"", "zswap_ever_enabled is not true, false or null" },
		{ "thp_enabled", "\"inherit\"", "thp_enabled is not always, madvise, never or null" },
		{ "pmd_kb", "2.5", "pmd_kb is not a whole number" },
		{ "mthp", "{}", "mthp is not an array" },
		{ "mthp", "[{\"size_kb\":64,\"enabled\":\"always\"},{\"size_kb\":16,\"enabled\":\"never\"}]",
		  "mthp is not in ascending order" },
		{ "mthp", "[{\"size_kb\":64,\"enabled\":\"often\"}]", "mthp[].enabled is not" },
		{ "mglru", "1", "mglru is not true, false or null" },
		{ "readahead_reason", "null", "readahead_reason is not a string" },
		{ "zswap_writeback", NULL, "zswap_writeback is missing" },
	};
	struct kernel_fingerprint fp;

	(void)state;
	read_fixture("mthp-zram", NULL, &fp);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *o = fingerprint_to_json(&fp);
		struct kernel_fingerprint back;
		struct st_err e = { 0 };

		cJSON_DeleteItemFromObjectCaseSensitive(o, cases[i].key);
		if (cases[i].value)
			cJSON_AddItemToObject(o, cases[i].key, cJSON_Parse(cases[i].value));
		assert_int_equal(fingerprint_from_json(o, &back, &e), -EBADMSG);
		if (!strstr(e.msg, cases[i].why))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, e.msg, cases[i].why);
		/* nothing half-read is left */
		assert_int_equal(back.readahead, RA_UNKNOWN);
		assert_string_equal(back.release, "");
		cJSON_Delete(o);
	}
	/* a long release */
	{
		char big[300];
		cJSON *o = fingerprint_to_json(&fp);
		struct kernel_fingerprint back;
		struct st_err e = { 0 };

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		cJSON_ReplaceItemInObjectCaseSensitive(o, "release", cJSON_CreateString(big));
		assert_int_equal(fingerprint_from_json(o, &back, &e), -EBADMSG);
		assert_non_null(strstr(e.msg, "release is too long"));
		cJSON_Delete(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vm_v1),
		cmocka_unit_test(test_debian12),
		cmocka_unit_test(test_mthp_zram),
		cmocka_unit_test(test_zswap_ever_evidence),
		cmocka_unit_test(test_mthp_inherit),
		cmocka_unit_test(test_swap_file_on_rotational_disk),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_live_mglru),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
