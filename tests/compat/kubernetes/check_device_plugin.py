#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl device-plugin against a fake kubelet (fake_kubelet.py: real gRPC over unix
sockets, written from kubernetes' device manager), one case per run:

  register     registration (version, relative endpoint, resource name, options) and the
               first ListAndWatch: every device by UUID, Healthy, its NUMA node; SIGTERM
               removes the plugin's sockets
  allocate     Allocate on NVIDIA (8xH100 sim), AMD (8xMI300X sim), Habana (gaudi2-8x
               tree), AWS Neuron (inf2-48xl tree) and Intel (laptop tree: GPU and NPU):
               the CDI names are those `axl cdi list` prints, the device nodes those of
               the CDI spec for exactly the devices asked (no other device's node), the
               visibility variable by UUID
  preferred    GetPreferredAllocation on the 8xH100 NVSwitch sim (one NUMA node) and on a
               two-island sim (one xGMI island before one NUMA node), must-include kept;
               with one device in use, the rest of its island (NUMA node) is taken
               first and the whole one kept whole, whatever the order of the IDs; the
               gaudi2-8x tree's RoCE-joined Gaudi2 as one island likewise
  restart      the kubelet restarts (its start removes every socket in the directory):
               the plugin listens again, registers again, lists again
  device_loss  a sysroot node loses a GPU's device node: Unhealthy within a second and
               refused by Allocate; it returns: Healthy
  idle         a node with nothing to advertise (the 8xH100 tree without its GPUs, driver
               and nodes): the plugin waits (no exit, near-zero CPU, nothing registered)
               and SIGTERM ends it at once with 0; the GPUs and driver appear in sysfs:
               served and registered at the next --interval; their /dev nodes appear:
               Healthy within a second; SIGTERM: 0, the socket removed; on the laptop
               tree, the NPU's driver loading after the start: served beside the GPUs,
               whose registrations and streams stay as they were
  mig          --mig-strategy mixed (nvidia.com/mig-<profile> beside nvidia.com/gpu; through
               the NVML double, a 1g.10gb+me device as nvidia.com/mig-1g.10gb.me beside the
               1g.10gb ones) and single (MIG devices as nvidia.com/gpu; refused on a node it
               cannot serve)
  amd_partitions  2 MI300X in CPX mode, NPS4: 16 devices, one per partition, under none,
               single (amd.com/gpu) and mixed (amd.com/cpx_nps4), ROCm's option spelling
               too; Allocate of a partition: its render node, /dev/kfd, its CDI name;
               preferred: one GPU's partitions first; GPUs in two modes: single refused,
               none served and said, mixed one resource per mode; SPX GPUs under mixed:
               amd.com/spx_nps1; GPUs without modes: amd.com/gpu
  shares       --shares 4: IDs <uuid>::<k>; Allocate mounts and preloads the limiter with
               AXL_LIMIT_* of 1/4 (2/4 for two shares of one GPU), and the limiter really
               holds a CUDA workload (the CUDA double) to it
  stop         SIGTERM ends the plugin with 0 and removes its socket, 20 times in a row
               (the 2xH100 sim): shortly after it listens with no kubelet yet, and
               registered with a ListAndWatch stream open. Under ASan (scripts/test.sh)
               the status is also the exit's leak check: LeakSanitizer's tracer faulted
               on the command thread's dynamic TLS of gRPC's libraries one run in four
               (src/compat/kubernetes/grpc.c)
  bad_input    a kubelet that never answers, a socket directory that is not writable, a
               stale and a live socket, unknown/lost/too many IDs, garbage requests, an
               unknown method, bad options: clear errors, no hang, no spin, and the next
               good request still served

usage: check_device_plugin.py --axl AXL --case CASE --work DIR
       [--limiter LIB [--preload LIST] --double LIB --test-limiter BIN --xml XML]   (shares)
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.normpath(os.path.join(HERE, "..", ".."))
SIMS = os.path.join(TESTS, "sim")
TREES = os.path.join(TESTS, "trees")
sys.path.insert(0, HERE)

import grpc  # noqa: E402

import fake_kubelet as fk  # noqa: E402

failures: list[str] = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


class Plugin:
    """axl device-plugin as a child process, its standard error collected."""

    def __init__(self, a, kdir, node_args, extra=(), env=None, user=None):
        # appended to (O_APPEND): the child shares the file offset, and a write of its
        # while stderr() has seeked to the start would overwrite the log's first lines
        self.log = open(os.path.join(a.work, "plugin-%d.log" % time.monotonic_ns()), "a+")
        cmd = [a.axl, *node_args, "device-plugin", "--kubelet-dir", kdir, "-v", *extra]
        if user is not None:
            cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups", *cmd]
        self.p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.log, env=env or base_env(a))

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def wait_log(self, pattern, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if re.search(pattern, self.stderr()):
                return True
            if self.p.poll() is not None:
                return bool(re.search(pattern, self.stderr()))
            time.sleep(0.05)
        return False

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, timeout=10):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
            check(False, "the plugin did not stop within %d s of SIGTERM" % timeout)
        return rc


def socket_dir():
    """A short private folder for the sockets (mode 0700, under /tmp whatever TMPDIR says)."""
    return tempfile.mkdtemp(prefix="axl-dp-", dir="/tmp")


def base_env(a):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AXL_", "CUDA_", "LD_PRELOAD"))}
    env["AXL_STATE_DIR"] = os.path.join(a.work, "state-empty")
    return env


def axl_json(a, node_args, *args, env=None):
    r = subprocess.run([a.axl, *node_args, *args], capture_output=True, text=True, env=env or base_env(a), timeout=60)
    check(r.returncode == 0, "axl %s: rc %d %s" % (" ".join(args), r.returncode, r.stderr[-300:]))
    return json.loads(r.stdout) if r.stdout.strip().startswith(("{", "[")) else r.stdout


def cdi_list(a, node_args, env=None):
    return set(axl_json(a, node_args, "cdi", "list", env=env).split())


def cdi_specs(a, node_args, env=None, options=()):
    doc = axl_json(a, node_args, "cdi", "generate", "-o", "-", *options, env=env)
    return doc if isinstance(doc, list) else [doc]


def spec_nodes(specs, kind, names):
    """The device node paths a container with these CDI devices of kind gets."""
    out = set()
    for s in specs:
        if s["kind"] != kind:
            continue
        for n in s.get("containerEdits", {}).get("deviceNodes", []):
            out.add(n["path"])
        for d in s["devices"]:
            if d["name"] in names:
                for n in d.get("containerEdits", {}).get("deviceNodes", []):
                    out.add(n["path"])
    return out


def tree(a, name):
    dst = os.path.join(a.work, "tree-" + name)
    shutil.rmtree(dst, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"), os.path.join(TREES, "nodes", name + ".json"), dst],
                   check=True, stdout=subprocess.DEVNULL)
    return dst


def start(a, pb, node_args, resources, extra=(), env=None, kdir=None):
    kdir = kdir or os.path.join(a.sock, "kubelet-%d" % time.monotonic_ns())
    k = fk.Kubelet(pb, kdir)
    k.start()
    p = Plugin(a, kdir, node_args, extra, env)
    ok = k.wait_clients(resources, 20)
    check(ok, "%s registered %s (log: %s)" % (node_args, resources, p.stderr()[-800:]))
    for r in resources:
        if r in k.clients:
            check(k.clients[r].wait_update(1) is not None, "%s: a first ListAndWatch response" % r)
    return k, p


def stop(k, p):
    rc = p.stop()
    k.stop()
    return rc


def grpc_error(fn):
    """(code, details) of the RpcError fn raises, or (None, None)."""
    try:
        fn()
    except grpc.RpcError as e:
        return e.code(), e.details()
    return None, None


# ---- cases -------------------------------------------------------------------------------

