/*
 * cmd-switchback.c - `swaptune switchback`: the host's own workload left
 * alone, the arms' settings switched under it in randomised blocks of
 * windows with a washout, judged by the exact sequential randomisation
 * test (switchback.h). Parses the options into a sbrun_config, shows the
 * plan (or only that, with --dry-run), takes the host-change lock, asks,
 * runs the engine (sbrun.h) with a progress line, and prints the verdict of
 * the stored run as recommend would.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-switchback.h"
#include "swaptune/change.h"
#include "swaptune/fmt.h"

#define DEFAULT_ARMS "pc3,pc0"

static volatile sig_atomic_t sb_stop;

static void on_signal(int sig)
{
	sb_stop = sig;
}

const struct option cmd_sb_longopts[] = {
	{ "arms", required_argument, NULL, SBO_ARMS },
	{ "arm", required_argument, NULL, SBO_ARM },
	{ "baseline", required_argument, NULL, SBO_BASELINE },
	{ "window", required_argument, NULL, SBO_WINDOW },
	{ "washout", required_argument, NULL, SBO_WASHOUT },
	{ "blocks", required_argument, NULL, SBO_BLOCKS },
	{ "looks", required_argument, NULL, SBO_LOOKS },
	{ "max-time", required_argument, NULL, SBO_MAX_TIME },
	{ "seed", required_argument, NULL, SBO_SEED },
	{ "min-effect", required_argument, NULL, SBO_MIN_EFFECT },
	{ "metric", required_argument, NULL, SBO_METRIC },
	{ "metric-cmd", required_argument, NULL, SBO_METRIC_CMD },
	{ "metric-file", required_argument, NULL, SBO_METRIC_FILE },
	{ "metric-prom", required_argument, NULL, SBO_METRIC_PROM },
	{ "metric-name", required_argument, NULL, SBO_METRIC_NAME },
	{ "metric-counter", no_argument, NULL, SBO_COUNTER },
	{ "metric-gauge", no_argument, NULL, SBO_GAUGE },
	{ "higher-better", no_argument, NULL, SBO_HIGHER },
	{ "lower-better", no_argument, NULL, SBO_LOWER },
	{ "metric-timeout", required_argument, NULL, SBO_METRIC_TIMEOUT },
	{ "cgroup", required_argument, NULL, SBO_CGROUP },
	{ "psi-full-max", required_argument, NULL, SBO_PSI_FULL },
	{ "psi-some-max", required_argument, NULL, SBO_PSI_SOME },
	{ "max-failures", required_argument, NULL, SBO_MAX_FAILURES },
	{ "yes", no_argument, NULL, SBO_YES },
	{ "dry-run", no_argument, NULL, SBO_DRY_RUN },
	{ "progress", required_argument, NULL, SBO_PROGRESS },
	{ 0, 0, 0, 0 },
};

static const struct cmd_option sb_options[] = {
	{ "--arms LIST", "built-in arms: pc3, pc1, pc0 (vm.page-cluster) (default pc3,pc0)" },
	{ "--arm NAME:KEY=VAL,...", "a custom arm over the settings registry (repeatable)" },
	{ "--baseline NAME", "arm to compare against (default: the arm matching the host now, else the first)" },
	{ "--min-effect X", "smallest gain worth a change: percent for rates, points for PSI (default 2)" },
	CMD_SB_DESIGN_HELP
	{ "--yes", "do not ask before switching host settings (needed without a terminal)" },
	{ "--dry-run", "print the schedule, the budget, what changes and the smallest effect it can show; change nothing" },
	{ "--progress MODE", "auto (a live line on a terminal), tty, plain (one line per window on stderr) or none" },
	{ NULL, NULL },
};


void cmd_sb_init(struct sbrun_config *c, struct sb_args *a)
{
	sbrun_config_init(c);
	memset(a, 0, sizeof(*a));
	a->progress = CMD_PROGRESS_AUTO;
}

static int parse_dur(struct cmd_ctx *ctx, const struct cmd_entry *ce, const char *opt,
		     const char *v, double min_s, double *out)
{
	long long ns;

	if (fmt_parse_duration(v, &ns) < 0 || (double)ns / 1e9 < min_s || ns > 86400LL * 1000000000LL)
		return cmd_usage_error(ctx, ce, "%s: \"%s\" is not a duration of %g s to a day", opt, v, min_s);
	*out = (double)ns / 1e9;
	return 0;
}

static int parse_looks(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sb_plan *p,
		       const char *list)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	p->n_looks = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long long v;

		if (p->n_looks >= SB_LOOKS_MAX || fmt_parse_i64(t, 2, SB_BLOCKS_MAX, &v) < 0 ||
		    (p->n_looks && (unsigned)v <= p->looks[p->n_looks - 1]))
			return cmd_usage_error(ctx, ce, "--looks needs increasing blocks 2..%d, at most %d of them, like 8,12,15",
					       SB_BLOCKS_MAX, SB_LOOKS_MAX);
		p->looks[p->n_looks++] = (unsigned)v;
	}
	if (!p->n_looks)
		return cmd_usage_error(ctx, ce, "--looks needs a list of blocks like 8,12,15");
	return 0;
}

static int set_source(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		      struct sb_args *a, enum sbm_source s)
{
	bool cpw = c->metric.cpu_per_work;

	if (a->sources++)
		return cmd_usage_error(ctx, ce, "give one of --metric-cmd, --metric-file and --metric-prom");
	sbm_spec_init(&c->metric, s);
	c->metric.cpu_per_work = cpw;
	return 0;
}

/* The metric's options. 1 = not one of them. */
static int parse_metric_opt(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
			    struct sb_args *a, int opt, int argc, char **argv)
{
	struct sbm_spec *m = &c->metric;
	int k;

