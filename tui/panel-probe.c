/*
 * panel-probe.c - probing from the screen: a form with the CLI's defaults
 * and parsers, the engine run in a worker thread with its progress shown
 * and cancellable, then per-arm bars with CI whiskers and the verdict.
 *
 * The engine is the one `swaptune probe` runs (probe_plan + probe_run); it
 * restores the host when it ends, fails or is stopped. While it runs it
 * owns the store connection (c->probe_busy): other panels leave it alone.
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
#include "swaptune/fmt.h"
#include "swaptune/lock.h"
#include "swaptune/probe.h"
#include "swaptune/stop.h"
#include "form.h"

enum probe_view { PV_FORM, PV_RUNNING, PV_RESULT };
enum form_field { F_WORKLOAD, F_ARMS, F_LIMIT, F_WS, F_ROUNDS, F_SEED, F_COUNT };

/* The CLI's defaults (swaptune/probe.h). */
static const struct tui_form_field fields[F_COUNT] = {
	[F_WORKLOAD] = { "Workload", PROBE_DEFAULT_WORKLOAD, NULL /* the list of workloads: workloads_hint() */ },
	[F_ARMS] = { "Arms", PROBE_DEFAULT_ARMS, "pc3,pc1,pc0,bypass or NAME:key=val,... (space between customs)" },
	[F_LIMIT] = { "Memcg limit", PROBE_MIB_TEXT(PROBE_DEFAULT_MEMCG_LIMIT_MIB),
		      "memory cgroup limit of each trial, e.g. 128M" },
	[F_WS] = { "Working set", PROBE_MIB_TEXT(PROBE_DEFAULT_WORKING_SET_MIB),
		   "the workload's memory, e.g. 256M (larger than the limit)" },
	[F_ROUNDS] = { "Rounds", "sequential", "sequential (looks at 5,10,15,20,30,40 rounds, stops when one decides) or N: a fixed design of N rounds" },
	[F_SEED] = { "Seed", "random", "round order and the workload's accesses" },
};

#define LOOKS_TEXT_LEN 96

/*
 * What the screen shows of a running probe, copied under the mutex by the
 * engine's thread: the plan too, since the budget may cut it (cfg.plan,
 * cfg.reps) while the screen draws.
 */
struct progress_copy {
	enum probe_phase phase;
	char arm[PROBE_ARM_NAME_MAX];
	unsigned round, rounds, trial, trials;
	double eta_s, at_s;
	char msg[160];
	bool seen;
	bool sequential;
	unsigned reps;
	char looks[LOOKS_TEXT_LEN];
};

struct probe_state {
	struct tui_ctx *c;
	enum probe_view view;
	struct tui_form form;		/* the note: the plan or a refusal */

	struct probe_config cfg;
	struct probe_plan plan;
	struct probe_result res;
	struct st_err run_err;
	int run_rc;

	pthread_t th;
	bool thread_live;
	int lockfd;
	struct stop_catch stop;		/* SIGINT, SIGTERM, SIGHUP stop the probe, not the screen */
	pthread_mutex_t mu;		/* guards prog and done */
	struct progress_copy prog;
	bool done;
	double started_s, ended_s;
	bool cancelling;

