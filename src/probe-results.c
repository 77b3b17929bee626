/*
 * probe-results.c - what a probe found (see probe.h): the per-arm summary
 * (mean, sd and CI of every metric), the verdict built from the run's rows
 * by metric_verdict2_input() (the builder recommend uses), and the result
 * document (share/schema/probe.schema.json).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe-int.h"
#include "swaptune/fmt.h"

/* ---- summary and verdict --------------------------------------------- */

void probe_summary_stats(const struct probe_config *c, struct probe_result *r)
{
	double *x = malloc((r->ntrials + 1) * sizeof(double));

	memset(r->summary, 0, sizeof(r->summary));
	if (!x)
		return;
	for (int i = 0; i < c->narms; i++) {
		struct probe_arm_summary *s = &r->summary[i];
		size_t n = 0;

		for (size_t k = 0; k < r->ntrials; k++) {
			const struct probe_trial *t = &r->trials[k];

			if (t->arm != i || t->warmup || t->status == PROBE_TRIAL_INTERRUPTED)
				continue;
			s->trials++;
			if (t->status == PROBE_TRIAL_OK) {
				s->completed++;
				x[n++] = t->primary;
			} else if (t->status == PROBE_TRIAL_OOM) {
				s->oom++;
			} else {
				s->failed++;
			}
		}
		stats_summarize(x, n, 0.95, &s->primary);
		for (int m = 0; m < PM_COUNT; m++) {
			n = 0;
			for (size_t k = 0; k < r->ntrials; k++) {
				const struct probe_trial *t = &r->trials[k];

				if (t->arm == i && !t->warmup && t->status == PROBE_TRIAL_OK &&
				    t->have[m] && isfinite(t->v[m]))
					x[n++] = t->v[m];
			}
			s->have[m] = n > 0;
			stats_summarize(x, n, 0.95, &s->m[m]);
		}
	}
	free(x);
}

int probe_verdict_input(const struct probe_config *c, int baseline,
			const struct store_probe_run *rows, struct verdict2_input *in)
{
	int rc;

	if ((rc = metric_verdict2_input(rows, in)) < 0)
		return rc;
	metric_verdict_primary(probe_primary_key(c), probe_primary_higher_better(c), in);
	if (baseline >= 0 && (size_t)baseline < in->n_arms)
		in->arms[baseline].is_baseline = true;
	return 0;
}

enum verdict2_decision probe_judge_rows(const struct probe_config *c, int baseline,
					const struct store_probe_run *rows, struct probe_result *r)
{
	struct verdict2_input *in = calloc(1, sizeof(*in));
	enum verdict2_decision d = VERDICT2_CONTINUE;

	r->have_verdict = false;
	if (in && c->narms >= 2 && probe_verdict_input(c, baseline, rows, in) == 0) {
		const char *base = baseline >= 0 && baseline < c->narms ? c->arms[baseline].name : NULL;

		if (judge_run(&(struct judge_case){ in, &c->plan }, NULL, base, &r->judgement, &r->verdict, NULL) == 0) {
			r->have_verdict = true;
			d = r->judgement.judged ? r->judgement.r2.decision : VERDICT2_CONTINUE;
		}
	}
	free(in);
	return d;
}

void probe_summarize(const struct probe_config *c, int baseline, struct probe_result *r)
{
	struct store_probe_run *rows = calloc(1, sizeof(*rows));

	probe_summary_stats(c, r);
	r->have_verdict = false;
	if (rows && probe_rows_from_result(c, r, rows) == 0)
		probe_judge_rows(c, baseline, rows, r);
	if (rows)
		store_probe_run_free(rows);
	free(rows);
}

/* ---- the result document -------------------------------------------- */

static cJSON *stat_json(const struct stats_summary *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "n", (double)s->n);
	fmt_json_num(o, "mean", s->mean);
	fmt_json_num(o, "stddev", s->stddev);
	fmt_json_num(o, "ci95_low", s->ci_low);
	fmt_json_num(o, "ci95_high", s->ci_high);
	return o;
}

bool probe_primary_higher_better(const struct probe_config *c)
{
	switch (c->primary) {
	case PROBE_PRIMARY_THROUGHPUT:
		return true;
	case PROBE_PRIMARY_WALL:
		return false;
	case PROBE_PRIMARY_CPU:
		return !probe_is_cmd(c);	/* ops per CPU second; a command's CPU seconds */
	case PROBE_PRIMARY_METRIC:
		break;
	}
	return c->metric_higher_better;
}

