/*
 * store-report.c - the store's read side for reports and replays: one run
 * in full with its host row, the recordings around a change, and a change
 * run's first snapshot. A recording's ticks are read by store-samples.c
 * (store_samples_read()), a probe run's trials by store-probe.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/store.h"

static const char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : "";
}

static char *col_dup(sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return NULL;
	return strdup(col_text(s, i));
}

static int db_error(struct store *st, struct st_err *e)
{
	return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
}

int store_run_full_get(struct store *st, int64_t run_id, struct store_run_full *out,
		   struct st_err *e)
{
	sqlite3_stmt *s;
	int r;

	memset(out, 0, sizeof(*out));
	r = store_prepare(st,
		"SELECT r.id, r.kind, r.status, r.started_at, coalesce(r.ended_at, ''),"
		" coalesce(r.pid, 0), r.params, r.summary, coalesce(h.hostname, ''),"
		" coalesce(h.kernel, ''),"
		" EXISTS (SELECT 1 FROM samples WHERE run_id = r.id),"
		" coalesce((SELECT t_ns FROM samples WHERE run_id = r.id ORDER BY seq DESC LIMIT 1), 0)"
		" FROM runs r LEFT JOIN hosts h ON h.id = r.host_id WHERE r.id = ?1", &s, e);
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, run_id);
	r = sqlite3_step(s);
	if (r != SQLITE_ROW) {
		sqlite3_finalize(s);
		if (r == SQLITE_DONE)
			return err_set_exit(e, -ENOENT, ST_EXIT_USAGE, "no run %lld in %s",
					    (long long)run_id, st->path);
		return db_error(st, e);
	}
	out->id = sqlite3_column_int64(s, 0);
	snprintf(out->kind, sizeof(out->kind), "%s", col_text(s, 1));
	snprintf(out->status, sizeof(out->status), "%s", col_text(s, 2));
	snprintf(out->started_at, sizeof(out->started_at), "%s", col_text(s, 3));
	snprintf(out->ended_at, sizeof(out->ended_at), "%s", col_text(s, 4));
	out->pid = sqlite3_column_int(s, 5);
	out->params = col_dup(s, 6);
	out->summary = col_dup(s, 7);
	snprintf(out->hostname, sizeof(out->hostname), "%s", col_text(s, 8));
	snprintf(out->kernel, sizeof(out->kernel), "%s", col_text(s, 9));
	out->has_samples = sqlite3_column_int(s, 10);
	out->last_t_ns = sqlite3_column_int64(s, 11);
	sqlite3_finalize(s);
	return 0;
}

void store_run_full_free(struct store_run_full *r)
{
	free(r->params);
	free(r->summary);
	r->params = r->summary = NULL;
}

static int one_id(struct store *st, const char *sql, const char *arg, int64_t *id,
		  struct st_err *e)
{
	sqlite3_stmt *s;
	int r = store_prepare(st, sql, &s, e);

	*id = 0;
	if (r < 0)
		return r;
	sqlite3_bind_text(s, 1, arg, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(s);
	if (r == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return r == SQLITE_ROW || r == SQLITE_DONE ? 0 : db_error(st, e);
}

int store_sample_run_before(struct store *st, const char *before, int64_t *id,
			    struct st_err *e)
{
	return one_id(st,
		"SELECT id FROM runs WHERE kind = 'sample' AND ended_at IS NOT NULL AND ended_at <= ?1"
		" AND EXISTS (SELECT 1 FROM samples WHERE run_id = runs.id)"
		" ORDER BY ended_at DESC, id DESC LIMIT 1", before, id, e);
}

int store_sample_run_after(struct store *st, const char *after, int64_t *id,
			   struct st_err *e)
{
	return one_id(st,
		"SELECT id FROM runs WHERE kind = 'sample' AND started_at >= ?1"
		" AND EXISTS (SELECT 1 FROM samples WHERE run_id = runs.id)"
		" ORDER BY started_at, id LIMIT 1", after, id, e);
}
