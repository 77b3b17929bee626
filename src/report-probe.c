/*
 * report-probe.c - the report of one probe run: host fingerprint, the
 * command that reruns it, the per-arm table and chart, counter deltas,
 * every per-trial counter whose mean differs between arms (largest
 * relative change first, with its CI, like the kernel list's A/B tables),
 * the raw trials, and the verdict with its reasons.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/advisor.h"
#include "swaptune/fmt.h"
#include "swaptune/recipe.h"
#include "swaptune/report.h"
#include "swaptune/vocab.h"

static const char *jstr(const cJSON *o, const char *path0, const char *path1)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, path0);

	if (path1)
		x = cJSON_GetObjectItemCaseSensitive(x, path1);
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static bool jnum(const cJSON *o, const char *path0, const char *path1, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, path0);

	if (path1)
		x = cJSON_GetObjectItemCaseSensitive(x, path1);
	if (!cJSON_IsNumber(x))
		return false;
	*v = x->valuedouble;
	return true;
}

static void host_facts(struct report *rep, const struct store_run *ri, const cJSON *sum,
		       const cJSON *par)
{
	struct report_section *s = report_add(rep, REPORT_FACTS, "host", "Host");
	const char *h = jstr(sum, "host", "hostname"), *k = jstr(sum, "host", "kernel");
	double v;
	char buf[256], size[32];

	report_fact_opt(s, "hostname", h && *h ? h : ri->hostname);
	report_fact_opt(s, "kernel", k && *k ? k : ri->kernel);
	report_fact_opt(s, "CPU model", jstr(sum, "host", "cpu_model"));
	/* a size as everywhere else (fmt_bytes); a stored value out of range is no size */
	if (jnum(sum, "host", "mem_total_bytes", &v) && v >= 0 && v <= FMT_SIZE_MAX)
		report_fact(s, "memory", "%s", fmt_bytes((unsigned long long)v, size, sizeof(size)));
	else
		report_fact_opt(s, "memory", NULL);
	if (cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "host"), "swap"))) {
		const char *kind = jstr(cJSON_GetObjectItem(sum, "host"), "swap", "kind");
		const char *dev = jstr(cJSON_GetObjectItem(sum, "host"), "swap", "device");

		/* the probe records the scratch swap it used, not the host's own */
		snprintf(buf, sizeof(buf), "%s%s%s (scratch swap of the probe)", kind ? kind : "?",
			 dev && *dev ? " " : "", dev ? dev : "");
		report_fact(s, "swap devices", "%s", buf);
	} else {
		report_fact_opt(s, "swap devices", NULL);
	}
	if (jstr(sum, "host", "zswap_compressor")) {
		const cJSON *en = cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "host"), "zswap_enabled_by_probe");

		snprintf(buf, sizeof(buf), "compressor %s%s", *jstr(sum, "host", "zswap_compressor") ?
			 jstr(sum, "host", "zswap_compressor") : "(none)",
			 cJSON_IsTrue(en) ? ", enabled by the probe" : "");
		report_fact(s, "zswap", "%s", buf);
	} else {
		report_fact_opt(s, "zswap", NULL);
	}
	report_fact_opt(s, "readahead", jstr(sum, "host", "readahead"));
	if (jnum(par, "memcg", "version", &v))
		report_fact(s, "cgroup mode", "v%.0f", v);
	else
		report_fact_opt(s, "cgroup mode", NULL);
	report_fact_opt(s, "CPU counters", jstr(sum, "host", "cpu_counters"));
	report_fact_opt(s, "swaptune version", jstr(sum, "swaptune_version", NULL));
}

/*
 * The command line that reruns the probe, from its recipe read back and
 * validated (recipe.h): the design as it ran and the accesses per trial the
 * warm-up calibrated (--ops with --min-trial 0), so the rerun's own report
 * shows the same line. A recipe that fails validation gets no rerun line,
 * only the refusal naming the value.
 */
static void recipe(struct report *rep, const struct host *h, const struct advice_run *run)
{
	struct report_section *s = report_add(rep, REPORT_TEXT, "recipe", "Recipe: rerun this probe");
	struct recipe *rec = calloc(1, sizeof(*rec));
	struct st_err e = { 0 };
	char cmd[4096];

	if (!rec) {
		report_line(s, "out of memory: the recipe cannot be shown");
		return;
	}
	if (!run->p.doc && !run->p.why[0]) {
		report_line(s, "the run's parameters were not recorded: it cannot be rebuilt");
	} else if (recipe_read(h, run, rec, &e) < 0) {
		report_line(s, "%s", e.msg);
	} else if (recipe_rerun_line(rec, cmd, sizeof(cmd)) < 0) {
		report_line(s, "the rerun line is longer than %zu bytes: it is not shown", sizeof(cmd));
	} else {
		report_line(s, "%s", cmd);
		if (!rec->have[recipe_field_find("method", "seed")])
			report_note(s, "the seed was not recorded");
		else
			report_line(s, "(a re-run draws a fresh seed and adds to this recipe's evidence; "
				    "--seed %llu repeats this run's exact order of arms)",
				    (unsigned long long)rec->c.seed);
	}
	recipe_free(rec);
	free(rec);
}

