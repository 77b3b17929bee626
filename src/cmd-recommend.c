/*
 * cmd-recommend.c - `swaptune recommend`: the advisor's verdict on a probe
 * run (the latest by default), or, when there is none, advice from the
 * host's state alone with the probe worth running.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/cmd.h"
#include "swaptune/fmt.h"
#include "swaptune/kernel-check.h"
#include "swaptune/sbrun.h"

struct recommend_args {
	long long run;
	double min_effect_pct;
	const char *baseline;
	bool state, exit_code;
};

static const struct opt_spec recommend_opts[] = {
	CMD_OPT_RUN("judge probe or switchback run ID (default: the latest of them)", struct recommend_args, run,
		    OPT_COMPLETE_MEASURED_RUN),
	CMD_OPT_MIN_EFFECT("smallest estimated gain worth a change, in percent (default 2; a filter "
			   "on the estimate, not a test)", struct recommend_args, min_effect_pct),
	OPT_STRING("baseline", 0, "ARM", "compare with ARM instead of the arm matching the setting "
		   "before the probe", struct recommend_args, baseline, "an arm name", OPT_COMPLETE_NONE),
	OPT_FLAG("state", 0, "advice from the host's state alone, even when probe runs exist",
		 struct recommend_args, state),
	OPT_FLAG("exit-code", 0, "exit 0 for keep, 10 for change, 11 for inconclusive (for scripts "
		 "that gate on the verdict)", struct recommend_args, exit_code),
	{ NULL },
};

static int recommend_state(struct cmd_ctx *ctx, const char *why)
{
	struct host_facts f;
	struct advisor_host_facts a;
	struct advisor_rule_result res[ADVISOR_RULES_MAX];
	size_t n = 0;
	int r = facts_collect(&ctx->host, &f, &ctx->err);

	if (r < 0) {
		facts_free(&f);
		return r;
	}
	advice_rules_input(&f, &a);
	facts_free(&f);
	r = advisor_rules_run(&a, res, ADVISOR_RULES_MAX, &n, &ctx->err);
	if (r < 0)
		return r;
	if (ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", RECOMMEND_SCHEMA);
		cJSON_AddStringToObject(doc, "mode", "state");
		cJSON_AddStringToObject(doc, "why", why);
		cJSON_AddItemToObject(doc, "rules", advice_rules_json(res, n));
		return cmd_print_json(ctx, doc);
	}
	fprintf(ctx->out, "(%s)\n", why);
	advice_rules_print(ctx->out, res, n);
	return 0;
}

/*
 * The kernel run_id was decided on against the running one (a verdict is
 * evidence for its kernel): k filled, or the error of a fingerprint that
 * does not read back (exit 2, naming the run).
 */
static int kernel_check(struct cmd_ctx *ctx, int64_t run_id, struct kcheck *k)
{
	struct kernel_fingerprint now;
	struct store_run ri;
	int r;

	kcheck_now(&ctx->store, &ctx->host, &now);
	if ((r = store_run_get(&ctx->store, run_id, &ri, &ctx->err)) < 0)
		return r;
	r = kcheck_run(&ri, &now, k, &ctx->err);
	store_run_free(&ri);
	return r;
}

/* "Kernel: decided on ..." under the verdict. */
static void kernel_print(FILE *out, const struct kcheck *k)
{
	char buf[1024];

	fprintf(out, "\n%s: %s\n", k->diff ? "Kernel differs" : "Kernel", fmt_printable(kcheck_words(k, buf, sizeof(buf))));
}

/*
 * A switchback run: judged as it was planned (its looks, minimum effect and
 * baseline are fixed in the run), so --min-effect and --baseline are not
 * taken. --exit-code answers as for a probe.
 */
static int recommend_switchback(struct cmd_ctx *ctx, int64_t run_id, bool exit_code)
{
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct kcheck *k = calloc(1, sizeof(*k));
	const char *d;
	int r;

	if (!s || !k) {
		free(s);
		free(k);
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	}
	r = sbrun_load(&ctx->store, &ctx->host, run_id, s, &ctx->err);
	if (r == 0)
		r = kernel_check(ctx, run_id, k);
	if (r == 0 && ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", RECOMMEND_SCHEMA);
		cJSON_AddStringToObject(doc, "mode", "switchback");
		cJSON_AddItemToObject(doc, "switchback", sbrun_verdict_json(s));
		cJSON_AddItemToObject(doc, "kernel", kcheck_json(k));
		r = cmd_print_json(ctx, doc);
	} else if (r == 0) {
		sbrun_verdict_print(ctx->out, s);
		kernel_print(ctx->out, k);
		if (sbrun_says_change(s))
			advice_apply_hint_print(ctx->out, s->run_id);
	}
	free(k);
	d = sbrun_decision_name(s);
	if (r == 0 && exit_code)
		r = !strcmp(d, "change") ? ST_EXIT_ANSWER_CHANGE : !strcmp(d, "keep") ? 0 :
		    ST_EXIT_ANSWER_INCONCLUSIVE;
	sbrun_stored_free(s);
	free(s);
	return r;
}