const char *probe_primary_key(const struct probe_config *c)
{
	if (c->primary == PROBE_PRIMARY_CPU)
		return metric_defs[probe_is_cmd(c) ? PM_CMD_CPU_S : PM_OPS_PER_CPU_S].key;
	return metric_defs[c->primary == PROBE_PRIMARY_WALL ? PM_WALL_S :
				 c->primary == PROBE_PRIMARY_METRIC ? PM_CMD_METRIC :
				 PM_THROUGHPUT].key;
}

static cJSON *primary_json(const struct probe_config *c)
{
	const struct metric_def *d = &metric_defs[metric_find(probe_primary_key(c))];
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "key", d->key);
	cJSON_AddStringToObject(o, "name", d->row->label);
	cJSON_AddStringToObject(o, "unit", d->row->unit);
	cJSON_AddBoolToObject(o, "higher_is_better", probe_primary_higher_better(c));
	return o;
}

cJSON *probe_params_json(const struct probe_config *c, const struct probe_plan *p)
{
	cJSON *root = cJSON_CreateObject(), *w, *o, *a;

	w = cJSON_AddObjectToObject(root, "workload");
	cJSON_AddStringToObject(w, "name", c->workload ? c->workload->name : "");
	if (probe_is_cmd(c)) {
		a = cJSON_AddArrayToObject(w, "argv");
		for (char *const *v = c->wp.argv; v && *v; v++)
			cJSON_AddItemToArray(a, cJSON_CreateString(*v));
		if (c->wp.metric_regex[0])
			cJSON_AddStringToObject(w, "metric_regex", c->wp.metric_regex);
		if (c->wp.metric_spec[0])
			cJSON_AddStringToObject(w, "metric", c->wp.metric_spec);
		if (c->wp.run_as_uid != (uid_t)-1)
			cJSON_AddNumberToObject(w, "run_as_uid", (double)c->wp.run_as_uid);
	} else {
		cJSON_AddNumberToObject(w, "working_set_bytes", (double)c->wp.working_set_bytes);
		cJSON_AddNumberToObject(w, "ops", c->workload ? (double)workload_ops(c->workload, &c->wp) : 0);
		fmt_json_u53(w, "seed", c->wp.seed);
		/* the workload's own parameters, defaults applied (workload.h) */
		for (const struct workload_param *q = c->workload ? c->workload->params : NULL; q && q->key; q++)
			cJSON_AddNumberToObject(w, q->key, workload_param_value(q, &c->wp));
	}
	o = cJSON_AddObjectToObject(root, "memcg");
	cJSON_AddNumberToObject(o, "version", p->memcg_version);
	cJSON_AddNumberToObject(o, "limit_bytes", (double)c->memcg_limit_bytes);
	cJSON_AddStringToObject(o, "limit_mode", p->memcg_version == 1 ? "limit_in_bytes" :
				c->limit_mode == MEMCG_LIMIT_HIGH ? "high" : "max");
	o = cJSON_AddObjectToObject(root, "method");
	cJSON_AddNumberToObject(o, "reps", c->reps);
	cJSON_AddBoolToObject(o, "warmup", c->warmup);
	cJSON_AddBoolToObject(o, "adaptive", c->adaptive);
	if (c->adaptive)
		cJSON_AddNumberToObject(o, "max_reps", c->max_reps);
	fmt_json_u53(o, "seed", c->seed);
	cJSON_AddNumberToObject(o, "duration_cap_s", c->duration_s);
	cJSON_AddNumberToObject(o, "min_trial_s", c->min_trial_s);
	cJSON_AddNumberToObject(o, "max_time_s", c->max_time_s);
	cJSON_AddBoolToObject(o, "drop_host_caches", c->drop_host_caches);
	if (probe_busy_recorded(c))
		cJSON_AddItemToObject(o, "busy_host", probe_busy_json(c));
	a = cJSON_AddArrayToObject(root, "arm_names");
	for (int i = 0; i < c->narms; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->arms[i].name));
	cJSON_AddStringToObject(root, "baseline", c->arms[p->baseline].name);
	{
		struct judge_plan plan = c->plan;

		snprintf(plan.baseline, sizeof(plan.baseline), "%s", c->arms[p->baseline].name);
		cJSON_AddItemToObject(root, "plan", judge_plan_json(&plan));
	}
	return root;
}

static cJSON *trial_json(const struct probe_config *c, const struct probe_trial *t)
{
	cJSON *o = cJSON_CreateObject(), *m;

	cJSON_AddStringToObject(o, "arm", t->arm >= 0 ? c->arms[t->arm].name : "detect");
	cJSON_AddNumberToObject(o, "round", t->round);
	cJSON_AddNumberToObject(o, "seq", t->seq);
	cJSON_AddBoolToObject(o, "warmup", t->warmup);
	cJSON_AddStringToObject(o, "status", probe_trial_status_name(t->status));
	fmt_json_num(o, "primary", t->primary);
	fmt_json_num(o, "duration_s", t->duration_s);
	if (t->note[0])
		cJSON_AddStringToObject(o, "note", t->note);
	else
		cJSON_AddNullToObject(o, "note");
	m = cJSON_AddObjectToObject(o, "metrics");
	for (int k = 0; k < PM_COUNT; k++)
		if (t->have[k])
			fmt_json_num(m, metric_defs[k].key, t->v[k]);
	return o;
}

