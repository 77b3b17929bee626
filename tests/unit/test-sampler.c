/*
 * test-sampler.c - the sampling engine against a scripted fake host: a copy
 * of tests/fixtures/sample-basic whose counters each test rewrites between
 * ticks, with explicit timestamps so every rate is exact.
 *
 * Step 0 (the fixture) -> step 1 (2 s later), expected:
 *   zswpin 1000 -> 1200 = 100/s, zswpout 5000 -> 6000 = 500/s, zswpwb 10 -> 14
 *   = 2/s, swap_ra 400 -> 800 = 200/s, swap_ra_hit 300 -> 500 = 100/s (hit
 *   50 %, wasted 100/s), pgmajfault 2000 -> 2100 = 50/s, pgscan_anon+file
 *   10000 -> 10800 = 400/s, pgsteal_anon+file 8000 -> 8200 = 100/s, PSI some
 *   total +500000 us = 25 %, full +100000 us = 5 %, zswap written_back 10 ->
 *   30 = 10/s, rejects 8 -> 18 = 5/s, compression 49152 pages x 4096 /
 *   64 MiB = 3.0; meminfo swap used 1 GiB - 768 MiB = 256 MiB; cgroup
 *   total_pgmajfault 300 -> 340 = 20/s.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "../../src/store-int.h"

#include "swaptune/sampler.h"
#include "swaptune/store.h"

#define S 1000000000ULL	/* one second in ns */
#define WALL0 1767225600000000000ULL	/* 2026-01-01T00:00:00Z */

struct fx {
	char root[PATH_MAX];
	struct host h;
	struct sampler *s;
};

static void copy_fixture(const char *dst)
{
	const char *top = getenv("TOP");
	char cmd[PATH_MAX * 3];

	snprintf(cmd, sizeof(cmd), "cp -r '%s/tests/fixtures/sample-basic/.' '%s'",
		 top && *top ? top : ".", dst);
	assert_int_equal(system(cmd), 0);
}

static void path_of(const struct fx *f, const char *rel, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", f->root, rel);
}

static void write_file(const struct fx *f, const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *o;

	path_of(f, rel, p, sizeof(p));
	/* rewrite in place, as the kernel's files change under an open fd */
	o = fopen(p, "w");
	assert_non_null(o);
	fputs(text, o);
	fclose(o);
}

/* Replace the value of "key value" / "Key:  value kB" line key in rel. */
static void set_key(const struct fx *f, const char *rel, const char *key,
		    unsigned long long val)
{
	char p[PATH_MAX], *text, *out, *line, *save = NULL;
	size_t kl = strlen(key), used = 0;
	bool found = false;
	FILE *in;
	long n;

	path_of(f, rel, p, sizeof(p));
	in = fopen(p, "r");
	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	rewind(in);
	text = calloc(1, (size_t)n + 1);
	out = calloc(1, (size_t)n + 256);
	assert_true(fread(text, 1, (size_t)n, in) == (size_t)n);
	fclose(in);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == ':')) {
			if (line[kl] == ':')
				used += (size_t)sprintf(out + used, "%s: %llu kB\n", key, val);
			else
				used += (size_t)sprintf(out + used, "%s %llu\n", key, val);
			found = true;
		} else {
			used += (size_t)sprintf(out + used, "%s\n", line);
		}
	}
	if (!found)
		fail_msg("%s: no key %s", rel, key);
	write_file(f, rel, out);
	free(text);
	free(out);
}

