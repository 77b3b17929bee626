/*
 * panel-switchback.c - a switchback from the screen: a form read by the
 * parsers of `swaptune switchback` (sbrun_config_parse(): the form's fields
 * become its options), the plan as --dry-run prints it, a confirmation,
 * the run in a worker thread with a live timeline (a bar per window, a
 * letter per arm, the washout dim), stoppable with Esc or q, then the
 * verdict of the stored run as `swaptune switchback` prints it.
 *
 * The engine is the command's (sbrun_plan + sbrun_run) under the command's
 * guard (change_lock): it puts the settings back when it ends, fails or is
 * stopped. While it runs it owns the store connection (c->probe_busy).
 * The form offers the kernel's figures as the metric; a workload's own
 * figure (--metric-cmd, --metric-file, --metric-prom) is the command's.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/change.h"
#include "swaptune/sbrun.h"
#include "swaptune/stop.h"
#include "form.h"

enum sb_view { SV_FORM, SV_PLAN, SV_RUNNING, SV_RESULT };
enum sb_field { F_ARMS, F_BASELINE, F_METRIC, F_CGROUP, F_WINDOW, F_WASHOUT, F_BLOCKS, F_MAXTIME,
		F_COUNT };

#define VAL_MAX TUI_FORM_VAL_MAX

/* switchback's kernel figures, from the counter table (WINDOW rows) */
static const char metric_hint[] =
#include "swaptune/vocab-window-names.h"
	"or a workload's own figure: swaptune switchback --metric-cmd; cpu needs the cgroup";

/* Each field with its default and hint. */
static const struct tui_form_field fields[F_COUNT] = {
	[F_ARMS] = { "Arms", "pc3,pc0",
		     "built-in pc3,pc1,pc0 or NAME:key=val,... (a space between custom arms); 2 to 4 arms" },
	[F_BASELINE] = { "Baseline", "auto",
			 "an arm's name, or auto: the arm matching the host now, else the first" },
	[F_METRIC] = { "Metric", "psi-some", metric_hint },
	[F_CGROUP] = { "Cgroup", "none",
		       "the workload's memory cgroup, relative to the controller's root (its PSI, "
		       "faults, CPU), or none: the host's figures" },
	[F_WINDOW] = { "Window", "30s", "length of one window, 2s to a day, e.g. 60s" },
	[F_WASHOUT] = { "Washout", "half",
			"start of every window not counted, shorter than the window; half: half of it" },
	[F_BLOCKS] = { "Blocks", "15", "blocks of one window per arm, each in a fresh random order" },
	[F_MAXTIME] = { "Max time", "none", "budget, e.g. 10min: only the blocks that fit; none: all of them" },
};

/* The option each field becomes, and the value that leaves it out (NULL: always given). */
static const struct {
	const char *opt, *omit;
} field_opts[F_COUNT] = {
	[F_ARMS] = { "--arms", NULL },
	[F_BASELINE] = { "--baseline", "auto" },
	[F_METRIC] = { "--metric", NULL },
	[F_CGROUP] = { "--cgroup", "none" },
	[F_WINDOW] = { "--window", NULL },
	[F_WASHOUT] = { "--washout", "half" },
	[F_BLOCKS] = { "--blocks", NULL },
	[F_MAXTIME] = { "--max-time", "none" },
};

struct timeline {
	unsigned window, windows;	/* the current window, 1-based; 0 before the start */
	unsigned done;			/* windows measured */
	double at_s;			/* when the current one started (now_s) */
	bool failed[SBRUN_WINDOWS_MAX];
	bool ended;
	char msg[200];
};

struct sb_state {
	struct tui_ctx *c;
	enum sb_view view;
	struct tui_form form;
	bool planned;			/* cfg and plan hold the form's checked plan */

	struct sbrun_config cfg;
	struct sbrun_plan plan;
	struct sbrun_result res;
	struct st_err run_err;
	int run_rc;

	pthread_t th;
	bool thread_live;
	int lockfd;
	struct stop_catch stop;		/* SIGINT, SIGTERM, SIGHUP stop the run, not the screen */
	pthread_mutex_t mu;		/* guards tl and done */
	struct timeline tl;
	bool done;
	double started_s, ended_s;
	bool stopping;

