/*
 * cmd-apply.c - `swaptune apply`: change settings to a probe run's
 * recommendation or to explicit setting=value pairs, with a snapshot first,
 * every write journaled, optional boot-time files (--persist), and an
 * optional dead man's switch (--confirm-within) that puts the previous
 * settings back unless `swaptune apply --confirm` comes in time.
 *
 * The switch is a watchdog process: apply re-executes itself detached
 * (double fork, setsid, fds closed) as `swaptune apply --watchdog ...` and
 * hands the session's still-pending journal rows to it (journal_transfer),
 * so crash repair leaves them alone while it lives and undoes them if it is
 * killed. At the deadline it restores the session inside one IMMEDIATE
 * transaction; --confirm commits the rows inside one too, so exactly one of
 * them wins.
 */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store-int.h" /* TEMPORARY: SQL moves into the store (issue 8) */
#include "swaptune/advice.h"
#include "swaptune/cmd.h"
#include "swaptune/journal.h"
#include "swaptune/persist.h"
#include "swaptune/probe.h"
#include "swaptune/undo.h"

#define APPLY_SCHEMA "swaptune.apply/1"

enum {
	OPT_RUN = 256, OPT_BASELINE, OPT_MIN_EFFECT, OPT_YES, OPT_DRY_RUN, OPT_PERSIST,
	OPT_CONFIRM_WITHIN, OPT_CONFIRM, OPT_FROM, OPT_WATCHDOG,
};

static const struct option apply_longopts[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
	{ "yes", no_argument, NULL, OPT_YES },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "persist", no_argument, NULL, OPT_PERSIST },
	{ "confirm-within", required_argument, NULL, OPT_CONFIRM_WITHIN },
	{ "confirm", no_argument, NULL, OPT_CONFIRM },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
	{ 0, 0, 0, 0 },
};

struct apply_opts {
	int64_t run_id;			/* 0 = none */
	const char *baseline;
	double min_effect_pct;
	bool yes, dry_run, persist, confirm;
	long long confirm_within_ns;	/* 0 = none */
	const char *from;
	const char *watchdog;
	int n_want;
	struct advice_setting want[SETTINGS_MAX];
};

/* What the probe run said, when the settings come from one. */
struct apply_source {
	bool used;
	char arm[VERDICT_NAME_MAX];
	char confidence[16];
	char headline[VERDICT_REASON_LEN];
};

static int add_want(struct cmd_ctx *ctx, struct apply_opts *o, const char *name,
		    const char *value)
{
	if (o->n_want >= SETTINGS_MAX)
		return cmd_usage_error(ctx, &cmd_apply_entry, "more than %d settings", SETTINGS_MAX);
	snprintf(o->want[o->n_want].name, sizeof(o->want[0].name), "%s", name);
	snprintf(o->want[o->n_want].value, sizeof(o->want[0].value), "%s", value);
	o->n_want++;
	return 0;
}

