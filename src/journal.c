/*
 * journal.c - write-ahead journal of host changes, restore and crash repair.
 * The rows themselves are the store's (store_change_* in store-changes.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/journal.h"
#include "swaptune/settings.h"

#define MAX_UNDO 16

static struct {
	const char *kind;
	journal_undo_fn fn;
	bool lasting;		/* survives a reboot (a file), unlike live state */
} undo_handlers[MAX_UNDO];

static int register_undo(const char *kind, journal_undo_fn fn, bool lasting)
{
	for (int i = 0; i < MAX_UNDO; i++)
		if (!undo_handlers[i].kind || !strcmp(undo_handlers[i].kind, kind)) {
			undo_handlers[i].kind = kind;
			undo_handlers[i].fn = fn;
			undo_handlers[i].lasting = lasting;
			return 0;
		}
	return -ENOSPC;
}

int journal_register_undo(const char *kind, journal_undo_fn fn)
{
	return register_undo(kind, fn, false);
}

int journal_register_undo_lasting(const char *kind, journal_undo_fn fn)
{
	return register_undo(kind, fn, true);
}

static journal_undo_fn find_undo(const char *kind, bool *lasting)
{
	for (int i = 0; i < MAX_UNDO && undo_handlers[i].kind; i++)
		if (!strcmp(undo_handlers[i].kind, kind)) {
			if (lasting)
				*lasting = undo_handlers[i].lasting;
			return undo_handlers[i].fn;
		}
	return NULL;
}

static const char *sysroot_key(const struct host *h)
{
	return h->live ? "/" : h->root;
}

int journal_begin(struct journal *j, struct store *st, const struct host *h,
		  int64_t run_id, struct st_err *e)
{
	struct timespec ts;

	memset(j, 0, sizeof(*j));
	j->st = st;
	j->h = h;
	j->run_id = run_id;
	j->pid = getpid();
	j->pid_start = host_pid_start_ticks(j->pid);
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(j->session, sizeof(j->session), "%d-%lld.%09ld", (int)j->pid,
		 (long long)ts.tv_sec, ts.tv_nsec);
	host_read_machine_id(h, j->machine_id, sizeof(j->machine_id));
	host_read_boot_id(h, j->boot_id, sizeof(j->boot_id));
	return 0;
}

/* What one journal row records: a setting's old and new value, or a resource (old = its detail). */
struct row_what {
	const char *kind, *name;
	const char *old_value, *new_value;	/* NULL = none */
	bool temporary;
};

static int insert_row(struct journal *j, const struct row_what *w, int64_t *id, struct st_err *e)
{
	struct store_change *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return err_set(e, -ENOMEM, "out of memory");
	snprintf(c->session, sizeof(c->session), "%s", j->session);
	c->run_id = j->run_id;
	c->pid = (int)j->pid;
	c->pid_start = j->pid_start;
	snprintf(c->sysroot, sizeof(c->sysroot), "%s", sysroot_key(j->h));
	snprintf(c->machine_id, sizeof(c->machine_id), "%s", j->machine_id);
	snprintf(c->boot_id, sizeof(c->boot_id), "%s", j->boot_id);
	snprintf(c->kind, sizeof(c->kind), "%s", w->kind);
	snprintf(c->name, sizeof(c->name), "%s", w->name);
	c->has_old = w->old_value != NULL;
	if (w->old_value)
		snprintf(c->old_value, sizeof(c->old_value), "%s", w->old_value);
	c->has_new = w->new_value != NULL;
	if (w->new_value)
		snprintf(c->new_value, sizeof(c->new_value), "%s", w->new_value);
	c->temporary = w->temporary;
	r = store_change_add(j->st, c, id, e);
	free(c);
	return r;
}

static int set_state(struct store *st, int64_t id, const char *state,
		     const char *note, struct st_err *e)
{
	return store_change_finish(st, id, state, note, e);
}

