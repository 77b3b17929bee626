/*
 * cmd-report.c - `swaptune report`: before/after evidence for a ticket,
 * from one probe run (--run), two recordings (--before/--after) or an
 * apply run and the recordings around it (--change), as text, Markdown,
 * JSON or one self-contained HTML file. The model and renderers live in
 * report*.c; this file parses options and writes the output (-o FILE is
 * replaced atomically).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/report.h"

enum { OPT_RUN = 256, OPT_BEFORE, OPT_AFTER, OPT_CHANGE, OPT_FORMAT, OPT_OUTPUT };

static const struct option report_longopts[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "before", required_argument, NULL, OPT_BEFORE },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "change", required_argument, NULL, OPT_CHANGE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ 0, 0, 0, 0 },
};

/* Write the rendered report to a temp file beside path, fsync, rename. */
static int write_atomic(const char *path, const struct report *rep, enum report_format fmt,
			struct st_err *e)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], copy[PATH_MAX];
	FILE *f;
	int fd, r;

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	for (int i = 0;; i++) {
		snprintf(tmp, sizeof(tmp), "%s/.swaptune-report.%d.%d.tmp", dir, (int)getpid(), i);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST || i > 100)
			break;
	}
	if (fd < 0)
		return err_set(e, -errno, "cannot create a file in %s: %s", dir, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return err_set(e, r, "cannot write %s", tmp);
	}
	r = report_render(f, rep, fmt);
	if (r == 0 && (fflush(f) != 0 || ferror(f) || fsync(fd) < 0))
		r = -errno ? -errno : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return err_set(e, r, "cannot write %s: %s", path, strerror(-r));
	}
	return 0;
}

static int parse_id(struct cmd_ctx *ctx, const char *opt, const char *arg, int64_t *id)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (*end || end == arg || v <= 0)
		return cmd_usage_error(ctx, &cmd_report_entry, "%s needs a run id, not \"%s\"", opt, arg);
	*id = v;
	return 0;
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
	int64_t run = 0, before = 0, after = 0, change = 0;
	const char *output = NULL;
	int fmt = -1, r, modes;
	struct report *rep = NULL;

	while ((r = cmd_getopt(ctx, &cmd_report_entry, argc, argv, "o:", report_longopts)) != -1) {
		switch (r) {
		case -2:
			return -EINVAL;
		case OPT_RUN:
			if (parse_id(ctx, "--run", optarg, &run) < 0)
				return -EINVAL;
			break;
		case OPT_BEFORE:
			if (parse_id(ctx, "--before", optarg, &before) < 0)
				return -EINVAL;
			break;
		case OPT_AFTER:
			if (parse_id(ctx, "--after", optarg, &after) < 0)
				return -EINVAL;
			break;
		case OPT_CHANGE:
			if (parse_id(ctx, "--change", optarg, &change) < 0)
				return -EINVAL;
			break;
		case OPT_FORMAT:
			fmt = report_format_parse(optarg);
			if (fmt < 0)
				return cmd_usage_error(ctx, &cmd_report_entry,
						       "--format %s: give text, md, json or html", optarg);
			break;
		case 'o':
		case OPT_OUTPUT:
			output = optarg;
			break;
		default:
			return cmd_usage_error(ctx, &cmd_report_entry, "unexpected option");
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_report_entry, "unexpected argument \"%s\"", argv[optind]);
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
		r = write_atomic(output, rep, (enum report_format)fmt, &ctx->err);
	else if ((r = report_render(ctx->out, rep, (enum report_format)fmt)) < 0)
		err_set(&ctx->err, r, "report: cannot render");
	report_free(rep);
	if (r == 0 && fflush(ctx->out) != 0)
		r = err_set(&ctx->err, -EIO, "report: cannot write output");
	return r;
}

static const struct cmd_option report_options[] = {
	{ "--run ID", "one probe run: host, recipe, arms, counters, trials, verdict" },
	{ "--before ID --after ID", "two sample recordings side by side, each change tested against the noise" },
	{ "--change ID", "an apply run (see history): settings diff, rollback, the recordings around it" },
	{ "--format FMT", "text (default), md, json or html (default from the -o name)" },
	{ "-o, --output FILE", "write FILE atomically instead of standard output" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.summary = "before/after evidence to attach to a ticket (text, Markdown, JSON, HTML)",
	.usage = "(--run ID | --before ID --after ID | --change ID) [--format text|md|json|html] [-o FILE]",
	.options = report_options,
	.exec = report_exec,
};
