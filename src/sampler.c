/*
 * sampler.c - the sampling engine: keeps the kernel files it needs open
 * through the host layer's kept-open readers (host-read.c), re-reads them
 * each tick, turns counters into per-second rates and derives readahead,
 * zswap and IPC figures (see sampler.h).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/sampler.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define SRC_BUF 65536
#define RETRY_NS 1000000000ULL	/* look for a missing file again after 1 s */
#define WHY_LEN 200

static const char *const group_names[SG_COUNT] = {
	"vmstat", "zswap", "psi", "meminfo", "cgroup", "cpu", "derived",
};

/*
 * Per-tick values. Not the probe's metric table (src/metric.c) though some
 * rows read the same kernel counters: these are rates per second, percents
 * of a tick and levels in bytes under the JSON-lines keys and Prometheus
 * names, which are published; that table holds one trial's deltas (pages,
 * us, ns) under the keys stored with each trial, with a direction and the
 * advisor's costs. See the comment at metric_defs for the full reasoning.
 */
#define M(id, g, key, prom, integral, unit, help) { id, g, key, prom, help, integral, unit }
static const struct sample_metric_def metrics[SM_COUNT] = {
	M(SM_PSWPIN, SG_VMSTAT, "pswpin_pages_per_s", NULL, 0, SPU_SAME,
	  "pages swapped in from a block device per second (vmstat pswpin)"),
	M(SM_PSWPOUT, SG_VMSTAT, "pswpout_pages_per_s", NULL, 0, SPU_SAME,
	  "pages swapped out to a block device per second (vmstat pswpout)"),
	M(SM_ZSWPIN, SG_VMSTAT, "zswpin_pages_per_s", NULL, 0, SPU_SAME,
	  "pages loaded from zswap per second (vmstat zswpin)"),
	M(SM_ZSWPOUT, SG_VMSTAT, "zswpout_pages_per_s", NULL, 0, SPU_SAME,
	  "pages stored into zswap per second (vmstat zswpout)"),
	M(SM_ZSWPWB, SG_VMSTAT, "zswpwb_pages_per_s", NULL, 0, SPU_SAME,
	  "pages written back from zswap to the swap device per second (vmstat zswpwb)"),
	M(SM_SWAP_RA, SG_VMSTAT, "swap_ra_pages_per_s", NULL, 0, SPU_SAME,
	  "swap readahead pages per second (vmstat swap_ra)"),
	M(SM_SWAP_RA_HIT, SG_VMSTAT, "swap_ra_hit_pages_per_s", NULL, 0, SPU_SAME,
	  "swap readahead pages used per second (vmstat swap_ra_hit)"),
	M(SM_PGMAJFAULT, SG_VMSTAT, "pgmajfault_per_s", NULL, 0, SPU_SAME,
	  "major page faults per second (vmstat pgmajfault)"),
	M(SM_REFAULT_ANON, SG_VMSTAT, "refault_anon_pages_per_s", NULL, 0, SPU_SAME,
	  "anon workingset refaults per second (vmstat workingset_refault_anon)"),
	M(SM_REFAULT_FILE, SG_VMSTAT, "refault_file_pages_per_s", NULL, 0, SPU_SAME,
	  "file workingset refaults per second (vmstat workingset_refault_file)"),
	M(SM_PGSCAN, SG_VMSTAT, "pgscan_pages_per_s", NULL, 0, SPU_SAME,
	  "pages scanned by reclaim per second (vmstat pgscan_anon + pgscan_file)"),
	M(SM_PGSTEAL, SG_VMSTAT, "pgsteal_pages_per_s", NULL, 0, SPU_SAME,
	  "pages reclaimed per second (vmstat pgsteal_anon + pgsteal_file)"),
	M(SM_ZP_STORED_PAGES, SG_ZSWAP, "stored_pages", "swaptune_zswap_stored_bytes", 1, SPU_PAGES_TO_BYTES,
	  "uncompressed size of the pages held in the zswap pool (debugfs stored_pages x page size)"),
	M(SM_ZP_POOL_BYTES, SG_ZSWAP, "pool_bytes", "swaptune_zswap_pool_bytes", 1, SPU_SAME,
	  "compressed size of the zswap pool in bytes (debugfs pool_total_size)"),
	M(SM_ZP_INCOMPRESSIBLE_PAGES, SG_ZSWAP, "incompressible_pages", "swaptune_zswap_incompressible_bytes", 1, SPU_PAGES_TO_BYTES,
	  "size of the pages stored uncompressed because they did not compress (debugfs stored_incompressible_pages x page size)"),
	M(SM_ZP_WRITTEN_BACK, SG_ZSWAP, "written_back_pages_per_s", NULL, 0, SPU_SAME,
	  "pages written back from the zswap pool per second (debugfs written_back_pages)"),
	M(SM_ZP_REJECTS, SG_ZSWAP, "rejects_per_s", NULL, 0, SPU_SAME,
	  "stores zswap rejected per second (debugfs reject_*)"),
	M(SM_ZP_POOL_LIMIT_HITS, SG_ZSWAP, "pool_limit_hits_per_s", NULL, 0, SPU_SAME,
	  "times per second the zswap pool hit its size limit (debugfs pool_limit_hit)"),
	M(SM_PSI_SOME_PCT, SG_PSI, "some_pct", NULL, 0, SPU_SAME,
	  "percent of the tick some task stalled on memory (from the PSI total)"),
	M(SM_PSI_FULL_PCT, SG_PSI, "full_pct", NULL, 0, SPU_SAME,
	  "percent of the tick all non-idle tasks stalled on memory (from the PSI total)"),
	M(SM_PSI_SOME_AVG10, SG_PSI, "some_avg10_pct", "swaptune_memory_pressure_some_avg10_ratio", 0, SPU_PCT_TO_RATIO,
	  "share of time some task stalled on memory, kernel 10 s average (PSI avg10 / 100)"),
	M(SM_PSI_FULL_AVG10, SG_PSI, "full_avg10_pct", "swaptune_memory_pressure_full_avg10_ratio", 0, SPU_PCT_TO_RATIO,
	  "share of time all non-idle tasks stalled on memory, kernel 10 s average (PSI avg10 / 100)"),
	M(SM_SWAP_USED_BYTES, SG_MEMINFO, "swap_used_bytes", "swaptune_swap_used_bytes", 1, SPU_SAME,
	  "swap in use in bytes (meminfo SwapTotal - SwapFree)"),
	M(SM_SWAP_CACHED_BYTES, SG_MEMINFO, "swap_cached_bytes", "swaptune_swap_cached_bytes", 1, SPU_SAME,
	  "swap cache in bytes (meminfo SwapCached)"),
	M(SM_ZSWAP_BYTES, SG_MEMINFO, "zswap_bytes", "swaptune_zswap_compressed_bytes", 1, SPU_SAME,
	  "memory used by the zswap pool in bytes (meminfo Zswap)"),
	M(SM_ZSWAPPED_BYTES, SG_MEMINFO, "zswapped_bytes", "swaptune_zswap_uncompressed_bytes", 1, SPU_SAME,
	  "uncompressed size of the pages in zswap in bytes (meminfo Zswapped)"),
	M(SM_CG_ANON_BYTES, SG_CGROUP, "anon_bytes", "swaptune_cgroup_anon_bytes", 1, SPU_SAME,
	  "anonymous memory of the cgroup in bytes (memory.stat anon / total_rss)"),
	M(SM_CG_FILE_BYTES, SG_CGROUP, "file_bytes", "swaptune_cgroup_file_bytes", 1, SPU_SAME,
	  "page cache of the cgroup in bytes (memory.stat file / total_cache)"),
	M(SM_CG_SWAP_BYTES, SG_CGROUP, "swap_bytes", "swaptune_cgroup_swap_bytes", 1, SPU_SAME,
	  "swap used by the cgroup in bytes (cgroup v1 memory.stat total_swap)"),
	M(SM_CG_SWAPCACHED_BYTES, SG_CGROUP, "swapcached_bytes", "swaptune_cgroup_swapcached_bytes", 1, SPU_SAME,
	  "swap cache charged to the cgroup in bytes (memory.stat swapcached)"),
	M(SM_CG_ZSWAP_BYTES, SG_CGROUP, "zswap_bytes", "swaptune_cgroup_zswap_bytes", 1, SPU_SAME,
	  "zswap pool memory of the cgroup in bytes (cgroup v2 memory.stat zswap)"),
	M(SM_CG_ZSWAPPED_BYTES, SG_CGROUP, "zswapped_bytes", "swaptune_cgroup_zswapped_bytes", 1, SPU_SAME,
	  "uncompressed size of the cgroup's pages in zswap (cgroup v2 memory.stat zswapped)"),
	M(SM_CG_PGMAJFAULT, SG_CGROUP, "pgmajfault_per_s", NULL, 0, SPU_SAME,
	  "major faults of the cgroup per second (memory.stat pgmajfault)"),
	M(SM_CG_ZSWPIN, SG_CGROUP, "zswpin_pages_per_s", NULL, 0, SPU_SAME,
	  "pages the cgroup loaded from zswap per second (cgroup v2 memory.stat zswpin)"),
	M(SM_CG_ZSWPOUT, SG_CGROUP, "zswpout_pages_per_s", NULL, 0, SPU_SAME,
	  "pages the cgroup stored into zswap per second (cgroup v2 memory.stat zswpout)"),
	M(SM_CG_ZSWPWB, SG_CGROUP, "zswpwb_pages_per_s", NULL, 0, SPU_SAME,
	  "pages of the cgroup written back from zswap per second (cgroup v2 memory.stat zswpwb)"),
	M(SM_CG_REFAULT_ANON, SG_CGROUP, "refault_anon_pages_per_s", NULL, 0, SPU_SAME,
	  "anon workingset refaults of the cgroup per second (memory.stat workingset_refault_anon)"),
	M(SM_CG_PSI_SOME_PCT, SG_CGROUP, "psi_some_pct", NULL, 0, SPU_SAME,
	  "percent of the tick some task of the cgroup stalled on memory (memory.pressure total)"),
	M(SM_CG_PSI_FULL_PCT, SG_CGROUP, "psi_full_pct", NULL, 0, SPU_SAME,
	  "percent of the tick all tasks of the cgroup stalled on memory (memory.pressure total)"),
	M(SM_CPU_CYCLES, SG_CPU, "cycles_per_s", NULL, 0, SPU_SAME,
	  "CPU cycles per second (hardware counter)"),
	M(SM_CPU_INSTRUCTIONS, SG_CPU, "instructions_per_s", NULL, 0, SPU_SAME,
	  "instructions retired per second (hardware counter)"),
	M(SM_CPU_DTLB_MISSES, SG_CPU, "dtlb_load_misses_per_s", NULL, 0, SPU_SAME,
	  "dTLB load misses per second (hardware counter)"),
	M(SM_CPU_BUSY_PCT, SG_CPU, "busy_pct", NULL, 0, SPU_SAME,
	  "CPU time of the target as percent of one CPU (task-clock software event)"),
	M(SM_CPU_MAJOR_FAULTS, SG_CPU, "major_faults_per_s", NULL, 0, SPU_SAME,
	  "major faults per second (software event)"),
	M(SM_CPU_MINOR_FAULTS, SG_CPU, "minor_faults_per_s", NULL, 0, SPU_SAME,
	  "minor faults per second (software event)"),
	M(SM_CPU_CONTEXT_SWITCHES, SG_CPU, "context_switches_per_s", NULL, 0, SPU_SAME,
	  "context switches per second (software event)"),
	M(SM_RA_HIT_PCT, SG_DERIVED, "ra_hit_pct", "swaptune_readahead_hit_ratio", 0, SPU_PCT_TO_RATIO,
	  "share of the pages read ahead in the last tick that were used (swap_ra_hit / swap_ra, at most 1)"),
	M(SM_RA_WASTED, SG_DERIVED, "ra_wasted_pages_per_s", NULL, 0, SPU_SAME,
	  "readahead pages not used per second (swap_ra - swap_ra_hit, not below 0)"),
	M(SM_ZSWAP_RATIO, SG_DERIVED, "zswap_compression_ratio", "swaptune_zswap_compression_ratio", 0, SPU_SAME,
	  "uncompressed / compressed size of the zswap pool (debugfs, else meminfo)"),
	M(SM_IPC, SG_DERIVED, "ipc", NULL, 0, SPU_SAME,
	  "instructions per cycle (hardware counters)"),
};
#undef M

