/*
 * sb-judge.c - a switchback run judged: the analysis input built from its
 * windows (the engine's while it runs, the store's afterwards), a stored
 * run loaded back and checked like user input, and its verdict as JSON and
 * as text. recommend, apply --run, report --run, verify --live and the TUI
 * all judge a switchback run through sbrun_load() (sbrun.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb-int.h"
#include "swaptune/fmt.h"
#include "swaptune/judge.h"

const enum sbm_kernel sb_cost_figures[SB_COST_N] = { SBK_PSI_SOME, SBK_PSI_FULL };
/* percentage points of PSI: a candidate must be shown to stall the workload no more than this */
const double sb_cost_margin[SB_COST_N] = { 10.0, 5.0 };

void sb_slice_key(unsigned s, char *buf, size_t len)
{
	snprintf(buf, len, "slice.%02u", s);
}

void sb_slices_for(double window_s, double washout_s, unsigned *n, unsigned *n_wo, double *slice_s)
{
	*n = 0;
	*n_wo = 0;
	*slice_s = 0;
	/* the most slices (at most SB_SLICES_MAX, each >= 1 s) that cut the washout off exactly */
	for (unsigned k = SB_SLICES_MAX; k >= 4; k--) {
		double wo = k * washout_s / window_s;

		if (window_s / k < 1.0 || fabs(wo - round(wo)) > 1e-6 || round(wo) + 2 > k)
			continue;
		*n = k;
		*n_wo = (unsigned)round(wo);
		*slice_s = window_s / k;
		return;
	}
}

void sb_opts_for(double min_effect, bool want_ci, struct sb_opts *o)
{
	sb_opts_init(o);
	o->min_effect = min_effect;
	o->want_ci = want_ci;
	for (int c = 0; c < SB_COST_N; c++)
		o->guard_margin[c] = sb_cost_margin[c];
}

unsigned sb_look_for(const struct sb_design *d, unsigned blocks)
{
	for (unsigned k = 0; k < d->plan.n_looks; k++)
		if (d->plan.looks[k] >= blocks)
			return k;
	return d->plan.n_looks - 1;
}

void sb_input_build(const struct sb_windows *ws, struct sb_input *in, unsigned *blocks_done)
{
	const struct sb_design *d = ws->d;
	const struct sbm_spec *m = ws->m;
	const struct sbrun_window *w = ws->w;
	unsigned n = ws->n, n_slices = ws->n_slices;
	unsigned k = d->plan.n_arms, b;
	bool cost_primary[SB_COST_N] = { false };

	memset(in, 0, sizeof(*in));
	snprintf(in->metric.name, sizeof(in->metric.name), "%s",
		 m->source == SBM_KERNEL && !m->cpu_per_work ? sbm_kernel_defs[m->kernel].name : "metric");
	in->metric.kind = sbm_kind(m);
	in->metric.higher_better = m->higher_better;
	in->n_slices = n_slices;
	in->n_washout_slices = ws->n_washout_slices;
	in->slice_s = ws->slice_s;
	for (int c = 0; c < SB_COST_N; c++) {
		cost_primary[c] = m->source == SBM_KERNEL && !m->cpu_per_work && m->kernel == sb_cost_figures[c];
		if (cost_primary[c])
			continue;
		snprintf(in->cost_metric[in->n_costs].name, SB_NAME_MAX, "%s",
			 sbm_kernel_defs[sb_cost_figures[c]].name);
		in->cost_metric[in->n_costs].kind = SB_LEVEL;
		in->cost_metric[in->n_costs].higher_better = false;
		in->n_costs++;
	}
	for (b = 0; b < d->plan.n_blocks; b++) {
		bool complete = true;

		for (unsigned p = 0; p < k && complete; p++) {
			unsigned i = b * k + p;

			complete = i < n && w[i].index == i && w[i].outcome != SB_WIN_MISSING;
		}
		if (!complete)
			break;
		for (unsigned p = 0; p < k; p++) {
			const struct sbrun_window *x = &w[b * k + p];
			unsigned ci = 0;

			in->outcome[b][p] = x->outcome;
			in->value[b][p] = x->outcome == SB_WIN_OK ? x->value : NAN;
			for (unsigned s = 0; s < n_slices && s < SB_SLICES_MAX; s++)
				in->slice[b][p][s] = s < x->n_slices ? x->slice[s] : NAN;
			for (int c = 0; c < SB_COST_N; c++) {
				double v = x->kern[sb_cost_figures[c]];

				if (cost_primary[c])
					continue;
				/* a cost the kernel did not give counts as no rise: 0 both ways */
				in->cost[ci++][b][p] = isfinite(v) ? v : 0.0;
			}
		}
	}
	in->n_blocks = b;
	*blocks_done = b;
}

