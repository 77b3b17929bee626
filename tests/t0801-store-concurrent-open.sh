#!/bin/sh
# Eight processes opening the same new store at once all succeed: the
# schema is migrated once (the version is re-read under the write lock),
# WAL is switched on despite the others, nobody sees "table already exists"
# or "database is locked". Four of them are status, which drops the store
# and the directories it made when no other process holds it (a read-only
# command leaves nothing at a new --db path; an opener may find its
# directory gone and tries again), four record a sample: the store and
# their 4 runs are there afterwards. Eight status alone all succeed and
# leave no store, whoever made it: it is unkept until a command closes it
# holding rows, and the last to close drops it (the maker may not be the
# last; before, the store stayed). An empty store new_store kept stays.
# Then 4 concurrent `sample --record` runs.
. "$(dirname "$0")/lib.sh"

fx=$FIXTURES/vm-v1
# openers ROUND N_STATUS N_RECORD: start them all at once on a new store, wait for each
openers() {
	db=$scratch/r$1/sub/s.db
	pids=""
	i=0
	while [ $i -lt $(($2 + $3)) ]; do
		i=$((i + 1))
		if [ $i -le "$2" ]; then
			"$SWAPTUNE" status --sysroot "$fx" --db "$db" >/dev/null 2>"$scratch/err-$1-$i" &
		else
			"$SWAPTUNE" sample --sysroot "$fx" --db "$db" --record --count 1 --no-cpu \
				>/dev/null 2>"$scratch/err-$1-$i" &
		fi
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p" || fail "round $1: opener $i failed (exit $?): $(cat "$scratch/err-$1-$i")"
	done
}
for round in 1 2 3; do
	openers $round 4 4
	[ "$(sqlite3 "$db" 'PRAGMA journal_mode' 2>/dev/null || echo wal)" = wal ] ||
		fail "round $round: the store is not in WAL mode"
	if command -v sqlite3 >/dev/null 2>&1; then
		[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE kind = 'sample'")" = 4 ] ||
			fail "round $round: not 4 sample runs recorded"
	fi
done
for round in 4 5 6 7; do
	openers $round 8 0
	[ ! -e "$db" ] || fail "round $round: 8 status at once left a store: $(ls "$(dirname "$db")" | tr '\n' ' ')"
done
# a store made empty to be filled (new_store keeps it) is no new path: status leaves it
new_store "$scratch/kept.db"
"$SWAPTUNE" status --sysroot "$fx" --db "$scratch/kept.db" >/dev/null 2>"$scratch/err-kept" ||
	fail "status on a kept empty store: $(cat "$scratch/err-kept")"
[ -f "$scratch/kept.db" ] || fail "status dropped an empty store new_store had kept"

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
