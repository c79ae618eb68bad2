#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Visibility tests: the 8-accelerator synthetic trees (tests/trees/nodes) turned into
containers (device nodes removed, a cgroup v1 device list) and run with visibility
variables (`axl list --json --env NAME=VALUE`). Each case checks exactly which devices
are visible, what the reason says, and that no device disappears.

  visibility.py --axl build/axl --work build/visibility --case NAME   one case (CTest)
  visibility.py --axl build/axl --work build/visibility --all         every case
  visibility.py --list                                                the case names
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
NODES = os.path.join(TOP, "tests", "trees", "nodes")
SCHEMA = os.path.join(TOP, "schema", "axl-inventory.schema.json")

HGX_UUID = {2: "GPU-167d8376-ee13-fca4-938a-a05167c43cdc", 5: "GPU-980ea11b-91dc-db7b-72ac-0685abc43658"}
MI300X_UUID = {3: "GPU-71d0b8e3c4a25e13", 6: "GPU-0f6ab3c8d2e47196"}


def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.get("children", []))


def pci_nodes(spec):
    for root in spec["pci"]:
        yield from walk(root["devices"])


# ---- spec and tree changes ----------------------------------------------------------------

def second_model(spec):
    """Make nvidia:6 and nvidia:7 H100 PCIe boards: the GPUs differ, CUDA's default
    order (fastest first) may differ from PCI order."""
    gpus = [n for n in pci_nodes(spec) if "nvidia" in n]
    for n in gpus[6:]:
        n["nvidia"]["model"] = "NVIDIA H100 PCIe"


def reverse_modules(spec):
    """Module ids (OAM slots) in reverse PCI order, so module id and index differ."""
    gaudis = [n for n in pci_nodes(spec) if n.get("use") == "gaudi2"]
    for i, n in enumerate(gaudis):
        n.setdefault("attrs", {})["module_id"] = str(len(gaudis) - 1 - i)


def remove(*rels):
    def f(root):
        for rel in rels:
            os.unlink(os.path.join(root, rel))
    return f


def write(rel, content):
    def f(root):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(content)
    return f


def cgroup_v1(entries):
    """A cgroup v1 host: this process in /kubepods/pod1/ctr of the devices hierarchy."""
    path = "/kubepods/pod1/ctr"
    return [write("proc/self/cgroup", "12:pids:%s\n11:devices:%s\n10:memory:%s\n0::/\n" % (path, path, path)),
            write("sys/fs/cgroup/devices%s/devices.list" % path, "".join(e + "\n" for e in entries))]


def cgroup_v1_ns(entries):
    """The same inside a container with its own cgroup namespace view: the path in
    /proc/self/cgroup is the host's, the hierarchy is mounted at the container's cgroup."""
    return [write("proc/self/cgroup", "11:devices:/docker/8d2e\n0::/\n"),
            write("sys/fs/cgroup/devices/devices.list", "".join(e + "\n" for e in entries))]


def V(reason=None):
    return (True, reason)


def H(reason=None):
    return (False, reason)


def U(reason=None):
    return (None, reason)


