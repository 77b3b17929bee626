/*
 * sbrun.h - `swaptune switchback` around the pure core (switchback.h): the
 * live experiment on the host's own workload, its metrics, its rows in the
 * store, and the judgement of a stored run that recommend, apply --run,
 * report --run, verify --live and the TUI share.
 *
 *   src/sb-metric.c   the metric sources: kernel counters per window, a
 *                     command, a local file, a Prometheus text endpoint on
 *                     this host; the pure parsers behind them
 *   src/sb-engine.c   the run: settings switched in randomised blocks
 *                     (every write journaled first), one tick a second,
 *                     the guardrails, the looks, the rows
 *   src/sb-judge.c    a stored run loaded back (nothing read back is
 *                     trusted), judged by sb_analyse(), as JSON and text
 *   src/sbrun-opts.c  the configuration from options: the rows both
 *                     commands and the TUI's form share, their checks
 *   src/sbrun-print.c the plan for people and as JSON, a run's result
 *
 * How a command runs one (the lock, the question, progress) is
 * sbrun-cli.h's.
 *
 * The engine leaves the workload alone: it changes only the settings of its
 * arms (no swap, cgroup or zswap of its own). Every write is journaled
 * before it is made (journal.h), so Ctrl-C, SIGTERM, the workload's cgroup
 * vanishing, the budget or repeated failures restore the settings at once,
 * and after kill -9 the next swaptune command does. The caller holds the
 * host-change lock (lock.h).
 *
 * Guardrails that act: once a second the engine reads PSI memory of the
 * workload's cgroup (cgroup v2, or v1 with pressure files) or of the host;
 * when a candidate window's PSI full (or some, if asked) over the last
 * guard_span_s seconds passes its threshold, the baseline's settings are
 * written at once, the window counts as FAILED, and the schedule goes on.
 * A window whose metric cannot be had (the command failed, timed out or
 * printed no number; a rate of 0) is FAILED as well. max_failures failed
 * windows end the run with the host restored.
 */
#ifndef SWAPTUNE_SBRUN_H
#define SWAPTUNE_SBRUN_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "swaptune/cgroup.h"
#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/opt.h"
#include "swaptune/probe-arms.h"
#include "swaptune/store.h"
#include "swaptune/switchback.h"
#include "swaptune/vocab.h"

#define SBRUN_SCHEMA	"swaptune.switchback/1"
#define SBRUN_KIND	"switchback"
#define SBRUN_WINDOWS_MAX (SB_BLOCKS_MAX * SB_ARMS_MAX)

/* ---- metrics (src/sb-metric.c) ---- */

enum sbm_source {
	SBM_KERNEL = 0,		/* a kernel figure per window (enum sbm_kernel) */
	SBM_CMD,		/* a command run at the end of each window, printing a number */
	SBM_FILE,		/* a number in a local file, read once a second */
	SBM_PROM,		/* a sample of a Prometheus text endpoint on this host, once a second */
};

/*
 * The kernel's figures, per window: of the workload's cgroup when --cgroup
 * names one and the cgroup has the figure, else of the host. Every window
 * stores all of them (context for the report); --metric NAME makes one
 * the primary metric. All are "lower is better".
 */
/* enum sbm_kernel (SBK_*) and sbm_kernel_defs[]: the WINDOW rows of vocab-rows.h (vocab.h). */
/* The figure named name ("psi-full"), or -1. */
int sbm_kernel_find(const char *name);

#define SBM_CMD_MAX	512
#define SBM_URL_MAX	512
#define SBM_NAME_MAX	256
#define SBM_ARGV_MAX	32

struct sbm_spec {
	enum sbm_source source;
	enum sbm_kernel kernel;		/* SBM_KERNEL: the primary figure */
	char cmd[SBM_CMD_MAX];		/* SBM_CMD: "PROG ARGS" as given (split, never a shell) */
	char path[PATH_MAX];		/* SBM_FILE */
	char url[SBM_URL_MAX];		/* SBM_PROM: http://127.0.0.1:PORT/metrics */
	char name[SBM_NAME_MAX];	/* SBM_PROM: metric name, optionally {label="v",...} */
	bool counter;			/* a cumulative counter: its rate per second per window */
	bool higher_better;
	bool direction_given;		/* --higher-better / --lower-better */
	double timeout_s;		/* SBM_CMD (default 10 s), SBM_PROM (2 s) */
	/*
	 * --metric cpu-per-work: the primary is the cgroup's CPU seconds per
	 * unit of the workload's figure (a counter from the command, file or
	 * endpoint above: "work"), lower is better.
	 */
	bool cpu_per_work;
	char label[96];			/* how reports name it */
};

