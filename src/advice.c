/*
 * advice.c - loads stored probe runs into the advisor's input, host facts
 * into the rules' input, and renders what the advisor says. See advice.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/advice.h"
#include "swaptune/fmt.h"
#include "swaptune/metric.h"
#include "swaptune/settings.h"

int advice_latest_probe_run(struct store *st, int64_t *run_id, struct st_err *e)
{
	return store_run_latest(st, "probe", true, run_id, e);
}

int advice_parse_settings(const char *json, struct advice_setting *out, int max,
			  int *n, struct st_err *e)
{
	cJSON *o = cJSON_Parse(json ? json : ""), *it;

	*n = 0;
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return err_set(e, -EBADMSG, "arm settings are not a JSON object: %.60s",
			       json ? json : "(null)");
	}
	cJSON_ArrayForEach(it, o) {
		char val[SETTING_VALUE_MAX];

		if (cJSON_IsString(it))
			snprintf(val, sizeof(val), "%s", it->valuestring);
		else if (cJSON_IsNumber(it))
			snprintf(val, sizeof(val), "%.0f", it->valuedouble);
		else if (cJSON_IsBool(it))
			snprintf(val, sizeof(val), "%s", cJSON_IsTrue(it) ? "1" : "0");
		else
			continue;
		if (*n >= max) {
			cJSON_Delete(o);
			return err_set(e, -EBADMSG, "arm settings hold more than %d settings", max);
		}
		snprintf(out[*n].name, sizeof(out[*n].name), "%s", it->string);
		snprintf(out[*n].value, sizeof(out[*n].value), "%s", val);
		(*n)++;
	}
	cJSON_Delete(o);
	return 0;
}

/* Whether every setting of arm a has the value s gives it. */
static bool arm_matches(const struct advice_arm *a, const struct settings_snapshot *s)
{
	if (a->n_settings == 0)
		return false;
	for (int i = 0; i < a->n_settings; i++) {
		const struct setting_def *d = settings_find(a->settings[i].name);
		const struct setting_value *v = d ? settings_snapshot_get(s, d->name) : NULL;

		if (!v || !v->present || !settings_equal(d, v->value, a->settings[i].value))
			return false;
	}
	return true;
}

/* -1 if no arm or more than one arm matches. */
static int match_unique(const struct advice_run *r, const struct settings_snapshot *s)
{
	int found = -1;

	for (size_t i = 0; i < r->n_arms; i++)
		if (arm_matches(&r->arms[i], s)) {
			if (found >= 0)
				return -1;
			found = (int)i;
		}
	return found;
}

/* The arms' names, settings and notes from the loaded rows. */
static int load_arms(const struct store_probe_run *run, struct advice_run *r, struct st_err *e)
{
	if (run->n_arms > VERDICT_ARMS_MAX)
		return err_set(e, -EBADMSG, "probe run %lld has more than %d arms",
			       (long long)r->run_id, VERDICT_ARMS_MAX);
	for (size_t i = 0; i < run->n_arms; i++) {
		struct advice_arm *a = &r->arms[i];

		a->arm_id = run->arms[i].id;
		snprintf(a->name, sizeof(a->name), "%s", run->arms[i].name);
		if (advice_parse_settings(run->arms[i].settings, a->settings, SETTINGS_MAX,
					  &a->n_settings, e) < 0)
			return err_prefix(e, "probe run %lld arm %s", (long long)r->run_id, a->name);
		a->emulated = run->arms[i].emulated;
		snprintf(a->note, sizeof(a->note), "%s", run->arms[i].note);
	}
	r->n_arms = run->n_arms;
	if (r->n_arms == 0)
		return err_set(e, -EBADMSG, "probe run %lld has no arms (did it start?)",
			       (long long)r->run_id);
	return 0;
}

