/*
 * change.h - the change workflow shared by apply, rollback and verify (the
 * CLI commands, and later the TUI): the diff of wanted settings against the
 * host, the guard before a change (root, no apply awaiting confirmation, the
 * host lock, the question on the terminal), a run with the snapshot before
 * it, every write journaled, --confirm-within with its watchdog, confirm,
 * and rollback to an earlier snapshot with swaptune's boot-time files.
 *
 * Functions here change the host and the store and fill result structs;
 * they print nothing. Errors carry the exit status the CLI uses.
 */
#ifndef SWAPTUNE_CHANGE_H
#define SWAPTUNE_CHANGE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "swaptune/advice.h"
#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/journal.h"
#include "swaptune/persist.h"
#include "swaptune/settings.h"
#include "swaptune/store.h"

/* One setting to change, with the kernel file it lives in. */
struct change_setting {
	char name[32];				/* registry name */
	char path[PATH_MAX];			/* kernel file as on the host: sysroot + "/" + rel */
	char sysctl[48];			/* "vm.page-cluster", "" if none */
	char old_value[SETTING_VALUE_MAX];
	char new_value[SETTING_VALUE_MAX];	/* canonical spelling */
	bool changed;				/* old and new differ */
};

/*
 * Validate want[0..n) against the registry and the kernel (unknown names and
 * bad values: -EINVAL), read every current value, and fill out[] in the same
 * order. A setting this kernel lacks is -ENOENT (exit 3). When one setting
 * is named twice, the last wins and the earlier ones are not "changed".
 */
int change_diff(const struct host *h, const struct advice_setting *want, int n,
		struct change_setting *out, struct st_err *e);

/* The JSON object of a change: {"setting","file","old","new"}. */
cJSON *change_setting_json(const struct change_setting *c);

/* Settings of a snapshot as a JSON object (null for absent settings). */
/* The boot-time files plan p would write or remove, as {"path","action","content"} into arr. */
void change_files_json(const struct host *h, const struct persist_plan *p, cJSON *arr);
cJSON *change_snapshot_json(const struct settings_snapshot *s);

/* The record a change run begins with (change_begin()). */
struct change_record {
	int64_t run_id;		/* its runs row */
	int64_t snap_id;	/* the snapshot of every setting before it */
};

/*
 * Start a change run of kind "apply" or "rollback": its runs row with
 * params (an object, taken over and freed here; who asked is added), then
 * a snapshot of every setting as it is now ("before KIND"), both in *rec.
 * On failure after the row exists, the run is marked failed.
 */
int change_begin(struct store *st, const struct host *h, const char *kind, cJSON *params,
		 struct change_record *rec, struct st_err *e);

/*
 * Journal and write, as pending rows of j, every changed setting of
 * ch[0..n), then the boot-time files of plan (NULL = none; *n_files may be
 * NULL). The caller commits the session, or restores it on failure.
 */
int change_write(struct journal *j, const struct change_setting *ch, int n,
		 const struct persist_plan *plan, int *n_files, struct st_err *e);

/*
 * Ask "question [y/N] " on the terminal. 0 when yes is set or the answer is
 * y/yes; -ECANCELED (exit 1) when declined; -EINVAL (exit 2) without a
 * terminal on stdin, telling the user to add --yes.
 */
int change_ask(const char *question, bool yes, struct st_err *e);

/*
 * Undo what a swaptune that did not finish left (journal_repair), one line
 * per change on stderr (or to change_repair_report's function), a warning
 * line when a change could not be undone. Only a command that changes the
 * host calls it, holding the host's change lock. Returns the lines said.
 */
int change_repair(struct store *st, const struct host *h);
void change_repair_report(journal_report_fn report, void *arg);

/* Refuse (-EPERM, exit 3) a change to the live host by a non-root user. */
int change_need_root(const struct host *h, const char *what, struct st_err *e);

/* Who guards a change of the host, and how strictly (change_lock()). */
struct change_guard {
	const char *what;	/* the command: "apply", "rollback", "verify" */
	const char *db_path;	/* its store's path, the lock file beside it under a sysroot */
	bool refuse_pending;	/* refuse while an apply awaits confirmation */
};

/*
 * The guard before command g->what changes the host: root
 * (change_need_root), the host's probe lock, then repair of what a swaptune
 * that did not finish left (change_repair), then with g->refuse_pending no
 * apply awaiting confirmation (-EBUSY, exit 3: the lock is let go).
 * *lockfd is -1 until the lock is held; release it with change_unlock().
 */
int change_lock(struct store *st, const struct host *h, const struct change_guard *g,
		int *lockfd, struct st_err *e);
void change_unlock(int lockfd);

/* ---- confirm-within ---- */

/* An apply --confirm-within whose changes await `apply --confirm`. */
struct change_pending {
	int64_t run_id;
	char session[48];
	int pid;				/* the watchdog owning the rows */
	uint64_t pid_start;
	int n_rows;
	double deadline;			/* Unix time, 0 unknown */
};

