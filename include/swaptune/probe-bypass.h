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
};

/*
 * Behavioural check: a short sequential swap-in (64 MiB working set in a
 * 32 MiB memcg) under zswap with page-cluster=3; swap_ra rising means no
 * native bypass. Sets up (and restores) zswap, a scratch swap and the cgroup
 * itself, journaled in st. Needs root on the live host; takes ~2 s.
 */
int probe_detect_native_bypass(const struct host *h, struct store *st,
			       struct probe_bypass_check *out, struct st_err *e);

#endif
