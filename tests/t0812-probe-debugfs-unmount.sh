#!/bin/sh
# debugfs unmounted under a running probe (live, root). The zswap pool
# counters live in debugfs (sys/kernel/debug/zswap): when it goes away
# mid-probe, the probe must finish with those counters missing from the
# trials that ran without it (never zeros presented as data) or stop with a
# clear message, and the host must be restored. Two cases:
#   A. debugfs mounted by someone else before the probe (left mounted by it);
#   B. debugfs not mounted: the probe mounts it itself (journaled) and must
#      cope with finding it already gone when it tears down.
# The debugfs mounts (and tracefs under them) are put back exactly as found
# on exit, also on failure. Changes the host: run it under the host lock,
# which the suite holds:
#   sh tests/hold-host-lock.sh sh tests/t0812-probe-debugfs-unmount.sh
. "$(dirname "$0")/lib.sh"

need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
DBG=/sys/kernel/debug
[ -d "$DBG" ] || skip "no $DBG in this kernel"
wait_no_probe
db=$scratch/db
pid=""

# the mounts at and under /sys/kernel/debug, in mount order
dbg_mounts() { awk -v d="$DBG" '$2 == d || index($2, d "/") == 1 { print $1, $2, $3, $4 }' /proc/mounts; }
dbg_umount() {	# innermost first
	dbg_mounts | awk '{ print $2 }' | sort -r | while read -r mp; do
		umount "$mp" 2>/dev/null || umount -l "$mp"
	done
}
m0=$(dbg_mounts)
restore_dbg() {
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && sleep 3 && kill -9 "$pid" 2>/dev/null
	[ "$(dbg_mounts)" = "$m0" ] && return 0
	dbg_umount
	[ -n "$m0" ] && echo "$m0" | while read -r src mp type opts; do
		mount -t "$type" -o "$opts" "$src" "$mp" || echo "cannot remount $type on $mp"
	done
	[ "$(dbg_mounts)" = "$m0" ] || echo "WARNING: $DBG mounts not as found: $(dbg_mounts | tr '\n' ' ')"
	"$SWAPTUNE" --db "$db" repair >/dev/null 2>&1
}
cleanup_hooks="restore_dbg"

live_state() {
	echo "page-cluster $(cat "$PC")"
	echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
	for f in enabled compressor max_pool_percent accept_threshold_percent shrinker_enabled; do
		[ -r "$ZS/$f" ] && echo "zswap.$f $(cat "$ZS/$f")"
	done
	echo "swaps $(tail -n +2 /proc/swaps | wc -l)"
	losetup -a 2>/dev/null | sed 's/^/loop /'
	ls -d "$CG"/swaptune-* 2>/dev/null | sed 's/^/cgroup /'
}
live0=$(live_state)
case $live0 in *"swaps 0"*) ;; *) skip "swap is on: the host is not in its test state" ;; esac
q() { sqlite3 "$db" "$1" 2>/dev/null; }
# debugfs-only counters: absent when debugfs was not there around the trial
ZS_KEYS="'zswap_pool_limit_hit','zswap_reject_compress_poor','zswap_written_back_pages'"

# run_case NAME: a short probe; debugfs is unmounted once its first trial is stored
run_case() {
	"$SWAPTUNE" --db "$db" probe --yes --arms pc3,pc0 --workload anon-seq --working-set 64M \
		--memcg-limit 32M --reps 2 --no-warmup --progress plain >"$scratch/$1.out" 2>"$scratch/$1.err" &
	pid=$!
	i=0 last=""
	while [ $i -lt 600 ] && kill -0 "$pid" 2>/dev/null; do
		last=$(q "SELECT max(t.id) FROM trials t JOIN runs r ON r.id = t.run_id
			  WHERE r.kind = 'probe' AND r.status = 'running'")
		[ -n "$last" ] && break
		sleep 0.1; i=$((i + 1))
	done
	[ -n "$last" ] || { fail "$1: the probe stored no trial: $(tail -n 3 "$scratch/$1.err")"; }
	dbg_umount
	[ -z "$(dbg_mounts)" ] || fail "$1: the test could not unmount $DBG"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$pid" 2>/dev/null; then
		fail "$1: the probe still runs 5 min after debugfs went"
		kill -INT "$pid"; sleep 5; kill -9 "$pid" 2>/dev/null
	fi
	wait "$pid"; rc=$?; pid=""
	run=$(q "SELECT max(id) FROM runs WHERE kind = 'probe'")
	echo "$1: exit $rc, run $run, $(tail -n 1 "$scratch/$1.err")"
	if [ $rc -ne 0 ]; then
		grep -qi "debugfs\|zswap" "$scratch/$1.err" ||
			fail "$1: the probe failed without saying why: $(tail -n 3 "$scratch/$1.err")"
	fi
	# trials stored after debugfs went carry no debugfs counter (no zeros as data)
	n=$(q "SELECT count(*) FROM metrics m JOIN trials t ON t.id = m.trial_id
	       WHERE t.run_id = $run AND t.id > ${last:-0} AND m.key IN ($ZS_KEYS)")
	[ "$n" = 0 ] || fail "$1: $n debugfs counters stored for trials that ran without debugfs: $(q "SELECT t.id, m.key, m.value FROM metrics m JOIN trials t ON t.id = m.trial_id WHERE t.run_id = $run AND t.id > ${last:-0} AND m.key IN ($ZS_KEYS)" | tr '\n' ' ')"
	# and the trial stored while debugfs was there has them: the check above can fail
	if [ "$1" = A ]; then
		n=$(q "SELECT count(*) FROM metrics WHERE trial_id = ${last:-0} AND key IN ($ZS_KEYS)")
		[ "$n" -gt 0 ] || fail "$1: the trial run with debugfs has no debugfs counter either"
	fi
	later=$(q "SELECT count(*) FROM trials WHERE run_id = $run AND id > ${last:-0}")
	echo "$1: $later trial(s) after debugfs went"
	"$SWAPTUNE" --db "$db" report --run "$run" >"$scratch/$1.report" 2>&1 ||
		fail "$1: report of the run: $(tail -n 2 "$scratch/$1.report")"
	"$SWAPTUNE" --db "$db" repair >/dev/null 2>"$scratch/$1.st" ||
		fail "$1: repair after: $(cat "$scratch/$1.st")"
	[ "$(live_state)" = "$live0" ] ||
		fail "$1: host not restored: $(live_state | tr '\n' ' ')"
	[ "$(q "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] ||
		fail "$1: journal rows still pending"
}

# A: debugfs was mounted before the probe
if [ -n "$m0" ]; then
	run_case A
	restore_dbg
else
	echo "case A skipped: debugfs is not mounted on this host"
fi
# B: the probe mounts debugfs itself, and finds it gone when it ends
dbg_umount
[ -z "$(dbg_mounts)" ] || skip "cannot unmount $DBG here"
run_case B
[ -z "$(dbg_mounts)" ] || fail "B: the probe left debugfs mounted: $(dbg_mounts | tr '\n' ' ')"
restore_dbg
[ "$(dbg_mounts)" = "$m0" ] || fail "$DBG mounts not as found: $(dbg_mounts | tr '\n' ' ')"
done_testing