int journal_set(struct journal *j, const char *name, const char *value,
		bool temporary, struct setting_value *old_out, struct st_err *e)
{
	const struct setting_def *d = settings_find(name);
	char norm[SETTING_VALUE_MAX], old[SETTING_VALUE_MAX];
	int64_t id;
	int r;

	if (!d)
		return err_set(e, -EINVAL, "unknown setting \"%s\" (see swaptune status for the list)", name);
	r = settings_normalize(j->h, d, value, norm, sizeof(norm), e);
	if (r < 0)
		return r;
	r = settings_read(j->h, d, old, sizeof(old), e);
	if (r < 0)
		return err_prefix(e, "cannot change %s", d->name);
	if (old_out) {
		*old_out = (struct setting_value){ .present = true };
		snprintf(old_out->name, sizeof(old_out->name), "%s", d->name);
		snprintf(old_out->value, sizeof(old_out->value), "%s", old);
	}
	if (settings_equal(d, old, norm))
		return 0;
	r = insert_row(j, &(struct row_what){ "setting", d->name, old, norm, temporary }, &id, e);
	if (r < 0)
		return err_prefix(e, "not changing %s: cannot journal it", d->name);
	r = settings_write_raw(j->h, d, norm, e);
	if (r < 0) {
		struct st_err e2 = {0};

		/* the write may have landed before read-back failed: put it back */
		settings_write_raw(j->h, d, old, &e2);
		set_state(j->st, id, "failed", e ? e->msg : NULL, NULL);
		return r;
	}
	if (!temporary)
		return set_state(j->st, id, "committed", NULL, e);
	return 0;
}

int journal_note_resource(struct journal *j, const char *kind, const char *ident,
			  const char *detail, struct st_err *e)
{
	int64_t id;

	return insert_row(j, &(struct row_what){ kind, ident, detail, NULL, true }, &id, e);
}

int journal_resource_done(struct journal *j, const char *kind, const char *ident,
			  struct st_err *e)
{
	return store_changes_resource_done(j->st, j->session, kind, ident, e);
}

/*
 * Mark a row whose change was undone. When the store cannot take the mark
 * (its disk is full) the host is restored all the same: the row stays
 * pending and the next command's repair finds the old value in place and
 * marks it then, so this is not an undo failure.
 */
static void mark_restored(struct store *st, int64_t id)
{
	set_state(st, id, "restored", NULL, NULL);
}

/*
 * Refuse a row: it names something swaptune could not have made, or a
 * value it could not have read. Marked "refused", a warning in *msg;
 * nothing on the host is touched.
 */
static int refuse(struct store *st, const struct store_change *p, const char *why,
		  char *msg, size_t len, struct st_err *e)
{
	int r;

	snprintf(msg, len, "warning: refused to undo %s %s: %s; journal row %lld marked refused",
		 p->kind, p->name, why, (long long)p->id);
	r = set_state(st, p->id, "refused", why, e);
	return r < 0 ? r : 0;
}

/* The temporary files a killed swaptune left beside a setting's kernel file (a captured tree). */
static void sweep_setting_tmp(const struct host *h, const struct setting_def *d)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(d->path, '/');

	if (h->live || !slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - d->path), d->path);
	host_tmp_sweep(h, dir, HOST_TMP_WRITE);
}

/* Undo a resource row through its kind's handler. Returns as undo_one(). */
static int undo_resource(struct store *st, const struct host *h, const struct store_change *p,
			 char *msg, size_t len, struct st_err *e)
{
	journal_undo_fn fn = find_undo(p->kind, NULL);
	int r;

	if (!fn) {
		snprintf(msg, len, "cannot undo %s %s: no handler in this build", p->kind, p->name);
		return err_set(e, -ENOSYS, "%s", msg);
	}
	r = fn(h, p->name, p->has_old ? p->old_value : NULL, e);
	if (r == JOURNAL_UNDO_REFUSED)
		return refuse(st, p, e ? e->msg : "not swaptune's", msg, len, e);
	if (r < 0) {
		snprintf(msg, len, "failed to remove %s %s: %s", p->kind, p->name, e ? e->msg : "");
		return r;
	}
	snprintf(msg, len, "removed %s %s", p->kind, p->name);
	mark_restored(st, p->id);
	return 1;
}

