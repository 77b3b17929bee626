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
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "swaptune/err.h"

/* Kernel file locations, relative to the sysroot. */
#define HOST_VMSTAT		"proc/vmstat"
#define HOST_MEMINFO		"proc/meminfo"
#define HOST_SWAPS		"proc/swaps"
#define HOST_MOUNTS		"proc/mounts"
#define HOST_CRYPTO		"proc/crypto"
/* what the readers take of proc/mounts and proc/crypto (bytes) */
#define HOST_MOUNTS_MAX		65536
#define HOST_CRYPTO_MAX		262144
#define HOST_OSRELEASE		"proc/sys/kernel/osrelease"
#define HOST_HOSTNAME		"proc/sys/kernel/hostname"
#define HOST_PSI_MEMORY		"proc/pressure/memory"
#define HOST_PSI_CPU		"proc/pressure/cpu"
#define HOST_STAT		"proc/stat"
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
#define HOST_SYS_MODULE		"sys/module"
#define HOST_LIB_MODULES	"lib/modules"
#define HOST_ZRAM_CONTROL	"sys/class/zram-control"
#define HOST_CMDLINE		"proc/cmdline"
/* present only when zswap is a loadable module (built in: just parameters/) */
#define HOST_ZSWAP_INITSTATE	"sys/module/zswap/initstate"
#define HOST_BOOT_ID		"proc/sys/kernel/random/boot_id"
#define HOST_CPUINFO		"proc/cpuinfo"
#define HOST_MACHINE_ID		"etc/machine-id"
/* transparent hugepages: enabled, hpage_pmd_size, hugepages-<N>kB/enabled (mTHP, ~6.8) */
#define HOST_THP		"sys/kernel/mm/transparent_hugepage"
/* MGLRU's switch (~6.1), a hex mask: "0x0007" */
#define HOST_LRU_GEN_ENABLED	"sys/kernel/mm/lru_gen/enabled"
#define HOST_LRU_GEN		"sys/kernel/mm/lru_gen"
#define HOST_MM_SWAP		"sys/kernel/mm/swap"

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
/*
 * Read an open fd to its end into buf (NUL-terminated) and close it: the
 * length, -EFBIG if it does not fit in len - 1 bytes, -errno on a read
 * error; `what` names the file in e. host_read() and host_file_get() share it.
 */
ssize_t host_read_fd(int fd, char *buf, size_t len, const char *what, struct st_err *e);
ssize_t host_read(const struct host *h, const char *rel, char *buf, size_t len,
		  struct st_err *e);
/* Read a one-line value, trailing whitespace stripped. */
int host_read_line(const struct host *h, const char *rel, char *buf, size_t len,
		   struct st_err *e);
/* Read a single unsigned integer file. -EBADMSG on garbage. */
int host_read_u64(const struct host *h, const char *rel, uint64_t *out,
		  struct st_err *e);
/*
 * Open rel (flags as open(2); O_CLOEXEC is added). Under a sysroot the path
 * resolves beneath the tree (openat2 RESOLVE_BENEATH, or a realpath prefix
 * check where openat2 is missing): -EXDEV when a symlink or ".." leaves it;
 * and only a regular file (a directory with O_DIRECTORY) is accepted, opened
 * without blocking: -EINVAL for a FIFO, device or socket, -EISDIR for a
 * directory. On the live host a plain openat() that does not block either
 * (O_NONBLOCK for the open only). Returns the fd or -errno.
 */
int host_openat(const struct host *h, const char *rel, int flags);
/*
 * host_openat()'s resolver where openat2() is missing (ENOSYS): realpath()
 * of the sysroot path must lie in the sysroot (else errno EXDEV), then an
 * O_NOFOLLOW open of that path. Returns the fd, or -1 with errno set.
 * Exposed for the unit tests.
 */
int host_open_beneath_fallback(const struct host *h, const char *rel, int flags);
/* Set e for a failed host_openat() of rel (r its result), naming the file under
 * h's sysroot as this process sees it; returns r or -ENOENT. */
int host_open_error(const struct host *h, const char *rel, int r, bool write, struct st_err *e);
/*
 * Write val (a newline is not added) to rel; the kernel's error is reported.
 * Under a sysroot only an existing regular file beneath the tree is written.
 */
int host_write(const struct host *h, const char *rel, const char *val,
	       struct st_err *e);