	struct tui_text text;		/* plan: the plan; result: the verdict */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void form_defaults(struct sb_state *s)
{
	tui_form_defaults(&s->form);
	s->planned = false;
}

static void *sb_open(struct tui_ctx *c)
{
	struct sb_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->c = c;
	s->lockfd = -1;
	pthread_mutex_init(&s->mu, NULL);
	tui_form_init(&s->form, fields, F_COUNT, NULL);
	return s;
}

/* What print(f, a, b) writes, as one malloc'd text (free()), or NULL without memory. */
static char *printed(void (*print)(FILE *f, const void *a, const void *b), const void *a,
		     const void *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	print(f, a, b);
	fclose(f);
	return buf;
}

/* Captured output of a printer into t, line by line. */
static void text_from(struct tui_text *t, enum tui_style st,
		      void (*print)(FILE *f, const void *a, const void *b), const void *a, const void *b)
{
	char *buf = printed(print, a, b);

	if (!buf) {
		tui_text_add(t, TS_BAD, "out of memory");
		return;
	}
	tui_text_add_block(t, st, buf);
	free(buf);
}

/* ---- validation: the form as the command's options, read by its parsers ---- */

/* Field i as options into argv (words copied into buf); the count added, or -1 when it does not fit. */
static int field_args(const struct sb_state *s, int i, char **argv, int n, char *buf, size_t len)
{
	char tmp[VAL_MAX], *save = NULL;
	size_t used = 0;
	int k = 0;

	if (field_opts[i].omit && (!s->form.val[i][0] || !strcmp(s->form.val[i], field_opts[i].omit)))
		return 0;
	if (i != F_ARMS) {
		argv[n] = (char *)field_opts[i].opt;
		argv[n + 1] = (char *)s->form.val[i];
		return 2;
	}
	/* arms: a list of built-ins (--arms) and custom arms (--arm NAME:key=val), blank-separated */
	snprintf(tmp, sizeof(tmp), "%s", s->form.val[i]);
	for (char *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		size_t l = strlen(t) + 1;

		if (k + 2 > 2 * SB_ARMS_MAX + 2 || used + l > len)
			return -1;
		argv[n + k++] = strchr(t, ':') ? "--arm" : "--arms";
		argv[n + k++] = memcpy(buf + used, t, l);
		used += l;
	}
	return k;
}

#define ARGV_MAX (1 + 2 * F_COUNT + 2 * SB_ARMS_MAX + 2)

/* Parse the options of the fields in mask (a bit per field) into cfg; 0 or -errno with why. */
static int parse_fields(struct sb_state *s, unsigned mask, struct sbrun_config *cfg, char *why,
			size_t len)
{
	char *argv[ARGV_MAX], arms[VAL_MAX + 8];
	struct st_err e = { 0 };
	int n = 1, r;

	argv[0] = "switchback";
	for (int i = 0; i < F_COUNT; i++) {
		if (!(mask & (1u << i)))
			continue;
		if ((r = field_args(s, i, argv, n, arms, sizeof(arms))) < 0) {
			snprintf(why, len, "too many arms");
			return -EINVAL;
		}
		n += r;
	}
	argv[n] = NULL;
	if ((r = sbrun_config_parse(s->c->h, n, argv, cfg, &e)) < 0)
		snprintf(why, len, "%s", e.msg);
	return r;
}

/* Every field alone (the baseline with the arms), then all together and the plan. Fields wrong. */
static int form_validate(struct sb_state *s)
{
	struct st_err e = { 0 };
	int bad = 0;

	memset(s->form.err, 0, sizeof(s->form.err));
	s->form.note[0] = 0;
	s->planned = false;
	for (int i = 0; i < F_COUNT; i++) {
		unsigned mask = 1u << i | (i == F_BASELINE ? 1u << F_ARMS : 0);

		if (i == F_BASELINE && s->form.err[F_ARMS][0])
			continue;
		bad += parse_fields(s, mask, &s->cfg, s->form.err[i], sizeof(s->form.err[i])) < 0;
	}
	if (bad)
		return bad;
	if (parse_fields(s, (1u << F_COUNT) - 1, &s->cfg, s->form.note, sizeof(s->form.note)) < 0)
		return 1;
	if (sbrun_plan(s->c->h, &s->cfg, &s->plan, &e) < 0) {
		snprintf(s->form.note, sizeof(s->form.note), "cannot plan: %s", e.msg);
		return 1;
	}
	s->planned = true;
	return 0;
}

static void print_plan(FILE *f, const void *cfg, const void *plan)
{
	sbrun_plan_print(f, cfg, plan);
}

/* Check the form; true with the plan's summary in the note, and the whole plan in s->text. */
static bool form_check(struct sb_state *s)
{
	const struct sb_plan *pl = &s->plan.design.plan;
	char w[32], wo[32], all[32];
	int bad = form_validate(s);

	if (bad && !s->form.note[0])
		tui_form_note_bad(&s->form, bad);
	if (!s->planned) {
		s->form.note_style = TS_BAD;
		return false;
	}
	snprintf(s->form.note, sizeof(s->form.note), "plan: %u blocks x %u windows of %s, washout %s: %s in all; "
		 "switches %s%s (s shows the whole plan)", pl->n_blocks, pl->n_arms,
		 tui_fmt_secs(pl->window_s, w, sizeof(w)), tui_fmt_secs(pl->washout_s, wo, sizeof(wo)),
		 tui_fmt_secs(s->plan.budget.duration_s, all, sizeof(all)),
		 s->plan.ntouch ? s->plan.touch[0].name : "nothing", s->plan.ntouch > 1 ? " and more" : "");
	s->form.note_style = TS_GOOD;
	tui_text_clear(&s->text);
	s->text.top = 0;
	text_from(&s->text, TS_NORMAL, print_plan, &s->cfg, &s->plan);
	return true;
}

/* Why this screen may not start a run, or NULL. */
static const char *start_refusal(const struct tui_ctx *c)
{
	if (!c->h->live)
		return "read-only: a sysroot is not a live host (a plan only, as --dry-run)";
	if (!c->root)
		return "read-only: a switchback needs root (sudo swaptune tui)";
	if (c->probe_busy)
		return "a probe is running: wait for it to end";
	return NULL;
}

/* ---- the worker ---- */

static void on_progress(const struct sbrun_progress *p, void *arg)
{
	struct sb_state *s = arg;
	struct timeline *t = &s->tl;

	pthread_mutex_lock(&s->mu);
	if (p->phase == SBRUN_PHASE_START) {
		/* the first window starts now */
		t->window = 1;
		t->windows = p->windows;
		t->at_s = now_s();
	} else if (p->phase == SBRUN_PHASE_WINDOW) {
		/* window p->window was measured (msg: its value): the next one starts */
		t->done = p->window;
		t->window = p->window + 1;
		t->windows = p->windows;
		t->at_s = now_s();
	} else if (p->phase == SBRUN_PHASE_GUARD && p->window >= 1 && p->window <= SBRUN_WINDOWS_MAX) {
		t->failed[p->window - 1] = true;
	} else if (p->phase == SBRUN_PHASE_END) {
		t->ended = true;
	}
	if (p->msg && p->phase == SBRUN_PHASE_WINDOW)
		snprintf(t->msg, sizeof(t->msg), "window %u (%s): %s", p->window, p->arm ? p->arm : "-", p->msg);
	else if (p->msg)
		snprintf(t->msg, sizeof(t->msg), "%s%s", p->phase == SBRUN_PHASE_GUARD ? "guardrail: " : "",
			 p->msg);
	pthread_mutex_unlock(&s->mu);
}

static void *worker(void *arg)
{
	struct sb_state *s = arg;
	sigset_t all;
	int rc;

	/* signals go to the screen's thread: SIGWINCH must not interrupt the engine's waits */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	rc = sbrun_run(s->c->h, s->c->st, &s->cfg, &s->plan, &s->res, &s->run_err);
	pthread_mutex_lock(&s->mu);
	s->run_rc = rc;
	s->done = true;
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* y on the plan: the command's guard, then the run in a thread. */
static void sb_start(struct sb_state *s)
{
	struct tui_ctx *c = s->c;
	struct st_err e = { 0 };
	const char *why = start_refusal(c);

	if (why || !s->planned) {
		snprintf(s->form.note, sizeof(s->form.note), "not started: %s", why ? why : "check the form first");
		s->form.note_style = TS_WARN;
		s->view = SV_FORM;
		return;
	}
	if (change_lock(c->st, c->h,
			&(struct change_guard){ .what = "switchback", .db_path = c->st->path,
						.refuse_pending = true },
			&s->lockfd, &e) < 0) {
		change_unlock(s->lockfd);
		s->lockfd = -1;
		snprintf(s->form.note, sizeof(s->form.note), "not started: %s", e.msg);
		s->form.note_style = TS_BAD;
		s->view = SV_FORM;
		return;
	}
	stop_catch(&s->stop, 0);
	s->cfg.stop = &stop_signal;
	s->cfg.progress = on_progress;
	s->cfg.progress_arg = s;
	memset(&s->tl, 0, sizeof(s->tl));
	memset(&s->res, 0, sizeof(s->res));
	err_reset(&s->run_err);
	s->done = false;
	s->stopping = false;
	s->started_s = now_s();
	c->probe_busy = true;
	if (pthread_create(&s->th, NULL, worker, s) != 0) {
		c->probe_busy = false;
		stop_release(&s->stop);
		change_unlock(s->lockfd);
		s->lockfd = -1;
		snprintf(s->form.note, sizeof(s->form.note), "not started: cannot create a thread");
		s->form.note_style = TS_BAD;
		s->view = SV_FORM;
		return;
	}
	s->thread_live = true;
	s->view = SV_RUNNING;
}

static void print_verdict(FILE *f, const void *stored, const void *unused)
{
	(void)unused;
	sbrun_verdict_print(f, stored);
}

/* The stored run's verdict as recommend prints it, its Verdict: line styled as a probe's. */
static void verdict_text(struct tui_text *t, const struct sbrun_stored *stored)
{
	char *buf = printed(print_verdict, stored, NULL);

	if (!buf) {
		tui_text_add(t, TS_BAD, "out of memory");
		return;
	}
	tui_verdict_add_block(t, buf);
	free(buf);
}

/* Join the finished worker; the verdict of the stored run into s->text. */
static void sb_finish(struct sb_state *s)
{
	struct tui_ctx *c = s->c;
	struct sbrun_stored *st = calloc(1, sizeof(*st));
	struct st_err e = { 0 };

	pthread_join(s->th, NULL);
	s->thread_live = false;
	s->ended_s = now_s();
	stop_release(&s->stop);
	change_unlock(s->lockfd);
	s->lockfd = -1;
	c->probe_busy = false;
	tui_text_clear(&s->text);
	s->text.top = 0;
	if (s->run_rc < 0)
		tui_text_add(&s->text, TS_BAD, "the switchback failed: %s", s->run_err.msg);
	if (s->res.restore_error[0])
		tui_text_add(&s->text, TS_BAD, "putting the settings back: %s", s->res.restore_error);
	if (s->res.stop_reason[0])
		tui_text_add(&s->text, TS_WARN, "stopped early: %s", s->res.stop_reason);
	if (!st)
		tui_text_add(&s->text, TS_BAD, "out of memory");
	else if (s->res.run_id > 0 && sbrun_load(c->st, c->h, s->res.run_id, st, &e) < 0)
		tui_text_add(&s->text, TS_WARN, "no verdict: %s", e.msg);
	else if (s->res.run_id > 0)
		verdict_text(&s->text, st);
	if (st)
		sbrun_stored_free(st);
	free(st);
	s->view = SV_RESULT;
}

static void sb_update(struct tui_ctx *c, void *p)
{
	struct sb_state *s = p;
	bool done;

	(void)c;
	if (!s || s->view != SV_RUNNING)
		return;
	pthread_mutex_lock(&s->mu);
	done = s->done;
	pthread_mutex_unlock(&s->mu);
	if (done)
		sb_finish(s);
}

/* ---- drawing ---- */

static void draw_form(struct tui_ctx *c, struct sb_state *s, WINDOW *w, int rows, int cols)
{
	int y = 1;

	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "New switchback: A/B-test settings under the running "
			  "workload, window by window");
	wattroff(w, tui_style(c, TS_TITLE));
	if (start_refusal(c)) {
		wattron(w, tui_style(c, TS_WARN));
		tui_print_clipped(w, y, 2, cols, "%s", !c->h->live ?
				  "read-only: a sysroot is not a live host; the form checks values and plans only" :
				  !c->root ? "read-only: a switchback needs root; the form checks values and plans only" :
				  "a probe is running: the form checks values and plans only");
		wattroff(w, tui_style(c, TS_WARN));
	}
	tui_form_draw(c, &s->form, w, y + 2, rows, cols);
}

static void draw_plan(struct tui_ctx *c, struct sb_state *s, WINDOW *w, int rows, int cols)
{
	const char *why = start_refusal(c);
	char t[32];

	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, 1, 2, cols, "Switchback plan (as swaptune switchback --dry-run prints it)");
	wattroff(w, tui_style(c, TS_TITLE));
	tui_text_draw(c, &s->text, w, 2, rows - 4, cols);
	wattron(w, tui_style(c, why ? TS_WARN : TS_GOOD));
	if (why)
		tui_print_clipped(w, rows - 1, 2, cols, "%s", why);
	else
		tui_print_clipped(w, rows - 1, 2, cols, "y: switch %s under the running workload for up to %s; "
				  "n or Esc: back to the form", s->plan.ntouch ? s->plan.touch[0].name : "the settings",
				  tui_fmt_secs(s->plan.budget.duration_s, t, sizeof(t)));
	wattroff(w, tui_style(c, why ? TS_WARN : TS_GOOD));
}