static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct apply_opts *o)
{
	char *end;
	int r;

	memset(o, 0, sizeof(*o));
	o->min_effect_pct = 2.0;
	while ((r = cmd_getopt(ctx, &cmd_apply_entry, argc, argv, "y", apply_longopts)) != -1) {
		switch (r) {
		case -2:
			return -EINVAL;
		case OPT_RUN:
			o->run_id = strtoll(optarg, &end, 10);
			if (*end || o->run_id <= 0)
				return cmd_usage_error(ctx, &cmd_apply_entry, "--run needs a run id, not \"%s\"",
						       optarg);
			break;
		case OPT_BASELINE:
			o->baseline = optarg;
			break;
		case OPT_MIN_EFFECT:
			o->min_effect_pct = strtod(optarg, &end);
			if (*end || !isfinite(o->min_effect_pct) || o->min_effect_pct < 0)
				return cmd_usage_error(ctx, &cmd_apply_entry,
						       "--min-effect needs a percentage >= 0, not \"%s\"", optarg);
			break;
		case 'y':
		case OPT_YES:
			o->yes = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_PERSIST:
			o->persist = true;
			break;
		case OPT_CONFIRM_WITHIN:
			if (fmt_parse_duration(optarg, &o->confirm_within_ns) < 0 ||
			    o->confirm_within_ns < 1000000000LL)
				return cmd_usage_error(ctx, &cmd_apply_entry,
						       "--confirm-within needs a duration of at least 1s (e.g. 30s, 5m), not \"%s\"",
						       optarg);
			break;
		case OPT_CONFIRM:
			o->confirm = true;
			break;
		case OPT_FROM:
			o->from = optarg;
			break;
		case OPT_WATCHDOG:
			o->watchdog = optarg;
			break;
		default:
			return cmd_usage_error(ctx, &cmd_apply_entry, "unexpected option");
		}
	}
	for (int i = optind; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		char name[64];

		if (!eq || eq == argv[i])
			return cmd_usage_error(ctx, &cmd_apply_entry,
					       "\"%s\" is not setting=value (e.g. page-cluster=0)", argv[i]);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - argv[i]), argv[i]);
		if ((r = add_want(ctx, o, name, eq + 1)) < 0)
			return r;
	}
	if (o->watchdog)
		return 0;
	if (o->confirm) {
		if (o->run_id || o->n_want || o->from || o->persist || o->confirm_within_ns || o->dry_run)
			return cmd_usage_error(ctx, &cmd_apply_entry,
					       "--confirm takes no settings or other options");
		return 0;
	}
	if (!!o->run_id + !!o->n_want + !!o->from > 1)
		return cmd_usage_error(ctx, &cmd_apply_entry,
				       "give either --run ID, --from FILE or setting=value pairs, not several");
	if (!o->run_id && !o->n_want && !o->from)
		return cmd_usage_error(ctx, &cmd_apply_entry,
				       "nothing to apply: give --run ID (see swaptune recommend) or setting=value");
	if ((o->baseline || o->min_effect_pct != 2.0) && !o->run_id)
		return cmd_usage_error(ctx, &cmd_apply_entry, "--baseline and --min-effect go with --run");
	return 0;
}

/* Settings from the verdict on a probe run. */
static int want_from_run(struct cmd_ctx *ctx, struct apply_opts *o, struct apply_source *src)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct verdict_opts vo;
	const struct advice_arm *arm;
	int r;

	if (!run || !v) {
		r = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	r = advice_load_run(&ctx->store, &ctx->host, o->run_id, o->baseline, run, &ctx->err);
	if (r < 0)
		goto out;
	verdict_opts_init(&vo);
	vo.min_effect_pct = o->min_effect_pct;
	r = verdict_compute(&run->in, &vo, v, &ctx->err);
	if (r < 0) {
		err_prefix(&ctx->err, "probe run %lld", (long long)o->run_id);
		goto out;
	}
	if (v->kind != VERDICT_CHANGE) {
		r = err_set_exit(&ctx->err, -EAGAIN, ST_EXIT_RUNTIME,
				 "probe run %lld recommends no change (%s, %s confidence): %s; nothing applied",
				 (long long)o->run_id, verdict_kind_name(v->kind),
				 verdict_confidence_name(v->confidence),
				 v->n_reasons ? v->reasons[0] : "no reason given");
		goto out;
	}
	arm = &run->arms[v->chosen];
	if (arm->n_settings == 0) {
		r = err_set_exit(&ctx->err, -EINVAL, ST_EXIT_RUNTIME,
				 "arm %s of probe run %lld has no settings to apply", arm->name,
				 (long long)o->run_id);
		goto out;
	}
	for (int i = 0; i < arm->n_settings; i++) {
		if (!settings_find(arm->settings[i].name)) {
			/* e.g. the bypass emulated by zram behind zswap: "swap": "zram" */
			r = err_set_exit(&ctx->err, -EINVAL, ST_EXIT_RUNTIME,
					 "arm %s of probe run %lld has %s=%s, which is how its swap was set up,"
					 " not a setting swaptune can apply: set that up yourself, or apply"
					 " page-cluster=0 (the other bypass emulation)", arm->name,
					 (long long)o->run_id, arm->settings[i].name, arm->settings[i].value);
			goto out;
		}
		if ((r = add_want(ctx, o, arm->settings[i].name, arm->settings[i].value)) < 0)
			goto out;
	}
	src->used = true;
	snprintf(src->arm, sizeof(src->arm), "%s", arm->name);
	snprintf(src->confidence, sizeof(src->confidence), "%s",
		 verdict_confidence_name(v->confidence));
	snprintf(src->headline, sizeof(src->headline), "%s", v->n_reasons ? v->reasons[0] : "");
out:
	free(run);
	free(v);
	return r;
}

