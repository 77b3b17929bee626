/*
 * tui-internal.h - the panel "class" shared by the tui/ panels (htop's model: each
 * panel is a small ops struct; tui.c owns the screen, tabs and the loop).
 */
#ifndef SWAPTUNE_TUI_INTERNAL_H
#define SWAPTUNE_TUI_INTERNAL_H

#include <ncurses.h>
#include <stdbool.h>

#include "swaptune/tui.h"

struct tui_ctx {
	const struct host *h;
	struct store *st;
	const struct tui_opts *o;
	bool utf8;		/* terminal can draw block characters */
	char status[256];	/* bottom line message */
};

struct tui_panel {
	const char *title;
	/* Called once; returns private state or NULL (panel shows its error). */
	void *(*open)(struct tui_ctx *c);
	/* Refresh data (called every interval while the panel is visible or live). */
	void (*update)(struct tui_ctx *c, void *state);
	/* Draw into w (already erased), rows x cols. */
	void (*draw)(struct tui_ctx *c, void *state, WINDOW *w, int rows, int cols);
	/* A key the loop did not handle; true if used. */
	bool (*key)(struct tui_ctx *c, void *state, int ch);
	void (*close)(void *state);
	bool always_update;	/* keep sampling while hidden (live history) */
};

extern const struct tui_panel tui_panel_status;
extern const struct tui_panel tui_panel_live;
extern const struct tui_panel tui_panel_runs;
extern const struct tui_panel tui_panel_advice;

/* Helpers for panels. */
void tui_print_clipped(WINDOW *w, int row, int col, int cols, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
