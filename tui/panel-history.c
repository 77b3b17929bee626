/*
 * panel-history.c - the History panel: the change journal - every apply
 * and rollback run (what was measured is the Runs panel's), "/" to search
 * and "s" to sort, the selected run's parameters, snapshots and journal rows;
 * b rolls back to the snapshot taken before the selected run (after an
 * explicit y/N; a pending confirm-within apply is reverted instead, as
 * `swaptune rollback` does), o writes the selected run's report (the report
 * command's text) to a file. Planning and rollback are the change module's.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/change.h"
#include "swaptune/fmt.h"
#include "swaptune/history.h"
#include "swaptune/host.h"
#include "swaptune/report.h"
#include "tui-internal.h"

#define HIST_MAX 200

enum hist_mode { HM_LIST, HM_ASK_ROLLBACK, HM_ASK_PATH };

struct hist_state {
	struct store_run *rows;
	int n, sel, top;
	int shown[HIST_MAX], n_shown;	/* the rows the filter lets through, in the sort order */
	struct tui_filter filter;
	int sort;			/* 0 newest, 1 kind, 2 status */
	bool reverse;
	int64_t shown_id;
	struct tui_text text;
	struct st_err err;
	bool ok;
	enum hist_mode mode;
	struct change_rollback rb;	/* planned, in HM_ASK_ROLLBACK */
	bool revert_pending;		/* b found an apply awaiting confirmation */
	struct change_pending pend;
	char path[PATH_MAX];		/* report file being typed */
};

static void *hist_open(struct tui_ctx *c)
{
	(void)c;
	return calloc(1, sizeof(struct hist_state));
}

/* A change run in a few words for the list: "page-cluster=0 (probe run 6)", "to snapshot 3". */
static void change_what(const struct store_run *x, char *out, size_t len)
{
	const struct run_params *p = &x->p;
	size_t n = 0;

	out[0] = '\0';
	if (x->imported)
		n += (size_t)snprintf(out, len, "imported from %s ", x->hostname[0] ? x->hostname : "another host");
	if (p->settings) {
		const cJSON *k;

		cJSON_ArrayForEach(k, p->settings)
			if (cJSON_IsString(k) && n < len)
				n += (size_t)snprintf(out + n, len - n, "%s%s=%s", n ? " " : "", k->string, k->valuestring);
	}
	if (p->persist && n < len)
		n += (size_t)snprintf(out + n, len - n, " --persist");
	if (p->source_run && n < len)
		n += (size_t)snprintf(out + n, len - n, " (probe run %lld)", (long long)p->source_run);
	if (p->to && n < len)
		n += (size_t)snprintf(out + n, len - n, "%sto snapshot %lld", n ? " " : "", (long long)p->to);
	if (p->reason[0] && n < len)
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "; " : "", p->reason);
}

/* the run chosen in the list (there is one when n_shown > 0) */
#define CUR(s) (&(s)->rows[(s)->shown[(s)->sel]])

static bool is_change(const char *kind)
{
	return !strcmp(kind, "apply") || !strcmp(kind, "rollback");
}

static void hist_details(struct tui_ctx *c, struct hist_state *s)
{
	const struct store_run *x = &s->rows[s->shown[s->sel]];
	struct history_detail d;
	struct st_err e = { 0 };

	if (x->id != s->shown_id)
		s->text.top = 0;
	s->shown_id = x->id;
	tui_text_clear(&s->text);
	if (x->params && x->params[0] && is_change(x->kind))
		tui_text_add_doc(&s->text, x->p.doc);
	history_detail(c->st, x->id, is_change(x->kind), &d, &e);
	if (!d.snaps_ok) {
		tui_text_add(&s->text, TS_BAD, "cannot read its snapshots: %s", e.msg);
	} else {
		for (int i = 0; i < d.n_snaps; i++) {
			tui_text_add(&s->text, TS_TITLE, "snapshot %lld (%s, %.19s):", (long long)d.snaps[i].info.id,
				     d.snaps[i].info.reason, d.snaps[i].info.taken_at);
			tui_text_add_json(&s->text, d.snaps[i].settings);
		}
		if (!d.n_snaps)
			tui_text_add(&s->text, TS_DIM, "no settings snapshot with this run");
	}
	if (d.changes_ok && d.n_changes)
		tui_text_add(&s->text, TS_TITLE, "journal:");
	for (int i = 0; d.changes_ok && i < d.n_changes; i++) {
		const struct store_change *ch = &d.changes[i];

		tui_text_add(&s->text, TS_NORMAL, "  %s %s: %s -> %s (%s)", ch->kind, ch->name,
			     !strcmp(ch->kind, "setting") && ch->has_old ? ch->old_value : "...",
			     ch->has_new ? ch->new_value : "-", ch->state);
	}
	history_detail_free(&d);
}

