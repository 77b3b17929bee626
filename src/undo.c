/*
 * undo.c - the list of modules whose resources the journal can undo.
 * Each module exposes its handler; add a line here when one is added.
 */
#include <stdio.h>
#include <stdlib.h>

#include "swaptune/cgroup.h"
#include "swaptune/journal.h"
#include "swaptune/persist.h"
#include "swaptune/scratch-swap.h"
#include "swaptune/undo.h"

static void reg(const char *kind, journal_undo_fn fn, bool lasting)
{
	int r = lasting ? journal_register_undo_lasting(kind, fn) : journal_register_undo(kind, fn);

	/* a full table is a programmer error: repair would miss this kind */
	if (r < 0) {
		fprintf(stderr, "swaptune: BUG: no room for undo handler %s\n", kind);
		abort();
	}
}

void undo_register_all(void)
{
	/* files outlive a reboot; cgroups, devices and mounts do not */
	reg(PERSIST_KIND_FILE, persist_undo_file, true);
	reg(PERSIST_KIND_DIR, persist_undo_dir, true);
	reg(PERSIST_KIND_RMDIR, persist_redo_dir, true);
	reg(MEMCG_JOURNAL_KIND, memcg_undo, false);
	reg(SCRATCH_KIND_FILE, scratch_undo_file, true);
	reg(SCRATCH_KIND_LOOP, scratch_undo_loop, false);
	reg(SCRATCH_KIND_ZRAM, scratch_undo_zram, false);
	reg(SCRATCH_KIND_DEBUGFS, scratch_undo_debugfs, false);
}
