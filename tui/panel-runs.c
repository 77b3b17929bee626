/*
 * panel-runs.c - the Runs panel: what was measured. Probe runs with their
 * verdict as the pane below judges it (recommend's judgement: one source,
 * so the row and the pane agree), switchback runs with the verdict they
 * stored (their windows done while they run) and sample recordings with
 * their length, newest first; "/" searches, "s" changes the sort key and
 * "S" its direction (both shown). Below the list, the
 * chosen run: a probe's verdict (the trials done of one still running), a
 * recording's means; Enter on a recording browses its ticks as
 * `sample --replay` prints them; o writes a probe run's report (as
 * `report --run`) to a path typed. The change journal (apply, rollback) is
 * the History panel's.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/fmt.h"
#include "swaptune/history.h"
#include "swaptune/replay.h"
#include "swaptune/sbrun.h"
#include "tui-internal.h"

#define MAX_RUNS 200
#define REPLAY_TICKS_MAX 100000	/* a recording browsed here at most (the rest: sample --replay) */

enum run_sort { BY_ID, BY_KIND, BY_STATUS, BY_RESULT, RUN_SORT_COUNT };
static const char *const sort_names[RUN_SORT_COUNT] = { "newest", "kind", "status", "verdict" };

struct run_item {
	int64_t id;
	char kind[16];
	char status[24];
	char started[FMT_TIME_LEN + 8];
	char result[64];	/* a probe's verdict, a recording's ticks and length */
	uint64_t ticks;
};

struct runs_state {
	struct run_item items[3 * MAX_RUNS];	/* probes, switchbacks, recordings */
	int n;
	int shown[3 * MAX_RUNS], n_shown;
	int sel, top;
	int64_t shown_id;		/* run whose details are in text */
	char shown_status[24];
	struct tui_text text;
	struct st_err err;
	bool ok;
	struct tui_filter filter;
	enum run_sort sort;
	bool reverse;
	int64_t replay_id;		/* browsing this recording's ticks, 0 none */
	struct tui_text replay;
	bool ask_path;			/* o: typing the path of the chosen probe's report */
	char path[512];
	/*
	 * A finished probe's verdict as the pane below judges it (recommend's
	 * judgement, pooled with its replications): judged once, again when
	 * the number of probe runs changes (a new run may pool with it).
	 */
	struct { int64_t id; char label[64]; } judged[MAX_RUNS];
	int n_judged, judged_probes;
};

static void *runs_open(struct tui_ctx *c)
{
	(void)c;
	return calloc(1, sizeof(struct runs_state));
}

/*
 * "CHANGE to pc0", "KEEP pc3", "INCONCLUSIVE": the verdict line's words,
 * from the verdict a run stored (a probe's verdict.kind and .arm, a
 * switchback's decision and chosen).
 */
static void run_result(const struct store_run *x, char *out, size_t len)
{
	cJSON *sum, *v, *k, *arm;
	bool change, keep;

	snprintf(out, len, "%s", !strcmp(x->status, "running") ? "running" : "no verdict stored");
	if (!strcmp(x->status, "running") || !x->summary)
		return;
	sum = cJSON_Parse(x->summary);
	v = cJSON_GetObjectItem(sum, "verdict");
	k = v ? cJSON_GetObjectItem(v, "kind") : cJSON_GetObjectItem(sum, "decision");
	arm = v ? cJSON_GetObjectItem(v, "arm") : cJSON_GetObjectItem(sum, "chosen");
	if (cJSON_IsString(k)) {
		change = !strcmp(k->valuestring, "change") || !strcmp(k->valuestring, "switch");
		keep = !strcmp(k->valuestring, "keep");
		snprintf(out, len, "%s%s%s", change ? "CHANGE" : keep ? "KEEP" :
			 !strcmp(k->valuestring, "inconclusive") ? "INCONCLUSIVE" : k->valuestring,
			 cJSON_IsString(arm) && (change || keep) ? change ? " to " : " " : "",
			 cJSON_IsString(arm) && (change || keep) ? arm->valuestring : "");
	}
	cJSON_Delete(sum);
}