/*
 * ---- ordinary files under the sysroot (host-file.c) ----
 *
 * For swaptune's own boot-time files under etc/ (persist.c). Every
 * directory above rel is resolved beneath the sysroot as host_openat()
 * resolves it: a symlink or ".." that leaves the tree gives -EXDEV (e says
 * "resolves outside the sysroot ... refused") and nothing is read, written
 * or removed outside it; the last component is never followed by a write.
 */

/*
 * Temporary files are new names, "PREFIX.PID.RANDOM", created
 * O_CREAT|O_EXCL|O_NOFOLLOW in the directory's fd (never a name someone
 * planted: a symlink or a hard link there only makes another name be
 * drawn), written, then renamed over the file. A kill between the two
 * leaves one behind: host_tmp_sweep() removes those of processes that are
 * gone (journal repair calls it where it undoes a row).
 * host_file_replace() writes "rel" HOST_FILE_TMP_SUFFIX ".PID.RANDOM";
 * host_write() under a captured tree HOST_TMP_WRITE ".PID.RANDOM" beside
 * the kernel file.
 */
#define HOST_FILE_TMP_SUFFIX ".swaptune-new"
#define HOST_TMP_WRITE ".swaptune-write"

/*
 * The directory above rel, resolved beneath the tree as host_openat()
 * resolves it: its fd (O_DIRECTORY) or -errno; *base = rel's last
 * component ("." and ".." are -EINVAL). The file itself is then reached
 * with *at() calls on that fd only.
 */
int host_dir_fd(const struct host *h, const char *rel, const char **base);
/* A new temporary file "prefix.PID.RANDOM" in dfd (its name into name): the fd or -errno. */
int host_tmp_create(int dfd, const char *prefix, mode_t mode, char *name, size_t len);
/*
 * A file the user named on the invoking host (report -o, export -o,
 * sample --prom-file; not under --sysroot) replaced whole, the way
 * host_file_replace() replaces a file in the tree: a new temporary file
 * "BASE" HOST_FILE_TMP_SUFFIX ".PID.RANDOM" created O_EXCL|O_NOFOLLOW in
 * the fd of its directory (opened once), mode, fsync, rename over path.
 * A symlink at path in a directory other users can write (its owner is
 * neither root nor the caller, or it is group or world writable) is
 * refused (exit 3); one in a directory only they can write is replaced
 * when it names a regular file, followed when it names a FIFO or a
 * character device (/dev/stdout). A FIFO or character device at path is
 * written as it is, non-blocking, within HOST_USER_WRITE_TIMEOUT_MS (a
 * FIFO nobody reads: -ETIMEDOUT, exit 1); a block device, socket or
 * directory is refused (exit 2). 0, or -errno with e set.
 */
#define HOST_USER_WRITE_TIMEOUT_MS 5000
int host_user_file_replace(const char *path, const void *data, size_t n, mode_t mode,
			   struct st_err *e);
/*
 * Remove from directory dir (beneath the tree) the temporary files
 * "prefix.PID.*" whose process is gone, and older ones without a pid;
 * never a directory. Returns how many were removed.
 */
int host_tmp_sweep(const struct host *h, const char *dir, const char *prefix);

/*
 * Read rel whole into buf (NUL-terminated). Length; -ENOENT (e untouched)
 * if absent; a FIFO, device or socket is refused (-EINVAL) without
 * blocking, on the live host too.
 */
ssize_t host_file_get(const struct host *h, const char *rel, char *buf, size_t len,
		      struct st_err *e);
/* stat() of rel resolved beneath the tree (a regular file only); 0 or -errno. */
int host_file_stat(const struct host *h, const char *rel, struct stat *st);
/* opendir() of rel resolved beneath the tree; NULL with errno set. */
DIR *host_file_opendir(const struct host *h, const char *rel);
/*
 * Create or replace rel with content: written to a new temporary file
 * beside it (see host_tmp_create(), given mode whatever the umask),
 * fsynced, renamed over rel.
 * The directory must exist. On failure the temporary file is removed and rel
 * is as it was (-ENOSPC when the disk is full).
 */
int host_file_replace(const struct host *h, const char *rel, const char *content,
		      mode_t mode, struct st_err *e);