int sb_judge_windows(const struct sb_windows *ws, double min_effect, bool want_ci, unsigned *look,
		     struct sb_result *out, struct st_err *e)
{
	const struct sb_design *d = ws->d;
	struct sb_input *in = calloc(1, sizeof(*in));
	struct sb_work *work = calloc(1, sizeof(*work));
	struct sb_opts o;
	unsigned blocks;
	int r = 0;

	if (!in || !work) {
		free(in);
		free(work);
		return err_set(e, -ENOMEM, "out of memory");
	}
	sb_input_build(ws, in, &blocks);
	for (unsigned a = 0; ws->names && a < d->plan.n_arms; a++)
		snprintf(in->arm_names[a], SB_NAME_MAX, "%s", ws->names[a]);
	if (blocks >= 2) {
		sb_opts_for(min_effect, want_ci, &o);
		*look = sb_look_for(d, blocks);
		r = sb_analyse(&(struct sb_look){ d, *look, in }, &o, work, out, e);
		if (r == 0)
			r = 1;
	}
	free(in);
	free(work);
	return r;
}

/* ---- a stored run ---- */

static double jnum(const cJSON *o, const char *k, double dflt)
{
	const cJSON *x = o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;

	return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *x = o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;

	return cJSON_IsString(x) ? x->valuestring : "";
}

static bool jbool(const cJSON *o, const char *k, bool dflt)
{
	const cJSON *x = o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;

	return cJSON_IsBool(x) ? cJSON_IsTrue(x) : dflt;
}

static int bad(struct st_err *e, int64_t id, const char *what)
{
	return err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME, "switchback run %lld: %s", (long long)id, what);
}

/* The plan and the schedule from params, the design re-made from its seed and compared. */
static int load_plan(struct sbrun_stored *s, const cJSON *par, struct st_err *e)
{
	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(par, "plan");
	const cJSON *looks = cJSON_GetObjectItemCaseSensitive(pl, "looks");
	const cJSON *sched = cJSON_GetObjectItemCaseSensitive(par, "schedule"), *row, *x;
	struct sb_plan p;
	double seed = jnum(pl, "seed", -1);
	unsigned b = 0;

	sb_plan_init(&p);
	p.n_arms = (unsigned)jnum(pl, "arms", 0);
	p.n_blocks = (unsigned)jnum(pl, "blocks", 0);
	p.window_s = jnum(pl, "window_s", NAN);
	p.washout_s = jnum(pl, "washout_s", NAN);
	p.alpha = jnum(pl, "alpha", NAN);
	p.draws = (uint64_t)jnum(pl, "draws", SB_DRAWS_DEFAULT);
	if (!(seed >= 0 && seed < 9007199254740992.0) || !cJSON_IsArray(looks) ||
	    cJSON_GetArraySize(looks) < 1 || cJSON_GetArraySize(looks) > SB_LOOKS_MAX)
		return bad(e, s->run_id, "its stored plan has no seed or looks");
	p.seed = (uint64_t)seed;
	p.n_looks = 0;
	cJSON_ArrayForEach(x, looks)
		p.looks[p.n_looks++] = cJSON_IsNumber(x) && x->valuedouble >= 0 &&
				       x->valuedouble <= SB_BLOCKS_MAX ? (unsigned)x->valuedouble : 0;
	if (sb_design_init(&s->design, &p, e) < 0)
		return err_prefix(e, "switchback run %lld: its stored plan", (long long)s->run_id);
	s->opts.min_effect = jnum(pl, "min_effect", NAN);
	if (!(s->opts.min_effect >= 0 && s->opts.min_effect <= 1000))
		return bad(e, s->run_id, "its stored minimum effect is out of range");
	cJSON_ArrayForEach(row, sched) {
		unsigned q = 0;

		if (b >= p.n_blocks || !cJSON_IsArray(row) || (unsigned)cJSON_GetArraySize(row) != p.n_arms)
			return bad(e, s->run_id, "its stored schedule does not fit its plan");
		cJSON_ArrayForEach(x, row)
			if (!cJSON_IsNumber(x) || x->valuedouble != s->design.order[b][q++])
				return bad(e, s->run_id, "its stored schedule is not the one its seed makes");
		b++;
	}
	if (b != p.n_blocks)
		return bad(e, s->run_id, "its stored schedule does not fit its plan");
	return 0;
}

