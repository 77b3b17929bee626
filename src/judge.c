/*
 * judge.c - the analysis plan of a probe run and the one way every command
 * judges a run with it (see judge.h): the advisor's sequential verdict at
 * the last planned look reached, translated for the renderers, and the one
 * verdict line of every run, probe or switchback.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fmt.h"
#include "swaptune/judge.h"
#include "swaptune/workload.h"

void judge_plan_default(struct judge_plan *p)
{
	static const unsigned looks[] = VERDICT2_DEFAULT_LOOKS;

	memset(p, 0, sizeof(*p));
	p->recorded = true;
	p->sequential = true;
	p->n_looks = VERDICT2_DEFAULT_N_LOOKS;
	memcpy(p->looks, looks, sizeof(looks));
	p->alpha = 0.025;
	p->min_effect_pct = 2.0;
	p->order_random = true;
}

void judge_plan_fixed(struct judge_plan *p, unsigned n)
{
	judge_plan_default(p);
	p->sequential = false;
	p->n_looks = 1;
	p->looks[0] = n;
}

void judge_plan_truncate(struct judge_plan *p, unsigned max_rounds)
{
	size_t k = 0;

	while (k < p->n_looks && p->looks[k] < max_rounds)
		k++;
	if (k == p->n_looks || (k + 1 == p->n_looks && p->looks[k] == max_rounds))
		return;
	if (p->n_planned == 0) {
		p->n_planned = p->n_looks;
		memcpy(p->planned, p->looks, sizeof(p->planned));
	}
	p->looks[k] = max_rounds;
	p->n_looks = k + 1;
}

/* A list of increasing look rounds within 2..VERDICT2_ROUNDS_MAX; 0 if malformed. */
static size_t parse_looks(const cJSON *x, unsigned *out)
{
	size_t n = 0;
	cJSON *it;

	if (!cJSON_IsArray(x))
		return 0;
	cJSON_ArrayForEach(it, x) {
		if (!cJSON_IsNumber(it) || n >= VERDICT2_LOOKS_MAX || it->valuedouble < 2 ||
		    it->valuedouble > VERDICT2_ROUNDS_MAX || it->valuedouble != floor(it->valuedouble) ||
		    (n && it->valuedouble <= out[n - 1]))
			return 0;
		out[n++] = (unsigned)it->valuedouble;
	}
	return n;
}

/* planned[] is a truncation of looks[]: every look but the last is a planned look below it. */
static bool planned_consistent(const struct judge_plan *p)
{
	unsigned last = p->looks[p->n_looks - 1];

	if (p->n_planned < 1 || last >= p->planned[p->n_planned - 1] || p->n_looks > p->n_planned)
		return false;
	for (size_t i = 0; i + 1 < p->n_looks; i++)
		if (p->looks[i] != p->planned[i])
			return false;
	return p->n_looks == p->n_planned || p->planned[p->n_looks - 1] >= last;
}

void judge_plan_from_params(const cJSON *params, struct judge_plan *p)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(params, "plan"), *x;
	size_t n;

	judge_plan_default(p);
	p->recorded = false;
	x = cJSON_GetObjectItemCaseSensitive(o, "order");
	p->order_random = cJSON_IsString(x) && !strcmp(x->valuestring, "random");
	n = parse_looks(cJSON_GetObjectItemCaseSensitive(o, "looks"), p->looks);
	if (n > 0) {
		p->recorded = true;
		p->n_looks = n;
		p->n_planned = parse_looks(cJSON_GetObjectItemCaseSensitive(o, "planned_looks"),
					   p->planned);
		if (p->n_planned && !planned_consistent(p))
			p->n_planned = 0;	/* judged as a design of its looks, as before v3 */
		x = cJSON_GetObjectItemCaseSensitive(o, "sequential");
		p->sequential = cJSON_IsTrue(x);
		x = cJSON_GetObjectItemCaseSensitive(o, "alpha");
		if (cJSON_IsNumber(x) && x->valuedouble > 0 && x->valuedouble < 0.5)
			p->alpha = x->valuedouble;
		x = cJSON_GetObjectItemCaseSensitive(o, "min_effect_pct");
		if (cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble < 1000)
			p->min_effect_pct = x->valuedouble;
		x = cJSON_GetObjectItemCaseSensitive(o, "baseline");
		if (cJSON_IsString(x))
			snprintf(p->baseline, sizeof(p->baseline), "%s", x->valuestring);
	}
}

