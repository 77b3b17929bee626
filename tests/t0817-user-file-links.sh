#!/bin/sh
# The user-file writer (report -o, export -o, sample --prom-file) with a
# planted name (issue 33, finding 2): a symlink in a directory other users
# can write is refused (exit 3, its target untouched, nothing written
# through it); a FIFO nobody reads is an error within the stated deadline
# (5 s), not a hang; a block device is never written.
. "$(dirname "$0")/lib.sh"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" "$@"; }
command -v timeout >/dev/null 2>&1 || skip "timeout (coreutils) is not installed"

# a world-writable directory, as a textfile collector's may be
mkdir -m 0777 "$scratch/pub"
chmod 0777 "$scratch/pub"
mkfifo "$scratch/fifo" || skip "mkfifo failed"

# a link to a FIFO with a reader: nothing reaches the reader
cat "$scratch/fifo" >"$scratch/got" &
reader=$!
ln -s "$scratch/fifo" "$scratch/pub/swaptune.prom"
timeout 20 "$SWAPTUNE" sample --sysroot "$FIXTURES/vm-v1" --count 1 --prom --prom-file "$scratch/pub/swaptune.prom" \
	>"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 3 ] || fail "--prom-file through a planted link: exit $rc, want 3 ($(cat "$scratch/err"))"
grep -q 'is a symbolic link in a directory other users can write: refused' "$scratch/err" ||
	fail "--prom-file through a planted link: $(cat "$scratch/err")"
timeout 20 "$SWAPTUNE" --db "$db" export -o "$scratch/pub/swaptune.prom" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 3 ] || fail "export -o through a planted link: exit $rc, want 3 ($(cat "$scratch/err"))"
: >"$scratch/fifo"	# lets the reader finish
wait $reader
[ -s "$scratch/got" ] && fail "a planted link was written through: $(head -c 200 "$scratch/got")"
[ -L "$scratch/pub/swaptune.prom" ] || fail "the planted link was replaced"

# a link to a regular file: refused, the target unchanged
echo precious >"$scratch/victim"
ln -s "$scratch/victim" "$scratch/pub/report.txt"
timeout 20 "$SWAPTUNE" --db "$db" export -o "$scratch/pub/report.txt" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 3 ] || fail "export -o a planted link to a file: exit $rc, want 3 ($(cat "$scratch/err"))"
[ "$(cat "$scratch/victim")" = precious ] || fail "the link's target was written"

# a planted FIFO nobody reads: an error within the deadline, not a hang
mkfifo "$scratch/pub/stuck.prom"
start=$(date +%s)
timeout 30 "$SWAPTUNE" sample --sysroot "$FIXTURES/vm-v1" --count 1 --prom --prom-file "$scratch/pub/stuck.prom" \
	>"$scratch/out" 2>"$scratch/err"
rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 124 ] && fail "--prom-file on a FIFO nobody reads hung past 30 s"
[ $rc -eq 1 ] || fail "--prom-file on a FIFO nobody reads: exit $rc, want 1 ($(cat "$scratch/err"))"
grep -q 'nobody reads it' "$scratch/err" || fail "--prom-file on a FIFO nobody reads: $(cat "$scratch/err")"
[ "$took" -le 15 ] || fail "--prom-file on a FIFO nobody reads took $took s"

# a link of the caller's own in a directory only the caller writes: still honoured
mkdir -m 0700 "$scratch/own"
ln -s "$scratch/victim" "$scratch/own/out.json"
st export -o "$scratch/own/out.json" >"$scratch/out" 2>&1 || fail "export -o own link: exit $? ($(cat "$scratch/out"))"

if [ "$(id -u)" -eq 0 ]; then
	# a block device node (a loop device's numbers): refused, never written
	mknod "$scratch/pub/disk" b 7 200 || fail "mknod"
	st export -o "$scratch/pub/disk" >"$scratch/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "export -o a block device: exit $rc, want 2 ($(cat "$scratch/out"))"
	[ -b "$scratch/pub/disk" ] || fail "the block device node was replaced"
else
	echo "block device check skipped: mknod needs root"
fi
done_testing