def case_register(a, pb):
    sim = ["--sim", os.path.join(SIMS, "h100x8-nvswitch.json")]
    inv = axl_json(a, sim, "list", "--json")
    k, p = start(a, pb, sim, ["nvidia.com/gpu"])
    reg = k.registrations[0] if k.registrations else None
    if check(reg is not None, "a Register call"):
        check(reg.version == "v1beta1", "version %r" % reg.version)
        check(reg.resource_name == "nvidia.com/gpu", "resource %r" % reg.resource_name)
        check(reg.endpoint and "/" not in reg.endpoint and os.path.exists(os.path.join(k.dir, reg.endpoint)),
              "endpoint %r is a socket's name in the kubelet's directory" % reg.endpoint)
        check(reg.options.get_preferred_allocation_available and not reg.options.pre_start_required,
              "options %s" % reg.options)
    c = k.clients.get("nvidia.com/gpu")
    if c:
        check(c.options.get_preferred_allocation_available, "GetDevicePluginOptions: %s" % c.options)
        want = {d["uuid"]: ("Healthy", [d["numa_node"]]) for d in inv["devices"]}
        check(c.devices() == want, "ListAndWatch: %s, want %s" % (c.devices(), want))
        check(c.prestart_rpc(pb.PreStartContainerRequest(devices_ids=list(want)[:1]), timeout=5) is not None,
              "PreStartContainer answers")
    sock = os.path.join(k.dir, reg.endpoint) if reg else None
    rc = p.stop()
    check(rc == 0, "SIGTERM: exit 0, got %s" % rc)
    check(sock and not os.path.exists(sock), "SIGTERM removed %s" % sock)
    k.stop()


def case_allocate(a, pb):
    nodes = [
        # the kubelet resource stays the vendor's name; the CDI kind is axl's own, never the
        # vendor's (nvidia-ctk and AMD's toolkit write theirs into the same folder)
        ("NVIDIA 8xH100", ["--sim", os.path.join(SIMS, "h100x8-nvswitch.json")], "nvidia.com/gpu",
         "axl.dev/nvidia-gpu", "CUDA_VISIBLE_DEVICES"),
        ("AMD 8xMI300X", ["--sim", os.path.join(SIMS, "mi300x8.json")], "amd.com/gpu", "axl.dev/amd-gpu",
         "ROCR_VISIBLE_DEVICES"),
        ("Habana gaudi2-8x", ["--sysroot", tree(a, "gaudi2-8x")], "habana.ai/gaudi", "axl.dev/habana-gaudi", None),
        ("AWS inf2-48xl", ["--sysroot", tree(a, "inf2-48xl")], "aws.amazon.com/neuron", "axl.dev/aws-neuron", None),
        ("Intel laptop GPU", ["--sysroot", tree(a, "laptop-npu-2gpu")], "gpu.intel.com/i915", "axl.dev/intel-gpu",
         None),
        ("Intel laptop NPU", ["--sysroot", None], "npu.intel.com/accel", "axl.dev/intel-npu", None),
    ]
    for i, (what, node, res, kind, vis) in enumerate(nodes):
        if node[1] is None:
            node = nodes[i - 1][1]
        listed = cdi_list(a, node)
        specs = cdi_specs(a, node)
        k, p = start(a, pb, node, [res])
        c = k.clients.get(res)
        if not c:
            stop(k, p)
            continue
        ids = sorted(c.devices())
        check(len(ids) >= 1, "%s: devices listed" % what)
        take = ids[:2]
        resp = c.allocate(take).container_responses[0]
        cdi = [d.name for d in resp.cdi_devices]
        check(all(n.startswith(kind + "=") for n in cdi), "%s: CDI names %s not of kind %s" % (what, cdi, kind))
        check(len(cdi) == len(take) and set(cdi) <= listed,
              "%s: CDI names %s are among axl cdi list's %s" % (what, cdi, sorted(listed)[:6]))
        names = {n.split("=", 1)[1] for n in cdi}
        want_nodes = spec_nodes(specs, kind, names)
        got_nodes = {d.host_path for d in resp.devices}
        check(got_nodes == want_nodes, "%s: device nodes %s, the CDI spec's %s" % (what, sorted(got_nodes), sorted(want_nodes)))
        check(all(d.container_path == d.host_path and d.permissions == "rw" for d in resp.devices),
              "%s: device specs %s" % (what, resp.devices))
        # no device that was not allocated reaches the container
        others = spec_nodes(specs, kind, {n.split("=", 1)[1] for n in listed if n.startswith(kind + "=")} - names
                            - {"all"}) - want_nodes
        check(not (got_nodes & others), "%s: nodes of devices not asked: %s" % (what, got_nodes & others))
        if vis:
            check(resp.envs.get(vis) == ",".join(take), "%s: %s=%r, want %r" % (what, vis, resp.envs.get(vis), ",".join(take)))
        # the libraries are the CDI spec's to mount: none in the answer
        check(not resp.mounts, "%s: mounts beside the CDI names: %s" % (what, list(resp.mounts)))
        stop(k, p)
    allocate_without_cdi(a, pb)


def debian_driver_root(work):
    """a driver root laid out as Debian 12's NVIDIA packages install the driver's
    libraries: libcuda.so.1 -> /etc/alternatives/... -> nvidia/current/libcuda.so.1 ->
    libcuda.so.535.261.03 (update-alternatives' absolute links)"""
    root = os.path.join(work, "driver-root-debian")
    shutil.rmtree(root, ignore_errors=True)
    cur = "/usr/lib/x86_64-linux-gnu/nvidia/current"
    os.makedirs(root + cur)
    os.makedirs(root + "/etc/alternatives")
    os.makedirs(root + "/usr/bin")
    os.makedirs(root + "/usr/lib/nvidia/current")
    for lib in ("libcuda", "libnvidia-ml"):
        open(root + "%s/%s.so.535.261.03" % (cur, lib), "w").close()
        os.symlink("%s.so.535.261.03" % lib, root + "%s/%s.so.1" % (cur, lib))
        alt = "/etc/alternatives/nvidia--%s.so.1-x86_64-linux-gnu" % lib
        os.symlink("%s/%s.so.1" % (cur, lib), root + alt)
        os.symlink(alt, root + "/usr/lib/x86_64-linux-gnu/%s.so.1" % lib)
    open(root + "/usr/lib/nvidia/current/nvidia-smi", "w").close()
    os.symlink("/usr/lib/nvidia/current/nvidia-smi", root + "/usr/bin/nvidia-smi")
    return root


def allocate_without_cdi(a, pb):
    """--device-list-strategy mounts (containerd < 1.7, CRI-O without CDI): no CDI name,
    the spec's device nodes, environment and mounts in the answer itself, the mounts'
    host paths those of the driver root's files on the host (--driver-root-host)"""
    root = debian_driver_root(a.work)
    node = ["--sim", os.path.join(SIMS, "h100x8-nvswitch.json")]
    dr = ["--driver-root", root, "--driver-root-host", "/"]
    spec = [s for s in cdi_specs(a, node, options=["--driver-root", root]) if s["kind"] == "axl.dev/nvidia-gpu"][0]
    want_mounts = {(m["containerPath"], m["hostPath"]) for m in spec["containerEdits"]["mounts"]}
    check(("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03")
          in want_mounts and len(want_mounts) == 3, "the Debian root's spec mounts: %s" % sorted(want_mounts))
    k, p = start(a, pb, node, ["nvidia.com/gpu"], extra=["--device-list-strategy", "mounts"] + dr)
    c = k.clients.get("nvidia.com/gpu")
    if c:
        take = sorted(c.devices())[:2]
        resp = c.allocate(take).container_responses[0]
        check(not resp.cdi_devices, "mounts: CDI names %s" % list(resp.cdi_devices))
        got = {(m.container_path, m.host_path) for m in resp.mounts}
        check(got == want_mounts and all(m.read_only for m in resp.mounts),
              "mounts: %s, the spec mounts %s" % (sorted(got), sorted(want_mounts)))
        names = {d["name"] for d in spec["devices"] if d["name"] in take}
        check(names == set(take), "mounts: the spec names the devices by UUID: %s" % sorted(names))
        check({d.host_path for d in resp.devices} == spec_nodes([spec], spec["kind"], names),
              "mounts: device nodes %s" % sorted(d.host_path for d in resp.devices))
        check(resp.envs.get("NVIDIA_VISIBLE_DEVICES") == "void" and resp.envs.get("CUDA_VISIBLE_DEVICES") == ",".join(take),
              "mounts: environment %s" % dict(resp.envs))
    stop(k, p)
    r = subprocess.run([a.axl, *node, "device-plugin", "--device-list-strategy", "volumes"], capture_output=True,
                       text=True, timeout=20)
    check(r.returncode == 2 and "--device-list-strategy takes" in r.stderr, "a bad strategy: %d %r" % (r.returncode, r.stderr))


