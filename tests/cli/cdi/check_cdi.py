#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl cdi generate / axl cdi list on synthetic trees: every node's specs against the
CNCF CDI schema (tests/cli/cdi/schema), names (index, UUID, partitions, all), device nodes,
YAML against JSON, --output DIR, cdi list, MIG devices through the NVML double, and the
vendor libraries found in a tree.

usage: check_cdi.py --axl AXL --work DIR --case NAME [--double LIBNVML]
       check_cdi.py --list
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
NODES = os.path.join(ROOT, "tests", "trees", "nodes")
MKTREE = os.path.join(ROOT, "tests", "trees", "mktree.py")
SCHEMA_DIR = os.path.join(HERE, "schema")
NVML_XML = os.path.join(ROOT, "tests", "vendorlib", "nvml", "double", "fixtures", "telegraf-a100-sxm4-v12.xml")

CASES = ["schema", "names", "yaml", "output", "list", "mig", "libraries", "options"]
# CDI name rules (container-device-interface pkg/parser)
NAME_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?$")
KIND_RE = re.compile(r"^[A-Za-z]([A-Za-z0-9.-]*[A-Za-z0-9])?/[A-Za-z0-9]([A-Za-z0-9_-]*[A-Za-z0-9])?$")
# (PCI vendor, family or None) -> kind, as docs/cdi.md lists them
KINDS = [("0x10de", None, "nvidia.com/gpu"), ("0x1002", "npu", "amd.com/npu"), ("0x1022", "npu", "amd.com/npu"),
         ("0x1002", None, "amd.com/gpu"), ("0x1da3", None, "habana.ai/gaudi"), ("0x8086", "npu", "intel.com/npu"),
         ("0x8086", "gpu", "intel.com/gpu"), ("0x1d0f", None, "aws.amazon.com/neuron"),
         ("0x1ae0", None, "google.com/tpu"), ("0x19e5", None, "huawei.com/npu"), ("0x17cb", None, "qualcomm.com/qaic"),
         ("0x1e52", None, "tenstorrent.com/card"), ("0x1bcf", None, "nec.com/ve")]


def kind_of(d):
    for vid, fam, kind in KINDS:
        if d.get("vendor_id") == vid and fam in (None, d.get("family")):
            return kind
    return "axl/" + d.get("family", "unknown")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def node_specs():
    return [f for f in sorted(os.listdir(NODES))
            if not f.endswith(".expect.json") and (f.endswith(".json") or f.endswith(".json.gz"))]


def tree(work, spec):
    dst = os.path.join(work, spec.split(".json")[0])
    if not os.path.isdir(dst):
        subprocess.run([sys.executable, MKTREE, os.path.join(NODES, spec), dst], check=True)
    return dst


