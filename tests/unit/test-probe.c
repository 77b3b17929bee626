/*
 * test-probe.c - the pure parts of the probe engine: arm parsing against the
 * settings registry, the shuffled round order, the per-arm statistics and
 * summary, the plan on fixture trees, the lock, the memory cgroup module on
 * copies of fixture trees (plain files, no libcgroup) and the swap header.
 *
 * Expected statistics: t(0.975, 4) = 2.7764451052 (textbook tables), so the
 * 95 % CI of the mean of {1, 2, 3, 4, 5} is 3 -+ 2.7764451 * sqrt(2.5) / sqrt(5)
 * = 3 -+ 1.9632432.
 */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture-util.h"
#include "swaptune/advice.h"
#include "swaptune/cgroup.h"
#include "swaptune/host.h"
#include "swaptune/journal.h"
#include "swaptune/lock.h"
#include "swaptune/probe.h"
#include "swaptune/scratch-swap.h"
#include "swaptune/workload.h"

#define MiB (1024ull * 1024)
/* the limits test groups are made with */
#define MAX_64M ((struct memcg_limit){ 64 * MiB, MEMCG_LIMIT_MAX })
#define HIGH_64M ((struct memcg_limit){ 64 * MiB, MEMCG_LIMIT_HIGH })
#define MAX_96M ((struct memcg_limit){ 96 * MiB, MEMCG_LIMIT_MAX })
#define HIGH_96M ((struct memcg_limit){ 96 * MiB, MEMCG_LIMIT_HIGH })

/* ---- arms ---- */

static void test_arm_builtin(void **state)
{
	struct probe_arm a;

	(void)state;
	assert_int_equal(probe_arm_builtin("pc3", &a), 0);
	assert_string_equal(a.name, "pc3");
	assert_int_equal(a.nset, 1);
	assert_string_equal(a.set[0].name, "page-cluster");
	assert_string_equal(a.set[0].value, "3");
	assert_true(a.builtin);
	assert_false(a.bypass);
	assert_int_equal(probe_arm_builtin("pc1", &a), 0);
	assert_string_equal(a.set[0].value, "1");
	assert_int_equal(probe_arm_builtin("pc0", &a), 0);
	assert_string_equal(a.set[0].value, "0");
	assert_int_equal(probe_arm_builtin("bypass", &a), 0);
	assert_true(a.bypass);
	assert_false(a.emulated);
	assert_int_equal(probe_arm_builtin("pc2", &a), -ENOENT);
	assert_int_equal(probe_arm_builtin("", &a), -ENOENT);
}

static void test_arm_parse_ok(void **state)
{
	struct probe_arm a;
	struct st_err e = {0};
	struct host h;
	char desc[256];

	(void)state;
	fx_host(&h, "vm-v1");
	assert_int_equal(probe_arm_parse(&h, "noswapra:page-cluster=0,vma_ra_enabled=off", &a, &e), 0);
	assert_string_equal(a.name, "noswapra");
	assert_int_equal(a.nset, 2);
	assert_string_equal(a.set[0].name, "page-cluster");
	assert_string_equal(a.set[0].value, "0");
	assert_string_equal(a.set[1].name, "vma_ra_enabled");
	assert_string_equal(a.set[1].value, "false");
	assert_false(a.builtin);
	probe_arm_describe(&a, desc, sizeof(desc));
	assert_string_equal(desc, "page-cluster=0, vma_ra_enabled=false");

	/* module parameters become Y/N, the compressor must be in /proc/crypto */
	assert_int_equal(probe_arm_parse(&h, "z.1:zswap.enabled=on,zswap.compressor=lzo", &a, &e), 0);
	assert_string_equal(a.set[0].name, "zswap.enabled");
	assert_string_equal(a.set[0].value, "Y");
	assert_string_equal(a.set[1].value, "lzo");

	/* the sysctl spelling maps to the registry name */
	assert_int_equal(probe_arm_parse(&h, "sys_2:vm.page-cluster=2", &a, &e), 0);
	assert_string_equal(a.set[0].name, "page-cluster");
	assert_string_equal(a.set[0].value, "2");
	host_close(&h);
}

static void test_arm_parse_bad(void **state)
{
	static const struct { const char *spec, *msg; } bad[] = {
		{ "nocolon", "expected NAME:key=value" },
		{ ":page-cluster=1", "expected NAME:key=value" },
		{ "a b:page-cluster=1", "expected NAME:key=value" },
		{ "x:page-cluster", "\"page-cluster\" is not key=value" },
		{ "x:page-cluster=", "is not key=value" },
		{ "x:=3", "is not key=value" },
		{ "x:page-cluster=99", "not a number from 0 to 31" },
		{ "x:bogus=1", "unknown setting \"bogus\"" },
		{ "x:page-cluster=1,page-cluster=2", "page-cluster is given twice" },
		{ "x:", "sets nothing" },
		{ "x:zswap.compressor=nonexistent", "not offered by this kernel" },
		{ "x:vma_ra_enabled=maybe", "not a boolean" },
	};
	struct probe_arm a;
	struct host h;

	(void)state;
	fx_host(&h, "vm-v1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct st_err e = {0};

		assert_int_equal(probe_arm_parse(&h, bad[i].spec, &a, &e), -EINVAL);
		assert_int_equal(err_exit_status(&e), ST_EXIT_USAGE);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s: message \"%s\" lacks \"%s\"", bad[i].spec, e.msg, bad[i].msg);
	}
	host_close(&h);
}

