/*
 * cmd-report.c - `swaptune report`: before/after evidence for a ticket,
 * from one probe run (--run), two recordings (--before/--after) or an
 * apply run and the recordings around it (--change), as text, Markdown,
 * JSON or one self-contained HTML file. The model and renderers live in
 * report*.c; this file parses options and writes the output (-o FILE is
 * replaced atomically).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/cmd.h"
#include "swaptune/report.h"

struct report_args {
	long long run, before, after, change;
	int format;
	const char *output;
};

static const struct opt_spec report_opts[] = {
	CMD_OPT_RUN("one probe run: host, recipe, arms, counters, trials, verdict", struct report_args,
		    run, OPT_COMPLETE_PROBE_RUN),
	OPT_ID("before", "ID", "a sample recording: the one before (with --after)", struct report_args,
	       before, "a recording's run id", OPT_COMPLETE_RECORDING),
	OPT_ID("after", "ID", "the recording after: the two side by side, each change tested against "
	       "the noise", struct report_args, after, "a recording's run id", OPT_COMPLETE_RECORDING),
	OPT_ID("change", "ID", "an apply run (see history): settings diff, rollback, the recordings "
	       "around it", struct report_args, change, "an apply run id", OPT_COMPLETE_APPLY_RUN),
	OPT_CHOICE("format", "FMT", "text (default), md, json or html (default from the -o name)",
		   struct report_args, format, report_format_names),
	CMD_OPT_OUTPUT(struct report_args, output),
	{ NULL },
};

/* The report rendered into memory, then written whole (host_user_file_replace()). */
static int write_file(const char *path, const struct report *rep, enum report_format fmt,
		      struct st_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return err_set(e, -ENOMEM, "out of memory");
	r = report_render(f, rep, fmt);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		err_set(e, r, "report: cannot render");
	else
		r = host_user_file_replace(path, buf, len, 0644, e);
	free(buf);
	return r;
}

/* No --format: html/md/json from the -o name, else text. */
static enum report_format format_for(const char *out)
{
	const char *dot = out ? strrchr(out, '.') : NULL;

	if (dot && (!strcmp(dot, ".html") || !strcmp(dot, ".htm")))
		return REPORT_HTML;
	if (dot && !strcmp(dot, ".md"))
		return REPORT_MD;
	if (dot && !strcmp(dot, ".json"))
		return REPORT_JSON;
	return REPORT_TEXT_FMT;
}

static int report_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct report_args a = { .format = -1 };
	int64_t run, before, after, change;
	const char *output;
	int fmt, r, modes;
	struct report *rep = NULL;

	if ((r = cmd_parse(ctx, &cmd_report_entry, argc, argv, &a, NULL)) < 0)
		return r;
	run = a.run;
	before = a.before;
	after = a.after;
	change = a.change;
	output = a.output;
	fmt = a.format;
	modes = !!run + !!(before || after) + !!change;
	if (modes != 1)
		return cmd_usage_error(ctx, &cmd_report_entry,
				       "give one of --run ID, --before ID --after ID, or --change ID");
	if ((before || after) && !(before && after))
		return cmd_usage_error(ctx, &cmd_report_entry, "--before and --after go together");
	if (before && before == after)
		return cmd_usage_error(ctx, &cmd_report_entry,
				       "--before and --after name the same run %lld: compare two runs",
				       (long long)before);
	if (fmt < 0)
		fmt = ctx->json ? REPORT_JSON : (int)format_for(output);

	if (run)
		r = report_build_run(&ctx->store, &ctx->host, run, &rep, &ctx->err);
	else if (change)
		r = report_build_change(&ctx->store, change, &rep, &ctx->err);
	else
		r = report_build_compare(&ctx->store, before, after, &rep, &ctx->err);
	if (r < 0)
		return r;
	if (fmt == REPORT_JSON) {
		char ident[1024];

		if (cmd_identity_members(&ctx->host, ident, sizeof(ident)) > 0)
			rep->identity = strdup(ident);
	}
	if (output)
		r = write_file(output, rep, (enum report_format)fmt, &ctx->err);
	else if ((r = report_render(ctx->out, rep, (enum report_format)fmt)) < 0)
		err_set(&ctx->err, r, "report: cannot render");
	report_free(rep);
	if (r == 0 && fflush(ctx->out) != 0)
		r = err_set(&ctx->err, -EIO, "report: cannot write output");
	return r;
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.summary = "before/after evidence to attach to a ticket (text, Markdown, JSON, HTML)",
	.usage = "(--run ID | --before ID --after ID | --change ID) [--format text|md|json|html] [-o FILE]",
	.group = CMD_GROUP_INSPECT,
	.opts = { report_opts },
	.exec = report_exec,
};
