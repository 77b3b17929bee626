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
/* what fmt_wrap_open() at width makes of text, written in one go */
static char *wrapped(const char *text, int width)
{
	char *out = NULL;
	size_t len = 0;
	FILE *to = open_memstream(&out, &len), *w;

	assert_non_null(to);
	w = fmt_wrap_open(to, width);
	assert_non_null(w);
	fputs(text, w);
	fclose(w);
	fclose(to);
	return out;
}

static void test_wrap(void **state)
{
	char *s, *out = NULL;
	size_t len = 0;
	FILE *to, *w;

	(void)state;
	/* a line that fits is left alone, and so is an unended last line */
	s = wrapped("key   value\nrest", 20);
	assert_string_equal(s, "key   value\nrest");
	free(s);
	/* at a blank, continued under the value column (after the last gap) */
	s = wrapped("Kernel   alpha beta gamma delta epsilon zeta eta theta iota\n", 50);
	assert_string_equal(s, "Kernel   alpha beta gamma delta epsilon zeta eta\n         theta iota\n");
	free(s);
	/* no gap: two past the line's own indent; a word wider than the line stays whole */
	s = wrapped("  - alpha beta gamma\nabcdefghijklmnopqrstuvwxyz tail\n", 12);
	assert_string_equal(s, "  - alpha\n    beta\n    gamma\nabcdefghijklmnopqrstuvwxyz\n  tail\n");
	free(s);
	/* a gap too far right (less than 40 columns left after it) is not a column */
	s = wrapped("name        one two three four five six seven eight nine\n", 50);
	assert_string_equal(s, "name        one two three four five six seven\n  eight nine\n");
	free(s);
	/* colour escapes and UTF-8 take no columns beyond their characters */
	assert_int_equal(fmt_display_width("\033[1;31mcaf\xc3\xa9\033[0m", 16), 4);
	/* the caller's fflush() (before a question on stderr) reaches the real stream */
	to = open_memstream(&out, &len);
	assert_non_null(to);
	w = fmt_wrap_open(to, 100);
	fputs("the plan\n", w);
	fflush(w);
	assert_string_equal(out, "the plan\n");
	fclose(w);
	fclose(to);
	free(out);
}

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
/* every human number: no exponent, 4 significant digits, SI from 10 000 */
static void test_num(void **state)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 0, "0" }, { -0.0, "0" }, { 3, "3" }, { 64, "64" }, { 2.5, "2.5" },
		{ 7.141, "7.141" }, { 1002, "1002" }, { 9999, "9999" }, { 991.07, "991.1" },
		{ 0.01315, "0.01315" }, { 0.1315, "0.1315" }, { 4.653e-05, "0.00004653" },
		{ 8.84e-26, "0" }, { 1e-10, "0" },
		{ 10000, "10.00k" }, { 12345, "12.35k" }, { 28048, "28.05k" }, { 28005, "28.00k" }, { 52100, "52.10k" }, { 131072, "131.1k" },
		{ 999999, "1.000M" }, { 999960, "1.000M" }, { 1234567, "1.235M" }, { 16865979, "16.87M" },
		{ 2.5e9, "2.500G" }, { 1e12, "1.000T" }, { 1e15, "1.000P" }, { 1e18, "1.000E" }, { 5e21, "5000E" },
		{ -1387, "-1387" }, { -2921.4, "-2921" }, { -28048, "-28.05k" }, { -0.02402, "-0.02402" },
		{ 2.929e+04, "29.29k" }, { 508779, "508.8k" }, { 688123, "688.1k" },
	};
	char b[FMT_NUM_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_num(cases[i].v, b, sizeof(b));
		if (strcmp(b, cases[i].want))
			fail_msg("fmt_num(%g) = \"%s\", want \"%s\"", cases[i].v, b, cases[i].want);
		assert_null(strchr(b, 'e'));
	}
	assert_string_equal(fmt_num(NAN, b, sizeof(b)), "-");
	assert_string_equal(fmt_num(INFINITY, b, sizeof(b)), "-");
	assert_string_equal(fmt_num_sig(1234, 3, b, sizeof(b)), "1234");
	assert_string_equal(fmt_num_sig(12345, 3, b, sizeof(b)), "12.3k");
	assert_string_equal(fmt_num_sig(45.67, 3, b, sizeof(b)), "45.7");
	/* every power of ten from 1e-9 to 1e20, and a tiny buffer: never an exponent, never past len */
	for (double v = 1e-9; v < 1e20; v *= 7.3) {
		char small[6];

		assert_null(strchr(fmt_num(v, b, sizeof(b)), 'e'));
		assert_true(strlen(b) < 12);
		fmt_num(v, small, sizeof(small));
		assert_true(strlen(small) < sizeof(small));
	}
}