/* Trial counts per arm, for the report (the verdict's input comes from metric.h). */
static void count_trials(const struct store_probe_run *run, struct advice_run *r)
{
	for (size_t k = 0; k < run->n_trials; k++) {
		const struct store_probe_trial *t = &run->trials[k];
		struct advice_arm *a = NULL;

		for (size_t i = 0; i < r->n_arms; i++)
			if (r->arms[i].arm_id == t->arm_id)
				a = &r->arms[i];
		if (!a)
			continue;
		if (t->warmup)
			a->n_warmup++;
		else if (!strcmp(t->status, "oom"))
			a->n_oom++;
		else if (strcmp(t->status, "ok") || !t->have_primary)
			a->n_failed++;
		else
			a->n_ok++;
	}
}

/*
 * The primary metric: the run's summary (written when the probe ends) says
 * it in "primary_metric"; a run without one (stopped hard) falls back to the
 * workload in its params: cmd is timed (lower is better), built-ins measure
 * throughput.
 */
static void load_metric(struct advice_run *r, const char *summary)
{
	cJSON *s = cJSON_Parse(summary), *pm;
	bool cmd = !strcmp(r->p.workload, "cmd");

	metric_verdict_primary(metric_defs[PM_THROUGHPUT].key, true, &r->in2);
	snprintf(r->workload, sizeof(r->workload), "%s", r->p.workload);
	pm = s ? cJSON_GetObjectItem(s, "primary_metric") : NULL;
	if (cJSON_IsObject(pm)) {
		cJSON *key = cJSON_GetObjectItem(pm, "key");

		metric_verdict_primary(cJSON_IsString(key) ? key->valuestring : "",
				       cJSON_IsTrue(cJSON_GetObjectItem(pm, "higher_is_better")), &r->in2);
	} else if (cmd) {
		metric_verdict_primary(metric_defs[PM_WALL_S].key, false, &r->in2);
	}
	cJSON_Delete(s);
}

static int choose_baseline(struct store *st, const struct host *h, struct advice_run *r,
			   const char *forced, struct st_err *e)
{
	int idx = -1;

	if (forced) {
		for (size_t i = 0; i < r->n_arms; i++)
			if (!strcmp(r->arms[i].name, forced))
				idx = (int)i;
		if (idx < 0)
			return err_set(e, -EINVAL, "probe run %lld has no arm \"%s\"",
				       (long long)r->run_id, forced);
		snprintf(r->baseline_source, sizeof(r->baseline_source), "chosen with --baseline");
		goto done;
	}
	if (r->p.baseline[0])
		for (size_t i = 0; i < r->n_arms; i++)
			if (!strcmp(r->arms[i].name, r->p.baseline))
				idx = (int)i;
	if (idx >= 0) {
		snprintf(r->baseline_source, sizeof(r->baseline_source), "named by the probe run");
		goto done;
	}
	{
		int64_t snap = 0;
		struct settings_snapshot s;

		if (store_run_first_snapshot(st, r->run_id, &snap, NULL, 0, e) < 0)
			return -EIO;
		if (snap && store_snapshot_load(st, snap, &s, NULL) == 0 &&
		    (idx = match_unique(r, &s)) >= 0) {
			snprintf(r->baseline_source, sizeof(r->baseline_source),
				 "the setting before the probe (snapshot %lld)", (long long)snap);
			goto done;
		}
		if (h && settings_snapshot(h, &s, NULL) == 0 && (idx = match_unique(r, &s)) >= 0) {
			snprintf(r->baseline_source, sizeof(r->baseline_source), "the host's current setting");
			goto done;
		}
	}
	idx = 0;
	snprintf(r->baseline_source, sizeof(r->baseline_source),
		 "the first arm (no arm matches the setting before the probe)");
done:
	r->in2.arms[idx].is_baseline = true;
	return 0;
}

/* The run's recipe from its params and its arms' settings ("" without params). */
static void recipe_of(struct advice_run *r)
{
	cJSON *arms = cJSON_CreateObject();

	for (size_t i = 0; i < r->n_arms; i++) {
		cJSON *o = cJSON_AddObjectToObject(arms, r->arms[i].name);

		for (int k = 0; o && k < r->arms[i].n_settings; k++)
			cJSON_AddStringToObject(o, r->arms[i].settings[k].name, r->arms[i].settings[k].value);
	}
	if (judge_recipe(r->p.doc, arms, r->recipe) < 0)
		r->recipe[0] = 0;
	cJSON_Delete(arms);
}

