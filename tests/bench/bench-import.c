/*
 * bench-import.c - `make bench`: import 10 000 exported probe files (one
 * run each, three arms, 16 trials with a metric, a snapshot, a journal row
 * and a sample) into a fresh store with `swaptune import`, build the fleet
 * report over them, and compare the import with the floor: the sqlite3 CLI
 * inserting the same rows from one SQL script into a store with the same
 * schema, in one transaction (bulk) and in one transaction per file (as
 * import commits). Prints the times and the ratio; goal: import <= 1.5x the
 * bulk floor. Everything lives in a temporary directory, removed at the end
 * (kept with BENCH_KEEP=1).
 *
 *   bench-import [FILES]      (default 10000; SWAPTUNE = the binary, default ./swaptune)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_ROUNDS 3

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double run(const char *cmd)
{
	double t0 = now_s();
	int st = system(cmd);

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench-import: failed: %s\n", cmd);
		exit(1);
	}
	return now_s() - t0;
}

static const char *const arms[3] = { "pc3", "pc1", "pc0" };

static double value(unsigned f, int arm, int t)
{
	return 1000.0 * (1 + 0.04 * arm) * (1 + 0.01 * ((f * 7 + (unsigned)t * 13) % 11) / 10.0);
}

/* One export file for host h (10 files per host), run f. */
static void write_export(FILE *o, unsigned f)
{
	unsigned h = f / 10;

	fprintf(o, "{\"schema\":\"swaptune.export/1\",\"exported_at\":\"2026-11-30T00:00:00Z\","
		"\"host\":{\"machine_id\":\"bench%027x\",\"hostname\":\"node-%u\",\"kernel\":\"6.8.0-%u-generic\","
		"\"cpu_model\":\"Bench CPU\",\"boot_id\":null,\"swaptune_version\":\"bench\"},\"runs\":[{"
		"\"id\":%u,\"kind\":\"probe\",\"status\":\"ok\",\"started_at\":\"2026-11-20T00:00:00.%03uZ\","
		"\"ended_at\":null,\"params\":{\"workload\":{\"name\":\"anon-seq\"},\"baseline\":\"pc3\"},"
		"\"summary\":{\"host\":{\"kernel\":\"6.8.0-%u-generic\",\"swap\":{\"kind\":\"host\",\"device\":\"/dev/vda3\"}},"
		"\"primary_metric\":{\"higher_is_better\":true},\"verdict\":{\"kind\":\"switch\",\"arm\":\"pc0\"}},"
		"\"arms\":[", h, h, h % 3, f + 1, f % 1000, h % 3);
	for (int a = 0; a < 3; a++)
		fprintf(o, "%s{\"name\":\"%s\",\"settings\":{\"page-cluster\":\"%d\"},\"emulated\":false,\"note\":null}",
			a ? "," : "", arms[a], 3 - a);
	fprintf(o, "],\"trials\":[");
	for (int t = 0; t < 16; t++) {
		char v[32];

		snprintf(v, sizeof(v), "%.17g", value(f, t % 3, t));
		fprintf(o, "%s{\"arm\":\"%s\",\"round\":%d,\"seq\":%d,\"warmup\":false,\"status\":\"%s\","
			"\"started_at\":null,\"primary\":%s,\"note\":null,\"metrics\":{\"major_faults\":%d}}",
			t ? "," : "", arms[t % 3], t / 3, t + 1, t == 15 ? "oom" : "ok",
			t == 15 ? "null" : v, 100 + t);
	}
	fprintf(o, "],\"snapshots\":[{\"taken_at\":null,\"reason\":\"before probe\",\"settings\":{\"page-cluster\":\"3\"}}],"
		"\"changes\":[{\"kind\":\"setting\",\"name\":\"page-cluster\",\"old\":\"3\",\"new\":\"0\",\"temporary\":true,"
		"\"state\":\"restored\"}],\"samples\":[{\"seq\":1,\"t_ns\":1000,\"data\":{\"pswpin\":1}}]}]}\n");
}

