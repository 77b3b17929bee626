/*
 * fuzz-boot.c - libFuzzer target: the boot-time settings file parser
 * (persist_parse_boot: "name=value" lines with # comments), and the check
 * of what swaptune's own files may hold (persist_check_content: parsed
 * back, validated, rendered again and compared) for each of them, against
 * the vm-v1 fixture (its compressors). A text the check takes must hold no
 * control byte but newlines: it is written to the host.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/persist.h"

#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES "tests/fixtures"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct host h;
	static int opened;
	char *text = malloc(size + 1);
	struct persist_kv kv[SETTINGS_MAX];
	struct st_err e;
	int n = 0;

	if (!text)
		return 0;
	if (!opened) {
		struct st_err e0 = {0};

		opened = host_open(&h, FUZZ_FIXTURES "/vm-v1", &e0) == 0 ? 1 : -1;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	(void)persist_parse_boot(text, "fuzz", kv, SETTINGS_MAX, &n, &e);
	for (int i = 0; opened > 0 && i < PERSIST_FILES_MAX; i++) {
		if (persist_check_content(&h, persist_file_at(i), text, &e) != 0)
			continue;
		for (const unsigned char *p = (const unsigned char *)text; *p; p++)
			if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
				abort();	/* taken, yet holding a control byte */
	}
	free(text);
	return 0;
}
