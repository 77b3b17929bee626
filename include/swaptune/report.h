/*
 * report.h - `swaptune report`: before/after evidence for a ticket.
 *
 * One input model, several renderers. A struct report is an ordered list
 * of sections, each one of: facts (key -> value, "not recorded" when the
 * store lacks it), a table (named columns, cells that carry their shown
 * text and, for numbers, the value), text lines, or a chart (per-arm bars
 * with CI whiskers and trials as dots, or time series with a marked
 * change). Builders fill a report from the store (report-probe.c: one
 * probe run; report-compare.c: two recordings, or the recordings around a
 * change); renderers (report-render.c: text, md, json; report-html.c:
 * html with inline SVG) print it. Renderers never read the store, and the
 * output has no generation timestamp so it is reproducible.
 *
 * Every report leads with the answer: a "summary" section first (the
 * verdict, or what changed and the largest effects beyond noise), then the
 * charts of what changed, then the evidence tables, then the facts.
 * Numbers are shown in fmt.h's one style; text lines, notes and tables are
 * kept within REPORT_TEXT_WIDTH columns in the text format (a wider table
 * is split, its key columns repeated; a long line wraps; a command wraps
 * with a backslash so that it still pastes).
 */
#ifndef SWAPTUNE_REPORT_H
#define SWAPTUNE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/store.h"

#define REPORT_SCHEMA "swaptune.report/1"
#define REPORT_NOT_RECORDED "not recorded"
#define REPORT_TEXT_WIDTH 100

enum report_section_type { REPORT_FACTS, REPORT_TABLE, REPORT_TEXT, REPORT_CHART };

struct report_cell {
	char *text;		/* as shown */
	bool is_num;		/* JSON gets num instead of text */
	double num;
};

enum report_chart_kind { REPORT_CHART_BARS, REPORT_CHART_SERIES, REPORT_CHART_WINDOWS };

/* One window of a switchback's timeline: [x0, x1) in seconds, counted from xc. */
struct report_window {
	double x0, xc, x1, y;	/* y: the window's value, NAN when it failed */
	int arm;		/* index into the chart's arm_names */
	bool failed;
};

struct report_bar {		/* one arm */
	char *name;
	double mean, lo, hi;	/* lo/hi: CI of the mean; NAN if none */
	size_t n_pts;
	double *pts;		/* individual trials */
	bool highlight;		/* the baseline */
};

struct report_series {
	char *name;
	size_t n;
	double *x, *y;
};

struct report_chart {
	enum report_chart_kind kind;
	char *y_unit, *x_unit;
	size_t n_bars;
	struct report_bar *bars;
	char *highlight_name;	/* what a highlighted (grey) bar is; NULL = "baseline" */
	char *bar_name;		/* what a bar is in the legend; NULL = "mean" */
	char *whisker_name;	/* what its whisker is; NULL = "95 % CI of the mean" */
	size_t n_series;
	struct report_series *series;
	bool has_marker;	/* a vertical line at marker_x */
	double marker_x;
	char *marker_label;
	size_t n_windows;	/* REPORT_CHART_WINDOWS (a switchback's timeline) */
	struct report_window *windows;
	size_t n_arm_names;
	char **arm_names;
};

struct report_section {
	enum report_section_type type;
	char *id;		/* stable, for JSON and HTML anchors */
	char *title;
	char *note;		/* NULL or a sentence under the title */
	size_t n_facts;
	char **keys, **values;
	size_t n_cols, n_rows;
	char **cols;
	struct report_cell *cells;	/* n_rows x n_cols */
	size_t n_filled;		/* cells given so far */
	bool *marked;			/* n_rows: the row is highlighted (beyond noise) */
	size_t n_key_cols;		/* columns repeated when the text splits a wide table (>= 1) */
	size_t n_lines;
	char **lines;
	struct report_chart chart;
};

struct report {
	char *kind;		/* "run", "compare", "change" */
	char *title;
	size_t n;
	struct report_section **sec;
	/*
	 * JSON object members the JSON rendering adds at the top level (the
	 * identity of the host writing the report: "host":{...},
	 * "swaptune_version":"..."), or NULL. Owned, freed by report_free().
	 */
	char *identity;
};

/* ---- building (report.c); every function aborts only on out of memory ---- */

struct report *report_new(const char *kind, const char *title);
void report_free(struct report *r);

struct report_section *report_add(struct report *r, enum report_section_type t,
				  const char *id, const char *title);
