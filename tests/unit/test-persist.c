/*
 * test-persist.c - swaptune's boot-time files (src/persist.c) on private
 * copies of the vm-v1 fixture: the exact content planned for a table of
 * settings (merged with what swaptune's own files hold), module options only
 * for modular zswap, the administrator's values found in sysctl.d,
 * sysctl.conf, modprobe.d and the kernel command line with who wins at boot,
 * writing through the journal and undoing it, and the boot.conf parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "../../src/store-int.h"

#include "swaptune/journal.h"
#include "swaptune/persist.h"
#include "swaptune/undo.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define HDR "# written by swaptune apply --persist: do not edit, `swaptune rollback` takes it back\n"
#define BOOT_HDR HDR "# applied at boot by swaptune-boot.service (swaptune apply --yes --from /etc/swaptune/boot.conf)\n"

enum { F_SYSCTL, F_BOOT, F_MODPROBE };

struct pre_file {
	const char *rel, *text;
};

struct plan_case {
	const char *name;
	struct pre_file pre[6];		/* files in the root before */
	bool modular;			/* zswap is a module (initstate exists) */
	struct persist_kv set[4];
	int n;
	/* expected: NULL = no change to that file */
	const char *content[3];
	bool remove[3];
	const char *hint;
	int n_notes;
};

static const struct plan_case plan_cases[] = {
	{ "page-cluster alone: one sysctl.d file",
	  .set = { { "page-cluster", "0" } }, .n = 1,
	  .content = { HDR "vm.page-cluster = 0\n", NULL, NULL },
	  .hint = "", .n_notes = 0 },
	{ "sysctl spelling and zswap on a built-in zswap: boot.conf, no module options, a cmdline hint",
	  .set = { { "vm.page-cluster", "1" }, { "zswap.enabled", "Y" }, { "zswap.compressor", "lzo" } }, .n = 3,
	  .content = { HDR "vm.page-cluster = 1\n", BOOT_HDR "zswap.enabled=Y\nzswap.compressor=lzo\n", NULL },
	  .hint = "zswap.enabled=1 zswap.compressor=lzo", .n_notes = 2 },
	{ "modular zswap: module options as well",
	  .modular = true,
	  .set = { { "zswap.enabled", "N" }, { "zswap.max_pool_percent", "10" } }, .n = 2,
	  .content = { NULL, BOOT_HDR "zswap.enabled=N\nzswap.max_pool_percent=10\n",
		       HDR "options zswap enabled=N max_pool_percent=10\n" },
	  .hint = "zswap.enabled=0 zswap.max_pool_percent=10", .n_notes = 2 },
	{ "vma_ra goes to boot.conf (it is no sysctl)",
	  .set = { { "vma_ra_enabled", "false" } }, .n = 1,
	  .content = { NULL, BOOT_HDR "vma_ra_enabled=false\n", NULL },
	  .hint = "", .n_notes = 1 },
	{ "merged with swaptune's own files: the new value wins, the rest stays",
	  .pre = { { PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 0\n" },
		   { PERSIST_BOOT_FILE, BOOT_HDR "zswap.enabled=Y\nzswap.compressor=lzo\n" } },
	  .set = { { "zswap.compressor", "deflate" } }, .n = 1,
	  .content = { NULL, BOOT_HDR "zswap.enabled=Y\nzswap.compressor=deflate\n", NULL },
	  .hint = "zswap.enabled=1 zswap.compressor=deflate", .n_notes = 2 },
	{ "already persisted: nothing changes",
	  .pre = { { PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 0\n" } },
	  .set = { { "page-cluster", "0" } }, .n = 1,
	  .content = { NULL, NULL, NULL }, .hint = "", .n_notes = 0 },
	{ "a changed value rewrites the file",
	  .pre = { { PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 0\n" } },
	  .set = { { "page-cluster", "3" } }, .n = 1,
	  .content = { HDR "vm.page-cluster = 3\n", NULL, NULL }, .hint = "", .n_notes = 0 },
};

static void make_root(char *dir, const struct plan_case *c)
{
	fx_copy("vm-v1", dir);
	for (size_t i = 0; i < ARRAY_SIZE(c->pre) && c->pre[i].rel; i++)
		fx_write(dir, c->pre[i].rel, c->pre[i].text);
	if (c->modular)
		fx_write(dir, HOST_ZSWAP_INITSTATE, "live\n");
}

static void test_plan_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(plan_cases); k++) {
		const struct plan_case *c = &plan_cases[k];
		struct persist_plan *p = calloc(1, sizeof(*p));
		struct st_err e = {0};
		char dir[PATH_MAX];
		struct host h;
		int r;

		make_root(dir, c);
		fx_host(&h, dir);
		r = persist_plan(&h, c->set, c->n, p, &e);
		if (r != 0)
			fail_msg("%s: persist_plan: %d %s", c->name, r, e.msg);
		assert_int_equal(p->n_files, 3);
		assert_int_equal(p->zswap_builtin, !c->modular);
		for (int f = 0; f < 3; f++) {
			if (!c->content[f]) {
				if (p->files[f].changed)
					fail_msg("%s: file %s changes, expected not: \"%s\"", c->name,
						 p->files[f].rel, p->files[f].content);
				continue;
			}
			if (!p->files[f].changed)
				fail_msg("%s: file %s does not change", c->name, p->files[f].rel);
			assert_string_equal(p->files[f].content, c->content[f]);
			assert_false(p->files[f].remove);
		}
		if (strcmp(p->cmdline_hint, c->hint))
			fail_msg("%s: hint \"%s\", want \"%s\"", c->name, p->cmdline_hint, c->hint);
		if (p->n_notes != c->n_notes)
			fail_msg("%s: %d notes, want %d (first: %s)", c->name, p->n_notes, c->n_notes,
				 p->n_notes ? p->notes[0] : "");
		assert_int_equal(p->n_conflicts, 0);
		host_close(&h);
		fx_remove(dir);
		free(p);
	}
}

static void test_plan_notes_text(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "zswap.enabled", "Y" } };
	struct st_err e = {0};
	char dir[PATH_MAX];
	struct host h;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	assert_int_equal(persist_plan(&h, set, 1, p, &e), 0);
	assert_int_equal(p->n_notes, 2);
	assert_non_null(strstr(p->notes[0], "swaptune-boot.service"));
	assert_string_equal(p->notes[1],
		"zswap is built into this kernel, so modprobe.d options do not apply (no "
		"/sys/module/zswap/initstate); for the value from the first moment of boot add to"
		" the kernel command line: zswap.enabled=1");
	host_close(&h);
	fx_remove(dir);
	free(p);
}

static void test_plan_unknown_setting(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "swap", "zram" } };
	struct st_err e = {0};
	struct host h;

	(void)state;
	fx_host(&h, "vm-v1");
	assert_int_equal(persist_plan(&h, set, 1, p, &e), -EINVAL);
	assert_string_equal(e.msg, "unknown setting \"swap\"");
	host_close(&h);
	free(p);
}

