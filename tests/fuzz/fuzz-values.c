/*
 * fuzz-values.c - libFuzzer target: every parser of a value a user types:
 * durations and sizes (fmt_parse_duration/size), arm specs
 * (probe_arm_parse: "NAME:key=value,..."), built-in arm lists, and each
 * setting's value validation (settings_normalize), against the vm-v1
 * fixture tree (FUZZ_FIXTURES, set by the Makefile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/fmt.h"
#include "swaptune/probe-arms.h"
#include "swaptune/settings.h"

#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES "tests/fixtures"
#endif

static struct host host;
static bool host_ok;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct st_err e;

	host_ok = host_open(&host, FUZZ_FIXTURES "/vm-v1", &e) == 0;
	if (!host_ok)
		fprintf(stderr, "fuzz-values: %s\n", e.msg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	long long ns;
	unsigned long long bytes;
	struct probe_arm arms[PROBE_ARMS_MAX];
	struct st_err e;
	char out[SETTING_VALUE_MAX];
	int n = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)fmt_parse_duration(s, &ns);
	(void)fmt_parse_size(s, &bytes);
	(void)probe_arms_parse_list(s, arms, PROBE_ARMS_MAX, &n, &e);
	if (host_ok) {
		(void)probe_arm_parse(&host, s, &arms[0], &e);
		for (size_t i = 0; settings_at(i); i++)
			(void)settings_normalize(&host, settings_at(i), s, out, sizeof(out), &e);
	}
	free(s);
	return 0;
}
