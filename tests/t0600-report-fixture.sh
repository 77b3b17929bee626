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
sh "$FIXTURES/report/make-store.sh" "$SWAPTUNE" "$db" || { echo "FAIL: make-store.sh"; exit 1; }
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
grep -q '^  swap_ra  *pc0 .*-100.0%' "$scratch/report-run.txt" || fail "differences table lacks swap_ra pc0"
grep -q '^  zswpin .*yes$' "$scratch/report-change.txt" || fail "zswpin change not beyond noise"
grep -q '^  zswpout .* no$' "$scratch/report-change.txt" || fail "zswpout should be within noise"
grep -q 'sudo swaptune rollback --to 1' "$scratch/report-change.txt" || fail "rollback command"
grep -q '^  pc3  *4  *4  *1002  *1099  *+9.7%.* yes$' "$scratch/report-probes.txt" || fail "probes: pc3 before/after row"
grep -q '^  pc1 ' "$scratch/report-probes.txt" && fail "probes: an arm missing after is compared"
grep -q '^| \*\*hostname\*\* | db-07.example.net |' "$scratch/report-run.md" || fail "md facts table"
grep -q '[^\\]<[a-z/]' "$scratch/report-run.md" && fail "md contains HTML"

# HTML: self-contained, charts present, text escaped
rep --run 1 --format html >"$scratch/run.html" || fail "html: exit $?"
grep -q '&lt;EBUSY&gt; &amp; retry' "$scratch/run.html" || fail "html does not escape the trial note"
grep -q '<EBUSY>' "$scratch/run.html" && fail "raw store text in html"
grep -io '<script\|<link\|<img\|url(\|https\?://[a-z0-9./-]*' "$scratch/run.html" | grep -v '^http://www.w3.org/2000/svg$' |
	grep -q . && fail "html has a script, a link or an external reference"
[ "$(grep -c '<circle class="trial"' "$scratch/run.html")" -eq 11 ] || fail "html: want 11 trial dots (4+3+4)"
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
# a recording without a counterpart after it: say what to record
sqlite3 "$db" "INSERT INTO runs (id, kind, started_at, ended_at, status) VALUES (9, 'apply', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:01.000Z', 'ok');"
rep --change 9 >"$scratch/c9.txt" || fail "--change without after recording: exit $?"
grep -q 'after: none recorded yet' "$scratch/c9.txt" || fail "--change 9 does not say what to record"
grep -q 'swaptune sample --record --duration 10m' "$scratch/c9.txt" || fail "--change 9: no command to record"
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
[ "$(grep -c '^  knob-[0-9][0-9] ' "$scratch/c9.txt")" -eq 70 ] || fail "--change 9 does not list all 70 setting rows"
grep -q '^  persist-file etc/sysctl.d/99-swaptune.conf  *vm.page-cluster = 3 # first-line-of-a-long-file-content-that-go  ' \
	"$scratch/c9.txt" || fail "--change 9: the file's old content is not clipped to 63 bytes"
done_testing
