#!/bin/sh
# Opening a store of schema 7 (tests/fixtures/store-v7: two recordings made
# by swaptune at ac03428, the codec's compact rows, one JSON row as schema 3
# wrote it, one JSON row spelled otherwise) converts its ticks to numbers
# rows (schema 9, store_samples_convert): `sample --replay --json` prints
# byte for byte what the old binary printed (replay-1.json, replay-2.json),
# every tick whose line prints back is a numbers row, the codec's shapes
# are gone; the row spelled otherwise stays as it was; a damaged row is left
# as it is and still refused.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
v7=$FIXTURES/store-v7
db=$scratch/v7.db
sqlite3 "$db" <"$v7/ticks.sql" || fail "loading the fixture"
[ "$(sqlite3 "$db" 'PRAGMA user_version')" = 7 ] || fail "the fixture is not schema 7"
q() { sqlite3 "$db" "$1"; }

"$SWAPTUNE" --db "$db" sample --replay 1 --json >"$scratch/r1" || fail "replay 1: exit $?"
cmp -s "$scratch/r1" "$v7/replay-1.json" || fail "replay 1 differs: $(diff "$v7/replay-1.json" "$scratch/r1" | head -c 600)"
"$SWAPTUNE" --db "$db" sample --replay 2 --json >"$scratch/r2" || fail "replay 2: exit $?"
cmp -s "$scratch/r2" "$v7/replay-2.json" || fail "replay 2 differs: $(diff "$v7/replay-2.json" "$scratch/r2" | head -c 600)"
[ "$(q 'PRAGMA user_version')" -ge 9 ] || fail "not migrated: schema $(q 'PRAGMA user_version')"
nums=$(q "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id WHERE h.kind = 1 AND s.data = ''")
[ "$nums" = 6 ] || fail "numbers rows: $nums, want 6: $(q 'SELECT run_id, seq, shape_id, length(data) FROM samples')"
[ "$(q "SELECT count(*) FROM samples WHERE run_id = 2 AND seq = 3 AND shape_id IS NULL AND data LIKE '%, \"seq\":3%'")" = 1 ] ||
	fail "the JSON row spelled otherwise was not kept as it was"
[ "$(q 'SELECT count(*) FROM sample_shapes WHERE kind IS NULL')" = 0 ] || fail "codec shapes left"

# a damaged compact row stays as it was, and is refused as before; the rows around it convert
sqlite3 "$scratch/d.db" <"$v7/ticks.sql" || fail "loading the fixture"
sqlite3 "$scratch/d.db" "UPDATE samples SET vals = x'00' WHERE run_id = 1 AND seq = 3" || fail "damaging a row"
"$SWAPTUNE" --db "$scratch/d.db" sample --replay 1 --json >"$scratch/d.out" 2>"$scratch/d.err" &&
	fail "a damaged row was read"
grep -q "tick 3 is damaged" "$scratch/d.err" || fail "damaged row: $(cat "$scratch/d.err")"
[ "$(sqlite3 "$scratch/d.db" "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id
	WHERE s.run_id = 1 AND h.kind IS NULL AND s.seq = 3 AND s.vals = x'00'")" = 1 ] || fail "the damaged row changed"
head -n 2 "$scratch/d.out" >"$scratch/d.two"	# then the error document (--json)
head -n 2 "$v7/replay-1.json" | cmp -s - "$scratch/d.two" || fail "the ticks before the damaged one differ"
[ "$(sqlite3 "$scratch/d.db" "SELECT count(*) FROM samples s JOIN sample_shapes h ON h.id = s.shape_id
	WHERE s.run_id = 1 AND h.kind = 1")" = 3 ] || fail "the rows around the damaged one were not converted"

# a recording whose shape is not a tick stays as it was (refused as before); the store opens
sqlite3 "$scratch/s.db" <"$v7/ticks.sql" || fail "loading the fixture"
sqlite3 "$scratch/s.db" "UPDATE sample_shapes SET tick = 'x' WHERE id = 2" || fail "damaging a shape"
"$SWAPTUNE" --db "$scratch/s.db" sample --replay 1 --json >"$scratch/s1" || fail "replay 1 beside a bad shape: exit $?"
cmp -s "$scratch/s1" "$v7/replay-1.json" || fail "replay 1 beside a bad shape differs"
"$SWAPTUNE" --db "$scratch/s.db" sample --replay 2 --json >/dev/null 2>"$scratch/s2.err" && fail "a bad shape was read"
grep -q "shape 2 is not a tick" "$scratch/s2.err" || fail "bad shape: $(cat "$scratch/s2.err")"
[ "$(sqlite3 "$scratch/s.db" "SELECT count(*) FROM samples WHERE run_id = 2 AND shape_id = 2")" = 1 ] ||
	fail "the rows of the bad shape changed"
done_testing
