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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-switchback.h"
#include "swaptune/change.h"
#include "swaptune/fmt.h"
#include "swaptune/stop.h"

#define DEFAULT_ARMS "pc3,pc0"

/* The struct sb_args a row's dst (its field c) belongs to. */
static struct sb_args *args_of(void *dst)
{
	return (struct sb_args *)((char *)dst - offsetof(struct sb_args, c));
}

/* A duration of min_s seconds to a day, in seconds. */
static int parse_dur(const struct opt_spec *o, const char *v, double min_s, double *out,
		     struct st_err *e)
{
	long long ns;

	if (fmt_parse_duration(v, &ns) < 0 || (double)ns / 1e9 < min_s || ns > 86400LL * 1000000000LL)
		return err_set(e, -EINVAL, "--%s: \"%s\" is not a duration of %g s to a day", o->name, v, min_s);
	*out = (double)ns / 1e9;
	return 0;
}

static int opt_window(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	return parse_dur(o, v, 2, &args_of(dst)->c->plan.window_s, e);
}

static int opt_washout(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	args_of(dst)->washout_given = true;
	return parse_dur(o, v, 0, &args_of(dst)->c->plan.washout_s, e);
}

static int opt_max_time(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	return parse_dur(o, v, 1, &args_of(dst)->c->max_time_s, e);
}

static int opt_metric_timeout(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	return parse_dur(o, v, 0.1, &args_of(dst)->c->metric.timeout_s, e);
}

static int opt_blocks(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	long long n;

	(void)o;
	if (fmt_parse_i64(v, 2, SB_BLOCKS_MAX, &n) < 0)
		return err_set(e, -EINVAL, "--blocks must be 2..%d", SB_BLOCKS_MAX);
	args_of(dst)->c->plan.n_blocks = (unsigned)n;
	return 0;
}

static int opt_looks(const struct opt_spec *o, const char *list, void *dst, struct st_err *e)
{
	struct sb_plan *p = &args_of(dst)->c->plan;
	char buf[256], *save = NULL;

	(void)o;
	snprintf(buf, sizeof(buf), "%s", list);
	p->n_looks = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long long v;

		if (p->n_looks >= SB_LOOKS_MAX || fmt_parse_i64(t, 2, SB_BLOCKS_MAX, &v) < 0 ||
		    (p->n_looks && (unsigned)v <= p->looks[p->n_looks - 1]))
			return err_set(e, -EINVAL, "--looks needs increasing blocks 2..%d, at most %d of them, like 8,12,15",
				       SB_BLOCKS_MAX, SB_LOOKS_MAX);
		p->looks[p->n_looks++] = (unsigned)v;
	}
	if (!p->n_looks)
		return err_set(e, -EINVAL, "--looks needs a list of blocks like 8,12,15");
	return 0;
}

static int opt_seed(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sb_args *a = args_of(dst);
	long long n;

	(void)o;
	if (fmt_parse_i64(v, 0, (1LL << 53) - 1, &n) < 0)
		return err_set(e, -EINVAL, "--seed: \"%s\" is not a number below 2^53", v);
	a->c->plan.seed = (uint64_t)n;
	a->seed_given = true;
	return 0;
}

static int opt_cgroup(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sbrun_config *c = args_of(dst)->c;

	(void)o;
	if (strlen(v) >= sizeof(c->cgroup))
		return err_set(e, -EINVAL, "--cgroup is too long");
	snprintf(c->cgroup, sizeof(c->cgroup), "%s", v);
	return 0;
}

static int opt_psi_max(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sbrun_config *c = args_of(dst)->c;

	if (fmt_parse_real(v, 0, 100, !strcmp(o->name, "psi-full-max") ? &c->psi_full_max :
			   &c->psi_some_max) < 0)
		return err_set(e, -EINVAL, "--%s needs a percentage 0..100", o->name);
	return 0;
}

static int opt_max_failures(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	long long n;

	(void)o;
	if (fmt_parse_i64(v, 0, SBRUN_WINDOWS_MAX, &n) < 0)
		return err_set(e, -EINVAL, "--max-failures must be 0..%d (0 = no limit)", SBRUN_WINDOWS_MAX);
	args_of(dst)->c->max_failures = (unsigned)n;
	return 0;
}

/* ---- the metric ---- */

static int set_source(struct sb_args *a, enum sbm_source s, struct st_err *e)
{
	bool cpw = a->c->metric.cpu_per_work;

	if (a->sources++)
		return err_set(e, -EINVAL, "give one of --metric-cmd, --metric-file and --metric-prom");
	sbm_spec_init(&a->c->metric, s);
	a->c->metric.cpu_per_work = cpw;
	return 0;
}

