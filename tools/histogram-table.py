#!/usr/bin/env python3
"""Prints histogram/even as a strategy x bins table of ratios to CUB (one per distribution).
Usage: tools/histogram-table.py RUN.json"""
import json, sys
from collections import defaultdict

doc = json.load(open(sys.argv[1]))
table = defaultdict(dict)
for r in doc["results"]:
    if r.get("suite") != "histogram" or r.get("case") != "even":
        continue
    ax = r["axes"]
    ratio = r.get("metrics", {}).get("speedup_vs_cub")
    med = r.get("samples", {}).get("median_s")
    table[(ax["distribution"], ax["bins"])][ax["strategy"]] = (ratio, med)
strategies = ["auto", "global_atomics", "block_smem", "cluster2", "cluster4", "cluster8", "cluster16", "split2", "split4", "split8", "cub"]
print("%-8s %8s " % ("dist", "bins") + " ".join("%9s" % s[:9] for s in strategies) + "   cub_us")
for key in sorted(table):
    row = table[key]
    cells = []
    for s in strategies:
        v = row.get(s, (None, None))[0]
        cells.append("%9.2f" % v if v else "%9s" % "-")
    cub = row.get("cub", (None, None))[1]
    print("%-8s %8d " % key + " ".join(cells) + "   %.1f" % (cub * 1e6 if cub else 0))
