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
 * (engine + JSON formatting, then the whole `swaptune sample --json` binary
 * when ./swaptune exists), and at 1 Hz extrapolated from the per-sample cost.
 * Exits 1 when the engine costs more than 1.5x the floor.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/sampler.h"

#define MAX_FILES 24
#define BLOCK 2000
#define ROUNDS 6
#define TARGET_RATIO 1.5

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

static int run_binary_100hz(double *pct)
{
	double before = cpu_s(RUSAGE_CHILDREN), t0;
	pid_t pid;
	int st;

	if (access("./swaptune", X_OK) != 0)
		return -1;
	t0 = (double)mono_ns() / 1e9;
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		char db[64];

		snprintf(db, sizeof(db), "/tmp/bench-sample-%d.db", (int)getpid());
		dup2(devnull, 1);
		dup2(devnull, 2);
		execl("./swaptune", "swaptune", "sample", "--json", "--no-cpu", "--cgroup", "",
		      "--interval", "10ms", "--duration", "3s", "--db", db, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	{
		char db[64], cmd[200];

		snprintf(db, sizeof(db), "/tmp/bench-sample-%d.db", (int)pid);
		snprintf(cmd, sizeof(cmd), "rm -f %s %s-wal %s-shm", db, db, db);
		if (system(cmd) != 0)
			return -1;
	}
	*pct = 100.0 * (cpu_s(RUSAGE_CHILDREN) - before) / ((double)mono_ns() / 1e9 - t0);
	return 0;
}

int main(void)
{
	struct sampler_opts o = { .cgroup = "", .zswap_pool = true };
	struct st_cgroup_info ci;
	struct sampler *s;
	struct host h;
	struct st_err e = { 0 };
	static const char *const zs[] = {
		"stored_pages", "pool_total_size", "stored_incompressible_pages",
		"written_back_pages", "pool_limit_hit", "reject_reclaim_fail",
		"reject_alloc_fail", "reject_kmemcache_fail", "reject_compress_fail",
		"reject_compress_poor",
	};
	double floor_cpu = 0, eng_cpu = 0, t, per_floor, per_eng, ratio, pct100, bin_pct;
	char rel[PATH_MAX * 2], json[16384];
	uint64_t now, next, end;
	long n = 0;

	if (host_open(&h, "/", &e) < 0 || host_cgroup_info(&h, &ci, &e) < 0) {
		fprintf(stderr, "bench-sample: %s\n", e.msg);
		return 1;
	}
	if (!ci.memory_root[0])
		o.cgroup = NULL;
	add_if_present(&h, HOST_VMSTAT);
	add_if_present(&h, HOST_MEMINFO);
	add_if_present(&h, HOST_PSI_MEMORY);
	for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", HOST_ZSWAP_DEBUGFS, zs[i]);
		add_if_present(&h, rel);
	}
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
		sampler_format_json(s, json, sizeof(json));
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
	if (run_binary_100hz(&bin_pct) == 0)
		printf("%-54s %8.3f %%  (measured, 3 s, incl. start-up)\n",
		       "CPU of one core at 100 Hz, swaptune sample --json", bin_pct);
	printf("%-54s %8.4f %%  (extrapolated: per-sample cost x 1/s)\n",
	       "CPU of one core at 1 Hz, engine", per_eng * 100.0);
	host_close(&h);
	return ratio <= TARGET_RATIO ? 0 : 1;
}
