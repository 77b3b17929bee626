/*
 * vocab.h - the counter vocabulary: one table (vocab-rows.h) of every
 * quantity swaptune measures, keyed by where it comes from - a kernel file
 * and the kernel's key in it (vmstat zswpin, zswap debugfs, PSI, meminfo,
 * memory.stat, a perf event) or the workload's own report (ops, latency,
 * wall time, rusage) - with what people call it, its unit and which
 * direction is better. Its views:
 *
 *   metric_defs[PM_*]         one probe trial's delta or level, under the key
 *                             stored with each trial (metric.h)
 *   sample_metric_defs[SM_*]  the sampler's per-tick rate or level: JSON
 *                             key, Prometheus gauge (sampler.h)
 *   sample_counter_defs[SC_*] the raw cumulative counter: JSON "counters"
 *                             key, Prometheus _total counter (sampler.h)
 *   sbm_kernel_defs[SBK_*]    a switchback figure per window (sbrun.h)
 *   verdict_secondary_defs[VERDICT_SEC_*]  a secondary cost of the verdict
 *                             (advisor.h): the trial metric, its JSON name
 *
 *   shown_<list>[SHOWN_N_<list>]  what one renderer shows, in its order
 *                             (SHOWN_TICKS and SHOWN_TRIALS lines): the
 *                             live table, the report, the TUI's Live panel
 *
 * Renderers show the rows their shown_ list names and take every word from
 * here: name (reports, summary lines), label (screens), heads (narrow
 * tables), units. A row with no view of a kind has no id of that kind.
 *
 * Pure data, no I/O: any room may include it.
 */
#ifndef SWAPTUNE_VOCAB_H
#define SWAPTUNE_VOCAB_H

#include <stdbool.h>
#include <stdint.h>

#include "swaptune/verdict-secondary.h"	/* enum verdict_secondary */

/* Where a row's value comes from. */
enum vocab_source {
	VSRC_WORKLOAD = 0,	/* the workload's own report: ops, latency, wall time */
	VSRC_VMSTAT,		/* proc/vmstat */
	VSRC_ZSWAP,		/* zswap debugfs, one file per key */
	VSRC_PSI,		/* proc/pressure/memory: keys = { line, field } */
	VSRC_MEMINFO,		/* proc/meminfo, in bytes */
	VSRC_MEMCG,		/* a memory cgroup's memory.stat (keys v2, keys_v1 v1) */
	VSRC_MEMCG_PSI,		/* a memory cgroup's memory.pressure: keys = { line, field } */
	VSRC_MEMCG_FILE,	/* a memory cgroup's file of its own (keys[0] v2, keys_v1[0] v1) */
	VSRC_PMU,		/* a perf event by pmu.c's name ("cycles", "task_clock_ns") */
	VSRC_RUSAGE,		/* the trial's processes (wait4) */
	VSRC_HOST_CPU,		/* proc/stat and proc/pressure/cpu, read by the probe's host
				 * readers only (host_stat_read(), HOST_PSI_CPU), not sampled */
	VSRC_ENGINE,		/* the probe engine's own clock around a trial's phases */
	VSRC_DERIVED,		/* computed from other rows */
	VSRC_CGROUP_CPU,	/* a cgroup's CPU time (host-cgcpu.c): v2 cpu.stat keys[0],
				 * v1 the file keys_v1[0] */
};

/* How a row's keys make its value. */
enum vocab_sum {
	VSUM_ALL = 0,		/* the sum of keys[], each present; else of alt[], each present */
	VSUM_PRESENT,		/* the sum of the keys[] present, at least one */
	VSUM_DIFF,		/* keys[0] - keys[1], both present, not below 0 */
};

enum metric_direction {
	METRIC_NEUTRAL = 0,		/* context, neither better nor worse */
	METRIC_LOWER_BETTER,
	METRIC_HIGHER_BETTER,
};

enum metric_kind {
	METRIC_KIND_PRIMARY = 0,	/* a candidate primary metric */
	METRIC_KIND_COUNTER,		/* a counter's delta over the trial */
	METRIC_KIND_GAUGE,		/* a level read once */
	METRIC_KIND_DERIVED,		/* computed from other metrics */
	METRIC_KIND_LATENCY,		/* a latency percentile */
};

