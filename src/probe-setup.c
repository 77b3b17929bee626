/*
 * probe-setup.c - setting the host up for a probe and restoring it: the
 * debugfs mount (for the zswap pool's size), zswap on, the scratch swap or
 * the host's own, zram for the bypass emulated by it, the readahead the
 * kernel uses; every change journaled first, and undone at the end through
 * the journal. The round loop (probe-engine.c) and the bypass check
 * (probe-bypass.c) both call it.
 */
#include <stdio.h>

#include "probe-int.h"
#include "swaptune/facts.h"

int probe_engine_setup(struct engine *E, struct st_err *e)
{
	const struct probe_plan *p = E->p;
	struct probe_result *r = E->r;
	int rc;

	probe_report(E, PROBE_PHASE_SETUP, NULL, 0, "setting up");
	if (p->mount_debugfs) {
		struct st_err e1 = {0};

		/* without debugfs the pool is checked through meminfo: not fatal */
		if (scratch_debugfs_mount(E->h, journal_hooks(&E->j), &r->debugfs_mounted, &e1) < 0)
			snprintf(r->bypass_evidence, sizeof(r->bypass_evidence), "%s", "");
	}
	if (p->enable_zswap) {
		rc = journal_set(&E->j, "zswap.enabled", "Y", true, NULL, e);
		if (rc < 0)
			return err_prefix(e, "cannot enable zswap for the probe");
		r->zswap_enabled_by_probe = true;
	}
	if (!p->have_host_swap) {
		char said[160];

		rc = scratch_loop_module(E->h, said, sizeof(said), e);
		if (rc < 0)
			return rc;
		if (rc > 0)
			probe_report_keep(E, 0, said);
		rc = scratch_swap_create_loop(&E->swap, E->h, journal_hooks(&E->j), E->c->scratch_dir,
					      E->c->swap_size_bytes, e);
		if (rc < 0)
			return rc;
		E->have_swap = true;
		snprintf(r->swap_kind, sizeof(r->swap_kind), "scratch-loop");
		snprintf(r->swap_device, sizeof(r->swap_device), "%s", E->swap.dev);
		snprintf(r->swap_file, sizeof(r->swap_file), "%s", E->swap.file);
		r->swap_bytes = E->swap.size_bytes;
		r->swap_direct_io = E->swap.direct_io;
	} else {
		snprintf(r->swap_kind, sizeof(r->swap_kind), "host");
		snprintf(r->swap_device, sizeof(r->swap_device), "%s", p->host_swap);
	}
	{
		struct host_facts f;
		struct st_err e1 = {0};

		if (facts_collect(E->h, &f, &e1) == 0)
			snprintf(r->readahead, sizeof(r->readahead), "%s",
				 f.ra_algo == RA_VMA ? "vma" : "cluster");
		facts_free(&f);
	}
	return 0;
}

int probe_engine_zram(struct engine *E, struct st_err *e)
{
	int rc = scratch_swap_create_zram(&E->zram, E->h, journal_hooks(&E->j), E->c->swap_size_bytes, e);

	if (rc < 0)
		return rc;
	E->have_zram = true;
	return scratch_swap_off(&E->zram, e);
}

void probe_engine_teardown(struct engine *E, struct st_err *e)
{
	struct probe_result *r = E->r;
	struct st_err e1 = {0};
	int first = 0, rc;

	probe_report(E, PROBE_PHASE_TEARDOWN, NULL, 0, "restoring the host");
	if (E->have_zram && (rc = scratch_swap_destroy(&E->zram, &e1)) < 0 && !first)
		first = rc;
	if (E->have_swap && (rc = scratch_swap_destroy(&E->swap, &e1)) < 0 && !first)
		first = rc;
	if (r->debugfs_mounted && (rc = scratch_debugfs_umount(E->h, journal_hooks(&E->j), &e1)) < 0 && !first)
		first = rc;
	/* settings, and anything the steps above left pending */
	if (E->journaled) {
		rc = journal_restore(&E->j, &r->restored, &e1);
		if (rc < 0 && !first)
			first = rc;
	}
	if (first) {
		snprintf(r->restore_error, sizeof(r->restore_error), "%s", e1.msg);
		err_set(e, first, "%s", e1.msg);
	}
}
