/*
 * cmd-sample.c - `swaptune sample`: periodic sampling of the swap path as a
 * live table, JSON lines, Prometheus text, and/or a recorded run in the
 * store. The numbers come from the sampler (sampler.h); this file only
 * schedules ticks and renders them.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/fmt.h"
#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/kernel-check.h"
#include "swaptune/replay.h"
#include "swaptune/sampler.h"
#include "swaptune/settings.h"
#include "swaptune/stop.h"
#include "swaptune/utc.h"

#define MIN_INTERVAL_NS 10000000LL		/* 10 ms */
#define MAX_INTERVAL_NS (24LL * 3600 * 1000000000LL)
#define HEADER_EVERY 20
#define OUT_BUF 65536

enum out_mode { OUT_TABLE, OUT_JSON, OUT_PROM };

struct sample_args {
	long long interval_ns;
	long long duration_ns;		/* 0 = unlimited */
	uint64_t count;			/* 0 = unlimited */
	enum out_mode mode;
	bool prom;
	const char *prom_file;
	bool record;
	long long replay;		/* --replay ID, 0 = live */
	struct sampler_opts so;
};

/* ---- the live table ---- */

/*
 * Column i of the live table (shown_sample_table[], heads from the
 * vocabulary); with --cgroup two columns show the cgroup instead, and the
 * CPU column what the counters can say.
 */
static enum sample_metric column_for(const struct sampler *s, size_t i)
{
	enum sample_metric m = shown_sample_table[i];

	if (sampler_has_cgroup(s) && m == SM_ZSWPWB)
		return SM_CG_PGMAJFAULT;
	if (sampler_has_cgroup(s) && m == SM_ZSWAP_RATIO)
		return SM_CG_ANON_BYTES;
	if (m == SM_CPU_BUSY_PCT && !strcmp(sampler_cpu_source(s), "hardware"))
		return SM_IPC;
	if (m == SM_CPU_BUSY_PCT && strcmp(sampler_cpu_target(s), "pid") &&
	    strcmp(sampler_cpu_target(s), "cgroup"))
		return SM_PGSCAN;	/* no task-clock system-wide */
	return m;
}

static void table_header(FILE *o, const struct sampler *s)
{
	fprintf(o, "%-8s", "UTC");	/* times in UTC, as everywhere else */
	for (size_t i = 0; i < SHOWN_N_sample_table; i++)
		fprintf(o, "%6s", sampler_metric(column_for(s, i))->head);
	fputc('\n', o);
}

static void table_row(FILE *o, const struct sampler *s, uint64_t wall_ns)
{
	time_t secs = (time_t)(wall_ns / 1000000000ULL);
	struct tm tm;
	char t[16], b[16];
	double v = 0;

	gmtime_r(&secs, &tm);
	strftime(t, sizeof(t), "%H:%M:%S", &tm);
	fprintf(o, "%-8s", t);
	for (size_t i = 0; i < SHOWN_N_sample_table; i++) {
		enum sample_metric m = column_for(s, i);
		bool ok = sampler_value(s, m, &v);

		fprintf(o, "%6s", fmt_short(b, sizeof(b), ok, v * sample_table_scale(m)));
	}
	fputc('\n', o);
}

/* text folded at spaces to 79 columns; continuation lines start with cont */
static void fold_print(FILE *o, const char *first, const char *cont, const char *text)
{
	char line[80];
	size_t n;
	const char *p = text;

	n = (size_t)snprintf(line, sizeof(line), "%s", first);
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t w = sp ? (size_t)(sp - p) : strlen(p);

		if (n + w > 79 && n > 4) {
			while (n && line[n - 1] == ' ')
				n--;
			fprintf(o, "%.*s\n", (int)n, line);
			n = (size_t)snprintf(line, sizeof(line), "%s", cont);
		}
		if (w > 79 - n)
			w = 79 - n;
		memcpy(line + n, p, w);
		n += w;
		p += w;
		while (*p == ' ')
			p++;
		if (*p && n < 79)
			line[n++] = ' ';
	}
	fprintf(o, "%.*s\n", (int)n, line);
}

