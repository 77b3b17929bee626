/*
 * probe-memhog.c - a small external program for the probe's cmd tests:
 * allocates MiB of anonymous memory, writes every page with compressible
 * data, then reads it sequentially PASSES times and prints
 * "memhog: <pages per second> pages/s" on stdout.
 *
 *   probe-memhog MIB [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	int passes = argc > 2 ? atoi(argv[2]) : 2;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), n = mib * 1024 * 1024 / ps;
	volatile uint64_t sum = 0;
	struct timespec t0, t1;
	char *m;
	double s;

	if (n == 0 || passes < 1) {
		fprintf(stderr, "usage: probe-memhog MIB [PASSES]\n");
		return 2;
	}
	m = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(m, n * ps, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ps; k += 64)	/* compressible, never zero */
			*(uint64_t *)(m + i * ps + k) = i * 2654435761u + (k & 0xff) + 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i++)
			sum += *(volatile uint64_t *)(m + i * ps);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("memhog: %.0f pages/s (checksum %llu)\n", (double)n * passes / (s > 0 ? s : 1e-9),
	       (unsigned long long)sum);
	return 0;
}
