/*
 * probe.h - the probe engine: one workload x a set of arms (named setting
 * sets) x N rounds, each trial a fresh process in a fresh leaf memory cgroup,
 * with counter deltas around each trial, results into the store.
 *
 * Method (DOMAIN.md "Measuring honestly"): before every trial swapoff +
 * swapon the probe's scratch swap (which empties it and its zswap entries)
 * and wait for the zswap pool to be empty; after it, empty the trial's own
 * memory cgroup (v1 memory.force_empty, v2 memory.reclaim) and remove it.
 * The host's page cache is dropped (and memory compacted) only with
 * drop_host_caches;
 * a discarded warm-up round (one trial per arm) first; arms interleaved in a
 * shuffled order per round (probe_round_order(), reproducible from --seed);
 * a trial whose memory cgroup saw an OOM kill is "oom": reported and
 * counted, never averaged. Adaptive mode adds rounds after --reps until the
 * advisor says the comparison with the baseline is decisive, or --max-reps.
 *
 * Host changes: arm settings, zswap.enabled (if it was off), the scratch
 * swap, zram (bypass emulated by zram), the debugfs mount and every trial's
 * cgroup are journaled before they happen (journal.h) and undone when the
 * probe ends, fails or is stopped; a kill -9 is repaired by the next
 * swaptune command. The engine never prints: it reports through a progress
 * callback and a result struct.
 *
 * This header is the engine's: trials, configuration, time budget, plan,
 * run and result (the functions that need only these types are probe.c's,
 * the rest the engine's files' src/probe-*.c). What only names arms takes
 * probe-arms.h; the standalone bypass check (doctor's) is probe-bypass.h.
 */
#ifndef SWAPTUNE_PROBE_H
#define SWAPTUNE_PROBE_H

#include <cjson/cJSON.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/advisor.h"
#include "swaptune/cgroup.h"
#include "swaptune/err.h"
#include "swaptune/judge.h"
#include "swaptune/metric.h"
#include "swaptune/probe-arms.h"
#include "swaptune/workload.h"

#define PROBE_SCHEMA		"swaptune.probe/2"
#define PROBE_REPS_MAX		(VERDICT2_ROUNDS_MAX - 1)

struct host;
struct store;
struct store_probe_run;

/* ---- native zswap readahead bypass (probe-bypass.h: the standalone check) */

enum probe_bypass_mode {
	PROBE_BYPASS_PC0 = 0,		/* emulate by page-cluster=0 (default) */
	PROBE_BYPASS_ZRAM,		/* emulate by swapping to zram behind zswap */
};

enum probe_bypass_kind {
	PROBE_BYPASS_UNTESTED = 0,	/* no bypass arm in this probe */
	PROBE_BYPASS_NATIVE,		/* the kernel skips readahead for zswap */
	PROBE_BYPASS_EMULATED,		/* emulated, see enum probe_bypass_mode */
};

/* ---- metrics: enum probe_metric and its table live in metric.h ------- */

/* ---- trials and their summary ---------------------------------------- */

enum probe_trial_status {
	PROBE_TRIAL_OK = 0,
	PROBE_TRIAL_OOM,		/* the memcg OOM-killed the workload */
	PROBE_TRIAL_FAILED,		/* the workload failed (reason in note) */
	PROBE_TRIAL_TIMEOUT,		/* killed at the per-trial cap */
	PROBE_TRIAL_INTERRUPTED,	/* the probe was stopped */
};

const char *probe_trial_status_name(enum probe_trial_status s);

struct probe_trial {
	int arm;
	unsigned round;			/* 0 = warm-up */
	unsigned seq;			/* 1.. in run order */
	bool warmup;
	enum probe_trial_status status;
	char note[256];
	double primary;			/* NAN unless status OK */
	double duration_s;		/* whole trial, preparation included */
	bool have[PM_COUNT];
	double v[PM_COUNT];
};

struct probe_arm_summary {
	unsigned trials;		/* measured (not warm-up) trials */
	unsigned completed, oom, failed;
	struct stats_summary primary;	/* mean, sd, 95 % CI (advisor.h) */
	bool have[PM_COUNT];
	struct stats_summary m[PM_COUNT];
};

/* ---- configuration --------------------------------------------------- */

