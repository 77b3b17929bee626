/*
 * cmd-rollback.c - `swaptune rollback`: put the settings of an earlier
 * snapshot back (by default the one taken before the latest apply that is
 * still in effect), together with swaptune's boot-time files as they were
 * then. `--print` gives the shell commands instead, for a ticket.
 *
 * Finding the snapshot and rebuilding swaptune's boot-time files from the
 * journal is the change module's (change_rollback_plan(), change.h); this
 * file parses, prints the plan or the shell commands, and asks.
 */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/fmt.h"
#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/persist.h"

#define ROLLBACK_SCHEMA "swaptune.rollback/1"

struct rollback_args {
	long long to;
	bool print, yes;
};

static const struct opt_spec rollback_opts[] = {
	OPT_ID("to", "ID", "restore snapshot ID (see swaptune history) instead of the one before the "
	       "latest apply", struct rollback_args, to, "a snapshot id", OPT_COMPLETE_SNAPSHOT),
	OPT_FLAG("print", 0, "print the shell commands that would restore it; change nothing",
		 struct rollback_args, print),
	CMD_OPT_YES(struct rollback_args, yes),
	{ NULL },
};

/*
 * --print writes shell that must stay inert whatever the store holds: every
 * path and value is one single-quoted word (a ' becomes '\''), file
 * content is written by printf '%s' of such a word (no heredoc whose
 * delimiter the content could contain), and text in comments has its
 * control bytes (a newline would end the comment) escaped as \xNN.
 */
static void put_quoted(FILE *f, const char *s)
{
	size_t len = 4 * strlen(s) + 3;
	char *q = malloc(len);

	if (!q || fmt_shell_quote(s, true, q, len) < 0)
		abort();	/* out of memory; the buffer always fits */
	fputs(q, f);
	free(q);
}

/* root "/" rel as one quoted word */
static void put_quoted_path(FILE *f, const char *root, const char *rel)
{
	char path[PATH_MAX * 2 + 2];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	put_quoted(f, path);
}

