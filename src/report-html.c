/*
 * report-html.c - the report as one self-contained HTML file: inline CSS,
 * inline SVG charts drawn with svg.c, no scripts, no network. Every piece
 * of text from the store is escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/report.h"
#include "swaptune/svg.h"

#define CHART_W 720
#define BLUE "#3b6ea8"
#define ORANGE "#d9822b"
#define GREY "#8a94a0"
/* the switchback timeline */
#define TL_W 1040
#define TL_H 300

static const char *const arm_colours[] = { "#3b6ea8", "#d9822b", "#4f8a3c", "#8c4f9a" };

/*
 * Every column of a table is in view from 800 px up (tests/t0601 measures
 * it): cells wrap at blanks, a header also after each '_' (html_table puts
 * a <wbr> there), and below 900 px the page's margins, the type and the
 * cell padding shrink. A table still too wide for a narrower window scrolls
 * inside its box instead of being clipped: the box shows a shadow at an
 * edge while there is more to scroll to (the background-attachment
 * technique: no script), and the first column stays in view. Charts shrink
 * with the page.
 */
static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d232b;"
	"max-width:1100px;margin:24px auto;padding:0 20px;background:#fff}"
	"h1{font-size:22px;border-bottom:2px solid #3b6ea8;padding-bottom:6px}"
	"h2{font-size:17px;margin-top:28px;color:#24415f}"
	"p.note{color:#55606c;margin:2px 0 8px}"
	"table{border-collapse:collapse;margin:0;font-size:13px}"
	"th,td{border:1px solid #d5dae0;padding:3px 8px;text-align:left;vertical-align:top}"
	"th{background:#eef2f6}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
	"table.facts th{width:14em}table.facts td{overflow-wrap:anywhere}"
	"div.wide{overflow-x:auto;margin:6px 0;max-width:100%;"
	"background:linear-gradient(to right,#fff 30%,rgba(255,255,255,0)),"
	"linear-gradient(to right,rgba(255,255,255,0),#fff 70%) 100% 0,"
	"radial-gradient(farthest-side at 0 50%,rgba(0,0,0,.25),rgba(0,0,0,0)),"
	"radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.25),rgba(0,0,0,0)) 100% 0;"
	"background-repeat:no-repeat;background-size:40px 100%,40px 100%,14px 100%,14px 100%;"
	"background-attachment:local,local,scroll,scroll}"
	"div.wide tr>:first-child{position:sticky;left:0;background:#fff}"
	"div.wide tr>th:first-child{background:#eef2f6}"
	"div.wide tr.beyond>:first-child,tr.beyond td{background:#fff1c2}"
	"tr.beyond td{font-weight:600}"
	"p.legend{font-size:12px;color:#55606c;margin:2px 0 0}"
	"span.beyond{background:#fff1c2;padding:0 4px;font-weight:600}"
	"pre{background:#f4f6f8;border:1px solid #d5dae0;padding:8px;white-space:pre-wrap;"
	"overflow-wrap:anywhere}"
	"div.answer{border-left:5px solid #3b6ea8;background:#f2f6fb;padding:8px 14px;margin:8px 0}"
	"div.answer p{margin:4px 0}div.answer p.head{font-size:17px;font-weight:600}"
	"div.answer code{background:#fff;border:1px solid #d5dae0;padding:1px 4px;"
	"overflow-wrap:anywhere}"
	"svg.chart{display:block;margin:8px 0;background:#fff;max-width:100%;height:auto}"
	"svg .grid{stroke:#e3e7ec;stroke-width:1}svg .axis{stroke:#55606c;stroke-width:1}"
	"svg .tick{font-size:11px;fill:#55606c}svg .unit{font-size:11px;fill:#24415f;font-weight:600}"
	"svg .lbl{font-size:12px;fill:#1d232b}svg .mark{font-size:11px;fill:#b3261e}"
	"@media (max-width:900px){body{margin:12px auto;padding:0 6px}table{font-size:11.5px}"
	"th,td{padding:2px 3px}th{font-size:11px}}";

/* Escaped; a blank before % does not break the line ("+5.0 %" stays whole). */
static void esc(FILE *f, const char *s)
{
	const char *p;

	while (s && (p = strstr(s, " %"))) {
		char *run = strndup(s, (size_t)(p - s));

		if (!run)
			abort();
		svg_escape(f, run);
		free(run);
		fputs("&#160;", f);
		s = p + 1;
	}
	svg_escape(f, s);
}

