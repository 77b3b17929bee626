/*
 * test-change.c - the change workflow (src/change.c) on a private copy of
 * the vm-v1 fixture with a scratch store: the settings diff, apply (run,
 * snapshots, journal rows committed, boot-time files), rollback to the
 * snapshot before the apply in effect (settings and files back, then
 * nothing left to roll back), and --confirm-within without a live watchdog:
 * pending lookup, the guard refusing a second apply, confirm, revert, the
 * watchdog's expiry and settling runs whose rows crash repair undid.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "fixture-util.h"
#include "../../src/store-int.h"

#include "swaptune/change.h"
#include "swaptune/utc.h"

static char dir[PATH_MAX], dbpath[PATH_MAX + 16];
static struct host h;
static struct store st;

#define PC HOST_PAGE_CLUSTER

static int setup(void **state)
{
	(void)state;
	return fx_open_copy_with_store("vm-v1", dir, dbpath, &h, &st);
}

static int teardown(void **state)
{
	(void)state;
	fx_close_copy_with_store(dir, &h, &st);
	return 0;
}

static const char *file(const char *rel)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	return fx_read(dir, rel, buf[i], sizeof(buf[i]));
}

static long long query_int(const char *sql)
{
	sqlite3_stmt *stmt;
	long long v = -1;

	assert_int_equal(store_prepare(&st, sql, &stmt, NULL), 0);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return v;
}

static bool exists(const char *rel)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return access(path, F_OK) == 0;
}

/* The pid of a process that has exited and been reaped: a dead owner. */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void test_diff(void **state)
{
	struct change_setting c[4];
	struct st_err e = {0};
	struct advice_setting want[] = {
		{ "page-cluster", "3" }, { "zswap.enabled", "on" }, { "vm.page-cluster", "0" },
	};
	struct advice_setting bad_name[] = { { "swappiness", "10" } };
	struct advice_setting bad_value[] = { { "zswap.max_pool_percent", "101" } };
	struct advice_setting bad_comp[] = { { "zswap.compressor", "lz4" } };

	(void)state;
	assert_int_equal(change_diff(&h, want, 3, c, &e), 0);
	assert_string_equal(c[0].name, "page-cluster");
	assert_false(c[0].changed);		/* superseded by the later mention */
	assert_string_equal(c[1].new_value, "Y");
	assert_string_equal(c[1].old_value, "N");
	assert_true(c[1].changed);
	assert_string_equal(c[2].name, "page-cluster");
	assert_string_equal(c[2].sysctl, "vm.page-cluster");
	assert_string_equal(c[2].old_value, "3");
	assert_true(c[2].changed);
	{
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/%s", dir, HOST_PAGE_CLUSTER);
		assert_string_equal(c[2].path, path);
	}
	assert_int_equal(change_diff(&h, bad_name, 1, c, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown setting \"swappiness\""));
	err_reset(&e);
	assert_int_equal(change_diff(&h, bad_value, 1, c, &e), -EINVAL);
	assert_string_equal(e.msg, "zswap.max_pool_percent: \"101\" is not a number from 0 to 100");
	err_reset(&e);
	assert_int_equal(change_diff(&h, bad_comp, 1, c, &e), -EINVAL);
	assert_string_equal(e.msg, "zswap.compressor: \"lz4\" is not offered by this kernel"
			    " (available: lzo-rle lzo deflate)");
}

static void test_ask_and_root(void **state)
{
	struct st_err e = {0};
	cJSON *o;
	struct change_setting c = { .name = "page-cluster", .path = "/x", .old_value = "3",
				    .new_value = "0", .changed = true };
	char *text;

	(void)state;
	assert_int_equal(change_ask("do it", true, &e), 0);
	if (!isatty(STDIN_FILENO)) {
		assert_int_equal(change_ask("do it", false, &e), -EINVAL);
		assert_int_equal(e.exit, ST_EXIT_USAGE);
		assert_string_equal(e.msg, "not asking without a terminal: add --yes to do it");
	}
	/* a sysroot is never the live host: no root needed */
	assert_int_equal(change_need_root(&h, "apply", &e), 0);
	o = change_setting_json(&c);
	text = cJSON_PrintUnformatted(o);
	assert_string_equal(text, "{\"setting\":\"page-cluster\",\"file\":\"/x\",\"old\":\"3\",\"new\":\"0\"}");
	cJSON_free(text);
	cJSON_Delete(o);
}

