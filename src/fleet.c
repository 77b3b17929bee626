/*
 * fleet.c - checking an export document before it may touch a store, and
 * pooling probe results across hosts (DerSimonian-Laird random effects).
 * No I/O here: commands read files and the store hands over fleet_run rows.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fingerprint.h"
#include "swaptune/fleet.h"
#include "swaptune/fmt.h"

/* ---- validation ---- */

/* Nesting depth of brackets outside strings, before cJSON recurses. */
static int depth_ok(const char *t, size_t len)
{
	int d = 0;
	bool str = false;

	for (size_t i = 0; i < len; i++) {
		char c = t[i];

		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '{' || c == '[') {
			if (++d > FLEET_DEPTH_MAX)
				return 0;
		} else if (c == '}' || c == ']') {
			d--;
		}
	}
	return 1;
}

struct vctx {
	struct st_err *e;
	char where[160];
};

static int bad(struct vctx *v, const char *key, const char *what)
{
	return err_set(v->e, -EBADMSG, "%s%s%s: %s", v->where, v->where[0] && key ? "." : "",
		       key ? key : "", what);
}

enum vtype { V_STR, V_STR_NULL, V_TIME, V_TIME_NULL, V_INT, V_NUM_NULL, V_BOOL, V_ARR, V_OBJ, V_ANY_TEXT };

/* Check member key of o; returns 0 or -EBADMSG. */
static int want(struct vctx *v, const cJSON *o, const char *key, enum vtype t, bool required)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!x)
		return required ? bad(v, key, "missing") : 0;
	switch (t) {
	case V_TIME_NULL:
		if (cJSON_IsNull(x))
			return 0;
		/* fall through */
	case V_TIME: {
		double when;

		if (!cJSON_IsString(x))
			return bad(v, key, "not a string");
		/* a UTC time the calendar has, 1970 to 9999, as swaptune writes it */
		if (fmt_parse_time(x->valuestring, &when) < 0 || when < 0 || when >= 253402300800.0)
			return bad(v, key, "not a date and time (YYYY-MM-DDTHH:MM:SS[.fff]Z, 1970-9999)");
		return 0;
	}
	case V_STR_NULL:
		if (cJSON_IsNull(x))
			return 0;
		/* fall through */
	case V_STR:
		if (!cJSON_IsString(x))
			return bad(v, key, "not a string");
		if (strlen(x->valuestring) > FLEET_STRING_MAX)
			return bad(v, key, "string too long");
		return 0;
	case V_INT:
		if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) ||
		    x->valuedouble != floor(x->valuedouble))
			return bad(v, key, "not an integer");
		if (x->valuedouble < 0)
			return bad(v, key, "negative");
		if (x->valuedouble > FLEET_ID_MAX)
			return bad(v, key, "number too large");
		return 0;
	case V_NUM_NULL:
		if (cJSON_IsNull(x))
			return 0;
		if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e300)
			return bad(v, key, "not a finite number");
		return 0;
	case V_BOOL:
		return cJSON_IsBool(x) ? 0 : bad(v, key, "not true or false");
	case V_ARR:
		if (!cJSON_IsArray(x))
			return bad(v, key, "not an array");
		return cJSON_GetArraySize(x) > FLEET_ROWS_MAX ? bad(v, key, "too many entries") : 0;
	case V_OBJ:
		return cJSON_IsObject(x) ? 0 : bad(v, key, "not an object");
	case V_ANY_TEXT:	/* JSON kept as text: object, string or null */
		if (cJSON_IsString(x) && strlen(x->valuestring) > FLEET_STRING_MAX)
			return bad(v, key, "string too long");
		return cJSON_IsObject(x) || cJSON_IsString(x) || cJSON_IsNull(x) ? 0 :
		       bad(v, key, "not an object, string or null");
	}
	return 0;
}

