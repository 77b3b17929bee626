#!/bin/sh
# A probe stopped mid-trial leaves nothing behind (live host, root): SIGINT
# and SIGTERM make it kill the trial, remove the trial's cgroup, the scratch
# swap (swapoff, loop device, backing file), unmount debugfs if it mounted
# it and restore page-cluster and zswap, then exit 130 / 143 with the partial
# result; after kill -9 the orphaned trial dies with its parent and the next
# swaptune command that changes the host (repair) repairs everything from the journal and says so.
. "$(dirname "$0")/lib.sh"

need_probe_host
wait_no_probe
db=$scratch/db
pid=""

settings() {
	echo "page-cluster $(cat $PC)"
	for f in enabled compressor max_pool_percent accept_threshold_percent shrinker_enabled; do
		[ -r "$ZS/$f" ] && echo "zswap.$f $(cat "$ZS/$f")"
	done
	echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
}
# what probe $1 left: its cgroups, loop devices, swaps and scratch files
leftovers() {
	ls -d "$CG"/swaptune-probe-"$1"-* 2>/dev/null
	losetup -a 2>/dev/null | grep "swaptune-swap-$1\.img"
	ls /var/lib/swaptune/swaptune-swap-"$1".img /var/tmp/swaptune-swap-"$1".img 2>/dev/null
}
debugfs_mounted() { grep -q ' /sys/kernel/debug debugfs ' /proc/mounts; }
cleanup_probe() {
	if [ -n "$pid" ]; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1	# repair whatever is left
}
cleanup_hooks="cleanup_probe"

# (cgroup files report size 0: read them instead of test -s)
# other tests may toggle these for a moment: wait until two reads agree
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
dbg_before=no
debugfs_mounted && dbg_before=yes

# start_probe ARGS...: run it in the background, wait until a trial runs in its cgroup
start_probe() {
	for try in 1 2 3 4 5; do
		"$SWAPTUNE" probe --db "$db" --yes --json --workload anon-seq --working-set 256M \
			--memcg-limit 128M "$@" >"$scratch/out.json" 2>"$scratch/err" &
		pid=$!
		i=0
		while :; do
			for d in "$CG"/swaptune-probe-"$pid"-*; do
				[ -n "$(cat "$d/cgroup.procs" 2>/dev/null)" ] && return 0
			done
			if ! kill -0 "$pid" 2>/dev/null; then
				wait "$pid"
				pid=""
				grep -q "another swaptune probe is running" "$scratch/err" || break
				wait_no_probe
				continue 2
			fi
			i=$((i + 1))
			[ $i -gt 300 ] && break
			sleep 0.1
		done
		fail "probe did not start a trial: $(cat "$scratch/err")"
		return 1
	done
	fail "another probe kept the lock"
	return 1
}

# 1, 2: SIGINT and SIGTERM
for sig in INT TERM; do
	want=130
	[ $sig = TERM ] && want=143
	start_probe --arms pc3,pc0 --reps 5 || continue
	sleep 0.5
	[ -n "$(leftovers "$pid")" ] || fail "SIG$sig: no scratch swap or cgroup while the probe runs"
	t0=$(date +%s)
	kill -$sig "$pid"
	wait "$pid"
	rc=$?
	p=$pid
	pid=""
	[ "$rc" -eq $want ] || fail "SIG$sig: exit $rc, want $want ($(cat "$scratch/err"))"
	[ $(( $(date +%s) - t0 )) -le 20 ] || fail "SIG$sig: took more than 20 s to stop"
	[ -z "$(leftovers "$p")" ] || fail "SIG$sig: left behind: $(leftovers "$p")"
	settled || fail "SIG$sig: settings not restored: $(settings)"
	if [ $dbg_before = no ] && debugfs_mounted; then fail "SIG$sig: debugfs left mounted"; fi
	[ "$(jq -r .status "$scratch/out.json")" = interrupted ] || fail "SIG$sig: status is not interrupted"
	[ "$(jq -r '.restore.complete' "$scratch/out.json")" = true ] || fail "SIG$sig: restore incomplete"
	grep -q "stopped by signal" "$scratch/err" || fail "SIG$sig: no message on stderr"
	n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE kind = 'probe' AND status = 'interrupted'" 2>/dev/null ||
		echo "?")
	echo "SIG$sig: exit $rc, interrupted runs in the store: $n"
done

# 3: kill -9 during a pc0 trial (page-cluster 0 on the host), then any command repairs
start_probe --arms pc0 --no-warmup --reps 5 || { done_testing; }
sleep 0.5
[ "$(cat $PC)" = 0 ] || fail "kill -9: page-cluster is $(cat $PC) during a pc0 trial"
kill -9 "$pid"
wait "$pid" 2>/dev/null
p=$pid
pid=""
sleep 0.5
left=$(leftovers "$p")
[ -n "$left" ] || fail "kill -9: nothing left to repair (the test did not catch a trial)"
echo "after kill -9: $(echo "$left" | tr '\n' ' ')"
# the orphaned trial died with its parent (PR_SET_PDEATHSIG)
for d in "$CG"/swaptune-probe-"$p"-*; do
	[ -d "$d" ] || continue
	i=0
	while [ -n "$(cat "$d/cgroup.procs" 2>/dev/null)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -n "$(cat "$d/cgroup.procs" 2>/dev/null)" ] && fail "kill -9: the trial process outlived the probe"
done
"$SWAPTUNE" repair --db "$db" >/dev/null 2>"$scratch/repair.err" || fail "repair after kill -9: exit $?"
cat "$scratch/repair.err"
# every journal row the killed probe left is undone, each reported
q() { sqlite3 "$db" "$1"; }
[ "$(q "SELECT count(*) FROM changes WHERE pid = $p AND state = 'pending'")" = 0 ] ||
	fail "journal rows of pid $p still pending: $(q "SELECT kind, name FROM changes WHERE pid = $p AND state = 'pending'")"
if [ "$(q "SELECT count(*) FROM changes WHERE pid = $p AND name = 'page-cluster' AND new_value = '0'")" -gt 0 ]; then
	grep -q "restored page-cluster 0 -> " "$scratch/repair.err" || fail "repair did not report page-cluster"
fi
grep -q "removed cgroup swaptune-probe-$p-" "$scratch/repair.err" || fail "repair did not report the cgroup"
# (with swap already on, e.g. from another test, the probe makes no scratch swap)
if [ "$(q "SELECT count(*) FROM changes WHERE pid = $p AND kind = 'scratch-loop'")" -gt 0 ]; then
	grep -q "removed scratch-loop /dev/loop" "$scratch/repair.err" || fail "repair did not report the loop device"
	grep -q "removed scratch-file .*swaptune-swap-$p.img" "$scratch/repair.err" || fail "repair did not report the file"
fi
[ -z "$(leftovers "$p")" ] || fail "kill -9: still left after repair: $(leftovers "$p")"
settled || fail "kill -9: settings not restored: $(settings)"
if [ $dbg_before = no ] && debugfs_mounted; then fail "kill -9: debugfs left mounted"; fi
# a second command finds nothing more to do
"$SWAPTUNE" repair --db "$db" >"$scratch/repair2.out" 2>"$scratch/repair2.err"
[ -s "$scratch/repair2.err" ] && fail "second repair reported: $(cat "$scratch/repair2.err")"
grep -qx "nothing to repair" "$scratch/repair2.out" || fail "second repair: $(cat "$scratch/repair2.out")"
done_testing
