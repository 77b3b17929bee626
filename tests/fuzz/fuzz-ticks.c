/*
 * fuzz-ticks.c - libFuzzer target: the reading half of the compact tick
 * codec that older stores hold (src/store-ticks.c), which the conversion
 * reads. The input is "SHAPE\nBYTES": the shape as a stored shape, then
 * BYTES decoded against it as a stored row, and formatted when they decode
 * (no crash, no read past them). The numbers rows that replaced the codec
 * have their own target, fuzz-tick-numbers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/store-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl = memchr(s, '\n', size);
	struct tick_shape sh;
	size_t bl;
	uint8_t *b;
	struct tick_val *v;
	char out[4096];

	if (!nl || tick_shape_make(&sh, 1, s, (size_t)(nl - s)) < 0)
		return 0;
	bl = size - (size_t)(nl + 1 - s);
	b = malloc(bl + 1);
	v = calloc(sh.n + 1, sizeof(*v));
	if (!b || !v)
		abort();
	memcpy(b, nl + 1, bl);	/* its own allocation: ASan sees a read past it */
	if (tick_decode(&sh, b, bl, v) == 0)
		(void)tick_format(&sh, v, out, sizeof(out));
	free(b);
	free(v);
	tick_shape_free(&sh, true);
	return 0;
}
