#!/bin/sh
# status (human output) on every good fixture matches tests/expected/status-<fixture>.txt,
# with exit 0 and nothing on stderr. UPDATE_EXPECTED=1 rewrites the expected files.
# Paths under the sysroot are shown as they are (the fixture's own path):
# the expected files spell the fixtures directory @FIXTURES@.
# A malformed kernel file (the broken-* and truncated-* fixtures, and edited
# copies) makes only its own line n/a, with the reason naming the file under
# the sysroot; exit 0, one warning line on stderr per file; --json says null
# there and lists the file under "unreadable". While another swaptune command
# holds the host-change lock, a note first (JSON: host_changing).
. "$(dirname "$0")/lib.sh"

n=0
for fx in $(good_fixtures); do
	n=$((n + 1))
	"$SWAPTUNE" status --sysroot "$FIXTURES/$fx" --db "$scratch/db" \
		>"$scratch/$fx.raw" 2>"$scratch/$fx.err"
	rc=$?
	sed "s|$FIXTURES/|@FIXTURES@/|g" "$scratch/$fx.raw" >"$scratch/$fx.out"
	[ "$rc" -eq 0 ] || fail "status on $fx: exit $rc"
	[ -s "$scratch/$fx.err" ] && fail "status on $fx wrote to stderr: $(cat "$scratch/$fx.err")"
	if [ "${UPDATE_EXPECTED:-0}" = 1 ]; then
		cp "$scratch/$fx.out" "$EXPECTED/status-$fx.txt"
	else
		same "$scratch/$fx.out" "$EXPECTED/status-$fx.txt"
	fi
done
[ "$n" -ge 5 ] || fail "only $n good fixtures found under $FIXTURES"

# SWAPTUNE_SYSROOT works like --sysroot
SWAPTUNE_SYSROOT=$FIXTURES/v2-zswap-on "$SWAPTUNE" status --db "$scratch/db" >"$scratch/env.raw" 2>&1 ||
	fail "status with SWAPTUNE_SYSROOT: exit $?"
sed "s|$FIXTURES/|@FIXTURES@/|g" "$scratch/env.raw" >"$scratch/env.out"
same "$scratch/env.out" "$EXPECTED/status-v2-zswap-on.txt"

# the facts each fixture was built to show
grep -q '^Readahead         cluster: swap device /dev/vdb is rotational' "$scratch/vm-v1.out" ||
	fail "vm-v1: rotational /dev/vdb should force cluster readahead"
grep -q 'nvme0n1p3, non-rotational' "$scratch/v2-zswap-on.out" ||
	fail "v2-zswap-on: partition rotational flag not found via the parent disk"
grep -q '^zswap             not in this kernel' "$scratch/no-zswap.out" ||
	fail "no-zswap: zswap should be absent"
grep -q 'zram0, non-rotational, zram' "$scratch/zram-only.out" ||
	fail "zram-only: zram0 not recognised"
grep -q 'no debugfs counters: debugfs is not mounted' "$scratch/missing-debugfs.out" ||
	fail "missing-debugfs: the reason is not reported"
