/*
 * lock.h - the host-change lock: one swaptune command at a time changes this
 * host's swap settings (probe, apply, rollback, verify and doctor's bypass
 * check take it). The lock file records the holder's command name and pid so
 * a refused command can say who is changing the host.
 */
#ifndef SWAPTUNE_LOCK_H
#define SWAPTUNE_LOCK_H

#include <stddef.h>

#include "swaptune/err.h"
#include "swaptune/host.h"

/*
 * Take the lock for `command` ("probe", "apply", ...): an flock on
 * /run/swaptune/probe.lock (live host; the name predates the other users)
 * or DB_PATH.probe.lock (sysroot). -EBUSY (exit 3) "another swaptune apply
 * (pid 1234) is changing this host". Under a sysroot the tree's directory
 * is flocked too, whatever the store, so that two commands changing one
 * tree through two stores exclude each other; nothing is written into the
 * tree. When its holder is not one this store's lock file names: -EBUSY
 * "another swaptune command is changing this tree (ROOT)". *fd stays open
 * for the lock's lifetime; host_change_unlock() releases both flocks.
 * A symlink, a file that is not a lock file, or one another user owns (not
 * root, not the caller) is refused (exit 3), never written.
 */
int host_change_lock(const struct host *h, const char *db_path, const char *command, int *fd,
		     struct st_err *e);
void host_change_unlock(int fd);

/*
 * Whether another swaptune command holds the lock now, without creating
 * anything: 1 with the pid and command name its lock file records, 0 when
 * none does (an empty or absent file, one that is not swaptune's or that
 * another user owns, or a line left by a holder that died, whatever its pid
 * now belongs to: the flock, tried shared for an instant, decides). For a
 * dry run, whose "now" values are then that command's temporary ones.
 */
int host_change_holder(const struct host *h, const char *db_path, int *pid, char *cmd, size_t len);

#endif
