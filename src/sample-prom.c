/*
 * sample-prom.c - one tick as a Prometheus text exposition (sampler.h):
 * the counters behind the rates as _total counters, levels as gauges in
 * bytes, percentages as 0..1 ratios, each quantity once (the zswap pool's
 * sizes from debugfs, else from meminfo, under one name). Shared by the
 * live `sample --prom` and `sample --replay ID --prom`, so both print the
 * same tick families; a live tick adds the host's state (settings, last
 * verdict, last apply) a fleet alerts on.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "swaptune/sampler.h"
#include "swaptune/settings.h"

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

/*
 * One quantity, two sources: the zswap pool's compressed and uncompressed
 * sizes are in debugfs (root) and in meminfo (anyone). The exposition has
 * each once, under the debugfs family's name, from meminfo when debugfs
 * cannot be read; the meminfo families are not printed on their own.
 */
static const struct {
	enum sample_metric primary, fallback;
	const char *help;
} twins[] = {
	{ SM_ZP_STORED_PAGES, SM_ZSWAPPED_BYTES,
	  "uncompressed size of the pages held in the zswap pool in bytes (debugfs stored_pages x page size, else meminfo Zswapped)" },
	{ SM_ZP_POOL_BYTES, SM_ZSWAP_BYTES,
	  "compressed size of the zswap pool in bytes (debugfs pool_total_size, else meminfo Zswap)" },
};
#define NTWINS (sizeof(twins) / sizeof(twins[0]))

/*
 * Families renamed, still printed under their old name for the dashboards
 * that use it, with a HELP that says so. swaptune_zswap_compression_ratio
 * broke the rule that a _ratio is a share in 0..1 (Prometheus' naming
 * practice; a factor of 3 is A_per_B instead).
 */
static const struct { enum sample_metric m; const char *old; } renamed[] = {
	{ SM_ZSWAP_RATIO, "swaptune_zswap_compression_ratio" },
};

static void gauges(struct obuf *b, const struct sample_prom_src *src)
{
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = sampler_metric((enum sample_metric)m);
		const char *help = d->row->help;
		bool skip = false, have, as_bytes = false;
		double v = 0;

		for (size_t t = 0; t < NTWINS; t++)
			skip |= twins[t].fallback == (enum sample_metric)m;
		if (skip || !d->prom)
			continue;
		have = src->value(src->arg, (enum sample_metric)m, &v);
		for (size_t t = 0; t < NTWINS; t++)
			if (twins[t].primary == (enum sample_metric)m) {
				help = twins[t].help;
				if (!have && src->value(src->arg, twins[t].fallback, &v)) {
					have = true;
					as_bytes = true;
				}
			}
		if (!have)
			continue;
		if (!as_bytes && d->prom_unit == SPU_PAGES_TO_BYTES && src->page_size <= 0)
			continue;	/* a recording without its page size */
		family(b, d->prom, "gauge", help, src, d->group);
		if (as_bytes)
			oput(b, " %.0f\n", v);
		else if (d->prom_unit == SPU_PAGES_TO_BYTES)
			oput(b, " %.0f\n", v * src->page_size);
		else if (d->prom_unit == SPU_PCT_TO_RATIO)
			oput(b, " %.10g\n", v / 100);
		else if (d->integral)
			oput(b, " %.0f\n", v);
		else
			oput(b, " %.10g\n", v);
		for (size_t r = 0; r < sizeof(renamed) / sizeof(renamed[0]); r++)
			if (renamed[r].m == (enum sample_metric)m && d->prom_unit == SPU_SAME && !as_bytes) {
				char h[160];

				snprintf(h, sizeof(h), "deprecated: the same value as %s (a _ratio is a share in 0..1)",
					 d->prom);
				family(b, renamed[r].old, "gauge", h, src, d->group);
				oput(b, " %.10g\n", v);
			}
	}
}

/* A setting's value as a number: an integer, or a boolean as 1/0; false for text (a compressor). */
static bool setting_number(const char *name, const char *value, double *v)
{
	const struct setting_def *d = settings_find(name);
	char *end;

	if (!d)
		return false;
	switch (d->type) {
	case SETTING_INT:
		*v = strtod(value, &end);
		return end != value && !*end;
	case SETTING_BOOL_YN:
	case SETTING_BOOL_WORD:
		*v = settings_equal(d, value, d->type == SETTING_BOOL_YN ? "Y" : "true") ? 1 : 0;
		return true;
	case SETTING_COMPRESSOR:
		break;
	}
	return false;
}

