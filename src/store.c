/*
 * store.c - opening the SQLite store (and migrating it: migrations.c), the
 * statement helpers of store-int.h (its errors: store-err.c),
 * transactions, hosts, runs and settings snapshots. The journal's rows live
 * in store-changes.c, the run and snapshot queries of the change commands
 * in store-runs.c.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-int.h"
#include "swaptune/store.h"

/*
 * The application_id of a store a command made and none has kept yet
 * ("swnk"): whoever closes it last drops it while it holds no row.
 */
#define STORE_UNKEPT_ID 1937207915
#define STORE_STR(x) STORE_STR2(x)
#define STORE_STR2(x) #x

int store_default_path(char *out, size_t len, struct st_err *e)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (geteuid() == 0)
		snprintf(out, len, "/var/lib/swaptune/swaptune.db");
	else if (xdg && *xdg == '/')
		snprintf(out, len, "%s/swaptune/swaptune.db", xdg);
	else if (home && *home)
		snprintf(out, len, "%s/.local/state/swaptune/swaptune.db", home);
	else
		return err_set_exit(e, -ENOENT, ST_EXIT_USAGE,
				    "no HOME or XDG_STATE_HOME for the database: use --db PATH");
	return 0;
}

/*
 * The directories above file, 0700; *made_len is the length of the first
 * one this call made (a prefix of file), 0 when all were there
 */
static int mkdir_parents(const char *file, size_t *made_len, struct st_err *e)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			/* a directory swaptune makes holds only its stores: private */
			if (mkdir(dir, 0700) == 0) {
				if (!*made_len)
					*made_len = strlen(dir);
			} else if (errno != EEXIST) {
				return err_set_exit(e, -errno, ST_EXIT_DENIED,
						    "cannot create database directory %s: %s (use --db PATH)",
						    dir, strerror(errno));
			}
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* Whether file's directory is there (it is not when one that dropped its store took it). */
static bool parent_exists(const char *file)
{
	char dir[PATH_MAX];
	char *slash;
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (!slash)
		return true;
	*slash = '\0';
	return stat(slash == dir ? "/" : dir, &sb) == 0;
}

static bool denied_errno(int err)
{
	return err == EACCES || err == EPERM || err == EROFS;
}

/* Run sql, retrying while another process holds the lock it needs. */
static int exec_retry(struct store *st, const char *sql, struct st_err *e)
{
	char *msg = NULL;
	int rc;

	for (int i = 0; ; i++) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc & 0xff) != SQLITE_BUSY || i >= 100)
			break;
		sqlite3_free(msg);
		msg = NULL;
		usleep(50000);
	}
	store_sqlite_err(st, rc, msg, e);
	sqlite3_free(msg);
	return e ? e->code : -EIO;
}

static int journal_mode_wal(struct store *st, struct st_err *e)
{
	sqlite3_stmt *stmt;
	bool wal = false;

	if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &stmt, NULL) == SQLITE_OK) {
		int rc = sqlite3_step(stmt);

		if (rc == SQLITE_ROW)
			wal = !sqlite3_stricmp((const char *)sqlite3_column_text(stmt, 0), "wal");
		sqlite3_finalize(stmt);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return store_sqlite_err(st, rc, NULL, e);
	}
	/* WAL needs the directory writable for its -wal and -shm files */
	return wal ? 0 : exec_retry(st, "PRAGMA journal_mode=WAL", e);
}

/*
 * Open path as the store file: never through a symlink, and a new store
 * with O_EXCL so that st->created says this process made it.
 * Returns 1 when the file cannot be written for lack of permission.
 */
