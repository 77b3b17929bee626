/*
 * report-compare.c - two sample recordings side by side (--before/--after)
 * and the recordings around an apply run (--change).
 *
 * Each tick's numeric leaves are read straight from the store's values
 * (the slots of a metric looked up once per tick structure), never parsed
 * from JSON: a report over a million ticks must take seconds. Per metric
 * and recording it keeps a running mean, batch means, and a downsampled
 * series for charts.
 *
 * Noise: consecutive ticks are autocorrelated, so per-tick values overstate
 * n. Each recording is cut into up to BATCHES consecutive batches and
 * Welch's t-test compares the batch means (effective n = batches): the
 * batch-means method. A change is "beyond noise" when p < 0.05.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swaptune/advisor.h"
#include "swaptune/fmt.h"
#include "swaptune/report.h"
#include "swaptune/vocab.h"

#define BATCHES 20
#define POINTS 300

/*
 * the per-tick values compared, in table order (shown_report_ticks, names
 * and units from the vocabulary), and those charted when present
 * (shown_report_charted, each one of them)
 */
#define NM ((size_t)SHOWN_N_report_ticks)

static const struct sample_metric_def *def(size_t m)
{
	return &sample_metric_defs[shown_report_ticks[m]];
}

struct metric_acc {
	size_t present;		/* ticks whose structure has the key (its value may be null) */
	size_t n;
	double sum;
	double bsum[BATCHES];
	size_t bn[BATCHES];
	double psum[POINTS];
	size_t pn[POINTS];
};

struct recording {
	struct store_run ri;
	int64_t idx;			/* ticks read */
	int64_t t_ns;			/* of the tick being read */
	double span_ns;			/* last tick's t_ns + 1 */
	double t_last_s;
	unsigned shape;			/* the tick structure slot[] is of; 0 none yet */
	int slot[NM];
	struct metric_acc m[NM];
};

/* A value of the tick in batch b and chart point pt. */
static void add_value(struct recording *r, size_t m, double v, size_t b, size_t pt)
{
	struct metric_acc *a = &r->m[m];

	a->n++;
	a->sum += v;
	a->bsum[b] += v;
	a->bn[b]++;
	a->psum[pt] += v;
	a->pn[pt]++;
}

/* One tick: the known leaves, read from the stored values (slots looked up per shape). */
static int scan_tick(const struct store_tick *t, void *arg)
{
	struct recording *r = arg;
	size_t b, pt;

	if (r->shape != t->shape) {
		for (size_t m = 0; m < NM; m++)
			r->slot[m] = store_tick_slot(t, vocab_group_name(def(m)->group), def(m)->key);
		r->shape = t->shape;
	}
	r->t_ns = (int64_t)t->t_ns < 0 ? 0 : (int64_t)t->t_ns;
	/* by time, so the length need not be counted first */
	b = (size_t)((double)r->t_ns * BATCHES / r->span_ns);
	pt = (size_t)((double)r->t_ns * POINTS / r->span_ns);
	b = b < BATCHES ? b : BATCHES - 1;
	pt = pt < POINTS ? pt : POINTS - 1;
	for (size_t m = 0; m < NM; m++) {
		double v;

		if (r->slot[m] >= 0)
			r->m[m].present++;
		if (store_tick_number(t, r->slot[m], &v))
			add_value(r, m, v, b, pt);
	}
	r->t_last_s = (double)(int64_t)t->t_ns / 1e9;
	r->idx++;
	return 0;
}

static int load_recording(struct store *st, int64_t id, struct recording *r, struct st_err *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = store_run_get(st, id, &r->ri, e)) < 0)
		return rc;
	if (strcmp(r->ri.kind, "sample"))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "run %lld is a %s run, not a sample recording (swaptune sample --record)%s",
				    (long long)id, r->ri.kind,
				    !strcmp(r->ri.kind, "probe") ? "; for a probe use --run" : "");
	if (!r->ri.has_samples)
		return err_set_exit(e, -ENODATA, ST_EXIT_USAGE, "recording %lld has no samples",
				    (long long)id);
	r->span_ns = (double)r->ri.last_t_ns + 1;
	rc = store_samples_read(st, id, scan_tick, r, e);
	return rc < 0 ? rc : 0;
}

static double acc_mean(const struct metric_acc *a)
{
	return a->n ? a->sum / (double)a->n : NAN;
}

