#!/bin/sh
# Runs every libFuzzer target built in $FUZZ_DIR (default build-fuzz/fuzz)
# for FUZZ_SECONDS each (default 60), FUZZ_JOBS at a time (one per CPU): first the saved regression inputs of
# tests/fuzz/regress/<target>/, then fuzzing from a corpus seeded with
# tests/fuzz/seeds/<target>/ and the fixture trees' kernel files. Prints one
# line per target with its executions; exits non-zero on the first crash,
# leak or timeout (the input is kept in $FUZZ_KEEP, default a temp dir,
# and printed as hex).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
dir=${FUZZ_DIR:-build-fuzz/fuzz}
secs=${FUZZ_SECONDS:-60}
work=$(mktemp -d /tmp/swaptune-fuzz.XXXXXX)
keep=${FUZZ_KEEP:-$work/crashes}
mkdir -p "$keep"
trap 'rm -rf "$work"; rm -rf /tmp/swaptune-fuzz-sysroot.* /tmp/swaptune-fuzz-store.*' EXIT
total=0
status=0
seed_fixtures() {	# target corpus-dir
	case $1 in
	fuzz-kv) for f in tests/fixtures/*/proc/vmstat tests/fixtures/*/proc/meminfo; do
			cp "$f" "$2/$(echo "$f" | tr / _)"; done ;;
	fuzz-psi) for f in tests/fixtures/*/proc/pressure/memory; do
			cp "$f" "$2/$(echo "$f" | tr / _)"; done ;;
	esac
}
# one target: regression inputs, then fuzzing; its verdict in $work/NAME.rc
fuzz_one() {
	bin=$1 name=$(basename "$1")
	corpus=$work/corpus-$name
	mkdir -p "$corpus"
	[ -d "tests/fuzz/seeds/$name" ] && cp tests/fuzz/seeds/"$name"/* "$corpus"/ 2>/dev/null
	seed_fixtures "$name" "$corpus"
	if [ -d "tests/fuzz/regress/$name" ] && [ -n "$(ls "tests/fuzz/regress/$name")" ]; then
		if ! "$bin" tests/fuzz/regress/"$name"/* >"$work/$name.regress" 2>&1; then
			echo regress >"$work/$name.rc"
			return
		fi
	fi
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$keep/$name-" "$corpus" \
		>"$work/$name.log" 2>&1
	echo $? >"$work/$name.rc"
}
# FUZZ_JOBS targets at a time (default: one per CPU)
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for bin in "$dir"/fuzz-*; do
	[ -x "$bin" ] || continue
	fuzz_one "$bin" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for bin in "$dir"/fuzz-*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	rc=$(cat "$work/$name.rc" 2>/dev/null || echo missing)
	if [ "$rc" = regress ]; then
		echo "FAIL  $name: a saved regression input crashes again"
		tail -30 "$work/$name.regress"
		status=1
		continue
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | tail -n 1)
	total=$((total + ${execs:-0}))
	if [ "$rc" != 0 ]; then
		echo "FAIL  $name after ${execs:-?} executions (exit $rc)"
		grep -E 'ERROR|SUMMARY|runtime error' "$work/$name.log" | head -10
		for a in "$keep/$name"-*; do
			[ -f "$a" ] && { echo "  input $a:"; od -An -c "$a" | head -8; }
		done
		status=1
	else
		echo "ok    $name: ${execs:-0} executions in ${secs}s"
	fi
done
echo "fuzz: $total executions in all"
exit $status
