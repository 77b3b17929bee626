/*
 * store-fleet.c - the store side of fleet export and import: reading a run
 * with everything recorded under it as one JSON object, writing a validated
 * imported run back as history rows of its origin host, and loading every
 * probe run as a fleet_run for pooling (include/swaptune/fleet.h).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "swaptune/fingerprint.h"
#include "swaptune/fleet.h"
#include "swaptune/store.h"

static int db_err(struct store *st, struct st_err *e)
{
	return store_db_err(st, e);
}

static const char *col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : "";
}

/* A TEXT column holding JSON: the parsed value, else the text, else null. */
static cJSON *col_json(sqlite3_stmt *s, int i)
{
	cJSON *v;

	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return cJSON_CreateNull();
	v = cJSON_Parse(col_str(s, i));
	return v ? v : cJSON_CreateString(col_str(s, i));
}

/*
 * A run's params as col_json() would give them, but read through
 * run_params_decode(), the one place that parses params text: its
 * document, else the text, else null.
 */
static cJSON *col_params(sqlite3_stmt *s, int i)
{
	struct run_params p;
	cJSON *v;

	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return cJSON_CreateNull();
	run_params_decode(col_str(s, i), &p);
	v = p.doc ? p.doc : cJSON_CreateString(col_str(s, i));
	p.doc = NULL;
	run_params_free(&p);
	return v;
}

/*
 * A stored kernel fingerprint as its JSON, read back as strictly as an
 * import reads it (fingerprint_from_json()): one that does not read back
 * is exported as null, never passed on.
 */
static cJSON *col_fingerprint(sqlite3_stmt *s, int i)
{
	struct kernel_fingerprint fp;
	cJSON *v;
	int r;

	if (sqlite3_column_type(s, i) == SQLITE_NULL || !(v = cJSON_Parse(col_str(s, i))))
		return cJSON_CreateNull();
	r = fingerprint_from_json(v, &fp, NULL);
	cJSON_Delete(v);
	return r < 0 ? cJSON_CreateNull() : fingerprint_to_json(&fp);
}

static void add_col_text(cJSON *o, const char *k, sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddStringToObject(o, k, col_str(s, i));
}

/*
 * A run is this host's when the machine it recorded (runs.machine_id, or
 * its hosts row for runs older than that column) is machine_id; a run that
 * recorded neither predates swaptune's identities and is taken as made
 * where its store lives. Any other run was made elsewhere (a copied store,
 * a --sysroot of another tree) and is never exported under this identity.
 */
int store_fleet_export_ids(struct store *st, const struct store_export_want *w,
			   struct store_export_ids *sel, struct st_err *e)
{
	const char *machine_id = w->machine_id, *since = w->since;
	const int64_t *ids = w->ids;
	size_t n_ids = w->n_ids;
	int64_t **out = &sel->ids;
	size_t *n_out = &sel->n, *n_foreign = &sel->n_foreign;
	sqlite3_stmt *stmt;
	size_t cap = 64;
	int rc = SQLITE_DONE;	/* gcc -O1 (check-asan) cannot see the loop runs when *out is set */

	*out = NULL;
	*n_out = 0;
	*n_foreign = 0;
	if (store_prepare(st, "SELECT r.id, coalesce(r.machine_id, h.machine_id),"
			  " coalesce(h.hostname, (SELECT o.hostname FROM hosts o"
			  "  WHERE o.machine_id = r.machine_id ORDER BY o.id LIMIT 1))"
			  " FROM runs r LEFT JOIN hosts h ON h.id = r.host_id"
			  " WHERE r.kind != 'imported' AND (?1 IS NULL OR r.started_at >= ?1)"
			  " ORDER BY r.id", &stmt, e) < 0)
		return -EIO;
	if (since)
		sqlite3_bind_text(stmt, 1, since, -1, SQLITE_STATIC);
	*out = malloc(cap * sizeof(**out));
	while (*out && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(stmt, 0);
		bool want = n_ids == 0, mine;

		for (size_t i = 0; i < n_ids && !want; i++)
			want = ids[i] == id;
		if (!want)
			continue;
		mine = sqlite3_column_type(stmt, 1) == SQLITE_NULL ||
		       !strcmp(col_str(stmt, 1), machine_id);
		if (!mine && n_ids) {
			int r = err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
					     "run %lld was made on another machine (%s, machine id %s), not on"
					     " this one (%s): export it there", (long long)id,
					     sqlite3_column_type(stmt, 2) == SQLITE_NULL ? "hostname unknown" :
					     col_str(stmt, 2), col_str(stmt, 1), machine_id);

			sqlite3_finalize(stmt);
			free(*out);
			*out = NULL;
			return r;
		}
		if (!mine) {
			(*n_foreign)++;
			continue;
		}
		if (*n_out == cap) {
			int64_t *p = realloc(*out, 2 * cap * sizeof(**out));

			if (!p)
				break;
			*out = p;
			cap *= 2;
		}
		(*out)[(*n_out)++] = id;
	}
	sqlite3_finalize(stmt);
	if (!*out || rc == SQLITE_ROW) {
		free(*out);
		*out = NULL;
		return err_set(e, -ENOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		return db_err(st, e);
	}
	return 0;
}