static size_t batch_means(const struct metric_acc *a, double *out)
{
	size_t n = 0;

	for (size_t b = 0; b < BATCHES; b++)
		if (a->bn[b])
			out[n++] = a->bsum[b] / (double)a->bn[b];
	return n;
}

/* a recording's sampler parameters in words: "every 1 s for 120 s, cgroup X, CPU counters" */
static void sampler_cell(struct report_section *s, const struct store_run *ri)
{
	const struct run_params *p = &ri->p;
	char buf[512], num[FMT_NUM_LEN];
	size_t n = 0;

	if (!cJSON_IsObject(p->doc)) {
		report_cell(s, "%s", ri->params ? ri->params : REPORT_NOT_RECORDED);
		return;
	}
	buf[0] = '\0';
#define PUT(...) do { if (n < sizeof(buf)) n += (size_t)snprintf(buf + n, sizeof(buf) - n, __VA_ARGS__); } while (0)
	if (p->interval_s > 0)
		PUT("every %s s", fmt_num(p->interval_s, num, sizeof(num)));
	if (p->duration_s > 0)
		PUT("%sfor %s s", n ? " " : "", fmt_num(p->duration_s, num, sizeof(num)));
	if (p->cgroup[0])
		PUT("%scgroup %s", n ? ", " : "", p->cgroup);
	if (p->pid > 0)
		PUT("%spid %lld", n ? ", " : "", (long long)p->pid);
	PUT("%s%s", n ? ", " : "", p->cpu_counters_off ? "no CPU counters" : "CPU counters");
#undef PUT
	report_cell(s, "%s", buf);
}

/* The two recordings side by side: one row per fact. */
static void recordings_table(struct report *rep, const struct recording *a, const struct recording *b)
{
	static const char *const cols[] = { "", "before", "after" };
	struct report_section *s = report_add(rep, REPORT_TABLE, "recordings-compared", "Recordings compared");
	const struct recording *r[2] = { a, b };
	char t[FMT_TIME_LEN + 512];

	report_cols(s, 3, cols);
	report_cell(s, "run");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%lld", (long long)r[i]->ri.id);
	report_cell(s, "status");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", r[i]->ri.status);
	report_cell(s, "started");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", r[i]->ri.started_at[0] ? fmt_time(r[i]->ri.started_at, false, t, sizeof(t)) :
			    REPORT_NOT_RECORDED);
	report_cell(s, "ended");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", r[i]->ri.ended_at[0] ? fmt_time(r[i]->ri.ended_at, false, t, sizeof(t)) :
			    REPORT_NOT_RECORDED);
	report_cell(s, "ticks");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%lld", (long long)r[i]->idx);
	report_cell(s, "duration");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s s", fmt_num(r[i]->t_last_s, t, sizeof(t)));
	report_cell(s, "hostname");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", r[i]->ri.hostname[0] ? r[i]->ri.hostname : REPORT_NOT_RECORDED);
	report_cell(s, "kernel");
	for (int i = 0; i < 2; i++)
		report_cell(s, "%s", r[i]->ri.kernel[0] ? r[i]->ri.kernel : REPORT_NOT_RECORDED);
	report_cell(s, "sampler");
	for (int i = 0; i < 2; i++)
		sampler_cell(s, &r[i]->ri);
	if (strcmp(a->ri.hostname, b->ri.hostname) || strcmp(a->ri.kernel, b->ri.kernel))
		report_note(s, "the two recordings come from different hosts or kernels: the comparison is weak");
}

/* One metric compared: the means, Welch's test on the batch means, and what it says. */
struct metric_result {
	bool shown;		/* measured in either recording */
	double ma, mb;		/* means before, after (bytes as MiB) */
	double k;		/* the scale shown (1 / MiB for bytes) */
	double pct;		/* change in % of before, NAN when undefined */
	bool ok;		/* the test ran */
	struct stats_welch w;
	bool beyond;		/* a change beyond noise */
	char noise[40];		/* the "beyond noise" cell */
};

static void compare_metric(const struct recording *a, const struct recording *b, size_t m,
			   struct metric_result *o)
{
	double xa[BATCHES], xb[BATCHES];
	size_t na, nb;

