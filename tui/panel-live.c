/*
 * panel-live.c - live rates from the sampler, with a short history drawn as
 * a sparkline per metric.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/sampler.h"
#include "swaptune/fmt.h"
#include "tui-internal.h"

#define HISTORY 120

/* What the screen shows: shown_tui_live, in the vocabulary's words and units (keys in sample --json). */
#define NSHOWN ((int)SHOWN_N_tui_live)

struct live_state {
	struct sampler *s;
	struct st_err err;
	double hist[NSHOWN][HISTORY];
	bool have[NSHOWN][HISTORY];
	int pos;		/* next slot */
	int filled;
};

static void *live_open(struct tui_ctx *c)
{
	struct live_state *l = calloc(1, sizeof(*l));
	struct sampler_opts o = {
		.cgroup = c->o->cgroup,
		.zswap_pool = true,
	};

	if (!l)
		return NULL;
	if (sampler_open(&l->s, c->h, &o, &l->err) < 0)
		l->s = NULL;
	return l;
}

static void live_update(struct tui_ctx *c, void *p)
{
	struct live_state *l = p;
	struct timespec m, r;

	if (!l || !l->s)
		return;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	err_reset(&l->err);
	if (sampler_tick(l->s, (uint64_t)m.tv_sec * 1000000000ull + (uint64_t)m.tv_nsec,
			 (uint64_t)r.tv_sec * 1000000000ull + (uint64_t)r.tv_nsec, &l->err) < 0)
		return;
	for (int i = 0; i < NSHOWN; i++)
		l->have[i][l->pos] = sampler_value(l->s, shown_tui_live[i], &l->hist[i][l->pos]);
	l->pos = (l->pos + 1) % HISTORY;
	if (l->filled < HISTORY)
		l->filled++;
	(void)c;
}

/* Where a sparkline is drawn: width cells of row `row` of w from column col. */
struct spark_at {
	WINDOW *w;
	int row, col, width;
};

static void sparkline(struct tui_ctx *c, struct live_state *l, int i, const struct spark_at *at)
{
	WINDOW *w = at->w;
	int row = at->row, col = at->col, width = at->width;
	static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = "_.-=+*#@";
	int n = l->filled < width ? l->filled : width;
	double max = 0;

	for (int k = 0; k < n; k++) {
		int slot = (l->pos - n + k + HISTORY) % HISTORY;

		if (l->have[i][slot] && l->hist[i][slot] > max)
			max = l->hist[i][slot];
	}
	for (int k = 0; k < n; k++) {
		int slot = (l->pos - n + k + HISTORY) % HISTORY;
		int level;

		if (!l->have[i][slot]) {
			mvwaddstr(w, row, col + k, " ");
			continue;
		}
		level = max > 0 ? (int)lround(7.0 * l->hist[i][slot] / max) : 0;
		if (level < 0)
			level = 0;
		if (c->utf8)
			mvwaddstr(w, row, col + k, blocks[level]);
		else
			mvwaddch(w, row, col + k, (chtype)ascii[level]);
	}
}

static const char *fmt_tick(uint64_t ns, char *buf, size_t len)
{
	return fmt_num((double)ns / 1e9, buf, len);
}

/* A value in its unit: rates "12.3k/s", "4.5 %", sizes, "1.2k pg", "3.00 x". */
static const char *fmt_value(const char *unit, double v, char *buf, size_t len)
{
	size_t ul = strlen(unit);
	char n[32];

	if (ul > 2 && !strcmp(unit + ul - 2, "/s"))
		snprintf(buf, len, "%s/s", tui_fmt_count(v, n, sizeof(n)));
	else if (!strcmp(unit, "%"))
		fmt_pct(v, false, buf, len);
	else if (!strcmp(unit, "bytes"))
		tui_fmt_bytes(v, buf, len);
	else if (!strcmp(unit, "pages"))
		snprintf(buf, len, "%s pg", tui_fmt_count(v, n, sizeof(n)));
	else if (!strcmp(unit, "x"))
		snprintf(buf, len, "%s x", fmt_num(v, n, sizeof(n)));
	else
		snprintf(buf, len, "%s", tui_fmt_count(v, n, sizeof(n)));
	return buf;
}

