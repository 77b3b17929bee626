/*
 * history.c - the stored runs as people browse them: the listings, one run,
 * what a run left behind (snapshots, journal), the snapshot a rollback of
 * it goes back to, the sample recordings. Above the store, below the
 * commands and the TUI, which share these and call the store for none of it.
 */
#include <stdlib.h>
#include <string.h>

#include "swaptune/history.h"

int history_runs(struct store *st, const struct store_runs_which *which,
		 struct store_run **runs, int *n, struct st_err *e)
{
	return store_runs_list(st, which, runs, n, e);
}

void history_runs_free(struct store_run *runs, int n)
{
	store_runs_free(runs, n);
}

int history_run(struct store *st, int64_t id, struct store_run *run, struct st_err *e)
{
	return store_run_get(st, id, run, e);
}

void history_run_free(struct store_run *run)
{
	store_run_free(run);
}

int history_detail(struct store *st, int64_t id, bool journal, struct history_detail *d,
		   struct st_err *e)
{
	int r, r2;

	memset(d, 0, sizeof(*d));
	r = store_snapshots_of_run(st, id, &d->snaps, &d->n_snaps, e);
	d->snaps_ok = r == 0;
	if (!journal)
		return r;
	r2 = store_changes_of_run(st, id, &d->changes, &d->n_changes, r < 0 ? NULL : e);
	d->changes_ok = r2 == 0;
	return r < 0 ? r : r2;
}

void history_detail_free(struct history_detail *d)
{
	store_snapshot_rows_free(d->snaps, d->n_snaps);
	free(d->changes);
	memset(d, 0, sizeof(*d));
}

int history_snapshot_before(struct store *st, int64_t id, int64_t *snap_id, char *reason,
			    size_t len, struct st_err *e)
{
	return store_run_first_snapshot(st, id, snap_id, reason, len, e);
}

int history_rolled_back_by(struct store *st, int64_t id, int64_t *rollback_run, struct st_err *e)
{
	return store_apply_rolled_back(st, id, rollback_run, e);
}

int history_recordings(struct store *st, bool with_ticks, struct store_sample_run *rows, int max,
		       int *n, struct st_err *e)
{
	return store_sample_runs(st, with_ticks, rows, max, n, e);
}
