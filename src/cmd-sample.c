/*
 * cmd-sample.c - `swaptune sample`: periodic sampling of the swap path as a
 * live table, JSON lines, Prometheus text, and/or a recorded run in the
 * store. The numbers come from the sampler (sampler.h); this file only
 * schedules ticks and renders them.
 */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/fmt.h"
#include "swaptune/cmd.h"
#include "swaptune/replay.h"
#include "swaptune/sampler.h"
#include "swaptune/settings.h"

#define MIN_INTERVAL_NS 10000000LL		/* 10 ms */
#define MAX_INTERVAL_NS (24LL * 3600 * 1000000000LL)
#define HEADER_EVERY 20
#define OUT_BUF 65536

enum out_mode { OUT_TABLE, OUT_JSON, OUT_PROM };

struct sample_args {
	long long interval_ns;
	long long duration_ns;		/* 0 = unlimited */
	unsigned long long count;	/* 0 = unlimited */
	enum out_mode mode;
	const char *prom_file;
	bool record;
	long long replay;		/* --replay ID, 0 = live */
	struct sampler_opts so;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- the live table ---- */

/*
 * Column i of the live table (sample_table_cols[], heads from the
 * vocabulary); with --cgroup two columns show the cgroup instead, and the
 * CPU column what the counters can say.
 */
static enum sample_metric column_for(const struct sampler *s, size_t i)
{
	enum sample_metric m = sample_table_cols[i];

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
	for (size_t i = 0; i < SAMPLE_TABLE_COLS; i++)
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
	for (size_t i = 0; i < SAMPLE_TABLE_COLS; i++) {
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

	for (size_t i = 0; i < SAMPLE_TABLE_COLS && n < sizeof(text); i++) {
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
	struct store_run_full ri;
	struct st_err e = { 0 };
	int64_t id;
	cJSON *sum, *v;

	if (store_probe_latest_run(st, &id, &e) < 0 || store_run_full_get(st, id, &ri, &e) < 0)
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
	store_run_full_free(&ri);
}

/* When the newest "ok" run of kind (apply, rollback) among the 20 newest started: bounded. */
static bool state_last(struct store *st, const char *kind, double *when)
{
	struct store_run_row rows[20];
	struct st_err e = { 0 };
	int n = 0;

	if (store_runs_recent(st, kind, rows, 20, &n, &e) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].status, "ok"))
			return fmt_parse_time(rows[i].started_at, when) == 0;
	return false;
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
	ps->has_apply = state_last(&ctx->store, "apply", &ps->apply_unix);
	ps->has_rollback = state_last(&ctx->store, "rollback", &ps->rollback_unix);
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

/*
 * A fresh temporary file next to path: PATH.XXXXXX.tmp with a random
 * suffix, created O_EXCL|O_NOFOLLOW so that nothing planted there (a
 * symlink to a root-only file, a FIFO) is opened or truncated.
 */
static int create_tmp(const char *path, char *tmp, size_t len, struct st_err *e)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[6];
		char sfx[7];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return err_set(e, -EIO, "--prom-file %s: no random bytes", path);
		for (size_t i = 0; i < sizeof(rnd); i++)
			sfx[i] = abc[rnd[i] % (sizeof(abc) - 1)];
		sfx[6] = '\0';
		if ((size_t)snprintf(tmp, len, "%s.%s.tmp", path, sfx) >= len)
			return err_set(e, -ENAMETOOLONG, "--prom-file %s: path too long", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return err_set(e, -errno, "cannot create %s: %s (check --prom-file)", tmp,
				       strerror(errno));
	}
	return err_set(e, -EEXIST, "--prom-file %s: no free temporary name", path);
}

/* tmp file next to path, then rename(): readers never see half a file */
static int write_atomic(const char *path, const char *data, size_t n, struct st_err *e)
{
	char tmp[PATH_MAX];
	int fd = create_tmp(path, tmp, sizeof(tmp), e);

	if (fd < 0)
		return fd;
	if (fchmod(fd, 0644) < 0) {
		int saved = errno;

		close(fd);
		unlink(tmp);
		return err_set(e, -saved, "cannot chmod %s: %s", tmp, strerror(saved));
	}
	while (n > 0) {
		ssize_t w = write(fd, data, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int saved = w < 0 ? errno : EIO;

			close(fd);
			unlink(tmp);
			return err_set(e, -saved, "cannot write %s: %s", tmp, strerror(saved));
		}
		data += w;
		n -= (size_t)w;
	}
	if (fsync(fd) < 0) {
		int saved = errno;

		close(fd);
		unlink(tmp);
		return err_set(e, -saved, "cannot sync %s: %s", tmp, strerror(saved));
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int saved = errno;

		unlink(tmp);
		return err_set(e, -saved, "cannot replace %s: %s", path, strerror(saved));
	}
	return 0;
}

/* ---- options ---- */

static const struct option sample_longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'd' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "no-cpu", no_argument, NULL, 'C' },
	{ "prom", no_argument, NULL, 'P' },
	{ "prom-file", required_argument, NULL, 'F' },
	{ "record", no_argument, NULL, 'r' },
	{ "replay", required_argument, NULL, 'R' },
	{ 0, 0, 0, 0 },
};

