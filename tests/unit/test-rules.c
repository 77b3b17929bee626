/*
 * test-rules.c - the advisor rules on a table of host states: for each rule
 * a state where it fires, one where it stays quiet and one where a fact it
 * needs is unknown. Every state is a healthy zswap host (healthy()) with one
 * thing changed. Expected numbers are worked out in the comments from the
 * healthy host's figures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "swaptune/advisor.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MiB (1024ULL * 1024ULL)
#define PROBE_PC "swaptune probe --arms pc3,pc1,pc0"

static struct advisor_u64 u64(uint64_t v)
{
	return (struct advisor_u64){ .known = true, .v = v };
}

static struct advisor_bool yes_no(bool v)
{
	return (struct advisor_bool){ .known = true, .v = v };
}

/*
 * 16 GiB RAM, 4 KiB pages, one 8 GiB NVMe swap partition with 1 GiB used, zswap on with
 * lzo, max_pool_percent 20 (limit 3276.8 MiB), shrinker on, pool 150 MiB;
 * since boot 100000 pages read ahead with 90000 hits, 200000 zswpout,
 * 100 incompressible rejects, no other rejects, pool limit never hit.
 */
static void healthy(struct advisor_host_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->swaps_known = true;
	f->n_swaps = 1;
	snprintf(f->swaps[0].name, sizeof(f->swaps[0].name), "/dev/nvme0n1p3");
	f->swaps[0].type = ADVISOR_SWAP_PARTITION;
	f->swaps[0].rotational = yes_no(false);
	f->swaps[0].size_bytes = u64(8192 * MiB);
	f->swaps[0].used_bytes = u64(1024 * MiB);
	f->zswap_present = yes_no(true);
	f->zswap_enabled = yes_no(true);
	snprintf(f->zswap_compressor, sizeof(f->zswap_compressor), "lzo");
	f->zswap_max_pool_pct = u64(20);
	f->zswap_shrinker_enabled = yes_no(true);
	f->zswap_stored_pages = u64(100000);
	f->zswap_pool_total_bytes = u64(150 * MiB);
	f->page_cluster = u64(3);
	f->vma_ra_enabled = yes_no(true);
	f->mem_total_bytes = u64(16384 * MiB);
	f->page_size_bytes = u64(4096);
	f->since_boot.swap_ra = u64(100000);
	f->since_boot.swap_ra_hit = u64(90000);
	f->since_boot.zswpin = u64(50000);
	f->since_boot.zswpout = u64(200000);
	f->since_boot.pswpin = u64(0);
	f->since_boot.zswap_pool_limit_hit = u64(0);
	f->since_boot.zswap_reject_compress_poor = u64(100);
	f->since_boot.zswap_reject_compress_fail = u64(0);
	f->since_boot.zswap_reject_alloc_fail = u64(0);
	f->since_boot.zswap_reject_kmemcache_fail = u64(0);
	f->since_boot.zswap_reject_reclaim_fail = u64(0);
	f->since_boot.zswap_written_back_pages = u64(0);
}

/* ---- tweaks: one change each to the healthy host ---- */

static void t_none(struct advisor_host_facts *f) { (void)f; }
static void t_no_swap(struct advisor_host_facts *f) { f->n_swaps = 0; }
static void t_swaps_unknown(struct advisor_host_facts *f) { f->swaps_known = false; f->n_swaps = 0; }
static void t_zswap_off(struct advisor_host_facts *f) { f->zswap_enabled = yes_no(false); }
static void t_zswap_unknown(struct advisor_host_facts *f) { f->zswap_enabled.known = false; }

static void t_no_zswap_kernel(struct advisor_host_facts *f)
{
	f->zswap_present = yes_no(false);
	f->zswap_enabled.known = false;
}

static void t_zram(struct advisor_host_facts *f)
{
	snprintf(f->swaps[0].name, sizeof(f->swaps[0].name), "/dev/zram0");
	f->swaps[0].type = ADVISOR_SWAP_ZRAM;
}