/* page-cluster=0 (and, with plan, its boot-time files) as change_apply does it. */
static void apply_pc0(struct change_apply *a, struct change_setting *ch,
		      const struct persist_plan *plan, long long confirm_ns)
{
	struct advice_setting want[] = { { "page-cluster", "0" } };
	struct st_err e = {0};

	assert_int_equal(change_diff(&h, want, 1, ch, &e), 0);
	memset(a, 0, sizeof(*a));
	a->ch = ch;
	a->n = 1;
	a->plan = plan;
	a->source_run = 0;
	a->confirm_within_ns = confirm_ns;
	a->db_path = dbpath;
	if (change_apply(&st, &h, a, &e) < 0)
		fail_msg("change_apply: %s", e.msg);
}

static void test_apply_then_rollback(void **state)
{
	struct change_setting ch[1];
	struct change_apply a;
	struct change_rollback rb;
	struct persist_kv kv[] = { { "page-cluster", "0" } };
	struct persist_plan *plan = calloc(1, sizeof(*plan));
	struct st_err e = {0};
	int64_t rb_run = 0, snap_before = 0;
	char q[160];

	(void)state;
	assert_non_null(plan);
	assert_int_equal(persist_plan(&h, kv, 1, plan, &e), 0);
	apply_pc0(&a, ch, plan, 0);
	assert_string_equal(file(PC), "0");
	assert_true(a.run_id > 0 && a.snap_id > 0 && a.after_id > a.snap_id);
	assert_true(a.n_files >= 1);
	assert_string_equal(a.undo_warning, "");
	snprintf(q, sizeof(q), "SELECT count(*) FROM runs WHERE id = %lld AND kind = 'apply'"
		 " AND status = 'ok' AND json_extract(params, '$.persist') = 1", (long long)a.run_id);
	assert_int_equal(query_int(q), 1);
	snprintf(q, sizeof(q), "SELECT count(*) FROM changes WHERE run_id = %lld AND state = 'committed'"
		 " AND temporary = 0", (long long)a.run_id);
	assert_int_equal(query_int(q), query_int("SELECT count(*) FROM changes"));
	assert_true(exists(PERSIST_SYSCTL_FILE));

	assert_int_equal(change_rollback_plan(&st, &h, 0, &rb, &e), 0);
	assert_int_equal(rb.target.id, a.snap_id);
	assert_int_equal(rb.target.run_id, a.run_id);
	assert_string_equal(rb.target.reason, "before apply");
	assert_int_equal(rb.n_changed, 1);
	assert_true(rb.n_files >= 1);
	assert_true(change_rollback_needed(&rb));
	assert_int_equal(change_rollback_run(&st, &h, &rb, &rb_run, &snap_before, &e), 0);
	change_rollback_free(&rb);
	assert_string_equal(file(PC), "3");
	assert_false(exists(PERSIST_SYSCTL_FILE));
	snprintf(q, sizeof(q), "SELECT count(*) FROM snapshots WHERE run_id = %lld", (long long)rb_run);
	assert_int_equal(query_int(q), 2);	/* before and after the rollback */

	/* the apply is rolled back: nothing left to roll back by default */
	assert_int_equal(change_rollback_plan(&st, &h, 0, &rb, &e), -ENOENT);
	assert_int_equal(e.exit, ST_EXIT_RUNTIME);
	change_rollback_free(&rb);
	err_reset(&e);
	assert_int_equal(change_rollback_plan(&st, &h, 999, &rb, &e), -ENOENT);
	assert_int_equal(e.exit, ST_EXIT_USAGE);
	assert_string_equal(e.msg, "no snapshot 999 (see swaptune history)");
	change_rollback_free(&rb);
	/* --to the snapshot after the apply: page-cluster 0 again, nothing run yet */
	assert_int_equal(change_rollback_plan(&st, &h, a.after_id, &rb, &e), 0);
	assert_int_equal(rb.n_changed, 1);
	assert_string_equal(rb.ch[0].new_value, "0");
	change_rollback_free(&rb);
	free(plan);
}