/* A note, "# " in front of each line. */
static void table_note(FILE *o, const char *what, const char *text)
{
	char first[64];

	snprintf(first, sizeof(first), "# %s: ", what);
	fold_print(o, first, "#   ", text);
}

static void table_note_raw(FILE *o, const char *text)
{
	fold_print(o, "", "  ", text);
}

/* What each column is, in the vocabulary's words: "zsin = zswpin, ..." */
static void table_legend(FILE *o, const struct sampler *s)
{
	char text[1024];
	size_t n = (size_t)snprintf(text, sizeof(text), "rates per second, sizes in MiB:");

	for (size_t i = 0; i < SHOWN_N_sample_table && n < sizeof(text); i++) {
		const struct sample_metric_def *d = sampler_metric(column_for(s, i));

		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s %s = %s", i ? "," : "",
				      d->head, d->row->name);
	}
	fold_print(o, "# ", "#   ", text);
}

static void table_notes(FILE *o, const struct sampler *s)
{
	for (int g = 0; g < SG_COUNT; g++) {
		const char *why = g == SG_CPU ? sampler_cpu_note(s) :
				  sampler_unavailable(s, (enum sample_group)g);

		if (why)
			table_note(o, sampler_group_name((enum sample_group)g), why);
	}
	table_legend(o, s);
}

/* ---- Prometheus text exposition (sample_prom_format) ---- */

/*
 * A value as the JSON line records it (%.10g): the replay of a recording
 * then prints the very same exposition as the live run did.
 */
static bool live_value(const void *arg, enum sample_metric m, double *v)
{
	char t[40];

	if (!sampler_value(arg, m, v))
		return false;
	if (!sampler_metric(m)->integral) {
		snprintf(t, sizeof(t), "%.10g", *v);
		*v = strtod(t, NULL);
	}
	return true;
}

static bool live_counter(const void *arg, enum sample_counter c, double *v)
{
	uint64_t u;

	if (!sampler_counter(arg, c, &u))
		return false;
	*v = (double)u;
	return true;
}

/* "change" for the stored verdict kinds, old ("switch") and new */
static const char *verdict_word(const char *kind)
{
	if (!strcmp(kind, "switch") || !strcmp(kind, "change"))
		return "change";
	if (!strcmp(kind, "keep") || !strcmp(kind, "inconclusive"))
		return kind;
	return "unknown";
}

/*
 * The verdict this host's newest probe run stored, from its summary: one
 * row read (bounded). Another host's imported run is not this host's state.
 */
static void state_verdict(struct store *st, struct sample_prom_state *ps)
{
	struct store_run ri;
	struct st_err e = { 0 };
	int64_t id;
	cJSON *sum, *v;

	if (store_run_latest(st, "probe", true, &id, &e) < 0 || store_run_get(st, id, &ri, &e) < 0)
		return;
	sum = ri.summary && !strcmp(ri.status, "ok") ? cJSON_Parse(ri.summary) : NULL;
	v = cJSON_GetObjectItemCaseSensitive(sum, "verdict");
	if (cJSON_IsString(cJSON_GetObjectItem(v, "kind")) &&
	    fmt_parse_time(ri.ended_at[0] ? ri.ended_at : ri.started_at, &ps->verdict_unix) == 0) {
		const cJSON *arm = cJSON_GetObjectItem(v, "arm");

		ps->has_verdict = true;
		ps->verdict_run = (long long)id;
		snprintf(ps->verdict, sizeof(ps->verdict), "%s",
			 verdict_word(cJSON_GetObjectItem(v, "kind")->valuestring));
		snprintf(ps->verdict_arm, sizeof(ps->verdict_arm), "%s",
			 cJSON_IsString(arm) ? arm->valuestring : "");
	}
	cJSON_Delete(sum);
	store_run_free(&ri);
}