static int want_from_file(struct cmd_ctx *ctx, struct apply_opts *o)
{
	char rel[PATH_MAX], buf[PERSIST_CONTENT_MAX];
	struct persist_kv kv[SETTINGS_MAX];
	int n = 0, r;

	snprintf(rel, sizeof(rel), "%s", o->from);
	r = persist_read_file(&ctx->host, rel[0] == '/' ? rel + 1 : rel, buf, sizeof(buf), &ctx->err);
	if (r == -ENOENT)
		return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE, "cannot read %s%s%s: no such file",
				    ctx->host.root, rel[0] == '/' ? "" : "/", rel);
	if (r < 0)
		return r;
	r = persist_parse_boot(buf, o->from, kv, SETTINGS_MAX, &n, &ctx->err);
	if (r < 0)
		return r;
	for (int i = 0; i < n; i++)
		if ((r = add_want(ctx, o, kv[i].name, kv[i].value)) < 0)
			return r;
	return 0;
}

static void print_file(FILE *out, const char *root, const struct persist_file *f,
		       const char *verb)
{
	if (f->remove) {
		fprintf(out, "%s remove %s/%s\n", verb, root, f->rel);
		return;
	}
	fprintf(out, "%s write %s/%s:\n", verb, root, f->rel);
	for (const char *p = f->content; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(out, "    | %.*s\n", len, p);
		p += len + (nl ? 1 : 0);
	}
}

static void print_conflicts(FILE *out, const struct persist_plan *p)
{
	for (int i = 0; i < p->n_conflicts; i++) {
		const struct persist_conflict *c = &p->conflicts[i];
		char where[PATH_MAX + 16];

		if (c->line)
			snprintf(where, sizeof(where), "%s:%d", c->where, c->line);
		else
			snprintf(where, sizeof(where), "%s", c->where);
		if (c->ineffective)
			fprintf(out, "note: %s sets %s = %s, which has no effect: zswap is built in\n",
				where, c->key, c->value);
		else if (c->wins)
			fprintf(out, "warning: %s sets %s = %s and is read after swaptune's file, so it wins at boot;"
				" swaptune does not edit it: change it yourself\n", where, c->key, c->value);
		else
			fprintf(out, "note: %s sets %s = %s; swaptune's setting is applied after it at boot\n",
				where, c->key, c->value);
	}
	for (int i = 0; i < p->n_notes; i++)
		fprintf(out, "note: %s\n", p->notes[i]);
}

static cJSON *plan_json(const struct host *h, const struct persist_plan *p)
{
	cJSON *o = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(o, "files");
	cJSON *conf = cJSON_AddArrayToObject(o, "conflicts"), *notes = cJSON_AddArrayToObject(o, "notes");

	for (int i = 0; i < p->n_files; i++) {
		const struct persist_file *f = &p->files[i];
		cJSON *x;
		char path[PATH_MAX];

		if (!f->changed)
			continue;
		x = cJSON_CreateObject();
		snprintf(path, sizeof(path), "%s/%s", h->root, f->rel);
		cJSON_AddStringToObject(x, "path", path);
		cJSON_AddStringToObject(x, "action", f->remove ? "remove" : "write");
		if (f->remove)
			cJSON_AddNullToObject(x, "content");
		else
			cJSON_AddStringToObject(x, "content", f->content);
		cJSON_AddItemToArray(files, x);
	}
	for (int i = 0; i < p->n_conflicts; i++) {
		const struct persist_conflict *c = &p->conflicts[i];
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "setting", c->setting);
		cJSON_AddStringToObject(x, "where", c->where);
		cJSON_AddNumberToObject(x, "line", c->line);
		cJSON_AddStringToObject(x, "key", c->key);
		cJSON_AddStringToObject(x, "value", c->value);
		cJSON_AddBoolToObject(x, "wins_at_boot", c->wins);
		cJSON_AddBoolToObject(x, "ineffective", c->ineffective);
		cJSON_AddItemToArray(conf, x);
	}
	for (int i = 0; i < p->n_notes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(p->notes[i]));
	cJSON_AddBoolToObject(o, "zswap_builtin", p->zswap_builtin);
	if (p->cmdline_hint[0])
		cJSON_AddStringToObject(o, "cmdline_hint", p->cmdline_hint);
	else
		cJSON_AddNullToObject(o, "cmdline_hint");
	return o;
}

