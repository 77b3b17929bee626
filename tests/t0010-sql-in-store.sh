#!/bin/sh
# Only the store spells SQL (STYLE.md): no product file outside
# src/store*.c, the store's private headers (src/store-int.h,
# src/store-err.h) and src/migrations.c mentions sqlite3,
# includes the store's private header, or has an SQL keyword in a string
# literal. (include/swaptune/store.h may name the opaque struct sqlite3.)
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1


files=$(ls src/*.c src/*.h include/swaptune/*.h advisor/*.c advisor/*.h \
	probes/*.c probes/*.h tui/*.c tui/*.h 2>/dev/null |
	grep -vE '^src/(store[^/]*\.c|store-(int|err)\.h|migrations\.c)$')
[ -n "$files" ] || fail "no source files found under $TOP"

sqlite=$(grep -l 'sqlite3' $files | grep -vE '^include/swaptune/store\.h$')
[ -z "$sqlite" ] || fail "sqlite3 outside the store: $sqlite"

private=$(grep -l '#include.*store-int\.h' $files)
[ -z "$private" ] || fail "the store's private header included outside the store: $private"

sql=$(grep -nE '"[^"]*\<(SELECT|INSERT|UPDATE|DELETE FROM|CREATE (TABLE|INDEX)|PRAGMA|BEGIN|COMMIT|ROLLBACK)\>' \
	$files)
[ -z "$sql" ] || fail "SQL outside the store:
$sql"

# the test itself catches what it is meant to catch
printf 'static const char *q = "SELECT id FROM runs";\n' >"$scratch/stray.c"
grep -qE '"[^"]*\<(SELECT|INSERT|UPDATE|DELETE FROM|CREATE (TABLE|INDEX)|PRAGMA|BEGIN|COMMIT|ROLLBACK)\>' \
	"$scratch/stray.c" || fail "the SQL pattern misses a plain SELECT"
done_testing
