/*
 * sbrun-print.c - a switchback shown: its plan for people (as --dry-run,
 * the TUI's form and the question before a run print it) and as JSON, and
 * a run's result document (the run, its windows, its verdict).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

#include "swaptune/fmt.h"
#include "swaptune/sbrun.h"

const char *sbrun_secs(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
	return buf;
}

static void print_arms(FILE *o, const struct sbrun_config *c)
{
	char desc[256];

	fprintf(o, "Arms\n");
	for (int i = 0; i < c->narms; i++) {
		probe_arm_describe(&c->arms[i], desc, sizeof(desc));
		fprintf(o, "  ");
		fmt_fputs_pad(o, c->arms[i].name, 12, false);
		fprintf(o, " %s%s\n", desc, i == 0 ? "  (baseline)" : "");
	}
}

static void print_schedule(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p)
{
	const struct sb_plan *pl = &p->design.plan;
	char t1[32], t2[32], t3[32];

	fprintf(o, "Schedule          %u blocks x %u windows of %s, washout %s after every window start"
		" (%.0f %% counted); %s in all\n", pl->n_blocks, pl->n_arms, sbrun_secs(pl->window_s, t1, sizeof(t1)),
		sbrun_secs(pl->washout_s, t2, sizeof(t2)), 100 * p->budget.counted_frac,
		sbrun_secs(p->budget.duration_s, t3, sizeof(t3)));
	for (unsigned b = 0; b < pl->n_blocks; b++) {
		fprintf(o, "  block %2u:", b + 1);
		for (unsigned q = 0; q < pl->n_arms; q++) {
			fprintf(o, " ");
			fmt_fputs(o, c->arms[p->design.order[b][q]].name);
		}
		fprintf(o, "\n");
	}
}

static void print_budget(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p)
{
	const struct sb_plan *pl = &p->design.plan;

	fprintf(o, "Looks             at block");
	for (unsigned k = 0; k < pl->n_looks; k++)
		fprintf(o, "%s%u", k ? ", " : "s ", pl->looks[k]);
	fprintf(o, "; exact sequential randomisation test, false-change rate <= %g %%, minimum effect %g%s\n",
		100 * pl->alpha, c->min_effect, sbm_kind(&c->metric) == SB_RATE ? " %" : " points");
	fprintf(o, "Budget            smallest p at each look:");
	for (unsigned k = 0; k < pl->n_looks; k++) {
		char nb[FMT_NUM_LEN];

		fprintf(o, " %s", fmt_num_sig(p->budget.p_floor[k], 3, nb, sizeof(nb)));
	}
	if (p->design.first_decidable_look < pl->n_looks)
		fprintf(o, "; a change can be decided from look %u on\n", p->design.first_decidable_look + 1);
	else
		fprintf(o, "; too few blocks: no look can decide a change\n");
	if (isfinite(p->effect80[0]))
		fprintf(o, "Smallest effect   found with 80 %% power: %.1f %% if the per-block contrast varies by 5 %%,"
			" %.1f %% at 10 %%, %.1f %% at 15 %% (PostgreSQL swapping to zswap here: 13.6 %%)\n",
			p->effect80[0], p->effect80[1], p->effect80[2]);
	else
		fprintf(o, "Smallest effect   in metric units: depends on the metric's noise, not known before the run\n");
}

void sbrun_plan_print(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p)
{
	char desc[1024];

	print_arms(o, c);
	fprintf(o, "Metric            ");
	fmt_fputs(o, sbm_describe(&c->metric, desc, sizeof(desc)));
	fprintf(o, ", %s is better\n", c->metric.higher_better ? "higher" : "lower");
	if (c->cgroup[0]) {
		fprintf(o, "Workload cgroup   ");
		fmt_fputs(o, c->cgroup);
		fprintf(o, " (v%d): the run ends if it vanishes, empties or OOM-kills a process; kernel figures of the cgroup where it gives them\n",
			p->cgroup_version);
	}
	print_schedule(o, c, p);
	print_budget(o, c, p);
	fprintf(o, "Guardrails        ");
	if (c->psi_full_max > 0)
		fprintf(o, "a candidate window whose PSI memory full of the %s over %.0f s passes %g %% is switched back at once and fails; ",
			p->psi_scope, c->guard_span_s, c->psi_full_max);
	if (c->psi_some_max > 0)
		fprintf(o, "%s PSI memory some passes %g %%; ", c->psi_full_max > 0 ? "the same when" :
			"a candidate window is switched back at once and fails when", c->psi_some_max);
	if (c->max_failures)
		fprintf(o, "%u failed windows end the run; ", c->max_failures);
	else
		fprintf(o, "failed windows never end the run (--max-failures 0); ");
	fprintf(o, "a change also needs PSI memory some and full shown not to rise by 10 and 5 points\n");
	fprintf(o, "Host changes      written at each switch, journaled first, put back at the end:\n");
	for (int t = 0; t < p->ntouch; t++)
		fprintf(o, "  %-28s now %s\n", p->touch[t].name, p->touch[t].current);
	fprintf(o, "Carryover check   %s\n", p->slices_of_metric && p->n_slices ?
		"the metric per slice of every window (early against late counted parts)" :
		"none: a command gives one number per window");
	fprintf(o, "Seed              %llu\n", (unsigned long long)p->design.plan.seed);
}

cJSON *sbrun_plan_json(const struct sbrun_config *c, const struct sbrun_plan *p)
{
	cJSON *doc = cJSON_CreateObject(), *pl = sbrun_params_json(c, p), *b, *a;

	cJSON_AddStringToObject(doc, "schema", SBRUN_SCHEMA);
	cJSON_AddStringToObject(doc, "status", "planned");
	b = cJSON_AddObjectToObject(pl, "budget");
	cJSON_AddNumberToObject(b, "duration_s", p->budget.duration_s);
	cJSON_AddNumberToObject(b, "counted_s", p->budget.counted_s);
	a = cJSON_AddArrayToObject(b, "p_floor");
	for (unsigned k = 0; k < p->design.plan.n_looks; k++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(p->budget.p_floor[k]));
	cJSON_AddNumberToObject(b, "first_decidable_look", p->design.first_decidable_look + 1);
	a = cJSON_AddArrayToObject(b, "effect80_pct");
	for (int i = 0; i < 3; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "sd_contrast_pct", 5.0 * (i + 1));
		fmt_json_num(e, "effect_pct", p->effect80[i]);
		cJSON_AddItemToArray(a, e);
	}
	cJSON_AddItemToObject(doc, "plan", pl);
	return doc;
}

static cJSON *window_json(const struct sbrun_stored *s, const struct sbrun_window *w)
{
	cJSON *o = cJSON_CreateObject(), *k = cJSON_AddObjectToObject(o, "kernel");

	cJSON_AddNumberToObject(o, "index", w->index);
	cJSON_AddNumberToObject(o, "block", w->block + 1);
	cJSON_AddStringToObject(o, "arm", s->arms[w->arm].name);
	cJSON_AddStringToObject(o, "started_at", w->started_at);
	fmt_json_num(o, "start_s", w->start_s);
	fmt_json_num(o, "switch_s", w->switch_s);
	fmt_json_num(o, "count_start_s", w->count_start_s);
	fmt_json_num(o, "end_s", w->end_s);
	cJSON_AddStringToObject(o, "outcome", w->outcome == SB_WIN_OK ? "ok" : "failed");
	fmt_json_num(o, "value", w->value);
	if (w->failure[0])
		cJSON_AddStringToObject(o, "failure", w->failure);
	else
		cJSON_AddNullToObject(o, "failure");
	fmt_json_num(o, "failed_at_s", w->failed_at_s);
	for (int f = 0; f < SBK_COUNT; f++)
		fmt_json_num(k, sbm_kernel_defs[f].key, w->kern[f]);
	return o;
}

cJSON *sbrun_result_json(const struct sbrun_result *r, const struct sbrun_stored *s)
{
	cJSON *doc = cJSON_CreateObject(), *w;

	cJSON_AddStringToObject(doc, "schema", SBRUN_SCHEMA);
	cJSON_AddNumberToObject(doc, "run_id", (double)s->run_id);
	cJSON_AddStringToObject(doc, "status", r ? r->status : s->status);
	cJSON_AddStringToObject(doc, "stop_reason", r ? r->stop_reason : s->stop_reason);
	if (r) {
		cJSON *rs = cJSON_AddObjectToObject(doc, "restore");

		cJSON_AddNumberToObject(rs, "restored", r->restored);
		cJSON_AddBoolToObject(rs, "complete", !r->restore_error[0]);
		if (r->restore_error[0])
			cJSON_AddStringToObject(rs, "error", r->restore_error);
		cJSON_AddNumberToObject(doc, "elapsed_s", r->elapsed_s);
	}
	cJSON_AddItemToObject(doc, "verdict", sbrun_verdict_json(s));
	w = cJSON_AddArrayToObject(doc, "windows");
	for (unsigned i = 0; i < s->n_windows; i++)
		cJSON_AddItemToArray(w, window_json(s, &s->w[i]));
	return doc;
}

