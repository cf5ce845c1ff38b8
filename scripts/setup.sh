#!/usr/bin/env bash
# Installs what memscope needs (Debian packages), then configures and builds it in ./build.
# Idempotent: a second run only rebuilds what changed. Needs the CUDA toolkit (nvcc) installed.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: the report test renders the HTML report headless. python3 and zstd: the test of
# scripts/kernel-diff.py, which reads nvcc's zstd-compressed fatbins.
packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev zlib1g-dev chromium python3 zstd)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
command -v nvcc >/dev/null || { echo "setup: nvcc (the CUDA toolkit) is required to build memscope" >&2; exit 1; }

# One binary for every GPU nvcc 13.0 can target, unless the caller picks architectures
# (MEMSCOPE_CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90 for a fast build for one GPU): machine code
# for Turing to Hopper and for both Blackwells (sm_100 runs on sm_103 too, sm_120 on sm_121), so
# no GPU of those spends its first run JIT-compiling hundreds of kernels; Hopper's PTX for the
# rest (sm_110), JIT-compiled by the driver. Volta (70) needs a CUDA 12 toolkit.
all_archs="75-real;80-real;86-real;89-real;90-real;100-real;120-real;90-virtual"
archs=()
case "${MEMSCOPE_CMAKE_ARGS:-}" in
  *CMAKE_CUDA_ARCHITECTURES*) ;;
  *) archs=("-DCMAKE_CUDA_ARCHITECTURES=$all_archs") ;;
esac
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${archs[@]}" ${MEMSCOPE_CMAKE_ARGS:-}
cmake --build build -j "$(nproc)"
