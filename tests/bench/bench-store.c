/*
 * bench-store.c - every command stays fast on a big store (issue 19,
 * finding 9: 200 k pending journal rows made `status` take 119 s and 1.9 GB,
 * 300 k runs made `history --all` take 48 s).
 *
 * Builds three stores in $TMPDIR (the store itself is made by the binary
 * under test, so its schema is that binary's; the rows are written with
 * SQLite directly, in one transaction each) and a copy of the vm-v1 fixture
 * with a machine id as the sysroot:
 *   other:   200 000 pending journal rows of another machine under the
 *            sysroot (a store copied from elsewhere): never undone here;
 *   mine:    200 000 pending rows of this machine left by a process that is
 *            gone, each saying page-cluster 3 -> 0 while the tree holds 3
 *            (repair finds each "as before" and marks it restored);
 *   history: 300 000 runs: 100 000 applies with two snapshots and one journal
 *            row each, 100 000 sample recordings of 3 ticks, 100 000 probes.
 * Then runs, each --rounds times (3), with the wall time and peak memory of the
 * child (wait4):
 *   $SWAPTUNE --db other   --sysroot ROOT status
 *   $SWAPTUNE --db mine    --sysroot ROOT status      (a fresh copy each round)
 *   $SWAPTUNE --db history --sysroot ROOT history [--all] [--json]
 * and prints the median of each with the machine's load average. Exits 1
 * when a median reaches 2 s (LIMIT_S) or a command fails or runs past
 * --timeout (then it is killed and counted as the timeout).
 *
 * usage: bench-store [--timeout S] [--rounds N]   (60 s, 3; SWAPTUNE=binary,
 *        default ./swaptune; run from the repository top: tests/fixtures/vm-v1)
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS_MAX 9
#define LIMIT_S 2.0
#define PENDING_ROWS 200000
#define RUNS 300000
#define MID_HERE "0123456789abcdef0123456789abcdef"
#define MID_OTHER "fedcba9876543210fedcba9876543210"

static const char *bin;
static double timeout_s = 60;
static int rounds = 3;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Run argv with stdout/stderr to /dev/null: wall seconds and peak RSS (KiB); -1 on failure. */
static double run(char *const argv[], long *maxrss_kb)
{
	struct rusage ru;
	double t0 = now_s();
	int status;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (now_s() - t0 > timeout_s) {
			kill(pid, SIGKILL);
			wait4(pid, &status, 0, &ru);
			*maxrss_kb = ru.ru_maxrss;
			return timeout_s;
		}
		usleep(2000);
	}
	*maxrss_kb = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return now_s() - t0;
}

static int exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "bench-store: %s\n", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* A store made by the binary under test (its schema), then filled by fill(). */
static int make_store(const char *path, const char *root, int (*fill)(sqlite3 *, const char *),
		      const char *key)
{
	char *argv[] = { (char *)bin, "--db", (char *)path, "--sysroot", (char *)root, "status", NULL };
	sqlite3 *db;
	long rss;
	int r;

	sh("rm -f '%s' '%s-wal' '%s-shm'", path, path, path);
	if (run(argv, &rss) < 0) {
		fprintf(stderr, "bench-store: %s could not create %s\n", bin, path);
		return -1;
	}
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	r = exec_sql(db, "BEGIN");
	if (r == 0)
		r = fill(db, key);
	if (r == 0)
		r = exec_sql(db, "COMMIT");
	sqlite3_close(db);
	return r;
}