/* When the newest "ok" run of kind (apply, rollback) among the 20 newest started: bounded. */
static bool state_last(struct store *st, const char *kind, double *when)
{
	struct store_run *rows;
	struct st_err e = { 0 };
	bool found;
	int i, n = 0;

	if (store_runs_list(st, &(struct store_runs_which){ .kind1 = kind, .limit = 20 },
			    &rows, &n, &e) < 0)
		return false;
	for (i = 0; i < n && strcmp(rows[i].status, "ok"); i++)
		;
	found = i < n && fmt_parse_time(rows[i].started_at, when) == 0;
	store_runs_free(rows, n);
	return found;
}

/* The running kernel's fingerprint, and the applied setting's against it. */
static void state_kernel(struct cmd_ctx *ctx, struct sample_prom_state *ps)
{
	struct kernel_fingerprint fp;
	struct kcheck_applied a;
	struct st_err e = { 0 };
	int r;

	kcheck_now(&ctx->store, &ctx->host, &fp);
	ps->has_kernel = true;
	snprintf(ps->kernel_release, sizeof(ps->kernel_release), "%s", fp.release[0] ? fp.release : "unknown");
	snprintf(ps->kernel_cgroup, sizeof(ps->kernel_cgroup), "%s",
		 fp.have_cgroup ? cgroup_mode_name(fp.cgroup) : "unknown");
	snprintf(ps->kernel_readahead, sizeof(ps->kernel_readahead), "%s",
		 fingerprint_readahead_name(fp.readahead));
	snprintf(ps->kernel_zswap_ever, sizeof(ps->kernel_zswap_ever), "%s",
		 fingerprint_tri_name(fp.zswap_ever));
	snprintf(ps->kernel_large_folio, sizeof(ps->kernel_large_folio), "%s",
		 fingerprint_tri_name(fp.large_folio_swapin));
	snprintf(ps->kernel_mglru, sizeof(ps->kernel_mglru), "%s", fingerprint_tri_name(fp.mglru));
	r = kcheck_applied(&ctx->store, &fp, &a, &e);
	if (r == 0 || !a.applied.apply_run)
		return;		/* nothing applied, or the store could not say */
	ps->has_applied = true;
	ps->applied_run = (long long)a.applied.apply_run;
	ps->applied_mismatch = r < 0 || !a.k.have_then ? -1 : a.k.diff != 0;
}

/*
 * The host's state for the exposition: settings now, the stored verdict,
 * the last apply and rollback. Best effort: what cannot be read is left out.
 */
static void prom_state(struct cmd_ctx *ctx, struct settings_snapshot *ss, struct sample_prom_state *ps)
{
	struct st_err e = { 0 };

	memset(ps, 0, sizeof(*ps));
	if (settings_snapshot(&ctx->host, ss, &e) == 0)
		ps->settings = ss;
	state_verdict(&ctx->store, ps);
	state_kernel(ctx, ps);
	ps->has_apply = state_last(&ctx->store, "apply", &ps->apply_unix);
	ps->has_rollback = state_last(&ctx->store, "rollback", &ps->rollback_unix);
	{
		struct change_pending p;

		if (change_pending_confirm(&ctx->store, &ctx->host, &p, &e) == 1 && p.deadline > 0)
			ps->pending_confirm_s = fmax(0, p.deadline - utc_now());
	}
}

static int prom_format(const struct sampler *s, const struct sample_prom_state *ps, char *buf, size_t len)
{
	struct sample_prom_src src = {
		.state = ps,
		.arg = s, .value = live_value, .counter = live_counter,
		.cgroup = sampler_cgroup_path(s), .cpu_source = sampler_cpu_source(s),
		.cpu_target = sampler_cpu_target(s), .interval_s = sampler_interval_s(s),
		.seq = sampler_seq(s), .page_size = (double)sampler_page_size(s),
	};

	return sample_prom_format(&src, buf, len);
}

