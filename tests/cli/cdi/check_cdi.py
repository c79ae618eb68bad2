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
import stat
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
# (PCI vendor, family or None) -> kind, as docs/cdi.md lists them: axl's own CDI vendor,
# never the vendors' domains (nvidia-ctk and AMD's toolkit write those beside axl's)
KINDS = [("0x10de", None, "axl.dev/nvidia-gpu"), ("0x1002", "npu", "axl.dev/amd-npu"),
         ("0x1022", "npu", "axl.dev/amd-npu"), ("0x1002", None, "axl.dev/amd-gpu"),
         ("0x1da3", None, "axl.dev/habana-gaudi"), ("0x8086", "npu", "axl.dev/intel-npu"),
         ("0x8086", "gpu", "axl.dev/intel-gpu"), ("0x1d0f", None, "axl.dev/aws-neuron"),
         ("0x1ae0", None, "axl.dev/google-tpu"), ("0x19e5", None, "axl.dev/huawei-npu"),
         ("0x17cb", None, "axl.dev/qualcomm-qaic"), ("0x1e52", None, "axl.dev/tenstorrent-card"),
         ("0x1bcf", None, "axl.dev/nec-ve")]
# the vendors' own kinds, which axl never writes
VENDOR_KINDS = {"nvidia.com/gpu", "amd.com/gpu", "amd.com/npu", "habana.ai/gaudi", "intel.com/npu", "intel.com/gpu",
                "aws.amazon.com/neuron", "google.com/tpu", "huawei.com/npu", "qualcomm.com/qaic",
                "tenstorrent.com/card", "nec.com/ve"}


def kind_of(d):
    for vid, fam, kind in KINDS:
        if d.get("vendor_id") == vid and fam in (None, d.get("family")):
            return kind
    return "axl.dev/" + d.get("family", "unknown")


def spec_file(kind, ext="json"):
    """axl-CLASS.json for kind axl.dev/CLASS"""
    return "axl-%s.%s" % (kind.split("/", 1)[1], ext)
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
    want = sorted(spec_file(s["kind"]) for s in specs)
    check(files == want, "--output: files %s, want %s" % (files, want))
    for s in specs:
        f = os.path.join(out, spec_file(s["kind"]))
        if os.path.exists(f):
            check(json.load(open(f)) == s, "--output: %s is the spec" % f)
            check(oct(os.stat(f).st_mode & 0o777) == "0o644", "--output: %s mode 0644" % f)
    check(len(specs) >= 2, "laptop-npu-2gpu: several kinds (%d)" % len(specs))
    p = generate(axl, root, "--output", out, "--format", "yaml")
    check(len([f for f in os.listdir(out) if f.endswith(".yaml")]) == len(specs), "--output yaml files")
    check(not [f for f in os.listdir(out) if f.startswith(".")], "--output: no temporary files left")
    check(not [s for s in specs if s["kind"] in VENDOR_KINDS or not s["kind"].startswith("axl.dev/")],
          "--output: a vendor's own kind: %r" % [s["kind"] for s in specs])
    # the files an earlier axl wrote under the vendors' kinds (axl-intel.com-gpu.json) go,
    # a file of that name that is not axl's stays, and so does every other file
    for s in specs:
        vk = [k for k in VENDOR_KINDS if k.split("/")[0].split(".")[0] + "-" + k.split("/")[1] == s["kind"][8:]][0]
        with open(os.path.join(out, "axl-%s.json" % vk.replace("/", "-")), "w") as f:
            json.dump({"cdiVersion": "0.5.0", "kind": vk, "devices": []}, f, indent=2)
        with open(os.path.join(out, "axl-%s.yaml" % vk.replace("/", "-")), "w") as f:
            f.write("cdiVersion: 0.5.0\nkind: %s\ndevices: []\n" % vk)
    with open(os.path.join(out, "axl-nvidia.com-gpu.json"), "w") as f:
        f.write('{"kind": "someone.else/gpu"}')
    with open(os.path.join(out, "nvidia.yaml"), "w") as f:
        f.write("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n")
    p = generate(axl, root, "--output", out)
    left = sorted(os.listdir(out))
    check(left == sorted(want + ["axl-nvidia.com-gpu.json", "nvidia.yaml"] +
                         [spec_file(s["kind"], "yaml") for s in specs]),
          "--output: legacy files not removed, or others removed: %s" % left)
    # every legacy file but the one that is someone else's
    check(p.stdout.count("removed ") == 2 * len(specs) - 1, "--output: 'removed' lines: %r" % p.stdout)
    # a missing folder is made with those above it, as generators do (mkdir -p, 0755)
    deep = os.path.join(work, "no-such-dir", "cdi")
    shutil.rmtree(os.path.join(work, "no-such-dir"), ignore_errors=True)
    old = os.umask(0o022)
    try:
        p = generate(axl, root, "--output", deep, check_rc=False)
    finally:
        os.umask(old)
    check(p.returncode == 0 and sorted(os.listdir(deep)) == want,
          "--output to a missing directory: %d %r" % (p.returncode, p.stderr))
    check(all(stat.S_IMODE(os.stat(d).st_mode) == 0o755 for d in (deep, os.path.dirname(deep))),
          "--output: the folders made are not 0755")
    # what cannot be made is named once, with what is wrong with it
    with open(os.path.join(work, "a-file"), "w") as f:
        f.write("x\n")
    for target, why in ((os.path.join(work, "a-file"), "it exists and is not a directory"),
                        (os.path.join(work, "a-file", "cdi"), os.path.join(work, "a-file") + " is not a directory")):
        p = generate(axl, root, "--output", target, check_rc=False)
        check(p.returncode == 1 and p.stdout == "" and p.stderr == "axl: cannot create %s: %s\n" % (target, why),
              "--output %s: %d %r" % (target, p.returncode, p.stderr))
    if os.geteuid() != 0:
        ro = os.path.join(work, "read-only")
        os.makedirs(ro, exist_ok=True)
        os.chmod(ro, 0o500)
        p = generate(axl, root, "--output", os.path.join(ro, "cdi"), check_rc=False)
        os.chmod(ro, 0o700)
        check(p.returncode == 1 and p.stderr == "axl: cannot create %s: permission denied in %s\n" %
              (os.path.join(ro, "cdi"), ro), "--output in a read-only folder: %r" % p.stderr)
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
    check("axl.dev/nvidia-gpu=0" in got and "axl.dev/nvidia-gpu=all" in got and
          "axl.dev/nvidia-gpu=GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa" in got, "hgx-8x-h100: names")
    check(run(axl, "cdi", "list", "--sysroot", tree(work, "gaudi2-8x.json")).stdout.startswith(
        "axl.dev/habana-gaudi=0\n"), "gaudi2-8x: axl.dev/habana-gaudi=0")
    check("axl.dev/aws-neuron=all" in run(axl, "cdi", "list", "--sysroot", tree(work, "inf2-48xl.json")).stdout,
          "inf2-48xl: axl.dev/aws-neuron")
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


