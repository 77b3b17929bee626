/*
 * workload.h - the probe workloads (probes/): one table, one file each.
 *
 * A workload is what runs inside the probe's memory cgroup. For every trial
 * the probe engine forks a fresh child, moves it into a leaf memcg whose limit
 * is smaller than the working set, calls info->run() in that child, writes
 * the struct workload_result to a pipe and exits. Hence the contract of run():
 *
 *   - it runs in the calling process; built-in workloads never fork (cmd
 *     forks and execs its command, which stays in the same cgroup);
 *   - it never prints and never installs signal handlers; being OOM-killed by
 *     the memcg is a legitimate outcome that the engine detects;
 *   - the access sequence is a pure function of the params (seed included);
 *     only the timings differ between runs;
 *   - it releases everything it set up before returning (tests call it
 *     in-process), and leaves no file behind even when killed;
 *   - it returns 0 when the measured phase ran, or a negative errno with the
 *     detail in *e when the workload could not be set up or run; in that case
 *     result->failed is set and result->reason holds the same message, so the
 *     struct alone tells the engine what happened. cmd can also return 0 with
 *     result->failed set: the command ran but exited non-zero, was killed,
 *     timed out, or metric_regex did not match.
 *
 * Every built-in workload mmaps its working set and writes every page
 * once (never zero, page-specific, about 2-3x compressible), then faults
 * pages back in a measured phase; an access reads one 8-byte word
 * (workload_touch()). A random subset of accesses is timed, each sample
 * weighted by its inverse sampling probability (about
 * WORKLOAD_SAMPLE_BUDGET of the run time); latencies are raw clock deltas,
 * the timer's own cost reported as timer_overhead_ns. Why each of these:
 * docs/design.md, "The probe workloads".
 */
#ifndef SWAPTUNE_WORKLOAD_H
#define SWAPTUNE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swaptune/err.h"
#include "swaptune/opt.h"

#define WORKLOAD_NAME_MAX	32
#define WORKLOAD_REASON_MAX	ST_ERR_MSG_MAX
#define WORKLOAD_PATH_MAX	1024
#define WORKLOAD_REGEX_MAX	256

#define WORKLOAD_DEFAULT_ZIPF_THETA	0.99
#define WORKLOAD_DEFAULT_STRIDE_PAGES	8
#define WORKLOAD_DEFAULT_RUN_PAGES	4	/* anon-runs: pages per run */
#define WORKLOAD_DEFAULT_PASSES		2	/* ops = 0: passes over the pattern's pages */
#define WORKLOAD_FILE_EVERY		4	/* file-anon: every 4th access is a file read */

#define WORKLOAD_SAMPLE_GAP_MAX	4096	/* at least 1 in 4096 accesses is timed */
#define WORKLOAD_SAMPLE_BUDGET	0.01	/* target share of run time spent sampling */

/* ---- parameters ------------------------------------------------------ */

/*
 * Zero means "default" for every numeric field except run_as_uid/gid, so
 * always start from workload_params_init().
 */
struct workload_params {
	uint64_t working_set_bytes;	/* anon (or shmem) working set; rounded down to pages */
	uint64_t ops;			/* accesses in the measured phase; 0 = 2 passes */
	double max_duration_s;		/* measured phase stops early after this; 0 = none */
	uint64_t seed;			/* every random choice derives from it */
	double zipf_theta;		/* anon-zipf exponent, > 0; 0 = 0.99 */
	uint64_t stride_pages;		/* anon-stride k; 0 = 8 */
	uint64_t run_pages;		/* anon-runs R, pages per run; 0 = 4 */
	uint64_t file_bytes;		/* file-anon page-cache file; 0 = working_set / 2 */
	char scratch_dir[WORKLOAD_PATH_MAX];	/* file-anon: where the file is made (not tmpfs) */
	/* cmd only */
	char *const *argv;		/* NULL-terminated; argv[0] looked up in PATH; no shell */
	char metric_regex[WORKLOAD_REGEX_MAX];	/* POSIX ERE (REG_NEWLINE) on stdout, group 1 =
						 * the number, last match wins; "" = none */
	char metric_spec[96];		/* "fio:read.iops" ... (metric-extract.h); "" = none */
	uid_t run_as_uid;		/* (uid_t)-1 = unchanged; needs root to change */
	gid_t run_as_gid;		/* (gid_t)-1 = unchanged */
};

