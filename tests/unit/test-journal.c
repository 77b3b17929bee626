/*
 * test-journal.c - the change journal (src/journal.c) on a private copy of
 * the vm-v1 fixture: temporary changes restored by their session, permanent
 * ones committed, and crash repair of rows whose owner process is gone
 * (exited or killed and not yet reaped), including a setting someone else
 * changed since (left alone, reported) and resource rows (the registered
 * undo handler is called). "Crashed" owners are forked children that
 * journal and then _exit() or are killed without restoring anything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>

#include "fixture-util.h"
#include "../../src/store-int.h"

#include "swaptune/journal.h"

static char dir[PATH_MAX], dbpath[PATH_MAX + 16];
static struct host h;
static struct store st;

#define PC HOST_PAGE_CLUSTER
#define ZS HOST_ZSWAP_PARAMS "/enabled"

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
	static char buf[4][64];
	static int i;

	i = (i + 1) % 4;
	return fx_read(dir, rel, buf[i], sizeof(buf[i]));
}

static long long count_rows(const char *where)
{
	char sql[256];
	sqlite3_stmt *stmt;
	long long n = -1;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM changes WHERE %s", where);
	assert_int_equal(store_prepare(&st, sql, &stmt, NULL), 0);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

/* ---- a crashed owner: a child journals through its own store connection ---- */

typedef int (*child_fn)(struct journal *j);

/*
 * Run fn in a child with its own host, store and journal session. With
 * hold, the child waits to be killed (SIGKILL) after fn and is left a zombie
 * (not reaped) for the caller to reap with reap(); else it _exit()s. The
 * child's pid goes to *pid.
 */
