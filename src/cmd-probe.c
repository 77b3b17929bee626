/*
 * cmd-probe.c - `swaptune probe`: parse the options into a probe_config,
 * show the plan (or only that, with --dry-run), take the host-change lock, ask
 * before changing host-wide settings, run the engine with a progress line,
 * and print the per-arm table or the JSON document.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/change.h"
#include "swaptune/advice.h"
#include "swaptune/cmd.h"
#include "swaptune/colour.h"
#include "swaptune/utc.h"
#include "swaptune/lock.h"
#include "swaptune/metric-extract.h"
#include "swaptune/probe.h"
#include "swaptune/stop.h"

#define MiB (1024ull * 1024)

/* Human durations: "45 s", "2 min 10 s". */
static const char *fmt_secs(double s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "unknown");
	else if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
	return buf;
}

/*
 * Progress on stderr: CMD_PROGRESS_TTY rewrites one line in place,
 * CMD_PROGRESS_PLAIN prints a line per step, with the time in UTC
 * ("2026-12-01T10:00:00Z probe: trial 3/12 (round 1/3, arm pc0), ETA 42 s")
 * that logs and Ansible can keep.
 */
void cmd_probe_progress(const struct probe_progress *p, void *arg)
{
	const enum cmd_progress *mode = arg;
	bool tty = *mode == CMD_PROGRESS_TTY;
	char eta[32], where[64], when[32];

	/* a log line says when: UTC, as every time swaptune prints */
	if (!tty)
		fprintf(stderr, "%s ", utc_iso(utc_now(), when, sizeof(when)));
	if (p->phase != PROBE_PHASE_TRIAL) {
		fprintf(stderr, tty && !p->keep ? "\r\033[Kprobe: %s" : tty ? "\r\033[Kprobe: %s\n" :
			"probe: %s\n", p->msg ? p->msg : "");
	} else {
		if (p->round == 0)
			snprintf(where, sizeof(where), "warm-up");
		else
			snprintf(where, sizeof(where), "round %u/%u", p->round,
				 p->round > p->rounds ? p->round : p->rounds);
		fprintf(stderr, tty ? "\r\033[Kprobe: trial %u/%u (%s, arm %s), ETA %s%s%s" :
			"probe: trial %u/%u (%s, arm %s), ETA %s%s%s\n", p->trial,
			p->trials, where, p->arm, fmt_secs(p->eta_s, eta, sizeof(eta)),
			p->msg ? "; " : "", p->msg ? p->msg : "");
	}
	fflush(stderr);
}

/*
 * Every host change and effect (probe_plan_changes()), one per line after
 * prefix: the dry run's "Host changes" block, and the lines every probe
 * prints as it starts.
 */
static void print_changes(FILE *o, const struct probe_config *c, const struct probe_plan *p,
			  const char *prefix)
{
	struct probe_change *ch = calloc(PROBE_CHANGES_MAX, sizeof(*ch));
	int n = ch ? probe_plan_changes(c, p, ch, PROBE_CHANGES_MAX) : 0;

	if (!prefix[0])
		fprintf(o, "Host changes      what the probe does to this host; all of it is undone when it ends, "
			"on Ctrl-C, and after a kill by `swaptune repair`:\n");
	for (int i = 0; i < n; i++)
		fprintf(o, "%s  %-16s %s\n", prefix, ch[i].kind, ch[i].text);
	free(ch);
}

static void print_plan(FILE *o, const struct probe_config *c, const struct probe_plan *p)
{
	char b1[32], b2[32], t1[32], t2[32], desc[400];

	fprintf(o, "Workload          %s", c->workload->name);
	if (c->workload->pattern == WORKLOAD_PAT_NONE) {
		fprintf(o, ":");
		for (char *const *v = c->wp.argv; v && *v; v++)
			fprintf(o, " %s", *v);
		fprintf(o, "\n");
	} else {
		fprintf(o, ", working set %s, %llu accesses per trial\n",
			fmt_bytes(c->wp.working_set_bytes, b1, sizeof(b1)),
			(unsigned long long)workload_ops(c->workload, &c->wp));
	}
	fprintf(o, "Memory cgroup     v%d, a new leaf per trial, limit %s (%s)\n", p->memcg_version,
		fmt_bytes(c->memcg_limit_bytes, b2, sizeof(b2)),
		p->memcg_version == 1 ? "memory.limit_in_bytes" :
		c->limit_mode == MEMCG_LIMIT_HIGH ? "memory.high" : "memory.max");
	if (probe_busy_text(c, desc, sizeof(desc)))
		fprintf(o, "Busy host         %s\n", desc);
	fprintf(o, "Arms\n");
	for (int i = 0; i < c->narms; i++) {
		probe_arm_describe(&c->arms[i], desc, sizeof(desc));
		fprintf(o, "  %-12s %s%s%s\n", c->arms[i].name, desc,
			i == p->baseline ? "  (baseline)" : "",
			c->arms[i].bypass ? (c->bypass_mode == PROBE_BYPASS_ZRAM ?
					     "  (if the kernel has no native bypass: zswap in front of zram)" :
					     "  (if the kernel has no native bypass: emulated by page-cluster=0)") : "");
	}
	print_changes(o, c, p, "");
	fprintf(o, "Design            %s", c->plan.sequential ? "sequential, looks at rounds" :
		"fixed,");
	for (size_t k = 0; k < c->plan.n_looks; k++)
		fprintf(o, "%s%u", k ? "," : " ", c->plan.looks[k]);
	fprintf(o, "%s; false-change rate <= %g %%, minimum effect %g %%\n",
		c->plan.sequential ? "" : " rounds", 100 * c->plan.alpha, c->plan.min_effect_pct);
	if (c->max_time_s > 0)
		fprintf(o, "                  looks that do not fit %s are dropped once the warm-up shows how long "
			"a round takes\n", fmt_secs(c->max_time_s, t2, sizeof(t2)));
	fprintf(o, "Trials            %u (%u rounds incl. %s x %d arms%s)%s\n", p->trials, p->rounds,
		c->warmup ? "warm-up" : "no warm-up", c->narms,
		p->detect_bypass ? " + 1 detection" : "",
		c->plan.sequential ? ", the first look" : "");
	if (c->plan.sequential)
		fprintf(o, "                  up to %u trials if no look decides earlier\n", p->max_trials);
	if (c->workload->pattern != WORKLOAD_PAT_NONE && c->min_trial_s > 0 && c->warmup && !c->wp.ops)
		fprintf(o, "Trial length      measured phase calibrated from the warm-up to last >= %s\n",
			fmt_secs(c->min_trial_s, t2, sizeof(t2)));
	fprintf(o, "Seed              %llu (workload %llu)\n", (unsigned long long)c->seed,
		(unsigned long long)c->wp.seed);
	fprintf(o, "Estimated time    %s", fmt_secs(p->est_total_s, t1, sizeof(t1)));
	if (p->est_total_s < 0 || c->plan.sequential)
		fprintf(o, ", at most %s", fmt_secs(p->est_max_s, t2, sizeof(t2)));
	fprintf(o, "\nMemory            needs about %s, %s available\n",
		fmt_bytes(p->need_bytes, b1, sizeof(b1)),
		fmt_bytes(p->available_bytes, b2, sizeof(b2)));
}