static int load_metric(struct sbrun_stored *s, const cJSON *par, struct st_err *e)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(par, "metric");
	const char *src = jstr(m, "source");
	static const char *const names[] = { "kernel", "cmd", "file", "prom" };
	int src_i = -1, k;

	for (int i = 0; i < 4; i++)
		if (!strcmp(src, names[i]))
			src_i = i;
	if (src_i < 0)
		return bad(e, s->run_id, "its stored metric has no known source");
	sbm_spec_init(&s->metric, (enum sbm_source)src_i);
	k = sbm_kernel_find(jstr(m, "kernel"));
	s->metric.kernel = k >= 0 ? (enum sbm_kernel)k : SBK_PSI_SOME;
	snprintf(s->metric.cmd, sizeof(s->metric.cmd), "%s", jstr(m, "cmd"));
	snprintf(s->metric.path, sizeof(s->metric.path), "%s", jstr(m, "path"));
	snprintf(s->metric.url, sizeof(s->metric.url), "%s", jstr(m, "url"));
	snprintf(s->metric.name, sizeof(s->metric.name), "%s", jstr(m, "name"));
	snprintf(s->metric.label, sizeof(s->metric.label), "%s", jstr(m, "label"));
	s->metric.counter = jbool(m, "counter", s->metric.counter);
	s->metric.higher_better = jbool(m, "higher_better", s->metric.higher_better);
	s->metric.cpu_per_work = jbool(m, "cpu_per_work", false);
	if (src_i == SBM_KERNEL && k < 0)
		return bad(e, s->run_id, "its stored kernel metric is not one this build knows");
	return 0;
}

/* Arms from the arms table (insertion order: the baseline first), settings by the registry. */
static int load_arms(struct store *st, const struct host *h, struct sbrun_stored *s,
		     int64_t *arm_ids, struct st_err *e)
{
	struct store_probe_run *run = calloc(1, sizeof(*run));
	int r;

	if (!run)
		return err_set(e, -ENOMEM, "out of memory");
	r = store_probe_run_load(st, s->run_id, run, e);
	if (r == 0 && (run->n_arms != s->design.plan.n_arms || run->n_arms > SB_ARMS_MAX))
		r = bad(e, s->run_id, "its arms do not match its plan");
	for (size_t a = 0; r == 0 && a < run->n_arms; a++) {
		cJSON *set = cJSON_Parse(run->arms[a].settings), *it;
		struct sbrun_arm *arm = &s->arms[a];

		arm_ids[a] = run->arms[a].id;
		snprintf(arm->name, sizeof(arm->name), "%s", run->arms[a].name);
		if (!cJSON_IsObject(set))
			r = bad(e, s->run_id, "an arm's settings are not a JSON object");
		cJSON_ArrayForEach(it, set) {
			const struct setting_def *d = settings_find(it->string);
			char norm[SETTING_VALUE_MAX];
			struct st_err e1 = {0};

			if (r < 0)
				break;
			if (!d || !cJSON_IsString(it) || arm->n_settings >= PROBE_ARM_SET_MAX ||
			    (h && settings_normalize(h, d, it->valuestring, norm, sizeof(norm), &e1) < 0))
				r = bad(e, s->run_id, "an arm holds a setting or value swaptune would not write");
			else {
				snprintf(arm->set[arm->n_settings].name, sizeof(arm->set[0].name), "%s", d->name);
				snprintf(arm->set[arm->n_settings].value, sizeof(arm->set[0].value), "%s",
					 h ? norm : it->valuestring);
				arm->n_settings++;
			}
		}
		cJSON_Delete(set);
	}
	s->narms = (int)run->n_arms;
	store_probe_run_free(run);
	free(run);
	return r;
}

