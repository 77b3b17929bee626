#!/bin/sh
# sample --prom is Prometheus done right: each tick prints one complete
# exposition (blank line between ticks), and each exposition passes
# `promtool check metrics` (format and lint) on a fixture and on this host;
# exactly one HELP and one TYPE per family; counters are _total, never
# _percent or _per_second; every counter is monotonic from one tick to the
# next; sample --replay ID --prom prints what the live run printed, also when
# the counters moved between ticks.
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
	/^# HELP / { if (help[$3]++) bad("second HELP for " $3) }
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
grep -q '^swaptune_cgroup_pgmajfault_total{cgroup="swaptune-x"} [0-9]' "$scratch/fx.1" ||
	fail "fixture: the cgroup's counters lack the cgroup label"
monotonic fixture "$scratch/fx.1" "$scratch/fx.2"
# the checks catch what they should: the whole stream repeats every HELP
( failures=0; check_one stream "$scratch/fx.prom"; [ "$failures" -gt 0 ] ) >/dev/null ||
	fail "the checks accepted a stream of three expositions as one"

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
	# in place, as the kernel does: the sampler keeps the file open
	awk -v z="$zin" -v r="$ra" -v h="$hit" '$1 == "zswpin" { $2 = z } $1 == "swap_ra" { $2 = r }
		$1 == "swap_ra_hit" { $2 = h } { print }' "$mv/proc/vmstat" >"$scratch/vmstat.new"
	cat "$scratch/vmstat.new" >"$mv/proc/vmstat"
done
wait $pid || fail "record --prom: exit $?"
"$SWAPTUNE" sample --db "$scratch/rdb" --replay 1 --prom >"$scratch/replay.prom" || fail "replay --prom: exit $?"
same "$scratch/replay.prom" "$scratch/rec.prom"
n=$(split "$scratch/replay.prom" "$scratch/rp")
[ "$n" -eq 4 ] || fail "replay: want 4 expositions, got $n"
check_one "replayed exposition 4" "$scratch/rp.4"
monotonic replay "$scratch/rp.1" "$scratch/rp.4"
z1=$(awk '$1 == "swaptune_zswpin_pages_total" { print $2 }' "$scratch/rp.1")
z4=$(awk '$1 == "swaptune_zswpin_pages_total" { print $2 }' "$scratch/rp.4")
[ -n "$z1" ] && [ -n "$z4" ] && [ "$z4" -gt "$z1" ] || fail "replay: zswpin_pages_total did not move ($z1 -> $z4)"
done_testing
