/*
 * cmd-tui.c - `swaptune tui`: the interactive screen (tui/).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/cmd.h"
#include "swaptune/tui.h"

static const struct option tui_longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "panel", required_argument, NULL, 'p' },
	{ "frames", required_argument, NULL, 'f' },
	{ 0, 0, 0, 0 },
};

static int tui_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tui_opts o = { .interval_ns = 1000000000ull };
	static const char *const names[] = { "status", "live", "runs", "advice", "probe", "history", "cgroups", "switchback" };
	long long ns;
	int r;

	while ((r = cmd_getopt(ctx, &cmd_tui_entry, argc, argv, "", tui_longopts)) != -1) {
		switch (r) {
		case 'i':
			if (fmt_parse_duration(optarg, &ns) < 0 || ns < 100000000LL)
				return cmd_usage_error(ctx, &cmd_tui_entry,
						       "--interval \"%s\": give a duration of at least 100ms", optarg);
			o.interval_ns = (uint64_t)ns;
			break;
		case 'c':
			o.cgroup = optarg;
			break;
		case 'p':
			o.start_panel = -1;
			for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
				if (!strcmp(optarg, names[i]))
					o.start_panel = i;
			if (o.start_panel < 0)
				return cmd_usage_error(ctx, &cmd_tui_entry,
						       "--panel \"%s\": use status, live, runs, advice, probe, history, cgroups or switchback", optarg);
			break;
		case 'f':
			o.max_frames = atoi(optarg);
			if (o.max_frames <= 0)
				return cmd_usage_error(ctx, &cmd_tui_entry, "--frames needs a positive number");
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_tui_entry, "unexpected argument \"%s\"", argv[optind]);
	if (ctx->json)
		return cmd_usage_error(ctx, &cmd_tui_entry, "--json makes no sense for the screen; use status or sample --json");
	return tui_run(&ctx->host, &ctx->store, &o, &ctx->err);
}

static const struct cmd_option tui_options[] = {
	{ "--interval DUR", "refresh period of the live panel (default 1s, at least 100ms)" },
	{ "--cgroup PATH", "also sample this memory cgroup (relative to the memory controller root)" },
	{ "--panel NAME", "start on status, live, runs, advice, probe, history, cgroups or switchback" },
	{ "--frames N", "quit after N screen refreshes (for scripted tests)" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_tui_entry = {
	.name = "tui",
	.summary = "interactive screen: status, live rates, stored runs, advice; probe from the keyboard",
	.usage = "[--interval DUR] [--cgroup PATH] [--panel NAME]",
	.options = tui_options,
	.exec = tui_exec,
};
