#!/bin/sh
# Repair never removes a cgroup outside the tree (issue 19, finding 1). A
# crafted store's pending "cgroup" row of this machine, with a captured
# tree whose memory controller root leaves the tree:
#  - proc/mounts naming the memory cgroup at "/../../.." (the row's
#    directory "../../../swaptune-x" then matches "root/name");
#  - proc/mounts naming "/sys/fs/cgroup/../../../../swaptune-y"'s parent;
#  - sys/fs/cgroup/memory itself a symlink to a directory outside;
#  - a group name inside the root that is a symlink to a directory outside;
# each row is refused with a warning and marked "refused"; the outside
# directories (and what they hold) stay. The control: a real swaptune-*
# group under the tree's memory root is removed (control files and all).
# Sysroot copies only; never the live host.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command to craft a store"
mid=0123456789abcdef0123456789abcdef
sh -c 'exit 0' &
dead=$!
wait "$dead"
# mk NAME: a vm-v1 copy three levels under scratch, with a machine id
mk() {
	t=$scratch/$1/a/b/root
	mkdir -p "$t"
	cp -a "$FIXTURES/vm-v1/." "$t/"
	mkdir -p "$t/etc"
	echo "$mid" >"$t/etc/machine-id"
	echo "$t"
}
# row DB ROOT NAME DETAIL: a pending cgroup row of a dead process of this machine
row() {
	sqlite3 "$1" "INSERT INTO changes (session, pid, pid_start, sysroot, kind, name, old_value,
		temporary, state, machine_id) VALUES ('crafted', $dead, 1, '$(cd "$2" && pwd -P)',
		'cgroup', '$3', '$4', 1, 'pending', '$mid')" || fail "cannot craft a row"
}
victim() {	# victim DIR: an outside directory that looks like a group
	mkdir -p "$1"
	echo 1 >"$1/tasks"
	echo keep >"$1/cgroup.procs"
}
status_of() {	# status_of DB ROOT: run repair with its stderr in $scratch/err
	"$SWAPTUNE" --db "$1" --sysroot "$2" repair >/dev/null 2>"$scratch/err" ||
		fail "repair: exit $?: $(cat "$scratch/err")"
}
refused() {	# refused DB WHAT
	grep -q '^swaptune: warning: refused to undo cgroup ' "$scratch/err" ||
		fail "$2: no refusal line: $(cat "$scratch/err")"
	[ "$(sqlite3 "$1" "SELECT state FROM changes WHERE session = 'crafted'")" = refused ] ||
		fail "$2: the row is not marked refused"
}

# the memory root "/../../.." in proc/mounts
r=$(mk dots)
sed -i 's#^cgroup /sys/fs/cgroup/memory cgroup#cgroup /../../.. cgroup#' "$r/proc/mounts"
victim "$scratch/dots/swaptune-x"
new_store "$scratch/dots.db" || fail "cannot make a store"
row "$scratch/dots.db" "$r" swaptune-x "v1 ../../../swaptune-x"
status_of "$scratch/dots.db" "$r"
[ -f "$scratch/dots/swaptune-x/cgroup.procs" ] || fail "repair removed a directory outside the sysroot (/../../.. root)"
refused "$scratch/dots.db" "root /../../.."

# a root with ".." inside the path
r=$(mk dots2)
sed -i 's#^cgroup /sys/fs/cgroup/memory cgroup#cgroup /sys/../../.. cgroup#' "$r/proc/mounts"
victim "$scratch/dots2/a/swaptune-y"
new_store "$scratch/dots2.db" || fail "cannot make a store"
row "$scratch/dots2.db" "$r" swaptune-y "v1 sys/../../../swaptune-y"
status_of "$scratch/dots2.db" "$r"
[ -d "$scratch/dots2/a/swaptune-y" ] || fail "repair removed a directory outside the sysroot (sys/../../.. root)"
refused "$scratch/dots2.db" "root sys/../../.."

# sys/fs/cgroup/memory a symlink out of the tree
r=$(mk link)
victim "$scratch/link/cgout/swaptune-z"
rm -rf "$r/sys/fs/cgroup/memory"
ln -s "$scratch/link/cgout" "$r/sys/fs/cgroup/memory"
new_store "$scratch/link.db" || fail "cannot make a store"
row "$scratch/link.db" "$r" swaptune-z "v1 sys/fs/cgroup/memory/swaptune-z"
status_of "$scratch/link.db" "$r"
[ -f "$scratch/link/cgout/swaptune-z/cgroup.procs" ] || fail "repair removed a group through a symlinked memory root"
refused "$scratch/link.db" "symlinked root"

# the group itself a symlink to a directory outside
r=$(mk leaf)
victim "$scratch/leaf/out/target"
ln -s "$scratch/leaf/out/target" "$r/sys/fs/cgroup/memory/swaptune-w"
new_store "$scratch/leaf.db" || fail "cannot make a store"
row "$scratch/leaf.db" "$r" swaptune-w "v1 sys/fs/cgroup/memory/swaptune-w"
status_of "$scratch/leaf.db" "$r"
[ -f "$scratch/leaf/out/target/cgroup.procs" ] || fail "repair emptied a directory a symlinked group points at"
[ -L "$r/sys/fs/cgroup/memory/swaptune-w" ] || fail "repair removed the symlink"
refused "$scratch/leaf.db" "symlinked group"

# the control: swaptune's own group in the tree goes
r=$(mk own)
g=$r/sys/fs/cgroup/memory/swaptune-t0804
mkdir -p "$g"
for f in cgroup.procs memory.limit_in_bytes memory.stat tasks; do : >"$g/$f"; done
new_store "$scratch/own.db" || fail "cannot make a store"
row "$scratch/own.db" "$r" swaptune-t0804 "v1 sys/fs/cgroup/memory/swaptune-t0804"
status_of "$scratch/own.db" "$r"
[ -e "$g" ] && fail "repair did not remove swaptune's own group in the tree: $(cat "$scratch/err")"
grep -q 'removed cgroup swaptune-t0804' "$scratch/err" || fail "no line about the removed group: $(cat "$scratch/err")"
[ "$(sqlite3 "$scratch/own.db" "SELECT state FROM changes WHERE session = 'crafted'")" = restored ] ||
	fail "the own group's row is not marked restored"
done_testing