static int parse_args(struct cmd_ctx *ctx, int argc, char **argv, struct sample_args *a)
{
	const struct cmd_entry *c = &cmd_sample_entry;
	char *end;
	int opt;

	memset(a, 0, sizeof(*a));
	a->interval_ns = 1000000000LL;
	a->mode = ctx->json ? OUT_JSON : OUT_TABLE;
	a->so.cpu_counters = true;
	a->so.zswap_pool = true;
	while ((opt = cmd_getopt(ctx, c, argc, argv, "i:n:d:", sample_longopts)) != -1) {
		switch (opt) {
		case -2:
			return -EINVAL;
		case 'i':
			if (fmt_parse_duration(optarg, &a->interval_ns) < 0 ||
			    a->interval_ns < MIN_INTERVAL_NS || a->interval_ns > MAX_INTERVAL_NS)
				return cmd_usage_error(ctx, c, "--interval %s: give 10ms to 24h (e.g. 200ms, 5s, 1m)",
						       optarg);
			break;
		case 'd':
			if (fmt_parse_duration(optarg, &a->duration_ns) < 0 || a->duration_ns <= 0)
				return cmd_usage_error(ctx, c, "--duration %s: give a duration such as 30s or 5m",
						       optarg);
			break;
		case 'n':
			errno = 0;
			a->count = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || a->count == 0)
				return cmd_usage_error(ctx, c, "--count %s: give a number of ticks >= 1", optarg);
			break;
		case 'c':
			a->so.cgroup = optarg;
			break;
		case 'p': {
			long pid;

			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > 4194304)
				return cmd_usage_error(ctx, c, "--pid %s: give a process id", optarg);
			if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
				return cmd_usage_error(ctx, c, "--pid %s: no such process", optarg);
			a->so.pid = (pid_t)pid;
			break;
		}
		case 'C':
			a->so.cpu_counters = false;
			break;
		case 'P':
			if (a->mode == OUT_JSON)
				return cmd_usage_error(ctx, c, "--prom and --json exclude each other");
			a->mode = OUT_PROM;
			break;
		case 'F':
			a->prom_file = optarg;
			break;
		case 'r':
			a->record = true;
			break;
		case 'R':
			a->replay = strtoll(optarg, &end, 10);
			if (*end || a->replay <= 0)
				return cmd_usage_error(ctx, c, "--replay needs a recording's run id, not \"%s\"", optarg);
			break;
		default:
			return cmd_usage_error(ctx, c, "unexpected option");
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, c, "unexpected argument \"%s\"", argv[optind]);
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

