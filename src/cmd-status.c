/*
 * cmd-status.c - `swaptune status`: the host's swap, readahead, zswap,
 * cgroup, PSI and CPU-counter state in one screen or one JSON document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/change.h"
#include "swaptune/cmd.h"
#include "swaptune/facts.h"
#include "swaptune/fmt.h"
#include "swaptune/kernel-check.h"
#include "swaptune/utc.h"

#define LABEL "%-18s"
#define SUBLABEL "%-16s"

/* "n/a: REASON" of the part that could not be read, else NULL. */
static const char *na(const struct host_facts *f, const char *part, char *buf, size_t len)
{
	const struct facts_problem *p = facts_problem(f, part);

	if (!p)
		return NULL;
	snprintf(buf, len, "n/a: %s", fmt_printable(p->err.msg));
	return buf;
}

static void print_swaps(FILE *o, const struct host_facts *f)
{
	char b1[32], b2[32], why[ST_ERR_MSG_MAX + 8];

	if (!f->have_swaps) {
		fprintf(o, LABEL "%s\n", "Swap", na(f, "swaps", why, sizeof(why)));
		return;
	}
	if (f->nswaps == 0) {
		fprintf(o, LABEL "none active\n", "Swap");
		return;
	}
	fprintf(o, LABEL "%d device%s, %s total, %s used\n", "Swap", f->nswaps,
		f->nswaps == 1 ? "" : "s", fmt_bytes(f->swap_total_bytes, b1, sizeof(b1)),
		fmt_bytes(f->swap_total_bytes - f->swap_free_bytes, b2, sizeof(b2)));
	fprintf(o, "  %-24s %-9s %10s %10s %5s  %s\n", "path", "type", "size", "used",
		"prio", "device");
	for (int i = 0; i < f->nswaps; i++) {
		const struct st_swap *s = &f->swaps[i];
		char dev[96];

		snprintf(dev, sizeof(dev), "%s%s%s", s->blockdev[0] ? fmt_printable(s->blockdev) : "?",
			 s->rotational == 1 ? ", rotational" :
			 s->rotational == 0 ? ", non-rotational" : ", rotational unknown",
			 s->zram ? ", zram" : "");
		/* /proc/swaps paths may hold any byte (\ooo-unescaped): escape them */
		fprintf(o, "  %-24s %-9s %10s %10s %5d  %s\n", fmt_printable(s->path),
			fmt_printable(s->type),
			fmt_bytes(s->size_bytes, b1, sizeof(b1)),
			fmt_bytes(s->used_bytes, b2, sizeof(b2)), s->priority, dev);
	}
}

static void print_zswap(FILE *o, const struct host_facts *f)
{
	const struct setting_value *v;
	char b1[32], b2[32], why[ST_ERR_MSG_MAX + 8];

	if (!f->zswap_present) {
		fprintf(o, LABEL "not in this kernel\n", "zswap");
		return;
	}
	fprintf(o, LABEL "%s, compressor %s", "zswap",
		!f->have_zswap_enabled ? "n/a" : f->zswap_enabled ? "on" : "off",
		f->zswap_compressor[0] ? fmt_printable(f->zswap_compressor) : "?");
	if ((v = settings_snapshot_get(&f->settings, "zswap.max_pool_percent")) && v->present)
		fprintf(o, ", max pool %s %%", fmt_printable(v->value));
	if ((v = settings_snapshot_get(&f->settings, "zswap.accept_threshold_percent")) && v->present)
		fprintf(o, ", accept %s %%", fmt_printable(v->value));
	if ((v = settings_snapshot_get(&f->settings, "zswap.shrinker_enabled")) && v->present)
		fprintf(o, ", shrinker %s", !strcmp(v->value, "Y") ? "on" : "off");
	fprintf(o, "\n");
	/* a parameter that could not be read: its own line, with the reason */
	for (int i = 0; i < f->n_problems; i++)
		if (!strncmp(f->problems[i].part, "zswap.", 6))
			fprintf(o, "  " SUBLABEL "%s\n", f->problems[i].part + 6,
				na(f, f->problems[i].part, why, sizeof(why)));
	if (f->zswap_stats_available) {
		fprintf(o, "  " SUBLABEL "%s pages stored in %s", "pool",
			fmt_num((double)f->zswap_stored_pages, b2, sizeof(b2)),
			fmt_bytes(f->zswap_pool_bytes, b1, sizeof(b1)));
		if (f->zswap_ratio > 0)
			fprintf(o, ", compression %s:1", fmt_num(f->zswap_ratio, b2, sizeof(b2)));
		fprintf(o, "\n");
	} else {
		const char *n = na(f, "zswap-debugfs", why, sizeof(why));

		if (n)
			fprintf(o, "  " SUBLABEL "%s\n", "pool", n);
		else
			fprintf(o, "  " SUBLABEL "no debugfs counters: %s\n", "pool",
				fmt_printable(f->zswap_stats_reason));
		if (f->zswap_meminfo)
			fprintf(o, "  " SUBLABEL "%s compressed holding %s (meminfo)\n", "",
				fmt_bytes(f->zswap_meminfo_bytes, b1, sizeof(b1)),
				fmt_bytes(f->zswapped_meminfo_bytes, b2, sizeof(b2)));
	}
}

