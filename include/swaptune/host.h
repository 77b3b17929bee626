/*
 * host.h - the host-access layer: the only code that spells /proc or /sys.
 *
 * Every path below is relative to a sysroot ("/" on a live host, a captured
 * tree under tests/fixtures/ in tests), chosen by --sysroot or
 * SWAPTUNE_SYSROOT. A file that is absent means "not available on this
 * kernel": readers return -ENOENT and the caller decides whether that matters.
 * Malformed content is -EBADMSG with a message naming the file and the line.
 */
#ifndef SWAPTUNE_HOST_H
#define SWAPTUNE_HOST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "swaptune/err.h"

/* Kernel file locations, relative to the sysroot. */
#define HOST_VMSTAT		"proc/vmstat"
#define HOST_MEMINFO		"proc/meminfo"
#define HOST_SWAPS		"proc/swaps"
#define HOST_MOUNTS		"proc/mounts"
#define HOST_CRYPTO		"proc/crypto"
#define HOST_OSRELEASE		"proc/sys/kernel/osrelease"
#define HOST_HOSTNAME		"proc/sys/kernel/hostname"
#define HOST_PSI_MEMORY		"proc/pressure/memory"
#define HOST_PAGE_CLUSTER	"proc/sys/vm/page-cluster"
#define HOST_DROP_CACHES	"proc/sys/vm/drop_caches"
#define HOST_COMPACT_MEMORY	"proc/sys/vm/compact_memory"
#define HOST_PERF_PARANOID	"proc/sys/kernel/perf_event_paranoid"
#define HOST_VMA_RA		"sys/kernel/mm/swap/vma_ra_enabled"
#define HOST_ZSWAP_PARAMS	"sys/module/zswap/parameters"
#define HOST_ZSWAP_DEBUGFS	"sys/kernel/debug/zswap"
#define HOST_DEBUGFS		"sys/kernel/debug"
#define HOST_EVENT_SOURCES	"sys/bus/event_source/devices"
#define HOST_CGROUP_ROOT	"sys/fs/cgroup"
#define HOST_CLASS_BLOCK	"sys/class/block"
#define HOST_LOOP_CONTROL	"sys/class/misc/loop-control"
#define HOST_ZRAM_CONTROL	"sys/class/zram-control"
#define HOST_CMDLINE		"proc/cmdline"
/* present only when zswap is a loadable module (built in: just parameters/) */
#define HOST_ZSWAP_INITSTATE	"sys/module/zswap/initstate"
#define HOST_BOOT_ID		"proc/sys/kernel/random/boot_id"
#define HOST_CPUINFO		"proc/cpuinfo"
#define HOST_MACHINE_ID		"etc/machine-id"

struct host {
	int rootfd;		/* O_PATH directory fd of the sysroot */
	bool live;		/* sysroot is "/": the running kernel */
	char root[PATH_MAX];	/* absolute sysroot, without trailing slash ("" for /) */
};

/* Open the sysroot (NULL or "/" = the running host). -ENOENT/-ENOTDIR if missing. */
int host_open(struct host *h, const char *sysroot, struct st_err *e);
void host_close(struct host *h);

/* Absolute path of rel under the sysroot (for libraries that take paths). */
int host_path(const struct host *h, const char *rel, char *out, size_t len);
bool host_exists(const struct host *h, const char *rel);
/* Whether this process may write (create entries in) rel: faccessat W_OK. */
bool host_writable(const struct host *h, const char *rel);

/*
 * Read a whole file into buf (NUL-terminated, trailing newline kept).
 * Returns the length, -ENOENT if absent (e says "not available"), -EACCES,
 * -EFBIG if it does not fit.
 */
ssize_t host_read(const struct host *h, const char *rel, char *buf, size_t len,
		  struct st_err *e);
/* Read a one-line value, trailing whitespace stripped. */
int host_read_line(const struct host *h, const char *rel, char *buf, size_t len,
		   struct st_err *e);
/* Read a single unsigned integer file. -EBADMSG on garbage. */
int host_read_u64(const struct host *h, const char *rel, uint64_t *out,
		  struct st_err *e);
/* Write val (a newline is not added) to rel; the kernel's error is reported. */
int host_write(const struct host *h, const char *rel, const char *val,
	       struct st_err *e);

/* ---- key/value files: /proc/vmstat, /proc/meminfo, memory.stat, debugfs ---- */

struct st_kv {
	char key[56];
	uint64_t val;
};

