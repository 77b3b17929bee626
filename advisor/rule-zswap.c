/*
 * rule-zswap.c - advisor rules about zswap: off while swap is in use, its
 * pool at the limit, the shrinker off, incompressible data, and stores that
 * failed.
 */
#include <stdio.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "swaptune/fmt.h"

/*
 * 90 % of max_pool_percent: the pool refills to accept_threshold_percent
 * (default 90) of the limit after hitting it, so a pool sitting there has
 * been full recently.
 */
#define POOL_NEAR_LIMIT_PCT	90.0
/*
 * A tenth of the pages offered to zswap failing to compress is enough that
 * the wasted compressions show as CPU; under 1024 pages (4 MiB) it is noise.
 */
#define POOR_MIN_PAGES		1024
#define POOR_HIGH_PCT		10.0

/*
 * Fix texts name swaptune's own command where a registered setting does
 * the job: `swaptune apply` journals the change and `swaptune rollback`
 * takes it back, which a bare echo into sysfs does not; --confirm-within
 * undoes it unless confirmed (the safety net of every apply swaptune
 * suggests); --persist writes the boot-time file that keeps it.
 */
#define APPLY_KEEP	" (" ADVISOR_APPLY_NET "; swaptune rollback takes it back; --persist keeps it after a reboot)"

