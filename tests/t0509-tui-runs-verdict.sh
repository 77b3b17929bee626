#!/bin/sh
# The TUI's Runs list and the verdict pane below it agree (issue 34,
# finding 8): a probe run's row shows the verdict its pane shows (the same
# judgement as `recommend --run`, not what the run stored at its end: here
# run 1 stored none and run 2 a stale "keep"); the list header marks the
# sorted column with its direction, s changes the key and S turns the order
# round visibly (the rows and the line under the list). A scratch store with
# crafted runs on a --sysroot copy of vm-v1; fixture only (side_by_side).
# A switchback run's row says its stored verdict in the verdict line's words.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"

db=$scratch/db
root=$scratch/root
cp -a "$FIXTURES/vm-v1" "$root" || fail "copying the fixture"
new_store "$db" || fail "creating the store"
plan='"plan":{"sequential":false,"looks":[10],"alpha":0.025,"min_effect_pct":2,"baseline":"pc3"}'
# run 1: pc0 +30 %, no verdict stored; run 2: the same, another recipe, a stale stored "keep"
sqlite3 "$db" <<SQL || fail "inserting the probe runs"
$(sql_probe_run_pc0)
INSERT INTO runs (id, kind, status, params, summary) VALUES (2, 'probe', 'ok',
 '{"workload":{"name":"anon-zipf","working_set_bytes":134217728},"baseline":"pc3",$plan}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true},"verdict":{"kind":"keep","arm":"pc3"}}');
INSERT INTO arms (id, run_id, name, settings) VALUES (3, 2, 'pc3', '{"page-cluster":"3"}'), (4, 2, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value)
 SELECT 2, arm_id + 2, round, seq, warmup, status, primary_value FROM trials WHERE run_id = 1;
SQL
for n in 1 2; do
	v=$("$SWAPTUNE" --db "$db" --sysroot "$root" recommend --run $n 2>&1 | sed -n 's/^Verdict: //p')
	[ "$v" = "CHANGE to pc0" ] || fail "recommend --run $n: verdict '$v', the test wants CHANGE to pc0"
done

tui_start 100 30 --db "$db" --sysroot "$root" --panel runs --interval 300ms
expect "Verdict: CHANGE to pc0" "run 2's pane" && snap 100x30-runs
# each row beside its pane: run 2 (chosen first), then run 1
for run in 2 1; do
	[ $run = 1 ] && { keys Down; expect "run 1, probe:" "run 1 not chosen"; }
	expect "Verdict: CHANGE to pc0" "run $run's pane"
	grep -qE "^ +$run +probe +ok .* CHANGE to pc0 *$" "$scratch/screen" ||
		fail "run $run's row does not say what its pane says: $(grep -E "^ +$run +probe" "$scratch/screen")"
done
grep -q "no verdict stored" "$scratch/screen" && fail "a row says 'no verdict stored' beside a verdict"
grep -qE "^ +[12] +probe .* KEEP" "$scratch/screen" && fail "a row shows the stale stored KEEP"
# the header marks the sorted column (newest first: down) and the line says the key
grep -qE "▼run +kind +status" "$scratch/screen" || fail "newest first: no ▼ on the run column"
grep -qE "2 shown, by newest \\(" "$scratch/screen" || fail "the line under the list does not name the sort"
first() { grep -E "^ +[0-9]+ +probe" "$scratch/screen" | head -1 | awk '{print $1}'; }
[ "$(first)" = 2 ] || fail "newest first: run $(first) on top"
keys S
expect "2 shown, by newest, reversed" "S did not say it turned the order round" && snap 100x30-reversed
grep -qE "▲run +kind" "$scratch/screen" || fail "reversed: no ▲ on the run column"
[ "$(first)" = 1 ] || fail "S: run $(first) still on top"
keys s s s
expect "by verdict, reversed" "s did not move the sort key to the verdict"
grep -qE "run +kind +status +started \\(UTC\\) +verdict / length▼" "$scratch/screen" ||
	fail "the verdict column is not marked"
fits 100 "runs"
keys S
expect "2 shown, by verdict \\(" "S back"
grep -qE "verdict / length▲" "$scratch/screen" || fail "verdict column not marked ▲ (a to z) after S"
# a switchback run's row says its verdict in the same words (its summary's decision and chosen),
# not "no verdict stored" (the list reloads at the next refresh)
sqlite3 "$db" "INSERT INTO runs (id, kind, status, params, summary) VALUES (3, 'switchback', 'ok', '{}',
 '{\"status\":\"ok\",\"stop_reason\":\"\",\"windows\":30,\"blocks\":15,\"decision\":\"change\",\"chosen\":\"pc0\",\"restored\":true}'),
 (4, 'switchback', 'ok', '{}', '{\"status\":\"ok\",\"decision\":\"keep\",\"chosen\":\"pc3\"}')" ||
	fail "inserting the switchback runs"
expect "4 shown" "the switchback runs are not listed"
grep -qE "^ +3 +switchback +ok .* CHANGE to pc0 *$" "$scratch/screen" ||
	fail "switchback run 3's row: $(grep -E "^ +3 +switchback" "$scratch/screen")"
grep -qE "^ +4 +switchback +ok .* KEEP pc3 *$" "$scratch/screen" ||
	fail "switchback run 4's row: $(grep -E "^ +4 +switchback" "$scratch/screen")"
quit_ok
done_testing