/* A probe's row says what its verdict pane says: the same judgement, kept in r->judged. */
static void probe_result(struct tui_ctx *c, struct runs_state *r, struct run_item *x)
{
	struct st_err e = { 0 };
	int i;

	for (i = 0; i < r->n_judged; i++)
		if (r->judged[i].id == x->id)
			break;
	if (i == r->n_judged) {
		if (i == MAX_RUNS)
			return;
		r->judged[i].id = x->id;
		if (tui_verdict_label(c, x->id, r->judged[i].label, sizeof(r->judged[i].label), &e) < 0 ||
		    !r->judged[i].label[0])
			snprintf(r->judged[i].label, sizeof(r->judged[i].label), "no verdict");
		r->n_judged++;
	}
	snprintf(x->result, sizeof(x->result), "%s", r->judged[i].label);
}

/* The probe or switchback runs listed, as items. */
static void add_runs(struct runs_state *r, const struct store_run *rows, int n)
{
	for (int i = 0; i < n; i++) {
		struct run_item *x = &r->items[r->n++];

		memset(x, 0, sizeof(*x));
		x->id = rows[i].id;
		snprintf(x->kind, sizeof(x->kind), "%s", rows[i].kind);
		snprintf(x->status, sizeof(x->status), "%s", rows[i].status);
		fmt_time(rows[i].started_at, false, x->started, sizeof(x->started));
		run_result(&rows[i], x->result, sizeof(x->result));
	}
}

static int cmp_items(const struct run_item *x, const struct run_item *y, enum run_sort k)
{
	int c = 0;

	switch (k) {
	case BY_KIND: c = strcmp(x->kind, y->kind); break;
	case BY_STATUS: c = strcmp(x->status, y->status); break;
	case BY_RESULT: c = strcmp(x->result, y->result); break;
	case BY_ID: case RUN_SORT_COUNT: break;
	}
	return c ? c : x->id > y->id ? -1 : x->id < y->id;
}

/* The run the cursor is on, 0 none: read before the items change. */
static int64_t selected_id(const struct runs_state *r)
{
	return r->n_shown ? r->items[r->shown[r->sel]].id : 0;
}

/*
 * Sort and filter the items; the cursor stays on run sel_id (from
 * selected_id() before the items were reloaded or re-sorted: afterwards
 * r->shown[r->sel] indexes another row, and the cursor jumped to whatever
 * run the reload put there, once per refresh).
 */
static void runs_order(struct runs_state *r, int64_t sel_id)
{
	/* insertion sort: a few hundred rows */
	for (int i = 1; i < r->n; i++)
		for (int j = i; j > 0; j--) {
			int c = cmp_items(&r->items[j - 1], &r->items[j], r->sort);
			struct run_item t;

			if ((r->reverse ? -c : c) <= 0)
				break;
			t = r->items[j], r->items[j] = r->items[j - 1], r->items[j - 1] = t;
		}
	r->n_shown = 0;
	for (int i = 0; i < r->n; i++) {
		char text[256];

		snprintf(text, sizeof(text), "%lld %s %s %s %s", (long long)r->items[i].id, r->items[i].kind,
			 r->items[i].status, r->items[i].started, r->items[i].result);
		if (tui_filter_match(&r->filter, text))
			r->shown[r->n_shown++] = i;
	}
	r->sel = 0;
	for (int i = 0; sel_id && i < r->n_shown; i++)
		if (r->items[r->shown[i]].id == sel_id)
			r->sel = i;
}

