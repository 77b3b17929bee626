/*
 * store-changes.c - the store's side of the change journal: the rows of
 * the changes table, written before each host change and read back by
 * restore, crash repair, confirm, rollback and history. See store.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/store.h"

#define CHANGE_COLUMNS \
	"SELECT id, coalesce(run_id, 0), session, pid, pid_start, sysroot, kind, name," \
	" old_value, new_value, state, temporary, created_at, finished_at, note," \
	" coalesce(machine_id, ''), coalesce(boot_id, '') FROM changes"

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

static void copy_col(sqlite3_stmt *stmt, int i, char *out, size_t len, bool *has)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);

	if (has)
		*has = sqlite3_column_type(stmt, i) != SQLITE_NULL;
	snprintf(out, len, "%s", t ? (const char *)t : "");
}

static int read_row(sqlite3_stmt *stmt, void *el)
{
	struct store_change *c = el;

	c->id = sqlite3_column_int64(stmt, 0);
	c->run_id = sqlite3_column_int64(stmt, 1);
	copy_col(stmt, 2, c->session, sizeof(c->session), NULL);
	c->pid = sqlite3_column_int(stmt, 3);
	c->pid_start = (uint64_t)sqlite3_column_int64(stmt, 4);
	copy_col(stmt, 5, c->sysroot, sizeof(c->sysroot), NULL);
	copy_col(stmt, 6, c->kind, sizeof(c->kind), NULL);
	copy_col(stmt, 7, c->name, sizeof(c->name), NULL);
	copy_col(stmt, 8, c->old_value, sizeof(c->old_value), &c->has_old);
	copy_col(stmt, 9, c->new_value, sizeof(c->new_value), &c->has_new);
	copy_col(stmt, 10, c->state, sizeof(c->state), NULL);
	c->temporary = sqlite3_column_int(stmt, 11) != 0;
	copy_col(stmt, 12, c->created_at, sizeof(c->created_at), NULL);
	copy_col(stmt, 13, c->finished_at, sizeof(c->finished_at), &c->has_finished);
	copy_col(stmt, 14, c->note, sizeof(c->note), &c->has_note);
	copy_col(stmt, 15, c->machine_id, sizeof(c->machine_id), NULL);
	copy_col(stmt, 16, c->boot_id, sizeof(c->boot_id), NULL);
	return 0;
}

static const struct store_row_type change_row = {
	.size = sizeof(struct store_change),
	.read = read_row,
};

/* Step a prepared CHANGE_COLUMNS query to the end into a malloc'd array; finalizes it. */
static int read_rows(struct store *st, sqlite3_stmt *stmt, struct store_change **rows,
		     int *n, struct st_err *e)
{
	void *v;
	size_t k;
	int r = store_rows_read(st, stmt, &change_row, &v, &k, e);

	*rows = v;
	*n = (int)k;
	return r;
}

int store_change_add(struct store *st, const struct store_change *c, int64_t *id,
		     struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name,"
		" old_value, new_value, temporary, state, machine_id, boot_id) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'pending', ?11, ?12)", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, c->session, -1, SQLITE_STATIC);
	if (c->run_id > 0)
		sqlite3_bind_int64(stmt, 2, c->run_id);
	sqlite3_bind_int(stmt, 3, c->pid);
	sqlite3_bind_int64(stmt, 4, (sqlite3_int64)c->pid_start);
	sqlite3_bind_text(stmt, 5, c->sysroot, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, c->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 7, c->name, -1, SQLITE_STATIC);
	if (c->has_old)
		sqlite3_bind_text(stmt, 8, c->old_value, -1, SQLITE_STATIC);
	if (c->has_new)
		sqlite3_bind_text(stmt, 9, c->new_value, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 10, c->temporary);
	if (c->machine_id[0])
		sqlite3_bind_text(stmt, 11, c->machine_id, -1, SQLITE_STATIC);
	if (c->boot_id[0])
		sqlite3_bind_text(stmt, 12, c->boot_id, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0 && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return r;
}

int store_change_finish(struct store *st, int64_t id, const char *state, const char *note,
			struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE changes SET state = ?2, note = coalesce(?3, note),"
		" finished_at = " NOW " WHERE id = ?1", &stmt, e);

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

int store_changes_resource_done(struct store *st, const char *session, const char *kind,
				const char *name, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE changes SET state = 'restored', finished_at = " NOW
		" WHERE session = ?1 AND kind = ?2 AND name = ?3 AND state = 'pending'", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, name, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

int store_changes_pending(struct store *st, const char *session, const char *sysroot,
			  struct store_change **rows, int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, session ?
		CHANGE_COLUMNS " WHERE state = 'pending' AND session = ?1 ORDER BY id DESC" :
		CHANGE_COLUMNS " WHERE state = 'pending' AND sysroot = ?1 ORDER BY id DESC", &stmt, e);

	*rows = NULL;
	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, session ? session : sysroot, -1, SQLITE_STATIC);
	return read_rows(st, stmt, rows, n, e);
}

