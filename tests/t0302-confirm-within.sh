#!/bin/sh
# apply --confirm-within on a private copy of the vm-v1 fixture: without a
# confirmation the previous settings (and boot-time files) come back by
# themselves within a second or two of the deadline, recorded as a rollback
# run; apply --confirm keeps them and stops the watchdog; a watchdog killed
# with kill -9 leaves its rows to crash repair (`swaptune repair`, or the
# next command that changes the host);
# rollback reverts an unconfirmed apply at once; a second apply waits for
# the first to be settled.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
check=$BUILD/helpers/schema-check
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
P=$root/proc/sys/vm/page-cluster
watchdogs=""
stop_watchdogs() {
	for p in $watchdogs; do kill -9 "$p" 2>/dev/null; done
}
cleanup_hooks="stop_watchdogs"
wd_pid() { sed -n 's/.*"watchdog_pid":[[:space:]]*\([0-9]*\).*/\1/p' "$1"; }
# running, not a zombie waiting for init to reap it
alive() { s_=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s_" ] && [ "${s_#Z}" = "$s_" ]; }
now() { date +%s.%N; }

# ---- not confirmed: back by itself ----
t0=$(now)
st apply page-cluster=0 --persist --yes --confirm-within 2s --json >"$scratch/a1.json" || fail "apply: exit $?"
"$check" "$SCHEMAS/apply.schema.json" "$scratch/a1.json" >/dev/null 2>&1 || fail "apply json does not validate"
pid=$(wd_pid "$scratch/a1.json")
watchdogs="$watchdogs $pid"
[ -n "$pid" ] && alive "$pid" || fail "no watchdog running (pid '$pid')"
[ "$(cat "$P")" = 0 ] || fail "page-cluster not applied"
# the pending confirmation shows in status, first
st status >"$scratch/status1.txt" || fail "status while pending: exit $?"
head -n 1 "$scratch/status1.txt" | grep -q '^PENDING: apply run [0-9]* undoes itself in [0-9]* s unless confirmed$' ||
	fail "status does not show the pending confirmation: $(head -n 2 "$scratch/status1.txt")"
st status --json >"$scratch/status1.json" || fail "status --json while pending: exit $?"
tr -d ' \t\n' <"$scratch/status1.json" | grep -q '"pending_confirm":{"apply_run":[0-9]*,"deadline_unix":[0-9.]*,"seconds_left":[0-9.]*}' ||
	fail "status --json does not show the pending confirmation"
"$check" "$SCHEMAS/status.schema.json" "$scratch/status1.json" >/dev/null 2>&1 || fail "status json does not validate"
[ -f "$root/etc/sysctl.d/90-swaptune.conf" ] || fail "boot-time file not written"
# the watchdog owns the pending rows: other commands leave them alone
[ "$(sqlite3 "$db" "SELECT DISTINCT pid FROM changes WHERE state = 'pending'")" = "$pid" ] ||
	fail "pending rows not owned by the watchdog: $(sqlite3 "$db" 'SELECT pid, state FROM changes')"
st history >/dev/null 2>"$scratch/err" || fail "history during the wait: exit $?"
[ -s "$scratch/err" ] && fail "repair touched the watchdog's rows: $(cat "$scratch/err")"
[ "$(cat "$P")" = 0 ] || fail "page-cluster reverted before the deadline"
i=0
while [ "$(cat "$P")" != 3 ] && [ $i -lt 80 ]; do sleep 0.1; i=$((i + 1)); done
t1=$(now)
[ "$(cat "$P")" = 3 ] || fail "page-cluster not reverted 8 s after apply"
late=$(echo "$t1 - $t0 - 2" | bc 2>/dev/null || python3 -c "print($t1 - $t0 - 2)")
echo "reverted $late s after the deadline"
python3 -c "import sys; sys.exit(0 if -0.05 <= $late <= 2.0 else 1)" || fail "reverted $late s after the deadline, want within 2 s"
i=0
while alive "$pid" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
alive "$pid" && fail "watchdog still alive after reverting"
[ -e "$root/etc/sysctl.d/90-swaptune.conf" ] && fail "boot-time file left behind"
[ -e "$root/etc" ] && fail "directory $root/etc left behind"
st history >"$scratch/hist" || fail "history: exit $?"
unfold "$scratch/hist" | grep -A1 ' rollback  *ok$' | grep -qx '       confirm-within expired (apply run 1)' ||
	fail "history: no expiry rollback"
unfold "$scratch/hist" | grep -A1 ' apply  *reverted$' | grep -qx '       page-cluster=0 --persist --confirm-within 2s' ||
	fail "history: apply not reverted"
st apply --confirm >/dev/null 2>"$scratch/err"
[ $? -eq 1 ] || fail "late confirm: want exit 1"
grep -q 'apply run 1 was not confirmed in time' "$scratch/err" || fail "late confirm message: $(cat "$scratch/err")"

# ---- confirmed: stays ----
st apply page-cluster=1 --yes --confirm-within 3s --json >"$scratch/a2.json" || fail "apply 2: exit $?"
pid=$(wd_pid "$scratch/a2.json")
watchdogs="$watchdogs $pid"
st apply page-cluster=2 --yes >/dev/null 2>"$scratch/err"
[ $? -eq 3 ] || fail "a second apply while one awaits confirmation: want exit 3"
grep -q 'apply run 3 awaits confirmation' "$scratch/err" || fail "second apply message: $(cat "$scratch/err")"
st apply --confirm >"$scratch/confirm" || fail "confirm: exit $?"
printf '%s\n' 'Confirmed apply run 3:' '  page-cluster: 3 -> 1 stays' "Watchdog pid $pid stopped." >"$scratch/confirm.want"
same "$scratch/confirm" "$scratch/confirm.want"
sleep 3.5
[ "$(cat "$P")" = 1 ] || fail "confirmed setting reverted"
alive "$pid" && fail "watchdog alive after confirm"
[ "$(sqlite3 "$db" "SELECT state || ':' || temporary FROM changes WHERE run_id = 3")" = "committed:0" ] ||
	fail "confirmed rows: $(sqlite3 "$db" "SELECT state, temporary FROM changes WHERE run_id = 3")"
[ "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = 3")" = ok ] || fail "confirmed run status"
st rollback --yes >/dev/null || fail "rollback of the confirmed apply: exit $?"
[ "$(cat "$P")" = 3 ] || fail "rollback after confirm: page-cluster $(cat "$P")"

# ---- watchdog killed: the next command restores ----
st apply page-cluster=0 --yes --confirm-within 60s --json >"$scratch/a3.json" || fail "apply 3: exit $?"
pid=$(wd_pid "$scratch/a3.json")
kill -9 "$pid"
sleep 0.2
st history >/dev/null 2>"$scratch/err" || fail "history after kill: exit $?"
grep -q '^swaptune: 1 change left by a swaptune that did not finish: `swaptune repair`' "$scratch/err" ||
	fail "history does not say what is left: $(cat "$scratch/err")"
[ "$(cat "$P")" = 0 ] || fail "history repaired"
st repair >/dev/null 2>"$scratch/err" || fail "repair after kill: exit $?"
grep -q "^swaptune: restored page-cluster 0 -> 3 (left by swaptune pid $pid, which did not finish)$" "$scratch/err" ||
	fail "repair message: $(cat "$scratch/err")"
[ "$(cat "$P")" = 3 ] || fail "page-cluster not restored after the watchdog was killed"
[ "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = 5")" = reverted ] || fail "killed watchdog: run not marked reverted"

# ---- rollback reverts an unconfirmed apply at once ----
st apply page-cluster=1 --yes --confirm-within 60s --json >"$scratch/a4.json" || fail "apply 4: exit $?"
pid=$(wd_pid "$scratch/a4.json")
watchdogs="$watchdogs $pid"
st rollback --to 1 --yes >/dev/null 2>"$scratch/err"
[ $? -eq 3 ] || fail "rollback --to during a pending confirm: want exit 3"
st rollback --yes >"$scratch/rb" || fail "rollback of the unconfirmed apply: exit $?"
grep -q '^Reverted apply run 6 (1 change undone).$' "$scratch/rb" || fail "rollback output: $(cat "$scratch/rb")"
[ "$(cat "$P")" = 3 ] || fail "unconfirmed apply not reverted by rollback"
sleep 0.2
alive "$pid" && fail "watchdog alive after rollback"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 0 ] || fail "pending rows left"
done_testing
