# host-lock-lib.sh - the test suite's host lock, in one copy: sourced by
# tests/host-lock.sh (a live test re-runs itself under the lock),
# tests/hold-host-lock.sh (a command run by hand or by .ci/run under the
# lock) and tests/t0012-deb-package.sh (its live part).
# The lock is $host_lock_file, /run/swaptune-tests/host.lock: a directory only
# root may enter, so no other user can hold the lock (turning live tests into
# waits and skips) or plant a symlink in its place. SWAPTUNE_TEST_LOCK_DIR
# names another directory (t0023 plants symlinks and foreign owners there).
# /tmp/swaptune-host.lock, the lock of sessions up to 16, still counts as an
# outer lock: a test run under `flock /tmp/swaptune-host.lock ...` takes none.
host_lock_dir=${SWAPTUNE_TEST_LOCK_DIR:-/run/swaptune-tests}
host_lock_file=$host_lock_dir/host.lock

# host_lock_held_above: true when an ancestor process is a flock(1) on this
# lock (or on the old /tmp/swaptune-host.lock): taking it again would wait
# for ourselves. The walk stops at SWAPTUNE_LOCK_WALK_STOP (a pid) when set:
# t0023 looks only at the flocks it starts, not at the one its run is under
host_lock_held_above() {
	hl_pid=$$
	while [ "${hl_pid:-1}" -gt 1 ] && [ "$hl_pid" != "${SWAPTUNE_LOCK_WALK_STOP:-}" ]; do
		hl_cmd=$(tr '\0' ' ' <"/proc/$hl_pid/cmdline" 2>/dev/null)
		case $hl_cmd in
		*flock*swaptune-host.lock*|*flock*" $host_lock_file "*) return 0 ;;
		esac
		hl_pid=$(sed 's/.*) [A-Z] \([0-9]*\).*/\1/' "/proc/$hl_pid/stat" 2>/dev/null)
	done
	return 1
}

# host_lock_prepare: make sure the lock's directory and file are root's
# alone before anyone opens the file: the directory is created 0700 when
# missing; a symlink, another owner or group/other write access on either
# is refused with one line on stderr (return 1), nothing opened or changed
host_lock_prepare() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "host lock: needs root (the lock is $host_lock_file)" >&2
		return 1
	fi
	if [ ! -e "$host_lock_dir" ] && [ ! -L "$host_lock_dir" ]; then
		mkdir -m 0700 "$host_lock_dir" 2>/dev/null || [ -d "$host_lock_dir" ] || {
			echo "host lock: cannot create $host_lock_dir" >&2
			return 1
		}
	fi
	host_lock_refuse "$host_lock_dir" -d directory || return 1
	[ -e "$host_lock_file" ] || [ -L "$host_lock_file" ] || return 0
	host_lock_refuse "$host_lock_file" -f "regular file"
}
# host_lock_refuse PATH TEST WHAT: one line and 1 unless PATH is a WHAT
# (test(1) TEST), not a symlink, owned by root, not writable by group or other
host_lock_refuse() {
	if [ -L "$1" ]; then
		echo "host lock: refusing $1: a symlink, not a $3" >&2
		return 1
	fi
	if ! test "$2" "$1"; then
		echo "host lock: refusing $1: not a $3" >&2
		return 1
	fi
	hl_owner=$(stat -c %u "$1")
	if [ "$hl_owner" != 0 ]; then
		echo "host lock: refusing $1: owned by uid $hl_owner, not root" >&2
		return 1
	fi
	case $(stat -c %A "$1") in
	?????w????|????????w?)
		echo "host lock: refusing $1: writable by group or other" >&2
		return 1 ;;
	esac
	return 0
}
