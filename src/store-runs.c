/*
 * store-runs.c - the store's runs: the one runs row (struct store_run) read
 * by id, listed newest first and found newest of a kind; and the queries
 * over runs and snapshots behind the change commands: confirm-within
 * bookkeeping, the apply in effect, the snapshot a rollback goes back to,
 * and the snapshots and rows that history lists. See store.h.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/store.h"

/* The latest apply that no later rollback has already gone back past. */
#define APPLY_NOT_ROLLED_BACK \
	" AND NOT EXISTS (SELECT 1 FROM runs b WHERE b.kind = 'rollback'" \
	"   AND b.status = 'ok' AND b.id > a.id" \
	"   AND json_extract(b.params, '$.to_run') <= a.id)"

/* ---- the one runs row ---- */

/* The columns read_run() reads, from runs r joined with its hosts row h. */
#define RUN_COLS \
	"SELECT r.id, r.kind, r.status, r.started_at, coalesce(r.ended_at, ''), coalesce(r.pid, 0)," \
	" r.params, r.summary, coalesce(h.hostname, ''), coalesce(h.kernel, '')," \
	" r.kind = 'imported', coalesce(r.origin_kind, ''), coalesce(r.origin_status, '')," \
	" coalesce(r.origin_run_id, 0), coalesce(r.origin_machine_id, '')," \
	" EXISTS (SELECT 1 FROM samples WHERE run_id = r.id)," \
	" coalesce((SELECT t_ns FROM samples WHERE run_id = r.id ORDER BY seq DESC LIMIT 1), 0)," \
	" r.kernel_fp" \
	" FROM runs r LEFT JOIN hosts h ON h.id = r.host_id"

/* One row of RUN_COLS into the struct store_run at el (zeroed first): -ENOMEM when a copy fails. */
static int read_run(sqlite3_stmt *stmt, void *el)
{
	struct store_run *w = el;

	memset(w, 0, sizeof(*w));
	w->id = sqlite3_column_int64(stmt, 0);
	snprintf(w->kind, sizeof(w->kind), "%s", store_col_text(stmt, 1));
	snprintf(w->status, sizeof(w->status), "%s", store_col_text(stmt, 2));
	snprintf(w->started_at, sizeof(w->started_at), "%s", store_col_text(stmt, 3));
	snprintf(w->ended_at, sizeof(w->ended_at), "%s", store_col_text(stmt, 4));
	w->pid = sqlite3_column_int(stmt, 5);
	w->params = store_col_dup(stmt, 6);
	w->summary = store_col_dup(stmt, 7);
	snprintf(w->hostname, sizeof(w->hostname), "%s", store_col_text(stmt, 8));
	snprintf(w->kernel, sizeof(w->kernel), "%s", store_col_text(stmt, 9));
	w->imported = sqlite3_column_int(stmt, 10) != 0;
	snprintf(w->origin_kind, sizeof(w->origin_kind), "%s", store_col_text(stmt, 11));
	snprintf(w->origin_status, sizeof(w->origin_status), "%s", store_col_text(stmt, 12));
	w->origin_run_id = sqlite3_column_int64(stmt, 13);
	snprintf(w->origin_machine_id, sizeof(w->origin_machine_id), "%s", store_col_text(stmt, 14));
	w->has_samples = sqlite3_column_int(stmt, 15) != 0;
	w->last_t_ns = sqlite3_column_int64(stmt, 16);
	run_params_decode(w->params, &w->p);
	w->kernel_fp = store_col_dup(stmt, 17);
	if ((sqlite3_column_type(stmt, 6) != SQLITE_NULL && !w->params) ||
	    (sqlite3_column_type(stmt, 7) != SQLITE_NULL && !w->summary) ||
	    (sqlite3_column_type(stmt, 17) != SQLITE_NULL && !w->kernel_fp)) {
		store_run_free(w);
		return -ENOMEM;
	}
	return 0;
}

int store_run_get(struct store *st, int64_t run_id, struct store_run *out, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, RUN_COLS " WHERE r.id = ?1", &stmt, e);

	memset(out, 0, sizeof(*out));
	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	r = store_step_row(st, stmt, e);
	if (r == 1)
		r = read_run(stmt, out) < 0 ? err_set(e, -ENOMEM, "out of memory") : 0;
	else if (r == 0)
		r = err_set_exit(e, -ENOENT, ST_EXIT_USAGE, "no run %lld in %s", (long long)run_id,
				 st->path);
	sqlite3_finalize(stmt);
	return r;
}

const char *store_run_kind(const struct store_run *r)
{
	return r->origin_kind[0] ? r->origin_kind : r->kind;
}