static bool plan_changes(const struct persist_plan *p)
{
	for (int i = 0; i < p->n_files; i++)
		if (p->files[i].changed)
			return true;
	return false;
}

/* ---- the watchdog ---- */

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Start `swaptune --db DB --sysroot ROOT apply --watchdog RUN,DEADLINE,SESSION`
 * detached from us, and return its pid once it runs.
 */
static int spawn_watchdog(struct cmd_ctx *ctx, int64_t run_id, double deadline,
			  const char *session, pid_t *pid, struct st_err *e)
{
	char exe[PATH_MAX], arg[160], root[PATH_MAX];
	int pfd[2], status;
	pid_t child, got = -1;
	ssize_t n;

	if (host_self_exe(exe, sizeof(exe)) < 0)
		return err_set(e, -ENOENT, "cannot find the swaptune binary to start the watchdog");
	snprintf(arg, sizeof(arg), "%lld,%.3f,%s", (long long)run_id, deadline, session);
	snprintf(root, sizeof(root), "%s", ctx->host.live ? "/" : ctx->host.root);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return err_set(e, -errno, "cannot start the watchdog: pipe: %s", strerror(errno));
	fflush(NULL);
	child = fork();
	if (child < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return err_set(e, -errno, "cannot start the watchdog: fork: %s", strerror(errno));
	}
	if (child == 0) {
		pid_t g;

		setsid();
		g = fork();
		if (g != 0) {
			/* the middle process only reports the grandchild's pid */
			if (write(pfd[1], &g, sizeof(g)) != sizeof(g))
				_exit(1);
			_exit(g < 0);
		}
		{
			char *args[] = { exe, "--db", ctx->db_path, "--sysroot", root, "apply",
					 "--watchdog", arg, NULL };
			int null = open("/dev/null", O_RDWR);

			signal(SIGHUP, SIG_IGN);
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_DFL);
			if (null >= 0) {
				dup2(null, 0);
				dup2(null, 1);
				dup2(null, 2);
			}
			close_range(3, ~0U, 0);
			if (chdir("/") < 0)
				_exit(127);
			execv(exe, args);
			_exit(127);
		}
	}
	close(pfd[1]);
	n = read(pfd[0], &got, sizeof(got));
	close(pfd[0]);
	waitpid(child, &status, 0);
	if (n != sizeof(got) || got <= 0)
		return err_set(e, -ECHILD, "cannot start the watchdog: fork failed");
	*pid = got;
	return 0;
}

/* In the watchdog: wait for the deadline, then take the session back unless confirmed. */
static int run_watchdog(struct cmd_ctx *ctx, const char *arg)
{
	struct journal j;
	struct settings_snapshot after;
	struct timespec ts;
	long long run_id;
	double deadline;
	char session[48], params[256];
	int restored = 0, r, n = 0;
	int64_t rb_run;

	if (sscanf(arg, "%lld,%lf,%47s", &run_id, &deadline, session) != 3)
		return cmd_usage_error(ctx, &cmd_apply_entry, "--watchdog: bad argument");
	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;

	memset(&j, 0, sizeof(j));
	j.st = &ctx->store;
	j.h = &ctx->host;
	j.pid = getpid();
	snprintf(j.session, sizeof(j.session), "%s", session);
	if ((r = store_exec(&ctx->store, "BEGIN IMMEDIATE", &ctx->err)) < 0)
		return r;
	{
		sqlite3_stmt *stmt;

		if (store_prepare(&ctx->store, "SELECT count(*) FROM changes WHERE session = ?1"
				  " AND state = 'pending'", &stmt, &ctx->err) < 0) {
			store_exec(&ctx->store, "ROLLBACK", NULL);
			return -EIO;
		}
		sqlite3_bind_text(stmt, 1, session, -1, SQLITE_STATIC);
		if (sqlite3_step(stmt) == SQLITE_ROW)
			n = sqlite3_column_int(stmt, 0);
		sqlite3_finalize(stmt);
	}
	if (n == 0) {	/* confirmed, or repaired already */
		store_exec(&ctx->store, "COMMIT", NULL);
		return 0;
	}
	r = journal_restore(&j, &restored, &ctx->err);
	store_exec(&ctx->store, "COMMIT", NULL);

	snprintf(params, sizeof(params),
		 "{\"reason\":\"confirm-within expired\",\"apply_run\":%lld}", run_id);
	if (store_run_begin(&ctx->store, "rollback", params, &rb_run, NULL) == 0) {
		if (settings_snapshot(&ctx->host, &after, NULL) == 0)
			store_snapshot_save(&ctx->store, rb_run, "after confirm-within expired", &after,
					    NULL, NULL);
		store_run_end(&ctx->store, rb_run, r < 0 ? "failed" : "ok", NULL, NULL);
	}
	store_run_end(&ctx->store, run_id, "reverted", NULL, NULL);
	return r < 0 ? r : 0;
}

