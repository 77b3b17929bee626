/*
 * form.c - the TUI's one form (form.h): fields with defaults, a cursor,
 * in-place editing, a hint or an error under each field, and a note. What
 * the values mean is the panel's: it checks them with its command's parsers.
 */
#include <stdio.h>
#include <string.h>

#include "form.h"

void tui_form_init(struct tui_form *f, const struct tui_form_field *fields, int n,
		   const char *(*hint_of)(int i, char *buf, size_t len))
{
	memset(f, 0, sizeof(*f));
	f->fields = fields;
	f->n = n < TUI_FORM_FIELDS_MAX ? n : TUI_FORM_FIELDS_MAX;
	f->hint_of = hint_of;
	tui_form_defaults(f);
}

void tui_form_defaults(struct tui_form *f)
{
	for (int i = 0; i < f->n; i++)
		snprintf(f->val[i], sizeof(f->val[i]), "%s", f->fields[i].def ? f->fields[i].def : "");
	memset(f->err, 0, sizeof(f->err));
	f->note[0] = 0;
}

void tui_form_note_bad(struct tui_form *f, int bad)
{
	snprintf(f->note, sizeof(f->note), "%d value%s to fix (marked ! above): nothing started",
		 bad, bad == 1 ? "" : "s");
	f->note_style = TS_BAD;
}

/* A field's hint or error under it: two rows at most, broken at a space. */
static int print_two_rows(WINDOW *w, int y, int cols, const char *lead, const char *h)
{
	int room = cols - 7 - (int)strlen(lead), cut = (int)strlen(h);

	if (cut > room && room > 10)
		for (cut = room; cut > 0 && h[cut] != ' '; cut--)
			;
	if (cut <= 0)
		cut = room > 0 ? room : 0;
	tui_print_clipped(w, y++, 6, cols, "%s%.*s", lead, cut, h);
	if (h[cut])
		tui_print_clipped(w, y++, 8 + (int)strlen(lead), cols, "%s", h + cut + (h[cut] == ' '));
	return y;
}

void tui_form_draw(const struct tui_ctx *c, const struct tui_form *f, WINDOW *w, int y, int rows,
		   int cols)
{
	for (int i = 0; i < f->n && y < rows - 3; i++) {
		bool sel = i == f->sel;
		const char *v = sel && f->editing ? f->edit : f->val[i];

		if (sel)
			wattron(w, A_BOLD);
		tui_print_clipped(w, y, 2, cols, "%s %-12s", sel ? ">" : " ", f->fields[i].label);
		if (sel)
			wattroff(w, A_BOLD);
		wattron(w, sel && f->editing ? A_UNDERLINE | A_BOLD : sel ? A_REVERSE : A_NORMAL);
		tui_print_clipped(w, y, 17, cols, " %-24s%s", v, sel && f->editing ? "_" : "");
		wattroff(w, A_UNDERLINE | A_BOLD | A_REVERSE);
		y++;
		if (f->err[i][0]) {
			wattron(w, tui_style(c, TS_BAD));
			y = print_two_rows(w, y, cols, "! ", f->err[i]);
			wattroff(w, tui_style(c, TS_BAD));
		} else if (sel) {
			char buf[TUI_FORM_VAL_MAX] = "";
			const char *h = f->fields[i].hint ? f->fields[i].hint :
				f->hint_of ? f->hint_of(i, buf, sizeof(buf)) : "";

			wattron(w, tui_style(c, TS_DIM));
			y = print_two_rows(w, y, cols, "", h);
			wattroff(w, tui_style(c, TS_DIM));
		}
	}
	y++;
	if (f->note[0] && y < rows) {
		struct tui_text t = { 0 };

		tui_text_add(&t, f->note_style, "%s", f->note);
		tui_text_draw(c, &t, w, y, rows - y, cols);
		tui_text_free(&t);
	}
}

static void move_sel(struct tui_form *f, int by)
{
	f->sel = (f->sel + f->n + by) % f->n;
}

enum tui_form_key tui_form_key(struct tui_form *f, int ch)
{
	if (f->editing) {
		int r = tui_line_key(f->edit, sizeof(f->edit), ch);

		if (r == 0 && (ch == '\t' || ch == KEY_DOWN || ch == KEY_UP))
			r = 1;
		if (r == -1)
			f->editing = false;
		if (r != 1)
			return TUI_FORM_USED;
		snprintf(f->val[f->sel], sizeof(f->val[0]), "%s", f->edit);
		f->editing = false;
		if (ch == '\t' || ch == KEY_DOWN)
			move_sel(f, 1);
		else if (ch == KEY_UP)
			move_sel(f, -1);
		return TUI_FORM_EDITED;
	}
	if (ch == KEY_DOWN || ch == 'j') {
		move_sel(f, 1);
	} else if (ch == KEY_UP || ch == 'k') {
		move_sel(f, -1);
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'e') {
		snprintf(f->edit, sizeof(f->edit), "%s", f->val[f->sel]);
		f->editing = true;
	} else {
		return TUI_FORM_UNUSED;
	}
	return TUI_FORM_USED;
}

const struct tui_key_help *tui_form_keys(const struct tui_form *f, const struct tui_key_help *form_keys)
{
	static const struct tui_key_help editing[] = {
		{ "Enter", "done" }, { "Esc", "undo" }, { "^U", "clear" }, { NULL, NULL },
	};

	return f->editing ? editing : form_keys;
}
