/*
 * cgroup.c - the probe's leaf memory cgroups, see cgroup.h. What differs
 * between the live host and a captured tree - making a group with its
 * limit, moving a process in, reading memory.stat, removing it - is one
 * table of operations each: memcg_lib_ops (libcgroup) and memcg_file_ops
 * (plain files in the tree); ops_for() picks one, nothing else asks
 * whether the host is live for these four. Locating the controller, the
 * multi-line files, emptying and reclaiming go through the host layer on
 * both.
 */
#include <fcntl.h>
#include <libcgroup.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/cgroup.h"
#include "swaptune/journal.h"

static bool valid_name(const char *name)
{
	return !strncmp(name, MEMCG_PREFIX, strlen(MEMCG_PREFIX)) &&
	       strlen(name) > strlen(MEMCG_PREFIX) && strlen(name) < MEMCG_NAME_MAX &&
	       !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* libcgroup builds its mount table once per process (whichever thread asks first). */
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_init_rc;

static void lib_init_once(void)
{
	lib_init_rc = cgroup_init();
}

static int lib_init(struct st_err *e)
{
	int rc;

	pthread_once(&lib_once, lib_init_once);
	rc = lib_init_rc;
	if (rc)
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "libcgroup cannot use this host's cgroups: %s",
				    cgroup_strerror(rc));
	return 0;
}

static int lib_err(struct st_err *e, int rc, const char *what, const char *name)
{
	int code = rc == ECGROUPNOTALLOWED || rc == ECGROUPNOTOWNER ? -EACCES :
		   rc == ECGROUPNOTEXIST ? -ENOENT : -EIO;

	return err_set(e, code, "cannot %s memory cgroup %s: %s", what, name,
		       cgroup_strerror(rc));
}

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

int memcg_locate(const struct host *h, int *version, char *root, size_t len,
		 struct st_err *e)
{
	struct st_cgroup_info ci;
	char rel[PATH_MAX + 32], ctl[512];
	int r = host_cgroup_info(h, &ci, e);

	if (r < 0)
		return r;
	if (ci.memory_v1) {
		*version = 1;
	} else if (ci.memory_v2) {
		*version = 2;
		/* libcgroup 2.0.2 cannot create a v2 leaf unless the root delegates memory */
		snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", ci.memory_root);
		if (host_read_line(h, rel, ctl, sizeof(ctl), NULL) < 0 || !word_in(ctl, "memory"))
			return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
					    "the cgroup v2 root does not enable the memory controller for its children: "
					    "run echo +memory > /%s", rel);
	} else {
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "no memory cgroup controller is mounted: mount cgroup2 or the v1 memory controller");
	}
	snprintf(root, len, "%s", ci.memory_root);
	return 0;
}