static void test_arms_list(void **state)
{
	struct probe_arm arms[PROBE_ARMS_MAX];
	struct st_err e = {0};
	int n = 0;

	(void)state;
	assert_int_equal(probe_arms_parse_list("pc3,pc0,bypass", arms, PROBE_ARMS_MAX, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_string_equal(arms[0].name, "pc3");
	assert_string_equal(arms[2].name, "bypass");
	n = 0;
	assert_int_equal(probe_arms_parse_list("pc3,pc3", arms, PROBE_ARMS_MAX, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "listed twice"));
	err_reset(&e);
	n = 0;
	assert_int_equal(probe_arms_parse_list("pc3,pc9", arms, PROBE_ARMS_MAX, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown arm \"pc9\""));
	err_reset(&e);
	n = 0;
	assert_int_equal(probe_arms_parse_list(",", arms, PROBE_ARMS_MAX, &n, &e), -EINVAL);
	err_reset(&e);
	n = 0;
	assert_int_equal(probe_arms_parse_list("pc3,pc1,pc0", arms, 2, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "more than 2 arms"));
}

/* ---- round order ---- */

static void test_round_order(void **state)
{
	int a[PROBE_ARMS_MAX], b[PROBE_ARMS_MAX];
	unsigned count[6] = { 0 }, differ = 0;

	(void)state;
	/* every order is a permutation, and the same inputs give the same order */
	for (int n = 1; n <= PROBE_ARMS_MAX; n++)
		for (unsigned r = 0; r < 50; r++) {
			int seen[PROBE_ARMS_MAX] = { 0 };

			probe_round_order(7, r, n, a);
			probe_round_order(7, r, n, b);
			assert_memory_equal(a, b, (size_t)n * sizeof(int));
			for (int i = 0; i < n; i++) {
				assert_in_range(a[i], 0, n - 1);
				seen[a[i]]++;
			}
			for (int i = 0; i < n; i++)
				assert_int_equal(seen[i], 1);
		}
	/*
	 * Independent uniform orders: for 2 arms, which goes first is a fair
	 * coin in every round and consecutive rounds agree half the time (a
	 * fixed alternation, the Williams design of 2 arms, never does); every
	 * ordered pair of positions is equally likely for each arm.
	 */
	{
		unsigned first = 0, same = 0, prev = 0, pos[3][3] = { { 0 } };

		for (unsigned r = 1; r <= 4000; r++) {
			probe_round_order(99, r, 2, a);
			first += a[0] == 0;
			same += r > 1 && (unsigned)a[0] == prev;
			prev = (unsigned)a[0];
			probe_round_order(99, r, 3, b);
			for (int k = 0; k < 3; k++)
				pos[b[k]][k]++;
		}
		assert_in_range(first, 1870, 2130);
		assert_in_range(same, 1870, 2130);
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++)
				assert_in_range(pos[i][k], 1220, 1450);
	}
	/* another seed shuffles differently */
	for (unsigned r = 0; r < 20; r++) {
		probe_round_order(1, r, 5, a);
		probe_round_order(2, r, 5, b);
		differ += memcmp(a, b, 5 * sizeof(int)) != 0;
	}
	assert_true(differ >= 15);
	/* all 6 orders of 3 arms, each about 1/6 of 6000 rounds */
	for (unsigned r = 0; r < 6000; r++) {
		probe_round_order(42, r, 3, a);
		count[a[0] * 2 + (a[1] > a[2])]++;
	}
	for (int i = 0; i < 6; i++)
		assert_in_range(count[i], 850, 1150);
}

/* ---- summary ---- */

static struct probe_trial mk(int arm, unsigned round, bool warmup, enum probe_trial_status st,
			     double thr, double swap_ra)
{
	struct probe_trial t;

	memset(&t, 0, sizeof(t));
	t.arm = arm;
	t.round = round;
	t.warmup = warmup;
	t.status = st;
	t.primary = st == PROBE_TRIAL_OK ? thr : NAN;
	if (st == PROBE_TRIAL_OK) {
		t.have[PM_THROUGHPUT] = true;
		t.v[PM_THROUGHPUT] = thr;
	}
	t.have[PM_SWAP_RA] = true;
	t.v[PM_SWAP_RA] = swap_ra;
	return t;
}

static void test_summarize(void **state)
{
	struct probe_config *c = calloc(1, sizeof(*c));
	struct probe_result *r = calloc(1, sizeof(*r));
	struct probe_trial t[] = {
		mk(0, 0, true, PROBE_TRIAL_OK, 1, 1),		/* warm-up: left out */
		mk(1, 0, true, PROBE_TRIAL_OK, 1, 1),
		mk(0, 1, false, PROBE_TRIAL_OK, 100, 800),
		mk(1, 1, false, PROBE_TRIAL_OOM, 0, 5000),	/* never averaged */
		mk(0, 2, false, PROBE_TRIAL_OK, 110, 820),
		mk(1, 2, false, PROBE_TRIAL_OK, 150, 0),
		mk(0, 3, false, PROBE_TRIAL_OK, 90, 780),
		mk(1, 3, false, PROBE_TRIAL_FAILED, 0, 0),
		mk(1, 4, false, PROBE_TRIAL_OK, 160, 0),
		mk(0, 4, false, PROBE_TRIAL_INTERRUPTED, 0, 0),	/* not counted at all */
	};

	(void)state;
	probe_config_init(c);
	c->narms = 2;
	probe_arm_builtin("pc3", &c->arms[0]);
	probe_arm_builtin("pc0", &c->arms[1]);
	c->baseline = 0;
	c->primary = PROBE_PRIMARY_THROUGHPUT;
	r->trials = t;
	r->ntrials = sizeof(t) / sizeof(t[0]);
	probe_summarize(c, 0, r);

	assert_int_equal(r->summary[0].trials, 3);
	assert_int_equal(r->summary[0].completed, 3);
	assert_int_equal(r->summary[0].oom, 0);
	assert_float_equal(r->summary[0].primary.mean, 100, 1e-9);
	assert_float_equal(r->summary[0].primary.stddev, 10, 1e-9);
	assert_true(r->summary[0].have[PM_SWAP_RA]);
	assert_float_equal(r->summary[0].m[PM_SWAP_RA].mean, 800, 1e-9);

	assert_int_equal(r->summary[1].trials, 4);
	assert_int_equal(r->summary[1].completed, 2);
	assert_int_equal(r->summary[1].oom, 1);
	assert_int_equal(r->summary[1].failed, 1);
	assert_float_equal(r->summary[1].primary.mean, 155, 1e-9);
	assert_float_equal(r->summary[1].m[PM_SWAP_RA].mean, 0, 0);

	/*
	 * the advisor sees the OOM kill as an outcome; 3 rounds are fewer than
	 * the default plan's first look, so there is no verdict yet
	 */
	assert_true(r->have_verdict);
	assert_int_equal(r->verdict.arms[1].n_oom_killed, 1);
	assert_int_not_equal(r->verdict.kind, VERDICT_CHANGE);
	assert_false(r->judgement.judged);

	/* the document carries the same figures */
	{
		cJSON *doc, *arms, *a1;
		struct probe_plan p;

		memset(&p, 0, sizeof(p));
		p.memcg_version = 1;
		c->workload = workload_find("anon-seq");
		r->status = "ok";
		doc = probe_result_to_json(c, &p, r);
		assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, PROBE_SCHEMA);
		arms = cJSON_GetObjectItem(doc, "arms");
		assert_int_equal(cJSON_GetArraySize(arms), 2);
		a1 = cJSON_GetArrayItem(arms, 1);
		assert_string_equal(cJSON_GetObjectItem(a1, "name")->valuestring, "pc0");
		assert_int_equal(cJSON_GetObjectItem(a1, "oom_kills")->valueint, 1);
		assert_float_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(a1, "primary"), "mean")->valuedouble,
				    155, 1e-9);
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(arms, 0), "baseline")));
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "trials")), 10);
		cJSON_Delete(doc);
	}
	free(c);
	free(r);
}

/* ---- plan ---- */

static void plan_config(struct probe_config *c, const char *arms)
{
	struct st_err e = {0};

	probe_config_init(c);
	c->workload = workload_find("anon-random");
	c->wp.working_set_bytes = 256 * MiB;
	c->memcg_limit_bytes = 128 * MiB;
	assert_int_equal(probe_arms_parse_list(arms, c->arms, PROBE_ARMS_MAX, &c->narms, &e), 0);
}

