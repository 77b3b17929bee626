#!/bin/sh
# The whole flow from the keyboard on the live host at 80x24 (root): the
# probe form with the shipped defaults (the sequential design, its 3-minute
# budget) but arms pc3,pc0; a fixed design of 5 rounds is not enough here:
# pc3 is OOM-killed in most trials, and the cost guardrails need rounds where
# both arms complete, which the later looks bring; start, progress, the
# verdict (CHANGE to pc0: pc3 is OOM-killed and slower on this workload), a
# opens the settings diff, y applies with the default
# confirm-within and a countdown, c confirms, the History panel's b rolls
# back after y; page-cluster, zswap, swap and cgroups end as they began.
# Every step's screen goes to tests/artifacts/tui/.
# Changes host state: runs under the host lock (tests/host-lock.sh: taken here
# unless an ancestor, e.g. tests/hold-host-lock.sh, holds it already).
[ "$(id -u)" -eq 0 ] || { echo "needs root to probe and apply (page-cluster, swap, cgroups)"; exit 77; }
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
wait_no_probe
db=$scratch/db
S() { sqlite3 "$db" "$1"; }

host_state >"$scratch/before"
pc0=$(cat "$PC")
# a failed step must not leave the host changed: roll back whatever this store applied
restore_host() {
	[ -f "$db" ] && [ "$(cat "$PC")" != "$pc0" ] &&
		"$SWAPTUNE" --db "$db" rollback --yes >/dev/null 2>&1
	return 0
}
cleanup_hooks="restore_host $cleanup_hooks"

tui_start 80 24 --db "$db" --panel probe --interval 500ms
expect "New probe" "probe form" || { quit_ok; done_testing; }
grep -qE "Workload +anon-runs" "$scratch/screen" || fail "form: the CLI's default workload"
grep -qE "Rounds +sequential" "$scratch/screen" || fail "form: the sequential design by default"
form_edit 1 pc3,pc0
expect "Arms +pc3,pc0" "form: editing the arms" && snap 1-form
fits 80 "form"

# start; the progress view names the look, round and arm
keys s
expect "Probe running" "the probe did not start" 10 && snap 2-started
expect "Trial +[1-9][0-9]* of" "no trial count while running" 60 && snap 3-running
fits 80 "running"
expect "Verdict: (KEEP|CHANGE|INCONCLUSIVE)" "no verdict" 300 || { quit_ok; done_testing; }
snap 4-verdict
fits 80 "verdict"
grep -q "Verdict: CHANGE to pc0" "$scratch/screen" ||
	fail "the default workload's verdict is not CHANGE to pc0: $(grep Verdict "$scratch/screen")"
host_state >"$scratch/after-probe"
cmp -s "$scratch/before" "$scratch/after-probe" ||
	fail "the probe left the host changed: $(diff "$scratch/before" "$scratch/after-probe")"
run=$(S "SELECT id FROM runs WHERE kind = 'probe' ORDER BY id DESC LIMIT 1")
[ "$(S "SELECT status FROM runs WHERE id = $run")" = ok ] || fail "probe run $run not ok"

# a: the settings diff of this run's verdict; y applies with confirm-within
keys a
expect "Probe run $run recommends pc0" "a did not open the apply screen" || { quit_ok; done_testing; }
grep -qE "page-cluster +$pc0 -> 0" "$scratch/screen" || fail "diff: page-cluster $pc0 -> 0"
grep -q "confirm within: 2m" "$scratch/screen" || fail "confirm-within default 2m"
snap 5-apply
fits 80 "apply"
keys y
expect "Confirm within [0-9]+ (min|s)" "no countdown after y" && snap 6-countdown
[ "$(cat "$PC")" = 0 ] || fail "after y page-cluster is $(cat "$PC")"
keys c
expect "Confirmed apply run [0-9]+" "c did not confirm" && snap 7-confirmed
applied=$(S "SELECT id FROM runs WHERE kind = 'apply' AND status = 'ok' ORDER BY id DESC LIMIT 1")
[ -n "$applied" ] || fail "no confirmed apply run in the store"
[ "$(cat "$PC")" = 0 ] || fail "confirmed: page-cluster $(cat "$PC")"
keys Escape

# History: b, y rolls back to the snapshot before the apply
keys 6
expect "run +kind +status" "history panel did not draw"
choose "run $applied, apply:" "history: the apply run not selectable" && snap 8-history
keys b
expect "Roll back to snapshot [0-9]+ \\(before apply" "b did not ask" && snap 9-rollback-ask
grep -q "page-cluster: 0 -> $pc0" "$scratch/screen" || fail "rollback plan: page-cluster 0 -> $pc0"
keys y
expect "rolled back to snapshot [0-9]+ as run" "y did not roll back" && snap 10-rolled-back
fits 80 "rolled back"
host_state >"$scratch/after"
cmp -s "$scratch/before" "$scratch/after" ||
	fail "the host is not as before: $(diff "$scratch/before" "$scratch/after")"
quit_ok
done_testing
