/*
 * host-cgroups.h - every memory cgroup of the host with its memory, swap,
 * zswap, refault and pressure figures, as `below` shows them: the TUI's
 * Cgroups panel reads them through here (the screen code never opens a
 * kernel file). A host-layer module: paths are the memory controller's
 * tree under --sysroot (host_cgroup_info()), keys those of the counter
 * vocabulary (vocab-rows.h: memory.stat of v2, the hierarchical total_*
 * of v1).
 */
#ifndef SWAPTUNE_HOST_CGROUPS_H
#define SWAPTUNE_HOST_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/host.h"

#define HOST_CGROUPS_MAX 1024		/* rows a scan returns at most */
#define HOST_CGROUP_PATH_MAX 256

enum host_cgroup_field {
	HCG_ANON,		/* bytes: anon / total_rss */
	HCG_FILE,		/* bytes: file / total_cache */
	HCG_SWAP,		/* bytes: v2 memory.swap.current, v1 total_swap */
	HCG_ZSWAP,		/* bytes of the zswap pool (v2) */
	HCG_ZSWAPPED,		/* bytes the pool holds uncompressed (v2) */
	HCG_ZSWPIN,		/* pages, cumulative (v2) */
	HCG_ZSWPOUT,		/* pages, cumulative (v2) */
	HCG_REFAULT_ANON,	/* pages, cumulative */
	HCG_REFAULT_FILE,	/* pages, cumulative */
	HCG_PGMAJFAULT,		/* faults, cumulative */
	HCG_COUNT
};

struct host_cgroup_stat {
	char path[HOST_CGROUP_PATH_MAX];	/* under the controller's root: "/" is the root */
	int depth;				/* 0 for the root */
	bool have[HCG_COUNT];
	uint64_t val[HCG_COUNT];
	bool have_psi;				/* memory.pressure (v2; v1 only with psi=1 and cgroup1 files) */
	struct st_psi psi;
};

/* "anon", "swap", ... for a field (column heads, JSON keys). */
const char *host_cgroup_field_name(enum host_cgroup_field f);
/* Whether a field is a cumulative counter (shown as a rate) rather than a level. */
bool host_cgroup_field_counter(enum host_cgroup_field f);

/* One scan of the host's memory cgroups (host_cgroups_scan()). */
struct host_cgroups {
	struct host_cgroup_stat *rows;	/* malloc'd, free() it; rows[0] is the root ("/") */
	size_t n;
	int version;			/* of the memory controller: 1 or 2 */
	bool truncated;			/* more groups were there than max */
};

/*
 * The memory cgroups from the controller's root, breadth first, down to
 * max_depth levels below it, at most max (<= HOST_CGROUPS_MAX; 0: that
 * many) of them, into *out. The root is a row without figures where it has
 * no memory.stat (v1, older v2). A group below it whose memory.stat cannot
 * be read is left out (it may have gone meanwhile). -EOPNOTSUPP (e set)
 * when the host has no memory controller; out then holds no row.
 */
int host_cgroups_scan(const struct host *h, int max_depth, size_t max, struct host_cgroups *out,
		      struct st_err *e);

#endif
