/*
 * recipe.c - a stored probe run's params read back into a validated
 * struct probe_config (recipe.h): the numeric values through one table with
 * the command line's ranges, the workload, its command, the arms and the
 * baseline through the same lookups and parsers `probe` uses.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fmt.h"
#include "swaptune/metric-extract.h"
#include "swaptune/recipe.h"

#define SEED_MAX 9007199254740991.0	/* 2^53 - 1: --seed's limit */
#define DAY_S 86400.0

#define F(sec, k, opt, show, ty, member, lo, hi, intg, id, words) \
	{ sec, k, opt, show, ty, offsetof(struct probe_config, member), lo, hi, intg, id, words }

/*
 * In the rerun line's order, the workloads' own parameters after
 * --duration (see fields_make()). Ranges as `probe` checks its options:
 * fmt_parse_size() (1..FMT_SIZE_MAX), positive counts, --seed below 2^53,
 * --duration >= 100 ms, --min-trial/--max-time up to a day, --reps 1..,
 * --max-reps 2..PROBE_REPS_MAX.
 */
static const struct recipe_field fields_before[] = {
	/* not on the rerun line: a re-run draws a fresh seed (the report says how to reproduce) */
	F("method", "seed", "--seed", RECIPE_SHOW_NONE, RECIPE_U64, seed, 0, SEED_MAX, true, false,
	  "a whole number below 2^53"),
	F("workload", "working_set_bytes", "--working-set", RECIPE_SHOW_SIZE, RECIPE_U64, wp.working_set_bytes,
	  1, FMT_SIZE_MAX, true, true, "a size from 1 byte to 1 EiB"),
	F("memcg", "limit_bytes", "--memcg-limit", RECIPE_SHOW_SIZE, RECIPE_U64, memcg_limit_bytes,
	  1, FMT_SIZE_MAX, true, true, "a size from 1 byte to 1 EiB"),
	/* 0 = two passes, as the writer stores an uncalibrated run */
	F("workload", "ops", "--ops", RECIPE_SHOW_NONE, RECIPE_U64, wp.ops, 0, SEED_MAX, true, false,
	  "a whole number below 2^53"),
	F("method", "duration_cap_s", "--duration", RECIPE_SHOW_SECS, RECIPE_DOUBLE, duration_s, 0.1, 9.2e9,
	  false, false, "a duration of at least 100ms"),
};

static const struct recipe_field fields_after[] = {
	F("workload", "seed", NULL, RECIPE_SHOW_NONE, RECIPE_U64, wp.seed, 0, SEED_MAX, true, false,
	  "a whole number below 2^53"),
	F("method", "reps", "--reps", RECIPE_SHOW_NONE, RECIPE_UINT, reps, 1, PROBE_REPS_MAX, true, false,
	  "a number of rounds"),
	F("method", "max_reps", "--max-reps", RECIPE_SHOW_NONE, RECIPE_UINT, max_reps, 2, PROBE_REPS_MAX, true,
	  false, "a number of rounds"),
	F("method", "min_trial_s", "--min-trial", RECIPE_SHOW_NONE, RECIPE_DOUBLE, min_trial_s, 0, DAY_S, false,
	  true, "a duration up to a day"),
	F("method", "max_time_s", "--max-time", RECIPE_SHOW_NONE, RECIPE_DOUBLE, max_time_s, 0, DAY_S, false,
	  false, "a duration up to a day"),
};

#define NBEFORE (sizeof(fields_before) / sizeof(fields_before[0]))
#define NAFTER (sizeof(fields_after) / sizeof(fields_after[0]))
#define FIELDS_MAX (NBEFORE + WORKLOAD_PARAMS_MAX + NAFTER)

_Static_assert(FIELDS_MAX <= sizeof(((struct recipe *)0)->have) / sizeof(bool),
	       "struct recipe's have[] holds every field");

static struct recipe_field fields[FIELDS_MAX];
static char field_options[WORKLOAD_PARAMS_MAX][48];
static size_t nfields;

/*
 * A workload's own parameter as a field: the option's parser says its type
 * and how the rerun line shows it, its bounds are the reader's (whole
 * numbers below 2^53, as JSON holds them exactly), it is part of the
 * recipe's identity.
 */