	struct tui_text text;		/* result: the verdict */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The workload field's hint: the workloads the screen can run (not cmd). */
static const char *workloads_hint(int i, char *list, size_t len)
{
	size_t o = 0;

	(void)i;
	list[0] = 0;
	for (size_t k = 0; k < workload_count() && o + 1 < len; k++) {
		const struct workload_info *wi = workload_at(k);

		if (wi->pattern != WORKLOAD_PAT_NONE)
			o += (size_t)snprintf(list + o, len - o, "%s%s", o ? " " : "one of: ", wi->name);
	}
	return list;
}

static void *probe_open(struct tui_ctx *c)
{
	struct probe_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->c = c;
	s->lockfd = -1;
	pthread_mutex_init(&s->mu, NULL);
	tui_form_init(&s->form, fields, F_COUNT, workloads_hint);
	return s;
}

/* ---- validation: the CLI's parsers, field by field ---- */

static int parse_arms(struct tui_ctx *c, const char *text, struct probe_config *cfg, char *err,
		      size_t len)
{
	char buf[160], *save = NULL;
	struct st_err e = { 0 };

	snprintf(buf, sizeof(buf), "%s", text);
	cfg->narms = 0;
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (strchr(tok, ':')) {
			if (cfg->narms >= PROBE_ARMS_MAX) {
				snprintf(err, len, "more than %d arms", PROBE_ARMS_MAX);
				return -EINVAL;
			}
			if (probe_arm_parse(c->h, tok, &cfg->arms[cfg->narms], &e) < 0) {
				snprintf(err, len, "%s", e.msg);
				return -EINVAL;
			}
			for (int k = 0; k < cfg->narms; k++)
				if (!strcmp(cfg->arms[k].name, cfg->arms[cfg->narms].name)) {
					snprintf(err, len, "arm %s is given twice", cfg->arms[k].name);
					return -EINVAL;
				}
			cfg->narms++;
		} else if (probe_arms_parse_list(tok, cfg->arms, PROBE_ARMS_MAX, &cfg->narms, &e) < 0) {
			snprintf(err, len, "%s", e.msg);
			return -EINVAL;
		}
	}
	if (cfg->narms < 2) {
		snprintf(err, len, "give at least two arms to compare");
		return -EINVAL;
	}
	return 0;
}

static int parse_size_field(const char *v, uint64_t *out, char *err, size_t len)
{
	unsigned long long b;

	if (fmt_parse_size(v, &b) < 0 || b == 0) {
		snprintf(err, len, "\"%s\" is not a size like 256M", v);
		return -EINVAL;
	}
	*out = b;
	return 0;
}

static int parse_uint_field(const char *v, unsigned long long lo, unsigned long long hi,
			    unsigned long long *out, char *err, size_t len)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (!v[0] || *end || errno || v[0] == '-' || *out < lo || *out > hi) {
		snprintf(err, len, "\"%s\": give a whole number from %llu to %llu", v, lo, hi);
		return -EINVAL;
	}
	return 0;
}

/* Fill s->cfg from the fields; errors inline. Returns how many fields are wrong. */
static int form_validate(struct probe_state *s)
{
	struct probe_config *cfg = &s->cfg;
	unsigned long long u;
	int bad = 0;

	memset(s->form.err, 0, sizeof(s->form.err));
	probe_config_init(cfg);
	cfg->metric_higher_better = true;
	cfg->workload = workload_find(s->form.val[F_WORKLOAD]);
	if (!cfg->workload) {
		snprintf(s->form.err[F_WORKLOAD], sizeof(s->form.err[0]), "unknown workload \"%s\"", s->form.val[F_WORKLOAD]);
		bad++;
	} else if (cfg->workload->pattern == WORKLOAD_PAT_NONE) {
		snprintf(s->form.err[F_WORKLOAD], sizeof(s->form.err[0]),
			 "%s needs a command line: use swaptune probe --workload cmd -- PROG", cfg->workload->name);
		bad++;
	}
	bad += parse_arms(s->c, s->form.val[F_ARMS], cfg, s->form.err[F_ARMS], sizeof(s->form.err[0])) < 0;
	bad += parse_size_field(s->form.val[F_LIMIT], &cfg->memcg_limit_bytes, s->form.err[F_LIMIT],
				sizeof(s->form.err[0])) < 0;
	bad += parse_size_field(s->form.val[F_WS], &cfg->wp.working_set_bytes, s->form.err[F_WS],
				sizeof(s->form.err[0])) < 0;
	if (strcmp(s->form.val[F_ROUNDS], "sequential")) {
		if (parse_uint_field(s->form.val[F_ROUNDS], 1, PROBE_REPS_MAX, &u, s->form.err[F_ROUNDS],
				     sizeof(s->form.err[0])) < 0) {
			bad++;
		} else {
			judge_plan_fixed(&cfg->plan, (unsigned)u);
			cfg->reps = cfg->max_reps = (unsigned)u;
		}
	}
	if (!strcmp(s->form.val[F_SEED], "random"))
		probe_seed_set(cfg, probe_seed_random());
	else if (parse_uint_field(s->form.val[F_SEED], 0, (1ULL << 53) - 1, &u, s->form.err[F_SEED],
				  sizeof(s->form.err[0])) < 0)
		bad++;
	else
		probe_seed_set(cfg, u);
	return bad;
}

