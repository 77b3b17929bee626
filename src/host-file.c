/*
 * host-file.c - ordinary files under the sysroot that are not kernel files
 * (the boot-time configuration apply --persist writes under etc/): read,
 * stat, list, create, replace and remove them with every directory above
 * the name resolved beneath the tree as host_openat() resolves it, so a
 * symlink planted in the tree cannot lead a write outside it. See host.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/host.h"

static const char *relname(const char *rel)
{
	while (*rel == '/')
		rel++;
	return rel;
}

/* The pid in "prefix.PID.RANDOM"; 0 for an older name without one (".swaptune-write.XXXXXX"). */
static pid_t tmp_pid(const char *rest)
{
	char *end;
	long v;

	if (*rest != '.' || !isdigit((unsigned char)rest[1]))
		return 0;
	errno = 0;
	v = strtol(rest + 1, &end, 10);
	if (errno || *end != '.' || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

int host_tmp_sweep(const struct host *h, const char *dir, const char *prefix)
{
	size_t n = strlen(prefix);
	struct dirent *de;
	int dfd = host_openat(h, relname(dir), O_RDONLY | O_DIRECTORY), count = 0;
	DIR *d;

	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat sb;
		pid_t pid;

		if (strncmp(de->d_name, prefix, n) || (de->d_name[n] && de->d_name[n] != '.'))
			continue;
		pid = tmp_pid(de->d_name + n);
		if (pid > 0 && host_pid_alive(pid, 0))
			continue;	/* another swaptune is writing it now */
		/* a name only: a directory of that name is not ours */
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(sb.st_mode))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			count++;
	}
	closedir(d);
	return count;
}

ssize_t host_file_get(const struct host *h, const char *rel, char *buf, size_t len,
		      struct st_err *e)
{
	char what[PATH_MAX * 2];
	int fd;

	rel = relname(rel);
	if (len == 0)
		return err_set(e, -EINVAL, "host_file_get: empty buffer");
	fd = host_openat(h, rel, O_RDONLY);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return -ENOENT;
	if (fd >= 0) {
		struct stat sb = { 0 };

		if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			close(fd);
			fd = S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
		}
	}
	if (fd < 0)
		return host_open_error(h, rel, fd, false, e);
	snprintf(what, sizeof(what), "%s/%s", h->root, rel);
	return host_read_fd(fd, buf, len, what, e);
}

int host_file_stat(const struct host *h, const char *rel, struct stat *st)
{
	int fd = host_openat(h, relname(rel), O_RDONLY);

	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	close(fd);
	return 0;
}

DIR *host_file_opendir(const struct host *h, const char *rel)
{
	int fd = host_openat(h, relname(rel), O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/*
 * Where a write goes: the name base in the directory open as dfd, the
 * directory resolved once so that nothing swapped into the path meanwhile
 * moves the write elsewhere.
 */
struct dir_name {
	int dfd;
	const char *base;
};

/*
 * The one way swaptune writes a file whole: at->base in at->dfd replaced
 * by a new file holding data, never written through a name someone planted
 * (the temporary name prefix.PID.RANDOM is new, O_EXCL|O_NOFOLLOW, in the
 * directory's fd), made mode whatever the umask, fsynced, then renamed over
 * base, so a reader sees the old file or the new one. 0, or -errno with
 * *step saying what failed: "create", "write" or "rename".
 */
static int replace_at(const struct dir_name *at, const char *prefix, const void *data, size_t n,
		      mode_t mode, const char **step)
{
	int dfd = at->dfd;
	char tmp[NAME_MAX + 1];
	const char *p = data;
	int fd = host_tmp_create(dfd, prefix, mode, tmp, sizeof(tmp)), saved;

	*step = "create";
	if (fd < 0)
		return fd;
	*step = "write";
	if (fchmod(fd, mode) < 0)
		goto fail;
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errno = w < 0 ? errno : ENOSPC;
			goto fail;
		}
		p += w;
		n -= (size_t)w;
	}
	if (fsync(fd) < 0)
		goto fail;
	saved = close(fd);
	fd = -1;
	if (saved < 0)
		goto fail;
	*step = "rename";
	if (renameat(dfd, tmp, dfd, at->base) < 0)
		goto fail;
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, tmp, 0);
	return -saved;
}

