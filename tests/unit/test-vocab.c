/*
 * test-vocab.c - the counter vocabulary (vocab.h) is whole, and a row shows
 * up everywhere it should: each view's keys unique and well formed, every
 * per-tick key and counter in share/schema/sample.schema.json (and nothing
 * there that the table lacks), every kernel key the sampler reads present
 * in the fixture tests/fixtures/sample-basic (so the sampler and the
 * probe's counter deltas see it), within what the host layer's readers
 * hold. A new row that misses one of them fails here.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "swaptune/host.h"
#include "swaptune/metric.h"
#include "swaptune/sampler.h"
#include "swaptune/vocab.h"

static const char *top(void)
{
	const char *t = getenv("TOP");

	return t && *t ? t : ".";
}

/* the sampler's JSON group of a source; SG_COUNT: not sampled */
static enum sample_group group_of(enum vocab_source src)
{
	switch (src) {
	case VSRC_VMSTAT:	return SG_VMSTAT;
	case VSRC_ZSWAP:	return SG_ZSWAP;
	case VSRC_PSI:		return SG_PSI;
	case VSRC_MEMINFO:	return SG_MEMINFO;
	case VSRC_MEMCG:
	case VSRC_MEMCG_PSI:	return SG_CGROUP;
	case VSRC_PMU:		return SG_CPU;
	case VSRC_DERIVED:	return SG_DERIVED;
	default:		return SG_COUNT;
	}
}

static bool prom_name_ok(const char *n)
{
	if (strncmp(n, "swaptune_", 9))
		return false;
	for (; *n; n++)
		if (!islower((unsigned char)*n) && !isdigit((unsigned char)*n) && *n != '_')
			return false;
	return true;
}

static void test_rows(void **state)
{
	(void)state;
	for (int v = 0; v < V_COUNT; v++) {
		const struct vocab_row *r = &vocab_rows[v];
		bool kernel = r->source != VSRC_WORKLOAD && r->source != VSRC_RUSAGE &&
			      r->source != VSRC_ENGINE && r->source != VSRC_DERIVED;

		assert_non_null(r->name);
		assert_non_null(r->label);
		assert_non_null(r->unit);
		assert_non_null(r->help);
		/* a kernel row names its key (a memcg row for at least one version) */
		if (kernel)
			assert_true(r->keys[0] || r->keys_v1[0]);
		else
			assert_null(r->keys[0]);
		if (r->sum == VSUM_DIFF)
			assert_true(r->keys[0] && r->keys[1]);
		if (r->source == VSRC_PSI || r->source == VSRC_MEMCG_PSI) {
			assert_true(!strcmp(r->keys[0], "some") || !strcmp(r->keys[0], "full"));
			assert_true(!strcmp(r->keys[1], "total") || !strcmp(r->keys[1], "avg10") ||
				    !strcmp(r->keys[1], "avg60") || !strcmp(r->keys[1], "avg300"));
		}
	}
	/* the kernel's spelling, found through the table */
	assert_string_equal(vocab_key(V_ZSWPIN), "zswpin");
	assert_string_equal(vocab_key(V_REFAULT_ANON), "workingset_refault_anon");
}

static void test_trial_view(void **state)
{
	(void)state;
	for (int m = 0; m < PM_COUNT; m++) {
		const struct metric_def *d = &metric_defs[m];

		assert_non_null(d->row);
		assert_non_null(d->key);
		for (int k = 0; k < m; k++)
			if (!strcmp(metric_defs[k].key, d->key))
				fail_msg("trial key %s twice", d->key);
		if (d->head)
			assert_true(strlen(d->head) <= 9);
	}
}

/*
 * The verdict's secondary costs: each a lower-is-better trial metric, the
 * published ones first in the order advice's JSON lists its "secondary"
 * objects (never reordered: scripts and goldens hold it); a new one goes
 * after them, under a name of its own.
 */
