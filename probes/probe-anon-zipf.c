/*
 * probe-anon-zipf.c - Zipf(theta)-distributed anonymous pages, hot pages
 * scattered by a seeded permutation: a skewed heap, where a small hot set
 * stays resident and the cold tail is what swaps.
 */
#include <stdio.h>

#include "swaptune/workload.h"

static const struct workload_param anon_zipf_params[] = {
	{ "zipf_theta", OPT_REAL("zipf-theta", "X", "anon-zipf exponent (default 0.99)",
				 struct workload_params, zipf_theta, 1e-9, 100),
	  WORKLOAD_DEFAULT_ZIPF_THETA, NULL, "in (0, 100]" },
	{ NULL },
};

static bool anon_zipf_supported(const struct workload_params *p, char *reason, size_t len)
{
	double theta = workload_param_value(&anon_zipf_params[0], p);

	if (!(theta > 0) || theta > 100) {
		snprintf(reason, len, "zipf theta %g is outside (0, 100]", theta);
		return false;
	}
	return workload_check_anon(p, reason, len);
}

static int anon_zipf_run(const struct workload_params *p, struct workload_result *r,
			 struct st_err *e)
{
	return workload_run_anon(&probe_anon_zipf_info, p, r, e);
}

const struct workload_info probe_anon_zipf_info = {
	.name = "anon-zipf",
	.summary = "zipf-distributed anonymous pages, hot pages scattered",
	.pattern = WORKLOAD_PAT_ZIPF,
	.supported = anon_zipf_supported,
	.run = anon_zipf_run,
	.fill_anon = workload_fill_compressible,
	.params = anon_zipf_params,
};
