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

#include "store-int.h" /* TEMPORARY: SQL moves into the store (issue 8) */
#include "swaptune/advice.h"
#include "swaptune/settings.h"

/*
 * Per-trial metric keys the probe engine stores, for each secondary cost.
 * The first key found wins; wasted readahead falls back to swap_ra -
 * swap_ra_hit when no key of its own is stored.
 */
static const struct {
	enum verdict_secondary sec;
	const char *keys[4];
} secondary_keys[] = {
	{ VERDICT_SEC_ZSWPIN_PAGES, { "zswpin", "vmstat.zswpin", NULL } },
	{ VERDICT_SEC_ZSWPOUT_PAGES, { "zswpout", "vmstat.zswpout", NULL } },
	{ VERDICT_SEC_WASTED_RA_PAGES, { "swap_ra_wasted", "wasted_ra", "ra_wasted", NULL } },
	{ VERDICT_SEC_CPU_NS_PER_OP, { "cpu_ns_per_op", NULL } },
	{ VERDICT_SEC_MAJOR_FAULTS, { "pgmajfault", "maj_faults", "major_faults", NULL } },
	{ VERDICT_SEC_PSI_SOME_US, { "psi_some_us", "psi.some_us", "psi_memory_some_us", NULL } },
};

int advice_latest_probe_run(struct store *st, int64_t *run_id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT id FROM runs WHERE kind = 'probe'"
		" ORDER BY (status = 'ok') DESC, id DESC LIMIT 1", &stmt, e);

	if (r < 0)
		return r;
	r = sqlite3_step(stmt);
	if (r == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(stmt, 0);
		r = 0;
	} else if (r == SQLITE_DONE) {
		r = err_set(e, -ENOENT, "no probe run in %s", st->path);
	} else {
		r = err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	}
	sqlite3_finalize(stmt);
	return r;
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

static const char *col_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);

	return t ? (const char *)t : "";
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

static int load_arms(struct store *st, struct advice_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc = store_prepare(st,
		"SELECT id, name, settings, emulated, note FROM arms WHERE run_id = ?1 ORDER BY id",
		&stmt, e);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, r->run_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct advice_arm *a;

		if (r->n_arms >= VERDICT_ARMS_MAX) {
			sqlite3_finalize(stmt);
			return err_set(e, -EBADMSG, "probe run %lld has more than %d arms",
				       (long long)r->run_id, VERDICT_ARMS_MAX);
		}
		a = &r->arms[r->n_arms];
		a->arm_id = sqlite3_column_int64(stmt, 0);
		snprintf(a->name, sizeof(a->name), "%s", col_text(stmt, 1));
		memcpy(r->in.arms[r->n_arms].name, a->name, sizeof(a->name));
		if (advice_parse_settings(col_text(stmt, 2), a->settings, SETTINGS_MAX,
					  &a->n_settings, e) < 0) {
			sqlite3_finalize(stmt);
			return err_prefix(e, "probe run %lld arm %s", (long long)r->run_id, a->name);
		}
		a->emulated = sqlite3_column_int(stmt, 3) != 0;
		snprintf(a->note, sizeof(a->note), "%s", col_text(stmt, 4));
		r->n_arms++;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	if (r->n_arms == 0)
		return err_set(e, -EBADMSG, "probe run %lld has no arms (did it start?)",
			       (long long)r->run_id);
	r->in.n_arms = r->n_arms;
	return 0;
}

static int arm_index(const struct advice_run *r, int64_t arm_id)
{
	for (size_t i = 0; i < r->n_arms; i++)
		if (r->arms[i].arm_id == arm_id)
			return (int)i;
	return -1;
}