def case_preferred(a, pb):
    sim = ["--sim", os.path.join(SIMS, "h100x8-nvswitch.json")]
    inv = axl_json(a, sim, "list", "--json")
    numa = {d["uuid"]: d["numa_node"] for d in inv["devices"]}
    k, p = start(a, pb, sim, ["nvidia.com/gpu"])
    c = k.clients.get("nvidia.com/gpu")
    if c:
        ids = [d["uuid"] for d in inv["devices"]]
        for size in (1, 2, 4):
            got = c.preferred(ids, [], size)
            check(len(got) == size and len({numa[g] for g in got}) == 1,
                  "8xH100 size %d: one NUMA node, got %s" % (size, [(g[:12], numa[g]) for g in got]))
        got = c.preferred(ids, [ids[5]], 2)
        check(ids[5] in got and len(got) == 2 and numa[got[0]] == numa[got[1]] == numa[ids[5]],
              "must-include %s kept, its NUMA node: %s" % (ids[5][:12], got))
        got = c.preferred(ids[2:6], [], 3)
        check(set(got) <= set(ids[2:6]) and len(got) == 3, "only available IDs: %s" % got)
        got = c.preferred(ids, [], 8)
        check(sorted(got) == sorted(ids), "size 8: every device")
        # one GPU of a NUMA node in use: a single GPU from that node, four from the other
        for gone in (ids[1], ids[6]):
            rest = [i for i in ids if i != gone]
            for avail in (rest, rest[::-1]):
                got = c.preferred(avail, [], 1)
                check(len(got) == 1 and numa[got[0]] == numa[gone],
                      "8xH100 without %s: one GPU from its NUMA node: %s" % (gone[:12], [(g[:12], numa[g]) for g in got]))
                got = c.preferred(avail, [], 3)
                check(sorted(got) == sorted(i for i in rest if numa[i] == numa[gone]),
                      "8xH100 without %s: three GPUs are the rest of its NUMA node: %s" % (gone[:12], got))
                got = c.preferred(avail, [], 4)
                check(sorted(got) == sorted(i for i in ids if numa[i] != numa[gone]),
                      "8xH100 without %s: four GPUs are the other NUMA node: %s" % (gone[:12], got))
                got = c.preferred(avail, [], 7)
                check(sorted(got) == sorted(rest), "8xH100 without %s: size 7: the rest" % gone[:12])
    stop(k, p)
    # two xGMI islands of four MI210s, each island across both NUMA nodes
    sim = ["--sim", os.path.join(SIMS, "mi210x8-2islands.json")]
    inv = axl_json(a, sim, "list", "--json")
    devs = inv["devices"]
    uu = [d["uuid"] for d in devs]
    numa = {d["uuid"]: d["numa_node"] for d in devs}
    isl = {}
    for ln in inv.get("links", []):
        if ln["kind"] == "xgmi":
            isl.setdefault(ln["a"], set()).add(ln["b"])
    island_of = {}
    for d in devs:
        peers = isl.get(d["id"], set()) | {x for x, s in isl.items() if d["id"] in s}
        island_of[d["uuid"]] = min([d["id"], *peers])
    check(len(set(island_of.values())) == 2, "the sim has two islands: %s" % island_of)
    k, p = start(a, pb, sim, ["amd.com/gpu"])
    c = k.clients.get("amd.com/gpu")
    if c:
        got = c.preferred(uu, [], 4)
        check(len({island_of[g] for g in got}) == 1, "size 4: one island before one NUMA node: %s"
              % [(island_of[g], numa[g]) for g in got])
        got = c.preferred(uu, [], 2)
        check(len({island_of[g] for g in got}) == 1 and len({numa[g] for g in got}) == 1,
              "size 2: one island and one NUMA node: %s" % [(island_of[g], numa[g]) for g in got])
        must = uu[6]
        got = c.preferred(uu, [must], 3)
        check(must in got and len({island_of[g] for g in got}) == 1 and island_of[got[0]] == island_of[must],
              "must-include %s: its island: %s" % (must, [(island_of[g], numa[g]) for g in got]))
        # the must-include devices of two islands are both kept
        got = c.preferred(uu, [uu[0], uu[7]], 2)
        check(sorted(got) == sorted([uu[0], uu[7]]), "two must-include kept: %s" % got)
        # islands kept whole (NVIDIA's plugin issue 1193): one GPU of an island in use,
        # whichever island and whatever order the kubelet lists the rest in
        for gone in (uu[0], uu[5]):
            broken = island_of[gone]
            left = [u for u in uu if u != gone and island_of[u] == broken]
            whole = [u for u in uu if island_of[u] != broken]
            rest = [u for u in uu if u != gone]
            for avail in (rest, rest[::-1]):
                what = "without %s (island %s), available %s" % (gone, broken, "reversed" if avail[0] != rest[0] else "in order")
                got = c.preferred(avail, [], 1)
                check(len(got) == 1 and island_of[got[0]] == broken,
                      "%s: one GPU from the broken island: %s" % (what, [island_of[g] for g in got]))
                got = c.preferred(avail, [], 2)
                check(len(got) == 2 and {island_of[g] for g in got} == {broken} and len({numa[g] for g in got}) == 1,
                      "%s: two GPUs from the broken island, one NUMA node: %s" % (what, [(island_of[g], numa[g]) for g in got]))
                got = c.preferred(avail, [], 3)
                check(sorted(got) == sorted(left), "%s: three GPUs are the broken island's rest: %s" % (what, got))
                got = c.preferred(avail, [], 4)
                check(sorted(got) == sorted(whole), "%s: four GPUs are the whole island: %s" % (what, got))
                # a must-include device of the whole island: its island, as before
                got = c.preferred(avail, [whole[1]], 2)
                check(whole[1] in got and {island_of[g] for g in got} == {island_of[whole[1]]},
                      "%s: must-include %s keeps its island: %s" % (what, whole[1], got))
        # one GPU from each island in use: a request of 1 takes from a broken island, not
        # a third one; two broken islands of three: 3 fits one of them exactly
        rest = [u for u in uu if u not in (uu[0], uu[5])]
        got = c.preferred(rest, [], 3)
        check(len({island_of[g] for g in got}) == 1, "two broken islands: three GPUs from one: %s" % got)
    stop(k, p)
    # the gaudi2-8x tree: 8 Gaudi2 of one baseboard, every pair joined by RoCE ports (axl's
    # "roce" links), one island as an NVSwitch node is: with one Gaudi2 in use, the rest of
    # its NUMA node's part of the island is taken first and the other part kept whole
    node = ["--sysroot", tree(a, "gaudi2-8x")]
    inv = axl_json(a, node, "list", "--json")
    check(sum(1 for ln in inv.get("links", []) if ln["kind"] == "roce") == 28, "gaudi2-8x: 28 roce links")
    k, p = start(a, pb, node, ["habana.ai/gaudi"])
    c = k.clients.get("habana.ai/gaudi")
    if c:
        devs = c.devices()
        ids = sorted(devs)
        numa = {i: tuple(devs[i][1]) for i in ids}
        check(len(ids) == 8 and len(set(numa.values())) == 2 and all(len(v) == 1 for v in numa.values()),
              "gaudi2-8x: 8 devices on 2 NUMA nodes: %s" % numa)
        for gone in (ids[1], ids[6]):
            rest = [i for i in ids if i != gone]
            for avail in (rest, rest[::-1]):
                what = "gaudi2-8x without %s (%s)" % (gone, "reversed" if avail[0] != rest[0] else "in order")
                got = c.preferred(avail, [], 1)
                check(len(got) == 1 and numa[got[0]] == numa[gone],
                      "%s: one from its NUMA node: %s" % (what, [(g, numa[g]) for g in got]))
                got = c.preferred(avail, [], 3)
                check(sorted(got) == sorted(i for i in rest if numa[i] == numa[gone]),
                      "%s: three are the rest of its NUMA node: %s" % (what, got))
                got = c.preferred(avail, [], 4)
                check(sorted(got) == sorted(i for i in ids if numa[i] != numa[gone]),
                      "%s: four are the other NUMA node: %s" % (what, got))
    stop(k, p)


def case_restart(a, pb):
    sim = ["--sim", os.path.join(SIMS, "mi300x8.json")]
    k, p = start(a, pb, sim, ["amd.com/gpu"])
    first = dict(k.clients["amd.com/gpu"].devices()) if "amd.com/gpu" in k.clients else {}
    kdir = k.dir
    k.stop()
    time.sleep(0.3)
    k2 = fk.Kubelet(pb, kdir)
    t0 = time.monotonic()
    k2.start()  # removes every socket in the directory, the plugin's too
    ok = k2.wait_clients(["amd.com/gpu"], 20)
    check(ok, "registered again after the kubelet restarted (log: %s)" % p.stderr()[-600:])
    if ok:
        c = k2.clients["amd.com/gpu"]
        check(c.wait_update(1) is not None and c.devices() == first, "the same list after the restart")
        check(time.monotonic() - t0 < 10, "re-registration took %.1f s" % (time.monotonic() - t0))
        check(len(c.allocate([sorted(first)[0]]).container_responses) == 1, "Allocate after the restart")
    check(p.p.poll() is None, "the plugin survived the kubelet's restart")
    stop(k2, p)


