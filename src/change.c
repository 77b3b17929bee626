/*
 * change.c - the change workflow behind apply, rollback and verify: diff,
 * guard, run and snapshot, journaled writes, the --confirm-within watchdog,
 * confirm, revert and rollback. See change.h.
 *
 * The confirm-within switch is a watchdog process: apply re-executes the
 * binary detached (double fork, setsid, fds closed) as `swaptune apply
 * --watchdog ...` and hands the session's still-pending journal rows to it
 * (journal_transfer), so crash repair leaves them alone while it lives and
 * undoes them if it is killed. At the deadline it restores the session
 * inside one IMMEDIATE transaction; confirm commits the rows inside one
 * too, so exactly one of them wins.
 */
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <strings.h>
#include <syslog.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/change.h"
#include "swaptune/lock.h"
#include "swaptune/utc.h"

static const char *sysroot_key(const struct host *h)
{
	return h->live ? "/" : h->root;
}

int change_diff(const struct host *h, const struct advice_setting *want, int n,
		struct change_setting *out, struct st_err *e)
{
	for (int i = 0; i < n; i++) {
		const struct setting_def *d = settings_find(want[i].name);
		struct change_setting *c = &out[i];
		int r;

		memset(c, 0, sizeof(*c));
		if (!d)
			return err_set(e, -EINVAL, "unknown setting \"%s\" (known: page-cluster, "
				       "vma_ra_enabled, zswap.enabled, zswap.compressor, "
				       "zswap.max_pool_percent, zswap.accept_threshold_percent, "
				       "zswap.shrinker_enabled)", want[i].name);
		snprintf(c->name, sizeof(c->name), "%s", d->name);
		snprintf(c->path, sizeof(c->path), "%s/%s", h->root, d->path);
		snprintf(c->sysctl, sizeof(c->sysctl), "%s", d->sysctl ? d->sysctl : "");
		r = settings_normalize(h, d, want[i].value, c->new_value, sizeof(c->new_value), e);
		if (r < 0)
			return r;
		r = settings_read(h, d, c->old_value, sizeof(c->old_value), e);
		if (r == -ENOENT)
			return err_set_exit(e, -ENOENT, ST_EXIT_DENIED,
					    "cannot set %s: this kernel has no %s", d->name, c->path);
		if (r < 0)
			return r;
		c->changed = !settings_equal(d, c->old_value, c->new_value);
		/* several mentions of one setting: the last wins, earlier ones are no-ops */
		for (int k = 0; k < i; k++)
			if (!strcmp(out[k].name, c->name))
				out[k].changed = false;
	}
	return 0;
}

cJSON *change_setting_json(const struct change_setting *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "setting", c->name);
	cJSON_AddStringToObject(o, "file", c->path);
	cJSON_AddStringToObject(o, "old", c->old_value);
	cJSON_AddStringToObject(o, "new", c->new_value);
	return o;
}

void change_files_json(const struct host *h, const struct persist_plan *p, cJSON *arr)
{
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
		cJSON_AddItemToArray(arr, x);
	}
}

cJSON *change_snapshot_json(const struct settings_snapshot *s)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < s->n; i++) {
		if (s->items[i].present)
			cJSON_AddStringToObject(o, s->items[i].name, s->items[i].value);
		else
			cJSON_AddNullToObject(o, s->items[i].name);
	}
	return o;
}

static void (*change_logger)(int priority, const char *line);

void change_set_logger(void (*fn)(int priority, const char *line))
{
	change_logger = fn;
}

static void change_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void change_log(int priority, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (change_logger) {
		change_logger(priority, line);
		return;
	}
	openlog("swaptune", LOG_PID, LOG_DAEMON);
	syslog(priority, "%s", line);
	closelog();
}

/* A revert's params: why, and the apply run it undoes. */
static cJSON *revert_params(const char *reason, int64_t apply_run)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "reason", reason);
	cJSON_AddNumberToObject(p, "apply_run", (double)apply_run);
	return p;
}