/* mean and the t-based CI of the mean of x[0..n) at 95 % */
static void mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi)
{
	double sd = stats_stddev(x, n), t;

	*mean = stats_mean(x, n);
	*lo = *hi = NAN;
	if (n >= 2 && isfinite(sd)) {
		t = stats_t_quantile(0.975, (double)(n - 1));
		*lo = *mean - t * sd / sqrt((double)n);
		*hi = *mean + t * sd / sqrt((double)n);
	}
}

static const char *pct(double v, char *b, size_t len)
{
	return fmt_pct(v, true, b, len);
}

/* The completed trials' primary values of arm i, round by round, into x[VERDICT2_ROUNDS_MAX]. */
static size_t ok_primary(const struct verdict2_input *in, size_t i, double *x)
{
	size_t n = 0;

	for (size_t r = 0; r < in->n_rounds && r < VERDICT2_ROUNDS_MAX; r++)
		if (in->arms[i].outcome[r] == VERDICT_OUT_OK)
			x[n++] = in->arms[i].primary[r];
	return n;
}

static void arms_table(struct report *rep, const struct advice_run *run,
		       const struct verdict_result *v)
{
	static const char *const cols[] = { "arm", "effect", "interval of effect", "p (one-sided)", "status",
					    "n", "OOM kills", "failed", "mean", "sd", "95 % CI of mean",
					    "settings" };
	struct report_section *s = report_add(rep, REPORT_TABLE, "arms", "Arms");
	struct report_section *c;
	char b1[64], b2[64];

	report_note(s, "primary metric: %s; effect = speed-up vs the baseline arm on rounds both "
		    "completed, + = better; interval: repeated-confidence at the test's own level; p: of this look alone",
		    run->in2.metric_name);
	report_cols(s, 12, cols);
	for (size_t i = 0; i < run->n_arms; i++) {
		const struct advice_arm *a = &run->arms[i];
		const struct verdict_arm_result *r = &v->arms[i];
		char set[512] = "";
		size_t k = 0;
		double m, lo, hi, x[VERDICT2_ROUNDS_MAX];

		for (int j = 0; j < a->n_settings && k < sizeof(set); j++)
			k += (size_t)snprintf(set + k, sizeof(set) - k, "%s%s=%s", j ? " " : "",
					      a->settings[j].name, a->settings[j].value);
		mean_ci(x, ok_primary(&run->in2, i, x), &m, &lo, &hi);
		report_cell(s, "%s%s", a->name, run->in2.arms[i].is_baseline ? " (baseline)" : "");
		report_cell(s, "%s", r->compared ? pct(r->effect_pct, b1, sizeof(b1)) : "-");
		if (r->compared)
			report_cell(s, "%s .. %s", pct(r->ci_low_pct, b1, sizeof(b1)), pct(r->ci_high_pct, b2, sizeof(b2)));
		else
			report_cell(s, "-");
		report_cell_p(s, r->compared ? r->p_one_sided : NAN);
		report_cell(s, "%s", verdict_arm_status_name(r->status));
		report_cell_num(s, (double)r->n);
		report_cell_num(s, (double)r->n_oom_killed);
		report_cell_num(s, (double)a->n_failed);
		report_cell_num(s, r->mean);
		report_cell_num(s, r->stddev);
		if (isfinite(lo))
			report_cell(s, "%s .. %s", report_num(lo, b1, sizeof(b1)), report_num(hi, b2, sizeof(b2)));
		else
			report_cell(s, "-");
		report_cell(s, "%s%s", set, a->emulated ? " (emulated)" : "");
	}

	c = report_add(rep, REPORT_CHART, "arms-chart", "Primary metric per arm");
	c->chart.kind = REPORT_CHART_BARS;
	c->chart.y_unit = strdup(run->in2.metric == VERDICT_METRIC_THROUGHPUT ? "ops/s" :
				 run->in2.metric == VERDICT_METRIC_WALL_TIME ? "s" : run->in2.metric_name);
	for (size_t i = 0; i < run->n_arms; i++) {
		double m, lo, hi, x[VERDICT2_ROUNDS_MAX];
		size_t n = ok_primary(&run->in2, i, x);

		mean_ci(x, n, &m, &lo, &hi);
		report_bar_add(c, &(struct report_bar_in){ .name = run->arms[i].name, .mean = m, .lo = lo, .hi = hi,
							 .pts = x, .n_pts = n,
							 .highlight = run->in2.arms[i].is_baseline });
	}
}