/* Arm a's letter: A for the baseline, B, C, D for the others. */
static char arm_letter(unsigned a, bool upper)
{
	return (char)((upper ? 'A' : 'a') + (int)a);
}

/* The timeline being drawn: the run's state, its timeline as last copied, the window it goes into. */
struct tl_draw {
	struct tui_ctx *c;
	const struct sb_state *s;
	const struct timeline *tl;
	WINDOW *w;
};

/*
 * One window's bar of width cells: the washout part dim in lower case, the
 * counted part in upper case, x where it failed, dots where it has not run;
 * the current window in reverse video as far as it has gone.
 */
static void draw_window(const struct tl_draw *d, int y, int x, int width, unsigned idx)
{
	struct tui_ctx *c = d->c;
	const struct sb_state *s = d->s;
	const struct timeline *tl = d->tl;
	const struct sb_plan *pl = &s->plan.design.plan;
	unsigned arm = s->plan.design.order[idx / pl->n_arms][idx % pl->n_arms];
	int wash = (int)lround(pl->washout_s / pl->window_s * width);
	int reach = width;
	bool cur = tl->window == idx + 1 && !tl->ended, future = idx + 1 > (cur ? tl->window : tl->done);

	if (cur)
		reach = (int)fmin(width, floor((now_s() - tl->at_s) / pl->window_s * width) + 1);
	for (int k = 0; k < width; k++) {
		bool run = !future && k < reach;
		chtype ch = !run ? (k == 0 ? (chtype)arm_letter(arm, false) : '.') :
			tl->failed[idx] && k >= wash ? 'x' : (chtype)arm_letter(arm, k >= wash);
		attr_t a = !run ? tui_style(c, TS_DIM) : tl->failed[idx] && k >= wash ? tui_style(c, TS_BAD) :
			k < wash ? tui_style(c, TS_DIM) : A_BOLD;

		if (cur && run)
			a |= A_REVERSE;
		mvwaddch(d->w, y, x + k, ch | a);
	}
}