static void set_u64(const struct fx *f, const char *rel, unsigned long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu\n", v);
	write_file(f, rel, b);
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct st_err e = { 0 };

	snprintf(f->root, sizeof(f->root), "/tmp/swaptune-test-sampler.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	copy_fixture(f->root);
	assert_int_equal(host_open(&f->h, f->root, &e), 0);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	char cmd[PATH_MAX + 16];

	sampler_close(f->s);
	host_close(&f->h);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void open_sampler(struct fx *f, const char *cgroup)
{
	struct sampler_opts o = { .cgroup = cgroup, .zswap_pool = true, .cpu_counters = true };
	struct st_err e = { 0 };

	assert_int_equal(sampler_open(&f->s, &f->h, &o, &e), 0);
}

static void tick(struct fx *f, uint64_t t_ns)
{
	struct st_err e = { 0 };

	assert_int_equal(sampler_tick(f->s, t_ns, WALL0 + t_ns, &e), 0);
}

static double val(struct fx *f, enum sample_metric m)
{
	double v = -1;

	if (!sampler_value(f->s, m, &v))
		fail_msg("%s.%s is n/a", sampler_group_name(sampler_metric(m)->group),
			 sampler_metric(m)->key);
	return v;
}

static void assert_na(struct fx *f, enum sample_metric m)
{
	double v;

	if (sampler_value(f->s, m, &v))
		fail_msg("%s should be n/a, is %g", sampler_metric(m)->key, v);
}

#define assert_val(f, m, want) assert_float_equal(val(f, m), (want), 1e-9)

/* step 0 -> step 1 as in the header comment */
static void step1(struct fx *f)
{
	set_key(f, "proc/vmstat", "zswpin", 1200);
	set_key(f, "proc/vmstat", "zswpout", 6000);
	set_key(f, "proc/vmstat", "zswpwb", 14);
	set_key(f, "proc/vmstat", "swap_ra", 800);
	set_key(f, "proc/vmstat", "swap_ra_hit", 500);
	set_key(f, "proc/vmstat", "pgmajfault", 2100);
	set_key(f, "proc/vmstat", "pgscan_anon", 6500);
	set_key(f, "proc/vmstat", "pgscan_file", 4300);
	set_key(f, "proc/vmstat", "pgsteal_anon", 5100);
	set_key(f, "proc/vmstat", "pgsteal_file", 3100);
	write_file(f, "proc/pressure/memory",
		   "some avg10=2.25 avg60=0.80 avg300=0.20 total=1500000\n"
		   "full avg10=0.75 avg60=0.30 avg300=0.10 total=500000\n");
	set_u64(f, "sys/kernel/debug/zswap/written_back_pages", 30);
	set_u64(f, "sys/kernel/debug/zswap/reject_compress_poor", 14);
	set_key(f, "sys/fs/cgroup/memory/swaptune-x/memory.stat", "total_pgmajfault", 340);
}

static void test_first_tick_levels_only(void **state)
{
	struct fx *f = *state;

	open_sampler(f, NULL);
	tick(f, 5 * S);
	assert_int_equal(sampler_seq(f->s), 0);
	assert_na(f, SM_ZSWPOUT);
	assert_na(f, SM_PSI_SOME_PCT);
	assert_na(f, SM_RA_HIT_PCT);
	assert_val(f, SM_ZP_STORED_PAGES, 49152);
	assert_val(f, SM_ZP_POOL_BYTES, 67108864);
	assert_val(f, SM_ZP_INCOMPRESSIBLE_PAGES, 12);
	assert_val(f, SM_SWAP_USED_BYTES, 268435456.0);
	assert_val(f, SM_SWAP_CACHED_BYTES, 2097152.0);
	assert_val(f, SM_ZSWAP_BYTES, 67108864.0);
	assert_val(f, SM_ZSWAPPED_BYTES, 201326592.0);
	assert_val(f, SM_PSI_SOME_AVG10, 1.5);
	assert_val(f, SM_PSI_FULL_AVG10, 0.5);
	assert_val(f, SM_ZSWAP_RATIO, 3.0);
	/* no cgroup asked for, no CPU counters on a sysroot */
	assert_false(sampler_has_cgroup(f->s));
	assert_na(f, SM_CG_ANON_BYTES);
	assert_string_equal(sampler_cpu_source(f->s), "none");
}

static void test_rates_exact(void **state)
{
	struct fx *f = *state;

	open_sampler(f, "swaptune-x");
	tick(f, 10 * S);
	step1(f);
	tick(f, 12 * S);
	assert_int_equal(sampler_seq(f->s), 1);
	assert_float_equal(sampler_interval_s(f->s), 2.0, 1e-12);
	assert_val(f, SM_ZSWPIN, 100);
	assert_val(f, SM_ZSWPOUT, 500);
	assert_val(f, SM_ZSWPWB, 2);
	assert_val(f, SM_PSWPIN, 0);
	assert_val(f, SM_SWAP_RA, 200);
	assert_val(f, SM_SWAP_RA_HIT, 100);
	assert_val(f, SM_RA_HIT_PCT, 50);
	assert_val(f, SM_RA_WASTED, 100);
	assert_val(f, SM_PGMAJFAULT, 50);
	assert_val(f, SM_PGSCAN, 400);
	assert_val(f, SM_PGSTEAL, 100);
	assert_val(f, SM_REFAULT_ANON, 0);
	assert_val(f, SM_PSI_SOME_PCT, 25);
	assert_val(f, SM_PSI_FULL_PCT, 5);
	assert_val(f, SM_PSI_SOME_AVG10, 2.25);
	assert_val(f, SM_ZP_WRITTEN_BACK, 10);
	assert_val(f, SM_ZP_REJECTS, 5);
	assert_val(f, SM_ZP_POOL_LIMIT_HITS, 0);
	assert_val(f, SM_ZSWAP_RATIO, 3.0);
	/* cgroup v1: hierarchical total_* keys */
	assert_string_equal(sampler_cgroup_version(f->s), "v1");
	assert_val(f, SM_CG_PGMAJFAULT, 20);
	assert_val(f, SM_CG_ANON_BYTES, 104857600);
	assert_val(f, SM_CG_FILE_BYTES, 8388608);
	assert_val(f, SM_CG_SWAP_BYTES, 209715200);
	assert_val(f, SM_CG_SWAPCACHED_BYTES, 4194304);
	assert_na(f, SM_CG_ZSWPOUT);		/* v1 memory.stat has no zswpout */
	assert_na(f, SM_CG_PSI_SOME_PCT);	/* no memory.pressure in v1 */
	assert_non_null(sampler_unavailable(f->s, SG_CGROUP));
	assert_na(f, SM_IPC);

	/* means over two ticks: 500 then (7000 - 6000) / 4 = 250 */
	set_key(f, "proc/vmstat", "zswpout", 7000);
	tick(f, 16 * S);
	assert_val(f, SM_ZSWPOUT, 250);
	{
		double m;

		assert_true(sampler_mean(f->s, SM_ZSWPOUT, &m));
		assert_float_equal(m, 375, 1e-9);
	}
	assert_float_equal(sampler_elapsed_s(f->s), 6.0, 1e-12);
}

/*
 * Every row of the vocabulary with a per-tick value or a counter from a
 * kernel file is read: a new row needs no code here to be sampled. Not on
 * this fixture: the cgroup's PSI, cgroup v2's own keys, CPU counters.
 */
static void test_every_row_read(void **state)
{
	struct fx *f = *state;
	uint64_t u;

	open_sampler(f, "swaptune-x");
	tick(f, 1 * S);
	tick(f, 2 * S);
	for (int m = 0; m < SM_COUNT; m++) {
		const struct vocab_row *r = sampler_metric(m)->row;

		if (r->source == VSRC_VMSTAT || r->source == VSRC_ZSWAP || r->source == VSRC_PSI ||
		    r->source == VSRC_MEMINFO || (r->source == VSRC_MEMCG && r->keys_v1[0]))
			val(f, m);
	}
	for (int c = 0; c < SC_COUNT; c++) {
		const struct vocab_row *r = sampler_counter_def(c)->row;

		if ((r->source == VSRC_VMSTAT || r->source == VSRC_ZSWAP || r->source == VSRC_PSI ||
		     (r->source == VSRC_MEMCG && r->keys_v1[0])) && !sampler_counter(f->s, c, &u))
			fail_msg("counters.%s is n/a", sampler_counter_def(c)->key);
	}
}

static void test_counter_reset(void **state)
{
	struct fx *f = *state;

	open_sampler(f, NULL);
	tick(f, 1 * S);
	set_key(f, "proc/vmstat", "zswpout", 100);	/* went backwards */
	set_key(f, "proc/vmstat", "zswpin", 1100);
	tick(f, 2 * S);
	assert_na(f, SM_ZSWPOUT);
	assert_val(f, SM_ZSWPIN, 100);			/* the others go on */
	set_key(f, "proc/vmstat", "zswpout", 400);
	tick(f, 3 * S);
	assert_val(f, SM_ZSWPOUT, 300);			/* new baseline */
}

static void test_vanishing_and_late_files(void **state)
{
	struct fx *f = *state;
	char cmd[PATH_MAX * 3];
	const char *why;

	open_sampler(f, "swaptune-x");
	tick(f, 1 * S);
	/* debugfs unmounted, cgroup removed */
	snprintf(cmd, sizeof(cmd), "mv '%s/sys/kernel/debug/zswap' '%s/zswap.away' && "
		 "mv '%s/sys/fs/cgroup/memory/swaptune-x' '%s/cg.away'",
		 f->root, f->root, f->root, f->root);
	assert_int_equal(system(cmd), 0);
	tick(f, 2 * S);
	assert_na(f, SM_ZP_STORED_PAGES);
	assert_na(f, SM_ZP_WRITTEN_BACK);
	assert_na(f, SM_CG_ANON_BYTES);
	assert_na(f, SM_CG_PGMAJFAULT);
	why = sampler_unavailable(f->s, SG_ZSWAP);
	assert_non_null(why);
	assert_non_null(strstr(why, "not mounted"));
	assert_non_null(strstr(sampler_unavailable(f->s, SG_CGROUP), "memory.stat"));
	/* compression ratio falls back to meminfo Zswapped / Zswap */
	assert_val(f, SM_ZSWAP_RATIO, 3.0);
	assert_val(f, SM_ZSWPOUT, 0);
	{
		char json[16384];

		assert_true(sampler_format_json(f->s, json, sizeof(json)) > 0);
		assert_non_null(strstr(json, "\"stored_pages\":null"));
		assert_non_null(strstr(json, "\"anon_bytes\":null"));
	}
	/* back, and found again (looked for at most once a second) */
	snprintf(cmd, sizeof(cmd), "mv '%s/zswap.away' '%s/sys/kernel/debug/zswap' && "
		 "mv '%s/cg.away' '%s/sys/fs/cgroup/memory/swaptune-x'",
		 f->root, f->root, f->root, f->root);
	assert_int_equal(system(cmd), 0);
	tick(f, 2 * S + S / 2);
	assert_na(f, SM_ZP_STORED_PAGES);		/* retried only after 1 s */
	tick(f, 3 * S + S / 2);
	assert_val(f, SM_ZP_STORED_PAGES, 49152);
	assert_val(f, SM_CG_ANON_BYTES, 104857600);
	assert_na(f, SM_CG_PGMAJFAULT);			/* no baseline yet */
	assert_na(f, SM_ZP_WRITTEN_BACK);
	assert_null(sampler_unavailable(f->s, SG_ZSWAP));
	tick(f, 4 * S + S / 2);
	assert_val(f, SM_CG_PGMAJFAULT, 0);
	assert_val(f, SM_ZP_WRITTEN_BACK, 0);
}

static void test_missing_keys_and_layout_change(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];
	FILE *o;

	open_sampler(f, NULL);
	tick(f, 1 * S);
	/* an older kernel's vmstat: no zswpwb, no pgscan_anon/file; new line on top */
	path_of(f, "proc/vmstat", p, sizeof(p));
	o = fopen(p, "w");
	assert_non_null(o);
	fprintf(o, "nr_new_counter 5\npgpgin 1\npswpin 0\npswpout 0\nzswpin 1300\n"
		"zswpout 5000\nswap_ra 400\nswap_ra_hit 300\npgmajfault 2000\n"
		"pgscan_kswapd 7100\npgscan_direct 3100\n");
	fclose(o);
	tick(f, 2 * S);
	assert_val(f, SM_ZSWPIN, 300);
	assert_na(f, SM_ZSWPWB);
	assert_na(f, SM_REFAULT_ANON);
	assert_val(f, SM_PGSCAN, 200);	/* kswapd + direct fallback, 10000 -> 10200 */
	assert_val(f, SM_RA_WASTED, 0);
	assert_na(f, SM_RA_HIT_PCT);	/* nothing read ahead */
}

/*
 * A blank line in memory.stat with cgroup v1 (whose key list has holes)
 * once made the parser call memcmp(p, NULL, 0), which aborts UBSan builds
 * (make check-asan): values on both sides of the blank line still count.
 */
static void test_blank_line_in_memory_stat(void **state)
{
	struct fx *f = *state;

	write_file(f, "sys/fs/cgroup/memory/swaptune-x/memory.stat",
		   "total_cache 8388608\n\ntotal_rss 104857600\ntotal_pgmajfault 300\n\n");
	open_sampler(f, "swaptune-x");
	tick(f, 1 * S);
	write_file(f, "sys/fs/cgroup/memory/swaptune-x/memory.stat",
		   "total_cache 8388608\n\ntotal_rss 104857600\ntotal_pgmajfault 340\n\n");
	tick(f, 3 * S);
	assert_val(f, SM_CG_ANON_BYTES, 104857600);
	assert_val(f, SM_CG_FILE_BYTES, 8388608);
	assert_val(f, SM_CG_PGMAJFAULT, 20);
	assert_na(f, SM_CG_SWAP_BYTES);
}

static void test_cgroup_v2(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX];

	write_file(f, "proc/mounts",
		   "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n");
	path_of(f, "sys/fs/cgroup/system.slice/foo.service", p, sizeof(p));
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
		assert_int_equal(system(cmd), 0);
	}
	write_file(f, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
	write_file(f, "sys/fs/cgroup/system.slice/foo.service/memory.stat",
		   "anon 1000\nfile 2000\nswapcached 30\nzswap 400\nzswapped 1200\n"
		   "pgmajfault 10\nzswpin 100\nzswpout 1000\nzswpwb 0\n"
		   "workingset_refault_anon 7\n");
	write_file(f, "sys/fs/cgroup/system.slice/foo.service/memory.pressure",
		   "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
		   "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	open_sampler(f, "/system.slice/foo.service");
	assert_string_equal(sampler_cgroup_version(f->s), "v2");
	assert_string_equal(sampler_cgroup_path(f->s), "system.slice/foo.service");
	tick(f, 1 * S);
	set_key(f, "sys/fs/cgroup/system.slice/foo.service/memory.stat", "zswpout", 1500);
	set_key(f, "sys/fs/cgroup/system.slice/foo.service/memory.stat", "zswpin", 150);
	write_file(f, "sys/fs/cgroup/system.slice/foo.service/memory.pressure",
		   "some avg10=0.00 avg60=0.00 avg300=0.00 total=100000\n"
		   "full avg10=0.00 avg60=0.00 avg300=0.00 total=50000\n");
	tick(f, 1 * S + S / 2);
	assert_val(f, SM_CG_ZSWPOUT, 1000);
	assert_val(f, SM_CG_ZSWPIN, 100);
	assert_val(f, SM_CG_ZSWAP_BYTES, 400);
	assert_val(f, SM_CG_ZSWAPPED_BYTES, 1200);
	assert_val(f, SM_CG_ANON_BYTES, 1000);
	assert_na(f, SM_CG_SWAP_BYTES);
	assert_val(f, SM_CG_PSI_SOME_PCT, 20);	/* 100000 us in 0.5 s */
	assert_val(f, SM_CG_PSI_FULL_PCT, 10);
	assert_null(sampler_unavailable(f->s, SG_CGROUP));
}

static void test_open_errors(void **state)
{
	struct fx *f = *state;
	struct sampler_opts o = { .cgroup = "nope" };
	struct sampler *s = NULL;
	struct st_err e = { 0 };

	assert_int_equal(sampler_open(&s, &f->h, &o, &e), -ENOENT);
	assert_int_equal(err_exit_status(&e), ST_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "no such cgroup"));
	err_reset(&e);
	o.cgroup = "swaptune-x/../..";
	assert_int_equal(sampler_open(&s, &f->h, &o, &e), -EINVAL);
	err_reset(&e);
	write_file(f, "proc/mounts", "proc /proc proc rw 0 0\n");
	o.cgroup = "swaptune-x";
	assert_int_equal(sampler_open(&s, &f->h, &o, &e), -EOPNOTSUPP);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	assert_null(s);
	/* time must advance */
	open_sampler(f, NULL);
	tick(f, 2 * S);
	err_reset(&e);
	assert_int_equal(sampler_tick(f->s, 2 * S, WALL0, &e), -EINVAL);
}

