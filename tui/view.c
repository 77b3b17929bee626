/*
 * view.c - drawing helpers shared by the panels: styles that degrade from
 * colour to monochrome, clipped and right-aligned printing, number
 * formatting, the scrollable text view and the readable rendering of a
 * JSON document the store keeps (a run's params, a snapshot's settings),
 * walked as cJSON parses it.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/fmt.h"
#include "tui-internal.h"

void tui_style_init(struct tui_ctx *c)
{
	const char *nc = getenv("NO_COLOR");

	c->color = !(nc && nc[0]) && has_colors();
	if (!c->color)
		return;
	start_color();
	use_default_colors();
	/* only the 8 ANSI colours: works on a linux console and in tmux alike */
	init_pair(TS_TITLE, COLOR_CYAN, -1);
	init_pair(TS_GOOD, COLOR_GREEN, -1);
	init_pair(TS_WARN, COLOR_YELLOW, -1);
	init_pair(TS_BAD, COLOR_RED, -1);
	init_pair(TS_DIM, COLOR_BLUE, -1);
	init_pair(TS_BAR, COLOR_BLACK, COLOR_CYAN);
	init_pair(TS_KEY, COLOR_WHITE, COLOR_BLACK);
}

attr_t tui_style(const struct tui_ctx *c, enum tui_style s)
{
	static const attr_t mono[TS_COUNT] = {
		[TS_TITLE] = A_BOLD, [TS_GOOD] = A_BOLD, [TS_WARN] = A_UNDERLINE,
		[TS_BAD] = A_BOLD | A_UNDERLINE, [TS_DIM] = A_DIM, [TS_BAR] = A_REVERSE,
		[TS_KEY] = A_BOLD,
	};

	if (s <= TS_NORMAL || s >= TS_COUNT)
		return A_NORMAL;
	if (!c || !c->color)
		return mono[s];
	return COLOR_PAIR(s) | (s == TS_TITLE || s == TS_BAD || s == TS_KEY ? A_BOLD : 0);
}

void tui_print_clipped(WINDOW *w, int row, int col, int cols, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int room = cols - col;

	if (room <= 0 || row < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	mvwaddnstr(w, row, col, buf, room);
}

void tui_print_right(WINDOW *w, int row, int end, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int len, col;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = (int)strlen(buf);
	col = end - len;
	if (col < 0)
		col = 0;
	if (end > col && row >= 0)
		mvwaddnstr(w, row, col, buf, end - col);
}

const char *tui_fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	if (!isfinite(b)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	while (fabs(b) >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	if (u == 0 || fabs(b) >= 100)
		snprintf(buf, len, "%.0f %s", b, unit[u]);
	else if (fabs(b) >= 10)
		snprintf(buf, len, "%.1f %s", b, unit[u]);
	else
		snprintf(buf, len, "%.2f %s", b, unit[u]);
	return buf;
}

const char *tui_fmt_count(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else
		fmt_num(v, buf, len);	/* the one number style: 688.1k, as status prints it */
	return buf;
}

const char *tui_fmt_secs(double s, char *buf, size_t len)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, len, "?");
	else if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
	return buf;
}

/* ---- text view ---- */

void tui_text_clear(struct tui_text *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->lines[i]);
	t->n = 0;
}

void tui_text_free(struct tui_text *t)
{
	tui_text_clear(t);
	free(t->lines);
	free(t->style);
	memset(t, 0, sizeof(*t));
}

static void text_push(struct tui_text *t, enum tui_style s, const char *line, size_t len)
{
	char *copy;

	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 64;
		char **l = realloc(t->lines, (size_t)cap * sizeof(*l));
		unsigned char *st;

		if (!l)
			return;
		t->lines = l;
		st = realloc(t->style, (size_t)cap);
		if (!st)
			return;
		t->style = st;
		t->cap = cap;
	}
	copy = strndup(line, len);
	if (!copy)
		return;
	t->lines[t->n] = copy;
	t->style[t->n++] = (unsigned char)s;
}

void tui_text_add(struct tui_text *t, enum tui_style s, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!buf[0])
		text_push(t, s, "", 0);
	else
		tui_text_add_block(t, s, buf);
}

