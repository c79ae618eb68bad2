#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A node with the vendors' user-space installed, as axl's own commands meet it.

The node is a Debian 12 root holding Debian's NVIDIA 535, ROCm 5.2.3 and Level Zero
packages (vendor_root.py, made with mmdebstrap, cached), entered with
chroot in a private mount namespace (unshare -m) where this machine's /proc, /sys and /dev
are bound in: the kernel's view is this machine's (a CPU node: no accelerator driver),
the installed software the root's. The built axl runs inside it from its build folder
(bound at the same path); the kubelet is fake_kubelet.py (tests/compat/kubernetes) on a
folder bound in at the same path.

 - axl list on the live node: exit 0, no warning (no kernel driver: no vendor library is
   loaded, nothing is said), the devices and the note this machine's axl gives outside;
 - axl cdi generate on the 8xH100 and 8xMI300X sims: the libraries and programs Debian
   installed, mounted at their link names from the files the links lead to
   (libcuda.so.1 through /etc/alternatives, librocm_smi64.so.1 in /usr/lib), the same
   specs as axl --driver-root on the root from outside;
 - axl device-plugin on the 8xH100 sim: registers nvidia.com/gpu with the kubelet,
   Allocate names axl's CDI devices (axl.dev/nvidia-gpu=...), and with
   --device-list-strategy mounts carries the root's libraries as read-only mounts whose
   host paths are files of the root;
 - axl device-plugin on the live CPU node: nothing to advertise, it stays up (no
   restart) with next to no CPU, registers nothing, and SIGTERM ends it with 0 at once.

Exit 77 (skip) when unshare/chroot cannot be used here (not root), the root cannot be
made because mmdebstrap is missing, or axl is built with a sanitizer (whose runtime the
root lacks); a root that fails to build is a failure.

usage: check_node.py --axl BUILT_AXL --work DIR
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SIMS = os.path.join(TOP, "tests", "sim")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "compat", "kubernetes"))

import vendor_root as vr  # noqa: E402
from check_image import check, failures, skip  # noqa: E402  (the deploy tests' helpers)


class Node:
    """commands run chrooted into root, in a private mount namespace with this machine's
    /proc, /sys and /dev and the given folders bound in at their own paths"""

    def __init__(self, root, binds):
        self.root = root
        self.binds = binds
        for b in binds + ["/proc", "/sys", "/dev"]:
            os.makedirs(root + b, exist_ok=True)

    def argv(self, cmd, env=None):
        mounts = "; ".join(["mount --rbind /%s %s/%s" % (d, self.root, d) for d in ("proc", "sys", "dev")] +
                           ["mount --bind %s %s%s" % (b, self.root, b) for b in self.binds])
        envs = " ".join("%s=%s" % kv for kv in (env or {}).items())
        inner = " ".join("'%s'" % c.replace("'", "'\\''") for c in cmd)
        # exec all the way down: the chrooted command is the process a signal reaches
        return ["unshare", "--mount", "--propagation", "private", "sh", "-ec",
                "%s; exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin %s chroot %s %s" % (mounts, envs, self.root, inner)]

    def run(self, cmd, env=None, timeout=120):
        return subprocess.run(self.argv(cmd, env), capture_output=True, text=True, timeout=timeout)

    def popen(self, cmd, log, env=None):
        return subprocess.Popen(self.argv(cmd, env), stdout=subprocess.DEVNULL, stderr=log)


