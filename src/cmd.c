/*
 * cmd.c - the command table, the common and global option tables, option
 * parsing with "did you mean", and helpers every command uses. Help and
 * the man page's generated parts are in help.c, completion in complete.c.
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
#include "swaptune/lock.h"

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
	&cmd_repair_entry,
	&cmd_history_entry,
	&cmd_verify_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_fleet_report_entry,
	&cmd_fleet_advise_entry,
	&cmd_report_entry,
};

static const char *const group_titles[CMD_GROUP_COUNT] = {
	[CMD_GROUP_INSPECT] = "Inspect the host and what is stored",
	[CMD_GROUP_MEASURE] = "Measure and judge",
	[CMD_GROUP_CHANGE] = "Change settings",
	[CMD_GROUP_FLEET] = "Fleet (many hosts)",
};

const char *const cmd_shells[] = { "bash", "zsh", "fish", NULL };
const char *const cmd_progress_names[] = { "auto", "tty", "plain", "none", NULL };
static const char *const id_kinds[] = { "run", "probe", "apply", "recording", "measured", "snapshot", NULL };
static const char *const man_sections[] = { "synopsis", "options", NULL };

static int parse_shell(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	return opt_parse_choice(o, arg, dst, e);
}

static int parse_choice_name(const struct opt_spec *o, const char *arg, void *dst,
			     struct st_err *e)
{
	int i;

	if (opt_parse_choice(o, arg, &i, e) < 0)
		return -EINVAL;
	*(const char **)dst = o->choices[i];
	return 0;
}

const struct opt_spec cmd_common_opts[] = {
	OPT_FLAG("json", 0, "machine-readable output (schemas in share/schema/)", struct cmd_common, json),
	OPT_STRING("db", 0, "PATH", "the store (default /var/lib/swaptune/swaptune.db as root, "
		   "else ~/.local/state/swaptune/swaptune.db; also SWAPTUNE_DB)",
		   struct cmd_common, db, "a path", OPT_COMPLETE_FILE),
	OPT_STRING("sysroot", 0, "DIR", "read and write kernel files under DIR instead of / "
		   "(also SWAPTUNE_SYSROOT)", struct cmd_common, sysroot, "a directory",
		   OPT_COMPLETE_DIR),
	OPT_FLAG("help", 'h', "this help", struct cmd_common, help),
	{ NULL },
};

const struct opt_spec cmd_global_opts[] = {
	OPT_FLAG("version", 0, "print swaptune and its version", struct cmd_common, version),
	{ .name = "completion", .arg = "SHELL", .help = "print the completion script for bash, "
	  "zsh or fish (made from the command tables)", .parse = parse_shell,
	  .off = OPT_AT(struct cmd_common, completion, int), .choices = cmd_shells,
	  .complete = OPT_COMPLETE_CHOICES },
	{ .name = "list-ids", .arg = "KIND", .help = "the newest ids of the store, for completion",
	  .parse = parse_choice_name, .off = OPT_AT(struct cmd_common, list_ids, const char *),
	  .choices = id_kinds, .flags = OPT_HIDDEN },
	{ .name = "man-section", .arg = "PART", .help = "the man page's generated parts",
	  .parse = parse_choice_name, .off = OPT_AT(struct cmd_common, man_section, const char *),
	  .choices = man_sections, .flags = OPT_HIDDEN },
	{ NULL },
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

const char *cmd_group_title(enum cmd_group g)
{
	return g < CMD_GROUP_COUNT ? group_titles[g] : "Other";
}

int cmd_usage_error(struct cmd_ctx *ctx, const struct cmd_entry *c,
		    const char *fmt, ...)
{
	char msg[ST_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_usage(&ctx->err, c->name, "%s", msg);
}

/* Candidates for "did you mean": c's options, then the common ones, as "--name". */
struct option_names {
	const struct cmd_entry *c;
	char buf[64];
};

