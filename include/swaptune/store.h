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
#include "swaptune/run-params.h"
#include "swaptune/settings.h"

/* sqlite3.h is private to the store (src/store-int.h) */
struct sqlite3;

struct store {
	struct sqlite3 *db;
	char path[PATH_MAX];
	int64_t host_id;	/* row of this host, set by store_register_host() */
	bool created;		/* store_open() created the file (O_EXCL) */
	size_t made_dir_len;	/* it made path's directories from path[0..len): 0 = none */
	bool readonly;		/* opened without write permission: writes fail */
	bool disk_full;		/* read-only because its disk is full: writes say so */
	int hold_fd1;		/* 1 + fd held with a shared flock while open; 0 = none */
	char machine_id[64];	/* recorded in every run, see store_set_identity() */
	char boot_id[64];
	char kernel_fp[4096];	/* recorded in every run, see store_set_kernel_fp() */
};

/* The default database path for this user. */
int store_default_path(char *out, size_t len, struct st_err *e);

/*
 * Open (creating the file and its directory if needed) and migrate.
 * Never through a symlink: a symlinked final component is refused (exit 3).
 * A new store is created O_EXCL mode 0600 (st->created), missing
 * directories 0700. Without write permission the store opens read-only
 * (st->readonly: an empty in-memory one when the file cannot be read);
 * every write then fails. The same when the store's disk is full
 * (st->disk_full): reading commands still run, a write fails with -ENOSPC
 * "the disk is full". A damaged file or a lock held beyond the busy
 * timeout is exit 1 ("is damaged", "is busy").
 */
int store_open(struct store *st, const char *path, struct st_err *e);
/*
 * A store from elsewhere (fleet-advise --from, completion's --list-ids):
 * opened read-only, never created, migrated or switched to WAL; a symlink
 * is refused (exit 3), a negative schema version is "is damaged" (exit 1),
 * one newer or older than this build's is refused before any query runs.
 */
int store_open_readonly(struct store *st, const char *path, struct st_err *e);
void store_close(struct store *st);
/* Rows inserted, updated or deleted through st since it was opened (a store a
 * refused command created is removed only when nothing was recorded in it). */
long long store_changes(struct store *st);
/* Whether any table of st holds a row (true when that cannot be read): a
 * store whose writes were all rolled back holds none, though it counts them. */
bool store_holds_rows(struct store *st);
/*
 * A store a command made (st->created) is marked unkept until store_keep()
 * (a command that wrote rows into it, or one made empty to be filled); while
 * it holds no row, whoever of the commands that opened it closes it last
 * drops it (store_close_remove). Whether st is so marked now:
 */
bool store_unkept(struct store *st);
/* Keep st although it holds no row: the mark goes (a store made to be filled). */
void store_keep(struct store *st);
/*
 * Close, and remove the store file (with its -wal and -shm, and an empty
 * PATH.probe.lock, the host-change lock a command on a sysroot took beside
 * it) unless another process holds it open (-EBUSY: it stays) or it holds
 * a row now (-EEXIST: it stays), and then the directories
 * store_open() made for it while they are empty. For a store this process
 * created (st->created) or one still unkept (store_unkept()).
 */
int store_close_remove(struct store *st);
/* The machine and boot id written into every run this store begins. */
void store_set_identity(struct store *st, const char *machine_id, const char *boot_id);

/*
 * The kernel fingerprint (fingerprint_to_json()'s text) written into every
 * run this store begins from now on; NULL or "" writes none. -E2BIG (and
 * none) when it does not fit.
 */
int store_set_kernel_fp(struct store *st, const char *fp_json);
/*
 * Replace run_id's fingerprint with fp_json (a probe's or a switchback's
 * once its set-up is done: the kernel its trials ran on).
 */
int store_run_set_kernel_fp(struct store *st, int64_t run_id, const char *fp_json,
			    struct st_err *e);

/* Schema version after migrations; migrations_latest() the newest this build knows. */
int store_schema_version(struct store *st);

