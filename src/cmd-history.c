/*
 * cmd-history.c - `swaptune history`: the runs that changed the host
 * (apply, rollback; with --all every run), the settings snapshots taken
 * around them and the change journal, as aligned tables or one JSON document.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h" /* TEMPORARY: SQL moves into the store (issue 8) */
#include "swaptune/advice.h"
#include "swaptune/cmd.h"
#include "swaptune/persist.h"

#define HISTORY_SCHEMA "swaptune.history/1"

enum { OPT_LIMIT = 256, OPT_ALL };

static const struct option history_longopts[] = {
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ 0, 0, 0, 0 },
};

/* Which runs: the newest `limit` of the kinds shown. */
#define RUNS_WHERE "(?1 OR kind IN ('apply', 'rollback'))"

static const char *text_or(sqlite3_stmt *s, int i, const char *dflt)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : dflt;
}

/* "2026-11-30T04:01:02.123Z" -> "2026-11-30 04:01:02" */
static const char *short_time(const char *iso, char *buf, size_t len)
{
	snprintf(buf, len, "%.19s", iso);
	if (strlen(buf) > 10 && buf[10] == 'T')
		buf[10] = ' ';
	return buf;
}

static void add_text(cJSON *o, const char *k, sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddStringToObject(o, k, (const char *)sqlite3_column_text(s, i));
}

/* A one-line description of a run from its params. */
static void run_detail(const char *kind, const char *params, char *buf, size_t len)
{
	cJSON *o = cJSON_Parse(params), *x;
	size_t off = 0;

	buf[0] = '\0';
	if (!o)
		return;
	if (!strcmp(kind, "apply")) {
		cJSON *s = cJSON_GetObjectItem(o, "settings"), *it;

		cJSON_ArrayForEach(it, s)
			if (cJSON_IsString(it) && off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "",
							it->string, it->valuestring);
		if ((x = cJSON_GetObjectItem(o, "source_run")) && cJSON_IsNumber(x) && off < len)
			off += (size_t)snprintf(buf + off, len - off, " (probe run %.0f%s%s)", x->valuedouble,
						cJSON_IsString(cJSON_GetObjectItem(o, "arm")) ? ", arm " : "",
						cJSON_IsString(cJSON_GetObjectItem(o, "arm")) ?
						cJSON_GetObjectItem(o, "arm")->valuestring : "");
		if (cJSON_IsTrue(cJSON_GetObjectItem(o, "persist")) && off < len)
			off += (size_t)snprintf(buf + off, len - off, " --persist");
		if ((x = cJSON_GetObjectItem(o, "confirm_within_s")) && cJSON_IsNumber(x) && off < len)
			snprintf(buf + off, len - off, " --confirm-within %.0fs", x->valuedouble);
	} else if (!strcmp(kind, "rollback")) {
		if ((x = cJSON_GetObjectItem(o, "to")) && cJSON_IsNumber(x))
			snprintf(buf, len, "to snapshot %.0f", x->valuedouble);
		else if ((x = cJSON_GetObjectItem(o, "reason")) && cJSON_IsString(x))
			snprintf(buf, len, "%s (apply run %.0f)", x->valuestring,
				 cJSON_IsNumber(cJSON_GetObjectItem(o, "apply_run")) ?
				 cJSON_GetObjectItem(o, "apply_run")->valuedouble : 0.0);
	} else if ((x = cJSON_GetObjectItem(o, "workload")) && cJSON_IsString(x)) {
		snprintf(buf, len, "workload %s", x->valuestring);
	}
	cJSON_Delete(o);
}

static void snapshot_line(const char *settings, char *buf, size_t len)
{
	cJSON *o = cJSON_Parse(settings), *it;
	size_t off = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, o)
		if (cJSON_IsString(it) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "",
						it->string, it->valuestring);
	cJSON_Delete(o);
}

