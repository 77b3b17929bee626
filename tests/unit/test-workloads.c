/*
 * test-workloads.c - the workload table, generators, histogram and every
 * built-in workload at a small size (no memory pressure), plus cmd.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "swaptune/workload.h"

#define MIB (1024ull * 1024)

static char scratch[256];

static int setup_scratch(void **state)
{
	/* file-anon refuses tmpfs; /var/tmp is disk-backed on most hosts */
	const char *dirs[] = { "/var/tmp", "/tmp", "." };

	for (size_t i = 0; i < 3; i++) {
		snprintf(scratch, sizeof(scratch), "%s/test-workloads.XXXXXX", dirs[i]);
		if (mkdtemp(scratch))
			return 0;
	}
	return -1;
}

static int teardown_scratch(void **state)
{
	rmdir(scratch);
	return 0;
}

static void small_params(struct workload_params *p, uint64_t ops)
{
	workload_params_init(p);
	p->working_set_bytes = 8 * MIB;
	p->ops = ops;
	p->seed = 42;
	snprintf(p->scratch_dir, sizeof(p->scratch_dir), "%s", scratch);
}

static uint64_t npages_of(uint64_t bytes)
{
	return bytes / workload_page_size();
}

/* ---- table ----------------------------------------------------------- */

static void test_table(void **state)
{
	const char *want[] = { "anon-seq", "anon-random", "anon-zipf", "anon-stride",
			       "anon-runs", "mixed-compress", "file-anon", "tmpfs-read", "cmd" };

	assert_int_equal(workload_count(), 9);
	for (size_t i = 0; i < 9; i++) {
		const struct workload_info *w = workload_find(want[i]);

		assert_non_null(w);
		assert_string_equal(w->name, want[i]);
		assert_non_null(w->summary);
		assert_non_null(w->supported);
		assert_non_null(w->run);
		assert_ptr_equal(workload_at(i), w);
	}
	assert_null(workload_at(9));
	assert_null(workload_find("anon"));
	assert_null(workload_find(NULL));
}

/* ---- every built-in runs --------------------------------------------- */

static void check_run(const struct workload_info *w, const struct workload_params *p,
		      struct workload_result *r)
{
	struct st_err e = { 0 };
	char reason[256] = "";

	assert_true(w->supported(p, reason, sizeof(reason)));
	assert_int_equal(w->run(p, r, &e), 0);
	assert_int_equal(e.code, 0);
	assert_false(r->failed);
	assert_string_equal(r->workload, w->name);
	assert_false(r->time_limited);
	assert_int_equal(r->ops, p->ops);
	assert_int_equal(r->ops_requested, p->ops);
	assert_true(r->throughput_ops > 0);
	assert_true(r->elapsed_ns > 0);
	assert_true(r->setup_ns > 0);
	assert_int_equal(r->working_set_bytes, p->working_set_bytes);
	assert_true(r->latency_samples > 0);
	assert_true(r->latency_samples <= r->ops);
	assert_true(r->lat_p50_ns > 0);
	assert_true(r->lat_p50_ns <= r->lat_p99_ns);
	assert_true(r->lat_p99_ns <= r->lat_p999_ns);
	assert_true(r->lat_p999_ns <= r->lat_max_ns);
	assert_true(r->latency_gap_min >= 1 && r->latency_gap_min <= r->latency_gap_max);
	assert_true(r->latency_gap_max <= WORKLOAD_SAMPLE_GAP_MAX);
	assert_non_null(strstr(r->latency_sampling, "random 1 in"));
	assert_int_equal(r->hist.samples, r->latency_samples);
	assert_true(r->bytes_touched >= r->ops * sizeof(uint64_t));
	assert_true(r->timer_overhead_ns < 100000);
}

