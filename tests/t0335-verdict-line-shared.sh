#!/bin/sh
# One verdict line for both kinds of run (issue 34, finding 9): recommend
# of a probe run and of a switchback run that both say change to pc0 print
# the same line, "Verdict: CHANGE to pc0" (a switchback said "Switchback run
# 2: change - change to pc0"), each under the line that names its run; the
# JSON says the same words (verdict.kind and .arm, switchback.decision and
# .chosen) and --exit-code answers 10 for both; the TUI's Runs pane shows
# each with that line in the same colour. A scratch store with a
# crafted probe run (pc0 +30 % in 10 rounds) and a crafted switchback run
# (6 blocks of pc3 and pc0, pc0 +11 % in every block, as the engine stores
# them: the plan and schedule of seed 42, a row per window) on the vm-v1
# fixture; fixture only (side_by_side).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the JSON"

db=$scratch/db
st() { "$SWAPTUNE" --db "$db" --sysroot "$FIXTURES/vm-v1" "$@"; }
new_store "$db" || fail "creating the store"
sqlite3 "$db" <<SQL || fail "inserting the runs"
$(sql_probe_run_pc0)
INSERT INTO runs (id, kind, status, params, summary) VALUES (2, 'switchback', 'ok',
 '{"origin":"switchback","plan":{"arms":2,"blocks":6,"window_s":10,"washout_s":5,"looks":[6],"alpha":0.02,"seed":42,"draws":9999,"min_effect":2},"schedule":[[0,1],[0,1],[0,1],[1,0],[0,1],[0,1]],"arms":[{"settings":{"page-cluster":"3"},"name":"pc3"},{"settings":{"page-cluster":"0"},"name":"pc0"}],"baseline":"pc3","metric":{"source":"cmd","kernel":"psi-some","cmd":"echo 1","path":"","url":"","name":"","label":"","counter":false,"higher_better":true,"cpu_per_work":false},"cgroup":"","guard":{"psi_full_max":60,"psi_some_max":0,"span_s":5,"max_failures":3,"psi_scope":"host"},"slices":{"n":0,"washout":0,"slice_s":0},"settings_now":{},"scope":{"psi_some_pct":"n/a","psi_full_pct":"n/a","majfault_per_s":"n/a","refault_per_s":"n/a","swapin_per_s":"n/a","swap_ra_per_s":"n/a","swap_ra_hit_per_s":"n/a","zswpin_per_s":"n/a","cpu_s_per_s":"n/a"}}',
 '{"status":"ok","stop_reason":"","windows":12,"blocks":6,"decision":"change","chosen":"pc0","restored":true}');
INSERT INTO arms (id, run_id, name, settings) VALUES (3, 2, 'pc3', '{"page-cluster":"3"}'), (4, 2, 'pc0', '{"page-cluster":"0"}');
INSERT INTO windows (run_id, idx, block, pos, arm_id, started_at, start_s, switch_s, count_start_s, end_s, outcome, value) VALUES
 (2, 0, 0, 0, 3, '2026-12-01T00:00:00Z', 0, 0, 5, 10, 'ok', 1000),
 (2, 1, 0, 1, 4, '2026-12-01T00:00:01Z', 10, 10, 15, 20, 'ok', 1111),
 (2, 2, 1, 0, 3, '2026-12-01T00:00:02Z', 20, 20, 25, 30, 'ok', 1020),
 (2, 3, 1, 1, 4, '2026-12-01T00:00:03Z', 30, 30, 35, 40, 'ok', 1133),
 (2, 4, 2, 0, 3, '2026-12-01T00:00:04Z', 40, 40, 45, 50, 'ok', 1040),
 (2, 5, 2, 1, 4, '2026-12-01T00:00:05Z', 50, 50, 55, 60, 'ok', 1155),
 (2, 6, 3, 0, 4, '2026-12-01T00:00:06Z', 60, NULL, 65, 70, 'ok', 1166),
 (2, 7, 3, 1, 3, '2026-12-01T00:00:07Z', 70, 70, 75, 80, 'ok', 1070),
 (2, 8, 4, 0, 3, '2026-12-01T00:00:08Z', 80, NULL, 85, 90, 'ok', 1080),
 (2, 9, 4, 1, 4, '2026-12-01T00:00:09Z', 90, 90, 95, 100, 'ok', 1199),
 (2, 10, 5, 0, 3, '2026-12-01T00:00:10Z', 100, 100, 105, 110, 'ok', 1100),
 (2, 11, 5, 1, 4, '2026-12-01T00:00:11Z', 110, 110, 115, 120, 'ok', 1221);
