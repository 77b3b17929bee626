#!/bin/sh
# swaptune report on the fixture store of tests/fixtures/report/make-store.sh:
# --run, --before/--after and --change match the golden text, Markdown and
# JSON (tests/expected/report-*); JSON validates against report.schema.json;
# the store's text is escaped in HTML; -o replaces a file atomically and
# refuses to follow a symlinked temp name; bad input exits 2.
# REGEN=1 rewrites the golden files.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
db=$scratch/report.db
sh "$FIXTURES/report/make-store.sh" "$db" || { echo "FAIL: make-store.sh"; exit 1; }
rep() { "$SWAPTUNE" --db "$db" --sysroot "$FIXTURES/vm-v1" report "$@"; }

golden() {	# golden NAME EXT ARGS...
	name=$1 ext=$2; shift 2
	rep "$@" >"$scratch/$name.$ext" 2>"$scratch/err" || { fail "report $*: exit $? $(cat "$scratch/err")"; return; }
	if [ -n "$REGEN" ]; then
		cp "$scratch/$name.$ext" "$EXPECTED/$name.$ext"
	else
		same "$scratch/$name.$ext" "$EXPECTED/$name.$ext"
	fi
}
for f in txt:text md:md json:json; do
	ext=${f%%:*} fmt=${f#*:}
	golden report-run "$ext" --run 1 --format "$fmt"
	golden report-compare "$ext" --before 2 --after 4 --format "$fmt"
	golden report-change "$ext" --change 3 --format "$fmt"
	golden report-probes "$ext" --before 1 --after 6 --format "$fmt"
done
for n in run compare change probes; do
	"$check" "$SCHEMAS/report.schema.json" "$scratch/report-$n.json" >"$scratch/v.out" 2>&1 ||
		fail "report-$n.json does not validate: $(head -5 "$scratch/v.out")"
done

# content that must be there whatever the golden files say
grep -q 'seed 7\|--seed 7' "$scratch/report-run.txt" || fail "recipe lacks the seed"
grep -q '^  sudo swaptune probe --workload anon-zipf --arms pc3,pc1,pc0' "$scratch/report-run.txt" || fail "recipe"
grep -q 'CPU model *not recorded' "$scratch/report-run.txt" || fail "missing facts are not 'not recorded'"
# sizes as the rest of the output prints them (fmt_bytes), not "24064 MiB"
grep -q '^  memory  *23.5 GiB$' "$scratch/report-run.txt" || fail "memory is not a size: $(grep '^  memory ' "$scratch/report-run.txt")"
grep -q '^\* swap_ra  *pc0 .*-100.0 %' "$scratch/report-run.txt" || fail "differences table lacks swap_ra pc0 (beyond noise)"
grep -q '^\* zswpin  .*-33.5 %  *<0.001  *yes ' "$scratch/report-change.txt" || fail "zswpin change not beyond noise"
grep -q '^  zswpout  .* 0.56  *no ' "$scratch/report-change.txt" || fail "zswpout should be within noise"
# readahead off after the change: its hit rate is undefined then, not unmeasured
grep -q '^  readahead hit rate .* n/a after ' "$scratch/report-change.txt" || fail "readahead hit rate after is not n/a"
grep -q 'not measured' "$scratch/report-change.txt" && fail "a metric measured in both recordings is 'not measured'"
# the answer first: the summary leads, the parameters are rows, never raw JSON
[ "$(sed -n 4p "$scratch/report-change.txt")" = "Summary" ] || fail "--change does not lead with its summary"
grep -q '^  page-cluster 3 -> 0, applied 2026-11-30T10:15:00Z by alice' "$scratch/report-change.txt" || fail "summary: what changed"
grep -q '^  It helped: memory pressure fell beyond noise, PSI memory some -14.6 %' "$scratch/report-change.txt" || fail "summary: the answer (PSI memory)"
[ "$(sed -n 5p "$scratch/report-change.txt" | cut -c3-12)" = "It helped:" ] || fail "--change does not lead with the answer"
grep -q '^  source run  *1$' "$scratch/report-change.txt" || fail "parameters are not key/value rows"
grep -q '{"' "$scratch/report-change.txt" && fail "raw JSON in the change report"
[ "$(sed -n 4,6p "$scratch/report-run.txt" | tr '\n' '|')" = "Summary|  Verdict: CHANGE to pc0|  change to pc0: throughput +15.0 % [+14.6, +15.5] against pc3 over 11 rounds both completed, shown|" ] ||
	fail "--run does not lead with its verdict: $(sed -n 4,6p "$scratch/report-run.txt")"
grep -q -- '--working-set 256M --memcg-limit 128M' "$scratch/report-run.txt" || fail "recipe sizes are not 256M/128M"
# one number style: no exponent, no raw p like 8.84e-26, one percent style, times in UTC with Z
for f in "$scratch"/report-*.txt "$scratch"/report-*.md; do
	grep -nE '[0-9]e[-+][0-9]' "$f" && fail "$f: a number in e-notation"
	grep -nE '[0-9]%' "$f" | grep -v 'gain of [0-9.]*%\|rate <= [0-9.]*%\|power ~ [0-9]*%\|[0-9]% power\|>= [0-9.]*%' && fail "$f: a percentage without the space (outside the verdict's own reasons)"
	grep -nE '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(\.[0-9]+)?([^0-9Z]|$)' "$f" && fail "$f: a time without Z"
	case $f in *.md) continue ;; esac
	awk -v f="$f" 'length > 100 { print f ": " length " columns: " $0; bad = 1 } END { exit bad }' "$f" ||
		fail "$f: wider than 100 columns"