	memset(o, 0, sizeof(*o));
	o->shown = a->m[m].n || b->m[m].n;
	o->ma = acc_mean(&a->m[m]);
	o->mb = acc_mean(&b->m[m]);
	/* bytes read as MiB; the test is scale-free */
	o->k = !strcmp(def(m)->unit, "bytes") ? 1.0 / 1048576 : 1;
	o->pct = isfinite(o->ma) && isfinite(o->mb) && o->ma != 0 ? (o->mb - o->ma) / fabs(o->ma) * 100 : NAN;
	na = batch_means(&a->m[m], xa);
	nb = batch_means(&b->m[m], xb);
	o->ok = na >= 2 && nb >= 2 && stats_welch(&(struct stats_pair){ xb, nb, xa, na }, 0.95, &o->w, NULL) == 0;
	/*
	 * "not measured" only when the sampler had no such value at all; a
	 * value the kernel left undefined (a hit rate with no readahead) is n/a
	 */
	if (!a->m[m].n || !b->m[m].n) {
		const struct metric_acc *x = !a->m[m].n ? &a->m[m] : &b->m[m];
		const char *side = !a->m[m].n ? "before" : "after";

		if (!a->m[m].n && !b->m[m].n)
			snprintf(o->noise, sizeof(o->noise), "n/a");
		else if (x->present)
			snprintf(o->noise, sizeof(o->noise), "n/a %s", side);
		else
			snprintf(o->noise, sizeof(o->noise), "not measured %s", side);
	} else if (!o->ok) {
		snprintf(o->noise, sizeof(o->noise), "%s", na < 2 || nb < 2 ? "too few ticks" : "-");
	} else if (o->w.flag == STATS_WELCH_IDENTICAL) {
		snprintf(o->noise, sizeof(o->noise), "no (identical)");
	} else if (o->w.flag == STATS_WELCH_CONSTANT) {
		snprintf(o->noise, sizeof(o->noise), "yes (constant, differ)");
		o->beyond = true;
	} else {
		o->beyond = o->w.p < 0.05;
		snprintf(o->noise, sizeof(o->noise), "%s", o->beyond ? "yes" : "no");
	}
}

/*
 * The table. Columns by what a reader needs first (the text splits a wide
 * table after them); the names are what the rollout gate reads from the
 * JSON (metric, before, after, change, p ..., beyond noise).
 */
static void compare_table(struct report *rep, const struct metric_result *res)
{
	static const char *const cols[] = { "metric", "before", "after", "unit", "change %", "p (Welch)",
					    "beyond noise", "change", "95 % CI of change" };
	struct report_section *s = report_add(rep, REPORT_TABLE, "metrics", "Before and after");

	report_note(s, "means per tick; p: Welch's t-test on up to %d batch means per recording "
		    "(consecutive ticks are autocorrelated, so each batch counts once); beyond noise = p < 0.05",
		    BATCHES);
	report_cols(s, 9, cols);
	for (size_t m = 0; m < NM; m++) {
		const struct metric_result *o = &res[m];
		char b1[FMT_NUM_LEN], b2[FMT_NUM_LEN];

		if (!o->shown)
			continue;
		report_cell(s, "%s", def(m)->row->name);
		if (o->beyond)
			report_row_mark(s);
		report_cell_num(s, o->ma * o->k);
		report_cell_num(s, o->mb * o->k);
		report_cell(s, "%s", o->k != 1 ? "MiB" : def(m)->unit);
		report_cell_pct(s, o->pct);
		report_cell_p(s, o->ok ? o->w.p : NAN);
		report_cell(s, "%s", o->noise);
		report_cell_num(s, (o->mb - o->ma) * o->k);
		if (o->ok && o->w.flag == STATS_WELCH_OK)
			report_cell(s, "%s .. %s", report_num(o->w.ci_low * o->k, b1, sizeof(b1)),
				    report_num(o->w.ci_high * o->k, b2, sizeof(b2)));
		else
			report_cell(s, "-");
	}
}

/* Metrics beyond noise, largest relative change first (a change from 0 first of all). */
static size_t by_effect(const struct metric_result *res, size_t *idx)
{
	size_t n = 0;

	for (size_t m = 0; m < NM; m++)
		if (res[m].shown && res[m].beyond)
			idx[n++] = m;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			double x = isfinite(res[idx[j]].pct) ? fabs(res[idx[j]].pct) : INFINITY;
			double y = isfinite(res[idx[j - 1]].pct) ? fabs(res[idx[j - 1]].pct) : INFINITY;
			size_t t;

			if (x <= y)
				break;
			t = idx[j], idx[j] = idx[j - 1], idx[j - 1] = t;
		}
	return n;
}

