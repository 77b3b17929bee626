/*
 * bench-report.c - `swaptune report` over a 1 000 000-tick recording
 * against the floor: the plain sqlite3 CLI reading the same rows.
 *
 * Builds (once, reused while it has the right shape) a store in $TMPDIR with
 * recording 1 of 1 000 000 ticks and recording 2 of 1 000 ticks, written
 * through the recorder's own writer (store_samples_add_json(): numbers rows
 * after the recording's strings row), each tick a sampler JSON line of the real
 * layout (~2.3 KiB: host, vmstat, zswap, psi, meminfo, cgroup, cpu, derived,
 * counters) with values that vary every tick as a live host's do. Then,
 * alternating in one run so drift hits both alike, ROUNDS times each:
 *   report: ./swaptune --db DB report --before 1 --after 2 --format FMT >/dev/null
 *   floor:  sqlite3 DB "SELECT seq, t_ns, data, shape_id, vals FROM samples
 *           WHERE run_id IN (1, 2) ORDER BY run_id, seq" >/dev/null
 * and prints the median wall times and their ratio, for text and html.
 * Exits 1 when the report takes 2 s or more (median), or when the sqlite3 CLI
 * is missing (the floor is part of the figure).
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

/* ticks of recording run, -1 unless every one is a compact row */
static long count_rows(sqlite3 *db, int run)
{
	sqlite3_stmt *s;
	long n = -1;
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT max(seq), count(*) = count(shape_id) FROM samples"
		 " WHERE run_id = %d", run);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
	    sqlite3_column_int(s, 1))
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static double rnd(unsigned *rng)
{
	*rng = *rng * 1103515245u + 12345u;
	return (double)((*rng >> 8) & 0xffff) / 65536.0;
}

/* A tick of the sampler's layout; rates are counter deltas over a jittered interval. */
static int tick_json(char *buf, size_t len, long seq, unsigned *rng, uint64_t *ctr)
{
	double iv = 1 + (rnd(rng) - 0.5) * 0.002, r[8];
	long ms = (seq * 1000 + (long)(rnd(rng) * 3)) % 86400000;

	for (int i = 0; i < 8; i++) {
		ctr[i] += (uint64_t)(1000 * rnd(rng)) + 100 * (uint64_t)i;
		r[i] = (double)((uint64_t)(1000 * rnd(rng)) + 100 * (uint64_t)i) / iv;
	}
	return snprintf(buf, len,
		"{\"schema\":\"swaptune.sample/1\",\"host\":{\"machine_id\":\"4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e\","
		"\"hostname\":\"bench-host\",\"boot_id\":\"0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e\"},"
		"\"swaptune_version\":\"0.1.0\",\"seq\":%ld,\"time\":\"2026-11-30T%02ld:%02ld:%02ld.%03ldZ\","
		"\"elapsed_s\":%.6f,\"interval_s\":%.6f,\"page_size\":4096,"
		"\"vmstat\":{\"pswpin_pages_per_s\":0,\"pswpout_pages_per_s\":0,\"zswpin_pages_per_s\":%.10g,"
		"\"zswpout_pages_per_s\":%.10g,\"zswpwb_pages_per_s\":0,\"swap_ra_pages_per_s\":%.10g,"
		"\"swap_ra_hit_pages_per_s\":%.10g,\"pgmajfault_per_s\":%.10g,\"refault_anon_pages_per_s\":%.10g,"
		"\"refault_file_pages_per_s\":3,\"pgscan_pages_per_s\":%.10g,\"pgsteal_pages_per_s\":%.10g},"
		"\"zswap\":{\"stored_pages\":%llu,\"pool_bytes\":%llu,\"incompressible_pages\":12,"
		"\"written_back_pages_per_s\":0,\"rejects_per_s\":0,\"pool_limit_hits_per_s\":0},"
		"\"psi\":{\"some_pct\":%.10g,\"full_pct\":%.10g,\"some_avg10_pct\":1.5,\"full_avg10_pct\":0.5},"
		"\"meminfo\":{\"swap_used_bytes\":%llu,\"swap_cached_bytes\":2097152,\"zswap_bytes\":%llu,"
		"\"zswapped_bytes\":%llu},"
		"\"cgroup\":{\"path\":\"swaptune-bench\",\"version\":\"v2\",\"anon_bytes\":104857600,"
		"\"file_bytes\":8388608,\"swap_bytes\":209715200,\"swapcached_bytes\":4194304,"
		"\"zswap_bytes\":67108864,\"zswapped_bytes\":201326592,\"pgmajfault_per_s\":%.10g,"
		"\"zswpin_pages_per_s\":%.10g,\"zswpout_pages_per_s\":%.10g,\"zswpwb_pages_per_s\":0,"
		"\"refault_anon_pages_per_s\":%.10g,\"psi_some_pct\":%.10g,\"psi_full_pct\":%.10g},"
		"\"cpu\":{\"source\":\"software\",\"target\":\"system\",\"note\":null,\"cycles_per_s\":null,"
		"\"instructions_per_s\":null,\"dtlb_load_misses_per_s\":null,\"busy_pct\":%.10g,"
		"\"major_faults_per_s\":null,\"minor_faults_per_s\":null,\"context_switches_per_s\":null},"
		"\"derived\":{\"ra_hit_pct\":%.10g,\"ra_wasted_pages_per_s\":%.10g,"
		"\"zswap_compression_ratio\":%.10g,\"ipc\":null},"
		"\"counters\":{\"pswpin_pages\":0,\"pswpout_pages\":0,\"zswpin_pages\":%llu,\"zswpout_pages\":%llu,"
		"\"zswpwb_pages\":10,\"swap_ra_pages\":%llu,\"swap_ra_hit_pages\":%llu,\"pgmajfault\":%llu,"
		"\"refault_anon_pages\":%llu,\"refault_file_pages\":900,\"pgscan_pages\":%llu,"
		"\"pgsteal_pages\":%llu,\"zswap_written_back_pages\":10,\"zswap_rejects\":8,"
		"\"zswap_pool_limit_hits\":2,\"psi_some_us\":%llu,\"psi_full_us\":%llu,"
		"\"cgroup_pgmajfault\":300,\"cgroup_zswpin_pages\":%llu,\"cgroup_zswpout_pages\":%llu,"
		"\"cgroup_zswpwb_pages\":0,\"cgroup_refault_anon_pages\":50,\"cgroup_psi_some_us\":%llu,"
		"\"cgroup_psi_full_us\":%llu,\"cpu_cycles\":null,\"cpu_instructions\":null,"
		"\"cpu_dtlb_load_misses\":null,\"cpu_task_clock_ns\":null,\"cpu_major_faults\":null,"
		"\"cpu_minor_faults\":null,\"cpu_context_switches\":null},\"unavailable\":{}}",
		seq, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000, seq * iv, iv,
		4000 + r[0], 5200 + r[1], 2800 + r[2], 900 + r[3] / 7, 1200 + r[4], 12 + r[5] / 100,
		7000 + r[6], 6500 + r[7],
		(unsigned long long)(49152 + ctr[0] % 4096), (unsigned long long)(67108864 + ctr[1] % 65536 * 4096),
		r[5] / 50, r[6] / 1000,
		(unsigned long long)(268435456 + ctr[2] % 65536 * 4096),
		(unsigned long long)(67108864 + ctr[3] % 4096 * 4096),
		(unsigned long long)(201326592 + ctr[4] % 4096 * 4096),
		r[3] / 3, r[0] / 2, r[1] / 2, r[4] / 10, r[7] / 3000, r[6] / 5000,
		35 + r[2] / 100,
		100 * (900 + r[3] / 7) / (2800 + r[2]), 1900 + r[2] / 9, 3 + r[4] / 1000,
		(unsigned long long)ctr[0], (unsigned long long)ctr[1], (unsigned long long)ctr[2],
		(unsigned long long)ctr[3], (unsigned long long)ctr[4], (unsigned long long)ctr[5],
		(unsigned long long)ctr[6], (unsigned long long)ctr[7],
		(unsigned long long)ctr[0] * 40, (unsigned long long)ctr[1] * 10,
		(unsigned long long)ctr[2] / 2, (unsigned long long)ctr[3] / 2,
		(unsigned long long)ctr[4] * 20, (unsigned long long)ctr[5] * 5);
}