void store_run_free(struct store_run *r)
{
	free(r->params);
	free(r->summary);
	free(r->kernel_fp);
	r->params = r->summary = r->kernel_fp = NULL;
	run_params_free(&r->p);
}

static void drop_run(void *el)
{
	store_run_free(el);
}

static const struct store_row_type run_row = {
	.size = sizeof(struct store_run),
	.read = read_run,
	.drop = drop_run,
};

void store_runs_free(struct store_run *rows, int n)
{
	for (int i = 0; i < n; i++)
		store_run_free(&rows[i]);
	free(rows);
}

int store_runs_list(struct store *st, const struct store_runs_which *which,
		    struct store_run **rows, int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	void *v = NULL;
	size_t k = 0;
	int r = store_prepare(st, RUN_COLS " WHERE ?1 IS NULL OR r.kind IN (?1, ?2)"
			      " ORDER BY r.id DESC LIMIT ?3", &stmt, e);

	if (r == 0) {
		if (which->kind1)
			sqlite3_bind_text(stmt, 1, which->kind1, -1, SQLITE_STATIC);
		if (which->kind2)
			sqlite3_bind_text(stmt, 2, which->kind2, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 3, which->limit);
		r = store_rows_read(st, stmt, &run_row, &v, &k, e);
	}
	*rows = v;
	*n = (int)k;
	return r;
}

int store_run_latest(struct store *st, const char *kind, bool ok_first, int64_t *run_id,
		     struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "SELECT id FROM runs WHERE kind = ?1"
			      " ORDER BY (?2 AND status = 'ok') DESC, id DESC LIMIT 1", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 2, ok_first);
	r = store_step_row(st, stmt, e);
	if (r == 1) {
		*run_id = sqlite3_column_int64(stmt, 0);
		r = 0;
	} else if (r == 0) {
		r = err_set(e, -ENOENT, "no %s run in %s", kind, st->path);
	}
	sqlite3_finalize(stmt);
	return r;
}

/* ---- behind the change commands ---- */

int store_runs_settle_confirms(struct store *st, struct st_err *e)
{
	if (st->readonly)	/* nothing can be settled; the next writable open does it */
		return 0;
	return store_exec(st,
		"UPDATE runs SET status = 'reverted',"
		" ended_at = coalesce(ended_at, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
		" WHERE kind = 'apply' AND status = 'awaiting-confirm' AND NOT EXISTS"
		" (SELECT 1 FROM changes c WHERE c.run_id = runs.id AND c.state = 'pending')", e);
}

int store_runs_awaiting_confirm(struct store *st, const char *sysroot,
				struct store_awaiting *a, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT c.run_id, c.session, c.pid, c.pid_start, count(*), r.params"
		" FROM changes c JOIN runs r ON r.id = c.run_id"
		" WHERE c.state = 'pending' AND c.sysroot = ?1 AND r.kind = 'apply'"
		" AND r.status = 'awaiting-confirm'"
		/* another machine's pending apply is not this one's to confirm or undo,
		   nor are rows that name no machine */
		" AND (?2 IS NULL OR c.machine_id = ?2)"
		" GROUP BY c.session ORDER BY c.run_id DESC LIMIT 1", &stmt, e);

	if (r < 0)
		return r;
	memset(a, 0, sizeof(*a));
	sqlite3_bind_text(stmt, 1, sysroot, -1, SQLITE_STATIC);
	if (st->machine_id[0])
		sqlite3_bind_text(stmt, 2, st->machine_id, -1, SQLITE_STATIC);
	if ((r = store_step_row(st, stmt, e)) == 1) {
		struct run_params p;

		run_params_decode(store_col_text(stmt, 5), &p);
		a->run_id = sqlite3_column_int64(stmt, 0);
		snprintf(a->session, sizeof(a->session), "%s", store_col_text(stmt, 1));
		a->pid = sqlite3_column_int(stmt, 2);
		a->pid_start = (uint64_t)sqlite3_column_int64(stmt, 3);
		a->n_rows = sqlite3_column_int(stmt, 4);
		a->deadline = p.confirm_deadline_unix;
		run_params_free(&p);
	}
	sqlite3_finalize(stmt);
	return r;
}

int store_runs_last_confirm_apply(struct store *st, int64_t *run_id, char *status,
				  size_t len, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "SELECT id, status FROM runs WHERE kind = 'apply'"
			      " AND params LIKE '%confirm_deadline_unix%' ORDER BY id DESC LIMIT 1",
			      &stmt, e);

	*run_id = 0;
	if (len)
		status[0] = '\0';
	if (r < 0)
		return r;
	r = 0;
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(stmt, 0);
		snprintf(status, len, "%s", store_col_text(stmt, 1));
		r = 1;
	}
	sqlite3_finalize(stmt);
	return r;
}