/* Defaults for source s: counters for files and endpoints, a gauge for a command. */
void sbm_spec_init(struct sbm_spec *m, enum sbm_source s);
/* "tps (a command)", "psi-full (kernel, cgroup)": the metric in words, into buf. */
const char *sbm_describe(const struct sbm_spec *m, char *buf, size_t len);
/* The metric's kind for the analysis: SB_LEVEL for PSI, SB_RATE otherwise. */
enum sb_kind sbm_kind(const struct sbm_spec *m);

/*
 * Split "PROG ARGS" into argv words: blanks separate, '...' and "..." quote,
 * a backslash escapes the next character; no expansion of any kind. buf
 * holds the words. -EINVAL (why says) for an unterminated quote, no word,
 * or more than SBM_ARGV_MAX - 1 words.
 */
int sbm_split_argv(const char *cmd, char *buf, size_t len, char **argv, char *why,
		   size_t why_len);
/* A number alone (blanks around it allowed, nothing else): 0, or -EBADMSG. */
int sbm_parse_number(const char *text, size_t len, double *v);
/*
 * The sum of the samples named name (NAME, or NAME{l="v",...}: every
 * sample of that name carrying those labels) in Prometheus text format
 * 0.0.4. 0, -ENOENT when none matches, -EBADMSG on a malformed sample
 * line of that name, -ERANGE when finite samples sum beyond a double (why
 * says).
 */
int sbm_prom_value(const char *text, size_t len, const char *name, double *v, char *why,
		   size_t why_len);
/* The mean of the finite values among x[0..n-1], without overflow; NAN when none is. */
double sbm_mean_finite(const double *x, size_t n);
/*
 * A URL this module fetches: http://HOST[:PORT]/PATH[?QUERY] with HOST
 * localhost or a loopback literal, decided on the name as libcurl parses
 * it, before any lookup; PORT 1-65535 (default 80); no user name. 0 with
 * *u filled, -EINVAL (malformed, another scheme, a port out of range) or
 * -EPERM (another host), why says.
 */
struct sbm_url {
	char host[256];			/* an IPv6 literal without its brackets */
	unsigned port;
	char path[SBM_URL_MAX];		/* with the query */
};
int sbm_url_parse(const char *url, struct sbm_url *u, char *why, size_t why_len);
struct sockaddr;
/* An IPv4 address in 127/8, ::1, or ::ffff:127.x.y.z */
bool sbm_addr_loopback(const struct sockaddr *sa);

/* One GET by sbm_http_get() */
struct sbm_http_req {
	const char *url;		/* as sbm_url_parse() takes it */
	double timeout_s;		/* the whole exchange, connect included */
	/*
	 * NULL, or "HOST:PORT:ADDR" as curl's --resolve: the name's address
	 * given instead of looked up (the tests pin a name to an address
	 * that is not loopback and must see it refused)
	 */
	const char *pin;
};
/*
 * GET q->url with libcurl: http only, no redirect followed (a 3xx is an
 * error like any status but 200), no proxy whatever the environment says,
 * every connection to a loopback address as resolved (checked on the
 * address the socket is opened for: -EPERM otherwise, nothing sent),
 * the whole exchange within q->timeout_s (-ETIMEDOUT), the body at most
 * 4 MiB (-EFBIG). 0 with a malloc'd, NUL-terminated *body of *blen
 * bytes (transfer encodings undone), or -errno with why.
 */
int sbm_http_get(const struct sbm_http_req *q, char **body, size_t *blen, char *why,
		 size_t why_len);

/* The window a command is asked about (passed in its environment). */
struct sbm_window_env {
	unsigned index, block;
	double start_unix, count_start_unix, end_unix;
	volatile sig_atomic_t *stop;	/* set (Ctrl-C): the command is killed at once; NULL = none */
};

