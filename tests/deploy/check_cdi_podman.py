#!/usr/bin/env python3
"""axl's CDI names beside the vendors' own specs, resolved by podman (issue 32, item 2).

One CDI directory holds what a GPU node has in it:

 - nvidia.yaml as NVIDIA Container Toolkit 1.18 writes it (its nvidia-cdi-refresh unit runs
   `nvidia-ctk cdi generate` into /var/run/cdi/nvidia.yaml) for the 8 GPUs of
   tests/sim/h100x8-nvswitch.json: kind nvidia.com/gpu, devices "0".."7", "GPU-<uuid>" and
   "all", the spec-level edits (env, the control nodes, the nvidia-cdi-hook hooks
   create-symlinks, enable-cuda-compat, update-ldcache, disable-device-node-modification,
   the driver's files bind-mounted);
 - amd.json as AMD's container toolkit (`amd-ctk cdi generate`) writes it for the 8 GPUs
   of tests/sim/mi300x8.json: kind amd.com/gpu, devices "0".."7" and "all";
 - axl's own specs, `axl cdi generate -o DIR --sim` for both nodes.

podman resolves every name `axl cdi list --sim` prints for both nodes, every nvidia-ctk
name and every amd-ctk name there. A second directory adds the spec an axl before
113ae3d wrote (axl's NVIDIA spec with kind nvidia.com/gpu, axl-nvidia.com-gpu.json): there
podman reports every nvidia.com/gpu name unresolvable, the bug of issue 32.

How, on a machine with no GPU and without touching its /dev: the podman runs happen in a
private mount namespace (`unshare --mount --propagation private` runs this script again
with --inner) where a tmpfs holding the usual nodes and the accelerator nodes (made with
mknod, the drivers' majors: 195 for nvidiaN/nvidiactl, 226 for /dev/dri) covers /dev, the
host's /dev/shm (podman's lock file) bound into it, and the directory under test is bound
over /etc/cdi (an overlay on /etc adds that folder where the host has none; a host
/var/run/cdi is covered with an empty tmpfs). podman 4.3.1 has no cdi_spec_dirs setting
and reads /etc/cdi and /var/run/cdi only.

podman 4.3.1 resolves CDI names when a container starts, not when it is created (a
`podman create --device nope.dev/x=0` succeeds), so each name is started:
 - axl's names and AMD's (no hooks, no mounts) with `podman run`: exit 0, and the
   container's accelerator nodes are exactly the ones of that device in the inventory
   (name N or its UUID: /dev/nvidiaN and the control nodes; all: every GPU's), with the
   majors and minors of the host's nodes;
 - nvidia-ctk's names with `podman create` + `podman start`: the start fails after
   resolution, as runc mounts driver files this machine does not have; the failure is not
   a CDI one, and the OCI spec podman wrote for it holds the device's nodes, the four
   hooks, the mounts and the environment of nvidia.yaml.

podman 4.3.1 carries a CDI library that does not read cdiVersion 0.6.0, which amd-ctk
writes: its spec is unresolvable there even alone. The test first tries AMD's spec as
written, alone; where this podman cannot read it and reads the same spec at 0.5.0 (the
content needs nothing newer), amd.json is written at 0.5.0, and the output says so.

--legacy-layout writes axl's specs as an axl before 113ae3d did (kinds nvidia.com/gpu and
amd.com/gpu, files axl-nvidia.com-gpu.json and axl-amd.com-gpu.json) and checks those
names: the test then fails, as it must.

Mirrored upstream code (read, not copied; the specs are written from what it emits):
 - NVIDIA/nvidia-container-toolkit v1.18.0, commit f8daa5e26de9fd7eb79259040b6dd5a52060048c
   (mirror HEAD d34b3046758cb1a5db606b2a39519c731bbf9f56):
   deployments/systemd/nvidia-cdi-refresh.service, cmd/nvidia-ctk/cdi/generate/generate.go
   and generate_test.go, pkg/nvcdi/{common-nvml,full-gpu-nvml,namer,driver-nvml,wrapper}.go,
   pkg/nvcdi/transform/{simplify,sorter,deduplicate,merged-device}.go,
   internal/discover/{hooks,symlinks,ldconfig,compat_libs,ipc,mounts,graphics}.go,
   internal/platform-support/dgpu/{nvml,by-path-hooks}.go, internal/edits/device.go,
   vendor/tags.cncf.io/container-device-interface/{pkg/cdi/spec.go,specs-go/config.go};
 - ROCm/container-toolkit v1.3.0, commit 59f21d9fdeb4a9373607b90352dbda272c721979 (same
   files at mirror HEAD 192fe8e9e7044562440ae99ba44f913f7ebb81c9): internal/cdi/cdi.go,
   internal/amdgpu/amdgpu.go, cmd/amd-ctk/cdi/generate/generate.go.

Exit 77 (skip) only when podman is missing or cannot start any container here, when
this is not root (the mount namespace and mknod need it), or when the base image is
missing and mmdebstrap too.

usage: check_cdi_podman.py --axl BUILT_AXL --work DIR [--base IMAGE] [--legacy-layout]
"""