static void field_of_param(const struct workload_param *q, struct recipe_field *f, char *option,
			   size_t len)
{
	bool real = workload_param_is_real(q), size = q->opt.parse == opt_parse_size;
	double max = real ? q->opt.hi : size ? FMT_SIZE_MAX : SEED_MAX;

	snprintf(option, len, "--%s", q->opt.name);
	if (!real && q->opt.max > 0 && (double)q->opt.max < max)
		max = (double)q->opt.max;
	*f = (struct recipe_field){
		.section = "workload", .key = q->key, .option = option,
		.show = real ? RECIPE_SHOW_REAL : size ? RECIPE_SHOW_SIZE : RECIPE_SHOW_INT,
		.type = real ? RECIPE_DOUBLE : RECIPE_U64,
		.offset = offsetof(struct probe_config, wp) + q->opt.off,
		.min = real ? q->opt.lo : (double)q->opt.min, .max = max,
		.integer = !real, .identity = true, .range = q->range,
	};
}

/* The table, made once: the rows above with the workloads' parameters between them. */
static void fields_build(void)
{
	const struct workload_param *q;

	for (size_t i = 0; i < NBEFORE; i++)
		fields[nfields++] = fields_before[i];
	for (size_t i = 0; i < WORKLOAD_PARAMS_MAX && (q = workload_param_at(i)); i++, nfields++)
		field_of_param(q, &fields[nfields], field_options[i], sizeof(field_options[i]));
	for (size_t i = 0; i < NAFTER; i++)
		fields[nfields++] = fields_after[i];
}

/* once per process, whichever thread (the TUI's screen or its engine) asks first */
static void fields_make(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, fields_build);
}

size_t recipe_field_count(void)
{
	fields_make();
	return nfields;
}

const struct recipe_field *recipe_field_at(size_t i)
{
	fields_make();
	return i < nfields ? &fields[i] : NULL;
}

int recipe_field_find(const char *section, const char *key)
{
	const struct recipe_field *f;

	for (size_t i = 0; (f = recipe_field_at(i)); i++)
		if (!strcmp(f->section, section) && !strcmp(f->key, key))
			return (int)i;
	return -1;
}

double recipe_value(const struct recipe *r, size_t i)
{
	const struct recipe_field *f;
	const char *p;

	if (i >= recipe_field_count() || !r->have[i])
		return NAN;
	f = recipe_field_at(i);
	p = (const char *)&r->c + f->offset;
	switch (f->type) {
	case RECIPE_U64: return (double)*(const uint64_t *)(const void *)p;
	case RECIPE_UINT: return (double)*(const unsigned *)(const void *)p;
	default: return *(const double *)(const void *)p;
	}
}

static int refuse(struct st_err *e, const struct recipe *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct st_err *e, const struct recipe *r, const char *fmt, ...)
{
	char msg[ST_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME, "probe run %lld: %s; its recipe is refused",
			    (long long)r->run_id, msg);
}

/* A JSON value for the message: numbers as %g, strings quoted and cut. */
static void show(const cJSON *x, char *buf, size_t len)
{
	if (cJSON_IsNumber(x))
		snprintf(buf, len, "%g", x->valuedouble);
	else if (cJSON_IsString(x))
		snprintf(buf, len, "\"%.60s%s\"", x->valuestring, strlen(x->valuestring) > 60 ? "..." : "");
	else
		snprintf(buf, len, "%s", cJSON_IsNull(x) ? "null" : cJSON_IsBool(x) ? "a boolean" :
			 cJSON_IsArray(x) ? "an array" : "an object");
}

static int read_fields(const cJSON *root, struct recipe *r, struct st_err *e)
{
	for (size_t i = 0; i < recipe_field_count(); i++) {
		const struct recipe_field *f = recipe_field_at(i);
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(root, f->section), f->key);
		char *p = (char *)&r->c + f->offset, v[80];
		double d;

		if (!x)
			continue;
		d = cJSON_IsNumber(x) ? x->valuedouble : NAN;
		if (!isfinite(d) || d < f->min || d > f->max || (f->integer && d != floor(d))) {
			char bounds[48] = "";

			/* a small whole range in numbers ("1..199"); the others say it in words */
			if (f->integer && f->max < 1e6)
				snprintf(bounds, sizeof(bounds), " %.0f..%.0f", f->min, f->max);
			show(x, v, sizeof(v));
			return refuse(e, r, "%s.%s %s is not %s%s%s%s%s", f->section, f->key, v, f->range,
				      bounds, f->option ? " (as " : "", f->option ? f->option : "",
				      f->option ? " takes)" : "");
		}
		r->have[i] = true;
		if (f->type == RECIPE_U64)
			*(uint64_t *)(void *)p = (uint64_t)d;
		else if (f->type == RECIPE_UINT)
			*(unsigned *)(void *)p = (unsigned)d;
		else
			*(double *)(void *)p = d;
	}
	return 0;
}

