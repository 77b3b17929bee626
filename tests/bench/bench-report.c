/*
 * bench-report.c - `swaptune report` over a 1 000 000-tick recording
 * against the floor: the plain sqlite3 CLI reading the same rows.
 *
 * Builds (once, reused while it has the right shape) a store in $TMPDIR with
 * recording 1 of 1 000 000 ticks and recording 2 of 1 000 ticks, each tick
 * a sampler JSON line of the real layout (~1 KiB) with varying values. Then,
 * alternating in one run so drift hits both alike, ROUNDS times each:
 *   report: ./swaptune --db DB report --before 1 --after 2 --format FMT >/dev/null
 *   floor:  sqlite3 DB "SELECT seq, t_ns, data FROM samples WHERE run_id IN (1, 2)
 *           ORDER BY run_id, seq" >/dev/null
 * and prints the median wall times and their ratio, for text and html.
 * Exits 1 when the report takes 2 s or more (median), or when the sqlite3 CLI
 * is missing (the floor is part of the figure).
 *
 * Note: samples is a WITHOUT ROWID table, so each ~1 KiB tick spills into
 * overflow pages: 1 000 000 ticks take ~4.7 GB on disk, and reading them is
 * I/O-bound for the floor and the report alike.
 *
 * usage: bench-report [ticks]     (1000000)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/err.h"
#include "swaptune/store.h"

#define ROUNDS 3
#define LIMIT_S 2.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int count_rows(sqlite3 *db, int run)
{
	sqlite3_stmt *s;
	int n = -1;
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT max(seq) FROM samples WHERE run_id = %d", run);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n;
}

static int tick_json(char *buf, size_t len, long seq, unsigned *rng)
{
	double r[8];

	for (int i = 0; i < 8; i++) {
		*rng = *rng * 1103515245u + 12345u;
		r[i] = (double)((*rng >> 8) % 1000) / 1000.0;
	}
	return snprintf(buf, len,
		"{\"schema\":\"swaptune.sample/1\",\"seq\":%ld,\"time\":\"2026-11-30T10:00:00.000Z\","
		"\"elapsed_s\":%ld.000000,\"interval_s\":1.000000,\"vmstat\":{\"pswpin_pages_per_s\":0,"
		"\"pswpout_pages_per_s\":0,\"zswpin_pages_per_s\":%.1f,\"zswpout_pages_per_s\":%.1f,"
		"\"zswpwb_pages_per_s\":0,\"swap_ra_pages_per_s\":%.1f,\"swap_ra_hit_pages_per_s\":%.1f,"
		"\"pgmajfault_per_s\":%.1f,\"refault_anon_pages_per_s\":12,\"refault_file_pages_per_s\":3,"
		"\"pgscan_pages_per_s\":7000,\"pgsteal_pages_per_s\":6500},\"zswap\":{\"stored_pages\":49152,"
		"\"pool_bytes\":67108864,\"incompressible_pages\":12,\"written_back_pages_per_s\":0,"
		"\"rejects_per_s\":0,\"pool_limit_hits_per_s\":0},\"psi\":{\"some_pct\":%.3f,\"full_pct\":%.3f,"
		"\"some_avg10_pct\":1.5,\"full_avg10_pct\":0.5},\"meminfo\":{\"swap_used_bytes\":268435456,"
		"\"swap_cached_bytes\":2097152,\"zswap_bytes\":67108864,\"zswapped_bytes\":201326592},"
		"\"cpu\":{\"source\":\"software\",\"target\":\"system\",\"note\":null,\"cycles_per_s\":null,"
		"\"instructions_per_s\":null,\"dtlb_load_misses_per_s\":null,\"busy_pct\":%.2f,"
		"\"major_faults_per_s\":null,\"minor_faults_per_s\":null,\"context_switches_per_s\":null},"
		"\"derived\":{\"ra_hit_pct\":31.5,\"ra_wasted_pages_per_s\":%.1f,\"zswap_compression_ratio\":3,"
		"\"ipc\":null},\"unavailable\":{}}",
		seq, seq, 4000 + 500 * r[0], 5200 + 100 * r[1], 2800 + 300 * r[2], 900 + 50 * r[3],
		1200 + 80 * r[4], 8 + r[5], 1 + r[6], 35 + 10 * r[7], 1900 + 100 * r[2]);
}

static int build_store(const char *path, long ticks)
{
	struct store st;
	struct st_err e = { 0 };
	sqlite3_stmt *ins;
	char buf[4096];
	unsigned rng = 42;
	double t0 = now_s();

	if (store_open(&st, path, &e) < 0) {
		fprintf(stderr, "bench-report: %s\n", e.msg);
		return -1;
	}
	if (count_rows(st.db, 1) == ticks && count_rows(st.db, 2) == 1000) {
		store_close(&st);
		return 0;
	}
	printf("building %s: %ld + 1000 ticks ...\n", path, ticks);
	sqlite3_exec(st.db, "DELETE FROM samples; DELETE FROM runs;"
		     "INSERT INTO runs (id, kind, started_at, ended_at, status) VALUES"
		     " (1, 'sample', '2026-11-30T10:00:00.000Z', '2026-11-30T12:00:00.000Z', 'ok'),"
		     " (2, 'sample', '2026-11-30T13:00:00.000Z', '2026-11-30T13:20:00.000Z', 'ok');"
		     "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(st.db, "INSERT INTO samples (run_id, seq, t_ns, data) VALUES (?1, ?2, ?3, ?4)",
			   -1, &ins, NULL);
	for (int run = 1; run <= 2; run++)
		for (long i = 1; i <= (run == 1 ? ticks : 1000); i++) {
			int n = tick_json(buf, sizeof(buf), i, &rng);

			sqlite3_reset(ins);
			sqlite3_bind_int(ins, 1, run);
			sqlite3_bind_int64(ins, 2, i);
			sqlite3_bind_int64(ins, 3, (sqlite3_int64)i * 1000000000LL);
			sqlite3_bind_text(ins, 4, buf, n, SQLITE_STATIC);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				fprintf(stderr, "bench-report: insert: %s\n", sqlite3_errmsg(st.db));
				return -1;
			}
		}
	sqlite3_finalize(ins);
	sqlite3_exec(st.db, "COMMIT", NULL, NULL, NULL);
	sqlite3_exec(st.db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	store_close(&st);
	printf("built in %.1f s\n", now_s() - t0);
	return 0;
}

/* wall time of argv with stdout to /dev/null; -1 on failure */
static double run_timed(char *const argv[])
{
	double t0;
	int status;
	pid_t pid;

	fflush(stdout);		/* or the child's exit flushes our buffer again */
	t0 = now_s();
	pid = fork();

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long ticks = argc > 1 ? atol(argv[1]) : 1000000;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *bin = getenv("SWAPTUNE") ? getenv("SWAPTUNE") : "./swaptune";
	static const char *const fmts[] = { "text", "html" };
	char db[4096];
	int bad = 0;

	snprintf(db, sizeof(db), "%s/swaptune-bench-report-%ld.db", tmp, ticks);
	if (system("command -v sqlite3 >/dev/null 2>&1") != 0) {
		fprintf(stderr, "bench-report: the sqlite3 CLI (the floor) is not installed\n");
		return 1;
	}
	if (build_store(db, ticks) < 0)
		return 1;
	for (size_t f = 0; f < 2; f++) {
		char *rep[] = { (char *)bin, "--db", db, "report", "--before", "1", "--after", "2",
				"--format", (char *)fmts[f], NULL };
		char *floor_[] = { "sqlite3", db, "SELECT seq, t_ns, data FROM samples WHERE run_id IN (1, 2)"
				   " ORDER BY run_id, seq", NULL };
		double tr[ROUNDS], tf[ROUNDS];

		for (int i = 0; i < ROUNDS; i++) {
			/* alternate which goes first */
			if (i % 2) {
				tf[i] = run_timed(floor_);
				tr[i] = run_timed(rep);
			} else {
				tr[i] = run_timed(rep);
				tf[i] = run_timed(floor_);
			}
			if (tr[i] < 0 || tf[i] < 0) {
				fprintf(stderr, "bench-report: a run failed (report %.3f, sqlite3 %.3f)\n", tr[i], tf[i]);
				return 1;
			}
		}
		qsort(tr, ROUNDS, sizeof(double), cmp_double);
		qsort(tf, ROUNDS, sizeof(double), cmp_double);
		printf("report --format %-4s over %ld + 1000 ticks: %.3f s median; sqlite3 CLI floor %.3f s; "
		       "ratio %.2f (%d rounds each, alternating)%s\n", fmts[f], ticks, tr[ROUNDS / 2],
		       tf[ROUNDS / 2], tr[ROUNDS / 2] / tf[ROUNDS / 2], ROUNDS,
		       tr[ROUNDS / 2] < LIMIT_S ? "" : "  <-- over the 2 s budget");
		bad |= tr[ROUNDS / 2] >= LIMIT_S;
	}
	return bad;
}