SQL

# the same verdict line, each under the line naming its run
st recommend --run 1 >"$scratch/probe.txt" || fail "recommend --run 1: exit $?"
st recommend --run 2 >"$scratch/sb.txt" || fail "recommend --run 2: exit $?"
grep -qx 'Verdict: CHANGE to pc0' "$scratch/probe.txt" || fail "probe: $(grep Verdict "$scratch/probe.txt")"
grep -qx 'Verdict: CHANGE to pc0' "$scratch/sb.txt" ||
	fail "switchback: no 'Verdict: CHANGE to pc0' line: $(head -4 "$scratch/sb.txt")"
[ "$(grep -c '^Verdict: ' "$scratch/sb.txt")" = 1 ] || fail "switchback: not one verdict line"
head -1 "$scratch/probe.txt" | grep -q '^Probe run 1: ' || fail "probe: first line $(head -1 "$scratch/probe.txt")"
head -1 "$scratch/sb.txt" | grep -q '^Switchback run 2: 6 of 6 blocks of 2 x 10 s windows' ||
	fail "switchback: first line $(head -1 "$scratch/sb.txt")"
grep -Eq 'Switchback run [0-9]+: (change|keep|inconclusive)' "$scratch/sb.txt" && fail "switchback: the old verdict shape"
# the JSON in the same words, and the exit code
st recommend --run 1 --json >"$scratch/probe.json" || fail "recommend --run 1 --json: exit $?"
st recommend --run 2 --json >"$scratch/sb.json" || fail "recommend --run 2 --json: exit $?"
python3 - "$scratch/probe.json" "$scratch/sb.json" <<'PY' || fail "the JSON verdicts differ"
import json, sys
p, s = (json.load(open(f)) for f in sys.argv[1:3])
assert (p["verdict"]["kind"], p["verdict"]["arm"]) == ("change", "pc0"), p["verdict"]
assert (s["switchback"]["decision"], s["switchback"]["chosen"]) == ("change", "pc0"), s["switchback"]
PY
for r in 1 2; do
	st recommend --run $r --exit-code >/dev/null
	rc=$?
	[ $rc -eq 10 ] || fail "recommend --run $r --exit-code: exit $rc, want 10 (change)"
done

# the TUI's Runs pane: the same line in the same colour (the switchback, newest, is chosen first)
# sgr: the escapes in front of the verdict line's text on the screen
sgr() { tmux capture-pane -e -t "$sess" -p | grep 'Verdict: CHANGE to pc0' | sed 's/Verdict: CHANGE to pc0.*//; s/^[^[:cntrl:]]*//'; }
tui_start 100 40 --db "$db" --sysroot "$FIXTURES/vm-v1" --panel runs --interval 300ms
expect "run 2, switchback" "the switchback run is not chosen first"
expect "Verdict: CHANGE to pc0" "the switchback's pane has no verdict line" && snap switchback
sb_sgr=$(sgr)
keys Down
expect "run 1, probe" "run 1 not chosen"
expect "Verdict: CHANGE to pc0" "the probe's pane has no verdict line" && snap probe
probe_sgr=$(sgr)
[ -n "$probe_sgr" ] || fail "the probe's verdict line is not in a colour"
[ "$sb_sgr" = "$probe_sgr" ] || fail "the verdict lines differ in colour: switchback '$sb_sgr', probe '$probe_sgr'"
quit_ok
done_testing