/* Remove rel (an empty directory with dir); -ENOENT (e untouched) if absent. */
int host_file_remove(const struct host *h, const char *rel, bool dir, struct st_err *e);
/* Make directory rel (its parent must exist); an existing one is fine. */
int host_file_mkdir(const struct host *h, const char *rel, mode_t mode, struct st_err *e);

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
/* One zswap debugfs counter ("stored_pages"); -ENOENT/-EACCES as host_read(). */
int host_read_zswap_counter(const struct host *h, const char *name, uint64_t *v,
			    struct st_err *e);
/*
 * The same for a reader that samples it every tick: no message is built;
 * 0, -ENOENT, -EACCES or another -errno, -EBADMSG for a file that is not
 * one number. The file is closed again (a kept-open file would keep
 * debugfs from being unmounted).
 */
int host_zswap_value(const struct host *h, const char *name, uint64_t *v);

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

/*
 * ---- kept-open readers (host-read.c): re-read each tick, no allocation ----
 *
 * For periodic sampling: a file is opened once and re-read with pread() at
 * offset 0 into the caller's buffer; nothing is allocated after init. Times
 * are the caller's monotonic now_ns. A file that is missing, unreadable,
 * empty or vanished (a removed cgroup answers ENODEV) fails the read with
 * why[] saying so, is closed, and is looked for again at most once per
 * second of now_ns (-EAGAIN until then, why[] kept), so files that appear
 * late are picked up. Under a captured sysroot (not live) the file is
 * re-opened on every read, since tests replace files an open fd would not
 * see change.
 */

#define HOST_WHY_LEN 200

struct host_file {
	char rel[PATH_MAX];		/* sysroot-relative */
	int fd;				/* -1 while closed */
	uint64_t retry_ns;		/* no open attempt before this time */
	char why[HOST_WHY_LEN];		/* why the last read failed, "" after success */
};

void host_file_init(struct host_file *f, const char *rel);
void host_file_close(struct host_file *f);
/* Read f whole into buf (NUL-terminated, truncated at len - 1). Length or -errno. */
ssize_t host_file_read(const struct host *h, struct host_file *f, uint64_t now_ns,
		       char *buf, size_t len);

/* Read and parse a PSI file (psi_parse); on a parse error why[] says so. */
int host_psifile_read(const struct host *h, struct host_file *f, uint64_t now_ns,
		      char *buf, size_t len, struct st_psi *p);

/*
 * A "key value" file (vmstat, meminfo with kb_units, memory.stat) read for
 * a fixed list of keys. keys[k] may be NULL (the key does not exist on this
 * kind of file): its value is never present. The line of each key is
 * learned on the first read and only those lines are looked at afterwards
 * (learned again when the layout moved). Lines are parsed as kv_parse()
 * does; blank and malformed lines are skipped, never an error.
 */
#define HOST_KVFILE_KEYS 32
#define HOST_KVFILE_LINES 1024

struct host_kvfile {
	struct host_file file;
	bool kb_units;
	int nkeys;
	const char *keys[HOST_KVFILE_KEYS];
	size_t keylen[HOST_KVFILE_KEYS];
	int16_t key_at[HOST_KVFILE_LINES];	/* line -> key index, -1 */
	bool learned;
	int nhinted;				/* keys whose line is known */
	uint64_t val[HOST_KVFILE_KEYS];
	bool have[HOST_KVFILE_KEYS];
	bool ok;				/* the last read succeeded */
};

void host_kvfile_init(struct host_kvfile *f, const char *rel, bool kb_units,
		      const char *const *keys, int nkeys);
void host_kvfile_close(struct host_kvfile *f);
/* Read and parse; 0, or -errno with f->file.why set (every key absent). */
int host_kvfile_read(const struct host *h, struct host_kvfile *f, uint64_t now_ns,
		     char *buf, size_t len);
/* Parse text (n bytes) into f's values, as a read does. */
void host_kvfile_parse(struct host_kvfile *f, const char *text, size_t n);
/* Value of key k after the last read; false when absent or the read failed. */
bool host_kvfile_get(const struct host_kvfile *f, int k, uint64_t *v);

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
	char perf_event_v1_root[PATH_MAX]; /* v1 mount of the perf_event controller, "" if none */
	char cpuacct_v1_root[PATH_MAX];	/* v1 mount of the cpuacct controller, "" if none */
};

const char *cgroup_mode_name(enum cgroup_mode m);
/*
 * The cgroup mounts from proc/mounts. A mount point that is not a plain
 * absolute path (a "." or ".." component, an empty one, an escape) is not
 * taken: a crafted mounts file cannot name a root outside the tree this
 * way. Whether the root resolves beneath the tree is checked where it is
 * opened (memcg_locate).
 */
