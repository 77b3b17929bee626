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
# status shows that file n/a (refused, never read) and the rest
"$SWAPTUNE" --db "$scratch/abs2.db" --sysroot "$r" status >"$scratch/out" 2>"$scratch/err"
[ $? -eq 0 ] || fail "status with a link out of the tree: exit $?: $(cat "$scratch/err")"
unfold "$scratch/out" | grep -q "^  page-cluster    n/a: $r/proc/sys/vm/page-cluster: resolves outside the sysroot" ||
	fail "status read through an absolute link out of the tree: $(cat "$scratch/out" "$scratch/err")"

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
# apply --persist: swaptune's boot-time files under etc/ resolve beneath the
# tree too. etc/sysctl.d (absolute or relative link) and etc/swaptune (a link
# to a directory outside) lead out: apply refuses, nothing outside changes,
# the kernel file in the tree is left as it was.
for kind in abs rel; do
	r=$(mk persist-$kind)
	out=$scratch/outdir-$kind
	mkdir -p "$out"
	echo "vm.swappiness = 7" >"$out/keep.conf"
	rm -rf "$r/etc/sysctl.d"
	mkdir -p "$r/etc"
	if [ $kind = abs ]; then ln -s "$out" "$r/etc/sysctl.d"; else ln -s "../../outdir-$kind" "$r/etc/sysctl.d"; fi
	[ -f "$r/etc/sysctl.d/keep.conf" ] || fail "the test's etc/sysctl.d link ($kind) does not reach outside"
	ls -la "$out" >"$scratch/outdir.before"
	pc=$(cat "$r/proc/sys/vm/page-cluster")
	"$SWAPTUNE" --db "$scratch/p$kind.db" --sysroot "$r" apply --yes --persist page-cluster=0 \
		>"$scratch/out" 2>"$scratch/err"
	rc=$?
	[ $rc -ne 0 ] || fail "apply --persist through an escaping etc/sysctl.d ($kind link) succeeded"
	grep -q "outside the sysroot" "$scratch/err" || fail "no clear error ($kind): $(cat "$scratch/err")"
	ls -la "$out" >"$scratch/outdir.after"
	cmp -s "$scratch/outdir.before" "$scratch/outdir.after" ||
		fail "a file appeared outside the sysroot ($kind): $(ls -la "$out")"
	[ "$(cat "$r/proc/sys/vm/page-cluster")" = "$pc" ] ||
		fail "page-cluster changed although the persist write was refused ($kind)"
done
r=$(mk persist-dir)
out=$scratch/outdir-boot
mkdir -p "$out" "$r/etc"
rm -rf "$r/etc/swaptune"
ln -s "$out" "$r/etc/swaptune"
"$SWAPTUNE" --db "$scratch/pdir.db" --sysroot "$r" apply --yes --persist vma_ra_enabled=false \
	>"$scratch/out" 2>"$scratch/err"
[ $? -ne 0 ] || fail "apply --persist through an escaping etc/swaptune succeeded"
[ -z "$(ls -A "$out")" ] || fail "boot.conf written outside the sysroot: $(ls -A "$out")"
# a link inside the tree is followed
r=$(mk persist-inside)
mkdir -p "$r/etc/real-sysctl.d"
rm -rf "$r/etc/sysctl.d"
ln -s real-sysctl.d "$r/etc/sysctl.d"
"$SWAPTUNE" --db "$scratch/pin.db" --sysroot "$r" apply --yes --persist page-cluster=0 \
	>"$scratch/out" 2>"$scratch/err" || fail "apply --persist through a link inside the tree: exit $?: $(cat "$scratch/err")"
grep -q "vm.page-cluster = 0" "$r/etc/real-sysctl.d/90-swaptune.conf" 2>/dev/null ||
	fail "the sysctl file was not written through the inside link"
"$SWAPTUNE" --db "$scratch/pin.db" --sysroot "$r" rollback --yes >"$scratch/out" 2>"$scratch/err" ||
	fail "rollback through a link inside the tree: exit $?: $(cat "$scratch/err")"
[ ! -e "$r/etc/real-sysctl.d/90-swaptune.conf" ] || fail "rollback left the sysctl file"
done_testing