/* Insert or refresh this host's row (machine id, hostname, kernel). */
int store_register_host(struct store *st, const char *machine_id,
			const char *hostname, const char *kernel, struct st_err *e);

/* Runs: kind is "probe", "sample", "apply", "rollback", "verify", ... */
int store_run_begin(struct store *st, const char *kind, const char *params_json,
		    int64_t *run_id, struct st_err *e);
/* status: "ok", "failed", "interrupted"; summary_json may be NULL. */
int store_run_end(struct store *st, int64_t run_id, const char *status,
		  const char *summary_json, struct st_err *e);

/*
 * One runs row, the one type every reader of the runs table fills
 * (store_run_get(), store_runs_list(), a probe run's row in
 * store_probe_run_load()), with its host row and, for a recording, its
 * samples' extent. params and summary are malloc'd, NULL when the run
 * stored none: free with store_run_free() (store_runs_free() for a list).
 */
struct store_run {
	int64_t id;
	char kind[16];			/* "imported" for another host's run (origin_kind says what) */
	char status[24];
	char started_at[40];
	char ended_at[40];		/* "" while running */
	int pid;			/* 0 unknown */
	char *params;			/* the params JSON, NULL if none (owned) */
	struct run_params p;		/* params decoded, once, as the row is read (owned) */
	char *summary;			/* the summary JSON, NULL if none (owned) */
	char hostname[128];		/* of its host row ("" if none): an imported run's origin host */
	char kernel[128];
	bool imported;			/* another host's run, imported: history only */
	char origin_kind[16];		/* imported: its kind, status and id on its host */
	char origin_status[24];
	int64_t origin_run_id;
	char origin_machine_id[64];
	char *kernel_fp;		/* the kernel fingerprint JSON it ran on, NULL if none (owned) */
	bool has_samples;		/* at least one samples row (no count: that reads them all) */
	int64_t last_t_ns;		/* t_ns of its last sample (by seq), 0 if none */
};

/* Run run_id into out (zeroed first). -ENOENT (exit 2) if no such run. (src/store-runs.c) */
int store_run_get(struct store *st, int64_t run_id, struct store_run *out, struct st_err *e);
void store_run_free(struct store_run *r);
/* The kind the run was made as: an imported run's origin kind, else its own. */
const char *store_run_kind(const struct store_run *r);

/*
 * Which runs a listing asks for: the newest limit of kind1 or kind2 (kind2
 * NULL: kind1 only), or of every kind when kind1 is NULL.
 */
struct store_runs_which {
	const char *kind1, *kind2;
	long limit;
};
/*
 * The runs which asks for, newest first, malloc'd into *rows (NULL when *n
 * is 0; free with store_runs_free()).
 */
int store_runs_list(struct store *st, const struct store_runs_which *which,
		    struct store_run **rows, int *n, struct st_err *e);
void store_runs_free(struct store_run *rows, int n);

/*
 * The newest run of kind, with ok_first the newest that ended "ok" when
 * there is one: 0 and *run_id, -ENOENT "no <kind> run in <store>" if none.
 */
int store_run_latest(struct store *st, const char *kind, bool ok_first, int64_t *run_id,
		     struct st_err *e);

/* Settings snapshots (JSON object name -> value or null). */
int store_snapshot_save(struct store *st, int64_t run_id, const char *reason,
			const struct settings_snapshot *s, int64_t *snap_id,
			struct st_err *e);
int store_snapshot_load(struct store *st, int64_t snap_id,
			struct settings_snapshot *s, struct st_err *e);

/*
 * Transactions: BEGIN IMMEDIATE (one writer at a time: a second caller
 * waits for the busy timeout), COMMIT, ROLLBACK (never fails loudly).
 */
int store_tx_begin(struct store *st, struct st_err *e);
int store_tx_commit(struct store *st, struct st_err *e);
void store_tx_rollback(struct store *st);

/* ---- the change journal's rows (src/store-changes.c) ---- */

/*
 * One row of the changes table. States: "pending" (not yet undone or
 * made permanent), "committed", "restored", "superseded", "failed".
 * The has_* flags say whether a nullable column holds a value.
 */
