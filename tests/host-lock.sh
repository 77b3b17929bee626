# host-lock.sh - sourced first by a live test that drives a long-running
# screen (t05xx): re-runs the test under flock /tmp/swaptune-host.lock unless
# an ancestor (e.g. `flock ... make check`) holds it already, and exits with
# its status; 77 (skip) when the lock stays busy SWAPTUNE_LOCK_WAIT seconds
# (900) or flock(1) is missing. Must come before lib.sh.
host_lock_held_above() {
	pid=$$
	while [ "${pid:-1}" -gt 1 ]; do
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "flock.*swaptune-host.lock" && return 0
		pid=$(sed 's/.*) [A-Z] \([0-9]*\).*/\1/' "/proc/$pid/stat" 2>/dev/null)
	done
	return 1
}
if [ -z "$SWAPTUNE_TUI_LOCKED" ] && ! host_lock_held_above; then
	command -v flock >/dev/null 2>&1 || { echo "needs flock(1) to take the host lock"; exit 77; }
	SWAPTUNE_TUI_LOCKED=1 flock -E 75 -w "${SWAPTUNE_LOCK_WAIT:-900}" /tmp/swaptune-host.lock sh "$0" "$@"
	rc=$?
	[ $rc -eq 75 ] && { echo "the host lock stayed busy for ${SWAPTUNE_LOCK_WAIT:-900} s"; exit 77; }
	exit $rc
fi
