/*
 * store-report.c - the store's read side for reports and replays: one run
 * in full with its host row, a probe run's trials with their raw metrics,
 * the recordings around a change, and a change run's journal rows and first
 * snapshot. A recording's ticks are read by store-samples.c.
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

void store_trials_free(struct store_trial_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].metrics);
	free(rows);
}

static int add_metric(struct store_trial_row *t, const char *key, double v)
{
	struct store_trial_metric *m = realloc(t->metrics, (t->n_metrics + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	t->metrics = m;
	snprintf(m[t->n_metrics].key, sizeof(m->key), "%s", key);
	m[t->n_metrics++].value = v;
	return 0;
}

int store_trials_load(struct store *st, int64_t run_id, struct store_trial_row **rows,
		      size_t *n, struct st_err *e)
{
	sqlite3_stmt *s = NULL, *m = NULL;
	struct store_trial_row *v = NULL;
	size_t cap = 0, k = 0;
	int r;

	*rows = NULL;
	*n = 0;
	if ((r = store_prepare(st,
		"SELECT t.id, a.name, t.round, t.seq, t.warmup, t.status, t.primary_value,"
		" coalesce(t.note, '') FROM trials t JOIN arms a ON a.id = t.arm_id"
		" WHERE t.run_id = ?1 ORDER BY t.seq, t.id", &s, e)) < 0 ||
	    (r = store_prepare(st,
		"SELECT m.trial_id, m.key, m.value FROM metrics m JOIN trials t ON t.id = m.trial_id"
		" WHERE t.run_id = ?1 ORDER BY t.seq, t.id, m.key", &m, e)) < 0)
		goto out;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(m, 1, run_id);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_trial_row *t;

		if (k == cap) {
			struct store_trial_row *nv = realloc(v, (cap ? cap * 2 : 32) * sizeof(*v));

			if (!nv) {
				r = err_set(e, -ENOMEM, "out of memory");
				goto out;
			}
			v = nv;
			cap = cap ? cap * 2 : 32;
		}
		t = &v[k++];
		memset(t, 0, sizeof(*t));
		t->id = sqlite3_column_int64(s, 0);
		snprintf(t->arm, sizeof(t->arm), "%s", col_text(s, 1));
		t->round = sqlite3_column_int(s, 2);
		t->seq = sqlite3_column_int(s, 3);
		t->warmup = sqlite3_column_int(s, 4);
		snprintf(t->status, sizeof(t->status), "%s", col_text(s, 5));
		t->has_primary = sqlite3_column_type(s, 6) != SQLITE_NULL;
		t->primary = sqlite3_column_double(s, 6);
		snprintf(t->note, sizeof(t->note), "%s", col_text(s, 7));
	}
	if (r != SQLITE_DONE) {
		r = db_error(st, e);
		goto out;
	}
	/* both lists are in trial order: merge them */
	for (size_t i = 0; (r = sqlite3_step(m)) == SQLITE_ROW;) {
		int64_t id = sqlite3_column_int64(m, 0);

		while (i < k && v[i].id != id)
			i++;
		if (i == k)
			break;
		if (add_metric(&v[i], col_text(m, 1), sqlite3_column_double(m, 2)) < 0) {
			r = err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE && r != SQLITE_ROW) {
		r = db_error(st, e);
		goto out;
	}
	*rows = v;
	*n = k;
	v = NULL;
	r = 0;
out:
	store_trials_free(v, k);
	sqlite3_finalize(s);
	sqlite3_finalize(m);
	return r;
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

int store_change_rows_of_run(struct store *st, int64_t run_id, struct store_change_row *rows,
			 int max, int *n, struct st_err *e)
{
	sqlite3_stmt *s;
	int r = store_prepare(st,
		"SELECT id, kind, name, old_value, new_value, state, temporary, created_at"
		" FROM changes WHERE run_id = ?1 ORDER BY id", &s, e);

	*n = 0;
	if (r < 0)
		return r;
	sqlite3_bind_int64(s, 1, run_id);
	while ((r = sqlite3_step(s)) == SQLITE_ROW && *n < max) {
		struct store_change_row *c = &rows[(*n)++];

		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(s, 0);
		snprintf(c->kind, sizeof(c->kind), "%s", col_text(s, 1));
		snprintf(c->name, sizeof(c->name), "%s", col_text(s, 2));
		c->has_old = sqlite3_column_type(s, 3) != SQLITE_NULL;
		snprintf(c->old_value, sizeof(c->old_value), "%s", col_text(s, 3));
		c->has_new = sqlite3_column_type(s, 4) != SQLITE_NULL;
		snprintf(c->new_value, sizeof(c->new_value), "%s", col_text(s, 4));
		snprintf(c->state, sizeof(c->state), "%s", col_text(s, 5));
		c->temporary = sqlite3_column_int(s, 6);
		snprintf(c->created_at, sizeof(c->created_at), "%s", col_text(s, 7));
	}
	sqlite3_finalize(s);
	return r == SQLITE_DONE || r == SQLITE_ROW ? 0 : db_error(st, e);
}

int store_first_snapshot_of_run(struct store *st, int64_t run_id, int64_t *id,
				char *reason, size_t reason_len, struct st_err *e)
{
	struct store_snapshot_info info;
	int r;

	if (reason_len)
		reason[0] = '\0';
	/* the change commands' queries, with the snapshot's reason */
	if ((r = store_run_first_snapshot(st, run_id, id, e)) < 0 || !*id)
		return r;
	if ((r = store_snapshot_info(st, *id, &info, e)) < 0)
		return r;
	if (r > 0)
		snprintf(reason, reason_len, "%s", info.reason);
	return 0;
}
