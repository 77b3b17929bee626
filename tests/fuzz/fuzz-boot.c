/*
 * fuzz-boot.c - libFuzzer target: the boot-time settings file parser
 * (persist_parse_boot: "name=value" lines with # comments).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/persist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct persist_kv kv[SETTINGS_MAX];
	struct st_err e;
	int n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)persist_parse_boot(text, "fuzz", kv, SETTINGS_MAX, &n, &e);
	free(text);
	return 0;
}