/* Trials in the order they ran (seq, then row id): the raw table lists them so. */
static int by_seq(const void *a, const void *b)
{
	const struct store_probe_trial *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * A probe run loaded once: its runs row the caller read into t->run
 * (store_run_get()), then its arms, trials and metrics into t
 * (store_probe_rows_load()) and, from the same rows in the loader's order,
 * run as recommend reads it (advice_load_rows()); the trials then sorted
 * by seq for the tables. h may be NULL.
 */
static int rows_load(struct store *st, const struct host *h, struct store_probe_run *t,
		     struct advice_run *run, struct st_err *e)
{
	int r;

	if ((r = store_probe_rows_load(st, t, e)) < 0 ||
	    (r = advice_load_rows(st, h, t, NULL, run, e)) < 0)
		return r;
	qsort(t->trials, t->n_trials, sizeof(*t->trials), by_seq);
	return 0;
}

static void trials_free(struct store_probe_run *t)
{
	if (t)
		store_probe_run_free(t);
	free(t);
}

/* The name of the arm trial x ran ("" for an arm the run does not list). */
static const char *trial_arm(const struct store_probe_run *t, const struct store_probe_trial *x)
{
	for (size_t i = 0; i < t->n_arms; i++)
		if (t->arms[i].id == x->arm_id)
			return t->arms[i].name;
	return "";
}

/* Values of metric key over the used trials of arm (completed, not warm-up). */
static size_t arm_values(const struct store_probe_run *t, const char *arm, const char *key,
			 double *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_trials && n < max; i++) {
		const struct store_probe_trial *x = &t->trials[i];

		if (x->warmup || strcmp(x->status, "ok") || strcmp(trial_arm(t, x), arm))
			continue;
		for (size_t k = 0; k < x->n_metrics; k++)
			if (!strcmp(x->metrics[k].key, key))
				out[n++] = x->metrics[k].value;
	}
	return n;
}

/* Distinct metric keys over all trials, sorted. */
static size_t metric_keys(const struct store_probe_run *t, char (*keys)[48], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_trials; i++)
		for (size_t k = 0; k < t->trials[i].n_metrics; k++) {
			const char *key = t->trials[i].metrics[k].key;
			size_t j = 0;

			while (j < n && strcmp(keys[j], key))
				j++;
			if (j == n && n < max)
				snprintf(keys[n++], 48, "%s", key);
		}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			char tmp[48];

			memcpy(tmp, keys[j], 48);
			memcpy(keys[j], keys[j - 1], 48);
			memcpy(keys[j - 1], tmp, 48);
		}
	return n;
}

#define KEYS_MAX 96

static void counters_table(struct report *rep, const struct advice_run *run,
			   const struct store_probe_run *t)
{
	struct report_section *s = report_add(rep, REPORT_TABLE, "counters", "Counter deltas per trial (arm means)");
	const char *cols[1 + VERDICT_ARMS_MAX];
	double x[VERDICT2_ROUNDS_MAX];

	report_note(s, "counter deltas over one measured trial, mean of the completed trials; - = not measured");
	cols[0] = "counter";
	for (size_t i = 0; i < run->n_arms; i++)
		cols[1 + i] = run->arms[i].name;
	report_cols(s, 1 + run->n_arms, cols);
	for (size_t k = 0; k < (size_t)SHOWN_N_report_counters; k++) {
		const char *key = metric_defs[shown_report_counters[k]].key;

		report_cell(s, "%s", key);
		for (size_t i = 0; i < run->n_arms; i++) {
			size_t n = arm_values(t, run->arms[i].name, key, x, VERDICT2_ROUNDS_MAX);

			report_cell_num(s, n ? stats_mean(x, n) : NAN);
		}
	}
}

struct diff_row {
	char key[48];
	const char *arm;
	double base, mean, pct, lo, hi, p;
};

static int diff_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double ax = isfinite(x->pct) ? fabs(x->pct) : INFINITY;
	double ay = isfinite(y->pct) ? fabs(y->pct) : INFINITY;

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* The largest counter changes beyond noise, one line: "counters beyond noise: swap_ra pc0 -100.0 %, ..." */
static void summary_counters(struct report_section *sum, const struct diff_row *rows, size_t nr)
{
	char line[1024], b[FMT_NUM_LEN + 8];
	size_t n = 0, k = 0, shown = 0;

	for (size_t i = 0; i < nr; i++)
		n += rows[i].p < 0.05;
	if (!n) {
		report_line(sum, "no per-trial counter differs from the baseline beyond noise");
		return;
	}
	k = (size_t)snprintf(line, sizeof(line), "counters beyond noise (%zu), largest first:", n);
	for (size_t i = 0; i < nr && shown < 4 && k < sizeof(line); i++)
		if (rows[i].p < 0.05) {
			k += (size_t)snprintf(line + k, sizeof(line) - k, "%s %s %s %s", shown ? "," : "",
					      rows[i].key, rows[i].arm, isfinite(rows[i].pct) ?
					      pct(rows[i].pct, b, sizeof(b)) : "new");
			shown++;
		}
	report_line(sum, "%s", line);
}