static int load_trials(struct store *st, struct advice_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc = store_prepare(st,
		"SELECT arm_id, id, status, warmup, primary_value FROM trials"
		" WHERE run_id = ?1 ORDER BY round, seq, id", &stmt, e);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, r->run_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int ai = arm_index(r, sqlite3_column_int64(stmt, 0));
		const char *status = col_text(stmt, 2);
		struct advice_arm *a;
		struct verdict_arm *va;

		if (ai < 0)
			continue;
		a = &r->arms[ai];
		va = &r->in.arms[ai];
		if (sqlite3_column_int(stmt, 3)) {
			a->n_warmup++;
			continue;
		}
		if (!strcmp(status, "oom")) {
			a->n_oom++;
			va->n_oom_killed++;
			continue;
		}
		if (strcmp(status, "ok") || sqlite3_column_type(stmt, 4) == SQLITE_NULL) {
			a->n_failed++;
			continue;
		}
		a->n_ok++;
		if (va->n_trials >= VERDICT_TRIALS_MAX) {
			a->n_dropped++;
			continue;
		}
		va->primary[va->n_trials++] = sqlite3_column_double(stmt, 4);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	return 0;
}

/*
 * Secondary costs, in the order load_trials() took the primary values: a
 * secondary is used for an arm only when every used trial has it.
 */