static void t_type_unknown(struct advisor_host_facts *f) { f->swaps[0].type = ADVISOR_SWAP_UNKNOWN; }

static void t_rotational(struct advisor_host_facts *f)
{
	f->n_swaps = 2;
	snprintf(f->swaps[1].name, sizeof(f->swaps[1].name), "/dev/vda2");
	f->swaps[1].type = ADVISOR_SWAP_PARTITION;
	f->swaps[1].rotational = yes_no(true);
}

static void t_rotational_no_zswap(struct advisor_host_facts *f)
{
	t_rotational(f);
	f->zswap_enabled = yes_no(false);
	f->vma_ra_enabled = yes_no(false);
}

static void t_rotational_unknown(struct advisor_host_facts *f) { f->swaps[0].rotational.known = false; }
static void t_ra_low(struct advisor_host_facts *f) { f->since_boot.swap_ra_hit = u64(20000); }
static void t_ra_low_no_page_size(struct advisor_host_facts *f)
{
	f->since_boot.swap_ra_hit = u64(20000);
	f->page_size_bytes.known = false;
}
static void t_ra_few(struct advisor_host_facts *f) { f->since_boot.swap_ra = u64(1000); f->since_boot.swap_ra_hit = u64(100); }
static void t_ra_unknown(struct advisor_host_facts *f) { f->since_boot.swap_ra.known = false; }

/* healthy since boot, but the last minute read 8000 pages ahead, 1200 used */
static void t_ra_low_window(struct advisor_host_facts *f)
{
	f->has_window = true;
	f->window_s = 60;
	f->window.swap_ra = u64(8000);
	f->window.swap_ra_hit = u64(1200);
}

static void t_pool_rising(struct advisor_host_facts *f)
{
	f->has_window = true;
	f->window_s = 60;
	f->window.zswap_pool_limit_hit = u64(12);
	f->since_boot.zswap_pool_limit_hit = u64(40);
	f->zswap_pool_total_bytes = u64(3100 * MiB);
}

static void t_pool_near(struct advisor_host_facts *f) { f->zswap_pool_total_bytes = u64(3200 * MiB); }
static void t_pool_ever(struct advisor_host_facts *f) { f->since_boot.zswap_pool_limit_hit = u64(5); }

static void t_pool_unknown(struct advisor_host_facts *f)
{
	f->zswap_pool_total_bytes.known = false;
	f->since_boot.zswap_pool_limit_hit.known = false;
}

static void t_shrinker_off(struct advisor_host_facts *f) { f->zswap_shrinker_enabled = yes_no(false); }

static void t_shrinker_off_full(struct advisor_host_facts *f)
{
	t_shrinker_off(f);
	f->since_boot.zswap_pool_limit_hit = u64(7);
}

static void t_shrinker_unknown(struct advisor_host_facts *f) { f->zswap_shrinker_enabled.known = false; }
static void t_poor(struct advisor_host_facts *f) { f->since_boot.zswap_reject_compress_poor = u64(50000); }
static void t_poor_unknown(struct advisor_host_facts *f) { f->since_boot.zswap_reject_compress_poor.known = false; }

static void t_rejects(struct advisor_host_facts *f)
{
	f->since_boot.zswap_reject_reclaim_fail = u64(300);
	f->since_boot.zswap_reject_alloc_fail = u64(2);
}

static void t_rejects_unknown(struct advisor_host_facts *f)
{
	f->since_boot.zswap_reject_compress_fail.known = false;
	f->since_boot.zswap_reject_alloc_fail.known = false;
	f->since_boot.zswap_reject_kmemcache_fail.known = false;
	f->since_boot.zswap_reject_reclaim_fail.known = false;
}