/* One recording of n ticks through the recorder's writer, in one transaction. */
static int record(struct store *st, long n, unsigned *rng, struct st_err *e)
{
	struct sample_recording rec;
	uint64_t ctr[8] = { 1000000000ULL, 2000000000ULL, 300000000ULL, 200000000ULL,
			    50000000ULL, 7000000ULL, 80000000000ULL, 60000000000ULL };
	char buf[8192];

	if (store_samples_begin(&rec, st, "{\"interval_s\":1}", e) < 0 || store_tx_begin(st, e) < 0)
		return -1;
	for (long i = 1; i <= n; i++) {
		if (tick_json(buf, sizeof(buf), i, rng, ctr) >= (int)sizeof(buf) ||
		    store_samples_add_json(&rec, (uint64_t)i, (uint64_t)i * 1000000000ULL, buf, e) < 0)
			return -1;
	}
	if (store_tx_commit(st, e) < 0)
		return -1;
	return store_samples_end(&rec, "ok", NULL, e);
}

static int build_store(const char *path, long ticks)
{
	struct store st;
	struct st_err e = { 0 };
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
	printf("building %s: %ld + 1000 ticks through the recorder's writer ...\n", path, ticks);
	sqlite3_exec(st.db, "DELETE FROM samples; DELETE FROM sample_shapes; DELETE FROM runs;"
		     "DELETE FROM sqlite_sequence", NULL, NULL, NULL);
	if (record(&st, ticks, &rng, &e) < 0 || record(&st, 1000, &rng, &e) < 0) {
		fprintf(stderr, "bench-report: %s\n", e.msg);
		store_close(&st);
		return -1;
	}
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
		char *floor_[] = { "sqlite3", db, "SELECT seq, t_ns, data, shape_id, vals FROM samples"
				   " WHERE run_id IN (1, 2) ORDER BY run_id, seq", NULL };
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
