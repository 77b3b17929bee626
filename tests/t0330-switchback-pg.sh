#!/bin/sh
# switchback on a real service (live host, root): PostgreSQL under pgbench
# -S in a memory cgroup that makes its shared buffers swap to zswap, the
# service's own tps as the metric (a --metric-cmd reading pgbench's
# per-second progress over each window's counted part), page-cluster 3
# against 0 switched under it. Short for CI: 5 s windows, 2 s washout,
# 6 blocks (60 s; the fewest at which the exact test can still decide a
# change: smallest p 1/64, 5 blocks give 1/32). The run must end with
# every window measured, a verdict, the settings restored and nothing
# pending in the journal; report --run draws the timeline, recommend judges
# the same run.
#
# SWAPTUNE_SB_LONG=1 (make switchback-pg) runs the full default design
# instead (30 s windows, 15 s washout, 15 blocks: 15 minutes, the service
# bigger: 512 MiB cgroup, 1 GiB shared buffers) with the transactions
# counter file as the metric (so the carryover checks have slices), and
# keeps the report (text, HTML), the JSON and the store in SB_ARTIFACTS (default
# /tmp/swaptune-sb-pg).
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sb-pg.sh"

pg_need
command -v jq >/dev/null || skip "needs jq to read the documents"
cleanup_hooks="pg_stop"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" "$@"; }
pc_before=$(cat /proc/sys/vm/page-cluster)

if [ "${SWAPTUNE_SB_LONG:-0}" = 1 ]; then
	out=${SB_ARTIFACTS:-/tmp/swaptune-sb-pg}
	mkdir -p "$out"
	pg_start 512 50 1024 || done_testing
	echo "warm-up: 120 s of load at the host's settings"
	sleep 120
	set -- --metric-file "$PG_COUNTER" --metric-counter --higher-better --cgroup "$PG_CG"
	design=""
	windows=30
else
	out=$scratch
	pg_start 192 20 512 || done_testing
	sleep 10
	set -- --metric-cmd "$PG_TPS_CMD" --higher-better --cgroup "$PG_CG"
	design="--window 5s --washout 2s --blocks 6"
	windows=12
fi

# shellcheck disable=SC2086
sb_switchback "$out" "$windows" tps $design "$@"
if [ $? -eq 2 ]; then
	# PostgreSQL lost a backend to its cgroup's limit (session 14's CI: swap cache
	# read ahead into a full cgroup); the stop was checked: once more with room
	echo "# the service was OOM-killed in its cgroup; once more with a 64 MiB larger limit"
	pg_stop
	PG_MEMCG=/sys/fs/cgroup/memory/$PG_CG
	if [ "${SWAPTUNE_SB_LONG:-0}" = 1 ]; then pg_start 576 50 1024; else pg_start 256 20 512; fi || done_testing
	sleep 10
	# shellcheck disable=SC2086
	sb_switchback "$out" "$windows" tps $design "$@"
	[ $? -eq 2 ] && fail "the service was OOM-killed in its cgroup twice"
fi
st report --run "$run" -o "$out/report.html" || fail "report --run $run -o html: exit $?"
grep -q '<svg' "$out/report.html" || fail "the HTML report has no chart"
grep -q 'timeline' "$out/report.html" || fail "the HTML report has no timeline"
# the arms table's interval is the repeated-confidence one of the sequential test
tr '\n' ' ' <"$out/report.txt" | grep -q "interval: repeated-confidence" &&
	! grep -q "95 % CI" "$out/report.txt" ||
	fail "the arms table does not say its interval is the repeated-confidence one"
# the long run keeps its store too (report, recommend and export again later)
[ "${SWAPTUNE_SB_LONG:-0}" = 1 ] && cp "$db" "$out/swaptune.db"
done_testing