static int open_file(struct store *st, const char *path, struct st_err *e)
{
	struct stat sb;
	int fd;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		int r = mkdir_parents(path, &st->made_dir_len, e);

		if (r < 0)
			return denied_errno(-r) && e ? (err_reset(e), 1) : r;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			st->created = true;
		else if (errno == EEXIST)	/* another process made it just now */
			fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		else if (errno == ENOENT && !parent_exists(path))
			return st->made_dir_len = 0, 2;	/* one that dropped it took its directory */
		if (!st->created)
			st->made_dir_len = 0;
	}
	if (fd < 0) {
		if (errno == ELOOP)
			return err_set_exit(e, -ELOOP, ST_EXIT_DENIED,
					    "refusing database %s: it is a symbolic link (give the real file with --db PATH)",
					    path);
		if (denied_errno(errno))
			return 1;
		return err_set_exit(e, -errno, ST_EXIT_DENIED,
				    "cannot open database %s: %s (use --db PATH)", path, strerror(errno));
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		if (st->created)
			unlink(path);
		st->created = false;
		return err_set_exit(e, -EINVAL, ST_EXIT_DENIED,
				    "refusing database %s: not a regular file (use --db PATH)", path);
	}
	/*
	 * Held shared while open, so that a process that made the store and
	 * then drops it after a usage error (store_close_remove) sees that
	 * others use it; it may have been dropped just before we got the lock
	 */
	if (flock(fd, LOCK_SH) == 0) {
		struct stat now;

		if (lstat(path, &now) < 0 || now.st_dev != sb.st_dev || now.st_ino != sb.st_ino) {
			close(fd);
			st->created = false;
			return 2;
		}
	}
	st->hold_fd1 = fd + 1;
	return 0;
}

static int configure(struct store *st, struct st_err *e)
{
	int r;

	sqlite3_busy_timeout(st->db, 5000);	/* before anything that takes a lock */
	/* a crafted version is refused before any statement changes the file */
	if ((r = migrations_check_version(st, e)) < 0 ||
	    (r = journal_mode_wal(st, e)) < 0 ||
	    (r = store_exec(st, "PRAGMA foreign_keys=ON", e)) < 0 ||
	    (r = store_exec(st, "PRAGMA synchronous=NORMAL", e)) < 0)
		return r;
	return migrations_apply(st, e);
}

/*
 * Without write permission: the existing store read-only if it is readable
 * and current, else an empty in-memory one, both refusing writes
 * (query_only), so that reading commands run and writing ones fail.
 */
static int open_readonly(struct store *st, struct st_err *e)
{
	int fd = open(st->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	st->readonly = true;
	if (fd >= 0) {
		close(fd);
		if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW |
				    SQLITE_OPEN_FULLMUTEX, NULL) == SQLITE_OK) {
			sqlite3_busy_timeout(st->db, 5000);
			if (store_schema_version(st) == migrations_latest())
				return store_exec(st, "PRAGMA foreign_keys=ON", e);
		}
		store_close(st);
	}
	if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX,
			    NULL) != SQLITE_OK || migrations_apply(st, e) < 0 ||
	    store_exec(st, "PRAGMA query_only=1", e) < 0) {
		store_close(st);
		return err_set_exit(e, -EACCES, ST_EXIT_DENIED, "cannot open database %s (use --db PATH)",
				    st->path);
	}
	return 0;
}

/*
 * The store's disk is full: read what is there without writing anything.
 * A WAL store opened afresh needs room for its -shm index, so the file is
 * opened immutable (no index, no locks), and only when no commit waits in
 * its -wal file (an immutable read would not see it). Writes fail with the
 * disk-full error; when the store cannot be read so, the open fails with it
 * (never an empty store in its place).
 */
static int open_full_readonly(struct store *st, struct st_err *e)
{
	static const char hex[] = "0123456789ABCDEF";
	char uri[PATH_MAX * 3 + 32];
	size_t o = 0;

	struct stat sb;

	st->readonly = st->disk_full = true;
	/* commits still in the WAL would be invisible to an immutable read */
	snprintf(uri, sizeof(uri), "%s-wal", st->path);
	if (stat(uri, &sb) == 0 && sb.st_size > 0)
		return store_disk_full_err(st, e);
	o += (size_t)snprintf(uri, sizeof(uri), "file:");
	for (const char *p = st->path; *p && o + 4 < sizeof(uri); p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || strchr("/-._~", c)) {
			uri[o++] = (char)c;
		} else {
			uri[o++] = '%';
			uri[o++] = hex[c >> 4];
			uri[o++] = hex[c & 15];
		}
	}
	snprintf(uri + o, sizeof(uri) - o, "?immutable=1");
	if (sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
			    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_FULLMUTEX, NULL) == SQLITE_OK &&
	    store_schema_version(st) == migrations_latest() &&
	    store_exec(st, "PRAGMA foreign_keys=ON", NULL) == 0)
		return 0;
	store_close(st);
	return store_disk_full_err(st, e);
}

