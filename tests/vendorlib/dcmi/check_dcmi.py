#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The dcmi backend (src/lib/backend/ascend/dcmi.c) against the DCMI double
(double/dcmi_double.c) on the 8x Ascend 910B tree (tests/trees/nodes/ascend-910b.json).

usage: check_dcmi.py --axl AXL --double LIBDCMI --work DIR [--case NAME] | --list

Cases:
  double    the double describes two 910B3 chips (double/fixtures/two-910b3.conf): those two
            devices have their HBM (memory.total_bytes, source "dcmi") and AI Cores (compute unit
            "AI Core", source "dcmi"); the six others stay unknown, as without the library
  absent    no library asked for on a tree: memory and AI Cores unknown, no warning (the
            reasons are data/devices.db's, checked by devicedb.tree_facts)
  missing   AXL_DCMI_LIBRARY names a file that is not there: unknown, and a warning says so
  init      dcmi_init fails: unknown, and a warning names dcmi_init and its code
  stray     a chip whose HBM call fails (its AI Cores only) and a chip at an address the
            tree lacks (a warning, nothing else)
  capture   axl capture with the double, the capture replayed with no library: the same
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..", "..")
FIXTURES = os.path.join(HERE, "double", "fixtures")
TREE = os.path.join(HERE, "..", "..", "trees", "nodes", "ascend-910b.json")
CASES = ["double", "absent", "missing", "init", "stray", "capture"]
GIB64 = 65536 << 20

failed = 0
passed = 0


def ok(cond, what):
    global failed, passed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def eq(got, want, what):
    ok(got == want, "%s: got %r, want %r" % (what, got, want))


def tree(args):
    out = os.path.join(args.work, "tree")
    if not os.path.isdir(out):
        subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "trees", "mktree.py"), TREE, out], check=True,
                       stdout=subprocess.DEVNULL)
    return out


def bare_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    env.update(extra)
    return env


def axl_list(args, extra, root=None):
    p = subprocess.run([args.axl, "list", "--json", "--sysroot", root or tree(args)], env=bare_env(extra),
                       capture_output=True, text=True, timeout=60)
    eq(p.returncode, 0, "axl list exit code (stderr %s)" % p.stderr[-300:])
    return json.loads(p.stdout) if p.returncode == 0 else {"devices": [], "warnings": []}


def npus(doc):
    return {d["pci"]["address"]: d for d in doc["devices"] if d.get("vendor_id") == "0x19e5"}


def warnings(doc):
    return [w.get("message", "") for w in doc.get("warnings", [])]


def ai_cores(dev):
    return [c for c in dev.get("compute_units", []) if c.get("name") == "AI Core"]


def unknown(dev, where):
    ok("total_bytes" not in dev.get("memory", {}), where + ": memory.total_bytes unknown (%r)" % dev.get("memory"))
    eq(ai_cores(dev), [], where + ": no AI Core count")
    ok("dcmi" not in dev.get("sources", []), where + ": nothing from dcmi")


def described(dev, where):
    eq(dev.get("memory", {}).get("total_bytes"), GIB64, where + ": memory.total_bytes")
    eq(dev.get("field_sources", {}).get("memory.total_bytes"), "dcmi", where + ": memory.total_bytes's source")
    eq(dev.get("memory", {}).get("type"), "HBM2e", where + ": memory.type (the device database's) stays")
    cu = ai_cores(dev)
    eq([(c.get("count"), c.get("source")) for c in cu], [(20, "dcmi")], where + ": the AI Cores")


def case_double(args):
    doc = axl_list(args, {"AXL_DCMI_LIBRARY": args.double,
                          "AXL_DCMI_DOUBLE_FIXTURE": os.path.join(FIXTURES, "two-910b3.conf")})
    n = npus(doc)
    eq(len(n), 8, "double: 8 NPUs")
    for addr, dev in sorted(n.items()):
        if addr in ("0000:01:00.0", "0000:c1:00.0"):
            described(dev, "double: " + addr)
        else:
            unknown(dev, "double: " + addr)
    eq(warnings(doc), [], "double: warnings")


def case_absent(args):
    doc = axl_list(args, {})
    for addr, dev in sorted(npus(doc).items()):
        unknown(dev, "absent: " + addr)
    eq(warnings(doc), [], "absent: warnings")


def case_missing(args):
    doc = axl_list(args, {"AXL_DCMI_LIBRARY": os.path.join(args.work, "no-such", "libdcmi.so")})
    for addr, dev in sorted(npus(doc).items()):
        unknown(dev, "missing: " + addr)
    ok(any("DCMI not loaded" in w for w in warnings(doc)), "missing: a warning says DCMI was not loaded: %r"
       % warnings(doc))


def case_init(args):
    doc = axl_list(args, {"AXL_DCMI_LIBRARY": args.double,
                          "AXL_DCMI_DOUBLE_FIXTURE": os.path.join(FIXTURES, "init-fails.conf")})
    for addr, dev in sorted(npus(doc).items()):
        unknown(dev, "init: " + addr)
    ok(any("dcmi_init" in w and "-8005" in w for w in warnings(doc)), "init: a warning names dcmi_init: %r"
       % warnings(doc))


def case_stray(args):
    doc = axl_list(args, {"AXL_DCMI_LIBRARY": args.double,
                          "AXL_DCMI_DOUBLE_FIXTURE": os.path.join(FIXTURES, "stray.conf")})
    n = npus(doc)
    dev = n.get("0000:01:00.0", {})
    ok("total_bytes" not in dev.get("memory", {}), "stray: 01:00.0's HBM call failed: memory unknown")
    eq([(c.get("count"), c.get("source")) for c in ai_cores(dev)], [(20, "dcmi")], "stray: 01:00.0's AI Cores")
    for addr, d in sorted(n.items()):
        if addr != "0000:01:00.0":
            unknown(d, "stray: " + addr)
    ok(any("0000:55:00.0" in w for w in warnings(doc)), "stray: a warning names the chip axl does not see: %r"
       % warnings(doc))


def case_capture(args):
    env = {"AXL_DCMI_LIBRARY": args.double, "AXL_DCMI_DOUBLE_FIXTURE": os.path.join(FIXTURES, "two-910b3.conf")}
    cap = os.path.join(args.work, "ascend-910b.tar.gz")
    p = subprocess.run([args.axl, "capture", "-o", cap, "--sysroot", tree(args)], env=bare_env(env),
                       capture_output=True, text=True, timeout=120)
    eq(p.returncode, 0, "capture: axl capture (stderr %s)" % p.stderr[-300:])
    want = axl_list(args, env)
    got = axl_list(args, {}, root=cap)
    ok(any("dcmi" in d.get("sources", []) for d in got.get("devices", [])), "capture: the replay used DCMI's answers")
    for key in ("devices", "links", "warnings"):
        eq(got.get(key), want.get(key), "capture: replayed " + key)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--double")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print(";".join(CASES))
        return 0
    os.makedirs(args.work, exist_ok=True)
    for c in [args.case] if args.case else CASES:
        globals()["case_" + c](args)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