static void test_builtin_runs(void **state)
{
	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_info *w = workload_at(i);
		struct workload_result r, again, other;
		struct workload_params p;
		struct st_err e = { 0 };

		if (w->pattern == WORKLOAD_PAT_NONE)
			continue;
		small_params(&p, 20000);
		check_run(w, &p, &r);
		if (w->pattern == WORKLOAD_PAT_FILE_MIX) {
			assert_int_equal(r.file_bytes, p.working_set_bytes / 2);
			/* 3 anon touches of 8 bytes and one page read per 4 accesses */
			assert_int_equal(r.bytes_touched,
					 15000 * 8 + 5000 * workload_page_size());
		} else if (!strcmp(w->name, "tmpfs-read")) {
			assert_int_equal(r.bytes_touched, 20000 * workload_page_size());
		} else {
			assert_int_equal(r.bytes_touched, 20000 * 8);
		}
		/* same seed, same accesses (and contents): same checksum */
		assert_int_equal(w->run(&p, &again, &e), 0);
		assert_int_equal(again.checksum, r.checksum);
		p.seed = 43;
		assert_int_equal(w->run(&p, &other, &e), 0);
		assert_int_not_equal(other.checksum, r.checksum);
	}
}

static void test_default_ops(void **state)
{
	struct workload_params p;
	struct workload_result r;
	struct st_err e = { 0 };
	uint64_t n;

	small_params(&p, 0);
	p.working_set_bytes = 4 * MIB + 3 * workload_page_size();
	n = npages_of(p.working_set_bytes);
	assert_int_equal(probe_anon_seq_info.run(&p, &r, &e), 0);
	assert_int_equal(r.ops, 2 * n);
	assert_int_equal(probe_anon_stride_info.run(&p, &r, &e), 0);
	assert_int_equal(r.ops, 2 * ((n + 7) / 8));
	p.stride_pages = 16;
	assert_int_equal(workload_ops(&probe_anon_stride_info, &p), 2 * ((n + 15) / 16));
	assert_int_equal(workload_ops(&probe_anon_runs_info, &p), 2 * n);
	assert_int_equal(workload_ops(&probe_file_anon_info, &p),
			 2 * (n + npages_of(p.working_set_bytes / 2)));
	assert_int_equal(workload_ops(&probe_cmd_info, &p), 1);
}

static void test_time_limit(void **state)
{
	struct workload_params p;
	struct workload_result r;
	struct st_err e = { 0 };
	uint64_t t0 = workload_now_ns();

	small_params(&p, 1ull << 40);
	p.max_duration_s = 0.2;
	assert_int_equal(probe_anon_random_info.run(&p, &r, &e), 0);
	assert_false(r.failed);
	assert_true(r.time_limited);
	assert_true(r.ops > 0 && r.ops < r.ops_requested);
	assert_true(r.elapsed_ns >= 200000000ull);
	assert_true(r.elapsed_ns < 1000000000ull);
	assert_true(workload_now_ns() - t0 < 3000000000ull);
}

static void test_run_error(void **state)
{
	struct workload_params p;
	struct workload_result r;
	struct st_err e = { 0 };

	small_params(&p, 10);
	p.working_set_bytes = 100;
	assert_int_equal(probe_anon_random_info.run(&p, &r, &e), -EINVAL);
	assert_true(r.failed);
	assert_non_null(strstr(r.reason, "smaller than a page"));
	assert_string_equal(r.reason, e.msg);
}

/* ---- generators ------------------------------------------------------ */

static void gen_seq(const struct workload_info *w, const struct workload_params *p,
		    uint64_t *out, size_t n)
{
	struct workload_gen g;
	struct st_err e = { 0 };

	assert_int_equal(workload_gen_init(&g, w, p, &e), 0);
	for (size_t i = 0; i < n; i++)
		out[i] = workload_gen_next(&g);
}

static void test_gen_determinism(void **state)
{
	enum { N = 10000 };
	uint64_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	struct workload_params p;

	small_params(&p, 0);
	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_info *w = workload_at(i);
		uint64_t limit = npages_of(p.working_set_bytes);

		if (w->pattern == WORKLOAD_PAT_NONE)
			continue;
		if (w->pattern == WORKLOAD_PAT_FILE_MIX)
			limit += npages_of(p.working_set_bytes / 2);
		p.seed = 7;
		gen_seq(w, &p, a, N);
		gen_seq(w, &p, b, N);
		assert_memory_equal(a, b, N * sizeof(*a));
		for (size_t k = 0; k < N; k++)
			assert_true(a[k] < limit);
		p.seed = 8;
		gen_seq(w, &p, b, N);
		if (w->pattern == WORKLOAD_PAT_SEQ || w->pattern == WORKLOAD_PAT_STRIDE)
			assert_memory_equal(a, b, N * sizeof(*a));
		else
			assert_memory_not_equal(a, b, N * sizeof(*a));
	}
	free(a);
	free(b);
}

