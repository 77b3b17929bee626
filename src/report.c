/*
 * report.c - the report model: sections of facts, tables, text and charts,
 * built cell by cell. Allocation failure aborts (out of memory is the one
 * abort the house style allows); everything else is plain data.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fmt.h"
#include "swaptune/report.h"
#include "swaptune/utc.h"

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return d;
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	return s;
}

#define PUSH(arr, n, v) do { (arr) = xrealloc((arr), ((n) + 1) * sizeof(*(arr))); (arr)[(n)++] = (v); } while (0)

struct report *report_new(const char *kind, const char *title)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->kind = xstrdup(kind);
	r->title = xstrdup(title);
	return r;
}

static void windows_free(struct report_chart *c)
{
	for (size_t i = 0; i < c->n_arm_names; i++)
		free(c->arm_names[i]);
	free(c->arm_names);
	free(c->windows);
	c->arm_names = NULL;
	c->windows = NULL;
	c->n_arm_names = c->n_windows = 0;
}

static void section_free(struct report_section *s)
{
	struct report_chart *c = &s->chart;

	for (size_t i = 0; i < s->n_facts; i++) {
		free(s->keys[i]);
		free(s->values[i]);
	}
	for (size_t i = 0; i < s->n_cols; i++)
		free(s->cols[i]);
	for (size_t i = 0; i < s->n_rows * s->n_cols; i++)
		free(s->cells[i].text);
	for (size_t i = 0; i < s->n_lines; i++)
		free(s->lines[i]);
	for (size_t i = 0; i < c->n_bars; i++) {
		free(c->bars[i].name);
		free(c->bars[i].pts);
	}
	for (size_t i = 0; i < c->n_series; i++) {
		free(c->series[i].name);
		free(c->series[i].x);
		free(c->series[i].y);
	}
	windows_free(c);
	free(c->bars);
	free(c->series);
	free(c->y_unit);
	free(c->x_unit);
	free(c->marker_label);
	free(c->highlight_name);
	free(c->bar_name);
	free(c->whisker_name);
	free(s->keys);
	free(s->values);
	free(s->cols);
	free(s->cells);
	free(s->marked);
	free(s->lines);
	free(s->id);
	free(s->title);
	free(s->note);
	free(s);
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		section_free(r->sec[i]);
	free(r->sec);
	free(r->kind);
	free(r->title);
	free(r->identity);
	free(r);
}

struct report_section *report_add(struct report *r, enum report_section_type t,
				  const char *id, const char *title)
{
	struct report_section *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->type = t;
	s->id = xstrdup(id);
	s->title = xstrdup(title);
	s->chart.marker_x = NAN;
	s->n_key_cols = 1;
	PUSH(r->sec, r->n, s);
	return s;
}

void report_note(struct report_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(s->note);
	s->note = vfmt(fmt, ap);
	va_end(ap);
}

void report_fact(struct report_section *s, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v;
	size_t n = s->n_facts;

	va_start(ap, fmt);
	v = vfmt(fmt, ap);
	va_end(ap);
	PUSH(s->keys, n, xstrdup(key));
	PUSH(s->values, s->n_facts, v);
}

void report_fact_opt(struct report_section *s, const char *key, const char *value)
{
	report_fact(s, key, "%s", value && *value ? value : REPORT_NOT_RECORDED);
}

void report_line(struct report_section *s, const char *fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, fmt);
	v = vfmt(fmt, ap);
	va_end(ap);
	PUSH(s->lines, s->n_lines, v);
}

void report_cols(struct report_section *s, size_t n, const char *const *names)
{
	for (size_t i = 0; i < n; i++)
		PUSH(s->cols, s->n_cols, xstrdup(names[i]));
}

static void push_cell(struct report_section *s, struct report_cell c)
{
	/* cells are appended; a row is complete every n_cols cells */
	if (s->n_filled == s->n_rows * s->n_cols) {
		size_t have = s->n_rows * s->n_cols;

		s->cells = xrealloc(s->cells, (have + s->n_cols) * sizeof(*s->cells));
		memset(s->cells + have, 0, s->n_cols * sizeof(*s->cells));
		s->marked = xrealloc(s->marked, (s->n_rows + 1) * sizeof(*s->marked));
		s->marked[s->n_rows] = false;
		s->n_rows++;
	}
	s->cells[s->n_filled++] = c;
}