/* true/false, or absent (dflt); anything else is refused. */
/* A true-or-false item of the recipe: its section, key and the value when absent. */
struct recipe_flag {
	const char *sec, *key;
	bool dflt;
};

static const struct recipe_flag flag_per_cpu_second = {
	"method.busy_host", "per_cpu_second", false
};
static const struct recipe_flag flag_scaled = { "method.busy_host", "scaled", false };
static const struct recipe_flag flag_warmup = { "method", "warmup", true };
static const struct recipe_flag flag_adaptive = { "method", "adaptive", false };
static const struct recipe_flag flag_drop_host_caches = { "method", "drop_host_caches", false };

static int read_bool(const cJSON *o, const struct recipe_flag *f, bool *out, struct recipe *r,
		     struct st_err *e)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, f->key);
	char v[80];

	if (!x) {
		*out = f->dflt;
		return 0;
	}
	if (!cJSON_IsBool(x)) {
		show(x, v, sizeof(v));
		return refuse(e, r, "%s.%s %s is not true or false", f->sec, f->key, v);
	}
	*out = cJSON_IsTrue(x);
	return 0;
}

/* A string item, or NULL when absent; -EBADMSG when present but not a string. */
static int read_str(const cJSON *o, const char *sec, const char *key, const char **out,
		    struct recipe *r, struct st_err *e)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	char v[80];

	*out = NULL;
	if (!x)
		return 0;
	if (!cJSON_IsString(x)) {
		show(x, v, sizeof(v));
		return refuse(e, r, "%s%s%s %s is not a string", sec, *sec ? "." : "", key, v);
	}
	*out = x->valuestring;
	return 0;
}

/* The cmd workload's command, metric and user, as `probe --workload cmd` takes them. */
static int read_cmd(const cJSON *w, const struct advice_run *run, struct recipe *r,
		    struct st_err *e)
{
	struct probe_config *c = &r->c;
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(w, "argv"), *it, *uid;
	const char *re, *spec;
	int n = 0, rc;
	char v[80];

	if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) == 0)
		return refuse(e, r, "workload cmd without a command (workload.argv)");
	if (cJSON_GetArraySize(argv) > RECIPE_ARGV_MAX)
		return refuse(e, r, "workload.argv has %d words, more than %d", cJSON_GetArraySize(argv),
			      RECIPE_ARGV_MAX);
	cJSON_ArrayForEach(it, argv) {
		if (!cJSON_IsString(it) || (n == 0 && !*it->valuestring)) {
			show(it, v, sizeof(v));
			return refuse(e, r, "workload.argv word %d, %s, is not a command word", n + 1, v);
		}
		if (!(r->argv[n++] = strdup(it->valuestring)))
			return err_set(e, -ENOMEM, "out of memory");
	}
	c->wp.argv = r->argv;
	if ((rc = read_str(w, "workload", "metric_regex", &re, r, e)) < 0 ||
	    (rc = read_str(w, "workload", "metric", &spec, r, e)) < 0)
		return rc;
	if (re && strlen(re) >= sizeof(c->wp.metric_regex))
		return refuse(e, r, "workload.metric_regex is too long (as --metric-regex refuses it)");
	if (re && spec)
		return refuse(e, r, "workload.metric_regex and workload.metric: one of them, as probe takes");
	if (spec) {
		char why[400];
		bool hb;

		if (strlen(spec) >= sizeof(c->wp.metric_spec) ||
		    metric_spec_check(spec, &hb, why, sizeof(why)) < 0)
			return refuse(e, r, "workload.metric \"%.60s\" is not a metric --metric takes", spec);
	}
	snprintf(c->wp.metric_regex, sizeof(c->wp.metric_regex), "%s", re ? re : "");
	snprintf(c->wp.metric_spec, sizeof(c->wp.metric_spec), "%s", spec ? spec : "");
	c->primary = re || spec ? PROBE_PRIMARY_METRIC : PROBE_PRIMARY_WALL;
	c->metric_higher_better = run->in2.metric != VERDICT_METRIC_LOWER_BETTER;
	uid = cJSON_GetObjectItemCaseSensitive(w, "run_as_uid");
	if (uid) {
		struct passwd *pw = cJSON_IsNumber(uid) && uid->valuedouble >= 0 &&
				    uid->valuedouble < 4294967295.0 && uid->valuedouble == floor(uid->valuedouble) ?
				    getpwuid((uid_t)uid->valuedouble) : NULL;

		if (!pw) {
			show(uid, v, sizeof(v));
			return refuse(e, r, "workload.run_as_uid %s is no user of this host (as --user takes)", v);
		}
		c->wp.run_as_uid = pw->pw_uid;
		c->wp.run_as_gid = pw->pw_gid;
	}
	return 0;
}

