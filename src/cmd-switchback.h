/*
 * cmd-switchback.h - private to src/cmd-switchback.c and src/cmd-verify.c
 * (verify --live runs a switchback): the options a switchback takes (the
 * design, metric and guardrail rows both commands' tables include), what
 * they leave to check after parsing, and the run under the host lock with
 * its output.
 */
#ifndef SWAPTUNE_CMD_SWITCHBACK_H
#define SWAPTUNE_CMD_SWITCHBACK_H

#include "swaptune/cmd.h"
#include "swaptune/sbrun.h"

/*
 * What the command line says beyond the config itself. The option rows
 * point at c (the config they fill, set by cmd_sb_init()) and the fields
 * below; argc/argv let --metric-prom URL NAME take its second word.
 */
struct sb_args {
	struct sbrun_config *c;
	int argc;
	char **argv;
	const char *arms_list, *baseline;
	const char *custom[SB_ARMS_MAX];
	int ncustom;
	bool yes, dry, seed_given, washout_given;
	bool higher_flag, lower_flag, counter_flag, gauge_flag;	/* as given */
	bool direction_given, kind_given, counter;	/* from them (cmd_sb_finish()) */
	int sources;			/* metric sources given */
	int progress;			/* enum cmd_progress */
};

/*
 * The design, metric and guardrail options (--window ... --max-failures),
 * rows over struct sb_args: `switchback` and `verify --live` both include
 * this table, so each is spelled once (help, completion, man page).
 */
extern const struct opt_spec cmd_sb_design_opts[];

/* a before parsing: c's defaults, argc/argv for --metric-prom. */
void cmd_sb_init(struct sbrun_config *c, struct sb_args *a, int argc, char **argv);
/* After parsing: the metric's defaults and checks, the washout, the seed. */
int cmd_sb_finish(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		  struct sb_args *a);

/* The plan as JSON ("status": "planned"); for people: sbrun_plan_print() (sbrun.h). */
cJSON *cmd_sb_plan_json(const struct sbrun_config *c, const struct sbrun_plan *p);

/*
 * Between the plan and the run: with dry, the plan printed (JSON with
 * --json) and 1 returned, the command is done; on a sysroot the run refused
 * ("<what> the running kernel's settings; with --sysroot use --dry-run",
 * what e.g. "switchback changes"); 0 to go on; negative on error.
 */
int cmd_sb_plan_only(struct cmd_ctx *ctx, const struct sbrun_config *c, const struct sbrun_plan *p,
		     bool dry, const char *what);

/* On stderr: "swaptune: <what> stopped early: <reason>; the settings were restored". */
void cmd_sb_say_stopped(const char *what, const char *reason);

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

/*
 * `verify --live` (src/cmd-verify-live.c): cmd-verify.c parses the command
 * line (its table and cmd_sb_design_opts into a, a->c the config) and hands
 * over; apply_run is --run (0 = the newest apply in effect or pending).
 */
int cmd_verify_live(struct cmd_ctx *ctx, struct sb_args *a, int64_t apply_run);

#endif
