/*
 * host.c - the host-access layer: opens the sysroot, reads and writes kernel
 * files under it, and reads /proc/swaps, the cgroup mounts and process
 * facts (see host.h), with the primitives every other host file builds on:
 * beneath-resolution (host_openat(), host_dir_fd()) and new temporary names
 * (host_tmp_create()). The key-value and PSI formats and the kept-open
 * readers the sampler uses are in host-read.c, ordinary files under etc/ in
 * host-file.c; both call down into this file, never the other way.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/host.h"

int host_open(struct host *h, const char *sysroot, struct st_err *e)
{
	struct stat st;
	char real[PATH_MAX];

	memset(h, 0, sizeof(*h));
	h->rootfd = -1;
	if (!sysroot || !*sysroot)
		sysroot = "/";
	if (stat(sysroot, &st) < 0)
		return err_set(e, -errno, "sysroot %s: %s", sysroot, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(e, -ENOTDIR, "sysroot %s is not a directory", sysroot);
	if (!realpath(sysroot, real))
		return err_set(e, -errno, "sysroot %s: %s", sysroot, strerror(errno));
	h->rootfd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (h->rootfd < 0)
		return err_set(e, -errno, "cannot open sysroot %s: %s", real, strerror(errno));
	h->live = strcmp(real, "/") == 0;
	snprintf(h->root, sizeof(h->root), "%s", h->live ? "" : real);
	return 0;
}

void host_close(struct host *h)
{
	if (h->rootfd >= 0)
		close(h->rootfd);
	h->rootfd = -1;
}

int host_path(const struct host *h, const char *rel, char *out, size_t len)
{
	while (*rel == '/')
		rel++;
	if ((size_t)snprintf(out, len, "%s/%s", h->root, rel) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static const char *relname(const char *rel)
{
	while (*rel == '/')
		rel++;
	return rel;
}

/*
 * Open rel beneath the sysroot. On the live host ("/") this is a plain
 * openat(): /proc and /sys files are regular or behave. Under a captured
 * tree the path is resolved beneath the tree: symlinks inside it (such as
 * sys/class/block/vda -> ../../devices/...) work, a symlink or ".." that
 * leaves it fails with -EXDEV; and a FIFO, device or socket where a kernel
 * file is expected is refused with -EINVAL (opened O_NONBLOCK, so it never
 * blocks), a directory with -EISDIR. openat2(RESOLVE_BENEATH) does the
 * resolving; where the kernel lacks it (ENOSYS) the fallback is a realpath()
 * prefix check followed by an O_NOFOLLOW open of the resolved path.
 */
static int open_beneath(const struct host *h, const char *rel, int flags)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, h->rootfd, rel, &how, sizeof(how));

	if (fd >= 0 || errno != ENOSYS)
		return (int)fd;
#endif
	return host_open_beneath_fallback(h, rel, flags);
}

int host_open_beneath_fallback(const struct host *h, const char *rel, int flags)
{
	char full[PATH_MAX], real[PATH_MAX];
	size_t n = strlen(h->root);

	if ((size_t)snprintf(full, sizeof(full), "%s/%s", h->root, rel) >= sizeof(full)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!realpath(full, real))
		return -1;
	if (strncmp(real, h->root, n) || (real[n] != '/' && real[n] != '\0')) {
		errno = EXDEV;
		return -1;
	}
	return open(real, flags | O_NOFOLLOW);
}