/* Every string anywhere below x is bounded (summaries, settings, data). */
static int strings_bounded(struct vctx *v, const cJSON *x, const char *key)
{
	const cJSON *c;

	if (x && x->string && strlen(x->string) > FLEET_STRING_MAX)
		return bad(v, key, "member name too long");
	if (x && x->string)
		key = x->string;
	if (cJSON_IsString(x) && strlen(x->valuestring) > FLEET_STRING_MAX)
		return bad(v, key, "string too long");
	if (cJSON_IsNumber(x) && (!isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e300))
		return bad(v, key, "not a finite number");
	cJSON_ArrayForEach(c, x)
		if (strings_bounded(v, c, key) < 0)
			return -EBADMSG;
	return 0;
}

struct field { const char *key; enum vtype t; bool required; };

static int want_all(struct vctx *v, const cJSON *o, const struct field *f)
{
	if (!cJSON_IsObject(o))
		return bad(v, NULL, "not an object");
	for (; f->key; f++)
		if (want(v, o, f->key, f->t, f->required) < 0)
			return -EBADMSG;
	return 0;
}

static const struct field run_fields[] = {
	{ "id", V_INT, true }, { "kind", V_STR, true }, { "status", V_STR, true },
	{ "started_at", V_TIME, true }, { "ended_at", V_TIME_NULL, true },
	{ "params", V_ANY_TEXT, true }, { "summary", V_ANY_TEXT, true },
	{ "arms", V_ARR, true }, { "trials", V_ARR, true }, { "snapshots", V_ARR, true },
	{ "changes", V_ARR, true }, { "samples", V_ARR, true },
	{ "windows", V_ARR, false },	/* switchback runs (exports since schema 6) */
	{ "kernel_fingerprint", V_ANY_TEXT, false },	/* exports since export schema 3 */
	{ NULL, 0, false },
};
static const struct field window_fields[] = {
	{ "idx", V_INT, true }, { "block", V_INT, true }, { "pos", V_INT, true },
	{ "arm", V_STR, true }, { "started_at", V_TIME, true }, { "start_s", V_NUM_NULL, true },
	{ "switch_s", V_NUM_NULL, true }, { "count_start_s", V_NUM_NULL, true },
	{ "end_s", V_NUM_NULL, true }, { "outcome", V_STR, true }, { "value", V_NUM_NULL, true },
	{ "failure", V_STR_NULL, false }, { "failed_at_s", V_NUM_NULL, false },
	{ "metrics", V_OBJ, true }, { NULL, 0, false },
};
static const struct field arm_fields[] = {
	{ "name", V_STR, true }, { "settings", V_ANY_TEXT, true }, { "emulated", V_BOOL, true },
	{ "note", V_STR_NULL, false }, { NULL, 0, false },
};
static const struct field trial_fields[] = {
	{ "arm", V_STR, true }, { "round", V_INT, true }, { "seq", V_INT, true },
	{ "warmup", V_BOOL, true }, { "status", V_STR, true }, { "started_at", V_TIME_NULL, false },
	{ "primary", V_NUM_NULL, true }, { "note", V_STR_NULL, false }, { "metrics", V_OBJ, true },
	{ NULL, 0, false },
};
static const struct field snapshot_fields[] = {
	{ "taken_at", V_TIME_NULL, false }, { "reason", V_STR, true },
	{ "settings", V_ANY_TEXT, true }, { NULL, 0, false },
};
static const struct field change_fields[] = {
	{ "kind", V_STR, true }, { "name", V_STR, true }, { "old", V_STR_NULL, true },
	{ "new", V_STR_NULL, true }, { "temporary", V_BOOL, true }, { "state", V_STR, true },
	{ "created_at", V_TIME_NULL, false }, { "finished_at", V_TIME_NULL, false },
	{ "note", V_STR_NULL, false }, { NULL, 0, false },
};
static const struct field sample_fields[] = {
	{ "seq", V_INT, true }, { "t_ns", V_INT, true }, { "data", V_ANY_TEXT, true },
	{ NULL, 0, false },
};
static const struct field host_fields[] = {
	{ "machine_id", V_STR, true }, { "hostname", V_STR, true }, { "kernel", V_STR_NULL, true },
	{ "cpu_model", V_STR_NULL, false }, { "boot_id", V_STR_NULL, false },
	{ "swaptune_version", V_STR, true }, { NULL, 0, false },
};

