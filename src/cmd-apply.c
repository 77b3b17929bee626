/*
 * cmd-apply.c - `swaptune apply`: change settings to a probe run's
 * recommendation or to explicit setting=value pairs, with a snapshot first,
 * every write journaled, optional boot-time files (--persist), and an
 * optional dead man's switch (--confirm-within) that puts the previous
 * settings back unless `swaptune apply --confirm` comes in time.
 *
 * The workflow is the change module's (change.h): this file parses the
 * options, gathers the settings wanted (a probe run's verdict, a file or
 * setting=value pairs), prints the plan and the outcome. `apply --watchdog`
 * is the detached process change_apply() starts for --confirm-within.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/sbrun.h"
#include "swaptune/fmt.h"
#include "swaptune/persist.h"
#include "swaptune/utc.h"

#define APPLY_SCHEMA "swaptune.apply/1"

struct apply_opts {
	long long run_id;		/* 0 = none */
	const char *baseline;
	double min_effect_pct;
	bool yes, dry_run, persist, confirm, force, min_effect_given;
	long long confirm_within_ns;	/* 0 = none */
	const char *from;
	const char *watchdog;
	int n_want;
	struct advice_setting want[SETTINGS_MAX];
};

/* What the probe run said, when the settings come from one. */
struct apply_source {
	bool used;
	bool switchback;		/* the run is a switchback's */
	char arm[VERDICT_NAME_MAX];
	char confidence[16];
	char headline[VERDICT_REASON_LEN];
};

static int add_want(struct cmd_ctx *ctx, struct apply_opts *o, const char *name,
		    const char *value)
{
	const struct setting_def *d = settings_find(name);

	if (o->n_want >= SETTINGS_MAX)
		return cmd_usage_error(ctx, &cmd_apply_entry, "more than %d settings", SETTINGS_MAX);
	/* one value per setting: "page-cluster=1 page-cluster=2" says two things */
	for (int i = 0; d && i < o->n_want; i++)
		if (settings_find(o->want[i].name) == d)
			return cmd_usage_error(ctx, &cmd_apply_entry,
					       "%s is given twice (%s=%s and %s=%s): give each setting once",
					       d->name, o->want[i].name, o->want[i].value, name, value);
	snprintf(o->want[o->n_want].name, sizeof(o->want[0].name), "%s", name);
	snprintf(o->want[o->n_want].value, sizeof(o->want[0].value), "%s", value);
	o->n_want++;
	return 0;
}

static const struct opt_spec apply_opts[] = {
	CMD_OPT_RUN("apply the recommendation of probe or switchback run ID (see swaptune recommend)",
		    struct apply_opts, run_id, OPT_COMPLETE_MEASURED_RUN),
	OPT_STRING("baseline", 0, "ARM", "with --run: judge against ARM instead of the detected "
		   "baseline", struct apply_opts, baseline, "an arm name", OPT_COMPLETE_NONE),
	CMD_OPT_MIN_EFFECT("with --run: smallest improvement worth a change (default: the run's "
			   "plan, 2); another value makes the verdict exploratory",
			   struct apply_opts, min_effect_pct),
	OPT_FLAG("force", 0, "with --run: apply a change that is exploratory, has no stored plan, or "
		 "does not clear the minimum effect", struct apply_opts, force),
	OPT_STRING("from", 0, "FILE", "apply the setting=value lines of FILE (swaptune-boot.service "
		   "uses /etc/swaptune/boot.conf)", struct apply_opts, from, "a file", OPT_COMPLETE_FILE),
	CMD_OPT_YES(struct apply_opts, yes),
	CMD_OPT_DRY_RUN("print every file and value that would be written; change nothing",
			struct apply_opts, dry_run),
	OPT_FLAG("persist", 0, "also write boot-time configuration (sysctl.d, "
		 "/etc/swaptune/boot.conf, modprobe.d)", struct apply_opts, persist),
	OPT_DURATION("confirm-within", 0, "undo by itself after DUR (e.g. 30s, 5m) unless confirmed",
		     struct apply_opts, confirm_within_ns, 1000000000LL, 0),
	OPT_FLAG("confirm", 0, "confirm the pending --confirm-within apply", struct apply_opts,
		 confirm),
	/* the detached process change_apply() starts for --confirm-within */
	{ .name = "watchdog", .arg = "RUN,DEADLINE,SESSION", .parse = opt_parse_string,
	  .off = OPT_AT(struct apply_opts, watchdog, const char *), .flags = OPT_HIDDEN },
	{ NULL },
};