/* ---- options ---- */

/* --pid: a process that exists now */
static int parse_pid(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	long long pid;

	if (fmt_parse_i64(arg, 1, 4194304, &pid) < 0)
		return err_set(e, -EINVAL, "--%s needs a process id, not \"%s\"", o->name, arg);
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return err_set(e, -EINVAL, "--%s %s: no such process", o->name, arg);
	*(pid_t *)dst = (pid_t)pid;
	return 0;
}

static const struct opt_spec sample_opts[] = {
	OPT_DURATION("interval", 'i', "time between ticks, 10ms to 24h (default 1s)",
		     struct sample_args, interval_ns, MIN_INTERVAL_NS, MAX_INTERVAL_NS),
	OPT_U64("count", 'n', "N", "stop after N ticks", struct sample_args, count, 1, INT64_MAX),
	OPT_DURATION("duration", 'd', "stop after DUR (e.g. 30s, 5m); default: until Ctrl-C",
		     struct sample_args, duration_ns, 1, 0),
	OPT_STRING("cgroup", 0, "PATH", "also sample this memory cgroup (path under the memory "
		   "controller)", struct sample_args, so.cgroup, "a cgroup path", OPT_COMPLETE_NONE),
	OPT_CUSTOM("pid", 0, "PID", "count CPU events of this process (and its children)",
		   struct sample_args, so.pid, parse_pid, OPT_COMPLETE_NONE),
	OPT_FLAG_OFF("no-cpu", "do not open CPU counters", struct sample_args, so.cpu_counters),
	OPT_FLAG("prom", 0, "Prometheus text: counters as _total, one exposition per tick",
		 struct sample_args, prom),
	OPT_STRING("prom-file", 0, "PATH", "with --prom: replace PATH atomically each tick instead "
		   "of printing", struct sample_args, prom_file, "a file", OPT_COMPLETE_FILE),
	OPT_FLAG("record", 0, "store the ticks as a sample run in the database", struct sample_args,
		 record),
	OPT_ID("replay", "ID", "print recording ID (see history --all) as it was live, with --json or "
	       "--prom too", struct sample_args, replay, "a recording's run id", OPT_COMPLETE_RECORDING),
	{ NULL },
};

static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct sample_args *a)
{
	const struct cmd_entry *c = &cmd_sample_entry;
	int r;

	memset(a, 0, sizeof(*a));
	a->interval_ns = 1000000000LL;
	a->so.cpu_counters = true;
	a->so.zswap_pool = true;
	if ((r = cmd_parse(ctx, c, argc, argv, a, NULL)) < 0)
		return r;
	if (a->prom && ctx->json)
		return cmd_usage_error(ctx, c, "--prom and --json exclude each other");
	a->mode = a->prom ? OUT_PROM : ctx->json ? OUT_JSON : OUT_TABLE;
	if (a->prom_file && a->mode != OUT_PROM)
		return cmd_usage_error(ctx, c, "--prom-file needs --prom");
	if (a->replay && (a->record || a->prom_file))
		return cmd_usage_error(ctx, c, "--replay prints a recording: no --record or --prom-file");
	return 0;
}

