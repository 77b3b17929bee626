/*
 * cmd-fleet.c - pooled advice over the probe runs of many hosts merged into
 * one store by `swaptune import`: `swaptune fleet-report` (every group of
 * like hosts with its pooled effects) and `swaptune fleet-advise` (advice for
 * a host never probed, from the probes of hosts like it). The model is in
 * src/fleet.c; this file reads the store and this host, and prints.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/fmt.h"
#include "swaptune/facts.h"
#include "swaptune/fleet.h"

#define FLEET_REPORT_SCHEMA "swaptune.fleet-report/1"
#define FLEET_ADVISE_SCHEMA "swaptune.fleet-advise/1"

static cJSON *pool_json(const struct fleet_arm_pool *a)
{
	cJSON *o = cJSON_CreateObject();
	const struct fleet_pooled *p = &a->pooled;

	cJSON_AddStringToObject(o, "arm", a->name);
	cJSON_AddNumberToObject(o, "runs", (double)p->k);
	fmt_json_num(o, "log_ratio", p->k ? p->mu : NAN);
	fmt_json_num(o, "se", p->k ? p->se : NAN);
	fmt_json_num(o, "effect_pct", p->k ? p->effect_pct : NAN);
	fmt_json_num(o, "ci95_low_pct", p->k ? p->ci_low_pct : NAN);
	fmt_json_num(o, "ci95_high_pct", p->k ? p->ci_high_pct : NAN);
	fmt_json_num(o, "tau2", p->k ? p->tau2 : NAN);
	fmt_json_num(o, "q", p->k ? p->q : NAN);
	return o;
}

/* Text from the store (imports: other hosts), for a terminal: through the one escaper. */
#define P(x) fmt_printable(x)

static void pool_line(FILE *f, const struct fleet_arm_pool *a)
{
	const struct fleet_pooled *p = &a->pooled;

	if (!p->k)
		fprintf(f, "    %-16s  %4s  %s\n", P(a->name), "0", "no run measured it against the baseline");
	else
		fprintf(f, "    %-16s  %4zu  %+7.1f%%  [%+.1f%%, %+.1f%%]  %.4g\n", P(a->name), p->k,
			p->effect_pct, p->ci_low_pct, p->ci_high_pct, p->tau2);
}

static int load(struct store *st, struct fleet_run **runs, size_t *n, struct st_err *e)
{
	return store_fleet_load_runs(st, runs, n, e);
}

static void report_text(FILE *f, const struct fleet_group *g, size_t ng, size_t n_runs)
{
	if (!ng) {
		fprintf(f, "No completed probe runs in this store (import some with swaptune import).\n");
		return;
	}
	fprintf(f, "%zu probe run%s in %zu group%s. Effect: pooled change of the primary metric against\n"
		"the group's baseline arm, positive = better (random effects, DerSimonian-Laird).\n",
		n_runs, n_runs == 1 ? "" : "s", ng, ng == 1 ? "" : "s");
	for (size_t i = 0; i < ng; i++) {
		fprintf(f, "\nkernel %s, cpu %s, backend %s, workload %s, baseline %s\n",
			g[i].kernel[0] ? P(g[i].kernel) : "?", g[i].cpu_model[0] ? P(g[i].cpu_model) : "?",
			P(g[i].backend), g[i].workload[0] ? P(g[i].workload) : "?",
			g[i].baseline[0] ? P(g[i].baseline) : "?");
		fprintf(f, "  %zu run%s from %zu host%s; %u trials, %u OOM (%.1f%%); verdicts:", g[i].n_runs,
			g[i].n_runs == 1 ? "" : "s", g[i].n_hosts, g[i].n_hosts == 1 ? "" : "s",
			g[i].n_trials, g[i].n_oom,
			g[i].n_trials ? 100.0 * g[i].n_oom / g[i].n_trials : 0.0);
		for (size_t v = 0; v < g[i].n_verdicts; v++)
			fprintf(f, "%s %s %u", v ? "," : "", P(g[i].verdicts[v].kind), g[i].verdicts[v].n);
		fprintf(f, "\n    %-16s  %4s  %8s  %-20s  %s\n", "ARM", "RUNS", "EFFECT", "95% CI", "TAU2");
		for (size_t a = 0; a < g[i].n_arms; a++)
			pool_line(f, &g[i].arms[a]);
	}
}