static int window_from_row(const struct sbrun_stored *s, const struct store_sb_window *row,
			   const int64_t *arm_ids, struct sbrun_window *w)
{
	unsigned k = s->design.plan.n_arms;

	memset(w, 0, sizeof(*w));
	w->index = row->idx;
	w->block = row->block;
	w->pos = row->pos;
	if (row->idx >= s->design.plan.n_blocks * k || row->block != row->idx / k || row->pos != row->idx % k)
		return -1;
	w->arm = s->design.order[w->block][w->pos];
	if (arm_ids[w->arm] != row->arm_id)
		return -1;
	w->start_s = row->start_s;
	w->switch_s = row->switch_s;
	w->count_start_s = row->count_start_s;
	w->end_s = row->end_s;
	snprintf(w->started_at, sizeof(w->started_at), "%s", row->started_at);
	w->outcome = !strcmp(row->outcome, "ok") ? SB_WIN_OK : !strcmp(row->outcome, "failed") ?
		     SB_WIN_FAILED : SB_WIN_MISSING;
	w->value = row->have_value ? row->value : NAN;
	if (w->outcome == SB_WIN_MISSING || (w->outcome == SB_WIN_OK && !isfinite(w->value)) ||
	    !isfinite(w->start_s) || !isfinite(w->end_s))
		return -1;
	snprintf(w->failure, sizeof(w->failure), "%s", row->failure);
	w->failed_at_s = row->failed_at_s;
	for (int f = 0; f < SBK_COUNT; f++)
		w->kern[f] = NAN;
	w->n_slices = s->n_slices;
	for (unsigned q = 0; q < SB_SLICES_MAX; q++)
		w->slice[q] = NAN;
	for (size_t i = 0; i < row->n_metrics; i++) {
		unsigned q;

		for (int f = 0; f < SBK_COUNT; f++)
			if (!strcmp(row->metrics[i].key, sbm_kernel_defs[f].key))
				w->kern[f] = row->metrics[i].value;
		if (sscanf(row->metrics[i].key, "slice.%2u", &q) == 1 && q < SB_SLICES_MAX)
			w->slice[q] = row->metrics[i].value;
	}
	return 0;
}

static int load_windows(struct store *st, struct sbrun_stored *s, const int64_t *arm_ids,
			struct st_err *e)
{
	struct store_sb_window *rows = NULL;
	size_t n = 0;
	int r = store_sb_windows_load(st, s->run_id, &rows, &n, e);

	if (r < 0)
		return r;
	s->w = calloc(SBRUN_WINDOWS_MAX, sizeof(*s->w));
	if (!s->w) {
		free(rows);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (i >= SBRUN_WINDOWS_MAX || rows[i].idx != i ||
		    window_from_row(s, &rows[i], arm_ids, &s->w[i]) < 0)
			r = bad(e, s->run_id, "a stored window does not fit its plan or has no value");
	}
	s->n_windows = r == 0 ? (unsigned)n : 0;
	free(rows);
	return r;
}

