#!/bin/sh
# Opening a store of schema 7 (tests/fixtures/store-v7: two recordings made
# by swaptune at ac03428, the codec's compact rows, one JSON row as schema 3
# wrote it, one JSON row spelled otherwise) converts its ticks to numbers
# rows (schema 9, store_samples_convert): `sample --replay --json` prints
# byte for byte what the old binary printed (replay-1.json, replay-2.json),
# every tick whose line prints back is a numbers row, the codec's shapes
# are gone; the row spelled otherwise stays as it was; a damaged row is left
# as it is and still refused. A compact row whose line is not a current
# sample tick becomes a JSON row of that line (the reader has no codec), on
# a schema 7 store as on a schema 9 store the first conversion left it in
# (schema 10 converts again). A tick recorded before a key was added to the
# vocabulary lacks it: it converts all the same, the key null (not measured)
# where it replays, so the fixture's replays are compared but for null members
# of keys the old line lacks (old_lines); a key misspelled keeps its row as it was.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
v7=$FIXTURES/store-v7
db=$scratch/v7.db
sqlite3 "$db" <"$v7/ticks.sql" || fail "loading the fixture"
[ "$(sqlite3 "$db" 'PRAGMA user_version')" = 7 ] || fail "the fixture is not schema 7"
q() { sqlite3 "$db" "$1"; }
# old_lines OLD NEW: NEW's lines but for the null members whose "key": OLD's line lacks
# (a key added to vocab-rows.h since OLD was printed replays as null)
old_lines() {
	awk 'NR == FNR { old[FNR] = $0; next }
	{
		o = $0; r = ""
		while (match(o, /"[A-Za-z0-9_]+":null[,}]/)) {
			k = substr(o, RSTART, index(substr(o, RSTART), ":"))
			pre = substr(o, 1, RSTART - 1)
			end = substr(o, RSTART + RLENGTH - 1, 1)
			if (index(old[FNR], k)) {
				r = r substr(o, 1, RSTART + RLENGTH - 2)
				o = substr(o, RSTART + RLENGTH - 1)
			} else if (end == ",") {
				r = r pre
				o = substr(o, RSTART + RLENGTH)
			} else {
				sub(/,$/, "", pre)
				r = r pre
				o = substr(o, RSTART + RLENGTH - 1)
			}
		}
		print r o
	}' "$1" "$2"
}
# replayed FILE OLD: FILE holds OLD's lines (as old_lines reads them)
replayed() { old_lines "$2" "$1" | cmp -s - "$2"; }

"$SWAPTUNE" --db "$db" sample --replay 1 --json >"$scratch/r1" || fail "replay 1: exit $?"
replayed "$scratch/r1" "$v7/replay-1.json" || fail "replay 1 differs: $(diff "$v7/replay-1.json" "$scratch/r1" | head -c 600)"
"$SWAPTUNE" --db "$db" sample --replay 2 --json >"$scratch/r2" || fail "replay 2: exit $?"
replayed "$scratch/r2" "$v7/replay-2.json" || fail "replay 2 differs: $(diff "$v7/replay-2.json" "$scratch/r2" | head -c 600)"
[ "$(q 'PRAGMA user_version')" -ge 9 ] || fail "not migrated: schema $(q 'PRAGMA user_version')"
nums=$(q "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id WHERE h.kind = 1 AND s.data = ''")
[ "$nums" = 6 ] || fail "numbers rows: $nums, want 6: $(q 'SELECT run_id, seq, shape_id, length(data) FROM samples')"
[ "$(q "SELECT count(*) FROM samples WHERE run_id = 2 AND seq = 3 AND shape_id IS NULL AND data LIKE '%, \"seq\":3%'")" = 1 ] ||
	fail "the JSON row spelled otherwise was not kept as it was"
[ "$(q 'SELECT count(*) FROM sample_shapes WHERE kind IS NULL')" = 0 ] || fail "codec shapes left"