static const char *const hist_sorts[] = { "newest", "kind", "status" };

static int hist_cmp(const struct store_run *x, const struct store_run *y, int k)
{
	int c = k == 1 ? strcmp(x->kind, y->kind) : k == 2 ? strcmp(x->status, y->status) : 0;

	return c ? c : x->id > y->id ? -1 : x->id < y->id;
}

/* The rows shown: those the filter lets through, in the sort order; keeps run sel_id chosen. */
static void hist_order(struct hist_state *s, int64_t sel_id)
{
	char text[512], t[FMT_TIME_LEN + 8];

	s->n_shown = 0;
	for (int i = 0; i < s->n && i < HIST_MAX; i++) {
		snprintf(text, sizeof(text), "%lld %s %s %s %s", (long long)s->rows[i].id, s->rows[i].kind,
			 s->rows[i].status, fmt_time(s->rows[i].started_at, false, t, sizeof(t)),
			 s->rows[i].params ? s->rows[i].params : "");
		if (tui_filter_match(&s->filter, text))
			s->shown[s->n_shown++] = i;
	}
	for (int i = 1; i < s->n_shown; i++)
		for (int j = i; j > 0; j--) {
			int c = hist_cmp(&s->rows[s->shown[j - 1]], &s->rows[s->shown[j]], s->sort), tmp;

			if ((s->reverse ? -c : c) <= 0)
				break;
			tmp = s->shown[j], s->shown[j] = s->shown[j - 1], s->shown[j - 1] = tmp;
		}
	s->sel = 0;
	for (int i = 0; sel_id && i < s->n_shown; i++)
		if (s->rows[s->shown[i]].id == sel_id)
			s->sel = i;
}

static void hist_update(struct tui_ctx *c, void *p)
{
	static const struct store_runs_which changes = {
		.kind1 = "apply", .kind2 = "rollback", .limit = HIST_MAX
	};
	struct hist_state *s = p;
	int64_t sel_id;

	if (!s || c->probe_busy || s->mode != HM_LIST)
		return;
	sel_id = s->n_shown ? s->rows[s->shown[s->sel]].id : 0;
	err_reset(&s->err);
	history_runs_free(s->rows, s->n);
	s->rows = NULL;
	s->n = 0;
	s->ok = history_runs(c->st, &changes, &s->rows, &s->n, &s->err) == 0;
	hist_order(s, sel_id);
	if (s->ok && s->n_shown)
		hist_details(c, s);
}

