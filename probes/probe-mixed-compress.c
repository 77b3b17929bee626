/*
 * probe-mixed-compress.c - the zswap incompressible-page test (seeds/001):
 * three equal regions accessed uniformly at random, two of compressible
 * pages and the last of PRNG bytes that zswap cannot shrink.
 */
#include "swaptune/workload.h"

#define MIXED_REGIONS 3

static bool mixed_compress_supported(const struct workload_params *p, char *reason, size_t len)
{
	return workload_check_anon(p, reason, len);
}

/* Pages [0, n - n/3) compressible, the last n/3 random. */
static void mixed_compress_fill(char *base, uint64_t npages, size_t page_size, uint64_t seed)
{
	uint64_t random_pages = npages / MIXED_REGIONS;

	workload_fill_pages(base, 0, npages - random_pages, page_size, seed,
			    WORKLOAD_FILL_COMPRESSIBLE);
	workload_fill_pages(base, npages - random_pages, random_pages, page_size, seed,
			    WORKLOAD_FILL_RANDOM);
}

static int mixed_compress_run(const struct workload_params *p, struct workload_result *r,
			      struct st_err *e)
{
	return workload_run_anon(&probe_mixed_compress_info, p, r, e);
}

const struct workload_info probe_mixed_compress_info = {
	.name = "mixed-compress",
	.summary = "random pages, two compressible regions and one incompressible",
	.pattern = WORKLOAD_PAT_UNIFORM,
	.supported = mixed_compress_supported,
	.run = mixed_compress_run,
	.fill_anon = mixed_compress_fill,
};