/*
 * A store from elsewhere: read-only from the first statement (no WAL
 * switch, no migration, query_only), its version checked before anything
 * else reads it.
 */
int store_open_readonly(struct store *st, const char *path, struct st_err *e)
{
	struct stat sb;
	int r, v;

	memset(st, 0, sizeof(*st));
	snprintf(st->path, sizeof(st->path), "%s", path);
	st->readonly = true;
	if (lstat(path, &sb) < 0)
		return err_set_exit(e, -errno, ST_EXIT_USAGE, "cannot read database %s: %s", path, strerror(errno));
	if (S_ISLNK(sb.st_mode))
		return err_set_exit(e, -ELOOP, ST_EXIT_DENIED, "database %s is a symbolic link: refused", path);
	if (!S_ISREG(sb.st_mode))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "database %s is not a regular file", path);
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		r = st->db ? store_db_err(st, e) : err_set(e, -ENOMEM, "out of memory");
		store_close(st);
		return r;
	}
	sqlite3_busy_timeout(st->db, 5000);
	if ((r = migrations_check_version(st, e)) < 0 ||
	    (r = store_exec(st, "PRAGMA query_only=1", e)) < 0)
		goto fail;
	if ((v = store_schema_version(st)) != migrations_latest()) {
		r = err_set_exit(e, -EPROTO, ST_EXIT_RUNTIME,
				 "database %s has schema %d, older than this swaptune's (%d): open it once with swaptune --db to migrate it",
				 path, v, migrations_latest());
		goto fail;
	}
	if ((r = store_exec(st, "PRAGMA foreign_keys=ON", e)) < 0 || (r = migrations_check(st, e)) < 0)
		goto fail;
	return 0;
fail:
	store_close(st);
	return r;
}

static int open_store(struct store *st, const char *path, struct st_err *e);

int store_open(struct store *st, const char *path, struct st_err *e)
{
	int r = open_store(st, path, e);

	if (r == 0 && (r = migrations_check(st, e)) < 0)
		store_close(st);
	return r;
}

static int open_store(struct store *st, const char *path, struct st_err *e)
{
	int rc, r;

	memset(st, 0, sizeof(*st));
	snprintf(st->path, sizeof(st->path), "%s", path);
	for (int tries = 0; (r = open_file(st, path, e)) == 2 && tries < 20; tries++)
		;
	if (r == 2)
		return err_set_exit(e, -EAGAIN, ST_EXIT_RUNTIME, "database %s keeps being replaced", path);
	if (r < 0)
		return r;
	if (r > 0)
		return open_readonly(st, e);
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW |
			     SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc != SQLITE_OK) {
		r = st->db ? store_sqlite_err(st, rc, NULL, e) :
		    err_set(e, -ENOMEM, "out of memory");
		store_close(st);
		return r;
	}
	r = configure(st, e);
	if (r == -ENOSPC) {
		store_close(st);
		return open_full_readonly(st, e);
	}
	if (r < 0) {
		store_close(st);
		return r;
	}
	/*
	 * whoever closes it last drops it while no command keeps it (several
	 * read-only commands opening one new path at once: the maker may not
	 * be the last); unmarked, it would merely stay
	 */
	if (st->created)
		(void)exec_retry(st, "PRAGMA application_id = " STORE_STR(STORE_UNKEPT_ID), NULL);
	return 0;
}

bool store_unkept(struct store *st)
{
	sqlite3_stmt *stmt;
	bool unkept = false;

	if (st->db && sqlite3_prepare_v2(st->db, "PRAGMA application_id", -1, &stmt, NULL) == SQLITE_OK) {
		unkept = sqlite3_step(stmt) == SQLITE_ROW &&
			 sqlite3_column_int64(stmt, 0) == STORE_UNKEPT_ID;
		sqlite3_finalize(stmt);
	}
	return unkept;
}