/* --all: the sample recordings, with their length, for report --before/--after */
static int history_recordings(struct cmd_ctx *ctx, cJSON *doc, long limit)
{
	struct store_recording_row *rows = calloc((size_t)limit, sizeof(*rows));
	cJSON *a = doc ? cJSON_AddArrayToObject(doc, "recordings") : NULL;
	int n = 0, r;

	if (!rows)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	r = store_recordings_recent(&ctx->store, rows, (int)limit, &n, &ctx->err);
	for (int i = 0; r == 0 && i < n; i++) {
		char t1[24];

		if (a) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddNumberToObject(x, "id", (double)rows[i].id);
			cJSON_AddStringToObject(x, "status", rows[i].status);
			cJSON_AddStringToObject(x, "started_at", rows[i].started_at);
			cJSON_AddNumberToObject(x, "ticks", (double)rows[i].ticks);
			cJSON_AddNumberToObject(x, "duration_s", rows[i].duration_s);
			cJSON_AddItemToArray(a, x);
			continue;
		}
		if (i == 0)
			fprintf(ctx->out, "\nSample recordings (swaptune report --before ID --after ID):\n"
				"%5s  %-19s  %-11s  %8s  %10s\n", "RUN", "STARTED", "STATUS", "TICKS", "DURATION");
		fprintf(ctx->out, "%5lld  %-19s  %-11s  %8lld  %9.1fs\n", (long long)rows[i].id,
			short_time(rows[i].started_at, t1, sizeof(t1)), rows[i].status,
			(long long)rows[i].ticks, rows[i].duration_s);
	}
	free(rows);
	return r;
}

