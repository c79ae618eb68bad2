#!/usr/bin/env python3
"""Build a re-rootable Linux sysfs/procfs/dev tree from a compact JSON node spec.

usage: mktree.py SPEC.json OUTDIR

OUTDIR receives sys/, proc/ and (unless the spec says "dev": false) dev/,
laid out the way the kernel and the drivers lay them out, with real relative
symlinks (bus/pci/devices, driver, subsystem, device, class links, dev/char,
iommu groups).  The spec format is described in README.md next to this file.
Python 3 standard library only.
"""

import gzip
import json
import os
import re
import shutil
import stat
import struct
import sys

# ---------------------------------------------------------------------------
# small helpers


def die(msg):
    sys.stderr.write("mktree: %s\n" % msg)
    sys.exit(2)


def deep_merge(base, over):
    """Return base updated with over; dicts merge recursively, others replace."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return over
    out = dict(base)
    for k, v in over.items():
        if k in out and isinstance(out[k], dict) and isinstance(v, dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def apply_templates(node, templates):
    use = node.get("use")
    if use is None:
        return node
    names = use if isinstance(use, list) else [use]
    merged = {}
    for n in names:
        if n not in templates:
            die("unknown template %r" % n)
        merged = deep_merge(merged, apply_templates(templates[n], templates))
    rest = {k: v for k, v in node.items() if k != "use"}
    return deep_merge(merged, rest)


def parse_list(s):
    """'0-3,8,10-11' -> [0,1,2,3,8,10,11]"""
    out = []
    s = s.strip()
    if not s:
        return out
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def fmt_list(cpus):
    """[0,1,2,3,8] -> '0-3,8' (kernel %*pbl format)"""
    cpus = sorted(set(cpus))
    parts = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


def fmt_mask(cpus, nbits):
    """Kernel %*pb bitmap format: 32-bit hex chunks, most significant first."""
    val = 0
    for c in cpus:
        val |= 1 << c
    nchunks = (nbits + 31) // 32
    chunks = []
    for i in range(nchunks - 1, -1, -1):
        word = (val >> (32 * i)) & 0xFFFFFFFF
        if i == nchunks - 1 and nbits % 32:
            width = (nbits % 32 + 3) // 4
        else:
            width = 8
        chunks.append("%0*x" % (width, word))
    return ",".join(chunks)


def hexid(v, width=4):
    """'10de' / '0x10de' / 4318 -> int"""
    if isinstance(v, int):
        return v
    return int(str(v), 16)


class Tree:
    def __init__(self, out):
        self.out = os.path.abspath(out)

    def p(self, rel):
        return os.path.join(self.out, rel.lstrip("/"))

    def mkdir(self, rel):
        os.makedirs(self.p(rel), exist_ok=True)

    def write(self, rel, data, mode=None):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if os.path.islink(path):
            os.unlink(path)
        with open(path, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(path, mode)

    def link(self, rel, target_rel):
        """Create symlink at rel pointing (relatively) at target_rel."""
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tgt = os.path.relpath(self.p(target_rel), os.path.dirname(path))
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(tgt, path)

    def rawlink(self, rel, target):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        os.symlink(target, path)


def attr_content(v):
    """Attribute value convention: str -> text (newline appended when missing),
    {"raw": s} exact text, {"hex": h} binary bytes, {"gpu_metrics": {...}} an amdgpu
    gpu_metrics table (gpu_metrics.py)."""
    if isinstance(v, str):
        return v if v.endswith("\n") else v + "\n"
    if isinstance(v, bool):
        return "1\n" if v else "0\n"
    if isinstance(v, (int, float)):
        return "%s\n" % v
    if isinstance(v, dict):
        if "raw" in v:
            return v["raw"]
        if "hex" in v:
            return bytes.fromhex(v["hex"])
        if "gpu_metrics" in v:  # amdgpu's binary table, packed as the kernel lays it out
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import gpu_metrics
            return gpu_metrics.pack(v["gpu_metrics"])
    die("bad attribute value %r" % (v,))


def write_attrs(tree, base, attrs):
    for name, v in (attrs or {}).items():
        rel = base + "/" + name
        if isinstance(v, dict) and "link" in v:
            tree.link(rel, v["link"]) if not v.get("raw_target") else tree.rawlink(rel, v["link"])
        elif isinstance(v, dict) and "dir" in v:
            tree.mkdir(rel)
            write_attrs(tree, rel, v["dir"])
        elif isinstance(v, dict) and "mode" in v and ("raw" in v or "hex" in v):
            tree.write(rel, attr_content(v), mode=int(str(v["mode"]), 8))
        else:
            tree.write(rel, attr_content(v))


# ---------------------------------------------------------------------------
# host: cpu, memory, numa, cgroup


def cpu_layout(cpu):
    """Return list of dicts {cpu, socket, core, thread, node} in Linux numbering
    (x86 with SMT: all first threads of every socket, then all second threads;
    aarch64/no SMT: cores in order)."""
    S = cpu.get("sockets", 1)
    C = cpu.get("cores_per_socket", 1)
    T = cpu.get("threads_per_core", 1)
    nps = cpu.get("numa_per_socket", 1)
    out = []
    n = 0
    if "core_threads" in cpu:
        # hybrid parts (e.g. P-cores with SMT + E-cores): per-core thread counts,
        # sibling threads numbered next to each other as on Intel client CPUs
        for s in range(S):
            for c, nt in enumerate(cpu["core_threads"]):
                for t in range(nt):
                    out.append({"cpu": n, "socket": s, "core": c, "thread": t, "node": s * nps})
                    n += 1
        return out
    for t in range(T):
        for s in range(S):
            for c in range(C):
                node = s * nps + (c * nps) // C
                out.append({"cpu": n, "socket": s, "core": c, "thread": t, "node": node})
                n += 1
    return out


X86_CPUINFO_KEYS = [
    ("processor", None), ("vendor_id", "vendor_id"), ("cpu family", "family"),
    ("model", "model"), ("model name", "model_name"), ("stepping", "stepping"),
    ("microcode", "microcode"), ("cpu MHz", None), ("cache size", None),
    ("physical id", None), ("siblings", None), ("core id", None), ("cpu cores", None),
    ("apicid", None), ("initial apicid", None), ("fpu", None), ("fpu_exception", None),
    ("cpuid level", "cpuid_level"), ("wp", None), ("flags", "flags"), ("vmx flags", "vmx_flags"),
    ("bugs", "bugs"), ("bogomips", None), ("clflush size", None), ("cache_alignment", None),
    ("address sizes", "address_sizes"), ("power management", None),
]


def x86_cpuinfo(cpu, layout):
    C = cpu.get("cores_per_socket", 1)
    T = cpu.get("threads_per_core", 1)
    if "core_threads" in cpu:
        C = len(cpu["core_threads"])
        T = max(cpu["core_threads"])
    siblings = sum(cpu["core_threads"]) if "core_threads" in cpu else C * T
    lines = []
    for e in layout:
        apic = (e["socket"] << 7) | (e["core"] << (1 if T > 1 else 0)) | e["thread"]
        vals = {
            "processor": str(e["cpu"]),
            "vendor_id": cpu.get("vendor_id", "GenuineIntel"),
            "cpu family": str(cpu.get("family", 6)),
            "model": str(cpu.get("model", 0)),
            "model name": cpu.get("model_name", ""),
            "stepping": str(cpu.get("stepping", 0)),
            "microcode": cpu.get("microcode", "0x1"),
            "cpu MHz": "%.3f" % float(cpu.get("mhz", 2000.0)),
            "cache size": "%d KB" % int(cpu.get("cache_kb", 32768)),
            "physical id": str(e["socket"]),
            "siblings": str(siblings),
            "core id": str(e["core"]),
            "cpu cores": str(C),
            "apicid": str(apic),
            "initial apicid": str(apic),
            "fpu": "yes", "fpu_exception": "yes",
            "cpuid level": str(cpu.get("cpuid_level", 27)),
            "wp": "yes",
            "flags": cpu.get("flags", ""),
            "vmx flags": cpu.get("vmx_flags"),
            "bugs": cpu.get("bugs", ""),
            "bogomips": "%.2f" % float(cpu.get("bogomips", 2 * float(cpu.get("mhz", 2000.0)))),
            "clflush size": "64", "cache_alignment": "64",
            "address sizes": cpu.get("address_sizes", "46 bits physical, 48 bits virtual"),
            "power management": "",
        }
        for key, _ in X86_CPUINFO_KEYS:
            v = vals[key]
            if v is None:
                continue
            if key == "power management":
                lines.append("power management:")
                continue
            tabs = "\t\t" if len(key) < 8 else "\t"
            lines.append("%s%s: %s" % (key, tabs, v))
        lines.append("")
    return "\n".join(lines) + "\n"


def arm_cpuinfo(cpu, layout):
    lines = []
    for e in layout:
        lines += [
            "processor\t: %d" % e["cpu"],
            "BogoMIPS\t: %.2f" % float(cpu.get("bogomips", 2000.0)),
            "Features\t: %s" % cpu.get("features", "fp asimd"),
            "CPU implementer\t: %s" % cpu.get("implementer", "0x41"),
            "CPU architecture: 8",
            "CPU variant\t: %s" % cpu.get("variant", "0x0"),
            "CPU part\t: %s" % cpu.get("part", "0xd0c"),
            "CPU revision\t: %s" % cpu.get("revision", "0"),
            "",
        ]
    return "\n".join(lines) + "\n"


MEMINFO_ORDER = [
    "MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapCached", "Active",
    "Inactive", "Active(anon)", "Inactive(anon)", "Active(file)", "Inactive(file)",
    "Unevictable", "Mlocked", "SwapTotal", "SwapFree", "Dirty", "Writeback", "AnonPages",
    "Mapped", "Shmem", "KReclaimable", "Slab", "SReclaimable", "SUnreclaim", "KernelStack",
    "PageTables", "NFS_Unstable", "Bounce", "WritebackTmp", "CommitLimit", "Committed_AS",
    "VmallocTotal", "VmallocUsed", "VmallocChunk", "Percpu", "HardwareCorrupted",
    "AnonHugePages", "ShmemHugePages", "ShmemPmdMapped", "FileHugePages", "FilePmdMapped",
    "HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp", "Hugepagesize",
    "Hugetlb", "DirectMap4k", "DirectMap2M", "DirectMap1G",
]


def meminfo_text(total_kb, extra=None):
    free = total_kb * 9 // 10
    v = {
        "MemTotal": total_kb, "MemFree": free, "MemAvailable": free + total_kb // 40,
        "Buffers": total_kb // 500, "Cached": total_kb // 40, "SwapCached": 0,
        "Active": total_kb // 60, "Inactive": total_kb // 50, "Active(anon)": total_kb // 200,
        "Inactive(anon)": total_kb // 300, "Active(file)": total_kb // 90,
        "Inactive(file)": total_kb // 70, "Unevictable": 30000, "Mlocked": 27000,
        "SwapTotal": 0, "SwapFree": 0, "Dirty": 1024, "Writeback": 0,
        "AnonPages": total_kb // 250, "Mapped": total_kb // 900, "Shmem": total_kb // 3000,
        "KReclaimable": total_kb // 400, "Slab": total_kb // 250, "SReclaimable": total_kb // 400,
        "SUnreclaim": total_kb // 700, "KernelStack": 51200, "PageTables": 81920,
        "NFS_Unstable": 0, "Bounce": 0, "WritebackTmp": 0, "CommitLimit": total_kb // 2,
        "Committed_AS": total_kb // 30, "VmallocTotal": 34359738367, "VmallocUsed": 812000,
        "VmallocChunk": 0, "Percpu": 262144, "HardwareCorrupted": 0, "AnonHugePages": 0,
        "ShmemHugePages": 0, "ShmemPmdMapped": 0, "FileHugePages": 0, "FilePmdMapped": 0,
        "HugePages_Total": 0, "HugePages_Free": 0, "HugePages_Rsvd": 0, "HugePages_Surp": 0,
        "Hugepagesize": 2048, "Hugetlb": 0, "DirectMap4k": 1048576, "DirectMap2M": 33554432,
        "DirectMap1G": max(total_kb - 34603008, 0),
    }
    v.update(extra or {})
    lines = []
    for k in MEMINFO_ORDER:
        if k not in v:
            continue
        label = k + ":"
        if k.startswith("HugePages_"):
            lines.append("%-15s %5d" % (label, v[k]))
        else:
            lines.append("%-15s %8d kB" % (label, v[k]))
    return "\n".join(lines) + "\n"


def node_meminfo_text(nid, total_kb):
    free = total_kb * 9 // 10
    rows = [
        ("MemTotal", total_kb), ("MemFree", free), ("MemUsed", total_kb - free),
        ("SwapCached", 0), ("Active", total_kb // 60), ("Inactive", total_kb // 50),
        ("Active(anon)", total_kb // 200), ("Inactive(anon)", total_kb // 300),
        ("Active(file)", total_kb // 90), ("Inactive(file)", total_kb // 70),
        ("Unevictable", 15000), ("Mlocked", 13500), ("Dirty", 0), ("Writeback", 0),
        ("FilePages", total_kb // 40), ("Mapped", total_kb // 900), ("AnonPages", total_kb // 250),
        ("Shmem", total_kb // 3000), ("KernelStack", 25600), ("PageTables", 40960),
        ("NFS_Unstable", 0), ("Bounce", 0), ("WritebackTmp", 0), ("KReclaimable", total_kb // 400),
        ("Slab", total_kb // 250), ("SReclaimable", total_kb // 400), ("SUnreclaim", total_kb // 700),
        ("AnonHugePages", 0), ("ShmemHugePages", 0), ("ShmemPmdMapped", 0), ("FileHugePages", 0),
        ("FilePmdMapped", 0),
    ]
    out = []
    for k, val in rows:
        out.append("Node %d %-15s %8d kB" % (nid, k + ":", val))
    for k in ("HugePages_Total", "HugePages_Free", "HugePages_Surp"):
        out.append("Node %d %-15s %5d" % (nid, k + ":", 0))
    return "\n".join(out) + "\n"


def build_host(tree, host, state):
    if not host:
        return
    if "hostname" in host:
        tree.write("proc/sys/kernel/hostname", host["hostname"] + "\n")
    if "osrelease" in host:
        tree.write("proc/sys/kernel/osrelease", host["osrelease"] + "\n")
        tree.write("proc/version", "Linux version %s (%s) %s\n" % (
            host["osrelease"], host.get("builder", "buildd@lcy02-amd64-001"),
            host.get("version_tail", "#1 SMP PREEMPT_DYNAMIC")))
    cpu = host.get("cpu")
    layout = []
    if cpu:
        layout = cpu_layout(cpu)
        ncpu = len(layout)
        state["ncpu"] = ncpu
        offline = set(parse_list(cpu.get("offline", "")))
        online = [e["cpu"] for e in layout if e["cpu"] not in offline]
        state["online"] = online
        if cpu.get("arch", "x86_64") == "aarch64":
            info = arm_cpuinfo(cpu, [e for e in layout if e["cpu"] not in offline])
        else:
            info = x86_cpuinfo(cpu, [e for e in layout if e["cpu"] not in offline])
        tree.write("proc/cpuinfo", info)
        base = "sys/devices/system/cpu"
        tree.write(base + "/online", fmt_list(online) + "\n")
        tree.write(base + "/possible", "0-%d\n" % (ncpu - 1))
        tree.write(base + "/present", "0-%d\n" % (ncpu - 1))
        tree.write(base + "/offline", (fmt_list(offline) if offline else "") + "\n")
        tree.write(base + "/kernel_max", "%d\n" % cpu.get("kernel_max", 8191))
        by_core = {}
        by_sock = {}
        for e in layout:
            by_core.setdefault((e["socket"], e["core"]), []).append(e["cpu"])
            by_sock.setdefault(e["socket"], []).append(e["cpu"])
        for e in layout:
            c = "%s/cpu%d" % (base, e["cpu"])
            if e["cpu"] != 0:
                tree.write(c + "/online", "0\n" if e["cpu"] in offline else "1\n")
            if e["cpu"] in offline:
                tree.mkdir(c)
                continue
            t = c + "/topology"
            sib = by_core[(e["socket"], e["core"])]
            tree.write(t + "/physical_package_id", "%d\n" % e["socket"])
            tree.write(t + "/die_id", "0\n")
            tree.write(t + "/core_id", "%d\n" % e["core"])
            tree.write(t + "/thread_siblings_list", fmt_list(sib) + "\n")
            tree.write(t + "/core_cpus_list", fmt_list(sib) + "\n")
            tree.write(t + "/core_siblings_list", fmt_list(by_sock[e["socket"]]) + "\n")
            tree.write(t + "/package_cpus_list", fmt_list(by_sock[e["socket"]]) + "\n")
            if host.get("numa"):
                tree.link("%s/node%d" % (c, e["node"]), "sys/devices/system/node/node%d" % e["node"])
            if cpu.get("arch") == "aarch64":
                midr = cpu.get("midr_el1")
                if midr:
                    tree.write(c + "/regs/identification/midr_el1", midr + "\n")
    if "memory_kb" in host:
        tree.write("proc/meminfo", meminfo_text(int(host["memory_kb"]), host.get("meminfo_extra")))
    numa = host.get("numa")
    if numa:
        base = "sys/devices/system/node"
        n = len(numa)
        ids = list(range(n))
        tree.write(base + "/online", fmt_list(ids) + "\n")
        tree.write(base + "/possible", fmt_list(ids) + "\n")
        cpu_nodes = []
        mem_nodes = []
        dist = host.get("numa_distances")
        node_cpus = {}
        for e in layout:
            if e["cpu"] in set(state.get("online", [])):
                node_cpus.setdefault(e["node"], []).append(e["cpu"])
        for i, nd in enumerate(numa):
            d = "%s/node%d" % (base, i)
            cpus = parse_list(nd["cpulist"]) if "cpulist" in nd else node_cpus.get(i, [])
            state.setdefault("node_cpus", {})[i] = cpus
            if cpus:
                cpu_nodes.append(i)
            mem = int(nd.get("memory_kb", 0))
            if mem:
                mem_nodes.append(i)
            tree.write(d + "/cpulist", fmt_list(cpus) + "\n")
            tree.write(d + "/cpumap", fmt_mask(cpus, state.get("ncpu", max(cpus + [0]) + 1)) + "\n")
            tree.write(d + "/meminfo", node_meminfo_text(i, mem))
            if dist:
                row = dist[i]
            else:
                row = [10 if j == i else nd.get("remote_distance", 21) for j in range(n)]
            tree.write(d + "/distance", " ".join(str(x) for x in row) + "\n")
            for c in cpus:
                tree.link("%s/cpu%d" % (d, c), "sys/devices/system/cpu/cpu%d" % c)
        tree.write(base + "/has_cpu", fmt_list(cpu_nodes) + "\n")
        tree.write(base + "/has_memory", fmt_list(mem_nodes) + "\n")
        tree.write(base + "/has_normal_memory", fmt_list(mem_nodes) + "\n")
    cg = host.get("cgroup")
    if cg is not None:
        path = cg.get("path", "/")
        if cg.get("version", 2) == 2:
            tree.write("proc/self/cgroup", "0::%s\n" % path)
            tree.write("sys/fs/cgroup/cgroup.controllers",
                       "cpuset cpu io memory hugetlb pids rdma misc\n")
            if path != "/":
                d = "sys/fs/cgroup" + path
                if "memory_max" in cg:
                    tree.write(d + "/memory.max", str(cg["memory_max"]) + "\n")
                tree.write(d + "/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n")
        else:
            tree.write("proc/self/cgroup", "".join(
                "%s\n" % line for line in cg.get("v1_lines", ["0::/"])))
            if "memory_limit_in_bytes" in cg:
                tree.write("sys/fs/cgroup/memory%s/memory.limit_in_bytes" % path,
                           "%s\n" % cg["memory_limit_in_bytes"])


# ---------------------------------------------------------------------------
# PCI


SPEED_CODES = {"2.5": 1, "5.0": 2, "5": 2, "8.0": 3, "8": 3, "16.0": 4, "16": 4,
               "32.0": 5, "32": 5, "64.0": 6, "64": 6}


def speed_code(s):
    if not s:
        return 0
    m = re.match(r"\s*([0-9.]+)", str(s))
    return SPEED_CODES.get(m.group(1), 0) if m else 0


def make_config(fn, has_children, multifunction, secondary, subordinate, primary):
    """256 bytes of type 0/1 config header + a PCI Express capability at 0x40
    whose link registers agree with the sysfs link attributes."""
    cfg = bytearray(256)
    vid, did = fn["vid"], fn["did"]
    cls = fn["class"]
    is_bridge = (cls >> 8) == 0x0604
    struct.pack_into("<HH", cfg, 0, vid, did)
    cmd = 0x0547 if fn.get("driver") else 0x0000
    if is_bridge:
        cmd = 0x0547
    status = 0x0010 if fn.get("link") else 0x0000
    struct.pack_into("<HH", cfg, 4, cmd, status)
    cfg[8] = fn["rev"]
    cfg[9] = cls & 0xFF
    cfg[10] = (cls >> 8) & 0xFF
    cfg[11] = (cls >> 16) & 0xFF
    cfg[12] = 0x10
    htype = 0x01 if is_bridge else 0x00
    if multifunction:
        htype |= 0x80
    cfg[14] = htype
    if is_bridge:
        cfg[0x18] = primary & 0xFF
        cfg[0x19] = (secondary or 0) & 0xFF
        cfg[0x1A] = (subordinate or 0) & 0xFF
    elif fn.get("svid") is not None:
        struct.pack_into("<HH", cfg, 0x2C, fn["svid"], fn["sdid"])
    if not is_bridge:
        for idx, start, size, kind in fn.get("bars") or []:
            st = hexid(start) if isinstance(start, str) else start
            off = 0x10 + 4 * idx
            if kind == "io":
                struct.pack_into("<I", cfg, off, (st & 0xFFFFFFFC) | 0x1)
            else:
                low = (st & 0xFFFFFFF0) | (0x4 if kind.startswith("mem64") else 0) | \
                      (0x8 if kind.endswith("p") else 0)
                struct.pack_into("<I", cfg, off, low & 0xFFFFFFFF)
                if kind.startswith("mem64") and idx < 5:
                    struct.pack_into("<I", cfg, off + 4, (st >> 32) & 0xFFFFFFFF)
    if fn.get("irq"):
        cfg[0x3C] = fn["irq"] & 0xFF
        cfg[0x3D] = 0x01
    link = fn.get("link")
    if link:
        cfg[0x34] = 0x40
        cap = 0x40
        cfg[cap] = 0x10        # PCI Express capability
        cfg[cap + 1] = 0x00    # end of list
        ptype = fn.get("port_type")
        if ptype is None:
            ptype = 0x0 if not is_bridge else 0x6
        struct.pack_into("<H", cfg, cap + 2, 0x0002 | (ptype << 4))
        mspd = speed_code(link.get("max_speed"))
        mw = int(link.get("max_width") or 0)
        cspd = speed_code(link.get("cur_speed"))
        cw = int(link.get("cur_width") or 0)
        struct.pack_into("<I", cfg, cap + 0x0C, (mspd & 0xF) | ((mw & 0x3F) << 4))
        struct.pack_into("<H", cfg, cap + 0x12, (cspd & 0xF) | ((cw & 0x3F) << 4) | 0x2000)
    return bytes(cfg)


RES_FLAGS = {"io": 0x00040101, "mem32": 0x00040200, "mem32p": 0x00042208,
             "mem64": 0x00140204, "mem64p": 0x0014220c}


def resource_text(bars, is_bridge):
    """sysfs 'resource': one 'start end flags' line per resource (13 for endpoints,
    17 for bridges), all zero where unset."""
    rows = [(0, 0, 0)] * (17 if is_bridge else 13)
    for idx, start, size, kind in bars:
        st = hexid(start) if isinstance(start, str) else start
        rows[idx] = (st, st + size - 1, RES_FLAGS.get(kind, 0x00040200))
    return "".join("0x%016x 0x%016x 0x%016x\n" % r for r in rows)


class PciBuilder:
    def __init__(self, tree, spec, state):
        self.tree = tree
        self.spec = spec
        self.state = state
        self.templates = spec.get("templates", {})
        self.drivers = {}          # name -> list of device rel paths
        self.functions = []        # list of dicts with computed info
        self.by_bdf = {}
        self.chrdevs = {}
        self.classdevs = []

    # -- pass 1: flatten with parent paths
    def collect(self):
        for root in self.spec.get("pci", []):
            rname = root["root"]                      # "0000:15"
            dom, bus = rname.split(":")
            rdir = "sys/devices/pci%s:%s" % (dom, bus)
            self.tree.mkdir(rdir)
            self.tree.write(rdir + "/uevent", "")
            numa = root.get("numa", self.spec.get("default_numa"))
            for node in root.get("devices", []):
                self._collect(node, rdir, dom, numa, 0)

    def _collect(self, node, parent_dir, dom, numa, depth):
        node = apply_templates(node, self.templates)
        bdf = node["bdf"]
        if bdf.count(":") == 1:
            bdf = dom + ":" + bdf
        bdf = bdf.lower()
        rel = parent_dir + "/" + bdf
        fn = dict(node)
        fn["bdf"] = bdf
        fn["dir"] = rel
        fn["domain"] = int(bdf[0:4], 16)
        fn["bus"] = int(bdf[5:7], 16)
        fn["slot"] = int(bdf[8:10], 16)
        fn["func"] = int(bdf[11], 16)
        if "numa" not in node:
            fn["numa"] = numa
        if "id" in node:
            v, d = node["id"].split(":")
            fn["vid"], fn["did"] = int(v, 16), int(d, 16)
        if "sub" in node and node["sub"] is not None:
            v, d = node["sub"].split(":")
            fn["svid"], fn["sdid"] = int(v, 16), int(d, 16)
        else:
            fn["svid"] = fn["sdid"] = None
        fn["class"] = hexid(node["class"]) if "class" in node else None
        fn["rev"] = hexid(node.get("rev", "0x00")) if node.get("rev") is not None else None
        link = node.get("link")
        if isinstance(link, list):
            link = {"cur_speed": link[0], "cur_width": link[1],
                    "max_speed": link[2] if len(link) > 2 else link[0],
                    "max_width": link[3] if len(link) > 3 else link[1]}
        fn["link"] = link
        kids = []
        for ch in node.get("children", []):
            kids.append(self._collect(ch, rel, dom, fn["numa"], depth + 1))
        fn["kids"] = kids
        if bdf in self.by_bdf:
            die("duplicate PCI function %s" % bdf)
        self.by_bdf[bdf] = fn
        self.functions.append(fn)
        return fn

    def subtree_max_bus(self, fn):
        m = fn["bus"]
        for k in fn["kids"]:
            m = max(m, self.subtree_max_bus(k))
        return m

    def build(self):
        self.collect()
        t = self.tree
        slots = {}
        for fn in self.functions:
            slots.setdefault((fn["domain"], fn["bus"], fn["slot"]), []).append(fn["func"])
        t.mkdir("sys/bus/pci/devices")
        t.mkdir("sys/bus/pci/drivers")
        for name in ("drivers_autoprobe", "drivers_probe", "rescan", "uevent"):
            t.write("sys/bus/pci/" + name, "")
        for fn in sorted(self.functions, key=lambda f: f["bdf"]):
            self.build_function(fn, slots)
        self.build_drivers()

    def build_function(self, fn, slots):
        t = self.tree
        d = fn["dir"]
        t.mkdir(d)
        t.link("sys/bus/pci/devices/" + fn["bdf"], d)
        t.link(d + "/subsystem", "sys/bus/pci")
        if "vid" in fn:
            t.write(d + "/vendor", "0x%04x\n" % fn["vid"])
            t.write(d + "/device", "0x%04x\n" % fn["did"])
        if fn["svid"] is not None:
            t.write(d + "/subsystem_vendor", "0x%04x\n" % fn["svid"])
            t.write(d + "/subsystem_device", "0x%04x\n" % fn["sdid"])
        if fn["class"] is not None:
            t.write(d + "/class", "0x%06x\n" % fn["class"])
        if fn["rev"] is not None:
            t.write(d + "/revision", "0x%02x\n" % fn["rev"])
        if fn.get("numa") is not None:
            t.write(d + "/numa_node", "%d\n" % fn["numa"])
        self.write_local_cpus(fn)
        link = fn["link"]
        if link:
            if link.get("cur_speed") is not None:
                t.write(d + "/current_link_speed", "%s\n" % link["cur_speed"])
            if link.get("cur_width") is not None:
                t.write(d + "/current_link_width", "%s\n" % link["cur_width"])
            if link.get("max_speed") is not None:
                t.write(d + "/max_link_speed", "%s\n" % link["max_speed"])
            if link.get("max_width") is not None:
                t.write(d + "/max_link_width", "%s\n" % link["max_width"])
        is_bridge = fn["class"] is not None and (fn["class"] >> 8) == 0x0604
        secondary = subordinate = None
        if is_bridge:
            if fn["kids"]:
                secondary = fn["kids"][0]["bus"]
                subordinate = self.subtree_max_bus(fn)
            secondary = fn.get("secondary", secondary)
            subordinate = fn.get("subordinate", subordinate)
            if secondary is not None:
                secondary = hexid(secondary) if isinstance(secondary, str) else secondary
                subordinate = hexid(subordinate) if isinstance(subordinate, str) else subordinate
                t.write(d + "/secondary_bus_number", "%d\n" % secondary)
                t.write(d + "/subordinate_bus_number", "%d\n" % subordinate)
        defaults = self.spec.get("pci_defaults", True)
        if "irq" in fn or ("vid" in fn and defaults):
            t.write(d + "/irq", "%d\n" % fn.get("irq", 0))
        if "vid" in fn and (fn.get("bars") is not None or defaults):
            t.write(d + "/resource", resource_text(fn.get("bars") or [], is_bridge))
        mf = len(slots[(fn["domain"], fn["bus"], fn["slot"])]) > 1
        if "vid" in fn and fn["class"] is not None and fn["rev"] is not None and not fn.get("no_config"):
            cfg = make_config(fn, bool(fn["kids"]), mf, secondary, subordinate, fn["bus"])
            if link and not fn.get("config_256"):
                cfg = cfg + bytes(4096 - 256)      # PCIe functions expose 4 KiB
            t.write(d + "/config", cfg)
        if "vid" in fn and fn["class"] is not None:
            ue = []
            if fn.get("driver"):
                ue.append("DRIVER=%s" % fn["driver"])
            ue.append("PCI_CLASS=%X" % fn["class"])
            ue.append("PCI_ID=%04X:%04X" % (fn["vid"], fn["did"]))
            if fn["svid"] is not None:
                ue.append("PCI_SUBSYS_ID=%04X:%04X" % (fn["svid"], fn["sdid"]))
            ue.append("PCI_SLOT_NAME=%s" % fn["bdf"])
            ma = self.modalias(fn)
            ue.append("MODALIAS=%s" % ma)
            t.write(d + "/uevent", "\n".join(ue) + "\n")
            t.write(d + "/modalias", ma + "\n")
        if fn.get("driver"):
            drv = fn["driver"]
            t.link(d + "/driver", "sys/bus/pci/drivers/" + drv)
            self.drivers.setdefault(drv, []).append(fn)
        if fn.get("iommu_group") is not None:
            g = "sys/kernel/iommu_groups/%d" % fn["iommu_group"]
            t.write(g + "/type", fn.get("iommu_type", "DMA") + "\n")
            t.link(g + "/devices/" + fn["bdf"], d)
            t.link(d + "/iommu_group", g)
        write_attrs(t, d, fn.get("attrs"))
        for cd in fn.get("classdev", []):
            self.classdev(cd, d)
        if fn.get("nvidia"):
            self.state.setdefault("nvidia_gpus", []).append(fn)
        if fn.get("kfd"):
            self.state.setdefault("kfd_gpus", []).append(fn)

    def modalias(self, fn):
        sv = fn["svid"] if fn["svid"] is not None else 0
        sd = fn["sdid"] if fn["sdid"] is not None else 0
        c = fn["class"]
        return "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
            fn["vid"], fn["did"], sv, sd, (c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF)

    def write_local_cpus(self, fn):
        ncpu = self.state.get("ncpu")
        if not ncpu or fn.get("no_local_cpus"):
            return
        numa = fn.get("numa")
        if numa is not None and numa >= 0 and numa in self.state.get("node_cpus", {}):
            cpus = self.state["node_cpus"][numa]
        else:
            cpus = self.state.get("online", list(range(ncpu)))
        self.tree.write(fn["dir"] + "/local_cpulist", fmt_list(cpus) + "\n")
        self.tree.write(fn["dir"] + "/local_cpus", fmt_mask(cpus, ncpu) + "\n")

    def classdev(self, cd, parent_dir):
        """Class device created with a parent: <parent>/<subdir>/<name>."""
        cls = cd["class"]
        sub = cd.get("subdir", cls)
        d = parent_dir + "/" + sub + "/" + cd["name"] if sub else parent_dir + "/" + cd["name"]
        self._classdev_common(cd, d, parent_dir)

    def virtual_classdev(self, cd):
        cls = cd["class"]
        d = "sys/devices/virtual/%s/%s" % (cls, cd["name"])
        self._classdev_common(cd, d, None)

    def _classdev_common(self, cd, d, parent_dir):
        t = self.tree
        cls = cd["class"]
        t.mkdir(d)
        t.link("sys/class/%s/%s" % (cls, cd["name"]), d)
        t.link(d + "/subsystem", "sys/class/" + cls)
        if parent_dir:
            t.link(d + "/device", parent_dir)
        ue = []
        if cd.get("dev"):
            major, minor = cd["dev"].split(":")
            t.write(d + "/dev", "%s:%s\n" % (major, minor))
            ue += ["MAJOR=%s" % major, "MINOR=%s" % minor]
            t.link("sys/dev/char/%s:%s" % (major, minor), d)
            if cd.get("chrdev_name"):
                self.chrdevs[int(major)] = cd["chrdev_name"]
        if cd.get("devname"):
            ue.append("DEVNAME=%s" % cd["devname"])
        if cd.get("devtype"):
            ue.append("DEVTYPE=%s" % cd["devtype"])
        t.write(d + "/uevent", "\n".join(ue) + ("\n" if ue else ""))
        write_attrs(t, d, cd.get("attrs"))
        for name, target in (cd.get("links") or {}).items():
            t.rawlink(d + "/" + name, target)
        if cd.get("devname") and self.spec.get("dev", True) is not False and not cd.get("no_node"):
            t.write("dev/" + cd["devname"], b"")
        self.classdevs.append(cd)

    def build_drivers(self):
        t = self.tree
        dspec = self.spec.get("drivers", {})
        names = set(self.drivers) | set(dspec)
        for drv in sorted(names):
            info = dspec.get(drv, {})
            dd = "sys/bus/pci/drivers/" + drv
            t.mkdir(dd)
            for f in ("bind", "unbind", "new_id", "remove_id", "uevent"):
                t.write(dd + "/" + f, "")
            for fn in self.drivers.get(drv, []):
                t.link(dd + "/" + fn["bdf"], fn["dir"])
            mod = info.get("module", drv.replace("-", "_")) if "module" in info or drv != "pcieport" else None
            if mod:
                md = "sys/module/" + mod
                t.mkdir(md)
                t.link(dd + "/module", md)
                t.link(md + "/drivers/pci:" + drv, dd)
                t.write(md + "/initstate", "live\n")
                t.write(md + "/refcnt", "%d\n" % info.get("refcnt", 0))
                if info.get("version"):
                    t.write(md + "/version", info["version"] + "\n")
                if info.get("srcversion"):
                    t.write(md + "/srcversion", info["srcversion"] + "\n")
        for mod, info in (self.spec.get("modules") or {}).items():
            md = "sys/module/" + mod
            t.mkdir(md)
            if info.get("version"):
                t.write(md + "/version", info["version"] + "\n")
            t.write(md + "/initstate", "live\n")


# ---------------------------------------------------------------------------
# vendor procfs / sysfs that is not attached to a single attribute


def build_nvidia(tree, spec, state):
    nv = spec.get("nvidia")
    if not nv:
        return
    if nv.get("version"):
        tree.write("proc/driver/nvidia/version", nv["version"])
    for fn in state.get("nvidia_gpus", []):
        g = fn["nvidia"]
        lines = ["Model: \t\t %s" % g["model"], "IRQ:   \t\t %d" % g.get("irq", 0)]
        if g.get("uuid"):
            lines.append("GPU UUID: \t %s" % g["uuid"])
        lines.append("Video BIOS: \t %s" % g.get("vbios", "??.??.??.??.??"))
        lines.append("Bus Type: \t %s" % g.get("bus_type", "PCIe"))
        bits = g.get("dma_bits", 47)
        lines.append("DMA Size: \t %d bits" % bits)
        lines.append("DMA Mask: \t 0x%x" % ((1 << bits) - 1))
        lines.append("Bus Location: \t %s" % fn["bdf"])
        lines.append("Device Minor: \t %u" % g["minor"])
        if g.get("firmware"):
            lines.append("GPU Firmware: \t %s" % g["firmware"])
        lines.append("GPU Excluded:\t %s" % ("Yes" if g.get("excluded") else "No"))
        tree.write("proc/driver/nvidia/gpus/%s/information" % fn["bdf"], "\n".join(lines) + "\n")
        if g.get("numa_status"):
            tree.write("proc/driver/nvidia/gpus/%s/numa_status" % fn["bdf"], g["numa_status"])
    if nv.get("params"):
        tree.write("proc/driver/nvidia/params", nv["params"])


def numa_of(fn):
    n = fn.get("numa")
    return n if (n is not None and n >= 0) else 0


def kfd_props_text(props):
    return "".join("%s %s\n" % (k, v) for k, v in props)


def build_kfd(tree, spec, state):
    kfd = spec.get("kfd")
    if not kfd:
        return
    base = "sys/devices/virtual/kfd/kfd"
    tree.mkdir(base)
    tree.link("sys/class/kfd/kfd", base)
    tree.link(base + "/subsystem", "sys/class/kfd")
    major = kfd.get("major", 236)
    tree.write(base + "/dev", "%d:0\n" % major)
    tree.write(base + "/uevent", "MAJOR=%d\nMINOR=0\nDEVNAME=kfd\n" % major)
    tree.link("sys/dev/char/%d:0" % major, base)
    if spec.get("dev", True) is not False:
        tree.write("dev/kfd", b"")
    state.setdefault("chrdevs", {})[major] = "kfd"
    topo = base + "/topology"
    tree.write(topo + "/generation_id", "%d\n" % kfd.get("generation_id", 1))
    tree.write(topo + "/system_properties", kfd.get(
        "system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n"))
    numa = spec.get("host", {}).get("numa") or [{}]
    ncpu_nodes = len(numa)
    gpus = sorted(state.get("kfd_gpus", []), key=lambda f: f["bdf"])
    nodes = []
    cpu_base = kfd.get("cpu", {})
    for i in range(ncpu_nodes):
        cpus = state.get("node_cpus", {}).get(i, [])
        nodes.append({"kind": "cpu", "numa": i, "cpus": cpus})
    for g in gpus:
        # a partitioned GPU (kfd "partitions": N) is N nodes, one per partition
        nparts = int(g["kfd"].get("partitions", 1))
        for pi in range(nparts):
            nodes.append({"kind": "gpu", "fn": g, "part": pi, "nparts": nparts})
    gpu_node_ids = {}      # bdf -> the GPU's first node
    gpu_nodes = {}         # bdf -> all its nodes
    for nid, n in enumerate(nodes):
        if n["kind"] == "gpu":
            gpu_node_ids.setdefault(n["fn"]["bdf"], nid)
            gpu_nodes.setdefault(n["fn"]["bdf"], []).append(nid)
    dist = spec.get("host", {}).get("numa_distances")
    for nid, n in enumerate(nodes):
        nd = "%s/nodes/%d" % (topo, nid)
        links = []
        if n["kind"] == "cpu":
            for j in range(ncpu_nodes):
                if j != n["numa"]:
                    w = dist[n["numa"]][j] if dist else 21
                    links.append([("type", 1), ("version_major", 0), ("version_minor", 0),
                                  ("node_from", nid), ("node_to", j), ("weight", w),
                                  ("min_latency", 0), ("max_latency", 0), ("min_bandwidth", 0),
                                  ("max_bandwidth", 0), ("recommended_transfer_size", 0),
                                  ("recommended_sdma_engine_id_mask", 0), ("flags", 0)])
            for g in gpus:
                if numa_of(g) == n["numa"]:
                    for gn in gpu_nodes[g["bdf"]]:
                        links.append([("type", 2), ("version_major", 0), ("version_minor", 0),
                                      ("node_from", nid), ("node_to", gn),
                                      ("weight", 20), ("min_latency", 0), ("max_latency", 0),
                                      ("min_bandwidth", 0), ("max_bandwidth", 64000),
                                      ("recommended_transfer_size", 0),
                                      ("recommended_sdma_engine_id_mask", 0), ("flags", 3)])
            mem_kb = int(numa[n["numa"]].get("memory_kb", 0)) if n["numa"] < len(numa) else 0
            props = [("cpu_cores_count", len(n["cpus"])), ("simd_count", 0),
                     ("mem_banks_count", 1), ("caches_count", 0), ("io_links_count", len(links)),
                     ("p2p_links_count", 0), ("cpu_core_id_base", min(n["cpus"]) if n["cpus"] else 0),
                     ("simd_id_base", 0), ("max_waves_per_simd", 0), ("lds_size_in_kb", 0),
                     ("gds_size_in_kb", 0), ("num_gws", 0), ("wave_front_size", 0),
                     ("array_count", 0), ("simd_arrays_per_engine", 0), ("cu_per_simd_array", 0),
                     ("simd_per_cu", 0), ("max_slots_scratch_cu", 0), ("gfx_target_version", 0),
                     ("vendor_id", 0), ("device_id", 0), ("location_id", 0), ("domain", 0),
                     ("drm_render_minor", 0), ("hive_id", 0), ("num_sdma_engines", 0),
                     ("num_sdma_xgmi_engines", 0), ("num_sdma_queues_per_engine", 0),
                     ("num_cp_queues", 0),
                     ("max_engine_clk_ccompute", cpu_base.get("max_engine_clk_ccompute", 3800))]
            tree.write(nd + "/properties", kfd_props_text(props))
            tree.write(nd + "/gpu_id", "0\n")
            tree.write(nd + "/name", "\n")
            tree.write(nd + "/mem_banks/0/properties", kfd_props_text([
                ("heap_type", 0), ("size_in_bytes", mem_kb * 1024), ("flags", 0),
                ("width", cpu_base.get("mem_width", 64)),
                ("mem_clk_max", cpu_base.get("mem_clk_max", 4800))]))
        else:
            fn = n["fn"]
            k = fn["kfd"]
            numa_id = numa_of(fn)
            links.append([("type", 2), ("version_major", 0), ("version_minor", 0),
                          ("node_from", nid), ("node_to", numa_id), ("weight", 20),
                          ("min_latency", 0), ("max_latency", 0), ("min_bandwidth", 312),
                          ("max_bandwidth", 64000), ("recommended_transfer_size", 0),
                          ("recommended_sdma_engine_id_mask", 3), ("flags", 1)])
            hive = k.get("hive_id", 0)
            nparts, part = n["nparts"], n["part"]
            if nparts > 1:
                # partitions (kfd_crat.c kfd_fill_gpu_xgmi_link_to_gpu without TA info):
                # within the GPU weight 13 and 819200 MB/s, to other GPUs' partitions
                # weight 2*13+15 = 41 and no bandwidth; ordered by node id
                for g in gpus:
                    if g is not fn and (not hive or g["kfd"].get("hive_id") != hive):
                        continue
                    for gn in gpu_nodes[g["bdf"]]:
                        if gn == nid:
                            continue
                        same = g is fn
                        bw = 819200 if same else 0
                        links.append([("type", 11), ("version_major", 0), ("version_minor", 0),
                                      ("node_from", nid), ("node_to", gn),
                                      ("weight", 13 if same else 41), ("min_latency", 0),
                                      ("max_latency", 0), ("min_bandwidth", bw),
                                      ("max_bandwidth", bw), ("recommended_transfer_size", 0),
                                      ("recommended_sdma_engine_id_mask", 3), ("flags", 1)])
            elif hive:
                for g in gpus:
                    if g is fn or g["kfd"].get("hive_id") != hive:
                        continue
                    links.append([("type", 11), ("version_major", 0), ("version_minor", 0),
                                  ("node_from", nid), ("node_to", gpu_node_ids[g["bdf"]]),
                                  ("weight", k.get("xgmi_weight", 15)), ("min_latency", 0),
                                  ("max_latency", 0),
                                  ("min_bandwidth", k.get("xgmi_min_bandwidth", 0)),
                                  ("max_bandwidth", k.get("xgmi_max_bandwidth", 0)),
                                  ("recommended_transfer_size", 0),
                                  ("recommended_sdma_engine_id_mask", 3), ("flags", 1)])
            render = 0
            for cd in fn.get("classdev", []):
                m = re.match(r"renderD(\d+)$", cd["name"])
                if m:
                    render = int(m.group(1))
            if nparts > 1:
                # partition 0 uses the GPU's own render node, the others the ones
                # amdgpu makes for each partition (consecutive minors, real CPX capture)
                render = k.get("render_minors", list(range(render, render + nparts)))[part]
            p = k.get("properties", {})
            order = ["cpu_cores_count", "simd_count", "mem_banks_count", "caches_count",
                     "io_links_count", "p2p_links_count", "cpu_core_id_base", "simd_id_base",
                     "max_waves_per_simd", "lds_size_in_kb", "gds_size_in_kb", "num_gws",
                     "wave_front_size", "array_count", "simd_arrays_per_engine",
                     "cu_per_simd_array", "simd_per_cu", "max_slots_scratch_cu",
                     "gfx_target_version", "vendor_id", "device_id", "location_id", "domain",
                     "drm_render_minor", "hive_id", "num_sdma_engines", "num_sdma_xgmi_engines",
                     "num_sdma_queues_per_engine", "num_cp_queues", "max_engine_clk_fcompute",
                     "local_mem_size", "fw_version", "capability", "debug_prop",
                     "sdma_fw_version", "unique_id", "num_xcc", "max_engine_clk_ccompute"]
            vals = dict(p)
            if nparts > 1:
                for key in ("simd_count", "num_xcc", "array_count", "num_cp_queues"):
                    if key in vals:
                        vals[key] = vals[key] // nparts
            vals.update({
                "cpu_cores_count": 0, "mem_banks_count": 1, "caches_count": 0,
                "cpu_core_id_base": p.get("cpu_core_id_base", 0),
                "io_links_count": len(links), "p2p_links_count": 0,
                "vendor_id": fn["vid"], "device_id": fn["did"],
                # partitions add their number (kfd_topology.c "location_id |= node_id")
                "location_id": ((fn["bus"] << 8) | (fn["slot"] << 3) | fn["func"]) | (part if nparts > 1 else 0),
                "domain": fn["domain"], "drm_render_minor": render, "hive_id": hive,
                "unique_id": k.get("unique_id", 0),
            })
            props = [(name, vals[name]) for name in order if name in vals]
            tree.write(nd + "/properties", kfd_props_text(props))
            tree.write(nd + "/gpu_id", "%d\n" % (k["gpu_id"] + part))
            tree.write(nd + "/name", k.get("name", "ip discovery") + "\n")
            mb = k.get("mem_bank", {})
            size = mb.get("size_in_bytes", 0)
            if nparts > 1:
                size = mb["part_sizes"][part] if "part_sizes" in mb else size // nparts
            tree.write(nd + "/mem_banks/0/properties", kfd_props_text([
                ("heap_type", mb.get("heap_type", 1)), ("size_in_bytes", size),
                ("flags", 0), ("width", mb.get("width", 4096)),
                ("mem_clk_max", mb.get("mem_clk_max", 1000))]))
            tree.write(nd + "/mem_banks/0/used_memory", "%d\n" % mb.get("used_memory", 0))
        for li, props in enumerate(links):
            tree.write("%s/io_links/%d/properties" % (nd, li), kfd_props_text(props))
        # every node has these directories, empty when it has none of the kind
        # (kfd_topology.c kfd_build_sysfs_node_entry); ROCm SMI 5.2.3 asserts p2p_links is
        # there (rocm_smi_io_link.cc DiscoverLinksPerNode)
        for sub in ("mem_banks", "caches", "io_links", "p2p_links", "perf"):
            tree.mkdir("%s/%s" % (nd, sub))


def build_virtual(pb, spec):
    for cd in spec.get("virtual", []):
        pb.virtual_classdev(cd)


def build_chrdevs(tree, spec, pb, state):
    chr_ = {1: "mem", 4: "/dev/vc/0", 4.5: "tty", 5: "/dev/tty", 7: "vcs", 10: "misc",
            13: "input", 29: "fb", 128: "ptm", 136: "pts", 180: "usb", 189: "usb_device",
            202: "cpu/msr", 203: "cpu/cpuid", 226: "drm"}
    majors = {}
    for k, v in chr_.items():
        if k == 4.5:
            continue
        majors[int(k)] = v
    for cd in pb.classdevs:
        if cd.get("dev"):
            m = int(cd["dev"].split(":")[0])
            if m == 261:
                majors[261] = "accel"
    majors.update(state.get("chrdevs", {}))
    majors.update(pb.chrdevs)
    for k, v in (spec.get("chrdevs") or {}).items():
        majors[int(k)] = v
    lines = ["Character devices:"]
    for m in sorted(majors):
        lines.append("%3d %s" % (m, majors[m]))
    lines += ["", "Block devices:", "  7 loop", "  8 sd", "259 blkext", ""]
    tree.write("proc/devices", "\n".join(lines) + "\n")


def build_dmi(tree, spec):
    """"dmi": {"id": {"sys_vendor": ..., "product_name": ...}, "table": {<smbios.py>},
    "table_mode": "400"} -> sys/devices/virtual/dmi/id/<file> (0444, as the kernel makes
    the ones it does not hide from users), sys/class/dmi/id -> that directory, and
    sys/firmware/dmi/tables/DMI (root-only, 0400, on a real system; 0444 here unless
    table_mode says, so that tests do not depend on who runs them)."""
    dmi = spec.get("dmi")
    if not dmi:
        return
    for name, value in (dmi.get("id") or {}).items():
        tree.write("sys/devices/virtual/dmi/id/" + name, attr_content(value), 0o444)
    if dmi.get("id"):
        tree.rawlink("sys/class/dmi/id", "../../devices/virtual/dmi/id")
    if dmi.get("table"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import smbios
        tree.write("sys/firmware/dmi/tables/DMI", smbios.table(dmi["table"]), int(dmi.get("table_mode", "444"), 8))


def build_files(tree, spec):
    for rel, v in (spec.get("files") or {}).items():
        if isinstance(v, dict) and "link" in v:
            tree.rawlink(rel, v["link"])
        else:
            tree.write(rel, attr_content(v) if not (isinstance(v, str) and v == "") else "")
    for rel in spec.get("devnodes", []):
        if spec.get("dev", True) is not False:
            name = rel[len("/dev/"):] if rel.startswith("/dev/") else rel.lstrip("/")
            tree.write("dev/" + name, b"")
    for rel, target in (spec.get("links") or {}).items():
        tree.rawlink(rel, target)


def build_processes(tree, spec):
    """"processes": [{"pid": N, "comm": "python3", "cgroup": "/system.slice/x.scope",
    "fds": [{"fd": 5, "target": "/dev/dri/renderD128", "fdinfo": {"drm-driver": "amdgpu",
    ...}}]}] -> proc/<pid>/{comm,cgroup,fd/<n> (symlink),fdinfo/<n>} as procfs shows them
    (fdinfo keys in the order given, "key:\tvalue"; a string fdinfo is written verbatim)."""
    for pr in spec.get("processes", []):
        base = "proc/%d" % pr["pid"]
        tree.mkdir(base + "/fd")
        tree.mkdir(base + "/fdinfo")
        if "comm" in pr:
            tree.write(base + "/comm", pr["comm"] + "\n")
        if "cgroup" in pr:
            tree.write(base + "/cgroup", "0::%s\n" % pr["cgroup"])
        for fd in pr.get("fds", []):
            n = fd["fd"]
            tree.rawlink("%s/fd/%d" % (base, n), fd["target"])
            info = fd.get("fdinfo", {})
            if isinstance(info, str):
                text = info
            else:
                text = "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t%d\n" % (1000 + n)
                text += "".join("%s:\t%s\n" % (k, v) for k, v in info.items())
            tree.write("%s/fdinfo/%d" % (base, n), text)


# ---------------------------------------------------------------------------
# damage


def damage(tree, items):
    for it in items:
        rel = it["path"]
        kind = it["kind"]
        path = tree.p(rel)
        if kind in ("truncate", "empty", "garbage", "huge", "nonnumeric", "binary", "nonewline"):
            if os.path.isdir(path) and not os.path.islink(path):
                die("damage %s: %s is a directory" % (kind, rel))
            old = b""
            if os.path.exists(path):
                with open(path, "rb") as f:
                    old = f.read()
            if kind == "truncate":
                n = it.get("bytes", max(len(old) // 2, 1))
                new = old[:n]
            elif kind == "empty":
                new = b""
            elif kind == "garbage":
                new = bytes((i * 131 + 7) % 256 for i in range(it.get("bytes", 97)))
            elif kind == "binary":
                new = b"\x00\xff\xfe\x00" * 8
            elif kind == "huge":
                unit = it.get("unit", "0x10de\n").encode()
                size = it.get("bytes", 1536 * 1024)
                new = (unit * (size // len(unit) + 1))[:size]
            elif kind == "nonnumeric":
                new = it.get("content", "not-a-number\n").encode()
            elif kind == "nonewline":
                new = old.rstrip(b"\n")
            # write through the final path (follows directory symlinks, replaces file)
            if os.path.islink(path):
                os.unlink(path)
            with open(path, "wb") as f:
                f.write(new)
        elif kind == "remove":
            if os.path.islink(path) or os.path.isfile(path):
                os.unlink(path)
            elif os.path.isdir(path):
                shutil.rmtree(path)
        elif kind == "dir":
            if os.path.lexists(path):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
            os.makedirs(path)
            if it.get("with_file"):
                with open(os.path.join(path, it["with_file"]), "w") as f:
                    f.write("0\n")
        elif kind == "dangling":
            tree.rawlink(rel, it.get("target", "does-not-exist"))
        elif kind == "loop":
            other = rel + ".loop"
            name = os.path.basename(rel)
            tree.rawlink(rel, os.path.basename(other))
            tree.rawlink(other, name)
        elif kind == "selfloop":
            tree.rawlink(rel, os.path.basename(rel))
        elif kind == "symlink":
            tree.rawlink(rel, it["target"])
        elif kind == "unreadable":
            os.chmod(path, 0)
        elif kind == "write":
            tree.write(rel, attr_content(it["content"]))
        else:
            die("unknown damage kind %r" % kind)


# ---------------------------------------------------------------------------


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    opener = gzip.open if argv[1].endswith(".gz") else open
    with opener(argv[1], "rt", encoding="utf-8") as f:
        spec = json.load(f)
    out = argv[2]
    if os.path.exists(out):
        # make previously chmod-000 entries removable
        for dp, dns, fns in os.walk(out):
            for n in dns + fns:
                p = os.path.join(dp, n)
                if not os.path.islink(p):
                    try:
                        os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
                    except OSError:
                        pass
        shutil.rmtree(out)
    os.makedirs(out)
    tree = Tree(out)
    state = {}
    build_host(tree, spec.get("host"), state)
    pb = PciBuilder(tree, spec, state)
    pb.build()
    build_virtual(pb, spec)
    build_nvidia(tree, spec, state)
    build_kfd(tree, spec, state)
    if spec.get("proc_devices", True):
        build_chrdevs(tree, spec, pb, state)
    build_dmi(tree, spec)
    build_files(tree, spec)
    build_processes(tree, spec)
    damage(tree, spec.get("damage", []))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
