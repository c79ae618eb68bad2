#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Build a large synthetic sysroot (sysfs + procfs) for benchmarking axl.

usage: mkbigtree.py OUTDIR [--accelerators 64] [--functions 512] [options]

The tree follows the kernel's sysfs layout of a PCIe server: every function appears
under OUTDIR/sys/devices/pci<domain>:<bus>/<root port>/<switch upstream port>/
<switch downstream port>/<endpoint>, and OUTDIR/sys/bus/pci/devices/<bdf> links to
it. Accelerators are NVIDIA H100 SXM5 GPUs (10de:2330, class 0x030200, driver nvidia,
with /proc/driver/nvidia/gpus/<bdf>/information as the driver writes it), two per
Broadcom PCIe switch; the remaining functions are ConnectX-6 InfiniBand NICs (dual
function, 15b3:101b, class 0x020700, mlx5_core), NVMe drives (144d:a824, class
0x010802, nvme), the switches' and root complexes' bridge functions (class 0x060400),
a chipset on bus 00 and, to make the count exact, uncore functions (class 0x088000).

Each function has vendor, device, subsystem_vendor, subsystem_device, class, revision,
numa_node, local_cpulist, local_cpus, irq, enable, modalias, uevent, a 256-byte
`config` consistent with them (header type, bridge bus numbers, PCI Express capability
with link capabilities/status, SSVID capability on bridges), the link attributes
(current/max link speed and width), `driver`, `subsystem` and `iommu_group` links with
the relative targets the kernel uses. The host has NUMA nodes (cpulist, cpumap,
meminfo, distance), CPU topology, /proc/cpuinfo, /proc/meminfo and
/proc/sys/kernel/{hostname,osrelease}, enough for `lstopo` with HWLOC_FSROOT too.