static int read_workload(const cJSON *root, const struct advice_run *run, struct recipe *r,
			 struct st_err *e)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "workload");
	const char *name = NULL;
	int rc;

	if (!cJSON_IsObject(w))
		return refuse(e, r, "no workload stored");
	if ((rc = read_str(w, "workload", "name", &name, r, e)) < 0)
		return rc;
	if (!name)
		name = run->workload;
	r->c.workload = workload_find(name);
	if (!r->c.workload) {
		return refuse(e, r, "workload \"%.80s\" is not a workload of this build", name);
	}
	if (r->c.workload->pattern == WORKLOAD_PAT_NONE)
		return read_cmd(w, run, r, e);
	/* a built-in workload takes no command, no metric and no user */
	for (const char *const *k = (const char *const[]){ "argv", "metric_regex", "metric",
							   "run_as_uid", NULL }; *k; k++)
		if (cJSON_GetObjectItemCaseSensitive(w, *k))
			return refuse(e, r, "workload.%s with the built-in workload %s (only --workload cmd takes it)",
				      *k, r->c.workload->name);
	r->c.primary = PROBE_PRIMARY_THROUGHPUT;
	return 0;
}

/* "adapt, ignore or per-cpu": the --busy-host values, from the option's table */
static void busy_modes_words(char *out, size_t n)
{
	size_t k = 0;

	out[0] = 0;
	for (size_t i = 0; probe_busy_modes[i] && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, "%s%s", i == 0 ? "" : probe_busy_modes[i + 1] ? ", " : " or ",
				      probe_busy_modes[i]);
}

/*
 * What the look saw: idle CPUs below PROBE_BUSY_IDLE_MIN (the object is
 * written for a busy host), or with per-cpu anything up to the CPUs counted,
 * or nothing at all (per-cpu where the look saw nothing: both absent).
 */
static int read_busy_look(const cJSON *b, bool per_cpu_mode, struct recipe *r, struct st_err *e)
{
	struct probe_busy *pb = &r->c.busy;
	const cJSON *idle = cJSON_GetObjectItemCaseSensitive(b, "idle_cpus");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(b, "cpus");
	double hi = per_cpu_mode ? 65536 : PROBE_BUSY_IDLE_MIN;
	char v[80];

	if (per_cpu_mode && !idle && !x)
		return 0;
	if (!cJSON_IsNumber(idle) || !(idle->valuedouble >= 0 && (per_cpu_mode ? idle->valuedouble <= hi :
								   idle->valuedouble < hi))) {
		show(idle, v, sizeof(v));
		return refuse(e, r, "method.busy_host.idle_cpus %s is not a number from 0 to %s%g",
			      idle ? v : "(absent)", per_cpu_mode ? "" : "below ", hi);
	}
	if (!cJSON_IsNumber(x) || !(x->valuedouble >= 1 && x->valuedouble <= 65536) ||
	    x->valuedouble != floor(x->valuedouble)) {
		show(x, v, sizeof(v));
		return refuse(e, r, "method.busy_host.cpus %s is not a whole number of CPUs 1..65536",
			      x ? v : "(absent)");
	}
	if (idle->valuedouble > x->valuedouble)
		return refuse(e, r, "method.busy_host.idle_cpus %g is more than its %g CPUs", idle->valuedouble,
			      x->valuedouble);
	pb->idle_cpus = idle->valuedouble;
	pb->cpus = (unsigned)x->valuedouble;
	pb->known = true;
	pb->busy = pb->idle_cpus < PROBE_BUSY_IDLE_MIN;
	x = cJSON_GetObjectItemCaseSensitive(b, "runnable");
	if (x && (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble <= 1e6))) {
		show(x, v, sizeof(v));
		return refuse(e, r, "method.busy_host.runnable %s is not a number of tasks 0..1000000", v);
	}
	pb->runnable = x ? x->valuedouble : 0;
	pb->share = probe_busy_share(pb->cpus, pb->runnable, x != NULL);
	return 0;
}