/* "5,10,15,20,30,40" into buf (LOOKS_TEXT_LEN) */
static const char *looks_text(const struct judge_plan *p, char *buf)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_looks && n < LOOKS_TEXT_LEN; i++)
		n += (size_t)snprintf(buf + n, LOOKS_TEXT_LEN - n, "%s%u", i ? "," : "", p->looks[i]);
	return buf;
}

/* Validate and plan; true when the probe could start (the note says what it would do). */
static bool form_check(struct probe_state *s)
{
	struct st_err e = { 0 };
	char t[32], ws[32], lim[32];
	int bad = form_validate(s);

	if (bad) {
		tui_form_note_bad(&s->form, bad);
		return false;
	}
	if (probe_plan(s->c->h, &s->cfg, &s->plan, &e) < 0) {
		snprintf(s->form.note, sizeof(s->form.note), "cannot plan: %s", e.msg);
		s->form.note_style = TS_BAD;
		return false;
	}
	tui_fmt_bytes((double)s->cfg.wp.working_set_bytes, ws, sizeof(ws));
	tui_fmt_bytes((double)s->cfg.memcg_limit_bytes, lim, sizeof(lim));
	if (s->cfg.plan.sequential && s->plan.max_trials > s->plan.trials) {
		char tmax[32], cap[32], looks[LOOKS_TEXT_LEN];

		/* the first look's trials at least, every look's at most; the budget may drop later looks */
		snprintf(s->form.note, sizeof(s->form.note), "plan: %u to %u trials (%u arms, looks at rounds %s%s), "
			 "about %s to %s (looks that do not fit a %s budget are dropped); working set %s in a %s memcg",
			 s->plan.trials, s->plan.max_trials, s->cfg.narms, looks_text(&s->cfg.plan, looks),
			 s->cfg.warmup ? ", after a warm-up" : "",
			 tui_fmt_secs(s->plan.est_total_s, t, sizeof(t)),
			 tui_fmt_secs(s->plan.est_max_s, tmax, sizeof(tmax)),
			 s->cfg.max_time_s > 0 ? tui_fmt_secs(s->cfg.max_time_s, cap, sizeof(cap)) : "unlimited",
			 ws, lim);
	} else {
		snprintf(s->form.note, sizeof(s->form.note), "plan: %u trials (%u arms x %u rounds%s), about %s; "
			 "working set %s in a %s memcg", s->plan.trials, s->cfg.narms, s->cfg.reps,
			 s->cfg.warmup ? " + warm-up" : "",
			 tui_fmt_secs(s->plan.est_total_s >= 0 ? s->plan.est_total_s : s->plan.est_max_s, t, sizeof(t)),
			 ws, lim);
	}
	s->form.note_style = TS_GOOD;
	return true;
}

/* ---- the worker ---- */

/* the plan as it stands into s->prog (the engine's thread, or before it starts) */
static void plan_copy(struct probe_state *s)
{
	s->prog.sequential = s->cfg.plan.sequential;
	s->prog.reps = s->cfg.reps;
	looks_text(&s->cfg.plan, s->prog.looks);
}

static void on_progress(const struct probe_progress *p, void *arg)
{
	struct probe_state *s = arg;

	pthread_mutex_lock(&s->mu);
	s->prog.phase = p->phase;
	snprintf(s->prog.arm, sizeof(s->prog.arm), "%s", p->arm ? p->arm : "");
	s->prog.round = p->round;
	s->prog.rounds = p->rounds;
	s->prog.trial = p->trial;
	s->prog.trials = p->trials;
	s->prog.eta_s = p->eta_s;
	s->prog.at_s = now_s();
	if (p->msg)
		snprintf(s->prog.msg, sizeof(s->prog.msg), "%s", p->msg);
	s->prog.seen = true;
	plan_copy(s);
	pthread_mutex_unlock(&s->mu);
}