/* kernel counter -> JSON "counters" key and Prometheus counter */
#define C(id, g, key, prom, scale, help) [id] = { id, g, key, prom, scale, help }
static const struct sample_counter_def counters[SC_COUNT] = {
	C(SC_PSWPIN, SG_VMSTAT, "pswpin_pages", "swaptune_pswpin_pages_total", 1,
	  "pages swapped in from a block device (vmstat pswpin)"),
	C(SC_PSWPOUT, SG_VMSTAT, "pswpout_pages", "swaptune_pswpout_pages_total", 1,
	  "pages swapped out to a block device (vmstat pswpout)"),
	C(SC_ZSWPIN, SG_VMSTAT, "zswpin_pages", "swaptune_zswpin_pages_total", 1,
	  "pages loaded from zswap (vmstat zswpin)"),
	C(SC_ZSWPOUT, SG_VMSTAT, "zswpout_pages", "swaptune_zswpout_pages_total", 1,
	  "pages stored into zswap (vmstat zswpout)"),
	C(SC_ZSWPWB, SG_VMSTAT, "zswpwb_pages", "swaptune_zswpwb_pages_total", 1,
	  "pages written back from zswap to the swap device (vmstat zswpwb)"),
	C(SC_SWAP_RA, SG_VMSTAT, "swap_ra_pages", "swaptune_swap_ra_pages_total", 1,
	  "pages read ahead on swap-in (vmstat swap_ra)"),
	C(SC_SWAP_RA_HIT, SG_VMSTAT, "swap_ra_hit_pages", "swaptune_swap_ra_hit_pages_total", 1,
	  "read-ahead swap pages that were used (vmstat swap_ra_hit)"),
	C(SC_PGMAJFAULT, SG_VMSTAT, "pgmajfault", "swaptune_pgmajfault_total", 1,
	  "major page faults (vmstat pgmajfault)"),
	C(SC_REFAULT_ANON, SG_VMSTAT, "refault_anon_pages", "swaptune_workingset_refault_anon_pages_total", 1,
	  "anon workingset refaults (vmstat workingset_refault_anon)"),
	C(SC_REFAULT_FILE, SG_VMSTAT, "refault_file_pages", "swaptune_workingset_refault_file_pages_total", 1,
	  "file workingset refaults (vmstat workingset_refault_file)"),
	C(SC_PGSCAN, SG_VMSTAT, "pgscan_pages", "swaptune_pgscan_pages_total", 1,
	  "pages scanned by reclaim (vmstat pgscan_anon + pgscan_file)"),
	C(SC_PGSTEAL, SG_VMSTAT, "pgsteal_pages", "swaptune_pgsteal_pages_total", 1,
	  "pages reclaimed (vmstat pgsteal_anon + pgsteal_file)"),
	C(SC_ZP_WB, SG_ZSWAP, "zswap_written_back_pages", "swaptune_zswap_written_back_pages_total", 1,
	  "pages written back from the zswap pool (debugfs written_back_pages)"),
	C(SC_ZP_REJECTS, SG_ZSWAP, "zswap_rejects", "swaptune_zswap_rejects_total", 1,
	  "stores zswap rejected (debugfs reject_*)"),
	C(SC_ZP_LIMIT, SG_ZSWAP, "zswap_pool_limit_hits", "swaptune_zswap_pool_limit_hits_total", 1,
	  "times the zswap pool hit its size limit (debugfs pool_limit_hit)"),
	C(SC_PSI_SOME, SG_PSI, "psi_some_us", "swaptune_memory_pressure_some_seconds_total", 1e-6,
	  "time some task stalled on memory (PSI memory some total)"),
	C(SC_PSI_FULL, SG_PSI, "psi_full_us", "swaptune_memory_pressure_full_seconds_total", 1e-6,
	  "time all non-idle tasks stalled on memory (PSI memory full total)"),
	C(SC_CG_PGMAJ, SG_CGROUP, "cgroup_pgmajfault", "swaptune_cgroup_pgmajfault_total", 1,
	  "major faults of the cgroup (memory.stat pgmajfault)"),
	C(SC_CG_ZSWPIN, SG_CGROUP, "cgroup_zswpin_pages", "swaptune_cgroup_zswpin_pages_total", 1,
	  "pages the cgroup loaded from zswap (cgroup v2 memory.stat zswpin)"),
	C(SC_CG_ZSWPOUT, SG_CGROUP, "cgroup_zswpout_pages", "swaptune_cgroup_zswpout_pages_total", 1,
	  "pages the cgroup stored into zswap (cgroup v2 memory.stat zswpout)"),
	C(SC_CG_ZSWPWB, SG_CGROUP, "cgroup_zswpwb_pages", "swaptune_cgroup_zswpwb_pages_total", 1,
	  "pages of the cgroup written back from zswap (cgroup v2 memory.stat zswpwb)"),
	C(SC_CG_REFAULT_ANON, SG_CGROUP, "cgroup_refault_anon_pages",
	  "swaptune_cgroup_workingset_refault_anon_pages_total", 1,
	  "anon workingset refaults of the cgroup (memory.stat workingset_refault_anon)"),
	C(SC_CG_PSI_SOME, SG_CGROUP, "cgroup_psi_some_us", "swaptune_cgroup_memory_pressure_some_seconds_total",
	  1e-6, "time some task of the cgroup stalled on memory (memory.pressure some total)"),
	C(SC_CG_PSI_FULL, SG_CGROUP, "cgroup_psi_full_us", "swaptune_cgroup_memory_pressure_full_seconds_total",
	  1e-6, "time all tasks of the cgroup stalled on memory (memory.pressure full total)"),
	C(SC_CPU_CYCLES, SG_CPU, "cpu_cycles", "swaptune_cpu_cycles_total", 1,
	  "CPU cycles since sampling started (hardware counter)"),
	C(SC_CPU_INSN, SG_CPU, "cpu_instructions", "swaptune_cpu_instructions_total", 1,
	  "instructions retired since sampling started (hardware counter)"),
	C(SC_CPU_DTLB, SG_CPU, "cpu_dtlb_load_misses", "swaptune_cpu_dtlb_load_misses_total", 1,
	  "dTLB load misses since sampling started (hardware counter)"),
	C(SC_CPU_TASK_CLOCK, SG_CPU, "cpu_task_clock_ns", "swaptune_cpu_task_clock_seconds_total", 1e-9,
	  "CPU time of the target since sampling started (task-clock software event)"),
	C(SC_CPU_MAJ, SG_CPU, "cpu_major_faults", "swaptune_cpu_major_faults_total", 1,
	  "major faults since sampling started (software event)"),
	C(SC_CPU_MIN, SG_CPU, "cpu_minor_faults", "swaptune_cpu_minor_faults_total", 1,
	  "minor faults since sampling started (software event)"),
	C(SC_CPU_CSW, SG_CPU, "cpu_context_switches", "swaptune_cpu_context_switches_total", 1,
	  "context switches since sampling started (software event)"),
};
#undef C

