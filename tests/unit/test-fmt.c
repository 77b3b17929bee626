/*
 * test-fmt.c - units for people (src/fmt.c): sizes with binary units, and
 * the duration and size parsers behind --interval, --duration, --memcg-limit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>

#include "swaptune/fmt.h"

static void test_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(fmt_bytes(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(fmt_bytes(1536, b, sizeof(b)), "1.5 KiB");
	assert_string_equal(fmt_bytes(3ull << 30, b, sizeof(b)), "3.0 GiB");
	assert_string_equal(fmt_bytes(5ull << 50, b, sizeof(b)), "5120.0 TiB");
}

static void test_parse_duration(void **state)
{
	long long ns;

	(void)state;
	assert_int_equal(fmt_parse_duration("2", &ns), 0);
	assert_true(ns == 2000000000LL);
	assert_int_equal(fmt_parse_duration("200ms", &ns), 0);
	assert_true(ns == 200000000LL);
	assert_int_equal(fmt_parse_duration("1.5m", &ns), 0);
	assert_true(ns == 90000000000LL);
	assert_int_equal(fmt_parse_duration("1h", &ns), 0);
	assert_true(ns == 3600000000000LL);
	assert_int_equal(fmt_parse_duration("5x", &ns), -EINVAL);
	assert_int_equal(fmt_parse_duration("-1", &ns), -EINVAL);
	assert_int_equal(fmt_parse_duration("", &ns), -EINVAL);
	assert_int_equal(fmt_parse_duration("1e12h", &ns), -EINVAL);
	assert_int_equal(fmt_parse_duration("999999999999h", &ns), -ERANGE);
	assert_int_equal(fmt_parse_duration("0x10s", &ns), -EINVAL);
}

static void test_parse_size(void **state)
{
	unsigned long long b;

	(void)state;
	assert_int_equal(fmt_parse_size("4096", &b), 0);
	assert_true(b == 4096);
	assert_int_equal(fmt_parse_size("512M", &b), 0);
	assert_true(b == 512ull << 20);
	assert_int_equal(fmt_parse_size("1GiB", &b), 0);
	assert_true(b == 1ull << 30);
	assert_int_equal(fmt_parse_size("2kb", &b), 0);
	assert_true(b == 2048);
	assert_int_equal(fmt_parse_size("1Q", &b), -EINVAL);
	assert_int_equal(fmt_parse_size("1MX", &b), -EINVAL);
}

static void test_escape(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(fmt_escape("plain /dev/vdb", b, sizeof(b)), "plain /dev/vdb");
	assert_string_equal(fmt_escape("a\033[2J\nb\r\x7f", b, sizeof(b)), "a\\x1b[2J\\x0ab\\x0d\\x7f");
	/* printable UTF-8 stays; C1 (U+009B) and invalid bytes do not */
	assert_string_equal(fmt_escape("caf\xc3\xa9", b, sizeof(b)), "caf\xc3\xa9");
	assert_string_equal(fmt_escape("\xc2\x9b", b, sizeof(b)), "\\xc2\\x9b");
	assert_string_equal(fmt_escape("\x9b" "1m\xff", b, sizeof(b)), "\\x9b" "1m\\xff");
	assert_string_equal(fmt_escape(NULL, b, sizeof(b)), "");
	/* truncates, never splits an escape */
	assert_string_equal(fmt_escape("\033\033\033", b, 8), "\\x1b");
	assert_string_equal(fmt_printable("x\ny"), "x\\x0ay");
	/* surrogates and beyond U+10FFFF are not UTF-8 */
	assert_string_equal(fmt_escape("\xed\xa0\x80", b, sizeof(b)), "\\xed\\xa0\\x80");
	assert_string_equal(fmt_escape("\xf4\x90\x80\x80", b, sizeof(b)), "\\xf4\\x90\\x80\\x80");
}

/* fmt_fputs() writes what fmt_escape() returns, whole; fmt_escape_len() is its length. */
static void test_fputs(void **state)
{
	static const char *const cases[] = {
		"plain", "a\033[2J\nb", "\xc2\x9b" "31m", "caf\xc3\xa9 \x9b\xff", "",
		"\xe2\x82", "tab\there",
	};
	char b[256], *out = NULL;
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = open_memstream(&out, &len);

		assert_non_null(f);
		fmt_fputs(f, cases[i]);
		fclose(f);
		assert_string_equal(out, fmt_escape(cases[i], b, sizeof(b)));
		assert_int_equal(fmt_escape_len(cases[i]), strlen(out));
		free(out);
		out = NULL;
	}
	/* no length limit */
	{
		char big[5000];
		FILE *f = open_memstream(&out, &len);

		memset(big, '\033', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		fmt_fputs(f, big);
		fclose(f);
		assert_int_equal(strlen(out), 4 * (sizeof(big) - 1));
		free(out);
	}
}

/* One shell word, whatever it holds; never a cut word. */
static void test_shell_quote(void **state)
{
	char q[64];

	(void)state;
	assert_int_equal(fmt_shell_quote("anon-zipf", false, q, sizeof(q)), 0);
	assert_string_equal(q, "anon-zipf");
	assert_int_equal(fmt_shell_quote("anon-zipf", true, q, sizeof(q)), 0);
	assert_string_equal(q, "'anon-zipf'");
	assert_int_equal(fmt_shell_quote("pc3;touch X", false, q, sizeof(q)), 0);
	assert_string_equal(q, "'pc3;touch X'");
	assert_int_equal(fmt_shell_quote("it's $(id)", false, q, sizeof(q)), 0);
	assert_string_equal(q, "'it'\\''s $(id)'");
	assert_int_equal(fmt_shell_quote("", false, q, sizeof(q)), 0);
	assert_string_equal(q, "''");
	/* a control byte is quoted (and shown escaped when printed) */
	assert_int_equal(fmt_shell_quote("a\033[2J", false, q, sizeof(q)), 0);
	assert_string_equal(q, "'a\033[2J'");
	assert_int_equal(fmt_shell_quote("0123456789", false, q, 8), -ENOSPC);
	assert_string_equal(q, "");
	assert_int_equal(fmt_shell_quote("x y", false, q, 6), 0);
	assert_int_equal(fmt_shell_quote("x y", false, q, 5), -ENOSPC);
}

/* Finite numbers stay numbers; NAN and infinities become null, never "nan". */
static void test_json_num(void **state)
{
	cJSON *o = cJSON_CreateObject();
	char *t;

	(void)state;
	fmt_json_num(o, "a", 1.5);
	fmt_json_num(o, "b", NAN);
	fmt_json_num(o, "c", -INFINITY);
	fmt_json_num(o, "d", 0);
	t = cJSON_PrintUnformatted(o);
	assert_string_equal(t, "{\"a\":1.5,\"b\":null,\"c\":null,\"d\":0}");
	cJSON_free(t);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_json_num),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_fputs),
		cmocka_unit_test(test_shell_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