/* A process that lives until killed: a watchdog still waiting. */
static pid_t live_pid(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

/*
 * An apply left awaiting confirmation, its rows owned by process owner
 * (started at owner_start ticks): dead_pid() for a watchdog gone.
 */
static int64_t awaiting_apply_of(struct change_setting *ch, pid_t owner, uint64_t owner_start)
{
	struct st_err e = {0};
	struct journal j;
	cJSON *params = cJSON_CreateObject();
	int moved = 0;

	cJSON_AddNumberToObject(params, "confirm_deadline_unix", (double)(long long)(utc_now() + 60));
	{
		struct advice_setting want[] = { { "page-cluster", "0" } };

		assert_int_equal(change_diff(&h, want, 1, ch, &e), 0);
	}
	{
		struct change_record rec;
		int64_t run;

		assert_int_equal(change_begin(&st, &h, "apply", params, &rec, &e), 0);
		run = rec.run_id;
		journal_begin(&j, &st, &h, run, &e);
		assert_int_equal(change_write(&j, ch, 1, NULL, NULL, &e), 0);
		assert_int_equal(store_run_end(&st, run, "awaiting-confirm", NULL, &e), 0);
		assert_int_equal(journal_transfer(&j, owner, owner_start, &moved, &e), 0);
		assert_int_equal(moved, 1);
		return run;
	}
}

/* An apply left awaiting confirmation, its rows owned by a process now gone. */
static int64_t awaiting_apply(struct change_setting *ch)
{
	return awaiting_apply_of(ch, dead_pid(), 1);
}

/* What change_log() would have sent to syslog. */
static char logged[1024];

static void log_capture(int priority, const char *line)
{
	(void)priority;
	snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged), "%s\n", line);
}

static void test_confirm(void **state)
{
	struct change_setting ch[1];
	struct change_pending p;
	struct change_confirmed c;
	struct st_err e = {0};
	/* its watchdog alive: the change lock's repair leaves its rows alone */
	pid_t wd = live_pid();
	int64_t run;
	int lockfd = -1;

	(void)state;
	for (int i = 0; i < 100 && !host_pid_start_ticks(wd); i++)
		usleep(10000);	/* the child's start time is in /proc once it runs */
	run = awaiting_apply_of(ch, wd, host_pid_start_ticks(wd));
	assert_string_equal(file(PC), "0");
	assert_int_equal(change_pending_confirm(&st, &h, &p, &e), 1);
	assert_int_equal(p.run_id, run);
	assert_int_equal(p.n_rows, 1);
	assert_true(p.deadline > utc_now());
	/* a second apply is refused while this one waits */
	assert_int_equal(change_lock(&st, &h,
					 &(struct change_guard){ .what = "apply", .db_path = dbpath,
								 .refuse_pending = true },
					 &lockfd, &e), -EBUSY);
	assert_int_equal(e.exit, ST_EXIT_DENIED);
	assert_int_equal(lockfd, -1);
	err_reset(&e);
	assert_int_equal(change_lock(&st, &h,
					 &(struct change_guard){ .what = "rollback", .db_path = dbpath },
					 &lockfd, &e), 0);
	assert_true(lockfd >= 0);
	change_unlock(lockfd);

	logged[0] = '\0';
	change_set_logger(log_capture);
	assert_int_equal(change_confirm(&st, &h, &c, &e), 0);
	change_set_logger(NULL);
	assert_non_null(strstr(logged, "confirmed: its settings stay"));
	assert_int_equal(c.run_id, run);
	assert_true(c.watchdog_stopped);	/* the stand-in, this binary like a watchdog, is stopped */
	assert_int_equal(c.n, 1);
	assert_string_equal(c.rows[0].kind, "setting");
	assert_string_equal(c.rows[0].name, "page-cluster");
	assert_string_equal(c.rows[0].old_value, "3");
	assert_string_equal(c.rows[0].new_value, "0");
	free(c.rows);
	assert_string_equal(file(PC), "0");
	assert_int_equal(change_pending_confirm(&st, &h, &p, &e), 0);
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE kind = 'apply' AND status = 'ok'"), 1);
	/* nothing waits any more */
	assert_int_equal(change_confirm(&st, &h, &c, &e), -ENOENT);
	assert_string_equal(e.msg, "nothing to confirm: no apply --confirm-within is waiting");
	free(c.rows);
	kill(wd, SIGKILL);
	waitpid(wd, NULL, 0);
}

