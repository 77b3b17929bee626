/*
 * fuzz-psi.c - libFuzzer target: the PSI parser (/proc/pressure/memory and
 * a cgroup's memory.pressure) on arbitrary bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct st_psi p;
	struct st_err e;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&p, 0, sizeof(p));
	(void)psi_parse(&p, text, "fuzz", &e);
	free(text);
	return 0;
}
