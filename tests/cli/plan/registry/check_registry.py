#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl plan --registry FILE (docs/plan.md "ai-hwaccel's registry"): ai-hwaccel's registry
JSON, as the Rust crate's serde derive writes AcceleratorRegistry, planned on; malformed
registries refused naming the file and the field; an empty node's empty plan.

The registries here are written by hand from the crate's structs at MacCracken/ai-hwaccel
commit 1db91af878a32f9ebdb0c7aa1af18e5151e5ba73 (1.2.0, the last Rust release, registry
SCHEMA_VERSION 3): src/registry.rs (AcceleratorRegistry: schema_version, profiles,
warnings, system_io; deny_unknown_fields), src/profile.rs (AcceleratorProfile),
src/hardware/mod.rs (AcceleratorType, externally tagged), src/system_io.rs (SystemIo,
Interconnect, InterconnectKind), src/error.rs (DetectionError).

usage: check_registry.py --axl PATH/axl --work DIR --case CASE
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
SCHEMA = os.path.join(SRC, "schema", "axl-plan.schema.json")
H100 = os.path.join(HERE, "h100x2-nvlink.json")
TPU = os.path.join(HERE, "tpu-v5e.json")
EMPTY = os.path.join(HERE, "empty.json")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: %s" % what)
    return cond


