/*
 * metric.c - lookups in the probe's per-trial metrics (a view of the
 * counter vocabulary, vocab.h) and the one builder of the advisor's input
 * from a probe run's rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "swaptune/metric.h"
#include "swaptune/settings.h"

int metric_find(const char *key)
{
	for (int m = 0; m < PM_COUNT; m++)
		if (!strcmp(metric_defs[m].key, key))
			return m;
	return -1;
}

enum verdict_metric metric_primary(const char *key, bool higher_is_better, const char **label)
{
	int m = metric_find(key);

	*label = m >= 0 ? metric_defs[m].row->label : "";
	if (m == PM_THROUGHPUT)
		return VERDICT_METRIC_THROUGHPUT;
	if (m == PM_WALL_S)
		return VERDICT_METRIC_WALL_TIME;
	return higher_is_better ? VERDICT_METRIC_HIGHER_BETTER : VERDICT_METRIC_LOWER_BETTER;
}

void metric_verdict_primary(const char *key, bool higher_is_better, struct verdict2_input *in)
{
	const char *label;

	in->metric = metric_primary(key, higher_is_better, &label);
	snprintf(in->metric_name, sizeof(in->metric_name), "%s", label);
}

/*
 * The failure test's order for an arm (see verdict2_arm.fail_order): its
 * page-cluster, so that the arm with the least swap readahead is tested
 * first - readahead charged to the probe's cgroup is what gets a trial
 * OOM-killed. The stored settings are read back, so the value goes through
 * the settings registry's parser like user input; an arm without a valid
 * page-cluster comes after those with one.
 */
static int arm_fail_order(const char *settings_json)
{
	const struct setting_def *d = settings_find("page-cluster");
	cJSON *o = cJSON_Parse(settings_json ? settings_json : "");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "page-cluster");
	char canon[16];
	int order = 1000;

	if (d && cJSON_IsString(v) && settings_normalize(NULL, d, v->valuestring, canon, sizeof(canon), NULL) == 0)
		order = atoi(canon);
	cJSON_Delete(o);
	return order;
}

static int arm_index(const struct store_probe_run *run, int64_t arm_id)
{
	for (size_t i = 0; i < run->n_arms; i++)
		if (run->arms[i].id == arm_id)
			return (int)i;
	return -1;
}

/* One used trial's secondary costs into slot n of va; have[] counts trials with each. */
/*
 * The guarded costs of one trial by cost index (the VERDICT_SEC_* costs,
 * then p99 latency): got[c] set for each present; wasted readahead falls
 * back to swap_ra - swap_ra_hit for rows without a key of their own.
 */
static void trial_costs_of(const struct store_probe_trial *t, double v[VERDICT2_COSTS],
			   bool got[VERDICT2_COSTS])
{
	double ra = NAN, ra_hit = NAN, pswpout = NAN, zswpwb = NAN;

	for (int c = 0; c < VERDICT2_COSTS; c++)
		got[c] = false;
	for (size_t k = 0; k < t->n_metrics; k++) {
		int m = metric_find(t->metrics[k].key);
		double x = t->metrics[k].value;

		if (m == PM_SWAP_RA)
			ra = x;
		else if (m == PM_SWAP_RA_HIT)
			ra_hit = x;
		else if (m == PM_PSWPOUT)
			pswpout = x;
		else if (m == PM_ZSWPWB)
			zswpwb = x;
		if (m < 0 || !isfinite(x))
			continue;
		if (m == PM_LAT_P99_NS) {
			v[VERDICT2_COST_P99_LATENCY] = x;
			got[VERDICT2_COST_P99_LATENCY] = true;
		} else if (vocab_secondary_of(m) != METRIC_SEC_NONE) {
			v[vocab_secondary_of(m)] = x;
			got[vocab_secondary_of(m)] = true;
		}
	}
	if (!got[VERDICT_SEC_WASTED_RA_PAGES] && isfinite(ra) && isfinite(ra_hit) && ra >= ra_hit) {
		v[VERDICT_SEC_WASTED_RA_PAGES] = ra - ra_hit;
		got[VERDICT_SEC_WASTED_RA_PAGES] = true;
	}
	/*
	 * The swap-out cost is every page that left memory, into zswap or onto
	 * the swap device (less zswap's writebacks, counted in both): a zswap
	 * arm against a zswap-off baseline is then guarded on what both swap
	 * out, where zswpout alone is 0 against something.
	 */
	if (got[VERDICT_SEC_ZSWPOUT_PAGES] && isfinite(pswpout) && pswpout >= 0) {
		double extra = pswpout - (isfinite(zswpwb) && zswpwb > 0 ? zswpwb : 0.0);

		v[VERDICT_SEC_ZSWPOUT_PAGES] += extra > 0 ? extra : 0.0;
	}
}

