/*
 * report-switchback.c - the report of one switchback run (report --run ID
 * of a run of kind "switchback"): the run and host, the design and how to
 * run it again, the verdict as recommend gives it, the arms side by side
 * with the kernel's figures, a timeline of every window coloured by arm
 * (the washout lighter, failures marked), and every window's values. The
 * timeline is a chart of its own kind (REPORT_CHART_WINDOWS), built here;
 * the HTML renderer draws it as SVG, the JSON one gives it as data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/fmt.h"
#include "swaptune/report.h"
#include "swaptune/sbrun.h"

static void run_facts(struct report *rep, const struct sbrun_stored *s, const struct store_run *ri)
{
	struct report_section *x = report_add(rep, REPORT_FACTS, "run", "Run");
	char desc[1024];

	report_fact(x, "run", "%lld", (long long)s->run_id);
	report_fact(x, "kind", "switchback%s", !strcmp(s->origin, "verify-live") ? " (verify --live)" : "");
	report_fact(x, "status", "%s", s->status);
	report_fact_opt(x, "started", ri->started_at);
	report_fact_opt(x, "ended", ri->ended_at);
	report_fact_opt(x, "hostname", ri->hostname);
	report_fact_opt(x, "kernel", ri->kernel);
	report_fact(x, "metric", "%s, %s is better", sbm_describe(&s->metric, desc, sizeof(desc)),
		    s->metric.higher_better ? "higher" : "lower");
	report_fact_opt(x, "workload cgroup", s->cgroup);
	if (s->verify_of)
		report_fact(x, "verifies", "apply run %lld", (long long)s->verify_of);
	report_fact_opt(x, "ended early", s->stop_reason[0] ? s->stop_reason : "no");
}

static void design_facts(struct report *rep, const struct sbrun_stored *s)
{
	struct report_section *x = report_add(rep, REPORT_FACTS, "design", "Design");
	const struct sb_plan *p = &s->design.plan;
	char looks[64] = "", rerun[2048], q[1100];
	size_t o = 0;

	for (unsigned k = 0; k < p->n_looks; k++)
		o += (size_t)snprintf(looks + o, sizeof(looks) - o, "%s%u", k ? "," : "", p->looks[k]);
	report_fact(x, "windows", "%u blocks x %u windows of %g s, washout %g s", p->n_blocks, p->n_arms,
		    p->window_s, p->washout_s);
	report_fact(x, "looks", "at blocks %s; exact sequential randomisation test", looks);
	report_fact(x, "false-change bound", "%g %%", 100 * p->alpha);
	report_fact(x, "minimum effect", "%g%s", s->opts.min_effect, sbm_kind(&s->metric) == SB_RATE ? " %" : "");
	report_fact(x, "seed", "%llu (--seed %llu repeats this schedule; a re-run draws a fresh one)",
		    (unsigned long long)p->seed, (unsigned long long)p->seed);
	/* a limit of 0 is off (--psi-full-max 0, the default --psi-some-max) */
	if (s->psi_full_max > 0 || s->psi_some_max > 0) {
		char g[160] = "";

		if (s->psi_full_max > 0)
			snprintf(g, sizeof(g), "PSI memory full above %g %%", s->psi_full_max);
		if (s->psi_some_max > 0)
			snprintf(g + strlen(g), sizeof(g) - strlen(g), "%sPSI memory some above %g %%",
				 g[0] ? " or " : "", s->psi_some_max);
		report_fact(x, "guardrail", "%s in a candidate window: switched back at once", g);
	} else {
		report_fact(x, "guardrail", "off (no PSI limit)");
	}
	for (int a = 0; a < s->narms; a++) {
		char set[512] = "";
		size_t so = 0;

		for (int i = 0; i < s->arms[a].n_settings; i++)
			so += (size_t)snprintf(set + so, sizeof(set) - so, "%s%s=%s", i ? ", " : "",
					       s->arms[a].set[i].name, s->arms[a].set[i].value);
		report_fact(x, a == 0 ? "baseline arm" : "candidate arm", "%s: %s", s->arms[a].name, set);
	}
	/* no --seed: a re-run draws its own schedule; "seed" above reproduces this one */
	o = (size_t)snprintf(rerun, sizeof(rerun), "swaptune switchback --baseline %s --window %gs --washout %gs "
			     "--blocks %u --looks %s --min-effect %g", s->arms[0].name, p->window_s,
			     p->washout_s, p->n_blocks, looks, s->opts.min_effect);
	for (int a = 0; a < s->narms && o < sizeof(rerun); a++) {
		char spec[600];
		size_t so = (size_t)snprintf(spec, sizeof(spec), "%s:", s->arms[a].name);

		for (int i = 0; i < s->arms[a].n_settings; i++)
			so += (size_t)snprintf(spec + so, sizeof(spec) - so, "%s%s=%s", i ? "," : "",
					       s->arms[a].set[i].name, s->arms[a].set[i].value);
		fmt_shell_quote(spec, false, q, sizeof(q));
		o += (size_t)snprintf(rerun + o, sizeof(rerun) - o, " --arm %s", q);
	}
	report_fact(x, "run it again", "%s (and the metric options above)", rerun);
}

