# lib.sh - sourced by the command tests (tests/tNNNN-*.sh): a private scratch
# dir removed on exit, the binary under test, the fixtures, and helpers.
# Needs SWAPTUNE (the binary) and TOP (the repo root); BUILD for helpers.
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
SWAPTUNE=${SWAPTUNE:-$TOP/swaptune}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
FIXTURES=$TOP/tests/fixtures
EXPECTED=$TOP/tests/expected
SCHEMAS=$TOP/share/schema

scratch=$(mktemp -d /tmp/swaptune-test.XXXXXX)
cleanup_hooks=""
cleanup() {
	rc=$?
	for h in $cleanup_hooks; do "$h"; done
	rm -rf "$scratch"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE
# a private HOME and no inherited store or sysroot
HOME=$scratch/home
mkdir -p "$HOME"
unset SWAPTUNE_DB SWAPTUNE_SYSROOT XDG_STATE_HOME
export HOME

failures=0
# fail MESSAGE: record a failure and go on (the test exits 1 at the end)
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
# skip REASON: the reason is the last output line
skip() {
	echo "$*"
	exit 77
}
# done_testing: exit with the verdict
done_testing() {
	if [ "$failures" -gt 0 ]; then
		echo "$failures failure(s)"
		exit 1
	fi
	exit 0
}
# new_store DB: an empty store of this build's schema at DB (a read-only
# command such as status leaves none at a new --db path); needs check-build.
# STORE_NEW is the helper, for scripts such as fixtures/report/make-store.sh
STORE_NEW=$BUILD/helpers/store-new
export STORE_NEW
new_store() {
	[ -x "$STORE_NEW" ] || { echo "FAIL: $STORE_NEW not built (make check builds it)"; exit 1; }
	"$STORE_NEW" "$1"
}
# the fixtures a command should accept (the broken-* and truncated-* ones are bad input)
good_fixtures() {
	for d in "$FIXTURES"/*/; do
		n=$(basename "$d")
		case $n in broken-*|truncated-*) continue ;; esac
		[ -f "$d/proc/sys/kernel/osrelease" ] && echo "$n"
	done
}
# compare FILE EXPECTED: show a diff on mismatch
same() {
	# UPDATE_GOLDEN=1 rewrites the expected file (review the git diff after)
	[ -z "$UPDATE_GOLDEN" ] || cp "$1" "$2"
	if ! diff -u "$2" "$1" >"$scratch/diff.out" 2>&1; then
		fail "$1 differs from $2"
		head -40 "$scratch/diff.out"
		return 1
	fi
	return 0
}

# need_probe_host: skip unless a probe can run on this live host (root, loop
# devices for the scratch swap, zswap, a memory controller); sets ZS (zswap
# parameters), PC (page-cluster file) and CG (memory controller root).
need_probe_host() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to probe (page-cluster, swap, cgroups)"
	[ -e /dev/loop-control ] || skip "no /dev/loop-control: the scratch swap needs loop devices"
	ZS=/sys/module/zswap/parameters
	PC=/proc/sys/vm/page-cluster
	[ -w "$ZS/enabled" ] || skip "zswap is not in this kernel"
	if [ -d /sys/fs/cgroup/memory ]; then
		CG=/sys/fs/cgroup/memory
	elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		CG=/sys/fs/cgroup
	else
		skip "no memory cgroup controller"
	fi
}
# wait_no_probe: another probe on this host (one at a time,
# /run/swaptune/probe.lock) would refuse ours and change the settings a test
# compares: wait until none runs (10 minutes at most, then skip).
wait_no_probe() {
	command -v flock >/dev/null 2>&1 || return 0
	mkdir -p /run/swaptune
	flock -w 600 /run/swaptune/probe.lock true || skip "another probe held the probe lock for 10 minutes"
}
# unfold FILE: see tests/unfold.sh
. "$TOP/tests/unfold.sh"
# unfold_in_place FILE: FILE unfolded (for tests whose greps read whole lines)
unfold_in_place() { unfold "$1" >"$1.unfolded" && mv "$1.unfolded" "$1"; }

# sql_probe_run_pc0: the SQL of a stored probe, run 1 (arms 1 pc3, 2 pc0,
# 10 rounds), whose pc0 is ~30 % faster: a CHANGE to pc0 (t0335, t0503, t0509)
sql_probe_run_pc0() {
	plan='"plan":{"sequential":false,"looks":[10],"alpha":0.025,"min_effect_pct":2,"baseline":"pc3"}'
	cat <<SQL
INSERT INTO runs (id, kind, status, params, summary) VALUES (1, 'probe', 'ok',
 '{"workload":{"name":"anon-zipf"},"baseline":"pc3",$plan}',
 '{"primary_metric":{"key":"throughput_ops","name":"throughput","higher_is_better":true}}');
INSERT INTO arms (id, run_id, name, settings) VALUES (1, 1, 'pc3', '{"page-cluster":"3"}'), (2, 1, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (1, 1, 1, 1, 0, 'ok', 1000), (1, 2, 1, 2, 0, 'ok', 1300), (1, 2, 2, 3, 0, 'ok', 1310),
 (1, 1, 2, 4, 0, 'ok', 1010), (1, 1, 3, 5, 0, 'ok', 990), (1, 2, 3, 6, 0, 'ok', 1290),
 (1, 2, 4, 7, 0, 'ok', 1305), (1, 1, 4, 8, 0, 'ok', 1005), (1, 1, 5, 9, 0, 'ok', 995),
 (1, 2, 5, 10, 0, 'ok', 1295), (1, 2, 6, 11, 0, 'ok', 1302), (1, 1, 6, 12, 0, 'ok', 1002),
 (1, 1, 7, 13, 0, 'ok', 1008), (1, 2, 7, 14, 0, 'ok', 1306), (1, 2, 8, 15, 0, 'ok', 1297),
 (1, 1, 8, 16, 0, 'ok', 997), (1, 1, 9, 17, 0, 'ok', 1003), (1, 2, 9, 18, 0, 'ok', 1301),
 (1, 2, 10, 19, 0, 'ok', 1299), (1, 1, 10, 20, 0, 'ok', 999);
SQL
}
