#!/bin/sh
# Under --sysroot every kernel file is resolved beneath the tree: symlinks
# inside it work (sys/class/block/* in captured trees are relative links;
# here page-cluster itself is a link inside the tree), but a symlink, relative
# or absolute, that leaves the tree is refused with a clear error (EXDEV) and
# nothing outside the tree is written, by apply or by status's reads.
# (apply --from FILE and --db are the user's own paths on the invoking host,
# not inside the sysroot: they are not resolved beneath it.)
. "$(dirname "$0")/lib.sh"

mk() {	# mk NAME: a fresh copy of vm-v1
	t=$scratch/$1
	rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
	echo "$t"
}
echo 5 >"$scratch/outside"
cp "$scratch/outside" "$scratch/outside.orig"

# relative link through ..: root/proc/sys/vm/page-cluster -> scratch/outside
r=$(mk rel)
rm "$r/proc/sys/vm/page-cluster"
ln -s ../../../../outside "$r/proc/sys/vm/page-cluster"
[ "$(cat "$r/proc/sys/vm/page-cluster")" = 5 ] || fail "the test's link does not reach the outside file"
"$SWAPTUNE" --db "$scratch/rel.db" --sysroot "$r" apply --yes page-cluster=0 >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "apply through an escaping relative link: exit $rc, want 2: $(cat "$scratch/err")"
grep -q "outside the sysroot" "$scratch/err" || fail "no clear error: $(cat "$scratch/err")"
cmp -s "$scratch/outside" "$scratch/outside.orig" || fail "a file outside the sysroot was written (relative link)"

# absolute link
r=$(mk abs)
rm "$r/proc/sys/vm/page-cluster"
ln -s "$scratch/outside" "$r/proc/sys/vm/page-cluster"
"$SWAPTUNE" --db "$scratch/abs.db" --sysroot "$r" apply --yes page-cluster=0 >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 2 ] || fail "apply through an absolute link: exit $rc, want 2: $(cat "$scratch/err")"
cmp -s "$scratch/outside" "$scratch/outside.orig" || fail "a file outside the sysroot was written (absolute link)"
"$SWAPTUNE" --db "$scratch/abs2.db" --sysroot "$r" status >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] || fail "status read through an absolute link out of the tree: $(cat "$scratch/err")"

# a link that stays inside the tree works, for reads and writes
r=$(mk inside)
mv "$r/proc/sys/vm/page-cluster" "$r/pc-real"
ln -s ../../../pc-real "$r/proc/sys/vm/page-cluster"
"$SWAPTUNE" --db "$scratch/in.db" --sysroot "$r" apply --yes page-cluster=0 >"$scratch/out" 2>"$scratch/err" ||
	fail "apply through a link inside the tree: exit $?: $(cat "$scratch/err")"
[ "$(cat "$r/pc-real")" = 0 ] || fail "apply did not write through the inside link: $(cat "$r/pc-real")"
"$SWAPTUNE" --db "$scratch/st.db" --sysroot "$r" status >"$scratch/out" 2>"$scratch/err" ||
	fail "status: exit $?: $(cat "$scratch/err")"
# the block device behind the swap is found through sys/class/block's relative links
grep -q 'vdb, rotational' "$scratch/out" || fail "status lost the device found through sys/class/block links: $(cat "$scratch/out")"
cmp -s "$scratch/outside" "$scratch/outside.orig" || fail "the outside file changed"
done_testing