/*
 * Undo one pending change; *msg says what happened. Returns 1 when something
 * was written or removed, 0 when nothing needed undoing, or a negative error.
 * A setting's old value is written back only when the registry's parser
 * and range take it, as they take user input: the store is not trusted.
 */
static int undo_one(struct store *st, const struct host *h, const struct store_change *p,
		    char *msg, size_t len, struct st_err *e)
{
	char cur[SETTING_VALUE_MAX], old[SETTING_VALUE_MAX], why[ST_ERR_MSG_MAX];
	const struct setting_def *d;
	struct st_err e1 = {0};
	int r;

	if (strcmp(p->kind, "setting"))
		return undo_resource(st, h, p, msg, len, e);
	d = settings_find(p->name);
	if (!d)
		return refuse(st, p, "not a setting swaptune knows", msg, len, e);
	if (!p->has_old)
		return refuse(st, p, "no old value recorded", msg, len, e);
	if (settings_normalize(h, d, p->old_value, old, sizeof(old), &e1) < 0) {
		snprintf(why, sizeof(why), "the recorded old value is not valid (%s)", e1.msg);
		return refuse(st, p, why, msg, len, e);
	}
	sweep_setting_tmp(h, d);
	r = settings_read(h, d, cur, sizeof(cur), e);
	if (r < 0) {
		snprintf(msg, len, "cannot read %s to restore it: %s", p->name, e ? e->msg : "");
		return r;
	}
	if (settings_equal(d, cur, old)) {
		snprintf(msg, len, "%s is %s as before", p->name, cur);
		r = set_state(st, p->id, "restored", NULL, e);
		return r < 0 ? r : 0;
	}
	if (!p->has_new || !settings_equal(d, cur, p->new_value)) {
		/* someone else changed it since: theirs wins */
		snprintf(msg, len, "left %s at %s: changed by someone else since swaptune set %s (was %s)",
			 p->name, cur, p->has_new ? p->new_value : "?", old);
		r = set_state(st, p->id, "superseded", msg, e);
		return r < 0 ? r : 0;
	}
	r = settings_write_raw(h, d, old, e);
	if (r < 0) {
		snprintf(msg, len, "failed to restore %s to %s: %s", p->name, old, e ? e->msg : "");
		return r;
	}
	snprintf(msg, len, "restored %s %s -> %s", p->name, p->new_value, old);
	mark_restored(st, p->id);
	return 1;
}

int journal_restore(struct journal *j, int *restored, struct st_err *e)
{
	struct store_change *v = NULL;
	int n, r, first = 0;

	if (restored)
		*restored = 0;
	r = store_changes_pending(j->st, j->session, NULL, &v, &n, e);
	if (r < 0)
		return r;
	for (int i = 0; i < n; i++) {
		struct st_err e1 = {0};
		char msg[512];

		r = undo_one(j->st, j->h, &v[i], msg, sizeof(msg), &e1);
		if (r < 0 && !first) {
			first = r;
			err_set(e, r, "%s", e1.msg);
		} else if (r > 0 && restored) {
			(*restored)++;
		}
	}
	free(v);
	return first;
}

/* Live state made in another boot than this one: the reboot undid it. */
static bool of_earlier_boot(const struct store_change *p, const char *boot_id)
{
	bool lasting = false;

	if (!p->boot_id[0] || !boot_id[0] || !strcmp(p->boot_id, boot_id))
		return false;
	if (strcmp(p->kind, "setting"))
		find_undo(p->kind, &lasting);
	return !lasting;
}