/* counter -> metric = rate x scale (PSI: us/s -> percent, task-clock: ns/s -> percent) */
static const struct {
	enum sample_counter c;
	enum sample_metric m;
	double scale;
} rate_map[] = {
	{ SC_PSWPIN, SM_PSWPIN, 1 }, { SC_PSWPOUT, SM_PSWPOUT, 1 },
	{ SC_ZSWPIN, SM_ZSWPIN, 1 }, { SC_ZSWPOUT, SM_ZSWPOUT, 1 },
	{ SC_ZSWPWB, SM_ZSWPWB, 1 }, { SC_SWAP_RA, SM_SWAP_RA, 1 },
	{ SC_SWAP_RA_HIT, SM_SWAP_RA_HIT, 1 }, { SC_PGMAJFAULT, SM_PGMAJFAULT, 1 },
	{ SC_REFAULT_ANON, SM_REFAULT_ANON, 1 }, { SC_REFAULT_FILE, SM_REFAULT_FILE, 1 },
	{ SC_PGSCAN, SM_PGSCAN, 1 }, { SC_PGSTEAL, SM_PGSTEAL, 1 },
	{ SC_ZP_WB, SM_ZP_WRITTEN_BACK, 1 }, { SC_ZP_REJECTS, SM_ZP_REJECTS, 1 },
	{ SC_ZP_LIMIT, SM_ZP_POOL_LIMIT_HITS, 1 },
	{ SC_PSI_SOME, SM_PSI_SOME_PCT, 1e-4 }, { SC_PSI_FULL, SM_PSI_FULL_PCT, 1e-4 },
	{ SC_CG_PGMAJ, SM_CG_PGMAJFAULT, 1 }, { SC_CG_ZSWPIN, SM_CG_ZSWPIN, 1 },
	{ SC_CG_ZSWPOUT, SM_CG_ZSWPOUT, 1 }, { SC_CG_ZSWPWB, SM_CG_ZSWPWB, 1 },
	{ SC_CG_REFAULT_ANON, SM_CG_REFAULT_ANON, 1 },
	{ SC_CG_PSI_SOME, SM_CG_PSI_SOME_PCT, 1e-4 }, { SC_CG_PSI_FULL, SM_CG_PSI_FULL_PCT, 1e-4 },
	{ SC_CPU_CYCLES, SM_CPU_CYCLES, 1 }, { SC_CPU_INSN, SM_CPU_INSTRUCTIONS, 1 },
	{ SC_CPU_DTLB, SM_CPU_DTLB_MISSES, 1 }, { SC_CPU_TASK_CLOCK, SM_CPU_BUSY_PCT, 1e-7 },
	{ SC_CPU_MAJ, SM_CPU_MAJOR_FAULTS, 1 }, { SC_CPU_MIN, SM_CPU_MINOR_FAULTS, 1 },
	{ SC_CPU_CSW, SM_CPU_CONTEXT_SWITCHES, 1 },
};