int advice_load_rows(struct store *st, const struct host *h, const struct store_probe_run *run,
		     const char *baseline, struct advice_run *r, struct st_err *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->run_id = run->run.id;
	if (strcmp(store_run_kind(&run->run), "probe"))
		return err_set(e, -ENOENT, "run %lld is a %s run, not a probe", (long long)run->run.id,
			       store_run_kind(&run->run));
	snprintf(r->status, sizeof(r->status), "%s", run->run.status);
	snprintf(r->started_at, sizeof(r->started_at), "%s", run->run.started_at);
	if (run_params_copy(&r->p, &run->run.p) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = load_arms(run, r, e)) < 0)
		return rc;
	metric_verdict2_input(run, &r->in2);
	load_metric(r, run->run.summary);
	judge_plan_from_params(r->p.doc, &r->plan);
	count_trials(run, r);
	recipe_of(r);
	return choose_baseline(st, h, r, baseline, e);
}

int advice_load_run(struct store *st, const struct host *h, int64_t run_id,
		    const char *baseline, struct advice_run *r, struct st_err *e)
{
	struct store_probe_run *run = calloc(1, sizeof(*run));
	int rc;

	memset(r, 0, sizeof(*r));
	r->run_id = run_id;
	if (!run)
		return err_set(e, -ENOMEM, "out of memory");
	rc = store_probe_run_load(st, run_id, run, e);
	if (rc == -ENOENT)
		rc = err_set(e, -ENOENT, "no run %lld in %s (see swaptune history)",
			     (long long)run_id, st->path);
	if (rc == 0)
		rc = advice_load_rows(st, h, run, baseline, r, e);
	store_probe_run_free(run);
	free(run);
	return rc;
}

void advice_run_free(struct advice_run *r)
{
	if (r)
		run_params_free(&r->p);
}

int advice_judge(const struct advice_run *r, double min_effect_pct, struct verdict_result *v,
		 struct judgement *j, struct st_err *e)
{
	struct verdict2_opts o;
	const char *base = NULL;

	verdict2_opts_init(&o);
	o.min_effect_pct = min_effect_pct >= 0 ? min_effect_pct : r->plan.min_effect_pct;
	for (size_t i = 0; i < r->in2.n_arms; i++)
		if (r->in2.arms[i].is_baseline)
			base = r->in2.arms[i].name;
	return judge_run(&(struct judge_case){ &r->in2, &r->plan }, &o, base, j, v, e);
}

const struct advice_arm *advice_run_arm(const struct advice_run *r, const char *name)
{
	for (size_t i = 0; i < r->n_arms; i++)
		if (!strcmp(r->arms[i].name, name))
			return &r->arms[i];
	return NULL;
}

/* ---- host facts -> rules ---- */

static struct advisor_u64 u64_known(uint64_t v)
{
	return (struct advisor_u64){ .known = true, .v = v };
}

static void kv_to_u64(const struct st_kvtab *t, const char *key, struct advisor_u64 *out)
{
	uint64_t v;

	if (kv_get(t, key, &v))
		*out = u64_known(v);
}