	switch (opt) {
	case SBO_METRIC:
		if (!strcmp(optarg, "cpu-per-work")) {
			m->cpu_per_work = true;
			return 0;
		}
		if ((k = sbm_kernel_find(optarg)) < 0)
			return cmd_usage_error(ctx, ce, "--metric %s: give psi-some, psi-full, majfault, refault, swapin, swap-ra, swap-ra-hit, zswpin, cpu or cpu-per-work", optarg);
		if (m->source != SBM_KERNEL)
			return cmd_usage_error(ctx, ce, "--metric %s is a kernel figure: it does not go with --metric-cmd, --metric-file or --metric-prom (except cpu-per-work)", optarg);
		m->kernel = (enum sbm_kernel)k;
		return 0;
	case SBO_METRIC_CMD:
		if (strlen(optarg) >= sizeof(m->cmd) || set_source(ctx, ce, c, a, SBM_CMD) < 0)
			return cmd_usage_error(ctx, ce, "--metric-cmd: one command, shorter than %zu", sizeof(m->cmd));
		snprintf(m->cmd, sizeof(m->cmd), "%s", optarg);
		return 0;
	case SBO_METRIC_FILE:
		if (strlen(optarg) >= sizeof(m->path) || set_source(ctx, ce, c, a, SBM_FILE) < 0)
			return -EINVAL;
		snprintf(m->path, sizeof(m->path), "%s", optarg);
		return 0;
	case SBO_METRIC_PROM: {
		char h[256], p[16], path[SBM_URL_MAX], why[300];

		if (optind >= argc || argv[optind][0] == '-')
			return cmd_usage_error(ctx, ce, "--metric-prom needs a URL and a metric NAME");
		if (sbm_url_parse(optarg, h, sizeof(h), p, sizeof(p), path, sizeof(path), why, sizeof(why)) < 0)
			return cmd_usage_error(ctx, ce, "--metric-prom: %s", why);
		if (strlen(optarg) >= sizeof(m->url) || strlen(argv[optind]) >= sizeof(m->name) ||
		    set_source(ctx, ce, c, a, SBM_PROM) < 0)
			return -EINVAL;
		snprintf(m->url, sizeof(m->url), "%s", optarg);
		snprintf(m->name, sizeof(m->name), "%s", argv[optind++]);
		return 0;
	}
	case SBO_METRIC_NAME:
		if (strlen(optarg) >= sizeof(m->name))
			return cmd_usage_error(ctx, ce, "--metric-name is too long");
		snprintf(m->name, sizeof(m->name), "%s", optarg);
		return 0;
	case SBO_COUNTER:
	case SBO_GAUGE:
		a->kind_given = true;
		a->counter = opt == SBO_COUNTER;
		return 0;
	case SBO_HIGHER:
	case SBO_LOWER:
		if (a->direction_given && m->higher_better != (opt == SBO_HIGHER))
			return cmd_usage_error(ctx, ce, "--higher-better and --lower-better: give one");
		a->direction_given = true;
		m->higher_better = opt == SBO_HIGHER;
		return 0;
	case SBO_METRIC_TIMEOUT:
		return parse_dur(ctx, ce, "--metric-timeout", optarg, 0.1, &m->timeout_s);
	}
	return 1;
}

