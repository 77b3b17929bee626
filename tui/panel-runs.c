/*
 * panel-runs.c - the store's newest runs (probes, samples, applies), with
 * the selected run's details below: a probe's verdict (as `recommend`
 * words it), the trials done of a probe still running, or another run's
 * summary as a readable table.
 */
#include <stdlib.h>
#include <string.h>

#include "tui-internal.h"

#define MAX_RUNS 200

struct runs_state {
	struct store_run_row rows[MAX_RUNS];
	int n, sel, top;
	int64_t shown_id;		/* run whose details are in text */
	char shown_status[16];
	struct tui_text text;
	struct st_err err;
	bool ok;
};

static void *runs_open(struct tui_ctx *c)
{
	(void)c;
	return calloc(1, sizeof(struct runs_state));
}

static void runs_details(struct tui_ctx *c, struct runs_state *r)
{
	const struct store_run_row *x = &r->rows[r->sel];
	struct st_err e = { 0 };
	unsigned done, planned;

	if (x->id != r->shown_id)
		r->text.top = 0;
	tui_text_clear(&r->text);
	r->shown_id = x->id;
	snprintf(r->shown_status, sizeof(r->shown_status), "%s", x->status);
	if (!strcmp(x->kind, "probe") && !strcmp(x->status, "running")) {
		if (tui_probe_run_counts(c, x->id, &done, &planned, &e) == 0)
			tui_text_add(&r->text, TS_TITLE, "probe running: %u of %u trials done (warm-up included)",
				     done, planned);
		else
			tui_text_add(&r->text, TS_TITLE, "probe running: no trials stored yet (%s)", e.msg);
		return;
	}
	if (!strcmp(x->kind, "probe") && tui_verdict_text(c, x->id, &r->text, &e) == 0)
		return;
	if (!strcmp(x->kind, "probe"))
		tui_text_add(&r->text, TS_WARN, "no verdict: %s", e.msg);
	if (x->summary[0])
		tui_text_add_json(&r->text, x->summary);
	else
		tui_text_add(&r->text, TS_DIM, "no summary stored for this run");
}

static void runs_update(struct tui_ctx *c, void *p)
{
	struct runs_state *r = p;
	int64_t sel_id;

	/* a probe run from this screen owns the store connection until it ends */
	if (!r || c->probe_busy)
		return;
	sel_id = r->n ? r->rows[r->sel].id : 0;
	err_reset(&r->err);
	r->ok = store_runs_recent(c->st, NULL, r->rows, MAX_RUNS, &r->n, &r->err) == 0;
	/* new runs (an apply from the screen) push the list down: keep the run chosen */
	for (int i = 0; sel_id && i < r->n; i++)
		if (r->rows[i].id == sel_id)
			r->sel = i;
	if (r->sel >= r->n)
		r->sel = r->n ? r->n - 1 : 0;
	if (r->ok && r->n && (r->rows[r->sel].id != r->shown_id ||
			      strcmp(r->rows[r->sel].status, r->shown_status) ||
			      !strcmp(r->shown_status, "running")))
		runs_details(c, r);
}

static void runs_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct runs_state *r = p;
	int list_rows = (rows - 3) / 2, y = 1;

	if (!r || !r->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the store: %s",
				  r ? r->err.msg : "out of memory");
		return;
	}
	if (!r->n) {
		tui_print_clipped(w, 1, 2, cols, "no runs in %s yet", c->st->path);
		tui_print_clipped(w, 2, 2, cols, "press F5 for a probe, or run swaptune sample --record");
		return;
	}
	if (list_rows > r->n)
		list_rows = r->n;
	if (list_rows < 1)
		list_rows = 1;
	if (r->sel < r->top)
		r->top = r->sel;
	if (r->sel >= r->top + list_rows)
		r->top = r->sel - list_rows + 1;
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "%5s  %-9s %-11s %-19s  %s", "run", "kind", "status", "started",
			  "ended");
	wattroff(w, tui_style(c, TS_TITLE));
	for (int i = r->top; i < r->n && i < r->top + list_rows; i++) {
		const struct store_run_row *x = &r->rows[i];

		if (i == r->sel)
			wattron(w, A_REVERSE);
		/* timestamps as "2026-12-01 02:03:25": the zone and fraction add nothing here */
		tui_print_clipped(w, y++, 2, cols, "%5lld  %-9s %-11s %-19.19s  %-19.19s",
				  (long long)x->id, x->kind, x->status, x->started_at,
				  x->ended_at[0] ? x->ended_at : "-");
		if (i == r->sel)
			wattroff(w, A_REVERSE);
	}
	y++;
	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "run %lld, %s:", (long long)r->rows[r->sel].id,
			  r->rows[r->sel].kind);
	wattroff(w, A_BOLD);
	if (c->probe_busy)
		tui_print_clipped(w, y++, 2, cols, "(the list is paused while the probe from this screen runs)");
	tui_text_draw(c, &r->text, w, y, rows - y, cols);
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
	else if (ch == 'a' && r->n && !strcmp(r->rows[r->sel].kind, "probe"))
		c->apply_req = r->rows[r->sel].id;
	else if (ch == 'a')
		snprintf(c->status, sizeof(c->status), " a applies a probe run's verdict: choose a probe run");
	else if (ch == KEY_NPAGE || ch == KEY_PPAGE || ch == ' ' || ch == KEY_HOME || ch == KEY_END)
		return tui_text_key(&r->text, ch);
	else
		return false;
	if (ch == 'a')
		return true;
	if (!c->probe_busy && r->n)
		runs_details(c, r);
	return true;
}

static const struct tui_key_help *runs_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help k[] = {
		{ "Up/Dn", "run" }, { "PgDn", "details" }, { "a", "apply" }, { NULL, NULL },
	};

	(void)c;
	(void)p;
	return k;
}

static void runs_close(void *p)
{
	struct runs_state *r = p;

	if (r)
		tui_text_free(&r->text);
	free(r);
}

const struct tui_panel tui_panel_runs = {
	.title = "Runs",
	.open = runs_open,
	.update = runs_update,
	.draw = runs_draw,
	.key = runs_key,
	.close = runs_close,
	.keys = runs_keys,
};
