/*
 * facts.h - one read of everything `status`, `doctor`, the advisor's rules
 * and the TUI want to know about the host's swap set-up.
 *
 * Each part records whether it was available; an absent file is not an
 * error. Malformed kernel files are (-EBADMSG, naming file and line).
 */
#ifndef SWAPTUNE_FACTS_H
#define SWAPTUNE_FACTS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/pmu.h"
#include "swaptune/settings.h"

enum readahead_algo {
	RA_VMA,			/* vma_ra_enabled and no rotational swap active */
	RA_CLUSTER,
};

struct host_facts {
	char kernel[128];
	char hostname[128];
	char cpu_model[128];		/* "" when cpuinfo does not say */
	uint64_t mem_total_bytes, mem_available_bytes;
	uint64_t swap_total_bytes, swap_free_bytes, swap_cached_bytes;

	int nswaps;
	struct st_swap swaps[HOST_MAX_SWAPS];

	struct settings_snapshot settings;
	bool have_page_cluster;
	int page_cluster;
	bool have_vma_ra;
	bool vma_ra_enabled;

	enum readahead_algo ra_algo;
	char ra_reason[200];

	/* zswap */
	bool zswap_present;		/* module parameters exist */
	bool zswap_enabled;
	char zswap_compressor[32];
	bool zswap_stats_available;	/* debugfs readable */
	char zswap_stats_reason[160];
	uint64_t zswap_stored_pages;
	uint64_t zswap_pool_bytes;
	bool zswap_meminfo;		/* Zswap:/Zswapped: present */
	uint64_t zswap_meminfo_bytes, zswapped_meminfo_bytes;
	double zswap_ratio;		/* uncompressed / compressed, 0 if unknown */
	struct st_kvtab zswap_stats;	/* every debugfs counter */

	/* /proc/vmstat since boot */
	struct st_kvtab vmstat;
	bool have_swap_ra;
	uint64_t swap_ra, swap_ra_hit;
	double ra_hit_pct;		/* -1 when swap_ra is 0 or unknown */

	struct st_cgroup_info cgroup;
	bool psi_available;
	struct st_psi psi;

	struct pmu_info pmu;
	char compressors[512];
};

/* Fill f (call facts_free() after, also on error). */
int facts_collect(const struct host *h, struct host_facts *f, struct st_err *e);
void facts_free(struct host_facts *f);

/* "3 (8 pages per swap-in at most)", "0 (1 page per swap-in: no readahead)". */
const char *facts_page_cluster_words(const struct host_facts *f, char *buf, size_t len);

/* The status document (share/schema/status.schema.json). */
cJSON *facts_to_json(const struct host_facts *f);

#define STATUS_SCHEMA "swaptune.status/1"

#endif
