/*
 * store-probe.c - the store's probe rows: arms, trials and per-trial
 * metrics written while a probe runs, and a probe run loaded back whole
 * (runs row, arms, trials, metrics) as plain structs for the advisor's
 * input builder (metric.h). See the probe section of store.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/store.h"

static int load_arms(struct store *st, struct store_probe_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc = store_prepare(st,
		"SELECT id, name, settings, emulated, note FROM arms WHERE run_id = ?1 ORDER BY id",
		&stmt, e);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, r->run.id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_probe_arm *a;

		if (r->n_arms >= STORE_PROBE_ARMS_MAX) {
			sqlite3_finalize(stmt);
			return err_set(e, -EBADMSG, "probe run %lld has more than %d arms",
				       (long long)r->run.id, STORE_PROBE_ARMS_MAX);
		}
		a = &r->arms[r->n_arms++];
		a->id = sqlite3_column_int64(stmt, 0);
		snprintf(a->name, sizeof(a->name), "%s", store_col_text(stmt, 1));
		snprintf(a->settings, sizeof(a->settings), "%s", store_col_text(stmt, 2));
		a->emulated = sqlite3_column_int(stmt, 3) != 0;
		snprintf(a->note, sizeof(a->note), "%s", store_col_text(stmt, 4));
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : store_db_err(st, e);
}

static int read_trial(sqlite3_stmt *stmt, void *el)
{
	struct store_probe_trial *t = el;

	t->id = sqlite3_column_int64(stmt, 0);
	t->arm_id = sqlite3_column_int64(stmt, 1);
	t->round = (unsigned)sqlite3_column_int(stmt, 2);
	t->seq = (unsigned)sqlite3_column_int(stmt, 3);
	t->warmup = sqlite3_column_int(stmt, 4) != 0;
	snprintf(t->status, sizeof(t->status), "%s", store_col_text(stmt, 5));
	t->have_primary = sqlite3_column_type(stmt, 6) != SQLITE_NULL;
	t->primary = t->have_primary ? sqlite3_column_double(stmt, 6) : NAN;
	snprintf(t->note, sizeof(t->note), "%s", store_col_text(stmt, 7));
	return 0;
}

static const struct store_row_type trial_row = {
	.size = sizeof(struct store_probe_trial),
	.read = read_trial,
};

static int load_trials(struct store *st, struct store_probe_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	void *v;
	int rc = store_prepare(st,
		"SELECT id, arm_id, round, seq, warmup, status, primary_value, note FROM trials"
		" WHERE run_id = ?1 ORDER BY round, seq, id", &stmt, e);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, r->run.id);
	rc = store_rows_read(st, stmt, &trial_row, &v, &r->n_trials, e);
	r->trials = v;
	return rc;
}

static struct store_probe_trial *trial_by_id(struct store_probe_run *r, int64_t id, size_t *hint)
{
	for (size_t k = 0; k < r->n_trials; k++) {
		size_t i = (*hint + k) % r->n_trials;

		if (r->trials[i].id == id) {
			*hint = i;
			return &r->trials[i];
		}
	}
	return NULL;
}

static int metric_push(struct store_probe_trial *t, const char *key, double v)
{
	/* grows by powers of two from 16 */
	if (t->n_metrics >= 16 && !(t->n_metrics & (t->n_metrics - 1))) {
		struct store_metric *m = realloc(t->metrics, 2 * t->n_metrics * sizeof(*m));

		if (!m)
			return -ENOMEM;
		t->metrics = m;
	} else if (!t->metrics) {
		t->metrics = malloc(16 * sizeof(*t->metrics));
		if (!t->metrics)
			return -ENOMEM;
	}
	snprintf(t->metrics[t->n_metrics].key, sizeof(t->metrics[0].key), "%s", key);
	t->metrics[t->n_metrics++].value = v;
	return 0;
}

static int load_metrics(struct store *st, struct store_probe_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	size_t hint = 0;
	int rc = store_prepare(st,
		"SELECT m.trial_id, m.key, m.value FROM metrics m JOIN trials t ON t.id = m.trial_id"
		" WHERE t.run_id = ?1 ORDER BY m.trial_id, m.key", &stmt, e);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, r->run.id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_probe_trial *t = trial_by_id(r, sqlite3_column_int64(stmt, 0), &hint);

		if (t && metric_push(t, store_col_text(stmt, 1), sqlite3_column_double(stmt, 2)) < 0) {
			sqlite3_finalize(stmt);
			return err_set(e, -ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : store_db_err(st, e);
}

int store_probe_rows_load(struct store *st, struct store_probe_run *r, struct st_err *e)
{
	int rc;

	if ((rc = load_arms(st, r, e)) < 0 || (rc = load_trials(st, r, e)) < 0 ||
	    (rc = load_metrics(st, r, e)) < 0)
		return rc;
	return 0;
}

int store_probe_run_load(struct store *st, int64_t run_id, struct store_probe_run *r,
			 struct st_err *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = store_run_get(st, run_id, &r->run, e)) < 0)
		return rc;
	return store_probe_rows_load(st, r, e);
}