/* vocab_secondary_of() of a metric that feeds none of the advisor's costs. */
#define METRIC_SEC_NONE (-1)

/* The sampler's JSON groups, in line order. */
enum sample_group {
	SG_VMSTAT, SG_ZSWAP, SG_PSI, SG_MEMINFO, SG_CGROUP, SG_CPU, SG_DERIVED,
	SG_COUNT
};

/* How a per-tick level becomes a Prometheus gauge (sample_prom_format()). */
enum sample_prom_unit {
	SPU_SAME,		/* as it is (bytes, a ratio) */
	SPU_PCT_TO_RATIO,	/* percent -> 0..1 */
	SPU_PAGES_TO_BYTES,	/* pages x the page size */
};

#define VOCAB_TERMS 5

struct vocab_row {
	enum vocab_source source;
	/*
	 * The kernel's keys, summed as sum says (NULL-terminated lists): vmstat
	 * and meminfo keys, zswap debugfs file names, memory.stat keys of
	 * cgroup v2 (keys_v1 on v1; a row with no key for a version is n/a
	 * there), a PSI line and field, a perf event name. alt: the keys of
	 * kernels without keys[] (VSUM_ALL only).
	 */
	const char *keys[VOCAB_TERMS];
	const char *keys_v1[VOCAB_TERMS];
	const char *alt[VOCAB_TERMS];
	enum vocab_sum sum;
	const char *name;	/* short, for reports and summary lines: "zswpin", "wasted readahead" */
	const char *label;	/* words for a screen: "zswap loads" */
	const char *unit;	/* of the value itself, as a trial stores it: "pages", "us", "bytes" */
	enum metric_direction direction;
	const char *help;	/* one line: what it counts, from where (also Prometheus # HELP) */
};

/* ---- the ids, from the rows ---- */

#define ROW(id, ...) V_##id,
enum vocab_id {
#include "swaptune/vocab-rows.h"
	V_COUNT
};
#undef ROW

/* Every per-trial metric (metric_defs[]); the probe's code names them. */
#define TRIAL(pm, row, ...) pm,
enum probe_metric {
#include "swaptune/vocab-rows.h"
	PM_COUNT
};
#undef TRIAL

/* Every value a tick can produce (sample_metric_defs[]), JSON order within a group. */
#define TICK(sm, row, ...) sm,
enum sample_metric {
#include "swaptune/vocab-rows.h"
	SM_COUNT
};
#undef TICK

/*
 * The cumulative counters behind the rates, as the kernel (or perf) keeps
 * them: monotonic until a reset (reboot, re-created cgroup, a new sampler
 * for CPU counters).
 */
#define TOTAL(sc, row, ...) sc,
enum sample_counter {
#include "swaptune/vocab-rows.h"
	SC_COUNT
};
#undef TOTAL

/* Switchback's figures per window (sbm_kernel_defs[]), in stored order. */
#define WINDOW(sbk, row, ...) sbk,
enum sbm_kernel {
#include "swaptune/vocab-rows.h"
	SBK_COUNT
};
#undef WINDOW

/* ---- the views ---- */

/* One probe trial's value, stored per trial. */
struct metric_def {
	const struct vocab_row *row;	/* label, unit, direction */
	const char *key;		/* database and JSON key: "zswpin" (never renamed) */
	enum metric_kind kind;
	const char *head;		/* column head in probe's result table, or NULL */
};

/* The sampler's value per tick: a rate of the row's counter, or a level. */
struct sample_metric_def {
	enum sample_metric id;
	const struct vocab_row *row;
	enum sample_group group;
	const char *key;	/* JSON key in its group: "zswpout_pages_per_s" */
	const char *unit;	/* as shown: "pages/s", "%", "bytes", "x" */
	double scale;		/* a rate: counter units per second x scale (PSI us/s -> %: 1e-4) */
	/*
	 * Prometheus gauge name, or NULL for a per-tick rate: Prometheus gets
	 * the counter it comes from and rate() instead.
	 */
	const char *prom;
	enum sample_prom_unit prom_unit;
	bool integral;		/* printed as an integer (levels in bytes/pages) */
	const char *head;	/* column head in the live table (<= 5 characters), or NULL */
};