static size_t metric_index(enum sample_metric sm)
{
	size_t m = 0;

	while (m < NM - 1 && shown_report_ticks[m] != sm)
		m++;
	return m;
}

/* "PSI memory some -14.6 % (9.939 -> 8.491 %, p < 0.001)" into out at *k */
static void effect_words(const struct metric_result *o, size_t m, bool values, char *out, size_t len,
			 size_t *k)
{
	char b1[FMT_NUM_LEN], b2[FMT_NUM_LEN], pc[FMT_NUM_LEN + 8], p[16];
	const char *unit = o->k != 1 ? "MiB" : def(m)->unit;

	if (*k >= len)
		return;
	fmt_p(o->ok ? o->w.p : NAN, p, sizeof(p));
	if (!values)
		*k += (size_t)snprintf(out + *k, len - *k, "%s %s", def(m)->row->name,
				       isfinite(o->pct) ? fmt_pct(o->pct, true, pc, sizeof(pc)) : "from 0");
	else if (o->beyond)
		*k += (size_t)snprintf(out + *k, len - *k, "%s %s (%s -> %s %s, p %s %s)", def(m)->row->name,
				       isfinite(o->pct) ? fmt_pct(o->pct, true, pc, sizeof(pc)) : "from 0",
				       fmt_num(o->ma * o->k, b1, sizeof(b1)), fmt_num(o->mb * o->k, b2, sizeof(b2)),
				       unit, p[0] == '<' ? "<" : "=", p[0] == '<' ? p + 1 : p);
	else
		*k += (size_t)snprintf(out + *k, len - *k, "%s %s -> %s %s (%s)", def(m)->row->name,
				       fmt_num(o->ma * o->k, b1, sizeof(b1)), fmt_num(o->mb * o->k, b2, sizeof(b2)),
				       unit, o->noise);
}

/*
 * The answer, one sentence: did memory pressure (PSI memory, the host's
 * stall time, the one metric that says "better" without a workload's own
 * figure) fall beyond noise, and which other metrics moved beyond noise.
 * change: worded for an apply ("It helped"), else for two recordings.
 */
static void answer_line(struct report_section *s, const struct metric_result *res, bool change)
{
	size_t some = metric_index(SM_PSI_SOME_PCT), full = metric_index(SM_PSI_FULL_PCT);
	const struct metric_result *ps = &res[some], *pf = &res[full];
	bool measured = ps->shown && ps->ma == ps->ma && ps->mb == ps->mb;
	bool s_down = measured && ps->beyond && ps->mb < ps->ma, s_up = measured && ps->beyond && ps->mb > ps->ma;
	bool f_down = pf->beyond && pf->mb < pf->ma, f_up = pf->beyond && pf->mb > pf->ma;
	size_t idx[NM], n = by_effect(res, idx), k = 0, others = 0, said = 0;
	const char *head;
	char line[2048];

	if (!measured)
		head = change ? "Cannot tell whether it helped: PSI memory was not recorded in both"
			      : "PSI memory was not recorded in both";
	else if ((s_down || f_down) && !s_up && !f_up)
		head = change ? "It helped: memory pressure fell beyond noise," : "Less memory pressure after:";
	else if ((s_up || f_up) && !s_down && !f_down)
		head = change ? "It did not help: memory pressure rose beyond noise," : "More memory pressure after:";
	else if (s_up || s_down)
		head = change ? "Mixed: memory pressure moved both ways," : "Memory pressure moved both ways:";
	else
		head = change ? "No measurable help: memory pressure did not move beyond noise,"
			      : "No change in memory pressure beyond noise:";
	k = (size_t)snprintf(line, sizeof(line), "%s", head);
	if (measured) {
		line[k++] = ' ';
		line[k] = '\0';
		effect_words(ps, some, true, line, sizeof(line), &k);
		if (pf->shown && pf->beyond && k < sizeof(line)) {
			k += (size_t)snprintf(line + k, sizeof(line) - k, ", ");
			effect_words(pf, full, true, line, sizeof(line), &k);
		}
	}
	for (size_t i = 0; i < n; i++)
		others += idx[i] != some && idx[i] != full;
	if (!others && k < sizeof(line))
		k += (size_t)snprintf(line + k, sizeof(line) - k, "; no other metric moved beyond noise");
	for (size_t i = 0; i < n && k < sizeof(line); i++) {
		if (idx[i] == some || idx[i] == full)
			continue;
		if (said == 5) {
			k += (size_t)snprintf(line + k, sizeof(line) - k, " and %zu more (table below)",
					      others - said);
			break;
		}
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s", said ? ", " : "; beyond noise also: ");
		effect_words(&res[idx[i]], idx[i], false, line, sizeof(line), &k);
		said++;
	}
	if (k < sizeof(line))
		snprintf(line + k, sizeof(line) - k, ".");
	report_line(s, "%s", line);
}