/* ---- apply --confirm ---- */

static int do_confirm(struct cmd_ctx *ctx)
{
	struct advice_pending p;
	sqlite3_stmt *stmt;
	cJSON *doc = NULL, *changes = NULL;
	int n = 0, r;
	bool stopped = false;

	r = advice_pending_confirm(&ctx->store, &ctx->host, &p, &ctx->err);
	if (r < 0)
		return r;
	if (r == 0) {
		int64_t last = 0;
		char status[32] = "";

		if (store_prepare(&ctx->store, "SELECT id, status FROM runs WHERE kind = 'apply'"
				  " AND params LIKE '%confirm_deadline_unix%' ORDER BY id DESC LIMIT 1",
				  &stmt, &ctx->err) < 0)
			return -EIO;
		if (sqlite3_step(stmt) == SQLITE_ROW) {
			last = sqlite3_column_int64(stmt, 0);
			snprintf(status, sizeof(status), "%s", (const char *)sqlite3_column_text(stmt, 1));
		}
		sqlite3_finalize(stmt);
		if (last && !strcmp(status, "reverted"))
			return err_set_exit(&ctx->err, -ETIME, ST_EXIT_RUNTIME,
					    "nothing to confirm: apply run %lld was not confirmed in time and its"
					    " previous settings are back (see swaptune history)", (long long)last);
		return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_RUNTIME,
				    "nothing to confirm: no apply --confirm-within is waiting");
	}
	if ((r = store_exec(&ctx->store, "BEGIN IMMEDIATE", &ctx->err)) < 0)
		return r;
	r = journal_commit_session(&ctx->store, p.session, &n, &ctx->err);
	if (r < 0 || store_exec(&ctx->store, "COMMIT", &ctx->err) < 0) {
		store_exec(&ctx->store, "ROLLBACK", NULL);
		return r < 0 ? r : -EIO;
	}
	if (n == 0)
		return err_set_exit(&ctx->err, -ETIME, ST_EXIT_RUNTIME,
				    "too late: the watchdog of apply run %lld restored the previous settings",
				    (long long)p.run_id);
	if (host_pid_alive(p.pid, p.pid_start) && kill(p.pid, SIGTERM) == 0)
		stopped = true;
	store_run_end(&ctx->store, p.run_id, "ok", NULL, NULL);

	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", APPLY_SCHEMA);
		cJSON_AddStringToObject(doc, "action", "confirm");
		cJSON_AddNumberToObject(doc, "run_id", (double)p.run_id);
		changes = cJSON_AddArrayToObject(doc, "changes");
		cJSON_AddNumberToObject(doc, "watchdog_pid", p.pid);
		cJSON_AddBoolToObject(doc, "watchdog_stopped", stopped);
	} else {
		fprintf(ctx->out, "Confirmed apply run %lld:\n", (long long)p.run_id);
	}
	if (store_prepare(&ctx->store, "SELECT kind, name, old_value, new_value FROM changes"
			  " WHERE session = ?1 AND state = 'committed' ORDER BY id", &stmt, &ctx->err) < 0) {
		cJSON_Delete(doc);
		return -EIO;
	}
	sqlite3_bind_text(stmt, 1, p.session, -1, SQLITE_STATIC);
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(stmt, 0);
		const char *name = (const char *)sqlite3_column_text(stmt, 1);
		const char *old = (const char *)sqlite3_column_text(stmt, 2);
		const char *nw = (const char *)sqlite3_column_text(stmt, 3);

		if (doc) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddStringToObject(x, "kind", kind);
			cJSON_AddStringToObject(x, "name", name);
			if (!strcmp(kind, "setting")) {
				cJSON_AddStringToObject(x, "old", old ? old : "");
				cJSON_AddStringToObject(x, "new", nw ? nw : "");
			}
			cJSON_AddItemToArray(changes, x);
		} else if (!strcmp(kind, "setting")) {
			fprintf(ctx->out, "  %s: %s -> %s stays\n", name, old ? old : "?", nw ? nw : "?");
		} else if (!strcmp(kind, PERSIST_KIND_FILE)) {
			fprintf(ctx->out, "  %s/%s stays\n", ctx->host.root, name);
		}
	}
	sqlite3_finalize(stmt);
	if (doc)
		return cmd_print_json(ctx, doc);
	fprintf(ctx->out, "Watchdog pid %d %s.\n", p.pid, stopped ? "stopped" : "was already gone");
	return 0;
}

