/*
 * scratch-swap.c - the probe's own swap (loop device over a sparse file, or
 * zram) and the debugfs mount, each journaled before it exists (see
 * scratch-swap.h for why a loop device rather than a plain swap file).
 */
#include <fcntl.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "swaptune/journal.h"
#include "swaptune/scratch-swap.h"

#define FILE_PREFIX "swaptune-swap-"
#define LOOP_CONTROL_DEV "/dev/loop-control"
#define ZRAM_DEV "zram0"
/* above anything a distribution configures, so the probe's device is used first */
#define SCRATCH_PRIORITY 32000

static int res_done(const struct change_log *log, const char *kind, const char *ident,
		    struct st_err *e)
{
	return change_log_done(log, kind, ident, e);
}

static int res_note(const struct change_log *log, const char *kind, const char *ident,
		    const char *detail, struct st_err *e)
{
	return change_log_note(log, kind, ident, detail, e);
}

static int need_live(const struct host *h, const char *what, struct st_err *e)
{
	if (!h->live)
		return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
				    "cannot %s under --sysroot: only on the running host", what);
	return 0;
}

/* ---- swap header ---- */

struct swap_header_v1 {
	char bootbits[1024];
	uint32_t version;
	uint32_t last_page;
	uint32_t nr_badpages;
	unsigned char uuid[16];
	char volume_name[16];
	uint32_t padding[117];
	uint32_t badpages[1];
};

int scratch_swap_write_header(int fd, uint64_t size_bytes, size_t page_size,
			      struct st_err *e)
{
	char *page = calloc(1, page_size);
	struct swap_header_v1 *hdr = (struct swap_header_v1 *)page;
	uint64_t pages = size_bytes / page_size;
	ssize_t w;

	if (!page)
		return err_set(e, -ENOMEM, "out of memory");
	if (pages < 10 || pages - 1 > UINT32_MAX) {
		free(page);
		return err_set(e, -EINVAL, "swap size of %llu bytes is out of range",
			       (unsigned long long)size_bytes);
	}
	hdr->version = 1;
	hdr->last_page = (uint32_t)(pages - 1);
	if (getrandom(hdr->uuid, sizeof(hdr->uuid), 0) != (ssize_t)sizeof(hdr->uuid))
		snprintf((char *)hdr->uuid, sizeof(hdr->uuid), "%llx", (unsigned long long)time(NULL));
	hdr->uuid[6] = (unsigned char)((hdr->uuid[6] & 0x0f) | 0x40);	/* version 4 */
	hdr->uuid[8] = (unsigned char)((hdr->uuid[8] & 0x3f) | 0x80);
	snprintf(hdr->volume_name, sizeof(hdr->volume_name), "swaptune");
	memcpy(page + page_size - 10, "SWAPSPACE2", 10);
	w = pwrite(fd, page, page_size, 0);
	free(page);
	if (w != (ssize_t)page_size)
		return err_set(e, w < 0 ? -errno : -EIO, "cannot write the swap header: %s",
			       w < 0 ? strerror(errno) : "short write");
	if (fsync(fd) < 0)
		return err_set(e, -errno, "cannot write the swap header: %s", strerror(errno));
	return 0;
}

/* ---- directory ---- */

