/*
 * apply.c - the apply screen over the panels: a probe run's verdict, the
 * settings diff against the host, the refusal `apply --run` would give (with
 * f to force it), the persist and confirm-within toggles, then the apply
 * itself and a live countdown to the confirm deadline with c (confirm) and
 * r (revert now). Every step is the change module's (change.h), the same
 * calls `swaptune apply` makes under the same lock and journal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/advice.h"
#include "swaptune/change.h"
#include "swaptune/fmt.h"
#include "swaptune/history.h"
#include "swaptune/persist.h"
#include "swaptune/utc.h"
#include "tui-internal.h"

enum ap_state {
	AP_PLAN,	/* the diff; y applies */
	AP_NONE,	/* nothing to apply: the verdict or the load said why */
	AP_AWAIT,	/* applied with confirm-within: the countdown */
	AP_DONE,	/* applied, confirmed, reverted or failed: the outcome */
};

struct tui_apply {
	enum ap_state state;
	int64_t run_id;
	char arm[VERDICT_NAME_MAX];
	char headline[VERDICT_REASON_LEN];
	char refusal[320];		/* why `apply --run` refuses without --force, "" if it does not */
	bool forced;
	int n;
	struct advice_setting want[SETTINGS_MAX];
	struct change_setting ch[SETTINGS_MAX];
	bool persist;
	struct persist_plan *plan;	/* with persist */
	char within[32];		/* confirm-within as typed, "0" = none */
	bool editing;
	char edit[32];
	struct change_apply a;
	uint64_t last_poll;
	char outcome[2][ST_ERR_MSG_MAX + 64];
	enum tui_style outcome_style;
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void outcome(struct tui_apply *a, enum tui_style s, const char *l1, const char *l2)
{
	a->outcome_style = s;
	snprintf(a->outcome[0], sizeof(a->outcome[0]), "%s", l1);
	snprintf(a->outcome[1], sizeof(a->outcome[1]), "%s", l2 ? l2 : "");
}

/* The verdict, judged as apply --run judges it, and the settings of its arm. */
static int load_verdict(struct tui_ctx *c, struct tui_apply *a, struct st_err *e)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct judgement *j = calloc(1, sizeof(*j));
	const struct advice_arm *arm;
	struct advice_pool pool;
	bool confirmed;
	int r;