/* The design's and the run's options. 1 = not one of them. */
static int parse_design_opt(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
			    struct sb_args *a, int opt)
{
	long long v;

	switch (opt) {
	case SBO_ARMS: a->arms_list = optarg; return 0;
	case SBO_ARM:
		if (a->ncustom >= SB_ARMS_MAX)
			return cmd_usage_error(ctx, ce, "more than %d arms", SB_ARMS_MAX);
		a->custom[a->ncustom++] = optarg;
		return 0;
	case SBO_BASELINE: a->baseline = optarg; return 0;
	case SBO_WINDOW: return parse_dur(ctx, ce, "--window", optarg, 2, &c->plan.window_s);
	case SBO_WASHOUT:
		a->washout_given = true;
		return parse_dur(ctx, ce, "--washout", optarg, 0, &c->plan.washout_s);
	case SBO_BLOCKS:
		if (fmt_parse_i64(optarg, 2, SB_BLOCKS_MAX, &v) < 0)
			return cmd_usage_error(ctx, ce, "--blocks must be 2..%d", SB_BLOCKS_MAX);
		c->plan.n_blocks = (unsigned)v;
		return 0;
	case SBO_LOOKS: return parse_looks(ctx, ce, &c->plan, optarg);
	case SBO_MAX_TIME: return parse_dur(ctx, ce, "--max-time", optarg, 1, &c->max_time_s);
	case SBO_SEED:
		if (fmt_parse_i64(optarg, 0, (1LL << 53) - 1, &v) < 0)
			return cmd_usage_error(ctx, ce, "--seed: \"%s\" is not a number below 2^53", optarg);
		c->plan.seed = (uint64_t)v;
		a->seed_given = true;
		return 0;
	case SBO_MIN_EFFECT:
		if (fmt_parse_real(optarg, 0, 1000, &c->min_effect) < 0)
			return cmd_usage_error(ctx, ce, "--min-effect needs a number 0..1000, not \"%s\"", optarg);
		return 0;
	case SBO_CGROUP:
		if (strlen(optarg) >= sizeof(c->cgroup))
			return cmd_usage_error(ctx, ce, "--cgroup is too long");
		snprintf(c->cgroup, sizeof(c->cgroup), "%s", optarg);
		return 0;
	case SBO_PSI_FULL:
	case SBO_PSI_SOME:
		if (fmt_parse_real(optarg, 0, 100, opt == SBO_PSI_FULL ? &c->psi_full_max : &c->psi_some_max) < 0)
			return cmd_usage_error(ctx, ce, "%s needs a percentage 0..100", opt == SBO_PSI_FULL ?
					       "--psi-full-max" : "--psi-some-max");
		return 0;
	case SBO_MAX_FAILURES:
		if (fmt_parse_i64(optarg, 0, SBRUN_WINDOWS_MAX, &v) < 0)
			return cmd_usage_error(ctx, ce, "--max-failures must be 0..%d (0 = no limit)", SBRUN_WINDOWS_MAX);
		c->max_failures = (unsigned)v;
		return 0;
	case SBO_YES: a->yes = true; return 0;
	case SBO_DRY_RUN: a->dry = true; return 0;
	case SBO_PROGRESS:
		if (cmd_parse_progress(optarg, &a->progress) < 0)
			return cmd_usage_error(ctx, ce, "--progress is auto, tty, plain or none");
		return 0;
	}
	return 1;
}

int cmd_sb_parse_opt(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		     struct sb_args *a, int opt, int argc, char **argv)
{
	int r = parse_metric_opt(ctx, ce, c, a, opt, argc, argv);

	return r == 1 ? parse_design_opt(ctx, ce, c, a, opt) : r;
}