static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct apply_opts *o)
{
	struct opt_given g;
	int r, first;

	memset(o, 0, sizeof(*o));
	o->min_effect_pct = 2.0;
	if ((first = cmd_parse(ctx, &cmd_apply_entry, argc, argv, o, &g)) < 0)
		return first;
	o->min_effect_given = cmd_given(&cmd_apply_entry, &g, "min-effect");
	for (int i = first; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		char name[64];

		if (!eq || eq == argv[i])
			return cmd_usage_error(ctx, &cmd_apply_entry,
					       "\"%s\" is not setting=value (e.g. page-cluster=0)", argv[i]);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - argv[i]), argv[i]);
		if ((r = add_want(ctx, o, name, eq + 1)) < 0)
			return r;
	}
	if (o->watchdog)
		return 0;
	if (o->confirm) {
		if (o->run_id || o->n_want || o->from || o->persist || o->confirm_within_ns || o->dry_run)
			return cmd_usage_error(ctx, &cmd_apply_entry,
					       "--confirm takes no settings or other options");
		return 0;
	}
	if (!!o->run_id + !!o->n_want + !!o->from > 1)
		return cmd_usage_error(ctx, &cmd_apply_entry,
				       "give either --run ID, --from FILE or setting=value pairs, not several");
	if (!o->run_id && !o->n_want && !o->from)
		return cmd_usage_error(ctx, &cmd_apply_entry,
				       "nothing to apply: give --run ID (see swaptune recommend) or setting=value");
	if ((o->baseline || o->min_effect_given || o->force) && !o->run_id)
		return cmd_usage_error(ctx, &cmd_apply_entry, "--baseline, --min-effect and --force go with --run");
	return 0;
}

/*
 * Settings from the verdict on a switchback run: its chosen arm when it
 * decided a change (its plan was fixed before the run: no --baseline or
 * --min-effect to judge it otherwise).
 */
static int want_from_switchback(struct cmd_ctx *ctx, struct apply_opts *o, struct apply_source *src)
{
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	const struct sbrun_arm *arm;
	int r;

	if (!s)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	if (o->baseline || o->min_effect_given) {
		r = cmd_usage_error(ctx, &cmd_apply_entry, "run %lld is a switchback: it is judged by its own plan (no --baseline or --min-effect)",
				    (long long)o->run_id);
		goto out;
	}
	if ((r = sbrun_load(&ctx->store, &ctx->host, o->run_id, s, &ctx->err)) < 0)
		goto out;
	if (strcmp(sbrun_decision_name(s), "change") || s->res.chosen <= 0) {
		r = err_set_exit(&ctx->err, -EAGAIN, ST_EXIT_RUNTIME,
				 "switchback run %lld recommends no change (%s): %s; nothing applied",
				 (long long)o->run_id, sbrun_decision_name(s),
				 s->judged && s->res.n_reasons ? s->res.reasons[0] : "fewer than 2 complete blocks");
		goto out;
	}
	arm = &s->arms[s->res.chosen];
	for (int i = 0; i < arm->n_settings; i++)
		if ((r = add_want(ctx, o, arm->set[i].name, arm->set[i].value)) < 0)
			goto out;
	src->used = true;
	src->switchback = true;
	snprintf(src->arm, sizeof(src->arm), "%s", arm->name);
	snprintf(src->confidence, sizeof(src->confidence), "exact");
	snprintf(src->headline, sizeof(src->headline), "%s", s->res.reasons[0]);
	r = 0;
out:
	sbrun_stored_free(s);
	free(s);
	return r;
}

