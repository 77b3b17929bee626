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
#include "swaptune/report.h"
#include "swaptune/workload.h"

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

/* The verdict words of `recommend` for a stored verdict kind (runs of older versions say "switch"). */
static const char *verdict_word(const char *kind)
{
	if (!strcmp(kind, "switch") || !strcmp(kind, "change"))
		return "CHANGE";
	if (!strcmp(kind, "keep"))
		return "KEEP";
	if (!strcmp(kind, "inconclusive"))
		return "INCONCLUSIVE";
	if (!kind[0] || !strcmp(kind, "none"))
		return "no verdict";
	return kind;
}

/* One pooled arm's cells as text: effect, its 95 % CI, tau^2. */
struct pool_text {
	char effect[32], ci[64], tau2[FMT_NUM_LEN];
};

static void pool_cells(const struct fleet_pooled *p, struct pool_text *t)
{
	char lo[32], hi[32];

	fmt_pct(p->effect_pct, true, t->effect, sizeof(t->effect));
	snprintf(t->ci, sizeof(t->ci), "%s .. %s", fmt_pct(p->ci_low_pct, true, lo, sizeof(lo)),
		 fmt_pct(p->ci_high_pct, true, hi, sizeof(hi)));
	fmt_num(p->tau2, t->tau2, sizeof(t->tau2));
}

/* The pooled arms as an aligned table (fleet-advise): ARM RUNS EFFECT 95 % CI TAU2. */
static void pool_table(FILE *f, const struct fleet_arm_pool *arms, size_t n)
{
	struct pool_text *t = calloc(n ? n : 1, sizeof(*t));
	int wa = 3, we = 6, wc = 7;

	if (!t)
		return;
	for (size_t i = 0; i < n; i++) {
		pool_cells(&arms[i].pooled, &t[i]);
		wa = (int)fmt_escape_len(arms[i].name) > wa ? (int)fmt_escape_len(arms[i].name) : wa;
		we = (int)strlen(t[i].effect) > we ? (int)strlen(t[i].effect) : we;
		wc = (int)strlen(t[i].ci) > wc ? (int)strlen(t[i].ci) : wc;
	}
	fprintf(f, "    %-*s  %4s  %*s  %-*s  %s\n", wa, "ARM", "RUNS", we, "EFFECT", wc, "95 % CI", "TAU2");
	for (size_t i = 0; i < n; i++) {
		fputs("    ", f);
		fmt_fputs_pad(f, arms[i].name, (size_t)wa, false);
		if (!arms[i].pooled.k)
			fprintf(f, "  %4s  %s\n", "0", "no run measured it against the baseline");
		else
			fprintf(f, "  %4zu  %*s  %-*s  %s\n", arms[i].pooled.k, we, t[i].effect, wc, t[i].ci,
				t[i].tau2);
	}
	free(t);
}

static int load(struct store *st, struct fleet_run **runs, size_t *n, struct st_err *e)
{
	return store_fleet_load_runs(st, runs, n, e);
}

/* The group's hosts by name (distinct machines), ", "-joined into out; how many. */
static size_t group_hosts(const struct fleet_run *runs, size_t n, const struct fleet_group *g,
			  char *out, size_t len)
{
	size_t k = 0, hosts = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		if (!fleet_run_in_group(&runs[i], g))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = fleet_run_in_group(&runs[j], g) && !strcmp(runs[j].machine_id, runs[i].machine_id);
		if (seen)
			continue;
		hosts++;
		if (k < len)
			k += (size_t)snprintf(out + k, len - k, "%s%s", k ? ", " : "",
					      runs[i].hostname[0] ? runs[i].hostname : runs[i].machine_id);
	}
	return hosts;
}

