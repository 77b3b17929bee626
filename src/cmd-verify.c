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
 * `verify --live` re-checks an applied setting on the host's own running
 * workload instead: the apply checked is the newest of this machine still
 * in effect, or awaiting its confirmation (the light gate of a fleet
 * rollout runs it between `apply --confirm-within` and `apply --confirm`);
 * its journal rows say which settings it changed and from what. A
 * switchback (sbrun.h) then alternates "before" (the old values, the
 * baseline) and "applied" (the new ones) under the workload. The host ends
 * at the applied values.
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

#include "swaptune/advice.h"
#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/probe.h"
#include "swaptune/recipe.h"
#include "swaptune/sbrun-cli.h"
#include "swaptune/stop.h"
#include "swaptune/utc.h"

#define VERIFY_SCHEMA "swaptune.verify/2"

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
		NUM("p_one_sided", a->p_one_sided);
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
		run->arms[v->baseline].name, a->p_one_sided < 0.001 ? "< " : "= ",
		a->p_one_sided < 0.001 ? 0.001 : a->p_one_sided, verdict_arm_status_name(a->status),
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

/* ---- verify --live: a switchback on the running workload ---- */

struct live_target {
	int64_t apply_run;
	char status[24];
	int64_t source_run;		/* the probe or switchback run it came from, 0 = none */
};

/* The apply to check, and its arms from its journal rows: "before" and "applied". */
static int live_arms(struct cmd_ctx *ctx, struct live_target *t, struct sbrun_config *c)
{
	struct store_change *rows = NULL;
	struct store_run ri;
	int n = 0, r;

	if (!t->apply_run) {
		r = store_sb_apply_target(&ctx->store, &t->apply_run, t->status, sizeof(t->status), &ctx->err);
		if (r < 0)
			return r;
		if (r == 0)
			return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_RUNTIME,
					    "nothing to verify: no apply of this machine is in effect or awaiting confirmation");
	}
	if ((r = store_run_get(&ctx->store, t->apply_run, &ri, &ctx->err)) < 0)
		return r;
	if (strcmp(ri.kind, "apply")) {
		store_run_free(&ri);
		return err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE, "run %lld is a %s run, not an apply",
				    (long long)t->apply_run, ri.kind);
	}
	if (!t->status[0])
		snprintf(t->status, sizeof(t->status), "%s", ri.status);
	t->source_run = ri.p.source_run;
	store_run_free(&ri);
	if ((r = store_changes_of_run(&ctx->store, t->apply_run, &rows, &n, &ctx->err)) < 0)
		return r;
	memset(&c->arms[0], 0, sizeof(c->arms[0]) * 2);
	snprintf(c->arms[0].name, sizeof(c->arms[0].name), "before");
	snprintf(c->arms[1].name, sizeof(c->arms[1].name), "applied");
	for (int i = 0; i < n; i++) {
		const struct setting_def *d = settings_find(rows[i].name);
		char old[SETTING_VALUE_MAX], neu[SETTING_VALUE_MAX];

		/* values read back go through the registry as user input does */
		if (strcmp(rows[i].kind, "setting") || !d || !rows[i].has_old || !rows[i].has_new ||
		    settings_normalize(&ctx->host, d, rows[i].old_value, old, sizeof(old), NULL) < 0 ||
		    settings_normalize(&ctx->host, d, rows[i].new_value, neu, sizeof(neu), NULL) < 0 ||
		    c->arms[0].nset >= PROBE_ARM_SET_MAX)
			continue;
		snprintf(c->arms[0].set[c->arms[0].nset].name, sizeof(c->arms[0].set[0].name), "%s", d->name);
		snprintf(c->arms[0].set[c->arms[0].nset++].value, sizeof(c->arms[0].set[0].value), "%s", old);
		snprintf(c->arms[1].set[c->arms[1].nset].name, sizeof(c->arms[1].set[0].name), "%s", d->name);
		snprintf(c->arms[1].set[c->arms[1].nset++].value, sizeof(c->arms[1].set[0].value), "%s", neu);
	}
	free(rows);
	if (!c->arms[0].nset)
		return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_RUNTIME,
				    "apply run %lld changed no setting: nothing to verify live", (long long)t->apply_run);
	c->narms = 2;
	c->origin = "verify-live";
	c->verify_of = t->apply_run;
	return 0;
}