static void print_readahead(FILE *o, const struct host_facts *f)
{
	char pcw[64], why[ST_ERR_MSG_MAX + 8], pct[32], b1[FMT_NUM_LEN], b2[FMT_NUM_LEN];
	const char *n;

	fprintf(o, LABEL "%s%s\n", "Readahead",
		f->ra_algo == RA_VMA ? "VMA: " : f->ra_algo == RA_CLUSTER ? "cluster: " : "",
		fmt_printable(f->ra_reason));
	if ((n = na(f, "page-cluster", why, sizeof(why))))
		fprintf(o, "  " SUBLABEL "%s\n", "page-cluster", n);
	else if (f->have_page_cluster)
		fprintf(o, "  " SUBLABEL "%s\n", "page-cluster",
			facts_page_cluster_words(f, pcw, sizeof(pcw)));
	else
		fprintf(o, "  " SUBLABEL "not available\n", "page-cluster");
	if ((n = na(f, "vma_ra_enabled", why, sizeof(why))))
		fprintf(o, "  " SUBLABEL "%s\n", "vma_ra_enabled", n);
	else
		fprintf(o, "  " SUBLABEL "%s\n", "vma_ra_enabled",
			f->have_vma_ra ? (f->vma_ra_enabled ? "true" : "false") : "not available");
	if ((n = na(f, "vmstat", why, sizeof(why))))
		fprintf(o, "  " SUBLABEL "%s\n", "hit ratio", n);
	else if (f->have_swap_ra && f->swap_ra)
		fprintf(o, "  " SUBLABEL "%s of %s readahead pages used since boot (%s wasted)\n",
			"hit ratio", fmt_pct(f->ra_hit_pct, false, pct, sizeof(pct)),
			fmt_num((double)f->swap_ra, b1, sizeof(b1)),
			fmt_num((double)(f->swap_ra - f->swap_ra_hit), b2, sizeof(b2)));
	else
		fprintf(o, "  " SUBLABEL "%s\n", "hit ratio",
			f->have_swap_ra ? "no swap readahead since boot" : "not counted by this kernel");
}

