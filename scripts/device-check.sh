#!/usr/bin/env bash
# Runs on the GPU host (through the device tool) from the repository root, with .dev carried:
# the GPU tests, the CLI tests, then the suites named in $@ (default: bandwidth), with results
# written under $OUT. Usage: scripts/device-check.sh [SUITE...]
set -uo pipefail
out=${OUT:-/tmp/memscope-out}
mkdir -p "$out"
export MEMSCOPE_EXE=$PWD/.dev/memscope
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(bandwidth)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
status=0
.dev/memscope --version
.dev/memscope info | tee "$out/info.txt"
.dev/memscope info --json > "$out/info.json"
for t in memscope_host_tests memscope_gpu_tests memscope_cli_tests; do
  .dev/$t --gtest_brief=1 2>&1 | tee "$out/$t.txt" | tail -n 3 || status=1
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
.dev/memscope verify "${suites[@]}" --json "$out/verify.json" > "$out/verify.txt" 2>&1 || status=1
tail -n 1 "$out/verify.txt"
.dev/memscope run "${suites[@]}" --json "$out/run.json" --markdown "$out/run.md" ${MEMSCOPE_RUN_ARGS:-} \
  2> "$out/run.stderr" | tee "$out/run.txt" || status=1
exit $status
