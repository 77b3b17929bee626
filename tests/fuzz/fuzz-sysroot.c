/*
 * fuzz-sysroot.c - libFuzzer target: a whole sysroot tree. A copy of the
 * vm-v1 fixture is made once; each input rewrites some of its kernel files
 * and then everything `status`, `doctor` and the advisor rules read from a
 * tree runs over it (facts_collect_all, facts_to_json, doctor_run_all,
 * advisor_rules_run). The files are put back after every input.
 *
 * Input: chunks separated by NUL bytes; a chunk's first byte picks the file
 * (modulo the table below), the rest is its new content.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "swaptune/advice.h"
#include "swaptune/doctor.h"
#include "swaptune/facts.h"

#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES "tests/fixtures"
#endif

static const char *const files[] = {
	"proc/vmstat", "proc/meminfo", "proc/swaps", "proc/mounts", "proc/crypto",
	"proc/pressure/memory", "proc/sys/kernel/osrelease", "proc/sys/kernel/hostname",
	"proc/sys/kernel/perf_event_paranoid", "proc/sys/vm/page-cluster", "proc/cmdline",
	"sys/kernel/mm/swap/vma_ra_enabled",
	"sys/module/zswap/parameters/enabled", "sys/module/zswap/parameters/compressor",
	"sys/module/zswap/parameters/max_pool_percent",
	"sys/module/zswap/parameters/shrinker_enabled",
	"sys/kernel/debug/zswap/stored_pages", "sys/kernel/debug/zswap/pool_total_size",
	"sys/kernel/debug/zswap/written_back_pages",
	"sys/devices/pci0000:00/0000:00:03.0/virtio2/block/vdb/queue/rotational",
	"sys/fs/cgroup/memory/memory.limit_in_bytes",
	"sys/fs/cgroup/unified/cgroup.controllers",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static char root[64];
static char *orig[NFILES];
static size_t orig_len[NFILES];

static void put(size_t i, const void *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, files[i]);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(buf, 1, len, f);
	fclose(f);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		char *nb = realloc(buf, cap + 4096);

		if (!nb)
			break;
		buf = nb;
		size_t got = fread(buf + *len, 1, 4096, f);

		cap += 4096;
		*len += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	return buf;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char cmd[1024];

	snprintf(root, sizeof(root), "/tmp/swaptune-fuzz-sysroot.XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(cmd, sizeof(cmd), "cp -a '%s/vm-v1/.' '%s/'", FUZZ_FIXTURES, root);
	if (system(cmd) != 0)
		abort();
	for (size_t i = 0; i < NFILES; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		orig[i] = slurp(path, &orig_len[i]);
	}
	return 0;
}

static void judge(const struct host *h)
{
	struct host_facts f;
	struct st_err e;
	struct doctor_result dr[64];
	struct advisor_host_facts af;
	struct advisor_rule_result rr[ADVISOR_RULES_MAX];
	size_t nr;

	memset(&f, 0, sizeof(f));
	if (facts_collect_all(h, &f, &e) == 0) {	/* status and doctor go on past unreadable parts */
		cJSON *j = facts_to_json(&f);
		struct doctor_env env = { .h = h, .f = &f, .root = true };

		if (j) {
			char *s = cJSON_PrintUnformatted(j);

			free(s);
			cJSON_Delete(j);
		}
		if (doctor_count() <= sizeof(dr) / sizeof(dr[0]))
			(void)doctor_run_all(&env, dr);
		advice_rules_input(&f, &af);
		(void)advisor_rules_run(&af, rr, ADVISOR_RULES_MAX, &nr, &e);
	}
	facts_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool touched[NFILES] = { false };
	struct host h;
	struct st_err e;
	size_t at = 0;

	while (at < size) {
		const uint8_t *end = memchr(data + at, 0, size - at);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;

		if (len > 0) {
			size_t i = data[at] % NFILES;

			put(i, data + at + 1, len - 1);
			touched[i] = true;
		}
		at += len + 1;
	}
	if (host_open(&h, root, &e) == 0) {
		judge(&h);
		host_close(&h);
	}
	for (size_t i = 0; i < NFILES; i++)
		if (touched[i])
			put(i, orig[i] ? orig[i] : "", orig_len[i]);
	return 0;
}