# (name, node spec, spec change, tree changes, --env list, expected {id: (visible, reason
# fragment)}, warning fragments). Devices not named must be visible with no reason.
CASES = [
    ("hgx-none", "hgx-8x-h100", None, [], [], {}, []),
    ("hgx-cuda-indices", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES=1,3"],
     {"nvidia:0": H("CUDA_VISIBLE_DEVICES=1,3 does not list it"), "nvidia:1": V("as CUDA device 0"),
      "nvidia:2": H(), "nvidia:3": V("as CUDA device 1"), "nvidia:4": H(), "nvidia:5": H(), "nvidia:6": H(),
      "nvidia:7": H()}, []),
    ("hgx-cuda-stops", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES=0,2,-1,1"],
     {"nvidia:0": V(), "nvidia:1": H("CUDA stops at '-1'"), "nvidia:2": V("as CUDA device 1"), "nvidia:3": H(),
      "nvidia:4": H(), "nvidia:5": H(), "nvidia:6": H(), "nvidia:7": H()}, []),
    ("hgx-cuda-empty", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES="],
     dict(("nvidia:%d" % i, H("CUDA_VISIBLE_DEVICES is empty")) for i in range(8)), []),
    ("hgx-cuda-minus-one", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES=-1"],
     dict(("nvidia:%d" % i, H("CUDA_VISIBLE_DEVICES=-1 does not list it")) for i in range(8)), []),
    ("hgx-cuda-repeated", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES=3,1,3"],
     dict(("nvidia:%d" % i, H("listed twice")) for i in range(8)), []),
    ("hgx-cuda-uuids", "hgx-8x-h100", None, [],
     ["CUDA_VISIBLE_DEVICES=%s,%s,GPU-ffff,4" % (HGX_UUID[5][:12], HGX_UUID[2])],
     {"nvidia:5": V("as CUDA device 0"), "nvidia:2": V("as CUDA device 1"),
      "nvidia:0": H("CUDA stops at 'GPU-ffff'"), "nvidia:1": H(), "nvidia:3": H(), "nvidia:4": H(), "nvidia:6": H(),
      "nvidia:7": H()}, []),
    ("hgx-cuda-mig-unknown", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES=3,MIG-0a1b2c3d"],
     {"nvidia:3": V("as CUDA device 0"), "nvidia:0": H("CUDA stops at 'MIG-0a1b2c3d'"), "nvidia:1": H(),
      "nvidia:2": H(), "nvidia:4": H(), "nvidia:5": H(), "nvidia:6": H(), "nvidia:7": H()}, []),
    ("hgx-cuda-mig-list", "hgx-8x-h100", None, [], ["CUDA_VISIBLE_DEVICES=MIG-0a1b2c3d"],
     dict(("nvidia:%d" % i, U("axl does not know the MIG devices")) for i in range(8)),
     ["does not know the MIG devices"]),
    ("hgx-cuda-order", "hgx-8x-h100", second_model, [], ["CUDA_VISIBLE_DEVICES=7,0"],
     {"nvidia:7": V("PCI bus order"), "nvidia:0": V("as CUDA device 1"), "nvidia:1": H(), "nvidia:2": H(),
      "nvidia:3": H(), "nvidia:4": H(), "nvidia:5": H(), "nvidia:6": H()},
     ["CUDA_DEVICE_ORDER=PCI_BUS_ID"]),
    ("hgx-cuda-order-pci", "hgx-8x-h100", second_model, [],
     ["CUDA_VISIBLE_DEVICES=7,0", "CUDA_DEVICE_ORDER=PCI_BUS_ID"],
     {"nvidia:7": V("as CUDA device 0"), "nvidia:0": V("as CUDA device 1"), "nvidia:1": H(), "nvidia:2": H(),
      "nvidia:3": H(), "nvidia:4": H(), "nvidia:5": H(), "nvidia:6": H()}, []),
    # a container the NVIDIA runtime made with NVIDIA_VISIBLE_DEVICES=3,7: only those
    # nodes are there, and CUDA numbers what it can open (index 1 is host GPU 7)
    ("hgx-container", "hgx-8x-h100", None,
     [remove("dev/nvidia0", "dev/nvidia1", "dev/nvidia2", "dev/nvidia4", "dev/nvidia5", "dev/nvidia6")],
     ["NVIDIA_VISIBLE_DEVICES=3,7", "CUDA_VISIBLE_DEVICES=1"],
     {"nvidia:0": H("/dev/nvidia0 is absent (NVIDIA_VISIBLE_DEVICES=3,7 does not list it)"),
      "nvidia:1": H("/dev/nvidia1 is absent"), "nvidia:2": H(), "nvidia:4": H(), "nvidia:5": H(),
      "nvidia:6": H("/dev/nvidia6 is absent"),
      "nvidia:3": H("CUDA_VISIBLE_DEVICES=1 does not list it"), "nvidia:7": V("as CUDA device 0")}, []),
    ("hgx-container-none", "hgx-8x-h100", None,
     [remove(*["dev/nvidia%d" % i for i in range(8)])], ["NVIDIA_VISIBLE_DEVICES=none"],
     dict(("nvidia:%d" % i, H("/dev/nvidia%d is absent (NVIDIA_VISIBLE_DEVICES=none does not list it)" % i))
          for i in range(8)), []),
    ("hgx-no-nvidiactl", "hgx-8x-h100", None, [remove("dev/nvidiactl")], [],
     dict(("nvidia:%d" % i, H("/dev/nvidiactl is absent")) for i in range(8)), []),
    # the variable is set but every node is here: not applied by a runtime
    ("hgx-runtime-not-applied", "hgx-8x-h100", None, [], ["NVIDIA_VISIBLE_DEVICES=0"], {},
     ["not applied by a container runtime"]),
    ("hgx-cgroup-v1", "hgx-8x-h100", None,
     cgroup_v1(["c 1:3 rwm", "c 195:255 rwm", "c 195:2 rw", "c 195:5 rwm", "c 195:6 r", "c 234:* rwm"]),
     ["CUDA_VISIBLE_DEVICES=1"],
     {"nvidia:0": H("not in the device cgroup (c 195:0, /dev/nvidia0)"), "nvidia:1": H(), "nvidia:3": H(),
      "nvidia:4": H(), "nvidia:6": H("c 195:6"), "nvidia:7": H(),
      "nvidia:2": H("CUDA_VISIBLE_DEVICES=1 does not list it"), "nvidia:5": V("as CUDA device 0")}, []),
    ("hgx-cgroup-v1-ns", "hgx-8x-h100", None, cgroup_v1_ns(["a *:* rwm"]), [], {}, []),
    ("hgx-cgroup-v1-no-ctl", "hgx-8x-h100", None, cgroup_v1_ns(["c 195:0 rwm", "c 195:1 rwm"]), [],
     dict(("nvidia:%d" % i, H("not in the device cgroup (c 195:255, /dev/nvidiactl)")) for i in range(8)), []),

    ("mi300x-rocr", "mi300x-8x", None, [], ["ROCR_VISIBLE_DEVICES=1,3"],
     {"amdgpu:0": H("ROCR_VISIBLE_DEVICES=1,3 does not list it"), "amdgpu:1": V("as ROCm device 0"),
      "amdgpu:2": H(), "amdgpu:3": V("as ROCm device 1"), "amdgpu:4": H(), "amdgpu:5": H(), "amdgpu:6": H(),
      "amdgpu:7": H()}, []),
    # HIP's indices count what ROCr left: 1 is ROCr's second, amdgpu:3
    ("mi300x-rocr-hip", "mi300x-8x", None, [], ["ROCR_VISIBLE_DEVICES=6,3,0", "HIP_VISIBLE_DEVICES=1"],
     {"amdgpu:3": V("HIP device 0"),
      "amdgpu:6": H("HIP_VISIBLE_DEVICES=1 does not list it among the GPUs ROCR_VISIBLE_DEVICES=6,3,0 leaves"),
      "amdgpu:0": H("among the GPUs"), "amdgpu:1": H("ROCR_VISIBLE_DEVICES=6,3,0 does not list it"),
      "amdgpu:2": H(), "amdgpu:4": H(), "amdgpu:5": H(), "amdgpu:7": H()}, []),
    ("mi300x-rocr-uuid", "mi300x-8x", None, [],
     ["ROCR_VISIBLE_DEVICES=%s,%s,7" % (MI300X_UUID[6].lower(), MI300X_UUID[3][:9])],
     {"amdgpu:6": V("as ROCm device 0"), "amdgpu:3": V("as ROCm device 1"), "amdgpu:7": V("as ROCm device 2"),
      "amdgpu:0": H(), "amdgpu:1": H(), "amdgpu:2": H(), "amdgpu:4": H(), "amdgpu:5": H()}, []),
    ("mi300x-rocr-empty", "mi300x-8x", None, [], ["ROCR_VISIBLE_DEVICES="],
     dict(("amdgpu:%d" % i, H("ROCR_VISIBLE_DEVICES is empty")) for i in range(8)), []),
    # HIP reads CUDA_VISIBLE_DEVICES when HIP_VISIBLE_DEVICES is empty
    ("mi300x-cuda-for-hip", "mi300x-8x", None, [], ["CUDA_VISIBLE_DEVICES=5,2", "HIP_VISIBLE_DEVICES="],
     {"amdgpu:5": V("CUDA_VISIBLE_DEVICES=5,2 lists it as HIP device 0"), "amdgpu:2": V("HIP device 1"),
      "amdgpu:0": H("CUDA_VISIBLE_DEVICES=5,2 does not list it"), "amdgpu:1": H(), "amdgpu:3": H(),
      "amdgpu:4": H(), "amdgpu:6": H(), "amdgpu:7": H()}, []),
    ("mi300x-hip-wins", "mi300x-8x", None, [], ["CUDA_VISIBLE_DEVICES=5,2", "HIP_VISIBLE_DEVICES=0"],
     {"amdgpu:0": V("HIP_VISIBLE_DEVICES=0 lists it as HIP device 0"), "amdgpu:1": H(), "amdgpu:2": H(),
      "amdgpu:3": H(), "amdgpu:4": H(), "amdgpu:5": H(), "amdgpu:6": H(), "amdgpu:7": H()}, []),
    # a container with the render nodes of amdgpu:2 and amdgpu:5 only: ROCr index 1 is amdgpu:5
    ("mi300x-container", "mi300x-8x", None,
     [remove(*["dev/dri/renderD%d" % (128 + i) for i in (0, 1, 3, 4, 6, 7)])], ["ROCR_VISIBLE_DEVICES=1"],
     {"amdgpu:0": H("/dev/dri/renderD128 is absent"), "amdgpu:1": H(), "amdgpu:3": H(), "amdgpu:4": H(),
      "amdgpu:6": H(), "amdgpu:7": H("/dev/dri/renderD135 is absent"),
      "amdgpu:2": H("ROCR_VISIBLE_DEVICES=1 does not list it"), "amdgpu:5": V("as ROCm device 0")}, []),
    ("mi300x-no-kfd", "mi300x-8x", None, [remove("dev/kfd")], [],
     dict(("amdgpu:%d" % i, H("/dev/kfd is absent")) for i in range(8)), []),

    ("gaudi2-modules", "gaudi2-8x", reverse_modules, [], ["HABANA_VISIBLE_MODULES=0,1"],
     {"habana:7": V("lists its module 0"), "habana:6": V("lists its module 1"),
      "habana:0": H("HABANA_VISIBLE_MODULES=0,1 does not list its module 7"), "habana:1": H(), "habana:2": H(),
      "habana:3": H(), "habana:4": H(), "habana:5": H()}, []),
    ("gaudi2-container", "gaudi2-8x", reverse_modules,
     [remove(*["dev/accel/accel%d" % i for i in range(6)])], ["HABANA_VISIBLE_DEVICES=6,7"],
     {"habana:0": H("/dev/accel/accel0 is absent (HABANA_VISIBLE_DEVICES=6,7 does not list it)"),
      "habana:1": H(), "habana:2": H(), "habana:3": H(), "habana:4": H(), "habana:5": H()}, []),
    ("gaudi2-runtime-not-applied", "gaudi2-8x", None, [], ["HABANA_VISIBLE_DEVICES=3"], {},
     ["not applied by a container runtime"]),

    # ROCR over the partitions of an MI300X in CPX mode: a GPU kept in part
    ("mi300x-cpx-partly", "kfd:rocm-k8s-kfd-topology-8x-mi300x-cpx.tar.gz", None, [],
     ["ROCR_VISIBLE_DEVICES=0,1,8"],
     {"amdgpu:0": H("partly visible: ROCR_VISIBLE_DEVICES=0,1,8 keeps 2 of its 8 partitions"),
      "amdgpu:1": H("partly visible"), "amdgpu:2": H("does not list it"), "amdgpu:3": H(), "amdgpu:4": H(),
      "amdgpu:5": H(), "amdgpu:6": H(), "amdgpu:7": H()}, []),
]


