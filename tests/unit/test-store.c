/*
 * test-store.c - the SQLite store (src/store.c, src/migrations.c): creating
 * a store and its directory, migrating to the latest schema, reopening,
 * refusing a schema newer than this build, unwritable paths, hosts, runs
 * and the snapshot round trip; the journal's rows (src/store-changes.c),
 * transactions, and the run and snapshot queries of the change commands
 * (src/store-runs.c), sample recordings (src/store-samples.c). Every store
 * lives in a private /tmp dir.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "../../src/store-int.h"

#include "swaptune/migrations.h"
#include "swaptune/store.h"

static char dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	fx_scratch(dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fx_remove(dir);
	return 0;
}

static void path_in(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", dir, rel);
}

/* One integer from a query with no parameters. */
static long long query_int(struct store *st, const char *sql)
{
	sqlite3_stmt *stmt;
	long long v = -1;

	assert_int_equal(store_prepare(st, sql, &stmt, NULL), 0);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}

static void test_open_migrate(void **state)
{
	static const char *const tables[] = {
		"hosts", "runs", "snapshots", "changes", "arms", "trials", "metrics", "samples",
	};
	struct st_err e = {0};
	struct store st;
	char path[PATH_MAX], sql[128];

	(void)state;
	/* the directory is made as needed */
	path_in(path, "a/b/swaptune.db");
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_true(migrations_latest() >= 1);
	assert_int_equal(store_schema_version(&st), migrations_latest());
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", tables[i]);
		assert_int_equal(query_int(&st, sql), 1);
	}
	assert_int_equal(query_int(&st, "SELECT count(*) FROM changes"), 0);
	{
		sqlite3_stmt *stmt;

		assert_int_equal(store_prepare(&st, "PRAGMA journal_mode", &stmt, NULL), 0);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "wal");
		sqlite3_finalize(stmt);
	}
	/* applying again is a no-op */
	assert_int_equal(migrations_apply(&st, &e), 0);
	assert_int_equal(store_schema_version(&st), migrations_latest());
	assert_int_equal(store_register_host(&st, "m1", "host1", "6.18", &e), 0);
	assert_true(st.host_id > 0);
	store_close(&st);

	/* reopen: same schema, the data is still there */
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_int_equal(store_schema_version(&st), migrations_latest());
	assert_int_equal(query_int(&st, "SELECT count(*) FROM hosts WHERE hostname = 'host1'"), 1);
	store_close(&st);
}

static void test_newer_schema(void **state)
{
	struct st_err e = {0};
	struct store st;
	sqlite3 *db;
	char path[PATH_MAX], sql[64], msg[ST_ERR_MSG_MAX];

	(void)state;
	path_in(path, "future.db");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", migrations_latest() + 1);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	assert_true(store_open(&st, path, &e) < 0);
	assert_int_equal(e.code, -EPROTO);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	snprintf(msg, sizeof(msg),
		 "database schema %d is newer than this swaptune understands (%d): upgrade swaptune",
		 migrations_latest() + 1, migrations_latest());
	assert_string_equal(e.msg, msg);
	assert_null(st.db);

	/* the file was left alone */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	{
		sqlite3_stmt *stmt;

		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(stmt, 0), migrations_latest() + 1);
		sqlite3_finalize(stmt);
	}
	sqlite3_close(db);
}

/* a crafted store: a negative schema version is refused before any statement runs */
static void test_negative_schema(void **state)
{
	static const int versions[] = { -2147483647 - 1, -1, -5 };

	(void)state;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct st_err e = {0};
		struct store st;
		sqlite3 *db;
		sqlite3_stmt *stmt;
		char path[PATH_MAX], sql[64];

		path_in(path, "negative.db");
		unlink(path);
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", versions[i]);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);

		assert_true(store_open(&st, path, &e) < 0);
		assert_int_equal(e.code, -EBADMSG);
		assert_int_equal(err_exit_status(&e), ST_EXIT_RUNTIME);
		assert_non_null(strstr(e.msg, "is damaged: schema version"));
		assert_null(st.db);

		/* the file was left alone: same version, not switched to WAL */
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(stmt, 0), versions[i]);
		sqlite3_finalize(stmt);
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "delete");
		sqlite3_finalize(stmt);
		sqlite3_close(db);
	}
}

