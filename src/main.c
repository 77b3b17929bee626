/*
 * main.c - parses the common options, opens the sysroot and the store,
 * repairs what an interrupted run left changed, and runs one command.
 * The only place that prints an error and picks the exit status.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/colour.h"
#include "swaptune/fmt.h"
#include "swaptune/journal.h"
#include "swaptune/kernel-check.h"
#include "swaptune/undo.h"

/*
 * One line on stderr through the one escaper (fmt_fputs: C0, DEL, C1 such
 * as the UTF-8 CSI C2 9B, and invalid UTF-8 shown as \xNN): messages quote
 * file contents, hostnames and store rows.
 */
static void print_line(FILE *f, enum colour c, const char *prefix, const char *msg)
{
	colour_fputs(f, c, prefix);
	fputc(' ', f);
	fmt_fputs(f, msg);
	fputc('\n', f);
}

/*
 * Repair runs only in commands that change the host, under their lock
 * (change_lock()); a command that did not repair says what is still left.
 */
static void report_leftovers(struct cmd_ctx *ctx)
{
	struct st_err e = { 0 };
	int64_t n = 0;
	char line[200];

	if (journal_leftovers(&ctx->store, &ctx->host, &n, &e) < 0 || n == 0)
		return;
	snprintf(line, sizeof(line), "%lld change%s left by a swaptune that did not finish:"
		 " `swaptune repair` (or the next command that changes the host) puts %s back",
		 (long long)n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
	print_line(stderr, COLOUR_WARN, "swaptune:", line);
}

static bool host_opened;	/* ctx.host is open: error documents can name its host */

/* The error document of --json (share/schema/error.schema.json), on stdout. */
static void print_json_error(const struct cmd_ctx *ctx, const char *command, int status)
{
	cJSON *doc = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(doc, "schema", "swaptune.error/1");
	if (command)
		cJSON_AddStringToObject(doc, "command", command);
	else
		cJSON_AddNullToObject(doc, "command");
	cJSON_AddNumberToObject(doc, "exit", status);
	cJSON_AddStringToObject(doc, "error", ctx->err.msg[0] ? ctx->err.msg : "unknown error");
	cJSON_AddNumberToObject(doc, "errno", ctx->err.code < 0 ? -ctx->err.code : 0);
	cJSON_AddStringToObject(doc, "version", SWAPTUNE_VERSION);
	if (host_opened)	/* the identity of the host it was about, when known */
		cmd_identity_json(&ctx->host, doc);
	s = cJSON_Print(doc);
	if (s)
		printf("%s\n", s);
	free(s);
	cJSON_Delete(doc);
}

/*
 * The store's path made absolute (not resolved: a symlink stays a symlink),
 * so that a watchdog or re-executed child that changes directory still
 * opens the same store.
 */
static int absolute_path(const char *path, char *out, size_t len, struct st_err *e)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		if (snprintf(out, len, "%s", path) >= (int)len)
			return err_set_exit(e, -ENAMETOOLONG, ST_EXIT_USAGE, "--db path too long");
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return err_set_exit(e, -errno, ST_EXIT_RUNTIME,
				    "cannot resolve the relative store path %s: %s", path, strerror(errno));
	if (snprintf(out, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", path) >= (int)len)
		return err_set_exit(e, -ENAMETOOLONG, ST_EXIT_USAGE, "--db path too long");
	return 0;
}

static const char *fail_command;	/* the command being run, for --json errors */


static int fail(struct cmd_ctx *ctx)
{
	int status = err_exit_status(&ctx->err);

	print_line(stderr, COLOUR_BAD, "swaptune:", ctx->err.msg[0] ? ctx->err.msg : "unknown error");
	if (ctx->json)
		print_json_error(ctx, fail_command, status);
	return status;
}

/* The row of the common or global options that argument a names ("--db", "--db=X", "-h"). */
static const struct opt_spec *common_row(const char *a)
{
	const struct opt_spec *const tabs[] = { cmd_common_opts, cmd_global_opts };

	for (size_t t = 0; t < 2; t++)
		for (const struct opt_spec *o = tabs[t]; o->name; o++) {
			size_t n = strcspn(a + 2, "=");

			if (a[0] == '-' && a[1] == '-' && strlen(o->name) == n && !strncmp(a + 2, o->name, n))
				return o;
			if (a[0] == '-' && o->short_name && a[1] == o->short_name && !a[2])
				return o;
		}
	return NULL;
}

/* Take a common option out of argv into cm; how many args it used (0 = not one), -1 on error. */
static int common_option(struct cmd_ctx *ctx, struct cmd_common *cm, int argc, char **argv, int i)
{
	const struct opt_spec *o = common_row(argv[i]);
	const char *eq = argv[i][1] == '-' ? strchr(argv[i], '=') : NULL, *val;
	struct st_err e = { 0 };
	int used = 1;

	if (!o)
		return 0;
	if (!o->arg) {
		if (eq)
			return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE, "option --%s takes no value",
					    o->name), -1;
		return o->parse(o, NULL, (char *)cm + o->off, &e), 1;
	}
	if (eq) {
		val = eq + 1;
	} else {
		val = i + 1 < argc ? argv[i + 1] : "";
		used = 2;
		/* "--db --json" is a forgotten value, not a store named "--json" */
		if (val[0] == '-')
			return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
					    "option --%s needs a value, not the option %s (use --%s=%s for such a name)",
					    o->name, val, o->name, val), -1;
	}
	if (!val[0])
		return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE, "option --%s needs a value",
				    o->name), -1;
	if (o->parse(o, val, (char *)cm + o->off, &e) < 0)
		return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE, "%s", e.msg), -1;
	return used;
}