struct store_change {
	int64_t id;
	int64_t run_id;			/* 0 = not tied to a run */
	char session[48];
	int pid;			/* the owning process */
	uint64_t pid_start;		/* its start time, clock ticks */
	char sysroot[PATH_MAX];		/* "/" for the live host */
	char kind[32];			/* "setting", or a resource kind */
	char name[256];
	bool has_old, has_new, has_finished, has_note;
	char old_value[4096];		/* a resource's detail, e.g. a file's old content */
	char new_value[SETTING_VALUE_MAX];
	char state[16];
	bool temporary;
	char created_at[32];
	char finished_at[32];
	char note[1024];
	char machine_id[64];		/* of the machine that made it; "" in rows before schema 3 */
	char boot_id[64];		/* of its boot; "" when unknown */
};

/*
 * Add c as a "pending" row (columns session, run_id, pid, pid_start,
 * sysroot, kind, name, old/new value as flagged, temporary, machine_id and
 * boot_id when not ""); *id = its row.
 */
int store_change_add(struct store *st, const struct store_change *c, int64_t *id,
		     struct st_err *e);
/* Set row id's state and finished_at; note (may be NULL) replaces the note. */
int store_change_finish(struct store *st, int64_t id, const char *state, const char *note,
			struct st_err *e);
/* Mark the pending rows of session with this kind and name "restored". */
int store_changes_resource_done(struct store *st, const char *session, const char *kind,
				const char *name, struct st_err *e);
/*
 * Lists, malloc'd into *rows (free with free(); NULL when *n is 0):
 * pending rows of a session, or of a sysroot when session is NULL, newest
 * first; committed rows of a session, oldest first; every row of a run,
 * oldest first; committed rows of kind1 or kind2 under sysroot from runs
 * numbered min_run_id and above, of this machine (st->machine_id when
 * set), oldest first.
 */
int store_changes_pending(struct store *st, const char *session, const char *sysroot,
			  struct store_change **rows, int *n, struct st_err *e);
/*
 * Pending rows under sysroot: of machine_id (mine), of other machines
 * (others, one of their ids in other_mid), and rows that name no machine
 * (unnamed: never this machine's). Counted by the store, nothing loaded.
 */
struct store_pending_count {
	int64_t mine, others, unnamed;
	char other_mid[64];
};
int store_changes_pending_count(struct store *st, const char *sysroot, const char *machine_id,
				struct store_pending_count *c, struct st_err *e);
/*
 * A page of one host's pending rows, newest first (journal repair reads the
 * journal in such pages): machine_id's rows under sysroot (the journal's
 * key: "/" for the live host) with an id below before_id (INT64_MAX for
 * the first page), at most limit of them.
 */
struct store_pending_page {
	const char *sysroot, *machine_id;
	int64_t before_id;
	int limit;
};
int store_changes_pending_page(struct store *st, const struct store_pending_page *page,
			       struct store_change **rows, int *n, struct st_err *e);
int store_changes_committed(struct store *st, const char *session,
			    struct store_change **rows, int *n, struct st_err *e);
int store_changes_of_run(struct store *st, int64_t run_id, struct store_change **rows,
			 int *n, struct st_err *e);
/*
 * The committed rows of kind1 or kind2 under sysroot made by run min_run_id
 * or a later one, oldest first, of the store's machine when it knows its
 * machine-id (what a rollback to a snapshot undoes in the boot files).
 */
struct store_changes_since {
	const char *sysroot;
	int64_t min_run_id;
	const char *kind1, *kind2;
};
int store_changes_since_run(struct store *st, const struct store_changes_since *since,
			    struct store_change **rows, int *n, struct st_err *e);
/* One boot of a host: its tree (the journal's key: "/" for the live host), machine and boot. */
struct store_boot {
	const char *sysroot;
	const char *machine_id;		/* NULL or "": any machine */
	const char *boot_id;
};
/*
 * Whether the journal holds a row that set setting name to one of the
 * values (NULL-terminated) in boot: 1, 0, or < 0 on error. The
 * fingerprint's "swaptune enabled zswap during this boot" (zswap.enabled
 * to Y).
 */