static enum verdict_outcome trial_outcome(const struct store_probe_trial *t)
{
	if (!strcmp(t->status, "ok"))
		/* a log-ratio needs a positive value: anything else is a failed trial */
		return t->have_primary && isfinite(t->primary) && t->primary > 0 ?
		       VERDICT_OUT_OK : VERDICT_OUT_FAILED;
	if (!strcmp(t->status, "oom"))
		return VERDICT_OUT_OOM;
	if (!strcmp(t->status, "timeout"))
		return VERDICT_OUT_TIMEOUT;
	if (!strcmp(t->status, "failed"))
		return VERDICT_OUT_FAILED;
	return VERDICT_OUT_MISSING;	/* interrupted: the probe stopped, not the arm */
}

/* The costs of one OK trial into round slot r (negative values are not costs). */
static void trial_costs(const struct store_probe_trial *t, struct verdict2_arm *va, size_t r,
			bool got[VERDICT2_COSTS])
{
	double v[VERDICT2_COSTS];

	trial_costs_of(t, v, got);
	for (int c = 0; c < VERDICT2_COSTS; c++)
		if (got[c] && v[c] >= 0)
			va->cost[c][r] = v[c];
		else
			got[c] = false;
}

void metric_trial_cpu_covariates(const struct store_probe_trial *t, double *cpu_pressure_pct,
				 double *cpu_share)
{
	*cpu_pressure_pct = *cpu_share = NAN;
	for (size_t k = 0; k < t->n_metrics; k++) {
		int m = metric_find(t->metrics[k].key);

		if (m == PM_CPU_PRESSURE_PCT)
			*cpu_pressure_pct = t->metrics[k].value;
		else if (m == PM_CPU_SHARE)
			*cpu_share = t->metrics[k].value;
	}
}

int metric_verdict2_input(const struct store_probe_run *run, struct verdict2_input *in)
{
	unsigned ok[VERDICT_ARMS_MAX] = { 0 }, have[VERDICT_ARMS_MAX][VERDICT2_COSTS];

	if (run->n_arms > VERDICT_ARMS_MAX)
		return -EBADMSG;
	memset(have, 0, sizeof(have));
	in->n_arms = run->n_arms;
	in->n_rounds = 0;
	for (size_t i = 0; i < run->n_arms; i++) {
		memset(&in->arms[i], 0, sizeof(in->arms[i]));
		snprintf(in->arms[i].name, sizeof(in->arms[i].name), "%s", run->arms[i].name);
		in->arms[i].fail_order = arm_fail_order(run->arms[i].settings);
		for (size_t r = 0; r < VERDICT2_ROUNDS_MAX; r++)	/* covariates: unknown until filled */
			in->arms[i].cpu_pressure_pct[r] = in->arms[i].cpu_share[r] = NAN;
	}
	for (size_t k = 0; k < run->n_trials; k++) {
		const struct store_probe_trial *t = &run->trials[k];
		int ai = arm_index(run, t->arm_id);
		struct verdict2_arm *va;
		bool got[VERDICT2_COSTS] = { false };
		size_t r;

		if (ai < 0 || t->warmup || t->round < 1 || t->round > VERDICT2_ROUNDS_MAX)
			continue;
		r = t->round - 1;
		va = &in->arms[ai];
		va->outcome[r] = trial_outcome(t);
		if (va->outcome[r] == VERDICT_OUT_MISSING)
			continue;
		metric_trial_cpu_covariates(t, &va->cpu_pressure_pct[r], &va->cpu_share[r]);
		if (t->round > in->n_rounds)
			in->n_rounds = t->round;
		if (va->outcome[r] != VERDICT_OUT_OK)
			continue;
		va->primary[r] = t->primary;
		trial_costs(t, va, r, got);
		ok[ai]++;
		for (int c = 0; c < VERDICT2_COSTS; c++)
			have[ai][c] += got[c];
	}
	/* a cost counts for an arm only when every completed trial has it */
	for (size_t i = 0; i < run->n_arms; i++)
		for (int c = 0; c < VERDICT2_COSTS; c++)
			in->arms[i].has_cost[c] = ok[i] > 0 && have[i][c] == ok[i];
	return 0;
}
