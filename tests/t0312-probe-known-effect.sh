#!/bin/sh
# A live A/B with an effect known by construction (root): the cmd workload
# tests/helpers/known-effect does 10 % more CPU work when vm.page-cluster is
# 3, so its throughput (units per CPU second) is 1/1.1 of the other arm's:
# pc0 is +10.0 % better than pc3 by construction. A fixed design of 10
# rounds must find it: CHANGE to pc0, the comparison crossing its bound,
# the effect positive, and +10 % inside the 99.9 % interval of the paired
# log-ratios recomputed from the stored trials (the probe's own 95 %
# interval covers it in 19 runs of 20; `make calibrate` counts that over
# several runs). About 35 s.
. "$(dirname "$0")/lib.sh"

need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the verdict"
helper=$BUILD/helpers/known-effect
[ -x "$helper" ] || { echo "FAIL: $helper not built (make check builds it)"; exit 1; }
db=$scratch/db
# run ARGS...: retry while someone else's probe holds the lock
run() {
	i=0
	while :; do
		"$SWAPTUNE" --db "$db" "$@" >"$scratch/out" 2>"$scratch/err"
		rc=$?
		[ $rc -eq 3 ] && grep -q 'is changing this host' "$scratch/err" && [ $i -lt 180 ] &&
			{ i=$((i + 1)); sleep 5; continue; }
		return $rc
	done
}

run probe --yes --json --progress none --workload cmd --metric-regex 'known-effect: ([0-9.]+) units' \
	--arms pc3,pc0 --baseline pc3 --reps 10 --memcg-limit 64M -- "$helper" 1500 3 10 ||
	{ fail "probe: exit $? ($(cat "$scratch/err"))"; done_testing; }
run recommend --json || { fail "recommend: exit $?"; done_testing; }
cp "$scratch/out" "$scratch/rec.json"
python3 - "$scratch/rec.json" "$db" <<'PY' || fail "the known +10 % effect was not found: $(cat "$scratch/rec.json")"
import json, math, sqlite3, sys
d = json.load(open(sys.argv[1]))
arm = {a["name"]: a for a in d["arms"]}["pc0"]
print("pc0 vs pc3: %+.1f %% [%+.1f, %+.1f] (truth +10.0 %%), verdict %s" %
      (arm["effect_pct"], arm["ci_low_pct"], arm["ci_high_pct"], d["verdict"]["kind"]))
assert d["verdict"]["kind"] == "change" and d["verdict"]["arm"] == "pc0", d["verdict"]
assert arm["status"] == "better" and arm["ci_low_pct"] > 0 and arm["effect_pct"] > 0, arm
db = sqlite3.connect(sys.argv[2])
rows = db.execute("SELECT t.round, a.name, t.primary_value FROM trials t JOIN arms a ON a.id = t.arm_id"
                  " WHERE t.run_id = ? AND t.warmup = 0 AND t.status = 'ok'", (d["run"]["id"],)).fetchall()
by = {}
for r, name, v in rows:
    by.setdefault(r, {})[name] = v
dd = [math.log(x["pc0"] / x["pc3"]) for x in by.values() if "pc0" in x and "pc3" in x]
n = len(dd)
assert n >= 8, n
m = sum(dd) / n
se = math.sqrt(sum((x - m) ** 2 for x in dd) / (n - 1) / n)
t999 = {7: 5.408, 8: 5.041, 9: 4.781}[n - 1]
lo, hi = math.expm1(m - t999 * se) * 100, math.expm1(m + t999 * se) * 100
print("99.9 %% interval from the stored trials: [%+.1f, %+.1f]" % (lo, hi))
assert lo <= 10.0 <= hi, (lo, hi)
PY
done_testing
