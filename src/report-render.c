/*
 * report-render.c - the report as aligned text, as Markdown (GitHub and
 * Jira render its pipe tables; no HTML), and as one JSON document
 * (share/schema/report.schema.json). Charts are data only here: text and
 * Markdown point to --format html, JSON carries their numbers. Every
 * string of text and Markdown goes out through fmt_fputs(): a report
 * shows store and import text, which may hold any byte.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fmt.h"
#include "swaptune/report.h"

static const char *cell_text(const struct report_section *s, size_t row, size_t col)
{
	const char *t = s->cells[row * s->n_cols + col].text;

	return t ? t : "";
}

static bool is_command(const char *line)
{
	return !strncmp(line, "swaptune ", 9) || !strncmp(line, "sudo swaptune ", 14);
}

/* ---- text ---- */

static void text_table(FILE *f, const struct report_section *s)
{
	size_t *w = calloc(s->n_cols ? s->n_cols : 1, sizeof(*w));

	if (!w)
		abort();
	for (size_t c = 0; c < s->n_cols; c++) {
		w[c] = fmt_escape_len(s->cols[c]);
		for (size_t r = 0; r < s->n_rows; r++)
			if (fmt_escape_len(cell_text(s, r, c)) > w[c])
				w[c] = fmt_escape_len(cell_text(s, r, c));
	}
	for (size_t c = 0; c < s->n_cols; c++) {
		fputs("  ", f);
		fmt_fputs_pad(f, s->cols[c], c + 1 < s->n_cols ? w[c] : 0, false);
	}
	fputc('\n', f);
	for (size_t r = 0; r < s->n_rows; r++) {
		for (size_t c = 0; c < s->n_cols; c++) {
			const struct report_cell *x = &s->cells[r * s->n_cols + c];
			bool last = c + 1 == s->n_cols;

			fputs("  ", f);
			fmt_fputs_pad(f, cell_text(s, r, c), x->is_num ? w[c] : last ? 0 : w[c], x->is_num);
		}
		fputc('\n', f);
	}
	free(w);
}

void report_render_text(FILE *f, const struct report *r)
{
	size_t tl = fmt_escape_len(r->title);

	fmt_fputs(f, r->title);
	fputc('\n', f);
	for (size_t i = 0; i < tl; i++)
		fputc('=', f);
	fputc('\n', f);
	for (size_t i = 0; i < r->n; i++) {
		const struct report_section *s = r->sec[i];
		size_t kw = 0;

		if (s->type == REPORT_CHART)
			continue;
		fputc('\n', f);
		fmt_fputs(f, s->title);
		fputc('\n', f);
		if (s->note) {
			fputs("  (", f);
			fmt_fputs(f, s->note);
			fputs(")\n", f);
		}
		switch (s->type) {
		case REPORT_FACTS:
			for (size_t k = 0; k < s->n_facts; k++)
				if (fmt_escape_len(s->keys[k]) > kw)
					kw = fmt_escape_len(s->keys[k]);
			for (size_t k = 0; k < s->n_facts; k++) {
				fputs("  ", f);
				fmt_fputs_pad(f, s->keys[k], kw + 1, false);
				fputs("  ", f);
				fmt_fputs(f, s->values[k]);
				fputc('\n', f);
			}
			break;
		case REPORT_TABLE:
			if (s->n_rows)
				text_table(f, s);
			else
				fprintf(f, "  (none)\n");
			break;
		case REPORT_TEXT:
			for (size_t k = 0; k < s->n_lines; k++) {
				fputs("  ", f);
				fmt_fputs(f, s->lines[k]);
				fputc('\n', f);
			}
			break;
		case REPORT_CHART:
			break;
		}
	}
}

/* ---- Markdown ---- */

/* Bytes run..end (no Markdown character among them), escaped. */
static void md_run(FILE *f, const char *run, const char *end)
{
	char *piece = strndup(run, (size_t)(end - run));

	if (!piece)
		abort();
	fmt_fputs(f, piece);
	free(piece);
}