static void test_gen_patterns(void **state)
{
	uint64_t v[3000], n;
	struct workload_params p;
	struct st_err e = { 0 };
	struct workload_gen g;

	small_params(&p, 0);
	p.working_set_bytes = 1000 * workload_page_size();
	n = 1000;
	gen_seq(&probe_anon_seq_info, &p, v, 3000);
	for (uint64_t k = 0; k < 3000; k++)
		assert_int_equal(v[k], k % n);
	gen_seq(&probe_anon_stride_info, &p, v, 300);
	for (uint64_t k = 0; k < 300; k++)	/* 125 pages a pass: 0, 8, ..., 992 */
		assert_int_equal(v[k], (k % 125) * 8);
	p.stride_pages = 3;
	gen_seq(&probe_anon_stride_info, &p, v, 1000);
	for (uint64_t k = 0; k < 1000; k++)	/* 334 pages a pass: 0, 3, ..., 999 */
		assert_int_equal(v[k], (k % 334) * 3);
	p.stride_pages = 1000;
	assert_int_equal(workload_gen_init(&g, &probe_anon_stride_info, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "does not fit"));

	/* file-mix: exactly every 4th access is a file page */
	gen_seq(&probe_file_anon_info, &p, v, 3000);
	for (uint64_t k = 0; k < 3000; k++)
		assert_int_equal(v[k] >= n, (k + 1) % WORKLOAD_FILE_EVERY == 0);
}

/*
 * anon-runs: R consecutive pages from a start in [0, n - R], starts uniform
 * (chi-square over 20 bins), a different seed a different sequence.
 */