static cJSON *report_json(const struct fleet_group *g, size_t ng, size_t n_runs)
{
	cJSON *doc = cJSON_CreateObject(), *ga = NULL;

	cJSON_AddStringToObject(doc, "schema", FLEET_REPORT_SCHEMA);
	cJSON_AddNumberToObject(doc, "runs", (double)n_runs);
	ga = cJSON_AddArrayToObject(doc, "groups");
	for (size_t i = 0; i < ng; i++) {
		cJSON *o = cJSON_CreateObject(), *v, *a;

		cJSON_AddStringToObject(o, "kernel", g[i].kernel);
		cJSON_AddStringToObject(o, "cpu_model", g[i].cpu_model);
		cJSON_AddStringToObject(o, "backend", g[i].backend);
		cJSON_AddStringToObject(o, "workload", g[i].workload);
		cJSON_AddStringToObject(o, "baseline", g[i].baseline);
		cJSON_AddNumberToObject(o, "runs", (double)g[i].n_runs);
		cJSON_AddNumberToObject(o, "hosts", (double)g[i].n_hosts);
		cJSON_AddNumberToObject(o, "trials", g[i].n_trials);
		cJSON_AddNumberToObject(o, "oom", g[i].n_oom);
		fmt_json_num(o, "oom_rate", g[i].n_trials ? (double)g[i].n_oom / g[i].n_trials : NAN);
		v = cJSON_AddObjectToObject(o, "verdicts");
		for (size_t k = 0; k < g[i].n_verdicts; k++)
			cJSON_AddNumberToObject(v, g[i].verdicts[k].kind, g[i].verdicts[k].n);
		a = cJSON_AddArrayToObject(o, "arms");
		for (size_t k = 0; k < g[i].n_arms; k++)
			cJSON_AddItemToArray(a, pool_json(&g[i].arms[k]));
		cJSON_AddItemToArray(ga, o);
	}
	return doc;
}

static int fleet_report_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct fleet_run *runs = NULL;
	struct fleet_group *g = NULL;
	size_t n = 0, ng = 0;
	int r;

	if ((r = cmd_parse(ctx, &cmd_fleet_report_entry, argc, argv, NULL, NULL)) < 0)
		return r;
	if ((r = load(&ctx->store, &runs, &n, &ctx->err)) < 0)
		return r;
	r = fleet_group_runs(runs, n, &g, &ng, &ctx->err);
	if (r == 0) {
		if (ctx->json)
			r = cmd_print_json(ctx, report_json(g, ng, n));
		else
			report_text(ctx->out, g, ng, n);
	}
	free(g);
	free(runs);
	return r;
}

const struct cmd_entry cmd_fleet_report_entry = {
	.name = "fleet-report",
	.summary = "probe results of many hosts, grouped by kernel, CPU, swap backend and workload, pooled",
	.usage = "",
	.group = CMD_GROUP_FLEET,
	.exec = fleet_report_exec,
};

/* ---- fleet-advise ---- */

static const char *const backend_names[] = { "zram", "disk", "loop", NULL };

struct advise_args {
	const char *from, *workload, *kernel;
	int backend;
};

