#!/usr/bin/env python3
"""Convert an hwloc 2.x XML export (lstopo --of xml) into a node spec for mktree.py.

usage: hwloc2tree.py [--name NAME] [--provenance TEXT] [--max-gen N] TOPOLOGY.xml > SPEC.json

Only facts present in the export go into the spec:
  host           packages (sockets), the CPU model, vendor, family/model/stepping,
                 the PUs of each package (numbered 0.. in package order: an export
                 trimmed to a few PUs keeps its sockets and NUMA nodes but not the
                 original PU numbers), NUMA nodes with their memory and the NUMA
                 distance matrix;
  PCI            host bridges (bridge_type 0-1, no address) become roots on the bus
                 their range starts with, on the NUMA node of the package holding
                 them; bridges and devices keep their address, class + prog-if, ids,
                 subsystem ids and revision from pci_type
                 ("cccc [vvvv:dddd] [ssss:ssss] rr pp");
                 a device whose pci_type is all zero (its config space could not be
                 read) keeps its address only;
  link           pci_link_speed (GB/s, current) becomes the current speed and width
                 when exactly one (generation <= --max-gen, width) gives it;
  driver         "nvidia" for a device that NVML described (an OSDev of the NVML
                 backend needs the nvidia driver bound); nothing else.
Nothing else is invented: a fact the export lacks is left out of the spec.
"""

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

LANE_GBPS = {1: 0.25, 2: 0.5, 3: 128 / 130, 4: 2 * 128 / 130, 5: 4 * 128 / 130}
SPEED = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe",
         5: "32.0 GT/s PCIe"}


def info(obj, name):
    for i in obj.findall("info"):
        if i.get("name") == name:
            return i.get("value")
    return None


def link_of(gbps, max_gen):
    if gbps is None:
        return None
    v = float(gbps)
    hits = [(g, w) for g in LANE_GBPS if g <= max_gen for w in (1, 2, 4, 8, 16, 32)
            if abs(LANE_GBPS[g] * w - v) < 0.01]
    if len(hits) != 1:
        return None
    g, w = hits[0]
    return {"cur_speed": SPEED[g], "cur_width": w}


def pci_node(obj, max_gen):
    bdf = obj.get("pci_busid")
    m = re.match(r"([0-9a-f]{4}) \[([0-9a-f]{4}):([0-9a-f]{4})\] \[([0-9a-f]{4}):([0-9a-f]{4})\] "
                 r"([0-9a-f]{2}) ([0-9a-f]{2})$", obj.get("pci_type", ""))
    node = {"bdf": bdf}
    if m and m.group(2) != "0000":
        cls, ven, dev, sven, sdev, rev, progif = m.groups()
        node["id"] = "%s:%s" % (ven, dev)
        if sven != "0000" or sdev != "0000":
            node["sub"] = "%s:%s" % (sven, sdev)
        node["class"] = "0x%s%s" % (cls, progif)
        node["rev"] = "0x" + rev
    link = link_of(obj.get("pci_link_speed"), max_gen)
    if link and "id" in node:
        node["link"] = link
    if any(o.get("type") == "OSDev" and info(o, "Backend") == "NVML" for o in obj.findall("object")):
        node["driver"] = "nvidia"
    kids = [pci_node(o, max_gen) for o in obj.findall("object") if o.get("type") in ("Bridge", "PCIDev")]
    if kids:
        node["children"] = kids
    return node


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--name")
    ap.add_argument("--provenance", default="")
    ap.add_argument("--max-gen", type=int, default=5)
    ap.add_argument("xml")
    a = ap.parse_args(argv[1:])
    top = ET.parse(a.xml).getroot()
    machine = top.find("object")
    packages = [o for o in machine.iter("object") if o.get("type") == "Package"]
    pkg0 = packages[0]
    pus = [len([o for o in p.iter("object") if o.get("type") == "PU"]) for p in packages]
    if len(set(pus)) != 1:
        raise SystemExit("packages with different PU counts are not supported")
    numa = []
    roots = []
    for p in packages:
        nodes = [o for o in p.iter("object") if o.get("type") == "NUMANode"]
        if len(nodes) != 1:
            raise SystemExit("one NUMA node per package is supported")
        nid = int(nodes[0].get("os_index"))
        numa.append({"memory_kb": int(nodes[0].get("local_memory")) // 1024})
        for hb in p.findall("object"):
            if hb.get("type") != "Bridge" or hb.get("bridge_type") != "0-1":
                continue
            m = re.match(r"([0-9a-f]{4}):\[([0-9a-f]{2})-[0-9a-f]{2}\]$", hb.get("bridge_pci", ""))
            devs = [pci_node(o, a.max_gen) for o in hb.findall("object") if o.get("type") in ("Bridge", "PCIDev")]
            roots.append({"root": "%s:%s" % (m.group(1), m.group(2)), "numa": nid, "devices": devs})
    dist = top.find("distances2")
    distances = None
    if dist is not None and dist.get("type") == "NUMANode":
        vals = [int(x) for v in dist.findall("u64values") for x in v.text.split()]
        n = int(dist.get("nbobjs"))
        distances = [vals[i * n:(i + 1) * n] for i in range(n)]
    cpu = {"arch": info(top, "Architecture") or "x86_64", "vendor_id": info(pkg0, "CPUVendor"),
           "model_name": info(pkg0, "CPUModel"), "sockets": len(packages),
           "cores_per_socket": pus[0], "threads_per_core": 1, "numa_per_socket": 1}
    for key, name in (("family", "CPUFamilyNumber"), ("model", "CPUModelNumber"), ("stepping", "CPUStepping")):
        if info(pkg0, name) is not None:
            cpu[key] = int(info(pkg0, name))
    host = {"cpu": cpu, "memory_kb": sum(x["memory_kb"] for x in numa), "numa": numa}
    if distances:
        host["numa_distances"] = distances
    spec = {"name": a.name or "hwloc", "provenance": a.provenance, "host": host, "pci": roots,
            "drivers": {"nvidia": {"module": "nvidia"}}, "pci_defaults": False}
    json.dump(spec, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
