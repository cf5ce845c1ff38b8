#!/usr/bin/env bash
# The host tests and the results fuzzer under AddressSanitizer and UndefinedBehaviorSanitizer,
# in their own build directory (build-sanitize). Run after scripts/setup.sh; CI runs it after
# the README's test command. MEMSCOPE_FUZZ_RUNS sets the fuzzer's mutants (default here 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMSCOPE_SANITIZE=ON ${MEMSCOPE_CMAKE_ARGS:-} \
  -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null  # host tests run no GPU code: one architecture is enough
cmake --build build-sanitize -j "$(nproc)" --target memscope_host_tests
# protect_shadow_gap=0: the CUDA runtime linked into the tests maps memory where ASan's gap would be.
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export MEMSCOPE_FUZZ_RUNS=${MEMSCOPE_FUZZ_RUNS:-20000}
start=$(date +%s)
build-sanitize/tests/memscope_host_tests --gtest_brief=1
echo "sanitized host tests and fuzzer: passed in $(( $(date +%s) - start )) s (ASan + UBSan, $MEMSCOPE_FUZZ_RUNS mutants)"
