/*
 * test-tui-form.c - the TUI's one form (tui/form.c) without a screen: its
 * defaults, the cursor, editing a value in place (entered, dropped with
 * Esc, cleared with ^U), which keys are the form's and which the panel's,
 * and the note after a check that found wrong values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../tui/form.h"

static const struct tui_form_field fields[] = {
	{ "Arms", "pc3,pc0", "arms to compare" },
	{ "Window", "30s", "length of one window" },
	{ "Seed", "random", NULL },
};

static void type(struct tui_form *f, const char *s)
{
	for (; *s; s++)
		assert_int_equal(tui_form_key(f, *s), TUI_FORM_USED);
}

static void test_defaults_and_cursor(void **state)
{
	struct tui_form f;

	(void)state;
	tui_form_init(&f, fields, 3, NULL);
	assert_string_equal(f.val[0], "pc3,pc0");
	assert_string_equal(f.val[2], "random");
	assert_int_equal(f.sel, 0);
	assert_int_equal(tui_form_key(&f, KEY_UP), TUI_FORM_USED);	/* wraps to the last */
	assert_int_equal(f.sel, 2);
	assert_int_equal(tui_form_key(&f, 'j'), TUI_FORM_USED);
	assert_int_equal(f.sel, 0);
	/* the panel's keys are not the form's */
	assert_int_equal(tui_form_key(&f, 's'), TUI_FORM_UNUSED);
	assert_int_equal(tui_form_key(&f, 'd'), TUI_FORM_UNUSED);
	snprintf(f.val[1], sizeof(f.val[1]), "5s");
	snprintf(f.err[1], sizeof(f.err[1]), "too short");
	tui_form_note_bad(&f, 1);
	assert_string_equal(f.note, "1 value to fix (marked ! above): nothing started");
	assert_int_equal(f.note_style, TS_BAD);
	tui_form_note_bad(&f, 2);
	assert_string_equal(f.note, "2 values to fix (marked ! above): nothing started");
	tui_form_defaults(&f);
	assert_string_equal(f.val[1], "30s");
	assert_string_equal(f.err[1], "");
	assert_string_equal(f.note, "");
}

static void test_editing(void **state)
{
	struct tui_form f;

	(void)state;
	tui_form_init(&f, fields, 3, NULL);
	f.sel = 1;
	assert_int_equal(tui_form_key(&f, '\n'), TUI_FORM_USED);
	assert_true(f.editing);
	assert_string_equal(f.edit, "30s");
	type(&f, "jk");		/* while editing, j and k are letters */
	assert_string_equal(f.edit, "30sjk");
	assert_int_equal(tui_form_key(&f, 21), TUI_FORM_USED);	/* ^U */
	type(&f, "60s");
	assert_string_equal(f.val[1], "30s");			/* not yet entered */
	assert_int_equal(tui_form_key(&f, '\t'), TUI_FORM_EDITED);	/* entered, cursor on */
	assert_false(f.editing);
	assert_string_equal(f.val[1], "60s");
	assert_int_equal(f.sel, 2);
	/* Esc drops what was typed */
	assert_int_equal(tui_form_key(&f, 'e'), TUI_FORM_USED);
	type(&f, "42");
	assert_int_equal(tui_form_key(&f, KEY_BACKSPACE), TUI_FORM_USED);
	assert_string_equal(f.edit, "random4");
	assert_int_equal(tui_form_key(&f, 27), TUI_FORM_USED);
	assert_false(f.editing);
	assert_string_equal(f.val[2], "random");
	assert_int_equal(f.sel, 2);
	/* up enters and moves up */
	assert_int_equal(tui_form_key(&f, KEY_ENTER), TUI_FORM_USED);
	assert_int_equal(tui_form_key(&f, KEY_UP), TUI_FORM_EDITED);
	assert_int_equal(f.sel, 1);
}

static void test_keys_help(void **state)
{
	static const struct tui_key_help panel[] = { { "s", "start" }, { NULL, NULL } };
	struct tui_form f;

	(void)state;
	tui_form_init(&f, fields, 3, NULL);
	assert_ptr_equal(tui_form_keys(&f, panel), panel);
	tui_form_key(&f, 'e');
	assert_string_equal(tui_form_keys(&f, panel)[0].key, "Enter");
	assert_string_equal(tui_form_keys(&f, panel)[0].what, "done");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_cursor),
		cmocka_unit_test(test_editing),
		cmocka_unit_test(test_keys_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
