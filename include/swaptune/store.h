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

/*
 * ---- samples (store-samples.c): `sample --record` and its readers ----
 *
 * A recording is a runs row of kind "sample" (params: the sampling options
 * as JSON, summary: the means at the end) and one samples row per tick:
 * seq (the sampler's tick number), t_ns (monotonic time since the start of
 * sampling) and the tick's JSON (swaptune.sample/1, sampler_format_json).
 */
struct sqlite3_stmt;

struct sample_recording {
	struct store *st;
	int64_t run_id;
	struct sqlite3_stmt *insert;	/* private to the store */
	uint64_t rows;			/* ticks stored so far */
};

/* Start a recording: the runs row, and the statement every tick reuses. */
int store_samples_begin(struct sample_recording *r, struct store *st,
			const char *params_json, struct st_err *e);
/* Store one tick's JSON as row seq (no allocation, no re-prepare). */
int store_samples_add(struct sample_recording *r, uint64_t seq, uint64_t t_ns,
		      const char *json, struct st_err *e);
/* End it: status "ok", "failed" or "interrupted"; summary_json may be NULL. */
int store_samples_end(struct sample_recording *r, const char *status,
		      const char *summary_json, struct st_err *e);

/* One recorded tick; json is valid only during the callback. */
struct store_sample_row {
	int64_t run_id;
	uint64_t seq;
	uint64_t t_ns;
	const char *json;
};

/* Called per tick in seq order; non-zero stops the read (negative: an error). */
typedef int (*store_sample_fn)(const struct store_sample_row *row, void *arg);

/*
 * Read recording run_id tick by tick. Returns the number of ticks passed to
 * fn, fn's negative return, or -ENOENT (exit 2) when run_id is not a sample
 * recording.
 */
int store_samples_read(struct store *st, int64_t run_id, store_sample_fn fn, void *arg,
		       struct st_err *e);

/* One recording, for listings. */
struct store_sample_run {
	int64_t run_id;
	char status[16];		/* "running", "ok", "failed", "interrupted" */
	char started_at[32];
	char ended_at[32];		/* "" while running */
	char params[512];		/* the options JSON, truncated, "" if none */
	uint64_t ticks;			/* samples rows */
	uint64_t first_t_ns, last_t_ns;	/* t_ns of the first and last row, 0 if none */
	uint64_t duration_ns;		/* last_t_ns - first_t_ns */
};

/* Up to max recordings, newest first; *n = how many. */
int store_sample_runs(struct store *st, struct store_sample_run *rows, int max, int *n,
		      struct st_err *e);

#endif