/*
 * Take the common and global options out of argv into cm; the rest
 * (argv[0] first, and all after "--" as given) into args, NULL-terminated.
 * The count, or -1 with ctx->err set.
 */
static int split_common_options(struct cmd_ctx *ctx, struct cmd_common *cm, int argc, char **argv,
				char **args)
{
	int nargs = 1, i, r;

	args[0] = argv[0];
	/* known before any error, so that an early one is a JSON document too */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			ctx->json = true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {	/* the rest belongs to the command */
			for (; i < argc; i++)
				args[nargs++] = argv[i];
			break;
		}
		r = common_option(ctx, cm, argc, argv, i);
		if (r < 0)
			return -1;
		if (r == 0)
			args[nargs++] = argv[i];
		i += r > 0 ? r - 1 : 0;
	}
	args[nargs] = NULL;
	ctx->json = cm->json;
	ctx->sysroot = cm->sysroot;
	return nargs;
}

static const char *command_name_at(size_t i, void *arg)
{
	(void)arg;
	return cmd_at(i) ? cmd_at(i)->name : NULL;
}

static const char *global_name_at(size_t i, void *arg)
{
	const struct opt_spec *const tabs[] = { cmd_common_opts, cmd_global_opts };
	char *buf = arg;

	for (size_t t = 0; t < 2; t++)
		for (const struct opt_spec *o = tabs[t]; o->name; o++)
			if (!(o->flags & OPT_HIDDEN) && i-- == 0) {
				snprintf(buf, 64, "--%s", o->name);
				return buf;
			}
	return NULL;
}

/* "unknown command "stauts": did you mean "status"? (see swaptune --help)" */
static int unknown_command(struct cmd_ctx *ctx, const char *word)
{
	char buf[64], w[64];
	const char *guess;

	if (word[0] == '-') {
		snprintf(w, sizeof(w), "%.*s", (int)strcspn(word, "="), word);
		guess = opt_closest(w, global_name_at, buf);
		if (guess)
			return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
					    "unknown option %s; did you mean %s? (see swaptune --help)", word, guess);
		return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
				    "unknown option %s (see swaptune --help)", word);
	}
	guess = opt_closest(word, command_name_at, NULL);
	if (guess)
		return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
				    "unknown command \"%s\"; did you mean \"%s\"? (see swaptune --help)",
				    word, guess);
	return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
			    "unknown command \"%s\" (see swaptune --help)", word);
}