static const char *bypass_name(const struct probe_result *r)
{
	switch (r->bypass) {
	case PROBE_BYPASS_NATIVE: return "native";
	case PROBE_BYPASS_EMULATED:
		return r->bypass_mode == PROBE_BYPASS_ZRAM ? "emulated-zram" : "emulated-pc0";
	default: return NULL;
	}
}

/* Arm i: its settings, its summary and its comparison with the baseline. */
static cJSON *arm_json(const struct probe_config *c, const struct probe_result *r, int i)
{
	const struct probe_arm *arm = &c->arms[i];
	const struct probe_arm_summary *s = &r->summary[i];
	cJSON *ao = cJSON_CreateObject(), *so, *mo;

	cJSON_AddStringToObject(ao, "name", arm->name);
	cJSON_AddBoolToObject(ao, "baseline", i == c->baseline);
	so = cJSON_AddObjectToObject(ao, "settings");
	for (int k = 0; k < arm->nset; k++)
		cJSON_AddStringToObject(so, arm->set[k].name, arm->set[k].value);
	if (arm->zram)
		cJSON_AddStringToObject(so, "swap", "zram");
	cJSON_AddBoolToObject(ao, "emulated", arm->emulated);
	if (arm->note[0])
		cJSON_AddStringToObject(ao, "note", arm->note);
	else
		cJSON_AddNullToObject(ao, "note");
	cJSON_AddNumberToObject(ao, "trials", s->trials);
	cJSON_AddNumberToObject(ao, "completed", s->completed);
	cJSON_AddNumberToObject(ao, "oom_kills", s->oom);
	cJSON_AddNumberToObject(ao, "failed", s->failed);
	cJSON_AddItemToObject(ao, "primary", stat_json(&s->primary));
	mo = cJSON_AddObjectToObject(ao, "metrics");
	for (int m = 0; m < PM_COUNT; m++)
		if (s->have[m])
			cJSON_AddItemToObject(mo, metric_defs[m].key, stat_json(&s->m[m]));
	if (r->have_verdict) {
		const struct verdict_arm_result *vr = &r->verdict.arms[i];
		cJSON *vo = cJSON_AddObjectToObject(ao, "comparison");

		cJSON_AddStringToObject(vo, "status", verdict_arm_status_name(vr->status));
		fmt_json_num(vo, "effect_pct", vr->compared ? vr->effect_pct : NAN);
		fmt_json_num(vo, "ci_low_pct", vr->compared ? vr->ci_low_pct : NAN);
		fmt_json_num(vo, "ci_high_pct", vr->compared ? vr->ci_high_pct : NAN);
		fmt_json_num(vo, "p_one_sided", vr->compared ? vr->p_one_sided : NAN);
		cJSON_AddBoolToObject(vo, "shown", vr->shown);
	}
	return ao;
}

