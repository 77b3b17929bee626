#!/bin/sh
# A big store does not make every command slow (issue 19, finding 9: 200 k
# pending journal rows made `status` take 119 s and 1.9 GB; 300 k runs made
# `history --all` take 48 s). Stores made by the binary under test, filled
# with the sqlite3 tool, against a sysroot copy:
#  - 200 000 pending rows of another machine: repair only counts them
#    (one line), loads none, and changes none;
#  - 200 000 pending rows of this machine left by a dead process: status
#    counts them in one line and changes none; repair repairs a bounded
#    number per command (JOURNAL_REPAIR_BUDGET, 1000) and says how many are
#    left; the next command goes on;
#  - 300 000 runs with snapshots, journal rows and ticks: history, history
#    --all and history --all --limit 1000.
# Each must finish within LIMIT_S (10 s: generous for a loaded 2-core
# machine; `make bench` measures the real figures, ~0.1-0.6 s) and 200 MiB.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time for the peak memory"
LIMIT_S=${LIMIT_S:-10}
LIMIT_KB=204800
mid=0123456789abcdef0123456789abcdef
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
mkdir -p "$root/etc"
echo "$mid" >"$root/etc/machine-id"
key=$(cd "$root" && pwd -P)
mkstore() { new_store "$1" || fail "cannot create $1"; }
# timed WHAT ARGS...: run with a deadline, check time and peak memory
timed() {
	what=$1; shift
	/usr/bin/time -f '%e %M' -o "$scratch/time" timeout $((LIMIT_S * 3)) "$SWAPTUNE" "$@" \
		>"$scratch/out" 2>"$scratch/err"
	rc=$?
	# the last line: a failed command adds "Command exited with ..." before it
	read -r secs kb <<EOF
$(tail -n 1 "$scratch/time" 2>/dev/null)
EOF
	case $secs in [0-9]*) ;; *) secs=999; kb=0 ;; esac
	echo "$what: exit $rc, ${secs}s, $((kb / 1024)) MiB"
	[ $rc -eq 0 ] || fail "$what: exit $rc: $(tail -2 "$scratch/err")"
	awk -v s="$secs" -v l="$LIMIT_S" 'BEGIN { exit !(s + 0 < l + 0) }' || fail "$what took ${secs}s (limit ${LIMIT_S}s)"
	[ "${kb:-0}" -lt $LIMIT_KB ] || fail "$what used $((kb / 1024)) MiB (limit $((LIMIT_KB / 1024)) MiB)"
}
pending() {	# pending DB MACHINE
	sqlite3 "$1" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
		INSERT INTO changes (session, pid, pid_start, sysroot, kind, name, old_value, new_value,
		temporary, state, machine_id) SELECT 'gone-' || (i / 4), 999999999, 1, '$key', 'setting',
		'page-cluster', '3', '0', 1, 'pending', '$2' FROM n" || fail "cannot fill $1"
}

other=$scratch/other.db
mkstore "$other"
pending "$other" fedcba9876543210fedcba9876543210
timed "repair, 200k rows of another machine" --db "$other" --sysroot "$root" repair
grep -q 'holds 200000 pending changes of machine fedcba98' "$scratch/err" ||
	fail "no line about the other machine's rows: $(cat "$scratch/err")"
[ "$(sqlite3 "$other" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 200000 ] ||
	fail "another machine's rows changed state"

mine=$scratch/mine.db
mkstore "$mine"
pending "$mine" "$mid"
timed "status, 200k rows of this machine" --db "$mine" --sysroot "$root" status
grep -q '^swaptune: 200000 changes left by a swaptune that did not finish' "$scratch/err" ||
	fail "status does not say what is left: $(cat "$scratch/err")"
[ "$(sqlite3 "$mine" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 200000 ] ||
	fail "status repaired rows"
timed "repair, 200k rows of this machine" --db "$mine" --sysroot "$root" repair
left=$(sqlite3 "$mine" "SELECT count(*) FROM changes WHERE state = 'pending'")
[ "$left" = 199000 ] || fail "one command repaired $((200000 - left)) rows, want 1000"
grep -q 'holds 199000 more pending changes than one command repairs (1000): .swaptune repair. goes on' \
	"$scratch/err" || fail "no line saying rows are left: $(tail -2 "$scratch/err")"
timed "repair again" --db "$mine" --sysroot "$root" repair
[ "$(sqlite3 "$mine" "SELECT count(*) FROM changes WHERE state = 'pending'")" = 198000 ] ||
	fail "the next command did not go on"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 3 ] || fail "the tree's page-cluster changed"

hist=$scratch/hist.db
mkstore "$hist"
sqlite3 "$hist" "BEGIN;
	WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
	INSERT INTO runs (kind, status, started_at, ended_at, params, machine_id)
	SELECT CASE i % 3 WHEN 0 THEN 'apply' WHEN 1 THEN 'sample' ELSE 'probe' END, 'ok',
	'2026-11-01T00:00:00.000Z', '2026-11-01T00:01:00.000Z',
	CASE i % 3 WHEN 0 THEN '{\"settings\":{\"page-cluster\":\"0\"}}' ELSE '{}' END, '$mid' FROM n;
	INSERT INTO snapshots (run_id, reason, settings) SELECT id, 'before apply', '{\"page-cluster\":\"3\"}'
	FROM runs WHERE kind = 'apply';
	INSERT INTO snapshots (run_id, reason, settings) SELECT id, 'after apply', '{\"page-cluster\":\"0\"}'
	FROM runs WHERE kind = 'apply';
	INSERT INTO changes (session, run_id, pid, pid_start, sysroot, kind, name, old_value, new_value,
	temporary, state, machine_id) SELECT 's-' || id, id, 1, 1, '$key', 'setting', 'page-cluster', '3',
	'0', 0, 'committed', '$mid' FROM runs WHERE kind = 'apply';
	INSERT INTO samples (run_id, seq, t_ns, data) SELECT id, 1, 0, '{}' FROM runs WHERE kind = 'sample';
	INSERT INTO samples (run_id, seq, t_ns, data) SELECT id, 2, 1000000000, '{}' FROM runs WHERE kind = 'sample';
	COMMIT;" || fail "cannot fill $hist"
timed "history, 300k runs" --db "$hist" --sysroot "$root" history
timed "history --all, 300k runs" --db "$hist" --sysroot "$root" history --all
timed "history --all --limit 1000, 300k runs" --db "$hist" --sysroot "$root" history --all --limit 1000
grep -c 'snapshot' "$scratch/out" | grep -q '^[1-9]' || fail "history --all --limit 1000 shows no snapshot"
done_testing
