#!/bin/sh
# report --change picks its evidence from the apply's own host and from the
# time its setting was in effect (issue 34, finding 1): on the report fixture
# store, another host's recording that ended later is never "before", a
# recording made after a rollback undid the apply is never "after"; with no
# recording that fits it refuses (exit 2, one line naming what is missing
# and the command that records it); it leads with the answer (PSI memory);
# a rolled-back apply says so instead of offering a rollback, and history
# marks it "rolled back".
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
base=$scratch/base.db
sh "$FIXTURES/report/make-store.sh" "$base" || { echo "FAIL: make-store.sh"; exit 1; }
# another host's old one-tick recording (run 10), a copied store's
sqlite3 "$base" <<'SQL' || { echo "FAIL: sqlite3"; exit 1; }
INSERT INTO hosts (id, machine_id, hostname, kernel) VALUES (2, 'fedcba9876543210', 'web-03.example.net', '6.1.0');
INSERT INTO runs (id, host_id, kind, started_at, ended_at, status, params) VALUES
 (10, 2, 'sample', '2026-11-30T10:11:00.000Z', '2026-11-30T10:12:00.000Z', 'ok', '{"interval_s":60}');
INSERT INTO samples (run_id, seq, t_ns, data) VALUES (10, 1, 1000000000,
 '{"schema":"swaptune.sample/1","seq":1,"vmstat":{"zswpin_pages_per_s":5},"psi":{"some_pct":30}}');
SQL
store() {	# store NAME SQL: a copy of the base store with SQL applied
	cp "$base" "$scratch/$1.db"
	printf '%s\n' "$2" | sqlite3 "$scratch/$1.db" || fail "sqlite3 $1"
}
rep() {		# rep NAME ARGS...: report on store NAME, stdout to NAME.out, stderr to NAME.err
	n=$1; shift
	"$SWAPTUNE" --db "$scratch/$n.db" --sysroot "$FIXTURES/vm-v1" report "$@" \
		>"$scratch/$n.out" 2>"$scratch/$n.err"
}
one_line() {	# one_line NAME: stderr is one line of at most 100 columns
	[ "$(wc -l <"$scratch/$1.err")" -eq 1 ] || fail "$1: stderr is not one line: $(cat "$scratch/$1.err")"
	awk 'length > 100 { exit 1 }' "$scratch/$1.err" || fail "$1: stderr wider than 100 columns"
}
rollback_at() {	# rollback_at ID TIME: an ok rollback run to snapshot 1 (apply run 3's "before apply")
	echo "INSERT INTO runs (id, host_id, kind, started_at, ended_at, status, params) VALUES
	 ($1, 1, 'rollback', '$2', '$2', 'ok', '{\"to\":1,\"to_run\":3}');"
}

# 1. the reproduction: this host's "before" gone, a rollback at 10:17 before recording 4 (10:20):
#    neither the other host's recording nor the one after the rollback is evidence
store repro "DELETE FROM samples WHERE run_id = 2; DELETE FROM runs WHERE id = 2;
$(rollback_at 11 2026-11-30T10:17:00.000Z)"
rep repro --change 3; rc=$?
[ "$rc" -eq 2 ] || fail "repro: exit $rc, want 2 (no recording fits): $(head -3 "$scratch/repro.out")"
grep -q 'recording 10\|web-03' "$scratch/repro.out" && fail "repro: another host's recording used"
grep -q '^swaptune: no recording before rollback run 11 undid apply run 3: re-apply, swaptune sample --record$' \
	"$scratch/repro.err" || fail "repro: message: $(cat "$scratch/repro.err")"
one_line repro

# 2. rolled back after recording 4: before 2 (not the other host's newer 10), after 4;
#    the answer leads; no rollback offered for what is already undone
store undone "$(rollback_at 11 2026-11-30T10:40:00.000Z)"
rep undone --change 3 || fail "undone: exit $?: $(cat "$scratch/undone.err")"
grep -q '^  before: recording 2, ' "$scratch/undone.out" || fail "undone: before is not recording 2"
grep -q '^  after: recording 4, ' "$scratch/undone.out" || fail "undone: after is not recording 4"
sed -n 5p "$scratch/undone.out" | grep -q '^  It helped: memory pressure fell beyond noise, PSI memory some -14\.6 % ' ||
	fail "undone: does not lead with the answer: $(sed -n 5p "$scratch/undone.out")"
grep -q 'since undone: rollback run 11, 2026-11-30T10:40:00Z' "$scratch/undone.out" || fail "undone: not said"
grep -q 'rollback --to' "$scratch/undone.out" && fail "undone: offers a rollback of a change already undone"
# history marks it, as it marks an apply its timer reverted
"$SWAPTUNE" --db "$scratch/undone.db" --sysroot "$FIXTURES/vm-v1" history >"$scratch/h.out" || fail "history: exit $?"
grep -A1 '^    3  .*  apply  *rolled back$' "$scratch/h.out" | grep -q '; undone by rollback run 11$' ||
	fail "history does not mark apply run 3 rolled back: $(grep -A1 '^    3 ' "$scratch/h.out")"
# the run's detail has a line of its own, whole in 100 columns (as a fifth column from column 58 it folded)
grep -qx '       page-cluster=0 (probe run 1, arm pc0); undone by rollback run 11' "$scratch/h.out" ||
	fail "history: apply run 3's detail is not one whole line: $(grep -A2 '^    3 ' "$scratch/h.out")"

# 3. a later apply with recording 4 inside its time is not "after" of apply run 3
store followed "INSERT INTO runs (id, host_id, kind, started_at, ended_at, status, params) VALUES
 (12, 1, 'apply', '2026-11-30T10:25:00.000Z', '2026-11-30T10:25:01.000Z', 'ok', '{\"settings\":{\"page-cluster\":\"1\"}}');"
rep followed --change 3; rc=$?
[ "$rc" -eq 2 ] || fail "followed: exit $rc, want 2"
grep -q '^swaptune: no recording before apply run 12 followed apply run 3: ' "$scratch/followed.err" ||
	fail "followed: message: $(cat "$scratch/followed.err")"
one_line followed

# 4. nothing before on this host (only the other host's): refused, naming the missing "before"
store nobefore "DELETE FROM samples WHERE run_id = 2; DELETE FROM runs WHERE id = 2;"
rep nobefore --change 3; rc=$?
[ "$rc" -eq 2 ] || fail "nobefore: exit $rc, want 2"
grep -q '^swaptune: no recording before apply run 3 on this host: .*swaptune sample --record' \
	"$scratch/nobefore.err" || fail "nobefore: message: $(cat "$scratch/nobefore.err")"
one_line nobefore
rep nobefore --change 3 --json; rc=$?
[ "$rc" -eq 2 ] || fail "nobefore --json: exit $rc, want 2"

done_testing
