/*
 * lock.c - the host-change lock (see lock.h): an flock whose file holds
 * "PID COMMAND" of the swaptune command changing the host, and under a
 * sysroot an flock on the tree's directory as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/lock.h"

/* The longest holder line, with its terminating NUL. */
#define LOCK_LINE_MAX 65

/* "1234 apply\n" -> pid 1234, command "apply" ("swaptune command" if unknown). */
static void parse_holder(const char *buf, int *pid, char *cmd, size_t len)
{
	char *end;
	long p = strtol(buf, &end, 10);

	*pid = (int)p;
	while (*end == ' ')
		end++;
	snprintf(cmd, len, "%.*s", (int)strcspn(end, " \n"), end);
	if (!cmd[0])
		snprintf(cmd, len, "command");
}

/*
 * A lock file swaptune may write its holder line into: a regular file with
 * one link, empty or holding a short "PID COMMAND" line, which is left in
 * buf ("" when empty). Anything else (a victim file planted at the lock's
 * path) is never truncated or written.
 */
static bool lock_file_ours(int fd, char buf[static LOCK_LINE_MAX])
{
	struct stat sb;
	ssize_t n;
	char *end;

	buf[0] = '\0';
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
	    sb.st_size >= (off_t)LOCK_LINE_MAX)
		return false;
	if (sb.st_size == 0)
		return true;
	n = pread(fd, buf, LOCK_LINE_MAX - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if (n <= 0)
		return n == 0;
	if (strtol(buf, &end, 10) <= 0 || *end != ' ')
		return false;
	for (char *p = end + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '-' || (*p == '\n' && !p[1])))
			return false;
	return true;
}

/*
 * A lock file another user owns (not root, not us): its owner could hold the
 * lock for ever or write what we read, so it is refused, never used
 */
static bool lock_owner_foreign(int fd, unsigned *owner)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return false;
	*owner = (unsigned)sb.st_uid;
	return sb.st_uid != 0 && sb.st_uid != geteuid();
}

/*
 * Under a sysroot the lock file follows --db, so two commands changing one
 * tree through two stores would each hold their own: the tree's directory
 * itself is flocked as well. Nothing is written into the tree (a captured
 * tree is compared byte for byte). The callers keep one int per lock, the
 * lock file's fd: the tree's fd is kept beside it here (fd + 1, 0 = free).
 */
static struct {
	int lockfd1, treefd;
} tree_locks[8];
/* the TUI takes and lets go of locks from its engine thread too */
static pthread_mutex_t tree_locks_mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * Flock the sysroot directory of h for good (exclusive, not waiting): 0 with
 * *treefd open, -EWOULDBLOCK while another command holds it, or -errno.
 */
