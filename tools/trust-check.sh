#!/usr/bin/env bash
# Evidence for the trust features, on the GPU host with .dev carried (tools/stage-device.sh):
#   fault  - a test-only case kills the CUDA context; the journal keeps the rows; --resume ends the run
#   ncu    - an NVTX range selects one case's launch in Nsight Compute (--run-once)
#   pair   - two back-to-back runs of the same binary, compared (no verdict may appear)
#   full   - `memscope run '*'` with the default stopping rule; strict: the same with a strict rule
# Usage: tools/trust-check.sh STEP...   Files go to $OUT.
set -uo pipefail
out=${OUT:-/tmp/memscope-out}
mkdir -p "$out"
m=$PWD/.dev/memscope
for step in "$@"; do
  echo "== $step ($(date -u +%H:%M:%S))"
  case $step in
    fault)
      MEMSCOPE_SELFTEST=1 $m run selftest --json "$out/fault/run.json" > "$out/fault-first.txt" 2>&1
      echo "first process exit $?"; cp "$out/fault/run.json.journal" "$out/fault-journal-after-fault.jsonl"
      MEMSCOPE_SELFTEST=1 $m run --resume "$out/fault/run.json.journal" > "$out/fault-resume.txt" 2>&1
      echo "resumed process exit $?"; tail -n 3 "$out/fault-first.txt" "$out/fault-resume.txt" ;;
    ncu)
      command -v ncu >/dev/null || { echo "no ncu"; continue; }
      # Which spelling of an NVTX range with '/' and spaces in its name ncu accepts.
      i=0
      for f in "bandwidth/copy kernel=oneshot type=f32 bytes=2^24/" "regex:bandwidth.copy kernel=oneshot type=f32 bytes=2.24/" \
               "regex:copy kernel=oneshot type=f32 bytes/" "regex:.*oneshot type=f32 .*/"; do
        i=$((i+1))
        ncu --clock-control none --nvtx --nvtx-include "$f" $m run bandwidth/copy --axis bytes=2^24 --axis type=f32 \
          --axis kernel=oneshot,grid_stride --run-once --quiet > "$out/ncu-$i.txt" 2>&1
        echo "ncu filter '$f': exit $?, $(grep -c '^  [a-z_:<>0-9]*kernel' "$out/ncu-$i.txt") kernel(s): $(grep -oE '^  [A-Za-z_:<>0-9, ]+\(' "$out/ncu-$i.txt" | tr '\n' ' ')"
      done ;;
    pair)
      for r in a b; do
        /usr/bin/time -f "run $r: %e s" $m run bandwidth reduce stencil --quiet --json "$out/pair-$r.json" > "$out/pair-$r.txt" 2>&1
        tail -n 6 "$out/pair-$r.txt"
      done
      $m compare "$out/pair-a.json" "$out/pair-b.json" > "$out/pair-compare.txt" 2>&1; tail -n 3 "$out/pair-compare.txt"
      grep -E " (faster|slower)" "$out/pair-compare.txt" | head -30 ;;
    full)
      /usr/bin/time -f "wall %e s" $m run '*' --json "$out/full-default.json" > "$out/full-default.txt" 2> "$out/full-default.err"
      tail -n 8 "$out/full-default.txt"; tail -n 2 "$out/full-default.err" ;;
    strict)
      /usr/bin/time -f "wall %e s" $m run '*' --max-noise 0.1 --min-samples 30 --min-time 0.05 --timeout 2 \
        --json "$out/full-strict.json" > "$out/full-strict.txt" 2> "$out/full-strict.err"
      tail -n 8 "$out/full-strict.txt"; tail -n 2 "$out/full-strict.err" ;;
    pack)
      (cd "$out" && tar czf ../trust-evidence.tgz --exclude='*.tgz' . && mv ../trust-evidence.tgz .) ;;
    tests)
      export MEMSCOPE_EXE=$m
      for t in memscope_gpu_tests memscope_cli_tests memscope_host_tests memscope_rdc_tests; do
        .dev/$t --gtest_brief=1 > "$out/$t.txt" 2>&1; echo "$t exit $?: $(grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\]' "$out/$t.txt" | tr '\n' ' ')"
      done ;;
  esac
done
