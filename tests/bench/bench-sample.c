/*
 * bench-sample.c - CPU cost of one sample of the sampler engine against the
 * floor: a minimal loop that only opens, reads and closes the same files.
 *
 * Sources: /proc/vmstat, /proc/meminfo, /proc/pressure/memory, the zswap
 * debugfs counters (when mounted) and the memory cgroup root's memory.stat
 * (+ memory.pressure where it exists), no CPU counters, no output. The floor
 * reads only the files that exist. Both run in alternating blocks in one
 * process so drift hits both alike; CPU time is getrusage() user + system.
 *
 * Then CPU % of one core at 100 Hz, measured over 3 s of real ticks
 * (engine + JSON formatting), and at 1 Hz extrapolated from the per-sample
 * cost.
 *
 * Last, the whole binary against a floor process, per tick: `swaptune
 * sample --json --no-cpu --cgroup ""` at 10 ms and a forked floor that, on
 * the same 10 ms schedule, opens, reads and closes the same files and
 * writes one line as long as the binary's (identity included) per tick.
 * Five pairs; the two of a pair run side by side, at the same time, so that
 * both see the same machine (this host is shared: its load moves by the
 * second). Each side runs N ticks (500, or $BENCH_TICKS) and then 1 tick;
 * (CPU of N - CPU of 1) / (N - 1) is its CPU per tick, so start-up
 * (dynamic linking, opening the store) cancels. The median of the five
 * ratios is printed against the target. $BENCH_SWAPTUNE names another
 * build of swaptune to measure (an older one, for a before/after).
 *
 * Exits 1 when the engine costs more than 1.5x the floor, or the binary
 * more than 1.2x its floor process per tick.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/cmd.h"
#include "swaptune/sampler.h"

#define MAX_FILES 24
#define BLOCK 2000
#define ROUNDS 6
#define TARGET_RATIO 1.5
#define TARGET_BIN_RATIO 1.2
#define PAIRS 5
#define TICK_NS 10000000ULL

static char rels[MAX_FILES][PATH_MAX];
static int nrels;
static char buf[65536];

static double cpu_s(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void add_if_present(const struct host *h, const char *rel)
{
	if (nrels < MAX_FILES && host_exists(h, rel))
		snprintf(rels[nrels++], PATH_MAX, "%s", rel);
}

/* the zswap debugfs files the sampler reads: its rows' keys (vocab.h) */
static void add_zswap_files(const struct host *h)
{
	char rel[PATH_MAX];

	for (int v = 0; v < V_COUNT; v++) {
		const struct vocab_row *r = &vocab_rows[v];
		bool read = false;

		for (int m = 0; m < SM_COUNT; m++)
			read |= sample_metric_defs[m].row == r;
		for (int c = 0; c < SC_COUNT; c++)
			read |= sample_counter_defs[c].row == r;
		if (r->source != VSRC_ZSWAP || !read)
			continue;
		for (int k = 0; k < VOCAB_TERMS && r->keys[k]; k++) {
			bool dup = false;

			snprintf(rel, sizeof(rel), "%s/%s", HOST_ZSWAP_DEBUGFS, r->keys[k]);
			for (int i = 0; i < nrels; i++)
				dup |= !strcmp(rels[i], rel);
			if (!dup)
				add_if_present(h, rel);
		}
	}
}

