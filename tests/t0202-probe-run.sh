#!/bin/sh
# A short real probe (live host, root): anon-seq, pc3 against pc0, 2 rounds
# after a warm-up. page-cluster=0 must cut swap readahead (swap_ra) by at
# least 90 % against page-cluster=3 while both arms swap in from zswap; the
# JSON validates; the store holds the run, its arms, every trial with its
# metrics and the settings snapshot; the host is exactly as before. Also:
# without a terminal and without --yes the probe refuses (exit 3), and a
# second probe is refused while one runs (exit 3).
. "$(dirname "$0")/lib.sh"

need_probe_host
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
wait_no_probe
db=$scratch/db
bg=""
cleanup_probe() {
	[ -n "$bg" ] && kill -9 "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1
}
cleanup_hooks="cleanup_probe"

settings() {
	echo "page-cluster $(cat $PC)"
	for f in enabled compressor max_pool_percent accept_threshold_percent shrinker_enabled; do
		[ -r "$ZS/$f" ] && echo "zswap.$f $(cat "$ZS/$f")"
	done
	echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
}
mine() {	# what probe $1 made that must be gone
	ls -d "$CG"/swaptune-probe-"$1"-* 2>/dev/null
	losetup -a 2>/dev/null | grep "swaptune-swap-$1\.img"
	grep "^/dev/loop" /proc/swaps | while read -r dev _; do
		losetup "$dev" 2>/dev/null | grep "swaptune-swap-$1\.img"
	done
}
for i in $(seq 1 20); do
	a=$(settings); sleep 0.3; b=$(settings)
	[ "$a" = "$b" ] && break
done
before=$(settings)
# Other tests on this host (t0006) flip page-cluster and zswap for moments:
# a setting counts as restored once it is back to its old value within 15 s
# (nobody else would restore a change of ours).
settled() {
	i=0
	while [ "$(settings)" != "$before" ] && [ $i -lt 50 ]; do sleep 0.3; i=$((i + 1)); done
	[ "$(settings)" = "$before" ]
}

# no terminal, no --yes: refused before anything changes
"$SWAPTUNE" probe --db "$db" --workload anon-seq </dev/null >"$scratch/out" 2>"$scratch/err"
rc=$?
[ "$rc" -eq 3 ] || fail "without --yes and a terminal: exit $rc, want 3"
grep -q "pass --yes" "$scratch/err" || fail "without --yes: message is $(cat "$scratch/err")"

wait_no_probe
"$SWAPTUNE" probe --db "$db" --yes --json --workload anon-seq --arms pc3,pc0 --baseline pc3 --reps 2 \
	--working-set 192M --memcg-limit 96M >"$scratch/run.json" 2>"$scratch/run.err" &
bg=$!
# while it runs, a second probe is refused
i=0
while [ -z "$(ls -d "$CG"/swaptune-probe-"$bg"-* 2>/dev/null)" ] && [ $i -lt 300 ] && kill -0 "$bg" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
"$SWAPTUNE" probe --db "$scratch/db2" --yes --workload anon-seq >"$scratch/out" 2>"$scratch/err2"
rc=$?
[ "$rc" -eq 3 ] || fail "second probe: exit $rc, want 3"
grep -q "another swaptune probe (pid $bg) is changing this host" "$scratch/err2" || fail "second probe: $(cat "$scratch/err2")"
wait "$bg"
rc=$?
p=$bg
bg=""
[ "$rc" -eq 0 ] || fail "probe: exit $rc: $(cat "$scratch/run.err")"
[ -s "$scratch/run.err" ] && fail "probe printed on stderr without a terminal: $(cat "$scratch/run.err")"
j=$scratch/run.json
"$check" "$SCHEMAS/probe.schema.json" "$j" >"$scratch/v.out" 2>&1 || fail "JSON does not validate: $(head -5 "$scratch/v.out")"

[ "$(jq -r .status "$j")" = ok ] || fail "status $(jq -r .status "$j")"
[ "$(jq -r .method.rounds "$j")" = 2 ] || fail "rounds $(jq -r .method.rounds "$j")"
[ "$(jq '.trials | length' "$j")" = 6 ] || fail "trials $(jq '.trials | length' "$j"), want 6"
[ "$(jq '[.trials[] | select(.warmup)] | length' "$j")" = 2 ] || fail "want one warm-up per arm"
[ "$(jq -r '.arms[0].name' "$j")" = pc3 ] && [ "$(jq -r '.arms[0].baseline' "$j")" = true ] || fail "pc3 should be the baseline"
# a busy host (fewer than 0.8 CPUs idle before the probe) is judged per CPU second
if [ "$(jq -r '.method.busy_host.per_cpu_second // false' "$j")" = true ]; then
	[ "$(jq -r .primary_metric.key "$j")" = ops_per_cpu_s ] || fail "primary metric on a busy host"
