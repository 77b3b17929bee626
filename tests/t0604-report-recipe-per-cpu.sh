#!/bin/sh
# A run judged per CPU second (method.busy_host.per_cpu_second) is another
# experiment than one judged by wall time: on copies of the report fixture
# store's probe run 1 (same workload, sizes, arms; run 11 judged per CPU
# second with --busy-host per-cpu on a quiet host, run 12 on a busy host
# measured by wall time with --busy-host ignore), recommend pools run 12
# with run 1 (the same recipe as before, busy or not) and never run 11;
# run 11's report prints a rerun line with --busy-host per-cpu, which
# probe --dry-run takes back and plans per CPU second, and verify plans it;
# run 1's and run 12's lines pin no metric. A stored per-cpu run that says
# wall time, or per CPU second for a command's own metric, is refused.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v jq >/dev/null 2>&1 || skip "needs jq"
vm=$FIXTURES/vm-v1
db=$scratch/db
sh "$FIXTURES/report/make-store.sh" "$db" >/dev/null 2>&1 || { echo "FAIL: make-store.sh"; exit 1; }
st() { "$SWAPTUNE" --db "$db" --sysroot "$vm" "$@"; }

# copy RUN BUSY_HOST_JSON: run 1 as run RUN (arms and trials with it), its method.busy_host set
copy() {
	sqlite3 "$db" "
	INSERT INTO runs (id, host_id, kind, started_at, ended_at, status, pid, params, summary, machine_id, boot_id)
	 SELECT $1, host_id, kind, started_at, ended_at, status, pid,
	  json_set(params, '\$.method.busy_host', json('$2')), summary, machine_id, boot_id FROM runs WHERE id = 1;
	INSERT INTO arms (id, run_id, name, settings) SELECT id + 100 * $1, $1, name, settings FROM arms WHERE run_id = 1;
	INSERT INTO trials (id, run_id, arm_id, round, seq, warmup, status, primary_value, note)
	 SELECT id + 100 * $1, $1, arm_id + 100 * $1, round, seq, warmup, status, primary_value, note
	 FROM trials WHERE run_id = 1;
	INSERT INTO metrics (trial_id, key, value)
	 SELECT trial_id + 100 * $1, key, value FROM metrics WHERE trial_id IN (SELECT id FROM trials WHERE run_id = 1);" ||
		fail "cannot copy run 1 as run $1"
}
copy 11 '{"idle_cpus":1.9,"cpus":2,"mode":"per-cpu","per_cpu_second":true,"scaled":false,"runnable":0}'
copy 12 '{"idle_cpus":0.1,"cpus":2,"mode":"ignore","per_cpu_second":false,"scaled":false,"runnable":2}'

# the recipes: per CPU second apart, a busy host measured by wall time with run 1
for r in 1 11 12; do
	st recommend --run "$r" --json >"$scratch/r$r.json" || fail "recommend --run $r --json: exit $?"
done
rec() { jq -r .replication.recipe "$scratch/r$1.json"; }
runs() { jq -c .replication.runs "$scratch/r$1.json"; }
[ -n "$(rec 1)" ] && [ "$(rec 1)" != null ] || fail "run 1: no recipe"
[ "$(rec 11)" != "$(rec 1)" ] || fail "run 11, judged per CPU second, has run 1's recipe $(rec 1)"
[ "$(runs 11)" = "[11]" ] || fail "run 11 is pooled with $(runs 11)"
[ "$(rec 12)" = "$(rec 1)" ] || fail "run 12, judged by wall time, is another recipe than run 1's"
[ "$(runs 12)" = "[1,12]" ] || fail "run 12: runs pooled $(runs 12), want [1,12]"

# line RUN: the report's rerun line, its continuations joined (reports wrap at 100 columns)
line() {
	st report --run "$1" >"$scratch/rep$1" 2>"$scratch/err" || fail "report --run $1: $(cat "$scratch/err")"
	awk '/^Recipe: rerun this probe/ { on = 1; next }
	     on { sub(/^ +/, ""); if (sub(/ \\$/, "")) { printf "%s ", $0; next } print; exit }' "$scratch/rep$1"
}
l11=$(line 11)
case $l11 in
"sudo swaptune probe "*" --busy-host per-cpu "*) ;;
*) fail "run 11's rerun line does not pin per CPU second: $l11" ;;
esac
for r in 1 12; do
	l=$(line $r)
	case $l in
	"sudo swaptune probe "*"--busy-host"*) fail "run $r's rerun line pins a metric: $l" ;;
	"sudo swaptune probe "*) ;;
	*) fail "run $r: no rerun line: $l" ;;
	esac
