#!/bin/sh
# fleet-report and fleet-advise over a store merged from four fake hosts'
# exports (tests/fixtures/fleet, made by gen-fleet.py): hosts are grouped by
# kernel, CPU, backend and workload; the pooled effect, its interval and
# tau^2 match an independent DerSimonian-Laird computation in Python from the
# trials in the files; a host like three of them gets advice naming the keys
# matched; one like only one host gets "too little to go on".
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null 2>&1 || skip "needs python3 for the reference computation"
db=$scratch/fleet.db
fx=$FIXTURES/fleet
sr=$FIXTURES/v2-zswap-on	# kernel 6.8.0-45-generic, a disk swap partition

"$SWAPTUNE" --db "$db" import "$fx"/host-0*.json >/dev/null || fail "import of the fleet fixtures: exit $?"
"$SWAPTUNE" --db "$db" fleet-report >"$scratch/report.txt" || fail "fleet-report: exit $?"
grep -q '^kernel 6.8.0-45-generic, cpu Fleet CPU v1, backend disk, workload anon-seq, baseline pc3$' \
	"$scratch/report.txt" || fail "fleet-report: no 6.8 group: $(cat "$scratch/report.txt")"
grep -q '^  runs *3 from 3 hosts$' "$scratch/report.txt" && grep -q '^  trials *48, 3 OOM-killed (6.2 %)$' "$scratch/report.txt" &&
grep -q '^  verdicts *CHANGE to pc0 in 3 runs$' "$scratch/report.txt" ||
	fail "fleet-report: counts of the 6.8 group"
"$SWAPTUNE" --db "$db" fleet-report --json >"$scratch/report.json" || fail "fleet-report --json: exit $?"
"$SWAPTUNE" --db "$db" --sysroot "$sr" fleet-advise --json --from "$db" >"$scratch/advise.json" ||
	fail "fleet-advise --json: exit $?"
"$SWAPTUNE" --db "$db" --sysroot "$sr" fleet-advise --from "$db" >"$scratch/advise.txt" || fail "fleet-advise: exit $?"
grep -q '^Hosts like this one in .*: kernel 6.8, backend disk, workload any$' "$scratch/advise.txt" ||
	fail "fleet-advise does not say which keys matched: $(cat "$scratch/advise.txt")"
grep -q '^Advice: pc0, ' "$scratch/advise.txt" || fail "fleet-advise: no pc0 advice"
"$SWAPTUNE" --db "$db" --sysroot "$sr" fleet-advise --kernel 6.1 --workload anon-seq >"$scratch/few.txt" ||
	fail "fleet-advise --kernel 6.1: exit $?"
grep -q '^Too little to go on' "$scratch/few.txt" || fail "one matching host is not too little"
"$SWAPTUNE" --db "$db" fleet-advise --backend floppy >/dev/null 2>&1; [ $? -eq 2 ] || fail "--backend floppy: not exit 2"
"$SWAPTUNE" --db "$db" fleet-advise --from "$scratch/none.db" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--from a missing store: not exit 2"

check=$BUILD/helpers/schema-check
if [ -x "$check" ]; then
	"$check" "$SCHEMAS/fleet-report.schema.json" "$scratch/report.json" >"$scratch/v.out" 2>&1 ||
		fail "fleet-report --json does not validate: $(head -5 "$scratch/v.out")"
	"$check" "$SCHEMAS/fleet-advise.schema.json" "$scratch/advise.json" >"$scratch/v.out" 2>&1 ||
		fail "fleet-advise --json does not validate: $(head -5 "$scratch/v.out")"
	"$SWAPTUNE" --db "$db" import --json "$fx/host-00.json" >"$scratch/import.json" || fail "import --json: exit $?"
	"$check" "$SCHEMAS/import.schema.json" "$scratch/import.json" >"$scratch/v.out" 2>&1 ||
		fail "import --json does not validate: $(head -5 "$scratch/v.out")"
	grep -q '"runs_present":[[:space:]]*1' "$scratch/import.json" || fail "import --json: the run is not present"
else
	fail "$check not built (make check builds it)"
fi
python3 - "$scratch/report.json" "$scratch/advise.json" "$fx"/host-0*.json <<'PY' || fail "pooled numbers differ from the reference"
import json, math, statistics, sys
rep, adv, files = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3:]
def effects(kernel_prefix, arm):
    out = []
    for f in files:
        d = json.load(open(f))
        for r in d["runs"]:
            if not r["summary"]["host"]["kernel"].startswith(kernel_prefix):
                continue
            val = lambda a: [t["primary"] for t in r["trials"] if t["arm"] == a and t["status"] == "ok" and not t["warmup"]]
            c, b = val(arm), val("pc3")
            mc, mb, sc, sb = statistics.mean(c), statistics.mean(b), statistics.stdev(c), statistics.stdev(b)
            out.append((math.log(mc / mb), sc**2 / (len(c) * mc**2) + sb**2 / (len(b) * mb**2)))
    return out
def dl(ev):
    w = [1 / v for _, v in ev]; sw = sum(w)
    mu = sum(wi * y for wi, (y, _) in zip(w, ev)) / sw
    q = sum(wi * (y - mu) ** 2 for wi, (y, _) in zip(w, ev))
    c = sw - sum(wi * wi for wi in w) / sw
    tau2 = max(0.0, (q - (len(ev) - 1)) / c) if len(ev) > 1 else 0.0
    ws = [1 / (v + tau2) for _, v in ev]
    m = sum(wi * y for wi, (y, _) in zip(ws, ev)) / sum(ws)
    return m, math.sqrt(1 / sum(ws)), tau2
g = [x for x in rep["groups"] if x["kernel"] == "6.8.0-45-generic"][0]
assert g["runs"] == 3 and g["hosts"] == 3 and g["oom"] == 3 and g["verdicts"] == {"switch": 3}, g
for arm in ("pc1", "pc0"):
    mu, se, tau2 = dl(effects("6.8", arm))
    a = [x for x in g["arms"] if x["arm"] == arm][0]
    assert abs(a["log_ratio"] - mu) < 1e-9, (arm, a, mu)
    assert abs(a["se"] - se) < 1e-9, (arm, a, se)
    assert abs(a["tau2"] - tau2) < 1e-12, (arm, a, tau2)
    assert abs(a["ci95_low_pct"] - (math.exp(mu - 1.959963984540054 * se) - 1) * 100) < 1e-6
assert adv["matched_on"] == {"kernel_major_minor": "6.8", "backend": "disk"}, adv["matched_on"]
assert adv["runs"] == 3 and adv["hosts"] == 3 and adv["enough"] and adv["advice"] == "pc0", adv
p0 = [x for x in adv["arms"] if x["arm"] == "pc0"][0]
assert abs(p0["log_ratio"] - dl(effects("6.8", "pc0"))[0]) < 1e-9
PY
done_testing