/* A recording's summary: its length and the means sample --record kept. */
static void recording_details(struct runs_state *r, const struct run_item *x, const char *summary)
{
	cJSON *sum = summary && *summary ? cJSON_Parse(summary) : NULL, *means, *m;
	char b1[FMT_NUM_LEN];

	tui_text_add(&r->text, TS_TITLE, "recording %lld: %s ticks, %s", (long long)x->id,
		     fmt_num((double)x->ticks, b1, sizeof(b1)), x->status);
	tui_text_add(&r->text, TS_DIM, "Enter: browse its ticks as swaptune sample --replay %lld prints them",
		     (long long)x->id);
	means = cJSON_GetObjectItem(sum, "means");
	if (cJSON_IsObject(means)) {
		tui_text_add(&r->text, TS_TITLE, "means over the recording:");
		cJSON_ArrayForEach(m, means)
			if (cJSON_IsNumber(m)) {
				size_t kl = strlen(m->string);
				bool bytes = kl > 6 && !strcmp(m->string + kl - 6, "_bytes");

				tui_text_add(&r->text, TS_NORMAL, "  %-40s %s", m->string, bytes ?
					     tui_fmt_bytes(m->valuedouble, b1, sizeof(b1)) :
					     fmt_num(m->valuedouble, b1, sizeof(b1)));
			}
	} else {
		tui_text_add(&r->text, TS_DIM, "no means stored (the recording ended before its summary): "
			     "Enter shows its ticks");
	}
	cJSON_Delete(sum);
}

/* A switchback run: its windows so far while it runs, else its verdict as recommend gives it. */
static int switchback_text(struct tui_ctx *c, const struct run_item *x, struct tui_text *t,
			   struct st_err *e)
{
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int r;

	if (!s)
		return err_set(e, -ENOMEM, "out of memory");
	r = sbrun_load(c->st, c->h, x->id, s, e);
	if (r == 0 && !strcmp(x->status, "running")) {
		tui_text_add(t, TS_TITLE, "switchback running: %u of %u windows done",
			     s->n_windows, s->design.plan.n_blocks * s->design.plan.n_arms);
	} else if (r == 0 && (m = open_memstream(&buf, &len)) != NULL) {
		sbrun_verdict_print(m, s);
		fclose(m);
		tui_verdict_add_block(t, buf);
		free(buf);
	}
	sbrun_stored_free(s);
	free(s);
	return r;
}

static void runs_details(struct tui_ctx *c, struct runs_state *r)
{
	const struct run_item *x;
	struct st_err e = { 0 };
	unsigned done, planned;

	if (!r->n_shown)
		return;
	x = &r->items[r->shown[r->sel]];
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
	if (!strcmp(x->kind, "switchback")) {
		if (switchback_text(c, x, &r->text, &e) < 0)
			tui_text_add(&r->text, TS_WARN, "no verdict: %s", e.msg);
		return;
	}
	if (!strcmp(x->kind, "probe")) {
		char label[64];

		if (tui_verdict_text(c, x->id, &r->text, label, sizeof(label), &e) < 0)
			tui_text_add(&r->text, TS_WARN, "no verdict: %s", e.msg);
		/* the row says what the pane now says */
		for (int i = 0; i < r->n_judged; i++)
			if (r->judged[i].id == x->id)
				snprintf(r->judged[i].label, sizeof(r->judged[i].label), "%s",
					 label[0] ? label : "no verdict");
		snprintf(r->items[r->shown[r->sel]].result, sizeof(x->result), "%s", label[0] ? label : "no verdict");
		return;
	}
	{
		struct store_run ri;

		if (history_run(c->st, x->id, &ri, &e) == 0) {
			recording_details(r, x, ri.summary);
			history_run_free(&ri);
		} else {
			tui_text_add(&r->text, TS_WARN, "cannot read recording %lld: %s", (long long)x->id, e.msg);
		}
	}
}