static void *worker(void *arg)
{
	struct probe_state *s = arg;
	sigset_t all;
	int rc;

	/* signals go to the screen's thread: SIGWINCH must not interrupt the engine's waits */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	rc = probe_run(s->c->h, s->c->st, &s->cfg, &s->plan, &s->res, &s->run_err);
	pthread_mutex_lock(&s->mu);
	s->run_rc = rc;
	s->done = true;
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void probe_start(struct probe_state *s)
{
	struct tui_ctx *c = s->c;
	struct st_err e = { 0 };

	if (!form_check(s))
		return;
	if (!c->h->live) {
		snprintf(s->form.note, sizeof(s->form.note), "not started: this screen reads a sysroot; probing runs "
			 "workloads on the live host (swaptune probe --dry-run shows the plan)");
		s->form.note_style = TS_WARN;
		return;
	}
	if (!c->root) {
		snprintf(s->form.note, sizeof(s->form.note), "not started: probing needs root (it changes page-cluster, "
			 "swap and cgroups, then restores them); run swaptune tui as root");
		s->form.note_style = TS_WARN;
		return;
	}
	if (host_change_lock(c->h, c->st->path, "tui", &s->lockfd, &e) < 0) {
		snprintf(s->form.note, sizeof(s->form.note), "not started: %s", e.msg);
		s->form.note_style = TS_BAD;
		return;
	}
	change_repair(c->st, c->h);
	/*
	 * the busy-host look, as the probe command makes it; the form's sizes
	 * are the user's (shown and editable), so only the metric adapts
	 */
	if (probe_busy_check(c->h, 500, &s->cfg.busy, &e) == 0)
		probe_busy_adapt(&s->cfg, true, true, false);
	err_reset(&e);
	stop_catch(&s->stop, 0);
	s->cfg.stop = &stop_signal;
	s->cfg.progress = on_progress;
	s->cfg.progress_arg = s;
	memset(&s->prog, 0, sizeof(s->prog));
	plan_copy(s);
	memset(&s->res, 0, sizeof(s->res));
	err_reset(&s->run_err);
	s->done = false;
	s->cancelling = false;
	s->started_s = now_s();
	c->probe_busy = true;
	if (pthread_create(&s->th, NULL, worker, s) != 0) {
		c->probe_busy = false;
		host_change_unlock(s->lockfd);
		s->lockfd = -1;
		snprintf(s->form.note, sizeof(s->form.note), "not started: cannot create a thread");
		s->form.note_style = TS_BAD;
		return;
	}
	s->thread_live = true;
	s->view = PV_RUNNING;
}

/* Join the finished worker and build the result view. */
static void probe_finish(struct probe_state *s)
{
	struct tui_ctx *c = s->c;
	struct st_err e = { 0 };

	pthread_join(s->th, NULL);
	s->thread_live = false;
	s->ended_s = now_s();
	stop_release(&s->stop);
	host_change_unlock(s->lockfd);
	s->lockfd = -1;
	c->probe_busy = false;
	tui_text_clear(&s->text);
	s->text.top = 0;
	if (s->run_rc < 0)
		tui_text_add(&s->text, TS_BAD, "the probe failed: %s", s->run_err.msg);
	if (s->res.restore_error[0])
		tui_text_add(&s->text, TS_BAD, "restoring the host: %s", s->res.restore_error);
	if (s->res.run_id > 0 && s->res.ntrials > 0) {
		if (tui_verdict_text(c, s->res.run_id, &s->text, NULL, 0, &e) < 0)
			tui_text_add(&s->text, TS_WARN, "no verdict: %s", e.msg);
	}
	s->view = PV_RESULT;
}

static void probe_update(struct tui_ctx *c, void *p)
{
	struct probe_state *s = p;
	bool done;

	if (!s || s->view != PV_RUNNING)
		return;
	pthread_mutex_lock(&s->mu);
	done = s->done;
	pthread_mutex_unlock(&s->mu);
	if (done)
		probe_finish(s);
	(void)c;
}

/* ---- drawing ---- */

static void draw_form(struct tui_ctx *c, struct probe_state *s, WINDOW *w, int rows, int cols)
{
	int y = 1;

	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "New probe: A/B-test readahead settings with a workload "
			  "in a memory cgroup");
	wattroff(w, tui_style(c, TS_TITLE));
	if (!c->h->live || !c->root) {
		wattron(w, tui_style(c, TS_WARN));
		tui_print_clipped(w, y, 2, cols, "%s", !c->h->live ?
				  "read-only: a sysroot is not a live host; the form checks values only" :
				  "read-only: probing needs root; the form checks values only");
		wattroff(w, tui_style(c, TS_WARN));
	}
	tui_form_draw(c, &s->form, w, y + 2, rows, cols);
}