/* The timeline from row y: a row per block, a bar per window; the rows used. */
static int draw_timeline(const struct tl_draw *d, int y, int rows, int cols)
{
	struct tui_ctx *c = d->c;
	const struct sb_state *s = d->s;
	const struct timeline *tl = d->tl;
	WINDOW *w = d->w;
	const struct sb_plan *pl = &s->plan.design.plan;
	int width = (cols - 12) / (int)pl->n_arms - 1, first = 0, room = rows - y;
	unsigned cur_block = tl->window ? (tl->window - 1) / pl->n_arms : 0;

	if (width > 30)
		width = 30;
	if (width < 2 || room < 1)
		return y;
	if ((int)pl->n_blocks > room && (int)cur_block >= room / 2)
		first = (int)cur_block - room / 2;
	if (first + room > (int)pl->n_blocks)
		first = (int)pl->n_blocks - room > 0 ? (int)pl->n_blocks - room : 0;
	for (int b = first; b < (int)pl->n_blocks && y < rows; b++, y++) {
		wattron(w, (unsigned)b == cur_block && !tl->ended ? A_BOLD : tui_style(c, TS_DIM));
		tui_print_clipped(w, y, 2, cols, "block %2d", b + 1);
		wattroff(w, A_BOLD | tui_style(c, TS_DIM));
		for (unsigned q = 0; q < pl->n_arms; q++)
			draw_window(d, y, 12 + (int)q * (width + 1), width, (unsigned)b * pl->n_arms + q);
	}
	return y;
}

