/*
 * probe-anon-stride.c - every k-th anonymous page (default 8), pass after
 * pass over the same pages: readahead fetches the k-1 neighbours in between,
 * which are never used, so it only costs (decompression, residency).
 */
#include <stdio.h>

#include "swaptune/workload.h"

static const struct workload_param anon_stride_params[] = {
	{ "stride_pages", OPT_U64("stride", 0, "N", "anon-stride step in pages (default 8)",
				  struct workload_params, stride_pages, 1, INT64_MAX),
	  WORKLOAD_DEFAULT_STRIDE_PAGES, NULL, "a whole number from 1 below 2^53" },
	{ NULL },
};

static bool anon_stride_supported(const struct workload_params *p, char *reason, size_t len)
{
	uint64_t k = p->stride_pages ? p->stride_pages : WORKLOAD_DEFAULT_STRIDE_PAGES;
	uint64_t n = p->working_set_bytes / workload_page_size();

	if (!workload_check_anon(p, reason, len))
		return false;
	if (k >= n) {
		snprintf(reason, len, "stride of %llu pages does not fit a working set of %llu pages",
			 (unsigned long long)k, (unsigned long long)n);
		return false;
	}
	return true;
}

static int anon_stride_run(const struct workload_params *p, struct workload_result *r,
			   struct st_err *e)
{
	return workload_run_anon(&probe_anon_stride_info, p, r, e);
}

const struct workload_info probe_anon_stride_info = {
	.name = "anon-stride",
	.summary = "every k-th anonymous page, neighbours never used",
	.pattern = WORKLOAD_PAT_STRIDE,
	.supported = anon_stride_supported,
	.run = anon_stride_run,
	.fill_anon = workload_fill_compressible,
	.params = anon_stride_params,
};