/* "CHANGE to pc0 in 3 runs, KEEP in 1" for the runs of a group, in recommend's words */
static void group_verdicts(const struct fleet_run *runs, size_t n, const struct fleet_group *g,
			   char *out, size_t len)
{
	struct { const char *word, *arm; unsigned n; } v[FLEET_VERDICTS_MAX * 2];
	size_t nv = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *w, *arm;
		size_t j;

		if (!fleet_run_in_group(&runs[i], g))
			continue;
		w = verdict_word(runs[i].verdict);
		arm = !strcmp(w, "CHANGE") ? runs[i].verdict_arm : "";
		for (j = 0; j < nv && (strcmp(v[j].word, w) || strcmp(v[j].arm, arm)); j++)
			;
		if (j == nv && nv < sizeof(v) / sizeof(v[0]))
			v[nv++] = (typeof(v[0])){ w, arm, 0 };
		if (j < nv)
			v[j].n++;
	}
	out[0] = '\0';
	for (size_t j = 0; j < nv && k < len; j++)
		k += (size_t)snprintf(out + k, len - k, "%s%s%s%s in %u run%s", j ? ", " : "", v[j].word,
				      v[j].arm[0] ? " to " : "", v[j].arm, v[j].n, v[j].n == 1 ? "" : "s");
}

/* Distinct machines among the runs. */
static size_t fleet_hosts(const struct fleet_run *runs, size_t n)
{
	size_t hosts = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(runs[j].machine_id, runs[i].machine_id);
		hosts += !seen;
	}
	return hosts;
}

/* The best arm of a group: the largest pooled effect. */
static const struct fleet_arm_pool *group_best(const struct fleet_group *g)
{
	const struct fleet_arm_pool *best = NULL;

	for (size_t a = 0; a < g->n_arms; a++)
		if (g->arms[a].pooled.k && (!best || g->arms[a].pooled.effect_pct > best->pooled.effect_pct))
			best = &g->arms[a];
	return best;
}

/*
 * The fleet report in the report model, for text, Markdown and HTML: the
 * answer first (per group, its best arm and how sure), then per group its
 * hosts, verdicts and pooled effects (a bar chart with the intervals in
 * HTML); an arm whose interval excludes 0 is marked.
 */