/*
 * A change run names its host (hostname, kernel: a report for a ticket says
 * where) and who asked for it: the real uid's login and sudo's SUDO_USER, as
 * params.who. Best effort: an unreadable name is left out, never guessed.
 */
static int change_run_begin(struct store *st, const struct host *h, const char *kind,
			    cJSON *p, int64_t *run_id, struct st_err *e)
{
	char mid[128], name[128], kernel[128], *text = NULL;
	cJSON *who;
	const struct passwd *pw = getpwuid(getuid());
	const char *sudo = getenv("SUDO_USER");
	int r;

	host_read_machine_id(h, mid, sizeof(mid));
	if (host_read_line(h, HOST_HOSTNAME, name, sizeof(name), NULL) >= 0 &&
	    host_kernel_release(h, kernel, sizeof(kernel), NULL) >= 0)
		store_register_host(st, mid, name, kernel, NULL);
	if (cJSON_IsObject(p) && (who = cJSON_AddObjectToObject(p, "who"))) {
		cJSON_AddNumberToObject(who, "uid", (double)getuid());
		if (pw && pw->pw_name)
			cJSON_AddStringToObject(who, "user", pw->pw_name);
		if (sudo && *sudo)
			cJSON_AddStringToObject(who, "sudo_user", sudo);
		text = cJSON_PrintUnformatted(p);
	}
	cJSON_Delete(p);
	if (!text)
		return err_set(e, -ENOMEM, "out of memory");
	r = store_run_begin(st, kind, text, run_id, e);
	free(text);
	return r;
}

int change_begin(struct store *st, const struct host *h, const char *kind, cJSON *params,
		 struct change_record *rec, struct st_err *e)
{
	struct settings_snapshot before;
	char reason[32];
	int r;

	if ((r = change_run_begin(st, h, kind, params, &rec->run_id, e)) < 0)
		return r;
	snprintf(reason, sizeof(reason), "before %s", kind);
	if ((r = settings_snapshot(h, &before, e)) < 0 ||
	    (r = store_snapshot_save(st, rec->run_id, reason, &before, &rec->snap_id, e)) < 0)
		store_run_end(st, rec->run_id, "failed", NULL, NULL);
	return r;
}

int change_write(struct journal *j, const struct change_setting *ch, int n,
		 const struct persist_plan *plan, int *n_files, struct st_err *e)
{
	int r;

	for (int i = 0; i < n; i++)
		if (ch[i].changed &&
		    (r = journal_set(j, ch[i].name, ch[i].new_value, true, NULL, e)) < 0)
			return r;
	return plan ? persist_write(j->h, journal_hooks(j), plan, n_files, e) : 0;
}

int change_ask(const char *question, bool yes, struct st_err *e)
{
	char line[32];

	if (yes)
		return 0;
	if (!isatty(STDIN_FILENO))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "not asking without a terminal: add --yes to %s", question);
	fprintf(stderr, "%s? [y/N] ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin) ||
	    (strcasecmp(line, "y\n") && strcasecmp(line, "yes\n")))
		return err_set_exit(e, -ECANCELED, ST_EXIT_RUNTIME, "nothing changed: not confirmed");
	return 0;
}

int change_need_root(const struct host *h, const char *what, struct st_err *e)
{
	if (h->live && geteuid() != 0)
		return err_set_exit(e, -EPERM, ST_EXIT_DENIED,
				    "%s changes kernel settings and needs root (try sudo swaptune %s)",
				    what, what);
	return 0;
}

/* Where repair's lines go: stderr unless a caller (the TUI) takes them. */
static journal_report_fn repair_report;
static void *repair_report_arg;

void change_repair_report(journal_report_fn report, void *arg)
{
	repair_report = report;
	repair_report_arg = arg;
}

struct repair_said {
	int lines;
};