/* 1 and *p filled if one is pending under this sysroot, 0 if none, < 0 on error. */
int change_pending_confirm(struct store *st, const struct host *h,
			   struct change_pending *p, struct st_err *e);

/*
 * Mark "reverted" every apply run still "awaiting-confirm" whose rows are no
 * longer pending (its watchdog was killed and crash repair undid them).
 */
int change_settle_confirms(struct store *st, struct st_err *e);

/*
 * The watchdog's work (`apply --watchdog`): sleep until deadline (Unix
 * time), then, inside one IMMEDIATE transaction, restore session's rows
 * unless `apply --confirm` committed them first; record a "rollback" run
 * with the settings after it, and mark apply run_id "reverted".
 */
int change_watchdog(struct store *st, const struct host *h, int64_t run_id,
		    double deadline, const char *session, struct st_err *e);

/* What apply --confirm made permanent. */
struct change_confirmed {
	int64_t run_id;				/* the apply run */
	int watchdog_pid;
	bool watchdog_stopped;			/* it was alive and got SIGTERM */
	int n;
	struct store_change *rows;		/* the session's committed rows; free() */
};

/*
 * Commit the pending apply's rows (one IMMEDIATE transaction: exactly one
 * of confirm and the watchdog wins), stop its watchdog, end its run "ok".
 * -ENOENT when none is pending, -ETIME when it was reverted (exit 1).
 */
int change_confirm(struct store *st, const struct host *h, struct change_confirmed *c,
		   struct st_err *e);

/*
 * Revert the pending apply p now, as if its deadline had passed: a
 * "rollback" run (*rb_run), the rows restored (*restored counts them), the
 * watchdog stopped, the apply run "reverted".
 */
int change_revert_pending(struct store *st, const struct host *h,
			  const struct change_pending *p, int64_t *rb_run, int *restored,
			  struct st_err *e);

/* ---- apply ---- */

struct change_apply {
	/* in */
	const struct change_setting *ch;	/* from change_diff() */
	int n;
	const struct persist_plan *plan;	/* boot-time files, NULL = none */
	int64_t source_run;			/* the probe run recommending it, 0 = none */
	const char *arm;			/* its arm, with source_run */
	long long confirm_within_ns;		/* 0: permanent at once */
	const char *db_path;			/* for the watchdog's command line */
	/* out */
	int64_t run_id, snap_id, after_id;	/* after_id 0 if that snapshot failed */
	int n_files;				/* boot-time files written */
	double deadline;			/* Unix time, with confirm_within_ns */
	pid_t watchdog_pid;
	char undo_warning[ST_ERR_MSG_MAX];	/* a failed apply could not undo everything */
};

/*
 * Apply a->ch (and a->plan) as a run of kind "apply": the run and the
 * snapshot before it, every write journaled; all rows stay pending until
 * everything has landed. Then either committed, or (confirm_within_ns)
 * handed to a detached watchdog (`swaptune apply --watchdog`) and the run
 * left "awaiting-confirm". On failure everything written is restored, the
 * run marked failed, and the error says so. The caller holds change_lock().
 */
int change_apply(struct store *st, const struct host *h, struct change_apply *a,
		 struct st_err *e);

/* ---- rollback ---- */

#define CHANGE_DIRS_MAX 8

struct change_rollback {
	struct store_snapshot_info target;	/* the snapshot to go back to */
	int n;
	struct change_setting ch[SETTINGS_MAX];
	int n_changed;
	struct persist_plan *plan;		/* swaptune's boot-time files as they were */
	int n_files;				/* files of plan that change */
	char dirs[CHANGE_DIRS_MAX][PATH_MAX];	/* directories swaptune made since, deepest first */
	int n_dirs;
};

/*
 * Plan going back to snapshot to (0: the one before the latest apply still
 * in effect): its settings against the host's, and swaptune's boot-time
 * files and directories as the journal says they were then. -ENOENT when
 * there is no such snapshot (exit 2 with to, 1 without). Free with
 * change_rollback_free().
 */
int change_rollback_plan(struct store *st, const struct host *h, int64_t to,
			 struct change_rollback *rb, struct st_err *e);
void change_rollback_free(struct change_rollback *rb);

/* Whether the plan changes anything. */
bool change_rollback_needed(const struct change_rollback *rb);

/*
 * Carry the plan out as a run of kind "rollback" (*run_id; *snap_before the
 * snapshot before it); on failure the settings are left as they were. The
 * caller holds change_lock().
 */
int change_rollback_run(struct store *st, const struct host *h,
			const struct change_rollback *rb, int64_t *run_id,
			int64_t *snap_before, struct st_err *e);

/*
 * Confirm, revert and auto-revert (and an apply that starts waiting) are
 * logged, one line each, to syslog(3) (ident "swaptune", LOG_DAEMON, so the
 * journal has them): a change that undid itself at 3 a.m. leaves a trace.
 * fn, if set, takes the lines instead (tests); NULL: syslog again.
 */
void change_set_logger(void (*fn)(int priority, const char *line));

#endif