/* series of metric m: x in minutes from x0_s (seconds since the recording's start + offset) */
static void add_series(struct report_section *s, const char *name, const struct recording *r,
		       size_t m, double offset_s)
{
	double x[POINTS], y[POINTS];
	size_t n = 0;

	for (size_t p = 0; p < POINTS; p++)
		if (r->m[m].pn[p]) {
			/* the bucket's middle tick, spaced evenly over the recording */
			x[n] = (offset_s + r->t_last_s * ((double)p + 0.5) / POINTS) / 60;
			y[n++] = r->m[m].psum[p] / (double)r->m[m].pn[p];
		}
	report_series_add(s, name, x, y, n);
}

static double iso_seconds(const char *iso)
{
	struct tm tm;
	double frac = 0;
	const char *p;

	memset(&tm, 0, sizeof(tm));
	p = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return NAN;
	if (*p == '.')
		frac = strtod(p, NULL);
	return (double)timegm(&tm) + frac;
}

/*
 * Charts: what changed beyond noise first (largest change first), then the
 * usual ones that did not. With a change time (change_iso non-NULL) both
 * recordings sit on one clock, minutes relative to the change; else they
 * are overlaid from their own starts.
 */
static void charts(struct report *rep, const struct recording *a, const struct recording *b,
		   const char *change_iso, const struct metric_result *res)
{
	double t0 = change_iso ? iso_seconds(change_iso) : NAN;
	double oa = 0, ob = 0;
	size_t order[NM + (size_t)SHOWN_N_report_charted], n;

	if (isfinite(t0)) {
		oa = iso_seconds(a->ri.started_at) - t0;
		ob = iso_seconds(b->ri.started_at) - t0;
		if (!isfinite(oa) || !isfinite(ob))
			t0 = NAN, oa = ob = 0;
	}
	n = by_effect(res, order);
	for (size_t i = 0; i < (size_t)SHOWN_N_report_charted; i++) {
		size_t m = 0;

		while (shown_report_ticks[m] != shown_report_charted[i])
			m++;
		if (!res[m].beyond)
			order[n++] = m;
	}
	for (size_t i = 0; i < n; i++) {
		size_t m = order[i];
		struct report_section *s;
		char id[64], title[160], pc[FMT_NUM_LEN + 8], p[16];

		if (!a->m[m].n && !b->m[m].n)
			continue;
		snprintf(id, sizeof(id), "chart-%s", def(m)->key);
		fmt_p(res[m].ok ? res[m].w.p : NAN, p, sizeof(p));
		if (res[m].beyond)
			snprintf(title, sizeof(title), "%s (%s): %s, beyond noise (p %s %s)", def(m)->row->name,
				 def(m)->unit, isfinite(res[m].pct) ? fmt_pct(res[m].pct, true, pc, sizeof(pc)) :
				 "from 0", p[0] == '<' ? "<" : "=", p[0] == '<' ? p + 1 : p);
		else
			snprintf(title, sizeof(title), "%s (%s): no change beyond noise", def(m)->row->name,
				 def(m)->unit);
		s = report_add(rep, REPORT_CHART, id, title);
		s->chart.kind = REPORT_CHART_SERIES;
		s->chart.y_unit = strdup(def(m)->unit);
		s->chart.x_unit = strdup(isfinite(t0) ? "minutes from the change" : "minutes from the start");
		add_series(s, "before", a, m, oa);
		add_series(s, "after", b, m, ob);
		if (isfinite(t0)) {
			s->chart.has_marker = true;
			s->chart.marker_x = 0;
			s->chart.marker_label = strdup("change applied");
		}
	}
}