/* PENDING_ROWS pending setting rows of machine mid under sysroot key, owned by a gone pid. */
static int fill_pending(sqlite3 *db, const char *key, const char *mid)
{
	sqlite3_stmt *s;
	int r = 0;

	if (sqlite3_prepare_v2(db, "INSERT INTO changes (session, pid, pid_start, sysroot, kind, name,"
			       " old_value, new_value, temporary, state, machine_id) VALUES"
			       " (?1, 999999999, 1, ?2, 'setting', 'page-cluster', '3', '0', 1,"
			       " 'pending', ?3)", -1, &s, NULL) != SQLITE_OK)
		return -1;
	for (int i = 0; i < PENDING_ROWS && r == 0; i++) {
		char session[32];

		snprintf(session, sizeof(session), "gone-%d", i / 4);
		sqlite3_reset(s);
		sqlite3_bind_text(s, 1, session, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, mid, -1, SQLITE_STATIC);
		r = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(s);
	return r;
}

static int fill_other(sqlite3 *db, const char *key)
{
	return fill_pending(db, key, MID_OTHER);
}

static int fill_mine(sqlite3 *db, const char *key)
{
	return fill_pending(db, key, MID_HERE);
}

static int fill_history(sqlite3 *db, const char *key)
{
	sqlite3_stmt *run_s, *snap_s, *chg_s, *tick_s;
	int r = 0;

	if (sqlite3_prepare_v2(db, "INSERT INTO runs (kind, status, started_at, ended_at, params,"
			       " machine_id) VALUES (?1, 'ok', '2026-11-01T00:00:00.000Z',"
			       " '2026-11-01T00:01:00.000Z', ?2, '" MID_HERE "')", -1, &run_s, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO snapshots (run_id, reason, settings) VALUES (?1, ?2,"
			       " '{\"page-cluster\":\"3\",\"vma_ra_enabled\":\"true\"}')", -1, &snap_s, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind,"
			       " name, old_value, new_value, temporary, state, machine_id) VALUES (?1, ?2,"
			       " 1, 1, ?3, 'setting', 'page-cluster', '3', '0', 0, 'committed', '"
			       MID_HERE "')", -1, &chg_s, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO samples (run_id, seq, t_ns, data) VALUES (?1, ?2, ?3,"
			       " '{\"seq\":1}')", -1, &tick_s, NULL))
		return -1;
	for (int i = 0; i < RUNS && r == 0; i++) {
		static const char *const kinds[] = { "apply", "sample", "probe" };
		const char *kind = kinds[i % 3];
		sqlite3_int64 id;
		char session[32];

		sqlite3_reset(run_s);
		sqlite3_bind_text(run_s, 1, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(run_s, 2, i % 3 == 0 ? "{\"settings\":{\"page-cluster\":\"0\"},\"persist\":false}" :
				  i % 3 == 1 ? "{\"interval_s\":1}" : "{\"workload\":{\"name\":\"anon-runs\"}}",
				  -1, SQLITE_STATIC);
		if (sqlite3_step(run_s) != SQLITE_DONE)
			return -1;
		id = sqlite3_last_insert_rowid(db);
		if (i % 3 == 0) {
			for (int k = 0; k < 2 && r == 0; k++) {
				sqlite3_reset(snap_s);
				sqlite3_bind_int64(snap_s, 1, id);
				sqlite3_bind_text(snap_s, 2, k ? "after apply" : "before apply", -1, SQLITE_STATIC);
				r = sqlite3_step(snap_s) == SQLITE_DONE ? 0 : -1;
			}
			snprintf(session, sizeof(session), "s-%d", i);
			sqlite3_reset(chg_s);
			sqlite3_bind_text(chg_s, 1, session, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(chg_s, 2, id);
			sqlite3_bind_text(chg_s, 3, key, -1, SQLITE_STATIC);
			if (r == 0 && sqlite3_step(chg_s) != SQLITE_DONE)
				r = -1;
		} else if (i % 3 == 1) {
			for (int k = 0; k < 3 && r == 0; k++) {
				sqlite3_reset(tick_s);
				sqlite3_bind_int64(tick_s, 1, id);
				sqlite3_bind_int(tick_s, 2, k + 1);
				sqlite3_bind_int64(tick_s, 3, (sqlite3_int64)k * 1000000000LL);
				r = sqlite3_step(tick_s) == SQLITE_DONE ? 0 : -1;
			}
		}
	}
	sqlite3_finalize(run_s);
	sqlite3_finalize(snap_s);
	sqlite3_finalize(chg_s);
	sqlite3_finalize(tick_s);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of --rounds runs of argv (fresh copy of store from pristine before each when given). */
static int measure(const char *label, char *const argv[], const char *pristine, const char *store)
{
	double t[ROUNDS_MAX];
	long rss = 0, max_rss = 0;
	bool failed = false, slow;

	for (int i = 0; i < rounds; i++) {
		if (pristine && sh("cp '%s' '%s'", pristine, store) != 0)
			return -1;
		t[i] = run(argv, &rss);
		if (t[i] < 0)
			failed = true;
		if (rss > max_rss)
			max_rss = rss;
	}
	qsort(t, (size_t)rounds, sizeof(t[0]), cmp_double);
	slow = t[rounds / 2] >= LIMIT_S;
	printf("  %-34s median %7.3f s (min %.3f, max %.3f)  peak RSS %6.1f MiB%s%s\n", label,
	       t[rounds / 2], t[0], t[rounds - 1], (double)max_rss / 1024.0,
	       failed ? "  FAILED" : "", t[rounds - 1] >= timeout_s ? "  (timed out)" : "");
	return failed || slow ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[512], root[600], other[600], mine[600], mine0[600], hist[600], key[700];
	double load[3] = { 0, 0, 0 };
	int bad = 0;

	bin = getenv("SWAPTUNE") ? getenv("SWAPTUNE") : "./swaptune";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--timeout"))
			timeout_s = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
	}
	if (rounds < 1 || rounds > ROUNDS_MAX || timeout_s <= 0) {
		fprintf(stderr, "usage: bench-store [--timeout S] [--rounds 1..%d]\n", ROUNDS_MAX);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/swaptune-bench-store.%d", tmp, (int)getpid());
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(other, sizeof(other), "%s/other.db", dir);
	snprintf(mine0, sizeof(mine0), "%s/mine0.db", dir);
	snprintf(mine, sizeof(mine), "%s/mine.db", dir);
	snprintf(hist, sizeof(hist), "%s/history.db", dir);
	if (sh("mkdir -p '%s' && cp -a tests/fixtures/vm-v1 '%s'", dir, root) != 0 ||
	    sh("mkdir -p '%s/etc' && echo " MID_HERE " >'%s/etc/machine-id'", root, root) != 0 ||
	    !realpath(root, key)) {
		fprintf(stderr, "bench-store: cannot make the sysroot copy (run from the repository top)\n");
		return 1;
	}
	if (make_store(other, root, fill_other, key) < 0 || make_store(mine0, root, fill_mine, key) < 0 ||
	    make_store(hist, root, fill_history, key) < 0) {
		sh("rm -rf '%s'", dir);
		return 1;
	}
	getloadavg(load, 3);
	printf("bench-store: %s, %d pending journal rows / %d runs, %d rounds each; load average %.2f %.2f %.2f"
	       " on %ld CPUs\n", bin, PENDING_ROWS, RUNS, rounds, load[0], load[1], load[2],
	       sysconf(_SC_NPROCESSORS_ONLN));
	{
		char *a1[] = { (char *)bin, "--db", other, "--sysroot", root, "status", NULL };
		char *a2[] = { (char *)bin, "--db", mine, "--sysroot", root, "status", NULL };
		char *a3[] = { (char *)bin, "--db", hist, "--sysroot", root, "history", NULL };
		char *a4[] = { (char *)bin, "--db", hist, "--sysroot", root, "history", "--all", NULL };
		char *a5[] = { (char *)bin, "--db", hist, "--sysroot", root, "history", "--all", "--json", NULL };
		char *a6[] = { (char *)bin, "--db", hist, "--sysroot", root, "history", "--all", "--limit",
			       "1000", NULL };

		bad |= measure("status, 200k rows of another host", a1, NULL, NULL);
		bad |= measure("status, 200k rows of this host", a2, mine0, mine);
		bad |= measure("history, 300k runs", a3, NULL, NULL);
		bad |= measure("history --all, 300k runs", a4, NULL, NULL);
		bad |= measure("history --all --json, 300k runs", a5, NULL, NULL);
		bad |= measure("history --all --limit 1000", a6, NULL, NULL);
	}
	sh("rm -rf '%s'", dir);
	if (bad)
		printf("bench-store: a command failed or took %.0f s or more\n", LIMIT_S);
	return bad ? 1 : 0;
}