static void test_secondary_view(void **state)
{
	static const char *const json_order[] = {
		"zswpin_pages", "zswpout_pages", "wasted_ra_pages", "cpu_ns_per_op",
		"major_faults", "psi_some_us",
	};
	const int published = (int)(sizeof(json_order) / sizeof(json_order[0]));

	(void)state;
	assert_true(VERDICT_SEC_COUNT >= published);
	for (int s = 0; s < VERDICT_SEC_COUNT; s++) {
		const struct verdict_secondary_def *d = &verdict_secondary_defs[s];

		assert_non_null(d->name);
		if (s < published)
			assert_string_equal(d->name, json_order[s]);
		for (int o = 0; o < s; o++)
			assert_string_not_equal(d->name, verdict_secondary_defs[o].name);
		assert_in_range(d->pm, 0, PM_COUNT - 1);
		assert_int_equal(metric_defs[d->pm].row->direction, METRIC_LOWER_BETTER);
		assert_int_equal(vocab_secondary_of(d->pm), s);
	}
	assert_int_equal(vocab_secondary_of(PM_THROUGHPUT), METRIC_SEC_NONE);
	assert_int_equal(verdict_secondary_defs[VERDICT_SEC_ZSWPOUT_PAGES].pm, PM_ZSWPOUT);
}

static void test_tick_and_counter_views(void **state)
{
	(void)state;
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = &sample_metric_defs[m];
		bool rate = false;

		assert_int_equal(d->id, m);
		assert_non_null(d->key);
		assert_non_null(d->unit);
		assert_int_equal(d->group, group_of(d->row->source));
		for (int k = 0; k < m; k++)
			if (sample_metric_defs[k].group == d->group && !strcmp(sample_metric_defs[k].key, d->key))
				fail_msg("%s.%s twice", sampler_group_name(d->group), d->key);
		if (d->head)
			assert_true(strlen(d->head) <= 5);
		if (d->prom)
			assert_true(prom_name_ok(d->prom) && !strstr(d->prom, "_total"));
		for (int c = 0; c < SC_COUNT; c++)
			rate |= sample_counter_defs[c].row == d->row;
		/* a rate is of its row's counter; a level is no counter */
		if (rate)
			assert_null(d->prom);
	}
	for (int c = 0; c < SC_COUNT; c++) {
		const struct sample_counter_def *d = &sample_counter_defs[c];
		size_t n = strlen(d->prom);
		bool has_rate = false;

		assert_int_equal(d->id, c);
		assert_int_equal(d->group, group_of(d->row->source));
		assert_true(prom_name_ok(d->prom) && n > 6 && !strcmp(d->prom + n - 6, "_total"));
		for (int k = 0; k < c; k++) {
			if (!strcmp(sample_counter_defs[k].key, d->key))
				fail_msg("counter %s twice", d->key);
			if (!strcmp(sample_counter_defs[k].prom, d->prom))
				fail_msg("Prometheus family %s twice", d->prom);
		}
		for (int m = 0; m < SM_COUNT; m++) {
			if (sample_metric_defs[m].row == d->row)
				has_rate = true;
			if (sample_metric_defs[m].prom && !strcmp(sample_metric_defs[m].prom, d->prom))
				fail_msg("Prometheus family %s twice", d->prom);
		}
		/* every counter's rate is in the JSON line */
		assert_true(has_rate);
	}
}

static cJSON *schema_group(cJSON *schema, const char *name)
{
	cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), name);

	if (!g)
		fail_msg("sample.schema.json has no %s", name);
	return g;
}

/* key in the group's properties and in its required list */
static void assert_in_schema(cJSON *g, const char *name, const char *key)
{
	cJSON *req = cJSON_GetObjectItem(g, "required"), *it;
	bool required = false;

	if (!cJSON_GetObjectItem(cJSON_GetObjectItem(g, "properties"), key))
		fail_msg("sample.schema.json: %s.%s is not described", name, key);
	cJSON_ArrayForEach(it, req)
		required |= cJSON_IsString(it) && !strcmp(it->valuestring, key);
	/* the cgroup's counters exist only with --cgroup */
	if (!required && !(strcmp(name, "counters") == 0 && !strncmp(key, "cgroup_", 7)))
		fail_msg("sample.schema.json: %s.%s is not required", name, key);
}