static int check_list(struct vctx *v, const cJSON *run, const char *key, const struct field *f,
		      const char *prefix)
{
	const cJSON *x;
	size_t plen = strlen(prefix);
	int i = 0;

	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, key)) {
		snprintf(v->where + plen, sizeof(v->where) - plen, ".%s[%d]", key, i++);
		if (want_all(v, x, f) < 0 || strings_bounded(v, x, NULL) < 0)
			return -EBADMSG;
	}
	v->where[plen] = '\0';
	return 0;
}

static bool arm_named(const cJSON *run, const char *name)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(run, "arms"))
		if (!strcmp(cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring, name))
			return true;
	return false;
}

static int check_run(struct vctx *v, const cJSON *run)
{
	char prefix[64];
	const cJSON *t, *m;
	int i = 0;

	snprintf(prefix, sizeof(prefix), "%s", v->where);
	if (want_all(v, run, run_fields) < 0)
		return -EBADMSG;
	if (!strcmp(cJSON_GetObjectItemCaseSensitive(run, "kind")->valuestring, "imported"))
		return bad(v, "kind", "\"imported\" is not a run kind");
	t = cJSON_GetObjectItemCaseSensitive(run, "kernel_fingerprint");
	if (t && !cJSON_IsNull(t)) {
		struct kernel_fingerprint fp;
		struct st_err e1 = {0};

		/* read as strictly as it is read back from the store */
		if (fingerprint_from_json(t, &fp, &e1) < 0)
			return bad(v, "kernel_fingerprint", e1.msg);
	}
	if (check_list(v, run, "arms", arm_fields, prefix) < 0 ||
	    check_list(v, run, "trials", trial_fields, prefix) < 0 ||
	    check_list(v, run, "snapshots", snapshot_fields, prefix) < 0 ||
	    check_list(v, run, "changes", change_fields, prefix) < 0 ||
	    check_list(v, run, "samples", sample_fields, prefix) < 0 ||
	    check_list(v, run, "windows", window_fields, prefix) < 0)
		return -EBADMSG;
	i = 0;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(run, "windows")) {
		snprintf(v->where, sizeof(v->where), "%s.windows[%d]", prefix, i++);
		if (!arm_named(run, cJSON_GetObjectItemCaseSensitive(t, "arm")->valuestring))
			return bad(v, "arm", "no arm of that name in the run");
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(t, "metrics"))
			if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble) || fabs(m->valuedouble) > 1e300)
				return bad(v, "metrics", "a value is not a finite number");
	}
	i = 0;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(run, "trials")) {
		snprintf(v->where, sizeof(v->where), "%s.trials[%d]", prefix, i++);
		if (!arm_named(run, cJSON_GetObjectItemCaseSensitive(t, "arm")->valuestring))
			return bad(v, "arm", "no arm of that name in the run");
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(t, "metrics"))
			if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble) || fabs(m->valuedouble) > 1e300)
				return bad(v, "metrics", "a value is not a finite number");
	}
	snprintf(v->where, sizeof(v->where), "%s", prefix);
	/* summaries, params and sample data are kept as text: bound them too */
	return strings_bounded(v, run, NULL);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The first key given twice in an object anywhere below x in *dup (NULL when
 * none): cJSON keeps both and its lookups find the first, so which one counts
 * would be the reader's guess. A sort per object (no object is quadratic).
 * -ENOMEM when the sort's list cannot be made.
 */
