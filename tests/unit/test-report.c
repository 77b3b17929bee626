/*
 * test-report.c - the report model and its renderers (src/report.c,
 * report-render.c, report-html.c) on a hand-built report with hostile
 * text: numbers keep every digit of a counter and become JSON numbers
 * (null when not measured), Markdown escapes table pipes and markup,
 * HTML escapes everything from the data, JSON parses back to the model,
 * text right-aligns numbers.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/report.h"

static struct report *sample_report(void)
{
	struct report *r = report_new("run", "probe <1> & co");
	struct report_section *s = report_add(r, REPORT_FACTS, "host", "Host");
	static const char *const cols[] = { "arm", "n|count", "mean" };
	double pts[] = { 1, 2, 3 };

	report_fact(s, "hostname", "%s", "db|07 <b>");
	report_fact_opt(s, "CPU model", NULL);
	s = report_add(r, REPORT_TABLE, "arms", "Arms");
	report_cols(s, 3, cols);
	report_cell(s, "pc3 *x*");
	report_cell_num(s, 131072);
	report_cell_num(s, 7.141234);
	report_cell(s, "pc0");
	report_cell_num(s, 4);
	report_cell_num(s, NAN);
	s = report_add(r, REPORT_TEXT, "recipe", "Recipe");
	report_line(s, "sudo swaptune probe --seed 7");
	report_line(s, "a note");
	s = report_add(r, REPORT_CHART, "c", "Chart \"q\"");
	s->chart.kind = REPORT_CHART_BARS;
	report_bar_add(s, "pc3", 2, 1, 3, pts, 3, true);
	return r;
}

typedef void (*render_fn)(FILE *, const struct report *);

static char *render(render_fn fn, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, r);
	fclose(f);
	return buf;
}

static void json_fn(FILE *f, const struct report *r)
{
	assert_int_equal(report_render_json(f, r), 0);
}

static void test_numbers(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(report_num(131072, b, sizeof(b)), "131072");
	assert_string_equal(report_num(269666304, b, sizeof(b)), "269666304");
	assert_string_equal(report_num(7.141234, b, sizeof(b)), "7.141");
	assert_string_equal(report_num(-1387.4, b, sizeof(b)), "-1387");
	assert_string_equal(report_num(0.000181, b, sizeof(b)), "0.000181");
	assert_string_equal(report_num(NAN, b, sizeof(b)), "-");
}

static void test_cells_fill_rows(void **state)
{
	struct report *r = sample_report();
	const struct report_section *s = r->sec[1];

	(void)state;
	assert_int_equal(s->n_rows, 2);
	assert_int_equal(s->n_cols, 3);
	assert_true(s->cells[4].is_num);
	assert_false(s->cells[5].is_num);		/* NAN: not measured */
	assert_string_equal(r->sec[0]->values[1], REPORT_NOT_RECORDED);
	report_free(r);
}

static void test_markdown(void **state)
{
	struct report *r = sample_report();
	char *md = render(report_render_md, r);

	(void)state;
	assert_non_null(strstr(md, "# probe \\<1\\> & co\n"));
	assert_non_null(strstr(md, "| **hostname** | db\\|07 \\<b\\> |"));
	assert_non_null(strstr(md, "| arm | n\\|count | mean |\n| --- | ---: | ---: |"));
	assert_non_null(strstr(md, "| pc3 \\*x\\* | 131072 | 7.141 |"));
	assert_non_null(strstr(md, "```sh\nsudo swaptune probe --seed 7\n```\n\n- a note\n"));
	assert_null(strstr(md, "<b>"));
	free(md);
	report_free(r);
}

static void test_html_escapes(void **state)
{
	struct report *r = sample_report();
	char *h = render(report_render_html, r);

	(void)state;
	assert_non_null(strstr(h, "<title>probe &lt;1&gt; &amp; co</title>"));
	assert_non_null(strstr(h, "<td>db|07 &lt;b&gt;</td>"));
	assert_non_null(strstr(h, "<title>Chart &quot;q&quot;</title>"));	/* the chart's svg title */
	assert_non_null(strstr(h, "<circle class=\"trial\""));
	assert_null(strstr(h, "<b>"));
	assert_null(strstr(h, "<script"));
	free(h);
	report_free(r);
}

static void test_json_round_trip(void **state)
{
	struct report *r = sample_report();
	char *j = render(json_fn, r);
	cJSON *d = cJSON_Parse(j), *secs, *rows, *bars;

	(void)state;
	assert_non_null(d);
	assert_string_equal(cJSON_GetObjectItem(d, "schema")->valuestring, REPORT_SCHEMA);
	secs = cJSON_GetObjectItem(d, "sections");
	assert_int_equal(cJSON_GetArraySize(secs), 4);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(secs, 0), "facts"),
						"hostname")->valuestring, "db|07 <b>");
	rows = cJSON_GetObjectItem(cJSON_GetArrayItem(secs, 1), "rows");
	assert_int_equal((int)cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 0), 1)->valuedouble, 131072);
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 1), 2)));
	bars = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(secs, 3), "chart"), "bars");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(bars, 0), "trials")), 3);
	cJSON_Delete(d);
	free(j);
	report_free(r);
}

static void test_text_alignment(void **state)
{
	struct report *r = sample_report();
	char *t = render(report_render_text, r);

	(void)state;
	assert_non_null(strstr(t, "  pc3 *x*   131072  7.141\n"));
	assert_non_null(strstr(t, "  pc0            4  -\n"));
	assert_non_null(strstr(t, "  CPU model   not recorded\n"));
	free(t);
	report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_cells_fill_rows),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_html_escapes),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_text_alignment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
