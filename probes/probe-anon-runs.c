/*
 * probe-anon-runs.c - runs of R consecutive anonymous pages (default 4), each
 * run starting at a uniformly random page: the spatial locality of records
 * or small arrays spread over a heap. VMA readahead grows its window only
 * while faults stay adjacent, so within a run it ramps up to its cap
 * (1 << page-cluster) and at the run's end it has already fetched neighbours
 * that the next, random, run will not use; the window then halves rather
 * than collapsing. Readahead pays for part of each run and wastes the rest,
 * and the wasted pages sit in the memcg as swap cache: the higher the cap,
 * the more of both. R is fixed rather than drawn (e.g. geometric) so that a
 * result names exactly the locality it measured. The default 4 is the one
 * that gave a graded response on a 2-core VM (zswap lzo, 512 MiB in a
 * 384 MiB memcg): page-cluster 0 fastest, each step up slower and swapping
 * in more; with R = 8 or 16 most readahead hits yet page-cluster 0 still
 * wins; with R = 2 a third of it is wasted.
 */
#include <stdio.h>

#include "swaptune/workload.h"

static const struct workload_param anon_runs_params[] = {
	{ "run_pages", OPT_U64("run-pages", 0, "N", "anon-runs: consecutive pages per run, each run "
			       "from a random start (default 4)", struct workload_params, run_pages, 1,
			       INT64_MAX),
	  WORKLOAD_DEFAULT_RUN_PAGES, NULL, "a whole number from 1 below 2^53" },
	{ NULL },
};

static bool anon_runs_supported(const struct workload_params *p, char *reason, size_t len)
{
	uint64_t r = p->run_pages ? p->run_pages : WORKLOAD_DEFAULT_RUN_PAGES;
	uint64_t n = p->working_set_bytes / workload_page_size();

	if (!workload_check_anon(p, reason, len))
		return false;
	if (r > n) {
		snprintf(reason, len, "run of %llu pages does not fit a working set of %llu pages",
			 (unsigned long long)r, (unsigned long long)n);
		return false;
	}
	return true;
}

static int anon_runs_run(const struct workload_params *p, struct workload_result *r,
			 struct st_err *e)
{
	return workload_run_anon(&probe_anon_runs_info, p, r, e);
}

const struct workload_info probe_anon_runs_info = {
	.name = "anon-runs",
	.summary = "runs of R consecutive anonymous pages from random starts",
	.pattern = WORKLOAD_PAT_RUNS,
	.supported = anon_runs_supported,
	.run = anon_runs_run,
	.fill_anon = workload_fill_compressible,
	.params = anon_runs_params,
};
