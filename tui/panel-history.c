/*
 * panel-history.c - the History panel: the store's runs with the changes
 * (apply, rollback) marked, the selected run's snapshots and journal rows;
 * b rolls back to the snapshot taken before the selected run (after an
 * explicit y/N; a pending confirm-within apply is reverted instead, as
 * `swaptune rollback` does), o writes the selected run's report (the report
 * command's text) to a file. Planning and rollback are the change module's.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swaptune/change.h"
#include "swaptune/report.h"
#include "tui-internal.h"

#define HIST_MAX 200

enum hist_mode { HM_LIST, HM_ASK_ROLLBACK, HM_ASK_PATH };

struct hist_state {
	struct store_run_info *rows;
	int n, sel, top;
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

static bool is_change(const char *kind)
{
	return !strcmp(kind, "apply") || !strcmp(kind, "rollback");
}

static void hist_details(struct tui_ctx *c, struct hist_state *s)
{
	const struct store_run_info *x = &s->rows[s->sel];
	struct store_snapshot_row *snaps = NULL;
	struct store_change *chg = NULL;
	struct st_err e = { 0 };
	int n_snaps = 0, n_chg = 0;

	if (x->id != s->shown_id)
		s->text.top = 0;
	s->shown_id = x->id;
	tui_text_clear(&s->text);
	if (x->params && x->params[0] && is_change(x->kind))
		tui_text_add_json(&s->text, x->params);
	if (store_snapshots_of_run(c->st, x->id, &snaps, &n_snaps, &e) < 0) {
		tui_text_add(&s->text, TS_BAD, "cannot read its snapshots: %s", e.msg);
	} else {
		for (int i = 0; i < n_snaps; i++) {
			tui_text_add(&s->text, TS_TITLE, "snapshot %lld (%s, %.19s):", (long long)snaps[i].info.id,
				     snaps[i].info.reason, snaps[i].info.taken_at);
			tui_text_add_json(&s->text, snaps[i].settings);
		}
		if (!n_snaps)
			tui_text_add(&s->text, TS_DIM, "no settings snapshot with this run");
	}
	free(snaps);
	if (is_change(x->kind) && store_changes_of_run(c->st, x->id, &chg, &n_chg, &e) == 0) {
		if (n_chg)
			tui_text_add(&s->text, TS_TITLE, "journal:");
		for (int i = 0; i < n_chg; i++)
			tui_text_add(&s->text, TS_NORMAL, "  %s %s: %s -> %s (%s)", chg[i].kind, chg[i].name,
				     !strcmp(chg[i].kind, "setting") && chg[i].has_old ? chg[i].old_value : "...",
				     chg[i].has_new ? chg[i].new_value : "-", chg[i].state);
	}
	free(chg);
}

static void hist_update(struct tui_ctx *c, void *p)
{
	struct hist_state *s = p;
	int64_t sel_id;

	if (!s || c->probe_busy || s->mode != HM_LIST)
		return;
	sel_id = s->n ? s->rows[s->sel].id : 0;
	err_reset(&s->err);
	store_run_infos_free(s->rows, s->n);
	s->rows = NULL;
	s->n = 0;
	s->ok = store_runs_history(c->st, true, HIST_MAX, &s->rows, &s->n, &s->err) == 0;
	for (int i = 0; sel_id && i < s->n; i++)
		if (s->rows[i].id == sel_id)
			s->sel = i;
	if (s->sel >= s->n)
		s->sel = s->n ? s->n - 1 : 0;
	if (s->ok && s->n)
		hist_details(c, s);
}

static void draw_prompt(struct tui_ctx *c, struct hist_state *s, WINDOW *w, int y, int cols)
{
	wattron(w, tui_style(c, TS_WARN) | A_BOLD);
	if (s->mode == HM_ASK_PATH) {
		tui_print_clipped(w, y, 2, cols, "Write the report of run %lld to: %s_",
				  (long long)s->rows[s->sel].id, s->path);
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
		tui_print_clipped(w, 1, 2, cols, "no runs in %s yet: applies and rollbacks show here",
				  c->st->path);
		return;
	}
	if (list_rows > s->n)
		list_rows = s->n;
	if (list_rows < 1)
		list_rows = 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + list_rows)
		s->top = s->sel - list_rows + 1;
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "%5s  %-9s %-15s %-19s  %s", "run", "kind", "status", "started",
			  "ended");
	wattroff(w, tui_style(c, TS_TITLE));
	for (int i = s->top; i < s->n && i < s->top + list_rows; i++) {
		const struct store_run_info *x = &s->rows[i];
		attr_t a = i == s->sel ? A_REVERSE : is_change(x->kind) ? A_BOLD : 0;

		wattron(w, a);
		tui_print_clipped(w, y++, 2, cols, "%5lld  %-9s %-15s %-19.19s  %-19.19s", (long long)x->id,
				  x->kind, x->status, x->started_at, x->ended_at[0] ? x->ended_at : "-");
		wattroff(w, a);
	}
	y++;
	if (s->mode != HM_LIST) {
		draw_prompt(c, s, w, y, cols);
		return;
	}
	wattron(w, A_BOLD);
	tui_print_clipped(w, y++, 2, cols, "run %lld, %s:", (long long)s->rows[s->sel].id, s->rows[s->sel].kind);
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
	if (store_run_first_snapshot(c->st, s->rows[s->sel].id, &snap, reason, sizeof(reason), &e) < 0 ||
	    !snap) {
		snprintf(c->status, sizeof(c->status), " run %lld has no snapshot to go back to%s%s",
			 (long long)s->rows[s->sel].id, e.msg[0] ? ": " : "", e.msg);
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
		r = change_lock(c->st, c->h, "rollback", c->st->path, false, &lockfd, &e);
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

/* The report's text into path: a temporary file beside it, renamed over it. */
static int write_report(struct tui_ctx *c, int64_t id, const char *kind, const char *path,
			struct st_err *e)
{
	struct report *rep = NULL;
	char tmp[PATH_MAX + 16];
	FILE *f;
	int fd, r;

