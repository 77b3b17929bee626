/*
 * cmd-history.c - `swaptune history`: the runs that changed the host
 * (apply, rollback; with --all every run), the settings snapshots taken
 * around them and the change journal, as aligned tables or one JSON document.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/history.h"
#include "swaptune/journal.h"
#include "swaptune/persist.h"
#include "swaptune/fmt.h"

#define HISTORY_SCHEMA "swaptune.history/1"
#define HISTORY_LIMIT_MAX 1000000

struct history_args {
	int limit;
	bool all;
};

static const struct opt_spec history_opts[] = {
	/* bounded: rows are allocated */
	OPT_INT("limit", "N", "the newest N runs (default 20)", struct history_args, limit, 1,
		HISTORY_LIMIT_MAX),
	OPT_FLAG("all", 0, "every run (probe, sample, verify ...), not only apply and rollback",
		 struct history_args, all),
	{ NULL },
};

/* "2026-11-30T04:01:02.123Z" -> "2026-11-30T04:01:02Z": UTC, as every time swaptune prints (fmt_time) */
static const char *short_time(const char *iso, char *buf, size_t len)
{
	return fmt_time(iso, false, buf, len);
}

/* text, or JSON null when absent */
static void add_text(cJSON *o, const char *k, bool present, const char *text)
{
	if (present)
		cJSON_AddStringToObject(o, k, text);
	else
		cJSON_AddNullToObject(o, k);
}

/* A one-line description of a run from its params. */
static void run_detail(const struct store_run *run, char *buf, size_t len)
{
	const struct run_params *p = &run->p;
	const char *kind = run->kind;
	const cJSON *o = p->doc;
	size_t off = 0;

	buf[0] = '\0';
	if (!o)
		return;
	if (!strcmp(kind, "apply")) {
		const cJSON *it;

		cJSON_ArrayForEach(it, p->settings)
			if (cJSON_IsString(it) && off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "",
							it->string, it->valuestring);
		if (p->source_run && off < len)
			off += (size_t)snprintf(buf + off, len - off, " (probe run %lld%s%s)", (long long)p->source_run,
						p->has_arm ? ", arm " : "", p->arm);
		if (p->persist && off < len)
			off += (size_t)snprintf(buf + off, len - off, " --persist");
		if (p->confirm_within_s > 0 && off < len)
			snprintf(buf + off, len - off, " --confirm-within %.0fs", p->confirm_within_s);
	} else if (!strcmp(kind, "rollback")) {
		if (p->to)
			snprintf(buf, len, "to snapshot %lld", (long long)p->to);
		else if (p->reason[0])
			snprintf(buf, len, "%s (apply run %lld)", p->reason, (long long)p->apply_run);
	} else if (!strcmp(kind, "switchback")) {
		/* arms, design and origin: "pc3 | pc0, 15 blocks of 30 s windows (verify --live)" */
		cJSON *arms = cJSON_GetObjectItem(o, "arms"), *pl = cJSON_GetObjectItem(o, "plan"), *it;

		cJSON_ArrayForEach(it, arms)
			if (cJSON_IsString(cJSON_GetObjectItem(it, "name")) && off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " | " : "",
							cJSON_GetObjectItem(it, "name")->valuestring);
		if (cJSON_IsNumber(cJSON_GetObjectItem(pl, "blocks")) && off < len)
			off += (size_t)snprintf(buf + off, len - off, ", %.0f blocks of %.0f s windows",
						cJSON_GetObjectItem(pl, "blocks")->valuedouble,
						cJSON_IsNumber(cJSON_GetObjectItem(pl, "window_s")) ?
						cJSON_GetObjectItem(pl, "window_s")->valuedouble : 0.0);
		if (p->verify_of && off < len)
			snprintf(buf + off, len - off, " (verify --live of apply run %lld)", (long long)p->verify_of);
	} else if (cJSON_IsString(cJSON_GetObjectItem(o, "workload")) && p->workload[0]) {
		snprintf(buf, len, "workload %s", p->workload);
	}
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

/* An imported run is another host's history: say whose, and what it was there. */
static void origin_detail(const struct store_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "history of host %s (machine %.8s\u2026): its %s run %lld, %s",
		 run->hostname[0] ? run->hostname : "?",
		 run->origin_machine_id[0] ? run->origin_machine_id : "?",
		 run->origin_kind[0] ? run->origin_kind : "?", (long long)run->origin_run_id,
		 run->origin_status[0] ? run->origin_status : "?");
}