else
	[ "$(jq -r .primary_metric.key "$j")" = throughput_ops ] || fail "primary metric"
fi
ra3=$(jq '.arms[0].metrics.swap_ra.mean' "$j")
ra0=$(jq '.arms[1].metrics.swap_ra.mean' "$j")
hit3=$(jq '.arms[0].metrics.swap_ra_hit.mean' "$j")
zin0=$(jq '.arms[1].metrics.zswpin.mean' "$j")
zin3=$(jq '.arms[0].metrics.zswpin.mean' "$j")
echo "swap_ra pc3 $ra3 (hits $hit3), pc0 $ra0; zswpin pc3 $zin3, pc0 $zin0"
awk -v a="$ra3" -v b="$ra0" 'BEGIN { exit !(a > 1000 && b <= 0.1 * a) }' ||
	fail "pc0 should have >= 90 % fewer readahead pages than pc3 (pc3 $ra3, pc0 $ra0)"
awk -v a="$ra3" -v h="$hit3" 'BEGIN { exit !(h >= 0.9 * a) }' ||
	fail "a sequential sweep should hit its readahead (pc3 $ra3 pages, $hit3 hits)"
awk -v a="$zin3" -v b="$zin0" 'BEGIN { exit !(a > 10000 && b > 10000) }' ||
	fail "both arms should swap in from zswap (pc3 $zin3, pc0 $zin0)"
for k in 0 1; do
	for f in mean stddev ci95_low ci95_high; do
		[ "$(jq ".arms[$k].primary.$f | type" "$j")" = '"number"' ] || fail "arm $k primary.$f is not a number"
	done
	[ "$(jq ".arms[$k].completed" "$j")" = 2 ] || fail "arm $k: completed $(jq ".arms[$k].completed" "$j")"
done
[ "$(jq -r .host.swap.kind "$j")" = scratch-loop ] || [ "$(jq -r .host.swap.kind "$j")" = host ] || fail "swap kind"

# the store
run=$(jq .run_id "$j")
q() { sqlite3 "$db" "$1"; }
[ "$(q "SELECT kind || ' ' || status FROM runs WHERE id = $run")" = "probe ok" ] || fail "runs row: $(q "SELECT kind, status FROM runs WHERE id = $run")"
[ "$(q "SELECT count(*) FROM arms WHERE run_id = $run")" = 2 ] || fail "arms rows"
[ "$(q "SELECT count(*) FROM trials WHERE run_id = $run")" = 6 ] || fail "trials rows"
[ "$(q "SELECT count(*) FROM trials WHERE run_id = $run AND warmup = 1")" = 2 ] || fail "warm-up rows"
[ "$(q "SELECT count(*) FROM metrics m JOIN trials t ON t.id = m.trial_id WHERE t.run_id = $run AND m.key = 'swap_ra'")" = 6 ] ||
	fail "swap_ra metric rows"
[ "$(q "SELECT count(*) FROM snapshots WHERE run_id = $run AND reason = 'before probe'")" = 1 ] || fail "snapshot row"
[ "$(q "SELECT json_extract(settings, '\$.\"page-cluster\"') FROM arms WHERE run_id = $run AND name = 'pc0'")" = 0 ] ||
	fail "arm settings in the store"
[ "$(q "SELECT count(*) FROM changes WHERE run_id = $run AND state = 'pending'")" = 0 ] || fail "journal rows still pending"
sv=$(q "SELECT round(avg(value)) FROM metrics m JOIN trials t ON t.id = m.trial_id JOIN arms a ON a.id = t.arm_id WHERE t.run_id = $run AND a.name = 'pc3' AND t.warmup = 0 AND m.key = 'swap_ra'")
awk -v a="$sv" -v b="$ra3" 'BEGIN { exit !(a == int(b + 0.5) || a == int(b)) }' || fail "stored swap_ra mean $sv vs JSON $ra3"

[ -z "$(mine "$p")" ] || fail "left behind: $(mine "$p")"
settled || fail "settings not restored: $(settings) (before: $before)"
done_testing