void advice_rules_input(const struct host_facts *f, struct advisor_host_facts *a)
{
	const struct setting_value *v;
	long page;

	memset(a, 0, sizeof(*a));
	a->swaps_known = true;
	for (int i = 0; i < f->nswaps && a->n_swaps < ADVISOR_SWAPS_MAX; i++) {
		const struct st_swap *s = &f->swaps[i];
		struct advisor_swap *o = &a->swaps[a->n_swaps++];

		snprintf(o->name, sizeof(o->name), "%s", s->path);
		o->type = s->zram ? ADVISOR_SWAP_ZRAM :
			  !strcmp(s->type, "partition") ? ADVISOR_SWAP_PARTITION :
			  !strcmp(s->type, "file") ? ADVISOR_SWAP_FILE : ADVISOR_SWAP_UNKNOWN;
		if (s->rotational >= 0)
			o->rotational = (struct advisor_bool){ true, s->rotational == 1 };
		o->size_bytes = u64_known(s->size_bytes);
		o->used_bytes = u64_known(s->used_bytes);
	}
	a->zswap_present = (struct advisor_bool){ true, f->zswap_present };
	if (f->zswap_present) {
		a->zswap_enabled = (struct advisor_bool){ true, f->zswap_enabled };
		snprintf(a->zswap_compressor, sizeof(a->zswap_compressor), "%s", f->zswap_compressor);
		v = settings_snapshot_get(&f->settings, "zswap.max_pool_percent");
		if (v && v->present)
			a->zswap_max_pool_pct = u64_known(strtoull(v->value, NULL, 10));
		v = settings_snapshot_get(&f->settings, "zswap.shrinker_enabled");
		if (v && v->present)
			a->zswap_shrinker_enabled = (struct advisor_bool){ true, !strcmp(v->value, "Y") };
	}
	if (f->zswap_stats_available) {
		a->zswap_stored_pages = u64_known(f->zswap_stored_pages);
		a->zswap_pool_total_bytes = u64_known(f->zswap_pool_bytes);
		kv_to_u64(&f->zswap_stats, "pool_limit_hit", &a->since_boot.zswap_pool_limit_hit);
		kv_to_u64(&f->zswap_stats, "reject_compress_poor", &a->since_boot.zswap_reject_compress_poor);
		kv_to_u64(&f->zswap_stats, "reject_compress_fail", &a->since_boot.zswap_reject_compress_fail);
		kv_to_u64(&f->zswap_stats, "reject_alloc_fail", &a->since_boot.zswap_reject_alloc_fail);
		kv_to_u64(&f->zswap_stats, "reject_kmemcache_fail", &a->since_boot.zswap_reject_kmemcache_fail);
		kv_to_u64(&f->zswap_stats, "reject_reclaim_fail", &a->since_boot.zswap_reject_reclaim_fail);
		kv_to_u64(&f->zswap_stats, "written_back_pages", &a->since_boot.zswap_written_back_pages);
	}
	if (f->have_page_cluster)
		a->page_cluster = u64_known((uint64_t)f->page_cluster);
	if (f->have_vma_ra)
		a->vma_ra_enabled = (struct advisor_bool){ true, f->vma_ra_enabled };
	if (f->mem_total_bytes)
		a->mem_total_bytes = u64_known(f->mem_total_bytes);
	/* the counters count pages of this kernel, the one swaptune runs on
	 * (as facts.c's compression ratio assumes) */
	page = sysconf(_SC_PAGESIZE);
	if (page > 0)
		a->page_size_bytes = u64_known((uint64_t)page);
	kv_to_u64(&f->vmstat, vocab_key(V_SWAP_RA), &a->since_boot.swap_ra);
	kv_to_u64(&f->vmstat, vocab_key(V_SWAP_RA_HIT), &a->since_boot.swap_ra_hit);
	kv_to_u64(&f->vmstat, vocab_key(V_ZSWPIN), &a->since_boot.zswpin);
	kv_to_u64(&f->vmstat, vocab_key(V_ZSWPOUT), &a->since_boot.zswpout);
	kv_to_u64(&f->vmstat, vocab_key(V_PSWPIN), &a->since_boot.pswpin);
}

/* ---- rendering ---- */

static cJSON *settings_json(const struct advice_arm *a)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < a->n_settings; i++)
		cJSON_AddStringToObject(o, a->settings[i].name, a->settings[i].value);
	return o;
}