	if (!run || !v || !j) {
		r = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((r = advice_load_run(c->st, c->h, a->run_id, NULL, run, e)) < 0)
		goto out;
	if (!strcmp(run->status, "imported")) {
		/* another host's history: judged for reading, never applied here */
		r = err_set(e, -EINVAL, "run %lld is history imported from another host: never applied here",
			    (long long)a->run_id);
		goto out;
	}
	if ((r = advice_judge_pooled(c->st, c->h, run, -1, &(struct advice_verdict){ v, j, &pool }, e)) < 0) {
		err_prefix(e, "probe run %lld", (long long)a->run_id);
		goto out;
	}
	if (v->kind != VERDICT_CHANGE) {
		r = err_set(e, -EAGAIN, "probe run %lld recommends no change (%s): %s; nothing to apply",
			    (long long)a->run_id, verdict_kind_name(v->kind),
			    v->n_reasons ? v->reasons[0] : "no reason given");
		goto out;
	}
	arm = &run->arms[v->chosen];
	/* the same rule as apply --run: the plan fixed before the data is what the error rates hold for */
	confirmed = pool.applied ? pool.rep.path == VERDICT2_PATH_FAILURE ||
		    pool.rep.arms[v->chosen].ci_low_pct >= j->plan.min_effect_pct :
		    j->r2.path == VERDICT2_PATH_FAILURE || j->r2.arms[v->chosen].min_effect_confirmed;
	if (j->exploratory || !j->plan.recorded || !confirmed)
		snprintf(a->refusal, sizeof(a->refusal), "the change to %s is %s", arm->name,
			 j->exploratory ? "exploratory (judged with values other than the run's plan)" :
			 !j->plan.recorded ? "judged without a plan stored with the run" :
			 "significant but its interval does not clear the minimum effect");
	if (arm->n_settings == 0) {
		r = err_set(e, -EINVAL, "arm %s of probe run %lld has no settings to apply", arm->name,
			    (long long)a->run_id);
		goto out;
	}
	for (int i = 0; i < arm->n_settings; i++) {
		if (!settings_find(arm->settings[i].name)) {
			r = err_set(e, -EINVAL, "arm %s has %s=%s, which is how its swap was set up, not a"
				    " setting swaptune can apply", arm->name, arm->settings[i].name,
				    arm->settings[i].value);
			goto out;
		}
		a->want[a->n++] = arm->settings[i];
	}
	snprintf(a->arm, sizeof(a->arm), "%s", arm->name);
	snprintf(a->headline, sizeof(a->headline), "%s", v->n_reasons ? v->reasons[0] : "");
out:
	advice_run_free(run);
	free(run);
	free(v);
	free(j);
	return r;
}

/* The diff against the host now (and the boot-time plan with persist). */
static int load_diff(struct tui_ctx *c, struct tui_apply *a, struct st_err *e)
{
	struct persist_kv kv[SETTINGS_MAX];
	int r;

	if ((r = change_diff(c->h, a->want, a->n, a->ch, e)) < 0)
		return r;
	free(a->plan);
	a->plan = NULL;
	if (!a->persist)
		return 0;
	if (!(a->plan = calloc(1, sizeof(*a->plan))))
		return err_set(e, -ENOMEM, "out of memory");
	for (int i = 0; i < a->n; i++) {
		snprintf(kv[i].name, sizeof(kv[i].name), "%s", a->ch[i].name);
		snprintf(kv[i].value, sizeof(kv[i].value), "%s", a->ch[i].new_value);
	}
	return persist_plan(c->h, kv, a->n, a->plan, e);
}

static struct tui_apply *tui_apply_open(struct tui_ctx *c, int64_t run_id)
{
	struct tui_apply *a = calloc(1, sizeof(*a));
	struct st_err e = { 0 };