static void test_gen_runs(void **state)
{
	enum { RUNS = 20000, BINS = 20 };
	const uint64_t n = 1000;
	uint64_t *v = malloc(RUNS * 8 * sizeof(*v)), *w = malloc(RUNS * 8 * sizeof(*v));
	uint64_t bins[BINS] = { 0 }, starts_below = 0;
	struct workload_params p;
	struct workload_gen g;
	struct st_err e = { 0 };
	double chi2 = 0, expect;

	small_params(&p, 0);
	p.working_set_bytes = n * workload_page_size();
	gen_seq(&probe_anon_runs_info, &p, v, RUNS * WORKLOAD_DEFAULT_RUN_PAGES);
	for (uint64_t k = 0; k < RUNS; k++) {
		uint64_t s0 = v[k * WORKLOAD_DEFAULT_RUN_PAGES];

		assert_true(s0 <= n - WORKLOAD_DEFAULT_RUN_PAGES);
		for (uint64_t j = 1; j < WORKLOAD_DEFAULT_RUN_PAGES; j++)
			assert_int_equal(v[k * WORKLOAD_DEFAULT_RUN_PAGES + j], s0 + j);
		bins[s0 * BINS / (n - WORKLOAD_DEFAULT_RUN_PAGES + 1)]++;
		starts_below += s0 < 10;
	}
	expect = (double)RUNS / BINS;
	for (int b = 0; b < BINS; b++)
		chi2 += (bins[b] - expect) * (bins[b] - expect) / expect;
	assert_true(chi2 < 43.8);	/* 19 degrees of freedom, p = 0.001 */
	assert_true(starts_below > 0);	/* the low edge is reachable */
	/* consecutive runs are not adjacent: readahead's window must see a jump */
	uint64_t adjacent = 0;

	for (uint64_t k = 1; k < RUNS; k++)
		adjacent += v[k * WORKLOAD_DEFAULT_RUN_PAGES] == v[k * WORKLOAD_DEFAULT_RUN_PAGES - 1] + 1;
	assert_true(adjacent < 20);	/* about RUNS / n expected */

	/* R = 7 and R = n (one run over everything, again and again) */
	p.run_pages = 7;
	gen_seq(&probe_anon_runs_info, &p, v, 7 * 1000);
	for (uint64_t k = 0; k < 7 * 1000; k++)
		if (k % 7)
			assert_int_equal(v[k], v[k - 1] + 1);
		else
			assert_true(v[k] <= n - 7);
	p.run_pages = n;
	gen_seq(&probe_anon_runs_info, &p, v, 3 * n);
	for (uint64_t k = 0; k < 3 * n; k++)
		assert_int_equal(v[k], k % n);
	p.run_pages = n + 1;
	assert_int_equal(workload_gen_init(&g, &probe_anon_runs_info, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "run of 1001 pages does not fit"));

	/* deterministic by seed; another seed, other starts */
	p.run_pages = 0;
	p.seed = 99;
	gen_seq(&probe_anon_runs_info, &p, v, RUNS * 4);
	gen_seq(&probe_anon_runs_info, &p, w, RUNS * 4);
	assert_memory_equal(v, w, RUNS * 4 * sizeof(*v));
	p.seed = 100;
	gen_seq(&probe_anon_runs_info, &p, w, RUNS * 4);
	assert_memory_not_equal(v, w, RUNS * 4 * sizeof(*v));
	free(v);
	free(w);
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Share of accesses that went to the top 1 % most accessed pages. */
static double top1pct_share(const struct workload_info *w, struct workload_params *p,
			    uint64_t n, uint64_t samples)
{
	uint64_t *count = calloc(n, sizeof(*count)), top = 0;
	struct workload_gen g;
	struct st_err e = { 0 };

	p->working_set_bytes = n * workload_page_size();
	assert_int_equal(workload_gen_init(&g, w, p, &e), 0);
	for (uint64_t i = 0; i < samples; i++)
		count[workload_gen_next(&g)]++;
	qsort(count, n, sizeof(*count), cmp_desc);
	for (uint64_t i = 0; i < n / 100; i++)
		top += count[i];
	free(count);
	return (double)top / (double)samples;
}

static void test_zipf_skew(void **state)
{
	const uint64_t n = 10000, samples = 400000;
	struct workload_params p;
	double want = 0, norm = 0, share;

	small_params(&p, 0);
	p.zipf_theta = 0.99;
	for (uint64_t k = 1; k <= n; k++) {
		norm += pow((double)k, -0.99);
		if (k <= n / 100)
			want += pow((double)k, -0.99);
	}
	want /= norm;	/* ~0.52 */
	share = top1pct_share(&probe_anon_zipf_info, &p, n, samples);
	assert_true(share > 0.45);
	assert_true(fabs(share - want) < 0.02);
	/* uniform: about 1 % (the top 1 % of counts is a bit above the mean) */
	share = top1pct_share(&probe_anon_random_info, &p, n, samples);
	assert_true(share < 0.02);
	/* a steeper theta is more skewed */
	p.zipf_theta = 1.2;
	assert_true(top1pct_share(&probe_anon_zipf_info, &p, n, samples) > want + 0.1);
}

static void test_zipf_rank1(void **state)
{
	struct workload_zipf z;
	struct workload_rng r;
	uint64_t ones = 0, samples = 200000;
	double norm = 0;

	assert_int_equal(workload_zipf_init(&z, 1000, 1.0), 0);	/* theta = 1 exactly */
	for (int k = 1; k <= 1000; k++)
		norm += 1.0 / k;
	workload_rng_seed(&r, 3);
	for (uint64_t i = 0; i < samples; i++) {
		uint64_t k = workload_zipf_next(&z, &r);

		assert_true(k >= 1 && k <= 1000);
		ones += k == 1;
	}
	assert_true(fabs((double)ones / (double)samples - 1 / norm) < 0.01);
	assert_int_equal(workload_zipf_init(&z, 1000, 0), -EINVAL);
	assert_int_equal(workload_zipf_init(&z, 0, 1), -EINVAL);
}

static void test_perm_bijective(void **state)
{
	const uint64_t sizes[] = { 1, 2, 3, 5, 1000, 4096, 4097 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s], fixed = 0;
		char *seen = calloc(n, 1);
		struct workload_perm pm;

		workload_perm_init(&pm, n, 99);
		for (uint64_t x = 0; x < n; x++) {
			uint64_t y = workload_perm_apply(&pm, x);

			assert_true(y < n);
			assert_false(seen[y]);
			seen[y] = 1;
			fixed += y == x;
		}
		if (n >= 1000)
			assert_true(fixed < n / 100);	/* it does scatter */
		free(seen);
	}
}