void store_keep(struct store *st)
{
	if (!st->readonly && store_unkept(st))
		(void)exec_retry(st, "PRAGMA application_id = 0", NULL);
}

void store_set_identity(struct store *st, const char *machine_id, const char *boot_id)
{
	snprintf(st->machine_id, sizeof(st->machine_id), "%s", machine_id ? machine_id : "");
	snprintf(st->boot_id, sizeof(st->boot_id), "%s", boot_id ? boot_id : "");
}

int store_set_kernel_fp(struct store *st, const char *fp_json)
{
	st->kernel_fp[0] = '\0';
	if (!fp_json)
		return 0;
	if (strlen(fp_json) >= sizeof(st->kernel_fp))
		return -E2BIG;
	snprintf(st->kernel_fp, sizeof(st->kernel_fp), "%s", fp_json);
	return 0;
}

/* The directories open_file() made for st's path, deepest first, while empty. */
static void remove_made_dirs(const struct store *st)
{
	char dir[PATH_MAX];
	char *slash;

	if (!st->made_dir_len)
		return;
	snprintf(dir, sizeof(dir), "%s", st->path);
	while ((slash = strrchr(dir, '/')) && (size_t)(slash - dir) >= st->made_dir_len) {
		*slash = '\0';
		if (rmdir(dir) < 0)	/* not empty (or not ours any more): it stays */
			break;
	}
}

/*
 * The host-change lock file a command changing a sysroot took beside the
 * store (lock.c: PATH.probe.lock), when it is empty: nobody holds it, since
 * a holder writes its line and has the store open, which the caller's
 * exclusive flock on the store rules out. A file with anything in it stays.
 */
static void drop_empty_lock(const char *path)
{
	char lock[PATH_MAX + 16];
	struct stat sb;

	snprintf(lock, sizeof(lock), "%s.probe.lock", path);
	if (lstat(lock, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_nlink == 1 && sb.st_size == 0)
		unlink(lock);
}

int store_close_remove(struct store *st)
{
	int fd = st->hold_fd1 - 1, r = -EBUSY;

	/*
	 * Exclusive only when no other process holds the store open. The
	 * shared flock is let go of first, so that of several closing at once
	 * the last one gets it, and the rows are counted under it: one that
	 * closed meanwhile may have recorded some.
	 */
	if (fd >= 0 && flock(fd, LOCK_UN) == 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
		if (store_holds_rows(st)) {
			r = -EEXIST;
		} else {
			char side[PATH_MAX + 8];

			sqlite3_close_v2(st->db);
			st->db = NULL;
			unlink(st->path);
			snprintf(side, sizeof(side), "%s-wal", st->path);
			unlink(side);
			snprintf(side, sizeof(side), "%s-shm", st->path);
			unlink(side);
			drop_empty_lock(st->path);
			remove_made_dirs(st);
			r = 0;
		}
	}
	store_close(st);
	return r;
}

bool store_holds_rows(struct store *st)
{
	sqlite3_stmt *tables, *one;
	bool rows = false;
	int rc;

	if (!st->db)
		return false;
	if (sqlite3_prepare_v2(st->db, "SELECT name FROM sqlite_master WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", -1, &tables, NULL) != SQLITE_OK)
		return true;	/* cannot tell: keep it */
	while (!rows && (rc = sqlite3_step(tables)) == SQLITE_ROW) {
		char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 1",
					    (const char *)sqlite3_column_text(tables, 0));

		if (!sql || sqlite3_prepare_v2(st->db, sql, -1, &one, NULL) != SQLITE_OK) {
			rows = true;
		} else {
			rows = sqlite3_step(one) != SQLITE_DONE;
			sqlite3_finalize(one);
		}
		sqlite3_free(sql);
	}
	if (!rows && rc != SQLITE_DONE)
		rows = true;
	sqlite3_finalize(tables);
	return rows;
}

long long store_changes(struct store *st)
{
	return st->db ? (long long)sqlite3_total_changes64(st->db) : 0;
}

