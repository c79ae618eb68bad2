#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl plan --registry FILE (docs/plan.md "ai-hwaccel's registry"): ai-hwaccel's registry
JSON, as the Rust crate's serde derive writes AcceleratorRegistry (schema 1-3) and as the
Cyrius port's registry_to_json writes it (schema 4-5), planned on; malformed registries
refused naming the file and the field; an empty node's empty plan. The files and where
they come from: PROVENANCE.md.

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
V4 = os.path.join(HERE, "cyrius-v4-renoir.json")
V5 = os.path.join(HERE, "cyrius-v5-h100x2.json")

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
    # a newer registry (the port's layout): read, with one warning naming the file and
    # both versions
    with open(V5) as f:
        doc = json.load(f)
    doc["schema_version"] = 9
    doc["profiles"][1]["hbm_stacks"] = 5
    newer = os.path.join(work, "newer.json")
    with open(newer, "w") as f:
        json.dump(doc, f)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", newer])
    check(rc == 0 and err.count("warning") == 1 and newer in err and "9" in err and "(5)" in err,
          "newer registry: %d %r" % (rc, err))


def case_registry_cyrius(axl, work):
    # ai-hwaccel's own fixture (schema 4): the ROCm and the Vulkan view of one laptop GPU,
    # named as axl names them, memory_bytes less memory_used_bytes; the host's 64 GB
    d = plan_json(axl, ["llama3.2-1b", "--registry", V4, "--devices", "amdgpu:0", "--quant", "int4"], "v4 amdgpu")
    if d:
        sh = d["plan"]["shards"] if d["plan"] else []
        check(d["fits"] and [s["device"] for s in sh] == ["amdgpu:0"], "v4: %s" % d.get("plan"))
        # what is free (memory_bytes - memory_used_bytes), below 0.90 of the total
        check(all(s["capacity_bytes"] == 3221225472 - 645857280 for s in sh), "v4 capacity: %s" % sh)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", V4])
    check(rc == 0 and "AMD Radeon (PCI 0x1002:0x1638)" in out and "RADV RENOIR" in out, "v4 text: %d %r %r" %
          (rc, out[:600], err))
    d = plan_json(axl, ["llama3.1-8b", "--registry", V4, "--devices", "cpu"], "v4 cpu")
    if d:
        check(d["fits"] and d["plan"]["shards"][0]["capacity_bytes"] <= 64166064128, "v4 cpu: %s" % d["plan"])
    # schema 5 of the H100 node: the same plan as the serde layout's (tp 2 over NVLink at
    # 450 GB/s, the roofline from mem_bandwidth_x1000 3352300), the unavailable Gaudi not
    # planned on, the InfiniBand port (state an address: said nothing) the network
    d = plan_json(axl, ["llama3.1-70b", "--registry", V5], "v5 registry")
    if d:
        check(d["fits"] and d["plan"]["strategy"]["tp"] == 2, "70b on v5: %s" % d.get("plan"))
        sh = d["plan"]["shards"]
        check(sorted(s["device"] for s in sh) == ["nvidia:0", "nvidia:1"], "v5 devices: %s" % sh)
        check(all(s.get("tp_link") == "fabric" and s.get("tp_link_gbps") == 450 for s in sh), "v5 link: %s" % sh)
        check("habana:0" not in json.dumps(d), "v5: the unavailable Gaudi planned on")
        roof = d["estimate"]["decode_roofline_tokens_per_s"]
        w = d["memory"]["weights_bytes"] / 2
        check(roof is not None and roof <= 3352.3e9 / w * 1.0001, "v5 roofline %s above 3352.3 GB/s / %d" % (roof, w))
        d0 = plan_json(axl, ["llama3.1-70b", "--registry", H100], "serde registry")
        if d0:
            check(d0["plan"]["strategy"] == d["plan"]["strategy"] and d0["estimate"] == d["estimate"],
                  "v5 and serde layouts of one node differ: %s / %s" % (d["estimate"], d0["estimate"]))
    d2 = plan_json(axl, ["llama3.1-405b", "--registry", V5, "--registry", V5, "--quant", "int4"], "two v5")
    if d2:
        check(d2["estimate"] is None or d2["estimate"]["factors"]["network_gbps"] == 50,
              "v5 network: %s" % (d2["estimate"] and d2["estimate"]["factors"]))
    # the port's readers ignore fields they do not know; so does axl for its layout
    with open(V5) as f:
        good = json.load(f)
    doc = json.loads(json.dumps(good))
    doc["profiles"][1]["hbm_stacks"] = 5
    doc["telemetry"] = {"x": 1}
    extra = os.path.join(work, "v5-extra.json")
    with open(extra, "w") as f:
        json.dump(doc, f)
    rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", extra])
    check(rc == 0 and "warning" not in err, "v5 with fields the port does not write: %d %r" % (rc, err))

    def bad(mutate, want, what):
        doc = json.loads(json.dumps(good))
        mutate(doc)
        path = os.path.join(work, "bad5-%s.json" % what)
        with open(path, "w") as f:
            json.dump(doc, f)
        rc, out, err = run(axl, ["plan", "llama3.1-8b", "--registry", path])
        check(rc == 1 and path in err and want in err and not out, "%s: rc %d %r (want %r)" % (what, rc, err, want))

    bad(lambda d: d["profiles"][1].__setitem__("accel_type_id", 99), "profiles[1].accel_type_id: 99", "typeid")
    bad(lambda d: (d["profiles"][1].pop("accel_type_id"), d["profiles"][1].__setitem__("accelerator", "Abacus GPU")),
        "unknown type \"Abacus GPU\"", "display")
    bad(lambda d: d["profiles"][1].__setitem__("accelerator", {"CudaGpu": {"device_id": 0}}),
        "profiles[1].accelerator: an object where a string belongs", "serdeinv5")
    bad(lambda d: d["profiles"][3].__setitem__("gaudi_gen", 7), "profiles[3].gaudi_gen: 7", "gen")
    bad(lambda d: d["profiles"][1].__setitem__("mem_bandwidth_x1000", 3352.3), "profiles[1].mem_bandwidth_x1000",
        "bwfloat")
    bad(lambda d: d["system_io"]["interconnects"][0].__setitem__("bandwidth_bytes_per_sec", "fast"),
        "interconnects[0].bandwidth_bytes_per_sec", "icbw")
    bad(lambda d: d["profiles"][2].__setitem__("device_id", 0), "a second device nvidia:0", "dup")


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


CASES = {"registry": case_registry, "registry_bad": case_registry_bad, "registry_empty": case_registry_empty,
         "registry_cyrius": case_registry_cyrius}


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
