/*
 * sample-replay.c - a stored sample recording printed as it was live
 * (see replay.h): JSON lines exactly as stored; the 80-column table (the
 * live table's columns) and the Prometheus text (sample_prom_format(), as
 * live) from the tick's leaves, looked up once per tick structure through
 * the vocabulary's per-tick keys.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
	const struct store_tick *tick;	/* the tick being printed */
	unsigned shape;			/* the shape the slots below are of; 0 none yet */
	int metric[SM_COUNT], counter[SC_COUNT];
	int time, cg_path, cpu_source, cpu_target, interval, seq, page_size;
	char *prom;			/* PROM_TEXT_MAX: one tick's exposition */
	uint64_t unclean;		/* seq of a tick that is no clean JSON line, 0 none */
};

#define PROM_TEXT_MAX 65536

/* Look the leaves up once per tick structure, not per tick. */
static void map_slots(struct replay *r, const struct store_tick *t)
{
	if (r->shape == t->shape)
		return;
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = sampler_metric((enum sample_metric)m);

		r->metric[m] = store_tick_slot(t, sampler_group_name(d->group), d->key);
	}
	for (int c = 0; c < SC_COUNT; c++)
		r->counter[c] = store_tick_slot(t, "counters",
						sampler_counter_def((enum sample_counter)c)->key);
	r->time = store_tick_slot(t, NULL, "time");
	r->cg_path = store_tick_slot(t, "cgroup", "path");
	r->cpu_source = store_tick_slot(t, "cpu", "source");
	r->cpu_target = store_tick_slot(t, "cpu", "target");
	r->interval = store_tick_slot(t, NULL, "interval_s");
	r->seq = store_tick_slot(t, NULL, "seq");
	r->page_size = store_tick_slot(t, NULL, "page_size");
	r->shape = t->shape;
}

static bool tick_value(const struct replay *r, enum sample_metric m, double *v)
{
	return store_tick_number(r->tick, r->metric[m], v);
}

static void table_row(struct replay *r)
{
	char hms[16] = "?", b[16], t[64];
	struct tm tm;

	if (r->rows % HEADER_EVERY == 0) {
		fprintf(r->out, "%-8s", "UTC");
		for (size_t i = 0; i < SHOWN_N_sample_table; i++)
			fprintf(r->out, "%6s", sampler_metric(shown_sample_table[i])->head);
		fputc('\n', r->out);
	}
	memset(&tm, 0, sizeof(tm));
	if (store_tick_string(r->tick, r->time, t, sizeof(t)) == 0 &&
	    strptime(t, "%Y-%m-%dT%H:%M:%S", &tm)) {
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);	/* stored in UTC, shown in UTC */
	}
	fprintf(r->out, "%-8s", hms);
	for (size_t i = 0; i < SHOWN_N_sample_table; i++) {
		enum sample_metric m = shown_sample_table[i];
		double v = 0;
		bool ok = tick_value(r, m, &v);

		fprintf(r->out, "%6s", fmt_short(b, sizeof(b), ok, v * sample_table_scale(m)));
	}
	fputc('\n', r->out);
}

static bool src_value(const void *arg, enum sample_metric m, double *v)
{
	return tick_value(arg, m, v);
}

static bool src_counter(const void *arg, enum sample_counter c, double *v)
{
	const struct replay *r = arg;

	/* false: n/a, or a recording made before counters were kept */
	return store_tick_number(r->tick, r->counter[c], v);
}

static double number_or_0(const struct replay *r, int slot)
{
	double v;

	return store_tick_number(r->tick, slot, &v) ? v : 0;
}

/* the same exposition the live run printed for this tick (sample_prom_format) */
static int prom_text(struct replay *r)
{
	char cg[4096], src[64], target[64];
	struct sample_prom_src p = {
		.arg = r, .value = src_value, .counter = src_counter,
		.cgroup = store_tick_string(r->tick, r->cg_path, cg, sizeof(cg)) == 0 ? cg : NULL,
		.cpu_source = store_tick_string(r->tick, r->cpu_source, src, sizeof(src)) == 0 ? src : NULL,
		.cpu_target = store_tick_string(r->tick, r->cpu_target, target, sizeof(target)) == 0 ?
			      target : NULL,
		.interval_s = number_or_0(r, r->interval),
		.seq = (uint64_t)number_or_0(r, r->seq),
		.page_size = number_or_0(r, r->page_size),
	};
	int n;

	if (!r->prom && !(r->prom = malloc(PROM_TEXT_MAX)))
		return -ENOMEM;
	n = sample_prom_format(&p, r->prom, PROM_TEXT_MAX);
	if (n < 0)
		return -EBADMSG;
	if (r->rows)
		fputc('\n', r->out);
	fwrite(r->prom, 1, (size_t)n, r->out);
	return 0;
}

static int one_tick(const struct store_tick *t, void *arg)
{
	struct replay *r = arg;
	int rc = 0;

	if (r->mode == REPLAY_JSON) {
		size_t len;
		const char *json = store_tick_json(t, &len);

		if (!json)
			return -ENOMEM;
		if (!store_json_line_clean(json, len)) {
			r->unclean = t->seq;
			return -EBADMSG;
		}
		fwrite(json, 1, len, r->out);
		fputc('\n', r->out);
	} else {
		if (t->shape == 0)
			return -EBADMSG;
		map_slots(r, t);
		r->tick = t;
		if (r->mode == REPLAY_TABLE)
			table_row(r);
		else
			rc = prom_text(r);
		if (rc < 0)
			return rc;
	}
	r->rows++;
	return ferror(r->out) ? -EPIPE : 0;
}

int sample_replay(struct store *st, int64_t run_id, enum replay_mode mode, FILE *out,
		  struct st_err *e)
{
	struct store_run ri;
	struct replay r = { .mode = mode, .out = out };
	int rc;

	if ((rc = store_run_get(st, run_id, &ri, e)) < 0)
		return rc;
	if (strcmp(ri.kind, "sample")) {
		rc = err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				  "run %lld is a %s run, not a sample recording (see swaptune history --all)",
				  (long long)run_id, ri.kind);
		store_run_free(&ri);
		return rc;
	}
	rc = store_samples_read(st, run_id, one_tick, &r, e);
	free(r.prom);
	if (rc == -EBADMSG && r.unclean)
		rc = err_set(e, rc, "recording %lld: tick %llu is not a clean JSON line (a damaged or crafted store): "
			     "nothing of it printed", (long long)run_id, (unsigned long long)r.unclean);
	else if (rc == -EBADMSG && (!e || !e->msg[0]))
		rc = err_set(e, rc, "recording %lld: a tick is not JSON", (long long)run_id);
	else if (rc == -ENOMEM)
		rc = err_set(e, rc, "out of memory");
	else if (rc == -EPIPE)
		rc = err_set(e, rc, "sample --replay: cannot write output");
	else if (rc >= 0 && mode == REPLAY_TABLE)
		/* the status and time as stored: a crafted store's bytes shown escaped */
		fprintf(out, "sample: replayed recording %lld (%s, %llu ticks, %.1f s) from %s\n",
			(long long)run_id, fmt_printable(ri.status), (unsigned long long)r.rows,
			(double)ri.last_t_ns / 1e9, fmt_printable(ri.started_at));
	store_run_free(&ri);
	return rc < 0 ? rc : 0;
}
