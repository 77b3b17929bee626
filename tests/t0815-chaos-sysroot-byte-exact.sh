#!/bin/sh
# After a kill, the next command's repair puts a sysroot copy back byte for
# byte (issue 19, finding 10: restored files lost their trailing newline,
# and a kill could leave ".swaptune-write.*" in a kernel-parameter
# directory). No live host: every operation runs on a copy of vm-v1.
#
# Operations: apply of all seven settings, apply --persist (boot-time files
# and the directories above them), and rollback of such an apply. Kill
# points:
#  - every step of their writes (tests/helpers/preload/race-shim.c,
#    RACE_MODE=kill: SIGKILL right after a temporary file was created, or
#    right before one is renamed into place), for each operation;
#  - then random points in time (CHAOS_SEED, default 815) until there are
#    at least CHAOS_KILLS (default 60) in all.
# After each kill, `swaptune repair` repairs; then the tree must be `diff -r`
# identical to the state before the operation, or (the operation committed
# before the kill) to the state it leaves when it completes; no temporary
# file of swaptune may be left anywhere in the tree; a committed apply is
# rolled back and the tree is again identical to the start.
. "$(dirname "$0")/lib.sh"

shim=$BUILD/helpers/race-shim.so
[ -f "$shim" ] || { echo "FAIL: $shim not built (make check builds it)"; exit 1; }
# an ASan build wants its runtime first among preloaded libraries
asan=$(ldd "$SWAPTUNE" 2>/dev/null | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && shim="$asan $shim"
SEED=${CHAOS_SEED:-815}
KILLS=${CHAOS_KILLS:-60}
root=$scratch/root
db=$scratch/db
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
cp -a "$root" "$scratch/pristine"
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
ops="apply persist rollback"
op_args() {
	case $1 in
	apply) echo "apply --yes page-cluster=0 vma_ra_enabled=false zswap.enabled=Y zswap.compressor=deflate zswap.max_pool_percent=33 zswap.accept_threshold_percent=77 zswap.shrinker_enabled=Y" ;;
	persist) echo "apply --yes --persist page-cluster=1 vma_ra_enabled=false" ;;
	rollback) echo "rollback --yes" ;;
	esac
}
same_tree() { diff -r "$1" "$2" >"$scratch/diff" 2>&1; }
leftovers() { (cd "$root" && find . -name '.swaptune-write*' -o -name '*.swaptune-new*'); }
# the state before (start) and after (done) each operation, made unkilled
mkdir -p "$scratch/ref"
for op in $ops; do
	if [ "$op" = rollback ]; then
		# shellcheck disable=SC2046
		st $(op_args persist) >/dev/null 2>&1 || fail "prepare rollback"
	fi
	rm -rf "$scratch/ref/$op.start" "$scratch/ref/$op.done"
	cp -a "$root" "$scratch/ref/$op.start"
	a=$(date +%s%3N)
	# shellcheck disable=SC2046
	RACE_MODE=kill RACE_STEPS=$scratch/ref/$op.steps LD_PRELOAD="$shim" st $(op_args "$op") >/dev/null 2>"$scratch/err" ||
		fail "$op unkilled: $(cat "$scratch/err")"
	echo "$op $(( $(date +%s%3N) - a ))" >>"$scratch/durations"
	cp -a "$root" "$scratch/ref/$op.done"
	st rollback --yes >/dev/null 2>&1
	[ "$op" = rollback ] || { same_tree "$root" "$scratch/pristine" || fail "$op then rollback: the tree is not as it was: $(head -5 "$scratch/diff")"; }
	rm -rf "$root"; cp -a "$scratch/pristine" "$root"
	rm -f "$db" "$db-wal" "$db-shm"
done
echo "steps: $(for op in $ops; do printf '%s %s ' "$op" "$(cat "$scratch/ref/$op.steps" 2>/dev/null)"; done)"
echo "durations (ms): $(tr '\n' ' ' <"$scratch/durations")"

n=0 killed=0 finished=0
# kill_one OP [STEP]: one kill point of OP, at write step STEP or at a random time
kill_one() {
	op=$1
	n=$((n + 1))
	rm -rf "$root"; cp -a "$scratch/pristine" "$root"
	rm -f "$db" "$db-wal" "$db-shm"
	if [ "$op" = rollback ]; then
		# shellcheck disable=SC2046
		st $(op_args persist) >/dev/null 2>&1 || fail "kill $n: prepare rollback"
	fi
	same_tree "$root" "$scratch/ref/$op.start" || fail "kill $n ($op): the start state is not the reference"
	if [ -n "$2" ]; then
		# shellcheck disable=SC2046
		RACE_MODE=kill RACE_KILL_AT=$2 LD_PRELOAD="$shim" "$SWAPTUNE" --db "$db" --sysroot "$root" $(op_args "$op") >/dev/null 2>&1 &
		wait $!	# in the background: the shell says nothing about the kill
		rc=$?
		where="step $2"
	else
		ms=$(awk -v f="$3" -v op="$op" '$1 == op { printf "%d", f * $2 }' "$scratch/durations")
		# shellcheck disable=SC2046
		# the binary itself, not the st function: $! must be swaptune, not a subshell
		# that a kill -9 would leave it running behind
		"$SWAPTUNE" --db "$db" --sysroot "$root" $(op_args "$op") >/dev/null 2>&1 &
		pid=$!
		sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
		kill -9 "$pid" 2>/dev/null
		wait "$pid"
		rc=$?
		where="${ms} ms"
	fi
	if [ $rc -eq 137 ]; then killed=$((killed + 1)); else finished=$((finished + 1)); fi
	st repair >/dev/null 2>"$scratch/repair.err"
	l=$(leftovers)
	[ -z "$l" ] || fail "kill $n ($op at $where): temporary files left after repair: $l"
	if same_tree "$root" "$scratch/ref/$op.start"; then
		:
	elif same_tree "$root" "$scratch/ref/$op.done"; then
		:	# it committed before the kill: all of it
	else
		fail "kill $n ($op at $where): after repair the tree is neither as before nor as done: $(head -6 "$scratch/diff" | tr '\n' ' '); repair said: $(tr '\n' ' ' <"$scratch/repair.err")"
	fi
	# back to the start: whatever is in effect is rolled back
	st rollback --yes >/dev/null 2>&1
	[ "$op" = rollback ] || same_tree "$root" "$scratch/pristine" ||
		fail "kill $n ($op at $where): not byte-identical after rollback: $(head -6 "$scratch/diff" | tr '\n' ' ')"
}

for op in $ops; do
	steps=$(cat "$scratch/ref/$op.steps" 2>/dev/null || echo 0)
	[ "$steps" -gt 0 ] || fail "$op: no write step seen (the shim did not load?)"
	k=1
	while [ $k -le "$steps" ]; do
		kill_one "$op" "$k"
		k=$((k + 1))
	done
done
stepped=$n
awk -v seed="$SEED" -v n=$((KILLS - n)) -v ops="$ops" 'BEGIN {
	srand(seed); k = split(ops, o, " ")
	for (i = 1; i <= n; i++) printf "%s %.3f\n", o[int(rand() * k) + 1], rand() * 1.1
}' >"$scratch/schedule"
while read -r op frac; do
	kill_one "$op" "" "$frac"
done <"$scratch/schedule"
echo "chaos on a sysroot copy: seed $SEED, $n kill points ($stepped at write steps): $killed killed mid-run, $finished had finished"
[ "$n" -ge 50 ] || fail "fewer than 50 kill points"
[ "$killed" -ge "$stepped" ] || fail "only $killed processes were killed"
done_testing
