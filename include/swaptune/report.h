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

enum report_section_type { REPORT_FACTS, REPORT_TABLE, REPORT_TEXT, REPORT_CHART };

struct report_cell {
	char *text;		/* as shown */
	bool is_num;		/* JSON gets num instead of text */
	double num;
};

enum report_chart_kind { REPORT_CHART_BARS, REPORT_CHART_SERIES };

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
	size_t n_series;
	struct report_series *series;
	bool has_marker;	/* a vertical line at marker_x */
	double marker_x;
	char *marker_label;
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
/* A number: shown with %.4g (or "-" when not finite, JSON null). */
void report_cell_num(struct report_section *s, double v);
void report_bar_add(struct report_section *s, const char *name, double mean, double lo,
		    double hi, const double *pts, size_t n_pts, bool highlight);
void report_series_add(struct report_section *s, const char *name, const double *x,
		       const double *y, size_t n);

/* "1.234e+06" style kept short: %.4g, "-" for NAN. */
const char *report_num(double v, char *buf, size_t len);

/* ---- builders ---- */

/* One probe run (advice_load_run + the raw trials). h may be NULL. */
int report_build_run(struct store *st, const struct host *h, int64_t run_id,
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

enum report_format { REPORT_TEXT_FMT, REPORT_MD, REPORT_JSON, REPORT_HTML };

/* "text", "md", "json", "html" -> format; -1 if unknown. */
int report_format_parse(const char *name);
/* The names in enum order, NULL-terminated (the --format choices). */
extern const char *const report_format_names[];

int report_render(FILE *f, const struct report *r, enum report_format fmt);
void report_render_text(FILE *f, const struct report *r);
void report_render_md(FILE *f, const struct report *r);
int report_render_json(FILE *f, const struct report *r);
void report_render_html(FILE *f, const struct report *r);

#endif
