/*
 * migrations.h - the store's schema, version by version (src/migrations.c):
 * store_open() (store.c) applies and checks them; nothing else calls them.
 */
#ifndef SWAPTUNE_MIGRATIONS_H
#define SWAPTUNE_MIGRATIONS_H

#include "swaptune/err.h"

struct store;

/* The newest schema version this build knows. */
int migrations_latest(void);
/*
 * The file's user_version is one this build can open: -EBADMSG (exit 1)
 * "database X is damaged: schema version N" when negative (a crafted
 * store), -EPROTO (exit 3) when newer than migrations_latest(). Runs no
 * statement but the PRAGMA that reads it, so store_open() calls it first.
 */
int migrations_check_version(struct store *st, struct st_err *e);
/* Apply every migration above the file's user_version (used by store_open). */
int migrations_apply(struct store *st, struct st_err *e);
/*
 * Every table of the schema is there: -EBADMSG (exit 1) "database X is
 * damaged: its table T is missing" otherwise, so that a store with a
 * dropped table is never read as an empty one (store_open).
 */
int migrations_check(struct store *st, struct st_err *e);

#endif