static void draw_running(struct tui_ctx *c, struct probe_state *s, WINDOW *w, int rows, int cols)
{
	struct progress_copy pg;
	char el[32], eta[32], where[64];
	double now = now_s(), left;
	int y = 1, barw = cols - 20;

	pthread_mutex_lock(&s->mu);
	pg = s->prog;
	pthread_mutex_unlock(&s->mu);
	wattron(w, tui_style(c, TS_TITLE));
	if (pg.sequential)
		tui_print_clipped(w, y++, 2, cols, "Probe running: %s, arms %s, looks at %s%s",
				  s->form.val[F_WORKLOAD], s->form.val[F_ARMS], pg.looks,
				  s->cfg.warmup ? " + warm-up" : "");
	else
		tui_print_clipped(w, y++, 2, cols, "Probe running: %s, arms %s, %u round%s%s", s->form.val[F_WORKLOAD],
				  s->form.val[F_ARMS], pg.reps, pg.reps == 1 ? "" : "s",
				  s->cfg.warmup ? " + warm-up" : "");
	wattroff(w, tui_style(c, TS_TITLE));
	if (s->cfg.busy.busy) {
		char busy[400];

		probe_busy_text(&s->cfg, busy, sizeof(busy));
		wattron(w, tui_style(c, TS_WARN));
		tui_print_clipped(w, y++, 2, cols, "Busy host: %s", busy);
		wattroff(w, tui_style(c, TS_WARN));
	}
	y++;
	if (pg.phase == PROBE_PHASE_TRIAL && pg.round == 0)
		snprintf(where, sizeof(where), "warm-up (not counted)");
	else if (pg.phase == PROBE_PHASE_TRIAL)
		snprintf(where, sizeof(where), "%u of %u", pg.round, pg.round > pg.rounds ? pg.round : pg.rounds);
	else
		snprintf(where, sizeof(where), "-");
	tui_print_clipped(w, y++, 2, cols, "%-10s %s", "Phase", !pg.seen ? "starting" :
			  pg.phase == PROBE_PHASE_SETUP ? "setting up" : pg.phase == PROBE_PHASE_DETECT ?
			  "detecting zswap readahead bypass" : pg.phase == PROBE_PHASE_TRIAL ? "trials" :
			  "restoring the host");
	tui_print_clipped(w, y++, 2, cols, "%-10s %s", "Round", where);
	tui_print_clipped(w, y++, 2, cols, "%-10s %s", "Arm", pg.arm[0] ? pg.arm : "-");
	tui_print_clipped(w, y++, 2, cols, "%-10s %u of %u", "Trial", pg.trial,
			  pg.trials ? pg.trials : s->plan.trials);
	if (barw > 4) {
		unsigned n = pg.trials ? pg.trials : s->plan.trials;
		int fill = n ? (int)((double)(pg.trial ? pg.trial - 1 : 0) * barw / n) : 0;

		mvwaddch(w, y, 13, '[');
		wattron(w, tui_style(c, TS_GOOD));
		for (int k = 0; k < fill; k++)
			mvwaddch(w, y, 14 + k, '#');
		wattroff(w, tui_style(c, TS_GOOD));
		for (int k = fill; k < barw; k++)
			mvwaddch(w, y, 14 + k, '.');
		mvwaddch(w, y, 14 + barw, ']');
		y++;
	}
	left = pg.eta_s >= 0 ? pg.eta_s - (now - pg.at_s) : -1;
	tui_print_clipped(w, y++, 2, cols, "%-10s %s", "Elapsed", tui_fmt_secs(now - s->started_s, el, sizeof(el)));
	tui_print_clipped(w, y++, 2, cols, "%-10s %s", "ETA", left >= 0 ? tui_fmt_secs(left, eta, sizeof(eta)) :
			  "estimating after the first trials");
	y++;
	if (pg.msg[0] && y < rows)
		tui_print_clipped(w, y++, 2, cols, "%s", pg.msg);
	y++;
	wattron(w, tui_style(c, s->cancelling ? TS_WARN : TS_DIM));
	tui_print_clipped(w, y, 2, cols, "%s", s->cancelling ?
			  "cancelling: the trial is stopped, the host is being restored..." :
			  "c cancel: stops the trial; the engine restores page-cluster, swap and cgroups");
	wattroff(w, tui_style(c, s->cancelling ? TS_WARN : TS_DIM));
}

