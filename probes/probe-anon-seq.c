/*
 * probe-anon-seq.c - sequential sweeps over the anon working set in page
 * order: the case swap readahead was made for (every prefetched page is used).
 */
#include "swaptune/workload.h"

static bool anon_seq_supported(const struct workload_params *p, char *reason, size_t len)
{
	return workload_check_anon(p, reason, len);
}

static int anon_seq_run(const struct workload_params *p, struct workload_result *r,
			struct st_err *e)
{
	return workload_run_anon(&probe_anon_seq_info, p, r, e);
}

const struct workload_info probe_anon_seq_info = {
	.name = "anon-seq",
	.summary = "sequential sweeps over anonymous pages",
	.pattern = WORKLOAD_PAT_SEQ,
	.supported = anon_seq_supported,
	.run = anon_seq_run,
	.fill_anon = workload_fill_compressible,
};