static int history_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	sqlite3_stmt *runs = NULL, *snaps = NULL, *chg = NULL;
	cJSON *doc = NULL, *jruns = NULL;
	long limit = 20;
	bool all = false, any = false;
	char *end;
	int r;

	while ((r = cmd_getopt(ctx, &cmd_history_entry, argc, argv, "", history_longopts)) != -1) {
		switch (r) {
		case -2:
			return -EINVAL;
		case OPT_LIMIT:
			limit = strtol(optarg, &end, 10);
			if (*end || limit <= 0)
				return cmd_usage_error(ctx, &cmd_history_entry,
						       "--limit needs a number of runs > 0, not \"%s\"", optarg);
			break;
		case OPT_ALL:
			all = true;
			break;
		default:
			return cmd_usage_error(ctx, &cmd_history_entry, "unexpected option");
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, &cmd_history_entry, "unexpected argument \"%s\"",
				       argv[optind]);

	if ((r = advice_settle_confirms(&ctx->store, &ctx->err)) < 0)
		return r;
	if ((r = store_prepare(&ctx->store,
		"SELECT id, kind, status, started_at, ended_at, params FROM runs WHERE " RUNS_WHERE
		" ORDER BY id DESC LIMIT ?2", &runs, &ctx->err)) < 0 ||
	    (r = store_prepare(&ctx->store,
		"SELECT id, reason, taken_at, settings FROM snapshots WHERE run_id = ?1 ORDER BY id",
		&snaps, &ctx->err)) < 0 ||
	    (r = store_prepare(&ctx->store,
		"SELECT id, kind, name, old_value, new_value, state, temporary, created_at,"
		" finished_at, note, sysroot FROM changes WHERE run_id = ?1 ORDER BY id", &chg,
		&ctx->err)) < 0)
		goto out;
	sqlite3_bind_int(runs, 1, all);
	sqlite3_bind_int64(runs, 2, limit);

	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", HISTORY_SCHEMA);
		cJSON_AddBoolToObject(doc, "all", all);
		jruns = cJSON_AddArrayToObject(doc, "runs");
	}
	while ((r = sqlite3_step(runs)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(runs, 0);
		const char *kind = text_or(runs, 1, "?"), *params = text_or(runs, 5, "");
		char t1[24], detail[512];
		cJSON *jr = NULL, *js = NULL, *jc = NULL;

		run_detail(kind, params, detail, sizeof(detail));
		if (doc) {
			cJSON *p = cJSON_Parse(params);

			jr = cJSON_CreateObject();
			cJSON_AddNumberToObject(jr, "id", (double)id);
			cJSON_AddStringToObject(jr, "kind", kind);
			cJSON_AddStringToObject(jr, "status", text_or(runs, 2, ""));
			add_text(jr, "started_at", runs, 3);
			add_text(jr, "ended_at", runs, 4);
			cJSON_AddItemToObject(jr, "params", p ? p : cJSON_CreateNull());
			cJSON_AddStringToObject(jr, "summary", detail);
			js = cJSON_AddArrayToObject(jr, "snapshots");
			jc = cJSON_AddArrayToObject(jr, "changes");
			cJSON_AddItemToArray(jruns, jr);
		} else {
			if (!any)
				fprintf(ctx->out, "%5s  %-19s  %-9s  %-16s  %s\n", "RUN", "STARTED", "KIND",
					"STATUS", "DETAIL");
			else
				fprintf(ctx->out, "\n");
			fprintf(ctx->out, "%5lld  %-19s  %-9s  %-16s  %s\n", (long long)id,
				short_time(text_or(runs, 3, ""), t1, sizeof(t1)), kind,
				text_or(runs, 2, ""), detail);
		}
		any = true;

		sqlite3_reset(snaps);
		sqlite3_bind_int64(snaps, 1, id);
		while (sqlite3_step(snaps) == SQLITE_ROW) {
			if (js) {
				cJSON *x = cJSON_CreateObject(), *s = cJSON_Parse(text_or(snaps, 3, "{}"));

				cJSON_AddNumberToObject(x, "id", (double)sqlite3_column_int64(snaps, 0));
				cJSON_AddStringToObject(x, "reason", text_or(snaps, 1, ""));
				add_text(x, "taken_at", snaps, 2);
				cJSON_AddItemToObject(x, "settings", s ? s : cJSON_CreateObject());
				cJSON_AddItemToArray(js, x);
			} else {
				char line[1024];

				snapshot_line(text_or(snaps, 3, "{}"), line, sizeof(line));
				fprintf(ctx->out, "%5s  snapshot %-5lld %-28s %s\n", "",
					(long long)sqlite3_column_int64(snaps, 0), text_or(snaps, 1, ""), line);
			}
		}

		sqlite3_reset(chg);
		sqlite3_bind_int64(chg, 1, id);
		while (sqlite3_step(chg) == SQLITE_ROW) {
			const char *ckind = text_or(chg, 1, ""), *name = text_or(chg, 2, "");
			bool setting = !strcmp(ckind, "setting");

			if (jc) {
				cJSON *x = cJSON_CreateObject();

				cJSON_AddNumberToObject(x, "id", (double)sqlite3_column_int64(chg, 0));
				cJSON_AddStringToObject(x, "kind", ckind);
				cJSON_AddStringToObject(x, "name", name);
				add_text(x, "old", chg, 3);
				add_text(x, "new", chg, 4);
				cJSON_AddStringToObject(x, "state", text_or(chg, 5, ""));
				cJSON_AddBoolToObject(x, "temporary", sqlite3_column_int(chg, 6));
				add_text(x, "created_at", chg, 7);
				add_text(x, "finished_at", chg, 8);
				add_text(x, "note", chg, 9);
				cJSON_AddStringToObject(x, "sysroot", text_or(chg, 10, "/"));
				cJSON_AddItemToArray(jc, x);
			} else {
				char what[PATH_MAX + 64];
				const char *root = strcmp(text_or(chg, 10, "/"), "/") ? text_or(chg, 10, "") : "";

				if (setting)
					snprintf(what, sizeof(what), "%s %s -> %s", name, text_or(chg, 3, "?"),
						 text_or(chg, 4, "?"));
				else if (!strcmp(ckind, PERSIST_KIND_FILE))
					snprintf(what, sizeof(what), "file %s/%s (%s before)", root, name,
						 sqlite3_column_type(chg, 3) == SQLITE_NULL ? "absent" : "other content");
				else if (!strcmp(ckind, PERSIST_KIND_DIR))
					snprintf(what, sizeof(what), "directory %s/%s created", root, name);
				else
					snprintf(what, sizeof(what), "%s %s", ckind, name);
				fprintf(ctx->out, "%5s  change %-7lld %-10s %s\n", "",
					(long long)sqlite3_column_int64(chg, 0), text_or(chg, 5, ""), what);
			}
		}
	}
	if (r != SQLITE_DONE) {
		r = err_set(&ctx->err, -EIO, "database %s: %s", ctx->store.path,
			    sqlite3_errmsg(ctx->store.db));
		goto out;
	}
	r = all ? history_recordings(ctx, doc, limit) : 0;
	if (r < 0)
		goto out;
	if (doc) {
		r = cmd_print_json(ctx, doc);
		doc = NULL;
	} else if (!any) {
		fprintf(ctx->out, "No %s recorded in %s.\n",
			all ? "runs" : "changes (apply, rollback)", ctx->store.path);
	}
out:
	sqlite3_finalize(runs);
	sqlite3_finalize(snaps);
	sqlite3_finalize(chg);
	cJSON_Delete(doc);
	return r;
}

static const struct cmd_option history_options[] = {
	{ "--limit N", "the newest N runs (default 20)" },
	{ "--all", "every run (probe, sample, verify ...), not only apply and rollback" },
	{ NULL, NULL },
};

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.summary = "applied and rolled-back changes, with the snapshots taken around them",
	.usage = "[--limit N] [--all]",
	.options = history_options,
	.exec = history_exec,
};