/* the text after "key": in a JSON line, up to the next , or } */
static void json_value_of(const char *json, const char *group, const char *key, char *out, size_t len)
{
	char pat[128];
	const char *p = strstr(json, group), *q;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	assert_non_null(p);
	p = strstr(p, pat);
	assert_non_null(p);
	p += strlen(pat);
	q = p + strcspn(p, ",}");
	snprintf(out, len, "%.*s", (int)(q - p), p);
}

/*
 * The line prints every value as printf would ("%.10g" for a rate, "%.6f"
 * for seconds), though it does without printf where it can: over ticks of
 * uneven length and uneven counter steps, so that the rates are fractions.
 */
static void test_json_numbers_as_printf(void **state)
{
	struct fx *f = *state;
	static const char *const keys[] = { "zswpin", "zswpout", "swap_ra", "pgmajfault" };
	unsigned long long cnt[4] = { 1000, 5000, 400, 2000 };
	uint64_t t = 10 * S, seed = 12345;
	char json[16384], got[64], want[64];

	open_sampler(f, NULL);
	tick(f, t);
	for (int i = 0; i < 150; i++) {
		for (int k = 0; k < 4; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			cnt[k] += (seed >> 33) % (i % 3 ? 100000 : 7);
			set_key(f, "proc/vmstat", keys[k], cnt[k]);
		}
		t += S / 100 + (seed >> 20) % (3 * S);
		tick(f, t);
		assert_true(sampler_format_json(f->s, json, sizeof(json)) > 0);
		for (int m = 0; m < SM_COUNT; m++) {
			const struct sample_metric_def *d = sampler_metric(m);
			double v;

			if (d->group != SG_VMSTAT && d->group != SG_DERIVED)
				continue;
			json_value_of(json, d->group == SG_VMSTAT ? "\"vmstat\"" : "\"derived\"", d->key,
				      got, sizeof(got));
			if (sampler_value(f->s, m, &v))
				snprintf(want, sizeof(want), "%.10g", v);
			else
				snprintf(want, sizeof(want), "null");
			assert_string_equal(got, want);
		}
		json_value_of(json, "{", "interval_s", got, sizeof(got));
		snprintf(want, sizeof(want), "%.6f", sampler_interval_s(f->s));
		assert_string_equal(got, want);
		json_value_of(json, "{", "elapsed_s", got, sizeof(got));
		snprintf(want, sizeof(want), "%.6f", sampler_elapsed_s(f->s));
		assert_string_equal(got, want);
	}
}

