/*
 * help.c - `swaptune --help`, `swaptune COMMAND --help` and the man page's
 * generated SYNOPSIS and OPTIONS (share/man/gen-man.sh), all made from the
 * command table and its option tables. Text is wrapped to 80 columns.
 */
#include <stdio.h>
#include <string.h>

#include "swaptune/cmd.h"

#define HELP_WIDTH 79		/* columns of --help text */
#define OPT_COL 26		/* where an option's help starts */

/*
 * Write text from column col (already written), breaking at blanks so
 * that no line passes HELP_WIDTH where a word allows; continuation lines
 * start at indent. A blank inside [...] or (...) is no break when
 * keep_groups (a synopsis keeps "[--count N]" on one line).
 */
static void wrap(FILE *f, const char *text, int col, int indent, bool keep_groups)
{
	const char *p = text;
	bool line_start = true;	/* nothing of text on this line yet */

	while (*p) {
		const char *w = p;
		int depth = 0, len;

		/* the next breakable unit: up to a blank at depth 0 */
		for (; *w && !(*w == ' ' && depth == 0); w++)
			if (keep_groups && (*w == '[' || *w == '('))
				depth++;
			else if (keep_groups && (*w == ']' || *w == ')') && depth > 0)
				depth--;
		len = (int)(w - p);
		if (!line_start && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			line_start = true;
		}
		if (!line_start) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)len, f);
		col += len;
		line_start = false;
		for (p = w; *p == ' '; p++)
			;
	}
	fputc('\n', f);
}

/* "  --count N             stop after N ticks" */
static void option_line(FILE *f, const char *spelling, const char *help)
{
	int w = (int)strlen(spelling);

	fprintf(f, "  %s", spelling);
	if (w + 2 > OPT_COL - 2) {
		fprintf(f, "\n%*s", OPT_COL, "");
		wrap(f, help, OPT_COL, OPT_COL, false);
	} else {
		fprintf(f, "%*s", OPT_COL - 2 - w, "");
		wrap(f, help, OPT_COL, OPT_COL, false);
	}
}

static void print_rows(FILE *f, const struct opt_spec *o, bool sections)
{
	char sp[128], help[1024];

	for (; o && o->name; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		if (sections && o->section)
			fprintf(f, "\n%s:\n", o->section);
		option_line(f, opt_spelling(o, sp, sizeof(sp)), opt_help(o, help, sizeof(help)));
	}
}

void cmd_print_help(FILE *f, const struct cmd_entry *c)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "usage: swaptune %s", c->name);

	fputs(head, f);
	if (c->usage[0]) {
		fputc(' ', f);
		wrap(f, c->usage, n + 1, n + 1, true);
	} else {
		fputc('\n', f);
	}
	fputc('\n', f);
	wrap(f, c->summary, 0, 0, false);
	if (c->flags & CMD_NEEDS_ROOT)
		fprintf(f, "Needs root.\n");
	if ((c->opts[0] && c->opts[0]->name) || c->args_help) {
		/* a first section heading stands for "Options" */
		if (!c->opts[0] || !c->opts[0]->name || !c->opts[0]->section)
			fprintf(f, "\nOptions:\n");
		for (size_t t = 0; t < OPT_TABLES_MAX && c->opts[t]; t++)
			print_rows(f, c->opts[t], true);
		if (c->args_help)
			option_line(f, c->args, c->args_help);
	}
	fprintf(f, "\nCommon options:\n");
	print_rows(f, cmd_common_opts, false);
	fputc('\n', f);
	if (c->answers) {
		char text[512];

		snprintf(text, sizeof(text), "Exit status: %s; errors: 1 runtime failure, 2 usage or "
			 "bad input, 3 not permitted or prerequisite missing.", c->answers);
		wrap(f, text, 0, 0, false);
	} else {
		wrap(f, "Exit status: 0 ok, 1 runtime failure, 2 usage or bad input, 3 not permitted "
		     "or prerequisite missing.", 0, 0, false);
	}
}