void store_probe_run_free(struct store_probe_run *r)
{
	for (size_t i = 0; i < r->n_trials; i++)
		free(r->trials[i].metrics);
	free(r->trials);
	store_run_free(&r->run);
	r->trials = NULL;
	r->n_trials = 0;
}

int store_run_first_snapshot(struct store *st, int64_t run_id, int64_t *snap_id,
			     char *reason, size_t reason_len, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc = store_prepare(st, "SELECT id, reason FROM snapshots WHERE run_id = ?1 ORDER BY id LIMIT 1",
			       &stmt, e);

	*snap_id = 0;
	if (reason_len)
		reason[0] = '\0';
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, run_id);
	if ((rc = store_step_row(st, stmt, e)) == 1) {
		*snap_id = sqlite3_column_int64(stmt, 0);
		if (reason_len)
			snprintf(reason, reason_len, "%s", store_col_text(stmt, 1));
	}
	sqlite3_finalize(stmt);
	return rc < 0 ? rc : 0;
}

int store_probe_arm_add(struct store *st, int64_t run_id, const struct store_probe_arm *a,
			int64_t *arm_id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"INSERT INTO arms (run_id, name, settings, emulated, note) VALUES (?1, ?2, ?3, ?4, ?5)",
		&stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	sqlite3_bind_text(stmt, 2, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, a->settings, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 4, a->emulated);
	if (a->note[0])
		sqlite3_bind_text(stmt, 5, a->note, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0 && arm_id)
		*arm_id = sqlite3_last_insert_rowid(st->db);
	return r;
}

static int trial_insert(struct store *st, int64_t run_id, const struct store_probe_trial *t,
			int64_t *id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value, note)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	sqlite3_bind_int64(stmt, 2, t->arm_id);
	sqlite3_bind_int(stmt, 3, (int)t->round);
	sqlite3_bind_int(stmt, 4, (int)t->seq);
	sqlite3_bind_int(stmt, 5, t->warmup);
	sqlite3_bind_text(stmt, 6, t->status, -1, SQLITE_STATIC);
	if (t->have_primary && isfinite(t->primary))
		sqlite3_bind_double(stmt, 7, t->primary);
	if (t->note[0])
		sqlite3_bind_text(stmt, 8, t->note, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	*id = sqlite3_last_insert_rowid(st->db);
	return r;
}

int store_probe_trial_add(struct store *st, int64_t run_id, const struct store_probe_trial *t,
			  struct st_err *e)
{
	sqlite3_stmt *stmt;
	int64_t id = 0;
	int r;

	if ((r = store_tx_begin(st, e)) < 0)
		return r;
	r = trial_insert(st, run_id, t, &id, e);
	if (r == 0)
		r = store_prepare(st, "INSERT INTO metrics (trial_id, key, value) VALUES (?1, ?2, ?3)",
				  &stmt, e);
	if (r == 0) {
		for (size_t m = 0; m < t->n_metrics && r == 0; m++) {
			sqlite3_reset(stmt);
			sqlite3_bind_int64(stmt, 1, id);
			sqlite3_bind_text(stmt, 2, t->metrics[m].key, -1, SQLITE_STATIC);
			sqlite3_bind_double(stmt, 3, t->metrics[m].value);
			r = store_step_done(st, stmt, e);
		}
		sqlite3_finalize(stmt);
	}
	return store_tx_end(st, r, e);
}

int store_run_set_params(struct store *st, int64_t run_id, const char *params_json,
			 struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "UPDATE runs SET params = ?1 WHERE id = ?2", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, params_json, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, run_id);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

static int read_earlier(sqlite3_stmt *stmt, void *el)
{
	struct store_probe_earlier *w = el;

	w->id = sqlite3_column_int64(stmt, 0);
	snprintf(w->status, sizeof(w->status), "%s", store_col_text(stmt, 1));
	run_params_decode(store_col_text(stmt, 2), &w->p);
	return 0;
}

static void drop_earlier(void *el)
{
	run_params_free(&((struct store_probe_earlier *)el)->p);
}

static const struct store_row_type earlier_row = {
	.size = sizeof(struct store_probe_earlier),
	.read = read_earlier,
	.drop = drop_earlier,
};

int store_probe_earlier(struct store *st, int64_t run_id, struct store_probe_earlier **rows,
			size_t *n, struct st_err *e)
{
	sqlite3_stmt *stmt;
	void *v = NULL;
	int r = store_prepare(st, "SELECT id, status, params FROM runs WHERE kind = 'probe' AND id < ?1"
			      " ORDER BY id", &stmt, e);

	*n = 0;
	if (r == 0) {
		sqlite3_bind_int64(stmt, 1, run_id);
		r = store_rows_read(st, stmt, &earlier_row, &v, n, e);
	}
	*rows = v;
	return r;
}

void store_probe_earlier_free(struct store_probe_earlier *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_params_free(&rows[i].p);
	free(rows);
}
