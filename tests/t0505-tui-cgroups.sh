#!/bin/sh
# The Cgroups panel (7) at 80x24 on a captured cgroup v2 host with a small
# tree: every group with anon, swap and zswap as sizes, refaults and zswap
# loads per second once two scans differ, PSI memory; "/" narrows the list,
# "s" changes the sort key and says which, the chosen group's figures in
# full below the list; the lines fit 80 columns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"

sr=$scratch/sr
cp -a "$FIXTURES/v2-zswap-on" "$sr" || fail "copying the fixture"
cg=$sr/sys/fs/cgroup
# group DIR ANON SWAP REFAULTS ZSWPIN SOME10
group() {
	mkdir -p "$cg/$1"
	cat >"$cg/$1/memory.stat" <<EOS
anon $2
file 1048576
zswap 4194304
zswapped 16777216
zswpin $5
zswpout 900
workingset_refault_anon $4
workingset_refault_file 10
pgmajfault 7
EOS
	echo "$3" >"$cg/$1/memory.swap.current"
	printf 'some avg10=%s avg60=0.50 avg300=0.10 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
		"$6" >"$cg/$1/memory.pressure"
}
group system.slice/db.service 734003200 268435456 100 50 3.25
group user.slice 104857600 0 0 0 0.00
group user.slice/user-1000.slice 52428800 1048576 0 0 0.00

tui_start 80 24 --db "$scratch/db" --sysroot "$sr" --panel cgroups --interval 500ms
expect "cgroup \\(memory, v2\\)" "no Cgroups list" || { quit_ok; done_testing; }
expect "/system.slice/db.service" "the db.service group is not listed" && snap 80x24-cgroups
fits 80 "cgroups"
# sorted by swap, largest first: db.service (256M) is the first group row
grep -E "^ +/system.slice/db.service +700M +256M +4.0M" "$scratch/screen" >/dev/null ||
	fail "db.service's anon, swap and zswap as sizes"
grep -qE "by swap" "$scratch/screen" || fail "the sort key is not named"
grep -qE "PSI memory some 3.[23] / 0.5 / 0.1 %, full 0.0 / 0.0 / 0.0 % \(avg10/60/300\)" "$scratch/screen" ||
	fail "the chosen group's PSI"
# counters move: a rate per second appears for db.service
sed -i 's/^workingset_refault_anon 100$/workingset_refault_anon 5100/' "$cg/system.slice/db.service/memory.stat"
expect "per second: refaults [0-9.]+k?," "no refault rate after the counters moved" 8 && snap 80x24-cgroups-rates
keys s
expect "by anon" "s did not move to the next sort key"
keys /
keys u s e r Enter
expect "2 of [0-9]+ match \"user\"" "/ did not narrow the list to user.slice" && snap 80x24-cgroups-search
grep -q "db.service" "$scratch/screen" && fail "the search left db.service in the list"
fits 80 "cgroups search"
keys / Escape
expect "[0-9]+ shown, by anon" "Esc did not clear the search"
quit_ok
done_testing