static void test_rng(void **state)
{
	struct workload_rng a, b;
	uint64_t below[10] = { 0 };

	workload_rng_seed(&a, 0);
	workload_rng_seed(&b, 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(workload_rng_next(&a), workload_rng_next(&b));
	for (int i = 0; i < 100000; i++) {
		double d = workload_rng_double(&a);

		assert_true(d >= 0 && d < 1);
		below[workload_rng_below(&a, 10)]++;
	}
	for (int i = 0; i < 10; i++)
		assert_true(below[i] > 9500 && below[i] < 10500);
}

/* ---- page fill ------------------------------------------------------- */

static void test_fill(void **state)
{
	size_t ps = workload_page_size();
	char *a = malloc(ps), *b = malloc(ps), *c = malloc(ps);
	size_t zero_words = 0, same_words = 0;

	workload_fill_page(a, ps, 5, 1, WORKLOAD_FILL_COMPRESSIBLE);
	workload_fill_page(b, ps, 5, 1, WORKLOAD_FILL_COMPRESSIBLE);
	assert_memory_equal(a, b, ps);
	workload_fill_page(b, ps, 6, 1, WORKLOAD_FILL_COMPRESSIBLE);
	workload_fill_page(c, ps, 5, 2, WORKLOAD_FILL_COMPRESSIBLE);
	for (size_t i = 0; i < ps / 8; i++) {
		zero_words += ((uint64_t *)a)[i] == 0;
		same_words += ((uint64_t *)a)[i] == ((uint64_t *)b)[i];
	}
	assert_int_equal(zero_words, 0);
	/* 5 of 8 words are the shared pattern, 3 are page-specific */
	assert_int_equal(same_words, ps / 8 * 5 / 8);
	assert_memory_not_equal(a, c, ps);
	/* the word an access reads is never zero */
	for (uint64_t pg = 0; pg < 64; pg++) {
		workload_fill_page(a, ps, pg, 9, WORKLOAD_FILL_COMPRESSIBLE);
		assert_int_not_equal(*(uint64_t *)(a + workload_word_offset(pg, (unsigned)__builtin_ctzll(ps))), 0);
	}
	workload_fill_page(a, ps, 5, 1, WORKLOAD_FILL_RANDOM);
	same_words = 0;
	for (size_t i = 0; i < ps / 8; i++) {
		assert_int_not_equal(((uint64_t *)a)[i], 0);
		for (size_t j = 0; j < i; j++)
			same_words += ((uint64_t *)a)[i] == ((uint64_t *)a)[j];
	}
	assert_int_equal(same_words, 0);
	free(a);
	free(b);
	free(c);
}

/* ---- histogram ------------------------------------------------------- */

static void test_hist_buckets(void **state)
{
	for (uint64_t v = 0; v < 32; v++) {
		assert_int_equal(workload_hist_bucket(v), v);
		assert_int_equal(workload_hist_bucket_width(v), 1);
	}
	assert_int_equal(workload_hist_bucket(32), 32);
	assert_int_equal(workload_hist_bucket_low(32), 32);
	assert_int_equal(workload_hist_bucket_width(32), 2);
	assert_int_equal(workload_hist_bucket(~0ull), WORKLOAD_HIST_BUCKETS - 1);
	for (uint64_t v = 1; v < (1ull << 62); v = v * 3 + 1) {
		unsigned b = workload_hist_bucket(v);
		uint64_t lo = workload_hist_bucket_low(b), w = workload_hist_bucket_width(b);

		assert_true(b < WORKLOAD_HIST_BUCKETS);
		assert_true(lo <= v && v - lo < w);
		assert_true(w == 1 || (double)w / (double)lo <= 1.0 / 16 + 1e-12);
	}
}

static void test_hist_percentiles(void **state)
{
	struct workload_hist h, h2, m;

	workload_hist_reset(&h);
	assert_int_equal(workload_hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100; v++)
		workload_hist_record(&h, v, 1);
	assert_int_equal(h.total, 100);
	assert_int_equal(h.samples, 100);
	assert_int_equal(workload_hist_quantile(&h, 0.0), 1);
	assert_int_equal(workload_hist_quantile(&h, 0.10), 10);	/* exact below 32 */
	assert_int_equal(workload_hist_quantile(&h, 0.50), 50);	/* bucket [50, 51] */
	assert_int_equal(workload_hist_quantile(&h, 0.99), 97);	/* bucket [96, 99], midpoint */
	assert_int_equal(workload_hist_quantile(&h, 0.999), 100);	/* clamped to max */
	assert_int_equal(workload_hist_quantile(&h, 1.0), 100);
	assert_true(fabs(workload_hist_mean(&h) - 50.5) < 1e-9);

	/* weights: 99 fast samples stand for 99 accesses each, one slow for 1 */
	workload_hist_reset(&h2);
	workload_hist_record(&h2, 10, 99);
	workload_hist_record(&h2, 1000000, 1);
	assert_int_equal(h2.total, 100);
	assert_int_equal(h2.samples, 2);
	assert_int_equal(workload_hist_quantile(&h2, 0.5), 10);
	assert_int_equal(workload_hist_quantile(&h2, 0.99), 10);
	/* the midpoint of the bucket [983040, 1015807] */
	assert_int_equal(workload_hist_bucket_low(workload_hist_bucket(1000000)), 983040);
	assert_int_equal(workload_hist_quantile(&h2, 0.999), 983040 + 32767 / 2);
	assert_true(fabs(workload_hist_mean(&h2) - (990.0 + 1000000) / 100) < 1e-9);

	/* a large value lands within 1/32 of itself */
	workload_hist_reset(&m);
	workload_hist_record(&m, 123456789, 1);
	workload_hist_record(&m, 123456789 * 2, 1);
	uint64_t q = workload_hist_quantile(&m, 0.5);
	assert_true(fabs((double)q / 123456789.0 - 1) <= 1.0 / 32);

	/* merge = recording both */
	workload_hist_reset(&m);
	workload_hist_merge(&m, &h);
	workload_hist_merge(&m, &h2);
	assert_int_equal(m.total, 200);
	assert_int_equal(m.samples, 102);
	assert_int_equal(m.min_ns, 1);
	assert_int_equal(m.max_ns, 1000000);
	assert_int_equal(workload_hist_quantile(&m, 0.5), 10);	/* 10 + 99 tens = 109th */
	assert_int_equal(workload_hist_quantile(&m, 0.75), 50);	/* the 150th = 50 */
}

/* ---- cmd ------------------------------------------------------------- */

static int run_cmd(struct workload_params *p, char *const *argv, const char *re,
		   struct workload_result *r, struct st_err *e)
{
	workload_params_init(p);
	p->argv = argv;
	if (re)
		snprintf(p->metric_regex, sizeof(p->metric_regex), "%s", re);
	err_reset(e);
	return probe_cmd_info.run(p, r, e);
}

static void test_cmd_true_false(void **state)
{
	char *const t[] = { "/bin/true", NULL }, *const f[] = { "false", NULL };
	struct workload_params p;
	struct workload_result r;
	struct st_err e;

	assert_int_equal(run_cmd(&p, t, NULL, &r, &e), 0);
	assert_false(r.failed);
	assert_int_equal(r.exit_status, 0);
	assert_int_equal(r.term_signal, 0);
	assert_int_equal(r.ops, 1);
	assert_true(r.wall_ns > 0 && r.wall_ns < 2000000000ull);
	assert_int_equal(r.elapsed_ns, r.wall_ns);
	assert_true(r.throughput_ops > 0);
	assert_false(r.metric_matched);
	assert_string_equal(r.workload, "cmd");

	assert_int_equal(run_cmd(&p, f, NULL, &r, &e), 0);
	assert_true(r.failed);
	assert_int_equal(r.exit_status, 1);
	assert_string_equal(r.reason, "command exited with status 1");
}

static void test_cmd_metric(void **state)
{
	char *const score[] = { "sh", "-c", "echo score: 42", NULL };
	char *const last[] = { "sh", "-c", "echo score: 1; echo x; echo score: 2.5", NULL };
	char *const none[] = { "sh", "-c", "echo hello", NULL };
	struct workload_params p;
	struct workload_result r;
	struct st_err e;

	assert_int_equal(run_cmd(&p, score, "score: ([0-9]+)", &r, &e), 0);
	assert_false(r.failed);
	assert_true(r.metric_matched);
	assert_true(r.metric_value == 42.0);
	assert_int_equal(r.exit_status, 0);

	assert_int_equal(run_cmd(&p, last, "^score: ([0-9.]+)$", &r, &e), 0);
	assert_true(r.metric_matched);
	assert_true(r.metric_value == 2.5);

	assert_int_equal(run_cmd(&p, none, "score: ([0-9]+)", &r, &e), 0);
	assert_true(r.failed);
	assert_false(r.metric_matched);
	assert_non_null(strstr(r.reason, "matched no number"));
}

static void test_cmd_missing(void **state)
{
	char *const argv[] = { "swaptune-no-such-command", NULL };
	char *const path[] = { "/nonexistent/bin/x", NULL };
	struct workload_params p;
	struct workload_result r;
	struct st_err e;
	char reason[256];

	assert_int_equal(run_cmd(&p, argv, NULL, &r, &e), -ENOENT);
	assert_true(r.failed);
	assert_string_equal(e.msg, "cannot execute swaptune-no-such-command: No such file or directory");
	assert_string_equal(r.reason, e.msg);
	assert_false(probe_cmd_info.supported(&p, reason, sizeof(reason)));
	assert_string_equal(reason, "command swaptune-no-such-command not found in PATH");
	p.argv = path;
	assert_false(probe_cmd_info.supported(&p, reason, sizeof(reason)));
	assert_string_equal(reason, "command /nonexistent/bin/x is not executable");
}

static void test_cmd_signal_stderr_timeout(void **state)
{
	char *const kill9[] = { "sh", "-c", "kill -9 $$", NULL };
	char *const oops[] = { "sh", "-c", "echo first >&2; echo oops, disk full >&2; exit 3", NULL };
	char *const slow[] = { "sh", "-c", "sleep 5", NULL };
	struct workload_params p;
	struct workload_result r;
	struct st_err e;

	assert_int_equal(run_cmd(&p, kill9, NULL, &r, &e), 0);
	assert_true(r.failed);
	assert_int_equal(r.term_signal, SIGKILL);
	assert_int_equal(r.exit_status, -1);
	assert_non_null(strstr(r.reason, "killed by signal 9"));

	assert_int_equal(run_cmd(&p, oops, NULL, &r, &e), 0);
	assert_int_equal(r.exit_status, 3);
	assert_string_equal(r.reason, "command exited with status 3: oops, disk full");

	workload_params_init(&p);
	p.argv = slow;
	p.max_duration_s = 0.2;
	assert_int_equal(probe_cmd_info.run(&p, &r, &e), 0);
	assert_true(r.timed_out);
	assert_true(r.failed);
	assert_int_equal(r.term_signal, SIGKILL);
	assert_string_equal(r.reason, "command timed out after 0.2 s");
	assert_true(r.wall_ns >= 200000000ull && r.wall_ns < 2000000000ull);
}

/* What it leaves running in its process group is killed when it exits. */
static void test_cmd_leftovers(void **state)
{
	char *const bg[] = { "sh", "-c", "sleep 30 & echo pid: $!", NULL };
	struct workload_params p;
	struct workload_result r;
	struct st_err e;
	char path[64], stat[256] = "";
	bool gone = false;

	assert_int_equal(run_cmd(&p, bg, "pid: ([0-9]+)", &r, &e), 0);
	assert_false(r.failed);
	assert_true(r.metric_matched);
	assert_true(r.wall_ns < 1000000000ull);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)r.metric_value);
	for (int i = 0; i < 100 && !gone; i++) {	/* dead once reaped or a zombie */
		FILE *f = fopen(path, "r");

		gone = !f || !fgets(stat, sizeof(stat), f) || strstr(stat, ") Z ");
		if (f)
			fclose(f);
		if (!gone)
			usleep(10000);
	}
	assert_true(gone);
}