void report_note(struct report_section *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_fact(struct report_section *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A fact whose value may be missing (NULL or ""): "not recorded". */
void report_fact_opt(struct report_section *s, const char *key, const char *value);
void report_line(struct report_section *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Columns of a table; then rows cell by cell, left to right. */
void report_cols(struct report_section *s, size_t n, const char *const *names);
void report_cell(struct report_section *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A number: shown by fmt_num() (or "-" when not finite, JSON null). */
void report_cell_num(struct report_section *s, double v);
/* A p-value: shown by fmt_p() ("<0.001", "0.56"), JSON the number (null when not finite). */
void report_cell_p(struct report_section *s, double p);
/* A signed percentage as text in the one style: "+5.0 %" ("-" when not finite). */
void report_cell_pct(struct report_section *s, double v);
/* Highlight the row being filled (its first cell given): a change beyond noise. */
void report_row_mark(struct report_section *s);
/* The first n columns name a row: the text repeats them when it splits a wide table. */
void report_key_cols(struct report_section *s, size_t n);
/* An arm's bar as given to report_bar_add(), which copies its name and points. */
struct report_bar_in {
	const char *name;
	double mean, lo, hi;	/* lo/hi: CI of the mean; NAN if none */
	const double *pts;	/* individual trials (may be NULL when n_pts is 0) */
	size_t n_pts;
	bool highlight;		/* the baseline */
};
void report_bar_add(struct report_section *s, const struct report_bar_in *in);
void report_series_add(struct report_section *s, const char *name, const double *x,
		       const double *y, size_t n);

/*
 * A switchback's timeline (REPORT_CHART_WINDOWS): its arms, then its
 * windows in time order. The JSON renderer gives it as data, the HTML one
 * draws it.
 */
void report_window_arm(struct report_section *s, const char *name);
void report_window_add(struct report_section *s, const struct report_window *w);

/* A number as the tables show it: fmt_num() (never an exponent), "-" for NAN. */
const char *report_num(double v, char *buf, size_t len);
/*
 * Put the sections whose ids are listed in that order at the front (ids
 * not present are skipped); the others follow in the order they were
 * added. Builders add sections as they compute them, then lead with the
 * answer.
 */
void report_order(struct report *r, const char *const *ids, size_t n);
/*
 * The facts of a JSON object given by a store row (a run's params): one
 * key/value row per leaf, never the raw JSON: "source run  6",
 * "settings  page-cluster=0" (an object of scalars on one row), times
 * ("*_unix") in UTC, "*_bytes" as sizes, numbers by fmt_num(). Keys in
 * skip (top level) are left out. Anything but an object (doc as
 * struct run_params decoded it) becomes one fact named key: the text.
 */
void report_facts_json(struct report_section *s, const char *key, const cJSON *doc,
		       const char *text, const char *const *skip, size_t n_skip);

/* ---- builders ---- */

/*
 * The kernel a run ran on (report-kernel.c): a facts section "kernel" from
 * its stored fingerprint (fingerprint.h), read back as strictly as an
 * import; "none stored" for a run made before swaptune stored one, "n/a"
 * with the reason for one that does not read back. Every builder adds it.
 */
void report_kernel_facts(struct report *rep, const struct store_run *ri);
/* Two runs compared: each one's kernel, and the differences that can change advice. */
void report_kernel_compare(struct report *rep, const struct store_run *before,
			   const struct store_run *after);

/* One probe run (advice_load_run + the raw trials). h may be NULL. */
int report_build_run(struct store *st, const struct host *h, int64_t run_id,
		     struct report **out, struct st_err *e);
/* One switchback run: design, verdict, timeline, windows (report-switchback.c). */
int report_build_switchback(struct store *st, const struct host *h, int64_t run_id,
			    struct report **out, struct st_err *e);
/* Two runs side by side: two sample recordings, or two probe runs. */
int report_build_compare(struct store *st, int64_t before, int64_t after,
			 struct report **out, struct st_err *e);
/* Two probe runs, arms matched by name (report_build_compare calls it for probes). */
int report_build_probes(struct store *st, int64_t before, int64_t after, struct report **out,
			struct st_err *e);
/* An apply run: its settings diff and the recordings around it. */
int report_build_change(struct store *st, int64_t apply_run, struct report **out,
			struct st_err *e);

/* ---- renderers ---- */

/* The formats and the dispatch to their renderers (report-format.c). */
enum report_format { REPORT_TEXT_FMT, REPORT_MD, REPORT_JSON, REPORT_HTML };

/* "text", "md", "json", "html" -> format; -1 if unknown. */
int report_format_parse(const char *name);
/* The names in enum order, NULL-terminated (the --format choices). */
extern const char *const report_format_names[];

int report_render(FILE *f, const struct report *r, enum report_format fmt);
/*
 * For renderers: which columns of a table are shown right-aligned (every
 * cell a number, "-", or text that reads as one such as "+5.0 %", and at
 * least one not "-"). malloc'd, n_cols entries; aborts when out of memory.
 */
bool *report_numeric_cols(const struct report_section *s);
void report_render_text(FILE *f, const struct report *r);
void report_render_md(FILE *f, const struct report *r);
int report_render_json(FILE *f, const struct report *r);
void report_render_html(FILE *f, const struct report *r);

#endif