static int duplicate_key(const cJSON *x, const char **dup)
{
	const cJSON *c;

	*dup = NULL;
	if (cJSON_IsObject(x)) {
		size_t n = 0, i = 0;
		const char **names;

		cJSON_ArrayForEach(c, x)
			n++;
		if (n > 1) {
			if (!(names = malloc(n * sizeof(*names))))
				return -ENOMEM;
			cJSON_ArrayForEach(c, x)
				names[i++] = c->string ? c->string : "";
			qsort(names, n, sizeof(*names), name_cmp);
			for (i = 1; i < n && !*dup; i++)
				if (!strcmp(names[i - 1], names[i]))
					*dup = names[i];
			free(names);
		}
	}
	if (cJSON_IsObject(x) || cJSON_IsArray(x))
		cJSON_ArrayForEach(c, x) {
			int rc;

			if (*dup)
				break;
			if ((rc = duplicate_key(c, dup)))
				return rc;
		}
	return 0;
}

int fleet_doc_parse(const char *text, size_t len, cJSON **doc, struct st_err *e)
{
	struct vctx v = { .e = e };
	const cJSON *s, *runs, *run;
	cJSON *d;
	int i = 0;

	*doc = NULL;
	if (len > (size_t)FLEET_FILE_MAX_BYTES)
		return err_set(e, -EBADMSG, "larger than %ld bytes", FLEET_FILE_MAX_BYTES);
	if (memchr(text, '\0', len))
		return err_set(e, -EBADMSG, "contains a NUL byte: not a JSON text");
	if (!depth_ok(text, len))
		return err_set(e, -EBADMSG, "nested deeper than %d levels", FLEET_DEPTH_MAX);
	{
		const char *end = NULL;

		d = cJSON_ParseWithLengthOpts(text, len, &end, false);
		if (!d)
			return err_set(e, -EBADMSG, "not valid JSON (truncated or malformed)");
		/* one JSON text and nothing after it but blanks */
		while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
			end++;
		if (end < text + len) {
			cJSON_Delete(d);
			return err_set(e, -EBADMSG, "trailing data after the JSON document (at byte %zu)",
				       (size_t)(end - text));
		}
	}
	{
		const char *dup;

		if (duplicate_key(d, &dup)) {
			cJSON_Delete(d);
			return err_set(e, -ENOMEM, "out of memory checking the document's keys");
		}
		if (dup) {
			err_set(e, -EBADMSG, "the key \"%.64s\" is given twice in one object", dup);
			cJSON_Delete(d);
			return -EBADMSG;
		}
	}
	s = cJSON_GetObjectItemCaseSensitive(d, "schema");
	if (!cJSON_IsObject(d) || !cJSON_IsString(s)) {
		cJSON_Delete(d);
		return err_set(e, -EBADMSG, "not a swaptune export (no \"schema\")");
	}
	if (strcmp(s->valuestring, FLEET_EXPORT_SCHEMA)) {
		err_set(e, -EBADMSG, "schema \"%.64s\" is not %s", s->valuestring, FLEET_EXPORT_SCHEMA);
		cJSON_Delete(d);
		return -EBADMSG;
	}
	snprintf(v.where, sizeof(v.where), "host");
	if (want(&v, d, "host", V_OBJ, true) < 0 ||
	    want_all(&v, cJSON_GetObjectItemCaseSensitive(d, "host"), host_fields) < 0)
		goto fail;
	if (!cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "host"),
					       "machine_id")->valuestring[0]) {
		bad(&v, "machine_id", "empty");
		goto fail;
	}
	v.where[0] = '\0';
	if (want(&v, d, "exported_at", V_TIME, true) < 0 || want(&v, d, "runs", V_ARR, true) < 0)
		goto fail;
	runs = cJSON_GetObjectItemCaseSensitive(d, "runs");
	if (cJSON_GetArraySize(runs) > FLEET_RUNS_MAX) {
		bad(&v, "runs", "too many runs");
		goto fail;
	}
	cJSON_ArrayForEach(run, runs) {
		snprintf(v.where, sizeof(v.where), "runs[%d]", i++);
		if (check_run(&v, run) < 0)
			goto fail;
	}
	*doc = d;
	return 0;
fail:
	cJSON_Delete(d);
	return -EBADMSG;
}

