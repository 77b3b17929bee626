/*
 * scratch-swap.h - swap made for a probe when the host has none, and the
 * debugfs mount the zswap counters need; every piece journaled before it is
 * made, so a killed probe is cleaned up by the next swaptune command.
 *
 * Loop (the default): a sparse file (mode 0600, name swaptune-swap-<pid>.img)
 * in a directory on a real disk, with a swap header written by us, attached
 * to a free loop device with LOOP_CTL_GET_FREE + LOOP_CONFIGURE (direct I/O
 * when the file system allows it, so swap-out does not go through the page
 * cache, and autoclear), then swapon(2). Not a swap file on the disk itself:
 * a loop device is non-rotational, whereas a swap file on a rotational disk
 * (this VM's /dev/vda) switches the whole host to cluster readahead. No
 * external program runs: header, ioctls and syscalls are done here.
 *
 * zram: /dev/zram0 when it is unused (disksize 0 and not swapping), sized,
 * given a swap header and swapped on; a synchronous device, for which the
 * kernel skips swap readahead, used to emulate a zswap readahead bypass.
 *
 * Journal kinds and their undo handlers (register them in undo.c):
 *   "scratch-file"  ident = file path               -> unlink it
 *   "scratch-loop"  ident = /dev/loopN, detail = "dev:ino path" of the file
 *                   -> swapoff if active, detach if it still serves that file
 *   "scratch-zram"  ident = /dev/zramN              -> swapoff if active, reset
 *   "debugfs-mount" ident = sysroot-relative mount  -> umount
 * Everything is refused on a sysroot other than "/" (-EOPNOTSUPP).
 */
#ifndef SWAPTUNE_SCRATCH_SWAP_H
#define SWAPTUNE_SCRATCH_SWAP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/change-log.h"

#define SCRATCH_KIND_FILE	"scratch-file"
#define SCRATCH_KIND_LOOP	"scratch-loop"
#define SCRATCH_KIND_ZRAM	"scratch-zram"
#define SCRATCH_KIND_DEBUGFS	"debugfs-mount"

enum scratch_swap_kind {
	SCRATCH_SWAP_NONE = 0,
	SCRATCH_SWAP_LOOP,
	SCRATCH_SWAP_ZRAM,
};

struct scratch_swap {
	const struct host *h;
	struct change_log log;		/* copied at create; empty: not journaled */
	enum scratch_swap_kind kind;
	char file[PATH_MAX];		/* loop: backing file */
	char dev[64];			/* /dev/loopN, /dev/zram0 */
	uint64_t size_bytes;
	int loop_fd;			/* held open: the loop device autoclears at last close */
	bool direct_io;			/* loop opened with LO_FLAGS_DIRECT_IO */
	bool file_made, attached, active;
};

/*
 * Default directory for the backing file: /var/lib/swaptune, else /var/tmp
 * (the first that exists or can be made and is not tmpfs).
 */
int scratch_swap_default_dir(char *out, size_t len, struct st_err *e);

/*
 * Make /dev/loop-control exist on the live host before a loop scratch swap:
 * when loop is a module nothing loaded (a minimal host without systemd's
 * static nodes), run modprobe loop (fixed path, fixed environment) and wait
 * up to 2 s for the node. 1 and said = the line to show when it loaded it, 0
 * when nothing was needed (or cannot be told: the open then says why), < 0
 * with exit status 3 and what to do (no loop driver, no modprobe, modprobe
 * failed). The module stays loaded: it is not a swaptune resource.
 */
int scratch_loop_module(const struct host *h, char *said, size_t len, struct st_err *e);

/*
 * Make the loop-backed swap of size_bytes in dir and swap on it. -ENOSPC
 * when dir lacks the room, -EOPNOTSUPP (exit 3) for tmpfs or a sysroot.
 * On failure everything made so far is removed again.
 */
int scratch_swap_create_loop(struct scratch_swap *s, const struct host *h,
			     const struct change_log *log, const char *dir,
			     uint64_t size_bytes, struct st_err *e);

/* Same with /dev/zram0; -EBUSY when it is in use, -ENOENT without zram. */
int scratch_swap_create_zram(struct scratch_swap *s, const struct host *h,
			     const struct change_log *log, uint64_t size_bytes,
			     struct st_err *e);

/* swapon / swapoff the device (no-ops when already in that state). */
int scratch_swap_on(struct scratch_swap *s, struct st_err *e);
int scratch_swap_off(struct scratch_swap *s, struct st_err *e);

/* swapoff + swapon: empties the device and, with it, its zswap entries. */
int scratch_swap_recycle(struct scratch_swap *s, struct st_err *e);

/* Swap off, detach / reset, unlink; marks the journal rows done. Idempotent. */
int scratch_swap_destroy(struct scratch_swap *s, struct st_err *e);

/*
 * Mount debugfs at the host's debugfs directory if zswap's counters are not
 * there yet; *mounted says whether this call mounted it (then journaled).
 */
int scratch_debugfs_mount(const struct host *h, const struct change_log *log,
			  bool *mounted, struct st_err *e);
int scratch_debugfs_umount(const struct host *h, const struct change_log *log,
			   struct st_err *e);

/* Journal undo handlers. */
int scratch_undo_file(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e);
int scratch_undo_loop(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e);
int scratch_undo_zram(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e);
int scratch_undo_debugfs(const struct host *h, const char *ident, const char *detail,
			 struct st_err *e);

/* The 4 KiB-page swap header mkswap would write (version 1, label "swaptune"). */
int scratch_swap_write_header(int fd, uint64_t size_bytes, size_t page_size,
			      struct st_err *e);

#endif