/* Settings from the verdict on a probe run (or a switchback run). */
static int want_from_run(struct cmd_ctx *ctx, struct apply_opts *o, struct apply_source *src)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct judgement j;
	struct advice_pool pool;
	const struct advice_arm *arm;
	bool confirmed;
	int r;

	if (!run || !v) {
		r = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	{
		struct store_run ri;
		bool sb = store_run_get(&ctx->store, o->run_id, &ri, NULL) == 0 &&
			  !strcmp(ri.kind, SBRUN_KIND);

		store_run_free(&ri);
		if (sb) {
			r = want_from_switchback(ctx, o, src);
			goto out;
		}
	}
	r = advice_load_run(&ctx->store, &ctx->host, o->run_id, o->baseline, run, &ctx->err);
	if (r == 0 && !strcmp(run->status, "imported"))
		r = err_set_exit(&ctx->err, -EINVAL, ST_EXIT_USAGE,
				 "run %lld is history imported from another host: swaptune never applies another "
				 "host's verdict here (measure this host: swaptune verify --run %lld); nothing changed",
				 (long long)o->run_id, (long long)o->run_id);
	if (r < 0)
		goto out;
	/* the earlier runs of the run's recipe count (advice_judge_pooled()) */
	r = advice_judge_pooled(&ctx->store, &ctx->host, run, o->min_effect_given ? o->min_effect_pct : -1,
				&(struct advice_verdict){ v, &j, &pool }, &ctx->err);
	if (r < 0) {
		err_prefix(&ctx->err, "probe run %lld", (long long)o->run_id);
		goto out;
	}
	if (v->kind != VERDICT_CHANGE) {
		r = err_set_exit(&ctx->err, -EAGAIN, ST_EXIT_RUNTIME,
				 "probe run %lld recommends no change (%s): %s; nothing applied",
				 (long long)o->run_id, verdict_kind_name(v->kind),
				 v->n_reasons ? v->reasons[0] : "no reason given");
		goto out;
	}
	/* a change away from a baseline that fails credibly more often needs no speed gain */
	confirmed = pool.applied ? pool.rep.path == VERDICT2_PATH_FAILURE ||
		    pool.rep.arms[v->chosen].ci_low_pct >=
		    (o->min_effect_given ? o->min_effect_pct : j.plan.min_effect_pct) :
		    j.r2.path == VERDICT2_PATH_FAILURE || j.r2.arms[v->chosen].min_effect_confirmed;
	/* the plan fixed before the data is what the error rates hold for */
	if (!o->force && (j.exploratory || !j.plan.recorded || !confirmed)) {
		r = err_set_exit(&ctx->err, -EAGAIN, ST_EXIT_RUNTIME,
				 "probe run %lld: the change to %s is %s; nothing applied (--force applies it anyway)",
				 (long long)o->run_id, run->arms[v->chosen].name,
				 j.exploratory ? "exploratory (judged with values other than the run's plan)" :
				 !j.plan.recorded ? "judged without a plan stored with the run" :
				 "significant but its interval does not clear the minimum effect");
		goto out;
	}
	arm = &run->arms[v->chosen];
	if (arm->n_settings == 0) {
		r = err_set_exit(&ctx->err, -EINVAL, ST_EXIT_RUNTIME,
				 "arm %s of probe run %lld has no settings to apply", arm->name,
				 (long long)o->run_id);
		goto out;
	}
	for (int i = 0; i < arm->n_settings; i++) {
		if (!settings_find(arm->settings[i].name)) {
			/* e.g. the bypass emulated by zram behind zswap: "swap": "zram" */
			r = err_set_exit(&ctx->err, -EINVAL, ST_EXIT_RUNTIME,
					 "arm %s of probe run %lld has %s=%s, which is how its swap was set up,"
					 " not a setting swaptune can apply: set that up yourself, or apply"
					 " page-cluster=0 (the other bypass emulation)", arm->name,
					 (long long)o->run_id, arm->settings[i].name, arm->settings[i].value);
			goto out;
		}
		if ((r = add_want(ctx, o, arm->settings[i].name, arm->settings[i].value)) < 0)
			goto out;
	}
	src->used = true;
	snprintf(src->arm, sizeof(src->arm), "%s", arm->name);
	snprintf(src->confidence, sizeof(src->confidence), "%s",
		 verdict_confidence_name(v->confidence));
	snprintf(src->headline, sizeof(src->headline), "%s", v->n_reasons ? v->reasons[0] : "");
out:
	advice_run_free(run);
	free(run);
	free(v);
	return r;
}

