/*
 * test-host.c - the host-access layer (src/host.c, src/host-read.c): sysroot
 * handling, the vmstat/meminfo key-value parser, the kept-open readers the
 * sampler uses (learned lines, blank lines, retry, vanished files), /proc/swaps with the rotational lookup
 * (a partition through its parent disk), PSI, cgroup mode detection, the
 * zswap debugfs reader, compressors and the process checks. Fixture trees
 * under tests/fixtures/ are read in place; anything edited or written is a
 * private copy in /tmp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fixture-util.h"
#include "swaptune/host.h"

static void test_open(void **state)
{
	struct st_err e = {0};
	struct host h;
	char dir[PATH_MAX], path[PATH_MAX + 32];

	(void)state;
	assert_int_equal(host_open(&h, "/", &e), 0);
	assert_true(h.live);
	assert_string_equal(h.root, "");
	assert_int_equal(host_path(&h, "proc/vmstat", path, sizeof(path)), 0);
	assert_string_equal(path, "/proc/vmstat");
	host_close(&h);

	assert_int_equal(host_open(&h, NULL, &e), 0);
	assert_true(h.live);
	host_close(&h);

	fx_scratch(dir);
	assert_int_equal(host_open(&h, dir, &e), 0);
	assert_false(h.live);
	assert_string_equal(h.root, dir);
	assert_int_equal(host_path(&h, "/proc/swaps", path, sizeof(path)), 0);
	snprintf(dir + strlen(dir), 16, "/proc/swaps");
	assert_string_equal(path, dir);
	*strrchr(dir, '/') = '\0';
	*strrchr(dir, '/') = '\0';
	assert_false(host_exists(&h, HOST_VMSTAT));
	host_close(&h);

	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(host_open(&h, path, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "missing"));
	err_reset(&e);
	fx_write(dir, "plain", "x\n");
	snprintf(path, sizeof(path), "%s/plain", dir);
	assert_int_equal(host_open(&h, path, &e), -ENOTDIR);
	assert_string_equal(e.msg + strlen(e.msg) - strlen("is not a directory"), "is not a directory");
	fx_remove(dir);
}

static void test_read_values(void **state)
{
	struct st_err e = {0};
	struct host h;
	char buf[64], dir[PATH_MAX];
	uint64_t v;

	(void)state;
	fx_host(&h, "vm-v1");
	assert_int_equal(host_read_u64(&h, HOST_PAGE_CLUSTER, &v, &e), 0);
	assert_int_equal(v, 3);
	assert_int_equal(host_read_line(&h, HOST_OSRELEASE, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "6.18.44-fc-v657");
	assert_int_equal(host_read_u64(&h, "proc/sys/vm/nonexistent", &v, &e), -ENOENT);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/sys/vm/nonexistent: not available on this kernel");
	err_reset(&e);
	assert_int_equal(host_read(&h, HOST_VMSTAT, buf, 16, &e), -EFBIG);
	err_reset(&e);
	host_close(&h);

	fx_host(&h, "broken-pagecluster");
	assert_int_equal(host_read_u64(&h, HOST_PAGE_CLUSTER, &v, &e), -EBADMSG);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/sys/vm/page-cluster: line 1: expected a number, found \"banana\"");
	host_close(&h);

	/* writes land in the copy, without a trailing newline added */
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	err_reset(&e);
	assert_int_equal(host_write(&h, HOST_PAGE_CLUSTER, "1", &e), 0);
	assert_string_equal(fx_read(dir, HOST_PAGE_CLUSTER, buf, sizeof(buf)), "1");
	assert_int_equal(host_read_u64(&h, HOST_PAGE_CLUSTER, &v, &e), 0);
	assert_int_equal(v, 1);
	assert_int_equal(host_write(&h, "proc/sys/vm/nonexistent", "1", &e), -ENOENT);
	assert_true(host_writable(&h, HOST_PAGE_CLUSTER));
	assert_false(host_writable(&h, "proc/sys/vm/nonexistent"));
	host_close(&h);
	fx_remove(dir);
}

