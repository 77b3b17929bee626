/*
 * cmd.h - the command table. One file per command (src/cmd-<name>.c)
 * exports one struct cmd_entry; src/cmd.c lists them. Dispatch, --help and
 * the man page SYNOPSIS come from this table (tests/t0001 checks the man page).
 */
#ifndef SWAPTUNE_CMD_H
#define SWAPTUNE_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "swaptune/err.h"
#include "swaptune/fmt.h"
#include "swaptune/host.h"
#include "swaptune/store.h"

struct cmd_ctx {
	struct host host;
	struct store store;
	bool json;		/* --json */
	const char *sysroot;	/* as given */
	char db_path[PATH_MAX];
	struct st_err err;	/* set by exec on failure */
	FILE *out;
};

struct cmd_option {
	const char *spelling;	/* "--count N" */
	const char *help;
};

enum {
	CMD_NEEDS_ROOT = 1 << 0,	/* refused with exit 3 unless root (on a live host) */
};

struct cmd_entry {
	const char *name;
	const char *summary;		/* one line */
	const char *usage;		/* after "swaptune NAME" */
	const struct cmd_option *options;	/* terminated by { NULL } */
	unsigned flags;
	/* Exit statuses that carry an answer, for --help (NULL = none), e.g.
	 * "0 the benefit holds, 10 it no longer holds, 11 inconclusive". */
	const char *answers;
	/* Returns an exit status >= 0, or a negative error with ctx->err set. */
	int (*exec)(struct cmd_ctx *ctx, int argc, char **argv);
};

size_t cmd_count(void);
const struct cmd_entry *cmd_at(size_t i);
const struct cmd_entry *cmd_find(const char *name);

/* The options every command takes. */
extern const struct cmd_option cmd_common_options[];

void cmd_print_help(FILE *f, const struct cmd_entry *c);
void cmd_print_overview(FILE *f);
/* Progress of long commands on stderr (--progress). */
enum cmd_progress {
	CMD_PROGRESS_AUTO = 0,	/* TTY on a terminal (and not --json), else NONE */
	CMD_PROGRESS_TTY,	/* one line rewritten in place */
	CMD_PROGRESS_PLAIN,	/* one line per step, for logs and scripts */
	CMD_PROGRESS_NONE,
};
int cmd_parse_progress(const char *s, enum cmd_progress *mode);
enum cmd_progress cmd_progress_resolve(enum cmd_progress mode, bool json);
/* A probe_progress_fn printing in the mode *arg (an enum cmd_progress). */
struct probe_progress;
void cmd_probe_progress(const struct probe_progress *p, void *arg);

/* A bash completion script for every command and option of the table. */
void cmd_print_completion_bash(FILE *f);

/*
 * Usage error for command c: sets ctx->err with exit status 2, e.g.
 * "status: unknown option --foo (see swaptune status --help)".
 */
int cmd_usage_error(struct cmd_ctx *ctx, const struct cmd_entry *c,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * getopt_long wrapper behaviour shared by commands: parse argv with the
 * given long options; unknown options and missing arguments become usage
 * errors. Returns the option, -1 at the end, or -2 after a usage error.
 */
struct option;
int cmd_getopt(struct cmd_ctx *ctx, const struct cmd_entry *c, int argc,
	       char **argv, const char *shortopts, const struct option *longopts);

/*
 * Print a cJSON document to ctx->out (pretty) and free it. A top-level
 * object gets the identity of cmd_identity_json() first.
 */
struct cJSON;
int cmd_print_json(struct cmd_ctx *ctx, struct cJSON *doc);

/*
 * The identity every top-level JSON document carries: a "host" object with
 * machine_id, hostname and boot_id of the host under the sysroot ("unknown"
 * when the sysroot does not say), and "swaptune_version". Keys doc (or its
 * "host" object) already has are kept. -EINVAL if doc or its "host" is not
 * an object. The error document (main.c) calls it too.
 */
int cmd_identity_json(const struct host *h, struct cJSON *doc);
/*
 * The same identity as JSON object members without the braces
 * ("host":{...},"swaptune_version":"..."), for documents written as text
 * (sample --json lines). Returns the length, -ENOSPC or -ENOMEM.
 */
int cmd_identity_members(const struct host *h, char *buf, size_t len);


extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_sample_entry;
extern const struct cmd_entry cmd_tui_entry;
extern const struct cmd_entry cmd_probe_entry;
extern const struct cmd_entry cmd_switchback_entry;
extern const struct cmd_entry cmd_recommend_entry;
extern const struct cmd_entry cmd_apply_entry;
extern const struct cmd_entry cmd_rollback_entry;
extern const struct cmd_entry cmd_history_entry;
extern const struct cmd_entry cmd_verify_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_fleet_report_entry;
extern const struct cmd_entry cmd_fleet_advise_entry;
extern const struct cmd_entry cmd_report_entry;

#endif