import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from check_image import check, failures, podman_env, run, skip  # noqa: E402  (the deploy tests' helpers)

NVIDIA_SIM = "h100x8-nvswitch.json"
AMD_SIM = "mi300x8.json"
LABEL = "axl.test=cdi_podman-%d" % os.getpid()  # this run's containers, removed at the end

# The node nvidia-ctk ran on, beyond its GPUs (nvidia-ctk reads these from the host): Ubuntu
# 22.04, the R570 server driver packages, headless (no libnvidia-gl, no nvidia-drm, so no
# graphics files and no /dev/dri nodes for the GPUs), nvidia-persistenced running.
DRIVER = "570.172.08"
LIBDIR = "/usr/lib/x86_64-linux-gnu"
# the libraries ending in .so.DRIVER in the ldcache, each with the SONAME link the host has
# (None: the SONAME is the file's own name, no link)
DRIVER_LIBS = [("libcuda.so", "libcuda.so.1"), ("libcudadebugger.so", "libcudadebugger.so.1"),
               ("libnvidia-cfg.so", "libnvidia-cfg.so.1"), ("libnvidia-gpucomp.so", None),
               ("libnvidia-ml.so", "libnvidia-ml.so.1"), ("libnvidia-nvvm.so", "libnvidia-nvvm.so.4"),
               ("libnvidia-opencl.so", "libnvidia-opencl.so.1"), ("libnvidia-pkcs11-openssl3.so", None),
               ("libnvidia-ptxjitcompiler.so", "libnvidia-ptxjitcompiler.so.1")]
DRIVER_BINARIES = ["nvidia-smi", "nvidia-debugdump", "nvidia-persistenced",
                   "nvidia-cuda-mps-control", "nvidia-cuda-mps-server"]
GSP_FIRMWARE = ["gsp_ga10x.bin", "gsp_tu10x.bin"]
IPC_SOCKETS = ["/run/nvidia-persistenced/socket"]
# the order nvidia-ctk looks for the control nodes (pkg/nvcdi/common-nvml.go)
NVIDIA_META = ["/dev/nvidia-modeset", "/dev/nvidia-uvm-tools", "/dev/nvidia-uvm", "/dev/nvidiactl"]

# majors of the nodes made in the private /dev: fixed ones as the drivers register them,
# the dynamic ones (nvidia-uvm, kfd) any free number, the same in the AMD spec
NVIDIA_MAJOR, DRM_MAJOR, UVM_MAJOR, KFD_MAJOR = 195, 226, 510, 511
VIDEO_GID, RENDER_GID = 44, 109  # Ubuntu's video and render groups


def node_numbers(path):
    """(major, minor, mode, gid) of an accelerator node in the private /dev"""
    m = re.fullmatch(r"/dev/nvidia(\d+)", path)
    if m:
        return NVIDIA_MAJOR, int(m.group(1)), 0o666, 0
    fixed = {"/dev/nvidiactl": (NVIDIA_MAJOR, 255, 0o666, 0), "/dev/nvidia-modeset": (NVIDIA_MAJOR, 254, 0o666, 0),
             "/dev/nvidia-uvm": (UVM_MAJOR, 0, 0o666, 0), "/dev/nvidia-uvm-tools": (UVM_MAJOR, 1, 0o666, 0),
             "/dev/kfd": (KFD_MAJOR, 0, 0o660, RENDER_GID)}
    if path in fixed:
        return fixed[path]
    m = re.fullmatch(r"/dev/dri/(card|renderD)(\d+)", path)
    if m:
        return DRM_MAJOR, int(m.group(2)), 0o660, VIDEO_GID if m.group(1) == "card" else RENDER_GID
    raise ValueError("no major/minor known for " + path)


