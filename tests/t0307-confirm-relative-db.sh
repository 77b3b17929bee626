#!/bin/sh
# Regression (outside review, item 1): apply --confirm-within with a relative
# --db (or $SWAPTUNE_DB) must revert at the deadline. The watchdog changes
# to / before it acts, so a relative store path once opened another store
# and the host stayed changed with the run "awaiting-confirm" forever.
. "$(dirname "$0")/lib.sh"
root=$scratch/root
mkdir -p "$root" "$scratch/rel"
cp -a "$FIXTURES/vm-v1/." "$root/"
P=$root/proc/sys/vm/page-cluster
cd "$scratch" || exit 1
for how in option env; do
	echo 3 >"$P"
	case $how in
	option) "$SWAPTUNE" apply --yes --confirm-within 1s page-cluster=0 --sysroot "$root" \
			--db rel/j.db --json >"$scratch/a.json" 2>"$scratch/err" ;;
	env) SWAPTUNE_DB=rel/e.db "$SWAPTUNE" apply --yes --confirm-within 1s page-cluster=0 \
			--sysroot "$root" --json >"$scratch/a.json" 2>"$scratch/err" ;;
	esac || { fail "$how: apply exit $?: $(cat "$scratch/err")"; continue; }
	[ "$(cat "$P")" = 0 ] || fail "$how: page-cluster not applied"
	for i in $(seq 50); do [ "$(cat "$P")" = 3 ] && break; sleep 0.2; done
	[ "$(cat "$P")" = 3 ] || fail "$how: not reverted 10 s after a 1 s deadline (page-cluster $(cat "$P"))"
	[ -e "/rel" ] && fail "$how: a store was created under /rel"
done
[ -s rel/j.db ] || fail "the relative store rel/j.db is missing"
done_testing
