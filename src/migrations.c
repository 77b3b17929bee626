/*
 * migrations.c - the store's schema, as an ordered list of forward
 * migrations. Never edit a released step: append a new one.
 */
#include <stdio.h>
#include <string.h>

#include "store-err.h"
#include "swaptune/migrations.h"

static const char *const migrations[] = {
	/* 1: foundation */
	"CREATE TABLE hosts ("
	"  id INTEGER PRIMARY KEY,"
	"  machine_id TEXT NOT NULL,"
	"  hostname TEXT NOT NULL,"
	"  kernel TEXT,"
	"  first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	"  last_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	"  UNIQUE (machine_id, hostname));"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  host_id INTEGER REFERENCES hosts(id),"
	"  kind TEXT NOT NULL,"
	"  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	"  ended_at TEXT,"
	"  status TEXT NOT NULL DEFAULT 'running',"
	"  pid INTEGER,"
	"  params TEXT,"
	"  summary TEXT);"
	"CREATE INDEX runs_kind ON runs(kind, id);"
	"CREATE TABLE snapshots ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER REFERENCES runs(id),"
	"  taken_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	"  reason TEXT NOT NULL,"
	"  settings TEXT NOT NULL);"
	/* the journal: a row is written before the kernel file is */
	"CREATE TABLE changes ("
	"  id INTEGER PRIMARY KEY,"
	"  session TEXT NOT NULL,"
	"  run_id INTEGER REFERENCES runs(id),"
	"  pid INTEGER NOT NULL,"
	"  pid_start INTEGER NOT NULL,"
	"  sysroot TEXT NOT NULL,"
	"  kind TEXT NOT NULL DEFAULT 'setting',"
	"  name TEXT NOT NULL,"
	"  old_value TEXT,"
	"  new_value TEXT,"
	"  temporary INTEGER NOT NULL,"
	"  state TEXT NOT NULL,"
	"  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	"  finished_at TEXT,"
	"  note TEXT);"
	"CREATE INDEX changes_pending ON changes(state, sysroot);"
	/* probe results */
	"CREATE TABLE arms ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  name TEXT NOT NULL,"
	"  settings TEXT NOT NULL,"
	"  emulated INTEGER NOT NULL DEFAULT 0,"
	"  note TEXT,"
	"  UNIQUE (run_id, name));"
	"CREATE TABLE trials ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  arm_id INTEGER NOT NULL REFERENCES arms(id),"
	"  round INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  warmup INTEGER NOT NULL DEFAULT 0,"
	"  status TEXT NOT NULL,"
	"  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	"  primary_value REAL,"
	"  note TEXT);"
	"CREATE INDEX trials_run ON trials(run_id, arm_id);"
	"CREATE TABLE metrics ("
	"  trial_id INTEGER NOT NULL REFERENCES trials(id),"
	"  key TEXT NOT NULL,"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (trial_id, key)) WITHOUT ROWID;"
	/* sampling: one row per tick */
	"CREATE TABLE samples ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  seq INTEGER NOT NULL,"
	"  t_ns INTEGER NOT NULL,"
	"  data TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;",
	/* 2: fleet import: imported runs keep their origin identity */
	"ALTER TABLE hosts ADD COLUMN cpu_model TEXT;"
	"ALTER TABLE hosts ADD COLUMN boot_id TEXT;"
	"ALTER TABLE runs ADD COLUMN origin_machine_id TEXT;"
	"ALTER TABLE runs ADD COLUMN origin_run_id INTEGER;"
	"ALTER TABLE runs ADD COLUMN origin_started_at TEXT;"
	"ALTER TABLE runs ADD COLUMN origin_kind TEXT;"
	"ALTER TABLE runs ADD COLUMN origin_status TEXT;"
	"ALTER TABLE runs ADD COLUMN content_hash TEXT;"
	"ALTER TABLE changes ADD COLUMN origin_state TEXT;"
	"CREATE UNIQUE INDEX runs_origin ON runs(origin_machine_id, origin_run_id,"
	"  origin_started_at);"
	"CREATE INDEX runs_origin_kind ON runs(origin_kind);",
	/* 3: identity: journal rows and runs say which machine and boot made them */
	"ALTER TABLE changes ADD COLUMN machine_id TEXT;"
	"ALTER TABLE changes ADD COLUMN boot_id TEXT;"
	"ALTER TABLE runs ADD COLUMN machine_id TEXT;"
	"ALTER TABLE runs ADD COLUMN boot_id TEXT;",
	/*
	 * 4: compact ticks: per recording the first tick of each JSON structure
	 * (its shapes), per tick only its leaves against one (store-ticks.c).
	 * Rows written before keep their JSON in data; a compact row has data ''.
	 */
	"CREATE TABLE sample_shapes ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  tick TEXT NOT NULL);"
	"CREATE INDEX sample_shapes_run ON sample_shapes(run_id);"
	"ALTER TABLE samples ADD COLUMN shape_id INTEGER REFERENCES sample_shapes(id);"
	"ALTER TABLE samples ADD COLUMN vals BLOB;",
	/*
	 * 5: indexes for big stores: journal repair pages through this
	 * machine's pending rows newest first, history and the confirm
	 * bookkeeping look up a run's snapshots and journal rows, confirm and
	 * restore a session's rows (without them every command scanned the
	 * whole journal: 200 k pending rows made `status` take minutes)
	 */
	"CREATE INDEX changes_pending_mid ON changes(state, sysroot, machine_id, id);"
	"CREATE INDEX changes_run ON changes(run_id);"
	"CREATE INDEX changes_session ON changes(session, state);"
	"CREATE INDEX snapshots_run ON snapshots(run_id);"
	"CREATE INDEX runs_status ON runs(status);",
	/*
	 * 6: switchback runs: one row per window (its arm, when it started,
	 * switched and counted, its outcome and value) and its figures
	 */
	"CREATE TABLE windows ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  idx INTEGER NOT NULL,"
	"  block INTEGER NOT NULL,"
	"  pos INTEGER NOT NULL,"
	"  arm_id INTEGER NOT NULL REFERENCES arms(id),"
	"  started_at TEXT NOT NULL,"
	"  start_s REAL NOT NULL,"
	"  switch_s REAL,"
	"  count_start_s REAL NOT NULL,"
	"  end_s REAL NOT NULL,"
	"  outcome TEXT NOT NULL,"
	"  value REAL,"
	"  failure TEXT,"
	"  failed_at_s REAL,"
	"  PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE window_metrics ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  idx INTEGER NOT NULL,"
	"  key TEXT NOT NULL,"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (run_id, idx, key)) WITHOUT ROWID;",
	/*
	 * 7: every run stores the kernel's fingerprint it ran on
	 * (fingerprint.h's JSON: release, cgroup version, readahead mode,
	 * zswap ever enabled, mTHP, MGLRU), read back through
	 * fingerprint_from_json()
	 */
	"ALTER TABLE runs ADD COLUMN kernel_fp TEXT;",
	/*
	 * 8: ticks as numbers: a sample_shapes row of kind 1 holds the strings
	 * of the numbers rows that name it (a tick line whose numbers are null);
	 * their vals are store-tick-numbers.c's rows. Kind NULL: a codec shape.
	 */
	"ALTER TABLE sample_shapes ADD COLUMN kind INTEGER;",
	/*
	 * 9: older stores' ticks as numbers: a to-do the store's samples code
	 * (store_samples_convert(), run by main.c after opening) does and
	 * deletes; the migrations here are SQL only, below the store's code
	 */
	"CREATE TABLE store_todo (what TEXT PRIMARY KEY) WITHOUT ROWID;"
	"INSERT INTO store_todo SELECT 'ticks as numbers' WHERE EXISTS (SELECT 1 FROM samples);",
	/*
	 * 10: the reader has no codec: the conversion again where compact rows
	 * of the codec are left (ticks that were no current sample tick become
	 * JSON rows; damaged rows stay, and are refused)
	 */
	"INSERT OR IGNORE INTO store_todo SELECT 'ticks as numbers' WHERE EXISTS"
	" (SELECT 1 FROM samples JOIN sample_shapes ON sample_shapes.id = samples.shape_id"
	"  WHERE sample_shapes.kind IS NULL);",
};