static int opt_metric(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sbm_spec *m = &args_of(dst)->c->metric;
	int k;

	(void)o;
	if (!strcmp(v, "cpu-per-work")) {
		m->cpu_per_work = true;
		return 0;
	}
	if ((k = sbm_kernel_find(v)) < 0)
		return err_set(e, -EINVAL, "--metric %s: give psi-some, psi-full, majfault, refault, swapin, swap-ra, swap-ra-hit, zswpin, cpu or cpu-per-work", v);
	if (m->source != SBM_KERNEL)
		return err_set(e, -EINVAL, "--metric %s is a kernel figure: it does not go with --metric-cmd, --metric-file or --metric-prom (except cpu-per-work)", v);
	m->kernel = (enum sbm_kernel)k;
	return 0;
}

static int opt_metric_cmd(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sb_args *a = args_of(dst);
	struct sbm_spec *m = &a->c->metric;

	(void)o;
	if (strlen(v) >= sizeof(m->cmd))
		return err_set(e, -EINVAL, "--metric-cmd: one command, shorter than %zu", sizeof(m->cmd));
	if (set_source(a, SBM_CMD, e) < 0)
		return -EINVAL;
	snprintf(m->cmd, sizeof(m->cmd), "%s", v);
	return 0;
}

static int opt_metric_file(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sb_args *a = args_of(dst);
	struct sbm_spec *m = &a->c->metric;

	(void)o;
	if (strlen(v) >= sizeof(m->path))
		return err_set(e, -EINVAL, "--metric-file: a path shorter than %zu", sizeof(m->path));
	if (set_source(a, SBM_FILE, e) < 0)
		return -EINVAL;
	snprintf(m->path, sizeof(m->path), "%s", v);
	return 0;
}

/* --metric-prom URL NAME: NAME is the next word (getopt's optind), taken here. */
static int opt_metric_prom(const struct opt_spec *o, const char *url, void *dst, struct st_err *e)
{
	struct sb_args *a = args_of(dst);
	struct sbm_spec *m = &a->c->metric;
	char h[256], p[16], path[SBM_URL_MAX], why[300];
	const char *name;

	(void)o;
	if (optind >= a->argc || a->argv[optind][0] == '-')
		return err_set(e, -EINVAL, "--metric-prom needs a URL and a metric NAME");
	name = a->argv[optind];
	if (sbm_url_parse(url, h, sizeof(h), p, sizeof(p), path, sizeof(path), why, sizeof(why)) < 0)
		return err_set(e, -EINVAL, "--metric-prom: %s", why);
	if (strlen(url) >= sizeof(m->url) || strlen(name) >= sizeof(m->name))
		return err_set(e, -EINVAL, "--metric-prom: the URL or NAME is too long");
	if (set_source(a, SBM_PROM, e) < 0)
		return -EINVAL;
	snprintf(m->url, sizeof(m->url), "%s", url);
	snprintf(m->name, sizeof(m->name), "%s", name);
	optind++;
	return 0;
}

static int opt_metric_name(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sbm_spec *m = &args_of(dst)->c->metric;

	(void)o;
	if (strlen(v) >= sizeof(m->name))
		return err_set(e, -EINVAL, "--metric-name is too long");
	snprintf(m->name, sizeof(m->name), "%s", v);
	return 0;
}

#define SB_ROW(n, a, h, fn, comp) OPT_CUSTOM(n, 0, a, h, struct sb_args, c, fn, comp)

