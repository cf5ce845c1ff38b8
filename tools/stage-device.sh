#!/usr/bin/env bash
# Stages what a GPU host with the driver but no toolkit and no Debian packages needs, for
# tools/device-check.sh: the executables (stripped) in .dev/, the data sets (scripts/data.sh)
# in .dev/data, Jellyfish and KMC with the shared libraries they need in .dev/bin and .dev/lib,
# CUPTI and its metric libraries in .dev/cupti,
# and all of it compressed into .devz/bundle.txz, the one path to carry (the device tool carries
# 64 MiB at most, the working tree included). Build for that GPU alone (scripts/setup.sh on a
# machine without a GPU builds for Hopper), and name the architecture
# (MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 scripts/setup.sh): without a GPU the
# default builds the GPU tests as PTX only, which this refuses to stage.
# Usage: tools/stage-device.sh [--lean]   (--lean: memscope, the GPU tests and the examples only)
set -euo pipefail
cd "$(dirname "$0")/.."
lean=0
case "${1:-}" in
  --lean) lean=1 ;;
  "") ;;
  *) sed -n '2,10p' "$0" >&2; exit 2 ;;
esac
if grep -q '^MEMSCOPE_GPU_TEST_ARCHITECTURES:STRING=.*virtual' build/CMakeCache.txt 2>/dev/null; then
  echo "stage-device: the GPU tests were built as PTX only; rebuild with" \
    "MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 scripts/setup.sh" >&2
  exit 1
fi
rm -rf .dev .devz && mkdir -p .dev .devz
exes=(build/src/memscope build/tests/memscope_gpu_tests build/examples/memscope-*)
[ $lean -eq 1 ] || exes+=(build/tests/memscope_cli_tests build/tests/memscope_host_tests build/tests/memscope_rdc_tests)
for f in "${exes[@]}"; do
  [ -x "$f" ] || { echo "stage-device: $f is missing; build first (scripts/setup.sh)" >&2; exit 1; }
  strip -o ".dev/$(basename "$f")" "$f"
done
# Anything beyond libc/libstdc++/libm/libgcc would not load on the GPU host.
system_lib='linux-vdso|libstdc\+\+|libm\.so|libgcc_s|libc\.so|ld-linux'
for f in .dev/*; do
  if ldd "$f" | grep -vE "$system_lib" | grep -q '=>'; then
    echo "stage-device: $f needs a shared library the GPU host lacks:" >&2; ldd "$f" >&2; exit 1
  fi
done
data=${MEMSCOPE_DATA:-data}
if [ -d "$data" ]; then cp -r "$data" .dev/data; else echo "stage-device: no $data (scripts/data.sh): staged without data"; fi
# The reference counters, with every library of theirs the driver-only host may lack.
for tool in jellyfish kmc kmc_dump; do
  path=$(command -v "$tool" || true)
  [ -n "$path" ] || { echo "stage-device: $tool is not installed: staged without it"; continue; }
  mkdir -p .dev/bin .dev/lib
  cp "$path" .dev/bin/
  ldd "$path" | awk -v sys="$system_lib" '$0 !~ sys && /=> \//{print $3}' | xargs -r cp -Lt .dev/lib
done
# CUPTI and its metric libraries (memscope counters, run --counters), found by
# tools/device-check.sh through MEMSCOPE_CUPTI_DIR.
cupti=${CUPTI_DIR:-/usr/local/cuda/lib64}
if [ -e "$cupti/libcupti.so.13" ] && [ -e "$cupti/libnvperf_host.so" ]; then
  mkdir -p .dev/cupti
  cp -L "$cupti/libcupti.so.13" "$cupti/libnvperf_host.so" "$cupti/libnvperf_target.so" .dev/cupti/
else
  echo "stage-device: no CUPTI in $cupti (CUPTI_DIR): staged without it"
fi
XZ_OPT='-9 -T0' tar cJf .devz/bundle.txz .dev
bundle=$(stat -c %s .devz/bundle.txz)
tree=$(git ls-files -z | xargs -0 du -cb | tail -n 1 | cut -f 1)
echo "stage-device: .devz/bundle.txz $((bundle >> 20)) MiB, the working tree $((tree >> 20)) MiB"
if [ $((bundle + tree)) -gt $((64 << 20)) ]; then
  echo "stage-device: more than the 64 MiB the device tool carries; try --lean" >&2
  exit 1
fi
echo "carry [\".devz\"] and run: tools/device-check.sh [SUITE...]"