done
grep -q 'sudo swaptune rollback --to 1' "$scratch/report-change.txt" || fail "rollback command"
grep -q '^\* pc3  *1002  *1099  *+9.7 %  *<0.001  *yes  .*12 / 4$' "$scratch/report-probes.txt" || fail "probes: pc3 before/after row"
grep -q '^  pc1 ' "$scratch/report-probes.txt" && fail "probes: an arm missing after is compared"
grep -q '^| \*\*hostname\*\* | db-07.example.net |' "$scratch/report-run.md" || fail "md facts table"
grep -q '[^\\]<[a-z/]' "$scratch/report-run.md" && fail "md contains HTML"

# HTML: self-contained, charts present, text escaped
rep --run 1 --format html >"$scratch/run.html" || fail "html: exit $?"
grep -q '&lt;EBUSY&gt; &amp; retry' "$scratch/run.html" || fail "html does not escape the trial note"
grep -q '<EBUSY>' "$scratch/run.html" && fail "raw store text in html"
grep -io '<script\|<link\|<img\|url(\|https\?://[a-z0-9./-]*' "$scratch/run.html" | grep -v '^http://www.w3.org/2000/svg$' |
	grep -q . && fail "html has a script, a link or an external reference"
# one dot per round the verdict used: pc0's round 4 ends in a failed trial after an OK one,
# and the round's outcome (the verdict's and the chart's) is its last trial
[ "$(grep -c '<circle class="trial"' "$scratch/run.html")" -eq 34 ] || fail "html: want 34 trial dots (12+11+11)"
rep --change 3 --format html >"$scratch/change.html" || fail "html change: exit $?"
[ "$(grep -c '<path class="series"' "$scratch/change.html")" -ge 10 ] || fail "html change: series missing"
grep -q 'class="marker"' "$scratch/change.html" || fail "html change: no change marker"

# -o: atomic replace, format from the name
echo old >"$scratch/out.md"
rep --run 1 -o "$scratch/out.md" || fail "-o: exit $?"
head -1 "$scratch/out.md" | grep -q '^# swaptune report: probe run 1' || fail "-o out.md is not Markdown"
ls -a "$scratch" | grep -q 'swaptune-report.*tmp' && fail "-o left a temp file"
rep --run 1 -o "$scratch/nodir/x.txt" 2>"$scratch/err" && fail "-o into a missing dir succeeded"

