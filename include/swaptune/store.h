/*
 * store.h - the SQLite store: one file holding hosts, runs, snapshots, the
 * change journal, probe results and samples.
 *
 * Default path: /var/lib/swaptune/swaptune.db as root, else
 * $XDG_STATE_HOME/swaptune/swaptune.db (~/.local/state/...). WAL mode, a busy
 * timeout, schema version in PRAGMA user_version with forward migrations
 * (migrations.c). Prepared statements only. Timestamps are UTC ISO 8601 text.
 */
#ifndef SWAPTUNE_STORE_H
#define SWAPTUNE_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/settings.h"

/* sqlite3.h is private to the store (src/store-int.h) */
struct sqlite3;

struct store {
	struct sqlite3 *db;
	char path[PATH_MAX];
	int64_t host_id;	/* row of this host, set by store_register_host() */
};

/* The default database path for this user. */
int store_default_path(char *out, size_t len, struct st_err *e);

/*
 * Open (creating the file and its directory if needed) and migrate.
 * -EACCES / -EROFS when the path is not writable.
 */
int store_open(struct store *st, const char *path, struct st_err *e);
void store_close(struct store *st);

/* Schema version after migrations, and the newest this build knows. */
int store_schema_version(struct store *st);
int migrations_latest(void);

/* Insert or refresh this host's row (machine id, hostname, kernel). */
int store_register_host(struct store *st, const char *machine_id,
			const char *hostname, const char *kernel, struct st_err *e);

/* Runs: kind is "probe", "sample", "apply", "rollback", "verify", ... */
int store_run_begin(struct store *st, const char *kind, const char *params_json,
		    int64_t *run_id, struct st_err *e);
/* status: "ok", "failed", "interrupted"; summary_json may be NULL. */
int store_run_end(struct store *st, int64_t run_id, const char *status,
		  const char *summary_json, struct st_err *e);

/* One row of the runs table, newest first (for history views). */
struct store_run_row {
	int64_t id;
	char kind[16];
	char status[16];
	char started_at[32];
	char ended_at[32];	/* "" while running */
	char summary[512];	/* the run's summary JSON, truncated, "" if none */
};

/* Up to max newest runs (kind NULL = every kind) into rows; *n = how many. */
int store_runs_recent(struct store *st, const char *kind, struct store_run_row *rows,
		      int max, int *n, struct st_err *e);

/* Settings snapshots (JSON object name -> value or null). */
int store_snapshot_save(struct store *st, int64_t run_id, const char *reason,
			const struct settings_snapshot *s, int64_t *snap_id,
			struct st_err *e);
int store_snapshot_load(struct store *st, int64_t snap_id,
			struct settings_snapshot *s, struct st_err *e);



/* ======================================================================
 * Fleet: export, import, and the probe runs of many hosts (store-fleet.c)
 *
 * Imported runs keep their origin: runs.kind = 'imported' and
 * status = 'imported' (the original kind and status in origin_kind,
 * origin_status), so no command of this host acts on them; their journal
 * rows have state 'imported', never 'pending', so journal repair skips them.
 * A run's global identity is (origin machine id, origin run id, started_at),
 * UNIQUE in the store.
 * ====================================================================== */

struct cJSON;
struct fleet_run;

struct store_fleet_host {
	const char *machine_id, *hostname, *kernel, *cpu_model, *boot_id;
};

/*
 * Ids of this host's own runs to export (imported runs are not re-exported),
 * oldest first: started at or after since (ISO text, NULL = any) and, when
 * n_ids > 0, among ids. *out is malloc'd.
 */
int store_fleet_export_ids(struct store *st, const char *since, const int64_t *ids,
			   size_t n_ids, int64_t **out, size_t *n_out, struct st_err *e);
/* One run with its arms, trials, metrics, snapshots, changes and samples. */
int store_fleet_export_run(struct store *st, int64_t run_id, struct cJSON **run,
			   struct st_err *e);

/*
 * Each imported file is all or nothing: begin opens a savepoint for it
 * (and a write transaction when none is open), commit releases it, rollback
 * undoes everything of that file. store_fleet_flush() commits the files
 * released so far (import flushes every few hundred files and at the end),
 * and drops the statements import keeps prepared.
 */
int store_fleet_begin(struct store *st, struct st_err *e);
int store_fleet_commit(struct store *st, struct st_err *e);
void store_fleet_rollback(struct store *st);
int store_fleet_flush(struct store *st, struct st_err *e);

/* The origin host's row (machine_id, hostname), created or refreshed. */
int store_fleet_import_host(struct store *st, const struct store_fleet_host *h,
			    int64_t *host_id, struct st_err *e);
/*
 * Import one validated run (fleet_doc_parse) of machine_id. Returns 1 when
 * added, 0 when the same run is already there (same identity and hash, or
 * this host's own run when machine_id == local_machine_id), -EEXIST when the
 * identity is there with other content.
 */
int store_fleet_import_run(struct store *st, int64_t host_id, const char *machine_id,
			   const char *local_machine_id, const struct cJSON *run,
			   const char *hash, struct st_err *e);

/* Every probe run (own and imported) as fleet_run records; *runs malloc'd. */
int store_fleet_load_runs(struct store *st, struct fleet_run **runs, size_t *n,
			  struct st_err *e);

/* Row counts of the tables import writes, for tests and reports. */
int store_fleet_count(struct store *st, const char *table, int64_t *n, struct st_err *e);

#endif
