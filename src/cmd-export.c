/*
 * cmd-export.c - `swaptune export`: this host's runs with their arms,
 * trials, metrics, verdict summaries, snapshots, journal rows and samples as
 * one swaptune.export/1 document (share/schema/export.schema.json), stamped
 * with the identity of the exporting host, for `swaptune import` elsewhere.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/fleet.h"

enum { OPT_SINCE = 256, OPT_RUN };

static const struct option export_longopts[] = {
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "output", required_argument, NULL, 'o' },
	{ 0, 0, 0, 0 },
};

#define EXPORT_IDS_MAX 4096

int fleet_host_identity(const struct host *h, cJSON *o, char *mid, size_t mid_len,
			struct st_err *e)
{
	char buf[256], path[PATH_MAX];

	if (host_read_line(h, HOST_MACHINE_ID, mid, mid_len, NULL) < 0 || !mid[0]) {
		if (host_path(h, HOST_MACHINE_ID, path, sizeof(path)) < 0)
			snprintf(path, sizeof(path), "/%s", HOST_MACHINE_ID);
		return err_set(e, -ENOENT, "cannot read the machine id (%s) of this host", path);
	}
	if (!o)
		return 0;
	cJSON_AddStringToObject(o, "machine_id", mid);
	if (host_read_line(h, HOST_HOSTNAME, buf, sizeof(buf), NULL) < 0)
		snprintf(buf, sizeof(buf), "unknown");
	cJSON_AddStringToObject(o, "hostname", buf);
	if (host_kernel_release(h, buf, sizeof(buf), NULL) < 0)
		cJSON_AddNullToObject(o, "kernel");
	else
		cJSON_AddStringToObject(o, "kernel", buf);
	if (host_read_cpu_model(h, buf, sizeof(buf)) == 0)
		cJSON_AddStringToObject(o, "cpu_model", buf);
	else
		cJSON_AddNullToObject(o, "cpu_model");
	if (host_read_line(h, HOST_BOOT_ID, buf, sizeof(buf), NULL) < 0)
		cJSON_AddNullToObject(o, "boot_id");
	else
		cJSON_AddStringToObject(o, "boot_id", buf);
	cJSON_AddStringToObject(o, "swaptune_version", SWAPTUNE_VERSION);
	return 0;
}

/*
 * "2026-11-30", "2026-11-30T04:00", "2026-11-30T04:00:00Z": compared as
 * text, so it must be a time that exists (2026-13-45 or 24:00 is not one:
 * it would compare as some other time).
 */
static bool since_ok(const char *s)
{
	static const char tmpl[] = "dddd-dd-ddTdd:dd:dd";
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
	size_t n = strlen(s);
	bool leap;

	if (n > 0 && s[n - 1] == 'Z')
		n--;
	if (n != 10 && n != 16 && n != 19)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tmpl[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != tmpl[i])
			return false;
	if (sscanf(s, "%4d-%2d-%2d", &y, &mo, &d) != 3 ||
	    (n >= 16 && sscanf(s + 11, "%2d:%2d", &h, &mi) != 2) ||
	    (n == 19 && sscanf(s + 17, "%2d", &sec) != 1))
		return false;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return y >= 1970 && mo >= 1 && mo <= 12 && d >= 1 &&
	       d <= mdays[mo - 1] + (mo == 2 && leap) && h < 24 && mi < 60 && sec < 60;
}

static int parse_runs(struct cmd_ctx *ctx, const char *arg, int64_t *ids, size_t *n)
{
	char buf[4096], *save = NULL, *tok;
	long long v;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (fmt_parse_i64(tok, 1, INT64_MAX, &v) < 0)
			return cmd_usage_error(ctx, &cmd_export_entry, "--run needs run ids, not \"%s\"", tok);
		if (*n >= EXPORT_IDS_MAX)
			return cmd_usage_error(ctx, &cmd_export_entry, "more than %d --run ids",
					       EXPORT_IDS_MAX);
		ids[(*n)++] = v;
	}
	if (!*n)
		return cmd_usage_error(ctx, &cmd_export_entry, "--run needs run ids");
	return 0;
}

/* Write text to path through an O_EXCL|O_NOFOLLOW temp file and rename. */
static int write_atomic(const char *path, const char *text, struct st_err *e)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text), off = 0;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return err_set_exit(e, -ENAMETOOLONG, ST_EXIT_USAGE, "output path too long");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_set_exit(e, -errno, ST_EXIT_DENIED, "cannot create %s: %s", tmp,
				    strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (off < len || write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
		int err = errno;

		close(fd);
		unlink(tmp);
		return err_set(e, -err, "cannot write %s: %s", tmp, strerror(err));
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int err = errno;

		unlink(tmp);
		return err_set_exit(e, -err, ST_EXIT_DENIED, "cannot write %s: %s", path, strerror(err));
	}
	return 0;
}