void report_cell(struct report_section *s, const char *fmt, ...)
{
	va_list ap;
	struct report_cell c = { 0 };

	va_start(ap, fmt);
	c.text = vfmt(fmt, ap);
	va_end(ap);
	push_cell(s, c);
}

const char *report_num(double v, char *buf, size_t len)
{
	return fmt_num(v, buf, len);
}

void report_cell_num(struct report_section *s, double v)
{
	char b[FMT_NUM_LEN];
	struct report_cell c = { 0 };

	c.text = xstrdup(report_num(v, b, sizeof(b)));
	c.is_num = isfinite(v);
	c.num = v;
	push_cell(s, c);
}

void report_cell_p(struct report_section *s, double p)
{
	char b[16];
	struct report_cell c = { 0 };

	c.text = xstrdup(fmt_p(p, b, sizeof(b)));
	c.is_num = isfinite(p);
	c.num = p;
	push_cell(s, c);
}

void report_cell_pct(struct report_section *s, double v)
{
	char b[FMT_NUM_LEN + 8];

	report_cell(s, "%s", fmt_pct(v, true, b, sizeof(b)));
}

void report_row_mark(struct report_section *s)
{
	if (s->n_rows)
		s->marked[s->n_rows - 1] = true;
}

void report_key_cols(struct report_section *s, size_t n)
{
	s->n_key_cols = n ? n : 1;
}

void report_order(struct report *r, const char *const *ids, size_t n)
{
	struct report_section **out = xrealloc(NULL, r->n * sizeof(*out));
	bool *taken = calloc(r->n ? r->n : 1, sizeof(*taken));
	size_t k = 0;

	if (!taken)
		abort();
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < r->n; j++)
			if (!taken[j] && !strcmp(r->sec[j]->id, ids[i])) {
				out[k++] = r->sec[j];
				taken[j] = true;
			}
	for (size_t j = 0; j < r->n; j++)
		if (!taken[j])
			out[k++] = r->sec[j];
	free(r->sec);
	free(taken);
	r->sec = out;
}

/* "source_run" -> "source run"; a unit suffix (_unix, _bytes, _s, _pct) dropped */
static void fact_key(const char *prefix, const char *name, char *out, size_t len)
{
	static const char *const units[] = { "_unix", "_bytes", "_pct", "_s" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t u = strlen(units[i]);

		if (n > u && !strcmp(name + n - u, units[i])) {
			n -= u;
			break;
		}
	}
	snprintf(out, len, "%s%s%.*s", prefix, *prefix ? " " : "", (int)n, name);
	for (char *p = out; *p; p++)
		if (*p == '_')
			*p = ' ';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* A scalar leaf as people read it, by the unit its key names. */
static void fact_value(const cJSON *x, char *out, size_t len)
{
	const char *name = x->string ? x->string : "";
	char b[64];

	if (cJSON_IsString(x))
		snprintf(out, len, "%s", x->valuestring);
	else if (cJSON_IsBool(x))
		snprintf(out, len, "%s", cJSON_IsTrue(x) ? "yes" : "no");
	else if (cJSON_IsNull(x))
		snprintf(out, len, "none");
	else if (!cJSON_IsNumber(x))
		snprintf(out, len, "?");
	else if (ends_with(name, "_unix"))
		snprintf(out, len, "%s", utc_iso(x->valuedouble, b, sizeof(b)));
	else if (ends_with(name, "_bytes") && x->valuedouble >= 0)
		snprintf(out, len, "%s", fmt_bytes((unsigned long long)x->valuedouble, b, sizeof(b)));
	else if (ends_with(name, "_s"))
		snprintf(out, len, "%s s", fmt_num(x->valuedouble, b, sizeof(b)));
	else if (ends_with(name, "_pct"))
		snprintf(out, len, "%s", fmt_pct(x->valuedouble, false, b, sizeof(b)));
	else if (x->valuedouble == floor(x->valuedouble) && fabs(x->valuedouble) < 1e15)
		snprintf(out, len, "%.0f", x->valuedouble);	/* an id, a count: every digit */
	else
		snprintf(out, len, "%s", fmt_num(x->valuedouble, b, sizeof(b)));
}

static bool all_scalars(const cJSON *o)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, o)
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			return false;
	return true;
}

