/*
 * probe-state.c - the running engine's state as each of its parts sees it
 * (probe-int.h's struct engine): the clock, whether the probe was asked to
 * stop, progress reports to the front end, and the list of trials run. It
 * stands below every other part of the engine, so that the budget, a trial
 * and the bypass check never call up into the round loop for them.
 */
#include <stdlib.h>
#include <time.h>

#include "probe-int.h"

double probe_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool probe_stopped(const struct engine *E)
{
	return E->c->stop && *E->c->stop;
}

void probe_report(struct engine *E, enum probe_phase ph, const char *arm, unsigned round,
		  const char *msg)
{
	struct probe_progress pr = {
		.phase = ph, .arm = arm, .round = round,
		.rounds = E->c->reps, .trial = E->seq, .trials = E->planned_trials,
		.eta_s = -1, .msg = msg,
	};
	/* the trials left, this one included, at the mean trial so far (else the plan's estimate) */
	double left = (double)(E->planned_trials > E->seq ? E->planned_trials - E->seq + 1 : 1);

	if (!E->c->progress)
		return;
	if (E->trial_s_n)
		pr.eta_s = E->trial_s_sum / E->trial_s_n * left;
	else if (E->p->est_trial_s > 0)
		pr.eta_s = E->p->est_trial_s * left;
	E->c->progress(&pr, E->c->progress_arg);
}

void probe_report_keep(struct engine *E, unsigned round, const char *msg)
{
	struct probe_progress pr = {
		.phase = PROBE_PHASE_SETUP, .round = round, .rounds = E->c->reps, .trial = E->seq,
		.trials = E->planned_trials, .eta_s = -1, .msg = msg, .keep = true,
	};

	if (E->c->progress)
		E->c->progress(&pr, E->c->progress_arg);
}

int probe_trials_push(struct probe_result *r, const struct probe_trial *t)
{
	if (r->ntrials == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct probe_trial *v = realloc(r->trials, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->trials = v;
		r->cap = cap;
	}
	r->trials[r->ntrials++] = *t;
	return 0;
}