/* The run's design, metric and guardrails from its params (decoded by the store, p). */
static int load_params(struct sbrun_stored *s, const struct run_params *p, struct st_err *e)
{
	const cJSON *par = p->doc, *g, *sl;
	int r;

	if (!cJSON_IsObject(par))
		return bad(e, s->run_id, "it has no stored plan");
	r = load_plan(s, par, e);
	if (r == 0)
		r = load_metric(s, par, e);
	snprintf(s->origin, sizeof(s->origin), "%s", jstr(par, "origin"));
	s->verify_of = p->verify_of;
	snprintf(s->cgroup, sizeof(s->cgroup), "%s", jstr(par, "cgroup"));
	g = cJSON_GetObjectItemCaseSensitive(par, "guard");
	s->psi_full_max = jnum(g, "psi_full_max", 0);
	s->psi_some_max = jnum(g, "psi_some_max", 0);
	sl = cJSON_GetObjectItemCaseSensitive(par, "slices");
	s->n_slices = (unsigned)jnum(sl, "n", 0);
	s->n_washout_slices = (unsigned)jnum(sl, "washout", 0);
	s->slice_s = jnum(sl, "slice_s", 0);
	if (r == 0 && (s->n_slices > SB_SLICES_MAX || s->n_washout_slices > s->n_slices ||
		       !(s->slice_s >= 0 && s->slice_s <= s->design.plan.window_s)))
		r = bad(e, s->run_id, "its stored slices do not fit its window");
	return r;
}

int sbrun_judge(struct sbrun_stored *s, struct st_err *e)
{
	char names[SB_ARMS_MAX][SB_NAME_MAX];
	const struct sb_windows ws = { .d = &s->design, .m = &s->metric, .w = s->w, .n = s->n_windows,
				       .n_slices = s->n_slices, .n_washout_slices = s->n_washout_slices,
				       .slice_s = s->slice_s, .names = names };
	unsigned blocks = 0;
	struct sb_input *in = calloc(1, sizeof(*in));
	int r;

	if (!in)
		return err_set(e, -ENOMEM, "out of memory");
	sb_input_build(&ws, in, &blocks);
	free(in);
	s->blocks_done = blocks;
	for (int a = 0; a < SB_ARMS_MAX; a++)
		snprintf(names[a], SB_NAME_MAX, "%s", a < s->narms ? s->arms[a].name : "");
	r = sb_judge_windows(&ws, s->opts.min_effect, true, &s->look, &s->res, e);
	if (r < 0)
		return r;
	s->judged = r == 1;
	return 0;
}

int sbrun_load(struct store *st, const struct host *h, int64_t run_id, struct sbrun_stored *s,
	       struct st_err *e)
{
	struct store_run ri;
	int64_t arm_ids[SB_ARMS_MAX] = { 0 };
	cJSON *sum;
	int r;

	memset(s, 0, sizeof(*s));
	s->run_id = run_id;
	if ((r = store_run_get(st, run_id, &ri, e)) < 0)
		return r;
	s->imported = ri.imported;
	if (strcmp(store_run_kind(&ri), SBRUN_KIND)) {
		r = err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "run %lld is a %s run, not a switchback",
				 (long long)run_id, store_run_kind(&ri));
		store_run_free(&ri);
		return r;
	}
	snprintf(s->status, sizeof(s->status), "%s", ri.status);
	snprintf(s->started_at, sizeof(s->started_at), "%s", ri.started_at);
	r = load_params(s, &ri.p, e);
	sum = ri.summary ? cJSON_Parse(ri.summary) : NULL;
	snprintf(s->stop_reason, sizeof(s->stop_reason), "%s", jstr(sum, "stop_reason"));
	cJSON_Delete(sum);
	store_run_free(&ri);
	if (r == 0)
		r = load_arms(st, h, s, arm_ids, e);
	if (r == 0)
		r = load_windows(st, s, arm_ids, e);
	if (r == 0)
		r = sbrun_judge(s, e);
	return r;
}

int sbrun_latest(struct store *st, int64_t *run_id, struct st_err *e)
{
	return store_run_latest(st, SBRUN_KIND, false, run_id, e);
}


/* ---- output ---- */