enum probe_primary {
	PROBE_PRIMARY_THROUGHPUT = 0,	/* built-in workloads, higher is better */
	PROBE_PRIMARY_WALL,		/* cmd, lower is better */
	PROBE_PRIMARY_METRIC,		/* cmd with --metric-regex */
	PROBE_PRIMARY_CPU,		/* a busy host: built-in ops per CPU second (higher
					 * is better), cmd its CPU seconds (lower) */
};

/* --busy-host: what a probe does when the host has little idle CPU (probe-busy.c). */
enum probe_busy_mode {
	PROBE_BUSY_ADAPT = 0,		/* judge per CPU second, built-in workloads smaller */
	PROBE_BUSY_IGNORE,		/* measure as on a quiet host */
	PROBE_BUSY_PER_CPU,		/* judge per CPU second whatever the look saw, sizes as given */
};

/*
 * The look at the host's CPUs before a probe (probe_busy_check()): idle
 * CPUs over a short interval of HOST_STAT (idle + iowait + nice time: a
 * niced task yields to the workload), and what was adapted for it.
 */
struct probe_busy {
	bool known;			/* HOST_STAT moved during the look (a live host) */
	double idle_cpus;		/* CPUs free for the workload, averaged over the look */
	unsigned cpus;			/* CPUs the host counted in that time */
	bool busy;			/* idle_cpus < PROBE_BUSY_IDLE_MIN */
	bool per_cpu;			/* the primary metric became per CPU second */
	double runnable;		/* other runnable tasks, mean over the look */
	double share;			/* of a CPU the workload would get: cpus / (runnable + 1), <= 1 */
	bool scaled;			/* working set and limit scaled by `scale` */
	double scale;			/* PROBE_BUSY_SCALE when scaled */
	uint64_t ws_was, limit_was;	/* before scaling */
	char why_not_scaled[96];	/* busy, not scaled: why ("--working-set was given") */
	char why_wall[160];		/* busy, wall time kept: why (an arm turns zswap off) */
};
#define PROBE_BUSY_IDLE_MIN 0.8
#define PROBE_BUSY_SCALE 0.5

enum probe_phase {
	PROBE_PHASE_SETUP,
	PROBE_PHASE_DETECT,
	PROBE_PHASE_TRIAL,
	PROBE_PHASE_TEARDOWN,
};

struct probe_progress {
	enum probe_phase phase;
	const char *arm;		/* TRIAL */
	unsigned round, rounds;		/* round 0 = warm-up */
	unsigned trial, trials;		/* 1-based; trials may grow in adaptive mode */
	double eta_s;			/* < 0 unknown */
	const char *msg;
	bool keep;			/* msg is worth keeping on screen (the time budget) */
};

typedef void (*probe_progress_fn)(const struct probe_progress *p, void *arg);

/*
 * The time budget (--max-time) as the engine sees it once the warm-up (or,
 * without one, the first round) has shown how long trials take. It is a
 * ceiling: no trial starts that is expected (from the trials of its arm
 * seen so far, OOM-killed ones at their own length, plus the time between
 * trials and the teardown) to end after start + max_time_s, so at most one
 * trial runs over. When time runs out between looks the engine makes an
 * administrative final look at the rounds completed: a round left
 * incomplete is dropped (its arms ran in a balanced order that a partial
 * round breaks, and whether it completed depends on how long its trials
 * took), the plan is truncated there (judge_plan_truncate()) and stored.
 */
struct probe_budget {
	bool known;			/* computed (after the warm-up or round 1) */
	double max_time_s;		/* the ceiling, 0 = none */
	double used_s;			/* spent when it was computed (setup, warm-up) */
	double round_s;			/* expected seconds per round, gaps included */
	double teardown_s;		/* kept for restoring the host at the end */
	unsigned rounds_fit;		/* measured rounds that fit what is left */
	unsigned first_look;		/* rounds the plan's first look needs */
	unsigned planned_last;		/* the plan's last look before the budget */
	double need_s;			/* a run to the first look: about this long */
	double suggest_s;		/* --max-time that would reach it (with a margin) */
	double effect80_pct[2];		/* gain found with 80 % power at sd_log 0.05 and 0.10 */
	unsigned fail_rounds;		/* discordant rounds the failure test needs at least */
	bool short_run;			/* fewer rounds than the first look, by request */
	bool extended;			/* the budget was raised when asked */
	bool refused;			/* the first look did not fit: stopped before measuring */
	bool admin_stop;		/* time ran out: final look at admin_round */
	unsigned admin_round;
	unsigned looks_taken[VERDICT2_LOOKS_MAX];	/* looks judged before the final one */
	size_t n_looks_taken;
	bool partial_dropped;		/* an incomplete round was left out */
	char text[640];			/* what the budget can answer, in words */
	char stop_text[320];		/* admin_stop: what happened, in words */
};