/* Defaults: seed 1, uid/gid unchanged, everything else 0 (= default). */
void workload_params_init(struct workload_params *p);

/*
 * A workload's own numeric parameter, in a table of the workload's file
 * (stress-ng's per-stressor options): one row is its `probe --option`
 * (opt: long name, value name, help, one of opt.h's shared parsers
 * opt_parse_real [double], opt_parse_u64 or opt_parse_size [uint64_t], its
 * bounds, and .off into struct workload_params), its key in the run
 * recipe's "workload" object and its default. From the rows alone:
 * getopt, --help, completion and the man page (workload_param_opts), the
 * value the recipe records (probe_params_json), the recipe reader's range
 * check and the rerun line (recipe.c), and the recipe's identity
 * (judge_recipe: another value is another experiment). A field left 0
 * means the default, as everywhere in struct workload_params.
 */
struct workload_param {
	const char *key;		/* in the recipe JSON's "workload": "zipf_theta"; NULL ends a table */
	struct opt_spec opt;		/* the --option; its bounds are the recipe reader's too */
	double dflt;			/* the value of a field left 0 */
	/* instead of dflt, a default that depends on the other params (or NULL) */
	double (*dflt_of)(const struct workload_params *p);
	const char *range;		/* the bounds in words, for a refused recipe: "in (0, 100]" */
};

/* The field as stored (0 = default), and the value run() uses (default applied). */
double workload_param_get(const struct workload_param *q, const struct workload_params *p);
double workload_param_value(const struct workload_param *q, const struct workload_params *p);
/* Whether the row's field is a double (opt_parse_real) rather than a uint64_t. */
bool workload_param_is_real(const struct workload_param *q);
/* Store v (already checked against the row's bounds) in the row's field of p. */
void workload_param_set(const struct workload_param *q, struct workload_params *p, double v);

/*
 * Every workload's parameters, in the workload table's order (the order of
 * --help and of the recipe's rerun line), a key that two workloads share
 * once: the i-th row, NULL past the end; the row called key, or NULL.
 */
const struct workload_param *workload_param_at(size_t i);
const struct workload_param *workload_param_find(const char *key);

/*
 * The same rows' options as one table for `probe`, {NULL}-terminated like
 * any opt table. Written once, by a constructor in workload.c before main()
 * (a command's tables are static initialisers, and no other file can list
 * the workloads); read-only after that.
 */
#define WORKLOAD_PARAMS_MAX 32
extern struct opt_spec workload_param_opts[WORKLOAD_PARAMS_MAX + 1];

/* ---- latency histogram (HDR-lite) ------------------------------------ */

/*
 * Log-linear buckets of nanoseconds: values below 32 are exact, above that
 * each power of two is split into 16 sub-buckets (relative error <= 1/32 at
 * the bucket midpoint). Counts are weighted (see sampling above).
 */
#define WORKLOAD_HIST_SUB_BITS	4
#define WORKLOAD_HIST_SUB	(1u << WORKLOAD_HIST_SUB_BITS)
#define WORKLOAD_HIST_BUCKETS	((64 - WORKLOAD_HIST_SUB_BITS + 1) * WORKLOAD_HIST_SUB)

struct workload_hist {
	uint64_t count[WORKLOAD_HIST_BUCKETS];	/* weighted counts */
	uint64_t total;			/* sum of weights */
	uint64_t samples;		/* number of record calls */
	uint64_t min_ns, max_ns;	/* exact, over samples */
	double sum_ns;			/* weighted sum, for the mean */
};

void workload_hist_reset(struct workload_hist *h);
void workload_hist_record(struct workload_hist *h, uint64_t ns, uint64_t weight);
void workload_hist_merge(struct workload_hist *dst, const struct workload_hist *src);
/* Value at quantile q in [0, 1]: the midpoint of the bucket holding the
 * ceil(q * total)-th weighted value, clamped to [min_ns, max_ns]; 0 if empty. */
uint64_t workload_hist_quantile(const struct workload_hist *h, double q);
double workload_hist_mean(const struct workload_hist *h);
unsigned workload_hist_bucket(uint64_t ns);
uint64_t workload_hist_bucket_low(unsigned bucket);
uint64_t workload_hist_bucket_width(unsigned bucket);

/* ---- result ---------------------------------------------------------- */