cJSON *probe_result_to_json(const struct probe_config *c, const struct probe_plan *p,
			    const struct probe_result *r)
{
	cJSON *root = cJSON_CreateObject(), *o, *a, *params;

	cJSON_AddStringToObject(root, "schema", PROBE_SCHEMA);
	cJSON_AddNumberToObject(root, "run_id", (double)r->run_id);
	cJSON_AddStringToObject(root, "status", r->status ? r->status : "failed");
	if (r->signal)
		cJSON_AddNumberToObject(root, "signal", r->signal);
	if (r->error[0])
		cJSON_AddStringToObject(root, "error", r->error);
	fmt_json_num(root, "elapsed_s", r->elapsed_s);
	/* stored with the run: the report names the version that measured it */
	cJSON_AddStringToObject(root, "swaptune_version", SWAPTUNE_VERSION);

	o = cJSON_AddObjectToObject(root, "host");
	cJSON_AddStringToObject(o, "kernel", r->kernel);
	cJSON_AddStringToObject(o, "hostname", r->hostname);
	if (r->cpu_model[0])
		cJSON_AddStringToObject(o, "cpu_model", r->cpu_model);
	else
		cJSON_AddNullToObject(o, "cpu_model");
	if (r->mem_total_bytes)
		cJSON_AddNumberToObject(o, "mem_total_bytes", (double)r->mem_total_bytes);
	cJSON_AddStringToObject(o, "readahead", r->readahead[0] ? r->readahead : "unknown");
	cJSON_AddStringToObject(o, "zswap_compressor", r->zswap_compressor);
	cJSON_AddBoolToObject(o, "zswap_enabled_by_probe", r->zswap_enabled_by_probe);
	cJSON_AddBoolToObject(o, "debugfs_mounted_by_probe", r->debugfs_mounted);
	cJSON_AddStringToObject(o, "cpu_counters", r->cpu_counters[0] ? r->cpu_counters : "not used");
	a = cJSON_AddObjectToObject(o, "swap");
	cJSON_AddStringToObject(a, "kind", r->swap_kind[0] ? r->swap_kind : "none");
	cJSON_AddStringToObject(a, "device", r->swap_device);
	if (r->swap_file[0]) {
		cJSON_AddStringToObject(a, "backing_file", r->swap_file);
		cJSON_AddNumberToObject(a, "size_bytes", (double)r->swap_bytes);
		cJSON_AddBoolToObject(a, "direct_io", r->swap_direct_io);
	}

	params = probe_params_json(c, p);
	cJSON_AddItemToObject(root, "workload", cJSON_DetachItemFromObject(params, "workload"));
	cJSON_AddItemToObject(root, "memcg", cJSON_DetachItemFromObject(params, "memcg"));
	o = cJSON_DetachItemFromObject(params, "method");
	cJSON_AddNumberToObject(o, "rounds", r->rounds);
	cJSON_AddBoolToObject(o, "adaptive_stopped", r->adaptive_stopped);
	cJSON_AddItemToObject(o, "budget", probe_budget_json(&r->budget));
	cJSON_AddItemToObject(root, "method", o);
	cJSON_Delete(params);
	cJSON_AddItemToObject(root, "primary_metric", primary_json(c));

	o = cJSON_AddObjectToObject(root, "bypass");
	if (bypass_name(r))
		cJSON_AddStringToObject(o, "mode", bypass_name(r));
	else
		cJSON_AddNullToObject(o, "mode");
	cJSON_AddBoolToObject(o, "native", r->bypass == PROBE_BYPASS_NATIVE);
	if (r->bypass_evidence[0])
		cJSON_AddStringToObject(o, "evidence", r->bypass_evidence);
	else
		cJSON_AddNullToObject(o, "evidence");

	a = cJSON_AddArrayToObject(root, "arms");
	for (int i = 0; i < c->narms; i++)
		cJSON_AddItemToArray(a, arm_json(c, r, i));

	o = cJSON_AddObjectToObject(root, "verdict");
	if (r->have_verdict) {
		cJSON *rs;

		cJSON_AddStringToObject(o, "kind", verdict_kind_name(r->verdict.kind));
		if (r->verdict.chosen >= 0 && r->verdict.chosen < c->narms)
			cJSON_AddStringToObject(o, "arm", c->arms[r->verdict.chosen].name);
		else
			cJSON_AddNullToObject(o, "arm");
		cJSON_AddStringToObject(o, "confidence", verdict_confidence_name(r->verdict.confidence));
		cJSON_AddBoolToObject(o, "decisive", r->verdict.decisive);
		cJSON_AddItemToObject(o, "judgement", judge_json(&r->judgement));
		rs = cJSON_AddArrayToObject(o, "reasons");
		for (size_t k = 0; k < r->verdict.n_reasons; k++)
			cJSON_AddItemToArray(rs, cJSON_CreateString(r->verdict.reasons[k]));
	} else {
		cJSON_AddNullToObject(o, "kind");
	}

	a = cJSON_AddArrayToObject(root, "trials");
	for (size_t k = 0; k < r->ntrials; k++)
		cJSON_AddItemToArray(a, trial_json(c, &r->trials[k]));

	a = cJSON_AddArrayToObject(root, "host_changes");
	{
		struct probe_change *ch = calloc(PROBE_CHANGES_MAX, sizeof(*ch));
		int n = ch ? probe_plan_changes(c, p, ch, PROBE_CHANGES_MAX) : 0;

		for (int i = 0; i < n; i++) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddStringToObject(x, "kind", ch[i].kind);
			cJSON_AddStringToObject(x, "text", ch[i].text);
			cJSON_AddItemToArray(a, x);
		}
		free(ch);
	}

	o = cJSON_AddObjectToObject(root, "restore");
	cJSON_AddNumberToObject(o, "changes_undone", r->restored);
	cJSON_AddBoolToObject(o, "complete", !r->restore_error[0]);
	if (r->restore_error[0])
		cJSON_AddStringToObject(o, "error", r->restore_error);
	return root;
}
