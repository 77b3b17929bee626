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
#include "swaptune/stop.h"

double probe_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool probe_stopped(const struct engine *E)
{
	return stop_requested(E->c->stop) != 0;
}

unsigned probe_expected_rounds(const struct probe_budget *b, unsigned last)
{
	return b->rounds_fit < last ? b->rounds_fit : last;
}

/*
 * The rounds and trials shown as the run's length: the plan's, or fewer
 * when the budget expects fewer to fit before its ceiling (rounds beyond
 * still run while time allows: then the one running is the last shown).
 */
static void shown_length(const struct engine *E, unsigned round, unsigned *rounds, unsigned *trials)
{
	const struct probe_budget *b = &E->r->budget;
	unsigned n;

	*rounds = E->c->reps;
	*trials = E->planned_trials;
	if (!b->known || b->short_run)
		return;
	n = probe_expected_rounds(b, E->c->reps);
	if (round > n)
		n = round;
	if (n >= E->c->reps)
		return;
	*rounds = n;
	*trials -= (E->c->reps - n) * (unsigned)E->c->narms;
}

void probe_report(struct engine *E, enum probe_phase ph, const char *arm, unsigned round,
		  const char *msg)
{
	struct probe_progress pr = {
		.phase = ph, .arm = arm, .round = round, .trial = E->seq, .eta_s = -1, .msg = msg,
	};
	double left;

	if (!E->c->progress)
		return;
	shown_length(E, round, &pr.rounds, &pr.trials);
	/* the trials left, this one included, at the mean trial so far (else the plan's estimate) */
	left = (double)(pr.trials > E->seq ? pr.trials - E->seq + 1 : 1);
	if (E->trial_s_n)
		pr.eta_s = E->trial_s_sum / E->trial_s_n * left;
	else if (E->p->est_trial_s > 0)
		pr.eta_s = E->p->est_trial_s * left;
	E->c->progress(&pr, E->c->progress_arg);
}

void probe_report_keep(struct engine *E, unsigned round, const char *msg)
{
	struct probe_progress pr = {
		.phase = PROBE_PHASE_SETUP, .round = round, .trial = E->seq, .eta_s = -1, .msg = msg,
		.keep = true,
	};

	shown_length(E, round, &pr.rounds, &pr.trials);
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