struct st_kvtab {
	size_t n, cap;
	struct st_kv *items;
};

void kv_init(struct st_kvtab *t);
void kv_free(struct st_kvtab *t);
void kv_clear(struct st_kvtab *t);
int kv_put(struct st_kvtab *t, const char *key, uint64_t val);
/* True and *out set when key is present. */
bool kv_get(const struct st_kvtab *t, const char *key, uint64_t *out);

/*
 * Parse "key value" lines (vmstat, memory.stat, memory.events). With
 * kb_units, "Key:   123 kB" lines (meminfo) are parsed and stored in bytes.
 * name is used in error messages.
 */
int kv_parse(struct st_kvtab *t, const char *text, const char *name,
	     bool kb_units, struct st_err *e);
int host_read_kv(const struct host *h, const char *rel, struct st_kvtab *t,
		 bool kb_units, struct st_err *e);
int host_read_vmstat(const struct host *h, struct st_kvtab *t, struct st_err *e);
/* meminfo values are in bytes. */
int host_read_meminfo(const struct host *h, struct st_kvtab *t, struct st_err *e);
/* Every file of the zswap debugfs directory. -ENOENT: not mounted / no zswap. */
int host_read_zswap_stats(const struct host *h, struct st_kvtab *t,
			  struct st_err *e);

/* ---- /proc/swaps ---- */

#define HOST_MAX_SWAPS 32

struct st_swap {
	char path[256];
	char type[16];		/* "partition" or "file" */
	uint64_t size_bytes;
	uint64_t used_bytes;
	int priority;
	int rotational;		/* 1, 0, or -1 when unknown */
	char blockdev[64];	/* block device holding the swap (e.g. "vda", "zram0", "loop0"), "" unknown */
	bool zram;
};

int host_read_swaps(const struct host *h, struct st_swap *out, int max, int *n,
		    struct st_err *e);

/*
 * Rotational flag of block device name ("vda", "nvme0n1p3": a partition is
 * looked up on its parent disk) under sys/class/block. -ENOENT if unknown.
 */
int host_blockdev_rotational(const struct host *h, const char *name, int *rot);

/* ---- PSI (/proc/pressure/memory, a cgroup's memory.pressure) ---- */

struct st_psi_line {
	bool present;
	double avg10, avg60, avg300;
	uint64_t total_us;
};

struct st_psi {
	struct st_psi_line some, full;
};

int psi_parse(struct st_psi *p, const char *text, const char *name,
	      struct st_err *e);
int host_read_psi(const struct host *h, const char *rel, struct st_psi *p,
		  struct st_err *e);

/* ---- cgroups ---- */

enum cgroup_mode {
	CGROUP_NONE = 0,
	CGROUP_V1,		/* legacy hierarchies only */
	CGROUP_HYBRID,		/* legacy controllers + an (empty) unified tree */
	CGROUP_V2,		/* unified hierarchy only */
};

struct st_cgroup_info {
	enum cgroup_mode mode;
	bool memory_v1;			/* memory controller on a v1 hierarchy */
	bool memory_v2;			/* memory controller on the unified tree */
	char memory_root[PATH_MAX];	/* sysroot-relative mount of the memory controller */
	char unified_root[PATH_MAX];	/* sysroot-relative cgroup2 mount, "" if none */
};

const char *cgroup_mode_name(enum cgroup_mode m);
int host_cgroup_info(const struct host *h, struct st_cgroup_info *ci,
		     struct st_err *e);

/* ---- misc ---- */

int host_kernel_release(const struct host *h, char *buf, size_t len,
			struct st_err *e);
/* Compression algorithms the kernel offers (/proc/crypto), space separated. */
int host_compressors(const struct host *h, char *buf, size_t len,
		     struct st_err *e);
/* Names under a sysroot-relative directory, space separated; -ENOENT if absent. */
int host_list_dir(const struct host *h, const char *rel, char *buf, size_t len,
		  struct st_err *e);

/*
 * Whether process pid is alive (not a zombie) and started at start_ticks
 * (field 22 of /proc/PID/stat). Always reads the live /proc, whatever the sysroot: it asks
 * about this machine's processes, not about the kernel under test.
 */
bool host_pid_alive(pid_t pid, uint64_t start_ticks);
/* Start time of pid in clock ticks since boot; 0 if unknown. */
uint64_t host_pid_start_ticks(pid_t pid);
/* Absolute path of this program (the live /proc/self/exe), to re-run itself. */
int host_self_exe(char *buf, size_t len);

#endif
