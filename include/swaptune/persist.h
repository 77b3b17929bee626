/*
 * persist.h - boot-time configuration written by `swaptune apply --persist`.
 *
 * swaptune writes only files of its own, all under the host root (the
 * --sysroot, so tests run against a temporary tree):
 *
 *   etc/sysctl.d/90-swaptune.conf       settings with a sysctl (vm.page-cluster),
 *                                       applied by systemd-sysctl / sysctl --system
 *   etc/swaptune/boot.conf              the other settings (vma_ra_enabled, zswap.*),
 *                                       applied at boot by share/systemd/swaptune-boot.service
 *                                       (`swaptune apply --yes --from etc/swaptune/boot.conf`)
 *   etc/modprobe.d/swaptune-zswap.conf  zswap module options, only when zswap is a
 *                                       loadable module (built in, they never apply:
 *                                       a kernel command-line hint is given instead)
 *
 * It never edits a file the administrator owns. A value the administrator
 * set for the same key (sysctl.conf, sysctl.d in /etc, /run, /usr/local/lib,
 * /usr/lib, /lib; modprobe.d; the kernel command line) is reported as a
 * conflict, saying which one the boot ends with.
 *
 * Every file and directory written is journaled as a resource before it is
 * written ("persist-file": detail = the old content, none if the file did
 * not exist; "persist-dir": a directory swaptune created), so crash repair
 * and rollback put back exactly what was there.
 */
#ifndef SWAPTUNE_PERSIST_H
#define SWAPTUNE_PERSIST_H

#include <limits.h>
#include <stdbool.h>

#include "swaptune/err.h"
#include "swaptune/host.h"
#include "swaptune/change-log.h"
#include "swaptune/settings.h"

#define PERSIST_SYSCTL_FILE	"etc/sysctl.d/90-swaptune.conf"
#define PERSIST_BOOT_FILE	"etc/swaptune/boot.conf"
#define PERSIST_MODPROBE_FILE	"etc/modprobe.d/swaptune-zswap.conf"

/* Journal kinds of the resources (undo handlers in persist.c). */
#define PERSIST_KIND_FILE	"persist-file"
#define PERSIST_KIND_DIR	"persist-dir"
/* a directory a rollback removes; undone (a rollback cut short) by making it again */
#define PERSIST_KIND_RMDIR	"persist-rmdir"

#define PERSIST_FILES_MAX	3
#define PERSIST_CONTENT_MAX	2048
#define PERSIST_CONFLICTS_MAX	32
#define PERSIST_NOTES_MAX	8
#define PERSIST_NOTE_LEN	400

struct persist_kv {
	char name[32];			/* registry name: "page-cluster" */
	char value[SETTING_VALUE_MAX];	/* canonical kernel spelling */
};

struct persist_file {
	const char *rel;		/* one of the PERSIST_*_FILE paths */
	bool exists;			/* before this plan */
	bool changed;			/* content differs from what is there */
	bool remove;			/* nothing left to say: the file goes */
	char content[PERSIST_CONTENT_MAX];
};

/* A value for one of our keys set somewhere swaptune does not own. */
struct persist_conflict {
	char setting[32];		/* registry name */
	char where[PATH_MAX];		/* "/etc/sysctl.d/99-local.conf" (host view), or "kernel command line" */
	int line;			/* 0 for the command line */
	char key[64];			/* as written there: "vm.page-cluster", "zswap.enabled" */
	char value[SETTING_VALUE_MAX];
	bool wins;			/* the boot ends with this value, not swaptune's */
	bool ineffective;		/* cannot apply here (module options of built-in zswap) */
};

struct persist_plan {
	int n_settings;			/* everything swaptune's files will hold (merged) */
	struct persist_kv settings[SETTINGS_MAX];
	int n_files;
	struct persist_file files[PERSIST_FILES_MAX];
	int n_conflicts;
	struct persist_conflict conflicts[PERSIST_CONFLICTS_MAX];
	int n_notes;
	char notes[PERSIST_NOTES_MAX][PERSIST_NOTE_LEN];
	bool zswap_builtin;
	char cmdline_hint[256];		/* "zswap.enabled=1 zswap.compressor=lz4", "" if no zswap setting */
};