def is_accel(path):
    return path.startswith(("/dev/nvidia", "/dev/dri/")) or path == "/dev/kfd"


# ---- the vendors' specs ----

def depth_order(path):
    """nvidia-ctk's sorter: fewer path components first, then by path"""
    return (os.path.normpath(path).count("/"), path)


def nvidia_ctk_spec(gpus, meta):
    """nvidia.yaml as `nvidia-ctk cdi generate` 1.18 writes it: default name strategies
    index and uuid, merged device "all", common edits simplified out of the devices,
    devices sorted by name, nodes and mounts by depth then path, hooks in discovery order"""
    def hook(*args):
        return {"hookName": "createContainer", "path": "/usr/bin/nvidia-cdi-hook",
                "args": ["nvidia-cdi-hook"] + list(args), "env": ["NVIDIA_CTK_DEBUG=false"]}

    bind = ["ro", "nosuid", "nodev", "rbind", "rprivate"]
    links = []
    for lib, soname in DRIVER_LIBS:
        if lib == "libcuda.so":  # applications dlopen libcuda.so: nvidia-ctk links it always
            links += ["--link", "libcuda.so.1::%s/libcuda.so" % LIBDIR]
        if soname:
            links += ["--link", "%s.%s::%s/%s" % (lib, DRIVER, LIBDIR, soname)]
    files = ["%s/%s.%s" % (LIBDIR, lib, DRIVER) for lib, _ in DRIVER_LIBS]
    files += ["/lib/firmware/nvidia/%s/%s" % (DRIVER, f) for f in GSP_FIRMWARE]
    files += ["/usr/bin/" + b for b in DRIVER_BINARIES]
    mounts = [{"hostPath": p, "containerPath": p, "options": bind} for p in files]
    mounts += [{"hostPath": p, "containerPath": p, "options": bind + ["noexec"]} for p in IPC_SOCKETS]
    mounts.sort(key=lambda m: depth_order(m["containerPath"]))
    devices = []
    for g in gpus:
        for name in (str(g["index"]), g["uuid"]):
            devices.append({"name": name, "containerEdits": {"deviceNodes": [{"path": g["node"]}]}})
    everything = sorted((g["node"] for g in gpus), key=depth_order)
    devices.append({"name": "all", "containerEdits": {"deviceNodes": [{"path": p} for p in everything]}})
    devices.sort(key=lambda d: d["name"])
    edits = {"env": ["NVIDIA_CTK_LIBCUDA_DIR=" + LIBDIR, "NVIDIA_VISIBLE_DEVICES=void"],
             "deviceNodes": [{"path": p} for p in sorted(meta, key=depth_order)],
             "hooks": [hook("create-symlinks", *links),
                       hook("enable-cuda-compat", "--host-driver-version=" + DRIVER),
                       hook("update-ldcache", "--folder", LIBDIR),
                       hook("disable-device-node-modification")],
             "mounts": mounts}
    return {"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu", "devices": devices, "containerEdits": edits}


def yaml_v3(spec):
    """the text gopkg.in/yaml.v3 prints for a CDI spec (the CDI library nvidia-ctk uses
    writes "---" and then yaml.v3's Marshal: fields in struct order, an indent of 4 counted
    from a sequence item's dash, strings that would read as another type quoted)"""
    def scalar(v):
        if isinstance(v, int):
            return str(v)
        if v == "" or re.fullmatch(r"[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+)|true|false|yes|no|on|off|null|~", v, re.I):
            return '"%s"' % v
        return v

    def mapping(m, key_col, child_col):
        out = []
        for k, v in m.items():
            if isinstance(v, dict):
                out.append(" " * key_col + k + ":")
                out += mapping(v, child_col, child_col + 4)
            elif isinstance(v, list):
                out.append(" " * key_col + k + ":")
                out += sequence(v, child_col)
            else:
                out.append(" " * key_col + k + ": " + scalar(v))
        return out

    def sequence(items, dash_col):
        out = []
        for it in items:
            if isinstance(it, dict):
                sub = mapping(it, dash_col + 2, dash_col + 4)
                sub[0] = " " * dash_col + "- " + sub[0][dash_col + 2:]
                out += sub
            else:
                out.append(" " * dash_col + "- " + scalar(it))
        return out

    return "\n".join(["---"] + mapping(spec, 0, 4)) + "\n"