done

# run 11's line through probe's own parser: planned per CPU second, sizes as given
cmdline=$(echo "$l11" | sed "s|^sudo swaptune probe|probe --dry-run|")
eval "set -- $cmdline"
st "$@" >"$scratch/plan" 2>"$scratch/err" || fail "probe --dry-run of run 11's line: $(cat "$scratch/err")"
unfold_in_place "$scratch/plan"
grep -q "^Busy host  *judged per CPU second of the workload, as asked (--busy-host per-cpu); sizes as given$" \
	"$scratch/plan" || fail "the plan of run 11's line: $(grep -i busy "$scratch/plan")"
grep -q "^Workload  *anon-zipf, working set 256.0 MiB" "$scratch/plan" || fail "the plan's sizes: $(head -2 "$scratch/plan")"
st "$@" --json >"$scratch/plan.json" 2>"$scratch/err" || fail "probe --dry-run --json: $(cat "$scratch/err")"
[ "$(jq -c '.plan.busy_host | [.mode, .per_cpu_second, .scaled]' "$scratch/plan.json")" = '["per-cpu",true,false]' ] ||
	fail "the JSON plan's busy_host: $(jq -c .plan.busy_host "$scratch/plan.json")"
st verify --run 11 --dry-run >"$scratch/out" 2>"$scratch/err" || fail "verify --run 11 --dry-run: $(cat "$scratch/err")"
unfold_in_place "$scratch/out"
grep -q "^Would run" "$scratch/out" || fail "verify --run 11 --dry-run said: $(cat "$scratch/out")"

# per-cpu where it cannot judge: a usage error (exit 2)
st probe --dry-run --busy-host per-cpu --workload cmd --metric-regex 'x(1)' -- true >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "per-cpu with --metric-regex: exit $rc, want 2"
grep -q "^swaptune: probe: --busy-host per-cpu: the primary metric is the command's own (--metric-regex)" "$scratch/err" ||
	fail "per-cpu with --metric-regex said: $(cat "$scratch/err")"
st probe --dry-run --busy-host per-cpu --arms pc3 --arm 'disk:zswap.enabled=false' >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "per-cpu with an arm turning zswap off: exit $rc, want 2"
grep -q "arm disk sets zswap.enabled: CPU time would not see" "$scratch/err" ||
	fail "per-cpu with an arm turning zswap off said: $(cat "$scratch/err")"

# crafted: refused by verify (exit 1) and in place of the rerun line
refused() {
	sqlite3 "$db" "UPDATE runs SET params = json_set(params, '\$.method.busy_host', json('$1')) WHERE id = 11" ||
		fail "cannot craft run 11"
	st verify --run 11 --dry-run >/dev/null 2>"$scratch/err"
	rc=$?
	[ $rc -eq 1 ] || fail "crafted per-cpu ($2): verify exit $rc, want 1"
	grep -qF "probe run 11: $2" "$scratch/err" || fail "crafted per-cpu: verify said $(cat "$scratch/err")"
	st report --run 11 >"$scratch/rep" 2>&1 || fail "report --run 11 of a crafted recipe failed"
	grep -q "sudo swaptune probe" "$scratch/rep" && fail "crafted per-cpu ($2): report printed a rerun line"
}
refused '{"mode":"per-cpu","per_cpu_second":false,"scaled":false}' \
	"method.busy_host says wall time with --busy-host per-cpu"
refused '{"mode":"per-cpu","per_cpu_second":true,"scaled":true,"scale":0.5}' \
	"method.busy_host says scaled sizes with --busy-host per-cpu"
refused '{"idle_cpus":5,"cpus":2,"mode":"per-cpu","per_cpu_second":true}' \
	"method.busy_host.idle_cpus 5 is more than its 2 CPUs"
done_testing