/* The metric command's PATH, whatever the caller's */
#define SBM_CMD_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * Run the command once (fork, exec in its own process group, stdout
 * captured, stderr's last line kept): 0 and *v, or -EIO/-ETIMEDOUT/
 * -EBADMSG/-EINTR with why. The deadline (timeout_s) holds until the
 * command has exited, whether or not it closed its pipes (waitpid
 * WNOHANG), and *w->stop ends the wait at once (-EINTR): then the whole
 * process group is killed (SIGKILL) and reaped. Its environment is only
 * PATH=SBM_CMD_PATH (looked up there), HOME, LANG, LC_ALL and TZ as the
 * caller had them, and SWAPTUNE_WINDOW, SWAPTUNE_BLOCK,
 * SWAPTUNE_WINDOW_START, SWAPTUNE_COUNT_START and SWAPTUNE_WINDOW_END (Unix
 * times, seconds with a fraction): the counted part is [COUNT_START, END);
 * nothing else (no LD_PRELOAD).
 */
int sbm_cmd_value(const struct sbm_spec *m, const struct sbm_window_env *w, double *v, char *why,
		  size_t why_len);
/* PROG names an executable: a path, or a name found in SBM_CMD_PATH (as the command will run it). */
bool sbm_cmd_findable(const char *prog);
/* One read of a file or an endpoint: 0 and *v, or -errno with why. */
int sbm_sample_value(const struct sbm_spec *m, double *v, char *why, size_t why_len);

/* ---- the run (src/sb-engine.c) ---- */

enum sbrun_phase { SBRUN_PHASE_START, SBRUN_PHASE_WINDOW, SBRUN_PHASE_GUARD, SBRUN_PHASE_LOOK,
		   SBRUN_PHASE_END };

struct sbrun_progress {
	enum sbrun_phase phase;
	unsigned window, windows;	/* 1-based */
	unsigned block, blocks;
	const char *arm;
	double eta_s;
	const char *msg;
};

typedef void (*sbrun_progress_fn)(const struct sbrun_progress *p, void *arg);

struct sbrun_config {
	int narms;
	struct probe_arm arms[SB_ARMS_MAX];	/* arms[0] is the baseline */
	struct sb_plan plan;			/* blocks, window, washout, looks, alpha, seed */
	double min_effect;			/* percent (rates) or metric units (levels) */
	struct sbm_spec metric;
	char cgroup[PATH_MAX];			/* the workload's, under the memory controller; "" = none */
	double psi_full_max;			/* guardrail, %; <= 0 off */
	double psi_some_max;			/* guardrail, %; <= 0 off (default) */
	double guard_span_s;			/* PSI over the last this many seconds (5) */
	unsigned max_failures;			/* failed windows that end the run (3) */
	double max_time_s;			/* budget; blocks are cut to fit (0 = none) */
	const char *origin;			/* "switchback" or "verify-live" (params) */
	int64_t verify_of;			/* verify --live: the apply run checked, else 0 */

	volatile sig_atomic_t *stop;
	sbrun_progress_fn progress;
	void *progress_arg;
};

/* Defaults: sb_plan_init(), min effect 2, PSI full guard 60 %, 5 s, 3 failures. */
void sbrun_config_init(struct sbrun_config *c);

/* One setting an arm writes, with the host's value now. */
struct sbrun_touch {
	char name[32];
	char current[SETTING_VALUE_MAX];
};

struct sbrun_plan {
	struct sb_design design;
	struct sb_budget budget;
	double effect80[3];			/* at sd_contrast 5, 10, 15 % (rates) */
	int ntouch;
	struct sbrun_touch touch[SB_ARMS_MAX * PROBE_ARM_SET_MAX];
	bool cgroup_found;
	int cgroup_version;
	char psi_scope[16];			/* "cgroup" or "host": where the guard reads PSI */
	unsigned n_slices, n_washout_slices;	/* within-window slices for the carryover checks */
	double slice_s;
	bool slices_of_metric;			/* the primary metric has slices (not a command) */
	bool kern_have[SBK_COUNT];		/* the kernel gives the figure here */
	bool kern_cgroup[SBK_COUNT];		/* of the cgroup (else of the host) */
	struct host_cgcpu cpu;			/* the cgroup's CPU time, when kern_have[SBK_CPU] */
	struct memcg cg;			/* the workload's cgroup (rel, version), when cgroup_found */
};

