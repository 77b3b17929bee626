/*
 * probe-engine.c - running a probe (see probe.h): the run registered, the
 * host set up (probe-setup.c) and the bypass settled (probe-bypass.c), the
 * warm-up and measured rounds in shuffled arm order, the looks of the
 * sequential design within the time budget (probe-budget.c), the run's
 * rows and summary in the store, the host restored. The top of the engine:
 * none of its parts calls it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe-int.h"
#include "swaptune/facts.h"
#include "swaptune/kernel-check.h"
#include "swaptune/stop.h"

/* ---- running --------------------------------------------------------- */

static int run_round(struct engine *E, unsigned round, bool warmup, struct st_err *e)
{
	int order[PROBE_ARMS_MAX];

	probe_round_order(E->c->seed, round, E->c->narms, order);
	E->round_started = 0;
	for (int k = 0; k < E->c->narms; k++) {
		struct probe_arm *a = &E->c->arms[order[k]];
		struct probe_trial t;
		int rc;

		if (probe_stopped(E))
			return 0;
		/* the ceiling: a trial expected to end after it is not started */
		if (!probe_budget_fits(E, probe_budget_trial_s(E, order[k]))) {
			E->out_of_time = true;
			return 0;
		}
		memset(&t, 0, sizeof(t));
		t.arm = order[k];
		t.round = round;
		t.warmup = warmup;
		t.seq = ++E->seq;
		probe_report(E, PROBE_PHASE_TRIAL, a->name, round, E->look_msg[0] ? E->look_msg : NULL);
		probe_budget_trial_start(E);
		E->round_started++;
		rc = probe_trial_run(E, a, E->c, &t, e);
		if (rc < 0)
			return rc;
		probe_budget_trial_end(E, &t);
		if (probe_trials_push(E->r, &t) < 0)
			return err_set(e, -ENOMEM, "out of memory");
		if (t.status != PROBE_TRIAL_INTERRUPTED) {
			E->trial_s_sum += t.duration_s;
			E->trial_s_n++;
		}
		if ((rc = probe_store_trial(E->st, E->r->run_id, E->arm_ids, &t, e)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The run's rows as stored (what recommend will read), so the probe judges
 * its run the way recommend does; the in-memory trials made into the same
 * rows if the store cannot give them back.
 */
static void engine_rows(struct engine *E, struct store_probe_run *rows)
{
	struct st_err e1 = {0};

	if (store_probe_run_load(E->st, E->r->run_id, rows, &e1) == 0)
		return;
	store_probe_run_free(rows);
	if (probe_rows_from_result(E->c, E->r, rows) < 0)
		store_probe_run_free(rows);
}

/* r's summary, and its verdict from the stored rows. */
static void engine_summarize(struct engine *E)
{
	struct store_probe_run *rows = calloc(1, sizeof(*rows));

	probe_summary_stats(E->c, E->r);
	E->r->have_verdict = false;
	if (!rows)
		return;
	engine_rows(E, rows);
	probe_judge_rows(E->c, E->c->baseline, rows, E->r);
	store_probe_run_free(rows);
	free(rows);
}

/* The sequential design's decision at look k, from the stored rows. */
static enum verdict2_decision engine_look(struct engine *E, size_t k)
{
	struct store_probe_run *rows = calloc(1, sizeof(*rows));
	const struct verdict2_result *r2 = &E->r->judgement.r2;
	enum verdict2_decision d;
	double need = NAN;

	if (!rows)
		return VERDICT2_CONTINUE;
	engine_rows(E, rows);
	d = probe_judge_rows(E->c, E->c->baseline, rows, E->r);
	store_probe_run_free(rows);
	free(rows);
	for (size_t i = 0; i < r2->n_arms; i++)
		if ((int)i != r2->baseline && r2->arms[i].compared && isfinite(r2->arms[i].need_pct) &&
		    (!isfinite(need) || r2->arms[i].need_pct < need))
			need = r2->arms[i].need_pct;
	snprintf(E->look_msg, sizeof(E->look_msg), "look %zu/%zu at round %u: %s", k + 1,
		 E->c->plan.n_looks, E->c->plan.looks[k], verdict2_decision_name(d));
	if (d == VERDICT2_CONTINUE && isfinite(need))
		snprintf(E->look_msg + strlen(E->look_msg), sizeof(E->look_msg) - strlen(E->look_msg),
			 ", stopping needs an effect of %+.1f %%", need);
	return d;
}

/* The run's params again, with the plan and the accesses fixed after the warm-up. */
static void engine_store_plan(struct engine *E)
{
	cJSON *pj = probe_params_json(E->c, E->p);
	cJSON *m = cJSON_GetObjectItemCaseSensitive(pj, "method");
	char *params;
	struct st_err e1 = {0};

	if (m)
		cJSON_AddItemToObject(m, "budget", probe_budget_json(&E->r->budget));
	params = pj ? cJSON_PrintUnformatted(pj) : NULL;

	if (params)
		store_run_set_params(E->st, E->r->run_id, params, &e1);
	cJSON_free(params);
	cJSON_Delete(pj);
}

/*
 * After the warm-up: the accesses per trial that make the fastest arm's
 * measured phase last min_trial_s (built-in workloads), fixed before any
 * measured trial and stored with the run's plan; and each arm's warm-up
 * trial rescaled to those accesses, the budget's first estimate of how long
 * the arm's trials take (probe_budget_warmup).
 */
static void engine_calibrate(struct engine *E)
{
	struct probe_config *c = E->c;
	struct probe_result *r = E->r;
	double rate = 0, ratio = 1;
	uint64_t ops = c->workload ? workload_ops(c->workload, &c->wp) : 0;
	bool fixed_ops = c->wp.ops != 0;	/* --ops given: the user's, not calibrated */

	for (size_t k = 0; k < r->ntrials; k++) {
		const struct probe_trial *t = &r->trials[k];

		if (t->warmup && t->status == PROBE_TRIAL_OK && t->have[PM_OPS] &&
		    t->have[PM_ELAPSED_S] && t->v[PM_ELAPSED_S] > 0 &&
		    t->v[PM_OPS] / t->v[PM_ELAPSED_S] > rate)
			rate = t->v[PM_OPS] / t->v[PM_ELAPSED_S];
	}
	if (!probe_is_cmd(c) && !fixed_ops && c->min_trial_s > 0 && rate > 0 && ops > 0 &&
	    rate * c->min_trial_s > (double)ops) {
		c->wp.ops = (uint64_t)ceil(rate * c->min_trial_s);
		ratio = (double)c->wp.ops / (double)ops;
		r->calibrated_ops = c->wp.ops;
	}
	probe_budget_warmup(E, ratio);
}

/*
 * The budget after the warm-up (or round 1): the rounds that fit, the plan
 * cut to them and stored, what it can answer reported; < 0 when refused.
 */
static int engine_budget(struct engine *E, unsigned rounds_done, struct st_err *e)
{
	struct probe_config *c = E->c;
	int rc = probe_budget_plan(E, rounds_done, e);

	c->reps = c->plan.looks[c->plan.n_looks - 1];
	E->planned_trials = E->seq + (c->reps - rounds_done) * (unsigned)c->narms;
	engine_store_plan(E);
	if (rc == 0)
		probe_report_keep(E, rounds_done, E->r->budget.text);
	return rc;
}

/* Time ran out after `done` complete rounds and k looks: the final look, if any. */
static void engine_admin_look(struct engine *E, unsigned done, size_t k, bool partial)
{
	if (probe_budget_admin_stop(E, done, k, partial)) {
		E->c->reps = E->c->plan.looks[E->c->plan.n_looks - 1];
		engine_store_plan(E);
		engine_look(E, E->c->plan.n_looks - 1);
	} else {
		engine_store_plan(E);
	}
	probe_report_keep(E, done, E->r->budget.stop_text);
}

/* Host facts into r, the host and the run registered, the settings snapshotted. */
static int engine_begin(struct engine *E, struct st_err *e)
{
	struct host_facts *f = calloc(1, sizeof(*f));
	struct probe_result *r = E->r;
	char mid[128], *params = NULL;
	int rc;

	if (!f)
		return err_set(e, -ENOMEM, "out of memory");
	rc = facts_collect(E->h, f, e);
	if (rc == 0) {
		snprintf(r->kernel, sizeof(r->kernel), "%s", f->kernel);
		snprintf(r->hostname, sizeof(r->hostname), "%s", f->hostname);
		snprintf(r->cpu_model, sizeof(r->cpu_model), "%s", f->cpu_model);
		r->mem_total_bytes = f->mem_total_bytes;
		snprintf(r->zswap_compressor, sizeof(r->zswap_compressor), "%s", f->zswap_compressor);
		r->memcg_version = E->p->memcg_version;
		host_read_machine_id(E->h, mid, sizeof(mid));
		rc = store_register_host(E->st, mid, f->hostname, f->kernel, e);
	}
	if (rc == 0) {
		cJSON *pj = probe_params_json(E->c, E->p);

		params = pj ? cJSON_PrintUnformatted(pj) : NULL;
		cJSON_Delete(pj);
		rc = store_run_begin(E->st, "probe", params, &r->run_id, e);
		cJSON_free(params);
	}
	if (rc == 0)
		rc = store_snapshot_save(E->st, r->run_id, "before probe", &f->settings, NULL, e);
	facts_free(f);
	free(f);
	return rc;
}

/* Setup, bypass detection, the arms' rows, the warm-up and the measured rounds. */
static int engine_rounds(struct engine *E, struct st_err *e)
{
	struct probe_config *c = E->c;
	double t0 = probe_now_s();
	int rc = probe_engine_setup(E, e);

	/* the kernel the trials run on: after the scratch swap and zswap are set up */
	if (rc == 0)
		rc = kcheck_stamp_run(E->st, E->h, E->r->run_id, e);
	if (rc == 0 && E->p->detect_bypass && !probe_stopped(E))
		rc = probe_engine_bypass(E, e);
	E->setup_s = probe_now_s() - t0;
	E->plan0 = c->plan;
	E->r->budget.max_time_s = c->max_time_s;
	if (rc == 0)
		rc = probe_store_arms(E->st, E->r->run_id, c, E->arm_ids, e);
	if (rc == 0 && c->warmup)
		rc = run_round(E, 0, true, e);
	if (rc == 0 && !probe_stopped(E) && c->warmup) {
		engine_calibrate(E);
		rc = engine_budget(E, 0, e);
	}
	for (unsigned round = 1, k = 0; rc == 0 && !probe_stopped(E) && k < c->plan.n_looks; round++) {
		bool timed = E->r->budget.known;

		/* a round expected not to end within the budget is not started */
		if (timed && !probe_budget_fits(E, probe_budget_round_s(E))) {
			engine_admin_look(E, round - 1, k, false);
			break;
		}
		rc = run_round(E, round, false, e);
		if (rc < 0 || probe_stopped(E))
			break;
		if (E->out_of_time && timed) {
			/* partial only when some trial of the round ran */
			engine_admin_look(E, round - 1, k, E->round_started > 0);
			break;
		}
		if (E->out_of_time) {
			/* no warm-up, and round 1 did not fit: as refused as a warm-up would be */
			rc = engine_budget(E, 0, e);
			break;
		}
		E->r->rounds = round;
		if (!timed && (rc = engine_budget(E, round, e)) < 0)
			break;
		if (round == c->plan.looks[k] && engine_look(E, k++) != VERDICT2_CONTINUE) {
			/* stopped at a look before the last: the early stop the design allows */
			E->r->adaptive_stopped = k < c->plan.n_looks;
			break;
		}
	}
	return rc;
}

int probe_run(const struct host *h, struct store *st, struct probe_config *c,
	      const struct probe_plan *p, struct probe_result *r, struct st_err *e)
{
	struct engine E;
	struct st_err e_run = {0};
	double t0 = probe_now_s();
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&E, 0, sizeof(E));
	r->status = "failed";
	E.h = h;
	E.st = st;
	E.c = c;
	E.p = p;
	E.r = r;
	E.planned_trials = p->trials;
	E.start_s = t0;
	if (!h->live)
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "probe runs workloads on the running kernel: it cannot run under --sysroot (use --dry-run)");
	if ((rc = engine_begin(&E, e)) < 0)
		return rc;
	journal_begin(&E.j, st, h, r->run_id, e);
	E.journaled = true;

	rc = engine_rounds(&E, &e_run);
	probe_engine_teardown(&E, rc < 0 ? NULL : &e_run);
	engine_summarize(&E);
	r->elapsed_s = probe_now_s() - t0;
	if (stop_requested(c->stop)) {
		r->status = "interrupted";
		r->signal = stop_requested(c->stop);
	} else if (rc < 0 || r->restore_error[0]) {
		r->status = "failed";
		snprintf(r->error, sizeof(r->error), "%s", e_run.msg);
	} else {
		r->status = "ok";
	}
	{
		cJSON *doc = probe_result_to_json(c, p, r);
		char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
		struct st_err e2 = {0};

		store_run_end(st, r->run_id, r->status, text, &e2);
		cJSON_free(text);
		cJSON_Delete(doc);
	}
	if (!strcmp(r->status, "failed")) {
		/*
		 * the run's own error as it was set, exit status included (a refusal
		 * is 2) - unless the host is not fully restored: then never 2, whose
		 * "nothing changed" lets main drop a store it made, journal and all
		 */
		if (rc < 0 && r->restore_error[0])
			err_set(e, -EIO, "%s; the host is not fully restored: %s", e_run.msg, r->restore_error);
		else if (rc < 0 && e)
			*e = e_run;
		else
			err_set(e, rc < 0 ? rc : -EIO, "%s", e_run.msg);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}