/* the floor: open, read to EOF, close, for every file; nothing else */
static void floor_sample(const struct host *h)
{
	for (int i = 0; i < nrels; i++) {
		int fd = openat(h->rootfd, rels[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

static double ru_s(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

/* the floor process: ticks on the sampler's schedule, reads, one write a tick */
static void floor_process(const struct host *h, int ticks, size_t line_len)
{
	static char line[65536];
	uint64_t next = mono_ns();

	memset(line, 'x', sizeof(line));
	line_len = line_len < sizeof(line) ? line_len : sizeof(line);
	floor_sample(h);	/* the baseline tick */
	for (int i = 0; i < ticks; i++) {
		struct timespec ts;

		next += TICK_NS;
		ts.tv_sec = (time_t)(next / 1000000000ULL);
		ts.tv_nsec = (long)(next % 1000000000ULL);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		floor_sample(h);
		if (write(1, line, line_len) < 0)
			_exit(1);
	}
	_exit(0);
}

/* ticks a side runs for its long run: 500, or $BENCH_TICKS */
static int long_ticks(void)
{
	const char *t = getenv("BENCH_TICKS");

	return t && atoi(t) >= 10 ? atoi(t) : 500;
}

/* the binary measured: ./swaptune, or $BENCH_SWAPTUNE (an older build, to compare) */
static const char *swaptune_bin(void)
{
	const char *b = getenv("BENCH_SWAPTUNE");

	return b && *b ? b : "./swaptune";
}

/* start one child: swaptune sample --json, or (floor) the floor process; ticks ticks */
static pid_t child_start(const struct host *h, bool floor, int ticks, size_t line_len,
			 const char *db)
{
	char count[32];
	pid_t pid;

	snprintf(count, sizeof(count), "%d", ticks);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		dup2(devnull, 2);
		if (floor)
			floor_process(h, ticks, line_len);
		execl(swaptune_bin(), "swaptune", "sample", "--json", "--no-cpu", "--cgroup", "",
		      "--interval", "10ms", "--count", count, "--db", db, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * CPU seconds of swaptune and of the floor process, both running ticks
 * ticks at the same time: side by side, both see the same machine.
 */
static int pair_cpu(const struct host *h, int ticks, size_t line_len, double *bin, double *flo)
{
	char db[64], cmd[200];
	pid_t pb, pf;
	struct rusage ru;
	int st, ok = 1;

	snprintf(db, sizeof(db), "/tmp/bench-sample-%d-%d.db", (int)getpid(), ticks);
	pb = child_start(h, false, ticks, line_len, db);
	pf = child_start(h, true, ticks, line_len, db);
	if (pb < 0 || pf < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		pid_t p = wait4(-1, &st, 0, &ru);

		if (p < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ok = 0;
		else if (p == pb)
			*bin = ru_s(&ru);
		else
			*flo = ru_s(&ru);
	}
	snprintf(cmd, sizeof(cmd), "rm -f %s %s-wal %s-shm", db, db, db);
	if (system(cmd) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Per-tick CPU of swaptune sample --json at 10 ms over the floor process's,
 * five pairs; *ratio the median, per_bin/per_floor its pair's.
 */
static int binary_vs_floor(const struct host *h, size_t line_len, double *ratio,
			   double *per_bin, double *per_floor)
{
	double r[PAIRS], pb[PAIRS], pf[PAIRS];
	int n = long_ticks();

	if (access(swaptune_bin(), X_OK) != 0)
		return -1;
	for (int i = 0; i < PAIRS; i++) {
		double bl, b1, fl, f1;

		if (pair_cpu(h, n, line_len, &bl, &fl) < 0 || pair_cpu(h, 1, line_len, &b1, &f1) < 0)
			return -1;
		pb[i] = (bl - b1) / (n - 1);
		pf[i] = (fl - f1) / (n - 1);
		r[i] = pb[i] / pf[i];
		printf("  pair %d: swaptune %7.2f us a tick, floor %7.2f us a tick, ratio %.2f\n",
		       i + 1, pb[i] * 1e6, pf[i] * 1e6, r[i]);
	}
	{
		double sorted[PAIRS];

		memcpy(sorted, r, sizeof(r));
		qsort(sorted, PAIRS, sizeof(double), cmp_double);
		*ratio = sorted[PAIRS / 2];
		for (int i = 0; i < PAIRS; i++)
			if (r[i] == *ratio) {
				*per_bin = pb[i];
				*per_floor = pf[i];
			}
	}
	return 0;
}

int main(void)
{
	struct sampler_opts o = { .cgroup = "", .zswap_pool = true };
	struct st_cgroup_info ci;
	struct sampler *s;
	struct host h;
	struct st_err e = { 0 };
	double floor_cpu = 0, eng_cpu = 0, t, per_floor, per_eng, ratio, pct100;
	double bin_ratio = 0, per_bin = 0, per_bfloor = 0;
	size_t line_len = 0;
	bool have_bin;
	char rel[PATH_MAX * 2], json[16384], members[1024];
	uint64_t now, next, end;
	long n = 0;
	int len;

	if (host_open(&h, "/", &e) < 0 || host_cgroup_info(&h, &ci, &e) < 0) {
		fprintf(stderr, "bench-sample: %s\n", e.msg);
		return 1;
	}
	if (!ci.memory_root[0])
		o.cgroup = NULL;
	add_if_present(&h, HOST_VMSTAT);
	add_if_present(&h, HOST_MEMINFO);
	add_if_present(&h, HOST_PSI_MEMORY);
	add_zswap_files(&h);
	if (o.cgroup) {
		snprintf(rel, sizeof(rel), "%s/memory.stat", ci.memory_root);
		add_if_present(&h, rel);
		snprintf(rel, sizeof(rel), "%s/memory.pressure", ci.memory_root);
		add_if_present(&h, rel);
	}
	if (sampler_open(&s, &h, &o, &e) < 0) {
		fprintf(stderr, "bench-sample: %s\n", e.msg);
		return 1;
	}
	if (cmd_identity_members(&h, members, sizeof(members)) > 0)
		sampler_set_json_members(s, members);	/* as sample --json: lines as long */
	printf("files read per sample (%d):", nrels);
	for (int i = 0; i < nrels; i++)
		printf(" /%s", rels[i]);
	printf("%s\n", host_exists(&h, HOST_ZSWAP_DEBUGFS) ? "" :
	       " (zswap debugfs not mounted: neither side reads it)");

	/* warm both paths (page cache of the binary, the sampler's line hints) */
	for (int i = 0; i < 200; i++) {
		floor_sample(&h);
		sampler_tick(s, mono_ns(), 0, &e);
	}
	for (int r = 0; r < ROUNDS; r++) {
		t = cpu_s(RUSAGE_SELF);
		for (int i = 0; i < BLOCK; i++)
			floor_sample(&h);
		floor_cpu += cpu_s(RUSAGE_SELF) - t;
		t = cpu_s(RUSAGE_SELF);
		for (int i = 0; i < BLOCK; i++)
			if (sampler_tick(s, mono_ns(), 0, &e) < 0) {
				fprintf(stderr, "bench-sample: %s\n", e.msg);
				return 1;
			}
		eng_cpu += cpu_s(RUSAGE_SELF) - t;
	}
	per_floor = floor_cpu / (ROUNDS * BLOCK);
	per_eng = eng_cpu / (ROUNDS * BLOCK);
	ratio = per_eng / per_floor;

	/* real ticks at 100 Hz for 3 s: engine + JSON formatting */
	t = cpu_s(RUSAGE_SELF);
	now = mono_ns();
	end = now + 3000000000ULL;
	for (next = now; next < end; next += 10000000ULL) {
		struct timespec ts = { (time_t)(next / 1000000000ULL), (long)(next % 1000000000ULL) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		sampler_tick(s, mono_ns(), 0, &e);
		len = sampler_format_json(s, json, sizeof(json));
		if (len > 0)
			line_len = (size_t)len + 1;
		n++;
	}
	pct100 = 100.0 * (cpu_s(RUSAGE_SELF) - t) / ((double)(mono_ns() - now) / 1e9);
	sampler_close(s);

	printf("%-54s %8.2f us\n", "floor: open/read/close each file, CPU per sample", per_floor * 1e6);
	printf("%-54s %8.2f us\n", "sampler engine (pread, parse, rates), CPU per sample", per_eng * 1e6);
	printf("%-54s %8.2f   (target <= %.1f) %s\n", "ratio sampler / floor", ratio, TARGET_RATIO,
	       ratio <= TARGET_RATIO ? "ok" : "TOO SLOW");
	printf("%-54s %8.3f %%  (measured, %ld ticks in 3 s)\n",
	       "CPU of one core at 100 Hz, engine + JSON", pct100, n);
	printf("%-54s %8.4f %%  (extrapolated: per-sample cost x 1/s)\n",
	       "CPU of one core at 1 Hz, engine", per_eng * 100.0);
	printf("%s sample --json at 10 ms against its floor process (%d pairs side by side, %d ticks - 1 tick):\n",
	       swaptune_bin(), PAIRS, long_ticks());
	have_bin = binary_vs_floor(&h, line_len, &bin_ratio, &per_bin, &per_bfloor) == 0;
	if (have_bin) {
		printf("%-54s %8.2f   (target <= %.1f) %s\n", "ratio sample --json / floor process, median",
		       bin_ratio, TARGET_BIN_RATIO, bin_ratio <= TARGET_BIN_RATIO ? "ok" : "TOO SLOW");
		printf("%-54s %8.3f %%  (that pair: %.1f us a tick x 100)\n",
		       "CPU of one core at 100 Hz, swaptune sample --json", per_bin * 1e4, per_bin * 1e6);
	} else {
		printf("  (%s not built, or it failed: not measured)\n", swaptune_bin());
	}
	host_close(&h);
	return ratio <= TARGET_RATIO && (!have_bin || bin_ratio <= TARGET_BIN_RATIO) ? 0 : 1;
}