/* Flat (no pointers): the engine's child writes it to a pipe as is. */
struct workload_result {
	char workload[WORKLOAD_NAME_MAX];
	bool failed;			/* see the contract of run() above */
	char reason[WORKLOAD_REASON_MAX];	/* why failed, lowercase, no full stop */
	bool time_limited;		/* max_duration_s stopped the measured phase early */

	uint64_t ops;			/* accesses done in the measured phase */
	uint64_t ops_requested;		/* after defaults */
	uint64_t setup_ns;		/* mmap + fill (+ file write and fsync) */
	uint64_t elapsed_ns;		/* measured phase only */
	double throughput_ops;		/* ops per second of the measured phase */
	uint64_t working_set_bytes;	/* anon/shmem bytes set up (page-rounded) */
	uint64_t file_bytes;		/* file-anon page-cache file */
	uint64_t bytes_touched;		/* read in the measured phase: 8 per anon touch, a page per pread */
	uint64_t checksum;		/* sum of the words read: same seed, same sum */

	/* latency of single accesses, ns, from the weighted sampled histogram
	 * (all 0 for cmd, which reports wall_ns instead) */
	uint64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
	double lat_mean_ns;
	uint64_t latency_samples;	/* timed accesses */
	double latency_sample_mean_gap;	/* ops / latency_samples: "1 in this many" */
	uint32_t latency_gap_min, latency_gap_max;	/* range of the adaptive mean gap N used */
	uint64_t timer_overhead_ns;	/* cost of one clock pair, included in every sample */
	char latency_sampling[64];	/* e.g. "random 1 in 812 (adaptive 1..4096), weighted" */

	/* the measured phase's process counters (cmd: the command's, from wait4) */
	uint64_t maj_faults, min_faults;
	uint64_t user_ns, sys_ns;

	/* cmd only: ops = 1, elapsed_ns = wall_ns, throughput_ops = runs/s;
	 * whether a higher metric_value is better is the caller's to know */
	int exit_status;		/* -1 unless it exited */
	int term_signal;		/* 0 unless killed by a signal */
	bool timed_out;			/* killed after max_duration_s */
	uint64_t wall_ns;		/* fork to exit */
	bool metric_matched;		/* metric_regex matched and group 1 is a number */
	double metric_value;		/* the last match in stdout */

	struct workload_hist hist;	/* mergeable across trials */
};

/* ---- the table ------------------------------------------------------- */

/* How a workload picks its pages (workload_gen). */
enum workload_pattern {
	WORKLOAD_PAT_NONE,	/* cmd */
	WORKLOAD_PAT_SEQ,	/* 0, 1, 2, ... then again from 0 */
	WORKLOAD_PAT_STRIDE,	/* 0, k, 2k, ... then again from 0 */
	WORKLOAD_PAT_UNIFORM,	/* uniform random pages */
	WORKLOAD_PAT_ZIPF,	/* Zipf(theta) ranks, scattered by a random permutation */
	WORKLOAD_PAT_FILE_MIX,	/* uniform anon; every 4th access a uniform file page */
	WORKLOAD_PAT_RUNS,	/* runs of R consecutive pages from uniform random starts */
};

struct workload_info {
	const char *name;
	const char *summary;
	enum workload_pattern pattern;
	/*
	 * Can it run with these params on this system? false + a reason
	 * (lowercase, no full stop) if not, as stress-ng does. Cheap, no side
	 * effects; run() still fails cleanly (-EINVAL etc.) if called anyway.
	 */
	bool (*supported)(const struct workload_params *p, char *reason, size_t len);
	int (*run)(const struct workload_params *p, struct workload_result *r,
		   struct st_err *e);
	/* How run() fills its anon working set (NULL: none); for the benchmark. */
	void (*fill_anon)(char *base, uint64_t npages, size_t page_size, uint64_t seed);
	/* Its own parameters (NULL: none beyond the working set, ops and seed). */
	const struct workload_param *params;
};

const struct workload_info *workload_find(const char *name);
size_t workload_count(void);
const struct workload_info *workload_at(size_t i);	/* NULL past the end */

/* Ops the measured phase will do for p (applies the default); 1 for cmd. */
uint64_t workload_ops(const struct workload_info *w, const struct workload_params *p);

/* ---- PRNG: xoshiro256**, seeded by splitmix64 ------------------------- */

struct workload_rng {
	uint64_t s[4];
};

