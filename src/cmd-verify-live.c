/*
 * cmd-verify-live.c - `swaptune verify --live`: re-check an applied setting
 * on the host's own running workload instead of a synthetic probe. The
 * apply checked is the newest of this machine still in effect, or awaiting
 * its confirmation (the light gate of a fleet rollout runs it between
 * `apply --confirm-within` and `apply --confirm`); its journal rows say
 * which settings it changed and from what. A switchback (sbrun.h) then
 * alternates "before" (the old values, the baseline) and "applied" (the new
 * ones) under the workload, and its verdict answers as verify does: 0 the
 * benefit holds (a change to "applied" is shown), 10 it no longer holds
 * ("before" is kept: no gain of the minimum effect, or a guardrail shows
 * harm), 11 inconclusive. The host ends at the applied values.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-switchback.h"
#include "swaptune/change.h"
#include "swaptune/utc.h"

#define VERIFY_SCHEMA "swaptune.verify/1"

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
	{
		cJSON *par = ri.params ? cJSON_Parse(ri.params) : NULL, *src = cJSON_GetObjectItem(par, "source_run");

		t->source_run = cJSON_IsNumber(src) ? (int64_t)src->valuedouble : 0;
		cJSON_Delete(par);
	}
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
		cJSON_AddItemToObject(doc, "switchback", cmd_sb_result_json(r, s));
		return cmd_print_json(ctx, doc);
	}
	sbrun_verdict_print(ctx->out, s);
	fprintf(ctx->out, "Result: %s.\n", live_words(res));
	return 0;
}

int cmd_verify_live(struct cmd_ctx *ctx, struct sb_args *a, int64_t apply_run)
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
	if ((rc = cmd_sb_finish(ctx, &cmd_verify_entry, c, a)) < 0 || (rc = live_arms(ctx, &t, c)) < 0 ||
	    (rc = sbrun_plan(&ctx->host, c, p, &ctx->err)) < 0)
		goto out;
	if (!ctx->json)
		fprintf(ctx->out, "Verifying apply run %lld (%s) live: %s against its previous values, on the running workload.\n",
			(long long)t.apply_run, t.status, "the applied settings");
	if ((rc = cmd_sb_plan_only(ctx, c, p, a->dry, "verify --live switches")) != 0) {
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	if ((rc = live_check(ctx, &t, c, p)) < 0)
		goto out;
	rc = cmd_sb_execute(ctx, "verify", c, p, a, r, s);
	if (rc == 0 && !strcmp(r->status, "stopped"))
		cmd_sb_say_stopped("verify --live", r->stop_reason);
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