def run(axl, *args, env=None, check_rc=True):
    e = dict(os.environ)
    for k in ("AXL_SYSROOT", "AXL_NVML_LIBRARY", "AXL_BACKENDS"):
        e.pop(k, None)
    if env:
        e.update(env)
    p = subprocess.run([axl] + list(args), capture_output=True, text=True, env=e, timeout=120)
    if check_rc and p.returncode != 0:
        failures.append("axl %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-500:]))
    return p


def as_list(doc):
    return doc if isinstance(doc, list) else [doc]


def validator():
    """schema.json refers to defs.json by relative name: resolve it in tests/cli/cdi/schema
    (referencing with jsonschema >= 4.18, RefResolver with Debian 12's 4.10)."""
    from jsonschema import Draft7Validator
    schema = json.load(open(os.path.join(SCHEMA_DIR, "schema.json")))
    defs = json.load(open(os.path.join(SCHEMA_DIR, "defs.json")))
    Draft7Validator.check_schema(schema)
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT7
    except ImportError:
        from jsonschema import RefResolver
        base = "file://" + SCHEMA_DIR + "/"
        res = RefResolver(base_uri=base + "schema.json", referrer=schema, store={base + "defs.json": defs})
        return Draft7Validator(schema, resolver=res)
    reg = Registry().with_resources([("defs.json", Resource(contents=defs, specification=DRAFT7))])
    return Draft7Validator(schema, registry=reg)


def validate_spec(v, spec, tag):
    errs = sorted(v.iter_errors(spec), key=lambda e: list(e.path))
    for e in errs[:5]:
        check(False, "%s: schema: %s at %s" % (tag, e.message, list(e.path)))
    check(spec.get("cdiVersion") == "0.5.0", tag + ": cdiVersion 0.5.0")
    check(KIND_RE.match(spec.get("kind", "")) is not None, tag + ": kind %r" % spec.get("kind"))
    names = [d["name"] for d in spec.get("devices", [])]
    check(len(names) == len(set(names)), tag + ": device names unique")
    for n in names:
        check(NAME_RE.match(n) is not None, tag + ": device name %r" % n)
    for d in spec.get("devices", []):
        ce = d["containerEdits"]
        check(ce.get("deviceNodes") or ce.get("mounts") or ce.get("env"), tag + ": %s has edits" % d["name"])


def inventory(axl, root, env=None):
    p = run(axl, "list", "--json", *(["--sysroot", root] if root else []), env=env)
    return json.loads(p.stdout)["devices"]


def generate(axl, root, *extra, env=None, check_rc=True):
    p = run(axl, "cdi", "generate", *(["--sysroot", root] if root else []), *extra, env=env, check_rc=check_rc)
    return p


def case_schema(axl, work):
    try:
        v = validator()
    except ImportError:
        print("python3-jsonschema is missing")
        return 77
    bad = {"cdiVersion": "0.5.0", "kind": "a.com/b",
           "devices": [{"name": "x", "containerEdits": {"deviceNodes": [{"hostPath": "/dev/x", "major": "1"}]}}]}
    check(len(list(v.iter_errors(bad))) == 2, "the validator rejects a node without path and a string major")
    for spec in node_specs():
        root = tree(work, spec)
        p = generate(axl, root)
        if p.returncode:
            continue
        specs = as_list(json.loads(p.stdout))
        check(isinstance(json.loads(p.stdout), list) == (len(specs) != 1), spec + ": an array only for several")
        for s in specs:
            validate_spec(v, s, "%s %s" % (spec, s.get("kind")))
    return 0


def case_names(axl, work):
    """Each accelerator with device nodes has an index device and a UUID device; every
    kind an `all` device; every node the spec names exists in the tree's /dev."""
    for spec in node_specs():
        root = tree(work, spec)
        devs = inventory(axl, root)
        specs = as_list(json.loads(generate(axl, root).stdout))
        bykind = {s["kind"]: s for s in specs}
        for s in specs:
            names = [d["name"] for d in s["devices"]]
            check("all" in names and names[-1] == "all", "%s %s: all device last" % (spec, s["kind"]))
            paths = [n["path"] for d in s["devices"] for n in d["containerEdits"].get("deviceNodes", [])]
            paths += [n["path"] for n in s.get("containerEdits", {}).get("deviceNodes", [])]
            for pth in paths:
                check(pth.startswith("/dev/"), "%s: %s under /dev" % (spec, pth))
                check(os.path.lexists(root + pth), "%s: %s exists in the tree" % (spec, pth))
            for d in s["devices"]:
                for n in d["containerEdits"].get("deviceNodes", []):
                    check(n.get("hostPath") == n["path"], "%s: hostPath %s" % (spec, n["path"]))
        for d in devs:
            if d.get("family") == "cpu" or not d.get("device_nodes"):
                continue
            if not d.get("vendor_id"):
                continue  # no PCI vendor (hwloc): the kind comes from the id's backend
            kind = kind_of(d)
            check(kind in bykind, "%s: kind %s for %s" % (spec, kind, d["id"]))
            s = bykind.get(kind)
            if not s:
                continue
            names = {x["name"]: x for x in s["devices"]}
            check(str(d.get("index")) in names, "%s: index device %s for %s" % (spec, d.get("index"), d["id"]))
            if d.get("uuid"):
                check(d["uuid"] in names, "%s: UUID device for %s" % (spec, d["id"]))
            own = [n for n in d["device_nodes"]]
            got = [n["path"] for n in names.get(str(d.get("index")), {}).get("containerEdits", {}).get("deviceNodes", [])]
            common = [n["path"] for n in s.get("containerEdits", {}).get("deviceNodes", [])]
            check(set(own) <= set(got) | set(common), "%s: %s gets all its nodes" % (spec, d["id"]))
            for i, c in enumerate(d.get("children", [])):
                if c.get("device_nodes"):
                    check("%s:%d" % (d.get("index"), i) in names, "%s: partition device %s:%d" % (spec, d.get("index"), i))
                    if c.get("uuid"):
                        check(c["uuid"] in names, "%s: partition UUID device %s" % (spec, c["uuid"]))
    # the node with AMD compute partitions: a device per partition, with its render node
    root = tree(work, "mi300x-2x-cpx-nps4.json")
    s = json.loads(generate(axl, root).stdout)
    names = {x["name"]: x for x in s["devices"]}
    check("0:0" in names and "1:7" in names, "mi300x-2x-cpx-nps4: partition devices 0:0 .. 1:7")
    if "0:0" in names:
        nodes = [n["path"] for n in names["0:0"]["containerEdits"]["deviceNodes"]]
        check(nodes == ["/dev/dri/renderD128"], "mi300x-2x-cpx-nps4: 0:0 is renderD128, got %s" % nodes)
    common = [n["path"] for n in s.get("containerEdits", {}).get("deviceNodes", [])]
    check("/dev/kfd" in common, "mi300x-2x-cpx-nps4: /dev/kfd for every device")
    return 0


def case_yaml(axl, work):
    try:
        import yaml
    except ImportError:
        print("python3-yaml is missing")
        return 77
    for spec in node_specs():
        root = tree(work, spec)
        j = generate(axl, root)
        y = generate(axl, root, "--format", "yaml")
        if j.returncode or y.returncode:
            continue
        docs = [d for d in yaml.safe_load_all(y.stdout) if d is not None]
        check(docs == as_list(json.loads(j.stdout)), spec + ": YAML is the JSON")
    return 0


def case_output(axl, work):
    root = tree(work, "laptop-npu-2gpu.json")
    out = os.path.join(work, "out-laptop")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    specs = as_list(json.loads(generate(axl, root).stdout))
    p = generate(axl, root, "--output", out)
    files = sorted(os.listdir(out))
    want = sorted("axl-%s.json" % s["kind"].replace("/", "-") for s in specs)
    check(files == want, "--output: files %s, want %s" % (files, want))
    for s in specs:
        f = os.path.join(out, "axl-%s.json" % s["kind"].replace("/", "-"))
        if os.path.exists(f):
            check(json.load(open(f)) == s, "--output: %s is the spec" % f)
            check(oct(os.stat(f).st_mode & 0o777) == "0o644", "--output: %s mode 0644" % f)
    check(len(specs) >= 2, "laptop-npu-2gpu: several kinds (%d)" % len(specs))
    p = generate(axl, root, "--output", out, "--format", "yaml")
    check(len([f for f in os.listdir(out) if f.endswith(".yaml")]) == len(specs), "--output yaml files")
    check(not [f for f in os.listdir(out) if f.startswith(".")], "--output: no temporary files left")
    p = generate(axl, root, "--output", os.path.join(work, "no-such-dir"), check_rc=False)
    check(p.returncode == 1, "--output to a missing directory fails")
    return 0


def case_list(axl, work):
    for spec in ["hgx-8x-h100.json", "gaudi2-8x.json", "inf2-48xl.json", "mi300x-2x-cpx-nps4.json"]:
        root = tree(work, spec)
        specs = as_list(json.loads(generate(axl, root).stdout))
        want = ["%s=%s" % (s["kind"], d["name"]) for s in specs for d in s["devices"]]
        got = run(axl, "cdi", "list", "--sysroot", root).stdout.split()
        check(got == want, "%s: cdi list %s" % (spec, got[:4]))
        gj = json.loads(run(axl, "cdi", "list", "--json", "--sysroot", root).stdout)
        check(gj == want, spec + ": cdi list --json")
    got = run(axl, "cdi", "list", "--sysroot", tree(work, "hgx-8x-h100.json")).stdout.split()
    check("nvidia.com/gpu=0" in got and "nvidia.com/gpu=all" in got and
          "nvidia.com/gpu=GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa" in got, "hgx-8x-h100: names")
    check(run(axl, "cdi", "list", "--sysroot", tree(work, "gaudi2-8x.json")).stdout.startswith("habana.ai/gaudi=0\n"),
          "gaudi2-8x: habana.ai/gaudi=0")
    check("aws.amazon.com/neuron=all" in run(axl, "cdi", "list", "--sysroot", tree(work, "inf2-48xl.json")).stdout,
          "inf2-48xl: aws.amazon.com/neuron")
    return 0


def case_mig(axl, work, double):
    if not double or not os.path.exists(double):
        print("no NVML double")
        return 77
    env = {"AXL_NVML_LIBRARY": double, "AXL_NVML_DOUBLE_XML": NVML_XML}
    devs = inventory(axl, None, env=env)
    p = run(axl, "cdi", "generate", env=env)
    s = json.loads(p.stdout)
    names = {x["name"]: x for x in s["devices"]}
    gpu = [d for d in devs if d["id"] == "nvidia:0"][0]
    check(len(gpu.get("children", [])) == 4, "mig: 4 MIG devices in the inventory")
    for i, c in enumerate(gpu.get("children", [])):
        check("0:%d" % i in names, "mig: device 0:%d" % i)
        check(c["uuid"] in names, "mig: device %s" % c["uuid"])
        if "0:%d" % i in names:
            nodes = [n["path"] for n in names["0:%d" % i]["containerEdits"]["deviceNodes"]]
            check(nodes[0] == gpu["device_nodes"][2], "mig: 0:%d has the GPU's node (%s)" % (i, nodes))
    common = s.get("containerEdits", {})
    check("NVIDIA_VISIBLE_DEVICES=void" in common.get("env", []), "mig: NVIDIA_VISIBLE_DEVICES=void")
    check("/dev/nvidiactl" in [n["path"] for n in common.get("deviceNodes", [])], "mig: /dev/nvidiactl common")
    try:
        validate_spec(validator(), s, "mig")
    except ImportError:
        pass
    return 0


def case_libraries(axl, work):
    src = tree(work, "hgx-8x-h100.json")
    root = os.path.join(work, "hgx-libs")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(src, root, symlinks=True)
    lib = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    os.makedirs(lib)
    for f in ["libcuda.so.550.54.15", "libnvidia-ml.so.550.54.15", "libnvidia-ptxjitcompiler.so.550.54.15",
              "libfoo.so.1"]:
        open(os.path.join(lib, f), "w").close()
    os.symlink("libcuda.so.550.54.15", os.path.join(lib, "libcuda.so.1"))
    os.symlink("libcuda.so.1", os.path.join(lib, "libcuda.so"))  # a dev link: not mounted
    os.symlink("libnvidia-ml.so.999", os.path.join(lib, "libnvidia-ml.so.1"))  # dangling
    os.makedirs(os.path.join(root, "usr/bin"))
    open(os.path.join(root, "usr/bin/nvidia-smi"), "w").close()
    s = json.loads(generate(axl, root).stdout)
    mounts = s.get("containerEdits", {}).get("mounts", [])
    got = [m["containerPath"] for m in mounts]
    want = ["/usr/lib/x86_64-linux-gnu/" + f for f in
            ["libcuda.so.1", "libcuda.so.550.54.15", "libnvidia-ml.so.550.54.15",
             "libnvidia-ptxjitcompiler.so.550.54.15"]] + ["/usr/bin/nvidia-smi"]
    check(got == want, "libraries: mounts %s" % got)
    for m in mounts:
        check(m["hostPath"] == m["containerPath"], "libraries: hostPath is the node's path")
        check(m["options"] == ["ro", "nosuid", "nodev", "bind"], "libraries: read-only bind")
    try:
        validate_spec(validator(), s, "libraries")
    except ImportError:
        pass
    return 0


def case_options(axl, work):
    root = tree(work, "gaudi2-8x.json")
    for args, rc in [(["cdi"], 2), (["cdi", "frob"], 2), (["cdi", "generate", "--format", "xml"], 2),
                     (["cdi", "list", "--format", "yaml"], 2), (["list", "--format", "yaml"], 2)]:
        p = run(axl, *args, "--sysroot", root, check_rc=False)
        check(p.returncode == rc, "%s: exit %d, want %d" % (" ".join(args), p.returncode, rc))
    # a node without accelerator device nodes: an empty array, and a note
    p = generate(axl, tree(work, "gpud-qemu-a10-lspci-nn.json"))
    check(json.loads(p.stdout) == [] and "no spec" in p.stderr, "no devices: [] and a note")
    p = generate(axl, tree(work, "gpud-qemu-a10-lspci-nn.json"), "--format", "yaml")
    check(p.stdout == "", "no devices: empty YAML stream")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--double")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    a.work = os.path.join(a.work, a.case)  # a folder per case: cases run in parallel
    os.makedirs(a.work, exist_ok=True)
    if a.case == "mig":
        rc = case_mig(a.axl, a.work, a.double)
    else:
        rc = globals()["case_" + a.case](a.axl, a.work)
    if rc == 77:
        return 77
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
