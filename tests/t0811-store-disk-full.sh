#!/bin/sh
# Disk full under the store (root: a small tmpfs is mounted under a mktemp
# dir and unmounted on exit, also on failure). The store, its WAL, and a
# sysroot copy live on it, and it is filled up
#   - while `sample --record` runs: a clear error, a non-zero exit, the
#     ticks committed before kept, and the run not left "running" (nor
#     that of a recording killed with SIGKILL: `swaptune repair` ends it);
#   - before `apply --persist` on the sysroot copy, leaving 0 to 128 KiB:
#     the apply succeeds whole, or fails with a clear message and the tree
#     unchanged, nothing pending in the journal once space is back and
#     `swaptune repair` ran;
#   - before `import`, likewise: each file imported whole or not at all;
#   - while a short live probe runs (only when this host can probe; live
#     probes run under the host lock, which the suite holds): the probe stops
#     with a clear message and the host is restored.
# While the disk is full, reading commands (status, recommend, history,
# fleet-report) still read the store. After space is freed every command
# works again and PRAGMA integrity_check is ok. Run by hand under the host lock:
#   sh tests/hold-host-lock.sh sh tests/t0811-store-disk-full.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs for the store"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
fs=$(mktemp -d /tmp/swaptune-full.XXXXXX)
umount_fs() {
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	umount "$fs" 2>/dev/null || umount -l "$fs" 2>/dev/null
	rmdir "$fs" 2>/dev/null
}
spid=""
cleanup_hooks="umount_fs"
mount -t tmpfs -o size=3m,mode=0700 swaptune-full "$fs" || skip "cannot mount a tmpfs"

db=$fs/db
root=$fs/root
fill() { dd if=/dev/zero of="$fs/filler" bs=4k >/dev/null 2>&1; sync; }
fill_leave() {	# fill_leave BYTES: fill up, then free BYTES again
	fill
	truncate -s "-$1" "$fs/filler"
}
unfill() { rm -f "$fs/filler"; }
integrity() {
	r=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
	[ "$r" = ok ] || fail "$1: integrity_check: $r"
}
q() { sqlite3 "$db" "$1" 2>&1; }
root_state() {
	for f in "$root"/proc/sys/vm/page-cluster "$root"/sys/kernel/mm/swap/vma_ra_enabled; do
		echo "${f#$root/} $(cat "$f")"
	done
	(cd "$root" && find etc -type f 2>/dev/null | sort | while read -r f; do echo "file $f $(cksum <"$f")"; done)
}
clear_msg() {	# clear_msg FILE WHAT: stderr says the disk is full, on one line
	grep -qiE "disk is full|no space" "$1" || fail "$2: no clear disk-full message: $(cat "$1")"
}

# ---- a store with history (on the tmpfs, space to spare) ----
cp -a "$FIXTURES/vm-v1/." "$root/" 2>/dev/null
rm -rf "$root/etc" && mkdir -p "$root/etc"
"$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes page-cluster=1 >/dev/null 2>&1 || fail "setup apply"
"$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null 2>&1 || fail "setup rollback"
"$SWAPTUNE" --db "$db" --sysroot "$root" sample --record --count 3 --interval 20ms >/dev/null 2>&1 ||
	fail "setup sample"
sqlite3 "$db" ".backup '$scratch/base.db'" || fail "backup of the base store"
reset_store() {
	unfill
	rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
	cp "$scratch/base.db" "$db"
	rm -rf "$root"; mkdir -p "$root"
	cp -a "$FIXTURES/vm-v1/." "$root/"
	rm -rf "$root/etc" && mkdir -p "$root/etc"
}

# ---- 1. sample --record: the disk fills while it records ----
reset_store
"$SWAPTUNE" --db "$db" --sysroot "$root" sample --record --interval 20ms --count 100000 \
	>"$scratch/s.out" 2>"$scratch/s.err" &
spid=$!
run=""; seen=0; i=0
while [ $i -lt 100 ]; do
	run=$(q "SELECT max(id) FROM runs WHERE kind = 'sample' AND status = 'running'")
	[ -n "$run" ] && seen=$(q "SELECT count(*) FROM samples WHERE run_id = $run")
	[ "${seen:-0}" -ge 5 ] 2>/dev/null && break
	sleep 0.1; i=$((i + 1))
done
[ "${seen:-0}" -ge 5 ] 2>/dev/null || fail "sample --record did not record 5 ticks: $(cat "$scratch/s.err")"
fill
i=0
while kill -0 "$spid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$spid" 2>/dev/null; then
	fail "sample --record still runs 30 s after the disk filled"
	kill -9 "$spid"