static int want_from_file(struct cmd_ctx *ctx, struct apply_opts *o)
{
	char rel[PATH_MAX], buf[PERSIST_CONTENT_MAX];
	struct persist_kv kv[SETTINGS_MAX];
	int n = 0, r;

	snprintf(rel, sizeof(rel), "%s", o->from);
	r = persist_read_file(&ctx->host, rel[0] == '/' ? rel + 1 : rel, buf, sizeof(buf), &ctx->err);
	if (r == -ENOENT)
		return err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE, "cannot read %s%s%s: no such file",
				    ctx->host.root, rel[0] == '/' ? "" : "/", rel);
	if (r < 0)
		return r;
	r = persist_parse_boot(buf, o->from, kv, SETTINGS_MAX, &n, &ctx->err);
	if (r < 0)
		return r;
	for (int i = 0; i < n; i++)
		if ((r = add_want(ctx, o, kv[i].name, kv[i].value)) < 0)
			return r;
	return 0;
}

static void print_file(FILE *out, const char *root, const struct persist_file *f,
		       const char *verb)
{
	if (f->remove) {
		fprintf(out, "%s remove %s/%s\n", verb, root, f->rel);
		return;
	}
	fprintf(out, "%s write %s/%s:\n", verb, root, f->rel);
	for (const char *p = f->content; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(out, "    | %.*s\n", len, p);
		p += len + (nl ? 1 : 0);
	}
}

static void print_conflicts(FILE *out, const struct persist_plan *p)
{
	for (int i = 0; i < p->n_conflicts; i++) {
		const struct persist_conflict *c = &p->conflicts[i];
		char where[PATH_MAX + 16];

		if (c->line)
			snprintf(where, sizeof(where), "%s:%d", c->where, c->line);
		else
			snprintf(where, sizeof(where), "%s", c->where);
		if (c->ineffective)
			fprintf(out, "note: %s sets %s = %s, which has no effect: zswap is built in\n",
				where, c->key, c->value);
		else if (c->wins)
			fprintf(out, "warning: %s sets %s = %s and is read after swaptune's file, so it wins at boot;"
				" swaptune does not edit it: change it yourself\n", where, c->key, c->value);
		else
			fprintf(out, "note: %s sets %s = %s; swaptune's setting is applied after it at boot\n",
				where, c->key, c->value);
	}
	for (int i = 0; i < p->n_notes; i++)
		fprintf(out, "note: %s\n", p->notes[i]);
}

static cJSON *plan_json(const struct host *h, const struct persist_plan *p)
{
	cJSON *o = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(o, "files");
	cJSON *conf = cJSON_AddArrayToObject(o, "conflicts"), *notes = cJSON_AddArrayToObject(o, "notes");

	change_files_json(h, p, files);
	for (int i = 0; i < p->n_conflicts; i++) {
		const struct persist_conflict *c = &p->conflicts[i];
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "setting", c->setting);
		cJSON_AddStringToObject(x, "where", c->where);
		cJSON_AddNumberToObject(x, "line", c->line);
		cJSON_AddStringToObject(x, "key", c->key);
		cJSON_AddStringToObject(x, "value", c->value);
		cJSON_AddBoolToObject(x, "wins_at_boot", c->wins);
		cJSON_AddBoolToObject(x, "ineffective", c->ineffective);
		cJSON_AddItemToArray(conf, x);
	}
	for (int i = 0; i < p->n_notes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(p->notes[i]));
	cJSON_AddBoolToObject(o, "zswap_builtin", p->zswap_builtin);
	if (p->cmdline_hint[0])
		cJSON_AddStringToObject(o, "cmdline_hint", p->cmdline_hint);
	else
		cJSON_AddNullToObject(o, "cmdline_hint");
	return o;
}