static void test_cmd_run_as(void **state)
{
	char *const id[] = { "sh", "-c", "echo uid=$(id -u) gid=$(id -g) groups=$(id -G)", NULL };
	struct workload_params p;
	struct workload_result r;
	struct st_err e;

	if (geteuid() != 0)
		skip();
	workload_params_init(&p);
	p.argv = id;
	p.run_as_uid = 65534;
	p.run_as_gid = 65534;
	snprintf(p.metric_regex, sizeof(p.metric_regex), "uid=([0-9]+)");
	assert_int_equal(probe_cmd_info.run(&p, &r, &e), 0);
	assert_false(r.failed);
	assert_true(r.metric_value == 65534);
	snprintf(p.metric_regex, sizeof(p.metric_regex), "groups=([0-9 ]+)$");
	assert_int_equal(probe_cmd_info.run(&p, &r, &e), 0);
	assert_true(r.metric_matched);	/* no root group left: just "65534" */
	assert_true(r.metric_value == 65534);
}

/* ---- supported() reasons --------------------------------------------- */

static void expect_unsupported(const struct workload_info *w, const struct workload_params *p,
			       const char *want)
{
	char reason[512] = "";

	assert_false(w->supported(p, reason, sizeof(reason)));
	if (!strstr(reason, want))
		fail_msg("%s: reason '%s' lacks '%s'", w->name, reason, want);
}