int host_cgroup_info(const struct host *h, struct st_cgroup_info *ci,
		     struct st_err *e);

/*
 * CPU time of cgroup (a path under the memory controller's root, the same
 * path looked up under the CPU accounting controller): the file to read
 * (host-cgcpu.c). v2: cpu.stat's usage_usec under the unified tree; v1:
 * cpuacct.usage (ns) under the cpuacct mount. -ENOENT (e says) when the
 * host has no such file for that path.
 */
struct host_cgcpu {
	char rel[PATH_MAX];
	bool v2;
};
int host_cgroup_cpu_locate(const struct host *h, const char *cgroup, struct host_cgcpu *c,
			   struct st_err *e);
/* Its CPU time now, in ns: 0, or -errno (the cgroup went away: -ENOENT/-ENODEV). */
int host_cgroup_cpu_ns(const struct host *h, const struct host_cgcpu *c, uint64_t *ns);

/*
 * ---- the host's CPU time and run queue (host-stat.c) ----
 *
 * For a probe trial's busy-host covariates: the aggregate "cpu" line of
 * HOST_STAT (USER_HZ ticks summed over all CPUs; steal is the 8th field,
 * since 2.6.11) and its procs_running / procs_blocked lines (tasks runnable
 * or in uninterruptible sleep at the moment of the read, the reader itself
 * included). The CPU pressure file is HOST_PSI_CPU, read by host_read_psi().
 */
struct host_cpu_stat {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	bool have_cpu;			/* the "cpu " line was there */
	bool have_steal;		/* it had the steal field */
	uint64_t procs_running, procs_blocked;
	bool have_procs;		/* both procs_ lines were there */
};

/*
 * Parse one line of HOST_STAT into s (other lines are ignored). -EBADMSG
 * for a "cpu " or "procs_" line that is not a list of decimal numbers.
 */
int host_cpu_stat_line(struct host_cpu_stat *s, const char *line, struct st_err *e);
/* Parse the whole text (lines as above); name for messages. */
int host_cpu_stat_parse(struct host_cpu_stat *s, const char *text, const char *name,
			struct st_err *e);
/*
 * Read HOST_STAT line by line (its "intr" line can be tens of KiB on large
 * machines, so it is not read into a fixed buffer). -ENOENT when absent;
 * -EBADMSG when it has neither the "cpu " line nor the procs_ lines.
 */
int host_read_cpu_stat(const struct host *h, struct host_cpu_stat *s, struct st_err *e);

/* ---- misc ---- */

int host_kernel_release(const struct host *h, char *buf, size_t len,
			struct st_err *e);
/* Where a kernel module stands on the running kernel (host_module_state()). */
enum host_module {
	HOST_MOD_UNKNOWN = 0,	/* lib/modules/<release> is missing: cannot tell */
	HOST_MOD_LOADED,	/* a module, loaded (sys/module/<name>/initstate) */
	HOST_MOD_BUILTIN,	/* built in (modules.builtin, or sys/module/<name> without initstate) */
	HOST_MOD_LOADABLE,	/* a module file for this release, not loaded */
	HOST_MOD_ABSENT,	/* neither built in nor a module file */
};
/*
 * Module name, whose file is kernel/<kpath>.ko (or .ko.xz, .ko.zst, .ko.gz)
 * under lib/modules/<release> ("drivers/block/loop"); where gets the file
 * found (sysroot-relative), "" otherwise.
 */
enum host_module host_module_state(const struct host *h, const char *name, const char *kpath,
				   char *where, size_t len);
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

/*
 * The host's machine id (etc/machine-id under the sysroot, first line),
 * "unknown" when absent or empty. Always 0: a missing id is not an error.
 */
int host_read_machine_id(const struct host *h, char *buf, size_t len);

/*
 * This boot's id (HOST_BOOT_ID under the sysroot, first line), "" and
 * -ENOENT when absent (a captured tree without it). In host-id.c.
 */
int host_read_boot_id(const struct host *h, char *buf, size_t len);

/*
 * The CPU's "model name" from cpuinfo under the sysroot, "" and -ENOENT when
 * the architecture does not say (or the file is absent). In host-id.c.
 */
int host_read_cpu_model(const struct host *h, char *buf, size_t len);

#endif
