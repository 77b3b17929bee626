/*
 * sbrun-cli.h - a switchback run from the command line (src/sbrun-cli.c):
 * what `swaptune switchback` and `swaptune verify --live` share between
 * parsing their options (sbrun.h: sbrun_args) and printing their result.
 * The TUI runs the engine itself (sbrun.h) and does not use this.
 */
#ifndef SWAPTUNE_SBRUN_CLI_H
#define SWAPTUNE_SBRUN_CLI_H

#include <stdbool.h>

#include "swaptune/cmd.h"
#include "swaptune/sbrun.h"

/* How the run goes: the command's --yes, --dry-run and --progress. */
struct sbrun_cli {
	bool yes, dry;
	int progress;			/* enum cmd_progress */
};

/*
 * Between the plan and the run: with dry, the plan printed (JSON with
 * --json) and 1 returned, the command is done; on a sysroot the run refused
 * ("<what> the running kernel's settings; with --sysroot use --dry-run",
 * what e.g. "switchback changes"); 0 to go on; negative on error.
 */
int sbrun_cli_plan_only(struct cmd_ctx *ctx, const struct sbrun_config *c,
			const struct sbrun_plan *p, bool dry, const char *what);

/* On stderr: "swaptune: <what> stopped early: <reason>; the settings were restored". */
void sbrun_cli_say_stopped(const char *what, const char *reason);

/* What a run gives: its result as it ran, and the run stored and loaded back. */
struct sbrun_ran {
	struct sbrun_result *r;
	struct sbrun_stored *s;
};

/*
 * Run c under the host-change lock (what names the command: "switchback",
 * "verify"), asking first unless a->yes, with signals caught and progress
 * as a->progress says, into *out->r; then load the stored run back
 * (*out->s, judged as every other command judges it). Returns 0 or the
 * status the run's end asks for (128 + signal), or a negative error.
 */
int sbrun_cli_execute(struct cmd_ctx *ctx, const char *what, struct sbrun_config *c,
		      const struct sbrun_plan *p, struct sbrun_cli *a, const struct sbrun_ran *out);

#endif
