#!/bin/sh
# A probe report carries everything needed to rerun the probe (live host,
# root): a small sequential probe, a small fixed-design probe and one judged
# per CPU second (--busy-host per-cpu); each
# report's recipe, run as printed (sudo swaptune -> the binary under test,
# --yes added), stores a run whose report prints the same recipe: the same
# design (looks or rounds, minimum effect), seed, sizes and the calibrated
# accesses per trial, and --busy-host per-cpu exactly when the run was
# judged per CPU second. The report names the CPU model, memory and the
# swaptune version that measured it.
. "$(dirname "$0")/lib.sh"

need_probe_host
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v jq >/dev/null 2>&1 || skip "needs jq"
wait_no_probe
db=$scratch/db
pc_before=$(cat "$PC")

recipe_of() {
	"$SWAPTUNE" --db "$db" report --run "$1" >"$scratch/report-$1.txt" || { fail "report --run $1"; return 1; }
	# the command as printed, its lines continued with a backslash (reports stay within 100 columns) joined
	awk '/^Recipe: rerun this probe/ { on = 1; next }
	     on { sub(/^ +/, ""); if (sub(/ \\$/, "")) { printf "%s ", $0; next } print; exit }' "$scratch/report-$1.txt"
}
last_run() { sqlite3 "$db" "SELECT max(id) FROM runs WHERE kind = 'probe'"; }

for design in "--looks 2,3 --max-time 0" "--reps 2" "--reps 2 --busy-host per-cpu"; do
	# shellcheck disable=SC2086
	"$SWAPTUNE" --db "$db" probe --yes --workload anon-runs --arms pc3,pc0 --working-set 64M \
		--memcg-limit 48M --min-trial 300ms $design >"$scratch/first.out" 2>&1 ||
		{ fail "probe $design: $(tail -3 "$scratch/first.out")"; continue; }
	first=$(last_run)
	r1=$(recipe_of "$first")
	case $r1 in
	"sudo swaptune probe "*) ;;
	*) fail "no recipe line in the report of run $first: '$r1'"; continue ;;
	esac
	for opt in --ops "--min-trial 0" --min-effect --working-set --memcg-limit --run-pages; do
		echo "$r1" | grep -q -- "$opt" || fail "recipe of run $first lacks $opt: $r1"
	done
	# a re-run draws its own order of arms: no seed on the line, the seed beside it to reproduce
	echo "$r1" | grep -q -- "--seed" && fail "the rerun line repeats the run's seed: $r1"
	seed=$(sqlite3 "$db" "SELECT params FROM runs WHERE id = $first" | jq -r '.method.seed')
	tr '\n' ' ' <"$scratch/report-$first.txt" | tr -s ' ' | grep -q -- "--seed $seed repeats this run's exact order" ||
		fail "the report does not say how to reproduce run $first's order (seed $seed)"
	case $design in
	--looks*) echo "$r1" | grep -q -- "--looks 2,3 --max-time 0" || fail "recipe lost the sequential plan: $r1" ;;
	--reps*) echo "$r1" | grep -q -- "--reps 2" || fail "recipe lost the fixed design: $r1" ;;
	esac
	# the metric: pinned when the run was judged per CPU second (per-cpu, or adapt on a busy host)
	per_cpu=$(sqlite3 "$db" "SELECT params FROM runs WHERE id = $first" | jq -r '.method.busy_host.per_cpu_second // false')
	case $design in
	*per-cpu*) [ "$per_cpu" = true ] || fail "--busy-host per-cpu: run $first not judged per CPU second" ;;
	esac
	if [ "$per_cpu" = true ]; then
		echo "$r1" | grep -q -- "--busy-host per-cpu" || fail "recipe of a per-CPU run lacks --busy-host per-cpu: $r1"
	else
		echo "$r1" | grep -q -- "--busy-host" && fail "recipe of a wall-time run pins a metric: $r1"
	fi
	grep -qE "^  CPU model +[^ ]" "$scratch/report-$first.txt" || fail "report without the CPU model"
	grep -q "not recorded" "$scratch/report-$first.txt" &&
		fail "a fresh run's report says 'not recorded': $(grep 'not recorded' "$scratch/report-$first.txt")"
	grep -qE "^  swaptune version +[0-9]" "$scratch/report-$first.txt" || fail "report without the version"

	# the recipe as printed, through the shell's own word splitting and quoting
	cmdline=$(echo "$r1" | sed "s|^sudo swaptune probe|probe --yes|")
	eval "set -- $cmdline"
	"$SWAPTUNE" --db "$db" "$@" >"$scratch/rerun.out" 2>&1 ||
		{ fail "rerunning the recipe: $(tail -3 "$scratch/rerun.out")"; continue; }
	second=$(last_run)
	[ "$second" -gt "$first" ] || { fail "the rerun stored no run"; continue; }
	r2=$(recipe_of "$second")
	[ "$r1" = "$r2" ] || fail "rerun's recipe differs:
    first:  $r1
    rerun:  $r2"
done
[ "$(cat "$PC")" = "$pc_before" ] || fail "page-cluster is $(cat "$PC") after the probes, was $pc_before"
done_testing