def amd_ctk_spec(gpus, version="0.6.0"):
    """amd.json as `amd-ctk cdi generate` writes it: devices "0".. in PCI order, each its
    card and render nodes (the order of a glob of drm/*) and /dev/kfd, then "all"; every
    node with type, major, minor, fileMode, permissions "rwm", uid 0 and the node's gid as
    stat(1) shows them; Go's encoding/json drops a zero minor, keeps the empty
    spec-level containerEdits"""
    def node(path):
        major, minor, mode, gid = node_numbers(path)
        n = {"path": path, "type": "c", "major": major}
        if minor:
            n["minor"] = minor
        n.update({"fileMode": mode, "permissions": "rwm", "uid": 0, "gid": gid})
        return n

    kfd = node("/dev/kfd")
    devices = []
    for i, g in enumerate(sorted(gpus, key=lambda g: g["pci"])):
        drm = sorted(p for p in g["nodes"] if p.startswith("/dev/dri/"))
        devices.append({"name": str(i), "containerEdits": {"deviceNodes": [node(p) for p in drm] + [kfd]}})
    every = [n for d in devices for n in d["containerEdits"]["deviceNodes"][:-1]] + [kfd]
    devices.append({"name": "all", "containerEdits": {"deviceNodes": every}})
    return {"cdiVersion": version, "kind": "amd.com/gpu", "devices": devices, "containerEdits": {}}


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)


def write_json(path, doc):
    write(path, json.dumps(doc, indent=2) + "\n")


# ---- inside the private mount namespace ----

def mount(*args):
    subprocess.run(["mount"] + list(args), check=True)


def private_dev(stage, nodes):
    """a tmpfs with the usual nodes and the accelerator nodes, moved over /dev"""
    os.makedirs(stage, exist_ok=True)
    mount("-t", "tmpfs", "-o", "mode=755,size=1m", "tmpfs", stage)
    for name, major, minor in (("null", 1, 3), ("zero", 1, 5), ("full", 1, 7), ("random", 1, 8),
                               ("urandom", 1, 9), ("tty", 5, 0)):
        os.mknod(os.path.join(stage, name), stat.S_IFCHR | 0o666, os.makedev(major, minor))
        os.chmod(os.path.join(stage, name), 0o666)
    for d in ("pts", "shm", "mqueue"):
        os.mkdir(os.path.join(stage, d))
    mount("-t", "devpts", "-o", "newinstance,ptmxmode=0666,mode=0620", "devpts", os.path.join(stage, "pts"))
    os.symlink("pts/ptmx", os.path.join(stage, "ptmx"))
    mount("--bind", "/dev/shm", os.path.join(stage, "shm"))  # podman's lock file is there
    if os.path.isdir("/dev/mqueue"):
        mount("--bind", "/dev/mqueue", os.path.join(stage, "mqueue"))
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, os.path.join(stage, name))
    for path in nodes:
        major, minor, mode, gid = node_numbers(path)
        p = os.path.join(stage, os.path.relpath(path, "/dev"))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.mknod(p, stat.S_IFCHR | mode, os.makedev(major, minor))
        os.chown(p, 0, gid)
        os.chmod(p, mode)
    mount("--move", stage, "/dev")


def provide_etc_cdi(stage):
    """/etc/cdi as a mount point; where the host has none, an overlay on /etc adds it (the
    mounts under /etc bound again on top)"""
    if os.path.isdir("/etc/cdi"):
        return
    under = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            target = line.split()[4]
            if target.startswith("/etc/"):
                under.append(target)
    keep = os.path.join(stage, "keep")
    os.makedirs(os.path.join(stage, "extra", "cdi"))
    os.makedirs(keep)
    kept = []
    for i, target in enumerate(under):
        k = os.path.join(keep, str(i))
        if os.path.isdir(target):
            os.mkdir(k)
        else:
            open(k, "w").close()
        mount("--bind", target, k)
        kept.append((k, target))
    mount("-t", "overlay", "-o", "lowerdir=%s:/etc" % os.path.join(stage, "extra"), "overlay", "/etc")
    for k, target in kept:
        mount("--bind", k, target)


