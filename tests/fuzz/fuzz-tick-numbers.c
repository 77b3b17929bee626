/*
 * fuzz-tick-numbers.c - libFuzzer target: the numbers rows of stored ticks
 * (tick_numbers_decode(), src/store-tick-numbers.c), which read bytes from a
 * store that may come from elsewhere or be damaged.
 *
 * Input: byte 0 the number of value keys, byte 1 of counter keys, then one
 * byte per key (its vocabulary row, modulo the count): the strings row's
 * keys; then rows, each a 2-byte little-endian length and its bytes, decoded
 * one after the other as a recording's rows are (tick seq 1, 2, ...; a row
 * that does not decode is passed over, as the conversion does). Each row is
 * its own allocation, so ASan sees a read past it. A row that decodes is
 * printed (sample_tick_json()) and stored again (tick_numbers_encode(), into
 * exactly TICK_ROW_MAX bytes); that row must decode to the same printed line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/store-int.h"

#define LINE_MAX_BYTES 65536

/* t's numbers made doubles and printed into out: its length (a decoded tick always prints) */
static int print_tick(const struct tick_prev *prev, struct sample_tick *t, char *out)
{
	int n;

	tick_numbers_cook(prev, t);
	n = sample_tick_json(t, out, LINE_MAX_BYTES);
	if (n < 0)
		abort();
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tick_keys k = { 0 };
	struct tick_prev rd = { 0 }, wr = { 0 }, back = { 0 };
	struct sample_tick t = { 0 }, t2 = { 0 };
	char *line, *line2;
	uint8_t *row;
	size_t at;

	if (size < 2)
		return 0;
	k.n_m = (uint16_t)(data[0] % (SM_COUNT + 1));
	k.n_c = (uint16_t)(data[1] % (SC_COUNT + 1));
	at = 2;
	if (size < at + k.n_m + k.n_c)
		return 0;
	for (int i = 0; i < k.n_m; i++)
		k.m[i] = (uint16_t)(data[at++] % SM_COUNT);
	for (int i = 0; i < k.n_c; i++)
		k.c[i] = (uint16_t)(data[at++] % SC_COUNT);
	line = malloc(LINE_MAX_BYTES);
	line2 = malloc(LINE_MAX_BYTES);
	row = malloc(TICK_ROW_MAX);
	if (!line || !line2 || !row)
		abort();
	for (uint64_t seq = 1; size - at >= 2; seq++) {
		size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8;
		uint8_t *b;
		size_t n;
		int l1, l2;

		at += 2;
		if (len > size - at)
			len = size - at;
		b = malloc(len ? len : 1);
		if (!b)
			abort();
		memcpy(b, data + at, len);
		at += len;
		t.seq = seq;
		if (tick_numbers_decode(b, len, &k, &rd, &t) < 0) {
			free(b);
			continue;
		}
		free(b);
		l1 = print_tick(&rd, &t, line);
		/* stored again after the rows stored before it, read back after them */
		n = tick_numbers_encode(&t, &k, &wr, row);
		if (n > TICK_ROW_MAX)
			abort();
		t2.seq = seq;
		if (tick_numbers_decode(row, n, &k, &back, &t2) < 0)
			abort();	/* a row the writer made always decodes */
		l2 = print_tick(&back, &t2, line2);
		/*
		 * past 2^53 ns (104 days) "%.6f" of a double no longer holds every
		 * microsecond: the line is the format's, not the row's
		 */
		if (t.elapsed_ns >= (1ULL << 53) || t.interval_ns >= (1ULL << 53))
			continue;
		if (l1 != l2 || memcmp(line, line2, (size_t)l1))
			abort();	/* and says what the row it came from said */
	}
	free(line);
	free(line2);
	free(row);
	return 0;
}
