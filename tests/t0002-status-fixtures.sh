#!/bin/sh
# status (human output) on every good fixture matches tests/expected/status-<fixture>.txt,
# with exit 0 and nothing on stderr. UPDATE_EXPECTED=1 rewrites the expected files.
. "$(dirname "$0")/lib.sh"

n=0
for fx in $(good_fixtures); do
	n=$((n + 1))
	"$SWAPTUNE" status --sysroot "$FIXTURES/$fx" --db "$scratch/db" \
		>"$scratch/$fx.out" 2>"$scratch/$fx.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "status on $fx: exit $rc"
	[ -s "$scratch/$fx.err" ] && fail "status on $fx wrote to stderr: $(cat "$scratch/$fx.err")"
	if [ "${UPDATE_EXPECTED:-0}" = 1 ]; then
		cp "$scratch/$fx.out" "$EXPECTED/status-$fx.txt"
	else
		same "$scratch/$fx.out" "$EXPECTED/status-$fx.txt"
	fi
done
[ "$n" -ge 5 ] || fail "only $n good fixtures found under $FIXTURES"

# SWAPTUNE_SYSROOT works like --sysroot
SWAPTUNE_SYSROOT=$FIXTURES/v2-zswap-on "$SWAPTUNE" status --db "$scratch/db" >"$scratch/env.out" 2>&1 ||
	fail "status with SWAPTUNE_SYSROOT: exit $?"
same "$scratch/env.out" "$EXPECTED/status-v2-zswap-on.txt"

# the facts each fixture was built to show
grep -q '^Readahead         cluster: swap device /dev/vdb is rotational' "$scratch/vm-v1.out" ||
	fail "vm-v1: rotational /dev/vdb should force cluster readahead"
grep -q 'nvme0n1p3, non-rotational' "$scratch/v2-zswap-on.out" ||
	fail "v2-zswap-on: partition rotational flag not found via the parent disk"
grep -q '^zswap             not in this kernel' "$scratch/no-zswap.out" ||
	fail "no-zswap: zswap should be absent"
grep -q 'zram0, non-rotational, zram' "$scratch/zram-only.out" ||
	fail "zram-only: zram0 not recognised"
grep -q 'no debugfs counters: debugfs is not mounted' "$scratch/missing-debugfs.out" ||
	fail "missing-debugfs: the reason is not reported"
done_testing