/* The fingerprint's parts status does not show elsewhere: what can move a verdict. */
static void print_fingerprint(FILE *o, const struct kernel_fingerprint *fp)
{
	char sizes[FP_MTHP_MAX * 24] = "";
	size_t n = 0;

	fprintf(o, LABEL "%s (%s)\n", "zswap ever on", fingerprint_tri_name(fp->zswap_ever),
		fmt_printable(fp->zswap_ever_why));
	fprintf(o, LABEL "%s (%s)\n", "Large folios",
		fp->large_folio_swapin == FP_YES ? "swap-in possible" :
		fp->large_folio_swapin == FP_NO ? "no swap-in" : "swap-in unknown",
		fmt_printable(fp->large_folio_swapin_why));
	for (int i = 0; i < fp->n_mthp && n < sizeof(sizes); i++) {
		int w = snprintf(sizes + n, sizeof(sizes) - n, "%s%ukB %s", n ? ", " : "", fp->mthp[i].size_kb,
				 fp->mthp[i].enabled);

		n += w > 0 ? (size_t)w : 0;
	}
	fprintf(o, "  " SUBLABEL "THP %s; %s\n", "mTHP", fp->thp_enabled[0] ? fp->thp_enabled : "n/a",
		fp->n_mthp ? sizes : fp->mthp_anon == FP_NO ? "no per-size settings (a kernel before ~6.8)" :
		"per-size settings n/a");
	fprintf(o, LABEL "%s%s%s%s\n", "MGLRU", fp->mglru == FP_YES ? "on" : fp->mglru == FP_NO ? "off" : "n/a",
		fp->mglru_value[0] ? " (" : "", fp->mglru_value[0] ? fp->mglru_value : "",
		fp->mglru_value[0] ? ")" : "");
	if (fp->memcg_version == 2)
		fprintf(o, LABEL "%s\n", "zswap writeback", fp->zswap_writeback == FP_YES ?
			"memory.zswap.writeback per cgroup" : fp->zswap_writeback == FP_NO ?
			"no memory.zswap.writeback (a kernel before ~6.8)" : "memory.zswap.writeback n/a");
}

/*
 * The setting applied now and the newest verdict in the store, each against
 * the running kernel (a verdict is evidence for the kernel it ran on).
 * Either may be absent; a fingerprint that does not read back is said in
 * its line, never trusted.
 */
struct verdict_checks {
	bool applied;
	struct kcheck_applied a;
	char applied_err[ST_ERR_MSG_MAX];
	bool newest;
	struct kcheck n;
	char newest_host[128];		/* the origin host of an imported verdict, "" when local */
	char newest_err[ST_ERR_MSG_MAX];
};

/* The newest probe or switchback run, this host's or imported: its row into *ri. */
static int newest_verdict_run(struct store *st, struct store_run *ri)
{
	struct store_run *rows = NULL;
	int n = 0, found = 0;

	memset(ri, 0, sizeof(*ri));
	if (store_runs_list(st, &(struct store_runs_which){ .limit = 200 }, &rows, &n, NULL) < 0)
		return 0;
	for (int i = 0; i < n && !found; i++) {
		const char *k = store_run_kind(&rows[i]);

		if (!strcmp(k, "probe") || !strcmp(k, "switchback")) {
			*ri = rows[i];
			memset(&rows[i], 0, sizeof(rows[i]));
			found = 1;
		}
	}
	store_runs_free(rows, n);
	return found;
}

static void check_verdicts(struct cmd_ctx *ctx, const struct kernel_fingerprint *now,
			   struct verdict_checks *v)
{
	struct st_err e = {0};
	struct store_run ri;
	int r;

	memset(v, 0, sizeof(*v));
	r = kcheck_applied(&ctx->store, now, &v->a, &e);
	v->applied = r != 0;
	if (r < 0)
		snprintf(v->applied_err, sizeof(v->applied_err), "%s", e.msg);
	if (!newest_verdict_run(&ctx->store, &ri))
		return;
	if (v->applied && r > 0 && ri.id == v->a.k.run_id) {
		store_run_free(&ri);
		return;		/* the applied setting's own verdict: said once */
	}
	v->newest = true;
	if (ri.imported)
		snprintf(v->newest_host, sizeof(v->newest_host), "%s", ri.hostname);
	err_reset(&e);
	if (kcheck_run(&ri, now, &v->n, &e) < 0) {
		v->n.run_id = ri.id;
		snprintf(v->newest_err, sizeof(v->newest_err), "%s", e.msg);
	}
	store_run_free(&ri);
}

static void print_verdicts(FILE *o, const struct verdict_checks *v)
{
	char buf[1024];

	if (v->applied && v->applied_err[0])
		fprintf(o, LABEL "n/a: %s\n", "Applied setting", fmt_printable(v->applied_err));
	else if (v->applied)
		fprintf(o, LABEL "run %lld (%s%s): %s\n", "Applied setting", (long long)v->a.applied.apply_run,
			v->a.applied.source_run ? "from its verdict's run" : "set by hand",
			v->a.applied.persisted ? ", persisted" : "",
			fmt_printable(kcheck_words(&v->a.k, buf, sizeof(buf))));
	if (!v->newest)
		return;
	if (v->newest_err[0])
		fprintf(o, LABEL "run %lld: n/a: %s\n", "Newest verdict", (long long)v->n.run_id,
			fmt_printable(v->newest_err));
	else
		fprintf(o, LABEL "run %lld (%s%s%s): %s\n", "Newest verdict", (long long)v->n.run_id,
			fmt_printable(v->n.kind), v->newest_host[0] ? " imported from " : "",
			fmt_printable(v->newest_host), fmt_printable(kcheck_words(&v->n, buf, sizeof(buf))));
}

