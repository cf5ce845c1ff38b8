#!/usr/bin/env bash
# Runs the rows that the timing artefacts touch with two memscope binaries, one after the other
# on the same GPU, writing before-*.json and after-*.json under $OUT (then, anywhere:
# memscope compare before-X.json after-X.json). Used for the figures in docs/how-memscope-measures.md.
# Usage: tools/timing-before-after.sh OLD_MEMSCOPE NEW_MEMSCOPE
set -uo pipefail
old=$1 new=$2
out=${OUT:-/tmp/memscope-out}
mkdir -p "$out"
status=0
sets=(
  "warm|bandwidth/memcpy bandwidth/copy --axis bytes=2^20,2^24,2^28,2^30"
  "stencil|stencil --axis elements=2^20"
  "stride|coalescing/stride --axis stride=16,32,64,128"
  "cold|bandwidth/memcpy bandwidth/copy --cold --axis bytes=2^22,2^24,2^28"
)
for s in "${sets[@]}"; do
  name=${s%%|*} args=${s#*|}
  for side in before after; do
    exe=$old; [ "$side" = after ] && exe=$new
    # shellcheck disable=SC2086
    timeout 240 "$exe" run $args --json "$out/$side-$name.json" > "$out/$side-$name.txt" 2>&1 || status=1
    echo "$side $name: $(tail -n 1 "$out/$side-$name.txt")"
  done
done
exit $status
