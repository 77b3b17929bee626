/*
 * settings.h - the registry of every tunable swaptune may change.
 *
 * One table (settings.c) names each setting, its kernel file, its type and
 * how a value is validated. Reads and raw writes go through the host layer.
 * Code outside the journal must not call settings_write_raw(): every change
 * is journaled first (journal.h).
 */
#ifndef SWAPTUNE_SETTINGS_H
#define SWAPTUNE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "swaptune/err.h"
#include "swaptune/host.h"

enum setting_type {
	SETTING_INT,		/* decimal integer within [min, max] */
	SETTING_BOOL_YN,	/* module parameter: Y / N */
	SETTING_BOOL_WORD,	/* sysfs: true / false */
	SETTING_COMPRESSOR,	/* a compression algorithm the kernel offers */
};

struct setting_def {
	const char *name;	/* "page-cluster", "zswap.enabled", ... */
	const char *path;	/* sysroot-relative kernel file */
	enum setting_type type;
	long min, max;		/* SETTING_INT */
	const char *sysctl;	/* "vm.page-cluster" for sysctl.d, or NULL */
	const char *modparam;	/* "zswap.enabled" for modprobe.d / cmdline, or NULL */
	const char *summary;
	/*
	 * What it changes shows in the workload's own CPU time: swap-in from
	 * zswap (readahead, decompression) runs in the faulting task. A
	 * setting that sends pages elsewhere (zswap off: to disk) changes
	 * waits CPU time does not see, so a run judged per CPU second refuses
	 * it (probe-busy.c).
	 */
	bool cpu_visible;
};

#define SETTING_VALUE_MAX 64
#define SETTINGS_MAX 16

size_t settings_count(void);
const struct setting_def *settings_at(size_t i);
const struct setting_def *settings_find(const char *name);
/*
 * The i-th value completion offers after "NAME=" (into buf), NULL past the
 * end: every integer of a range of at most 32, both words of a boolean, the
 * compressors kernels commonly offer (apply checks the host's own list).
 */
const char *settings_value_at(const struct setting_def *d, size_t i, char *buf, size_t len);

/* Current value, whitespace stripped; -ENOENT if this kernel lacks it. */
int settings_read(const struct host *h, const struct setting_def *d, char *val,
		  size_t len, struct st_err *e);

/*
 * Validate in and write its canonical kernel spelling to out ("on" -> "Y" for
 * a module parameter). -EINVAL with the accepted values in the message.
 */
int settings_normalize(const struct host *h, const struct setting_def *d,
		       const char *in, char *out, size_t len, struct st_err *e);

/* True when two spellings mean the same value (e.g. "1" and "Y"). */
bool settings_equal(const struct setting_def *d, const char *a, const char *b);

/*
 * Write and read back. For the journal's use only. val goes through
 * settings_normalize() first (-EINVAL, nothing written, when the registry
 * does not take it) and its canonical spelling is written.
 */
int settings_write_raw(const struct host *h, const struct setting_def *d,
		       const char *val, struct st_err *e);

struct setting_value {
	char name[32];
	bool present;			/* false: not on this kernel */
	char value[SETTING_VALUE_MAX];
};

struct settings_snapshot {
	int n;
	struct setting_value items[SETTINGS_MAX];
};

/* Read every registered setting the kernel has. */
int settings_snapshot(const struct host *h, struct settings_snapshot *s,
		      struct st_err *e);
const struct setting_value *settings_snapshot_get(const struct settings_snapshot *s,
						  const char *name);

#endif
