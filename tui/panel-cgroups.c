/*
 * panel-cgroups.c - the Cgroups panel: every memory cgroup of the host
 * (down to a few levels) with what `below` shows for memory: anon memory,
 * swap and zswap held, refaults and zswap loads per second, and PSI memory
 * pressure (avg10). The figures come from the host layer
 * (host_cgroups_scan()); rates are the difference of two scans over the
 * time between them. "/" searches the paths, "s" changes the sort key (swap
 * first, largest first), "S" turns it round; the chosen group's figures in
 * full below the list.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/fmt.h"
#include "swaptune/host-cgroups.h"
#include "tui-internal.h"

#define DEPTH 4			/* levels below the controller's root */

enum sort_key { BY_SWAP, BY_ANON, BY_ZSWAP, BY_REFAULTS, BY_PSI, BY_NAME, SORT_COUNT };

static const char *const sort_names[SORT_COUNT] = {
	"swap", "anon", "zswap", "refaults/s", "PSI some", "path",
};

struct cg_row {
	struct host_cgroup_stat st;
	double refault_rate, zswpin_rate, majflt_rate;	/* per second; NAN before a second scan */
};

struct cg_state {
	struct cg_row *rows;		/* the last scan, in the sort order */
	struct host_cgroup_stat *prev;	/* the scan before it, sorted by path */
	size_t n, n_prev;
	int *shown, n_shown;		/* indexes of the rows the filter lets through */
	int version;
	bool truncated, ok;
	double t, t_prev;		/* monotonic seconds of the scans */
	struct st_err err;
	struct tui_filter filter;
	enum sort_key sort;
	bool reverse;
	int sel, top;
	char sel_path[HOST_CGROUP_PATH_MAX];
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *cg_open(struct tui_ctx *c)
{
	(void)c;
	return calloc(1, sizeof(struct cg_state));
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct host_cgroup_stat *)a)->path, ((const struct host_cgroup_stat *)b)->path);
}

/* A counter's rate between the previous scan and this one; NAN when either lacks it or it went back. */
static double rate(const struct cg_state *s, const struct host_cgroup_stat *now, enum host_cgroup_field f)
{
	const struct host_cgroup_stat *was;
	double dt = s->t - s->t_prev;

	if (!s->prev || dt <= 0 || !now->have[f])
		return NAN;
	was = bsearch(now, s->prev, s->n_prev, sizeof(*s->prev), by_path);
	if (!was || !was->have[f] || was->val[f] > now->val[f])
		return NAN;
	return (double)(now->val[f] - was->val[f]) / dt;
}

static double sort_value(const struct cg_row *r, enum sort_key k)
{
	const struct host_cgroup_stat *st = &r->st;

	switch (k) {
	case BY_SWAP: return st->have[HCG_SWAP] ? (double)st->val[HCG_SWAP] : -1;
	case BY_ANON: return st->have[HCG_ANON] ? (double)st->val[HCG_ANON] : -1;
	case BY_ZSWAP: return st->have[HCG_ZSWAP] ? (double)st->val[HCG_ZSWAP] : -1;
	case BY_REFAULTS: return isfinite(r->refault_rate) ? r->refault_rate : -1;
	case BY_PSI: return st->have_psi ? st->psi.some.avg10 : -1;
	case BY_NAME: case SORT_COUNT: break;
	}
	return 0;
}

static enum sort_key qsort_key;
static bool qsort_reverse;

/* largest first (names: a to z), ties by path; reverse turns it round */
static int cmp_rows(const void *a, const void *b)
{
	const struct cg_row *x = a, *y = b;
	int c = 0;

	if (qsort_key != BY_NAME) {
		double vx = sort_value(x, qsort_key), vy = sort_value(y, qsort_key);

		c = vx > vy ? -1 : vx < vy ? 1 : 0;
	}
	if (!c)
		c = strcmp(x->st.path, y->st.path);
	return qsort_reverse ? -c : c;
}

