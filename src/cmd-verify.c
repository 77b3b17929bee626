/*
 * cmd-verify.c - `swaptune verify`: re-run the probe that justified the
 * setting now in effect (same workload, parameters, arms and baseline, as
 * stored with that run), judge the new run the same way, and say whether
 * the applied arm still beats the baseline. The re-run is a replication
 * of the original run's recipe: it is judged pooled with the original and
 * every earlier re-run (advice_judge_pooled()), and a gain that a cost
 * guardrail vetoes in the re-run never counts as holding.
 *
 * The applied arm is the one of the newest apply from a probe run that is
 * still in effect (not rolled back or reverted); with --run ID any stored
 * probe run is repeated and its verdict compared.
 *
 * The exit status carries the answer, for scripts and fleet rollouts that
 * gate on it: 0 the benefit holds, ST_EXIT_ANSWER_CHANGE (10) it no longer
 * holds, ST_EXIT_ANSWER_INCONCLUSIVE (11) not enough evidence either way.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-switchback.h"
#include "swaptune/advice.h"
#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/probe.h"
#include "swaptune/recipe.h"
#include "swaptune/stop.h"

#define VERIFY_SCHEMA "swaptune.verify/1"

/* What is being verified. */
struct target {
	int64_t apply_run;		/* 0 with --run */
	int64_t probe_run;
	char arm[VERDICT_NAME_MAX];	/* the applied (or recommended) arm, "" = none */
};

static int find_apply(struct cmd_ctx *ctx, struct target *t)
{
	struct store_apply_ref a;
	int r = store_runs_apply_in_effect(&ctx->store, &a, &ctx->err);

	if (r < 0)
		return r;
	if (r == 0)
		return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_RUNTIME,
				    "nothing to verify: no setting applied from a probe run is in effect"
				    " (swaptune apply --run ID; or verify --run ID re-runs any probe)");
	t->apply_run = a.apply_run;
	t->probe_run = a.probe_run;
	snprintf(t->arm, sizeof(t->arm), "%s", a.arm);
	return 0;
}

static const char *result_words(const char *res)
{
	if (!strcmp(res, "holds"))
		return "the benefit holds";
	if (!strcmp(res, "vetoed"))
		return "the benefit does not hold: a cost guardrail vetoes the gain (consider swaptune rollback)";
	if (!strcmp(res, "weaker"))
		return "the benefit shrank below the minimum effect";
	if (!strcmp(res, "gone"))
		return "the benefit is gone: no difference any more";
	if (!strcmp(res, "reversed"))
		return "the benefit reversed: the applied setting is now worse (consider swaptune rollback)";
	if (!strcmp(res, "oom"))
		return "the applied setting was OOM-killed in the re-run (consider swaptune rollback)";
	if (!strcmp(res, "no-arm"))
		return "the original run recommended no change; compare the verdicts";
	return "not enough evidence either way: repeat with more --reps";
}

static cJSON *side_json(const struct advice_run *run, const struct verdict_result *v, int arm)
{
	cJSON *o = cJSON_CreateObject();
	const struct verdict_arm_result *a = arm >= 0 ? &v->arms[arm] : NULL;

	cJSON_AddNumberToObject(o, "run_id", (double)run->run_id);
	cJSON_AddStringToObject(o, "verdict", verdict_kind_name(v->kind));
	if (v->chosen >= 0)
		cJSON_AddStringToObject(o, "verdict_arm", run->arms[v->chosen].name);
	else
		cJSON_AddNullToObject(o, "verdict_arm");
	if (a) {
		cJSON_AddStringToObject(o, "status", verdict_arm_status_name(a->status));
#define NUM(k, x) (isfinite(x) ? cJSON_AddNumberToObject(o, k, x) : cJSON_AddNullToObject(o, k))
		NUM("effect_pct", a->effect_pct);
		NUM("ci_low_pct", a->ci_low_pct);
		NUM("ci_high_pct", a->ci_high_pct);
		NUM("p_welch", a->p_welch);
#undef NUM
		cJSON_AddNumberToObject(o, "trials", (double)a->n);
		cJSON_AddNumberToObject(o, "oom_killed", a->n_oom_killed);
	} else {
		cJSON_AddNullToObject(o, "status");
	}
	return o;
}