static void differences_table(struct report *rep, const struct advice_run *run,
			      const struct store_probe_run *t, const struct verdict_result *v,
			      struct report_section *sum)
{
	static const char *const cols[] = { "counter", "arm", "baseline mean", "arm mean",
					    "change", "95 % CI of change", "p (Welch)" };
	struct report_section *s = report_add(rep, REPORT_TABLE, "differences",
					      "Per-trial counters that differ between arms");
	char (*keys)[48] = calloc(KEYS_MAX, 48);
	struct diff_row *rows = calloc(KEYS_MAX * VERDICT_ARMS_MAX, sizeof(*rows));
	double a[VERDICT2_ROUNDS_MAX], b[VERDICT2_ROUNDS_MAX];
	size_t nk, nr = 0;
	const char *base = v->baseline >= 0 ? run->arms[v->baseline].name : NULL;

	if (!keys || !rows)
		abort();
	report_note(s, "every per-trial metric whose mean differs from the baseline arm's, largest relative change first; "
		    "95 %% CI of the ratio of means (Fieller, Welch df); - = unbounded (baseline mean not clear of 0); "
		    "beyond noise = p < 0.05, each counter on its own (not adjusted for the many counters)");
	report_cols(s, 7, cols);
	report_key_cols(s, 2);
	nk = base ? metric_keys(t, keys, KEYS_MAX) : 0;
	for (size_t k = 0; k < nk; k++) {
		size_t nb = arm_values(t, base, keys[k], b, VERDICT2_ROUNDS_MAX);

		for (size_t i = 0; i < run->n_arms && nb; i++) {
			struct stats_welch w;
			struct diff_row *d = &rows[nr];
			size_t na;

			if ((int)i == v->baseline)
				continue;
			na = arm_values(t, run->arms[i].name, keys[k], a, VERDICT2_ROUNDS_MAX);
			if (!na)
				continue;
			snprintf(d->key, sizeof(d->key), "%s", keys[k]);
			d->arm = run->arms[i].name;
			d->base = stats_mean(b, nb);
			d->mean = stats_mean(a, na);
			if (d->mean == d->base)
				continue;
			d->pct = d->base != 0 ? (d->mean - d->base) / fabs(d->base) * 100 : NAN;
			d->lo = d->hi = d->p = NAN;
			if (na >= 2 && nb >= 2 && stats_welch(&(struct stats_pair){ a, na, b, nb }, 0.95, &w, NULL) == 0) {
				stats_welch_ratio_ci(&w, &d->lo, &d->hi);
				d->p = w.p;
			}
			nr++;
		}
	}
	qsort(rows, nr, sizeof(*rows), diff_cmp);
	summary_counters(sum, rows, nr);
	for (size_t i = 0; i < nr; i++) {
		char b1[32], b2[32];

		report_cell(s, "%s", rows[i].key);
		if (rows[i].p < 0.05)
			report_row_mark(s);
		report_cell(s, "%s", rows[i].arm);
		report_cell_num(s, rows[i].base);
		report_cell_num(s, rows[i].mean);
		report_cell(s, "%s", isfinite(rows[i].pct) ? pct(rows[i].pct, b1, sizeof(b1)) : "new");
		if (isfinite(rows[i].lo))
			report_cell(s, "%s .. %s", pct(rows[i].lo, b1, sizeof(b1)), pct(rows[i].hi, b2, sizeof(b2)));
		else
			report_cell(s, "-");
		report_cell_p(s, rows[i].p);
	}
	free(keys);
	free(rows);
}