int store_changes_set_in_boot(struct store *st, const char *name, const char *const *values,
			      const struct store_boot *boot, struct st_err *e);
/* How many rows of session are pending. */
int store_changes_count_pending(struct store *st, const char *session, int *n,
				struct st_err *e);
/* Hand the pending rows of session to process pid; *moved (may be NULL) counts them. */
int store_changes_transfer(struct store *st, const char *session, int pid,
			   uint64_t pid_start, int *moved, struct st_err *e);
/* Pending rows of session -> "committed", temporary 0; *committed may be NULL. */
int store_changes_commit_session(struct store *st, const char *session, int *committed,
				 struct st_err *e);

/* ---- runs and snapshots behind apply, rollback, verify, history (src/store-runs.c) ---- */

/*
 * Mark "reverted" every apply run still "awaiting-confirm" none of whose
 * rows is pending any more.
 */
int store_runs_settle_confirms(struct store *st, struct st_err *e);

/* An apply run "awaiting-confirm" with pending rows under a sysroot. */
struct store_awaiting {
	int64_t run_id;
	char session[48];
	int pid;			/* owner of its pending rows */
	uint64_t pid_start;
	int n_rows;
	double deadline;		/* params "confirm_deadline_unix", 0 unknown */
};

/*
 * The newest one of this machine (st->machine_id, when set; rows naming no
 * machine are not this machine's): 1 and *a filled, 0 if none, < 0 on error.
 */
int store_runs_awaiting_confirm(struct store *st, const char *sysroot,
				struct store_awaiting *a, struct st_err *e);
/*
 * The newest apply run made with a confirm deadline: 1 with its id and
 * status, 0 if none, < 0 on error.
 */
int store_runs_last_confirm_apply(struct store *st, int64_t *run_id, char *status,
				  size_t len, struct st_err *e);

/*
 * The newest apply run that is "ok", came from a probe run (params
 * "source_run") and that no later "ok" rollback went back past (its params
 * "to_run" at or below the apply's id). 1 and *a filled, 0 if none.
 */
struct store_apply_ref {
	int64_t apply_run;
	int64_t probe_run;
	char arm[64];			/* params "arm", "" if none */
};
int store_runs_apply_in_effect(struct store *st, struct store_apply_ref *a, struct st_err *e);

/*
 * The setting applied now: the newest "ok" apply run of this machine
 * (st->machine_id; any when unset) that no later "ok" rollback went back
 * past and that still acts: made in this boot (st->boot_id), or persisted
 * (params "persist" true) for the boots after. Its id and its params'
 * "source_run" (0 for a manual apply): 1, 0 if none, < 0 on error.
 */
struct store_applied {
	int64_t apply_run;
	int64_t source_run;
	bool persisted;
	bool this_boot;
};
int store_runs_applied(struct store *st, struct store_applied *a, struct st_err *e);

/* A snapshot's row (not its settings), and whose run it belongs to. */
struct store_snapshot_info {
	int64_t id;
	int64_t run_id;			/* 0 = none */
	char reason[64];
	char taken_at[40];
	bool imported;			/* of an imported run: another host's history */
	char machine_id[64];		/* of the run's machine (origin's when imported), "" unknown */
	char hostname[128];		/* an imported run's origin host, "" otherwise */
};
/* Snapshot snap_id: 1 and *s filled, 0 if there is none, < 0 on error. */
int store_snapshot_info(struct store *st, int64_t snap_id, struct store_snapshot_info *s,
			struct st_err *e);
/*
 * The "before apply" snapshot of the newest "ok" apply run of this machine
 * (st->machine_id when set; runs from before schema 3 name none) that no
 * later "ok" rollback went back past: 1, 0 if none, < 0 on error.
 */
int store_snapshot_before_apply_in_effect(struct store *st, struct store_snapshot_info *s,
					  struct st_err *e);