def run(axl, args):
    p = subprocess.run([axl] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def validate(doc, what):
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("note: no jsonschema module; %s not validated" % what)
        return True
    with open(SCHEMA) as f:
        v = Draft202012Validator(json.load(f))
    errs = ["%s: %s" % ("/".join(str(x) for x in e.absolute_path), e.message) for e in v.iter_errors(doc)]
    return check(not errs, "%s: schema: %s" % (what, "; ".join(errs[:3])))


def plan_json(axl, args, what):
    rc, out, err = run(axl, ["plan"] + args + ["--json"])
    if not check(rc == 0, "%s: rc %d: %s" % (what, rc, err.strip())):
        return None
    d = json.loads(out)
    validate(d, what)
    return d


def case_registry(axl, work):
    # 2 x H100 with NVLink: the 70B splits tp 2 over the fabric at the registry's 450 GB/s;
    # the unavailable Gaudi is not planned on; the host is the Cpu profile
    d = plan_json(axl, ["llama3.1-70b", "--registry", H100], "h100 registry")
    if d:
        check(d["fits"] and d["plan"]["strategy"]["tp"] == 2, "70b on the registry: %s" % d.get("plan"))
        sh = d["plan"]["shards"]
        check(sorted(s["device"] for s in sh) == ["nvidia:0", "nvidia:1"], "devices: %s" % sh)
        check(all(s.get("tp_link") == "fabric" and s.get("tp_link_gbps") == 450 for s in sh), "link: %s" % sh)
        # capacity: vLLM's 0.90 of memory_bytes
        cap = int(0.9 * 85520809984)
        check(all(abs(s["capacity_bytes"] - cap) <= 1 for s in sh), "capacity %s vs %d" % (sh, cap))
        check("habana:0" not in json.dumps(d), "the unavailable Gaudi planned on")
        # the decode roofline comes from the registry's 3352.3 GB/s
        roof = d["estimate"]["decode_roofline_tokens_per_s"]
        w = d["memory"]["weights_bytes"] / 2
        check(roof is not None and roof <= 3352.3e9 / w * 1.0001, "roofline %s above 3352.3 GB/s / %d" % (roof, w))
        # the network between nodes: the ACTIVE InfiniBand port (GB/s)
        d2 = plan_json(axl, ["llama3.1-405b", "--registry", H100, "--registry", H100, "--quant", "int4"], "two registries")
        if d2:
            check(d2["estimate"] is None or d2["estimate"]["factors"]["network_gbps"] == 50,
                  "network: %s" % (d2["estimate"] and d2["estimate"]["factors"]))
    rc, out, err = run(axl, ["plan", "llama3.1-70b", "--registry", H100])
    check(rc == 0 and "nvidia:0,nvidia:1" in out and "fabric 450 GB/s" in out, "text: %s %s" % (out, err))
    # --devices names them as axl does; --devices cpu plans on the Cpu profile's 512 GiB
    d = plan_json(axl, ["llama3.1-8b", "--registry", H100, "--devices", "nvidia:1"], "devices nvidia:1")
    if d:
        check([s["device"] for s in d["plan"]["shards"]] == ["nvidia:1"], "--devices: %s" % d["plan"])
    d = plan_json(axl, ["llama3.1-8b", "--registry", H100, "--devices", "cpu"], "devices cpu")
    if d:
        check(d["fits"] and d["plan"]["shards"][0]["capacity_bytes"] <= 549755813888, "cpu: %s" % d["plan"])
    # schema_version 1, unit variants, a TPU by its version; an NPU whose memory the crate
    # wrote as 0 (not known) is not given 0 bytes
    d = plan_json(axl, ["llama3.1-8b", "--registry", TPU], "tpu registry")
    if d:
        check(d["fits"] and d["plan"]["shards"][0]["device"] == "tpu:0", "tpu: %s" % d["plan"])
    # as a --node file it is no inventory, and --sysroot with --registry is refused
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--node", H100])
    check(rc != 0 and "axl.inventory" in err, "registry as --node: %d %s" % (rc, err))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", H100, "--sysroot", work])
    check(rc != 0 and "--registry" in err, "--sysroot with --registry: %d %s" % (rc, err))
    # a newer registry: read, with one warning naming the file and both versions
    with open(H100) as f:
        doc = json.load(f)
    doc["schema_version"] = 9
    doc["profiles"][1]["hbm_stacks"] = 5
    newer = os.path.join(work, "newer.json")
    with open(newer, "w") as f:
        json.dump(doc, f)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", newer])
    check(rc == 0 and err.count("warning") == 1 and newer in err and "9" in err and "(3)" in err,
          "newer registry: %d %r" % (rc, err))


def case_registry_bad(axl, work):
    with open(H100) as f:
        good = json.load(f)

    def bad(mutate, want, what):
        doc = json.loads(json.dumps(good))
        mutate(doc)
        path = os.path.join(work, "bad-%s.json" % what)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", path])
        check(rc == 1 and path in err and want in err and not out, "%s: rc %d %r (want %r)" % (what, rc, err, want))

    bad(lambda d: d["profiles"][1].__setitem__("memory_bytes", "80GB"), "profiles[1].memory_bytes", "memstr")
    bad(lambda d: d["profiles"][2].pop("memory_bytes"), "profiles[2]: \"memory_bytes\" is missing", "memmissing")
    bad(lambda d: d["profiles"][1].__setitem__("accelerator", {"CudaGpu": {}}), "accelerator.CudaGpu: \"device_id\"",
        "devid")
    bad(lambda d: d["profiles"][1].__setitem__("accelerator", "Abacus"), "unknown variant \"Abacus\"", "variant")
    bad(lambda d: d["profiles"][1].__setitem__("accelerator", "CudaGpu"), "struct variant", "unitstruct")
    bad(lambda d: d["profiles"][3]["accelerator"]["Gaudi"].__setitem__("generation", "Gaudi9"), "generation", "gen")
    bad(lambda d: d["profiles"][1].__setitem__("vram", 1), "unknown field \"vram\"", "unknown")
    bad(lambda d: d["profiles"][1].__setitem__("available", "yes"), "profiles[1].available", "avail")
    bad(lambda d: d.pop("profiles"), "\"profiles\" is missing", "noprofiles")
    bad(lambda d: d["system_io"]["interconnects"][0].__setitem__("bandwidth_gbps", "fast"),
        "interconnects[0].bandwidth_gbps", "icbw")
    bad(lambda d: d["profiles"].append(d["profiles"][1]), "a second device nvidia:0", "dup")
    path = os.path.join(work, "bad-truncated.json")
    with open(H100) as f, open(path, "w") as g:
        g.write(f.read()[:300])
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", path])
    check(rc == 1 and path in err and "ai-hwaccel registry" in err, "truncated: %d %r" % (rc, err))
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", ""])
    check(rc == 2 and "--registry needs a file" in err, "empty name: %d %r" % (rc, err))


def case_registry_empty(axl, work):
    # ai-hwaccel's plan_sharding returns an empty plan (no shards, no estimate) for a
    # registry without available devices; axl gives an empty plan with the reason, exit 0
    for src in (["--registry", EMPTY], ["--sysroot", os.path.join(work, "empty-tree")]):
        os.makedirs(os.path.join(work, "empty-tree"), exist_ok=True)
        d = plan_json(axl, ["llama3.1-8b"] + src, "empty %s" % src)
        if d:
            check(d["fits"] is False and d["plan"] is None and d["estimate"] is None and d["alternatives"] == [] and
                  "shortfall" not in d and d["shortfall_bytes"] == d["memory"]["total_bytes"] > 0 and
                  d["reason"].startswith("no devices to plan on"), "empty plan %s: %s" % (src, d))
        rc, out, err = run(axl, ["plan", "llama3.1-8b"] + src)
        check(rc == 0 and "no devices to plan on" in out and "Plan          none" in out, "empty text %s: %d %r %r" %
              (src, rc, out, err))
    # bad options are still named first
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", EMPTY, "--quant", "int3"])
    check(rc == 1 and "int3" in err and not out, "bad option on an empty registry: %d %r" % (rc, err))


CASES = {"registry": case_registry, "registry_bad": case_registry_bad, "registry_empty": case_registry_empty}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    a = ap.parse_args()
    work = os.path.join(a.work, a.case)
    os.makedirs(work, exist_ok=True)
    CASES[a.case](a.axl, work)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