void cmd_print_overview(FILE *f)
{
	fprintf(f, "usage: swaptune COMMAND [OPTIONS]\n\n"
		"Measures which swap-readahead setting suits this host and its zswap,\n"
		"applies it safely and keeps every result.\n");
	for (int g = 0; g < CMD_GROUP_COUNT; g++) {
		fprintf(f, "\n%s:\n", cmd_group_title((enum cmd_group)g));
		for (size_t i = 0; i < cmd_count(); i++) {
			const struct cmd_entry *c = cmd_at(i);

			if (c->group != (enum cmd_group)g)
				continue;
			fprintf(f, "  %-12s  ", c->name);
			wrap(f, c->summary, 16, 16, false);
		}
	}
	fprintf(f, "\nCommon options (before or after the command):\n");
	print_rows(f, cmd_common_opts, false);
	fprintf(f, "\nGlobal options:\n");
	print_rows(f, cmd_global_opts, false);
	fprintf(f, "\nRun 'swaptune COMMAND --help' for a command's options, 'man swaptune' for\n"
		"the details.\n");
}

/* ---- the man page ---- */

/* s for roff: \ as \e, - as \-; blanks as "\ " where nobreak; a leading . or ' escaped */
static void roff(FILE *f, const char *s, bool nobreak_groups)
{
	int depth = 0;

	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '[' || *s == '(')
			depth++;
		else if ((*s == ']' || *s == ')') && depth > 0)
			depth--;
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == ' ' && nobreak_groups && depth > 0)
			fputs("\\ ", f);
		else
			fputc(*s, f);
	}
}

/* The commands in the order of --help: by group, then by table order. */
static const struct cmd_entry *in_help_order(size_t k)
{
	for (int g = 0; g < CMD_GROUP_COUNT; g++)
		for (size_t i = 0; i < cmd_count(); i++)
			if (cmd_at(i)->group == (enum cmd_group)g && k-- == 0)
				return cmd_at(i);
	return NULL;
}

static void man_synopsis(FILE *f)
{
	const struct cmd_entry *c;

	for (size_t k = 0; (c = in_help_order(k)); k++) {
		fputs(".SY \"swaptune ", f);
		roff(f, c->name, false);
		fputs("\"\n", f);
		if (c->usage[0]) {
			roff(f, c->usage, true);
			fputc('\n', f);
		}
		fputs(".YS\n", f);
	}
}

static void man_row(FILE *f, const char *spelling, const char *help)
{
	fputs(".TP\n.B ", f);
	roff(f, spelling, false);
	fputc('\n', f);
	roff(f, help, false);
	fputc('\n', f);
}

/* a row's help in the man page: choices a table grows are where --help lists them */
static const char *man_help(const struct opt_spec *o, const struct cmd_entry *c, char *buf,
			    size_t len)
{
	if (!(o->flags & OPT_CHOICES_GROW))
		return opt_help(o, buf, len);
	snprintf(buf, len, "%s: the names swaptune %s --help lists", o->help ? o->help : "",
		 c->name);
	return buf;
}

static void man_options(FILE *f)
{
	const struct cmd_entry *c;
	char sp[128], help[1024];

	fputs(".SH OPTIONS\n", f);
	for (size_t k = 0; (c = in_help_order(k)); k++) {
		bool any = c->args_help != NULL;

		for (size_t t = 0; t < OPT_TABLES_MAX && c->opts[t]; t++)
			for (const struct opt_spec *o = c->opts[t]; o->name; o++)
				any |= !(o->flags & OPT_HIDDEN);
		if (!any)
			continue;
		fprintf(f, ".SS \"%s options\"\n", c->name);
		for (size_t t = 0; t < OPT_TABLES_MAX && c->opts[t]; t++)
			for (const struct opt_spec *o = c->opts[t]; o->name; o++)
				if (!(o->flags & OPT_HIDDEN))
					man_row(f, opt_spelling(o, sp, sizeof(sp)),
						man_help(o, c, help, sizeof(help)));
		if (c->args_help)
			man_row(f, c->args, c->args_help);
	}
}

int cmd_print_man(FILE *f, const char *section)
{
	if (!strcmp(section, "synopsis"))
		man_synopsis(f);
	else if (!strcmp(section, "options"))
		man_options(f);
	else
		return -EINVAL;
	return 0;
}
