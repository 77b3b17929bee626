#!/bin/sh
# verify without a live probe: --progress takes auto|tty|plain|none like
# probe's (anything else is a usage error, exit 2, naming the choices), and
# --help states the answers the exit status carries (0 holds, 10 no longer
# holds, 11 inconclusive) apart from the errors; --arm needs --run.
. "$(dirname "$0")/lib.sh"

db=$scratch/db
"$SWAPTUNE" --db "$db" verify --progress sometimes >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "verify --progress sometimes: exit $rc, want 2"
grep -q -- '--progress is auto, tty, plain or none' "$scratch/err" ||
	fail "verify --progress sometimes: $(cat "$scratch/err")"
[ -e "$db" ] && fail "a usage error created the store"
for m in auto tty plain none; do
	# a valid mode passes parsing: the failure is the next one (nothing to verify)
	"$SWAPTUNE" --db "$db" verify --yes --progress $m >/dev/null 2>"$scratch/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'nothing to verify' "$scratch/err" ||
		fail "verify --progress $m: exit $rc: $(cat "$scratch/err")"
done
"$SWAPTUNE" --db "$db" verify --arm pc0 >/dev/null 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] && grep -q -- '--arm needs --run ID' "$scratch/err" || fail "verify --arm without --run: exit $rc: $(cat "$scratch/err")"
"$SWAPTUNE" verify --help >"$scratch/help" || fail "verify --help failed"
grep -q -- '--progress MODE' "$scratch/help" || fail "--help lacks --progress"
grep -q '^Exit status: 0 the benefit holds, 10 it no longer holds, 11 inconclusive' "$scratch/help" ||
	fail "--help lacks the answers: $(tail -1 "$scratch/help")"
done_testing