int host_openat(const struct host *h, const char *rel, int flags)
{
	struct stat st;
	int fd;

	rel = relname(rel);
	if (h->live) {
		/*
		 * never blocks in open (a FIFO named by apply --from waits for
		 * a writer); kernel files ignore O_NONBLOCK, and it is dropped again
		 */
		fd = openat(h->rootfd, rel, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return -errno;
		if (!(flags & O_NONBLOCK))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	fd = open_beneath(h, rel, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP ? -EXDEV : -errno;
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	if ((flags & O_DIRECTORY) ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	/* reads and writes of a regular file do not block either way */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/*
 * Open the directory above rel beneath the sysroot; *base points at rel's
 * last component. Returns the directory fd or -errno (-EXDEV when the
 * directory resolves outside the tree). Everything after this is done
 * with *at() calls on that fd: a symlink swapped into the path later
 * cannot redirect it (no check of a path, then use of the same path).
 */
int host_dir_fd(const struct host *h, const char *rel, const char **base)
{
	char dir[PATH_MAX];
	const char *slash;

	rel = relname(rel);
	slash = strrchr(rel, '/');
	*base = slash ? slash + 1 : rel;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return -EINVAL;
	if (!slash)
		return host_openat(h, ".", O_RDONLY | O_DIRECTORY);
	if ((size_t)(slash - rel) >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, (size_t)(slash - rel));
	dir[slash - rel] = '\0';
	return host_openat(h, dir, O_RDONLY | O_DIRECTORY);
}

int host_tmp_create(int dfd, const char *prefix, mode_t mode, char *name, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[8];
		char suffix[sizeof(rnd) + 1];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			for (size_t i = 0; i < sizeof(rnd); i++)
				rnd[i] = (unsigned char)((unsigned long)ts.tv_nsec >> (i * 3)) ^ (unsigned char)tries;
		}
		for (size_t i = 0; i < sizeof(rnd); i++)
			suffix[i] = digits[rnd[i] % (sizeof(digits) - 1)];
		suffix[sizeof(rnd)] = '\0';
		if ((size_t)snprintf(name, len, "%s.%d.%s", prefix, (int)getpid(), suffix) >= len)
			return -ENAMETOOLONG;
		/* a new name only: never a planted file, symlink or hard link */
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}


/* The error for a failed host_openat(), naming the file. */
int host_open_error(const struct host *h, const char *rel, int r, bool write, struct st_err *e)
{
	rel = relname(rel);
	switch (r) {
	case -ENOENT:
	case -ENOTDIR:
		return err_set(e, -ENOENT, "%s/%s: not available on this kernel", h->root, rel);
	case -EXDEV:
		return err_set_exit(e, -EXDEV, ST_EXIT_USAGE, "%s/%s: resolves outside the sysroot (a symlink or \"..\" leaves the tree); refused",
			       h->root, rel);
	case -EINVAL:
		return err_set(e, -EINVAL, "%s/%s: not a regular file (a FIFO, device or socket) in the sysroot; refused",
			       h->root, rel);
	case -EISDIR:
		return err_set_exit(e, -EISDIR, ST_EXIT_USAGE, "%s/%s: is a directory, not a file", h->root, rel);
	default:
		return err_set(e, r, "cannot open %s/%s%s: %s", h->root, rel, write ? " for writing" : "",
			       strerror(-r));
	}
}

bool host_exists(const struct host *h, const char *rel)
{
	return faccessat(h->rootfd, relname(rel), F_OK, 0) == 0;
}

bool host_writable(const struct host *h, const char *rel)
{
	return faccessat(h->rootfd, relname(rel), W_OK, AT_EACCESS) == 0;
}

ssize_t host_read(const struct host *h, const char *rel, char *buf, size_t len,
		  struct st_err *e)
{
	char what[2 * PATH_MAX + 2];
	int fd;

	rel = relname(rel);
	if (len == 0)
		return err_set(e, -EINVAL, "host_read: empty buffer");
	fd = host_openat(h, rel, O_RDONLY);
	if (fd < 0)
		return host_open_error(h, rel, fd, false, e);
	snprintf(what, sizeof(what), "%s/%s", h->root, rel);
	return host_read_fd(fd, buf, len, what, e);
}

ssize_t host_read_fd(int fd, char *buf, size_t len, const char *what, struct st_err *e)
{
	size_t off = 0;
	ssize_t r;

	for (;;) {
		if (off + 1 >= len) {
			close(fd);
			return err_set(e, -EFBIG, "%s: larger than %zu bytes", what, len ? len - 1 : 0);
		}
		r = read(fd, buf + off, len - 1 - off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;
			close(fd);
			return err_set(e, -saved, "cannot read %s: %s", what, strerror(saved));
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	close(fd);
	buf[off] = '\0';
	return (ssize_t)off;
}

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

int host_read_line(const struct host *h, const char *rel, char *buf, size_t len,
		   struct st_err *e)
{
	ssize_t r = host_read(h, rel, buf, len, e);

	if (r < 0)
		return (int)r;
	rstrip(buf);
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EBADMSG;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EBADMSG;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EBADMSG;
	*out = v;
	return 0;
}

int host_read_u64(const struct host *h, const char *rel, uint64_t *out,
		  struct st_err *e)
{
	char buf[128];
	int r = host_read_line(h, rel, buf, sizeof(buf), e);

	if (r < 0)
		return r;
	if (parse_u64(buf, out) < 0)
		return err_set(e, -EBADMSG, "%s/%s: line 1: expected a number, found \"%.40s\"",
			       h->root, relname(rel), buf);
	return 0;
}

/* A file of a captured tree being written: its path there and where it sits. */
struct tree_file {
	const struct host *h;
	const char *rel;	/* its path in the tree, as errors name it */
	int dfd;		/* its directory, resolved beneath the tree (final_dir_fd) */
	const char *base;	/* its name there */
};

/*
 * A file of a captured tree is replaced whole (a new file beside it, then
 * rename), so that a kill in the middle never leaves it empty or half
 * written: repair must be able to read what is there. Everything goes
 * through the fd of the file's directory, resolved beneath the tree once
 * (host_dir_fd): swapping a directory of the path for a symlink meanwhile
 * cannot move the write out of the tree. The file keeps its mode and its
 * trailing newline (a captured "3\n" written back with "3" is "3\n"
 * again), so that a repaired tree is byte for byte what it was.
 *
 * With the tree's filesystem full there is no room for the new file: then
 * the value goes into the file's own blocks (written at offset 0, then cut
 * to its length), so an apply that fails on a full disk can still put the
 * old value back.
 */
static int write_in_place(const struct tree_file *f, const char *val, size_t n, struct st_err *e)
{
	const struct host *h = f->h;
	const char *rel = f->rel;
	struct stat sb;
	int fd = openat(f->dfd, f->base, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), saved;

	if (fd < 0)
		return host_open_error(h, rel, errno == ELOOP ? -EXDEV : -errno, true, e);
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return host_open_error(h, rel, -EINVAL, true, e);
	}
	if (pwrite(fd, val, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0) {
		saved = errno ? errno : EIO;
		close(fd);
		return err_set(e, -saved, "cannot write \"%.*s\" to %s/%s: %s", (int)n, val, h->root, rel,
			       strerror(saved));
	}
	if (close(fd) < 0)
		return err_set(e, -errno, "cannot write \"%.*s\" to %s/%s: %s", (int)n, val, h->root, rel,
			       strerror(errno));
	return 0;
}

static bool no_space(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

/* The regular file base in dfd: its mode, and whether it ends with a newline. */
static int tree_file_facts(int dfd, const char *base, mode_t *mode, bool *nl)
{
	struct stat sb;
	char c;
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno == ELOOP ? -EXDEV : -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		int r = S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;

		close(fd);
		return r;
	}
	*mode = sb.st_mode & 07777;
	*nl = sb.st_size > 0 && pread(fd, &c, 1, sb.st_size - 1) == 1 && c == '\n';
	close(fd);
	return 0;
}

/*
 * The directory (an fd resolved beneath the tree) and name of the file
 * rel ends at: a symlink as its last component is followed, beneath the
 * tree as host_openat() follows it (an absolute target, or ".." out of the
 * tree, is -EXDEV; more than 8 links -EXDEV).
 */
static int final_dir_fd(const struct host *h, const char *rel, char *base, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s", rel) >= sizeof(path))
		return -ENAMETOOLONG;
	for (int hops = 0; hops <= 8; hops++) {
		const char *b, *slash;
		struct stat sb;
		ssize_t n;
		int dfd = host_dir_fd(h, path, &b);

		if (dfd < 0)
			return dfd;
		if (fstatat(dfd, b, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(sb.st_mode)) {
			if ((size_t)snprintf(base, len, "%s", b) >= len) {
				close(dfd);
				return -ENAMETOOLONG;
			}
			return dfd;
		}
		n = readlinkat(dfd, b, target, sizeof(target) - 1);
		close(dfd);
		if (n <= 0)
			return -EIO;
		target[n] = '\0';
		if (target[0] == '/')
			return -EXDEV;
		slash = strrchr(path, '/');
		if (slash) {
			char next[PATH_MAX];

			if ((size_t)snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - path), path,
					     target) >= sizeof(next))
				return -ENAMETOOLONG;
			memcpy(path, next, sizeof(path));
		} else {
			memcpy(path, target, (size_t)n + 1);
		}
	}
	return -EXDEV;
}

static int replace_in_tree(const struct host *h, const char *rel, const char *val,
			   struct st_err *e)
{
	char tmp[NAME_MAX + 1], base[NAME_MAX + 1], *text;
	size_t n = strlen(val);
	mode_t mode = 0644;
	bool nl = false;
	int dfd = final_dir_fd(h, rel, base, sizeof(base)), tfd, r;
	const struct tree_file f = { .h = h, .rel = rel, .dfd = dfd, .base = base };

	if (dfd < 0)
		return host_open_error(h, rel, dfd, true, e);
	if ((r = tree_file_facts(dfd, base, &mode, &nl)) < 0) {
		close(dfd);
		return host_open_error(h, rel, r, true, e);
	}
	text = malloc(n + 2);
	if (!text) {
		close(dfd);
		return err_set(e, -ENOMEM, "out of memory");
	}
	memcpy(text, val, n);
	if (nl && (n == 0 || val[n - 1] != '\n'))
		text[n++] = '\n';
	text[n] = '\0';
	tfd = host_tmp_create(dfd, HOST_TMP_WRITE, mode, tmp, sizeof(tmp));
	if (tfd < 0) {
		r = no_space(-tfd) ? write_in_place(&f, text, n, e) :
		    err_set(e, tfd, "cannot write \"%s\" to %s/%s: %s", val, h->root, rel, strerror(-tfd));
		goto out;
	}
	errno = 0;
	r = fchmod(tfd, mode) < 0 || write(tfd, text, n) != (ssize_t)n ? -1 : 0;
	if (close(tfd) < 0)
		r = -1;
	if (r < 0 || renameat(dfd, tmp, dfd, base) < 0) {
		int saved = errno ? errno : ENOSPC;

		unlinkat(dfd, tmp, 0);
		r = no_space(saved) ? write_in_place(&f, text, n, e) :
		    err_set(e, -saved, "cannot write \"%s\" to %s/%s: %s", val, h->root, rel, strerror(saved));
		goto out;
	}
	r = 0;
out:
	free(text);
	close(dfd);
	return r;
}

int host_write(const struct host *h, const char *rel, const char *val,
	       struct st_err *e)
{
	size_t n = strlen(val);
	ssize_t w;
	int fd;

	rel = relname(rel);
	if (!h->live)
		return replace_in_tree(h, rel, val, e);
	/* under a sysroot: beneath the tree, an existing regular file only */
	fd = host_openat(h, rel, O_WRONLY | (h->live ? 0 : O_TRUNC));
	if (fd < 0)
		return host_open_error(h, rel, fd, true, e);
	w = write(fd, val, n);
	if (w < 0 || (size_t)w != n) {
		int saved = w < 0 ? errno : EIO;
		close(fd);
		return err_set(e, -saved, "cannot write \"%s\" to %s/%s: %s", val, h->root, rel,
			       strerror(saved));
	}
	if (close(fd) < 0)
		return err_set(e, -errno, "cannot write \"%s\" to %s/%s: %s", val, h->root, rel,
			       strerror(errno));
	return 0;
}

/* ---- /proc/swaps ---- */

static int read_rotational(const struct host *h, const char *sysdir, int *rot)
{
	char rel[PATH_MAX];
	uint64_t v;
	struct st_err e = {0};

	snprintf(rel, sizeof(rel), "%s/queue/rotational", sysdir);
	if (host_read_u64(h, rel, &v, &e) < 0) {
		/* a partition: the queue belongs to the parent disk */
		err_reset(&e);
		snprintf(rel, sizeof(rel), "%s/../queue/rotational", sysdir);
		if (host_read_u64(h, rel, &v, &e) < 0)
			return -ENOENT;
	}
	*rot = v ? 1 : 0;
	return 0;
}

int host_blockdev_rotational(const struct host *h, const char *name, int *rot)
{
	char rel[PATH_MAX];

	if (!*name || strchr(name, '/'))
		return -ENOENT;
	snprintf(rel, sizeof(rel), HOST_CLASS_BLOCK "/%s", name);
	return read_rotational(h, rel, rot);
}

/* The block device name and rotational flag for a swap area. */
static void swap_backing(const struct host *h, struct st_swap *s)
{
	char rel[PATH_MAX], path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	s->rotational = -1;
	s->blockdev[0] = '\0';
	if (!strcmp(s->type, "partition")) {
		const char *base = strrchr(s->path, '/');

		base = base ? base + 1 : s->path;
		snprintf(s->blockdev, sizeof(s->blockdev), "%s", base);
		host_blockdev_rotational(h, base, &s->rotational);
	} else {
		/* a swap file: the device of the filesystem under it */
		host_path(h, s->path, path, sizeof(path));
		if (stat(path, &st) < 0 || major(st.st_dev) == 0)
			goto out;
		snprintf(rel, sizeof(rel), "sys/dev/block/%u:%u",
			 major(st.st_dev), minor(st.st_dev));
		if (read_rotational(h, rel, &s->rotational) < 0)
			goto out;
		n = readlinkat(h->rootfd, rel, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			const char *base = strrchr(target, '/');
			snprintf(s->blockdev, sizeof(s->blockdev), "%s", base ? base + 1 : target);
		}
	}
out:
	s->zram = !strncmp(s->blockdev, "zram", 4);
}

/* The kernel writes space, tab, newline and backslash in paths as \ooo. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int host_read_swaps(const struct host *h, struct st_swap *out, int max, int *n,
		    struct st_err *e)
{
	char buf[16384];
	char *p, *nl;
	int line = 0;
	ssize_t r = host_read(h, HOST_SWAPS, buf, sizeof(buf), e);

	*n = 0;
	if (r < 0)
		return (int)r;
	for (p = buf; *p; p = nl ? nl + 1 : p + strlen(p)) {
		unsigned long long size_kb, used_kb;
		struct st_swap s;
		int prio;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		if (line == 1) {
			if (strncmp(p, "Filename", 8))
				return err_set(e, -EBADMSG, "%s/%s: line 1: missing header", h->root, HOST_SWAPS);
			continue;
		}
		if (!*p)
			continue;
		memset(&s, 0, sizeof(s));
		if (sscanf(p, "%255s %15s %llu %llu %d", s.path, s.type, &size_kb,
			   &used_kb, &prio) != 5)
			return err_set(e, -EBADMSG, "%s/%s: line %d: cannot parse \"%.60s\"",
				       h->root, HOST_SWAPS, line, p);
		/* sizes are kB: a sign, or bytes beyond 64 bits, is a corrupt file */
		if (strchr(p, '-') && sscanf(p, "%*s %*s %*[0-9] %*[0-9] %d", &prio) != 1)
			return err_set(e, -EBADMSG, "%s/%s: line %d: negative size in \"%.60s\"",
				       h->root, HOST_SWAPS, line, p);
		if (size_kb > UINT64_MAX / 1024 || used_kb > UINT64_MAX / 1024 ||
		    size_kb == ULLONG_MAX || used_kb == ULLONG_MAX)
			return err_set(e, -EBADMSG, "%s/%s: line %d: size out of range in \"%.60s\"",
				       h->root, HOST_SWAPS, line, p);
		s.size_bytes = size_kb * 1024;
		s.used_bytes = used_kb * 1024;
		s.priority = prio;
		unescape_octal(s.path);
		swap_backing(h, &s);
		if (*n < max)
			out[(*n)++] = s;
		if (!nl)
			break;
	}
	return 0;
}

/* ---- cgroups ---- */

const char *cgroup_mode_name(enum cgroup_mode m)
{
	switch (m) {
	case CGROUP_V1: return "v1";
	case CGROUP_HYBRID: return "hybrid";
	case CGROUP_V2: return "v2";
	default: return "none";
	}
}

static bool has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, opt, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * A mount point as a cgroup root: absolute, each component a plain name
 * (no "", ".", ".." and no octal escape), so that "/../../.." or
 * "/sys/fs/cgroup/../../x" in a captured tree's mounts cannot make the
 * controller's root a directory outside the tree. Resolving it beneath the
 * tree (symlinks) is the opener's part (memcg_locate).
 */
static bool plain_mount(const char *mnt)
{
	if (mnt[0] != '/' || strchr(mnt, '\\'))
		return false;
	for (const char *p = mnt + 1; *p; ) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return mnt[1] != '\0';
}

int host_cgroup_info(const struct host *h, struct st_cgroup_info *ci,
		     struct st_err *e)
{
	/* on the heap, not static: the TUI's engine thread reads the mounts as its screen does */
	char *buf = malloc(HOST_MOUNTS_MAX), *p, *nl, *save, rel[PATH_MAX + 32], ctrl[512];
	bool any_v1 = false;
	ssize_t r;

	memset(ci, 0, sizeof(*ci));
	if (!buf)
		return err_set(e, -ENOMEM, "out of memory");
	r = host_read(h, HOST_MOUNTS, buf, HOST_MOUNTS_MAX, e);
	if (r < 0) {
		free(buf);
		return (int)r;
	}
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		char dev[256], mnt[PATH_MAX], type[64], opts[1024];

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(p, "%255s %4095s %63s %1023s", dev, mnt, type, opts) != 4)
			continue;
		if (!plain_mount(mnt))
			continue;	/* not a mount point a kernel would name */
		if (!strcmp(type, "cgroup")) {
			any_v1 = true;
			if (has_opt(opts, "memory")) {
				ci->memory_v1 = true;
				snprintf(ci->memory_root, sizeof(ci->memory_root), "%s", mnt + 1);
			}
			if (has_opt(opts, "perf_event") && !ci->perf_event_v1_root[0])
				snprintf(ci->perf_event_v1_root, sizeof(ci->perf_event_v1_root),
					 "%s", mnt + 1);
			if (has_opt(opts, "cpuacct") && !ci->cpuacct_v1_root[0])
				snprintf(ci->cpuacct_v1_root, sizeof(ci->cpuacct_v1_root), "%s", mnt + 1);
		} else if (!strcmp(type, "cgroup2") && !ci->unified_root[0]) {
			snprintf(ci->unified_root, sizeof(ci->unified_root), "%s", mnt + 1);
		}
	}
	free(buf);
	if (ci->unified_root[0] && !ci->memory_v1) {
		snprintf(rel, sizeof(rel), "%s/cgroup.controllers", ci->unified_root);
		if (host_read_line(h, rel, ctrl, sizeof(ctrl), NULL) == 0) {
			for (char *t = strtok_r(ctrl, " ", &save); t; t = strtok_r(NULL, " ", &save))
				if (!strcmp(t, "memory"))
					ci->memory_v2 = true;
		}
		if (ci->memory_v2)
			snprintf(ci->memory_root, sizeof(ci->memory_root), "%s", ci->unified_root);
	}
	if (any_v1 && ci->unified_root[0])
		ci->mode = CGROUP_HYBRID;
	else if (any_v1)
		ci->mode = CGROUP_V1;
	else if (ci->unified_root[0])
		ci->mode = CGROUP_V2;
	else
		ci->mode = CGROUP_NONE;
	return 0;
}

/* ---- misc ---- */

int host_kernel_release(const struct host *h, char *buf, size_t len,
			struct st_err *e)
{
	return host_read_line(h, HOST_OSRELEASE, buf, len, e);
}

/* A line of modules.builtin (kernel/drivers/block/loop.ko) naming kpath. */
static bool builtin_lists(const char *text, const char *kpath)
{
	char want[PATH_MAX];
	size_t n = (size_t)snprintf(want, sizeof(want), "kernel/%s.ko", kpath);

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l == n && !strncmp(p, want, n))
			return true;
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

enum host_module host_module_state(const struct host *h, const char *name, const char *kpath,
				   char *where, size_t len)
{
	static const char *const ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	char rel[PATH_MAX], release[128];
	enum host_module m = HOST_MOD_UNKNOWN;
	char *text;

	where[0] = '\0';
	snprintf(rel, sizeof(rel), HOST_SYS_MODULE "/%s/initstate", name);
	if (host_exists(h, rel))
		return HOST_MOD_LOADED;
	snprintf(rel, sizeof(rel), HOST_SYS_MODULE "/%s", name);
	if (host_exists(h, rel))
		return HOST_MOD_BUILTIN;
	if (host_kernel_release(h, release, sizeof(release), NULL) < 0 || !release[0] ||
	    strchr(release, '/'))
		return HOST_MOD_UNKNOWN;
	snprintf(rel, sizeof(rel), HOST_LIB_MODULES "/%s", release);
	if (!host_exists(h, rel))
		return HOST_MOD_UNKNOWN;
	m = HOST_MOD_ABSENT;
	if ((text = malloc(1 << 20))) {
		ssize_t r;

		snprintf(rel, sizeof(rel), HOST_LIB_MODULES "/%s/modules.builtin", release);
		r = host_read(h, rel, text, 1 << 20, NULL);
		if (r >= 0 && builtin_lists(text, kpath))
			m = HOST_MOD_BUILTIN;
		free(text);
	}
	if (m == HOST_MOD_BUILTIN)
		return m;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(rel, sizeof(rel), HOST_LIB_MODULES "/%s/kernel/%s%s", release, kpath, ext[i]);
		if (host_exists(h, rel)) {
			snprintf(where, len, "%s", rel);
			return HOST_MOD_LOADABLE;
		}
	}
	return m;
}