def mkfile(root, path, target=None):
    """a file (or, with target, a symbolic link to it) at path inside root"""
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if target is None:
        open(full, "w").close()
    else:
        os.symlink(target, full)


def mounts_of(s):
    return [(m["hostPath"], m["containerPath"]) for m in s.get("containerEdits", {}).get("mounts", [])]


def driver_layouts(work):
    """driver roots as users have them, each (name, root, extra args, mounts wanted)"""
    out = []
    # Debian 12's non-free packages (libcuda1, libnvidia-ml1, nvidia-smi 535): the names in
    # the library folder are absolute links through /etc/alternatives (update-alternatives)
    deb = os.path.join(work, "root-debian")
    shutil.rmtree(deb, ignore_errors=True)
    cur = "/usr/lib/x86_64-linux-gnu/nvidia/current"
    for lib in ["libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler"]:
        mkfile(deb, "%s/%s.so.535.261.03" % (cur, lib))
        mkfile(deb, "%s/%s.so.1" % (cur, lib), "%s.so.535.261.03" % lib)
        alt = "/etc/alternatives/nvidia--%s.so.1-x86_64-linux-gnu" % lib
        mkfile(deb, alt, "%s/%s.so.1" % (cur, lib))
        mkfile(deb, "/usr/lib/x86_64-linux-gnu/%s.so.1" % lib, alt)
    mkfile(deb, "/usr/lib/x86_64-linux-gnu/libcuda.so", "/etc/alternatives/nvidia--libcuda.so-x86_64-linux-gnu")
    mkfile(deb, "/usr/lib/nvidia/current/nvidia-smi")
    mkfile(deb, "/etc/alternatives/nvidia--nvidia-smi", "/usr/lib/nvidia/current/nvidia-smi")
    mkfile(deb, "/usr/bin/nvidia-smi", "/etc/alternatives/nvidia--nvidia-smi")
    mkfile(deb, "/lib", "usr/lib")  # merged /usr: read once
    want = [("%s/%s.so.535.261.03" % (cur, lib), "/usr/lib/x86_64-linux-gnu/%s.so.1" % lib)
            for lib in ["libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler"]]
    want.append(("/usr/lib/nvidia/current/nvidia-smi", "/usr/bin/nvidia-smi"))
    out.append(("debian", deb, [], want))
    # the same root seen through --driver-root-host: the paths on the host gain its prefix
    out.append(("debian at /srv/node", deb, ["--driver-root-host", "/srv/node"],
                [("/srv/node" + h, c) for h, c in want]))
    # the GPU Operator's driver container, its root at /run/nvidia/driver on the host
    # (relative links inside, as the .run installer makes them)
    gop = os.path.join(work, "root-gpu-operator")
    shutil.rmtree(gop, ignore_errors=True)
    for lib in ["libcuda", "libnvidia-ml"]:
        mkfile(gop, "/usr/lib/x86_64-linux-gnu/%s.so.550.54.15" % lib)
        mkfile(gop, "/usr/lib/x86_64-linux-gnu/%s.so.1" % lib, "%s.so.550.54.15" % lib)
    mkfile(gop, "/usr/bin/nvidia-smi")
    want = []
    for lib in ["libcuda", "libnvidia-ml"]:
        f = "/usr/lib/x86_64-linux-gnu/%s.so.550.54.15" % lib
        want += [("/run/nvidia/driver" + f, "/usr/lib/x86_64-linux-gnu/%s.so.1" % lib), ("/run/nvidia/driver" + f, f)]
    want = sorted(want, key=lambda m: m[1]) + [("/run/nvidia/driver/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi")]
    out.append(("gpu-operator", gop, ["--driver-root-host", "/run/nvidia/driver"], want))
    # RHEL: /usr/lib64, reached as /lib64 too (an absolute link here)
    rh = os.path.join(work, "root-rhel")
    shutil.rmtree(rh, ignore_errors=True)
    mkfile(rh, "/usr/lib64/libcuda.so.550.54.15")
    mkfile(rh, "/usr/lib64/libcuda.so.1", "libcuda.so.550.54.15")
    mkfile(rh, "/lib64", "/usr/lib64")
    out.append(("rhel", rh, [], [("/usr/lib64/libcuda.so.550.54.15", "/usr/lib64/libcuda.so.1"),
                                 ("/usr/lib64/libcuda.so.550.54.15", "/usr/lib64/libcuda.so.550.54.15")]))
    # a container that mounts only the host's library folder: /etc/alternatives is not
    # there, so Debian's links lead nowhere and nothing is mounted
    only = os.path.join(work, "root-libdir-only")
    shutil.rmtree(only, ignore_errors=True)
    shutil.copytree(os.path.join(deb, "usr/lib/x86_64-linux-gnu"), only + "/usr/lib/x86_64-linux-gnu", symlinks=True)
    out.append(("library folder only", only, [], []))
    return out


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
        # a link is mounted from the file it leads to on the node
        want_host = m["containerPath"].replace("libcuda.so.1", "libcuda.so.550.54.15")
        check(m["hostPath"] == want_host, "libraries: hostPath %s for %s" % (m["hostPath"], m["containerPath"]))
        check(m["options"] == ["ro", "nosuid", "nodev", "bind"], "libraries: read-only bind")
    try:
        validate_spec(validator(), s, "libraries")
    except ImportError:
        pass

    # --driver-root: the node's tree stays the sysroot, the files come from the driver root
    for name, droot, extra, want in driver_layouts(work):
        for how in ("option", "variable"):
            if how == "option":
                p = generate(axl, src, "--driver-root", droot, *extra)
            else:
                env = dict(os.environ, AXL_DRIVER_ROOT=droot)
                if extra:
                    env["AXL_DRIVER_ROOT_HOST"] = extra[1]
                p = generate(axl, src, env=env)
            got = mounts_of(json.loads(p.stdout))
            check(got == want, "driver root %s (%s): mounts %s, want %s" % (name, how, got, want))
    # bad driver roots: a clear error, no spec
    with open(os.path.join(work, "a-file"), "w") as f:
        f.write("x\n")
    for bad, msg in [("relative/dir", "not an absolute path"), (os.path.join(work, "nope"), "no such directory"),
                     (os.path.join(work, "a-file"), "not a directory")]:
        p = generate(axl, src, "--driver-root", bad, check_rc=False)
        check(p.returncode == 1 and msg in p.stderr and p.stdout == "", "--driver-root %s: %r" % (bad, p.stderr))
    # a host path that is not absolute: a usage error naming the option or the variable
    p = generate(axl, src, "--driver-root", "/", "--driver-root-host", "run/nvidia/driver", check_rc=False)
    check(p.returncode == 2 and "--driver-root-host 'run/nvidia/driver'" in p.stderr and p.stdout == "",
          "--driver-root-host relative: %d %r" % (p.returncode, p.stderr))
    p = run(axl, "cdi", "list", "--sysroot", src, env=dict(os.environ, AXL_DRIVER_ROOT_HOST="x"), check_rc=False)
    check(p.returncode == 2 and "AXL_DRIVER_ROOT_HOST 'x'" in p.stderr, "AXL_DRIVER_ROOT_HOST relative: %r" % p.stderr)
    p = subprocess.run([axl, "device-plugin", "--driver-root-host", "x", "--kubelet-dir", work], capture_output=True,
                       text=True, timeout=20)
    check(p.returncode == 2 and "--driver-root-host 'x'" in p.stderr, "device-plugin --driver-root-host x: %r" % p.stderr)
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
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