def case_device_loss(a, pb):
    t = tree(a, "hgx-8x-h100")
    node = ["--sysroot", t]
    inv = axl_json(a, node, "list", "--json")
    victim = inv["devices"][3]
    k, p = start(a, pb, node, ["nvidia.com/gpu"])
    c = k.clients.get("nvidia.com/gpu")
    if not c:
        stop(k, p)
        return
    n0 = len(c.updates)
    check(c.devices().get(victim["uuid"], ("?",))[0] == "Healthy", "before: %s Healthy" % victim["uuid"])
    devnode = os.path.join(t, "dev", "nvidia%d" % victim["index"])
    hidden = devnode + ".gone"
    check(os.path.exists(devnode), "%s exists in the tree" % devnode)
    t0 = time.monotonic()
    os.rename(devnode, os.path.join(t, hidden))
    resp = c.wait_update(n0 + 1, 5)
    dt = time.monotonic() - t0
    check(resp is not None and c.devices().get(victim["uuid"], ("?",))[0] == "Unhealthy",
          "after the node went: %s Unhealthy (%s)" % (victim["uuid"], c.devices().get(victim["uuid"])))
    check(dt <= 1.5, "the change was seen in %.2f s (target 1 s; settle 0.2 s)" % dt)
    check(sum(1 for h, _ in c.devices().values() if h == "Healthy") == 7, "the other seven stay Healthy")
    code, det = grpc_error(lambda: c.allocate([victim["uuid"]]))
    check(code == grpc.StatusCode.FAILED_PRECONDITION and det and victim["uuid"] in det,
          "Allocate of the lost device: %s %s" % (code, det))
    other = inv["devices"][0]["uuid"]
    check(len(c.allocate([other]).container_responses) == 1, "Allocate of another device still works")
    n1 = len(c.updates)
    os.rename(os.path.join(t, hidden), devnode)
    c.wait_update(n1 + 1, 5)
    check(c.devices().get(victim["uuid"], ("?",))[0] == "Healthy", "it came back: Healthy")
    stop(k, p)


class Hidden:
    """Paths of a tree moved aside (into the work directory: one file system) and back."""

    def __init__(self, a, t, name):
        self.t, self.store, self.moved = t, os.path.join(a.work, "hidden-" + name), []
        os.makedirs(self.store, exist_ok=True)

    def hide(self, rel):
        dst = os.path.join(self.store, rel.replace("/", "%"))
        os.rename(os.path.join(self.t, rel), dst)
        self.moved.append(rel)

    def restore(self, keep=lambda rel: False):
        for rel in [r for r in self.moved if not keep(r)]:
            os.rename(os.path.join(self.store, rel.replace("/", "%")), os.path.join(self.t, rel))
            self.moved.remove(rel)


def case_idle(a, pb):
    t = tree(a, "hgx-8x-h100")
    node = ["--sysroot", t]
    inv = axl_json(a, node, "list", "--json")
    gpus = [d for d in inv["devices"] if d["id"].startswith("nvidia:")]
    # a node before the NVIDIA driver is there: no GPU on the PCI bus nor under
    # /proc/driver, no nvidia module, no /dev/nvidia*
    h = Hidden(a, t, "nvidia")
    for d in gpus:
        dev = os.path.join("sys/bus/pci/devices", d["pci"]["address"])
        h.hide(os.path.relpath(os.path.join(os.path.realpath(os.path.join(t, dev)), "driver"), t))
        h.hide(dev)
    for rel in ("proc/driver/nvidia", "sys/bus/pci/drivers/nvidia", "sys/module/nvidia", "sys/module/nvidia_uvm",
                "sys/module/nvidia_modeset"):
        h.hide(rel)
    for name in sorted(os.listdir(os.path.join(t, "dev"))):
        if name.startswith("nvidia"):
            h.hide("dev/" + name)
    check(axl_json(a, node, "list", "--json")["devices"] == [], "the tree has no accelerator left")
    # waiting, at no cost; SIGTERM ends the wait at once
    kdir = os.path.join(a.sock, "kubelet-idle")
    k = fk.Kubelet(pb, kdir)
    k.start()
    p = Plugin(a, kdir, node)
    check(p.wait_log(r"no accelerator to advertise on this node: waiting", 10),
          "nothing to advertise is said once: %s" % p.stderr()[-400:])
    c0 = p.cpu_seconds()
    time.sleep(3)
    used = p.cpu_seconds() - c0
    check(p.p.poll() is None, "with nothing to advertise it stays up (exit %s): %s" % (p.p.returncode, p.stderr()[-400:]))
    check(used <= 0.05, "idle: %.2f s CPU in 3 s (target near zero)" % used)
    check(not k.registrations and not [f for f in os.listdir(kdir) if f.startswith("axl-")],
          "nothing registered, no socket: %s %s" % (k.registrations, os.listdir(kdir)))
    check(len(re.findall(r"no accelerator to advertise", p.stderr())) == 1, "said once: %s" % p.stderr()[-400:])
    t0 = time.monotonic()
    rc = p.stop(10)
    dt = time.monotonic() - t0
    check(rc == 0 and dt < 1.0, "SIGTERM while waiting: exit %s in %.2f s (want 0, well under a second)" % (rc, dt))
    # waiting again, rediscovering every second; the GPUs and the driver appear in sysfs
    # and /proc (no /dev change: found by the interval; advertised Unhealthy, their nodes
    # being absent), then the driver's /dev nodes (found by the watch: Healthy)
    p = Plugin(a, kdir, node, ["--interval", "1s"])
    check(p.wait_log(r"no accelerator to advertise", 10), "waiting: %s" % p.stderr()[-400:])
    time.sleep(1.5)
    check(p.p.poll() is None and not k.registrations, "still waiting, nothing registered: %s" % p.stderr()[-400:])
    t0 = time.monotonic()
    h.restore(keep=lambda rel: rel.startswith("dev/"))
    ok = k.wait_clients(["nvidia.com/gpu"], 5)
    dt = time.monotonic() - t0
    check(ok and dt <= 3.0, "the GPUs appeared in sysfs: registered after %.1f s (--interval 1s; log: %s)"
          % (dt, p.stderr()[-600:]))
    check(p.wait_log(r"nvidia\.com/gpu appeared: 8 devices on ", 2), "the new resource is said: %s" % p.stderr()[-400:])
    c = k.clients.get("nvidia.com/gpu")
    if c:
        check(c.wait_update(1, 5) is not None and set(c.devices()) == {d["uuid"] for d in gpus},
              "the 8 GPUs listed: %s" % c.devices())
        check(all(v[0] == "Unhealthy" for v in c.devices().values()), "without their nodes: Unhealthy (%s)" % c.devices())
        n0 = len(c.updates)
        t0 = time.monotonic()
        h.restore()
        end = time.monotonic() + 3
        while time.monotonic() < end and not (c.devices() and all(v[0] == "Healthy" for v in c.devices().values())):
            c.wait_update(len(c.updates) + 1, 0.2)
        dt = time.monotonic() - t0
        check(len(c.updates) > n0 and all(v[0] == "Healthy" for v in c.devices().values()),
              "their /dev nodes appeared: all Healthy (%s)" % c.devices())
        check(dt <= 1.5, "the nodes were seen in %.2f s (target 1 s; settle 0.2 s)" % dt)
        r = c.allocate([gpus[0]["uuid"]]).container_responses[0]
        check(len(r.cdi_devices) == 1, "Allocate of a GPU that appeared: %s" % r)
    reg = k.registrations[0] if k.registrations else None
    sock = os.path.join(kdir, reg.endpoint) if reg else None
    t0 = time.monotonic()
    rc = p.stop(10)
    dt = time.monotonic() - t0
    check(rc == 0 and dt < 1.0, "SIGTERM while serving: exit %s in %.2f s" % (rc, dt))
    check(sock and not os.path.exists(sock), "SIGTERM removed %s" % sock)
    k.stop()
    # beside resources already served: the laptop's NPU driver loads after the start
    t = tree(a, "laptop-npu-2gpu")
    node = ["--sysroot", t]
    npu = [d for d in axl_json(a, node, "list", "--json")["devices"] if d["id"].startswith("intelnpu:")][0]
    h = Hidden(a, t, "npu")
    dev = os.path.relpath(os.path.realpath(os.path.join(t, "sys/bus/pci/devices", npu["pci"]["address"])), t)
    for rel in (dev + "/driver", dev + "/accel", "sys/class/accel", "sys/bus/pci/drivers/intel_vpu",
                "sys/module/intel_vpu", "dev/accel"):
        h.hide(rel)
    first = ["nvidia.com/gpu", "gpu.intel.com/i915"]
    k, p = start(a, pb, node, first)
    check("npu.intel.com/accel" not in k.clients, "no NPU resource before its driver: %s" % list(k.clients))
    before = {r: k.clients.get(r) for r in first}
    t0 = time.monotonic()
    h.restore()
    ok = k.wait_clients(["npu.intel.com/accel"], 5)
    dt = time.monotonic() - t0
    check(ok and dt <= 1.5, "the NPU's driver loaded: npu.intel.com/accel registered after %.2f s (log: %s)"
          % (dt, p.stderr()[-600:]))
    n = k.clients.get("npu.intel.com/accel")
    if n:
        check(n.wait_update(1, 5) is not None and list(n.devices().values()) == [("Healthy", [])],
              "the NPU listed Healthy: %s" % n.devices())
        check(len(n.allocate(list(n.devices())).container_responses[0].cdi_devices) == 1, "Allocate of the NPU")
    regs = [r.resource_name for r in k.registrations]
    check(all(regs.count(r) == 1 and k.clients.get(r) is before[r] and not before[r].ended for r in first),
          "the resources served before are undisturbed (one registration each, streams open): %s" % regs)
    c = k.clients.get("nvidia.com/gpu")
    check(c is not None and len(c.allocate(list(c.devices())).container_responses) == 1, "Allocate of the GPU still works")
    t0 = time.monotonic()
    rc = p.stop(10)
    dt = time.monotonic() - t0
    check(rc == 0 and dt < 1.0, "SIGTERM with two starts of the module: exit %s in %.2f s" % (rc, dt))
    check(not [f for f in os.listdir(k.dir) if f.startswith("axl-")], "every socket removed: %s" % os.listdir(k.dir))
    k.stop()