/* Every table the schema has: one missing is a damaged store, never an empty one. */
static const char *const tables[] = {
	"hosts", "runs", "snapshots", "changes", "arms", "trials", "metrics", "samples",
	"sample_shapes", "windows", "window_metrics", "store_todo", NULL,
};

int migrations_latest(void)
{
	return (int)(sizeof(migrations) / sizeof(migrations[0]));
}

static int read_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int too_new(int version, struct st_err *e)
{
	return err_set_exit(e, -EPROTO, ST_EXIT_DENIED,
			    "database schema %d is newer than this swaptune understands (%d): upgrade swaptune",
			    version, migrations_latest());
}

int migrations_check_version(struct store *st, struct st_err *e)
{
	int version = 0, rc;

	if ((rc = read_version(store_sqlite(st), &version)) != SQLITE_OK)
		return store_sqlite_err(st, rc, NULL, e);
	if (version < 0)
		/* a crafted store: the version indexes the migrations */
		return err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME, "database %s is damaged: schema version %d",
				    store_file(st), version);
	if (version > migrations_latest())
		return too_new(version, e);
	return 0;
}

/*
 * Each step and its version bump commit together. The version is read
 * again after BEGIN IMMEDIATE took the write lock: a process that opened a
 * new store at the same moment may have migrated it meanwhile.
 */