static void free_recordings(struct recording *a, struct recording *b)
{
	if (a)
		store_run_free(&a->ri);
	if (b)
		store_run_free(&b->ri);
	free(a);
	free(b);
}

/* The recordings compared, and the change between them (its start, ISO 8601; NULL when none). */
struct compared {
	int64_t before, after;
	const char *change_iso;
};

/*
 * The two recordings compared, into rep: the largest changes into the
 * summary section sum, then the charts (what changed first), the table and
 * the recordings' facts.
 */
static int compare_into(struct store *st, struct report *rep, struct report_section *sum,
			const struct compared *x, struct st_err *e)
{
	int64_t before = x->before, after = x->after;
	const char *change_iso = x->change_iso;
	struct recording *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct metric_result res[NM];
	int r;

	if (!a || !b) {
		free_recordings(a, b);
		return err_set(e, -ENOMEM, "out of memory");
	}
	if ((r = load_recording(st, before, a, e)) < 0 || (r = load_recording(st, after, b, e)) < 0) {
		free_recordings(a, b);
		return r;
	}
	for (size_t m = 0; m < NM; m++)
		compare_metric(a, b, m, &res[m]);
	answer_line(sum, res, change_iso != NULL);
	charts(rep, a, b, change_iso, res);
	compare_table(rep, res);
	recordings_table(rep, a, b);
	report_kernel_compare(rep, &a->ri, &b->ri);
	free_recordings(a, b);
	return 0;
}

int report_build_compare(struct store *st, int64_t before, int64_t after,
			 struct report **out, struct st_err *e)
{
	char title[160];
	struct report *rep;
	struct report_section *sum;
	struct store_run ri;
	bool probe;
	int r;

	if ((r = store_run_get(st, before, &ri, e)) < 0)
		return r;
	probe = !strcmp(ri.kind, "probe");
	store_run_free(&ri);
	if (probe)
		return report_build_probes(st, before, after, out, e);
	snprintf(title, sizeof(title), "swaptune report: recording %lld before, %lld after",
		 (long long)before, (long long)after);
	rep = report_new("compare", title);
	sum = report_add(rep, REPORT_TEXT, "summary", "Summary");
	r = compare_into(st, rep, sum, &(struct compared){ before, after, NULL }, e);
	if (r < 0) {
		report_free(rep);
		return r;
	}
	*out = rep;
	return 0;
}

/*
 * A cell of the settings diff shows at most a setting value's width: a
 * resource row (a boot-time file) holds the file's whole old content, and
 * the table shows its start, as it always has.
 */
#define CELL_MAX ((int)SETTING_VALUE_MAX - 1)

/* params.who of a change run: the login and, through sudo, who ran sudo */
static void change_who(struct report_section *s, const struct run_params *p)
{
	if (p->user[0] && p->sudo_user[0])
		report_fact(s, "who", "%s (through sudo, as %s)", p->sudo_user, p->user);
	else if (p->user[0])
		report_fact(s, "who", "%s", p->user);
	else if (p->has_uid)
		report_fact(s, "who", "uid %lld", (long long)p->uid);
	else	/* an apply from before swaptune recorded it: say so rather than guess */
		report_fact(s, "who", "%s", REPORT_NOT_RECORDED " (this apply predates the record of its user)");
}

/* "page-cluster 3 -> 0" of the journal rows of a change (settings; files by name), the first few */
static void change_words(const struct store_change *c, int n, char *out, size_t len)
{
	size_t k = 0;
	int shown = 0;

	out[0] = '\0';
	for (int i = 0; i < n && shown < 3 && k < len; i++, shown++) {
		if (!strcmp(c[i].kind, "setting"))
			k += (size_t)snprintf(out + k, len - k, "%s%s %.*s -> %.*s", k ? ", " : "", c[i].name,
					      CELL_MAX, c[i].has_old ? c[i].old_value : "(absent)", CELL_MAX,
					      c[i].has_new ? c[i].new_value : "(absent)");
		else
			k += (size_t)snprintf(out + k, len - k, "%s%s %s", k ? ", " : "", c[i].kind, c[i].name);
	}
	if (n > shown && k < len)
		snprintf(out + k, len - k, " and %d more", n - shown);
	if (!n)
		snprintf(out, len, "no setting changed");
}

