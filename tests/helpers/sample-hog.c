/*
 * sample-hog.c - a memory hog for the sampler's live test: touches MIB MiB
 * of non-zero, compressible data (zero pages would not reach zswap), then
 * keeps walking it so a memory cgroup smaller than that swaps all the time.
 *
 *   sample-hog MIB     (runs until killed)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 200;
	size_t len = (size_t)mib << 20, page = 4096;
	unsigned char *m;

	if (mib <= 0)
		return 2;
	m = malloc(len);
	if (!m)
		return 1;
	for (;;) {
		for (size_t off = 0; off < len; off += page) {
			/* a short pattern per page: compresses well, never zero-filled */
			for (size_t i = 0; i < page; i += 64)
				memset(m + off + i, (int)(1 + ((off / page + i / 64) % 251)), 64);
		}
	}
}