/* The run recommend judges without --run: the newest switchback when newer than the probe's. */
static int latest_run(struct cmd_ctx *ctx, int64_t *run_id, bool *switchback)
{
	int64_t sb = 0;
	int r = advice_latest_probe_run(&ctx->store, run_id, &ctx->err);

	if (r == -ENOENT) {
		err_reset(&ctx->err);
		*run_id = 0;
	} else if (r < 0) {
		return r;
	}
	if (sbrun_latest(&ctx->store, &sb, NULL) == 0 && sb > *run_id) {
		*run_id = sb;
		*switchback = true;
	}
	return *run_id ? 0 : err_set(&ctx->err, -ENOENT, "no probe or switchback run");
}

static bool is_switchback(struct cmd_ctx *ctx, int64_t run_id)
{
	struct store_run ri;
	bool sb;

	if (store_run_get(&ctx->store, run_id, &ri, NULL) < 0)
		return false;
	sb = !strcmp(store_run_kind(&ri), SBRUN_KIND);
	store_run_free(&ri);
	return sb;
}

static int recommend_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	bool switchback = false;
	struct advice_run *run = NULL;
	struct verdict_result *v = NULL;
	struct kcheck *k = NULL;
	struct judgement j;
	double min_effect = -1;
	struct advice_pool pool;
	struct recommend_args a = { 0 };
	struct opt_given g;
	bool min_given, state, exit_code;
	const char *baseline;
	int64_t run_id;
	int r;

	if ((r = cmd_parse(ctx, &cmd_recommend_entry, argc, argv, &a, &g)) < 0)
		return r;
	min_given = cmd_given(&cmd_recommend_entry, &g, "min-effect");
	if (min_given)
		min_effect = a.min_effect_pct;
	baseline = a.baseline;
	run_id = a.run;
	state = a.state;
	exit_code = a.exit_code;
	if (state && (run_id || baseline))
		return cmd_usage_error(ctx, &cmd_recommend_entry, "--state takes no --run or --baseline");
	if (state && exit_code)
		return cmd_usage_error(ctx, &cmd_recommend_entry, "--exit-code needs a verdict on a probe run, not --state");
	if (state)
		return recommend_state(ctx, "state-only advice requested with --state");
	if (!run_id) {
		r = latest_run(ctx, &run_id, &switchback);
		if (r == -ENOENT) {
			err_reset(&ctx->err);
			if (baseline || exit_code)
				return cmd_usage_error(ctx, &cmd_recommend_entry,
						       "%s needs a probe run, and there is none",
						       baseline ? "--baseline" : "--exit-code");
			return recommend_state(ctx, "no probe run in the store: run swaptune probe to measure");
		}
		if (r < 0)
			return r;
	}
	if (switchback || is_switchback(ctx, run_id)) {
		if (min_given || baseline)
			return cmd_usage_error(ctx, &cmd_recommend_entry,
					       "run %lld is a switchback: it is judged by its own plan (no --min-effect or --baseline)",
					       (long long)run_id);
		return recommend_switchback(ctx, run_id, exit_code);
	}
	run = calloc(1, sizeof(*run));
	v = calloc(1, sizeof(*v));
	k = calloc(1, sizeof(*k));
	if (!run || !v || !k) {
		r = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	r = advice_load_run(&ctx->store, &ctx->host, run_id, baseline, run, &ctx->err);
	if (r < 0) {
		if (r == -ENOENT || r == -EINVAL)
			ctx->err.exit = ST_EXIT_USAGE;
		goto out;
	}
	r = advice_judge_pooled(&ctx->store, &ctx->host, run, min_effect, &(struct advice_verdict){ v, &j, &pool },
				&ctx->err);
	if (r < 0) {
		err_prefix(&ctx->err, "cannot judge probe run %lld", (long long)run_id);
		goto out;
	}
	if ((r = kernel_check(ctx, run_id, k)) < 0)
		goto out;
	if (ctx->json) {
		cJSON *doc = advice_verdict_json(run, &j, v);

		cJSON_AddItemToObject(doc, "judgement", judge_json(&j));
		cJSON_AddItemToObject(doc, "replication", advice_pool_json(run, &pool));
		cJSON_AddItemToObject(doc, "kernel", kcheck_json(k));

		r = cmd_print_json(ctx, doc);
	} else {
		advice_verdict_print(ctx->out, run, &j, v);
		advice_pool_print(ctx->out, run, &pool);
		kernel_print(ctx->out, k);
		r = 0;
	}
	if (r == 0 && exit_code)
		r = v->kind == VERDICT_CHANGE ? ST_EXIT_ANSWER_CHANGE :
		    v->kind == VERDICT_KEEP ? 0 : ST_EXIT_ANSWER_INCONCLUSIVE;
out:
	advice_run_free(run);
	free(run);
	free(v);
	free(k);
	return r;
}

const struct cmd_entry cmd_recommend_entry = {
	.name = "recommend",
	.summary = "the advisor's verdict on a probe or switchback run, or advice from the host's state",
	.usage = "[--run ID] [--min-effect PCT] [--baseline ARM] [--state] [--exit-code]",
	.group = CMD_GROUP_MEASURE,
	.opts = { recommend_opts },
	.flags = CMD_WRAP_HUMAN,
	.exec = recommend_exec,
};
