/*
 * tui-internal.h - the panel "class" shared by the tui/ panels (htop's model: each
 * panel is a small ops struct; tui.c owns the screen, tabs, footer, help and
 * the loop) and the drawing helpers of view.c.
 */
#ifndef SWAPTUNE_TUI_INTERNAL_H
#define SWAPTUNE_TUI_INTERNAL_H

#include <ncurses.h>
#include <stdbool.h>
#include <stddef.h>

#include "swaptune/tui.h"

struct tui_ctx {
	const struct host *h;
	struct store *st;
	const struct tui_opts *o;
	bool utf8;		/* terminal can draw block characters */
	bool color;		/* colours in use (off: NO_COLOR, TERM without colours) */
	bool root;		/* may change the live host (euid 0 and no sysroot) */
	bool probe_busy;	/* a probe owns the store connection: others do not query it */
	bool can_change;	/* may apply and roll back (root on the live host, a writable sysroot) */
	char change_why[160];	/* why not, when !can_change */
	int64_t apply_req;	/* a panel asks for the apply screen on this probe run */
	char status[256];	/* bottom line message */
	/* an apply awaiting its confirmation, for the header (looked up at most once a second) */
	int64_t pend_run;	/* 0: none */
	double pend_deadline;	/* Unix time, 0 unknown */
	uint64_t pend_looked_ns;	/* monotonic time of the last look, 0 never */
};

/* One key of the footer / help overlay: "F5" "probe". */
struct tui_key_help {
	const char *key;
	const char *what;
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
	/* Keys this panel adds to the footer and help, ending with { NULL }; may be NULL. */
	const struct tui_key_help *(*keys)(struct tui_ctx *c, void *state);
	/* True while the panel takes every printable key (a form field being edited). */
	bool (*grabs_keys)(void *state);
	/* True while the panel wants frames faster than the interval; may be NULL. */
	bool (*busy)(void *state);
	bool always_update;	/* keep sampling while hidden (live history) */
};

extern const struct tui_panel tui_panel_status;
extern const struct tui_panel tui_panel_live;
extern const struct tui_panel tui_panel_runs;
extern const struct tui_panel tui_panel_advice;
extern const struct tui_panel tui_panel_probe;
extern const struct tui_panel tui_panel_history;
extern const struct tui_panel tui_panel_cgroups;
extern const struct tui_panel tui_panel_switchback;

/*
 * Whether the change keys (apply, confirm, rollback) may be used; false
 * with c->status set to the reason (c->change_why) when not.
 */
bool tui_change_allowed(struct tui_ctx *c, const char *what);

/*
 * ---- apply.c: the apply screen (verdict -> apply -> confirm), an overlay
 * panel over the others. open() shows probe run c->apply_req (its verdict,
 * the diff, the refusal if any; NULL when it cannot); update() is called
 * every loop turn (it polls a pending confirm-within once a second); key()
 * returns false when the screen closes (then close() it); busy() is true
 * while a confirm-within countdown is shown (the loop redraws faster).
 */
extern const struct tui_panel tui_overlay_apply;

/* ---- view.c: drawing helpers ---- */

enum tui_style {
	TS_NORMAL = 0,
	TS_TITLE,	/* headings */
	TS_GOOD,	/* a change worth making, done */
	TS_WARN,	/* notes, needs root */
	TS_BAD,		/* errors, OOM */
	TS_DIM,		/* disabled keys, hints */
	TS_BAR,		/* tab bar and footer */
	TS_KEY,		/* a key in the footer */
	TS_COUNT
};

/* Colours once after initscr(): off with NO_COLOR set or a terminal without them. */
void tui_style_init(struct tui_ctx *c);
/* The attributes of a style: colour pairs, or bold/reverse/dim on monochrome. */
attr_t tui_style(const struct tui_ctx *c, enum tui_style s);

