#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--quant auto and bare sizes (issue 17), on simulated nodes; validated against the schema.

usage: check_quant.py AXL SRC_DIR
"""
import json
import os
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def main():
    axl, src = sys.argv[1], sys.argv[2]
    sim = lambda n: os.path.join(src, "tests", "sim", n)
    sys.path.insert(0, os.path.join(src, "tests", "cli", "plan"))
    import check_plan as cp  # the schema validator

    def plan(s, *args):
        p = subprocess.run([axl, "--sim", sim(s), "plan"] + list(args) + ["--json"], capture_output=True, text=True)
        if not check(p.returncode == 0, "%s: rc %d %s" % (args, p.returncode, p.stderr.strip())):
            return None
        d = json.loads(p.stdout)
        cp.validate(d, os.path.join(src, "schema", "axl-plan.schema.json"), str(args))
        return d

    # H100: bf16 fits on 8, fp8 when one device is all there is (FP8 native on Hopper)
    d = plan("h100x8-nvswitch.json", "llama3.1-70b", "--quant", "auto")
    check(d and d["request"]["quantization"] == "bf16" and "natively" in d["request"]["quantization_reason"],
          "70b on 8 H100: %s" % (d and d["request"]))
    d = plan("h100x8-nvswitch.json", "llama3.1-70b", "--quant", "auto", "--devices", "nvidia:0")
    check(d and d["request"]["quantization"] == "fp8" and d["fits"] and "bf16 does not fit" in d["request"]["quantization_reason"],
          "70b on 1 H100: %s" % (d and d["request"]))
    # A100 has no FP8: int8
    d = plan("a100-mig-off.json", "llama3.1-70b", "--quant", "auto", "--devices", "nvidia:0")
    check(d and d["request"]["quantization"] == "int8" and "fp8" in d["request"]["quantization_reason"],
          "70b on 1 A100: %s" % (d and d["request"]))
    # published in fp8: never more bits than that (DeepSeek V3)
    d = plan("h100x8-nvswitch.json", "deepseek-v3", "--quant", "auto")
    check(d and d["request"]["quantization"] in ("fp8", "int8", "int4"), "deepseek-v3: %s" % (d and d["request"]))
    # the text says it
    p = subprocess.run([axl, "--sim", sim("a100-mig-off.json"), "plan", "llama3.1-70b", "--quant", "auto", "--devices", "nvidia:0"],
                       capture_output=True, text=True)
    check("Quantization  auto: int8" in p.stdout, "text: %s" % p.stdout[:400])

    # issue 34: an explicit format a device of the plan does not run natively is a warning
    # naming the device and what it runs natively (A100: no FP8); none where it is native
    # (H100) and none for auto, which explains its own choice
    d = plan("a100-mig-off.json", "llama3.1-70b", "--quant", "fp8", "--devices", "nvidia:0,nvidia:1", "--objective", "latency")
    if d:
        w = [x for x in d["warnings"] if "not native" in x]
        check(d["plan"]["strategy"]["tp"] == 2 and w == ["fp8 is not native on nvidia:0 and 1 more (NVIDIA A100-SXM4-80GB), which run "
                    "fp32, tf32, bf16, fp16, int8, int4 natively"], "fp8 on 2 A100: %s" % d["warnings"])
    p = subprocess.run([axl, "--sim", sim("a100-mig-off.json"), "plan", "llama3.1-8b", "--quant", "fp8", "--devices", "nvidia:1"],
                       capture_output=True, text=True)
    check(p.returncode == 0 and "Warning       fp8 is not native on nvidia:1 (NVIDIA A100-SXM4-80GB), which runs fp32, "
          "tf32, bf16, fp16, int8, int4 natively\n" in p.stdout, "text: fp8 on an A100: %s" % p.stdout)
    for args in (("llama3.1-70b", "--quant", "fp8"), ("llama3.1-70b", "--quant", "int8"), ("llama3.1-70b", "--quant", "auto", "--devices", "nvidia:0")):
        d = plan("h100x8-nvswitch.json", *args)
        check(d and not [x for x in d["warnings"] if "not native" in x], "%s on H100: %s" % (args, d and d["warnings"]))
    d = plan("a100-mig-off.json", "llama3.1-70b", "--quant", "auto", "--devices", "nvidia:0")
    check(d and not [x for x in d["warnings"] if "not native" in x], "auto on an A100: %s" % (d and d["warnings"]))

    # issue 34: native as the inventory says (a precision row, peak known or not), over the
    # devices the plan uses. mixed.json: the RTX 4090's BF16 row has no peak; bf16 runs
    # natively on every device, fits on one, and nothing is called "not native"
    d = plan("mixed.json", "llama3.1-8b", "--quant", "auto")
    if d:
        r = d["request"]
        used = {s["device"] for s in d["plan"]["shards"]}
        check(r["quantization"] == "bf16" and "not native" not in r["quantization_reason"] and
              [t["result"] for t in r["quantization_tried"]] == ["fits"], "8b auto on mixed: %s" % r)
        check(len(used) == 1 and ("1 x " in r["quantization_reason"]), "8b auto on mixed: the reason names the plan's devices: %s %s" % (used, r))
    # trees (tests/trees/nodes): Gaudi2's rows are native, with a BF16 peak only; the B580 has none
    # (not known: assumed for bf16/int8/int4, never fp8); the Ryzen iGPU beside two Wormholes
    # has none either and must not make them bf16 (their rows say FP8 and FP16)
    trees = os.path.join(src, "tests", "trees")
    work = os.environ.get("TMPDIR", "/tmp")
    def tree(name):
        out = os.path.join(work, "axl-quant-tree-%d-%s" % (os.getpid(), name))
        subprocess.run([sys.executable, os.path.join(trees, "mktree.py"), os.path.join(trees, "nodes", name + ".json"), out],
                       check=True, stdout=subprocess.DEVNULL)
        return out
    def plan_tree(t, *args):
        p = subprocess.run([axl, "--sysroot", t, "plan"] + list(args) + ["--json"], capture_output=True, text=True)
        if not check(p.returncode == 0, "%s %s: rc %d %s" % (t, args, p.returncode, p.stderr.strip())):
            return None
        d = json.loads(p.stdout)
        cp.validate(d, os.path.join(src, "schema", "axl-plan.schema.json"), str(args))
        return d
    import shutil
    made = []
    try:
        g = tree("gaudi2-8x"); made.append(g)
        d = plan_tree(g, "llama3.1-405b", "--quant", "auto")
        if d:
            r = d["request"]
            check(d["fits"] and r["quantization"] == "fp8" and r["quantization_tried"][0]["quantization"] == "bf16" and
                  r["quantization_tried"][0]["result"] == "short" and "Habana Gaudi2" in r["quantization_reason"],
                  "405b auto on 8 Gaudi2: %s" % r)
        d = plan_tree(g, "llama3.1-8b", "--quant", "auto")
        check(d and d["request"]["quantization"] == "bf16" and d["fits"], "8b auto on Gaudi2: %s" % (d and d["request"]))
        b = tree("xe-desktop-b580"); made.append(b)
        d = plan_tree(b, "llama3.1-8b", "--quant", "auto")
        if d:
            r = d["request"]
            check(d["fits"] and r["quantization"] == "int8" and "no precisions" in r["quantization_reason"] and
                  "fp8" not in [t["quantization"] for t in r["quantization_tried"]] and
                  not any(t["result"] == "not native" for t in r["quantization_tried"]),
                  "8b auto on a B580: %s" % r)
        t = tree("tenstorrent-host"); made.append(t)
        d = plan_tree(t, "llama3.1-8b", "--quant", "auto")
        if d:
            r = d["request"]
            devs = {s["device"].split(":")[0] for s in (d["plan"] or {"shards": []})["shards"]}
            check(d["fits"] and r["quantization"] == "fp16" and devs == {"tenstorrent"} and
                  r["quantization_tried"][0] == dict(r["quantization_tried"][0], quantization="bf16", result="not native"),
                  "8b auto on Wormholes beside an iGPU: %s %s" % (r, devs))
    finally:
        for m in made:
            shutil.rmtree(m, ignore_errors=True)

    # bare sizes: a real architecture for the size, stated
    for size, layers in (("7B", 32), ("70b", 80), ("1.5B", None), ("405B", 126)):
        d = plan("h100x8-nvswitch.json", size)
        if not d:
            continue
        m = d["model"]
        want = float(size[:-1]) * 1e9
        check(m["source"] == "size" and "assumed the architecture of" in m["assumption"], "%s: %s" % (size, m))
        check(abs(m["params"] / want - 1) < 0.03, "%s: %d parameters" % (size, m["params"]))
        if layers:
            check(m["layers"] == layers, "%s: %d layers" % (size, m["layers"]))
    d = plan("h100x8-nvswitch.json", "--params", "7e9")
    check(d and d["model"]["layers"] == 32, "--params 7e9")
    for bad in ("-3B", "0", "abc", "1e20", "7Q"):
        p = subprocess.run([axl, "--sim", sim("h100x8-nvswitch.json"), "plan", "--params", bad], capture_output=True, text=True)
        check(p.returncode == 1 and bad in p.stderr, "--params %s: rc %d %s" % (bad, p.returncode, p.stderr.strip()))
    failures.extend(getattr(cp, "failures", []))  # schema failures recorded by check_plan
    print("%d failure(s)" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
