/*
 * err.c - the error struct every module fills (see include/swaptune/err.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/err.h"

static int err_vset(struct st_err *e, int code, int exit_status,
		    const char *fmt, va_list ap)
{
	if (!e)
		return code;
	if (e->code != 0)	/* keep the innermost cause */
		return code;
	e->code = code ? code : -EIO;
	e->exit = exit_status;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int err_set(struct st_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, code, 0, fmt, ap);
	va_end(ap);
	return code;
}

int err_set_exit(struct st_err *e, int code, enum st_exit exit_status,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, code, exit_status, fmt, ap);
	va_end(ap);
	return code;
}

int err_usage(struct st_err *e, const char *cmd, const char *fmt, ...)
{
	char msg[ST_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!cmd)
		return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "%s", msg);
	return err_set_exit(e, -EINVAL, ST_EXIT_USAGE, "%s: %s (see swaptune %s --help)", cmd, msg, cmd);
}

int err_prefix(struct st_err *e, const char *fmt, ...)
{
	char pre[ST_ERR_MSG_MAX], old[ST_ERR_MSG_MAX];
	va_list ap;

	if (!e || !e->code)
		return e ? e->code : 0;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%.200s: %.300s", pre, old);
	return e->code;
}

void err_reset(struct st_err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

int err_exit_status(const struct st_err *e)
{
	if (!e || !e->code)
		return ST_EXIT_OK;
	if (e->exit)
		return e->exit;
	switch (-e->code) {
	case EINVAL: case EBADMSG: case ERANGE: case ENOENT: case ENOTDIR:
		return ST_EXIT_USAGE;
	case EACCES: case EPERM: case EROFS: case ENODEV: case ENOSYS:
	case EOPNOTSUPP: case EBUSY:
		return ST_EXIT_DENIED;
	default:
		return ST_EXIT_RUNTIME;
	}
}