/* A rate's effect is a ratio (%); a level's a difference in its unit: of PSI's %, points. */
static const char *unit_of(const struct sbrun_stored *s)
{
	const char *u = sbm_kernel_defs[s->metric.kernel].unit;

	if (sbm_kind(&s->metric) == SB_RATE)
		return "%";
	return !strcmp(u, "%") ? "points" : u;
}

static cJSON *arm_json(const struct sbrun_stored *s, int a)
{
	const struct sb_arm_result *ar = &s->res.arms[a];
	cJSON *o = cJSON_CreateObject(), *set = cJSON_AddObjectToObject(o, "settings"), *g;

	cJSON_AddStringToObject(o, "name", s->arms[a].name);
	for (int i = 0; i < s->arms[a].n_settings; i++)
		cJSON_AddStringToObject(set, s->arms[a].set[i].name, s->arms[a].set[i].value);
	cJSON_AddBoolToObject(o, "baseline", a == 0);
	cJSON_AddNumberToObject(o, "failed_windows", s->judged ? ar->n_failed : 0);
	if (a == 0 || !s->judged)
		return o;
	fmt_json_num(o, "effect", ar->effect);
	fmt_json_num(o, "ci_low", ar->ci_low);
	fmt_json_num(o, "ci_high", ar->ci_high);
	fmt_json_num(o, "sd_contrast", ar->sd_contrast);
	fmt_json_num(o, "p_sequential", ar->test.p_seq);
	fmt_json_num(o, "p_fixed", ar->test.p_fixed);
	fmt_json_num(o, "spend", ar->test.spend);
	cJSON_AddBoolToObject(o, "exact", ar->test.exact);
	cJSON_AddBoolToObject(o, "rejects", ar->test.rejects);
	cJSON_AddBoolToObject(o, "min_effect_ok", ar->min_effect_ok);
	cJSON_AddBoolToObject(o, "futile", ar->futile);
	cJSON_AddBoolToObject(o, "fails_more", ar->fails_more);
	g = cJSON_AddArrayToObject(o, "guardrails");
	for (int c = 0, ci = 0; c < SB_COST_N; c++) {
		cJSON *go;

		if (s->metric.source == SBM_KERNEL && !s->metric.cpu_per_work &&
		    s->metric.kernel == sb_cost_figures[c])
			continue;
		go = cJSON_CreateObject();
		cJSON_AddStringToObject(go, "name", sbm_kernel_defs[sb_cost_figures[c]].name);
		cJSON_AddStringToObject(go, "status", sb_guard_status_name(ar->guard[ci].status));
		fmt_json_num(go, "rise", ar->guard[ci].rise);
		cJSON_AddNumberToObject(go, "margin", sb_cost_margin[c]);
		cJSON_AddItemToArray(g, go);
		ci++;
	}
	return o;
}

static cJSON *checks_json(const struct sb_checks *c)
{
	cJSON *o = cJSON_CreateObject();

	fmt_json_num(o, "carry_early", c->carry_early);
	fmt_json_num(o, "carry_late", c->carry_late);
	fmt_json_num(o, "carry_p", c->carry_p);
	cJSON_AddBoolToObject(o, "carry_flag", c->carry_flag);
	fmt_json_num(o, "carry_s", c->carry_slices >= 0 ? c->carry_s : NAN);
	cJSON_AddBoolToObject(o, "washout_short", c->washout_short);
	fmt_json_num(o, "trend_pct_run", c->trend_pct_run);
	fmt_json_num(o, "trend_p", c->trend_p);
	fmt_json_num(o, "drift_p", c->drift_p);
	fmt_json_num(o, "ac1_windows", c->ac1_windows);
	fmt_json_num(o, "ac1_contrast", c->ac1_contrast);
	return o;
}

