/*
 * probe-bypass.h - does this kernel skip swap readahead for zswap swap-in
 * (a "native bypass")? The standalone check doctor runs; a probe with a
 * "bypass" arm runs the same check inside its own setup (probe-bypass.c).
 */
#ifndef SWAPTUNE_PROBE_BYPASS_H
#define SWAPTUNE_PROBE_BYPASS_H

#include <stdbool.h>
#include <stdint.h>

#include "swaptune/err.h"

struct host;
struct store;

struct probe_bypass_check {
	bool conclusive;		/* zswap did swap pages in */
	bool native;			/* swap_ra stayed ~0 with page-cluster 3 */
	uint64_t swap_ra, swap_ra_hit, zswpin;
	char evidence[256];
	/* The standalone check's second trial, page-cluster 0, run when the
	 * first was conclusive and not native: does page-cluster move swap_ra? */
	bool pc_ran;
	bool pc_conclusive;		/* both trials swapped in, page-cluster 3 read ahead */
	bool pc_governs;		/* page-cluster 0 read ahead at most a quarter as much */
	uint64_t pc0_swap_ra, pc0_zswpin;
	char pc_evidence[256];
};

/*
 * Behavioural check: a short sequential swap-in (64 MiB working set in a
 * 32 MiB memcg) under zswap with page-cluster=3; swap_ra rising means no
 * native bypass. Then (no native bypass) the same sweep with page-cluster=0:
 * swap_ra falling proves that page-cluster governs readahead on this kernel,
 * which every page-cluster arm of a probe relies on. Sets up (and restores) zswap, a scratch swap and the cgroup
 * itself, journaled in st. Needs root on the live host; takes ~2 s.
 */
int probe_detect_native_bypass(const struct host *h, struct store *st,
			       struct probe_bypass_check *out, struct st_err *e);

#endif