def make_partitions(a, sim, state, plan):
    env = dict(base_env(a), AXL_STATE_DIR=state)
    for dev, prof in plan:
        r = subprocess.run([a.axl, "--sim", sim, "partition", "create", dev, prof], capture_output=True, text=True,
                           env=env, timeout=60)
        check(r.returncode == 0, "partition create %s %s: %s" % (dev, prof, r.stderr))
    return env


def case_mig(a, pb):
    sim = os.path.join(SIMS, "h100x8-mig2.json")
    state = os.path.join(a.work, "state-mixed")
    env = make_partitions(a, sim, state, [("nvidia:0", "3g.40gb"), ("nvidia:0", "3g.40gb"),
                                          ("nvidia:1", "1g.10gb"), ("nvidia:1", "1g.10gb")])
    listed = cdi_list(a, ["--sim", sim], env=env)
    res = ["nvidia.com/gpu", "nvidia.com/mig-3g.40gb", "nvidia.com/mig-1g.10gb"]
    k, p = start(a, pb, ["--sim", sim], res, extra=["--mig-strategy", "mixed"], env=env)
    sizes = {r: len(k.clients[r].devices()) for r in res if r in k.clients}
    check(sizes == {"nvidia.com/gpu": 6, "nvidia.com/mig-3g.40gb": 2, "nvidia.com/mig-1g.10gb": 2},
          "mixed: %s" % sizes)
    c = k.clients.get("nvidia.com/mig-1g.10gb")
    if c:
        mid = sorted(c.devices())[0]
        resp = c.allocate([mid]).container_responses[0]
        cdi = [d.name for d in resp.cdi_devices]
        check(len(cdi) == 1 and cdi[0] in listed, "a MIG device's CDI name %s is axl cdi list's" % cdi)
        nodes = {d.host_path for d in resp.devices}
        check("/dev/nvidia1" in nodes and not {"/dev/nvidia0", "/dev/nvidia2"} & nodes,
              "a MIG device of GPU 1 gets its GPU's node and no other GPU's: %s" % sorted(nodes))
        check(resp.envs.get("CUDA_VISIBLE_DEVICES") == mid, "CUDA_VISIBLE_DEVICES=%r" % resp.envs.get("CUDA_VISIBLE_DEVICES"))
    g = k.clients.get("nvidia.com/gpu")
    if g:
        inv = axl_json(a, ["--sim", sim], "list", "--json", env=env)
        whole = {d["uuid"] for d in inv["devices"] if d["index"] >= 2}
        check(set(g.devices()) == whole, "mixed: the six GPUs without MIG are nvidia.com/gpu")
    stop(k, p)
    # single on the same node: two profiles, and whole GPUs beside MIG devices: refused
    os.makedirs(os.path.join(a.sock, "kdir-single"), exist_ok=True)
    p = Plugin(a, os.path.join(a.sock, "kdir-single"), ["--sim", sim], ["--mig-strategy", "single"], env)
    rc = p.p.wait(30)
    err = p.stderr()
    check(rc == 1 and "--mig-strategy single" in err and "mixed" in err, "single refused (rc %s): %s" % (rc, err[-300:]))
    # single where every GPU is in MIG mode with one profile: the MIG devices are nvidia.com/gpu
    sim2 = os.path.join(SIMS, "h100x2.json")
    state2 = os.path.join(a.work, "state-single")
    env2 = make_partitions(a, sim2, state2, [("nvidia:0", "1g.10gb"), ("nvidia:0", "1g.10gb"),
                                             ("nvidia:1", "1g.10gb")])
    k, p = start(a, pb, ["--sim", sim2], ["nvidia.com/gpu"], extra=["--mig-strategy", "single"], env=env2)
    c = k.clients.get("nvidia.com/gpu")
    if c:
        inv = axl_json(a, ["--sim", sim2], "list", "--json", env=env2)
        migs = {ch["uuid"] for d in inv["devices"] for ch in d.get("children", [])}
        check(set(c.devices()) == migs and len(migs) == 3, "single: the 3 MIG devices: %s vs %s" % (c.devices(), migs))
    stop(k, p)
    # none: MIG-mode GPUs stay whole GPUs
    k, p = start(a, pb, ["--sim", sim2], ["nvidia.com/gpu"], env=env2)
    c = k.clients.get("nvidia.com/gpu")
    check(c is not None and set(c.devices()) == {"stub-device-0", "stub-device-1"},
          "none: whole GPUs: %s" % (c.devices() if c else None))
    stop(k, p)
    # +me through NVML (its double, MIG on, beside the build's axl; the simulated GPUs offer
    # the device database's profiles, without +me): a 1g.10gb+me instance has the slices and
    # memory of a 1g.10gb one, and NVML's engine counts tell them apart; under mixed it is a
    # resource of its own, its '+' a '.' as NVIDIA's plugin names it
    nvml = os.path.join(os.path.dirname(os.path.abspath(a.axl)), "tests", "vendorlib", "nvml", "double",
                        "libnvidia-ml.so.1")
    if check(os.path.exists(nvml), "the NVML double at %s" % nvml):
        envn = dict(base_env(a), AXL_STATE_DIR=os.path.join(a.work, "state-nvml"), AXL_NVML_LIBRARY=nvml,
                    AXL_NVML_DOUBLE_XML=os.path.join(TESTS, "vendorlib", "nvml", "double", "fixtures",
                                                     "hgx-8x-h100-q2x.xml"),
                    AXL_NVML_DOUBLE_MIG="1", AXL_NVML_DOUBLE_STATE=os.path.join(a.work, "nvml-double.json"))
        os.makedirs(envn["AXL_STATE_DIR"], exist_ok=True)
        made = {"nvidia.com/mig-1g.10gb": set(), "nvidia.com/mig-1g.10gb.me": set()}
        for prof in ("1g.10gb+me", "1g.10gb", "1g.10gb"):
            r = subprocess.run([a.axl, "partition", "create", "nvidia:0", prof, "--json"], capture_output=True,
                               text=True, env=envn, timeout=60)
            if check(r.returncode == 0, "NVML: partition create nvidia:0 %s: %s" % (prof, r.stderr)):
                made["nvidia.com/mig-" + prof.replace("+", ".")].add(json.loads(r.stdout)["id"])
        k, p = start(a, pb, [], list(made), extra=["--mig-strategy", "mixed"], env=envn)
        got = {r: set(k.clients[r].devices()) for r in made if r in k.clients}
        check(got == made, "NVML, mixed: %s, want %s" % (got, made))
        stop(k, p)


