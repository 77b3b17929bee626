/*
 * fuzz-sbmetric.c - libFuzzer target: the switchback metric readers on
 * arbitrary bytes, not NUL-terminated: a --metric-prom answer (Prometheus
 * text, read for a plain and a labelled name), a --metric-file's content and
 * a --metric-cmd's output (one number), and the text of the options
 * themselves (--metric-cmd split into words, --metric-prom's URL).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/sbrun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"app_requests_total", "app_latency_seconds{quantile=\"0.99\"}", "x{a=\"\",b=\"\\\"\"}",
	};
	char *copy = malloc(size ? size : 1);
	char *text = malloc(size + 1);
	char why[200], words[1024];
	char *argv[SBM_ARGV_MAX];
	struct sbm_url u;
	double v;

	if (!copy || !text) {
		free(copy);
		free(text);
		return 0;
	}
	memcpy(copy, data, size);	/* a buffer of exactly size bytes: ASan sees overreads */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (sbm_prom_value(copy, size, names[i], &v, why, sizeof(why)) == 0 && !isfinite(v))
			abort();	/* a sum read is a number or an error, never inf or nan */
	(void)sbm_parse_number(copy, size, &v);
	memcpy(text, data, size);
	text[size] = '\0';
	(void)sbm_split_argv(text, words, sizeof(words), argv, why, sizeof(why));
	(void)sbm_url_parse(text, &u, why, sizeof(why));
	free(copy);
	free(text);
	return 0;
}
