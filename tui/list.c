/*
 * list.c - search and sort for the screen's lists (Runs, History,
 * Cgroups): "/" types a filter (a case-insensitive part of the row's
 * text), Enter keeps it, Esc drops it; "s" takes the next sort key and "S"
 * turns the order round. The panels own their rows; this is the typing,
 * the matching and the line that says what is shown.
 */
#include <ctype.h>
#include <string.h>

#include "tui-internal.h"

bool tui_filter_key(struct tui_filter *f, int ch)
{
	if (!f->editing) {
		if (ch != '/')
			return false;
		f->editing = true;
		return true;
	}
	switch (tui_line_key(f->text, sizeof(f->text), ch)) {
	case 1:
		f->editing = false;
		break;
	case -1:	/* Esc: no filter at all */
		f->editing = false;
		f->text[0] = '\0';
		break;
	default:
		break;
	}
	return true;
}

bool tui_filter_match(const struct tui_filter *f, const char *s)
{
	size_t n = strlen(f->text);

	if (!n)
		return true;
	for (; *s; s++) {
		size_t k = 0;

		while (k < n && s[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)f->text[k]))
			k++;
		if (k == n)
			return true;
	}
	return false;
}

void tui_filter_draw(const struct tui_ctx *c, const struct tui_filter *f, WINDOW *w, int row, int cols,
		     const struct tui_list_view *v)
{
	if (f->editing) {
		wattron(w, tui_style(c, TS_WARN) | A_BOLD);
		tui_print_clipped(w, row, 2, cols, "/%s_   (Enter keeps it, Esc clears it)", f->text);
		wattroff(w, tui_style(c, TS_WARN) | A_BOLD);
		return;
	}
	wattron(w, tui_style(c, TS_DIM));
	if (f->text[0])
		tui_print_clipped(w, row, 2, cols, "%d of %d match \"%s\", by %s%s (/ search, s sort, S reverse)",
				  v->shown, v->total, f->text, v->sort, v->reverse ? ", reversed" : "");
	else
		tui_print_clipped(w, row, 2, cols, "%d shown, by %s%s (/ search, s sort, S reverse)", v->total,
				  v->sort, v->reverse ? ", reversed" : "");
	wattroff(w, tui_style(c, TS_DIM));
}