static cJSON *changes_json(const struct probe_config *c, const struct probe_plan *p)
{
	struct probe_change *ch = calloc(PROBE_CHANGES_MAX, sizeof(*ch));
	int n = ch ? probe_plan_changes(c, p, ch, PROBE_CHANGES_MAX) : 0;
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "kind", ch[i].kind);
		cJSON_AddStringToObject(o, "text", ch[i].text);
		cJSON_AddItemToArray(a, o);
	}
	free(ch);
	return a;
}

static cJSON *plan_json(const struct probe_config *c, const struct probe_plan *p)
{
	cJSON *root = cJSON_CreateObject(), *o, *a;

	cJSON_AddStringToObject(root, "schema", PROBE_SCHEMA);
	cJSON_AddStringToObject(root, "status", "planned");
	o = cJSON_AddObjectToObject(root, "plan");
	cJSON_AddStringToObject(o, "workload", c->workload->name);
	cJSON_AddNumberToObject(o, "working_set_bytes", (double)c->wp.working_set_bytes);
	cJSON_AddNumberToObject(o, "memcg_version", p->memcg_version);
	cJSON_AddNumberToObject(o, "memcg_limit_bytes", (double)c->memcg_limit_bytes);
	if (probe_busy_recorded(c))
		cJSON_AddItemToObject(o, "busy_host", probe_busy_json(c));
	cJSON_AddStringToObject(o, "baseline", c->arms[p->baseline].name);
	a = cJSON_AddArrayToObject(o, "arms");
	for (int i = 0; i < c->narms; i++) {
		cJSON *ao = cJSON_CreateObject(), *so;

		cJSON_AddStringToObject(ao, "name", c->arms[i].name);
		so = cJSON_AddObjectToObject(ao, "settings");
		for (int k = 0; k < c->arms[i].nset; k++)
			cJSON_AddStringToObject(so, c->arms[i].set[k].name, c->arms[i].set[k].value);
		cJSON_AddBoolToObject(ao, "bypass", c->arms[i].bypass);
		cJSON_AddItemToArray(a, ao);
	}
	a = cJSON_AddObjectToObject(o, "settings_now");
	for (int i = 0; i < p->ntouch; i++)
		cJSON_AddStringToObject(a, p->touch[i].name, p->touch[i].current);
	cJSON_AddBoolToObject(o, "enable_zswap", p->enable_zswap);
	cJSON_AddBoolToObject(o, "scratch_swap", !p->have_host_swap);
	cJSON_AddNumberToObject(o, "swap_bytes", (double)p->swap_bytes);
	cJSON_AddBoolToObject(o, "mount_debugfs", p->mount_debugfs);
	cJSON_AddBoolToObject(o, "detect_bypass", p->detect_bypass);
	cJSON_AddNumberToObject(o, "trials", p->trials);
	cJSON_AddNumberToObject(o, "max_trials", p->max_trials);
	if (p->est_total_s >= 0)
		cJSON_AddNumberToObject(o, "estimated_s", p->est_total_s);
	else
		cJSON_AddNullToObject(o, "estimated_s");
	cJSON_AddNumberToObject(o, "estimated_max_s", p->est_max_s);
	cJSON_AddNumberToObject(o, "need_bytes", (double)p->need_bytes);
	cJSON_AddNumberToObject(o, "available_bytes", (double)p->available_bytes);
	cJSON_AddNumberToObject(o, "max_time_s", c->max_time_s);
	cJSON_AddBoolToObject(o, "drop_host_caches", c->drop_host_caches);
	cJSON_AddItemToObject(o, "host_changes", changes_json(c, p));
	return root;
}