/*
 * method.busy_host (probe-busy.c): the look before the run, repeated as it
 * was (a re-run judges per CPU second when the run did; the sizes stored are
 * already the halved ones, so nothing is halved again). Whether the metric
 * suits the arms is checked once they are read (recipe_read()).
 */
static int read_busy(const cJSON *b, struct recipe *r, struct st_err *e)
{
	struct probe_busy *pb = &r->c.busy;
	const cJSON *x;
	const char *mode;
	char v[80];
	size_t k;
	int rc;

	if (!b)
		return 0;
	if (!cJSON_IsObject(b))
		return refuse(e, r, "method.busy_host is not an object");
	if ((rc = read_str(b, "method.busy_host", "mode", &mode, r, e)) < 0)
		return rc;
	for (k = 0; mode && probe_busy_modes[k] && strcmp(mode, probe_busy_modes[k]); k++)
		;
	if (!mode || !probe_busy_modes[k]) {
		busy_modes_words(v, sizeof(v));
		return refuse(e, r, "method.busy_host.mode %s%.60s%s is not %s (as --busy-host takes)",
			      mode ? "\"" : "", mode ? mode : "(absent)", mode ? "\"" : "", v);
	}
	r->c.busy_mode = (enum probe_busy_mode)k;
	if ((rc = read_busy_look(b, r->c.busy_mode == PROBE_BUSY_PER_CPU, r, e)) < 0)
		return rc;
	if ((rc = read_bool(b, &flag_per_cpu_second, &pb->per_cpu, r, e)) < 0 ||
	    (rc = read_bool(b, &flag_scaled, &pb->scaled, r, e)) < 0)
		return rc;
	if (pb->per_cpu && r->c.busy_mode == PROBE_BUSY_IGNORE)
		return refuse(e, r, "method.busy_host says per CPU second with --busy-host ignore");
	if (r->c.busy_mode == PROBE_BUSY_PER_CPU && (!pb->per_cpu || pb->scaled))
		return refuse(e, r, "method.busy_host says %s with --busy-host per-cpu",
			      pb->scaled ? "scaled sizes" : "wall time");
	if (pb->scaled) {
		x = cJSON_GetObjectItemCaseSensitive(b, "scale");
		if (!cJSON_IsNumber(x) || x->valuedouble != PROBE_BUSY_SCALE) {
			show(x, v, sizeof(v));
			return refuse(e, r, "method.busy_host.scale %s is not %g", x ? v : "(absent)",
				      PROBE_BUSY_SCALE);
		}
		pb->scale = x->valuedouble;
		pb->ws_was = (uint64_t)((double)r->c.wp.working_set_bytes / pb->scale);
		pb->limit_was = (uint64_t)((double)r->c.memcg_limit_bytes / pb->scale);
	}
	if (pb->per_cpu && r->c.primary != PROBE_PRIMARY_METRIC)
		r->c.primary = PROBE_PRIMARY_CPU;
	return 0;
}

static int read_method(const cJSON *root, struct recipe *r, struct st_err *e)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "memcg");
	const char *mode;
	int rc;

	if ((rc = read_str(m, "memcg", "limit_mode", &mode, r, e)) < 0)
		return rc;
	if (mode && strcmp(mode, "max") && strcmp(mode, "high") && strcmp(mode, "limit_in_bytes")) {
		return refuse(e, r, "memcg.limit_mode \"%.80s\" is not max, high or limit_in_bytes", mode);
	}
	r->limit_high = mode && !strcmp(mode, "high");
	r->c.limit_mode = r->limit_high ? MEMCG_LIMIT_HIGH : MEMCG_LIMIT_MAX;
	m = cJSON_GetObjectItemCaseSensitive(root, "method");
	if ((rc = read_bool(m, &flag_warmup, &r->c.warmup, r, e)) < 0 ||
	    (rc = read_bool(m, &flag_adaptive, &r->c.adaptive, r, e)) < 0 ||
	    (rc = read_bool(m, &flag_drop_host_caches, &r->c.drop_host_caches, r, e)) < 0)
		return rc;
	return read_busy(cJSON_GetObjectItemCaseSensitive(m, "busy_host"), r, e);
}