cJSON *judge_plan_json(const struct judge_plan *p)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "looks");

	cJSON_AddBoolToObject(o, "sequential", p->sequential);
	for (size_t i = 0; i < p->n_looks; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(p->looks[i]));
	if (p->n_planned) {
		a = cJSON_AddArrayToObject(o, "planned_looks");
		for (size_t i = 0; i < p->n_planned; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(p->planned[i]));
	}
	cJSON_AddNumberToObject(o, "alpha", p->alpha);
	cJSON_AddNumberToObject(o, "min_effect_pct", p->min_effect_pct);
	cJSON_AddStringToObject(o, "baseline", p->baseline);
	if (p->order_random)
		cJSON_AddStringToObject(o, "order", "random");
	return o;
}

static void reason(struct verdict_result *v, const char *text)
{
	if (v->n_reasons < VERDICT_REASONS_MAX)
		snprintf(v->reasons[v->n_reasons++], VERDICT_REASON_LEN, "%s", text);
	else
		v->n_reasons_dropped++;
}

static enum verdict_arm_status arm_status(const struct verdict2_result *r2, int i, double min_effect)
{
	const struct verdict2_arm_result *a = &r2->arms[i];

	if (i == r2->baseline)
		return VERDICT_ARM_BASELINE;
	if (i == r2->chosen && r2->decision == VERDICT2_STOP_CHANGE)
		return r2->path == VERDICT2_PATH_FAILURE ? VERDICT_ARM_COMPLETED : VERDICT_ARM_BETTER;
	if (a->oom_vetoed || (a->n_ok == 0 && a->n_oom + a->n_timeout + a->n_failed > 0))
		return VERDICT_ARM_OOM_FAILED;
	if (a->path == VERDICT2_PATH_FAILURE)
		return VERDICT_ARM_COMPLETED;
	if (!a->compared)
		return VERDICT_ARM_TOO_FEW;
	if (a->crosses && a->guard_harm)
		return VERDICT_ARM_VETOED;
	if (a->crosses && a->effect_pct < min_effect)
		return VERDICT_ARM_BELOW_MIN;
	if (a->crosses)
		return VERDICT_ARM_BETTER;
	if (a->ci_high_pct < 0)
		return VERDICT_ARM_WORSE;
	if (a->futile)
		return VERDICT_ARM_NO_GAIN;
	return VERDICT_ARM_NOISY;
}

/* Mean and sample sd of the completed trials of arm i in rounds [0, n). */
static void arm_moments(const struct verdict2_arm *a, size_t n, double *mean, double *sd, size_t *k)
{
	double x[VERDICT2_ROUNDS_MAX];

	*k = 0;
	for (size_t r = 0; r < n; r++)
		if (a->outcome[r] == VERDICT_OUT_OK)
			x[(*k)++] = a->primary[r];
	*mean = stats_mean(x, *k);
	*sd = stats_stddev(x, *k);
}

/* The sequential result as shown (struct verdict_result). */
static void translate(const struct judgement *j, const struct verdict2_input *in,
		      struct verdict_result *v)
{
	const struct verdict2_result *r2 = &j->r2;

