#!/bin/sh
# The bad-input matrix: every case is one bad command line, sysroot tree or
# store. Each must print exactly one line on stderr with control bytes
# escaped, exit with the documented status (2 bad input, 3 not permitted,
# 1 runtime failure), print nothing on stdout (with --json: only the error
# document), leave no store behind and change no file of the sysroot.
# A tree with one bad kernel file is bad input for the commands that act on
# it; status and doctor show that part as n/a and go on (partial: warnings
# only, escaped; the tree unchanged).
# Issue 19's finding 11 added what was accepted before: hex, exponent and
# signed durations, a 1-byte swap, a scratch directory that does not
# exist, an empty workload, a setting given twice, import of a FIFO (it
# hung), a device, a directory or JSON with trailing data, export --since
# of a time that does not exist, report --before and --after naming the
# same run, and a store whose snapshots table was dropped (damaged, exit 1,
# never read as empty).
# Cases that need the live host (none here) belong in the live tests.
. "$(dirname "$0")/lib.sh"
check=$BUILD/helpers/schema-check
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
tree_sum() {
	(cd "$1" && find . \( -type f -o -type l \) -print | LC_ALL=C sort |
		while read -r f; do
			if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(cksum <"$f")"; fi
		done) | cksum
}
before=$(tree_sum "$root")
n=0
# bad WANT ARGS...: one case against the vm-v1 copy and a fresh store path
bad() {
	want=$1; shift
	n=$((n + 1))
	db=$scratch/case$n.db
	timeout 20 "$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err" </dev/null
	rc=$?
	[ $rc -eq 124 ] && { fail "case $n ($*): hung (killed after 20 s)"; return; }
	[ $rc -eq "$want" ] || fail "case $n ($*): exit $rc, want $want: $(head -2 "$scratch/err")"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "case $n ($*): want one stderr line, got $(wc -l <"$scratch/err"): $(head -3 "$scratch/err")"
	LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$scratch/err" && fail "case $n ($*): raw control bytes on stderr"
	case " $* " in
	*" --json "*) "$check" "$SCHEMAS/error.schema.json" "$scratch/out" >/dev/null 2>&1 ||
			fail "case $n ($*): stdout is not an error document" ;;
	*) [ -s "$scratch/out" ] && fail "case $n ($*): wrote to stdout: $(head -2 "$scratch/out")" ;;
	esac
	for f in "$db" "$db-wal" "$db-shm"; do
		[ -e "$f" ] && { fail "case $n ($*): left a store $f"; rm -f "$f"; }
	done
}
# partial ARGS...: status or doctor on a tree with one bad kernel file: that
# part is n/a (tests/t0002, t0004) and the command goes on: exit 0 (doctor:
# 0 or 3), every stderr line an escaped warning naming the file, a report on
# stdout, the tree unchanged (checked at the end)
partial() {
	n=$((n + 1))
	timeout 20 "$SWAPTUNE" "$@" >"$scratch/out" 2>"$scratch/err" </dev/null
	rc=$?
	[ $rc -eq 124 ] && { fail "case $n ($*): hung (killed after 20 s)"; return; }
	case "$1:$rc" in status:0|doctor:0|doctor:3) ;; *) fail "case $n ($*): exit $rc: $(head -2 "$scratch/err")" ;; esac
	[ "$(grep -cv '^swaptune: warning: .*; shown as n/a$' "$scratch/err")" -eq 0 ] && [ -s "$scratch/err" ] ||
		fail "case $n ($*): want warnings only on stderr, got: $(head -3 "$scratch/err")"
	LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$scratch/err" && fail "case $n ($*): raw control bytes on stderr"
	[ -s "$scratch/out" ] || fail "case $n ($*): printed nothing"
}
S="--sysroot $root"
DB() { echo "--db $scratch/case$((n + 1)).db"; }

# ---- the command line ----
bad 2 frobnicate $(DB) $S
bad 2 status --frob $(DB) $S
bad 2 status extra $(DB) $S
bad 2 status --db
bad 2 status --sysroot "" $(DB)
bad 2 status --db --json $S
bad 2 --json status --frob $(DB) $S
for v in nan inf 1e25 18446744073575333888 -1 "" 12Q " 256M" 0x10M; do
	bad 2 probe --dry-run --working-set "$v" $(DB) $S
done
bad 2 probe --dry-run --memcg-limit 0 $(DB) $S
for v in 0 -1 99999999999999999999 abc "" 3x; do
	bad 2 probe --dry-run --reps "$v" $(DB) $S