int migrations_apply(struct store *st, struct st_err *e)
{
	sqlite3 *db = store_sqlite(st);
	int version = 0, rc;
	char *msg = NULL;

	if ((rc = migrations_check_version(st, e)) < 0)
		return rc;
	if ((rc = read_version(db, &version)) != SQLITE_OK)
		return store_sqlite_err(st, rc, NULL, e);
	while (version < migrations_latest()) {
		char sql[64];

		if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg)) != SQLITE_OK)
			goto fail;
		if ((rc = read_version(db, &version)) != SQLITE_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		if (version < 0 || version >= migrations_latest()) {
			sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
			return version == migrations_latest() ? 0 : migrations_check_version(st, e);
		}
		if ((rc = sqlite3_exec(db, migrations[version], NULL, NULL, &msg)) != SQLITE_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version + 1);
		if ((rc = sqlite3_exec(db, sql, NULL, NULL, &msg)) != SQLITE_OK ||
		    (rc = sqlite3_exec(db, "COMMIT", NULL, NULL, &msg)) != SQLITE_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		version++;
	}
	return 0;
fail:
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB ||
	    (rc & 0xff) == SQLITE_READONLY)
		store_sqlite_err(st, rc, msg, e);
	else if (msg && (strstr(msg, "no such table") || strstr(msg, "no such column")))
		/* a table of an earlier step is gone: not a store this schema made */
		err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME, "database %s is damaged: %s", store_file(st), msg);
	else
		err_set(e, -EIO, "database %s: migration failed: %s", store_file(st), msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return e ? e->code : -EIO;
}

int migrations_check(struct store *st, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(store_sqlite(st), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
				    -1, &stmt, NULL);

	if (rc != SQLITE_OK)
		return store_sqlite_err(st, rc, NULL, e);
	for (int i = 0; tables[i]; i++) {
		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, tables[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			continue;
		sqlite3_finalize(stmt);
		if (rc != SQLITE_DONE)
			return store_sqlite_err(st, rc, NULL, e);
		return err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME,
				    "database %s is damaged: its table %s is missing (schema %d);"
				    " restore it from a backup or start a new store with --db", store_file(st),
				    tables[i], store_schema_version(st));
	}
	sqlite3_finalize(stmt);
	return 0;
}