cJSON *sbrun_verdict_json(const struct sbrun_stored *s)
{
	cJSON *o = cJSON_CreateObject(), *arms, *r;
	char desc[1024];

	cJSON_AddNumberToObject(o, "run_id", (double)s->run_id);
	cJSON_AddStringToObject(o, "decision", sbrun_decision_name(s));
	if (s->judged && s->res.decision == SB_CHANGE && s->res.chosen > 0)
		cJSON_AddStringToObject(o, "chosen", s->arms[s->res.chosen].name);
	else if (s->judged && s->res.decision == SB_KEEP)
		cJSON_AddStringToObject(o, "chosen", s->arms[0].name);
	else
		cJSON_AddNullToObject(o, "chosen");
	cJSON_AddStringToObject(o, "baseline", s->arms[0].name);
	cJSON_AddStringToObject(o, "metric", sbm_describe(&s->metric, desc, sizeof(desc)));
	cJSON_AddStringToObject(o, "effect_unit", unit_of(s));
	cJSON_AddBoolToObject(o, "higher_better", s->metric.higher_better);
	cJSON_AddNumberToObject(o, "blocks", s->blocks_done);
	cJSON_AddNumberToObject(o, "blocks_planned", s->design.plan.n_blocks);
	cJSON_AddNumberToObject(o, "look", s->judged ? s->look + 1 : 0);
	cJSON_AddNumberToObject(o, "looks", s->design.plan.n_looks);
	cJSON_AddBoolToObject(o, "last_look", s->judged && s->res.last_look);
	cJSON_AddNumberToObject(o, "false_change_bound", s->design.plan.alpha);
	cJSON_AddNumberToObject(o, "min_effect", s->opts.min_effect);
	arms = cJSON_AddArrayToObject(o, "arms");
	for (int a = 0; a < s->narms; a++)
		cJSON_AddItemToArray(arms, arm_json(s, a));
	if (s->judged)
		cJSON_AddItemToObject(o, "checks", checks_json(&s->res.checks));
	else
		cJSON_AddNullToObject(o, "checks");
	r = cJSON_AddArrayToObject(o, "reasons");
	if (!s->judged)
		cJSON_AddItemToArray(r, cJSON_CreateString("fewer than 2 complete blocks: nothing to judge"));
	for (size_t i = 0; s->judged && i < s->res.n_reasons; i++)
		cJSON_AddItemToArray(r, cJSON_CreateString(s->res.reasons[i]));
	if (s->judged && s->res.decision == SB_CONTINUE)
		cJSON_AddItemToArray(r, cJSON_CreateString("the run ended before its last look: inconclusive"));
	return o;
}

/* A p-value (%.2g) or a correlation (%.2f), or "n/a" where it is not a number (too few values). */
static const char *num_or_na(bool p_value, double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return "n/a";
	snprintf(buf, len, p_value ? "%.2g" : "%.2f", v);
	return buf;
}

static void print_checks(FILE *f, const struct sbrun_stored *s, bool flat)
{
	const struct sb_checks *c = &s->res.checks;
	const char *u = sbm_kind(&s->metric) == SB_RATE ? " %" : " points";
	char b1[32], b2[32], b3[32];

	if (flat) {
		fprintf(f, "  carryover and trend: not checked (the metric did not vary)\n");
		return;
	}
	if (isfinite(c->carry_p))
		fprintf(f, "  carryover: effect early in the counted part %+.1f%s, late %+.1f%s (p %.2g)%s\n",
			c->carry_early, u, c->carry_late, u, c->carry_p,
			c->carry_flag ? ": the effect still moves within a window" : "");
	else
		fprintf(f, "  carryover: not checked (%s)\n", s->n_slices ? "too few blocks" :
			"the metric has no value per slice of a window");
	if (c->carry_slices >= 0)
		fprintf(f, "  carryover order: about %.0f s after a switch%s (washout %.0f s)\n", c->carry_s,
			c->washout_short ? ", longer than the washout: the estimate is attenuated" : "",
			s->design.plan.washout_s);
	if (isfinite(c->trend_pct_run))
		fprintf(f, "  trend over the run: %+.1f%s (p %s); lag-1 autocorrelation of windows %s, of block contrasts %s\n",
			c->trend_pct_run, u, num_or_na(true, c->trend_p, b1, sizeof(b1)),
			num_or_na(false, c->ac1_windows, b2, sizeof(b2)),
			num_or_na(false, c->ac1_contrast, b3, sizeof(b3)));
}