/* Under a sysroot: links inside the tree work, links out of it do not. */
static void test_open_beneath(void **state)
{
	char dir[PATH_MAX], link[PATH_MAX + 64], cmd[PATH_MAX * 2 + 64], buf[64];
	struct st_err e = {0};
	struct host h;
	int fd;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	fx_write(dir, "inside", "7\n");
	snprintf(cmd, sizeof(cmd), "echo 5 >'%s.outside'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(link, sizeof(link), "%s/proc/in", dir);
	assert_int_equal(symlink("../inside", link), 0);
	snprintf(link, sizeof(link), "%s/proc/out", dir);
	snprintf(cmd, sizeof(cmd), "%s.outside", strrchr(dir, '/') + 1);
	snprintf(buf, sizeof(buf), "../../%.50s", cmd);
	assert_int_equal(symlink(buf, link), 0);
	snprintf(link, sizeof(link), "%s/proc/abs", dir);
	snprintf(cmd, sizeof(cmd), "%s.outside", dir);
	assert_int_equal(symlink(cmd, link), 0);

	/* openat2, and the realpath fallback, agree */
	for (int fb = 0; fb < 2; fb++) {
		fd = fb ? host_open_beneath_fallback(&h, "proc/in", O_RDONLY) :
			  host_openat(&h, "proc/in", O_RDONLY);
		assert_true(fd >= 0);
		close(fd);
		errno = 0;
		fd = fb ? host_open_beneath_fallback(&h, "proc/out", O_RDONLY) :
			  host_openat(&h, "proc/out", O_RDONLY);
		assert_true(fd < 0);
		assert_int_equal(fb ? errno : -fd, EXDEV);
		errno = 0;
		fd = fb ? host_open_beneath_fallback(&h, "proc/abs", O_WRONLY) :
			  host_openat(&h, "proc/abs", O_WRONLY);
		assert_true(fd < 0);
		assert_int_equal(fb ? errno : -fd, EXDEV);
	}
	assert_int_equal(host_write(&h, "proc/abs", "0", &e), -EXDEV);
	assert_non_null(strstr(e.msg, "outside the sysroot"));
	snprintf(cmd, sizeof(cmd), "%s.outside", dir);
	{
		FILE *f = fopen(cmd, "r");

		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "5\n");
	}
	unlink(cmd);
	host_close(&h);
	fx_remove(dir);
}

static void test_kv_parse(void **state)
{
	struct st_err e = {0};
	struct st_kvtab t;
	uint64_t v;

	(void)state;
	kv_init(&t);
	assert_int_equal(kv_parse(&t, "pgpgin 10\nzswpin 7\n\nswap_ra 18446744073709551615\n",
				  "vmstat", false, &e), 0);
	assert_int_equal(t.n, 3);
	assert_true(kv_get(&t, "zswpin", &v));
	assert_int_equal(v, 7);
	assert_true(kv_get(&t, "swap_ra", &v));
	assert_true(v == UINT64_MAX);
	assert_false(kv_get(&t, "zswpout", &v));

	/* meminfo: "Key:   N kB" in bytes, unitless lines as they are */
	assert_int_equal(kv_parse(&t, "MemTotal:       1000 kB\nHugePages_Total:       5\n",
				  "meminfo", true, &e), 0);
	assert_int_equal(t.n, 2);	/* parsing clears what was there */
	assert_true(kv_get(&t, "MemTotal", &v));
	assert_int_equal(v, 1024000);
	assert_true(kv_get(&t, "HugePages_Total", &v));
	assert_int_equal(v, 5);

	/* a later duplicate key replaces the value */
	assert_int_equal(kv_put(&t, "MemTotal", 1), 0);
	assert_int_equal(t.n, 2);
	assert_true(kv_get(&t, "MemTotal", &v));
	assert_int_equal(v, 1);

	assert_int_equal(kv_parse(&t, "a 1\nb\n", "/proc/vmstat", false, &e), -EBADMSG);
	assert_string_equal(e.msg, "/proc/vmstat: line 2: expected \"key value\", found \"b\"");
	err_reset(&e);
	assert_int_equal(kv_parse(&t, "a x\n", "/proc/vmstat", false, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "line 1"));
	err_reset(&e);
	assert_int_equal(kv_parse(&t, "", "/proc/vmstat", false, &e), -EBADMSG);
	assert_string_equal(e.msg, "/proc/vmstat: empty");
	err_reset(&e);
	/* past 64 bits, or kB whose bytes are: corrupt, not saturated */
	assert_int_equal(kv_parse(&t, "a 1\nnr_free_pages 18446744073709551616\n", "/proc/vmstat",
				  false, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "/proc/vmstat: line 2: value out of range"));
	err_reset(&e);
	assert_int_equal(kv_parse(&t, "MemTotal: 18446744073709551615 kB\n", "/proc/meminfo",
				  true, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "/proc/meminfo: line 1: value out of range"));
	err_reset(&e);
	assert_int_equal(kv_parse(&t, "nr_free_pages -5\n", "/proc/vmstat", false, &e), -EBADMSG);
	kv_free(&t);
}

