#!/bin/sh
# recommend on probe runs inserted into a scratch store the way the probe
# engine writes them: the effect and p of every arm match an independent
# computation from the stored trial values (sqlite3 CLI +
# tests/helpers/paired.py, standard-library Python: the Huber estimate of
# the log-ratio on rounds both arms completed, and the exact one-sided p of
# the sign-flip test by enumerating every sign pattern); the interval holds
# the estimate and its lower end is above 0 exactly when the verdict's test
# crossed;
# warm-up trials are left out; failed trials are their own endpoint, never
# a speed; an OOM-killed arm does not win; a lower-is-better metric is
# stated as its own ratio; --min-effect, --baseline and the latest-run
# default work; without a probe run the state-only rules answer. Documents
# validate.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 for the reference computation"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
db=$scratch/db
sr=$FIXTURES/vm-v1
st() { "$SWAPTUNE" --db "$db" --sysroot "$sr" "$@"; }

# no probe run: advice from the state alone
st recommend >"$scratch/state.txt" || fail "recommend without runs: exit $?"
grep -q '^No probe run: advice from the host.s state alone' "$scratch/state.txt" || fail "state mode text"
grep -q '^INFO zswap-disabled: zswap is disabled while 1 swap area is active' "$scratch/state.txt" ||
	fail "state mode: zswap-disabled finding missing"
st recommend --json >"$scratch/state.json" || fail "recommend --json without runs: exit $?"
"$check" "$SCHEMAS/recommend.schema.json" "$scratch/state.json" >"$scratch/v.out" 2>&1 || fail "state json: $(cat "$scratch/v.out")"
python3 - "$scratch/state.json" <<'PY' || fail "state json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "state", d["mode"]
assert d["why"].startswith("no probe run in the store"), d["why"]
rules = {r["rule"]: r for r in d["rules"]}
assert rules["zswap-disabled"]["status"] == "finding"
assert rules["no-swap"]["status"] == "ok"
assert rules["rotational-swap"]["probe"] == "swaptune probe --arms pc3,pc1,pc0"
PY

new_store "$db" || fail "creating the store"
sqlite3 "$db" <<'SQL' || fail "inserting the runs"
-- run 1: throughput, pc0 clearly better, pc1 the same as pc3; 12 rounds in
-- random orders (fewer cannot show anything at a first run's level: the
-- least p of n sign flips is 2^-n), and pc0 alone in an interrupted 13th
INSERT INTO runs (id, kind, status, params, summary) VALUES (1, 'probe', 'ok',
 '{"workload":{"name":"anon-zipf","working_set_bytes":268435456},"baseline":"pc3"}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true}}');