/* The host must hold the applied values, and a pending apply must outlive the switchback. */
static int live_check(struct cmd_ctx *ctx, const struct live_target *t, const struct sbrun_config *c,
		      const struct sbrun_plan *p)
{
	struct change_pending pend;
	int r;

	for (int i = 0; i < c->arms[1].nset; i++) {
		const struct setting_def *d = settings_find(c->arms[1].set[i].name);
		char now[SETTING_VALUE_MAX];

		if (!d || settings_read(&ctx->host, d, now, sizeof(now), NULL) < 0 ||
		    !settings_equal(d, now, c->arms[1].set[i].value))
			return err_set_exit(&ctx->err, -ESTALE, ST_EXIT_RUNTIME,
					    "apply run %lld set %s=%s, but the host has %s now: not what was applied, nothing to verify",
					    (long long)t->apply_run, c->arms[1].set[i].name, c->arms[1].set[i].value, now);
	}
	r = change_pending_confirm(&ctx->store, &ctx->host, &pend, &ctx->err);
	if (r < 0)
		return r;
	if (r == 1 && pend.run_id == t->apply_run && pend.deadline > 0 &&
	    pend.deadline < utc_now() + p->budget.duration_s + 60)
		return err_set_exit(&ctx->err, -ETIME, ST_EXIT_USAGE,
				    "apply run %lld reverts by itself in %.0f s, before the switchback (%.0f s) would end: apply with a longer --confirm-within, or shorten the switchback",
				    (long long)t->apply_run, pend.deadline - utc_now(), p->budget.duration_s);
	return 0;
}

static const char *live_result(const struct sbrun_stored *s, const struct sbrun_result *r, int *status)
{
	const char *d = sbrun_decision_name(s);
	unsigned failed[2] = { 0, 0 };

	/* ended by failed windows: the applied setting's failing more is harm shown on the host */
	for (unsigned i = 0; i < s->n_windows; i++)
		if (s->w[i].outcome == SB_WIN_FAILED && s->w[i].arm < 2)
			failed[s->w[i].arm]++;
	if (!strcmp(r->status, "stopped") && failed[1] > failed[0]) {
		*status = ST_EXIT_ANSWER_CHANGE;
		return "no-longer-holds";
	}

	if (!strcmp(d, "change")) {
		*status = ST_EXIT_OK;
		return "holds";
	}
	if (!strcmp(d, "keep")) {
		*status = ST_EXIT_ANSWER_CHANGE;
		return "no-longer-holds";
	}
	*status = ST_EXIT_ANSWER_INCONCLUSIVE;
	return "inconclusive";
}

static const char *live_words(const char *res)
{
	if (!strcmp(res, "holds"))
		return "the benefit holds on this host's own workload";
	if (!strcmp(res, "no-longer-holds"))
		return "the benefit does not hold on this host's own workload: no gain of the minimum effect, or a guardrail shows harm (consider swaptune rollback)";
	return "not enough evidence either way on this host's own workload";
}

static int live_print(struct cmd_ctx *ctx, const struct live_target *t, const struct sbrun_result *r,
		      const struct sbrun_stored *s, const char *res)
{
	if (ctx->json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "schema", VERIFY_SCHEMA);
		cJSON_AddBoolToObject(doc, "dry_run", false);
		cJSON_AddBoolToObject(doc, "live", true);
		if (t->source_run)
			cJSON_AddNumberToObject(doc, "probe_run", (double)t->source_run);
		else
			cJSON_AddNullToObject(doc, "probe_run");
		cJSON_AddNumberToObject(doc, "apply_run", (double)t->apply_run);
		cJSON_AddNumberToObject(doc, "switchback_run", (double)s->run_id);
		cJSON_AddStringToObject(doc, "arm", "applied");
		cJSON_AddStringToObject(doc, "baseline", "before");
		cJSON_AddStringToObject(doc, "result", res);
		cJSON_AddBoolToObject(doc, "holds", !strcmp(res, "holds"));
		cJSON_AddStringToObject(doc, "message", live_words(res));
		cJSON_AddItemToObject(doc, "switchback", sbrun_result_json(r, s));
		return cmd_print_json(ctx, doc);
	}
	sbrun_verdict_print(ctx->out, s);
	fprintf(ctx->out, "Result: %s.\n", live_words(res));
	return 0;
}

/*
 * verify --live: parse_args() read the command line (verify's table, and
 * sbrun_design_opts into a, a->c the config); apply_run is --run (0 = the
 * newest apply in effect or pending).
 */
static int verify_live(struct cmd_ctx *ctx, struct sbrun_args *a, struct sbrun_cli *cli,
		       int64_t apply_run)
{
	struct sbrun_config *c = a->c;
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_result *r = calloc(1, sizeof(*r));
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct live_target t = { .apply_run = apply_run };
	int rc, status = 0;

	if (!p || !r || !s) {
		rc = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = sbrun_args_finish(c, a, &ctx->err)) < 0 || (rc = live_arms(ctx, &t, c)) < 0 ||
	    (rc = sbrun_plan(&ctx->host, c, p, &ctx->err)) < 0)
		goto out;
	if (!ctx->json)
		fprintf(ctx->out, "Verifying apply run %lld (%s) live: %s against its previous values, on the running workload.\n",
			(long long)t.apply_run, t.status, "the applied settings");
	if ((rc = sbrun_cli_plan_only(ctx, c, p, cli->dry, "verify --live switches")) != 0) {
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	if ((rc = live_check(ctx, &t, c, p)) < 0)
		goto out;
	rc = sbrun_cli_execute(ctx, "verify", c, p, cli, &(struct sbrun_ran){ r, s });
	if (rc == 0 && !strcmp(r->status, "stopped"))
		sbrun_cli_say_stopped("verify --live", r->stop_reason);
	if (rc == 0 && s->w) {
		const char *res = live_result(s, r, &status);

		rc = live_print(ctx, &t, r, s, res);
		if (rc == 0)
			rc = status;
	} else if (rc > 128) {
		rc = err_set_exit(&ctx->err, -EINTR, ST_EXIT_RUNTIME,
				  "verify --live stopped by signal %d; the settings were restored", rc - 128);
	}
out:
	if (r)
		sbrun_result_free(r);
	if (s)
		sbrun_stored_free(s);
	free(p);
	free(r);
	free(s);
	return rc;
}