/* a PSI file kept open, with this tick's parse */
struct psifile {
	struct host_file file;
	bool ok;
	struct st_psi psi;
};

/* zswap debugfs counters: opened per tick (see sampler.h) */
static const char *const zswap_files[] = {
	"stored_pages", "pool_total_size", "stored_incompressible_pages",
	"written_back_pages", "pool_limit_hit", "reject_reclaim_fail",
	"reject_alloc_fail", "reject_kmemcache_fail", "reject_compress_fail",
	"reject_compress_poor",
};
#define ZS_N NELEM(zswap_files)
#define ZS_FIRST_REJECT 5

struct sampler {
	const struct host *h;
	struct sampler_opts o;
	long page_size;

	struct host_kvfile vmstat, meminfo, cgstat;
	struct psifile psi, cgpsi;

	bool zs_on;
	uint64_t zs_val[ZS_N];
	bool zs_have[ZS_N];
	bool zs_ok;
	uint64_t zs_retry_ns;

	bool cg_on, cg_v2;
	char cg_path[PATH_MAX];

	struct pmu_counters *pmu;
	int pmu_idx[SC_COUNT];		/* counter -> pmu event index, -1 */
	const char *cpu_source, *cpu_target;
	char cpu_note[512];

	uint64_t cur[SC_COUNT], prev[SC_COUNT];
	bool cur_ok[SC_COUNT], prev_ok[SC_COUNT];

	bool started;
	uint64_t seq, first_ns, prev_ns, now_ns, wall_ns;
	double val[SM_COUNT];
	bool ok[SM_COUNT];
	double sum[SM_COUNT];
	uint64_t nsum[SM_COUNT];
	char why[SG_COUNT][WHY_LEN];
	char members[1024];	/* sampler_set_json_members() */

	char buf[SRC_BUF];
};

const struct sample_metric_def *sampler_metric(enum sample_metric m)
{
	return (unsigned)m < SM_COUNT ? &metrics[m] : NULL;
}

const struct sample_counter_def *sampler_counter_def(enum sample_counter c)
{
	return (unsigned)c < SC_COUNT ? &counters[c] : NULL;
}

bool sampler_counter(const struct sampler *s, enum sample_counter c, uint64_t *v)
{
	if ((unsigned)c >= SC_COUNT || !s->cur_ok[c] ||
	    (counters[c].group == SG_CGROUP && !s->cg_on))
		return false;
	if (v)
		*v = s->cur[c];
	return true;
}

long sampler_page_size(const struct sampler *s)
{
	return s->page_size;
}

const char *sampler_group_name(enum sample_group g)
{
	return (unsigned)g < SG_COUNT ? group_names[g] : "?";
}

/* ---- reading (through the host layer's kept-open readers) ---- */

static void kf_read(struct sampler *s, struct host_kvfile *f)
{
	host_kvfile_read(s->h, f, s->now_ns, s->buf, SRC_BUF);
}

/* value of key k if present this tick */
static bool kf_get(const struct host_kvfile *f, int k, uint64_t *v)
{
	return host_kvfile_get(f, k, v);
}

static void psi_read(struct sampler *s, struct psifile *f)
{
	f->ok = host_psifile_read(s->h, &f->file, s->now_ns, s->buf, SRC_BUF, &f->psi) == 0;
}

static void zswap_read(struct sampler *s)
{
	char *why = s->why[SG_ZSWAP];

	s->zs_ok = false;
	memset(s->zs_have, 0, sizeof(s->zs_have));
	if (s->now_ns < s->zs_retry_ns)
		return;
	for (size_t i = 0; i < ZS_N; i++) {
		int r = host_read_zswap_counter(s->h, zswap_files[i], &s->zs_val[i], NULL);

		if (i == 0 && (r == -ENOENT || r == -EACCES || r == -EPERM)) {
			/* no stored_pages: debugfs not mounted, not readable, or no zswap */
			snprintf(why, WHY_LEN, "%s",
				 r != -ENOENT ?
				 "zswap debugfs is readable by root only (meminfo Zswap/Zswapped still sampled)" :
				 "zswap debugfs is not mounted (mount -t debugfs none /" HOST_DEBUGFS
				 "; meminfo Zswap/Zswapped still sampled)");
			s->zs_retry_ns = s->now_ns + RETRY_NS;
			return;
		}
		s->zs_have[i] = r == 0;
	}
	s->zs_ok = s->zs_have[0];
	if (s->zs_ok)
		why[0] = '\0';
}