/* ---- apply ---- */

static cJSON *settings_obj(const struct advice_change *c, int n)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < n; i++)
		cJSON_AddStringToObject(o, c[i].name, c[i].new_value);
	return o;
}

static int apply_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct apply_opts o;
	struct apply_source src = { 0 };
	struct advice_change ch[SETTINGS_MAX];
	struct persist_plan *plan = NULL;
	struct settings_snapshot after;
	struct advice_pending pend;
	struct journal j;
	cJSON *doc = NULL, *arr, *params = NULL;
	char *params_text = NULL;
	int64_t run_id = 0, snap_id = 0, after_id = 0;
	int r, n_changed = 0, n_files = 0;
	pid_t wd_pid = 0;
	double deadline = 0;
	bool rows_open = false, nothing;
	int lockfd = -1;
	char lockpath[PATH_MAX];

	if ((r = parse_args(ctx, argc, argv, &o)) < 0)
		return r;
	if (o.watchdog)
		return run_watchdog(ctx, o.watchdog);
	if ((r = advice_settle_confirms(&ctx->store, &ctx->err)) < 0)
		return r;
	if (o.confirm) {
		if ((r = advice_need_root(&ctx->host, "apply", &ctx->err)) < 0)
			return r;
		return do_confirm(ctx);
	}
	if (o.run_id && (r = want_from_run(ctx, &o, &src)) < 0)
		return r;
	if (o.from && (r = want_from_file(ctx, &o)) < 0)
		return r;
	if ((r = advice_diff(&ctx->host, o.want, o.n_want, ch, &ctx->err)) < 0) {
		if (ctx->err.code == -EINVAL && !ctx->err.exit)
			ctx->err.exit = ST_EXIT_USAGE;
		return r;
	}
	for (int i = 0; i < o.n_want; i++)
		n_changed += ch[i].changed;
	if (o.persist) {
		struct persist_kv kv[SETTINGS_MAX];

		plan = calloc(1, sizeof(*plan));
		if (!plan)
			return err_set(&ctx->err, -ENOMEM, "out of memory");
		for (int i = 0; i < o.n_want; i++) {
			snprintf(kv[i].name, sizeof(kv[i].name), "%s", ch[i].name);
			snprintf(kv[i].value, sizeof(kv[i].value), "%s", ch[i].new_value);
		}
		if ((r = persist_plan(&ctx->host, kv, o.n_want, plan, &ctx->err)) < 0)
			goto out;
	}

	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", APPLY_SCHEMA);
		cJSON_AddStringToObject(doc, "action", o.dry_run ? "dry-run" : "apply");
		if (src.used) {
			cJSON *s = cJSON_AddObjectToObject(doc, "source");

			cJSON_AddNumberToObject(s, "run_id", (double)o.run_id);
			cJSON_AddStringToObject(s, "arm", src.arm);
			cJSON_AddStringToObject(s, "confidence", src.confidence);
			cJSON_AddStringToObject(s, "reason", src.headline);
		} else {
			cJSON_AddNullToObject(doc, "source");
		}
		arr = cJSON_AddArrayToObject(doc, "changes");
		for (int i = 0; i < o.n_want; i++)
			if (ch[i].changed)
				cJSON_AddItemToArray(arr, advice_change_json(&ch[i]));
		arr = cJSON_AddArrayToObject(doc, "unchanged");
		for (int i = 0; i < o.n_want; i++)
			if (!ch[i].changed)
				cJSON_AddItemToArray(arr, advice_change_json(&ch[i]));
		if (plan)
			cJSON_AddItemToObject(doc, "persist", plan_json(&ctx->host, plan));
		else
			cJSON_AddNullToObject(doc, "persist");
	} else {
		if (src.used)
			fprintf(ctx->out, "Probe run %lld recommends %s (confidence %s): %s\n",
				(long long)o.run_id, src.arm, src.confidence, src.headline);
		for (int i = 0; i < o.n_want; i++) {
			if (!ch[i].changed)
				fprintf(ctx->out, "%s: %s (unchanged)\n", ch[i].name, ch[i].old_value);
			else if (o.dry_run)
				fprintf(ctx->out, "%s: %s -> %s: would write \"%s\" to %s\n", ch[i].name,
					ch[i].old_value, ch[i].new_value, ch[i].new_value, ch[i].path);
			else
				fprintf(ctx->out, "%s: %s -> %s\n", ch[i].name, ch[i].old_value,
					ch[i].new_value);
		}
		if (plan) {
			for (int i = 0; i < plan->n_files; i++)
				if (plan->files[i].changed)
					print_file(ctx->out, ctx->host.root, &plan->files[i],
						   o.dry_run ? "would" : "will");
			if (!plan_changes(plan))
				fprintf(ctx->out, "boot-time files already hold these settings\n");
			print_conflicts(ctx->out, plan);
		}
	}
	nothing = n_changed == 0 && !(plan && plan_changes(plan));
	if (nothing || o.dry_run) {
		if (doc) {
			cJSON_AddNullToObject(doc, "run_id");
			cJSON_AddNullToObject(doc, "snapshot_id");
			cJSON_AddNullToObject(doc, "confirm");
			r = cmd_print_json(ctx, doc);
			doc = NULL;
		} else {
			fprintf(ctx->out, "%s\n", nothing ? "Nothing to change." :
				"Nothing changed (--dry-run).");
		}
		goto out;
	}
	if ((r = advice_need_root(&ctx->host, "apply", &ctx->err)) < 0)
		goto out;
	r = advice_pending_confirm(&ctx->store, &ctx->host, &pend, &ctx->err);
	if (r < 0)
		goto out;
	if (r > 0) {
		r = err_set_exit(&ctx->err, -EBUSY, ST_EXIT_DENIED,
				 "apply run %lld awaits confirmation: run swaptune apply --confirm "
				 "(or swaptune rollback) first", (long long)pend.run_id);
		goto out;
	}
	/* a probe's arms come and go: its settings are no "before" to snapshot */
	if ((r = probe_lock(&ctx->host, ctx->db_path, &lockfd, lockpath, sizeof(lockpath),
			    &ctx->err)) < 0)
		goto out;
	fflush(ctx->out);
	if ((r = advice_ask("apply these changes", o.yes, &ctx->err)) < 0)
		goto out;

	/* the record first: the run, then the settings as they are */
	params = cJSON_CreateObject();
	if (src.used) {
		cJSON_AddNumberToObject(params, "source_run", (double)o.run_id);
		cJSON_AddStringToObject(params, "arm", src.arm);
	}
	cJSON_AddItemToObject(params, "settings", settings_obj(ch, o.n_want));
	cJSON_AddBoolToObject(params, "persist", o.persist);
	if (o.confirm_within_ns) {
		deadline = now_unix() + (double)o.confirm_within_ns / 1e9;
		cJSON_AddNumberToObject(params, "confirm_within_s", (double)o.confirm_within_ns / 1e9);
		cJSON_AddNumberToObject(params, "confirm_deadline_unix", deadline);
	}
	params_text = cJSON_PrintUnformatted(params);
	if ((r = advice_change_begin(&ctx->store, &ctx->host, "apply", params_text, &run_id,
				     &snap_id, &ctx->err)) < 0)
		goto out;

	/*
	 * Every row stays pending until the whole apply has landed: a failure
	 * or a kill half-way undoes all of it, not just the last write.
	 */
	journal_begin(&j, &ctx->store, &ctx->host, run_id, &ctx->err);
	rows_open = true;
	if ((r = advice_change_write(&j, ch, o.n_want, plan, &n_files, &ctx->err)) < 0)
		goto undo;

	if (o.confirm_within_ns) {
		int moved = 0;

		if ((r = store_run_end(&ctx->store, run_id, "awaiting-confirm", NULL, &ctx->err)) < 0)
			goto undo;
		if ((r = spawn_watchdog(ctx, run_id, deadline, j.session, &wd_pid, &ctx->err)) < 0)
			goto undo;
		r = journal_transfer(&j, wd_pid, host_pid_start_ticks(wd_pid), &moved, &ctx->err);
		if (r < 0) {
			kill(wd_pid, SIGTERM);
			goto undo;
		}
	} else {
		if ((r = journal_commit_session(&ctx->store, j.session, NULL, &ctx->err)) < 0)
			goto undo;
		store_run_end(&ctx->store, run_id, "ok", NULL, NULL);
	}
	rows_open = false;
	if (settings_snapshot(&ctx->host, &after, NULL) == 0)
		store_snapshot_save(&ctx->store, run_id, "after apply", &after, &after_id, NULL);

	if (doc) {
		cJSON_AddNumberToObject(doc, "run_id", (double)run_id);
		cJSON_AddNumberToObject(doc, "snapshot_id", (double)snap_id);
		if (o.confirm_within_ns) {
			cJSON *c = cJSON_AddObjectToObject(doc, "confirm");
			char iso[40];

			cJSON_AddNumberToObject(c, "within_s", (double)o.confirm_within_ns / 1e9);
			cJSON_AddStringToObject(c, "deadline", advice_iso_time(deadline, iso, sizeof(iso)));
			cJSON_AddNumberToObject(c, "watchdog_pid", wd_pid);
		} else {
			cJSON_AddNullToObject(doc, "confirm");
		}
		r = cmd_print_json(ctx, doc);
		doc = NULL;
	} else {
		char iso[40];

		fprintf(ctx->out, "Applied as run %lld; snapshot %lld holds the previous settings"
			" (swaptune rollback takes them back).\n", (long long)run_id, (long long)snap_id);
		if (n_files)
			fprintf(ctx->out, "Wrote %d boot-time file%s.\n", n_files, n_files == 1 ? "" : "s");
		if (o.confirm_within_ns)
			fprintf(ctx->out, "Confirm with `swaptune apply --confirm` before %s (%.0f s), or the"
				" previous settings come back by themselves (watchdog pid %d).\n",
				advice_iso_time(deadline, iso, sizeof(iso)),
				(double)o.confirm_within_ns / 1e9, (int)wd_pid);
		r = 0;
	}
	goto out;

