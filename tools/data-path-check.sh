#!/usr/bin/env bash
# The data-path checks on a GPU host (one GPU or several), from the binaries staged in .dev/
# (tools/stage-device.sh) or the xz bundle in .devz/: the NVLinks NVML reports, the GPU and CLI
# tests, verify of the three data-path suites, the NUMA placement, a --concurrent run, two
# ranks emulating srun (on one GPU their merge must be refused) and memcheck over the
# host-placement code. A staged .dev/zero_copy_try runs too (bulk peer copies over NVLink).
# Usage: tools/data-path-check.sh [OUTDIR]   (default ./ev)
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x .dev/memscope ] || tar xJf .devz/bundle.txz
D=$PWD/.dev
O=${1:-ev}
mkdir -p "$O/ranks" "$O/conc"
step() { echo "== $*" >&2; }
step info;        "$D/memscope" info > "$O/info.txt" 2>&1
step gpu tests;   "$D/memscope_gpu_tests" --gtest_brief=1 > "$O/gpu-tests.txt" 2>&1; tail -3 "$O/gpu-tests.txt" >&2
step cli tests;   MEMSCOPE_EXE="$D/memscope" "$D/memscope_cli_tests" --gtest_brief=1 > "$O/cli-tests.txt" 2>&1; tail -3 "$O/cli-tests.txt" >&2
step verify;      "$D/memscope" verify transfer managed peer > "$O/verify.txt" 2>&1; tail -1 "$O/verify.txt" >&2
step numa;        "$D/memscope" run transfer/numa transfer/copy --axis bytes=2^28 --json "$O/numa.json" > "$O/numa.txt" 2>&1; tail -1 "$O/numa.txt" >&2
step concurrent;  "$D/memscope" run transfer/copy --axis bytes=2^30 --axis memory=pinned --device all --concurrent \
                    --json "$O/conc/run.json" > "$O/concurrent.txt" 2>&1; echo "rc=$?" >> "$O/concurrent.txt"; tail -2 "$O/concurrent.txt" >&2
step ranks
for r in 0 1; do
  SLURM_PROCID=$r SLURM_LOCALID=$r SLURM_NTASKS=2 "$D/memscope" run bandwidth --quick --json "$O/ranks/bw.json" > "$O/ranks/rank$r.txt" 2>&1
  for f in "$O"/ranks/bw.*.json; do mv "$f" "$O/ranks/rank$r.json"; done
done
"$D/memscope" merge "$O/ranks/rank0.json" "$O/ranks/rank1.json" -o "$O/ranks/fleet.json" > "$O/ranks/merge.txt" 2>&1; echo "rc=$?" >> "$O/ranks/merge.txt"
cat "$O/ranks/merge.txt" >&2
step memcheck
compute-sanitizer --tool memcheck --error-exitcode 9 "$D/memscope" verify transfer/numa transfer/copy --axis bytes=1000003 \
  > "$O/memcheck.txt" 2>&1; echo "rc=$?" >> "$O/memcheck.txt"; tail -3 "$O/memcheck.txt" >&2
if [ -x "$D/zero_copy_try" ]; then
  step zero-copy peer; "$D/zero_copy_try" peer > "$O/zero_copy_peer.txt" 2>&1; echo "rc=$?" >> "$O/zero_copy_peer.txt"
  tail -4 "$O/zero_copy_peer.txt" >&2
fi