/* The analysis plan as advice_load_run() read it; its looks as --looks takes them. */
static int read_plan(const cJSON *root, const struct advice_run *run, struct recipe *r,
		     struct st_err *e)
{
	struct probe_config *c = &r->c;

	r->have_plan = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "plan"));
	if (r->have_plan && !run->plan.recorded)
		return refuse(e, r, "plan.looks are not increasing rounds 2..%d", PROBE_REPS_MAX);
	if (run->plan.recorded) {
		for (size_t i = 0; i < run->plan.n_looks; i++)
			if (run->plan.looks[i] > PROBE_REPS_MAX)
				return refuse(e, r, "plan look %u is more than %d rounds (as --looks takes)",
					      run->plan.looks[i], PROBE_REPS_MAX);
		c->plan = run->plan;
	} else {
		judge_plan_fixed(&c->plan, c->reps ? c->reps : 3);
	}
	if (!c->plan.sequential)
		c->reps = c->max_reps = c->plan.looks[c->plan.n_looks - 1];
	return 0;
}

/* An arm as stored: a built-in by name, else NAME:key=value,... through probe_arm_parse(). */
static int read_arm(const struct host *h, const struct advice_arm *sa, struct recipe *r,
		    struct probe_arm *pa, struct st_err *e)
{
	char spec[1024];
	size_t off;

	if (probe_arm_builtin(sa->name, pa) == 0) {
		for (int k = 0; k < sa->n_settings; k++)
			if (!strcmp(sa->settings[k].name, "swap") && !strcmp(sa->settings[k].value, "zram") &&
			    pa->bypass)
				r->c.bypass_mode = PROBE_BYPASS_ZRAM;
		return 0;
	}
	if (!h)
		return refuse(e, r, "arm \"%.80s\" has custom settings and no host to check them against",
			      sa->name);
	off = (size_t)snprintf(spec, sizeof(spec), "%s:", sa->name);
	for (int k = 0; k < sa->n_settings && off < sizeof(spec); k++)
		off += (size_t)snprintf(spec + off, sizeof(spec) - off, "%s%s=%s", k ? "," : "",
					sa->settings[k].name, sa->settings[k].value);
	if (off >= sizeof(spec))
		return refuse(e, r, "arm \"%.80s\" has settings too long for an --arm",
			      sa->name);
	if (probe_arm_parse(h, spec, pa, e) < 0) {
		char why[ST_ERR_MSG_MAX];

		/* the parser's reason, as a refusal of the stored recipe (exit 1, not a usage error) */
		snprintf(why, sizeof(why), "%s", e->msg);
		err_reset(e);
		return refuse(e, r, "%.200s", why);
	}
	return 0;
}

static int read_arms(const struct host *h, const cJSON *root, const struct advice_run *run,
		     struct recipe *r, struct st_err *e)
{
	struct probe_config *c = &r->c;
	const char *base;
	int rc;

	if (run->n_arms == 0)
		return refuse(e, r, "no arms stored");
	if (run->n_arms > PROBE_ARMS_MAX)
		return refuse(e, r, "%zu arms, more than %d", run->n_arms, PROBE_ARMS_MAX);
	for (size_t i = 0; i < run->n_arms; i++) {
		if ((rc = read_arm(h, &run->arms[i], r, &c->arms[i], e)) < 0)
			return rc;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(c->arms[k].name, c->arms[i].name))
				return refuse(e, r, "arm %s is stored twice", c->arms[i].name);
		c->narms = (int)i + 1;
	}
	if ((rc = read_str(root, "", "baseline", &base, r, e)) < 0)
		return rc;
	r->have_baseline = base != NULL;
	c->baseline = -1;
	for (int i = 0; i < c->narms; i++)
		if (!strcmp(c->arms[i].name, base ? base : run->arms[0].name))
			c->baseline = i;
	if (base && c->baseline < 0)
		return refuse(e, r, "baseline \"%.80s\" is not one of the arms (as --baseline refuses it)",
			      base);
	for (size_t i = 0; c->baseline < 0 && i < run->n_arms; i++)
		if (run->in2.arms[i].is_baseline)
			c->baseline = (int)i;
	return 0;
}