/* ---- the loop ---- */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static char *params_json(const struct sample_args *a)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "interval_s", (double)a->interval_ns / 1e9);
	if (a->count)
		cJSON_AddNumberToObject(o, "count", (double)a->count);
	if (a->duration_ns)
		cJSON_AddNumberToObject(o, "duration_s", (double)a->duration_ns / 1e9);
	if (a->so.cgroup)
		cJSON_AddStringToObject(o, "cgroup", a->so.cgroup);
	if (a->so.pid)
		cJSON_AddNumberToObject(o, "pid", a->so.pid);
	cJSON_AddBoolToObject(o, "cpu_counters", a->so.cpu_counters);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static void print_summary(FILE *o, const struct sampler *s, const char *how, bool fold)
{
	char line[1024];
	size_t n;
	bool any = false;
	double v;

	char el[FMT_NUM_LEN];

	n = (size_t)snprintf(line, sizeof(line), "sample: %s after %" PRIu64 " tick%s in %s s",
			     how, sampler_seq(s), sampler_seq(s) == 1 ? "" : "s",
			     fmt_num(sampler_elapsed_s(s), el, sizeof(el)));
	for (size_t i = 0; i < SHOWN_N_sample_summary; i++)
		if (sampler_mean(s, shown_sample_summary[i], &v) && n < sizeof(line)) {
			const struct sample_metric_def *d = sampler_metric(shown_sample_summary[i]);

			char num[FMT_NUM_LEN];

			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s %s%s%s",
					      any ? "," : "; means:", d->row->name, fmt_num(v, num, sizeof(num)),
					      d->unit[0] ? " " : "", d->unit);
			any = true;
		}
	if (fold)
		table_note_raw(o, line);
	else
		fprintf(o, "%s\n", line);
}

static char *summary_json(const struct sampler *s)
{
	cJSON *o = cJSON_CreateObject(), *means;
	char *text;
	double v;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "ticks", (double)sampler_seq(s));
	cJSON_AddNumberToObject(o, "elapsed_s", sampler_elapsed_s(s));
	means = cJSON_AddObjectToObject(o, "means");
	for (int m = 0; m < SM_COUNT; m++)
		if (means && sampler_mean(s, (enum sample_metric)m, &v)) {
			const struct sample_metric_def *d = sampler_metric((enum sample_metric)m);
			char key[96];

			snprintf(key, sizeof(key), "%s.%s", sampler_group_name(d->group), d->key);
			cJSON_AddNumberToObject(means, key, v);
		}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static void register_host(struct cmd_ctx *ctx)
{
	char mid[128] = "", name[128] = "", kernel[128] = "";

	/* best effort: a run without a host row is still a run */
	if (host_read_machine_id(&ctx->host, mid, sizeof(mid)) < 0)
		snprintf(mid, sizeof(mid), "unknown");
	if (host_read_line(&ctx->host, HOST_HOSTNAME, name, sizeof(name), NULL) < 0)
		gethostname(name, sizeof(name));
	host_kernel_release(&ctx->host, kernel, sizeof(kernel), NULL);
	store_register_host(&ctx->store, mid, name, kernel, NULL);
}

/* One tick as made for the output, once a tick for the output and the recording alike. */
struct tick_out {
	uint64_t wall_ns;	/* the tick's wall clock (the table's time) */
	char *json;		/* its JSON line: n_json bytes, room for one more */
	int n_json;
	char *prom_buf;		/* OUT_BUF bytes for the Prometheus text */
};

/* One tick out; rows: ticks written so far (a table repeats its header by it). */
static int emit(struct cmd_ctx *ctx, const struct sample_args *a, struct sampler *s,
		const struct tick_out *t, uint64_t *rows)
{
	char *buf = t->prom_buf, *json = t->json;
	int n, n_json = t->n_json;

	switch (a->mode) {
	case OUT_TABLE:
		if (*rows % HEADER_EVERY == 0)
			table_header(ctx->out, s);
		table_row(ctx->out, s, t->wall_ns);
		break;
	case OUT_JSON:
		json[n_json] = '\n';	/* one write with its newline */
		fwrite(json, 1, (size_t)n_json + 1, ctx->out);
		json[n_json] = '\0';
		break;
	case OUT_PROM: {
		struct settings_snapshot ss;
		struct sample_prom_state ps;

		prom_state(ctx, &ss, &ps);
		n = prom_format(s, &ps, buf, OUT_BUF);
		if (n < 0)
			return err_set(&ctx->err, n, "sample: tick too large to format");
		if (a->prom_file)
			return host_user_file_replace(a->prom_file, buf, (size_t)n, 0644, &ctx->err);
		if (*rows)
			fputc('\n', ctx->out);
		fwrite(buf, 1, (size_t)n, ctx->out);
		break;
	}
	}
	(*rows)++;
	if (fflush(ctx->out) != 0 || ferror(ctx->out))
		return err_set(&ctx->err, -EPIPE, "sample: cannot write output");
	return 0;
}