undo:
	if (rows_open) {
		struct st_err e2 = { 0 };
		int restored = 0;

		if (journal_restore(&j, &restored, &e2) < 0)
			fprintf(stderr, "swaptune: warning: could not undo everything: %s\n", e2.msg);
		store_run_end(&ctx->store, run_id, "failed", NULL, NULL);
		err_prefix(&ctx->err, "apply failed, previous settings restored");
	}
out:
	probe_unlock(lockfd);
	cJSON_Delete(doc);
	cJSON_Delete(params);
	cJSON_free(params_text);
	free(plan);
	return r;
}

static const struct cmd_option apply_options[] = {
	{ "--run ID", "apply the recommendation of probe run ID (see swaptune recommend)" },
	{ "--baseline ARM", "with --run: judge against ARM instead of the detected baseline" },
	{ "--min-effect PCT", "with --run: smallest improvement worth a change (default 2)" },
	{ "--from FILE", "apply the setting=value lines of FILE (swaptune-boot.service uses /etc/swaptune/boot.conf)" },
	{ "-y, --yes", "do not ask (needed without a terminal)" },
	{ "--dry-run", "print every file and value that would be written; change nothing" },
	{ "--persist", "also write boot-time configuration (sysctl.d, /etc/swaptune/boot.conf, modprobe.d)" },
	{ "--confirm-within DURATION", "undo by itself after DURATION (e.g. 30s, 5m) unless confirmed" },
	{ "--confirm", "confirm the pending --confirm-within apply" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_apply_entry = {
	.name = "apply",
	.summary = "apply a recommendation or settings, with a snapshot to roll back to",
	.usage = "[--run ID | --from FILE | SETTING=VALUE...] [--yes] [--dry-run] [--persist] "
		 "[--confirm-within DURATION] | --confirm",
	.options = apply_options,
	.exec = apply_exec,
};
