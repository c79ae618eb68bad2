#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The test fixtures say what they hold (issue 34 item 6).

  check_provenance.py [--top DIR]

Every folder named `fixtures` under tests/ and the replay goldens (tests/replay/golden)
hold a PROVENANCE.md or README.md that names each of their files (what machine and
driver it describes, and how it was made: a real capture and where from, or written for
the suite); every node spec of tests/trees/nodes carries a non-empty "provenance".
"""
import argparse
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
NOTES = ("PROVENANCE.md", "README.md")


def folders(top):
    tests = os.path.join(top, "tests")
    out = [os.path.join(tests, "replay", "golden")]
    for root, dirs, _ in os.walk(tests):
        dirs.sort()
        out += [os.path.join(root, d) for d in dirs if d == "fixtures"]
    return out


def check(top):
    errors = []
    n = 0
    for d in folders(top):
        rel = os.path.relpath(d, top)
        notes = [os.path.join(d, f) for f in NOTES if os.path.isfile(os.path.join(d, f))]
        if not notes:
            errors.append("%s: no PROVENANCE.md or README.md says what the fixtures hold" % rel)
            continue
        text = "".join(open(p, encoding="utf-8").read() for p in notes)
        for f in sorted(os.listdir(d)):
            if f in NOTES or f.startswith(".") or f == "__pycache__":
                continue
            n += 1
            if f not in text:
                errors.append("%s/%s: not named in %s" % (rel, f, " or ".join(os.path.basename(p) for p in notes)))
    nodes = os.path.join(top, "tests", "trees", "nodes")
    for f in sorted(os.listdir(nodes)) if os.path.isdir(nodes) else []:
        if ".expect." in f or not (f.endswith(".json") or f.endswith(".json.gz")):
            continue
        n += 1
        p = os.path.join(nodes, f)
        with (gzip.open(p, "rt") if f.endswith(".gz") else open(p, encoding="utf-8")) as fh:
            spec = json.load(fh)
        pv = spec.get("provenance") if isinstance(spec, dict) else None
        if not isinstance(pv, str) or not pv.strip():
            errors.append("tests/trees/nodes/%s: no \"provenance\"" % f)
    return errors, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", default=TOP)
    a = ap.parse_args()
    errors, n = check(a.top)
    for e in errors:
        print("FAIL %s" % e)
    print("%d fixture files, %d without provenance" % (n, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
