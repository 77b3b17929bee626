#!/bin/sh
# The TUI's header on a --sysroot copy of vm-v1: an apply --confirm-within
# made from the command line shows from any panel as "confirm run N: S s"
# in the warning colour, counting down; at 80 columns it stays in view (the
# tabs other than the current one shrink to their numbers) and the lines fit;
# at 120 columns it stands beside the rights and every tab keeps its name;
# apply --confirm from outside clears it within about a second. Fixture
# only (side_by_side).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"

sr=$scratch/sr
db=$scratch/db
cp -a "$FIXTURES/vm-v1" "$sr" || fail "copying the fixture"
S() { "$SWAPTUNE" --db "$db" --sysroot "$sr" "$@"; }
new_store "$db" || fail "creating the store"

# nothing pending: the header as before
tui_start 80 24 --db "$db" --sysroot "$sr" --interval 200ms
expect "Readahead" "status did not draw"
head -1 "$scratch/screen" | grep -q "confirm run" && fail "a confirmation shown with none pending"
head -1 "$scratch/screen" | grep -q "4 Advice" || fail "80 columns, nothing pending: tabs lost their names"

S apply page-cluster=0 --confirm-within 2m --yes >"$scratch/apply.out" 2>&1 || fail "apply --confirm-within: $(cat "$scratch/apply.out")"
run=$(S history --json | sed -n 's/.*"id": *\([0-9]*\), *"kind": *"apply".*/\1/p' | tail -1)
[ -n "$run" ] || run=$(grep -o 'run [0-9]*' "$scratch/apply.out" | head -1 | cut -d' ' -f2)
[ -n "$run" ] || fail "no apply run id in: $(cat "$scratch/apply.out")"

# 80x24: appears within a second or so, counting down, in the warning colour
expect "confirm run $run: (1[01][0-9]|120) s" "80 columns: no pending confirmation in the header" 5 && snap 80x24-pending
head -1 "$scratch/screen" | grep -qE "confirm run $run: [0-9]+ s" || fail "80 columns: the confirmation is not on row 0"
head -1 "$scratch/screen" | grep -q "1 Status" || fail "80 columns: the current tab lost its name"
fits 80 "80 columns pending"
tmux capture-pane -e -t "$sess" -p | head -1 | grep -qE '33m[^ ]* *confirm run' ||
	fail "80 columns: the confirmation is not in the warning colour (yellow)"
first=$(head -1 "$scratch/screen" | sed -n "s/.*confirm run $run: \([0-9]*\) s.*/\1/p")
sleep 2.2
tmux capture-pane -t "$sess" -p >"$scratch/screen"
later=$(head -1 "$scratch/screen" | sed -n "s/.*confirm run $run: \([0-9]*\) s.*/\1/p")
[ -n "$later" ] && [ "$later" -lt "$first" ] || fail "the seconds do not count down ($first then $later)"
# on another panel too
keys 6
expect "run +kind +status" "history panel did not draw"
head -1 "$scratch/screen" | grep -qE "confirm run $run: [0-9]+ s" || fail "history panel: no confirmation in the header"
head -1 "$scratch/screen" | grep -q "6 History" || fail "80 columns: the current tab (History) lost its name"
quit_ok

# 120x30: beside the rights, the tabs keep their names
tui_start 120 30 --db "$db" --sysroot "$sr" --interval 200ms
expect "confirm run $run: [0-9]+ s" "120 columns: no pending confirmation" 5 && snap 120x30-pending
head -1 "$scratch/screen" | grep -q "sysroot rw" || fail "120 columns: the rights were dropped"
head -1 "$scratch/screen" | grep -q "4 Advice" || fail "120 columns: the tabs lost their names"
fits 120 "120 columns pending"
# confirmed from outside: gone within about a second
S apply --confirm >/dev/null 2>&1 || fail "apply --confirm"
i=0
while [ $i -lt 15 ]; do
	tmux capture-pane -t "$sess" -p >"$scratch/screen"
	head -1 "$scratch/screen" | grep -q "confirm run" || break
	sleep 0.2
	i=$((i + 1))
done
head -1 "$scratch/screen" | grep -q "confirm run" && fail "still shown 3 s after apply --confirm"
head -1 "$scratch/screen" | grep -q "4 Advice" || fail "after the confirm: the tabs lost their names"
quit_ok
S rollback --yes >/dev/null 2>&1 || fail "rollback"
done_testing
