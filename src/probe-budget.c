/*
 * probe-budget.c - the probe's time budget (--max-time, struct
 * probe_budget in probe.h): how long each arm's trials take, whether the
 * next trial or round fits before the ceiling, the rounds that fit once the
 * warm-up has shown it, what that many rounds can answer, the refusal (or
 * short run, or longer budget) when the first look does not fit, and the
 * administrative final look when time runs out between looks.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probe-int.h"
#include "swaptune/fmt.h"

/* What the plan's power is stated at: run-to-run sd of the paired log-ratio. */
static const double budget_sd_log[2] = { 0.05, 0.10 };
/*
 * --max-time suggested for the first look: the estimate and this much more.
 * 1.3, not less: on a busy 2-CPU host the same three warm-up trials took
 * 52, 53, 69 and 94 s within 20 minutes, and with 1.1 a run given the
 * budget a refusal named was refused again (6m asked for 8m, 8m for 11m).
 */
#define BUDGET_MARGIN 1.30

const char *probe_fmt_secs(double s, char *buf, size_t len)
{
	if (!(s >= 0))
		snprintf(buf, len, "unknown");
	else if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else if ((int)s % 60 == 0)
		snprintf(buf, len, "%d min", (int)(s / 60));
	else
		snprintf(buf, len, "%d min %d s", (int)(s / 60), (int)s % 60);
	return buf;
}

/* A --max-time value at least s: whole minutes, or seconds below 90 s. */
static const char *fmt_option(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0fs", ceil(s));
	else
		snprintf(buf, len, "%.0fm", ceil(s / 60));
	return buf;
}

static double option_s(double s)
{
	return s < 90 ? ceil(s) : 60 * ceil(s / 60);
}

void probe_budget_trial_start(struct engine *E)
{
	double now = probe_now_s();

	/* what the last trial's row, progress and look cost beyond the trial itself */
	if (E->prev_start_s > 0 && now - E->prev_start_s >= E->prev_dur_s) {
		E->gap_sum_s += now - E->prev_start_s - E->prev_dur_s;
		E->gap_n++;
	}
	E->prev_start_s = now;
	E->prev_dur_s = 0;
}

void probe_budget_trial_end(struct engine *E, const struct probe_trial *t)
{
	E->prev_dur_s = t->duration_s;
	/* an interrupted trial says nothing about how long the arm takes */
	if (t->status == PROBE_TRIAL_INTERRUPTED || t->arm < 0 || t->arm >= PROBE_ARMS_MAX ||
	    t->warmup)
		return;
	E->arm_sum_s[t->arm] += t->duration_s;
	E->arm_n[t->arm]++;
}

static double gap_s(const struct engine *E)
{
	return E->gap_n ? E->gap_sum_s / E->gap_n : 0;
}

void probe_budget_warmup(struct engine *E, double ratio)
{
	bool failed[PROBE_ARMS_MAX] = { false };
	double ok_sum = 0;
	unsigned ok_n = 0;

	for (size_t k = 0; k < E->r->ntrials; k++) {
		const struct probe_trial *t = &E->r->trials[k];
		double el = t->have[PM_ELAPSED_S] ? t->v[PM_ELAPSED_S] : 0;

		if (!t->warmup || t->status == PROBE_TRIAL_INTERRUPTED || t->arm < 0 ||
		    t->arm >= PROBE_ARMS_MAX)
			continue;
		E->warm_est_s[t->arm] = t->duration_s + el * (ratio - 1);
		failed[t->arm] = t->status != PROBE_TRIAL_OK;
		if (!failed[t->arm]) {
			ok_sum += E->warm_est_s[t->arm];
			ok_n++;
		}
	}
	/*
	 * A warm-up trial killed before its work was done is short, but the
	 * arm's later trials may complete: under a CPU hog pc3's OOM-killed
	 * 2.4 s warm-up made a round "about 14 s" and "3 min fits 12 rounds",
	 * and 9 did (its completed trials took 7 s). Such an arm is taken to
	 * be at least as long as the completed warm-up trials' mean.
	 */
	for (int i = 0; ok_n && i < E->c->narms && i < PROBE_ARMS_MAX; i++)
		if (failed[i] && E->warm_est_s[i] < ok_sum / ok_n)
			E->warm_est_s[i] = ok_sum / ok_n;
}