/*
 * A run judged per CPU second had no metric of its own and no arm whose
 * I/O waits CPU time would miss (probe_busy_per_cpu_refused(), as `probe
 * --busy-host per-cpu` refuses them): a stored one that says otherwise is
 * refused.
 */
static int read_per_cpu_fits(struct recipe *r, struct st_err *e)
{
	char why[160];

	if (r->c.busy.per_cpu && probe_busy_per_cpu_refused(&r->c, why, sizeof(why)))
		return refuse(e, r, "method.busy_host says per CPU second, but %s", why);
	return 0;
}

int recipe_read(const struct host *h, const struct advice_run *run, struct recipe *out,
		struct st_err *e)
{
	const cJSON *root = run->p.doc;
	int rc;

	memset(out, 0, sizeof(*out));
	out->run_id = run->run_id;
	probe_config_init(&out->c);
	/* what a run stored without them meant */
	out->c.metric_higher_better = true;
	out->c.min_trial_s = out->c.max_time_s = 0;
	out->have_params = root != NULL;
	if (!root)
		return err_set_exit(e, -EBADMSG, ST_EXIT_RUNTIME,
				    "probe run %lld has no stored parameters to repeat", (long long)run->run_id);
	if (!cJSON_IsObject(root))
		rc = refuse(e, out, "the stored parameters are not a JSON object");
	else if ((rc = read_fields(root, out, e)) == 0 && (rc = read_workload(root, run, out, e)) == 0 &&
		 (rc = read_method(root, out, e)) == 0 && (rc = read_plan(root, run, out, e)) == 0 &&
		 (rc = read_arms(h, root, run, out, e)) == 0)
		rc = read_per_cpu_fits(out, e);
	return rc;
}

int recipe_planned_trials(const struct advice_run *run, unsigned *trials, struct st_err *e)
{
	struct recipe *r = calloc(1, sizeof(*r));
	const cJSON *root = run->p.doc;
	int rc;

	*trials = 0;
	if (!r) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		rc = err_set(e, -ENOENT, "run %lld has no plan in its params", (long long)run->run_id);
		goto out;
	}
	r->run_id = run->run_id;
	probe_config_init(&r->c);
	if ((rc = read_fields(root, r, e)) == 0 && (rc = read_method(root, r, e)) == 0)
		*trials = (r->c.reps + (r->c.warmup ? 1 : 0)) * (unsigned)run->n_arms;
out:
	free(r);
	return rc;
}

void recipe_free(struct recipe *r)
{
	for (int i = 0; i < RECIPE_ARGV_MAX + 1; i++) {
		free(r->argv[i]);
		r->argv[i] = NULL;
	}
	r->c.wp.argv = NULL;
}

/* ---- the rerun line --------------------------------------------------- */

struct line {
	char *buf;
	size_t len, n;
};

static void add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;

	if (l->n >= l->len)
		return;
	va_start(ap, fmt);
	l->n += (size_t)vsnprintf(l->buf + l->n, l->len - l->n, fmt, ap);
	va_end(ap);
}

/* One shell word (fmt_shell_quote()); "''" when it does not fit, never a cut word. */
static void add_word(struct line *l, const char *prefix, const char *s)
{
	char q[1024];

	if (fmt_shell_quote(s, false, q, sizeof(q)) < 0)
		snprintf(q, sizeof(q), "''");
	add(l, "%s%s", prefix, q);
}

static void add_arms(struct line *l, const struct probe_config *c)
{
	bool all_builtin = true;

	for (int i = 0; i < c->narms; i++)
		all_builtin &= c->arms[i].builtin;
	if (all_builtin) {
		add(l, " --arms ");
		for (int i = 0; i < c->narms; i++)
			add(l, "%s%s", i ? "," : "", c->arms[i].name);
		return;
	}
	for (int i = 0; i < c->narms; i++) {
		const struct probe_arm *a = &c->arms[i];
		char arm[1024];
		size_t k = (size_t)snprintf(arm, sizeof(arm), "%s:", a->name);

		for (int j = 0; j < a->nset && k < sizeof(arm); j++)
			k += (size_t)snprintf(arm + k, sizeof(arm) - k, "%s%s=%s", j ? "," : "",
					      a->set[j].name, a->set[j].value);
		add_word(l, " --arm ", arm);
	}
}