INSERT INTO arms (id, run_id, name, settings) VALUES
 (1, 1, 'pc3', '{"page-cluster":"3"}'), (2, 1, 'pc1', '{"page-cluster":"1"}'),
 (3, 1, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (1, 1, 0, 1, 1, 'ok', 500), (1, 2, 0, 2, 1, 'ok', 500), (1, 3, 0, 3, 1, 'ok', 500),
 (1, 3, 1, 4, 0, 'ok', 1058), (1, 1, 1, 5, 0, 'ok', 1002), (1, 2, 1, 6, 0, 'ok', 1009),
 (1, 2, 2, 7, 0, 'ok', 999), (1, 1, 2, 8, 0, 'ok', 993), (1, 3, 2, 9, 0, 'ok', 1050),
 (1, 2, 3, 10, 0, 'ok', 995), (1, 3, 3, 11, 0, 'ok', 1042), (1, 1, 3, 12, 0, 'ok', 991),
 (1, 1, 4, 13, 0, 'ok', 1005), (1, 2, 4, 14, 0, 'ok', 1015), (1, 3, 4, 15, 0, 'ok', 1048),
 (1, 2, 5, 16, 0, 'ok', 1012), (1, 1, 5, 17, 0, 'ok', 1002), (1, 3, 5, 18, 0, 'ok', 1049),
 (1, 2, 6, 19, 0, 'ok', 996), (1, 3, 6, 20, 0, 'ok', 1047), (1, 1, 6, 21, 0, 'ok', 1004),
 (1, 1, 7, 22, 0, 'ok', 995), (1, 3, 7, 23, 0, 'ok', 1037), (1, 2, 7, 24, 0, 'ok', 1004),
 (1, 2, 8, 25, 0, 'ok', 1010), (1, 1, 8, 26, 0, 'ok', 1002), (1, 3, 8, 27, 0, 'ok', 1050),
 (1, 2, 9, 28, 0, 'ok', 1007), (1, 3, 9, 29, 0, 'ok', 1065), (1, 1, 9, 30, 0, 'ok', 1008),
 (1, 3, 10, 31, 0, 'ok', 1052), (1, 1, 10, 32, 0, 'ok', 1002), (1, 2, 10, 33, 0, 'ok', 1012),
 (1, 3, 11, 34, 0, 'ok', 1062), (1, 2, 11, 35, 0, 'ok', 1008), (1, 1, 11, 36, 0, 'ok', 1010),
 (1, 3, 12, 37, 0, 'ok', 1032), (1, 1, 12, 38, 0, 'ok', 988), (1, 2, 12, 39, 0, 'ok', 980),
 (1, 3, 13, 40, 0, 'ok', 1047);
-- run 2: pc0 OOM-killed once, and otherwise the fastest
INSERT INTO runs (id, kind, status, params, summary) VALUES (2, 'probe', 'ok',
 '{"workload":{"name":"anon-seq"},"baseline":"pc3"}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true}}');
INSERT INTO arms (id, run_id, name, settings) VALUES
 (4, 2, 'pc3', '{"page-cluster":"3"}'), (5, 2, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (2, 4, 1, 1, 0, 'ok', 100), (2, 5, 1, 2, 0, 'ok', 200), (2, 4, 2, 3, 0, 'ok', 102),
 (2, 5, 2, 4, 0, 'oom', NULL), (2, 4, 3, 5, 0, 'ok', 98), (2, 5, 3, 6, 0, 'ok', 210);
-- run 3: wall time of a command, lower is better; the newest ok run
INSERT INTO runs (id, kind, status, params, summary) VALUES (3, 'probe', 'ok',
 '{"workload":{"name":"cmd","argv":["true"]},"baseline":"pc3"}',
 '{"primary_metric":{"key":"wall_s","name":"wall time","higher_is_better":false}}');
INSERT INTO arms (id, run_id, name, settings) VALUES
 (6, 3, 'pc3', '{"page-cluster":"3"}'), (7, 3, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (3, 7, 1, 1, 0, 'ok', 9.27), (3, 6, 1, 2, 0, 'ok', 10.06), (3, 7, 2, 3, 0, 'ok', 9.28),
 (3, 6, 2, 4, 0, 'ok', 10.17), (3, 7, 3, 5, 0, 'ok', 9.32), (3, 6, 3, 6, 0, 'ok', 10.07),
 (3, 6, 4, 7, 0, 'ok', 9.94), (3, 7, 4, 8, 0, 'ok', 9.31), (3, 7, 5, 9, 0, 'ok', 9.22),
 (3, 6, 5, 10, 0, 'ok', 10.02), (3, 7, 6, 11, 0, 'ok', 9.17), (3, 6, 6, 12, 0, 'ok', 10.12),
 (3, 7, 7, 13, 0, 'ok', 9.28), (3, 6, 7, 14, 0, 'ok', 10.21), (3, 6, 8, 15, 0, 'ok', 10.13),
 (3, 7, 8, 16, 0, 'ok', 9.07), (3, 7, 9, 17, 0, 'ok', 9.05), (3, 6, 9, 18, 0, 'ok', 9.81),
 (3, 7, 10, 19, 0, 'ok', 9.11), (3, 6, 10, 20, 0, 'ok', 9.85), (3, 7, 11, 21, 0, 'ok', 9.14),
 (3, 6, 11, 22, 0, 'ok', 10.19), (3, 7, 12, 23, 0, 'ok', 9.25), (3, 6, 12, 24, 0, 'ok', 10.02);
-- run 4: newer but failed: not the default
INSERT INTO runs (id, kind, status) VALUES (4, 'probe', 'failed');
-- run 5: pc0 faster, but one of its trials failed to run: a failure, counted
-- and judged on its own (never dropped unsaid, never turned into a speed)
INSERT INTO runs (id, kind, status, params, summary) VALUES (5, 'probe', 'failed',
 '{"workload":{"name":"anon-zipf"},"baseline":"pc3"}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true}}');
INSERT INTO arms (id, run_id, name, settings) VALUES
 (8, 5, 'pc3', '{"page-cluster":"3"}'), (9, 5, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (5, 8, 1, 1, 0, 'ok', 1000), (5, 9, 1, 2, 0, 'ok', 1050), (5, 8, 2, 3, 0, 'ok', 1012),
 (5, 9, 2, 4, 0, 'ok', 1060), (5, 9, 3, 5, 0, 'ok', 1041), (5, 8, 3, 6, 0, 'ok', 995),
 (5, 8, 4, 7, 0, 'ok', 1003), (5, 9, 4, 8, 0, 'failed', NULL), (5, 9, 5, 9, 0, 'ok', 1047),
 (5, 8, 5, 10, 0, 'ok', 990);
SQL

# compare RUN DIRECTION: recommend's numbers against welch.py on the stored trials
compare() {
	run=$1 dir=$2
	st recommend --run "$run" --json >"$scratch/r$run.json" || { fail "recommend --run $run: exit $?"; return; }
	"$check" "$SCHEMAS/recommend.schema.json" "$scratch/r$run.json" >"$scratch/v.out" 2>&1 ||
		fail "run $run json: $(cat "$scratch/v.out")"
	sqlite3 -separator ' ' "$db" "SELECT a.name, t.round, t.status, coalesce(t.primary_value, '-')
		FROM trials t JOIN arms a ON a.id = t.arm_id
		WHERE t.run_id = $run AND t.warmup = 0 ORDER BY t.round, t.seq" |
		python3 "$TOP/tests/helpers/paired.py" pc3 "$dir" >"$scratch/ref$run.txt" ||
		{ fail "paired.py on run $run"; return; }
	python3 - "$scratch/r$run.json" "$scratch/ref$run.txt" <<'PY' || fail "run $run: recommend differs from the reference"
import json, math, sys
d = json.load(open(sys.argv[1]))
arms = {a["name"]: a for a in d["arms"]}
n = 0
for line in open(sys.argv[2]):
    name, eff, m, p, pairs = line.split()
    a, p = arms[name], float(p)
    if abs(a["effect_pct"] - float(eff)) > 1e-6 * max(1.0, abs(float(eff))):
        sys.exit("%s effect_pct: swaptune %r, reference %r" % (name, a["effect_pct"], eff))
    got = a["p_one_sided"]
    if not math.isnan(p) and abs(got - p) > 1e-12:
        sys.exit("%s one-sided p: swaptune %r, reference (every sign pattern) %r" % (name, got, p))
    # too few rounds for any shift to be rejected: an unbounded end (null)
    lo = -math.inf if a["ci_low_pct"] is None else a["ci_low_pct"]
    hi = math.inf if a["ci_high_pct"] is None else a["ci_high_pct"]
    if not lo <= a["effect_pct"] <= hi:
        sys.exit("%s: the interval does not hold the estimate" % name)
    n += 1
assert n > 0
print("checked", n, "arms")
PY
}

compare 1 higher
python3 - "$scratch/r1.json" <<'PY' || fail "run 1 verdict"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdict"]
assert v["kind"] == "change" and v["arm"] == "pc0", v
assert v["settings"] == {"page-cluster": "0"}, v["settings"]
assert v["apply"] == "swaptune apply --run 1", v["apply"]
assert v["apply_with_net"] == "swaptune apply --run 1 --confirm-within 5m", v.get("apply_with_net")
assert d["run"]["baseline"] == "pc3" and d["run"]["workload"] == "anon-zipf"
arms = {a["name"]: a for a in d["arms"]}
assert arms["pc0"]["trials"] == 13 and arms["pc0"]["failed"] == 0, arms["pc0"]
assert arms["pc3"]["trials"] == 12 and arms["pc3"]["baseline"]
assert arms["pc0"]["status"] == "better" and arms["pc1"]["status"] != "better"
assert arms["pc0"]["ci_low_pct"] > 0, arms["pc0"]
assert abs(arms["pc3"]["mean"] - 1000.1666666666666) < 1e-9, arms["pc3"]["mean"]
PY
st recommend --run 1 >"$scratch/r1.txt" || fail "recommend --run 1 (text): exit $?"
grep -q '^Verdict: CHANGE to pc0$' "$scratch/r1.txt" || fail "run 1 text: no CHANGE line"
# the quick path carries the safety net: the dead man's switch, the look first, the confirmation
grep -q '^To apply: swaptune apply --run 1 --confirm-within 5m (undone unless confirmed)$' "$scratch/r1.txt" ||
	fail "run 1 text: no apply hint with --confirm-within"
grep -q '^  first look: swaptune apply --run 1 --dry-run; keep it: swaptune apply --confirm$' "$scratch/r1.txt" ||
	fail "run 1 text: no --dry-run pointer"
grep -q "^  pc0 .* better .* +4\.[0-9] %  \[" "$scratch/r1.txt" || fail "run 1 text: pc0 row: $(grep pc0 "$scratch/r1.txt")"
grep -q "false-change rate of this run's design <= 2.00 %" "$scratch/r1.txt" ||
	fail "run 1 text: the procedure's error rate is not stated"
unfold "$scratch/r1.txt" | grep -q "change to pc0: throughput +4\.[0-9] % \[.*by the exact randomisation test" ||
	fail "run 1 text: the headline"

# run 5: a failed trial is counted as a failure, never as a speed (nor dropped unsaid): no change
compare 5 higher
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
arms = {a["name"]: a for a in d["arms"]}
assert d["verdict"]["kind"] != "change", d["verdict"]
assert arms["pc0"]["failed"] == 1, arms["pc0"]
assert any("1 of 5 trials failed" in r and "never a speed" in r for r in d["verdict"]["reasons"]), d["verdict"]["reasons"]
' "$scratch/r5.json" || fail "run 5: a failed trial must be counted as a failure"

# --exit-code carries the answer: 10 change, 0 keep; errors stay 1-3
st recommend --run 1 --exit-code >/dev/null; rc=$?
[ $rc -eq 10 ] || fail "recommend --run 1 --exit-code: exit $rc, want 10 (change)"
st recommend --run 5 --exit-code >/dev/null; rc=$?
[ $rc -eq 11 ] || fail "recommend --run 5 --exit-code: exit $rc, want 11 (inconclusive)"
st recommend --run 999 --exit-code >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "recommend --run 999 --exit-code: exit $rc, want 2"

# a higher minimum effect: no change
st recommend --run 1 --min-effect 10 --json >"$scratch/r1m.json" || fail "--min-effect 10: exit $?"
grep -q '"kind":[[:space:]]*"change"' "$scratch/r1m.json" && fail "--min-effect 10 still recommends a change"
grep -q '"min_effect_pct":[[:space:]]*10' "$scratch/r1m.json" || fail "--min-effect not reported"
# judged against pc0 instead: pc3 is worse
st recommend --run 1 --baseline pc0 --json >"$scratch/r1b.json" || fail "--baseline pc0: exit $?"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
arms = {a["name"]: a for a in d["arms"]}
assert d["run"]["baseline"] == "pc0" and d["run"]["baseline_source"] == "chosen with --baseline"
assert arms["pc3"]["status"] == "worse", arms["pc3"]["status"]
assert d["verdict"]["kind"] == "keep", d["verdict"]["kind"]
' "$scratch/r1b.json" || fail "--baseline pc0 verdict"

# OOM: the killed arm loses, whatever its speed
compare 2 higher
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
arms = {a["name"]: a for a in d["arms"]}
assert arms["pc0"]["status"] != "better" and arms["pc0"]["oom_killed"] == 1, arms["pc0"]
assert d["verdict"]["kind"] != "change", d["verdict"]
assert any("OOM" in r or "killed" in r for r in d["verdict"]["reasons"]), d["verdict"]["reasons"]
' "$scratch/r2.json" || fail "run 2: OOM-killed arm must lose"

# lower is better: 9.2 s against 10.05 s is a gain; stated as the wall time's own -8 %
compare 3 lower
grep -q '"higher_is_better":[[:space:]]*false' "$scratch/r3.json" || fail "run 3: direction"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
arms = {a["name"]: a for a in d["arms"]}
assert arms["pc0"]["effect_pct"] > 8, arms["pc0"]["effect_pct"]
assert d["verdict"]["kind"] == "change" and d["verdict"]["arm"] == "pc0", d["verdict"]
assert any("wall time -8." in r and "(lower is better)" in r for r in d["verdict"]["reasons"]), d["verdict"]["reasons"]
' "$scratch/r3.json" || fail "run 3: wall time verdict"

# default: the newest run that ended ok
st recommend --json >"$scratch/latest.json" || fail "recommend (latest): exit $?"
grep -q '"id":[[:space:]]*3,' "$scratch/latest.json" || fail "default run is not 3"

# bad input
for args in "--run 99" "--run 0" "--run x" "--run 1 --baseline nope" "--min-effect -1" "--state --run 1" "extra"; do
	# shellcheck disable=SC2086
	st recommend $args >/dev/null 2>"$scratch/err"
	rc=$?
	[ $rc -eq 2 ] || fail "recommend $args: exit $rc, want 2 ($(cat "$scratch/err"))"
done
st recommend --run 4 >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] || fail "recommend --run 4 (no arms): want exit 2"
grep -q 'probe run 4 has no arms' "$scratch/err" || fail "run 4 message: $(cat "$scratch/err")"
done_testing