static void runs_update(struct tui_ctx *c, void *p)
{
	static const struct store_runs_which probes = { .kind1 = "probe", .limit = MAX_RUNS };
	static const struct store_runs_which switchbacks = {
		.kind1 = "switchback", .limit = MAX_RUNS
	};
	struct runs_state *r = p;
	struct store_run *rows = NULL, *sbs = NULL;
	struct store_sample_run *recs = calloc(MAX_RUNS, sizeof(*recs));
	int np = 0, ns = 0, nr = 0;
	int64_t sel_id;

	/* a probe run from this screen owns the store connection until it ends */
	if (!r || c->probe_busy || r->replay_id || !recs) {
		free(recs);
		return;
	}
	sel_id = selected_id(r);
	err_reset(&r->err);
	r->ok = history_runs(c->st, &probes, &rows, &np, &r->err) == 0 &&
		history_runs(c->st, &switchbacks, &sbs, &ns, &r->err) == 0 &&
		history_recordings(c->st, false, recs, MAX_RUNS, &nr, &r->err) == 0;
	r->n = 0;
	if (r->ok) {
		add_runs(r, rows, np);
		if (np != r->judged_probes)
			r->n_judged = 0;
		r->judged_probes = np;
		for (int i = 0; i < r->n; i++)
			if (strcmp(r->items[i].status, "running"))
				probe_result(c, r, &r->items[i]);
		add_runs(r, sbs, ns);
	}
	for (int i = 0; r->ok && i < nr; i++) {
		struct run_item *x = &r->items[r->n++];
		char b1[FMT_NUM_LEN], b2[FMT_NUM_LEN];

		memset(x, 0, sizeof(*x));
		x->id = recs[i].run_id;
		snprintf(x->kind, sizeof(x->kind), "recording");
		snprintf(x->status, sizeof(x->status), "%s", recs[i].status);
		fmt_time(recs[i].started_at, false, x->started, sizeof(x->started));
		x->ticks = recs[i].ticks;
		snprintf(x->result, sizeof(x->result), "%s tick%s, %s s", fmt_num((double)recs[i].ticks, b1, sizeof(b1)),
			 recs[i].ticks == 1 ? "" : "s", fmt_num((double)recs[i].duration_ns / 1e9, b2, sizeof(b2)));
	}
	history_runs_free(rows, np);
	history_runs_free(sbs, ns);
	free(recs);
	runs_order(r, sel_id);
	if (r->ok && r->n_shown && (r->items[r->shown[r->sel]].id != r->shown_id ||
				    strcmp(r->items[r->shown[r->sel]].status, r->shown_status) ||
				    !strcmp(r->shown_status, "running")))
		runs_details(c, r);
}

/* Enter on a recording: its ticks as `sample --replay` prints them, into r->replay. */
static void open_replay(struct tui_ctx *c, struct runs_state *r, const struct run_item *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct st_err e = { 0 };

	tui_text_clear(&r->replay);
	r->replay.top = 0;
	r->replay.table = false;	/* a message wraps; the table itself does not */
	r->replay_id = x->id;
	if (x->ticks > REPLAY_TICKS_MAX) {
		tui_text_add(&r->replay, TS_WARN, "recording %lld has %llu ticks: more than this screen browses "
			     "(%d); see swaptune sample --replay %lld | less", (long long)x->id,
			     (unsigned long long)x->ticks, REPLAY_TICKS_MAX, (long long)x->id);
		return;
	}
	if (!(f = open_memstream(&buf, &len))) {
		tui_text_add(&r->replay, TS_BAD, "out of memory");
		return;
	}
	if (sample_replay(c->st, x->id, REPLAY_TABLE, f, &e) < 0) {
		fclose(f);
		tui_text_add(&r->replay, TS_BAD, "cannot replay recording %lld: %s", (long long)x->id, e.msg);
	} else {
		fclose(f);
		tui_text_add_block(&r->replay, TS_NORMAL, buf);
		r->replay.table = true;
	}
	free(buf);
}

