#!/bin/sh
# guest.sh - PID 1 of the check-kernels guest (Debian 12's kernel, the host's
# userspace read-only over 9p under a tmpfs overlay; see docs/kernels.md).
# Sets up what a minimal cgroup v2 host has, then runs ./swaptune and checks
# mechanics only (exit codes, files, the store), never timings or verdicts.
# Each check prints one "check-kernels: ok NAME" or "check-kernels: FAIL NAME:
# why" line on the console; the host counts them. Powers off at the end.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
TOP=$swaptune_top KV=$swaptune_kv
ST=$TOP/swaptune
DB=/tmp/st/swaptune.db

ok() { echo "check-kernels: ok $1"; }
bad() { echo "check-kernels: FAIL $1: $2"; }
# check NAME WANT_EXIT COMMAND...: the command's exit status is WANT_EXIT
check() {
	name=$1 want=$2
	shift 2
	"$@" >/tmp/out.$name 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else bad "$name" "exit $rc, want $want: $(tail -3 /tmp/out.$name | tr '\n' ' ')"; fi
	return $rc
}
# answer NAME COMMAND...: a verdict's exit status (0 holds/keep, 10 change,
# 11 inconclusive: the guest judges mechanics, not the answer), not an error
answer() {
	name=$1
	shift
	"$@" >/tmp/out.$name 2>&1
	rc=$?
	case $rc in 0 | 10 | 11) ok "$name" ;; *) bad "$name" "exit $rc, want 0, 10 or 11: $(tail -3 /tmp/out.$name | tr '\n' ' ')" ;; esac
}
# has NAME FILE PATTERN: FILE holds a line matching PATTERN (grep -E), once the
# lines human output folds at 100 columns are joined again
. "$TOP/tests/unfold.sh"
has() {
	if unfold "$2" | grep -Eq "$3"; then ok "$1"; else bad "$1" "no '$3' in $(basename "$2"): $(head -c 300 "$2" | tr '\n' ' ')"; fi
}
finish() {
	echo "check-kernels: done"
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# the checkout may live under /tmp or /run (a CI clone): reach it through a
# path of its own before the guest's fresh /tmp and /run hide it
mkdir -p /mnt/top
mount --bind "$TOP" /mnt/top || { echo "check-kernels: FAIL setup: cannot bind $TOP"; }
TOP=/mnt/top ST=/mnt/top/swaptune
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p /lib/modules/$KV /tmp/st /mnt/scratch
mount --bind "$TOP/build/kernels/root/lib/modules/$KV" /lib/modules/$KV
echo 1 >/proc/sys/kernel/sysrq
modprobe virtio_blk && modprobe ext4 || { bad setup "modprobe virtio_blk ext4 failed"; finish; }
mount /dev/vdb /mnt/scratch || { bad setup "cannot mount the ext4 scratch disk"; finish; }
# the controllers a systemd host enables for its children
echo "+memory +cpu +io +pids" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo "check-kernels: guest $(uname -r), cgroup $(stat -fc %T /sys/fs/cgroup), $(nproc) CPU"

# --- the host as a minimal Debian 12: no swap, loop not loaded -------------
[ -e /dev/loop-control ] && bad loop-absent "/dev/loop-control exists before anything loaded loop" || ok loop-absent
check doctor-noswap 0 "$ST" doctor --db "$DB"
has doctor-loop-module /tmp/out.doctor-noswap 'loop is a module not loaded .*modprobe loop'
check status 0 "$ST" status --db "$DB"
has status-kernel /tmp/out.status "$KV"
has status-cgroup-v2 /tmp/out.status 'v2'
check status-json 0 "$ST" status --json --db "$DB"
check sample 0 "$ST" sample --interval 200ms --count 3 --no-cpu --db "$DB"
check sample-record 0 "$ST" sample --interval 200ms --count 3 --no-cpu --record --db "$DB"

# restored NAME: the host is as before a probe: no swaptune cgroup, no loop
# device attached, page-cluster 3, zswap off, the swap as it was (SWAPS)
restored() {
	left=""
	ls -d /sys/fs/cgroup/swaptune-* >/dev/null 2>&1 && left="$left cgroups:$(ls -d /sys/fs/cgroup/swaptune-* | tr '\n' ' ')"
	[ "$(cat /proc/sys/vm/page-cluster)" = 3 ] || left="$left page-cluster=$(cat /proc/sys/vm/page-cluster)"
	[ "$(cat /sys/module/zswap/parameters/enabled)" = N ] || left="$left zswap=$(cat /sys/module/zswap/parameters/enabled)"
	[ "$(tail -n +2 /proc/swaps | awk '{ print $1 }' | tr '\n' ' ')" = "$SWAPS" ] || left="$left swaps:$(tail -n +2 /proc/swaps | awk '{ print $1 }' | tr '\n' ' ')"
	for l in /sys/block/loop*/loop/backing_file; do
		[ -e "$l" ] && left="$left loop:$(cat "$l")"
	done
	if [ -z "$left" ]; then ok "$1"; else bad "$1" "left behind:$left"; fi
}
runs() { sqlite3 "$DB" "select count(*) from runs where kind = '$1'" 2>/dev/null; }
P="--workload anon-seq --arms pc3,pc0 --reps 1 --no-warmup --working-set 32M --memcg-limit 16M
   --min-trial 0 --max-time 0 --allow-short --duration 20s --yes --scratch-dir /mnt/scratch --swap-size 128M"

# --- a verdict from 6.18 with cgroup v1, imported: read here on 6.1 and v2 -
IDB=/tmp/st/imported.db
check import 0 "$ST" import "$TOP/build/kernels/import.json" --db "$IDB"
irun=$(sqlite3 "$IDB" "select id from runs where kind = 'imported' and origin_kind = 'probe' limit 1")
check recommend-imported 0 "$ST" recommend --run "$irun" --db "$IDB"
has recommend-kernel-differs /tmp/out.recommend-imported "^Kernel differs: decided on 6\.18.*cgroup v1, .*; this host runs $KV, cgroup v2.*check it with swaptune verify"
check status-imported 0 "$ST" status --db "$IDB"
has status-kernel-differs /tmp/out.status-imported "^Newest verdict .*decided on 6\.18.*cgroup v1 -> v2.*check it with swaptune verify"

# --- cgroup.h's live path on v2: libcgroup makes the group with memory.max,
# a child joins it, memory.stat is read, the group is removed (the helper
# t0209 runs on the v1 host) -------------------------------------------------
MEMCG=swaptune-kernels-memcg
check memcg-libcgroup 0 "$TOP/build/helpers/memcg-ops" $MEMCG 33554432
has memcg-libcgroup-backend /tmp/out.memcg-libcgroup '^backend libcgroup$'
has memcg-libcgroup-v2 /tmp/out.memcg-libcgroup "^created v2 sys/fs/cgroup/$MEMCG\$"
has memcg-libcgroup-stat /tmp/out.memcg-libcgroup '^stat [1-9]'
has memcg-libcgroup-destroyed /tmp/out.memcg-libcgroup '^destroyed$'
[ -e /sys/fs/cgroup/$MEMCG ] && bad memcg-libcgroup-gone "/sys/fs/cgroup/$MEMCG is left" || ok memcg-libcgroup-gone

# --- probes on a scratch loop swap: the probe loads the loop module --------
SWAPS=""
check probe-max 0 "$ST" probe $P --limit-mode max --db "$DB"
has probe-loads-loop /tmp/out.probe-max 'loading the loop module for a scratch swap \(modprobe loop'
[ -e /dev/loop-control ] && ok loop-loaded || bad loop-loaded "no /dev/loop-control after the probe"
restored probe-max-restored
check probe-high 0 "$ST" probe $P --limit-mode high --db "$DB"
restored probe-high-restored
[ "$(runs probe)" = 2 ] && ok store-probes || bad store-probes "$(runs probe) probe runs stored, want 2"

# --- a swap disk, non-rotational as a real SSD would be --------------------
echo 0 >/sys/block/vda/queue/rotational
mkswap -q /dev/vda >/dev/null && swapon /dev/vda || bad swapon "cannot swap on /dev/vda"
SWAPS="/dev/vda "
check probe-bypass 0 "$ST" probe $P --arms pc3,bypass --db "$DB"
restored probe-bypass-restored
# doctor's behavioural proof that page-cluster moves swap_ra on this kernel
# (counters, not timings: swap_ra with page-cluster 3 against 0)
check doctor-behaviour 0 "$ST" doctor --behaviour --db "$DB"
has doctor-native-bypass /tmp/out.doctor-behaviour '^native-bypass +ok +(native|not in this kernel)'
has doctor-cluster-effect /tmp/out.doctor-behaviour '^cluster-effect +ok +(not needed|page-cluster governs swap readahead here: .*by [0-9]+ with page-cluster=3 and by [0-9]+ with page-cluster=0)'
grep -E '^(native-bypass|cluster-effect) ' /tmp/out.doctor-behaviour | sed 's/^/check-kernels: seen /'
restored doctor-behaviour-restored
check recommend 0 "$ST" recommend --db "$DB"
check recommend-json 0 "$ST" recommend --json --db "$DB"

# --- apply and rollback, by hand and persisted -----------------------------
check apply 0 "$ST" apply page-cluster=1 --yes --db "$DB"
[ "$(cat /proc/sys/vm/page-cluster)" = 1 ] && ok apply-set || bad apply-set "page-cluster $(cat /proc/sys/vm/page-cluster)"
check rollback 0 "$ST" rollback --yes --db "$DB"
[ "$(cat /proc/sys/vm/page-cluster)" = 3 ] && ok rollback-restored || bad rollback-restored "page-cluster $(cat /proc/sys/vm/page-cluster)"
check apply-persist 0 "$ST" apply page-cluster=1 --persist --yes --db "$DB"
wrote=$(grep -rl swaptune /etc/sysctl.d /etc/swaptune 2>/dev/null | tr '\n' ' ')
[ -n "$wrote" ] && ok persist-wrote || bad persist-wrote "no boot-time file names swaptune"
check rollback-persist 0 "$ST" rollback --yes --db "$DB"
still=""
for f in $wrote; do [ -e "$f" ] && grep -q 'page-cluster\|page_cluster' "$f" && still="$still $f"; done
[ -z "$still" ] && ok persist-purged || bad persist-purged "still there:$still"
[ "$(cat /proc/sys/vm/page-cluster)" = 3 ] && ok persist-restored || bad persist-restored "page-cluster $(cat /proc/sys/vm/page-cluster)"

# --- apply --confirm-within left to expire: it undoes itself -------------
check apply-confirm-within 0 "$ST" apply page-cluster=1 --confirm-within 5s --yes --db "$DB"
[ "$(cat /proc/sys/vm/page-cluster)" = 1 ] && ok confirm-within-set || bad confirm-within-set "page-cluster $(cat /proc/sys/vm/page-cluster)"
i=0
while [ $i -lt 60 ] && [ "$(cat /proc/sys/vm/page-cluster)" != 3 ]; do
	sleep 1
	i=$((i + 1))
done
[ "$(cat /proc/sys/vm/page-cluster)" = 3 ] && ok confirm-within-expired ||
	bad confirm-within-expired "page-cluster still $(cat /proc/sys/vm/page-cluster) 60 s after a 5 s --confirm-within"

# --- a switchback on a small service in its own cgroup --------------------
mkdir /sys/fs/cgroup/svc && echo 24M >/sys/fs/cgroup/svc/memory.max
sh -c 'echo $$ >/sys/fs/cgroup/svc/cgroup.procs && exec stress-ng --vm 1 --vm-bytes 40M --vm-keep --timeout 600s' >/dev/null 2>&1 &
svc=$!
sleep 2
check switchback 0 "$ST" switchback --cgroup svc --metric majfault --window 2s --washout 1s --blocks 2 \
	--looks 2 --yes --db "$DB"
restored switchback-restored
[ "$(runs switchback)" = 1 ] && ok store-switchback || bad store-switchback "$(runs switchback) switchback runs stored, want 1"
check apply-for-live 0 "$ST" apply page-cluster=1 --yes --db "$DB"
answer verify-live "$ST" verify --live --cgroup svc --metric majfault --window 2s --washout 1s --blocks 2 \
	--looks 2 --yes --db "$DB"
[ "$(cat /proc/sys/vm/page-cluster)" = 1 ] && ok verify-live-keeps-applied ||
	bad verify-live-keeps-applied "page-cluster $(cat /proc/sys/vm/page-cluster) after verify --live, want the applied 1"
[ "$(runs switchback)" -ge 2 ] && ok store-verify-live || bad store-verify-live "$(runs switchback) switchback runs stored, want 2"
check rollback-after-live 0 "$ST" rollback --yes --db "$DB"
restored verify-live-restored
echo 1 >/sys/fs/cgroup/svc/cgroup.kill
wait $svc 2>/dev/null
sleep 1
rmdir /sys/fs/cgroup/svc 2>/dev/null
swapoff /dev/vda

# --- kill -9 mid-probe, and `swaptune repair` puts it back ----------------
SWAPS=""
"$ST" probe $P --reps 3 --limit-mode max --db "$DB" >/tmp/out.killed 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! ls -d /sys/fs/cgroup/swaptune-* >/dev/null 2>&1; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
[ $i -lt 600 ] && ok kill9-mid-trial || bad kill9-mid-trial "no trial cgroup appeared within 60 s"
check repair 0 "$ST" repair --db "$DB"
restored kill9-repaired

finish