static int load_secondary(struct store *st, struct advice_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc = store_prepare(st,
		"SELECT t.arm_id, t.id, m.key, m.value FROM trials t JOIN metrics m ON m.trial_id = t.id"
		" WHERE t.run_id = ?1 AND t.warmup = 0 AND t.status = 'ok'"
		" AND t.primary_value IS NOT NULL ORDER BY t.round, t.seq, t.id", &stmt, e);
	/* per arm: index of the current trial, its id, and what it had */
	int64_t cur_id[VERDICT_ARMS_MAX];
	int cur_idx[VERDICT_ARMS_MAX];
	unsigned have[VERDICT_ARMS_MAX][VERDICT_SEC_COUNT];	/* trials with a value */
	double ra[VERDICT_ARMS_MAX][2];
	unsigned ra_have[VERDICT_ARMS_MAX];

	if (rc < 0)
		return rc;
	memset(have, 0, sizeof(have));
	memset(ra_have, 0, sizeof(ra_have));
	for (int i = 0; i < VERDICT_ARMS_MAX; i++) {
		cur_id[i] = -1;
		cur_idx[i] = -1;
	}
	sqlite3_bind_int64(stmt, 1, r->run_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int ai = arm_index(r, sqlite3_column_int64(stmt, 0));
		int64_t tid = sqlite3_column_int64(stmt, 1);
		const char *key = col_text(stmt, 2);
		double v = sqlite3_column_double(stmt, 3);
		struct verdict_arm *va;

		if (ai < 0)
			continue;
		va = &r->in.arms[ai];
		if (cur_id[ai] != tid) {
			cur_id[ai] = tid;
			cur_idx[ai]++;
			ra_have[ai] = 0;
		}
		if (cur_idx[ai] >= (int)va->n_trials)
			continue;
		if (!strcmp(key, "swap_ra") || !strcmp(key, "swap_ra_hit")) {
			ra[ai][key[7] != '\0'] = v;
			if (++ra_have[ai] == 2 && ra[ai][0] >= ra[ai][1]) {
				/* counted once per trial, as if it were a key of its own */
				double w = ra[ai][0] - ra[ai][1];
				enum verdict_secondary s = VERDICT_SEC_WASTED_RA_PAGES;

				if (have[ai][s] == (unsigned)cur_idx[ai]) {
					va->secondary[s][cur_idx[ai]] = w;
					have[ai][s]++;
				}
			}
			continue;
		}
		for (size_t k = 0; k < sizeof(secondary_keys) / sizeof(secondary_keys[0]); k++) {
			enum verdict_secondary s = secondary_keys[k].sec;

			for (int x = 0; secondary_keys[k].keys[x]; x++) {
				if (strcmp(key, secondary_keys[k].keys[x]))
					continue;
				/* one value per trial: the first key listed that is present */
				if (have[ai][s] == (unsigned)cur_idx[ai] && isfinite(v)) {
					va->secondary[s][cur_idx[ai]] = v;
					have[ai][s]++;
				}
			}
		}
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	for (size_t i = 0; i < r->n_arms; i++)
		for (int s = 0; s < VERDICT_SEC_COUNT; s++)
			r->in.arms[i].has_secondary[s] = r->in.arms[i].n_trials > 0 &&
				have[i][s] == r->in.arms[i].n_trials;
	return 0;
}

/*
 * The primary metric: the run's summary (written when the probe ends) says
 * it in "primary_metric"; a run without one (stopped hard) falls back to the
 * workload in its params: cmd is timed (lower is better), built-ins measure
 * throughput.
 */
static void load_metric(struct advice_run *r, const char *summary)
{
	cJSON *o = cJSON_Parse(r->params), *w, *s = cJSON_Parse(summary), *pm;
	bool cmd = false;

	r->in.metric = VERDICT_METRIC_THROUGHPUT;
	snprintf(r->in.metric_name, sizeof(r->in.metric_name), "throughput");
	w = o ? cJSON_GetObjectItem(o, "workload") : NULL;
	if (cJSON_IsObject(w))
		w = cJSON_GetObjectItem(w, "name");
	if (cJSON_IsString(w)) {
		snprintf(r->workload, sizeof(r->workload), "%s", w->valuestring);
		cmd = !strcmp(w->valuestring, "cmd");
	}
	pm = s ? cJSON_GetObjectItem(s, "primary_metric") : NULL;
	if (cJSON_IsObject(pm)) {
		cJSON *key = cJSON_GetObjectItem(pm, "key"), *name = cJSON_GetObjectItem(pm, "name");
		bool higher = cJSON_IsTrue(cJSON_GetObjectItem(pm, "higher_is_better"));
		const char *k = cJSON_IsString(key) ? key->valuestring : "";

		if (!strcmp(k, "throughput_ops"))
			r->in.metric = VERDICT_METRIC_THROUGHPUT;
		else if (!strcmp(k, "wall_s"))
			r->in.metric = VERDICT_METRIC_WALL_TIME;
		else
			r->in.metric = higher ? VERDICT_METRIC_HIGHER_BETTER : VERDICT_METRIC_LOWER_BETTER;
		if (cJSON_IsString(name))
			snprintf(r->in.metric_name, sizeof(r->in.metric_name), "%s", name->valuestring);
	} else if (cmd) {
		r->in.metric = VERDICT_METRIC_WALL_TIME;
		snprintf(r->in.metric_name, sizeof(r->in.metric_name), "wall time");
	}
	cJSON_Delete(o);
	cJSON_Delete(s);
}

static int choose_baseline(struct store *st, const struct host *h, struct advice_run *r,
			   const char *forced, struct st_err *e)
{
	cJSON *o = NULL, *b;
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
	o = cJSON_Parse(r->params);
	b = o ? cJSON_GetObjectItem(o, "baseline") : NULL;
	if (cJSON_IsString(b))
		for (size_t i = 0; i < r->n_arms; i++)
			if (!strcmp(r->arms[i].name, b->valuestring))
				idx = (int)i;
	cJSON_Delete(o);
	if (idx >= 0) {
		snprintf(r->baseline_source, sizeof(r->baseline_source), "named by the probe run");
		goto done;
	}
	{
		sqlite3_stmt *stmt;
		int64_t snap = 0;
		struct settings_snapshot s;

		if (store_prepare(st, "SELECT id FROM snapshots WHERE run_id = ?1 ORDER BY id LIMIT 1",
				  &stmt, e) < 0)
			return -EIO;
		sqlite3_bind_int64(stmt, 1, r->run_id);
		if (sqlite3_step(stmt) == SQLITE_ROW)
			snap = sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
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
	r->in.arms[idx].is_baseline = true;
	return 0;
}

int advice_load_run(struct store *st, const struct host *h, int64_t run_id,
		    const char *baseline, struct advice_run *r, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int rc;

	memset(r, 0, sizeof(*r));
	r->run_id = run_id;
	rc = store_prepare(st, "SELECT kind, status, started_at, params, summary FROM runs WHERE id = ?1",
			   &stmt, e);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(stmt, 1, run_id);
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		sqlite3_finalize(stmt);
		return err_set(e, -ENOENT, "no run %lld in %s (see swaptune history)",
			       (long long)run_id, st->path);
	}
	if (strcmp(col_text(stmt, 0), "probe")) {
		rc = err_set(e, -ENOENT, "run %lld is a %s run, not a probe", (long long)run_id,
			     col_text(stmt, 0));
		sqlite3_finalize(stmt);
		return rc;
	}
	snprintf(r->status, sizeof(r->status), "%s", col_text(stmt, 1));
	snprintf(r->started_at, sizeof(r->started_at), "%s", col_text(stmt, 2));
	snprintf(r->params, sizeof(r->params), "%s", col_text(stmt, 3));
	load_metric(r, col_text(stmt, 4));
	sqlite3_finalize(stmt);

	if ((rc = load_arms(st, r, e)) < 0 || (rc = load_trials(st, r, e)) < 0 ||
	    (rc = load_secondary(st, r, e)) < 0)
		return rc;
	return choose_baseline(st, h, r, baseline, e);
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
	kv_to_u64(&f->vmstat, "swap_ra", &a->since_boot.swap_ra);
	kv_to_u64(&f->vmstat, "swap_ra_hit", &a->since_boot.swap_ra_hit);
	kv_to_u64(&f->vmstat, "zswpin", &a->since_boot.zswpin);
	kv_to_u64(&f->vmstat, "zswpout", &a->since_boot.zswpout);
	kv_to_u64(&f->vmstat, "pswpin", &a->since_boot.pswpin);
}

/* ---- rendering ---- */

/* NAN and infinities are not JSON numbers: they become null. */
static void add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *settings_json(const struct advice_arm *a)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < a->n_settings; i++)
		cJSON_AddStringToObject(o, a->settings[i].name, a->settings[i].value);
	return o;
}