/* The change's facts, its parameters as key/value rows, and the who/when line of the summary. */
static void change_facts(struct report *rep, const struct store_run *ri)
{
	static const char *const skip[] = { "who" };
	struct report_section *s = report_add(rep, REPORT_FACTS, "change", "Change");
	char t[FMT_TIME_LEN + 512];

	report_fact(s, "apply run", "%lld", (long long)ri->id);
	report_fact(s, "status", "%s", ri->status);
	report_fact(s, "when", "%s", ri->started_at[0] ? fmt_time(ri->started_at, false, t, sizeof(t)) :
		    REPORT_NOT_RECORDED);
	report_fact(s, "finished", "%s", ri->ended_at[0] ? fmt_time(ri->ended_at, false, t, sizeof(t)) :
		    REPORT_NOT_RECORDED);
	change_who(s, &ri->p);
	if (ri->pid)
		report_fact(s, "process", "pid %d", ri->pid);
	report_fact_opt(s, "hostname", ri->hostname);
	report_fact_opt(s, "kernel", ri->kernel);
	s = report_add(rep, REPORT_FACTS, "parameters", "Parameters of the apply");
	report_facts_json(s, "parameters", ri->p.doc, ri->params, skip, sizeof(skip) / sizeof(skip[0]));
	if (!s->n_facts)
		report_fact(s, "parameters", "%s", REPORT_NOT_RECORDED);
}

static void change_sections(struct report *rep, struct report_section *sum, const struct store_run *ri,
			    const struct store_change *c, int n)
{
	static const char *const cols[] = { "setting", "before", "after", "state", "temporary", "at" };
	struct report_section *t, who = { 0 };
	char what[1024], when[FMT_TIME_LEN + 512];

	change_who(&who, &ri->p);
	change_words(c, n, what, sizeof(what));
	report_line(sum, "%s, applied %s %s%s%s", what,
		    ri->started_at[0] ? fmt_time(ri->started_at, false, when, sizeof(when)) : "at a time not recorded",
		    who.n_facts && strncmp(who.values[0], REPORT_NOT_RECORDED, strlen(REPORT_NOT_RECORDED)) ? "by " :
		    "(who: ", who.n_facts ? who.values[0] : "?",
		    who.n_facts && strncmp(who.values[0], REPORT_NOT_RECORDED, strlen(REPORT_NOT_RECORDED)) ? "" : ")");
	if (strcmp(ri->status, "ok"))
		report_line(sum, "the apply run's status: %s", ri->status);
	for (size_t i = 0; i < who.n_facts; i++) {
		free(who.keys[i]);
		free(who.values[i]);
	}
	free(who.keys);
	free(who.values);

	t = report_add(rep, REPORT_TABLE, "settings", "Settings diff");
	report_cols(t, 6, cols);
	for (int i = 0; i < n; i++) {
		report_cell(t, "%s%s%.*s", strcmp(c[i].kind, "setting") ? c[i].kind : "",
			    strcmp(c[i].kind, "setting") ? " " : "", CELL_MAX, c[i].name);
		report_cell(t, "%.*s", CELL_MAX, c[i].has_old ? c[i].old_value : "(absent)");
		report_cell(t, "%.*s", CELL_MAX, c[i].has_new ? c[i].new_value : "(absent)");
		report_cell(t, "%s", c[i].state);
		report_cell(t, "%s", c[i].temporary ? "yes" : "no");
		report_cell(t, "%s", fmt_time(c[i].created_at, false, when, sizeof(when)));
	}
}

/*
 * Refused, one line: which recording the window of w lacks and the command
 * that records it. A recording after a change that was already undone can
 * only be made by applying it again.
 */