/* Markdown's own characters backslashed; control bytes as fmt_fputs() shows them. */
static void md_escaped(FILE *f, const char *t)
{
	const char *run = t;

	for (; *t; t++) {
		if (*t != '|' && *t != '*' && *t != '_' && *t != '`' && *t != '<' && *t != '>' &&
		    *t != '[' && *t != ']' && *t != '\\' && *t != '\n')
			continue;
		md_run(f, run, t);
		if (*t == '\n')
			fputc(' ', f);
		else {
			fputc('\\', f);
			fputc(*t, f);
		}
		run = t + 1;
	}
	md_run(f, run, t);
}

static void md_table(FILE *f, const struct report_section *s)
{
	fputc('|', f);
	for (size_t c = 0; c < s->n_cols; c++) {
		fputc(' ', f);
		md_escaped(f, s->cols[c]);
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (size_t c = 0; c < s->n_cols; c++) {
		bool num = s->n_rows && s->cells[c].is_num;

		fputs(num ? " ---: |" : " --- |", f);
	}
	fputc('\n', f);
	for (size_t r = 0; r < s->n_rows; r++) {
		fputc('|', f);
		for (size_t c = 0; c < s->n_cols; c++) {
			fputc(' ', f);
			md_escaped(f, cell_text(s, r, c));
			fputs(" |", f);
		}
		fputc('\n', f);
	}
}

void report_render_md(FILE *f, const struct report *r)
{
	fputs("# ", f);
	md_escaped(f, r->title);
	fputc('\n', f);
	for (size_t i = 0; i < r->n; i++) {
		const struct report_section *s = r->sec[i];
		bool fenced = false;

		if (s->type == REPORT_CHART)
			continue;
		fputs("\n## ", f);
		md_escaped(f, s->title);
		fputs("\n\n", f);
		if (s->note) {
			fputc('_', f);
			md_escaped(f, s->note);
			fputs("_\n\n", f);
		}
		switch (s->type) {
		case REPORT_FACTS:
			fputs("| | |\n| --- | --- |\n", f);
			for (size_t k = 0; k < s->n_facts; k++) {
				fputs("| **", f);
				md_escaped(f, s->keys[k]);
				fputs("** | ", f);
				md_escaped(f, s->values[k]);
				fputs(" |\n", f);
			}
			break;
		case REPORT_TABLE:
			if (s->n_rows)
				md_table(f, s);
			else
				fputs("(none)\n", f);
			break;
		case REPORT_TEXT:
			for (size_t k = 0; k < s->n_lines; k++) {
				bool cmd = is_command(s->lines[k]);

				if (cmd != fenced)
					fputs(cmd ? "```sh\n" : "```\n\n", f);
				fenced = cmd;
				if (cmd) {
					fmt_fputs(f, s->lines[k]);
					fputc('\n', f);
				}
				else {
					fputs("- ", f);
					md_escaped(f, s->lines[k]);
					fputc('\n', f);
				}
			}
			if (fenced)
				fputs("```\n", f);
			break;
		case REPORT_CHART:
			break;
		}
	}
	fputs("\n_Charts: swaptune report --format html._\n", f);
}

/* ---- JSON ---- */

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *num_array(const double *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, num_or_null(v[i]));
	return a;
}

static cJSON *chart_json(const struct report_chart *c)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "kind", c->kind == REPORT_CHART_BARS ? "bars" : "series");
	cJSON_AddStringToObject(o, "y_unit", c->y_unit ? c->y_unit : "");
	cJSON_AddStringToObject(o, "x_unit", c->x_unit ? c->x_unit : "");
	if (c->kind == REPORT_CHART_BARS) {
		a = cJSON_AddArrayToObject(o, "bars");
		for (size_t i = 0; i < c->n_bars; i++) {
			cJSON *b = cJSON_CreateObject();

			cJSON_AddStringToObject(b, "name", c->bars[i].name);
			cJSON_AddItemToObject(b, "mean", num_or_null(c->bars[i].mean));
			cJSON_AddItemToObject(b, "ci_low", num_or_null(c->bars[i].lo));
			cJSON_AddItemToObject(b, "ci_high", num_or_null(c->bars[i].hi));
			cJSON_AddItemToObject(b, "trials", num_array(c->bars[i].pts, c->bars[i].n_pts));
			cJSON_AddBoolToObject(b, "baseline", c->bars[i].highlight);
			cJSON_AddItemToArray(a, b);
		}
	} else {
		a = cJSON_AddArrayToObject(o, "series");
		for (size_t i = 0; i < c->n_series; i++) {
			cJSON *b = cJSON_CreateObject();

			cJSON_AddStringToObject(b, "name", c->series[i].name);
			cJSON_AddItemToObject(b, "x", num_array(c->series[i].x, c->series[i].n));
			cJSON_AddItemToObject(b, "y", num_array(c->series[i].y, c->series[i].n));
			cJSON_AddItemToArray(a, b);
		}
		if (c->has_marker) {
			cJSON *m = cJSON_AddObjectToObject(o, "marker");

			cJSON_AddNumberToObject(m, "x", c->marker_x);
			cJSON_AddStringToObject(m, "label", c->marker_label ? c->marker_label : "");
		}
	}
	return o;
}