void fleet_run_hash(const cJSON *run, char out[17])
{
	char *t = cJSON_PrintUnformatted(run);
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)(t ? t : ""); *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	cJSON_free(t);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ---- pooling ---- */

int fleet_pool_dl(const double *y, const double *v, size_t k, struct fleet_pooled *out,
		  struct st_err *e)
{
	double sw = 0, sw2 = 0, swy = 0, mu_fe, q = 0, c, tau2, sws = 0, swsy = 0;

	memset(out, 0, sizeof(*out));
	if (k == 0)
		return err_set(e, -EINVAL, "nothing to pool");
	for (size_t i = 0; i < k; i++) {
		double w;

		if (!isfinite(y[i]) || !isfinite(v[i]) || v[i] < 0)
			return err_set(e, -EINVAL, "effect %zu is not finite", i);
		w = 1.0 / fmax(v[i], 1e-12);
		sw += w;
		sw2 += w * w;
		swy += w * y[i];
	}
	mu_fe = swy / sw;
	for (size_t i = 0; i < k; i++)
		q += (y[i] - mu_fe) * (y[i] - mu_fe) / fmax(v[i], 1e-12);
	c = sw - sw2 / sw;
	tau2 = k > 1 && c > 0 ? fmax(0, (q - (double)(k - 1)) / c) : 0;
	for (size_t i = 0; i < k; i++) {
		double w = 1.0 / (fmax(v[i], 1e-12) + tau2);

		sws += w;
		swsy += w * y[i];
	}
	out->k = k;
	out->q = q;
	out->tau2 = tau2;
	out->mu = swsy / sws;
	out->se = sqrt(1.0 / sws);
	out->ci_low = out->mu - 1.959963984540054 * out->se;
	out->ci_high = out->mu + 1.959963984540054 * out->se;
	out->effect_pct = expm1(out->mu) * 100;
	out->ci_low_pct = expm1(out->ci_low) * 100;
	out->ci_high_pct = expm1(out->ci_high) * 100;
	return 0;
}

bool fleet_log_effect(const struct fleet_arm *c, const struct fleet_arm *b, double *y, double *v)
{
	if (c->n_ok < 2 || b->n_ok < 2 || !(c->mean > 0) || !(b->mean > 0) || !isfinite(c->sd) ||
	    !isfinite(b->sd))
		return false;
	*y = log(c->mean / b->mean);
	*v = c->sd * c->sd / (c->n_ok * c->mean * c->mean) +
	     b->sd * b->sd / (b->n_ok * b->mean * b->mean);
	return isfinite(*y) && isfinite(*v);
}

const char *fleet_backend_name(const char *swap_device, const char *swap_kind)
{
	if (swap_device && strstr(swap_device, "zram"))
		return "zram";
	if (!swap_kind || !swap_kind[0])
		return "unknown";
	if (!strcmp(swap_kind, "scratch-loop"))
		return "loop";
	return strcmp(swap_kind, "host") ? "unknown" : "disk";
}

void fleet_kernel_major_minor(const char *release, char *out, size_t len)
{
	unsigned a, b;
	int n = 0;

	if (sscanf(release, "%u.%u%n", &a, &b, &n) == 2 && n > 0)
		snprintf(out, len, "%u.%u", a, b);
	else if (len)
		out[0] = '\0';
}

/* Sign so that a positive pooled value means "better than the baseline". */
static double good_sign(const struct fleet_run *r)
{
	return r->higher_is_better ? 1.0 : -1.0;
}

static const struct fleet_arm *run_arm(const struct fleet_run *r, const char *name)
{
	for (size_t i = 0; i < r->n_arms; i++)
		if (!strcmp(r->arms[i].name, name))
			return &r->arms[i];
	return NULL;
}

/*
 * Pool every candidate arm over the runs selected by sel[]: effects are
 * log(candidate / baseline) signed so that > 0 is better.
 */
/* The runs pooled: n of them, picked from runs by index (sel). */
struct run_pick {
	const struct fleet_run *runs;
	const size_t *sel;
	size_t n;
};