done
bad 2 probe --dry-run --seed abc $(DB) $S
bad 2 probe --dry-run --seed -1 $(DB) $S
bad 2 probe --dry-run --arms pc9 $(DB) $S
bad 2 probe --dry-run --arms "" $(DB) $S
bad 2 probe --dry-run --arm "x:page-cluster=banana" $(DB) $S
bad 2 probe --dry-run --arm "x:../../etc/passwd=1" $(DB) $S
bad 2 probe --dry-run --arm "x:page-cluster=1;rm -rf /" $(DB) $S
bad 2 probe --dry-run --arm "$(printf 'x\033[2J:page-cluster=1')" $(DB) $S
bad 2 probe --dry-run --workload nope $(DB) $S
bad 2 probe --dry-run --workload "$(printf 'a\nb')" $(DB) $S
for v in nan 1e300 -2s "" 5parsecs; do
	bad 2 probe --dry-run --duration "$v" $(DB) $S
done
bad 2 probe --dry-run --zipf-theta nan $(DB) $S
bad 2 probe --dry-run --zipf-theta "" $(DB) $S
bad 2 probe --dry-run --limit-mode med $(DB) $S
bad 2 probe --dry-run --progress bogus $(DB) $S
bad 2 probe --dry-run --bypass-mode x $(DB) $S
bad 2 probe --dry-run --ops 0 $(DB) $S
for v in abc 0 -3 99999999999999999999 ""; do
	bad 2 recommend --run "$v" $(DB) $S
done
for v in "" nan -5 1e999 inf 5%; do
	bad 2 recommend --min-effect "$v" $(DB) $S
done
bad 2 recommend --state --run 1 $(DB) $S
bad 2 recommend --exit-code $(DB) $S
for v in page-cluster=banana page-cluster=99 page-cluster=-1 nosuch=1 page-cluster \
	"page-cluster=$(printf '0\033[2J')" "zswap.compressor=../../x" vma_ra_enabled=maybe zswap.enabled=maybe; do
	bad 2 apply --dry-run "$v" $(DB) $S
done
bad 2 apply --dry-run --from "$scratch/nonexistent" $(DB) $S
bad 2 apply --dry-run --from /etc/hostname $(DB) $S
for v in nan 0 -1s "" 1e300; do
	bad 2 apply --dry-run --confirm-within "$v" page-cluster=0 $(DB) $S
done
bad 2 apply --dry-run --run abc $(DB) $S
bad 2 apply --dry-run --run 5 $(DB) $S
bad 2 rollback --to abc $(DB) $S
for v in -1 abc 99999999999999999999 ""; do
	bad 2 history --limit "$v" $(DB) $S
done
bad 2 verify --reps 0 $(DB) $S
bad 2 verify --min-effect nan $(DB) $S
for v in 0 nan "" -1s; do
	bad 2 sample --interval "$v" --count 1 $(DB) $S
done
for v in -1 abc ""; do
	bad 2 sample --count "$v" $(DB) $S
done
bad 2 sample --duration nan $(DB) $S
bad 2 sample --pid abc --count 1 $(DB) $S
bad 2 sample --json --prom --count 1 $(DB) $S
bad 2 sample --cgroup ../../etc --count 1 $(DB) $S
bad 2 tui --interval nan $(DB) $S
bad 2 tui --frames abc $(DB) $S
# issue 19, finding 11: accepted before, each a usage error now
for v in 0x10s 0x10 1e3ms +1s .5s; do
	bad 2 sample --interval "$v" --count 1 $(DB) $S
done
bad 2 probe --dry-run --working-set 0x10M $(DB) $S
bad 2 probe --dry-run --swap-size 1 --scratch-dir /nonexistent $(DB) $S
bad 2 probe --dry-run --swap-size 1 $(DB) $S
bad 2 probe --dry-run --scratch-dir /nonexistent $(DB) $S
bad 2 probe --dry-run --scratch-dir /etc/hostname $(DB) $S
bad 2 fleet-advise --workload "" $(DB) $S
bad 2 apply --dry-run page-cluster=1 page-cluster=2 $(DB) $S
bad 2 apply --dry-run page-cluster=1 vm.page-cluster=1 $(DB) $S
# import: a FIFO (opening it blocked for ever), a device, a directory,
# trailing data after the JSON document
mkfifo "$scratch/fifo.json"
bad 2 import "$scratch/fifo.json" $(DB) $S
# apply --from names a path on the invoking host: without --sysroot (this
# only reads the live host's settings: --dry-run)
bad 2 apply --dry-run --from "$scratch/fifo.json" $(DB)
bad 2 import /dev/null $(DB) $S
bad 2 import "$scratch" $(DB) $S
{ cat "$FIXTURES/fleet/host-01.json"; echo '{"schema": "swaptune.export/1"}'; } >"$scratch/two.json"
bad 2 import "$scratch/two.json" $(DB) $S
{ cat "$FIXTURES/fleet/host-01.json"; printf 'garbage'; } >"$scratch/tail.json"
bad 2 import "$scratch/tail.json" $(DB) $S
# export --since: a time that does not exist (the tree needs a machine id to export)
mid=$scratch/mid
mkdir -p "$mid"; cp -a "$FIXTURES/vm-v1/." "$mid/"; mkdir -p "$mid/etc"
echo 0123456789abcdef0123456789abcdef >"$mid/etc/machine-id"
for v in 2026-13-45 2026-02-30 2026-11-30T24:00 2026-11-30T04:60:00Z 2025-02-29; do
	bad 2 export --since "$v" $(DB) --sysroot "$mid"