static bool plan_changes(const struct persist_plan *p)
{
	for (int i = 0; i < p->n_files; i++)
		if (p->files[i].changed)
			return true;
	return false;
}

/* ---- apply --watchdog, apply --confirm ---- */

/* In the watchdog: RUN,DEADLINE,SESSION as spawned by change_apply(). */
static int run_watchdog(struct cmd_ctx *ctx, const char *arg)
{
	long long run_id;
	double deadline;
	char session[48];

	if (sscanf(arg, "%lld,%lf,%47s", &run_id, &deadline, session) != 3)
		return cmd_usage_error(ctx, &cmd_apply_entry, "--watchdog: bad argument");
	return change_watchdog(&ctx->store, &ctx->host, run_id, deadline, session, &ctx->err);
}

static int do_confirm(struct cmd_ctx *ctx)
{
	struct change_confirmed c;
	cJSON *doc = NULL, *changes = NULL;
	int r;

	r = change_confirm(&ctx->store, &ctx->host, &c, &ctx->err);
	if (r < 0) {
		free(c.rows);
		return r;
	}
	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", APPLY_SCHEMA);
		cJSON_AddStringToObject(doc, "action", "confirm");
		cJSON_AddNumberToObject(doc, "run_id", (double)c.run_id);
		changes = cJSON_AddArrayToObject(doc, "changes");
		cJSON_AddNumberToObject(doc, "watchdog_pid", c.watchdog_pid);
		cJSON_AddBoolToObject(doc, "watchdog_stopped", c.watchdog_stopped);
	} else {
		fprintf(ctx->out, "Confirmed apply run %lld:\n", (long long)c.run_id);
	}
	for (int i = 0; i < c.n; i++) {
		const struct store_change *x = &c.rows[i];

		if (doc) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "kind", x->kind);
			cJSON_AddStringToObject(o, "name", x->name);
			if (!strcmp(x->kind, "setting")) {
				cJSON_AddStringToObject(o, "old", x->old_value);
				cJSON_AddStringToObject(o, "new", x->new_value);
			}
			cJSON_AddItemToArray(changes, o);
		} else if (!strcmp(x->kind, "setting")) {
			fprintf(ctx->out, "  %s: %s -> %s stays\n", x->name, x->has_old ? x->old_value : "?",
				x->has_new ? x->new_value : "?");
		} else if (!strcmp(x->kind, PERSIST_KIND_FILE)) {
			fprintf(ctx->out, "  %s/%s stays\n", ctx->host.root, x->name);
		}
	}
	free(c.rows);
	if (doc)
		return cmd_print_json(ctx, doc);
	fprintf(ctx->out, "Watchdog pid %d %s.\n", c.watchdog_pid,
		c.watchdog_stopped ? "stopped" : "was already gone");
	return 0;
}

/* ---- apply ---- */

/* The settings wanted, their diff against the host, and the boot-time plan. */
static int gather(struct cmd_ctx *ctx, struct apply_opts *o, struct apply_source *src,
		  struct change_setting *ch, struct persist_plan **plan)
{
	struct persist_kv kv[SETTINGS_MAX];
	int r;

	if (o->run_id && (r = want_from_run(ctx, o, src)) < 0)
		return r;
	if (o->from && (r = want_from_file(ctx, o)) < 0)
		return r;
	if ((r = change_diff(&ctx->host, o->want, o->n_want, ch, &ctx->err)) < 0) {
		if (ctx->err.code == -EINVAL && !ctx->err.exit)
			ctx->err.exit = ST_EXIT_USAGE;
		return r;
	}
	if (!o->persist)
		return 0;
	*plan = calloc(1, sizeof(**plan));
	if (!*plan)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	for (int i = 0; i < o->n_want; i++) {
		snprintf(kv[i].name, sizeof(kv[i].name), "%s", ch[i].name);
		snprintf(kv[i].value, sizeof(kv[i].value), "%s", ch[i].new_value);
	}
	return persist_plan(&ctx->host, kv, o->n_want, *plan, &ctx->err);
}