int host_compressors(const struct host *h, char *buf, size_t len,
		     struct st_err *e)
{
	char name[128] = "", *text = malloc(HOST_CRYPTO_MAX), *p, *nl;
	size_t used = 0;
	ssize_t r;

	if (!text)
		return err_set(e, -ENOMEM, "out of memory");
	r = host_read(h, HOST_CRYPTO, text, HOST_CRYPTO_MAX, e);
	if (r < 0) {
		free(text);
		return (int)r;
	}
	buf[0] = '\0';
	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		char key[64], val[128];

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(p, "%63s : %127s", key, val) != 2)
			continue;
		if (!strcmp(key, "name"))
			snprintf(name, sizeof(name), "%s", val);
		else if (!strcmp(key, "type") && name[0] &&
			 (!strcmp(val, "compression") || !strcmp(val, "scomp") ||
			  !strcmp(val, "acomp"))) {
			/* list each algorithm once */
			char pat[132];

			snprintf(pat, sizeof(pat), " %s ", name);
			char padded[2048];
			snprintf(padded, sizeof(padded), " %s ", buf);
			if (!strstr(padded, pat) && used + strlen(name) + 2 < len) {
				used += (size_t)snprintf(buf + used, len - used, "%s%s",
							 used ? " " : "", name);
			}
			name[0] = '\0';
		}
	}
	free(text);
	return 0;
}