static void trials_table(struct report *rep, const struct store_probe_run *t)
{
	struct report_section *s = report_add(rep, REPORT_TABLE, "trials", "Every trial");
	char (*keys)[48] = calloc(KEYS_MAX, 48);
	const char *cols[6 + KEYS_MAX] = { "seq", "round", "arm", "status", "primary", "note" };
	size_t nk;

	if (!keys)
		abort();
	report_note(s, "in the order they ran; values to 4 significant digits (--format json has every digit)");
	nk = metric_keys(t, keys, KEYS_MAX);
	for (size_t k = 0; k < nk; k++)
		cols[6 + k] = keys[k];
	report_cols(s, 6 + nk, cols);
	report_key_cols(s, 3);
	for (size_t i = 0; i < t->n_trials; i++) {
		const struct store_probe_trial *x = &t->trials[i];

		report_cell_num(s, x->seq);
		report_cell_num(s, x->round);
		report_cell(s, "%s", trial_arm(t, x));
		report_cell(s, "%s%s", x->status, x->warmup ? " (warm-up)" : "");
		report_cell_num(s, x->have_primary ? x->primary : NAN);
		report_cell(s, "%s", x->note[0] ? x->note : "-");
		for (size_t k = 0; k < nk; k++) {
			double v = NAN;

			for (size_t j = 0; j < x->n_metrics; j++)
				if (!strcmp(x->metrics[j].key, keys[k]))
					v = x->metrics[j].value;
			report_cell_num(s, v);
		}
	}
	free(keys);
}

/* The apply with its safety net: --confirm-within, and --dry-run first. */
static void apply_hint(struct report_section *s, int64_t run_id)
{
	char lines[4][96];

	advice_apply_hint_lines(run_id, lines);
	for (int i = 0; i < 4; i++)
		report_line(s, "%s", lines[i]);
}

static void verdict_section(struct report *rep, const struct advice_run *run,
			    const struct verdict_result *v)
{
	struct report_section *s = report_add(rep, REPORT_TEXT, "verdict", "Verdict");

	report_note(s, "%s; baseline %s", verdict_kind_name(v->kind), run->baseline_source);
	for (size_t i = 0; i < v->n_reasons; i++)
		report_line(s, "%s", v->reasons[i]);
	if (v->kind == VERDICT_CHANGE && v->chosen >= 0)
		apply_hint(s, run->run_id);
}

/*
 * The answer first: the verdict in recommend's words with its headline
 * reason, each candidate's effect, failures, and the command that applies
 * a change.
 */
static void run_summary(struct report_section *s, const struct advice_run *run,
			const struct verdict_result *v)
{
	const char *base = v->baseline >= 0 ? run->arms[v->baseline].name : "the baseline";
	char b1[FMT_NUM_LEN + 8], b2[FMT_NUM_LEN + 8], b3[FMT_NUM_LEN + 8], p[16];

	if (v->kind == VERDICT_CHANGE && v->chosen >= 0)
		report_line(s, "Verdict: CHANGE to %s", run->arms[v->chosen].name);
	else if (v->kind == VERDICT_KEEP)
		report_line(s, "Verdict: KEEP %s", base);
	else
		report_line(s, "Verdict: INCONCLUSIVE");
	if (v->n_reasons)
		report_line(s, "%s", v->reasons[0]);
	for (size_t i = 0; i < run->n_arms && i < v->n_arms; i++) {
		const struct verdict_arm_result *r = &v->arms[i];

		if (!r->compared)
			continue;
		fmt_p(r->p_one_sided, p, sizeof(p));
		report_line(s, "%s: %s %s vs %s (interval %s .. %s, one-sided p %s %s), %s%s", run->arms[i].name,
			    run->in2.metric_name, pct(r->effect_pct, b1, sizeof(b1)), base,
			    pct(r->ci_low_pct, b2, sizeof(b2)), pct(r->ci_high_pct, b3, sizeof(b3)),
			    p[0] == '<' ? "<" : "=", p[0] == '<' ? p + 1 : p, verdict_arm_status_name(r->status),
			    r->n_oom_killed ? ", OOM-killed in some trials" : "");
	}
	if (v->kind == VERDICT_CHANGE && v->chosen >= 0)
		apply_hint(s, run->run_id);
}