static void print_side(FILE *out, const char *label, const struct advice_run *run,
		       const struct verdict_result *v, int arm)
{
	const struct verdict_arm_result *a = &v->arms[arm];

	if (!a->compared) {
		fprintf(out, "  %-5s %s: %s (run %lld, %zu trials, %u OOM-killed)\n", label,
			run->arms[arm].name, verdict_arm_status_name(a->status), (long long)run->run_id,
			a->n, a->n_oom_killed);
		return;
	}
	fprintf(out, "  %-5s %s %+.1f %% [%+.1f, %+.1f] vs %s, p %s%.3f, %s (run %lld, %zu trials)\n",
		label, run->arms[arm].name, a->effect_pct, a->ci_low_pct, a->ci_high_pct,
		run->arms[v->baseline].name, a->p_welch < 0.001 ? "< " : "= ",
		a->p_welch < 0.001 ? 0.001 : a->p_welch, verdict_arm_status_name(a->status),
		(long long)run->run_id, a->n);
}

static int arm_index(const struct advice_run *r, const char *name)
{
	for (size_t i = 0; i < r->n_arms; i++)
		if (!strcmp(r->arms[i].name, name))
			return (int)i;
	return -1;
}

struct verify_opts {
	struct target t;
	long long run;			/* --run, 0 = the apply in effect */
	const char *arm;
	unsigned reps;			/* 0 = as the original run */
	bool yes, dry;
	int progress;			/* enum cmd_progress */
	const char *scratch;
	double min_effect_pct;
	bool min_effect_given;
	bool live;
};

static const struct opt_spec verify_opts[] = {
	CMD_OPT_RUN("repeat probe run ID instead of the one behind the applied setting",
		    struct verify_opts, run, OPT_COMPLETE_PROBE_RUN),
	OPT_STRING("arm", 0, "NAME", "with --run: judge arm NAME (e.g. the one a fleet rollout "
		   "applied) instead of the run's recommended arm", struct verify_opts, arm,
		   "an arm name", OPT_COMPLETE_NONE),
	OPT_UINT("reps", "N", "measured rounds for the re-run (default: as the original run)",
		 struct verify_opts, reps, 2, PROBE_REPS_MAX),
	CMD_OPT_MIN_EFFECT("smallest improvement that counts, in percent (default: the run's plan, "
			   "2; with --live: points for PSI)", struct verify_opts, min_effect_pct),
	OPT_DIR("scratch-dir", "DIR", "directory for the probe's scratch swap file", struct verify_opts,
		scratch),
	CMD_OPT_YES(struct verify_opts, yes),
	CMD_OPT_DRY_RUN("say what would be re-run; change nothing", struct verify_opts, dry),
	CMD_OPT_PROGRESS(struct verify_opts, progress),
	OPT_FLAG("live", 0, "instead of a probe: a switchback of the applied settings against their "
		 "previous values on the running workload (the newest apply in effect or awaiting "
		 "confirmation; --run ID names the apply run); takes the options below and --yes, "
		 "--dry-run, --min-effect, --progress", struct verify_opts, live),
	{ NULL },
};

/* Everything one verify holds, in one allocation. */
struct verify_work {
	struct advice_run then, now;
	struct verdict_result vthen, vnow;
	struct judgement jthen, jnow;
	struct advice_pool pool;	/* the re-run with the original and earlier verifies */
	struct recipe rec;		/* the run's recipe, validated; rec.c is re-run */
	struct probe_plan p;
	struct probe_result res;
	int a_then, a_now;		/* the arm's index in each run, -1 none */
	int64_t verify_run;
	const char *result;
	bool holds;
};

/* verify --live: no probe to repeat; the shared options go to the switchback (sa). */
static int live_args(struct cmd_ctx *ctx, const struct verify_opts *o, struct sb_args *sa)
{
	const char *probe_only = o->arm ? "--arm" : o->reps ? "--reps" : o->scratch ? "--scratch-dir" : NULL;

	if (probe_only)
		return cmd_usage_error(ctx, &cmd_verify_entry, "%s re-runs a probe: it does not go with --live",
				       probe_only);
	sa->yes = o->yes;
	sa->dry = o->dry;
	sa->progress = o->progress;
	if (o->min_effect_given)
		sa->c->min_effect = o->min_effect_pct;
	return 0;
}

/* Both tables: verify's own into o, the switchback's design rows into sa (--live only). */
static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct verify_opts *o,
		      struct sb_args *sa)
{
	void *const args[OPT_TABLES_MAX] = { o, sa };
	struct opt_given g;
	int r;

