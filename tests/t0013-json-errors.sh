#!/bin/sh
# With --json a failing command prints an error document on stdout
# (share/schema/error.schema.json) and still one line on stderr, with the
# process's exit status; control bytes from the input are escaped on stderr.
. "$(dirname "$0")/lib.sh"
check=$BUILD/helpers/schema-check
[ -x "$check" ] || { echo "FAIL: $check not built (make check builds it)"; exit 1; }

expect_error() {	# expect_error EXIT COMMAND ARGS...: a failure with a valid error document
	want=$1; shift
	"$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "$*: exit $rc, want $want"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "$*: want one line on stderr, got: $(cat "$scratch/err")"
	"$check" "$SCHEMAS/error.schema.json" "$scratch/out" >"$scratch/v" 2>&1 ||
		{ fail "$*: stdout is not an error document:"; cat "$scratch/out" "$scratch/v"; }
	grep -q "\"exit\":[[:space:]]*$want" "$scratch/out" || fail "$*: document's exit is not $want"
}
expect_error 2 status --json --sysroot "$scratch/none" --db "$scratch/db"
expect_error 2 --json nosuchcommand
grep -q '"command":[[:space:]]*null' "$scratch/out" || fail "unknown command: command should be null"
# (status and doctor show a malformed file as n/a; probe refuses it)
expect_error 2 probe --dry-run --json --sysroot "$FIXTURES/broken-pagecluster" --db "$scratch/db"
grep -q '"command":[[:space:]]*"probe"' "$scratch/out" || fail "probe failure: command should be probe"
expect_error 2 probe --json --dry-run --working-set nan --sysroot "$FIXTURES/vm-v1" --db "$scratch/db"

# without --json, nothing on stdout
"$SWAPTUNE" status --sysroot "$scratch/none" --db "$scratch/db" >"$scratch/out" 2>/dev/null
[ -s "$scratch/out" ] && fail "an error without --json printed on stdout"

# terminal escapes in what is echoed back are shown as \xNN
esc=$(printf 'x\033[2Jy')
"$SWAPTUNE" status --sysroot "$scratch/$esc" --db "$scratch/db" 2>"$scratch/err" >/dev/null
grep -q "$(printf '\033')" "$scratch/err" && fail "an escape byte reached stderr raw"
grep -q 'x\\x1b\[2Jy' "$scratch/err" || fail "escape not shown as \\x1b: $(cat "$scratch/err")"
done_testing