static void put_comment_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* Start and finish one command of --print (built in memory, then emitted). */
struct shell_cmd {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *cmd_start(struct shell_cmd *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f;
}

static void cmd_end(struct shell_cmd *c, cJSON *cmds, FILE *out)
{
	if (!c->f)
		return;
	fclose(c->f);
	if (cmds)
		cJSON_AddItemToArray(cmds, cJSON_CreateString(c->buf));
	else
		fprintf(out, "%s\n", c->buf);
	free(c->buf);
}

/* Undo a pending --confirm-within apply now, as if its deadline had passed. */
static int revert_pending(struct cmd_ctx *ctx, const struct change_pending *p, bool print,
			  bool yes)
{
	int restored = 0, r;
	int64_t rb_run = 0;

	if (print) {
		fprintf(ctx->out, "# apply run %lld awaits confirmation; `swaptune rollback` reverts it\n",
			(long long)p->run_id);
		return 0;
	}
	if ((r = change_need_root(&ctx->host, "rollback", &ctx->err)) < 0)
		return r;
	if (!ctx->json)
		fprintf(ctx->out, "Apply run %lld awaits confirmation: reverting it now.\n",
			(long long)p->run_id);
	fflush(ctx->out);
	if ((r = change_ask("revert it", yes, &ctx->err)) < 0)
		return r;
	r = change_revert_pending(&ctx->store, &ctx->host, p, &rb_run, &restored, &ctx->err);
	if (r < 0)
		return r;
	if (ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", ROLLBACK_SCHEMA);
		cJSON_AddStringToObject(doc, "action", "revert-unconfirmed");
		cJSON_AddNumberToObject(doc, "run_id", (double)rb_run);
		cJSON_AddNumberToObject(doc, "apply_run", (double)p->run_id);
		cJSON_AddNumberToObject(doc, "restored", restored);
		return cmd_print_json(ctx, doc);
	}
	fprintf(ctx->out, "Reverted apply run %lld (%d change%s undone).\n", (long long)p->run_id,
		restored, restored == 1 ? "" : "s");
	return 0;
}

static cJSON *plan_doc(struct cmd_ctx *ctx, const struct change_rollback *rb, bool print)
{
	const struct persist_plan *plan = rb->plan;
	cJSON *doc = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(doc, "schema", ROLLBACK_SCHEMA);
	cJSON_AddStringToObject(doc, "action", print ? "print" : "rollback");
	cJSON_AddNumberToObject(doc, "to_snapshot", (double)rb->target.id);
	cJSON_AddStringToObject(doc, "snapshot_reason", rb->target.reason);
	cJSON_AddStringToObject(doc, "snapshot_taken_at", rb->target.taken_at);
	arr = cJSON_AddArrayToObject(doc, "changes");
	for (int i = 0; i < rb->n; i++)
		if (rb->ch[i].changed)
			cJSON_AddItemToArray(arr, change_setting_json(&rb->ch[i]));
	change_files_json(&ctx->host, plan, cJSON_AddArrayToObject(doc, "files"));
	arr = cJSON_AddArrayToObject(doc, "directories_removed");
	for (int k = 0; k < rb->n_dirs; k++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", ctx->host.root, rb->dirs[k]);
		cJSON_AddItemToArray(arr, cJSON_CreateString(path));
	}
	return doc;
}

/* --print: the shell commands (into doc's "commands" with --json). */
static int print_commands(struct cmd_ctx *ctx, const struct change_rollback *rb, cJSON *doc)
{
	const struct change_setting *ch = rb->ch;
	const char *root = ctx->host.root;
	cJSON *cmds = doc ? cJSON_AddArrayToObject(doc, "commands") : NULL;
	struct shell_cmd c;
	FILE *f;

	if (!doc) {
		fprintf(ctx->out, "# restore snapshot %lld (", (long long)rb->target.id);
		put_comment_text(ctx->out, rb->target.reason);
		fputs(", ", ctx->out);
		put_comment_text(ctx->out, rb->target.taken_at);
		fputs(")\n", ctx->out);
	}
	for (int i = 0; i < rb->n; i++) {
		if (!ch[i].changed || !(f = cmd_start(&c)))
			continue;
		if (ch[i].sysctl[0] && ctx->host.live) {
			char kv[sizeof(ch[i].sysctl) + sizeof(ch[i].new_value) + 2];

			snprintf(kv, sizeof(kv), "%s=%s", ch[i].sysctl, ch[i].new_value);
			fputs("sysctl -w ", f);
			put_quoted(f, kv);
		} else {
			fputs("printf '%s\\n' ", f);
			put_quoted(f, ch[i].new_value);
			fputs(" > ", f);
			put_quoted(f, ch[i].path);
		}
		cmd_end(&c, cmds, ctx->out);
	}
	for (int i = 0; i < rb->plan->n_files; i++) {
		const struct persist_file *pf = &rb->plan->files[i];

		if (!pf->changed || !(f = cmd_start(&c)))
			continue;
		if (pf->remove) {
			fputs("rm -f -- ", f);
			put_quoted_path(f, root, pf->rel);
		} else {
			fputs("printf '%s' ", f);
			put_quoted(f, pf->content);
			fputs(" > ", f);
			put_quoted_path(f, root, pf->rel);
		}
		cmd_end(&c, cmds, ctx->out);
	}
	for (int k = 0; k < rb->n_dirs; k++) {
		if (!(f = cmd_start(&c)))
			continue;
		fputs("rmdir -- ", f);
		put_quoted_path(f, root, rb->dirs[k]);
		cmd_end(&c, cmds, ctx->out);
	}
	if (!doc && !change_rollback_needed(rb))
		fprintf(ctx->out, "# nothing to do: the settings match snapshot %lld\n",
			(long long)rb->target.id);
	return doc ? cmd_print_json(ctx, doc) : 0;
}

static void print_plan(struct cmd_ctx *ctx, const struct change_rollback *rb)
{
	/* store text and the sysroot path may hold any byte: escape them */
	fprintf(ctx->out, "Rolling back to snapshot %lld (%s, %s):\n", (long long)rb->target.id,
		fmt_printable(rb->target.reason), fmt_printable(rb->target.taken_at));
	for (int i = 0; i < rb->n; i++)
		if (rb->ch[i].changed)
			fprintf(ctx->out, "  %s: %s -> %s\n", rb->ch[i].name,
				fmt_printable(rb->ch[i].old_value), fmt_printable(rb->ch[i].new_value));
	for (int i = 0; i < rb->plan->n_files; i++)
		if (rb->plan->files[i].changed)
			fprintf(ctx->out, "  %s %s/%s\n", rb->plan->files[i].remove ? "remove" : "restore",
				fmt_printable(ctx->host.root), fmt_printable(rb->plan->files[i].rel));
	for (int k = 0; k < rb->n_dirs; k++)
		fprintf(ctx->out, "  remove directory %s/%s\n", fmt_printable(ctx->host.root),
			fmt_printable(rb->dirs[k]));
}

static int rollback_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct change_rollback rb = { 0 };
	struct change_pending pend;
	struct rollback_args a = { 0 };
	bool print, yes;
	int64_t to, run_id = 0, snap_before = 0;
	cJSON *doc = NULL;
	int r, lockfd = -1;

