/*
 * sbrun-cli.c - a switchback run from the command line, as `switchback`
 * and `verify --live` both run one: the plan alone (--dry-run) or the run
 * refused on a sysroot, the run under the host-change lock after the
 * question, with signals caught and a progress line, then the stored run
 * loaded back and judged.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/change.h"
#include "swaptune/sbrun-cli.h"
#include "swaptune/stop.h"

/* Progress on stderr, a line per window in plain mode. */
static void sb_progress(const struct sbrun_progress *p, void *arg)
{
	const int *mode = arg;		/* struct sbrun_cli.progress: an enum cmd_progress */
	bool tty = *mode == CMD_PROGRESS_TTY;
	char eta[32];

	fprintf(stderr, tty ? "\r\033[Kswitchback: " : "switchback: ");
	if (p->phase == SBRUN_PHASE_WINDOW)
		fprintf(stderr, "window %u/%u (block %u/%u, arm %s): ", p->window, p->windows, p->block,
			p->blocks, p->arm ? p->arm : "-");
	else if (p->phase == SBRUN_PHASE_GUARD)
		fprintf(stderr, "window %u/%u: guardrail: ", p->window, p->windows);
	fmt_fputs(stderr, p->msg ? p->msg : "");
	if (p->phase == SBRUN_PHASE_WINDOW)
		fprintf(stderr, "; %s left at most", sbrun_secs(p->eta_s > 0 ? p->eta_s - 1 : 0, eta, sizeof(eta)));
	fprintf(stderr, tty ? "" : "\n");
	fflush(stderr);
}

static int run_locked(struct cmd_ctx *ctx, struct sbrun_config *c, const struct sbrun_plan *p,
		      struct sbrun_cli *a, struct sbrun_result *r)
{
	struct stop_catch stop;
	int rc;

	stop_catch(&stop, 0);
	c->stop = &stop_signal;
	a->progress = (int)cmd_progress_resolve((enum cmd_progress)a->progress, ctx->json);
	if (a->progress != CMD_PROGRESS_NONE) {
		c->progress = sb_progress;
		c->progress_arg = &a->progress;
	}
	rc = sbrun_run(&ctx->host, &ctx->store, c, p, r, &ctx->err);
	if (a->progress == CMD_PROGRESS_TTY)
		fprintf(stderr, "\r\033[K");
	stop_release(&stop);
	return rc;
}

int sbrun_cli_plan_only(struct cmd_ctx *ctx, const struct sbrun_config *c,
			const struct sbrun_plan *p, bool dry, const char *what)
{
	int rc;

	if (dry) {
		if (!ctx->json) {
			sbrun_plan_print(ctx->out, c, p);
			return 1;
		}
		rc = cmd_print_json(ctx, sbrun_plan_json(c, p));
		return rc < 0 ? rc : 1;
	}
	if (!ctx->host.live)
		return err_set_exit(&ctx->err, -EOPNOTSUPP, ST_EXIT_USAGE,
				    "%s the running kernel's settings; with --sysroot use --dry-run", what);
	return 0;
}

void sbrun_cli_say_stopped(const char *what, const char *reason)
{
	/* the reason may quote the metric command's stderr: through the one escaper */
	fprintf(stderr, "swaptune: %s stopped early: ", what);
	fmt_fputs(stderr, reason);
	fputs("; the settings were restored\n", stderr);
}

int sbrun_cli_execute(struct cmd_ctx *ctx, const char *what, struct sbrun_config *c,
		      const struct sbrun_plan *p, struct sbrun_cli *a, const struct sbrun_ran *out)
{
	struct sbrun_result *r = out->r;
	struct sbrun_stored *s = out->s;
	char q[200], t[32];
	int lockfd = -1, rc, rc2;

	rc = change_lock(&ctx->store, &ctx->host,
			 &(struct change_guard){ .what = what, .db_path = ctx->db_path,
						 .refuse_pending = !c->verify_of },
			 &lockfd, &ctx->err);
	if (rc < 0)
		return rc;
	if (!a->yes && isatty(STDIN_FILENO))
		sbrun_plan_print(stderr, c, p);
	snprintf(q, sizeof(q), "switch %s under the running workload for up to %s",
		 p->ntouch ? p->touch[0].name : "the settings", sbrun_secs(p->budget.duration_s, t, sizeof(t)));
	if ((rc = change_ask(q, a->yes, &ctx->err)) < 0) {
		change_unlock(lockfd);
		return rc;
	}
	rc = run_locked(ctx, c, p, a, r);
	change_unlock(lockfd);
	if (r->run_id <= 0)
		return rc;
	rc2 = sbrun_load(&ctx->store, &ctx->host, r->run_id, s, rc < 0 ? NULL : &ctx->err);
	if (rc < 0)
		return rc;
	if (rc2 < 0)
		return rc2;
	if (r->signal)
		return 128 + r->signal;
	return 0;
}

