#!/bin/sh
# Chaos beyond the probe (live host, root): SIGKILL at CHAOS_KILLS (default
# 50) seeded random points (CHAOS_SEED, default 810) across
#   probe (short: --working-set 64M --memcg-limit 32M --reps 1 --no-warmup),
#   apply live and on a sysroot copy, each with and without --confirm-within,
#   rollback live and on the sysroot copy, sample --record, and import of
#   fixture exports (into a copy of the store).
# After each kill `swaptune repair` must restore the host exactly
# (page-cluster, vma_ra, zswap, no swap, no loop device, no swaptune-*
# cgroup: compared with the state before), the sysroot copy must be
# `diff -r` identical to before (no lost trailing newline, no temporary
# file left; after rolling back an apply that committed), and the store must pass
# PRAGMA integrity_check with no row of an earlier run lost. An apply (or
# rollback) that committed before the kill is atomic: the host then holds
# exactly its settings, and the test rolls it back before going on. A
# process that ended before its kill point is counted apart (not a kill).
# Then the scratch loop device is detached mid-probe (losetup -d): the probe
# ends (cleanly failing or completing, the kernel defers the detach while
# swap is on) and the host is restored. (A workload's memcg OOM is covered by
# the probe tests.) `make chaos` runs a long version (CHAOS_KILLS=300).
# Changes the host: run it under the host lock (the suite holds it), never
# taking the lock itself:  sh tests/hold-host-lock.sh sh tests/t0810-chaos-kill.sh
. "$(dirname "$0")/lib.sh"

need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v losetup >/dev/null 2>&1 || skip "needs losetup"
wait_no_probe
SEED=${CHAOS_SEED:-810}
KILLS=${CHAOS_KILLS:-50}
db=$scratch/db
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
# the sysroot copy as it was: after every repair it must be byte-identical again
cp -a "$root" "$scratch/root.pristine"
pid=""