	if ((r = cmd_parse(ctx, &cmd_rollback_entry, argc, argv, &a, NULL)) < 0)
		return r;
	to = a.to;
	print = a.print;
	yes = a.yes;
	/*
	 * not --print: lock (and so repair) before planning; without root on the
	 * live host the refusal comes where a change is needed, as before
	 */
	if (!print && (!ctx->host.live || geteuid() == 0) &&
	    (r = change_lock(&ctx->store, &ctx->host,
			     &(struct change_guard){ .what = "rollback", .db_path = ctx->db_path },
			     &lockfd, &ctx->err)) < 0)
		return r;
	/* --print writes nothing, not even the settling of a confirm */
	if (!print && (r = change_settle_confirms(&ctx->store, &ctx->err)) < 0)
		goto out;
	r = change_pending_confirm(&ctx->store, &ctx->host, &pend, &ctx->err);
	if (r < 0)
		goto out;
	if (r > 0) {
		if (to)
			r = err_set_exit(&ctx->err, -EBUSY, ST_EXIT_DENIED,
					 "apply run %lld awaits confirmation: run swaptune rollback"
					 " without --to to revert it, or swaptune apply --confirm",
					 (long long)pend.run_id);
		else
			r = revert_pending(ctx, &pend, print, yes);
		goto out;
	}

	if ((r = change_rollback_plan(&ctx->store, &ctx->host, to, &rb, &ctx->err)) < 0)
		goto out;
	if (ctx->json)
		doc = plan_doc(ctx, &rb, print);
	if (print) {
		r = print_commands(ctx, &rb, doc);
		doc = NULL;
		goto out;
	}
	if (!doc)
		print_plan(ctx, &rb);
	if (!change_rollback_needed(&rb)) {
		if (doc) {
			cJSON_AddNullToObject(doc, "run_id");
			r = cmd_print_json(ctx, doc);
			doc = NULL;
		} else {
			fprintf(ctx->out, "Nothing to do: the settings already match snapshot %lld.\n",
				(long long)rb.target.id);
		}
		goto out;
	}
	if (lockfd < 0 &&
	    (r = change_lock(&ctx->store, &ctx->host,
			     &(struct change_guard){ .what = "rollback", .db_path = ctx->db_path },
			     &lockfd, &ctx->err)) < 0)
		goto out;
	fflush(ctx->out);
	if ((r = change_ask("roll back", yes, &ctx->err)) < 0)
		goto out;
	if ((r = change_rollback_run(&ctx->store, &ctx->host, &rb, &run_id, &snap_before,
				     &ctx->err)) < 0)
		goto out;
	if (doc) {
		cJSON_AddNumberToObject(doc, "run_id", (double)run_id);
		cJSON_AddNumberToObject(doc, "snapshot_id", (double)snap_before);
		r = cmd_print_json(ctx, doc);
		doc = NULL;
	} else {
		fprintf(ctx->out, "Rolled back as run %lld; snapshot %lld holds the settings before it.\n",
			(long long)run_id, (long long)snap_before);
	}
out:
	change_unlock(lockfd);
	change_rollback_free(&rb);
	cJSON_Delete(doc);
	return r;
}

const struct cmd_entry cmd_rollback_entry = {
	.name = "rollback",
	.summary = "restore the settings and boot-time files of an earlier snapshot",
	.usage = "[--to ID] [--print] [--yes]",
	.group = CMD_GROUP_CHANGE,
	.opts = { rollback_opts },
	.exec = rollback_exec,
};
