/*
 * form.h - the TUI's one form (tui/form.c): labelled fields with their
 * defaults, a cursor, a field edited in place, a hint under the selected
 * field or the error under a wrong one, and a note below (the plan, or what
 * to fix). The panels that start runs from the screen (Probe, Switch) use
 * it; each checks the values with its command's own parsers and fills
 * err[] and the note itself.
 */
#ifndef SWAPTUNE_TUI_FORM_H
#define SWAPTUNE_TUI_FORM_H

#include "swaptune/err.h"
#include "tui-internal.h"

#define TUI_FORM_FIELDS_MAX 12
#define TUI_FORM_VAL_MAX 160

struct tui_form_field {
	const char *label;
	const char *def;	/* the value "d" (defaults) puts back */
	const char *hint;	/* under the selected field; NULL: the form's hint_of() */
};

struct tui_form {
	const struct tui_form_field *fields;
	int n;
	/* The hint of field i when its row has none (e.g. a list made at run time), into buf. */
	const char *(*hint_of)(int i, char *buf, size_t len);
	char val[TUI_FORM_FIELDS_MAX][TUI_FORM_VAL_MAX];
	char err[TUI_FORM_FIELDS_MAX][ST_ERR_MSG_MAX];	/* "" = the value is right */
	int sel;
	bool editing;
	char edit[TUI_FORM_VAL_MAX];			/* the value being typed */
	char note[ST_ERR_MSG_MAX];			/* below the fields: plan or refusal */
	enum tui_style note_style;
};

/* n fields (at most TUI_FORM_FIELDS_MAX) at their defaults; hint_of may be NULL. */
void tui_form_init(struct tui_form *f, const struct tui_form_field *fields, int n,
		   const char *(*hint_of)(int i, char *buf, size_t len));
/* Every field back to its default; errors and the note cleared. */
void tui_form_defaults(struct tui_form *f);

/* The note after a check that found bad wrong fields: "N values to fix (marked ! above): ...". */
void tui_form_note_bad(struct tui_form *f, int bad);

/* The fields from row y (hint or error under each), then the note; rows and cols of w. */
void tui_form_draw(const struct tui_ctx *c, const struct tui_form *f, WINDOW *w, int y, int rows,
		   int cols);

enum tui_form_key {
	TUI_FORM_UNUSED,	/* not a key of the form: the panel's own (start, check, defaults) */
	TUI_FORM_USED,		/* cursor moved, editing started, a character typed, or Esc */
	TUI_FORM_EDITED,	/* a value was entered (Enter, Tab, up, down): check the form again */
};

/*
 * A key: while editing, the line keys (tui_line_key()), Enter, Tab, up and
 * down enter the value (and move the cursor with Tab/up/down), Esc drops it;
 * otherwise up/k, down/j move the cursor and Enter or e starts editing.
 */
enum tui_form_key tui_form_key(struct tui_form *f, int ch);

/* The footer keys: the editing keys while a value is typed, else the panel's form keys. */
const struct tui_key_help *tui_form_keys(const struct tui_form *f, const struct tui_key_help *form_keys);

#endif