/* a count in the one number style of human output (fmt_num): 12.35k */
static const char *num(uint64_t v, char *buf, size_t len)
{
	return fmt_num((double)v, buf, len);
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

static void check_zswap_disabled(const struct advisor_host_facts *f,
				 struct advisor_rule_result *r)
{
	bool all_zram = true;

	if (!advisor_rule_need_active_swaps(f, r))
		return;
	for (size_t i = 0; i < f->n_swaps; i++)
		all_zram &= f->swaps[i].type == ADVISOR_SWAP_ZRAM;
	/* zswap in front of zram compresses every page twice. */
	if (all_zram) {
		advisor_rule_ok(r, "zram is the only swap: zswap is not needed in front of it");
		return;
	}
	if (f->zswap_present.known && !f->zswap_present.v) {
		advisor_rule_finding(r, ADVISOR_SEV_INFO,
				  "this kernel has no zswap: every swapped-out page is written to the swap device");
		advisor_rule_fix(r, NULL,
				 "use a kernel built with CONFIG_ZSWAP=y, or zram as swap");
		return;
	}
	if (!f->zswap_enabled.known) {
		advisor_rule_skip(r, "whether zswap is enabled is unknown");
		return;
	}
	if (f->zswap_enabled.v) {
		if (f->zswap_compressor[0])
			advisor_rule_ok(r, "zswap is enabled (compressor %s)", f->zswap_compressor);
		else
			advisor_rule_ok(r, "zswap is enabled");
		return;
	}
	advisor_rule_finding(r, ADVISOR_SEV_INFO,
			  "zswap is disabled while %zu swap area%s active: every swapped-out page "
			  "is written to the device uncompressed",
			  f->n_swaps, f->n_swaps == 1 ? " is" : "s are");
	advisor_rule_fix(r, NULL, ADVISOR_APPLY " zswap.enabled=Y" APPLY_KEEP);
}

const struct advisor_rule advisor_rule_zswap_disabled = {
	.name = "zswap-disabled",
	.area = "zswap",
	.summary = "swap is in use without zswap in front of it",
	.check = check_zswap_disabled,
};

static void check_zswap_pool_limit(const struct advisor_host_facts *f,
				   struct advisor_rule_result *r)
{
	const struct advisor_u64 *boot_hits = &f->since_boot.zswap_pool_limit_hit;
	const struct advisor_u64 *win_hits = &f->window.zswap_pool_limit_hit;
	bool size_known, rising, ever;
	double limit_bytes = 0.0, fill_pct = 0.0;
	char size[128] = "", span[48], now[32] = "", held[32], limit[32], n[FMT_NUM_LEN];

	if (!advisor_rule_need_zswap_on(f, r))
		return;
	size_known = f->zswap_pool_total_bytes.known && f->zswap_max_pool_pct.known &&
		     f->mem_total_bytes.known && f->mem_total_bytes.v > 0 &&
		     f->zswap_max_pool_pct.v > 0;
	if (!size_known && !boot_hits->known && !(f->has_window && win_hits->known)) {
		advisor_rule_skip(r, "pool_limit_hit and the pool size are unknown (zswap debugfs needs root)");
		return;
	}
	if (size_known) {
		limit_bytes = (double)f->mem_total_bytes.v *
			      (double)f->zswap_max_pool_pct.v / 100.0;
		fill_pct = 100.0 * (double)f->zswap_pool_total_bytes.v / limit_bytes;
		snprintf(size, sizeof(size), "; it holds %s of its %s limit (%llu %% of RAM)",
			 fmt_bytes(f->zswap_pool_total_bytes.v, held, sizeof(held)),
			 fmt_bytes((unsigned long long)limit_bytes, limit, sizeof(limit)),
			 ull(f->zswap_max_pool_pct.v));
	}
	if (f->zswap_max_pool_pct.known)
		snprintf(now, sizeof(now), " (now %llu)", ull(f->zswap_max_pool_pct.v));
	advisor_span_words(f, span, sizeof(span));
	rising = f->has_window && win_hits->known && win_hits->v > 0;
	ever = boot_hits->known && boot_hits->v > 0;

	if (rising || (size_known && fill_pct >= POOL_NEAR_LIMIT_PCT)) {
		if (rising)
			advisor_rule_finding(r, ADVISOR_SEV_WARN,
					  "the zswap pool hit its limit %s times %s%s: new pages are "
					  "rejected to the swap device", num(win_hits->v, n, sizeof(n)), span, size);
		else
			advisor_rule_finding(r, ADVISOR_SEV_WARN,
					  "the zswap pool is at %.0f %% of its limit%s: new pages are about "
					  "to be rejected to the swap device", fill_pct, size);
	} else if (ever) {
		advisor_rule_finding(r, ADVISOR_SEV_INFO,
				  "the zswap pool hit its limit %s times since boot%s%s",
				  num(boot_hits->v, n, sizeof(n)), f->has_window && win_hits->known
				  ? " but not recently" : "", size);
	} else {
		if (size_known)
			advisor_rule_ok(r, "the zswap pool is at %.0f %% of its limit", fill_pct);
		else
			advisor_rule_ok(r, "the zswap pool never hit its limit");
		return;
	}
	advisor_rule_fix(r, NULL,
			 "raise zswap.max_pool_percent%s with " ADVISOR_APPLY " zswap.max_pool_percent=N, or "
			 ADVISOR_APPLY " zswap.shrinker_enabled=Y so cold pages are written back before "
			 "the pool fills" APPLY_KEEP, now);
}

const struct advisor_rule advisor_rule_zswap_pool_limit = {
	.name = "zswap-pool-limit",
	.area = "zswap",
	.summary = "the zswap pool is full or keeps hitting its limit",
	.check = check_zswap_pool_limit,
};

static void check_zswap_shrinker_off(const struct advisor_host_facts *f,
				     struct advisor_rule_result *r)
{
	const struct advisor_u64 *boot_hits = &f->since_boot.zswap_pool_limit_hit;
	char n[FMT_NUM_LEN];
	bool filled;

	if (!advisor_rule_need_zswap_on(f, r))
		return;
	if (!f->zswap_shrinker_enabled.known) {
		advisor_rule_skip(r, "zswap.shrinker_enabled is not available (kernel older than 6.8?)");
		return;
	}
	if (f->zswap_shrinker_enabled.v) {
		advisor_rule_ok(r, "the zswap shrinker is on");
		return;
	}
	/* Without the shrinker, a full pool rejects new (hot) pages while old
	 * (cold) ones stay: worse once the pool has actually filled. */
	filled = boot_hits->known && boot_hits->v > 0;
	if (filled)
		advisor_rule_finding(r, ADVISOR_SEV_WARN,
				  "zswap is enabled but its shrinker is off, and the pool has filled %s "
				  "times: cold pages stay compressed while new ones go to the swap device",
				  num(boot_hits->v, n, sizeof(n)));
	else
		advisor_rule_finding(r, ADVISOR_SEV_INFO,
				  "zswap is enabled but its shrinker is off: cold pages stay compressed "
				  "in the pool until it fills");
	advisor_rule_fix(r, NULL, ADVISOR_APPLY " zswap.shrinker_enabled=Y" APPLY_KEEP);
}

const struct advisor_rule advisor_rule_zswap_shrinker_off = {
	.name = "zswap-shrinker-off",
	.area = "zswap",
	.summary = "zswap is on but its shrinker is off",
	.check = check_zswap_shrinker_off,
};

static void check_zswap_incompressible(const struct advisor_host_facts *f,
				       struct advisor_rule_result *r)
{
	const struct advisor_counters *c = advisor_facts_recent(f);
	uint64_t poor, stored;
	const char *basis;
	char span[48], alt[128] = "", n1[FMT_NUM_LEN], n2[FMT_NUM_LEN];
	double poor_pct;

	if (!advisor_rule_need_zswap_on(f, r))
		return;
	if (!c->zswap_reject_compress_poor.known) {
		advisor_rule_skip(r, "reject_compress_poor is unknown (zswap debugfs needs root)");
		return;
	}
	poor = c->zswap_reject_compress_poor.v;
	if (c->zswpout.known) {
		stored = c->zswpout.v;
		basis = "offered to zswap";
	} else if (f->zswap_stored_pages.known) {
		/* a gauge, not a count over the same span: a rough stand-in */
		stored = f->zswap_stored_pages.v;
		basis = "offered to zswap (against the pages stored now)";
	} else {
		advisor_rule_skip(r, "neither zswpout nor stored_pages is known");
		return;
	}
	advisor_span_words(f, span, sizeof(span));
	if (poor < POOR_MIN_PAGES) {
		advisor_rule_ok(r, "%s pages rejected as incompressible %s", num(poor, n1, sizeof(n1)), span);
		return;
	}
	poor_pct = 100.0 * (double)poor / ((double)stored + (double)poor);
	if (poor_pct < POOR_HIGH_PCT) {
		advisor_rule_ok(r, "%.1f %% of the pages %s were rejected as incompressible %s",
				poor_pct, basis, span);
		return;
	}
	advisor_rule_finding(r, ADVISOR_SEV_WARN,
			  "%.0f %% of the pages %s were rejected as incompressible %s (%s of %s)",
			  poor_pct, basis, span, num(poor, n1, sizeof(n1)), num(stored + poor, n2, sizeof(n2)));
	if (f->zswap_compressor[0] && strcmp(f->zswap_compressor, "zstd"))
		snprintf(alt, sizeof(alt), ", or try zstd, which compresses more than %s "
			 "(" ADVISOR_APPLY " zswap.compressor=zstd)", f->zswap_compressor);
	advisor_rule_fix(r, NULL,
			 "each one cost a compression and still went to the swap device; set "
			 "memory.zswap.max=0 for the cgroup holding incompressible data%s", alt);
}

const struct advisor_rule advisor_rule_zswap_incompressible = {
	.name = "zswap-incompressible",
	.area = "zswap",
	.summary = "many pages offered to zswap do not compress",
	.check = check_zswap_incompressible,
};

static void check_zswap_rejects(const struct advisor_host_facts *f,
				struct advisor_rule_result *r)
{
	const struct advisor_counters *c = advisor_facts_recent(f);
	const struct {
		const char *name;
		const struct advisor_u64 *v;
	} kinds[] = {
		{ "reclaim_fail", &c->zswap_reject_reclaim_fail },
		{ "alloc_fail", &c->zswap_reject_alloc_fail },
		{ "kmemcache_fail", &c->zswap_reject_kmemcache_fail },
		{ "compress_fail", &c->zswap_reject_compress_fail },
	};
	char detail[160] = "", span[48], n[FMT_NUM_LEN];
	size_t used = 0;
	uint64_t total = 0;
	bool any_known = false;

	if (!advisor_rule_need_zswap_on(f, r))
		return;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!kinds[i].v->known)
			continue;
		any_known = true;
		total += kinds[i].v->v;
		if (kinds[i].v->v > 0 && used < sizeof(detail))
			used += (size_t)snprintf(detail + used, sizeof(detail) - used, "%s%s %s",
						 used ? ", " : "", kinds[i].name,
						 num(kinds[i].v->v, n, sizeof(n)));
	}
	if (!any_known) {
		advisor_rule_skip(r, "the zswap reject counters are unknown (zswap debugfs needs root)");
		return;
	}
	advisor_span_words(f, span, sizeof(span));
	if (total == 0) {
		advisor_rule_ok(r, "no zswap store failed %s", span);
		return;
	}
	/* reclaim_fail means the pool was full and writeback could not make
	 * room: pages fell through to the device under pressure. */
	advisor_rule_finding(r, c->zswap_reject_reclaim_fail.known && c->zswap_reject_reclaim_fail.v > 0
			  ? ADVISOR_SEV_WARN : ADVISOR_SEV_INFO,
			  "zswap failed to store %s pages %s (%s)", num(total, n, sizeof(n)), span, detail);
	advisor_rule_fix(r, NULL,
			 "reclaim_fail: the pool was full and writeback failed, see zswap-pool-limit; "
			 "alloc and kmemcache failures point at memory pressure at the time");
}

const struct advisor_rule advisor_rule_zswap_rejects = {
	.name = "zswap-rejects",
	.area = "zswap",
	.summary = "zswap failed to store pages (full pool, allocation or compression failures)",
	.check = check_zswap_rejects,
};