static void cg_order(struct cg_state *s)
{
	char text[HOST_CGROUP_PATH_MAX];

	qsort_key = s->sort;
	qsort_reverse = s->reverse;
	qsort(s->rows, s->n, sizeof(*s->rows), cmp_rows);
	free(s->shown);
	s->shown = calloc(s->n ? s->n : 1, sizeof(*s->shown));
	s->n_shown = 0;
	for (size_t i = 0; s->shown && i < s->n; i++) {
		snprintf(text, sizeof(text), "%s", s->rows[i].st.path);
		if (tui_filter_match(&s->filter, text))
			s->shown[s->n_shown++] = (int)i;
	}
	/* keep the group chosen, wherever the sort puts it */
	s->sel = 0;
	for (int i = 0; i < s->n_shown; i++)
		if (!strcmp(s->rows[s->shown[i]].st.path, s->sel_path))
			s->sel = i;
}

static void cg_update(struct tui_ctx *c, void *p)
{
	struct cg_state *s = p;
	struct host_cgroups scan;
	struct host_cgroup_stat *now;
	size_t n;

	if (!s)
		return;
	err_reset(&s->err);
	s->ok = host_cgroups_scan(c->h, DEPTH, HOST_CGROUPS_MAX, &scan, &s->err) == 0;
	s->truncated = scan.truncated;
	if (!s->ok)
		return;
	s->version = scan.version;
	now = scan.rows;
	n = scan.n;
	/* the previous scan, by path, for the rates */
	free(s->prev);
	s->prev = NULL;
	s->n_prev = 0;
	if (s->rows) {
		s->prev = calloc(s->n ? s->n : 1, sizeof(*s->prev));
		for (size_t i = 0; s->prev && i < s->n; i++)
			s->prev[i] = s->rows[i].st;
		s->n_prev = s->prev ? s->n : 0;
		qsort(s->prev, s->n_prev, sizeof(*s->prev), by_path);
	}
	s->t_prev = s->t;
	s->t = mono_s();
	free(s->rows);
	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	s->n = s->rows ? n : 0;
	for (size_t i = 0; i < s->n; i++) {
		double a = rate(s, &now[i], HCG_REFAULT_ANON), f = rate(s, &now[i], HCG_REFAULT_FILE);

		s->rows[i].st = now[i];
		s->rows[i].refault_rate = isfinite(a) && isfinite(f) ? a + f : isfinite(a) ? a : f;
		s->rows[i].zswpin_rate = rate(s, &now[i], HCG_ZSWPIN);
		s->rows[i].majflt_rate = rate(s, &now[i], HCG_PGMAJFAULT);
	}
	free(now);
	cg_order(s);
}

/* bytes in at most 6 columns: 0, 512K, 656M, 1.2G */
static const char *short_bytes(bool have, uint64_t b, char *buf, size_t len)
{
	static const char unit[] = "BKMGTP";
	double v = (double)b;
	int u = 0;

	if (!have)
		return "-";
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (!b)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, v < 9.95 && u ? "%.1f%c" : "%.0f%c", v, unit[u]);
	return buf;
}

static const char *short_rate(double v, char *buf, size_t len)
{
	return isfinite(v) ? fmt_short(buf, len, true, v) : "-";
}

static const char *short_pct(bool have, double v, char *buf, size_t len)
{
	if (!have)
		return "-";
	snprintf(buf, len, "%.1f", v);
	return buf;
}

/* The path, its start cut ("...") when it does not fit the column. */
static void path_cell(const char *path, int width, char *out, size_t len)
{
	const char *p = fmt_printable(path);
	int n = (int)strlen(p);

	if (n <= width)
		snprintf(out, len, "%s", p);
	else
		snprintf(out, len, "...%s", p + n - (width - 3));
}

