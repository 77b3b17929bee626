#!/bin/sh
# Repair writes nothing the store says unless swaptune itself would write
# it (issue 19, finding 2). Pending rows of this machine, left by a dead
# process, crafted with the sqlite3 tool against a sysroot copy:
#  - persist-file rows whose recorded old content is not a file swaptune
#    renders (kernel.core_pattern=|..., "install zswap /bin/sh -c ...", a
#    setting twice, a value the registry refuses, an unknown line): refused,
#    the boot files stay as they are, no "removed persist-file" line;
#  - setting rows whose old value the registry refuses (page-cluster
#    "banana", 4095 x "x", 99; a compressor holding a newline and $(id)):
#    refused, the kernel files of the tree stay as they are;
#  - rows with an empty or no machine id: never this machine's, reported in
#    one line and left pending;
# and the controls: a persist-file row holding exactly what swaptune renders
# is put back byte for byte, a setting row with a valid old value is
# restored (with the file's trailing newline). Sysroot copies only.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command to craft a store"
mid=0123456789abcdef0123456789abcdef
root=$scratch/root
mkdir -p "$root"
cp -a "$FIXTURES/vm-v1/." "$root/"
mkdir -p "$root/etc/sysctl.d" "$root/etc/modprobe.d" "$root/etc/swaptune"
echo "$mid" >"$root/etc/machine-id"
key=$(cd "$root" && pwd -P)
db=$scratch/s.db
new_store "$db" || fail "cannot make a store"
sh -c 'exit 0' &
dead=$!
wait "$dead"
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
# row KIND NAME OLD NEW [MACHINE]: OLD/NEW as text (NULL for none); MACHINE NULL for none
row() {
	o=NULL; n=NULL; m="'$mid'"
	[ "$3" != NULL ] && o="CAST(X'$(hex "$3")' AS TEXT)"
	[ "$4" != NULL ] && n="CAST(X'$(hex "$4")' AS TEXT)"
	[ $# -ge 5 ] && { [ "$5" = NULL ] && m=NULL || m="'$5'"; }
	sqlite3 "$db" "INSERT INTO changes (session, pid, pid_start, sysroot, kind, name, old_value,
		new_value, temporary, state, machine_id) VALUES ('crafted', $dead, 1, '$key', '$1', '$2',
		$o, $n, 1, 'pending', $m)" || fail "cannot craft a row"
}
tree_sum() { (cd "$root" && find . -type f ! -name '*.db*' | LC_ALL=C sort | xargs cksum) | cksum; }
HDR='# written by swaptune apply --persist: do not edit, `swaptune rollback` takes it back'
NL='
'

# ---- boot-time files: content that is not swaptune's ----
printf '%s\nvm.page-cluster = 2\n' "$HDR" >"$root/etc/sysctl.d/90-swaptune.conf"
before=$(tree_sum)
row persist-file etc/sysctl.d/90-swaptune.conf "kernel.core_pattern=|/bin/sh -c id$NL" NULL
row persist-file etc/modprobe.d/swaptune-zswap.conf "install zswap /bin/sh -c 'id >/tmp/x'$NL" NULL
row persist-file etc/sysctl.d/90-swaptune.conf "$HDR${NL}kernel.core_pattern = |/bin/sh$NL" NULL
row persist-file etc/sysctl.d/90-swaptune.conf "$HDR${NL}vm.page-cluster = 1${NL}vm.page-cluster = 2$NL" NULL
row persist-file etc/sysctl.d/90-swaptune.conf "$HDR${NL}vm.page-cluster = 99$NL" NULL
row persist-file etc/modprobe.d/swaptune-zswap.conf "$HDR${NL}options zswap compressor=\$(id)$NL" NULL
row persist-file etc/swaptune/boot.conf "$HDR${NL}zswap.enabled=Y${NL}install zswap /bin/sh$NL" NULL
"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>"$scratch/err" || fail "repair: $(cat "$scratch/err")"
n=$(grep -c '^swaptune: warning: refused to undo persist-file ' "$scratch/err")
[ "$n" -eq 7 ] || { fail "expected 7 refused persist-file rows, got $n"; cat "$scratch/err"; }
grep -q 'removed persist-file' "$scratch/err" && fail "repair reported writing a crafted boot file"
[ "$(tree_sum)" = "$before" ] || fail "repair changed the tree's boot files: $(cat "$root/etc/sysctl.d/90-swaptune.conf" "$root/etc/modprobe.d/"* 2>&1)"
[ -e "$root/etc/modprobe.d/swaptune-zswap.conf" ] && fail "repair wrote the modprobe file"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE session = 'crafted' AND state = 'refused'")" = 7 ] ||
	fail "the rows are not marked refused"
