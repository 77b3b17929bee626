/*
 * test-store.c - the SQLite store (src/store.c, src/migrations.c): creating
 * a store and its directory, migrating to the latest schema, reopening,
 * refusing a schema newer than this build, unwritable paths, hosts, runs
 * and the snapshot round trip. Every store lives in a private /tmp dir.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "../../src/store-int.h"

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
	assert_int_equal(migrations_apply(st.db, &e), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_migrate),
		cmocka_unit_test(test_newer_schema),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_runs_hosts),
		cmocka_unit_test(test_snapshot_round_trip),
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
