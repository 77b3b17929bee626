/*
 * sample-replay.c - a stored sample recording printed as it was live
 * (see replay.h): JSON lines verbatim; the 80-column table rebuilt from
 * each tick's JSON through the sampler's metric table, the Prometheus text
 * through sample_prom_format() as live.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "swaptune/fmt.h"
#include "swaptune/replay.h"
#include "swaptune/sampler.h"

#define HEADER_EVERY 20

struct replay {
	enum replay_mode mode;
	FILE *out;
	uint64_t rows;
};

/* the live table's columns (cmd-sample.c), system-wide */
static const struct { const char *head; enum sample_metric m; double scale; } cols[] = {
	{ "zsin", SM_ZSWPIN, 1 }, { "zsout", SM_ZSWPOUT, 1 }, { "wb", SM_ZSWPWB, 1 },
	{ "ra", SM_SWAP_RA, 1 }, { "hit%", SM_RA_HIT_PCT, 1 }, { "waste", SM_RA_WASTED, 1 },
	{ "majf", SM_PGMAJFAULT, 1 }, { "some%", SM_PSI_SOME_PCT, 1 },
	{ "full%", SM_PSI_FULL_PCT, 1 }, { "zsMiB", SM_ZSWAP_BYTES, 1.0 / 1048576 },
	{ "ratio", SM_ZSWAP_RATIO, 1 }, { "cpu%", SM_CPU_BUSY_PCT, 1 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static bool tick_value(const cJSON *tick, enum sample_metric m, double *v)
{
	const struct sample_metric_def *d = sampler_metric(m);
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(tick, sampler_group_name(d->group)), d->key);

	if (!cJSON_IsNumber(x))
		return false;
	*v = x->valuedouble;
	return true;
}

static void table_row(struct replay *r, const cJSON *tick)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(tick, "time");
	char hms[16] = "?", b[16];
	struct tm tm;

	if (r->rows % HEADER_EVERY == 0) {
		fprintf(r->out, "%-8s", "time");
		for (size_t i = 0; i < NCOLS; i++)
			fprintf(r->out, "%6s", cols[i].head);
		fputc('\n', r->out);
	}
	memset(&tm, 0, sizeof(tm));
	if (cJSON_IsString(t) && strptime(t->valuestring, "%Y-%m-%dT%H:%M:%S", &tm)) {
		time_t secs = timegm(&tm);

		localtime_r(&secs, &tm);
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	}
	fprintf(r->out, "%-8s", hms);
	for (size_t i = 0; i < NCOLS; i++) {
		double v = 0;
		bool ok = tick_value(tick, cols[i].m, &v);

		fprintf(r->out, "%6s", fmt_short(b, sizeof(b), ok, v * cols[i].scale));
	}
	fputc('\n', r->out);
}

static bool json_value(const void *arg, enum sample_metric m, double *v)
{
	return tick_value(arg, m, v);
}

static bool json_counter(const void *arg, enum sample_counter c, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(arg, "counters"), sampler_counter_def(c)->key);

	if (!cJSON_IsNumber(x))
		return false;	/* n/a, or a recording made before counters were kept */
	*v = x->valuedouble;
	return true;
}

static const char *json_string(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static double json_number(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

/* the same exposition the live run printed for this tick (sample_prom_format) */
static int prom_text(struct replay *r, const cJSON *tick)
{
	static char buf[65536];
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(tick, "cpu");
	struct sample_prom_src src = {
		.arg = tick, .value = json_value, .counter = json_counter,
		.cgroup = json_string(cJSON_GetObjectItemCaseSensitive(tick, "cgroup"), "path"),
		.cpu_source = json_string(cpu, "source"), .cpu_target = json_string(cpu, "target"),
		.interval_s = json_number(tick, "interval_s"),
		.seq = (uint64_t)json_number(tick, "seq"),
		.page_size = json_number(tick, "page_size"),
	};
	int n = sample_prom_format(&src, buf, sizeof(buf));

	if (n < 0)
		return -EBADMSG;
	if (r->rows)
		fputc('\n', r->out);
	fwrite(buf, 1, (size_t)n, r->out);
	return 0;
}

static int one_tick(void *arg, int64_t seq, int64_t t_ns, const char *data, size_t len)
{
	struct replay *r = arg;
	cJSON *tick;
	int rc = 0;

	(void)seq;
	(void)t_ns;
	if (r->mode == REPLAY_JSON) {
		fwrite(data, 1, len, r->out);
		fputc('\n', r->out);
	} else {
		tick = cJSON_ParseWithLength(data, len);
		if (!tick)
			return -EBADMSG;
		if (r->mode == REPLAY_TABLE)
			table_row(r, tick);
		else
			rc = prom_text(r, tick);
		cJSON_Delete(tick);
		if (rc < 0)
			return rc;
	}
	r->rows++;
	return ferror(r->out) ? -EPIPE : 0;
}

int sample_replay(struct store *st, int64_t run_id, enum replay_mode mode, FILE *out,
		  struct st_err *e)
{
	struct store_run_full ri;
	struct replay r = { mode, out, 0 };
	int rc;

	if ((rc = store_run_full_get(st, run_id, &ri, e)) < 0)
		return rc;
	if (strcmp(ri.kind, "sample")) {
		rc = err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				  "run %lld is a %s run, not a sample recording (see swaptune history --all)",
				  (long long)run_id, ri.kind);
		store_run_full_free(&ri);
		return rc;
	}
	rc = store_samples_each(st, run_id, one_tick, &r, e);
	if (rc == -EBADMSG)
		rc = err_set(e, rc, "recording %lld: a tick is not JSON", (long long)run_id);
	else if (rc == -EPIPE)
		rc = err_set(e, rc, "sample --replay: cannot write output");
	else if (rc == 0 && mode == REPLAY_TABLE)
		fprintf(out, "sample: replayed recording %lld (%s, %llu ticks, %.1f s) from %s\n",
			(long long)run_id, ri.status, (unsigned long long)r.rows,
			(double)ri.last_t_ns / 1e9, ri.started_at);
	store_run_full_free(&ri);
	return rc;
}
