#!/usr/bin/env python3
"""Check that an expect file agrees with the tree built from its spec.

usage: checkexpect.py TREE EXPECT.json

This is a consistency check of the test data (spec, tree and expectations
were written separately; this catches typos in any of them).  It reads only
the files each expected fact maps to; it is not a discovery tool and does not
decide what is an accelerator.
"""

import json
import os
import re
import sys

GEN = {"2.5": 1, "5": 2, "5.0": 2, "8": 3, "8.0": 3, "16": 4, "16.0": 4, "32": 5, "32.0": 5, "64": 6, "64.0": 6}


def rd(path):
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return None


def main():
    tree, expf = sys.argv[1], sys.argv[2]
    exp = json.load(open(expf))
    errs = []

    def chk(cond, msg):
        if not cond:
            errs.append(msg)

    pci = os.path.join(tree, "sys/bus/pci/devices")
    absent_all = set(exp.get("absent_everywhere", []))
    for did, d in list(exp.get("devices", {}).items()) + list(exp.get("devices_by_address", {}).items()):
        bdf = d.get("pci.address", did)
        p = os.path.join(pci, bdf)
        chk(os.path.isdir(p), "%s: no PCI dir %s" % (did, bdf))
        for key, fn in (("vendor_id", "vendor"), ("device_id", "device"),
                        ("subsystem_vendor_id", "subsystem_vendor"), ("subsystem_device_id", "subsystem_device")):
            if key in d:
                chk((rd(os.path.join(p, fn)) or "").strip() == d[key], "%s: %s" % (did, key))
            elif key in absent_all:
                chk(rd(os.path.join(p, fn)) is None, "%s: %s should be absent" % (did, key))
        if "pci.class" in d:
            chk((rd(os.path.join(p, "class")) or "").strip().startswith(d["pci.class"]), "%s: class" % did)
        if "numa_node" in d:
            chk((rd(os.path.join(p, "numa_node")) or "").strip() == str(d["numa_node"]), "%s: numa" % did)
        if "local_cpulist" in d:
            chk((rd(os.path.join(p, "local_cpulist")) or "").strip() == d["local_cpulist"], "%s: cpulist" % did)
        if "driver.name" in d:
            chk(os.path.basename(os.readlink(os.path.join(p, "driver"))) == d["driver.name"], "%s: driver" % did)
            if "driver.version" in d:
                mod = os.path.join(tree, "sys/bus/pci/drivers", d["driver.name"], "module")
                ver = rd(os.path.join(os.path.realpath(mod), "version"))
                chk((ver or "").strip() == d["driver.version"], "%s: driver version" % did)
        for key, fn, conv in (("pci.link.current_gen", "current_link_speed", "gen"),
                              ("pci.link.max_gen", "max_link_speed", "gen"),
                              ("pci.link.current_width", "current_link_width", "int"),
                              ("pci.link.max_width", "max_link_width", "int")):
            if key not in d:
                continue
            v = (rd(os.path.join(p, fn)) or "").strip()
            if conv == "gen":
                m = re.match(r"([0-9.]+) GT/s", v)
                v = GEN.get(m.group(1)) if m else None
            else:
                v = int(v) if v.isdigit() else None
            chk(v == d[key], "%s: %s %r != %r" % (did, key, v, d[key]))
        for node in d.get("device_nodes", []):
            chk(os.path.lexists(os.path.join(tree, node.lstrip("/"))), "%s: missing %s" % (did, node))
        chk(d.get("device_nodes", []) == sorted(d.get("device_nodes", [])), "%s: device_nodes unsorted" % did)
        info = rd(os.path.join(tree, "proc/driver/nvidia/gpus", bdf, "information"))
        if "uuid" in d:
            chk(info is not None and ("GPU UUID: \t %s\n" % d["uuid"]) in info, "%s: uuid" % did)
        if "model" in d and info is not None:
            chk(("Model: \t\t %s\n" % d["model"]) in info, "%s: model" % did)
        # amdgpu publishes VRAM on the PCI device; other vendors' sizes come from
        # their own attributes or the device database, which this tool does not model
        if "memory.total_bytes" in d and os.path.exists(os.path.join(p, "mem_info_vram_total")):
            v = (rd(os.path.join(p, "mem_info_vram_total")) or "").strip()
            chk(v == str(d["memory.total_bytes"]), "%s: vram" % did)
    for bdf in exp.get("not_devices", []):
        chk(os.path.lexists(os.path.join(pci, bdf)), "not_device %s missing" % bdf)
    h = exp.get("host")
    if h:
        if "hostname" in h:
            chk((rd(os.path.join(tree, "proc/sys/kernel/hostname")) or "").strip() == h["hostname"], "hostname")
        if "kernel" in h:
            chk((rd(os.path.join(tree, "proc/sys/kernel/osrelease")) or "").strip() == h["kernel"], "kernel")
        ci = rd(os.path.join(tree, "proc/cpuinfo")) or ""
        first = ci.split("\n\n")[0]
        if "cpu.model" in h:
            chk(("model name\t: %s\n" % h["cpu.model"]) in first + "\n", "cpu.model")
        flags = set()
        for line in first.splitlines():
            if line.startswith(("flags", "Features")):
                flags = set(line.split(":", 1)[1].split())
        for f in h.get("cpu.isa_includes", []):
            chk(f in flags, "isa %s missing" % f)
        for f in h.get("cpu.isa_excludes", []):
            chk(f not in flags, "isa %s present" % f)
        cpus = [c for c in os.listdir(os.path.join(tree, "sys/devices/system/cpu")) if re.match(r"cpu\d+$", c)]
        if "cpu.threads" in h:
            chk(len(cpus) == h["cpu.threads"], "threads %d" % len(cpus))
        pk, cores = set(), set()
        for c in cpus:
            t = os.path.join(tree, "sys/devices/system/cpu", c, "topology")
            s = (rd(os.path.join(t, "physical_package_id")) or "").strip()
            pk.add(s)
            cores.add((s, (rd(os.path.join(t, "core_id")) or "").strip()))
        if "cpu.sockets" in h:
            chk(len(pk) == h["cpu.sockets"], "sockets %d" % len(pk))
        if "cpu.cores" in h:
            chk(len(cores) == h["cpu.cores"], "cores %d" % len(cores))
        mi = rd(os.path.join(tree, "proc/meminfo")) or ""
        m = re.search(r"MemTotal:\s+(\d+) kB", mi)
        if "memory.total_bytes" in h:
            chk(m and int(m.group(1)) * 1024 == h["memory.total_bytes"], "memory.total_bytes")
        if "memory.limit_bytes" in h:
            cg = (rd(os.path.join(tree, "proc/self/cgroup")) or "").strip().split("::", 1)[-1]
            v = (rd(os.path.join(tree, "sys/fs/cgroup" + cg, "memory.max")) or "").strip()
            chk(v == str(h["memory.limit_bytes"]), "memory.limit_bytes")
    nodes = os.path.join(tree, "sys/devices/system/node")
    n = len([x for x in os.listdir(nodes) if re.match(r"node\d+$", x)]) if os.path.isdir(nodes) else 0
    chk(n == exp.get("numa_node_count"), "numa_node_count %d" % n)
    for k, v in exp.get("numa_nodes", {}).items():
        d = os.path.join(nodes, "node" + k)
        if "cpulist" in v:
            chk((rd(os.path.join(d, "cpulist")) or "").strip() == v["cpulist"], "node%s cpulist" % k)
        m = re.search(r"MemTotal:\s+(\d+) kB", rd(os.path.join(d, "meminfo")) or "")
        chk(m and int(m.group(1)) * 1024 == v.get("memory_bytes"), "node%s memory" % k)
        if "distances" in v:
            chk((rd(os.path.join(d, "distance")) or "").split() == [str(x) for x in v["distances"]],
                "node%s distances" % k)
    for e in errs:
        print("MISMATCH", e)
    print("%s: %d mismatches" % (exp.get("node"), len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