int report_build_run(struct store *st, const struct host *h, int64_t run_id,
		     struct report **out, struct st_err *e)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct store_probe_run *t = calloc(1, sizeof(*t));
	const struct store_run *ri = t ? &t->run : NULL;
	struct judgement run_j;
	struct report *rep = NULL;
	struct report_section *s;
	cJSON *sum = NULL;
	const cJSON *par = NULL;
	char title[128], when[FMT_TIME_LEN + 512];
	/* the answer, the evidence, then how it was measured */
	static const char *const order[] = { "summary", "verdict", "arms-chart", "arms", "differences",
					     "recipe", "run", "host", "counters", "trials" };
	int r;

	if (!run || !v || !t) {
		r = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	/* the runs row read once: its kind says which report, its columns fill the facts */
	if ((r = store_run_get(st, run_id, &t->run, e)) < 0)
		goto out;
	if (!strcmp(store_run_kind(ri), "switchback")) {
		r = report_build_switchback(st, h, run_id, out, e);
		goto out;
	}
	if (strcmp(store_run_kind(ri), "probe")) {	/* an imported probe is reported as history */
		r = err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "run %lld is a %s run, not a probe%s",
				 (long long)run_id, store_run_kind(ri),
				 !strcmp(ri->kind, "sample") ? ": compare recordings with --before/--after" :
				 !strcmp(ri->kind, "apply") ? ": see --change" : "");
		goto out;
	}
	if ((r = rows_load(st, h, t, run, e)) < 0)
		goto out;
	if ((r = advice_judge_pooled(st, h, run, -1, &(struct advice_verdict){ v, &run_j, NULL }, e)) < 0) {
		err_prefix(e, "cannot judge probe run %lld", (long long)run_id);
		goto out;
	}
	sum = ri->summary ? cJSON_Parse(ri->summary) : NULL;
	par = ri->p.doc;

	snprintf(title, sizeof(title), "swaptune report: probe run %lld", (long long)run_id);
	rep = report_new("run", title);
	s = report_add(rep, REPORT_FACTS, "run", "Run");
	report_fact(s, "run", "%lld", (long long)run_id);
	report_fact(s, "status", "%s", ri->status);
	report_fact(s, "started", "%s", ri->started_at[0] ? fmt_time(ri->started_at, false, when, sizeof(when)) :
		    REPORT_NOT_RECORDED);
	report_fact(s, "ended", "%s", ri->ended_at[0] ? fmt_time(ri->ended_at, false, when, sizeof(when)) :
		    REPORT_NOT_RECORDED);
	report_fact_opt(s, "workload", run->workload);
	report_fact(s, "primary metric", "%s", run->in2.metric_name);
	report_fact(s, "baseline", "%s", v->baseline >= 0 ? run->arms[v->baseline].name : "none");
	host_facts(rep, ri, sum, par);
	report_kernel_facts(rep, ri);
	recipe(rep, h, run);
	verdict_section(rep, run, v);
	s = report_add(rep, REPORT_TEXT, "summary", "Summary");
	run_summary(s, run, v);
	arms_table(rep, run, v);
	counters_table(rep, run, t);
	differences_table(rep, run, t, v, s);
	trials_table(rep, t);
	report_order(rep, order, sizeof(order) / sizeof(order[0]));
	*out = rep;
	r = 0;
out:
	cJSON_Delete(sum);
	trials_free(t);
	advice_run_free(run);
	free(run);
	free(v);
	return r;
}

/* ---- two probe runs side by side (report --before/--after with probes) ---- */

struct probe_side {
	struct advice_run *run;
	struct store_probe_run *t;	/* its runs row in t->run */
};

static void side_free(struct probe_side *p)
{
	trials_free(p->t);
	advice_run_free(p->run);
	free(p->run);
}

static int side_load(struct store *st, int64_t id, struct probe_side *p, struct st_err *e)
{
	int r;

	memset(p, 0, sizeof(*p));
	p->run = calloc(1, sizeof(*p->run));
	p->t = calloc(1, sizeof(*p->t));
	if (!p->run || !p->t)
		return err_set(e, -ENOMEM, "out of memory");
	if ((r = store_run_get(st, id, &p->t->run, e)) < 0)
		return r;
	if (strcmp(p->t->run.kind, "probe"))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "run %lld is a %s run: compare two probes or two recordings",
				    (long long)id, p->t->run.kind);
	return rows_load(st, NULL, p->t, p->run, e);
}

/*
 * The cells after the name(s) of one row of a before/after comparison of x
 * (after) against y (before): mean before, mean after, change, p, beyond
 * noise, CI of the change, trials before / after. The row is marked when the
 * change is beyond noise; its change in % into *pct_out (NAN if none).
 */
static bool pair_cells(struct report_section *s, const double *y, size_t ny, const double *x,
		       size_t nx, double *pct_out)
{
	struct stats_welch w;
	double my = ny ? stats_mean(y, ny) : NAN, mx = nx ? stats_mean(x, nx) : NAN;
	bool ok = nx >= 2 && ny >= 2 && stats_welch(&(struct stats_pair){ x, nx, y, ny }, 0.95, &w, NULL) == 0;
	bool beyond = ok && (w.flag == STATS_WELCH_CONSTANT || (w.flag == STATS_WELCH_OK && w.p < 0.05));
	char b1[32], b2[32];
	double lo = NAN, hi = NAN;

	if (ok)
		stats_welch_ratio_ci(&w, &lo, &hi);
	*pct_out = isfinite(my) && isfinite(mx) && my != 0 ? (mx - my) / fabs(my) * 100 : NAN;
	if (beyond)
		report_row_mark(s);
	report_cell_num(s, my);
	report_cell_num(s, mx);
	report_cell_pct(s, *pct_out);
	report_cell_p(s, ok ? w.p : NAN);
	report_cell(s, "%s", !ok ? "too few trials" : w.flag == STATS_WELCH_IDENTICAL ? "no (identical)" :
		    w.flag == STATS_WELCH_CONSTANT ? "yes (constant, differ)" : w.p < 0.05 ? "yes" : "no");
	if (ok && w.flag == STATS_WELCH_OK && isfinite(lo))
		report_cell(s, "%s .. %s", pct(lo, b1, sizeof(b1)), pct(hi, b2, sizeof(b2)));
	else
		report_cell(s, "-");
	report_cell(s, "%zu / %zu", ny, nx);
	return beyond;
}