struct rule_case {
	const char *rule;
	const char *what;
	void (*tweak)(struct advisor_host_facts *f);
	enum advisor_rule_status status;
	enum advisor_severity severity;	/* findings only */
	const char *message;		/* exact */
	const char *probe;		/* exact, findings only */
	const char *fix_has;		/* substring of fix, findings only */
};

#define FIRES(sev) ADVISOR_RULE_FINDING, ADVISOR_SEV_##sev
#define QUIET ADVISOR_RULE_OK, ADVISOR_SEV_INFO
#define SKIPPED ADVISOR_RULE_SKIPPED, ADVISOR_SEV_INFO

static const struct rule_case cases[] = {
	{ "no-swap", "fires", t_no_swap, FIRES(INFO),
	  "no swap is active: vm.page-cluster and zswap have no effect on this host",
	  "", "scratch swap file" },
	{ "no-swap", "quiet", t_none, QUIET, "1 swap area active, 1.0 GiB used", NULL, NULL },
	{ "no-swap", "skipped", t_swaps_unknown, SKIPPED, "the list of active swap areas is unknown", NULL, NULL },

	{ "zswap-disabled", "fires", t_zswap_off, FIRES(INFO),
	  "zswap is disabled while 1 swap area is active: every swapped-out page is written to the device uncompressed",
	  "", "swaptune apply --confirm-within 5m zswap.enabled=Y (undone unless swaptune apply --confirm keeps it" },
	{ "zswap-disabled", "fires, no zswap in the kernel", t_no_zswap_kernel, FIRES(INFO),
	  "this kernel has no zswap: every swapped-out page is written to the swap device",
	  "", "CONFIG_ZSWAP=y" },
	{ "zswap-disabled", "quiet", t_none, QUIET, "zswap is enabled (compressor lzo)", NULL, NULL },
	{ "zswap-disabled", "quiet, zram only", t_zram, QUIET,
	  "zram is the only swap: zswap is not needed in front of it", NULL, NULL },
	{ "zswap-disabled", "skipped", t_zswap_unknown, SKIPPED, "whether zswap is enabled is unknown", NULL, NULL },

	{ "zram-only", "fires", t_zram, FIRES(INFO),
	  "zram is the only swap: the kernel skips readahead for it, so vm.page-cluster has no effect",
	  "", "nothing to tune" },
	{ "zram-only", "quiet", t_none, QUIET, "1 of 1 swap areas are not zram: vm.page-cluster matters", NULL, NULL },
	{ "zram-only", "skipped", t_type_unknown, SKIPPED,
	  "the type of swap area /dev/nvme0n1p3 is unknown", NULL, NULL },

	{ "rotational-swap", "fires under zswap", t_rotational, FIRES(WARN),
	  "swap area /dev/vda2 is on a rotational device: the whole host uses cluster readahead "
	  "and vma_ra_enabled has no effect, also for pages swapped in from zswap",
	  PROBE_PC, "swap off /dev/vda2" },
	{ "rotational-swap", "fires without zswap", t_rotational_no_zswap, FIRES(INFO),
	  "swap area /dev/vda2 is on a rotational device: the whole host uses cluster readahead",
	  PROBE_PC, "queue/rotational" },
	{ "rotational-swap", "quiet", t_none, QUIET, "no swap area is rotational: VMA readahead is possible", NULL, NULL },
	{ "rotational-swap", "skipped", t_rotational_unknown, SKIPPED,
	  "whether swap area /dev/nvme0n1p3 is on a rotational device is unknown", NULL, NULL },

	/* 20000 / 100000 = 20 %, 80000 wasted: sizes as the rest of the
	 * output prints them (fmt_bytes, fmt_num), never a raw page count */
	{ "readahead-hit-ratio", "fires", t_ra_low, FIRES(WARN),
	  "only 20 % of 390.6 MiB (100.0k pages) read ahead from zswap were used since boot: "
	  "the other 312.5 MiB were decompressed and held in memory for nothing",
	  PROBE_PC, "(vm.page-cluster is 3)" },
	{ "readahead-hit-ratio", "fires, page size unknown", t_ra_low_no_page_size, FIRES(WARN),
	  "only 20 % of 100.0k pages read ahead from zswap were used since boot: "
	  "the other 80.00k pages were decompressed and held in memory for nothing",
	  PROBE_PC, "(vm.page-cluster is 3)" },
	/* 1200 / 8000 = 15 %, 6800 wasted, judged on the window */
	{ "readahead-hit-ratio", "fires on the sampled window", t_ra_low_window, FIRES(WARN),
	  "only 15 % of 31.2 MiB (8000 pages) read ahead from zswap were used in the last 60 s: "
	  "the other 26.6 MiB were decompressed and held in memory for nothing",
	  PROBE_PC, "page-cluster 3, 1 and 0" },
	{ "readahead-hit-ratio", "quiet", t_none, QUIET,
	  "90 % of 390.6 MiB (100.0k pages) read ahead were used since boot", NULL, NULL },
	{ "readahead-hit-ratio", "quiet, too little readahead", t_ra_few, QUIET,
	  "only 3.9 MiB (1000 pages) read ahead since boot: too few to judge", NULL, NULL },
	{ "readahead-hit-ratio", "skipped", t_ra_unknown, SKIPPED,
	  "swap_ra and swap_ra_hit are not in vmstat (kernel older than 4.14?)", NULL, NULL },
	{ "readahead-hit-ratio", "skipped, zswap off", t_zswap_off, SKIPPED,
	  "zswap is disabled: this rule judges readahead from zswap", NULL, NULL },

	/* limit = 16384 MiB * 20 % = 3276.8 MiB */
	{ "zswap-pool-limit", "fires, rising", t_pool_rising, FIRES(WARN),
	  "the zswap pool hit its limit 12 times in the last 60 s; it holds 3.0 GiB of its "
	  "3.2 GiB limit (20 % of RAM): new pages are rejected to the swap device",
	  "", "raise zswap.max_pool_percent (now 20) with swaptune apply --confirm-within 5m zswap.max_pool_percent=N" },
	/* 3200 / 3276.8 = 97.7 % */
	{ "zswap-pool-limit", "fires, near the limit", t_pool_near, FIRES(WARN),
	  "the zswap pool is at 98 % of its limit; it holds 3.1 GiB of its 3.2 GiB limit "
	  "(20 % of RAM): new pages are about to be rejected to the swap device",
	  "", "swaptune apply --confirm-within 5m zswap.shrinker_enabled=Y" },
	{ "zswap-pool-limit", "fires, in the past", t_pool_ever, FIRES(INFO),
	  "the zswap pool hit its limit 5 times since boot; it holds 150.0 MiB of its 3.2 GiB "
	  "limit (20 % of RAM)", "", "max_pool_percent" },
	/* 150 / 3276.8 = 4.6 % */
	{ "zswap-pool-limit", "quiet", t_none, QUIET, "the zswap pool is at 5 % of its limit", NULL, NULL },
	{ "zswap-pool-limit", "skipped", t_pool_unknown, SKIPPED,
	  "pool_limit_hit and the pool size are unknown (zswap debugfs needs root)", NULL, NULL },

	{ "zswap-shrinker-off", "fires", t_shrinker_off, FIRES(INFO),
	  "zswap is enabled but its shrinker is off: cold pages stay compressed in the pool until it fills",
	  "", "swaptune apply --confirm-within 5m zswap.shrinker_enabled=Y (undone unless" },
	{ "zswap-shrinker-off", "fires, pool has filled", t_shrinker_off_full, FIRES(WARN),
	  "zswap is enabled but its shrinker is off, and the pool has filled 7 times: "
	  "cold pages stay compressed while new ones go to the swap device",
	  "", "--persist keeps it after a reboot" },
	{ "zswap-shrinker-off", "quiet", t_none, QUIET, "the zswap shrinker is on", NULL, NULL },
	{ "zswap-shrinker-off", "skipped", t_shrinker_unknown, SKIPPED,
	  "zswap.shrinker_enabled is not available (kernel older than 6.8?)", NULL, NULL },

	/* 50000 / (200000 + 50000) = 20 % */
	{ "zswap-incompressible", "fires", t_poor, FIRES(WARN),
	  "20 % of the pages offered to zswap were rejected as incompressible since boot (50.00k of 250.0k)",
	  "", "or try zstd, which compresses more than lzo (swaptune apply --confirm-within 5m zswap.compressor=zstd)" },
	{ "zswap-incompressible", "quiet", t_none, QUIET,
	  "100 pages rejected as incompressible since boot", NULL, NULL },
	{ "zswap-incompressible", "skipped", t_poor_unknown, SKIPPED,
	  "reject_compress_poor is unknown (zswap debugfs needs root)", NULL, NULL },

	{ "zswap-rejects", "fires", t_rejects, FIRES(WARN),
	  "zswap failed to store 302 pages since boot (reclaim_fail 300, alloc_fail 2)",
	  "", "see zswap-pool-limit" },
	{ "zswap-rejects", "quiet", t_none, QUIET, "no zswap store failed since boot", NULL, NULL },
	{ "zswap-rejects", "skipped", t_rejects_unknown, SKIPPED,
	  "the zswap reject counters are unknown (zswap debugfs needs root)", NULL, NULL },
};