void tui_print_clipped(WINDOW *w, int row, int col, int cols, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Like tui_print_clipped, right-aligned so that the text ends before column end. */
void tui_print_right(WINDOW *w, int row, int end, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "656 MiB", "1.2 GiB", "512 B": binary units, 3 significant digits. */
const char *tui_fmt_bytes(double b, char *buf, size_t len);
/* "12.35k", "456", "1.200M": a count or rate without unit, in fmt_num()'s style. */
const char *tui_fmt_count(double v, char *buf, size_t len);
/* "42 s", "3 min 05 s", "?" when negative. */
const char *tui_fmt_secs(double s, char *buf, size_t len);

/*
 * A scrollable text view: logical lines, wrapped at draw time to the
 * width (continuations indented by two more spaces than the line's own
 * indent), scrolled with up/down/PgUp/PgDn/Home/End.
 */
struct tui_text {
	char **lines;
	unsigned char *style;	/* enum tui_style per line */
	int n, cap;
	int top;		/* first wrapped row shown */
	int last_rows, last_total;
	/*
	 * The lines are a table (sample --replay's): each is one row from
	 * column 0 to the window's full width, clipped rather than wrapped,
	 * and no "more" marker covers its last column (the caller says where
	 * the view is: tui_text_where()).
	 */
	bool table;
};

void tui_text_clear(struct tui_text *t);
void tui_text_free(struct tui_text *t);
void tui_text_add(struct tui_text *t, enum tui_style s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Every line of a multi-line string (e.g. captured output). */
void tui_text_add_block(struct tui_text *t, enum tui_style s, const char *text);
/* Draw rows [row, row+rows) of w; a "more" marker when scrolled or clipped. */
void tui_text_draw(const struct tui_ctx *c, struct tui_text *t, WINDOW *w, int row,
		   int rows, int cols);
/* "rows 21-40 of 600" as last drawn, into buf ("" when all of it fits). */
const char *tui_text_where(const struct tui_text *t, char *buf, size_t len);
bool tui_text_key(struct tui_text *t, int ch);

/*
 * A one-line edit of buf (len bytes): printable keys, Backspace, ^U.
 * 1 on Enter, -1 on Esc, 0 otherwise.
 */
int tui_line_key(char *buf, size_t len, int ch);

/*
 * The readable form of a JSON object the store keeps: one line per leaf,
 * "key  value", nested objects as indented headings, arrays of scalars
 * joined; numbers with "bytes" in the key as sizes, "_unix" as UTC times,
 * "_s" as durations. Text that is not JSON says so in one line.
 */
void tui_text_add_json(struct tui_text *t, const char *json);
/* The same of a document parsed already (a run's params: struct run_params.doc); NULL: not JSON. */
void tui_text_add_doc(struct tui_text *t, const cJSON *doc);

/*
 * panel-history.c: the text report of run id (a probe: report --run, an
 * apply: report --change) written to path by host_user_file_replace(), as
 * report -o writes it; -errno with e set.
 */
int tui_write_report(struct tui_ctx *c, int64_t id, const char *kind, const char *path,
		     struct st_err *e);

/* ---- list.c: search and sort in lists ---- */

struct tui_filter {
	char text[64];		/* part of a row's text, any case; "" matches every row */
	bool editing;		/* "/" typed: the keys go to text until Enter or Esc */
};

/* A key for the filter: "/" starts typing, then line keys; true when used. */
bool tui_filter_key(struct tui_filter *f, int ch);
/* Whether a row whose text is s is shown. */
bool tui_filter_match(const struct tui_filter *f, const char *s);
/* What a list shows under its filter line: how many of how many, sorted by what. */
struct tui_list_view {
	int shown, total;
	const char *sort;	/* the sort key's name */
	bool reverse;		/* S: the sort reversed */
};
/* The line under a list: the filter being typed, or how many rows and the sort key. */
void tui_filter_draw(const struct tui_ctx *c, const struct tui_filter *f, WINDOW *w, int row, int cols,
		     const struct tui_list_view *v);

/* ---- verdict.c: a stored probe run, judged as `swaptune recommend --run` does ---- */

/*
 * The verdict on probe run run_id into t, in the words of `recommend`
 * (advice_verdict_print()). Negative with e set when the run cannot be
 * loaded or judged. The store must not be busy with a probe.
 */
int tui_verdict_text(struct tui_ctx *c, int64_t run_id, struct tui_text *t, char *label,
		     size_t label_len, struct st_err *e);
/*
 * The same judgement's verdict in a few words, as its "Verdict:" line says
 * it ("CHANGE to pc0", "KEEP pc3", "INCONCLUSIVE"): what a list shows beside
 * the text above (label may be NULL there). The store must not be busy.
 */
int tui_verdict_label(struct tui_ctx *c, int64_t run_id, char *label, size_t label_len,
		      struct st_err *e);
/*
 * The style of a line of a verdict's text, probe or switchback: its
 * "Verdict:" line good for a change, a title otherwise; other lines s.
 */
enum tui_style tui_verdict_line_style(const char *line, enum tui_style s);
/* A switchback run's verdict text (sbrun_verdict_print()) into t, styled as a probe's. */
void tui_verdict_add_block(struct tui_text *t, const char *text);

/*
 * For a probe run still running: trials stored so far and planned (from its
 * params: arms x (rounds + warm-up)). -ENOENT when unknown.
 */
int tui_probe_run_counts(struct tui_ctx *c, int64_t run_id, unsigned *done, unsigned *planned,
			 struct st_err *e);

#endif
