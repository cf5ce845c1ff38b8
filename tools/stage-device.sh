#!/usr/bin/env bash
# Copies the built executables into .dev/ (git-ignored) so that they can be carried to a GPU
# host that has the driver but no toolkit and no Debian packages. Build for that GPU alone
# (scripts/setup.sh on a machine without a GPU builds for Hopper), and past the carrier's size
# limit carry a compressed bundle (tar cJf .devz/bundle.txz .dev; untar it there). Name the
# architecture (MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 scripts/setup.sh): without a GPU
# the default builds the GPU tests as PTX only, which this refuses to stage.
# Usage: tools/stage-device.sh   (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if grep -q '^MEMSCOPE_GPU_TEST_ARCHITECTURES:STRING=.*virtual' build/CMakeCache.txt 2>/dev/null; then
  echo "stage-device: the GPU tests were built as PTX only; rebuild with" \
    "MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 scripts/setup.sh" >&2
  exit 1
fi
rm -rf .dev && mkdir -p .dev
cp build/src/memscope build/tests/memscope_gpu_tests build/tests/memscope_cli_tests build/tests/memscope_host_tests build/tests/memscope_rdc_tests .dev/
for f in .dev/*; do
  # Anything beyond libc/libstdc++/libm/libgcc would not load on the GPU host.
  if ldd "$f" | grep -vE 'linux-vdso|libstdc\+\+|libm\.so|libgcc_s|libc\.so|ld-linux' | grep -q '=>'; then
    echo "stage-device: $f needs a shared library the GPU host lacks:" >&2; ldd "$f" >&2; exit 1
  fi
done
du -sh .dev