/* A candidate's row: its effect with the interval, or why there is none. */
static void print_arm_effect(FILE *f, const struct sb_arm_result *ar, const char *u, bool flat)
{
	if (flat)
		fprintf(f, " no effect to estimate: the metric did not vary");
	else if (isfinite(ar->ci_low) && isfinite(ar->ci_high))
		fprintf(f, " %+.2f %s [%+.2f, %+.2f], p %.3g (spent %.3g)", ar->effect, u, ar->ci_low,
			ar->ci_high, ar->test.p_seq, ar->test.spend);
	else
		fprintf(f, " %+.2f %s, no interval yet (too few blocks to bound it), p %.3g (spent %.3g)",
			ar->effect, u, ar->test.p_seq, ar->test.spend);
	fprintf(f, ", %u failed window%s\n", ar->n_failed, ar->n_failed == 1 ? "" : "s");
}

/* The decision in the words of a probe's verdict (sbrun_decision_name()'s, as kinds). */
static enum verdict_kind verdict_kind_of(const struct sbrun_stored *s)
{
	if (s->judged && s->res.decision == SB_CHANGE && s->res.chosen > 0)
		return VERDICT_CHANGE;
	if (s->judged && s->res.decision == SB_KEEP)
		return VERDICT_KEEP;
	return VERDICT_INCONCLUSIVE;
}

void sbrun_verdict_print(FILE *f, const struct sbrun_stored *s)
{
	char desc[1024];
	const char *u = unit_of(s);
	bool flat = s->judged && s->res.flat;

	/* the run and its design, then the verdict line a probe's verdict has */
	fprintf(f, "Switchback run %lld: %u of %u blocks of %u x %.0f s windows (washout %.0f s), "
		"look %u of %u\n", (long long)s->run_id, s->blocks_done, s->design.plan.n_blocks,
		s->design.plan.n_arms, s->design.plan.window_s, s->design.plan.washout_s,
		s->judged ? s->look + 1 : 0, s->design.plan.n_looks);
	fprintf(f, "  false-change bound %.3g, minimum effect %g %s\n", s->design.plan.alpha,
		s->opts.min_effect, u);
	fprintf(f, "  metric: ");
	fmt_fputs(f, sbm_describe(&s->metric, desc, sizeof(desc)));
	fprintf(f, ", %s is better\n", s->metric.higher_better ? "higher" : "lower");
	judge_verdict_print(f, verdict_kind_of(s), verdict_kind_of(s) == VERDICT_CHANGE ?
			    s->arms[s->res.chosen].name : s->arms[0].name);
	for (int a = 0; a < s->narms; a++) {
		const struct sb_arm_result *ar = &s->res.arms[a];

		fprintf(f, "  ");
		fmt_fputs_pad(f, s->arms[a].name, 12, false);
		if (a == 0 || !s->judged) {
			fprintf(f, " %s, %u failed window%s\n", a == 0 ? "baseline" : "-",
				s->judged ? ar->n_failed : 0, s->judged && ar->n_failed == 1 ? "" : "s");
			continue;
		}
		print_arm_effect(f, ar, u, flat);
	}
	if (s->judged)
		print_checks(f, s, flat);
	if (!s->judged)
		fprintf(f, "  fewer than 2 complete blocks: nothing to judge\n");
	for (size_t i = 0; s->judged && i < s->res.n_reasons; i++) {
		fprintf(f, "  - ");
		fmt_fputs(f, s->res.reasons[i]);
		fprintf(f, "\n");
	}
	if (s->judged && s->res.decision == SB_CONTINUE)
		fprintf(f, "  - the run ended before its last look: inconclusive\n");
	if (s->stop_reason[0]) {
		fprintf(f, "  ended early: ");
		fmt_fputs(f, s->stop_reason);
		fprintf(f, "\n");
	}
}
