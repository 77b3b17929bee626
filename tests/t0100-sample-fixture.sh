#!/bin/sh
# swaptune sample on a fake host (tests/fixtures/sample-basic): JSON lines
# valid against sample.schema.json with the fixture's exact levels, the
# cgroup block, bad input (exit 2), an 80-column table with its header
# repeated, and Prometheus text that passes a strict format check (promtool
# when installed, else the awk checker below); --prom-file is replaced
# atomically. Also: one tick on every other good fixture validates.
. "$(dirname "$0")/lib.sh"

check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
fx=$scratch/fx
cp -r "$FIXTURES/sample-basic" "$fx"
mkdir -p "$fx/proc/sys/kernel"
echo 6.18.44-fixture >"$fx/proc/sys/kernel/osrelease"
st() { "$SWAPTUNE" sample --sysroot "$fx" --db "$scratch/db" "$@"; }

validate_lines() {	# validate_lines NAME FILE: every line against the schema
	i=0
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s\n' "$line" >"$scratch/line.json"
		"$check" "$SCHEMAS/sample.schema.json" "$scratch/line.json" >"$scratch/v.out" 2>&1 ||
			{ fail "$1 line $i does not validate:"; head -5 "$scratch/v.out"; }
	done <"$2"
}

# --- JSON lines with exact values
st --count 2 --interval 10ms --json --cgroup swaptune-x >"$scratch/j" 2>"$scratch/j.err" ||
	fail "sample --json: exit $?"
[ "$(wc -l <"$scratch/j")" -eq 2 ] || fail "sample --count 2 --json: $(wc -l <"$scratch/j") lines"
validate_lines "fixture --json" "$scratch/j"
for want in '"seq":1,' '"swap_used_bytes":268435456,' '"swap_cached_bytes":2097152,' \
	'"zswap_bytes":67108864,' '"zswapped_bytes":201326592}' '"stored_pages":49152,' \
	'"pool_bytes":67108864,' '"zswap_compression_ratio":3,' '"zswpout_pages_per_s":0,' \
	'"some_avg10_pct":1.5,' '"cgroup":{"path":"swaptune-x","version":"v1","anon_bytes":104857600,' \
	'"swap_bytes":209715200,' '"source":"none"' '"ra_hit_pct":null'; do
	grep -qF "$want" "$scratch/j" || fail "--json lacks $want"
done
grep -q '"seq":2,' "$scratch/j" || fail "second line is not seq 2"
# every line names its host (the sysroot's) and the raw counters
grep -q '"host":{"machine_id":"[^"]*","hostname":"[^"]*","boot_id":"[^"]*"},"swaptune_version":"' "$scratch/j" ||
	fail "--json lines lack the host identity"
[ "$(grep -c '"counters":{"pswpin_pages":' "$scratch/j")" -eq 2 ] || fail "--json lines lack the counters"
grep -q 'sample: done after 2 ticks' "$scratch/j.err" || fail "no summary line on stderr: $(cat "$scratch/j.err")"