	memset(v, 0, sizeof(*v));
	v->baseline = r2->baseline;
	v->n_arms = in->n_arms;
	switch (r2->decision) {
	case VERDICT2_STOP_CHANGE:
		v->kind = VERDICT_CHANGE;
		v->chosen = r2->chosen;
		v->confidence = VERDICT_CONF_HIGH;
		break;
	case VERDICT2_STOP_KEEP:
		v->kind = VERDICT_KEEP;
		v->chosen = r2->baseline;
		v->confidence = VERDICT_CONF_HIGH;
		break;
	default:
		v->kind = VERDICT_INCONCLUSIVE;
		v->chosen = -1;
		v->confidence = VERDICT_CONF_LOW;
	}
	v->decisive = r2->decision != VERDICT2_CONTINUE;
	for (size_t i = 0; i < in->n_arms; i++) {
		const struct verdict2_arm_result *a = &r2->arms[i];
		struct verdict_arm_result *o = &v->arms[i];

		o->status = arm_status(r2, (int)i, j->design.min_effect_pct);
		arm_moments(&in->arms[i], j->plan.looks[j->look], &o->mean, &o->stddev, &o->n);
		o->n_oom_killed = (unsigned)a->n_oom;
		o->compared = a->compared;
		o->effect_pct = a->compared ? a->effect_pct : NAN;
		o->ci_low_pct = a->compared ? a->ci_low_pct : NAN;
		o->ci_high_pct = a->compared ? a->ci_high_pct : NAN;
		o->p_one_sided = a->compared ? a->p_one : NAN;
		o->shown = a->crosses;
		o->decisive = a->crosses || a->futile;
		for (int c = 0; c < VERDICT_SEC_COUNT; c++) {
			const struct verdict2_guard *g = &a->guard[c];

			o->sec[c].compared = g->status != VERDICT2_GUARD_UNUSED &&
					     g->status != VERDICT2_GUARD_UNAVAILABLE;
			o->sec[c].change_pct = o->sec[c].compared ? g->rise_pct : NAN;
			o->sec[c].significant = g->status == VERDICT2_GUARD_HARM;
			o->sec[c].vetoes = g->status == VERDICT2_GUARD_HARM && a->crosses;
		}
	}
	for (size_t k = 0; k < r2->n_reasons; k++)
		reason(v, r2->reasons[k]);
	if (j->exploratory) {
		char t[VERDICT_REASON_LEN];

		snprintf(t, sizeof(t), "exploratory: %s; the error rates above hold only for the plan stored with the run",
			 j->exploratory_why);
		reason(v, t);
	}
}

static void not_judged(struct judgement *j, const struct verdict2_input *in,
		       struct verdict_result *v, const char *why)
{
	memset(v, 0, sizeof(*v));
	v->kind = VERDICT_INCONCLUSIVE;
	v->chosen = -1;
	v->n_arms = in->n_arms;
	for (size_t i = 0; i < in->n_arms; i++) {
		struct verdict_arm_result *o = &v->arms[i];

		if (in->arms[i].is_baseline)
			v->baseline = (int)i;
		o->status = in->arms[i].is_baseline ? VERDICT_ARM_BASELINE : VERDICT_ARM_TOO_FEW;
		arm_moments(&in->arms[i], in->n_rounds, &o->mean, &o->stddev, &o->n);
		o->effect_pct = o->ci_low_pct = o->ci_high_pct = o->p_one_sided = NAN;
		for (size_t r = 0; r < in->n_rounds; r++)
			o->n_oom_killed += in->arms[i].outcome[r] == VERDICT_OUT_OOM;
	}
	j->judged = false;
	reason(v, why);
}

/*
 * A metric that cannot move is not a metric: a command that runs for a
 * fixed time (stress-ng --timeout, fio --runtime) has the same wall time in
 * every trial whatever the setting. True (and why) when wall time is the
 * primary metric and its spread over every completed trial is below 0.2 %.
 */
