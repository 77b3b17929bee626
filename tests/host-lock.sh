# host-lock.sh - sourced first by a live test that drives a long-running
# screen or service (t03xx, t05xx, t07xx): re-runs the test under flock on
# the suite's host lock (tests/host-lock-lib.sh: /run/swaptune-tests/host.lock)
# unless an ancestor (tests/hold-host-lock.sh, `flock ... make check`, or the
# old flock /tmp/swaptune-host.lock) holds it already, and exits with its
# status; 77 (skip) when the lock stays busy SWAPTUNE_LOCK_WAIT seconds (900),
# flock(1) is missing or we are not root; 1 when the lock's directory or file
# is not root's alone (a symlink, another owner). Must come before lib.sh.
. "$(dirname "$0")/host-lock-lib.sh"
if [ -z "$SWAPTUNE_TUI_LOCKED" ] && ! host_lock_held_above; then
	command -v flock >/dev/null 2>&1 || { echo "needs flock(1) to take the host lock"; exit 77; }
	[ "$(id -u)" -eq 0 ] || { echo "needs root to take the host lock ($host_lock_file)"; exit 77; }
	host_lock_prepare || exit 1
	SWAPTUNE_TUI_LOCKED=1 flock -E 75 -w "${SWAPTUNE_LOCK_WAIT:-900}" "$host_lock_file" sh "$0" "$@"
	rc=$?
	[ $rc -eq 75 ] && { echo "the host lock stayed busy for ${SWAPTUNE_LOCK_WAIT:-900} s"; exit 77; }
	exit $rc
fi
