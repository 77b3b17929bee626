/*
 * cmd-rollback.c - `swaptune rollback`: put the settings of an earlier
 * snapshot back (by default the one taken before the latest apply that is
 * still in effect), together with swaptune's boot-time files as they were
 * then. `--print` gives the shell commands instead, for a ticket.
 *
 * Boot-time files are rebuilt from the journal: for each of swaptune's own
 * files, the oldest committed change made after the snapshot holds the
 * content it had then (none: the file did not exist). A snapshot whose
 * reason starts with "before" precedes its run's changes; any other ("after
 * apply", "after rollback") follows them.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h" /* TEMPORARY: SQL moves into the store (issue 8) */
#include "swaptune/advice.h"
#include "swaptune/lock.h"
#include "swaptune/cmd.h"
#include "swaptune/journal.h"
#include "swaptune/persist.h"
#include "swaptune/probe.h"

#define ROLLBACK_SCHEMA "swaptune.rollback/1"
#define DIRS_MAX 8

enum { OPT_TO = 256, OPT_PRINT, OPT_YES };

static const struct option rollback_longopts[] = {
	{ "to", required_argument, NULL, OPT_TO },
	{ "print", no_argument, NULL, OPT_PRINT },
	{ "yes", no_argument, NULL, OPT_YES },
	{ 0, 0, 0, 0 },
};

struct target {
	int64_t snap_id;
	int64_t run_id;			/* the run the snapshot belongs to */
	bool before;			/* taken before that run's changes */
	char reason[64];
	char taken_at[40];
};

static const char *sysroot_key(const struct host *h)
{
	return h->live ? "/" : h->root;
}

static int find_target(struct cmd_ctx *ctx, int64_t to, struct target *t)
{
	sqlite3_stmt *stmt;
	int r;

	if (to)
		r = store_prepare(&ctx->store,
			"SELECT id, coalesce(run_id, 0), reason, taken_at FROM snapshots WHERE id = ?1",
			&stmt, &ctx->err);
	else
		/* the latest apply that no later rollback has already gone back past */
		r = store_prepare(&ctx->store,
			"SELECT s.id, s.run_id, s.reason, s.taken_at FROM snapshots s"
			" JOIN runs a ON a.id = s.run_id"
			" WHERE a.kind = 'apply' AND a.status = 'ok' AND s.reason = 'before apply'"
			" AND NOT EXISTS (SELECT 1 FROM runs b WHERE b.kind = 'rollback'"
			"   AND b.status = 'ok' AND b.id > a.id"
			"   AND json_extract(b.params, '$.to_run') <= a.id)"
			" ORDER BY s.id DESC LIMIT 1", &stmt, &ctx->err);
	if (r < 0)
		return r;
	if (to)
		sqlite3_bind_int64(stmt, 1, to);
	r = sqlite3_step(stmt);
	if (r != SQLITE_ROW) {
		sqlite3_finalize(stmt);
		if (r != SQLITE_DONE)
			return err_set(&ctx->err, -EIO, "database %s: %s", ctx->store.path,
				       sqlite3_errmsg(ctx->store.db));
		if (to)
			return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE,
					    "no snapshot %lld (see swaptune history)", (long long)to);
		return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_RUNTIME,
				    "nothing to roll back: no apply is in effect (see swaptune history;"
				    " --to ID picks any snapshot)");
	}
	t->snap_id = sqlite3_column_int64(stmt, 0);
	t->run_id = sqlite3_column_int64(stmt, 1);
	snprintf(t->reason, sizeof(t->reason), "%s", (const char *)sqlite3_column_text(stmt, 2));
	snprintf(t->taken_at, sizeof(t->taken_at), "%s", (const char *)sqlite3_column_text(stmt, 3));
	t->before = !strncmp(t->reason, "before", 6);
	sqlite3_finalize(stmt);
	return 0;
}

/*
 * What swaptune's files and directories must look like to match the
 * snapshot: want[i] is the content of file i (NULL = absent), keep[i]
 * whether the journal says nothing about it since (leave it alone).
 */