done
# issue 33 (t0022 found them): a refusal once the command runs leaves no new
# store either: fleet-advise --from a store too new (its own --db was made
# first), export onto a FIFO nobody reads, apply --from a path too long; and
# fleet-advise --workload takes probe's workload names only (an ESC, a newline)
sqlite3 "$scratch/new.db" "CREATE TABLE t(x); PRAGMA user_version=9999" || fail "cannot craft a store"
bad 3 fleet-advise --from "$scratch/new.db" $(DB) $S
mkfifo "$scratch/out.fifo"
bad 1 export --output "$scratch/out.fifo" $(DB) --sysroot "$mid"
bad 1 apply --dry-run --from "$(printf '%05000d' 7)" $(DB) $S
bad 2 fleet-advise --workload "$(printf 'a\033[2Jb')" $(DB) $S
bad 2 fleet-advise --workload "$(printf 'a\nb')" $(DB) $S
bad 2 fleet-advise --workload no-such-workload $(DB) $S

# ---- sysroot trees ----
mk_tree() {	# mk_tree NAME FILE CONTENT: a vm-v1 copy with one file replaced
	t=$scratch/tree-$1
	rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
	printf '%b' "$3" >"$t/$2"
	echo "$t"
}
partial status $(DB) --sysroot "$FIXTURES/broken-pagecluster"
partial status $(DB) --sysroot "$FIXTURES/truncated-vmstat"
partial status $(DB) --sysroot "$(mk_tree big proc/vmstat 'nr_free_pages 99999999999999999999999\n')"
partial status $(DB) --sysroot "$(mk_tree neg proc/vmstat 'nr_free_pages -5\n')"
partial status $(DB) --sysroot "$(mk_tree kbwrap proc/meminfo 'MemTotal: 18446744073709551615 kB\n')"
partial status $(DB) --sysroot "$(mk_tree vmra sys/kernel/mm/swap/vma_ra_enabled 'maybe\n')"
partial status $(DB) --sysroot "$(mk_tree zsw sys/module/zswap/parameters/enabled 'maybe\n')"
partial status $(DB) --sysroot "$(mk_tree pc proc/sys/vm/page-cluster '99999999999999999999\n')"
t=$scratch/tree-fifo; rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
rm -f "$t/proc/vmstat"; mkfifo "$t/proc/vmstat"
partial status $(DB) --sysroot "$t"
partial doctor $(DB) --sysroot "$t"
# the sampler shows a missing counter as a gap (documented) and the dry runs
# need no vmstat: these may succeed, but no command may block on the FIFO
for c in "sample --count 1" "probe --dry-run" "apply --dry-run page-cluster=0"; do
	timeout 20 "$SWAPTUNE" $c --db "$scratch/fifo.db" --sysroot "$t" >/dev/null 2>&1 </dev/null
	[ $? -eq 124 ] && fail "$c blocked on a FIFO in the sysroot"
done
partial status $(DB) --sysroot "$(mk_tree psineg proc/pressure/memory 'some avg10=-1.00 avg60=0.00 avg300=0.00 total=-5\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n')"
partial status $(DB) --sysroot "$(mk_tree psibig proc/pressure/memory 'some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999999\n')"
partial status $(DB) --sysroot "$(mk_tree swapbig proc/swaps 'Filename\tType\tSize\tUsed\tPriority\n/dev/vdb partition 18446744073709551615 0 -2\n')"
partial status $(DB) --sysroot "$(mk_tree swapneg proc/swaps 'Filename\tType\tSize\tUsed\tPriority\n/dev/vdb partition -8 0 -2\n')"
partial status $(DB) --sysroot "$(mk_tree mibig proc/meminfo 'MemTotal: 99999999999999999999999 kB\n')"
# a directory where a kernel file is expected
t=$scratch/tree-dir; rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
rm -f "$t/proc/meminfo"; mkdir "$t/proc/meminfo"
partial status $(DB) --sysroot "$t"
# a symlink out of the tree (absolute, and relative through ..)
t=$scratch/tree-abs; rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
rm -f "$t/proc/vmstat"; ln -s /proc/vmstat "$t/proc/vmstat"
partial status $(DB) --sysroot "$t"
t=$scratch/tree-rel; rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
cp "$t/proc/meminfo" "$scratch/outside-meminfo"
rm -f "$t/proc/meminfo"; ln -s ../../outside-meminfo "$t/proc/meminfo"
partial status $(DB) --sysroot "$t"
# a device node where a kernel file is expected (root only: mknod)
if [ "$(id -u)" -eq 0 ]; then
	t=$scratch/tree-dev; rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
	rm -f "$t/proc/vmstat"; mknod "$t/proc/vmstat" c 1 3
	partial status $(DB) --sysroot "$t"