/* esc(), with a line break allowed after each '_' (swap_ra_hit, psi_some_us). */
static void esc_breakable(FILE *f, const char *s)
{
	const char *p;

	while (s && (p = strchr(s, '_'))) {
		char *run = strndup(s, (size_t)(p - s) + 1);

		if (!run)
			abort();
		esc(f, run);
		free(run);
		fputs("<wbr>", f);
		s = p + 1;
	}
	esc(f, s);
}

static void chart_bars(FILE *f, const struct report_section *s)
{
	const struct report_chart *c = &s->chart;
	struct svg_plot p = { 70, 30, CHART_W - 90, 220, 0, 1, 0, 0 };
	double lo = 0, hi = 0, step, slot;
	int height = 300;

	for (size_t i = 0; i < c->n_bars; i++) {
		const struct report_bar *b = &c->bars[i];

		if (isfinite(b->mean))
			lo = fmin(lo, b->mean), hi = fmax(hi, b->mean);
		if (isfinite(b->hi))
			hi = fmax(hi, b->hi), lo = fmin(lo, b->lo);
		for (size_t k = 0; k < b->n_pts; k++)
			lo = fmin(lo, b->pts[k]), hi = fmax(hi, b->pts[k]);
	}
	step = svg_nice_range(&lo, &hi, 5);
	p.ymin = lo;
	p.ymax = hi;
	svg_open(f, CHART_W, height, s->title);
	svg_axes(f, &p, 0, step, NULL, c->y_unit);
	slot = p.w / (double)(c->n_bars ? c->n_bars : 1);
	for (size_t i = 0; i < c->n_bars; i++) {
		const struct report_bar *b = &c->bars[i];
		double cx = p.x0 + slot * ((double)i + 0.5), bw = fmin(slot * 0.5, 90);
		double y0 = svg_y(&p, fmax(lo, 0)), ym = svg_y(&p, isfinite(b->mean) ? b->mean : 0);

		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"%s\" fill-opacity=\"0.75\"/>\n", cx - bw / 2, fmin(y0, ym), bw,
			fabs(y0 - ym), b->highlight ? GREY : BLUE);
		if (isfinite(b->lo) && isfinite(b->hi)) {
			double yl = svg_y(&p, b->lo), yh = svg_y(&p, b->hi);

			fprintf(f, "<g class=\"whisker\" stroke=\"#1d232b\" stroke-width=\"1.5\">"
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
				cx, yl, cx, yh, cx - 8, yl, cx + 8, yl, cx - 8, yh, cx + 8, yh);
		}
		for (size_t k = 0; k < b->n_pts; k++) {
			/* deterministic spread so equal values stay visible */
			double dx = b->n_pts > 1 ? ((double)k / (double)(b->n_pts - 1) - 0.5) * bw * 0.6 : 0;

			fprintf(f, "<circle class=\"trial\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" "
				"stroke=\"#fff\" stroke-width=\"0.8\"/>\n", cx + dx, svg_y(&p, b->pts[k]), ORANGE);
		}
		svg_text(f, cx, p.y0 + p.h + 18, "middle", "lbl", b->name);
	}
	{
		/* only what the chart shows: a grey bar, trial dots */
		char grey[96];
		const char *bar = c->bar_name ? c->bar_name : "mean";
		const char *names[4], *cols[4];
		bool any_grey = false, any_pts = false;
		size_t k = 0;

		for (size_t i = 0; i < c->n_bars; i++) {
			any_grey |= c->bars[i].highlight;
			any_pts |= c->bars[i].n_pts > 0;
		}
		snprintf(grey, sizeof(grey), "%s, %s", bar, c->highlight_name ? c->highlight_name : "baseline");
		names[k] = bar, cols[k++] = BLUE;
		if (any_grey)
			names[k] = grey, cols[k++] = GREY;
		names[k] = c->whisker_name ? c->whisker_name : "95 % CI of the mean", cols[k++] = "#1d232b";
		if (any_pts)
			names[k] = "one trial", cols[k++] = ORANGE;
		svg_legend(f, p.x0, height - 12, names, cols, k);
	}
	svg_close(f);
}