/* The store's path: --db, else SWAPTUNE_DB, else the default; made absolute. */
static int db_path(struct cmd_ctx *ctx, const char *db)
{
	if (!db)
		db = getenv("SWAPTUNE_DB");
	if (db)
		return absolute_path(db, ctx->db_path, sizeof(ctx->db_path), &ctx->err);
	return store_default_path(ctx->db_path, sizeof(ctx->db_path), &ctx->err);
}

/*
 * What swaptune itself answers, without a command: the completion script,
 * ids for it, the man page's parts, the version: its exit status, or -1
 * when the command line is not one of them (an exit status of 1, a
 * damaged store's, once printed the whole usage instead).
 */
static int global_action(struct cmd_ctx *ctx, const struct cmd_common *cm)
{
	if (cm->completion >= 0) {
		cmd_print_completion(stdout, cm->completion);
		return 0;
	}
	if (cm->man_section)
		return cmd_print_man(stdout, cm->man_section) < 0 ? ST_EXIT_USAGE : 0;
	if (cm->list_ids) {
		/* for completion scripts (stderr discarded): never a store made or repaired */
		if (db_path(ctx, cm->db) < 0 || cmd_list_ids(stdout, cm->list_ids, ctx->db_path,
							     &ctx->err) < 0)
			return fail(ctx);
		return 0;
	}
	if (cm->version) {
		printf("swaptune %s\n", SWAPTUNE_VERSION);
		return 0;
	}
	return -1;
}

/* What main() learns when it opens the store, to decide at the end whether to keep it. */
struct store_start {
	bool created;		/* this process made the file (O_EXCL) */
	long long changes0;	/* store_changes() once it was open and migrated */
};

/* The command line as given, and the words left once the common options are taken out. */
struct command_line {
	int argc;
	char **argv;
	char **args;	/* argv[0], the command, its own words: nargs of them (room for argc + 1) */
	int nargs;
};

/*
 * Parse line's argv into ctx, cm and its args and do what needs no host:
 * global actions, help, usage. The command to run, or NULL with *status
 * the exit status to return.
 */
static const struct cmd_entry *parse_command(struct cmd_ctx *ctx, struct cmd_common *cm,
					     struct command_line *line, int *status)
{
	char **args = line->args;
	int *nargs = &line->nargs;
	const struct cmd_entry *c;
	int r;

	*status = 0;
	*nargs = split_common_options(ctx, cm, line->argc, line->argv, args);
	if (*nargs < 0)
		return *status = fail(ctx), NULL;
	if ((r = global_action(ctx, cm)) >= 0)
		return *status = r, NULL;
	if (*nargs < 2) {
		cmd_print_overview(cm->help ? stdout : stderr);
		return *status = cm->help ? 0 : ST_EXIT_USAGE, NULL;
	}
	if (!strcmp(args[1], "help")) {
		if (*nargs < 3) {
			cmd_print_overview(stdout);
			return NULL;
		}
		cm->help = true;
		args[1] = args[2];
		*nargs = 2;
	}
	c = cmd_find(args[1]);
	fail_command = c ? c->name : NULL;
	if (!c) {
		unknown_command(ctx, args[1]);
		return *status = fail(ctx), NULL;
	}
	if (cm->help) {
		cmd_print_help(stdout, c);
		return NULL;
	}
	return c;
}

/*
 * Open the host (--sysroot) and the store (--db) command c runs on, and
 * stamp the store with the host's identity and kernel: 0, or the exit
 * status of the failure (then nothing is left open).
 */
static int open_context(struct cmd_ctx *ctx, const struct cmd_common *cm, const struct cmd_entry *c,
			struct store_start *start)
{
	char mid[64], boot[64];
	struct kernel_fingerprint fp;
	cJSON *o;
	char *text;

	if (!ctx->sysroot)
		ctx->sysroot = getenv("SWAPTUNE_SYSROOT");
	if (host_open(&ctx->host, ctx->sysroot, &ctx->err) < 0) {
		ctx->err.exit = ST_EXIT_USAGE;
		return fail(ctx);
	}
	host_opened = true;