static void test_plan_v1(void **state)
{
	struct probe_config *c = malloc(sizeof(*c));
	struct probe_plan p;
	struct st_err e = {0};
	struct host h;

	(void)state;
	fx_host(&h, "vm-v1");
	plan_config(c, "pc0,pc3,bypass");
	assert_int_equal(probe_plan(&h, c, &p, &e), 0);
	/* the host's page-cluster is 3: pc3 is the baseline though it is listed second */
	assert_int_equal(c->baseline, 1);
	assert_int_equal(p.baseline, 1);
	assert_int_equal(p.memcg_version, 1);
	assert_int_equal(p.ntouch, 1);
	assert_string_equal(p.touch[0].name, "page-cluster");
	assert_string_equal(p.touch[0].current, "3");
	assert_true(p.enable_zswap);		/* the fixture has zswap off */
	assert_true(p.have_host_swap);		/* /dev/vdb */
	assert_true(p.host_swap_rotational);
	assert_string_equal(p.host_swap, "/dev/vdb");
	assert_true(p.detect_bypass);
	assert_false(p.mount_debugfs);		/* never on a sysroot */
	/* the default sequential plan: the first look at 5 rounds, + warm-up */
	assert_int_equal(p.rounds, 6);
	assert_int_equal(p.trials, 6 * 3 + 1);
	assert_int_equal(p.need_bytes, (128 + 256 + 256) * MiB);
	assert_int_equal(p.available_bytes, 24085760ull * 1024);
	assert_true(p.est_total_s > 0);
	/* default swap size: 1.5 x working set + 64 MiB, at least 512 MiB */
	assert_int_equal(c->swap_size_bytes, 512 * MiB);
	assert_float_equal(c->wp.max_duration_s, 60, 0);

	/* sequential, at most 8 rounds: looks at 5 and 8 */
	plan_config(c, "pc3,pc0");
	judge_plan_truncate(&c->plan, 8);
	assert_int_equal(c->plan.n_looks, 2);
	assert_int_equal(c->plan.looks[1], 8);
	assert_int_equal(probe_plan(&h, c, &p, &e), 0);
	assert_int_equal(p.trials, (5 + 1) * 2);
	assert_int_equal(p.max_trials, (8 + 1) * 2);
	assert_int_equal(c->baseline, 0);
	host_close(&h);
	free(c);
}

/* The text of the first change of kind, or NULL. */
static const char *change_of(const struct probe_change *ch, int n, const char *kind)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ch[i].kind, kind))
			return ch[i].text;
	return NULL;
}

/* Every host change in words: settings, zswap, swap, cgroups, page cache, pressure, time. */
static void test_plan_changes(void **state)
{
	struct probe_config *c = malloc(sizeof(*c));
	struct probe_change ch[PROBE_CHANGES_MAX];
	struct probe_plan p;
	struct st_err e = {0};
	struct host h;
	int n;

	(void)state;
	fx_host(&h, "vm-v1");
	plan_config(c, "pc3,pc1,pc0");
	assert_int_equal(probe_plan(&h, c, &p, &e), 0);
	n = probe_plan_changes(c, &p, ch, PROBE_CHANGES_MAX);
	assert_true(n >= 7);
	for (int i = 0; i < n; i++)
		assert_true(strlen(ch[i].text) > 20 && strlen(ch[i].text) < sizeof(ch[i].text) - 1);
	assert_non_null(strstr(change_of(ch, n, "setting"), "page-cluster (host-wide): now 3"));
	assert_non_null(strstr(change_of(ch, n, "setting"), "pc1 1, pc0 0"));
	assert_non_null(strstr(change_of(ch, n, "zswap"), "now N, Y during the probe"));
	assert_non_null(strstr(change_of(ch, n, "host-swap"), "/dev/vdb"));
	assert_null(change_of(ch, n, "scratch-swap"));
	assert_non_null(strstr(change_of(ch, n, "cgroups"), "swaptune-probe-<pid>-<trial>"));
	assert_non_null(strstr(change_of(ch, n, "cgroups"), "memory.force_empty"));
	assert_non_null(strstr(change_of(ch, n, "page-cache"), "left alone"));
	assert_null(strstr(change_of(ch, n, "page-cache"), "/proc/sys/vm/drop_caches"));
	assert_non_null(strstr(change_of(ch, n, "memory-pressure"), "256.0 MiB working set in the 128.0 MiB limit"));
	assert_non_null(strstr(change_of(ch, n, "time"), "at most 3 min"));
	assert_non_null(strstr(change_of(ch, n, "time"), "unless --allow-short"));
	/* asked for: the host-wide drop is named, with how often */
	c->drop_host_caches = true;
	c->max_time_s = 0;
	n = probe_plan_changes(c, &p, ch, PROBE_CHANGES_MAX);
	assert_non_null(strstr(change_of(ch, n, "page-cache"), "drop the whole host's page cache"));
	assert_non_null(strstr(change_of(ch, n, "page-cache"), "up to 123 times"));
	assert_non_null(strstr(change_of(ch, n, "time"), "no time limit"));
	/* a short list is cut, never overrun */
	assert_int_equal(probe_plan_changes(c, &p, ch, 2), 2);
	host_close(&h);
	free(c);
}

static void test_plan_errors(void **state)
{
	struct probe_config *c = malloc(sizeof(*c));
	struct probe_plan p;
	struct host h, h2;

	(void)state;
	fx_host(&h, "vm-v1");
	fx_host(&h2, "v2-zswap-on");
	{
		struct st_err e = {0};

		plan_config(c, "pc3,pc0");
		c->wp.working_set_bytes = 64 * MiB;
		assert_int_equal(probe_plan(&h, c, &p, &e), -EINVAL);
		assert_int_equal(err_exit_status(&e), ST_EXIT_USAGE);
		assert_non_null(strstr(e.msg, "must exceed the memcg limit"));
	}
	{
		struct st_err e = {0};

		plan_config(c, "pc3,pc0");
		c->limit_mode = MEMCG_LIMIT_HIGH;
		assert_int_equal(probe_plan(&h, c, &p, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "needs the memory controller on cgroup v2"));
	}
	{
		struct st_err e = {0};

		plan_config(c, "pc3,pc0");
		c->limit_mode = MEMCG_LIMIT_HIGH;
		assert_int_equal(probe_plan(&h2, c, &p, &e), 0);
		assert_int_equal(p.memcg_version, 2);
		assert_false(p.enable_zswap);	/* on already */
	}
	{
		struct st_err e = {0};

		/* 40 GiB does not fit in 23 GiB available: exit 3 unless --force */
		plan_config(c, "pc3,pc0");
		c->wp.working_set_bytes = 40ull * 1024 * MiB;
		c->memcg_limit_bytes = 20ull * 1024 * MiB;
		assert_int_equal(probe_plan(&h, c, &p, &e), -ENOMEM);
		assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
		assert_non_null(strstr(e.msg, "not enough free memory"));
		plan_config(c, "pc3,pc0");
		c->wp.working_set_bytes = 40ull * 1024 * MiB;
		c->memcg_limit_bytes = 20ull * 1024 * MiB;
		c->force = true;
		err_reset(&e);
		assert_int_equal(probe_plan(&h, c, &p, &e), 0);
	}
	{
		struct st_err e = {0};
		struct host h3;

		fx_host(&h3, "no-zswap");
		plan_config(c, "pc3,pc0");
		assert_true(probe_plan(&h3, c, &p, &e) < 0);
		assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
		host_close(&h3);
	}
	{
		struct st_err e = {0};

		plan_config(c, "pc3,pc0");
		c->plan.n_looks = 0;
		assert_int_equal(probe_plan(&h, c, &p, &e), -EINVAL);
	}
	host_close(&h);
	host_close(&h2);
	free(c);
}