static void run_owner(child_fn fn, bool hold, pid_t *pid)
{
	int fds[2];
	char c;
	pid_t p;

	assert_int_equal(pipe(fds), 0);
	store_close(&st);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct st_err e = {0};
		struct store cst;
		struct journal j;
		struct host ch;
		int r;

		close(fds[0]);
		if (host_open(&ch, dir, &e) < 0 || store_open(&cst, dbpath, &e) < 0 ||
		    journal_begin(&j, &cst, &ch, 0, &e) < 0)
			_exit(10);
		r = fn(&j);
		store_close(&cst);
		if (write(fds[1], r == 0 ? "k" : "f", 1) != 1)
			_exit(11);
		if (hold)
			for (;;)
				pause();
		_exit(r == 0 ? 0 : 12);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(c, 'k');
	if (hold) {
		assert_int_equal(kill(p, SIGKILL), 0);
	} else {
		int status;

		assert_int_equal(waitpid(p, &status, 0), p);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	*pid = p;
	{
		struct st_err e = {0};

		assert_int_equal(store_open(&st, dbpath, &e), 0);
	}
}

static void reap(pid_t p)
{
	int status;

	assert_int_equal(waitpid(p, &status, 0), p);
}

struct reports {
	int n;
	char lines[8][700];
};

static void collect(const char *line, void *arg)
{
	struct reports *r = arg;

	if (r->n < 8)
		snprintf(r->lines[r->n], sizeof(r->lines[0]), "%s", line);
	r->n++;
}

static int set_pc0_zsY(struct journal *j)
{
	if (journal_set(j, "page-cluster", "0", true, NULL, NULL) < 0)
		return -1;
	return journal_set(j, "zswap.enabled", "on", true, NULL, NULL);
}

static int set_pc0(struct journal *j)
{
	return journal_set(j, "page-cluster", "0", true, NULL, NULL);
}

/* ---- restore within a session ---- */

static void test_temporary_restore(void **state)
{
	struct st_err e = {0};
	struct journal j;
	struct setting_value old;
	int restored;

	(void)state;
	assert_int_equal(journal_begin(&j, &st, &h, 0, &e), 0);
	assert_int_equal(j.pid, getpid());
	assert_int_equal(journal_set(&j, "page-cluster", "0", true, &old, &e), 0);
	assert_string_equal(old.value, "3");
	assert_string_equal(file(PC), "0");
	assert_int_equal(journal_set(&j, "zswap.enabled", "on", true, NULL, &e), 0);
	assert_string_equal(file(ZS), "Y");
	assert_int_equal(count_rows("state = 'pending' AND temporary = 1 AND kind = 'setting'"), 2);
	assert_int_equal(count_rows("name = 'page-cluster' AND old_value = '3' AND new_value = '0'"), 1);
	/* rows name the sysroot they belong to */
	{
		char where[PATH_MAX + 32];

		snprintf(where, sizeof(where), "sysroot = '%s'", h.root);
		assert_int_equal(count_rows(where), 2);
	}
	/* a second change of the same setting, restored newest first */
	old.present = false;
	assert_int_equal(journal_set(&j, "vm.page-cluster", "1", true, &old, &e), 0);
	assert_string_equal(old.value, "0");
	/* the setting as it was, under its registry name */
	assert_string_equal(old.name, "page-cluster");
	assert_true(old.present);
	assert_string_equal(file(PC), "1");

	assert_int_equal(journal_restore(&j, &restored, &e), 0);
	assert_int_equal(restored, 3);
	assert_string_equal(file(PC), "3");
	assert_string_equal(file(ZS), "N");
	assert_int_equal(count_rows("state = 'restored' AND finished_at IS NOT NULL"), 3);
	assert_int_equal(count_rows("state = 'pending'"), 0);
	/* nothing left to do */
	assert_int_equal(journal_restore(&j, &restored, &e), 0);
	assert_int_equal(restored, 0);
}

static void test_no_change_no_row(void **state)
{
	struct st_err e = {0};
	struct journal j;
	struct setting_value old;

	(void)state;
	assert_int_equal(journal_begin(&j, &st, &h, 0, &e), 0);
	assert_int_equal(journal_set(&j, "page-cluster", "3", true, &old, &e), 0);
	assert_string_equal(old.value, "3");
	assert_int_equal(journal_set(&j, "zswap.enabled", "off", true, NULL, &e), 0);
	assert_int_equal(journal_set(&j, "vm.page-cluster", "03", false, NULL, &e), 0);
	assert_int_equal(count_rows("1"), 0);

	/* bad values and names: refused before any row or write */
	assert_int_equal(journal_set(&j, "page-cluster", "40", true, NULL, &e), -EINVAL);
	assert_string_equal(e.msg, "page-cluster: \"40\" is not a number from 0 to 31");
	err_reset(&e);
	assert_int_equal(journal_set(&j, "readahead", "0", true, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown setting \"readahead\""));
	err_reset(&e);
	assert_int_equal(journal_set(&j, "zswap.compressor", "zstd", true, NULL, &e), -EINVAL);
	err_reset(&e);
	assert_int_equal(count_rows("1"), 0);
	assert_string_equal(file(PC), "3");
	assert_string_equal(file(HOST_ZSWAP_PARAMS "/compressor"), "lzo");
}

static void test_permanent(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	struct journal j;
	int restored;

	(void)state;
	assert_int_equal(journal_begin(&j, &st, &h, 0, &e), 0);
	assert_int_equal(journal_set(&j, "page-cluster", "1", false, NULL, &e), 0);
	assert_string_equal(file(PC), "1");
	assert_int_equal(count_rows("state = 'committed' AND temporary = 0 AND new_value = '1'"), 1);
	assert_int_equal(journal_restore(&j, &restored, &e), 0);
	assert_int_equal(restored, 0);
	assert_string_equal(file(PC), "1");
	/* and repair leaves it too, even though the process will be gone */
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 0);
	assert_int_equal(rep.n, 0);
	assert_string_equal(file(PC), "1");
}

/* ---- crash repair ---- */

static void test_repair_dead_owner(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	char want[700];
	pid_t pid;

	(void)state;
	run_owner(set_pc0_zsY, false, &pid);
	assert_string_equal(file(PC), "0");
	assert_string_equal(file(ZS), "Y");
	assert_int_equal(count_rows("state = 'pending'"), 2);

	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 2);
	assert_string_equal(file(PC), "3");
	assert_string_equal(file(ZS), "N");
	assert_int_equal(rep.n, 2);
	snprintf(want, sizeof(want),
		 "restored zswap.enabled Y -> N (left by swaptune pid %d, which did not finish)", (int)pid);
	assert_string_equal(rep.lines[0], want);
	snprintf(want, sizeof(want),
		 "restored page-cluster 0 -> 3 (left by swaptune pid %d, which did not finish)", (int)pid);
	assert_string_equal(rep.lines[1], want);
	assert_int_equal(count_rows("state = 'restored'"), 2);

	/* repaired once only */
	rep.n = 0;
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 0);
	assert_int_equal(rep.n, 0);
}

static void test_repair_zombie_owner(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	pid_t pid;

	(void)state;
	/* killed, not reaped yet: its /proc entry is still there */
	run_owner(set_pc0, true, &pid);
	for (int i = 0; i < 1000; i++) {
		char path[64], buf[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		if (strstr(buf, ") Z "))
			break;
		usleep(1000);
	}
	assert_string_equal(file(PC), "0");
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 1);
	assert_string_equal(file(PC), "3");
	assert_int_equal(rep.n, 1);
	reap(pid);
}