static void repair_line(const char *line, void *arg)
{
	struct repair_said *said = arg;

	said->lines++;
	if (repair_report)
		repair_report(line, repair_report_arg);
	else
		fprintf(stderr, "swaptune: %s\n", line);
}

int change_repair(struct store *st, const struct host *h)
{
	struct repair_said said = { 0 };
	struct st_err e = { 0 };

	if (journal_repair(st, h, repair_line, &said, &e) < 0) {
		/* a change could not be undone: say so, but let the command run */
		char line[ST_ERR_MSG_MAX + 32];

		snprintf(line, sizeof(line), "warning: repair incomplete: %s", e.msg);
		repair_line(line, &said);
	}
	/* an apply whose watchdog's rows are all undone now is reverted */
	change_settle_confirms(st, &e);
	return said.lines;
}

int change_lock(struct store *st, const struct host *h, const struct change_guard *g,
		int *lockfd, struct st_err *e)
{
	int r;

	*lockfd = -1;
	if ((r = change_need_root(h, g->what, e)) < 0)
		return r;
	/* a probe's arms come and go: its settings are no "before" to snapshot */
	if ((r = host_change_lock(h, g->db_path, g->what, lockfd, e)) < 0)
		return r;
	/* what a swaptune that did not finish left is put back first, under the lock */
	change_repair(st, h);
	if (g->refuse_pending) {
		struct change_pending pend;

		r = change_pending_confirm(st, h, &pend, e);
		if (r > 0)
			r = err_set_exit(e, -EBUSY, ST_EXIT_DENIED,
					 "apply run %lld awaits confirmation: run swaptune apply --confirm "
					 "(or swaptune rollback) first", (long long)pend.run_id);
		if (r < 0) {
			host_change_unlock(*lockfd);
			*lockfd = -1;
			return r;
		}
	}
	return 0;
}

void change_unlock(int lockfd)
{
	host_change_unlock(lockfd);
}

/* ---- confirm-within ---- */

int change_pending_confirm(struct store *st, const struct host *h,
			   struct change_pending *p, struct st_err *e)
{
	struct store_awaiting a;
	int r = store_runs_awaiting_confirm(st, sysroot_key(h), &a, e);

	memset(p, 0, sizeof(*p));
	if (r <= 0)
		return r;
	p->run_id = a.run_id;
	snprintf(p->session, sizeof(p->session), "%s", a.session);
	p->pid = a.pid;
	p->pid_start = a.pid_start;
	p->n_rows = a.n_rows;
	p->deadline = a.deadline;
	return 1;
}

int change_settle_confirms(struct store *st, struct st_err *e)
{
	return store_runs_settle_confirms(st, e);
}

/* A journal over someone else's session (a watchdog's, a pending apply's). */
static void journal_of_session(struct journal *j, struct store *st, const struct host *h,
			       const char *session)
{
	memset(j, 0, sizeof(*j));
	j->st = st;
	j->h = h;
	j->pid = getpid();
	snprintf(j->session, sizeof(j->session), "%s", session);
}

int change_watchdog(struct store *st, const struct host *h, int64_t run_id,
		    double deadline, const char *session, struct st_err *e)
{
	struct journal j;
	struct settings_snapshot after;
	struct timespec ts;
	int restored = 0, r, n = 0;
	int64_t rb_run = 0;

	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;

	journal_of_session(&j, st, h, session);
	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	if (store_changes_count_pending(st, session, &n, e) < 0) {
		store_tx_rollback(st);
		return -EIO;
	}
	if (n == 0) {	/* confirmed, or repaired already */
		store_tx_commit(st, NULL);
		return 0;
	}
	r = journal_restore(&j, &restored, e);
	store_tx_commit(st, NULL);

	if (change_run_begin(st, h, "rollback", revert_params("confirm-within expired", run_id), &rb_run,
			     NULL) == 0) {
		if (settings_snapshot(h, &after, NULL) == 0)
			store_snapshot_save(st, rb_run, "after confirm-within expired", &after,
					    NULL, NULL);
		store_run_end(st, rb_run, r < 0 ? "failed" : "ok", NULL, NULL);
	}
	store_run_end(st, run_id, "reverted", NULL, NULL);
	if (r < 0)
		change_log(LOG_ERR, "apply run %lld not confirmed in time: restoring its previous settings "
			   "failed (%d restored): see swaptune history", (long long)run_id, restored);
	else
		change_log(LOG_WARNING, "apply run %lld not confirmed in time: its previous settings are back "
			   "(%d restored, rollback run %lld)", (long long)run_id, restored, (long long)rb_run);
	return r < 0 ? r : 0;
}