static const char *option_name_at(size_t i, void *arg)
{
	struct option_names *n = arg;
	const struct opt_spec *const tabs[] = {
		n->c->opts[0], n->c->opts[1], n->c->opts[2], n->c->opts[3], cmd_common_opts,
	};

	for (size_t t = 0; t < sizeof(tabs) / sizeof(tabs[0]); t++)
		for (size_t k = 0; tabs[t] && tabs[t][k].name; k++)
			if (!(tabs[t][k].flags & OPT_HIDDEN) && i-- == 0) {
				snprintf(n->buf, sizeof(n->buf), "--%s", tabs[t][k].name);
				return n->buf;
			}
	return NULL;
}

/*
 * An option another command spells differently: rollback --dry-run is
 * rollback --print (it prints the commands, changes nothing). The partner,
 * when c has it.
 */
static const char *same_as(const struct cmd_entry *c, const char *word)
{
	static const char *const pairs[][2] = {
		{ "--dry-run", "--print" }, { "--print", "--dry-run" },
	};
	struct option_names names = { .c = c };
	const char *o;

	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++)
		if (!strcmp(word, pairs[p][0]))
			for (size_t i = 0; (o = option_name_at(i, &names)); i++)
				if (!strcmp(o, pairs[p][1]))
					return pairs[p][1];
	return NULL;
}

int cmd_parse_sets(struct cmd_ctx *ctx, const struct cmd_entry *c, int argc, char **argv,
		   void *const args[], struct opt_given *given)
{
	struct opt_set sets[OPT_TABLES_MAX];
	struct option_names names = { .c = c };
	struct st_err e = { 0 };
	const char *unknown, *guess;
	size_t n = 0;
	int r;

	for (; n < OPT_TABLES_MAX && c->opts[n]; n++)
		sets[n] = (struct opt_set){ c->opts[n], args[n] };
	r = opt_parse(&(struct opt_tables){ sets, n }, argc, argv, given, &unknown, &e);
	if (r < 0 && unknown && unknown[1] == '-') {
		char word[64];

		snprintf(word, sizeof(word), "%.*s", (int)strcspn(unknown, "="), unknown);
		if ((guess = opt_closest(word, option_name_at, &names)) || (guess = same_as(c, word)))
			return cmd_usage_error(ctx, c, "%s; did you mean %s?", e.msg, guess);
	}
	if (r < 0)
		return cmd_usage_error(ctx, c, "%s", e.msg);
	if (r < argc && !c->args)
		return cmd_usage_error(ctx, c, "unexpected argument \"%s\"", argv[r]);
	return r;
}

int cmd_parse(struct cmd_ctx *ctx, const struct cmd_entry *c, int argc, char **argv,
	      void *args, struct opt_given *given)
{
	void *const one[OPT_TABLES_MAX] = { args };

	return cmd_parse_sets(ctx, c, argc, argv, one, given);
}

bool cmd_given(const struct cmd_entry *c, const struct opt_given *g, const char *name)
{
	struct opt_set sets[OPT_TABLES_MAX];
	size_t n = 0;

	for (; n < OPT_TABLES_MAX && c->opts[n]; n++)
		sets[n] = (struct opt_set){ c->opts[n], NULL };
	return opt_was_given(sets, n, g, name);
}

enum cmd_progress cmd_progress_resolve(enum cmd_progress mode, bool json)
{
	if (mode != CMD_PROGRESS_AUTO)
		return mode;
	return !json && isatty(STDERR_FILENO) ? CMD_PROGRESS_TTY : CMD_PROGRESS_NONE;
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

void cmd_note_host_changing(struct cmd_ctx *ctx, cJSON *doc, const char *what)
{
	char holder[32];
	int pid = 0;
	cJSON *o;

	if (!host_change_holder(&ctx->host, ctx->db_path, &pid, holder, sizeof(holder)))
		return;
	if (!ctx->json)
		fprintf(ctx->out, "%-18sanother swaptune %s (pid %d) is changing this host now: %s\n", "Note",
			holder, pid, what);
	else if (doc && (o = cJSON_AddObjectToObject(doc, "host_changing"))) {
		cJSON_AddNumberToObject(o, "pid", pid);
		cJSON_AddStringToObject(o, "command", holder);
	}
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