static void chart_series(FILE *f, const struct report_section *s)
{
	static const char *const colours[] = { BLUE, ORANGE, "#4f8a3c", "#8c4f9a" };
	const struct report_chart *c = &s->chart;
	struct svg_plot p = { 70, 30, CHART_W - 90, 170, 0, 0, 0, 0 };
	double xlo = INFINITY, xhi = -INFINITY, ylo = 0, yhi = 0, xs, ys;
	const char *names[4];
	int height = 260;

	for (size_t i = 0; i < c->n_series; i++)
		for (size_t k = 0; k < c->series[i].n; k++) {
			xlo = fmin(xlo, c->series[i].x[k]);
			xhi = fmax(xhi, c->series[i].x[k]);
			if (isfinite(c->series[i].y[k]))
				ylo = fmin(ylo, c->series[i].y[k]), yhi = fmax(yhi, c->series[i].y[k]);
		}
	if (c->has_marker)
		xlo = fmin(xlo, c->marker_x), xhi = fmax(xhi, c->marker_x);
	xs = svg_nice_range(&xlo, &xhi, 8);
	ys = svg_nice_range(&ylo, &yhi, 4);
	p.xmin = xlo, p.xmax = xhi, p.ymin = ylo, p.ymax = yhi;
	svg_open(f, CHART_W, height, s->title);
	svg_axes(f, &p, xs, ys, c->x_unit, c->y_unit);
	for (size_t i = 0; i < c->n_series && i < 4; i++) {
		const struct report_series *v = &c->series[i];
		bool pen = false;

		names[i] = v->name;
		fprintf(f, "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" d=\"",
			colours[i]);
		for (size_t k = 0; k < v->n; k++) {
			if (!isfinite(v->y[k])) {
				pen = false;
				continue;
			}
			fprintf(f, "%s%.1f %.1f", pen ? " L" : " M", svg_x(&p, v->x[k]), svg_y(&p, v->y[k]));
			pen = true;
		}
		fputs("\"/>\n", f);
	}
	if (c->has_marker) {
		double x = svg_x(&p, c->marker_x);

		fprintf(f, "<line class=\"marker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#b3261e\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n", x, p.y0, x,
			p.y0 + p.h);
		svg_text(f, x + 4, p.y0 + 10, "start", "mark", c->marker_label ? c->marker_label : "change");
	}
	svg_legend(f, p.x0, height - 12, names, colours, c->n_series < 4 ? c->n_series : 4);
	svg_close(f);
}

/* ---- a switchback's timeline: every window coloured by arm ---- */

static void tl_range(const struct report_chart *c, struct svg_plot *p, double *xs, double *ys)
{
	double xlo = 0, xhi = 1, ylo = 0, yhi = 0;

	for (size_t i = 0; i < c->n_windows; i++) {
		xhi = fmax(xhi, c->windows[i].x1 / 60.0);
		if (isfinite(c->windows[i].y))
			yhi = fmax(yhi, c->windows[i].y);
	}
	if (!(yhi > 0))
		yhi = 1;
	*xs = svg_nice_range(&xlo, &xhi, 10);
	*ys = svg_nice_range(&ylo, &yhi, 5);
	p->xmin = xlo;
	p->xmax = xhi;
	p->ymin = ylo;
	p->ymax = yhi;
}

static void tl_window(FILE *f, const struct svg_plot *p, const struct report_window *w)
{
	const char *col = arm_colours[w->arm >= 0 && w->arm < 4 ? w->arm : 0];
	double x0 = svg_x(p, w->x0 / 60), xc = svg_x(p, w->xc / 60), x1 = svg_x(p, w->x1 / 60);
	double base = svg_y(p, 0), top = isfinite(w->y) ? svg_y(p, w->y) : p->y0 + 4;

	/* the arm on the host: a band under the axis title, the whole window */
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"8\" fill=\"%s\"/>\n", x0,
		base + 40, fmax(x1 - x0 - 0.5, 0.5), col);
	if (w->failed) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3d6d4\" "
			"stroke=\"#b3261e\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>\n", x0, p->y0,
			fmax(x1 - x0 - 0.5, 0.5), base - p->y0);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"mark\">&#x2717;</text>\n",
			(x0 + x1) / 2, p->y0 + 12);
		return;
	}
	/* the washout (not counted) lighter, the counted part solid, the value as its height */
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.25\"/>\n",
		x0, top, fmax(xc - x0, 0), base - top, col);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", xc, top,
		fmax(x1 - xc - 0.5, 0.5), base - top, col);
}