/*
 * Start `swaptune --db DB --sysroot ROOT apply --watchdog RUN,DEADLINE,SESSION`
 * for apply a (its db_path, run_id and deadline) detached from us, and put
 * its pid in a->watchdog_pid once it runs.
 */
static int spawn_watchdog(const struct host *h, struct change_apply *a, const char *session,
			  struct st_err *e)
{
	char exe[PATH_MAX], arg[160], root[PATH_MAX], db[PATH_MAX];
	int pfd[2], status;
	pid_t child, got = -1;
	ssize_t n;

	if (host_self_exe(exe, sizeof(exe)) < 0)
		return err_set(e, -ENOENT, "cannot find the swaptune binary to start the watchdog");
	snprintf(arg, sizeof(arg), "%lld,%.3f,%s", (long long)a->run_id, a->deadline, session);
	snprintf(root, sizeof(root), "%s", sysroot_key(h));
	snprintf(db, sizeof(db), "%s", a->db_path);
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
			char *args[] = { exe, "--db", db, "--sysroot", root, "apply",
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
	a->watchdog_pid = got;
	return 0;
}

/* Nothing pending: say whether the last confirm-within apply already went back. */
/*
 * The watchdog a row names, to stop with SIGTERM: only a live process with
 * the recorded start time. Start time 0 (unknown, or a crafted row) could
 * be any process that now has that pid, so it is never signalled.
 */
static bool pid_is_watchdog(int pid, uint64_t pid_start)
{
	return pid > 1 && pid != getpid() && pid_start != 0 && host_pid_alive(pid, pid_start);
}

static int nothing_to_confirm(struct store *st, struct st_err *e)
{
	int64_t last = 0;
	char status[32] = "";

	if (store_runs_last_confirm_apply(st, &last, status, sizeof(status), e) < 0)
		return -EIO;
	if (last && !strcmp(status, "reverted"))
		return err_set_exit(e, -ETIME, ST_EXIT_RUNTIME,
				    "nothing to confirm: apply run %lld was not confirmed in time and its"
				    " previous settings are back (see swaptune history)", (long long)last);
	return err_set_exit(e, -ENOENT, ST_EXIT_RUNTIME,
			    "nothing to confirm: no apply --confirm-within is waiting");
}

int change_confirm(struct store *st, const struct host *h, struct change_confirmed *c,
		   struct st_err *e)
{
	struct change_pending p;
	int n = 0, r;

	memset(c, 0, sizeof(*c));
	r = change_pending_confirm(st, h, &p, e);
	if (r < 0)
		return r;
	if (r == 0)
		return nothing_to_confirm(st, e);
	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	r = journal_commit_session(st, p.session, &n, e);
	if (r == 0 && n > 0)	/* in the same transaction: confirmed is "ok" */
		r = store_run_end(st, p.run_id, "ok", NULL, e);
	if (r < 0 || store_tx_commit(st, e) < 0) {
		store_tx_rollback(st);
		return r < 0 ? r : -EIO;
	}
	if (n == 0)
		return err_set_exit(e, -ETIME, ST_EXIT_RUNTIME,
				    "too late: the watchdog of apply run %lld restored the previous settings",
				    (long long)p.run_id);
	change_log(LOG_NOTICE, "apply run %lld confirmed: its settings stay (%d change%s)", (long long)p.run_id,
		   n, n == 1 ? "" : "s");
	c->run_id = p.run_id;
	c->watchdog_pid = p.pid;
	if (pid_is_watchdog(p.pid, p.pid_start) && kill(p.pid, SIGTERM) == 0)
		c->watchdog_stopped = true;
	if (store_changes_committed(st, p.session, &c->rows, &c->n, e) < 0)
		return -EIO;
	return 0;
}

int change_revert_pending(struct store *st, const struct host *h,
			  const struct change_pending *p, int64_t *rb_run, int *restored,
			  struct st_err *e)
{
	struct journal j;
	int r;