# bad input
bad() { rep "$@" >/dev/null 2>&1; rc=$?; [ "$rc" -eq 2 ] || fail "report $*: exit $rc, want 2"; }
bad
bad --run 1 --change 3
bad --before 2
bad --run 2
bad --run 99
bad --change 1
bad --before 1 --after 4
bad --before 2 --after 6
bad --run 1 --format pdf
# an apply with no recording after it: refused (exit 2), naming what to record
sqlite3 "$db" "INSERT INTO runs (id, host_id, kind, started_at, ended_at, status) VALUES (9, 1, 'apply', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:01.000Z', 'ok');"
rep --change 9 >"$scratch/c9.txt" 2>"$scratch/c9.err"; rc=$?
[ "$rc" -eq 2 ] || fail "--change without after recording: exit $rc, want 2"
[ "$(cat "$scratch/c9.err")" = "swaptune: no recording since apply run 9 on this host: swaptune sample --record -d 10m" ] ||
	fail "--change 9 does not say what to record: $(cat "$scratch/c9.err")"
# a recording after it (recording 4, after apply 3, is the one before it)
sqlite3 "$db" "INSERT INTO runs (id, host_id, kind, started_at, ended_at, status, params) VALUES
 (20, 1, 'sample', '2026-12-01T00:10:00.000Z', '2026-12-01T00:20:00.000Z', 'ok', '{\"interval_s\":1}');
INSERT INTO samples (run_id, seq, t_ns, data) SELECT 20, seq, t_ns, data FROM samples WHERE run_id = 4;"
# every journal row of the run is listed (no cap); a boot-time file's old
# content shows its first 63 bytes, as wide as a setting's value
sqlite3 "$db" "WITH RECURSIVE g(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM g WHERE k < 70)
 INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name, old_value, new_value,
                      temporary, state, created_at)
 SELECT 's-many', 9, 1, 1, '/', 'setting', printf('knob-%02d', k), '1', '2', 0, 'committed',
        '2026-12-01T00:00:00.500Z' FROM g;
 INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name, old_value, new_value,
                      temporary, state, created_at)
 VALUES ('s-many', 9, 1, 1, '/', 'persist-file', 'etc/sysctl.d/99-swaptune.conf',
         'vm.page-cluster = 3 # first-line-of-a-long-file-content-that-goes-on-and-on-and-on-and-on', NULL,
         0, 'committed', '2026-12-01T00:00:00.600Z');"
rep --change 9 >"$scratch/c9.txt" || fail "--change 9 with 71 rows: exit $?"
# (the text splits the wide table: each row shows in every part, once per part)
[ "$(grep -o '^  knob-[0-9][0-9] ' "$scratch/c9.txt" | sort -u | wc -l)" -eq 70 ] || fail "--change 9 does not list all 70 setting rows"
# (a cell wider than the text's width wraps within its column)
grep -q '^  persist-file etc/sysctl.d/99-swaptune.conf  *vm.page-cluster = 3 # *$' "$scratch/c9.txt" &&
grep -q '^  *first-line-of-a-long-file-content-that-go *$' "$scratch/c9.txt" ||
	fail "--change 9: the file's old content is not clipped to 63 bytes"
grep -q '^  knob-01 1 -> 2, knob-02 1 -> 2, knob-03 1 -> 2 and 68 more, applied 2026-12-01T00:00:00Z' "$scratch/c9.txt" ||
	fail "--change 9: the summary does not name the first changes and how many more"
awk 'length > 100 { bad = 1 } END { exit bad }' "$scratch/c9.txt" || fail "--change 9: a line is wider than 100 columns"
done_testing
