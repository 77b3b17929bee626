#!/bin/sh
# The readahead dose-response on a live host (root): anon-runs (runs of 4
# consecutive pages from random starts), 512 MiB in a 384 MiB memcg, arms
# pc3, pc2 (custom), pc1, pc0, 2 rounds after a warm-up (~25 s here). Only
# the robust part is asserted, never timing: swap readahead falls with the
# cap, swap_ra pc3 > pc2 > pc1 > pc0 = 0 (the window grows within a run,
# so every capped arm reads ahead), and pc3 swaps in at least as many pages
# as pc0 (its wasted readahead is evicted and faulted again). An arm
# OOM-killed in its memcg (seen here with smaller limits) has no means: it
# must then lose, the verdict must say so, and it drops out of the chain.
# The stored parameters name run_pages so verify can repeat the run; the
# host is as before.
. "$(dirname "$0")/lib.sh"

need_probe_host
[ "$(cat /sys/kernel/mm/swap/vma_ra_enabled 2>/dev/null)" = true ] ||
	skip "VMA readahead is off: the dose-response is about its window"
grep -q "^/dev/" /proc/swaps && ! grep -q "^/dev/loop" /proc/swaps &&
	skip "the host swaps to a device already: its readahead may be cluster-based"
command -v jq >/dev/null 2>&1 || skip "needs jq"
settings() {
	echo "page-cluster $(cat $PC)"
	for f in enabled compressor max_pool_percent accept_threshold_percent shrinker_enabled; do
		[ -r "$ZS/$f" ] && echo "zswap.$f $(cat "$ZS/$f")"
	done
	echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
}
db=$scratch/db
wait_no_probe
before=$(settings)
"$SWAPTUNE" probe --db "$db" --yes --json --workload anon-runs --arms pc3,pc1,pc0 \
	--arm pc2:page-cluster=2 --baseline pc3 --reps 2 --min-trial 0 --working-set 512M --memcg-limit 384M \
	>"$scratch/run.json" 2>"$scratch/run.err"
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: probe: exit $rc: $(cat "$scratch/run.err")"; exit 1; }
j=$scratch/run.json
[ "$(jq -r .status "$j")" = ok ] || fail "status $(jq -r .status "$j")"
# the workload's seed is derived from the run's (--seed 1): any number, the rest exact
[ "$(jq -c '.workload | del(.seed)' "$j")" = '{"name":"anon-runs","working_set_bytes":536870912,"ops":262144,"run_pages":4}' ] &&
	[ "$(jq -r '.workload.seed | type' "$j")" = number ] ||
	fail "workload parameters $(jq -c .workload "$j")"
stored=$(sqlite3 "$db" "SELECT json_extract(params, '\$.workload.run_pages') FROM runs WHERE id = $(jq .run_id "$j")")
[ "$stored" = 4 ] || fail "stored run_pages '$stored', want 4"

arm() {	# arm NAME FIELD: a jq path under that arm
	jq -r --arg n "$1" ".arms[] | select(.name == \$n) | $2" "$j"
}
chain=""
for a in pc3 pc2 pc1 pc0; do
	oom=$(arm $a .oom_kills)
	ra=$(arm $a .metrics.swap_ra.mean)
	zin=$(arm $a .metrics.zswpin.mean)
	echo "$a: oom $oom, swap_ra $ra, hits $(arm $a .metrics.swap_ra_hit.mean), zswpin $zin, ops/s $(arm $a .primary.mean)"
	if [ "$oom" -gt 0 ]; then
		[ "$(jq -r .verdict.arm "$j")" != "$a" ] || fail "$a was OOM-killed $oom times but the verdict picks it"
		jq -r '.verdict.reasons[]' "$j" | grep -q "^$a.*OOM-killed in its memory cgroup in $oom of" ||
			fail "the verdict does not say $a was OOM-killed: $(jq -c .verdict.reasons "$j")"
		continue
	fi
	[ "$(arm $a .completed)" = 2 ] || fail "$a completed $(arm $a .completed) trials, want 2"
	chain="$chain $ra"
	eval "zin_$a=\$zin ra_$a=\$ra"
done
[ "$(arm pc0 .oom_kills)" = 0 ] || fail "pc0 (no readahead) was OOM-killed: the sizes are wrong for this host"
[ "$ra_pc0" = 0 ] || fail "page-cluster 0 read ahead $ra_pc0 pages"
echo "swap_ra over the arms that completed (pc3 pc2 pc1 pc0 order):$chain"
echo "$chain" | awk '{ for (i = 2; i <= NF; i++) if (!($(i - 1) > $i)) exit 1 }' ||
	fail "swap_ra does not fall strictly with page-cluster:$chain"
echo "$chain" | awk '{ exit !(NF < 2 || $(NF - 1) > 1000) }' || fail "the smallest capped arm read ahead too little:$chain"
if [ -n "${zin_pc3:-}" ]; then
	awk -v a="$zin_pc3" -v b="$zin_pc0" 'BEGIN { exit !(a >= b && b > 10000) }' ||
		fail "zswpin: pc3 $zin_pc3 should be >= pc0 $zin_pc0 (> 10000)"
fi

i=0
while [ "$(settings)" != "$before" ] && [ $i -lt 50 ]; do sleep 0.3; i=$((i + 1)); done
[ "$(settings)" = "$before" ] || fail "settings not restored: $(settings) (before: $before)"
done_testing
