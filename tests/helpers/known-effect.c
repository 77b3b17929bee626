/*
 * known-effect.c - a cmd workload with an effect known by construction, for
 * the live A/B of `make calibrate` and tests/t0311: it reads
 * vm.page-cluster, does UNITS units of fixed CPU work - SLOW_PCT percent
 * more of them when page-cluster is SLOW_PC - and prints
 *   "known-effect: <UNITS / CPU seconds> units per CPU second, page-cluster <N>"
 * (CPU time, not wall time: other load on the machine waits, it does not count)
 * so the arm with page-cluster SLOW_PC has a throughput 1 / (1 + SLOW_PCT /
 * 100) times the other's: with 10, any other setting is +10 % better.
 *
 *   known-effect UNITS SLOW_PC SLOW_PCT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int page_cluster(void)
{
	FILE *f = fopen("/proc/sys/vm/page-cluster", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* One unit: a fixed chain of multiply-xorshift steps the compiler cannot skip. */
static uint64_t unit(uint64_t x)
{
	for (int i = 0; i < 100000; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 32;
	}
	return x;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 0, work;
	int slow_pc = argc > 2 ? atoi(argv[2]) : 3, pc = page_cluster();
	double slow_pct = argc > 3 ? atof(argv[3]) : 10, s;
	struct timespec t0, t1;
	volatile uint64_t sink;
	uint64_t x = 88172645463325252ULL;

	if (units < 1 || !(slow_pct >= 0)) {
		fprintf(stderr, "usage: known-effect UNITS SLOW_PC SLOW_PCT\n");
		return 2;
	}
	if (pc < 0) {
		fprintf(stderr, "known-effect: cannot read vm.page-cluster\n");
		return 1;
	}
	work = pc == slow_pc ? (long)((double)units * (1.0 + slow_pct / 100.0) + 0.5) : units;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (long i = 0; i < work; i++)
		x = unit(x + (uint64_t)i);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	sink = x;
	(void)sink;
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("known-effect: %.3f units per CPU second, page-cluster %d\n", (double)units / s, pc);
	return 0;
}
