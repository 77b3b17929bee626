#!/bin/sh
# The sequential verdict's statistical gates on the offline simulator
# (tests/sim/sim.c, driving the real verdict2_look()): 2 000 A/A and 2 000
# A/B probes per noise model. The new method must pass (false change: the
# one-sided 95 % Clopper-Pearson upper bound <= 3.5 % on n = 2 000; power
# >= 80 % for +5 % at CV 5 %; KS uniformity of A/A p-values), and the
# deliberately bad method (uncorrected re-test after every round) must FAIL
# the same gates - proof that they can. `make sim-check` is the 10 000 run.
. "$(dirname "$0")/lib.sh"

sim=$BUILD/sim/sim
[ -x "$sim" ] || skip "simulator not built (make sim)"

"$sim" -n 2000 -m new -f 3.5 >"$scratch/new.out" 2>&1 &
pid_new=$!
"$sim" -n 2000 -m naive -f 3.5 >"$scratch/naive.out" 2>&1
rc_naive=$?
wait "$pid_new"
rc_new=$?
cat "$scratch/new.out" "$scratch/naive.out"

[ "$rc_new" -eq 0 ] || fail "the sequential verdict fails its gates (exit $rc_new)"
[ "$rc_naive" -eq 1 ] || fail "the naive optional-stopping method passed the gates (exit $rc_naive)"
grep -q 'naive .*FAIL:false-change' "$scratch/naive.out" ||
	fail "the naive method was not rejected for false changes"
done_testing
