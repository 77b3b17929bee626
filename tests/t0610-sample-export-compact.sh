#!/bin/sh
# A recording's compact ticks (schema 4) leave the store as the JSON they
# were recorded as (numbers rows since schema 8): `export` carries each tick as the line `sample --replay
# --json` prints, and `import` into another store writes them compactly
# again (shape_id and vals, data ''), so the imported copy exports the same
# ticks. A recording of an older store's JSON rows exports the same way.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3"
fx=$scratch/fx
cp -r "$FIXTURES/sample-basic" "$fx"
mkdir -p "$fx/proc/sys/kernel"
echo 6.18.44-fixture >"$fx/proc/sys/kernel/osrelease"
mkdir -p "$fx/etc"
echo 0123456789abcdef0123456789abcdef >"$fx/etc/machine-id"	# export names its host
a=$scratch/a.db
b=$scratch/b.db
st() { "$SWAPTUNE" --sysroot "$fx" "$@"; }

st --db "$a" sample --count 4 --interval 10ms --record --no-cpu --cgroup swaptune-x >/dev/null 2>&1 ||
	fail "record: exit $?"
[ "$(sqlite3 "$a" "SELECT count(*) FROM samples WHERE shape_id IS NOT NULL AND data = ''")" = 4 ] ||
	fail "recorded ticks are not compact: $(sqlite3 "$a" 'SELECT seq, shape_id, length(data) FROM samples')"
st --db "$a" sample --replay 1 --json >"$scratch/replay.json" || fail "replay: exit $?"
st --db "$a" export -o "$scratch/a.json" || fail "export: exit $?"
python3 - "$scratch/a.json" "$scratch/replay.json" <<'PY' || fail "export's ticks differ from the replay"
import json, sys
d = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
s = d["runs"][0]["samples"]
assert [x["seq"] for x in s] == [1, 2, 3, 4], s
assert [x["data"] for x in s] == lines
PY

"$SWAPTUNE" --db "$b" import "$scratch/a.json" >/dev/null || fail "import: exit $?"
[ "$(sqlite3 "$b" "SELECT count(*) FROM samples WHERE shape_id IS NOT NULL AND data = ''")" = 4 ] ||
	fail "imported ticks are not compact"
[ "$(sqlite3 "$b" "SELECT count(*) FROM sample_shapes")" = 1 ] || fail "import stored more than one shape"

# a JSON row (a store of schema 3's kind) exports the same tick; it is the
# last row: a numbers row follows the numbers row before it (schema 8)
cp "$a" "$scratch/mid.db"
sqlite3 "$a" "UPDATE samples SET data = '$(sed -n 4p "$scratch/replay.json" | sed "s/'/''/g")', shape_id = NULL,
	vals = NULL WHERE seq = 4" || fail "making a JSON row"
st --db "$a" export -o "$scratch/a2.json" || fail "export with a JSON row: exit $?"
python3 - "$scratch/a.json" "$scratch/a2.json" <<'PY' || fail "a JSON row exports differently"
import json, sys
x, y = (json.load(open(p))["runs"][0]["samples"] for p in sys.argv[1:])
assert x == y
PY
st --db "$a" sample --replay 1 --json | cmp -s - "$scratch/replay.json" || fail "replay with a JSON row differs"
# a numbers row whose predecessor was replaced is refused, never read against the wrong one
sqlite3 "$scratch/mid.db" "UPDATE samples SET data = '$(sed -n 2p "$scratch/replay.json" | sed "s/'/''/g")',
	shape_id = NULL, vals = NULL WHERE seq = 2" || fail "making a JSON row"
st --db "$scratch/mid.db" sample --replay 1 --json >"$scratch/mid.out" 2>"$scratch/mid.err" &&
	fail "a broken chain was read: $(cat "$scratch/mid.out")"
grep -q "tick 3 is damaged" "$scratch/mid.err" || fail "broken chain: $(cat "$scratch/mid.err")"
done_testing