static void test_vmstat_meminfo(void **state)
{
	struct st_err e = {0};
	struct st_kvtab t;
	struct host h;
	char dir[PATH_MAX];
	uint64_t v;

	(void)state;
	kv_init(&t);
	fx_host(&h, "vm-v1");
	assert_int_equal(host_read_vmstat(&h, &t, &e), 0);
	assert_true(t.n > 150);
	assert_true(kv_get(&t, "zswpin", &v));
	assert_int_equal(v, 182733);
	assert_true(kv_get(&t, "swap_ra_hit", &v));
	assert_int_equal(v, 687401);
	assert_true(kv_get(&t, "pswpout", &v));
	assert_int_equal(v, 40211);
	assert_int_equal(host_read_meminfo(&h, &t, &e), 0);
	assert_true(kv_get(&t, "MemTotal", &v));
	assert_int_equal(v, 24684092ULL * 1024);
	assert_true(kv_get(&t, "SwapTotal", &v));
	assert_int_equal(v, 8388604ULL * 1024);
	assert_true(kv_get(&t, "Zswapped", &v));
	assert_int_equal(v, 4936ULL * 1024);
	host_close(&h);

	/* an older kernel: no zswap counters, but the rest */
	fx_host(&h, "no-zswap");
	assert_int_equal(host_read_vmstat(&h, &t, &e), 0);
	assert_false(kv_get(&t, "zswpin", NULL));
	assert_true(kv_get(&t, "swap_ra", &v));
	assert_int_equal(v, 120334);
	assert_int_equal(host_read_meminfo(&h, &t, &e), 0);
	assert_false(kv_get(&t, "Zswap", NULL));
	host_close(&h);

	/* cut mid-line */
	fx_host(&h, "truncated-vmstat");
	assert_int_equal(host_read_vmstat(&h, &t, &e), -EBADMSG);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/vmstat: line 43: expected \"key value\", found \"nr_\"");
	host_close(&h);

	/* cut at a line end: still parses, but the counters every kernel has are missing */
	fx_copy("vm-v1", dir);
	fx_write(dir, HOST_VMSTAT, "nr_free_pages 10\nnr_zone_inactive_anon 3\n");
	fx_write(dir, HOST_MEMINFO, "MemFree:  10 kB\n");
	fx_host(&h, dir);
	err_reset(&e);
	assert_int_equal(host_read_vmstat(&h, &t, &e), -EBADMSG);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/vmstat: truncated (no pgpgin line)");
	err_reset(&e);
	assert_int_equal(host_read_meminfo(&h, &t, &e), -EBADMSG);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/meminfo: truncated (no MemTotal line)");
	host_close(&h);
	fx_remove(dir);
	kv_free(&t);
}

static void test_swaps(void **state)
{
	struct st_swap s[HOST_MAX_SWAPS];
	struct st_err e = {0};
	struct host h;
	char dir[PATH_MAX];
	int n, rot;

	(void)state;
	/* a rotational whole-disk partition entry */
	fx_host(&h, "vm-v1");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].path, "/dev/vdb");
	assert_string_equal(s[0].type, "partition");
	assert_int_equal(s[0].size_bytes, 8388604ULL * 1024);
	assert_int_equal(s[0].used_bytes, 163840ULL * 1024);
	assert_int_equal(s[0].priority, -2);
	assert_int_equal(s[0].rotational, 1);
	assert_string_equal(s[0].blockdev, "vdb");
	assert_false(s[0].zram);
	assert_int_equal(host_blockdev_rotational(&h, "vda", &rot), 0);
	assert_int_equal(rot, 1);
	assert_int_equal(host_blockdev_rotational(&h, "sdz", &rot), -ENOENT);
	assert_int_equal(host_blockdev_rotational(&h, "../vda", &rot), -ENOENT);
	assert_int_equal(host_blockdev_rotational(&h, "", &rot), -ENOENT);
	host_close(&h);

	/* a partition: the queue is its parent disk's */
	fx_host(&h, "v2-zswap-on");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].blockdev, "nvme0n1p3");
	assert_int_equal(s[0].rotational, 0);
	host_close(&h);
	fx_host(&h, "no-zswap");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), 0);
	assert_string_equal(s[0].blockdev, "sda2");
	assert_int_equal(s[0].rotational, 1);
	host_close(&h);

	fx_host(&h, "zram-only");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(s[0].zram);
	assert_int_equal(s[0].rotational, 0);
	assert_int_equal(s[0].priority, 100);
	host_close(&h);

	/* no swap; an unknown device; a file whose device is unknown; max honoured */
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	fx_write(dir, HOST_SWAPS, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), 0);
	assert_int_equal(n, 0);
	fx_write(dir, HOST_SWAPS,
		 "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		 "/dev/sdq1  partition\t100\t0\t-2\n"
		 "/nonexistent.swap  file\t200\t4\t-3\n"
		 "/dev/vdb  partition\t300\t0\t5\n");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(s[0].rotational, -1);
	assert_string_equal(s[0].blockdev, "sdq1");
	assert_string_equal(s[1].type, "file");
	assert_int_equal(s[1].rotational, -1);
	assert_string_equal(s[1].blockdev, "");
	assert_int_equal(s[1].used_bytes, 4096);
	assert_int_equal(s[2].rotational, 1);
	assert_int_equal(host_read_swaps(&h, s, 2, &n, &e), 0);
	assert_int_equal(n, 2);

	fx_write(dir, HOST_SWAPS, "/dev/vdb partition 1 1 1\n");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), -EBADMSG);
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	assert_string_equal(e.msg + strlen(h.root), "/proc/swaps: line 1: missing header");
	err_reset(&e);
	fx_write(dir, HOST_SWAPS, "Filename Type Size Used Priority\n/dev/vdb partition big 0 -2\n");
	assert_int_equal(host_read_swaps(&h, s, HOST_MAX_SWAPS, &n, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "/proc/swaps: line 2: cannot parse"));
	assert_memory_equal(e.msg, h.root, strlen(h.root));
	host_close(&h);
	fx_remove(dir);
}

