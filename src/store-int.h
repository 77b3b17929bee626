/*
 * store-int.h - private to the store's own files (src/store*.c,
 * src/migrations.c): the raw SQLite handle and statement helpers. No other
 * file includes sqlite3.h or spells SQL; they call the typed functions in
 * include/swaptune/store.h.
 */
#ifndef SWAPTUNE_STORE_INT_H
#define SWAPTUNE_STORE_INT_H

#include <sqlite3.h>

#include "swaptune/store.h"

/* Apply every migration above the file's user_version (used by store_open). */
int migrations_apply(struct store *st, struct st_err *e);
/*
 * An SQLite failure as the store's error: busy and damaged content exit 1
 * ("database X is busy", "database X is damaged: ..."), a missing
 * permission exit 3. msg (may be NULL) replaces sqlite3_errmsg().
 */
int store_sqlite_err(struct store *st, int rc, const char *msg, struct st_err *e);

/*
 * The store's error for the last failed call on st->db: -ENOSPC "the disk
 * is full" (exit 1) when the filesystem under the store is full, else -EIO
 * with SQLite's message.
 */
int store_db_err(struct store *st, struct st_err *e);

/* Run a statement without results (BEGIN, COMMIT, ...). */
int store_exec(struct store *st, const char *sql, struct st_err *e);
/* Prepare with an error message naming the store. */
int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt,
		  struct st_err *e);
/* sqlite3_step() to SQLITE_DONE with an error message on failure. */
int store_step_done(struct store *st, sqlite3_stmt *stmt, struct st_err *e);

#endif