/* ---- lock ---- */

static void test_lock(void **state)
{
	char dir[PATH_MAX], db[PATH_MAX + 8], path[PATH_MAX + 32], pid[32];
	struct st_err e = {0};
	struct host h;
	int fd1 = -1, fd2 = -1;

	(void)state;
	fx_host(&h, "vm-v1");
	fx_scratch(dir);
	snprintf(db, sizeof(db), "%s/db", dir);
	assert_int_equal(host_change_lock(&h, db, "probe", &fd1, &e), 0);
	assert_true(fd1 >= 0);
	snprintf(path, sizeof(path), "%s.probe.lock", db);
	assert_int_equal(access(path, F_OK), 0);
	/* a second lock (another open file) is refused, naming the holder */
	assert_int_equal(host_change_lock(&h, db, "probe", &fd2, &e), -EBUSY);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	assert_non_null(strstr(e.msg, pid));
	assert_non_null(strstr(e.msg, "another swaptune probe (pid"));
	assert_non_null(strstr(e.msg, "is changing this host"));
	assert_non_null(strstr(e.msg, path));
	/*
	 * a command changing the same tree through another store is refused too
	 * (the tree's directory is flocked; issue 33, finding 10: it took
	 * OTHER.probe.lock and changed the tree), while another tree is free
	 */
	{
		char other[PATH_MAX + 8], tree[PATH_MAX], want[PATH_MAX + 64];
		struct host h2;

		snprintf(other, sizeof(other), "%s/other", dir);
		err_reset(&e);
		assert_int_equal(host_change_lock(&h, other, "apply", &fd2, &e), -EBUSY);
		assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
		assert_int_equal(fd2, -1);
		snprintf(want, sizeof(want), "another swaptune command is changing this tree (%s)", h.root);
		assert_string_equal(e.msg, want);
		fx_copy("vm-v1", tree);
		fx_host(&h2, tree);
		err_reset(&e);
		assert_int_equal(host_change_lock(&h2, other, "apply", &fd2, &e), 0);
		host_change_unlock(fd2);
		host_close(&h2);
		fx_remove(tree);
		host_change_unlock(fd1);
		/* let go of, the tree is free through the other store */
		err_reset(&e);
		assert_int_equal(host_change_lock(&h, other, "apply", &fd2, &e), 0);
		host_change_unlock(fd2);
	}
	err_reset(&e);
	assert_int_equal(host_change_lock(&h, db, "probe", &fd2, &e), 0);
	host_change_unlock(fd2);
	/* a symlink or a foreign file at the lock's path is refused, never truncated */
	{
		char victim[PATH_MAX + 16], db2[PATH_MAX + 16], lk[PATH_MAX + 32], buf[64];
		FILE *f;

		snprintf(victim, sizeof(victim), "%s/victim", dir);
		f = fopen(victim, "w");
		assert_non_null(f);
		fputs("precious data\n", f);
		fclose(f);
		snprintf(db2, sizeof(db2), "%s/s", dir);
		snprintf(lk, sizeof(lk), "%s.probe.lock", db2);
		assert_int_equal(symlink(victim, lk), 0);
		err_reset(&e);
		assert_true(host_change_lock(&h, db2, "probe", &fd2, &e) < 0);
		assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
		unlink(lk);
		assert_int_equal(link(victim, lk), 0);	/* a hard link: two names */
		err_reset(&e);
		assert_true(host_change_lock(&h, db2, "probe", &fd2, &e) < 0);
		unlink(lk);
		assert_int_equal(rename(victim, lk), 0);	/* the file itself, not a lock */
		err_reset(&e);
		assert_true(host_change_lock(&h, db2, "probe", &fd2, &e) < 0);
		assert_non_null(strstr(e.msg, "not a swaptune lock file"));
		f = fopen(lk, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "precious data\n");
		unlink(lk);
	}
	fx_remove(dir);
	host_close(&h);
}

/* ---- memory cgroups on fixture copies ---- */

