/*
 * sample-prom.c - one tick as a Prometheus text exposition (sampler.h):
 * the counters behind the rates as _total counters, levels as gauges in
 * bytes, percentages as 0..1 ratios. Shared by the live `sample --prom`
 * and `sample --replay ID --prom`, so both print the same families.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "swaptune/sampler.h"

struct obuf {
	char *p;
	size_t len, used;
	bool overflow;
};

static void oput(struct obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void oput(struct obuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->used)
		b->overflow = true;
	else
		b->used += (size_t)n;
}

/* label values escape backslash, double quote and newline */
static void olabel(struct obuf *b, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			oput(b, "\\%c", *v);
		else if (*v == '\n')
			oput(b, "\\n");
		else
			oput(b, "%c", *v);
	}
}

/* HELP, TYPE and the sample name (with the cgroup label for its groups) */
static void family(struct obuf *b, const char *name, const char *type, const char *help,
		   const struct sample_prom_src *src, enum sample_group g)
{
	oput(b, "# HELP %s %s\n# TYPE %s %s\n%s", name, help, name, type, name);
	if (g == SG_CGROUP && src->cgroup) {
		oput(b, "{cgroup=\"");
		olabel(b, src->cgroup);
		oput(b, "\"}");
	}
}

static void counters(struct obuf *b, const struct sample_prom_src *src)
{
	for (int c = 0; c < SC_COUNT; c++) {
		const struct sample_counter_def *d = sampler_counter_def((enum sample_counter)c);
		double v;

		if (!src->counter(src->arg, (enum sample_counter)c, &v))
			continue;
		family(b, d->prom, "counter", d->row->help, src, d->group);
		/* exact: microseconds and nanoseconds keep every digit */
		if (d->prom_scale == 1)
			oput(b, " %.0f\n", v);
		else if (d->prom_scale == 1e-6)
			oput(b, " %.6f\n", v * d->prom_scale);
		else
			oput(b, " %.9f\n", v * d->prom_scale);
	}
}

static void gauges(struct obuf *b, const struct sample_prom_src *src)
{
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = sampler_metric((enum sample_metric)m);
		double v;

		if (!d->prom || !src->value(src->arg, (enum sample_metric)m, &v))
			continue;
		if (d->prom_unit == SPU_PAGES_TO_BYTES && src->page_size <= 0)
			continue;	/* a recording without its page size */
		family(b, d->prom, "gauge", d->row->help, src, d->group);
		if (d->prom_unit == SPU_PAGES_TO_BYTES)
			oput(b, " %.0f\n", v * src->page_size);
		else if (d->prom_unit == SPU_PCT_TO_RATIO)
			oput(b, " %.10g\n", v / 100);
		else if (d->integral)
			oput(b, " %.0f\n", v);
		else
			oput(b, " %.10g\n", v);
	}
}

int sample_prom_format(const struct sample_prom_src *src, char *buf, size_t len)
{
	struct obuf b = { buf, len, 0, false };

	oput(&b, "# HELP swaptune_sample_info swaptune sampler configuration (value is always 1)\n"
	     "# TYPE swaptune_sample_info gauge\n"
	     "swaptune_sample_info{schema=\"%s\",version=\"", SAMPLE_SCHEMA);
	olabel(&b, SWAPTUNE_VERSION);
	oput(&b, "\",cpu_source=\"");
	olabel(&b, src->cpu_source ? src->cpu_source : "none");
	oput(&b, "\",cpu_target=\"");
	olabel(&b, src->cpu_target ? src->cpu_target : "none");
	oput(&b, "\"} 1\n");
	oput(&b, "# HELP swaptune_sample_interval_seconds length of the last tick\n"
	     "# TYPE swaptune_sample_interval_seconds gauge\n"
	     "swaptune_sample_interval_seconds %.6f\n", src->interval_s);
	oput(&b, "# HELP swaptune_sample_ticks_total ticks taken since sampling started\n"
	     "# TYPE swaptune_sample_ticks_total counter\n"
	     "swaptune_sample_ticks_total %" PRIu64 "\n", src->seq);
	counters(&b, src);
	gauges(&b, src);
	return b.overflow ? -ENOSPC : (int)b.used;
}
