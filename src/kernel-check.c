/*
 * kernel-check.c - the running kernel's fingerprint against the one a
 * stored run ran on (kernel-check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/kernel-check.h"

void kcheck_now(struct store *st, const struct host *h, struct kernel_fingerprint *fp)
{
	static const char *const on[] = { "Y", "y", "1", NULL };
	struct fp_hints hints = { .swaptune_enabled_zswap = FP_UNKNOWN };
	char boot[64], mid[64];

	if (st && st->db && host_read_boot_id(h, boot, sizeof(boot)) == 0) {
		int r;

		host_read_machine_id(h, mid, sizeof(mid));
		r = store_changes_set_in_boot(st, "zswap.enabled", on,
					      &(struct store_boot){ .sysroot = h->live ? "/" : h->root,
								    .machine_id = mid, .boot_id = boot },
					      NULL);
		if (r >= 0)
			hints.swaptune_enabled_zswap = r ? FP_YES : FP_NO;
	}
	fingerprint_read(h, &hints, fp);
}

int kcheck_stamp_run(struct store *st, const struct host *h, int64_t run_id, struct st_err *e)
{
	struct kernel_fingerprint fp;
	cJSON *o;
	char *text;
	int r;

	kcheck_now(st, h, &fp);
	o = fingerprint_to_json(&fp);
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	r = text ? store_run_set_kernel_fp(st, run_id, text, e) : err_set(e, -ENOMEM, "out of memory");
	cJSON_free(text);
	cJSON_Delete(o);
	return r;
}

int kcheck_run_fp(const struct store_run *r, struct kernel_fingerprint *fp, struct st_err *e)
{
	struct st_err e1 = {0};
	cJSON *o;
	int rc;

	fingerprint_unknown(fp);
	if (!r->kernel_fp)
		return 0;
	o = cJSON_Parse(r->kernel_fp);
	if (!o)
		return err_set_exit(e, -EBADMSG, ST_EXIT_USAGE,
				    "run %lld: its stored kernel fingerprint is not JSON", (long long)r->id);
	rc = fingerprint_from_json(o, fp, &e1);
	cJSON_Delete(o);
	if (rc < 0)
		return err_set_exit(e, rc, ST_EXIT_USAGE, "run %lld: %s", (long long)r->id, e1.msg);
	return 1;
}

int kcheck_run(const struct store_run *r, const struct kernel_fingerprint *now, struct kcheck *k,
	       struct st_err *e)
{
	int rc;

	memset(k, 0, sizeof(*k));
	k->run_id = r->id;
	snprintf(k->kind, sizeof(k->kind), "%s", store_run_kind(r));
	k->now = *now;
	rc = kcheck_run_fp(r, &k->then, e);
	if (rc < 0)
		return rc;
	k->have_then = rc == 1;
	if (k->have_then)
		k->diff = fingerprint_diff(&k->then, now, k->words, sizeof(k->words));
	return 0;
}

int kcheck_applied(struct store *st, const struct kernel_fingerprint *now, struct kcheck_applied *a,
		   struct st_err *e)
{
	struct store_run run;
	int64_t id;
	int r;

	memset(a, 0, sizeof(*a));
	r = store_runs_applied(st, &a->applied, e);
	if (r <= 0)
		return r;
	id = a->applied.source_run ? a->applied.source_run : a->applied.apply_run;
	r = store_run_get(st, id, &run, e);
	if (r == -ENOENT && a->applied.source_run) {
		/* the source run is gone (a pruned store): the apply itself decided */
		err_reset(e);
		r = store_run_get(st, id = a->applied.apply_run, &run, e);
	}
	if (r < 0)
		return r;
	r = kcheck_run(&run, now, &a->k, e);
	a->k.applied = true;
	store_run_free(&run);
	return r < 0 ? r : 1;
}

static const char *short_fp(const struct kernel_fingerprint *fp, char *buf, size_t len)
{
	snprintf(buf, len, "%s, cgroup %s, %s readahead", fp->release[0] ? fp->release : "unknown kernel",
		 !fp->have_cgroup ? "unknown" : fp->memcg_version ? (fp->memcg_version == 1 ? "v1" : "v2") :
		 cgroup_mode_name(fp->cgroup),
		 fp->readahead == RA_VMA ? "VMA" : fp->readahead == RA_CLUSTER ? "cluster" : "unknown");
	return buf;
}

const char *kcheck_words(const struct kcheck *k, char *buf, size_t len)
{
	char a[200], b[200], how[64];

	if (k->applied)
		snprintf(how, sizeof(how), "swaptune verify (or verify --live)");
	else if (!strcmp(k->kind, "switchback"))
		snprintf(how, sizeof(how), "swaptune verify --live");
	else if (!strcmp(k->kind, "probe"))
		snprintf(how, sizeof(how), "swaptune verify --run %lld", (long long)k->run_id);
	else
		snprintf(how, sizeof(how), "swaptune verify");
	if (!k->have_then)
		snprintf(buf, len, "no kernel fingerprint stored with run %lld (made before swaptune stored one)",
			 (long long)k->run_id);
	else if (!k->diff)
		snprintf(buf, len, "decided on this kernel (%s)", short_fp(&k->now, a, sizeof(a)));
	else
		snprintf(buf, len, "decided on %s; this host runs %s: %s; the verdict may not hold here: "
			 "check it with %s", short_fp(&k->then, a, sizeof(a)),
			 short_fp(&k->now, b, sizeof(b)), k->words, how);
	return buf;
}

cJSON *kcheck_json(const struct kcheck *k)
{
	static const struct { unsigned bit; const char *name; } parts[] = {
		{ FP_DIFF_RELEASE, "release" }, { FP_DIFF_CGROUP, "cgroup" },
		{ FP_DIFF_READAHEAD, "readahead" }, { FP_DIFF_LARGE_FOLIO, "large_folio" },
		{ FP_DIFF_MGLRU, "mglru" },
	};
	cJSON *o = cJSON_CreateObject(), *a;
	char buf[1024];

	cJSON_AddNumberToObject(o, "run", (double)k->run_id);
	if (k->have_then)
		cJSON_AddItemToObject(o, "decided_on", fingerprint_to_json(&k->then));
	else
		cJSON_AddNullToObject(o, "decided_on");
	cJSON_AddItemToObject(o, "now", fingerprint_to_json(&k->now));
	cJSON_AddBoolToObject(o, "mismatch", k->diff != 0);
	a = cJSON_AddArrayToObject(o, "differences");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (k->diff & parts[i].bit)
			cJSON_AddItemToArray(a, cJSON_CreateString(parts[i].name));
	cJSON_AddStringToObject(o, "words", kcheck_words(k, buf, sizeof(buf)));
	return o;
}