static struct report *fleet_report_build(const struct fleet_run *runs, size_t n,
					 const struct fleet_group *g, size_t ng)
{
	static const char *const cols[] = { "arm", "runs", "effect", "95 % CI of effect", "tau2" };
	char title[128], hosts[2048], verdicts[512], id[32], b1[32], b2[32], b3[32];
	struct report *rep;
	struct report_section *sum, *s;

	snprintf(title, sizeof(title), "swaptune fleet report: %zu probe run%s in %zu group%s", n,
		 n == 1 ? "" : "s", ng, ng == 1 ? "" : "s");
	rep = report_new("fleet", title);
	sum = report_add(rep, REPORT_TEXT, "summary", "Summary");
	report_note(sum, "effect: pooled change of the primary metric against the group's baseline arm, "
		    "positive = better (random effects, DerSimonian-Laird); tau2: variance between runs");
	if (!ng)
		report_line(sum, "no completed probe runs in this store (import some with swaptune import)");
	else
		report_line(sum, "%zu probe run%s from %zu host%s, in %zu group%s of like hosts", n, n == 1 ? "" : "s",
			    fleet_hosts(runs, n), fleet_hosts(runs, n) == 1 ? "" : "s", ng, ng == 1 ? "" : "s");
	for (size_t i = 0; i < ng; i++) {
		const struct fleet_arm_pool *best = group_best(&g[i]);
		size_t nh = group_hosts(runs, n, &g[i], hosts, sizeof(hosts));

		if (best)
			report_line(sum, "kernel %s, backend %s, %s: %s %s (95 %% CI %s .. %s) against %s over "
				    "%zu run%s from %zu host%s%s", g[i].kernel[0] ? g[i].kernel : "?", g[i].backend,
				    g[i].workload[0] ? g[i].workload : "?", best->name,
				    fmt_pct(best->pooled.effect_pct, true, b1, sizeof(b1)),
				    fmt_pct(best->pooled.ci_low_pct, true, b2, sizeof(b2)),
				    fmt_pct(best->pooled.ci_high_pct, true, b3, sizeof(b3)), g[i].baseline,
				    g[i].n_runs, g[i].n_runs == 1 ? "" : "s", nh, nh == 1 ? "" : "s",
				    best->pooled.ci_low_pct > 0 ? ", beyond noise" : ", not beyond noise");
		else
			report_line(sum, "kernel %s, backend %s, %s: no arm was measured against %s",
				    g[i].kernel[0] ? g[i].kernel : "?", g[i].backend,
				    g[i].workload[0] ? g[i].workload : "?", g[i].baseline);
	}
	for (size_t i = 0; i < ng; i++) {
		char t[512];
		size_t nh = group_hosts(runs, n, &g[i], hosts, sizeof(hosts));

		snprintf(id, sizeof(id), "group-%zu", i + 1);
		snprintf(t, sizeof(t), "kernel %s, cpu %s, backend %s, workload %s, baseline %s",
			 g[i].kernel[0] ? g[i].kernel : "?", g[i].cpu_model[0] ? g[i].cpu_model : "?",
			 g[i].backend, g[i].workload[0] ? g[i].workload : "?",
			 g[i].baseline[0] ? g[i].baseline : "?");
		s = report_add(rep, REPORT_FACTS, id, t);
		report_fact(s, nh == 1 ? "host" : "hosts", "%s", hosts);
		report_fact(s, "runs", "%zu from %zu host%s", g[i].n_runs, nh, nh == 1 ? "" : "s");
		report_fact(s, "trials", "%u, %u OOM-killed (%s)", g[i].n_trials, g[i].n_oom,
			    fmt_pct(g[i].n_trials ? 100.0 * g[i].n_oom / g[i].n_trials : 0, false, b1, sizeof(b1)));
		group_verdicts(runs, n, &g[i], verdicts, sizeof(verdicts));
		report_fact(s, "verdicts", "%s", verdicts);

		snprintf(id, sizeof(id), "group-%zu-arms", i + 1);
		s = report_add(rep, REPORT_TABLE, id, "Pooled effects");
		report_note(s, "against %s; beyond noise = the 95 %% interval excludes 0", g[i].baseline);
		report_cols(s, 5, cols);
		for (size_t a = 0; a < g[i].n_arms; a++) {
			const struct fleet_pooled *p = &g[i].arms[a].pooled;
			struct pool_text pt;

			pool_cells(p, &pt);
			report_cell(s, "%s", g[i].arms[a].name);
			if (p->k && (p->ci_low_pct > 0 || p->ci_high_pct < 0))
				report_row_mark(s);
			report_cell_num(s, (double)p->k);
			report_cell(s, "%s", p->k ? pt.effect : "-");
			report_cell(s, "%s", p->k ? pt.ci : "no run measured it against the baseline");
			report_cell_num(s, p->k ? p->tau2 : NAN);
		}
		snprintf(id, sizeof(id), "group-%zu-chart", i + 1);
		s = report_add(rep, REPORT_CHART, id, "Pooled effect per arm, with its 95 % interval");
		s->chart.kind = REPORT_CHART_BARS;
		s->chart.y_unit = strdup("%");
		s->chart.bar_name = strdup("pooled effect");
		s->chart.whisker_name = strdup("95 % interval");
		for (size_t a = 0; a < g[i].n_arms; a++)
			if (g[i].arms[a].pooled.k)
				report_bar_add(s, &(struct report_bar_in){
					.name = g[i].arms[a].name, .mean = g[i].arms[a].pooled.effect_pct,
					.lo = g[i].arms[a].pooled.ci_low_pct, .hi = g[i].arms[a].pooled.ci_high_pct });
	}
	return rep;
}