/* ---- the administrator's values ---- */

struct conflict_want {
	const char *where;
	int line;
	const char *key, *value;
	bool wins, ineffective;
};

static void check_conflicts(const struct persist_plan *p, const struct conflict_want *w, int n)
{
	if (p->n_conflicts != n) {
		for (int i = 0; i < p->n_conflicts; i++)
			print_message("got %s:%d %s=%s wins=%d\n", p->conflicts[i].where,
				      p->conflicts[i].line, p->conflicts[i].key, p->conflicts[i].value,
				      p->conflicts[i].wins);
		fail_msg("%d conflicts, want %d", p->n_conflicts, n);
	}
	for (int i = 0; i < n; i++) {
		const struct persist_conflict *c = &p->conflicts[i];

		assert_string_equal(c->where, w[i].where);
		assert_int_equal(c->line, w[i].line);
		assert_string_equal(c->key, w[i].key);
		assert_string_equal(c->value, w[i].value);
		if (c->wins != w[i].wins)
			fail_msg("%s:%d: wins %d, want %d", c->where, c->line, c->wins, w[i].wins);
		assert_int_equal(c->ineffective, w[i].ineffective);
	}
}

static void test_admin_sysctl(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "page-cluster", "0" } };
	struct st_err e = {0};
	char dir[PATH_MAX], path[2 * PATH_MAX], target[2 * PATH_MAX];
	struct host h;
	/* boot order: by file name over all directories, then sysctl.conf */
	static const struct conflict_want want[] = {
		{ "/usr/lib/sysctl.d/10-vendor.conf", 2, "vm/page-cluster", "1", false, false },
		{ "/etc/sysctl.d/50-glob.conf", 1, "vm.page-*", "5", false, false },
		{ "/etc/sysctl.d/99-local.conf", 3, "vm.page-cluster", "2", true, false },
		{ "/etc/sysctl.d/99-sysctl.conf", 1, "vm.page-cluster", "4", true, false },
		{ "/run/sysctl.d/99-zz.conf", 1, "vm.page-cluster", "6", true, false },
	};

	(void)state;
	fx_copy("vm-v1", dir);
	fx_write(dir, "usr/lib/sysctl.d/10-vendor.conf", "# vendor\nvm/page-cluster = 1\nvm.swappiness=10\n");
	fx_write(dir, "etc/sysctl.d/50-glob.conf", "-vm.page-* = 5\n");
	fx_write(dir, "etc/sysctl.d/99-local.conf", "; comment\n\n vm.page-cluster=2 \n");
	/* same name in /run is masked by the one in /etc */
	fx_write(dir, "run/sysctl.d/99-local.conf", "vm.page-cluster = 7\n");
	fx_write(dir, "run/sysctl.d/99-zz.conf", "vm.page-cluster = 6\n");
	fx_write(dir, "etc/sysctl.d/README", "vm.page-cluster = 8\n");	/* not a .conf */
	fx_write(dir, "etc/sysctl.d/90-swaptune.conf", HDR "vm.page-cluster = 3\n");	/* ours */
	fx_write(dir, "usr/lib/sysctl.d/90-swaptune.conf", "vm.page-cluster = 9\n");	/* masked by ours */
	fx_write(dir, "etc/sysctl.conf", "vm.page-cluster = 4\nvm.page-clusterx = 1\n");
	/* Debian's link: read once, in its place among sysctl.d */
	snprintf(path, sizeof(path), "%s/etc/sysctl.d/99-sysctl.conf", dir);
	snprintf(target, sizeof(target), "../sysctl.conf");
	assert_int_equal(symlink(target, path), 0);
	fx_host(&h, dir);
	assert_int_equal(persist_plan(&h, set, 1, p, &e), 0);
	check_conflicts(p, want, (int)ARRAY_SIZE(want));
	for (int i = 0; i < p->n_conflicts; i++)
		assert_string_equal(p->conflicts[i].setting, "page-cluster");
	host_close(&h);
	fx_remove(dir);
	free(p);
}

