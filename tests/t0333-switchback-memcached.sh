#!/bin/sh
# switchback on a second real service (live host, root): memcached under
# memcaslap (libmemcached-tools) in a memory cgroup that makes its items swap
# to zswap, memcached's own gets counter as the metric (--metric-file
# --metric-counter), page-cluster 3 against 0 switched under it. Short for
# CI: 5 s windows, 2 s washout, 6 blocks. The run must end with every window
# measured, a verdict, the settings restored, nothing pending in the
# journal and the service's cgroup, swap and zswap put back by the test.
#
# SWAPTUNE_SB_LONG=1 (make switchback-memcached) runs the full default design
# instead (30 s windows, 15 s washout, up to 15 blocks) on a bigger service
# (1 GiB cache, 384 MiB cgroup) after a 120 s warm-up, and keeps the report
# (text, HTML), the JSON and the store in SB_ARTIFACTS (default
# /tmp/swaptune-sb-memcached); SB_DESIGN="--window 20s --washout 10s --blocks 10"
# (for one) replaces the default design there.
. "$(dirname "$0")/host-lock.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sb-pg.sh"
. "$(dirname "$0")/sb-memcached.sh"

mc_need
command -v jq >/dev/null || skip "needs jq to read the documents"
cleanup_hooks="mc_stop"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" "$@"; }
pc_before=$(cat /proc/sys/vm/page-cluster)

if [ "${SWAPTUNE_SB_LONG:-0}" = 1 ]; then
	out=${SB_ARTIFACTS:-/tmp/swaptune-sb-memcached}
	mkdir -p "$out"
	mc_start 384 1024 16 12k || done_testing
	echo "warm-up: 120 s of load at the host's settings"
	sleep 120
	design=${SB_DESIGN:-}
	windows=30
else
	out=$scratch
	mc_start 192 400 8 8k || done_testing
	sleep 20
	design="--window 5s --washout 2s --blocks 6"
	windows=12
fi
mc_state

# shellcheck disable=SC2086
sb_switchback "$out" "$windows" gets/s $design \
	--metric-file "$MC_COUNTER" --metric-counter --higher-better --cgroup "$MC_CG"
if [ $? -eq 2 ]; then
	# memcached lost to its cgroup's limit; the stop was checked: once more with room
	echo "# the service was OOM-killed in its cgroup; once more with a 64 MiB larger limit"
	mc_stop
	MC_MEMCG=/sys/fs/cgroup/memory/$MC_CG
	if [ "${SWAPTUNE_SB_LONG:-0}" = 1 ]; then mc_start 448 1024 16 12k; else mc_start 256 400 8 8k; fi || done_testing
	sleep 20
	# shellcheck disable=SC2086
	sb_switchback "$out" "$windows" gets/s $design \
		--metric-file "$MC_COUNTER" --metric-counter --higher-better --cgroup "$MC_CG"
	[ $? -eq 2 ] && fail "the service was OOM-killed in its cgroup twice"
fi
mc_state
if [ "${SWAPTUNE_SB_LONG:-0}" = 1 ]; then
	st report --run "$run" -o "$out/report.html" || fail "report --run $run -o html: exit $?"
	cp "$db" "$out/swaptune.db"
fi
# the service's cgroup, swap and zswap go back with the test (the cleanup hook)
mc_stop
[ -d "/sys/fs/cgroup/memory/$MC_CG" ] && fail "the service's cgroup is left"
done_testing