int cmd_sb_finish(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		  struct sb_args *a)
{
	struct sbm_spec *m = &c->metric;
	struct sb_plan *pl = &c->plan;

	if (!a->washout_given)
		pl->washout_s = pl->window_s / 2;
	if (!(pl->washout_s < pl->window_s))
		return cmd_usage_error(ctx, ce, "the washout (%g s) must be shorter than the window (%g s)",
				       pl->washout_s, pl->window_s);
	if (pl->looks[pl->n_looks - 1] != pl->n_blocks) {
		/* --blocks without --looks: the default looks that fit, the last block last */
		unsigned n = 0;

		for (unsigned k = 0; k < pl->n_looks; k++)
			if (pl->looks[k] < pl->n_blocks)
				pl->looks[n++] = pl->looks[k];
		if (n >= SB_LOOKS_MAX)
			n = SB_LOOKS_MAX - 1;
		pl->looks[n++] = pl->n_blocks;
		pl->n_looks = n;
	}
	if (m->source == SBM_KERNEL && !m->cpu_per_work) {
		if (a->direction_given && m->higher_better)
			return cmd_usage_error(ctx, ce, "--metric %s is a kernel figure: lower is better",
					       sbm_kernel_defs[m->kernel].name);
		if (a->kind_given)
			return cmd_usage_error(ctx, ce, "--metric-counter and --metric-gauge go with a workload metric");
		m->higher_better = false;
	} else {
		if (m->source == SBM_KERNEL)
			return cmd_usage_error(ctx, ce, "--metric cpu-per-work needs the work: --metric-cmd, --metric-file or --metric-prom with a counter");
		if (!a->direction_given && !m->cpu_per_work)
			return cmd_usage_error(ctx, ce, "say which way the workload's figure is better: --higher-better or --lower-better");
		if (a->kind_given)
			m->counter = a->counter;
		if (m->cpu_per_work) {
			if (!m->counter)
				return cmd_usage_error(ctx, ce, "--metric cpu-per-work needs the work as a counter (--metric-counter)");
			m->higher_better = false;
		}
		if (m->source == SBM_PROM && !m->name[0])
			return cmd_usage_error(ctx, ce, "--metric-prom needs a metric NAME");
		if (m->source == SBM_CMD && m->name[0])
			return cmd_usage_error(ctx, ce, "--metric-name goes with --metric-file");
		/* the command runs in the next window's washout: never longer than half of it */
		if (m->source == SBM_CMD && pl->washout_s > 0 && m->timeout_s > pl->washout_s / 2)
			m->timeout_s = pl->washout_s / 2;
	}
	if (m->name[0] && m->source == SBM_KERNEL)
		return cmd_usage_error(ctx, ce, "--metric-name goes with --metric-file");
	if (!a->seed_given)
		pl->seed = probe_seed_random();
	return 0;
}

/* Arms from --arms/--arm, the baseline first: the named one, else the host's own, else the first. */
static int resolve_arms(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
			const struct sb_args *a)
{
	struct probe_arm arms[PROBE_ARMS_MAX];
	int n = 0, base = -1, r;

	if ((a->arms_list || a->ncustom == 0) &&
	    (r = probe_arms_parse_list(a->arms_list ? a->arms_list : DEFAULT_ARMS, arms, PROBE_ARMS_MAX,
				       &n, &ctx->err)) < 0)
		return r;
	for (int i = 0; i < a->ncustom; i++) {
		if (n >= PROBE_ARMS_MAX)
			return cmd_usage_error(ctx, ce, "more than %d arms", SB_ARMS_MAX);
		if ((r = probe_arm_parse(&ctx->host, a->custom[i], &arms[n], &ctx->err)) < 0)
			return r;
		for (int k = 0; k < n; k++)
			if (!strcmp(arms[k].name, arms[n].name))
				return cmd_usage_error(ctx, ce, "arm %s is given twice", arms[k].name);
		n++;
	}
	if (n < 2 || n > SB_ARMS_MAX)
		return cmd_usage_error(ctx, ce, "a switchback needs 2 to %d arms, not %d", SB_ARMS_MAX, n);
	for (int i = 0; i < n && base < 0; i++) {
		bool same = !a->baseline;

		if (a->baseline)
			base = !strcmp(arms[i].name, a->baseline) ? i : -1;
		for (int k = 0; same && k < arms[i].nset; k++) {
			const struct setting_def *d = settings_find(arms[i].set[k].name);
			char now[SETTING_VALUE_MAX];

			same = d && settings_read(&ctx->host, d, now, sizeof(now), NULL) == 0 &&
			       settings_equal(d, now, arms[i].set[k].value);
		}
		if (!a->baseline && same)
			base = i;
	}
	if (a->baseline && base < 0)
		return cmd_usage_error(ctx, ce, "--baseline %s is not one of the arms", a->baseline);
	if (base < 0)
		base = 0;
	c->narms = n;
	c->arms[0] = arms[base];
	for (int i = 0, k = 1; i < n; i++)
		if (i != base)
			c->arms[k++] = arms[i];
	return 0;
}