static int file_rel(const struct memcg *m, const char *file, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/%s", m->rel, file) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- the live host: libcgroup ---- */

static int lib_create(struct memcg *m, const char *limit_file, struct st_err *e)
{
	struct cgroup *cg;
	struct cgroup_controller *c;
	int rc;

	if ((rc = lib_init(e)) < 0)
		return rc;
	cg = cgroup_new_cgroup(m->name);
	if (!cg)
		return err_set(e, -ENOMEM, "out of memory");
	c = cgroup_add_controller(cg, "memory");
	if (!c) {
		cgroup_free(&cg);
		return err_set(e, -EIO, "cannot create memory cgroup %s: libcgroup refused the memory controller",
			       m->name);
	}
	rc = cgroup_add_value_uint64(c, limit_file, m->limit.bytes);
	if (!rc)
		rc = cgroup_create_cgroup(cg, 0);
	if (rc) {
		cgroup_free(&cg);
		return lib_err(e, rc, "create", m->name);
	}
	m->lib = cg;
	return 0;
}

static int lib_attach(const struct memcg *m, pid_t pid, struct st_err *e)
{
	int rc;

	/* libcgroup 2.0.2 crashes on a NULL group: lib_create() set m->lib or failed */
	if (!m->lib)
		return err_set(e, -EINVAL, "memory cgroup %s has no libcgroup handle", m->name);
	rc = cgroup_attach_task_pid((struct cgroup *)m->lib, pid);
	return rc ? lib_err(e, rc, "join", m->name) : 0;
}

static int lib_read_stat(const struct memcg *m, struct st_kvtab *t, struct st_err *e)
{
	struct cgroup_stat st;
	char path[MEMCG_NAME_MAX + 2];
	void *handle = NULL;
	int rc;

	kv_clear(t);
	snprintf(path, sizeof(path), "/%s", m->name);
	rc = cgroup_read_stats_begin("memory", path, &handle, &st);
	while (rc == 0) {
		char *end;
		unsigned long long v = strtoull(st.value, &end, 10);

		if (end != st.value && kv_put(t, st.name, v) < 0) {
			cgroup_read_stats_end(&handle);
			return err_set(e, -ENOMEM, "out of memory");
		}
		rc = cgroup_read_stats_next(&handle, &st);
	}
	cgroup_read_stats_end(&handle);
	if (rc != ECGEOF)
		return lib_err(e, rc, "read memory.stat of", m->name);
	return 0;
}

/*
 * Remove the empty group name (lib: its handle, or NULL after a crash: one
 * is made from the name), trying for ~2 s: the kernel may still be tearing
 * the last task down.
 */
static int lib_remove(int rfd, const char *name, const char *dir, void *lib, struct st_err *e)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct cgroup *cg = lib;
	struct stat sb;
	int rc;

	(void)dir;
	if ((rc = lib_init(e)) < 0)
		return rc;
	if (!cg) {
		cg = cgroup_new_cgroup(name);
		if (!cg || !cgroup_add_controller(cg, "memory")) {
			cgroup_free(&cg);
			return err_set(e, -ENOMEM, "out of memory");
		}
	}
	for (int tries = 0; tries < 100; tries++) {
		rc = cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY);
		if (rc == 0 || (fstatat(rfd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)) {
			rc = 0;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (cg != lib)
		cgroup_free(&cg);
	return rc ? lib_err(e, rc, "remove", name) : 0;
}

static void lib_release(struct memcg *m)
{
	struct cgroup *cg = m->lib;

	if (cg)
		cgroup_free(&cg);
	m->lib = NULL;
}

/* ---- a captured tree: plain files ---- */

/* Write file of the group in the tree. */
static int write_file(const struct memcg *m, const char *file, const char *val,
		      struct st_err *e)
{
	char rel[PATH_MAX + 64], abs[PATH_MAX];
	int fd;

	file_rel(m, file, rel, sizeof(rel));
	if (!host_exists(m->h, rel)) {
		/* the kernel would have made the file with the group */
		host_path(m->h, rel, abs, sizeof(abs));
		fd = open(abs, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return err_set(e, -errno, "cannot create %s: %s", abs, strerror(errno));
		close(fd);
	}
	return host_write(m->h, rel, val, e);
}

static int file_create(struct memcg *m, const char *limit_file, struct st_err *e)
{
	char abs[PATH_MAX], val[32];
	int r;

	host_path(m->h, m->rel, abs, sizeof(abs));
	if (mkdir(abs, 0755) < 0)
		return err_set(e, -errno, "cannot create memory cgroup %s: %s", abs, strerror(errno));
	snprintf(val, sizeof(val), "%llu", (unsigned long long)m->limit.bytes);
	r = write_file(m, limit_file, val, e);
	if (r < 0)
		rmdir(abs);
	return r;
}

static int file_attach(const struct memcg *m, pid_t pid, struct st_err *e)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", (int)pid);
	return write_file(m, "cgroup.procs", val, e);
}

static int file_read_stat(const struct memcg *m, struct st_kvtab *t, struct st_err *e)
{
	char rel[PATH_MAX + 64];

	file_rel(m, "memory.stat", rel, sizeof(rel));
	return host_read_kv(m->h, rel, t, false, e);
}

/* A captured tree holds a group's control files as plain files: remove them. */
static void unlink_control_files(int rfd, const char *name)
{
	static const char *const files[] = {
		"cgroup.procs", "memory.limit_in_bytes", "memory.max",
		"memory.high", "memory.stat", "memory.oom_control",
		"memory.events", "memory.pressure", "memory.peak",
		"memory.max_usage_in_bytes", "tasks", NULL,
	};
	int gfd = openat(rfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (gfd < 0)
		return;
	for (int i = 0; files[i]; i++)
		unlinkat(gfd, files[i], 0);
	close(gfd);
}

static int file_remove(int rfd, const char *name, const char *dir, void *lib, struct st_err *e)
{
	(void)lib;
	if (unlinkat(rfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (errno == ENOTEMPTY) {
		unlink_control_files(rfd, name);
		if (unlinkat(rfd, name, AT_REMOVEDIR) == 0)
			return 0;
	}
	return err_set(e, -errno, "cannot remove memory cgroup /%s in the tree: %s", dir, strerror(errno));
}

static void file_release(struct memcg *m)
{
	(void)m;
}

struct memcg_ops {
	const char *name;
	/* make m->rel with its limit file set to m->limit.bytes */
	int (*create)(struct memcg *m, const char *limit_file, struct st_err *e);
	int (*attach)(const struct memcg *m, pid_t pid, struct st_err *e);
	int (*read_stat)(const struct memcg *m, struct st_kvtab *t, struct st_err *e);
	/* remove the empty group name under the root open at rfd (dir: its path, for messages) */
	int (*remove)(int rfd, const char *name, const char *dir, void *lib, struct st_err *e);
	void (*release)(struct memcg *m);
};

static const struct memcg_ops memcg_lib_ops = {
	.name = "libcgroup",
	.create = lib_create,
	.attach = lib_attach,
	.read_stat = lib_read_stat,
	.remove = lib_remove,
	.release = lib_release,
};

static const struct memcg_ops memcg_file_ops = {
	.name = "files",
	.create = file_create,
	.attach = file_attach,
	.read_stat = file_read_stat,
	.remove = file_remove,
	.release = file_release,
};

/* libcgroup sees only the running kernel's mounts: a captured tree is files */
static const struct memcg_ops *ops_for(const struct host *h)
{
	return h->live ? &memcg_lib_ops : &memcg_file_ops;
}

const char *memcg_backend(const struct host *h)
{
	return ops_for(h)->name;
}

int memcg_create(struct memcg *m, const struct host *h, const struct change_log *log,
		 const char *name, struct memcg_limit limit, struct st_err *e)
{
	char root[PATH_MAX], detail[PATH_MAX + 8];
	const char *limit_file;
	int r;

	memset(m, 0, sizeof(*m));
	m->h = h;
	m->ops = ops_for(h);
	change_log_copy(&m->log, log);
	m->limit = limit;
	if (!valid_name(name))
		return err_set(e, -EINVAL, "memory cgroup name \"%s\" must start with %s and hold no '/'",
			       name, MEMCG_PREFIX);
	snprintf(m->name, sizeof(m->name), "%s", name);
	r = memcg_locate(h, &m->version, root, sizeof(root), e);
	if (r < 0)
		return r;
	if ((size_t)snprintf(m->rel, sizeof(m->rel), "%s/%s", root, name) >= sizeof(m->rel))
		return err_set(e, -ENAMETOOLONG, "cgroup path too long");
	if (limit.mode == MEMCG_LIMIT_HIGH && m->version != 2)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
				    "memory.high needs cgroup v2; this host has the memory controller on v1 (use --limit-mode max)");
	if (host_exists(h, m->rel))
		return err_set(e, -EEXIST, "memory cgroup /%s exists already", m->rel);
	limit_file = m->version == 1 ? "memory.limit_in_bytes" :
		     limit.mode == MEMCG_LIMIT_HIGH ? "memory.high" : "memory.max";

	snprintf(detail, sizeof(detail), "v%d %s", m->version, m->rel);
	r = change_log_note(&m->log, MEMCG_JOURNAL_KIND, m->name, detail, e);
	if (r < 0)
		return err_prefix(e, "not creating memory cgroup %s: cannot journal it", name);
	r = m->ops->create(m, limit_file, e);
	if (r < 0) {
		change_log_done(&m->log, MEMCG_JOURNAL_KIND, m->name, NULL);
		return r;
	}
	m->created = true;
	return 0;
}

int memcg_attach(const struct memcg *m, pid_t pid, struct st_err *e)
{
	if (!m->created)
		return err_set(e, -EINVAL, "memory cgroup %s was not created", m->name);
	return m->ops->attach(m, pid == 0 ? getpid() : pid, e);
}

int memcg_read_stat(const struct memcg *m, struct st_kvtab *t, struct st_err *e)
{
	if (!m->created)
		return err_set(e, -EINVAL, "memory cgroup %s was not created", m->name);
	return m->ops->read_stat(m, t, e);
}

/*
 * The files below are read through the host layer: libcgroup's value API
 * reads every file of the controller at once and keeps one line of each,
 * which loses the multi-line memory.oom_control, memory.events and
 * memory.pressure.
 */
int memcg_oom_kills(const struct memcg *m, uint64_t *n, struct st_err *e)
{
	char rel[PATH_MAX + 64];
	struct st_kvtab t;
	int r;

	kv_init(&t);
	file_rel(m, m->version == 1 ? "memory.oom_control" : "memory.events", rel, sizeof(rel));
	r = host_read_kv(m->h, rel, &t, false, e);
	if (r == 0 && !kv_get(&t, "oom_kill", n))
		r = err_set(e, -ENOENT, "/%s: no oom_kill count on this kernel", rel);
	kv_free(&t);
	return r;
}

int memcg_peak_bytes(const struct memcg *m, uint64_t *bytes, struct st_err *e)
{
	char rel[PATH_MAX + 64];

	file_rel(m, m->version == 1 ? "memory.max_usage_in_bytes" : "memory.peak", rel, sizeof(rel));
	return host_read_u64(m->h, rel, bytes, e);
}

int memcg_read_pressure(const struct memcg *m, struct st_psi *p, struct st_err *e)
{
	char rel[PATH_MAX + 64];

	if (m->version == 1)
		return err_set(e, -ENOENT, "cgroup v1 has no per-group memory.pressure");
	file_rel(m, "memory.pressure", rel, sizeof(rel));
	return host_read_psi(m->h, rel, p, e);
}

/* The pids listed in a cgroup.procs text. */
static void parse_pids(const char *buf, pid_t *pids, int max, int *n)
{
	*n = 0;
	for (const char *p = buf; *p; ) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > 0 && *n < max)
			pids[(*n)++] = (pid_t)v;
		while (*end == '\n' || *end == ' ')
			end++;
		p = end;
	}
}

static int pids_at(const struct host *h, const char *dir, pid_t *pids, int max, int *n,
		   struct st_err *e)
{
	char rel[PATH_MAX + 64], buf[16384];
	ssize_t r;

	*n = 0;
	snprintf(rel, sizeof(rel), "%s/cgroup.procs", dir);
	r = host_read(h, rel, buf, sizeof(buf), e);
	if (r < 0)
		return (int)r;
	parse_pids(buf, pids, max, n);
	return 0;
}

int memcg_pids(const struct memcg *m, pid_t *pids, int max, int *n, struct st_err *e)
{
	return pids_at(m->h, m->rel, pids, max, n, e);
}

/*
 * The memory controller's root dir as an fd: resolved beneath the tree
 * under a sysroot (a symlink out of it is -EXDEV), and on the live host a
 * cgroup filesystem (-EMEDIUMTYPE otherwise). A group in it is then
 * reached by name with *at() calls only.
 */
static int root_fd(const struct host *h, const char *root)
{
	struct statfs sf;
	int fd = host_openat(h, root, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fd;
	if (h->live && (fstatfs(fd, &sf) < 0 ||
			(sf.f_type != CGROUP_SUPER_MAGIC && sf.f_type != CGROUP2_SUPER_MAGIC))) {
		close(fd);
		return -EMEDIUMTYPE;
	}
	return fd;
}

/* The pids in the group open at gfd (its cgroup.procs). */
static int pids_in(int gfd, const char *dir, pid_t *pids, int max, int *n, struct st_err *e)
{
	char buf[16384], what[PATH_MAX + 32];
	int fd = openat(gfd, "cgroup.procs", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t r;

	*n = 0;
	if (fd < 0)
		return errno == ENOENT || errno == ENODEV ? -ENOENT :
		       err_set(e, -errno, "cannot read /%s/cgroup.procs: %s", dir, strerror(errno));
	snprintf(what, sizeof(what), "/%s/cgroup.procs", dir);
	r = host_read_fd(fd, buf, sizeof(buf), what, e);
	if (r < 0)
		return r == -ENODEV ? -ENOENT : (int)r;
	parse_pids(buf, pids, max, n);
	return 0;
}

/* SIGKILL what runs in the group at gfd until it is empty (live host only), ~5 s at most. */
static int empty_group(const struct host *h, int gfd, const char *dir, struct st_err *e)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	pid_t pids[256];
	int n = 0, r;

	if (!h->live)
		return 0;
	for (int tries = 0; tries < 250; tries++) {
		r = pids_in(gfd, dir, pids, 256, &n, e);
		if (r == -ENOENT) {
			err_reset(e);
			return 0;
		}
		if (r < 0)
			return r;
		if (n == 0)
			return 0;
		for (int i = 0; i < n; i++)
			if (pids[i] != getpid())
				kill(pids[i], SIGKILL);
		nanosleep(&ts, NULL);
	}
	return err_set(e, -EBUSY, "memory cgroup /%s still holds %d process%s after SIGKILL",
		       dir, n, n == 1 ? "" : "es");
}

/*
 * Remove the (empty) group name in the root open at rfd through ops; never
 * migrates tasks to the parent. dir names it in messages.
 */
static int remove_group(const struct memcg_ops *ops, int rfd, const char *name, const char *dir,
			void *lib, struct st_err *e)
{
	struct stat sb;

	if (fstatat(rfd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 :
		       err_set(e, -errno, "cannot remove memory cgroup /%s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return err_set(e, JOURNAL_UNDO_REFUSED, "/%s is not a directory", dir);
	return ops->remove(rfd, name, dir, lib, e);
}

/*
 * Reclaim what is still charged to the group at gfd once its processes are
 * gone (live host only; best effort): v1 memory.force_empty, else v2
 * memory.reclaim of its memory.current. Removing a group does not free its
 * pages (measured on 6.18, v1: a 64 MiB file read inside a group stays
 * cached after rmdir, charged to the dying group; force_empty drops it in
 * ~8 ms), so this is how a probe empties its own group and nothing else.
 * A partial v2 reclaim (EAGAIN) leaves the rest to the kernel.
 */
static void reclaim_group(const struct host *h, int gfd)
{
	char buf[32];
	ssize_t n;
	int fd;

	if (!h->live)
		return;
	fd = openat(gfd, "memory.force_empty", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* EBUSY: a task is back in the group; the rmdir says so */
		}
		close(fd);
		return;
	}
	fd = openat(gfd, "memory.current", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[strspn(buf, "0123456789")] != '\0' || !strcmp(buf, "0"))
		return;		/* not a number, or nothing charged */
	fd = openat(gfd, "memory.reclaim", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, buf, strlen(buf)) < 0) {
		/* EAGAIN: reclaimed less than asked; what is left is not ours to force */
	}
	close(fd);
}

/* Empty and remove leaf name under root (sysroot-relative), all through the root's fd. */
static int destroy_leaf(const struct host *h, const char *root, const char *name, void *lib,
			struct st_err *e)
{
	char dir[PATH_MAX + MEMCG_NAME_MAX + 2];
	int rfd = root_fd(h, root), gfd, r;

	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	if (rfd == -ENOENT || rfd == -ENOTDIR)
		return 0;	/* no root, no group in it */
	if (rfd < 0)
		return err_set(e, rfd == -EXDEV || rfd == -EMEDIUMTYPE ? JOURNAL_UNDO_REFUSED : rfd,
			       "the memory cgroup root /%s %s", root,
			       rfd == -EXDEV ? "resolves outside the sysroot" :
			       rfd == -EMEDIUMTYPE ? "is not a cgroup filesystem" : strerror(-rfd));
	gfd = openat(rfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd < 0) {
		r = errno == ENOENT ? 0 :
		    err_set(e, JOURNAL_UNDO_REFUSED, "/%s is not a directory (%s)", dir, strerror(errno));
		close(rfd);
		return r;
	}
	r = empty_group(h, gfd, dir, e);
	if (r == 0)
		reclaim_group(h, gfd);
	close(gfd);
	if (r == 0)
		r = remove_group(ops_for(h), rfd, name, dir, lib, e);
	close(rfd);
	return r;
}

int memcg_destroy(struct memcg *m, struct st_err *e)
{
	char root[PATH_MAX];
	size_t n = strlen(m->rel), k = strlen(m->name);
	int r;

	if (!m->created)
		return 0;
	if (n <= k + 1 || strcmp(m->rel + n - k, m->name) || m->rel[n - k - 1] != '/')
		return err_set(e, -EINVAL, "memory cgroup %s is not under its root (%s)", m->name, m->rel);
	snprintf(root, sizeof(root), "%.*s", (int)(n - k - 1), m->rel);
	r = destroy_leaf(m->h, root, m->name, m->lib, e);
	if (r < 0)
		return r;
	m->ops->release(m);
	m->created = false;
	return change_log_done(&m->log, MEMCG_JOURNAL_KIND, m->name, e);
}

int memcg_undo(const struct host *h, const char *ident, const char *detail,
	       struct st_err *e)
{
	char dir[PATH_MAX], root[PATH_MAX], want[PATH_MAX + MEMCG_NAME_MAX + 2];
	struct st_err e2 = {0};
	int version;

	/*
	 * detail is "v<N> <dir>": it is swaptune's only when dir is a group
	 * named swaptune-* directly under the memory controller's root, so
	 * that no other group's processes are ever killed
	 */
	if (!valid_name(ident))
		return err_set(e, JOURNAL_UNDO_REFUSED, "%s is not a cgroup name swaptune uses", ident);
	if (!detail || sscanf(detail, "v%d %4095s", &version, dir) != 2)
		return err_set(e, JOURNAL_UNDO_REFUSED, "malformed journal entry");
	if (memcg_locate(h, &version, root, sizeof(root), &e2) < 0)
		return err_set(e, JOURNAL_UNDO_REFUSED, "no memory controller here to check %s against",
			       dir);
	snprintf(want, sizeof(want), "%s/%s", root, ident);
	if (strcmp(dir, want))
		return err_set(e, JOURNAL_UNDO_REFUSED, "%s is not /%s", dir, want);
	return destroy_leaf(h, root, ident, NULL, e);
}
