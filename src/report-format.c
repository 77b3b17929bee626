/*
 * report-format.c - the output formats of a report (--format): their names
 * and the one dispatch from a format to its renderer (report-render.c:
 * text, md, json; report-html.c: html). It stands above the renderers so
 * that the model (report.c) never calls a renderer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/report.h"

const char *const report_format_names[] = { "text", "md", "json", "html", NULL };

int report_format_parse(const char *name)
{
	for (int i = 0; report_format_names[i]; i++)
		if (!strcmp(name, report_format_names[i]))
			return i;
	return -1;
}

int report_render(FILE *f, const struct report *r, enum report_format fmt)
{
	switch (fmt) {
	case REPORT_TEXT_FMT:
		report_render_text(f, r);
		return 0;
	case REPORT_MD:
		report_render_md(f, r);
		return 0;
	case REPORT_JSON:
		return report_render_json(f, r);
	case REPORT_HTML:
		report_render_html(f, r);
		return 0;
	}
	return -EINVAL;
}
