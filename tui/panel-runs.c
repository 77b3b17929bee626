/*
 * panel-runs.c - the store's newest runs (probes, samples, applies), with
 * the selected run's summary.
 */
#include <stdlib.h>
#include <string.h>

#include "tui-internal.h"

#define MAX_RUNS 200

struct runs_state {
	struct store_run_row rows[MAX_RUNS];
	int n, sel, top;
	struct st_err err;
	bool ok;
};

static void *runs_open(struct tui_ctx *c)
{
	return calloc(1, sizeof(struct runs_state));
}

static void runs_update(struct tui_ctx *c, void *p)
{
	struct runs_state *r = p;

	if (!r)
		return;
	err_reset(&r->err);
	r->ok = store_runs_recent(c->st, NULL, r->rows, MAX_RUNS, &r->n, &r->err) == 0;
	if (r->sel >= r->n)
		r->sel = r->n ? r->n - 1 : 0;
}

static void runs_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct runs_state *r = p;
	int list_rows = rows - 6, y = 1;

	if (!r || !r->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the store: %s",
				  r ? r->err.msg : "out of memory");
		return;
	}
	if (!r->n) {
		tui_print_clipped(w, 1, 2, cols, "no runs in %s yet: try swaptune probe or swaptune sample --record",
				  c->st->path);
		return;
	}
	if (list_rows < 1)
		list_rows = 1;
	if (r->sel < r->top)
		r->top = r->sel;
	if (r->sel >= r->top + list_rows)
		r->top = r->sel - list_rows + 1;
	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "%6s  %-9s %-12s %-24s %-24s", "run", "kind",
			  "status", "started", "ended");
	wattroff(w, A_BOLD);
	for (int i = r->top; i < r->n && i < r->top + list_rows; i++) {
		const struct store_run_row *x = &r->rows[i];

		if (i == r->sel)
			wattron(w, A_REVERSE);
		tui_print_clipped(w, y++, 2, cols, "%6lld  %-9s %-12s %-24s %-24s",
				  (long long)x->id, x->kind, x->status, x->started_at,
				  x->ended_at[0] ? x->ended_at : "-");
		if (i == r->sel)
			wattroff(w, A_REVERSE);
	}
	y = rows - 4;
	tui_print_clipped(w, y++, 2, cols, "summary of run %lld (up/down to choose; "
			  "swaptune recommend --run %lld for the verdict):",
			  (long long)r->rows[r->sel].id, (long long)r->rows[r->sel].id);
	tui_print_clipped(w, y, 2, cols, "%s", r->rows[r->sel].summary[0] ?
			  r->rows[r->sel].summary : "(none)");
}

static bool runs_key(struct tui_ctx *c, void *p, int ch)
{
	struct runs_state *r = p;

	if (!r)
		return false;
	if ((ch == KEY_DOWN || ch == 'j') && r->sel + 1 < r->n)
		r->sel++;
	else if ((ch == KEY_UP || ch == 'k') && r->sel > 0)
		r->sel--;
	else
		return false;
	return true;
}

static void runs_close(void *p)
{
	free(p);
}

const struct tui_panel tui_panel_runs = {
	.title = "Runs",
	.open = runs_open,
	.update = runs_update,
	.draw = runs_draw,
	.key = runs_key,
	.close = runs_close,
};