	*rb_run = 0;
	*restored = 0;
	if ((r = change_run_begin(st, h, "rollback", revert_params("rollback of unconfirmed apply", p->run_id),
				  rb_run, e)) < 0)
		return r;
	journal_of_session(&j, st, h, p->session);
	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	r = journal_restore(&j, restored, e);
	store_tx_commit(st, NULL);
	if (pid_is_watchdog(p->pid, p->pid_start))
		kill(p->pid, SIGTERM);
	store_run_end(st, p->run_id, "reverted", NULL, NULL);
	store_run_end(st, *rb_run, r < 0 ? "failed" : "ok", NULL, NULL);
	change_log(r < 0 ? LOG_ERR : LOG_NOTICE, "apply run %lld reverted before its confirmation: %s "
		   "(%d restored, rollback run %lld)", (long long)p->run_id,
		   r < 0 ? "restoring failed" : "its previous settings are back", *restored, (long long)*rb_run);
	return r;
}

/* ---- apply ---- */

static cJSON *apply_params(const struct change_apply *a)
{
	cJSON *params = cJSON_CreateObject(), *set;

	if (a->source_run) {
		cJSON_AddNumberToObject(params, "source_run", (double)a->source_run);
		cJSON_AddStringToObject(params, "arm", a->arm ? a->arm : "");
	}
	set = cJSON_AddObjectToObject(params, "settings");
	for (int i = 0; i < a->n; i++)
		cJSON_AddStringToObject(set, a->ch[i].name, a->ch[i].new_value);
	cJSON_AddBoolToObject(params, "persist", a->plan != NULL);
	if (a->confirm_within_ns) {
		cJSON_AddNumberToObject(params, "confirm_within_s", (double)a->confirm_within_ns / 1e9);
		cJSON_AddNumberToObject(params, "confirm_deadline_unix", a->deadline);
	}
	return params;
}

/*
 * The session's rows become permanent and the run "ok" in one transaction:
 * an apply the journal keeps is always one rollback can find, even when
 * the store's disk fills between the two (then neither happens and the
 * caller undoes the change).
 */
static int commit_run(struct store *st, const char *session, int64_t run_id,
		      struct st_err *e)
{
	int r;

	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	if ((r = journal_commit_session(st, session, NULL, e)) < 0 ||
	    (r = store_run_end(st, run_id, "ok", NULL, e)) < 0 ||
	    (r = store_tx_commit(st, e)) < 0) {
		store_tx_rollback(st);
		return r;
	}
	return 0;
}

/* Every row written: make them permanent, or hand them to the watchdog. */
static int apply_settle(struct store *st, const struct host *h, struct journal *j,
			struct change_apply *a, struct st_err *e)
{
	int moved = 0, r;

	if (!a->confirm_within_ns)
		return commit_run(st, j->session, a->run_id, e);
	if ((r = store_run_end(st, a->run_id, "awaiting-confirm", NULL, e)) < 0)
		return r;
	if ((r = spawn_watchdog(h, a, j->session, e)) < 0)
		return r;
	r = journal_transfer(j, a->watchdog_pid, host_pid_start_ticks(a->watchdog_pid), &moved, e);
	if (r < 0)
		kill(a->watchdog_pid, SIGTERM);
	else
		change_log(LOG_NOTICE, "apply run %lld awaits confirmation (swaptune apply --confirm) within "
			   "%.0f s, or its previous settings come back by themselves (watchdog pid %d)",
			   (long long)a->run_id, (double)a->confirm_within_ns / 1e9, (int)a->watchdog_pid);
	return r;
}

int change_apply(struct store *st, const struct host *h, struct change_apply *a,
		 struct st_err *e)
{
	struct change_record rec = { 0 };
	struct settings_snapshot after;
	struct journal j;
	struct st_err e2 = { 0 };
	int r;

