#!/bin/sh
# A small calibration on this machine (root): 2 A/A probes (two arms with
# the same settings, a fixed design of 5 rounds) must never say CHANGE (at 5
# rounds the randomisation test cannot change at all: the least p of 5 sign
# flips is 1/32, above the first run's 2.0 %; the failure test needs 7
# discordant rounds), and one A/B
# probe of zswap against swap without zswap must change to zswap. tests/calibrate.sh does it; `make calibrate`
# runs the full 60-run version at the shipped sequential design, and the
# known-effect A/B (KNOWN_RUNS=0 here: t0312 runs one).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run probes"
[ -d /sys/module/zswap/parameters ] || skip "zswap is not in this kernel"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the verdicts"
# The A/B has 10 rounds: at 5 no randomisation test can show anything (1/32).
AA_RUNS=2 AA_MAX_CHANGE=0 AB_RUNS=1 KNOWN_RUNS=0 DESIGN_ARGS="--reps 5 --min-trial 0" \
	AB_DESIGN_ARGS="--reps 10 --min-trial 0" SWAPTUNE=$SWAPTUNE TOP=$TOP sh "$TOP/tests/calibrate.sh"
rc=$?
[ $rc -eq 77 ] && skip "calibration skipped"
[ $rc -eq 0 ] || fail "calibration: exit $rc"
done_testing
