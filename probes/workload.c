/*
 * workload.c - the workload table and what the workloads share: the PRNG,
 * page fill, the page index generators (Zipf sampler, permutation), the
 * latency histogram and the sampled measured-phase loop.
 * The contract is in include/swaptune/workload.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/workload.h"

static const struct workload_info *const workloads[] = {
	&probe_anon_seq_info,
	&probe_anon_random_info,
	&probe_anon_zipf_info,
	&probe_anon_stride_info,
	&probe_anon_runs_info,
	&probe_mixed_compress_info,
	&probe_file_anon_info,
	&probe_tmpfs_read_info,
	&probe_cmd_info,
};

const struct workload_info *workload_find(const char *name)
{
	for (size_t i = 0; name && i < workload_count(); i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

size_t workload_count(void)
{
	return sizeof(workloads) / sizeof(workloads[0]);
}

const struct workload_info *workload_at(size_t i)
{
	return i < workload_count() ? workloads[i] : NULL;
}

void workload_params_init(struct workload_params *p)
{
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->run_as_uid = (uid_t)-1;
	p->run_as_gid = (gid_t)-1;
}

/* ---- the workloads' own parameters ----------------------------------- */

bool workload_param_is_real(const struct workload_param *q)
{
	return q->opt.parse == opt_parse_real;
}

double workload_param_get(const struct workload_param *q, const struct workload_params *p)
{
	const char *f = (const char *)p + q->opt.off;

	if (workload_param_is_real(q))
		return *(const double *)(const void *)f;
	return (double)*(const uint64_t *)(const void *)f;
}

double workload_param_value(const struct workload_param *q, const struct workload_params *p)
{
	double v = workload_param_get(q, p);

	if (v != 0)
		return v;
	return q->dflt_of ? q->dflt_of(p) : q->dflt;
}

void workload_param_set(const struct workload_param *q, struct workload_params *p, double v)
{
	char *f = (char *)p + q->opt.off;

	if (workload_param_is_real(q))
		*(double *)(void *)f = v;
	else
		*(uint64_t *)(void *)f = (uint64_t)v;
}

/* Whether q's key came earlier in the workload table (a parameter two workloads share). */
static bool param_seen(const struct workload_param *q)
{
	for (size_t i = 0; i < workload_count(); i++)
		for (const struct workload_param *r = workloads[i]->params; r && r->key; r++) {
			if (r == q)
				return false;
			if (!strcmp(r->key, q->key))
				return true;
		}
	return false;
}

const struct workload_param *workload_param_at(size_t n)
{
	for (size_t i = 0; i < workload_count(); i++)
		for (const struct workload_param *q = workloads[i]->params; q && q->key; q++)
			if (!param_seen(q) && n-- == 0)
				return q;
	return NULL;
}

const struct workload_param *workload_param_find(const char *key)
{
	const struct workload_param *q;

	for (size_t i = 0; (q = workload_param_at(i)); i++)
		if (!strcmp(q->key, key))
			return q;
	return NULL;
}

struct opt_spec workload_param_opts[WORKLOAD_PARAMS_MAX + 1];

/*
 * Before main(): `probe`'s command entry points at this table statically,
 * and its help, completion, man page and getopt read it from there.
 */
__attribute__((constructor)) static void workload_param_opts_make(void)
{
	const struct workload_param *q;
	size_t i;

	for (i = 0; i < WORKLOAD_PARAMS_MAX && (q = workload_param_at(i)); i++)
		workload_param_opts[i] = q->opt;
	if (workload_param_at(i))
		abort();	/* a BUG: raise WORKLOAD_PARAMS_MAX */
	workload_param_opts[i] = (struct opt_spec){ NULL };
}

uint64_t workload_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

size_t workload_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

/* ---- PRNG ------------------------------------------------------------ */

void workload_rng_seed(struct workload_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = workload_splitmix64(&seed);
}

/* ---- page fill ------------------------------------------------------- */

/*
 * 5 of every 8 words are the same text in every line and page, the other 3
 * are PRNG output seeded by (seed, page): LZ compressors keep the random 24
 * bytes of each 64 and replace the rest by a short match, about 2.3x.
 */
