/*
 * sample-replay.c - a stored sample recording printed as it was live
 * (see replay.h): JSON lines verbatim; the 80-column table and Prometheus
 * text rebuilt from each tick's JSON through the sampler's metric table.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

static const char *fmt5(char *b, size_t len, bool ok, double v)
{
	if (!ok)
		return "n/a";
	if (v < 0)
		v = 0;
	if (v == 0)
		snprintf(b, len, "0");
	else if (v < 9.995)
		snprintf(b, len, "%.2f", v);
	else if (v < 99.95)
		snprintf(b, len, "%.1f", v);
	else if (v < 99999.5)
		snprintf(b, len, "%.0f", v);
	else if (v < 999.5e3)
		snprintf(b, len, "%.0fk", v / 1e3);
	else if (v < 99.95e6)
		snprintf(b, len, "%.1fM", v / 1e6);
	else if (v < 999.5e6)
		snprintf(b, len, "%.0fM", v / 1e6);
	else
		snprintf(b, len, "%.1fG", v / 1e9);
	return b;
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

		fprintf(r->out, "%6s", fmt5(b, sizeof(b), ok, v * cols[i].scale));
	}
	fputc('\n', r->out);
}

static void prom_text(struct replay *r, const cJSON *tick)
{
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(tick, "cpu");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(cpu, "source");
	const cJSON *tgt = cJSON_GetObjectItemCaseSensitive(cpu, "target");
	const cJSON *cg = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(tick, "cgroup"), "path");
	const cJSON *iv = cJSON_GetObjectItemCaseSensitive(tick, "interval_s");
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(tick, "seq");

	if (r->rows)
		fputc('\n', r->out);
	fprintf(r->out, "# HELP swaptune_sample_info swaptune sampler configuration (value is always 1)\n"
		"# TYPE swaptune_sample_info gauge\n"
		"swaptune_sample_info{schema=\"%s\",cpu_source=\"%s\",cpu_target=\"%s\"} 1\n",
		SAMPLE_SCHEMA, cJSON_IsString(src) ? src->valuestring : "none",
		cJSON_IsString(tgt) ? tgt->valuestring : "none");
	fprintf(r->out, "# HELP swaptune_sample_interval_seconds length of the tick the rates cover\n"
		"# TYPE swaptune_sample_interval_seconds gauge\n"
		"swaptune_sample_interval_seconds %.6f\n", cJSON_IsNumber(iv) ? iv->valuedouble : 0.0);
	fprintf(r->out, "# HELP swaptune_sample_ticks ticks taken since sampling started\n"
		"# TYPE swaptune_sample_ticks gauge\n"
		"swaptune_sample_ticks %.0f\n", cJSON_IsNumber(seq) ? seq->valuedouble : 0.0);
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = sampler_metric((enum sample_metric)m);
		double v;

		if (!tick_value(tick, (enum sample_metric)m, &v))
			continue;
		fprintf(r->out, "# HELP %s %s\n# TYPE %s gauge\n%s", d->prom, d->help, d->prom, d->prom);
		if (d->group == SG_CGROUP && cJSON_IsString(cg)) {
			fputs("{cgroup=\"", r->out);
			for (const char *p = cg->valuestring; *p; p++) {
				if (*p == '\\' || *p == '"')
					fputc('\\', r->out);
				if (*p == '\n')
					fputs("\\n", r->out);
				else
					fputc(*p, r->out);
			}
			fputs("\"}", r->out);
		}
		if (d->integral)
			fprintf(r->out, " %.0f\n", v);
		else
			fprintf(r->out, " %.10g\n", v);
	}
}

static int one_tick(void *arg, int64_t seq, int64_t t_ns, const char *data, size_t len)
{
	struct replay *r = arg;
	cJSON *tick;

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
			prom_text(r, tick);
		cJSON_Delete(tick);
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