	memset(o, 0, sizeof(*o));
	if ((r = cmd_parse_sets(ctx, &cmd_verify_entry, argc, argv, args, &g)) < 0)
		return r;
	o->min_effect_given = cmd_given(&cmd_verify_entry, &g, "min-effect");
	if (o->live)
		return live_args(ctx, o, sa);
	for (size_t i = 0; cmd_sb_design_opts[i].name; i++)
		if (g.given[1] & 1ULL << i)
			return cmd_usage_error(ctx, &cmd_verify_entry, "--%s goes with --live",
					       cmd_sb_design_opts[i].name);
	o->t.probe_run = o->run;
	if (o->arm) {
		if (strlen(o->arm) >= sizeof(o->t.arm))
			return cmd_usage_error(ctx, &cmd_verify_entry, "--arm needs an arm name");
		snprintf(o->t.arm, sizeof(o->t.arm), "%s", o->arm);
	}
	if (o->t.arm[0] && !o->t.probe_run)
		return cmd_usage_error(ctx, &cmd_verify_entry, "--arm needs --run ID");
	return 0;
}

/* The stored run judged as recommend judges it, and the probe that repeats it. */
static int plan_rerun(struct cmd_ctx *ctx, struct verify_opts *o, struct verify_work *w)
{
	struct target *t = &o->t;
	int r;

	if ((r = advice_load_run(&ctx->store, &ctx->host, t->probe_run, NULL, &w->then, &ctx->err)) < 0)
		return r;
	if ((r = advice_judge_pooled(&ctx->store, &ctx->host, &w->then,
				     o->min_effect_given ? o->min_effect_pct : -1, &w->vthen,
				     &w->jthen, NULL, &ctx->err)) < 0)
		return r;
	if (!t->arm[0] && w->vthen.kind == VERDICT_CHANGE)
		snprintf(t->arm, sizeof(t->arm), "%s", w->then.arms[w->vthen.chosen].name);
	w->a_then = t->arm[0] ? arm_index(&w->then, t->arm) : -1;
	if (t->arm[0] && w->a_then < 0)
		return err_set_exit(&ctx->err, -EBADMSG, ST_EXIT_RUNTIME, "probe run %lld has no arm %s",
				    (long long)t->probe_run, t->arm);
	if ((r = recipe_read(&ctx->host, &w->then, &w->rec, &ctx->err)) < 0)
		return r;
	if (o->reps) {
		double me = w->rec.c.plan.min_effect_pct;

		judge_plan_fixed(&w->rec.c.plan, o->reps);
		w->rec.c.plan.min_effect_pct = me;
		w->rec.c.reps = w->rec.c.max_reps = o->reps;
		w->rec.c.adaptive = false;
	}
	if (o->scratch)
		snprintf(w->rec.c.scratch_dir, sizeof(w->rec.c.scratch_dir), "%s", o->scratch);
	return probe_plan(&ctx->host, &w->rec.c, &w->p, &ctx->err);
}

static int print_dry_run(struct cmd_ctx *ctx, const struct verify_opts *o,
			 const struct verify_work *w)
{
	if (ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", VERIFY_SCHEMA);
		cJSON_AddBoolToObject(doc, "dry_run", true);
		cJSON_AddNumberToObject(doc, "probe_run", (double)o->t.probe_run);
		cJSON_AddNumberToObject(doc, "estimated_s", w->p.est_total_s);
		return cmd_print_json(ctx, doc);
	}
	fprintf(ctx->out, "Would run %u trials (about %.0f s); nothing changed (--dry-run).\n",
		w->p.trials, w->p.est_total_s);
	return 0;
}

