/*
 * test-store-ticks.c - the samples writer and reader (src/store-samples.c)
 * and the reading half of the codec of older stores (src/store-ticks.c):
 * ticks that are no current sample tick kept as JSON rows, structures that
 * change in the middle of a recording, JSON rows of older stores, shapes
 * the codec refuses and damaged rows.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/store-int.h"
#include "swaptune/store.h"

static char dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-store-ticks.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* What is no shape: the conversion refuses its recording ("shape N is not a tick"). */
static void test_not_taken(void **state)
{
	static const char *const bad[] = {
		"", "not json", "{\"a\":1", "{\"a\":01}", "{\"a\":1.}", "{\"a\":tru}",
		"{\"a\":\"unterminated}", "{\"a\":\"esc\\\"}", "{\"a\":1} trailing", "\"a string\"", "{\"a\" 1}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tick_shape sh;

		assert_int_equal(tick_shape_make(&sh, 1, bad[i], strlen(bad[i])), -EBADMSG);
	}
}

static void test_damaged_vals(void **state)
{
	struct tick_shape sh;
	struct tick_val v[4];
	static const uint8_t truncated[] = { TICK_SAME, (5 << 3) | TICK_STR, 'a' };
	static const uint8_t extra[] = { TICK_SAME, TICK_SAME, TICK_SAME };
	static const uint8_t bad_tag[] = { TICK_SAME, 7 };

	(void)state;
	assert_int_equal(tick_shape_make(&sh, 1, "{\"a\":1,\"b\":\"x\"}", 15), 0);
	assert_int_equal(sh.n, 2);
	assert_int_equal(tick_decode(&sh, truncated, sizeof(truncated), v), -EBADMSG);
	assert_int_equal(tick_decode(&sh, extra, sizeof(extra), v), -EBADMSG);
	assert_int_equal(tick_decode(&sh, bad_tag, sizeof(bad_tag), v), -EBADMSG);
	tick_shape_free(&sh, true);
}

/* ---- through the store ---- */

struct got {
	int n;
	char json[8][512];
	unsigned shape[8];
	double zsin[8];
	bool has_zsin[8];
	char path[8][64];
};

static int collect(const struct store_tick *t, void *arg)
{
	struct got *g = arg;
	size_t len;
	const char *json = store_tick_json(t, &len);

	if (!json)
		return -EBADMSG;	/* damaged: the read says so */
	assert_true(g->n < 8 && len < sizeof(g->json[0]));
	memcpy(g->json[g->n], json, len);
	g->json[g->n][len] = '\0';
	g->shape[g->n] = t->shape;
	g->has_zsin[g->n] = store_tick_number(t, store_tick_slot(t, "vmstat", "zswpin"),
					       &g->zsin[g->n]);
	if (store_tick_string(t, store_tick_slot(t, "cgroup", "path"), g->path[g->n],
			      sizeof(g->path[0])) < 0)
		snprintf(g->path[g->n], sizeof(g->path[0]), "-");
	g->n++;
	return 0;
}

static void open_store(struct store *st, const char *name)
{
	char db[PATH_MAX + 16];
	struct st_err e = { 0 };

	snprintf(db, sizeof(db), "%s/%s", dir, name);
	assert_int_equal(store_open(st, db, &e), 0);
}

