#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The planner's GGUF weight bytes against published file sizes (issue 17).

For every row of tests/data/plan/gguf-sizes.tsv (a catalog model, a llama.cpp file type,
the published file size and its source) `axl plan MODEL --quant TYPE --json` must give
`memory.weights_bytes` within 1% of the published size. Prints every row's error; with
--report, prints the table and exits 0 whatever the errors (to compare versions).

usage: check_gguf_sizes.py AXL SRC_DIR [--report]
"""
import json
import os
import subprocess
import sys

TOL = 0.01


def main():
    axl, src = sys.argv[1], sys.argv[2]
    report = "--report" in sys.argv[3:]
    sim = os.path.join(src, "tests", "sim", "h100x8-nvswitch.json")
    rows = []
    with open(os.path.join(src, "tests", "data", "plan", "gguf-sizes.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip() or line.startswith("model\t"):
                continue
            model, quant, size, source = line.rstrip("\n").split("\t")
            rows.append((model, quant, int(size), source))
    if len(rows) < 20:
        print("FAIL: only %d recorded sizes" % len(rows))
        return 1
    bad, worst, seen = 0, 0.0, set()
    for model, quant, size, source in rows:
        p = subprocess.run([axl, "--sim", sim, "plan", model, "--quant", quant, "--devices", "nvidia:0", "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("FAIL: %s %s: rc %d: %s" % (model, quant, p.returncode, p.stderr.strip()))
            bad += 1
            continue
        d = json.loads(p.stdout)
        got = d["memory"]["weights_bytes"]
        err = got / size - 1
        worst = max(worst, abs(err))
        seen.add(quant)
        ok = abs(err) <= TOL
        print("%-4s %-14s %-8s published %14d predicted %14d  %+.2f%%" % (
            "ok" if ok else "FAIL", model, quant, size, got, 100 * err))
        if not ok:
            bad += 1
    print("%d sizes, %d file types, worst %.2f%%" % (len(rows), len(seen), 100 * worst))
    if report:
        return 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
