/*
 * cmd-doctor.c - `swaptune doctor`: runs the prerequisite checks of
 * doctor.c and prints them as an aligned table or one JSON document. Exit
 * 0 when probing can work, 3 when a required check failed. A kernel file
 * that cannot be read makes only its checks n/a (a warning on stderr each).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/change.h"
#include "swaptune/fmt.h"
#include "swaptune/cmd.h"
#include "swaptune/lock.h"
#include "swaptune/probe-bypass.h"
#include "swaptune/doctor.h"

static void count(const struct doctor_result *res, int n[4])
{
	memset(n, 0, 4 * sizeof(int));
	for (size_t i = 0; i < doctor_count(); i++)
		n[res[i].status]++;
}

static void print_human(FILE *o, const struct host_facts *f, const struct doctor_result *res,
			bool ready)
{
	int n[4], width = 5;

	for (size_t i = 0; i < doctor_count(); i++)
		if ((int)strlen(doctor_at(i)->name) > width)
			width = (int)strlen(doctor_at(i)->name);
	fprintf(o, "%-*s  %-7s  %s\n", width, "CHECK", "STATUS", "RESULT");
	for (size_t i = 0; i < doctor_count(); i++) {
		const struct doctor_check *c = doctor_at(i);

		fprintf(o, "%-*s  %-7s  %s\n", width, c->name,
			doctor_status_name(res[i].status), fmt_printable(res[i].message));
		if (res[i].fix[0])
			fprintf(o, "%-*s  %-7s  fix: %s\n", width, "", "", fmt_printable(res[i].fix));
	}
	count(res, n);
	fprintf(o, "\n%s: %d ok, %d warning%s, %d failed, %d skipped\n",
		ready ? "probing can work" : "probing cannot work", n[DOCTOR_OK],
		n[DOCTOR_WARN], n[DOCTOR_WARN] == 1 ? "" : "s", n[DOCTOR_FAIL],
		n[DOCTOR_SKIPPED]);
	if (!ready) {
		fprintf(o, "required checks failed:");
		for (size_t i = 0; i < doctor_count(); i++)
			if (doctor_at(i)->required && res[i].status == DOCTOR_FAIL)
				fprintf(o, " %s", doctor_at(i)->name);
		fprintf(o, "\n");
	}
	for (int i = 0; i < f->n_problems; i++)
		fprintf(o, "%s%s", i ? ", " : "could not read (shown as n/a): ",
			fmt_printable(f->problems[i].file));
	if (f->n_problems)
		fprintf(o, "\n");
}

static cJSON *to_json(const struct host_facts *f, const struct host *h,
		      const struct doctor_result *res, bool ready)
{
	cJSON *root = cJSON_CreateObject(), *a, *o;
	int n[4];

	cJSON_AddStringToObject(root, "schema", DOCTOR_SCHEMA);
	cJSON_AddStringToObject(root, "kernel", f->kernel);
	cJSON_AddBoolToObject(root, "live", h->live);
	cJSON_AddBoolToObject(root, "probe_ready", ready);
	count(res, n);
	o = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(o, "ok", n[DOCTOR_OK]);
	cJSON_AddNumberToObject(o, "warn", n[DOCTOR_WARN]);
	cJSON_AddNumberToObject(o, "fail", n[DOCTOR_FAIL]);
	cJSON_AddNumberToObject(o, "skipped", n[DOCTOR_SKIPPED]);
	a = cJSON_AddArrayToObject(root, "checks");
	for (size_t i = 0; i < doctor_count(); i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", doctor_at(i)->name);
		cJSON_AddStringToObject(o, "status", doctor_status_name(res[i].status));
		cJSON_AddBoolToObject(o, "required", doctor_at(i)->required);
		cJSON_AddStringToObject(o, "message", res[i].message);
		if (res[i].fix[0])
			cJSON_AddStringToObject(o, "fix", res[i].fix);
		else
			cJSON_AddNullToObject(o, "fix");
		cJSON_AddItemToArray(a, o);
	}
	facts_problems_json(root, f);
	return root;
}

struct doctor_args {
	bool behaviour;
};

static const struct opt_spec doctor_opts[] = {
	OPT_FLAG("behaviour", 0, "also test whether the kernel skips readahead for zswap natively "
		 "(a 2 s sequential swap-in under zswap with page-cluster 3) and, if not, that "
		 "page-cluster changes readahead (the same with 0); root, settings journaled and restored", struct doctor_args, behaviour),
	{ .name = "behavior", .parse = opt_set_true, .flags = OPT_HIDDEN,
	  .off = OPT_AT(struct doctor_args, behaviour, bool) },
	{ NULL },
};

/* The native-bypass check: the probe engine's short sequential swap-in. */
static void run_bypass_check(struct cmd_ctx *ctx, struct doctor_bypass *b)
{
	struct probe_bypass_check c;
	struct st_err e = { 0 };
	int r;

	int lockfd = -1;

	memset(b, 0, sizeof(*b));
	b->ran = true;
	/* it changes page-cluster and zswap: never alongside a probe */
	r = host_change_lock(&ctx->host, ctx->db_path, "doctor", &lockfd, &e);
	if (r == 0) {
		change_repair(&ctx->store, &ctx->host);
		r = probe_detect_native_bypass(&ctx->host, &ctx->store, &c, &e);
		host_change_unlock(lockfd);
	}
	if (r < 0) {
		b->error = r;
		snprintf(b->error_msg, sizeof(b->error_msg), "%s", e.msg);
		return;
	}
	b->conclusive = c.conclusive;
	b->native = c.native;
	snprintf(b->evidence, sizeof(b->evidence), "%s", c.evidence);
	b->pc_ran = c.pc_ran;
	b->pc_conclusive = c.pc_conclusive;
	b->pc_governs = c.pc_governs;
	snprintf(b->pc_evidence, sizeof(b->pc_evidence), "%s", c.pc_evidence);
}

