#!/bin/sh
# -o / --prom-file naming a device or a FIFO: written to as it is, never
# replaced by a regular file (the atomic rename of user files once turned
# /dev/null into a regular file on this host, and every tmux test after it
# failed); a directory is refused with exit 2. As root, also /dev/null
# itself: still the character device 1,3 afterwards.
. "$(dirname "$0")/lib.sh"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" "$@"; }

# a FIFO with a reader: the export arrives through it, the FIFO stays
mkfifo "$scratch/fifo" || skip "mkfifo failed"
cat "$scratch/fifo" >"$scratch/got" &
reader=$!
st export -o "$scratch/fifo" >"$scratch/out" 2>&1 || fail "export -o FIFO: exit $? ($(cat "$scratch/out"))"
wait $reader
[ -p "$scratch/fifo" ] || fail "export -o FIFO replaced the FIFO: $(ls -la "$scratch/fifo")"
grep -q '"schema"' "$scratch/got" || fail "export -o FIFO: the reader got no export: $(head -c 200 "$scratch/got")"

# a directory: refused, exit 2, nothing made in it
mkdir "$scratch/dir"
st export -o "$scratch/dir" >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "export -o DIR: exit $rc, want 2 ($(cat "$scratch/out"))"
grep -q 'is a directory' "$scratch/out" || fail "export -o DIR: $(cat "$scratch/out")"
[ -z "$(ls -A "$scratch/dir")" ] || fail "export -o DIR left files: $(ls -A "$scratch/dir")"

if [ "$(id -u)" -eq 0 ]; then
	# a character device node of our own (the null device), then /dev/null itself
	mknod "$scratch/null" c 1 3 || fail "mknod"
	st export -o "$scratch/null" >"$scratch/out" 2>&1 || fail "export -o NULLDEV: exit $? ($(cat "$scratch/out"))"
	[ -c "$scratch/null" ] || fail "export -o a device node replaced it: $(ls -la "$scratch/null")"
	st export -o /dev/null >"$scratch/out" 2>&1 || fail "export -o /dev/null: exit $? ($(cat "$scratch/out"))"
	[ -c /dev/null ] || fail "export -o /dev/null replaced /dev/null: $(ls -la /dev/null)"
	"$SWAPTUNE" sample --sysroot "$FIXTURES/vm-v1" --count 1 --prom --prom-file /dev/null >"$scratch/out" 2>&1 ||
		fail "sample --prom-file /dev/null: exit $? ($(cat "$scratch/out"))"
	[ -c /dev/null ] || fail "sample --prom-file /dev/null replaced /dev/null: $(ls -la /dev/null)"
else
	echo "device checks skipped: mknod and /dev/null need root"
fi
done_testing