static void test_admin_sysctl_conf_alone(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "page-cluster", "0" } };
	struct st_err e = {0};
	char dir[PATH_MAX];
	struct host h;
	/* without the link, procps reads sysctl.conf after every sysctl.d file */
	static const struct conflict_want want[] = {
		{ "/etc/sysctl.conf", 1, "vm.page-cluster", "1", true, false },
	};

	(void)state;
	fx_copy("vm-v1", dir);
	fx_write(dir, "etc/sysctl.conf", "vm.page-cluster=1\n");
	fx_host(&h, dir);
	assert_int_equal(persist_plan(&h, set, 1, p, &e), 0);
	check_conflicts(p, want, 1);
	host_close(&h);
	fx_remove(dir);
	free(p);
}

static void test_admin_zswap(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "zswap.enabled", "Y" } };
	struct st_err e = {0};
	char dir[PATH_MAX];
	struct host h;
	static const struct conflict_want builtin[] = {
		{ "/etc/modprobe.d/local.conf", 2, "zswap.enabled", "0", false, true },
		{ "kernel command line", 0, "zswap.enabled", "N", false, false },
	};
	static const struct conflict_want modular[] = {
		{ "/etc/modprobe.d/local.conf", 2, "zswap.enabled", "0", false, false },
		{ "/usr/lib/modprobe.d/zz.conf", 1, "zswap.enabled", "1", true, false },
		{ "kernel command line", 0, "zswap.enabled", "N", false, false },
	};

	(void)state;
	fx_copy("vm-v1", dir);
	fx_write(dir, "etc/modprobe.d/local.conf",
		 "# local\noptions zswap enabled=0 compressor=lz4\noptions zram num_devices=2\n");
	fx_write(dir, "usr/lib/modprobe.d/zz.conf", "options zswap enabled=1\n");
	fx_write(dir, "proc/cmdline", "console=ttyS0 zswap.enabled=N zswap.compressor=lzo -- zswap.enabled=Y\n");
	fx_host(&h, dir);
	/* built in, usr/lib/modprobe.d/zz.conf sorts after ours: ineffective anyway */
	assert_int_equal(persist_plan(&h, set, 1, p, &e), 0);
	assert_true(p->zswap_builtin);
	assert_int_equal(p->n_conflicts, 3);
	assert_true(p->conflicts[1].ineffective);
	{
		struct persist_conflict tmp = p->conflicts[2];

		p->conflicts[1] = tmp;
		p->n_conflicts = 2;
	}
	check_conflicts(p, builtin, 2);
	host_close(&h);

	fx_write(dir, HOST_ZSWAP_INITSTATE, "live\n");
	fx_host(&h, dir);
	assert_int_equal(persist_plan(&h, set, 1, p, &e), 0);
	assert_false(p->zswap_builtin);
	check_conflicts(p, modular, 3);
	assert_true(p->files[F_MODPROBE].changed);
	assert_string_equal(p->files[F_MODPROBE].content, HDR "options zswap enabled=Y\n");
	host_close(&h);
	fx_remove(dir);
	free(p);
}