static void test_schema(void **state)
{
	char path[PATH_MAX];
	static char text[262144];
	cJSON *schema, *it;
	FILE *f;
	size_t n;

	(void)state;
	snprintf(path, sizeof(path), "%s/share/schema/sample.schema.json", top());
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	schema = cJSON_Parse(text);
	assert_non_null(schema);
	for (int m = 0; m < SM_COUNT; m++) {
		const struct sample_metric_def *d = &sample_metric_defs[m];
		const char *g = sampler_group_name(d->group);

		assert_in_schema(schema_group(schema, g), g, d->key);
	}
	for (int c = 0; c < SC_COUNT; c++)
		assert_in_schema(schema_group(schema, "counters"), "counters", sample_counter_defs[c].key);
	/* and the schema describes nothing the table lacks */
	for (int g = 0; g < SG_COUNT; g++) {
		cJSON *props = cJSON_GetObjectItem(schema_group(schema, sampler_group_name(g)), "properties");

		cJSON_ArrayForEach(it, props) {
			bool found = false;

			for (int m = 0; m < SM_COUNT; m++)
				found |= sample_metric_defs[m].group == (enum sample_group)g &&
					 !strcmp(sample_metric_defs[m].key, it->string);
			/* the cgroup's and the CPU's own leaves */
			found |= g == SG_CGROUP && (!strcmp(it->string, "path") || !strcmp(it->string, "version"));
			found |= g == SG_CPU && (!strcmp(it->string, "source") || !strcmp(it->string, "target") ||
						 !strcmp(it->string, "note"));
			if (!found)
				fail_msg("sample.schema.json: %s.%s is in no row", sampler_group_name(g), it->string);
		}
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(schema_group(schema, "counters"), "properties")) {
		bool found = false;

		for (int c = 0; c < SC_COUNT; c++)
			found |= !strcmp(sample_counter_defs[c].key, it->string);
		if (!found)
			fail_msg("sample.schema.json: counters.%s is in no row", it->string);
	}
	cJSON_Delete(schema);
}

static bool kv_lookup(const void *arg, const char *key, uint64_t *v)
{
	return kv_get(arg, key, v);
}

/* every row the sampler reads, or the probe counts per trial, from a captured table */
static void assert_rows_found(enum vocab_source src, const struct st_kvtab *t, bool v1,
			      const char *what)
{
	for (int v = 0; v < V_COUNT; v++) {
		const struct vocab_row *r = &vocab_rows[v];
		uint64_t x;

		if (r->source != src || !vocab_keys(r, v1)[0])
			continue;
		if (!vocab_value(r, v1, kv_lookup, t, &x))
			fail_msg("%s: no %s (%s): add it to tests/fixtures/sample-basic", what,
				 vocab_keys(r, v1)[0], r->name);
	}
}

static void test_fixture_has_every_key(void **state)
{
	struct host h;
	struct st_kvtab t;
	struct st_err e = { 0 };
	char root[PATH_MAX];

	(void)state;
	snprintf(root, sizeof(root), "%s/tests/fixtures/sample-basic", top());
	assert_int_equal(host_open(&h, root, &e), 0);
	kv_init(&t);
	assert_int_equal(host_read_vmstat(&h, &t, &e), 0);
	assert_rows_found(VSRC_VMSTAT, &t, false, "proc/vmstat");
	assert_int_equal(host_read_meminfo(&h, &t, &e), 0);
	assert_rows_found(VSRC_MEMINFO, &t, false, "proc/meminfo");
	assert_int_equal(host_read_zswap_stats(&h, &t, &e), 0);
	assert_rows_found(VSRC_ZSWAP, &t, false, "zswap debugfs");
	assert_int_equal(host_read_kv(&h, "sys/fs/cgroup/memory/swaptune-x/memory.stat", &t, false, &e), 0);
	assert_rows_found(VSRC_MEMCG, &t, true, "memory.stat (v1)");
	kv_free(&t);
	host_close(&h);
}

