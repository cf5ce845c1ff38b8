#!/usr/bin/env python3
"""The rounds of tools/device-ab.sh side by side: for every point of every program, each
build's median time (the mean over rounds of each run's median) and its ratio to the first
build, with the ratio's range over rounds (a change smaller than that range is noise).

Usage: tools/ab-table.py DIR [NAME...]   (DIR holds NAME-BUILD-ROUND.json[.gz])
       --builds c,d   the builds and their order (default: as found, sorted; the first is the base)
"""
import argparse
import gzip
import json
import pathlib
import re
import statistics
import sys


def load(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--builds")
    a = ap.parse_args()
    pattern = re.compile(r"^(?P<name>.+)-(?P<build>[^-]+)-(?P<round>\d+)\.json(\.gz)?$")
    # times[name][point][build][round] = median seconds
    times = {}
    for path in sorted(pathlib.Path(a.dir).iterdir()):
        m = pattern.match(path.name)
        if not m or (a.names and m["name"] not in a.names):
            continue
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            print(f"ab-table: skipping {path.name}: {e}", file=sys.stderr)
            continue
        for row in doc.get("results", []):
            median = row.get("samples", {}).get("median_s")
            if row.get("status") != "ok" or not median:
                continue
            point = f"{row.get('suite', '')}/{row.get('case', '')} {row.get('axes_label', '')}"
            times.setdefault(m["name"], {}).setdefault(point, {}).setdefault(m["build"], {})[int(m["round"])] = median
    if not times:
        sys.exit(f"ab-table: no NAME-BUILD-ROUND.json files with timed rows in {a.dir}")
    found = sorted({b for points in times.values() for builds in points.values() for b in builds})
    builds = a.builds.split(",") if a.builds else found
    base = builds[0]
    for name, points in times.items():
        print(f"== {name}: microseconds (mean of the rounds' medians); ratio to {base} (range over rounds)")
        width = max(len(p) for p in points)
        for point, per_build in points.items():
            cells = []
            for b in builds:
                rounds = per_build.get(b, {})
                if not rounds:
                    cells.append(f"{b} -")
                    continue
                cell = f"{b} {statistics.mean(rounds.values()) * 1e6:9.2f}"
                base_rounds = per_build.get(base, {})
                if b != base and base_rounds:
                    common = [r for r in rounds if r in base_rounds]
                    ratio = statistics.mean(rounds.values()) / statistics.mean(base_rounds.values())
                    cell += f" {ratio:.3f}x"
                    if common:
                        each = [rounds[r] / base_rounds[r] for r in common]
                        cell += f" ({min(each):.3f}-{max(each):.3f})"
                cells.append(cell)
            print(f"  {point:{width}s}  " + "   ".join(cells))


if __name__ == "__main__":
    main()
