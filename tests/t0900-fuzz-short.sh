#!/bin/sh
# Fuzzing in the suite: builds the libFuzzer targets of tests/fuzz/ with
# clang (ASan+UBSan), one compiler job per CPU, and runs each for FUZZ_SECONDS
# (5 in CI: a smoke test, the suite must end well within 30 minutes), after
# its saved regression inputs. `make fuzz` is the long run.
. "$TOP/tests/lib.sh"
command -v clang >/dev/null 2>&1 || skip "clang is not installed (make deps installs it)"
rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
[ -f "$rt" ] || ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
	skip "libFuzzer runtime missing (Debian libclang-rt-14-dev; make deps installs it)"
cd "$TOP" || exit 1
make --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" fuzz-build >"$scratch/build.log" 2>&1 || { tail -30 "$scratch/build.log"; fail "fuzz build failed"; done_testing; }
FUZZ_SECONDS=${FUZZ_SECONDS:-5} sh tests/fuzz/run.sh || fail "a fuzz target crashed"
done_testing
