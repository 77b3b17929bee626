#!/bin/sh
# The test suite's host lock (issue 33, finding 6): tests/host-lock.sh and
# tests/hold-host-lock.sh take it in a directory only root may use, refuse a
# planted symlink, another owner or a group/other-writable directory or file
# with one line (nothing run, nothing written through the link), never
# truncate it, wait for it and skip when it stays busy, and take none under
# an ancestor that holds it (tests/hold-host-lock.sh, or the old
# flock /tmp/swaptune-host.lock), so nothing waits for itself. No test opens
# a lock file with a truncating `9>` or takes /tmp/swaptune-host.lock itself.
# (a wrong answer fails, it never hangs: each refusal runs under timeout 20).
# Fixture-only: the lock directory is SWAPTUNE_TEST_LOCK_DIR in scratch,
# five levels deep, and the live lock is never touched.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (the lock refuses non-root owners)"
command -v flock >/dev/null 2>&1 || skip "needs flock(1)"
nobody=65534
deep=$scratch/a/b/c/d/e
mkdir -p "$deep"
cp "$TOP/tests/host-lock.sh" "$TOP/tests/hold-host-lock.sh" "$deep/"
cp "$TOP/tests/host-lock-lib.sh" "$deep/" 2>/dev/null
cd "$deep" || exit 1
# body: a "live test" that sources host-lock.sh, then says whether it holds
# the lock (another open of it cannot take it)
cat >body.sh <<'EOF'
. "$(dirname "$0")/host-lock.sh"
if flock -n "$SWAPTUNE_TEST_LOCK_DIR/host.lock" true 2>/dev/null; then echo "ran, lock free"; else echo "ran, lock held"; fi
EOF
held() {	# held: echo whether the lock file is held by someone else now
	if flock -n "$SWAPTUNE_TEST_LOCK_DIR/host.lock" true 2>/dev/null; then echo free; else echo held; fi
}
export SWAPTUNE_LOCK_WAIT=2
# what holds a lock above this test (a suite run under flock
# /tmp/swaptune-host.lock, as the clean-clone CI of session 16 was: every
# refusal below then "ran, lock free") is not the test's business
export SWAPTUNE_LOCK_WALK_STOP=$$
n=0
# refused NAME: set up by the caller in $SWAPTUNE_TEST_LOCK_DIR; both entry
# points refuse it with one line naming the reason, run nothing
refused() {
	timeout 20 sh body.sh >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "$1: host-lock.sh exited $rc, not 1: $(cat out err)"
	grep -q '^ran' out && fail "$1: the test ran in spite of the refusal"
	[ "$(wc -l <err)" = 1 ] || fail "$1: not one line on stderr: $(cat err)"
	grep -q "^host lock: refusing .*$2" err || fail "$1: no refusal naming '$2': $(cat err)"
	timeout 20 sh hold-host-lock.sh sh -c 'echo ran' >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "$1: hold-host-lock.sh exited $rc, not 1"
	grep -q '^ran' out && fail "$1: hold-host-lock.sh ran the command in spite of the refusal"
	[ "$(wc -l <err)" = 1 ] || fail "$1: hold-host-lock.sh: not one line on stderr: $(cat err)"
}

# 1. a missing directory is made, root's, 0700; the test runs under the lock
export SWAPTUNE_TEST_LOCK_DIR=$deep/lockdir
[ "$(sh body.sh 2>&1)" = "ran, lock held" ] || fail "1: the test did not run under the lock: $(sh body.sh 2>&1)"
[ "$(stat -c '%u %a' lockdir 2>/dev/null)" = "0 700" ] || fail "1: lock directory is $(stat -c '%u %a' lockdir 2>&1), not root's 0700"
[ "$(sh hold-host-lock.sh sh body.sh 2>&1)" = "ran, lock held" ] ||
	fail "1: under hold-host-lock.sh: $(sh hold-host-lock.sh sh body.sh 2>&1)"
# an existing lock file is neither truncated nor replaced
echo keep >lockdir/host.lock
sh body.sh >/dev/null 2>&1
[ "$(cat lockdir/host.lock)" = keep ] || fail "1: the lock file was truncated"

# 2. the directory is a symlink (to a directory someone else made)
mkdir -p elsewhere && rm -rf lockdir && ln -s elsewhere lockdir
refused "2 (directory symlink)" "a symlink"
[ -e elsewhere/host.lock ] && fail "2: a lock file was made through the symlink"
rm -f lockdir

# 3. the directory belongs to another user / is writable by others
mkdir -m 0700 lockdir && chown "$nobody" lockdir
refused "3 (directory owned by uid $nobody)" "owned by uid $nobody"
chown 0 lockdir && chmod 0777 lockdir
refused "3 (directory mode 0777)" "writable by group or other"
chmod 0700 lockdir

# 4. the lock file is a symlink to a file of value
echo precious >victim
ln -s "$deep/victim" lockdir/host.lock
refused "4 (file symlink)" "a symlink"
[ "$(cat victim)" = precious ] || fail "4: the symlink's target was changed: $(cat victim)"
rm -f lockdir/host.lock

# 5. the lock file belongs to another user (who could hold it for ever)
: >lockdir/host.lock && chown "$nobody" lockdir/host.lock
refused "5 (file owned by uid $nobody)" "owned by uid $nobody"
rm -f lockdir/host.lock
mkfifo lockdir/host.lock
refused "5 (a FIFO)" "not a regular file"
rm -f lockdir/host.lock

# 6. busy: another holder for SWAPTUNE_LOCK_WAIT seconds means a skip (77)
# (the holder execs into sleep: killing it frees the lock)
sh -c 'exec 8>>"$1" && flock 8 && exec sleep 30' sh lockdir/host.lock &
holder=$!
sleep 1
sh body.sh >out 2>&1
rc=$?
[ $rc = 77 ] || fail "6: a busy lock gave exit $rc, not 77 (skip): $(cat out)"
grep -q 'stayed busy' out || fail "6: no 'stayed busy' line: $(cat out)"
# 7. ... but under an ancestor holding it (the old /tmp name, or this lock
# through hold-host-lock.sh's flock) nothing waits: the test runs at once
mkdir -p old && : >old/swaptune-host.lock
out=$(flock old/swaptune-host.lock sh body.sh 2>&1)
[ "$out" = "ran, lock held" ] || fail "7: under flock .../swaptune-host.lock: $out"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
[ "$(held)" = free ] || fail "7: the lock is still held after its holder ended"
out=$(sh hold-host-lock.sh sh -c 'sh body.sh; sh body.sh' 2>&1)
[ "$out" = "ran, lock held
ran, lock held" ] || fail "7: nested under hold-host-lock.sh: $out"

# 8. no test opens a lock file truncating (9>) or takes the /tmp lock itself
cd "$TOP" || exit 1
bad=$(grep -n 'exec [0-9]>[^>&]' tests/*.sh | grep -v "^tests/t0023-")
[ -z "$bad" ] || fail "8: a truncating open of a lock file: $bad"
bad=$(grep -n 'flock.*/tmp/swaptune-host.lock' tests/*.sh | grep -v '^[^:]*:[0-9]*:[[:space:]]*#' | grep -v "^tests/t0023-")
[ -z "$bad" ] || fail "8: a test takes the old /tmp lock: $bad"
done_testing