static void fmt_val(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3g", v);
	else if (fabs(v) >= 100 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void print_result(FILE *o, const struct probe_config *c, const struct probe_plan *p,
			 const struct probe_result *r, const char *db)
{
	/* shown_probe_result, heads from the vocabulary; stall times (us) are shown in ms */
	const struct metric_def *pm = &metric_defs[metric_find(probe_primary_key(c))];
	const char *unit = c->primary == PROBE_PRIMARY_METRIC ? "" : pm->row->unit;
	char b1[32], b2[32], b3[32], head[64], busy[400];

	fprintf(o, "Probe run %lld: %s, %s\n", (long long)r->run_id, c->workload->name,
		r->budget.refused ? "stopped: the time budget cannot reach the first look" : r->status);
	if (r->budget.refused) {
		/* nothing was measured: what the budget could not do is the result */
		fprintf(o, "Time budget       %s\n", r->budget.text);
		fprintf(o, "\nStopped after the warm-up (%s); %s; stored as run %lld in %s\n",
			fmt_secs(r->elapsed_s, b3, sizeof(b3)),
			r->restore_error[0] ? "RESTORE INCOMPLETE (`swaptune repair` retries)" :
			"host settings, swap and cgroups restored", (long long)r->run_id, db);
		return;
	}
	fprintf(o, "Host              %s, readahead %s, zswap %s%s, memcg v%d limit %s\n",
		r->kernel, r->readahead[0] ? r->readahead : "?", r->zswap_compressor,
		r->zswap_enabled_by_probe ? " (enabled for the probe)" : "", r->memcg_version,
		fmt_bytes(c->memcg_limit_bytes, b1, sizeof(b1)));
	if (!strcmp(r->swap_kind, "scratch-loop"))
		fprintf(o, "Swap              scratch %s, %s over %s%s\n", r->swap_device,
			fmt_bytes(r->swap_bytes, b2, sizeof(b2)), r->swap_file,
			r->swap_direct_io ? " (direct I/O)" : "");
	else
		fprintf(o, "Swap              host %s\n", r->swap_device);
	if (r->bypass != PROBE_BYPASS_UNTESTED)
		fprintf(o, "Bypass            %s: %s\n",
			r->bypass == PROBE_BYPASS_NATIVE ? "native" :
			r->bypass_mode == PROBE_BYPASS_ZRAM ? "emulated by zram" : "emulated by page-cluster=0",
			r->bypass_evidence);
	fprintf(o, "CPU counters      %s\n", r->cpu_counters[0] ? r->cpu_counters : "not used");
	if (r->budget.known)
		fprintf(o, "Time budget       %s\n", r->budget.text);
	if (r->budget.admin_stop)
		fprintf(o, "                  %s\n", r->budget.stop_text);
	if (probe_busy_text(c, busy, sizeof(busy)))
		fprintf(o, "Busy host         %s\n", busy);
	fprintf(o, "Primary metric    %s (%s, %s is better), mean and 95 %% CI over %u round%s\n\n",
		pm->row->label, unit[0] ? unit : "as printed",
		probe_primary_higher_better(c) ? "higher" : "lower", r->rounds, r->rounds == 1 ? "" : "s");

	snprintf(head, sizeof(head), "%s", c->primary == PROBE_PRIMARY_THROUGHPUT ? "throughput" :
		 c->primary == PROBE_PRIMARY_WALL ? "wall_s" :
		 c->primary == PROBE_PRIMARY_CPU ? pm->key : "metric");
	fprintf(o, "%-10s %3s %3s %12s %25s %8s", "arm", "n", "oom", head, "95% CI", "vs base");
	for (size_t k = 0; k < (size_t)SHOWN_N_probe_result; k++)
		fprintf(o, " %9s", metric_defs[shown_probe_result[k]].head);
	fprintf(o, "\n");
	for (int i = 0; i < c->narms; i++) {
		const struct probe_arm_summary *s = &r->summary[i];
		char name[40], ci[64], vs[16], v[32], lo[32], hi[32];

		snprintf(name, sizeof(name), "%s%s", c->arms[i].name, i == c->baseline ? "*" : "");
		fmt_val(s->primary.mean, v, sizeof(v));
		fmt_val(s->primary.ci_low, lo, sizeof(lo));
		fmt_val(s->primary.ci_high, hi, sizeof(hi));
		snprintf(ci, sizeof(ci), isfinite(s->primary.ci_low) ? "[%s, %s]" : "-", lo, hi);
		if (i != c->baseline && r->have_verdict && r->verdict.arms[i].compared)
			snprintf(vs, sizeof(vs), "%+.1f%%", r->verdict.arms[i].effect_pct);
		else
			snprintf(vs, sizeof(vs), "-");
		fprintf(o, "%-10s %3u %3u %12s %25s %8s", name, s->completed, s->oom, v, ci, vs);
		for (size_t k = 0; k < (size_t)SHOWN_N_probe_result; k++) {
			enum probe_metric m = shown_probe_result[k];
			double scale = !strcmp(metric_defs[m].row->unit, "us") ? 1e-3 : 1;

			fmt_val(s->have[m] ? s->m[m].mean * scale : NAN, v, sizeof(v));
			fprintf(o, " %9s", v);
		}
		fprintf(o, "\n");
	}
	fprintf(o, "* baseline; vs base: effect on %s, + = better\n",
		c->primary == PROBE_PRIMARY_THROUGHPUT ? "throughput" :
		c->primary == PROBE_PRIMARY_CPU ? pm->row->label : "the primary metric");
	for (int i = 0; i < c->narms; i++) {
		if (c->arms[i].note[0])
			fprintf(o, "%s: %s\n", c->arms[i].name, c->arms[i].note);
		if (r->summary[i].oom)
			fprintf(o, "%s: OOM-killed in its memory cgroup in %u of %u trials (never averaged)\n",
				c->arms[i].name, r->summary[i].oom, r->summary[i].trials);
		if (r->summary[i].failed)
			for (size_t k = 0; k < r->ntrials; k++)
				if (r->trials[k].arm == i && !r->trials[k].warmup &&
				    r->trials[k].status != PROBE_TRIAL_OK &&
				    r->trials[k].status != PROBE_TRIAL_OOM) {
					fprintf(o, "%s: trial %u %s: %s\n", c->arms[i].name, r->trials[k].seq,
						probe_trial_status_name(r->trials[k].status), r->trials[k].note);
					break;
				}
	}
	if (r->have_verdict) {
		const struct judgement *j = &r->judgement;
		const char *word = verdict_kind_name(r->verdict.kind);

		fprintf(o, "\nVerdict           %s%s%s%s%s", colour_start(o, colour_of_verdict(word)), word,
			colour_end(o, colour_of_verdict(word)), r->verdict.chosen >= 0 ? " " : "",
			r->verdict.chosen >= 0 ? c->arms[r->verdict.chosen].name : "");
		if (j->judged)
			fprintf(o, " at look %zu of %zu (%u rounds)", j->look + 1, j->plan.n_looks,
				j->plan.looks[j->look]);
		fprintf(o, "\n");
		for (size_t k = 0; k < r->verdict.n_reasons && k < 6; k++)
			fprintf(o, "  %s\n", r->verdict.reasons[k]);
	}
	fprintf(o, "\nTook %s; %s; stored as run %lld in %s\n",
		fmt_secs(r->elapsed_s, b3, sizeof(b3)),
		r->restore_error[0] ? "RESTORE INCOMPLETE (`swaptune repair` retries)" :
		"host settings, swap and cgroups restored", (long long)r->run_id, db);
	if (r->restore_error[0])
		fprintf(o, "  %s\n", r->restore_error);
	(void)p;
}

/* The budget cannot reach the first look: a longer budget, a short run, or stop. */
static enum probe_short_answer ask_short(const struct probe_budget *b, void *arg)
{
	const enum cmd_progress *mode = arg;
	char line[16], t[32];

	fprintf(stderr, "%sprobe: %s\n", *mode == CMD_PROGRESS_TTY ? "\r\033[K" : "", b->text);
	if (b->rounds_fit >= 2)
		fprintf(stderr, "Raise the time budget to %s [y], run the %u rounds that fit (a verdict at round %u "
			"has little power) [s], or stop and restore the host [N]? ",
			fmt_secs(b->suggest_s, t, sizeof(t)), b->rounds_fit, b->rounds_fit);
	else
		fprintf(stderr, "Raise the time budget to %s [y], or stop and restore the host [N]? ",
			fmt_secs(b->suggest_s, t, sizeof(t)));
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return PROBE_SHORT_STOP;
	if (line[0] == 'y' || line[0] == 'Y')
		return PROBE_SHORT_EXTEND;
	if ((line[0] == 's' || line[0] == 'S') && b->rounds_fit >= 2)
		return PROBE_SHORT_RUN;
	return PROBE_SHORT_STOP;
}

static bool ask(const struct probe_config *c, const struct probe_plan *p)
{
	char line[16], t[32];

	print_plan(stderr, c, p);
	fprintf(stderr, "\nThis changes host-wide settings for about %s. Continue? [y/N] ",
		fmt_secs(p->est_total_s >= 0 ? p->est_total_s : p->est_max_s, t, sizeof(t)));
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

/* What the command line says beyond the probe_config itself. */
struct probe_args {
	const char *workload, *arms_list, *baseline, *scratch_dir;
	const char *custom[PROBE_ARMS_MAX];
	int ncustom;
	bool yes, dry, allow_short;
	unsigned reps, max_reps;
	uint64_t seed;
	int limit_mode, bypass_mode, progress, busy_mode;
};

/* Everything parsed: the rows below point into it. */
struct probe_cli {
	struct probe_config c;
	struct probe_args a;
};

static const char *const limit_modes[] = { "max", "high", NULL };	/* MEMCG_LIMIT_* order */
static const char *const bypass_modes[] = { "pc0", "zram", NULL };

static const char *workload_name_at(size_t i)
{
	return workload_at(i) ? workload_at(i)->name : NULL;
}

/* --arm NAME:KEY=VAL,...: repeatable, checked once the host is known */
static int parse_custom_arm(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	struct probe_args *a = dst;

	if (a->ncustom >= PROBE_ARMS_MAX)
		return err_set(e, -EINVAL, "more than %d --%s", PROBE_ARMS_MAX, o->name);
	a->custom[a->ncustom++] = arg;
	return 0;
}

/* --looks 5,10,15: strictly increasing rounds, 2..PROBE_REPS_MAX. */
static int parse_looks(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	struct judge_plan *plan = dst, p = *plan;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	p.n_looks = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long long v;

		if (p.n_looks >= VERDICT2_LOOKS_MAX || fmt_parse_i64(t, 2, PROBE_REPS_MAX, &v) < 0 ||
		    (p.n_looks && (unsigned)v <= p.looks[p.n_looks - 1]))
			return err_set(e, -EINVAL, "--%s needs increasing rounds 2..%d, at most %d of them, like 5,10,15",
				       o->name, PROBE_REPS_MAX, VERDICT2_LOOKS_MAX);
		p.looks[p.n_looks++] = (unsigned)v;
	}
	if (p.n_looks == 0)
		return err_set(e, -EINVAL, "--%s needs a list of rounds like 5,10,15", o->name);
	p.sequential = true;
	*plan = p;
	return 0;
}

/* --user USER: a name or a uid that exists; dst is the struct workload_params */
static int parse_user(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	struct workload_params *wp = dst;
	struct passwd *pw = getpwnam(arg);
	long long u;

	if (!pw && fmt_parse_i64(arg, 0, UINT32_MAX, &u) == 0)
		pw = getpwuid((uid_t)u);
	if (!pw)
		return err_set(e, -EINVAL, "--%s: no user \"%s\"", o->name, arg);
	wp->run_as_uid = pw->pw_uid;
	wp->run_as_gid = pw->pw_gid;
	return 0;
}

/* --metric TOOL:PATH, which also says which way is better */
static int parse_metric(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	struct probe_config *c = dst;
	char why[400];
	bool hb;

	if (metric_spec_check(arg, &hb, why, sizeof(why)) < 0)
		return err_set(e, -EINVAL, "%s", why);
	if (strlen(arg) >= sizeof(c->wp.metric_spec))
		return err_set(e, -EINVAL, "--%s is too long", o->name);
	snprintf(c->wp.metric_spec, sizeof(c->wp.metric_spec), "%s", arg);
	c->metric_higher_better = hb;
	return 0;
}

#define DAY_NS (86400LL * 1000000000LL)

static const struct opt_spec probe_opts[] = {
	{ .name = "workload", .arg = "NAME", .section = "Workload and arms",
	  .help = "what runs in the memory cgroup (default " PROBE_DEFAULT_WORKLOAD ")", .parse = opt_parse_string,
	  .off = OPT_AT(struct probe_cli, a.workload, const char *), .choice_at = workload_name_at,
	  .complete = OPT_COMPLETE_CHOICES, .flags = OPT_HELP_CHOICES },
	{ .name = "arms", .arg = "LIST", .help = "built-in arms, pcN sets vm.page-cluster N (default "
	  PROBE_DEFAULT_ARMS ")", .parse = opt_parse_string,
	  .off = OPT_AT(struct probe_cli, a.arms_list, const char *), .choice_at = probe_arm_builtin_at,
	  .complete = OPT_COMPLETE_CHOICES, .flags = OPT_LIST | OPT_HELP_CHOICES },
	OPT_CUSTOM("arm", 0, "NAME:KEY=VAL,...", "a custom arm over the settings registry "
		   "(repeatable), e.g. noswapra:page-cluster=0,vma_ra_enabled=false", struct probe_cli,
		   a, parse_custom_arm, OPT_COMPLETE_NONE),
	OPT_STRING("baseline", 0, "NAME", "arm to compare against (default: the arm matching the "
		   "host now, else the first)", struct probe_cli, a.baseline, "an arm name",
		   OPT_COMPLETE_NONE),
	{ .name = "looks", .arg = "LIST", .section = "Design",
	  .help = "sequential design: judge after these rounds, stopping at the first look that "
	  "decides (default 5,10,15,20,30,40)", .parse = parse_looks, .off = offsetof(struct probe_cli, c.plan) },
	OPT_UINT("reps", "N", "a fixed design instead: exactly N measured rounds, judged once",
		 struct probe_cli, a.reps, 1, PROBE_REPS_MAX),
	OPT_UINT("max-reps", "N", "sequential: at most N rounds (the looks above N are dropped, N "
		 "becomes the last)", struct probe_cli, a.max_reps, 2, PROBE_REPS_MAX),
	OPT_FLAG("adaptive", 0, "the sequential design (the default; kept for scripts)",
		 struct probe_cli, c.adaptive),
	CMD_OPT_MIN_EFFECT("smallest gain worth a change, fixed in the run's plan (default 2)",
			   struct probe_cli, c.plan.min_effect_pct),
	OPT_SECONDS("min-trial", "built-in workloads: calibrate each trial's measured phase to last "
		    "at least DUR (default 2s, 0 = off)", struct probe_cli, c.min_trial_s, 0, DAY_NS),
	OPT_SECONDS("max-time", "time budget, a ceiling: no trial starts that is expected to end after "
		    "DUR from the start; after the warm-up the probe says how many rounds fit and keeps the "
		    "looks that do (default 3m, 0 = no limit)", struct probe_cli, c.max_time_s, 0, DAY_NS),
	OPT_FLAG("allow-short", 0, "run the rounds that fit even when the budget cannot reach the first "
		 "look (otherwise the probe asks on a terminal, and without one stops with exit 2 naming the "
		 "--max-time it needs)", struct probe_cli, a.allow_short),
	OPT_U64("seed", 0, "N", "seed of the round order and, derived from it, of the workload's "
		"accesses (default: a fresh random seed, recorded)", struct probe_cli, a.seed, 0,
		(1LL << 53) - 1),
	OPT_FLAG_OFF("no-warmup", "skip the discarded warm-up round", struct probe_cli, c.warmup),
	{ .name = "memcg-limit", .arg = "SIZE", .section = "Memory cgroup and host",
	  .help = "memory cgroup limit, below the working set so it swaps (default "
	  PROBE_MIB_TEXT(PROBE_DEFAULT_MEMCG_LIMIT_MIB) ")",
	  .parse = opt_parse_size, .off = OPT_AT(struct probe_cli, c.memcg_limit_bytes, uint64_t), .min = 1 },
	OPT_CHOICE("limit-mode", "max|high", "cgroup v2: memory.max (default) or memory.high",
		   struct probe_cli, a.limit_mode, limit_modes),
	OPT_SECONDS("duration", "cap of one trial's measured phase; cmd: the command is killed after "
		    "it (default 60s)", struct probe_cli, c.duration_s, 100000000LL, DAY_NS),
	/* mkswap needs 10 pages; less than 1 MiB holds no probe's working set */
	OPT_SIZE("swap-size", "scratch swap size (default 1.5 x working set + 64M, at least 512M)",
		 struct probe_cli, c.swap_size_bytes, 1024 * 1024, 0),
	OPT_DIR("scratch-dir", "DIR", "directory for the scratch swap file (default /var/lib/swaptune)",
		struct probe_cli, a.scratch_dir),
	OPT_CHOICE("bypass-mode", "pc0|zram", "how to emulate the bypass arm when the kernel has none "
		   "(default pc0)", struct probe_cli, a.bypass_mode, bypass_modes),
	OPT_FLAG("yes", 'y', "do not ask before changing host settings (needed without a terminal)",
		 struct probe_cli, a.yes),
	OPT_FLAG("force", 0, "run even when MemAvailable looks too small", struct probe_cli, c.force),
	OPT_FLAG("drop-host-caches", 0, "before every trial also sync, drop the whole host's page cache and "
		 "compact memory (default: only the probe's own cgroup and swap are emptied)",
		 struct probe_cli, c.drop_host_caches),
	OPT_CHOICE("busy-host", "adapt|ignore|per-cpu", "when fewer than 0.8 CPUs are idle before the "
		   "probe: adapt judges per CPU second of the workload and halves a built-in workload's "
		   "working set and limit (unless given) so the rounds fit; ignore measures wall time as on "
		   "a quiet host; per-cpu judges per CPU second on any host, at the sizes given (a run judged "
		   "so is rerun with it; not with a command's own metric or an arm that changes where pages "
		   "go) (default adapt)", struct probe_cli, a.busy_mode, probe_busy_modes),
	CMD_OPT_DRY_RUN("print the plan and exit without touching anything", struct probe_cli, a.dry),
	CMD_OPT_PROGRESS(struct probe_cli, a.progress),
	{ .name = "metric", .arg = "TOOL:PATH", .section = "With --workload cmd",
	  .help = "cmd: the primary metric from a benchmark's own output: fio:read.iops (fio "
	  "--output-format=json), stress-ng:vm.bogo-ops-per-second-real-time (--metrics --yaml "
	  "/dev/stdout), sysbench:events_per_second (or latency_avg_ms, latency_p95_ms)",
	  .parse = parse_metric, .off = offsetof(struct probe_cli, c) },
	OPT_FLAG_OFF("metric-lower-better", "cmd: with --metric-regex, lower values are better",
		     struct probe_cli, c.metric_higher_better),
	{ NULL },
};

/*
 * The workloads' parameters (struct workload_params, the probe_config's
 * wp), parsed with the first table: those of every workload here, each
 * workload's own in its table (workload_param_opts, probes/), then cmd's.
 */
static const struct opt_spec workload_opts[] = {
	{ .name = "working-set", .arg = "SIZE", .section = "Workload parameters",
	  .help = "the workload's memory (default " PROBE_MIB_TEXT(PROBE_DEFAULT_WORKING_SET_MIB) ")", .parse = opt_parse_size,
	  .off = OPT_AT(struct workload_params, working_set_bytes, uint64_t), .min = 1 },
	OPT_U64("ops", 0, "N", "accesses in the measured phase (default: 2 passes over the working "
		"set)", struct workload_params, ops, 1, INT64_MAX),
	{ NULL },
};

static const struct opt_spec cmd_workload_opts[] = {
	/* the parser sets two fields (uid and gid): its destination is the whole struct */
	{ OPT_ROW("user", 0, "USER", "cmd: run the command as USER", parse_user, 0),
	  .complete = OPT_COMPLETE_USER },
	OPT_STRBUF("metric-regex", "RE", "cmd: primary metric is group 1 of the last match in its "
		   "output (else wall time)", struct workload_params, metric_regex),
	{ NULL },
};
/* The workload and its argv (cmd), the arms and the baseline, from a and the options given (g). */
static int resolve_config(struct cmd_ctx *ctx, struct probe_config *c, const struct probe_args *a,
			  const struct opt_given *g, char **rest, int nrest)
{
	bool have_ws = cmd_given(&cmd_probe_entry, g, "working-set");
	bool have_limit = cmd_given(&cmd_probe_entry, g, "memcg-limit");
	int rc;

	c->workload = workload_find(a->workload);
	if (!c->workload) {
		const char *guess = opt_closest_choice(opt_find(probe_opts, "workload"), a->workload);

		if (guess)
			return cmd_usage_error(ctx, &cmd_probe_entry, "unknown workload \"%s\"; did you mean %s?",
					       a->workload, guess);
		return cmd_usage_error(ctx, &cmd_probe_entry, "unknown workload \"%s\"", a->workload);
	}
	if (c->workload->pattern == WORKLOAD_PAT_NONE) {
		/* argv after "--" (getopt stops there) */
		if (nrest == 0)
			return cmd_usage_error(ctx, &cmd_probe_entry, "--workload cmd needs a command after --");
		c->wp.argv = rest;
		c->primary = c->wp.metric_regex[0] || c->wp.metric_spec[0] ? PROBE_PRIMARY_METRIC :
			     PROBE_PRIMARY_WALL;
		if (c->wp.metric_regex[0] && c->wp.metric_spec[0])
			return cmd_usage_error(ctx, &cmd_probe_entry, "--metric and --metric-regex: give one");
		if (!have_ws)
			c->wp.working_set_bytes = 0;
	} else {
		if (nrest > 0)
			return cmd_usage_error(ctx, &cmd_probe_entry, "unexpected argument \"%s\" (a command goes with --workload cmd)",
					       rest[0]);
		if (c->wp.metric_regex[0] || c->wp.metric_spec[0] || c->wp.run_as_uid != (uid_t)-1)
			return cmd_usage_error(ctx, &cmd_probe_entry, "--metric, --metric-regex and --user go with --workload cmd");
		if (have_ws && !have_limit && c->wp.working_set_bytes / 2 >= 16 * MiB)
			c->memcg_limit_bytes = c->wp.working_set_bytes / 2;
	}
	if ((a->arms_list || a->ncustom == 0) &&
	    (rc = probe_arms_parse_list(a->arms_list ? a->arms_list : PROBE_DEFAULT_ARMS, c->arms,
					PROBE_ARMS_MAX, &c->narms, &ctx->err)) < 0)
		return rc;
	for (int i = 0; i < a->ncustom; i++) {
		if (c->narms >= PROBE_ARMS_MAX)
			return cmd_usage_error(ctx, &cmd_probe_entry, "more than %d arms", PROBE_ARMS_MAX);
		if ((rc = probe_arm_parse(&ctx->host, a->custom[i], &c->arms[c->narms], &ctx->err)) < 0)
			return rc;
		for (int k = 0; k < c->narms; k++)
			if (!strcmp(c->arms[k].name, c->arms[c->narms].name))
				return cmd_usage_error(ctx, &cmd_probe_entry, "arm %s is given twice",
						       c->arms[k].name);
		c->narms++;
	}
	if (a->baseline) {
		for (int i = 0; i < c->narms; i++)
			if (!strcmp(c->arms[i].name, a->baseline))
				c->baseline = i;
		if (c->baseline < 0)
			return cmd_usage_error(ctx, &cmd_probe_entry, "--baseline %s is not one of the arms", a->baseline);
	}
	return 0;
}

static int parse_args(struct cmd_ctx *ctx, struct probe_cli *cli, int argc, char **argv)
{
	struct probe_config *c = &cli->c;
	struct probe_args *a = &cli->a;
	void *const bases[OPT_TABLES_MAX] = { cli, &cli->c.wp, &cli->c.wp, &cli->c.wp };
	struct opt_given g;
	char why[160];
	int first, rc;

	probe_config_init(c);
	c->wp.working_set_bytes = PROBE_DEFAULT_WORKING_SET_MIB * MiB;
	c->memcg_limit_bytes = PROBE_DEFAULT_MEMCG_LIMIT_MIB * MiB;
	c->metric_higher_better = true;
	memset(a, 0, sizeof(*a));
	a->workload = PROBE_DEFAULT_WORKLOAD;
	a->limit_mode = c->limit_mode == MEMCG_LIMIT_HIGH;
	a->bypass_mode = c->bypass_mode == PROBE_BYPASS_ZRAM;
	if ((first = cmd_parse_sets(ctx, &cmd_probe_entry, argc, argv, bases, &g)) < 0)
		return first;
	c->limit_mode = a->limit_mode ? MEMCG_LIMIT_HIGH : MEMCG_LIMIT_MAX;
	c->bypass_mode = a->bypass_mode ? PROBE_BYPASS_ZRAM : PROBE_BYPASS_PC0;
	c->busy_mode = (enum probe_busy_mode)a->busy_mode;
	if (a->scratch_dir)
		snprintf(c->scratch_dir, sizeof(c->scratch_dir), "%s", a->scratch_dir);
	if (a->reps) {
		double me = c->plan.min_effect_pct;

		judge_plan_fixed(&c->plan, a->reps);
		c->plan.min_effect_pct = me;
	}
	if (a->max_reps)
		judge_plan_truncate(&c->plan, a->max_reps);
	c->reps = c->max_reps = c->plan.looks[c->plan.n_looks - 1];
	probe_seed_set(c, cmd_given(&cmd_probe_entry, &g, "seed") ? a->seed : probe_seed_random());
	rc = resolve_config(ctx, c, a, &g, argv + first, argc - first);
	if (rc < 0)
		return rc;
	if (c->busy_mode == PROBE_BUSY_PER_CPU && probe_busy_per_cpu_refused(c, why, sizeof(why)))
		return cmd_usage_error(ctx, &cmd_probe_entry, "--busy-host per-cpu: %s", why);
	/* the busy-host look: before the plan, so the plan says what it changed */
	if ((rc = probe_busy_check(&ctx->host, 500, &c->busy, &ctx->err)) < 0)
		return rc;
	probe_busy_adapt(c, cmd_given(&cmd_probe_entry, &g, "working-set"),
			 cmd_given(&cmd_probe_entry, &g, "memcg-limit"), cmd_given(&cmd_probe_entry, &g, "ops"));
	return 0;
}
/*
 * A run that repeats the recipe of earlier runs on this host is a
 * replication: the verdict shown is the pooled one, as recommend and apply
 * judge it (advice_judge_pooled()), with the runs pooled in its reasons.
 */
static void pool_verdict(struct cmd_ctx *ctx, const struct probe_config *c, struct probe_result *r)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct judgement *j = calloc(1, sizeof(*j));
	struct advice_pool *pool = calloc(1, sizeof(*pool));
	bool same = false;

	if (run && v && j && pool && r->have_verdict && r->verdict.baseline >= 0 &&
	    r->verdict.baseline < c->narms &&
	    advice_load_run(&ctx->store, &ctx->host, r->run_id, c->arms[r->verdict.baseline].name, run,
			    NULL) == 0 &&
	    advice_judge_pooled(&ctx->store, &ctx->host, run, -1, &(struct advice_verdict){ v, j, pool },
				NULL) == 0 &&
	    pool->applied && run->n_arms == (size_t)c->narms) {
		same = true;
		for (int i = 0; i < c->narms; i++)
			same &= !strcmp(run->arms[i].name, c->arms[i].name);
	}
	if (same)
		r->verdict = *v;
	advice_run_free(run);
	free(run);
	free(v);
	free(j);
	free(pool);
}

/* Run the planned probe under the host-change lock, with signals caught; print the result. */
static int run_probe(struct cmd_ctx *ctx, struct probe_config *c, const struct probe_plan *p,
		     struct probe_result *r, struct probe_args *a)
{
	struct stop_catch stop;
	enum cmd_progress progress;
	int lockfd = -1, rc, status = 0;

	if (!a->yes && (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)))
		return err_set_exit(&ctx->err, -EPERM, ST_EXIT_DENIED,
				    "probe changes host-wide settings (%s) while it runs: pass --yes to confirm when not on a terminal",
				    p->ntouch ? p->touch[0].name : "swap");
	rc = host_change_lock(&ctx->host, ctx->db_path, "probe", &lockfd, &ctx->err);
	if (rc < 0)
		return rc;
	change_repair(&ctx->store, &ctx->host);
	if (!a->yes && !ask(c, p)) {
		host_change_unlock(lockfd);
		return err_set_exit(&ctx->err, -ECANCELED, ST_EXIT_DENIED, "probe cancelled: nothing was changed");
	}

	stop_catch(&stop, 0);
	c->stop = &stop_signal;
	progress = cmd_progress_resolve((enum cmd_progress)a->progress, ctx->json);
	if (progress != CMD_PROGRESS_NONE) {
		c->progress = cmd_probe_progress;
		c->progress_arg = &progress;
		/* the plan was shown when it was asked about; else the changes are said now */
		if (a->yes)
			print_changes(stderr, c, p, "probe: will change:");
	} else if (p->load_loop_module) {
		/* a change that outlives the probe is said even without progress */
		fprintf(stderr, "probe: loading the loop module for a scratch swap (modprobe loop; it stays loaded)\n");
	}
	/*
	 * --yes confirms the host changes, not a run too short to answer: it
	 * does not imply --allow-short. On a terminal the probe asks.
	 */
	if (a->allow_short)
		c->short_policy = PROBE_SHORT_ALLOW;
	else if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		c->short_policy = PROBE_SHORT_ASK;
		c->short_ask = ask_short;
		c->short_arg = &progress;
	} else {
		c->short_policy = PROBE_SHORT_REFUSE;
	}

	rc = probe_run(&ctx->host, &ctx->store, c, p, r, &ctx->err);
	if (progress == CMD_PROGRESS_TTY)
		fprintf(stderr, "\r\033[K");
	c->progress = NULL;
	stop_release(&stop);
	host_change_unlock(lockfd);

	/* a refusal with --json is the error document alone, as any usage error (exit 2) */
	if (r->run_id > 0 && (rc == 0 || r->ntrials > 0) && !(ctx->json && r->budget.refused)) {
		pool_verdict(ctx, c, r);
		if (ctx->json) {
			int r2 = cmd_print_json(ctx, probe_result_to_json(c, p, r));

			if (rc == 0)
				rc = r2;
		} else {
			print_result(ctx->out, c, p, r, ctx->db_path);
		}
	}
	if (rc == 0 && r->signal) {
		fprintf(stderr, "swaptune: probe stopped by signal %d; the host was restored (%d change%s undone)\n",
			r->signal, r->restored, r->restored == 1 ? "" : "s");
		status = 128 + r->signal;
	}
	return rc < 0 ? rc : status;
}

