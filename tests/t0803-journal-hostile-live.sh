#!/bin/sh
# On the live host, crafted pending rows for the scratch-swap, cgroup and
# persist handlers are refused before anything is acted on: a file with
# swaptune's scratch name but not its swap header stays, a device that is
# not /dev/loopN or /dev/zramN is never swapped off, a cgroup not directly
# under the memory controller root is never emptied, /etc files are not
# swaptune's (the targets are scratch files, so a regression cannot harm
# the host). `swaptune repair` only reads the host otherwise. And `apply --confirm`
# never signals a pid whose start time the row does not know (0).
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command to craft a store"
db=$scratch/s.db
fx=$FIXTURES/vm-v1
"$SWAPTUNE" status --db "$db" >/dev/null 2>"$scratch/err" || skip "status on this host fails: $(cat "$scratch/err")"
new_store "$db" || fail "cannot make a store"
sh -c 'exit 0' &
dead=$!
wait "$dead"
# rows of this machine (a row naming no machine is never acted on)
mid=$(head -1 /etc/machine-id 2>/dev/null)
[ -n "$mid" ] || mid=unknown
row() {	# row SYSROOT PID PIDSTART KIND NAME OLD [SESSION RUN]
	old=NULL
	[ -n "$6" ] && old="'$6'"
	rmid=$mid
	[ "$1" != / ] && rmid=unknown
	sqlite3 "$db" "INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name,
		old_value, new_value, temporary, state, machine_id) VALUES ('${7:-crafted}', ${8:-NULL}, $2, $3, '$1',
		'$4', '$5', $old, NULL, 1, 'pending', '$rmid')" || fail "cannot craft a row"
}
victim=$scratch/swaptune-swap-victim
echo precious >"$victim"
mkdir -p "$scratch/d"
row / "$dead" 1 scratch-file "$victim"
row / "$dead" 1 scratch-file "$scratch/d/../swaptune-swap-victim"
row / "$dead" 1 scratch-zram /dev/sda
row / "$dead" 1 scratch-zram "/dev/zram0/../../$victim"
row / "$dead" 1 scratch-loop /dev/sda "1:2 /x"
row / "$dead" 1 debugfs-mount "${scratch#/}/d"
row / "$dead" 1 cgroup swaptune-t0803 "v2 sys/fs/cgroup/user.slice/swaptune-t0803"
echo keep >"$scratch/abs"
echo keep >"$scratch/rel"
row / "$dead" 1 persist-file "$scratch/abs"
row / "$dead" 1 persist-file "../..$scratch/rel" overwritten
"$SWAPTUNE" repair --db "$db" >/dev/null 2>"$scratch/err" || fail "repair failed: $(cat "$scratch/err")"
n=$(grep -c '^swaptune: warning: refused to undo ' "$scratch/err")
[ "$n" -eq 9 ] || { fail "expected 9 refusals, got $n"; cat "$scratch/err"; }
[ "$(cat "$victim")" = precious ] || fail "a file that is not swaptune's swap was removed"
[ "$(cat "$scratch/abs")" = keep ] || fail "a file outside swaptune's list was removed"
[ "$(cat "$scratch/rel")" = keep ] || fail "a file outside swaptune's list was written"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'refused'")" = 9 ] ||
	fail "refused rows are not marked refused"

# apply --confirm never SIGTERMs a pid with start time 0 (unknown)
root=$scratch/root
cp -a "$fx" "$root"
key=$(cd "$root" && pwd -P)
sleep 60 &
bystander=$!
sqlite3 "$db" "INSERT INTO runs (id, kind, status, params) VALUES (9000, 'apply', 'awaiting-confirm',
	'{\"confirm_deadline_unix\": $(($(date +%s) + 3600))}')"
row "$key" "$bystander" 0 setting page-cluster 3 s9000 9000
sqlite3 "$db" "UPDATE changes SET new_value = '3' WHERE session = 's9000'"
"$SWAPTUNE" apply --confirm --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err" ||
	fail "apply --confirm failed: $(cat "$scratch/err")"
sleep 0.2
kill -0 "$bystander" 2>/dev/null || fail "apply --confirm signalled a pid whose start time is unknown"
kill "$bystander" 2>/dev/null
wait "$bystander" 2>/dev/null
done_testing