static int usable_dir(const char *dir, char *why, size_t len)
{
	struct statfs fs;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(why, len, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (statfs(dir, &fs) < 0) {
		snprintf(why, len, "cannot use %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
		snprintf(why, len, "%s is in RAM (tmpfs): swap there would not relieve memory", dir);
		return -EOPNOTSUPP;
	}
	if (access(dir, W_OK) < 0) {
		snprintf(why, len, "cannot write to %s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

int scratch_swap_default_dir(char *out, size_t len, struct st_err *e)
{
	static const char *const dirs[] = { "/var/lib/swaptune", "/var/tmp" };
	char why[PATH_MAX + 64] = "";

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (usable_dir(dirs[i], why, sizeof(why)) == 0) {
			snprintf(out, len, "%s", dirs[i]);
			return 0;
		}
	return err_set_exit(e, -EOPNOTSUPP, ST_EXIT_DENIED,
			    "no directory for the scratch swap file (%s): use --scratch-dir DIR on a disk", why);
}

/* ---- swapon / swapoff ---- */

static bool swap_active(const struct host *h, const char *dev)
{
	struct st_swap sw[HOST_MAX_SWAPS];
	int n = 0;

	if (host_read_swaps(h, sw, HOST_MAX_SWAPS, &n, NULL) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (!strcmp(sw[i].path, dev))
			return true;
	return false;
}

static int do_swapoff(const struct host *h, const char *dev, struct st_err *e)
{
	if (!swap_active(h, dev))
		return 0;
	if (swapoff(dev) < 0 && errno != EINVAL)
		return err_set(e, -errno, "cannot swapoff %s: %s", dev, strerror(errno));
	return 0;
}

int scratch_swap_on(struct scratch_swap *s, struct st_err *e)
{
	int flags = SWAP_FLAG_PREFER | ((SCRATCH_PRIORITY << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);

	if (s->active || !s->attached)
		return s->active ? 0 : err_set(e, -EINVAL, "scratch swap is not set up");
	if (swapon(s->dev, flags) < 0)
		return err_set(e, -errno, "cannot swapon %s: %s", s->dev, strerror(errno));
	s->active = true;
	return 0;
}

int scratch_swap_off(struct scratch_swap *s, struct st_err *e)
{
	int r;

	if (!s->attached)
		return 0;
	r = do_swapoff(s->h, s->dev, e);
	if (r == 0)
		s->active = false;
	return r;
}

int scratch_swap_recycle(struct scratch_swap *s, struct st_err *e)
{
	int r = scratch_swap_off(s, e);

	return r < 0 ? r : scratch_swap_on(s, e);
}

/* ---- loop ---- */

/* modprobe as the distributions install it: a fixed path, never one from PATH */
static const char *const modprobe_paths[] = { "/usr/sbin/modprobe", "/sbin/modprobe" };

int scratch_loop_module(const struct host *h, char *said, size_t len, struct st_err *e)
{
	char where[PATH_MAX];
	const char *exe = NULL;
	int status = -1;
	pid_t pid;

	said[0] = '\0';
	if (!h->live || access(LOOP_CONTROL_DEV, F_OK) == 0)
		return 0;
	switch (host_module_state(h, "loop", "drivers/block/loop", where, sizeof(where))) {
	case HOST_MOD_LOADABLE:
		break;
	case HOST_MOD_ABSENT:
		return err_set_exit(e, -ENODEV, ST_EXIT_DENIED,
				    "%s is absent and this kernel has no loop driver (neither built in nor "
				    "a module under /lib/modules): give the probe a swap device (swapon)",
				    LOOP_CONTROL_DEV);
	default:
		/* loaded or built in without the node, or cannot tell: loop_attach() says so */
		return 0;
	}
	for (size_t i = 0; i < sizeof(modprobe_paths) / sizeof(modprobe_paths[0]) && !exe; i++)
		if (access(modprobe_paths[i], X_OK) == 0)
			exe = modprobe_paths[i];
	if (!exe)
		return err_set_exit(e, -ENOENT, ST_EXIT_DENIED,
				    "%s is absent, loop is a module not loaded (/%s) and there is no modprobe "
				    "(/usr/sbin, /sbin): load it (insmod /%s) or give the probe a swap device",
				    LOOP_CONTROL_DEV, where, where);
	snprintf(said, len, "loading the loop module for a scratch swap: %s loop (it stays loaded)", exe);
	pid = fork();
	if (pid < 0)
		return err_set(e, -errno, "cannot run %s loop: fork: %s", exe, strerror(errno));
	if (pid == 0) {
		static char *const env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
		int devnull = open("/dev/null", O_RDWR);

		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
		}
		execle(exe, exe, "-q", "loop", (char *)NULL, env);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set_exit(e, -ENODEV, ST_EXIT_DENIED,
				    "%s is absent and '%s loop' failed (%s %d): load the loop module by hand "
				    "(modprobe loop) or give the probe a swap device (swapon)",
				    LOOP_CONTROL_DEV, exe, WIFEXITED(status) ? "exit" : "signal",
				    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	/* devtmpfs makes the node as the module registers it; udev may take a moment */
	for (int i = 0; i < 40 && access(LOOP_CONTROL_DEV, F_OK) != 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	if (access(LOOP_CONTROL_DEV, F_OK) != 0)
		return err_set_exit(e, -ENOENT, ST_EXIT_DENIED,
				    "'%s loop' succeeded but %s did not appear within 2 s: is devtmpfs "
				    "mounted on /dev?", exe, LOOP_CONTROL_DEV);
	return 1;
}

static int loop_attach(struct scratch_swap *s, int file_fd, const struct stat *fst,
		       struct st_err *e)
{
	char detail[PATH_MAX + 64];
	int ctl, r = 0;

	ctl = open(LOOP_CONTROL_DEV, O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return err_set_exit(e, -errno, ST_EXIT_DENIED, "cannot open %s: %s (load the loop module: modprobe loop)",
				    LOOP_CONTROL_DEV, strerror(errno));
	/* another program may take the free device first: try a few */
	for (int tries = 0; tries < 8; tries++) {
		struct loop_config cfg;
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), dfd;

		if (n < 0) {
			r = err_set(e, -errno, "no free loop device: %s", strerror(errno));
			break;
		}
		snprintf(s->dev, sizeof(s->dev), "/dev/loop%d", n);
		snprintf(detail, sizeof(detail), "%llu:%llu %s",
			 (unsigned long long)fst->st_dev, (unsigned long long)fst->st_ino, s->file);
		r = res_note(&s->log, SCRATCH_KIND_LOOP, s->dev, detail, e);
		if (r < 0) {
			err_prefix(e, "not attaching %s: cannot journal it", s->dev);
			break;
		}
		dfd = open(s->dev, O_RDWR | O_CLOEXEC);
		if (dfd < 0) {
			r = err_set(e, -errno, "cannot open %s: %s", s->dev, strerror(errno));
			res_done(&s->log, SCRATCH_KIND_LOOP, s->dev, NULL);
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)file_fd;
		cfg.block_size = (uint32_t)sysconf(_SC_PAGESIZE);
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", s->file);
		r = ioctl(dfd, LOOP_CONFIGURE, &cfg);
		if (r < 0 && errno == EINVAL) {
			/* the file system may not do direct I/O at this block size */
			cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
			cfg.block_size = 0;
			r = ioctl(dfd, LOOP_CONFIGURE, &cfg);
		} else if (r == 0) {
			s->direct_io = true;
		}
		if (r == 0) {
			struct loop_info64 info;

			/* direct I/O may have been refused silently */
			if (ioctl(dfd, LOOP_GET_STATUS64, &info) == 0)
				s->direct_io = (info.lo_flags & LO_FLAGS_DIRECT_IO) != 0;
			/* autoclear detaches at the last close: hold it while we run */
			s->loop_fd = dfd;
			s->attached = true;
			break;
		}
		r = -errno;
		close(dfd);
		res_done(&s->log, SCRATCH_KIND_LOOP, s->dev, NULL);
		if (r != -EBUSY) {
			err_set(e, r, "cannot attach %s to %s: %s", s->file, s->dev, strerror(-r));
			break;
		}
	}
	close(ctl);
	if (!s->attached && r == 0)
		r = err_set(e, -EBUSY, "every free loop device was taken by someone else: try again");
	return r;
}

/*
 * A loop device inherits "rotational" from the disk under its file (since
 * ~6.5), and one rotational swap device switches the whole host to cluster
 * readahead: declare ours non-rotational before swapon reads the flag.
 */
static int mark_nonrotational(struct scratch_swap *s, struct st_err *e)
{
	char rel[PATH_MAX];
	int rot = -1;

	snprintf(rel, sizeof(rel), HOST_CLASS_BLOCK "/%s/queue/rotational", s->dev + 5);
	if (host_blockdev_rotational(s->h, s->dev + 5, &rot) == 0 && rot == 0)
		return 0;
	if (host_write(s->h, rel, "0", e) < 0)
		return err_prefix(e, "cannot make %s non-rotational", s->dev);
	if (host_blockdev_rotational(s->h, s->dev + 5, &rot) == 0 && rot != 0)
		return err_set(e, -EIO, "%s stays rotational, which would switch the host to cluster readahead",
			       s->dev);
	return 0;
}

/*
 * The start of both creators: s cleared for kind, size rounded down to
 * pages (each then refuses a host that is not live, with need_live()).
 */
static void scratch_begin(struct scratch_swap *s, const struct host *h,
			  const struct change_log *log, enum scratch_swap_kind kind,
			  uint64_t size_bytes)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);

	memset(s, 0, sizeof(*s));
	s->h = h;
	change_log_copy(&s->log, log);
	s->kind = kind;
	s->loop_fd = -1;
	s->size_bytes = size_bytes / ps * ps;
}

int scratch_swap_create_loop(struct scratch_swap *s, const struct host *h,
			     const struct change_log *log, const char *dir,
			     uint64_t size_bytes, struct st_err *e)
{
	char why[PATH_MAX + 64];
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct statvfs vfs;
	struct stat fst;
	int fd, r;

	scratch_begin(s, h, log, SCRATCH_SWAP_LOOP, size_bytes);
	if ((r = need_live(h, "make scratch swap", e)) < 0)
		return r;
	r = usable_dir(dir, why, sizeof(why));
	if (r < 0)
		return err_set_exit(e, r, ST_EXIT_DENIED, "%s: use --scratch-dir DIR on a disk", why);
	if (statvfs(dir, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < s->size_bytes + (64ull << 20))
		return err_set_exit(e, -ENOSPC, ST_EXIT_DENIED,
				    "%s has %llu MiB free, the scratch swap needs %llu MiB: use --scratch-dir or --swap-size",
				    dir, (unsigned long long)((uint64_t)vfs.f_bavail * vfs.f_frsize >> 20),
				    (unsigned long long)(s->size_bytes >> 20));
	snprintf(s->file, sizeof(s->file), "%s/" FILE_PREFIX "%d.img", dir, (int)getpid());

	r = res_note(&s->log, SCRATCH_KIND_FILE, s->file, NULL, e);
	if (r < 0)
		return err_prefix(e, "not creating %s: cannot journal it", s->file);
	fd = open(s->file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = err_set(e, -errno, "cannot create %s: %s", s->file, strerror(errno));
		res_done(&s->log, SCRATCH_KIND_FILE, s->file, NULL);
		return r;
	}
	s->file_made = true;
	if (ftruncate(fd, (off_t)s->size_bytes) < 0)
		r = err_set(e, -errno, "cannot size %s: %s", s->file, strerror(errno));
	if (r == 0)
		r = scratch_swap_write_header(fd, s->size_bytes, ps, e);
	if (r == 0 && fstat(fd, &fst) < 0)
		r = err_set(e, -errno, "cannot stat %s: %s", s->file, strerror(errno));
	if (r == 0)
		r = loop_attach(s, fd, &fst, e);
	close(fd);
	if (r == 0)
		r = mark_nonrotational(s, e);
	if (r == 0)
		r = scratch_swap_on(s, e);
	if (r < 0) {
		struct st_err e2 = {0};

		scratch_swap_destroy(s, &e2);
	}
	return r;
}

/* Detach dev if it still serves the file named in detail ("dev:ino path"). */
static int loop_detach(const char *dev, const char *detail, struct st_err *e)
{
	unsigned long long sdev, sino;
	struct loop_info64 info;
	int fd;

	if (!detail || sscanf(detail, "%llu:%llu", &sdev, &sino) != 2)
		return err_set(e, -EINVAL, "cannot undo %s: malformed journal entry", dev);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? 0 :
		       err_set(e, -errno, "cannot open %s: %s", dev, strerror(errno));
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0) {
		int saved = errno;

		close(fd);
		/* ENXIO: nothing attached (autoclear already detached it) */
		return saved == ENXIO ? 0 : err_set(e, -saved, "cannot query %s: %s", dev, strerror(saved));
	}
	if (info.lo_device != sdev || info.lo_inode != sino) {
		close(fd);
		return 0;	/* someone else's file now: not ours to detach */
	}
	if (ioctl(fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO) {
		int saved = errno;

		close(fd);
		return err_set(e, -saved, "cannot detach %s: %s", dev, strerror(saved));
	}
	close(fd);
	return 0;
}

/* ---- zram ---- */

static int zram_rel(const char *dev, const char *file, char *out, size_t len)
{
	const char *base = strrchr(dev, '/');

	base = base ? base + 1 : dev;
	if (strncmp(base, "zram", 4) || strchr(base, '.'))
		return -EINVAL;
	snprintf(out, len, HOST_CLASS_BLOCK "/%s/%s", base, file);
	return 0;
}

int scratch_swap_create_zram(struct scratch_swap *s, const struct host *h,
			     const struct change_log *log, uint64_t size_bytes,
			     struct st_err *e)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	char rel[PATH_MAX], val[32];
	uint64_t disksize = 0;
	int fd, r;

	scratch_begin(s, h, log, SCRATCH_SWAP_ZRAM, size_bytes);
	if ((r = need_live(h, "set up zram", e)) < 0)
		return r;
	snprintf(s->dev, sizeof(s->dev), "/dev/" ZRAM_DEV);
	zram_rel(s->dev, "disksize", rel, sizeof(rel));
	r = host_read_u64(h, rel, &disksize, e);
	if (r == -ENOENT)
		return err_set_exit(e, -ENOENT, ST_EXIT_DENIED,
				    "no zram device: run modprobe zram, or use --bypass-mode pc0");
	if (r < 0)
		return r;
	if (disksize != 0 || swap_active(h, s->dev))
		return err_set_exit(e, -EBUSY, ST_EXIT_DENIED,
				    "%s is in use (disksize %llu): use --bypass-mode pc0",
				    s->dev, (unsigned long long)disksize);
	r = res_note(&s->log, SCRATCH_KIND_ZRAM, s->dev, NULL, e);
	if (r < 0)
		return err_prefix(e, "not setting up %s: cannot journal it", s->dev);
	s->attached = true;	/* from here on destroy() resets it */
	snprintf(val, sizeof(val), "%llu", (unsigned long long)s->size_bytes);
	r = host_write(h, rel, val, e);
	if (r == 0) {
		fd = open(s->dev, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			r = err_set(e, -errno, "cannot open %s: %s", s->dev, strerror(errno));
		else {
			r = scratch_swap_write_header(fd, s->size_bytes, ps, e);
			close(fd);
		}
	}
	if (r == 0)
		r = scratch_swap_on(s, e);
	if (r < 0) {
		struct st_err e2 = {0};

		scratch_swap_destroy(s, &e2);
	}
	return r;
}

static int zram_reset(const struct host *h, const char *dev, struct st_err *e)
{
	char rel[PATH_MAX];

	if (zram_rel(dev, "reset", rel, sizeof(rel)) < 0)
		return err_set(e, -EINVAL, "cannot undo %s: not a zram device", dev);
	if (!host_exists(h, rel))
		return 0;
	return host_write(h, rel, "1", e);
}

/* ---- teardown ---- */

int scratch_swap_destroy(struct scratch_swap *s, struct st_err *e)
{
	int r = 0, first = 0;

	if (s->attached) {
		r = scratch_swap_off(s, e);
		if (r == 0) {
			if (s->kind == SCRATCH_SWAP_LOOP) {
				char detail[64];
				struct stat fst;

				if (stat(s->file, &fst) == 0) {
					snprintf(detail, sizeof(detail), "%llu:%llu",
						 (unsigned long long)fst.st_dev,
						 (unsigned long long)fst.st_ino);
					r = loop_detach(s->dev, detail, e);
				}
				if (r == 0 && s->loop_fd >= 0) {
					close(s->loop_fd);
					s->loop_fd = -1;
				}
				if (r == 0)
					r = res_done(&s->log, SCRATCH_KIND_LOOP, s->dev, e);
			} else {
				r = zram_reset(s->h, s->dev, e);
				if (r == 0)
					r = res_done(&s->log, SCRATCH_KIND_ZRAM, s->dev, e);
			}
			if (r == 0)
				s->attached = false;
		}
		first = r;
	}
	if (s->file_made && !s->attached) {
		if (unlink(s->file) < 0 && errno != ENOENT)
			r = err_set(e, -errno, "cannot remove %s: %s", s->file, strerror(errno));
		else
			r = res_done(&s->log, SCRATCH_KIND_FILE, s->file, e);
		if (r == 0)
			s->file_made = false;
		if (!first)
			first = r;
	}
	return first;
}

/* ---- debugfs ---- */

/* Mounted already when the directory has entries (it is empty when not). */
static bool debugfs_mounted(const struct host *h)
{
	char list[64];

	return host_list_dir(h, HOST_DEBUGFS, list, sizeof(list), NULL) == 0 && list[0];
}

int scratch_debugfs_mount(const struct host *h, const struct change_log *log,
			  bool *mounted, struct st_err *e)
{
	char abs[PATH_MAX];
	int r;

	*mounted = false;
	if (debugfs_mounted(h))
		return 0;
	if ((r = need_live(h, "mount debugfs", e)) < 0)
		return r;
	if (!host_exists(h, HOST_DEBUGFS))
		return err_set(e, -ENOENT, "/%s does not exist: this kernel has no debugfs", HOST_DEBUGFS);
	host_path(h, HOST_DEBUGFS, abs, sizeof(abs));
	r = res_note(log, SCRATCH_KIND_DEBUGFS, HOST_DEBUGFS, NULL, e);
	if (r < 0)
		return err_prefix(e, "not mounting debugfs: cannot journal it");
	if (mount("debugfs", abs, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		r = err_set(e, -errno, "cannot mount debugfs on %s: %s", abs, strerror(errno));
		res_done(log, SCRATCH_KIND_DEBUGFS, HOST_DEBUGFS, NULL);
		return r;
	}
	*mounted = true;
	return 0;
}

int scratch_debugfs_umount(const struct host *h, const struct change_log *log,
			   struct st_err *e)
{
	int r = scratch_undo_debugfs(h, HOST_DEBUGFS, NULL, e);

	if (r < 0)
		return r;
	return res_done(log, SCRATCH_KIND_DEBUGFS, HOST_DEBUGFS, e);
}

/* ---- undo handlers ---- */

/*
 * Rows come from the store: each handler first checks that what a row
 * names carries swaptune's own marks (its file prefix, a /dev/loopN or
 * /dev/zramN name, the "swaptune" label of the swap header it writes)
 * and refuses anything else before swapoff, detach or unlink.
 */

/* "/dev/<prefix><digits>" */
static bool dev_name_is(const char *dev, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(dev, prefix, n) || !dev[n])
		return false;
	for (const char *p = dev + n; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/*
 * 1 when path starts with the swap header swaptune writes (label
 * "swaptune"), or with a page of zeros when zero_ok (a file made but not
 * yet written); 0 when not; -ENOENT when it is gone or empty.
 */
static int label_ours(const char *path, bool zero_ok)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct swap_header_v1 *hdr;
	char *page = calloc(1, ps);
	ssize_t n;
	int fd, r = 0;

	if (!page)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		free(page);
		return errno == ENOENT || errno == ENXIO ? -ENOENT : 0;
	}
	n = pread(fd, page, ps, 0);
	close(fd);
	hdr = (struct swap_header_v1 *)page;
	if (n <= 0)
		r = -ENOENT;
	else if ((size_t)n == ps && !memcmp(page + ps - 10, "SWAPSPACE2", 10) &&
		 !memcmp(hdr->volume_name, "swaptune", 9))
		r = 1;
	else if (zero_ok) {
		r = 1;
		for (ssize_t i = 0; i < n && r; i++)
			r = page[i] == 0;
	}
	free(page);
	return r;
}

int scratch_undo_file(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e)
{
	const char *base = strrchr(ident, '/');
	struct stat sb;
	int r;

	(void)detail;
	if (!h->live)
		return 0;
	if (ident[0] != '/' || !base || strncmp(base + 1, FILE_PREFIX, strlen(FILE_PREFIX)) ||
	    strstr(ident, "/../") || strstr(ident, "/./"))
		return err_set(e, JOURNAL_UNDO_REFUSED, "not a swaptune scratch file name");
	if (lstat(ident, &sb) < 0)
		return errno == ENOENT ? 0 : err_set(e, -errno, "cannot stat %s: %s", ident, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return err_set(e, JOURNAL_UNDO_REFUSED, "not a regular file");
	r = label_ours(ident, true);
	if (r == -ENOENT && sb.st_size == 0)
		r = 1;
	if (r <= 0)
		return err_set(e, JOURNAL_UNDO_REFUSED, "it does not hold swaptune's swap header");
	if (unlink(ident) < 0 && errno != ENOENT)
		return err_set(e, -errno, "cannot remove %s: %s", ident, strerror(errno));
	return 0;
}

int scratch_undo_loop(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e)
{
	unsigned long long sdev, sino;
	struct loop_info64 info;
	int fd, r;

	if (!h->live)
		return 0;
	if (!dev_name_is(ident, "/dev/loop"))
		return err_set(e, JOURNAL_UNDO_REFUSED, "not a loop device name");
	if (!detail || sscanf(detail, "%llu:%llu", &sdev, &sino) != 2)
		return err_set(e, JOURNAL_UNDO_REFUSED, "malformed journal entry");
	fd = open(ident, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENXIO ? 0 :
		       err_set(e, -errno, "cannot open %s: %s", ident, strerror(errno));
	r = ioctl(fd, LOOP_GET_STATUS64, &info);
	close(fd);
	if (r < 0)
		return errno == ENXIO ? 0 : err_set(e, -errno, "cannot query %s: %s", ident, strerror(errno));
	if (info.lo_device != sdev || info.lo_inode != sino)
		return 0;	/* serves another file now: not ours, nothing of ours left */
	if (label_ours(ident, false) != 1)
		return err_set(e, JOURNAL_UNDO_REFUSED, "it does not hold swaptune's swap header");
	r = do_swapoff(h, ident, e);
	return r < 0 ? r : loop_detach(ident, detail, e);
}

int scratch_undo_zram(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e)
{
	int r;

	(void)detail;
	if (!h->live)
		return 0;
	if (!dev_name_is(ident, "/dev/zram"))
		return err_set(e, JOURNAL_UNDO_REFUSED, "not a zram device name");
	r = label_ours(ident, false);
	if (r == -ENOENT)
		return 0;	/* gone, or reset already (disksize 0) */
	if (r != 1)
		return err_set(e, JOURNAL_UNDO_REFUSED, "it does not hold swaptune's swap header");
	r = do_swapoff(h, ident, e);
	return r < 0 ? r : zram_reset(h, ident, e);
}

int scratch_undo_debugfs(const struct host *h, const char *ident, const char *detail,
			 struct st_err *e)
{
	char abs[PATH_MAX];

	(void)detail;
	if (!h->live)
		return 0;
	if (strcmp(ident, HOST_DEBUGFS))
		return err_set(e, JOURNAL_UNDO_REFUSED, "not the debugfs mount point");
	host_path(h, ident, abs, sizeof(abs));
	if (umount2(abs, UMOUNT_NOFOLLOW) < 0 && errno != EINVAL && errno != ENOENT)
		return err_set(e, -errno, "cannot unmount %s: %s", abs, strerror(errno));
	return 0;
}