/* A snapshot with its settings JSON text, for history. */
struct store_snapshot_row {
	struct store_snapshot_info info;
	char *settings;			/* the whole JSON text (owned) */
};
/*
 * The snapshots of run_id, oldest first, malloc'd into *rows (NULL when *n
 * is 0; free with store_snapshot_rows_free()).
 */
int store_snapshots_of_run(struct store *st, int64_t run_id, struct store_snapshot_row **rows,
			   int *n, struct st_err *e);
void store_snapshot_rows_free(struct store_snapshot_row *rows, int n);
/* The ids of the newest snapshots (at most max), newest first: what rollback --to completes. */
int store_snapshot_ids(struct store *st, int64_t *ids, int max, int *n, struct st_err *e);

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
	struct store_run run;		/* its runs row (owned) */
	size_t n_arms;
	struct store_probe_arm arms[STORE_PROBE_ARMS_MAX];
	size_t n_trials;
	struct store_probe_trial *trials;	/* ordered by round, seq, id (owned) */
};

/*
 * Load run run_id (any kind) with its arms (by id), trials and their
 * metrics into r (zeroed first); free with store_probe_run_free() whatever
 * it returns. -ENOENT if there is no such run, -EBADMSG for more than
 * STORE_PROBE_ARMS_MAX arms.
 */
int store_probe_run_load(struct store *st, int64_t run_id, struct store_probe_run *r,
			 struct st_err *e);
/*
 * The same for a run whose row the caller has read already: r->run as
 * store_run_get() filled it (r otherwise zeroed; r now owns it), its arms,
 * trials and metrics added. A report reads the row once this way.
 */
int store_probe_rows_load(struct store *st, struct store_probe_run *r, struct st_err *e);
void store_probe_run_free(struct store_probe_run *r);

/*
 * The first settings snapshot saved with run_id (the one taken before the
 * change); *snap_id = 0 if none. Its reason into reason (reason_len 0 = not
 * wanted, reason may then be NULL).
 */
int store_run_first_snapshot(struct store *st, int64_t run_id, int64_t *snap_id,
			     char *reason, size_t reason_len, struct st_err *e);

/* One arm of a probe run; *arm_id = its row. note may be "" or NULL. */
int store_probe_arm_add(struct store *st, int64_t run_id, const struct store_probe_arm *a,
			int64_t *arm_id, struct st_err *e);

/* Replace a run's params JSON (the probe's plan, fixed after its warm-up). */
int store_run_set_params(struct store *st, int64_t run_id, const char *params_json,
			 struct st_err *e);

/* One trial (t->arm_id from store_probe_arm_add()) and its metrics, in one transaction. */
int store_probe_trial_add(struct store *st, int64_t run_id, const struct store_probe_trial *t,
			  struct st_err *e);

/*
 * ---- switchback runs (src/store-switchback.c) ----
 *
 * A runs row of kind "switchback" (params: the plan, schedule and metric as
 * JSON; summary: the verdict), its arms in the arms table, and one windows
 * row per window measured, with its figures (the kernel's per window, the
 * primary metric per slice) in window_metrics.
 */
#define STORE_SB_METRICS_MAX 48

struct store_sb_metric {
	char key[32];
	double value;
};

struct store_sb_window {
	unsigned idx, block, pos;
	int64_t arm_id;
	char started_at[40];		/* UTC ISO 8601 */
	double start_s, switch_s;	/* seconds from the run's start; switch_s NAN: no switch */
	double count_start_s, end_s;
	char outcome[12];		/* "ok", "failed" */
	bool have_value;
	double value;
	char failure[200];		/* "" if none */
	double failed_at_s;		/* NAN if the guard did not act */
	size_t n_metrics;
	struct store_sb_metric metrics[STORE_SB_METRICS_MAX];
};

/* One window and its figures, in one transaction. */
int store_sb_window_add(struct store *st, int64_t run_id, const struct store_sb_window *w,
			struct st_err *e);
/* The windows of run_id by idx, malloc'd into *rows (free()); *n = 0 and NULL if none. */
int store_sb_windows_load(struct store *st, int64_t run_id, struct store_sb_window **rows,
			  size_t *n, struct st_err *e);