/* ---- opening ---- */

/* keys per kfile, in the order of these enums */
enum { V_PSWPIN, V_PSWPOUT, V_ZSWPIN, V_ZSWPOUT, V_ZSWPWB, V_SWAP_RA, V_SWAP_RA_HIT,
       V_PGMAJFAULT, V_REFAULT_ANON, V_REFAULT_FILE, V_PGSCAN_ANON, V_PGSCAN_FILE,
       V_PGSTEAL_ANON, V_PGSTEAL_FILE, V_PGSCAN_KSWAPD, V_PGSCAN_DIRECT, V_N };
static const char *const vmstat_keys[] = {
	"pswpin", "pswpout", "zswpin", "zswpout", "zswpwb", "swap_ra", "swap_ra_hit",
	"pgmajfault", "workingset_refault_anon", "workingset_refault_file",
	"pgscan_anon", "pgscan_file", "pgsteal_anon", "pgsteal_file",
	"pgscan_kswapd", "pgscan_direct",
};

enum { MI_SWAPTOTAL, MI_SWAPFREE, MI_SWAPCACHED, MI_ZSWAP, MI_ZSWAPPED, MI_N };
static const char *const meminfo_keys[] = {
	"SwapTotal", "SwapFree", "SwapCached", "Zswap", "Zswapped",
};

enum { CG_ANON, CG_FILE, CG_SWAP, CG_SWAPCACHED, CG_ZSWAP, CG_ZSWAPPED, CG_PGMAJ,
       CG_ZSWPIN, CG_ZSWPOUT, CG_ZSWPWB, CG_REFAULT_ANON, CG_N };
/* v1 keys are the hierarchical total_* ones, to match v2's hierarchical stats */
static const char *const cg_keys_v1[] = {
	"total_rss", "total_cache", "total_swap", "total_swapcached", NULL, NULL,
	"total_pgmajfault", NULL, NULL, NULL, "total_workingset_refault_anon",
};
static const char *const cg_keys_v2[] = {
	"anon", "file", NULL, "swapcached", "zswap", "zswapped", "pgmajfault",
	"zswpin", "zswpout", "zswpwb", "workingset_refault_anon",
};

static bool path_ok(const char *p)
{
	if (!*p)
		return true;
	for (const char *q = p; *q; q++)
		if (q[0] == '.' && q[1] == '.' && (q == p || q[-1] == '/') && (q[2] == '/' || !q[2]))
			return false;
	return true;
}

static void map_pmu(struct sampler *s)
{
	static const struct { const char *name; enum sample_counter c; } names[] = {
		{ "cycles", SC_CPU_CYCLES }, { "instructions", SC_CPU_INSN },
		{ "dtlb_load_misses", SC_CPU_DTLB }, { "task_clock_ns", SC_CPU_TASK_CLOCK },
		{ "major_faults", SC_CPU_MAJ }, { "minor_faults", SC_CPU_MIN },
		{ "context_switches", SC_CPU_CSW },
	};

	for (size_t i = 0; i < NELEM(names); i++)
		for (int k = 0; k < s->pmu->nevents; k++)
			if (!strcmp(s->pmu->ev[k].name, names[i].name))
				s->pmu_idx[names[i].c] = k;
}

static void open_cpu(struct sampler *s, const struct st_cgroup_info *ci)
{
	char fallback[300] = "", root[PATH_MAX], rel[PATH_MAX * 2];
	enum pmu_target t = PMU_TARGET_SYSTEM;
	struct st_err e = {0};
	int id = -1, cgfd = -1;

	s->cpu_source = "none";
	s->cpu_target = "none";
	if (!s->o.cpu_counters) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "CPU counters not asked for");
		return;
	}
	if (!s->h->live) {
		snprintf(s->cpu_note, sizeof(s->cpu_note),
			 "CPU counters are counted on the live host only (--sysroot given)");
		return;
	}
	if (s->o.pid > 0) {
		t = PMU_TARGET_PID;
		id = s->o.pid;
	} else if (s->cg_on) {
		if (ci->memory_v2) {
			snprintf(root, sizeof(root), "%s", ci->unified_root);
		} else {
			snprintf(root, sizeof(root), "%s", ci->perf_event_v1_root);
			if (!root[0])
				snprintf(fallback, sizeof(fallback),
					 "the perf_event controller is not mounted (cgroup v1), so the cgroup cannot be counted alone: counting system-wide instead; ");
		}
		if (root[0]) {
			snprintf(rel, sizeof(rel), "%s/%s", root, s->o.cgroup);
			cgfd = openat(s->h->rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (cgfd < 0)
				snprintf(fallback, sizeof(fallback),
					 "/%s: %s, so the cgroup cannot be counted alone: counting system-wide instead; ",
					 rel, strerror(errno));
			else {
				t = PMU_TARGET_CGROUP;
				id = cgfd;
			}
		}
	}
	s->pmu = calloc(1, sizeof(*s->pmu));
	if (!s->pmu) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "out of memory");
		goto out;
	}
	if (pmu_counters_open(s->pmu, t, id, &e) < 0 && t == PMU_TARGET_CGROUP) {
		/* e.g. a v2 cgroup the kernel will not count: fall back */
		snprintf(fallback, sizeof(fallback), "%s, counting system-wide instead; ", e.msg);
		err_reset(&e);
		t = PMU_TARGET_SYSTEM;
		pmu_counters_open(s->pmu, t, -1, &e);
	}
	if (s->pmu->nevents == 0) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "%s%s", fallback,
			 e.msg[0] ? e.msg : s->pmu->note);
		free(s->pmu);
		s->pmu = NULL;
		goto out;
	}
	s->cpu_source = s->pmu->using_hardware ? "hardware" : "software";
	s->cpu_target = t == PMU_TARGET_SYSTEM ? "system" : t == PMU_TARGET_PID ? "pid" : "cgroup";
	snprintf(s->cpu_note, sizeof(s->cpu_note), "%s%s", fallback, s->pmu->note);
	map_pmu(s);
out:
	if (cgfd >= 0)
		close(cgfd);	/* perf keeps its own reference */
}