cJSON *advice_verdict_json(const struct advice_run *r, const struct judgement *j,
			   const struct verdict_result *v)
{
	cJSON *doc = cJSON_CreateObject(), *run, *verdict, *arms, *reasons;

	cJSON_AddStringToObject(doc, "schema", RECOMMEND_SCHEMA);
	cJSON_AddStringToObject(doc, "mode", "probe");
	run = cJSON_AddObjectToObject(doc, "run");
	cJSON_AddNumberToObject(run, "id", (double)r->run_id);
	cJSON_AddStringToObject(run, "status", r->status);
	cJSON_AddStringToObject(run, "started_at", r->started_at);
	if (r->workload[0])
		cJSON_AddStringToObject(run, "workload", r->workload);
	else
		cJSON_AddNullToObject(run, "workload");
	cJSON_AddStringToObject(run, "metric", r->in2.metric_name);
	cJSON_AddBoolToObject(run, "higher_is_better",
			      r->in2.metric == VERDICT_METRIC_THROUGHPUT ||
			      r->in2.metric == VERDICT_METRIC_HIGHER_BETTER);
	cJSON_AddStringToObject(run, "baseline", r->arms[v->baseline].name);
	cJSON_AddStringToObject(run, "baseline_source", r->baseline_source);

	verdict = cJSON_AddObjectToObject(doc, "verdict");
	cJSON_AddStringToObject(verdict, "kind", verdict_kind_name(v->kind));
	if (v->chosen >= 0) {
		cJSON_AddStringToObject(verdict, "arm", r->arms[v->chosen].name);
		cJSON_AddItemToObject(verdict, "settings", settings_json(&r->arms[v->chosen]));
	} else {
		cJSON_AddNullToObject(verdict, "arm");
		cJSON_AddNullToObject(verdict, "settings");
	}
	cJSON_AddStringToObject(verdict, "confidence", verdict_confidence_name(v->confidence));
	cJSON_AddBoolToObject(verdict, "decisive", v->decisive);
	fmt_json_num(verdict, "min_effect_pct", j->design.min_effect_pct);
	fmt_json_num(verdict, "alpha", j->plan.alpha);
	reasons = cJSON_AddArrayToObject(verdict, "reasons");
	for (size_t i = 0; i < v->n_reasons; i++)
		cJSON_AddItemToArray(reasons, cJSON_CreateString(v->reasons[i]));
	if (v->kind == VERDICT_CHANGE) {
		char cmd[96];

		/* "apply" keeps its meaning (swaptune.recommend/2); the command a
		 * script should run is the one with the safety net, as the human
		 * "To apply" line says */
		snprintf(cmd, sizeof(cmd), "swaptune apply --run %lld", (long long)r->run_id);
		cJSON_AddStringToObject(verdict, "apply", cmd);
		snprintf(cmd, sizeof(cmd), "swaptune apply --run %lld --confirm-within %s",
			 (long long)r->run_id, ADVICE_APPLY_CONFIRM_WITHIN);
		cJSON_AddStringToObject(verdict, "apply_with_net", cmd);
	} else {
		cJSON_AddNullToObject(verdict, "apply");
		cJSON_AddNullToObject(verdict, "apply_with_net");
	}

	arms = cJSON_AddArrayToObject(doc, "arms");
	for (size_t i = 0; i < v->n_arms; i++) {
		const struct verdict_arm_result *a = &v->arms[i];
		const struct advice_arm *ai = &r->arms[i];
		cJSON *x = cJSON_CreateObject(), *sec;

		cJSON_AddStringToObject(x, "name", ai->name);
		cJSON_AddItemToObject(x, "settings", settings_json(ai));
		cJSON_AddBoolToObject(x, "baseline", (int)i == v->baseline);
		cJSON_AddBoolToObject(x, "emulated", ai->emulated);
		if (ai->note[0])
			cJSON_AddStringToObject(x, "note", ai->note);
		cJSON_AddStringToObject(x, "status", verdict_arm_status_name(a->status));
		cJSON_AddNumberToObject(x, "trials", (double)a->n);
		cJSON_AddNumberToObject(x, "oom_killed", a->n_oom_killed);
		cJSON_AddNumberToObject(x, "failed", ai->n_failed);
		fmt_json_num(x, "mean", a->mean);
		fmt_json_num(x, "stddev", a->stddev);
		cJSON_AddBoolToObject(x, "compared", a->compared);
		fmt_json_num(x, "effect_pct", a->effect_pct);
		fmt_json_num(x, "ci_low_pct", a->ci_low_pct);
		fmt_json_num(x, "ci_high_pct", a->ci_high_pct);
		fmt_json_num(x, "p_one_sided", a->p_one_sided);
		cJSON_AddBoolToObject(x, "shown", a->shown);
		cJSON_AddBoolToObject(x, "decisive", a->decisive);
		sec = cJSON_AddObjectToObject(x, "secondary");
		for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
			const struct verdict_secondary_result *sr = &a->sec[s];
			cJSON *so;

			if (!sr->compared)
				continue;
			so = cJSON_AddObjectToObject(sec, verdict_secondary_name(s));
			fmt_json_num(so, "change_pct", sr->change_pct);
			cJSON_AddBoolToObject(so, "significant", sr->significant);
			cJSON_AddBoolToObject(so, "vetoes", sr->vetoes);
		}
		cJSON_AddItemToArray(arms, x);
	}
	return doc;
}

