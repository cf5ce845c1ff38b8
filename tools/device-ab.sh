#!/usr/bin/env bash
# Runs on the GPU host (through the device tool) from the repository root, with .devz carried:
# an A/B of memscope builds, interleaved so that a drift of the board's clocks or temperature
# falls on every build alike. .devz/bundle.txz holds .dev/memscope_<build> executables (build
# them here in one directory, check them with tools/kernel-diff.py, strip them, tar cJf it:
# the device tool carries 64 MiB at most). Each round runs every program with every build in
# turn, in the order given in odd rounds and reversed in even ones, so that no build always
# follows the same one. A run that would start with less than 35 s of LIMIT_S left is skipped
# and says so, and whatever was written is packed into $OUT/out.tgz even when the lease ends
# first. Read the rounds with tools/ab-table.py.
# Usage: tools/device-ab.sh LIMIT_S ROUNDS BUILDS NAME=ARGS...
#   BUILDS  comma-separated suffixes: c,d runs .dev/memscope_c and .dev/memscope_d
#   NAME=ARGS  memscope arguments (the run's --json is added), written to ev/NAME-BUILD-ROUND.*
# Example: tools/device-ab.sh 190 2 c,d \
#   "p1=run histogram/adversarial --axis strategy=auto,cub --axis bins=256 --max-samples 20 --quiet"
set -uo pipefail
[ $# -ge 4 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
limit=$1 rounds=$2 builds=$3
shift 3
[[ $limit =~ ^[0-9]+$ && $rounds =~ ^[1-9][0-9]*$ ]] || { echo "device-ab: LIMIT_S and ROUNDS must be whole numbers" >&2; exit 2; }
t0=$(date +%s)
left() { echo $((limit - ($(date +%s) - t0))); }
out=${OUT:-/tmp/memscope-out}
ev=$out/ev
mkdir -p "$ev"
trap 'gzip -9f "$ev"/*.json 2>/dev/null; tar czf "$out/out.tgz" -C "$out" ev' EXIT
root=$PWD
tar xJf .devz/bundle.txz -C .devz || { echo "device-ab: cannot unpack .devz/bundle.txz" >&2; exit 1; }
IFS=, read -r -a build_list <<< "$builds"
for b in "${build_list[@]}"; do
  [ -x ".devz/.dev/memscope_$b" ] || { echo "device-ab: .devz/.dev/memscope_$b is missing" >&2; exit 1; }
done
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv > "$ev/gpu.txt" 2>&1
cat "$ev/gpu.txt"
reversed=()
for ((i = ${#build_list[@]} - 1; i >= 0; --i)); do reversed+=("${build_list[i]}"); done
status=0
for ((r = 1; r <= rounds; ++r)); do
  order=("${build_list[@]}")
  ((r % 2 == 0)) && order=("${reversed[@]}")
  for program in "$@"; do
    name=${program%%=*} args=${program#*=}
    for b in "${order[@]}"; do
      if [ "$(left)" -le 35 ]; then echo "$name $b $r skipped (time)"; status=1; continue; fi
      s=$(date +%s)
      # shellcheck disable=SC2086  # ARGS is a memscope command line, split on purpose
      timeout $(($(left) - 5)) "$root/.devz/.dev/memscope_$b" $args --json "$ev/$name-$b-$r.json" > "$ev/$name-$b-$r.txt" 2>&1
      rc=$?
      [ $rc -eq 0 ] || status=1
      echo "$name $b $r rc $rc $(($(date +%s) - s)) s"
    done
  done
done
echo "device-ab: $(($(date +%s) - t0)) s"
exit $status