static void draw_legend(struct tui_ctx *c, const struct sb_state *s, WINDOW *w, int y, int cols)
{
	char buf[256];
	size_t n = 0;

	for (int a = 0; a < s->cfg.narms && n < sizeof(buf); a++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%c %s%s  ", arm_letter((unsigned)a, true),
				      s->cfg.arms[a].name, a == 0 ? " (baseline)" : "");
	snprintf(buf + (n < sizeof(buf) ? n : sizeof(buf) - 1), sizeof(buf) - (n < sizeof(buf) ? n : sizeof(buf) - 1),
		 "a.. washout (not counted)  x failed");
	(void)c;
	tui_print_clipped(w, y, 2, cols, "%s", buf);
}

static void draw_running(struct tui_ctx *c, struct sb_state *s, WINDOW *w, int rows, int cols)
{
	const struct sb_plan *pl = &s->plan.design.plan;
	struct timeline tl;
	char el[32], left[32], m[256];
	unsigned windows = pl->n_blocks * pl->n_arms;
	int y = 1;

	pthread_mutex_lock(&s->mu);
	tl = s->tl;
	pthread_mutex_unlock(&s->mu);
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "Switchback running: %s, window %s, washout %s",
			  sbm_describe(&s->cfg.metric, m, sizeof(m)), tui_fmt_secs(pl->window_s, el, sizeof(el)),
			  tui_fmt_secs(pl->washout_s, left, sizeof(left)));
	wattroff(w, tui_style(c, TS_TITLE));
	draw_legend(c, s, w, y++, cols);
	y = draw_timeline(&(struct tl_draw){ c, s, &tl, w }, y + 1, rows - 4, cols) + 1;
	if (tl.window && tl.window <= windows)
		tui_print_clipped(w, y++, 2, cols, "window %u of %u (block %u of %u, %s), %u done; elapsed %s, "
				  "at most %s left", tl.window, windows, (tl.window - 1) / pl->n_arms + 1, pl->n_blocks,
				  s->cfg.arms[s->plan.design.order[(tl.window - 1) / pl->n_arms][(tl.window - 1) % pl->n_arms]].name,
				  tl.done, tui_fmt_secs(now_s() - s->started_s, el, sizeof(el)),
				  tui_fmt_secs(fmax(0, (windows - tl.done) * pl->window_s - (now_s() - tl.at_s)), left,
					       sizeof(left)));
	else if (tl.window)
		tui_print_clipped(w, y++, 2, cols, "%u of %u windows done: judging and putting the settings back",
				  tl.done, windows);
	else
		tui_print_clipped(w, y++, 2, cols, "starting: %u windows planned", windows);
	if (tl.msg[0])
		tui_print_clipped(w, y++, 2, cols, "%s", tl.msg);
	wattron(w, tui_style(c, s->stopping ? TS_WARN : TS_DIM));
	tui_print_clipped(w, rows - 1, 2, cols, "%s", s->stopping ?
			  "stopping: the engine puts the settings back..." :
			  "Esc or q: stop; the engine puts the settings back");
	wattroff(w, tui_style(c, s->stopping ? TS_WARN : TS_DIM));
}