/* Text from the store or the tree, for a terminal: through the one escaper. */
#define P(x) fmt_printable(x)

void advice_verdict_print(FILE *out, const struct advice_run *r,
			  const struct judgement *j, const struct verdict_result *v)
{
	fprintf(out, "Probe run %lld: %s, %s (%s is better), %s, started %s\n",
		(long long)r->run_id, r->workload[0] ? P(r->workload) : "workload unknown",
		P(r->in2.metric_name), r->in2.metric == VERDICT_METRIC_THROUGHPUT ||
		r->in2.metric == VERDICT_METRIC_HIGHER_BETTER ? "higher" : "lower", P(r->status),
		P(r->started_at));
	fprintf(out, "Baseline %s: %s\n", P(r->arms[v->baseline].name), P(r->baseline_source));
	judge_verdict_print(out, v->kind, v->kind == VERDICT_CHANGE ? r->arms[v->chosen].name :
			    v->kind == VERDICT_KEEP ? r->arms[v->baseline].name : NULL);
	/* 96 columns: the widest status (below_min_effect) and interval fit */
	fprintf(out, "\n  %-12s %-16s %3s %3s %9s %8s %8s  %-20s %6s\n", "arm", "status",
		"n", "oom", "mean", "sd", "effect", "ci", "p");
	for (size_t i = 0; i < v->n_arms; i++) {
		const struct verdict_arm_result *a = &v->arms[i];
		char m[24], sd[24], eff[24], lo[24], hi[24], ci[48], p[16];

		if (a->compared)
			snprintf(ci, sizeof(ci), "[%s, %s]", fmt_pct(a->ci_low_pct, true, lo, sizeof(lo)),
				 fmt_pct(a->ci_high_pct, true, hi, sizeof(hi)));
		else
			snprintf(ci, sizeof(ci), "-");
		fprintf(out, "  %-12s %-16s %3zu %3u %9s %8s %8s  %-20s %6s\n", P(r->arms[i].name),
			verdict_arm_status_name(a->status), a->n, a->n_oom_killed,
			fmt_num(a->mean, m, sizeof(m)), fmt_num(a->stddev, sd, sizeof(sd)),
			fmt_pct(a->compared ? a->effect_pct : NAN, true, eff, sizeof(eff)), ci,
			fmt_p(a->compared ? a->p_one_sided : NAN, p, sizeof(p)));
	}
	fprintf(out, "  (effect: + is better than %s, robust estimate from per-round paired log-ratios;\n"
		"   interval repeated-confidence at the test's own level; p one-sided, of this look alone;\n"
		"   minimum effect %.1f %%)\n",
		P(r->arms[v->baseline].name), j->design.min_effect_pct);
	for (size_t i = 0; i < v->n_arms; i++) {
		for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
			const struct verdict_secondary_result *sr = &v->arms[i].sec[s];
			char pct[24];

			if (!sr->vetoes)
				continue;
			fprintf(out, "  veto: %s costs %s more %s than %s, shown beyond its margin: not recommended for that\n",
				P(r->arms[i].name), fmt_pct(sr->change_pct, true, pct, sizeof(pct)),
				verdict_secondary_name(s), P(r->arms[v->baseline].name));
		}
		if (r->arms[i].emulated)
			fprintf(out, "  note: arm %s is emulated%s%s\n", P(r->arms[i].name),
				r->arms[i].note[0] ? ": " : "", P(r->arms[i].note));
		if (r->arms[i].n_failed)
			fprintf(out, "  note: arm %s had %u trial%s that failed to run (a failure: its own endpoint, never a speed)\n",
				P(r->arms[i].name), r->arms[i].n_failed, r->arms[i].n_failed == 1 ? "" : "s");
	}
	fprintf(out, "\nReasons:\n");
	for (size_t i = 0; i < v->n_reasons; i++)
		fprintf(out, "  - %s\n", P(v->reasons[i]));
	if (v->kind == VERDICT_CHANGE && !strcmp(r->status, "imported")) {
		fprintf(out, "\nImported from another host: history here, never applied from this store "
			"(measure this host with swaptune probe)\n");
	} else if (v->kind == VERDICT_CHANGE) {
		fprintf(out, "\n");
		advice_apply_hint_print(out, r->run_id);
	}
}