The exact number of functions under sys/bus/pci/devices is --functions; the number of
GPUs is --accelerators. A summary is written to OUTDIR/mkbigtree.json. An OUTDIR that
holds an earlier tree (it has mkbigtree.json) is replaced; any other non-empty OUTDIR
is refused. Python 3 standard library only.
"""

import argparse
import hashlib
import json
import os
import shutil
import struct
import sys
import uuid

MARKER = "mkbigtree.json"

SPEED_NAMES = {
    1: "2.5 GT/s PCIe",
    2: "5.0 GT/s PCIe",
    3: "8.0 GT/s PCIe",
    4: "16.0 GT/s PCIe",
    5: "32.0 GT/s PCIe",
    6: "64.0 GT/s PCIe",
}

# PCI Express capability "device/port type" values.
PT_ENDPOINT, PT_ROOT_PORT, PT_UPSTREAM, PT_DOWNSTREAM, PT_RCIEP = 0, 4, 5, 6, 9

NVIDIA_DRIVER_VERSION = "535.161.08"

# What each kind of function is. gen/width: the link capability (None: no link, an
# integrated endpoint of the root complex).
KINDS = {
    "gpu": dict(vendor=0x10DE, device=0x2330, sv=0x10DE, sd=0x16C1, cls=0x030200, rev=0xA1,
                driver="nvidia", module="nvidia", pt=PT_ENDPOINT, gen=5, width=16,
                name="NVIDIA H100 80GB HBM3"),
    "nic": dict(vendor=0x15B3, device=0x101B, sv=0x15B3, sd=0x0007, cls=0x020700, rev=0x00,
                driver="mlx5_core", module="mlx5_core", pt=PT_ENDPOINT, gen=4, width=16,
                name="Mellanox ConnectX-6 (InfiniBand)"),
    "nvme": dict(vendor=0x144D, device=0xA824, sv=0x144D, sd=0xA801, cls=0x010802, rev=0x00,
                 driver="nvme", module="nvme", pt=PT_ENDPOINT, gen=4, width=4,
                 name="Samsung PM173X NVMe SSD"),
    "sw_up": dict(vendor=0x1000, device=0xC030, sv=0x1000, sd=0xA064, cls=0x060400, rev=0xB0,
                  driver="pcieport", module=None, pt=PT_UPSTREAM, gen=5, width=16,
                  name="Broadcom PEX890xx PCIe switch (upstream port)"),
    "sw_down": dict(vendor=0x1000, device=0xC030, sv=0x1000, sd=0xA064, cls=0x060400, rev=0xB0,
                    driver="pcieport", module=None, pt=PT_DOWNSTREAM, gen=5, width=16,
                    name="Broadcom PEX890xx PCIe switch (downstream port)"),
    "root_port": dict(vendor=0x8086, device=0x352A, sv=0x8086, sd=0x0000, cls=0x060400, rev=0x04,
                      driver="pcieport", module=None, pt=PT_ROOT_PORT, gen=5, width=16,
                      name="Intel PCIe root port"),
    "rc": dict(vendor=0x8086, device=0x09A2, sv=0x8086, sd=0x0000, cls=0x088000, rev=0x04,
               driver=None, module=None, pt=PT_RCIEP, gen=None, width=None,
               name="Intel Memory Map/VT-d"),
    "usb": dict(vendor=0x8086, device=0x1BCD, sv=0x8086, sd=0x0000, cls=0x0C0330, rev=0x11,
                driver="xhci_hcd", module="xhci_pci", pt=PT_RCIEP, gen=None, width=None,
                name="Intel USB 3.2 xHCI"),
    "sata": dict(vendor=0x8086, device=0x1BA2, sv=0x8086, sd=0x0000, cls=0x010601, rev=0x11,
                 driver="ahci", module="ahci", pt=PT_RCIEP, gen=None, width=None,
                 name="Intel SATA AHCI"),
    "isa": dict(vendor=0x8086, device=0x1B81, sv=0x8086, sd=0x0000, cls=0x060100, rev=0x11,
                driver=None, module=None, pt=PT_RCIEP, gen=None, width=None,
                name="Intel LPC/eSPI controller"),
    "smbus": dict(vendor=0x8086, device=0x1BC9, sv=0x8086, sd=0x0000, cls=0x0C0500, rev=0x11,
                  driver="i801_smbus", module="i2c_i801", pt=PT_RCIEP, gen=None, width=None,
                  name="Intel SMBus"),
    "spi": dict(vendor=0x8086, device=0x1BCA, sv=0x8086, sd=0x0000, cls=0x0C8000, rev=0x11,
                driver="intel-spi", module="spi_intel_pci", pt=PT_RCIEP, gen=None, width=None,
                name="Intel SPI controller"),
    "uncore": dict(vendor=0x8086, device=0x3450, sv=0x8086, sd=0x0000, cls=0x088000, rev=0x00,
                   driver=None, module=None, pt=PT_RCIEP, gen=None, width=None,
                   name="Intel uncore system peripheral"),
}

# The chipset on 0000:00 (device, function, kind).
CHIPSET = [(0x00, 0, "rc"), (0x14, 0, "usb"), (0x17, 0, "sata"),
           (0x1F, 0, "isa"), (0x1F, 4, "smbus"), (0x1F, 5, "spi")]

MAX_SWITCH_PORTS = 12      # downstream ports per switch
FIRST_SWITCH_BUS = 0x10    # root buses of switches in domain 0 start here
LAST_SWITCH_BUS_DOM0 = 0xFD  # 0xfe, 0xff hold the uncore functions

CPU_FLAGS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts "
    "acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art "
    "arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf "
    "tsc_known_freq pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma "
    "cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes "
    "xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 cat_l2 cdp_l3 "
    "invpcid_single intel_ppin cdp_l2 ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow "
    "flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid "
    "cqm rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt "
    "avx512cd sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc "
    "cqm_occup_llc cqm_mbm_total cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 "
    "wbnoinvd dtherm ida arat pln pts hfi vnmi avx512vbmi umip pku ospke waitpkg "
    "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme avx512_vpopcntdq "
    "la57 rdpid bus_lock_detect cldemote movdiri movdir64b enqcmd fsrm md_clear "
    "serialize tsxldtrk pconfig arch_lbr ibt amx_bf16 avx512_fp16 amx_tile amx_int8 "
    "flush_l1d arch_capabilities"
)


# --------------------------------------------------------------------------- model

class Func:
    """One PCI function."""

    def __init__(self, kind, dom, bus, dev, fn, parent, node):
        self.kind = kind
        self.k = KINDS[kind]
        self.dom, self.bus, self.dev, self.fn = dom, bus, dev, fn
        self.parent = parent          # the bridge above it, None on a root bus
        self.node = node              # NUMA node
        self.sec = self.sub = None    # bridges: secondary and subordinate bus
        self.multifunction = False
        self.cur_gen = self.cur_width = None
        self.port_num = 0
        self.iommu_group = None
        self.minor = None             # GPUs: the nvidia device minor

    @property
    def bdf(self):
        return "%04x:%02x:%02x.%x" % (self.dom, self.bus, self.dev, self.fn)

    def sys_path(self):
        """Path below sys/, e.g. devices/pci0000:18/0000:18:01.0/0000:19:00.0."""
        parts = []
        f = self
        while f is not None:
            parts.append(f.bdf)
            root = f
            f = f.parent
        parts.append("pci%04x:%02x" % (root.dom, root.bus))
        parts.append("devices")
        return "/".join(reversed(parts))


class Switch:
    """A PCIe switch behind its own root port, with endpoints on its downstream ports."""

    def __init__(self, node):
        self.node = node
        self.items = []  # "gpu", "nic", "nvme" in downstream port order

    def cost(self):
        return 3 + sum(2 if i != "nic" else 3 for i in self.items)


def plan(accelerators, functions, nodes):
    """Decide what goes where; return (switches, uncore_count) using exactly `functions`."""
    n_sw = (accelerators + 1) // 2
    base = len(CHIPSET) + 3 * n_sw + 2 * accelerators
    if base > functions:
        raise SystemExit("mkbigtree: %d accelerators need at least %d PCI functions (got %d)"
                         % (accelerators, base, functions))
    switches = [Switch(i * nodes // max(n_sw, 1)) for i in range(n_sw)]
    left = accelerators
    for sw in switches:
        take = min(2, left)
        sw.items.extend(["gpu"] * take)
        left -= take
    rest = functions - base

    def extras(sw):
        return len([i for i in sw.items if i != "gpu"])

    io_switches = []
    uncore = 0
    while rest > 0:
        room = [s for s in switches + io_switches if len(s.items) < MAX_SWITCH_PORTS]
        placed = False
        if room and rest >= 2:
            sw = min(room, key=extras)  # the least loaded, first in order on ties
            want = "nic" if extras(sw) % 2 == 0 else "nvme"
            if want == "nic" and rest < 3:
                want = "nvme"
            sw.items.append(want)
            rest -= 3 if want == "nic" else 2
            placed = True
        if placed:
            continue
        if rest >= 5:  # a switch of its own for more drives
            io_switches.append(Switch(len(io_switches) % nodes))
            rest -= 3
            continue
        uncore += rest
        rest = 0
    # Interleave on each switch the way boards are wired: GPU, NIC, GPU, NIC, drives.
    for sw in switches + io_switches:
        gpus = [i for i in sw.items if i == "gpu"]
        nics = [i for i in sw.items if i == "nic"]
        nvmes = [i for i in sw.items if i == "nvme"]
        order = []
        while gpus or nics:
            if gpus:
                order.append(gpus.pop())
            if nics:
                order.append(nics.pop())
        sw.items = order + nvmes
    # IO-only switches sit with the others of their node, in bus order.
    allsw = sorted(switches + io_switches, key=lambda s: s.node)
    return allsw, uncore


def build_functions(switches, uncore, nodes):
    """Assign buses and create the Func objects, in PCI (domain, bus, dev, fn) order."""
    funcs = []
    for dev, fn, kind in CHIPSET:
        funcs.append(Func(kind, 0, 0x00, dev, fn, None, 0))

    dom, bus = 0, FIRST_SWITCH_BUS
    for sw in switches:
        need = 3 + len(sw.items)
        limit = LAST_SWITCH_BUS_DOM0 if dom == 0 else 0xFF
        if bus + need - 1 > limit:
            dom, bus = dom + 1, 0x00
        root_bus, up_bus, down_bus = bus, bus + 1, bus + 2
        last = bus + need - 1
        funcs.append(Func("rc", dom, root_bus, 0x00, 0, None, sw.node))
        rp = Func("root_port", dom, root_bus, 0x01, 0, None, sw.node)
        rp.sec, rp.sub, rp.port_num = up_bus, last, 1
        funcs.append(rp)
        up = Func("sw_up", dom, up_bus, 0x00, 0, rp, sw.node)
        up.sec, up.sub = down_bus, last
        funcs.append(up)
        downs = []
        for i, _ in enumerate(sw.items):
            d = Func("sw_down", dom, down_bus, i, 0, up, sw.node)
            d.sec = d.sub = down_bus + 1 + i
            d.port_num = i + 1
            downs.append(d)
        funcs.extend(downs)
        for i, item in enumerate(sw.items):
            ep_bus = down_bus + 1 + i
            if item == "nic":
                for fn in (0, 1):
                    f = Func("nic", dom, ep_bus, 0, fn, downs[i], sw.node)
                    f.multifunction = True
                    funcs.append(f)
            else:
                funcs.append(Func(item, dom, ep_bus, 0, 0, downs[i], sw.node))
        bus = last + 1

    # Uncore functions: bus 0xfe for the first node, 0xff for the last one.
    for i in range(uncore):
        ubus = 0xFE if i % 2 == 0 or nodes == 1 else 0xFF
        j = i // 2 if nodes > 1 else i
        if j >= 256:
            raise SystemExit("mkbigtree: too many leftover functions for the uncore buses")
        f = Func("uncore", 0, ubus, j // 8, j % 8, None, 0 if ubus == 0xFE else nodes - 1)
        funcs.append(f)
    # Mark multi-function uncore devices.
    seen = {}
    for f in funcs:
        seen.setdefault((f.dom, f.bus, f.dev), []).append(f)
    for group in seen.values():
        if len(group) > 1:
            for f in group:
                f.multifunction = True

    funcs.sort(key=lambda f: (f.dom, f.bus, f.dev, f.fn))

    # Links: negotiated with the port above (min of both ends).
    for f in funcs:
        if f.k["gen"] is None:
            continue
        p = f.parent
        if p is None:
            f.cur_gen, f.cur_width = f.k["gen"], f.k["width"]
        else:
            f.cur_gen = min(f.k["gen"], p.k["gen"])
            f.cur_width = min(f.k["width"], p.k["width"])
    # A downstream or root port reports the link to the device below it.
    children = {}
    for f in funcs:
        if f.parent is not None:
            children.setdefault(id(f.parent), []).append(f)
    for f in funcs:
        if f.k["pt"] in (PT_ROOT_PORT, PT_DOWNSTREAM):
            kids = children.get(id(f), [])
            if kids:
                f.cur_gen, f.cur_width = kids[0].cur_gen, kids[0].cur_width

    # IOMMU groups in PCI order; functions of one multi-function endpoint share one.
    group = 0
    last_dev = None
    for f in funcs:
        key = (f.dom, f.bus, f.dev)
        if f.kind == "nic" and last_dev == key:
            f.iommu_group = group - 1
            continue
        f.iommu_group = group
        group += 1
        last_dev = key

    minor = 0
    for f in funcs:
        if f.kind == "gpu":
            f.minor = minor
            minor += 1
    return funcs


# --------------------------------------------------------------------------- CPUs

class Cpus:
    def __init__(self, sockets, cores, threads, nodes):
        self.sockets, self.cores, self.threads = sockets, cores, threads
        self.count = sockets * cores * threads
        self.nodes = nodes
        # Linux numbering on Intel servers: first thread of every core of socket 0,
        # then socket 1, ..., then the second threads in the same order.
        self.info = []  # per cpu: (socket, core, thread)
        for t in range(threads):
            for s in range(sockets):
                for c in range(cores):
                    self.info.append((s, c, t))

    def node_of(self, cpu):
        s, c, _ = self.info[cpu]
        per_socket = max(self.nodes // self.sockets, 1)
        if self.nodes >= self.sockets:
            return s * per_socket + c * per_socket // self.cores
        return s * self.nodes // self.sockets

    def node_cpus(self, node):
        return [i for i in range(self.count) if self.node_of(i) == node]


def cpulist(cpus):
    cpus = sorted(cpus)
    out = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def cpumask(cpus, nbits):
    """The kernel's "%*pb" format: 32-bit hex words, most significant first."""
    value = 0
    for c in cpus:
        value |= 1 << c
    nwords = max((nbits + 31) // 32, 1)
    words = []
    for w in range(nwords - 1, -1, -1):
        word = (value >> (32 * w)) & 0xFFFFFFFF
        if w == nwords - 1 and nbits % 32:
            width = (nbits % 32 + 3) // 4
        else:
            width = 8
        words.append("%0*x" % (width, word))
    return ",".join(words)


# --------------------------------------------------------------------------- config space

def config_space(f):
    k = f.k
    b = bytearray(256)
    bridge = k["cls"] >> 8 == 0x0604
    command = 0x0547 if bridge else 0x0546
    struct.pack_into("<HHHH", b, 0x00, k["vendor"], k["device"], command, 0x0010)
    b[0x08] = k["rev"]
    b[0x09] = k["cls"] & 0xFF
    b[0x0A] = (k["cls"] >> 8) & 0xFF
    b[0x0B] = (k["cls"] >> 16) & 0xFF
    b[0x0C] = 0x10  # cache line size, in dwords
    b[0x0E] = (0x01 if bridge else 0x00) | (0x80 if f.multifunction else 0x00)
    if bridge:
        b[0x18], b[0x19], b[0x1A] = f.bus, f.sec, f.sub
    else:
        struct.pack_into("<HH", b, 0x2C, k["sv"], k["sd"])
        if k["pt"] == PT_ENDPOINT:
            # BAR0: 64-bit prefetchable memory; a plausible address per function.
            addr = bar0_address(f)
            struct.pack_into("<II", b, 0x10, (addr & 0xFFFFFFF0) | 0x0C, addr >> 32)
    b[0x34] = 0x40  # capabilities pointer
    b[0x3C] = 0xFF if bridge else (f.bus & 0xFF)  # interrupt line
    b[0x3D] = 0x01  # INTA

    # 0x40: power management (version 3), next 0x60.
    struct.pack_into("<BBHH", b, 0x40, 0x01, 0x60, 0x0003, 0x0008)
    # 0x60: PCI Express capability, version 2.
    pt = k["pt"]
    flags = 0x0002 | (pt << 4) | (0x0100 if pt in (PT_ROOT_PORT, PT_DOWNSTREAM) else 0)
    nxt = 0xA0 if bridge else 0x00
    struct.pack_into("<BBH", b, 0x60, 0x10, nxt, flags)
    struct.pack_into("<IHH", b, 0x64, 0x10008FE2, 0x2930, 0x0000)  # devcap, devctl, devsta
    if k["gen"] is not None:
        lnkcap = k["gen"] | (k["width"] << 4) | (0x3 << 10) | (f.port_num << 24)
        lnksta = (f.cur_gen or 0) | ((f.cur_width or 0) << 4)
        if pt in (PT_ROOT_PORT, PT_DOWNSTREAM):
            lnksta |= 0x2000  # data link layer link active
        lnkcap2 = sum(1 << i for i in range(1, k["gen"] + 1))
        struct.pack_into("<IHH", b, 0x6C, lnkcap, 0x0040, lnksta)
        struct.pack_into("<I", b, 0x60 + 0x2C, lnkcap2)
        struct.pack_into("<H", b, 0x60 + 0x30, k["gen"])
    if bridge:
        # 0xa0: bridge subsystem vendor id capability.
        struct.pack_into("<BBHHH", b, 0xA0, 0x0D, 0x00, 0x0000, k["sv"], k["sd"])
    return bytes(b)


def bar0_address(f):
    return 0x2000_0000_0000 + (f.dom << 36) + (f.bus << 28) + (f.dev << 23) + (f.fn << 20)


def resource_file(f):
    """sysfs `resource`: start, end, flags per resource; 13 lines (BARs, ROM, SR-IOV
    BARs), 17 on bridges (plus the bridge windows). BAR0 of endpoints: 1 MiB, 64-bit
    prefetchable memory, matching `config`."""
    zero = "0x%016x 0x%016x 0x%016x\n" % (0, 0, 0)
    lines = [zero] * (17 if f.sec is not None else 13)
    if f.k["pt"] == PT_ENDPOINT:
        start = bar0_address(f)
        lines[0] = "0x%016x 0x%016x 0x%016x\n" % (start, start + 0xFFFFF, 0x14220C)
    return "".join(lines)


# --------------------------------------------------------------------------- writing

class Writer:
    def __init__(self, root):
        self.root = root
        self.made = set()
        self.nfiles = 0

    def _dir(self, d):
        if d not in self.made:
            os.makedirs(d, exist_ok=True)
            self.made.add(d)

    def text(self, rel, content):
        path = os.path.join(self.root, rel)
        self._dir(os.path.dirname(path))
        with open(path, "w", encoding="ascii", newline="\n") as fh:
            fh.write(content)
        self.nfiles += 1

    def data(self, rel, content):
        path = os.path.join(self.root, rel)
        self._dir(os.path.dirname(path))
        with open(path, "wb") as fh:
            fh.write(content)
        self.nfiles += 1

    def mkdir(self, rel):
        self._dir(os.path.join(self.root, rel))

    def link(self, rel, target_rel):
        """Symlink at `rel` pointing at `target_rel` (both relative to the root),
        written relative to the link's directory as the kernel does."""
        path = os.path.join(self.root, rel)
        self._dir(os.path.dirname(path))
        target = os.path.relpath(os.path.join(self.root, target_rel), os.path.dirname(path))
        os.symlink(target, path)
        self.nfiles += 1


def write_pci(w, funcs, cpus, nvidia_seed):
    nbits = cpus.count
    node_cpus = {n: cpus.node_cpus(n) for n in range(cpus.nodes)}
    drivers = {}
    buses = {}  # (dom, bus) -> directory (below sys/) holding pci_bus/<dom:bus>
    for f in funcs:
        k = f.k
        d = "sys/" + f.sys_path()
        ncpus = node_cpus[f.node]
        irq = 16 + (f.iommu_group % 200)
        w.text(d + "/vendor", "0x%04x\n" % k["vendor"])
        w.text(d + "/device", "0x%04x\n" % k["device"])
        w.text(d + "/subsystem_vendor", "0x%04x\n" % k["sv"])
        w.text(d + "/subsystem_device", "0x%04x\n" % k["sd"])
        w.text(d + "/class", "0x%06x\n" % k["cls"])
        w.text(d + "/revision", "0x%02x\n" % k["rev"])
        w.text(d + "/numa_node", "%d\n" % f.node)
        w.text(d + "/local_cpulist", cpulist(ncpus) + "\n")
        w.text(d + "/local_cpus", cpumask(ncpus, nbits) + "\n")
        w.text(d + "/irq", "%d\n" % irq)
        w.text(d + "/enable", "1\n")
        w.text(d + "/d3cold_allowed", "1\n")
        w.text(d + "/power_state", "D0\n")
        modalias = "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
            k["vendor"], k["device"], k["sv"], k["sd"],
            k["cls"] >> 16, (k["cls"] >> 8) & 0xFF, k["cls"] & 0xFF)
        w.text(d + "/modalias", modalias + "\n")
        uevent = ""
        if k["driver"]:
            uevent += "DRIVER=%s\n" % k["driver"]
        uevent += ("PCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\n"
                   "PCI_SLOT_NAME=%s\nMODALIAS=%s\n") % (
            k["cls"], k["vendor"], k["device"], k["sv"], k["sd"], f.bdf, modalias)
        w.text(d + "/uevent", uevent)
        w.data(d + "/config", config_space(f))
        w.text(d + "/resource", resource_file(f))
        if k["gen"] is not None:
            w.text(d + "/current_link_speed", SPEED_NAMES[f.cur_gen] + "\n")
            w.text(d + "/current_link_width", "%d\n" % f.cur_width)
            w.text(d + "/max_link_speed", SPEED_NAMES[k["gen"]] + "\n")
            w.text(d + "/max_link_width", "%d\n" % k["width"])
        else:
            # An integrated endpoint has no link: the kernel prints these.
            w.text(d + "/current_link_speed", "Unknown\n")
            w.text(d + "/current_link_width", "0\n")
            w.text(d + "/max_link_speed", "Unknown\n")
            w.text(d + "/max_link_width", "0\n")
        if f.sec is not None:
            w.text(d + "/secondary_bus_number", "%d\n" % f.sec)
            w.text(d + "/subordinate_bus_number", "%d\n" % f.sub)
            buses[(f.dom, f.sec)] = (d, f.node)
        if f.parent is None:
            root_dir = "sys/devices/pci%04x:%02x" % (f.dom, f.bus)
            buses.setdefault((f.dom, f.bus), (root_dir, f.node))
        w.link(d + "/subsystem", "sys/bus/pci")
        w.link("sys/bus/pci/devices/" + f.bdf, d)
        grp = "sys/kernel/iommu_groups/%d" % f.iommu_group
        w.link(d + "/iommu_group", grp)
        w.link(grp + "/devices/" + f.bdf, d)
        if k["driver"]:
            drv = "sys/bus/pci/drivers/" + k["driver"]
            if k["driver"] not in drivers:
                drivers[k["driver"]] = k["module"]
                for name in ("bind", "unbind", "new_id", "remove_id", "uevent"):
                    w.text(drv + "/" + name, "")
                if k["module"]:
                    w.link(drv + "/module", "sys/module/" + k["module"])
            w.link(d + "/driver", drv)
            w.link(drv + "/" + f.bdf, d)
        if f.kind == "gpu":
            write_nvidia_gpu(w, f, irq, nvidia_seed)

    for (dom, bus), (d, node) in sorted(buses.items()):
        name = "%04x:%02x" % (dom, bus)
        bd = d + "/pci_bus/" + name
        w.text(bd + "/cpuaffinity", cpumask(node_cpus[node], nbits) + "\n")
        w.text(bd + "/cpulistaffinity", cpulist(node_cpus[node]) + "\n")
        w.link(bd + "/subsystem", "sys/class/pci_bus")
        w.link("sys/class/pci_bus/" + name, bd)

    for name in ("drivers_autoprobe", "drivers_probe", "rescan", "resource_alignment"):
        w.text("sys/bus/pci/" + name, "1\n" if name == "drivers_autoprobe" else "")
    modules = {m for m in drivers.values() if m}
    for m in sorted(modules):
        w.text("sys/module/%s/initstate" % m, "live\n")
        w.text("sys/module/%s/refcnt" % m, "0\n")
    if "nvidia" in modules:
        w.text("sys/module/nvidia/version", NVIDIA_DRIVER_VERSION + "\n")