/* The two runs side by side: id, start, workload, metric, host, kernel. */
static void runs_compared(struct report *rep, struct probe_side *a, struct probe_side *b)
{
	static const char *const cols[] = { "", "before", "after" };
	struct probe_side *p[2] = { a, b };
	struct report_section *s = report_add(rep, REPORT_TABLE, "runs-compared", "Probe runs compared");
	char when[FMT_TIME_LEN + 512];

	report_cols(s, 3, cols);
	report_cell(s, "run");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%lld", (long long)p[i]->t->run.id);
	report_cell(s, "started");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", fmt_time(p[i]->t->run.started_at, false, when, sizeof(when)));
	report_cell(s, "workload");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", p[i]->run->workload[0] ? p[i]->run->workload : REPORT_NOT_RECORDED);
	report_cell(s, "primary metric");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", p[i]->run->in2.metric_name);
	report_cell(s, "hostname");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", p[i]->t->run.hostname[0] ? p[i]->t->run.hostname : REPORT_NOT_RECORDED);
	report_cell(s, "kernel");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", p[i]->t->run.kernel[0] ? p[i]->t->run.kernel : REPORT_NOT_RECORDED);
	if (strcmp(a->run->workload, b->run->workload) || strcmp(a->run->in2.metric_name, b->run->in2.metric_name))
		report_note(s, "the runs measured different workloads or metrics: the comparison is weak");
}

/* The primary metric arm by arm (table and chart); its line in the summary. */
static void arms_compared(struct report *rep, struct probe_side *a, struct probe_side *b,
			  struct report_section *sum)
{
	static const char *const pcols[] = { "arm", "mean before", "mean after", "change", "p (Welch)",
					     "beyond noise", "95 % CI of change", "trials" };
	struct report_section *s = report_add(rep, REPORT_TABLE, "arms-compared", "Primary metric, arm by arm");
	struct report_section *c;
	char line[1024], b1[FMT_NUM_LEN + 8];
	size_t k = 0, n_beyond = 0, n_arms = 0;
	double change;

	report_note(s, "arms matched by name; Welch's t-test on the completed trials; beyond noise = p < 0.05; "
		    "trials: completed before / after");
	report_cols(s, 8, pcols);
	c = report_add(rep, REPORT_CHART, "arms-compared-chart", "Primary metric per arm, before and after");
	c->chart.kind = REPORT_CHART_BARS;
	c->chart.highlight_name = strdup("before");
	c->chart.y_unit = strdup(a->run->in2.metric == VERDICT_METRIC_THROUGHPUT ? "ops/s" :
				 a->run->in2.metric == VERDICT_METRIC_WALL_TIME ? "s" : a->run->in2.metric_name);
	line[0] = '\0';
	for (size_t i = 0; i < a->run->n_arms; i++) {
		double m, lo, hi, xa[VERDICT2_ROUNDS_MAX], xb[VERDICT2_ROUNDS_MAX];
		size_t na = ok_primary(&a->run->in2, i, xa), nb = 0;
		bool found = false;
		char name[96];

		for (size_t j = 0; j < b->run->n_arms && !found; j++)
			if (!strcmp(b->run->arms[j].name, a->run->arms[i].name)) {
				nb = ok_primary(&b->run->in2, j, xb);
				found = true;
			}
		if (!found)
			continue;
		report_cell(s, "%s", a->run->arms[i].name);
		n_arms++;
		if (pair_cells(s, xa, na, xb, nb, &change)) {
			n_beyond++;
			if (k < sizeof(line))
				k += (size_t)snprintf(line + k, sizeof(line) - k, "%s %s %s", k ? "," : "",
						      a->run->arms[i].name, pct(change, b1, sizeof(b1)));
		}
		mean_ci(xa, na, &m, &lo, &hi);
		snprintf(name, sizeof(name), "%s before", a->run->arms[i].name);
		report_bar_add(c, &(struct report_bar_in){ .name = name, .mean = m, .lo = lo, .hi = hi,
							 .pts = xa, .n_pts = na, .highlight = true });
		mean_ci(xb, nb, &m, &lo, &hi);
		snprintf(name, sizeof(name), "%s after", a->run->arms[i].name);
		report_bar_add(c, &(struct report_bar_in){ .name = name, .mean = m, .lo = lo, .hi = hi,
							 .pts = xb, .n_pts = nb });
	}
	if (n_beyond)
		report_line(sum, "%s, after vs before, changed beyond noise in %zu of %zu arms:%s",
			    a->run->in2.metric_name, n_beyond, n_arms, line);
	else
		report_line(sum, "%s: no arm changed beyond noise (%zu arms in both runs; Welch's t-test, p < 0.05)",
			    a->run->in2.metric_name, n_arms);
}