live_state() {
	echo "page-cluster $(cat $PC)"
	echo "vma_ra $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
	for f in enabled compressor max_pool_percent accept_threshold_percent shrinker_enabled; do
		[ -r "$ZS/$f" ] && echo "zswap.$f $(cat "$ZS/$f")"
	done
	echo "swaps $(tail -n +2 /proc/swaps | wc -l)"
	losetup -a 2>/dev/null | sed 's/^/loop /'
	ls -d "$CG"/swaptune-* 2>/dev/null | sed 's/^/cgroup /'
}
root_state() {
	for f in "$root"/proc/sys/vm/page-cluster "$root"/sys/kernel/mm/swap/vma_ra_enabled \
		"$root"/sys/module/zswap/parameters/*; do
		echo "${f#$root/} $(cat "$f")"
	done
	(cd "$root" && find etc -type f 2>/dev/null | sort | while read -r f; do echo "file $f $(cksum <"$f")"; done)
}
# rows of runs up to id $2 in store $1 (runs, snapshots, journal, trials, samples)
rows() {
	sqlite3 "$1" "SELECT (SELECT count(*) FROM runs WHERE id <= $2) +
		(SELECT count(*) FROM snapshots WHERE run_id <= $2) +
		(SELECT count(*) FROM changes WHERE run_id <= $2) +
		(SELECT count(*) FROM trials WHERE run_id <= $2) +
		(SELECT count(*) FROM samples WHERE run_id <= $2)" 2>/dev/null || echo "?"
}
maxrun() { sqlite3 "$1" "SELECT coalesce(max(id), 0) FROM runs" 2>/dev/null || echo 0; }
integrity() {
	r=$(sqlite3 "$1" "PRAGMA integrity_check" 2>&1)
	[ "$r" = ok ] || fail "$2: integrity_check of $1: $r"
}
cleanup_chaos() {
	if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1
	"$SWAPTUNE" rollback --db "$db" --yes >/dev/null 2>&1
}
cleanup_hooks="cleanup_chaos"

# a store with history: one apply + rollback, a recording, the fleet imported
"$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes page-cluster=0 >/dev/null 2>&1 || fail "setup apply"
"$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null 2>&1 || fail "setup rollback"
"$SWAPTUNE" --db "$db" --sysroot "$root" sample --record --count 3 --interval 50ms >/dev/null 2>&1 || fail "setup sample"
"$SWAPTUNE" --db "$db" import "$FIXTURES"/fleet/host-0*.json >/dev/null 2>&1 || fail "setup import"
for i in $(seq 1 20); do
	a=$(live_state); sleep 0.2; b=$(live_state)
	[ "$a" = "$b" ] && break
done
live0=$(live_state)
root0=$(root_state)
echo "state before:"; echo "$live0" | sed "s/^/  /"
case $live0 in *"swaps 0"*) ;; *) skip "swap is on: the host is not in its test state" ;; esac
case $live0 in *"loop "*|*"cgroup "*) skip "a loop device or swaptune-* cgroup is left from elsewhere: the host is not in its test state" ;; esac

# the schedule: KILLS lines "op fraction" from the seed; the kill comes
# after that fraction of the operation's measured duration
ops="probe apply-live apply-live-cw apply-root apply-root-cw rollback-live rollback-root sample import"
awk -v seed="$SEED" -v n="$KILLS" -v ops="$ops" 'BEGIN {
	srand(seed); k = split(ops, o, " ")
	# the longest operation (probe) gets its kill points spread over its run
	for (i = 1; i <= n; i++) {
		op = o[int(rand() * k) + 1]
		printf "%s %.3f\n", op, rand() * 1.1

	}
}' >"$scratch/schedule"

killed=0 finished=0
run_op() {	# run_op OP: start it in the background (pid)
	case $1 in
	probe) "$SWAPTUNE" --db "$db" probe --yes --arms pc3,pc0 --workload anon-seq --working-set 64M \
			--memcg-limit 32M --reps 1 --no-warmup >/dev/null 2>"$scratch/op.err" & ;;
	apply-live) "$SWAPTUNE" --db "$db" apply --yes page-cluster=0 zswap.enabled=Y >/dev/null 2>"$scratch/op.err" & ;;
	apply-live-cw) "$SWAPTUNE" --db "$db" apply --yes --confirm-within 60s page-cluster=1 >/dev/null 2>"$scratch/op.err" & ;;
	apply-root) "$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes --persist page-cluster=0 >/dev/null 2>"$scratch/op.err" & ;;
	apply-root-cw) "$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes --confirm-within 60s page-cluster=2 >/dev/null 2>"$scratch/op.err" & ;;
	rollback-live) "$SWAPTUNE" --db "$db" rollback --yes >/dev/null 2>"$scratch/op.err" & ;;
	rollback-root) "$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null 2>"$scratch/op.err" & ;;
	sample) "$SWAPTUNE" --db "$db" sample --record --count 10 --interval 50ms >/dev/null 2>"$scratch/op.err" & ;;
	import) "$SWAPTUNE" --db "$scratch/imp.db" import "$FIXTURES"/fleet/host-0*.json >/dev/null 2>"$scratch/op.err" & ;;
	esac
	pid=$!
}
# a rollback needs something applied: apply first (not a kill point)
prepare() {
	case $1 in
	rollback-live) "$SWAPTUNE" --db "$db" apply --yes page-cluster=0 >/dev/null 2>&1 || fail "prepare $1" ;;
	rollback-root) "$SWAPTUNE" --db "$db" --sysroot "$root" apply --yes --persist page-cluster=0 >/dev/null 2>&1 ||
		fail "prepare $1" ;;
	import) rm -f "$scratch/imp.db" "$scratch/imp.db-wal" "$scratch/imp.db-shm"
		sqlite3 "$db" ".backup '$scratch/imp.db'" || fail "prepare import" ;;
	esac
}
# back to the state before: repair; a committed apply is rolled back
settle() {	# settle OP N
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>"$scratch/repair.err"
	"$SWAPTUNE" repair --db "$db" --sysroot "$root" >/dev/null 2>>"$scratch/repair.err"
	now=$(live_state); nowr=$(root_state)
	if [ "$now" != "$live0" ] || [ "$nowr" != "$root0" ]; then
		# atomic: either nothing or all of an apply; then it is ours to roll back
		case $1 in
		apply-live) want="page-cluster 0|zswap.enabled Y" ;;
		apply-live-cw) want="page-cluster 1" ;;
		apply-root|apply-root-cw|rollback-root) want=root ;;
		rollback-live) want="page-cluster 0" ;;
		*) want="" ;;
		esac
		if [ -z "$want" ]; then
			echo "$live0" >"$scratch/l0"; echo "$now" >"$scratch/l1"
			fail "kill $2 ($1): repair did not restore the host: $(diff "$scratch/l0" "$scratch/l1" | grep '^[<>]' | tr '\n' ' '); repair said: $(tr '\n' ' ' <"$scratch/repair.err")"
		elif [ "$want" != root ]; then
			[ "$nowr" = "$root0" ] || fail "kill $2 ($1): a live operation changed the sysroot copy"
			# all of the apply's settings, not some of them
			echo "$want" | tr '|' '\n' | while read -r w; do
				echo "$now" | grep -qx "$w" || echo "$w"
			done >"$scratch/missing"
			[ -s "$scratch/missing" ] &&
				fail "kill $2 ($1): host neither restored nor fully applied: missing $(tr '\n' ' ' <"$scratch/missing"); now $(echo "$now" | tr '\n' ' ')"
		fi
		if [ "$want" = root ]; then
			[ "$now" = "$live0" ] || fail "kill $2 ($1): a sysroot operation changed the live host"
		fi
		"$SWAPTUNE" --db "$db" rollback --yes >/dev/null 2>&1
		"$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null 2>&1
		"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1
		echo "$live0" >"$scratch/l0"; live_state >"$scratch/l1"
		cmp -s "$scratch/l0" "$scratch/l1" || fail "kill $2 ($1): live host not back after rollback: $(diff "$scratch/l0" "$scratch/l1" | grep '^[<>]' | tr '\n' ' ')"
		[ "$(root_state)" = "$root0" ] || fail "kill $2 ($1): sysroot copy not back after rollback"
	fi
	# byte for byte, trailing newlines, modes of the files' content and
	# temporary files included (issue 19, finding 10)
	diff -r "$root" "$scratch/root.pristine" >"$scratch/rdiff" 2>&1 ||
		fail "kill $2 ($1): the sysroot copy is not byte-identical to before: $(head -4 "$scratch/rdiff" | tr '\n' ' ')"
}

now_ms() { date +%s%3N; }
# each operation's duration, measured once unkilled
for op in $ops; do
	prepare "$op"
	a=$(now_ms)
	run_op "$op"
	wait "$pid" 2>/dev/null
	pid=""
	echo "$op $(( $(now_ms) - a ))" >>"$scratch/durations"
	settle "$op" 0
done
echo "durations (ms): $(tr '\n' ' ' <"$scratch/durations")"
n=0
t0=$(date +%s)
while read -r op frac; do
	n=$((n + 1))
	ms=$(awk -v f="$frac" -v op="$op" '$1 == op { printf "%d", f * $2 }' "$scratch/durations")
	prepare "$op"
	store=$db
	[ "$op" = import ] && store=$scratch/imp.db
	m=$(maxrun "$store")
	rows0=$(rows "$store" "$m")
	run_op "$op"
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# 137: SIGKILL ended it; anything else: it had exited before the kill point
	if [ $? -eq 137 ]; then
		killed=$((killed + 1))
	else
		finished=$((finished + 1))
	fi
	# a killed probe's trial dies with it (PR_SET_PDEATHSIG), a moment later:
	# until then it is alive and its journal rows are not yet orphans
	i=0
	while cat "$CG"/swaptune-probe-"$pid"-*/cgroup.procs 2>/dev/null | grep -q . && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	pid=""
	# a --confirm-within watchdog outlives its apply: it is the owner now; leave it
	settle "$op" "$n"
	integrity "$store" "kill $n ($op at ${ms} ms)"
	[ "$store" != "$db" ] && integrity "$db" "kill $n ($op at ${ms} ms)"
	rows1=$(rows "$store" "$m")
	[ "$rows1" != "?" ] && [ "$rows1" -ge "$rows0" ] ||
		fail "kill $n ($op at ${ms} ms): rows of earlier runs lost: $rows0 -> $rows1"
done <"$scratch/schedule"
secs=$(( $(date +%s) - t0 ))

# the scratch loop device detached under a running probe
"$SWAPTUNE" --db "$db" probe --yes --arms pc3,pc0 --workload anon-seq --working-set 64M \
	--memcg-limit 32M --reps 2 --no-warmup >/dev/null 2>"$scratch/detach.err" &
pid=$!
dev=""
i=0
while [ -z "$dev" ] && [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do
	dev=$(losetup -a 2>/dev/null | grep "swaptune-swap-$pid\.img" | cut -d: -f1)
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$dev" ]; then
	losetup -d "$dev" 2>"$scratch/losetup.err" || echo "losetup -d $dev: $(cat "$scratch/losetup.err")"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$pid" 2>/dev/null; then
		fail "the probe hung after its loop device was detached"
		kill -9 "$pid"
	fi
	wait "$pid"
	rc=$?
	[ $rc -le 1 ] || fail "probe with its loop device detached: exit $rc: $(tail -2 "$scratch/detach.err")"
	echo "loop device detached mid-probe: exit $rc $(tail -1 "$scratch/detach.err")"
else
	wait "$pid"
	echo "the probe made no scratch loop device (swap on?): detach case not run"
fi
pid=""
"$SWAPTUNE" repair --db "$db" >/dev/null 2>&1
[ "$(live_state)" = "$live0" ] || fail "after the detached loop device: host not restored: $(live_state | tr '\n' ' ')"
integrity "$db" "after the detach case"

echo "chaos: seed $SEED, $n kill points: $killed processes killed mid-run, $finished had finished; ${secs}s"
# kill points are drawn over each operation's measured length, so some land
# after it finished; at least 2 in 5 must hit a running process
[ $killed -ge $((n * 2 / 5)) ] || fail "only $killed of $n kill points hit a running process"
done_testing