static void chart_windows(FILE *f, const struct report_section *s)
{
	const struct report_chart *c = &s->chart;
	struct svg_plot p = { 70, 30, TL_W - 90, TL_H - 110, 0, 1, 0, 1 };
	const char *names[6], *cols[6];
	double xs, ys;
	size_t n = 0;

	tl_range(c, &p, &xs, &ys);
	svg_open(f, TL_W, TL_H, s->title);
	svg_axes(f, &p, xs, ys, "minutes from the start", c->y_unit);
	for (size_t i = 0; i < c->n_windows; i++)
		tl_window(f, &p, &c->windows[i]);
	svg_text(f, p.x0 - 6, svg_y(&p, 0) + 48, "end", "tick", "arm on");
	for (size_t a = 0; a < c->n_arm_names && n < 4; a++) {
		names[n] = c->arm_names[a];
		cols[n++] = arm_colours[a];
	}
	names[n] = "washout (lighter: not counted)";
	cols[n++] = "#c9d6e6";
	names[n] = "failed window";
	cols[n++] = "#f3d6d4";
	svg_legend(f, p.x0, TL_H - 12, names, cols, n);
	svg_close(f);
}

static void html_table(FILE *f, const struct report_section *s)
{
	bool *num = report_numeric_cols(s);
	bool marks = false;

	fputs("<div class=\"wide\"><table><tr>", f);
	for (size_t c = 0; c < s->n_cols; c++) {
		fputs(num[c] ? "<th class=\"num\">" : "<th>", f);
		esc_breakable(f, s->cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t r = 0; r < s->n_rows; r++) {
		bool mark = s->marked && s->marked[r];

		marks |= mark;
		fputs(mark ? "<tr class=\"beyond\">" : "<tr>", f);
		for (size_t c = 0; c < s->n_cols; c++) {
			const struct report_cell *x = &s->cells[r * s->n_cols + c];

			fputs(num[c] ? "<td class=\"num\">" : "<td>", f);
			esc(f, x->text ? x->text : "");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
	if (marks)
		fputs("<p class=\"legend\"><span class=\"beyond\">shaded rows</span>: beyond noise</p>\n", f);
	free(num);
}

static bool is_command(const char *line)
{
	return !strncmp(line, "swaptune ", 9) || !strncmp(line, "sudo swaptune ", 14);
}

/* The answer first: the headline large, the other lines below it, commands as code. */
static void html_answer(FILE *f, const struct report_section *s)
{
	fputs("<div class=\"answer\">\n", f);
	for (size_t k = 0; k < s->n_lines; k++) {
		bool cmd = is_command(s->lines[k]);

		fputs(k == 0 ? "<p class=\"head\">" : "<p>", f);
		fputs(cmd ? "<code>" : "", f);
		esc(f, s->lines[k]);
		fputs(cmd ? "</code></p>\n" : "</p>\n", f);
	}
	fputs("</div>\n", f);
}

void report_render_html(FILE *f, const struct report *r)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\"><title>", f);
	esc(f, r->title);
	fprintf(f, "</title><style>%s</style></head>\n<body>\n<h1>", css);
	esc(f, r->title);
	fputs("</h1>\n", f);
	for (size_t i = 0; i < r->n; i++) {
		const struct report_section *s = r->sec[i];

		fputs("<section id=\"", f);
		esc(f, s->id);
		fputs("\"><h2>", f);
		esc(f, s->title);
		fputs("</h2>\n", f);
		if (s->note) {
			fputs("<p class=\"note\">", f);
			esc(f, s->note);
			fputs("</p>\n", f);
		}
		switch (s->type) {
		case REPORT_FACTS:
			fputs("<table class=\"facts\">\n", f);
			for (size_t k = 0; k < s->n_facts; k++) {
				fputs("<tr><th>", f);
				esc(f, s->keys[k]);
				fputs("</th><td>", f);
				esc(f, s->values[k]);
				fputs("</td></tr>\n", f);
			}
			fputs("</table>\n", f);
			break;
		case REPORT_TABLE:
			if (s->n_rows)
				html_table(f, s);
			else
				fputs("<p>(none)</p>\n", f);
			break;
		case REPORT_TEXT:
			if (!strcmp(s->id, "summary")) {
				html_answer(f, s);
				break;
			}
			fputs("<pre>", f);
			for (size_t k = 0; k < s->n_lines; k++) {
				esc(f, s->lines[k]);
				fputc('\n', f);
			}
			fputs("</pre>\n", f);
			break;
		case REPORT_CHART:
			if (s->chart.kind == REPORT_CHART_BARS)
				chart_bars(f, s);
			else if (s->chart.kind == REPORT_CHART_WINDOWS)
				chart_windows(f, s);
			else
				chart_series(f, s);
			break;
		}
		fputs("</section>\n", f);
	}
	fputs("</body></html>\n", f);
}