/* The same rows as INSERTs; per_file wraps each file's rows in BEGIN/COMMIT. */
static void write_sql(FILE *o, unsigned n, int per_file)
{
	unsigned hosts = (n + 9) / 10;

	if (!per_file)
		fprintf(o, "BEGIN;\n");
	for (unsigned h = 0; h < hosts; h++)
		fprintf(o, "INSERT INTO hosts (id, machine_id, hostname, kernel, cpu_model) VALUES "
			"(%u, 'bench%027x', 'node-%u', '6.8.0-%u-generic', 'Bench CPU');\n", h + 1, h, h, h % 3);
	for (unsigned f = 0; f < n; f++) {
		unsigned r = f + 1, h = f / 10;

		if (per_file)
			fprintf(o, "BEGIN;\n");
		fprintf(o, "INSERT INTO runs (id, host_id, kind, started_at, status, params, summary, origin_machine_id,"
			" origin_run_id, origin_started_at, origin_kind, origin_status, content_hash) VALUES (%u, %u,"
			" 'imported', '2026-11-20T00:00:00.%03uZ', 'imported', '{\"workload\":{\"name\":\"anon-seq\"},"
			"\"baseline\":\"pc3\"}', '{\"host\":{\"kernel\":\"6.8.0-%u-generic\",\"swap\":{\"kind\":\"host\","
			"\"device\":\"/dev/vda3\"}},\"primary_metric\":{\"higher_is_better\":true},\"verdict\":{\"kind\":"
			"\"switch\",\"arm\":\"pc0\"}}', 'bench%027x', %u, '2026-11-20T00:00:00.%03uZ', 'probe', 'ok',"
			" '0123456789abcdef');\n", r, h + 1, f % 1000, h % 3, h, r, f % 1000);
		for (int a = 0; a < 3; a++)
			fprintf(o, "INSERT INTO arms (id, run_id, name, settings, emulated) VALUES (%u, %u, '%s',"
				" '{\"page-cluster\":\"%d\"}', 0);\n", r * 3 + (unsigned)a, r, arms[a], 3 - a);
		for (int t = 0; t < 16; t++) {
			unsigned tid = r * 16 + (unsigned)t;

			if (t == 15)
				fprintf(o, "INSERT INTO trials (id, run_id, arm_id, round, seq, warmup, status, started_at,"
					" primary_value) VALUES (%u, %u, %u, %d, %d, 0, 'oom', strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ','now'),"
					" NULL);\n", tid, r, r * 3 + (unsigned)(t % 3), t / 3, t + 1);
			else
				fprintf(o, "INSERT INTO trials (id, run_id, arm_id, round, seq, warmup, status, started_at,"
					" primary_value) VALUES (%u, %u, %u, %d, %d, 0, 'ok', strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ','now'),"
					" %.17g);\n", tid, r, r * 3 + (unsigned)(t % 3), t / 3, t + 1, value(f, t % 3, t));
			fprintf(o, "INSERT INTO metrics (trial_id, key, value) VALUES (%u, 'major_faults', %d);\n",
				tid, 100 + t);
		}
		fprintf(o, "INSERT INTO snapshots (run_id, reason, settings) VALUES (%u, 'before probe',"
			" '{\"page-cluster\":\"3\"}');\n", r);
		fprintf(o, "INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name, old_value,"
			" new_value, temporary, state, origin_state) VALUES ('imported', %u, 0, 0, 'imported', 'setting',"
			" 'page-cluster', '3', '0', 1, 'imported', 'restored');\n", r);
		fprintf(o, "INSERT INTO samples (run_id, seq, t_ns, data) VALUES (%u, 1, 1000, '{\"pswpin\":1}');\n", r);
		if (per_file)
			fprintf(o, "COMMIT;\n");
	}
	if (!per_file)
		fprintf(o, "COMMIT;\n");
}

