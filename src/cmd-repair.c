/*
 * cmd-repair.c - `swaptune repair`: put back what a swaptune that did not
 * finish (killed, crashed, the power gone) left changed on this host.
 *
 * Every command that changes the host does the same first, under its lock
 * (change_lock(), change_repair()); commands that only read leave it and
 * say how many changes are left. This command is the direct trigger: it
 * takes the host's change lock, repairs, and says what it did, one line per
 * change on stderr as every repair does, or "nothing to repair"; with
 * --json those lines are the "repaired" array of swaptune.repair/1 instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/lock.h"

#define REPAIR_SCHEMA "swaptune.repair/1"

/* --json: each line repair says goes into the document's array */
static void repair_json_line(const char *line, void *arg)
{
	cJSON_AddItemToArray(arg, cJSON_CreateString(line));
}

static int repair_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	cJSON *doc = NULL, *lines = NULL;
	int r, lockfd = -1, said;

	if ((r = cmd_parse(ctx, &cmd_repair_entry, argc, argv, NULL, NULL)) < 0)
		return r;
	if ((r = change_need_root(&ctx->host, "repair", &ctx->err)) < 0)
		return r;
	if ((r = host_change_lock(&ctx->host, ctx->db_path, "repair", &lockfd, &ctx->err)) < 0)
		return r;
	if (ctx->json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", REPAIR_SCHEMA);
		lines = cJSON_AddArrayToObject(doc, "repaired");
		if (!lines) {
			cJSON_Delete(doc);
			change_unlock(lockfd);
			return err_set(&ctx->err, -ENOMEM, "out of memory");
		}
		change_repair_report(repair_json_line, lines);
	}
	said = change_repair(&ctx->store, &ctx->host);
	change_repair_report(NULL, NULL);
	change_unlock(lockfd);
	if (doc)
		return cmd_print_json(ctx, doc);
	if (!said)
		fprintf(ctx->out, "nothing to repair\n");
	return 0;
}

const struct cmd_entry cmd_repair_entry = {
	.name = "repair",
	.summary = "put back what a swaptune that did not finish left changed",
	.usage = "",
	.group = CMD_GROUP_CHANGE,
	.exec = repair_exec,
};