/* A raw cumulative counter: JSON "counters" (kernel units), Prometheus _total (base units). */
struct sample_counter_def {
	enum sample_counter id;
	const struct vocab_row *row;
	enum sample_group group;	/* SG_CGROUP ones exist only with --cgroup */
	const char *key;	/* JSON key in "counters", kernel units: "psi_some_us" */
	const char *prom;	/* "swaptune_memory_pressure_some_seconds_total" */
	double prom_scale;	/* kernel unit -> base unit (us -> s: 1e-6) */
};

/*
 * A switchback figure per window: the rate of a counter between two ticks,
 * of the workload's cgroup when --cgroup names one that has it, else of the
 * host. All are "lower is better".
 */
struct sbm_kernel_def {
	const struct vocab_row *row;
	const char *name;	/* --metric NAME: "psi-full" */
	const char *key;	/* stored per window: "psi_full_pct" (never renamed) */
	const char *unit;	/* "%", "faults/s", "pages/s", "CPU s/s" */
	const char *label;	/* words for a report */
	enum sample_counter host;	/* the host's counter (its availability), or SC_COUNT */
	enum sample_counter host_plus;	/* summed with it, or SC_COUNT */
	enum sample_counter cgroup;	/* the cgroup's counter, or SC_COUNT */
	bool cgroup_cpu;	/* the cgroup's CPU time (host_cgroup_cpu_ns()), ns */
	double per;		/* counter units per second per figure unit (us/s -> %: 1e4) */
	const char *head;	/* column head in the switchback report, or NULL */
	int arms_col;		/* its column among the figures of the arms table, 0 none */
	int windows_col;	/* and of the windows table */
};

/* One of the verdict's secondary costs: the trial metric it is. */
struct verdict_secondary_def {
	enum probe_metric pm;
	const char *name;	/* in advice's JSON: "zswpout_pages" (never renamed) */
};

extern const struct vocab_row vocab_rows[V_COUNT];
extern const struct verdict_secondary_def verdict_secondary_defs[VERDICT_SEC_COUNT];
extern const struct sbm_kernel_def sbm_kernel_defs[SBK_COUNT];
extern const struct metric_def metric_defs[PM_COUNT];
extern const struct sample_metric_def sample_metric_defs[SM_COUNT];
extern const struct sample_counter_def sample_counter_defs[SC_COUNT];

/*
 * What each renderer shows, in its order: shown_tui_live[SHOWN_N_tui_live]
 * and the like (the lists are at the end of vocab-rows.h).
 */
#define SHOWN_TICKS(list, ...)									\
	enum { SHOWN_N_##list = sizeof((const enum sample_metric[]){ __VA_ARGS__ }) /		\
				sizeof(enum sample_metric) };						\
	extern const enum sample_metric shown_##list[SHOWN_N_##list];
#define SHOWN_TRIALS(list, ...)									\
	enum { SHOWN_N_##list = sizeof((const enum probe_metric[]){ __VA_ARGS__ }) /		\
				sizeof(enum probe_metric) };						\
	extern const enum probe_metric shown_##list[SHOWN_N_##list];
#include "swaptune/vocab-rows.h"
#undef SHOWN_TICKS
#undef SHOWN_TRIALS

/* The kernel's key of row id (its first): vocab_key(V_ZSWPIN) is "zswpin". */
const char *vocab_key(enum vocab_id id);

/* The secondary cost (enum verdict_secondary) trial metric pm is, or METRIC_SEC_NONE. */
int vocab_secondary_of(enum probe_metric pm);

/* The JSON object name of a group: "vmstat", "zswap", ... */
const char *vocab_group_name(enum sample_group g);

/* The row's keys for a memory cgroup of that version (keys, or keys_v1 on v1). */
const char *const *vocab_keys(const struct vocab_row *r, bool cgroup_v1);

/*
 * The value of row r from a key lookup: get(arg, key, &v) is true when
 * key is present. Sums as r->sum says; false when n/a. For the "key
 * value" and one-file-per-key sources (vmstat, meminfo, memory.stat, zswap
 * debugfs).
 */
bool vocab_value(const struct vocab_row *r, bool cgroup_v1,
		 bool (*get)(const void *arg, const char *key, uint64_t *v),
		 const void *arg, uint64_t *out);

#endif