/* Per-arm bars of the primary metric with the CI of the mean as whiskers. */
static int draw_bars(struct tui_ctx *c, struct probe_state *s, WINDOW *w, int y, int cols)
{
	const struct probe_result *r = &s->res;
	int barw = cols - 2 - 9 - 2 - 26;
	double max = 0;

	for (int i = 0; i < s->cfg.narms; i++) {
		const struct stats_summary *st = &r->summary[i].primary;

		if (st->n && isfinite(st->mean) && st->mean > max)
			max = st->mean;
		if (st->n && isfinite(st->ci_high) && st->ci_high > max)
			max = st->ci_high;
	}
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y++, 2, cols, "%s per arm: mean, [ ] 95 %% CI of the mean",
			  s->cfg.primary == PROBE_PRIMARY_THROUGHPUT ? "throughput, ops/s (higher is better)" :
			  s->cfg.primary == PROBE_PRIMARY_CPU ?
			  "throughput per CPU second, ops/CPU-s (higher is better; the host was busy)" :
			  "primary metric");
	wattroff(w, tui_style(c, TS_TITLE));
	for (int i = 0; i < s->cfg.narms; i++) {
		const struct probe_arm_summary *a = &r->summary[i];
		const struct stats_summary *st = &a->primary;
		char m[24], lo[24], hi[24];

		tui_print_clipped(w, y, 2, cols, "%-9.9s", s->cfg.arms[i].name);
		if (!st->n || !(max > 0)) {
			wattron(w, tui_style(c, a->oom ? TS_BAD : TS_DIM));
			tui_print_clipped(w, y++, 13, cols, "no completed trials%s",
					  a->oom ? " (OOM-killed)" : "");
			wattroff(w, tui_style(c, a->oom ? TS_BAD : TS_DIM));
			continue;
		}
		if (barw >= 10) {
			int pm = (int)lround(st->mean / max * (barw - 1));
			int pl = isfinite(st->ci_low) ? (int)lround(fmax(st->ci_low, 0) / max * (barw - 1)) : pm;
			int ph = isfinite(st->ci_high) ? (int)lround(st->ci_high / max * (barw - 1)) : pm;

			for (int k = 0; k < barw; k++) {
				const char *cell = " ";

				if (k < pm)
					cell = c->utf8 ? "█" : "#";
				if (k > pl && k < ph && k >= pm)
					cell = c->utf8 ? "─" : "-";
				if (k == pl && pl != ph)
					cell = c->utf8 ? "├" : "[";
				if (k == ph && pl != ph)
					cell = c->utf8 ? "┤" : "]";
				if (k == pm && pl == ph)
					cell = "|";
				if (k < pm)
					wattron(w, tui_style(c, TS_GOOD));
				mvwaddstr(w, y, 13 + k, cell);
				wattroff(w, tui_style(c, TS_GOOD));
			}
		}
		tui_print_right(w, y, cols - 1, "%s [%s, %s]%s", tui_fmt_count(st->mean, m, sizeof(m)),
				tui_fmt_count(st->ci_low, lo, sizeof(lo)), tui_fmt_count(st->ci_high, hi, sizeof(hi)),
				a->oom ? " OOM" : "");
		y++;
	}
	return y;
}

