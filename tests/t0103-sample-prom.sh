#!/bin/sh
# sample --prom is Prometheus done right: each tick prints one complete
# exposition (blank line between ticks), and each exposition passes
# `promtool check metrics` (format and lint) on a fixture and on this host;
# exactly one HELP and one TYPE per family; counters are _total, never
# _percent or _per_second; every counter is monotonic from one tick to the
# next; sample --replay ID --prom prints what the live run printed (its tick
# families: the host's state is not recorded), also when the counters moved
# between ticks. A fleet can alert on it: every registry setting as
# swaptune_setting{name=...} (text values as swaptune_setting_info), the
# last stored verdict and the last apply/rollback times from the store, and
# no quantity twice (the zswap pool from debugfs, else meminfo, once).
# With --prom-file nothing goes to stderr (cron, the systemd timer) and the
# file written passes promtool.
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null 2>&1 ||
	skip "promtool not installed (Debian package prometheus): cannot check the exposition"
fx=$scratch/fx
cp -r "$FIXTURES/sample-basic" "$fx"
mkdir -p "$fx/proc/sys/kernel"
echo 6.18.44-fixture >"$fx/proc/sys/kernel/osrelease"

split() {	# split FILE PREFIX: one file per exposition, prints how many
	awk -v p="$2" 'BEGIN { RS = ""; ORS = "" } { n++; print $0 "\n" > (p "." n) } END { print n + 0 }' "$1"
}

check_one() {	# check_one NAME FILE: promtool and the conventions
	if ! promtool check metrics <"$2" >"$scratch/promtool.out" 2>&1; then
		fail "$1: promtool check metrics: $(head -5 "$scratch/promtool.out")"
	fi
	awk -v what="$1" '
	function bad(m) { print "FAIL: " what ": " m ": " $0; err = 1 }
	/^# HELP / { if (help[$3]++) bad("second HELP for " $3)
		     if ($4 == "deprecated:") old[$3] = 1 }
	# a _ratio is a share in 0..1 (docs/metrics.md, Prometheus naming); a name kept
	# for old dashboards says "deprecated:" in its HELP and is let be
	/^[a-z_]+_ratio[ {]/ { n = $1; sub(/\{.*/, "", n)
		     if (!(n in old) && ($NF + 0 < 0 || $NF + 0 > 1)) bad("a _ratio outside 0..1") }
	/^# TYPE / { if (type[$3]++) bad("second TYPE for " $3)
		     if ($4 == "counter" && $3 !~ /_total$/) bad("counter without _total")
		     if ($4 != "counter" && $3 ~ /_total$/) bad("_total that is not a counter")
		     if ($3 ~ /_percent$|_per_second$|_pct$/) bad("not a base unit") }
	END { exit err }' "$2" || failures=$((failures + 1))
}

