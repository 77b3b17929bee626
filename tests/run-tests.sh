#!/bin/sh
# Runs the unit tests (cmocka binaries under $BUILD/tests) and the command
# tests (tests/t[0-9]*.sh driving ./swaptune), then prints one summary line:
# "N passed, N failed, N skipped". ONLY=unit or ONLY=cmd runs one half.
# The unit tests (they change nothing on the host: fake sysroots, scratch dirs)
# run UNIT_JOBS at a time (default: one per CPU) and are reported in order;
# Command tests run one at a time, except those listed in side_by_side
# below: they use only fixtures, scratch dirs and their own builds (never
# the live host, never timing it), so they run first, CMD_JOBS at a time
# (default: one per CPU), before any other starts; every result is reported
# in file order as before.
# A command test exits 0 (pass), 77 (skip, with the reason on its last line)
# or anything else (fail).
# Arguments, when given, name the tests to run (a name's start: t0004,
# t08, test-doctor); without any, every test runs.
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
pass=0 fail=0 skip=0 failed=""
log=$(mktemp -d /tmp/swaptune-tests.XXXXXX)
# wanted FILE: no arguments, or FILE's name starts with one of them
wanted() {
	[ -z "$names" ] && return 0
	b=$(basename "$1")
	for w in $names; do
		case $b in "$w"*) return 0 ;; esac
	done
	return 1
}
names="$*"

if [ "${ONLY:-unit}" = unit ] || [ -z "$ONLY" ]; then
	# each binary's output into $log/NAME.out, its exit status into $log/NAME.rc
	for t in "$BUILD"/tests/test-*; do
		[ -x "$t" ] && wanted "$t" && printf '%s\n' "$t"
	done | xargs -r -P "${UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}" -I{} \
		sh -c 'n=$(basename "$1"); "$1" >"$2/$n.out" 2>&1; echo $? >"$2/$n.rc"' sh {} "$log"
	for t in "$BUILD"/tests/test-*; do
		[ -x "$t" ] && wanted "$t" || continue
		name=$(basename "$t")
		if [ "$(cat "$log/$name.rc" 2>/dev/null)" = 0 ]; then
			n=$(grep -c '^\[       OK \]' "$log/$name.out")
			s=$(grep -c '^\[  SKIPPED \]' "$log/$name.out")
			pass=$((pass + n)); skip=$((skip + s))
			echo "ok    $name ($n tests${s:+, $s skipped})" | sed 's/, 0 skipped//'
		else
			n=$(grep -c '^\[       OK \]' "$log/$name.out")
			f=$(grep -c '^\[  FAILED  \] [a-z_]' "$log/$name.out")
			[ "$f" -gt 0 ] || f=1
			pass=$((pass + n)); fail=$((fail + f)); failed="$failed $name"
			echo "FAIL  $name"; sed 's/^/      /' "$log/$name.out" | tail -40
		fi
	done
fi
# the command tests that may run side by side, by number, longest first (so
# that the short ones fill in beside the long ones); a new test runs alone
# until it is added here
side_by_side="t0022 t0023 t0510 t0509 t0508 t0611 t0821 t0605 t0021 t0703 t0310 t0900 t0506 t0601 t0016 t0320 t0300 t0001 t0815 t0313 t0701 t0311 t0011 t0809 t0600 t0400 t0332 t0335"
is_side_by_side() {
	case " $side_by_side " in *" $(basename "$1" | cut -d- -f1) "*) return 0 ;; esac
	return 1
}
if [ "${ONLY:-cmd}" = cmd ] || [ -z "$ONLY" ]; then
	# the side-by-side ones: output, exit status and seconds of each into $log
	for n in $side_by_side; do
		for t in tests/"$n"-*.sh; do
			[ -f "$t" ] && wanted "$t" && printf '%s\n' "$t"
		done
	done | SWAPTUNE="${SWAPTUNE:-$top/swaptune}" BUILD="$BUILD" TOP="$top" \
		xargs -r -P "${CMD_JOBS:-$(nproc 2>/dev/null || echo 1)}" -I{} sh -c '
		n=$(basename "$1" .sh) start=$(date +%s)
		sh "$1" >"$2/$n.out" 2>&1
		echo $? >"$2/$n.rc"
		echo $(( $(date +%s) - start )) >"$2/$n.secs"' sh {} "$log"
	for t in tests/t[0-9]*.sh; do
		[ -f "$t" ] && wanted "$t" || continue
		name=$(basename "$t" .sh)
		if is_side_by_side "$t"; then
			rc=$(cat "$log/$name.rc" 2>/dev/null || echo 1)
			secs=$(cat "$log/$name.secs" 2>/dev/null || echo 0)
		else
			start=$(date +%s)
			SWAPTUNE="${SWAPTUNE:-$top/swaptune}" BUILD="$BUILD" TOP="$top" sh "$t" >"$log/$name.out" 2>&1
			rc=$?
			secs=$(( $(date +%s) - start ))
		fi
		case $rc in
		0) pass=$((pass + 1)); echo "ok    $name (${secs}s)" ;;
		77) skip=$((skip + 1)); echo "skip  $name: $(tail -n 1 "$log/$name.out")" ;;
		*) fail=$((fail + 1)); failed="$failed $name"; echo "FAIL  $name (exit $rc)"
		   sed 's/^/      /' "$log/$name.out" | tail -40 ;;
		esac
	done
fi
rm -rf "$log"
[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