/*
 * Check c against the host (settings exist and take the arms' values, the
 * cgroup exists, the metric's source is reachable: a file readable, a URL
 * on this host answering) and make the design. Changes nothing. -EINVAL
 * (exit 2) for a bad plan, -ENOENT (exit 2) for a missing cgroup.
 */
int sbrun_plan(const struct host *h, struct sbrun_config *c, struct sbrun_plan *p,
	       struct st_err *e);

/* One window as measured. Times are seconds from the run's start. */
struct sbrun_window {
	unsigned index, block, pos, arm;
	double start_s, switch_s, count_start_s, end_s;	/* switch_s NAN: no switch */
	char started_at[32];			/* UTC ISO 8601 */
	enum sb_outcome outcome;
	double value;				/* the primary metric over the counted part */
	char failure[200];			/* FAILED: why */
	double failed_at_s;			/* the guard switched back this long into it; NAN */
	double kern[SBK_COUNT];			/* NAN where n/a */
	unsigned n_slices;
	double slice[SB_SLICES_MAX];		/* the primary metric per slice; NAN where n/a */
};

struct sbrun_result {
	int64_t run_id;
	const char *status;			/* "ok", "interrupted", "failed", "stopped" */
	char stop_reason[256];			/* why it ended before its last block, "" */
	int signal;
	unsigned n_windows;
	struct sbrun_window *w;			/* SBRUN_WINDOWS_MAX, owned */
	unsigned blocks_done;
	bool have_verdict;
	struct sb_result verdict;
	double elapsed_s;
	int restored;
	char restore_error[ST_ERR_MSG_MAX];
	char error[ST_ERR_MSG_MAX];
};

/*
 * Run c (after sbrun_plan()) on the live host, recording into st. 0 when it
 * ran to its end, stopped at a look, or was stopped (r->status, r->signal,
 * r->stop_reason say which); negative when it could not start or failed.
 * In every case the settings are back before return. sbrun_result_free().
 */
int sbrun_run(const struct host *h, struct store *st, struct sbrun_config *c,
	      const struct sbrun_plan *p, struct sbrun_result *r, struct st_err *e);
void sbrun_result_free(struct sbrun_result *r);

/* The run's params JSON (plan, arms, metric, guardrails, schedule). */
cJSON *sbrun_params_json(const struct sbrun_config *c, const struct sbrun_plan *p);

/* ---- the options (src/sbrun-opts.c): the command line's, and the TUI's form ---- */

/*
 * What the options say beyond the config itself. The rows point at c (the
 * config they fill, set by sbrun_args_init()) and the fields below;
 * argc/argv let --metric-prom URL NAME take its second word.
 */
struct sbrun_args {
	struct sbrun_config *c;
	int argc;
	char **argv;
	const char *cmd;		/* the command that parses ("switchback", "verify"); NULL: a form */
	const char *arms_list, *baseline;
	const char *custom[SB_ARMS_MAX];
	int ncustom;
	bool seed_given, washout_given;
	bool higher_flag, lower_flag, counter_flag, gauge_flag;	/* as given */
	bool direction_given, kind_given, counter;	/* from them (sbrun_args_finish()) */
	int sources;			/* metric sources given */
};

/* --arms, --arm, --baseline, --min-effect: rows over struct sbrun_args. */
extern const struct opt_spec sbrun_arm_opts[];
/*
 * The design, metric and guardrail options (--window ... --max-failures),
 * rows over struct sbrun_args: `switchback` and `verify --live` both
 * include this table, so each is spelled once (help, completion, man page).
 */
extern const struct opt_spec sbrun_design_opts[];

/* a before parsing: c's defaults, argc/argv for --metric-prom, cmd for messages. */
void sbrun_args_init(struct sbrun_config *c, struct sbrun_args *a, const char *cmd, int argc,
		     char **argv);
/*
 * After parsing: the metric's defaults and checks, the washout, the looks,
 * the seed. 0, or -EINVAL with a usage error (err_usage(), naming a->cmd).
 */