/* The probe itself, recorded as a "verify" run; signals stop it and restore the host. */
static int rerun(struct cmd_ctx *ctx, const struct verify_opts *o, struct verify_work *w)
{
	struct stop_catch stop;
	enum cmd_progress progress;
	char params[160];
	int r;

	snprintf(params, sizeof(params), "{\"probe_run\":%lld,\"apply_run\":%lld,\"arm\":\"%s\"}",
		 (long long)o->t.probe_run, (long long)o->t.apply_run, o->t.arm);
	store_run_begin(&ctx->store, "verify", params, &w->verify_run, NULL);
	stop_catch(&stop, 0);
	w->rec.c.stop = &stop_signal;
	progress = cmd_progress_resolve((enum cmd_progress)o->progress, ctx->json);
	if (progress != CMD_PROGRESS_NONE) {
		w->rec.c.progress = cmd_probe_progress;
		w->rec.c.progress_arg = &progress;
	}
	r = probe_run(&ctx->host, &ctx->store, &w->rec.c, &w->p, &w->res, &ctx->err);
	if (progress == CMD_PROGRESS_TTY)
		fprintf(stderr, "\r\033[K");
	w->rec.c.progress = NULL;
	stop_release(&stop);
	if (r == 0 && w->res.signal)
		r = err_set_exit(&ctx->err, -EINTR, ST_EXIT_RUNTIME,
				 "verify stopped by signal %d; the host was restored", w->res.signal);
	if (r < 0 && w->verify_run)
		store_run_end(&ctx->store, w->verify_run, "failed", NULL, NULL);
	return r;
}

/* The new run against the same baseline, and how the arm fares now. */
static int judge_rerun(struct cmd_ctx *ctx, const struct verify_opts *o, struct verify_work *w)
{
	const struct target *t = &o->t;
	int r;

	if ((r = advice_load_run(&ctx->store, &ctx->host, w->res.run_id,
				 w->then.arms[w->vthen.baseline].name, &w->now, &ctx->err)) < 0 ||
	    (r = advice_judge_pooled(&ctx->store, &ctx->host, &w->now,
				     o->min_effect_given ? o->min_effect_pct : -1, &w->vnow, &w->jnow,
				     &w->pool, &ctx->err)) < 0)
		return r;
	w->a_now = t->arm[0] ? arm_index(&w->now, t->arm) : -1;
	w->result = advice_verify_result(&w->vnow, &w->pool, w->a_now, &w->holds);
	if (!t->arm[0])
		w->holds = w->vnow.kind == w->vthen.kind;
	if (w->verify_run) {
		char summary[256];

		snprintf(summary, sizeof(summary), "{\"rerun\":%lld,\"result\":\"%s\",\"holds\":%s}",
			 (long long)w->res.run_id, w->result, w->holds ? "true" : "false");
		store_run_end(&ctx->store, w->verify_run, "ok", summary, NULL);
	}
	return 0;
}

static int print_result(struct cmd_ctx *ctx, const struct verify_opts *o,
			const struct verify_work *w)
{
	const struct target *t = &o->t;

	if (ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", VERIFY_SCHEMA);
		cJSON_AddBoolToObject(doc, "dry_run", false);
		cJSON_AddNumberToObject(doc, "probe_run", (double)t->probe_run);
		if (t->apply_run)
			cJSON_AddNumberToObject(doc, "apply_run", (double)t->apply_run);
		else
			cJSON_AddNullToObject(doc, "apply_run");
		cJSON_AddNumberToObject(doc, "verify_run", (double)w->verify_run);
		if (t->arm[0])
			cJSON_AddStringToObject(doc, "arm", t->arm);
		else
			cJSON_AddNullToObject(doc, "arm");
		cJSON_AddStringToObject(doc, "baseline", w->then.arms[w->vthen.baseline].name);
		cJSON_AddItemToObject(doc, "then", side_json(&w->then, &w->vthen, w->a_then));
		cJSON_AddItemToObject(doc, "now", side_json(&w->now, &w->vnow, w->a_now));
		cJSON_AddStringToObject(doc, "result", w->result);
		cJSON_AddBoolToObject(doc, "holds", w->holds);
		cJSON_AddStringToObject(doc, "message", result_words(w->result));
		cJSON_AddItemToObject(doc, "replication", advice_pool_json(&w->now, &w->pool));
		return cmd_print_json(ctx, doc);
	}
	if (w->a_then >= 0) {
		print_side(ctx->out, "then:", &w->then, &w->vthen, w->a_then);
		print_side(ctx->out, "now:", &w->now, &w->vnow, w->a_now);
	} else {
		fprintf(ctx->out, "  then: %s (run %lld)\n  now:  %s (run %lld)\n",
			verdict_kind_name(w->vthen.kind), (long long)w->then.run_id,
			verdict_kind_name(w->vnow.kind), (long long)w->now.run_id);
	}
	advice_pool_print(ctx->out, &w->now, &w->pool);
	fprintf(ctx->out, "Result: %s.\n", t->arm[0] ? result_words(w->result) :
		w->holds ? "the same verdict" : "a different verdict");
	return 0;
}