static void draw_result(struct tui_ctx *c, struct sb_state *s, WINDOW *w, int rows, int cols)
{
	const struct sbrun_result *r = &s->res;
	const struct sb_plan *pl = &s->plan.design.plan;
	bool ok = r->status && !strcmp(r->status, "ok");
	char el[32], line[SBRUN_WINDOWS_MAX + SB_BLOCKS_MAX + 1];
	size_t n = 0;
	int y = 1;

	wattron(w, tui_style(c, ok ? TS_TITLE : TS_WARN));
	tui_print_clipped(w, y++, 2, cols, "Switchback run %lld %s: %u of %u windows in %s; %d change%s undone",
			  (long long)r->run_id, r->status ? r->status : "failed",
			  r->n_windows, pl->n_blocks * pl->n_arms, tui_fmt_secs(s->ended_s - s->started_s, el, sizeof(el)),
			  r->restored, r->restored == 1 ? "" : "s");
	wattroff(w, tui_style(c, ok ? TS_TITLE : TS_WARN));
	/* a letter per window as it ran, blocks apart: x failed, . not run */
	for (unsigned i = 0; i < pl->n_blocks * pl->n_arms && n + 2 < sizeof(line); i++) {
		unsigned arm = s->plan.design.order[i / pl->n_arms][i % pl->n_arms];

		if (i && i % pl->n_arms == 0)
			line[n++] = ' ';
		line[n++] = i >= r->n_windows ? '.' : r->w && r->w[i].outcome != SB_WIN_OK ? 'x' :
			arm_letter(arm, true);
	}
	line[n] = 0;
	tui_print_clipped(w, y++, 2, cols, "windows  %s", line);
	draw_legend(c, s, w, y++, cols);
	tui_text_draw(c, &s->text, w, y + 1, rows - y - 1, cols);
}

