/*
 * store-samples.c - the store's samples table: recording `swaptune sample
 * --record` (a runs row of kind "sample" and one samples row per tick, the
 * tick's JSON as sampler_format_json() wrote it), reading a recording back
 * tick by tick, and listing the recordings (see store.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/store.h"

int store_samples_begin(struct sample_recording *r, struct store *st,
			const char *params_json, struct st_err *e)
{
	sqlite3_stmt *stmt = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	r->st = st;
	ret = store_run_begin(st, "sample", params_json, &r->run_id, e);
	if (ret < 0)
		return ret;
	ret = store_prepare(st, "INSERT INTO samples (run_id, seq, t_ns, data) VALUES (?1, ?2, ?3, ?4)",
			    &stmt, e);
	if (ret < 0) {
		store_run_end(st, r->run_id, "failed", NULL, NULL);
		return ret;
	}
	r->insert = stmt;
	return 0;
}

int store_samples_add(struct sample_recording *r, uint64_t seq, uint64_t t_ns,
		      const char *json, struct st_err *e)
{
	sqlite3_stmt *stmt = r->insert;
	int ret;

	if (!stmt)
		return err_set(e, -EINVAL, "store_samples_add: recording not begun");
	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, r->run_id);
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)seq);
	sqlite3_bind_int64(stmt, 3, (sqlite3_int64)t_ns);
	sqlite3_bind_text(stmt, 4, json, -1, SQLITE_STATIC);
	ret = store_step_done(r->st, stmt, e);
	sqlite3_clear_bindings(stmt);
	if (ret == 0)
		r->rows++;
	return ret;
}

int store_samples_end(struct sample_recording *r, const char *status,
		      const char *summary_json, struct st_err *e)
{
	if (r->insert)
		sqlite3_finalize(r->insert);
	r->insert = NULL;
	if (!r->run_id)
		return 0;
	return store_run_end(r->st, r->run_id, status, summary_json, e);
}

/* Whether run_id is a run of kind "sample": 0, -ENOENT, or an error. */
static int sample_run_exists(struct store *st, int64_t run_id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "SELECT 1 FROM runs WHERE id = ?1 AND kind = 'sample'",
			      &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	r = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (r == SQLITE_ROW)
		return 0;
	if (r == SQLITE_DONE)
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "run %lld is not a sample recording (see swaptune history)",
				    (long long)run_id);
	return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
}

int store_samples_read(struct store *st, int64_t run_id, store_sample_fn fn, void *arg,
		       struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = sample_run_exists(st, run_id, e), rc, n = 0;

	if (r < 0)
		return r;
	r = store_prepare(st, "SELECT seq, t_ns, data FROM samples WHERE run_id = ?1 ORDER BY seq",
			  &stmt, e);
	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_sample_row row = {
			.run_id = run_id,
			.seq = (uint64_t)sqlite3_column_int64(stmt, 0),
			.t_ns = (uint64_t)sqlite3_column_int64(stmt, 1),
			.json = (const char *)sqlite3_column_text(stmt, 2),
		};

		n++;
		r = fn(&row, arg);
		if (r != 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(stmt);
	if (r < 0)
		return r;
	return n;
}

static void copy_col(char *dst, size_t len, sqlite3_stmt *stmt, int col)
{
	const unsigned char *t = sqlite3_column_text(stmt, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

int store_sample_runs(struct store *st, struct store_sample_run *rows, int max, int *n,
		      struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT r.id, r.status, r.started_at, coalesce(r.ended_at, ''),"
		" coalesce(r.params, ''), count(s.seq), coalesce(min(s.t_ns), 0),"
		" coalesce(max(s.t_ns), 0)"
		" FROM runs r LEFT JOIN samples s ON s.run_id = r.id"
		" WHERE r.kind = 'sample' GROUP BY r.id ORDER BY r.id DESC LIMIT ?1", &stmt, e);
	int rc;

	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int(stmt, 1, max);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && *n < max) {
		struct store_sample_run *w = &rows[(*n)++];

		memset(w, 0, sizeof(*w));
		w->run_id = sqlite3_column_int64(stmt, 0);
		copy_col(w->status, sizeof(w->status), stmt, 1);
		copy_col(w->started_at, sizeof(w->started_at), stmt, 2);
		copy_col(w->ended_at, sizeof(w->ended_at), stmt, 3);
		copy_col(w->params, sizeof(w->params), stmt, 4);
		w->ticks = (uint64_t)sqlite3_column_int64(stmt, 5);
		w->first_t_ns = (uint64_t)sqlite3_column_int64(stmt, 6);
		w->last_t_ns = (uint64_t)sqlite3_column_int64(stmt, 7);
		w->duration_ns = w->last_t_ns - w->first_t_ns;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(stmt);
	return r;
}