static const uint64_t fill_pattern[5] = {	/* "swaptunepage fill -patternfrompa-sync!" */
	0x656e757470617773ull, 0x6c69662065676170ull, 0x65747461702d206cull,
	0x6d6f7266206e7261ull, 0x21636e79732d6170ull,
};
void workload_fill_page(void *page, size_t page_size, uint64_t page_no,
			uint64_t seed, enum workload_fill kind)
{
	uint64_t *w = page, x = seed ^ (page_no * 0xd1342543de82ef95ull);
	size_t nwords = page_size / sizeof(uint64_t);

	if (kind == WORKLOAD_FILL_RANDOM) {
		for (size_t i = 0; i < nwords; i++)
			w[i] = workload_splitmix64(&x) | 1;	/* never a zero word */
		return;
	}
	for (size_t i = 0; i + 8 <= nwords; i += 8) {
		w[i + 0] = workload_splitmix64(&x) | 1;
		w[i + 1] = workload_splitmix64(&x);
		w[i + 2] = workload_splitmix64(&x);
		memcpy(&w[i + 3], fill_pattern, sizeof(fill_pattern));
	}
}

void workload_fill_pages(char *base, uint64_t first, uint64_t n, size_t page_size,
			 uint64_t seed, enum workload_fill kind)
{
	for (uint64_t i = 0; i < n; i++)
		workload_fill_page(base + (first + i) * page_size, page_size,
				   first + i, seed, kind);
}

/* ---- anon working set ------------------------------------------------ */

