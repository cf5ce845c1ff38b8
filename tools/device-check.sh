#!/usr/bin/env bash
# Runs on the GPU host (through the device tool) from the repository root, with .devz carried
# (tools/stage-device.sh): the GPU tests (each test's time recorded, the slowest named), the
# host, RDC and CLI tests where staged, memscope-kmer-count against Jellyfish where both and the
# data are staged, then `memscope verify` and `memscope run` of the suites named in $@ (default:
# bandwidth). Every step is bounded by what is left of LIMIT_S (default 540): a step that would
# start with less than 30 s left is skipped and says so. Everything written lands in $OUT/out.tgz,
# packed after each step, so a run cut short still returns what it measured. Exit 0 only when
# every step ran and passed.
# Usage: tools/device-check.sh [SUITE...]   (MEMSCOPE_RUN_ARGS adds flags to the run; LIMIT_S)
set -uo pipefail
out=${OUT:-/tmp/memscope-out}
log=$out/check
mkdir -p "$log"
trap 'tar czf "$out/out.tgz" -C "$out" check' EXIT
t0=$(date +%s)
limit=${LIMIT_S:-540}
left() { echo $((limit - ($(date +%s) - t0))); }
[ -d .dev ] || tar xJf .devz/bundle.txz || { echo "device-check: no .dev and no .devz/bundle.txz" >&2; exit 1; }
export MEMSCOPE_EXE=$PWD/.dev/memscope LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
[ -d .dev/data ] && export MEMSCOPE_DATA=$PWD/.dev/data
[ -d .dev/cupti ] && export MEMSCOPE_CUPTI_DIR=$PWD/.dev/cupti
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(bandwidth)
status=0
# step NAME SECONDS CMD...: CMD bounded by SECONDS and by what is left; its output in NAME.txt.
step() {
  local name=$1 want=$2
  shift 2
  local room=$(($(left) - 5))
  if [ "$room" -lt 30 ]; then
    echo "$name: skipped, $((room + 5)) s of LIMIT_S left"
    status=1  # not everything was checked
    : > "$log/$name.txt"
    return
  fi
  [ "$want" -lt "$room" ] || want=$room
  local s
  s=$(date +%s%N)
  timeout "$want" "$@" > "$log/$name.txt" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1  # 77: the step skipped itself, saying why
  echo "$name: exit $rc in $((($(date +%s%N) - s) / 1000000)) ms$([ $rc -eq 124 ] && echo " (cut at $want s)")"
  tar czf "$out/out.tgz" -C "$out" check
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$log/gpu.txt"
.dev/memscope --version
step gpu_tests 240 .dev/memscope_gpu_tests --gtest_print_time=1
grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$log/gpu_tests.txt"
echo "slowest GPU tests:"
grep -E '^\[ +OK +\].*\([0-9]+ ms\)$' "$log/gpu_tests.txt" | sed -E 's/.*\] (.*) \(([0-9]+) ms\)$/\2 ms \1/' |
  sort -rn | head -n 5
for t in memscope_host_tests memscope_rdc_tests memscope_cli_tests; do
  [ -x .dev/$t ] || continue
  step "$t" 120 .dev/$t --gtest_brief=1
  echo "  $(grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$log/$t.txt" | tr '\n' ' ')"
done
if [ -x .dev/memscope-kmer-count ] && [ -d .dev/data ]; then
  step kmer_vs_jellyfish 120 tests/scripts/kmer_count_vs_jellyfish.sh .dev/memscope-kmer-count .dev/data
  cat "$log/kmer_vs_jellyfish.txt"
fi
step verify 120 .dev/memscope verify "${suites[@]}"
echo "verify: $(tail -n 1 "$log/verify.txt")"
# shellcheck disable=SC2086  # MEMSCOPE_RUN_ARGS is a list of flags
step run 600 .dev/memscope run "${suites[@]}" --json "$log/run.json" --markdown "$log/run.md" ${MEMSCOPE_RUN_ARGS:-}
grep -A 30 '^findings' "$log/run.txt"
tail -n 4 "$log/run.txt"
exit $status