/*
 * Columns: label (22), now and mean right-aligned (11 each), then the
 * sparkline in its own column after a gap, as wide as the screen allows.
 */
#define COL_NOW_END	(2 + 22 + 11)
#define COL_MEAN_END	(COL_NOW_END + 12)
#define COL_SPARK	(COL_MEAN_END + 3)

static void live_draw(struct tui_ctx *c, void *p, WINDOW *w, int rows, int cols)
{
	struct live_state *l = p;
	int y = 1, spark = cols - COL_SPARK - 1;
	char per[32];

	if (!l || !l->s) {
		tui_print_clipped(w, 1, 2, cols, "sampler unavailable: %s",
				  l ? l->err.msg : "out of memory");
		return;
	}
	if (spark > HISTORY)
		spark = HISTORY;
	wattron(w, tui_style(c, TS_TITLE));
	tui_print_clipped(w, y, 2, cols, "%-22s", "metric");
	tui_print_right(w, y, COL_NOW_END, "now");
	tui_print_right(w, y, COL_MEAN_END, "mean");
	if (spark > 4)
		tui_print_clipped(w, y, COL_SPARK, cols, "last %d s", (int)(spark * (double)c->o->interval_ns / 1e9 + 0.5));
	wattroff(w, tui_style(c, TS_TITLE));
	y++;
	for (int i = 0; i < NSHOWN && y < rows - 2; i++) {
		int last = (l->pos + HISTORY - 1) % HISTORY;
		const struct sample_metric_def *d = sampler_metric(shown_tui_live[i]);
		double mean;
		char now[32] = "n/a", avg[32] = "n/a";

		if (d->group == SG_CGROUP && !sampler_has_cgroup(l->s))
			continue;
		if (l->filled && l->have[i][last])
			fmt_value(d->unit, l->hist[i][last], now, sizeof(now));
		if (sampler_mean(l->s, shown_tui_live[i], &mean))
			fmt_value(d->unit, mean, avg, sizeof(avg));
		tui_print_clipped(w, y, 2, cols, "%-22.22s", d->row->label);
		tui_print_right(w, y, COL_NOW_END, "%s", now);
		tui_print_right(w, y, COL_MEAN_END, "%s", avg);
		if (spark > 4)
			sparkline(c, l, i, &(struct spark_at){ w, y, COL_SPARK, spark });
		y++;
	}
	y++;
	wattron(w, tui_style(c, TS_DIM));
	tui_print_clipped(w, y++, 2, cols, "rates per second over the last tick (%s s); pages are %ld bytes",
			  fmt_tick(c->o->interval_ns, per, sizeof(per)), sysconf(_SC_PAGESIZE));
	wattroff(w, tui_style(c, TS_DIM));
	for (int g = 0; g < SG_COUNT && y < rows; g++) {
		const char *why = sampler_unavailable(l->s, (enum sample_group)g);

		if (why) {
			wattron(w, tui_style(c, TS_WARN));
			tui_print_clipped(w, y++, 2, cols, "%s: %s",
					  sampler_group_name((enum sample_group)g), why);
			wattroff(w, tui_style(c, TS_WARN));
		}
	}
	if (l->err.code && y < rows)
		tui_print_clipped(w, y++, 2, cols, "last tick: %s", l->err.msg);
}

static void live_close(void *p)
{
	struct live_state *l = p;

	if (l && l->s)
		sampler_close(l->s);
	free(l);
}

const struct tui_panel tui_panel_live = {
	.title = "Live",
	.open = live_open,
	.update = live_update,
	.draw = live_draw,
	.close = live_close,
	.always_update = true,
};