int main(int argc, char **argv)
{
	char *bin = realpath(getenv("SWAPTUNE") ? getenv("SWAPTUNE") : "./swaptune", NULL);
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10000;
	char dir[] = "/tmp/swaptune-bench-import.XXXXXX", cmd[8192], path[4200];
	double t_imp, t_rep, t_bulk, t_tx;
	FILE *o;

	if (system("command -v sqlite3 >/dev/null 2>&1") != 0) {
		printf("bench-import: skipped: needs the sqlite3 command-line tool for the floor\n");
		return 0;
	}
	if (!bin || access(bin, X_OK) != 0 || !mkdtemp(dir)) {
		fprintf(stderr, "bench-import: no swaptune binary (SWAPTUNE) or no temporary directory\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/files", dir);
	snprintf(cmd, sizeof(cmd), "mkdir %s", path);
	run(cmd);
	for (unsigned f = 0; f < n; f++) {
		char fp[4300];

		snprintf(fp, sizeof(fp), "%s/files/run-%05u.json", dir, f);
		if (!(o = fopen(fp, "w")))
			return perror(fp), 1;
		write_export(o, f);
		fclose(o);
	}
	for (int per_file = 0; per_file < 2; per_file++) {
		snprintf(path, sizeof(path), "%s/floor-%d.sql", dir, per_file);
		if (!(o = fopen(path, "w")))
			return perror(path), 1;
		write_sql(o, n, per_file);
		fclose(o);
	}
	/*
	 * The machine is shared: each of import and the bulk floor runs
	 * BENCH_ROUNDS times into a fresh store with the schema (made by
	 * swaptune itself), and the fastest round counts.
	 */
	t_imp = t_bulk = 1e9;
	for (int k = 0; k < BENCH_ROUNDS; k++) {
		double t;

		snprintf(cmd, sizeof(cmd), "rm -f %s/db0* %s/db1* && %s --db %s/db0 history >/dev/null &&"
			 " %s --db %s/db1 history >/dev/null", dir, dir, bin, dir, bin, dir);
		run(cmd);
		snprintf(cmd, sizeof(cmd), "cd %s/files && %s --db %s/db0 import run-*.json >/dev/null",
			 dir, bin, dir);
		if ((t = run(cmd)) < t_imp)
			t_imp = t;
		snprintf(cmd, sizeof(cmd), "sqlite3 %s/db1 <%s/floor-0.sql", dir, dir);
		if ((t = run(cmd)) < t_bulk)
			t_bulk = t;
	}
	snprintf(cmd, sizeof(cmd), "%s --db %s/db0 fleet-report >%s/report.txt", bin, dir, dir);
	t_rep = run(cmd);
	snprintf(cmd, sizeof(cmd), "%s --db %s/db2 history >/dev/null && sqlite3 %s/db2 'PRAGMA journal_mode=WAL' >/dev/null &&"
		 " (echo 'PRAGMA synchronous=NORMAL;'; cat %s/floor-1.sql) | sqlite3 %s/db2", bin, dir, dir, dir, dir);
	t_tx = run(cmd);
	/* same rows in both */
	snprintf(cmd, sizeof(cmd), "test \"$(sqlite3 %s/db0 'SELECT count(*) FROM trials')\" ="
		 " \"$(sqlite3 %s/db1 'SELECT count(*) FROM trials')\"", dir, dir);
	run(cmd);
	printf("bench-import: %u files: swaptune import %.2f s; sqlite3 floor: bulk %.2f s "
	       "(fastest of %d each), one transaction per file %.2f s\n", n, t_imp, t_bulk, BENCH_ROUNDS, t_tx);
	printf("bench-import: ratio import / bulk floor %.2f (goal <= 1.5), import / per-file floor %.2f\n",
	       t_imp / t_bulk, t_imp / t_tx);
	printf("bench-import: fleet-report over %u runs: %.2f s\n", n, t_rep);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (getenv("BENCH_KEEP"))
		printf("bench-import: kept %s\n", dir);
	else
		run(cmd);
	free(bin);
	return 0;
}
