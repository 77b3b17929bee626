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
	struct tui_text text;	/* the facts as lines, wrapped and scrolled at draw time */
};

static void *status_open(struct tui_ctx *c)
{
	(void)c;
	return calloc(1, sizeof(struct status_state));
}

/* The facts as text lines: a long reason wraps under its value instead of being cut. */
static void status_lines(struct tui_ctx *c, struct status_state *s)
{
	const struct host_facts *f = &s->f;
	struct tui_text *t = &s->text;
	char b1[32], b2[32], pcw[64], n1[FMT_NUM_LEN], p1[32], p2[32];

	tui_text_clear(t);
	tui_text_add(t, TS_NORMAL, "%-16s %s (%s)", "Kernel", fmt_printable(f->kernel), fmt_printable(f->hostname));
	tui_text_add(t, TS_NORMAL, "%-16s %s total, %s available", "Memory",
		     fmt_bytes(f->mem_total_bytes, b1, sizeof(b1)), fmt_bytes(f->mem_available_bytes, b2, sizeof(b2)));
	if (!f->nswaps)
		tui_text_add(t, TS_NORMAL, "%-16s none active", "Swap");
	for (int i = 0; i < f->nswaps; i++)
		tui_text_add(t, TS_NORMAL, "%-16s %s %s, %s used of %s, %s%s", i ? "" : "Swap",
			     fmt_printable(f->swaps[i].path), fmt_printable(f->swaps[i].type),
			     fmt_bytes(f->swaps[i].used_bytes, b1, sizeof(b1)),
			     fmt_bytes(f->swaps[i].size_bytes, b2, sizeof(b2)),
			     f->swaps[i].rotational == 1 ? "rotational" :
			     f->swaps[i].rotational == 0 ? "non-rotational" : "rotational?",
			     f->swaps[i].zram ? ", zram" : "");
	tui_text_add(t, TS_NORMAL, "%s", "");
	tui_text_add(t, TS_TITLE, "%-16s %s: %s", "Readahead", f->ra_algo == RA_VMA ? "VMA" : "cluster",
		     fmt_printable(f->ra_reason));
	if (f->have_page_cluster)
		tui_text_add(t, TS_NORMAL, "%-16s %s", "page-cluster", facts_page_cluster_words(f, pcw, sizeof(pcw)));
	tui_text_add(t, TS_NORMAL, "%-16s %s", "vma_ra_enabled",
		     f->have_vma_ra ? (f->vma_ra_enabled ? "true" : "false") : "n/a");
	if (f->have_swap_ra && f->swap_ra)
		tui_text_add(t, TS_NORMAL, "%-16s %s of %s readahead pages used since boot", "hit ratio",
			     fmt_pct(f->ra_hit_pct, false, p1, sizeof(p1)),
			     tui_fmt_count((double)f->swap_ra, n1, sizeof(n1)));
	else
		tui_text_add(t, TS_NORMAL, "%-16s %s", "hit ratio",
			     f->have_swap_ra ? "no readahead since boot" : "not counted");
	tui_text_add(t, TS_NORMAL, "%s", "");
	if (f->zswap_present)
		tui_text_add(t, TS_NORMAL, "%-16s %s, %s%s", "zswap", f->zswap_enabled ? "on" : "off",
			     fmt_printable(f->zswap_compressor), f->zswap_stats_available ? "" : " (no debugfs counters)");
	else
		tui_text_add(t, TS_NORMAL, "%-16s not in this kernel", "zswap");
	if (f->zswap_stats_available)
		tui_text_add(t, TS_NORMAL, "%-16s %s pages in %s, compression %s:1", "pool",
			     tui_fmt_count((double)f->zswap_stored_pages, n1, sizeof(n1)),
			     fmt_bytes(f->zswap_pool_bytes, b1, sizeof(b1)), fmt_num(f->zswap_ratio, b2, sizeof(b2)));
	tui_text_add(t, TS_NORMAL, "%-16s %s (per cgroup: panel 7)", "Cgroups", cgroup_mode_name(f->cgroup.mode));
	if (f->psi_available)
		tui_text_add(t, TS_NORMAL, "%-16s some %s, full %s (avg10)", "PSI memory",
			     fmt_pct(f->psi.some.avg10, false, p1, sizeof(p1)),
			     fmt_pct(f->psi.full.avg10, false, p2, sizeof(p2)));
	tui_text_add(t, TS_NORMAL, "%-16s %s", "CPU counters", f->pmu.hw_available ? "hardware" :
		     f->pmu.sw_available ? "software only (no hardware PMU)" : "none");
	if (!c->root) {
		tui_text_add(t, TS_NORMAL, "%s", "");
		tui_text_add(t, TS_WARN, "%s", c->h->live ? "read-only: probing (F5) and applying need root" :
			     c->can_change ? "a captured host (--sysroot): apply writes its files; probing (F5) "
			     "needs the live host" : "read-only: a captured host (--sysroot); probing (F5) needs "
			     "the live host");
	}
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
	else
		status_lines(c, s);
}

static void status_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct status_state *s = p;

	if (!s || !s->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the host: %s",
				  s ? s->err.msg : "out of memory");
		return;
	}
	tui_text_draw(c, &s->text, w, 1, rows - 1, cols);
}

static bool status_key(struct tui_ctx *c, void *p, int ch)
{
	struct status_state *s = p;

	(void)c;
	return s && tui_text_key(&s->text, ch);
}

static void status_close(void *p)
{
	struct status_state *s = p;

	if (s && s->ok)
		facts_free(&s->f);
	if (s)
		tui_text_free(&s->text);
	free(s);
}

const struct tui_panel tui_panel_status = {
	.title = "Status",
	.open = status_open,
	.update = status_update,
	.draw = status_draw,
	.key = status_key,
	.close = status_close,
};
