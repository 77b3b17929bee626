/*
 * report-render.c - the report as aligned text, as Markdown (GitHub and
 * Jira render its pipe tables; no HTML), and as one JSON document
 * (share/schema/report.schema.json). Charts are data only here: text and
 * Markdown point to --format html, JSON carries their numbers. Every
 * string of text and Markdown goes out through fmt_fputs(): a report
 * shows store and import text, which may hold any byte.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
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

/*
 * A cell right-aligned as a number: a number, "-" (not measured), or text
 * that reads as one ("+5.0 %", "<0.001", "-1495 .. -1279").
 */
static bool numeric_text(const char *t)
{
	if (!strcmp(t, "-"))
		return true;
	if (*t == '+' || *t == '-' || *t == '<')
		t++;
	return isdigit((unsigned char)*t) || (*t == '.' && isdigit((unsigned char)t[1]));
}

bool *report_numeric_cols(const struct report_section *s)
{
	bool *num = calloc(s->n_cols ? s->n_cols : 1, sizeof(*num));

	if (!num)
		abort();
	for (size_t c = 0; c < s->n_cols; c++) {
		bool all = s->n_rows > 0, some = false;

		for (size_t r = 0; r < s->n_rows; r++) {
			const struct report_cell *x = &s->cells[r * s->n_cols + c];
			const char *t = cell_text(s, r, c);

			all &= x->is_num || numeric_text(t);
			some |= x->is_num || (numeric_text(t) && strcmp(t, "-"));
		}
		num[c] = all && some;
	}
	return num;
}

/* ---- text ---- */

/* s as fmt_fputs() shows it, malloc'd whole (fmt_escape() stops short of a tight buffer) */
static char *escaped_dup(const char *s)
{
	size_t n = fmt_escape_len(s) + 8;
	char *e = malloc(n);

	if (!e)
		abort();
	fmt_escape(s, e, n);
	return e;
}

/* Terminal columns of s as fmt_fputs() shows it: UTF-8 continuation bytes take none. */
static size_t cols_of(const char *s)
{
	char *e = escaped_dup(s);
	size_t w = 0;

	for (const unsigned char *p = (const unsigned char *)e; *p; p++)
		w += (*p & 0xc0) != 0x80;
	free(e);
	return w;
}

/*
 * Text within REPORT_TEXT_WIDTH: the first line after first, the others
 * after rest, broken at blanks (a word longer than a line is cut). A shell
 * command breaks only outside single quotes and ends each broken line with
 * " \" so that it still pastes as one command.
 */
static void text_wrapped(FILE *f, const char *first, const char *rest, const char *text, bool cmd)
{
	char *e = escaped_dup(text);
	const char *p = e, *lead = first;

	for (;;) {
		size_t room = REPORT_TEXT_WIDTH - strlen(lead) - (cmd ? 2 : 0), len = strlen(p);
		size_t cut = 0, cols = 0, i;
		bool quoted = false;

		if (cols_of(p) <= room + (cmd ? 2 : 0)) {
			fprintf(f, "%s%s\n", lead, p);
			break;
		}
		for (i = 0; i < len; i++) {
			if ((p[i] & 0xc0) != 0x80 && ++cols > room)
				break;
			if (cmd && p[i] == '\'')
				quoted = !quoted;
			else if (p[i] == ' ' && !quoted)
				cut = i;
		}
		if (!cut) {	/* no blank to break at: cut the word (a command stays whole) */
			if (cmd) {
				fprintf(f, "%s%s\n", lead, p);
				break;
			}
			cut = i;
		}
		fprintf(f, "%s%.*s%s\n", lead, (int)cut, p, cmd ? " \\" : "");
		p += cut;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		lead = rest;
	}
	free(e);
}

/* Terminal columns of n bytes of escaped text. */
static size_t cols_n(const char *e, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += (e[i] & 0xc0) != 0x80;
	return w;
}

/*
 * The first piece of escaped text e that fits width columns: broken after
 * the last blank that fits, else cut (never inside a UTF-8 character).
 * Its length in bytes; *next is where the rest starts (blanks skipped).
 */
static size_t cell_piece(const char *e, size_t width, const char **next)
{
	size_t i = 0, cols = 0, cut = 0;

	if (cols_n(e, strlen(e)) <= width) {
		*next = e + strlen(e);
		return strlen(e);
	}
	for (; e[i]; i++) {
		if ((e[i] & 0xc0) != 0x80 && cols++ == width)
			break;
		if (e[i] == ' ')
			cut = i;
	}
	if (!cut)
		cut = i ? i : 1;
	*next = e + cut;
	while (**next == ' ')
		(*next)++;
	return cut;
}

