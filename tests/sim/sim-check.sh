#!/bin/sh
# sim-check.sh SIM [N] - the simulator's gates at N probes per configuration
# (default 100 000), as `make sim-check` runs them, two at a time (nice):
#   v4, 3 arms and 2 arms       every A/A model <= 2.5 % (CP95 <= 2.6 %),
#                               power >= 90 % (2 arms) / 80 % (3 arms), a cost
#                               at its margin <= 5 %;
#   persistent operator (v4)    A/A recipes re-run up to 5 times as the
#                               stages of the recipe's design, 3 and 2 arms:
#                               the same false-change gates;
#   figures                     printed power within 3 points of simulated,
#                               for every design a budget can make;
#   known                       the calibration's known-effect design: power
#                               >= 90 % at its typical noise (sim -K);
#   v2, naive, fixed (N/5)      the old rule, optional stopping and a fixed
#                               order of arms must FAIL the gates, and runs
#                               judged alone must fail the persistent-operator
#                               gate: proof that the gates can fail.
# Outputs go to $SIM_OUT (default build/sim), one file each, and are printed.
sim=${1:?usage: sim-check.sh SIM [N]}
n=${2:-100000}
small=$((n / 5))
out=${SIM_OUT:-build/sim}
mkdir -p "$out"
fails=0

# run NAME WANT ARGS...: the simulator with ARGS into $out/NAME.out, exit WANT expected
pair() {
	name1=$1 want1=$2 name2=$3 want2=$4
	shift 4
	# the two argument lists are split at "--"
	a1=""
	while [ "$1" != "--" ]; do a1="$a1 $1"; shift; done
	shift
	# shellcheck disable=SC2086
	nice "$sim" $a1 >"$out/$name1.out" 2>&1 &
	p1=$!
	# shellcheck disable=SC2086
	nice "$sim" "$@" >"$out/$name2.out" 2>&1
	r2=$?
	wait "$p1"
	r1=$?
	for x in "$name1:$r1:$want1" "$name2:$r2:$want2"; do
		nm=${x%%:*} rest=${x#*:} rc=${rest%%:*} want=${rest#*:}
		cat "$out/$nm.out"
		if [ "$rc" -ne "$want" ]; then
			echo "sim-check: $nm exited $rc, want $want"
			fails=$((fails + 1))
		fi
	done
}

pair v4-3arms 0 v4-2arms 0 -n "$n" -a 3 -m v4 -- -n "$n" -a 2 -m v4
pair persist-pooled 0 persist-pooled-2arms 0 -P -n "$n" -a 3 -m pooled -- -P -n "$n" -a 2 -m pooled
pair figures 0 figures-2arms 0 -X -n "$small" -a 3 -- -X -n "$small" -a 2
pair v2 1 naive 1 -n "$small" -a 3 -m v2 -- -n "$small" -a 3 -m naive
pair persist-alone 1 fixed 1 -P -A -n "$small" -a 3 -m alone -- -n "$small" -a 2 -m fixed -c position-3
# the calibration's known-effect design (cheap: one process)
nice "$sim" -K -n "$n" >"$out/known.out" 2>&1
rc=$?
cat "$out/known.out"
[ "$rc" -eq 0 ] || { echo "sim-check: known exited $rc, want 0"; fails=$((fails + 1)); }
grep -q 'v2 .*FAIL:false-change' "$out/v2.out" || { echo "sim-check: v2 not rejected for false changes"; fails=$((fails + 1)); }
grep -q 'fixed .*FAIL:false-change' "$out/fixed.out" || { echo "sim-check: a fixed order not rejected"; fails=$((fails + 1)); }
grep -q 'alone .*FAIL:false-change' "$out/persist-alone.out" ||
	{ echo "sim-check: re-running until CHANGE was not rejected"; fails=$((fails + 1)); }
if [ "$fails" -ne 0 ]; then
	echo "sim-check: $fails failure(s)"
	exit 1
fi
echo "sim-check: every gate of v4 passes; v2, naive, a fixed order and runs judged alone are rejected, as they must be"