static bool wall_time_fixed(const struct verdict2_input *in, char *why, size_t len)
{
	double x[VERDICT_ARMS_MAX * VERDICT2_ROUNDS_MAX], m, sd;
	size_t n = 0;

	if (in->metric != VERDICT_METRIC_WALL_TIME)
		return false;
	for (size_t i = 0; i < in->n_arms; i++)
		for (size_t r = 0; r < in->n_rounds; r++)
			if (in->arms[i].outcome[r] == VERDICT_OUT_OK)
				x[n++] = in->arms[i].primary[r];
	if (n < 4)
		return false;
	m = stats_mean(x, n);
	sd = stats_stddev(x, n);
	if (!(m > 0) || !(sd / m < 0.002))
		return false;
	snprintf(why, len, "no verdict: the wall time is the same in every trial (spread %.3f %% of %.3g s): "
		 "the command seems to run for a fixed time; measure its own output with --metric "
		 "or --metric-regex", 100 * sd / m, m);
	return true;
}

int judge_plan_design(const struct judge_plan *p, size_t n_candidates,
		      struct verdict2_design *d, struct st_err *e)
{
	double alpha = verdict2_first_alpha(p->alpha);
	int rc;

	if (p->n_planned == 0)
		rc = verdict2_design_init(d, p->looks, p->n_looks, n_candidates, alpha, e);
	else if ((rc = verdict2_design_init(d, p->planned, p->n_planned, n_candidates, alpha, e)) == 0)
		rc = verdict2_design_truncate(d, p->looks[p->n_looks - 1], e);
	if (rc == 0)
		d->min_effect_pct = p->min_effect_pct;
	return rc;
}

int judge_run(const struct judge_case *c, const struct verdict2_opts *opts, const char *baseline_used,
	      struct judgement *j, struct verdict_result *v, struct st_err *e)
{
	const struct verdict2_input *in = c->in;
	const struct judge_plan *plan = c->plan;
	struct verdict2_input *cut;
	struct verdict2_opts o;
	char why[VERDICT_REASON_LEN];
	int rc;

	memset(j, 0, sizeof(*j));
	j->plan = *plan;
	if (!plan->recorded) {	/* an older run: a fixed design of the rounds it has */
		judge_plan_fixed(&j->plan, (unsigned)in->n_rounds);
		j->plan.order_random = plan->order_random;
	}
	verdict2_opts_init(&o);
	o.min_effect_pct = j->plan.min_effect_pct;
	if (opts) {
		o = *opts;
		if (plan->recorded && fabs(opts->min_effect_pct - plan->min_effect_pct) > 1e-9) {
			j->exploratory = true;
			snprintf(j->exploratory_why, sizeof(j->exploratory_why),
				 "minimum effect %g %% instead of the plan's %g %%",
				 opts->min_effect_pct, plan->min_effect_pct);
		}
	}
	o.order_fixed = !j->plan.order_random;
	/* shown with the verdict even when there is none */
	j->design.min_effect_pct = o.min_effect_pct;
	if (plan->recorded && baseline_used && plan->baseline[0] &&
	    strcmp(baseline_used, plan->baseline)) {
		j->exploratory = true;
		snprintf(j->exploratory_why, sizeof(j->exploratory_why),
			 "baseline %s instead of the plan's %s", baseline_used, plan->baseline);
	}
	if (in->n_arms < 2) {
		not_judged(j, in, v, "one arm: nothing to compare");
		return 0;
	}
	if (in->n_rounds < 2 || in->n_rounds < j->plan.looks[0]) {
		snprintf(why, sizeof(why),
			 "the run has %zu measured round%s, fewer than the plan's first look at %u: no verdict",
			 in->n_rounds, in->n_rounds == 1 ? "" : "s", j->plan.looks[0]);
		not_judged(j, in, v, why);
		return 0;
	}
	if (wall_time_fixed(in, why, sizeof(why))) {
		not_judged(j, in, v, why);
		return 0;
	}
	rc = judge_plan_design(&j->plan, in->n_arms - 1, &j->design, e);
	if (rc < 0)
		return rc;
	j->design.min_effect_pct = o.min_effect_pct;
	while (j->look + 1 < j->plan.n_looks && j->plan.looks[j->look + 1] <= in->n_rounds)
		j->look++;
	cut = malloc(sizeof(*cut));
	if (!cut)
		return err_set(e, -ENOMEM, "out of memory");
	*cut = *in;
	cut->n_rounds = j->plan.looks[j->look];
	rc = verdict2_look(&j->design, j->look, cut, &o, &j->r2, e);
	if (rc == 0)
		rc = verdict2_finish(&j->design, cut, &o, &j->r2, e);
	if (rc == 0) {
		j->judged = true;
		j->effect_80_pct = j->r2.effect_80_pct;
		translate(j, cut, v);
		if (j->r2.decision == VERDICT2_CONTINUE) {
			snprintf(why, sizeof(why),
				 "the run stopped at look %zu of %zu (%u rounds) before the design could decide",
				 j->look + 1, j->plan.n_looks, j->plan.looks[j->look]);
			memmove(&v->reasons[1], &v->reasons[0],
				sizeof(v->reasons[0]) * (VERDICT_REASONS_MAX - 1));
			snprintf(v->reasons[0], VERDICT_REASON_LEN, "%s", why);
			if (v->n_reasons < VERDICT_REASONS_MAX)
				v->n_reasons++;
		}
	}
	free(cut);
	return rc;
}