/* verify --live: no probe to repeat; the shared options go to the switchback (sa, cli). */
static int live_args(struct cmd_ctx *ctx, const struct verify_opts *o, struct sbrun_args *sa,
		     struct sbrun_cli *cli)
{
	const char *probe_only = o->arm ? "--arm" : o->reps ? "--reps" : o->scratch ? "--scratch-dir" : NULL;

	if (probe_only)
		return cmd_usage_error(ctx, &cmd_verify_entry, "%s re-runs a probe: it does not go with --live",
				       probe_only);
	cli->yes = o->yes;
	cli->dry = o->dry;
	cli->progress = o->progress;
	if (o->min_effect_given)
		sa->c->min_effect = o->min_effect_pct;
	return 0;
}

/* Both tables: verify's own into o, the switchback's design rows into sa (--live only). */
static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct verify_opts *o,
		      struct sbrun_args *sa, struct sbrun_cli *cli)
{
	void *const args[OPT_TABLES_MAX] = { o, sa };
	struct opt_given g;
	int r;

	memset(o, 0, sizeof(*o));
	if ((r = cmd_parse_sets(ctx, &cmd_verify_entry, argc, argv, args, &g)) < 0)
		return r;
	o->min_effect_given = cmd_given(&cmd_verify_entry, &g, "min-effect");
	if (o->live)
		return live_args(ctx, o, sa, cli);
	for (size_t i = 0; sbrun_design_opts[i].name; i++)
		if (g.given[1] & 1ULL << i)
			return cmd_usage_error(ctx, &cmd_verify_entry, "--%s goes with --live",
					       sbrun_design_opts[i].name);
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
				     o->min_effect_given ? o->min_effect_pct : -1,
				     &(struct advice_verdict){ &w->vthen, &w->jthen, NULL }, &ctx->err)) < 0)
		return r;
	if (!t->arm[0] && w->vthen.kind == VERDICT_CHANGE)
		snprintf(t->arm, sizeof(t->arm), "%s", w->then.arms[w->vthen.chosen].name);
	w->a_then = t->arm[0] ? arm_index(&w->then, t->arm) : -1;
	if (t->arm[0] && w->a_then < 0)
		return err_set_exit(&ctx->err, -EBADMSG, ST_EXIT_RUNTIME, "probe run %lld has no arm %s",
				    (long long)t->probe_run, t->arm);
	if ((r = recipe_read(&ctx->host, &w->then, &w->rec, &ctx->err)) < 0)
		return r;
	/*
	 * A fresh seed: the re-run is another replication of the recipe, with
	 * its own randomised order (the stored one only reproduces that run;
	 * re-runs on one schedule would repeat one schedule's luck).
	 */
	probe_seed_set(&w->rec.c, probe_seed_random());
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
				     o->min_effect_given ? o->min_effect_pct : -1,
				     &(struct advice_verdict){ &w->vnow, &w->jnow, &w->pool }, &ctx->err)) < 0)
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
	struct sbrun_args sa;
	struct sbrun_cli cli = { 0 };
	int r, lockfd = -1;

	if (!w || !sc) {
		free(w);
		free(sc);
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	}
	sbrun_args_init(sc, &sa, cmd_verify_entry.name, argc, argv);
	r = parse_args(ctx, argc, argv, &o, &sa, &cli);
	/* --live: a switchback on the running workload instead of the probe */
	if (r == 0 && o.live)
		r = verify_live(ctx, &sa, &cli, o.run);
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
	if ((r = change_lock(&ctx->store, &ctx->host,
			     &(struct change_guard){ .what = "verify", .db_path = ctx->db_path },
			     &lockfd, &ctx->err)) < 0)
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
	advice_run_free(&w->then);
	advice_run_free(&w->now);
	free(w);
	return r;
}

const struct cmd_entry cmd_verify_entry = {
	.name = "verify",
	.summary = "re-run the probe behind the applied setting (or, --live, a switchback on the running workload) and check the benefit still holds",
	.usage = "[--run ID [--arm NAME]] [--reps N] [--min-effect PCT] [--yes] [--dry-run] [--progress MODE] | --live [--run APPLY_ID] [SWITCHBACK OPTIONS]",
	.group = CMD_GROUP_MEASURE,
	/* the switchback's design rows go with --live only (parse_args() says so) */
	.opts = { verify_opts, sbrun_design_opts },
	.answers = "0 the benefit holds, 10 it no longer holds, 11 inconclusive (--dry-run: 0)",
	.flags = CMD_WRAP_HUMAN,
	.exec = verify_exec,
};
