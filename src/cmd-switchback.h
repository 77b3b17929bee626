/*
 * cmd-switchback.h - private to src/cmd-switchback.c and src/cmd-verify.c
 * (verify --live runs a switchback): the options a switchback takes, their
 * parser, and the run under the host lock with its output.
 */
#ifndef SWAPTUNE_CMD_SWITCHBACK_H
#define SWAPTUNE_CMD_SWITCHBACK_H

#include <getopt.h>

#include "swaptune/cmd.h"
#include "swaptune/sbrun.h"

/* What the command line says beyond the config itself. */
struct sb_args {
	const char *arms_list, *baseline;
	const char *custom[SB_ARMS_MAX];
	int ncustom;
	bool yes, dry, seed_given, washout_given, direction_given;
	bool kind_given, counter;
	int sources;			/* metric sources given */
	enum cmd_progress progress;
};

/* getopt values of the switchback options (>= 2000, clear of other commands'). */
enum {
	SBO_ARMS = 2000, SBO_ARM, SBO_BASELINE, SBO_WINDOW, SBO_WASHOUT, SBO_BLOCKS, SBO_LOOKS,
	SBO_MAX_TIME, SBO_SEED, SBO_MIN_EFFECT, SBO_METRIC, SBO_METRIC_CMD, SBO_METRIC_FILE,
	SBO_METRIC_PROM, SBO_METRIC_NAME, SBO_COUNTER, SBO_GAUGE, SBO_HIGHER, SBO_LOWER,
	SBO_METRIC_TIMEOUT, SBO_CGROUP, SBO_PSI_FULL, SBO_PSI_SOME, SBO_MAX_FAILURES, SBO_YES,
	SBO_DRY_RUN, SBO_PROGRESS,
};

/* The options above; those that choose arms come first (verify --live leaves them out). */
extern const struct option cmd_sb_longopts[];
#define CMD_SB_ARM_OPTS 3	/* --arms, --arm, --baseline */
/* The help rows of the design, metric and guardrail options (switchback and verify --live). */
#define CMD_SB_DESIGN_HELP \
	{ "--window DUR", "length of one window (default 30s)" }, \
	{ "--washout DUR", "the start of every window that is not counted, after a switch (default half the window)" }, \
	{ "--blocks N", "blocks of one window per arm, each in a fresh random order (default 15)" }, \
	{ "--looks LIST", "judge after these blocks, stopping at the first look that decides (default 8,12,15)" }, \
	{ "--max-time DUR", "budget: keep only the blocks (and looks) that fit DUR (default: all)" }, \
	{ "--seed N", "seed of the block orders (default: a fresh random seed, recorded)" }, \
	{ "--metric NAME", "a kernel figure per window: psi-some (default), psi-full, majfault, refault, swapin, swap-ra, zswpin, cpu (of --cgroup); cpu-per-work with a workload metric below" }, \
	{ "--metric-cmd CMD", "the workload's figure: a command 'PROG ARGS' (no shell) run at the end of each window that prints a number; SWAPTUNE_COUNT_START and SWAPTUNE_WINDOW_END (Unix times) give the counted part" }, \
	{ "--metric-file PATH", "the workload's figure: a number in a local file (with --metric-name, a sample of Prometheus text in it), read every second" }, \
	{ "--metric-prom URL NAME", "the workload's figure: sample NAME (or NAME{label=\"v\"}) of a Prometheus text endpoint on this host, read every second" }, \
	{ "--metric-counter", "the figure is a cumulative counter: its rate per second over each window (default for files and endpoints)" }, \
	{ "--metric-gauge", "the figure is a level: its mean over each window (a command's: the number it prints; default for commands)" }, \
	{ "--higher-better", "for a workload figure: higher is better (one of these two is required)" }, \
	{ "--lower-better", "for a workload figure: lower is better" }, \
	{ "--metric-timeout DUR", "a command or endpoint that takes longer fails its window (default 10s for commands, 2s for endpoints; at most half the washout)" }, \
	{ "--cgroup PATH", "the workload's memory cgroup (relative to the controller's root): its PSI, faults and CPU; the run ends when it vanishes or empties" }, \
	{ "--psi-full-max PCT", "guardrail: a candidate window whose PSI memory full over 5 s passes PCT is switched back at once and fails (default 60, 0 = off)" }, \
	{ "--psi-some-max PCT", "the same for PSI memory some (default off)" }, \
	{ "--max-failures N", "failed windows that end the run, settings restored (default 3)" },

void cmd_sb_init(struct sbrun_config *c, struct sb_args *a);
/* One option into c/a: 0, 1 when opt is not a switchback option, < 0 on a usage error. */
int cmd_sb_parse_opt(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		     struct sb_args *a, int opt, int argc, char **argv);
/* After parsing: the metric's defaults and checks, the washout, the seed. */
int cmd_sb_finish(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		  struct sb_args *a);

/* The plan as JSON ("status": "planned"); for people: sbrun_plan_print() (sbrun.h). */
cJSON *cmd_sb_plan_json(const struct sbrun_config *c, const struct sbrun_plan *p);

/*
 * Run c under the host-change lock (what names the command: "switchback",
 * "verify"), asking first unless a->yes, with signals caught and progress
 * as a->progress says; then load the stored run back (*s, judged as every
 * other command judges it). Returns 0 or the status the run's end asks
 * for (128 + signal), or a negative error.
 */
int cmd_sb_execute(struct cmd_ctx *ctx, const char *what, struct sbrun_config *c,
		   const struct sbrun_plan *p, struct sb_args *a, struct sbrun_result *r,
		   struct sbrun_stored *s);

/* The result document: the run, its windows and its verdict. */
cJSON *cmd_sb_result_json(const struct sbrun_result *r, const struct sbrun_stored *s);

/* `verify --live` (src/cmd-verify-live.c): cmd-verify.c hands it the whole command line. */
int cmd_verify_live(struct cmd_ctx *ctx, int argc, char **argv);

#endif