static void facts_of(struct report_section *s, const char *prefix, const cJSON *o,
		     const char *const *skip, size_t n_skip, int depth)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, o) {
		char key[256], val[1024];
		size_t n = 0;
		bool skipped = false;
		const cJSON *x;

		for (size_t i = 0; depth == 0 && i < n_skip; i++)
			skipped |= !strcmp(c->string ? c->string : "", skip[i]);
		if (skipped)
			continue;
		fact_key(prefix, c->string ? c->string : "", key, sizeof(key));
		val[0] = '\0';
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && !all_scalars(c) && depth < 4) {
			facts_of(s, key, c, NULL, 0, depth + 1);
			continue;
		}
		if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			cJSON_ArrayForEach(x, c) {
				char v[256];

				fact_value(x, v, sizeof(v));
				if (n < sizeof(val))
					n += (size_t)snprintf(val + n, sizeof(val) - n, "%s%s%s%s",
							      n ? ", " : "", cJSON_IsObject(c) ? x->string : "",
							      cJSON_IsObject(c) ? "=" : "", v);
			}
			report_fact(s, key, "%s", n ? val : "none");
			continue;
		}
		fact_value(c, val, sizeof(val));
		report_fact(s, key, "%s", val);
	}
}

void report_facts_json(struct report_section *s, const char *key, const cJSON *doc,
		       const char *text, const char *const *skip, size_t n_skip)
{
	if (cJSON_IsObject(doc))
		facts_of(s, "", doc, skip, n_skip, 0);
	else
		report_fact_opt(s, key, text);
}

void report_bar_add(struct report_section *s, const struct report_bar_in *in)
{
	struct report_bar b = { xstrdup(in->name), in->mean, in->lo, in->hi, in->n_pts, NULL, in->highlight };

	b.pts = xrealloc(NULL, in->n_pts * sizeof(double));
	if (in->n_pts)
		memcpy(b.pts, in->pts, in->n_pts * sizeof(double));
	PUSH(s->chart.bars, s->chart.n_bars, b);
}

void report_series_add(struct report_section *s, const char *name, const double *x,
		       const double *y, size_t n)
{
	struct report_series v = { xstrdup(name), n, NULL, NULL };

	v.x = xrealloc(NULL, n * sizeof(double));
	v.y = xrealloc(NULL, n * sizeof(double));
	if (n) {
		memcpy(v.x, x, n * sizeof(double));
		memcpy(v.y, y, n * sizeof(double));
	}
	PUSH(s->chart.series, s->chart.n_series, v);
}

void report_window_arm(struct report_section *s, const char *name)
{
	char **v = realloc(s->chart.arm_names, (s->chart.n_arm_names + 1) * sizeof(*v));

	if (!v || !(v[s->chart.n_arm_names] = strdup(name)))
		abort();
	s->chart.arm_names = v;
	s->chart.n_arm_names++;
}

void report_window_add(struct report_section *s, const struct report_window *w)
{
	struct report_window *v = realloc(s->chart.windows, (s->chart.n_windows + 1) * sizeof(*v));

	if (!v)
		abort();
	v[s->chart.n_windows++] = *w;
	s->chart.windows = v;
}