def mode_file(t, address, name):
    """The sysfs attribute name of the PCI function at address, in tree t."""
    for root, _dirs, files in os.walk(os.path.join(t, "sys", "devices")):
        if name in files and os.path.basename(root) == address:
            return os.path.join(root, name)
    return None


def case_amd_partitions(a, pb):
    # 2 MI300X in CPX mode with NPS4 memory: 16 partitions, each its own device, as ROCm's
    # plugin advertises them (amd.com/gpu under its default single strategy and under axl's
    # none, amd.com/cpx_nps4 under mixed), each with its own render node
    t = tree(a, "mi300x-2x-cpx-nps4")
    node = ["--sysroot", t]
    inv = axl_json(a, node, "list", "--json")
    parts = {}  # plugin ID -> (CDI name, render node, GPU)
    for g in inv["devices"]:
        for ch in g.get("children", []):
            render = [n for n in ch["device_nodes"] if "/renderD" in n]
            parts["%s/%s" % (g["uuid"], ch["id"].split("/", 1)[1])] = (
                "axl.dev/amd-gpu=%d:%d" % (g["index"], ch["index"]), render[0] if render else None, g["uuid"])
    check(len(parts) == 16 and len({r for _, r, _ in parts.values()}) == 16,
          "the CPX tree: 16 partitions, each its own render node: %s" % parts)
    listed = cdi_list(a, node)
    specs = cdi_specs(a, node)
    strategies = [("none", [], "amd.com/gpu"), ("single", ["--resource_naming_strategy=single"], "amd.com/gpu"),
                  ("mixed", ["--mig-strategy", "mixed"], "amd.com/cpx_nps4"),
                  ("mixed, ROCm's spelling", ["-resource_naming_strategy", "mixed"], "amd.com/cpx_nps4")]
    for what, extra, res in strategies:
        k, p = start(a, pb, node, [res], extra=extra)
        c = k.clients.get(res)
        devs = c.devices() if c else {}
        check(set(devs) == set(parts), "%s: %s lists the 16 partitions: %s" % (what, res, sorted(devs)))
        check(all(h == "Healthy" and numa == [0] for h, numa in devs.values()), "%s: Healthy, NUMA 0: %s" % (what, devs))
        time.sleep(0.3)
        regs = {r.resource_name for r in k.registrations}
        check(regs == {res}, "%s: only %s registered, not the whole GPUs: %s" % (what, res, sorted(regs)))
        if c and what == "none":
            # one partition: its own render node, /dev/kfd and its CDI name; nothing of another
            pid = sorted(parts)[11]
            resp = c.allocate([pid]).container_responses[0]
            cdi = [d.name for d in resp.cdi_devices]
            check(cdi == [parts[pid][0]] and cdi[0] in listed, "the CDI name of %s: %s, want %s (axl cdi list)" %
                  (pid, cdi, parts[pid][0]))
            got = {d.host_path for d in resp.devices}
            check(got == {parts[pid][1], "/dev/kfd"}, "the device nodes of %s: %s, want %s and /dev/kfd" %
                  (pid, sorted(got), parts[pid][1]))
            check(got == spec_nodes(specs, "axl.dev/amd-gpu", {cdi[0].split("=", 1)[1]}) if cdi else False,
                  "the device nodes of %s are its CDI spec's" % pid)
            # one partition of each GPU
            two = [sorted(parts)[0], sorted(parts)[15]]
            resp = c.allocate(two).container_responses[0]
            check({d.name for d in resp.cdi_devices} == {parts[x][0] for x in two}, "two partitions' CDI names")
            check({d.host_path for d in resp.devices} == {parts[x][1] for x in two} | {"/dev/kfd"},
                  "two partitions' nodes: %s" % sorted(d.host_path for d in resp.devices))
            # preferred: partitions of one GPU first; one GPU's partition in use: the rest of it
            four = c.preferred(sorted(parts), [], 4)
            check(len(four) == 4 and len({parts[x][2] for x in four if x in parts}) == 1,
                  "4 partitions from one GPU: %s" % four)
            used = sorted(x for x in parts if parts[x][2] == inv["devices"][1]["uuid"])[0]
            one = c.preferred([x for x in sorted(parts) if x != used], [], 1)
            check(len(one) == 1 and one[0] in parts and parts[one[0]][2] == parts[used][2],
                  "with %s in use, 1 more comes from its GPU: %s" % (used, one))
        stop(k, p)
    # the two spellings of the option disagree: refused at the start
    r = subprocess.run([a.axl, *node, "device-plugin", "--kubelet-dir", a.work, "--mig-strategy", "mixed",
                        "--resource-naming-strategy", "single"], capture_output=True, text=True, env=base_env(a),
                       timeout=30)
    check(r.returncode != 0 and "disagree" in r.stderr, "two strategies: rc %d %s" % (r.returncode, r.stderr))
    # GPU 1 in NPS1: two modes on the node. single refuses (as ROCm's plugin does), none
    # serves all 16 as amd.com/gpu and says so, mixed names each GPU's mode
    f = mode_file(t, inv["devices"][1]["pci"]["address"], "current_memory_partition")
    if check(f is not None, "GPU 1's current_memory_partition in the tree"):
        with open(f, "w") as fh:
            fh.write("NPS1\n")
    os.makedirs(os.path.join(a.sock, "kdir-hetero"), exist_ok=True)
    p = Plugin(a, os.path.join(a.sock, "kdir-hetero"), node, ["-resource_naming_strategy", "single"])
    rc = p.p.wait(30)
    err = p.stderr()
    check(rc == 1 and "different partition modes" in err and "-resource_naming_strategy mixed" in err,
          "two modes under single: refused (rc %s): %s" % (rc, err[-300:]))
    k, p = start(a, pb, node, ["amd.com/gpu"])
    c = k.clients.get("amd.com/gpu")
    check(c is not None and set(c.devices()) == set(parts), "two modes under none: the 16 partitions as amd.com/gpu")
    check("different partition modes" in p.stderr(), "two modes under none: said: %s" % p.stderr()[-300:])
    stop(k, p)
    k, p = start(a, pb, node, ["amd.com/cpx_nps4", "amd.com/cpx_nps1"], extra=["--mig-strategy", "mixed"])
    sizes = {r: len(c.devices()) for r, c in k.clients.items()}
    check(sizes == {"amd.com/cpx_nps4": 8, "amd.com/cpx_nps1": 8}, "two modes under mixed: %s" % sizes)
    stop(k, p)
    # MI300X GPUs in SPX mode, NPS1: whole GPUs, amd.com/spx_nps1 under mixed (ROCm names a
    # GPU that could be partitioned after its modes); a GPU that shows no modes (the
    # simulated MI300X): amd.com/gpu under mixed too
    spx = ["--sysroot", tree(a, "mi300x-8x")]
    uuids = {d["uuid"] for d in axl_json(a, spx, "list", "--json")["devices"]}
    k, p = start(a, pb, spx, ["amd.com/spx_nps1"], extra=["--mig-strategy", "mixed"])
    c = k.clients.get("amd.com/spx_nps1")
    check(c is not None and set(c.devices()) == uuids and len(uuids) == 8, "SPX under mixed: 8 whole GPUs")
    stop(k, p)
    k, p = start(a, pb, ["--sim", os.path.join(SIMS, "mi300x8.json")], ["amd.com/gpu"], extra=["--mig-strategy", "mixed"])
    c = k.clients.get("amd.com/gpu")
    check(c is not None and len(c.devices()) == 8, "no modes under mixed: amd.com/gpu")
    stop(k, p)


