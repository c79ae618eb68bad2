#!/usr/bin/env python3
"""The Prometheus writer on one synthetic node tree.

Builds the tree with tests/trees/mktree.py, runs test_prom on it (its own C checks,
then it writes the plain, DCGM and process documents), parses each strictly with
promparse.py and runs `promtool check metrics` on each when promtool is installed:
the plain documents must pass with no lint complaint at all; the DCGM one may only draw
the lint complaints that dcgm-exporter's own names draw (camelCase label names such as
modelName, counters without _total) and only for DCGM_* families.

usage: check_prom.py --test-prom BIN --tree SPEC.json --work DIR
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import promparse  # noqa: E402

# what dcgm-exporter's names draw from promtool's linter, by design of compatibility
DCGM_LINT_OK = ("label names should be written in 'snake_case' not 'camelCase'",
                'counter metrics should have "_total" suffix')


def promtool_check(path, dcgm):
    exe = shutil.which("promtool")
    if not exe:
        print("promtool not installed: skipped for %s" % os.path.basename(path))
        return True
    with open(path, "rb") as f:
        r = subprocess.run([exe, "check", "metrics"], stdin=f, capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    if r.returncode == 0 and not out:
        return True
    if dcgm and r.returncode == 3:  # lint problems only
        bad = [l for l in out.splitlines()
               if not (l.startswith("DCGM_FI_") and any(l.endswith(ok) for ok in DCGM_LINT_OK))]
        if not bad:
            return True
        out = "\n".join(bad)
    print("promtool check metrics %s: exit %d\n%s" % (path, r.returncode, out[:4000]))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--test-prom", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    root = os.path.join(a.work, "tree")
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"), a.tree, root], check=True)
    out = os.path.join(a.work, "out")
    r = subprocess.run([a.test_prom, root, out])
    ok = r.returncode == 0
    if not ok:
        print("test_prom failed (exit %d)" % r.returncode)
    for suffix, dcgm in ((".prom", False), (".dcgm.prom", True), (".proc.prom", False)):
        path = out + suffix
        if not os.path.exists(path):
            print("missing %s" % path)
            ok = False
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            fams = promparse.parse(text)
        except promparse.ParseError as e:
            print("%s: %s" % (path, e))
            ok = False
            continue
        up = fams.get("axl_device_up")
        if not up or not up["samples"]:
            print("%s: no axl_device_up" % path)
            ok = False
        for name, f in fams.items():
            if name.startswith("axl_") and f["type"] == "counter" and not name.endswith("_total"):
                print("%s: counter %s without _total" % (path, name))
                ok = False
            if name.endswith("_ratio"):
                for s in f["samples"]:
                    if not 0 <= s[2] <= 1.5:  # a little over 1 can come from rounding of rates
                        print("%s: %s %s = %s is not a ratio" % (path, name, s[1], s[2]))
                        ok = False
        has_values = any(n in fams for n in ("axl_power_watts", "axl_temperature_celsius"))
        if dcgm and has_values and not any(n.startswith("DCGM_FI_DEV_") for n in fams):
            print("%s: no DCGM family" % path)
            ok = False
        print("%s: %d families, %d series" % (os.path.basename(path), len(fams),
                                               sum(len(f["samples"]) for f in fams.values())))
        ok = promtool_check(path, dcgm) and ok
    print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
