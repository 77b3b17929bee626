/*
 * probe.c - the probe's own types (probe.h) and what needs only them: the
 * configuration's defaults and seeds, the names of a trial's status,
 * freeing a result. It takes nothing from the engine's files (probe-*.c,
 * probe-int.h), which all build on it.
 */
#include <stdlib.h>
#include <string.h>

#include "swaptune/probe.h"

void probe_config_init(struct probe_config *c)
{
	memset(c, 0, sizeof(*c));
	workload_params_init(&c->wp);
	c->baseline = -1;
	judge_plan_default(&c->plan);
	c->reps = c->plan.looks[c->plan.n_looks - 1];
	c->max_reps = c->reps;
	c->warmup = true;
	probe_seed_set(c, 1);
	c->min_trial_s = 2.0;
	c->max_time_s = 180;
	c->duration_s = 60;
	c->limit_mode = MEMCG_LIMIT_MAX;
	c->bypass_mode = PROBE_BYPASS_PC0;
}

void probe_seed_set(struct probe_config *c, uint64_t seed)
{
	uint64_t s = seed ^ 0x57a9d17e0c0ffee5ULL;

	c->seed = seed;
	c->wp.seed = workload_splitmix64(&s) & ((1ULL << 53) - 1);	/* exact in JSON numbers */
}

const char *probe_trial_status_name(enum probe_trial_status s)
{
	switch (s) {
	case PROBE_TRIAL_OK: return "ok";
	case PROBE_TRIAL_OOM: return "oom";
	case PROBE_TRIAL_FAILED: return "failed";
	case PROBE_TRIAL_TIMEOUT: return "timeout";
	case PROBE_TRIAL_INTERRUPTED: return "interrupted";
	}
	return "?";
}

void probe_result_free(struct probe_result *r)
{
	free(r->trials);
	r->trials = NULL;
	r->ntrials = r->cap = 0;
}