/* What to do when the budget cannot reach the plan's first look. */
enum probe_short_answer {
	PROBE_SHORT_STOP = 0,		/* refuse: restore the host, exit 2 */
	PROBE_SHORT_RUN,		/* a short run of the rounds that fit */
	PROBE_SHORT_EXTEND,		/* raise max_time_s to suggest_s and go on */
};

enum probe_short_policy {
	PROBE_SHORT_REFUSE = 0,		/* the default: no terminal to ask */
	PROBE_SHORT_ALLOW,		/* --allow-short */
	PROBE_SHORT_ASK,		/* call short_ask (a terminal) */
};

typedef enum probe_short_answer (*probe_short_fn)(const struct probe_budget *b, void *arg);

/*
 * A probe's defaults, for the CLI, its help and the TUI's form (the arms:
 * PROBE_DEFAULT_ARMS). Timed on a 2-core VM (zswap lzo, cgroup v1): a 256 MiB
 * working set in a 128 MiB memcg swaps half of itself out and back in every
 * trial, 1-2 s a trial. PROBE_MIB_TEXT(n) spells one as the size parser reads
 * it ("256M").
 */
#define PROBE_DEFAULT_WORKLOAD		"anon-runs"
#define PROBE_DEFAULT_WORKING_SET_MIB	256
#define PROBE_DEFAULT_MEMCG_LIMIT_MIB	128
#define PROBE_MIB_TEXT_(n)		#n "M"
#define PROBE_MIB_TEXT(n)		PROBE_MIB_TEXT_(n)

struct probe_config {
	const struct workload_info *workload;
	struct workload_params wp;	/* working_set_bytes, ops, seed, theta, ... */
	enum probe_primary primary;
	bool metric_higher_better;	/* PROBE_PRIMARY_METRIC */
	enum probe_busy_mode busy_mode;	/* --busy-host */
	struct probe_busy busy;		/* what the look before the probe saw and changed */

	int narms;
	struct probe_arm arms[PROBE_ARMS_MAX];
	int baseline;			/* index; -1 = the arm matching the host now, else 0 */

	unsigned reps;			/* measured rounds (min rounds when adaptive) */
	bool adaptive;
	unsigned max_reps;
	bool warmup;
	uint64_t seed;			/* the run's seed: round order; the workload's seed
					 * wp.seed is derived from it (probe_seed_set()) */
	struct judge_plan plan;		/* the analysis plan: looks, alpha, min effect */
	double min_trial_s;		/* built-in workloads: measured phase at least this
					 * long, calibrated from the warm-up (0 = off) */
	double max_time_s;		/* the time budget, a ceiling (struct probe_budget; 0 = none) */
	enum probe_short_policy short_policy;	/* when the first look does not fit */
	probe_short_fn short_ask;	/* PROBE_SHORT_ASK: the question */
	void *short_arg;

	uint64_t memcg_limit_bytes;
	enum memcg_limit_mode limit_mode;
	uint64_t swap_size_bytes;	/* scratch swap; 0 = derived from the working set */
	double duration_s;		/* per-trial cap of the measured phase */
	char scratch_dir[PATH_MAX];	/* "" = scratch_swap_default_dir() */
	enum probe_bypass_mode bypass_mode;
	bool force;			/* skip the memory headroom check */
	bool drop_host_caches;		/* sync, drop the host's page cache and compact
					 * memory before every trial (off: only the
					 * probe's own cgroup and swap are emptied) */

	volatile sig_atomic_t *stop;	/* non-zero (a signal number) = stop now */
	probe_progress_fn progress;
	void *progress_arg;
};

/* Defaults: 3 reps, warm-up, adaptive max 10, seed 1, 60 s cap, limit max. */
void probe_config_init(struct probe_config *c);
/* The run's seed, and the workload's derived from it (a separate stream). */
void probe_seed_set(struct probe_config *c, uint64_t seed);
/* The primary metric's trial key (vocab.h), and whether higher is better. */
const char *probe_primary_key(const struct probe_config *c);
bool probe_primary_higher_better(const struct probe_config *c);