static void test_json(void **state)
{
	struct fx *f = *state;
	char json[16384];
	cJSON *d, *g;
	int n;

	open_sampler(f, "swaptune-x");
	tick(f, 10 * S);
	step1(f);
	tick(f, 12 * S);
	n = sampler_format_json(f->s, json, sizeof(json));
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(json));
	assert_null(strchr(json, '\n'));
	d = cJSON_Parse(json);
	assert_non_null(d);
	assert_string_equal(cJSON_GetObjectItem(d, "schema")->valuestring, SAMPLE_SCHEMA);
	assert_int_equal(cJSON_GetObjectItem(d, "seq")->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(d, "time")->valuestring, "2026-01-01T00:00:12.000Z");
	assert_float_equal(cJSON_GetObjectItem(d, "interval_s")->valuedouble, 2.0, 1e-9);
	g = cJSON_GetObjectItem(d, "vmstat");
	assert_float_equal(cJSON_GetObjectItem(g, "zswpout_pages_per_s")->valuedouble, 500, 0);
	g = cJSON_GetObjectItem(d, "derived");
	assert_float_equal(cJSON_GetObjectItem(g, "ra_hit_pct")->valuedouble, 50, 0);
	assert_float_equal(cJSON_GetObjectItem(g, "zswap_compression_ratio")->valuedouble, 3, 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(g, "ipc")));
	g = cJSON_GetObjectItem(d, "cgroup");
	assert_string_equal(cJSON_GetObjectItem(g, "path")->valuestring, "swaptune-x");
	assert_string_equal(cJSON_GetObjectItem(g, "version")->valuestring, "v1");
	assert_float_equal(cJSON_GetObjectItem(g, "pgmajfault_per_s")->valuedouble, 20, 0);
	g = cJSON_GetObjectItem(d, "meminfo");
	assert_float_equal(cJSON_GetObjectItem(g, "swap_used_bytes")->valuedouble, 268435456.0, 0);
	assert_non_null(strstr(json, "\"swap_used_bytes\":268435456,"));
	g = cJSON_GetObjectItem(d, "cpu");
	assert_string_equal(cJSON_GetObjectItem(g, "source")->valuestring, "none");
	assert_non_null(strstr(cJSON_GetObjectItem(g, "note")->valuestring, "live host"));
	g = cJSON_GetObjectItem(d, "unavailable");
	assert_non_null(cJSON_GetObjectItem(g, "cgroup"));
	assert_null(cJSON_GetObjectItem(g, "zswap"));
	cJSON_Delete(d);
	/* too small a buffer is an error, not a truncated line */
	assert_int_equal(sampler_format_json(f->s, json, 100), -ENOSPC);
}