def try_name(check_, base, label, env):
    name = check_["name"]
    common = ["--network", "none", "--pull", "never", "--label", label, "--device", name, base]
    if check_["how"] == "run":
        r = run(["podman", "run", "--rm"] + common + ["find", "/dev", "-type", "c", "-exec", "stat", "-c", "%n %t %T", "{}", "+"], env)
        return {"rc": r.returncode, "out": r.stdout, "err": r.stderr}
    c = run(["podman", "create"] + common + ["true"], env)
    res = {"create_rc": c.returncode, "rc": None, "err": c.stderr}
    if c.returncode != 0:
        return res
    cid = c.stdout.strip()
    s = run(["podman", "start", cid], env)
    res.update(rc=s.returncode, err=s.stderr)
    i = run(["podman", "inspect", "--format", "{{.OCIConfigPath}}|{{.StaticDir}}", cid], env)
    oci, _, static = i.stdout.strip().partition("|")
    for p in (oci, os.path.join(static, "config.json")):
        if p and os.path.isfile(p):
            with open(p) as f:
                res["config"] = json.load(f)
            break
    run(["podman", "rm", "-f", cid], env)
    return res


def inner(plan_file):
    with open(plan_file) as f:
        plan = json.load(f)
    env = dict(os.environ)
    private_dev(os.path.join(plan["stage"], "dev"), plan["nodes"])
    provide_etc_cdi(os.path.join(plan["stage"], "etc"))
    run_cdi = os.path.realpath("/var/run/cdi")
    if os.path.isdir(run_cdi):  # the host's own specs stay out of the test
        mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", run_cdi)
    results = {}
    try:
        for phase in plan["phases"]:
            mount("--bind", phase["dir"], "/etc/cdi")
            try:
                results[phase["name"]] = [try_name(c, plan["base"], plan["label"], env) for c in phase["checks"]]
            finally:
                subprocess.run(["umount", "/etc/cdi"], check=True)
    finally:
        left = run(["podman", "ps", "-a", "-q", "--filter", "label=" + plan["label"]], env).stdout.split()
        if left:
            run(["podman", "rm", "-f"] + left, env)
    with open(plan["out"], "w") as f:
        json.dump(results, f)
    return 0


def in_namespace(work, tag, phases, nodes, base, env):
    """runs the phases in a private mount namespace; their results by phase name"""
    stage = os.path.join(work, "ns-" + tag)
    os.makedirs(stage)
    plan = {"stage": stage, "nodes": sorted(nodes), "base": base, "phases": phases, "label": LABEL,
            "out": os.path.join(stage, "results.json")}
    with open(os.path.join(stage, "plan.json"), "w") as f:
        json.dump(plan, f)
    r = run(["unshare", "--mount", "--propagation", "private", sys.executable, os.path.abspath(__file__),
             "--inner", os.path.join(stage, "plan.json")], env, timeout=900)
    if r.returncode != 0 or not os.path.exists(plan["out"]):
        print((r.stdout + r.stderr)[-4000:])
        sys.exit("the private mount namespace (%s) failed: exit %d" % (tag, r.returncode))
    with open(plan["out"]) as f:
        return json.load(f)


# ---- what podman must show ----

def container_nodes(out):
    """{path: (major, minor)} of the accelerator nodes a container listed"""
    nodes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and is_accel(parts[0]):
            nodes[parts[0]] = (int(parts[1], 16), int(parts[2], 16))
    return nodes


def expected(paths):
    return {p: node_numbers(p)[:2] for p in paths}


def short(text):
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1][:300] if lines else ""


def judge_run(name, res, want):
    if not check(res["rc"] == 0, "%s: podman run exit %d: %s" % (name, res["rc"], short(res["err"]))):
        return False
    got = container_nodes(res["out"])
    return check(got == expected(want), "%s: the container has %s, the inventory says %s"
                 % (name, sorted(got.items()), sorted(expected(want).items())))


