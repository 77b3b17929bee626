#!/bin/sh
# Store and import text reaches a terminal only through the one escaper,
# and shell lines swaptune prints quote every word (issue 19, findings 6
# and 7). Text holding ESC sequences, BEL, a newline and the UTF-8 C1 CSI
# (C2 9B):
#  - in a local probe run's workload name, baseline ("pc3;touch X"),
#    trial notes and host name: report --run (text, md), recommend --run and
#    report --before/--after show it escaped; the report prints no rerun
#    line for that recipe (the workload is refused, the line naming it);
#  - in a valid cmd recipe's command and metric regex: the rerun line quotes
#    each stored word (run by sh, it hands them over whole and runs nothing);
#  - in imported exports' host names, CPU model, workload, arm and baseline
#    names: fleet-report and fleet-advise show them escaped;
#  - in an error line (main's one line on stderr): the C1 CSI as well.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to craft the exports"
X=$scratch/X
db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$db" >/dev/null 2>&1 || { echo "FAIL: make-store.sh"; exit 1; }
db2=$scratch/report-cmd.db
cp "$db" "$db2" || { echo "FAIL: cp"; exit 1; }
vm=$FIXTURES/vm-v1
st() { "$SWAPTUNE" --db "$db" --sysroot "$vm" "$@"; }
# raw: no control byte but newline, no C1 (raw 0x80-0x9f after C2, or alone), no lone high byte run
raw() {	# raw FILE WHAT
	LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1" && fail "$2: raw C0 control bytes"
	LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1" && fail "$2: a raw C1 control (C2 8x/9x)"
	LC_ALL=C grep -q "$(printf '\233')" "$1" && fail "$2: a raw CSI byte"
	grep -q '^INJECTED' "$1" && fail "$2: the data started a line of its own"
}
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
E=$(printf '\033[2J\033]0;pwn\007\302\23331m\nINJECTED')
ws=$(hex "anon-zipf$E")
sqlite3 "$db" "UPDATE runs SET params = json_set(params, '\$.workload.name', CAST(X'$ws' AS TEXT),
		'\$.baseline', 'pc3;touch $X') WHERE id = 1;
	UPDATE runs SET params = json_set(params, '\$.workload.name', CAST(X'$ws' AS TEXT)) WHERE id = 6;
	UPDATE trials SET note = CAST(X'$(hex "note$E")' AS TEXT) WHERE id IN (SELECT id FROM trials LIMIT 3);
	UPDATE hosts SET hostname = CAST(X'$(hex "host$E")' AS TEXT);" || fail "cannot craft the store"

for f in text md; do
	st report --run 1 --format "$f" >"$scratch/r.$f" 2>"$scratch/err" || fail "report --run 1 --format $f: $(cat "$scratch/err")"
	raw "$scratch/r.$f" "report --run 1 --format $f"
	# markdown escapes its own syntax ([ and ]) on top, and shows a newline as a space
	grep -q 'anon-zipf\\x1b\\\?\[2J\\x1b\\\?\]0;pwn\\x07\\xc2\\x9b31m\(\\x0a\| \)INJECTED' "$scratch/r.$f" ||
		fail "report --format $f: workload not shown escaped"
done
# no rerun line from a recipe that fails validation (issue 18's recipe
# reader): a workload this build lacks is refused, the line names the run
# and the value (escaped). Reports wrap at 100 columns (a command with " \"
# continuations, other text indented): recipe_line joins the line back.
recipe_line() {
	awk '/^Recipe: rerun this probe/ { on = 1; next }
	on == 1 { sub(/^ +/, ""); l = $0; on = 2; next }
	on == 2 && /^    / { sub(/ \\$/, "", l); sub(/^ +/, ""); l = l " " $0; next }
	on == 2 { exit }
	END { if (on) print l }' "$1"
}
line=$(recipe_line "$scratch/r.text")
case $line in
"probe run 1: workload \"anon-zipf\\x1b[2J"*"is not a workload of this build; its recipe is refused") ;;
*) fail "a recipe with an unknown workload was not refused: $line" ;;
esac
# the rerun line of a valid recipe: every stored word quoted, inert in sh
# (a cmd workload whose command and metric regex carry shell syntax)
sqlite3 "$db2" "UPDATE runs SET params = json_set(json_remove(params, '\$.workload.zipf_theta'),
		'\$.workload.name', 'cmd', '\$.workload.argv', json_array('sh', '-c', 'touch $X'),
		'\$.workload.metric_regex', '([0-9]+);touch $X') WHERE id = 1;" || fail "cannot craft the cmd run"
