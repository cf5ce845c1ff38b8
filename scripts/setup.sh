#!/usr/bin/env bash
# Installs what memscope needs (Debian packages), then configures and builds it in ./build.
# Idempotent: a second run only rebuilds what changed. Needs the CUDA toolkit (nvcc) installed.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: the report test renders the HTML report headless.
packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev chromium)
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

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${MEMSCOPE_CMAKE_ARGS:-}
cmake --build build -j "$(nproc)"