/*
 * Columns from..to of the table after its key columns, each row on as many
 * lines as its widest cell needs (a cell wider than its column wraps).
 */
static void text_table_part(FILE *f, const struct report_section *s, const size_t *w,
			    const bool *num, size_t from, size_t to)
{
	size_t keys = s->n_key_cols < s->n_cols ? s->n_key_cols : s->n_cols, nk = keys + (to - from);
	char **text = calloc(nk, sizeof(*text));
	const char **rest = calloc(nk, sizeof(*rest));

	if (!text || !rest)
		abort();
	for (int head = 1, r = -1; r < (int)s->n_rows; head = 0, r++) {
		bool mark = !head && s->marked && s->marked[r], more = true;

		for (size_t k = 0; k < nk; k++) {
			size_t c = k < keys ? k : from + (k - keys);

			text[k] = escaped_dup(head ? s->cols[c] : cell_text(s, (size_t)r, c));
			rest[k] = text[k];
		}
		for (int line = 0; more; line++) {
			more = false;
			for (size_t k = 0; k < nk; k++) {
				size_t c = k < keys ? k : from + (k - keys), n, pad;
				bool last = k + 1 == nk;
				const char *piece = rest[k];

				n = cell_piece(piece, w[c], &rest[k]);
				pad = w[c] > cols_n(piece, n) ? w[c] - cols_n(piece, n) : 0;
				fputs(k == 0 && mark && line == 0 ? "* " : "  ", f);
				if (num[c])
					fprintf(f, "%*s", (int)pad, "");
				fwrite(piece, 1, n, f);
				if (!num[c] && !last)
					fprintf(f, "%*s", (int)pad, "");
				more |= *rest[k] != '\0';
			}
			fputc('\n', f);
		}
		for (size_t k = 0; k < nk; k++)
			free(text[k]);
	}
	free(text);
	free(rest);
}

/*
 * A table within REPORT_TEXT_WIDTH: split into parts that each repeat the
 * key columns, a column wider than a part can hold wrapping its cells.
 */
static void text_table(FILE *f, const struct report_section *s)
{
	size_t *w = calloc(s->n_cols ? s->n_cols : 1, sizeof(*w));
	bool *num = report_numeric_cols(s);
	size_t keys = s->n_key_cols < s->n_cols ? s->n_key_cols : s->n_cols, kw = 0, c, cap;

	if (!w)
		abort();
	for (c = 0; c < s->n_cols; c++) {
		w[c] = cols_of(s->cols[c]);
		for (size_t r = 0; r < s->n_rows; r++)
			if (cols_of(cell_text(s, r, c)) > w[c])
				w[c] = cols_of(cell_text(s, r, c));
		if (c < keys && w[c] > REPORT_TEXT_WIDTH / 2 - 2)
			w[c] = REPORT_TEXT_WIDTH / 2 - 2;
		if (c < keys)
			kw += 2 + w[c];
	}
	cap = kw + 2 + 12 < REPORT_TEXT_WIDTH ? REPORT_TEXT_WIDTH - kw - 2 : 12;
	for (c = keys; c < s->n_cols; c++)
		if (w[c] > cap)
			w[c] = cap;
	for (c = keys; c < s->n_cols || c == keys;) {
		size_t end = c, width = kw;

		while (end < s->n_cols && (end == c || width + 2 + w[end] <= REPORT_TEXT_WIDTH))
			width += 2 + w[end++];
		if (c > keys)
			fputc('\n', f);
		text_table_part(f, s, w, num, c, end);
		if (end >= s->n_cols)
			break;
		c = end;
	}
	free(w);
	free(num);
}

static bool any_marked(const struct report_section *s)
{
	for (size_t r = 0; s->marked && r < s->n_rows; r++)
		if (s->marked[r])
			return true;
	return false;
}

static void text_facts(FILE *f, const struct report_section *s)
{
	size_t kw = 0;
	char lead[64], rest[64];

	for (size_t k = 0; k < s->n_facts; k++)
		if (cols_of(s->keys[k]) > kw)
			kw = cols_of(s->keys[k]);
	if (kw > 30)
		kw = 30;
	memset(rest, ' ', kw + 5);
	rest[kw + 5] = '\0';
	for (size_t k = 0; k < s->n_facts; k++) {
		char *key = escaped_dup(s->keys[k]);

		snprintf(lead, sizeof(lead), "  %-*.60s   ", (int)kw, key);
		free(key);
		text_wrapped(f, lead, rest, s->values[k], false);
	}
}

