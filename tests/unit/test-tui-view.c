/*
 * test-tui-view.c - the TUI's formatting helpers (tui/view.c): sizes and
 * counts for humans, and a run's summary JSON, even truncated, as lines of
 * "label  value" without braces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../tui/tui-internal.h"

static void test_fmt_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(tui_fmt_bytes(656109568, b, sizeof(b)), "626 MiB");
	assert_string_equal(tui_fmt_bytes(512, b, sizeof(b)), "512 B");
	assert_string_equal(tui_fmt_bytes(1536, b, sizeof(b)), "1.50 KiB");
	assert_string_equal(tui_fmt_bytes(25.0 * 1024 * 1024 * 1024, b, sizeof(b)), "25.0 GiB");
}

static void test_fmt_count(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(tui_fmt_count(12345, b, sizeof(b)), "12.35k");
	assert_string_equal(tui_fmt_count(456, b, sizeof(b)), "456");
	assert_string_equal(tui_fmt_count(1.2e6, b, sizeof(b)), "1.200M");
	assert_string_equal(tui_fmt_count(0.25, b, sizeof(b)), "0.25");
	/* the status command's style: 688.1k, never an exponent */
	assert_string_equal(tui_fmt_count(688123, b, sizeof(b)), "688.1k");
	assert_string_equal(tui_fmt_count(29290.5, b, sizeof(b)), "29.29k");
}

static bool has_line(const struct tui_text *t, const char *want)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->lines[i], want))
			return true;
	return false;
}

static void test_json_table(void **state)
{
	struct tui_text t = { 0 };

	(void)state;
	tui_text_add_json(&t, "{\"ticks\":12,\"meminfo\":{\"swap_used_bytes\":656109568},"
			  "\"arms\":[\"pc3\",\"pc0\"],\"ok\":true}");
	assert_true(has_line(&t, "ticks                    12"));
	assert_true(has_line(&t, "meminfo"));
	assert_true(has_line(&t, "  swap_used_bytes          626 MiB"));
	assert_true(has_line(&t, "arms                     pc3 pc0"));
	assert_true(has_line(&t, "ok                       true"));
	for (int i = 0; i < t.n; i++)
		assert_null(strpbrk(t.lines[i], "{}\""));
	tui_text_free(&t);
}

static void test_json_units(void **state)
{
	struct tui_text t = { 0 };

	(void)state;
	tui_text_add_json(&t, "{\"status\":\"ok\",\"elapsed_s\":12.3456,\"wait_s\":150,"
			  "\"deadline_unix\":1764568818.5,\"seed\":9007199254740991}");
	assert_true(has_line(&t, "status                   ok"));
	/* seconds and unix times read as durations and UTC times, the unit out of the label */
	assert_true(has_line(&t, "elapsed                  12.35 s"));
	assert_true(has_line(&t, "wait                     2 min 30 s"));
	assert_true(has_line(&t, "deadline                 2025-12-01T06:00:18Z"));
	/* an integer keeps every digit (cJSON prints this one with its last digit off) */
	assert_true(has_line(&t, "seed                     9007199254740991"));
	tui_text_free(&t);
}

/* the store hands over whole documents: text that is not JSON says so, nothing of it is shown */
static void test_json_not_json(void **state)
{
	struct tui_text t = { 0 };

	(void)state;
	tui_text_add_json(&t, "{\"status\":\"ok\",\"summary\":{\"pc3\":{\"mea");
	assert_int_equal(t.n, 1);
	assert_string_equal(t.lines[0], "(the stored text is not JSON)");
	tui_text_free(&t);
	tui_text_add_json(&t, "");
	assert_int_equal(t.n, 0);
	tui_text_free(&t);
}

/* the one-line editor of the confirm-within and report-path prompts */
static void test_line_key(void **state)
{
	char buf[8] = "2m";

	(void)state;
	assert_int_equal(tui_line_key(buf, sizeof(buf), 21), 0);	/* ^U clears */
	assert_string_equal(buf, "");
	for (const char *p = "30s"; *p; p++)
		assert_int_equal(tui_line_key(buf, sizeof(buf), *p), 0);
	assert_string_equal(buf, "30s");
	assert_int_equal(tui_line_key(buf, sizeof(buf), KEY_BACKSPACE), 0);
	assert_string_equal(buf, "30");
	for (int i = 0; i < 10; i++)		/* never past the buffer */
		tui_line_key(buf, sizeof(buf), 'x');
	assert_string_equal(buf, "30xxxxx");
	assert_int_equal(tui_line_key(buf, sizeof(buf), 1), 0);	/* other control keys ignored */
	assert_string_equal(buf, "30xxxxx");
	assert_int_equal(tui_line_key(buf, sizeof(buf), '\n'), 1);
	assert_int_equal(tui_line_key(buf, sizeof(buf), KEY_ENTER), 1);
	assert_int_equal(tui_line_key(buf, sizeof(buf), 27), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_fmt_count),
		cmocka_unit_test(test_json_table),
		cmocka_unit_test(test_json_units),
		cmocka_unit_test(test_json_not_json),
		cmocka_unit_test(test_line_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