static void verdict_text(struct report *rep, const struct sbrun_stored *s)
{
	struct report_section *x = report_add(rep, REPORT_TEXT, "verdict", "Verdict");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	sbrun_verdict_print(m, s);
	fclose(m);
	for (char *save, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		report_line(x, "%s", line);
	free(buf);
	if (sbrun_says_change(s)) {
		char lines[4][96];

		advice_apply_hint_lines(s->run_id, lines);
		for (int i = 0; i < 4; i++)
			report_line(x, "%s", lines[i]);
	}
}

/* Mean of the kernel figure f (or the value, f < 0) over arm a's OK windows. */
static double arm_mean(const struct sbrun_stored *s, int a, int f, unsigned *n)
{
	double sum = 0;

	*n = 0;
	for (unsigned i = 0; i < s->n_windows; i++) {
		const struct sbrun_window *w = &s->w[i];
		double v = f < 0 ? w->value : w->kern[f];

		if ((int)w->arm != a || w->outcome != SB_WIN_OK || !isfinite(v))
			continue;
		sum += v;
		(*n)++;
	}
	return *n ? sum / *n : NAN;
}

/*
 * The kernel figures a table shows (the vocabulary's WINDOW rows with a
 * column there, windows: windows_col else arms_col), in column order;
 * their heads after the n heads before them. Returns how many.
 */
static int table_figs(bool windows, int *figs, const char **cols, int n)
{
	int k = 0;

	for (int c = 1; c <= SBK_COUNT; c++)
		for (int f = 0; f < SBK_COUNT; f++)
			if ((windows ? sbm_kernel_defs[f].windows_col : sbm_kernel_defs[f].arms_col) == c) {
				figs[k] = f;
				cols[n + k++] = sbm_kernel_defs[f].head;
			}
	return k;
}

static void arms_table(struct report *rep, const struct sbrun_stored *s)
{
	const char *cols[7 + SBK_COUNT] = { "arm", "windows", "failed", "metric (mean)", "effect", "interval",
					    "p (sequential)" };
	int figs[SBK_COUNT], nfig = table_figs(false, figs, cols, 7);
	struct report_section *x = report_add(rep, REPORT_TABLE, "arms", "Arms");
	char b[64];

	report_note(x, "means over the counted part of each arm's windows; effect and interval per block (paired), %s; "
		    "interval: repeated-confidence at the test's own level (valid at whichever look it stopped)",
		    sbm_kind(&s->metric) == SB_RATE ? "in percent of the baseline, positive = better" :
		    "in metric units, positive = better");
	report_cols(x, (size_t)(7 + nfig), cols);
	for (int a = 0; a < s->narms; a++) {
		const struct sb_arm_result *ar = &s->res.arms[a];
		unsigned n, nw = 0, nf = 0;

		for (unsigned i = 0; i < s->n_windows; i++)
			if ((int)s->w[i].arm == a) {
				nw++;
				nf += s->w[i].outcome == SB_WIN_FAILED;
			}
		report_cell(x, "%s%s", s->arms[a].name, a == 0 ? " (baseline)" : "");
		report_cell_num(x, nw);
		report_cell_num(x, nf);
		report_cell_num(x, arm_mean(s, a, -1, &n));
		if (a == 0 || !s->judged) {
			report_cell(x, "-");
			report_cell(x, "-");
			report_cell(x, "-");
		} else {
			report_cell(x, "%+.2f", ar->effect);
			report_cell(x, "[%s, %s]", report_num(ar->ci_low, b, sizeof(b)), report_num(ar->ci_high, b + 32, 32));
			report_cell_num(x, ar->test.p_seq);
		}
		for (int k = 0; k < nfig; k++)
			report_cell_num(x, arm_mean(s, a, figs[k], &n));
	}
}

static void timeline(struct report *rep, const struct sbrun_stored *s)
{
	struct report_section *x = report_add(rep, REPORT_CHART, "timeline", "Windows over time (timeline)");
	char unit[128];

	report_note(x, "each window's metric over its counted part, coloured by the arm on the host; the "
		    "lighter start of a window is its washout, not counted; a red window failed (guardrail "
		    "or metric); the band under the axis shows the arm");
	x->chart.kind = REPORT_CHART_WINDOWS;
	snprintf(unit, sizeof(unit), "%s", s->metric.source == SBM_KERNEL && !s->metric.cpu_per_work ?
		 sbm_kernel_defs[s->metric.kernel].unit : s->metric.counter ? "per s" : "value");
	x->chart.y_unit = strdup(unit);
	x->chart.x_unit = strdup("min");
	if (!x->chart.y_unit || !x->chart.x_unit)
		abort();
	for (int a = 0; a < s->narms; a++)
		report_window_arm(x, s->arms[a].name);
	for (unsigned i = 0; i < s->n_windows; i++) {
		const struct sbrun_window *w = &s->w[i];
		struct report_window rw = {
			.x0 = w->start_s, .xc = w->count_start_s, .x1 = w->end_s,
			.y = w->outcome == SB_WIN_OK ? w->value : NAN, .arm = (int)w->arm,
			.failed = w->outcome != SB_WIN_OK,
		};

		report_window_add(x, &rw);
	}
}

static void windows_table(struct report *rep, const struct sbrun_stored *s)
{
	const char *cols[8 + SBK_COUNT] = { "window", "block", "arm", "started", "switched at s",
					    "counted s", "value" };
	int figs[SBK_COUNT], nf = table_figs(true, figs, cols, 7);
	struct report_section *x = report_add(rep, REPORT_TABLE, "windows", "Windows");

	cols[7 + nf] = "outcome";
	report_note(x, "times in seconds from the start of the run; kernel figures over the counted part");
	report_cols(x, (size_t)(8 + nf), cols);
	for (unsigned i = 0; i < s->n_windows; i++) {
		const struct sbrun_window *w = &s->w[i];

		report_cell_num(x, i + 1);
		report_cell_num(x, w->block + 1);
		report_cell(x, "%s", s->arms[w->arm].name);
		report_cell(x, "%s", w->started_at);
		report_cell_num(x, w->switch_s);
		report_cell_num(x, w->end_s - w->count_start_s);
		report_cell_num(x, w->value);
		for (int k = 0; k < nf; k++)
			report_cell_num(x, w->kern[figs[k]]);
		if (w->outcome == SB_WIN_OK)
			report_cell(x, "ok");
		else
			report_cell(x, "failed: %s%s", w->failure, isfinite(w->failed_at_s) ? " (switched back)" : "");
	}
}

/* The effect by slice of the window (from the switch): the carryover profile. */
static void slices_table(struct report *rep, const struct sbrun_stored *s)
{
	static const char *const cols[] = { "slice", "from s", "to s", "counted", "effect" };
	struct report_section *x;

	if (!s->judged || !s->n_slices || !isfinite(s->res.checks.slice_effect[0]))
		return;
	x = report_add(rep, REPORT_TABLE, "carryover", "Effect by time since the switch");
	report_note(x, "the first candidate against the baseline, per slice of the window, averaged over blocks: "
		    "an effect that still grows in the counted slices means the washout is short");
	report_cols(x, sizeof(cols) / sizeof(cols[0]), cols);
	for (unsigned q = 0; q < s->n_slices; q++) {
		report_cell_num(x, q + 1);
		report_cell_num(x, q * s->slice_s);
		report_cell_num(x, (q + 1) * s->slice_s);
		report_cell(x, "%s", q < s->n_washout_slices ? "no (washout)" : "yes");
		report_cell(x, "%+.2f", s->res.checks.slice_effect[q]);
	}
}

int report_build_switchback(struct store *st, const struct host *h, int64_t run_id,
			    struct report **out, struct st_err *e)
{
	struct sbrun_stored *s = calloc(1, sizeof(*s));
	struct store_run ri;
	struct report *rep;
	char title[128];
	int r;

	memset(&ri, 0, sizeof(ri));
	if (!s)
		return err_set(e, -ENOMEM, "out of memory");
	if ((r = sbrun_load(st, h, run_id, s, e)) < 0 || (r = store_run_get(st, run_id, &ri, e)) < 0)
		goto out;
	snprintf(title, sizeof(title), "swaptune report: switchback run %lld", (long long)run_id);
	rep = report_new("run", title);
	run_facts(rep, s, &ri);
	report_kernel_facts(rep, &ri);
	verdict_text(rep, s);
	arms_table(rep, s);
	timeline(rep, s);
	slices_table(rep, s);
	design_facts(rep, s);
	windows_table(rep, s);
	*out = rep;
out:
	store_run_free(&ri);
	sbrun_stored_free(s);
	free(s);
	return r;
}
