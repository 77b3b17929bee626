/*
 * cmd.c - the command table, generated help, and helpers every command uses.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/cmd.h"

static const struct cmd_entry *const commands[] = {
	&cmd_status_entry,
	&cmd_doctor_entry,
	&cmd_sample_entry,
	&cmd_tui_entry,
	&cmd_probe_entry,
	&cmd_recommend_entry,
	&cmd_apply_entry,
	&cmd_rollback_entry,
	&cmd_history_entry,
	&cmd_verify_entry,
	&cmd_report_entry,
};

const struct cmd_option cmd_common_options[] = {
	{ "--json", "machine-readable output (schemas in share/schema/)" },
	{ "--db PATH", "the store (default /var/lib/swaptune/swaptune.db as root, else ~/.local/state/swaptune/swaptune.db)" },
	{ "--sysroot DIR", "read and write kernel files under DIR instead of / (also SWAPTUNE_SYSROOT)" },
	{ "-h, --help", "this help" },
	{ NULL, NULL },
};

size_t cmd_count(void)
{
	return sizeof(commands) / sizeof(commands[0]);
}

const struct cmd_entry *cmd_at(size_t i)
{
	return i < cmd_count() ? commands[i] : NULL;
}

const struct cmd_entry *cmd_find(const char *name)
{
	for (size_t i = 0; i < cmd_count(); i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void print_options(FILE *f, const struct cmd_option *o)
{
	for (; o && o->spelling; o++) {
		int w = (int)strlen(o->spelling);

		if (w <= 22)
			fprintf(f, "  %-22s  %s\n", o->spelling, o->help);
		else
			fprintf(f, "  %s\n  %-22s  %s\n", o->spelling, "", o->help);
	}
}

void cmd_print_help(FILE *f, const struct cmd_entry *c)
{
	fprintf(f, "usage: swaptune %s%s%s\n\n%s\n", c->name, c->usage[0] ? " " : "",
		c->usage, c->summary);
	if (c->flags & CMD_NEEDS_ROOT)
		fprintf(f, "Needs root.\n");
	if (c->options && c->options[0].spelling) {
		fprintf(f, "\nOptions:\n");
		print_options(f, c->options);
	}
	fprintf(f, "\nCommon options:\n");
	print_options(f, cmd_common_options);
	fprintf(f, "\nExit status: 0 ok, 1 runtime failure, 2 usage or bad input, "
		"3 not permitted or prerequisite missing.\n");
}

void cmd_print_overview(FILE *f)
{
	fprintf(f, "usage: swaptune COMMAND [OPTIONS]\n\n"
		"Measures which swap-readahead setting suits this host and its zswap,\n"
		"applies it safely and keeps every result.\n\nCommands:\n");
	for (size_t i = 0; i < cmd_count(); i++)
		fprintf(f, "  %-10s  %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\nCommon options:\n");
	print_options(f, cmd_common_options);
	fprintf(f, "\nRun 'swaptune COMMAND --help' for a command's options.\n");
}

int cmd_usage_error(struct cmd_ctx *ctx, const struct cmd_entry *c,
		    const char *fmt, ...)
{
	char msg[ST_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
			    "%s: %s (see swaptune %s --help)", c->name, msg, c->name);
}

int cmd_getopt(struct cmd_ctx *ctx, const struct cmd_entry *c, int argc,
	       char **argv, const char *shortopts, const struct option *longopts)
{
	char so[128];
	int opt;

	/* leading ':' reports a missing argument as ':' */
	snprintf(so, sizeof(so), ":%s", shortopts);
	opterr = 0;
	opt = getopt_long(argc, argv, so, longopts, NULL);
	if (opt == '?') {
		if (optopt)
			cmd_usage_error(ctx, c, "unknown option -%c", optopt);
		else
			cmd_usage_error(ctx, c, "unknown option %s", argv[optind - 1]);
		return -2;
	}
	if (opt == ':') {
		cmd_usage_error(ctx, c, "option %s needs a value", argv[optind - 1]);
		return -2;
	}
	return opt;
}

int cmd_print_json(struct cmd_ctx *ctx, cJSON *doc)
{
	char *text = cJSON_Print(doc);

	cJSON_Delete(doc);
	if (!text)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	fprintf(ctx->out, "%s\n", text);
	cJSON_free(text);
	return 0;
}

int cmd_parse_duration(const char *s, long long *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ns"))
		;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60e9;
	else if (!strcmp(end, "h"))
		v *= 3600e9;
	else
		return -EINVAL;
	if (v > 9.2e18)
		return -ERANGE;
	*ns = (long long)v;
	return 0;
}

int cmd_parse_size(const char *s, unsigned long long *bytes)
{
	char *end;
	double v;
	double mult = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': mult = 1024.0; end++; break;
	case 'M': mult = 1024.0 * 1024; end++; break;
	case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	*bytes = (unsigned long long)(v * mult);
	return 0;
}

const char *cmd_fmt_bytes(unsigned long long b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", b);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}