static void cg_details(const struct cg_state *s, const struct cg_row *r, WINDOW *w, int y, int rows, int cols)
{
	const struct host_cgroup_stat *st = &r->st;
	char b[6][32];
	int y0 = y;

	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "%s", fmt_printable(st->path));
	wattroff(w, A_BOLD);
	if (y - y0 < rows)
		tui_print_clipped(w, y++, 4, cols, "anon %s, page cache %s, swap %s",
				  st->have[HCG_ANON] ? fmt_bytes(st->val[HCG_ANON], b[0], 32) : "n/a",
				  st->have[HCG_FILE] ? fmt_bytes(st->val[HCG_FILE], b[1], 32) : "n/a",
				  st->have[HCG_SWAP] ? fmt_bytes(st->val[HCG_SWAP], b[2], 32) : "n/a");
	if (y - y0 < rows && st->have[HCG_ZSWAP])
		tui_print_clipped(w, y++, 4, cols, "zswap %s holding %s of its pages",
				  fmt_bytes(st->val[HCG_ZSWAP], b[3], 32),
				  st->have[HCG_ZSWAPPED] ? fmt_bytes(st->val[HCG_ZSWAPPED], b[4], 32) : "n/a");
	else if (y - y0 < rows)
		tui_print_clipped(w, y++, 4, cols, "zswap: %s", s->version == 1 ?
				  "not counted per cgroup on v1" : "not in this kernel's memory.stat");
	if (y - y0 < rows)
		tui_print_clipped(w, y++, 4, cols, "per second: refaults %s, zswap loads %s, major faults %s",
				  short_rate(r->refault_rate, b[0], 32), short_rate(r->zswpin_rate, b[1], 32),
				  short_rate(r->majflt_rate, b[2], 32));
	if (y - y0 < rows && st->have_psi)
		tui_print_clipped(w, y++, 4, cols, "PSI memory some %.1f / %.1f / %.1f %%, full %.1f / %.1f / %.1f %% "
				  "(avg10/60/300)", st->psi.some.avg10, st->psi.some.avg60, st->psi.some.avg300,
				  st->psi.full.avg10, st->psi.full.avg60, st->psi.full.avg300);
	else if (y - y0 < rows)
		tui_print_clipped(w, y++, 4, cols, "PSI memory: %s", s->version == 1 ?
				  "none per cgroup on v1 (needs psi=1, cgroup1 pressure files)" :
				  "no memory.pressure in this group");
}

static void cg_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct cg_state *s = p;
	int name_w = cols - 2 - 7 * 7, list_rows, y = 1;
	bool v2;

	if (!s || !s->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the memory cgroups: %s", s ? s->err.msg : "out of memory");
		return;
	}
	v2 = s->version == 2;
	if (name_w < 12)
		name_w = 12;
	/* the list, then its search line and six lines of the chosen group's figures */
	list_rows = rows - 10;
	if (list_rows > s->n_shown)
		list_rows = s->n_shown;
	if (list_rows < 3)
		list_rows = 3;
	if (s->sel >= s->n_shown)
		s->sel = s->n_shown ? s->n_shown - 1 : 0;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + list_rows)
		s->top = s->sel - list_rows + 1;
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "%-*s%7s%7s%7s%7s%7s%7s%7s", name_w, v2 ? "cgroup (memory, v2)" : "cgroup (memory, v1)",
			  "anon", "swap", v2 ? "zswap" : "cache", "rflt/s", v2 ? "zsin/s" : "majf/s", "some%", "full%");
	wattroff(w, tui_style(c, TS_TITLE));
	for (int i = s->top; i < s->n_shown && i < s->top + list_rows; i++) {
		const struct cg_row *r = &s->rows[s->shown[i]];
		const struct host_cgroup_stat *st = &r->st;
		char name[HOST_CGROUP_PATH_MAX + 8], b[7][32];

		path_cell(st->path, name_w - 1, name, sizeof(name));
		if (i == s->sel)
			wattron(w, A_REVERSE);
		tui_print_clipped(w, y++, 2, cols, "%-*s%7s%7s%7s%7s%7s%7s%7s", name_w, name,
				  short_bytes(st->have[HCG_ANON], st->val[HCG_ANON], b[0], 32),
				  short_bytes(st->have[HCG_SWAP], st->val[HCG_SWAP], b[1], 32),
				  v2 ? short_bytes(st->have[HCG_ZSWAP], st->val[HCG_ZSWAP], b[2], 32) :
				  short_bytes(st->have[HCG_FILE], st->val[HCG_FILE], b[2], 32),
				  short_rate(r->refault_rate, b[3], 32),
				  short_rate(v2 ? r->zswpin_rate : r->majflt_rate, b[4], 32),
				  short_pct(st->have_psi, st->psi.some.avg10, b[5], 32),
				  short_pct(st->have_psi, st->psi.full.avg10, b[6], 32));
		if (i == s->sel)
			wattroff(w, A_REVERSE);
	}
	if (!s->n_shown)
		tui_print_clipped(w, y++, 2, cols, "no cgroup matches \"%s\"", s->filter.text);
	y = 2 + list_rows;
	tui_filter_draw(c, &s->filter, w, y++, cols,
			&(struct tui_list_view){ s->n_shown, (int)s->n, sort_names[s->sort], s->reverse });
	if (s->truncated) {
		wattron(w, tui_style(c, TS_DIM));
		tui_print_clipped(w, y++, 2, cols, "(the first %zu groups, %d levels deep; search narrows them)",
				  s->n, DEPTH);
		wattroff(w, tui_style(c, TS_DIM));
	}
	if (s->n_shown)
		cg_details(s, &s->rows[s->shown[s->sel]], w, y + 1, rows - y - 1, cols);
}

