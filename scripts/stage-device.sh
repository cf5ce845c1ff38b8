#!/usr/bin/env bash
# Copies the built executables into .dev/ (git-ignored) so the device tool can carry them to
# the GPU host, which has the driver but no toolkit and no Debian packages. The default fat
# build makes a 62 MB memscope: for staging, build for the lent GPU alone
# (MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 scripts/setup.sh) and, past 64 MiB, carry
# a gzip of .dev (tar czf .devz/bundle.tgz .dev; untar it there).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .dev && mkdir -p .dev
cp build/src/memscope build/tests/memscope_gpu_tests build/tests/memscope_cli_tests build/tests/memscope_host_tests build/tests/memscope_rdc_tests .dev/
for f in .dev/*; do
  # Anything beyond libc/libstdc++/libm/libgcc would not load on the GPU host.
  if ldd "$f" | grep -vE 'linux-vdso|libstdc\+\+|libm\.so|libgcc_s|libc\.so|ld-linux' | grep -q '=>'; then
    echo "stage-device: $f needs a shared library the GPU host lacks:" >&2; ldd "$f" >&2; exit 1
  fi
done
du -sh .dev
