#!/bin/sh
# export and import: a store's runs (arms, trials, metrics, snapshots,
# journal rows, samples) exported with the host's identity validate against
# export.schema.json; importing into another store twice adds the rows once;
# imported rows keep their origin host and are history only (journal state
# "imported", run kind "imported", never pending); a run of another machine
# with the same identity but other content, and a matrix of malformed or
# hostile files, each exit 2 with one line on stderr naming the file and
# leave the store byte-identical (sqlite3 .dump).
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
command -v python3 >/dev/null 2>&1 || skip "needs python3 to build the bad files"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
sr=$FIXTURES/v2-zswap-on
a=$scratch/a.db
b=$scratch/b.db
mid=$(cat "$sr/etc/machine-id")
st() { "$SWAPTUNE" --sysroot "$sr" "$@"; }

# store A: one probe run with everything, one apply run, made by the schema
new_store "$a" || fail "creating store A"
sqlite3 "$a" <<'SQL' || fail "filling store A"
INSERT INTO runs (id, kind, status, started_at, ended_at, params, summary) VALUES
 (1, 'probe', 'ok', '2026-11-20T10:00:00.000Z', '2026-11-20T10:05:00.000Z',
  '{"workload":{"name":"anon-seq"},"baseline":"pc3"}',
  '{"host":{"kernel":"6.8.0-45-generic","swap":{"kind":"host","device":"/dev/vda3"}},"primary_metric":{"higher_is_better":true},"verdict":{"kind":"switch","arm":"pc0"}}'),
 (2, 'apply', 'ok', '2026-11-25T10:00:00.000Z', NULL, '{"settings":{"page-cluster":"0"}}', NULL);
INSERT INTO arms (id, run_id, name, settings) VALUES (1, 1, 'pc3', '{"page-cluster":"3"}'),
 (2, 1, 'pc0', '{"page-cluster":"0"}');
INSERT INTO trials (id, run_id, arm_id, round, seq, warmup, status, primary_value) VALUES
 (1, 1, 1, 1, 1, 0, 'ok', 1000), (2, 1, 2, 1, 2, 0, 'ok', 1100), (3, 1, 1, 2, 3, 0, 'ok', 1010),
 (4, 1, 2, 2, 4, 0, 'ok', 1090), (5, 1, 2, 3, 5, 0, 'oom', NULL);
INSERT INTO metrics (trial_id, key, value) VALUES (1, 'major_faults', 12), (2, 'major_faults', 7);
INSERT INTO snapshots (run_id, reason, settings) VALUES (2, 'before apply', '{"page-cluster":"3"}');
INSERT INTO changes (session, run_id, pid, pid_start, sysroot, name, old_value, new_value, temporary, state)
 VALUES ('s1', 2, 1, 1, '/', 'page-cluster', '3', '0', 0, 'committed'),
        ('s1', 2, 1, 1, '/', 'vma_ra', 'true', 'false', 1, 'pending');
INSERT INTO samples (run_id, seq, t_ns, data) VALUES (1, 1, 1000, '{"pswpin":3}'), (1, 2, 2000, '{"pswpin":5}');
SQL
# a pending row in A would be repaired by the next command there: settle it first
sqlite3 "$a" "UPDATE changes SET state = 'restored' WHERE state = 'pending'"

st --db "$a" export -o "$scratch/a.json" || fail "export: exit $?"
[ -s "$scratch/a.json" ] || fail "export -o wrote nothing"
ls "$scratch" | grep -q '\.tmp\.' && fail "export -o left its temporary file"
"$check" "$SCHEMAS/export.schema.json" "$scratch/a.json" >"$scratch/v.out" 2>&1 ||
	fail "export does not validate: $(head -5 "$scratch/v.out")"
