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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int host_file_replace(const struct host *h, const char *rel, const char *content,
		      mode_t mode, struct st_err *e)
{
	char tmp[NAME_MAX + 1], prefix[NAME_MAX + 1];
	const char *base;
	size_t n = strlen(content);
	ssize_t w;
	int dfd, fd, saved;

	rel = relname(rel);
	dfd = host_dir_fd(h, rel, &base);
	if (dfd < 0)
		return host_open_error(h, rel, dfd, true, e);
	if ((size_t)snprintf(prefix, sizeof(prefix), "%s" HOST_FILE_TMP_SUFFIX, base) >= sizeof(prefix) - 24) {
		close(dfd);
		return err_set(e, -ENAMETOOLONG, "%s/%s: name too long", h->root, rel);
	}
	/* a new name (O_EXCL): never a planted symlink or hard link */
	fd = host_tmp_create(dfd, prefix, mode, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dfd);
		return err_set(e, fd, "cannot create %s/%s" HOST_FILE_TMP_SUFFIX ".*: %s", h->root,
			       rel, strerror(-fd));
	}
	/* the mode asked for, whatever the umask */
	if (fchmod(fd, mode) < 0) {
		saved = errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return err_set(e, -saved, "cannot write %s/%s: %s", h->root, rel, strerror(saved));
	}
	w = write(fd, content, n);
	if (w < 0 || (size_t)w != n || fsync(fd) < 0) {
		saved = w < 0 || (size_t)w == n ? errno : ENOSPC;
		close(fd);
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return err_set(e, -saved, "cannot write %s/%s: %s", h->root, rel, strerror(saved));
	}
	if (close(fd) < 0 || renameat(dfd, tmp, dfd, base) < 0) {
		saved = errno;
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return err_set(e, -saved, "cannot put %s/%s in place: %s", h->root, rel,
			       strerror(saved));
	}
	close(dfd);
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
