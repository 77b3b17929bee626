#!/bin/sh
# Text from outside is escaped in human-readable output: a hostname holding
# terminal escapes (ESC ]0; ... BEL, ESC [2J) and a newline, a /proc/swaps
# path holding \012 (the kernel's octal escape for a newline) and a raw ESC,
# and store rows (a snapshot reason, a change name) holding the same, come out
# of status, doctor and history as \xNN: no raw control byte but the line
# ends, and no line that the data started. JSON keeps the raw text (cJSON
# escapes it), and parses back to the same value.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "needs the sqlite3 command-line tool"
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
printf 'evil\033]0;pwned\007\033[2J\nINJECTED hostname line\n' >"$root/proc/sys/kernel/hostname"
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap\\012INJECTED\033[31mfile\tfile\t\t1048576\t\t0\t\t-2\n' >"$root/proc/swaps"
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" --sysroot "$root" "$@"; }
ctl() {	# ctl FILE WHAT: no control byte but newline and tab, no injected line start
	LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" && fail "$2: raw control bytes: $(od -c "$1" | grep -m3 '\\033\|\\a\|\\r')"
	grep -q '^INJECTED' "$1" && fail "$2: the data started a line of its own"
}
st status >"$scratch/status" 2>"$scratch/err" || fail "status: exit $?: $(cat "$scratch/err")"
ctl "$scratch/status" status
grep -q 'evil\\x1b\]0;pwned\\x07\\x1b\[2J\\x0aINJECTED hostname line' "$scratch/status" ||
	fail "status: hostname not shown escaped: $(grep Kernel "$scratch/status")"
grep -q '/swap\\x0aINJECTED\\x1b\[31mfile' "$scratch/status" || fail "status: swap path not shown escaped: $(grep swap "$scratch/status")"
st status --json >"$scratch/status.json" || fail "status --json: exit $?"
ctl "$scratch/status.json" "status --json"
st doctor >"$scratch/doctor" 2>"$scratch/err"
[ $? -le 1 ] || fail "doctor: $(cat "$scratch/err")"
ctl "$scratch/doctor" doctor

st apply --yes page-cluster=0 >/dev/null 2>"$scratch/err" || fail "apply: $(cat "$scratch/err")"
bad=$(printf 'x\033[2J\nINJECTED snapshot\r\033]0;t\007' | od -An -v -tx1 | tr -d ' \n')
sqlite3 "$db" "UPDATE snapshots SET reason = CAST(X'$bad' AS TEXT);
	UPDATE changes SET new_value = CAST(X'$bad' AS TEXT);
	UPDATE runs SET status = CAST(X'$bad' AS TEXT) WHERE kind = 'apply';" || fail "cannot craft the store"
st history >"$scratch/history" 2>"$scratch/err" || fail "history: exit $?: $(cat "$scratch/err")"
ctl "$scratch/history" history
grep -q 'x\\x1b\[2J\\x0aINJECTED snapshot\\x0d' "$scratch/history" || fail "history: reason not shown escaped: $(cat "$scratch/history")"
st history --json >"$scratch/history.json" || fail "history --json: exit $?"
ctl "$scratch/history.json" "history --json"
done_testing