static int64_t count(struct store *st, const char *sql)
{
	sqlite3_stmt *s;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/*
 * A file that appears late, and goes again: a new structure, then the old
 * one; ticks that are not current sample ticks are stored as JSON rows.
 */
static void test_shape_change_mid_recording(void **state)
{
	static const char *const ticks[] = {
		"{\"seq\":1,\"vmstat\":{\"zswpin\":10.5},\"cgroup\":{\"path\":\"a\\\\b\"}}",
		"{\"seq\":2,\"vmstat\":{\"zswpin\":11},\"cgroup\":{\"path\":\"a\\\\b\"}}",
		"{\"seq\":3,\"vmstat\":{\"zswpin\":12,\"late\":1},\"cgroup\":{\"path\":\"c\"}}",
		"{\"seq\":4,\"vmstat\":{\"zswpin\":null},\"cgroup\":{\"path\":\"a\\\\b\"}}",
		"not JSON at all",
		"{\"seq\":6,\"vmstat\":{\"zswpin\":1e3},\"cgroup\":{\"path\":\"a\\\\b\"}}",
	};
	struct sample_recording rec;
	struct st_err e = { 0 };
	struct got g = { 0 };
	struct store st;

	(void)state;
	open_store(&st, "shapes.db");
	assert_int_equal(store_samples_begin(&rec, &st, NULL, &e), 0);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(store_samples_add_json(&rec, i + 1, (i + 1) * 1000, ticks[i], &e), 0);
	assert_int_equal(store_samples_end(&rec, "ok", NULL, &e), 0);
	/* none is a current sample tick: each is a JSON row, its text as given, no shape */
	assert_int_equal(count(&st, "SELECT count(*) FROM sample_shapes"), 0);
	assert_int_equal(count(&st, "SELECT count(*) FROM samples WHERE shape_id IS NULL"
			       " AND vals IS NULL"), 6);
	for (size_t i = 0; i < 6; i++) {
		char sql[160];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM samples WHERE seq = %zu AND data = '%s'",
			 i + 1, ticks[i]);
		assert_int_equal(count(&st, sql), 1);
	}

	assert_int_equal(store_samples_read(&st, rec.run_id, collect, &g, &e), 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(g.json[i], ticks[i]);
	assert_true(g.shape[0] == g.shape[1] && g.shape[1] == g.shape[3] && g.shape[3] == g.shape[5]);
	assert_true(g.shape[2] != g.shape[0] && g.shape[2] != 0);
	assert_int_equal(g.shape[4], 0);	/* not JSON */
	assert_true(g.has_zsin[0] && g.zsin[0] == 10.5);
	assert_true(g.has_zsin[1] && g.zsin[1] == 11);
	assert_true(g.has_zsin[2] && g.zsin[2] == 12);
	assert_false(g.has_zsin[3]);	/* null */
	assert_false(g.has_zsin[4]);	/* no such leaf */
	assert_true(g.has_zsin[5] && g.zsin[5] == 1000);
	assert_string_equal(g.path[0], "a\\b");	/* unescaped */
	assert_string_equal(g.path[2], "c");
	assert_string_equal(g.path[4], "-");
	store_close(&st);
}

/* Rows of a store older than schema 4: the JSON in data, read the same way. */
static void test_json_rows_of_older_stores(void **state)
{
	struct st_err e = { 0 };
	struct got g = { 0 };
	struct store st;
	int64_t run;

	(void)state;
	open_store(&st, "old.db");
	assert_int_equal(store_run_begin(&st, "sample", NULL, &run, &e), 0);
	assert_int_equal(sqlite3_exec(st.db,
		"INSERT INTO samples (run_id, seq, t_ns, data) VALUES"
		" (1, 1, 10, '{\"seq\":1, \"vmstat\" : {\"zswpin\":0.1}}'),"
		" (1, 2, 20, '{\"seq\":2, \"vmstat\" : {\"zswpin\":3}}'),"
		" (1, 3, 30, '{\"vmstat\":{\"zswpin\":4},\"cgroup\":{\"path\":\"p\"}}')",
		NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_samples_read(&st, run, collect, &g, &e), 3);
	assert_string_equal(g.json[0], "{\"seq\":1, \"vmstat\" : {\"zswpin\":0.1}}");
	assert_string_equal(g.json[2], "{\"vmstat\":{\"zswpin\":4},\"cgroup\":{\"path\":\"p\"}}");
	assert_true(g.shape[0] == g.shape[1] && g.shape[2] != g.shape[0]);
	assert_true(g.has_zsin[0] && g.zsin[0] == 0.1);
	assert_true(g.has_zsin[1] && g.zsin[1] == 3);
	assert_true(g.has_zsin[2] && g.zsin[2] == 4);
	assert_string_equal(g.path[2], "p");

	/* a row that is not JSON, and a compact row whose vals are damaged */
	assert_int_equal(sqlite3_exec(st.db, "INSERT INTO samples (run_id, seq, t_ns, data) VALUES"
				      " (1, 4, 40, 'garbage')", NULL, NULL, NULL), SQLITE_OK);
	memset(&g, 0, sizeof(g));
	assert_int_equal(store_samples_read(&st, run, collect, &g, &e), 4);
	assert_string_equal(g.json[3], "garbage");
	assert_int_equal(g.shape[3], 0);	/* no leaves */
	assert_false(g.has_zsin[3]);
	assert_int_equal(sqlite3_exec(st.db,
		"DELETE FROM samples WHERE seq = 4;"
		"INSERT INTO sample_shapes (id, run_id, tick) VALUES (7, 1, '{\"a\":1}');"
		"INSERT INTO samples (run_id, seq, t_ns, data, shape_id, vals) VALUES"
		" (1, 5, 50, '', 7, x'0000')", NULL, NULL, NULL), SQLITE_OK);
	memset(&g, 0, sizeof(g));
	assert_int_equal(store_samples_read(&st, run, collect, &g, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "tick 5 is damaged"));
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_taken),
		cmocka_unit_test(test_damaged_vals),
		cmocka_unit_test(test_shape_change_mid_recording),
		cmocka_unit_test(test_json_rows_of_older_stores),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
