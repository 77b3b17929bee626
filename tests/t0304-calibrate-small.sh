#!/bin/sh
# A small calibration on this machine (root): 3 A/A probes (two arms with
# the same settings) must show no significant difference in at least 2 of
# them (alpha = 0.05: two false positives in three runs happen 0.7 % of the
# time), and one A/B probe of zswap against swap without zswap must detect
# the difference. tests/calibrate.sh does it; `make calibrate` runs the full
# 20-run version.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run probes"
[ -d /sys/module/zswap/parameters ] || skip "zswap is not in this kernel"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to read the verdicts"
AA_RUNS=3 AA_MIN_PASS=2 AB_RUNS=1 SWAPTUNE=$SWAPTUNE TOP=$TOP sh "$TOP/tests/calibrate.sh"
rc=$?
[ $rc -eq 77 ] && skip "calibration skipped"
[ $rc -eq 0 ] || fail "calibration: exit $rc"
done_testing