int store_runs_apply_in_effect(struct store *st, struct store_apply_ref *a, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT a.id, json_extract(a.params, '$.source_run'), json_extract(a.params, '$.arm')"
		" FROM runs a WHERE a.kind = 'apply' AND a.status = 'ok'"
		" AND json_extract(a.params, '$.source_run') IS NOT NULL"
		APPLY_NOT_ROLLED_BACK
		" ORDER BY a.id DESC LIMIT 1", &stmt, e);

	memset(a, 0, sizeof(*a));
	if (r < 0)
		return r;
	r = sqlite3_step(stmt);
	if (r == SQLITE_ROW) {
		a->apply_run = sqlite3_column_int64(stmt, 0);
		a->probe_run = sqlite3_column_int64(stmt, 1);
		snprintf(a->arm, sizeof(a->arm), "%s", store_col_text(stmt, 2));
		r = 1;
	} else {
		/* like a missing row: nothing in effect that can be verified */
		r = 0;
	}
	sqlite3_finalize(stmt);
	return r;
}

int store_runs_applied(struct store *st, struct store_applied *a, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT a.id, coalesce(json_extract(a.params, '$.source_run'), 0),"
		" coalesce(json_extract(a.params, '$.persist'), 0), coalesce(a.boot_id = ?2, 0)"
		" FROM runs a WHERE a.kind = 'apply' AND a.status = 'ok'"
		" AND (?1 = '' OR a.machine_id = ?1)"
		" AND (a.boot_id = ?2 OR json_extract(a.params, '$.persist') = 1)"
		APPLY_NOT_ROLLED_BACK
		" ORDER BY a.id DESC LIMIT 1", &stmt, e);

	memset(a, 0, sizeof(*a));
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, st->machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, st->boot_id, -1, SQLITE_STATIC);
	r = store_step_row(st, stmt, e);
	if (r == 1) {
		a->apply_run = sqlite3_column_int64(stmt, 0);
		a->source_run = sqlite3_column_int64(stmt, 1);
		a->persisted = sqlite3_column_int(stmt, 2) != 0;
		a->this_boot = sqlite3_column_int(stmt, 3) != 0;
	}
	sqlite3_finalize(stmt);
	return r;
}

static void read_snapshot_info(sqlite3_stmt *stmt, struct store_snapshot_info *s)
{
	s->id = sqlite3_column_int64(stmt, 0);
	s->run_id = sqlite3_column_int64(stmt, 1);
	snprintf(s->reason, sizeof(s->reason), "%s", store_col_text(stmt, 2));
	snprintf(s->taken_at, sizeof(s->taken_at), "%s", store_col_text(stmt, 3));
}

/* The columns after read_snapshot_info()'s: whose run the snapshot is (SNAPSHOT_ORIGIN). */
#define SNAPSHOT_ORIGIN \
	", coalesce(r.kind = 'imported' OR r.origin_machine_id IS NOT NULL, 0)," \
	" coalesce(r.machine_id, ''), coalesce(r.origin_machine_id, ''), coalesce(h.hostname, '')"
#define SNAPSHOT_ORIGIN_JOIN \
	" LEFT JOIN runs r ON r.id = s.run_id LEFT JOIN hosts h ON h.id = r.host_id"

static void read_snapshot_origin(sqlite3_stmt *stmt, int col, struct store_snapshot_info *s)
{
	s->imported = sqlite3_column_int(stmt, col) != 0;
	snprintf(s->machine_id, sizeof(s->machine_id), "%s",
		 store_col_text(stmt, s->imported ? col + 2 : col + 1));
	snprintf(s->hostname, sizeof(s->hostname), "%s", s->imported ? store_col_text(stmt, col + 3) : "");
}

/* Step a snapshot-info query once: 1 with *s, 0 without a row. Finalizes. */
static int one_snapshot_info(struct store *st, sqlite3_stmt *stmt,
			     struct store_snapshot_info *s, struct st_err *e)
{
	int r = store_step_row(st, stmt, e);

	memset(s, 0, sizeof(*s));
	if (r == 1) {
		read_snapshot_info(stmt, s);
		read_snapshot_origin(stmt, 4, s);
	}
	sqlite3_finalize(stmt);
	return r;
}

int store_snapshot_info(struct store *st, int64_t snap_id, struct store_snapshot_info *s,
			struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT s.id, coalesce(s.run_id, 0), s.reason, s.taken_at" SNAPSHOT_ORIGIN
		" FROM snapshots s" SNAPSHOT_ORIGIN_JOIN " WHERE s.id = ?1", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, snap_id);
	return one_snapshot_info(st, stmt, s, e);
}