static cJSON *verdicts_json(const struct verdict_checks *v)
{
	cJSON *o = cJSON_CreateObject(), *x;

	if (!v->applied) {
		cJSON_AddNullToObject(o, "applied");
	} else if (v->applied_err[0]) {
		x = cJSON_AddObjectToObject(o, "applied");
		cJSON_AddStringToObject(x, "error", v->applied_err);
	} else {
		x = kcheck_json(&v->a.k);
		cJSON_AddNumberToObject(x, "apply_run", (double)v->a.applied.apply_run);
		cJSON_AddBoolToObject(x, "persisted", v->a.applied.persisted);
		cJSON_AddItemToObject(o, "applied", x);
	}
	if (!v->newest) {
		cJSON_AddNullToObject(o, "newest_verdict");
	} else if (v->newest_err[0]) {
		x = cJSON_AddObjectToObject(o, "newest_verdict");
		cJSON_AddNumberToObject(x, "run", (double)v->n.run_id);
		cJSON_AddStringToObject(x, "error", v->newest_err);
	} else {
		x = kcheck_json(&v->n);
		cJSON_AddStringToObject(x, "kind", v->n.kind);
		if (v->newest_host[0])
			cJSON_AddStringToObject(x, "imported_from", v->newest_host);
		else
			cJSON_AddNullToObject(x, "imported_from");
		cJSON_AddItemToObject(o, "newest_verdict", x);
	}
	return o;
}

static void print_human(FILE *o, const struct host_facts *f)
{
	char b1[32], b2[32], why[ST_ERR_MSG_MAX + 8];
	const char *n;

	/* every string from the host is escaped: a hostname can hold ESC and newlines */
	fprintf(o, LABEL "%s (%s)\n", "Kernel", fmt_printable(f->kernel),
		fmt_printable(f->hostname));
	if ((n = na(f, "meminfo", why, sizeof(why))))
		fprintf(o, LABEL "%s\n", "Memory", n);
	else
		fprintf(o, LABEL "%s total, %s available\n", "Memory",
			fmt_bytes(f->mem_total_bytes, b1, sizeof(b1)),
			fmt_bytes(f->mem_available_bytes, b2, sizeof(b2)));
	print_swaps(o, f);
	print_readahead(o, f);
	print_zswap(o, f);
	if ((n = na(f, "cgroups", why, sizeof(why))))
		fprintf(o, LABEL "%s\n", "Cgroups", n);
	else if (f->cgroup.memory_v1 || f->cgroup.memory_v2)
		fprintf(o, LABEL "%s, memory controller %s at /%s\n", "Cgroups",
			cgroup_mode_name(f->cgroup.mode), f->cgroup.memory_v1 ? "v1" : "v2",
			fmt_printable(f->cgroup.memory_root));
	else
		fprintf(o, LABEL "%s, no memory controller\n", "Cgroups",
			cgroup_mode_name(f->cgroup.mode));
	if ((n = na(f, "psi", why, sizeof(why))))
		fprintf(o, LABEL "%s\n", "PSI", n);
	else if (f->psi_available)
		fprintf(o, LABEL "memory some %s, full %s (avg10)\n", "PSI",
			fmt_pct(f->psi.some.avg10, false, b1, sizeof(b1)),
			fmt_pct(f->psi.full.avg10, false, b2, sizeof(b2)));
	else
		fprintf(o, LABEL "not available (kernel without CONFIG_PSI or booted psi=0)\n", "PSI");
	if (f->pmu.hw_available)
		fprintf(o, LABEL "hardware (%s)\n", "CPU counters",
			f->pmu.hw_pmu_name[0] ? fmt_printable(f->pmu.hw_pmu_name) : "cpu");
	else if (f->pmu.sw_available)
		fprintf(o, LABEL "software events only: %s\n", "CPU counters",
			fmt_printable(f->pmu.hw_reason));
	else
		fprintf(o, LABEL "none: %s\n", "CPU counters",
			fmt_printable(f->pmu.sw_reason));
}

