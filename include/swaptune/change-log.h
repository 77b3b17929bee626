/*
 * change-log.h - how host-side modules that create resources (cgroups,
 * scratch swap, debugfs mounts, boot-config files) record them before
 * making them, without knowing who keeps the record: an ops struct the
 * caller passes in. The journal provides one (journal_hooks() in
 * journal.h); tests pass NULL (nothing recorded). This keeps the host layer
 * below the journal: cgroup.c, scratch-swap.c and persist.c include this
 * header, never journal.h.
 */
#ifndef SWAPTUNE_CHANGE_LOG_H
#define SWAPTUNE_CHANGE_LOG_H

#include <stddef.h>

#include "swaptune/err.h"

struct change_log {
	void *ctx;
	/* Record resource kind/ident (detail: what undo needs) before creating it. */
	int (*note_resource)(void *ctx, const char *kind, const char *ident,
			     const char *detail, struct st_err *e);
	/* Mark it gone once removed (or never made). */
	int (*resource_done)(void *ctx, const char *kind, const char *ident,
			     struct st_err *e);
};

/* The calls modules make; a NULL log (or a NULL hook) records nothing. */
static inline int change_log_note(const struct change_log *log, const char *kind,
				  const char *ident, const char *detail, struct st_err *e)
{
	return log && log->note_resource ? log->note_resource(log->ctx, kind, ident, detail, e) : 0;
}

static inline int change_log_done(const struct change_log *log, const char *kind,
				  const char *ident, struct st_err *e)
{
	return log && log->resource_done ? log->resource_done(log->ctx, kind, ident, e) : 0;
}

/* Copy *log into dst, or the empty log for NULL (modules keep a copy). */
static inline void change_log_copy(struct change_log *dst, const struct change_log *log)
{
	if (log)
		*dst = *log;
	else
		*dst = (struct change_log){ NULL, NULL, NULL };
}

#endif
