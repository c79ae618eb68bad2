#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/bench_backends.py: what each discovery stage and vendor backend costs.

Runs `axl list --json --timing` RUNS times on
  - this machine,
  - every synthetic node tree in tests/trees/nodes (built with tests/trees/mktree.py),
  - the NVML test double (tests/vendorlib/nvml/double) answering from real nvidia-smi captures,
    once per capture, with and without the NVML backend (AXL_BACKENDS=-nvml),
  - the ROCm SMI test double (tests/vendorlib/rocm_smi/double) answering from rocm-smi captures,
    once per capture, and the 8x MI300X tree with and without it (AXL_BACKENDS=-rocm-smi),
and prints the median milliseconds of each stage ("host", "pci", one per backend,
"devnodes", "devicedb", "links", and "nvml.calls" / "rocm-smi.calls", the vendor
worker's own time, which overlaps the PCI scan) plus the median wall time of the whole
command.

Environment: AXL (default build/axl), RUNS (default 15), NODES (space-separated spec
names, default all), DOUBLE (default build/tests/vendorlib/nvml/double/libnvidia-ml.so.1),
RSMI_DOUBLE (default build/tests/vendorlib/rocm_smi/double/librocm_smi64.so.7),
BENCH_OUT (default build/bench). Always exits 0: a benchmark, not a test.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
AXL = os.environ.get("AXL", os.path.join(REPO, "build", "axl"))
RUNS = int(os.environ.get("RUNS", "15"))
DOUBLE = os.environ.get("DOUBLE", os.path.join(REPO, "build", "tests", "nvml_double", "libnvidia-ml.so.1"))
RSMI_DOUBLE = os.environ.get("RSMI_DOUBLE", os.path.join(REPO, "build", "tests", "rocm_smi_double",
                                                         "librocm_smi64.so.7"))
OUT = os.environ.get("BENCH_OUT", os.path.join(REPO, "build", "bench"))


def measure(args, env):
    stages = {}
    walls = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        p = subprocess.run([AXL, "list", "--json", "--timing"] + args, env=env, capture_output=True, text=True)
        walls.append((time.perf_counter() - t0) * 1e3)
        if p.returncode != 0:
            return None, None
        for k, v in json.loads(p.stdout).get("timing", {}).items():
            stages.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in stages.items()}, statistics.median(walls)


def row(name, stages, wall, out):
    busy = {k: v for k, v in stages.items() if v >= 0.005}
    parts = " ".join("%s=%.3f" % (k, v) for k, v in sorted(busy.items(), key=lambda kv: -kv[1]))
    line = "%-34s wall %7.2f ms | %s" % (name, wall, parts)
    print(line)
    out.append(line)


def main():
    if not os.access(AXL, os.X_OK):
        print("bench: no axl at %s (build it first)" % AXL)
        return 0
    os.makedirs(OUT, exist_ok=True)
    out = []
    env = dict(os.environ)
    env.pop("AXL_SYSROOT", None)
    print("median of %d runs; stage times in ms (stages under 5 us left out)" % RUNS)
    s, w = measure([], env)
    if s:
        row("this machine", s, w, out)
    trees = os.path.join(OUT, "trees")
    os.makedirs(trees, exist_ok=True)
    want = os.environ.get("NODES", "").split()
    for spec in sorted(glob.glob(os.path.join(REPO, "tests", "trees", "nodes", "*.json*"))):
        name = os.path.basename(spec).split(".")[0]
        if spec.endswith(".expect.json") or (want and name not in want):
            continue
        tree = os.path.join(trees, name)
        if not os.path.isdir(tree):
            subprocess.run([sys.executable, os.path.join(REPO, "tests", "trees", "mktree.py"), spec, tree], check=True,
                           capture_output=True)
        s, w = measure(["--sysroot", tree], env)
        if s:
            row("tree " + name, s, w, out)
    fixtures = os.path.join(REPO, "tests", "vendorlib", "nvml", "double", "fixtures")
    if os.access(DOUBLE, os.R_OK) and os.path.isdir(fixtures):
        empty = os.path.join(OUT, "empty-root")
        os.makedirs(empty, exist_ok=True)
        for xml in sorted(glob.glob(os.path.join(fixtures, "*.xml"))):
            name = os.path.basename(xml)[:-4]
            e = dict(env, AXL_NVML_LIBRARY=DOUBLE, AXL_NVML_DOUBLE_XML=xml)
            s, w = measure(["--sysroot", empty], e)
            if s:
                row("nvml " + name, s, w, out)
        e = dict(env, AXL_NVML_LIBRARY=DOUBLE, AXL_NVML_DOUBLE_XML=os.path.join(fixtures, "telegraf-a100-sxm4-v12.xml"),
                 AXL_BACKENDS="-nvml")
        s, w = measure(["--sysroot", empty], e)
        if s:
            row("nvml off (a100 capture)", s, w, out)
    else:
        print("bench: no NVML double at %s (build the tests); NVML rows skipped" % DOUBLE)
    fixtures = os.path.join(REPO, "tests", "vendorlib", "rocm_smi", "double", "fixtures")
    if os.access(RSMI_DOUBLE, os.R_OK) and os.path.isdir(fixtures):
        empty = os.path.join(OUT, "empty-root")
        os.makedirs(empty, exist_ok=True)

        def rsmi_env(name, **more):
            e = dict(env, AXL_ROCM_SMI_LIBRARY=RSMI_DOUBLE, AXL_RSMI_DOUBLE_JSON=os.path.join(fixtures, name + ".json"))
            for x in (name, name.rsplit("_rocm", 1)[0]):
                if os.path.exists(os.path.join(fixtures, x + ".extra")):
                    e["AXL_RSMI_DOUBLE_EXTRA"] = os.path.join(fixtures, x + ".extra")
                    break
            e.update(more)
            return e
        for js in sorted(glob.glob(os.path.join(fixtures, "*.json"))):
            name = os.path.basename(js)[:-5]
            s, w = measure(["--sysroot", empty], rsmi_env(name))
            if s:
                row("rocm-smi " + name, s, w, out)
        tree = os.path.join(trees, "mi300x-8x")
        if not os.path.isdir(tree):
            subprocess.run([sys.executable, os.path.join(REPO, "tests", "trees", "mktree.py"),
                            os.path.join(REPO, "tests", "trees", "nodes", "mi300x-8x.json"), tree], check=True,
                           capture_output=True)
        for label, more in (("on", {}), ("off", {"AXL_BACKENDS": "-rocm-smi"})):
            s, w = measure(["--sysroot", tree], rsmi_env("synthetic-mi300x-8x", **more))
            if s:
                row("rocm-smi %s (mi300x-8x tree)" % label, s, w, out)
    else:
        print("bench: no ROCm SMI double at %s (build the tests); ROCm SMI rows skipped" % RSMI_DOUBLE)
    with open(os.path.join(OUT, "backends.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