static cJSON *plan_doc(struct cmd_ctx *ctx, const struct apply_opts *o,
		       const struct apply_source *src, const struct change_setting *ch,
		       const struct persist_plan *plan)
{
	cJSON *doc = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(doc, "schema", APPLY_SCHEMA);
	cJSON_AddStringToObject(doc, "action", o->dry_run ? "dry-run" : "apply");
	if (src->used) {
		cJSON *s = cJSON_AddObjectToObject(doc, "source");

		cJSON_AddNumberToObject(s, "run_id", (double)o->run_id);
		cJSON_AddStringToObject(s, "arm", src->arm);
		cJSON_AddStringToObject(s, "confidence", src->confidence);
		cJSON_AddStringToObject(s, "reason", src->headline);
	} else {
		cJSON_AddNullToObject(doc, "source");
	}
	arr = cJSON_AddArrayToObject(doc, "changes");
	for (int i = 0; i < o->n_want; i++)
		if (ch[i].changed)
			cJSON_AddItemToArray(arr, change_setting_json(&ch[i]));
	arr = cJSON_AddArrayToObject(doc, "unchanged");
	for (int i = 0; i < o->n_want; i++)
		if (!ch[i].changed)
			cJSON_AddItemToArray(arr, change_setting_json(&ch[i]));
	if (plan)
		cJSON_AddItemToObject(doc, "persist", plan_json(&ctx->host, plan));
	else
		cJSON_AddNullToObject(doc, "persist");
	return doc;
}

static void print_plan(struct cmd_ctx *ctx, const struct apply_opts *o,
		       const struct apply_source *src, const struct change_setting *ch,
		       const struct persist_plan *plan)
{
	if (src->used)
		fprintf(ctx->out, "%s run %lld recommends %s: %s\n", src->switchback ? "Switchback" : "Probe",
			(long long)o->run_id, src->arm, src->headline);
	for (int i = 0; i < o->n_want; i++) {
		if (!ch[i].changed)
			fprintf(ctx->out, "%s: %s (unchanged)\n", ch[i].name, ch[i].old_value);
		else if (o->dry_run)
			fprintf(ctx->out, "%s: %s -> %s: would write \"%s\" to %s\n", ch[i].name,
				ch[i].old_value, ch[i].new_value, ch[i].new_value, ch[i].path);
		else
			fprintf(ctx->out, "%s: %s -> %s\n", ch[i].name, ch[i].old_value,
				ch[i].new_value);
	}
	if (!plan)
		return;
	for (int i = 0; i < plan->n_files; i++)
		if (plan->files[i].changed)
			print_file(ctx->out, ctx->host.root, &plan->files[i],
				   o->dry_run ? "would" : "will");
	if (!plan_changes(plan))
		fprintf(ctx->out, "boot-time files already hold these settings\n");
	print_conflicts(ctx->out, plan);
}

/* Nothing to change, or --dry-run: the plan is all there is to say. */
static int print_unapplied(struct cmd_ctx *ctx, cJSON *doc, bool nothing)
{
	if (doc) {
		cJSON_AddNullToObject(doc, "run_id");
		cJSON_AddNullToObject(doc, "snapshot_id");
		cJSON_AddNullToObject(doc, "confirm");
		return cmd_print_json(ctx, doc);
	}
	fprintf(ctx->out, "%s\n", nothing ? "Nothing to change." : "Nothing changed (--dry-run).");
	return 0;
}

