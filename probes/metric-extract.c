/*
 * metric-extract.c - a cmd probe's primary metric from fio JSON, stress-ng
 * YAML or sysbench text (see metric-extract.h).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/metric-extract.h"

static const char *const sysbench_keys[][3] = {
	/* name, the label before the number, "h" higher / "l" lower is better */
	{ "events_per_second", "events per second:", "h" },
	{ "latency_avg_ms", "avg:", "l" },
	{ "latency_p95_ms", "95th percentile:", "l" },
};
#define N_SYSBENCH (sizeof(sysbench_keys) / sizeof(sysbench_keys[0]))

static bool valid_path(const char *p)
{
	if (!*p || strlen(p) >= METRIC_SPEC_MAX)
		return false;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			return false;
	return true;
}

int metric_spec_check(const char *spec, bool *higher_better, char *why, size_t len)
{
	const char *path = strchr(spec, ':');

	if (path && valid_path(path + 1)) {
		path++;
		if (!strncmp(spec, "fio:", 4) && strchr(path, '.')) {
			*higher_better = !strstr(path, "lat");
			return 0;
		}
		if (!strncmp(spec, "stress-ng:", 10) && strchr(path, '.')) {
			*higher_better = !strstr(path, "time") || strstr(path, "per-second");
			return 0;
		}
		if (!strncmp(spec, "sysbench:", 9))
			for (size_t i = 0; i < N_SYSBENCH; i++)
				if (!strcmp(path, sysbench_keys[i][0])) {
					*higher_better = sysbench_keys[i][2][0] == 'h';
					return 0;
				}
	}
	snprintf(why, len, "--metric \"%.60s\" is not one of fio:SECTION.KEY (e.g. fio:read.iops), "
		 "stress-ng:STRESSOR.KEY (e.g. stress-ng:vm.bogo-ops-per-second-real-time), "
		 "sysbench:events_per_second|latency_avg_ms|latency_p95_ms", spec);
	return -EINVAL;
}

/* fio: PATH in every job; summed, or averaged for latencies. */
static int from_fio(const char *path, const char *text, size_t len, double *value,
		    char *why, size_t wl)
{
	cJSON *root = cJSON_ParseWithLength(text, len), *jobs, *job;
	double sum = 0;
	int n = 0;

	if (!root) {
		snprintf(why, wl, "fio output is not JSON (run fio with --output-format=json)");
		return -EBADMSG;
	}
	jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
	cJSON_ArrayForEach(job, jobs) {
		char buf[METRIC_SPEC_MAX], *save = NULL;
		cJSON *o = job;

		snprintf(buf, sizeof(buf), "%s", path);
		for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
			o = cJSON_GetObjectItemCaseSensitive(o, k);
		if (cJSON_IsNumber(o) && isfinite(o->valuedouble)) {
			sum += o->valuedouble;
			n++;
		}
	}
	cJSON_Delete(root);
	if (!n) {
		snprintf(why, wl, "fio output has no jobs[].%.60s", path);
		return -ENOENT;
	}
	*value = strstr(path, "lat") ? sum / n : sum;
	return 0;
}

/* The number after "KEY:" on a line, within [line, end). */
static bool number_after(const char *line, const char *end, const char *key, double *v)
{
	size_t kl = strlen(key);
	const char *p = line;
	char num[64], *e;
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '-'))
		p++;
	if ((size_t)(end - p) <= kl || strncmp(p, key, kl))
		return false;
	p += kl;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	while (p < end && n + 1 < sizeof(num) && *p != '\n' && *p != ' ' && *p != '\r')
		num[n++] = *p++;
	num[n] = '\0';
	*v = strtod(num, &e);
	return n && !*e && isfinite(*v);
}

/* stress-ng YAML: "- stressor: NAME" starts an entry; KEY: NUMBER inside it. */
static int from_stress_ng(const char *path, const char *text, size_t len, double *value,
			  char *why, size_t wl)
{
	char name[METRIC_SPEC_MAX];
	const char *dot = strchr(path, '.'), *end = text + len, *key = dot + 1;
	bool in = false;

	snprintf(name, sizeof(name), "%.*s", (int)(dot - path), path);
	for (const char *l = text; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l)), *le = nl ? nl : end;
		const char *p = l;

		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		if (p < le && *p == '-') {
			char sname[METRIC_SPEC_MAX];
			size_t n = 0;
			const char *q = p + 1;

			while (q < le && *q == ' ')
				q++;
			in = false;
			if ((size_t)(le - q) > 9 && !strncmp(q, "stressor:", 9)) {
				q += 9;
				while (q < le && *q == ' ')
					q++;
				while (q < le && n + 1 < sizeof(sname) && *q != ' ' && *q != '\r')
					sname[n++] = *q++;
				sname[n] = '\0';
				in = !strcmp(sname, name);
			}
		}
		if (in && number_after(l, le, key, value))
			return 0;
		l = nl ? nl + 1 : end;
	}
	snprintf(why, wl, "stress-ng output has no metrics entry for stressor %.40s with %.40s "
		 "(run it with --metrics --yaml /dev/stdout)", name, key);
	return -ENOENT;
}

static int from_sysbench(const char *path, const char *text, size_t len, double *value,
			 char *why, size_t wl)
{
	const char *label = NULL, *end = text + len;
	bool found = false;

	for (size_t i = 0; i < N_SYSBENCH; i++)
		if (!strcmp(path, sysbench_keys[i][0]))
			label = sysbench_keys[i][1];
	for (const char *l = text; label && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l)), *le = nl ? nl : end;
		double v;

		if (number_after(l, le, label, &v)) {
			*value = v;	/* the last one: the final report */
			found = true;
		}
		l = nl ? nl + 1 : end;
	}
	if (!found) {
		snprintf(why, wl, "sysbench output has no \"%s\" line", label ? label : path);
		return -ENOENT;
	}
	return 0;
}

int metric_extract(const char *spec, const char *text, size_t len, double *value,
		   char *why, size_t why_len)
{
	bool hb;
	const char *path;

	if (metric_spec_check(spec, &hb, why, why_len) < 0)
		return -EINVAL;
	path = strchr(spec, ':') + 1;
	if (!strncmp(spec, "fio:", 4))
		return from_fio(path, text, len, value, why, why_len);
	if (!strncmp(spec, "stress-ng:", 10))
		return from_stress_ng(path, text, len, value, why, why_len);
	return from_sysbench(path, text, len, value, why, why_len);
}