static void runs_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct runs_state *r = p;
	int list_rows = (rows - 4) / 2, y = 1;

	if (!r || !r->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the store: %s",
				  r ? r->err.msg : "out of memory");
		return;
	}
	if (r->replay_id) {
		char where[48];

		/* the table first: the line above says where it is scrolled to */
		tui_text_draw(c, &r->replay, w, y + 1, rows - y - 1, cols);
		tui_text_where(&r->replay, where, sizeof(where));
		wattron(w, A_BOLD);
		/* Esc, Enter or Left goes back: the footer says so */
		tui_print_clipped(w, y, 2, cols, "recording %lld as swaptune sample --replay %lld prints it%s%s",
				  (long long)r->replay_id, (long long)r->replay_id, where[0] ? ", " : "", where);
		wattroff(w, A_BOLD);
		return;
	}
	if (!r->n) {
		tui_print_clipped(w, 1, 2, cols, "no probe runs or recordings in %s yet", c->st->path);
		tui_print_clipped(w, 2, 2, cols, "press F5 for a probe, or run swaptune sample --record");
		return;
	}
	if (list_rows < 1)
		list_rows = 1;
	if (r->sel < r->top)
		r->top = r->sel;
	if (r->sel >= r->top + list_rows)
		r->top = r->sel - list_rows + 1;
	{
		/* the sorted column marked with its direction: newest (largest id) first is down */
		const char *arrow = (r->sort == BY_ID) != r->reverse ? (c->utf8 ? "\u25bc" : "v") :
			(c->utf8 ? "\u25b2" : "^");
		char run[16], kind[16], status[16], res[40];

		snprintf(run, sizeof(run), "%s%s", r->sort == BY_ID ? arrow : " ", "run");
		snprintf(kind, sizeof(kind), "kind%s", r->sort == BY_KIND ? arrow : " ");
		snprintf(status, sizeof(status), "status%s", r->sort == BY_STATUS ? arrow : " ");
		snprintf(res, sizeof(res), "verdict / length%s", r->sort == BY_RESULT ? arrow : "");
		wattron(w, tui_style(c, TS_TITLE));
		/* each label is one column wider than its letters (the arrow or a blank) */
		tui_print_clipped(w, y++, 2, cols, "%*s  %s%*s %s%*s %-20s  %s",
				  4 + (int)(strlen(run) - strlen(" run")) + 1, run,
				  kind, 10 - 5, "", status, 11 - 7, "", "started (UTC)", res);
		wattroff(w, tui_style(c, TS_TITLE));
	}
	for (int i = r->top; i < r->n_shown && i < r->top + list_rows; i++) {
		const struct run_item *x = &r->items[r->shown[i]];
		attr_t a = i == r->sel ? A_REVERSE : !strncmp(x->result, "CHANGE", 6) ? tui_style(c, TS_GOOD) : 0;

		wattron(w, a);
		tui_print_clipped(w, y++, 2, cols, "%5lld  %-10s %-11.11s %-20s  %s", (long long)x->id, x->kind,
				  x->status, x->started, x->result);
		wattroff(w, a);
	}
	y = 2 + list_rows;
	tui_filter_draw(c, &r->filter, w, y++, cols,
			&(struct tui_list_view){ r->n_shown, r->n, sort_names[r->sort], r->reverse });
	if (!r->n_shown)
		return;
	if (r->ask_path) {
		wattron(w, tui_style(c, TS_WARN) | A_BOLD);
		tui_print_clipped(w, y, 2, cols, "Write the report of run %lld to: %s_",
				  (long long)r->items[r->shown[r->sel]].id, r->path);
		wattroff(w, tui_style(c, TS_WARN) | A_BOLD);
		return;
	}
	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "run %lld, %s:", (long long)r->items[r->shown[r->sel]].id,
			  r->items[r->shown[r->sel]].kind);
	wattroff(w, A_BOLD);
	if (c->probe_busy)
		tui_print_clipped(w, y++, 2, cols, "(the list is paused while the probe from this screen runs)");
	tui_text_draw(c, &r->text, w, y, rows - y, cols);
}

