/*
 * tui.h - the ncurses interface (`swaptune tui`): panels over the same
 * module APIs the commands use — host facts, the live sampler, the store's
 * runs, the advisor's rules — and a probe form that runs the probe engine
 * and shows its verdict. The screen code never reads a kernel file.
 */
#ifndef SWAPTUNE_TUI_H
#define SWAPTUNE_TUI_H

#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/store.h"

struct tui_opts {
	uint64_t interval_ns;	/* live panel refresh, default 1 s */
	const char *cgroup;	/* live panel: also sample this memory cgroup */
	int start_panel;	/* 0 status, 1 live, 2 runs, 3 advice, 4 probe, 5 history, 6 cgroups, 7 switchback */
	int max_frames;		/* stop after this many refreshes (0 = until q); for tests */
};

/* Runs until the user quits. Needs a terminal (-ENOTTY otherwise). */
int tui_run(const struct host *h, struct store *st, const struct tui_opts *o,
	    struct st_err *e);

#endif
