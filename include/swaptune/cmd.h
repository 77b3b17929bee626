/*
 * cmd.h - the command table. One file per command (src/cmd-<name>.c)
 * exports one struct cmd_entry with its option tables (opt.h); src/cmd.c
 * lists them. Dispatch, --help, the completion scripts and the man page's
 * SYNOPSIS and OPTIONS come from these tables (tests/t0001 and t0011 check
 * that they agree).
 */
#ifndef SWAPTUNE_CMD_H
#define SWAPTUNE_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "swaptune/err.h"
#include "swaptune/fmt.h"
#include "swaptune/host.h"
#include "swaptune/opt.h"
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

/* How `swaptune --help` groups the commands. */
enum cmd_group {
	CMD_GROUP_INSPECT,	/* look at the host and what is stored */
	CMD_GROUP_MEASURE,	/* probe, judge, re-check */
	CMD_GROUP_CHANGE,	/* write settings, take them back */
	CMD_GROUP_FLEET,	/* results across hosts */
	CMD_GROUP_COUNT,
};

enum {
	CMD_NEEDS_ROOT = 1 << 0,	/* refused with exit 3 unless root (on a live host) */
	/* human output (not --json) folded to FMT_HUMAN_WIDTH columns: prose
	 * and tables, never shell lines, Prometheus text or a report format */
	CMD_WRAP_HUMAN = 1 << 1,
};

/*
 * One command (src/cmd-<name>.c exports one). Its options are rows of
 * opt_spec tables: getopt, --help, the completion scripts and the man
 * page's OPTIONS are made from them. usage is the synopsis after
 * "swaptune NAME", written by hand for its grammar (alternatives, what
 * goes together); every option it names is a row (tests/unit/test-opt.c).
 */
struct cmd_entry {
	const char *name;
	const char *summary;		/* one line */
	const char *usage;
	enum cmd_group group;
	/* option tables, parsed together (cmd_parse_sets()); unused slots NULL */
	const struct opt_spec *opts[OPT_TABLES_MAX];
	/* the words after the options ("FILE..."), NULL = none accepted */
	const char *args;
	const char *args_help;
	enum opt_complete args_complete;
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
/* "inspect", "measure", ...: the heading of a group in --help */
const char *cmd_group_title(enum cmd_group g);

/*
 * The options every command takes, before or after its name (main.c
 * takes them out of argv), and the global ones of `swaptune` itself.
 */
struct cmd_common {
	bool json;
	bool help;
	const char *db;
	const char *sysroot;
	bool version;
	int completion;			/* -1 none, else an index into cmd_shells */
	const char *list_ids;		/* hidden: ids for completion scripts */
	const char *man_section;	/* hidden: "synopsis" or "options" for gen-man.sh */
};
extern const struct opt_spec cmd_common_opts[];
extern const struct opt_spec cmd_global_opts[];
extern const char *const cmd_shells[];	/* "bash", "zsh", "fish" */

/*
 * Parse a command's argv (argv[0] its name) with its option tables into
 * args (one struct per table, in the order of c->opts). Returns the index
 * of the first word after the options (argc when none); a command that
 * takes none (c->args NULL) gets a usage error for any. Usage errors set
 * ctx->err (exit 2, "probe: --reps needs ... (see swaptune probe --help)",
 * with "did you mean --X?" for an unknown option close to one) and return
 * -EINVAL. given may be NULL.
 */
int cmd_parse_sets(struct cmd_ctx *ctx, const struct cmd_entry *c, int argc, char **argv,
		   void *const args[], struct opt_given *given);
/* The same for a command with one table. */
int cmd_parse(struct cmd_ctx *ctx, const struct cmd_entry *c, int argc, char **argv,
	      void *args, struct opt_given *given);
/* Whether option name (a row of one of c's tables) was given. */
bool cmd_given(const struct cmd_entry *c, const struct opt_given *g, const char *name);

/* --help of one command, and of swaptune (the commands by group, every global option). */
void cmd_print_help(FILE *f, const struct cmd_entry *c);
void cmd_print_overview(FILE *f);
/* The man page's generated parts (share/man/gen-man.sh): "synopsis" or "options". */
int cmd_print_man(FILE *f, const char *section);
/* The completion script for cmd_shells[shell], from the tables (complete.c). */
void cmd_print_completion(FILE *f, int shell);
/*
 * Ids for completion scripts (swaptune --list-ids KIND): KIND is run,
 * probe, apply or recording; the newest few of the store at db_path, one
 * per line. Never creates or changes a store: none there, nothing printed.
 */
int cmd_list_ids(FILE *f, const char *kind, const char *db_path, struct st_err *e);

/* Progress of long commands on stderr (--progress). */
enum cmd_progress {
	CMD_PROGRESS_AUTO = 0,	/* TTY on a terminal (and not --json), else NONE */
	CMD_PROGRESS_TTY,	/* one line rewritten in place */
	CMD_PROGRESS_PLAIN,	/* one line per step, for logs and scripts */
	CMD_PROGRESS_NONE,
};
extern const char *const cmd_progress_names[];	/* in enum order, for OPT_CHOICE */
enum cmd_progress cmd_progress_resolve(enum cmd_progress mode, bool json);
/* A probe_progress_fn printing in the mode *arg (an enum cmd_progress). */
struct probe_progress;
void cmd_probe_progress(const struct probe_progress *p, void *arg);

/*
 * Rows several commands share: one parser, one range, one completion each.
 * T is the command's argument struct, f the field.
 */
#define CMD_OPT_YES(T, f) OPT_FLAG("yes", 'y', "do not ask (needed without a terminal)", T, f)
#define CMD_OPT_DRY_RUN(h, T, f) OPT_FLAG("dry-run", 0, h, T, f)
#define CMD_OPT_MIN_EFFECT(h, T, f) OPT_PERCENT("min-effect", h, T, f, 0, 1000)
#define CMD_OPT_PROGRESS(T, f) OPT_CHOICE("progress", "MODE", \
	"auto (a live line on a terminal, else nothing), tty, plain (one line per step on " \
	"stderr, for logs and scripts) or none", T, f, cmd_progress_names)
#define CMD_OPT_RUN(h, T, f, comp) OPT_ID("run", "ID", h, T, f, "a run id", comp)
#define CMD_OPT_OUTPUT(T, f) OPT_STRING("output", 'o', "FILE", \
	"write FILE atomically instead of standard output", T, f, "a file", OPT_COMPLETE_FILE)

/*
 * Usage error for command c: sets ctx->err with exit status 2, e.g.
 * "status: unknown option --foo (see swaptune status --help)".
 */
int cmd_usage_error(struct cmd_ctx *ctx, const struct cmd_entry *c,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Print a cJSON document to ctx->out (pretty) and free it. A top-level
 * object gets the identity of cmd_identity_json() first.
 */
struct cJSON;
int cmd_print_json(struct cmd_ctx *ctx, struct cJSON *doc);

/*
 * While another swaptune command is changing the host (host_change_holder()):
 * with --json, "host_changing": {pid, command} into doc; else a first "Note"
 * line "another swaptune CMD (pid N) is changing this host now: WHAT". What
 * a command then reads may be that command's temporary state.
 */
void cmd_note_host_changing(struct cmd_ctx *ctx, struct cJSON *doc, const char *what);

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
extern const struct cmd_entry cmd_repair_entry;
extern const struct cmd_entry cmd_history_entry;
extern const struct cmd_entry cmd_verify_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_fleet_report_entry;
extern const struct cmd_entry cmd_fleet_advise_entry;
extern const struct cmd_entry cmd_report_entry;

#endif