const struct opt_spec cmd_sb_design_opts[] = {
	SB_ROW("window", "DUR", "length of one window (default 30s)", opt_window, OPT_COMPLETE_NONE),
	SB_ROW("washout", "DUR", "the start of every window that is not counted, after a switch "
	       "(default half the window)", opt_washout, OPT_COMPLETE_NONE),
	SB_ROW("blocks", "N", "blocks of one window per arm, each in a fresh random order (default 15)",
	       opt_blocks, OPT_COMPLETE_NONE),
	SB_ROW("looks", "LIST", "judge after these blocks, stopping at the first look that decides "
	       "(default 8,12,15)", opt_looks, OPT_COMPLETE_NONE),
	SB_ROW("max-time", "DUR", "budget: keep only the blocks (and looks) that fit DUR (default: all)",
	       opt_max_time, OPT_COMPLETE_NONE),
	SB_ROW("seed", "N", "seed of the block orders (default: a fresh random seed, recorded)",
	       opt_seed, OPT_COMPLETE_NONE),
	SB_ROW("metric", "NAME", "a kernel figure per window: psi-some (default), psi-full, majfault, "
	       "refault, swapin, swap-ra, zswpin, cpu (of --cgroup); cpu-per-work with a workload "
	       "metric below", opt_metric, OPT_COMPLETE_NONE),
	SB_ROW("metric-cmd", "CMD", "the workload's figure: a command 'PROG ARGS' (no shell) run at "
	       "the end of each window that prints a number; SWAPTUNE_COUNT_START and "
	       "SWAPTUNE_WINDOW_END (Unix times) give the counted part", opt_metric_cmd,
	       OPT_COMPLETE_NONE),
	SB_ROW("metric-file", "PATH", "the workload's figure: a number in a local file (with "
	       "--metric-name, a sample of Prometheus text in it), read every second",
	       opt_metric_file, OPT_COMPLETE_FILE),
	SB_ROW("metric-prom", "URL NAME", "the workload's figure: sample NAME (or NAME{label=\"v\"}) "
	       "of a Prometheus text endpoint on this host, read every second", opt_metric_prom,
	       OPT_COMPLETE_NONE),
	SB_ROW("metric-name", "NAME", "with --metric-file: the sample of Prometheus text to read",
	       opt_metric_name, OPT_COMPLETE_NONE),
	OPT_FLAG("metric-counter", 0, "the figure is a cumulative counter: its rate per second over "
		 "each window (default for files and endpoints)", struct sb_args, counter_flag),
	OPT_FLAG("metric-gauge", 0, "the figure is a level: its mean over each window (a command's: "
		 "the number it prints; default for commands)", struct sb_args, gauge_flag),
	OPT_FLAG("higher-better", 0, "for a workload figure: higher is better (one of these two is "
		 "required)", struct sb_args, higher_flag),
	OPT_FLAG("lower-better", 0, "for a workload figure: lower is better", struct sb_args,
		 lower_flag),
	SB_ROW("metric-timeout", "DUR", "a command or endpoint that takes longer fails its window "
	       "(default 10s for commands, 2s for endpoints; at most half the washout)",
	       opt_metric_timeout, OPT_COMPLETE_NONE),
	SB_ROW("cgroup", "PATH", "the workload's memory cgroup (relative to the controller's root): "
	       "its PSI, faults and CPU; the run ends when it vanishes or empties", opt_cgroup,
	       OPT_COMPLETE_NONE),
	SB_ROW("psi-full-max", "PCT", "guardrail: a candidate window whose PSI memory full over 5 s "
	       "passes PCT is switched back at once and fails (default 60, 0 = off)", opt_psi_max,
	       OPT_COMPLETE_NONE),
	SB_ROW("psi-some-max", "PCT", "the same for PSI memory some (default off)", opt_psi_max,
	       OPT_COMPLETE_NONE),
	SB_ROW("max-failures", "N", "failed windows that end the run, settings restored (default 3)",
	       opt_max_failures, OPT_COMPLETE_NONE),
	{ NULL },
};

/* ---- switchback's own rows: the arms (before the design rows) and the run (after) ---- */

static int opt_arm(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sb_args *a = args_of(dst);

	(void)o;
	if (a->ncustom >= SB_ARMS_MAX)
		return err_set(e, -EINVAL, "more than %d arms", SB_ARMS_MAX);
	a->custom[a->ncustom++] = v;
	return 0;
}

static int opt_min_effect(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	(void)o;
	if (fmt_parse_real(v, 0, 1000, &args_of(dst)->c->min_effect) < 0)
		return err_set(e, -EINVAL, "--min-effect needs a number 0..1000, not \"%s\"", v);
	return 0;
}

static const struct opt_spec sb_arm_opts[] = {
	OPT_STRING("arms", 0, "LIST", "built-in arms: pc3, pc1, pc0 (vm.page-cluster) (default " DEFAULT_ARMS ")",
		   struct sb_args, arms_list, "a list of arms", OPT_COMPLETE_NONE),
	SB_ROW("arm", "NAME:KEY=VAL,...", "a custom arm over the settings registry (repeatable)",
	       opt_arm, OPT_COMPLETE_NONE),
	OPT_STRING("baseline", 0, "NAME", "arm to compare against (default: the arm matching the host "
		   "now, else the first)", struct sb_args, baseline, "an arm name", OPT_COMPLETE_NONE),
	SB_ROW("min-effect", "X", "smallest gain worth a change: percent for rates, points for PSI "
	       "(default 2)", opt_min_effect, OPT_COMPLETE_NONE),
	{ NULL },
};

