#!/bin/sh
# check-kernels.sh - `make check-kernels`: boots Debian 12's 6.1 kernel under
# qemu-system-x86_64 TCG (no KVM) with this host's userspace shared read-only
# over virtio-9p (multidevs=remap) under a tmpfs overlay, a virtio swap disk
# and an ext4 scratch disk, and runs tests/kernels/guest.sh inside on cgroup v2.
# The kernel package is fetched once with apt-get download and unpacked with
# dpkg -x under build/kernels/ (never installed, never into /boot). Touches
# nothing of the host but build/kernels/. One summary line: N passed, N failed.
# Exit 0 all passed, 1 a failure, 77 skipped (no qemu, no package).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
C=$TOP/build/kernels
T=${SWAPTUNE_KERNELS_TIMEOUT:-900}
mkdir -p "$C"
skip() { echo "check-kernels: skipped: $*"; echo "0 passed, 0 failed"; exit 77; }

command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (make deps installs qemu-system-x86)"
[ -x "$TOP/swaptune" ] || { echo "check-kernels: build first (make)"; echo "0 passed, 1 failed"; exit 1; }

deb=$(ls "$C"/linux-image-6.1.0-*-amd64_*.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null |
		awk '{ print $1 }' | sort -t- -k4,4n | tail -1)
	[ -n "$pkg" ] || skip "no linux-image-6.1.0-*-amd64 package known to apt (Debian 12 sources)"
	(cd "$C" && apt-get download "$pkg" >/dev/null 2>&1) || skip "apt-get download $pkg failed"
	deb=$(ls "$C"/linux-image-6.1.0-*-amd64_*.deb | tail -1)
fi
KV=$(basename "$deb" | sed 's/^linux-image-\([^_]*\)_.*/\1/')
R=$C/root
if [ ! -f "$R/lib/modules/$KV/modules.dep" ]; then
	rm -rf "$R" && dpkg -x "$deb" "$R" && depmod -b "$R" "$KV" ||
		{ echo "check-kernels: cannot unpack $deb"; echo "0 passed, 1 failed"; exit 1; }
fi

# the initramfs: a static /init and the modules 9p and overlay need, in load order
I=$C/initramfs
rm -rf "$I" && mkdir -p "$I"
gcc -static -O2 -o "$I/init" "$TOP/tests/kernels/init.c" ||
	{ echo "check-kernels: cannot build the guest's init"; echo "0 passed, 1 failed"; exit 1; }
: >"$I/modules.list"
for m in virtio_pci 9pnet_virtio 9p overlay; do
	modprobe -d "$R" -S "$KV" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	cp "$ko" "$I/" && echo "/$(basename "$ko")" >>"$I/modules.list"
done
(cd "$I" && python3 - <<'PY') | gzip -1 >"$C/initrd.gz"
import os, sys
out = sys.stdout.buffer
def entry(name, mode, data=b""):
    hdr = "070701" + "".join("%08x" % v for v in (0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0))
    out.write(hdr.encode() + name.encode() + b"\0")
    out.write(b"\0" * ((4 - (110 + len(name) + 1) % 4) % 4))
    out.write(data)
    out.write(b"\0" * ((4 - len(data) % 4) % 4))
for f in sorted(os.listdir(".")):
    entry(f, 0o100755 if f == "init" else 0o100644, open(f, "rb").read())
entry("TRAILER!!!", 0)
PY

# disks: swap (the guest writes queue/rotational 0 before swapon) and ext4 scratch
rm -f "$C/swap.img" "$C/scratch.img"
truncate -s 512M "$C/swap.img" && truncate -s 1G "$C/scratch.img" &&
	mkfs.ext4 -q -F "$C/scratch.img" ||
	{ echo "check-kernels: cannot make the disks"; echo "0 passed, 1 failed"; exit 1; }

# a verdict decided on 6.18 with cgroup v1 (the vm-v1 fixture's fingerprint on
# the fleet fixture's probe runs), exported for the guest to import
v1=$C/v1
rm -rf "$v1" "$C/v1.db" && mkdir -p "$v1" && cp -a "$TOP/tests/fixtures/vm-v1/." "$v1/" &&
	mkdir -p "$v1/etc" "$v1/proc/sys/kernel/random" &&
	echo 0123456789abcdef0123456789abcdef >"$v1/etc/machine-id" &&
	echo 0b0e1d00-0000-4000-8000-000000000001 >"$v1/proc/sys/kernel/random/boot_id" &&
	"$TOP/swaptune" --db "$C/v1.db" --sysroot "$v1" sample --record --count 1 --interval 0.1 >/dev/null 2>&1 &&
	"$TOP/swaptune" --db "$C/v1.db" --sysroot "$v1" export -o "$C/v1.json" 2>/dev/null &&
	python3 - "$TOP/tests/fixtures/fleet/host-01.json" "$C/v1.json" "$C/import.json" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
fp = json.load(open(sys.argv[2]))["runs"][0]["kernel_fingerprint"]
for r in doc["runs"]:
    r["kernel_fingerprint"] = fp
json.dump(doc, open(sys.argv[3], "w"))
PY
	{ echo "check-kernels: cannot make the 6.18/v1 export"; echo "0 passed, 1 failed"; exit 1; }

log=$C/console.log
start=$(date +%s)
timeout "$T" nice -n 10 qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp 1 -m 1536 \
	-nographic -no-reboot -monitor none -serial stdio \
	-kernel "$R/boot/vmlinuz-$KV" -initrd "$C/initrd.gz" \
	-append "console=ttyS0 loglevel=4 psi=1 panic=-1 swaptune_guest=$TOP/tests/kernels/guest.sh swaptune_top=$TOP swaptune_kv=$KV" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-drive file="$C/swap.img",if=virtio,format=raw \
	-drive file="$C/scratch.img",if=virtio,format=raw \
	</dev/null >"$log" 2>&1
qrc=$?
tr -d '\r' <"$log" | grep '^check-kernels: ' >"$C/results.txt"
grep -v '^check-kernels: ok ' "$C/results.txt"
passed=$(grep -c '^check-kernels: ok ' "$C/results.txt")
failed=$(grep -c '^check-kernels: FAIL ' "$C/results.txt")
if ! grep -q '^check-kernels: done' "$C/results.txt"; then
	echo "check-kernels: the guest did not finish (qemu exit $qrc after $(($(date +%s) - start)) s; console: $log)"
	tr -d '\r' <"$log" | tail -15
	failed=$((failed + 1))
fi
echo "check-kernels: $KV, $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
