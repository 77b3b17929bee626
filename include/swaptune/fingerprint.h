/*
 * fingerprint.h - the kernel's fingerprint: the facts of the running kernel
 * that can change which swap-readahead setting is best, read once through
 * the host layer (so under --sysroot too) and stored with every run, since
 * a verdict is evidence for the kernel it ran on.
 *
 * Every part is known or unknown: a file that is absent or unreadable makes
 * its part unknown (with the reason in words), never an error, so a
 * fingerprint can always be taken. Read by fingerprint_read(); compared by
 * fingerprint_diff(); written and read back (store, export, import) as the
 * JSON object of fingerprint_to_json() / fingerprint_from_json(), which
 * checks every field as strictly as user input.
 *
 * The kernel facts behind the parts (readahead, large-folio swap-in and
 * why "zswap ever enabled since boot" is one, MGLRU, the zswap shrinker,
 * memory.zswap.writeback): docs/design.md, "The kernel's fingerprint".
 */
#ifndef SWAPTUNE_FINGERPRINT_H
#define SWAPTUNE_FINGERPRINT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "swaptune/err.h"
#include "swaptune/host.h"

/* A fact that may not be known. */
enum fp_tri {
	FP_UNKNOWN = -1,
	FP_NO = 0,
	FP_YES = 1,
};

/* The swap-in readahead algorithm the kernel uses (shared with facts.h). */
enum readahead_algo {
	RA_VMA,			/* vma_ra_enabled and no rotational swap active */
	RA_CLUSTER,
	RA_UNKNOWN,		/* a file that decides it could not be read */
};

/*
 * The inputs of the readahead decision: vma_ra is FP_YES/FP_NO, FP_UNKNOWN
 * when the file could not be read; no_switch when the kernel has no
 * vma_ra_enabled file at all (before 4.14: cluster readahead only); swaps
 * NULL when the list of swap devices could not be read. The algorithm is
 * returned and why[] says why in words. facts.c and fingerprint_read() both
 * decide with it.
 */
enum readahead_algo fingerprint_readahead(int vma_ra, bool no_switch, const struct st_swap *swaps,
					  int nswaps, char *why, size_t len);

#define FP_RELEASE_MAX 128
#define FP_WHY_MAX 240
#define FP_MTHP_MAX 16

/* One mTHP size: transparent_hugepage/hugepages-<size_kb>kB/enabled. */
struct fp_mthp {
	unsigned size_kb;
	char enabled[12];		/* "always", "inherit", "madvise", "never" */
};

struct kernel_fingerprint {
	char release[FP_RELEASE_MAX];	/* "" unknown */

	enum cgroup_mode cgroup;	/* CGROUP_NONE also when unknown: see have_cgroup */
	bool have_cgroup;
	int memcg_version;		/* 1, 2, 0 = no memory controller (or unknown) */

	enum readahead_algo readahead;
	char readahead_why[FP_WHY_MAX];

	int zswap_ever;			/* enum fp_tri: zswap enabled at any time since boot */
	char zswap_ever_why[FP_WHY_MAX];	/* the evidence */

	char thp_enabled[12];		/* top-level THP mode, "" unknown */
	unsigned pmd_kb;		/* hpage_pmd_size in KiB, 0 unknown */
	int n_mthp;
	struct fp_mthp mthp[FP_MTHP_MAX];	/* per-size settings, ascending */
	int mthp_anon;			/* enum fp_tri: a size below PMD usable for anon faults */
	int large_folio_swapin;		/* enum fp_tri: possible on this kernel now */
	char large_folio_swapin_why[FP_WHY_MAX];

	int mglru;			/* enum fp_tri: lru_gen/enabled has its base bit */
	char mglru_value[12];		/* "0x0007" as read, "not built" with no lru_gen, "" unknown */
	int zswap_shrinker;		/* enum fp_tri: zswap shrinker_enabled */
	int zswap_writeback;		/* enum fp_tri, v2: memory.zswap.writeback exists */
};

/* What the layers above the host know and the kernel files do not say. */
struct fp_hints {
	/*
	 * enum fp_tri: whether swaptune's own journal shows that it enabled
	 * zswap during this boot (a journal row of zswap.enabled with this
	 * boot_id); FP_UNKNOWN when not looked at (no store).
	 */
	int swaptune_enabled_zswap;
};

/* Every part unknown (what a fingerprint that was never taken holds). */
void fingerprint_unknown(struct kernel_fingerprint *fp);

/*
 * Read the fingerprint of the kernel under h. hints may be NULL. Never
 * fails: every part it cannot read is FP_UNKNOWN / "" with the reason in
 * its why[] where it has one.
 */
void fingerprint_read(const struct host *h, const struct fp_hints *hints,
		      struct kernel_fingerprint *fp);

/*
 * Whether enabling zswap now would take something away until reboot:
 * large-folio swap-in is possible (an mTHP size is enabled for anon
 * memory on a kernel that has it) and zswap has not been enabled since
 * boot. A probe plan that enables zswap should say so.
 */
bool fingerprint_zswap_enable_hazard(const struct kernel_fingerprint *fp);

/* The parts of a fingerprint that can change advice (fingerprint_diff()). */
enum fp_diff {
	FP_DIFF_RELEASE = 1 << 0,	/* kernel release */
	FP_DIFF_CGROUP = 1 << 1,	/* memory controller's cgroup version (v1/v2) */
	FP_DIFF_READAHEAD = 1 << 2,	/* VMA or cluster readahead */
	FP_DIFF_LARGE_FOLIO = 1 << 3,	/* large-folio swap-in possible or not (zswap ever x mTHP) */
	FP_DIFF_MGLRU = 1 << 4,		/* MGLRU on or off */
};

/*
 * How then (the fingerprint a run was decided on) and now differ in ways
 * that can change advice: a mask of enum fp_diff, 0 when they agree. A
 * part unknown on either side is not counted as a difference. words (may
 * be NULL) gets them in one line, "kernel 6.18.44 -> 6.1.0-28-amd64,
 * cgroup v1 -> v2, readahead VMA -> cluster", "" when none.
 */
unsigned fingerprint_diff(const struct kernel_fingerprint *then, const struct kernel_fingerprint *now,
			  char *words, size_t len);

/* "6.1.0-28-amd64, cgroup v2, cluster readahead, zswap ever: no, mTHP swap-in: no, MGLRU: off" */
const char *fingerprint_summary(const struct kernel_fingerprint *fp, char *buf, size_t len);

/* Words: "v1", "v2", "hybrid", "none"; "vma", "cluster", "unknown"; "yes", "no", "unknown". */
const char *fingerprint_readahead_name(enum readahead_algo a);
const char *fingerprint_tri_name(int t);

/* The JSON object (share/schema/fingerprint.schema.json's "fingerprint"). */
cJSON *fingerprint_to_json(const struct kernel_fingerprint *fp);
/*
 * Read one back (store, import): every field must be there with its type,
 * enum words among the known ones, strings short enough and printable,
 * sizes in range. -EBADMSG (e names the field) otherwise; fp is then all unknown.
 */
int fingerprint_from_json(const cJSON *o, struct kernel_fingerprint *fp, struct st_err *e);

#endif