cJSON *judge_json(const struct judgement *j)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "plan", judge_plan_json(&j->plan));
	cJSON_AddBoolToObject(o, "plan_recorded", j->plan.recorded);
	cJSON_AddBoolToObject(o, "judged", j->judged);
	if (j->judged) {
		cJSON_AddNumberToObject(o, "look", (double)j->look + 1);
		cJSON_AddNumberToObject(o, "rounds", j->plan.looks[j->look]);
		cJSON_AddStringToObject(o, "decision", verdict2_decision_name(j->r2.decision));
		cJSON_AddNumberToObject(o, "false_change_bound", j->r2.false_change_bound);
		fmt_json_num(o, "power_min_effect", j->r2.power_min_effect);
		fmt_json_num(o, "effect_80pct_power_pct", j->effect_80_pct);
		fmt_json_num(o, "sd_log", j->r2.sd_log);
		fmt_json_num(o, "sd_log_robust", j->r2.sd_log_robust);
		cJSON_AddStringToObject(o, "path", verdict2_path_name(j->r2.path));
		cJSON_AddNumberToObject(o, "alpha_speed", j->design.alpha_speed);
		cJSON_AddNumberToObject(o, "alpha_fail", j->design.alpha_fail);
		{
			/* each candidate's cumulative one-sided speed level by look */
			cJSON *b = cJSON_AddArrayToObject(o, "levels");

			for (size_t k = 0; k < j->design.n_looks; k++)
				cJSON_AddItemToArray(b, cJSON_CreateNumber(j->design.alpha_speed /
					(double)j->design.n_candidates * j->design.frac[k]));
		}
		cJSON_AddNumberToObject(o, "busy_rounds", (double)j->r2.n_busy_rounds);
	}
	cJSON_AddBoolToObject(o, "exploratory", j->exploratory);
	if (j->exploratory)
		cJSON_AddStringToObject(o, "exploratory_why", j->exploratory_why);
	return o;
}