int sampler_open(struct sampler **out, const struct host *h,
		 const struct sampler_opts *o, struct st_err *e)
{
	struct st_cgroup_info ci;
	struct sampler *s;
	char rel[PATH_MAX * 2], path[PATH_MAX * 2 + 16];
	int r;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, -ENOMEM, "out of memory");
	s->h = h;
	s->o = *o;
	s->page_size = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < SC_COUNT; i++)
		s->pmu_idx[i] = -1;
	host_kvfile_init(&s->vmstat, HOST_VMSTAT, false, vmstat_keys, V_N);
	host_kvfile_init(&s->meminfo, HOST_MEMINFO, true, meminfo_keys, MI_N);
	host_file_init(&s->psi.file, HOST_PSI_MEMORY);
	host_kvfile_init(&s->cgstat, "", false, cg_keys_v1, CG_N);
	host_file_init(&s->cgpsi.file, "");
	s->zs_on = o->zswap_pool;

	if (o->cgroup) {
		const char *p = o->cgroup;

		while (*p == '/')
			p++;
		if (!path_ok(p)) {
			sampler_close(s);
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "--cgroup %s: \"..\" is not allowed (give a path under the memory controller)",
					    o->cgroup);
		}
		r = host_cgroup_info(h, &ci, e);
		if (r < 0) {
			sampler_close(s);
			return r;
		}
		if (!ci.memory_v1 && !ci.memory_v2) {
			sampler_close(s);
			return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
					    "--cgroup: no memory cgroup controller is mounted on this host");
		}
		snprintf(s->cg_path, sizeof(s->cg_path), "%s", p);
		s->o.cgroup = s->cg_path;
		snprintf(rel, sizeof(rel), "%s%s%s", ci.memory_root, *p ? "/" : "", p);
		if (!host_exists(h, rel)) {
			sampler_close(s);
			return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
					    "--cgroup %s: no such cgroup under /%s (give the path relative to the memory controller, e.g. system.slice/foo.service)",
					    o->cgroup, ci.memory_root);
		}
		s->cg_on = true;
		s->cg_v2 = ci.memory_v2;
		snprintf(path, sizeof(path), "%s/memory.stat", rel);
		host_kvfile_init(&s->cgstat, path, false, s->cg_v2 ? cg_keys_v2 : cg_keys_v1, CG_N);
		snprintf(path, sizeof(path), "%s/memory.pressure", rel);
		host_file_init(&s->cgpsi.file, path);
	} else {
		memset(&ci, 0, sizeof(ci));
	}
	open_cpu(s, &ci);
	*out = s;
	return 0;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	host_kvfile_close(&s->vmstat);
	host_kvfile_close(&s->meminfo);
	host_kvfile_close(&s->cgstat);
	host_file_close(&s->psi.file);
	host_file_close(&s->cgpsi.file);
	if (s->pmu) {
		pmu_counters_close(s->pmu);
		free(s->pmu);
	}
	free(s);
}

/* ---- one tick ---- */

static void set_counter(struct sampler *s, enum sample_counter c, bool ok, uint64_t v)
{
	s->cur_ok[c] = ok;
	s->cur[c] = ok ? v : 0;
}

static void set_level(struct sampler *s, enum sample_metric m, bool ok, double v)
{
	s->ok[m] = ok;
	s->val[m] = ok ? v : 0;
}

static void kf_counter(struct sampler *s, struct host_kvfile *f, int k, enum sample_counter c)
{
	uint64_t v = 0;
	bool ok = kf_get(f, k, &v);

	set_counter(s, c, ok, v);
}

/* sum of two keys, or of the fallback pair on kernels without the first */
static void kf_sum(struct sampler *s, struct host_kvfile *f, int a, int b, int fa, int fb,
		   enum sample_counter c)
{
	uint64_t x, y;

	if (kf_get(f, a, &x) && kf_get(f, b, &y))
		set_counter(s, c, true, x + y);
	else if (fa >= 0 && kf_get(f, fa, &x) && kf_get(f, fb, &y))
		set_counter(s, c, true, x + y);
	else
		set_counter(s, c, false, 0);
}

static void sample_vmstat(struct sampler *s)
{
	struct host_kvfile *f = &s->vmstat;

	kf_read(s, f);
	snprintf(s->why[SG_VMSTAT], WHY_LEN, "%s", f->file.why);
	for (int k = V_PSWPIN; k <= V_REFAULT_FILE; k++)
		kf_counter(s, f, k, (enum sample_counter)(SC_PSWPIN + k));
	kf_sum(s, f, V_PGSCAN_ANON, V_PGSCAN_FILE, V_PGSCAN_KSWAPD, V_PGSCAN_DIRECT, SC_PGSCAN);
	kf_sum(s, f, V_PGSTEAL_ANON, V_PGSTEAL_FILE, -1, -1, SC_PGSTEAL);
}

static void sample_meminfo(struct sampler *s)
{
	struct host_kvfile *f = &s->meminfo;
	uint64_t a = 0, b = 0;
	bool ok;

	kf_read(s, f);
	snprintf(s->why[SG_MEMINFO], WHY_LEN, "%s", f->file.why);
	ok = kf_get(f, MI_SWAPTOTAL, &a) && kf_get(f, MI_SWAPFREE, &b) && a >= b;
	set_level(s, SM_SWAP_USED_BYTES, ok, (double)(a - b));
	ok = kf_get(f, MI_SWAPCACHED, &a);
	set_level(s, SM_SWAP_CACHED_BYTES, ok, (double)a);
	ok = kf_get(f, MI_ZSWAP, &a);
	set_level(s, SM_ZSWAP_BYTES, ok, (double)a);
	ok = kf_get(f, MI_ZSWAPPED, &a);
	set_level(s, SM_ZSWAPPED_BYTES, ok, (double)a);
}

static void sample_psi(struct sampler *s)
{
	struct psifile *f = &s->psi;

	psi_read(s, f);
	snprintf(s->why[SG_PSI], WHY_LEN, "%s", f->ok ? "" : f->file.why);
	set_counter(s, SC_PSI_SOME, f->ok, f->psi.some.total_us);
	set_counter(s, SC_PSI_FULL, f->ok && f->psi.full.present, f->psi.full.total_us);
	set_level(s, SM_PSI_SOME_AVG10, f->ok, f->psi.some.avg10);
	set_level(s, SM_PSI_FULL_AVG10, f->ok && f->psi.full.present, f->psi.full.avg10);
}

static void sample_zswap(struct sampler *s)
{
	uint64_t rej = 0;
	bool any_rej = false;

	if (!s->zs_on) {
		snprintf(s->why[SG_ZSWAP], WHY_LEN, "zswap pool not asked for");
		return;
	}
	zswap_read(s);
	set_level(s, SM_ZP_STORED_PAGES, s->zs_have[0], (double)s->zs_val[0]);
	set_level(s, SM_ZP_POOL_BYTES, s->zs_have[1], (double)s->zs_val[1]);
	set_level(s, SM_ZP_INCOMPRESSIBLE_PAGES, s->zs_have[2], (double)s->zs_val[2]);
	set_counter(s, SC_ZP_WB, s->zs_have[3], s->zs_val[3]);
	set_counter(s, SC_ZP_LIMIT, s->zs_have[4], s->zs_val[4]);
	for (size_t i = ZS_FIRST_REJECT; i < ZS_N; i++)
		if (s->zs_have[i]) {
			rej += s->zs_val[i];
			any_rej = true;
		}
	set_counter(s, SC_ZP_REJECTS, any_rej, rej);
}