python3 - "$scratch/a.json" "$mid" <<'PY' || fail "export content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "swaptune.export/1"
h = d["host"]
assert h["machine_id"] == sys.argv[2], h
assert h["hostname"] and h["kernel"] and h["swaptune_version"], h
assert [r["id"] for r in d["runs"]] == [1, 2]
p = d["runs"][0]
assert len(p["arms"]) == 2 and len(p["trials"]) == 5 and len(p["samples"]) == 2
assert p["trials"][0]["metrics"] == {"major_faults": 12}
assert p["summary"]["verdict"]["kind"] == "switch"
assert len(d["runs"][1]["changes"]) == 2 and len(d["runs"][1]["snapshots"]) == 1
PY
# filters
st --db "$a" export --run 2 | grep -q '"id":2,"kind":"apply"' || fail "export --run 2"
[ "$(st --db "$a" export --run 1,2 | grep -o '"kind":"[a-z]*","status"' | wc -l)" -eq 2 ] || fail "export --run 1,2"
st --db "$a" export --since 2026-11-24 | grep -q '"kind":"probe"' && fail "export --since kept an older run"
st --db "$a" export --run 9 >/dev/null 2>&1; [ $? -eq 2 ] || fail "export --run of an unknown run: not exit 2"
st --db "$a" export --since yesterday >/dev/null 2>&1; [ $? -eq 2 ] || fail "export --since garbage: not exit 2"

# import into B (a different machine) twice: the same rows
counts() { sqlite3 "$b" "SELECT (SELECT count(*) FROM runs),(SELECT count(*) FROM arms),(SELECT count(*) FROM trials),(SELECT count(*) FROM metrics),(SELECT count(*) FROM snapshots),(SELECT count(*) FROM changes),(SELECT count(*) FROM samples),(SELECT count(*) FROM hosts)"; }
"$SWAPTUNE" --db "$b" import "$scratch/a.json" >"$scratch/i1.out" || fail "import: exit $?"
grep -q '2 runs added, 0 already present' "$scratch/i1.out" || fail "import said: $(cat "$scratch/i1.out")"
c1=$(counts)
[ "$c1" = "2|2|5|2|1|2|2|1" ] || fail "counts after import: $c1"
"$SWAPTUNE" --db "$b" import "$scratch/a.json" "$scratch/a.json" >"$scratch/i2.out" || fail "import again: exit $?"
grep -q '0 runs added, 2 already present' "$scratch/i2.out" || fail "second import said: $(cat "$scratch/i2.out")"
[ "$(counts)" = "$c1" ] || fail "importing twice changed the counts: $(counts)"
# origin kept, history only
[ "$(sqlite3 "$b" "SELECT DISTINCT h.machine_id FROM runs r JOIN hosts h ON h.id = r.host_id")" = "$mid" ] ||
	fail "imported runs do not belong to the origin host"
[ "$(sqlite3 "$b" "SELECT count(*) FROM changes WHERE state != 'imported'")" = 0 ] || fail "an imported change is not 'imported'"
[ "$(sqlite3 "$b" "SELECT group_concat(origin_state) FROM changes")" = "committed,restored" ] || fail "origin states lost"
[ "$(sqlite3 "$b" "SELECT group_concat(kind || '/' || status || '/' || origin_kind || '/' || origin_status) FROM runs")" = \
  "imported/imported/probe/ok,imported/imported/apply/ok" ] || fail "imported runs not marked: $(sqlite3 "$b" 'SELECT kind, status FROM runs')"
# nothing to roll back or repair here; the origin's own store sees its export as present
"$SWAPTUNE" --db "$b" --sysroot "$sr" rollback >"$scratch/rb.out" 2>&1
[ "$(sqlite3 "$b" "SELECT count(*) FROM runs WHERE kind = 'rollback' AND status = 'ok'")" = 0 ] || fail "rollback acted on an imported apply"
st --db "$a" import "$scratch/a.json" | grep -q '0 runs added, 2 already present' || fail "import into the origin store added runs"
# another machine's fixture
"$SWAPTUNE" --db "$b" import "$FIXTURES/fleet/host-00.json" >/dev/null || fail "import of a fleet fixture"
[ "$(sqlite3 "$b" "SELECT count(*) FROM hosts")" = 2 ] || fail "the fixture's host is not its own row"

# --- bad files: exit 2, one line naming the file, the store unchanged ---
bad=$scratch/bad
mkdir -p "$bad"
python3 - "$scratch/a.json" "$bad" <<'PY'
import json, sys, os
src, out = sys.argv[1], sys.argv[2]
good = json.load(open(src))
text = open(src).read()
def w(name, doc=None, raw=None):
    with open(os.path.join(out, name), "w") as f:
        f.write(raw if raw is not None else json.dumps(doc))