int store_snapshot_before_apply_in_effect(struct store *st, struct store_snapshot_info *s,
					  struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT s.id, s.run_id, s.reason, s.taken_at" SNAPSHOT_ORIGIN " FROM snapshots s"
		" JOIN runs a ON a.id = s.run_id" SNAPSHOT_ORIGIN_JOIN
		" WHERE a.kind = 'apply' AND a.status = 'ok' AND s.reason = 'before apply'"
		/* another machine's apply (a copied store) is not in effect here */
		" AND (?1 IS NULL OR a.machine_id IS NULL OR a.machine_id = ?1)"
		APPLY_NOT_ROLLED_BACK
		" ORDER BY s.id DESC LIMIT 1", &stmt, e);

	if (r < 0)
		return r;
	if (st->machine_id[0])
		sqlite3_bind_text(stmt, 1, st->machine_id, -1, SQLITE_STATIC);
	return one_snapshot_info(st, stmt, s, e);
}

void store_snapshot_rows_free(struct store_snapshot_row *rows, int n)
{
	for (int i = 0; i < n; i++)
		free(rows[i].settings);
	free(rows);
}

static int read_snapshot_row(sqlite3_stmt *stmt, void *el)
{
	struct store_snapshot_row *w = el;

	read_snapshot_info(stmt, &w->info);
	return (w->settings = strdup(store_col_text(stmt, 4))) ? 0 : -ENOMEM;
}

static void drop_snapshot_row(void *el)
{
	free(((struct store_snapshot_row *)el)->settings);
}

static const struct store_row_type snapshot_row = {
	.size = sizeof(struct store_snapshot_row),
	.read = read_snapshot_row,
	.drop = drop_snapshot_row,
};

int store_snapshots_of_run(struct store *st, int64_t run_id, struct store_snapshot_row **rows,
			   int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	void *v = NULL;
	size_t k = 0;
	int r = store_prepare(st,
		"SELECT id, coalesce(run_id, 0), reason, taken_at, settings FROM snapshots"
		" WHERE run_id = ?1 ORDER BY id", &stmt, e);

	if (r == 0) {
		sqlite3_bind_int64(stmt, 1, run_id);
		r = store_rows_read(st, stmt, &snapshot_row, &v, &k, e);
	}
	*rows = v;
	*n = (int)k;
	return r;
}

int store_snapshot_ids(struct store *st, int64_t *ids, int max, int *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc, r = store_prepare(st, "SELECT id FROM snapshots ORDER BY id DESC LIMIT ?1", &stmt, e);

	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int(stmt, 1, max);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && *n < max)
		ids[(*n)++] = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : store_db_err(st, e);
}

int store_runs_orphaned(struct store *st, const struct store_orphan_test *test, int64_t *ids,
			int max, int *n, struct st_err *e)
{
	const char *boot_id = test->boot_id;
	sqlite3_stmt *stmt;
	int rc = SQLITE_DONE, r;

	*n = 0;
	r = store_prepare(st,
		"SELECT id, coalesce(pid, 0), coalesce(boot_id, '') FROM runs"
		" WHERE status = 'running' AND (machine_id IS NULL OR machine_id = ?1)"
		" ORDER BY id", &stmt, e);
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, test->machine_id, -1, SQLITE_STATIC);
	while (*n < max && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int pid = sqlite3_column_int(stmt, 1);
		const char *boot = store_col_text(stmt, 2);

		/* an earlier boot's process is gone; this boot's only when its pid is */
		if ((boot[0] && boot_id[0] && strcmp(boot, boot_id)) || (pid > 0 && !test->alive(pid)))
			ids[(*n)++] = sqlite3_column_int64(stmt, 0);
	}
	if (*n >= max)
		rc = SQLITE_DONE;
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : store_db_err(st, e);
}

int store_runs_end_orphans(struct store *st, const struct store_orphan_test *test, int *ended,
			   struct st_err *e)
{
	int64_t ids[64];
	sqlite3_stmt *stmt;
	int n = 0, r;

	*ended = 0;
	r = store_runs_orphaned(st, test, ids, 64, &n, e);
	if (r < 0 || !n || st->readonly)
		return r;
	r = store_prepare(st,
		"UPDATE runs SET status = 'interrupted',"
		" ended_at = coalesce(ended_at, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
		" WHERE id = ?1 AND status = 'running'", &stmt, e);
	if (r < 0)
		return r;
	for (int i = 0; i < n && r == 0; i++) {
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, ids[i]);
		r = store_step_done(st, stmt, e);
		if (r == 0)
			*ended += sqlite3_changes(st->db);
	}
	sqlite3_finalize(stmt);
	return r;
}
