/*
 * fuzz-store.c - libFuzzer target: the opener of a store from elsewhere
 * (fleet-advise --from, completion's --list-ids) on arbitrary bytes as the
 * file: store_open_readonly() and, when it opens, the id listers reading
 * its runs, recordings and measured runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = { "run", "recording", "measured", "apply" };
	static char dir[] = "/tmp/swaptune-fuzz-store.XXXXXX", path[64];
	static FILE *devnull;
	FILE *f;

	/* a private directory (never a guessable name in /tmp); run.sh removes it */
	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/s.db", dir);
		devnull = fopen("/dev/null", "w");
	}
	if (!devnull || !(f = fopen(path, "wb")))
		return 0;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct st_err e = { 0 };

		(void)cmd_list_ids(devnull, kinds[i], path, &e);
	}
	/* a file whose header says WAL gets its -wal and -shm even read-only */
	unlink(path);
	for (size_t i = 0; i < 2; i++) {
		char side[80];

		snprintf(side, sizeof(side), "%s%s", path, i ? "-shm" : "-wal");
		unlink(side);
	}
	return 0;
}