/* the rates the summary line and the run's summary name */
static const enum sample_metric summary_metrics[] = {
	SM_ZSWPOUT, SM_ZSWPIN, SM_ZSWPWB, SM_SWAP_RA, SM_SWAP_RA_HIT, SM_RA_WASTED,
	SM_PGMAJFAULT, SM_PSI_SOME_PCT, SM_PSI_FULL_PCT, SM_CPU_BUSY_PCT, SM_IPC,
};

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
	for (size_t i = 0; i < sizeof(summary_metrics) / sizeof(summary_metrics[0]); i++)
		if (sampler_mean(s, summary_metrics[i], &v) && n < sizeof(line)) {
			const struct sample_metric_def *d = sampler_metric(summary_metrics[i]);

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

/*
 * One tick out. json: the tick's JSON line (n_json bytes, room for one
 * more), made once a tick for the output and the recording alike.
 */
static int emit(struct cmd_ctx *ctx, const struct sample_args *a, struct sampler *s,
		char *buf, char *json, int n_json, uint64_t wall_ns, uint64_t *rows)
{
	int n;

	switch (a->mode) {
	case OUT_TABLE:
		if (*rows % HEADER_EVERY == 0)
			table_header(ctx->out, s);
		table_row(ctx->out, s, wall_ns);
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
			return write_atomic(a->prom_file, buf, (size_t)n, &ctx->err);
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

static int sample_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct sample_args a;
	struct sampler *s = NULL;
	struct sample_recording rec = { 0 };
	struct sigaction sa, old_int, old_term, old_pipe;
	static char buf[OUT_BUF], jbuf[OUT_BUF];
	uint64_t start, next, rows = 0;
	const char *how = "done";
	int r, n_json = 0;

	r = parse_args(ctx, argc, argv, &a);
	if (r < 0)
		return r;
	if (a.replay)
		return sample_replay(&ctx->store, a.replay, a.mode == OUT_JSON ? REPLAY_JSON :
				     a.mode == OUT_PROM ? REPLAY_PROM : REPLAY_TABLE, ctx->out, &ctx->err);
	r = sampler_open(&s, &ctx->host, &a.so, &ctx->err);
	if (r < 0)
		return r;
	if (cmd_identity_members(&ctx->host, buf, sizeof(buf)) > 0)
		sampler_set_json_members(s, buf);	/* every line says whose it is */
	if (a.record) {
		char *params = params_json(&a);

		register_host(ctx);
		r = store_samples_begin(&rec, &ctx->store, params, &ctx->err);
		cJSON_free(params);
		if (r < 0) {
			sampler_close(s);
			return r;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the sleep must end */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sa.sa_handler = SIG_IGN;	/* a closed pipe ends the run, not the process */
	sigaction(SIGPIPE, &sa, &old_pipe);
	stop_signal = 0;

	start = clock_ns(CLOCK_MONOTONIC);
	r = sampler_tick(s, start, clock_ns(CLOCK_REALTIME), &ctx->err);
	if (r == 0 && a.mode == OUT_TABLE)
		table_notes(ctx->out, s);
	next = start + (uint64_t)a.interval_ns;
	while (r == 0 && !stop_signal) {
		struct timespec ts = { (time_t)(next / 1000000000ULL), (long)(next % 1000000000ULL) };
		uint64_t now, wall;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0 && stop_signal)
			break;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now < next)
			continue;	/* woken early by a signal we ignore */
		wall = clock_ns(CLOCK_REALTIME);
		r = sampler_tick(s, now, wall, &ctx->err);
		if (r < 0)
			break;
		if (a.mode == OUT_JSON || a.record) {
			n_json = sampler_format_json(s, jbuf, sizeof(jbuf) - 1);
			if (n_json < 0) {
				r = err_set(&ctx->err, n_json, "sample: tick too large to format");
				break;
			}
		}
		r = emit(ctx, &a, s, buf, jbuf, n_json, wall, &rows);
		if (r < 0) {
			if (r == -EPIPE) {	/* reader went away: end as interrupted */
				err_reset(&ctx->err);
				r = 0;
				how = "output closed";
				stop_signal = SIGPIPE;
			}
			break;
		}
		if (a.record) {
			r = store_samples_add(&rec, sampler_seq(s), now - start, jbuf, &ctx->err);
			if (r < 0)
				break;
		}
		if (a.count && sampler_seq(s) >= a.count)
			break;
		if (a.duration_ns && now - start + (uint64_t)a.interval_ns / 2 >= (uint64_t)a.duration_ns)
			break;
		next += (uint64_t)a.interval_ns;
		if (next <= now)	/* fell behind (stopped, slow disk): skip, do not burst */
			next = now + (uint64_t)a.interval_ns;
	}
	if (stop_signal && stop_signal != SIGPIPE)
		how = stop_signal == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)";

	/* with --prom-file it runs from cron or a timer: nothing to say when all went well */
	if ((r == 0 || stop_signal) && !a.prom_file) {
		FILE *o = a.mode == OUT_TABLE && stop_signal != SIGPIPE ? ctx->out : stderr;

		print_summary(o, s, how, o == ctx->out);
		fflush(o);
	}
	if (a.record) {
		char *sum = summary_json(s);
		struct st_err e2 = { 0 };
		int r2 = store_samples_end(&rec, r < 0 ? "failed" : stop_signal ? "interrupted" : "ok",
					   sum, r < 0 ? &e2 : &ctx->err);

		cJSON_free(sum);
		if (r == 0 && r2 < 0)
			r = r2;
		if (r == 0 && a.mode == OUT_TABLE)
			fprintf(ctx->out, "sample: recorded run %lld (%" PRIu64 " ticks) in %s\n",
				(long long)rec.run_id, rec.rows, ctx->db_path);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sampler_close(s);
	return r < 0 ? r : 0;
}

static const struct cmd_option sample_options[] = {
	{ "--interval DUR", "time between ticks, 10ms to 24h (default 1s)" },
	{ "--count N", "stop after N ticks" },
	{ "--duration DUR", "stop after DUR (e.g. 30s, 5m); default: until Ctrl-C" },
	{ "--cgroup PATH", "also sample this memory cgroup (path under the memory controller)" },
	{ "--pid PID", "count CPU events of this process (and its children)" },
	{ "--no-cpu", "do not open CPU counters" },
	{ "--prom", "Prometheus text: counters as _total, one exposition per tick" },
	{ "--prom-file PATH", "with --prom: replace PATH atomically each tick instead of printing" },
	{ "--record", "store the ticks as a sample run in the database" },
	{ "--replay ID", "print recording ID (see history --all) as it was live, with --json or --prom too" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_sample_entry = {
	.name = "sample",
	.summary = "sample swap, zswap, readahead, PSI and CPU counters periodically",
	.usage = "[--interval DUR] [--count N] [--duration DUR] [--cgroup PATH] [--pid PID] [--no-cpu] [--json | --prom [--prom-file PATH]] [--record] [--replay ID]",
	.options = sample_options,
	.exec = sample_exec,
};