static const char *secs(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
	return buf;
}

static void print_arms(FILE *o, const struct sbrun_config *c)
{
	char desc[256];

	fprintf(o, "Arms\n");
	for (int i = 0; i < c->narms; i++) {
		probe_arm_describe(&c->arms[i], desc, sizeof(desc));
		fprintf(o, "  ");
		fmt_fputs_pad(o, c->arms[i].name, 12, false);
		fprintf(o, " %s%s\n", desc, i == 0 ? "  (baseline)" : "");
	}
}

static void print_schedule(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p)
{
	const struct sb_plan *pl = &p->design.plan;
	char t1[32], t2[32], t3[32];

	fprintf(o, "Schedule          %u blocks x %u windows of %s, washout %s after every window start"
		" (%.0f %% counted); %s in all\n", pl->n_blocks, pl->n_arms, secs(pl->window_s, t1, sizeof(t1)),
		secs(pl->washout_s, t2, sizeof(t2)), 100 * p->budget.counted_frac,
		secs(p->budget.duration_s, t3, sizeof(t3)));
	for (unsigned b = 0; b < pl->n_blocks; b++) {
		fprintf(o, "  block %2u:", b + 1);
		for (unsigned q = 0; q < pl->n_arms; q++) {
			fprintf(o, " ");
			fmt_fputs(o, c->arms[p->design.order[b][q]].name);
		}
		fprintf(o, "\n");
	}
}

static void print_budget(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p)
{
	const struct sb_plan *pl = &p->design.plan;

	fprintf(o, "Looks             at block");
	for (unsigned k = 0; k < pl->n_looks; k++)
		fprintf(o, "%s%u", k ? ", " : "s ", pl->looks[k]);
	fprintf(o, "; exact sequential randomisation test, false-change rate <= %g %%, minimum effect %g%s\n",
		100 * pl->alpha, c->min_effect, sbm_kind(&c->metric) == SB_RATE ? " %" : " points");
	fprintf(o, "Budget            smallest p at each look:");
	for (unsigned k = 0; k < pl->n_looks; k++)
		fprintf(o, " %.3g", p->budget.p_floor[k]);
	if (p->design.first_decidable_look < pl->n_looks)
		fprintf(o, "; a change can be decided from look %u on\n", p->design.first_decidable_look + 1);
	else
		fprintf(o, "; too few blocks: no look can decide a change\n");
	if (isfinite(p->effect80[0]))
		fprintf(o, "Smallest effect   found with 80 %% power: %.1f %% if the per-block contrast varies by 5 %%,"
			" %.1f %% at 10 %%, %.1f %% at 15 %% (PostgreSQL swapping to zswap here: 13.6 %%)\n",
			p->effect80[0], p->effect80[1], p->effect80[2]);
	else
		fprintf(o, "Smallest effect   in metric units: depends on the metric's noise, not known before the run\n");
}

void sbrun_plan_print(FILE *o, const struct sbrun_config *c, const struct sbrun_plan *p)
{
	char desc[1024];

	print_arms(o, c);
	fprintf(o, "Metric            ");
	fmt_fputs(o, sbm_describe(&c->metric, desc, sizeof(desc)));
	fprintf(o, ", %s is better\n", c->metric.higher_better ? "higher" : "lower");
	if (c->cgroup[0]) {
		fprintf(o, "Workload cgroup   ");
		fmt_fputs(o, c->cgroup);
		fprintf(o, " (v%d): the run ends if it vanishes or empties; kernel figures of the cgroup where it gives them\n",
			p->cgroup_version);
	}
	print_schedule(o, c, p);
	print_budget(o, c, p);
	fprintf(o, "Guardrails        ");
	if (c->psi_full_max > 0)
		fprintf(o, "a candidate window whose PSI memory full of the %s over %.0f s passes %g %% is switched back at once and fails; ",
			p->psi_scope, c->guard_span_s, c->psi_full_max);
	if (c->psi_some_max > 0)
		fprintf(o, "%s PSI memory some passes %g %%; ", c->psi_full_max > 0 ? "the same when" :
			"a candidate window is switched back at once and fails when", c->psi_some_max);
	fprintf(o, "%u failed windows end the run; a change also needs PSI memory some and full shown not to rise by 10 and 5 points\n",
		c->max_failures);
	fprintf(o, "Host changes      written at each switch, journaled first, put back at the end:\n");
	for (int t = 0; t < p->ntouch; t++)
		fprintf(o, "  %-28s now %s\n", p->touch[t].name, p->touch[t].current);
	fprintf(o, "Carryover check   %s\n", p->slices_of_metric && p->n_slices ?
		"the metric per slice of every window (early against late counted parts)" :
		"none: a command gives one number per window");
	fprintf(o, "Seed              %llu\n", (unsigned long long)p->design.plan.seed);
}

