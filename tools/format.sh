#!/usr/bin/env bash
# Formats every C++ and CUDA file git tracks with .clang-format, or with --check lists the files
# it would change and exits 1 (ctest's FormatCheck). Needs clang-format (scripts/setup.sh
# installs Debian's).
# Usage: tools/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format || true)
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "format: not a git checkout"; exit 77; }
if [ -z "$format" ]; then echo "format: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 77; fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.cu' '*.cuh')
case "${1:-}" in
  "") "$format" -i "${files[@]}" ;;
  --check)
    # One clang-format for every file: it names each file it would change in its warnings.
    if ! out=$("$format" --dry-run --Werror "${files[@]}" 2>&1); then
      grep -oE '^[^:]+\.(cpp|hpp|cu|cuh):' <<<"$out" | sort -u | sed 's/:$//; s/^/not formatted: /'
      echo "format: run tools/format.sh" >&2
      exit 1
    fi
    echo "format: ${#files[@]} files formatted"
    ;;
  *) echo "usage: tools/format.sh [--check]" >&2; exit 2 ;;
esac