static int doctor_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct doctor_result *res;
	struct doctor_env env;
	struct doctor_bypass bypass;
	struct host_facts f;
	struct doctor_args a = { 0 };
	bool ready, behaviour;
	int r;

	if ((r = cmd_parse(ctx, &cmd_doctor_entry, argc, argv, &a, NULL)) < 0)
		return r;
	behaviour = a.behaviour;
	if (behaviour && (!ctx->host.live || geteuid() != 0))
		return err_set_exit(&ctx->err, -EPERM, ST_EXIT_DENIED,
				    "doctor --behaviour swaps for real: it needs root on the live host");
	if (behaviour)
		run_bypass_check(ctx, &bypass);
	r = facts_collect_all(&ctx->host, &f, &ctx->err);
	if (r < 0) {
		facts_free(&f);
		return r;
	}
	res = calloc(doctor_count(), sizeof(*res));
	if (!res) {
		facts_free(&f);
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	}
	env = (struct doctor_env){ .h = &ctx->host, .f = &f, .root = geteuid() == 0,
				   .bypass = behaviour ? &bypass : NULL };
	ready = doctor_run_all(&env, res);
	if (ctx->json)
		r = cmd_print_json(ctx, to_json(&f, &ctx->host, res, ready));
	else
		print_human(ctx->out, &f, res, ready);
	facts_warn(stderr, &f);
	free(res);
	facts_free(&f);
	if (r < 0)
		return r;
	return ready ? ST_EXIT_OK : ST_EXIT_DENIED;
}

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor",
	.summary = "check every prerequisite for probing, each with a fix hint",
	.usage = "[--behaviour] [--json]",
	.group = CMD_GROUP_INSPECT,
	.opts = { doctor_opts },
	.flags = CMD_WRAP_HUMAN,
	.exec = doctor_exec,
};