static void report_foreign(struct store *st, const struct store_pending_count *c,
			   journal_report_fn report, void *arg)
{
	char line[PATH_MAX + 200];

	if (!report)
		return;
	if (c->others) {
		snprintf(line, sizeof(line),
			 "store %s holds %lld pending change%s of machine %.8s\u2026; not undone here",
			 st->path, (long long)c->others, c->others == 1 ? "" : "s", c->other_mid);
		report(line, arg);
	}
	if (c->unnamed) {
		snprintf(line, sizeof(line),
			 "store %s holds %lld pending change%s that name no machine; not undone here",
			 st->path, (long long)c->unnamed, c->unnamed == 1 ? "" : "s");
		report(line, arg);
	}
}

/* One repair pass: the store and host it repairs, this machine and boot, where it reports. */
struct repair {
	struct store *st;
	const struct host *h;
	const char *mid, *boot_id;
	journal_report_fn report;
	void *arg;
};

/* Act on one pending row of this machine; returns as undo_one(). */
static int repair_one(const struct repair *rp, const struct store_change *p, struct st_err *e)
{
	struct store *st = rp->st;
	const char *boot_id = rp->boot_id;
	journal_report_fn report = rp->report;
	void *arg = rp->arg;
	char msg[512], line[700];
	int r;

	if (of_earlier_boot(p, boot_id)) {
		snprintf(msg, sizeof(msg), "%s %s was made in an earlier boot (%.8s): the reboot undid it",
			 p->kind, p->name, p->boot_id);
		r = set_state(st, p->id, "rebooted", msg, e);
		if (report)
			report(msg, arg);
		return r < 0 ? r : 0;
	}
	/* a pid of another boot names some other process now */
	if ((!p->boot_id[0] || !strcmp(p->boot_id, boot_id)) && host_pid_alive(p->pid, p->pid_start))
		return 0;
	r = undo_one(st, rp->h, p, msg, sizeof(msg), e);
	snprintf(line, sizeof(line), "%s (left by swaptune pid %d, which did not finish)", msg, p->pid);
	if (report)
		report(line, arg);
	return r;
}

static bool pid_alive(int pid)
{
	return host_pid_alive((pid_t)pid, 0);
}

/*
 * Repair reads the journal a page at a time, newest first, and looks at no
 * more than JOURNAL_REPAIR_BUDGET rows per command: a store holding
 * hundreds of thousands of pending rows (a crafted or damaged one: a run
 * leaves a handful) costs every command a bounded time and memory; the
 * next command goes on where this one stopped, and says how many are left.
 */
#define REPAIR_PAGE 128

static int repair_pages(const struct repair *rp, int *examined, struct st_err *e)
{
	int64_t before = INT64_MAX;
	int done = 0, first = 0, r;

	*examined = 0;
	while (*examined < JOURNAL_REPAIR_BUDGET) {
		struct store_change *v = NULL;
		int n, want = JOURNAL_REPAIR_BUDGET - *examined;

		r = store_changes_pending_page(rp->st, &(struct store_pending_page){
						       .sysroot = sysroot_key(rp->h), .machine_id = rp->mid,
						       .before_id = before,
						       .limit = want < REPAIR_PAGE ? want : REPAIR_PAGE },
					       &v, &n, e);
		if (r < 0)
			return r;
		for (int i = 0; i < n; i++) {
			struct st_err e1 = {0};

			r = repair_one(rp, &v[i], &e1);
			if (r < 0 && !first) {
				first = r;
				err_set(e, r, "%s", e1.msg);
			} else if (r > 0) {
				done++;
			}
		}
		*examined += n;
		if (n)
			before = v[n - 1].id;
		free(v);
		if (n < REPAIR_PAGE && n < want)
			break;
	}
	return first ? first : done;
}

int journal_orphan_runs(struct store *st, const struct host *h, int64_t *ids, int max, int *n,
			struct st_err *e)
{
	char mid[64], boot_id[64];

	host_read_machine_id(h, mid, sizeof(mid));
	host_read_boot_id(h, boot_id, sizeof(boot_id));
	return store_runs_orphaned(st, &(struct store_orphan_test){ .machine_id = mid,
								    .boot_id = boot_id,
								    .alive = pid_alive },
				   ids, max, n, e);
}