static int print_applied(struct cmd_ctx *ctx, cJSON *doc, const struct change_apply *a)
{
	char iso[40];

	if (doc) {
		cJSON_AddNumberToObject(doc, "run_id", (double)a->run_id);
		cJSON_AddNumberToObject(doc, "snapshot_id", (double)a->snap_id);
		if (a->confirm_within_ns) {
			cJSON *c = cJSON_AddObjectToObject(doc, "confirm");

			cJSON_AddNumberToObject(c, "within_s", (double)a->confirm_within_ns / 1e9);
			cJSON_AddStringToObject(c, "deadline", utc_iso(a->deadline, iso, sizeof(iso)));
			cJSON_AddNumberToObject(c, "watchdog_pid", a->watchdog_pid);
		} else {
			cJSON_AddNullToObject(doc, "confirm");
		}
		return cmd_print_json(ctx, doc);
	}
	fprintf(ctx->out, "Applied as run %lld; snapshot %lld holds the previous settings"
		" (swaptune rollback takes them back).\n", (long long)a->run_id, (long long)a->snap_id);
	if (a->n_files)
		fprintf(ctx->out, "Wrote %d boot-time file%s.\n", a->n_files, a->n_files == 1 ? "" : "s");
	if (a->confirm_within_ns)
		fprintf(ctx->out, "Confirm with `swaptune apply --confirm` before %s (%.0f s), or the"
			" previous settings come back by themselves (watchdog pid %d).\n",
			utc_iso(a->deadline, iso, sizeof(iso)),
			(double)a->confirm_within_ns / 1e9, (int)a->watchdog_pid);
	return 0;
}

static int apply_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct apply_opts o;
	struct apply_source src = { 0 };
	struct change_setting ch[SETTINGS_MAX];
	struct persist_plan *plan = NULL;
	struct change_apply a = { 0 };
	cJSON *doc = NULL;
	int r, n_changed = 0, lockfd = -1;
	bool nothing;

	if ((r = parse_args(ctx, argc, argv, &o)) < 0)
		return r;
	if (o.watchdog)
		return run_watchdog(ctx, o.watchdog);
	if ((r = change_settle_confirms(&ctx->store, &ctx->err)) < 0)
		return r;
	if (o.confirm) {
		if ((r = change_need_root(&ctx->host, "apply", &ctx->err)) < 0)
			return r;
		return do_confirm(ctx);
	}
	if ((r = gather(ctx, &o, &src, ch, &plan)) < 0)
		goto out;
	for (int i = 0; i < o.n_want; i++)
		n_changed += ch[i].changed;
	if (ctx->json)
		doc = plan_doc(ctx, &o, &src, ch, plan);
	else
		print_plan(ctx, &o, &src, ch, plan);
	nothing = n_changed == 0 && !(plan && plan_changes(plan));
	if (nothing || o.dry_run) {
		r = print_unapplied(ctx, doc, nothing);
		doc = NULL;
		goto out;
	}
	if ((r = change_lock(&ctx->store, &ctx->host,
			     &(struct change_guard){ .what = "apply", .db_path = ctx->db_path,
						     .refuse_pending = true },
			     &lockfd, &ctx->err)) < 0)
		goto out;
	fflush(ctx->out);
	if ((r = change_ask("apply these changes", o.yes, &ctx->err)) < 0)
		goto out;
	a.ch = ch;
	a.n = o.n_want;
	a.plan = plan;
	a.source_run = src.used ? o.run_id : 0;
	a.arm = src.arm;
	a.confirm_within_ns = o.confirm_within_ns;
	a.db_path = ctx->db_path;
	r = change_apply(&ctx->store, &ctx->host, &a, &ctx->err);
	if (a.undo_warning[0])
		fprintf(stderr, "swaptune: warning: could not undo everything: %s\n",
			fmt_printable(a.undo_warning));
	if (r < 0)
		goto out;
	r = print_applied(ctx, doc, &a);
	doc = NULL;
out:
	change_unlock(lockfd);
	cJSON_Delete(doc);
	free(plan);
	return r;
}

const struct cmd_entry cmd_apply_entry = {
	.name = "apply",
	.summary = "apply a recommendation or settings, with a snapshot to roll back to",
	.usage = "[--run ID | --from FILE | SETTING=VALUE...] [--yes] [--dry-run] [--persist] "
		 "[--confirm-within DUR] | --confirm",
	.group = CMD_GROUP_CHANGE,
	.opts = { apply_opts },
	.args = "SETTING=VALUE...",
	.args_help = "settings of the registry to write, e.g. page-cluster=0 (see swaptune status)",
	.args_complete = OPT_COMPLETE_SETTING,
	.flags = CMD_WRAP_HUMAN,
	.exec = apply_exec,
};
