#!/bin/sh
# Every command's human output fits a terminal of 100 columns: each command
# (and its --help) on every captured fixture under tests/fixtures/ (the
# broken ones too: their messages are longest) and the report fixture store
# (tests/fixtures/report/make-store.sh); no line is wider than 100 display
# columns (UTF-8 characters, East Asian wide ones as 2, colour escapes as 0).
# The sysroot's own path is taken out first: on a host a message names
# /proc/swaps, not the fixture directory it was captured into.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to count display columns"
db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$SWAPTUNE" "$db" || { echo "FAIL: make-store.sh"; exit 1; }

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
