#!/usr/bin/env bash
# Renders a memscope report in headless Chromium (Debian's package, installed by scripts/setup.sh)
# and checks what a person would see: the page loads without console errors and its charts
# are there. Usage: render_in_chromium.sh MEMSCOPE_EXE OUTDIR   (run from the repository root)
set -uo pipefail
exe=$1
out=$2
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"; exit 77; fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
html=$out/report.html
# The bundled H200 profile; without one, the same profile read from the tree.
if ! "$exe" report -o "$html" 2>/dev/null; then
  "$exe" report results/h200/profile.json.gz -o "$html" || exit 1
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$out/profile" --enable-logging=stderr --v=0)
rm -rf "$out/profile"
timeout 90 "$chromium" "${flags[@]}" --dump-dom "file://$html" > "$out/dom.html" 2> "$out/console.txt"
charts=$(grep -o 'data-charts="[0-9]*"' "$out/dom.html" | grep -o '[0-9]*' || true)
svgs=$(grep -o '<svg class="chart"' "$html" | wc -l)
echo "charts counted by the page's own script: ${charts:-none}; in the file: $svgs"
if [ -z "$charts" ]; then echo "FAIL: the page's script did not run (no data-charts attribute)"; exit 1; fi
if [ "$charts" -lt 8 ] || [ "$charts" -ne "$svgs" ]; then echo "FAIL: expected at least 8 charts, all rendered"; exit 1; fi
if grep -E 'Uncaught|CONSOLE\(.*(error|Error)' "$out/console.txt"; then echo "FAIL: console errors"; exit 1; fi
rm -rf "$out/profile"
timeout 90 "$chromium" "${flags[@]}" --window-size=1300,2400 --screenshot="$out/report.png" "file://$html" 2>/dev/null
[ -s "$out/report.png" ] || { echo "FAIL: no screenshot"; exit 1; }
echo "report renders: $charts charts, no console errors; screenshot $out/report.png"