cJSON *advice_verdict_json(const struct advice_run *r, const struct verdict_opts *o,
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
	cJSON_AddStringToObject(run, "metric", r->in.metric_name);
	cJSON_AddBoolToObject(run, "higher_is_better",
			      r->in.metric == VERDICT_METRIC_THROUGHPUT ||
			      r->in.metric == VERDICT_METRIC_HIGHER_BETTER);
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
	add_num(verdict, "min_effect_pct", o->min_effect_pct);
	add_num(verdict, "alpha", o->alpha);
	add_num(verdict, "ci_level", 1.0 - o->alpha);
	reasons = cJSON_AddArrayToObject(verdict, "reasons");
	for (size_t i = 0; i < v->n_reasons; i++)
		cJSON_AddItemToArray(reasons, cJSON_CreateString(v->reasons[i]));
	if (v->kind == VERDICT_CHANGE) {
		char cmd[80];

		snprintf(cmd, sizeof(cmd), "swaptune apply --run %lld", (long long)r->run_id);
		cJSON_AddStringToObject(verdict, "apply", cmd);
	} else {
		cJSON_AddNullToObject(verdict, "apply");
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
		add_num(x, "mean", a->mean);
		add_num(x, "stddev", a->stddev);
		cJSON_AddBoolToObject(x, "compared", a->compared);
		add_num(x, "effect_pct", a->effect_pct);
		add_num(x, "ci_low_pct", a->ci_low_pct);
		add_num(x, "ci_high_pct", a->ci_high_pct);
		add_num(x, "p_welch", a->p_welch);
		add_num(x, "p_permutation", a->p_perm);
		cJSON_AddBoolToObject(x, "permutation_exact", a->perm_exact);
		cJSON_AddBoolToObject(x, "significant", a->significant);
		cJSON_AddBoolToObject(x, "decisive", a->decisive);
		sec = cJSON_AddObjectToObject(x, "secondary");
		for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
			const struct verdict_secondary_result *sr = &a->sec[s];
			cJSON *so;

			if (!r->in.arms[i].has_secondary[s])
				continue;
			so = cJSON_AddObjectToObject(sec, verdict_secondary_name(s));
			add_num(so, "mean", sr->compared || (int)i == v->baseline ? sr->mean :
				NAN);
			add_num(so, "change_pct", sr->change_pct);
			add_num(so, "p", sr->p);
			cJSON_AddBoolToObject(so, "significant", sr->significant);
			cJSON_AddBoolToObject(so, "vetoes", sr->vetoes);
		}
		cJSON_AddItemToArray(arms, x);
	}
	return doc;
}

