#!/bin/sh
# Runs of one recipe (same workload, working set, memcg limit, arms and
# settings, baseline; other seeds) are the stages of one sequential design,
# so re-running until one run says CHANGE does not work, while a re-run's
# evidence adds. Runs inserted the way the probe engine writes them
# (tests/helpers/rep-runs.py):
#  - run 1, the first of its recipe, is judged alone (k = 1, nothing pooled);
#  - run 3 alone says CHANGE (+6 %), but runs 1 and 2 of its recipe showed
#    nothing: stage 3 (Z of the three runs against its bound) does not cross,
#    INCONCLUSIVE, and the output says which runs count and that earlier
#    runs count; --exit-code 11;
#  - run 4 differs only in the working set: another recipe, judged alone;
#  - runs 5-7 repeat a real +10 %: the first run already showed it, CHANGE;
#  - run 8 (the 4th of run 3's recipe) counts runs 1, 2, 3 and 8;
#  - run 9 stopped before its first look (no verdict) still counts - a stage
#    with z = 0, so aborting unpromising runs cannot help a change through:
#    run 10 is the 6th;
#  - apply --run 3 refuses the change the recipe's verdict does not make.
# Documents validate against the schema.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to write the runs"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
db=$scratch/db
sr=$FIXTURES/vm-v1
st() { "$SWAPTUNE" --db "$db" --sysroot "$sr" "$@"; }

new_store "$db" || fail "creating the store"
python3 "$TOP/tests/helpers/rep-runs.py" "$db" || fail "inserting the runs"

for r in 1 3 4 7 8 10; do
	st recommend --run $r --json >"$scratch/r$r.json" || fail "recommend --run $r --json: exit $?"
	"$check" "$SCHEMAS/recommend.schema.json" "$scratch/r$r.json" >"$scratch/v.out" 2>&1 ||
		fail "run $r json: $(cat "$scratch/v.out")"
done
python3 - "$scratch" <<'PY' || fail "replication verdicts"
import json, sys
d = {r: json.load(open("%s/r%d.json" % (sys.argv[1], r))) for r in (1, 3, 4, 7, 8, 10)}
rep = {r: d[r]["replication"] for r in d}
kind = {r: d[r]["verdict"]["kind"] for r in d}
assert rep[1]["k"] == 1 and not rep[1]["pooled"] and rep[1]["runs"] == [1], rep[1]
assert kind[1] == "keep", kind[1]
# the lucky run: alone CHANGE, pooled not
assert rep[3]["pooled"] and rep[3]["k"] == 3 and rep[3]["runs"] == [1, 2, 3], rep[3]
assert rep[3]["own_verdict"] == "change" and kind[3] == "inconclusive", (rep[3], kind[3])
# stage 3 spends a quarter of the 0.5 % the first run leaves
assert abs(rep[3]["alpha_k"] - 0.005 / 4) < 1e-12, rep[3]["alpha_k"]
assert abs(rep[3]["alpha_first"] - 0.02) < 1e-12, rep[3]
arm = {a["name"]: a for a in rep[3]["arms"]}["pc0"]
assert arm["runs_pooled"] == 3 and not arm["crosses"] and arm["effect_pct"] < 4, arm
assert arm["z"] < arm["bound"], arm
assert "earlier runs count" in " ".join(d[3]["verdict"]["reasons"]), d[3]["verdict"]["reasons"]
# its own choice as the pool sees it: not crossing, not futile
assert {a["name"]: a for a in d[3]["arms"]}["pc0"]["status"] == "noisy", d[3]["arms"]
assert d[3]["verdict"]["apply"] is None
assert d[3]["verdict"]["apply_with_net"] is None
# another recipe: alone
assert rep[4]["k"] == 1 and rep[4]["recipe"] != rep[3]["recipe"] and kind[4] == "change", rep[4]
# a real effect repeated
assert rep[7]["pooled"] and rep[7]["runs"] == [5, 6, 7] and kind[7] == "change", (rep[7], kind[7])
assert d[7]["verdict"]["arm"] == "pc0"
arm = {a["name"]: a for a in rep[7]["arms"]}["pc0"]
assert arm["crosses"] and arm["shown"] and 8 < arm["effect_pct"] < 12, arm
# every earlier run counts, and the recipe ignores seeds and calibrated accesses
assert rep[8]["k"] == 4 and rep[8]["runs"] == [1, 2, 3, 8] and rep[8]["recipe"] == rep[3]["recipe"], rep[8]
assert kind[8] == "inconclusive" and rep[8]["own_verdict"] == "change", (kind[8], rep[8])
# a run stopped before its first look gave no verdict, but counts (aborted)
assert rep[10]["k"] == 6 and rep[10]["runs"] == [1, 2, 3, 8, 9, 10], rep[10]
assert abs(rep[10]["alpha_k"] - 0.005 / 32) < 1e-12, rep[10]["alpha_k"]
PY

st recommend --run 3 >"$scratch/r3.txt" || fail "recommend --run 3: exit $?"
grep -q '^Verdict: INCONCLUSIVE' "$scratch/r3.txt" || fail "run 3 text: no INCONCLUSIVE verdict"
grep -q '^Replications: run 3 is run 3 of its recipe ([0-9a-f]*); runs pooled: 1 2 3$' "$scratch/r3.txt" ||
	fail "run 3 text: the pooled runs are not listed: $(cat "$scratch/r3.txt")"
grep -q 'Earlier runs count' "$scratch/r3.txt" || fail "run 3 text: does not say earlier runs count"
grep -q 'this run alone says change' "$scratch/r3.txt" || fail "run 3 text: its own verdict is not shown"
# its own "change to" reason under the pooled INCONCLUSIVE says whose it is
grep -q '^  - this run alone: change to pc0: ' "$scratch/r3.txt" || fail "run 3 text: its own change reason reads as the verdict's"
grep -q '^  - change to' "$scratch/r3.txt" && fail "run 3 text: a bare 'change to' under INCONCLUSIVE"
st recommend --run 3 --exit-code >/dev/null
[ $? -eq 11 ] || fail "recommend --run 3 --exit-code: want 11 (inconclusive)"
st recommend --run 7 --exit-code >/dev/null
[ $? -eq 10 ] || fail "recommend --run 7 --exit-code: want 10 (change)"
st recommend --run 1 >"$scratch/r1.txt" || fail "recommend --run 1: exit $?"
grep -q '^Replications' "$scratch/r1.txt" && fail "run 1 (the first of its recipe) shows a pooling"

st apply --run 3 --dry-run >"$scratch/apply.out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "apply --run 3 applied a change the pooled verdict does not make"
grep -qi 'inconclusive' "$scratch/apply.out" || fail "apply --run 3: $(cat "$scratch/apply.out")"
done_testing
