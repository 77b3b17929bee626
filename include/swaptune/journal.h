/*
 * journal.h - every change swaptune makes to the host is recorded in the
 * store *before* it is made, so that it can be undone after a crash.
 *
 * A change is a setting from the registry (kind "setting") or a resource a
 * probe created (kind "swapfile", "cgroup", "loopdev", ...: undone by a
 * handler its module registers). Temporary changes (a probe's arms) stay
 * "pending" until their session restores them; permanent ones (apply) become
 * "committed" once written. Any pending row whose owning process is gone is
 * undone by journal_repair(), which every command that changes the host
 * runs once it holds the host's change lock (change_lock(), change_repair());
 * a command that only reads counts them (journal_leftovers()) and says so.
 */
#ifndef SWAPTUNE_JOURNAL_H
#define SWAPTUNE_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "swaptune/change-log.h"
#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/settings.h"
#include "swaptune/store.h"

struct journal {
	struct store *st;
	const struct host *h;
	int64_t run_id;		/* 0 when not tied to a run */
	pid_t pid;
	uint64_t pid_start;
	char session[48];
	char machine_id[64];	/* recorded in each row: repair acts on its own machine's only */
	char boot_id[64];	/* and on live state of its own boot only */
	struct change_log log;	/* filled by journal_hooks() */
};

/* Start a session owned by this process. */
int journal_begin(struct journal *j, struct store *st, const struct host *h,
		  int64_t run_id, struct st_err *e);

/*
 * Journal, then write setting name = value (validated and normalised first).
 * No row and no write when the setting already has that value. temporary:
 * restored by journal_restore(); otherwise committed once written.
 * *old (may be NULL) receives the setting as it was: its registry name and
 * previous value.
 */
int journal_set(struct journal *j, const char *name, const char *value,
		bool temporary, struct setting_value *old, struct st_err *e);

/* Record a resource before creating it; mark it undone after removing it. */
int journal_note_resource(struct journal *j, const char *kind, const char *ident,
			  const char *detail, struct st_err *e);
int journal_resource_done(struct journal *j, const char *kind, const char *ident,
			  struct st_err *e);

static inline int journal_log_note_(void *j, const char *kind, const char *ident,
				     const char *detail, struct st_err *e)
{
	return journal_note_resource(j, kind, ident, detail, e);
}

static inline int journal_log_done_(void *j, const char *kind, const char *ident,
				    struct st_err *e)
{
	return journal_resource_done(j, kind, ident, e);
}

/*
 * The journal as the change log host-side modules record their resources
 * in (memcg_create, scratch_swap_create_*, scratch_debugfs_*,
 * persist_write): valid while j is.
 */
static inline const struct change_log *journal_hooks(struct journal *j)
{
	j->log = (struct change_log){ j, journal_log_note_, journal_log_done_ };
	return &j->log;
}

/*
 * Undo this session's pending changes, newest first. Goes on past failures
 * and returns the first; *restored counts what was undone.
 */
int journal_restore(struct journal *j, int *restored, struct st_err *e);

/*
 * Undo handler for a resource kind: remove ident (detail as noted). A row
 * comes from the store, which anyone may have written: a handler first
 * checks that ident is something swaptune itself could have created (its
 * own file names, cgroup names, devices carrying its swap label) and
 * returns JOURNAL_UNDO_REFUSED (with the reason in e) without acting when
 * it is not; the row is then marked "refused" and a warning printed.
 */
typedef int (*journal_undo_fn)(const struct host *h, const char *ident,
			       const char *detail, struct st_err *e);
#define JOURNAL_UNDO_REFUSED (-ECANCELED)
int journal_register_undo(const char *kind, journal_undo_fn fn);
/* The same for a resource that outlives a reboot (a file on disk). */
int journal_register_undo_lasting(const char *kind, journal_undo_fn fn);

/* Called with one line per repaired change ("restored page-cluster to 3 ..."). */
typedef void (*journal_report_fn)(const char *line, void *arg);

/* Rows journal_repair() looks at per command, newest first; the next command goes on. */
#define JOURNAL_REPAIR_BUDGET 1000

/*
 * Undo every pending change under this sysroot whose owner process is gone.
 * A setting someone changed since is left alone and reported. Only rows of
 * this machine (host_read_machine_id) are acted on: another machine's
 * pending rows, and rows that name no machine, are counted and reported in
 * one line, never undone. Live state (settings, cgroups, devices, mounts)
 * of an earlier boot is marked "rebooted" without acting: the reboot
 * undid it; files are still undone. Nothing read back is trusted: a
 * setting's old value must pass the registry's parser and range
 * (settings_normalize, as user input), a resource row its handler's check;
 * a row that fails is marked "refused" with a warning and nothing is done.
 * At most JOURNAL_REPAIR_BUDGET rows are looked at, read a page at a
 * time (a line says how many are left). Returns the number of changes
 * undone, or a negative error. A read-only store is not repaired.
 */
int journal_repair(struct store *st, const struct host *h,
		   journal_report_fn report, void *arg, struct st_err *e);

/*
 * Count, without writing anything, the pending rows journal_repair() would
 * act on now (this machine's, under this sysroot, whose process is gone or
 * of an earlier boot); rows past its budget are counted as left. *n is 0
 * when there are none.
 */
int journal_leftovers(struct store *st, const struct host *h, int64_t *n, struct st_err *e);
/*
 * The runs of this machine still "running" whose process is gone, which
 * journal_repair() would end as interrupted: up to max ids into ids (*n how
 * many), without writing anything (history shows them as interrupted).
 */
int journal_orphan_runs(struct store *st, const struct host *h, int64_t *ids, int max, int *n,
			struct st_err *e);

/*
 * Hand this session's pending rows to process pid (started at pid_start
 * clock ticks), e.g. apply's confirm-within watchdog: repair leaves them
 * alone while that process lives and undoes them once it is gone. The
 * session itself (j->session) does not change, so journal_restore() from
 * the new owner still finds them. *moved (may be NULL) counts the rows.
 */
int journal_transfer(struct journal *j, pid_t pid, uint64_t pid_start,
		     int *moved, struct st_err *e);

/*
 * Make every pending row of session permanent: state "committed",
 * temporary = 0, so neither restore nor repair undoes them (apply
 * --confirm, or a resource that is meant to stay). *committed (may be NULL)
 * counts the rows.
 */
int journal_commit_session(struct store *st, const char *session,
			   int *committed, struct st_err *e);

#endif
