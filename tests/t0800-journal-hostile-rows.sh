#!/bin/sh
# Journal repair trusts nothing in the store: a crafted store whose pending
# rows name paths outside the sysroot (absolute, ../, through a symlinked
# directory), a cgroup outside the controller root, or a directory that is
# not swaptune's, makes `repair` refuse each row with a warning and mark it
# "refused"; nothing outside the sysroot changes. Rows of another machine
# are never undone (one line says so), live state of an earlier boot is
# marked "rebooted", and the same row of this machine and boot is restored.
# A row that names no machine (empty machine id) is not this machine's either.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command to craft a store"
root=$scratch/root
outside=$scratch/outside
cp -a "$FIXTURES/vm-v1" "$root"
mkdir -p "$root/etc" "$root/proc/sys/kernel/random" "$outside/emptydir" \
	"$outside/swaptune-x" "$outside/sysctl"
mid=0123456789abcdef0123456789abcdef
boot=11111111-2222-3333-4444-555555555555
echo "$mid" >"$root/etc/machine-id"
echo "$boot" >"$root/proc/sys/kernel/random/boot_id"
echo keep >"$outside/victim"
echo keep >"$outside/absvictim"
echo 1234 >"$outside/swaptune-x/cgroup.procs"
rm -rf "$root/etc/sysctl.d"
ln -s "$outside/sysctl" "$root/etc/sysctl.d"
key=$(cd "$root" && pwd -P)
db=$scratch/s.db
new_store "$db" || fail "cannot make a store"
sh -c 'exit 0' &
dead=$!
wait "$dead"

# row KIND NAME OLD NEW MACHINE BOOT (NULL for none): a pending row of a dead process
row() {
	q() { [ "$1" = NULL ] && echo NULL || echo "'$1'"; }
	sqlite3 "$db" "INSERT INTO changes (session, pid, pid_start, sysroot, kind, name,
		old_value, new_value, temporary, state, machine_id, boot_id) VALUES
		('crafted', $dead, 1, '$key', '$1', '$2', $(q "$3"), $(q "$4"), 1, 'pending',
		$(q "$5"), $(q "$6"))" || fail "cannot craft a row"
}
tree() { (cd "$scratch" && find outside -printf '%p %y %s %l\n' | sort; cat outside/victim outside/absvictim) ; }
before=$(tree)

row persist-file ../outside/victim pwned NULL "$mid" "$boot"
row persist-file "$outside/absvictim" NULL NULL "$mid" "$boot"
row persist-file etc/sysctl.d/../../../outside/victim pwned NULL "$mid" "$boot"
row persist-file etc/sysctl.d/90-swaptune.conf pwned NULL "$mid" "$boot"
row persist-dir ../outside/emptydir NULL NULL "$mid" "$boot"
row persist-dir "$outside/emptydir" NULL NULL "$mid" NULL
row cgroup swaptune-x "v1 ../outside/swaptune-x" NULL "$mid" "$boot"
row cgroup ../outside "v1 sys/fs/cgroup/memory/../../../../outside" NULL "$mid" "$boot"

"$SWAPTUNE" repair --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err" ||
	fail "repair with hostile rows failed: $(cat "$scratch/err")"
n=$(grep -c '^swaptune: warning: refused to undo ' "$scratch/err")
[ "$n" -eq 8 ] || { fail "expected 8 refusals, got $n"; cat "$scratch/err"; }
[ "$(tree)" = "$before" ] || fail "repair changed files outside the sysroot"
[ -e "$outside/sysctl/90-swaptune.conf" ] && fail "repair wrote through a symlinked directory"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'refused'")" = 8 ] ||
	fail "refused rows are not marked refused"
# a refused row is not tried again
"$SWAPTUNE" repair --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err2"
grep -q 'refused' "$scratch/err2" && fail "refused rows were tried again"

# another machine's pending change is never undone here
echo 0 >"$root/proc/sys/vm/page-cluster"
other=fedcba9876543210fedcba9876543210
row setting page-cluster 3 0 "$other" "$boot"
row setting vma_ra_enabled false true "$other" "$boot"
"$SWAPTUNE" repair --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err" || fail "repair failed"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 0 ] || fail "another machine's change was restored here"
grep -q "^swaptune: store $db holds 2 pending changes of machine fedcba98.*; not undone here\$" \
	"$scratch/err" || { fail "no plain line about the other machine's changes"; cat "$scratch/err"; }
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'pending' AND machine_id = '$other'")" = 2 ] ||
	fail "the other machine's rows changed state"

# a row that names no machine is nobody's here: reported, never acted on
echo 0 >"$root/proc/sys/vm/page-cluster"
row setting page-cluster 3 0 NULL "$boot"
row setting page-cluster 3 0 "" "$boot"
"$SWAPTUNE" repair --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err" || fail "repair failed"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 0 ] || fail "a row naming no machine was acted on"
grep -q "^swaptune: store $db holds 2 pending changes that name no machine; not undone here\$" \
	"$scratch/err" || { fail "no line about the rows that name no machine"; cat "$scratch/err"; }
sqlite3 "$db" "DELETE FROM changes WHERE state = 'pending' AND coalesce(machine_id, '') = ''"

# live state of an earlier boot: the reboot undid it
row setting page-cluster 3 0 "$mid" 99999999-2222-3333-4444-555555555555
"$SWAPTUNE" repair --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err" || fail "repair failed"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 0 ] || fail "a change of an earlier boot was restored"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE state = 'rebooted'")" = 1 ] ||
	fail "the earlier boot's row is not marked rebooted"

# the control: the same row of this machine and boot is restored
row setting page-cluster 3 0 "$mid" "$boot"
"$SWAPTUNE" repair --sysroot "$root" --db "$db" >/dev/null 2>"$scratch/err" || fail "repair failed"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 3 ] || fail "this machine's change was not restored"
grep -q 'restored page-cluster 0 -> 3' "$scratch/err" || fail "no line about the restore"

# journal rows and runs record the machine and boot
"$SWAPTUNE" apply --yes --sysroot "$root" --db "$db" page-cluster=2 >/dev/null 2>&1 || fail "apply failed"
[ "$(sqlite3 "$db" "SELECT machine_id || ' ' || boot_id FROM changes WHERE session != 'crafted' LIMIT 1")" = "$mid $boot" ] ||
	fail "journal rows lack the machine and boot id"
[ "$(sqlite3 "$db" "SELECT machine_id || ' ' || boot_id FROM runs WHERE kind = 'apply'")" = "$mid $boot" ] ||
	fail "runs lack the machine and boot id"
done_testing