void tui_text_add_block(struct tui_text *t, enum tui_style s, const char *text)
{
	const char *p = text, *nl;

	while ((nl = strchr(p, '\n'))) {
		text_push(t, s, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (*p)
		text_push(t, s, p, strlen(p));
}

/* Where wrapped text is drawn: rows [first, last) of the text into w (NULL: only count). */
struct wrap_view {
	WINDOW *w;
	int first, last;
};

/*
 * The rows one line takes wrapped at width, drawn from text row `row` where
 * they fall in view v (with attr). Breaks at the last space that fits.
 */
static int text_wrap(const char *line, int width, int row, const struct wrap_view *v, attr_t attr)
{
	int indent = 0, rows = 0, len = (int)strlen(line), pos = 0;

	while (line[indent] == ' ')
		indent++;
	if (indent > width / 2)
		indent = 0;
	do {
		int lead = rows ? indent + 2 : 0;
		int room = width - lead, take;

		if (room < 8)
			room = width, lead = 0;
		take = len - pos;
		if (take > room) {
			take = room;
			for (int k = room; k > room / 2; k--)
				if (line[pos + k] == ' ') {
					take = k;
					break;
				}
		}
		if (v->w && row + rows >= v->first && row + rows < v->last) {
			wattron(v->w, attr);
			mvwaddnstr(v->w, row + rows - v->first, lead, line + pos, take);
			wattroff(v->w, attr);
		}
		rows++;
		pos += take;
		while (rows && line[pos] == ' ')
			pos++;
	} while (pos < len);
	return rows;
}

/*
 * A table's lines, one row each from column 0, cut at the window's edge:
 * wrapped, sample --replay's 80 columns became two rows each in an
 * 80-column terminal (the text starts at column 2 and keeps one for the
 * markers), its columns no longer under their headings.
 */
static void table_draw(const struct tui_ctx *c, struct tui_text *t, WINDOW *w, int row,
		       int rows, int cols)
{
	if (t->top > t->n - rows)
		t->top = t->n - rows;
	if (t->top < 0)
		t->top = 0;
	t->last_rows = rows;
	t->last_total = t->n;
	for (int y = 0; y < rows && t->top + y < t->n; y++) {
		attr_t a = tui_style(c, (enum tui_style)t->style[t->top + y]);

		wattron(w, a);
		mvwaddnstr(w, row + y, 0, t->lines[t->top + y], cols);
		wattroff(w, a);
	}
}

const char *tui_text_where(const struct tui_text *t, char *buf, size_t len)
{
	int last = t->top + t->last_rows;

	if (t->last_total <= t->last_rows) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	snprintf(buf, len, "rows %d-%d of %d", t->top + 1, last < t->last_total ? last : t->last_total,
		 t->last_total);
	return buf;
}

void tui_text_draw(const struct tui_ctx *c, struct tui_text *t, WINDOW *w, int row,
		   int rows, int cols)
{
	int total = 0, width = cols - 3, y = 0;

	if (t->table) {
		table_draw(c, t, w, row, rows, cols);
		return;
	}
	if (width < 10)
		width = cols;
	for (int i = 0; i < t->n; i++)
		total += text_wrap(t->lines[i], width, 0, &(struct wrap_view){ NULL, 0, 0 }, 0);
	if (t->top > total - rows)
		t->top = total - rows;
	if (t->top < 0)
		t->top = 0;
	t->last_rows = rows;
	t->last_total = total;
	for (int i = 0; i < t->n && y < t->top + rows; i++) {
		WINDOW *sub = derwin(w, rows, width, row, 2);

		if (!sub)
			return;
		y += text_wrap(t->lines[i], width, y, &(struct wrap_view){ sub, t->top, t->top + rows },
			       tui_style(c, (enum tui_style)t->style[i]));
		delwin(sub);
	}
	if (total > rows) {
		wattron(w, tui_style(c, TS_DIM));
		if (t->top > 0)
			mvwaddstr(w, row, cols - 1, "^");
		if (t->top + rows < total)
			mvwaddstr(w, row + rows - 1, cols - 1, "v");
		wattroff(w, tui_style(c, TS_DIM));
	}
}

bool tui_text_key(struct tui_text *t, int ch)
{
	int page = t->last_rows > 2 ? t->last_rows - 1 : 1;

	switch (ch) {
	case KEY_DOWN: case 'j': t->top++; break;
	case KEY_UP: case 'k': t->top--; break;
	case KEY_NPAGE: case ' ': t->top += page; break;
	case KEY_PPAGE: t->top -= page; break;
	case KEY_HOME: case 'g': t->top = 0; break;
	case KEY_END: case 'G': t->top = t->last_total; break;
	default: return false;
	}
	if (t->top < 0)
		t->top = 0;
	return true;
}

/* ---- readable JSON ---- */

/* key ends in suffix (a unit the value is shown in, then dropped from the label) */
static bool key_ends(const char *key, size_t klen, const char *suffix)
{
	size_t n = strlen(suffix);

	return klen > n && !memcmp(key + klen - n, suffix, n);
}

/* An array's members on one line as JSON writes them, without quotes, braces or commas. */
static void json_flat(const char *text, char *val, size_t len)
{
	const char *q = text + 1;
	size_t o = 0;
	int d = 1;

	while (*q && d > 0 && o + 2 < len) {
		if (*q == '[' || *q == '{')
			d++;
		else if (*q == ']' || *q == '}')
			d--;
		if (d > 0 && *q != '"' && *q != '{' && *q != '}')
			val[o++] = *q == ',' ? ' ' : *q;
		q++;
	}
	val[o] = 0;
}

/*
 * A number in the unit its key names: sizes for "bytes", UTC times for
 * "_unix", durations for "_s" (the unit then out of the label: *klen
 * shortened); a fraction without an exponent; an integer (an id, a seed)
 * whole, every digit of it (cJSON's own printing may drop the last of 16).
 */
static void json_number(const char *key, size_t *klen, double v, char *val, size_t len)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(val, len, "%.0f", v);
	else
		snprintf(val, len, "%.17g", v);
	if (isdigit((unsigned char)val[0]) && strstr(key, "bytes") && *klen >= 5) {
		tui_fmt_bytes(v, val, len);
	} else if (isdigit((unsigned char)val[0]) && key_ends(key, *klen, "_unix") && v < 1e11) {
		time_t tt = (time_t)v;
		struct tm tm;

		if (gmtime_r(&tt, &tm))
			strftime(val, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
		*klen -= 5;
	} else if (isdigit((unsigned char)val[0]) && key_ends(key, *klen, "_s")) {
		char n[FMT_NUM_LEN];

		if (v < 90)	/* keep the stored precision of short times */
			snprintf(val, len, "%s s", fmt_num(v, n, sizeof(n)));
		else
			tui_fmt_secs(v, val, len);
		*klen -= 2;
	} else if ((isdigit((unsigned char)val[0]) || val[0] == '-') && strpbrk(val, ".eE")) {
		fmt_num(v, val, len);
	}
}

/* One member of an object at depth (1: the document's own; 0: the document), and what is under it. */
static void json_member(struct tui_text *t, const char *name, const cJSON *it, int depth)
{
	int ind = depth > 0 ? 2 * (depth - 1) : 0;
	char key[64], val[256], *text;
	size_t klen;
	const cJSON *m;

	/* the key as the kernel and the store spell it (vma_ra_enabled, not "vma ra enabled") */
	snprintf(key, sizeof(key), "%s", name ? name : "");
	klen = strlen(key);
	if (cJSON_IsObject(it)) {
		if (name)
			tui_text_add(t, TS_TITLE, "%*s%s", ind, "", key);
		cJSON_ArrayForEach(m, it)
			json_member(t, m->string, m, depth + 1);
		return;
	}
	if (cJSON_IsNumber(it)) {
		json_number(key, &klen, it->valuedouble, val, sizeof(val));
	} else if ((text = cJSON_PrintUnformatted(it))) {
		if (cJSON_IsArray(it))
			json_flat(text, val, sizeof(val));
		else if (cJSON_IsString(it))	/* as stored, escapes and all: never a raw control character */
			snprintf(val, sizeof(val), "%.*s", (int)strlen(text) - 2, text + 1);
		else
			snprintf(val, sizeof(val), "%s", text);
		free(text);
	} else {
		return;
	}
	tui_text_add(t, TS_NORMAL, "%*s%-24.*s %s", ind, "", (int)klen, key, val);
}

void tui_text_add_doc(struct tui_text *t, const cJSON *doc)
{
	if (!doc) {
		tui_text_add(t, TS_DIM, "(the stored text is not JSON)");
		return;
	}
	json_member(t, NULL, doc, 0);
}

void tui_text_add_json(struct tui_text *t, const char *json)
{
	cJSON *doc;

	if (!json || !json[0])
		return;
	doc = cJSON_Parse(json);
	tui_text_add_doc(t, doc);
	cJSON_Delete(doc);
}

int tui_line_key(char *buf, size_t len, int ch)
{
	size_t n = strlen(buf);

	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		return 1;
	if (ch == 27)
		return -1;
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			buf[n - 1] = 0;
	} else if (ch == 21) {	/* ^U */
		buf[0] = 0;
	} else if (ch >= 32 && ch < 127 && n + 1 < len) {
		buf[n] = (char)ch;
		buf[n + 1] = 0;
	}
	return 0;
}