static bool runs_key(struct tui_ctx *c, void *p, int ch)
{
	struct runs_state *r = p;
	const struct run_item *x;

	if (!r)
		return false;
	if (r->replay_id) {
		if (ch == 27 || ch == KEY_BACKSPACE || ch == '\n' || ch == KEY_ENTER || ch == KEY_LEFT) {
			r->replay_id = 0;
			tui_text_clear(&r->replay);
			return true;
		}
		return tui_text_key(&r->replay, ch);
	}
	if (r->ask_path) {
		struct st_err e = { 0 };
		int k = tui_line_key(r->path, sizeof(r->path), ch);

		x = r->n_shown ? &r->items[r->shown[r->sel]] : NULL;
		if (k < 0 || !x) {
			r->ask_path = false;
			snprintf(c->status, sizeof(c->status), " report not written");
		} else if (k > 0 && r->path[0]) {
			r->ask_path = false;
			if (tui_write_report(c, x->id, x->kind, r->path, &e) < 0)
				snprintf(c->status, sizeof(c->status), " report not written: %s", e.msg);
			else
				snprintf(c->status, sizeof(c->status), " wrote the report of run %lld to %s",
					 (long long)x->id, r->path);
		}
		return true;
	}
	if (tui_filter_key(&r->filter, ch)) {
		runs_order(r, selected_id(r));
		if (!c->probe_busy)
			runs_details(c, r);
		return true;
	}
	x = r->n_shown ? &r->items[r->shown[r->sel]] : NULL;
	if ((ch == KEY_DOWN || ch == 'j') && r->sel + 1 < r->n_shown)
		r->sel++;
	else if ((ch == KEY_UP || ch == 'k') && r->sel > 0)
		r->sel--;
	else if (ch == 's' || ch == 'S') {
		if (ch == 's')
			r->sort = (enum run_sort)((r->sort + 1) % RUN_SORT_COUNT);
		else
			r->reverse = !r->reverse;
		runs_order(r, selected_id(r));
	} else if ((ch == '\n' || ch == KEY_ENTER) && x && !strcmp(x->kind, "recording") && !c->probe_busy) {
		open_replay(c, r, x);
		return true;
	} else if (ch == 'a' && x && !strcmp(x->kind, "probe")) {
		c->apply_req = x->id;
		return true;
	} else if (ch == 'a' && x && !strcmp(x->kind, "switchback")) {
		/* the command recommend prints, with its safety net */
		snprintf(c->status, sizeof(c->status), " not from this screen yet: swaptune apply --run %lld "
			 "--confirm-within %s", (long long)x->id, ADVICE_APPLY_CONFIRM_WITHIN);
		return true;
	} else if (ch == 'a') {
		snprintf(c->status, sizeof(c->status), " a applies a probe run's verdict: choose a probe run");
		return true;
	} else if (ch == 'o' && x && !strcmp(x->kind, "probe") && !c->probe_busy) {
		snprintf(r->path, sizeof(r->path), "./swaptune-run-%lld.txt", (long long)x->id);
		r->ask_path = true;
		return true;
	} else if (ch == 'o') {
		snprintf(c->status, sizeof(c->status), " o writes a probe run's report: choose a probe run "
			 "(a recording's: swaptune report --before/--after)");
		return true;
	} else if (ch == KEY_NPAGE || ch == KEY_PPAGE || ch == ' ' || ch == KEY_HOME || ch == KEY_END) {
		return tui_text_key(&r->text, ch);
	} else {
		return false;
	}
	if (!c->probe_busy && r->n_shown)
		runs_details(c, r);
	return true;
}

static bool runs_grabs_keys(void *p)
{
	const struct runs_state *r = p;

	return r && (r->filter.editing || r->ask_path);
}

static const struct tui_key_help *runs_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help k[] = {
		{ "Up/Dn", "run" }, { "Enter", "ticks" }, { "a", "apply" }, { "o", "report" }, { "/", "search" },
		{ "s", "sort" }, { "S", "reverse" }, { "PgDn", "details" }, { NULL, NULL },
	};
	static const struct tui_key_help path[] = {
		{ "Enter", "write" }, { "Esc", "cancel" }, { "^U", "clear" }, { NULL, NULL },
	};
	static const struct tui_key_help replay[] = {
		{ "Up/Dn PgDn", "scroll" }, { "Esc", "back" }, { NULL, NULL },
	};
	static const struct tui_key_help typing[] = {
		{ "Enter", "keep" }, { "Esc", "clear" }, { NULL, NULL },
	};
	const struct runs_state *r = p;

	(void)c;
	return r && r->replay_id ? replay : r && r->ask_path ? path : r && r->filter.editing ? typing : k;
}

static void runs_close(void *p)
{
	struct runs_state *r = p;

	if (r) {
		tui_text_free(&r->text);
		tui_text_free(&r->replay);
	}
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
	.grabs_keys = runs_grabs_keys,
};