static const struct opt_spec sb_run_opts[] = {
	OPT_FLAG("yes", 0, "do not ask before switching host settings (needed without a terminal)",
		 struct sb_args, yes),
	CMD_OPT_DRY_RUN("print the schedule, the budget, what changes and the smallest effect it can "
			"show; change nothing", struct sb_args, dry),
	OPT_CHOICE("progress", "MODE", "auto (a live line on a terminal), tty, plain (one line per "
		   "window on stderr) or none", struct sb_args, progress, cmd_progress_names),
	{ NULL },
};

void cmd_sb_init(struct sbrun_config *c, struct sb_args *a, int argc, char **argv)
{
	sbrun_config_init(c);
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->argc = argc;
	a->argv = argv;
	a->progress = CMD_PROGRESS_AUTO;
}

int cmd_sb_finish(struct cmd_ctx *ctx, const struct cmd_entry *ce, struct sbrun_config *c,
		  struct sb_args *a)
{
	struct sbm_spec *m = &c->metric;
	struct sb_plan *pl = &c->plan;

	if (a->higher_flag && a->lower_flag)
		return cmd_usage_error(ctx, ce, "--higher-better and --lower-better: give one");
	if (a->counter_flag && a->gauge_flag)
		return cmd_usage_error(ctx, ce, "--metric-counter and --metric-gauge: give one");
	a->direction_given = a->higher_flag || a->lower_flag;
	if (a->direction_given)
		m->higher_better = a->higher_flag;
	a->kind_given = a->counter_flag || a->gauge_flag;
	a->counter = a->counter_flag;
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
	const int *mode = arg;		/* struct sb_args.progress: an enum cmd_progress */
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
	struct stop_catch stop;
	int rc;

	stop_catch(&stop, 0);
	c->stop = &stop_signal;
	a->progress = (int)cmd_progress_resolve((enum cmd_progress)a->progress, ctx->json);
	if (a->progress != CMD_PROGRESS_NONE) {
		c->progress = sb_progress;
		c->progress_arg = &a->progress;
	}
	rc = sbrun_run(&ctx->host, &ctx->store, c, p, r, &ctx->err);
	if (a->progress == CMD_PROGRESS_TTY)
		fprintf(stderr, "\r\033[K");
	stop_release(&stop);
	return rc;
}

int cmd_sb_plan_only(struct cmd_ctx *ctx, const struct sbrun_config *c, const struct sbrun_plan *p,
		     bool dry, const char *what)
{
	int rc;

	if (dry) {
		if (!ctx->json) {
			sbrun_plan_print(ctx->out, c, p);
			return 1;
		}
		rc = cmd_print_json(ctx, cmd_sb_plan_json(c, p));
		return rc < 0 ? rc : 1;
	}
	if (!ctx->host.live)
		return err_set_exit(&ctx->err, -EOPNOTSUPP, ST_EXIT_USAGE,
				    "%s the running kernel's settings; with --sysroot use --dry-run", what);
	return 0;
}

void cmd_sb_say_stopped(const char *what, const char *reason)
{
	/* the reason may quote the metric command's stderr: through the one escaper */
	fprintf(stderr, "swaptune: %s stopped early: ", what);
	fmt_fputs(stderr, reason);
	fputs("; the settings were restored\n", stderr);
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
	void *const args[OPT_TABLES_MAX] = { a, a, a };
	int rc;

	cmd_sb_init(c, a, argc, argv);
	if ((rc = cmd_parse_sets(ctx, &cmd_switchback_entry, argc, argv, args, NULL)) < 0)
		return rc;
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
	if ((rc = cmd_sb_plan_only(ctx, c, p, a.dry, "switchback changes")) != 0) {
		rc = rc > 0 ? 0 : rc;
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
		cmd_sb_say_stopped("switchback", r->stop_reason);
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
		 "[--metric NAME] [--metric-cmd CMD] [--metric-file PATH] [--metric-prom URL NAME] "
		 "[--cgroup PATH] [--yes] [--dry-run] [OPTIONS]",
	.group = CMD_GROUP_MEASURE,
	.opts = { sb_arm_opts, cmd_sb_design_opts, sb_run_opts },
	.flags = CMD_NEEDS_ROOT,
	.exec = switchback_exec,
};