# --- bad input: exit 2 with a message naming the option
bad() {	# bad PATTERN ARGS...: exit 2 and PATTERN on stderr
	pat=$1; shift
	st "$@" >/dev/null 2>"$scratch/bad.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "sample $*: exit $rc, want 2"
	grep -q -- "$pat" "$scratch/bad.err" || fail "sample $*: stderr lacks '$pat': $(cat "$scratch/bad.err")"
}
bad '--interval needs a duration from 10ms to 24h .*"1ms"' --interval 1ms --count 1
bad '--interval needs a duration from 10ms to 24h .*"25h"' --interval 25h --count 1
bad '--interval needs a duration .*"soon"' --interval soon
bad '--count needs a whole number of at least 1, not "0"' --count 0
bad '--count needs a whole number of at least 1, not "-3"' --count -3
bad '--duration needs a duration .*"0"' --duration 0
bad "exclude each other" --json --prom --count 1
bad "needs --prom" --prom-file "$scratch/x.prom" --count 1
bad "no such cgroup" --cgroup nope --count 1
bad '"\.\." is not allowed' --cgroup ../.. --count 1
# a cgroup that is a symlink out of the sysroot (absolute or relative) is refused, one inside is
# not (issue 33, finding 10: --cgroup accepted it)
cp -r "$fx/sys/fs/cgroup/memory/swaptune-x" "$scratch/outside"
ln -s "$scratch/outside" "$fx/sys/fs/cgroup/memory/escape-abs"
ln -s ../../../../../outside "$fx/sys/fs/cgroup/memory/escape-rel"
ln -s swaptune-x "$fx/sys/fs/cgroup/memory/inside"
bad "--cgroup escape-abs: /sys/fs/cgroup/memory/escape-abs leads out of the sysroot" --cgroup escape-abs --count 1
bad "--cgroup escape-rel/: .* leads out of the sysroot" --cgroup escape-rel/ --count 1
[ "$(wc -l <"$scratch/bad.err")" = 1 ] || fail "--cgroup escape-rel: not one line: $(cat "$scratch/bad.err")"
st --count 1 --interval 10ms --json --cgroup inside >/dev/null 2>"$scratch/in.err" ||
	fail "--cgroup through a symlink inside the sysroot: exit $? ($(cat "$scratch/in.err"))"
rm -f "$fx/sys/fs/cgroup/memory/escape-abs" "$fx/sys/fs/cgroup/memory/escape-rel" "$fx/sys/fs/cgroup/memory/inside"
bad "no such process" --pid 4000000 --count 1
bad "unexpected argument" --count 1 extra
bad "unknown option" --colour

# --- the table: 80 columns, header every 20 rows, n/a where nothing is known
st --count 25 --interval 10ms >"$scratch/t" 2>"$scratch/t.err" || fail "table: exit $?"
awk 'length($0) > 80 { print "line " NR " is " length($0) " columns: " $0; bad = 1 }
	END { exit bad }' "$scratch/t" || fail "table wider than 80 columns"
[ "$(grep -c '^UTC ' "$scratch/t")" -eq 2 ] || fail "header should appear twice in 25 rows"
[ "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' "$scratch/t")" -eq 25 ] || fail "want 25 rows"
row=$(grep -m1 '^[0-9][0-9]:' "$scratch/t")
# zsin zsout wb ra hit% waste majf some% full% zsMiB ratio scan
set -- $row
[ "$6" = "n/a" ] || fail "hit% with no readahead should be n/a: $row"
# (fmt_short: the one number style, no trailing zeros on a number without a prefix)
[ "${11}" = "64" ] || fail "zsMiB should be 64: $row"
[ "${12}" = "3" ] || fail "ratio should be 3: $row"
grep -q '^# cpu: CPU counters are counted on the live host only' "$scratch/t" || fail "table lacks the cpu note"
grep -q '^sample: done after 25 ticks' "$scratch/t" || fail "table lacks the summary line"

# --- Prometheus text format
prom_ok() {	# prom_ok FILE: strict exposition-format check
	if command -v promtool >/dev/null 2>&1; then
		promtool check metrics <"$1" >"$scratch/promtool.out" 2>&1 ||
			{ fail "promtool check metrics: $(head -5 "$scratch/promtool.out")"; return; }
	fi
	# independent checker: HELP/TYPE before samples, one family each, names and values valid
	awk '
	function bad(m) { print "line " NR ": " m ": " $0; err = 1 }
	/^# HELP / { if ($3 in help) bad("second HELP for " $3); help[$3] = 1; next }
	/^# TYPE / { if ($3 in type) bad("second TYPE for " $3); type[$3] = $4
		     if ($4 !~ /^(gauge|counter|untyped|summary|histogram)$/) bad("bad type"); next }
	/^#/ { next }
	/^$/ { bad("empty line"); next }
	{
		if (!match($0, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) { bad("bad metric name"); next }
		name = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
		if (!(name in type)) bad("sample before its TYPE")
		if (name in seen && seen[name] != rest) {}
		if (rest ~ /^\{/) {
			if (!match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\[\\"n])*",?)*\}/)) { bad("bad labels"); next }
			rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ (-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|NaN|[-+]Inf)$/) bad("bad value")
		if (last != "" && name != last && (name in done)) bad("family " name " not contiguous")
		if (last != "" && name != last) done[last] = 1
		last = name
	}
	END { exit err }' "$1" >"$scratch/awk.out" || fail "prometheus format: $(head -5 "$scratch/awk.out")"
}
st --count 1 --interval 10ms --prom --cgroup swaptune-x >"$scratch/p.prom" 2>/dev/null || fail "--prom: exit $?"
prom_ok "$scratch/p.prom"
grep -qx "swaptune_zswap_stored_bytes $((49152 * $(getconf PAGESIZE)))" "$scratch/p.prom" ||
	fail "--prom lacks stored_bytes = 49152 pages"