static int missing_recording(const struct store_change_window *w, int64_t id, struct st_err *e)
{
	bool reverted_first = w->reverted && (!w->next_run || strcmp(w->reverted_at, w->next_at) < 0);

	if (!w->after && reverted_first)
		return err_set_exit(e, -ENODATA, ST_EXIT_USAGE,
				    "no recording before apply run %lld was reverted: re-apply, "
				    "swaptune sample --record", (long long)id);
	if (!w->after && w->next_run)
		return err_set_exit(e, -ENODATA, ST_EXIT_USAGE,
				    "no recording before %s run %lld %s apply run %lld: re-apply, "
				    "swaptune sample --record", w->next_kind, (long long)w->next_run,
				    w->undone ? "undid" : "followed", (long long)id);
	if (!w->after && !w->before)
		return err_set_exit(e, -ENODATA, ST_EXIT_USAGE,
				    "no recording before or since apply run %lld on this host: "
				    "swaptune sample --record -d 10m", (long long)id);
	if (!w->after)
		return err_set_exit(e, -ENODATA, ST_EXIT_USAGE,
				    "no recording since apply run %lld on this host: swaptune sample --record -d 10m",
				    (long long)id);
	if (w->prev_run)
		return err_set_exit(e, -ENODATA, ST_EXIT_USAGE,
				    "no recording between %s run %lld and apply run %lld: next time first "
				    "swaptune sample --record", w->prev_kind, (long long)w->prev_run, (long long)id);
	return err_set_exit(e, -ENODATA, ST_EXIT_USAGE,
			    "no recording before apply run %lld on this host: next time first swaptune sample --record",
			    (long long)id);
}

int report_build_change(struct store *st, int64_t apply_run, struct report **out,
			struct st_err *e)
{
	struct store_change *c = NULL;
	struct store_change_window w;
	struct store_run ri;
	struct report *rep = NULL;
	struct report_section *s, *sum;
	int64_t snap = 0;
	char title[128], reason[128], t[FMT_TIME_LEN + 512];
	size_t n0;
	int n = 0, r;

	memset(&ri, 0, sizeof(ri));
	if ((r = store_run_get(st, apply_run, &ri, e)) < 0)
		goto out;
	if (strcmp(ri.kind, "apply")) {
		r = err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				 "run %lld is a %s run, not an apply run (see swaptune history)",
				 (long long)apply_run, ri.kind);
		goto out;
	}
	if ((r = store_change_window(st, apply_run, &w, e)) < 0)
		goto out;
	/* evidence from another host or another setting is no evidence: refuse */
	if (!w.before || !w.after) {
		r = missing_recording(&w, apply_run, e);
		goto out;
	}
	if ((r = store_changes_of_run(st, apply_run, &c, &n, e)) < 0 ||
	    (r = store_run_first_snapshot(st, apply_run, &snap, reason, sizeof(reason), e)) < 0)
		goto out;

	snprintf(title, sizeof(title), "swaptune report: change %lld", (long long)apply_run);
	rep = report_new("change", title);
	sum = report_add(rep, REPORT_TEXT, "summary", "Summary");
	change_sections(rep, sum, &ri, c, n);
	n0 = sum->n_lines;
	if ((r = compare_into(st, rep, sum, &(struct compared){ w.before, w.after, ri.started_at }, e)) < 0)
		goto out;
	/* the answer leads */
	if (sum->n_lines > n0) {
		char *a = sum->lines[n0];

		memmove(sum->lines + 1, sum->lines, n0 * sizeof(*sum->lines));
		sum->lines[0] = a;
	}
	if (w.next_run && w.undone) {
		report_line(sum, "since undone: %s run %lld, %s", w.next_kind, (long long)w.next_run,
			    fmt_time(w.next_at, false, t, sizeof(t)));
	} else if (w.reverted) {
		report_line(sum, "since reverted (not confirmed in time), %s",
			    fmt_time(w.reverted_at, false, t, sizeof(t)));
	} else if (snap) {
		if (w.next_run)
			report_line(sum, "since followed by %s run %lld, %s", w.next_kind, (long long)w.next_run,
				    fmt_time(w.next_at, false, t, sizeof(t)));
		report_line(sum, "to undo it (restores snapshot %lld, %s):", (long long)snap, reason);
		report_line(sum, "sudo swaptune rollback --to %lld", (long long)snap);
	} else {
		report_line(sum, "no snapshot was saved with this run to undo it by; see swaptune history");
	}
	change_facts(rep, &ri);
	report_kernel_facts(rep, &ri);
	s = report_add(rep, REPORT_TEXT, "recordings", "Recordings");
	report_line(s, "before: recording %lld, the last one on this host that ended before the change%s",
		    (long long)w.before, w.prev_run ? " and after the one before it" : "");
	report_line(s, "after: recording %lld, the first one on this host that started after the change%s",
		    (long long)w.after, w.next_run || w.reverted ? " and ended while it was in effect" : "");
	*out = rep;
	rep = NULL;
	r = 0;
out:
	report_free(rep);
	store_run_free(&ri);
	free(c);
	return r;
}
