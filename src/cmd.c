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
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/workload.h"

static const struct cmd_entry *const commands[] = {
	&cmd_status_entry,
	&cmd_doctor_entry,
	&cmd_sample_entry,
	&cmd_tui_entry,
	&cmd_probe_entry,
	&cmd_switchback_entry,
	&cmd_recommend_entry,
	&cmd_apply_entry,
	&cmd_rollback_entry,
	&cmd_history_entry,
	&cmd_verify_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_fleet_report_entry,
	&cmd_fleet_advise_entry,
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
	if (c->answers)
		fprintf(f, "\nExit status: %s; errors: 1 runtime failure, 2 usage or bad input, "
			"3 not permitted or prerequisite missing.\n", c->answers);
	else
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

/* a name of this host, "unknown" when the sysroot does not say */
static void host_name(const struct host *h, char *buf, size_t len)
{
	if (host_read_line(h, HOST_HOSTNAME, buf, len, NULL) == 0 && buf[0])
		return;
	/* the live host's name is also the kernel's, without /proc mounted */
	if (!h->live || gethostname(buf, len) < 0 || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

static void add_missing_string(cJSON *o, const char *key, const char *val)
{
	if (!cJSON_HasObjectItem(o, key))
		cJSON_AddStringToObject(o, key, val);
}

int cmd_identity_json(const struct host *h, cJSON *doc)
{
	char buf[256];
	cJSON *host;

	if (!cJSON_IsObject(doc))
		return -EINVAL;
	host = cJSON_GetObjectItemCaseSensitive(doc, "host");
	if (!host)
		host = cJSON_AddObjectToObject(doc, "host");
	if (!cJSON_IsObject(host))
		return -EINVAL;
	host_read_machine_id(h, buf, sizeof(buf));
	add_missing_string(host, "machine_id", buf);
	host_name(h, buf, sizeof(buf));
	add_missing_string(host, "hostname", buf);
	if (host_read_boot_id(h, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "unknown");
	add_missing_string(host, "boot_id", buf);
	add_missing_string(doc, "swaptune_version", SWAPTUNE_VERSION);
	return 0;
}

int cmd_identity_members(const struct host *h, char *buf, size_t len)
{
	cJSON *doc = cJSON_CreateObject();
	char *text;
	int n = -ENOMEM;

	if (doc && cmd_identity_json(h, doc) == 0 && (text = cJSON_PrintUnformatted(doc))) {
		size_t tl = strlen(text);

		/* drop the braces: the members go inside another object */
		n = tl >= 2 && tl - 2 < len ? snprintf(buf, len, "%.*s", (int)(tl - 2), text + 1) :
		    -ENOSPC;
		cJSON_free(text);
	}
	cJSON_Delete(doc);
	return n;
}

int cmd_print_json(struct cmd_ctx *ctx, cJSON *doc)
{
	char *text;

	cmd_identity_json(&ctx->host, doc);	/* not an object: printed as it is */
	text = cJSON_Print(doc);

	cJSON_Delete(doc);
	if (!text)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	fprintf(ctx->out, "%s\n", text);
	cJSON_free(text);
	return 0;
}
/* Every long option of an option spelling ("--before ID --after ID" -> both). */
static void print_long_options(FILE *f, const struct cmd_option *o)
{
	for (; o && o->spelling; o++)
		for (const char *p = strstr(o->spelling, "--"); p; p = strstr(p, "--")) {
			fputc(' ', f);
			for (; *p && !isspace((unsigned char)*p) && *p != '=' && *p != '|' &&
			       *p != ']' && *p != ')'; p++)
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