/*
 * A tick as numbers prints the line the live sampler does (the sampler
 * prints through it), and a hand-made one prints its numbers, nulls and
 * strings as the schema says: no cgroup group or cgroup counters without
 * it, control bytes escaped, the cpu's reason only in cpu.note.
 */
static void test_tick_json(void **state)
{
	struct fx *f = *state;
	struct sample_tick t;
	char a[16384], b[16384];
	int n;

	open_sampler(f, "swaptune-x");
	tick(f, 10 * S);
	step1(f);
	tick(f, 12 * S);
	sampler_tick_get(f->s, &t);
	n = sample_tick_json(&t, a, sizeof(a));
	assert_true(n > 0);
	assert_int_equal(sampler_format_json(f->s, b, sizeof(b)), n);
	assert_string_equal(a, b);

	memset(&t, 0, sizeof(t));
	t.members = "\"host\":{\"hostname\":\"h\"}";
	t.seq = 7;
	t.wall_ns = 1764464523456789012ULL;	/* 2025-11-30T01:02:03.456Z */
	t.elapsed_ns = 1500000000ULL;
	t.interval_ns = 999999500ULL;		/* a tie: printf's rounding */
	t.page_size = 4096;
	t.ok[SM_ZSWPOUT] = true;
	t.val[SM_ZSWPOUT] = 1234.56789012345;
	t.has[SC_ZSWPOUT] = true;
	t.counter[SC_ZSWPOUT] = 18446744073709551615ULL;
	t.cpu_source = "software";
	t.cpu_target = "system";
	t.cpu_note = "why\x01";
	t.unavailable[SG_ZSWAP] = "not \"mounted\"\n";
	t.unavailable[SG_CPU] = "said in cpu.note";
	t.unavailable[SG_CGROUP] = "no cgroup group: left out";
	n = sample_tick_json(&t, a, sizeof(a));
	assert_true(n > 0);
	assert_non_null(strstr(a, "{\"schema\":\"" SAMPLE_SCHEMA "\",\"host\":{\"hostname\":\"h\"},\"seq\":7,"
			       "\"time\":\"2025-11-30T01:02:03.456Z\",\"elapsed_s\":1.500000,"
			       "\"interval_s\":1.000000,\"page_size\":4096,\"vmstat\":{"));
	assert_non_null(strstr(a, "\"zswpout_pages_per_s\":1234.56789,"));
	assert_non_null(strstr(a, "\"pswpin_pages_per_s\":null,"));
	assert_non_null(strstr(a, "\"zswpout_pages\":18446744073709551615,"));
	assert_null(strstr(a, "\"cgroup\":"));
	assert_null(strstr(a, "cgroup_zswpin_pages"));
	assert_non_null(strstr(a, "\"note\":\"why\\u0001\""));
	assert_non_null(strstr(a, ",\"unavailable\":{\"zswap\":\"not \\\"mounted\\\"\\u000a\"}}"));
	assert_int_equal(a[n - 1], '}');
	assert_int_equal(sample_tick_json(&t, a, 64), -ENOSPC);
}

/*
 * Printed with the keys a line spells (an older line lacks the ones added
 * since): a null key it lacks is left out, commas and all; a key with a
 * number is printed all the same; NULL keys print every key.
 */
static void test_tick_json_keys(void **state)
{
	struct sample_tick t = { .seq = 3, .page_size = 4096 };
	struct sample_tick_keys k;
	char a[16384], b[16384];

	(void)state;
	t.ok[SM_ZSWPOUT] = true;
	t.val[SM_ZSWPOUT] = 12.5;
	t.has[SC_ZSWPOUT] = true;
	t.counter[SC_ZSWPOUT] = 77;
	assert_int_equal(sample_tick_json_keys(&t, NULL, a, sizeof(a)),
			 sample_tick_json(&t, b, sizeof(b)));
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\"pswpin_pages_per_s\":null,"));

	memset(&k, 0, sizeof(k));	/* spells none: only the numbers are left */
	assert_true(sample_tick_json_keys(&t, &k, a, sizeof(a)) > 0);
	assert_non_null(strstr(a, ",\"vmstat\":{\"zswpout_pages_per_s\":12.5},\"zswap\":{},"));
	assert_non_null(strstr(a, ",\"counters\":{\"zswpout_pages\":77},\"unavailable\":{}}"));
	assert_null(strstr(a, "\":null,\""));	/* cpu.note is a string: null without a note */

	memset(&k, 1, sizeof(k));	/* spells all but the first value and the cpu's last counter */
	k.val[SM_PSWPIN] = false;
	k.counter[SC_CPU_CSW] = false;
	assert_true(sample_tick_json_keys(&t, &k, a, sizeof(a)) > 0);
	assert_non_null(strstr(a, ",\"vmstat\":{\"pswpout_pages_per_s\":null,"));
	assert_null(strstr(a, "pswpin_pages_per_s"));
	assert_null(strstr(a, "cpu_context_switches"));
	assert_non_null(strstr(a, "null},\"unavailable\":{}}"));
}

