/*
 * store-err.h - private to the store (src/store-err.c): what the bottom of
 * the store offers every store file and the migrations, which build on it
 * without the store's public header (store.c runs the migrations, so they
 * must not call up into it): an SQLite failure as the store's error, the
 * schema version, and the handle and path of an open store.
 */
#ifndef SWAPTUNE_STORE_ERR_H
#define SWAPTUNE_STORE_ERR_H

#include <sqlite3.h>
#include <stdbool.h>

#include "swaptune/err.h"

struct store;

/* The open store's SQLite handle and file name. */
sqlite3 *store_sqlite(struct store *st);
const char *store_file(const struct store *st);

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

/*
 * Whether SQLite's rc means the filesystem under the store is full, and the
 * store's error for it: -ENOSPC "the disk is full" (exit 1).
 */
bool store_disk_full(struct store *st, int rc);
int store_disk_full_err(struct store *st, struct st_err *e);

/* The schema version in the file (PRAGMA user_version). */
int store_schema_version(struct store *st);

#endif