/* An apply waiting for its confirmation comes first: it undoes itself unless confirmed. */
static void print_pending(struct cmd_ctx *ctx)
{
	struct change_pending p;
	struct st_err e = { 0 };
	double left;

	if (change_pending_confirm(&ctx->store, &ctx->host, &p, &e) != 1)
		return;
	left = p.deadline > 0 ? p.deadline - utc_now() : -1;
	if (left >= 0)
		fprintf(ctx->out, "PENDING: apply run %lld undoes itself in %.0f s unless confirmed\n",
			(long long)p.run_id, left);
	else
		fprintf(ctx->out, "PENDING: apply run %lld awaits confirmation\n", (long long)p.run_id);
	fprintf(ctx->out, "  keep it: swaptune apply --confirm; undo it now: swaptune rollback\n\n");
}

/* pending_confirm: the apply awaiting confirmation, null when none (status.schema.json) */
static cJSON *pending_json(struct cmd_ctx *ctx)
{
	struct change_pending p;
	struct st_err e = { 0 };
	cJSON *o;

	if (change_pending_confirm(&ctx->store, &ctx->host, &p, &e) != 1)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "apply_run", (double)p.run_id);
	if (p.deadline > 0) {
		double left = p.deadline - utc_now();

		cJSON_AddNumberToObject(o, "deadline_unix", p.deadline);
		cJSON_AddNumberToObject(o, "seconds_left", left > 0 ? left : 0);
	} else {
		cJSON_AddNullToObject(o, "deadline_unix");
		cJSON_AddNullToObject(o, "seconds_left");
	}
	return o;
}

static int status_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct kernel_fingerprint *fp = calloc(1, sizeof(*fp));
	struct verdict_checks *vc = calloc(1, sizeof(*vc));
	struct host_facts f;
	static const char what[] = "settings, swap and zswap may show its temporary values until it restores them";
	int r;

	if (!fp || !vc) {
		free(fp);
		free(vc);
		return err_set(&ctx->err, -ENOMEM, "out of memory");
	}
	if ((r = cmd_parse(ctx, &cmd_status_entry, argc, argv, NULL, NULL)) < 0)
		goto out;
	r = facts_collect_all(&ctx->host, &f, &ctx->err);
	if (r < 0) {
		facts_free(&f);
		goto out;
	}
	kcheck_now(&ctx->store, &ctx->host, fp);
	check_verdicts(ctx, fp, vc);
	/* during another swaptune command's changes, what is read is partly its temporary state */
	if (ctx->json) {
		cJSON *doc = facts_to_json(&f);

		cJSON_AddItemToObject(doc, "kernel_fingerprint", fingerprint_to_json(fp));
		cJSON_AddItemToObject(doc, "verdicts", verdicts_json(vc));
		cJSON_AddItemToObject(doc, "pending_confirm", pending_json(ctx));
		{
			/* status repairs nothing: it counts what is left (main.c says it in a line) */
			struct st_err e = { 0 };
			int64_t left = 0;

			journal_leftovers(&ctx->store, &ctx->host, &left, &e);
			cJSON_AddNumberToObject(doc, "leftover_changes", (double)left);
		}
		cmd_note_host_changing(ctx, doc, what);
		r = cmd_print_json(ctx, doc);
	} else {
		cmd_note_host_changing(ctx, NULL, what);
		print_pending(ctx);
		print_human(ctx->out, &f);
		print_fingerprint(ctx->out, fp);
		print_verdicts(ctx->out, vc);
	}
	facts_warn(stderr, &f);
	facts_free(&f);
out:
	free(fp);
	free(vc);
	return r < 0 ? r : 0;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.summary = "show swap devices, readahead, zswap, cgroup mode, PSI and CPU counters",
	.usage = "[--json]",
	.group = CMD_GROUP_INSPECT,
	.flags = CMD_WRAP_HUMAN,
	.exec = status_exec,
};