def judge_start(name, res, spec, want):
    """a nvidia-ctk name: resolved at start, and everything its spec says is in the OCI spec"""
    if not check(res["create_rc"] == 0, "%s: podman create exit %d: %s" % (name, res["create_rc"], short(res["err"]))):
        return False
    if not check("CDI" not in res["err"], "%s: podman start: %s" % (name, short(res["err"]))):
        return False
    cfg = res.get("config")
    if not check(cfg is not None, "%s: no OCI spec after podman start (exit %s: %s)" % (name, res["rc"], short(res["err"]))):
        return False
    devs = {d["path"]: (d.get("major"), d.get("minor")) for d in cfg.get("linux", {}).get("devices", []) if is_accel(d["path"])}
    ok = check(devs == expected(want), "%s: the OCI spec's nodes %s, the inventory says %s"
               % (name, sorted(devs.items()), sorted(expected(want).items())))
    edits = spec["containerEdits"]
    hooks = [{"path": h["path"], "args": h["args"], "env": h["env"]} for h in edits["hooks"]]
    # the host's own OCI hooks (hooks.d) may come with them
    got = [{k: h.get(k) for k in ("path", "args", "env")} for h in cfg.get("hooks", {}).get("createContainer", [])
           if h.get("path") == hooks[0]["path"]]
    ok = check(got == hooks, "%s: createContainer hooks %r, nvidia.yaml has %r" % (name, got, hooks)) and ok
    mounts = {(m["destination"], m["source"], tuple(m.get("options", []))) for m in cfg.get("mounts", [])}
    missing = [m["containerPath"] for m in edits["mounts"]
               if (m["containerPath"], m["hostPath"], tuple(m["options"])) not in mounts]
    ok = check(not missing, "%s: mounts of nvidia.yaml not in the OCI spec: %s" % (name, missing)) and ok
    env = set(cfg.get("process", {}).get("env", []))
    ok = check(set(edits["env"]) <= env, "%s: environment %s not all in the OCI spec" % (name, edits["env"])) and ok
    return ok


def judge_unresolvable(name, res):
    return check(res["rc"] != 0 and "unresolvable CDI devices" in res["err"] and name in res["err"],
                 "%s next to a spec of the same kind: podman run exit %d (%s), not 'unresolvable CDI devices'"
                 % (name, res["rc"], short(res["err"])))


def inventory(axl, sim):
    r = run([axl, "list", "--json", "--sim", sim], None)
    if r.returncode != 0:
        sys.exit("axl list --json --sim %s: exit %d %s" % (sim, r.returncode, r.stderr))
    devs = []
    for d in json.loads(r.stdout)["devices"]:
        nodes = d.get("device_nodes") or []
        own = [p for p in nodes if re.fullmatch(r"/dev/nvidia\d+", p)]
        devs.append({"index": d["index"], "uuid": d.get("uuid", ""), "pci": d["pci"]["address"],
                     "nodes": nodes, "node": own[0] if own else None})
    return devs