static void test_memcg_v1(void **state)
{
	char dir[PATH_MAX], buf[256], abs[2 * PATH_MAX];
	struct st_err e = {0};
	struct st_kvtab t;
	struct memcg m, m2;
	struct host h;
	uint64_t n = 99, v = 0;
	pid_t pids[4];
	int np = 0;

	(void)state;
	fx_copy("vm-v1", dir);
	fx_host(&h, dir);
	/* a captured tree takes the file path (the live host's libcgroup: t0209) */
	assert_string_equal(memcg_backend(&h), "files");
	assert_int_equal(memcg_create(&m, &h, NULL, "swaptune-unit-1", MAX_64M, &e), 0);
	assert_int_equal(m.version, 1);
	assert_string_equal(m.rel, "sys/fs/cgroup/memory/swaptune-unit-1");
	assert_string_equal(fx_read(dir, "sys/fs/cgroup/memory/swaptune-unit-1/memory.limit_in_bytes",
				    buf, sizeof(buf)), "67108864");
	/* the same name again is refused */
	assert_int_equal(memcg_create(&m2, &h, NULL, "swaptune-unit-1", MAX_64M, &e),
			 -EEXIST);
	/* what the kernel would show, as files in the copy */
	fx_write(dir, "sys/fs/cgroup/memory/swaptune-unit-1/memory.oom_control",
		 "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
	fx_write(dir, "sys/fs/cgroup/memory/swaptune-unit-1/memory.stat",
		 "cache 0\nrss 4096\npgmajfault 5\n");
	fx_write(dir, "sys/fs/cgroup/memory/swaptune-unit-1/memory.max_usage_in_bytes", "1234\n");
	fx_write(dir, "sys/fs/cgroup/memory/swaptune-unit-1/cgroup.procs", "");
	assert_int_equal(memcg_oom_kills(&m, &n, &e), 0);
	assert_int_equal(n, 2);
	kv_init(&t);
	assert_int_equal(memcg_read_stat(&m, &t, &e), 0);
	assert_true(kv_get(&t, "pgmajfault", &v));
	assert_int_equal(v, 5);
	kv_free(&t);
	assert_int_equal(memcg_peak_bytes(&m, &v, &e), 0);
	assert_int_equal(v, 1234);
	{
		struct st_psi psi;

		assert_int_equal(memcg_read_pressure(&m, &psi, &e), -ENOENT);
		err_reset(&e);
	}
	assert_int_equal(memcg_attach(&m, 4242, &e), 0);
	assert_string_equal(fx_read(dir, "sys/fs/cgroup/memory/swaptune-unit-1/cgroup.procs",
				    buf, sizeof(buf)), "4242");
	assert_int_equal(memcg_pids(&m, pids, 4, &np, &e), 0);
	assert_int_equal(np, 1);
	assert_int_equal(pids[0], 4242);
	assert_int_equal(memcg_destroy(&m, &e), 0);
	snprintf(abs, sizeof(abs), "%s/sys/fs/cgroup/memory/swaptune-unit-1", dir);
	assert_int_equal(access(abs, F_OK), -1);
	assert_int_equal(memcg_destroy(&m, &e), 0);	/* twice is fine */

	/* names: only swaptune-*, one level */
	err_reset(&e);
	assert_int_equal(memcg_create(&m, &h, NULL, "other", MAX_64M, &e), -EINVAL);
	assert_int_equal(memcg_create(&m, &h, NULL, "swaptune-a/b", MAX_64M, &e), -EINVAL);
	assert_int_equal(memcg_create(&m, &h, NULL, "swaptune-", MAX_64M, &e), -EINVAL);
	/* memory.high is v2 only */
	err_reset(&e);
	assert_int_equal(memcg_create(&m, &h, NULL, "swaptune-unit-2", HIGH_64M, &e),
			 -EINVAL);
	assert_int_equal(err_exit_status(&e), ST_EXIT_USAGE);

	/* the undo handler removes a leftover group, and nothing else */
	snprintf(abs, sizeof(abs), "%s/sys/fs/cgroup/memory/swaptune-left-9", dir);
	assert_int_equal(mkdir(abs, 0755), 0);
	fx_write(dir, "sys/fs/cgroup/memory/swaptune-left-9/memory.limit_in_bytes", "1\n");
	err_reset(&e);
	assert_int_equal(memcg_undo(&h, "swaptune-left-9", "v1 sys/fs/cgroup/memory/swaptune-left-9", &e), 0);
	assert_int_equal(access(abs, F_OK), -1);
	assert_int_equal(memcg_undo(&h, "swaptune-left-9", "v1 sys/fs/cgroup/memory/swaptune-left-9", &e), 0);
	assert_int_equal(memcg_undo(&h, "system", "v1 sys/fs/cgroup/memory/system", &e),
			 JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	assert_int_equal(memcg_undo(&h, "swaptune-x", "v1 sys/fs/cgroup/memory/other", &e),
			 JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	assert_int_equal(memcg_undo(&h, "swaptune-x", NULL, &e), JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	/* a group of that name, but not directly under the controller's root */
	assert_int_equal(memcg_undo(&h, "swaptune-x", "v1 sys/fs/cgroup/memory/a/swaptune-x", &e),
			 JOURNAL_UNDO_REFUSED);
	err_reset(&e);
	assert_int_equal(memcg_undo(&h, "swaptune-x", "v1 ../../sys/fs/cgroup/memory/swaptune-x", &e),
			 JOURNAL_UNDO_REFUSED);
	host_close(&h);
	fx_remove(dir);
}

static void test_memcg_v2(void **state)
{
	char dir[PATH_MAX], buf[64];
	struct st_err e = {0};
	struct memcg m;
	struct host h;
	uint64_t n = 0;

	(void)state;
	fx_copy("v2-zswap-on", dir);
	fx_host(&h, dir);
	assert_int_equal(memcg_create(&m, &h, NULL, "swaptune-unit-3", HIGH_96M, &e), 0);
	assert_int_equal(m.version, 2);
	assert_string_equal(fx_read(dir, "sys/fs/cgroup/swaptune-unit-3/memory.high", buf, sizeof(buf)),
			    "100663296");
	fx_write(dir, "sys/fs/cgroup/swaptune-unit-3/memory.events",
		 "low 0\nhigh 10\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
	fx_write(dir, "sys/fs/cgroup/swaptune-unit-3/memory.pressure",
		 "some avg10=1.00 avg60=0.50 avg300=0.10 total=1500\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=700\n");
	assert_int_equal(memcg_oom_kills(&m, &n, &e), 0);
	assert_int_equal(n, 1);
	{
		struct st_psi psi;

		assert_int_equal(memcg_read_pressure(&m, &psi, &e), 0);
		assert_int_equal(psi.some.total_us, 1500);
		assert_int_equal(psi.full.total_us, 700);
	}
	assert_int_equal(memcg_destroy(&m, &e), 0);

	/* without memory delegated by the root, creation is refused with the fix */
	fx_write(dir, "sys/fs/cgroup/cgroup.subtree_control", "cpu io\n");
	assert_int_equal(memcg_create(&m, &h, NULL, "swaptune-unit-4", MAX_96M, &e),
			 -EOPNOTSUPP);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	assert_non_null(strstr(e.msg, "+memory"));
	host_close(&h);
	fx_remove(dir);
}

/* ---- swap header ---- */

static void test_swap_header(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], page[4096];
	struct st_err e = {0};
	uint32_t u;
	int fd;

	(void)state;
	fx_scratch(dir);
	snprintf(path, sizeof(path), "%s/swap", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(scratch_swap_write_header(fd, 1 * MiB, 4096, &e), 0);
	assert_int_equal(pread(fd, page, sizeof(page), 0), (ssize_t)sizeof(page));
	assert_memory_equal(page + 4096 - 10, "SWAPSPACE2", 10);
	memcpy(&u, page + 1024, 4);
	assert_int_equal(u, 1);			/* version */
	memcpy(&u, page + 1028, 4);
	assert_int_equal(u, 255);		/* last page of 256 */
	memcpy(&u, page + 1032, 4);
	assert_int_equal(u, 0);			/* bad pages */
	assert_string_equal(page + 1052, "swaptune");	/* label after the 16-byte uuid */
	assert_int_equal((unsigned char)page[1036 + 6] >> 4, 4);	/* a version-4 uuid */
	assert_int_equal(scratch_swap_write_header(fd, 8 * 4096, 4096, &e), -EINVAL);
	close(fd);
	fx_remove(dir);
}

/* Scratch swap and debugfs refuse to run under a sysroot. */
static void test_scratch_sysroot(void **state)
{
	struct scratch_swap s;
	struct st_err e = {0};
	struct host h;
	bool mounted = true;

	(void)state;
	fx_host(&h, "missing-debugfs");
	assert_int_equal(scratch_swap_create_loop(&s, &h, NULL, "/tmp", 64 * MiB, &e), -EOPNOTSUPP);
	assert_int_equal(err_exit_status(&e), ST_EXIT_DENIED);
	err_reset(&e);
	assert_int_equal(scratch_debugfs_mount(&h, NULL, &mounted, &e), -EOPNOTSUPP);
	assert_false(mounted);
	/* undo handlers never touch the live host for a sysroot */
	assert_int_equal(scratch_undo_file(&h, "/etc/passwd", NULL, &e), 0);
	assert_int_equal(access("/etc/passwd", F_OK), 0);
	host_close(&h);
	/* and on the live host refuse what is not theirs */
	{
		struct host live;

		assert_int_equal(host_open(&live, "/", &e), 0);
		assert_int_equal(scratch_undo_file(&live, "/etc/passwd", NULL, &e), JOURNAL_UNDO_REFUSED);
		err_reset(&e);
		assert_int_equal(scratch_undo_file(&live, "/etc/swaptune-swap-../passwd", NULL, &e),
				 JOURNAL_UNDO_REFUSED);
		err_reset(&e);
		assert_int_equal(scratch_undo_loop(&live, "/dev/sda", "1:2 /x", &e), JOURNAL_UNDO_REFUSED);
		err_reset(&e);
		assert_int_equal(scratch_undo_zram(&live, "/dev/sda1", NULL, &e), JOURNAL_UNDO_REFUSED);
		err_reset(&e);
		assert_int_equal(scratch_undo_zram(&live, "/dev/zram0/../sda", NULL, &e),
				 JOURNAL_UNDO_REFUSED);
		host_close(&live);
	}
}

/* ---- one builder: the probe's own verdict input is recommend's ---- */

static struct probe_trial mk_full(int arm, unsigned round, unsigned seq, enum probe_trial_status st,
				  double thr, double base, bool psi)
{
	struct probe_trial t = mk(arm, round, round == 0, st, thr, 10 * base);

	t.seq = seq;
	t.duration_s = 1.5;
	t.have[PM_SWAP_RA_HIT] = t.have[PM_RA_WASTED] = true;
	t.v[PM_SWAP_RA_HIT] = base;
	t.v[PM_RA_WASTED] = 9 * base;
	t.have[PM_ZSWPIN] = t.have[PM_ZSWPOUT] = t.have[PM_PGMAJFAULT] = true;
	t.v[PM_ZSWPIN] = 1000 + base;
	t.v[PM_ZSWPOUT] = 2000 + base;
	t.v[PM_PGMAJFAULT] = 30 + base;
	t.have[PM_CPU_NS_PER_OP] = true;
	t.v[PM_CPU_NS_PER_OP] = 500 + thr / 10;
	t.have[PM_MAJ_FAULTS] = true;		/* stored, but feeds no cost */
	t.v[PM_MAJ_FAULTS] = 1;
	if (psi) {
		t.have[PM_PSI_SOME_US] = true;
		t.v[PM_PSI_SOME_US] = 4000 + base;
	}
	return t;
}

static void assert_same_input(const struct verdict2_input *a, const struct verdict2_input *b)
{
	assert_int_equal(a->metric, b->metric);
	assert_string_equal(a->metric_name, b->metric_name);
	assert_int_equal(a->n_arms, b->n_arms);
	assert_int_equal(a->n_rounds, b->n_rounds);
	for (size_t i = 0; i < a->n_arms; i++) {
		const struct verdict2_arm *x = &a->arms[i], *y = &b->arms[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->is_baseline, y->is_baseline);
		assert_int_equal(x->fail_order, y->fail_order);
		for (size_t r = 0; r < a->n_rounds; r++) {
			assert_int_equal(x->outcome[r], y->outcome[r]);
			if (x->outcome[r] == VERDICT_OUT_OK)
				assert_true(x->primary[r] == y->primary[r]);
		}
		for (int c = 0; c < VERDICT2_COSTS; c++) {
			assert_int_equal(x->has_cost[c], y->has_cost[c]);
			for (size_t r = 0; x->has_cost[c] && r < a->n_rounds; r++)
				if (x->outcome[r] == VERDICT_OUT_OK)
					assert_true(x->cost[c][r] == y->cost[c][r]);
		}
	}
}

static void test_summary_is_recommend(void **state)
{
	struct probe_config *c = calloc(1, sizeof(*c));
	struct probe_result *r = calloc(1, sizeof(*r));
	struct verdict2_input *mem = calloc(1, sizeof(*mem)), *stored = calloc(1, sizeof(*stored));
	struct advice_run *adv = calloc(1, sizeof(*adv));
	struct store_probe_run *rows = calloc(1, sizeof(*rows));
	struct verdict_result *v = calloc(1, sizeof(*v));
	struct probe_trial t[] = {
		mk_full(0, 0, 1, PROBE_TRIAL_OK, 1, 1, true),	/* warm-up */
		mk_full(1, 0, 2, PROBE_TRIAL_OK, 1, 1, true),
		mk_full(2, 0, 3, PROBE_TRIAL_OK, 1, 1, true),
		mk_full(1, 1, 4, PROBE_TRIAL_OK, 118, 40, true),
		mk_full(0, 1, 5, PROBE_TRIAL_OK, 100, 80, true),
		mk_full(2, 1, 6, PROBE_TRIAL_OOM, 0, 0, true),
		mk_full(2, 2, 7, PROBE_TRIAL_OK, 130, 5, false),	/* no PSI: that cost unused for pc0 */
		mk_full(0, 2, 8, PROBE_TRIAL_OK, 103, 82, true),
		mk_full(1, 2, 9, PROBE_TRIAL_OK, 121, 41, true),
		mk_full(0, 3, 10, PROBE_TRIAL_OK, 98, 79, true),
		mk_full(1, 3, 11, PROBE_TRIAL_FAILED, 0, 0, true),
		mk_full(2, 3, 12, PROBE_TRIAL_OK, 128, 6, true),
		mk_full(1, 4, 13, PROBE_TRIAL_OK, 119, 42, true),
		mk_full(2, 4, 14, PROBE_TRIAL_OK, 131, 4, true),
		mk_full(0, 4, 15, PROBE_TRIAL_OK, 101, 81, true),
	};
	char dir[PATH_MAX], db[PATH_MAX + 8], *text;
	int64_t arm_ids[PROBE_ARMS_MAX];
	struct st_err e = {0};
	struct store st;
	struct probe_plan p;
	cJSON *doc;

	(void)state;
	probe_config_init(c);
	c->workload = workload_find("anon-seq");
	c->narms = 3;
	probe_arm_builtin("pc3", &c->arms[0]);
	probe_arm_builtin("pc1", &c->arms[1]);
	probe_arm_builtin("pc0", &c->arms[2]);
	c->baseline = 0;
	c->primary = PROBE_PRIMARY_THROUGHPUT;
	r->trials = t;
	r->ntrials = sizeof(t) / sizeof(t[0]);
	r->status = "ok";
	memset(&p, 0, sizeof(p));
	p.memcg_version = 2;

	/* the probe's summary, from its in-memory trials made into rows */
	probe_summarize(c, 0, r);
	assert_true(r->have_verdict);
	assert_int_equal(probe_rows_from_result(c, r, rows), 0);
	assert_int_equal(probe_verdict_input(c, 0, rows, mem), 0);
	store_probe_run_free(rows);
	assert_int_equal(mem->n_rounds, 4);
	assert_int_equal(mem->arms[2].outcome[0], VERDICT_OUT_OOM);
	assert_int_equal(mem->arms[1].outcome[2], VERDICT_OUT_FAILED);
	assert_true(mem->arms[1].primary[0] == 118);
	assert_true(mem->arms[0].is_baseline && !mem->arms[1].is_baseline);
	assert_true(mem->arms[0].has_cost[VERDICT_SEC_PSI_SOME_US]);
	assert_false(mem->arms[2].has_cost[VERDICT_SEC_PSI_SOME_US]);
	assert_true(mem->arms[0].has_cost[VERDICT_SEC_WASTED_RA_PAGES]);
	assert_true(mem->arms[0].cost[VERDICT_SEC_WASTED_RA_PAGES][0] == 720);

	/* the same run written to a store as the engine writes it */
	fx_scratch(dir);
	snprintf(db, sizeof(db), "%s/db", dir);
	assert_int_equal(store_open(&st, db, &e), 0);
	assert_int_equal(store_run_begin(&st, "probe", "{\"workload\":{\"name\":\"anon-seq\"},\"baseline\":\"pc3\",\"plan\":{\"sequential\":true,\"looks\":[5,10,15,20,25],\"alpha\":0.025,\"min_effect_pct\":2,\"baseline\":\"pc3\"}}",
					 &r->run_id, &e), 0);
	assert_int_equal(probe_store_arms(&st, r->run_id, c, arm_ids, &e), 0);
	for (size_t k = 0; k < r->ntrials; k++)
		assert_int_equal(probe_store_trial(&st, r->run_id, arm_ids, &t[k], &e), 0);
	doc = probe_result_to_json(c, &p, r);
	text = cJSON_PrintUnformatted(doc);
	assert_int_equal(store_run_end(&st, r->run_id, "ok", text, &e), 0);
	cJSON_free(text);
	cJSON_Delete(doc);

	/* recommend's input, and the probe's own input from the stored rows */
	assert_int_equal(advice_load_run(&st, NULL, r->run_id, NULL, adv, &e), 0);
	assert_same_input(mem, &adv->in2);
	assert_int_equal(store_probe_run_load(&st, r->run_id, rows, &e), 0);
	assert_int_equal(probe_verdict_input(c, 0, rows, stored), 0);
	store_probe_run_free(rows);
	assert_same_input(mem, stored);

	/* and so the same verdict, judged the one way (judge.c) */
	{
		struct judgement *j = calloc(1, sizeof(*j));

		assert_non_null(j);
		assert_int_equal(advice_judge(adv, -1, v, j, NULL), 0);
		assert_int_equal(v->kind, r->verdict.kind);
		assert_int_equal(v->chosen, r->verdict.chosen);
		assert_int_equal(j->judged, r->judgement.judged);
		free(j);
	}

	store_close(&st);
	fx_remove(dir);
	free(c);
	free(r);
	free(mem);
	free(stored);
	advice_run_free(adv);
	free(adv);
	free(rows);
	free(v);
}

/* ---- the busy-host look (probe-busy.c) ---- */

/* A fresh configuration of workload (the default sizes when sized) that the look found busy. */
static void busy_config(struct probe_config *c, const char *workload, bool sized)
{
	probe_config_init(c);
	c->workload = workload_find(workload);
	if (sized) {
		c->wp.working_set_bytes = 256 * MiB;
		c->memcg_limit_bytes = 128 * MiB;
	}
	c->busy = (struct probe_busy){ .known = true, .busy = true, .idle_cpus = 0.1, .cpus = 2 };
}

static void test_busy_host(void **state)
{
	/* two CPUs for one second at USER_HZ 100: 200 ticks; 24 of them idle, 6 niced, 10 iowait */
	struct host_cpu_stat a = { .user = 1000, .nice = 50, .system = 500, .idle = 3000, .iowait = 40,
				   .have_cpu = true };
	struct host_cpu_stat b = a;
	struct probe_config *c = calloc(1, sizeof(*c));
	char text[400];
	double idle;
	unsigned cpus;

	(void)state;
	b.user += 130;
	b.system += 30;
	b.idle += 24;
	b.nice += 6;
	b.iowait += 10;
	assert_true(probe_busy_idle(&a, &b, 1.0, 100, &idle, &cpus));
	assert_int_equal(cpus, 2);
	assert_float_equal(idle, 0.4, 1e-9);
	/* nothing moved (a captured tree), or time ran backwards: unknown */
	assert_false(probe_busy_idle(&a, &a, 1.0, 100, &idle, &cpus));
	assert_false(probe_busy_idle(&b, &a, 1.0, 100, &idle, &cpus));

	probe_config_init(c);
	c->workload = workload_find("anon-runs");
	c->wp.working_set_bytes = 256 * MiB;
	c->memcg_limit_bytes = 128 * MiB;
	/* a quiet host: nothing changes, nothing is said */
	c->busy = (struct probe_busy){ .known = true, .idle_cpus = 1.7, .cpus = 2 };
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_THROUGHPUT);
	assert_int_equal(probe_busy_text(c, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	/* the share a new task would get, and the scale it gives */
	assert_float_equal(probe_busy_share(2, 0.5, true), 1, 1e-12);
	assert_float_equal(probe_busy_share(2, 2, true), 2.0 / 3, 1e-12);
	assert_float_equal(probe_busy_share(2, 7, true), 0.25, 1e-12);
	assert_float_equal(probe_busy_share(2, 7, false), 1, 1e-12);
	/* busy: per CPU second, half size (two hogs on two CPUs: two thirds of a CPU) */
	c->busy = (struct probe_busy){ .known = true, .busy = true, .idle_cpus = 0.12, .cpus = 2,
				       .runnable = 2, .share = 2.0 / 3 };
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_CPU);
	assert_string_equal(probe_primary_key(c), "ops_per_cpu_s");
	assert_int_equal(c->wp.working_set_bytes, 128 * MiB);
	assert_int_equal(c->memcg_limit_bytes, 64 * MiB);
	assert_true(probe_busy_text(c, text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "0.1 of 2 CPUs idle before the probe: judged per CPU second"));
	assert_non_null(strstr(text, "half of 256.0 MiB in 128.0 MiB) so the rounds fit: it would get about 67 % of a CPU"));
	/* seven others: still half (smaller made pc3 fail in its cgroup) */
	c->wp.working_set_bytes = 256 * MiB;
	c->memcg_limit_bytes = 128 * MiB;
	c->primary = PROBE_PRIMARY_THROUGHPUT;
	c->busy = (struct probe_busy){ .known = true, .busy = true, .idle_cpus = 0, .cpus = 2,
				       .runnable = 7, .share = 0.25 };
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->wp.working_set_bytes, 128 * MiB);
	assert_int_equal(c->memcg_limit_bytes, 64 * MiB);
	/* what the user set is not scaled */
	busy_config(c, "anon-runs", true);
	probe_busy_adapt(c, true, false, false);
	assert_int_equal(c->wp.working_set_bytes, 256 * MiB);
	probe_busy_text(c, text, sizeof(text));
	assert_non_null(strstr(text, "sizes as given (--working-set was given)"));
	/* --busy-host ignore: nothing changes, and it says so */
	busy_config(c, "anon-runs", false);
	c->busy_mode = PROBE_BUSY_IGNORE;
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_THROUGHPUT);
	probe_busy_text(c, text, sizeof(text));
	assert_non_null(strstr(text, "measured as on a quiet host (--busy-host ignore)"));
	/* arms that change where pages go (zswap off: disk waits) keep wall time */
	busy_config(c, "anon-runs", true);
	c->narms = 2;
	snprintf(c->arms[0].name, sizeof(c->arms[0].name), "disk");
	snprintf(c->arms[0].set[0].name, sizeof(c->arms[0].set[0].name), "zswap.enabled");
	c->arms[0].nset = 1;
	snprintf(c->arms[1].name, sizeof(c->arms[1].name), "zswap");
	snprintf(c->arms[1].set[0].name, sizeof(c->arms[1].set[0].name), "page-cluster");
	c->arms[1].nset = 1;
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_THROUGHPUT);
	assert_true(c->busy.scaled);
	probe_busy_text(c, text, sizeof(text));
	assert_non_null(strstr(text, "wall time kept (arm disk sets zswap.enabled: CPU time would not see"));
	/* a command: its CPU seconds, lower is better; its own metric is kept */
	busy_config(c, "cmd", false);
	c->primary = PROBE_PRIMARY_WALL;
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_CPU);
	assert_string_equal(probe_primary_key(c), "cpu_s");
	assert_false(probe_primary_higher_better(c));
	assert_false(c->busy.scaled);
	c->primary = PROBE_PRIMARY_METRIC;
	c->busy.per_cpu = false;
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_METRIC);
	free(c);
}

