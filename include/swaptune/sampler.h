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
#include "swaptune/vocab.h"

#define SAMPLE_SCHEMA "swaptune.sample/1"

struct sampler;

/*
 * What a tick produces comes from the counter vocabulary (vocab.h,
 * vocab-rows.h): enum sample_metric (SM_*: every per-tick rate and level,
 * JSON order within a group) with its struct sample_metric_def, and enum
 * sample_counter (SC_*: the cumulative counters behind the rates) with its
 * struct sample_counter_def. The JSON line carries the counters in
 * "counters", Prometheus as _total counters in base units. The sampler
 * reads every row that has such a view, from the row's kernel keys.
 */
const struct sample_metric_def *sampler_metric(enum sample_metric m);
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
/*
 * The host's state beside a live tick, for a fleet to alert on: every
 * registry setting in effect (swaptune_setting{name=...} where the value
 * is a number - booleans as 1/0 - and swaptune_setting_info{name=...,
 * value=...} where it is not), the verdict the newest probe run of this
 * host stored (swaptune_last_verdict_info and _timestamp_seconds) and the
 * times of the last apply and rollback (swaptune_last_apply_timestamp_seconds,
 * swaptune_last_rollback_timestamp_seconds). Not part of a recording:
 * sample --replay --prom leaves these families out.
 */
struct settings_snapshot;
struct sample_prom_state {
	const struct settings_snapshot *settings;	/* NULL: left out */
	bool has_verdict;
	long long verdict_run;
	char verdict[16];		/* keep, change, inconclusive */
	char verdict_arm[64];		/* "" when none */
	double verdict_unix;		/* when that probe ended */
	bool has_apply, has_rollback;
	double apply_unix, rollback_unix;
	double pending_confirm_s;	/* seconds until an unconfirmed apply undoes itself, 0: none */
	/* the running kernel's fingerprint (swaptune_kernel_info) */
	bool has_kernel;
	char kernel_release[128];
	char kernel_cgroup[16];		/* v1, v2, hybrid, none, unknown */
	char kernel_readahead[16];	/* vma, cluster, unknown */
	char kernel_zswap_ever[8];	/* yes, no, unknown */
	char kernel_large_folio[8];	/* yes, no, unknown */
	char kernel_mglru[8];		/* yes, no, unknown */
	/*
	 * the setting applied now against it: 1 decided on another kernel,
	 * readahead mode, cgroup version, large-folio or MGLRU state, 0 the
	 * same, -1 cannot be told (no fingerprint stored with its run)
	 */
	bool has_applied;
	long long applied_run;
	int applied_mismatch;
};

struct sample_prom_src {
	const struct sample_prom_state *state;	/* NULL: no host state (a replay) */
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

/*
 * The live table's columns, system-wide, in order (sample's table and
 * sample --replay): shown_sample_table[SHOWN_N_sample_table] (vocab.h),
 * 8 + 6 each: 80 columns for 12, heads from the vocabulary.
 */
/* A column's value as shown: bytes in MiB, the rest as they are. */
double sample_table_scale(enum sample_metric m);

struct sampler_opts {
	const char *cgroup;	/* relative to the memory controller root, or NULL */
	pid_t pid;		/* count CPU events of this process (0 = none) */
	bool cpu_counters;	/* open CPU counters (live host only) */
	bool zswap_pool;	/* read zswap debugfs (default on) */
};

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
 * One tick as numbers, indexed by the vocabulary's rows: everything its
 * JSON line says. Strings are borrowed (the sampler's, or a reader's).
 */
struct sample_tick {
	const char *members;		/* identity members after "schema" (no braces), NULL/"" none */
	uint64_t seq;
	uint64_t wall_ns;		/* "time": CLOCK_REALTIME, printed to the ms in UTC */
	uint64_t elapsed_ns;		/* since the baseline */
	uint64_t interval_ns;		/* since the previous tick, 0 for the baseline */
	uint64_t page_size;
	bool ok[SM_COUNT];		/* val[m] holds m's value (else null) */
	double val[SM_COUNT];
	bool has[SC_COUNT];		/* counter[c] holds c's raw value (else null) */
	uint64_t counter[SC_COUNT];
	bool cgroup, cgroup_v2;		/* the cgroup group and its counters are there */
	const char *cgroup_path;
	const char *cpu_source, *cpu_target;
	const char *cpu_note;		/* NULL: null */
	const char *unavailable[SG_COUNT];	/* why a group is n/a, NULL: it is not (cpu: cpu_note) */
};

/* The last tick as numbers (its strings are the sampler's, valid until the next tick). */
void sampler_tick_get(const struct sampler *s, struct sample_tick *t);

/*
 * A tick as one JSON object on one line (no newline), described by
 * share/schema/sample.schema.json: the one place that line is printed.
 * Returns the length, or -ENOSPC.
 */
int sample_tick_json(const struct sample_tick *t, char *buf, size_t len);
/*
 * The value and counter keys a line spells. A line recorded before a key
 * was added to vocab-rows.h lacks it; read back, that key is null (not
 * measured), as in a tick recorded today that could not read it.
 */
struct sample_tick_keys {
	bool val[SM_COUNT];
	bool counter[SC_COUNT];
};
/*
 * sample_tick_json() without the value and counter keys k lacks (a key t
 * holds a number for is printed all the same); k NULL: every key. What an
 * older line was, for a reader that must keep its text byte for byte.
 */
int sample_tick_json_keys(const struct sample_tick *t, const struct sample_tick_keys *k,
			  char *buf, size_t len);
/*
 * A line read back (parsed by cJSON) into t: its strings borrowed from d,
 * the identity members printed into members (cap bytes). 0, or -EBADMSG
 * when it is not a tick of this schema: a member unknown, repeated, out
 * of order or of the wrong type, a string with a control byte, a counter
 * that is not a whole number up to 2^53. What the line held is then what
 * sample_tick_json() prints, except where the text spelled a number
 * otherwise: a reader that must keep the text byte for byte compares.
 */
struct cJSON;
int sample_tick_parse(const struct cJSON *d, struct sample_tick *t, char *members, size_t cap);
/* The last tick's line: sample_tick_json() of sampler_tick_get(). */
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
