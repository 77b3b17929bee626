/*
 * rule-readahead.c - advisor rules about swap readahead: a rotational swap
 * device forcing cluster readahead on the whole host, and readahead that
 * mostly misses under zswap.
 */
#include <stdio.h>

#include "swaptune/advisor.h"
#include "swaptune/fmt.h"

/*
 * Below 4096 readahead pages (16 MiB with 4 KiB pages) the ratio says more
 * about a few faults than about the workload. Under half the pages read
 * ahead being used, readahead costs more decompression and memory than it
 * saves; the probe then decides between page-cluster 3, 1 and 0.
 */
#define RA_MIN_PAGES		4096
#define RA_LOW_HIT_PCT		50.0

#define PROBE_PAGE_CLUSTER	"swaptune probe --arms pc3,pc1,pc0"

static void check_rotational_swap(const struct advisor_host_facts *f,
				  struct advisor_rule_result *r)
{
	const struct advisor_swap *rot = NULL, *unknown = NULL;
	bool zswap_on = f->zswap_enabled.known && f->zswap_enabled.v;

	if (!advisor_rule_need_active_swaps(f, r))
		return;
	for (size_t i = 0; i < f->n_swaps; i++) {
		const struct advisor_swap *s = &f->swaps[i];

		if (!s->rotational.known) {
			if (!unknown)
				unknown = s;
		} else if (s->rotational.v && !rot) {
			rot = s;
		}
	}
	if (rot) {
		/* In-memory zswap pages gain nothing from disk-shaped readahead;
		 * without zswap, cluster readahead is what a disk wants. */
		advisor_rule_finding(r, zswap_on ? ADVISOR_SEV_WARN : ADVISOR_SEV_INFO,
				  "swap area %s is on a rotational device: the whole host uses cluster readahead%s%s",
				  rot->name,
				  f->vma_ra_enabled.known && f->vma_ra_enabled.v
				  ? " and vma_ra_enabled has no effect" : "",
				  zswap_on ? ", also for pages swapped in from zswap" : "");
		advisor_rule_fix(r, PROBE_PAGE_CLUSTER,
				 "swap off %s or move it to a non-rotational device; a virtual disk that wrongly "
				 "reports rotational=1 can be set to 0 in its queue/rotational", rot->name);
		return;
	}
	if (unknown) {
		advisor_rule_skip(r, "whether swap area %s is on a rotational device is unknown",
				  unknown->name);
		return;
	}
	if (f->vma_ra_enabled.known && !f->vma_ra_enabled.v)
		advisor_rule_ok(r, "no swap area is rotational, but vma_ra_enabled is off: cluster readahead");
	else
		advisor_rule_ok(r, "no swap area is rotational: VMA readahead is possible");
}

const struct advisor_rule advisor_rule_rotational_swap = {
	.name = "rotational-swap",
	.area = "readahead",
	.summary = "a rotational swap device switches the whole host to cluster readahead",
	.check = check_rotational_swap,
};

static void check_readahead_hit_ratio(const struct advisor_host_facts *f,
				      struct advisor_rule_result *r)
{
	const struct advisor_counters *c = advisor_facts_recent(f);
	char span[48], read[64], wasted[64];
	uint64_t ra, hit;
	double hit_pct;

	if (!f->zswap_enabled.known) {
		advisor_rule_skip(r, "whether zswap is enabled is unknown");
		return;
	}
	if (!f->zswap_enabled.v) {
		advisor_rule_skip(r, "zswap is disabled: this rule judges readahead from zswap");
		return;
	}
	if (!c->swap_ra.known || !c->swap_ra_hit.known) {
		advisor_rule_skip(r, "swap_ra and swap_ra_hit are not in vmstat (kernel older than 4.14?)");
		return;
	}
	ra = c->swap_ra.v;
	/* hits are counted when a page read earlier is used, so a sampled
	 * window can see more hits than readahead */
	hit = c->swap_ra_hit.v < ra ? c->swap_ra_hit.v : ra;
	advisor_span_words(f, span, sizeof(span));
	if (ra < RA_MIN_PAGES) {
		advisor_rule_ok(r, "only %s read ahead %s: too few to judge",
				advisor_pages_words(f, ra, true, read, sizeof(read)), span);
		return;
	}
	hit_pct = 100.0 * (double)hit / (double)ra;
	if (hit_pct >= RA_LOW_HIT_PCT) {
		advisor_rule_ok(r, "%.0f %% of %s read ahead were used %s",
				hit_pct, advisor_pages_words(f, ra, true, read, sizeof(read)), span);
		return;
	}
	advisor_rule_finding(r, ADVISOR_SEV_WARN,
			  "only %.0f %% of %s read ahead from zswap were used %s: "
			  "the other %s were decompressed and held in memory for nothing",
			  hit_pct, advisor_pages_words(f, ra, true, read, sizeof(read)), span,
			  advisor_pages_words(f, ra - hit, false, wasted, sizeof(wasted)));
	if (f->page_cluster.known)
		advisor_rule_fix(r, PROBE_PAGE_CLUSTER,
				 "measure smaller readahead (vm.page-cluster is %llu): the probe compares "
				 "page-cluster 3, 1 and 0 on this workload",
				 (unsigned long long)f->page_cluster.v);
	else
		advisor_rule_fix(r, PROBE_PAGE_CLUSTER,
				 "measure smaller readahead: the probe compares page-cluster 3, 1 and 0 on this workload");
}

const struct advisor_rule advisor_rule_readahead_hit_ratio = {
	.name = "readahead-hit-ratio",
	.area = "readahead",
	.summary = "most swap readahead under zswap is never used",
	.check = check_readahead_hit_ratio,
};
