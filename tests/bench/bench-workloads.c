/*
 * bench-workloads.c - what the measured phase's instrumentation (sampled
 * latency timing, histogram, duration check) costs: for each anon workload,
 * with no memory pressure (the working set stays resident), the access rate
 * of run()'s measured phase against a bare C loop doing the same accesses
 * (same generator, same index sequence, same one-word read per page, no
 * timing) on an identically filled mapping. Runs are interleaved, the order
 * alternating per repetition; the ratio is taken per repetition. The two
 * checksums must agree (same accesses); the target ratio is >= 0.9.
 *
 * usage: bench-workloads [working-set-MiB [repetitions]]   (256, 7)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/workload.h"

#define TARGET_RATIO	0.9
#define PHASE_NS	150000000.0	/* aim each measured phase at ~150 ms */

static inline __attribute__((always_inline)) uint64_t
bare_pat(const struct workload_gen *g, const char *base, unsigned shift, uint64_t ops,
	 enum workload_pattern pat)
{
	struct workload_gen lg = *g;
	uint64_t sum = 0;

	for (uint64_t i = 0; i < ops; i++)
		sum += workload_touch(base, workload_gen_next_pat(&lg, pat), shift);
	return sum;
}

static uint64_t bare_loop(const struct workload_gen *g, const char *base, unsigned shift,
			  uint64_t ops)
{
	switch (g->pattern) {
	case WORKLOAD_PAT_SEQ:
		return bare_pat(g, base, shift, ops, WORKLOAD_PAT_SEQ);
	case WORKLOAD_PAT_STRIDE:
		return bare_pat(g, base, shift, ops, WORKLOAD_PAT_STRIDE);
	case WORKLOAD_PAT_UNIFORM:
		return bare_pat(g, base, shift, ops, WORKLOAD_PAT_UNIFORM);
	case WORKLOAD_PAT_ZIPF:
		return bare_pat(g, base, shift, ops, WORKLOAD_PAT_ZIPF);
	case WORKLOAD_PAT_RUNS:
		return bare_pat(g, base, shift, ops, WORKLOAD_PAT_RUNS);
	default:
		return 0;
	}
}

/* Map, fill as w does, then time the bare loop only; ops per second. */
static double bare_rate(const struct workload_info *w, const struct workload_params *p,
			uint64_t ops, uint64_t *sum)
{
	struct workload_mem m;
	struct workload_gen g;
	struct st_err e = { 0 };
	uint64_t t0, t1;

	if (workload_gen_init(&g, w, p, &e) < 0 || workload_mem_map(&m, p->working_set_bytes, &e) < 0) {
		fprintf(stderr, "bench-workloads: %s: %s\n", w->name, e.msg);
		exit(1);
	}
	w->fill_anon(m.base, m.npages, m.page_size, p->seed);
	t0 = workload_now_ns();
	*sum = bare_loop(&g, m.base, m.page_shift, ops);
	t1 = workload_now_ns();
	workload_mem_unmap(&m);
	return (double)ops * 1e9 / (double)(t1 - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	uint64_t ws_mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 256;
	int reps = argc > 2 ? atoi(argv[2]) : 7, below = 0, bad = 0;

	if (ws_mib == 0 || reps < 1 || reps > 100) {
		fprintf(stderr, "usage: bench-workloads [working-set-MiB [repetitions]]\n");
		return 2;
	}
	printf("measured phase vs bare loop, %llu MiB resident working set, %d interleaved repetitions\n",
	       (unsigned long long)ws_mib, reps);
	printf("%-15s %10s %9s %9s %7s %7s %7s %9s %9s  %s\n", "workload", "ops", "bare M/s",
	       "run M/s", "ratio", "min", "max", "samples", "1 in", "p50/p99 ns");

	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_info *w = workload_at(i);
		double bare[100], run[100], ratio[100], samples[100], gap[100];
		struct workload_params p;
		struct workload_result r;
		uint64_t ops, bsum, p50 = 0, p99 = 0;
		double per_op;

		if (!w->fill_anon || w->pattern == WORKLOAD_PAT_FILE_MIX)
			continue;	/* not a pure anon workload */
		workload_params_init(&p);
		p.working_set_bytes = ws_mib << 20;
		p.seed = 1;

		/* size the phase from a short bare run */
		per_op = 1e9 / bare_rate(w, &p, 1u << 20, &bsum);
		ops = (uint64_t)(PHASE_NS / per_op);
		if (ops < (1u << 20))
			ops = 1u << 20;
		p.ops = ops;

		for (int k = 0; k < reps; k++) {
			struct st_err e = { 0 };

			if (k % 2)
				bare[k] = bare_rate(w, &p, ops, &bsum);
			if (w->run(&p, &r, &e) < 0) {
				fprintf(stderr, "bench-workloads: %s: %s\n", w->name, e.msg);
				return 1;
			}
			if (k % 2 == 0)
				bare[k] = bare_rate(w, &p, ops, &bsum);
			if (r.checksum != bsum) {
				fprintf(stderr, "bench-workloads: %s: checksum %llx, bare loop %llx: not the same accesses\n",
					w->name, (unsigned long long)r.checksum, (unsigned long long)bsum);
				bad = 1;
			}
			run[k] = r.throughput_ops;
			ratio[k] = run[k] / bare[k];
			samples[k] = (double)r.latency_samples;
			gap[k] = r.latency_sample_mean_gap;
			p50 = r.lat_p50_ns;
			p99 = r.lat_p99_ns;
		}
		double med = median(ratio, reps);

		below += med < TARGET_RATIO;
		printf("%-15s %10llu %9.1f %9.1f %7.3f %7.3f %7.3f %9.0f %9.0f  %llu/%llu%s\n",
		       w->name, (unsigned long long)ops, median(bare, reps) / 1e6,
		       median(run, reps) / 1e6, med, ratio[0], ratio[reps - 1],
		       median(samples, reps), median(gap, reps),
		       (unsigned long long)p50, (unsigned long long)p99,
		       med < TARGET_RATIO ? "  BELOW TARGET" : "");
	}
	printf("ratio = run()'s measured-phase rate / bare loop rate, median of %d (min, max); "
	       "target >= %.2f: %s\n", reps, TARGET_RATIO, below ? "missed" : "met");
	return bad;
}