/* a line parsed back into numbers: 0 and what it prints into out, or the parse's error */
static int reparse(const char *line, char *out, size_t cap)
{
	struct sample_tick t;
	char members[1024];
	cJSON *d = cJSON_Parse(line);
	int r = d ? sample_tick_parse(d, &t, members, sizeof(members)) : -EBADMSG;

	if (r == 0 && sample_tick_json(&t, out, cap) < 0)
		r = -ENOSPC;
	cJSON_Delete(d);
	return r;
}

/*
 * Lines read back into numbers print the very line again (the sampler's,
 * with and without a cgroup, and one with a null note and identity);
 * what is not a tick is refused: issue 33's crafted ticks (a control byte
 * in a string, text that is not JSON), keys unknown, repeated, missing or
 * out of order, values of the wrong type, counters that are not whole.
 */
static void test_tick_parse(void **state)
{
	struct fx *f = *state;
	char line[16384], back[16384], bad[16384];
	static const struct {
		const char *from, *to;
	} crafted[] = {
		{ "\"schema\":\"swaptune.sample/1\"", "\"schema\":\"swaptune.sample/2\"" },
		{ "\"note\":null", "\"note\":\"a\\u001b[2Jb\"" },	/* ESC: a terminal's */
		{ "\"note\":null", "\"note\":\"a\\nb\"" },
		{ "\"path\":\"swaptune-x\"", "\"path\":\"swaptune\\u0007x\"" },
		{ "\"vmstat\":{", "\"vmstat\":{\"pswpin_pages_per_s\":1," },	/* twice */
		{ "\"vmstat\":{", "\"vmstat\":{\"nope\":1," },
		{ "\"pswpout_pages_per_s\":", "\"pswpout_pages_per_s\":\"1\",\"x\":" },
		{ "\"zswpout_pages\":", "\"zswpout_pages\":-1,\"y\":" },
		{ "\"zswpout_pages\":", "\"zswpout_pages\":1.5,\"y\":" },
		{ "\"time\":\"2025-", "\"time\":\"x025-" },
		{ ",\"page_size\":4096", "" },
		{ "\"unavailable\":{", "\"unavailable\":{\"cpu\":\"no\"," },
		{ "}}", "},\"extra\":1}" },
		{ "\"derived\":{", "\"derived\":{,," },		/* not JSON */
		{ "{\"schema\"", "[{\"schema\"" },
	};
	struct sample_tick t;

	/* the sampler's lines, with the cgroup group */
	open_sampler(f, "swaptune-x");
	tick(f, 10 * S);
	for (int i = 0; i < 3; i++) {
		if (i == 1)
			step1(f);
		if (i)
			tick(f, (uint64_t)(11 + i) * S + 123456789ULL);
		assert_true(sampler_format_json(f->s, line, sizeof(line)) > 0);
		assert_int_equal(reparse(line, back, sizeof(back)), 0);
		assert_string_equal(back, line);
	}
	/* a hand-made one: identity, a null note, no cgroup */
	memset(&t, 0, sizeof(t));
	t.members = "\"host\":{\"machine_id\":\"m\",\"hostname\":\"h\"},\"swaptune_version\":\"0.1.0\"";
	t.seq = 7;
	t.wall_ns = 1764464523456000000ULL;
	t.elapsed_ns = 1500000000ULL;
	t.interval_ns = 1000001000ULL;
	t.page_size = 4096;
	t.ok[SM_ZSWPOUT] = true;
	t.val[SM_ZSWPOUT] = 1234.56789;
	t.has[SC_ZSWPOUT] = true;
	t.counter[SC_ZSWPOUT] = 9007199254740992ULL;
	t.cpu_source = "software";
	t.cpu_target = "system";
	t.unavailable[SG_ZSWAP] = "not mounted";
	assert_true(sample_tick_json(&t, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "\"note\":null"));
	assert_int_equal(reparse(line, back, sizeof(back)), 0);
	assert_string_equal(back, line);
	/* crafted from it, and from the cgroup line */
	for (size_t i = 0; i < sizeof(crafted) / sizeof(crafted[0]); i++) {
		const char *src = line, *at;

		if (!strstr(src, crafted[i].from)) {
			assert_true(sampler_format_json(f->s, back, sizeof(back)) > 0);
			src = back;
		}
		at = strstr(src, crafted[i].from);
		assert_non_null(at);
		snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - src), src, crafted[i].to,
			 at + strlen(crafted[i].from));
		if (reparse(bad, back, sizeof(back)) != -EBADMSG)
			fail_msg("crafted %zu taken: %s", i, bad);
	}
}

static bool src_value(const void *arg, enum sample_metric m, double *v)
{
	return sampler_value(arg, m, v);
}

static bool src_counter(const void *arg, enum sample_counter c, double *v)
{
	uint64_t u;

	if (!sampler_counter(arg, c, &u))
		return false;
	*v = (double)u;
	return true;
}

/* each "# HELP name " and "# TYPE name " line exactly once */
static void assert_families_once(const char *text)
{
	for (const char *p = text; (p = strstr(p, "# HELP ")); p++) {
		char name[128], help[160], type[160];
		const char *q = p + 7;
		size_t n = strcspn(q, " ");

		assert_true(n < sizeof(name));
		memcpy(name, q, n);
		name[n] = '\0';
		snprintf(help, sizeof(help), "# HELP %s ", name);
		snprintf(type, sizeof(type), "# TYPE %s ", name);
		assert_ptr_equal(strstr(text, help), p);
		assert_null(strstr(p + 1, help));
		assert_non_null(strstr(text, type));
		assert_null(strstr(strstr(text, type) + 1, type));
		assert_null(strstr(name, "_percent"));
		assert_null(strstr(name, "_per_second"));
	}
}

