#!/bin/sh
# A crafted store (issue 33, finding 1): a negative or too-new PRAGMA
# user_version is refused before any statement runs (no crash, exit 1 or
# 3 with one line, the file unchanged), by every opener; a store from
# elsewhere (fleet-advise --from, completion's --list-ids) is opened
# read-only: never migrated, never switched to WAL, never written.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 (the command) is not installed"
fx=$FIXTURES/vm-v1

# expect STATUS REGEX ARGS...: exit status and one line on stderr
expect() {
	want=$1 pat=$2
	shift 2
	"$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err"
	got=$?
	[ "$got" = "$want" ] || fail "swaptune $*: exit $got, want $want ($(cat "$scratch/err"))"
	grep -q -- "$pat" "$scratch/err" || fail "swaptune $*: stderr lacks /$pat/: $(cat "$scratch/err")"
	[ "$(wc -l <"$scratch/err")" -le 1 ] || fail "swaptune $*: more than one line on stderr: $(cat "$scratch/err")"
}

for v in -2147483648 -1 -7; do
	rm -f "$scratch/w.db"
	sqlite3 "$scratch/w.db" "PRAGMA user_version=$v" || fail "sqlite3"
	sum=$(md5sum <"$scratch/w.db")
	expect 1 "is damaged: schema version $v" status --sysroot "$fx" --db "$scratch/w.db"
	expect 1 "is damaged: schema version $v" history --db "$scratch/w.db"
	expect 1 "is damaged: schema version $v" fleet-advise --sysroot "$fx" --db "$scratch/own.db" --from "$scratch/w.db"
	"$SWAPTUNE" --db "$scratch/w.db" --list-ids run >"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ $rc -eq 1 ] || fail "--list-ids on a crafted store: exit $rc, want 1"
	# finding 10: one line, not the whole usage
	[ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q 'is damaged' "$scratch/err" ||
		fail "--list-ids on a crafted store: $(head -3 "$scratch/err")"
	[ "$(md5sum <"$scratch/w.db")" = "$sum" ] || fail "the crafted store (version $v) was changed"
	[ ! -e "$scratch/w.db-wal" ] || fail "the crafted store (version $v) was switched to WAL"
done

# too new: refused, unchanged
rm -f "$scratch/w.db"
sqlite3 "$scratch/w.db" "PRAGMA user_version=2147483647" || fail "sqlite3"
sum=$(md5sum <"$scratch/w.db")
expect 3 'is newer than this swaptune' status --sysroot "$fx" --db "$scratch/w.db"
expect 3 'is newer than this swaptune' fleet-advise --sysroot "$fx" --db "$scratch/own.db" --from "$scratch/w.db"
[ "$(md5sum <"$scratch/w.db")" = "$sum" ] || fail "the too-new store was changed"

# a current store from elsewhere, kept in rollback-journal mode: read, not written
new_store "$scratch/other.db" || fail "cannot make a store"
sqlite3 "$scratch/other.db" "PRAGMA journal_mode=DELETE" >/dev/null || fail "sqlite3"
sum=$(md5sum <"$scratch/other.db")
"$SWAPTUNE" fleet-advise --sysroot "$fx" --db "$scratch/own.db" --from "$scratch/other.db" >/dev/null 2>"$scratch/err"
[ $? -lt 128 ] || fail "fleet-advise --from crashed"
[ "$(md5sum <"$scratch/other.db")" = "$sum" ] || fail "fleet-advise --from wrote the store from elsewhere"
[ "$(sqlite3 "$scratch/other.db" "PRAGMA journal_mode")" = delete ] || fail "fleet-advise --from switched the other store to WAL"

# an older store from elsewhere: refused, not migrated
rm -f "$scratch/old.db"
sqlite3 "$scratch/old.db" "CREATE TABLE t(x); PRAGMA user_version=1" || fail "sqlite3"
sum=$(md5sum <"$scratch/old.db")
expect 1 'older than this swaptune' fleet-advise --sysroot "$fx" --db "$scratch/own.db" --from "$scratch/old.db"
[ "$(md5sum <"$scratch/old.db")" = "$sum" ] || fail "fleet-advise --from migrated an older store"

# finding 8: crafted ticks never reach the output raw: a shape carrying an
# escape sequence, a legacy JSON row with one, a legacy row that is no JSON
"$SWAPTUNE" sample --sysroot "$fx" --db "$scratch/s.db" --count 2 --interval 10ms --record --no-cpu \
	>/dev/null 2>&1 || fail "sample --record"
run=$(sqlite3 "$scratch/s.db" "SELECT id FROM runs WHERE kind = 'sample'")
esc=$(printf '\033')
cp "$scratch/s.db" "$scratch/s1.db"
sqlite3 "$scratch/s1.db" "UPDATE sample_shapes SET tick = replace(tick, '\"hostname\":\"vm\"', '\"hostname\":\"vm${esc}[31mRED\"')" ||
	fail "sqlite3"
grep -q "RED" "$scratch/s1.db" || fail "the shape was not crafted"
expect 2 'shape [0-9]* is not a tick' sample --sysroot "$fx" --db "$scratch/s1.db" --replay "$run" --json
grep -q "$esc" "$scratch/out" && fail "replay --json wrote a raw escape from a crafted shape"
for data in '{"hostname":"vm'"$esc"'[31m"}' '{"a":1' 'plain text'; do
	cp "$scratch/s.db" "$scratch/s2.db"
	sqlite3 "$scratch/s2.db" "UPDATE samples SET shape_id = NULL, vals = NULL, data = '$data' WHERE seq = 1" ||
		fail "sqlite3"
	expect 2 'tick 1 is not a clean JSON line' sample --sysroot "$fx" --db "$scratch/s2.db" --replay "$run" --json
	grep -q "$esc" "$scratch/out" && fail "replay --json wrote a raw escape from a crafted legacy row"
done
# the table's closing line names the run's status and start as stored:
# shown escaped (issue 33, found by t0022)
for col in status started_at; do
	cp "$scratch/s.db" "$scratch/s3.db"
	sqlite3 "$scratch/s3.db" "UPDATE runs SET $col = 'x' || char(27) || '[2Jy' WHERE id = $run" || fail "sqlite3"
	"$SWAPTUNE" sample --sysroot "$fx" --db "$scratch/s3.db" --replay "$run" >"$scratch/out" 2>"$scratch/err" ||
		fail "replay with a crafted runs.$col: exit $?: $(cat "$scratch/err")"
	grep -q "$esc" "$scratch/out" "$scratch/err" && fail "replay printed a crafted runs.$col raw"
	grep -q 'x\\x1b\[2Jy' "$scratch/out" || fail "replay did not show runs.$col escaped: $(tail -1 "$scratch/out")"
done
done_testing
