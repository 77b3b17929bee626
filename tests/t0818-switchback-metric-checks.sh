#!/bin/sh
# switchback's metric options with crafted values (issue 33, finding 9):
# --dry-run validates as a real run would (exit 2, one line): a port
# beyond 65535 (once wrapped to 34463), a host that is not this one
# (refused before any name lookup), a metric command that is not an
# executable, a metric file that is missing; and a hexadecimal
# percentage (finding 10).
. "$(dirname "$0")/lib.sh"
root=$FIXTURES/v2-zswap-on
sb() { "$SWAPTUNE" --sysroot "$root" --db "$scratch/db" switchback --dry-run --higher-better "$@"; }
expect() {
	want=$1 pat=$2
	shift 2
	sb "$@" >"$scratch/out" 2>"$scratch/err"
	got=$?
	[ "$got" = "$want" ] || fail "switchback --dry-run $*: exit $got, want $want ($(cat "$scratch/err"))"
	grep -q -- "$pat" "$scratch/err" || fail "switchback --dry-run $*: stderr lacks /$pat/: $(cat "$scratch/err")"
}
expect 2 'port 99999 is not in 1-65535' --metric-prom http://localhost:99999/metrics tps
expect 2 'port 0 is not in 1-65535' --metric-prom http://127.0.0.1:0/metrics tps
expect 2 'is not this host' --metric-prom http://example.invalid:9187/metrics tps
expect 2 'is not this host' --metric-prom http://192.0.2.1:9187/metrics tps
expect 2 'is not an executable' --metric-cmd "/nonexistent/bench --json"
expect 2 'is not an executable' --metric-cmd "no-such-program-swaptune"
expect 2 'cannot read' --metric-file "$scratch/missing"
# finding 10: a percentage is decimal (0x10 was 16)
expect 2 'min-effect' --metric-cmd /bin/true --min-effect 0x10
# still accepted
echo 5 >"$scratch/m"
sb --metric-file "$scratch/m" >/dev/null 2>"$scratch/err" || fail "--metric-file FILE: exit $? ($(cat "$scratch/err"))"
sb --metric-cmd "/bin/true" >/dev/null 2>"$scratch/err" || fail "--metric-cmd /bin/true: exit $? ($(cat "$scratch/err"))"
sb --metric-prom http://127.0.0.1:9187/metrics tps >/dev/null 2>"$scratch/err" ||
	fail "--metric-prom loopback: exit $? ($(cat "$scratch/err"))"
done_testing