/* Copy the named items of from (when present) into to, in the given order. */
static void copy_items(cJSON *to, const cJSON *from, const char *const *keys)
{
	for (; *keys; keys++) {
		cJSON *x = cJSON_GetObjectItemCaseSensitive(from, *keys);

		if (x)
			cJSON_AddItemToObject(to, *keys, cJSON_Duplicate(x, true));
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object with its keys sorted (values as given), or NULL. */
static cJSON *sorted_object(const cJSON *o)
{
	const char *keys[64];
	size_t n = 0;
	cJSON *it, *out;

	if (!cJSON_IsObject(o))
		return NULL;
	cJSON_ArrayForEach(it, o)
		if (n < 64 && it->string)
			keys[n++] = it->string;
	qsort(keys, n, sizeof(keys[0]), cmp_str);
	out = cJSON_CreateObject();
	for (size_t i = 0; i < n; i++) {
		cJSON *x = cJSON_GetObjectItemCaseSensitive(o, keys[i]);

		cJSON_AddItemToObject(out, keys[i], cJSON_IsObject(x) ? sorted_object(x) :
				      cJSON_Duplicate(x, true));
	}
	return out;
}

int judge_recipe(const cJSON *p, const cJSON *arm_settings, char out[JUDGE_RECIPE_LEN])
{
	/* then every workload's own parameters (workload.h), in the workloads' order */
	const char *wkeys[6 + WORKLOAD_PARAMS_MAX + 1] = { "name", "working_set_bytes", "argv",
		"metric_regex", "metric", "run_as_uid" };
	static const char *const mkeys[] = { "limit_bytes", "limit_mode", NULL };
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(p, "workload");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(p, "method"), *x, *names;
	cJSON *c, *xo;
	char *text;
	uint64_t h = 1469598103934665603ULL;
	double min_trial;

	out[0] = 0;
	for (size_t i = 0; i < WORKLOAD_PARAMS_MAX && workload_param_at(i); i++)
		wkeys[6 + i] = workload_param_at(i)->key;
	if (!cJSON_IsObject(w))
		return -EBADMSG;
	c = cJSON_CreateObject();
	xo = cJSON_AddObjectToObject(c, "workload");
	copy_items(xo, w, wkeys);
	x = cJSON_GetObjectItemCaseSensitive(method, "min_trial_s");
	min_trial = cJSON_IsNumber(x) ? x->valuedouble : 0;
	if (!(min_trial > 0))
		copy_items(cJSON_GetObjectItemCaseSensitive(c, "workload"), w,
			   (const char *const[]){ "ops", NULL });
	cJSON_AddNumberToObject(c, "min_trial_s", min_trial);
	/* only when true: every run judged by wall time keeps the recipe it had */
	x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(method, "busy_host"),
					     "per_cpu_second");
	if (cJSON_IsTrue(x))
		cJSON_AddTrueToObject(c, "per_cpu_second");
	xo = cJSON_AddObjectToObject(c, "memcg");
	copy_items(xo, cJSON_GetObjectItemCaseSensitive(p, "memcg"), mkeys);
	copy_items(c, p, (const char *const[]){ "baseline", NULL });
	names = cJSON_GetObjectItemCaseSensitive(p, "arm_names");
	if (cJSON_IsArray(names)) {
		const char *v[VERDICT_ARMS_MAX];
		size_t n = 0;
		cJSON *it, *a = cJSON_AddArrayToObject(c, "arms");

		cJSON_ArrayForEach(it, names)
			if (cJSON_IsString(it) && n < VERDICT_ARMS_MAX)
				v[n++] = it->valuestring;
		qsort(v, n, sizeof(v[0]), cmp_str);
		for (size_t i = 0; i < n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	}
	if (arm_settings)
		cJSON_AddItemToObject(c, "arm_settings", sorted_object(arm_settings));
	text = cJSON_PrintUnformatted(c);
	for (const unsigned char *s = (const unsigned char *)(text ? text : ""); *s; s++)
		h = (h ^ *s) * 1099511628211ULL;
	snprintf(out, JUDGE_RECIPE_LEN, "%016llx", (unsigned long long)h);
	cJSON_free(text);
	cJSON_Delete(c);
	return 0;
}

void judge_verdict_print(FILE *f, enum verdict_kind kind, const char *arm)
{
	switch (kind) {
	case VERDICT_CHANGE:
		fprintf(f, "Verdict: CHANGE to ");
		break;
	case VERDICT_KEEP:
		fprintf(f, "Verdict: KEEP ");
		break;
	case VERDICT_INCONCLUSIVE:
	default:
		fprintf(f, "Verdict: INCONCLUSIVE\n");
		return;
	}
	fmt_fputs(f, arm ? arm : "");
	fputc('\n', f);
}