static cJSON *report_json(const struct fleet_run *runs, size_t n_runs, const struct fleet_group *g,
			  size_t ng)
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
		a = cJSON_AddArrayToObject(o, "host_names");
		for (size_t k = 0; k < n_runs; k++) {
			bool seen = false;

			if (!fleet_run_in_group(&runs[k], &g[i]))
				continue;
			for (size_t j = 0; j < k && !seen; j++)
				seen = fleet_run_in_group(&runs[j], &g[i]) &&
				       !strcmp(runs[j].machine_id, runs[k].machine_id);
			if (!seen)
				cJSON_AddItemToArray(a, cJSON_CreateString(runs[k].hostname[0] ? runs[k].hostname :
									   runs[k].machine_id));
		}
		a = cJSON_AddArrayToObject(o, "run_verdicts");
		for (size_t k = 0; k < n_runs; k++) {
			cJSON *rv;

			if (!fleet_run_in_group(&runs[k], &g[i]))
				continue;
			rv = cJSON_CreateObject();
			cJSON_AddNumberToObject(rv, "run", (double)runs[k].run_id);
			cJSON_AddStringToObject(rv, "host", runs[k].hostname);
			cJSON_AddStringToObject(rv, "verdict", verdict_word(runs[k].verdict));
			if (!strcmp(verdict_word(runs[k].verdict), "CHANGE") && runs[k].verdict_arm[0])
				cJSON_AddStringToObject(rv, "arm", runs[k].verdict_arm);
			else
				cJSON_AddNullToObject(rv, "arm");
			cJSON_AddItemToArray(a, rv);
		}
		a = cJSON_AddArrayToObject(o, "arms");
		for (size_t k = 0; k < g[i].n_arms; k++)
			cJSON_AddItemToArray(a, pool_json(&g[i].arms[k]));
		cJSON_AddItemToArray(ga, o);
	}
	return doc;
}

struct fleet_report_args {
	int format;
};

static const struct opt_spec fleet_report_opts[] = {
	OPT_CHOICE("format", "FMT", "text (default), md, json (as --json) or html (one "
		   "self-contained file with charts)", struct fleet_report_args, format,
		   report_format_names),
	{ NULL },
};

static int fleet_report_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct fleet_run *runs = NULL;
	struct fleet_group *g = NULL;
	size_t n = 0, ng = 0;
	struct fleet_report_args a = { .format = REPORT_TEXT_FMT };
	int r, fmt;

	if ((r = cmd_parse(ctx, &cmd_fleet_report_entry, argc, argv, &a, NULL)) < 0)
		return r;
	fmt = a.format;
	if ((r = load(&ctx->store, &runs, &n, &ctx->err)) < 0)
		return r;
	r = fleet_group_runs(runs, n, &g, &ng, &ctx->err);
	if (r == 0) {
		if (ctx->json || fmt == REPORT_JSON) {
			r = cmd_print_json(ctx, report_json(runs, n, g, ng));
		} else {
			struct report *rep = fleet_report_build(runs, n, g, ng);

			r = report_render(ctx->out, rep, (enum report_format)fmt);
			report_free(rep);
		}
	}
	free(g);
	free(runs);
	return r;
}

const struct cmd_entry cmd_fleet_report_entry = {
	.name = "fleet-report",
	.summary = "probe results of many hosts, grouped by kernel, CPU, swap backend and workload, pooled",
	.usage = "[--format text|md|json|html]",
	.group = CMD_GROUP_FLEET,
	.opts = { fleet_report_opts },
	.exec = fleet_report_exec,
};

/* ---- fleet-advise ---- */

static const char *const backend_names[] = { "zram", "disk", "loop", NULL };

/* probe --workload's names: a filter on anything else could never match */
static const char *workload_name_at(size_t i)
{
	return workload_at(i) ? workload_at(i)->name : NULL;
}

struct advise_args {
	const char *from, *workload, *kernel;
	int backend;
};