static void draw_prompt(struct tui_ctx *c, struct hist_state *s, WINDOW *w, int y, int cols)
{
	wattron(w, tui_style(c, TS_WARN) | A_BOLD);
	if (s->mode == HM_ASK_PATH) {
		tui_print_clipped(w, y, 2, cols, "Write the report of run %lld to: %s_",
				  (long long)CUR(s)->id, s->path);
	} else if (s->revert_pending) {
		tui_print_clipped(w, y, 2, cols, "Apply run %lld awaits confirmation: revert it now? [y/N]",
				  (long long)s->pend.run_id);
	} else {
		tui_print_clipped(w, y++, 2, cols, "Roll back to snapshot %lld (%s, %.19s)? [y/N]",
				  (long long)s->rb.target.id, s->rb.target.reason, s->rb.target.taken_at);
		wattroff(w, tui_style(c, TS_WARN) | A_BOLD);
		for (int i = 0; i < s->rb.n; i++)
			if (s->rb.ch[i].changed)
				tui_print_clipped(w, y++, 4, cols, "%s: %s -> %s", s->rb.ch[i].name,
						  s->rb.ch[i].old_value, s->rb.ch[i].new_value);
		for (int i = 0; i < s->rb.plan->n_files; i++)
			if (s->rb.plan->files[i].changed)
				tui_print_clipped(w, y++, 4, cols, "%s %s/%s", s->rb.plan->files[i].remove ?
						  "remove" : "restore", c->h->root, s->rb.plan->files[i].rel);
		for (int k = 0; k < s->rb.n_dirs; k++)
			tui_print_clipped(w, y++, 4, cols, "remove directory %s/%s", c->h->root, s->rb.dirs[k]);
		return;
	}
	wattroff(w, tui_style(c, TS_WARN) | A_BOLD);
}

static void hist_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct hist_state *s = p;
	int list_rows = (rows - 3) / 2, y = 1;

	if (!s || !s->ok) {
		tui_print_clipped(w, 1, 2, cols, "cannot read the store: %s", s ? s->err.msg : "out of memory");
		return;
	}
	if (!s->n) {
		tui_print_clipped(w, 1, 2, cols, "no change in %s yet: every apply and rollback shows here",
				  c->st->path);
		tui_print_clipped(w, 2, 2, cols, "(probe runs and recordings are in Runs, panel 3)");
		return;
	}
	if (list_rows > s->n_shown)
		list_rows = s->n_shown;
	if (list_rows < 1)
		list_rows = 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + list_rows)
		s->top = s->sel - list_rows + 1;
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "%5s  %-8s %-11s %-20s  %s", "run", "kind", "status", "started (UTC)",
			  "what");
	wattroff(w, tui_style(c, TS_TITLE));
	for (int i = s->top; i < s->n_shown && i < s->top + list_rows; i++) {
		const struct store_run *x = &s->rows[s->shown[i]];
		attr_t a = i == s->sel ? A_REVERSE : 0;
		char t[FMT_TIME_LEN + 8], what[160];

		change_what(x, what, sizeof(what));
		wattron(w, a);
		tui_print_clipped(w, y++, 2, cols, "%5lld  %-8s %-11.11s %-20s  %s", (long long)x->id,
				  x->kind, x->status, fmt_time(x->started_at, false, t, sizeof(t)), what);
		wattroff(w, a);
	}
	tui_filter_draw(c, &s->filter, w, y++, cols,
			&(struct tui_list_view){ s->n_shown, s->n, hist_sorts[s->sort], s->reverse });
	if (!s->n_shown)
		return;
	if (s->mode != HM_LIST) {
		draw_prompt(c, s, w, y, cols);
		return;
	}
	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "run %lld, %s:", (long long)CUR(s)->id, CUR(s)->kind);
	wattroff(w, A_BOLD);
	if (!c->can_change) {
		wattron(w, tui_style(c, TS_DIM));
		tui_print_clipped(w, y++, 2, cols, "b rollback disabled: %s", c->change_why);
		wattroff(w, tui_style(c, TS_DIM));
	}
	tui_text_draw(c, &s->text, w, y, rows - y, cols);
}