void report_render_text(FILE *f, const struct report *r)
{
	size_t tl = cols_of(r->title);

	fmt_fputs(f, r->title);
	fputc('\n', f);
	for (size_t i = 0; i < tl; i++)
		fputc('=', f);
	fputc('\n', f);
	for (size_t i = 0; i < r->n; i++) {
		const struct report_section *s = r->sec[i];

		if (s->type == REPORT_CHART)
			continue;
		fputc('\n', f);
		fmt_fputs(f, s->title);
		fputc('\n', f);
		if (s->note) {
			char *note = NULL;

			if (asprintf(&note, "(%s%s)", s->note, s->type == REPORT_TABLE && any_marked(s) ?
				     "; * = beyond noise" : "") < 0)
				abort();
			text_wrapped(f, "  ", "   ", note, false);
			free(note);
		}
		switch (s->type) {
		case REPORT_FACTS:
			text_facts(f, s);
			break;
		case REPORT_TABLE:
			if (s->n_rows)
				text_table(f, s);
			else
				fprintf(f, "  (none)\n");
			break;
		case REPORT_TEXT:
			for (size_t k = 0; k < s->n_lines; k++)
				text_wrapped(f, "  ", is_command(s->lines[k]) ? "      " : "    ",
					     s->lines[k], is_command(s->lines[k]));
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
	bool *num = report_numeric_cols(s);

	fputc('|', f);
	for (size_t c = 0; c < s->n_cols; c++) {
		fputc(' ', f);
		md_escaped(f, s->cols[c]);
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (size_t c = 0; c < s->n_cols; c++) {
		fputs(num[c] ? " ---: |" : " --- |", f);
	}
	fputc('\n', f);
	for (size_t r = 0; r < s->n_rows; r++) {
		bool mark = s->marked && s->marked[r];

		fputc('|', f);
		for (size_t c = 0; c < s->n_cols; c++) {
			bool bold = mark && *cell_text(s, r, c);

			fputs(bold ? " **" : " ", f);
			md_escaped(f, cell_text(s, r, c));
			fputs(bold ? "** |" : " |", f);
		}
		fputc('\n', f);
	}
	free(num);
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
			if (s->type == REPORT_TABLE && any_marked(s))
				fputs("; rows in bold: beyond noise", f);
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

/* A switchback's timeline: its arms, and every window with its value. */
static void windows_json(const struct report_chart *c, cJSON *o)
{
	cJSON *arms = cJSON_AddArrayToObject(o, "arms"), *w = cJSON_AddArrayToObject(o, "windows");

	for (size_t i = 0; i < c->n_arm_names; i++)
		cJSON_AddItemToArray(arms, cJSON_CreateString(c->arm_names[i]));
	for (size_t i = 0; i < c->n_windows; i++) {
		const struct report_window *x = &c->windows[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "start", x->x0);
		cJSON_AddNumberToObject(e, "counted_from", x->xc);
		cJSON_AddNumberToObject(e, "end", x->x1);
		fmt_json_num(e, "value", x->y);
		cJSON_AddStringToObject(e, "arm", x->arm >= 0 && (size_t)x->arm < c->n_arm_names ?
					c->arm_names[x->arm] : "");
		cJSON_AddBoolToObject(e, "failed", x->failed);
		cJSON_AddItemToArray(w, e);
	}
}

static cJSON *chart_json(const struct report_chart *c)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "kind", c->kind == REPORT_CHART_BARS ? "bars" :
				c->kind == REPORT_CHART_WINDOWS ? "windows" : "series");
	cJSON_AddStringToObject(o, "y_unit", c->y_unit ? c->y_unit : "");
	cJSON_AddStringToObject(o, "x_unit", c->x_unit ? c->x_unit : "");
	if (c->kind == REPORT_CHART_WINDOWS) {
		windows_json(c, o);
	} else if (c->kind == REPORT_CHART_BARS) {
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
		if (any_marked(s)) {
			a = cJSON_AddArrayToObject(o, "marked_rows");
			for (size_t r = 0; r < s->n_rows; r++)
				if (s->marked[r])
					cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r));
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
