/*
 * verdict.c - a stored probe run for the screen: its verdict in the words
 * of `swaptune recommend` (the same loader, judge and renderer), and the
 * trial counts of a run still going (its planned rounds from the recipe
 * reader, recipe.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advice.h"
#include "swaptune/fmt.h"
#include "swaptune/recipe.h"
#include "tui-internal.h"

/* The arm table narrowed to 80 columns: the CLI's is 110 wide. */
static void add_arm_table(struct tui_text *t, const struct advice_run *run,
			  const struct verdict_result *v)
{
	tui_text_add(t, TS_TITLE, "  %-9s %-9s %3s %3s %7s %8s %19s %6s", "arm", "status", "n",
		     "oom", "mean", "effect", "CI of effect", "p");
	for (size_t i = 0; i < v->n_arms; i++) {
		const struct verdict_arm_result *a = &v->arms[i];
		char m[24], eff[24] = "-", ci[48] = "-", p[16] = "-", lo[24], hi[24];

		/* the one number style: +5.0 %, p <0.001 or two significant digits */
		if (a->compared) {
			fmt_pct(a->effect_pct, true, eff, sizeof(eff));
			snprintf(ci, sizeof(ci), "%s .. %s", fmt_pct(a->ci_low_pct, true, lo, sizeof(lo)),
				 fmt_pct(a->ci_high_pct, true, hi, sizeof(hi)));
			fmt_p(a->p_one_sided, p, sizeof(p));
		}
		tui_text_add(t, (int)i == v->chosen && v->kind == VERDICT_CHANGE ? TS_GOOD :
			     a->n_oom_killed ? TS_BAD : TS_NORMAL,
			     "  %-9.9s %-9.9s %3zu %3u %7s %8s %19s %6s", run->arms[i].name,
			     verdict_arm_status_name(a->status), a->n, a->n_oom_killed,
			     tui_fmt_count(a->mean, m, sizeof(m)), eff, ci, p);
	}
}

enum tui_style tui_verdict_line_style(const char *line, enum tui_style s)
{
	if (strncmp(line, "Verdict: ", 9))
		return s;
	return !strncmp(line, "Verdict: CHANGE ", 16) ? TS_GOOD : TS_TITLE;
}

void tui_verdict_add_block(struct tui_text *t, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");

		tui_text_add(t, tui_verdict_line_style(p, TS_NORMAL), "%.*s", (int)len, p);
		p += len + (p[len] ? 1 : 0);
	}
}

/*
 * The recommend text with its wide arm table (header "  arm " up to the
 * "  (effect:" legend) replaced by the narrow one.
 */
static void add_verdict_lines(struct tui_text *t, const struct advice_run *run,
			      const struct verdict_result *v, const char *text)
{
	const char *p = text;
	bool in_table = false;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (!strncmp(line, "  arm ", 6)) {
			in_table = true;
			add_arm_table(t, run, v);
		} else if (in_table && !strncmp(line, "  (effect:", 10)) {
			in_table = false;
			tui_text_add(t, TS_DIM, "%s", line);
		} else if (!in_table) {
			tui_text_add(t, tui_verdict_line_style(line, !strncmp(line, "Reasons:", 8) ? TS_TITLE :
				     !strncmp(line, "  veto:", 7) ? TS_WARN : TS_NORMAL), "%s", line);
		}
		p += len + (nl ? 1 : 0);
	}
}

/*
 * Run run_id judged and printed as `recommend --run` prints it: *text (to
 * free) and, when run and v are given, what was judged.
 */
static int judge_print(struct tui_ctx *c, int64_t run_id, struct advice_run *run,
		       struct verdict_result *v, char **text, struct st_err *e)
{
	struct judgement *j = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	*text = NULL;
	r = advice_load_run(c->st, c->h, run_id, NULL, run, e);
	if (r < 0)
		return r;
	j = malloc(sizeof(*j));
	r = j ? advice_judge_pooled(c->st, c->h, run, -1, &(struct advice_verdict){ v, j, NULL }, e) :
		err_set(e, -ENOMEM, "out of memory");
	if (r < 0) {
		err_prefix(e, "cannot judge probe run %lld", (long long)run_id);
		goto out;
	}
	f = open_memstream(text, &len);
	if (!f) {
		r = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	advice_verdict_print(f, run, j, v);
	fclose(f);
out:
	free(j);
	return r;
}

/* What follows "Verdict: " in text ("CHANGE to pc0"), or "" when no such line. */
static void verdict_label(const char *text, char *label, size_t n)
{
	const char *p = text ? strstr(text, "Verdict: ") : NULL;

	label[0] = 0;
	if (p && (p == text || p[-1] == '\n')) {
		p += strlen("Verdict: ");
		snprintf(label, n, "%.*s", (int)strcspn(p, "\n"), p);
	}
}

int tui_verdict_text(struct tui_ctx *c, int64_t run_id, struct tui_text *t, char *label,
		     size_t label_len, struct st_err *e)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	char *text = NULL;
	int r;

	if (label && label_len)
		label[0] = 0;
	if (!run || !v) {
		r = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	r = judge_print(c, run_id, run, v, &text, e);
	if (r < 0)
		goto out;
	add_verdict_lines(t, run, v, text ? text : "");
	if (label && label_len)
		verdict_label(text, label, label_len);
out:
	free(text);
	advice_run_free(run);
	free(run);
	free(v);
	return r;
}

int tui_verdict_label(struct tui_ctx *c, int64_t run_id, char *label, size_t label_len,
		      struct st_err *e)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	struct verdict_result *v = calloc(1, sizeof(*v));
	char *text = NULL;
	int r;

	label[0] = 0;
	r = run && v ? judge_print(c, run_id, run, v, &text, e) : err_set(e, -ENOMEM, "out of memory");
	if (r >= 0)
		verdict_label(text, label, label_len);
	free(text);
	advice_run_free(run);
	free(run);
	free(v);
	return r;
}

int tui_probe_run_counts(struct tui_ctx *c, int64_t run_id, unsigned *done, unsigned *planned,
			 struct st_err *e)
{
	struct advice_run *run = calloc(1, sizeof(*run));
	int r;

	*done = *planned = 0;
	if (!run)
		return err_set(e, -ENOMEM, "out of memory");
	r = advice_load_run(c->st, c->h, run_id, NULL, run, e);
	if (r == 0) {
		for (size_t i = 0; i < run->n_arms; i++)
			*done += run->arms[i].n_ok + run->arms[i].n_oom + run->arms[i].n_failed +
				 run->arms[i].n_warmup;
		r = recipe_planned_trials(run, planned, e);
	}
	advice_run_free(run);
	free(run);
	return r;
}
