#!/bin/sh
# Fuzzing in the suite: builds the libFuzzer targets of tests/fuzz/ with
# clang (ASan+UBSan) and runs each for FUZZ_SECONDS (10 in CI: the suite must end within 30 minutes), after its
# saved regression inputs. `make fuzz` is the long run.
. "$TOP/tests/lib.sh"
command -v clang >/dev/null 2>&1 || skip "clang is not installed (make deps installs it)"
rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
[ -f "$rt" ] || ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
	skip "libFuzzer runtime missing (Debian libclang-rt-14-dev; make deps installs it)"
cd "$TOP" || exit 1
make --no-print-directory fuzz-build >"$scratch/build.log" 2>&1 || { tail -30 "$scratch/build.log"; fail "fuzz build failed"; done_testing; }
FUZZ_SECONDS=${FUZZ_SECONDS:-10} sh tests/fuzz/run.sh || fail "a fuzz target crashed"
done_testing