cJSON *cmd_sb_plan_json(const struct sbrun_config *c, const struct sbrun_plan *p)
{
	cJSON *doc = cJSON_CreateObject(), *pl = sbrun_params_json(c, p), *b, *a;

	cJSON_AddStringToObject(doc, "schema", SBRUN_SCHEMA);
	cJSON_AddStringToObject(doc, "status", "planned");
	b = cJSON_AddObjectToObject(pl, "budget");
	cJSON_AddNumberToObject(b, "duration_s", p->budget.duration_s);
	cJSON_AddNumberToObject(b, "counted_s", p->budget.counted_s);
	a = cJSON_AddArrayToObject(b, "p_floor");
	for (unsigned k = 0; k < p->design.plan.n_looks; k++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(p->budget.p_floor[k]));
	cJSON_AddNumberToObject(b, "first_decidable_look", p->design.first_decidable_look + 1);
	a = cJSON_AddArrayToObject(b, "effect80_pct");
	for (int i = 0; i < 3; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "sd_contrast_pct", 5.0 * (i + 1));
		fmt_json_num(e, "effect_pct", p->effect80[i]);
		cJSON_AddItemToArray(a, e);
	}
	cJSON_AddItemToObject(doc, "plan", pl);
	return doc;
}

static cJSON *window_json(const struct sbrun_stored *s, const struct sbrun_window *w)
{
	cJSON *o = cJSON_CreateObject(), *k = cJSON_AddObjectToObject(o, "kernel");

	cJSON_AddNumberToObject(o, "index", w->index);
	cJSON_AddNumberToObject(o, "block", w->block + 1);
	cJSON_AddStringToObject(o, "arm", s->arms[w->arm].name);
	cJSON_AddStringToObject(o, "started_at", w->started_at);
	fmt_json_num(o, "start_s", w->start_s);
	fmt_json_num(o, "switch_s", w->switch_s);
	fmt_json_num(o, "count_start_s", w->count_start_s);
	fmt_json_num(o, "end_s", w->end_s);
	cJSON_AddStringToObject(o, "outcome", w->outcome == SB_WIN_OK ? "ok" : "failed");
	fmt_json_num(o, "value", w->value);
	if (w->failure[0])
		cJSON_AddStringToObject(o, "failure", w->failure);
	else
		cJSON_AddNullToObject(o, "failure");
	fmt_json_num(o, "failed_at_s", w->failed_at_s);
	for (int f = 0; f < SBK_COUNT; f++)
		fmt_json_num(k, sbm_kernel_defs[f].key, w->kern[f]);
	return o;
}

cJSON *cmd_sb_result_json(const struct sbrun_result *r, const struct sbrun_stored *s)
{
	cJSON *doc = cJSON_CreateObject(), *w;

	cJSON_AddStringToObject(doc, "schema", SBRUN_SCHEMA);
	cJSON_AddNumberToObject(doc, "run_id", (double)s->run_id);
	cJSON_AddStringToObject(doc, "status", r ? r->status : s->status);
	cJSON_AddStringToObject(doc, "stop_reason", r ? r->stop_reason : s->stop_reason);
	if (r) {
		cJSON *rs = cJSON_AddObjectToObject(doc, "restore");

		cJSON_AddNumberToObject(rs, "restored", r->restored);
		cJSON_AddBoolToObject(rs, "complete", !r->restore_error[0]);
		if (r->restore_error[0])
			cJSON_AddStringToObject(rs, "error", r->restore_error);
		cJSON_AddNumberToObject(doc, "elapsed_s", r->elapsed_s);
	}
	cJSON_AddItemToObject(doc, "verdict", sbrun_verdict_json(s));
	w = cJSON_AddArrayToObject(doc, "windows");
	for (unsigned i = 0; i < s->n_windows; i++)
		cJSON_AddItemToArray(w, window_json(s, &s->w[i]));
	return doc;
}

