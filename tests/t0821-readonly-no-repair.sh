#!/bin/sh
# Read-only commands change nothing, not even to repair (issue 33, finding
# 7): a swaptune that did not finish (journal-hold, killed with kill -9)
# leaves page-cluster=0 and zswap.enabled=Y journaled as pending in a
# sysroot copy of vm-v1. status, status --json, history, recommend, report,
# export, rollback --print, apply --dry-run and probe --dry-run must leave
# the store file and every file of the tree byte for byte as they were, and
# each says in one line how many changes are left; status --json carries
# the count as leftover_changes. Then `swaptune repair` puts both back,
# says so, and a second `swaptune repair` says "nothing to repair"; `repair
# --json` puts the same lines in swaptune.repair/1 (schema-valid), [] when
# nothing is left.
# Part 2: a read-only command given a new --db path leaves nothing there,
# whether it succeeds or fails: no store, and no directory it had to make
# (a directory that was there stays); nor does an import whose second file
# is refused (the first one's rows rolled back), nor a repair or rollback
# that finds nothing to do (the host-change lock file they took beside the
# store went with it); a writing command keeps its store.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"

hold=$BUILD/helpers/journal-hold
[ -x "$hold" ] || { echo "FAIL: $hold not built (make check builds it)"; exit 1; }
root=$scratch/root
db=$scratch/db
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
cp -a "$root" "$scratch/pristine"
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
pc=$root/proc/sys/vm/page-cluster
zs=$root/sys/module/zswap/parameters/enabled
pc0=$(cat "$pc") zs0=$(cat "$zs")

# held_and_killed: journal-hold changes page-cluster and zswap.enabled and is killed with -9
held_and_killed() {
	"$hold" --db "$db" --sysroot "$root" page-cluster=0 zswap.enabled=Y >"$scratch/hold.out" 2>"$scratch/hold.err" &
	holder=$!
	i=0
	while ! grep -q '^ready' "$scratch/hold.out"; do
		i=$((i + 1))
		[ $i -le 500 ] && kill -0 "$holder" 2>/dev/null || { echo "FAIL: journal-hold: $(cat "$scratch/hold.err")"; exit 1; }
		sleep 0.01
	done
	kill -9 "$holder"
	wait "$holder" 2>/dev/null
}
held_and_killed
[ "$(cat "$pc")" = 0 ] && [ "$(cat "$zs")" = Y ] || fail "journal-hold did not change the tree"

# a run the killed process left "running" (as a probe killed mid-run leaves its own)
sqlite3 "$db" "INSERT INTO runs (id, kind, status, started_at, params, pid) VALUES
	(7001, 'apply', 'running', '2026-12-01T10:00:00Z', '{}', $holder)" || fail "cannot craft a run"
# the killed process's WAL into the store file before the sums (sqlite3, not swaptune)
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null || fail "cannot checkpoint $db"
sums() { (cd "$root" && find . -type f -print0 | sort -z | xargs -0 sha256sum; sha256sum "$db"; ls -a "$scratch" | grep "^db"); }
sums >"$scratch/before"
want='2 changes left by a swaptune that did not finish: `swaptune repair` (or the next command that changes the host) puts them back'
for c in "status" "--json status" "history" "history --all" "recommend" "report --run 1" \
	 "export" "rollback --print" "apply --dry-run page-cluster=2" \
	 "probe --dry-run --yes"; do
	# shellcheck disable=SC2086
	st $c >"$scratch/out" 2>"$scratch/err"
	sums >"$scratch/after"
	cmp -s "$scratch/before" "$scratch/after" ||
		fail "$c changed something: $(diff "$scratch/before" "$scratch/after" | head -4 | tr '\n' ' ')"
	n=$(grep -cF "swaptune: $want" "$scratch/err")
	[ "$n" = 1 ] || fail "$c: not one line saying what is left (stderr: $(tr '\n' ' ' <"$scratch/err"))"
	# history shows the dead process's run as interrupted, not yet repaired, and writes nothing
	case $c in history*)
		grep -A1 -E '^ *7001 .* apply +interrupted$' "$scratch/out" |
			grep -q 'not yet repaired (swaptune repair ends it)' ||
			fail "$c: the killed run not shown as interrupted, not yet repaired: $(grep -A1 7001 "$scratch/out")" ;;
	esac
done
left=$(st --json status 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["leftover_changes"])')
[ "$left" = 2 ] || fail "status --json: leftover_changes $left, want 2"

st repair >"$scratch/out" 2>"$scratch/err" || fail "repair: exit $? ($(cat "$scratch/err"))"
[ "$(cat "$pc")" = "$pc0" ] && [ "$(cat "$zs")" = "$zs0" ] ||
	fail "repair did not put page-cluster and zswap.enabled back: $(cat "$pc") $(cat "$zs")"
grep -q 'page-cluster' "$scratch/err" && grep -q 'zswap.enabled' "$scratch/err" ||
	fail "repair did not say what it put back: $(tr '\n' ' ' <"$scratch/err")"