/*
 * --busy-host per-cpu: per CPU second on a quiet host as on a busy one, the
 * sizes as given; said on the plan's line and recorded even when the host
 * was quiet (or not seen); refused for a command's own metric and for arms
 * whose I/O waits CPU time would miss.
 */
static void test_busy_host_per_cpu(void **state)
{
	struct probe_config *c = calloc(1, sizeof(*c));
	char text[400], why[160];
	cJSON *j;

	(void)state;
	/* adapt on a quiet host records nothing */
	busy_config(c, "anon-runs", true);
	c->busy = (struct probe_busy){ .known = true, .idle_cpus = 1.7, .cpus = 2 };
	assert_false(probe_busy_recorded(c));
	/* per-cpu on the same quiet host */
	c->busy_mode = PROBE_BUSY_PER_CPU;
	assert_false(probe_busy_per_cpu_refused(c, why, sizeof(why)));
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_CPU);
	assert_true(c->busy.per_cpu && probe_busy_recorded(c));
	assert_false(c->busy.scaled);
	assert_int_equal(c->wp.working_set_bytes, 256 * MiB);
	assert_true(probe_busy_text(c, text, sizeof(text)) > 0);
	assert_string_equal(text, "1.7 of 2 CPUs idle before the probe: judged per CPU second of the workload, "
			    "as asked (--busy-host per-cpu); sizes as given");
	j = probe_busy_json(c);
	assert_string_equal(cJSON_GetObjectItem(j, "mode")->valuestring, "per-cpu");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "per_cpu_second")));
	assert_true(cJSON_GetObjectItem(j, "idle_cpus")->valuedouble == 1.7);
	cJSON_Delete(j);
	/* on a busy host: not halved */
	busy_config(c, "anon-runs", true);
	c->busy_mode = PROBE_BUSY_PER_CPU;
	probe_busy_adapt(c, false, false, false);
	assert_int_equal(c->primary, PROBE_PRIMARY_CPU);
	assert_int_equal(c->wp.working_set_bytes, 256 * MiB);
	assert_int_equal(c->memcg_limit_bytes, 128 * MiB);
	/* a look that saw nothing (a captured tree): said and recorded without its figures */
	busy_config(c, "cmd", false);
	c->primary = PROBE_PRIMARY_WALL;
	c->busy = (struct probe_busy){ 0 };
	c->busy_mode = PROBE_BUSY_PER_CPU;
	probe_busy_adapt(c, false, false, false);
	assert_string_equal(probe_primary_key(c), "cpu_s");
	probe_busy_text(c, text, sizeof(text));
	assert_string_equal(text, "judged per CPU second of the workload, as asked (--busy-host per-cpu)");
	j = probe_busy_json(c);
	assert_null(cJSON_GetObjectItem(j, "idle_cpus"));
	assert_null(cJSON_GetObjectItem(j, "cpus"));
	cJSON_Delete(j);
	/* what per CPU second cannot judge */
	c->primary = PROBE_PRIMARY_METRIC;
	assert_true(probe_busy_per_cpu_refused(c, why, sizeof(why)));
	assert_string_equal(why, "the primary metric is the command's own (--metric-regex): CPU time would "
			    "replace it");
	busy_config(c, "anon-runs", true);
	c->narms = 1;
	snprintf(c->arms[0].name, sizeof(c->arms[0].name), "disk");
	snprintf(c->arms[0].set[0].name, sizeof(c->arms[0].set[0].name), "zswap.enabled");
	c->arms[0].nset = 1;
	assert_true(probe_busy_per_cpu_refused(c, why, sizeof(why)));
	assert_non_null(strstr(why, "arm disk sets zswap.enabled: CPU time would not see"));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_builtin),
		cmocka_unit_test(test_arm_parse_ok),
		cmocka_unit_test(test_arm_parse_bad),
		cmocka_unit_test(test_arms_list),
		cmocka_unit_test(test_round_order),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_summary_is_recommend),
		cmocka_unit_test(test_plan_v1),
		cmocka_unit_test(test_plan_changes),
		cmocka_unit_test(test_plan_errors),
		cmocka_unit_test(test_lock),
		cmocka_unit_test(test_memcg_v1),
		cmocka_unit_test(test_memcg_v2),
		cmocka_unit_test(test_swap_header),
		cmocka_unit_test(test_scratch_sysroot),
		cmocka_unit_test(test_busy_host),
		cmocka_unit_test(test_busy_host_per_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
