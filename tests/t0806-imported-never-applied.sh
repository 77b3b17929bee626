#!/bin/sh
# Imported rows are another host's history, never acted on here (issue 19,
# finding 3): after importing another host's export into a store used
# with a sysroot copy,
#  - rollback --to an imported snapshot (and --print) is refused with one
#    line naming the origin host, exit 2, and the tree does not change;
#  - apply --run of an imported run is refused, nothing changes;
#  - a snapshot of an apply run another machine made (a copied store) is
#    refused the same way, and a plain rollback does not pick that apply;
#  - history shows the imported run as the origin host's (its host, kind,
#    run id and status), in text and JSON.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
mkdir -p "$root/etc"
echo 0123456789abcdef0123456789abcdef >"$root/etc/machine-id"
db=$scratch/s.db
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
tree_sum() { (cd "$root" && find . -type f | LC_ALL=C sort | xargs cksum) | cksum; }

st import "$FIXTURES/fleet/host-01.json" >/dev/null 2>"$scratch/err" || fail "import: $(cat "$scratch/err")"
run=$(sqlite3 "$db" "SELECT id FROM runs WHERE kind = 'imported' LIMIT 1")
snap=$(sqlite3 "$db" "SELECT id FROM snapshots WHERE run_id = $run LIMIT 1")
[ -n "$snap" ] || fail "the fixture export has no snapshot"
echo 0 >"$root/proc/sys/vm/page-cluster"	# the imported snapshot says 3
before=$(tree_sum)

st rollback --to "$snap" --yes >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "rollback --to an imported snapshot: exit $rc, want 2"
[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "rollback --to an imported snapshot: want one line: $(cat "$scratch/err")"
grep -q "imported from host node-01.*never rolls back to another host's settings" "$scratch/err" ||
	fail "no clear line: $(cat "$scratch/err")"
[ "$(tree_sum)" = "$before" ] || fail "rollback --to an imported snapshot changed the tree: page-cluster $(cat "$root/proc/sys/vm/page-cluster")"
st rollback --to "$snap" --print >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] || fail "rollback --print --to an imported snapshot: exit not 2"
[ -s "$scratch/out" ] && fail "rollback --print printed commands for an imported snapshot"

st apply --run "$run" --yes >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -ne 0 ] || fail "apply --run of an imported run succeeded"
[ $rc -eq 2 ] || fail "apply --run of an imported run: exit $rc, want 2"
[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "apply --run of an imported run: want one line: $(cat "$scratch/err")"
grep -q "history imported from another host.*never applies" "$scratch/err" ||
	fail "apply --run of an imported run does not say why: $(cat "$scratch/err")"
[ "$(tree_sum)" = "$before" ] || fail "apply --run of an imported run changed the tree"

# another machine's apply in a copied store
st apply --yes page-cluster=2 >/dev/null 2>"$scratch/err" || fail "apply: $(cat "$scratch/err")"
st rollback --yes >/dev/null 2>"$scratch/err" || fail "rollback: $(cat "$scratch/err")"
sqlite3 "$db" "UPDATE runs SET machine_id = 'fedcba9876543210fedcba9876543210' WHERE kind IN ('apply', 'rollback');
	UPDATE changes SET machine_id = 'fedcba9876543210fedcba9876543210' WHERE session != 'imported'" ||
	fail "cannot craft the store"
other=$(sqlite3 "$db" "SELECT s.id FROM snapshots s JOIN runs r ON r.id = s.run_id WHERE r.kind = 'apply' ORDER BY s.id LIMIT 1")
echo 1 >"$root/proc/sys/vm/page-cluster"
before=$(tree_sum)
st rollback --to "$other" --yes >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "rollback --to another machine's snapshot: exit $rc, want 2"
grep -q "taken on machine fedcba98.*not this one" "$scratch/err" || fail "no clear line: $(cat "$scratch/err")"
sqlite3 "$db" "UPDATE runs SET status = 'ok' WHERE kind = 'apply'; DELETE FROM runs WHERE kind = 'rollback'"
st rollback --yes >/dev/null 2>"$scratch/err"
[ $? -ne 0 ] || fail "a plain rollback went back to another machine's apply"
[ "$(tree_sum)" = "$before" ] || fail "rollback changed the tree for another machine's apply"

# history says whose it is
st history --all >"$scratch/hist" 2>"$scratch/err" || fail "history: $(cat "$scratch/err")"
unfold "$scratch/hist" | grep -A1 "^ *[0-9]*  .*  imported  " |
	grep -q "^       history of host node-01 (machine f1ee7000.*): its probe run 100, ok" ||
	fail "history does not show the imported run as node-01's: $(grep -A1 imported "$scratch/hist")"
st history --all --json >"$scratch/hist.json" 2>"$scratch/err" || fail "history --json: $(cat "$scratch/err")"
"$check" "$SCHEMAS/history.schema.json" "$scratch/hist.json" >"$scratch/v" 2>&1 ||
	fail "history --json does not validate: $(head -3 "$scratch/v")"
grep -q '"hostname":[[:space:]]*"node-01"' "$scratch/hist.json" || fail "history --json lacks the origin host"
done_testing
