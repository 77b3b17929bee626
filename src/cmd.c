/*
 * cmd.c - the command table, generated help, and helpers every command uses.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/cmd.h"
#include "swaptune/workload.h"

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
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_fleet_report_entry,
	&cmd_fleet_advise_entry,
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
	/* strtod also takes "nan", "inf" and hex floats: none is a duration */
	if (end == s || errno || !isfinite(v) || v < 0 || isspace((unsigned char)*s))
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
	if (end == s || errno || !isfinite(v) || v < 0 || isspace((unsigned char)*s))
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
	/* far beyond any memory, and keeps sums of sizes from wrapping */
	if (v * mult > CMD_SIZE_MAX)
		return -ERANGE;
	*bytes = (unsigned long long)(v * mult);
	return 0;
}

/* Every long option of an option spelling ("-n, --count N" -> "--count"). */
static void print_long_options(FILE *f, const struct cmd_option *o)
{
	for (; o && o->spelling; o++) {
		const char *p = strstr(o->spelling, "--");

		if (!p)
			continue;
		fputc(' ', f);
		for (; *p && !isspace((unsigned char)*p) && *p != '='; p++)
			fputc(*p, f);
	}
}

void cmd_print_completion_bash(FILE *f)
{
	fputs("# bash completion for swaptune - generated by `swaptune --completion bash`\n"
	      "# from the command table; do not edit.\n"
	      "_swaptune()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd= i\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t--db|--sysroot) ((i++)) ;;\n"
	      "\t\t-*) ;;\n"
	      "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tcase $prev in\n"
	      "\t--db|-o|--output|--prom-file|--from) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
	      "\t--sysroot|--scratch-dir) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
	      "\t--workload) COMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; workload_at(i); i++)
		fprintf(f, "%s%s", i ? " " : "", workload_at(i)->name);
	fputs("\" -- \"$cur\")); return ;;\n"
	      "\t--arms) COMPREPLY=($(compgen -W \"pc3 pc1 pc0 bypass pc3,pc1,pc0\" -- \"$cur\")); return ;;\n"
	      "\t--format) COMPREPLY=($(compgen -W \"text md json html\" -- \"$cur\")); return ;;\n"
	      "\tesac\n"
	      "\tlocal common=\"", f);
	print_long_options(f, cmd_common_options);
	fputs(" --version\"\n\tcase $cmd in\n\t'')\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; i < cmd_count(); i++)
		fprintf(f, "%s ", commands[i]->name);
	fputs("help $common\" -- \"$cur\")) ;;\n", f);
	for (size_t i = 0; i < cmd_count(); i++) {
		fprintf(f, "\t%s)\n\t\tCOMPREPLY=($(compgen -W \"", commands[i]->name);
		print_long_options(f, commands[i]->options);
		fputs(" $common\" -- \"$cur\")) ;;\n", f);
	}
	fputs("\tesac\n}\ncomplete -F _swaptune swaptune\n", f);
}

int cmd_parse_i64(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cmd_parse_real(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)	/* overflow: +-HUGE_VAL */
		return -ERANGE;
	if (!isfinite(v))	/* "nan", "inf" spelled out */
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
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
