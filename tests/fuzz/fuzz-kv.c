/*
 * fuzz-kv.c - libFuzzer target: the host layer's "key value" parser
 * (/proc/vmstat, memory.stat, memory.events, zswap debugfs) and the meminfo
 * "Key: N kB" form, on arbitrary bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct st_kvtab t;
	struct st_err e;
	uint64_t v;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int kb = 0; kb <= 1; kb++) {
		kv_init(&t);
		if (kv_parse(&t, text, "fuzz", kb, &e) == 0)
			(void)kv_get(&t, "zswpin", &v);
		kv_free(&t);
	}
	free(text);
	return 0;
}