double probe_budget_trial_s(const struct engine *E, int arm)
{
	double sum = 0;
	unsigned n = 0;

	if (arm >= 0 && arm < PROBE_ARMS_MAX && E->arm_n[arm])
		return E->arm_sum_s[arm] / E->arm_n[arm] + gap_s(E);
	if (arm >= 0 && arm < PROBE_ARMS_MAX && E->warm_est_s[arm] > 0)
		return E->warm_est_s[arm] + gap_s(E);
	/* an arm not seen yet: as long as the others, or the plan's guess */
	for (int i = 0; i < E->c->narms && i < PROBE_ARMS_MAX; i++) {
		if (E->arm_n[i]) {
			sum += E->arm_sum_s[i] / E->arm_n[i];
			n++;
		} else if (E->warm_est_s[i] > 0) {
			sum += E->warm_est_s[i];
			n++;
		}
	}
	if (n)
		return sum / n + gap_s(E);
	return E->p->est_trial_s > 0 ? E->p->est_trial_s : 0;
}

double probe_budget_round_s(const struct engine *E)
{
	double s = 0;

	for (int i = 0; i < E->c->narms; i++)
		s += probe_budget_trial_s(E, i);
	return s;
}

bool probe_budget_fits(const struct engine *E, double need_s)
{
	if (!(E->c->max_time_s > 0))
		return true;
	return probe_now_s() + need_s + E->setup_s <= E->start_s + E->c->max_time_s;
}

/*
 * The gain the design finds with 80 % power at each stated sd (NAN if
 * none), at the rounds expected to fit: the plan cut there, though the run
 * goes on while time allows - the very design that will judge it (the
 * planned looks truncated, as judge_plan_design() makes it), not a fresh
 * design of the looks that fit, whose levels differ.
 */
static void budget_power(const struct engine *E, struct probe_budget *b)
{
	struct judge_plan plan = E->c->plan;
	struct verdict2_design d;

	b->effect80_pct[0] = b->effect80_pct[1] = NAN;
	b->fail_rounds = 0;
	judge_plan_truncate(&plan, b->rounds_fit);
	if (E->c->narms < 2 || plan.looks[0] < 2 ||
	    judge_plan_design(&plan, (size_t)E->c->narms - 1, &d, NULL) < 0)
		return;
	b->fail_rounds = verdict2_fail_rounds_min(&d);
	for (int i = 0; i < 2; i++)
		b->effect80_pct[i] = verdict2_effect_for_power(&d, 0.8, budget_sd_log[i]);
}

static void looks_text(const struct judge_plan *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < p->n_looks && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%u", k ? ", " : "", p->looks[k]);
}

/* The arms whose warm-up trial did not complete, "pc3, pc1"; 0 if none. */
static size_t warmup_failed(const struct engine *E, char *buf, size_t len)
{
	size_t n = 0, off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < E->r->ntrials; k++) {
		const struct probe_trial *t = &E->r->trials[k];

		if (!t->warmup || t->status == PROBE_TRIAL_OK || t->status == PROBE_TRIAL_INTERRUPTED ||
		    t->arm < 0 || t->arm >= E->c->narms || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", n ? ", " : "", E->c->arms[t->arm].name);
		n++;
	}
	return n;
}

/*
 * When a warm-up trial failed and the kept looks end before the failure
 * test could show anything: the rounds and time it would need.
 */
static void fail_rounds_text(const struct engine *E, struct probe_budget *b, size_t n)
{
	const struct judge_plan *p = &E->c->plan;
	char arms[96], t1[32], opt[16];
	double need;

	if (n >= sizeof(b->text) || b->fail_rounds == 0 ||
	    probe_expected_rounds(b, p->looks[p->n_looks - 1]) >= b->fail_rounds ||
	    warmup_failed(E, arms, sizeof(arms)) == 0)
		return;
	need = b->used_s + b->fail_rounds * b->round_s + b->teardown_s;
	snprintf(b->text + n, sizeof(b->text) - n, "; the warm-up of %s failed, and failures alone show "
		 "an arm failing more often only after %u rounds where one of the two failed (%u when the "
		 "other is also faster where both completed): about %s (--max-time %s)", arms,
		 b->fail_rounds, b->fail_rounds - 1, probe_fmt_secs(need, t1, sizeof(t1)),
		 fmt_option(need * BUDGET_MARGIN, opt, sizeof(opt)));
}