static int tree_lock(const struct host *h, int *treefd)
{
	*treefd = openat(h->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*treefd < 0)
		return -errno;
	if (flock(*treefd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;

		close(*treefd);
		*treefd = -1;
		return -saved;
	}
	return 0;
}

/* Keep treefd beside lockfd until host_change_unlock(lockfd); -EMFILE when full. */
static int tree_lock_keep(int lockfd, int treefd)
{
	int r = -EMFILE;

	pthread_mutex_lock(&tree_locks_mu);
	for (size_t i = 0; i < sizeof(tree_locks) / sizeof(tree_locks[0]); i++)
		if (!tree_locks[i].lockfd1) {
			tree_locks[i].lockfd1 = lockfd + 1;
			tree_locks[i].treefd = treefd;
			r = 0;
			break;
		}
	pthread_mutex_unlock(&tree_locks_mu);
	return r;
}

/* Let go of the tree lock kept beside lockfd, if any. */
static void tree_unlock(int lockfd)
{
	pthread_mutex_lock(&tree_locks_mu);
	for (size_t i = 0; i < sizeof(tree_locks) / sizeof(tree_locks[0]); i++)
		if (tree_locks[i].lockfd1 == lockfd + 1) {
			close(tree_locks[i].treefd);	/* closing lets go of its flock */
			tree_locks[i].lockfd1 = 0;
			tree_locks[i].treefd = -1;
		}
	pthread_mutex_unlock(&tree_locks_mu);
}

/* /run/swaptune/probe.lock on the live host, DB_PATH.probe.lock under a sysroot. */
static void lock_path(const struct host *h, const char *db_path, char *path, size_t len)
{
	if (h->live)
		snprintf(path, len, "/run/swaptune/probe.lock");
	else
		snprintf(path, len, "%s.probe.lock", db_path);
}

/* The lock file's part of host_change_lock(): its flock, and the holder's line written. */
static int lock_file(const struct host *h, const char *db_path, const char *command, int *fd,
		     struct st_err *e)
{
	char buf[LOCK_LINE_MAX], holder[32], path[PATH_MAX];
	unsigned owner;
	int pid, tries = 0;
	ssize_t n;

	if (h->live && mkdir("/run/swaptune", 0755) < 0 && errno != EEXIST)
		return err_set_exit(e, -errno, ST_EXIT_DENIED, "cannot create /run/swaptune: %s",
				    strerror(errno));
	lock_path(h, db_path, path, sizeof(path));
	/* never through a symlink, and never truncating a file that is not a lock */
	*fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*fd < 0)
		return err_set_exit(e, -errno, ST_EXIT_DENIED, "cannot open lock %s: %s%s", path,
				    strerror(errno), errno == ELOOP ? " (it is a symbolic link)" : "");
	if (lock_owner_foreign(*fd, &owner)) {
		close(*fd);
		*fd = -1;
		return err_set_exit(e, -EPERM, ST_EXIT_DENIED,
				    "refusing lock %s: it belongs to uid %u, not to root or you (remove it or use another --db)",
				    path, owner);
	}
	if (!lock_file_ours(*fd, buf)) {
		close(*fd);
		*fd = -1;
		return err_set_exit(e, -EEXIST, ST_EXIT_DENIED,
				    "refusing lock %s: it is not a swaptune lock file (remove it or use another --db)",
				    path);
	}
	while (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;

		/* again: a holder that took the lock since the check has written its line */
		n = pread(*fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		/*
		 * No holder line: host_change_holder() trying the lock for an
		 * instant, or a holder between its flock and its write: both
		 * are over within milliseconds, so try again for up to 200 ms
		 */
		if (saved == EWOULDBLOCK && !buf[0] && tries++ < 20) {
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
			continue;
		}
		close(*fd);
		*fd = -1;
		parse_holder(buf, &pid, holder, sizeof(holder));
		if (saved == EWOULDBLOCK)
			return err_set_exit(e, -EBUSY, ST_EXIT_DENIED,
					    "another swaptune %s (pid %d) is changing this host (lock %s): wait for it to finish",
					    holder, pid, path);
		return err_set_exit(e, -saved, ST_EXIT_DENIED, "cannot lock %s: %s", path, strerror(saved));
	}
	snprintf(buf, sizeof(buf), "%d %s\n", (int)getpid(), command ? command : "command");
	/* the holder is a courtesy for the message above: failing to write it is fine */
	if (ftruncate(*fd, 0) == 0)
		(void)!pwrite(*fd, buf, strlen(buf), 0);
	return 0;
}

int host_change_lock(const struct host *h, const char *db_path, const char *command, int *fd,
		     struct st_err *e)
{
	char holder[32], path[PATH_MAX];
	int treefd = -1, pid, r, tries = 0;

	*fd = -1;
	while (!h->live && (r = tree_lock(h, &treefd)) < 0) {
		if (r != -EWOULDBLOCK)
			return err_set_exit(e, r, ST_EXIT_DENIED, "cannot lock %s: %s", h->root,
					    strerror(-r));
		/* a holder through this store names itself in its lock file */
		if (host_change_holder(h, db_path, &pid, holder, sizeof(holder))) {
			lock_path(h, db_path, path, sizeof(path));
			return err_set_exit(e, -EBUSY, ST_EXIT_DENIED,
					    "another swaptune %s (pid %d) is changing this host (lock %s): wait for it to finish",
					    holder, pid, path);
		}
		/* one between its two flocks has written its line within milliseconds */
		if (tries++ < 20) {
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
			continue;
		}
		return err_set_exit(e, -EBUSY, ST_EXIT_DENIED,
				    "another swaptune command is changing this tree (%s)", h->root);
	}
	if ((r = lock_file(h, db_path, command, fd, e)) < 0) {
		if (treefd >= 0)
			close(treefd);
		return r;
	}
	if (treefd >= 0 && tree_lock_keep(*fd, treefd) < 0) {
		close(treefd);
		host_change_unlock(*fd);
		*fd = -1;
		return err_set_exit(e, -EMFILE, ST_EXIT_RUNTIME, "cannot lock %s: too many locks held",
				    h->root);
	}
	return 0;
}

void host_change_unlock(int fd)
{
	if (fd >= 0) {
		(void)!ftruncate(fd, 0);
		flock(fd, LOCK_UN);
		tree_unlock(fd);
		close(fd);
	}
}

int host_change_holder(const struct host *h, const char *db_path, int *pid, char *cmd, size_t len)
{
	char path[4096], buf[LOCK_LINE_MAX];
	unsigned owner;
	bool ours;
	int fd;

	lock_path(h, db_path, path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/*
	 * The holder writes "PID COMMAND" while it holds the lock and empties
	 * the file when it lets go; a holder killed with -9 leaves its line
	 * behind, and its pid may since belong to an unrelated process, so a
	 * running pid proves nothing: the flock itself says. A shared try, let
	 * go at once (a command taking the lock meanwhile finds no holder line
	 * and tries again: host_change_lock).
	 */
	ours = lock_file_ours(fd, buf) && !lock_owner_foreign(fd, &owner);
	if (!ours || !buf[0] || flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);	/* closing lets go of the shared lock */
		return 0;
	}
	close(fd);
	parse_holder(buf, pid, cmd, len);
	return *pid > 0 ? 1 : 0;
}