/*
 * Plan the boot-time files for settings set[0..n) (registry names, values
 * validated by the caller), merged with what swaptune's own files already
 * hold (a newer value wins). Reads under h only; changes nothing.
 * -EINVAL for a setting that is not registered.
 */
int persist_plan(const struct host *h, const struct persist_kv *set, int n,
		 struct persist_plan *p, struct st_err *e);

/*
 * Plan going back to exactly the state of swaptune's own files given by
 * want[]: for each PERSIST_*_FILE, the content it must have (NULL = absent).
 * Used by rollback; conflicts are not scanned.
 */
int persist_plan_contents(const struct host *h, const char *const want[PERSIST_FILES_MAX],
			  struct persist_plan *p, struct st_err *e);

/* The index of rel in the PERSIST_*_FILE order used by persist_plan_contents(). */
int persist_file_index(const char *rel);
const char *persist_file_at(int i);

/*
 * Write the changed files of p under h: each missing directory and each
 * file is recorded in log (the journal's, journal_hooks(); NULL records
 * nothing) as a pending resource before it is touched, then written
 * (a temporary file renamed into place). The caller commits the session's
 * rows (journal_commit_session) or leaves them pending (confirm-within).
 * *written (may be NULL) counts files written or removed.
 */
int persist_write(const struct host *h, const struct change_log *log,
		  const struct persist_plan *p, int *written, struct st_err *e);

/*
 * Values the administrator set for sysctl key ("vm.page-cluster") in the
 * sysctl configuration, in the order the boot reads them; wins says whether
 * that value is read after swaptune's own file (and so is what the boot
 * ends with). Appends to p->conflicts.
 */
int persist_scan_sysctl(const struct host *h, const char *setting, const char *key,
			struct persist_plan *p, struct st_err *e);

/* The same for zswap: modprobe.d "options zswap ..." and the kernel command line. */
int persist_scan_zswap(const struct host *h, const char *setting, const char *param,
		       struct persist_plan *p, struct st_err *e);

/*
 * Whether content is, byte for byte, what swaptune writes at rel (one of
 * its own files) for the settings it names: parsed back, every value
 * through the registry's parser and range as user input (settings_normalize
 * against h), rendered again and compared. 0, or -EBADMSG with the line
 * or the reason in e. A recorded or found file is put back or merged only
 * when it is (journal repair, rollback, apply --persist): never copied.
 */
int persist_check_content(const struct host *h, const char *rel, const char *content,
			  struct st_err *e);

/*
 * Journal undo handlers, registered by undo.c. persist_undo_file() puts a
 * file's recorded content back only when persist_check_content() takes it
 * (else JOURNAL_UNDO_REFUSED), and removes the temporary files a killed
 * swaptune left beside it.
 */
int persist_undo_file(const struct host *h, const char *ident, const char *detail,
		      struct st_err *e);
int persist_undo_dir(const struct host *h, const char *ident, const char *detail,
		     struct st_err *e);
/* Undo of PERSIST_KIND_RMDIR: make swaptune's directory ident again (there already: fine). */
int persist_redo_dir(const struct host *h, const char *ident, const char *detail,
		     struct st_err *e);

/* Read one of swaptune's own files (rel under h) into buf; -ENOENT if absent. */
int persist_read_file(const struct host *h, const char *rel, char *buf, size_t len,
		      struct st_err *e);

/*
 * Parse boot.conf-style "name=value" lines (comments with #) into out;
 * every name must be a registered setting. -EBADMSG names the line; max must
 * be at least SETTINGS_MAX.
 */
int persist_parse_boot(const char *text, const char *name, struct persist_kv *out,
		       int max, int *n, struct st_err *e);

#endif