static void sample_cgroup(struct sampler *s)
{
	struct host_kvfile *f = &s->cgstat;
	static const struct { int k; enum sample_metric m; } levels[] = {
		{ CG_ANON, SM_CG_ANON_BYTES }, { CG_FILE, SM_CG_FILE_BYTES },
		{ CG_SWAP, SM_CG_SWAP_BYTES }, { CG_SWAPCACHED, SM_CG_SWAPCACHED_BYTES },
		{ CG_ZSWAP, SM_CG_ZSWAP_BYTES }, { CG_ZSWAPPED, SM_CG_ZSWAPPED_BYTES },
	};
	char *why = s->why[SG_CGROUP];

	if (!s->cg_on)
		return;
	kf_read(s, f);
	for (size_t i = 0; i < NELEM(levels); i++) {
		uint64_t v = 0;
		bool ok = kf_get(f, levels[i].k, &v);

		set_level(s, levels[i].m, ok, (double)v);
	}
	kf_counter(s, f, CG_PGMAJ, SC_CG_PGMAJ);
	kf_counter(s, f, CG_ZSWPIN, SC_CG_ZSWPIN);
	kf_counter(s, f, CG_ZSWPOUT, SC_CG_ZSWPOUT);
	kf_counter(s, f, CG_ZSWPWB, SC_CG_ZSWPWB);
	kf_counter(s, f, CG_REFAULT_ANON, SC_CG_REFAULT_ANON);

	psi_read(s, &s->cgpsi);
	set_counter(s, SC_CG_PSI_SOME, s->cgpsi.ok, s->cgpsi.psi.some.total_us);
	set_counter(s, SC_CG_PSI_FULL, s->cgpsi.ok && s->cgpsi.psi.full.present,
		    s->cgpsi.psi.full.total_us);
	if (!f->ok)
		snprintf(why, WHY_LEN, "%s", f->file.why);
	else if (!s->cgpsi.ok)
		snprintf(why, WHY_LEN, "%s%s", s->cgpsi.file.why,
			 s->cg_v2 ? "" : " (cgroup v1 has per-cgroup PSI only with psi=1 and cgroup1 pressure files)");
	else
		why[0] = '\0';
}

static void sample_cpu(struct sampler *s)
{
	struct st_err e = {0};

	if (!s->pmu) {
		snprintf(s->why[SG_CPU], WHY_LEN, "%s", s->cpu_note);
		for (int c = SC_CPU_CYCLES; c <= SC_CPU_CSW; c++)
			set_counter(s, (enum sample_counter)c, false, 0);
		return;
	}
	if (pmu_counters_read(s->pmu, &e) < 0) {
		snprintf(s->why[SG_CPU], WHY_LEN, "%s", e.msg);
		for (int c = SC_CPU_CYCLES; c <= SC_CPU_CSW; c++)
			set_counter(s, (enum sample_counter)c, false, 0);
		return;
	}
	s->why[SG_CPU][0] = '\0';
	for (int c = SC_CPU_CYCLES; c <= SC_CPU_CSW; c++) {
		int k = s->pmu_idx[c];

		set_counter(s, (enum sample_counter)c, k >= 0, k >= 0 ? s->pmu->ev[k].value : 0);
	}
}

static void derive(struct sampler *s)
{
	double ra = s->val[SM_SWAP_RA], hit = s->val[SM_SWAP_RA_HIT];
	bool rates = s->ok[SM_SWAP_RA] && s->ok[SM_SWAP_RA_HIT];

	/* hits can land a tick after their readahead: cap, never negative */
	set_level(s, SM_RA_HIT_PCT, rates && ra > 0, ra > 0 ? fmin(100.0, 100.0 * hit / ra) : 0);
	set_level(s, SM_RA_WASTED, rates, fmax(0.0, ra - hit));
	if (s->ok[SM_ZP_STORED_PAGES] && s->ok[SM_ZP_POOL_BYTES] && s->val[SM_ZP_POOL_BYTES] > 0)
		set_level(s, SM_ZSWAP_RATIO, true,
			  s->val[SM_ZP_STORED_PAGES] * (double)s->page_size / s->val[SM_ZP_POOL_BYTES]);
	else if (s->ok[SM_ZSWAP_BYTES] && s->ok[SM_ZSWAPPED_BYTES] && s->val[SM_ZSWAP_BYTES] > 0)
		set_level(s, SM_ZSWAP_RATIO, true, s->val[SM_ZSWAPPED_BYTES] / s->val[SM_ZSWAP_BYTES]);
	else
		set_level(s, SM_ZSWAP_RATIO, false, 0);
	set_level(s, SM_IPC, s->ok[SM_CPU_CYCLES] && s->ok[SM_CPU_INSTRUCTIONS] &&
		  s->val[SM_CPU_CYCLES] > 0,
		  s->val[SM_CPU_CYCLES] > 0 ? s->val[SM_CPU_INSTRUCTIONS] / s->val[SM_CPU_CYCLES] : 0);
}

int sampler_tick(struct sampler *s, uint64_t mono_ns, uint64_t wall_ns,
		 struct st_err *e)
{
	double dt;

	if (s->started && mono_ns <= s->now_ns)
		return err_set(e, -EINVAL, "sampler_tick: time did not advance");
	if (s->started) {
		s->prev_ns = s->now_ns;
		memcpy(s->prev, s->cur, sizeof(s->prev));
		memcpy(s->prev_ok, s->cur_ok, sizeof(s->prev_ok));
		s->seq++;
	} else {
		s->started = true;
		s->first_ns = mono_ns;
	}
	s->now_ns = mono_ns;
	s->wall_ns = wall_ns;
	memset(s->ok, 0, sizeof(s->ok));
	memset(s->cur_ok, 0, sizeof(s->cur_ok));

	sample_vmstat(s);
	sample_meminfo(s);
	sample_psi(s);
	sample_zswap(s);
	sample_cgroup(s);
	sample_cpu(s);

	dt = s->seq > 0 ? (double)(s->now_ns - s->prev_ns) / 1e9 : 0;
	for (size_t i = 0; i < NELEM(rate_map); i++) {
		enum sample_counter c = rate_map[i].c;
		enum sample_metric m = rate_map[i].m;

		/* a counter that went backwards was reset: n/a, new baseline */
		if (dt > 0 && s->cur_ok[c] && s->prev_ok[c] && s->cur[c] >= s->prev[c])
			set_level(s, m, true, (double)(s->cur[c] - s->prev[c]) / dt * rate_map[i].scale);
		else
			set_level(s, m, false, 0);
	}
	derive(s);
	if (s->seq > 0)
		for (int m = 0; m < SM_COUNT; m++)
			if (s->ok[m]) {
				s->sum[m] += s->val[m];
				s->nsum[m]++;
			}
	return 0;
}

