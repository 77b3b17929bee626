#!/bin/sh
# fleet-report for people, on the store merged from the four fake hosts of
# tests/fixtures/fleet: the hosts of each group by name; the verdicts in
# recommend's words (CHANGE to pc0, never the stored "switch"); the summary
# first; aligned columns (every row of a table as wide as its header, the
# tau2 column included, no e-notation: tau2 4.653e-05 is 0.00004653);
# within 100 columns; --format md (pipe tables, no HTML), json (the
# fleet-report schema, as --json, with host names and per-run verdicts) and
# html (self-contained, a chart per group); a bad --format exits 2.
. "$(dirname "$0")/lib.sh"

db=$scratch/fleet.db
fx=$FIXTURES/fleet
"$SWAPTUNE" --db "$db" import "$fx"/host-0*.json >/dev/null || fail "import of the fleet fixtures: exit $?"
fr() { "$SWAPTUNE" --db "$db" fleet-report "$@"; }

fr >"$scratch/r.txt" || fail "fleet-report: exit $?"
[ "$(sed -n 4p "$scratch/r.txt")" = "Summary" ] || fail "the summary is not first"
grep -q '^  4 probe runs from 4 hosts, in 2 groups of like hosts$' "$scratch/r.txt" || fail "summary: runs, hosts, groups"
grep -q '^  kernel 6.8.0-45-generic, backend disk, anon-seq: pc0 +9.9 % (95 % CI +8.6 % .. +11.1 %) against$' \
	"$scratch/r.txt" || fail "summary: the 6.8 group's best arm"
for h in node-00 node-01 node-02; do
	grep -q "^  hosts  *.*$h" "$scratch/r.txt" || fail "the 6.8 group does not name $h"
done
grep -q '^  host  *node-03$' "$scratch/r.txt" || fail "the 6.1 group does not name node-03"
grep -q 'switch' "$scratch/r.txt" && fail "a stored verdict kind (switch) instead of recommend's CHANGE"
grep -q 'CHANGE to pc0 in 3 runs' "$scratch/r.txt" || fail "verdicts are not in recommend's words"
grep -nE '[0-9]e[-+][0-9]' "$scratch/r.txt" && fail "e-notation"
grep -q ' 0.00004653$' "$scratch/r.txt" || fail "tau2 of pc0 is not 0.00004653"
awk 'length > 100 { print "FAIL: " length " columns: " $0; bad = 1 } END { exit bad }' "$scratch/r.txt" ||
	failures=$((failures + 1))
# aligned: in each table, every row ends where the header's last column ends (numbers right-aligned)
awk '/^  arm  runs/ { w = length; on = 1; next } on && /^[*] |^  [a-z]/ { if (length != w) { print "FAIL: misaligned: " $0; bad = 1 }; next }
	{ on = 0 } END { exit bad }' "$scratch/r.txt" || failures=$((failures + 1))
fr --format text | cmp -s - "$scratch/r.txt" || fail "--format text differs from the default"

fr --format md >"$scratch/r.md" || fail "--format md: exit $?"
head -1 "$scratch/r.md" | grep -q '^# swaptune fleet report: 4 probe runs in 2 groups$' || fail "md title"
grep -q '^| arm | runs | effect | 95 % CI of effect | tau2 |$' "$scratch/r.md" || fail "md pooled table"
grep -q '^| \*\*hosts\*\* | node-00, node-01, node-02 |$' "$scratch/r.md" || fail "md hosts"
grep -q '[^\\]<[a-z/]' "$scratch/r.md" && fail "md contains HTML"

fr --format json >"$scratch/r.json" || fail "--format json: exit $?"
fr --json >"$scratch/j.json" || fail "--json: exit $?"
cmp -s "$scratch/r.json" "$scratch/j.json" || fail "--format json differs from --json"
check=$BUILD/helpers/schema-check
if [ -x "$check" ]; then
	"$check" "$SCHEMAS/fleet-report.schema.json" "$scratch/r.json" >"$scratch/v.out" 2>&1 ||
		fail "--format json does not validate: $(head -5 "$scratch/v.out")"
fi
grep -q '"host_names":[[:space:]]*\["node-00", "node-01", "node-02"\]' "$scratch/r.json" || fail "json host names"
grep -q '"verdict":[[:space:]]*"CHANGE"' "$scratch/r.json" || fail "json per-run verdict words"

fr --format html >"$scratch/r.html" || fail "--format html: exit $?"
[ "$(grep -c '<svg ' "$scratch/r.html")" -eq 2 ] || fail "html: want a chart per group"
grep -q '<div class="answer">' "$scratch/r.html" || fail "html: no summary box"
grep -io '<script\|<link\|<img\|url(' "$scratch/r.html" && fail "html is not self-contained"

fr --format pdf >/dev/null 2>&1; [ $? -eq 2 ] || fail "--format pdf: not exit 2"
fr extra >/dev/null 2>&1; [ $? -eq 2 ] || fail "an argument: not exit 2"
done_testing
