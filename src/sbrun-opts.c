/*
 * sbrun-opts.c - a switchback's configuration from options: the arm,
 * design, metric and guardrail rows (`switchback` includes them all,
 * `verify --live` the design rows, the TUI's form fills them), the checks
 * left after parsing, the arms with the baseline first, and
 * sbrun_config_parse(), the whole of it for a form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/fmt.h"
#include "swaptune/sbrun.h"
#include "swaptune/settings.h"

#define DEFAULT_ARMS "pc3,pc0"

/* The struct sbrun_args a row's dst (its field c) belongs to. */
static struct sbrun_args *args_of(void *dst)
{
	return (struct sbrun_args *)((char *)dst - offsetof(struct sbrun_args, c));
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
	struct sbrun_args *a = args_of(dst);
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

static int set_source(struct sbrun_args *a, enum sbm_source s, struct st_err *e)
{
	bool cpw = a->c->metric.cpu_per_work;

	if (a->sources++)
		return err_set(e, -EINVAL, "give one of --metric-cmd, --metric-file and --metric-prom");
	sbm_spec_init(&a->c->metric, s);
	a->c->metric.cpu_per_work = cpw;
	return 0;
}

/* --metric's names: the kernel figures, then cpu-per-work (did you mean, completion). */
static const char *metric_name_at(size_t i)
{
	return i < SBK_COUNT ? sbm_kernel_defs[i].name : i == SBK_COUNT ? "cpu-per-work" : NULL;
}

static const char *metric_name_at_arg(size_t i, void *arg)
{
	(void)arg;
	return metric_name_at(i);
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
	if ((k = sbm_kernel_find(v)) < 0) {
		const char *guess = opt_closest(v, metric_name_at_arg, NULL);
		char names[512];
		size_t n = 0;

		names[0] = 0;
		if (guess)
			return err_set(e, -EINVAL, "--metric %s: did you mean %s?", v, guess);
		for (int f = 0; f < SBK_COUNT && n < sizeof(names); f++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s, ", sbm_kernel_defs[f].name);
		return err_set(e, -EINVAL, "--metric %s: give %.*s or cpu-per-work", v,
			       n >= 2 && n < sizeof(names) ? (int)n - 2 : (int)strlen(names), names);
	}
	if (m->source != SBM_KERNEL)
		return err_set(e, -EINVAL, "--metric %s is a kernel figure: it does not go with --metric-cmd, --metric-file or --metric-prom (except cpu-per-work)", v);
	m->kernel = (enum sbm_kernel)k;
	return 0;
}

static int opt_metric_cmd(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sbrun_args *a = args_of(dst);
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
	struct sbrun_args *a = args_of(dst);
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
	struct sbrun_args *a = args_of(dst);
	struct sbm_spec *m = &a->c->metric;
	struct sbm_url u;
	char why[300];
	const char *name;

	(void)o;
	if (optind >= a->argc || a->argv[optind][0] == '-')
		return err_set(e, -EINVAL, "--metric-prom needs a URL and a metric NAME");
	name = a->argv[optind];
	if (sbm_url_parse(url, &u, why, sizeof(why)) < 0)
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

#define SB_ROW(n, a, h, fn, comp) OPT_CUSTOM(n, 0, a, h, struct sbrun_args, c, fn, comp)

/* --metric: --help lists the names, the counter table's WINDOW rows (metric_name_at()) */
static const char metric_help[] = "a kernel figure per window (default psi-some; cpu: of "
	"--cgroup), or cpu-per-work with a workload metric below";

const struct opt_spec sbrun_design_opts[] = {
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
	{ OPT_ROW("metric", 0, "NAME", metric_help, opt_metric, offsetof(struct sbrun_args, c)),
	  .complete = OPT_COMPLETE_CHOICES, .choice_at = metric_name_at,
	  .flags = OPT_HELP_CHOICES | OPT_CHOICES_GROW },
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
		 "each window (default for files and endpoints)", struct sbrun_args, counter_flag),
	OPT_FLAG("metric-gauge", 0, "the figure is a level: its mean over each window (a command's: "
		 "the number it prints; default for commands)", struct sbrun_args, gauge_flag),
	OPT_FLAG("higher-better", 0, "for a workload figure: higher is better (one of these two is "
		 "required)", struct sbrun_args, higher_flag),
	OPT_FLAG("lower-better", 0, "for a workload figure: lower is better", struct sbrun_args,
		 lower_flag),
	SB_ROW("metric-timeout", "DUR", "a command or endpoint that takes longer fails its window "
	       "(default 10s for commands, 2s for endpoints; at most half the washout)",
	       opt_metric_timeout, OPT_COMPLETE_NONE),
	SB_ROW("cgroup", "PATH", "the workload's memory cgroup (relative to the controller's root): "
	       "its PSI, faults and CPU; the run ends when it vanishes, empties or OOM-kills a process", opt_cgroup,
	       OPT_COMPLETE_NONE),
	SB_ROW("psi-full-max", "PCT", "guardrail: a candidate window whose PSI memory full over 5 s "
	       "passes PCT is switched back at once and fails (default 60, 0 = off)", opt_psi_max,
	       OPT_COMPLETE_NONE),
	SB_ROW("psi-some-max", "PCT", "the same for PSI memory some (default off)", opt_psi_max,
	       OPT_COMPLETE_NONE),
	SB_ROW("max-failures", "N", "failed windows that end the run, settings restored (default 3; 0: never)",
	       opt_max_failures, OPT_COMPLETE_NONE),
	{ NULL },
};

/* ---- the arms, before the design rows ---- */

static int opt_arm(const struct opt_spec *o, const char *v, void *dst, struct st_err *e)
{
	struct sbrun_args *a = args_of(dst);

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

const struct opt_spec sbrun_arm_opts[] = {
	OPT_STRING("arms", 0, "LIST", "built-in arms: pc3, pc1, pc0 (vm.page-cluster) (default " DEFAULT_ARMS ")",
		   struct sbrun_args, arms_list, "a list of arms", OPT_COMPLETE_NONE),
	SB_ROW("arm", "NAME:KEY=VAL,...", "a custom arm over the settings registry (repeatable)",
	       opt_arm, OPT_COMPLETE_NONE),
	OPT_STRING("baseline", 0, "NAME", "arm to compare against (default: the arm matching the host "
		   "now, else the first)", struct sbrun_args, baseline, "an arm name", OPT_COMPLETE_NONE),
	SB_ROW("min-effect", "X", "smallest gain worth a change: percent for rates, points for PSI "
	       "(default 2)", opt_min_effect, OPT_COMPLETE_NONE),
	{ NULL },
};

void sbrun_args_init(struct sbrun_config *c, struct sbrun_args *a, const char *cmd, int argc,
		     char **argv)
{
	sbrun_config_init(c);
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->argc = argc;
	a->argv = argv;
	a->cmd = cmd;
}

int sbrun_args_finish(struct sbrun_config *c, struct sbrun_args *a, struct st_err *e)
{
	struct sbm_spec *m = &c->metric;
	struct sb_plan *pl = &c->plan;

	if (a->higher_flag && a->lower_flag)
		return err_usage(e, a->cmd, "--higher-better and --lower-better: give one");
	if (a->counter_flag && a->gauge_flag)
		return err_usage(e, a->cmd, "--metric-counter and --metric-gauge: give one");
	a->direction_given = a->higher_flag || a->lower_flag;
	if (a->direction_given)
		m->higher_better = a->higher_flag;
	a->kind_given = a->counter_flag || a->gauge_flag;
	a->counter = a->counter_flag;
	if (!a->washout_given)
		pl->washout_s = pl->window_s / 2;
	if (!(pl->washout_s < pl->window_s))
		return err_usage(e, a->cmd, "the washout (%g s) must be shorter than the window (%g s)",
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
			return err_usage(e, a->cmd, "--metric %s is a kernel figure: lower is better",
					       sbm_kernel_defs[m->kernel].name);
		if (a->kind_given)
			return err_usage(e, a->cmd, "--metric-counter and --metric-gauge go with a workload metric");
		m->higher_better = false;
	} else {
		if (m->source == SBM_KERNEL)
			return err_usage(e, a->cmd, "--metric cpu-per-work needs the work: --metric-cmd, --metric-file or --metric-prom with a counter");
		if (!a->direction_given && !m->cpu_per_work)
			return err_usage(e, a->cmd, "say which way the workload's figure is better: --higher-better or --lower-better");
		if (a->kind_given)
			m->counter = a->counter;
		if (m->cpu_per_work) {
			if (!m->counter)
				return err_usage(e, a->cmd, "--metric cpu-per-work needs the work as a counter (--metric-counter)");
			m->higher_better = false;
		}
		if (m->source == SBM_PROM && !m->name[0])
			return err_usage(e, a->cmd, "--metric-prom needs a metric NAME");
		if (m->source == SBM_CMD && m->name[0])
			return err_usage(e, a->cmd, "--metric-name goes with --metric-file");
		/* the command runs in the next window's washout: never longer than half of it */
		if (m->source == SBM_CMD && pl->washout_s > 0 && m->timeout_s > pl->washout_s / 2)
			m->timeout_s = pl->washout_s / 2;
	}
	if (m->name[0] && m->source == SBM_KERNEL)
		return err_usage(e, a->cmd, "--metric-name goes with --metric-file");
	if (!a->seed_given)
		pl->seed = probe_seed_random();
	return 0;
}

/* Arms from --arms/--arm, the baseline first: the named one, else the host's own, else the first. */
int sbrun_arms_resolve(const struct host *h, struct sbrun_config *c, const struct sbrun_args *a,
		       struct st_err *e)
{
	struct probe_arm arms[PROBE_ARMS_MAX];
	int n = 0, base = -1, r;

	if ((a->arms_list || a->ncustom == 0) &&
	    (r = probe_arms_parse_list(a->arms_list ? a->arms_list : DEFAULT_ARMS, arms, PROBE_ARMS_MAX,
				       &n, e)) < 0)
		return r;
	for (int i = 0; i < a->ncustom; i++) {
		if (n >= PROBE_ARMS_MAX)
			return err_usage(e, a->cmd, "more than %d arms", SB_ARMS_MAX);
		if ((r = probe_arm_parse(h, a->custom[i], &arms[n], e)) < 0)
			return r;
		for (int k = 0; k < n; k++)
			if (!strcmp(arms[k].name, arms[n].name))
				return err_usage(e, a->cmd, "arm %s is given twice", arms[k].name);
		n++;
	}
	if (n < 2 || n > SB_ARMS_MAX)
		return err_usage(e, a->cmd, "a switchback needs 2 to %d arms, not %d", SB_ARMS_MAX, n);
	for (int i = 0; i < n && base < 0; i++) {
		bool same = !a->baseline;

		if (a->baseline)
			base = !strcmp(arms[i].name, a->baseline) ? i : -1;
		for (int k = 0; same && k < arms[i].nset; k++) {
			const struct setting_def *d = settings_find(arms[i].set[k].name);
			char now[SETTING_VALUE_MAX];

			same = d && settings_read(h, d, now, sizeof(now), NULL) == 0 &&
			       settings_equal(d, now, arms[i].set[k].value);
		}
		if (!a->baseline && same)
			base = i;
	}
	if (a->baseline && base < 0)
		return err_usage(e, a->cmd, "--baseline %s is not one of the arms", a->baseline);
	if (base < 0)
		base = 0;
	c->narms = n;
	c->arms[0] = arms[base];
	for (int i = 0, k = 1; i < n; i++)
		if (i != base)
			c->arms[k++] = arms[i];
	return 0;
}

int sbrun_config_parse(const struct host *h, int argc, char **argv, struct sbrun_config *c,
		       struct st_err *e)
{
	struct sbrun_args a;
	const struct opt_set sets[] = { { sbrun_arm_opts, &a }, { sbrun_design_opts, &a } };
	const struct opt_tables tables = { sets, sizeof(sets) / sizeof(sets[0]) };
	const char *unknown;
	int r;

	sbrun_args_init(c, &a, NULL, argc, argv);
	if ((r = opt_parse(&tables, argc, argv, NULL, &unknown, e)) < 0)
		return r;
	if (r < argc)
		return err_usage(e, NULL, "unexpected argument \"%s\"", argv[r]);
	if ((r = sbrun_args_finish(c, &a, e)) < 0)
		return r;
	return sbrun_arms_resolve(h, c, &a, e);
}