	if (!strcmp(kind, "probe"))
		r = report_build_run(c->st, c->h, id, &rep, e);
	else if (!strcmp(kind, "apply"))
		r = report_build_change(c->st, id, &rep, e);
	else
		r = err_set(e, -EINVAL, "no report for a %s run: choose a probe or an apply", kind);
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = err_set(e, -errno, "cannot create %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		report_free(rep);
		return r;
	}
	report_render_text(f, rep);
	report_free(rep);
	r = fflush(f) != 0 || fsync(fileno(f)) != 0 ? -errno : 0;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (!r && fchmodat(AT_FDCWD, tmp, 0644, 0) != 0)
		r = -errno;
	if (!r && rename(tmp, path) != 0)
		r = -errno;
	if (r) {
		unlink(tmp);
		return err_set(e, r, "cannot write %s: %s", path, strerror(-r));
	}
	return 0;
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
		if (write_report(c, s->rows[s->sel].id, s->rows[s->sel].kind, s->path, &e) < 0)
			snprintf(c->status, sizeof(c->status), " report not written: %s", e.msg);
		else
			snprintf(c->status, sizeof(c->status), " wrote the report of run %lld to %s",
				 (long long)s->rows[s->sel].id, s->path);
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
	if ((ch == KEY_DOWN || ch == 'j') && s->sel + 1 < s->n) {
		s->sel++;
	} else if ((ch == KEY_UP || ch == 'k') && s->sel > 0) {
		s->sel--;
	} else if (ch == 'b' && s->n) {
		ask_rollback(c, s);
		return true;
	} else if (ch == 'o' && s->n) {
		snprintf(s->path, sizeof(s->path), "./swaptune-run-%lld.txt", (long long)s->rows[s->sel].id);
		s->mode = HM_ASK_PATH;
		return true;
	} else if (ch == KEY_NPAGE || ch == KEY_PPAGE || ch == ' ' || ch == KEY_HOME || ch == KEY_END) {
		return tui_text_key(&s->text, ch);
	} else {
		return false;
	}
	if (!c->probe_busy && s->n)
		hist_details(c, s);
	return true;
}

static bool hist_grabs_keys(void *p)
{
	struct hist_state *s = p;

	return s && s->mode != HM_LIST;
}

static const struct tui_key_help *hist_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help list[] = {
		{ "Up/Dn", "run" }, { "b", "rollback" }, { "o", "report" }, { "PgDn", "details" },
		{ NULL, NULL },
	};
	static const struct tui_key_help ro[] = {
		{ "Up/Dn", "run" }, { "b", "rollback (disabled)" }, { "o", "report" }, { NULL, NULL },
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
	return c->can_change ? list : ro;
}

static void hist_close(void *p)
{
	struct hist_state *s = p;

	if (!s)
		return;
	store_run_infos_free(s->rows, s->n);
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
