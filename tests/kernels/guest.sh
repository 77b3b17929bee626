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
# has NAME FILE PATTERN: FILE holds a line matching PATTERN (grep -E)
has() {
	if grep -Eq "$3" "$2"; then ok "$1"; else bad "$1" "no '$3' in $(basename "$2"): $(head -c 300 "$2" | tr '\n' ' ')"; fi
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

finish