/* ---- writing through the journal ---- */

static void test_write_and_undo(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "page-cluster", "0" }, { "zswap.enabled", "Y" } };
	struct st_err e = {0};
	char dir[PATH_MAX], db[PATH_MAX + 8], buf[4096];
	struct host h;
	struct store st;
	struct journal j;
	int written = 0, restored = 0;

	(void)state;
	undo_register_all();
	fx_copy("vm-v1", dir);
	/* an older file of ours with other content must come back exactly */
	fx_write(dir, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\n");
	snprintf(db, sizeof(db), "%s/db", dir);
	fx_host(&h, dir);
	assert_int_equal(store_open(&st, db, &e), 0);
	assert_int_equal(persist_plan(&h, set, 2, p, &e), 0);
	assert_int_equal(journal_begin(&j, &st, &h, 0, &e), 0);
	if (persist_write(&h, journal_hooks(&j), p, &written, &e) < 0)
		fail_msg("persist_write: %s", e.msg);
	assert_int_equal(written, 2);
	assert_string_equal(fx_read(dir, PERSIST_SYSCTL_FILE, buf, sizeof(buf)),
			    HDR "vm.page-cluster = 0");
	assert_string_equal(fx_read(dir, PERSIST_BOOT_FILE, buf, sizeof(buf)),
			    BOOT_HDR "zswap.enabled=Y");
	assert_false(host_exists(&h, PERSIST_BOOT_FILE ".swaptune-new"));
	{
		/* journaled before: the dir, then the files, with their old content */
		sqlite3_stmt *s;
		const char *want[][3] = {
			{ PERSIST_KIND_FILE, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\n" },
			{ PERSIST_KIND_DIR, "etc/swaptune", NULL },
			{ PERSIST_KIND_FILE, PERSIST_BOOT_FILE, NULL },
		};
		int i = 0;

		assert_int_equal(store_prepare(&st, "SELECT kind, name, old_value, state FROM changes ORDER BY id",
					       &s, &e), 0);
		while (sqlite3_step(s) == SQLITE_ROW) {
			assert_true(i < 3);
			assert_string_equal(sqlite3_column_text(s, 0), want[i][0]);
			assert_string_equal(sqlite3_column_text(s, 1), want[i][1]);
			if (want[i][2])
				assert_string_equal(sqlite3_column_text(s, 2), want[i][2]);
			else
				assert_int_equal(sqlite3_column_type(s, 2), SQLITE_NULL);
			assert_string_equal(sqlite3_column_text(s, 3), "pending");
			i++;
		}
		sqlite3_finalize(s);
		assert_int_equal(i, 3);
	}
	assert_int_equal(journal_restore(&j, &restored, &e), 0);
	assert_int_equal(restored, 3);
	assert_string_equal(fx_read(dir, PERSIST_SYSCTL_FILE, buf, sizeof(buf)),
			    HDR "vm.page-cluster = 1");
	assert_false(host_exists(&h, PERSIST_BOOT_FILE));
	assert_false(host_exists(&h, "etc/swaptune"));
	assert_true(host_exists(&h, "etc/sysctl.d"));
	store_close(&st);
	host_close(&h);
	fx_remove(dir);
	free(p);
}

/*
 * persist.c knows nothing of the journal: it records through whatever
 * change log it is given, before each write, and a refusal stops it.
 */
struct fake_log {
	int notes, refuse_at;
	char seen[8][64];
};

static int fake_note(void *ctx, const char *kind, const char *ident, const char *detail,
		     struct st_err *e)
{
	struct fake_log *l = ctx;

	(void)detail;
	if (++l->notes == l->refuse_at)
		return err_set(e, -EIO, "refused");
	snprintf(l->seen[l->notes - 1], sizeof(l->seen[0]), "%s %s", kind, ident);
	return 0;
}

static void test_write_change_log(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "page-cluster", "0" } };
	struct fake_log l = { 0 };
	struct change_log log = { &l, fake_note, NULL };
	struct st_err e = {0};
	char dir[PATH_MAX];
	struct host h;
	int written = 0;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	assert_int_equal(persist_plan(&h, set, 1, p, &e), 0);
	l.refuse_at = 1;
	assert_int_equal(persist_write(&h, &log, p, &written, &e), -EIO);
	assert_int_equal(written, 0);
	assert_false(host_exists(&h, PERSIST_SYSCTL_FILE));	/* not written unrecorded */
	err_reset(&e);
	l = (struct fake_log){ 0 };
	assert_int_equal(persist_write(&h, &log, p, &written, &e), 0);
	assert_int_equal(written, 1);
	/* the missing directories first, then the file */
	assert_int_equal(l.notes, 3);
	assert_string_equal(l.seen[0], PERSIST_KIND_DIR " etc");
	assert_string_equal(l.seen[1], PERSIST_KIND_DIR " etc/sysctl.d");
	assert_string_equal(l.seen[2], PERSIST_KIND_FILE " " PERSIST_SYSCTL_FILE);
	assert_true(host_exists(&h, PERSIST_SYSCTL_FILE));
	/* no log: written, nothing recorded */
	assert_int_equal(persist_write(&h, NULL, p, &written, &e), 0);
	host_close(&h);
	fx_remove(dir);
	free(p);
}