/* one sampling run, from the open sampler to its summary */
struct sample_run {
	struct sample_args a;
	struct sampler *s;
	struct sample_recording rec;
	char *buf, *jbuf;		/* OUT_BUF each: identity and Prometheus text, a JSON line */
	uint64_t rows;
	const char *how;		/* how it ended, for the summary */
	char how_buf[48];
};

/* the sampler open, each line's identity, the recording begun (--record): 0, or an error */
static int sample_begin(struct cmd_ctx *ctx, struct sample_run *run)
{
	struct sample_args *a = &run->a;
	int r;

	/* the heap, not static buffers: nothing shared should a thread ever sample */
	run->buf = malloc(2 * OUT_BUF);
	if (!run->buf)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	run->jbuf = run->buf + OUT_BUF;
	r = sampler_open(&run->s, &ctx->host, &a->so, &ctx->err);
	if (r < 0)
		return r;
	if (cmd_identity_members(&ctx->host, run->buf, OUT_BUF) > 0)
		sampler_set_json_members(run->s, run->buf);	/* every line says whose it is */
	else
		run->buf[0] = '\0';
	if (a->record) {
		char *params = params_json(a);

		register_host(ctx);
		r = store_samples_begin(&run->rec, &ctx->store, params, &ctx->err);
		cJSON_free(params);
		if (r < 0)
			return r;
		/* a script reads the recording's id from any line, not from the text */
		if (ctx->json) {
			size_t n = strlen(run->buf);

			snprintf(run->buf + n, OUT_BUF - n, "%s\"recorded_run\":%lld", n ? "," : "",
				 (long long)run->rec.run_id);
			sampler_set_json_members(run->s, run->buf);
		}
	}
	return 0;
}

/* one tick after the baseline: printed, recorded; 0, or an error (-EPIPE: the reader left) */
static int sample_one(struct cmd_ctx *ctx, struct sample_run *run, uint64_t now, uint64_t start)
{
	uint64_t wall = clock_ns(CLOCK_REALTIME);
	int n_json = 0, r = sampler_tick(run->s, now, wall, &ctx->err);

	if (r < 0)
		return r;
	if (run->a.mode == OUT_JSON) {
		n_json = sampler_format_json(run->s, run->jbuf, OUT_BUF - 1);
		if (n_json < 0)
			return err_set(&ctx->err, n_json, "sample: tick too large to format");
	}
	r = emit(ctx, &run->a, run->s, &(struct tick_out){ .wall_ns = wall, .json = run->jbuf,
		 .n_json = n_json, .prom_buf = run->buf }, &run->rows);
	if (r < 0 || !run->a.record)
		return r;
	{
		struct sample_tick t;

		sampler_tick_get(run->s, &t);
		return store_samples_add(&run->rec, now - start, &t, &ctx->err);
	}
}

