#!/bin/sh
# The TUI tunes a host (a --sysroot copy of vm-v1 and a scratch store with a
# crafted probe run whose verdict is a change): a opens the apply screen with
# the settings diff; a refused verdict says why and f forces it; y applies
# through the change module with confirm-within; left to expire, the
# watchdog puts page-cluster back and the screen says so; c confirms (with p
# persist: a sysctl.d file in the sysroot); an apply --confirm from outside
# shows as confirmed; the History panel's b rolls back after y/N, leaving
# the tree byte-identical (kernel files by value); o on that apply refuses
# (nothing recorded around it), o on a probe writes its report; a read-only
# sysroot disables the keys; q restores the terminal.
# Screens go to tests/artifacts/tui/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"

db=$scratch/db
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
P=$root/proc/sys/vm/page-cluster
# every file's checksum and the list of paths; kernel files (proc/, sys/) by
# value: the host layer writes "3" where the captured file holds "3\n", as
# the kernel shows either the same way
sums() {
	(cd "$root" && find . | sort && find . -type f ! -path './proc/*' ! -path './sys/*' -exec md5sum {} + | sort -k2 &&
	 find ./proc ./sys -type f | sort | while read -r f; do printf "%s %s\n" "$f" "$(printf %s "$(cat "$f")" | md5sum)"; done)
}
sums >"$scratch/sums.before"
new_store "$db" || fail "creating the store"
plan='"plan":{"sequential":false,"looks":[10],"alpha":0.025,"min_effect_pct":2,"baseline":"pc3"}'
sqlite3 "$db" <<SQL || fail "inserting the probe runs"
-- run 1: pc0 clearly better (+30 %), a plan stored with the run: a change
$(sql_probe_run_pc0)
-- run 2: pc0 +2.1 %, significant, but its interval does not clear the 2 % minimum
-- (another working set: not a replication of run 1's recipe, judged alone)
INSERT INTO runs (id, kind, status, params, summary) VALUES (2, 'probe', 'ok',
 '{"workload":{"name":"anon-zipf","working_set_bytes":134217728},"baseline":"pc3",$plan}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true}}');
INSERT INTO arms (id, run_id, name, settings) VALUES (3, 2, 'pc3', '{"page-cluster":"3"}'), (4, 2, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (2, 3, 1, 1, 0, 'ok', 1000), (2, 4, 1, 2, 0, 'ok', 1028), (2, 4, 2, 3, 0, 'ok', 1015),
 (2, 3, 2, 4, 0, 'ok', 1001), (2, 3, 3, 5, 0, 'ok', 999), (2, 4, 3, 6, 0, 'ok', 1025),
 (2, 4, 4, 7, 0, 'ok', 1018), (2, 3, 4, 8, 0, 'ok', 1000), (2, 3, 5, 9, 0, 'ok', 1001),
 (2, 4, 5, 10, 0, 'ok', 1030), (2, 4, 6, 11, 0, 'ok', 1012), (2, 3, 6, 12, 0, 'ok', 999),
 (2, 3, 7, 13, 0, 'ok', 1000), (2, 4, 7, 14, 0, 'ok', 1026), (2, 4, 8, 15, 0, 'ok', 1017),
 (2, 3, 8, 16, 0, 'ok', 1001), (2, 3, 9, 17, 0, 'ok', 999), (2, 4, 9, 18, 0, 'ok', 1024),
 (2, 4, 10, 19, 0, 'ok', 1020), (2, 3, 10, 20, 0, 'ok', 1000);
SQL
"$SWAPTUNE" --db "$db" --sysroot "$root" apply --run 2 --dry-run >/dev/null 2>&1 &&
	fail "apply --run 2 should refuse (the refusal this test expects on the screen)"
S() { sqlite3 "$db" "$1"; }

# Runs panel: a on the refused run 2 (the newest, selected first)
tui_start 80 24 --db "$db" --sysroot "$root" --panel runs --interval 500ms
expect "Verdict: CHANGE to pc0" "runs: run 2's verdict" || { quit_ok; done_testing; }
keys a
expect "Refused: the change to pc0 is significant but its interval does not clear" "refusal text" &&
	snap 80x24-apply-refused
grep -q "f forces it" "$scratch/screen" || fail "refusal without the force key"
fits 80 "refused"
keys y
expect "not applied \\(f forces it\\): the change to pc0" "y on a refused verdict did not say why"
[ "$(cat "$P")" = 3 ] || fail "a refused verdict was applied"
keys f
expect "Forced: the change to pc0" "f did not force" && snap 80x24-apply-forced
keys Escape
expect "run +kind" "Esc did not go back to the runs panel"

# (a) run 1, confirm-within 3s, left to expire
keys Down
expect "run 1, probe" "runs: run 1 not selected" && snap 80x24-runs
keys a
expect "Probe run 1 recommends pc0" "apply screen for run 1" || { quit_ok; done_testing; }
grep -qE "page-cluster +3 -> 0" "$scratch/screen" || fail "diff: page-cluster 3 -> 0"
grep -q "$root/proc/sys/vm/page-cluster" "$scratch/screen" || fail "diff: the kernel file"
grep -q "confirm within: 2m" "$scratch/screen" || fail "confirm-within default 2m"
grep -q "Refused" "$scratch/screen" && fail "run 1 refused"
snap 80x24-apply
fits 80 "apply"
keys p
expect "\\[x\\] p persist" "p did not toggle persist"
keys p
expect "\\[ \\] p persist" "p did not toggle persist back"
keys w C-u 3s Enter
expect "confirm within: 3s" "editing confirm-within"
keys y
expect "Confirm within [0-9]+ s" "no countdown" && snap 80x24-countdown
fits 80 "countdown"
[ "$(cat "$P")" = 0 ] || fail "apply with confirm-within: page-cluster $(cat "$P")"
expect "watchdog reverted apply run" "the screen did not say reverted" 15 && snap 80x24-reverted
grep -q "now: page-cluster = 3" "$scratch/screen" || fail "reverted: current value not shown"
[ "$(cat "$P")" = 3 ] || fail "after the deadline page-cluster is $(cat "$P")"
[ "$(S "SELECT status FROM runs WHERE kind='apply' ORDER BY id DESC LIMIT 1")" = reverted ] ||
	fail "apply run not marked reverted: $(S "SELECT id, kind, status FROM runs")"
keys Escape

# (b) apply, then c confirms (the runs panel kept run 1 chosen)
expect "run 1, probe" "runs: run 1 no longer chosen after the apply"
keys a
expect "Probe run 1 recommends pc0" "apply screen again"
keys p
expect "write $root/etc/" "persist: the boot-time files to write" && snap 80x24-apply-persist
keys y
expect "Confirm within" "no countdown (2m)"
ls "$root/etc/sysctl.d/"*swaptune* >/dev/null 2>&1 || fail "persist: no sysctl.d file in the sysroot"
keys c
expect "Confirmed apply run [0-9]+" "c did not confirm" && snap 80x24-confirmed
grep -q "now: page-cluster = 0" "$scratch/screen" || fail "confirmed: current value"
sleep 1
[ "$(cat "$P")" = 0 ] || fail "confirmed: page-cluster $(cat "$P")"
applied=$(S "SELECT id FROM runs WHERE kind='apply' AND status='ok' ORDER BY id DESC LIMIT 1")
[ -n "$applied" ] || fail "no ok apply run after the confirm"
keys Escape

# History: the confirmed apply, b with N, then b with y
keys 6
expect "run +kind +status" "history panel did not draw"
choose "run $applied, apply:" "history: the apply run not selectable" && snap 80x24-history
fits 80 "history"
keys b
expect "Roll back to snapshot [0-9]+ \\(before apply" "b did not ask" && snap 80x24-rollback-ask
grep -q "page-cluster: 0 -> 3" "$scratch/screen" || fail "rollback plan: page-cluster 0 -> 3"
grep -q "remove $root/etc/" "$scratch/screen" || fail "rollback plan: the boot-time files to remove"
keys n
expect "rollback cancelled" "N did not cancel"
[ "$(cat "$P")" = 0 ] || fail "N rolled back"
keys b
expect "Roll back to snapshot" "b did not ask again"
keys y
expect "rolled back to snapshot [0-9]+ as run" "y did not roll back" && snap 80x24-rolled-back
[ "$(cat "$P")" = 3 ] || fail "rollback: page-cluster $(cat "$P")"
sums >"$scratch/sums.after"
cmp -s "$scratch/sums.before" "$scratch/sums.after" || { fail "the sysroot is not byte-identical after rollback"; diff "$scratch/sums.before" "$scratch/sums.after" | head; }

# o: the report of the apply run (History is the change journal), written
# atomically to the path typed
choose "run $applied, apply:" "history: the apply run not selectable for o"
keys o
expect "Write the report of run $applied to: ./swaptune-run-$applied.txt" "o: default path" && snap 80x24-report-path
keys C-u "$scratch/run1.txt" Enter
# nothing was recorded around it: refused as report --change refuses (no file)
expect "report not written: no recording before rollback run [0-9]+ undid apply run $applied" \
	"o wrote a report without evidence"
"$SWAPTUNE" --db "$db" --sysroot "$root" report --change "$applied" >"$scratch/run1.cli" 2>"$scratch/run1.err"
[ $? -eq 2 ] || fail "report --change $applied: want exit 2 (no recording)"
grep -q "no recording before rollback run [0-9]* undid apply run $applied" "$scratch/run1.err" ||
	fail "report --change $applied: $(cat "$scratch/run1.err")"
[ -e "$scratch/run1.txt" ] && fail "a refused report left a file"
ls "$scratch"/run1.txt.* >/dev/null 2>&1 && fail "a temporary report file was left"
# and in Runs, o writes a probe run's report (report --run), Esc cancels
keys 3
expect "run +kind" "runs panel after history"
choose "run 1, probe:" "runs: run 1 not selectable for o"
keys o
expect "Write the report of run 1 to: ./swaptune-run-1.txt" "runs o: default path"
keys Escape
expect "report not written" "runs o: Esc did not cancel"
keys o C-u "$scratch/probe1.txt" Enter
expect "wrote the report of run 1" "runs o did not write" && snap 80x24-runs-report
"$SWAPTUNE" --db "$db" --sysroot "$root" report --run 1 >"$scratch/probe1.cli" || fail "report --run 1"
cmp -s "$scratch/probe1.txt" "$scratch/probe1.cli" || fail "the Runs panel's report differs from report --run 1"
quit_ok

# 200x60: the apply screen
tui_start 200 60 --db "$db" --sysroot "$root" --panel runs --interval 500ms
expect "run +kind" "200x60 runs"
choose "run 1, probe" "200x60: run 1"
keys a
expect "Apply probe run" "200x60 apply screen" && snap 200x60-apply
fits 200 "200x60 apply"
# confirmed from another terminal while the countdown runs: the screen says so
keys y
expect "Confirm within" "200x60: no countdown" && snap 200x60-countdown
"$SWAPTUNE" --db "$db" --sysroot "$root" apply --confirm >/dev/null || fail "apply --confirm from outside: exit $?"
expect "was confirmed elsewhere" "the screen missed the confirm from outside" 5
[ "$(cat "$P")" = 0 ] || fail "confirmed from outside: page-cluster $(cat "$P")"
keys Escape
"$SWAPTUNE" --db "$db" --sysroot "$root" rollback --yes >/dev/null || fail "rollback from the CLI: exit $?"
# r reverts at once, before the deadline
expect "run 1, probe" "200x60: run 1 no longer chosen"
keys a
expect "Probe run 1 recommends pc0" "200x60: apply screen again"
grep -qE "page-cluster +3 -> 0" "$scratch/screen" || fail "200x60: diff after the CLI rollback"
keys y
expect "Confirm within" "200x60: no countdown for r"
keys r
expect "Reverted apply run [0-9]+ now \\(1 change undone" "r did not revert" && snap 200x60-reverted-now
[ "$(cat "$P")" = 3 ] || fail "r: page-cluster $(cat "$P")"
keys Escape
# an apply awaiting confirmation (from the CLI): History's b reverts it after y
"$SWAPTUNE" --db "$db" --sysroot "$root" apply page-cluster=1 --confirm-within 2m --yes >/dev/null ||
	fail "apply --confirm-within from the CLI: exit $?"
keys 6
expect "run +kind" "200x60 history"
keys b
expect "Apply run [0-9]+ awaits confirmation: revert it now\\? \\[y/N\\]" "b with a pending apply" &&
	snap 200x60-history-revert-ask
keys y
expect "reverted apply run [0-9]+ \\(1 change undone\\)" "b did not revert the pending apply"
[ "$(cat "$P")" = 3 ] || fail "b on the pending apply: page-cluster $(cat "$P")"
quit_ok

# a sysroot this user cannot write (or the live host without root): the keys say why
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	ro=$scratch/ro
	mkdir -p "$ro"
	cp "$db" "$ro/db"
	chown -R nobody "$ro"
	chmod 755 "$scratch"
	mkdir -p "$scratch/home-nobody"
	chown nobody "$scratch/home-nobody"
	tui_start_as nobody 80 24 --db "$ro/db" --sysroot "$root" --panel runs
	why="the sysroot .* is not writable"
else
	tui_start 80 24 --db "$db" --panel runs
	why="changing kernel settings needs root"
fi
expect "run +kind" "read-only: runs"
choose "run 1, probe" "read-only: run 1"
keys a
expect "read-only: $why" "read-only: no reason on the apply screen" && snap 80x24-apply-readonly
keys y
expect "apply is disabled: " "read-only: y not refused"
keys Escape 6
expect "b rollback disabled: " "read-only: history without the note" && snap 80x24-history-readonly
keys b
expect "rollback is disabled: " "read-only: b not refused"
quit_ok
[ "$(cat "$P")" = 3 ] || fail "the end: page-cluster $(cat "$P")"
done_testing
