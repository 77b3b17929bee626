#!/bin/sh
# A stored recipe is validated before verify re-runs it or report prints its
# rerun line (issue 19's rule, issue 18's one recipe reader): on copies of
# the report fixture store, run 1's params or arms are crafted with a
# working set beyond any memory, a command line on a built-in workload, a
# round count, an exponent and a memory cgroup mode out of range, a
# workload this build lacks, a baseline that is no arm and a custom arm
# with a page-cluster out of range. verify --dry-run refuses each (exit 1)
# with one line naming the run and the value, before it plans anything;
# report --run prints that line instead of a rerun line. A working set the
# recipe reader accepts but this host cannot hold is refused by the plan's
# headroom check as on the command line (exit 3), and the untouched run
# still verifies (--dry-run) and prints its rerun line.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
vm=$FIXTURES/vm-v1
base=$scratch/base.db
sh "$FIXTURES/report/make-store.sh" "$base" >/dev/null 2>&1 || { echo "FAIL: make-store.sh"; exit 1; }

# the untouched run: verify plans it, report prints its rerun line
"$SWAPTUNE" --db "$base" --sysroot "$vm" verify --run 1 --dry-run >"$scratch/out" 2>"$scratch/err" ||
	fail "verify --dry-run of the fixture run: $(cat "$scratch/err")"
grep -q "^Would run" "$scratch/out" || fail "verify --dry-run said: $(cat "$scratch/out")"
"$SWAPTUNE" --db "$base" --sysroot "$vm" report --run 1 >"$scratch/rep" 2>"$scratch/err" ||
	fail "report --run 1: $(cat "$scratch/err")"
grep -q '^  sudo swaptune probe --workload anon-zipf' "$scratch/rep" || fail "no rerun line for the fixture run"

n=0
# refused SQL WANT: run 1 crafted by SQL; verify and report refuse naming WANT
refused() {
	n=$((n + 1))
	db=$scratch/case$n.db
	cp "$base" "$db"
	sqlite3 "$db" "$1" || { fail "case $n: cannot craft the store"; return; }
	"$SWAPTUNE" --db "$db" --sysroot "$vm" verify --run 1 --dry-run >"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ $rc -eq 1 ] || fail "case $n ($2): verify exit $rc, want 1: $(cat "$scratch/err")"
	grep -q "^Would run\|^Repeating" "$scratch/out" && fail "case $n ($2): verify planned the crafted recipe"
	grep -qF "probe run 1: $2" "$scratch/err" || fail "case $n: verify does not name \"$2\": $(cat "$scratch/err")"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "case $n: more than one line: $(cat "$scratch/err")"
	"$SWAPTUNE" --db "$db" --sysroot "$vm" report --run 1 >"$scratch/rep" 2>"$scratch/err" ||
		fail "case $n ($2): report --run 1 failed: $(cat "$scratch/err")"
	# the report wraps at 100 columns: join the line's continuations back
	line=$(awk '/^Recipe: rerun this probe/ { on = 1; next }
	on == 1 { sub(/^ +/, ""); l = $0; on = 2; next }
	on == 2 && /^    / { sub(/ \\$/, "", l); sub(/^ +/, ""); l = l " " $0; next }
	on == 2 { exit }
	END { if (on) print l }' "$scratch/rep")
	case $line in
	"probe run 1: $2"*"; its recipe is refused") ;;
	*) fail "case $n ($2): report's recipe line: $line" ;;
	esac
	grep -q 'sudo swaptune probe' "$scratch/rep" && fail "case $n ($2): report printed a rerun line"
}
p() { echo "UPDATE runs SET params = json_set(params, $1) WHERE id = 1;"; }

refused "$(p "'\$.workload.working_set_bytes', 1e30")" "workload.working_set_bytes 1e+30 is not a size"
refused "$(p "'\$.workload.argv', json_array('rm', '-rf', '/')")" "workload.argv with the built-in workload anon-zipf"
refused "$(p "'\$.workload.metric_regex', '(.*)'")" "workload.metric_regex with the built-in workload"
refused "$(p "'\$.method.reps', 100000")" "method.reps 100000 is not a number of rounds 1.."
refused "$(p "'\$.method.seed', -1")" "method.seed -1 is not a whole number below 2^53"
refused "$(p "'\$.workload.zipf_theta', 1000")" "workload.zipf_theta 1000 is not in (0, 100]"
refused "$(p "'\$.workload.ops', 'many'")" "workload.ops \"many\" is not"
refused "$(p "'\$.method.warmup', 'yes'")" "method.warmup \"yes\" is not true or false"
refused "$(p "'\$.memcg.limit_mode', 'banana'")" "memcg.limit_mode \"banana\" is not max, high or limit_in_bytes"
refused "$(p "'\$.workload.name', 'anon-zipf;reboot'")" "workload \"anon-zipf;reboot\" is not a workload of this build"
refused "$(p "'\$.baseline', 'pc7'")" "baseline \"pc7\" is not one of the arms"
refused "UPDATE arms SET name = 'pcx', settings = '{\"page-cluster\":\"99\"}' WHERE id = 3;" "arm pcx: page-cluster: \"99\" is not a number from 0 to 31"
refused "$(p "'\$.workload.name', 'cmd'")" "workload cmd without a command"

# accepted by the reader, too big for the host: the plan's headroom check (exit 3)
db=$scratch/huge.db
cp "$base" "$db"
sqlite3 "$db" "$(p "'\$.workload.working_set_bytes', 1099511627776")" || fail "cannot craft the 1 TiB run"
"$SWAPTUNE" --db "$db" --sysroot "$vm" verify --run 1 --dry-run >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 3 ] || fail "a 1 TiB working set: verify exit $rc, want 3: $(cat "$scratch/err")"
grep -q "^Would run" "$scratch/out" && fail "a 1 TiB working set: verify would run it"
done_testing