static void test_repair_live_owner(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	struct journal j;
	int restored;

	(void)state;
	/* this process owns the rows and is alive: repair must not touch them */
	assert_int_equal(journal_begin(&j, &st, &h, 0, &e), 0);
	assert_int_equal(journal_set(&j, "page-cluster", "0", true, NULL, &e), 0);
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 0);
	assert_int_equal(rep.n, 0);
	assert_string_equal(file(PC), "0");
	assert_int_equal(count_rows("state = 'pending'"), 1);
	assert_int_equal(journal_restore(&j, &restored, &e), 0);
	assert_int_equal(restored, 1);
	assert_string_equal(file(PC), "3");
}

static void test_repair_changed_since(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	char want[700];
	pid_t pid;

	(void)state;
	/* someone else set page-cluster to 1 after the crash: theirs wins */
	run_owner(set_pc0, false, &pid);
	fx_write(dir, PC, "1\n");
	assert_true(journal_repair(&st, &h, collect, &rep, &e) >= 0);
	assert_string_equal(file(PC), "1");
	assert_int_equal(rep.n, 1);
	snprintf(want, sizeof(want),
		 "left page-cluster at 1: changed by someone else since swaptune set 0 (was 3)"
		 " (left by swaptune pid %d, which did not finish)", (int)pid);
	assert_string_equal(rep.lines[0], want);
	assert_int_equal(count_rows("state = 'superseded' AND note LIKE 'left page-cluster at 1%'"), 1);
	assert_int_equal(count_rows("state = 'pending'"), 0);

	/* already put back by hand: nothing to write, the row is closed */
	rep.n = 0;
	run_owner(set_pc0, false, &pid);	/* old value 1 this time */
	assert_int_equal(count_rows("state = 'pending' AND old_value = '1'"), 1);
	fx_write(dir, PC, "1\n");
	/* reported, but not counted as undone: nothing was written */
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 0);
	assert_int_equal(rep.n, 1);
	assert_non_null(strstr(rep.lines[0], "page-cluster is 1 as before"));
	assert_int_equal(count_rows("state = 'pending'"), 0);
}

static struct {
	int calls;
	char ident[64], detail[64];
	bool detail_null;
	int fail_with;
} undo_seen;

static int test_undo(const struct host *uh, const char *ident, const char *detail,
		     struct st_err *e)
{
	(void)uh;
	undo_seen.calls++;
	snprintf(undo_seen.ident, sizeof(undo_seen.ident), "%s", ident);
	undo_seen.detail_null = detail == NULL;
	snprintf(undo_seen.detail, sizeof(undo_seen.detail), "%s", detail ? detail : "");
	if (undo_seen.fail_with)
		return err_set(e, undo_seen.fail_with, "cannot remove %s: busy", ident);
	return 0;
}

static int note_resources(struct journal *j)
{
	if (journal_note_resource(j, "test-res", "thing-1", "detail-1", NULL) < 0 ||
	    journal_note_resource(j, "test-res", "thing-2", NULL, NULL) < 0)
		return -1;
	/* thing-2 was removed by its owner: it must not be undone again */
	return journal_resource_done(j, "test-res", "thing-2", NULL);
}

static int note_unknown_kind(struct journal *j)
{
	return journal_note_resource(j, "no-such-kind", "x", NULL, NULL);
}

static void test_repair_resources(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	char want[700];
	pid_t pid;

	(void)state;
	memset(&undo_seen, 0, sizeof(undo_seen));
	assert_int_equal(journal_register_undo("test-res", test_undo), 0);
	run_owner(note_resources, false, &pid);
	assert_int_equal(count_rows("kind = 'test-res' AND state = 'pending'"), 1);
	assert_int_equal(count_rows("kind = 'test-res' AND state = 'restored'"), 1);

	/* a failing handler: reported, the row stays pending for the next run */
	undo_seen.fail_with = -EBUSY;
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), -EBUSY);
	assert_string_equal(e.msg, "cannot remove thing-1: busy");
	assert_int_equal(undo_seen.calls, 1);
	assert_int_equal(rep.n, 1);
	assert_non_null(strstr(rep.lines[0], "failed to remove test-res thing-1"));
	assert_int_equal(count_rows("kind = 'test-res' AND state = 'pending'"), 1);

	err_reset(&e);
	rep.n = 0;
	undo_seen.fail_with = 0;
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 1);
	assert_int_equal(undo_seen.calls, 2);
	assert_string_equal(undo_seen.ident, "thing-1");
	assert_string_equal(undo_seen.detail, "detail-1");
	assert_false(undo_seen.detail_null);
	snprintf(want, sizeof(want),
		 "removed test-res thing-1 (left by swaptune pid %d, which did not finish)", (int)pid);
	assert_int_equal(rep.n, 1);
	assert_string_equal(rep.lines[0], want);
	assert_int_equal(count_rows("kind = 'test-res' AND state = 'pending'"), 0);

	/* a kind no module handles: reported as such, never silently dropped */
	err_reset(&e);
	rep.n = 0;
	run_owner(note_unknown_kind, false, &pid);
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), -ENOSYS);
	assert_non_null(strstr(rep.lines[0], "cannot undo no-such-kind x: no handler in this build"));
	assert_int_equal(count_rows("kind = 'no-such-kind' AND state = 'pending'"), 1);
}