static void settings_families(struct obuf *b, const struct settings_snapshot *ss)
{
	bool head = false;
	double v;

	for (int i = 0; i < ss->n; i++) {
		const struct setting_value *x = &ss->items[i];

		if (!x->present || !setting_number(x->name, x->value, &v))
			continue;
		if (!head)
			oput(b, "# HELP swaptune_setting a kernel setting swaptune tunes, as in effect now "
			     "(booleans 1/0; see swaptune_setting_info for text values)\n"
			     "# TYPE swaptune_setting gauge\n");
		head = true;
		oput(b, "swaptune_setting{name=\"");
		olabel(b, x->name);
		oput(b, "\"} %.0f\n", v);
	}
	head = false;
	for (int i = 0; i < ss->n; i++) {
		const struct setting_value *x = &ss->items[i];

		if (!x->present || setting_number(x->name, x->value, &v))
			continue;
		if (!head)
			oput(b, "# HELP swaptune_setting_info a kernel setting swaptune tunes whose value is "
			     "text, in the value label (value is always 1)\n"
			     "# TYPE swaptune_setting_info gauge\n");
		head = true;
		oput(b, "swaptune_setting_info{name=\"");
		olabel(b, x->name);
		oput(b, "\",value=\"");
		olabel(b, x->value);
		oput(b, "\"} 1\n");
	}
}

static void state_families(struct obuf *b, const struct sample_prom_state *st)
{
	if (st->settings)
		settings_families(b, st->settings);
	if (st->has_verdict) {
		oput(b, "# HELP swaptune_last_verdict_info the verdict the newest probe run of this host "
		     "stored: keep, change or inconclusive, and the arm (value is always 1)\n"
		     "# TYPE swaptune_last_verdict_info gauge\n"
		     "swaptune_last_verdict_info{run=\"%lld\",verdict=\"", st->verdict_run);
		olabel(b, st->verdict);
		oput(b, "\",arm=\"");
		olabel(b, st->verdict_arm);
		oput(b, "\"} 1\n"
		     "# HELP swaptune_last_verdict_timestamp_seconds when the probe run of "
		     "swaptune_last_verdict_info ended (Unix time)\n"
		     "# TYPE swaptune_last_verdict_timestamp_seconds gauge\n"
		     "swaptune_last_verdict_timestamp_seconds %.3f\n", st->verdict_unix);
	}
	if (st->has_kernel) {
		oput(b, "# HELP swaptune_kernel_info the running kernel's fingerprint: release, cgroup "
		     "version, swap readahead algorithm, zswap enabled since boot, large-folio swap-in "
		     "possible, MGLRU on (value is always 1)\n"
		     "# TYPE swaptune_kernel_info gauge\n"
		     "swaptune_kernel_info{release=\"");
		olabel(b, st->kernel_release);
		oput(b, "\",cgroup=\"");
		olabel(b, st->kernel_cgroup);
		oput(b, "\",readahead=\"");
		olabel(b, st->kernel_readahead);
		oput(b, "\",zswap_ever_enabled=\"");
		olabel(b, st->kernel_zswap_ever);
		oput(b, "\",large_folio_swapin=\"");
		olabel(b, st->kernel_large_folio);
		oput(b, "\",mglru=\"");
		olabel(b, st->kernel_mglru);
		oput(b, "\"} 1\n");
	}
	if (st->has_applied) {
		oput(b, "# HELP swaptune_applied_setting_kernel_mismatch 1 when the setting applied now was "
		     "decided on another kernel release, cgroup version, readahead algorithm, large-folio "
		     "or MGLRU state than the running one (check it with swaptune verify), 0 when not, "
		     "NaN when its run stored no fingerprint\n"
		     "# TYPE swaptune_applied_setting_kernel_mismatch gauge\n"
		     "swaptune_applied_setting_kernel_mismatch{run=\"%lld\"} ", st->applied_run);
		if (st->applied_mismatch < 0)
			oput(b, "NaN\n");
		else
			oput(b, "%d\n", st->applied_mismatch);
	}
	if (st->has_apply)
		oput(b, "# HELP swaptune_last_apply_timestamp_seconds when swaptune last applied a "
		     "change to this host (Unix time)\n"
		     "# TYPE swaptune_last_apply_timestamp_seconds gauge\n"
		     "swaptune_last_apply_timestamp_seconds %.3f\n", st->apply_unix);
	oput(b, "# HELP swaptune_pending_confirm_seconds seconds until an apply --confirm-within that "
	     "nobody confirmed undoes itself (0: none waiting)\n"
	     "# TYPE swaptune_pending_confirm_seconds gauge\n"
	     "swaptune_pending_confirm_seconds %.0f\n", st->pending_confirm_s);
	if (st->has_rollback)
		oput(b, "# HELP swaptune_last_rollback_timestamp_seconds when swaptune last rolled "
		     "this host back (Unix time)\n"
		     "# TYPE swaptune_last_rollback_timestamp_seconds gauge\n"
		     "swaptune_last_rollback_timestamp_seconds %.3f\n", st->rollback_unix);
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
	if (src->state)
		state_families(&b, src->state);
	return b.overflow ? -ENOSPC : (int)b.used;
}