static int files_at(struct cmd_ctx *ctx, const struct target *t, char *text[PERSIST_FILES_MAX],
		    bool keep[PERSIST_FILES_MAX], char dirs[DIRS_MAX][PATH_MAX], int *n_dirs)
{
	sqlite3_stmt *stmt;
	int r;

	for (int i = 0; i < PERSIST_FILES_MAX; i++) {
		keep[i] = true;
		text[i] = NULL;
	}
	*n_dirs = 0;
	r = store_prepare(&ctx->store,
		"SELECT kind, name, old_value FROM changes WHERE state = 'committed'"
		" AND kind IN ('" PERSIST_KIND_FILE "', '" PERSIST_KIND_DIR "')"
		" AND sysroot = ?1 AND run_id >= ?2 ORDER BY id", &stmt, &ctx->err);
	/* an "after" snapshot already holds its own run's changes */
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, sysroot_key(&ctx->host), -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, t->before ? t->run_id : t->run_id + 1);
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(stmt, 0);
		const char *name = (const char *)sqlite3_column_text(stmt, 1);
		int i;

		if (!strcmp(kind, PERSIST_KIND_DIR)) {
			bool seen = false;

			for (int k = 0; k < *n_dirs; k++)
				seen |= !strcmp(dirs[k], name);
			if (!seen && *n_dirs < DIRS_MAX)
				snprintf(dirs[(*n_dirs)++], PATH_MAX, "%s", name);
			continue;
		}
		i = persist_file_index(name);
		if (i < 0 || !keep[i])
			continue;	/* the oldest row tells the content before */
		keep[i] = false;
		if (sqlite3_column_type(stmt, 2) != SQLITE_NULL)
			text[i] = strdup((const char *)sqlite3_column_text(stmt, 2));
	}
	sqlite3_finalize(stmt);
	/* deepest first */
	for (int a = 0; a < *n_dirs; a++)
		for (int b = a + 1; b < *n_dirs; b++)
			if (strlen(dirs[b]) > strlen(dirs[a])) {
				char tmp[PATH_MAX];

				memcpy(tmp, dirs[a], PATH_MAX);
				memcpy(dirs[a], dirs[b], PATH_MAX);
				memcpy(dirs[b], tmp, PATH_MAX);
			}
	return 0;
}

