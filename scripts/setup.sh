#!/usr/bin/env bash
# Installs what memscope needs (Debian packages), then configures and builds it in ./build.
# Usage: scripts/setup.sh [--portable]
# Idempotent: a second run only rebuilds what changed. Needs the CUDA toolkit (nvcc) installed.
set -euo pipefail
cd "$(dirname "$0")/.."
portable=0
for arg in "$@"; do
  case "$arg" in
    --portable) portable=1 ;;
    -h|--help) echo "usage: scripts/setup.sh [--portable]   (MEMSCOPE_CMAKE_ARGS adds CMake options)"; exit 0 ;;
    *) echo "setup: unknown argument '$arg' (usage: scripts/setup.sh [--portable])" >&2; exit 2 ;;
  esac
done

# chromium: the report test renders the HTML report headless. python3 and zstd: the test of
# tools/kernel-diff.py, which reads nvcc's zstd-compressed fatbins. clang-format: the format
# check (Debian's version; another version may format differently). jellyfish, kmc,
# velvet-example, bowtie2-examples and xz-utils: the k-mer reference is checked against
# Jellyfish's and KMC's counts of real reads.
packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev zlib1g-dev chromium python3 zstd
          clang-format git jellyfish kmc velvet-example bowtie2-examples xz-utils)
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

# Which GPUs to compile for, unless the caller names architectures in MEMSCOPE_CMAKE_ARGS:
# - default: the GPUs of this machine (CMake's "native"), or Hopper (sm_90 machine code and PTX)
#   where no GPU answers nvidia-smi, such as a build machine; there the GPU tests, which cannot
#   run, are built as PTX only (the front end checks them; ptxas's half of their build is left
#   out). Name the architectures to build test binaries for a GPU host elsewhere.
# - --portable: the fat binary packagers ship (-DMEMSCOPE_PORTABLE=ON: machine code for Turing to
#   both Blackwells, PTX for later GPUs), about seven times the compilation.
archs=(-DMEMSCOPE_GPU_TEST_ARCHITECTURES=)
case "${MEMSCOPE_CMAKE_ARGS:-}" in
  *CMAKE_CUDA_ARCHITECTURES*) ;;
  *)
    if ((portable)); then
      archs+=(-U CMAKE_CUDA_ARCHITECTURES -DMEMSCOPE_PORTABLE=ON)
    elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
      archs+=(-DMEMSCOPE_PORTABLE=OFF -DCMAKE_CUDA_ARCHITECTURES=native)
    else
      archs=(-DMEMSCOPE_PORTABLE=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMSCOPE_GPU_TEST_ARCHITECTURES=90-virtual)
    fi
    ;;
esac
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${archs[@]}" ${MEMSCOPE_CMAKE_ARGS:-}
cmake --build build -j "$(nproc)"

# The real data sets the suites read (reads, genomes), from Debian packages into ./data.
scripts/data.sh