fi
wait "$spid"; rc=$?; spid=""
[ $rc -ne 0 ] || fail "sample --record on a full disk: exit 0"
[ $rc -eq 1 ] || fail "sample --record on a full disk: exit $rc, want 1 (runtime failure)"
clear_msg "$scratch/s.err" "sample --record"
[ "$(wc -l <"$scratch/s.err")" -le 3 ] || fail "sample --record: more than a few lines on stderr: $(cat "$scratch/s.err")"
unfill
"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>"$scratch/st.err" ||
	fail "repair after space came back: exit $?: $(cat "$scratch/st.err")"
kept=$(q "SELECT count(*) FROM samples WHERE run_id = $run")
[ "$kept" -ge "$seen" ] 2>/dev/null || fail "sample --record: $seen ticks were committed, $kept kept"
st=$(q "SELECT status FROM runs WHERE id = $run")
[ "$st" != running ] || fail "sample --record: run $run still 'running' after it ended on a full disk"
integrity "sample --record"
"$SWAPTUNE" --db "$db" --sysroot "$root" sample --record --count 2 --interval 20ms >/dev/null 2>"$scratch/s2.err" ||
	fail "sample --record after space came back: exit $?: $(cat "$scratch/s2.err")"

# the same without a full disk: a recording killed outright is not left "running" either
"$SWAPTUNE" --db "$db" --sysroot "$root" sample --record --interval 20ms --count 100000 >/dev/null 2>&1 &
spid=$!
i=0
while [ $i -lt 100 ]; do
	run=$(q "SELECT max(id) FROM runs WHERE kind = 'sample' AND status = 'running'")
	[ -n "$run" ] && [ "$(q "SELECT count(*) FROM samples WHERE run_id = $run")" -ge 2 ] && break
	sleep 0.1; i=$((i + 1))
done
kill -9 "$spid"; wait "$spid" 2>/dev/null; spid=""
"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>&1
[ "$(q "SELECT status FROM runs WHERE id = ${run:-0}")" = interrupted ] ||
	fail "sample --record killed: run ${run:-?} is '$(q "SELECT status FROM runs WHERE id = ${run:-0}")', want interrupted"

# with the disk full, reading commands still read the store; writing ones say why they cannot
reset_store
fill
for c in status recommend fleet-report doctor "history --all"; do
	# shellcheck disable=SC2086
	"$SWAPTUNE" --db "$db" --sysroot "$root" $c >"$scratch/rd.out" 2>"$scratch/rd.err"
	rc=$?
	[ $rc -eq 0 ] || [ "$c" = doctor ] || fail "$c on a full disk: exit $rc: $(cat "$scratch/rd.err")"
done
"$SWAPTUNE" --db "$db" --sysroot "$root" history --all >"$scratch/rd.out" 2>&1
grep -q sample "$scratch/rd.out" || fail "history --all on a full disk does not show the store's recordings: $(cat "$scratch/rd.out")"
"$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes page-cluster=2 >/dev/null 2>"$scratch/rd.err"
[ $? -eq 1 ] || fail "apply on a full disk: want exit 1"
clear_msg "$scratch/rd.err" "apply on a full disk (store opened read-only)"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 3 ] || fail "apply on a full disk changed page-cluster"
unfill

# ---- 2. apply --persist on the sysroot copy, the disk full at several points ----
applied=0 refused=0
for leave in 0 8192 32768 65536 73728 81920 90112 98304 106496 114688 118784 122880 126976 131072 135168 139264 143360 147456 163840; do
	reset_store
	s0=$(root_state)
	fill_leave $leave
	"$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes --persist page-cluster=0 vma_ra_enabled=false \
		>"$scratch/a.out" 2>"$scratch/a.err"
	rc=$?
	s1=$(root_state)
	if [ $rc -eq 0 ]; then
		applied=$((applied + 1))
		echo "$s1" | grep -qx "proc/sys/vm/page-cluster 0" ||
			fail "apply (free $leave): exit 0 but page-cluster not 0"
	else
		refused=$((refused + 1))
		[ $rc -eq 1 ] || fail "apply (free $leave): exit $rc, want 1"
		clear_msg "$scratch/a.err" "apply (free $leave)"
		echo "  apply, $leave bytes free: $(head -c 300 "$scratch/a.err")"
		[ "$s1" = "$s0" ] || fail "apply (free $leave) failed but left the tree changed: $(echo "$s1" | tr '\n' ' ')"
	fi
	unfill
	"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>"$scratch/st.err" ||
		fail "apply (free $leave): repair after: exit $?: $(cat "$scratch/st.err")"
	pend=$(q "SELECT count(*) FROM changes WHERE state = 'pending'")
	[ "$pend" = 0 ] || fail "apply (free $leave): $pend journal rows still pending after repair"
	integrity "apply (free $leave)"
	if [ $rc -eq 0 ]; then
		"$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null 2>"$scratch/r.err" ||
			fail "apply (free $leave): rollback: $(cat "$scratch/r.err")"
	else
		"$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes --persist page-cluster=0 >/dev/null 2>"$scratch/r.err" ||
			fail "apply (free $leave): apply after space came back: $(cat "$scratch/r.err")"
		"$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null 2>"$scratch/r.err" ||
			fail "apply (free $leave): rollback: $(cat "$scratch/r.err")"
	fi
	[ "$(root_state)" = "$s0" ] || fail "apply (free $leave): the tree not back after rollback"
