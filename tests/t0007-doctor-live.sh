#!/bin/sh
# doctor on the running host: exit 0 as root when the required checks pass,
# exit 3 with a failed root check otherwise; it changes nothing (settings,
# cgroups) and its --json agrees with its table.
. "$(dirname "$0")/lib.sh"

[ -r /proc/sys/kernel/osrelease ] || skip "no /proc on this machine"
snap() {
	cat /proc/sys/vm/page-cluster /sys/kernel/mm/swap/vma_ra_enabled \
		/sys/module/zswap/parameters/* 2>/dev/null
	find /sys/fs/cgroup -maxdepth 3 -name 'swaptune*' 2>/dev/null | sort
	cat /proc/swaps
}
before=$(snap)

"$SWAPTUNE" doctor --db "$scratch/db" >"$scratch/out" 2>"$scratch/err"
rc=$?
unfold_in_place "$scratch/out"
"$SWAPTUNE" doctor --json --db "$scratch/db" >"$scratch/json" 2>>"$scratch/err"
jrc=$?
[ "$rc" = "$jrc" ] || fail "doctor exits $rc, doctor --json exits $jrc"
[ -s "$scratch/err" ] && fail "doctor wrote to stderr: $(cat "$scratch/err")"
row() { awk -v n="$1" '$1 == n { print $2; exit }' "$scratch/out"; }

if [ "$(id -u)" -eq 0 ]; then
	[ "$(row root)" = ok ] || fail "root check is '$(row root)' as root"
	required_failed=$(sed -n 's/^required checks failed: //p' "$scratch/out")
	if [ -z "$required_failed" ]; then
		[ "$rc" -eq 0 ] || fail "no required check failed, but exit $rc"
		grep -q '^probing can work: ' "$scratch/out" || fail "no verdict line"
		grep -q '"probe_ready":[[:space:]]*true' "$scratch/json" || fail "json: probe_ready should be true"
	else
		[ "$rc" -eq 3 ] || fail "required checks failed ($required_failed), but exit $rc"
	fi
	# what this machine is known to have (skip the comparison elsewhere)
	if grep -q ' /sys/fs/cgroup/memory cgroup ' /proc/mounts; then
		[ "$(row memory-cgroup)" = ok ] || fail "memory-cgroup is '$(row memory-cgroup)'"
	fi
	if [ -d /sys/module/zswap/parameters ]; then
		[ "$(row zswap)" = ok ] || fail "zswap is '$(row zswap)'"
	fi
	if ! grep -q ' debugfs ' /proc/mounts; then
		[ "$(row zswap-debugfs)" = warn ] || fail "debugfs not mounted, but zswap-debugfs is '$(row zswap-debugfs)'"
	fi
else
	[ "$rc" -eq 3 ] || fail "not root: doctor should exit 3, got $rc"
	[ "$(row root)" = fail ] || fail "not root: root check is '$(row root)'"
	grep -q '"probe_ready":[[:space:]]*false' "$scratch/json" || fail "json: probe_ready should be false"
fi
grep -q "^native-bypass  *skipped  a behavioural check: run swaptune doctor --behaviour (root, ~2 s, changes settings briefly)\$" "$scratch/out" ||
	fail "native-bypass row missing"
# --behaviour: the behavioural native-bypass check (root only; it swaps for real)
if [ "$(id -u)" -eq 0 ] && [ -w /sys/module/zswap/parameters/enabled ] && [ -e /dev/loop-control ]; then
	command -v flock >/dev/null 2>&1 && flock -w 600 /run/swaptune/probe.lock true
	pc_before=$(cat /proc/sys/vm/page-cluster)
	zs_before=$(cat /sys/module/zswap/parameters/enabled)
	"$SWAPTUNE" doctor --behaviour --db "$scratch/db" >"$scratch/beh" 2>"$scratch/beh.err"
	unfold_in_place "$scratch/beh"
	grep -Eq "^native-bypass +ok +(native|not in this kernel, the bypass arm is emulated): .*swap_ra" "$scratch/beh" ||
		fail "doctor --behaviour: no conclusive native-bypass row: $(grep native-bypass "$scratch/beh") $(cat "$scratch/beh.err")"
	# no native bypass: the same sweep with page-cluster 0 proves page-cluster moves readahead
	grep -Eq "^cluster-effect +ok +(not needed: the kernel skips readahead|page-cluster governs swap readahead here: the same sequential swap-in raised swap_ra by [0-9]+ with page-cluster=3 and by [0-9]+ with page-cluster=0)" "$scratch/beh" ||
		fail "doctor --behaviour: page-cluster's effect not proven: $(grep cluster-effect "$scratch/beh")"
	[ "$(cat /proc/sys/vm/page-cluster)" = "$pc_before" ] || fail "doctor --behaviour left page-cluster changed"
	[ "$(cat /sys/module/zswap/parameters/enabled)" = "$zs_before" ] || fail "doctor --behaviour left zswap changed"
fi
"$SWAPTUNE" doctor --behaviour --sysroot "$TOP/tests/fixtures/vm-v1" --db "$scratch/db" >/dev/null 2>"$scratch/beh2.err"
[ $? -eq 3 ] || fail "doctor --behaviour on a captured tree should exit 3"
grep -q "needs root on the live host" "$scratch/beh2.err" || fail "doctor --behaviour on a fixture: $(cat "$scratch/beh2.err")"

# others may be probing this host right now: only judge a quiet host
if [ "$(snap)" != "$before" ]; then
	sleep 1
	after=$(snap)
	sleep 1
	if [ "$(snap)" = "$after" ] && ! pgrep -x swaptune >/dev/null 2>&1; then
		fail "doctor changed the host"
	else
		echo "note: the host changed during the test, but it is busy (another swaptune or probe): not judged"
	fi
fi
done_testing