static cJSON *run_json(const struct store_run *run, const char *detail)
{
	cJSON *jr = cJSON_CreateObject(), *p = run->p.doc ? cJSON_Duplicate(run->p.doc, true) : NULL;

	cJSON_AddNumberToObject(jr, "id", (double)run->id);
	cJSON_AddStringToObject(jr, "kind", run->kind);
	cJSON_AddStringToObject(jr, "status", run->status);
	cJSON_AddStringToObject(jr, "started_at", run->started_at);
	add_text(jr, "ended_at", run->ended_at[0], run->ended_at);
	cJSON_AddItemToObject(jr, "params", p ? p : cJSON_CreateNull());
	cJSON_AddStringToObject(jr, "summary", detail);
	if (run->imported) {
		cJSON *o = cJSON_AddObjectToObject(jr, "origin");

		cJSON_AddStringToObject(o, "machine_id", run->origin_machine_id);
		cJSON_AddStringToObject(o, "hostname", run->hostname);
		cJSON_AddStringToObject(o, "kind", run->origin_kind);
		cJSON_AddStringToObject(o, "status", run->origin_status);
		cJSON_AddNumberToObject(o, "run_id", (double)run->origin_run_id);
	}
	cJSON_AddArrayToObject(jr, "snapshots");
	cJSON_AddArrayToObject(jr, "changes");
	return jr;
}

static void snapshot_out(struct cmd_ctx *ctx, cJSON *js, const struct store_snapshot_row *s)
{
	if (js) {
		cJSON *x = cJSON_CreateObject(), *set = cJSON_Parse(s->settings);

		cJSON_AddNumberToObject(x, "id", (double)s->info.id);
		cJSON_AddStringToObject(x, "reason", s->info.reason);
		cJSON_AddStringToObject(x, "taken_at", s->info.taken_at);
		cJSON_AddItemToObject(x, "settings", set ? set : cJSON_CreateObject());
		cJSON_AddItemToArray(js, x);
	} else {
		char line[1024];

		snapshot_line(s->settings, line, sizeof(line));
		/* store text may hold any byte (a crafted or imported store): escape it */
		fprintf(ctx->out, "%5s  snapshot %-5lld %-28s %s\n", "", (long long)s->info.id,
			fmt_printable(s->info.reason), fmt_printable(line));
	}
}

static void change_out(struct cmd_ctx *ctx, cJSON *jc, const struct store_change *c)
{
	char what[PATH_MAX + 64];
	const char *root = strcmp(c->sysroot, "/") ? c->sysroot : "";

	if (jc) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddNumberToObject(x, "id", (double)c->id);
		cJSON_AddStringToObject(x, "kind", c->kind);
		cJSON_AddStringToObject(x, "name", c->name);
		add_text(x, "old", c->has_old, c->old_value);
		add_text(x, "new", c->has_new, c->new_value);
		cJSON_AddStringToObject(x, "state", c->state);
		cJSON_AddBoolToObject(x, "temporary", c->temporary);
		cJSON_AddStringToObject(x, "created_at", c->created_at);
		add_text(x, "finished_at", c->has_finished, c->finished_at);
		add_text(x, "note", c->has_note, c->note);
		cJSON_AddStringToObject(x, "sysroot", c->sysroot);
		cJSON_AddItemToArray(jc, x);
		return;
	}
	if (!strcmp(c->kind, "setting"))
		snprintf(what, sizeof(what), "%s %s -> %s", c->name, c->has_old ? c->old_value : "?",
			 c->has_new ? c->new_value : "?");
	else if (!strcmp(c->kind, PERSIST_KIND_FILE))
		snprintf(what, sizeof(what), "file %s/%s (%s before)", root, c->name,
			 c->has_old ? "other content" : "absent");
	else if (!strcmp(c->kind, PERSIST_KIND_DIR))
		snprintf(what, sizeof(what), "directory %s/%s created", root, c->name);
	else if (!strcmp(c->kind, PERSIST_KIND_RMDIR))
		snprintf(what, sizeof(what), "directory %s/%s removed", root, c->name);
	else
		snprintf(what, sizeof(what), "%s %s", c->kind, c->name);
	fprintf(ctx->out, "%5s  change %-7lld %-10s %s\n", "", (long long)c->id,
		fmt_printable(c->state), fmt_printable(what));
}