	if (!a)
		return NULL;
	a->run_id = run_id;
	snprintf(a->within, sizeof(a->within), "2m");
	if (c->probe_busy) {
		a->state = AP_NONE;
		outcome(a, TS_WARN, "a probe is running from this screen: apply once it has ended", NULL);
		return a;
	}
	if (load_verdict(c, a, &e) < 0 || load_diff(c, a, &e) < 0) {
		a->state = AP_NONE;
		outcome(a, e.code == -EAGAIN ? TS_TITLE : TS_BAD, e.msg, NULL);
	}
	return a;
}

static bool plan_writes(const struct persist_plan *p)
{
	for (int i = 0; p && i < p->n_files; i++)
		if (p->files[i].changed)
			return true;
	return false;
}

static int n_changed(const struct tui_apply *a)
{
	int k = 0;

	for (int i = 0; i < a->n; i++)
		k += a->ch[i].changed;
	return k;
}

static void do_apply(struct tui_ctx *c, struct tui_apply *a)
{
	struct st_err e = { 0 };
	long long ns = 0;
	int lockfd = -1, r;
	char iso[40];

	if (!tui_change_allowed(c, "apply"))
		return;
	if (a->refusal[0] && !a->forced) {
		snprintf(c->status, sizeof(c->status), " not applied (f forces it): %s", a->refusal);
		return;
	}
	if (strcmp(a->within, "0") && (fmt_parse_duration(a->within, &ns) < 0 || ns < 1000000000LL)) {
		snprintf(c->status, sizeof(c->status), " confirm-within \"%s\": give a duration of at"
			 " least 1s (e.g. 30s, 2m), or 0 for none", a->within);
		return;
	}
	/* the host may have moved since the screen opened */
	if ((r = change_settle_confirms(c->st, &e)) < 0 || (r = load_diff(c, a, &e)) < 0)
		goto fail;
	if (!n_changed(a) && !plan_writes(a->plan)) {
		a->state = AP_DONE;
		outcome(a, TS_TITLE, "Nothing to change: the host already has these settings.", NULL);
		return;
	}
	if ((r = change_lock(c->st, c->h,
			     &(struct change_guard){ .what = "apply", .db_path = c->st->path,
						     .refuse_pending = true },
			     &lockfd, &e)) < 0)
		goto fail;
	memset(&a->a, 0, sizeof(a->a));
	a->a.ch = a->ch;
	a->a.n = a->n;
	a->a.plan = a->plan;
	a->a.source_run = a->run_id;
	a->a.arm = a->arm;
	a->a.confirm_within_ns = ns;
	a->a.db_path = c->st->path;
	r = change_apply(c->st, c->h, &a->a, &e);
	change_unlock(lockfd);
	if (r < 0)
		goto fail;
	if (ns) {
		a->state = AP_AWAIT;
		a->last_poll = mono_ms();
		return;
	}
	a->state = AP_DONE;
	snprintf(iso, sizeof(iso), "snapshot %lld", (long long)a->a.snap_id);
	outcome(a, TS_GOOD, "Applied: the new settings are in effect.", NULL);
	snprintf(a->outcome[1], sizeof(a->outcome[1]), "applied as run %lld; %s holds the previous"
		 " settings (History, b rolls back)", (long long)a->a.run_id, iso);
	return;
fail:
	a->state = AP_DONE;
	outcome(a, TS_BAD, "Not applied:", e.msg);
	if (a->a.undo_warning[0])
		snprintf(a->outcome[1], sizeof(a->outcome[1]), "%s; could not undo everything: %s",
			 e.msg, a->a.undo_warning);
}

/* The current values after a confirm or revert, for the outcome's second line. */
static void settings_now(struct tui_ctx *c, struct tui_apply *a, char *buf, size_t len)
{
	struct change_setting now[SETTINGS_MAX];
	struct st_err e = { 0 };
	size_t off = 0;

	buf[0] = 0;
	if (change_diff(c->h, a->want, a->n, now, &e) < 0) {
		snprintf(buf, len, "cannot read the settings: %s", e.msg);
		return;
	}
	off = (size_t)snprintf(buf, len, "now:");
	for (int i = 0; i < a->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " %s = %s", now[i].name, now[i].old_value);
}

static void do_confirm(struct tui_ctx *c, struct tui_apply *a)
{
	struct change_confirmed cf = { 0 };
	struct st_err e = { 0 };
	char now[256], l1[128];
	int r;

	r = change_confirm(c->st, c->h, &cf, &e);
	free(cf.rows);
	a->state = AP_DONE;
	settings_now(c, a, now, sizeof(now));
	if (r < 0) {
		outcome(a, TS_BAD, r == -ETIME ? "Too late: the watchdog had reverted it." : "Not confirmed:",
			r == -ETIME ? now : e.msg);
		return;
	}
	snprintf(l1, sizeof(l1), "Confirmed apply run %lld: the new settings stay (watchdog %s).",
		 (long long)cf.run_id, cf.watchdog_stopped ? "stopped" : "already gone");
	outcome(a, TS_GOOD, l1, now);
}

static void do_revert(struct tui_ctx *c, struct tui_apply *a)
{
	struct change_pending p;
	struct st_err e = { 0 };
	int64_t rb_run = 0;
	int restored = 0, r;
	char now[256], l1[160];

	r = change_pending_confirm(c->st, c->h, &p, &e);
	if (r == 0)
		r = err_set(&e, -ENOENT, "no apply awaits confirmation any more");
	if (r > 0)
		r = change_revert_pending(c->st, c->h, &p, &rb_run, &restored, &e);
	a->state = AP_DONE;
	settings_now(c, a, now, sizeof(now));
	if (r < 0) {
		outcome(a, TS_BAD, "Not reverted:", e.msg);
		return;
	}
	snprintf(l1, sizeof(l1), "Reverted apply run %lld now (%d change%s undone, rollback run %lld).",
		 (long long)p.run_id, restored, restored == 1 ? "" : "s", (long long)rb_run);
	outcome(a, TS_WARN, l1, now);
}

static void tui_apply_tick(struct tui_ctx *c, struct tui_apply *a)
{
	struct store_run ri;
	struct change_pending p;
	struct st_err e = { 0 };
	char now[256], l1[160];
	int r;

	if (!a || a->state != AP_AWAIT || mono_ms() - a->last_poll < 1000)
		return;
	a->last_poll = mono_ms();
	r = change_pending_confirm(c->st, c->h, &p, &e);
	if (r < 0) {
		snprintf(c->status, sizeof(c->status), " cannot check the pending apply: %s", e.msg);
		return;
	}
	if (r > 0 && p.run_id == a->a.run_id)
		return;
	/* no longer pending: the watchdog put the settings back, or apply --confirm came from elsewhere */
	change_settle_confirms(c->st, &e);
	a->state = AP_DONE;
	settings_now(c, a, now, sizeof(now));
	memset(&ri, 0, sizeof(ri));
	if (history_run(c->st, a->a.run_id, &ri, &e) == 0 && !strcmp(ri.status, "ok")) {
		snprintf(l1, sizeof(l1), "Apply run %lld was confirmed elsewhere (swaptune apply --confirm).",
			 (long long)a->a.run_id);
		outcome(a, TS_GOOD, l1, now);
	} else {
		snprintf(l1, sizeof(l1), "The deadline passed without a confirm: the watchdog reverted"
			 " apply run %lld.", (long long)a->a.run_id);
		outcome(a, TS_WARN, l1, now);
	}
	history_run_free(&ri);
}

static bool tui_apply_counting(const struct tui_apply *a)
{
	return a && a->state == AP_AWAIT;
}

/* text at (y, x), wrapped at spaces to cols; the next free row */
static int print_wrapped(WINDOW *w, int y, int x, int rows, int cols, const char *text)
{
	const char *p = text;
	int width = cols - x - 1;

	while (*p && y < rows && width > 8) {
		int len = (int)strlen(p), cut = len;

		if (len > width) {
			cut = width;
			while (cut > width / 2 && p[cut] != ' ')
				cut--;
			if (p[cut] != ' ')
				cut = width;
		}
		tui_print_clipped(w, y++, x, cols, "%.*s", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		x = x < 4 ? x + 2 : x;	/* continuation indented once */
		width = cols - x - 1;
	}
	return y;
}

static int draw_diff(struct tui_ctx *c, struct tui_apply *a, WINDOW *w, int y, int rows, int cols)
{
	for (int i = 0; i < a->n && y < rows; i++) {
		const struct change_setting *x = &a->ch[i];

		if (!x->changed) {
			tui_print_clipped(w, y++, 4, cols, "%-16s %s (unchanged)", x->name, x->old_value);
			continue;
		}
		wattron(w, tui_style(c, TS_GOOD));
		tui_print_clipped(w, y++, 4, cols, "%-16s %s -> %s", x->name, x->old_value, x->new_value);
		wattroff(w, tui_style(c, TS_GOOD));
		if (y < rows)
			tui_print_clipped(w, y++, 6, cols, "%s", x->path);
	}
	for (int i = 0; a->plan && i < a->plan->n_files && y < rows; i++)
		if (a->plan->files[i].changed)
			tui_print_clipped(w, y++, 4, cols, "%s %s/%s", a->plan->files[i].remove ? "remove" : "write",
					  c->h->root, a->plan->files[i].rel);
	for (int i = 0; a->plan && i < a->plan->n_conflicts && y < rows; i++)
		tui_print_clipped(w, y++, 4, cols, "note: %s sets %s = %s", a->plan->conflicts[i].where,
				  a->plan->conflicts[i].key, a->plan->conflicts[i].value);
	return y;
}

static void draw_plan(struct tui_ctx *c, struct tui_apply *a, WINDOW *w, int y, int rows, int cols)
{
	char line[VERDICT_REASON_LEN + 64];

	snprintf(line, sizeof(line), "Probe run %lld recommends %s: %s", (long long)a->run_id, a->arm,
		 a->headline);
	wattron(w, A_BOLD);
	y = print_wrapped(w, y, 2, rows, cols, line);
	wattroff(w, A_BOLD);
	y++;
	tui_print_clipped(w, y++, 2, cols, "Settings (setting, now -> new, kernel file):");
	y = draw_diff(c, a, w, y, rows, cols);
	y++;
	tui_print_clipped(w, y++, 2, cols, "[%c] p persist: %s", a->persist ? 'x' : ' ',
			  a->persist ? "also write the boot-time files" : "until reboot only");
	if (a->editing)
		tui_print_clipped(w, y++, 2, cols, "    w confirm within: %s_   (Enter done, Esc undo; 0 = none)",
				  a->edit);
	else
		tui_print_clipped(w, y++, 2, cols, "    w confirm within: %s%s", a->within,
				  strcmp(a->within, "0") ? " (then reverted unless confirmed)" : " (permanent at once)");
	y++;
	if (a->refusal[0]) {
		wattron(w, tui_style(c, a->forced ? TS_WARN : TS_BAD));
		snprintf(line, sizeof(line), "%s: %s", a->forced ? "Forced" : "Refused", a->refusal);
		y = print_wrapped(w, y, 2, rows, cols, line);
		if (!a->forced)
			tui_print_clipped(w, y++, 2, cols, "(apply --run refuses it too; f forces it anyway)");
		wattroff(w, tui_style(c, a->forced ? TS_WARN : TS_BAD));
	}
	if (!c->can_change) {
		wattron(w, tui_style(c, TS_WARN));
		snprintf(line, sizeof(line), "read-only: %s", c->change_why);
		y = print_wrapped(w, y, 2, rows, cols, line);
		wattroff(w, tui_style(c, TS_WARN));
	} else if (!a->refusal[0] || a->forced) {
		tui_print_clipped(w, y++, 2, cols, "Press y to apply these changes, Esc to go back.");
	}
}

static void tui_apply_draw(struct tui_ctx *c, struct tui_apply *a, WINDOW *w, int rows, int cols)
{
	char buf[64];
	int y = 1;

	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, 0, 2, cols, "Apply probe run %lld", a ? (long long)a->run_id : 0LL);
	wattroff(w, tui_style(c, TS_TITLE));
	if (!a) {
		tui_print_clipped(w, y, 2, cols, "out of memory");
		return;
	}
	if (a->state == AP_PLAN) {
		draw_plan(c, a, w, y, rows, cols);
		return;
	}
	if (a->state == AP_AWAIT) {
		double left = a->a.deadline - wall_now();

		tui_print_clipped(w, y++, 2, cols, "Applied as run %lld; snapshot %lld holds the previous settings.",
				  (long long)a->a.run_id, (long long)a->a.snap_id);
		y = draw_diff(c, a, w, y + 1, rows, cols) + 1;
		wattron(w, tui_style(c, TS_WARN) | A_BOLD);
		if (left > 0)
			tui_print_clipped(w, y++, 2, cols, "Confirm within %s, or the previous settings come back.",
					  tui_fmt_secs(ceil(left), buf, sizeof(buf)));
		else
			tui_print_clipped(w, y++, 2, cols, "Deadline passed: waiting for the watchdog to revert...");
		wattroff(w, tui_style(c, TS_WARN) | A_BOLD);
		tui_print_clipped(w, y++, 2, cols, "c confirm (keep them)   r revert now   (watchdog pid %d)",
				  (int)a->a.watchdog_pid);
		return;
	}
	wattron(w, tui_style(c, a->outcome_style) | A_BOLD);
	y = print_wrapped(w, y, 2, rows, cols, a->outcome[0]);
	wattroff(w, tui_style(c, a->outcome_style) | A_BOLD);
	if (a->outcome[1][0])
		y = print_wrapped(w, y, 2, rows, cols, a->outcome[1]);
	tui_print_clipped(w, y + 1, 2, cols, "Esc back to the panels; History (6) shows the changes.");
}

static bool tui_apply_key(struct tui_ctx *c, struct tui_apply *a, int ch)
{
	struct st_err e = { 0 };

	if (!a)
		return false;
	if (a->editing) {
		int r = tui_line_key(a->edit, sizeof(a->edit), ch);
		long long ns;

		if (r < 0) {
			a->editing = false;
		} else if (r > 0) {
			if (strcmp(a->edit, "0") && (fmt_parse_duration(a->edit, &ns) < 0 || ns < 1000000000LL)) {
				snprintf(c->status, sizeof(c->status), " \"%s\": give a duration of at least 1s"
					 " (e.g. 30s, 2m), or 0 for none", a->edit);
				return true;
			}
			snprintf(a->within, sizeof(a->within), "%s", a->edit);
			a->editing = false;
		}
		return true;
	}
	if (a->state == AP_AWAIT) {
		if (ch == 'c')
			do_confirm(c, a);
		else if (ch == 'r')
			do_revert(c, a);
		else if (ch == 27 || ch == 'q')
			snprintf(c->status, sizeof(c->status), " c confirms, r reverts; the screen stays"
				 " until one of them or the deadline");
		return true;
	}
	if (a->state != AP_PLAN)
		return !(ch == 27 || ch == 'q' || ch == '\n' || ch == KEY_ENTER);
	if (ch == 27 || ch == 'q' || ch == 'n' || ch == 'N')
		return false;
	if (ch == 'y' || ch == 'Y') {
		do_apply(c, a);
	} else if (ch == 'f') {
		a->forced = a->refusal[0] != 0;
	} else if (ch == 'p') {
		a->persist = !a->persist;
		if (load_diff(c, a, &e) < 0)
			snprintf(c->status, sizeof(c->status), " %s", e.msg);
	} else if (ch == 'w') {
		snprintf(a->edit, sizeof(a->edit), "%s", a->within);
		a->editing = true;
	}
	return true;
}

static const struct tui_key_help *tui_apply_keys(struct tui_ctx *c, struct tui_apply *a)
{
	static const struct tui_key_help plan_ro[] = {
		{ "y", "apply (disabled)" }, { "p", "persist" }, { "w", "confirm-within" },
		{ "Esc", "back" }, { NULL, NULL },
	};
	static const struct tui_key_help plan[] = {
		{ "y", "apply" }, { "p", "persist" }, { "w", "confirm-within" }, { "f", "force" },
		{ "Esc", "back" }, { NULL, NULL },
	};
	static const struct tui_key_help editing[] = {
		{ "Enter", "done" }, { "Esc", "undo" }, { "^U", "clear" }, { NULL, NULL },
	};
	static const struct tui_key_help await[] = {
		{ "c", "confirm" }, { "r", "revert now" }, { NULL, NULL },
	};
	static const struct tui_key_help done[] = { { "Esc", "back" }, { NULL, NULL } };

	if (!a)
		return done;
	if (a->editing)
		return editing;
	if (a->state == AP_PLAN)
		return c->can_change ? plan : plan_ro;
	return a->state == AP_AWAIT ? await : done;
}

static void tui_apply_close(struct tui_apply *a)
{
	if (!a)
		return;
	free(a->plan);
	free(a);
}

/* The screen as an overlay panel: tui.c drives it through this table only. */
static void *apply_open(struct tui_ctx *c)
{
	return tui_apply_open(c, c->apply_req);
}

static void apply_update(struct tui_ctx *c, void *a)
{
	tui_apply_tick(c, a);
}

static void apply_draw(struct tui_ctx *c, void *a, WINDOW *w, int rows, int cols)
{
	tui_apply_draw(c, a, w, rows, cols);
}

static bool apply_key(struct tui_ctx *c, void *a, int ch)
{
	return tui_apply_key(c, a, ch);
}

static void apply_close(void *a)
{
	tui_apply_close(a);
}

static const struct tui_key_help *apply_keys(struct tui_ctx *c, void *a)
{
	return tui_apply_keys(c, a);
}

static bool apply_busy(void *a)
{
	return tui_apply_counting(a);
}

const struct tui_panel tui_overlay_apply = {
	.title = "apply",
	.open = apply_open,
	.update = apply_update,
	.draw = apply_draw,
	.key = apply_key,
	.close = apply_close,
	.keys = apply_keys,
	.busy = apply_busy,
};