int host_file_replace(const struct host *h, const char *rel, const char *content,
		      mode_t mode, struct st_err *e)
{
	char prefix[NAME_MAX + 1];
	const char *base, *step;
	int dfd, r;

	rel = relname(rel);
	dfd = host_dir_fd(h, rel, &base);
	if (dfd < 0)
		return host_open_error(h, rel, dfd, true, e);
	if ((size_t)snprintf(prefix, sizeof(prefix), "%s" HOST_FILE_TMP_SUFFIX, base) >= sizeof(prefix) - 24) {
		close(dfd);
		return err_set(e, -ENAMETOOLONG, "%s/%s: name too long", h->root, rel);
	}
	r = replace_at(&(struct dir_name){ dfd, base }, prefix, content, strlen(content), mode, &step);
	close(dfd);
	if (r < 0 && !strcmp(step, "create"))
		return err_set(e, r, "cannot create %s/%s" HOST_FILE_TMP_SUFFIX ".*: %s", h->root,
			       rel, strerror(-r));
	if (r < 0)
		return err_set(e, r, "cannot %s %s/%s%s: %s", strcmp(step, "rename") ? "write" : "put",
			       h->root, rel, strcmp(step, "rename") ? "" : " in place", strerror(-r));
	return 0;
}

/*
 * A directory only root or the caller can write (its owner is one of them
 * and it is not group or world writable): a symlink in it was not planted
 * by another user, so /dev/stdout or a link of the caller's own is honoured.
 */