/*
 * Runs still "running" whose process is gone (killed, or its store became
 * unwritable): journal_repair() ends them as interrupted, but history only
 * reads, so it shows them as such without writing.
 */
struct gone_runs {
	int64_t ids[256];
	int n;
};

static bool run_gone(const struct gone_runs *g, int64_t id, const char *status)
{
	if (strcmp(status, "running"))
		return false;
	for (int i = 0; i < g->n; i++)
		if (g->ids[i] == id)
			return true;
	return false;
}

/* One run with its snapshots and changes, as text or into jruns. */
static int run_out(struct cmd_ctx *ctx, cJSON *jruns, const struct store_run *run,
		   bool first, bool gone)
{
	struct history_detail d;
	cJSON *jr = NULL;
	char t1[FMT_TIME_LEN + 512], detail[512];
	int64_t undone_by = 0;
	int r;

	if (run->imported)
		origin_detail(run, detail, sizeof(detail));
	else
		run_detail(run, detail, sizeof(detail));
	/* an apply a later rollback undid reads so, as one its timer reverted reads "reverted" */
	if (!jruns && !strcmp(run->kind, "apply") && !strcmp(run->status, "ok")) {
		size_t k = strlen(detail);

		if ((r = history_rolled_back_by(&ctx->store, run->id, &undone_by, &ctx->err)) < 0)
			return r;
		if (undone_by && k < sizeof(detail))
			snprintf(detail + k, sizeof(detail) - k, "%sundone by rollback run %lld", k ? "; " : "",
				 (long long)undone_by);
	}
	if (gone && !jruns) {
		size_t k = strlen(detail);

		if (k < sizeof(detail))
			snprintf(detail + k, sizeof(detail) - k, "%snot yet repaired (swaptune repair ends it)",
				 k ? "; " : "");
	}
	if (jruns) {
		jr = run_json(run, detail);
		cJSON_AddItemToArray(jruns, jr);
	} else {
		/*
		 * The detail (what was applied, measured, rolled back) has a line of
		 * its own under the run, at the column of its snapshots and changes:
		 * 93 columns of a 100-column terminal, where a fifth column of the
		 * table had 42 and folded.
		 */
		if (first)
			fprintf(ctx->out, "%5s  %-20s  %-10s  %s\n", "RUN", "STARTED (UTC)", "KIND", "STATUS");
		else
			fprintf(ctx->out, "\n");
		fprintf(ctx->out, "%5lld  %-20s  %-10s  %s\n", (long long)run->id,
			fmt_printable(short_time(run->started_at, t1, sizeof(t1))),
			fmt_printable(run->kind),
			undone_by ? "rolled back" : gone ? "interrupted" : fmt_printable(run->status));
		if (detail[0])
			fprintf(ctx->out, "%5s  %s\n", "", fmt_printable(detail));
	}
	if ((r = history_detail(&ctx->store, run->id, true, &d, &ctx->err)) < 0)
		goto out;
	for (int i = 0; i < d.n_snaps; i++)
		snapshot_out(ctx, jr ? cJSON_GetObjectItem(jr, "snapshots") : NULL, &d.snaps[i]);
	for (int i = 0; i < d.n_changes; i++)
		change_out(ctx, jr ? cJSON_GetObjectItem(jr, "changes") : NULL, &d.changes[i]);
out:
	history_detail_free(&d);
	return r;
}