static void test_unwritable(void **state)
{
	struct st_err e = {0};
	struct store st;
	char path[PATH_MAX];

	(void)state;
	assert_true(store_open(&st, "/proc/swaptune-unit-test.db", &e) < 0);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	assert_non_null(strstr(e.msg, "cannot open database /proc/swaptune-unit-test.db"));
	assert_non_null(strstr(e.msg, "use --db PATH"));
	assert_int_equal(access("/proc/swaptune-unit-test.db", F_OK), -1);

	err_reset(&e);
	fx_write(dir, "plain", "");
	path_in(path, "plain/x.db");
	assert_int_equal(store_open(&st, path, &e), -ENOTDIR);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	err_reset(&e);
	path_in(path, "plain/sub/x.db");
	assert_int_equal(store_open(&st, path, &e), -ENOTDIR);
	assert_non_null(strstr(e.msg, "cannot create database directory"));
}

static void test_runs_hosts(void **state)
{
	struct st_err e = {0};
	struct store st;
	char path[PATH_MAX];
	int64_t id1, id2, host;

	(void)state;
	path_in(path, "runs.db");
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_int_equal(store_register_host(&st, "mid", "h", "6.8", &e), 0);
	host = st.host_id;
	assert_int_equal(store_register_host(&st, "mid", "h", "6.18", &e), 0);
	assert_int_equal(st.host_id, host);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM hosts"), 1);
	assert_int_equal(query_int(&st, "SELECT kernel = '6.18' FROM hosts"), 1);

	assert_int_equal(store_run_begin(&st, "probe", "{\"arms\":2}", &id1, &e), 0);
	assert_int_equal(store_run_begin(&st, "sample", NULL, &id2, &e), 0);
	assert_true(id2 > id1);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM runs WHERE status = 'running'"), 2);
	assert_int_equal(query_int(&st, "SELECT pid FROM runs ORDER BY id LIMIT 1"), getpid());
	assert_int_equal(store_run_end(&st, id1, "ok", "{\"verdict\":\"pc0\"}", &e), 0);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM runs WHERE status = 'ok'"
				   " AND ended_at IS NOT NULL AND summary LIKE '%pc0%'"), 1);
	assert_int_equal(query_int(&st, "SELECT host_id FROM runs ORDER BY id LIMIT 1"), host);
	assert_int_equal(store_exec(&st, "BEGIN", &e), 0);
	assert_int_equal(store_exec(&st, "COMMIT", &e), 0);
	assert_int_equal(store_exec(&st, "NOT SQL", &e), -EIO);
	assert_non_null(strstr(e.msg, path));
	store_close(&st);
}

static void test_snapshot_round_trip(void **state)
{
	struct settings_snapshot in, out;
	struct st_err e = {0};
	struct store st;
	struct host h;
	char path[PATH_MAX];
	int64_t run, snap, snap2;

	(void)state;
	path_in(path, "snap.db");
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_int_equal(store_run_begin(&st, "apply", NULL, &run, &e), 0);

	/* a real snapshot of a fixture, with absent (null) zswap settings */
	fx_host(&h, "no-zswap");
	assert_int_equal(settings_snapshot(&h, &in, &e), 0);
	host_close(&h);
	assert_int_equal(store_snapshot_save(&st, run, "before", &in, &snap, &e), 0);
	assert_true(snap > 0);
	assert_int_equal(store_snapshot_load(&st, snap, &out, &e), 0);
	assert_int_equal(out.n, in.n);
	for (int i = 0; i < in.n; i++) {
		assert_string_equal(out.items[i].name, in.items[i].name);
		assert_int_equal(out.items[i].present, in.items[i].present);
		if (in.items[i].present)
			assert_string_equal(out.items[i].value, in.items[i].value);
	}
	assert_string_equal(settings_snapshot_get(&out, "page-cluster")->value, "3");
	assert_false(settings_snapshot_get(&out, "zswap.enabled")->present);

	fx_host(&h, "v2-zswap-on");
	assert_int_equal(settings_snapshot(&h, &in, &e), 0);
	host_close(&h);
	assert_int_equal(store_snapshot_save(&st, 0, "no run", &in, &snap2, &e), 0);
	assert_int_equal(store_snapshot_load(&st, snap2, &out, &e), 0);
	assert_string_equal(settings_snapshot_get(&out, "zswap.compressor")->value, "zstd");
	assert_int_equal(query_int(&st, "SELECT count(*) FROM snapshots WHERE run_id IS NULL"), 1);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM snapshots WHERE reason = 'before'"), 1);

	assert_int_equal(store_snapshot_load(&st, snap2 + 100, &out, &e), -ENOENT);
	err_reset(&e);
	/* a damaged row is reported, not trusted */
	assert_int_equal(store_exec(&st, "UPDATE snapshots SET settings = '{bad' WHERE id = 1", &e), 0);
	assert_int_equal(store_snapshot_load(&st, 1, &out, &e), -EBADMSG);
	store_close(&st);
}