static bool dir_trusted(int dfd)
{
	struct stat sb;

	return fstat(dfd, &sb) == 0 && (sb.st_uid == 0 || sb.st_uid == geteuid()) &&
	       !(sb.st_mode & (S_IWGRP | S_IWOTH));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Write data to a FIFO or character device the user named: opened as it
 * is, no temporary file, non-blocking, within HOST_USER_WRITE_TIMEOUT_MS
 * (a FIFO nobody reads, or reads too slowly, is an error, not a hang);
 * never a block device (a disk), never anything else the name turned into
 * between the look and the open.
 */
static int write_special(const struct dir_name *at, const char *path, bool follow, const void *data,
			 size_t n, struct st_err *e)
{
	const char *p = data;
	long long deadline = now_ms() + HOST_USER_WRITE_TIMEOUT_MS;
	struct stat sb;
	int fd;

	for (;;) {
		fd = openat(at->dfd, at->base,
			    O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
		/* a FIFO without a reader yet: ENXIO until one opens it */
		if (fd >= 0 || errno != ENXIO || now_ms() >= deadline)
			break;
		usleep(20000);
	}
	if (fd < 0 && errno == ENXIO)
		return err_set(e, -ETIMEDOUT, "cannot write %s: nobody reads it (waited %d s)", path,
			       HOST_USER_WRITE_TIMEOUT_MS / 1000);
	if (fd < 0 && errno == ELOOP)
		return err_set_exit(e, -ELOOP, ST_EXIT_DENIED, "%s is a symbolic link: refused", path);
	if (fd < 0)
		return err_set(e, -errno, "cannot write %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) < 0 || !(S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode))) {
		close(fd);
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "%s: not a FIFO or character device: refused",
				    path);
	}
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			long long left = deadline - now_ms();

			if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
				close(fd);
				return err_set(e, -ETIMEDOUT, "cannot write %s: not read within %d s", path,
					       HOST_USER_WRITE_TIMEOUT_MS / 1000);
			}
			continue;
		}
		if (w <= 0) {
			int saved = w < 0 ? errno : EIO;

			close(fd);
			return err_set(e, -saved, "cannot write %s: %s", path, strerror(saved));
		}
		p += w;
		n -= (size_t)w;
	}
	if (close(fd) < 0 && errno != EINTR)
		return err_set(e, -errno, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

/* The replaced file's owner, group and mode on its replacement (best effort). */
static void keep_attrs(int dfd, const char *base, const struct stat *was)
{
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat now;

	if (fd < 0)
		return;
	if (fstat(fd, &now) == 0 && S_ISREG(now.st_mode)) {
		if ((now.st_uid != was->st_uid || now.st_gid != was->st_gid) &&
		    fchown(fd, was->st_uid, was->st_gid) < 0)
			(void)0;	/* not root: the file is the caller's now, as any editor leaves it */
		fchmod(fd, was->st_mode & 07777);
	}
	close(fd);
}

int host_user_file_replace(const char *path, const void *data, size_t n, mode_t mode,
			   struct st_err *e)
{
	char dir[PATH_MAX], prefix[NAME_MAX + 1];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path, *step;
	bool link = false, had_file = false;
	struct stat sb;
	int dfd, r;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "%s: not a file name", path);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if ((slash && (size_t)(slash - path) >= sizeof(dir)) ||
	    (size_t)snprintf(prefix, sizeof(prefix), "%s" HOST_FILE_TMP_SUFFIX, base) >= sizeof(prefix) - 24)
		return err_set_exit(e, -ENAMETOOLONG, ST_EXIT_USAGE, "%s: path too long", path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return err_set(e, -errno, "cannot create %s: %s", path, strerror(errno));
	/*
	 * A symlink another user could have planted (root writing metrics into
	 * the Prometheus user's directory) is refused, not followed
	 */
	if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)) {
		if (!dir_trusted(dfd)) {
			close(dfd);
			return err_set_exit(e, -ELOOP, ST_EXIT_DENIED,
					    "%s is a symbolic link in a directory other users can write: refused",
					    path);
		}
		link = true;
	}
	/*
	 * -o /dev/null, /dev/stdout, a FIFO: written to as they are, never
	 * replaced by a regular file (a rename over /dev/null would break the
	 * whole host); a block device never
	 */
	if (fstatat(dfd, base, &sb, link ? 0 : AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			close(dfd);
			return err_set_exit(e, -EISDIR, ST_EXIT_USAGE, "%s: is a directory", path);
		}
		if (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode)) {
			r = write_special(&(struct dir_name){ dfd, base }, path, link, data, n, e);
			close(dfd);
			return r;
		}
		if (!S_ISREG(sb.st_mode)) {
			close(dfd);
			return err_set_exit(e, -EINVAL, ST_EXIT_USAGE,
					    "%s: not a regular file, FIFO or character device: refused", path);
		}
		had_file = !link;
		/* written with the narrower of the two modes until keep_attrs() */
		mode &= sb.st_mode & 0777;
	}
	r = replace_at(&(struct dir_name){ dfd, base }, prefix, data, n, mode, &step);
	/*
	 * A file that was there keeps its mode, owner and group: replacing
	 * it must not open it to others (root writing -o over a 0640 file)
	 */
	if (r == 0 && had_file)
		keep_attrs(dfd, base, &sb);
	close(dfd);
	if (r < 0 && !strcmp(step, "create"))
		return err_set(e, r, "cannot create a file in %s: %s", dir, strerror(-r));
	if (r < 0)
		return err_set(e, r, "cannot %s %s: %s", strcmp(step, "rename") ? "write" : "replace",
			       path, strerror(-r));
	return 0;
}

int host_file_remove(const struct host *h, const char *rel, bool dir, struct st_err *e)
{
	const char *base;
	int dfd, saved;

	rel = relname(rel);
	dfd = host_dir_fd(h, rel, &base);
	if (dfd == -ENOENT || dfd == -ENOTDIR)
		return -ENOENT;
	if (dfd < 0)
		return host_open_error(h, rel, dfd, true, e);
	if (unlinkat(dfd, base, dir ? AT_REMOVEDIR : 0) < 0) {
		saved = errno;
		close(dfd);
		if (saved == ENOENT)
			return -ENOENT;
		return err_set(e, -saved, "cannot remove %s%s/%s: %s", dir ? "directory " : "",
			       h->root, rel, strerror(saved));
	}
	close(dfd);
	return 0;
}

int host_file_mkdir(const struct host *h, const char *rel, mode_t mode, struct st_err *e)
{
	const char *base;
	int dfd, saved;

	rel = relname(rel);
	dfd = host_dir_fd(h, rel, &base);
	if (dfd < 0)
		return host_open_error(h, rel, dfd, true, e);
	if (mkdirat(dfd, base, mode) < 0 && errno != EEXIST) {
		saved = errno;
		close(dfd);
		return err_set(e, -saved, "cannot create directory %s/%s: %s", h->root, rel,
			       strerror(saved));
	}
	close(dfd);
	return 0;
}