static void test_supported_reasons(void **state)
{
	char *const sh[] = { "sh", NULL }, *const empty[] = { "", NULL };
	struct workload_params p;
	struct statfs sfs;
	char reason[512];

	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_info *w = workload_at(i);

		small_params(&p, 0);
		p.argv = sh;
		assert_true(w->supported(&p, reason, sizeof(reason)));
		if (w->pattern == WORKLOAD_PAT_NONE)
			continue;
		p.working_set_bytes = 10;
		expect_unsupported(w, &p, "working set of 10 bytes is smaller than a page");
	}
	small_params(&p, 0);
	p.stride_pages = npages_of(p.working_set_bytes);
	expect_unsupported(&probe_anon_stride_info, &p, "stride of 2048 pages does not fit");
	small_params(&p, 0);
	p.run_pages = npages_of(p.working_set_bytes);
	assert_true(probe_anon_runs_info.supported(&p, reason, sizeof(reason)));
	p.run_pages++;
	expect_unsupported(&probe_anon_runs_info, &p, "run of 2049 pages does not fit a working set of 2048 pages");
	small_params(&p, 0);
	p.zipf_theta = -1;
	expect_unsupported(&probe_anon_zipf_info, &p, "zipf theta -1 is outside (0, 100]");

	small_params(&p, 0);
	p.scratch_dir[0] = '\0';
	expect_unsupported(&probe_file_anon_info, &p, "needs a scratch directory");
	snprintf(p.scratch_dir, sizeof(p.scratch_dir), "/nonexistent-swaptune");
	expect_unsupported(&probe_file_anon_info, &p, "No such file or directory");
	snprintf(p.scratch_dir, sizeof(p.scratch_dir), "/etc/passwd");
	expect_unsupported(&probe_file_anon_info, &p, "is not a directory");
	snprintf(p.scratch_dir, sizeof(p.scratch_dir), "%s", scratch);
	p.file_bytes = 1ull << 60;
	expect_unsupported(&probe_file_anon_info, &p, "MiB free, the file needs 1099511627776 MiB");
	p.file_bytes = 0;
	if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC) {
		snprintf(p.scratch_dir, sizeof(p.scratch_dir), "/dev/shm");
		expect_unsupported(&probe_file_anon_info, &p, "is on tmpfs");
	}

	workload_params_init(&p);
	expect_unsupported(&probe_cmd_info, &p, "needs a command to run");
	p.argv = empty;
	expect_unsupported(&probe_cmd_info, &p, "needs a command to run");
	p.argv = sh;
	snprintf(p.metric_regex, sizeof(p.metric_regex), "score: ([0-9]+");
	expect_unsupported(&probe_cmd_info, &p, "metric_regex 'score: ([0-9]+' is invalid");
	snprintf(p.metric_regex, sizeof(p.metric_regex), "score: [0-9]+");
	expect_unsupported(&probe_cmd_info, &p, "has no capture group");
	if (geteuid() != 0) {
		p.metric_regex[0] = '\0';
		p.run_as_uid = geteuid() + 1;
		expect_unsupported(&probe_cmd_info, &p, "needs root");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_builtin_runs),
		cmocka_unit_test(test_default_ops),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_run_error),
		cmocka_unit_test(test_gen_determinism),
		cmocka_unit_test(test_gen_patterns),
		cmocka_unit_test(test_gen_runs),
		cmocka_unit_test(test_zipf_skew),
		cmocka_unit_test(test_zipf_rank1),
		cmocka_unit_test(test_perm_bijective),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_cmd_true_false),
		cmocka_unit_test(test_cmd_metric),
		cmocka_unit_test(test_cmd_missing),
		cmocka_unit_test(test_cmd_signal_stderr_timeout),
		cmocka_unit_test(test_cmd_leftovers),
		cmocka_unit_test(test_cmd_run_as),
		cmocka_unit_test(test_supported_reasons),
	};

	return cmocka_run_group_tests(tests, setup_scratch, teardown_scratch);
}