# ---- malformed kernel files: that part n/a, everything else shown ----
check=$BUILD/helpers/schema-check
# partial NAME TREE PART PATTERN: status on TREE exits 0, PART's line says
# "n/a: " and the reason (PATTERN, which names the file under TREE), one
# warning line on stderr per unreadable file, the other lines all there;
# --json validates, says null there and lists PART under "unreadable".
partial() {
	name=$1 tree=$2 part=$3 pat=$4
	"$SWAPTUNE" status --sysroot "$tree" --db "$scratch/db" >"$scratch/p-$name.out" 2>"$scratch/p-$name.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$name: status exit $rc, want 0: $(head -2 "$scratch/p-$name.err")"
	unfold "$scratch/p-$name.out" | grep -q "$pat" || fail "$name: no n/a line matching '$pat': $(cat "$scratch/p-$name.out")"
	grep -q '^swaptune: warning: .*; shown as n/a$' "$scratch/p-$name.err" ||
		fail "$name: no warning on stderr: $(cat "$scratch/p-$name.err")"
	grep -v '^swaptune: warning: ' "$scratch/p-$name.err" | grep -q . && fail "$name: stray stderr: $(cat "$scratch/p-$name.err")"
	for l in Kernel Memory Swap Readahead zswap Cgroups PSI 'CPU counters'; do
		grep -q "^$l " "$scratch/p-$name.out" || fail "$name: no '$l' line: the rest of the status is missing"
	done
	"$SWAPTUNE" status --json --sysroot "$tree" --db "$scratch/db" >"$scratch/p-$name.json" 2>/dev/null ||
		fail "$name: status --json exit $?"
	"$check" "$SCHEMAS/status.schema.json" "$scratch/p-$name.json" >"$scratch/v.out" 2>&1 ||
		fail "$name: status --json does not validate: $(head -5 "$scratch/v.out")"
	python3 - "$scratch/p-$name.json" "$part" "$tree" <<'PY' || fail "$name: --json does not list $part as unreadable"
import json, sys
d = json.load(open(sys.argv[1]))
u = [p for p in d["unreadable"] if p["part"] == sys.argv[2]]
assert len(u) == 1, d["unreadable"]
assert u[0]["file"].startswith(sys.argv[3] + "/"), u[0]
assert u[0]["reason"].startswith(sys.argv[3] + "/"), u[0]
PY
}
edited() {	# edited NAME FILE CONTENT: a vm-v1 copy with one file replaced
	t=$scratch/tree-$1
	rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
	printf '%b' "$3" >"$t/$2"
	echo "$t"
}
if command -v python3 >/dev/null 2>&1 && [ -x "$check" ]; then
	fx=$FIXTURES/broken-pagecluster
	partial pagecluster "$fx" page-cluster \
		"^  page-cluster    n/a: $fx/proc/sys/vm/page-cluster: line 1: expected a number 0\.\.31, found \"banana\"\$"
	grep -q '^  vma_ra_enabled  true$' "$scratch/p-pagecluster.out" || fail "broken-pagecluster: vma_ra_enabled line lost"
	fx=$FIXTURES/truncated-vmstat
	partial vmstat "$fx" vmstat "^  hit ratio       n/a: $fx/proc/vmstat: line 43: expected \"key value\", found \"nr_\"\$"
	grep -q '^  page-cluster    3 ' "$scratch/p-vmstat.out" || fail "truncated-vmstat: page-cluster line lost"
	t=$(edited vmra sys/kernel/mm/swap/vma_ra_enabled 'maybe\n')
	partial vmra "$t" vma_ra_enabled "^  vma_ra_enabled  n/a: $t/sys/kernel/mm/swap/vma_ra_enabled: line 1: expected true or false"
	t=$(edited kbwrap proc/meminfo 'MemTotal: 18446744073709551615 kB\n')
	partial meminfo "$t" meminfo "^Memory            n/a: $t/proc/meminfo: "
	# a symlink out of the tree is refused, never followed: n/a as well
	t=$(edited abs proc/meminfo '')
	rm -f "$t/proc/meminfo"; ln -s /proc/meminfo "$t/proc/meminfo"
	partial symlink "$t" meminfo "^Memory            n/a: $t/proc/meminfo: resolves outside the sysroot"
	t=$(edited fifo proc/vmstat '')
	rm -f "$t/proc/vmstat"; mkfifo "$t/proc/vmstat"
	partial fifo "$t" vmstat "^  hit ratio       n/a: $t/proc/vmstat: not a regular file"
	# several at once: the fixture made for it
	fx=$FIXTURES/broken-several
	partial several "$fx" swaps "^Swap              n/a: $fx/proc/swaps: line 2: negative size"
	[ "$(grep -c '^swaptune: warning: ' "$scratch/p-several.err")" -eq 4 ] ||
		fail "broken-several: want 4 warnings: $(cat "$scratch/p-several.err")"
	for pat in "^Readahead         n/a: the list of swap devices is unreadable\$" \
		"^  enabled         n/a: $fx/sys/module/zswap/parameters/enabled: line 1: expected Y or N, found \"maybe\"\$" \
		"^  pool            n/a: $fx/sys/kernel/debug/zswap/stored_pages: line 1: expected a number, found \"lots\"\$" \
		"^PSI               n/a: $fx/proc/pressure/memory: line 1: unexpected format\$" \
		'^  page-cluster    3 (8 pages per swap-in at most)$' '^Kernel            6.18.44-fc-v657 (broken-node-3)$'; do
		unfold "$scratch/p-several.out" | grep -q "$pat" || fail "broken-several: no line '$pat'"
	done
	python3 - "$scratch/p-several.json" <<'PY' || fail "broken-several: --json nulls"
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(p["part"] for p in d["unreadable"]) == ["psi", "swaps", "zswap-debugfs", "zswap.enabled"], d["unreadable"]
assert d["swaps"] is None and d["zswap"]["enabled"] is None and d["readahead"]["algorithm"] == "unknown"
assert d["readahead"]["page_cluster"] == 3 and d["memory"]["total_bytes"] > 0
PY
else
	echo "malformed-file cases skipped: need python3 and $check (make check builds it)"
fi
# while another swaptune command holds the host-change lock (an flock on its lock file, which
# names it), a note first: what status reads may be that command's temporary state; the rest as
# without it
exec 8>>"$scratch/db.probe.lock"
flock 8
printf '%d probe\n' $$ >"$scratch/db.probe.lock"
"$SWAPTUNE" status --sysroot "$FIXTURES/vm-v1" --db "$scratch/db" >"$scratch/held.raw" 2>&1 || fail "status while held: exit $?"
unfold "$scratch/held.raw" | head -1 | grep -q "^Note              another swaptune probe (pid $$) is changing this host now: settings, swap and zswap may show its temporary values" ||
	fail "status while held: no note: $(head -1 "$scratch/held.raw")"
awk 'seen || /^Kernel / { seen = 1; print }' "$scratch/held.raw" | sed "s|$FIXTURES/|@FIXTURES@/|g" >"$scratch/held.out"
same "$scratch/held.out" "$EXPECTED/status-vm-v1.txt"
if [ -x "$check" ]; then
	"$SWAPTUNE" status --json --sysroot "$FIXTURES/vm-v1" --db "$scratch/db" >"$scratch/held.json" || fail "status --json while held: exit $?"
	"$check" "$SCHEMAS/status.schema.json" "$scratch/held.json" >"$scratch/v.out" 2>&1 ||
		fail "status --json while held does not validate: $(head -5 "$scratch/v.out")"
	grep -q '"host_changing"' "$scratch/held.json" || fail "status --json while held: no host_changing"
fi
exec 8>&-
rm -f "$scratch/db.probe.lock"
done_testing
