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
 * Reading runs back for reports and replays (src/store-report.c)
 * ====================================================================== */

/* One runs row in full, with its host row (hostname/kernel "" if none). */
struct store_run_info {
	int64_t id;
	char kind[16];
	char status[24];
	char started_at[40];
	char ended_at[40];		/* "" while running */
	int pid;
	char *params;			/* malloc'd JSON text, NULL if none */
	char *summary;			/* malloc'd JSON text, NULL if none */
	char hostname[128];
	char kernel[128];
	bool has_samples;		/* at least one samples row (no count: that reads them all) */
	int64_t last_t_ns;		/* t_ns of its last sample (by seq), 0 if none */
};

/* -ENOENT (exit 2) if no such run. Free with store_run_info_free(). */
int store_run_info(struct store *st, int64_t run_id, struct store_run_info *out,
		   struct st_err *e);
void store_run_info_free(struct store_run_info *r);

/* A trial of a probe run with its raw per-trial metrics. */
struct store_trial_metric {
	char key[48];
	double value;
};

struct store_trial_row {
	int64_t id;
	char arm[64];
	int round, seq;
	bool warmup;
	char status[16];
	bool has_primary;
	double primary;
	char note[160];
	size_t n_metrics;
	struct store_trial_metric *metrics;	/* sorted by key */
};

/* Every trial of run_id in seq order into a malloc'd array; free with store_trials_free(). */
int store_trials_load(struct store *st, int64_t run_id, struct store_trial_row **rows,
		      size_t *n, struct st_err *e);
void store_trials_free(struct store_trial_row *rows, size_t n);

/*
 * Call fn for every sample row of run_id in seq order (data is the tick's
 * JSON, valid during the call). A non-zero return from fn stops the walk
 * and is returned.
 */
typedef int (*store_sample_fn)(void *arg, int64_t seq, int64_t t_ns, const char *data,
			       size_t len);
int store_samples_each(struct store *st, int64_t run_id, store_sample_fn fn, void *arg,
		       struct st_err *e);

/*
 * Sample recordings (runs of kind "sample" with at least one sample row):
 * the newest that ended at or before `before` (ISO time), and the oldest
 * that started at or after `after`. *id = 0 when there is none.
 */
int store_sample_run_before(struct store *st, const char *before, int64_t *id,
			    struct st_err *e);
int store_sample_run_after(struct store *st, const char *after, int64_t *id,
			   struct st_err *e);

/* A journal row of a change run. */
struct store_change_row {
	int64_t id;
	char kind[16];
	char name[64];
	char old_value[SETTING_VALUE_MAX];	/* "" with has_old false when NULL */
	bool has_old, has_new;
	char new_value[SETTING_VALUE_MAX];
	char state[16];
	bool temporary;
	char created_at[40];
};

/* Up to max journal rows of run_id in id order. */
int store_changes_of_run(struct store *st, int64_t run_id, struct store_change_row *rows,
			 int max, int *n, struct st_err *e);

/* The first snapshot of run_id (the one taken before the change); *id 0 if none. */
int store_first_snapshot_of_run(struct store *st, int64_t run_id, int64_t *id,
				char *reason, size_t reason_len, struct st_err *e);

/* Sample recordings for `history --all`: newest first, up to max. */
struct store_recording_row {
	int64_t id;
	char status[24];
	char started_at[40];
	int64_t ticks;
	double duration_s;		/* t_ns of the last tick */
};
int store_recordings_recent(struct store *st, struct store_recording_row *rows, int max,
			    int *n, struct st_err *e);

#endif