/* The kept-open key-value reader: learned lines, blank lines, NULL keys. */
static void test_kvfile_parse(void **state)
{
	static const char *const keys[] = { "total_rss", NULL, "total_swap", "MemTotal" };
	struct host_kvfile f;
	const char *t1 = "total_cache 5\n\ntotal_rss 10\ntotal_swap 7\n";
	const char *t2 = "total_cache 6\n\ntotal_rss 11\ntotal_swap 8\n";
	const char *moved = "total_rss 12\ntotal_cache 6\n\n\ntotal_swap\ntotal_swap_x 1\n";
	uint64_t v;

	(void)state;
	host_kvfile_init(&f, "sys/fs/cgroup/memory/x/memory.stat", false, keys, 4);
	/* a blank line once made memcmp(p, NULL, 0): UBSan aborts on that */
	host_kvfile_parse(&f, t1, strlen(t1));
	f.ok = true;
	assert_true(host_kvfile_get(&f, 0, &v));
	assert_int_equal(v, 10);
	assert_false(host_kvfile_get(&f, 1, &v));	/* NULL key: never present */
	assert_true(host_kvfile_get(&f, 2, &v));
	assert_int_equal(v, 7);
	assert_false(host_kvfile_get(&f, 3, &v));	/* not in the file */
	assert_int_equal(f.nhinted, 2);
	assert_int_equal(f.key_at[2], 0);
	assert_int_equal(f.key_at[3], 2);

	host_kvfile_parse(&f, t2, strlen(t2));	/* same layout: the learned lines */
	assert_true(host_kvfile_get(&f, 0, &v));
	assert_int_equal(v, 11);
	assert_true(host_kvfile_get(&f, 2, &v));
	assert_int_equal(v, 8);

	/* layout moved, a key without a value, a longer key sharing the prefix */
	host_kvfile_parse(&f, moved, strlen(moved));
	assert_true(host_kvfile_get(&f, 0, &v));
	assert_int_equal(v, 12);
	assert_false(host_kvfile_get(&f, 2, &v));
	assert_int_equal(f.key_at[0], 0);

	/* meminfo: "Key:  N kB" in bytes */
	host_kvfile_init(&f, HOST_MEMINFO, true, keys, 4);
	host_kvfile_parse(&f, "MemTotal:   1000 kB\n\ntotal_rss: 3\n", 33);
	f.ok = true;
	assert_true(host_kvfile_get(&f, 3, &v));
	assert_int_equal(v, 1024000);
	assert_true(host_kvfile_get(&f, 0, &v));
	assert_int_equal(v, 3);
}