def write_nvidia_gpu(w, f, irq, seed):
    digest = hashlib.sha256(("%s:%s" % (seed, f.bdf)).encode()).digest()
    gpu_uuid = "GPU-" + str(uuid.UUID(bytes=digest[:16]))
    info = (
        "Model: \t\t %s\n" % f.k["name"]
        + "IRQ:   \t\t %d\n" % irq
        + "GPU UUID: \t %s\n" % gpu_uuid
        + "Video BIOS: \t 96.00.99.00.01\n"
        + "Bus Type: \t PCIe\n"
        + "DMA Size: \t 52 bits\n"
        + "DMA Mask: \t 0xfffffffffffff\n"
        + "Bus Location: \t %s\n" % f.bdf
        + "Device Minor: \t %u\n" % f.minor
        + "GPU Firmware: \t %s\n" % NVIDIA_DRIVER_VERSION
        + "GPU Excluded:\t No\n"
    )
    w.text("proc/driver/nvidia/gpus/%s/information" % f.bdf, info)
    f.uuid = gpu_uuid


def write_cpus_and_nodes(w, cpus, mem_per_node_kb):
    n = cpus.count
    allc = "0-%d\n" % (n - 1)
    base = "sys/devices/system/cpu"
    for name in ("online", "possible", "present"):
        w.text(base + "/" + name, allc)
    w.text(base + "/offline", "\n")
    w.text(base + "/kernel_max", "8191\n")
    by_core = {}
    by_pkg = {}
    for i, (s, c, t) in enumerate(cpus.info):
        by_core.setdefault((s, c), []).append(i)
        by_pkg.setdefault(s, []).append(i)
    for i, (s, c, t) in enumerate(cpus.info):
        d = "%s/cpu%d" % (base, i)
        if i:
            w.text(d + "/online", "1\n")
        sib = by_core[(s, c)]
        pkg = by_pkg[s]
        topo = {
            "physical_package_id": str(s),
            "die_id": "0",
            "cluster_id": str(c),
            "core_id": str(c),
            "thread_siblings_list": cpulist(sib),
            "thread_siblings": cpumask(sib, n),
            "core_cpus_list": cpulist(sib),
            "core_cpus": cpumask(sib, n),
            "cluster_cpus_list": cpulist(sib),
            "cluster_cpus": cpumask(sib, n),
            "core_siblings_list": cpulist(pkg),
            "core_siblings": cpumask(pkg, n),
            "die_cpus_list": cpulist(pkg),
            "die_cpus": cpumask(pkg, n),
            "package_cpus_list": cpulist(pkg),
            "package_cpus": cpumask(pkg, n),
        }
        for name, value in topo.items():
            w.text("%s/topology/%s" % (d, name), value + "\n")
        # Caches: L1d, L1i and L2 per core, L3 per package (Sapphire Rapids sizes).
        for idx, (level, ctype, size_k, ways, shared) in enumerate((
                (1, "Data", 48, 12, sib), (1, "Instruction", 32, 8, sib),
                (2, "Unified", 2048, 16, sib), (3, "Unified", 61440, 15, pkg))):
            cd = "%s/cache/index%d" % (d, idx)
            cache_id = c if level < 3 else s
            for name, value in (("level", str(level)), ("type", ctype), ("size", "%dK" % size_k),
                                ("id", str(cache_id)), ("coherency_line_size", "64"),
                                ("ways_of_associativity", str(ways)),
                                ("number_of_sets", str(size_k * 1024 // 64 // ways)),
                                ("physical_line_partition", "1"),
                                ("shared_cpu_list", cpulist(shared)),
                                ("shared_cpu_map", cpumask(shared, n))):
                w.text("%s/%s" % (cd, name), value + "\n")
        w.link("%s/node%d" % (d, cpus.node_of(i)), "sys/devices/system/node/node%d" % cpus.node_of(i))

    nb = "sys/devices/system/node"
    nodes_list = "0-%d\n" % (cpus.nodes - 1) if cpus.nodes > 1 else "0\n"
    for name in ("online", "possible", "has_cpu", "has_memory", "has_normal_memory"):
        w.text(nb + "/" + name, nodes_list)
    for node in range(cpus.nodes):
        d = "%s/node%d" % (nb, node)
        nc = cpus.node_cpus(node)
        w.text(d + "/cpulist", cpulist(nc) + "\n")
        w.text(d + "/cpumap", cpumask(nc, n) + "\n")
        dist = []
        for other in range(cpus.nodes):
            if other == node:
                dist.append(10)
            elif other // max(cpus.nodes // cpus.sockets, 1) == node // max(cpus.nodes // cpus.sockets, 1):
                dist.append(12)
            else:
                dist.append(21)
        w.text(d + "/distance", " ".join(str(x) for x in dist) + "\n")
        total = mem_per_node_kb
        free = total * 97 // 100
        lines = [
            ("MemTotal", total), ("MemFree", free), ("MemUsed", total - free),
            ("SwapCached", 0), ("Active", total // 200), ("Inactive", total // 150),
            ("Active(anon)", total // 1000), ("Inactive(anon)", total // 900),
            ("Active(file)", total // 250), ("Inactive(file)", total // 180),
            ("Unevictable", 0), ("Mlocked", 0), ("Dirty", 12), ("Writeback", 0),
            ("FilePages", total // 100), ("Mapped", total // 3000), ("AnonPages", total // 500),
            ("Shmem", total // 5000), ("KernelStack", 20480), ("PageTables", 32768),
            ("SecPageTables", 0), ("NFS_Unstable", 0), ("Bounce", 0), ("WritebackTmp", 0),
            ("KReclaimable", total // 400), ("Slab", total // 300), ("SReclaimable", total // 400),
            ("SUnreclaim", total // 1200), ("AnonHugePages", 0), ("ShmemHugePages", 0),
            ("ShmemPmdMapped", 0), ("FileHugePages", 0), ("FilePmdMapped", 0),
        ]
        text = "".join("Node %d %-15s %10d kB\n" % (node, name + ":", v) for name, v in lines)
        text += "".join("Node %d %-15s %5d\n" % (node, name + ":", 0)
                        for name in ("HugePages_Total", "HugePages_Free", "HugePages_Surp"))
        w.text(d + "/meminfo", text)
        for hp in ("hugepages-2048kB", "hugepages-1048576kB"):
            for name in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
                w.text("%s/hugepages/%s/%s" % (d, hp, name), "0\n")
        for c in nc:
            w.link("%s/cpu%d" % (d, c), "sys/devices/system/cpu/cpu%d" % c)


def write_procfs(w, cpus, mem_total_kb, hostname, kernel, gpus):
    out = []
    for i, (s, c, t) in enumerate(cpus.info):
        apic = s * 128 + c * 2 + t
        out.append(
            "processor\t: %d\n" % i
            + "vendor_id\t: GenuineIntel\n"
            + "cpu family\t: 6\n"
            + "model\t\t: 143\n"
            + "model name\t: Intel(R) Xeon(R) Platinum 8462Y+\n"
            + "stepping\t: 8\n"
            + "microcode\t: 0x2b0004b1\n"
            + "cpu MHz\t\t: 2800.000\n"
            + "cache size\t: 61440 KB\n"
            + "physical id\t: %d\n" % s
            + "siblings\t: %d\n" % (cpus.cores * cpus.threads)
            + "core id\t\t: %d\n" % c
            + "cpu cores\t: %d\n" % cpus.cores
            + "apicid\t\t: %d\n" % apic
            + "initial apicid\t: %d\n" % apic
            + "fpu\t\t: yes\n"
            + "fpu_exception\t: yes\n"
            + "cpuid level\t: 32\n"
            + "wp\t\t: yes\n"
            + "flags\t\t: %s\n" % CPU_FLAGS
            + "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs eibrs_pbrsb bhi\n"
            + "bogomips\t: 5600.00\n"
            + "clflush size\t: 64\n"
            + "cache_alignment\t: 64\n"
            + "address sizes\t: 52 bits physical, 57 bits virtual\n"
            + "power management:\n\n"
        )
    w.text("proc/cpuinfo", "".join(out))
    free = mem_total_kb * 96 // 100
    meminfo = [
        ("MemTotal", mem_total_kb), ("MemFree", free), ("MemAvailable", mem_total_kb * 97 // 100),
        ("Buffers", 524288), ("Cached", mem_total_kb // 100), ("SwapCached", 0),
        ("Active", mem_total_kb // 200), ("Inactive", mem_total_kb // 150),
        ("Active(anon)", mem_total_kb // 1000), ("Inactive(anon)", mem_total_kb // 900),
        ("Active(file)", mem_total_kb // 250), ("Inactive(file)", mem_total_kb // 180),
        ("Unevictable", 0), ("Mlocked", 0), ("SwapTotal", 0), ("SwapFree", 0),
        ("Zswap", 0), ("Zswapped", 0), ("Dirty", 24), ("Writeback", 0),
        ("AnonPages", mem_total_kb // 500), ("Mapped", mem_total_kb // 3000),
        ("Shmem", mem_total_kb // 5000), ("KReclaimable", mem_total_kb // 400),
        ("Slab", mem_total_kb // 300), ("SReclaimable", mem_total_kb // 400),
        ("SUnreclaim", mem_total_kb // 1200), ("KernelStack", 40960), ("PageTables", 65536),
        ("SecPageTables", 0), ("NFS_Unstable", 0), ("Bounce", 0), ("WritebackTmp", 0),
        ("CommitLimit", mem_total_kb // 2), ("Committed_AS", mem_total_kb // 50),
        ("VmallocTotal", 137438953471), ("VmallocUsed", 1048576), ("VmallocChunk", 0),
        ("Percpu", 262144), ("HardwareCorrupted", 0), ("AnonHugePages", 0),
        ("ShmemHugePages", 0), ("ShmemPmdMapped", 0), ("FileHugePages", 0),
        ("FilePmdMapped", 0), ("Unaccepted", 0),
    ]
    text = "".join("%-16s%8d kB\n" % (name + ":", v) for name, v in meminfo)
    text += "HugePages_Total:       0\nHugePages_Free:        0\nHugePages_Rsvd:        0\n"
    text += "HugePages_Surp:        0\nHugepagesize:       2048 kB\nHugetlb:               0 kB\n"
    text += "DirectMap4k:     1048576 kB\nDirectMap2M:    67108864 kB\n"
    text += "DirectMap1G:  %10d kB\n" % max(mem_total_kb - 68157440, 0)
    w.text("proc/meminfo", text)
    w.text("proc/sys/kernel/hostname", hostname + "\n")
    w.text("proc/sys/kernel/osrelease", kernel + "\n")
    w.text("proc/sys/kernel/ostype", "Linux\n")
    w.text("proc/version", "Linux version %s (buildd@lcy02-amd64-080) (x86_64-linux-gnu-gcc-12 "
           "(Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) "
           "#45~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Mon Sep 16 17:12:26 UTC 2024\n" % kernel)
    w.text("proc/mounts",
           "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
           "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
           "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n")
    w.text("proc/self/cgroup", "0::/\n")
    w.text("sys/fs/cgroup/memory.max", "max\n")
    w.text("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n")
    if gpus:
        w.text("proc/driver/nvidia/version",
               "NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Tue Mar  5 22:42:15 UTC 2024\n"
               "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"
               % NVIDIA_DRIVER_VERSION)


# --------------------------------------------------------------------------- main

def prepare_outdir(outdir):
    if os.path.lexists(outdir):
        if not os.path.isdir(outdir) or os.path.islink(outdir):
            raise SystemExit("mkbigtree: %s exists and is not a directory" % outdir)
        if os.listdir(outdir):
            if not os.path.isfile(os.path.join(outdir, MARKER)):
                raise SystemExit("mkbigtree: %s is not empty and holds no earlier tree (%s); "
                                 "refusing to replace it" % (outdir, MARKER))
            for name in os.listdir(outdir):
                p = os.path.join(outdir, name)
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p)
                else:
                    os.unlink(p)
    os.makedirs(outdir, exist_ok=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Build a large synthetic sysfs/procfs tree.")
    ap.add_argument("outdir")
    ap.add_argument("--accelerators", type=int, default=64, help="number of GPUs (default 64)")
    ap.add_argument("--functions", type=int, default=512,
                    help="exact number of PCI functions (default 512)")
    ap.add_argument("--numa-nodes", type=int, default=2, help="NUMA nodes (default 2)")
    ap.add_argument("--sockets", type=int, default=2, help="CPU sockets (default 2)")
    ap.add_argument("--cores", type=int, default=32, help="cores per socket (default 32)")
    ap.add_argument("--threads", type=int, default=2, help="threads per core (default 2)")
    ap.add_argument("--memory-gib", type=int, default=2048, help="host memory (default 2048)")
    ap.add_argument("--hostname", default=None)
    ap.add_argument("--kernel", default="6.8.0-45-generic")
    ap.add_argument("--seed", default="axl", help="seed of the GPU UUIDs")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)

    if a.accelerators < 0 or a.functions < 1:
        ap.error("--accelerators must be >= 0 and --functions >= 1")
    if a.numa_nodes < 1 or a.sockets < 1 or a.cores < 1 or a.threads < 1:
        ap.error("--numa-nodes, --sockets, --cores and --threads must be >= 1")
    if a.numa_nodes > a.sockets * a.cores:
        ap.error("more NUMA nodes than cores")
    if a.numa_nodes > a.sockets and a.numa_nodes % a.sockets:
        ap.error("--numa-nodes must be a multiple of --sockets when larger")

    switches, uncore = plan(a.accelerators, a.functions, a.numa_nodes)
    funcs = build_functions(switches, uncore, a.numa_nodes)
    assert len(funcs) == a.functions, (len(funcs), a.functions)
    assert len({f.bdf for f in funcs}) == len(funcs)
    gpus = [f for f in funcs if f.kind == "gpu"]
    assert len(gpus) == a.accelerators

    outdir = os.path.abspath(a.outdir)
    prepare_outdir(outdir)
    w = Writer(outdir)
    cpus = Cpus(a.sockets, a.cores, a.threads, a.numa_nodes)
    mem_kb = a.memory_gib * 1024 * 1024
    per_node_kb = mem_kb // a.numa_nodes
    hostname = a.hostname or "bigtree-%da-%df" % (a.accelerators, a.functions)

    write_pci(w, funcs, cpus, a.seed)
    write_cpus_and_nodes(w, cpus, per_node_kb)
    write_procfs(w, cpus, per_node_kb * a.numa_nodes - 65536, hostname, a.kernel, gpus)

    counts = {}
    for f in funcs:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    summary = {
        "generator": "mkbigtree.py",
        "functions": len(funcs),
        "accelerators": len(gpus),
        "kinds": counts,
        "domains": sorted({"%04x" % f.dom for f in funcs}),
        "numa_nodes": a.numa_nodes,
        "cpus": cpus.count,
        "hostname": hostname,
        "kernel": a.kernel,
        "memory_bytes": mem_kb * 1024,
        "gpus": [{"address": f.bdf, "minor": f.minor, "uuid": f.uuid, "numa_node": f.node}
                 for f in gpus],
        "files": w.nfiles,
    }
    with open(os.path.join(outdir, MARKER), "w", encoding="ascii") as fh:
        json.dump(summary, fh, indent=1)
        fh.write("\n")
    if not a.quiet:
        print("%s: %d PCI functions (%s), %d GPUs, %d NUMA nodes, %d CPUs, %d files"
              % (a.outdir, len(funcs), ", ".join("%s %d" % kv for kv in sorted(counts.items())),
                 len(gpus), a.numa_nodes, cpus.count, w.nfiles))
    return 0


if __name__ == "__main__":
    sys.exit(main())
