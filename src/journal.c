/*
 * journal.c - write-ahead journal of host changes, restore and crash repair.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store-int.h" /* TEMPORARY: SQL moves into the store (issue 8) */
#include "swaptune/journal.h"
#include "swaptune/settings.h"

#define MAX_UNDO 16

static struct {
	const char *kind;
	journal_undo_fn fn;
} undo_handlers[MAX_UNDO];

int journal_register_undo(const char *kind, journal_undo_fn fn)
{
	for (int i = 0; i < MAX_UNDO; i++)
		if (!undo_handlers[i].kind || !strcmp(undo_handlers[i].kind, kind)) {
			undo_handlers[i].kind = kind;
			undo_handlers[i].fn = fn;
			return 0;
		}
	return -ENOSPC;
}

static journal_undo_fn find_undo(const char *kind)
{
	for (int i = 0; i < MAX_UNDO && undo_handlers[i].kind; i++)
		if (!strcmp(undo_handlers[i].kind, kind))
			return undo_handlers[i].fn;
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
	return 0;
}

static int insert_row(struct journal *j, const char *kind, const char *name,
		      const char *old_value, const char *new_value, bool temporary,
		      int64_t *id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(j->st,
		"INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name,"
		" old_value, new_value, temporary, state) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'pending')", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, j->session, -1, SQLITE_STATIC);
	if (j->run_id > 0)
		sqlite3_bind_int64(stmt, 2, j->run_id);
	sqlite3_bind_int(stmt, 3, (int)j->pid);
	sqlite3_bind_int64(stmt, 4, (sqlite3_int64)j->pid_start);
	sqlite3_bind_text(stmt, 5, sysroot_key(j->h), -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 7, name, -1, SQLITE_STATIC);
	if (old_value)
		sqlite3_bind_text(stmt, 8, old_value, -1, SQLITE_STATIC);
	if (new_value)
		sqlite3_bind_text(stmt, 9, new_value, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 10, temporary);
	r = store_step_done(j->st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0)
		*id = sqlite3_last_insert_rowid(j->st->db);
	return r;
}

static int set_state(struct store *st, int64_t id, const char *state,
		     const char *note, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE changes SET state = ?2, note = coalesce(?3, note),"
		" finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, id);
	sqlite3_bind_text(stmt, 2, state, -1, SQLITE_STATIC);
	if (note)
		sqlite3_bind_text(stmt, 3, note, -1, SQLITE_TRANSIENT);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

int journal_set(struct journal *j, const char *name, const char *value,
		bool temporary, char *old_out, size_t old_len, struct st_err *e)
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
	if (old_out)
		snprintf(old_out, old_len, "%s", old);
	if (settings_equal(d, old, norm))
		return 0;
	r = insert_row(j, "setting", d->name, old, norm, temporary, &id, e);
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

	return insert_row(j, kind, ident, detail, NULL, true, &id, e);
}