def spec_mounts(doc):
    specs = doc if isinstance(doc, list) else [doc]
    return {s["kind"]: [(m["hostPath"], m["containerPath"]) for m in s.get("containerEdits", {}).get("mounts", [])]
            for s in specs}


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("chroot"):
        skip("needs root, unshare and chroot")
    r = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if r.returncode != 0:
        skip("unshare --mount is refused here: " + r.stderr.strip())
    # a sanitized axl needs its sanitizer's runtime, which the node's root does not have:
    # this runs in the normal build (the sanitized suite covers the same code elsewhere)
    r = subprocess.run(["readelf", "-d", a.axl], capture_output=True, text=True)
    if "libasan" in r.stdout or "libubsan" in r.stdout:
        skip("a sanitized axl needs its runtime, which the node's root lacks; the normal build runs this")
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if not shutil.which("mmdebstrap"):
        skip("mmdebstrap is not installed (scripts/deps.sh --test installs it)")
    msgs = []
    root = vr.make(vr.default_cache(), say=msgs.append)
    for m in msgs:
        print(m)
    if not check(root is not None, "the vendors' root could not be made"):
        return 1
    axl = os.path.abspath(a.axl)
    build = os.path.dirname(axl)
    node = Node(root, [build, SIMS, work])
    lib = "/usr/lib/x86_64-linux-gnu/"

    # the live node (this machine's kernel view, the root's software)
    o = subprocess.run([axl, "list", "--json"], capture_output=True, text=True, check=True)
    outside = json.loads(o.stdout)
    r = node.run([axl, "list", "--json"])
    if check(r.returncode == 0, "axl list in the node: exit %d %s" % (r.returncode, r.stderr[-800:])):
        inside = json.loads(r.stdout)
        # what a bare machine says (at most its one note), nothing about the libraries
        check(inside.get("warnings", []) == [] and r.stderr == o.stderr,
              "axl list in the node: warnings %r, stderr %r (outside: %r)" % (inside.get("warnings"), r.stderr[-400:],
                                                                              o.stderr[-400:]))
        check(inside.get("devices") == outside.get("devices"), "axl list in the node: other devices than outside")
        print("live node with the vendors' user-space: %d devices, no warning" % len(inside.get("devices", [])))

    # CDI specs: what Debian installed, at the link names, from the files they lead to
    want = {
        "h100x8-nvswitch.json": {"axl.dev/nvidia-gpu": {
            (lib + "nvidia/current/libcuda.so.535.261.03", lib + "libcuda.so.1"),
            (lib + "nvidia/current/libnvidia-ml.so.535.261.03", lib + "libnvidia-ml.so.1"),
            (lib + "nvidia/current/libnvidia-ptxjitcompiler.so.535.261.03", lib + "libnvidia-ptxjitcompiler.so.1"),
            ("/usr/lib/nvidia/current/nvidia-smi", "/usr/bin/nvidia-smi")}},
        "mi300x8.json": {"axl.dev/amd-gpu": {
            ("/usr/lib/librocm_smi64.so.1.0", "/usr/lib/librocm_smi64.so.1"),
            (lib + "libamdhip64.so.5.2.21153", lib + "libamdhip64.so.5")}},
    }
    for sim, kinds in want.items():
        simp = os.path.join(SIMS, sim)
        r = node.run([axl, "cdi", "generate", "--sim", simp])
        ref = subprocess.run([axl, "cdi", "generate", "--sim", simp, "--driver-root", root], capture_output=True,
                             text=True)
        if not check(r.returncode == 0, "cdi generate %s in the node: exit %d %s" % (sim, r.returncode, r.stderr)):
            continue
        doc = json.loads(r.stdout)
        check(doc == json.loads(ref.stdout), "cdi generate %s: the node's specs differ from --driver-root's" % sim)
        got = spec_mounts(doc)
        for kind, pairs in kinds.items():
            have = set(got.get(kind, []))
            check(pairs <= have, "%s %s: mounts %s lack %s" % (sim, kind, sorted(have), sorted(pairs - have)))
            for h, _ in have:
                check(os.path.isfile(root + h) and not os.path.islink(root + h), "%s: %s is no file" % (sim, h))
        print("cdi generate %s in the node: %s" % (sim, "; ".join("%s %d mounts" % (k, len(v))
                                                                   for k, v in sorted(got.items()))))

    # the device plugin: registered, allocating axl's CDI names, mounts without CDI
    try:
        import grpc  # noqa: F401
        import fake_kubelet as fk
    except ImportError as e:
        print("note: no gRPC for Python (%s): the device plugin's part is skipped" % e)
        fk = None
    if fk and os.path.exists(os.path.join(build, "kubernetes", "axl-kubernetes.so")):
        pb = fk.load_pb(work)
        for strategy in ("cdi-cri", "mounts"):
            kdir = os.path.join(work, "kubelet-" + strategy)
            k = fk.Kubelet(pb, kdir)
            k.start()
            log = open(os.path.join(work, "plugin-%s.log" % strategy), "a+")
            p = node.popen([axl, "device-plugin", "--kubelet-dir", kdir, "--device-list-strategy", strategy,
                            "--sim", os.path.join(SIMS, "h100x8-nvswitch.json")], log)
            try:
                ok = k.wait_clients(["nvidia.com/gpu"], 30)
                log.flush()
                log.seek(0)
                if check(ok, "device plugin (%s) in the node: not registered: %s" % (strategy, log.read()[-800:])):
                    c = k.clients["nvidia.com/gpu"]
                    c.wait_update(1)
                    ids = sorted(c.devices())
                    check(len(ids) == 8, "device plugin (%s): %d devices" % (strategy, len(ids)))
                    resp = c.allocate(ids[:2]).container_responses[0]
                    cdi = list(resp.cdi_devices)
                    mounts = {(m.host_path, m.container_path) for m in resp.mounts}
                    if strategy == "cdi-cri":
                        check(len(cdi) == 2 and all(n.name.startswith("axl.dev/nvidia-gpu=") for n in cdi) and
                              not mounts, "device plugin (cdi-cri): CDI %s, mounts %s" % (cdi, mounts))
                    else:
                        check(not cdi and want["h100x8-nvswitch.json"]["axl.dev/nvidia-gpu"] <= mounts and
                              all(m.read_only for m in resp.mounts),
                              "device plugin (mounts): CDI %s, mounts %s" % (cdi, sorted(mounts)))
                    print("device plugin (%s) in the node: 8 GPUs, Allocate: %d CDI names, %d mounts"
                          % (strategy, len(cdi), len(mounts)))
            finally:
                p.send_signal(signal.SIGTERM)
                try:
                    check(p.wait(timeout=10) == 0, "device plugin (%s): SIGTERM exit %s" % (strategy, p.returncode))
                except subprocess.TimeoutExpired:
                    p.kill()
                    check(False, "device plugin (%s): SIGTERM did not end it" % strategy)
                k.stop()
                log.close()

        # on the live CPU node: it waits, does not restart, uses next to no CPU
        kdir = os.path.join(work, "kubelet-cpu")
        k = fk.Kubelet(pb, kdir)
        k.start()
        log = open(os.path.join(work, "plugin-cpu.log"), "a+")
        p = node.popen([axl, "device-plugin", "--kubelet-dir", kdir, "--interval", "1s"], log)
        try:
            time.sleep(1.5)
            t0 = cpu_ticks(p.pid) if p.poll() is None else 0
            time.sleep(4)
            alive = p.poll() is None
            ticks = cpu_ticks(p.pid) - t0 if alive else None
            log.flush()
            log.seek(0)
            text = log.read()
            check(alive, "device plugin on the CPU node: exited %s: %s" % (p.returncode, text[-600:]))
            check(ticks is not None and ticks <= 10, "device plugin on the CPU node: %s clock ticks in 4 s" % ticks)
            check(not k.clients, "device plugin on the CPU node: registered %s" % list(k.clients))
            check("nothing to advertise" in text or "no accelerator" in text,
                  "device plugin on the CPU node: no note: %r" % text[-400:])
            print("device plugin on the CPU node: up, %s clock ticks in 4 s, nothing registered" % ticks)
        finally:
            t = time.time()
            p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(timeout=10)
                check(rc == 0 and time.time() - t < 2, "device plugin on the CPU node: SIGTERM: exit %s in %.1f s"
                      % (rc, time.time() - t))
            except subprocess.TimeoutExpired:
                p.kill()
                check(False, "device plugin on the CPU node: SIGTERM did not end it")
            k.stop()
            log.close()
    else:
        print("note: no device plugin module (axl-kubernetes.so) or no gRPC for Python: that part is skipped")

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
