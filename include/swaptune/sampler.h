/*
 * sampler.h - the sampling engine behind `swaptune sample`: per-tick rates
 * and levels of the swap path (vmstat, zswap pool, PSI, meminfo, one memory
 * cgroup, CPU counters). It reads through the host layer and prints nothing.
 *
 * Usage: sampler_open(), then sampler_tick() once per interval with explicit
 * timestamps (the first tick is the baseline: levels only, rates n/a), then
 * read sampler_value() / sampler_counter() / sampler_format_json() /
 * sample_prom_format(); sampler_close() at the end. Rates are for people
 * and the JSON line; the raw counters are for Prometheus (rate() over
 * _total counters loses no tick between scrapes).
 * Recording ticks into the store (sample --record) is the store's:
 * store_samples_begin/add/end() in store.h.
 *
 * Cost: after sampler_open() a tick allocates nothing. procfs and cgroup
 * files are opened once and re-read with pread() at offset 0; zswap debugfs
 * files are opened per tick so that the sampler never keeps debugfs from
 * being unmounted. A source that was not asked for is never read.
 *
 * Robustness: a counter that went backwards (reset, re-created cgroup), or a
 * file that is missing or vanished, makes the affected values n/a for that
 * tick (sampler_value() returns false, JSON null) and sampling goes on. A
 * missing file is looked for again at most once per second of tick time,
 * so files that appear late are picked up.
 */
#ifndef SWAPTUNE_SAMPLER_H
#define SWAPTUNE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/pmu.h"

#define SAMPLE_SCHEMA "swaptune.sample/1"

/* Every value a tick can produce. Order = JSON order within a group. */
enum sample_metric {
	/* vmstat: per-second rates */
	SM_PSWPIN, SM_PSWPOUT, SM_ZSWPIN, SM_ZSWPOUT, SM_ZSWPWB,
	SM_SWAP_RA, SM_SWAP_RA_HIT, SM_PGMAJFAULT, SM_REFAULT_ANON,
	SM_REFAULT_FILE, SM_PGSCAN, SM_PGSTEAL,
	/* zswap debugfs pool */
	SM_ZP_STORED_PAGES, SM_ZP_POOL_BYTES, SM_ZP_INCOMPRESSIBLE_PAGES,
	SM_ZP_WRITTEN_BACK, SM_ZP_REJECTS, SM_ZP_POOL_LIMIT_HITS,
	/* PSI memory */
	SM_PSI_SOME_PCT, SM_PSI_FULL_PCT, SM_PSI_SOME_AVG10, SM_PSI_FULL_AVG10,
	/* meminfo levels */
	SM_SWAP_USED_BYTES, SM_SWAP_CACHED_BYTES, SM_ZSWAP_BYTES, SM_ZSWAPPED_BYTES,
	/* one memory cgroup (--cgroup) */
	SM_CG_ANON_BYTES, SM_CG_FILE_BYTES, SM_CG_SWAP_BYTES, SM_CG_SWAPCACHED_BYTES,
	SM_CG_ZSWAP_BYTES, SM_CG_ZSWAPPED_BYTES, SM_CG_PGMAJFAULT, SM_CG_ZSWPIN,
	SM_CG_ZSWPOUT, SM_CG_ZSWPWB, SM_CG_REFAULT_ANON, SM_CG_PSI_SOME_PCT,
	SM_CG_PSI_FULL_PCT,
	/* CPU counters (rates) */
	SM_CPU_CYCLES, SM_CPU_INSTRUCTIONS, SM_CPU_DTLB_MISSES, SM_CPU_BUSY_PCT,
	SM_CPU_MAJOR_FAULTS, SM_CPU_MINOR_FAULTS, SM_CPU_CONTEXT_SWITCHES,
	/* derived */
	SM_RA_HIT_PCT, SM_RA_WASTED, SM_ZSWAP_RATIO, SM_IPC,
	SM_COUNT
};

struct sampler;

enum sample_group {
	SG_VMSTAT, SG_ZSWAP, SG_PSI, SG_MEMINFO, SG_CGROUP, SG_CPU, SG_DERIVED,
	SG_COUNT
};

/* How a metric becomes a Prometheus gauge (sample_prom_format()). */
enum sample_prom_unit {
	SPU_SAME,		/* as it is (bytes, a ratio) */
	SPU_PCT_TO_RATIO,	/* percent -> 0..1 */
	SPU_PAGES_TO_BYTES,	/* pages x the page size */
};

struct sample_metric_def {
	enum sample_metric id;
	enum sample_group group;
	const char *key;	/* JSON key in its group: "zswpout_pages_per_s" */
	/*
	 * Prometheus gauge name, or NULL for a per-tick rate: Prometheus gets
	 * the counter it comes from (sample_counter_def) and rate() instead.
	 */
	const char *prom;
	const char *help;	/* one line, for # HELP */
	bool integral;		/* printed as an integer (levels in bytes/pages) */
	enum sample_prom_unit prom_unit;
};

const struct sample_metric_def *sampler_metric(enum sample_metric m);

/*
 * The cumulative counters behind the rates, as the kernel (or perf) keeps
 * them: monotonic until a reset (reboot, re-created cgroup, a new sampler
 * for CPU counters). The JSON line carries them in "counters", Prometheus
 * as _total counters in base units.
 */