static void test_repair_other_sysroot(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	struct host other;
	char odir[PATH_MAX];
	pid_t pid;

	(void)state;
	run_owner(set_pc0, false, &pid);
	/* a repair for another tree does not touch this tree's rows */
	fx_copy("vm-v1", odir);
	fx_host(&other, odir);
	assert_int_equal(journal_repair(&st, &other, collect, &rep, &e), 0);
	assert_int_equal(rep.n, 0);
	assert_string_equal(file(PC), "0");
	assert_int_equal(count_rows("state = 'pending'"), 1);
	host_close(&other);
	fx_remove(odir);
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 1);
	assert_string_equal(file(PC), "3");
}

/* craft DEAD pending rows: n of them, values and machine given (NULL: none) */
static void craft_rows(int n, const char *name, const char *old, const char *mid)
{
	char sql[1024];
	struct st_err e = {0};

	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"
		 " INSERT INTO changes (session, pid, pid_start, sysroot, kind, name, old_value,"
		 " new_value, temporary, state, machine_id) SELECT 'crafted', 999999999, 1, '%s',"
		 " 'setting', '%s', '%s', '0', 1, 'pending', %s%s%s FROM k", n, h.root, name, old,
		 mid ? "'" : "", mid ? mid : "NULL", mid ? "'" : "");
	if (store_exec(&st, sql, &e) < 0)
		fail_msg("craft: %s", e.msg);
}

/* A stored old value the registry refuses is never written: the row is refused. */
static void test_repair_refuses_values(void **state)
{
	struct st_err e = {0};
	struct reports rep = {0};
	char mid[64];

	(void)state;
	host_read_machine_id(&h, mid, sizeof(mid));
	fx_write(dir, PC, "0\n");
	craft_rows(1, "page-cluster", "banana", mid);
	craft_rows(1, "page-cluster", "99", mid);
	craft_rows(1, "no-such-setting", "1", mid);
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 0);
	assert_string_equal(file(PC), "0");
	assert_int_equal(count_rows("state = 'refused'"), 3);
	assert_int_equal(rep.n, 3);
	assert_non_null(strstr(rep.lines[0], "warning: refused to undo setting"));
	/* rows naming no machine: reported, never acted on */
	rep.n = 0;
	craft_rows(2, "page-cluster", "3", NULL);
	craft_rows(1, "page-cluster", "3", "");
	assert_int_equal(journal_repair(&st, &h, collect, &rep, &e), 0);
	assert_string_equal(file(PC), "0");
	assert_int_equal(rep.n, 1);
	assert_non_null(strstr(rep.lines[0], "holds 3 pending changes that name no machine"));
	assert_int_equal(count_rows("state = 'pending'"), 3);
}

static void note_more(const char *line, void *arg)
{
	if (strstr(line, "holds 500 more pending changes than one command repairs"))
		(*(int *)arg)++;
}

/* A huge journal is repaired a bounded number of rows per call; the next goes on. */
static void test_repair_budget(void **state)
{
	struct st_err e = {0};
	char mid[64];
	int more = 0;

	(void)state;
	host_read_machine_id(&h, mid, sizeof(mid));
	craft_rows(JOURNAL_REPAIR_BUDGET + 500, "page-cluster", "3", mid);
	/* page-cluster is 3 in the tree: each row is "as before" */
	assert_int_equal(journal_repair(&st, &h, note_more, &more, &e), 0);
	assert_int_equal(count_rows("state = 'pending'"), 500);
	assert_int_equal(more, 1);
	assert_int_equal(journal_repair(&st, &h, NULL, NULL, &e), 0);
	assert_int_equal(count_rows("state = 'pending'"), 0);
	assert_int_equal(count_rows("state = 'restored'"), JOURNAL_REPAIR_BUDGET + 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_temporary_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_change_no_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_permanent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_dead_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_zombie_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_live_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_changed_since, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_resources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_other_sysroot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_refuses_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_budget, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