static void test_prom(void **state)
{
	struct fx *f = *state;
	struct sample_prom_src src = { .value = src_value, .counter = src_counter,
				       .cgroup = "swaptune-x", .page_size = 4096 };
	static char t0[65536], t1[65536], json[16384];
	uint64_t v;
	cJSON *d, *c;

	open_sampler(f, "swaptune-x");
	src.arg = f->s;
	tick(f, 10 * S);
	/* the baseline already has every counter, raw */
	assert_true(sampler_counter(f->s, SC_ZSWPIN, &v));
	assert_int_equal(v, 1000);
	assert_true(sample_prom_format(&src, t0, sizeof(t0)) > 0);
	step1(f);
	tick(f, 12 * S);
	assert_true(sampler_counter(f->s, SC_PSI_SOME, &v));
	assert_int_equal(v, 1500000);
	assert_false(sampler_counter(f->s, SC_CPU_CYCLES, &v));	/* no perf on a sysroot */
	src.interval_s = sampler_interval_s(f->s);
	src.seq = sampler_seq(f->s);
	assert_true(sample_prom_format(&src, t1, sizeof(t1)) > 0);
	assert_families_once(t1);
	{
		/* an apply waiting for its confirmation: the seconds it has left */
		static char t2[65536];
		struct sample_prom_state ps = { .pending_confirm_s = 42 };

		src.state = &ps;
		assert_true(sample_prom_format(&src, t2, sizeof(t2)) > 0);
		src.state = NULL;
		assert_families_once(t2);
		assert_non_null(strstr(t2, "# TYPE swaptune_pending_confirm_seconds gauge\n"
				       "swaptune_pending_confirm_seconds 42\n"));
	}
	assert_non_null(strstr(t1, "# TYPE swaptune_zswpin_pages_total counter\nswaptune_zswpin_pages_total 1200\n"));
	assert_non_null(strstr(t1, "\nswaptune_swap_ra_pages_total 800\n"));
	assert_non_null(strstr(t1, "\nswaptune_memory_pressure_some_seconds_total 1.500000\n"));
	assert_non_null(strstr(t1, "\nswaptune_zswap_rejects_total 18\n"));
	assert_non_null(strstr(t1, "# TYPE swaptune_readahead_hit_ratio gauge\nswaptune_readahead_hit_ratio 0.5\n"));
	assert_non_null(strstr(t1, "\nswaptune_zswap_stored_bytes 201326592\n"));
	assert_non_null(strstr(t1, "\nswaptune_memory_pressure_some_avg10_ratio 0.0225\n"));
	assert_non_null(strstr(t1, "\nswaptune_cgroup_pgmajfault_total{cgroup=\"swaptune-x\"} 340\n"));
	assert_non_null(strstr(t1, "\nswaptune_sample_ticks_total 1\n"));
	assert_null(strstr(t1, "swaptune_cpu_cycles_total"));	/* n/a: left out */
	/* n/a on the baseline: no hit ratio yet */
	assert_null(strstr(t0, "swaptune_readahead_hit_ratio"));
	/* every counter of tick 0 is there at tick 1, not smaller */
	for (int k = 0; k < SC_COUNT; k++) {
		const char *name = sampler_counter_def((enum sample_counter)k)->prom;
		char key[160];
		const char *a, *b;

		snprintf(key, sizeof(key), "\n%s", name);
		if (!(a = strstr(t0, key)))
			continue;
		b = strstr(t1, key);
		assert_non_null(b);
		a = strchr(a + 1, ' ');
		b = strchr(b + 1, ' ');
		assert_true(strtod(b, NULL) >= strtod(a, NULL));
	}
	/* the JSON line carries the raw counters and the members it was given */
	assert_int_equal(sampler_set_json_members(f->s, "\"host\":{\"machine_id\":\"m\"}"), 0);
	assert_true(sampler_format_json(f->s, json, sizeof(json)) > 0);
	assert_non_null(strstr(json, "{\"schema\":\"swaptune.sample/1\",\"host\":{\"machine_id\":\"m\"},\"seq\":1,"));
	d = cJSON_Parse(json);
	assert_non_null(d);
	c = cJSON_GetObjectItem(d, "counters");
	assert_int_equal(cJSON_GetObjectItem(c, "zswpin_pages")->valueint, 1200);
	assert_int_equal(cJSON_GetObjectItem(c, "cgroup_pgmajfault")->valueint, 340);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "cpu_cycles")));
	assert_int_equal(cJSON_GetObjectItem(d, "page_size")->valueint, sysconf(_SC_PAGESIZE));
	cJSON_Delete(d);
	assert_int_equal(sampler_format_json(f->s, json, sizeof(json)) > 0, 1);
	assert_int_equal(sample_prom_format(&src, t1, 100), -ENOSPC);
}

/* the ticks read back, for test_record */
struct read_back {
	int n;
	char json[3][16384];
};

static int read_tick(const struct store_tick *t, void *arg)
{
	struct read_back *b = arg;
	size_t len;
	const char *json = store_tick_json(t, &len);

	assert_non_null(json);
	assert_true(b->n < 3 && len < sizeof(b->json[0]));
	memcpy(b->json[b->n], json, len);
	b->json[b->n++][len] = '\0';
	return 0;
}