def mod(fn):
    d = json.loads(text); fn(d); return d
w("01-schema-v2.json", mod(lambda d: d.update(schema="swaptune.export/2")))
w("02-truncated.json", raw=text[: len(text) // 2])
w("03-huge-number.json", mod(lambda d: d["runs"][0]["trials"][0].update(seq=1e30)))
w("04-overflow.json", raw=text.replace('"round":1,', '"round":1e400,', 1))
w("05-deep.json", mod(lambda d: d["runs"][0].update(summary={"x": json.loads("[" * 40 + "]" * 40)})))
w("06-wrong-type.json", mod(lambda d: d["runs"][0].update(trials="many")))
w("07-missing-field.json", mod(lambda d: d["runs"][0].pop("started_at")))
w("08-long-string.json", mod(lambda d: d["runs"][0]["trials"][0].update(note="x" * 70000)))
w("09-negative.json", mod(lambda d: d["runs"][0]["trials"][0].update(round=-3)))
w("10-empty.json", raw="")
w("11-not-json.json", raw="\x7fELF\x02\x01\x01")
w("12-no-schema.json", mod(lambda d: d.pop("schema")))
w("13-unknown-arm.json", mod(lambda d: d["runs"][0]["trials"][0].update(arm="nope")))
w("14-empty-machine-id.json", mod(lambda d: d["host"].update(machine_id="")))
w("15-fraction-id.json", mod(lambda d: d["runs"][0].update(id=1.5)))
w("16-metric-string.json", mod(lambda d: d["runs"][0]["trials"][0]["metrics"].update(major_faults="12")))
w("17-kind-imported.json", mod(lambda d: d["runs"][0].update(kind="imported")))
w("18-nul-byte.json", raw=text[:20] + "\0" + text[20:])
w("19-runs-object.json", mod(lambda d: d.update(runs={})))
w("20-top-array.json", raw="[" + text + "]")
# same identity, other content: a conflict
w("21-conflict.json", mod(lambda d: d["runs"][0]["trials"][0].update(primary=5.0)))
# a new run before a conflicting one: the new run is not kept either
def newfirst(d):
    new = json.loads(json.dumps(d["runs"][0])); new["id"] = 50
    d["runs"][1]["status"] = "failed"
    d["runs"] = [new, d["runs"][1]]
w("22-new-then-conflict.json", mod(newfirst))
# a key given twice (which one counts is not for the reader to guess)
w("23-duplicate-key.json", raw=text.replace('"kind":', '"kind":"probe","kind":', 1))
# dates that no calendar has
w("24-february-30.json", mod(lambda d: d["runs"][0].update(started_at="2026-02-30T00:00:00.000Z")))
w("25-hour-25.json", mod(lambda d: d.update(exported_at="2026-11-01T25:00:00Z")))
PY
n=0
for f in "$bad"/*.json; do
	n=$((n + 1))
	sqlite3 "$b" .dump >"$scratch/before.sql"
	"$SWAPTUNE" --db "$b" import "$f" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	sqlite3 "$b" .dump >"$scratch/after.sql"
	name=$(basename "$f")
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, not 2"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$scratch/err")"
	grep -qF "$f" "$scratch/err" || fail "$name: the message does not name the file: $(cat "$scratch/err")"
	cmp -s "$scratch/before.sql" "$scratch/after.sql" || fail "$name: the store changed"
	[ -n "$VERBOSE" ] && cat "$scratch/err"
	# refused for what is wrong with them, not for a conflict they happen to make
	case $name in
	23-*) grep -q 'given twice' "$scratch/err" || fail "$name: not refused as a duplicate key: $(cat "$scratch/err")" ;;
	24-*|25-*) grep -q 'not a date and time' "$scratch/err" || fail "$name: not refused as a date: $(cat "$scratch/err")" ;;
	esac
done
[ "$n" -ge 25 ] || fail "only $n bad files"
# a good file before a bad one: neither is kept, the bad one is named
sqlite3 "$b" .dump >"$scratch/before.sql"
"$SWAPTUNE" --db "$b" import "$FIXTURES/fleet/host-02.json" "$bad/12-no-schema.json" >"$scratch/out" 2>"$scratch/err"
rc=$?
sqlite3 "$b" .dump >"$scratch/after.sql"
[ "$rc" -eq 2 ] || fail "good then bad: exit $rc, not 2"
[ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -qF "12-no-schema.json" "$scratch/err" &&
	grep -q 'none of the 2 files imported' "$scratch/err" ||
	fail "good then bad: not one line naming the bad file and saying none was kept: $(cat "$scratch/err")"
[ -s "$scratch/out" ] && fail "good then bad: a file was reported imported: $(cat "$scratch/out")"
cmp -s "$scratch/before.sql" "$scratch/after.sql" || fail "good then bad: the good file's runs were kept"
"$SWAPTUNE" --db "$b" import "$scratch/nonexistent.json" 2>/dev/null; [ $? -eq 2 ] || fail "missing file: not exit 2"
"$SWAPTUNE" --db "$b" import 2>/dev/null; [ $? -eq 2 ] || fail "no FILE: not exit 2"
# --- export takes only this machine's runs ---
# store C: a run of this tree's machine, a run stamped with db-07's machine
# id, a run whose hosts row is db-07's (no machine id of its own, as older
# rows), and a run that recorded no machine at all (older stores: taken as
# this host's). Only the first and the last go out under this identity.
c=$scratch/c.db
new_store "$c" || fail "creating store C"
sqlite3 "$c" <<SQL || fail "filling store C"
INSERT INTO hosts (id, machine_id, hostname) VALUES (7, 'db07db07db07db07db07db07db07db07', 'db-07');
INSERT INTO runs (id, kind, status, started_at, machine_id, host_id) VALUES
 (1, 'apply', 'ok', '2026-11-20T10:00:00.000Z', '$mid', NULL),
 (2, 'apply', 'ok', '2026-11-20T11:00:00.000Z', 'db07db07db07db07db07db07db07db07', NULL),
 (3, 'apply', 'ok', '2026-11-20T12:00:00.000Z', NULL, 7),
 (4, 'apply', 'ok', '2026-11-20T13:00:00.000Z', NULL, NULL);
SQL
st --db "$c" export -o "$scratch/c.json" 2>"$scratch/c.err" || fail "export of store C: exit $?"
python3 - "$scratch/c.json" "$mid" <<'PY' || fail "export of store C took another machine's runs: $(cat "$scratch/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["host"]["machine_id"] == sys.argv[2], d["host"]
assert [r["id"] for r in d["runs"]] == [1, 4], [r["id"] for r in d["runs"]]
PY
grep -qx "swaptune: note: 2 runs of other machines in $c left out" "$scratch/c.err" ||
	fail "export of store C: no note of the runs left out: $(cat "$scratch/c.err")"
for id in 2 3; do
	st --db "$c" export --run $id >/dev/null 2>"$scratch/c.err"
	rc=$?
	[ $rc -eq 2 ] || fail "export --run $id (db-07's run): exit $rc, want 2"
	grep -q "^swaptune: run $id was made on another machine (db-07, machine id db07db07db07db07db07db07db07db07), not on this one ($mid): export it there\$" \
		"$scratch/c.err" || fail "export --run $id: $(cat "$scratch/c.err")"
done
# the same store exported from db-07's side (a tree with its machine id)
cp -a "$sr" "$scratch/db07"
echo db07db07db07db07db07db07db07db07 >"$scratch/db07/etc/machine-id"
"$SWAPTUNE" --sysroot "$scratch/db07" --db "$c" export 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert [r["id"] for r in d["runs"]] == [2, 3, 4], d["runs"]' ||
	fail "export as db-07 does not take db-07's runs"
# --sysroot: the machine id is the tree's, and a tree without one is named
"$SWAPTUNE" --sysroot "$FIXTURES/vm-v1" --db "$c" export >/dev/null 2>"$scratch/c.err"
rc=$?
[ $rc -eq 2 ] || fail "export of a tree without etc/machine-id: exit $rc, want 2"
grep -qx "swaptune: cannot read the machine id ($FIXTURES/vm-v1/etc/machine-id) of this host" "$scratch/c.err" ||
	fail "export without a machine id does not name the tree's file: $(cat "$scratch/c.err")"
done_testing