/* Run a per-run query and append one object per row built by fn. */
static int export_rows(struct store *st, int64_t run_id, const char *sql, cJSON *arr,
		       void (*fn)(struct store *, sqlite3_stmt *, cJSON *), struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc;

	if (store_prepare(st, sql, &stmt, e) < 0)
		return -EIO;
	sqlite3_bind_int64(stmt, 1, run_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();

		fn(st, stmt, o);
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : db_err(st, e);
}

static void arm_row(struct store *st, sqlite3_stmt *s, cJSON *o)
{
	(void)st;
	cJSON_AddStringToObject(o, "name", col_str(s, 0));
	cJSON_AddItemToObject(o, "settings", col_json(s, 1));
	cJSON_AddBoolToObject(o, "emulated", sqlite3_column_int(s, 2));
	add_col_text(o, "note", s, 3);
}

static void trial_row(struct store *st, sqlite3_stmt *s, cJSON *o)
{
	sqlite3_stmt *m;
	cJSON *mo;

	cJSON_AddStringToObject(o, "arm", col_str(s, 1));
	cJSON_AddNumberToObject(o, "round", sqlite3_column_int64(s, 2));
	cJSON_AddNumberToObject(o, "seq", sqlite3_column_int64(s, 3));
	cJSON_AddBoolToObject(o, "warmup", sqlite3_column_int(s, 4));
	cJSON_AddStringToObject(o, "status", col_str(s, 5));
	add_col_text(o, "started_at", s, 6);
	if (sqlite3_column_type(s, 7) == SQLITE_NULL)
		cJSON_AddNullToObject(o, "primary");
	else
		cJSON_AddNumberToObject(o, "primary", sqlite3_column_double(s, 7));
	add_col_text(o, "note", s, 8);
	mo = cJSON_AddObjectToObject(o, "metrics");
	if (sqlite3_prepare_v2(st->db, "SELECT key, value FROM metrics WHERE trial_id = ?1"
			       " ORDER BY key", -1, &m, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(m, 1, sqlite3_column_int64(s, 0));
	while (sqlite3_step(m) == SQLITE_ROW)
		cJSON_AddNumberToObject(mo, col_str(m, 0), sqlite3_column_double(m, 1));
	sqlite3_finalize(m);
}

static void num_or_null(cJSON *o, const char *k, sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, sqlite3_column_double(s, i));
}

/* A switchback window with its figures (windows, window_metrics). */
static void window_row(struct store *st, sqlite3_stmt *s, cJSON *o)
{
	sqlite3_stmt *m;
	cJSON *mo;

	cJSON_AddNumberToObject(o, "idx", sqlite3_column_int64(s, 0));
	cJSON_AddNumberToObject(o, "block", sqlite3_column_int64(s, 1));
	cJSON_AddNumberToObject(o, "pos", sqlite3_column_int64(s, 2));
	cJSON_AddStringToObject(o, "arm", col_str(s, 3));
	cJSON_AddStringToObject(o, "started_at", col_str(s, 4));
	num_or_null(o, "start_s", s, 5);
	num_or_null(o, "switch_s", s, 6);
	num_or_null(o, "count_start_s", s, 7);
	num_or_null(o, "end_s", s, 8);
	cJSON_AddStringToObject(o, "outcome", col_str(s, 9));
	num_or_null(o, "value", s, 10);
	add_col_text(o, "failure", s, 11);
	num_or_null(o, "failed_at_s", s, 12);
	mo = cJSON_AddObjectToObject(o, "metrics");
	if (sqlite3_prepare_v2(st->db, "SELECT key, value FROM window_metrics WHERE run_id = ?1"
			       " AND idx = ?2 ORDER BY key", -1, &m, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(m, 1, sqlite3_column_int64(s, 13));
	sqlite3_bind_int64(m, 2, sqlite3_column_int64(s, 0));
	while (sqlite3_step(m) == SQLITE_ROW)
		cJSON_AddNumberToObject(mo, col_str(m, 0), sqlite3_column_double(m, 1));
	sqlite3_finalize(m);
}

static void snapshot_row(struct store *st, sqlite3_stmt *s, cJSON *o)
{
	(void)st;
	cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(s, 0));
	add_col_text(o, "taken_at", s, 1);
	cJSON_AddStringToObject(o, "reason", col_str(s, 2));
	cJSON_AddItemToObject(o, "settings", col_json(s, 3));
}

static void change_row(struct store *st, sqlite3_stmt *s, cJSON *o)
{
	(void)st;
	cJSON_AddStringToObject(o, "kind", col_str(s, 0));
	cJSON_AddStringToObject(o, "name", col_str(s, 1));
	add_col_text(o, "old", s, 2);
	add_col_text(o, "new", s, 3);
	cJSON_AddBoolToObject(o, "temporary", sqlite3_column_int(s, 4));
	cJSON_AddStringToObject(o, "state", col_str(s, 5));
	add_col_text(o, "created_at", s, 6);
	add_col_text(o, "finished_at", s, 7);
	add_col_text(o, "note", s, 8);
}

/* One tick as {"seq", "t_ns", "data"}: its JSON parsed, else the text. */
static int sample_row(const struct store_tick *t, void *arg)
{
	cJSON *o = cJSON_CreateObject(), *d;
	size_t len;
	const char *json = store_tick_json(t, &len);

	if (!o || !json) {
		cJSON_Delete(o);
		return -ENOMEM;
	}
	cJSON_AddNumberToObject(o, "seq", (double)t->seq);
	cJSON_AddNumberToObject(o, "t_ns", (double)t->t_ns);
	d = cJSON_ParseWithLength(json, len);
	if (!d)
		d = cJSON_CreateString(json);	/* as col_json() keeps a text that is not JSON */
	cJSON_AddItemToObject(o, "data", d);
	cJSON_AddItemToArray(arg, o);
	return 0;
}

int store_fleet_export_run(struct store *st, int64_t run_id, cJSON **run, struct st_err *e)
{
	sqlite3_stmt *stmt;
	cJSON *o;
	int rc;

	*run = NULL;
	if (store_prepare(st, "SELECT kind, status, started_at, ended_at, params, summary, kernel_fp"
			  " FROM runs WHERE id = ?1 AND kind != 'imported'", &stmt, e) < 0)
		return -EIO;
	sqlite3_bind_int64(stmt, 1, run_id);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(stmt);
		return rc == SQLITE_DONE ? err_set(e, -ENOENT, "no run %lld of this host in %s",
						   (long long)run_id, st->path) : db_err(st, e);
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)run_id);
	cJSON_AddStringToObject(o, "kind", col_str(stmt, 0));
	cJSON_AddStringToObject(o, "status", col_str(stmt, 1));
	cJSON_AddStringToObject(o, "started_at", col_str(stmt, 2));
	add_col_text(o, "ended_at", stmt, 3);
	cJSON_AddItemToObject(o, "params", col_params(stmt, 4));
	cJSON_AddItemToObject(o, "summary", col_json(stmt, 5));
	cJSON_AddItemToObject(o, "kernel_fingerprint", col_fingerprint(stmt, 6));
	sqlite3_finalize(stmt);
	rc = export_rows(st, run_id, "SELECT name, settings, emulated, note FROM arms"
			 " WHERE run_id = ?1 ORDER BY id", cJSON_AddArrayToObject(o, "arms"), arm_row, e);
	if (!rc)
		rc = export_rows(st, run_id, "SELECT t.id, a.name, t.round, t.seq, t.warmup, t.status,"
				 " t.started_at, t.primary_value, t.note FROM trials t"
				 " JOIN arms a ON a.id = t.arm_id WHERE t.run_id = ?1 ORDER BY t.id",
				 cJSON_AddArrayToObject(o, "trials"), trial_row, e);
	if (!rc)
		rc = export_rows(st, run_id, "SELECT w.idx, w.block, w.pos, a.name, w.started_at, w.start_s,"
				 " w.switch_s, w.count_start_s, w.end_s, w.outcome, w.value, w.failure,"
				 " w.failed_at_s, w.run_id FROM windows w JOIN arms a ON a.id = w.arm_id"
				 " WHERE w.run_id = ?1 ORDER BY w.idx",
				 cJSON_AddArrayToObject(o, "windows"), window_row, e);
	if (!rc)
		rc = export_rows(st, run_id, "SELECT id, taken_at, reason, settings FROM snapshots"
				 " WHERE run_id = ?1 ORDER BY id",
				 cJSON_AddArrayToObject(o, "snapshots"), snapshot_row, e);
	if (!rc)
		rc = export_rows(st, run_id, "SELECT kind, name, old_value, new_value, temporary, state,"
				 " created_at, finished_at, note FROM changes WHERE run_id = ?1 ORDER BY id",
				 cJSON_AddArrayToObject(o, "changes"), change_row, e);
	if (!rc) {
		rc = store_ticks_walk(st, run_id, sample_row, cJSON_AddArrayToObject(o, "samples"), e);
		if (rc == -ENOMEM)
			err_set(e, rc, "out of memory");
	}
	if (rc < 0) {
		cJSON_Delete(o);
		return rc;
	}
	*run = o;
	return 0;
}

int store_fleet_begin(struct store *st, struct st_err *e)
{
	if (sqlite3_get_autocommit(st->db) && store_exec(st, "BEGIN IMMEDIATE", e) < 0)
		return -EIO;
	return store_exec(st, "SAVEPOINT fleet_file", e);
}

int store_fleet_commit(struct store *st, struct st_err *e)
{
	return store_exec(st, "RELEASE fleet_file", e);
}

void store_fleet_rollback(struct store *st)
{
	sqlite3_exec(st->db, "ROLLBACK TO fleet_file", NULL, NULL, NULL);
	sqlite3_exec(st->db, "RELEASE fleet_file", NULL, NULL, NULL);
}

int store_fleet_import_host(struct store *st, const struct store_fleet_host *h,
			    int64_t *host_id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc;

	if (store_prepare(st,
		"INSERT INTO hosts (machine_id, hostname, kernel, cpu_model, boot_id)"
		" VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (machine_id, hostname) DO UPDATE SET"
		" kernel = coalesce(?3, kernel), cpu_model = coalesce(?4, cpu_model),"
		" boot_id = coalesce(?5, boot_id) RETURNING id", &stmt, e) < 0)
		return -EIO;
	sqlite3_bind_text(stmt, 1, h->machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, h->hostname, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, h->kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, h->cpu_model, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 5, h->boot_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*host_id = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : db_err(st, e);
}

/* Bind a JSON member stored as TEXT: objects printed, strings as they are. */
static int bind_json(sqlite3_stmt *s, int i, const cJSON *v, const char *dflt)
{
	char *t;

	if (cJSON_IsString(v))
		return sqlite3_bind_text(s, i, v->valuestring, -1, SQLITE_TRANSIENT);
	if (!v || cJSON_IsNull(v))
		return dflt ? sqlite3_bind_text(s, i, dflt, -1, SQLITE_STATIC) : sqlite3_bind_null(s, i);
	t = cJSON_PrintUnformatted(v);
	if (!t)
		return SQLITE_NOMEM;
	sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
	cJSON_free(t);
	return SQLITE_OK;
}

static void bind_str(sqlite3_stmt *s, int i, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (cJSON_IsString(v))
		sqlite3_bind_text(s, i, v->valuestring, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static int64_t num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static int step_once(struct store *st, sqlite3_stmt *s, struct st_err *e)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db_err(st, e);
}

/* 0 new, 1 present with the same hash, -EEXIST other content. */
static int identity_check(struct store *st, const struct store_fleet_origin *origin,
			  int64_t origin_id, const char *started, const char *hash,
			  struct st_err *e)
{
	const char *mid = origin->machine_id;
	sqlite3_stmt *s;
	int rc, found = 0;

	if (origin->local_machine_id && !strcmp(mid, origin->local_machine_id)) {
		if (store_prepare(st, "SELECT 1 FROM runs WHERE id = ?1 AND started_at = ?2"
				  " AND kind != 'imported'", &s, e) < 0)
			return -EIO;
		sqlite3_bind_int64(s, 1, origin_id);
		sqlite3_bind_text(s, 2, started, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
		if (rc == SQLITE_ROW)
			return 1;
	}
	if (store_prepare(st, "SELECT content_hash FROM runs WHERE origin_machine_id = ?1"
			  " AND origin_run_id = ?2 AND origin_started_at = ?3", &s, e) < 0)
		return -EIO;
	sqlite3_bind_text(s, 1, mid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, origin_id);
	sqlite3_bind_text(s, 3, started, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		found = strcmp(col_str(s, 0), hash) ? -EEXIST : 1;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, e);
	if (found == -EEXIST)
		return err_set(e, -EEXIST, "run %lld of machine %s (started %s) is already in the store"
			       " with different content", (long long)origin_id, mid, started);
	return found;
}

enum { S_ARM, S_TRIAL, S_METRIC, S_SNAP, S_CHANGE, S_WINDOW, S_WMETRIC, S_COUNT };

static const char *const import_sql[S_COUNT] = {
	[S_ARM] = "INSERT INTO arms (run_id, name, settings, emulated, note) VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_TRIAL] = "INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, started_at,"
		    " primary_value, note) VALUES (?1, (SELECT id FROM arms WHERE run_id = ?1 AND name = ?2),"
		    " ?3, ?4, ?5, ?6, coalesce(?7, strftime('%Y-%m-%dT%H:%M:%fZ','now')), ?8, ?9)",
	[S_METRIC] = "INSERT INTO metrics (trial_id, key, value) VALUES (?1, ?2, ?3)",
	[S_SNAP] = "INSERT INTO snapshots (run_id, taken_at, reason, settings)"
		   " VALUES (?1, coalesce(?2, strftime('%Y-%m-%dT%H:%M:%fZ','now')), ?3, ?4)",
	[S_CHANGE] = "INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name,"
		     " old_value, new_value, temporary, state, created_at, finished_at, note, origin_state)"
		     " VALUES ('imported', ?1, 0, 0, 'imported', ?2, ?3, ?4, ?5, ?6, 'imported',"
		     " coalesce(?7, strftime('%Y-%m-%dT%H:%M:%fZ','now')), ?8, ?9, ?10)",
	[S_WINDOW] = "INSERT INTO windows (run_id, idx, block, pos, arm_id, started_at, start_s, switch_s,"
		     " count_start_s, end_s, outcome, value, failure, failed_at_s) VALUES (?1, ?2, ?3, ?4,"
		     " (SELECT id FROM arms WHERE run_id = ?1 AND name = ?5), ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		     " ?13, ?14)",
	[S_WMETRIC] = "INSERT INTO window_metrics (run_id, idx, key, value) VALUES (?1, ?2, ?3, ?4)",
};

static struct tick_writer *cache_writer(struct store *st, int64_t rid);

/* A run's ticks through the recorder's writer: compact as if recorded here. */
static int import_samples(struct store *st, int64_t rid, const cJSON *samples, struct st_err *e)
{
	struct tick_writer *w;
	const cJSON *x;
	int rc = 0;

	if (!cJSON_GetArraySize(samples))
		return 0;
	if ((w = cache_writer(st, rid)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	cJSON_ArrayForEach(x, samples) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(x, "data");
		uint64_t seq = (uint64_t)num(x, "seq"), t_ns = (uint64_t)num(x, "t_ns");

		/* a tick object is read as numbers; text stays text */
		rc = cJSON_IsString(d) ?
		     tick_writer_add_text(w, seq, t_ns, d->valuestring, strlen(d->valuestring), e) :
		     tick_writer_add_doc(w, &(struct tick_given){ .seq = seq, .t_ns = t_ns, .d = d }, e);
		if (rc < 0)
			break;
	}
	return rc;
}

static void bind_num(sqlite3_stmt *s, int i, const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	if (cJSON_IsNumber(x))
		sqlite3_bind_double(s, i, x->valuedouble);
	else
		sqlite3_bind_null(s, i);
}

/* A switchback run's windows and their figures (validated by fleet_doc_parse). */
static int import_windows(struct store *st, sqlite3_stmt **s, int64_t rid, const cJSON *run,
			  struct st_err *e)
{
	const cJSON *x, *m;
	int rc;

	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, "windows")) {
		sqlite3_bind_int64(s[S_WINDOW], 1, rid);
		sqlite3_bind_int64(s[S_WINDOW], 2, num(x, "idx"));
		sqlite3_bind_int64(s[S_WINDOW], 3, num(x, "block"));
		sqlite3_bind_int64(s[S_WINDOW], 4, num(x, "pos"));
		bind_str(s[S_WINDOW], 5, x, "arm");
		bind_str(s[S_WINDOW], 6, x, "started_at");
		bind_num(s[S_WINDOW], 7, x, "start_s");
		bind_num(s[S_WINDOW], 8, x, "switch_s");
		bind_num(s[S_WINDOW], 9, x, "count_start_s");
		bind_num(s[S_WINDOW], 10, x, "end_s");
		bind_str(s[S_WINDOW], 11, x, "outcome");
		bind_num(s[S_WINDOW], 12, x, "value");
		bind_str(s[S_WINDOW], 13, x, "failure");
		bind_num(s[S_WINDOW], 14, x, "failed_at_s");
		if ((rc = step_once(st, s[S_WINDOW], e)) < 0)
			return rc;
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(x, "metrics")) {
			sqlite3_bind_int64(s[S_WMETRIC], 1, rid);
			sqlite3_bind_int64(s[S_WMETRIC], 2, num(x, "idx"));
			sqlite3_bind_text(s[S_WMETRIC], 3, m->string, -1, SQLITE_STATIC);
			sqlite3_bind_double(s[S_WMETRIC], 4, m->valuedouble);
			if ((rc = step_once(st, s[S_WMETRIC], e)) < 0)
				return rc;
		}
	}
	return 0;
}

static int import_children(struct store *st, sqlite3_stmt **s, int64_t rid, const cJSON *run,
			   struct st_err *e)
{
	const cJSON *x, *m;
	int rc = 0;

	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, "arms")) {
		sqlite3_bind_int64(s[S_ARM], 1, rid);
		bind_str(s[S_ARM], 2, x, "name");
		bind_json(s[S_ARM], 3, cJSON_GetObjectItemCaseSensitive(x, "settings"), "{}");
		sqlite3_bind_int(s[S_ARM], 4, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "emulated")));
		bind_str(s[S_ARM], 5, x, "note");
		if ((rc = step_once(st, s[S_ARM], e)) < 0)
			return rc;
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, "trials")) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(x, "primary");
		int64_t tid;

		sqlite3_bind_int64(s[S_TRIAL], 1, rid);
		bind_str(s[S_TRIAL], 2, x, "arm");
		sqlite3_bind_int64(s[S_TRIAL], 3, num(x, "round"));
		sqlite3_bind_int64(s[S_TRIAL], 4, num(x, "seq"));
		sqlite3_bind_int(s[S_TRIAL], 5, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "warmup")));
		bind_str(s[S_TRIAL], 6, x, "status");
		bind_str(s[S_TRIAL], 7, x, "started_at");
		if (cJSON_IsNumber(p))
			sqlite3_bind_double(s[S_TRIAL], 8, p->valuedouble);
		bind_str(s[S_TRIAL], 9, x, "note");
		if ((rc = step_once(st, s[S_TRIAL], e)) < 0)
			return rc;
		tid = sqlite3_last_insert_rowid(st->db);
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(x, "metrics")) {
			sqlite3_bind_int64(s[S_METRIC], 1, tid);
			sqlite3_bind_text(s[S_METRIC], 2, m->string, -1, SQLITE_STATIC);
			sqlite3_bind_double(s[S_METRIC], 3, m->valuedouble);
			if ((rc = step_once(st, s[S_METRIC], e)) < 0)
				return rc;
		}
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, "snapshots")) {
		sqlite3_bind_int64(s[S_SNAP], 1, rid);
		bind_str(s[S_SNAP], 2, x, "taken_at");
		bind_str(s[S_SNAP], 3, x, "reason");
		bind_json(s[S_SNAP], 4, cJSON_GetObjectItemCaseSensitive(x, "settings"), "{}");
		if ((rc = step_once(st, s[S_SNAP], e)) < 0)
			return rc;
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, "changes")) {
		sqlite3_bind_int64(s[S_CHANGE], 1, rid);
		bind_str(s[S_CHANGE], 2, x, "kind");
		bind_str(s[S_CHANGE], 3, x, "name");
		bind_str(s[S_CHANGE], 4, x, "old");
		bind_str(s[S_CHANGE], 5, x, "new");
		sqlite3_bind_int(s[S_CHANGE], 6, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "temporary")));
		bind_str(s[S_CHANGE], 7, x, "created_at");
		bind_str(s[S_CHANGE], 8, x, "finished_at");
		bind_str(s[S_CHANGE], 9, x, "note");
		bind_str(s[S_CHANGE], 10, x, "state");
		if ((rc = step_once(st, s[S_CHANGE], e)) < 0)
			return rc;
	}
	if ((rc = import_windows(st, s, rid, run, e)) < 0)
		return rc;
	return import_samples(st, rid, cJSON_GetObjectItemCaseSensitive(run, "samples"), e);
}