static void draw_result(struct tui_ctx *c, struct probe_state *s, WINDOW *w, int rows, int cols)
{
	const struct probe_result *r = &s->res;
	char el[32];
	int y = 1;

	wattron(w, tui_style(c, !strcmp(r->status ? r->status : "", "ok") ? TS_TITLE : TS_WARN));
	tui_print_clipped(w, y++, 2, cols, "Probe run %lld %s: %zu trials in %s; host restored (%d change%s undone)",
			  (long long)r->run_id, r->signal ? "cancelled" : r->status ? r->status : "failed",
			  r->ntrials, tui_fmt_secs(s->ended_s - s->started_s, el, sizeof(el)),
			  r->restored, r->restored == 1 ? "" : "s");
	wattroff(w, tui_style(c, !strcmp(r->status ? r->status : "", "ok") ? TS_TITLE : TS_WARN));
	y++;
	if (r->ntrials)
		y = draw_bars(c, s, w, y, cols) + 1;
	tui_text_draw(c, &s->text, w, y, rows - y, cols);
}

static void probe_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct probe_state *s = p;

	if (!s) {
		tui_print_clipped(w, 1, 2, cols, "out of memory");
		return;
	}
	if (s->view == PV_FORM)
		draw_form(c, s, w, rows, cols);
	else if (s->view == PV_RUNNING)
		draw_running(c, s, w, rows, cols);
	else
		draw_result(c, s, w, rows, cols);
}

/* ---- keys ---- */

/* The form's keys, then the panel's: s start, c check, d defaults. */
static bool form_key(struct probe_state *s, int ch)
{
	enum tui_form_key k = tui_form_key(&s->form, ch);

	if (k == TUI_FORM_EDITED)
		form_check(s);
	if (k != TUI_FORM_UNUSED)
		return true;
	if (ch == 's' || ch == KEY_F(9))
		probe_start(s);
	else if (ch == 'c')
		form_check(s);
	else if (ch == 'd')
		tui_form_defaults(&s->form);
	else
		return false;
	return true;
}

static bool probe_key(struct tui_ctx *c, void *p, int ch)
{
	struct probe_state *s = p;

	if (!s)
		return false;
	if (s->view == PV_FORM)
		return form_key(s, ch);
	if (s->view == PV_RUNNING) {
		if (ch == 'c' || ch == KEY_F(8) || ch == 27) {
			stop_request(&stop_signal, SIGINT);
			s->cancelling = true;
			return true;
		}
		return false;
	}
	if (ch == 'a') {
		if (s->res.run_id)
			c->apply_req = s->res.run_id;
		else
			snprintf(c->status, sizeof(c->status), " this probe stored no run: nothing to apply");
		return true;
	}
	if (ch == 'n') {
		probe_result_free(&s->res);
		memset(&s->res, 0, sizeof(s->res));
		s->form.note[0] = 0;
		s->view = PV_FORM;
		return true;
	}
	return tui_text_key(&s->text, ch);
}

static bool probe_grabs_keys(void *p)
{
	struct probe_state *s = p;

	return s && s->view == PV_FORM && s->form.editing;
}

static const struct tui_key_help *probe_keys(struct tui_ctx *c, void *p)
{
	static const struct tui_key_help form[] = {
		{ "Enter", "edit" }, { "s", "start" }, { "c", "check" }, { "d", "defaults" }, { NULL, NULL },
	};
	static const struct tui_key_help running[] = {
		{ "c", "cancel" }, { NULL, NULL },
	};
	static const struct tui_key_help result[] = {
		{ "n", "new probe" }, { "PgDn", "scroll" }, { "a", "apply" }, { NULL, NULL },
	};
	struct probe_state *s = p;

	(void)c;
	if (!s)
		return NULL;
	if (s->view == PV_FORM)
		return tui_form_keys(&s->form, form);
	return s->view == PV_RUNNING ? running : result;
}

static void probe_close(void *p)
{
	struct probe_state *s = p;

	if (!s)
		return;
	if (s->thread_live) {
		stop_request(&stop_signal, SIGINT);
		probe_finish(s);
	}
	probe_result_free(&s->res);
	tui_text_free(&s->text);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

const struct tui_panel tui_panel_probe = {
	.title = "Probe",
	.open = probe_open,
	.update = probe_update,
	.draw = probe_draw,
	.key = probe_key,
	.close = probe_close,
	.keys = probe_keys,
	.grabs_keys = probe_grabs_keys,
	.always_update = true,
};