/* The sentence of a budget that reaches the first look (or a short run). */
static void fit_text(const struct engine *E, struct probe_budget *b)
{
	const struct judge_plan *p = &E->c->plan;
	char t1[32], t2[32], looks[96], pw[160] = "";
	size_t n;

	looks_text(p, looks, sizeof(looks));
	if (isfinite(b->effect80_pct[0]) && isfinite(b->effect80_pct[1]))
		snprintf(pw, sizeof(pw), "; with 80 %% power it finds a gain of %.1f %% at 5 %% run-to-run "
			 "variation, %.1f %% at 10 %%", b->effect80_pct[0], b->effect80_pct[1]);
	if (b->max_time_s > 0 && b->rounds_fit >= b->planned_last)
		n = (size_t)snprintf(b->text, sizeof(b->text), "%s fits every round of the plan (a round takes about %s)",
				     probe_fmt_secs(b->max_time_s, t1, sizeof(t1)),
				     probe_fmt_secs(b->round_s, t2, sizeof(t2)));
	else if (b->max_time_s > 0)
		n = (size_t)snprintf(b->text, sizeof(b->text), "%s fits %u round%s (a round takes about %s)",
				     probe_fmt_secs(b->max_time_s, t1, sizeof(t1)), b->rounds_fit,
				     b->rounds_fit == 1 ? "" : "s", probe_fmt_secs(b->round_s, t2, sizeof(t2)));
	else
		n = (size_t)snprintf(b->text, sizeof(b->text), "no time budget (a round takes about %s)",
				     probe_fmt_secs(b->round_s, t2, sizeof(t2)));
	if (n >= sizeof(b->text))
		return;
	if (b->short_run)
		n += (size_t)snprintf(b->text + n, sizeof(b->text) - n, "; a short run, judged once at "
				      "round %u (the plan's first look needs %u)%s", p->looks[p->n_looks - 1],
				      b->first_look, pw);
	else if (p->looks[p->n_looks - 1] < b->planned_last)
		n += (size_t)snprintf(b->text + n, sizeof(b->text) - n, "; looks kept at rounds %s: rounds go "
				      "on while another fits, and the last complete one takes the final look%s",
				      looks, pw);
	else
		n += (size_t)snprintf(b->text + n, sizeof(b->text) - n, "; every look of the plan fits "
				      "(rounds %s)%s", looks, pw);
	fail_rounds_text(E, b, n);
}

/* The first look does not fit: what it would take, and the question's answer. */
static enum probe_short_answer short_answer(struct engine *E, struct probe_budget *b)
{
	char t1[32], t2[32], opt[16];

	b->need_s = b->used_s + b->first_look * b->round_s + b->teardown_s;
	b->suggest_s = option_s(b->need_s * BUDGET_MARGIN);
	snprintf(b->text, sizeof(b->text), "%s fits %u round%s; the first look needs %u rounds: "
		 "about %s (--max-time %s)", probe_fmt_secs(b->max_time_s, t1, sizeof(t1)), b->rounds_fit,
		 b->rounds_fit == 1 ? "" : "s", b->first_look, probe_fmt_secs(b->need_s, t2, sizeof(t2)),
		 fmt_option(b->need_s * BUDGET_MARGIN, opt, sizeof(opt)));
	switch (E->c->short_policy) {
	case PROBE_SHORT_ALLOW:
		return PROBE_SHORT_RUN;
	case PROBE_SHORT_ASK:
		return E->c->short_ask ? E->c->short_ask(b, E->c->short_arg) : PROBE_SHORT_STOP;
	default:
		return PROBE_SHORT_STOP;
	}
}

/* The plan's first look after round n (its last if none is). */
static unsigned next_look(const struct judge_plan *p, unsigned n)
{
	for (size_t k = 0; k < p->n_looks; k++)
		if (p->looks[k] > n)
			return p->looks[k];
	return p->looks[p->n_looks - 1];
}

int probe_budget_plan(struct engine *E, unsigned rounds_done, struct st_err *e)
{
	struct probe_config *c = E->c;
	struct probe_budget *b = &E->r->budget;
	double left;

	/* asked at most three times: a longer budget may still not fit once the question took a while */
	for (int asked = 0;; asked++) {
		c->plan = E->plan0;
		b->known = true;
		b->max_time_s = c->max_time_s;
		b->used_s = probe_now_s() - E->start_s;
		b->round_s = probe_budget_round_s(E);
		b->teardown_s = E->setup_s;
		b->first_look = c->plan.looks[0];
		b->planned_last = c->plan.looks[c->plan.n_looks - 1];
		b->rounds_fit = b->planned_last;
		if (c->max_time_s > 0 && b->round_s > 0) {
			left = c->max_time_s - b->used_s - b->teardown_s;
			b->rounds_fit = left > 0 ? rounds_done + (unsigned)(left / b->round_s) : rounds_done;
			if (E->out_of_time)
				b->rounds_fit = rounds_done;
		}
		if (b->rounds_fit >= b->first_look)
			break;
		switch (asked < 3 ? short_answer(E, b) : PROBE_SHORT_STOP) {
		case PROBE_SHORT_EXTEND:
			c->max_time_s = b->suggest_s;
			b->extended = true;
			E->out_of_time = false;
			continue;
		case PROBE_SHORT_RUN:
			if (b->rounds_fit >= 2 && b->rounds_fit > rounds_done) {
				b->short_run = true;
				break;
			}
			/* not even two rounds fit: refused like a stop */
			/* fall through */
		default:
			b->refused = true;
			return err_set_exit(e, -ETIME, ST_EXIT_USAGE, "%s%s", b->text,
					    c->short_policy == PROBE_SHORT_REFUSE ?
					    "; or --allow-short for a run of the rounds that fit" : "");
		}
		break;
	}
	/*
	 * Cut the plan at the first planned look beyond what fits, not at
	 * what fits: the estimate comes from the warm-up and is often some
	 * 10-20 % long (runs ended 15-30 s early, a round or two unused), and
	 * the ceiling stops the rounds anyway, with an administrative final
	 * look that spends what is left. A short run is judged once, where
	 * it was asked to be.
	 */
	if (b->rounds_fit < b->planned_last)
		judge_plan_truncate(&c->plan, b->short_run ? b->rounds_fit : next_look(&E->plan0, b->rounds_fit));
	budget_power(E, b);
	fit_text(E, b);
	return 0;
}

