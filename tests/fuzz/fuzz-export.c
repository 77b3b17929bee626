/*
 * fuzz-export.c - libFuzzer target: the checks `swaptune import` runs on an
 * export document before it may touch a store (fleet_doc_parse), and for a
 * document that passes them, the run hash import computes and a walk over
 * every field import reads, which must then be of the checked types.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fleet.h"

static void walk(const cJSON *run)
{
	static const char *const lists[] = { "arms", "trials", "snapshots", "changes", "samples" };
	const cJSON *x;
	char hash[17];

	fleet_run_hash(run, hash);
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(run, "started_at")))
		abort();
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(run, lists[i]);

		if (!cJSON_IsArray(l))
			abort();
		cJSON_ArrayForEach(x, l)
			if (!cJSON_IsObject(x))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_err e = {0};
	cJSON *doc = NULL, *run;

	if (fleet_doc_parse((const char *)data, size, &doc, &e) == 0) {
		cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(doc, "runs"))
			walk(run);
		cJSON_Delete(doc);
	} else if (doc || !e.msg[0]) {
		abort();	/* a refusal leaves nothing allocated and says why */
	}
	return 0;
}