/* A change row of session s under sysroot root. */
static void add_change(struct store *st, int64_t run, const char *s, const char *root,
		       const char *kind, const char *name, const char *old, const char *nw,
		       int64_t *id)
{
	struct store_change *c = calloc(1, sizeof(*c));
	struct st_err e = {0};

	assert_non_null(c);
	c->run_id = run;
	snprintf(c->session, sizeof(c->session), "%s", s);
	c->pid = 4242;
	c->pid_start = 77;
	snprintf(c->sysroot, sizeof(c->sysroot), "%s", root);
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->has_old = old != NULL;
	snprintf(c->old_value, sizeof(c->old_value), "%s", old ? old : "");
	c->has_new = nw != NULL;
	snprintf(c->new_value, sizeof(c->new_value), "%s", nw ? nw : "");
	c->temporary = true;
	assert_int_equal(store_change_add(st, c, id, &e), 0);
	free(c);
}

static void test_change_rows(void **state)
{
	struct st_err e = {0};
	struct store st;
	struct store_change *rows;
	char path[PATH_MAX];
	int64_t run, a, b, c, d;
	int n, moved;

	(void)state;
	path_in(path, "changes.db");
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_int_equal(store_run_begin(&st, "apply", NULL, &run, &e), 0);
	add_change(&st, run, "s1", "/", "setting", "page-cluster", "3", "0", &a);
	add_change(&st, run, "s1", "/", "persist-file", "etc/x.conf", NULL, NULL, &b);
	add_change(&st, 0, "s2", "/fx", "setting", "page-cluster", "3", "1", &c);
	add_change(&st, run, "s1", "/", "persist-dir", "etc/swaptune", NULL, NULL, &d);
	assert_true(a < b && b < c && c < d);

	/* pending, newest first, by session or by sysroot */
	assert_int_equal(store_changes_pending(&st, "s1", NULL, &rows, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(rows[0].id, d);
	assert_int_equal(rows[2].id, a);
	assert_string_equal(rows[2].old_value, "3");
	assert_true(rows[2].has_old && rows[2].has_new && rows[2].temporary);
	assert_false(rows[1].has_old || rows[1].has_new || rows[1].has_finished);
	assert_int_equal(rows[2].pid, 4242);
	assert_int_equal(rows[2].pid_start, 77);
	assert_int_equal(rows[2].run_id, run);
	assert_string_equal(rows[2].state, "pending");
	free(rows);
	assert_int_equal(store_changes_pending(&st, NULL, "/fx", &rows, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].id, c);
	assert_int_equal(rows[0].run_id, 0);
	free(rows);

	/* a resource done, a row finished with a note */
	assert_int_equal(store_changes_resource_done(&st, "s1", "persist-file", "etc/x.conf", &e), 0);
	assert_int_equal(store_change_finish(&st, c, "superseded", "someone else", &e), 0);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM changes WHERE state = 'restored'"
				   " AND finished_at IS NOT NULL"), 1);
	assert_int_equal(store_changes_count_pending(&st, "s1", &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(store_changes_count_pending(&st, "s2", &n, &e), 0);
	assert_int_equal(n, 0);

	/* hand over, then commit */
	assert_int_equal(store_changes_transfer(&st, "s1", 99, 5, &moved, &e), 0);
	assert_int_equal(moved, 2);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM changes WHERE pid = 99 AND pid_start = 5"), 2);
	assert_int_equal(store_changes_commit_session(&st, "s1", &moved, &e), 0);
	assert_int_equal(moved, 2);
	assert_int_equal(store_changes_committed(&st, "s1", &rows, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].id, a);
	assert_false(rows[0].temporary);
	assert_true(rows[0].has_finished);
	free(rows);

	/* every row of a run; committed persist rows from a run on */
	assert_int_equal(store_changes_of_run(&st, run, &rows, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(rows[0].id, a);
	free(rows);
	assert_int_equal(store_changes_since_run(&st, &(struct store_changes_since){
							 .sysroot = "/", .min_run_id = run,
							 .kind1 = "persist-file", .kind2 = "persist-dir" },
						 &rows, &n, &e), 0);
	assert_int_equal(n, 1);	/* the file row was restored, not committed */
	assert_string_equal(rows[0].name, "etc/swaptune");
	free(rows);
	assert_int_equal(store_changes_since_run(&st, &(struct store_changes_since){
							 .sysroot = "/", .min_run_id = run + 1,
							 .kind1 = "persist-file", .kind2 = "persist-dir" },
						 &rows, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_null(rows);
	assert_int_equal(store_changes_of_run(&st, 0, &rows, &n, &e), 0);
	assert_int_equal(n, 0);
	{
		struct store_change *all;
		int n_all;

		/* the note and its state, as history shows them */
		assert_int_equal(store_changes_pending(&st, NULL, "/fx", &all, &n_all, &e), 0);
		assert_int_equal(n_all, 0);
		assert_int_equal(query_int(&st, "SELECT count(*) FROM changes WHERE note = 'someone else'"), 1);
	}

	/* transactions */
	assert_int_equal(store_tx_begin(&st, &e), 0);
	add_change(&st, 0, "s3", "/", "setting", "page-cluster", "3", "0", &a);
	store_tx_rollback(&st);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM changes WHERE session = 's3'"), 0);
	assert_int_equal(store_tx_begin(&st, &e), 0);
	add_change(&st, 0, "s3", "/", "setting", "page-cluster", "3", "0", &a);
	assert_int_equal(store_tx_commit(&st, &e), 0);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM changes WHERE session = 's3'"), 1);
	assert_int_equal(store_tx_commit(&st, &e), -EIO);	/* no transaction open */
	store_close(&st);
}

/* A run of kind with params and status, as the commands leave them. */
static int64_t add_run(struct store *st, const char *kind, const char *params, const char *status)
{
	struct st_err e = {0};
	int64_t id;

	assert_int_equal(store_run_begin(st, kind, params, &id, &e), 0);
	if (status)
		assert_int_equal(store_run_end(st, id, status, NULL, &e), 0);
	return id;
}

static void test_change_run_queries(void **state)
{
	struct st_err e = {0};
	struct store st;
	struct settings_snapshot s = { 0 };
	struct store_snapshot_info si;
	struct store_apply_ref ar;
	struct store_awaiting aw;
	struct store_run *runs;
	struct store_snapshot_row *snaps;
	char path[PATH_MAX], status[32];
	int64_t probe, ap1, ap2, rb, snap, last, row;
	int n;

	(void)state;
	path_in(path, "change-runs.db");
	assert_int_equal(store_open(&st, path, &e), 0);
	assert_int_equal(store_runs_apply_in_effect(&st, &ar, &e), 0);
	assert_int_equal(store_snapshot_before_apply_in_effect(&st, &si, &e), 0);
	assert_int_equal(store_runs_last_confirm_apply(&st, &last, status, sizeof(status), &e), 0);

	probe = add_run(&st, "probe", "{\"workload\":\"anon-runs\"}", "ok");
	ap1 = add_run(&st, "apply", "{\"source_run\":1,\"arm\":\"pc0\"}", "ok");
	assert_int_equal(probe, 1);
	assert_int_equal(store_snapshot_save(&st, ap1, "before apply", &s, &snap, &e), 0);
	assert_int_equal(store_runs_apply_in_effect(&st, &ar, &e), 1);
	assert_int_equal(ar.apply_run, ap1);
	assert_int_equal(ar.probe_run, probe);
	assert_string_equal(ar.arm, "pc0");
	assert_int_equal(store_snapshot_before_apply_in_effect(&st, &si, &e), 1);
	assert_int_equal(si.id, snap);
	assert_int_equal(si.run_id, ap1);
	assert_string_equal(si.reason, "before apply");
	assert_true(si.taken_at[0] != '\0');
	assert_int_equal(store_snapshot_info(&st, snap, &si, &e), 1);
	assert_int_equal(store_snapshot_info(&st, snap + 9, &si, &e), 0);

	/* rolled back to before ap1: nothing in effect */
	rb = add_run(&st, "rollback", "{\"to\":1,\"to_run\":2}", "ok");
	assert_int_equal(store_runs_apply_in_effect(&st, &ar, &e), 0);
	assert_int_equal(store_snapshot_before_apply_in_effect(&st, &si, &e), 0);

	/* an apply awaiting confirmation, with one pending row under "/" */
	ap2 = add_run(&st, "apply", "{\"confirm_deadline_unix\":1234.5}", "awaiting-confirm");
	add_change(&st, ap2, "w1", "/", "setting", "page-cluster", "3", "0", &row);
	assert_int_equal(store_runs_awaiting_confirm(&st, "/fx", &aw, &e), 0);
	assert_int_equal(store_runs_awaiting_confirm(&st, "/", &aw, &e), 1);
	assert_int_equal(aw.run_id, ap2);
	assert_string_equal(aw.session, "w1");
	assert_int_equal(aw.pid, 4242);
	assert_int_equal(aw.n_rows, 1);
	assert_true(aw.deadline == 1234.5);
	assert_int_equal(store_runs_settle_confirms(&st, &e), 0);
	assert_int_equal(store_runs_awaiting_confirm(&st, "/", &aw, &e), 1);	/* still pending */
	assert_int_equal(store_change_finish(&st, row, "restored", NULL, &e), 0);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM changes WHERE state = 'pending'"), 0);
	assert_int_equal(store_runs_settle_confirms(&st, &e), 0);
	assert_int_equal(store_runs_awaiting_confirm(&st, "/", &aw, &e), 0);
	assert_int_equal(store_runs_last_confirm_apply(&st, &last, status, sizeof(status), &e), 1);
	assert_int_equal(last, ap2);
	assert_string_equal(status, "reverted");

	/* history: apply and rollback runs unless all, newest first */
	assert_int_equal(store_runs_list(&st, &(struct store_runs_which){ "apply", "rollback", 20 },
					 &runs, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(runs[0].id, ap2);
	assert_int_equal(runs[1].id, rb);
	assert_string_equal(runs[1].kind, "rollback");
	assert_string_equal(runs[1].params, "{\"to\":1,\"to_run\":2}");
	assert_true(runs[1].ended_at[0] != '\0');
	store_runs_free(runs, n);
	assert_int_equal(store_runs_list(&st, &(struct store_runs_which){ .limit = 2 }, &runs, &n, &e), 0);
	assert_int_equal(n, 2);
	store_runs_free(runs, n);
	add_run(&st, "sample", NULL, NULL);
	assert_int_equal(store_runs_list(&st, &(struct store_runs_which){ .limit = 1 }, &runs, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_null(runs[0].params);		/* none stored */
	assert_string_equal(runs[0].ended_at, "");
	store_runs_free(runs, n);
	assert_int_equal(store_snapshots_of_run(&st, ap1, &snaps, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(snaps[0].info.id, snap);
	assert_string_equal(snaps[0].settings, "{}");
	store_snapshot_rows_free(snaps, n);
	store_close(&st);
}

static void test_default_path(void **state)
{
	char out[PATH_MAX];
	struct st_err e = {0};

	(void)state;
	assert_int_equal(store_default_path(out, sizeof(out), &e), 0);
	if (geteuid() == 0)
		assert_string_equal(out, "/var/lib/swaptune/swaptune.db");
	else
		assert_non_null(strstr(out, "swaptune/swaptune.db"));
}

struct collect {
	int n;
	uint64_t seq[8], t_ns[8];
	char json[8][64];
	int stop_after;
};

static int collect_row(const struct store_tick *row, void *arg)
{
	struct collect *c = arg;
	size_t len;
	const char *json = store_tick_json(row, &len);

	c->seq[c->n] = row->seq;
	c->t_ns[c->n] = row->t_ns;
	snprintf(c->json[c->n], sizeof(c->json[0]), "%.*s", (int)len, json);
	c->n++;
	return c->stop_after && c->n >= c->stop_after ? 1 : 0;
}

static int fail_row(const struct store_tick *row, void *arg)
{
	(void)row;
	return err_set(arg, -ECANCELED, "stop");
}

/* sample --record: begin/add/end, read back in order, and the listing. */
static void test_samples(void **state)
{
	struct sample_recording rec, rec2;
	struct store_sample_run runs[4];
	struct collect c = { 0 };
	struct st_err e = {0};
	struct store st;
	char db[PATH_MAX];
	int64_t other;
	int n;

	(void)state;
	path_in(db, "s.db");
	assert_int_equal(store_open(&st, db, &e), 0);
	assert_int_equal(store_samples_begin(&rec, &st, "{\"interval_s\":1}", &e), 0);
	/* stored out of order on purpose: read back by seq */
	assert_int_equal(store_samples_add_json(&rec, 2, 3000, "{\"seq\":2}", &e), 0);
	assert_int_equal(store_samples_add_json(&rec, 1, 1000, "{\"seq\":1}", &e), 0);
	assert_int_equal(store_samples_add_json(&rec, 3, 5500, "{\"seq\":3}", &e), 0);
	assert_int_equal(rec.rows, 3);
	assert_int_equal(store_samples_add_json(&rec, 3, 6000, "{}", &e), -EIO);	/* same seq */
	err_reset(&e);
	assert_int_equal(store_samples_end(&rec, "ok", "{\"ticks\":3}", &e), 0);
	assert_int_equal(store_samples_add_json(&rec, 4, 7000, "{}", &e), -EINVAL);
	err_reset(&e);
	assert_int_equal(store_samples_begin(&rec2, &st, NULL, &e), 0);	/* still running */
	assert_int_equal(store_run_begin(&st, "probe", NULL, &other, &e), 0);

	assert_int_equal(store_samples_read(&st, rec.run_id, collect_row, &c, &e), 3);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.seq[0], 1);
	assert_int_equal(c.t_ns[0], 1000);
	assert_string_equal(c.json[0], "{\"seq\":1}");
	assert_int_equal(c.seq[2], 3);
	assert_int_equal(c.t_ns[2], 5500);
	memset(&c, 0, sizeof(c));
	c.stop_after = 2;
	assert_int_equal(store_samples_read(&st, rec.run_id, collect_row, &c, &e), 2);
	assert_int_equal(store_samples_read(&st, rec.run_id, fail_row, &e, &e), -ECANCELED);
	err_reset(&e);
	assert_int_equal(store_samples_read(&st, other, collect_row, &c, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "not a sample recording"));
	err_reset(&e);
	assert_int_equal(store_samples_read(&st, rec2.run_id, collect_row, &c, &e), 0);

	assert_int_equal(store_sample_runs(&st, false, runs, 4, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_true(runs[0].run_id == rec2.run_id);	/* newest first */
	assert_string_equal(runs[0].status, "running");
	assert_int_equal(runs[0].ticks, 0);
	assert_int_equal(runs[0].duration_ns, 0);
	assert_string_equal(runs[0].ended_at, "");
	assert_true(runs[1].run_id == rec.run_id);
	assert_string_equal(runs[1].status, "ok");
	assert_string_equal(runs[1].params, "{\"interval_s\":1}");
	assert_int_equal(runs[1].ticks, 3);
	assert_int_equal(runs[1].first_t_ns, 1000);
	assert_int_equal(runs[1].last_t_ns, 5500);
	assert_int_equal(runs[1].duration_ns, 4500);
	assert_true(runs[1].ended_at[0] != '\0');
	assert_int_equal(store_sample_runs(&st, false, runs, 1, &n, &e), 0);
	assert_int_equal(n, 1);
	/* with_ticks (history --all): the recording without a tick is left out */
	assert_int_equal(store_sample_runs(&st, true, runs, 4, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(runs[0].run_id == rec.run_id);
	assert_int_equal(runs[0].last_t_ns, 5500);
	store_samples_end(&rec2, "interrupted", NULL, &e);
	store_close(&st);
}

static int alive_pid = 0;

/* what test_tick_keys reads of its tick */
struct keyed {
	int n;
	bool ok[2], has[2];
	double v[2], c[2];
	const char *mkey[2], *ckey[2];
};

static int keyed_row(const struct store_tick *row, void *arg)
{
	struct keyed *k = arg;

	for (int i = 0; i < 2; i++) {
		k->ok[i] = store_tick_number(row, store_tick_slot(row, "vmstat", k->mkey[i]), &k->v[i]);
		k->has[i] = store_tick_number(row, store_tick_slot(row, "counters", k->ckey[i]), &k->c[i]);
	}
	k->n++;
	return 0;
}

/*
 * A numbers row's bits stand for the keys its strings row spells, in that
 * row's order, not for the vocabulary's enum order (vocab-rows.h gains and
 * moves rows): a store whose strings row lists two vmstat values and two
 * counters in the reverse of the enum's order, and nothing else, reads
 * each number under its own key. The row is spelled out byte by byte, so
 * it is the stored layout under test, whatever the writer does.
 */
static void test_tick_keys(void **state)
{
	struct sample_recording rec;
	struct keyed k = { 0 };
	struct st_err e = {0};
	struct store st;
	char db[PATH_MAX], line[1024], sql[1400];
	/* version, flags, seq gap 1, wall_ms +0, elapsed, interval, page_size 4096 */
	static const uint8_t row[] = {
		1, 0, 1, 0, 0, 0, 0x80, 0x20,
		0x03, 0x03, 0x00,	/* both values present, both counters, none as before */
		7 << 3, 9 << 3,		/* whole 7 (the first key), whole 9 (the second) */
		0xc8, 0x01, 0xd8, 0x04,	/* counters +100 (first key), +300 (second) */
	};
	int m[2] = { -1, -1 }, c[2] = { 0, 1 };
	sqlite3_stmt *s;

	(void)state;
	for (int i = 0, n = 0; i < SM_COUNT && n < 2; i++)
		if (sample_metric_defs[i].group == SG_VMSTAT)
			m[n++] = i;
	assert_true(m[1] > m[0] && m[0] >= 0);
	/* the strings row lists the later row first */
	k.mkey[0] = sample_metric_defs[m[1]].key;
	k.mkey[1] = sample_metric_defs[m[0]].key;
	k.ckey[0] = sample_counter_defs[c[1]].key;
	k.ckey[1] = sample_counter_defs[c[0]].key;
	snprintf(line, sizeof(line),
		 "{\"schema\":\"" SAMPLE_SCHEMA "\",\"seq\":0,\"time\":\"2026-01-01T00:00:00.000Z\","
		 "\"elapsed_s\":0.000000,\"interval_s\":0.000000,\"page_size\":0,"
		 "\"vmstat\":{\"%s\":null,\"%s\":null},\"zswap\":{},\"psi\":{},\"meminfo\":{},"
		 "\"cpu\":{\"source\":\"none\",\"target\":\"none\",\"note\":null},\"derived\":{},"
		 "\"counters\":{\"%s\":null,\"%s\":null},\"unavailable\":{}}",
		 k.mkey[0], k.mkey[1], k.ckey[0], k.ckey[1]);
	path_in(db, "k.db");
	assert_int_equal(store_open(&st, db, &e), 0);
	assert_int_equal(store_samples_begin(&rec, &st, NULL, &e), 0);
	snprintf(sql, sizeof(sql), "INSERT INTO sample_shapes (id, run_id, tick, kind)"
		 " VALUES (1, %lld, ?1, 1)", (long long)rec.run_id);
	assert_int_equal(store_prepare(&st, sql, &s, &e), 0);
	sqlite3_bind_text(s, 1, line, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	snprintf(sql, sizeof(sql), "INSERT INTO samples (run_id, seq, t_ns, data, shape_id, vals)"
		 " VALUES (%lld, 1, 0, '', 1, ?1)", (long long)rec.run_id);
	assert_int_equal(store_prepare(&st, sql, &s, &e), 0);
	sqlite3_bind_blob(s, 1, row, sizeof(row), SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	assert_int_equal(store_samples_end(&rec, "ok", NULL, &e), 0);

	assert_int_equal(store_samples_read(&st, rec.run_id, keyed_row, &k, &e), 1);
	assert_int_equal(k.n, 1);
	assert_true(k.ok[0] && k.ok[1] && k.has[0] && k.has[1]);
	assert_true(k.v[0] == 7 && k.v[1] == 9);
	assert_true(k.c[0] == 100 && k.c[1] == 300);
	store_close(&st);
}

/* a varint (LEB128) into p: its length */
static size_t put_leb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/*
 * What fuzz-tick-numbers found (tests/fuzz/regress/fuzz-tick-numbers/):
 * a fraction of an integral key was stored as its "%.10g" digits, which
 * "%.0f" of the line need not keep (243269632.50000003 printed 243269633,
 * read back 243269632); a row whose elapsed, interval or time in ns does
 * not fit 64 bits decoded as a wrapped number instead of a damaged row.
 */
static void test_tick_numbers_extremes(void **state)
{
	struct tick_keys k = { 0 };
	struct tick_prev wr = { 0 }, rd = { 0 };
	struct sample_tick t = { .seq = 1, .page_size = 4096 }, back = { .seq = 1 };
	uint8_t row[TICK_ROW_MAX];
	char want[8192], got[8192];
	int m = -1;
	size_t n;

	(void)state;
	for (int i = 0; i < SM_COUNT && m < 0; i++)
		if (sample_metric_defs[i].integral)
			m = i;
	assert_true(m >= 0);
	k.m[k.n_m++] = (uint16_t)m;
	t.ok[m] = true;
	t.val[m] = 243269632.50000003;
	assert_true(sample_tick_json(&t, want, sizeof(want)) > 0);
	assert_non_null(strstr(want, ":243269633"));
	n = tick_numbers_encode(&t, &k, &wr, row);
	assert_int_equal(tick_numbers_decode(row, n, &k, &rd, &back), 0);
	tick_numbers_cook(&rd, &back);
	assert_true(sample_tick_json(&back, got, sizeof(got)) > 0);
	assert_string_equal(got, want);

	/* version, flags, seq gap 1, wall_ms +ms, elapsed us, interval us, page_size; no keys */
	for (int which = 0; which < 3; which++) {
		struct tick_keys none = { 0 };
		struct tick_prev p = { 0 };
		struct sample_tick x = { .seq = 1 };
		uint64_t big[3] = { 0, 0, 0 };

		big[which] = which == 0 ? UINT64_MAX / 1000000 + 1 : UINT64_MAX / 1000 + 1;
		n = 0;
		row[n++] = 1;
		row[n++] = 0;
		row[n++] = 1;
		n += put_leb(row + n, big[0] << 1);	/* zigzag of a positive delta */
		n += put_leb(row + n, big[1]);
		n += put_leb(row + n, big[2]);
		row[n++] = 0;
		assert_int_equal(tick_numbers_decode(row, n, &none, &p, &x), -EBADMSG);
		/* one less fits: the same row otherwise decodes */
		big[which]--;
		n = 3;
		n += put_leb(row + n, big[0] << 1);
		n += put_leb(row + n, big[1]);
		n += put_leb(row + n, big[2]);
		row[n++] = 0;
		memset(&p, 0, sizeof(p));
		assert_int_equal(tick_numbers_decode(row, n, &none, &p, &x), 0);
	}
}

static bool fake_alive(int pid)
{
	return pid == alive_pid;
}

/* Runs left "running" by a process that is gone end as interrupted; others stay. */
static void test_runs_end_orphans(void **state)
{
	struct st_err e = {0};
	struct store st;
	char path[PATH_MAX];
	int64_t live, dead, old_boot, other, done;
	int ended = -1;
	const struct store_orphan_test test = {
		.machine_id = "mid", .boot_id = "boot2", .alive = fake_alive
	};

	(void)state;
	path_in(path, "orphans.db");
	assert_int_equal(store_open(&st, path, &e), 0);
	store_set_identity(&st, "mid", "boot2");
	assert_int_equal(store_run_begin(&st, "probe", NULL, &live, &e), 0);
	assert_int_equal(store_run_begin(&st, "sample", NULL, &dead, &e), 0);
	assert_int_equal(store_run_begin(&st, "sample", NULL, &old_boot, &e), 0);
	assert_int_equal(store_run_begin(&st, "sample", NULL, &other, &e), 0);
	assert_int_equal(store_run_begin(&st, "apply", NULL, &done, &e), 0);
	assert_int_equal(store_run_end(&st, done, "ok", NULL, &e), 0);
	assert_int_equal(store_exec(&st, "UPDATE runs SET pid = 999999 WHERE id > 1", &e), 0);
	assert_int_equal(store_exec(&st, "UPDATE runs SET pid = 4242 WHERE id = 1", &e), 0);
	assert_int_equal(store_exec(&st, "UPDATE runs SET boot_id = 'boot1', pid = 4242 WHERE id = 3", &e), 0);
	assert_int_equal(store_exec(&st, "UPDATE runs SET machine_id = 'other' WHERE id = 4", &e), 0);
	alive_pid = 4242;

	assert_int_equal(store_runs_end_orphans(&st, &test, &ended, &e), 0);
	assert_int_equal(ended, 2);
	assert_int_equal(query_int(&st, "SELECT status = 'running' FROM runs WHERE id = 1"), 1);
	assert_int_equal(query_int(&st, "SELECT status = 'interrupted' AND ended_at IS NOT NULL"
				   " FROM runs WHERE id = 2"), 1);
	/* an earlier boot's run is gone even though its pid is alive now */
	assert_int_equal(query_int(&st, "SELECT status = 'interrupted' FROM runs WHERE id = 3"), 1);
	assert_int_equal(query_int(&st, "SELECT status = 'running' FROM runs WHERE id = 4"), 1);
	assert_int_equal(query_int(&st, "SELECT status = 'ok' FROM runs WHERE id = 5"), 1);
	/* a second pass finds nothing */
	assert_int_equal(store_runs_end_orphans(&st, &test, &ended, &e), 0);
	assert_int_equal(ended, 0);
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_migrate),
		cmocka_unit_test(test_newer_schema),
		cmocka_unit_test(test_negative_schema),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_runs_hosts),
		cmocka_unit_test(test_snapshot_round_trip),
		cmocka_unit_test(test_change_rows),
		cmocka_unit_test(test_change_run_queries),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_tick_keys),
		cmocka_unit_test(test_tick_numbers_extremes),
		cmocka_unit_test(test_runs_end_orphans),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
