/*
 * err.h - error reporting for every module.
 *
 * Functions return 0 on success or a negative errno-style code on failure and
 * put the detail into a caller-supplied struct st_err. Only main() prints an
 * error and chooses the exit status (see err_exit_status()).
 */
#ifndef SWAPTUNE_ERR_H
#define SWAPTUNE_ERR_H

#include <errno.h>

#define ST_ERR_MSG_MAX 512

/* Exit statuses of every command (DESIGN.md). */
enum st_exit {
	ST_EXIT_OK = 0,
	ST_EXIT_RUNTIME = 1,	/* something failed while running */
	ST_EXIT_USAGE = 2,	/* bad command line or bad input */
	ST_EXIT_DENIED = 3,	/* not permitted, or a prerequisite is missing */
	/*
	 * Answers, for scripts that gate on them (recommend --exit-code,
	 * verify): 0 = keep / still holds, then these. Never used for errors.
	 */
	ST_EXIT_ANSWER_CHANGE = 10,		/* recommend: change; verify: no longer holds */
	ST_EXIT_ANSWER_INCONCLUSIVE = 11,	/* not enough evidence either way */
};

struct st_err {
	int code;			/* negative errno, 0 when unset */
	int exit;			/* enum st_exit chosen by err_set_exit(), 0 = derive from code */
	char msg[ST_ERR_MSG_MAX];	/* lowercase, no full stop: "cannot read proc/vmstat: ..." */
};

/*
 * Record an error and return code (which should be negative), so callers can
 * write "return err_set(e, -ENOENT, "cannot read %s", path);". e may be NULL.
 * A later err_set() on an already set error keeps the first (innermost) one
 * unless err_reset() was called.
 */
int err_set(struct st_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same as err_set(), and fixes the exit status main() will use. */
int err_set_exit(struct st_err *e, int code, enum st_exit exit_status,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * A usage error: -EINVAL with exit status 2. With cmd the message reads
 * "CMD: MSG (see swaptune CMD --help)", without it MSG alone (a form that
 * reuses a command's checks says it in its own place).
 */
int err_usage(struct st_err *e, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the recorded message with "what: " (context added by a caller). */
int err_prefix(struct st_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void err_reset(struct st_err *e);

/*
 * The exit status for a recorded error: the explicit one if set, else
 * EINVAL/EBADMSG/ERANGE/ENOENT/ENOTDIR -> 2 (bad input), EACCES/EPERM/EROFS/
 * ENODEV/ENOSYS/EOPNOTSUPP/EBUSY -> 3 (not permitted or prerequisite missing),
 * anything else -> 1.
 */
int err_exit_status(const struct st_err *e);

#endif