static inline uint64_t workload_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void workload_rng_seed(struct workload_rng *r, uint64_t seed);

static inline uint64_t workload_rng_next(struct workload_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5, res = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return res;
}

/* Uniform in [0, n) (multiply-shift; bias < n / 2^64). */
static inline uint64_t workload_rng_below(struct workload_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)workload_rng_next(r) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double workload_rng_double(struct workload_rng *r)
{
	return (double)(workload_rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---- page index generator -------------------------------------------- */

/*
 * The page sequence of the measured phase, exposed so tests can check it and
 * the benchmark can replay it in a bare loop. Plain data, copyable.
 * anon-zipf: rank 1 is the hottest; the rank -> page map is a seeded
 * permutation so that hot pages are scattered over the working set, as hot
 * objects are in a real heap (contiguous hot pages would make readahead look
 * better than it is for such workloads).
 */
struct workload_zipf {
	uint64_t n;
	double theta;
	double h_x1, h_n, s;		/* rejection-inversion constants */
};

struct workload_perm {
	uint64_t n, mask;
	uint64_t mul[2], add[2];
	unsigned shift;
};

struct workload_gen {
	enum workload_pattern pattern;
	uint64_t npages;		/* anon pages */
	uint64_t file_pages;		/* FILE_MIX */
	uint64_t pos, stride;		/* SEQ (stride 1), STRIDE */
	uint64_t count;			/* FILE_MIX */
	uint64_t run_pages, run_left;	/* RUNS: R, pages left in the current run */
	struct workload_rng rng;
	struct workload_zipf zipf;
	struct workload_perm perm;
};

/* Set up w's generator for p; -EINVAL if the params do not fit the pattern. */
int workload_gen_init(struct workload_gen *g, const struct workload_info *w,
		      const struct workload_params *p, struct st_err *e);

/* Zipf rank in [1, n] by rejection-inversion (Hoermann and Derflinger). */
int workload_zipf_init(struct workload_zipf *z, uint64_t n, double theta);
uint64_t workload_zipf_next(const struct workload_zipf *z, struct workload_rng *r);
/* A seeded bijection of [0, n) (cycle-walking over a power-of-two domain). */
void workload_perm_init(struct workload_perm *pm, uint64_t n, uint64_t seed);

static inline uint64_t workload_perm_apply(const struct workload_perm *pm, uint64_t x)
{
	do {
		x = (x * pm->mul[0] + pm->add[0]) & pm->mask;
		x ^= x >> pm->shift;
		x = (x * pm->mul[1] + pm->add[1]) & pm->mask;
		x ^= x >> pm->shift;
	} while (x >= pm->n);
	return x;
}

/*
 * Next page index. FILE_MIX returns npages + file page for a file access.
 * Always inlined so that loops calling it with a constant pattern (the
 * measured phase, the benchmark's bare loop) lose the switch.
 */
static inline __attribute__((always_inline)) uint64_t
workload_gen_next_pat(struct workload_gen *g, enum workload_pattern pat)
{
	uint64_t x;

	switch (pat) {
	case WORKLOAD_PAT_SEQ:
	case WORKLOAD_PAT_STRIDE:
		x = g->pos;
		g->pos += g->stride;
		if (g->pos >= g->npages)
			g->pos = 0;
		return x;
	case WORKLOAD_PAT_UNIFORM:
		return workload_rng_below(&g->rng, g->npages);
	case WORKLOAD_PAT_ZIPF:
		x = workload_zipf_next(&g->zipf, &g->rng) - 1;
		return workload_perm_apply(&g->perm, x);
	case WORKLOAD_PAT_FILE_MIX:
		if (++g->count % WORKLOAD_FILE_EVERY == 0)
			return g->npages + workload_rng_below(&g->rng, g->file_pages);
		return workload_rng_below(&g->rng, g->npages);
	case WORKLOAD_PAT_RUNS:
		if (g->run_left == 0) {	/* a new run: start in [0, npages - R] */
			g->pos = workload_rng_below(&g->rng, g->npages - g->run_pages + 1);
			g->run_left = g->run_pages;
		}
		g->run_left--;
		return g->pos++;
	case WORKLOAD_PAT_NONE:
		break;
	}
	return 0;
}

static inline uint64_t workload_gen_next(struct workload_gen *g)
{
	return workload_gen_next_pat(g, g->pattern);
}

/* ---- helpers shared by probes/ --------------------------------------- */

/* Offset of the word an access reads in a page (see above). */
static inline __attribute__((always_inline)) uint64_t
workload_word_offset(uint64_t page, unsigned page_shift)
{
	return (page & ((1ull << (page_shift - 6)) - 1)) << 6;
}

/* The one word an anon access reads; page_size = 1 << page_shift. */
static inline __attribute__((always_inline)) uint64_t
workload_touch(const char *base, uint64_t page, unsigned page_shift)
{
	return *(volatile const uint64_t *)(base + (page << page_shift) +
					    workload_word_offset(page, page_shift));
}

enum workload_fill {
	WORKLOAD_FILL_COMPRESSIBLE,	/* ~2-3x with lzo/lz4/zstd */
	WORKLOAD_FILL_RANDOM,		/* incompressible */
};

/* Fill one page; its contents depend only on (seed, page_no, kind). */
void workload_fill_page(void *page, size_t page_size, uint64_t page_no,
			uint64_t seed, enum workload_fill kind);
/* Fill pages [first, first + n) of base, page numbers first.. */
void workload_fill_pages(char *base, uint64_t first, uint64_t n, size_t page_size,
			 uint64_t seed, enum workload_fill kind);

/* A page-aligned anonymous working set. */
struct workload_mem {
	char *base;
	uint64_t npages;
	size_t page_size;
	unsigned page_shift;
};

size_t workload_page_size(void);
/* mmap MAP_PRIVATE|MAP_ANONYMOUS, MADV_NOHUGEPAGE; bytes rounded down to pages. */
int workload_mem_map(struct workload_mem *m, uint64_t bytes, struct st_err *e);
void workload_mem_unmap(struct workload_mem *m);

/*
 * One access of the measured phase for workloads that do more than touch an
 * anon page (file-anon, tmpfs-read): page from the generator, adds what it
 * read to *sum and the bytes to *bytes; 0 or a negative errno (+ e).
 */
struct workload_access {
	int (*fn)(void *ctx, uint64_t page, uint64_t *sum, uint64_t *bytes,
		  struct st_err *e);
	void *ctx;
};

/*
 * The measured phase shared by every built-in workload: ops accesses from g,
 * touching m (acc == NULL) or through acc, with the sampled latency histogram,
 * the duration limit and rusage deltas; fills r's measured-phase fields.
 */
int workload_measure(const struct workload_params *p, struct workload_gen *g,
		     const struct workload_mem *m, const struct workload_access *acc,
		     struct workload_result *r, struct st_err *e);

/* Common start and end of every run(): clear r, name it; copy e into r. */
void workload_result_begin(struct workload_result *r, const struct workload_info *w,
			   const struct workload_params *p);
int workload_result_fail(struct workload_result *r, int rc, struct st_err *e);

/* fill_anon of the anon-* workloads: every page WORKLOAD_FILL_COMPRESSIBLE. */
void workload_fill_compressible(char *base, uint64_t npages, size_t page_size, uint64_t seed);

/*
 * The start of run() for a workload over an anon working set: r begun, g
 * made from p, m mapped (p->working_set_bytes) and filled by w->fill_anon,
 * r->working_set_bytes set. m may be mapped whatever it returns: unmap it.
 */
int workload_anon_setup(const struct workload_info *w, const struct workload_params *p,
			struct workload_result *r, struct workload_gen *g, struct workload_mem *m,
			struct st_err *e);

/* run() of a workload that only touches anon pages: workload_anon_setup(), measure. */
int workload_run_anon(const struct workload_info *w, const struct workload_params *p,
		      struct workload_result *r, struct st_err *e);

/* Working-set checks shared by the built-in workloads' supported(). */
bool workload_check_anon(const struct workload_params *p, char *reason, size_t len);

uint64_t workload_now_ns(void);

extern const struct workload_info probe_anon_seq_info;
extern const struct workload_info probe_anon_random_info;
extern const struct workload_info probe_anon_zipf_info;
extern const struct workload_info probe_anon_stride_info;
extern const struct workload_info probe_anon_runs_info;
extern const struct workload_info probe_mixed_compress_info;
extern const struct workload_info probe_file_anon_info;
extern const struct workload_info probe_tmpfs_read_info;
extern const struct workload_info probe_cmd_info;

#endif