/*
 * What verify --live checks: the newest apply run of this machine
 * (st->machine_id when set) that is "ok" or "awaiting-confirm" and that no
 * later "ok" rollback went back past. 1 with its id and status, 0 if none.
 */
int store_sb_apply_target(struct store *st, int64_t *apply_run, char *status, size_t len,
			  struct st_err *e);

/*
 * ---- replications of a probe recipe (src/store-probe.c) ----
 *
 * The probe runs stored before run_id (id < run_id, any status, this host's
 * kind "probe" only: imported rows are other hosts' history), oldest first,
 * with their params decoded, malloc'd into *rows (free with
 * store_probe_earlier_free()). The caller picks those of the same recipe
 * (judge_recipe()).
 */
struct store_probe_earlier {
	int64_t id;
	char status[24];
	struct run_params p;		/* owned; p.doc NULL if none */
};

int store_probe_earlier(struct store *st, int64_t run_id, struct store_probe_earlier **rows,
			size_t *n, struct st_err *e);
void store_probe_earlier_free(struct store_probe_earlier *rows, size_t n);

/*
 * ---- samples (store-samples.c): `sample --record` and its reader ----
 *
 * A recording is a runs row of kind "sample" (params: the sampling options
 * as JSON, summary: the means at the end) and one samples row per tick:
 * seq (the sampler's tick number), t_ns (monotonic time since the start of
 * sampling) and the tick (swaptune.sample/1, sampler_format_json), stored
 * compactly since schema 4: the recording's sample_shapes rows hold the
 * first tick of each JSON structure, and a tick's row only its leaves
 * (shape_id, vals; data ''). Since schema 8 a tick is stored as numbers
 * (store-tick-numbers.c: deltas against the recording's previous numbers
 * row, its bits in the order of the keys its strings row - a sample_shapes
 * row of kind 1 - spells, never the vocabulary's enum order); import stores
 * a tick as numbers when its line reads back as the same numbers. Opening
 * an older store converts its rows (schema 9): a codec or JSON row whose
 * line prints back byte for byte becomes a numbers row, but for the value
 * and counter keys added to vocab-rows.h since it was recorded, which the
 * line lacks and the numbers row reads as null (not measured). A tick
 * that would not come back as it was keeps the codec's row or the JSON text
 * in data, and a damaged row stays as it was. Readers see one kind of tick either
 * way (struct store_tick).
 */
struct tick_writer;

/*
 * Schema 9's to-do, once per store (main.c calls it after store_open()):
 * every recording's rows written again under the write lock, so a codec or
 * JSON row of an older store whose line prints back byte for byte (but for
 * keys added since) becomes a numbers row; other rows stay as they are (a recording whose shapes are
 * not ticks, whole). 0, or an error (the store is then as it was).
 */
int store_samples_convert(struct store *st, struct st_err *e);

struct sample_recording {
	struct store *st;
	int64_t run_id;
	struct tick_writer *writer;	/* private to the store */
	uint64_t rows;			/* ticks stored so far */
};

/* Start a recording: the runs row, and the writer every tick reuses. */
int store_samples_begin(struct sample_recording *r, struct store *st,
			const char *params_json, struct st_err *e);
/*
 * Store one tick, as the sampler hands it over (its numbers, sampler.h), as
 * row t->seq at t_ns (one row, committed on its own unless in a transaction).
 */
struct sample_tick;
int store_samples_add(struct sample_recording *r, uint64_t t_ns, const struct sample_tick *t,
		      struct st_err *e);
/* The same for a tick given as JSON text (tests, benchmarks): kept as text when not a tick. */
int store_samples_add_json(struct sample_recording *r, uint64_t seq, uint64_t t_ns,
			   const char *json, struct st_err *e);
/* End it: status "ok", "failed" or "interrupted"; summary_json may be NULL. */
int store_samples_end(struct sample_recording *r, const char *status,
		      const char *summary_json, struct st_err *e);

/*
 * One recorded tick, valid only during the callback. Ticks of one JSON
 * structure (the same keys in the same order) share `shape` within a read,
 * so a reader can look its slots up once per shape. Shape 0: a tick whose
 * text is not JSON (kept as it came): it has no leaves.
 */