/*
 * The answer as the exit status: 0 the benefit holds, ST_EXIT_ANSWER_CHANGE
 * it no longer holds (vetoed by a cost, weaker, gone, reversed, OOM-killed;
 * without an arm: a different decisive verdict), and
 * ST_EXIT_ANSWER_INCONCLUSIVE when the re-run cannot tell.
 */
static int verify_exit_status(const struct target *t, const struct verify_work *w)
{
	if (!t->arm[0]) {
		if (w->vnow.kind == VERDICT_INCONCLUSIVE && w->vthen.kind != VERDICT_INCONCLUSIVE)
			return ST_EXIT_ANSWER_INCONCLUSIVE;
		return w->holds ? ST_EXIT_OK : ST_EXIT_ANSWER_CHANGE;
	}
	if (w->holds)
		return ST_EXIT_OK;
	return strcmp(w->result, "inconclusive") ? ST_EXIT_ANSWER_CHANGE : ST_EXIT_ANSWER_INCONCLUSIVE;
}

static int verify_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct verify_opts o;
	struct verify_work *w = calloc(1, sizeof(*w));
	struct sbrun_config *sc = calloc(1, sizeof(*sc));
	struct sb_args sa;
	int r, lockfd = -1;

	if (!w || !sc) {
		free(w);
		free(sc);
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	}
	cmd_sb_init(sc, &sa, argc, argv);
	r = parse_args(ctx, argc, argv, &o, &sa);
	/* --live: a switchback on the running workload instead of the probe (cmd-verify-live.c) */
	if (r == 0 && o.live)
		r = cmd_verify_live(ctx, &sa, o.run);
	free(sc);
	if (r < 0 || o.live)
		goto out;
	if (!o.t.probe_run && (r = find_apply(ctx, &o.t)) < 0)
		goto out;
	if ((r = plan_rerun(ctx, &o, w)) < 0)
		goto out;
	if (!ctx->json) {
		if (o.t.apply_run)
			fprintf(ctx->out, "Verifying apply run %lld: arm %s of probe run %lld against %s.\n",
				(long long)o.t.apply_run, o.t.arm, (long long)o.t.probe_run,
				w->then.arms[w->vthen.baseline].name);
		else
			fprintf(ctx->out, "Repeating probe run %lld (%s, %d arms, %u rounds, baseline %s).\n",
				(long long)o.t.probe_run, w->then.workload, w->rec.c.narms, w->rec.c.reps,
				w->rec.c.arms[w->rec.c.baseline].name);
	}
	if (o.dry) {
		r = print_dry_run(ctx, &o, w);
		goto out;
	}
	if (!ctx->host.live) {
		r = err_set_exit(&ctx->err, -EOPNOTSUPP, ST_EXIT_USAGE,
				 "verify re-runs a probe on the live host only; with --sysroot use --dry-run");
		goto out;
	}
	if ((r = change_lock(&ctx->store, &ctx->host, "verify", ctx->db_path, false, &lockfd,
			     &ctx->err)) < 0)
		goto out;
	fflush(ctx->out);
	if ((r = change_ask("re-run the probe (it changes host-wide settings while it runs)", o.yes,
			    &ctx->err)) < 0)
		goto out;
	if ((r = rerun(ctx, &o, w)) < 0 || (r = judge_rerun(ctx, &o, w)) < 0)
		goto out;
	if ((r = print_result(ctx, &o, w)) == 0)
		r = verify_exit_status(&o.t, w);
out:
	change_unlock(lockfd);
	probe_result_free(&w->res);
	recipe_free(&w->rec);
	free(w);
	return r;
}

const struct cmd_entry cmd_verify_entry = {
	.name = "verify",
	.summary = "re-run the probe behind the applied setting (or, --live, a switchback on the running workload) and check the benefit still holds",
	.usage = "[--run ID [--arm NAME]] [--reps N] [--min-effect PCT] [--yes] [--dry-run] [--progress MODE] | --live [--run APPLY_ID] [SWITCHBACK OPTIONS]",
	.group = CMD_GROUP_MEASURE,
	/* the switchback's design rows go with --live only (parse_args() says so) */
	.opts = { verify_opts, cmd_sb_design_opts },
	.answers = "0 the benefit holds, 10 it no longer holds, 11 inconclusive (--dry-run: 0)",
	.exec = verify_exec,
};