/*
 * The busy-host look (probe-busy.c): read HOST_STAT, wait ms, read it again
 * and fill b (all zero on a captured tree: it does not move). Then
 * probe_busy_adapt() applies c->busy_mode to c (adapt on a busy host: the
 * primary metric per CPU second, a built-in workload at half size unless the
 * user set its size, limit or ops; per-cpu on any host: per CPU second, the
 * sizes as given), and probe_busy_text() says it in one line ("" when the
 * host was not busy and per-cpu was not asked). probe_busy_idle() is the
 * arithmetic, for tests.
 *
 * probe_busy_per_cpu_refused(): whether c cannot be judged per CPU second,
 * the reason in why (n bytes): the primary is the command's own metric
 * (--metric-regex, --metric), or an arm changes where pages go (CPU time
 * would not see its I/O waits). `probe --busy-host per-cpu` refuses such a
 * probe (usage error) and the recipe reader a stored run that says so.
 *
 * probe_busy_recorded(): whether the run records method.busy_host (and the
 * plan busy_host): when the host was busy or per-cpu was asked, so that the
 * recipe and judge_recipe() see the metric. probe_busy_json() writes it:
 * mode, per_cpu_second, scaled, and what the look saw (idle_cpus, cpus,
 * runnable) when it saw anything.
 */
struct host_cpu_stat;
struct cJSON;
/* The --busy-host values in enum probe_busy_mode order, NULL-ended: the option and the recipe read them. */
extern const char *const probe_busy_modes[];
bool probe_busy_per_cpu_refused(const struct probe_config *c, char *why, size_t n);
bool probe_busy_recorded(const struct probe_config *c);
/* what the look saw and changed, for the recipe (method.busy_host) and the plan */
struct cJSON *probe_busy_json(const struct probe_config *c);
int probe_busy_check(const struct host *h, unsigned ms, struct probe_busy *b, struct st_err *e);
void probe_busy_adapt(struct probe_config *c, bool ws_given, bool limit_given, bool ops_given);
size_t probe_busy_text(const struct probe_config *c, char *out, size_t n);
double probe_busy_share(unsigned cpus, double runnable, bool known);
bool probe_busy_idle(const struct host_cpu_stat *a, const struct host_cpu_stat *b, double wall_s,
		     double hz, double *idle_cpus, unsigned *cpus);

/* ---- the plan -------------------------------------------------------- */

/* One setting an arm writes, with the host's value now. */
struct probe_touch {
	char name[32];
	char current[SETTING_VALUE_MAX];
};

struct probe_plan {
	int baseline;			/* resolved */
	int ntouch;
	struct probe_touch touch[PROBE_ARMS_MAX * PROBE_ARM_SET_MAX];
	bool enable_zswap;		/* zswap is off now: on for the probe */
	/*
	 * Enabling zswap turns large-folio swap-in off until the next reboot
	 * on this host (fingerprint_zswap_enable_hazard()): said in the plan, with why.
	 */
	bool zswap_lasting;
	char zswap_lasting_why[640];
	bool have_host_swap;		/* else a scratch swap is made */
	bool load_loop_module;		/* no loop-control: loop is a module not loaded, modprobe loop first */
	char host_swap[128];		/* first active device, "" if none */
	bool host_swap_rotational;
	uint64_t swap_bytes;
	char scratch_dir[PATH_MAX];
	bool mount_debugfs;
	bool detect_bypass;
	int memcg_version;
	uint64_t working_set_bytes, memcg_limit_bytes;
	uint64_t need_bytes, available_bytes;	/* headroom check */
	unsigned rounds, trials;	/* with warm-up; adaptive: the minimum */
	unsigned max_trials;		/* adaptive: the cap */
	double est_trial_s, est_total_s, est_max_s;
};

/*
 * Every change the probe makes to the host, and every effect it has on it,
 * in words: the settings of the arms, zswap, the scratch swap (or zram, the
 * debugfs mount), the cgroups it makes, what it does to the page cache, the
 * memory pressure it creates and how long it takes. The dry run prints these
 * and every probe reports them before it starts. kind is one of "setting",
 * "zswap", "scratch-swap", "host-swap", "zram", "debugfs", "bypass-check",
 * "cgroups", "page-cache", "memory-pressure", "time".
 */
#define PROBE_CHANGES_MAX (PROBE_ARMS_MAX * PROBE_ARM_SET_MAX + 10)
struct probe_change {
	char kind[24];
	char text[512];
};