/* b: plan going back to the snapshot taken before the selected run. */
static void ask_rollback(struct tui_ctx *c, struct hist_state *s)
{
	struct st_err e = { 0 };
	int64_t snap = 0;
	char reason[64];
	int r;

	if (!tui_change_allowed(c, "rollback"))
		return;
	if ((r = change_settle_confirms(c->st, &e)) < 0 ||
	    (r = change_pending_confirm(c->st, c->h, &s->pend, &e)) < 0) {
		snprintf(c->status, sizeof(c->status), " %s", e.msg);
		return;
	}
	s->revert_pending = r > 0;
	if (s->revert_pending) {
		s->mode = HM_ASK_ROLLBACK;
		return;
	}
	if (history_snapshot_before(c->st, CUR(s)->id, &snap, reason, sizeof(reason), &e) < 0 ||
	    !snap) {
		snprintf(c->status, sizeof(c->status), " run %lld has no snapshot to go back to%s%s",
			 (long long)CUR(s)->id, e.msg[0] ? ": " : "", e.msg);
		return;
	}
	change_rollback_free(&s->rb);
	memset(&s->rb, 0, sizeof(s->rb));
	if (change_rollback_plan(c->st, c->h, snap, &s->rb, &e) < 0) {
		snprintf(c->status, sizeof(c->status), " %s", e.msg);
		return;
	}
	if (!change_rollback_needed(&s->rb)) {
		snprintf(c->status, sizeof(c->status), " nothing to do: the settings already match snapshot %lld",
			 (long long)snap);
		return;
	}
	s->mode = HM_ASK_ROLLBACK;
}

static void do_rollback(struct tui_ctx *c, struct hist_state *s)
{
	struct st_err e = { 0 };
	int64_t run = 0, before = 0;
	int lockfd = -1, restored = 0, r;

	s->mode = HM_LIST;
	if (s->revert_pending) {
		r = change_revert_pending(c->st, c->h, &s->pend, &run, &restored, &e);
		if (r == 0)
			snprintf(c->status, sizeof(c->status), " reverted apply run %lld (%d change%s undone)",
				 (long long)s->pend.run_id, restored, restored == 1 ? "" : "s");
	} else {
		r = change_lock(c->st, c->h,
				&(struct change_guard){ .what = "rollback", .db_path = c->st->path },
				&lockfd, &e);
		if (r == 0)
			r = change_rollback_run(c->st, c->h, &s->rb, &run, &before, &e);
		change_unlock(lockfd);
		if (r == 0)
			snprintf(c->status, sizeof(c->status), " rolled back to snapshot %lld as run %lld;"
				 " snapshot %lld holds the settings before it", (long long)s->rb.target.id,
				 (long long)run, (long long)before);
	}
	if (r < 0)
		snprintf(c->status, sizeof(c->status), " not rolled back: %s", e.msg);
	change_rollback_free(&s->rb);
	memset(&s->rb, 0, sizeof(s->rb));
	hist_update(c, s);
}

/*
 * The report's text into path, written whole (host_user_file_replace(), as
 * report -o); Runs uses it too.
 */
int tui_write_report(struct tui_ctx *c, int64_t id, const char *kind, const char *path,
		     struct st_err *e)
{
	struct report *rep = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!strcmp(kind, "probe"))
		r = report_build_run(c->st, c->h, id, &rep, e);
	else if (!strcmp(kind, "apply"))
		r = report_build_change(c->st, id, &rep, e);
	else
		r = err_set(e, -EINVAL, "no report for a %s run: choose a probe or an apply", kind);
	if (r < 0)
		return r;
	f = open_memstream(&buf, &len);
	if (!f) {
		report_free(rep);
		return err_set(e, -ENOMEM, "out of memory");
	}
	report_render_text(f, rep);
	report_free(rep);
	if (fclose(f) != 0)
		r = err_set(e, -ENOMEM, "out of memory");
	else
		r = host_user_file_replace(path, buf, len, 0644, e);
	free(buf);
	return r;
}

static bool prompt_key(struct tui_ctx *c, struct hist_state *s, int ch)
{
	struct st_err e = { 0 };
	int r;

	if (s->mode == HM_ASK_ROLLBACK) {
		if (ch == 'y' || ch == 'Y') {
			do_rollback(c, s);
		} else {
			s->mode = HM_LIST;
			snprintf(c->status, sizeof(c->status), " rollback cancelled: nothing changed");
		}
		return true;
	}
	r = tui_line_key(s->path, sizeof(s->path), ch);
	if (r < 0) {
		s->mode = HM_LIST;
	} else if (r > 0 && s->path[0]) {
		s->mode = HM_LIST;
		if (tui_write_report(c, CUR(s)->id, CUR(s)->kind, s->path, &e) < 0)
			snprintf(c->status, sizeof(c->status), " report not written: %s", e.msg);
		else
			snprintf(c->status, sizeof(c->status), " wrote the report of run %lld to %s",
				 (long long)CUR(s)->id, s->path);
	}
	return true;
}

