/*
 * fmt-wrap.c - a stream that folds human output to a terminal's width:
 * fmt_wrap_open() gives the commands a FILE whose complete lines reach the
 * real stream broken at blanks, continued under the column they belong to
 * (a table's last column, a bullet's text). Widths are display columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "swaptune/fmt.h"

struct wrap {
	FILE *to;
	int width;
	char *line;		/* the part of a line not yet ended by '\n' */
	size_t len, cap;
};

/*
 * The display columns of s[0..n): a UTF-8 sequence is one column (its
 * continuation bytes none), an escape sequence (colour) none.
 */
int fmt_display_width(const char *s, size_t n)
{
	int cols = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0x1b && i + 1 < n && s[i + 1] == '[') {
			for (i += 2; i < n && !(s[i] >= 0x40 && s[i] <= 0x7e); i++)
				;
			continue;
		}
		if ((c & 0xc0) != 0x80)
			cols++;
	}
	return cols;
}

/* Byte offset of display column col in s[0..n) (n when the line is shorter). */
static size_t offset_of_col(const char *s, size_t n, int col)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fmt_display_width(s, i + 1) > col)
			break;
	return i;
}

/*
 * Where a continuation of line s starts: under the text after the last
 * gap of two or more blanks before the break at byte brk (a table's last
 * column, "key   value") when that leaves HANG_MIN_COLS for the text, else
 * two past the line's own indent (a bullet's text, a paragraph).
 */
#define HANG_MIN_COLS 40

static int hanging_indent(const char *s, size_t brk, int width)
{
	size_t lead = 0, i;
	int best = -1;

	while (lead < brk && s[lead] == ' ')
		lead++;
	for (i = lead; i + 2 <= brk; i++)
		if (s[i] == ' ' && s[i + 1] == ' ') {
			size_t j = i;

			while (j < brk && s[j] == ' ')
				j++;
			if (j < brk && fmt_display_width(s, j) <= width - HANG_MIN_COLS)
				best = fmt_display_width(s, j);
			i = j;
		}
	if (best >= 0)
		return best;
	/* "  - text": under the text; a paragraph: two in */
	return (int)lead + 2;
}

/*
 * Write one line (without its '\n') folded to the width; continuation
 * lines start at indent (< 0: found from the line at its first break).
 */
static void put_line(struct wrap *w, const char *s, size_t n, int indent)
{
	for (;;) {
		size_t limit, brk, lead = 0, k;
		char *rest;

		if (fmt_display_width(s, n) <= w->width)
			break;
		limit = offset_of_col(s, n, w->width);
		while (lead < n && s[lead] == ' ')
			lead++;
		/* the last blank that leaves the line within the width */
		for (brk = limit; brk > lead && s[brk] != ' '; brk--)
			;
		if (brk <= lead) {
			/* one word wider than the line: break after it */
			for (brk = limit; brk < n && s[brk] != ' '; brk++)
				;
			if (brk >= n)
				break;
		}
		if (indent < 0)
			indent = hanging_indent(s, brk, w->width);
		for (k = brk; k > 0 && s[k - 1] == ' '; k--)
			;
		fwrite(s, 1, k, w->to);
		fputc('\n', w->to);
		while (brk < n && s[brk] == ' ')
			brk++;
		rest = malloc((size_t)indent + (n - brk) + 1);
		if (!rest) {
			s += brk, n -= brk;
			break;
		}
		memset(rest, ' ', (size_t)indent);
		memcpy(rest + indent, s + brk, n - brk);
		put_line(w, rest, (size_t)indent + (n - brk), indent);
		free(rest);
		return;
	}
	fwrite(s, 1, n, w->to);
	fputc('\n', w->to);
}

static ssize_t wrap_write(void *cookie, const char *buf, size_t size)
{
	struct wrap *w = cookie;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			put_line(w, w->line ? w->line : "", w->len, -1);
			w->len = 0;
			continue;
		}
		if (w->len + 1 > w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 256;
			char *p = realloc(w->line, cap);

			if (!p)
				return -1;
			w->line = p;
			w->cap = cap;
		}
		w->line[w->len++] = buf[i];
	}
	/* the caller's fflush() (before a question on stderr) reaches the file */
	fflush(w->to);
	return (ssize_t)size;
}

static int wrap_close(void *cookie)
{
	struct wrap *w = cookie;

	if (w->len)	/* an unended last line stays unended */
		fwrite(w->line, 1, w->len, w->to);
	free(w->line);
	free(w);
	return 0;
}

FILE *fmt_wrap_open(FILE *to, int width)
{
	cookie_io_functions_t io = { .write = wrap_write, .close = wrap_close };
	struct wrap *w = calloc(1, sizeof(*w));
	FILE *f;

	if (!w)
		return NULL;
	w->to = to;
	w->width = width;
	f = fopencookie(w, "w", io);
	if (!f) {
		free(w);
		return NULL;
	}
	/*
	 * buffered as the real stream is: a terminal sees each line when it
	 * ends; a file or pipe gets blocks and whatever the command flushes
	 */
	if (isatty(fileno(to)))
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