/* c and p after probe_plan(); returns the number of entries written to out. */
int probe_plan_changes(const struct probe_config *c, const struct probe_plan *p,
		       struct probe_change *out, int max);

/*
 * Resolve defaults (swap size, scratch dir, baseline) in c and describe what
 * the probe would do; reads the host, changes nothing. Fails with exit 3 when
 * the host lacks the memory headroom (unless c->force), has no memory
 * cgroup controller, or the workload is not supported with these params.
 */
int probe_plan(const struct host *h, struct probe_config *c, struct probe_plan *p,
	       struct st_err *e);

/* ---- running --------------------------------------------------------- */

struct probe_result {
	int64_t run_id;
	const char *status;		/* "ok", "interrupted", "failed" */
	int signal;			/* what stopped it, 0 if nothing */
	char error[ST_ERR_MSG_MAX];	/* "failed": why */

	char kernel[128], hostname[128];
	char cpu_model[128];		/* "" when cpuinfo does not say */
	uint64_t mem_total_bytes;
	int memcg_version;
	char readahead[16];		/* "vma" / "cluster" during the probe */
	char zswap_compressor[32];
	bool zswap_enabled_by_probe;
	bool debugfs_mounted;
	char swap_kind[16];		/* "scratch-loop", "host" */
	char swap_device[128];
	char swap_file[PATH_MAX];
	uint64_t swap_bytes;
	bool swap_direct_io;
	char cpu_counters[256];		/* what the PMU gave, and why */

	enum probe_bypass_kind bypass;
	enum probe_bypass_mode bypass_mode;
	char bypass_evidence[256];

	unsigned rounds;		/* measured rounds done */
	bool adaptive_stopped;		/* decisive before max_reps */
	size_t ntrials, cap;
	struct probe_trial *trials;
	struct probe_arm_summary summary[PROBE_ARMS_MAX];
	bool have_verdict;
	struct verdict_result verdict;
	struct judgement judgement;	/* the sequential details of the verdict */
	uint64_t calibrated_ops;	/* accesses per trial after the warm-up, 0 = not calibrated */
	struct probe_budget budget;

	double elapsed_s;
	int restored;			/* journal rows undone at the end */
	char restore_error[ST_ERR_MSG_MAX];
};

/*
 * Run the probe described by c (after probe_plan()) on the live host h,
 * recording into st. Returns 0 when it ran to the end or was stopped (see
 * r->status; a stop also sets r->signal), negative with e set when it could
 * not start or failed; in every case the host is restored before return
 * and r holds what was measured. Call probe_result_free() after.
 */
int probe_run(const struct host *h, struct store *st, struct probe_config *c,
	      const struct probe_plan *p, struct probe_result *r, struct st_err *e);
void probe_result_free(struct probe_result *r);

/*
 * Recompute r->summary (and the verdict) from r->trials. Pure: the verdict
 * comes from r's trials made into the store's rows (probe_rows_from_result())
 * through the same builder recommend uses (metric_verdict2_input()).
 */
void probe_summarize(const struct probe_config *c, int baseline, struct probe_result *r);

/* ---- the store's rows ------------------------------------------------ */

/* Write c's arms under run_id; arm_ids[i] receives arm i's row. */
int probe_store_arms(struct store *st, int64_t run_id, const struct probe_config *c,
		     int64_t *arm_ids, struct st_err *e);
/* Write one trial and its metrics (the detection trial, arm -1, is not stored). */
int probe_store_trial(struct store *st, int64_t run_id, const int64_t *arm_ids,
		      const struct probe_trial *t, struct st_err *e);
/*
 * r's arms and trials as the rows store_probe_run_load() would return for
 * them (arm ids 1..narms); free with store_probe_run_free(). -ENOMEM.
 */
int probe_rows_from_result(const struct probe_config *c, const struct probe_result *r,
			   struct store_probe_run *rows);
/*
 * The sequential verdict's input for the run's rows: rounds and trials from
 * rows (metric_verdict2_input()), metric from c, baseline arm index
 * baseline (none when out of range). -EBADMSG as metric_verdict2_input().
 */
int probe_verdict_input(const struct probe_config *c, int baseline,
			const struct store_probe_run *rows, struct verdict2_input *in);

/* The result document (share/schema/probe.schema.json). */
cJSON *probe_result_to_json(const struct probe_config *c, const struct probe_plan *p,
			    const struct probe_result *r);

#endif