/* A line of shell for --print. */
static void shell_line(cJSON *cmds, FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void shell_line(cJSON *cmds, FILE *out, const char *fmt, ...)
{
	char buf[PERSIST_CONTENT_MAX + PATH_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (cmds)
		cJSON_AddItemToArray(cmds, cJSON_CreateString(buf));
	else
		fprintf(out, "%s\n", buf);
}

/* Undo a pending --confirm-within apply now, as if its deadline had passed. */
static int revert_pending(struct cmd_ctx *ctx, const struct advice_pending *p, bool print,
			  bool yes)
{
	struct journal j;
	int restored = 0, r;
	char params[128];
	int64_t rb_run = 0;

	if (print) {
		fprintf(ctx->out, "# apply run %lld awaits confirmation; `swaptune rollback` reverts it\n",
			(long long)p->run_id);
		return 0;
	}
	if ((r = advice_need_root(&ctx->host, "rollback", &ctx->err)) < 0)
		return r;
	if (!ctx->json)
		fprintf(ctx->out, "Apply run %lld awaits confirmation: reverting it now.\n",
			(long long)p->run_id);
	fflush(ctx->out);
	if ((r = advice_ask("revert it", yes, &ctx->err)) < 0)
		return r;
	snprintf(params, sizeof(params), "{\"reason\":\"rollback of unconfirmed apply\",\"apply_run\":%lld}",
		 (long long)p->run_id);
	if ((r = store_run_begin(&ctx->store, "rollback", params, &rb_run, &ctx->err)) < 0)
		return r;
	memset(&j, 0, sizeof(j));
	j.st = &ctx->store;
	j.h = &ctx->host;
	j.pid = getpid();
	snprintf(j.session, sizeof(j.session), "%s", p->session);
	if ((r = store_exec(&ctx->store, "BEGIN IMMEDIATE", &ctx->err)) < 0)
		return r;
	r = journal_restore(&j, &restored, &ctx->err);
	store_exec(&ctx->store, "COMMIT", NULL);
	if (host_pid_alive(p->pid, p->pid_start))
		kill(p->pid, SIGTERM);
	store_run_end(&ctx->store, p->run_id, "reverted", NULL, NULL);
	store_run_end(&ctx->store, rb_run, r < 0 ? "failed" : "ok", NULL, NULL);
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

static int rollback_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct target t = { 0 };
	struct settings_snapshot snap, after;
	struct advice_setting want[SETTINGS_MAX];
	struct advice_change ch[SETTINGS_MAX];
	struct advice_pending pend;
	struct persist_plan *plan = NULL;
	char *text[PERSIST_FILES_MAX] = { NULL };
	bool keep[PERSIST_FILES_MAX];
	char dirs[DIRS_MAX][PATH_MAX];
	int n_dirs = 0, n_want = 0, n_changed = 0, n_files = 0, r;
	bool print = false, yes = false, rows_open = false;
	int64_t to = 0, run_id = 0, snap_before = 0;
	cJSON *doc = NULL, *arr, *cmds = NULL;
	struct journal j;
	char *end, params[128], lockpath[PATH_MAX];
	int lockfd = -1;

	while ((r = cmd_getopt(ctx, &cmd_rollback_entry, argc, argv, "y", rollback_longopts)) != -1) {
		switch (r) {
		case -2:
			return -EINVAL;
		case OPT_TO:
			to = strtoll(optarg, &end, 10);
			if (*end || to <= 0)
				return cmd_usage_error(ctx, &cmd_rollback_entry,
						       "--to needs a snapshot id, not \"%s\"", optarg);
			break;
		case OPT_PRINT:
			print = true;
			break;
		case 'y':
		case OPT_YES:
			yes = true;
			break;
		default:
			return cmd_usage_error(ctx, &cmd_rollback_entry, "unexpected option");
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_rollback_entry, "unexpected argument \"%s\"",
				       argv[optind]);

	if ((r = advice_settle_confirms(&ctx->store, &ctx->err)) < 0)
		return r;
	r = advice_pending_confirm(&ctx->store, &ctx->host, &pend, &ctx->err);
	if (r < 0)
		return r;
	if (r > 0) {
		if (to)
			return err_set_exit(&ctx->err, -EBUSY, ST_EXIT_DENIED,
					    "apply run %lld awaits confirmation: run swaptune rollback"
					    " without --to to revert it, or swaptune apply --confirm",
					    (long long)pend.run_id);
		return revert_pending(ctx, &pend, print, yes);
	}

	if ((r = find_target(ctx, to, &t)) < 0)
		return r;
	if ((r = store_snapshot_load(&ctx->store, t.snap_id, &snap, &ctx->err)) < 0)
		return r;
	for (int i = 0; i < snap.n; i++) {
		if (!snap.items[i].present || !settings_find(snap.items[i].name))
			continue;
		snprintf(want[n_want].name, sizeof(want[0].name), "%s", snap.items[i].name);
		snprintf(want[n_want].value, sizeof(want[0].value), "%s", snap.items[i].value);
		n_want++;
	}
	if ((r = advice_diff(&ctx->host, want, n_want, ch, &ctx->err)) < 0)
		return err_prefix(&ctx->err, "snapshot %lld cannot be restored", (long long)t.snap_id);
	for (int i = 0; i < n_want; i++)
		n_changed += ch[i].changed;

	if ((r = files_at(ctx, &t, text, keep, dirs, &n_dirs)) < 0)
		goto out;
	plan = calloc(1, sizeof(*plan));
	if (!plan) {
		r = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	{
		char cur[PERSIST_CONTENT_MAX];
		const char *want_text[PERSIST_FILES_MAX];

		for (int i = 0; i < PERSIST_FILES_MAX; i++) {
			want_text[i] = text[i];
			if (keep[i]) {
				/* not touched since: as it is now */
				int n = persist_read_file(&ctx->host, persist_file_at(i), cur, sizeof(cur), NULL);

				want_text[i] = n >= 0 ? strdup(cur) : NULL;
				text[i] = (char *)want_text[i];
			}
		}
		if ((r = persist_plan_contents(&ctx->host, want_text, plan, &ctx->err)) < 0)
			goto out;
	}
	/* directories that no longer exist need nothing */
	for (int k = 0; k < n_dirs; k++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s", dirs[k]);
		if (!host_exists(&ctx->host, path)) {
			memmove(dirs[k], dirs[k + 1], (size_t)(n_dirs - k - 1) * PATH_MAX);
			n_dirs--;
			k--;
		}
	}
	for (int i = 0; i < plan->n_files; i++)
		n_files += plan->files[i].changed;

	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", ROLLBACK_SCHEMA);
		cJSON_AddStringToObject(doc, "action", print ? "print" : "rollback");
		cJSON_AddNumberToObject(doc, "to_snapshot", (double)t.snap_id);
		cJSON_AddStringToObject(doc, "snapshot_reason", t.reason);
		cJSON_AddStringToObject(doc, "snapshot_taken_at", t.taken_at);
		arr = cJSON_AddArrayToObject(doc, "changes");
		for (int i = 0; i < n_want; i++)
			if (ch[i].changed)
				cJSON_AddItemToArray(arr, advice_change_json(&ch[i]));
		arr = cJSON_AddArrayToObject(doc, "files");
		for (int i = 0; i < plan->n_files; i++) {
			const struct persist_file *f = &plan->files[i];
			cJSON *x;
			char path[PATH_MAX];

			if (!f->changed)
				continue;
			x = cJSON_CreateObject();
			snprintf(path, sizeof(path), "%s/%s", ctx->host.root, f->rel);
			cJSON_AddStringToObject(x, "path", path);
			cJSON_AddStringToObject(x, "action", f->remove ? "remove" : "write");
			if (f->remove)
				cJSON_AddNullToObject(x, "content");
			else
				cJSON_AddStringToObject(x, "content", f->content);
			cJSON_AddItemToArray(arr, x);
		}
		arr = cJSON_AddArrayToObject(doc, "directories_removed");
		for (int k = 0; k < n_dirs; k++) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", ctx->host.root, dirs[k]);
			cJSON_AddItemToArray(arr, cJSON_CreateString(path));
		}
		if (print)
			cmds = cJSON_AddArrayToObject(doc, "commands");
	}

	if (print) {
		if (!doc)
			fprintf(ctx->out, "# restore snapshot %lld (%s, %s)\n", (long long)t.snap_id,
				t.reason, t.taken_at);
		for (int i = 0; i < n_want; i++) {
			if (!ch[i].changed)
				continue;
			if (ch[i].sysctl[0] && ctx->host.live)
				shell_line(cmds, ctx->out, "sysctl -w %s=%s", ch[i].sysctl, ch[i].new_value);
			else
				shell_line(cmds, ctx->out, "echo %s > %s", ch[i].new_value, ch[i].path);
		}
		for (int i = 0; i < plan->n_files; i++) {
			const struct persist_file *f = &plan->files[i];

			if (!f->changed)
				continue;
			if (f->remove)
				shell_line(cmds, ctx->out, "rm -f %s/%s", ctx->host.root, f->rel);
			else
				shell_line(cmds, ctx->out, "cat > %s/%s <<'EOF'\n%sEOF", ctx->host.root,
					   f->rel, f->content);
		}
		for (int k = 0; k < n_dirs; k++)
			shell_line(cmds, ctx->out, "rmdir %s/%s", ctx->host.root, dirs[k]);
		if (!doc && n_changed == 0 && n_files == 0 && n_dirs == 0)
			fprintf(ctx->out, "# nothing to do: the settings match snapshot %lld\n",
				(long long)t.snap_id);
		if (doc) {
			r = cmd_print_json(ctx, doc);
			doc = NULL;
		}
		goto out;
	}

	if (!doc) {
		fprintf(ctx->out, "Rolling back to snapshot %lld (%s, %s):\n", (long long)t.snap_id,
			t.reason, t.taken_at);
		for (int i = 0; i < n_want; i++)
			if (ch[i].changed)
				fprintf(ctx->out, "  %s: %s -> %s\n", ch[i].name, ch[i].old_value,
					ch[i].new_value);
		for (int i = 0; i < plan->n_files; i++)
			if (plan->files[i].changed)
				fprintf(ctx->out, "  %s %s/%s\n", plan->files[i].remove ? "remove" : "restore",
					ctx->host.root, plan->files[i].rel);
		for (int k = 0; k < n_dirs; k++)
			fprintf(ctx->out, "  remove directory %s/%s\n", ctx->host.root, dirs[k]);
	}
	if (n_changed == 0 && n_files == 0 && n_dirs == 0) {
		if (doc) {
			cJSON_AddNullToObject(doc, "run_id");
			r = cmd_print_json(ctx, doc);
			doc = NULL;
		} else {
			fprintf(ctx->out, "Nothing to do: the settings already match snapshot %lld.\n",
				(long long)t.snap_id);
		}
		goto out;
	}
	if ((r = advice_need_root(&ctx->host, "rollback", &ctx->err)) < 0)
		goto out;
	if ((r = host_change_lock(&ctx->host, ctx->db_path, "rollback", &lockfd, lockpath, sizeof(lockpath),
			    &ctx->err)) < 0)
		goto out;
	fflush(ctx->out);
	if ((r = advice_ask("roll back", yes, &ctx->err)) < 0)
		goto out;

	snprintf(params, sizeof(params), "{\"to\":%lld,\"to_run\":%lld}", (long long)t.snap_id,
		 (long long)t.run_id);
	if ((r = advice_change_begin(&ctx->store, &ctx->host, "rollback", params, &run_id,
				     &snap_before, &ctx->err)) < 0)
		goto out;
	journal_begin(&j, &ctx->store, &ctx->host, run_id, &ctx->err);
	rows_open = true;
	if ((r = advice_change_write(&j, ch, n_want, plan, NULL, &ctx->err)) < 0)
		goto undo;
	if ((r = journal_commit_session(&ctx->store, j.session, NULL, &ctx->err)) < 0)
		goto undo;
	rows_open = false;
	for (int k = 0; k < n_dirs; k++) {
		struct st_err e2 = { 0 };

		persist_undo_dir(&ctx->host, dirs[k], NULL, &e2);
	}
	store_run_end(&ctx->store, run_id, "ok", NULL, NULL);
	if (settings_snapshot(&ctx->host, &after, NULL) == 0)
		store_snapshot_save(&ctx->store, run_id, "after rollback", &after, NULL, NULL);
	if (doc) {
		cJSON_AddNumberToObject(doc, "run_id", (double)run_id);
		cJSON_AddNumberToObject(doc, "snapshot_id", (double)snap_before);
		r = cmd_print_json(ctx, doc);
		doc = NULL;
	} else {
		fprintf(ctx->out, "Rolled back as run %lld; snapshot %lld holds the settings before it.\n",
			(long long)run_id, (long long)snap_before);
		r = 0;
	}
	goto out;
undo:
	if (rows_open) {
		struct st_err e2 = { 0 };

		journal_restore(&j, NULL, &e2);
		store_run_end(&ctx->store, run_id, "failed", NULL, NULL);
		err_prefix(&ctx->err, "rollback failed, settings left as they were");
	}
out:
	host_change_unlock(lockfd);
	for (int i = 0; i < PERSIST_FILES_MAX; i++)
		free(text[i]);
	free(plan);
	cJSON_Delete(doc);
	return r;
}

static const struct cmd_option rollback_options[] = {
	{ "--to ID", "restore snapshot ID (see swaptune history) instead of the one before the latest apply" },
	{ "--print", "print the shell commands that would restore it; change nothing" },
	{ "-y, --yes", "do not ask (needed without a terminal)" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_rollback_entry = {
	.name = "rollback",
	.summary = "restore the settings and boot-time files of an earlier snapshot",
	.usage = "[--to ID] [--print] [--yes]",
	.options = rollback_options,
	.exec = rollback_exec,
};
