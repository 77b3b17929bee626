/*
 * test-report.c - the report model and its renderers (src/report.c,
 * report-render.c, report-html.c) on a hand-built report with hostile
 * text: numbers are shown in fmt_num()'s style and keep every digit as
 * JSON numbers (null when not measured), Markdown escapes table pipes and
 * markup, HTML escapes everything from the data, JSON parses back to the
 * model, text right-aligns numbers, stays within REPORT_TEXT_WIDTH (a wide
 * table split with its key columns repeated, long lines wrapped, commands
 * wrapped with a backslash), rows beyond noise are marked in every format,
 * the answer can be put first, and a run's params become key/value rows.
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
	report_bar_add(s, &(struct report_bar_in){ .name = "pc3", .mean = 2, .lo = 1, .hi = 3, .pts = pts,
						   .n_pts = 3, .highlight = true });
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
	assert_string_equal(report_num(131072, b, sizeof(b)), "131.1k");
	assert_string_equal(report_num(269666304, b, sizeof(b)), "269.7M");
	assert_string_equal(report_num(7.141234, b, sizeof(b)), "7.141");
	assert_string_equal(report_num(-1387.4, b, sizeof(b)), "-1387");
	assert_string_equal(report_num(0.000181, b, sizeof(b)), "0.000181");
	assert_string_equal(report_num(8.84e-26, b, sizeof(b)), "0");
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
	assert_non_null(strstr(md, "| pc3 \\*x\\* | 131.1k | 7.141 |"));
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
	assert_non_null(strstr(t, "  pc3 *x*   131.1k  7.141\n"));
	assert_non_null(strstr(t, "  pc0            4      -\n"));
	assert_non_null(strstr(t, "  CPU model   not recorded\n"));
	free(t);
	report_free(r);
}

/* A report wider and longer than the text width, with marked rows. */
static struct report *wide_report(void)
{
	struct report *r = report_new("compare", "wide");
	struct report_section *s = report_add(r, REPORT_TABLE, "metrics", "Before and after");
	const char *cols[12] = { "metric", "arm" };
	char names[12][32];

	for (int c = 2; c < 12; c++) {
		snprintf(names[c], sizeof(names[c]), "column number %d", c);
		cols[c] = names[c];
	}
	report_note(s, "a note long enough to need wrapping: %s",
		    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
		    "incididunt ut labore et dolore magna aliqua");
	report_cols(s, 12, cols);
	report_key_cols(s, 2);
	for (int row = 0; row < 3; row++) {
		report_cell(s, "metric-%d", row);
		if (row == 1)
			report_row_mark(s);
		report_cell(s, "pc%d", row);
		for (int c = 2; c < 12; c++)
			report_cell_num(s, row * 1000.0 + c);
	}
	s = report_add(r, REPORT_TEXT, "recipe", "Recipe");
	report_line(s, "sudo swaptune probe --workload cmd --arm 'a b:page-cluster=3' --seed 7 --working-set 256M "
		    "--memcg-limit 128M --ops 131072 --duration 60s -- /usr/bin/make -j2 'with a quoted long word'");
	s = report_add(r, REPORT_TEXT, "summary", "Summary");
	report_line(s, "the answer");
	report_order(r, (const char *const[]){ "summary", "nothing-by-that-id" }, 2);
	return r;
}

static void test_text_width(void **state)
{
	struct report *r = wide_report();
	char *t = render(report_render_text, r), *line, *save = NULL, *copy = strdup(t);
	int parts = 0, marked = 0, continued = 0;

	(void)state;
	assert_int_equal(strncmp(r->sec[0]->id, "summary", 7), 0);	/* the answer first */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strlen(line) > REPORT_TEXT_WIDTH)
			fail_msg("line of %zu columns: %s", strlen(line), line);
		parts += !strncmp(line, "  metric  ", 10);
		marked += !strncmp(line, "* metric-1  pc1", 15);
		continued += strlen(line) > 2 && line[strlen(line) - 1] == '\\';
	}
	assert_true(parts >= 2);		/* split, the key columns repeated */
	assert_int_equal(marked, parts);	/* the marked row in every part */
	assert_true(continued >= 1);		/* the command wrapped, pasteable */
	assert_non_null(strstr(t, "* = beyond noise"));
	/* the quoted word is never broken */
	assert_non_null(strstr(t, "'with a quoted long word'"));
	free(copy);
	free(t);
	report_free(r);
}

static void test_marks_everywhere(void **state)
{
	struct report *r = wide_report();
	char *md = render(report_render_md, r), *h = render(report_render_html, r), *j = render(json_fn, r);
	cJSON *d = cJSON_Parse(j), *sec;

	(void)state;
	assert_non_null(strstr(md, "| **metric-1** | **pc1** |"));
	assert_non_null(strstr(md, "rows in bold: beyond noise"));
	assert_non_null(strstr(h, "<tr class=\"beyond\"><td>metric-1</td>"));
	assert_non_null(strstr(h, "<div class=\"answer\">"));
	assert_non_null(strstr(h, "<th class=\"num\">column number 2</th>"));
	sec = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "sections"), 1);
	assert_string_equal(cJSON_GetObjectItem(sec, "id")->valuestring, "metrics");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sec, "marked_rows")), 1);
	assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(sec, "marked_rows"), 0)->valueint, 1);
	cJSON_Delete(d);
	free(md);
	free(h);
	free(j);
	report_free(r);
}

static void test_facts_json(void **state)
{
	static const char *const skip[] = { "who" };
	struct report *r = report_new("change", "t");
	struct report_section *s = report_add(r, REPORT_FACTS, "parameters", "Parameters");
	struct run_params p;
	char *t;

	(void)state;
	run_params_decode("{\"settings\":{\"page-cluster\":\"0\",\"vma_ra_enabled\":\"true\"},\"source_run\":6,"
			  "\"arm\":\"pc0\",\"who\":{\"uid\":0},\"confirm_deadline_unix\":1796133750.06,"
			  "\"persist\":false,\"limit_bytes\":268435456,\"window_s\":120,\"files\":[\"a\",\"b\"],"
			  "\"plan\":{\"looks\":[5,10],\"alpha\":0.025}}", &p);
	report_facts_json(s, "parameters", p.doc, "unused", skip, 1);
	run_params_free(&p);
	t = render(report_render_text, r);
	assert_non_null(strstr(t, "  settings           page-cluster=0, vma_ra_enabled=true\n"));
	assert_non_null(strstr(t, "  source run         6\n"));
	assert_non_null(strstr(t, "  confirm deadline   2026-12-01T"));
	assert_non_null(strstr(t, "  persist            no\n"));
	assert_non_null(strstr(t, "  limit              256.0 MiB\n"));
	assert_non_null(strstr(t, "  window             120 s\n"));
	assert_non_null(strstr(t, "  files              a, b\n"));
	assert_non_null(strstr(t, "  plan looks         5, 10\n"));
	assert_non_null(strstr(t, "  plan alpha         0.025\n"));
	assert_null(strstr(t, "who"));
	assert_null(strstr(t, "{"));
	free(t);
	/* not JSON: one fact, as it is */
	s = report_add(r, REPORT_FACTS, "p2", "P2");
	run_params_decode("not json", &p);
	report_facts_json(s, "parameters", p.doc, "not json", NULL, 0);
	run_params_free(&p);
	assert_string_equal(s->values[0], "not json");
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
		cmocka_unit_test(test_text_width),
		cmocka_unit_test(test_marks_everywhere),
		cmocka_unit_test(test_facts_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
