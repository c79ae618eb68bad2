#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every test's work folder is its own, and goes when the test passes (tests/workdir.py).

Reads the suite as CTest has it (ctest --show-only=json-v1) and fails where:
  - two tests name the same --work folder (one test would remove what the other reads,
    or both would write one tree at once);
  - a Python script given --work does not end through workdir.finish (its folder, often
    thousands of sysfs files, would stay behind after it passed: the suite once filled
    the disk of a CI machine that way).
"""
import argparse
import json
import os
import re
import subprocess
import sys


def work_of(command):
    for i, arg in enumerate(command):
        if arg == "--work" and i + 1 < len(command):
            return command[i + 1]
        if arg.startswith("--work="):
            return arg[len("--work="):]
        m = re.search(r"--work (\S+)", arg) if " " in arg else None
        if m:
            return m.group(1)
    return None


def script_of(command):
    for arg in command:
        if arg.endswith(".py") and os.path.isfile(arg):
            return arg
        m = re.search(r"(\S+\.py)\b", arg) if " " in arg else None
        if m and os.path.isfile(m.group(1)):
            return m.group(1)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--ctest", default="ctest")
    a = ap.parse_args()
    p = subprocess.run([a.ctest, "--test-dir", a.build, "--show-only=json-v1"], capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: ctest --show-only: %s" % p.stderr[-400:])
        return 1
    tests = json.loads(p.stdout)["tests"]
    owner = {}
    failures = []
    scripts = set()
    for t in tests:
        cmd = t.get("command") or []
        work = work_of(cmd)
        if not work:
            continue
        work = os.path.normpath(work)
        if work in owner:
            failures.append("%s and %s share the work folder %s" % (owner[work], t["name"], work))
        owner[work] = t["name"]
        script = script_of(cmd)
        if script:
            scripts.add(script)
    for s in sorted(scripts):
        with open(s) as f:
            if "workdir.finish(" not in f.read():
                failures.append("%s takes --work but does not end through workdir.finish()" % s)
    for f in failures:
        print("FAIL:", f)
    print("%d tests with a work folder, %d scripts: %s" % (len(owner), len(scripts), "FAIL" if failures else "ok"))
    if len(owner) < 100:
        print("FAIL: only %d tests with a work folder: is this the whole suite?" % len(owner))
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
