#!/bin/sh
# tests/fixtures/capture.sh copies what swaptune reads: status on a fresh
# capture of this host says what status on the host says (except the CPU
# counters, which are probed live only, and the moving memory figures),
# the capture is small, and the script refuses to overwrite a tree.
. "$(dirname "$0")/lib.sh"

cap=$TOP/tests/fixtures/capture.sh
[ -r /proc/vmstat ] || skip "no /proc on this machine"
sh "$cap" "$scratch/cap" >"$scratch/cap.out" 2>"$scratch/cap.err" || fail "capture.sh: exit $?: $(cat "$scratch/cap.err")"
grep -q "^captured [0-9]* files into $scratch/cap\$" "$scratch/cap.out" || fail "capture.sh: no summary line"

"$SWAPTUNE" status --db "$scratch/db" >"$scratch/live.txt" 2>&1 || fail "status on the host: exit $?"
"$SWAPTUNE" status --sysroot "$scratch/cap" --db "$scratch/db" >"$scratch/cap.txt" 2>&1 ||
	fail "status on the capture: exit $?: $(cat "$scratch/cap.txt")"
stable() {	# the lines folded at 100 columns joined: the fold depends on the paths' lengths
	unfold "$1" | grep -v -e '^Memory ' -e '^CPU counters ' -e '^PSI ' -e '^  hit ratio ' -e '^  pool ' \
		-e '^                  .*(meminfo)$' -e '^Swap ' -e '^  /'
}
stable "$scratch/live.txt" >"$scratch/live.stable"
stable "$scratch/cap.txt" >"$scratch/cap.stable"
same "$scratch/cap.stable" "$scratch/live.stable"
"$BUILD/helpers/schema-check" "$SCHEMAS/status.schema.json" \
	"$("$SWAPTUNE" status --json --sysroot "$scratch/cap" --db "$scratch/db" >"$scratch/cap.json"; echo "$scratch/cap.json")" ||
	fail "status --json on the capture does not validate"

# only the files read: small, and no hot_add (reading it makes a zram device)
n=$(find "$scratch/cap" -type f | wc -l)
[ "$n" -lt 80 ] || fail "capture holds $n files"
[ -e "$scratch/cap/sys/class/zram-control/hot_add" ] && fail "capture read zram-control/hot_add"
[ -e "$scratch/cap/etc/machine-id" ] && fail "machine-id captured without -m"
grep -q '^type' "$scratch/cap/proc/crypto" || fail "proc/crypto has no entries"
grep -E '^type +: ' "$scratch/cap/proc/crypto" | grep -vqE ': (scomp|acomp|compression)$' &&
	fail "proc/crypto not trimmed to compressors"

# never into a tree that exists
sh "$cap" "$scratch/cap" >/dev/null 2>"$scratch/again.err"
[ $? -eq 2 ] || fail "capture.sh over an existing tree: want exit 2"
grep -q 'exists and is not empty' "$scratch/again.err" || fail "capture.sh: no reason given"
done_testing