	a->run_id = a->snap_id = a->after_id = 0;
	a->n_files = 0;
	a->watchdog_pid = 0;
	a->undo_warning[0] = '\0';
	a->deadline = a->confirm_within_ns ? utc_now() + (double)a->confirm_within_ns / 1e9 : 0;
	/* the record first: the run, then the settings as they are */
	r = change_begin(st, h, "apply", apply_params(a), &rec, e);
	a->run_id = rec.run_id;
	a->snap_id = rec.snap_id;
	if (r < 0)
		return r;

	/*
	 * Every row stays pending until the whole apply has landed: a failure
	 * or a kill half-way undoes all of it, not just the last write.
	 */
	journal_begin(&j, st, h, a->run_id, e);
	if ((r = change_write(&j, a->ch, a->n, a->plan, &a->n_files, e)) < 0 ||
	    (r = apply_settle(st, h, &j, a, e)) < 0) {
		if (journal_restore(&j, NULL, &e2) < 0) {
			snprintf(a->undo_warning, sizeof(a->undo_warning), "%s", e2.msg);
			store_run_end(st, a->run_id, "failed", NULL, NULL);
			return err_prefix(e, "apply failed, and not all of it could be undone"
					  " (`swaptune repair` tries again)");
		}
		store_run_end(st, a->run_id, "failed", NULL, NULL);
		return err_prefix(e, "apply failed, previous settings restored");
	}
	if (settings_snapshot(h, &after, NULL) == 0)
		store_snapshot_save(st, a->run_id, "after apply", &after, &a->after_id, NULL);
	return 0;
}

/* ---- rollback ---- */

static int find_target(struct store *st, int64_t to, struct store_snapshot_info *t,
		       struct st_err *e)
{
	int r = to ? store_snapshot_info(st, to, t, e) : store_snapshot_before_apply_in_effect(st, t, e);

	if (r < 0)
		return r;
	if (r == 0 && to)
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "no snapshot %lld (see swaptune history)", (long long)to);
	if (r == 0)
		return err_set_exit(e, -ENOENT, ST_EXIT_RUNTIME,
				    "nothing to roll back: no apply is in effect (see swaptune history;"
				    " --to ID picks any snapshot)");
	/* another host's history is never put on this one */
	if (t->imported)
		return err_set_exit(e, -EPERM, ST_EXIT_USAGE,
				    "snapshot %lld is history imported from host %s (machine %.8s\u2026):"
				    " swaptune never rolls back to another host's settings; nothing changed",
				    (long long)t->id, t->hostname[0] ? t->hostname : "?",
				    t->machine_id[0] ? t->machine_id : "?");
	if (t->machine_id[0] && st->machine_id[0] && strcmp(t->machine_id, st->machine_id))
		return err_set_exit(e, -EPERM, ST_EXIT_USAGE,
				    "snapshot %lld was taken on machine %.8s\u2026, not this one: swaptune never"
				    " rolls back to another machine's settings; nothing changed",
				    (long long)t->id, t->machine_id);
	return 0;
}

/*
 * What swaptune's files and directories must look like to match the
 * snapshot: text[i] is the content of file i (NULL = absent), keep[i]
 * whether the journal says nothing about it since (leave it alone).
 * Boot-time files are rebuilt from the journal: for each of swaptune's own
 * files, the oldest committed change made after the snapshot holds the
 * content it had then (none: the file did not exist). A snapshot whose
 * reason starts with "before" precedes its run's changes; any other ("after
 * apply", "after rollback") follows them.
 */
