/*
 * test-cmd-parse.c - the option value parsers of src/fmt.c: durations,
 * sizes and strict integers/reals, with the bad inputs an outside review
 * and the fuzzer found (nan, inf, 20-digit values, empty strings, blanks).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "swaptune/fmt.h"

static void test_duration(void **state)
{
	static const struct { const char *s; int rc; long long ns; } cases[] = {
		{ "2s", 0, 2000000000LL }, { "200ms", 0, 200000000LL }, { "1m", 0, 60000000000LL },
		{ "1.5", 0, 1500000000LL }, { "10us", 0, 10000LL }, { "7ns", 0, 7 },
		{ "1h", 0, 3600000000000LL }, { "0", 0, 0 },
		{ "", -EINVAL, 0 }, { "nan", -EINVAL, 0 }, { "inf", -EINVAL, 0 },
		{ "infinity", -EINVAL, 0 }, { "-1s", -EINVAL, 0 }, { " 2s", -EINVAL, 0 },
		{ "2 s", -EINVAL, 0 }, { "2x", -EINVAL, 0 }, { "99999999999999999999h", -ERANGE, 0 },
		/* strtod() reads these; a duration is a plain decimal number */
		{ "0x10s", -EINVAL, 0 }, { "0x10", -EINVAL, 0 }, { "1e300", -EINVAL, 0 },
		{ "1e25", -EINVAL, 0 }, { "1e3s", -EINVAL, 0 }, { "+2s", -EINVAL, 0 },
		{ ".5s", -EINVAL, 0 }, { "5.s", -EINVAL, 0 }, { "0.5s", 0, 500000000LL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long ns = -1;
		int rc = fmt_parse_duration(cases[i].s, &ns);

		if (rc != cases[i].rc)
			fail_msg("duration '%s': rc %d, want %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0)
			assert_int_equal(ns, cases[i].ns);
	}
}

static void test_size(void **state)
{
	static const struct { const char *s; int rc; unsigned long long b; } cases[] = {
		{ "4096", 0, 4096 }, { "512M", 0, 512ULL << 20 }, { "1G", 0, 1ULL << 30 },
		{ "1GiB", 0, 1ULL << 30 }, { "2k", 0, 2048 }, { "1.5K", 0, 1536 },
		{ "", -EINVAL, 0 }, { "nan", -EINVAL, 0 }, { "inf", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 }, { "1X", -EINVAL, 0 }, { " 1G", -EINVAL, 0 },
		{ "18446744073575333888", -ERANGE, 0 }, { "1e25", -EINVAL, 0 },
		{ "0x10M", -EINVAL, 0 }, { "0x10", -EINVAL, 0 }, { "1e3K", -EINVAL, 0 },
		{ "2048P", -EINVAL, 0 }, { "1025T", 0, 1025ULL << 40 }, { "2000000T", -ERANGE, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long b = 0;
		int rc = fmt_parse_size(cases[i].s, &b);

		if (rc != cases[i].rc)
			fail_msg("size '%s': rc %d, want %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0)
			assert_true(b == cases[i].b);
	}
}

static void test_strict_numbers(void **state)
{
	long long v;
	double d;

	(void)state;
	assert_int_equal(fmt_parse_i64("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(fmt_parse_i64("", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_i64(" 4", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_i64("4 ", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_i64("4x", 0, 100, &v), -EINVAL);
	assert_int_equal(fmt_parse_i64("101", 0, 100, &v), -ERANGE);
	assert_int_equal(fmt_parse_i64("-1", 0, 100, &v), -ERANGE);
	assert_int_equal(fmt_parse_i64("99999999999999999999", 0, 100, &v), -ERANGE);
	assert_int_equal(fmt_parse_real("2.5", 0, 100, &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(fmt_parse_real("", 0, 100, &d), -EINVAL);
	assert_int_equal(fmt_parse_real("nan", 0, 100, &d), -EINVAL);
	assert_int_equal(fmt_parse_real("-inf", -1e9, 100, &d), -EINVAL);
	assert_int_equal(fmt_parse_real("1e25", 0, 100, &d), -ERANGE);
	assert_int_equal(fmt_parse_real("1e999", 0, 1e300, &d), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_strict_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
