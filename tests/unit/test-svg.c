/*
 * test-svg.c - src/svg.c: XML escaping (no raw markup from data), 1-2-5
 * nice ranges, tick labels with SI units, data-to-pixel scales, and that a
 * chart skeleton (open, axes, legend, close) is well-formed text.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/svg.h"

static char *capture(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void do_escape(FILE *f, void *arg)
{
	svg_escape(f, arg);
}

static void test_escape(void **state)
{
	char *s = capture(do_escape, "<b a=\"x\">Tom & Jerry's\x01</b>");

	(void)state;
	assert_string_equal(s, "&lt;b a=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s?&lt;/b&gt;");
	free(s);
}

static void test_nice_range(void **state)
{
	static const struct { double lo, hi; int ticks; double want_lo, want_hi, want_step; } cases[] = {
		{ 0, 1164, 5, 0, 1200, 200 },
		{ 0, 4.3, 4, 0, 5, 1 },
		{ -15.2, 14.9, 8, -20, 15, 5 },
		{ 0, 0, 4, 0, 1, 0.2 },		/* flat data still gets an axis */
		{ 3, 3, 3, 2.6, 3.4, 0.2 },
		{ 0, 268435456, 4, 0, 3e8, 5e7 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double lo = cases[i].lo, hi = cases[i].hi;
		double step = svg_nice_range(&lo, &hi, cases[i].ticks);

		assert_float_equal(step, cases[i].want_step, 1e-9 * cases[i].want_step);
		assert_float_equal(lo, cases[i].want_lo, 1e-9 + 1e-9 * fabs(cases[i].want_lo));
		assert_float_equal(hi, cases[i].want_hi, 1e-9 * cases[i].want_hi);
	}
}

static void test_tick_label(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(svg_tick_label(0, b, sizeof(b)), "0");
	assert_string_equal(svg_tick_label(0.25, b, sizeof(b)), "0.25");
	assert_string_equal(svg_tick_label(800, b, sizeof(b)), "800");
	assert_string_equal(svg_tick_label(1500, b, sizeof(b)), "1.5k");
	assert_string_equal(svg_tick_label(2e6, b, sizeof(b)), "2M");
	assert_string_equal(svg_tick_label(-5000, b, sizeof(b)), "-5k");
	assert_string_equal(svg_tick_label(3e9, b, sizeof(b)), "3G");
	assert_string_equal(svg_tick_label(1e-17, b, sizeof(b)), "0");	/* float residue of a step sum */
}

static void test_scale(void **state)
{
	struct svg_plot p = { 10, 20, 100, 50, 0, 10, -5, 5 };

	(void)state;
	assert_float_equal(svg_x(&p, 0), 10, 1e-12);
	assert_float_equal(svg_x(&p, 10), 110, 1e-12);
	assert_float_equal(svg_y(&p, -5), 70, 1e-12);	/* bottom */
	assert_float_equal(svg_y(&p, 5), 20, 1e-12);	/* top */
	assert_float_equal(svg_y(&p, 0), 45, 1e-12);
}

static void do_chart(FILE *f, void *arg)
{
	struct svg_plot p = { 60, 30, 400, 200, 0, 10, 0, 100 };
	static const char *const names[] = { "before", "after <&>" };
	static const char *const cols[] = { "#000", "#fff" };

	(void)arg;
	svg_open(f, 500, 300, "t <1>");
	svg_axes(f, &p, 5, 50, "min", "pages/s");
	svg_legend(f, 60, 290, names, cols, 2);
	svg_close(f);
}

static void test_chart_skeleton(void **state)
{
	char *s = capture(do_chart, NULL);

	(void)state;
	assert_non_null(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 500 300\""));
	assert_non_null(strstr(s, "<title>t &lt;1&gt;</title>"));
	assert_non_null(strstr(s, ">pages/s</text>"));		/* y unit */
	assert_non_null(strstr(s, ">min</text>"));		/* x unit */
	assert_non_null(strstr(s, ">100</text>"));		/* top y tick */
	assert_non_null(strstr(s, ">after &lt;&amp;&gt;</text>"));
	assert_null(strstr(s, "<&>"));
	assert_non_null(strstr(s, "</svg>\n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_nice_range),
		cmocka_unit_test(test_tick_label),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_chart_skeleton),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