static void test_record(void **state)
{
	struct fx *f = *state;
	struct sample_recording rec;
	struct store st;
	struct st_err e = { 0 };
	char db[PATH_MAX + 8], json[3][16384];
	static struct read_back back;
	sqlite3_stmt *q;

	snprintf(db, sizeof(db), "%s/t.db", f->root);
	assert_int_equal(store_open(&st, db, &e), 0);
	open_sampler(f, NULL);
	tick(f, 1 * S);
	assert_int_equal(store_samples_begin(&rec, &st, "{\"interval_s\":1}", &e), 0);
	for (int i = 2; i <= 4; i++) {
		tick(f, (uint64_t)i * S);
		struct sample_tick t;

		assert_true(sampler_format_json(f->s, json[i - 2], sizeof(json[0])) > 0);
		sampler_tick_get(f->s, &t);
		assert_int_equal(store_samples_add(&rec, (uint64_t)(i - 1) * S, &t, &e), 0);
	}
	assert_int_equal(store_samples_end(&rec, "ok", "{\"ticks\":3}", &e), 0);
	assert_int_equal(store_prepare(&st,
		"SELECT r.kind, r.status, count(s.seq), sum(s.t_ns), "
		"max(s.seq), r.ended_at IS NOT NULL "
		"FROM runs r JOIN samples s ON s.run_id = r.id WHERE r.id = ?1", &q, &e), 0);
	sqlite3_bind_int64(q, 1, rec.run_id);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "sample");
	assert_string_equal((const char *)sqlite3_column_text(q, 1), "ok");
	assert_int_equal(sqlite3_column_int(q, 2), 3);
	assert_true(sqlite3_column_int64(q, 3) == (sqlite3_int64)(6 * S));
	assert_int_equal(sqlite3_column_int(q, 4), 3);
	assert_int_equal(sqlite3_column_int(q, 5), 1);
	sqlite3_finalize(q);
	/* the ticks come back as the sampler wrote them, the last one of seq 3 */
	assert_int_equal(store_samples_read(&st, rec.run_id, read_tick, &back, &e), 3);
	for (int i = 0; i < 3; i++)
		assert_string_equal(back.json[i], json[i]);
	assert_non_null(strstr(back.json[2], "\"seq\":3,"));
	store_close(&st);
}

/*
 * Allocation counter: the executable's malloc family wins over libc's for
 * every caller, including libswaptune.a. Not under ASan, which owns malloc.
 */
#if !defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCS 1
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t a, size_t b);
void *__libc_realloc(void *p, size_t n);
static volatile int counting;
static volatile long nallocs;

void *malloc(size_t n)
{
	if (counting)
		nallocs++;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (counting)
		nallocs++;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		nallocs++;
	return __libc_realloc(p, n);
}
#endif

static void test_no_allocation_per_tick(void **state)
{
#ifdef COUNT_ALLOCS
	struct fx *f = *state;
	struct sampler_opts o = { .cgroup = "", .zswap_pool = true, .cpu_counters = true };
	struct sampler *live = NULL;
	struct host h;
	struct st_err e = { 0 };
	char json[16384];

	/* the counter counts */
	counting = 1;
	nallocs = 0;
	free(malloc(16));
	counting = 0;
	assert_int_equal(nallocs, 1);

	/* a captured tree, every source, JSON formatting */
	open_sampler(f, "swaptune-x");
	tick(f, 1 * S);
	step1(f);
	counting = 1;
	nallocs = 0;
	for (int i = 2; i < 50; i++) {
		sampler_tick(f->s, (uint64_t)i * S, WALL0, &e);
		sampler_format_json(f->s, json, sizeof(json));
	}
	counting = 0;
	assert_int_equal(nallocs, 0);

	/* this host: kept-open files, the root memory cgroup, CPU counters if any */
	assert_int_equal(host_open(&h, "/", &e), 0);
	if (sampler_open(&live, &h, &o, &e) < 0) {
		o.cgroup = NULL;	/* no memory controller here */
		err_reset(&e);
		assert_int_equal(sampler_open(&live, &h, &o, &e), 0);
	}
	sampler_tick(live, 1 * S, WALL0, &e);
	counting = 1;
	nallocs = 0;
	for (int i = 2; i < 50; i++) {
		sampler_tick(live, (uint64_t)i * S, WALL0, &e);
		sampler_format_json(live, json, sizeof(json));
	}
	counting = 0;
	assert_int_equal(nallocs, 0);
	assert_true(sampler_value(live, SM_ZSWPOUT, NULL));
	sampler_close(live);
	host_close(&h);
#else
	(void)state;
	skip();
#endif
}

static void test_pmu_live(void **state)
{
	struct pmu_counters *c = calloc(1, sizeof(*c));
	struct st_err e = { 0 };
	uint64_t before = 0, after = 0;
	volatile char *mem;
	int r, idx = -1;

	(void)state;
	/* our own process: allowed at perf_event_paranoid <= 2 without root */
	r = pmu_counters_open(c, PMU_TARGET_PID, (int)getpid(), &e);
	if (r < 0) {
		free(c);
		skip();	/* no perf events in this environment */
	}
	assert_non_null(c->note);
	for (int i = 0; i < c->nevents; i++)
		if (!strcmp(c->ev[i].name, "minor_faults"))
			idx = i;
	assert_true(idx >= 0);
	assert_int_equal(pmu_counters_read(c, &e), 0);
	before = c->ev[idx].value;
	mem = malloc(64 << 20);
	for (size_t off = 0; off < (64 << 20); off += 4096)
		mem[off] = 1;	/* 16384 fresh pages: one minor fault each at least */
	assert_int_equal(pmu_counters_read(c, &e), 0);
	after = c->ev[idx].value;
	free((void *)mem);
	if (!c->using_hardware)
		assert_non_null(strstr(c->note, "no hardware events"));
	assert_true(after - before >= 16384 / 512);	/* THP may fold 512 pages into one */
	pmu_counters_close(c);
	pmu_counters_close(c);	/* idempotent */
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_tick_levels_only, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_rates_exact, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_every_row_read, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_counter_reset, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vanishing_and_late_files, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_missing_keys_and_layout_change, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v2, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_blank_line_in_memory_stat, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_json, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_json_numbers_as_printf, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_tick_json, fx_setup, fx_teardown),
		cmocka_unit_test(test_tick_json_keys),
		cmocka_unit_test_setup_teardown(test_tick_parse, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_prom, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_record, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_allocation_per_tick, fx_setup, fx_teardown),
		cmocka_unit_test(test_pmu_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
