#!/bin/sh
# swaptune sample on this host: `--count 3 --interval 200ms --json` gives 3
# schema-valid lines 0.2 s apart that say which CPU counters were used;
# --record stores a "sample" run with every tick; SIGINT and SIGTERM end a
# run cleanly (summary line, run marked interrupted and ended, every printed
# tick recorded); a closed pipe ends it too.
. "$(dirname "$0")/lib.sh"

check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed"
command -v python3 >/dev/null || skip "python3 not installed (checks the values)"
db=$scratch/db
q() { sqlite3 "$db" "$1"; }

"$SWAPTUNE" sample --db "$db" --count 3 --interval 200ms --json >"$scratch/j" 2>"$scratch/j.err" ||
	fail "sample --json: exit $?"
[ "$(wc -l <"$scratch/j")" -eq 3 ] || fail "want 3 lines, got $(wc -l <"$scratch/j")"
i=0
while IFS= read -r line; do
	i=$((i + 1))
	printf '%s\n' "$line" >"$scratch/l.json"
	"$check" "$SCHEMAS/sample.schema.json" "$scratch/l.json" >"$scratch/v.out" 2>&1 ||
		{ fail "line $i does not validate:"; head -5 "$scratch/v.out"; }
	python3 - "$scratch/l.json" "$i" <<'PY' || fail "line $i: values"
import json, sys
d = json.load(open(sys.argv[1])); i = int(sys.argv[2])
assert d["seq"] == i, d["seq"]
assert 0.15 < d["interval_s"] < 0.5, d["interval_s"]
assert abs(d["elapsed_s"] - 0.2 * i) < 0.2 * i, d["elapsed_s"]
# this host: vmstat and meminfo always there, PSI on
assert all(v is not None for v in d["vmstat"].values()), d["vmstat"]
assert d["meminfo"]["zswap_bytes"] is not None
assert d["psi"]["some_pct"] is not None and 0 <= d["psi"]["some_pct"] <= 100
# the CPU block says what was used and why
c = d["cpu"]
assert c["source"] in ("hardware", "software", "none") and c["note"], c
if c["source"] == "software":
    assert "no hardware events" in c["note"] and c["cycles_per_s"] is None and d["derived"]["ipc"] is None
PY
done <"$scratch/j"

# --record: every tick in the store
"$SWAPTUNE" sample --db "$db" --count 4 --interval 50ms --record >"$scratch/r" 2>&1 || fail "--record: exit $?"
run=$(q "SELECT id FROM runs WHERE kind = 'sample' ORDER BY id DESC LIMIT 1")
[ -n "$run" ] || fail "--record: no sample run"
[ "$(q "SELECT status || ',' || (ended_at IS NOT NULL) FROM runs WHERE id = $run")" = "ok,1" ] ||
	fail "--record: run not ended ok"
[ "$(q "SELECT group_concat(seq) FROM (SELECT seq FROM samples WHERE run_id = $run ORDER BY seq)")" = "1,2,3,4" ] ||
	fail "--record: samples are not ticks 1..4"
# stored compactly (schema 4: shape_id, vals), read back as the tick's JSON
[ "$(q "SELECT count(*) FROM samples WHERE run_id = $run AND shape_id IS NOT NULL AND length(vals) > 0")" = 4 ] ||
	fail "--record: ticks not stored compactly"
"$SWAPTUNE" sample --db "$db" --replay "$run" --json >"$scratch/rj" || fail "--record: replay --json: exit $?"
python3 - "$scratch/rj" <<'PY' || fail "--record: data is not the tick's JSON"
import json, sys
ticks = [json.loads(l) for l in open(sys.argv[1])]
assert [t["seq"] for t in ticks] == [1, 2, 3, 4], ticks
assert all(t["schema"] == "swaptune.sample/1" for t in ticks)
PY
[ "$(q "SELECT json_extract(summary, '\$.ticks') FROM runs WHERE id = $run")" = 4 ] || fail "--record: summary ticks"
grep -q "recorded run $run (4 ticks)" "$scratch/r" || fail "--record: no 'recorded run' line"
[ "$(q "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id WHERE r.id = $run")" = 1 ] ||
	fail "--record: run not tied to a host row"

# Ctrl-C and SIGTERM: clean end, summary, run interrupted, every printed tick stored
for sig in INT TERM; do
	"$SWAPTUNE" sample --db "$db" --interval 100ms --record --json >"$scratch/s.$sig" 2>"$scratch/s.$sig.err" &
	pid=$!
	# the catcher is in place before the first tick is printed: signal only after it
	# (a non-interactive sh starts & jobs with SIGINT ignored, so an INT sent before
	# sample installed its catcher was lost and the test waited forever on a loaded host)
	i=0
	while [ ! -s "$scratch/s.$sig" ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$scratch/s.$sig" ] || fail "SIG$sig: no tick within 30 s"
	sleep 0.5
	kill -$sig $pid
	wait $pid
	rc=$?
	[ "$rc" -eq 0 ] || fail "SIG$sig: exit $rc"
	n=$(wc -l <"$scratch/s.$sig")
	[ "$n" -ge 3 ] || fail "SIG$sig: only $n ticks printed"
	grep -q "sample: interrupted (SIG$sig) after $n ticks" "$scratch/s.$sig.err" ||
		fail "SIG$sig: summary: $(cat "$scratch/s.$sig.err")"
	run=$(q "SELECT id FROM runs WHERE kind = 'sample' ORDER BY id DESC LIMIT 1")
	[ "$(q "SELECT status || ',' || (ended_at IS NOT NULL) || ',' || json_extract(summary, '\$.ticks') FROM runs WHERE id = $run")" = "interrupted,1,$n" ] ||
		fail "SIG$sig: run row: $(q "SELECT status, ended_at, summary FROM runs WHERE id = $run")"
	[ "$(q "SELECT count(*) FROM samples WHERE run_id = $run")" = "$n" ] || fail "SIG$sig: samples != printed ticks"
done

# a reader that goes away ends the run, not with a crash
"$SWAPTUNE" sample --db "$db" --interval 10ms --json --record 2>"$scratch/pipe.err" | head -n 2 >/dev/null
run=$(q "SELECT id FROM runs WHERE kind = 'sample' ORDER BY id DESC LIMIT 1")
[ "$(q "SELECT status FROM runs WHERE id = $run")" = interrupted ] || fail "closed pipe: run not interrupted"
grep -q "output closed" "$scratch/pipe.err" || fail "closed pipe: $(cat "$scratch/pipe.err")"
done_testing