/* Every per-trial counter of an arm in both runs, largest relative change first; its summary line. */
static void counters_compared(struct report *rep, struct probe_side *a, struct probe_side *b,
			      struct report_section *sum)
{
	static const char *const ccols[] = { "counter", "arm", "mean before", "mean after", "change",
					     "p (Welch)", "beyond noise", "95 % CI of change", "trials" };
	struct report_section *s = report_add(rep, REPORT_TABLE, "counters-compared", "Per-trial counters, arm by arm");
	char (*keys)[48] = calloc(KEYS_MAX, 48);
	struct diff_row *rows = calloc(KEYS_MAX * VERDICT_ARMS_MAX, sizeof(*rows));
	double x[VERDICT2_ROUNDS_MAX], y[VERDICT2_ROUNDS_MAX], change;
	char line[1024], b1[FMT_NUM_LEN + 8];
	size_t nk, nr = 0, k = 0, n_beyond = 0;

	if (!keys || !rows)
		abort();
	report_note(s, "every per-trial metric of an arm present in both runs whose mean differs, largest relative change first");
	report_cols(s, 9, ccols);
	report_key_cols(s, 2);
	nk = metric_keys(a->t, keys, KEYS_MAX);
	/* largest relative change first, as in the --run table */
	for (size_t q = 0; q < nk; q++)
		for (size_t i = 0; i < a->run->n_arms; i++) {
			const char *arm = a->run->arms[i].name;
			size_t ny = arm_values(a->t, arm, keys[q], y, VERDICT2_ROUNDS_MAX);
			size_t nx = arm_values(b->t, arm, keys[q], x, VERDICT2_ROUNDS_MAX);
			double my, mx;

			if (!nx || !ny || (mx = stats_mean(x, nx)) == (my = stats_mean(y, ny)))
				continue;
			snprintf(rows[nr].key, sizeof(rows[nr].key), "%s", keys[q]);
			rows[nr].arm = arm;
			rows[nr++].pct = my != 0 ? (mx - my) / fabs(my) * 100 : NAN;
		}
	qsort(rows, nr, sizeof(*rows), diff_cmp);
	line[0] = '\0';
	for (size_t i = 0; i < nr; i++) {
		size_t ny = arm_values(a->t, rows[i].arm, rows[i].key, y, VERDICT2_ROUNDS_MAX);
		size_t nx = arm_values(b->t, rows[i].arm, rows[i].key, x, VERDICT2_ROUNDS_MAX);

		report_cell(s, "%s", rows[i].key);
		report_cell(s, "%s", rows[i].arm);
		if (pair_cells(s, y, ny, x, nx, &change) && n_beyond++ < 4 && k < sizeof(line))
			k += (size_t)snprintf(line + k, sizeof(line) - k, "%s %s %s %s", k ? "," : "",
					      rows[i].key, rows[i].arm, pct(change, b1, sizeof(b1)));
	}
	free(rows);
	free(keys);
	if (n_beyond)
		report_line(sum, "per-trial counters beyond noise (%zu), largest first:%s", n_beyond, line);
	else
		report_line(sum, "no per-trial counter changed beyond noise");
}

static void probes_sections(struct report *rep, struct probe_side *a, struct probe_side *b,
			    struct report_section *sum)
{
	runs_compared(rep, a, b);
	arms_compared(rep, a, b, sum);
	counters_compared(rep, a, b, sum);
	report_kernel_compare(rep, &a->t->run, &b->t->run);
}

int report_build_probes(struct store *st, int64_t before, int64_t after, struct report **out,
			struct st_err *e)
{
	static const char *const probe_order[] = { "summary", "arms-compared-chart", "arms-compared",
						   "counters-compared", "runs-compared" };
	struct probe_side a, b;
	char title[160];
	int r;

	memset(&b, 0, sizeof(b));
	if ((r = side_load(st, before, &a, e)) < 0 || (r = side_load(st, after, &b, e)) < 0)
		goto out;
	snprintf(title, sizeof(title), "swaptune report: probe run %lld before, %lld after",
		 (long long)before, (long long)after);
	*out = report_new("compare", title);
	probes_sections(*out, &a, &b, report_add(*out, REPORT_TEXT, "summary", "Summary"));
	report_order(*out, probe_order, sizeof(probe_order) / sizeof(probe_order[0]));
out:
	side_free(&a);
	side_free(&b);
	return r;
}
