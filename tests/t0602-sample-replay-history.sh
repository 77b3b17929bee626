#!/bin/sh
# sample --replay ID prints a stored recording as it was live: --json lines
# byte for byte as printed while recording, --prom the same Prometheus text,
# the table with the live header; a non-recording run id is exit 2.
# history --all lists recordings with their ticks and duration (text and
# JSON, valid against history.schema.json).
. "$(dirname "$0")/lib.sh"

check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
fx=$scratch/fx
cp -r "$FIXTURES/sample-basic" "$fx"
mkdir -p "$fx/proc/sys/kernel"
echo 6.18.44-fixture >"$fx/proc/sys/kernel/osrelease"
st() { "$SWAPTUNE" --sysroot "$fx" --db "$scratch/db" "$@"; }

st sample --count 3 --interval 10ms --record --json --no-cpu >"$scratch/live.json" 2>/dev/null || fail "record --json: exit $?"
st sample --count 2 --interval 10ms --record --prom --no-cpu >"$scratch/live.prom" 2>/dev/null || fail "record --prom: exit $?"
st sample --replay 1 --json >"$scratch/replay.json" || fail "replay --json: exit $?"
same "$scratch/replay.json" "$scratch/live.json"
st sample --replay 2 --prom >"$scratch/replay.prom" || fail "replay --prom: exit $?"
# the tick's families; the host's state beside a live tick (settings, verdict, apply, a pending confirmation) is not recorded
awk '/^# (HELP|TYPE) swaptune_(setting|last_|kernel_info|applied_setting_|pending_confirm)/ || /^swaptune_(setting|last_|kernel_info|applied_setting_|pending_confirm)/ { next } { print }' \
	"$scratch/live.prom" >"$scratch/live-ticks.prom"
same "$scratch/replay.prom" "$scratch/live-ticks.prom"
st sample --replay 1 >"$scratch/replay.txt" || fail "replay table: exit $?"
head -1 "$scratch/replay.txt" | grep -q '^UTC *zsin zsout' || fail "replay table header: $(head -1 "$scratch/replay.txt")"
[ "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' "$scratch/replay.txt")" -eq 3 ] || fail "replay table: want 3 rows"
grep -q 'replayed recording 1 (ok, 3 ticks' "$scratch/replay.txt" || fail "replay summary line"
st sample --replay 99 >/dev/null 2>&1; [ $? -eq 2 ] || fail "replay of a missing run: want exit 2"
st sample --replay 1 --record >/dev/null 2>&1; [ $? -eq 2 ] || fail "--replay --record: want exit 2"

st history --all >"$scratch/h.txt" || fail "history --all: exit $?"
grep -q '^Sample recordings' "$scratch/h.txt" || fail "history --all lacks the recordings"
grep -q '^ *1  .* ok  *3 ' "$scratch/h.txt" || fail "history --all: recording 1 with 3 ticks: $(cat "$scratch/h.txt")"
st history >"$scratch/h2.txt"
grep -q 'Sample recordings' "$scratch/h2.txt" && fail "history without --all lists recordings"
st history --all --json >"$scratch/h.json" || fail "history --all --json: exit $?"
"$check" "$SCHEMAS/history.schema.json" "$scratch/h.json" >"$scratch/v.out" 2>&1 || fail "history json: $(cat "$scratch/v.out")"
grep -q '"ticks":[[:space:]]*3' "$scratch/h.json" || fail "history --all --json lacks ticks"
done_testing
