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

static void reg(const char *kind, journal_undo_fn fn)
{
	/* a full table is a programmer error: repair would miss this kind */
	if (journal_register_undo(kind, fn) < 0) {
		fprintf(stderr, "swaptune: BUG: no room for undo handler %s\n", kind);
		abort();
	}
}

void undo_register_all(void)
{
	reg(PERSIST_KIND_FILE, persist_undo_file);
	reg(PERSIST_KIND_DIR, persist_undo_dir);
	reg(MEMCG_JOURNAL_KIND, memcg_undo);
	reg(SCRATCH_KIND_FILE, scratch_undo_file);
	reg(SCRATCH_KIND_LOOP, scratch_undo_loop);
	reg(SCRATCH_KIND_ZRAM, scratch_undo_zram);
	reg(SCRATCH_KIND_DEBUGFS, scratch_undo_debugfs);
}