/* the baseline, then a tick every interval until --count, --duration or a signal: 0, or an error */
static int sample_loop(struct cmd_ctx *ctx, struct sample_run *run)
{
	const struct sample_args *a = &run->a;
	uint64_t start = clock_ns(CLOCK_MONOTONIC), next;
	int r = sampler_tick(run->s, start, clock_ns(CLOCK_REALTIME), &ctx->err);

	if (r == 0 && a->mode == OUT_TABLE)
		table_notes(ctx->out, run->s);
	next = start + (uint64_t)a->interval_ns;
	while (r == 0 && !stop_signal) {
		struct timespec ts = { (time_t)(next / 1000000000ULL), (long)(next % 1000000000ULL) };
		uint64_t now;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0 && stop_signal)
			break;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now < next)
			continue;	/* woken early by a signal we ignore */
		r = sample_one(ctx, run, now, start);
		if (r == -EPIPE) {	/* reader went away: end as interrupted */
			err_reset(&ctx->err);
			run->how = "output closed";
			stop_signal = SIGPIPE;
			return 0;
		}
		if (r < 0)
			break;
		if (a->count && sampler_seq(run->s) >= a->count)
			break;
		if (a->duration_ns && now - start + (uint64_t)a->interval_ns / 2 >= (uint64_t)a->duration_ns)
			break;
		next += (uint64_t)a->interval_ns;
		if (next <= now)	/* fell behind (stopped, slow disk): skip, do not burst */
			next = now + (uint64_t)a->interval_ns;
	}
	return r;
}

/* the summary (unless --prom-file ran quietly), the recording ended: r, or the end's error */
static int sample_finish(struct cmd_ctx *ctx, struct sample_run *run, int r)
{
	const struct sample_args *a = &run->a;

	if (stop_signal && stop_signal != SIGPIPE) {
		snprintf(run->how_buf, sizeof(run->how_buf), "interrupted (%s)",
			 stop_signal_name(stop_signal));
		run->how = run->how_buf;
	}
	/* with --prom-file it runs from cron or a timer: nothing to say when all went well */
	if ((r == 0 || stop_signal) && !a->prom_file) {
		FILE *o = a->mode == OUT_TABLE && stop_signal != SIGPIPE ? ctx->out : stderr;

		print_summary(o, run->s, run->how, o == ctx->out);
		fflush(o);
	}
	if (a->record) {
		char *sum = summary_json(run->s);
		struct st_err e2 = { 0 };
		int r2 = store_samples_end(&run->rec, r < 0 ? "failed" : stop_signal ? "interrupted" : "ok",
					   sum, r < 0 ? &e2 : &ctx->err);

		cJSON_free(sum);
		if (r == 0 && r2 < 0)
			r = r2;
		if (r == 0 && a->mode == OUT_TABLE)
			fprintf(ctx->out, "sample: recorded run %lld (%" PRIu64 " ticks) in %s\n",
				(long long)run->rec.run_id, run->rec.rows, ctx->db_path);
	}
	return r;
}

static int sample_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct sample_run run = { .how = "done" };
	struct stop_catch stop;
	int r = parse_args(ctx, argc, argv, &run.a);

	if (r < 0)
		return r;
	if (run.a.replay)
		return sample_replay(&ctx->store, run.a.replay, run.a.mode == OUT_JSON ? REPLAY_JSON :
				     run.a.mode == OUT_PROM ? REPLAY_PROM : REPLAY_TABLE, ctx->out, &ctx->err);
	r = sample_begin(ctx, &run);
	if (r == 0) {
		stop_catch(&stop, STOP_IGNORE_PIPE);	/* the sleep ends; a closed pipe ends the run */
		r = sample_finish(ctx, &run, sample_loop(ctx, &run));
		stop_release(&stop);
	}
	sampler_close(run.s);
	free(run.buf);
	return r < 0 ? r : 0;
}

const struct cmd_entry cmd_sample_entry = {
	.name = "sample",
	.summary = "sample swap, zswap, readahead, PSI and CPU counters periodically",
	.usage = "[--interval DUR] [--count N] [--duration DUR] [--cgroup PATH] [--pid PID] [--no-cpu] [--json | --prom [--prom-file PATH]] [--record] [--replay ID]",
	.group = CMD_GROUP_INSPECT,
	.opts = { sample_opts },
	.exec = sample_exec,
};
