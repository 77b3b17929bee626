#!/bin/sh
# The TUI's recording view (Runs, Enter on a recording) shows sample
# --replay's table one tick a row, its columns under their headings, in an
# 80-column terminal and a wider one (issue 34, finding 4: the 80-column
# table was drawn from column 2 in 77 columns, so every row wrapped in two);
# the line above it says where the view is scrolled to, PgDn moves on, Esc
# goes back to the list; the list's refresh leaves the cursor on the run
# chosen; a on a switchback run names the apply command with its safety
# net. The report fixture store on vm-v1; fixture only (side_by_side).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"

db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$db" || fail "make-store.sh"
# the table as the command prints it: 80 columns, a heading, then one row a tick
"$SWAPTUNE" --db "$db" sample --replay 4 >"$scratch/replay" || fail "sample --replay 4"
head_line=$(head -1 "$scratch/replay")
[ "${#head_line}" -eq 80 ] || fail "sample --replay's heading is ${#head_line} columns, the test expects 80"

for size in 80x24 100x30; do
	c=${size%x*} r=${size#*x}
	tui_start "$c" "$r" --db "$db" --sysroot "$FIXTURES/vm-v1" --panel runs --interval 300ms
	expect "run +kind" "$size: no Runs list" || continue
	choose "run 4, recording:" "$size: recording 4 not chosen"
	# the list reloads every interval (300 ms): the cursor stays on run 4
	# (it jumped to the run the reload put at its old index: 4, 5, 1, ...)
	sleep 1.5
	tmux capture-pane -t "$sess" -p >"$scratch/screen"
	grep -q "run 4, recording:" "$scratch/screen" ||
		fail "$size: a refresh moved the cursor off run 4: $(grep -E '^  run [0-9]+, ' "$scratch/screen")"
	keys Enter
	expect "recording 4 as swaptune sample --replay 4 prints it" "$size: Enter did not open the ticks" &&
		snap "$size-replay"
	fits "$c" "$size replay"
	# the heading whole on one row from column 0, as the command prints it
	grep -qxF "$head_line" "$scratch/screen" || fail "$size: the heading is not one row: $(grep -n 'UTC\|cpu%' "$scratch/screen")"
	# every other row below the title is one whole tick: 13 columns, none cut or carried over
	rows=$(sed -n '4,$p' "$scratch/screen" | grep -v '^UTC ' | grep -v 'Esc back' | grep -c .)
	whole=$(sed -n '4,$p' "$scratch/screen" | awk 'NF == 13 && $1 == "?"' | wc -l)
	[ "$rows" -gt 10 ] || fail "$size: only $rows tick rows on the screen"
	[ "$rows" -eq "$whole" ] || fail "$size: $((rows - whole)) of $rows rows are not whole ticks"
	grep -qE "prints it, rows 1-[0-9]+ of 631$" "$scratch/screen" || fail "$size: the title does not say where the view is"
	keys PageDown
	expect "prints it, rows [1-9][0-9]+-[0-9]+ of 631$" "$size: PgDn did not scroll"
	keys Escape
	expect "run +kind" "$size: Esc did not go back to the list"
	quit_ok
done

# a on a switchback run: the command to apply it, with the safety net that
# recommend's "To apply" line has (issue 34, finding 2)
sqlite3 "$db" "INSERT INTO runs (id, host_id, kind, status, started_at, params) VALUES
 (20, 1, 'switchback', 'ok', '2026-11-30T13:00:00.000Z', '{}')" || fail "inserting a switchback run"
tui_start 80 24 --db "$db" --sysroot "$FIXTURES/vm-v1" --panel runs --interval 300ms
expect "run 20, switchback:" "the switchback run is not chosen first"
keys a
expect "swaptune apply --run 20 --confirm-within 5m" "a on a switchback run: no apply line with --confirm-within" &&
	snap 80x24-switchback-a
quit_ok
done_testing