/* Progress on stderr, a line per window in plain mode. */
static void sb_progress(const struct sbrun_progress *p, void *arg)
{
	const enum cmd_progress *mode = arg;
	bool tty = *mode == CMD_PROGRESS_TTY;
	char eta[32];

	fprintf(stderr, tty ? "\r\033[Kswitchback: " : "switchback: ");
	if (p->phase == SBRUN_PHASE_WINDOW)
		fprintf(stderr, "window %u/%u (block %u/%u, arm %s): ", p->window, p->windows, p->block,
			p->blocks, p->arm ? p->arm : "-");
	else if (p->phase == SBRUN_PHASE_GUARD)
		fprintf(stderr, "window %u/%u: guardrail: ", p->window, p->windows);
	fmt_fputs(stderr, p->msg ? p->msg : "");
	if (p->phase == SBRUN_PHASE_WINDOW)
		fprintf(stderr, "; %s left at most", secs(p->eta_s > 0 ? p->eta_s - 1 : 0, eta, sizeof(eta)));
	fprintf(stderr, tty ? "" : "\n");
	fflush(stderr);
}

static int run_locked(struct cmd_ctx *ctx, struct sbrun_config *c, const struct sbrun_plan *p,
		      struct sb_args *a, struct sbrun_result *r)
{
	struct sigaction sa, old_int, old_term, old_hup;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	c->stop = &sb_stop;
	a->progress = cmd_progress_resolve(a->progress, ctx->json);
	if (a->progress != CMD_PROGRESS_NONE) {
		c->progress = sb_progress;
		c->progress_arg = &a->progress;
	}
	rc = sbrun_run(&ctx->host, &ctx->store, c, p, r, &ctx->err);
	if (a->progress == CMD_PROGRESS_TTY)
		fprintf(stderr, "\r\033[K");
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return rc;
}

int cmd_sb_execute(struct cmd_ctx *ctx, const char *what, struct sbrun_config *c,
		   const struct sbrun_plan *p, struct sb_args *a, struct sbrun_result *r,
		   struct sbrun_stored *s)
{
	char q[200], t[32];
	int lockfd = -1, rc, rc2;

	rc = change_lock(&ctx->store, &ctx->host, what, ctx->db_path, !c->verify_of, &lockfd, &ctx->err);
	if (rc < 0)
		return rc;
	if (!a->yes && isatty(STDIN_FILENO))
		sbrun_plan_print(stderr, c, p);
	snprintf(q, sizeof(q), "switch %s under the running workload for up to %s",
		 p->ntouch ? p->touch[0].name : "the settings", secs(p->budget.duration_s, t, sizeof(t)));
	if ((rc = change_ask(q, a->yes, &ctx->err)) < 0) {
		change_unlock(lockfd);
		return rc;
	}
	rc = run_locked(ctx, c, p, a, r);
	change_unlock(lockfd);
	if (r->run_id <= 0)
		return rc;
	rc2 = sbrun_load(&ctx->store, &ctx->host, r->run_id, s, rc < 0 ? NULL : &ctx->err);
	if (rc < 0)
		return rc;
	if (rc2 < 0)
		return rc2;
	if (r->signal)
		return 128 + r->signal;
	return 0;
}

static int print_result(struct cmd_ctx *ctx, const struct sbrun_result *r, const struct sbrun_stored *s)
{
	if (ctx->json)
		return cmd_print_json(ctx, cmd_sb_result_json(r, s));
	sbrun_verdict_print(ctx->out, s);
	fprintf(ctx->out, "Stored as run %lld: swaptune report --run %lld -o switchback-%lld.html (timeline); "
		"swaptune apply --run %lld applies a change\n", (long long)s->run_id, (long long)s->run_id,
		(long long)s->run_id, (long long)s->run_id);
	return 0;
}

/* The whole command line into c and a: options, their checks, the arms (the TUI's form too). */
static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct sbrun_config *c,
		      struct sb_args *a)
{
	int opt, rc;