int host_list_dir(const struct host *h, const char *rel, char *buf, size_t len,
		  struct st_err *e)
{
	struct dirent *d;
	size_t used = 0;
	DIR *dir;
	int fd;

	rel = relname(rel);
	buf[0] = '\0';
	fd = host_openat(h, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return host_open_error(h, rel, fd, false, e);
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return err_set(e, -errno, "cannot list /%s", rel);
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (used + strlen(d->d_name) + 2 >= len)
			break;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
					 d->d_name);
	}
	closedir(dir);
	return 0;
}

/* Start time (field 22 of /proc/PID/stat) and state (field 3); 0 if unknown. */
static uint64_t pid_stat(pid_t pid, char *state)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	/* the command name may hold spaces and parentheses: skip to the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* fields after ')' start at field 3; starttime is field 22 */
	if (sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   state, &start) != 2)
		return 0;
	return start;
}

uint64_t host_pid_start_ticks(pid_t pid)
{
	char state;

	return pid_stat(pid, &state);
}

bool host_pid_alive(pid_t pid, uint64_t start_ticks)
{
	uint64_t now;
	char state = '?';

	if (pid <= 0)
		return false;
	now = pid_stat(pid, &state);
	/* a zombie (killed, not yet reaped) will never restore its changes */
	if (!now || state == 'Z' || state == 'X')
		return false;
	return start_ticks == 0 || now == start_ticks;
}

int host_self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int host_read_machine_id(const struct host *h, char *buf, size_t len)
{
	if (host_read_line(h, HOST_MACHINE_ID, buf, len, NULL) < 0 || !buf[0])
		snprintf(buf, len, "unknown");
	return 0;
}
