#!/bin/sh
# probe --dry-run with a crafted /proc/swaps (issue 33, finding 8): the
# host's swap path reaches the plan escaped (\x1b...), never as raw
# escape bytes that drive the terminal; the JSON plan stays valid.
. "$(dirname "$0")/lib.sh"
root=$scratch/root
cp -R "$FIXTURES/vm-v1" "$root"
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/vdb\033[2J\033]0;pwned\007x partition\t8388604\t\t163840\t\t-2\n' \
	>"$root/proc/swaps"
"$SWAPTUNE" --sysroot "$root" --db "$scratch/db" probe --dry-run >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "probe --dry-run: exit $rc ($(cat "$scratch/out"))"
grep -q "$(printf '\033')" "$scratch/out" && fail "probe --dry-run printed a raw ESC: $(cat -v "$scratch/out" | grep -m1 host-swap)"
grep -q "$(printf '\007')" "$scratch/out" && fail "probe --dry-run printed a raw BEL"
grep -q 'vdb\\x1b\[2J' "$scratch/out" || fail "probe --dry-run: the swap path is not shown escaped: $(grep host-swap "$scratch/out")"
if command -v jq >/dev/null 2>&1; then
	"$SWAPTUNE" --sysroot "$root" --db "$scratch/db" probe --dry-run --json >"$scratch/plan.json" 2>&1 ||
		fail "probe --dry-run --json: exit $?"
	jq -e . "$scratch/plan.json" >/dev/null 2>&1 || fail "probe --dry-run --json is not JSON"
fi
done_testing
