/*
 * report-kernel.c - the report section on the kernel a run ran on: its
 * stored fingerprint, in facts (report.h). A verdict is evidence for that
 * kernel; a ticket says which one.
 */
#include <stdio.h>
#include <string.h>

#include "swaptune/kernel-check.h"
#include "swaptune/report.h"

static const char *tri_words(int t, const char *yes, const char *no)
{
	return t == FP_YES ? yes : t == FP_NO ? no : "unknown";
}

static void fp_facts(struct report_section *s, const struct kernel_fingerprint *fp)
{
	char sizes[FP_MTHP_MAX * 24] = "";
	size_t n = 0;

	report_fact_opt(s, "release", fp->release);
	report_fact(s, "cgroup", "%s%s", !fp->have_cgroup ? "unknown" : cgroup_mode_name(fp->cgroup),
		    fp->memcg_version == 1 ? ", memory controller v1" :
		    fp->memcg_version == 2 ? ", memory controller v2" : "");
	report_fact(s, "readahead", "%s: %s", fingerprint_readahead_name(fp->readahead), fp->readahead_why);
	report_fact(s, "zswap enabled since boot", "%s (%s)", fingerprint_tri_name(fp->zswap_ever),
		    fp->zswap_ever_why);
	report_fact(s, "large-folio swap-in", "%s (%s)",
		    tri_words(fp->large_folio_swapin, "possible", "no"), fp->large_folio_swapin_why);
	for (int i = 0; i < fp->n_mthp && n < sizeof(sizes); i++) {
		int w = snprintf(sizes + n, sizeof(sizes) - n, "%s%ukB %s", n ? ", " : "",
				 fp->mthp[i].size_kb, fp->mthp[i].enabled);

		n += w > 0 ? (size_t)w : 0;
	}
	report_fact(s, "THP / mTHP", "%s; %s", fp->thp_enabled[0] ? fp->thp_enabled : "unknown",
		    fp->n_mthp ? sizes : "no per-size settings");
	report_fact(s, "MGLRU", "%s%s%s%s", tri_words(fp->mglru, "on", "off"),
		    fp->mglru_value[0] ? " (" : "", fp->mglru_value, fp->mglru_value[0] ? ")" : "");
	report_fact(s, "zswap shrinker", "%s", tri_words(fp->zswap_shrinker, "on", "off"));
	report_fact(s, "memory.zswap.writeback", "%s", tri_words(fp->zswap_writeback, "present", "absent"));
}

/* The run's fingerprint: 1 read, 0 none stored, -1 unreadable (the fact says why). */
static int run_fp(struct report_section *s, const char *key, const struct store_run *ri,
		  struct kernel_fingerprint *fp)
{
	struct st_err e = {0};
	int r = kcheck_run_fp(ri, fp, &e);

	if (r < 0)
		report_fact(s, key, "n/a: %s", e.msg);
	else if (r == 0)
		report_fact(s, key, "none stored (run %lld was made before swaptune stored one)",
			    (long long)ri->id);
	return r < 0 ? -1 : r;
}

void report_kernel_facts(struct report *rep, const struct store_run *ri)
{
	struct report_section *s = report_add(rep, REPORT_FACTS, "kernel", "Kernel it ran on");
	struct kernel_fingerprint fp;

	if (run_fp(s, "fingerprint", ri, &fp) == 1)
		fp_facts(s, &fp);
}

void report_kernel_compare(struct report *rep, const struct store_run *before,
			   const struct store_run *after)
{
	struct report_section *s = report_add(rep, REPORT_FACTS, "kernels", "Kernels they ran on");
	struct kernel_fingerprint a, b;
	char words[512], sa[400], sb[400];
	int ra = run_fp(s, "before", before, &a), rb = run_fp(s, "after", after, &b);

	if (ra == 1)
		report_fact(s, "before", "%s", fingerprint_summary(&a, sa, sizeof(sa)));
	if (rb == 1)
		report_fact(s, "after", "%s", fingerprint_summary(&b, sb, sizeof(sb)));
	if (ra == 1 && rb == 1) {
		if (fingerprint_diff(&a, &b, words, sizeof(words)))
			report_fact(s, "differences", "%s: the two ran on kernels that can answer differently",
				    words);
		else
			report_fact(s, "differences", "none that can change advice");
	}
}