static const char *fmt_pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.1f %%", v);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *fmt_p(char *buf, size_t len, double p)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", p);
	return buf;
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.4g", v);
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

void advice_verdict_print(FILE *out, const struct advice_run *r,
			  const struct verdict_opts *o, const struct verdict_result *v)
{
	int level = (int)lround((1.0 - o->alpha) * 100);

	fprintf(out, "Probe run %lld: %s, %s (%s is better), %s, started %s\n",
		(long long)r->run_id, r->workload[0] ? r->workload : "workload unknown",
		r->in.metric_name, r->in.metric == VERDICT_METRIC_THROUGHPUT ||
		r->in.metric == VERDICT_METRIC_HIGHER_BETTER ? "higher" : "lower", r->status,
		r->started_at);
	fprintf(out, "Baseline %s: %s\n", r->arms[v->baseline].name, r->baseline_source);
	if (v->kind == VERDICT_CHANGE)
		fprintf(out, "Verdict: CHANGE to %s (confidence %s)\n", r->arms[v->chosen].name,
			verdict_confidence_name(v->confidence));
	else if (v->kind == VERDICT_KEEP)
		fprintf(out, "Verdict: KEEP %s (confidence %s)\n", r->arms[v->baseline].name,
			verdict_confidence_name(v->confidence));
	else
		fprintf(out, "Verdict: INCONCLUSIVE (confidence %s)\n",
			verdict_confidence_name(v->confidence));
	fprintf(out, "\n  %-12s %-17s %5s %4s %10s %8s %9s  %-21s %7s %7s\n", "arm", "status",
		"n", "oom", "mean", "sd", "effect", "ci", "p", "p-perm");
	for (size_t i = 0; i < v->n_arms; i++) {
		const struct verdict_arm_result *a = &v->arms[i];
		char m[24], sd[24], eff[24], lo[24], hi[24], ci[48], p[16], pp[16];

		if (a->compared)
			snprintf(ci, sizeof(ci), "[%s, %s]", fmt_pct(lo, sizeof(lo), a->ci_low_pct),
				 fmt_pct(hi, sizeof(hi), a->ci_high_pct));
		else
			snprintf(ci, sizeof(ci), "-");
		fprintf(out, "  %-12s %-17s %5zu %4u %10s %8s %9s  %-21s %7s %7s\n", r->arms[i].name,
			verdict_arm_status_name(a->status), a->n, a->n_oom_killed,
			fmt_num(m, sizeof(m), a->mean), fmt_num(sd, sizeof(sd), a->stddev),
			fmt_pct(eff, sizeof(eff), a->compared ? a->effect_pct : NAN), ci,
			fmt_p(p, sizeof(p), a->compared ? a->p_welch : NAN),
			fmt_p(pp, sizeof(pp), a->compared ? a->p_perm : NAN));
	}
	fprintf(out, "  (effect: + is better than %s; %d %% confidence interval; Welch t-test and "
		"permutation p; minimum effect %.1f %%)\n", r->arms[v->baseline].name, level,
		o->min_effect_pct);
	for (size_t i = 0; i < v->n_arms; i++) {
		for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
			const struct verdict_secondary_result *sr = &v->arms[i].sec[s];
			char pct[24], p[16];

			if (!sr->vetoes)
				continue;
			fmt_p(p, sizeof(p), sr->p);
			fprintf(out, "  veto: %s costs %s more %s than %s (p %s%s): not recommended for that\n",
				r->arms[i].name, fmt_pct(pct, sizeof(pct), sr->change_pct),
				verdict_secondary_name(s), r->arms[v->baseline].name,
				p[0] == '<' ? "< " : "= ", p[0] == '<' ? p + 1 : p);
		}
		if (r->arms[i].emulated)
			fprintf(out, "  note: arm %s is emulated%s%s\n", r->arms[i].name,
				r->arms[i].note[0] ? ": " : "", r->arms[i].note);
		if (r->arms[i].n_failed)
			fprintf(out, "  note: arm %s had %u trial%s that failed to run (not counted)\n",
				r->arms[i].name, r->arms[i].n_failed, r->arms[i].n_failed == 1 ? "" : "s");
	}
	fprintf(out, "\nReasons:\n");
	for (size_t i = 0; i < v->n_reasons; i++)
		fprintf(out, "  - %s\n", v->reasons[i]);
	if (v->kind == VERDICT_CHANGE)
		fprintf(out, "\nTo apply: swaptune apply --run %lld\n", (long long)r->run_id);
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
			r->rule, r->message);
		if (r->fix[0])
			fprintf(out, "  fix: %s\n", r->fix);
		if (r->probe[0])
			fprintf(out, "  measure: %s\n", r->probe);
	}
	fprintf(out, "\nOther checks:\n");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct advisor_rule_result *r = &res[i];

			if (r->status == (pass ? ADVISOR_RULE_SKIPPED : ADVISOR_RULE_OK))
				fprintf(out, "  %-4s %s: %s\n", pass ? "skip" : "ok", r->rule, r->message);
		}
}