/* Kept-open files: re-read in place, missing -> retry after 1 s, vanished. */
static void test_file_kept_open(void **state)
{
	static const char *const keys[] = { "zswpin", "pgpgin" };
	const uint64_t S = 1000000000ULL;
	struct host_kvfile kf;
	struct host_file f;
	struct st_psi p;
	struct st_err e = {0};
	struct host h;
	char dir[PATH_MAX], buf[4096];
	uint64_t v;

	(void)state;
	fx_scratch(dir);
	assert_int_equal(host_open(&h, dir, &e), 0);

	host_file_init(&f, "/" HOST_PSI_MEMORY);
	assert_string_equal(f.rel, HOST_PSI_MEMORY);
	assert_int_equal(host_psifile_read(&h, &f, 1 * S, buf, sizeof(buf), &p), -ENOENT);
	assert_string_equal(f.why, "/" HOST_PSI_MEMORY ": not available");
	fx_write(dir, HOST_PSI_MEMORY, "some avg10=1.00 avg60=0.00 avg300=0.00 total=500\n");
	/* looked for again only a second later */
	assert_int_equal(host_psifile_read(&h, &f, 1 * S + S / 2, buf, sizeof(buf), &p), -EAGAIN);
	assert_string_equal(f.why, "/" HOST_PSI_MEMORY ": not available");
	assert_int_equal(host_psifile_read(&h, &f, 2 * S, buf, sizeof(buf), &p), 0);
	assert_string_equal(f.why, "");
	assert_int_equal(p.some.total_us, 500);
	assert_false(p.full.present);
	fx_write(dir, HOST_PSI_MEMORY, "full avg10=1.00 avg60=0.00 avg300=0.00 total=5\n");
	assert_int_equal(host_psifile_read(&h, &f, 3 * S, buf, sizeof(buf), &p), -EBADMSG);
	assert_string_equal(f.why, "/" HOST_PSI_MEMORY ": no \"some\" line");
	fx_write(dir, HOST_PSI_MEMORY, "");
	assert_int_equal(host_psifile_read(&h, &f, 4 * S, buf, sizeof(buf), &p), -ENODATA);
	assert_string_equal(f.why, "/" HOST_PSI_MEMORY ": empty");
	host_file_close(&f);

	/* a small buffer truncates, never overflows */
	fx_write(dir, HOST_VMSTAT, "pgpgin 1\nzswpin 22\n");
	host_file_init(&f, HOST_VMSTAT);
	assert_int_equal(host_file_read(&h, &f, 0, buf, 5), 4);
	assert_string_equal(buf, "pgpg");
	host_file_close(&f);

	host_kvfile_init(&kf, HOST_VMSTAT, false, keys, 2);
	assert_int_equal(host_kvfile_read(&h, &kf, 0, buf, sizeof(buf)), 0);
	assert_true(host_kvfile_get(&kf, 0, &v));
	assert_int_equal(v, 22);
	fx_write(dir, HOST_VMSTAT, "pgpgin 2\nzswpin 23\n");
	assert_int_equal(host_kvfile_read(&h, &kf, 1, buf, sizeof(buf)), 0);
	assert_true(host_kvfile_get(&kf, 0, &v));
	assert_int_equal(v, 23);
	snprintf(buf, sizeof(buf), "%s/%s", dir, HOST_VMSTAT);
	assert_int_equal(unlink(buf), 0);
	assert_int_equal(host_kvfile_read(&h, &kf, 2, buf, sizeof(buf)), -ENOENT);
	assert_false(host_kvfile_get(&kf, 0, &v));
	assert_false(kf.ok);
	host_kvfile_close(&kf);

	/* the perf_event v1 mount, once the sampler's own /proc/mounts scan */
	{
		struct st_cgroup_info ci;

		fx_write(dir, HOST_MOUNTS,
			 "cgroup /sys/fs/cgroup/memory cgroup rw,nosuid,memory 0 0\n"
			 "cgroup /sys/fs/cgroup/perf_event cgroup rw,nosuid,perf_event 0 0\n");
		assert_int_equal(host_cgroup_info(&h, &ci, &e), 0);
		assert_string_equal(ci.perf_event_v1_root, "sys/fs/cgroup/perf_event");
		assert_string_equal(ci.memory_root, "sys/fs/cgroup/memory");
	}

	/* debugfs counters one by one */
	fx_write(dir, HOST_ZSWAP_DEBUGFS "/stored_pages", "42\n");
	assert_int_equal(host_read_zswap_counter(&h, "stored_pages", &v, &e), 0);
	assert_int_equal(v, 42);
	assert_int_equal(host_read_zswap_counter(&h, "pool_total_size", &v, NULL), -ENOENT);
	host_close(&h);
	fx_remove(dir);
}

static void test_psi(void **state)
{
	struct st_err e = {0};
	struct st_psi p;
	struct host h;

	(void)state;
	assert_int_equal(psi_parse(&p, "some avg10=1.50 avg60=0.25 avg300=0.00 total=123\n"
				   "full avg10=0.75 avg60=0.10 avg300=0.01 total=45\n", "x", &e), 0);
	assert_true(p.some.present);
	assert_true(p.full.present);
	assert_float_equal(p.some.avg10, 1.50, 1e-9);
	assert_float_equal(p.some.avg60, 0.25, 1e-9);
	assert_float_equal(p.full.avg300, 0.01, 1e-9);
	assert_int_equal(p.some.total_us, 123);
	assert_int_equal(p.full.total_us, 45);

	/* older kernels have no "full" line for some resources */
	assert_int_equal(psi_parse(&p, "some avg10=0.00 avg60=0.00 avg300=0.00 total=9\n", "x", &e), 0);
	assert_false(p.full.present);

	assert_int_equal(psi_parse(&p, "full avg10=0.00 avg60=0.00 avg300=0.00 total=9\n",
				   "/proc/pressure/memory", &e), -EBADMSG);
	assert_string_equal(e.msg, "/proc/pressure/memory: no \"some\" line");
	err_reset(&e);
	assert_int_equal(psi_parse(&p, "some avg10=x\n", "/proc/pressure/memory", &e), -EBADMSG);
	assert_string_equal(e.msg, "/proc/pressure/memory: line 1: unexpected format");
	err_reset(&e);

	fx_host(&h, "v2-zswap-on");
	assert_int_equal(host_read_psi(&h, HOST_PSI_MEMORY, &p, &e), 0);
	assert_float_equal(p.some.avg10, 4.12, 1e-9);
	assert_int_equal(p.full.total_us, 401223907);
	host_close(&h);
	fx_host(&h, "no-zswap");
	assert_int_equal(host_read_psi(&h, HOST_PSI_MEMORY, &p, &e), -ENOENT);
	host_close(&h);
}