struct store_tick_priv;
struct store_tick {
	int64_t run_id;
	uint64_t seq;
	uint64_t t_ns;
	unsigned shape;
	struct store_tick_priv *priv;	/* the store's */
};

/*
 * The slot of a leaf: key of the top object (group NULL: "seq"), or key
 * in the object under the top-level member group ("vmstat",
 * "pswpin_pages_per_s"). -1 when the tick has none. Same for every tick of
 * one shape.
 */
int store_tick_slot(const struct store_tick *t, const char *group, const char *key);
/* The slot's number (as strtod() reads its text): false for null, strings, -1. */
bool store_tick_number(const struct store_tick *t, int slot, double *v);
/* The slot's string, unescaped, into buf: 0, or -ENOENT when it holds no string. */
int store_tick_string(const struct store_tick *t, int slot, char *buf, size_t len);
/*
 * The tick's JSON exactly as it was stored; NULL when out of memory or
 * when its stored values are damaged (the read then fails with -EBADMSG).
 * A compact tick's values are decoded as far as they are read.
 */
const char *store_tick_json(const struct store_tick *t, size_t *len);
/*
 * Whether text read back may go out as one JSON line (sample --replay
 * --json): it parses as JSON and carries no control byte (a crafted
 * store's escape sequence would reach the terminal, a raw newline would
 * split the line). Shapes are checked so when read; a row kept as its own
 * text (not a tick) is checked by whoever prints it as JSON.
 */
bool store_json_line_clean(const char *t, size_t len);

/* Called per tick in seq order; 0 goes on, > 0 stops the read, < 0 is an error that stops it. */
typedef int (*store_sample_fn)(const struct store_tick *t, void *arg);

/*
 * Read recording run_id tick by tick. Returns the number of ticks passed to
 * fn, fn's negative return, -EBADMSG (a damaged row), or -ENOENT (exit 2)
 * when run_id is not a sample recording.
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

/* Up to max recordings (with_ticks: only those with a tick), newest first; *n = how many. */
int store_sample_runs(struct store *st, bool with_ticks, struct store_sample_run *rows, int max,
		      int *n, struct st_err *e);


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
 * Ids of the runs of machine machine_id to export, oldest first (imported
 * runs are not re-exported): started at or after since (ISO text, NULL =
 * any) and, when n_ids > 0, among ids. A run is machine_id's when the
 * machine it recorded (runs.machine_id, else its hosts row) is machine_id,
 * or when it recorded none (older stores); runs of other machines are left
 * out and counted in out->n_foreign, and asking for one by id is an error
 * (exit 2) naming its machine. out->ids is malloc'd.
 */
struct store_export_want {
	const char *machine_id;
	const char *since;		/* NULL: any time */
	const int64_t *ids;		/* n_ids 0: every run */
	size_t n_ids;
};
struct store_export_ids {
	int64_t *ids;			/* malloc'd, NULL on error */
	size_t n;
	size_t n_foreign;		/* runs of other machines left out */
};
int store_fleet_export_ids(struct store *st, const struct store_export_want *want,
			   struct store_export_ids *out, struct st_err *e);
/* One run with its arms, trials, metrics, snapshots, changes and samples. */
int store_fleet_export_run(struct store *st, int64_t run_id, struct cJSON **run,
			   struct st_err *e);

/*
 * Each imported file is all or nothing: begin opens a savepoint for it
 * (and a write transaction when none is open), commit releases it, rollback
 * undoes everything of that file. store_fleet_flush() commits the files
 * released so far (import does it once, after the last file), and drops
 * the statements import keeps prepared; store_fleet_abort() instead undoes
 * every file since the last flush (import: one bad file keeps none).
 */
int store_fleet_begin(struct store *st, struct st_err *e);
int store_fleet_commit(struct store *st, struct st_err *e);
void store_fleet_rollback(struct store *st);
int store_fleet_flush(struct store *st, struct st_err *e);
void store_fleet_abort(struct store *st);