int sbrun_args_finish(struct sbrun_config *c, struct sbrun_args *a, struct st_err *e);
/* The arms from --arms/--arm into c, the baseline first: the named one, else the host's own, else the first. */
int sbrun_arms_resolve(const struct host *h, struct sbrun_config *c, const struct sbrun_args *a,
		       struct st_err *e);
/*
 * argv (argv[0] a name, then arm and design options of `swaptune
 * switchback`) into c with the command's own parsers and checks, the arms
 * resolved against h (the baseline first). 0, or -EINVAL with e saying why
 * in the command's words (without the command's name).
 */
int sbrun_config_parse(const struct host *h, int argc, char **argv, struct sbrun_config *c,
		       struct st_err *e);

/* ---- the plan and the result shown (src/sbrun-print.c) ---- */

/* The plan for people, as `swaptune switchback --dry-run` prints it. */
void sbrun_plan_print(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p);
/* The plan as JSON ("status": "planned"). */
cJSON *sbrun_plan_json(const struct sbrun_config *c, const struct sbrun_plan *p);
/* "42 s", "3 min 05 s": a duration in the plan's words, into buf (returned). */
const char *sbrun_secs(double s, char *buf, size_t len);

/* ---- a stored run (src/sb-judge.c) ---- */

struct sbrun_arm {
	char name[SB_NAME_MAX];
	int n_settings;
	struct probe_setting set[PROBE_ARM_SET_MAX];
};

/* A stored switchback run, validated, with its judgement. */
struct sbrun_stored {
	int64_t run_id;
	bool imported;				/* another host's run: history, never applied */
	char status[24];
	char started_at[40];
	char origin[16];
	int64_t verify_of;
	int narms;
	struct sbrun_arm arms[SB_ARMS_MAX];	/* [0] the baseline */
	struct sb_design design;
	struct sb_opts opts;
	struct sbm_spec metric;
	char cgroup[PATH_MAX];
	double psi_full_max, psi_some_max;
	unsigned n_windows;
	struct sbrun_window *w;			/* owned */
	unsigned blocks_done;			/* complete blocks */
	unsigned n_slices, n_washout_slices;
	double slice_s;
	char stop_reason[256];
	bool judged;				/* at least 2 complete blocks */
	unsigned look;				/* the look judged */
	struct sb_result res;
};

/*
 * Load run run_id (kind "switchback", or one imported from a host where it
 * was) and judge it at the look its complete
 * blocks reached, with repeated confidence intervals. Every stored value
 * goes through the same checks as the command line (plan, arms' settings by
 * the registry, window indices, finite values); the schedule is re-made
 * from the stored seed and must equal the stored one. -ENOENT (exit 2) for
 * no such run, -EINVAL (exit 2) for a run of another kind, -EBADMSG for a
 * run whose rows fail the checks. sbrun_stored_free().
 */
int sbrun_load(struct store *st, const struct host *h, int64_t run_id, struct sbrun_stored *s,
	       struct st_err *e);
void sbrun_stored_free(struct sbrun_stored *s);

/* Judge (or re-judge) s from its windows: fills s->judged, s->look and s->res. */
int sbrun_judge(struct sbrun_stored *s, struct st_err *e);

/* The verdict document (share/schema/switchback.schema.json, "verdict"). */
cJSON *sbrun_verdict_json(const struct sbrun_stored *s);
/* The verdict for people: headline, per-arm effect and interval, checks, reasons. */
void sbrun_verdict_print(FILE *f, const struct sbrun_stored *s);
/* The result document (src/sbrun-print.c): the run r (NULL: as stored), its windows and verdict. */
cJSON *sbrun_result_json(const struct sbrun_result *r, const struct sbrun_stored *s);
/* The decision as verify and recommend --exit-code answer it: "change", "keep", ... */
const char *sbrun_decision_name(const struct sbrun_stored *s);
/* True if s says change to an arm this host can apply (judged CHANGE, not imported). */
bool sbrun_says_change(const struct sbrun_stored *s);

/* The newest run of kind "switchback" of this store (any status): 0, or -ENOENT. */
int sbrun_latest(struct store *st, int64_t *run_id, struct st_err *e);

#endif