static void test_undo_dir_not_empty(void **state)
{
	struct st_err e = {0};
	char dir[PATH_MAX];
	struct host h;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_write(dir, "etc/swaptune/other", "someone else's\n");
	fx_host(&h, dir);
	/* a directory someone else uses too stays, without an error */
	assert_int_equal(persist_undo_dir(&h, "etc/swaptune", NULL, &e), 0);
	assert_true(host_exists(&h, "etc/swaptune/other"));
	/* a file already gone is fine */
	assert_int_equal(persist_undo_file(&h, PERSIST_BOOT_FILE, NULL, &e), 0);
	/* a row naming anything but swaptune's own files is refused, untouched */
	assert_int_equal(persist_undo_file(&h, "etc/swaptune/other", NULL, &e), JOURNAL_UNDO_REFUSED);
	assert_true(host_exists(&h, "etc/swaptune/other"));
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, "/etc/hostname", "x", &e), JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, "etc/sysctl.d/../../../x", NULL, &e),
			 JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	assert_int_equal(persist_undo_dir(&h, "etc/ssh", NULL, &e), JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	host_close(&h);
	fx_remove(dir);
}

/* ---- boot.conf ---- */

static void test_parse_boot(void **state)
{
	static const struct {
		const char *text;
		int rc, n;
		const char *name0, *value0;
		const char *msg;
	} cases[] = {
		{ "# c\n\nzswap.enabled=Y\n vm.page-cluster = 0 \n", 0, 2, "zswap.enabled", "Y", NULL },
		{ "page-cluster=1\npage-cluster=2\n", 0, 1, "page-cluster", "2", NULL },
		{ "zswap.enabled=Y\nswap=zram\n", -EBADMSG, 0, NULL, NULL,
		  "boot.conf: line 2: unknown setting \"swap\"" },
		{ "page-cluster\n", -EBADMSG, 0, NULL, NULL,
		  "boot.conf: line 1: expected \"setting=value\", found \"page-cluster\"" },
		{ "", 0, 0, NULL, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct persist_kv kv[SETTINGS_MAX];
		struct st_err e = {0};
		int n = -1, r = persist_parse_boot(cases[i].text, "boot.conf", kv, SETTINGS_MAX, &n, &e);

		assert_int_equal(r, cases[i].rc);
		if (r < 0) {
			assert_string_equal(e.msg, cases[i].msg);
			continue;
		}
		assert_int_equal(n, cases[i].n);
		if (n) {
			assert_string_equal(kv[0].name, cases[i].name0);
			assert_string_equal(kv[0].value, cases[i].value0);
		}
	}
}

/* What swaptune's own files may hold: exactly what it renders, values valid. */
static void test_check_content(void **state)
{
	static const struct { const char *rel, *text; bool ok; } cases[] = {
		{ PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 0\n", true },
		{ PERSIST_BOOT_FILE, BOOT_HDR "zswap.enabled=Y\nzswap.compressor=lzo\n", true },
		{ PERSIST_BOOT_FILE, BOOT_HDR "vma_ra_enabled=false\n", true },
		{ PERSIST_MODPROBE_FILE, HDR "options zswap enabled=N max_pool_percent=10\n", true },
		/* not rendered by swaptune */
		{ PERSIST_SYSCTL_FILE, "vm.page-cluster = 0\n", false },
		{ PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 0", false },
		{ PERSIST_SYSCTL_FILE, HDR "vm.page-cluster=0\n", false },
		{ PERSIST_SYSCTL_FILE, HDR "page-cluster = 0\n", false },
		{ PERSIST_SYSCTL_FILE, HDR "kernel.core_pattern = |/bin/sh\n", false },
		{ PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\nvm.page-cluster = 2\n", false },
		{ PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 99\n", false },
		{ PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 0\n# more\n", false },
		{ PERSIST_SYSCTL_FILE, HDR, false },
		{ PERSIST_BOOT_FILE, BOOT_HDR "zswap.enabled=1\n", false },
		{ PERSIST_BOOT_FILE, BOOT_HDR "zswap.compressor=$(id)\n", false },
		{ PERSIST_BOOT_FILE, BOOT_HDR "page-cluster=0\n", false },
		{ PERSIST_BOOT_FILE, BOOT_HDR "install zswap /bin/sh\n", false },
		{ PERSIST_MODPROBE_FILE, "install zswap /bin/sh -c id\n", false },
		{ PERSIST_MODPROBE_FILE, HDR "options zswap compressor=nosuch\n", false },
		{ PERSIST_MODPROBE_FILE, HDR "options zram num_devices=1\n", false },
		{ "etc/passwd", "root:x:0:0::/root:/bin/sh\n", false },
	};
	char dir[PATH_MAX];
	struct host h;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct st_err e = {0};
		int r = persist_check_content(&h, cases[i].rel, cases[i].text, &e);

		if ((r == 0) != cases[i].ok)
			fail_msg("case %zu (%s): %d %s", i, cases[i].rel, r, e.msg);
		if (r < 0)
			assert_int_equal(r, -EBADMSG);
	}
	host_close(&h);
	fx_remove(dir);
}

/* A crafted own file is never merged into a new one, nor a crafted record put back. */
static void test_refuse_crafted(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	struct persist_kv set[] = { { "page-cluster", "0" } };
	struct st_err e = {0};
	char dir[PATH_MAX], buf[256];
	struct host h;

	(void)state;
	undo_register_all();
	fx_copy("vm-v1", dir);
	fx_write(dir, PERSIST_BOOT_FILE, BOOT_HDR "zswap.compressor=$(id)\n");
	fx_host(&h, dir);
	assert_int_equal(persist_plan(&h, set, 1, p, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "not as swaptune wrote it"));
	/* the undo handler: refused, nothing written; temporary files of gone processes swept */
	fx_write(dir, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 2\n");
	fx_write(dir, PERSIST_SYSCTL_FILE HOST_FILE_TMP_SUFFIX ".999999999.abcdefgh", "x\n");
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, PERSIST_SYSCTL_FILE, "kernel.core_pattern=|sh\n", &e),
			 JOURNAL_UNDO_REFUSED);
	assert_string_equal(fx_read(dir, PERSIST_SYSCTL_FILE, buf, sizeof(buf)), HDR "vm.page-cluster = 2");
	assert_int_equal(persist_undo_file(&h, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\n", &e), 0);
	assert_string_equal(fx_read(dir, PERSIST_SYSCTL_FILE, buf, sizeof(buf)), HDR "vm.page-cluster = 1");
	assert_false(host_exists(&h, PERSIST_SYSCTL_FILE HOST_FILE_TMP_SUFFIX ".999999999.abcdefgh"));

	/* an administrator's edit after the crash (a line of their own): kept, the undo refused */
	fx_write(dir, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\n# kept for the db servers\n");
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, PERSIST_SYSCTL_FILE, NULL, &e), JOURNAL_UNDO_REFUSED);
	assert_non_null(strstr(e.msg, "was changed since swaptune wrote it"));
	assert_string_equal(fx_read(dir, PERSIST_SYSCTL_FILE, buf, sizeof(buf)),
			    HDR "vm.page-cluster = 1\n# kept for the db servers");
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 3\n", &e),
			 JOURNAL_UNDO_REFUSED);
	assert_non_null(strstr(fx_read(dir, PERSIST_SYSCTL_FILE, buf, sizeof(buf)), "db servers"));
	/* no file before swaptune's write, one of the administrator's now: kept */
	fx_write(dir, PERSIST_SYSCTL_FILE, "# mine\n");
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, PERSIST_SYSCTL_FILE, NULL, &e), JOURNAL_UNDO_REFUSED);
	assert_true(host_exists(&h, PERSIST_SYSCTL_FILE));
	/* the recorded old content already back (someone restored it): written again, harmless */
	fx_write(dir, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\n");
	err_reset(&e);
	assert_int_equal(persist_undo_file(&h, PERSIST_SYSCTL_FILE, HDR "vm.page-cluster = 1\n", &e), 0);
	host_close(&h);
	fx_remove(dir);
	free(p);
}

static void test_plan_contents(void **state)
{
	struct persist_plan *p = calloc(1, sizeof(*p));
	const char *want[3] = { NULL, "x=1\n", NULL };
	struct st_err e = {0};
	char dir[PATH_MAX];
	struct host h;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_write(dir, PERSIST_SYSCTL_FILE, "old\n");
	fx_host(&h, dir);
	assert_int_equal(persist_plan_contents(&h, want, p, &e), 0);
	assert_true(p->files[F_SYSCTL].changed && p->files[F_SYSCTL].remove);
	assert_true(p->files[F_BOOT].changed && !p->files[F_BOOT].remove);
	assert_string_equal(p->files[F_BOOT].content, "x=1\n");
	assert_false(p->files[F_MODPROBE].changed);	/* absent and wanted absent */
	assert_int_equal(persist_file_index(PERSIST_BOOT_FILE), F_BOOT);
	assert_int_equal(persist_file_index("etc/passwd"), -1);
	assert_string_equal(persist_file_at(F_MODPROBE), PERSIST_MODPROBE_FILE);
	assert_null(persist_file_at(3));
	host_close(&h);
	fx_remove(dir);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_table),
		cmocka_unit_test(test_plan_notes_text),
		cmocka_unit_test(test_plan_unknown_setting),
		cmocka_unit_test(test_admin_sysctl),
		cmocka_unit_test(test_admin_sysctl_conf_alone),
		cmocka_unit_test(test_admin_zswap),
		cmocka_unit_test(test_write_and_undo),
		cmocka_unit_test(test_write_change_log),
		cmocka_unit_test(test_undo_dir_not_empty),
		cmocka_unit_test(test_parse_boot),
		cmocka_unit_test(test_plan_contents),
		cmocka_unit_test(test_check_content),
		cmocka_unit_test(test_refuse_crafted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