static void test_rule_table(void **state)
{
	static struct advisor_host_facts f;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rule_case *c = &cases[i];
		const struct advisor_rule *rule = advisor_rule_find(c->rule);
		struct advisor_rule_result r;
		struct st_err e = { 0 };

		if (!rule)
			fail_msg("no rule %s", c->rule);
		healthy(&f);
		c->tweak(&f);
		assert_int_equal(advisor_rule_run(rule, &f, &r, &e), 0);
		assert_ptr_equal(r.rule, rule->name);
		if (r.status != c->status || strcmp(r.message, c->message))
			fail_msg("%s (%s):\n  got  %s: %s\n  want %s: %s", c->rule, c->what,
				 advisor_rule_status_name(r.status), r.message,
				 advisor_rule_status_name(c->status), c->message);
		if (c->status != ADVISOR_RULE_FINDING) {
			assert_string_equal(r.fix, "");
			assert_string_equal(r.probe, "");
			continue;
		}
		if (r.severity != c->severity)
			fail_msg("%s (%s): severity %s", c->rule, c->what,
				 advisor_severity_name(r.severity));
		assert_string_equal(r.probe, c->probe);
		if (!strstr(r.fix, c->fix_has))
			fail_msg("%s (%s): fix \"%s\" lacks \"%s\"", c->rule, c->what, r.fix, c->fix_has);
		/* a registered setting is changed through swaptune apply (journaled,
		 * reversible), never by writing its kernel file behind swaptune's back */
		if (strstr(r.fix, "echo ") || strstr(r.fix, "> /sys") || strstr(r.fix, "> /proc"))
			fail_msg("%s (%s): fix \"%s\" writes a kernel file directly", c->rule,
				 c->what, r.fix);
		if (strlen(r.fix) + 1 >= sizeof(r.fix) || strlen(r.message) + 1 >= sizeof(r.message))
			fail_msg("%s (%s): a text fills its buffer: cut?", c->rule, c->what);
		/* and with the safety net of recommend's "To apply" line (issue 34,
		 * finding 2): every apply a fix names undoes itself unless confirmed */
		for (const char *a = strstr(r.fix, "swaptune apply "); a; a = strstr(a + 1, "swaptune apply "))
			if (strncmp(a, "swaptune apply --confirm-within 5m ", 35) &&
			    strncmp(a, "swaptune apply --confirm keeps it", 33))
				fail_msg("%s (%s): fix \"%s\" names an apply without --confirm-within", c->rule,
					 c->what, r.fix);
	}
}