static const struct opt_spec advise_opts[] = {
	OPT_STRING("from", 0, "STORE", "the fleet's merged store (default: --db)", struct advise_args,
		   from, "a store", OPT_COMPLETE_FILE),
	OPT_STRING("workload", 0, "NAME", "match probe runs of this workload only", struct advise_args,
		   workload, "a workload name", OPT_COMPLETE_NONE),
	OPT_CHOICE("backend", "NAME", "swap under zswap: zram, disk or loop (default: this host's)",
		   struct advise_args, backend, backend_names),
	OPT_STRING("kernel", 0, "X.Y", "kernel major.minor to match (default: this host's)",
		   struct advise_args, kernel, "a kernel release", OPT_COMPLETE_NONE),
	{ NULL },
};

/*
 * The backend a probe of this host would measure under zswap, in the
 * vocabulary of fleet_backend_name(): zram, disk, or loop when the host has
 * no swap (the probe makes a scratch loop file).
 */
static void host_backend(const struct host *h, char *out, size_t len, struct st_err *e)
{
	struct host_facts *f = calloc(1, sizeof(*f));
	const char *b = "unknown";

	if (f) {
		if (facts_collect(h, f, e) == 0)
			b = f->nswaps ? (f->swaps[0].zram ? "zram" : "disk") : "loop";
		facts_free(f);
	}
	free(f);
	snprintf(out, len, "%s", b);
}

static void advise_text(FILE *f, const struct fleet_advice *a, const char *src)
{
	fprintf(f, "Hosts like this one in %s: kernel %s, backend %s, workload %s\n", P(src),
		a->matched.kernel_mm[0] ? P(a->matched.kernel_mm) : "any",
		a->matched.backend[0] ? P(a->matched.backend) : "any",
		a->matched.workload[0] ? P(a->matched.workload) : "any");
	fprintf(f, "Matched %zu probe run%s from %zu host%s (baseline %s).\n", a->n_runs,
		a->n_runs == 1 ? "" : "s", a->n_hosts, a->n_hosts == 1 ? "" : "s",
		a->baseline[0] ? P(a->baseline) : "-");
	if (!a->enough) {
		fprintf(f, "Too little to go on: fleet advice needs at least %d runs from %d hosts.\n",
			FLEET_MIN_RUNS, FLEET_MIN_HOSTS);
		return;
	}
	fprintf(f, "    %-16s  %4s  %8s  %-20s  %s\n", "ARM", "RUNS", "EFFECT", "95% CI", "TAU2");
	for (size_t i = 0; i < a->n_arms; i++)
		pool_line(f, &a->arms[i]);
	if (a->best < 0)
		fprintf(f, "No arm was measured against the baseline: keep %s.\n", P(a->baseline));
	else if (a->best_significant)
		fprintf(f, "Advice: %s, %+.1f%% against %s on hosts like this one (95%% CI %+.1f%% to %+.1f%%,"
			" tau^2 %.4g). Probe this host to confirm.\n", P(a->arms[a->best].name),
			a->arms[a->best].pooled.effect_pct, P(a->baseline), a->arms[a->best].pooled.ci_low_pct,
			a->arms[a->best].pooled.ci_high_pct, a->arms[a->best].pooled.tau2);
	else
		fprintf(f, "Advice: keep %s; no arm is better with 95%% confidence on hosts like this one.\n",
			P(a->baseline));
}

static cJSON *advise_json(const struct fleet_advice *a, const char *src)
{
	cJSON *doc = cJSON_CreateObject(), *m, *arms;

	cJSON_AddStringToObject(doc, "schema", FLEET_ADVISE_SCHEMA);
	cJSON_AddStringToObject(doc, "source", src);
	m = cJSON_AddObjectToObject(doc, "matched_on");
	if (a->matched.kernel_mm[0])
		cJSON_AddStringToObject(m, "kernel_major_minor", a->matched.kernel_mm);
	if (a->matched.backend[0])
		cJSON_AddStringToObject(m, "backend", a->matched.backend);
	if (a->matched.workload[0])
		cJSON_AddStringToObject(m, "workload", a->matched.workload);
	cJSON_AddNumberToObject(doc, "runs", (double)a->n_runs);
	cJSON_AddNumberToObject(doc, "hosts", (double)a->n_hosts);
	cJSON_AddBoolToObject(doc, "enough", a->enough);
	cJSON_AddStringToObject(doc, "baseline", a->baseline);
	arms = cJSON_AddArrayToObject(doc, "arms");
	for (size_t i = 0; a->enough && i < a->n_arms; i++)
		cJSON_AddItemToArray(arms, pool_json(&a->arms[i]));
	if (a->enough && a->best >= 0 && a->best_significant)
		cJSON_AddStringToObject(doc, "advice", a->arms[a->best].name);
	else if (a->enough)
		cJSON_AddStringToObject(doc, "advice", a->baseline);
	else
		cJSON_AddNullToObject(doc, "advice");
	return doc;
}