static int pool_arms(const struct run_pick *pick, const char *baseline,
		     struct fleet_arm_pool *arms, size_t *n_arms, struct st_err *e)
{
	const struct fleet_run *runs = pick->runs;
	const size_t *sel = pick->sel;
	size_t n_sel = pick->n;
	double *y = calloc(n_sel + 1, sizeof(double)), *v = calloc(n_sel + 1, sizeof(double));
	int rc = 0;

	*n_arms = 0;
	if (!y || !v) {
		free(y);
		free(v);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n_sel; i++) {
		const struct fleet_run *r = &runs[sel[i]];

		for (size_t a = 0; a < r->n_arms; a++) {
			bool have = false;

			if (!strcmp(r->arms[a].name, baseline))
				continue;
			for (size_t j = 0; j < *n_arms; j++)
				have |= !strcmp(arms[j].name, r->arms[a].name);
			if (!have && *n_arms < FLEET_ARMS_MAX)
				snprintf(arms[(*n_arms)++].name, sizeof(arms[0].name), "%s", r->arms[a].name);
		}
	}
	for (size_t j = 0; j < *n_arms && rc == 0; j++) {
		size_t k = 0;

		for (size_t i = 0; i < n_sel; i++) {
			const struct fleet_run *r = &runs[sel[i]];
			const struct fleet_arm *c = run_arm(r, arms[j].name), *b = run_arm(r, baseline);

			if (c && b && fleet_log_effect(c, b, &y[k], &v[k])) {
				y[k] *= good_sign(r);
				k++;
			}
		}
		memset(&arms[j].pooled, 0, sizeof(arms[j].pooled));
		if (k > 0)
			rc = fleet_pool_dl(y, v, k, &arms[j].pooled, e);
	}
	free(y);
	free(v);
	return rc;
}

static size_t count_hosts(const struct fleet_run *runs, const size_t *sel, size_t n_sel)
{
	size_t hosts = 0;

	for (size_t i = 0; i < n_sel; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(runs[sel[j]].machine_id, runs[sel[i]].machine_id);
		hosts += !seen;
	}
	return hosts;
}

bool fleet_run_in_group(const struct fleet_run *r, const struct fleet_group *g)
{
	return !strcmp(r->kernel, g->kernel) && !strcmp(r->cpu_model, g->cpu_model) &&
	       !strcmp(r->backend, g->backend) && !strcmp(r->workload, g->workload) &&
	       !strcmp(r->baseline, g->baseline);
}

static bool same_group(const struct fleet_run *r, const struct fleet_group *g)
{
	return fleet_run_in_group(r, g);
}

static int group_cmp(const void *a, const void *b)
{
	const struct fleet_group *x = a, *y = b;
	int c;

	if (x->n_runs != y->n_runs)
		return x->n_runs > y->n_runs ? -1 : 1;
	if ((c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->cpu_model, y->cpu_model)) ||
	    (c = strcmp(x->backend, y->backend)) || (c = strcmp(x->workload, y->workload)))
		return c;
	return strcmp(x->baseline, y->baseline);
}

static void group_tally(struct fleet_group *g, const struct fleet_run *r)
{
	const char *vk = r->verdict[0] ? r->verdict : "none";
	size_t j;

	for (size_t a = 0; a < r->n_arms; a++) {
		g->n_trials += r->arms[a].n_trials;
		g->n_oom += r->arms[a].n_oom;
	}
	for (j = 0; j < g->n_verdicts; j++)
		if (!strcmp(g->verdicts[j].kind, vk))
			break;
	if (j == g->n_verdicts && j < FLEET_VERDICTS_MAX)
		snprintf(g->verdicts[g->n_verdicts++].kind, sizeof(g->verdicts[0].kind), "%s", vk);
	if (j < g->n_verdicts)
		g->verdicts[j].n++;
}