diff -r "$root" "$scratch/pristine" >/dev/null || fail "after repair the tree is not as before"
[ "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = 7001")" = interrupted ] || fail "repair did not end run 7001"
st history >"$scratch/out" 2>&1
grep -Eq '^ *7001 .* apply +interrupted' "$scratch/out" && ! grep -q 'not yet repaired' "$scratch/out" ||
	fail "history after repair: $(grep 7001 "$scratch/out")"
st repair >"$scratch/out" 2>"$scratch/err"
[ "$(cat "$scratch/out")" = "nothing to repair" ] && [ ! -s "$scratch/err" ] ||
	fail "second repair: '$(cat "$scratch/out")' / '$(cat "$scratch/err")'"
left=$(st --json status 2>"$scratch/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["leftover_changes"])')
[ "$left" = 0 ] && ! grep -q 'did not finish' "$scratch/err" || fail "after repair: leftover_changes $left, $(cat "$scratch/err")"

# repair --json, which its --help offers (it was refused as a usage error): the lines it would say
# on stderr are the "repaired" array of swaptune.repair/1, stderr stays empty; [] when nothing is left
held_and_killed
st --json repair >"$scratch/r.json" 2>"$scratch/err" || fail "repair --json: exit $? ($(cat "$scratch/err"))"
[ ! -s "$scratch/err" ] || fail "repair --json wrote to stderr: $(cat "$scratch/err")"
[ "$(cat "$pc")" = "$pc0" ] && [ "$(cat "$zs")" = "$zs0" ] || fail "repair --json did not put both back"
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "swaptune.repair/1", d
r = d["repaired"]
assert len(r) == 2 and any("page-cluster" in l for l in r) and any("zswap.enabled" in l for l in r), r' "$scratch/r.json" ||
	fail "repair --json: $(cat "$scratch/r.json")"
check=$BUILD/helpers/schema-check
if [ -x "$check" ]; then
	"$check" "$SCHEMAS/repair.schema.json" "$scratch/r.json" >"$scratch/v.out" 2>&1 ||
		fail "repair --json does not validate: $(head -5 "$scratch/v.out")"
fi
st --json repair >"$scratch/r.json" 2>"$scratch/err" || fail "second repair --json: exit $?"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["repaired"])' "$scratch/r.json")" = "[]" ] ||
	fail "second repair --json: $(cat "$scratch/r.json")"

# part 2: nothing left at a new --db path by a read-only command
fresh=$scratch/fresh
cp -a "$scratch/pristine" "$fresh"
mkdir "$scratch/there"
n=0
for c in "status" "--json status" "history" "history --all" "recommend" "doctor" \
	 "fleet-advise" "fleet-report" "sample --count 1 --interval 10ms" \
	 "apply --dry-run page-cluster=2" "probe --dry-run --yes" "switchback --dry-run" \
	 "rollback --print" "report --run 1" "export" "repair" "rollback --yes"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$SWAPTUNE" --db "$scratch/new$n/a/b/s.db" --sysroot "$fresh" $c >/dev/null 2>"$scratch/err"
	rc=$?
	[ ! -e "$scratch/new$n" ] ||
		fail "$c (exit $rc) left $(cd "$scratch" && find "new$n" | tr '\n' ' ')"
	# shellcheck disable=SC2086
	"$SWAPTUNE" --db "$scratch/there/s.db" --sysroot "$fresh" $c >/dev/null 2>"$scratch/err"
	rc=$?
	[ -d "$scratch/there" ] && [ -z "$(ls -A "$scratch/there")" ] ||
		fail "$c (exit $rc) in a directory that was there: $(ls -A "$scratch/there" 2>&1 | tr '\n' ' ')"
done
diff -r "$fresh" "$scratch/pristine" >/dev/null || fail "part 2 changed the tree"
# import A B with B refused rolls A back: its inserts counted, nothing kept, so no store either
echo '{"schema":' >"$scratch/bad.json"
"$SWAPTUNE" --db "$scratch/imp/a/s.db" --sysroot "$fresh" import "$FIXTURES/fleet/host-01.json" \
	"$scratch/bad.json" >/dev/null 2>"$scratch/err"
rc=$?
[ $rc = 2 ] && [ ! -e "$scratch/imp" ] ||
	fail "import A B, B refused: exit $rc, left $(cd "$scratch" && find imp 2>/dev/null | tr '\n' ' ')"
"$SWAPTUNE" --db "$scratch/rec/a/s.db" --sysroot "$fresh" sample --record --count 1 --interval 10ms \
	--no-cpu >/dev/null 2>"$scratch/err" || fail "sample --record: $(cat "$scratch/err")"
[ -f "$scratch/rec/a/s.db" ] || fail "sample --record did not keep its new store"
[ "$(stat -c %a "$scratch/rec/a/s.db" "$scratch/rec/a" "$scratch/rec" | tr '\n' ' ')" = "600 700 700 " ] ||
	fail "the new store and its directories are not 0600 and 0700: $(stat -c '%n %a' "$scratch/rec/a/s.db" "$scratch/rec/a" "$scratch/rec" | tr '\n' ' ')"
done_testing
