/*
 * facts.h - one read of everything `status`, `doctor`, the advisor's rules
 * and the TUI want to know about the host's swap set-up.
 *
 * Each part records whether it was available; an absent optional file is
 * not an error. A kernel file that cannot be read or parsed (malformed,
 * truncated, a FIFO or a symlink out of the sysroot) makes only its own part
 * unknown: facts_collect_all() records it in problems[] (the part, the file
 * under the sysroot, the reason naming file and line) and reads the rest, so
 * `status` and `doctor` show that part as n/a and everything else.
 * facts_collect() is the strict form for commands that act on the facts.
 */
#ifndef SWAPTUNE_FACTS_H
#define SWAPTUNE_FACTS_H

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "swaptune/err.h"
#include "swaptune/fingerprint.h"
#include "swaptune/host.h"
#include "swaptune/pmu.h"
#include "swaptune/settings.h"

/* A part of the facts that could not be read (see facts_collect_all()). */
struct facts_problem {
	char part[32];			/* "page-cluster", "meminfo", "swaps", "vmstat", ... */
	char file[PATH_MAX];		/* the kernel file, under the sysroot */
	struct st_err err;		/* code, exit status and reason (naming the file) */
};

#define FACTS_PROBLEMS_MAX 16

struct host_facts {
	char kernel[128];
	char hostname[128];
	char cpu_model[128];		/* "" when cpuinfo does not say */
	bool have_meminfo;		/* false: see the "meminfo" problem */
	uint64_t mem_total_bytes, mem_available_bytes;
	uint64_t swap_total_bytes, swap_free_bytes, swap_cached_bytes;

	bool have_swaps;		/* false: /proc/swaps unreadable, nswaps 0 */
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
	bool have_zswap_enabled;	/* false: absent, or see the "zswap.enabled" problem */
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
	bool have_vmstat;
	struct st_kvtab vmstat;
	bool have_swap_ra;
	uint64_t swap_ra, swap_ra_hit;
	double ra_hit_pct;		/* -1 when swap_ra is 0 or unknown */

	bool have_cgroup;		/* false: the mounts could not be read */
	struct st_cgroup_info cgroup;
	bool psi_available;
	struct st_psi psi;

	struct pmu_info pmu;
	char compressors[512];

	int n_problems;
	struct facts_problem problems[FACTS_PROBLEMS_MAX];
};

/*
 * Fill f (call facts_free() after, also on error), reading every part it
 * can: a part whose file cannot be read or parsed is left unknown (its
 * have_* flag false) and recorded in f->problems. Fails only when the tree
 * has no kernel release (not a host tree) or memory runs out.
 */
int facts_collect_all(const struct host *h, struct host_facts *f, struct st_err *e);
/* The strict form: as facts_collect_all(), then the first problem as the error. */
int facts_collect(const struct host *h, struct host_facts *f, struct st_err *e);
void facts_free(struct host_facts *f);
/*
 * One line per problem on err ("swaptune: warning: REASON; shown as n/a"),
 * control bytes escaped: for the commands that go on without those parts.
 */
void facts_warn(FILE *err, const struct host_facts *f);
/* The problem recorded for part, or NULL when it was read. */
const struct facts_problem *facts_problem(const struct host_facts *f, const char *part);

/* "3 (8 pages per swap-in at most)", "0 (1 page per swap-in: no readahead)". */
const char *facts_page_cluster_words(const struct host_facts *f, char *buf, size_t len);

/* The status document (share/schema/status.schema.json). */
cJSON *facts_to_json(const struct host_facts *f);
/* Add root's "unreadable" array: {part, file, reason} per problem (status, doctor). */
void facts_problems_json(cJSON *root, const struct host_facts *f);

#define STATUS_SCHEMA "swaptune.status/1"

#endif