/* Every rule has a fires / quiet / skipped case above. */
static void test_rule_coverage(void **state)
{
	(void)state;
	for (size_t i = 0; i < advisor_rules_count; i++) {
		bool seen[3] = { false, false, false };

		for (size_t k = 0; k < ARRAY_SIZE(cases); k++)
			if (!strcmp(cases[k].rule, advisor_rules[i]->name))
				seen[cases[k].status] = true;
		if (!seen[ADVISOR_RULE_OK] || !seen[ADVISOR_RULE_SKIPPED] ||
		    !seen[ADVISOR_RULE_FINDING])
			fail_msg("rule %s lacks a fires/quiet/skipped case", advisor_rules[i]->name);
	}
}

static void test_rules_table_sane(void **state)
{
	(void)state;
	assert_int_equal(advisor_rules_count, 9);
	for (size_t i = 0; i < advisor_rules_count; i++) {
		const struct advisor_rule *r = advisor_rules[i];

		assert_non_null(r->check);
		assert_true(r->summary && r->summary[0]);
		assert_true(!strcmp(r->area, "swap") || !strcmp(r->area, "zswap") ||
			    !strcmp(r->area, "readahead"));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(r->name, advisor_rules[j]->name);
		assert_ptr_equal(advisor_rule_find(r->name), r);
	}
	assert_null(advisor_rule_find("no-such-rule"));
	assert_null(advisor_rule_find(NULL));
}