/* The origin host's row (machine_id, hostname), created or refreshed. */
int store_fleet_import_host(struct store *st, const struct store_fleet_host *h,
			    int64_t *host_id, struct st_err *e);
/*
 * Where imported runs come from, as the store sees it: the origin host's
 * row (store_fleet_import_host()) and machine id, and this host's own
 * machine id (NULL if unknown), whose runs are here already.
 */
struct store_fleet_origin {
	int64_t host_id;
	const char *machine_id;
	const char *local_machine_id;
};
/*
 * Import one validated run (fleet_doc_parse) of origin. Returns 1 when
 * added, 0 when the same run is already there (same identity and hash, or
 * this host's own run when origin's machine is the local one), -EEXIST when
 * the identity is there with other content.
 */
int store_fleet_import_run(struct store *st, const struct store_fleet_origin *origin,
			   const struct cJSON *run, const char *hash, struct st_err *e);

/* Every probe run (own and imported) as fleet_run records; *runs malloc'd. */
int store_fleet_load_runs(struct store *st, struct fleet_run **runs, size_t *n,
			  struct st_err *e);

/* Row counts of the tables import writes, for tests and reports. */
int store_fleet_count(struct store *st, const char *table, int64_t *n, struct st_err *e);

/* ======================================================================
 * The recordings around a change, for reports (src/store-samples.c)
 * ====================================================================== */

/*
 * Where an apply run sits among its host's changes, and the recordings that
 * bracket it. "Its host": the machine id of the run (or of its hosts row);
 * a change is an apply or rollback run that did not fail. A recording is a
 * run of kind "sample" with at least one sample row, on the same host.
 */
struct store_change_window {
	char applied_at[40];	/* its "after apply" snapshot, else its end, else its start */
	int64_t prev_run;	/* the host's change before it, 0 if none */
	char prev_kind[16];
	char prev_at[40];	/* its end (start while unended) */
	int64_t next_run;	/* the host's change after it, 0 if none */
	char next_kind[16];
	char next_at[40];	/* its start */
	bool undone;		/* next_run is a rollback to before it (or its revert) */
	bool reverted;		/* its own status is "reverted" (ended_at: when) */
	char reverted_at[40];
	int64_t before;		/* newest recording ended at or before its start, after prev; 0 none */
	int64_t after;		/* first recording started at or after applied_at that ended before
				   next_at (or the revert); 0 none */
};

/* The window of apply run apply_run (any kind: the caller checks). -ENOENT if no such run. */
int store_change_window(struct store *st, int64_t apply_run, struct store_change_window *w,
			struct st_err *e);

/*
 * The first rollback run ("ok") after apply run apply_run that went back to a
 * snapshot of a run at or before it, or reverted it: *rollback_run, 0 if none.
 */
int store_apply_rolled_back(struct store *st, int64_t apply_run, int64_t *rollback_run,
			    struct st_err *e);

/* ---- runs whose process is gone (journal_repair) ---- */

/* Whether this machine's process pid is still alive. */
typedef bool (*store_pid_alive_fn)(int pid);
/*
 * How a run's process is judged gone: the run is this machine's, and of an
 * earlier boot than boot_id, or of this boot with alive(pid) false.
 */
struct store_orphan_test {
	const char *machine_id, *boot_id;
	store_pid_alive_fn alive;
};
/*
 * End as "interrupted" this machine's runs still "running" whose process is
 * gone by test: it was killed, or its store became unwritable (disk full)
 * before it could end its run. Runs of other machines and a pid that is
 * alive again (reused) are left. Up to 64 per call; *ended counts them.
 * Reads only when none is found (or the store is read-only).
 */
int store_runs_end_orphans(struct store *st, const struct store_orphan_test *test, int *ended,
			   struct st_err *e);
/*
 * The ids of the runs store_runs_end_orphans() would end, oldest first, at
 * most max of them into ids (*n how many); reads only.
 */
int store_runs_orphaned(struct store *st, const struct store_orphan_test *test, int64_t *ids,
			int max, int *n, struct st_err *e);

#endif