int store_changes_pending_count(struct store *st, const char *sysroot, const char *machine_id,
				struct store_pending_count *c, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT coalesce(sum(machine_id = ?2), 0),"
		" coalesce(sum(machine_id != ?2 AND machine_id != ''), 0),"
		" coalesce(sum(machine_id IS NULL OR machine_id = ''), 0),"
		" (SELECT machine_id FROM changes WHERE state = 'pending' AND sysroot = ?1"
		"  AND machine_id != ?2 AND machine_id != '' LIMIT 1)"
		" FROM changes WHERE state = 'pending' AND sysroot = ?1", &stmt, e);

	memset(c, 0, sizeof(*c));
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, sysroot, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, machine_id, -1, SQLITE_STATIC);
	r = sqlite3_step(stmt);
	if (r == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(stmt, 3);

		c->mine = sqlite3_column_int64(stmt, 0);
		c->others = sqlite3_column_int64(stmt, 1);
		c->unnamed = sqlite3_column_int64(stmt, 2);
		snprintf(c->other_mid, sizeof(c->other_mid), "%s", t ? (const char *)t : "");
	}
	sqlite3_finalize(stmt);
	return r == SQLITE_ROW ? 0 : store_db_err(st, e);
}

int store_changes_pending_page(struct store *st, const struct store_pending_page *page,
			       struct store_change **rows, int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, CHANGE_COLUMNS " WHERE state = 'pending' AND sysroot = ?1"
			      " AND machine_id = ?2 AND id < ?3 ORDER BY id DESC LIMIT ?4", &stmt, e);

	*rows = NULL;
	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, page->sysroot, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, page->machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 3, page->before_id);
	sqlite3_bind_int(stmt, 4, page->limit);
	return read_rows(st, stmt, rows, n, e);
}

int store_changes_committed(struct store *st, const char *session,
			    struct store_change **rows, int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, CHANGE_COLUMNS " WHERE session = ?1 AND state = 'committed'"
			      " ORDER BY id", &stmt, e);

	*rows = NULL;
	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, session, -1, SQLITE_STATIC);
	return read_rows(st, stmt, rows, n, e);
}

int store_changes_of_run(struct store *st, int64_t run_id, struct store_change **rows,
			 int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, CHANGE_COLUMNS " WHERE run_id = ?1 ORDER BY id", &stmt, e);

	*rows = NULL;
	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	return read_rows(st, stmt, rows, n, e);
}

int store_changes_since_run(struct store *st, const struct store_changes_since *since,
			    struct store_change **rows, int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, CHANGE_COLUMNS " WHERE state = 'committed'"
			      " AND kind IN (?3, ?4) AND sysroot = ?1 AND run_id >= ?2"
			      " AND (?5 IS NULL OR machine_id = ?5) ORDER BY id", &stmt, e);

	*rows = NULL;
	*n = 0;
	if (r < 0)
		return r;
	if (st->machine_id[0])
		sqlite3_bind_text(stmt, 5, st->machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 1, since->sysroot, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, since->min_run_id);
	sqlite3_bind_text(stmt, 3, since->kind1, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, since->kind2, -1, SQLITE_STATIC);
	return read_rows(st, stmt, rows, n, e);
}

int store_changes_count_pending(struct store *st, const char *session, int *n,
				struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "SELECT count(*) FROM changes WHERE session = ?1"
			      " AND state = 'pending'", &stmt, e);

	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, session, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		*n = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return 0;
}

int store_changes_transfer(struct store *st, const char *session, int pid,
			   uint64_t pid_start, int *moved, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE changes SET pid = ?2, pid_start = ?3"
		" WHERE session = ?1 AND state = 'pending'", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, pid);
	sqlite3_bind_int64(stmt, 3, (sqlite3_int64)pid_start);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0 && moved)
		*moved = sqlite3_changes(st->db);
	return r;
}

int store_changes_commit_session(struct store *st, const char *session, int *committed,
				 struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE changes SET state = 'committed', temporary = 0, finished_at = " NOW
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

int store_changes_set_in_boot(struct store *st, const char *name, const char *const *values,
			      const struct store_boot *boot, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "SELECT 1 FROM changes WHERE kind = 'setting' AND name = ?1"
			      " AND new_value = ?2 AND boot_id = ?3 AND sysroot = ?4"
			      " AND (?5 = '' OR machine_id = ?5) LIMIT 1", &stmt, e);

	if (r < 0)
		return r;
	for (; values && *values && r == 0; values++) {
		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, *values, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 3, boot->boot_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 4, boot->sysroot, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 5, boot->machine_id ? boot->machine_id : "", -1, SQLITE_STATIC);
		r = store_step_row(st, stmt, e);
	}
	sqlite3_finalize(stmt);
	return r;
}