/*
 * The design as it ran: a sequential plan's looks with no budget left to cut
 * them (--max-time 0), or the fixed rounds; its minimum effect.
 */
static void add_design(struct line *l, const struct recipe *r)
{
	const struct probe_config *c = &r->c;
	int reps = recipe_field_find("method", "reps"), max_reps = recipe_field_find("method", "max_reps");

	if (r->have_plan) {
		if (c->plan.sequential && c->plan.n_looks > 0) {
			add(l, " --looks ");
			for (size_t i = 0; i < c->plan.n_looks; i++)
				add(l, "%s%u", i ? "," : "", c->plan.looks[i]);
			add(l, " --max-time 0");
		} else if (r->have[reps]) {
			add(l, " --reps %.0f", recipe_value(r, (size_t)reps));
		}
		add(l, " --min-effect %g", c->plan.min_effect_pct);
		return;
	}
	/* a run from before the stored plan */
	if (r->have[reps])
		add(l, " --reps %.0f", recipe_value(r, (size_t)reps));
	if (c->adaptive) {
		add(l, " --adaptive");
		if (r->have[max_reps])
			add(l, " --max-reps %.0f", recipe_value(r, (size_t)max_reps));
	}
}

int recipe_rerun_line(const struct recipe *r, char *out, size_t len)
{
	const struct probe_config *c = &r->c;
	struct line l = { out, len, 0 };
	char size[32];

	add(&l, "sudo swaptune probe");
	add_word(&l, " --workload ", c->workload->name);
	add_arms(&l, c);
	if (r->have_baseline)
		add_word(&l, " --baseline ", c->arms[c->baseline].name);
	add_design(&l, r);
	if (!c->warmup)
		add(&l, " --no-warmup");
	if (c->drop_host_caches)
		add(&l, " --drop-host-caches");
	/*
	 * the metric, pinned: a quiet host would judge wall time. A run judged
	 * by wall time keeps its line; rerun on a busy host it adapts, and
	 * judge_recipe() keeps that run apart.
	 */
	if (c->busy.per_cpu)
		add(&l, " --busy-host %s", probe_busy_modes[PROBE_BUSY_PER_CPU]);
	for (size_t i = 0; i < recipe_field_count(); i++) {
		const struct recipe_field *f = recipe_field_at(i);
		double v = recipe_value(r, i);

		if (!strcmp(f->key, "ops") && r->have[i] && v > 0) {
			/* the accesses the warm-up calibrated, fixed */
			add(&l, " --ops %.0f", v);
			if (r->have[recipe_field_find("method", "min_trial_s")])
				add(&l, " --min-trial 0");
		}
		if (f->show == RECIPE_SHOW_SIZE && r->have[i])
			add(&l, " %s %s", f->option, fmt_size_arg((unsigned long long)v, size, sizeof(size)));
		else if (f->show != RECIPE_SHOW_NONE && r->have[i])
			add(&l, f->show == RECIPE_SHOW_REAL ? " %s %g%s" : " %s %.0f%s", f->option, v,
			    f->show == RECIPE_SHOW_SECS ? "s" : "");
		if (!strcmp(f->key, "limit_bytes") && r->limit_high)
			add(&l, " --limit-mode high");
	}
	if (c->wp.metric_regex[0]) {
		add_word(&l, " --metric-regex ", c->wp.metric_regex);
		if (!c->metric_higher_better)
			add(&l, " --metric-lower-better");
	}
	if (c->wp.metric_spec[0])
		add_word(&l, " --metric ", c->wp.metric_spec);
	if (c->bypass_mode == PROBE_BYPASS_ZRAM)
		add(&l, " --bypass-mode zram");
	if (c->wp.argv) {
		add(&l, " --");
		for (char *const *w = c->wp.argv; *w; w++)
			add_word(&l, " ", *w);
	}
	return l.n < len ? 0 : -ENOSPC;
}
