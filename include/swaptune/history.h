/*
 * history.h - the stored runs as people browse them (src/history.c):
 * `swaptune history` and the TUI's History and Runs panels read them
 * through here, so a screen makes no store call of its own. Read only;
 * the rows are the store's types (store.h).
 */
#ifndef SWAPTUNE_HISTORY_H
#define SWAPTUNE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/store.h"

/*
 * The runs which asks for (the newest limit of its kind1 or kind2; kind2
 * NULL: kind1 only; kind1 NULL: every kind), newest first, into *runs (free
 * with history_runs_free()).
 */
int history_runs(struct store *st, const struct store_runs_which *which,
		 struct store_run **runs, int *n, struct st_err *e);
void history_runs_free(struct store_run *runs, int n);

/* Run id into *run (free with history_run_free()); -ENOENT if there is none. */
int history_run(struct store *st, int64_t id, struct store_run *run, struct st_err *e);
void history_run_free(struct store_run *run);

/* What a run left behind: its settings snapshots (oldest first) and its journal rows. */
struct history_detail {
	struct store_snapshot_row *snaps;
	int n_snaps;
	struct store_change *changes;
	int n_changes;
	bool snaps_ok, changes_ok;	/* which of them could be read */
};

/*
 * The snapshots of run id, and with journal its change journal rows, into
 * *d (zeroed first; free with history_detail_free(), also after an error).
 * Both are read even when one fails: the first error is returned, e says
 * it, and snaps_ok/changes_ok tell which part is there.
 */
int history_detail(struct store *st, int64_t id, bool journal, struct history_detail *d,
		   struct st_err *e);
void history_detail_free(struct history_detail *d);

/*
 * The snapshot taken before run id changed anything (*snap_id 0: none),
 * what a rollback of that run goes back to; its reason into reason (len 0:
 * not wanted).
 */
/* The rollback run that later undid apply run id (store_apply_rolled_back()), 0 if none. */
int history_rolled_back_by(struct store *st, int64_t id, int64_t *rollback_run, struct st_err *e);
int history_snapshot_before(struct store *st, int64_t id, int64_t *snap_id, char *reason,
			    size_t len, struct st_err *e);

/* Up to max sample recordings (with_ticks: only those with a tick), newest first. */
int history_recordings(struct store *st, bool with_ticks, struct store_sample_run *rows, int max,
		       int *n, struct st_err *e);

#endif
