/*
 * probe-bypass.c - does this kernel skip swap readahead for zswap swap-in
 * (a "native bypass")? A short sequential swap-in under zswap with
 * page-cluster=3 answers it; the result settles the built-in "bypass" arm
 * (native, or emulated by page-cluster=0 or by zram). Also the standalone
 * check doctor runs (probe_detect_native_bypass()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe-int.h"
#include "swaptune/probe-bypass.h"

/* One detection trial: a sequential sweep of 64 MiB in a 32 MiB memcg under
 * the built-in arm named (pc3 or pc0), pushed onto the result's trials. */
static int detect_trial(struct engine *E, const char *arm, const char *what,
			struct probe_trial *t, struct st_err *e)
{
	struct probe_config *dc = malloc(sizeof(*dc));
	struct probe_arm a;
	int rc;

	if (!dc)
		return err_set(e, -ENOMEM, "out of memory");
	*dc = *E->c;
	dc->workload = workload_find("anon-seq");
	workload_params_init(&dc->wp);
	dc->wp.working_set_bytes = 64 * MiB;
	dc->wp.ops = 64 * MiB / (uint64_t)sysconf(_SC_PAGESIZE);
	dc->wp.max_duration_s = 30;
	dc->duration_s = 30;
	dc->memcg_limit_bytes = 32 * MiB;
	dc->limit_mode = MEMCG_LIMIT_MAX;
	dc->primary = PROBE_PRIMARY_THROUGHPUT;
	probe_arm_builtin(arm, &a);
	memset(t, 0, sizeof(*t));
	t->arm = -1;
	t->seq = ++E->seq;
	probe_report(E, PROBE_PHASE_DETECT, NULL, 0, what);
	rc = dc->workload ? probe_trial_run(E, &a, dc, t, e) :
			    err_set(e, -ENOENT, "the anon-seq workload is missing from this build");
	free(dc);
	if (rc < 0)
		return rc;
	if (probe_trials_push(E->r, t) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
}

/* The native-bypass trial: page-cluster 3. */
static int engine_detect(struct engine *E, struct probe_bypass_check *out, struct st_err *e)
{
	struct probe_trial t;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = detect_trial(E, "pc3", "checking whether the kernel bypasses readahead for zswap", &t, e);
	if (rc < 0)
		return rc;
	out->swap_ra = (uint64_t)t.v[PM_SWAP_RA];
	out->swap_ra_hit = (uint64_t)t.v[PM_SWAP_RA_HIT];
	out->zswpin = (uint64_t)t.v[PM_ZSWPIN];
	out->conclusive = t.status == PROBE_TRIAL_OK && t.have[PM_ZSWPIN] && out->zswpin >= 256;
	out->native = out->conclusive && out->swap_ra * 20 < out->zswpin;
	if (!out->conclusive)
		snprintf(out->evidence, sizeof(out->evidence),
			 "inconclusive: the check swapped in %llu pages from zswap (%s%s)",
			 (unsigned long long)out->zswpin, probe_trial_status_name(t.status),
			 t.note[0] ? ": " : "");
	else
		snprintf(out->evidence, sizeof(out->evidence),
			 "a sequential swap-in of %llu pages from zswap with page-cluster=3 %s swap_ra by %llu (%llu hits): %s",
			 (unsigned long long)out->zswpin, out->swap_ra ? "raised" : "left",
			 (unsigned long long)out->swap_ra, (unsigned long long)out->swap_ra_hit,
			 out->native ? "the kernel skips readahead for zswap" : "no native bypass");
	if (!out->conclusive && t.note[0]) {
		size_t n = strlen(out->evidence);

		snprintf(out->evidence + n - 1, sizeof(out->evidence) - n + 1, "%s)", t.note);
	}
	return 0;
}

static void settle_bypass_arms(struct engine *E, const struct probe_bypass_check *chk)
{
	struct probe_result *r = E->r;

	r->bypass = chk->native ? PROBE_BYPASS_NATIVE : PROBE_BYPASS_EMULATED;
	r->bypass_mode = E->c->bypass_mode;
	snprintf(r->bypass_evidence, sizeof(r->bypass_evidence), "%s", chk->evidence);
	for (int i = 0; i < E->c->narms; i++) {
		struct probe_arm *a = &E->c->arms[i];

		if (!a->bypass)
			continue;
		if (chk->native) {
			a->emulated = false;
			probe_arm_set(a, "page-cluster", "3");
			snprintf(a->note, sizeof(a->note),
				 "native: this kernel skips readahead for zswap swap-in (page-cluster=3 kept for other swap)");
		} else if (E->c->bypass_mode == PROBE_BYPASS_ZRAM && E->have_zram) {
			a->emulated = true;
			a->zram = true;
			probe_arm_set(a, "page-cluster", "3");
			snprintf(a->note, sizeof(a->note),
				 "emulated: zswap in front of zram, a synchronous device for which the kernel skips swap readahead");
		} else {
			a->emulated = true;
			probe_arm_set(a, "page-cluster", "0");
			snprintf(a->note, sizeof(a->note),
				 "emulated by page-cluster=0: no native zswap readahead bypass in this kernel");
		}
	}
}

int probe_engine_bypass(struct engine *E, struct st_err *e)
{
	struct probe_bypass_check chk;
	int rc = 0;

	if (E->c->bypass_mode == PROBE_BYPASS_ZRAM)
		rc = probe_engine_zram(E, e);
	if (rc == 0)
		rc = engine_detect(E, &chk, e);
	if (rc == 0)
		settle_bypass_arms(E, &chk);
	return rc;
}

/* The proof the page-cluster arms rely on: the same sweep with page-cluster
 * 0 reads ahead far less than with 3 (which out already holds). */
static int engine_pc_effect(struct engine *E, struct probe_bypass_check *out, struct st_err *e)
{
	struct probe_trial t;
	int rc;

	rc = detect_trial(E, "pc0", "checking that page-cluster changes readahead on this kernel", &t, e);
	if (rc < 0)
		return rc;
	out->pc_ran = true;
	out->pc0_swap_ra = (uint64_t)t.v[PM_SWAP_RA];
	out->pc0_zswpin = (uint64_t)t.v[PM_ZSWPIN];
	out->pc_conclusive = t.status == PROBE_TRIAL_OK && t.have[PM_ZSWPIN] && t.have[PM_SWAP_RA] &&
			     out->pc0_zswpin >= 256 && out->swap_ra >= 64;
	out->pc_governs = out->pc_conclusive && out->pc0_swap_ra * 4 <= out->swap_ra;
	if (!out->pc_conclusive)
		snprintf(out->pc_evidence, sizeof(out->pc_evidence),
			 "inconclusive: page-cluster=3 read ahead %llu pages, page-cluster=0 swapped in %llu from zswap (%s)",
			 (unsigned long long)out->swap_ra, (unsigned long long)out->pc0_zswpin,
			 probe_trial_status_name(t.status));
	else
		snprintf(out->pc_evidence, sizeof(out->pc_evidence),
			 "the same sequential swap-in raised swap_ra by %llu with page-cluster=3 and by %llu with page-cluster=0",
			 (unsigned long long)out->swap_ra, (unsigned long long)out->pc0_swap_ra);
	return 0;
}

/* ---- standalone bypass detection ------------------------------------- */

int probe_detect_native_bypass(const struct host *h, struct store *st,
			       struct probe_bypass_check *out, struct st_err *e)
{
	struct probe_config *c = malloc(sizeof(*c));
	struct probe_plan *p = malloc(sizeof(*p));
	struct probe_result *r = calloc(1, sizeof(*r));
	struct engine E;
	struct st_err e1 = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c || !p || !r) {
		free(c);
		free(p);
		free(r);
		return err_set(e, -ENOMEM, "out of memory");
	}
	probe_config_init(c);
	c->workload = workload_find("anon-seq");
	c->wp.working_set_bytes = 64 * MiB;
	c->memcg_limit_bytes = 32 * MiB;
	c->narms = 1;
	probe_arm_builtin("pc3", &c->arms[0]);
	rc = c->workload ? probe_plan(h, c, p, e) : err_set(e, -ENOENT, "no anon-seq workload");
	if (rc == 0 && !h->live)
		rc = err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED, "the bypass check runs on the live host only");
	if (rc == 0) {
		memset(&E, 0, sizeof(E));
		E.h = h;
		E.st = st;
		E.c = c;
		E.p = p;
		E.r = r;
		journal_begin(&E.j, st, h, 0, e);
		E.journaled = true;
		rc = probe_engine_setup(&E, e);
		if (rc == 0)
			rc = engine_detect(&E, out, e);
		if (rc == 0 && out->conclusive && !out->native)
			rc = engine_pc_effect(&E, out, e);
		probe_engine_teardown(&E, rc < 0 ? &e1 : e);
		if (rc == 0 && r->restore_error[0])
			rc = -EIO;
	}
	free(c);
	free(p);
	free(r);
	return rc;
}
