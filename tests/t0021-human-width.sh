#!/bin/sh
# Every command's human output fits a terminal of 100 columns: each command
# (and its --help) on every captured fixture under tests/fixtures/ (the
# broken ones too: their messages are longest) and the report fixture store
# (tests/fixtures/report/make-store.sh), and the commands that change a host
# (apply --confirm-within, --confirm, --persist, rollback, repair) on a copy
# of vm-v1; no line is wider than 100 display
# columns (UTF-8 characters, East Asian wide ones as 2, colour escapes as 0).
# The sysroot's own path is taken out first: on a host a message names
# /proc/swaps, not the fixture directory it was captured into.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to count display columns"
db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$db" || { echo "FAIL: make-store.sh"; exit 1; }

# the commands, one per line (run from the store of the report fixture);
# recommend (seconds each: the power of the design) runs on vm-v1 only,
# where the kernel differs from the runs' and its output is longest
cat >"$scratch/commands" <<'EOF'
status
doctor
1 recommend
1 recommend --run 1
1 recommend --run 6
history
history --all
probe --dry-run
probe --dry-run --workload anon-seq --arms pc3,pc1,pc0,bypass
switchback --dry-run
apply --dry-run page-cluster=0
apply --run 1 --dry-run
apply --run 6 --dry-run
rollback --to 1 --print
verify --dry-run
report --run 1
report --change 3
report --before 2 --after 4
sample --count 2 --interval 10ms
sample --replay 2
EOF

# widest LIMIT FILE: "columns<TAB>what<TAB>line" of every line wider than
# LIMIT; a line "\001 what" names the command whose output follows
cat >"$scratch/widest.py" <<'PY'
import re, sys, unicodedata
limit = int(sys.argv[1])
esc = re.compile(r'\x1b\[[0-?]*[ -/]*[@-~]')
what = '?'
for line in open(sys.argv[2], encoding='utf-8', errors='replace'):
    line = esc.sub('', line.rstrip('\n'))
    if line.startswith('\001 '):
        what = line[2:]
        continue
    cols = 0
    for ch in line:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ('Mn', 'Me', 'Cf'):
            continue
        cols += 2 if unicodedata.east_asian_width(ch) in ('W', 'F') else 1
    if cols > limit:
        print('%d\t%s\t%s' % (cols, what, line))
PY

# one fixture's outputs, each after its "\001 what" line (the fixtures
# run two at a time: the machine has two CPUs)
one_fixture() {
	fx=$1
	while read -r cmd; do
		case $cmd in
		"1 "*) [ "$fx" = vm-v1 ] || continue; cmd=${cmd#1 } ;;
		esac
		printf '\001 %s: swaptune %s\n' "$fx" "$cmd"
		# shellcheck disable=SC2086
		"$SWAPTUNE" --db "$db" --sysroot "$FIXTURES/$fx" $cmd </dev/null 2>/dev/null
	done <"$scratch/commands" | sed "s|$FIXTURES/$fx||g; s|$FIXTURES|/tests/fixtures|g" >"$scratch/out.$fx"
}
set --
for d in "$FIXTURES"/*/; do
	fx=$(basename "$d")
	[ -f "$d/proc/sys/kernel/osrelease" ] || continue
	set -- "$@" "$fx"
done
[ $# -gt 5 ] || fail "only $# fixtures found"
while [ $# -gt 0 ]; do
	one_fixture "$1" &
	[ $# -gt 1 ] && one_fixture "$2" &
	wait
	shift; [ $# -gt 0 ] && shift
done
# the commands that change a host, for real: apply with --confirm-within
# (its "Confirm with ..." line was 149 columns and no run above reached it:
# only --dry-run does without writing), status with the change pending, the
# confirmation, apply --persist, rollback, history after them, repair; on a
# copy of vm-v1 (a sysroot needs no root) with a store of their own, the
# copy's path taken out as above
changed=$scratch/changed
cp -a "$FIXTURES/vm-v1" "$changed" || fail "copying vm-v1"
cat >"$scratch/changes" <<'EOF'
apply --yes --confirm-within 10m page-cluster=0
status
history
apply --confirm
apply --yes --persist page-cluster=1
rollback --to 1 --yes
history
repair
EOF
while read -r cmd; do
	printf '\001 vm-v1 copy: swaptune %s\n' "$cmd"
	# shellcheck disable=SC2086
	"$SWAPTUNE" --db "$scratch/changes.db" --sysroot "$changed" $cmd </dev/null 2>/dev/null
done <"$scratch/changes" | sed "s|$changed||g" >"$scratch/out.changes"
grep -q '^Confirm with `swaptune apply --confirm` before ' "$scratch/out.changes" ||
	fail "apply --confirm-within did not print its Confirm line: $(head -5 "$scratch/out.changes")"
if ! grep -q '^Watchdog pid [0-9]* stopped' "$scratch/out.changes"; then
	fail "apply --confirm did not stop the watchdog: $(grep -A3 'apply --confirm$' "$scratch/out.changes")"
	# leave no watchdog behind to write the copy later
	wd=$(grep -o 'watchdog pid [0-9]*' "$scratch/out.changes" | head -1 | awk '{ print $3 }')
	[ -n "$wd" ] && grep -q swaptune "/proc/$wd/cmdline" 2>/dev/null && kill "$wd"
fi
grep -q '^Rolled back as run ' "$scratch/out.changes" || fail "rollback --to 1 did not roll back"

# every command's --help (the same on every host)
for c in $("$SWAPTUNE" --help | awk '/^  [a-z]/ { print $1 }'); do
	printf '\001 swaptune %s --help\n' "$c"
	"$SWAPTUNE" "$c" --help 2>&1
done >"$scratch/out.help"
n=$(cat "$scratch"/out.* | grep -c "$(printf '^\001 ')")
[ "$n" -gt 50 ] || fail "only $n command runs: no fixtures found?"
cat "$scratch"/out.* >"$scratch/all"
python3 "$scratch/widest.py" 100 "$scratch/all" >"$scratch/wide"
while IFS="$(printf '\t')" read -r cols what line; do
	fail "$what: a line of $cols columns: $(printf '%s' "$line" | cut -c1-160)"
done <"$scratch/wide"
done_testing