fi
: >"$scratch/afile"
bad 2 status $(DB) --sysroot "$scratch/afile"
mkdir -p "$scratch/emptydir"
bad 2 status $(DB) --sysroot "$scratch/emptydir"

# ---- stores ----
head -c 8192 /dev/urandom >"$scratch/corrupt.db"
cp "$scratch/corrupt.db" "$scratch/corrupt.orig"
"$SWAPTUNE" history --db "$scratch/corrupt.db" $S >"$scratch/out" 2>"$scratch/err"; rc=$?
[ $rc -eq 1 ] || fail "a corrupt store: exit $rc, want 1: $(cat "$scratch/err")"
[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "a corrupt store: want one stderr line"
cmp -s "$scratch/corrupt.db" "$scratch/corrupt.orig" || fail "a corrupt store was changed"
mkdir -p "$scratch/dir.db"
"$SWAPTUNE" history --db "$scratch/dir.db" $S >/dev/null 2>"$scratch/err"; rc=$?
[ $rc -eq 3 ] || fail "a directory as the store: exit $rc, want 3"
ln -s "$scratch/elsewhere/victim.db" "$scratch/dangling.db"
mkdir -p "$scratch/elsewhere"
"$SWAPTUNE" history --db "$scratch/dangling.db" $S >/dev/null 2>"$scratch/err"; rc=$?
[ $rc -eq 3 ] || fail "a dangling symlink as the store: exit $rc, want 3"
[ -e "$scratch/elsewhere/victim.db" ] && fail "a store was created through a dangling symlink"

# a store with recordings: report --before and --after naming the same one
pop=$scratch/pop.db
for i in 1 2; do
	"$SWAPTUNE" --db "$pop" $S sample --record --count 2 --interval 10ms >/dev/null 2>&1 || fail "cannot record into $pop"
done
rows_of() { sqlite3 "$1" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM samples)" 2>&1; }
pop_rows=$(rows_of "$pop")
for a in "report --before 2 --after 2" "report --before 1 --after 1 --format json"; do
	"$SWAPTUNE" --db "$pop" $S $a >"$scratch/out" 2>"$scratch/err"; rc=$?
	[ $rc -eq 2 ] || fail "$a: exit $rc, want 2: $(cat "$scratch/err")"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "$a: want one stderr line"
	[ "$(rows_of "$pop")" = "$pop_rows" ] || fail "$a: the store changed"
done
# a store whose snapshots table was dropped is damaged, never empty
"$SWAPTUNE" --db "$scratch/dropped.db" --sysroot "$mid" apply --yes page-cluster=1 >/dev/null 2>&1 ||
	fail "cannot apply into dropped.db"
"$SWAPTUNE" --db "$scratch/dropped.db" --sysroot "$mid" rollback --yes >/dev/null 2>&1 ||
	fail "cannot roll back in dropped.db"
sqlite3 "$scratch/dropped.db" "DROP TABLE snapshots" || fail "cannot drop the table"
for c in history "history --all" "rollback --yes" status "report --change 1"; do
	"$SWAPTUNE" --db "$scratch/dropped.db" --sysroot "$mid" $c >"$scratch/out" 2>"$scratch/err"; rc=$?
	[ $rc -eq 1 ] || fail "$c on a store without its snapshots table: exit $rc, want 1"
	[ "$(wc -l <"$scratch/err")" -eq 1 ] || fail "$c on a damaged store: want one stderr line: $(cat "$scratch/err")"
	grep -q "is damaged: .*snapshots" "$scratch/err" || fail "$c: not called damaged: $(cat "$scratch/err")"
	[ -s "$scratch/out" ] && fail "$c on a damaged store wrote to stdout: $(head -2 "$scratch/out")"
done
[ "$(sqlite3 "$scratch/dropped.db" "SELECT count(*) FROM sqlite_master WHERE name = 'snapshots'")" = 0 ] ||
	fail "the damaged store was changed"

[ "$(tree_sum "$root")" = "$before" ] || fail "the sysroot tree changed"
echo "$n command-line and sysroot cases, 5 store cases, 2 populated-store cases"
[ "$n" -ge 135 ] || fail "fewer than 135 cases"
done_testing