static bool cg_key(struct tui_ctx *c, void *p, int ch)
{
	struct cg_state *s = p;

	(void)c;
	if (!s)
		return false;
	if (tui_filter_key(&s->filter, ch)) {
		cg_order(s);
		return true;
	}
	if ((ch == KEY_DOWN || ch == 'j') && s->sel + 1 < s->n_shown)
		s->sel++;
	else if ((ch == KEY_UP || ch == 'k') && s->sel > 0)
		s->sel--;
	else if (ch == KEY_NPAGE)
		s->sel = s->sel + 10 < s->n_shown ? s->sel + 10 : s->n_shown - 1;
	else if (ch == KEY_PPAGE)
		s->sel = s->sel > 10 ? s->sel - 10 : 0;
	else if (ch == KEY_HOME)
		s->sel = 0;
	else if (ch == KEY_END)
		s->sel = s->n_shown ? s->n_shown - 1 : 0;
	else if (ch == 's' || ch == 'S') {
		if (ch == 's')
			s->sort = (enum sort_key)((s->sort + 1) % SORT_COUNT);
		else
			s->reverse = !s->reverse;
		cg_order(s);
		return true;
	} else
		return false;
	if (s->sel < 0)
		s->sel = 0;
	if (s->n_shown)
		snprintf(s->sel_path, sizeof(s->sel_path), "%s", s->rows[s->shown[s->sel]].st.path);
	return true;
}

static bool cg_grabs_keys(void *p)
{
	const struct cg_state *s = p;

	return s && s->filter.editing;
}

static const struct tui_key_help *cg_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help k[] = {
		{ "Up/Dn", "group" }, { "/", "search" }, { "s", "sort" }, { "S", "reverse" }, { NULL, NULL },
	};
	static const struct tui_key_help typing[] = {
		{ "Enter", "keep" }, { "Esc", "clear" }, { NULL, NULL },
	};
	const struct cg_state *s = p;

	(void)c;
	return s && s->filter.editing ? typing : k;
}

static void cg_close(void *p)
{
	struct cg_state *s = p;

	if (!s)
		return;
	free(s->rows);
	free(s->prev);
	free(s->shown);
	free(s);
}

const struct tui_panel tui_panel_cgroups = {
	.title = "Cgroups",
	.open = cg_open,
	.update = cg_update,
	.draw = cg_draw,
	.key = cg_key,
	.close = cg_close,
	.keys = cg_keys,
	.grabs_keys = cg_grabs_keys,
};
