#!/bin/sh
# The switchback analysis's statistical gates on its simulator
# (tests/sim/sim-switchback.c, driving the real sb_analyse() at every look):
# 2 000 A/A and 500 A/B experiments per noise model of a live service
# (AR(1) load at 0.5 and 0.9 per window, diurnal trend, a +40 % warm-up,
# bursts, heteroscedastic noise, carryover of order 1 and 2, all at once).
# The real method must pass (A/A false change <= 3 % point and its one-sided
# 95 % Clopper-Pearson upper bound <= 3.5 % in every model; power for +10 %
# >= 80 % in iid, ar05, ar09), and the two naive methods - Welch's t on
# window values re-tested after every block, Welch's t on every second's
# value - must FAIL the same false-change gates: proof that they can.
# Why wider than make sim-check's 2.5 %/3 % at 20 000 runs: the test is
# exact, so its rate sits at the design's alpha (2 %); at n = 2 000 the
# standard error of such a rate is 0.31 points and the one-sided CP bound
# adds ~0.6, so 2.5 %/3 % would judge a correct method close to a coin toss,
# while 3 %/3.5 % still rejects a method at 4 % or worse with high
# probability (the naive ones reach 5-34 % in some model). The seed is
# fixed, so the run is reproducible.
. "$(dirname "$0")/lib.sh"

sim=$BUILD/sim/sim-switchback
[ -x "$sim" ] || skip "switchback simulator not built (make sim)"

"$sim" -n 2000 -p 500 -m sb -F 3 -f 3.5 >"$scratch/sb.out" 2>&1 &
pid_sb=$!
"$sim" -n 2000 -p 0 -m naive-win -F 3 -f 3.5 >"$scratch/win.out" 2>&1
rc_win=$?
"$sim" -n 2000 -p 0 -m naive-sec -F 3 -f 3.5 >"$scratch/sec.out" 2>&1
rc_sec=$?
wait "$pid_sb"
rc_sb=$?
cat "$scratch/sb.out" "$scratch/win.out" "$scratch/sec.out"

[ "$rc_sb" -eq 0 ] || fail "the switchback analysis fails its gates (exit $rc_sb)"
[ "$(grep -c '^[a-z0-9]* *sb ' "$scratch/sb.out")" -eq 10 ] ||
	fail "the switchback analysis did not report all 10 models"
[ "$rc_win" -eq 1 ] || fail "the naive window t-test passed the gates (exit $rc_win)"
grep -q 'naive-win .*FAIL:false-change' "$scratch/win.out" ||
	fail "the naive window t-test was not rejected for false changes"
[ "$rc_sec" -eq 1 ] || fail "the naive per-second t-test passed the gates (exit $rc_sec)"
grep -q 'naive-sec .*FAIL:false-change' "$scratch/sec.out" ||
	fail "the naive per-second t-test was not rejected for false changes"
done_testing