/* ---- helpers shared by apply, rollback and verify ---- */

int advice_diff(const struct host *h, const struct advice_setting *want, int n,
		struct advice_change *out, struct st_err *e)
{
	for (int i = 0; i < n; i++) {
		const struct setting_def *d = settings_find(want[i].name);
		struct advice_change *c = &out[i];
		int r;

		memset(c, 0, sizeof(*c));
		if (!d)
			return err_set(e, -EINVAL, "unknown setting \"%s\" (known: page-cluster, "
				       "vma_ra_enabled, zswap.enabled, zswap.compressor, "
				       "zswap.max_pool_percent, zswap.accept_threshold_percent, "
				       "zswap.shrinker_enabled)", want[i].name);
		snprintf(c->name, sizeof(c->name), "%s", d->name);
		snprintf(c->path, sizeof(c->path), "%s/%s", h->root, d->path);
		snprintf(c->sysctl, sizeof(c->sysctl), "%s", d->sysctl ? d->sysctl : "");
		r = settings_normalize(h, d, want[i].value, c->new_value, sizeof(c->new_value), e);
		if (r < 0)
			return r;
		r = settings_read(h, d, c->old_value, sizeof(c->old_value), e);
		if (r == -ENOENT)
			return err_set_exit(e, -ENOENT, ST_EXIT_DENIED,
					    "cannot set %s: this kernel has no %s", d->name, c->path);
		if (r < 0)
			return r;
		c->changed = !settings_equal(d, c->old_value, c->new_value);
		/* several mentions of one setting: the last wins, earlier ones are no-ops */
		for (int k = 0; k < i; k++)
			if (!strcmp(out[k].name, c->name))
				out[k].changed = false;
	}
	return 0;
}

int advice_change_begin(struct store *st, const struct host *h, const char *kind,
			const char *params_json, int64_t *run_id, int64_t *snap_id,
			struct st_err *e)
{
	struct settings_snapshot before;
	char reason[32];
	int r;

	if ((r = store_run_begin(st, kind, params_json, run_id, e)) < 0)
		return r;
	snprintf(reason, sizeof(reason), "before %s", kind);
	if ((r = settings_snapshot(h, &before, e)) < 0 ||
	    (r = store_snapshot_save(st, *run_id, reason, &before, snap_id, e)) < 0)
		store_run_end(st, *run_id, "failed", NULL, NULL);
	return r;
}