static int files_at(struct store *st, const struct host *h, struct change_rollback *rb,
		    char *text[PERSIST_FILES_MAX], bool keep[PERSIST_FILES_MAX], struct st_err *e)
{
	const struct store_snapshot_info *t = &rb->target;
	bool before = !strncmp(t->reason, "before", 6);
	struct store_change *rows;
	struct st_err e2 = {0};
	int n, r;

	for (int i = 0; i < PERSIST_FILES_MAX; i++) {
		keep[i] = true;
		text[i] = NULL;
	}
	rb->n_dirs = 0;
	/* an "after" snapshot already holds its own run's changes */
	r = store_changes_since_run(st, &(struct store_changes_since){
					    .sysroot = sysroot_key(h),
					    .min_run_id = before ? t->run_id : t->run_id + 1,
					    .kind1 = PERSIST_KIND_FILE, .kind2 = PERSIST_KIND_DIR },
				    &rows, &n, e);
	if (r < 0)
		return r;
	for (int k = 0; k < n; k++) {
		const struct store_change *c = &rows[k];
		int i;

		if (!strcmp(c->kind, PERSIST_KIND_DIR)) {
			bool seen = false;

			for (int d = 0; d < rb->n_dirs; d++)
				seen |= !strcmp(rb->dirs[d], c->name);
			if (!seen && rb->n_dirs < CHANGE_DIRS_MAX)
				snprintf(rb->dirs[rb->n_dirs++], PATH_MAX, "%s", c->name);
			continue;
		}
		i = persist_file_index(c->name);
		if (i < 0 || !keep[i])
			continue;	/* the oldest row tells the content before */
		keep[i] = false;
		/* recorded text goes back only when it is what swaptune itself writes */
		if (c->has_old && (r = persist_check_content(h, c->name, c->old_value, &e2)) < 0) {
			r = err_set_exit(e, -EBADMSG, ST_EXIT_USAGE,
					 "journal row %lld holds content for /%s that swaptune does not write"
					 " (%s): refused, nothing changed", (long long)c->id, c->name, e2.msg);
			break;
		}
		if (c->has_old)
			text[i] = strdup(c->old_value);
	}
	free(rows);
	if (r < 0) {
		for (int i = 0; i < PERSIST_FILES_MAX; i++) {
			free(text[i]);
			text[i] = NULL;
		}
		return r;
	}
	/* deepest first */
	for (int a = 0; a < rb->n_dirs; a++)
		for (int b = a + 1; b < rb->n_dirs; b++)
			if (strlen(rb->dirs[b]) > strlen(rb->dirs[a])) {
				char tmp[PATH_MAX];

				memcpy(tmp, rb->dirs[a], PATH_MAX);
				memcpy(rb->dirs[a], rb->dirs[b], PATH_MAX);
				memcpy(rb->dirs[b], tmp, PATH_MAX);
			}
	return 0;
}

/* The boot-time files and directories to put back. */
static int plan_files(struct store *st, const struct host *h, struct change_rollback *rb,
		      struct st_err *e)
{
	char *text[PERSIST_FILES_MAX] = { NULL }, cur[PERSIST_CONTENT_MAX];
	bool keep[PERSIST_FILES_MAX];
	const char *want_text[PERSIST_FILES_MAX];
	int r;