def names_to_nodes(names, devs, by):
    """{fully qualified name: the nodes a container given it must have}; `by(dev)` gives
    the device names a device goes by; "all" is every device's"""
    everything = sorted({p for d in devs for p in d["nodes"]})
    table = {}
    for full in names:
        dev_name = full.partition("=")[2]
        if dev_name == "all":
            table[full] = everything
            continue
        match = [d for d in devs if dev_name in by(d)]
        check(len(match) == 1, "%s: %d devices of the inventory go by that name" % (full, len(match)))
        table[full] = match[0]["nodes"] if match else []
    return table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--base", default="localhost/axl-base:bookworm")
    ap.add_argument("--legacy-layout", action="store_true",
                    help="axl's specs with the vendors' kinds, as before 113ae3d: the test must fail")
    ap.add_argument("--inner", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.inner:
        return inner(a.inner)
    if not a.axl or not a.work:
        ap.error("--axl and --work are needed")
    if not shutil.which("podman"):
        skip("podman is not installed (scripts/deps.sh --test installs it)")
    if os.geteuid() != 0 or not shutil.which("unshare"):
        skip("needs root and unshare(1): device nodes are made with mknod in a private mount namespace")
    t0 = time.time()
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    env = podman_env(a.work)
    # the base image: mkbase.sh makes it from Debian's mirror where it is missing, else does nothing
    mk = run(["sh", os.path.join(TOP, "deploy", "container", "mkbase.sh"), a.base], env, timeout=900)
    if mk.returncode != 0 and not shutil.which("mmdebstrap"):
        skip("mmdebstrap is not installed, and the base image %s is missing" % a.base)
    if mk.returncode != 0:
        sys.exit("deploy/container/mkbase.sh %s: exit %d\n%s" % (a.base, mk.returncode, (mk.stdout + mk.stderr)[-3000:]))
    r = run(["podman", "run", "--rm", "--network", "none", "--pull", "never", a.base, "true"], env, timeout=120)
    if r.returncode != 0:
        skip("podman cannot run a container here: " + short(r.stderr))
    version = run(["podman", "--version"], env).stdout.strip()

    sims = {v: os.path.join(TOP, "tests", "sim", f) for v, f in (("nvidia", NVIDIA_SIM), ("amd", AMD_SIM))}
    devs = {v: inventory(a.axl, s) for v, s in sims.items()}
    gpus = devs["nvidia"]
    check(len(gpus) == 8 and all(g["node"] and g["uuid"] for g in gpus),
          "%s: 8 GPUs with a UUID and a /dev/nvidiaN each expected" % NVIDIA_SIM)
    check(len(devs["amd"]) == 8, "%s: 8 GPUs expected, %d" % (AMD_SIM, len(devs["amd"])))
    if failures:
        return 1

    # axl's specs and names, as this axl writes them (or, with --legacy-layout, as before)
    axl_dir = os.path.join(a.work, "axl")
    os.makedirs(axl_dir)
    axl_names = {}
    for v, s in sims.items():
        r = run([a.axl, "cdi", "generate", "-o", axl_dir, "--sim", s], None)
        check(r.returncode == 0, "axl cdi generate -o DIR --sim %s: exit %d %s" % (s, r.returncode, r.stderr))
        r = run([a.axl, "cdi", "list", "--sim", s], None)
        check(r.returncode == 0 and r.stdout.split(), "axl cdi list --sim %s: exit %d %s" % (s, r.returncode, r.stderr))
        axl_names[v] = r.stdout.split()
    if failures:
        return 1
    axl_files = sorted(f for f in os.listdir(axl_dir) if f.endswith((".json", ".yaml")))
    print("axl: %s; %d names for %s, %d for %s" % (", ".join(axl_files), len(axl_names["nvidia"]), NVIDIA_SIM,
                                                 len(axl_names["amd"]), AMD_SIM))
    if a.legacy_layout:
        old = {"axl.dev/nvidia-gpu": "nvidia.com/gpu", "axl.dev/amd-gpu": "amd.com/gpu"}
        for f in axl_files:
            with open(os.path.join(axl_dir, f)) as fh:
                spec = json.load(fh)
            os.unlink(os.path.join(axl_dir, f))
            spec["kind"] = old.get(spec["kind"], spec["kind"])
            write_json(os.path.join(axl_dir, "axl-%s.json" % spec["kind"].replace("/", "-")), spec)
        for v in axl_names:
            axl_names[v] = [old.get(n.partition("=")[0], n.partition("=")[0]) + "=" + n.partition("=")[2]
                            for n in axl_names[v]]
        print("legacy layout: axl's specs as %s" % ", ".join(sorted(os.listdir(axl_dir))))

    # the vendors' specs
    meta = [p for p in NVIDIA_META if any(p in g["nodes"] for g in gpus)]
    nv_spec = nvidia_ctk_spec(gpus, meta)
    nv_text = yaml_v3(nv_spec)
    try:
        import yaml
        check(yaml.safe_load(nv_text) == nv_spec, "nvidia.yaml does not read back as the spec it was made from")
    except ImportError:
        pass
    nv_names = ["nvidia.com/gpu=" + d["name"] for d in nv_spec["devices"]]
    amd_spec = amd_ctk_spec(devs["amd"])
    amd_names = ["amd.com/gpu=" + d["name"] for d in amd_spec["devices"]]
    accel_nodes = {p for v in devs for d in devs[v] for p in d["nodes"]}

    # can this podman read amd-ctk's spec as written (cdiVersion 0.6.0)?
    probe = {}
    for cdi_version in ("0.6.0", "0.5.0"):
        d = os.path.join(a.work, "amd-only-" + cdi_version)
        os.makedirs(d)
        write_json(os.path.join(d, "amd.json"), amd_ctk_spec(devs["amd"], cdi_version))
        probe[cdi_version] = d
    res = in_namespace(a.work, "probe", [{"name": v, "dir": d, "checks": [{"name": amd_names[0], "how": "run"}]}
                                         for v, d in probe.items()], accel_nodes, a.base, env)
    amd_version = "0.6.0"
    if res["0.6.0"][0]["rc"] != 0:
        print("note: %s cannot read amd-ctk's spec as written (cdiVersion 0.6.0), even alone: %s"
              % (version, short(res["0.6.0"][0]["err"])))
        if check(res["0.5.0"][0]["rc"] == 0, "amd-ctk's spec alone at cdiVersion 0.5.0: %s" % short(res["0.5.0"][0]["err"])):
            amd_version = "0.5.0"
            print("note: amd.json is written with cdiVersion 0.5.0 (its content needs nothing newer) for this podman")

    # the node's CDI directory: both vendors' specs and axl's
    main_dir = os.path.join(a.work, "cdi")
    shutil.copytree(axl_dir, main_dir)
    write(os.path.join(main_dir, "nvidia.yaml"), nv_text)
    write_json(os.path.join(main_dir, "amd.json"), amd_ctk_spec(devs["amd"], amd_version))
    # the same with the spec an axl before 113ae3d wrote beside them
    legacy_dir = os.path.join(a.work, "cdi-legacy")
    shutil.copytree(main_dir, legacy_dir)
    with open(os.path.join(axl_dir, sorted(f for f in os.listdir(axl_dir) if "nvidia" in f)[0])) as f:
        old_spec = json.load(f)
    old_spec["kind"] = "nvidia.com/gpu"
    write_json(os.path.join(legacy_dir, "axl-nvidia.com-gpu.json"), old_spec)
    print("CDI directory: %s" % ", ".join(sorted(os.listdir(main_dir))))

    by_index_uuid = lambda d: (str(d["index"]), d["uuid"])  # noqa: E731
    by_position = {d["pci"]: str(i) for i, d in enumerate(sorted(devs["amd"], key=lambda d: d["pci"]))}
    want = {}
    for v in sims:
        want.update(names_to_nodes(axl_names[v], devs[v], by_index_uuid))
    want.update(names_to_nodes(nv_names, gpus, by_index_uuid))
    want.update(names_to_nodes(amd_names, devs["amd"], lambda d: (by_position[d["pci"]],)))
    runs = [("axl", n) for n in axl_names["nvidia"] + axl_names["amd"]] + [("amd-ctk", n) for n in amd_names]
    phases = [{"name": "main", "dir": main_dir,
               "checks": [{"name": n, "how": "run"} for _, n in runs] + [{"name": n, "how": "start"} for n in nv_names]},
              {"name": "legacy", "dir": legacy_dir,
               "checks": [{"name": n, "how": "run"} for n in nv_names + axl_names["nvidia"][:1]]}]
    t1 = time.time()
    res = in_namespace(a.work, "main", phases, accel_nodes, a.base, env)
    podman_s = time.time() - t1

    ok = {"axl": 0, "amd-ctk": 0, "nvidia-ctk": 0}
    for (source, name), r in zip(runs, res["main"]):
        if judge_run(name, r, want[name]):
            ok[source] += 1
    for name, r in zip(nv_names, res["main"][len(runs):]):
        if judge_start(name, r, nv_spec, want[name]):
            ok["nvidia-ctk"] += 1
    total = {"axl": len(axl_names["nvidia"]) + len(axl_names["amd"]), "amd-ctk": len(amd_names), "nvidia-ctk": len(nv_names)}
    print("resolved by %s in one directory: axl %d/%d names (podman run, nodes checked), amd-ctk %d/%d (podman run), "
          "nvidia-ctk %d/%d (podman start: nodes, hooks, mounts, env in the OCI spec)"
          % (version, ok["axl"], total["axl"], ok["amd-ctk"], total["amd-ctk"], ok["nvidia-ctk"], total["nvidia-ctk"]))

    legacy = res["legacy"]
    clashed = sum(judge_unresolvable(n, r) for n, r in zip(nv_names, legacy))
    print("with axl-nvidia.com-gpu.json (kind nvidia.com/gpu) beside them: %d/%d nvidia-ctk names unresolvable, e.g. %s"
          % (clashed, len(nv_names), short(legacy[0]["err"]) if legacy else "-"))
    sample = axl_names["nvidia"][0]
    check(legacy[-1]["rc"] == 0, "%s in the legacy directory: exit %d %s" % (sample, legacy[-1]["rc"], short(legacy[-1]["err"])))
    print("podman part %.0f s, whole test %.0f s" % (podman_s, time.time() - t0))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
