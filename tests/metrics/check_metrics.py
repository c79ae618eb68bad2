#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl metrics on synthetic trees: the document against its schema on every node, the
processes from /proc/<pid>/fdinfo, utilisation from two samples, a device that leaves
the bus between samples, and the command's options.

usage: check_metrics.py --axl AXL --work DIR --case NAME
       check_metrics.py --list
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODES = os.path.join(ROOT, "tests", "trees", "nodes")
MKTREE = os.path.join(ROOT, "tests", "trees", "mktree.py")
SCHEMA = os.path.join(ROOT, "schema", "axl-metrics.schema.json")

CASES = ["schema", "processes", "utilization", "lost", "options"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def node_specs():
    out = []
    for f in sorted(os.listdir(NODES)):
        if f.endswith(".expect.json"):
            continue
        if f.endswith(".json") or f.endswith(".json.gz"):
            out.append(f)
    return out


def tree(work, spec):
    name = spec.split(".json")[0]
    dst = os.path.join(work, name)
    subprocess.run([sys.executable, MKTREE, os.path.join(NODES, spec), dst], check=True)
    return dst


def run(axl, *args, env=None, check_rc=True):
    e = dict(os.environ)
    e.pop("AXL_SYSROOT", None)
    if env:
        e.update(env)
    p = subprocess.run([axl] + list(args), capture_output=True, text=True, env=e, timeout=120)
    if check_rc and p.returncode != 0:
        failures.append("axl %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-500:]))
    return p


def device(doc, ident):
    for d in doc["devices"]:
        if d["id"] == ident:
            return d
    return None


def case_schema(axl, work):
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("python3-jsonschema is missing")
        return 77
    schema = json.load(open(SCHEMA))
    Draft202012Validator.check_schema(schema)
    v = Draft202012Validator(schema)
    for spec in node_specs():
        root = tree(work, spec)
        p = run(axl, "metrics", "--json", "--sysroot", root)
        if p.returncode:
            continue
        doc = json.loads(p.stdout)
        for err in v.iter_errors(doc):
            check(False, "%s: %s: %s" % (spec, "/".join(str(x) for x in err.absolute_path), err.message))
        inv = json.loads(run(axl, "list", "--json", "--sysroot", root).stdout)
        ids = []
        for d in inv["devices"]:
            ids.append(d["id"])
            ids.extend(c["id"] for c in d.get("children", []))
        check([d["id"] for d in doc["devices"]] == ids, "%s: devices %s, inventory %s" %
              (spec, [d["id"] for d in doc["devices"]], ids))
        states = {}
        for d in inv["devices"]:
            states[d["id"]] = d.get("state")
        for d in doc["devices"]:
            known = set(k for k in d if k not in ("id", "state", "processes", "sources"))
            srcs = set(k.split(".")[0] for k in d["sources"])
            check(known == srcs, "%s %s: values %s but sources %s" % (spec, d["id"], sorted(known), sorted(srcs)))
            # lost only where the driver says the device is out of service (in reset, invalid)
            healthy = states.get(d["id"]) in (None, "ok", "Operational", "ready", "operational", "active")
            check((d["state"] == "lost") == (not healthy),
                  "%s %s: %s in the sample, inventory state %s" % (spec, d["id"], d["state"], states.get(d["id"])))
    return 0


def case_processes(axl, work):
    root = tree(work, "ryzen-ai-xdna.json")
    doc = json.loads(run(axl, "metrics", "--json", "--sysroot", root).stdout)
    gpu, npu = device(doc, "amdgpu:0"), device(doc, "amdxdna:0")
    rows = {(p["pid"]): p for p in gpu["processes"]}
    check(sorted(rows) == [2187, 40311], "amdgpu:0 processes %s" % sorted(rows))
    shell = rows.get(2187, {})
    # two fds, one client (drm-client-id 3): counted once
    check(shell.get("memory_used_bytes") == 40960 * 1024, "gnome-shell vram %s" % shell.get("memory_used_bytes"))
    check(shell.get("name") == "gnome-shell" and shell.get("type") == "drm" and shell.get("source") == "procfs",
          "gnome-shell row %s" % shell)
    check(shell.get("cgroup") == "/user.slice/user-1000.slice/session-2.scope" and "container_id" not in shell,
          "gnome-shell cgroup %s" % shell)
    llama = rows.get(40311, {})
    check(llama.get("memory_used_bytes") == 409600 * 1024, "llama vram %s" % llama.get("memory_used_bytes"))
    check(llama.get("container_id") == "4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a",
          "llama container %s" % llama.get("container_id"))
    # a static tree: the counters did not move, so the processes were idle
    check(llama.get("utilization_percent") == 0, "llama util %s" % llama.get("utilization_percent"))
    nrows = npu["processes"]
    check(len(nrows) == 1 and nrows[0]["pid"] == 40311 and nrows[0].get("memory_used_bytes") == 49152 * 1024,
          "amdxdna:0 processes %s" % nrows)
    # the NPU's driver publishes no busy figure: its clients' sum, derived
    check(npu.get("utilization_percent") == 0 and npu["sources"].get("utilization_percent") == "derived",
          "amdxdna:0 utilization %s %s" % (npu.get("utilization_percent"), npu["sources"]))
    p = run(axl, "metrics", "--json", "--no-processes", "--sysroot", root)
    doc = json.loads(p.stdout)
    check(all(not d["processes"] for d in doc["devices"]), "--no-processes still lists processes")
    check("utilization_percent" not in device(doc, "amdxdna:0"), "NPU utilisation without the sweep")
    return 0


def stream(axl, root, interval, count, between):
    """Run axl metrics --interval and call between(k) after line k arrives."""
    e = dict(os.environ)
    e.pop("AXL_SYSROOT", None)
    p = subprocess.Popen([axl, "metrics", "--json", "--interval", "%dms" % interval, "--count", str(count),
                          "--sysroot", root], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    docs = []
    for k in range(count):
        line = p.stdout.readline()
        if not line:
            break
        docs.append(json.loads(line))
        between(k)
    p.stdout.close()
    err = p.stderr.read()
    p.stderr.close()
    rc = p.wait(timeout=60)
    check(rc == 0, "streaming exit %d: %s" % (rc, err[-300:]))
    check(len(docs) == count, "streaming gave %d documents, not %d" % (len(docs), count))
    return docs


def rewrite_fdinfo(path, key, ns):
    lines = open(path).read().splitlines(True)
    with open(path, "w") as f:
        for ln in lines:
            if ln.startswith(key + ":"):
                ln = "%s:\t%d ns\n" % (key, ns)
            f.write(ln)


def case_utilization(axl, work):
    root = tree(work, "ryzen-ai-xdna.json")
    gfx = os.path.join(root, "proc", "40311", "fdinfo", "9")
    npu = os.path.join(root, "proc", "40311", "fdinfo", "11")
    interval = 400
    t = {}

    def between(k):
        if k == 0:
            t[0] = time.monotonic()
            # 200 ms of gfx work and 100 ms of NPU work during the next interval
            rewrite_fdinfo(gfx, "drm-engine-gfx", 5120000000 + 200000000)
            rewrite_fdinfo(npu, "drm-engine-npu-amdxdna", 734000000 + 100000000)

    docs = stream(axl, root, interval, 2, between)
    if len(docs) < 2:
        return 0
    check("interval_ms" not in docs[0], "first sample has an interval")
    iv = docs[1].get("interval_ms", 0)
    check(interval * 0.9 <= iv <= interval * 3, "interval %s" % iv)
    want_gfx = 200.0 / iv * 100
    want_npu = 100.0 / iv * 100
    llama = [p for p in device(docs[1], "amdgpu:0")["processes"] if p["pid"] == 40311]
    u = llama[0].get("utilization_percent", -1) if llama else -1
    check(abs(u - want_gfx) < 0.5, "llama gfx util %s, want %.2f" % (u, want_gfx))
    n = device(docs[1], "amdxdna:0")
    check(abs(n.get("utilization_percent", -1) - want_npu) < 0.5,
          "NPU util %s, want %.2f" % (n.get("utilization_percent"), want_npu))
    # the first sample had nothing to compare with: no process utilisation
    first = [p for p in device(docs[0], "amdgpu:0")["processes"] if p["pid"] == 40311]
    check(first and "utilization_percent" not in first[0], "utilisation from one sample: %s" % first)

    # a counter that goes backwards (a client reset): unknown, not negative
    root = tree(work, "ryzen-ai-xdna.json")
    gfx = os.path.join(root, "proc", "40311", "fdinfo", "9")
    docs = stream(axl, root, 200, 2, lambda k: k == 0 and rewrite_fdinfo(gfx, "drm-engine-gfx", 1000))
    if len(docs) == 2:
        llama = [p for p in device(docs[1], "amdgpu:0")["processes"] if p["pid"] == 40311]
        check(llama and "utilization_percent" not in llama[0], "backwards counter gave %s" % llama)
    return 0


def pci_dir(root, bdf):
    link = os.path.join(root, "sys", "bus", "pci", "devices", bdf)
    return os.path.join(os.path.dirname(link), os.readlink(link))


def case_lost(axl, work):
    root = tree(work, "mi300x-8x.json")
    inv = json.loads(run(axl, "list", "--json", "--sysroot", root).stdout)
    addr = [d for d in inv["devices"] if d["id"] == "amdgpu:3"][0]["pci"]["address"]
    victim = os.path.realpath(pci_dir(root, addr))

    def between(k):
        if k == 0:
            shutil.rmtree(victim)

    docs = stream(axl, root, 150, 3, between)
    if len(docs) < 3:
        return 0
    before = device(docs[0], "amdgpu:3")
    check(before["state"] == "ok" and "power_watts" in before, "amdgpu:3 before: %s" % before)
    for doc in docs[1:]:
        gone = device(doc, "amdgpu:3")
        check(gone["state"] == "lost", "amdgpu:3 after removal: state %s" % gone["state"])
        vals = [k for k in gone if k not in ("id", "state", "processes", "sources")]
        check(not vals and not gone["sources"], "a lost device keeps values %s" % vals)
        for other in ("amdgpu:2", "amdgpu:4"):
            o = device(doc, other)
            check(o["state"] == "ok" and o.get("power_watts") == device(docs[0], other).get("power_watts"),
                  "%s after amdgpu:3 left: %s" % (other, o))
    return 0


def case_options(axl, work):
    root = tree(work, "mi300x-8x.json")
    p = run(axl, "metrics", "amdgpu:2", "--sysroot", root)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("amdgpu:")]
    check(len(lines) == 1 and lines[0].startswith("amdgpu:2 "), "one device table: %s" % lines)
    check("W" in lines[0] and "MiB" in lines[0], "table row lacks units: %s" % lines)
    p = run(axl, "metrics", "nosuch:9", "--sysroot", root, check_rc=False)
    check(p.returncode == 1 and "nosuch:9" in p.stderr, "unknown device: rc %d %s" % (p.returncode, p.stderr))
    for bad in (["--interval", "0"], ["--interval", "x"], ["--count", "-1"]):
        p = run(axl, "metrics", *bad, "--sysroot", root, check_rc=False)
        check(p.returncode == 2, "%s: rc %d" % (bad, p.returncode))
    p = run(axl, "metrics", "--json", "--interval", "50ms", "--count", "3", "--sysroot", root)
    docs = [json.loads(ln) for ln in p.stdout.splitlines()]
    check(len(docs) == 3 and all(d["schema"] == "axl.metrics" for d in docs), "3 JSON lines: %d" % len(docs))
    check(all("interval_ms" in d for d in docs[1:]), "streamed samples lack interval_ms")
    # the garbage power1_cap of amdgpu:7 and pp_dpm_sclk of amdgpu:6 cost only those values
    d7, d6 = device(docs[0], "amdgpu:7"), device(docs[0], "amdgpu:6")
    check("power_limit_watts" not in d7 and "power_watts" in d7, "amdgpu:7 %s" % d7)
    check("sm_clock_mhz" not in d6 and "memory_clock_mhz" in d6, "amdgpu:6 %s" % d6)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    work = os.path.join(a.work, a.case)
    os.makedirs(work, exist_ok=True)
    rc = globals()["case_" + a.case](a.axl, work)
    if rc == 77:
        return 77
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