static int parse_advise(struct cmd_ctx *ctx, int argc, char **argv, const char **from,
			struct fleet_target *t, bool *have_backend, bool *have_kernel)
{
	struct advise_args a = { .backend = -1 };
	int r;

	if ((r = cmd_parse(ctx, &cmd_fleet_advise_entry, argc, argv, &a, NULL)) < 0)
		return r;
	*from = a.from;
	if (a.workload) {
		if (strlen(a.workload) >= sizeof(t->workload))
			return cmd_usage_error(ctx, &cmd_fleet_advise_entry, "--workload is too long");
		snprintf(t->workload, sizeof(t->workload), "%s", a.workload);
	}
	if (a.backend >= 0) {
		snprintf(t->backend, sizeof(t->backend), "%s", backend_names[a.backend]);
		*have_backend = true;
	}
	if (a.kernel) {
		fleet_kernel_major_minor(a.kernel, t->kernel_mm, sizeof(t->kernel_mm));
		if (!t->kernel_mm[0])
			return cmd_usage_error(ctx, &cmd_fleet_advise_entry,
					       "--kernel needs a release like 6.8, not \"%s\"", a.kernel);
		*have_kernel = true;
	}
	return 0;
}

static int fleet_advise_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct fleet_target t = {0};
	struct fleet_advice *a = calloc(1, sizeof(*a));
	struct fleet_run *runs = NULL;
	struct store other, *st = &ctx->store;
	const char *from = NULL;
	bool have_backend = false, have_kernel = false;
	size_t n = 0;
	int r;

	if (!a)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	if ((r = parse_advise(ctx, argc, argv, &from, &t, &have_backend, &have_kernel)) < 0)
		goto out;
	if (!have_kernel) {
		char rel[128];

		if (host_kernel_release(&ctx->host, rel, sizeof(rel), NULL) == 0)
			fleet_kernel_major_minor(rel, t.kernel_mm, sizeof(t.kernel_mm));
	}
	if (!have_backend)
		host_backend(&ctx->host, t.backend, sizeof(t.backend), NULL);
	if (from) {
		if (access(from, R_OK) != 0) {
			r = err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE, "fleet-advise: cannot read store %s",
					 from);
			goto out;
		}
		if ((r = store_open(&other, from, &ctx->err)) < 0)
			goto out;
		st = &other;
	}
	r = load(st, &runs, &n, &ctx->err);
	if (r == 0)
		r = fleet_advise(runs, n, &t, a, &ctx->err);
	if (r == 0) {
		if (ctx->json)
			r = cmd_print_json(ctx, advise_json(a, st->path));
		else
			advise_text(ctx->out, a, st->path);
	}
	if (from)
		store_close(&other);
out:
	free(runs);
	free(a);
	return r;
}

const struct cmd_entry cmd_fleet_advise_entry = {
	.name = "fleet-advise",
	.summary = "advice for a host never probed, pooled from the probes of hosts like it",
	.usage = "[--from STORE] [--workload NAME] [--backend NAME] [--kernel X.Y]",
	.group = CMD_GROUP_FLEET,
	.opts = { advise_opts },
	.exec = fleet_advise_exec,
};
