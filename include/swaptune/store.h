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

/* ---- probe runs: arms, trials, per-trial metrics (src/store-probe.c) ---- */

#define STORE_PROBE_ARMS_MAX	16

struct store_probe_arm {
	int64_t id;
	char name[32];
	char settings[1024];		/* JSON object {"page-cluster":"0", ...} */
	bool emulated;
	char note[256];			/* "" if none */
};

struct store_metric {
	char key[48];			/* metric.h keys, plus "trial_s" */
	double value;
};

struct store_probe_trial {
	int64_t id;
	int64_t arm_id;
	unsigned round, seq;
	bool warmup;
	char status[16];		/* "ok", "oom", "failed", "timeout", "interrupted" */
	bool have_primary;
	double primary;
	char note[256];			/* "" if none */
	size_t n_metrics;
	struct store_metric *metrics;	/* owned (store_probe_run_free()) */
};

struct store_probe_run {
	int64_t id;
	char kind[16];
	char status[24];
	char started_at[40];
	char *params;			/* the run's params JSON, "" if none (owned) */
	char *summary;			/* its summary JSON, "" if none (owned) */
	size_t n_arms;
	struct store_probe_arm arms[STORE_PROBE_ARMS_MAX];
	size_t n_trials;
	struct store_probe_trial *trials;	/* ordered by round, seq, id (owned) */
};

/* The newest probe run that ended "ok" (else the newest probe run); -ENOENT if none. */
int store_probe_latest_run(struct store *st, int64_t *run_id, struct st_err *e);

/*
 * Load run run_id (any kind) with its arms (by id), trials and their
 * metrics into r (zeroed first); free with store_probe_run_free() whatever
 * it returns. -ENOENT if there is no such run, -EBADMSG for more than
 * STORE_PROBE_ARMS_MAX arms.
 */
int store_probe_run_load(struct store *st, int64_t run_id, struct store_probe_run *r,
			 struct st_err *e);
void store_probe_run_free(struct store_probe_run *r);

/* The first settings snapshot saved with run_id; *snap_id = 0 if none. */
int store_run_first_snapshot(struct store *st, int64_t run_id, int64_t *snap_id,
			     struct st_err *e);

/* One arm of a probe run; *arm_id = its row. note may be "" or NULL. */
int store_probe_arm_add(struct store *st, int64_t run_id, const struct store_probe_arm *a,
			int64_t *arm_id, struct st_err *e);

/* One trial (t->arm_id from store_probe_arm_add()) and its metrics, in one transaction. */
int store_probe_trial_add(struct store *st, int64_t run_id, const struct store_probe_trial *t,
			  struct st_err *e);

#endif