static void test_rules_run_all(void **state)
{
	static struct advisor_host_facts f;
	struct advisor_rule_result out[ADVISOR_RULES_MAX];
	size_t n = 99;
	struct st_err e = { 0 };

	(void)state;
	/* the healthy host: every rule runs, none finds anything */
	healthy(&f);
	assert_int_equal(advisor_rules_run(&f, out, ADVISOR_RULES_MAX, &n, &e), 0);
	assert_int_equal(n, advisor_rules_count);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(out[i].rule, advisor_rules[i]->name);
		if (out[i].status != ADVISOR_RULE_OK)
			fail_msg("%s: %s", out[i].rule, out[i].message);
	}

	/* a host without swap: one finding, the swap-dependent rules skip */
	f.n_swaps = 0;
	assert_int_equal(advisor_rules_run(&f, out, ADVISOR_RULES_MAX, &n, &e), 0);
	assert_int_equal(out[0].status, ADVISOR_RULE_FINDING);
	assert_string_equal(out[0].rule, "no-swap");
	assert_int_equal(out[2].status, ADVISOR_RULE_SKIPPED);
	assert_string_equal(out[2].message, "no swap is active");

	/* too small an array */
	err_reset(&e);
	assert_int_equal(advisor_rules_run(&f, out, 3, &n, &e), -ENOSPC);
	assert_int_equal(n, 0);
	assert_string_equal(e.msg, "advisor: room for 3 rule results, 9 rules");

	/* malformed facts */
	err_reset(&e);
	f.n_swaps = ADVISOR_SWAPS_MAX + 1;
	assert_int_equal(advisor_rules_run(&f, out, ADVISOR_RULES_MAX, &n, &e), -EINVAL);
	assert_string_equal(e.msg, "advisor: 33 swap areas, at most 32 supported");
	err_reset(&e);
	assert_int_equal(advisor_rules_run(NULL, out, ADVISOR_RULES_MAX, &n, &e), -EINVAL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(advisor_rule_status_name(ADVISOR_RULE_SKIPPED), "skipped");
	assert_string_equal(advisor_severity_name(ADVISOR_SEV_WARN), "warn");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_table),
		cmocka_unit_test(test_rule_coverage),
		cmocka_unit_test(test_rules_table_sane),
		cmocka_unit_test(test_rules_run_all),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
