#!/usr/bin/env bash
# Runs on the GPU host (through the device tool) from the repository root, with .dev carried:
# the host, GPU and CLI tests, then `memscope verify` and `memscope run` of the suites named in
# $@ (default: bandwidth), writing at most 7 files under $OUT.
# Usage: tools/device-check.sh [SUITE...]   (MEMSCOPE_RUN_ARGS adds flags to the run)
set -uo pipefail
out=${OUT:-/tmp/memscope-out}
mkdir -p "$out"
export MEMSCOPE_EXE=$PWD/.dev/memscope
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(bandwidth)
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
.dev/memscope --version
.dev/memscope info > "$out/info.txt" && .dev/memscope info --json > "$out/info.json" || status=1
for t in memscope_host_tests memscope_gpu_tests memscope_rdc_tests memscope_cli_tests; do
  echo "== $t" >> "$out/tests.txt"
  .dev/$t --gtest_brief=1 >> "$out/tests.txt" 2>&1 || status=1
  echo "$t: $(sed -n "/^== $t\$/,\$p" "$out/tests.txt" | grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\]' | tr '\n' ' ')"
done
.dev/memscope verify "${suites[@]}" > "$out/verify.txt" 2>&1 || status=1
echo "verify: $(tail -n 1 "$out/verify.txt")"
.dev/memscope run "${suites[@]}" --json "$out/run.json" --markdown "$out/run.md" ${MEMSCOPE_RUN_ARGS:-} \
  2>&1 | tee "$out/run.txt" || status=1
exit $status