/* what the sampler reads of each source fits the host layer's kept-open reader */
static void test_keys_fit_the_readers(void **state)
{
	static const enum vocab_source kv[] = { VSRC_VMSTAT, VSRC_MEMINFO, VSRC_MEMCG, VSRC_ZSWAP };

	(void)state;
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		for (int v1 = 0; v1 < 2; v1++) {
			const char *seen[256];
			int n = 0;

			for (int v = 0; v < V_COUNT; v++) {
				const struct vocab_row *r = &vocab_rows[v];
				const char *const *lists[2] = { vocab_keys(r, v1), r->alt };

				if (r->source != kv[i])
					continue;
				for (int l = 0; l < 2; l++)
					for (int k = 0; k < VOCAB_TERMS && lists[l][k]; k++) {
						int j = 0;

						while (j < n && strcmp(seen[j], lists[l][k]))
							j++;
						if (j == n)
							seen[n++] = lists[l][k];
					}
			}
			assert_true(n <= HOST_KVFILE_KEYS);
		}
}

/* A list has each id once, every one a real id. */
static void assert_list(const char *what, const int *ids, int n, int count)
{
	for (int i = 0; i < n; i++) {
		if (ids[i] < 0 || ids[i] >= count)
			fail_msg("shown_%s[%d] is not an id", what, i);
		for (int j = 0; j < i; j++)
			if (ids[j] == ids[i])
				fail_msg("shown_%s names its %d twice", what, ids[i]);
	}
}

/* shown_<l>[] as ints, checked against the count of its ids */
#define LIST_OK(l, count) do {							\
	int ids_[SHOWN_N_##l];							\
	for (int i_ = 0; i_ < SHOWN_N_##l; i_++)				\
		ids_[i_] = (int)shown_##l[i_];					\
	assert_list(#l, ids_, SHOWN_N_##l, count);				\
} while (0)

/*
 * What the renderers show (the SHOWN lines of vocab-rows.h): each id once,
 * and what a renderer needs of a row it is given: the live table prints
 * six characters a column (a head of 1..5), probe's result table a head,
 * the report charts only what it compares.
 */
static void test_shown_lists(void **state)
{
	(void)state;
	/* every SHOWN line of vocab-rows.h, a new one too */
#define SHOWN_TICKS(list, ...) LIST_OK(list, SM_COUNT);
#define SHOWN_TRIALS(list, ...) LIST_OK(list, PM_COUNT);
#include "swaptune/vocab-rows.h"
#undef SHOWN_TICKS
#undef SHOWN_TRIALS
	for (int i = 0; i < SHOWN_N_sample_table; i++) {
		const char *h = sample_metric_defs[shown_sample_table[i]].head;

		if (!h || !*h || strlen(h) > 5)
			fail_msg("sample_table: %s has no head of 1..5 characters",
				 sample_metric_defs[shown_sample_table[i]].key);
	}
	for (int i = 0; i < SHOWN_N_probe_result; i++)
		if (!metric_defs[shown_probe_result[i]].head)
			fail_msg("probe_result: %s has no head", metric_defs[shown_probe_result[i]].key);
	for (int i = 0; i < SHOWN_N_report_charted; i++) {
		int found = 0;

		for (int j = 0; j < SHOWN_N_report_ticks; j++)
			found |= shown_report_ticks[j] == shown_report_charted[i];
		if (!found)
			fail_msg("report_charted: %s is not in report_ticks",
				 sample_metric_defs[shown_report_charted[i]].key);
	}
	/* a line of the live table (8 + 6 a column) stays within the 100 columns human output has */
	assert_true(8 + 6 * SHOWN_N_sample_table <= 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_trial_view),
		cmocka_unit_test(test_secondary_view),
		cmocka_unit_test(test_shown_lists),
		cmocka_unit_test(test_tick_and_counter_views),
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_fixture_has_every_key),
		cmocka_unit_test(test_keys_fit_the_readers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
