/*
 * store-err.c - the bottom of the store: an SQLite failure as the store's
 * error (busy, damaged, denied, disk full) and the schema version. Every
 * store file and the migrations build on it; it calls none of them, so
 * opening the store (store.c) can run the migrations (migrations.c)
 * without a circle.
 */
#include <errno.h>
#include <stdbool.h>

#include "store-int.h"

sqlite3 *store_sqlite(struct store *st)
{
	return st->db;
}

const char *store_file(const struct store *st)
{
	return st->path;
}

/*
 * Whether SQLite failed because the filesystem under the store is full:
 * SQLITE_FULL, or an I/O error (the WAL index, a sync) whose errno says so.
 */
bool store_disk_full(struct store *st, int rc)
{
	int sys = st->db ? sqlite3_system_errno(st->db) : 0;

	return (rc & 0xff) == SQLITE_FULL ||
	       ((rc & 0xff) == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT)) ||
	       (st->disk_full && (rc & 0xff) == SQLITE_READONLY);
}

int store_disk_full_err(struct store *st, struct st_err *e)
{
	return err_set_exit(e, -ENOSPC, ST_EXIT_RUNTIME,
			    "database %s: the disk is full (no space left on its filesystem);"
			    " free space there and run again", st->path);
}

int store_db_err(struct store *st, struct st_err *e)
{
	int rc = st->db ? sqlite3_extended_errcode(st->db) : SQLITE_ERROR;

	if (store_disk_full(st, rc))
		return store_disk_full_err(st, e);
	return err_set(e, -EIO, "database %s: %s", st->path,
		       st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
}

/*
 * The store's status for an SQLite result: busy beyond the timeout and
 * damaged content are failures (exit 1), not a missing permission (exit 3).
 */
int store_sqlite_err(struct store *st, int rc, const char *msg, struct st_err *e)
{
	const char *m = msg ? msg : st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);

	if (store_disk_full(st, rc))
		return store_disk_full_err(st, e);
	switch (rc & 0xff) {
	case SQLITE_BUSY: case SQLITE_LOCKED:
		return err_set_exit(e, -EAGAIN, ST_EXIT_RUNTIME,
				    "database %s is busy: another swaptune holds it (%s)", st->path, m);
	case SQLITE_CORRUPT: case SQLITE_NOTADB: case SQLITE_FORMAT:
		return err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME, "database %s is damaged: %s",
				    st->path, m);
	case SQLITE_READONLY: case SQLITE_PERM: case SQLITE_CANTOPEN: case SQLITE_AUTH:
		return err_set_exit(e, -EACCES, ST_EXIT_DENIED, "cannot write database %s: %s",
				    st->path, m);
	default:
		return err_set_exit(e, -EIO, ST_EXIT_RUNTIME, "database %s: %s", st->path, m);
	}
}

int store_schema_version(struct store *st)
{
	sqlite3_stmt *stmt;
	int v = -1;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}