static bool hist_key(struct tui_ctx *c, void *p, int ch)
{
	struct hist_state *s = p;

	if (!s)
		return false;
	if (s->mode != HM_LIST)
		return prompt_key(c, s, ch);
	if (c->probe_busy && (ch == 'b' || ch == 'o')) {
		snprintf(c->status, sizeof(c->status), " a probe is running from this screen: wait for it");
		return true;
	}
	if (tui_filter_key(&s->filter, ch)) {
		hist_order(s, s->n_shown ? CUR(s)->id : 0);
		if (!c->probe_busy && s->n_shown)
			hist_details(c, s);
		return true;
	}
	if ((ch == KEY_DOWN || ch == 'j') && s->sel + 1 < s->n_shown) {
		s->sel++;
	} else if ((ch == KEY_UP || ch == 'k') && s->sel > 0) {
		s->sel--;
	} else if (ch == 's' || ch == 'S') {
		if (ch == 's')
			s->sort = (s->sort + 1) % 3;
		else
			s->reverse = !s->reverse;
		hist_order(s, s->n_shown ? CUR(s)->id : 0);
	} else if (ch == 'b' && s->n_shown) {
		ask_rollback(c, s);
		return true;
	} else if (ch == 'o' && s->n_shown) {
		snprintf(s->path, sizeof(s->path), "./swaptune-run-%lld.txt", (long long)CUR(s)->id);
		s->mode = HM_ASK_PATH;
		return true;
	} else if (ch == KEY_NPAGE || ch == KEY_PPAGE || ch == ' ' || ch == KEY_HOME || ch == KEY_END) {
		return tui_text_key(&s->text, ch);
	} else {
		return false;
	}
	if (!c->probe_busy && s->n_shown)
		hist_details(c, s);
	return true;
}

static bool hist_grabs_keys(void *p)
{
	struct hist_state *s = p;

	return s && (s->mode != HM_LIST || s->filter.editing);
}

static const struct tui_key_help *hist_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help list[] = {
		{ "Up/Dn", "run" }, { "b", "rollback" }, { "o", "report" }, { "/", "search" }, { "s", "sort" },
		{ "PgDn", "details" }, { NULL, NULL },
	};
	static const struct tui_key_help ro[] = {
		{ "Up/Dn", "run" }, { "b", "rollback (disabled)" }, { "o", "report" }, { "/", "search" },
		{ "s", "sort" }, { NULL, NULL },
	};
	static const struct tui_key_help typing[] = {
		{ "Enter", "keep" }, { "Esc", "clear" }, { NULL, NULL },
	};
	static const struct tui_key_help ask[] = { { "y", "yes" }, { "n", "no" }, { NULL, NULL } };
	static const struct tui_key_help path[] = {
		{ "Enter", "write" }, { "Esc", "cancel" }, { "^U", "clear" }, { NULL, NULL },
	};
	struct hist_state *s = p;

	if (s && s->mode == HM_ASK_ROLLBACK)
		return ask;
	if (s && s->mode == HM_ASK_PATH)
		return path;
	if (s && s->filter.editing)
		return typing;
	return c->can_change ? list : ro;
}

static void hist_close(void *p)
{
	struct hist_state *s = p;

	if (!s)
		return;
	history_runs_free(s->rows, s->n);
	change_rollback_free(&s->rb);
	tui_text_free(&s->text);
	free(s);
}

const struct tui_panel tui_panel_history = {
	.title = "History",
	.open = hist_open,
	.update = hist_update,
	.draw = hist_draw,
	.key = hist_key,
	.close = hist_close,
	.keys = hist_keys,
	.grabs_keys = hist_grabs_keys,
};
