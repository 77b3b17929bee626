/*
 * run-params.c - a stored run's params JSON decoded once, the one parser
 * of that text: each field checked as the command line checks the same
 * value (ids as ids, durations in the options' ranges, names that fit),
 * what fails left unset and named, never trusted.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/run-params.h"

#define ID_MAX 9007199254740991.0	/* 2^53 - 1: the ids the command line takes */
#define PID_MAX 4194304.0		/* PID_MAX_LIMIT */
#define UID_MAX_ 4294967294.0		/* (uid_t)-1 is no uid */
#define INTERVAL_MIN_S 0.01		/* sample --interval: 10 ms to 24 h */
#define INTERVAL_MAX_S 86400.0

static void refuse(struct run_params *p, const char *key, const char *what)
{
	if (!p->why[0])
		snprintf(p->why, sizeof(p->why), "params: %s is not %s", key, what);
}

static const cJSON *item(const struct run_params *p, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(p->doc, key);
}

/* An integer lo..hi at key into *out; absent: *out untouched. */
static void get_int(struct run_params *p, const cJSON *x, const char *key, double lo, double hi,
		    int64_t *out)
{
	if (!x)
		return;
	if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi) ||
	    x->valuedouble != floor(x->valuedouble)) {
		refuse(p, key, "a whole number in range");
		return;
	}
	*out = (int64_t)x->valuedouble;
}

static void get_real(struct run_params *p, const cJSON *x, const char *key, double lo, double hi,
		     double *out)
{
	if (!x)
		return;
	if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi)) {
		refuse(p, key, "a number in range");
		return;
	}
	*out = x->valuedouble;
}

/* A string that fits out (len bytes with its NUL); absent: out untouched. */
static bool get_str(struct run_params *p, const cJSON *x, const char *key, char *out, size_t len)
{
	if (!x)
		return false;
	if (!cJSON_IsString(x) || strlen(x->valuestring) >= len) {
		refuse(p, key, "a string that fits");
		return false;
	}
	snprintf(out, len, "%s", x->valuestring);
	return true;
}

void run_params_decode(const char *params, struct run_params *p)
{
	const cJSON *x, *who;

	memset(p, 0, sizeof(*p));
	if (!params || !*params)
		return;
	if (!(p->doc = cJSON_Parse(params))) {
		refuse(p, "the document", "JSON");
		return;
	}
	if (!cJSON_IsObject(p->doc))
		return;
	/* an apply */
	if ((x = item(p, "settings")) && cJSON_IsObject(x))
		p->settings = x;
	get_int(p, item(p, "source_run"), "source_run", 1, ID_MAX, &p->source_run);
	p->has_arm = get_str(p, item(p, "arm"), "arm", p->arm, sizeof(p->arm));
	p->persist = cJSON_IsTrue(item(p, "persist"));
	get_real(p, item(p, "confirm_within_s"), "confirm_within_s", 1, ID_MAX, &p->confirm_within_s);
	get_real(p, item(p, "confirm_deadline_unix"), "confirm_deadline_unix", 1, ID_MAX,
		 &p->confirm_deadline_unix);
	/* a rollback */
	get_int(p, item(p, "to"), "to", 1, ID_MAX, &p->to);
	get_str(p, item(p, "reason"), "reason", p->reason, sizeof(p->reason));
	get_int(p, item(p, "apply_run"), "apply_run", 1, ID_MAX, &p->apply_run);
	/* who asked for a change */
	if ((who = item(p, "who")) && cJSON_IsObject(who)) {
		get_str(p, cJSON_GetObjectItemCaseSensitive(who, "user"), "who.user", p->user, sizeof(p->user));
		get_str(p, cJSON_GetObjectItemCaseSensitive(who, "sudo_user"), "who.sudo_user", p->sudo_user,
			sizeof(p->sudo_user));
		p->uid = -1;
		get_int(p, cJSON_GetObjectItemCaseSensitive(who, "uid"), "who.uid", 0, UID_MAX_, &p->uid);
		p->has_uid = p->uid >= 0;
	}
	/* a recording */
	get_real(p, item(p, "interval_s"), "interval_s", INTERVAL_MIN_S, INTERVAL_MAX_S, &p->interval_s);
	get_real(p, item(p, "duration_s"), "duration_s", 0, ID_MAX, &p->duration_s);
	get_str(p, item(p, "cgroup"), "cgroup", p->cgroup, sizeof(p->cgroup));
	get_int(p, item(p, "pid"), "pid", 1, PID_MAX, &p->pid);
	p->cpu_counters_off = cJSON_IsFalse(item(p, "cpu_counters"));
	/* a probe or a switchback */
	x = item(p, "workload");
	get_str(p, cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, "name") : x, "workload",
		p->workload, sizeof(p->workload));
	get_str(p, item(p, "baseline"), "baseline", p->baseline, sizeof(p->baseline));
	get_int(p, item(p, "verify_of"), "verify_of", 1, ID_MAX, &p->verify_of);
}

int run_params_copy(struct run_params *dst, const struct run_params *src)
{
	*dst = *src;
	dst->doc = NULL;
	dst->settings = NULL;
	if (src->doc && !(dst->doc = cJSON_Duplicate(src->doc, true))) {
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	if (src->settings)
		dst->settings = cJSON_GetObjectItemCaseSensitive(dst->doc, "settings");
	return 0;
}

void run_params_free(struct run_params *p)
{
	cJSON_Delete(p->doc);
	memset(p, 0, sizeof(*p));
}