grep -qx 'swaptune_cgroup_anon_bytes{cgroup="swaptune-x"} 104857600' "$scratch/p.prom" || fail "--prom lacks the cgroup label"
grep -q '^swaptune_readahead_hit_ratio' "$scratch/p.prom" && fail "--prom: n/a values must be left out"
# the raw kernel counters as _total counters (fixture values), PSI in seconds
zin=$(awk '$1 == "zswpin" { print $2 }' "$fx/proc/vmstat")
grep -qx "swaptune_zswpin_pages_total $zin" "$scratch/p.prom" || fail "--prom lacks zswpin_pages_total $zin"
grep -qx '# TYPE swaptune_zswpin_pages_total counter' "$scratch/p.prom" || fail "--prom: zswpin is not a counter"
some_us=$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' "$fx/proc/pressure/memory")
grep -qx "swaptune_memory_pressure_some_seconds_total $(awk -v u="$some_us" 'BEGIN { printf "%.6f", u / 1e6 }')" \
	"$scratch/p.prom" || fail "--prom: PSI some total in seconds"
grep -E '^# TYPE [a-z_]*(_percent|_per_second) ' "$scratch/p.prom" && fail "--prom: percent or per-second families"
grep -q ' [0-9]\{13\}$' "$scratch/p.prom" && fail "--prom: no timestamps (textfile collector rejects them)"
# the checker rejects what it should
printf '# TYPE a gauge\na{x="y} 1\n' >"$scratch/broken.prom"
( failures=0; prom_ok "$scratch/broken.prom"; [ "$failures" -gt 0 ] ) >/dev/null ||
	fail "the prometheus check accepted a broken label"

mkdir "$scratch/textfile"
st --count 5 --interval 10ms --prom --prom-file "$scratch/textfile/swaptune.prom" >"$scratch/pf.out" 2>&1 ||
	fail "--prom-file: exit $?"
[ -s "$scratch/textfile/swaptune.prom" ] || fail "--prom-file: file not written"
[ "$(ls "$scratch/textfile" | wc -l)" -eq 1 ] || fail "--prom-file left files behind: $(ls "$scratch/textfile")"
grep -qx 'swaptune_sample_ticks_total 5' "$scratch/textfile/swaptune.prom" || fail "--prom-file does not hold the last tick"
prom_ok "$scratch/textfile/swaptune.prom"
grep -q '^swaptune_' "$scratch/pf.out" && fail "--prom-file also printed metrics"
st --count 1 --interval 10ms --prom --prom-file "$scratch/nodir/x.prom" 2>"$scratch/pe.err"
[ $? -eq 2 ] || fail "--prom-file in a missing dir: want exit 2"
grep -q "cannot create" "$scratch/pe.err" || fail "--prom-file error: $(cat "$scratch/pe.err")"

# --- every other good fixture: one tick validates
for f in $(good_fixtures); do
	"$SWAPTUNE" sample --sysroot "$FIXTURES/$f" --db "$scratch/db" --count 1 --interval 10ms --json \
		>"$scratch/g-$f" 2>"$scratch/g-$f.err" || fail "sample on $f: exit $?"
	validate_lines "sample on $f" "$scratch/g-$f"
done
done_testing