done
echo "apply on a full disk: $applied applied whole, $refused refused"
[ $refused -gt 0 ] || fail "apply never met a full disk: the test fills too little"

# ---- 3. import, the disk full at several points ----
sqlite3 "$scratch/base.db" "SELECT count(*) FROM runs" >"$scratch/runs0"
for leave in 0 4096 16384 65536 262144; do
	reset_store
	fill_leave $leave
	"$SWAPTUNE" --db "$db" import "$FIXTURES"/fleet/host-0*.json >"$scratch/i.out" 2>"$scratch/i.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		[ $rc -eq 1 ] || fail "import (free $leave): exit $rc, want 1"
		clear_msg "$scratch/i.err" "import (free $leave)"
	fi
	unfill
	integrity "import (free $leave)"
	"$SWAPTUNE" --db "$db" import "$FIXTURES"/fleet/host-0*.json >"$scratch/i2.out" 2>"$scratch/i2.err" ||
		fail "import (free $leave) after space came back: exit $?: $(cat "$scratch/i2.err")"
	n=$(q "SELECT count(*) FROM runs")
	[ -z "$want_runs" ] && want_runs=$n
	[ "$n" = "$want_runs" ] || fail "import (free $leave): $n runs after the second import, want $want_runs"
	integrity "import (free $leave), again"
done

# ---- 4. a short live probe, the disk filling under it ----
probe_part() {
	[ -e /dev/loop-control ] || { echo "probe part skipped: no loop devices"; return; }
	[ -w /sys/module/zswap/parameters/enabled ] || { echo "probe part skipped: no zswap"; return; }
	[ -d /sys/fs/cgroup/memory ] || grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
		{ echo "probe part skipped: no memory cgroup controller"; return; }
	[ "$(tail -n +2 /proc/swaps | wc -l)" = 0 ] || { echo "probe part skipped: swap is on"; return; }
	live() {
		echo "page-cluster $(cat /proc/sys/vm/page-cluster)"
		echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
		echo "zswap $(cat /sys/module/zswap/parameters/enabled)"
		echo "swaps $(tail -n +2 /proc/swaps | wc -l)"
		losetup -a 2>/dev/null | sed 's/^/loop /'
		ls -d /sys/fs/cgroup/memory/swaptune-* /sys/fs/cgroup/swaptune-* 2>/dev/null
	}
	reset_store
	l0=$(live)
	"$SWAPTUNE" --db "$db" probe --yes --arms pc3,pc0 --workload anon-seq --working-set 64M \
		--memcg-limit 32M --reps 1 --no-warmup >"$scratch/p.out" 2>"$scratch/p.err" &
	spid=$!
	i=0
	while [ $i -lt 300 ]; do
		[ "$(q "SELECT count(*) FROM trials t JOIN runs r ON r.id = t.run_id WHERE r.kind = 'probe' AND r.status = 'running'")" -ge 1 ] 2>/dev/null && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1; i=$((i + 1))
	done
	fill
	i=0
	while kill -0 "$spid" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$spid" 2>/dev/null; then
		fail "probe still runs 2 min after the disk filled"
		kill -INT "$spid"; sleep 5; kill -9 "$spid" 2>/dev/null
	fi
	wait "$spid"; rc=$?; spid=""
	if [ $rc -ne 0 ]; then
		clear_msg "$scratch/p.err" "probe"
	fi
	[ "$(live)" = "$l0" ] || fail "probe on a full disk: the host is not restored: $(live | tr '\n' ' ')"
	unfill
	"$SWAPTUNE" --db "$db" repair >/dev/null 2>"$scratch/st.err" ||
		fail "probe: repair after space came back: exit $?: $(cat "$scratch/st.err")"
	[ "$(live)" = "$l0" ] || fail "probe on a full disk: the host is not restored after repair: $(live | tr '\n' ' ')"
	integrity "probe"
	[ "$(q "SELECT count(*) FROM runs WHERE status = 'running'")" = 0 ] ||
		fail "probe on a full disk: a run still 'running'"
	echo "probe on a full disk: exit $rc: $(tail -n 1 "$scratch/p.err")"
}
probe_part
done_testing
