#!/bin/sh
# apply and rollback on this machine (root): every registered setting is
# changed and rolled back, and every kernel file reads back byte-identical
# to before; apply --persist writes /etc/sysctl.d/90-swaptune.conf and
# /etc/swaptune/boot.conf and rollback removes them (and the directory);
# --confirm-within 3s without a confirmation reverts by itself within ~1 s
# of the deadline. Whatever happens, settings and files are put back on exit.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to change kernel settings"
PC=/proc/sys/vm/page-cluster
RA=/sys/kernel/mm/swap/vma_ra_enabled
ZP=/sys/module/zswap/parameters
[ -w "$PC" ] && [ -w "$RA" ] || skip "no writable $PC or $RA"
[ -d "$ZP" ] || skip "zswap is not in this kernel"
SYSCTL_FILE=/etc/sysctl.d/90-swaptune.conf
BOOT_DIR=/etc/swaptune
for f in "$SYSCTL_FILE" "$BOOT_DIR"; do
	[ -e "$f" ] && skip "$f exists already: not touching an earlier persist"
done
files="$PC $RA $(ls -d "$ZP"/*)"
save=$scratch/saved
mkdir -p "$save"
for f in $files; do cp "$f" "$save/$(echo "$f" | tr / _)"; done
watchdogs=""
restore_host() {
	for p in $watchdogs; do kill -9 "$p" 2>/dev/null; done
	for f in $files; do
		cur=$(cat "$f") old=$(cat "$save/$(echo "$f" | tr / _)")
		[ "$cur" = "$old" ] || printf '%s' "$old" >"$f" 2>/dev/null
	done
	rm -f "$SYSCTL_FILE" "$SYSCTL_FILE.swaptune-new"
	rm -rf "$BOOT_DIR"
}
cleanup_hooks="restore_host"
# wait for a probe of someone else to finish: its arms are not "before"
if command -v flock >/dev/null 2>&1; then
	mkdir -p /run/swaptune
	flock -w 900 /run/swaptune/probe.lock true || skip "a probe held the lock for 15 minutes"
fi
db=$scratch/db
st() { "$SWAPTUNE" --db "$db" "$@"; }
snapshot() { for f in $files; do printf '%s: ' "$f"; od -An -c "$f" | tr -s ' ' | tr -d '\n'; echo; done; }
snapshot >"$scratch/before"

# every setting to another value, then rollback
pc=$(cat "$PC"); [ "$pc" = 0 ] && npc=2 || npc=0
ra=$(cat "$RA"); [ "$ra" = true ] && nra=false || nra=true
en=$(cat "$ZP/enabled"); [ "$en" = Y ] && nen=N || nen=Y
comp=$(cat "$ZP/compressor")
ncomp=$(awk '/^name/ {print $3}' /proc/crypto | grep -x -e lzo -e lzo-rle -e lz4 -e zstd -e deflate | grep -vx "$comp" | head -1)
mpp=$(cat "$ZP/max_pool_percent"); nmpp=$((mpp == 10 ? 11 : 10))
args="page-cluster=$npc vma_ra_enabled=$nra zswap.enabled=$nen zswap.max_pool_percent=$nmpp"
[ -n "$ncomp" ] && args="$args zswap.compressor=$ncomp"
[ -f "$ZP/accept_threshold_percent" ] && args="$args zswap.accept_threshold_percent=$(( $(cat "$ZP/accept_threshold_percent") == 80 ? 81 : 80 ))"
[ -f "$ZP/shrinker_enabled" ] && { [ "$(cat "$ZP/shrinker_enabled")" = Y ] && args="$args zswap.shrinker_enabled=N" || args="$args zswap.shrinker_enabled=Y"; }
# shellcheck disable=SC2086
st apply $args --yes >"$scratch/apply.out" 2>&1 || fail "apply $args: exit $? ($(cat "$scratch/apply.out"))"
[ "$(cat "$PC")" = "$npc" ] || fail "page-cluster is $(cat "$PC"), want $npc"
[ "$(cat "$RA")" = "$nra" ] || fail "vma_ra_enabled is $(cat "$RA"), want $nra"
[ "$(cat "$ZP/enabled")" = "$nen" ] || fail "zswap.enabled is $(cat "$ZP/enabled"), want $nen"
[ -z "$ncomp" ] || [ "$(cat "$ZP/compressor")" = "$ncomp" ] || fail "compressor is $(cat "$ZP/compressor"), want $ncomp"
st rollback --yes >"$scratch/rb.out" 2>&1 || fail "rollback: exit $? ($(cat "$scratch/rb.out"))"
snapshot >"$scratch/after"
same "$scratch/after" "$scratch/before"

# --persist: swaptune's files, gone again after rollback
st apply page-cluster=$npc zswap.enabled=$nen --persist --yes >"$scratch/persist.out" 2>&1 ||
	fail "apply --persist: exit $? ($(cat "$scratch/persist.out"))"
grep -qx "vm.page-cluster = $npc" "$SYSCTL_FILE" || fail "$SYSCTL_FILE: $(cat "$SYSCTL_FILE" 2>&1)"
grep -qx "zswap.enabled=$nen" "$BOOT_DIR/boot.conf" || fail "$BOOT_DIR/boot.conf: $(cat "$BOOT_DIR/boot.conf" 2>&1)"
grep -q '^note: zswap is built into this kernel' "$scratch/persist.out" || [ -e /sys/module/zswap/initstate ] ||
	fail "no note on built-in zswap"
[ -e /etc/modprobe.d/swaptune-zswap.conf ] && [ ! -e /sys/module/zswap/initstate ] && fail "module options written for a built-in zswap"
st rollback --yes >/dev/null 2>&1 || fail "rollback after --persist: exit $?"
[ -e "$SYSCTL_FILE" ] && fail "$SYSCTL_FILE left behind"
[ -e "$BOOT_DIR" ] && fail "$BOOT_DIR left behind"
snapshot >"$scratch/after"
same "$scratch/after" "$scratch/before"

# --confirm-within 3s, not confirmed
t0=$(date +%s.%N)
st apply page-cluster=$npc --yes --confirm-within 3s --json >"$scratch/cw.json" 2>&1 || fail "apply --confirm-within: exit $?"
pid=$(sed -n 's/.*"watchdog_pid":[[:space:]]*\([0-9]*\).*/\1/p' "$scratch/cw.json")
watchdogs="$pid"
[ "$(cat "$PC")" = "$npc" ] || fail "--confirm-within: not applied"
i=0
while [ "$(cat "$PC")" != "$pc" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t1=$(date +%s.%N)
late=$(python3 -c "print(round($t1 - $t0 - 3, 2))")
echo "confirm-within 3s: reverted $late s after the deadline"
[ "$(cat "$PC")" = "$pc" ] || fail "--confirm-within 3s: not reverted after 10 s"
python3 -c "import sys; sys.exit(0 if -0.05 <= $late <= 1.5 else 1)" || fail "reverted $late s after the deadline"
snapshot >"$scratch/after"
same "$scratch/after" "$scratch/before"
done_testing