static void check_cgroup(const char *fixture, enum cgroup_mode mode, bool v1, bool v2,
			 const char *memory_root, const char *unified_root)
{
	struct st_cgroup_info ci;
	struct st_err e = {0};
	struct host h;

	fx_host(&h, fixture);
	assert_int_equal(host_cgroup_info(&h, &ci, &e), 0);
	assert_int_equal(ci.mode, mode);
	assert_int_equal(ci.memory_v1, v1);
	assert_int_equal(ci.memory_v2, v2);
	assert_string_equal(ci.memory_root, memory_root);
	assert_string_equal(ci.unified_root, unified_root);
	host_close(&h);
}

static void test_cgroup_modes(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	check_cgroup("vm-v1", CGROUP_HYBRID, true, false, "sys/fs/cgroup/memory", "sys/fs/cgroup/unified");
	check_cgroup("no-zswap", CGROUP_V1, true, false, "sys/fs/cgroup/memory", "");
	check_cgroup("v2-zswap-on", CGROUP_V2, false, true, "sys/fs/cgroup", "sys/fs/cgroup");
	check_cgroup("zram-only", CGROUP_V2, false, true, "sys/fs/cgroup", "sys/fs/cgroup");
	assert_string_equal(cgroup_mode_name(CGROUP_NONE), "none");
	assert_string_equal(cgroup_mode_name(CGROUP_V1), "v1");
	assert_string_equal(cgroup_mode_name(CGROUP_HYBRID), "hybrid");
	assert_string_equal(cgroup_mode_name(CGROUP_V2), "v2");

	/* no cgroup mounts at all */
	fx_copy("vm-v1", dir);
	fx_write(dir, HOST_MOUNTS, "proc /proc proc rw 0 0\nsysfs /sys sysfs rw 0 0\n");
	check_cgroup(dir, CGROUP_NONE, false, false, "", "");
	/* cgroup2 without the memory controller */
	fx_write(dir, HOST_MOUNTS, "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n");
	fx_write(dir, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io pids\n");
	check_cgroup(dir, CGROUP_V2, false, false, "", "sys/fs/cgroup");
	/* a v1 memory hierarchy co-mounted with another controller */
	fx_write(dir, HOST_MOUNTS, "cgroup /sys/fs/cgroup/memory,cpu cgroup rw,cpu,memory 0 0\n");
	check_cgroup(dir, CGROUP_V1, true, false, "sys/fs/cgroup/memory,cpu", "");
	/* "memory" must be a whole option, not a prefix */
	fx_write(dir, HOST_MOUNTS, "cgroup /sys/fs/cgroup/x cgroup rw,memory_recursiveprot 0 0\n");
	check_cgroup(dir, CGROUP_V1, false, false, "", "");
	/* a mount point with "..", ".", "//" or an escape is no root (a crafted tree) */
	fx_write(dir, HOST_MOUNTS, "cgroup /../../.. cgroup rw,memory 0 0\n");
	check_cgroup(dir, CGROUP_NONE, false, false, "", "");
	fx_write(dir, HOST_MOUNTS, "cgroup /sys/fs/cgroup/../../../x cgroup rw,memory 0 0\n"
		 "cgroup2 /sys//fs cgroup2 rw 0 0\ncgroup2 /sys/./fs cgroup2 rw 0 0\n"
		 "cgroup /sys/fs/a\\040b cgroup rw,memory 0 0\n");
	check_cgroup(dir, CGROUP_NONE, false, false, "", "");
	fx_remove(dir);
}

/*
 * A file the user names (report -o, export -o, sample --prom-file) is
 * replaced whole: a symlink at the name is replaced, not followed; the
 * mode is the one asked for; no temporary file stays; a missing directory
 * is an error that names the file.
 */
static void test_user_file_replace(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], victim[PATH_MAX + 32], buf[64];
	struct st_err e = {0};
	struct stat sb;
	FILE *f;

	(void)state;
	fx_copy("vm-v1", dir);
	snprintf(path, sizeof(path), "%s/out.prom", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	fx_write(dir, "victim", "secret\n");
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(host_user_file_replace(path, "a 1\n", 4, 0644, &e), 0);
	assert_int_equal(lstat(path, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0644);
	f = fopen(victim, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "secret\n");
	assert_int_equal(host_user_file_replace(path, "b 2\n", 4, 0600, &e), 0);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "b 2\n");
	/* a file that was there keeps its mode (and, as root, its owner): 0640 is not opened to 0644 */
	assert_int_equal(chmod(path, 0640), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 0, 1), 0);
	assert_int_equal(host_user_file_replace(path, "c 3\n", 4, 0644, &e), 0);
	assert_int_equal(lstat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	if (geteuid() == 0)
		assert_int_equal(sb.st_gid, 1);
	snprintf(buf, sizeof(buf), "ls -a %s | grep -q swaptune-new", dir);
	assert_int_not_equal(system(buf), 0);
	snprintf(path, sizeof(path), "%s/nodir/x.json", dir);
	assert_int_equal(host_user_file_replace(path, "{}", 2, 0644, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "cannot create"));
	assert_non_null(strstr(e.msg, "nodir/x.json"));
	fx_remove(dir);
}

/* Temporary files: new names only, and the sweep removes only those of gone processes. */
static void test_tmp_files(void **state)
{
	char dir[PATH_MAX], n1[NAME_MAX + 1], n2[NAME_MAX + 1], path[2 * PATH_MAX], live[64];
	struct stat sb;
	struct host h;
	int dfd, fd;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	fd = host_tmp_create(dfd, "x" HOST_FILE_TMP_SUFFIX, 0640, n1, sizeof(n1));
	assert_true(fd >= 0);
	close(fd);
	fd = host_tmp_create(dfd, "x" HOST_FILE_TMP_SUFFIX, 0640, n2, sizeof(n2));
	assert_true(fd >= 0);
	close(fd);
	assert_string_not_equal(n1, n2);
	snprintf(live, sizeof(live), "x" HOST_FILE_TMP_SUFFIX ".%d.", (int)getpid());
	assert_memory_equal(n1, live, strlen(live));
	assert_int_equal(fstatat(dfd, n1, &sb, 0), 0);
	/* left by processes that are gone: a dead pid, and an older name without one */
	fx_write(dir, "x" HOST_FILE_TMP_SUFFIX ".999999999.abcdefgh", "old\n");
	fx_write(dir, "x" HOST_FILE_TMP_SUFFIX, "older\n");
	fx_write(dir, HOST_TMP_WRITE ".Ab3dEf", "oldest\n");
	snprintf(path, sizeof(path), "%s/x" HOST_FILE_TMP_SUFFIX ".999999998.dir", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	/* ours (this process is alive) and another prefix stay */
	assert_int_equal(host_tmp_sweep(&h, ".", "x" HOST_FILE_TMP_SUFFIX), 1 + 1);
	assert_int_equal(fstatat(dfd, n1, &sb, 0), 0);
	assert_int_equal(fstatat(dfd, n2, &sb, 0), 0);
	assert_int_equal(fstatat(dfd, "x" HOST_FILE_TMP_SUFFIX ".999999998.dir", &sb, 0), 0);
	assert_int_equal(fstatat(dfd, HOST_TMP_WRITE ".Ab3dEf", &sb, 0), 0);
	assert_int_equal(host_tmp_sweep(&h, ".", HOST_TMP_WRITE), 1);
	assert_true(fstatat(dfd, HOST_TMP_WRITE ".Ab3dEf", &sb, 0) < 0);
	close(dfd);
	host_close(&h);
	fx_remove(dir);
}

/* A kernel file of a tree is written back byte for byte: its newline and mode kept, links followed inside only. */
static void test_write_in_tree(void **state)
{
	char dir[PATH_MAX], buf[64], path[2 * PATH_MAX];
	struct st_err e = {0};
	struct stat sb;
	struct host h;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	snprintf(path, sizeof(path), "%s/" HOST_PAGE_CLUSTER, dir);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(host_write(&h, HOST_PAGE_CLUSTER, "0", &e), 0);
	{
		FILE *f = fopen(path, "r");
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[n] = '\0';
		assert_string_equal(buf, "0\n");
	}
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	/* a file without a newline stays without one */
	fx_write(dir, HOST_PAGE_CLUSTER, "3");
	assert_int_equal(host_write(&h, HOST_PAGE_CLUSTER, "1", &e), 0);
	assert_string_equal(fx_read(dir, HOST_PAGE_CLUSTER, buf, sizeof(buf)), "1");
	/* a link inside the tree is followed, one out of it is not */
	snprintf(path, sizeof(path), "%s/proc/sys/vm/pc-link", dir);
	assert_int_equal(symlink("page-cluster", path), 0);
	assert_int_equal(host_write(&h, "proc/sys/vm/pc-link", "2", &e), 0);
	assert_string_equal(fx_read(dir, HOST_PAGE_CLUSTER, buf, sizeof(buf)), "2");
	snprintf(path, sizeof(path), "%s/proc/sys/vm/out-link", dir);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(host_write(&h, "proc/sys/vm/out-link", "2", &e), -EXDEV);
	snprintf(path, sizeof(path), "%s/proc/sys/vm/up-link", dir);
	assert_int_equal(symlink("../../../../x", path), 0);
	assert_int_equal(host_write(&h, "proc/sys/vm/up-link", "2", &e), -EXDEV);
	host_close(&h);
	fx_remove(dir);
}

static void test_zswap_stats(void **state)
{
	struct st_err e = {0};
	struct st_kvtab t;
	struct host h;
	uint64_t v;

	(void)state;
	kv_init(&t);
	fx_host(&h, "vm-v1");
	assert_int_equal(host_read_zswap_stats(&h, &t, &e), 0);
	assert_int_equal(t.n, 11);
	assert_true(kv_get(&t, "stored_pages", &v));
	assert_int_equal(v, 1234);
	assert_true(kv_get(&t, "pool_total_size", &v));
	assert_int_equal(v, 1916928);
	assert_true(kv_get(&t, "stored_incompressible_pages", &v));
	assert_int_equal(v, 17);
	host_close(&h);
	fx_host(&h, "missing-debugfs");
	assert_int_equal(host_read_zswap_stats(&h, &t, &e), -ENOENT);
	assert_int_equal(t.n, 0);
	host_close(&h);
	kv_free(&t);
}

static void test_misc(void **state)
{
	struct st_err e = {0};
	struct host h;
	char buf[512];

	(void)state;
	fx_host(&h, "v2-zswap-on");
	assert_int_equal(host_compressors(&h, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "zstd lz4 lzo-rle lzo deflate");
	assert_int_equal(host_kernel_release(&h, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "6.8.0-45-generic");
	assert_int_equal(host_list_dir(&h, HOST_ZSWAP_PARAMS, buf, sizeof(buf), &e), 0);
	assert_non_null(strstr(buf, "compressor"));
	assert_non_null(strstr(buf, "shrinker_enabled"));
	assert_int_equal(host_list_dir(&h, "sys/nonexistent", buf, sizeof(buf), &e), -ENOENT);
	host_close(&h);
	fx_host(&h, "vm-v1");
	assert_int_equal(host_compressors(&h, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "lzo-rle lzo deflate");
	host_close(&h);
}

static void test_pid_alive(void **state)
{
	uint64_t start = host_pid_start_ticks(getpid());
	pid_t child;
	int status;

	(void)state;
	assert_true(start > 0);
	assert_true(host_pid_alive(getpid(), start));
	assert_true(host_pid_alive(getpid(), 0));
	assert_false(host_pid_alive(getpid(), start + 1));	/* a reused pid */
	assert_false(host_pid_alive(0, 0));
	assert_false(host_pid_alive(-1, 0));

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	start = host_pid_start_ticks(child);
	assert_true(start > 0);
	assert_true(host_pid_alive(child, start));
	kill(child, SIGKILL);
	/* killed but not reaped: a zombie restores nothing, so it counts as gone */
	for (int i = 0; i < 1000; i++) {
		char path[64], st[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(st, sizeof(st), f));
		fclose(f);
		if (strstr(st, ") Z "))
			break;
		usleep(1000);
	}
	assert_false(host_pid_alive(child, start));
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_false(host_pid_alive(child, start));
	assert_int_equal(host_pid_start_ticks(child), 0);
}

/* the machine id comes from the sysroot, never from this machine's /etc */
static void test_machine_id(void **state)
{
	struct host h;
	char id[64];

	(void)state;
	fx_host(&h, "v2-zswap-on");
	assert_int_equal(host_read_machine_id(&h, id, sizeof(id)), 0);
	assert_string_equal(id, "0123456789abcdef0123456789abcdef");
	host_close(&h);
	fx_host(&h, "vm-v1");
	assert_int_equal(host_read_machine_id(&h, id, sizeof(id)), 0);
	assert_string_equal(id, "unknown");
	host_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_read_values),
		cmocka_unit_test(test_open_beneath),
		cmocka_unit_test(test_kv_parse),
		cmocka_unit_test(test_vmstat_meminfo),
		cmocka_unit_test(test_swaps),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_kvfile_parse),
		cmocka_unit_test(test_file_kept_open),
		cmocka_unit_test(test_cgroup_modes),
		cmocka_unit_test(test_tmp_files),
		cmocka_unit_test(test_write_in_tree),
		cmocka_unit_test(test_zswap_stats),
		cmocka_unit_test(test_misc),
		cmocka_unit_test(test_user_file_replace),
		cmocka_unit_test(test_pid_alive),
		cmocka_unit_test(test_machine_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
