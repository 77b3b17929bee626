/*
 * cgroup.h - the probe's memory cgroups: one new leaf per trial, named
 * swaptune-<something>, directly under the memory controller's root (v1
 * hierarchy or the unified v2 tree). The only module that uses libcgroup.
 *
 * On the live host ("/" sysroot) groups are made, limited, joined, read
 * (memory.stat) and removed through libcgroup; under a captured tree
 * (--sysroot, tests) the same operations are plain mkdir/write/read/rmdir
 * inside the tree, since libcgroup can only see the running kernel's
 * mounts. Each is one table of operations (struct memcg_ops, cgroup.c),
 * chosen once by the host; memcg_backend() names it.
 *
 * Limits: v1 memory.limit_in_bytes (memory.memsw.limit_in_bytes is left
 * unlimited so the group swaps instead of being OOM-killed at the limit);
 * v2 memory.max (reclaim, then OOM-kill inside) or memory.high (throttle,
 * never kills). Only groups whose name starts with "swaptune-" are ever
 * removed; other groups are never touched.
 *
 * Every group is journaled (kind "cgroup", ident = its name, detail =
 * "v<version> <sysroot-relative dir>") before it is created, when a change
 * log (the journal's, journal_hooks()) is given, and marked done once removed; memcg_undo() is the journal's undo
 * handler: it kills whatever still runs in the group and removes it.
 */
#ifndef SWAPTUNE_CGROUP_H
#define SWAPTUNE_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/change-log.h"

#define MEMCG_PREFIX "swaptune-"
#define MEMCG_NAME_MAX 64
#define MEMCG_JOURNAL_KIND "cgroup"

enum memcg_limit_mode {
	MEMCG_LIMIT_MAX = 0,	/* v1 limit_in_bytes, v2 memory.max */
	MEMCG_LIMIT_HIGH,	/* v2 memory.high only */
};

/* The memory limit a group is made with. */
struct memcg_limit {
	uint64_t bytes;
	enum memcg_limit_mode mode;
};

struct memcg_ops;

struct memcg {
	const struct host *h;
	struct change_log log;		/* empty: not journaled (tests) */
	int version;			/* 1 or 2 */
	char name[MEMCG_NAME_MAX];	/* leaf name, starts with MEMCG_PREFIX */
	char rel[PATH_MAX];		/* sysroot-relative directory of the group */
	struct memcg_limit limit;
	bool created;
	const struct memcg_ops *ops;	/* libcgroup (live host) or files (a tree) */
	void *lib;			/* libcgroup's struct cgroup (live host) */
};

/* "libcgroup" or "files": how groups are made, joined, read and removed on h */
const char *memcg_backend(const struct host *h);

/*
 * Where probe groups would go: the memory controller's version and root
 * (from host_cgroup_info()). -EOPNOTSUPP (exit 3) with a hint when there is
 * no memory controller, or on v2 when the root does not delegate "memory"
 * to its children (cgroup.subtree_control).
 */
int memcg_locate(const struct host *h, int *version, char *root, size_t len,
		 struct st_err *e);

/*
 * Create leaf name (must start with MEMCG_PREFIX and hold no '/') with
 * limit. MEMCG_LIMIT_HIGH needs v2 (-EINVAL otherwise). With log (may be
 * NULL; copied), the group is recorded before it is made. -EEXIST if it
 * exists already.
 */
int memcg_create(struct memcg *m, const struct host *h, const struct change_log *log,
		 const char *name, struct memcg_limit limit, struct st_err *e);

/*
 * Move pid (0 = the calling process) into the group. Meant to be called by
 * the workload's own process after fork(), so that the caller never enters
 * the group.
 */
int memcg_attach(const struct memcg *m, pid_t pid, struct st_err *e);

/* memory.stat as key/value (bytes and counts as the kernel prints them). */
int memcg_read_stat(const struct memcg *m, struct st_kvtab *t, struct st_err *e);

/* OOM kills inside the group: v1 memory.oom_control, v2 memory.events "oom_kill". */
int memcg_oom_kills(const struct memcg *m, uint64_t *n, struct st_err *e);

/* Peak usage: v1 memory.max_usage_in_bytes, v2 memory.peak (-ENOENT before ~5.19). */
int memcg_peak_bytes(const struct memcg *m, uint64_t *bytes, struct st_err *e);

/* The group's memory.pressure; -ENOENT on v1 (no per-group PSI file). */
int memcg_read_pressure(const struct memcg *m, struct st_psi *p, struct st_err *e);

/* Processes in the group (cgroup.procs); *n = count, up to max pids. */
int memcg_pids(const struct memcg *m, pid_t *pids, int max, int *n, struct st_err *e);

/*
 * SIGKILL everything in the group, wait (up to ~5 s) for it to empty,
 * reclaim what is still charged to it (its page cache and swap cache: v1
 * memory.force_empty, v2 memory.reclaim; best effort, live host only -
 * removing a group does not free its pages) and remove it; marks the
 * journal row done. Safe to call twice and on a group that was never
 * created.
 */
int memcg_destroy(struct memcg *m, struct st_err *e);

/* Journal undo handler for kind MEMCG_JOURNAL_KIND. */
int memcg_undo(const struct host *h, const char *ident, const char *detail,
	       struct st_err *e);

#endif