def case_shares(a, pb):
    # the 8xH100 tree: 32 share IDs, and the variables of one and of two shares; the laptop
    # tree (an 8 GiB RTX 4070): the limiter holds a CUDA workload (the CUDA double, whose
    # allocations are host memory: a small GPU keeps the test's footprint small) to them
    for name, real in (("hgx-8x-h100", False), ("laptop-npu-2gpu", True)):
        t = tree(a, name)
        node = ["--sysroot", t]
        inv = axl_json(a, node, "list", "--json")
        gpus = [d for d in inv["devices"] if d["id"].startswith("nvidia:")]
        g0 = gpus[0]
        total = g0["memory"]["total_bytes"]
        k, p = start(a, pb, node, ["nvidia.com/gpu"], extra=["--shares", "4", "--limiter", a.limiter])
        c = k.clients.get("nvidia.com/gpu")
        if not c:
            stop(k, p)
            continue
        ids = sorted(c.devices())
        check(len(ids) == 4 * len(gpus) and all(re.match(r"^GPU-[0-9a-f-]+::[0-3]$", i) for i in ids),
              "%s: %d share IDs: %s" % (name, 4 * len(gpus), ids[:5]))
        one, two = g0["uuid"] + "::0", [g0["uuid"] + "::1", g0["uuid"] + "::2"]
        r1 = c.allocate([one]).container_responses[0]
        r2 = c.allocate(two).container_responses[0]
        for r, k_, what in ((r1, 1, "one share"), (r2, 2, "two shares")):
            what = "%s: %s" % (name, what)
            e = r.envs
            # preloaded through /etc/ld.so.preload (the list installed beside the limiter):
            # a workload's own LD_PRELOAD is left alone
            check("LD_PRELOAD" not in e, "%s: LD_PRELOAD %r replaces the workload's own" % (what, e.get("LD_PRELOAD")))
            check(e.get("AXL_LIMIT_VERSION") == "1" and e.get("AXL_LIMIT_DEVICES") == g0["uuid"], "%s: %s" % (what, dict(e)))
            check(e.get("AXL_LIMIT_MEMORY_BYTES") == str(total // 4 * k_), "%s: memory %r, want %d" % (
                what, e.get("AXL_LIMIT_MEMORY_BYTES"), total // 4 * k_))
            check(e.get("AXL_LIMIT_COMPUTE_PERCENT") == str(25 * k_), "%s: compute %r" % (what, e.get("AXL_LIMIT_COMPUTE_PERCENT")))
            check(r.annotations.get("axl.dev/shares") == "%s=%d/4" % (g0["uuid"], k_), "%s: annotation %s" % (what, dict(r.annotations)))
            m = {x.container_path: x for x in r.mounts}
            lib, pre = m.get("/opt/axl/lib/libaxl_limiter.so"), m.get("/etc/ld.so.preload")
            check(len(m) == 2 and lib and lib.host_path == a.limiter and lib.read_only,
                  "%s: the limiter is mounted read-only: %s" % (what, list(r.mounts)))
            check(pre and pre.read_only and os.path.dirname(pre.host_path) == os.path.dirname(a.limiter) and
                  open(pre.host_path).read() == "/opt/axl/lib/libaxl_limiter.so\n",
                  "%s: /etc/ld.so.preload naming the limiter's container path: %s" % (what, list(r.mounts)))
            check(len(r.cdi_devices) == 1, "%s: one CDI device (the GPU once)" % what)
            if not real:
                continue
            # the double's first GPU is g0, with g0's memory
            xml = open(a.xml).read()
            first = re.search(r"<uuid>(GPU-[^<]*)</uuid>", xml).group(1)
            xml = xml.replace(first, g0["uuid"]).replace("<total>24564 MiB</total>", "<total>%d MiB</total>" % (total >> 20), 1)
            fx = os.path.join(a.work, "double.xml")
            open(fx, "w").write(xml)
            st = os.path.join(a.work, "state-share-%d" % k_)
            os.makedirs(st, mode=0o700, exist_ok=True)  # the container's state directory (/run/axl)
            env = dict(base_env(a))
            env.update({kk: v for kk, v in e.items() if kk.startswith("AXL_LIMIT_")})
            # the container's LD_PRELOAD, with the limiter at its host path (and the
            # sanitizer's runtime before it in a sanitized build: --preload)
            env.update(LD_PRELOAD=a.preload or a.limiter, AXL_LIMITER_CUDA_LIBRARY=a.double, AXL_CUDA_DOUBLE_XML=fx,
                       AXL_STATE_DIR=st, AXL_LIMITER_LOG="info", TEST_LIMIT_BYTES=str(total // 4 * k_))
            res = subprocess.run([a.test_limiter, "state", os.path.join(a.work, "run-%d" % k_)], env=env,
                                 capture_output=True, text=True, timeout=60)
            check(res.returncode == 0, "%s: the limiter holds the workload to %d bytes: rc %d\n%s%s" % (
                what, total // 4 * k_, res.returncode, res.stdout[-500:], res.stderr[-800:]))
        stop(k, p)
    # a limiter without the preload list beside it: LD_PRELOAD, and the plugin says what
    # that costs
    bare = os.path.join(a.work, "bare-limiter")
    os.makedirs(bare, exist_ok=True)
    lim = os.path.join(bare, os.path.basename(a.limiter))
    shutil.copy(a.limiter, lim)
    node = ["--sim", os.path.join(SIMS, "h100x8-nvswitch.json")]
    k, p = start(a, pb, node, ["nvidia.com/gpu"], extra=["--shares", "2", "--limiter", lim])
    c = k.clients.get("nvidia.com/gpu")
    if c:
        r = c.allocate([sorted(c.devices())[0]]).container_responses[0]
        check(r.envs.get("LD_PRELOAD") == "/opt/axl/lib/libaxl_limiter.so" and
              [x.container_path for x in r.mounts] == ["/opt/axl/lib/libaxl_limiter.so"],
              "no preload list: LD_PRELOAD and the limiter alone: %s %s" % (dict(r.envs), list(r.mounts)))
        check("replaces a workload's own" in p.stderr(), "no preload list: not said (%s)" % p.stderr()[-300:])
    stop(k, p)


def wait_socket(path, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                return True
        except OSError:
            pass
        time.sleep(0.01)
    return False


def case_stop(a, pb):
    sim = ["--sim", os.path.join(SIMS, "h100x2.json")]
    bad = 0
    for i in range(20):
        kubelet = i % 2 == 1
        what = "run %d (%s)" % (i + 1, "registered, a stream open" if kubelet else "no kubelet")
        if kubelet:
            k, p = start(a, pb, sim, ["nvidia.com/gpu"])
            kdir = k.dir
        else:
            k, kdir = None, os.path.join(a.sock, "kubelet-stop-%d" % i)
            os.makedirs(kdir)
            p = Plugin(a, kdir, sim)
        sock = os.path.join(kdir, "axl-nvidia.com_gpu.sock")
        ok = check(wait_socket(sock), "%s: listening on %s (log: %s)" % (what, sock, p.stderr()[-600:]))
        rc = p.stop()
        if k:
            k.stop()
        ok = check(rc == 0, "%s: SIGTERM: exit 0, got %s (log: %s)" % (what, rc, p.stderr()[-800:])) and ok
        ok = check(not os.path.exists(sock), "%s: SIGTERM removed %s" % (what, sock)) and ok
        bad += not ok
    print("stop: %d of 20 runs ended cleanly" % (20 - bad), file=sys.stderr)


def raw_call(channel, method, payload, timeout=5):
    return channel.unary_unary(method, request_serializer=lambda b: b, response_deserializer=lambda b: b)(
        payload, timeout=timeout)


def case_bad_input(a, pb):
    sim = ["--sim", os.path.join(SIMS, "h100x8-nvswitch.json")]
    # options
    for bad in (["--mig-strategy", "both"], ["--shares", "0"], ["--shares", "65"], ["--shares", "x"], ["--interval", "0"],
                ["--register-timeout", "0"], ["--kubelet-dir"], ["--bogus"], ["extra"]):
        r = subprocess.run([a.axl, *sim, "device-plugin", "--kubelet-dir", a.work, *bad], capture_output=True, text=True,
                           env=base_env(a), timeout=30)
        check(r.returncode == 2 and ("device-plugin" in r.stderr or bad[0] in r.stderr),
              "%s: exit 2 with a message naming it (%s %r)" % (bad, r.returncode, r.stderr))
    # a limiter the kubelet could not mount (relative, missing); a "directory" that is a file
    for lim, msg in (("libaxl_limiter.so", "absolute path"), ("/nonexistent/libaxl_limiter.so", "No such file")):
        r = subprocess.run([a.axl, *sim, "device-plugin", "--kubelet-dir", a.work, "--shares", "2", "--limiter", lim],
                           capture_output=True, text=True, env=base_env(a), timeout=30)
        check(r.returncode == 1 and msg in r.stderr, "--limiter %s: %s %r" % (lim, r.returncode, r.stderr))
    afile = os.path.join(a.work, "a-file")
    open(afile, "w").close()
    r = subprocess.run([a.axl, *sim, "device-plugin", "--kubelet-dir", afile], capture_output=True, text=True,
                       env=base_env(a), timeout=30)
    check(r.returncode == 1 and "does not exist" in r.stderr, "a file as the directory: %s %r" % (r.returncode, r.stderr))
    # a directory that does not exist, and one that is not writable (as nobody)
    r = subprocess.run([a.axl, *sim, "device-plugin", "--kubelet-dir", os.path.join(a.work, "none")],
                       capture_output=True, text=True, env=base_env(a), timeout=30)
    check(r.returncode == 1 and "does not exist" in r.stderr, "missing dir: %s %r" % (r.returncode, r.stderr))
    # a directory too long for a socket's path (sun_path: 108 bytes with the NUL) is
    # refused at the start, with that reason, before anything is served
    deep = os.path.join(a.sock, "d" * (100 - len(a.sock)))
    os.makedirs(deep, exist_ok=True)
    r = subprocess.run([a.axl, *sim, "device-plugin", "--kubelet-dir", deep], capture_output=True, text=True,
                       env=base_env(a), timeout=30)
    want = ("axl: device-plugin: --kubelet-dir %s is too long for a unix socket: %s/axl-nvidia.com_gpu.sock has %d "
            "bytes, a socket's path at most 107; name a shorter directory (a symbolic link to it will do)\n"
            % (deep, deep, len(deep) + 24))
    check(r.returncode == 1 and r.stderr.endswith("\n" + want), "a directory too long for a socket: %s %r" %
          (r.returncode, r.stderr))
    check(os.listdir(deep) == [], "nothing left in the directory too long: %s" % os.listdir(deep))
    ro = os.path.join(a.work, "ro")
    os.makedirs(ro, exist_ok=True)
    os.chmod(ro, 0o755)
    os.chmod(a.work, 0o755)
    if os.geteuid() == 0 and shutil.which("setpriv"):
        p = Plugin(a, ro, sim, user=65534)
    else:
        os.chmod(ro, 0o555)
        p = Plugin(a, ro, sim)
    rc = p.p.wait(30)
    check(rc == 1 and "cannot create sockets in" in p.stderr(), "unwritable dir: rc %s %r" % (rc, p.stderr()))
    # a kubelet that accepts connections and never answers: a clear message, no hang, no spin
    kdir = os.path.join(a.sock, "mute")
    os.makedirs(kdir, exist_ok=True)
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(os.path.join(kdir, "kubelet.sock"))
    mute.listen(16)
    p = Plugin(a, kdir, sim, ["--register-timeout", "1s"])
    check(p.wait_log(r"did not answer Register within 1 s", 15), "a mute kubelet is said: %s" % p.stderr()[-500:])
    c0 = p.cpu_seconds()
    time.sleep(3)
    used = p.cpu_seconds() - c0
    check(used < 0.3, "no spin while the kubelet is mute: %.2f s CPU in 3 s" % used)
    t0 = time.monotonic()
    rc = p.stop(10)
    check(rc == 0 and time.monotonic() - t0 < 5, "SIGTERM ends it promptly (%.1f s)" % (time.monotonic() - t0))
    check(not [f for f in os.listdir(kdir) if f.startswith("axl-")], "its socket removed: %s" % os.listdir(kdir))
    # SIGTERM in the middle of a Register call that would wait 10 s: the call is cancelled
    p = Plugin(a, kdir, sim)
    check(p.wait_log(r"axl-nvidia\.com_gpu\.sock", 10), "started: %s" % p.stderr()[-300:])
    time.sleep(1.0)
    t0 = time.monotonic()
    rc = p.stop(10)
    check(rc == 0 and time.monotonic() - t0 < 3, "SIGTERM during Register ends it in %.1f s" % (time.monotonic() - t0))
    mute.close()
    # a stale socket of an earlier run is replaced; a live one is refused
    kdir = os.path.join(a.sock, "stale-%d" % time.monotonic_ns())
    k = fk.Kubelet(pb, kdir)
    k.start()  # a kubelet starting removes stale sockets itself: this one is left after it started
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(os.path.join(kdir, "axl-nvidia.com_gpu.sock"))
    stale.close()
    p = Plugin(a, kdir, sim)
    check(k.wait_clients(["nvidia.com/gpu"], 20) and k.clients["nvidia.com/gpu"].wait_update(1) is not None,
          "registered over the stale socket's place: %s" % p.stderr()[-400:])
    check("stale socket" in p.stderr(), "the stale socket is said: %s" % p.stderr()[-400:])
    p2 = Plugin(a, kdir, sim)
    rc = p2.p.wait(30)
    check(rc == 1 and "in use by another process" in p2.stderr(), "a live socket is refused: rc %s %r" % (rc, p2.stderr()))
    c = k.clients.get("nvidia.com/gpu")
    if c:
        ids = sorted(c.devices())
        good_alloc = pb.AllocateRequest(container_requests=[pb.ContainerAllocateRequest(devices_ids=ids[:2])]) \
            .SerializeToString()
        good_pref = pb.PreferredAllocationRequest(container_requests=[pb.ContainerPreferredAllocationRequest(
            available_deviceIDs=ids, allocation_size=2)]).SerializeToString()
        # an empty request is a valid message with no container: an answer with none
        r = pb.AllocateResponse.FromString(raw_call(c.channel, "/v1beta1.DevicePlugin/Allocate", b""))
        check(len(r.container_responses) == 0, "an empty AllocateRequest: no container answered: %s" % r)
        cases = [
            ("unknown ID", lambda: c.allocate(["GPU-nonexistent"]), grpc.StatusCode.INVALID_ARGUMENT, "GPU-nonexistent"),
            ("more IDs than exist", lambda: c.allocate(ids + ids[:1]), grpc.StatusCode.INVALID_ARGUMENT, "9 device IDs"),
            ("an ID twice", lambda: c.allocate([ids[0], ids[0]]), grpc.StatusCode.INVALID_ARGUMENT, ids[0]),
            ("no ID", lambda: c.allocate([]), grpc.StatusCode.INVALID_ARGUMENT, "no device ID"),
            ("preferred: unknown", lambda: c.preferred(["x"], [], 1), grpc.StatusCode.INVALID_ARGUMENT, "'x'"),
            ("preferred: too many", lambda: c.preferred(ids[:2], [], 3), grpc.StatusCode.INVALID_ARGUMENT, "allocation_size 3"),
            ("preferred: must not available", lambda: c.preferred(ids[:2], [ids[3]], 2), grpc.StatusCode.INVALID_ARGUMENT,
             ids[3]),
            ("preferred: size 0", lambda: c.preferred(ids, [], 0), grpc.StatusCode.INVALID_ARGUMENT, "allocation_size 0"),
            ("garbage Allocate", lambda: raw_call(c.channel, "/v1beta1.DevicePlugin/Allocate", b"\xff\xff\xff\x07junk"),
             grpc.StatusCode.INVALID_ARGUMENT, "AllocateRequest"),
            ("unknown method", lambda: raw_call(c.channel, "/v1beta1.DevicePlugin/Frobnicate", b""),
             grpc.StatusCode.UNIMPLEMENTED, "Frobnicate"),
            ("truncated Allocate", lambda: raw_call(c.channel, "/v1beta1.DevicePlugin/Allocate", good_alloc[:-3]),
             grpc.StatusCode.INVALID_ARGUMENT, "AllocateRequest"),
            ("truncated GetPreferredAllocation",
             lambda: raw_call(c.channel, "/v1beta1.DevicePlugin/GetPreferredAllocation", good_pref[:-2]),
             grpc.StatusCode.INVALID_ARGUMENT, "PreferredAllocationRequest"),
        ]
        for what, fn, want, needle in cases:
            code, det = grpc_error(fn)
            check(code == want and det and needle in det, "%s: %s %r (want %s naming %r)" % (what, code, det, want, needle))
        r = c.allocate(ids[:1]).container_responses[0]
        check(len(r.cdi_devices) == 1, "a good Allocate after the bad ones")
        check(len(c.devices()) == 8 and all(h == "Healthy" for h, _ in c.devices().values()), "the list is undisturbed")
    check(p.p.poll() is None, "the plugin survived every bad request")
    stop(k, p)


CASES = {f.__name__[5:]: f for f in (case_register, case_allocate, case_preferred, case_restart, case_device_loss,
                                     case_idle, case_mig, case_amd_partitions, case_shares, case_stop,
                                     case_bad_input)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--work", required=True)
    for o in ("limiter", "preload", "double", "test-limiter", "xml"):
        ap.add_argument("--" + o)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    os.makedirs(os.path.join(a.work, "state-empty"))
    pb = fk.load_pb(a.work)
    # the kubelet's sockets in a short private folder: a unix socket's path holds at most
    # 107 bytes, which a build folder deep in a cache passes (issue 34 item 7)
    a.sock = socket_dir()
    try:
        CASES[a.case](a, pb)
    finally:
        shutil.rmtree(a.sock, ignore_errors=True)
    print("device_plugin.%s: %s (%d failures)" % (a.case, "FAILED" if failures else "ok", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
