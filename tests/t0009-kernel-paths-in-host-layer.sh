#!/bin/sh
# Only the host-access layer (src/host.c, include/swaptune/host.h) spells
# "/proc/..." or "/sys/..." in C code, so that --sysroot reaches every kernel
# file (STYLE.md). Message texts build such paths from the HOST_* macros.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
stray=$(grep -lE '"/(proc|sys)/' src/*.c include/swaptune/*.h advisor/*.c probes/*.c tui/*.c tui/*.h 2>/dev/null |
	grep -vE '^(src/host\.c|include/swaptune/host\.h)$')
[ -z "$stray" ] || fail "kernel paths spelled outside the host layer: $stray"
# and the host layer's own paths are sysroot-relative (no leading slash)
grep -nE '^#define HOST_[A-Z_]+[[:space:]]+"/' include/swaptune/host.h &&
	fail "a HOST_* path starts with /: it would escape --sysroot"
done_testing