static cJSON *section_json(const struct report_section *s)
{
	static const char *const types[] = { "facts", "table", "text", "chart" };
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "id", s->id);
	cJSON_AddStringToObject(o, "type", types[s->type]);
	cJSON_AddStringToObject(o, "title", s->title);
	if (s->note)
		cJSON_AddStringToObject(o, "note", s->note);
	switch (s->type) {
	case REPORT_FACTS:
		a = cJSON_AddObjectToObject(o, "facts");
		for (size_t k = 0; k < s->n_facts; k++)
			cJSON_AddStringToObject(a, s->keys[k], s->values[k]);
		break;
	case REPORT_TABLE:
		a = cJSON_AddArrayToObject(o, "columns");
		for (size_t c = 0; c < s->n_cols; c++)
			cJSON_AddItemToArray(a, cJSON_CreateString(s->cols[c]));
		a = cJSON_AddArrayToObject(o, "rows");
		for (size_t r = 0; r < s->n_rows; r++) {
			cJSON *row = cJSON_CreateArray();

			for (size_t c = 0; c < s->n_cols; c++) {
				const struct report_cell *x = &s->cells[r * s->n_cols + c];

				if (x->is_num)
					cJSON_AddItemToArray(row, cJSON_CreateNumber(x->num));
				else if (x->text && !strcmp(x->text, "-"))
					cJSON_AddItemToArray(row, cJSON_CreateNull());
				else
					cJSON_AddItemToArray(row, cJSON_CreateString(x->text ? x->text : ""));
			}
			cJSON_AddItemToArray(a, row);
		}
		break;
	case REPORT_TEXT:
		a = cJSON_AddArrayToObject(o, "lines");
		for (size_t k = 0; k < s->n_lines; k++)
			cJSON_AddItemToArray(a, cJSON_CreateString(s->lines[k]));
		break;
	case REPORT_CHART:
		cJSON_AddItemToObject(o, "chart", chart_json(&s->chart));
		break;
	}
	return o;
}

/* members: "k":v,... (no braces), each moved into doc */
static void add_members(cJSON *doc, const char *members)
{
	size_t n = strlen(members);
	char *text = malloc(n + 3);
	cJSON *o;

	if (!text)
		return;
	snprintf(text, n + 3, "{%s}", members);
	o = cJSON_Parse(text);
	free(text);
	while (o && o->child) {
		cJSON *it = cJSON_DetachItemViaPointer(o, o->child);

		cJSON_AddItemToObject(doc, it->string, it);
	}
	cJSON_Delete(o);
}

int report_render_json(FILE *f, const struct report *r)
{
	cJSON *doc = cJSON_CreateObject(), *a;
	char *text;

	if (!doc)
		return -ENOMEM;
	cJSON_AddStringToObject(doc, "schema", REPORT_SCHEMA);
	cJSON_AddStringToObject(doc, "kind", r->kind);
	cJSON_AddStringToObject(doc, "title", r->title);
	a = cJSON_AddArrayToObject(doc, "sections");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(a, section_json(r->sec[i]));
	if (r->identity)
		add_members(doc, r->identity);
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!text)
		return -ENOMEM;
	fprintf(f, "%s\n", text);
	cJSON_free(text);
	return 0;
}