def build(case, work):
    """The case's tree. Cases that change nothing in the tree share one, built once
    (CTest runs cases in parallel: a lock file keeps them from building it twice)."""
    name, node, change, tree_changes, _, _, _ = case
    if not tree_changes:
        import fcntl
        os.makedirs(work, exist_ok=True)
        base = os.path.join(work, "shared-%s%s" % (node.replace(":", "-"), "-" + change.__name__ if change else ""))
        with open(base + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(base + ".done"):
                build_tree(name, node, change, [], base)
                open(base + ".done", "w").close()
        return base
    return build_tree(name, node, change, tree_changes, os.path.join(work, name))


def build_tree(name, node, change, tree_changes, root):
    if os.path.isdir(root):
        shutil.rmtree(root)
    work = os.path.dirname(root)
    if node.startswith("kfd:"):
        sys.path.insert(0, HERE)
        import replay  # noqa: E402  the KFD capture layout lives there
        replay.build_root("kfd", os.path.join(HERE, "fixtures", node[4:]), root)
    else:
        with open(os.path.join(NODES, node + ".json")) as f:
            spec = json.load(f)
        spec = copy.deepcopy(spec)
        if change:
            change(spec)
        os.makedirs(work, exist_ok=True)
        spec_path = root + ".spec.json"
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"), spec_path, root],
                       check=True, stdout=subprocess.DEVNULL)
    for f in tree_changes:
        f(root)
    return root