monotonic() {	# monotonic NAME A B: every counter sample of A is in B, not smaller
	awk -v what="$1" '
	FNR == 1 { f++ }
	/^# TYPE / { if ($4 == "counter") c[$3] = 1; next }
	/^#/ || /^$/ { next }
	{ name = $1; sub(/\{.*/, "", name); if (!(name in c)) next
	  if (f == 1) a[$1] = $2; else b[$1] = $2 }
	END { n = 0
	      for (k in a) { n++
		if (!(k in b)) { print "FAIL: " what ": " k " gone at the next tick"; err = 1 }
		else if (b[k] + 0 < a[k] + 0) { print "FAIL: " what ": " k " went from " a[k] " to " b[k]; err = 1 } }
	      if (n < 10) { print "FAIL: " what ": only " n " counters"; err = 1 }
	      exit err }' "$2" "$3" || failures=$((failures + 1))
}

# --- fixture: three ticks, three expositions
"$SWAPTUNE" sample --sysroot "$fx" --db "$scratch/db" --count 3 --interval 10ms --prom \
	--cgroup swaptune-x >"$scratch/fx.prom" 2>/dev/null || fail "fixture --prom: exit $?"
[ "$(split "$scratch/fx.prom" "$scratch/fx")" -eq 3 ] || fail "fixture: want 3 expositions for --count 3"
for i in 1 2 3; do
	check_one "fixture exposition $i" "$scratch/fx.$i"
done
grep -qx 'swaptune_sample_ticks_total 3' "$scratch/fx.3" || fail "fixture: third exposition is not tick 3"
# the zswap compression factor (3 on this fixture) is A_per_B, and its old _ratio name stays, deprecated
grep -qx 'swaptune_zswap_stored_bytes_per_pool_byte 3' "$scratch/fx.1" ||
	fail "fixture: no swaptune_zswap_stored_bytes_per_pool_byte 3"
grep -q '^# HELP swaptune_zswap_compression_ratio deprecated: ' "$scratch/fx.1" ||
	fail "fixture: the old name swaptune_zswap_compression_ratio is gone or not marked deprecated"
grep -q '^swaptune_cgroup_pgmajfault_total{cgroup="swaptune-x"} [0-9]' "$scratch/fx.1" ||
	fail "fixture: the cgroup's counters lack the cgroup label"
monotonic fixture "$scratch/fx.1" "$scratch/fx.2"
# the checks catch what they should: the whole stream repeats every HELP
( failures=0; check_one stream "$scratch/fx.prom"; [ "$failures" -gt 0 ] ) >/dev/null ||
	fail "the checks accepted a stream of three expositions as one"

# --- alerting: settings, the stored verdict and apply, each quantity once
st=$scratch/state.db
sh "$FIXTURES/report/make-store.sh" "$st" >/dev/null 2>&1 || fail "make-store.sh"
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 "$st" "UPDATE runs SET summary = json_set(summary, '\$.verdict', json('{\"kind\":\"change\",\"arm\":\"pc0\"}'))
		WHERE id = 6; INSERT INTO runs (id, kind, started_at, ended_at, status)
		VALUES (7, 'rollback', '2026-11-30T13:00:00.000Z', '2026-11-30T13:00:01.000Z', 'ok');"
fi
vm=$FIXTURES/vm-v1	# every registry setting, and the zswap debugfs
"$SWAPTUNE" sample --sysroot "$vm" --db "$st" --count 1 --interval 10ms --prom \
	--prom-file "$scratch/node/swaptune.prom" >"$scratch/pf.out" 2>"$scratch/pf.err" && fail "--prom-file into a missing dir: exit 0"
mkdir -p "$scratch/node"
"$SWAPTUNE" sample --sysroot "$vm" --db "$st" --count 1 --interval 10ms --prom \
	--prom-file "$scratch/node/swaptune.prom" >"$scratch/pf.out" 2>"$scratch/pf.err" || fail "--prom-file: exit $?"
[ -s "$scratch/pf.out" ] && fail "--prom-file printed on stdout: $(head -3 "$scratch/pf.out")"
[ -s "$scratch/pf.err" ] && fail "--prom-file printed on stderr (cron mail): $(head -3 "$scratch/pf.err")"
tf=$scratch/node/swaptune.prom
check_one "textfile" "$tf"
grep -qx "swaptune_setting{name=\"page-cluster\"} $(cat "$vm/proc/sys/vm/page-cluster")" "$tf" ||
	fail "no page-cluster gauge"
[ "$(grep -c '^swaptune_setting' "$tf")" -eq 7 ] || fail "want the 7 registry settings: $(grep '^swaptune_setting' "$tf")"
grep -q '^swaptune_setting{name="vma_ra_enabled"} [01]$' "$tf" || fail "no vma_ra_enabled gauge as 1/0"
grep -q '^swaptune_setting_info{name="zswap.compressor",value="[a-z0-9-]*"} 1$' "$tf" || fail "no compressor info series"
grep -q '^swaptune_setting{name="zswap.compressor"' "$tf" && fail "a text setting as a number"
if command -v sqlite3 >/dev/null 2>&1; then
	grep -qx 'swaptune_last_verdict_info{run="6",verdict="change",arm="pc0"} 1' "$tf" || fail "no last verdict info"
	grep -qx 'swaptune_last_verdict_timestamp_seconds 1796040480.000' "$tf" ||
		fail "last verdict time is not run 6's end (2026-11-30T12:08:00Z): $(grep verdict_timestamp "$tf")"
	grep -qx 'swaptune_last_rollback_timestamp_seconds 1796043600.000' "$tf" || fail "no last rollback time"
fi
grep -qx 'swaptune_pending_confirm_seconds 0' "$tf" || fail "no pending confirmation gauge (0: none waiting)"
grep -qx 'swaptune_last_apply_timestamp_seconds 1796033700.000' "$tf" ||
	fail "last apply time is not run 3's (2026-11-30T10:15:00Z): $(grep apply_timestamp "$tf")"
# one series per quantity: the meminfo twins of the debugfs pool sizes are gone
grep -q '^swaptune_zswap_uncompressed_bytes\|^swaptune_zswap_compressed_bytes' "$tf" && fail "a zswap size twice"
grep -q '^swaptune_zswap_stored_bytes [0-9]' "$tf" || fail "no zswap stored bytes"
grep -q '^swaptune_zswap_pool_bytes [0-9]' "$tf" || fail "no zswap pool bytes"
awk '/^[a-z]/ { v[$NF " " ++n] = $1 } /^swaptune_zswap_(stored|pool)_bytes/ { s[$2]++ }
	END { for (k in s) if (s[k] > 1) { print "FAIL: two zswap sizes with the same value " k; exit 1 } }' "$tf" ||
	failures=$((failures + 1))
# without debugfs (no root), the pool sizes come from meminfo under the same names
nd=$scratch/nodebug
cp -r "$vm" "$nd"
rm -rf "$nd/sys/kernel/debug"
"$SWAPTUNE" sample --sysroot "$nd" --db "$scratch/db" --count 1 --interval 10ms --prom >"$scratch/nd.prom" 2>/dev/null ||
	fail "--prom without debugfs: exit $?"
check_one "no debugfs" "$scratch/nd.prom"
zs=$(awk '$1 == "Zswapped:" { print $2 * 1024 }' "$nd/proc/meminfo")
[ -z "$zs" ] || grep -qx "swaptune_zswap_stored_bytes $zs" "$scratch/nd.prom" ||
	fail "without debugfs, stored bytes are not meminfo's Zswapped ($zs)"

# --- this host: two ticks
"$SWAPTUNE" sample --db "$scratch/db" --count 2 --interval 300ms --prom >"$scratch/live.prom" \
	2>"$scratch/live.err" || fail "live --prom: exit $? $(cat "$scratch/live.err")"
[ "$(split "$scratch/live.prom" "$scratch/live")" -eq 2 ] || fail "live: want 2 expositions"
check_one "live exposition 1" "$scratch/live.1"
check_one "live exposition 2" "$scratch/live.2"
monotonic live "$scratch/live.1" "$scratch/live.2"
grep -q '^swaptune_memory_pressure_some_seconds_total [0-9]' "$scratch/live.1" ||
	[ ! -r /proc/pressure/memory ] || fail "live: no PSI some seconds counter"

# --- replay: counters that move while recording, then the same text again
mv=$scratch/mv
cp -r "$FIXTURES/sample-basic" "$mv"
mkdir -p "$mv/proc/sys/kernel"
echo 6.18.44-fixture >"$mv/proc/sys/kernel/osrelease"
zin=$(awk '$1 == "zswpin" { print $2 }' "$mv/proc/vmstat")
ra=$(awk '$1 == "swap_ra" { print $2 }' "$mv/proc/vmstat")
hit=$(awk '$1 == "swap_ra_hit" { print $2 }' "$mv/proc/vmstat")
"$SWAPTUNE" sample --sysroot "$mv" --db "$scratch/rdb" --count 4 --interval 150ms --record --prom \
	--no-cpu >"$scratch/rec.prom" 2>/dev/null &
pid=$!
for k in 1 2 3 4 5 6; do
	sleep 0.1
	zin=$((zin + 1000 * k)) ra=$((ra + 300 * k)) hit=$((hit + 100 * k))
	# in place, as the kernel does: the sampler keeps the file open. One
	# write, never truncated first (the numbers only grow): a tick never
	# reads an empty file
	awk -v z="$zin" -v r="$ra" -v h="$hit" '$1 == "zswpin" { $2 = z } $1 == "swap_ra" { $2 = r }
		$1 == "swap_ra_hit" { $2 = h } { print }' "$mv/proc/vmstat" >"$scratch/vmstat.new"
	dd if="$scratch/vmstat.new" of="$mv/proc/vmstat" bs=64k conv=notrunc status=none
done
wait $pid || fail "record --prom: exit $?"
"$SWAPTUNE" sample --db "$scratch/rdb" --replay 1 --prom >"$scratch/replay.prom" || fail "replay --prom: exit $?"
# the tick's families, exactly; the host's state (settings, verdict, apply, pending) is not in a recording
grep -q '^swaptune_setting' "$scratch/replay.prom" && fail "replay prints settings it never recorded"
awk '/^# (HELP|TYPE) swaptune_(setting|last_|pending_|kernel_info|applied_setting_)/ || /^swaptune_(setting|last_|pending_|kernel_info|applied_setting_)/ { next } { print }' \
	"$scratch/rec.prom" >"$scratch/rec-ticks.prom"
same "$scratch/replay.prom" "$scratch/rec-ticks.prom"
n=$(split "$scratch/replay.prom" "$scratch/rp")
[ "$n" -eq 4 ] || fail "replay: want 4 expositions, got $n"
check_one "replayed exposition 4" "$scratch/rp.4"
monotonic replay "$scratch/rp.1" "$scratch/rp.4"
z1=$(awk '$1 == "swaptune_zswpin_pages_total" { print $2 }' "$scratch/rp.1")
z4=$(awk '$1 == "swaptune_zswpin_pages_total" { print $2 }' "$scratch/rp.4")
[ -n "$z1" ] && [ -n "$z4" ] && [ "$z4" -gt "$z1" ] || fail "replay: zswpin_pages_total did not move ($z1 -> $z4)"
done_testing
