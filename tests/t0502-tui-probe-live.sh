#!/bin/sh
# A probe from the screen on the live host (root): bad values in the form
# are shown inline and start nothing; a short probe (pc3 against pc0, 64M
# working set in a 32M memcg, 1 round) is cancelled mid-run and the host is
# as before (page-cluster, swap, no swaptune cgroups); the same probe run to
# the end shows per-arm bars and the verdict; q restores the terminal.
# Changes host state: runs under the host lock (tests/host-lock.sh: taken here
# unless an ancestor, e.g. tests/hold-host-lock.sh, holds it already).
[ "$(id -u)" -eq 0 ] || { echo "needs root to probe (page-cluster, swap, cgroups)"; exit 77; }
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
wait_no_probe
db=$scratch/db

host_state >"$scratch/before"
runs() { sqlite3 "$db" "SELECT count(*) FROM runs WHERE kind = 'probe'" 2>/dev/null || echo 0; }

tui_start 80 24 --db "$db" --panel probe --interval 500ms
expect "New probe" "probe form"
grep -q "read-only" "$scratch/screen" && fail "root on the live host is shown read-only"

# bad values: inline, and nothing starts
form_edit 0 nosuch
form_edit 2 12Q
form_edit 4 0
keys s
expect "3 values to fix" "bad values do not block the start" && snap bad-values
grep -q '! unknown workload "nosuch"' "$scratch/screen" || fail "no inline error for the workload"
grep -q '! "12Q" is not a size' "$scratch/screen" || fail "no inline error for the limit"
grep -q '! "0": give a whole number from 1' "$scratch/screen" || fail "no inline error for the rounds"
sleep 1
[ "$(runs)" = 0 ] || fail "a probe run was stored despite bad values"
host_state >"$scratch/after-bad"
cmp -s "$scratch/before" "$scratch/after-bad" || fail "bad values changed the host: $(diff "$scratch/before" "$scratch/after-bad")"

# a short probe, cancelled mid-run
keys d
form_edit 1 pc3,pc0
form_edit 2 32M
form_edit 3 64M
form_edit 4 1
keys s
expect "Probe running" "the probe did not start" 10
expect "Trial +[1-9] of 4" "no trial count while running" 60 && snap running
keys c
expect "cancelled|interrupted" "cancel: no result" 90 && snap cancelled
host_state >"$scratch/after-cancel"
cmp -s "$scratch/before" "$scratch/after-cancel" ||
	fail "cancelled probe left the host changed: $(diff "$scratch/before" "$scratch/after-cancel")"
[ "$(sqlite3 "$db" "SELECT status FROM runs WHERE kind = 'probe' ORDER BY id DESC LIMIT 1")" = interrupted ] ||
	fail "the cancelled run is not stored as interrupted"

# the same probe to its verdict
keys n
expect "New probe" "n does not return to the form"
grep -qE "Arms +pc3,pc0" "$scratch/screen" || fail "the form forgot its values"
keys s
expect "Verdict: (KEEP|CHANGE|INCONCLUSIVE)" "no verdict after the probe" 120 && snap verdict
# pc3 may be OOM-killed in every trial of so small a cgroup: then its row says so
grep -qE "^  pc3 .*(\[.*\]|OOM|oom)" "$scratch/screen" || fail "no bar with CI (or OOM note) for pc3"
grep -qE "^  pc0 " "$scratch/screen" || fail "no bar for pc0"
fits 80 "verdict"
# a opens the apply screen on this run's verdict (the diff, or why there is none); Esc leaves it
keys a
expect "Apply probe run [0-9]+" "a on the result did not open the apply screen" && snap apply
grep -qE "recommends (pc0|no change)" "$scratch/screen" || fail "apply screen without the verdict"
fits 80 "apply from the result"
keys Escape
expect "Verdict: " "Esc did not return to the result"
host_state >"$scratch/after-run"
cmp -s "$scratch/before" "$scratch/after-run" ||
	fail "probe left the host changed: $(diff "$scratch/before" "$scratch/after-run")"
quit_ok
done_testing