void store_close(struct store *st)
{
	if (st->db)
		sqlite3_close_v2(st->db);
	st->db = NULL;
	if (st->hold_fd1 > 0)
		close(st->hold_fd1 - 1);
	st->hold_fd1 = 0;
}

int store_exec(struct store *st, const char *sql, struct st_err *e)
{
	char *msg = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int r = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_CORRUPT ||
			(rc & 0xff) == SQLITE_NOTADB || store_disk_full(st, rc) ?
			store_sqlite_err(st, rc, msg, e) :
			err_set(e, -EIO, "database %s: %s", st->path, msg ? msg : "error");

		sqlite3_free(msg);
		return e ? r : -EIO;
	}
	return 0;
}

int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt,
		  struct st_err *e)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK)
		return store_db_err(st, e);
	return 0;
}

int store_step_done(struct store *st, sqlite3_stmt *stmt, struct st_err *e)
{
	int rc = sqlite3_step(stmt);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_db_err(st, e);
	return 0;
}

int store_step_row(struct store *st, sqlite3_stmt *stmt, struct st_err *e)
{
	int rc = sqlite3_step(stmt);

	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : store_db_err(st, e);
}

int store_rows_read(struct store *st, sqlite3_stmt *stmt, const struct store_row_type *type,
		    void **rows, size_t *n, struct st_err *e)
{
	size_t size = type->size;
	char *v = NULL;
	size_t cap = 0, k = 0;
	int r;

	while ((r = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (k == cap) {
			char *nv = realloc(v, (cap = cap ? cap * 2 : 16) * size);

			if (!nv)
				break;
			v = nv;
		}
		memset(v + k * size, 0, size);
		if (type->read(stmt, v + k * size) < 0)
			break;
		k++;
	}
	sqlite3_finalize(stmt);
	*rows = NULL;
	*n = 0;
	if (r != SQLITE_DONE) {
		for (size_t i = 0; type->drop && i < k; i++)
			type->drop(v + i * size);
		free(v);
		return r == SQLITE_ROW ? err_set(e, -ENOMEM, "out of memory") : store_db_err(st, e);
	}
	*rows = v;
	*n = k;
	return 0;
}

const char *store_col_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);

	return t ? (const char *)t : "";
}

char *store_col_dup(sqlite3_stmt *stmt, int i)
{
	if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
		return NULL;
	return strdup(store_col_text(stmt, i));
}

