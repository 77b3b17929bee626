/*
 * fuzz-ticks.c - libFuzzer target: the compact tick codec (src/store-ticks.c).
 * The input is "SHAPE\nTICK\nBYTES": the shape and the tick go through the
 * writer's path (parse, fits, encode, decode, format), which must give the
 * tick's text back byte for byte and the numbers strtod() reads; BYTES are
 * decoded against the shape as a damaged row would be (no crash, no read
 * past them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/store-int.h"

static void check_round_trip(const struct tick_shape *sh, const struct tick_shape *doc)
{
	size_t cap = doc->len * 2 + 16 * sh->n + 64;
	uint8_t *vals = malloc(cap);
	char *back = malloc(doc->len + 1);
	struct tick_val *v = calloc(sh->n + 1, sizeof(*v));
	long n;

	if (!vals || !back || !v)
		abort();
	n = tick_encode(sh, doc, vals, cap);
	if (n < 0 || tick_decode(sh, vals, (size_t)n, v) < 0 ||
	    tick_format(sh, v, back, doc->len + 1) != (long)doc->len ||
	    memcmp(back, doc->text, doc->len))
		abort();	/* every tick the scanner takes comes back exactly */
	for (size_t i = 0; i < sh->n; i++) {
		double got, want;
		char tok[512];

		if (doc->slots[i].kind != 'n' || doc->slots[i].len >= sizeof(tok))
			continue;
		memcpy(tok, doc->text + doc->slots[i].off, doc->slots[i].len);
		tok[doc->slots[i].len] = '\0';
		want = strtod(tok, NULL);
		if (!tick_number(sh, v, i, &got) || memcmp(&got, &want, sizeof(got)))
			abort();
	}
	free(vals);
	free(back);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl1 = memchr(s, '\n', size), *nl2;
	struct tick_shape sh, doc = { 0 };

	if (!nl1)
		return 0;
	nl2 = memchr(nl1 + 1, '\n', size - (size_t)(nl1 + 1 - s));
	if (tick_shape_make(&sh, 1, s, (size_t)(nl1 - s)) < 0)
		return 0;
	{
		size_t dl = (nl2 ? (size_t)(nl2 - nl1 - 1) : size - (size_t)(nl1 + 1 - s));
		char *text = malloc(dl + 1);

		if (!text)
			abort();
		memcpy(text, nl1 + 1, dl);
		text[dl] = '\0';
		if (tick_parse(&doc, text, dl) == 0 && tick_shape_fits(&sh, &doc))
			check_round_trip(&sh, &doc);
		tick_shape_free(&doc, false);
		free(text);
	}
	if (nl2) {
		size_t bl = size - (size_t)(nl2 + 1 - s);
		uint8_t *b = malloc(bl + 1);
		struct tick_val *v = calloc(sh.n + 1, sizeof(*v));
		char out[4096];

		if (!b || !v)
			abort();
		memcpy(b, nl2 + 1, bl);	/* its own allocation: ASan sees a read past it */
		if (tick_decode(&sh, b, bl, v) == 0)
			(void)tick_format(&sh, v, out, sizeof(out));
		free(b);
		free(v);
	}
	tick_shape_free(&sh, true);
	return 0;
}