# a tick recorded before two of today's keys existed (a value at the end of its group, a
# counter) is a numbers row, its values as they were, the keys null; one with a key
# misspelled stays the JSON row it was
line2=$(sed -n 2p "$v7/replay-2.json")
lacking=$(printf '%s\n' "$line2" | sed -E 's/,"pgsteal_pages_per_s":[^,}]*//; s/"zswap_pool_limit_hits":[^,}]*,//')
misspelled=$(printf '%s\n' "$line2" | sed -E 's/"pgsteal_pages_per_s":/"pgsteal_page_per_s":/')
[ "$lacking" != "$line2" ] && [ "$misspelled" != "$line2" ] || fail "crafting the old ticks"
for how in lacking misspelled; do
	k=$scratch/$how.db
	sqlite3 "$k" <"$v7/ticks.sql" || fail "loading the fixture"
	eval "text=\$$how"
	sqlite3 "$k" "UPDATE samples SET data = '$text' WHERE run_id = 2 AND seq = 2" || fail "$how: storing the tick"
	"$SWAPTUNE" --db "$k" sample --replay 2 --json >"$scratch/$how.out" || fail "$how: replay 2: exit $?"
	numbers=$(sqlite3 "$k" "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id
		WHERE s.run_id = 2 AND s.seq = 2 AND h.kind = 1 AND s.data = ''")
	if [ "$how" = lacking ]; then
		want=$(printf '%s\n' "$line2" |
			sed -E 's/("pgsteal_pages_per_s":)[^,}]*/\1null/; s/("zswap_pool_limit_hits":)[^,}]*/\1null/')
		[ "$numbers" = 1 ] || fail "a tick lacking later keys is not a numbers row"
	else
		want=$misspelled
		[ "$numbers" = 0 ] || fail "a tick with a key misspelled became a numbers row"
		[ "$(sqlite3 "$k" "SELECT data FROM samples WHERE run_id = 2 AND seq = 2")" = "$misspelled" ] ||
			fail "the tick with a key misspelled changed"
	fi
	printf '%s\n' "$want" >"$scratch/want"
	sed -n 2p "$scratch/$how.out" >"$scratch/got"
	replayed "$scratch/got" "$scratch/want" || fail "$how: replayed as $(cat "$scratch/got")"
	sed 2d "$v7/replay-2.json" >"$scratch/rest.want"
	sed 2d "$scratch/$how.out" >"$scratch/rest.got"
	replayed "$scratch/rest.got" "$scratch/rest.want" || fail "$how: the other ticks differ"
done

# a damaged compact row stays as it was, and is refused as before; the rows around it convert
sqlite3 "$scratch/d.db" <"$v7/ticks.sql" || fail "loading the fixture"
sqlite3 "$scratch/d.db" "UPDATE samples SET vals = x'00' WHERE run_id = 1 AND seq = 3" || fail "damaging a row"
"$SWAPTUNE" --db "$scratch/d.db" sample --replay 1 --json >"$scratch/d.out" 2>"$scratch/d.err" &&
	fail "a damaged row was read"
grep -q "tick 3 is damaged" "$scratch/d.err" || fail "damaged row: $(cat "$scratch/d.err")"
[ "$(sqlite3 "$scratch/d.db" "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id
	WHERE s.run_id = 1 AND h.kind IS NULL AND s.seq = 3 AND s.vals = x'00'")" = 1 ] || fail "the damaged row changed"
head -n 2 "$scratch/d.out" >"$scratch/d.two"	# then the error document (--json)
head -n 2 "$v7/replay-1.json" >"$scratch/d.want"
replayed "$scratch/d.two" "$scratch/d.want" || fail "the ticks before the damaged one differ"
[ "$(sqlite3 "$scratch/d.db" "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id
	WHERE s.run_id = 1 AND h.kind = 1")" = 3 ] || fail "the rows around the damaged one were not converted"

# a recording whose shape is not a tick stays as it was (refused as before); the store opens
sqlite3 "$scratch/s.db" <"$v7/ticks.sql" || fail "loading the fixture"
sqlite3 "$scratch/s.db" "UPDATE sample_shapes SET tick = 'x' WHERE id = 2" || fail "damaging a shape"
"$SWAPTUNE" --db "$scratch/s.db" sample --replay 1 --json >"$scratch/s1" || fail "replay 1 beside a bad shape: exit $?"
replayed "$scratch/s1" "$v7/replay-1.json" || fail "replay 1 beside a bad shape differs"
"$SWAPTUNE" --db "$scratch/s.db" sample --replay 2 --json >/dev/null 2>"$scratch/s2.err" && fail "a bad shape was read"
grep -q "shape 2 is not a tick" "$scratch/s2.err" || fail "bad shape: $(cat "$scratch/s2.err")"
[ "$(sqlite3 "$scratch/s.db" "SELECT count(*) FROM samples WHERE run_id = 2 AND shape_id = 2")" = 1 ] ||
	fail "the rows of the bad shape changed"
# a compact row whose line is no current sample tick: a JSON row of its line, byte for byte
odd='{"seq":4, "note":"written by an older swaptune"}'
old_row() {	# db: recording 2's tick 4, a compact row of a shape of its own (both leaves as the shape's)
	sqlite3 "$1" "INSERT INTO sample_shapes (id, run_id, tick) VALUES (9, 2, '$odd');
		INSERT INTO samples (run_id, seq, t_ns, data, shape_id, vals) VALUES (2, 4, 40000000, '', 9, x'0000')"
}
for start in 7 9; do
	o=$scratch/odd-$start.db
	sqlite3 "$o" <"$v7/ticks.sql" || fail "loading the fixture"
	if [ "$start" = 9 ]; then	# converted by a binary that left such rows, then one left
		"$SWAPTUNE" --db "$o" sample --replay 1 --json >/dev/null || fail "converting: exit $?"
		old_row "$o" || fail "adding a compact row"
		sqlite3 "$o" "PRAGMA user_version = 9; DELETE FROM store_todo" || fail "making it schema 9"
	else
		old_row "$o" || fail "adding a compact row"
	fi
	"$SWAPTUNE" --db "$o" sample --replay 2 --json >"$scratch/o2" || fail "schema $start: replay 2 with an old row: exit $?"
	{ cat "$v7/replay-2.json"; echo "$odd"; } >"$scratch/o2.want"
	replayed "$scratch/o2" "$scratch/o2.want" ||
		fail "schema $start: replay 2 with an old row differs: $(tail -n 2 "$scratch/o2")"
	[ "$(sqlite3 "$o" "SELECT count(*) FROM samples WHERE run_id = 2 AND seq = 4 AND shape_id IS NULL
		AND vals IS NULL AND data = '$odd'")" = 1 ] || fail "schema $start: the old row is not a JSON row of its line"
	[ "$(sqlite3 "$o" 'SELECT count(*) FROM sample_shapes WHERE kind IS NULL')" = 0 ] ||
		fail "schema $start: codec shapes left"
	[ "$(sqlite3 "$o" 'SELECT count(*) FROM store_todo')" = 0 ] || fail "schema $start: the to-do is left"
done
done_testing