enum sample_counter {
	SC_PSWPIN, SC_PSWPOUT, SC_ZSWPIN, SC_ZSWPOUT, SC_ZSWPWB, SC_SWAP_RA, SC_SWAP_RA_HIT,
	SC_PGMAJFAULT, SC_REFAULT_ANON, SC_REFAULT_FILE, SC_PGSCAN, SC_PGSTEAL,
	SC_ZP_WB, SC_ZP_REJECTS, SC_ZP_LIMIT, SC_PSI_SOME, SC_PSI_FULL,
	SC_CG_PGMAJ, SC_CG_ZSWPIN, SC_CG_ZSWPOUT, SC_CG_ZSWPWB, SC_CG_REFAULT_ANON,
	SC_CG_PSI_SOME, SC_CG_PSI_FULL,
	SC_CPU_CYCLES, SC_CPU_INSN, SC_CPU_DTLB, SC_CPU_TASK_CLOCK, SC_CPU_MAJ, SC_CPU_MIN,
	SC_CPU_CSW,
	SC_COUNT
};

struct sample_counter_def {
	enum sample_counter id;
	enum sample_group group;	/* SG_CGROUP ones exist only with --cgroup */
	const char *key;	/* JSON key in "counters", kernel units: "psi_some_us" */
	const char *prom;	/* Prometheus counter: "swaptune_memory_pressure_some_seconds_total" */
	double prom_scale;	/* kernel unit -> base unit (us -> s: 1e-6) */
	const char *help;
};

const struct sample_counter_def *sampler_counter_def(enum sample_counter c);
/* The raw value of c at the last tick; false when n/a. */
bool sampler_counter(const struct sampler *s, enum sample_counter c, uint64_t *v);
long sampler_page_size(const struct sampler *s);

/*
 * One Prometheus text exposition (format 0.0.4) of one tick: exactly one
 * HELP and one TYPE line per family, counters as _total in base units
 * (seconds, pages, events), levels as gauges in bytes, ratios in 0..1,
 * the cgroup's families labelled cgroup="PATH", no timestamps (the
 * node_exporter textfile collector refuses them). Values that are n/a are
 * left out with their family. The source is a live sampler or a recorded
 * tick, so that sample --replay ID --prom prints what the live run did.
 */
struct sample_prom_src {
	const void *arg;
	bool (*value)(const void *arg, enum sample_metric m, double *v);
	bool (*counter)(const void *arg, enum sample_counter c, double *v);
	const char *cgroup;		/* label value, NULL without --cgroup */
	const char *cpu_source, *cpu_target;
	double interval_s;
	uint64_t seq;
	double page_size;		/* 0: unknown (page gauges are left out) */
};
/* Returns the length written to buf, or -ENOSPC. */
int sample_prom_format(const struct sample_prom_src *src, char *buf, size_t len);
/* JSON object name of a group ("vmstat", "zswap", ...). */
const char *sampler_group_name(enum sample_group g);

struct sampler_opts {
	const char *cgroup;	/* relative to the memory controller root, or NULL */
	pid_t pid;		/* count CPU events of this process (0 = none) */
	bool cpu_counters;	/* open CPU counters (live host only) */
	bool zswap_pool;	/* read zswap debugfs (default on) */
};

struct sampler;

/*
 * Open the sources asked for. --cgroup: -ENOENT (exit 2) if the cgroup does
 * not exist, -EOPNOTSUPP (exit 3) without a memory controller. CPU counters
 * that cannot be opened are not an error: sampler_cpu_note() says why.
 */
int sampler_open(struct sampler **out, const struct host *h,
		 const struct sampler_opts *o, struct st_err *e);
void sampler_close(struct sampler *s);

/*
 * Take one sample at monotonic time mono_ns (wall_ns: CLOCK_REALTIME, for
 * the timestamp only). Rates are deltas since the previous tick divided by
 * the mono_ns difference. Errors only for a bug or a malformed file that
 * cannot be a kernel's (the value is n/a and sampling can go on).
 */
int sampler_tick(struct sampler *s, uint64_t mono_ns, uint64_t wall_ns,
		 struct st_err *e);

/* The value of m at the last tick; false when n/a. */
bool sampler_value(const struct sampler *s, enum sample_metric m, double *v);
/* Ticks taken (the baseline is tick 0), seconds between the last two. */
uint64_t sampler_seq(const struct sampler *s);
double sampler_interval_s(const struct sampler *s);
double sampler_elapsed_s(const struct sampler *s);
/* Whether the cgroup group is sampled; its path and "v1"/"v2". */
bool sampler_has_cgroup(const struct sampler *s);
const char *sampler_cgroup_path(const struct sampler *s);
const char *sampler_cgroup_version(const struct sampler *s);
/* CPU counters: "hardware", "software" or "none", the target, and why. */
const char *sampler_cpu_source(const struct sampler *s);
const char *sampler_cpu_target(const struct sampler *s);
const char *sampler_cpu_note(const struct sampler *s);
/*
 * Why a group (or part of it) is n/a right now, or NULL: "zswap debugfs is
 * not mounted ...", "cgroup removed", ...
 */
const char *sampler_unavailable(const struct sampler *s, enum sample_group g);

/*
 * The last tick as one JSON object on one line (no newline), described by
 * share/schema/sample.schema.json. Returns the length, or -ENOSPC.
 */
int sampler_format_json(const struct sampler *s, char *buf, size_t len);

/*
 * JSON object members (no braces) every line carries right after "schema":
 * the identity of the sampling host ("host":{...},"swaptune_version":...,
 * from cmd_identity_members()). Copied; NULL or "" = none. -ENOSPC if
 * longer than 1 KiB.
 */
int sampler_set_json_members(struct sampler *s, const char *members);

/* Running means of every rate since the baseline, for the summary line. */
bool sampler_mean(const struct sampler *s, enum sample_metric m, double *v);

#endif
