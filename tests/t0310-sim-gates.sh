#!/bin/sh
# The sequential verdict's statistical gates on the offline simulator
# (tests/sim/sim.c, driving the real verdict2_look()): 2 000 A/A and 2 000
# A/B probes per noise model. The new method must pass (false change: the
# one-sided 95 % Clopper-Pearson upper bound <= 3.5 % on n = 2 000; power
# >= 80 % for +5 % at CV 5 %; KS uniformity of A/A p-values), and the
# deliberately bad method (uncorrected re-test after every round) must FAIL
# the same gates - proof that they can. The persistent operator (sim -P: an
# A/A recipe re-run up to 5 times, stopping at the first CHANGE, 2 000
# operators at CV 5 %): judged through the replication rule (runs pooled,
# run k at alpha 2^-(k+3)) it must pass the same widened false-change gate,
# and every run judged alone (~11 % false changes) must fail it.
# `make sim-check` is the 10 000 run, with every persistent configuration.
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

"$sim" -P -A -n 2000 -c lognormal-cv5 -m pooled -f 3.5 >"$scratch/pooled.out" 2>&1 &
pid_pooled=$!
"$sim" -P -A -n 2000 -c lognormal-cv5 -m alone -f 3.5 >"$scratch/alone.out" 2>&1
rc_alone=$?
wait "$pid_pooled"
rc_pooled=$?
cat "$scratch/pooled.out" "$scratch/alone.out"

[ "$rc_pooled" -eq 0 ] || fail "replications judged pooled fail the persistent-operator gate (exit $rc_pooled)"
[ "$rc_alone" -eq 1 ] || fail "runs judged alone passed the persistent-operator gate (exit $rc_alone)"
grep -q 'alone .*FAIL:false-change' "$scratch/alone.out" ||
	fail "re-running until CHANGE was not rejected for false changes"
[ "$rc_new" -eq 0 ] || fail "the sequential verdict fails its gates (exit $rc_new)"
[ "$rc_naive" -eq 1 ] || fail "the naive optional-stopping method passed the gates (exit $rc_naive)"
grep -q 'naive .*FAIL:false-change' "$scratch/naive.out" ||
	fail "the naive method was not rejected for false changes"
done_testing