	cmd_sb_init(c, a);
	while ((opt = cmd_getopt(ctx, &cmd_switchback_entry, argc, argv, "", cmd_sb_longopts)) != -1) {
		if (opt == -2 || (rc = cmd_sb_parse_opt(ctx, &cmd_switchback_entry, c, a, opt, argc, argv)) < 0)
			return -EINVAL;
		if (rc == 1)
			return cmd_usage_error(ctx, &cmd_switchback_entry, "unexpected option");
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_switchback_entry, "unexpected argument \"%s\"", argv[optind]);
	if ((rc = cmd_sb_finish(ctx, &cmd_switchback_entry, c, a)) < 0)
		return rc;
	return resolve_arms(ctx, &cmd_switchback_entry, c, a);
}

int sbrun_config_parse(const struct host *h, int argc, char **argv, struct sbrun_config *c,
		       struct st_err *e)
{
	struct cmd_ctx *ctx = calloc(1, sizeof(*ctx));
	struct sb_args a;
	int rc;

	if (!ctx)
		return err_set(e, -ENOMEM, "out of memory");
	ctx->host = *h;		/* borrowed: never closed here */
	ctx->out = stdout;
	optind = 0;		/* getopt starts afresh (glibc) */
	rc = parse_args(ctx, argc, argv, c, &a);
	if (rc < 0 && e)
		*e = ctx->err;
	free(ctx);
	return rc < 0 ? rc : 0;
}

static int switchback_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct sbrun_config *c = calloc(1, sizeof(*c));
	struct sbrun_plan *p = calloc(1, sizeof(*p));
	struct sbrun_result *r = calloc(1, sizeof(*r));
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct sb_args a;
	int rc = 0;

	if (!c || !p || !r || !s) {
		rc = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = parse_args(ctx, argc, argv, c, &a)) < 0 ||
	    (rc = sbrun_plan(&ctx->host, c, p, &ctx->err)) < 0)
		goto out;
	if (a.dry) {
		if (ctx->json)
			rc = cmd_print_json(ctx, cmd_sb_plan_json(c, p));
		else
			sbrun_plan_print(ctx->out, c, p);
		goto out;
	}
	if (!ctx->host.live) {
		rc = err_set_exit(&ctx->err, -EOPNOTSUPP, ST_EXIT_USAGE,
				  "switchback changes the running kernel's settings; with --sysroot use --dry-run");
		goto out;
	}
	rc = cmd_sb_execute(ctx, "switchback", c, p, &a, r, s);
	if (r->run_id > 0 && s->w) {
		int r2 = print_result(ctx, r, s);

		if (rc == 0)
			rc = r2;
	}
	if (rc == 0 && !strcmp(r->status, "stopped") && ctx->json) {
		/* the document says so (status, stop_reason): exit 1 without an error document after it */
		fputs("swaptune: switchback stopped early: ", stderr);
		fmt_fputs(stderr, r->stop_reason);
		fputs("; the settings were restored\n", stderr);
		rc = ST_EXIT_RUNTIME;
	} else if (rc == 0 && !strcmp(r->status, "stopped"))
		rc = err_set_exit(&ctx->err, -ECANCELED, ST_EXIT_RUNTIME, "switchback stopped early: %s; the settings were restored",
				  r->stop_reason);
	else if (rc > 128)
		fprintf(stderr, "swaptune: switchback stopped by signal %d; the settings were restored (%d change%s undone)\n",
			rc - 128, r->restored, r->restored == 1 ? "" : "s");
out:
	if (r)
		sbrun_result_free(r);
	if (s)
		sbrun_stored_free(s);
	free(c);
	free(p);
	free(r);
	free(s);
	return rc;
}

const struct cmd_entry cmd_switchback_entry = {
	.name = "switchback",
	.summary = "A/B-test readahead settings on the host's own running workload, window by window",
	.usage = "[--arms LIST] [--arm NAME:KEY=VAL,...] [--window DUR] [--washout DUR] [--blocks N] "
		 "[--metric NAME | --metric-cmd 'PROG ARGS' | --metric-file PATH | --metric-prom URL NAME] "
		 "[--cgroup PATH] [--yes] [--dry-run] [OPTIONS]",
	.options = sb_options,
	.flags = CMD_NEEDS_ROOT,
	.exec = switchback_exec,
};