static int export_build(struct cmd_ctx *ctx, const char *since, const int64_t *ids, size_t n_ids,
			cJSON **out)
{
	cJSON *doc = cJSON_CreateObject(), *runs;
	int64_t *sel = NULL;
	size_t n = 0, foreign = 0;
	char mid[128], now[32];
	time_t t = time(NULL);
	struct tm tm;
	int r;

	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(doc, "schema", FLEET_EXPORT_SCHEMA);
	cJSON_AddStringToObject(doc, "exported_at", now);
	r = fleet_host_identity(&ctx->host, cJSON_AddObjectToObject(doc, "host"), mid, sizeof(mid),
				&ctx->err);
	if (r == 0)
		cmd_identity_json(&ctx->host, doc);	/* swaptune_version at the top too */
	if (r == 0)
		r = store_fleet_export_ids(&ctx->store, mid, since, ids, n_ids, &sel, &n, &foreign,
					   &ctx->err);
	if (r == 0 && foreign)	/* only this machine's runs go out under its identity */
		fprintf(stderr, "swaptune: note: %zu run%s of other machines in %s left out\n", foreign,
			foreign == 1 ? "" : "s", fmt_printable(ctx->store.path));
	if (r == 0) {
		for (size_t i = 0; i < n_ids; i++) {
			bool found = false;

			for (size_t j = 0; j < n && !found; j++)
				found = sel[j] == ids[i];
			if (!found) {
				r = err_set_exit(&ctx->err, -ENOENT, ST_EXIT_USAGE,
						 "no run %lld of this host%s in %s", (long long)ids[i],
						 since ? " since that time" : "", ctx->store.path);
				break;
			}
		}
	}
	runs = cJSON_AddArrayToObject(doc, "runs");
	for (size_t i = 0; r == 0 && i < n; i++) {
		cJSON *run;

		r = store_fleet_export_run(&ctx->store, sel[i], &run, &ctx->err);
		if (r == 0)
			cJSON_AddItemToArray(runs, run);
	}
	free(sel);
	if (r < 0) {
		cJSON_Delete(doc);
		return r;
	}
	*out = doc;
	return 0;
}

static int export_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	static int64_t ids[EXPORT_IDS_MAX];
	const char *since = NULL, *output = NULL;
	size_t n_ids = 0;
	cJSON *doc;
	char *text;
	int r;

	while ((r = cmd_getopt(ctx, &cmd_export_entry, argc, argv, "o:", export_longopts)) != -1) {
		switch (r) {
		case -2:
			return -EINVAL;
		case OPT_SINCE:
			if (!since_ok(optarg))
				return cmd_usage_error(ctx, &cmd_export_entry,
						       "--since needs a UTC time like 2026-11-30 or"
						       " 2026-11-30T04:00:00Z, not \"%s\"", optarg);
			since = optarg;
			break;
		case OPT_RUN:
			if (parse_runs(ctx, optarg, ids, &n_ids) < 0)
				return -EINVAL;
			break;
		case 'o':
			output = optarg;
			break;
		default:
			return cmd_usage_error(ctx, &cmd_export_entry, "unexpected option");
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_export_entry, "unexpected argument \"%s\"", argv[optind]);
	if ((r = export_build(ctx, since, ids, n_ids, &doc)) < 0)
		return r;
	text = ctx->json ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!text)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	if (output && strcmp(output, "-"))
		r = write_atomic(output, text, &ctx->err);
	else
		r = fprintf(ctx->out, "%s\n", text) < 0 ? err_set(&ctx->err, -EIO, "cannot write output") : 0;
	cJSON_free(text);
	return r < 0 ? r : 0;
}

static const struct cmd_option export_options[] = {
	{ "--since TIME", "only runs started at or after TIME (UTC, 2026-11-30 or 2026-11-30T04:00:00Z)" },
	{ "--run ID", "only run ID (repeatable, or a comma list)" },
	{ "-o, --output FILE", "write FILE atomically instead of standard output" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.summary = "this host's runs and results as one document for import elsewhere",
	.usage = "[--since TIME] [--run ID]... [-o FILE]",
	.options = export_options,
	.exec = export_exec,
};