void advice_apply_hint_lines(int64_t run_id, char lines[4][96])
{
	snprintf(lines[0], 96, "To apply, with a safety net (undone after %s unless confirmed), look first:",
		 ADVICE_APPLY_CONFIRM_WITHIN);
	snprintf(lines[1], 96, "swaptune apply --run %lld --dry-run", (long long)run_id);
	snprintf(lines[2], 96, "sudo swaptune apply --run %lld --confirm-within %s", (long long)run_id,
		 ADVICE_APPLY_CONFIRM_WITHIN);
	snprintf(lines[3], 96, "sudo swaptune apply --confirm");
}

void advice_apply_hint_print(FILE *out, int64_t run_id)
{
	fprintf(out, "To apply: swaptune apply --run %lld --confirm-within %s (undone unless confirmed)\n"
		"  first look: swaptune apply --run %lld --dry-run; keep it: swaptune apply --confirm\n",
		(long long)run_id, ADVICE_APPLY_CONFIRM_WITHIN, (long long)run_id);
}

cJSON *advice_rules_json(const struct advisor_rule_result *res, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		const struct advisor_rule_result *r = &res[i];
		const struct advisor_rule *rule = advisor_rule_find(r->rule);
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "rule", r->rule);
		cJSON_AddStringToObject(x, "area", rule ? rule->area : "");
		cJSON_AddStringToObject(x, "status", advisor_rule_status_name(r->status));
		if (r->status == ADVISOR_RULE_FINDING)
			cJSON_AddStringToObject(x, "severity", advisor_severity_name(r->severity));
		else
			cJSON_AddNullToObject(x, "severity");
		cJSON_AddStringToObject(x, "message", r->message);
		if (r->fix[0])
			cJSON_AddStringToObject(x, "fix", r->fix);
		else
			cJSON_AddNullToObject(x, "fix");
		if (r->probe[0])
			cJSON_AddStringToObject(x, "probe", r->probe);
		else
			cJSON_AddNullToObject(x, "probe");
		cJSON_AddItemToArray(a, x);
	}
	return a;
}

void advice_rules_print(FILE *out, const struct advisor_rule_result *res, size_t n)
{
	size_t findings = 0;

	for (size_t i = 0; i < n; i++)
		if (res[i].status == ADVISOR_RULE_FINDING)
			findings++;
	fprintf(out, "No probe run: advice from the host's state alone (%zu finding%s).\n",
		findings, findings == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const struct advisor_rule_result *r = &res[i];

		if (r->status != ADVISOR_RULE_FINDING)
			continue;
		fprintf(out, "\n%s %s: %s\n", r->severity == ADVISOR_SEV_WARN ? "WARN" : "INFO",
			P(r->rule), P(r->message));
		if (r->fix[0])
			fprintf(out, "  fix: %s\n", P(r->fix));
		if (r->probe[0])
			fprintf(out, "  measure: %s\n", P(r->probe));
	}
	fprintf(out, "\nOther checks:\n");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct advisor_rule_result *r = &res[i];

			if (r->status == (pass ? ADVISOR_RULE_SKIPPED : ADVISOR_RULE_OK))
				fprintf(out, "  %-4s %s: %s\n", pass ? "skip" : "ok", P(r->rule), P(r->message));
		}
}