/* Import prepares its statements once per store and keeps them until flush. */
static struct {
	sqlite3 *db;
	sqlite3_stmt *s[S_COUNT];
	struct tick_writer *ticks;	/* the samples writer, reset per run */
} cache;

static void cache_drop(void)
{
	tick_writer_free(cache.ticks);
	cache.ticks = NULL;
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(cache.s[i]);
		cache.s[i] = NULL;
	}
	cache.db = NULL;
}

/* Kept with the statements: one writer for every run of an import, NULL if out of memory. */
static struct tick_writer *cache_writer(struct store *st, int64_t rid)
{
	if (cache.ticks)
		tick_writer_reset(cache.ticks, rid);
	else
		cache.ticks = tick_writer_new(st, rid);
	return cache.ticks;
}

static int cache_get(struct store *st, sqlite3_stmt ***s, struct st_err *e)
{
	if (cache.db != st->db) {
		cache_drop();
		for (int i = 0; i < S_COUNT; i++)
			if (sqlite3_prepare_v3(st->db, import_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					       &cache.s[i], NULL) != SQLITE_OK) {
				db_err(st, e);
				cache_drop();
				return -EIO;
			}
		cache.db = st->db;
	}
	*s = cache.s;
	return 0;
}

void store_fleet_abort(struct store *st)
{
	if (cache.db == st->db)
		cache_drop();
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_fleet_flush(struct store *st, struct st_err *e)
{
	if (cache.db == st->db)
		cache_drop();
	return sqlite3_get_autocommit(st->db) ? 0 : store_exec(st, "COMMIT", e);
}

int store_fleet_import_run(struct store *st, const struct store_fleet_origin *origin,
			   const cJSON *run, const char *hash, struct st_err *e)
{
	const char *started = cJSON_GetObjectItemCaseSensitive(run, "started_at")->valuestring;
	int64_t origin_id = num(run, "id"), rid;
	sqlite3_stmt *r, **s = NULL;
	int rc;

	rc = identity_check(st, origin, origin_id, started, hash, e);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (store_prepare(st,
		"INSERT INTO runs (host_id, kind, started_at, ended_at, status, params, summary,"
		" origin_machine_id, origin_run_id, origin_started_at, origin_kind, origin_status,"
		" content_hash, kernel_fp)"
		" VALUES (?1, 'imported', ?2, ?3, 'imported', ?4, ?5, ?6, ?7, ?2, ?8, ?9, ?10, ?11)",
		&r, e) < 0)
		return -EIO;
	sqlite3_bind_int64(r, 1, origin->host_id);
	sqlite3_bind_text(r, 2, started, -1, SQLITE_STATIC);
	bind_str(r, 3, run, "ended_at");
	bind_json(r, 4, cJSON_GetObjectItemCaseSensitive(run, "params"), NULL);
	bind_json(r, 5, cJSON_GetObjectItemCaseSensitive(run, "summary"), NULL);
	sqlite3_bind_text(r, 6, origin->machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(r, 7, origin_id);
	bind_str(r, 8, run, "kind");
	bind_str(r, 9, run, "status");
	sqlite3_bind_text(r, 10, hash, -1, SQLITE_STATIC);
	/* checked by fleet_doc_parse() with fingerprint_from_json() */
	bind_json(r, 11, cJSON_GetObjectItemCaseSensitive(run, "kernel_fingerprint"), NULL);
	rc = store_step_done(st, r, e);
	sqlite3_finalize(r);
	if (rc < 0)
		return rc;
	rid = sqlite3_last_insert_rowid(st->db);
	rc = cache_get(st, &s, e);
	if (rc == 0)
		rc = import_children(st, s, rid, run, e);
	if (rc < 0)
		for (int i = 0; i < S_COUNT; i++)
			sqlite3_reset(s ? s[i] : NULL);
	return rc < 0 ? rc : 1;
}

int store_fleet_count(struct store *st, const char *table, int64_t *n, struct st_err *e)
{
	static const char *const ok[] = { "hosts", "runs", "arms", "trials", "metrics", "windows",
					  "snapshots", "changes", "samples" };
	char sql[64];
	sqlite3_stmt *s;
	bool known = false;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		known |= !strcmp(ok[i], table);
	if (!known)
		return err_set(e, -EINVAL, "no table %s", table);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	if (store_prepare(st, sql, &s, e) < 0)
		return -EIO;
	*n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	return 0;
}

/* ---- probe runs for pooling ---- */

#define JX(col, path) "(CASE WHEN json_valid(" col ") THEN json_extract(" col ", '" path "') END)"

static void copy(char *dst, size_t len, sqlite3_stmt *s, int i)
{
	snprintf(dst, len, "%s", col_str(s, i));
}

static int load_arms(struct store *st, sqlite3_stmt *a, struct fleet_run *r, struct st_err *e)
{
	int rc;

	sqlite3_bind_int64(a, 1, r->run_id);
	while ((rc = sqlite3_step(a)) == SQLITE_ROW && r->n_arms < FLEET_ARMS_MAX) {
		struct fleet_arm *x = &r->arms[r->n_arms++];
		double n, sum, sumsq;

		copy(x->name, sizeof(x->name), a, 0);
		x->n_trials = (unsigned)sqlite3_column_int(a, 1);
		x->n_ok = (unsigned)sqlite3_column_int(a, 2);
		x->n_oom = (unsigned)sqlite3_column_int(a, 3);
		n = x->n_ok;
		sum = sqlite3_column_double(a, 4);
		sumsq = sqlite3_column_double(a, 5);
		x->mean = n > 0 ? sum / n : NAN;
		x->sd = n > 1 ? sqrt(fmax(0, (sumsq - sum * sum / n) / (n - 1))) : NAN;
	}
	sqlite3_reset(a);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(st, e);
}

int store_fleet_load_runs(struct store *st, struct fleet_run **runs, size_t *n, struct st_err *e)
{
	sqlite3_stmt *q = NULL, *a = NULL;
	size_t cap = 0;
	int rc;

	*runs = NULL;
	*n = 0;
	if (store_prepare(st,
		"SELECT r.id, r.kind = 'imported', coalesce(h.machine_id, ''), coalesce(h.hostname, ''),"
		" coalesce(" JX("r.summary", "$.host.kernel") ", h.kernel, ''), coalesce(h.cpu_model, ''),"
		" coalesce(" JX("r.summary", "$.host.swap.device") ", ''),"
		" coalesce(" JX("r.summary", "$.host.swap.kind") ", ''),"
		/* a switchback's workload is the live one: named by its metric's source */
		" coalesce(" JX("r.params", "$.workload.name") ", 'live:' || " JX("r.params", "$.metric.source") ", ''),"
		" coalesce(" JX("r.params", "$.baseline") ", ''),"
		" coalesce(" JX("r.summary", "$.verdict.kind") ", " JX("r.summary", "$.decision") ", ''),"
		" coalesce(" JX("r.summary", "$.verdict.arm") ", " JX("r.summary", "$.chosen") ", ''),"
		" coalesce(" JX("r.summary", "$.primary_metric.higher_is_better") ","
		"  " JX("r.params", "$.metric.higher_better") ", 1)"
		" FROM runs r LEFT JOIN hosts h ON h.id = r.host_id"
		" WHERE coalesce(r.origin_kind, r.kind) IN ('probe', 'switchback')"
		" AND coalesce(r.origin_status, r.status) = 'ok' ORDER BY r.id", &q, e) < 0 ||
	    store_prepare(st,
		/* a probe's measured trials, or a switchback's windows (one value each) */
		"SELECT a.name, count(t.arm_id),"
		" count(t.arm_id) FILTER (WHERE t.status = 'ok' AND t.primary_value IS NOT NULL),"
		" count(t.arm_id) FILTER (WHERE t.status = 'oom'),"
		" coalesce(sum(t.primary_value) FILTER (WHERE t.status = 'ok'), 0),"
		" coalesce(sum(t.primary_value * t.primary_value) FILTER (WHERE t.status = 'ok'), 0)"
		" FROM arms a LEFT JOIN ("
		"  SELECT arm_id, status, primary_value FROM trials WHERE run_id = ?1 AND warmup = 0"
		"   AND status != 'interrupted'"
		"  UNION ALL SELECT arm_id, outcome, value FROM windows WHERE run_id = ?1) t"
		" ON t.arm_id = a.id"
		" WHERE a.run_id = ?1 GROUP BY a.id ORDER BY a.id", &a, e) < 0) {
		sqlite3_finalize(q);
		return -EIO;
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct fleet_run *r;

		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct fleet_run *p = realloc(*runs, nc * sizeof(*p));

			if (!p) {
				rc = -ENOMEM;
				break;
			}
			*runs = p;
			cap = nc;
		}
		r = &(*runs)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->run_id = sqlite3_column_int64(q, 0);
		r->imported = sqlite3_column_int(q, 1);
		copy(r->machine_id, sizeof(r->machine_id), q, 2);
		copy(r->hostname, sizeof(r->hostname), q, 3);
		copy(r->kernel, sizeof(r->kernel), q, 4);
		copy(r->cpu_model, sizeof(r->cpu_model), q, 5);
		snprintf(r->backend, sizeof(r->backend), "%s",
			 fleet_backend_name(col_str(q, 6), col_str(q, 7)));
		copy(r->workload, sizeof(r->workload), q, 8);
		copy(r->baseline, sizeof(r->baseline), q, 9);
		copy(r->verdict, sizeof(r->verdict), q, 10);
		copy(r->verdict_arm, sizeof(r->verdict_arm), q, 11);
		r->higher_is_better = sqlite3_column_int(q, 12) != 0;
		if (load_arms(st, a, r, e) < 0) {
			rc = -EIO;
			break;
		}
	}
	sqlite3_finalize(q);
	sqlite3_finalize(a);
	if (rc == SQLITE_DONE)
		return 0;
	free(*runs);
	*runs = NULL;
	*n = 0;
	if (rc == -ENOMEM)
		return err_set(e, -ENOMEM, "out of memory");
	return rc == -EIO ? -EIO : db_err(st, e);
}