	if (!host_exists(&ctx->host, HOST_OSRELEASE)) {
		err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE,
			     "sysroot %s does not look like a host tree (no /%s)",
			     ctx->sysroot, HOST_OSRELEASE);
		return fail(ctx);
	}
	if (c->flags & CMD_NEEDS_ROOT && ctx->host.live && geteuid() != 0) {
		err_set_exit(&ctx->err, -EPERM, ST_EXIT_DENIED,
			     "%s changes kernel settings and needs root (try sudo swaptune %s)",
			     c->name, c->name);
		return fail(ctx);
	}

	if (db_path(ctx, cm->db) < 0)
		return fail(ctx);
	if (store_open(&ctx->store, ctx->db_path, &ctx->err) < 0) {
		host_close(&ctx->host);
		return fail(ctx);
	}
	if (store_samples_convert(&ctx->store, &ctx->err) < 0) {
		store_close(&ctx->store);
		host_close(&ctx->host);
		return fail(ctx);
	}
	/* a store this process made (O_EXCL), or one still unkept, is dropped at the end if empty */
	start->created = ctx->store.created;
	start->changes0 = store_changes(&ctx->store);

	host_read_machine_id(&ctx->host, mid, sizeof(mid));
	host_read_boot_id(&ctx->host, boot, sizeof(boot));
	store_set_identity(&ctx->store, mid, boot);

	undo_register_all();

	/* every run this command begins stores the kernel it ran on */
	kcheck_now(&ctx->store, &ctx->host, &fp);
	o = fingerprint_to_json(&fp);
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	store_set_kernel_fp(&ctx->store, text);
	cJSON_free(text);
	cJSON_Delete(o);
	return 0;
}

/* Run c on args (args[0] its name): its exit status, its output flushed. */
static int run_command(struct cmd_ctx *ctx, const struct cmd_entry *c, int nargs, char **args)
{
	int status;

	optind = 1;
	if (c->flags & CMD_WRAP_HUMAN && !ctx->json) {
		FILE *w = fmt_wrap_open(stdout, FMT_HUMAN_WIDTH);

		if (w)
			ctx->out = w;
	}
	status = c->exec(ctx, nargs, args);
	if (status < 0)
		status = fail(ctx);
	if (ctx->out != stdout)
		fclose(ctx->out);
	if (fflush(stdout) != 0 && status == 0) {
		fprintf(stderr, "swaptune: cannot write output\n");
		status = ST_EXIT_RUNTIME;
	}
	report_leftovers(ctx);
	return status;
}

/* Close the store and the host open_context() opened. */
static void close_context(struct cmd_ctx *ctx, const struct store_start *start)
{
	/*
	 * a command that recorded nothing leaves no store behind, nor the
	 * directories made for it: a read-only one that succeeds (status,
	 * history, apply --dry-run at a new --db) as well as one that fails
	 * (bad input, a damaged fleet-advise --from, export onto a FIFO), or
	 * one whose writes were all rolled back (import A B with B refused);
	 * anything recorded (a probe whose budget cannot reach its first look
	 * stores its warm-up) keeps the store it named. Several opening one
	 * new path at once: the store is unkept until a command that wrote
	 * into it closes it holding rows (one that only read writes nothing,
	 * not even that), and whoever closes it last while it holds none
	 * drops it, its maker or not.
	 */
	if ((start->created || store_unkept(&ctx->store)) && !store_holds_rows(&ctx->store)) {
		store_close_remove(&ctx->store);
	} else {
		if (store_changes(&ctx->store) != start->changes0)
			store_keep(&ctx->store);
		store_close(&ctx->store);
	}
	host_close(&ctx->host);
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx = { .out = stdout };
	struct cmd_common cm = { .completion = -1 };
	struct store_start start = { 0 };
	struct command_line line = { .argc = argc, .argv = argv };
	const struct cmd_entry *c;
	int status;

	if (!(line.args = calloc((size_t)argc + 1, sizeof(char *))))
		return ST_EXIT_RUNTIME;
	c = parse_command(&ctx, &cm, &line, &status);
	if (c && (status = open_context(&ctx, &cm, c, &start)) == 0) {
		status = run_command(&ctx, c, line.nargs - 1, line.args + 1);
		close_context(&ctx, &start);
	}
	free(line.args);
	return status;
}