/*
 * --dry-run: the plan. While another swaptune command changes the host, the
 * settings read as "now" may be its temporary ones (another probe's
 * page-cluster 0, its scratch swap): say so first.
 */
static int print_dry_run(struct cmd_ctx *ctx, const struct probe_config *c, const struct probe_plan *p)
{
	static const char what[] = "the settings shown as now may be its temporary ones until it restores them";
	cJSON *doc;

	if (!ctx->json) {
		cmd_note_host_changing(ctx, NULL, what);
		print_plan(ctx->out, c, p);
		return 0;
	}
	doc = plan_json(c, p);
	cmd_note_host_changing(ctx, doc, what);
	return cmd_print_json(ctx, doc);
}

static int probe_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct probe_cli *cli = malloc(sizeof(*cli));
	struct probe_config *c = cli ? &cli->c : NULL;
	struct probe_plan *p = malloc(sizeof(*p));
	struct probe_result *r = calloc(1, sizeof(*r));
	int rc;

	if (!cli || !p || !r) {
		rc = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = parse_args(ctx, cli, argc, argv)) < 0)
		goto out;
	if ((rc = probe_plan(&ctx->host, c, p, &ctx->err)) < 0)
		goto out;
	if (cli->a.dry) {
		rc = print_dry_run(ctx, c, p);
	} else if (!ctx->host.live) {
		rc = err_set_exit(&ctx->err, -EOPNOTSUPP, ST_EXIT_USAGE,
				  "probe runs on the live host only; with --sysroot use --dry-run");
	} else {
		rc = run_probe(ctx, c, p, r, &cli->a);
	}
out:
	if (r)
		probe_result_free(r);
	free(cli);
	free(p);
	free(r);
	return rc;
}

const struct cmd_entry cmd_probe_entry = {
	.name = "probe",
	.summary = "A/B-test readahead settings (arms) with a workload in a memory cgroup",
	.usage = "[--workload NAME] [--arms LIST] [--arm NAME:KEY=VAL,...] [--reps N] [--adaptive] "
		 "[--working-set SIZE] [--memcg-limit SIZE] [--yes] [--dry-run] [OPTIONS] [-- PROG ARGS...]",
	.group = CMD_GROUP_MEASURE,
	.opts = { probe_opts, workload_opts, workload_param_opts, cmd_workload_opts },
	.args = "-- PROG ARGS...",
	.args_help = "cmd: the command to run in the memory cgroup (no shell)",
	.flags = CMD_NEEDS_ROOT | CMD_WRAP_HUMAN,
	.exec = probe_exec,
};
