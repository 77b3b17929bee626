#!/bin/sh
# Eight processes opening the same new store at once all succeed: the
# schema is migrated once (the version is re-read under the write lock),
# WAL is switched on despite the others, nobody sees "table already exists"
# or "database is locked". Then 4 concurrent `sample --record` runs.
. "$(dirname "$0")/lib.sh"

fx=$FIXTURES/vm-v1
for round in 1 2 3; do
	db=$scratch/new-$round.db
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		"$SWAPTUNE" status --sysroot "$fx" --db "$db" >/dev/null 2>"$scratch/err-$round-$i" &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p" || fail "round $round: opener $i failed (exit $?): $(cat "$scratch/err-$round-$i")"
	done
	[ "$(sqlite3 "$db" 'PRAGMA journal_mode' 2>/dev/null || echo wal)" = wal ] ||
		fail "round $round: the store is not in WAL mode"
done

db=$scratch/rec.db
pids=""
for i in 1 2 3 4; do
	"$SWAPTUNE" sample --sysroot "$fx" --db "$db" --record --count 1 --no-cpu \
		>/dev/null 2>"$scratch/rec-$i" &
	pids="$pids $!"
done
i=0
for p in $pids; do
	i=$((i + 1))
	wait "$p" || fail "sample --record $i failed (exit $?): $(cat "$scratch/rec-$i")"
done
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE kind = 'sample'")" = 4 ] ||
		fail "not 4 sample runs recorded"
fi
done_testing