int fleet_group_runs(const struct fleet_run *runs, size_t n, struct fleet_group **groups,
		     size_t *n_groups, struct st_err *e)
{
	struct fleet_group *g = calloc(n ? n : 1, sizeof(*g));
	size_t *sel = calloc(n ? n : 1, sizeof(*sel)), ng = 0;
	int rc = 0;

	*groups = NULL;
	*n_groups = 0;
	if (!g || !sel) {
		free(g);
		free(sel);
		return err_set(e, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < ng && !same_group(&runs[i], &g[j]); j++)
			;
		if (j == ng) {
			snprintf(g[j].kernel, sizeof(g[j].kernel), "%s", runs[i].kernel);
			snprintf(g[j].cpu_model, sizeof(g[j].cpu_model), "%s", runs[i].cpu_model);
			snprintf(g[j].backend, sizeof(g[j].backend), "%s", runs[i].backend);
			snprintf(g[j].workload, sizeof(g[j].workload), "%s", runs[i].workload);
			snprintf(g[j].baseline, sizeof(g[j].baseline), "%s", runs[i].baseline);
			ng++;
		}
		g[j].n_runs++;
		group_tally(&g[j], &runs[i]);
	}
	for (size_t j = 0; j < ng && rc == 0; j++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (same_group(&runs[i], &g[j]))
				sel[k++] = i;
		g[j].n_hosts = count_hosts(runs, sel, k);
		rc = pool_arms(&(struct run_pick){ runs, sel, k }, g[j].baseline, g[j].arms,
			       &g[j].n_arms, e);
	}
	free(sel);
	if (rc < 0) {
		free(g);
		return rc;
	}
	qsort(g, ng, sizeof(*g), group_cmp);
	*groups = g;
	*n_groups = ng;
	return 0;
}

static bool target_match(const struct fleet_run *r, const struct fleet_target *t)
{
	char mm[32];

	fleet_kernel_major_minor(r->kernel, mm, sizeof(mm));
	return (!t->kernel_mm[0] || !strcmp(mm, t->kernel_mm)) &&
	       (!t->backend[0] || !strcmp(r->backend, t->backend)) &&
	       (!t->workload[0] || !strcmp(r->workload, t->workload));
}

int fleet_advise(const struct fleet_run *runs, size_t n, const struct fleet_target *t,
		 struct fleet_advice *out, struct st_err *e)
{
	size_t *sel = calloc(n ? n : 1, sizeof(*sel)), k = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->matched = *t;
	out->best = -1;
	if (!sel)
		return err_set(e, -ENOMEM, "out of memory");
	/* the most common baseline among matching runs */
	for (size_t i = 0; i < n; i++) {
		size_t c = 0, best_c = 0;

		if (!target_match(&runs[i], t))
			continue;
		for (size_t j = 0; j < n; j++)
			c += target_match(&runs[j], t) && !strcmp(runs[j].baseline, runs[i].baseline);
		for (size_t j = 0; j < n && out->baseline[0]; j++)
			best_c += target_match(&runs[j], t) && !strcmp(runs[j].baseline, out->baseline);
		if (c > best_c)
			snprintf(out->baseline, sizeof(out->baseline), "%s", runs[i].baseline);
	}
	for (size_t i = 0; i < n; i++)
		if (target_match(&runs[i], t) && !strcmp(runs[i].baseline, out->baseline))
			sel[k++] = i;
	out->n_runs = k;
	out->n_hosts = count_hosts(runs, sel, k);
	out->enough = k >= FLEET_MIN_RUNS && out->n_hosts >= FLEET_MIN_HOSTS;
	rc = pool_arms(&(struct run_pick){ runs, sel, k }, out->baseline, out->arms, &out->n_arms,
		       e);
	free(sel);
	if (rc < 0)
		return rc;
	for (size_t j = 0; j < out->n_arms; j++) {
		const struct fleet_pooled *p = &out->arms[j].pooled;

		if (p->k > 0 && (out->best < 0 || p->mu > out->arms[out->best].pooled.mu))
			out->best = (int)j;
	}
	if (out->best >= 0)
		out->best_significant = out->arms[out->best].pooled.ci_low > 0;
	return 0;
}
