#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl list's registry questions on synthetic trees and simulated nodes: the filters
(family, vendor, minimum memory, native precision, visibility, NUMA node) against the same
filters applied here to the unfiltered document, --best and the total memory, the runtime
(container, orchestrator) and the cloud of recorded nodes, the memory bandwidth of the SMBIOS
table (against smbios.py's own sum), a capture's replay of all of it, and bad options.

usage: check_registry.py --axl AXL --work DIR --case NAME
       check_registry.py --list
"""

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
NODES = os.path.join(ROOT, "tests", "trees", "nodes")
SIMS = os.path.join(ROOT, "tests", "sim")
sys.path.insert(0, os.path.join(ROOT, "tests", "trees"))
import smbios  # noqa: E402

MKTREE = os.path.join(ROOT, "tests", "trees", "mktree.py")
SCHEMA = os.path.join(ROOT, "schema", "axl-inventory.schema.json")
VALIDATE = os.path.join(ROOT, "tests", "tools", "validate_json.py")

CASES = ["clouds", "bandwidth", "bandwidth_damaged", "containers", "filters_sim", "filters_tree",
         "visibility", "capture", "bad_options", "sim_host"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(axl, *args, env=None):
    e = dict(os.environ)
    e.pop("AXL_SYSROOT", None)
    e.pop("AXL_SIM", None)
    e.pop("KUBERNETES_SERVICE_HOST", None)
    if env:
        e.update(env)
    p = subprocess.run([axl] + list(args), capture_output=True, text=True, timeout=120, env=e)
    return p.returncode, p.stdout, p.stderr


def load_spec(name):
    with open(os.path.join(NODES, name + ".json")) as f:
        return json.load(f)


def build(work, spec, name):
    path = os.path.join(work, name + ".spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(work, name)
    subprocess.run([sys.executable, MKTREE, path, out], check=True, stdout=subprocess.DEVNULL)
    return out


def doc(axl, work, *args, env=None):
    rc, out, err = run(axl, "list", "--json", *args, env=env)
    if rc != 0:
        failures.append("axl list --json %s: rc %d: %s" % (" ".join(args), rc, err.strip()))
        return None
    path = os.path.join(work, "doc-%d.json" % len(os.listdir(work)))
    with open(path, "w") as f:
        f.write(out)
    v = subprocess.run([sys.executable, VALIDATE, SCHEMA, path], capture_output=True, text=True)
    check(v.returncode in (0, 77), "schema: %s %s" % (" ".join(args), v.stdout + v.stderr))
    return json.loads(out)


# ---- clouds: each spec's DMI id files, from public documentation (tests/trees/README.md) ----
CLOUDS = {
    "inf2-48xl": ("aws", "inf2.48xlarge", "Amazon EC2"),
    "tpu-v5e-vm": ("gcp", None, "Google"),
    "gpud-azure-8x-a100-lspci-nn": ("azure", None, "Microsoft Corporation"),
}


def case_clouds(axl, work):
    for name, (provider, itype, vendor) in CLOUDS.items():
        tree = build(work, load_spec(name), name)
        d = doc(axl, work, "--sysroot", tree)
        if not d:
            continue
        h = d["host"]
        cloud = h.get("runtime", {}).get("cloud", {})
        check(cloud.get("provider") == provider, "%s: provider %r, not %r" % (name, cloud.get("provider"), provider))
        check(cloud.get("instance_type") == itype, "%s: instance type %r, not %r" % (name, cloud.get("instance_type"), itype))
        check(h.get("system", {}).get("vendor") == vendor, "%s: system vendor %r" % (name, h.get("system")))
        src = h["runtime"]["sources"]
        check(src.get("cloud.provider") == "derived", "%s: provider source %r" % (name, src))
    # Hyper-V outside Azure: the same vendor and product, no Azure asset tag: no cloud
    spec = load_spec("gpud-azure-8x-a100-lspci-nn")
    del spec["dmi"]["id"]["chassis_asset_tag"]
    tree = build(work, spec, "hyperv-onprem")
    d = doc(axl, work, "--sysroot", tree)
    if d:
        check("cloud" not in d["host"].get("runtime", {}), "Hyper-V without the asset tag is no cloud: %r" % d["host"])
    # an EC2 Xen instance: the provider from the BIOS version, no instance type
    spec = load_spec("inf2-48xl")
    spec["dmi"]["id"] = {"sys_vendor": "Xen", "product_name": "HVM domU", "bios_vendor": "Xen",
                         "bios_version": "4.11.amazon"}
    tree = build(work, spec, "ec2-xen")
    d = doc(axl, work, "--sysroot", tree)
    if d:
        cloud = d["host"].get("runtime", {}).get("cloud", {})
        check(cloud == {"provider": "aws"}, "EC2 Xen: %r" % cloud)
    # firmware placeholders are not a system name
    spec = load_spec("tpu-v5e-vm")
    spec["dmi"]["id"] = {"sys_vendor": "To be filled by O.E.M.", "product_name": "Default string"}
    tree = build(work, spec, "placeholders")
    d = doc(axl, work, "--sysroot", tree)
    if d:
        check("system" not in d["host"], "placeholders kept: %r" % d["host"].get("system"))


# ---- the memory bandwidth of the SMBIOS memory devices ---------------------------------------
def case_bandwidth(axl, work):
    spec = load_spec("hgx-8x-h100")
    want = smbios.bandwidth(spec["dmi"]["table"])
    check(want == 16 * 4800 * 10**6 * 8, "the fixture's sum is %d" % want)
    d = doc(axl, work, "--sysroot", build(work, spec, "hgx"))
    if d:
        got = d["host"]["memory"].get("bandwidth_bytes_per_s")
        check(got == want, "hgx-8x-h100: bandwidth %r, not %d" % (got, want))
    # slower DIMMs (configured below their rating) and a mixed population
    for i, m in enumerate(spec["dmi"]["table"]["memory"]):
        if m["size_mb"]:
            m["configured_speed"] = 4400 if i % 4 == 0 else 4800
    want = smbios.bandwidth(spec["dmi"]["table"])
    d = doc(axl, work, "--sysroot", build(work, spec, "hgx-4400"))
    if d:
        got = d["host"]["memory"].get("bandwidth_bytes_per_s")
        check(got == want, "mixed speeds: bandwidth %r, not %d" % (got, want))
    # older tables: 2.3 structures (no configured speed: the rated one counts), 2.7 ones
    for length in (0x1B, 0x22):
        for m in spec["dmi"]["table"]["memory"]:
            m["length"] = length
        want = smbios.bandwidth(spec["dmi"]["table"])
        d = doc(axl, work, "--sysroot", build(work, spec, "hgx-len%x" % length))
        if d:
            got = d["host"]["memory"].get("bandwidth_bytes_per_s")
            check(got == want, "structures of 0x%x bytes: bandwidth %r, not %d" % (length, got, want))
    check(smbios.bandwidth(spec["dmi"]["table"]) != 16 * 4800 * 10**6 * 8, "the 2.7 case tests nothing")
    # no table (not root, or no SMBIOS): unknown, and no warning
    del spec["dmi"]["table"]
    d = doc(axl, work, "--sysroot", build(work, spec, "hgx-notable"))
    if d:
        check("bandwidth_bytes_per_s" not in d["host"]["memory"], "no table, yet %r" % d["host"]["memory"])
        check(not [w for w in d["warnings"] if "DMI" in w.get("path", "")], "warning without a table")


def case_bandwidth_damaged(axl, work):
    spec = load_spec("hgx-8x-h100")
    table = spec["dmi"]["table"]
    # one module gives no speed (a VM's table, a BIOS that does not fill it): unknown, said
    table["memory"][0]["speed"] = 0
    table["memory"][0]["configured_speed"] = 0
    d = doc(axl, work, "--sysroot", build(work, spec, "hgx-nospeed"))
    if d:
        check("bandwidth_bytes_per_s" not in d["host"]["memory"], "a device without speed, yet %r" % d["host"]["memory"])
        check([w for w in d["warnings"] if "1 of 16 memory devices" in w["message"]], "no warning: %r" % d["warnings"])
    # a truncated table: unknown, with a warning
    spec = load_spec("hgx-8x-h100")
    spec["damage"] = spec.get("damage", []) + [{"path": "sys/firmware/dmi/tables/DMI", "kind": "truncate", "bytes": 700}]
    d = doc(axl, work, "--sysroot", build(work, spec, "hgx-truncated"))
    if d:
        check("bandwidth_bytes_per_s" not in d["host"]["memory"], "truncated table, yet %r" % d["host"]["memory"])
        check([w for w in d["warnings"] if "runs past the end" in w["message"]], "no warning: %r" % d["warnings"])
    # garbage
    spec = load_spec("hgx-8x-h100")
    spec["damage"] = spec.get("damage", []) + [{"path": "sys/firmware/dmi/tables/DMI", "kind": "garbage"}]
    d = doc(axl, work, "--sysroot", build(work, spec, "hgx-garbage"))
    if d:
        check("bandwidth_bytes_per_s" not in d["host"]["memory"], "garbage table, yet %r" % d["host"]["memory"])


# ---- containers: the files each engine leaves, as their documentation describes them -----------
def mountinfo(root_opts, hostname_root):
    return ("1100 1000 0:52 / / rw,relatime master:1 - overlay overlay rw,%s\n"
            "1101 1100 0:54 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
            "1110 1100 259:1 %s /etc/hostname rw,relatime - ext4 /dev/nvme0n1p1 rw\n" % (root_opts, hostname_root))


DOCKER_MI = mountinfo("lowerdir=/var/lib/docker/overlay2/l/6Q7J:/var/lib/docker/overlay2/l/2X5R,"
                      "upperdir=/var/lib/docker/overlay2/9f1c/diff,workdir=/var/lib/docker/overlay2/9f1c/work",
                      "/var/lib/docker/containers/9f1c2a/hostname")
CONTAINERD_MI = mountinfo("lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/41/fs,"
                          "upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/57/fs",
                          "/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/77ab/hostname")
CRIO_MI = mountinfo("lowerdir=/var/lib/containers/storage/overlay/l/ABC,upperdir=/var/lib/containers/storage/overlay/d1/diff",
                    "/run/containers/storage/overlay-containers/d1/userdata/hostname")
SA = "var/run/secrets/kubernetes.io/serviceaccount/"
CONTAINERS = {
    # name: (files, --env, container, orchestrator)
    "docker-v1": ({".dockerenv": {"raw": ""}, "proc/1/cgroup": "12:memory:/docker/9f1c2a\n11:cpu,cpuacct:/docker/9f1c2a\n",
                   "proc/self/mountinfo": DOCKER_MI}, [], "docker", None),
    # cgroup namespace (v2): the cgroup says nothing, the mounts do
    "docker-cgroupns": ({"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": DOCKER_MI}, [], "docker", None),
    "podman": ({"run/.containerenv": 'engine="podman-4.9.3"\nname="web"\nid="3a4b"\nimage="docker.io/library/nginx"\nrootless=1\n',
                "proc/self/cgroup": "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-3a4b.scope/container\n"},
               [], "podman", None),
    "k8s-containerd": ({SA + "token": "eyJhbGciOi", SA + "namespace": "default", SA + "ca.crt": "-----BEGIN CERTIFICATE-----",
                        "proc/self/cgroup": "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5d1e.slice/cri-containerd-77ab.scope\n",
                        "proc/self/mountinfo": CONTAINERD_MI}, [], "containerd", "kubernetes"),
    "k8s-crio": ({SA + "token": "eyJhbGciOi", "run/.containerenv": {"raw": ""},
                  "proc/self/cgroup": "0::/\n", "proc/self/mountinfo": CRIO_MI}, [], "cri-o", "kubernetes"),
    "k8s-crio-cgroup": ({"proc/self/cgroup": "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1.slice/crio-d1.scope\n"},
                        [], "cri-o", "kubernetes"),
    # the environment alone (the service account not mounted): through --env only
    "k8s-env": ({"proc/self/cgroup": "0::/\n"}, ["--env", "KUBERNETES_SERVICE_HOST=10.96.0.1"], None, "kubernetes"),
    # a host that runs containers is not in one: their mounts are elsewhere
    "docker-host": ({"proc/self/cgroup": "0::/user.slice/user-0.slice/session-3.scope\n",
                     "proc/self/mountinfo": "25 1 259:1 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p1 rw\n"
                     "900 25 0:60 / /var/lib/docker/overlay2/9f1c/merged rw,relatime - overlay overlay "
                     "rw,lowerdir=/var/lib/docker/overlay2/l/6Q7J,upperdir=/var/lib/docker/overlay2/9f1c/diff\n"},
                    [], None, None),
}


def case_containers(axl, work):
    base = load_spec("tpu-v5e-vm")
    for name, (files, env, container, orch) in CONTAINERS.items():
        spec = copy.deepcopy(base)
        spec.setdefault("files", {}).update(files)
        tree = build(work, spec, name)
        d = doc(axl, work, "--sysroot", tree, *env)
        if not d:
            continue
        rt = d["host"].get("runtime", {})
        check(rt.get("container") == container, "%s: container %r, not %r" % (name, rt.get("container"), container))
        check(rt.get("orchestrator") == orch, "%s: orchestrator %r, not %r" % (name, rt.get("orchestrator"), orch))
        check(rt.get("cloud", {}).get("provider") == "gcp", "%s: the GCE VM lost its cloud: %r" % (name, rt))
        if name == "k8s-env":
            check(rt["sources"].get("orchestrator") == "env", "k8s-env: source %r" % rt["sources"])
            # the process environment describes this process, not a replayed tree
            d2 = doc(axl, work, "--sysroot", tree, env={"KUBERNETES_SERVICE_HOST": "10.96.0.1"})
            if d2:
                check("orchestrator" not in d2["host"].get("runtime", {}), "the process environment applied to a tree")


# ---- filters: axl's answer against the same filter applied to the whole document --------------
def native(dev, fmt):
    return any(p.get("format", "").lower() == fmt and p.get("support") == "native" for p in dev.get("precision", []))


def expect(full, family=None, vendor=None, min_mem=None, precision=None, numa=None):
    out = []
    for dv in full["devices"]:
        mem = dv.get("memory", {}).get("total_bytes")
        if family and dv.get("family") != family:
            continue
        if vendor and vendor.lower() not in (dv.get("vendor", "").lower(), dv["id"].split(":")[0]):
            continue
        if min_mem and (mem is None or mem < min_mem):
            continue
        if precision and not native(dv, precision):
            continue
        if numa is not None and dv.get("numa_node") != numa:
            continue
        out.append(dv["id"])
    return out


def check_filters(axl, work, where, asks):
    full = doc(axl, work, *where)
    if not full:
        return
    for args, kw in asks:
        d = doc(axl, work, *where, *args)
        if not d:
            continue
        want = expect(full, **kw)
        got = [x["id"] for x in d["devices"]]
        check(got == want, "%s %s: %r, not %r" % (where, args, got, want))
        sel = d.get("selection", {})
        check(sel.get("matched") == len(want), "%s %s: matched %r" % (where, args, sel.get("matched")))
        mem = sum(x.get("memory", {}).get("total_bytes", 0) for x in full["devices"] if x["id"] in want)
        check(sel.get("total_memory", {}).get("bytes") == mem, "%s %s: total %r, not %d" % (where, args, sel.get("total_memory"), mem))
        for link in d["links"]:
            check(link["a"] in want and link["b"] in want, "%s %s: link %r to a device left out" % (where, args, link))
        rc, text, err = run(axl, "list", *where, *args)
        rows = [ln.split()[0] for ln in text.splitlines()[1:] if ln and not ln.startswith(("total:", "(", " "))]
        check(rows == want, "%s %s text: %r, not %r" % (where, args, rows, want))
        if want:
            tl = [ln for ln in text.splitlines() if ln.startswith("total: %d device" % len(want))]
            check(len(tl) == 1, "%s %s: no total line: %r" % (where, args, text[-300:]))


GIB = 1 << 30


def case_filters_sim(axl, work):
    where = ("--sim", os.path.join(SIMS, "mixed.json"))
    check_filters(axl, work, where, [
        (["--family", "gpu", "--min-memory", "40GiB", "--precision", "fp8"], dict(family="gpu", min_mem=40 * GIB, precision="fp8")),
        (["--vendor", "nvidia"], dict(vendor="nvidia")),
        (["--vendor", "AMD"], dict(vendor="amd")),
        (["--min-memory", "25GB"], dict(min_mem=25 * 10**9)),
        (["--precision", "FP8"], dict(precision="fp8")),
        (["--precision", "int4"], dict(precision="int4")),
        (["--numa", "1"], dict(numa=1)),
        (["--family", "npu"], dict(family="npu")),
    ])
    full = doc(axl, work, *where)
    if not full:
        return
    for rank, key in (("memory", lambda x: x.get("memory", {}).get("total_bytes", -1)),
                      ("bandwidth", lambda x: x.get("memory", {}).get("bandwidth_gbps", -1))):
        want = max(full["devices"], key=key)["id"]
        d = doc(axl, work, *where, "--best", rank)
        if d:
            check([x["id"] for x in d["devices"]] == [want], "--best %s: %r, not %s" % (rank, [x["id"] for x in d["devices"]], want))
            check(d["selection"].get("best_by") == rank, "--best %s: best_by %r" % (rank, d["selection"]))
        rc, text, err = run(axl, "list", *where, "--best", rank)
        check(rc == 0 and ("best by %s: %s" % (rank, want)) in text, "--best %s text: %s" % (rank, text))
    # a filter nothing matches: an empty selection, and --best says so
    d = doc(axl, work, *where, "--min-memory", "1TiB")
    if d:
        check(d["devices"] == [] and d["selection"]["matched"] == 0, "1TiB matched %r" % d["devices"])
    rc, text, err = run(axl, "list", *where, "--min-memory", "1TiB", "--best", "memory")
    check(rc == 1 and "no device matches" in err, "--best over nothing: rc %d %s" % (rc, err))


def case_filters_tree(axl, work):
    for name, asks in (
            ("hgx-8x-h100", [(["--numa", "1"], dict(numa=1)), (["--vendor", "NVIDIA", "--numa", "0"], dict(vendor="nvidia", numa=0)),
                             (["--family", "gpu", "--min-memory", "80GB"], dict(family="gpu", min_mem=80 * 10**9))]),
            ("mi300x-8x", [(["--precision", "fp8", "--min-memory", "190GiB"], dict(precision="fp8", min_mem=190 * GIB))]),
            ("laptop-npu-2gpu", [(["--family", "npu"], dict(family="npu")), (["--family", "gpu"], dict(family="gpu"))])):
        tree = build(work, load_spec(name), name)
        check_filters(axl, work, ("--sysroot", tree), asks)
    # with --all the CPU is listed, and counts in the total only when asked for
    tree = os.path.join(work, "laptop-npu-2gpu")
    d = doc(axl, work, "--sysroot", tree, "--all", "--family", "cpu")
    if d:
        check([x["family"] for x in d["devices"]] == ["cpu"], "--family cpu: %r" % [x["id"] for x in d["devices"]])


def case_visibility(axl, work):
    where = ("--sim", os.path.join(SIMS, "h100x8-nvswitch.json"), "--env", "CUDA_VISIBLE_DEVICES=0,3")
    vis = doc(axl, work, *where, "--visible")
    hid = doc(axl, work, *where, "--hidden")
    if vis and hid:
        check([x["id"] for x in vis["devices"]] == ["nvidia:0", "nvidia:3"], "--visible: %r" % [x["id"] for x in vis["devices"]])
        check(len(hid["devices"]) == 6 and "nvidia:0" not in [x["id"] for x in hid["devices"]], "--hidden: %r" % hid["devices"])
        check(vis["selection"]["filter"] == {"visible": True}, "filter %r" % vis["selection"])


def case_capture(axl, work):
    tree = build(work, load_spec("hgx-8x-h100"), "hgx")
    spec = load_spec("tpu-v5e-vm")
    spec.setdefault("files", {}).update(CONTAINERS["k8s-containerd"][0])
    tree2 = build(work, spec, "gke")
    for t in (tree, tree2):
        cap = t + ".axl.tar.gz"
        rc, out, err = run(axl, "capture", "--sysroot", t, "-o", cap)
        check(rc == 0, "capture %s: %s" % (t, err))
        a = doc(axl, work, "--sysroot", t)
        b = doc(axl, work, "--sysroot", cap)
        if a and b:
            for k in ("system", "runtime", "memory"):
                check(a["host"].get(k) == b["host"].get(k), "capture of %s: host.%s %r, replayed %r" % (t, k, a["host"].get(k), b["host"].get(k)))


def case_bad_options(axl, work):
    sim = ("--sim", os.path.join(SIMS, "mixed.json"))
    for args, word in ((["--min-memory", "lots"], "--min-memory"), (["--min-memory", "-5GiB"], "--min-memory"),
                       (["--min-memory", "12XB"], "--min-memory"), (["--family", "dsp"], "--family"),
                       (["--family", "unknown"], "--family"), (["--precision", "fp9"], "--precision"),
                       (["--numa", "first"], "--numa"), (["--numa", "-1"], "--numa"), (["--best", "speed"], "--best"),
                       (["--vendor", ""], "--vendor"), (["--min-memory"], "--min-memory")):
        rc, out, err = run(axl, "list", *sim, *args)
        check(rc == 2 and word in err and out == "", "%s: rc %d, %r" % (args, rc, err))
    # an option of list's given to another command is refused as such
    rc, out, err = run(axl, "topo", "--family", "gpu", *sim)
    check(rc == 2 and "axl list" in err, "topo --family: rc %d %r" % (rc, err))


def case_sim_host(axl, work):
    """A simulated node carries what SMBIOS would say (docs/sim.md), for planners' tests."""
    def spec(host):
        path = os.path.join(work, "sim-%d.json" % len(os.listdir(work)))
        with open(path, "w") as f:
            json.dump({"schema": "axl.sim", "schema_version": 1, "host": host,
                       "devices": [{"model": "NVIDIA L4", "count": 1}]}, f)
        return path
    d = doc(axl, work, "--sim", spec({"memory_bandwidth_bytes_per_s": 460800000000, "cloud_provider": "aws",
                                      "instance_type": "g6.xlarge"}))
    if d:
        check(d["host"]["memory"].get("bandwidth_bytes_per_s") == 460800000000, "sim bandwidth: %r" % d["host"]["memory"])
        rt = d["host"].get("runtime", {})
        check(rt.get("cloud") == {"provider": "aws", "instance_type": "g6.xlarge"}, "sim cloud: %r" % rt)
        check(rt.get("sources", {}).get("cloud.instance_type") == "sim", "sim sources: %r" % rt)
    d = doc(axl, work, "--sim", spec({}))
    if d:
        check("runtime" not in d["host"] and "bandwidth_bytes_per_s" not in d["host"]["memory"], "sim defaults: %r" % d["host"])
    for host, word in (({"instance_type": "g6.xlarge"}, "host.instance_type"),
                       ({"memory_bandwidth_bytes_per_s": 5}, "host.memory_bandwidth_bytes_per_s"),
                       ({"cloud_provider": ""}, "host.cloud_provider")):
        rc, out, err = run(axl, "list", "--sim", spec(host))
        check(rc != 0 and word in err, "sim %r: rc %d %r" % (host, rc, err))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    work = os.path.join(a.work, a.case)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    globals()["case_" + a.case](os.path.abspath(a.axl), work)
    for f in failures:
        print("FAIL " + f)
    print("%s: %d problems" % (a.case, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