"$SWAPTUNE" --db "$db2" --sysroot "$vm" report --run 1 >"$scratch/r2.text" 2>"$scratch/err" ||
	fail "report --run 1 (cmd): $(cat "$scratch/err")"
line=$(recipe_line "$scratch/r2.text")
case $line in
"sudo swaptune probe --workload cmd "*"--metric-regex '([0-9]+);touch $X'"*"-- sh -c 'touch $X'") ;;
*) fail "the rerun line does not quote the stored words: $line" ;;
esac
words=$(printf '%s\n' "$line" | sed "s/^sudo swaptune/printf '%s\\\\n'/" | (cd "$scratch" && sh))
[ -e "$X" ] && fail "running the rerun line executed text from the store"
printf '%s\n' "$words" | grep -qx "touch $X" || fail "the command did not reach the line as one word: $words"
printf '%s\n' "$words" | grep -qx "(\[0-9\]+);touch $X" || fail "the regex did not reach the line as one word: $words"
st recommend --run 1 >"$scratch/rec" 2>"$scratch/err"
[ $? -le 1 ] || fail "recommend --run 1: $(cat "$scratch/err")"
raw "$scratch/rec" "recommend --run 1"
grep -q 'anon-zipf\\x1b' "$scratch/rec" || fail "recommend: workload not shown escaped: $(head -2 "$scratch/rec")"
st report --before 1 --after 6 >"$scratch/probes" 2>"$scratch/err" || fail "report --before 1 --after 6: $(cat "$scratch/err")"
raw "$scratch/probes" "report --before 1 --after 6"

# imported exports of three hosts, text everywhere it can be
for i in 1 2 3; do
	python3 - "$FIXTURES/fleet/host-0$i.json" "$scratch/h$i.json" <<'EOF' || fail "cannot craft export $i"
import json, sys
E = '\x1b[2J\x1b]0;pwn\x07\u009b31m\nINJECTED'
d = json.load(open(sys.argv[1]))
d['host']['hostname'] += E
d['host']['cpu_model'] += E
for r in d['runs']:
    r['params']['workload']['name'] += E
    r['params']['baseline'] += E
    r['summary']['verdict']['arm'] += E
    for a in r['arms']:
        a['name'] += E
    for t in r['trials']:
        t['arm'] += E
json.dump(d, open(sys.argv[2], 'w'))
EOF
done
fdb=$scratch/fleet.db
"$SWAPTUNE" --db "$fdb" --sysroot "$vm" import "$scratch"/h1.json "$scratch"/h2.json "$scratch"/h3.json \
	>/dev/null 2>"$scratch/err" || fail "import: $(cat "$scratch/err")"
"$SWAPTUNE" --db "$fdb" --sysroot "$vm" fleet-report >"$scratch/fr" 2>"$scratch/err" || fail "fleet-report: $(cat "$scratch/err")"
raw "$scratch/fr" fleet-report
grep -q 'pc0\\x1b\[2J' "$scratch/fr" || fail "fleet-report: arm names not shown escaped: $(cat "$scratch/fr")"
"$SWAPTUNE" --db "$scratch/advise.db" --sysroot "$vm" fleet-advise --from "$fdb" --kernel 6.8 >"$scratch/fa" 2>"$scratch/err" ||
	fail "fleet-advise: $(cat "$scratch/err")"
raw "$scratch/fa" fleet-advise
grep -q 'pc3\\x1b\[2J' "$scratch/fa" || fail "fleet-advise: the baseline not shown escaped: $(cat "$scratch/fa")"

# an error line quoting what was given: C1 CSI and invalid UTF-8 escaped too
st report --run 1 --format "$(printf 'x\302\23331m\033[2J\377')" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] || fail "a bad --format: exit not 2"
raw "$scratch/err" "error line"
grep -q 'x\\xc2\\x9b31m\\x1b\[2J\\xff' "$scratch/err" || fail "error line not escaped: $(od -c "$scratch/err" | head -3)"
done_testing