/* ---- accessors ---- */

bool sampler_value(const struct sampler *s, enum sample_metric m, double *v)
{
	if ((unsigned)m >= SM_COUNT || !s->ok[m])
		return false;
	if (v)
		*v = s->val[m];
	return true;
}

bool sampler_mean(const struct sampler *s, enum sample_metric m, double *v)
{
	if ((unsigned)m >= SM_COUNT || !s->nsum[m])
		return false;
	*v = s->sum[m] / (double)s->nsum[m];
	return true;
}

uint64_t sampler_seq(const struct sampler *s)
{
	return s->seq;
}

double sampler_interval_s(const struct sampler *s)
{
	return s->seq ? (double)(s->now_ns - s->prev_ns) / 1e9 : 0;
}

double sampler_elapsed_s(const struct sampler *s)
{
	return (double)(s->now_ns - s->first_ns) / 1e9;
}

bool sampler_has_cgroup(const struct sampler *s)
{
	return s->cg_on;
}

const char *sampler_cgroup_path(const struct sampler *s)
{
	return s->cg_on ? s->cg_path : NULL;
}

const char *sampler_cgroup_version(const struct sampler *s)
{
	return s->cg_on ? (s->cg_v2 ? "v2" : "v1") : NULL;
}

const char *sampler_cpu_source(const struct sampler *s)
{
	return s->cpu_source;
}

const char *sampler_cpu_target(const struct sampler *s)
{
	return s->cpu_target;
}

const char *sampler_cpu_note(const struct sampler *s)
{
	return s->cpu_note;
}

const char *sampler_unavailable(const struct sampler *s, enum sample_group g)
{
	if ((unsigned)g >= SG_COUNT || !s->why[g][0])
		return NULL;
	if (g == SG_CGROUP && !s->cg_on)
		return NULL;
	return s->why[g];
}

/* ---- JSON ---- */

struct jbuf {
	char *p;
	size_t len, used;
	bool overflow;
};

static void jput(struct jbuf *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jput(struct jbuf *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (j->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(j->p + j->used, j->len - j->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= j->len - j->used)
		j->overflow = true;
	else
		j->used += (size_t)n;
}

static void jstr(struct jbuf *j, const char *s)
{
	jput(j, "\"");
	for (; *s && !j->overflow; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			jput(j, "\\%c", c);
		else if (c < 0x20)
			jput(j, "\\u%04x", c);
		else
			jput(j, "%c", c);
	}
	jput(j, "\"");
}

static void jnum(struct jbuf *j, const struct sampler *s, enum sample_metric m)
{
	if (!s->ok[m])
		jput(j, "null");
	else if (metrics[m].integral)
		jput(j, "%.0f", s->val[m]);
	else
		jput(j, "%.10g", s->val[m]);
}

static void jgroup(struct jbuf *j, const struct sampler *s, enum sample_group g, bool open)
{
	bool first = !open;

	if (!open)
		jput(j, ",\"%s\":{", group_names[g]);
	for (int m = 0; m < SM_COUNT; m++) {
		if (metrics[m].group != g)
			continue;
		jput(j, "%s\"%s\":", first ? "" : ",", metrics[m].key);
		jnum(j, s, (enum sample_metric)m);
		first = false;
	}
	jput(j, "}");
}

/* the raw counters, kernel units; the cgroup's only with --cgroup */
static void jcounters(struct jbuf *j, const struct sampler *s)
{
	bool first = true;
	uint64_t v;

	jput(j, ",\"counters\":{");
	for (int c = 0; c < SC_COUNT; c++) {
		if (counters[c].group == SG_CGROUP && !s->cg_on)
			continue;
		jput(j, "%s\"%s\":", first ? "" : ",", counters[c].key);
		if (sampler_counter(s, (enum sample_counter)c, &v))
			jput(j, "%" PRIu64, v);
		else
			jput(j, "null");
		first = false;
	}
	jput(j, "}");
}

int sampler_set_json_members(struct sampler *s, const char *members)
{
	if (!members)
		members = "";
	if (strlen(members) >= sizeof(s->members))
		return -ENOSPC;
	snprintf(s->members, sizeof(s->members), "%s", members);
	return 0;
}

int sampler_format_json(const struct sampler *s, char *buf, size_t len)
{
	struct jbuf j = { buf, len, 0, false };
	time_t secs = (time_t)(s->wall_ns / 1000000000ULL);
	struct tm tm;
	char ts[40];
	bool any = false;

	gmtime_r(&secs, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	jput(&j, "{\"schema\":\"%s\",%s%s\"seq\":%" PRIu64 ",\"time\":\"%s.%03uZ\","
	     "\"elapsed_s\":%.6f,\"interval_s\":%.6f", SAMPLE_SCHEMA, s->members,
	     s->members[0] ? "," : "", s->seq, ts,
	     (unsigned)(s->wall_ns / 1000000ULL % 1000), sampler_elapsed_s(s),
	     sampler_interval_s(s));
	jput(&j, ",\"page_size\":%ld", s->page_size);
	jgroup(&j, s, SG_VMSTAT, false);
	jgroup(&j, s, SG_ZSWAP, false);
	jgroup(&j, s, SG_PSI, false);
	jgroup(&j, s, SG_MEMINFO, false);
	if (s->cg_on) {
		jput(&j, ",\"cgroup\":{\"path\":");
		jstr(&j, s->cg_path);
		jput(&j, ",\"version\":\"%s\"", s->cg_v2 ? "v2" : "v1");
		jgroup(&j, s, SG_CGROUP, true);
	}
	jput(&j, ",\"cpu\":{\"source\":\"%s\",\"target\":\"%s\",\"note\":", s->cpu_source,
	     s->cpu_target);
	jstr(&j, s->cpu_note);
	jgroup(&j, s, SG_CPU, true);
	jgroup(&j, s, SG_DERIVED, false);
	jcounters(&j, s);
	jput(&j, ",\"unavailable\":{");
	for (int g = 0; g < SG_COUNT; g++) {
		const char *why = sampler_unavailable(s, (enum sample_group)g);

		if (!why || g == SG_CPU)	/* cpu.note already says it */
			continue;
		jput(&j, "%s\"%s\":", any ? "," : "", group_names[g]);
		jstr(&j, why);
		any = true;
	}
	jput(&j, "}}");
	if (j.overflow)
		return -ENOSPC;
	return (int)j.used;
}
