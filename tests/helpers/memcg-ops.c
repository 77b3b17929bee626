/*
 * memcg-ops.c - test helper (tests/t0209-cgroup-live.sh): every operation
 * of cgroup.h once on the live host, the path a captured tree's tests
 * (test-probe) cannot take, as a probe's trial does them: create a
 * swaptune-* group with a limit, move a child process in (the child joins
 * itself, as the workload does), list and read it, then destroy it (the
 * child is killed, the group removed). Root only. One line per step on
 * stdout:
 *
 *   memcg-ops NAME LIMIT_BYTES [GO_FILE]
 *
 *   backend libcgroup|files
 *   created v1|v2 REL
 *   joined PID            the child is in cgroup.procs (then, with GO_FILE,
 *                         it waits up to 20 s for that file to exist: the
 *                         caller looks at the group meanwhile)
 *   stat N                memory.stat has N keys, among them a v1 or v2 one
 *   destroyed             the group is gone and the child reaped
 *
 * Exit 1 at the first step that fails (its error on stderr), 2 on bad
 * arguments.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "swaptune/cgroup.h"

static int die(const char *step, const struct st_err *e)
{
	fprintf(stderr, "memcg-ops: %s: %s\n", step, e->msg[0] ? e->msg : strerror(-e->code));
	return 1;
}

int main(int argc, char **argv)
{
	struct st_err e = { 0 };
	struct host h;
	struct memcg m;
	struct st_kvtab t;
	pid_t child, pids[16];
	int sync[2], n = 0, st;
	uint64_t v;
	char c;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: memcg-ops NAME LIMIT_BYTES [GO_FILE]\n");
		return 2;
	}
	if (host_open(&h, "/", &e) < 0)
		return die("host", &e);
	printf("backend %s\n", memcg_backend(&h));
	fflush(stdout);
	if (memcg_create(&m, &h, NULL, argv[1],
			 (struct memcg_limit){ strtoull(argv[2], NULL, 10), MEMCG_LIMIT_MAX }, &e) < 0)
		return die("create", &e);
	printf("created v%d %s\n", m.version, m.rel);
	fflush(stdout);
	if (pipe(sync) < 0)
		return 1;
	child = fork();
	if (child == 0) {
		/* the workload's side: join, say so, wait to be killed */
		close(sync[0]);
		if (memcg_attach(&m, 0, &e) < 0) {
			fprintf(stderr, "memcg-ops: join: %s\n", e.msg);
			_exit(1);
		}
		if (write(sync[1], "j", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(sync[1]);
	if (child < 0 || read(sync[0], &c, 1) != 1) {
		memcg_destroy(&m, &e);
		return die("join", &e);
	}
	if (memcg_pids(&m, pids, 16, &n, &e) < 0 || n != 1 || pids[0] != child) {
		memcg_destroy(&m, &e);
		return die("cgroup.procs", &e);
	}
	printf("joined %d\n", (int)child);
	fflush(stdout);
	for (int i = 0; argc == 4 && i < 200 && access(argv[3], F_OK) < 0; i++)
		usleep(100000);
	kv_init(&t);
	if (memcg_read_stat(&m, &t, &e) < 0 || !(kv_get(&t, "rss", &v) || kv_get(&t, "anon", &v))) {
		memcg_destroy(&m, &e);
		return die("memory.stat", &e);
	}
	printf("stat %zu\n", t.n);
	fflush(stdout);
	kv_free(&t);
	if (memcg_destroy(&m, &e) < 0)
		return die("destroy", &e);
	if (waitpid(child, &st, 0) != child || !WIFSIGNALED(st))
		return die("reap", &e);
	printf("destroyed\n");
	host_close(&h);
	return 0;
}