/* --all: the sample recordings, with their length, for report --before/--after */
static int recordings_out(struct cmd_ctx *ctx, cJSON *doc, long limit, const struct gone_runs *g)
{
	struct store_sample_run *rows = calloc((size_t)limit, sizeof(*rows));
	cJSON *a = doc ? cJSON_AddArrayToObject(doc, "recordings") : NULL;
	int n = 0, r;

	if (!rows)
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	r = history_recordings(&ctx->store, true, rows, (int)limit, &n, &ctx->err);
	for (int i = 0; r == 0 && i < n; i++) {
		char t1[FMT_TIME_LEN + 512], d[FMT_NUM_LEN], tk[FMT_NUM_LEN];
		double duration_s = (double)rows[i].last_t_ns / 1e9;	/* from the start of sampling */

		if (a) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddNumberToObject(x, "id", (double)rows[i].run_id);
			cJSON_AddStringToObject(x, "status", rows[i].status);
			cJSON_AddStringToObject(x, "started_at", rows[i].started_at);
			cJSON_AddNumberToObject(x, "ticks", (double)rows[i].ticks);
			cJSON_AddNumberToObject(x, "duration_s", duration_s);
			cJSON_AddItemToArray(a, x);
			continue;
		}
		if (i == 0)
			fprintf(ctx->out, "\nSample recordings (swaptune report --before ID --after ID):\n"
				"%5s  %-20s  %-11s  %8s  %10s\n", "RUN", "STARTED (UTC)", "STATUS", "TICKS", "DURATION");
		fprintf(ctx->out, "%5lld  %-20s  %-11s  %8s  %8s s\n", (long long)rows[i].run_id,
			fmt_printable(short_time(rows[i].started_at, t1, sizeof(t1))),
			run_gone(g, rows[i].run_id, rows[i].status) ? "interrupted" : fmt_printable(rows[i].status),
			fmt_num((double)rows[i].ticks, tk, sizeof(tk)),
			fmt_num(duration_s, d, sizeof(d)));
	}
	free(rows);
	return r;
}

static int history_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct store_run *runs = NULL;
	cJSON *doc = NULL, *jruns = NULL;
	struct history_args a = { .limit = 20 };
	struct gone_runs gone = { .n = 0 };
	struct store_runs_which which = { .kind2 = "rollback" };	/* and apply, unless --all */
	long limit;
	bool all;
	int r, n = 0;

	if ((r = cmd_parse(ctx, &cmd_history_entry, argc, argv, &a, NULL)) < 0)
		return r;
	limit = a.limit;
	all = a.all;
	/* history writes nothing: an expired confirm is settled by the next change */
	which.kind1 = all ? NULL : "apply";
	which.limit = limit;
	if ((r = history_runs(&ctx->store, &which, &runs, &n, &ctx->err)) < 0)
		return r;
	if ((r = journal_orphan_runs(&ctx->store, &ctx->host, gone.ids, 256, &gone.n, &ctx->err)) < 0)
		goto out;
	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", HISTORY_SCHEMA);
		cJSON_AddBoolToObject(doc, "all", all);
		jruns = cJSON_AddArrayToObject(doc, "runs");
	}
	for (int i = 0; i < n; i++)
		if ((r = run_out(ctx, jruns, &runs[i], i == 0,
				 !runs[i].imported && run_gone(&gone, runs[i].id, runs[i].status))) < 0)
			goto out;
	r = all ? recordings_out(ctx, doc, limit, &gone) : 0;
	if (r < 0)
		goto out;
	if (doc) {
		r = cmd_print_json(ctx, doc);
		doc = NULL;
	} else if (n == 0) {
		fprintf(ctx->out, "No %s recorded in %s.\n",
			all ? "runs" : "changes (apply, rollback)", ctx->store.path);
	}
out:
	history_runs_free(runs, n);
	cJSON_Delete(doc);
	return r;
}

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.summary = "applied and rolled-back changes, with the snapshots taken around them",
	.usage = "[--limit N] [--all]",
	.group = CMD_GROUP_INSPECT,
	.opts = { history_opts },
	.flags = CMD_WRAP_HUMAN,
	.exec = history_exec,
};