int journal_repair(struct store *st, const struct host *h,
		   journal_report_fn report, void *arg, struct st_err *e)
{
	char mid[64], boot_id[64], line[PATH_MAX + 200];
	struct store_pending_count c;
	int r, examined = 0;

	host_read_machine_id(h, mid, sizeof(mid));
	host_read_boot_id(h, boot_id, sizeof(boot_id));
	/* runs left "running" by a process that is gone end as interrupted */
	{
		struct st_err e1 = {0};
		int ended = 0;

		if (store_runs_end_orphans(st, &(struct store_orphan_test){ .machine_id = mid,
									    .boot_id = boot_id,
									    .alive = pid_alive },
					   &ended, &e1) < 0 &&
		    report) {
			snprintf(line, sizeof(line), "cannot end runs left running: %s", e1.msg);
			report(line, arg);
		}
	}
	/* look before locking: a store with nothing pending is not written to */
	r = store_changes_pending_count(st, sysroot_key(h), mid, &c, e);
	if (r < 0)
		return r;
	/* another machine's rows, or rows naming none, are never this machine's */
	report_foreign(st, &c, report, arg);
	if (c.mine == 0 || st->readonly)
		return 0;
	/* one repairer at a time: a second invocation waits, then finds nothing */
	r = store_tx_begin(st, e);
	if (r < 0)
		return r;
	r = repair_pages(&(struct repair){ st, h, mid, boot_id, report, arg }, &examined, e);
	if (store_tx_commit(st, r < 0 ? NULL : e) < 0 && r >= 0)
		return -EIO;
	if (examined >= JOURNAL_REPAIR_BUDGET && c.mine > examined && report) {
		snprintf(line, sizeof(line),
			 "store %s holds %lld more pending changes than one command repairs (%d):"
			 " `swaptune repair` goes on with them", st->path,
			 (long long)(c.mine - examined), JOURNAL_REPAIR_BUDGET);
		report(line, arg);
	}
	return r;
}

int journal_leftovers(struct store *st, const struct host *h, int64_t *n, struct st_err *e)
{
	char mid[64], boot_id[64];
	struct store_pending_count c;
	int64_t before = INT64_MAX;
	int examined = 0, r;

	*n = 0;
	host_read_machine_id(h, mid, sizeof(mid));
	host_read_boot_id(h, boot_id, sizeof(boot_id));
	r = store_changes_pending_count(st, sysroot_key(h), mid, &c, e);
	if (r < 0 || c.mine == 0)
		return r;
	/* the rows repair would act on: its own test, read only, within its budget */
	while (examined < JOURNAL_REPAIR_BUDGET) {
		struct store_change *v = NULL;
		int k;

		r = store_changes_pending_page(st, &(struct store_pending_page){
						       .sysroot = sysroot_key(h), .machine_id = mid,
						       .before_id = before, .limit = REPAIR_PAGE },
					       &v, &k, e);
		if (r < 0)
			return r;
		for (int i = 0; i < k; i++) {
			const struct store_change *p = &v[i];

			if (of_earlier_boot(p, boot_id) ||
			    !((!p->boot_id[0] || !strcmp(p->boot_id, boot_id)) &&
			      host_pid_alive(p->pid, p->pid_start)))
				(*n)++;
		}
		examined += k;
		if (k)
			before = v[k - 1].id;
		free(v);
		if (k < REPAIR_PAGE)
			break;
	}
	if (c.mine > examined)
		*n += c.mine - examined;
	return 0;
}

int journal_transfer(struct journal *j, pid_t pid, uint64_t pid_start,
		     int *moved, struct st_err *e)
{
	return store_changes_transfer(j->st, j->session, (int)pid, pid_start, moved, e);
}

int journal_commit_session(struct store *st, const char *session,
			   int *committed, struct st_err *e)
{
	return store_changes_commit_session(st, session, committed, e);
}
