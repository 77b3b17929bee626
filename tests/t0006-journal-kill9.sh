#!/bin/sh
# Crash safety on the live host (root): a process journals temporary changes
# to page-cluster and zswap.enabled, is killed with kill -9, and the next
# `swaptune repair` restores both and says so on stderr (status, which
# changes nothing, only says they are left). 20 rounds with the
# writes done, 20 killed between journaling and writing. Whatever happens,
# the settings are put back on exit.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to change vm.page-cluster and zswap.enabled"
PC=/proc/sys/vm/page-cluster
ZS=/sys/module/zswap/parameters/enabled
[ -w "$PC" ] || skip "no writable $PC"
[ -w "$ZS" ] || skip "zswap is not in this kernel (no $ZS)"
hold=$BUILD/helpers/journal-hold
[ -x "$hold" ] || { echo "FAIL: $hold not built (make check builds it)"; exit 1; }

# other tests or probes on this host may hold zswap on for a while: wait a little
for i in $(seq 1 20); do
	[ "$(cat "$ZS")" = N ] && [ "$(cat "$PC")" != 0 ] && break
	sleep 0.5
done
pc0=$(cat "$PC")
zs0=$(cat "$ZS")
[ "$pc0" != 0 ] || skip "page-cluster is already 0: the test needs a value to change"
[ "$zs0" = N ] || skip "zswap is already enabled: the test needs a value to change"
holder=""
restore_host() {
	[ -n "$holder" ] && kill -9 "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	echo "$pc0" >"$PC"
	echo "$zs0" >"$ZS"
}
cleanup_hooks="restore_host"

db=$scratch/db
# start_hold ARGS...: run journal-hold in the background, wait for "ready"
start_hold() {
	: >"$scratch/hold.out"
	"$hold" --db "$db" "$@" >"$scratch/hold.out" 2>"$scratch/hold.err" &
	holder=$!
	i=0
	while ! grep -q '^ready' "$scratch/hold.out"; do
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$holder" 2>/dev/null; then
			fail "journal-hold did not get ready: $(cat "$scratch/hold.err")"
			return 1
		fi
		sleep 0.01
	done
}
kill_hold() {
	kill -9 "$holder"
	wait "$holder" 2>/dev/null
	holder=""
}

round() {	# round N MODE
	n=$1 mode=$2
	case $mode in
	write) start_hold page-cluster=0 zswap.enabled=Y || return ;;
	no-write) start_hold --no-write page-cluster=0 zswap.enabled=Y || return ;;
	esac
	pid=$(sed -n 's/^ready //p' "$scratch/hold.out")
	if [ "$mode" = write ]; then
		[ "$(cat "$PC")" = 0 ] || fail "round $n: page-cluster is $(cat "$PC") while held, want 0"
		[ "$(cat "$ZS")" = Y ] || fail "round $n: zswap.enabled is $(cat "$ZS") while held, want Y"
	else
		[ "$(cat "$PC")" = "$pc0" ] || fail "round $n ($mode): page-cluster changed before the write"
	fi
	kill_hold
	"$SWAPTUNE" status --db "$db" >/dev/null 2>"$scratch/left.err"
	grep -q '^swaptune: 2 changes left by a swaptune that did not finish' "$scratch/left.err" ||
		fail "round $n ($mode): status does not say what is left: $(cat "$scratch/left.err")"
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>"$scratch/status.err" ||
		fail "round $n ($mode): repair exit $?: $(cat "$scratch/status.err")"
	"$SWAPTUNE" status --db "$db" >"$scratch/status.out" 2>/dev/null
	[ "$(cat "$PC")" = "$pc0" ] || fail "round $n ($mode): page-cluster is $(cat "$PC"), want $pc0"
	[ "$(cat "$ZS")" = "$zs0" ] || fail "round $n ($mode): zswap.enabled is $(cat "$ZS"), want $zs0"
	grep -q "^  page-cluster    $pc0 " "$scratch/status.out" ||
		fail "round $n ($mode): status does not show the restored page-cluster"
	if [ "$mode" = write ]; then
		want1="swaptune: restored zswap.enabled Y -> $zs0 (left by swaptune pid $pid, which did not finish)"
		want2="swaptune: restored page-cluster 0 -> $pc0 (left by swaptune pid $pid, which did not finish)"
	else
		want1="swaptune: zswap.enabled is $zs0 as before (left by swaptune pid $pid, which did not finish)"
		want2="swaptune: page-cluster is $pc0 as before (left by swaptune pid $pid, which did not finish)"
	fi
	printf '%s\n%s\n' "$want1" "$want2" >"$scratch/want.err"
	same "$scratch/status.err" "$scratch/want.err" || true
	# repaired once: the next command has nothing to say
	"$SWAPTUNE" repair --db "$db" >/dev/null 2>"$scratch/status2.err"
	[ -s "$scratch/status2.err" ] && fail "round $n ($mode): repaired twice: $(cat "$scratch/status2.err")"
}

for n in $(seq 1 20); do round "$n" write; done
for n in $(seq 1 20); do round "$n" no-write; done
rows=$(sqlite3 "$db" "SELECT state, count(*) FROM changes GROUP BY state ORDER BY state" 2>/dev/null | tr '\n' ' ')
[ "$rows" = "restored|80 " ] || fail "journal rows: '$rows', want 80 restored"
done_testing