	if ((r = files_at(st, h, rb, text, keep, e)) < 0)
		goto out;
	rb->plan = calloc(1, sizeof(*rb->plan));
	if (!rb->plan) {
		r = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < PERSIST_FILES_MAX; i++) {
		want_text[i] = text[i];
		if (keep[i]) {
			/* not touched since: as it is now */
			int n = persist_read_file(h, persist_file_at(i), cur, sizeof(cur), NULL);

			want_text[i] = n >= 0 ? strdup(cur) : NULL;
			text[i] = (char *)want_text[i];
		}
	}
	if ((r = persist_plan_contents(h, want_text, rb->plan, e)) < 0)
		goto out;
	/* directories that no longer exist need nothing */
	for (int k = 0; k < rb->n_dirs; k++) {
		if (!host_exists(h, rb->dirs[k])) {
			memmove(rb->dirs[k], rb->dirs[k + 1], (size_t)(rb->n_dirs - k - 1) * PATH_MAX);
			rb->n_dirs--;
			k--;
		}
	}
	for (int i = 0; i < rb->plan->n_files; i++)
		rb->n_files += rb->plan->files[i].changed;
out:
	for (int i = 0; i < PERSIST_FILES_MAX; i++)
		free(text[i]);
	return r;
}

int change_rollback_plan(struct store *st, const struct host *h, int64_t to,
			 struct change_rollback *rb, struct st_err *e)
{
	struct settings_snapshot snap;
	struct advice_setting want[SETTINGS_MAX];
	int r;

	memset(rb, 0, sizeof(*rb));
	if ((r = find_target(st, to, &rb->target, e)) < 0)
		return r;
	if ((r = store_snapshot_load(st, rb->target.id, &snap, e)) < 0)
		return r;
	for (int i = 0; i < snap.n; i++) {
		if (!snap.items[i].present || !settings_find(snap.items[i].name))
			continue;
		snprintf(want[rb->n].name, sizeof(want[0].name), "%s", snap.items[i].name);
		snprintf(want[rb->n].value, sizeof(want[0].value), "%s", snap.items[i].value);
		rb->n++;
	}
	if ((r = change_diff(h, want, rb->n, rb->ch, e)) < 0)
		return err_prefix(e, "snapshot %lld cannot be restored", (long long)rb->target.id);
	for (int i = 0; i < rb->n; i++)
		rb->n_changed += rb->ch[i].changed;
	return plan_files(st, h, rb, e);
}

void change_rollback_free(struct change_rollback *rb)
{
	free(rb->plan);
	rb->plan = NULL;
}

bool change_rollback_needed(const struct change_rollback *rb)
{
	return rb->n_changed || rb->n_files || rb->n_dirs;
}

int change_rollback_run(struct store *st, const struct host *h,
			const struct change_rollback *rb, int64_t *run_id,
			int64_t *snap_before, struct st_err *e)
{
	struct change_record rec = { 0 };
	struct settings_snapshot after;
	struct journal j;
	cJSON *params = cJSON_CreateObject();
	int r;

	cJSON_AddNumberToObject(params, "to", (double)rb->target.id);
	cJSON_AddNumberToObject(params, "to_run", (double)rb->target.run_id);
	r = change_begin(st, h, "rollback", params, &rec, e);
	*run_id = rec.run_id;
	*snap_before = rec.snap_id;
	if (r < 0)
		return r;
	journal_begin(&j, st, h, *run_id, e);
	r = change_write(&j, rb->ch, rb->n, rb->plan, NULL, e);
	/*
	 * the directories the apply made go with the rollback, journaled before
	 * they go: a rollback cut short makes them again (its file is put back
	 * into them), one that committed leaves none behind
	 */
	for (int k = 0; r == 0 && k < rb->n_dirs; k++) {
		struct st_err e2 = { 0 };

		if ((r = journal_note_resource(&j, PERSIST_KIND_RMDIR, rb->dirs[k], NULL, e)) == 0)
			persist_undo_dir(h, rb->dirs[k], NULL, &e2);
	}
	if (r < 0 || (r = commit_run(st, j.session, *run_id, e)) < 0) {
		struct st_err e2 = { 0 };

		journal_restore(&j, NULL, &e2);
		store_run_end(st, *run_id, "failed", NULL, NULL);
		return err_prefix(e, "rollback failed, settings left as they were");
	}
	if (settings_snapshot(h, &after, NULL) == 0)
		store_snapshot_save(st, *run_id, "after rollback", &after, NULL, NULL);
	return 0;
}