static void test_short(void **state)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 0, "0" }, { -5, "0" }, { 0.001, "0" }, { 0.05, "0.05" }, { 0.5, "0.5" }, { 1.5, "1.5" },
		{ 1.234, "1.23" }, { 45.67, "45.7" }, { 789, "789" }, { 9999, "9999" },
		{ 12345, "12.3k" }, { 123456, "123k" }, { 999600, "1.00M" }, { 12.3e6, "12.3M" },
		{ 1.2e9, "1.20G" },
	};
	char b[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_short(b, sizeof(b), true, cases[i].v);
		if (strcmp(b, cases[i].want))
			fail_msg("fmt_short(%g) = \"%s\", want \"%s\"", cases[i].v, b, cases[i].want);
		assert_true(strlen(b) <= 5);
	}
	assert_string_equal(fmt_short(b, sizeof(b), false, 1), "n/a");
}

static void test_p(void **state)
{
	static const struct { double p; const char *want; } cases[] = {
		{ 8.84e-26, "<0.001" }, { 0.000181, "<0.001" }, { 0.001, "0.0010" },
		{ 0.002758, "0.0028" }, { 0.01315, "0.013" }, { 0.09907, "0.099" }, { 0.0999, "0.10" },
		{ 0.3278, "0.33" }, { 0.5632, "0.56" }, { 0.8149, "0.81" }, { 0.996, "1.0" }, { 1, "1.0" },
	};
	char b[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_p(cases[i].p, b, sizeof(b));
		if (strcmp(b, cases[i].want))
			fail_msg("fmt_p(%g) = \"%s\", want \"%s\"", cases[i].p, b, cases[i].want);
	}
	assert_string_equal(fmt_p(NAN, b, sizeof(b)), "-");
}

static void test_pct_size_time(void **state)
{
	char b[48];
	unsigned long long back;

	(void)state;
	assert_string_equal(fmt_pct(5, true, b, sizeof(b)), "+5.0 %");
	assert_string_equal(fmt_pct(-33.49, true, b, sizeof(b)), "-33.5 %");
	assert_string_equal(fmt_pct(6.25, false, b, sizeof(b)), "6.2 %");
	assert_string_equal(fmt_pct(NAN, true, b, sizeof(b)), "-");
	assert_string_equal(fmt_pct(123456, true, b, sizeof(b)), "+123.5k %");

	assert_string_equal(fmt_size_arg(268435456, b, sizeof(b)), "256M");
	assert_string_equal(fmt_size_arg(134217728, b, sizeof(b)), "128M");
	assert_string_equal(fmt_size_arg(1536ull << 20, b, sizeof(b)), "1536M");
	assert_string_equal(fmt_size_arg(1ull << 30, b, sizeof(b)), "1G");
	assert_string_equal(fmt_size_arg(4096, b, sizeof(b)), "4K");
	assert_string_equal(fmt_size_arg(1000, b, sizeof(b)), "1000");
	assert_string_equal(fmt_size_arg(0, b, sizeof(b)), "0");
	assert_string_equal(fmt_size_arg(5ull << 50, b, sizeof(b)), "5120T");
	/* what it prints, the option parser reads back to the byte */
	for (unsigned long long v = 1; v < (1ull << 44); v = v * 3 + 1024) {
		fmt_size_arg(v, b, sizeof(b));
		assert_int_equal(fmt_parse_size(b, &back), 0);
		assert_true(back == v);
	}

	assert_string_equal(fmt_time("2026-11-30T09:00:00.000Z", false, b, sizeof(b)), "2026-11-30T09:00:00Z");
	assert_string_equal(fmt_time("2026-11-30T09:00:00Z", true, b, sizeof(b)), "2026-11-30 09:00:00Z");
	assert_string_equal(fmt_time("2026-11-30T09:00:00", false, b, sizeof(b)), "2026-11-30T09:00:00Z");
	assert_string_equal(fmt_time("not recorded", false, b, sizeof(b)), "not recorded");
	assert_string_equal(fmt_time("2026-11-30T09:00:00+01:00", false, b, sizeof(b)), "2026-11-30T09:00:00+01:00");
	assert_string_equal(fmt_time("2026-11-30\x1b[2J", false, b, sizeof(b)), "2026-11-30\\x1b[2J");
	assert_string_equal(fmt_time(NULL, false, b, sizeof(b)), "");
}

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

