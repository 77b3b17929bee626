#!/bin/sh
# Writes into a sysroot copy stay in the tree whatever moves under them
# (issue 19, findings 4 and 5). The moments an attacker needs are made to
# happen every time by an LD_PRELOAD shim (tests/helpers/preload/race-shim.c)
# acting just before swaptune creates a temporary file:
#  - a kernel file's write (apply page-cluster=K): proc/sys/vm is exchanged
#    with a symlink out of the tree right after the check. A writer that
#    then goes by path (mkstemp/rename on the absolute name) replaced the
#    outside file; one that works in the directory's fd stays inside.
#  - a boot-time file's write (apply --persist): a hard link to an outside
#    file is planted at the temporary name (and, without the shim, at the
#    old fixed name "90-swaptune.conf.swaptune-new"). An O_TRUNC open wrote
#    through it and made the outside inode the boot file with the planter's
#    mode; O_CREAT|O_EXCL takes a new name.
# After every case nothing outside the tree changed, and no temporary file
# of swaptune is left in the tree once the next command's repair ran.
. "$(dirname "$0")/lib.sh"

shim=$BUILD/helpers/race-shim.so
[ -f "$shim" ] || { echo "FAIL: $shim not built (make check builds it)"; exit 1; }
# an ASan build wants its runtime first among preloaded libraries
asan=$(ldd "$SWAPTUNE" 2>/dev/null | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && shim="$asan $shim"
outside=$scratch/outside
mkdir -p "$outside"
mk() {	# mk NAME: a fresh copy of vm-v1
	t=$scratch/$1
	rm -rf "$t"; mkdir -p "$t"; cp -a "$FIXTURES/vm-v1/." "$t/"
	echo "$t"
}
outside_sum() { (cd "$outside" && find . -printf '%p %y %s %m %n\n' | sort; cat ./* 2>/dev/null) | cksum; }

# ---- finding 4: the directory swapped for a symlink after the check ----
r=$(mk swap)
mkdir -p "$outside/vm"
printf 'precious\n' >"$outside/vm/page-cluster"
ln -s "$outside/vm" "$r/proc/sys/vm-evil"
before=$(outside_sum)
for k in 0 1 2; do
	RACE_MODE=swap RACE_A=$r/proc/sys/vm RACE_B=$r/proc/sys/vm-evil LD_PRELOAD="$shim" \
		"$SWAPTUNE" --db "$scratch/swap.db" --sysroot "$r" apply --yes page-cluster=$k \
		>/dev/null 2>"$scratch/err$k"
	[ "$(outside_sum)" = "$before" ] || { fail "apply page-cluster=$k wrote outside the tree through a swapped directory: $(cat "$outside/vm/page-cluster")"; break; }
	[ -L "$r/proc/sys/vm" ] || fail "the shim did not swap the directory (case $k)"
	# put the tree back for the next round (the test's own move, not swaptune's)
	mv "$r/proc/sys/vm" "$r/proc/sys/vm-link" && mv "$r/proc/sys/vm-evil" "$r/proc/sys/vm" &&
		mv "$r/proc/sys/vm-link" "$r/proc/sys/vm-evil"
done
ls -A "$outside/vm" | grep -q swaptune && fail "a temporary file was made outside the tree: $(ls -A "$outside/vm")"
# the value went into the tree's own file, or the apply failed and said why
"$SWAPTUNE" --db "$scratch/swap.db" --sysroot "$r" repair >/dev/null 2>"$scratch/err"
ls -A "$r/proc/sys/vm" | grep -q '^\.swaptune-write' &&
	fail "temporary files left in the tree after repair: $(ls -A "$r/proc/sys/vm")"

# ---- finding 5: a hard link at the temporary name of a boot-time file ----
printf 'root:x:0:0:outside file\n' >"$outside/victim"
chmod 600 "$outside/victim"
r=$(mk link)
mkdir -p "$r/etc/sysctl.d"
# the old fixed name, planted ahead (hard links need the same filesystem: scratch holds both)
ln "$outside/victim" "$r/etc/sysctl.d/90-swaptune.conf.swaptune-new"
before=$(outside_sum)
"$SWAPTUNE" --db "$scratch/link.db" --sysroot "$r" apply --yes --persist page-cluster=0 \
	>/dev/null 2>"$scratch/err" || fail "apply --persist with a planted link: exit $?: $(cat "$scratch/err")"
[ "$(outside_sum)" = "$before" ] || fail "apply --persist wrote through a hard link planted at the old temporary name"
f=$r/etc/sysctl.d/90-swaptune.conf
[ "$(stat -c %i "$f" 2>/dev/null)" = "$(stat -c %i "$outside/victim")" ] &&
	fail "the boot file is the planted outside inode"
[ "$(stat -c %a "$f" 2>/dev/null)" = 644 ] || fail "the boot file's mode is $(stat -c %a "$f" 2>/dev/null), not 644"
grep -qx 'vm.page-cluster = 0' "$f" || fail "the boot file lacks the setting: $(cat "$f")"
# the name swaptune draws: a link planted there just before the create
RACE_MODE=link RACE_TARGET=$outside/victim LD_PRELOAD="$shim" \
	"$SWAPTUNE" --db "$scratch/link.db" --sysroot "$r" apply --yes --persist page-cluster=1 \
	>/dev/null 2>"$scratch/err" || fail "apply --persist with links at its temporary names: exit $?: $(cat "$scratch/err")"
[ "$(cat "$outside/victim")" = "root:x:0:0:outside file" ] || fail "apply --persist wrote through a hard link at its temporary name"
[ "$(stat -c %a "$outside/victim")" = 600 ] || fail "the outside file's mode changed"
[ "$(stat -c %i "$f")" = "$(stat -c %i "$outside/victim")" ] && fail "the boot file is the outside inode"
grep -qx 'vm.page-cluster = 1' "$f" || fail "the second apply did not land: $(cat "$f")"
# the planted names are only names: the next command's repair does not follow them either
"$SWAPTUNE" --db "$scratch/link.db" --sysroot "$r" rollback --yes >/dev/null 2>"$scratch/err" ||
	fail "rollback: $(cat "$scratch/err")"
[ "$(cat "$outside/victim")" = "root:x:0:0:outside file" ] || fail "rollback wrote through a planted link"
done_testing
