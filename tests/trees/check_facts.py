#!/usr/bin/env python3
"""Every device on the trees of tests/trees/nodes has its memory, compute units and peaks,
or a stated reason (issue 35, "Done means").

usage: check_facts.py --axl AXL --work DIR [--db data/devices.db]

Builds each node spec into a sysfs tree (mktree.py), lists it with axl (`list --json
--all`) and checks each device:
  - memory: memory.total_bytes
  - compute units: a compute_units row
  - peaks: a precision row with peak_tflops
A device that lacks one must have a reason: its device database entry (devicedb_key)
carries "unknown = FIELD REASON" for it in data/devices.db. A device the database does not
know (no devicedb_key: an unknown model) has that as its reason, and is named in the
report; the host's CPUs are described by the host, not by the database, and are named too.
An entry that says a fact is unknown while axl reports it is an error as well (the reason
would be stale), and so is a reason of fewer than three words (it must say what was looked
at). A device with no memory of its own that works in the host's system memory (an NPU)
reports memory.shared_system_bytes, said as such and never as total_bytes: an entry whose
memory reason says "system memory" must come with it, and a device that reports it must not
report device memory too.
"""

import argparse
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIELDS = ("memory", "compute_units", "peaks")


def read_db(path):
    """{entry key: {field: reason}} from the 'unknown' lines of the device database."""
    out, cur = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            m = re.match(r"^\[([a-z0-9.-]+)\]$", s)
            if m:
                cur = out.setdefault(m.group(1), {})
                continue
            k, _, v = s.partition("=")
            if k.strip() == "unknown" and cur is not None:
                field, _, reason = v.strip().partition(" ")
                cur[field] = reason.strip()
    return out


def facts(dev):
    return {
        "memory": "total_bytes" in (dev.get("memory") or {}),
        "compute_units": bool(dev.get("compute_units")),
        "peaks": any("peak_tflops" in p for p in dev.get("precision") or []),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--db", default=os.path.join(TOP, "data", "devices.db"))
    a = ap.parse_args()
    db = read_db(a.db)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    specs = sorted(p for p in glob.glob(os.path.join(TOP, "tests", "trees", "nodes", "*.json*"))
                   if not p.endswith(".expect.json"))
    errs, told, ndev = [], [], 0
    for spec in specs:
        name = os.path.basename(spec).split(".json")[0]
        root = os.path.join(a.work, name)
        src = spec
        if spec.endswith(".gz"):
            src = root + ".spec.json"
            with gzip.open(spec, "rb") as f, open(src, "wb") as o:
                o.write(f.read())
        subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"), src, root],
                       check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("AXL_"):
                del env[k]
        env["AXL_PCI_IDS"] = "/dev/null"
        p = subprocess.run([a.axl, "list", "--json", "--all", "--sysroot", root], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        if p.returncode != 0:
            errs.append("%s: axl exited %d: %s" % (name, p.returncode, p.stderr.decode(errors="replace")))
            continue
        for dev in json.loads(p.stdout)["devices"]:
            ndev += 1
            have = facts(dev)
            missing = [f for f in FIELDS if not have[f]]
            where = "%s %s (%s)" % (name, dev["id"], dev.get("model") or "no model")
            key = dev.get("devicedb_key")
            if dev.get("family") == "cpu":
                if missing:
                    told.append("%s: %s: the host's CPU, described by the host (cpuinfo, sysfs), not by "
                                "the device database" % (where, ", ".join(missing)))
                continue
            if key is None:
                if missing:
                    told.append("%s: %s: a model data/devices.db does not know" % (where, ", ".join(missing)))
                continue
            reasons = db.get(key, {})
            mem = dev.get("memory") or {}
            if "shared_system_bytes" in mem and "total_bytes" in mem:
                errs.append("%s: reports both device memory and shared system memory" % where)
            if "system memory" in reasons.get("memory", "") and not mem.get("shared_system_bytes"):
                errs.append("%s: [%s] says it works in the host's system memory, and axl does not report "
                            "memory.shared_system_bytes" % (where, key))
            for f in FIELDS:
                if f in reasons and len(reasons[f].split()) < 3:
                    errs.append("%s: [%s]'s reason for %s, %r, does not say what was looked at"
                                % (where, key, f, reasons[f]))
                if not have[f] and f not in reasons:
                    errs.append("%s: no %s and [%s] in data/devices.db says no reason (unknown = %s REASON)"
                                % (where, f, key, f))
                elif not have[f]:
                    extra = ""
                    if f == "memory" and mem.get("shared_system_bytes"):
                        extra = " (shares %d bytes of the host's system memory)" % mem["shared_system_bytes"]
                    told.append("%s: %s: %s%s" % (where, f, reasons[f], extra))
                elif f in reasons:
                    errs.append("%s: axl reports %s, but [%s] says it is unknown" % (where, f, key))
    seen = set()
    for t in told:
        # one line per reason and model, not per device
        k = re.sub(r" \S+:\d+ ", " ", t, count=1)
        if k not in seen:
            seen.add(k)
            print("reason: " + t)
    for e in errs:
        print("FAIL: " + e)
    print("%d trees, %d devices, %d failures" % (len(specs), ndev, len(errs)))
    return 1 if errs or ndev == 0 else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
