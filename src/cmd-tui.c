/*
 * cmd-tui.c - `swaptune tui`: the interactive screen (tui/).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/tui.h"

/* In the order of struct tui_opts.start_panel. */
static const char *const panel_names[] = {
	"status", "live", "runs", "advice", "probe", "history", "cgroups", "switchback", NULL,
};

struct tui_args {
	long long interval_ns;
	const char *cgroup;
	int panel;
	int frames;
};

static const struct opt_spec tui_opts[] = {
	OPT_DURATION("interval", 0, "refresh period of the live panel (default 1s, at least 100ms)",
		     struct tui_args, interval_ns, 100000000LL, 0),
	OPT_STRING("cgroup", 0, "PATH", "also sample this memory cgroup (relative to the memory "
		   "controller root)", struct tui_args, cgroup, "a cgroup path", OPT_COMPLETE_NONE),
	OPT_CHOICE("panel", "NAME", "start on status, live, runs, advice, probe, history, cgroups or switchback",
		   struct tui_args, panel, panel_names),
	OPT_INT("frames", "N", "quit after N screen refreshes (for scripted tests)",
		struct tui_args, frames, 1, INT_MAX),
	{ NULL },
};

/* the screen owns the terminal: repair's lines (a change path repairs first) go to syslog */
static void repair_to_syslog(const char *line, void *arg)
{
	(void)arg;
	syslog(LOG_NOTICE, "swaptune tui: %s", line);
}

static int tui_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tui_args a = { .interval_ns = 1000000000LL };
	struct tui_opts o;
	int r;

	if ((r = cmd_parse(ctx, &cmd_tui_entry, argc, argv, &a, NULL)) < 0)
		return r;
	if (ctx->json)
		return cmd_usage_error(ctx, &cmd_tui_entry, "--json makes no sense for the screen; use status or sample --json");
	o = (struct tui_opts){ .interval_ns = (uint64_t)a.interval_ns, .cgroup = a.cgroup,
			       .start_panel = a.panel, .max_frames = a.frames };
	change_repair_report(repair_to_syslog, NULL);
	return tui_run(&ctx->host, &ctx->store, &o, &ctx->err);
}

const struct cmd_entry cmd_tui_entry = {
	.name = "tui",
	.summary = "interactive screen: status, live rates, stored runs, advice; probe from the keyboard",
	.usage = "[--interval DUR] [--cgroup PATH] [--panel NAME]",
	.group = CMD_GROUP_INSPECT,
	.opts = { tui_opts },
	.exec = tui_exec,
};
