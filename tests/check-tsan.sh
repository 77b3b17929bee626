#!/bin/sh
# make check-tsan: the tests of the TUI's engine thread under ThreadSanitizer
# (the binaries of $BUILD were built with -fsanitize=thread and
# tests/tsan-options.c, which sends every report to $BUILD/tsan.<pid>).
# Unit: test-threads (the engine's host reads, judging and counters beside
# the screen's), the TUI's own. Commands: the screens on captured trees
# (t0500 t0501) and, as root, the probe and the switchback run from
# the screen on the live host in their worker thread (t0502 t0507: each
# takes the host lock itself, tests/host-lock.sh). Clean = every test passes
# or skips and no report was written.
BUILD=${BUILD:-build-tsan}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
SWAPTUNE=${SWAPTUNE:-$top/$BUILD/swaptune}
export BUILD SWAPTUNE TOP="$top"
pass=0 fail=0 skip=0
rm -f "$BUILD"/tsan.*
for t in test-threads test-tui-view test-tui-form; do
	if TOP=$top "$BUILD/tests/$t" >"$BUILD/$t.out" 2>&1; then
		pass=$((pass + 1)); echo "ok    $t"
	else
		fail=$((fail + 1)); echo "FAIL  $t"; tail -30 "$BUILD/$t.out" | sed 's/^/      /'
	fi
done
for n in ${TSAN_CMD_TESTS:-t0500 t0501 t0502 t0507}; do
	t=$(ls tests/"$n"-*.sh 2>/dev/null) || continue
	sh "$t" >"$BUILD/$n.out" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "ok    $n" ;;
	77) skip=$((skip + 1)); echo "skip  $n: $(tail -n 1 "$BUILD/$n.out")" ;;
	*) fail=$((fail + 1)); echo "FAIL  $n (exit $rc)"; tail -30 "$BUILD/$n.out" | sed 's/^/      /' ;;
	esac
done
for r in "$BUILD"/tsan.*; do
	[ -f "$r" ] || continue
	fail=$((fail + 1))
	echo "FAIL  ThreadSanitizer report $r:"; head -40 "$r" | sed 's/^/      /'
done
echo "$pass passed, $fail failed, $skip skipped (ThreadSanitizer)"
[ "$fail" -eq 0 ]
