/*
 * probe-anon-random.c - uniformly random anonymous pages: readahead's
 * neighbours are almost never the next page wanted.
 */
#include "swaptune/workload.h"

static bool anon_random_supported(const struct workload_params *p, char *reason, size_t len)
{
	return workload_check_anon(p, reason, len);
}

static int anon_random_run(const struct workload_params *p, struct workload_result *r,
			   struct st_err *e)
{
	return workload_run_anon(&probe_anon_random_info, p, r, e);
}

const struct workload_info probe_anon_random_info = {
	.name = "anon-random",
	.summary = "uniformly random anonymous pages",
	.pattern = WORKLOAD_PAT_UNIFORM,
	.supported = anon_random_supported,
	.run = anon_random_run,
	.fill_anon = workload_fill_compressible,
};