static const struct opt_spec advise_opts[] = {
	OPT_STRING("from", 0, "STORE", "the fleet's merged store (default: --db)", struct advise_args,
		   from, "a store", OPT_COMPLETE_FILE),
	{ .name = "workload", .arg = "NAME", .help = "match probe runs of this workload only",
	  .parse = opt_parse_string, .off = OPT_AT(struct advise_args, workload, const char *),
	  .choice_at = workload_name_at, .complete = OPT_COMPLETE_CHOICES },
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
	pool_table(f, a->arms, a->n_arms);
	if (a->best < 0)
		fprintf(f, "No arm was measured against the baseline: keep %s.\n", P(a->baseline));
	else if (a->best_significant) {
		struct pool_text t;

		pool_cells(&a->arms[a->best].pooled, &t);
		fprintf(f, "Advice: %s, %s against %s on hosts like this one (95 %% CI %s, tau^2 %s)."
			" Probe this host to confirm.\n", P(a->arms[a->best].name), t.effect, P(a->baseline),
			t.ci, t.tau2);
	}
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

/* What fleet-advise is asked: the store to read, and the host the advice is for. */
struct advise_ask {
	const char *from;		/* --from, NULL: the own store */
	struct fleet_target t;
	bool have_backend, have_kernel;	/* given; else this host's */
};

static int parse_advise(struct cmd_ctx *ctx, int argc, char **argv, struct advise_ask *q)
{
	struct advise_args a = { .backend = -1 };
	struct fleet_target *t = &q->t;
	int r;

	if ((r = cmd_parse(ctx, &cmd_fleet_advise_entry, argc, argv, &a, NULL)) < 0)
		return r;
	q->from = a.from;
	if (a.workload) {
		if (!workload_find(a.workload))
			return cmd_usage_error(ctx, &cmd_fleet_advise_entry, "unknown workload \"%s\"",
					       a.workload);
		if (strlen(a.workload) >= sizeof(t->workload))
			return cmd_usage_error(ctx, &cmd_fleet_advise_entry, "--workload is too long");
		snprintf(t->workload, sizeof(t->workload), "%s", a.workload);
	}
	if (a.backend >= 0) {
		snprintf(t->backend, sizeof(t->backend), "%s", backend_names[a.backend]);
		q->have_backend = true;
	}
	if (a.kernel) {
		fleet_kernel_major_minor(a.kernel, t->kernel_mm, sizeof(t->kernel_mm));
		if (!t->kernel_mm[0])
			return cmd_usage_error(ctx, &cmd_fleet_advise_entry,
					       "--kernel needs a release like 6.8, not \"%s\"", a.kernel);
		q->have_kernel = true;
	}
	return 0;
}

static int fleet_advise_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct advise_ask q = { 0 };
	struct fleet_target *t = &q.t;
	struct fleet_advice *a = calloc(1, sizeof(*a));
	struct fleet_run *runs = NULL;
	struct store other, *st = &ctx->store;
	const char *from = NULL;
	size_t n = 0;
	int r;

	if (!a)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	if ((r = parse_advise(ctx, argc, argv, &q)) < 0)
		goto out;
	from = q.from;
	if (!q.have_kernel) {
		char rel[128];

		if (host_kernel_release(&ctx->host, rel, sizeof(rel), NULL) == 0)
			fleet_kernel_major_minor(rel, t->kernel_mm, sizeof(t->kernel_mm));
	}
	if (!q.have_backend)
		host_backend(&ctx->host, t->backend, sizeof(t->backend), NULL);
	if (from) {
		if (access(from, R_OK) != 0) {
			r = err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE, "fleet-advise: cannot read store %s",
					 from);
			goto out;
		}
		if ((r = store_open_readonly(&other, from, &ctx->err)) < 0)
			goto out;
		st = &other;
	}
	r = load(st, &runs, &n, &ctx->err);
	if (r == 0)
		r = fleet_advise(runs, n, t, a, &ctx->err);
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
	.flags = CMD_WRAP_HUMAN,
	.exec = fleet_advise_exec,
};