def run_case(case, axl, work):
    name, node, _, _, env, want, warn = case
    root = build(case, work)
    cmd = [axl, "list", "--json", "--sysroot", root]
    for e in env:
        cmd += ["--env", e]
    sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
    import visvars  # noqa: E402  the shell's visibility variables stay out; the two below go in
    penv = visvars.clean(os.environ)
    for k in ("AXL_SYSROOT", "AXL_BACKENDS"):
        penv.pop(k, None)
    penv["AXL_PCI_IDS"] = "/dev/null"
    # the process environment must not leak into a re-rooted run
    penv["CUDA_VISIBLE_DEVICES"] = "0"
    penv["ROCR_VISIBLE_DEVICES"] = "0"
    p = subprocess.run(cmd, env=penv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        return ["axl exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace"))]
    errors = []
    doc = json.loads(p.stdout)
    try:
        import jsonschema
        with open(SCHEMA) as f:
            v = jsonschema.Draft202012Validator(json.load(f))
        for e in v.iter_errors(doc):
            errors.append("schema: %s" % e.message)
    except ImportError:
        pass
    devs = {d["id"]: d for d in doc["devices"]}
    expected_count = 8
    if len(devs) != expected_count:
        errors.append("%d devices, expected %d: none may disappear (%s)" % (len(devs), expected_count,
                                                                          ", ".join(sorted(devs))))
    for did in sorted(set(devs) | set(want)):
        d = devs.get(did)
        if d is None:
            errors.append("%s: not listed" % did)
            continue
        vis = d.get("visibility") or {}
        visible, frag = want.get(did, (True, None))
        got = vis.get("visible")
        if got != visible:
            errors.append("%s: visible = %r, expected %r (reason: %s)" % (did, got, visible, vis.get("reason")))
        reason = vis.get("reason")
        if did not in want and reason is not None:
            errors.append("%s: has a reason, expected none: %s" % (did, reason))
        if frag and (reason is None or frag not in reason):
            errors.append("%s: reason %r lacks %r" % (did, reason, frag))
        if reason is not None and "visibility.reason" not in d.get("field_sources", {}):
            errors.append("%s: the reason has no source" % did)
        src = d.get("field_sources", {}).get("visibility.visible")
        if got is not None and not src:
            errors.append("%s: visibility.visible has no source" % did)
    # without --env the process's variables (set above) are not applied to the tree: one
    # warning names them and --env; with --env none does
    unapplied = [w for w in doc["warnings"] if w["source"] == "visibility" and
                 "set in the environment are not applied to a re-rooted tree" in w["message"]]
    want_unapplied = [] if env else [
        {"source": "visibility", "path": root,
         "message": "CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES set in the environment are not applied to a "
                    "re-rooted tree (another node's); --env NAME=... judges visibility on it "
                    "(axl_context_options.env)"}]
    if unapplied != want_unapplied:
        errors.append("warnings about the process's variables %r, expected %r" % (unapplied, want_unapplied))
    msgs = " | ".join(w["message"] for w in doc["warnings"] if w["source"] == "visibility" and w not in unapplied)
    for w in warn:
        if w not in msgs:
            errors.append("no visibility warning mentions %r (%s)" % (w, msgs or "none"))
    if not warn and msgs:
        errors.append("unexpected visibility warning: %s" % msgs)
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work", default="/tmp/axl-visibility")
    ap.add_argument("--case")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(c[0] for c in CASES))
        return 0
    todo = CASES if a.all else [c for c in CASES if c[0] == a.case]
    if not todo:
        print("no such case: %s" % a.case)
        return 2
    failed = 0
    for c in todo:
        try:
            errs = run_case(c, os.path.abspath(a.axl), os.path.abspath(a.work))
        except Exception as e:  # a broken case must not hide the others
            errs = ["%s: %s" % (type(e).__name__, e)]
        print(("FAIL %s" if errs else "ok   %s") % c[0])
        for e in errs:
            print("  " + e)
        failed += bool(errs)
    print("%d passed, %d failed" % (len(todo) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
