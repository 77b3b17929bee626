/*
 * store-switchback.c - the store's switchback rows: one windows row per
 * window of a switchback run and its figures in window_metrics, written as
 * the run goes and read back whole (see the switchback section of
 * store.h). The run itself and its arms use the runs and arms tables.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/store.h"

static void bind_real_or_null(sqlite3_stmt *stmt, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(stmt, i, v);
	else
		sqlite3_bind_null(stmt, i);
}

static double col_real_or_nan(sqlite3_stmt *stmt, int i)
{
	return sqlite3_column_type(stmt, i) == SQLITE_NULL ? NAN : sqlite3_column_double(stmt, i);
}

static int window_insert(struct store *st, int64_t run_id, const struct store_sb_window *w,
			 struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"INSERT INTO windows (run_id, idx, block, pos, arm_id, started_at, start_s, switch_s,"
		" count_start_s, end_s, outcome, value, failure, failed_at_s)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	sqlite3_bind_int(stmt, 2, (int)w->idx);
	sqlite3_bind_int(stmt, 3, (int)w->block);
	sqlite3_bind_int(stmt, 4, (int)w->pos);
	sqlite3_bind_int64(stmt, 5, w->arm_id);
	sqlite3_bind_text(stmt, 6, w->started_at, -1, SQLITE_STATIC);
	sqlite3_bind_double(stmt, 7, w->start_s);
	bind_real_or_null(stmt, 8, w->switch_s);
	sqlite3_bind_double(stmt, 9, w->count_start_s);
	sqlite3_bind_double(stmt, 10, w->end_s);
	sqlite3_bind_text(stmt, 11, w->outcome, -1, SQLITE_STATIC);
	if (w->have_value && isfinite(w->value))
		sqlite3_bind_double(stmt, 12, w->value);
	else
		sqlite3_bind_null(stmt, 12);
	if (w->failure[0])
		sqlite3_bind_text(stmt, 13, w->failure, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(stmt, 13);
	bind_real_or_null(stmt, 14, w->failed_at_s);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

int store_sb_window_add(struct store *st, int64_t run_id, const struct store_sb_window *w,
			struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r;

	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	r = window_insert(st, run_id, w, e);
	if (r == 0)
		r = store_prepare(st, "INSERT INTO window_metrics (run_id, idx, key, value)"
				  " VALUES (?1, ?2, ?3, ?4)", &stmt, e);
	if (r == 0) {
		for (size_t m = 0; m < w->n_metrics && m < STORE_SB_METRICS_MAX && r == 0; m++) {
			if (!isfinite(w->metrics[m].value))
				continue;
			sqlite3_reset(stmt);
			sqlite3_bind_int64(stmt, 1, run_id);
			sqlite3_bind_int(stmt, 2, (int)w->idx);
			sqlite3_bind_text(stmt, 3, w->metrics[m].key, -1, SQLITE_STATIC);
			sqlite3_bind_double(stmt, 4, w->metrics[m].value);
			r = store_step_done(st, stmt, e);
		}
		sqlite3_finalize(stmt);
	}
	return store_tx_end(st, r, e);
}

static int read_window(sqlite3_stmt *stmt, void *el)
{
	struct store_sb_window *w = el;

	w->idx = (unsigned)sqlite3_column_int(stmt, 0);
	w->block = (unsigned)sqlite3_column_int(stmt, 1);
	w->pos = (unsigned)sqlite3_column_int(stmt, 2);
	w->arm_id = sqlite3_column_int64(stmt, 3);
	snprintf(w->started_at, sizeof(w->started_at), "%s", store_col_text(stmt, 4));
	w->start_s = col_real_or_nan(stmt, 5);
	w->switch_s = col_real_or_nan(stmt, 6);
	w->count_start_s = col_real_or_nan(stmt, 7);
	w->end_s = col_real_or_nan(stmt, 8);
	snprintf(w->outcome, sizeof(w->outcome), "%s", store_col_text(stmt, 9));
	w->have_value = sqlite3_column_type(stmt, 10) != SQLITE_NULL;
	w->value = w->have_value ? sqlite3_column_double(stmt, 10) : NAN;
	snprintf(w->failure, sizeof(w->failure), "%s", store_col_text(stmt, 11));
	w->failed_at_s = col_real_or_nan(stmt, 12);
	return 0;
}

static const struct store_row_type window_row = {
	.size = sizeof(struct store_sb_window),
	.read = read_window,
};

/* window_metrics of run_id into the rows (by idx, which the rows are sorted by) */
static int metrics_load(struct store *st, int64_t run_id, struct store_sb_window *v, size_t n,
			struct st_err *e)
{
	sqlite3_stmt *stmt;
	size_t i = 0;
	int r = store_prepare(st, "SELECT idx, key, value FROM window_metrics WHERE run_id = ?1"
			      " ORDER BY idx, key", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	while ((r = sqlite3_step(stmt)) == SQLITE_ROW) {
		unsigned idx = (unsigned)sqlite3_column_int(stmt, 0);
		struct store_sb_metric *m;

		while (i < n && v[i].idx < idx)
			i++;
		if (i == n || v[i].idx != idx || v[i].n_metrics >= STORE_SB_METRICS_MAX)
			continue;	/* a figure of no window, or too many: not read */
		m = &v[i].metrics[v[i].n_metrics++];
		snprintf(m->key, sizeof(m->key), "%s", store_col_text(stmt, 1));
		m->value = sqlite3_column_double(stmt, 2);
	}
	sqlite3_finalize(stmt);
	return r == SQLITE_DONE ? 0 : store_db_err(st, e);
}

int store_sb_windows_load(struct store *st, int64_t run_id, struct store_sb_window **rows,
			  size_t *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	void *v = NULL;
	int r = store_prepare(st,
		"SELECT idx, block, pos, arm_id, started_at, start_s, switch_s, count_start_s, end_s,"
		" outcome, value, failure, failed_at_s FROM windows WHERE run_id = ?1 ORDER BY idx",
		&stmt, e);

	*rows = NULL;
	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	if ((r = store_rows_read(st, stmt, &window_row, &v, n, e)) < 0)
		return r;
	if ((r = metrics_load(st, run_id, v, *n, e)) < 0) {
		free(v);
		*n = 0;
		return r;
	}
	*rows = v;
	return 0;
}

int store_sb_apply_target(struct store *st, int64_t *apply_run, char *status, size_t len,
			  struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT a.id, a.status FROM runs a WHERE a.kind = 'apply'"
		" AND a.status IN ('ok', 'awaiting-confirm')"
		" AND (?1 = '' OR a.machine_id = ?1)"
		" AND NOT EXISTS (SELECT 1 FROM runs b WHERE b.kind = 'rollback'"
		"   AND b.status = 'ok' AND b.id > a.id"
		"   AND json_extract(b.params, '$.to_run') <= a.id)"
		" ORDER BY a.id DESC LIMIT 1", &stmt, e);

	*apply_run = 0;
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, st->machine_id, -1, SQLITE_STATIC);
	if ((r = store_step_row(st, stmt, e)) == 1) {
		*apply_run = sqlite3_column_int64(stmt, 0);
		snprintf(status, len, "%s", store_col_text(stmt, 1));
	}
	sqlite3_finalize(stmt);
	return r;
}