static void sb_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct sb_state *s = p;

	if (!s) {
		tui_print_clipped(w, 1, 2, cols, "out of memory");
		return;
	}
	if (s->view == SV_FORM)
		draw_form(c, s, w, rows, cols);
	else if (s->view == SV_PLAN)
		draw_plan(c, s, w, rows, cols);
	else if (s->view == SV_RUNNING)
		draw_running(c, s, w, rows, cols);
	else
		draw_result(c, s, w, rows, cols);
}

/* ---- keys ---- */

/* The form's keys, then the panel's: s the plan, c check, d defaults. */
static bool form_key(struct sb_state *s, int ch)
{
	enum tui_form_key k = tui_form_key(&s->form, ch);

	if (k == TUI_FORM_EDITED)
		form_check(s);
	if (k != TUI_FORM_UNUSED)
		return true;
	if (ch == 's' || ch == KEY_F(9)) {
		if (form_check(s))
			s->view = SV_PLAN;
	} else if (ch == 'c') {
		form_check(s);
	} else if (ch == 'd') {
		form_defaults(s);
	} else {
		return false;
	}
	return true;
}

static bool sb_key(struct tui_ctx *c, void *p, int ch)
{
	struct sb_state *s = p;

	(void)c;
	if (!s)
		return false;
	if (s->view == SV_FORM)
		return form_key(s, ch);
	if (s->view == SV_PLAN) {
		if (ch == 'y')
			sb_start(s);
		else if (ch == 'n' || ch == 27)
			s->view = SV_FORM;
		else
			return tui_text_key(&s->text, ch);
		return true;
	}
	if (s->view == SV_RUNNING) {
		if (ch == 27 || ch == 'q' || ch == 'c') {
			stop_request(&stop_signal, SIGINT);
			s->stopping = true;
			return true;
		}
		return false;
	}
	if (ch == 'n') {
		sbrun_result_free(&s->res);
		memset(&s->res, 0, sizeof(s->res));
		s->form.note[0] = 0;
		s->planned = false;
		s->view = SV_FORM;
		return true;
	}
	return tui_text_key(&s->text, ch);
}

static bool sb_grabs_keys(void *p)
{
	struct sb_state *s = p;

	return s && s->view == SV_FORM && s->form.editing;
}

static const struct tui_key_help *sb_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help form[] = {
		{ "Enter", "edit" }, { "s", "plan" }, { "c", "check" }, { "d", "defaults" }, { NULL, NULL },
	};
	static const struct tui_key_help plan[] = {
		{ "y", "start" }, { "n Esc", "back" }, { "PgDn", "scroll" }, { NULL, NULL },
	};
	static const struct tui_key_help running[] = {
		{ "Esc q", "stop" }, { NULL, NULL },
	};
	static const struct tui_key_help result[] = {
		{ "n", "new switchback" }, { "PgDn", "scroll" }, { NULL, NULL },
	};
	struct sb_state *s = p;

	(void)c;
	if (!s)
		return NULL;
	if (s->view == SV_FORM)
		return tui_form_keys(&s->form, form);
	return s->view == SV_PLAN ? plan : s->view == SV_RUNNING ? running : result;
}

static void sb_close(void *p)
{
	struct sb_state *s = p;

	if (!s)
		return;
	if (s->thread_live) {
		stop_request(&stop_signal, SIGINT);
		sb_finish(s);
	}
	sbrun_result_free(&s->res);
	tui_text_free(&s->text);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

const struct tui_panel tui_panel_switchback = {
	.title = "Switch",
	.open = sb_open,
	.update = sb_update,
	.draw = sb_draw,
	.key = sb_key,
	.close = sb_close,
	.keys = sb_keys,
	.grabs_keys = sb_grabs_keys,
	.always_update = true,
};
