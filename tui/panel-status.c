/*
 * panel-status.c - the host at a glance (the facts behind `swaptune status`).
 */
#include <stdlib.h>
#include <string.h>

#include "swaptune/fmt.h"
#include "swaptune/facts.h"
#include "tui-internal.h"

struct status_state {
	struct host_facts f;
	bool ok;
	struct st_err err;
};

static void *status_open(struct tui_ctx *c)
{
	return calloc(1, sizeof(struct status_state));
}

static void status_update(struct tui_ctx *c, void *p)
{
	struct status_state *s = p;

	if (!s)
		return;
	if (s->ok)
		facts_free(&s->f);
	err_reset(&s->err);
	s->ok = facts_collect(c->h, &s->f, &s->err) == 0;
	if (!s->ok)
		facts_free(&s->f);
}

static void status_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct status_state *s = p;
	const struct host_facts *f;
	char b1[32], b2[32], pcw[64], n1[32];
	int y = 1;

	if (!s || !s->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the host: %s",
				  s ? s->err.msg : "out of memory");
		return;
	}
	f = &s->f;
	tui_print_clipped(w, y++, 2, cols, "%-16s %s (%s)", "Kernel", f->kernel, f->hostname);
	tui_print_clipped(w, y++, 2, cols, "%-16s %s total, %s available", "Memory",
			  fmt_bytes(f->mem_total_bytes, b1, sizeof(b1)),
			  fmt_bytes(f->mem_available_bytes, b2, sizeof(b2)));
	if (!f->nswaps)
		tui_print_clipped(w, y++, 2, cols, "%-16s none active", "Swap");
	for (int i = 0; i < f->nswaps && y < rows - 10; i++)
		tui_print_clipped(w, y++, 2, cols, "%-16s %-22s %-9s %9s used of %-9s %s%s",
				  i ? "" : "Swap", f->swaps[i].path, f->swaps[i].type,
				  fmt_bytes(f->swaps[i].used_bytes, b1, sizeof(b1)),
				  fmt_bytes(f->swaps[i].size_bytes, b2, sizeof(b2)),
				  f->swaps[i].rotational == 1 ? "rotational" :
				  f->swaps[i].rotational == 0 ? "non-rotational" : "rotational?",
				  f->swaps[i].zram ? ", zram" : "");
	y++;
	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "%-16s %s", "Readahead",
			  f->ra_algo == RA_VMA ? "VMA" : "cluster");
	wattroff(w, A_BOLD);
	tui_print_clipped(w, y++, 4, cols, "%s", f->ra_reason);
	if (f->have_page_cluster)
		tui_print_clipped(w, y++, 2, cols, "%-16s %s", "page-cluster",
				  facts_page_cluster_words(f, pcw, sizeof(pcw)));
	tui_print_clipped(w, y++, 2, cols, "%-16s %s", "vma_ra_enabled",
			  f->have_vma_ra ? (f->vma_ra_enabled ? "true" : "false") : "n/a");
	if (f->have_swap_ra && f->swap_ra)
		tui_print_clipped(w, y++, 2, cols, "%-16s %.1f %% of %s pages read ahead since boot",
				  "hit ratio", f->ra_hit_pct, tui_fmt_count((double)f->swap_ra, n1, sizeof(n1)));
	else
		tui_print_clipped(w, y++, 2, cols, "%-16s %s", "hit ratio",
				  f->have_swap_ra ? "no readahead since boot" : "not counted");
	y++;
	if (f->zswap_present)
		tui_print_clipped(w, y++, 2, cols, "%-16s %s, %s%s", "zswap",
				  f->zswap_enabled ? "on" : "off", f->zswap_compressor,
				  f->zswap_stats_available ? "" : " (no debugfs counters)");
	else
		tui_print_clipped(w, y++, 2, cols, "%-16s not in this kernel", "zswap");
	if (f->zswap_stats_available)
		tui_print_clipped(w, y++, 2, cols, "%-16s %s pages in %s, ratio %.2f", "pool",
				  tui_fmt_count((double)f->zswap_stored_pages, n1, sizeof(n1)),
				  fmt_bytes(f->zswap_pool_bytes, b1, sizeof(b1)), f->zswap_ratio);
	tui_print_clipped(w, y++, 2, cols, "%-16s %s", "Cgroups", cgroup_mode_name(f->cgroup.mode));
	if (f->psi_available)
		tui_print_clipped(w, y++, 2, cols, "%-16s some %.2f %%  full %.2f %% (avg10)",
				  "PSI memory", f->psi.some.avg10, f->psi.full.avg10);
	tui_print_clipped(w, y++, 2, cols, "%-16s %s", "CPU counters",
			  f->pmu.hw_available ? "hardware" :
			  f->pmu.sw_available ? "software only (no hardware PMU)" : "none");
	if (!c->root && y + 1 < rows) {
		wattron(w, tui_style(c, TS_WARN));
		tui_print_clipped(w, y + 1, 2, cols, "%s", c->h->live ?
				  "read-only: probing (F5) needs root" :
				  "read-only: a captured host (--sysroot); probing (F5) needs the live host");
		wattroff(w, tui_style(c, TS_WARN));
	}
}

static void status_close(void *p)
{
	struct status_state *s = p;

	if (s && s->ok)
		facts_free(&s->f);
	free(s);
}

const struct tui_panel tui_panel_status = {
	.title = "Status",
	.open = status_open,
	.update = status_update,
	.draw = status_draw,
	.close = status_close,
};