int journal_resource_done(struct journal *j, const char *kind, const char *ident,
			  struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(j->st,
		"UPDATE changes SET state = 'restored',"
		" finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')"
		" WHERE session = ?1 AND kind = ?2 AND name = ?3 AND state = 'pending'", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, j->session, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, ident, -1, SQLITE_STATIC);
	r = store_step_done(j->st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

struct pending {
	int64_t id;
	char kind[32];
	char name[256];
	char old_value[4096];	/* a resource's detail, e.g. a persisted file's old content */
	char new_value[SETTING_VALUE_MAX];
	bool has_old;
	int pid;
	uint64_t pid_start;
};

/*
 * Undo one pending change; *msg says what happened. Returns 1 when something
 * was written or removed, 0 when nothing needed undoing, or a negative error.
 */
static int undo_one(struct store *st, const struct host *h, const struct pending *p,
		    char *msg, size_t len, struct st_err *e)
{
	char cur[SETTING_VALUE_MAX];
	const struct setting_def *d;
	journal_undo_fn fn;
	int r;

	if (strcmp(p->kind, "setting")) {
		fn = find_undo(p->kind);
		if (!fn) {
			snprintf(msg, len, "cannot undo %s %s: no handler in this build", p->kind, p->name);
			return err_set(e, -ENOSYS, "%s", msg);
		}
		r = fn(h, p->name, p->has_old ? p->old_value : NULL, e);
		if (r < 0) {
			snprintf(msg, len, "failed to remove %s %s: %s", p->kind, p->name, e ? e->msg : "");
			return r;
		}
		snprintf(msg, len, "removed %s %s", p->kind, p->name);
		r = set_state(st, p->id, "restored", NULL, e);
		return r < 0 ? r : 1;
	}
	d = settings_find(p->name);
	if (!d || !p->has_old) {
		snprintf(msg, len, "cannot restore unknown setting %s", p->name);
		r = set_state(st, p->id, "failed", msg, e);
		return r < 0 ? r : 0;
	}
	r = settings_read(h, d, cur, sizeof(cur), e);
	if (r < 0) {
		snprintf(msg, len, "cannot read %s to restore it: %s", p->name, e ? e->msg : "");
		return r;
	}
	if (settings_equal(d, cur, p->old_value)) {
		snprintf(msg, len, "%s is %s as before", p->name, cur);
		r = set_state(st, p->id, "restored", NULL, e);
		return r < 0 ? r : 0;
	}
	if (!settings_equal(d, cur, p->new_value)) {
		/* someone else changed it since: theirs wins */
		snprintf(msg, len, "left %s at %s: changed by someone else since swaptune set %s (was %s)",
			 p->name, cur, p->new_value, p->old_value);
		r = set_state(st, p->id, "superseded", msg, e);
		return r < 0 ? r : 0;
	}
	r = settings_write_raw(h, d, p->old_value, e);
	if (r < 0) {
		snprintf(msg, len, "failed to restore %s to %s: %s", p->name, p->old_value,
			 e ? e->msg : "");
		return r;
	}
	snprintf(msg, len, "restored %s %s -> %s", p->name, p->new_value, p->old_value);
	r = set_state(st, p->id, "restored", NULL, e);
	return r < 0 ? r : 1;
}

static int load_pending(struct store *st, const char *where_sql, const char *arg,
			struct pending **out, int *n, struct st_err *e)
{
	char sql[512];
	sqlite3_stmt *stmt;
	struct pending *v = NULL;
	int cap = 0, r;

	*n = 0;
	snprintf(sql, sizeof(sql),
		 "SELECT id, kind, name, old_value, new_value, pid, pid_start FROM changes"
		 " WHERE state = 'pending' AND %s ORDER BY id DESC", where_sql);
	r = store_prepare(st, sql, &stmt, e);
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, arg, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct pending *p;

		if (*n == cap) {
			struct pending *nv = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				free(v);
				sqlite3_finalize(stmt);
				return err_set(e, -ENOMEM, "out of memory");
			}
			v = nv;
		}
		p = &v[(*n)++];
		memset(p, 0, sizeof(*p));
		p->id = sqlite3_column_int64(stmt, 0);
		snprintf(p->kind, sizeof(p->kind), "%s", (const char *)sqlite3_column_text(stmt, 1));
		snprintf(p->name, sizeof(p->name), "%s", (const char *)sqlite3_column_text(stmt, 2));
		p->has_old = sqlite3_column_type(stmt, 3) != SQLITE_NULL;
		if (p->has_old)
			snprintf(p->old_value, sizeof(p->old_value), "%s",
				 (const char *)sqlite3_column_text(stmt, 3));
		if (sqlite3_column_type(stmt, 4) != SQLITE_NULL)
			snprintf(p->new_value, sizeof(p->new_value), "%s",
				 (const char *)sqlite3_column_text(stmt, 4));
		p->pid = sqlite3_column_int(stmt, 5);
		p->pid_start = (uint64_t)sqlite3_column_int64(stmt, 6);
	}
	sqlite3_finalize(stmt);
	if (r != SQLITE_DONE) {
		free(v);
		return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	}
	*out = v;
	return 0;
}

int journal_restore(struct journal *j, int *restored, struct st_err *e)
{
	struct pending *v = NULL;
	int n, r, first = 0;

	if (restored)
		*restored = 0;
	r = load_pending(j->st, "session = ?1", j->session, &v, &n, e);
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

int journal_repair(struct store *st, const struct host *h,
		   journal_report_fn report, void *arg, struct st_err *e)
{
	struct pending *v = NULL;
	int n, r, done = 0, first = 0;

	/* one repairer at a time: a second invocation waits, then finds nothing */
	r = store_exec(st, "BEGIN IMMEDIATE", e);
	if (r < 0)
		return r;
	r = load_pending(st, "sysroot = ?1", sysroot_key(h), &v, &n, e);
	if (r < 0) {
		store_exec(st, "ROLLBACK", NULL);
		return r;
	}
	for (int i = 0; i < n; i++) {
		struct st_err e1 = {0};
		char msg[512], line[700];

		if (host_pid_alive(v[i].pid, v[i].pid_start))
			continue;
		r = undo_one(st, h, &v[i], msg, sizeof(msg), &e1);
		snprintf(line, sizeof(line), "%s (left by swaptune pid %d, which did not finish)",
			 msg, v[i].pid);
		if (report)
			report(line, arg);
		if (r < 0 && !first) {
			first = r;
			err_set(e, r, "%s", e1.msg);
		} else if (r > 0) {
			done++;
		}
	}
	free(v);
	if (store_exec(st, "COMMIT", first ? NULL : e) < 0 && !first)
		return -EIO;
	return first ? first : done;
}

int journal_transfer(struct journal *j, pid_t pid, uint64_t pid_start,
		     int *moved, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(j->st,
		"UPDATE changes SET pid = ?2, pid_start = ?3"
		" WHERE session = ?1 AND state = 'pending'", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, j->session, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, (int)pid);
	sqlite3_bind_int64(stmt, 3, (sqlite3_int64)pid_start);
	r = store_step_done(j->st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0 && moved)
		*moved = sqlite3_changes(j->st->db);
	return r;
}

int journal_commit_session(struct store *st, const char *session,
			   int *committed, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE changes SET state = 'committed', temporary = 0,"
		" finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')"
		" WHERE session = ?1 AND state = 'pending'", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, session, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0 && committed)
		*committed = sqlite3_changes(st->db);
	return r;
}