bool probe_budget_admin_stop(struct engine *E, unsigned rounds, size_t k, bool partial)
{
	struct probe_budget *b = &E->r->budget;
	struct judge_plan *p = &E->c->plan;
	char t1[32], looks[96] = "";
	bool again;

	b->admin_stop = true;
	b->admin_round = rounds;
	b->partial_dropped = partial;
	b->n_looks_taken = k;
	for (size_t i = 0; i < k && i < VERDICT2_LOOKS_MAX; i++)
		b->looks_taken[i] = p->looks[i];
	for (size_t i = 0, n = 0; i < k && n < sizeof(looks); i++)
		n += (size_t)snprintf(looks + n, sizeof(looks) - n, "%s%u", i ? ", " : "", p->looks[i]);
	/* the look at round `rounds` itself may be taken already: it becomes the final one */
	again = k && p->looks[k - 1] == rounds;
	snprintf(b->stop_text, sizeof(b->stop_text), "the %s budget ran out after %u complete round%s%s: "
		 "an administrative final look at round %u%s%s%s%s",
		 probe_fmt_secs(E->c->max_time_s, t1, sizeof(t1)), rounds, rounds == 1 ? "" : "s",
		 partial ? " (the incomplete round after it is stored but not judged)" : "", rounds,
		 again ? ", the look taken there judged again as the last, with what is left of the "
			 "false-change budget" : "",
		 k ? " (looks taken at rounds " : "", looks, k ? ")" : "");
	if (rounds < 2) {
		/* no look: a verdict needs two rounds; say so, not a look that is not taken */
		snprintf(b->stop_text, sizeof(b->stop_text), "the %s budget ran out after %u complete round%s%s: "
			 "too few to judge (a look needs 2 rounds), no verdict",
			 probe_fmt_secs(E->c->max_time_s, t1, sizeof(t1)), rounds, rounds == 1 ? "" : "s",
			 partial ? " (the incomplete round after it is stored but not judged)" : "");
		return false;
	}
	judge_plan_truncate(p, rounds);
	return true;
}

cJSON *probe_budget_json(const struct probe_budget *b)
{
	cJSON *o = cJSON_CreateObject(), *a;

	if (!b->known) {
		cJSON_AddNumberToObject(o, "max_time_s", b->max_time_s);
		return o;
	}
	cJSON_AddNumberToObject(o, "max_time_s", b->max_time_s);
	fmt_json_num(o, "used_s", b->used_s);
	fmt_json_num(o, "round_s", b->round_s);
	cJSON_AddNumberToObject(o, "rounds_fit", b->rounds_fit);
	cJSON_AddNumberToObject(o, "first_look", b->first_look);
	if (b->need_s > 0) {
		fmt_json_num(o, "need_s", b->need_s);
		fmt_json_num(o, "suggest_max_time_s", b->suggest_s);
	}
	a = cJSON_AddObjectToObject(o, "effect_80pct_power_pct");
	fmt_json_num(a, "sd_log_0.05", b->effect80_pct[0]);
	fmt_json_num(a, "sd_log_0.10", b->effect80_pct[1]);
	cJSON_AddBoolToObject(o, "short_run", b->short_run);
	cJSON_AddBoolToObject(o, "extended", b->extended);
	cJSON_AddBoolToObject(o, "refused", b->refused);
	if (b->admin_stop) {
		cJSON *s = cJSON_AddObjectToObject(o, "administrative_look");

		cJSON_AddNumberToObject(s, "round", b->admin_round);
		a = cJSON_AddArrayToObject(s, "looks_taken_before");
		for (size_t i = 0; i < b->n_looks_taken; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(b->looks_taken[i]));
		cJSON_AddBoolToObject(s, "incomplete_round_dropped", b->partial_dropped);
		cJSON_AddStringToObject(s, "text", b->stop_text);
	} else {
		cJSON_AddNullToObject(o, "administrative_look");
	}
	cJSON_AddStringToObject(o, "text", b->text);
	return o;
}