/* Seeds below 2^53 survive a JSON round trip digit for digit (cJSON's own %1.15g would not). */
/* Decimal only (issue 33, 10): --min-effect 0x10 was 16 */
static void test_parse_real(void **state)
{
	double v = -1;

	(void)state;
	assert_int_equal(fmt_parse_real("2.5", 0, 100, &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(fmt_parse_real("1e1", 0, 100, &v), 0);
	assert_true(v == 10);
	assert_int_equal(fmt_parse_real("0x10", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_real("0X1p3", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_real("infinity", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_real("nan", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_real("1e999", 0, 100, &v), -ERANGE);
	assert_int_equal(fmt_parse_real("101", 0, 100, &v), -ERANGE);
}

static void test_json_u53(void **state)
{
	static const uint64_t seeds[] = { 0, 1, 4503599627370497ULL, 6639210877975095ULL,
					  8999999999999991ULL, (1ULL << 53) - 1 };

	(void)state;
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		cJSON *o = cJSON_CreateObject(), *back;
		char *text;

		fmt_json_u53(o, "seed", seeds[i]);
		text = cJSON_PrintUnformatted(o);
		assert_non_null(text);
		back = cJSON_Parse(text);
		assert_non_null(back);
		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(back, "seed")));
		assert_true((uint64_t)cJSON_GetObjectItem(back, "seed")->valuedouble == seeds[i]);
		cJSON_Delete(back);
		cJSON_free(text);
		cJSON_Delete(o);
	}
}

/* times: what swaptune writes, and only dates the calendar has */
static void test_parse_time(void **state)
{
	double t;

	(void)state;
	assert_int_equal(fmt_parse_time("2026-11-01T01:00:00.000Z", &t), 0);
	assert_true(t == 1793494800.0);
	assert_int_equal(fmt_parse_time("2024-02-29T23:59:59Z", &t), 0);	/* a leap day */
	assert_int_equal(fmt_parse_time("2026-02-30T00:00:00Z", &t), -EINVAL);
	assert_int_equal(fmt_parse_time("2026-02-29T00:00:00Z", &t), -EINVAL);
	assert_int_equal(fmt_parse_time("2026-11-01T24:00:00Z", &t), -EINVAL);
	assert_int_equal(fmt_parse_time("2026-11-31T00:00:00Z", &t), -EINVAL);
	assert_int_equal(fmt_parse_time("2026-11-01T00:60:00Z", &t), -EINVAL);
	assert_int_equal(fmt_parse_time("2026-11-01T00:00:00Zx", &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_p),
		cmocka_unit_test(test_pct_size_time),
		cmocka_unit_test(test_json_num),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_fputs),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_json_u53),
		cmocka_unit_test(test_parse_real),
		cmocka_unit_test(test_parse_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
