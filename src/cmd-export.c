/*
 * cmd-export.c - `swaptune export`: this host's runs with their arms,
 * trials, metrics, verdict summaries, snapshots, journal rows and samples as
 * one swaptune.export/1 document (share/schema/export.schema.json), stamped
 * with the identity of the exporting host, for `swaptune import` elsewhere.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/fleet.h"

#define EXPORT_IDS_MAX 4096

struct export_args {
	const char *since, *output;
	struct export_ids {
		size_t n;
		int64_t ids[EXPORT_IDS_MAX];
	} runs;
};

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

/* --since: a UTC time that exists */
static int parse_since(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	if (!since_ok(arg))
		return err_set(e, -EINVAL, "--%s needs a UTC time like 2026-11-30 or"
			       " 2026-11-30T04:00:00Z, not \"%s\"", o->name, arg);
	*(const char **)dst = arg;
	return 0;
}

/* --run 1,2 --run 3: every id appended */
static int parse_runs(const struct opt_spec *o, const char *arg, void *dst, struct st_err *e)
{
	struct export_ids *r = dst;
	char buf[4096], *save = NULL, *tok;
	size_t before = r->n;
	long long v;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (fmt_parse_i64(tok, 1, INT64_MAX, &v) < 0)
			return err_set(e, -EINVAL, "--%s needs run ids, not \"%s\"", o->name, tok);
		if (r->n >= EXPORT_IDS_MAX)
			return err_set(e, -EINVAL, "more than %d --%s ids", EXPORT_IDS_MAX, o->name);
		r->ids[r->n++] = v;
	}
	if (r->n == before)
		return err_set(e, -EINVAL, "--%s needs run ids", o->name);
	return 0;
}

static const struct opt_spec export_opts[] = {
	OPT_CUSTOM("since", 0, "TIME", "only runs started at or after TIME (UTC, 2026-11-30 or "
		   "2026-11-30T04:00:00Z)", struct export_args, since, parse_since, OPT_COMPLETE_NONE),
	OPT_CUSTOM("run", 0, "ID", "only run ID (repeatable, or a comma list)", struct export_args,
		   runs, parse_runs, OPT_COMPLETE_RUN),
	CMD_OPT_OUTPUT(struct export_args, output),
	{ NULL },
};

static int export_build(struct cmd_ctx *ctx, const char *since, const int64_t *ids, size_t n_ids,
			cJSON **out)
{
	cJSON *doc = cJSON_CreateObject(), *runs;
	struct store_export_want want = { .since = since, .ids = ids, .n_ids = n_ids };
	struct store_export_ids got = { 0 };
	int64_t *sel;
	size_t n, foreign;
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
	want.machine_id = mid;
	if (r == 0)
		r = store_fleet_export_ids(&ctx->store, &want, &got, &ctx->err);
	sel = got.ids;
	n = got.n;
	foreign = got.n_foreign;
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
	struct export_args *a = calloc(1, sizeof(*a));
	cJSON *doc = NULL;
	char *text = NULL;
	int r;

	if (!a)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	if ((r = cmd_parse(ctx, &cmd_export_entry, argc, argv, a, NULL)) < 0 ||
	    (r = export_build(ctx, a->since, a->runs.ids, a->runs.n, &doc)) < 0)
		goto out;
	text = ctx->json ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
	if (!text) {
		r = err_set(&ctx->err, -ENOMEM, "out of memory");
		goto out;
	}
	if (a->output && strcmp(a->output, "-")) {
		size_t n = strlen(text);

		text[n] = '\n';	/* in place of the NUL: the file ends with a newline */
		r = host_user_file_replace(a->output, text, n + 1, 0644, &ctx->err);
		text[n] = '\0';
	} else {
		r = fprintf(ctx->out, "%s\n", text) < 0 ? err_set(&ctx->err, -EIO, "cannot write output") : 0;
	}
out:
	cJSON_free(text);
	cJSON_Delete(doc);
	free(a);
	return r < 0 ? r : 0;
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.summary = "this host's runs and results as one document for import elsewhere",
	.usage = "[--since TIME] [--run ID]... [-o FILE]",
	.group = CMD_GROUP_FLEET,
	.opts = { export_opts },
	.exec = export_exec,
};