sqlite3 "$db" "DELETE FROM changes WHERE session = 'crafted'"

# ---- settings: old values the registry refuses ----
before=$(tree_sum)
echo 0 >"$root/proc/sys/vm/page-cluster"
echo lz4 >"$root/sys/module/zswap/parameters/compressor"
before=$(tree_sum)
long=$(printf 'x%.0s' $(seq 1 4095))
row setting page-cluster banana 0
row setting page-cluster "$long" 0
row setting page-cluster 99 0
row setting zswap.compressor "lzo$NL\$(id)" lz4
row setting nosuch 1 0
"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>"$scratch/err" || fail "repair: $(cat "$scratch/err")"
n=$(grep -c '^swaptune: warning: refused to undo setting ' "$scratch/err")
[ "$n" -eq 5 ] || { fail "expected 5 refused setting rows, got $n"; cat "$scratch/err"; }
[ "$(tree_sum)" = "$before" ] || fail "repair wrote a refused value: page-cluster $(head -c 40 "$root/proc/sys/vm/page-cluster"), compressor $(head -c 40 "$root/sys/module/zswap/parameters/compressor")"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$scratch/err" && fail "raw control bytes on stderr"
sqlite3 "$db" "DELETE FROM changes WHERE session = 'crafted'"

# ---- rows that name no machine are not this machine's ----
row setting page-cluster 3 0 ""
row setting page-cluster 3 0 NULL
"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>"$scratch/err" || fail "repair: $(cat "$scratch/err")"
[ "$(cat "$root/proc/sys/vm/page-cluster")" = 0 ] || fail "a row that names no machine was acted on"
grep -q 'holds 2 pending changes that name no machine; not undone here' "$scratch/err" ||
	fail "no line about the rows that name no machine: $(cat "$scratch/err")"
[ "$(sqlite3 "$db" "SELECT count(*) FROM changes WHERE session = 'crafted' AND state = 'pending'")" = 2 ] ||
	fail "rows that name no machine changed state"
sqlite3 "$db" "DELETE FROM changes WHERE session = 'crafted'"

# ---- the controls: what swaptune itself wrote goes back, byte for byte ----
printf '%s\nvm.page-cluster = 1\n' "$HDR" >"$scratch/want"
row persist-file etc/sysctl.d/90-swaptune.conf "$(cat "$scratch/want")$NL" NULL
row setting page-cluster 3 0
"$SWAPTUNE" --db "$db" --sysroot "$root" repair >/dev/null 2>"$scratch/err" || fail "repair: $(cat "$scratch/err")"
cmp -s "$root/etc/sysctl.d/90-swaptune.conf" "$scratch/want" ||
	fail "swaptune's own recorded content was not put back: $(cat "$root/etc/sysctl.d/90-swaptune.conf")"
printf '3\n' | cmp -s - "$root/proc/sys/vm/page-cluster" ||
	fail "page-cluster not restored byte for byte: $(od -c "$root/proc/sys/vm/page-cluster" | head -2)"
grep -q 'refused' "$scratch/err" && fail "a control row was refused: $(cat "$scratch/err")"
done_testing
