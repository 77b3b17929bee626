/*
 * cmd-recommend.c - `swaptune recommend`: the advisor's verdict on a probe
 * run (the latest by default), or, when there is none, advice from the
 * host's state alone with the probe worth running.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/cmd.h"
#include "swaptune/sbrun.h"

enum { OPT_RUN = 256, OPT_MIN_EFFECT, OPT_BASELINE, OPT_STATE, OPT_EXIT_CODE };

static const struct option recommend_longopts[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "state", no_argument, NULL, OPT_STATE },
	{ "exit-code", no_argument, NULL, OPT_EXIT_CODE },
	{ 0, 0, 0, 0 },
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
 * A switchback run: judged as it was planned (its looks, minimum effect and
 * baseline are fixed in the run), so --min-effect and --baseline are not
 * taken. --exit-code answers as for a probe.
 */
static int recommend_switchback(struct cmd_ctx *ctx, int64_t run_id, bool exit_code)
{
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	const char *d;
	int r;

	if (!s)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	r = sbrun_load(&ctx->store, &ctx->host, run_id, s, &ctx->err);
	if (r == 0 && ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", RECOMMEND_SCHEMA);
		cJSON_AddStringToObject(doc, "mode", "switchback");
		cJSON_AddItemToObject(doc, "switchback", sbrun_verdict_json(s));
		r = cmd_print_json(ctx, doc);
	} else if (r == 0) {
		sbrun_verdict_print(ctx->out, s);
	}
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
	char kind[32];
	bool imported;

	return store_sb_run_kind(&ctx->store, run_id, kind, sizeof(kind), &imported, NULL) == 0 &&
	       !strcmp(kind, SBRUN_KIND);
}

static int recommend_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	bool switchback = false;
	struct advice_run *run = NULL;
	struct verdict_result *v = NULL;
	struct verdict_opts vo;
	struct judgement j;
	struct advice_pool pool;
	bool min_given = false;
	const char *baseline = NULL;
	int64_t run_id = 0;
	bool state = false, exit_code = false;
	char *end;
	int r;

	verdict_opts_init(&vo);
	while ((r = cmd_getopt(ctx, &cmd_recommend_entry, argc, argv, "", recommend_longopts)) != -1) {
		switch (r) {
		case -2:
			return -EINVAL;
		case OPT_RUN:
			run_id = strtoll(optarg, &end, 10);
			if (*end || run_id <= 0)
				return cmd_usage_error(ctx, &cmd_recommend_entry,
						       "--run needs a run id, not \"%s\"", optarg);
			break;
		case OPT_MIN_EFFECT:
			min_given = true;
			vo.min_effect_pct = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(vo.min_effect_pct) || vo.min_effect_pct < 0)
				return cmd_usage_error(ctx, &cmd_recommend_entry,
						       "--min-effect needs a percentage >= 0, not \"%s\"", optarg);
			break;
		case OPT_BASELINE:
			baseline = optarg;
			break;
		case OPT_STATE:
			state = true;
			break;
		case OPT_EXIT_CODE:
			exit_code = true;
			break;
		default:
			return cmd_usage_error(ctx, &cmd_recommend_entry, "unexpected option");
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_recommend_entry, "unexpected argument \"%s\"",
				       argv[optind]);
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
	if (!run || !v) {
		r = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	r = advice_load_run(&ctx->store, &ctx->host, run_id, baseline, run, &ctx->err);
	if (r < 0) {
		if (r == -ENOENT || r == -EINVAL)
			ctx->err.exit = ST_EXIT_USAGE;
		goto out;
	}
	r = advice_judge_pooled(&ctx->store, &ctx->host, run, min_given ? vo.min_effect_pct : -1, v,
				&j, &pool, &ctx->err);
	if (r == 0 && !min_given)
		vo.min_effect_pct = j.plan.min_effect_pct;
	if (r < 0) {
		err_prefix(&ctx->err, "cannot judge probe run %lld", (long long)run_id);
		goto out;
	}
	if (ctx->json) {
		cJSON *doc = advice_verdict_json(run, &vo, v);

		cJSON_AddItemToObject(doc, "judgement", judge_json(&j));
		cJSON_AddItemToObject(doc, "replication", advice_pool_json(run, &pool));

		r = cmd_print_json(ctx, doc);
	} else {
		advice_verdict_print(ctx->out, run, &vo, v);
		advice_pool_print(ctx->out, run, &pool);
		r = 0;
	}
	if (r == 0 && exit_code)
		r = v->kind == VERDICT_CHANGE ? ST_EXIT_ANSWER_CHANGE :
		    v->kind == VERDICT_KEEP ? 0 : ST_EXIT_ANSWER_INCONCLUSIVE;
out:
	free(run);
	free(v);
	return r;
}

static const struct cmd_option recommend_options[] = {
	{ "--run ID", "judge probe or switchback run ID (default: the latest of them)" },
	{ "--min-effect PCT", "smallest estimated gain worth a change, in percent (default 2; a filter on the estimate, not a test)" },
	{ "--baseline ARM", "compare with ARM instead of the arm matching the setting before the probe" },
	{ "--state", "advice from the host's state alone, even when probe runs exist" },
	{ "--exit-code", "exit 0 for keep, 10 for change, 11 for inconclusive (for scripts that gate on the verdict)" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_recommend_entry = {
	.name = "recommend",
	.summary = "the advisor's verdict on a probe or switchback run, or advice from the host's state",
	.usage = "[--run ID] [--min-effect PCT] [--baseline ARM] [--state] [--exit-code]",
	.options = recommend_options,
	.exec = recommend_exec,
};
