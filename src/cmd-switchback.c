/*
 * cmd-switchback.c - `swaptune switchback`: the host's own workload left
 * alone, the arms' settings switched under it in randomised blocks of
 * windows with a washout, judged by the exact sequential randomisation
 * test (switchback.h). Parses the options into a sbrun_config, shows the
 * plan (or only that, with --dry-run), takes the host-change lock, asks,
 * runs the engine (sbrun.h) with a progress line, and prints the verdict of
 * the stored run as recommend would.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/sbrun-cli.h"

static const struct opt_spec sb_run_opts[] = {
	OPT_FLAG("yes", 0, "do not ask before switching host settings (needed without a terminal)",
		 struct sbrun_cli, yes),
	CMD_OPT_DRY_RUN("print the schedule, the budget, what changes and the smallest effect it can "
			"show; change nothing", struct sbrun_cli, dry),
	OPT_CHOICE("progress", "MODE", "auto (a live line on a terminal), tty, plain (one line per "
		   "window on stderr) or none", struct sbrun_cli, progress, cmd_progress_names),
	{ NULL },
};

static int print_result(struct cmd_ctx *ctx, const struct sbrun_result *r, const struct sbrun_stored *s)
{
	if (ctx->json)
		return cmd_print_json(ctx, sbrun_result_json(r, s));
	sbrun_verdict_print(ctx->out, s);
	fprintf(ctx->out, "Stored as run %lld: swaptune report --run %lld -o switchback-%lld.html (timeline)\n",
		(long long)s->run_id, (long long)s->run_id, (long long)s->run_id);
	if (sbrun_says_change(s))
		advice_apply_hint_print(ctx->out, s->run_id);
	return 0;
}

/* The whole command line into c, a and cli: options, their checks, the arms. */
static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct sbrun_config *c,
		      struct sbrun_args *a, struct sbrun_cli *cli)
{
	void *const args[OPT_TABLES_MAX] = { a, a, cli };
	int rc;

	sbrun_args_init(c, a, cmd_switchback_entry.name, argc, argv);
	*cli = (struct sbrun_cli){ .progress = CMD_PROGRESS_AUTO };
	if ((rc = cmd_parse_sets(ctx, &cmd_switchback_entry, argc, argv, args, NULL)) < 0 ||
	    (rc = sbrun_args_finish(c, a, &ctx->err)) < 0)
		return rc;
	return sbrun_arms_resolve(&ctx->host, c, a, &ctx->err);
}

static int switchback_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct sbrun_config *c = calloc(1, sizeof(*c));
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_result *r = calloc(1, sizeof(*r));
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct sbrun_args a;
	struct sbrun_cli cli;
	int rc = 0;

	if (!c || !p || !r || !s) {
		rc = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = parse_args(ctx, argc, argv, c, &a, &cli)) < 0 ||
	    (rc = sbrun_plan(&ctx->host, c, p, &ctx->err)) < 0)
		goto out;
	if ((rc = sbrun_cli_plan_only(ctx, c, p, cli.dry, "switchback changes")) != 0) {
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	rc = sbrun_cli_execute(ctx, "switchback", c, p, &cli, &(struct sbrun_ran){ r, s });
	if (r->run_id > 0 && s->w) {
		int r2 = print_result(ctx, r, s);

		if (rc == 0)
			rc = r2;
	}
	if (rc == 0 && !strcmp(r->status, "stopped") && ctx->json) {
		/* the document says so (status, stop_reason): exit 1 without an error document after it */
		sbrun_cli_say_stopped("switchback", r->stop_reason);
		rc = ST_EXIT_RUNTIME;
	} else if (rc == 0 && !strcmp(r->status, "stopped"))
		rc = err_set_exit(&ctx->err, -ECANCELED, ST_EXIT_RUNTIME, "switchback stopped early: %s; the settings were restored",
				  r->stop_reason);
	else if (rc > 128)
		fprintf(stderr, "swaptune: switchback stopped by signal %d; the settings were restored (%d change%s undone)\n",
			rc - 128, r->restored, r->restored == 1 ? "" : "s");
out:
	if (r)
		sbrun_result_free(r);
	if (s)
		sbrun_stored_free(s);
	free(c);
	free(p);
	free(r);
	free(s);
	return rc;
}

const struct cmd_entry cmd_switchback_entry = {
	.name = "switchback",
	.summary = "A/B-test readahead settings on the host's own running workload, window by window",
	.usage = "[--arms LIST] [--arm NAME:KEY=VAL,...] [--window DUR] [--washout DUR] [--blocks N] "
		 "[--metric NAME] [--metric-cmd CMD] [--metric-file PATH] [--metric-prom URL NAME] "
		 "[--cgroup PATH] [--yes] [--dry-run] [OPTIONS]",
	.group = CMD_GROUP_MEASURE,
	.opts = { sbrun_arm_opts, sbrun_design_opts, sb_run_opts },
	.flags = CMD_NEEDS_ROOT | CMD_WRAP_HUMAN,
	.exec = switchback_exec,
};