int workload_mem_map(struct workload_mem *m, uint64_t bytes, struct st_err *e)
{
	memset(m, 0, sizeof(*m));
	m->page_size = workload_page_size();
	m->page_shift = (unsigned)__builtin_ctzll(m->page_size);
	m->npages = bytes / m->page_size;
	if (m->npages == 0)
		return err_set(e, -EINVAL, "working set of %llu bytes is smaller than a page",
			       (unsigned long long)bytes);
	void *p = mmap(NULL, m->npages * m->page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return err_set(e, -errno, "cannot map %llu bytes: %s",
			       (unsigned long long)(m->npages * m->page_size), strerror(errno));
	/* Swap-in and readahead are about base pages; a THP would hide them. */
	madvise(p, m->npages * m->page_size, MADV_NOHUGEPAGE);
	m->base = p;
	return 0;
}

void workload_mem_unmap(struct workload_mem *m)
{
	if (m->base)
		munmap(m->base, m->npages * m->page_size);
	m->base = NULL;
}

/* ---- Zipf: rejection-inversion (Hoermann & Derflinger 1996) ----------- */

static double zipf_helper1(double x)	/* log1p(x) / x */
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double zipf_helper2(double x)	/* expm1(x) / x */
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

static double zipf_h_integral(double x, double theta)
{
	double log_x = log(x);

	return zipf_helper2((1 - theta) * log_x) * log_x;
}

static double zipf_h(double x, double theta)
{
	return exp(-theta * log(x));
}

static double zipf_h_integral_inverse(double x, double theta)
{
	double t = x * (1 - theta);

	if (t < -1)
		t = -1;
	return exp(zipf_helper1(t) * x);
}

int workload_zipf_init(struct workload_zipf *z, uint64_t n, double theta)
{
	if (n == 0 || !(theta > 0) || theta > 100)
		return -EINVAL;
	z->n = n;
	z->theta = theta;
	z->h_x1 = zipf_h_integral(1.5, theta) - 1;
	z->h_n = zipf_h_integral((double)n + 0.5, theta);
	z->s = 2 - zipf_h_integral_inverse(zipf_h_integral(2.5, theta) - zipf_h(2, theta), theta);
	return 0;
}

uint64_t workload_zipf_next(const struct workload_zipf *z, struct workload_rng *r)
{
	for (;;) {
		double u = z->h_n + workload_rng_double(r) * (z->h_x1 - z->h_n);
		double x = zipf_h_integral_inverse(u, z->theta);
		double kd = x + 0.5;
		uint64_t k = kd < 1 ? 1 : kd >= (double)z->n ? z->n : (uint64_t)kd;

		if ((double)k - x <= z->s ||
		    u >= zipf_h_integral((double)k + 0.5, z->theta) - zipf_h((double)k, z->theta))
			return k;
	}
}

void workload_perm_init(struct workload_perm *pm, uint64_t n, uint64_t seed)
{
	unsigned bits = 2;

	while (bits < 64 && (1ull << bits) < n)
		bits++;
	pm->n = n;
	pm->mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	pm->shift = bits / 2;
	for (int i = 0; i < 2; i++) {
		pm->mul[i] = workload_splitmix64(&seed) | 1;	/* odd: invertible */
		pm->add[i] = workload_splitmix64(&seed);
	}
}

/* ---- generators ------------------------------------------------------ */

static uint64_t file_bytes_of(const struct workload_params *p)
{
	return p->file_bytes ? p->file_bytes : p->working_set_bytes / 2;
}

uint64_t workload_ops(const struct workload_info *w, const struct workload_params *p)
{
	uint64_t ps = workload_page_size(), n = p->working_set_bytes / ps;
	uint64_t k = p->stride_pages ? p->stride_pages : WORKLOAD_DEFAULT_STRIDE_PAGES;

	if (w->pattern == WORKLOAD_PAT_NONE)
		return 1;
	if (p->ops)
		return p->ops;
	switch (w->pattern) {
	case WORKLOAD_PAT_STRIDE:
		return WORKLOAD_DEFAULT_PASSES * ((n + k - 1) / k);
	case WORKLOAD_PAT_FILE_MIX:
		return WORKLOAD_DEFAULT_PASSES * (n + file_bytes_of(p) / ps);
	default:
		return WORKLOAD_DEFAULT_PASSES * n;
	}
}

int workload_gen_init(struct workload_gen *g, const struct workload_info *w,
		      const struct workload_params *p, struct st_err *e)
{
	uint64_t ps = workload_page_size(), seed = p->seed;
	double theta = p->zipf_theta ? p->zipf_theta : WORKLOAD_DEFAULT_ZIPF_THETA;

	memset(g, 0, sizeof(*g));
	g->pattern = w->pattern;
	g->npages = p->working_set_bytes / ps;
	if (w->pattern == WORKLOAD_PAT_NONE)
		return err_set(e, -EINVAL, "%s accesses no pages", w->name);
	if (g->npages == 0)
		return err_set(e, -EINVAL, "working set of %llu bytes is smaller than a page",
			       (unsigned long long)p->working_set_bytes);
	workload_rng_seed(&g->rng, seed);
	switch (w->pattern) {
	case WORKLOAD_PAT_SEQ:
		g->stride = 1;
		break;
	case WORKLOAD_PAT_STRIDE:
		g->stride = p->stride_pages ? p->stride_pages : WORKLOAD_DEFAULT_STRIDE_PAGES;
		if (g->stride >= g->npages)
			return err_set(e, -EINVAL, "stride of %llu pages does not fit a working set of %llu pages",
				       (unsigned long long)g->stride, (unsigned long long)g->npages);
		break;
	case WORKLOAD_PAT_ZIPF:
		if (workload_zipf_init(&g->zipf, g->npages, theta) < 0)
			return err_set(e, -EINVAL, "zipf theta %g is outside (0, 100]", theta);
		seed ^= 0x7065726d75746521ull;	/* the permutation's own stream */
		workload_perm_init(&g->perm, g->npages, workload_splitmix64(&seed));
		break;
	case WORKLOAD_PAT_RUNS:
		g->run_pages = p->run_pages ? p->run_pages : WORKLOAD_DEFAULT_RUN_PAGES;
		if (g->run_pages > g->npages)
			return err_set(e, -EINVAL, "run of %llu pages does not fit a working set of %llu pages",
				       (unsigned long long)g->run_pages, (unsigned long long)g->npages);
		break;
	case WORKLOAD_PAT_FILE_MIX:
		g->file_pages = file_bytes_of(p) / ps;
		if (g->file_pages == 0)
			return err_set(e, -EINVAL, "file of %llu bytes is smaller than a page",
				       (unsigned long long)file_bytes_of(p));
		break;
	default:
		break;
	}
	return 0;
}

/* ---- histogram ------------------------------------------------------- */

void workload_hist_reset(struct workload_hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned workload_hist_bucket(uint64_t ns)
{
	if (ns < WORKLOAD_HIST_SUB)
		return (unsigned)ns;
	unsigned e = 63 - (unsigned)__builtin_clzll(ns);	/* >= SUB_BITS */
	unsigned sub = (unsigned)(ns >> (e - WORKLOAD_HIST_SUB_BITS)) & (WORKLOAD_HIST_SUB - 1);

	return (e - WORKLOAD_HIST_SUB_BITS + 1) * WORKLOAD_HIST_SUB + sub;
}

uint64_t workload_hist_bucket_low(unsigned b)
{
	if (b < WORKLOAD_HIST_SUB)
		return b;
	unsigned e = b / WORKLOAD_HIST_SUB + WORKLOAD_HIST_SUB_BITS - 1;

	return (uint64_t)(WORKLOAD_HIST_SUB + b % WORKLOAD_HIST_SUB) << (e - WORKLOAD_HIST_SUB_BITS);
}

uint64_t workload_hist_bucket_width(unsigned b)
{
	if (b < WORKLOAD_HIST_SUB)
		return 1;
	return 1ull << (b / WORKLOAD_HIST_SUB - 1);
}

void workload_hist_record(struct workload_hist *h, uint64_t ns, uint64_t weight)
{
	if (h->samples == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->count[workload_hist_bucket(ns)] += weight;
	h->total += weight;
	h->samples++;
	h->sum_ns += (double)ns * (double)weight;
}

void workload_hist_merge(struct workload_hist *dst, const struct workload_hist *src)
{
	if (!src->samples)
		return;
	if (!dst->samples || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (unsigned i = 0; i < WORKLOAD_HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->total += src->total;
	dst->samples += src->samples;
	dst->sum_ns += src->sum_ns;
}

uint64_t workload_hist_quantile(const struct workload_hist *h, double q)
{
	uint64_t rank, cum = 0, v = h->max_ns;

	if (!h->total)
		return 0;
	if (q < 0)
		q = 0;
	rank = (uint64_t)ceil(q * (double)h->total);
	if (rank < 1)
		rank = 1;
	if (rank > h->total)
		rank = h->total;
	for (unsigned b = 0; b < WORKLOAD_HIST_BUCKETS; b++) {
		cum += h->count[b];
		if (cum >= rank) {
			v = workload_hist_bucket_low(b) + (workload_hist_bucket_width(b) - 1) / 2;
			break;
		}
	}
	if (v < h->min_ns)
		v = h->min_ns;
	if (v > h->max_ns)
		v = h->max_ns;
	return v;
}

double workload_hist_mean(const struct workload_hist *h)
{
	return h->total ? h->sum_ns / (double)h->total : 0;
}

/* ---- the measured phase ---------------------------------------------- */

#define LG_GAP_MAX 12	/* 2^12 = WORKLOAD_SAMPLE_GAP_MAX */

_Static_assert((1u << LG_GAP_MAX) == WORKLOAD_SAMPLE_GAP_MAX, "gap table size");

/*
 * Untimed accesses between two samples. The generator is copied to a local
 * so its state stays in registers, and each pattern gets its own loop:
 * this is the code the benchmark holds against a bare loop.
 */
static inline __attribute__((always_inline)) uint64_t
touch_run_pat(struct workload_gen *g, const char *base, unsigned shift, uint64_t n,
	      enum workload_pattern pat)
{
	struct workload_gen lg = *g;
	uint64_t sum = 0;

	while (n--)
		sum += workload_touch(base, workload_gen_next_pat(&lg, pat), shift);
	*g = lg;
	return sum;
}

static uint64_t touch_run(struct workload_gen *g, const char *base, unsigned shift, uint64_t n)
{
	switch (g->pattern) {
	case WORKLOAD_PAT_SEQ:
		return touch_run_pat(g, base, shift, n, WORKLOAD_PAT_SEQ);
	case WORKLOAD_PAT_STRIDE:
		return touch_run_pat(g, base, shift, n, WORKLOAD_PAT_STRIDE);
	case WORKLOAD_PAT_UNIFORM:
		return touch_run_pat(g, base, shift, n, WORKLOAD_PAT_UNIFORM);
	case WORKLOAD_PAT_ZIPF:
		return touch_run_pat(g, base, shift, n, WORKLOAD_PAT_ZIPF);
	case WORKLOAD_PAT_FILE_MIX:
		return touch_run_pat(g, base, shift, n, WORKLOAD_PAT_FILE_MIX);
	case WORKLOAD_PAT_RUNS:
		return touch_run_pat(g, base, shift, n, WORKLOAD_PAT_RUNS);
	default:
		return 0;
	}
}

static int access_run(struct workload_gen *g, const struct workload_access *acc, uint64_t n,
		      uint64_t *sum, uint64_t *bytes, struct st_err *e)
{
	for (uint64_t i = 0; i < n; i++) {
		int rc = acc->fn(acc->ctx, workload_gen_next(g), sum, bytes, e);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Accesses to the next timed one: geometric with mean 2^lg, at least 1. */
static uint64_t next_gap(struct workload_rng *r, const double *log1m, unsigned lg)
{
	if (lg == 0)
		return 1;
	double u = 1.0 - workload_rng_double(r);	/* (0, 1] */
	double g = 1.0 + floor(log(u) / log1m[lg]);

	return g > (double)(64u << lg) ? (64u << lg) : (uint64_t)g;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/*
 * What one clock pair costs (best of 32), and one whole sample: two clock
 * reads around a resident access, the histogram, the next gap (best of 4
 * blocks of 16, so an interrupt does not inflate it). The page is the last
 * one written, the likeliest to be resident: a swap-in here would prefetch
 * before the measured phase starts. Sets r->timer_overhead_ns; returns the
 * cost of one sample in ns.
 */
static uint64_t sample_cost_ns(const struct workload_mem *m, struct workload_result *r,
			       struct workload_rng *srng, const double *log1m)
{
	uint64_t t0, t1, sum = 0, cost = ~0ull;

	r->timer_overhead_ns = ~0ull;
	for (int i = 0; i < 32; i++) {
		t0 = workload_now_ns();
		t1 = workload_now_ns();
		if (t1 - t0 < r->timer_overhead_ns)
			r->timer_overhead_ns = t1 - t0;
	}
	for (int blk = 0; blk < 4; blk++) {
		uint64_t b0 = workload_now_ns(), b1;

		for (int i = 0; i < 16; i++) {
			t0 = workload_now_ns();
			if (m->base)
				sum += workload_touch(m->base, m->npages - 1, m->page_shift);
			t1 = workload_now_ns();
			workload_hist_record(&r->hist, t1 - t0, 1);
			sum += next_gap(srng, log1m, 1 + i % LG_GAP_MAX);
		}
		b1 = workload_now_ns();
		if ((b1 - b0) / 16 < cost)
			cost = (b1 - b0) / 16;
	}
	/* keep the touches from being optimised away */
	r->checksum ^= sum;
	return cost;
}

int workload_measure(const struct workload_params *p, struct workload_gen *g,
		     const struct workload_mem *m, const struct workload_access *acc,
		     struct workload_result *r, struct st_err *e)
{
	uint64_t ops = r->ops_requested, done = 0, sum = 0, bytes = 0;
	uint64_t t0, t1, t_prev, t_start, t_end, deadline = 0, sample_cost = ~0ull;
	double log1m[LG_GAP_MAX + 1], per_op = 0;
	unsigned lg = 4, lg_min = LG_GAP_MAX, lg_max = 0;
	struct workload_rng srng;
	struct rusage ru0, ru1;
	uint64_t gap, seed = p->seed ^ 0x73616d706c657221ull;	/* sampling's own stream */
	int rc = 0;

	for (unsigned i = 1; i <= LG_GAP_MAX; i++)
		log1m[i] = log1p(-1.0 / (double)(1u << i));
	workload_rng_seed(&srng, workload_splitmix64(&seed));

	sample_cost = sample_cost_ns(m, r, &srng, log1m);
	workload_hist_reset(&r->hist);
	workload_rng_seed(&srng, workload_splitmix64(&seed));
	sum = 0;

	getrusage(RUSAGE_SELF, &ru0);
	t_start = t_prev = workload_now_ns();
	if (p->max_duration_s > 0)
		deadline = t_start + (uint64_t)(p->max_duration_s * 1e9);
	gap = next_gap(&srng, log1m, lg);
	while (done < ops) {
		uint64_t run = gap - 1, page;

		if (run > ops - done)
			run = ops - done;
		if (!acc) {
			sum += touch_run(g, m->base, m->page_shift, run);
			bytes += run * sizeof(uint64_t);
		} else if ((rc = access_run(g, acc, run, &sum, &bytes, e)) < 0) {
			break;
		}
		done += run;
		if (done == ops)
			break;

		page = workload_gen_next(g);
		if (!acc) {
			t0 = workload_now_ns();
			sum += workload_touch(m->base, page, m->page_shift);
			t1 = workload_now_ns();
			bytes += sizeof(uint64_t);
		} else {
			t0 = workload_now_ns();
			rc = acc->fn(acc->ctx, page, &sum, &bytes, e);
			t1 = workload_now_ns();
			if (rc < 0)
				break;
		}
		done++;
		workload_hist_record(&r->hist, t1 - t0, 1ull << lg);
		if (lg < lg_min)
			lg_min = lg;
		if (lg > lg_max)
			lg_max = lg;

		/* Next mean gap: sampling should cost about SAMPLE_BUDGET of the time. */
		double cost = (double)(t1 - t_prev) / (double)gap;
		per_op = per_op == 0 ? cost : per_op + (cost - per_op) / 8;
		t_prev = t1;
		double want = (double)sample_cost / (WORKLOAD_SAMPLE_BUDGET * (per_op > 0.1 ? per_op : 0.1));
		lg = 0;
		while (lg < LG_GAP_MAX && (double)(2u << lg) <= want)
			lg++;
		gap = next_gap(&srng, log1m, lg);

		if (deadline && t1 >= deadline) {
			r->time_limited = true;
			break;
		}
	}
	t_end = workload_now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	if (rc < 0)
		return rc;

	r->ops = done;
	r->elapsed_ns = t_end - t_start;
	r->throughput_ops = r->elapsed_ns ? (double)done * 1e9 / (double)r->elapsed_ns : 0;
	r->bytes_touched = bytes;
	r->checksum = sum;
	r->lat_p50_ns = workload_hist_quantile(&r->hist, 0.50);
	r->lat_p99_ns = workload_hist_quantile(&r->hist, 0.99);
	r->lat_p999_ns = workload_hist_quantile(&r->hist, 0.999);
	r->lat_max_ns = r->hist.max_ns;
	r->lat_mean_ns = workload_hist_mean(&r->hist);
	r->latency_samples = r->hist.samples;
	r->latency_sample_mean_gap = r->hist.samples ? (double)done / (double)r->hist.samples : 0;
	r->latency_gap_min = r->hist.samples ? 1u << lg_min : 0;
	r->latency_gap_max = r->hist.samples ? 1u << lg_max : 0;
	snprintf(r->latency_sampling, sizeof(r->latency_sampling),
		 "random 1 in %.0f (adaptive %u..%u), weighted",
		 r->latency_sample_mean_gap, r->latency_gap_min, r->latency_gap_max);
	r->maj_faults = (uint64_t)(ru1.ru_majflt - ru0.ru_majflt);
	r->min_faults = (uint64_t)(ru1.ru_minflt - ru0.ru_minflt);
	r->user_ns = tv_ns(ru1.ru_utime) - tv_ns(ru0.ru_utime);
	r->sys_ns = tv_ns(ru1.ru_stime) - tv_ns(ru0.ru_stime);
	return 0;
}

/* ---- run() helpers --------------------------------------------------- */

void workload_result_begin(struct workload_result *r, const struct workload_info *w,
			   const struct workload_params *p)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", w->name);
	r->ops_requested = workload_ops(w, p);
	r->exit_status = -1;
}

int workload_result_fail(struct workload_result *r, int rc, struct st_err *e)
{
	if (rc >= 0)
		return rc;
	r->failed = true;
	if (e && e->code)
		snprintf(r->reason, sizeof(r->reason), "%s", e->msg);
	else
		snprintf(r->reason, sizeof(r->reason), "%s", strerror(-rc));
	return rc;
}

void workload_fill_compressible(char *base, uint64_t npages, size_t page_size, uint64_t seed)
{
	workload_fill_pages(base, 0, npages, page_size, seed, WORKLOAD_FILL_COMPRESSIBLE);
}

int workload_anon_setup(const struct workload_info *w, const struct workload_params *p,
			struct workload_result *r, struct workload_gen *g, struct workload_mem *m,
			struct st_err *e)
{
	int rc;

	workload_result_begin(r, w, p);
	rc = workload_gen_init(g, w, p, e);
	if (rc == 0)
		rc = workload_mem_map(m, p->working_set_bytes, e);
	if (rc == 0) {
		w->fill_anon(m->base, m->npages, m->page_size, p->seed);
		r->working_set_bytes = m->npages * m->page_size;
	}
	return rc;
}

int workload_run_anon(const struct workload_info *w, const struct workload_params *p,
		      struct workload_result *r, struct st_err *e)
{
	struct workload_mem m = { 0 };
	struct workload_gen g;
	uint64_t t0 = workload_now_ns();
	int rc;

	rc = workload_anon_setup(w, p, r, &g, &m, e);
	if (rc == 0) {
		r->setup_ns = workload_now_ns() - t0;
		rc = workload_measure(p, &g, &m, NULL, r, e);
	}
	workload_mem_unmap(&m);
	return workload_result_fail(r, rc, e);
}

bool workload_check_anon(const struct workload_params *p, char *reason, size_t len)
{
	uint64_t ps = workload_page_size();

	if (p->working_set_bytes < ps) {
		snprintf(reason, len, "working set of %llu bytes is smaller than a page (%llu bytes)",
			 (unsigned long long)p->working_set_bytes, (unsigned long long)ps);
		return false;
	}
	if (p->max_duration_s < 0) {
		snprintf(reason, len, "max duration %g s is negative", p->max_duration_s);
		return false;
	}
	return true;
}