int advice_change_write(struct journal *j, const struct advice_change *ch, int n,
			const struct persist_plan *plan, int *n_files, struct st_err *e)
{
	int r;

	for (int i = 0; i < n; i++)
		if (ch[i].changed &&
		    (r = journal_set(j, ch[i].name, ch[i].new_value, true, NULL, 0, e)) < 0)
			return r;
	return plan ? persist_write(j->h, journal_hooks(j), plan, n_files, e) : 0;
}

int advice_ask(const char *question, bool yes, struct st_err *e)
{
	char line[32];

	if (yes)
		return 0;
	if (!isatty(STDIN_FILENO))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "not asking without a terminal: add --yes to %s", question);
	fprintf(stderr, "%s? [y/N] ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin) ||
	    (strcasecmp(line, "y\n") && strcasecmp(line, "yes\n")))
		return err_set_exit(e, -ECANCELED, ST_EXIT_RUNTIME, "nothing changed: not confirmed");
	return 0;
}

int advice_need_root(const struct host *h, const char *what, struct st_err *e)
{
	if (h->live && geteuid() != 0)
		return err_set_exit(e, -EPERM, ST_EXIT_DENIED,
				    "%s changes kernel settings and needs root (try sudo swaptune %s)",
				    what, what);
	return 0;
}

int advice_pending_confirm(struct store *st, const struct host *h,
			   struct advice_pending *p, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"SELECT c.run_id, c.session, c.pid, c.pid_start, count(*), r.params"
		" FROM changes c JOIN runs r ON r.id = c.run_id"
		" WHERE c.state = 'pending' AND c.sysroot = ?1 AND r.kind = 'apply'"
		" AND r.status = 'awaiting-confirm'"
		" GROUP BY c.session ORDER BY c.run_id DESC LIMIT 1", &stmt, e);

	if (r < 0)
		return r;
	memset(p, 0, sizeof(*p));
	sqlite3_bind_text(stmt, 1, h->live ? "/" : h->root, -1, SQLITE_STATIC);
	r = sqlite3_step(stmt);
	if (r == SQLITE_ROW) {
		cJSON *o = cJSON_Parse(col_text(stmt, 5)), *d;

		p->run_id = sqlite3_column_int64(stmt, 0);
		snprintf(p->session, sizeof(p->session), "%s", col_text(stmt, 1));
		p->pid = sqlite3_column_int(stmt, 2);
		p->pid_start = (uint64_t)sqlite3_column_int64(stmt, 3);
		p->n_rows = sqlite3_column_int(stmt, 4);
		d = o ? cJSON_GetObjectItem(o, "confirm_deadline_unix") : NULL;
		if (cJSON_IsNumber(d))
			p->deadline = d->valuedouble;
		cJSON_Delete(o);
		r = 1;
	} else if (r == SQLITE_DONE) {
		r = 0;
	} else {
		r = err_set(e, -EIO, "database %s: %s", st->path, sqlite3_errmsg(st->db));
	}
	sqlite3_finalize(stmt);
	return r;
}

cJSON *advice_change_json(const struct advice_change *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "setting", c->name);
	cJSON_AddStringToObject(o, "file", c->path);
	cJSON_AddStringToObject(o, "old", c->old_value);
	cJSON_AddStringToObject(o, "new", c->new_value);
	return o;
}

cJSON *advice_snapshot_json(const struct settings_snapshot *s)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < s->n; i++) {
		if (s->items[i].present)
			cJSON_AddStringToObject(o, s->items[i].name, s->items[i].value);
		else
			cJSON_AddNullToObject(o, s->items[i].name);
	}
	return o;
}

const char *advice_iso_time(double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

int advice_settle_confirms(struct store *st, struct st_err *e)
{
	return store_exec(st,
		"UPDATE runs SET status = 'reverted',"
		" ended_at = coalesce(ended_at, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
		" WHERE kind = 'apply' AND status = 'awaiting-confirm' AND NOT EXISTS"
		" (SELECT 1 FROM changes c WHERE c.run_id = runs.id AND c.state = 'pending')", e);
}