static void test_revert_pending(void **state)
{
	struct change_setting ch[1];
	struct change_pending p;
	struct st_err e = {0};
	int64_t run = awaiting_apply(ch), rb_run = 0;
	int restored = -1;

	(void)state;
	assert_int_equal(change_pending_confirm(&st, &h, &p, &e), 1);
	logged[0] = '\0';
	change_set_logger(log_capture);
	assert_int_equal(change_revert_pending(&st, &h, &p, &rb_run, &restored, &e), 0);
	change_set_logger(NULL);
	assert_non_null(strstr(logged, "reverted before its confirmation: its previous settings are back"));
	assert_int_equal(restored, 1);
	assert_true(rb_run > run);
	assert_string_equal(file(PC), "3");
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE kind = 'apply' AND status = 'reverted'"), 1);
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE kind = 'rollback' AND status = 'ok'"), 1);
	assert_int_equal(change_pending_confirm(&st, &h, &p, &e), 0);
	{
		struct change_confirmed c;

		/* the last confirm-within apply went back: confirm says so */
		assert_int_equal(change_confirm(&st, &h, &c, &e), -ETIME);
		assert_non_null(strstr(e.msg, "was not confirmed in time"));
		free(c.rows);
	}
}

static void test_watchdog_expires(void **state)
{
	struct change_setting ch[1];
	struct change_pending p;
	struct st_err e = {0};
	int64_t run = awaiting_apply(ch);

	(void)state;
	assert_int_equal(change_pending_confirm(&st, &h, &p, &e), 1);
	/* a deadline in the past: the watchdog acts at once */
	logged[0] = '\0';
	change_set_logger(log_capture);
	assert_int_equal(change_watchdog(&st, &h, run, utc_now() - 1, p.session, &e), 0);
	change_set_logger(NULL);
	assert_non_null(strstr(logged, "not confirmed in time: its previous settings are back"));
	assert_string_equal(file(PC), "3");
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE kind = 'apply' AND status = 'reverted'"), 1);
	assert_int_equal(query_int("SELECT count(*) FROM snapshots WHERE reason = 'after confirm-within expired'"), 1);
	/* a second expiry finds nothing pending and changes nothing */
	assert_int_equal(change_watchdog(&st, &h, run, utc_now() - 1, p.session, &e), 0);
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE kind = 'rollback'"), 1);
}

static void test_settle(void **state)
{
	struct change_setting ch[1];
	struct st_err e = {0};

	(void)state;
	awaiting_apply(ch);
	/* crash repair undoes the rows of the dead watchdog */
	assert_int_equal(journal_repair(&st, &h, NULL, NULL, &e), 1);
	assert_string_equal(file(PC), "3");
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE status = 'awaiting-confirm'"), 1);
	assert_int_equal(change_settle_confirms(&st, &e), 0);
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE status = 'awaiting-confirm'"), 0);
	assert_int_equal(query_int("SELECT count(*) FROM runs WHERE status = 'reverted'"
				   " AND ended_at IS NOT NULL"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ask_and_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_then_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_confirm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settle, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
