#!/bin/sh
# Only the host-access layer (src/host*.c, include/swaptune/host.h) spells
# "/proc/..." or "/sys/..." in C code, nor their sysroot-relative forms
# "proc/..." and "sys/...", so that --sysroot reaches every kernel file
# (STYLE.md). Message texts build such paths from the HOST_* macros. The
# advisor opens no file at all (checked below): the paths in its fix texts
# are words for the reader, so its relative spellings are let be.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
files="src/*.c include/swaptune/*.h advisor/*.c probes/*.c tui/*.c tui/*.h"
host='^(src/host[a-z-]*\.c|include/swaptune/host\.h)$'
# shellcheck disable=SC2086
stray=$(grep -lE '"/(proc|sys)/' $files 2>/dev/null | grep -vE "$host")
[ -z "$stray" ] || fail "kernel paths spelled outside the host layer: $stray"
# shellcheck disable=SC2086
stray=$(grep -lE '"(proc|sys)/' $files 2>/dev/null | grep -vE "$host" | grep -v '^advisor/')
[ -z "$stray" ] || fail "sysroot-relative kernel paths spelled outside the host layer: $stray"
grep -nE '\b(open|openat|fopen|opendir|fstatat|stat|access|popen)[[:space:]]*\(' advisor/*.c &&
	fail "the advisor opens files: it must take plain structs (DESIGN.md)"
# and the host layer's own paths are sysroot-relative (no leading slash)
grep -nE '^#define HOST_[A-Z_]+[[:space:]]+"/' include/swaptune/host.h &&
	fail "a HOST_* path starts with /: it would escape --sysroot"
done_testing