int store_register_host(struct store *st, const char *machine_id,
			const char *hostname, const char *kernel, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r;

	r = store_prepare(st,
		"INSERT INTO hosts (machine_id, hostname, kernel) VALUES (?1, ?2, ?3) "
		"ON CONFLICT (machine_id, hostname) DO UPDATE SET kernel = ?3, "
		"last_seen = strftime('%Y-%m-%dT%H:%M:%fZ','now') RETURNING id", &stmt, e);
	if (r < 0)
		return r;
	sqlite3_bind_text(stmt, 1, machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, hostname, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, kernel, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		st->host_id = sqlite3_column_int64(stmt, 0);
	else
		r = store_db_err(st, e);
	sqlite3_finalize(stmt);
	return r;
}

int store_run_begin(struct store *st, const char *kind, const char *params_json,
		    int64_t *run_id, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"INSERT INTO runs (host_id, kind, pid, params, machine_id, boot_id, kernel_fp)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
		&stmt, e);

	if (r < 0)
		return r;
	if (st->host_id)
		sqlite3_bind_int64(stmt, 1, st->host_id);
	sqlite3_bind_text(stmt, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(stmt, 3, (int)getpid());
	if (params_json)
		sqlite3_bind_text(stmt, 4, params_json, -1, SQLITE_STATIC);
	if (st->machine_id[0])
		sqlite3_bind_text(stmt, 5, st->machine_id, -1, SQLITE_STATIC);
	if (st->boot_id[0])
		sqlite3_bind_text(stmt, 6, st->boot_id, -1, SQLITE_STATIC);
	if (st->kernel_fp[0])
		sqlite3_bind_text(stmt, 7, st->kernel_fp, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	if (r == 0)
		*run_id = sqlite3_last_insert_rowid(st->db);
	return r;
}

int store_run_set_kernel_fp(struct store *st, int64_t run_id, const char *fp_json,
			    struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st, "UPDATE runs SET kernel_fp = ?2 WHERE id = ?1", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	if (fp_json && *fp_json)
		sqlite3_bind_text(stmt, 2, fp_json, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

int store_run_end(struct store *st, int64_t run_id, const char *status,
		  const char *summary_json, struct st_err *e)
{
	sqlite3_stmt *stmt;
	int r = store_prepare(st,
		"UPDATE runs SET status = ?2, summary = coalesce(?3, summary), "
		"ended_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1", &stmt, e);

	if (r < 0)
		return r;
	sqlite3_bind_int64(stmt, 1, run_id);
	sqlite3_bind_text(stmt, 2, status, -1, SQLITE_STATIC);
	if (summary_json)
		sqlite3_bind_text(stmt, 3, summary_json, -1, SQLITE_STATIC);
	r = store_step_done(st, stmt, e);
	sqlite3_finalize(stmt);
	return r;
}

int store_snapshot_save(struct store *st, int64_t run_id, const char *reason,
			const struct settings_snapshot *s, int64_t *snap_id,
			struct st_err *e)
{
	cJSON *o = cJSON_CreateObject();
	sqlite3_stmt *stmt;
	char *text;
	int r;

	if (!o)
		return err_set(e, -ENOMEM, "out of memory");
	for (int i = 0; i < s->n; i++) {
		if (s->items[i].present)
			cJSON_AddStringToObject(o, s->items[i].name, s->items[i].value);
		else
			cJSON_AddNullToObject(o, s->items[i].name);
	}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return err_set(e, -ENOMEM, "out of memory");
	r = store_prepare(st, "INSERT INTO snapshots (run_id, reason, settings) VALUES (?1, ?2, ?3)",
			  &stmt, e);
	if (r == 0) {
		if (run_id > 0)
			sqlite3_bind_int64(stmt, 1, run_id);
		sqlite3_bind_text(stmt, 2, reason, -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 3, text, -1, SQLITE_STATIC);
		r = store_step_done(st, stmt, e);
		sqlite3_finalize(stmt);
		if (r == 0 && snap_id)
			*snap_id = sqlite3_last_insert_rowid(st->db);
	}
	cJSON_free(text);
	return r;
}

int store_snapshot_load(struct store *st, int64_t snap_id,
			struct settings_snapshot *s, struct st_err *e)
{
	sqlite3_stmt *stmt;
	cJSON *o = NULL, *it;
	int r = store_prepare(st, "SELECT settings FROM snapshots WHERE id = ?1", &stmt, e);

	if (r < 0)
		return r;
	memset(s, 0, sizeof(*s));
	sqlite3_bind_int64(stmt, 1, snap_id);
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		sqlite3_finalize(stmt);
		return err_set(e, -ENOENT, "no snapshot %lld in %s", (long long)snap_id, st->path);
	}
	o = cJSON_Parse((const char *)sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	if (!o)
		return err_set(e, -EBADMSG, "snapshot %lld in %s is not valid JSON",
			       (long long)snap_id, st->path);
	cJSON_ArrayForEach(it, o) {
		struct setting_value *v;

		if (s->n >= SETTINGS_MAX)
			break;
		v = &s->items[s->n++];
		snprintf(v->name, sizeof(v->name), "%s", it->string);
		if (cJSON_IsString(it)) {
			v->present = true;
			snprintf(v->value, sizeof(v->value), "%s", it->valuestring);
		}
	}
	cJSON_Delete(o);
	return 0;
}

int store_tx_begin(struct store *st, struct st_err *e)
{
	return store_exec(st, "BEGIN IMMEDIATE", e);
}

int store_tx_commit(struct store *st, struct st_err *e)
{
	return store_exec(st, "COMMIT", e);
}

void store_tx_rollback(struct store *st)
{
	store_exec(st, "ROLLBACK", NULL);
}

int store_tx_end(struct store *st, int r, struct st_err *e)
{
	if (r == 0)
		return store_tx_commit(st, e);
	store_tx_rollback(st);
	return r;
}
