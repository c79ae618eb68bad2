#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which real-library checks ran, and which were skipped and why (issue 33 item 7).

For every row of userspace.LIBRARIES (the vendors' real libraries, programs and headers):
whether it is installed here (and the package's version), then each check that needs it
(the row's pattern of CTest names, or the label reallib:<name>) with its result in every
stage given: passed, failed, or skipped with the line where it said why. A library that is
not installed says which Debian package and component has it; scripts/test.sh installs
from main only, so the non-free ones (NVIDIA's) are missing on a user's machine unless
installed by hand, and CI has them all (.ci/run, scripts/vendor-userspace.sh).

The results are CTest's JUnit files (ctest --output-junit); the labels come from
ctest --show-only=json-v1 in the build folder.

usage: report.py --build DIR --junit STAGE=FILE [--junit STAGE=FILE]...
"""
import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import userspace  # noqa: E402


def results(path):
    """{test: (status, output)}: status passed, failed or skipped"""
    out = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("note: %s: %s" % (path, e))
        return out
    for tc in root.iter("testcase"):
        so = tc.find("system-out")
        text = so.text if so is not None and so.text else ""
        if tc.find("skipped") is not None or tc.get("status") == "notrun":
            st = "skipped"
        elif tc.find("failure") is not None or tc.get("status") == "fail":
            st = "failed"
        else:
            st = "passed"
        out[tc.get("name")] = (st, text)
    return out


def labels(build):
    """{test: [labels]} of the build folder's tests"""
    r = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return {}
    out = {}
    for t in doc.get("tests", []):
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                out[t["name"]] = p.get("value", [])
    return out


def why(text, name):
    """the line a check said why it skipped (or what it left out about name)"""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if name in ln and re.search(r"(?i)skip|not installed|absent|missing", ln):
            return ln
    for ln in lines:
        if re.match(r"(?i)(skip|skipped)\b", ln):
            return ln
    return lines[-1] if lines else "no reason given"


def version(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg.split()[0]], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="append", default=[])
    ap.add_argument("--junit", action="append", default=[], help="STAGE=FILE")
    a = ap.parse_args()
    stages = []
    for j in a.junit:
        stage, _, path = j.partition("=")
        stages.append((stage, results(path)))
    lab = {}
    for b in a.build:
        for t, ls in labels(b).items():
            lab.setdefault(t, set()).update(ls)
    names = sorted({t for _, r in stages for t in r})
    have = userspace.installed()
    print("== the vendors' real libraries: which checks ran beside them, which were skipped and why")
    missing_nonfree = []
    for name, path, pkg, comp, what, pattern in userspace.LIBRARIES:
        mine = [t for t in names if re.match(pattern, t) or "reallib:" + name in lab.get(t, ())]
        src = "Debian %s, %s" % (pkg, comp)
        if name in have:
            v = version(pkg)
            print("%s (Debian %s%s, %s): installed: %s" % (name, pkg, " " + v if v else "", comp, what))
        else:
            print("%s (%s): not installed (%s): %s" % (name, src, path, what))
            if comp != "main":
                missing_nonfree.append(pkg.split()[0])
        if not mine:
            print("    no check of it ran in these stages")
        for t in mine:
            per = []
            for stage, res in stages:
                if t not in res:
                    continue
                st, text = res[t]
                if st == "skipped":
                    per.append("%s: skipped (%s)" % (stage, why(text, name)))
                elif name not in have:
                    # ran without it: what it said about it
                    said = [ln.strip() for ln in text.splitlines() if name in ln]
                    per.append("%s: %s without it%s" % (stage, st, (" (%s)" % said[0]) if said else ""))
                else:
                    per.append("%s: %s" % (stage, st))
            print("    %s: %s" % (t, "; ".join(per)))
    if missing_nonfree:
        print("(%s: in Debian's non-free component, which scripts/test.sh never enables; CI installs them: "
              "scripts/vendor-userspace.sh)" % ", ".join(sorted(set(missing_nonfree))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
