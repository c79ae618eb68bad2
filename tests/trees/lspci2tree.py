#!/usr/bin/env python3
"""Convert an lspci capture into a node spec for mktree.py.

usage: lspci2tree.py [--pci-ids FILE] [--name NAME] [--provenance TEXT]
                     [--host HOST.json] LSPCI.txt[.gz] > SPEC.json

Understands plain `lspci`, `lspci -nn` and `lspci -vvv` (with or without -nn).
Only facts present in the listing go into the spec:
  ids and class      from "[vvvv:dddd]" / "[cccc]" (-nn) or, for listings that
                     print names only, by reverse lookup of the printed vendor /
                     device / class names in pci.ids (omitted when not found);
  revision           "(rev xx)";  prog-if "(prog-if xx ...)" in -v listings
                     (absent there means 00; listings without -v never show it,
                     the spec then records the assumption prog-if=00);
  subsystem ids      "Subsystem:" line;
  driver             "Kernel driver in use:";
  NUMA node          "NUMA node:";
  link speed/width   LnkSta (current), LnkCap2 / LnkCap (maximum);
  hierarchy          bridges' "Bus: primary= secondary= subordinate=";
                     listings without it put every function of a PCI domain flat
                     under that domain's lowest bus.
Nothing else is invented: a fact the listing lacks is left out of the spec, so
the tree built from it lacks that file.  --host merges a separately sourced
"host" section (it is not derived from the listing).
"""

import argparse
import gzip
import json
import re
import sys

PORT_TYPES = {
    "Endpoint": 0x0, "Legacy Endpoint": 0x1, "Root Port": 0x4, "Upstream Port": 0x5,
    "Downstream Port": 0x6, "PCI-Express to PCI/PCI-X Bridge": 0x7,
    "PCI/PCI-X to PCI-Express Bridge": 0x8, "Root Complex Integrated Endpoint": 0x9,
    "Root Complex Event Collector": 0xA,
}


class PciIds:
    def __init__(self, path):
        self.vendors = {}      # id -> name
        self.vnames = {}       # name -> set(ids)
        self.devices = {}      # vid -> {did: name}
        self.subsys = {}       # (vid, did) -> {(svid, sdid): name}
        self.classes = {}      # name -> set("ccss")
        self.version = None
        if not path:
            return
        try:
            f = open(path, encoding="utf-8", errors="replace")
        except OSError:
            return
        vid = did = None
        cls = None
        with f:
            for line in f:
                if line.startswith("#"):
                    m = re.match(r"#\s+Version:\s+(\S+)", line)
                    if m:
                        self.version = m.group(1)
                    continue
                if not line.strip():
                    continue
                if line.startswith("C "):
                    m = re.match(r"C ([0-9a-f]{2})\s+(.*)", line.rstrip("\n"))
                    cls = m.group(1)
                    vid = None
                    self.classes.setdefault(m.group(2).strip(), set()).add(cls + "XX")
                    continue
                if cls is not None and line.startswith("\t") and not line.startswith("\t\t"):
                    m = re.match(r"\t([0-9a-f]{2})\s+(.*)", line.rstrip("\n"))
                    if m:
                        self.classes.setdefault(m.group(2).strip(), set()).add(cls + m.group(1))
                    continue
                if cls is not None and line.startswith("\t\t"):
                    continue
                m = re.match(r"([0-9a-f]{4})\s+(.*)", line.rstrip("\n"))
                if m:
                    cls = None
                    vid = m.group(1)
                    self.vendors[vid] = m.group(2).strip()
                    self.vnames.setdefault(m.group(2).strip(), set()).add(vid)
                    continue
                m = re.match(r"\t([0-9a-f]{4})\s+(.*)", line.rstrip("\n"))
                if m and vid and cls is None:
                    did = m.group(1)
                    self.devices.setdefault(vid, {})[did] = m.group(2).strip()
                    continue
                m = re.match(r"\t\t([0-9a-f]{4}) ([0-9a-f]{4})\s+(.*)", line.rstrip("\n"))
                if m and vid and did and cls is None:
                    self.subsys.setdefault((vid, did), {})[(m.group(1), m.group(2))] = m.group(3).strip()

    def split_vendor(self, text):
        """'NVIDIA Corporation Device 2330' -> ('10de', 'Device 2330')."""
        best = None
        for name, ids in self.vnames.items():
            if len(ids) != 1:
                continue
            if text == name or text.startswith(name + " "):
                if best is None or len(name) > len(best[0]):
                    best = (name, next(iter(ids)))
        if not best:
            return None, text
        return best[1], text[len(best[0]):].strip()

    def device_id(self, vid, rest):
        m = re.fullmatch(r"Device ([0-9a-f]{4})", rest)
        if m:
            return m.group(1)
        hits = [d for d, n in self.devices.get(vid, {}).items() if n == rest]
        return hits[0] if len(hits) == 1 else None     # ambiguous names stay unknown

    def class_code(self, name):
        # lspci prints the subclass name when pci.ids knows the subclass and the
        # class name otherwise; a name that is a known subclass name is taken as
        # that subclass (e.g. "Bridge" -> 0680), only when it names exactly one.
        codes = [c for c in self.classes.get(name, ()) if not c.endswith("XX")]
        return codes[0] if len(codes) == 1 else None


def link_speed(tok):
    """'32GT/s' -> '32.0 GT/s PCIe' (kernel pci_speed_string spelling)."""
    m = re.match(r"([0-9.]+)GT/s", tok)
    if not m:
        return None
    v = m.group(1)
    return "%s GT/s PCIe" % ({"2.5": "2.5", "5": "5.0", "8": "8.0", "16": "16.0",
                              "32": "32.0", "64": "64.0"}.get(v, v))


HDR = re.compile(
    r"^(?P<bdf>(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) "
    r"(?P<cls>[^:\[]+?)(?: \[(?P<ccode>[0-9a-f]{4})\])?: (?P<rest>.*)$")


def parse(text, ids):
    funcs = []
    cur = None
    notes = set()
    for raw in text.splitlines():
        line = raw.rstrip()
        m = HDR.match(line)
        if m:
            cur = {"bdf": m.group("bdf"), "clsname": m.group("cls").strip(),
                   "ccode": m.group("ccode"), "details": []}
            if cur["bdf"].count(":") == 1:
                cur["bdf"] = "0000:" + cur["bdf"]
            rest = m.group("rest")
            pm = re.search(r" \(prog-if ([0-9a-f]{2})(?: \[[^\]]*\])?\)$", rest)
            if pm:
                cur["progif"] = pm.group(1)
                rest = rest[:pm.start()]
            rm = re.search(r" \(rev ([0-9a-f]{2})\)$", rest)
            if rm:
                cur["rev"] = rm.group(1)
                rest = rest[:rm.start()]
            im = re.search(r" \[([0-9a-f]{4}):([0-9a-f]{4})\]$", rest)
            if im:
                cur["vid"], cur["did"] = im.group(1), im.group(2)
                cur["nn"] = True
            else:
                hm = re.fullmatch(r"Device ([0-9a-f]{4}):([0-9a-f]{4})", rest)
                if hm:
                    cur["vid"], cur["did"] = hm.group(1), hm.group(2)
                else:
                    vid, drest = ids.split_vendor(rest)
                    if vid:
                        cur["vid"] = vid
                        did = ids.device_id(vid, drest)
                        if did:
                            cur["did"] = did
                        else:
                            notes.add("device name absent from or ambiguous in pci.ids: %r" % rest)
                    else:
                        notes.add("vendor name not resolvable in pci.ids: %r" % rest)
            funcs.append(cur)
            continue
        if cur is not None and (line.startswith("\t") or line.startswith("    ")):
            cur["details"].append(line.strip())
    return funcs, notes


def analyse(f, ids):
    """Fill derived facts of one function from its detail lines."""
    d = f["details"]
    verbose = bool(d) and any(x.startswith(("Control:", "Status:", "Capabilities:", "Kernel"))
                              for x in d)
    f["verbose"] = verbose
    for x in d:
        m = re.match(r"Subsystem: (.*)$", x)
        if m:
            s = m.group(1)
            im = re.search(r" \[([0-9a-f]{4}):([0-9a-f]{4})\]$", s)
            if im:
                f["sub"] = "%s:%s" % (im.group(1), im.group(2))
            else:
                svid, srest = ids.split_vendor(s)
                sdid = None
                if svid:
                    m2 = re.fullmatch(r"Device ([0-9a-f]{4})", srest)
                    if m2:
                        sdid = m2.group(1)
                    elif f.get("vid") and f.get("did"):
                        names = ids.subsys.get((f["vid"], f["did"]), {})
                        hits = [k for k, n in names.items() if k[0] == svid and n == srest]
                        if len(hits) == 1:
                            sdid = hits[0][1]
                        elif svid == f["vid"] and ids.devices.get(f["vid"], {}).get(f["did"]) == srest:
                            sdid = f["did"]
                if svid and sdid:
                    f["sub"] = "%s:%s" % (svid, sdid)
        m = re.match(r"Interrupt: pin [A-D] routed to IRQ (\d+)", x)
        if m:
            f["irq"] = int(m.group(1))
        m = re.match(r"Region (\d+): (Memory|I/O ports) at ([0-9a-f]+)(?: \(([^)]*)\))?"
                     r"(?: \[(?:virtual|disabled)\])*(?: \[size=(\d+)([KMGT]?)\])?", x)
        if m and m.group(5):
            size = int(m.group(5)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30,
                                      "T": 1 << 40}[m.group(6)]
            kind = "io" if m.group(2) == "I/O ports" else "mem"
            attrs = m.group(4) or ""
            if kind == "mem":
                kind += "64" if "64-bit" in attrs else "32"
                if "non-prefetchable" not in attrs and "prefetchable" in attrs:
                    kind += "p"
            f.setdefault("bars", []).append([int(m.group(1)), "0x" + m.group(3), size, kind])
        m = re.match(r"Kernel driver in use: (\S+)", x)
        if m:
            f["driver"] = m.group(1)
        m = re.match(r"NUMA node: (-?\d+)", x)
        if m:
            f["numa"] = int(m.group(1))
        m = re.match(r"IOMMU group: (\d+)", x)
        if m:
            f["iommu_group"] = int(m.group(1))
        m = re.match(r"Bus: primary=([0-9a-f]{2}), secondary=([0-9a-f]{2}), subordinate=([0-9a-f]{2})", x)
        if m:
            f["primary"], f["secondary"], f["subordinate"] = (int(m.group(i), 16) for i in (1, 2, 3))
        m = re.match(r"Capabilities: \[[0-9a-f]+\] Express \(v\d\) (.*?)(?:, MSI \d+|, IntMsgNum \d+)?$", x)
        if m:
            pt = re.sub(r" \(Slot[+-]\)", "", m.group(1)).strip()
            if pt in PORT_TYPES:
                f["port_type"] = PORT_TYPES[pt]
        m = re.match(r"LnkCap:\s+Port #\d+, Speed (\S+?), Width x(\d+)", x)
        if m:
            f["cap_speed"], f["cap_width"] = link_speed(m.group(1)) or "Unknown", int(m.group(2))
        m = re.match(r"LnkSta:\s+Speed (\S+?)(?: \([^)]*\))?, Width x(\d+)", x)
        if m:
            f["sta_speed"], f["sta_width"] = link_speed(m.group(1)) or "Unknown", int(m.group(2))
        m = re.match(r"LnkCap2: Supported Link Speeds: (?:[0-9.]+-)?([0-9.]+GT/s)", x)
        if m:
            f["cap2_speed"] = link_speed(m.group(1))


def build_spec(funcs, ids, name, provenance, notes):
    for f in funcs:
        analyse(f, ids)
    any_verbose = any(f["verbose"] for f in funcs)
    assumptions = []
    by_bdf = {f["bdf"]: f for f in funcs}
    bridges = {}
    for f in funcs:
        if "secondary" in f:
            bridges[(f["bdf"][:4], f["secondary"])] = f
    have_hierarchy = bool(bridges)
    nodes = {}
    for f in funcs:
        n = {"bdf": f["bdf"]}
        if f.get("vid") and f.get("did"):
            n["id"] = "%s:%s" % (f["vid"], f["did"])
        if f.get("sub"):
            n["sub"] = f["sub"]
        cc = f.get("ccode") or ids.class_code(f["clsname"])
        if cc:
            if "progif" in f:
                pi = f["progif"]
            else:
                pi = "00"
                if not f["verbose"]:
                    assumptions.append(f["bdf"])
            n["class"] = "0x%s%s" % (cc, pi)
        else:
            notes.add("class name not resolvable: %r" % f["clsname"])
        if "rev" in f:
            n["rev"] = "0x" + f["rev"]
        else:
            n["rev"] = "0x00"      # lspci prints "(rev xx)" only when it is not 00
        if "driver" in f:
            n["driver"] = f["driver"]
        if "irq" in f:
            n["irq"] = f["irq"]
        elif f["verbose"]:
            n["irq"] = 0           # -v prints "Interrupt:" whenever irq or pin is set
        if "bars" in f:
            n["bars"] = f["bars"]
        elif f["verbose"]:
            n["bars"] = []         # -v lists every assigned region
        if "numa" in f:
            n["numa"] = f["numa"]
        if "iommu_group" in f:
            n["iommu_group"] = f["iommu_group"]
        if "port_type" in f:
            n["port_type"] = f["port_type"]
        if "sta_speed" in f or "cap_speed" in f:
            link = {}
            if "sta_speed" in f:
                link["cur_speed"], link["cur_width"] = f["sta_speed"], f["sta_width"]
            mx = f.get("cap2_speed") or f.get("cap_speed")
            if mx:
                link["max_speed"] = mx
            if "cap_width" in f:
                link["max_width"] = f["cap_width"]
            n["link"] = link
        if "secondary" in f:
            n["secondary"] = f["secondary"]
            n["subordinate"] = f["subordinate"]
        n["children"] = []
        nodes[f["bdf"]] = n
    roots = {}
    if have_hierarchy:
        for f in funcs:
            dom, bus = f["bdf"][:4], int(f["bdf"][5:7], 16)
            parent = bridges.get((dom, bus))
            if parent is not None and parent is not f:
                nodes[parent["bdf"]]["children"].append(nodes[f["bdf"]])
            else:
                roots.setdefault("%s:%02x" % (dom, bus), []).append(nodes[f["bdf"]])
    else:
        lowest = {}
        for f in funcs:
            dom, bus = f["bdf"][:4], int(f["bdf"][5:7], 16)
            lowest[dom] = min(lowest.get(dom, 255), bus)
        for f in funcs:
            dom = f["bdf"][:4]
            roots.setdefault("%s:%02x" % (dom, lowest[dom]), []).append(nodes[f["bdf"]])

    def prune(n):
        if not n["children"]:
            del n["children"]
        else:
            n["children"].sort(key=lambda c: c["bdf"])
            for c in n["children"]:
                prune(c)
    pci = []
    for r in sorted(roots):
        devs = sorted(roots[r], key=lambda c: c["bdf"])
        for dnode in devs:
            prune(dnode)
        pci.append({"root": r, "devices": devs})
    spec = {"name": name, "provenance": provenance}
    lim = []
    if assumptions:
        lim.append("listing has no -v detail: prog-if byte of the class code is not shown, "
                   "written as 00 for %d functions" % len(assumptions))
    if not have_hierarchy:
        lim.append("listing has no bridge bus numbers: functions placed flat under each "
                   "domain's lowest bus")
    if not any_verbose:
        lim.append("no NUMA node, link, driver or subsystem facts in listing: those files are absent")
    if ids.version:
        lim.append("names resolved with pci.ids %s" % ids.version)
    lim.extend(sorted(notes))
    spec["limits"] = lim
    spec["pci"] = pci
    spec["proc_devices"] = False
    spec["pci_defaults"] = False
    return spec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lspci")
    ap.add_argument("--pci-ids", default=None)
    ap.add_argument("--name", default=None)
    ap.add_argument("--provenance", default="")
    ap.add_argument("--host", default=None)
    a = ap.parse_args()
    path = a.pci_ids
    if path is None:
        for cand in ("/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"):
            try:
                open(cand).close()
                path = cand
                break
            except OSError:
                continue
    ids = PciIds(path)
    opener = gzip.open if a.lspci.endswith(".gz") else open
    with opener(a.lspci, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    funcs, notes = parse(text, ids)
    name = a.name or re.sub(r"\.txt(\.gz)?$", "", a.lspci.split("/")[-1])
    spec = build_spec(funcs, ids, name, a.provenance, notes)
    if a.host:
        with open(a.host) as f:
            h = json.load(f)
        spec["host"] = h.get("host", h)
        if "host_provenance" in h:
            spec["host_provenance"] = h["host_provenance"]
    sys.stdout.write(dump(spec) + "\n")
    return 0


def dump(v, ind=0):
    """JSON with one PCI function per line (children indented below it)."""
    pad = " " * ind
    if isinstance(v, dict) and ("bdf" in v or "root" in v):
        key = "children" if "children" in v else ("devices" if "devices" in v else None)
        if key:
            head = json.dumps({k: x for k, x in v.items() if k != key}, separators=(", ", ": "))[:-1]
            inner = ",\n".join(dump(c, ind + 1) for c in v[key])
            return pad + head + ', "%s": [\n' % key + inner + "\n" + pad + "]}"
        return pad + json.dumps(v, separators=(", ", ": "))
    if isinstance(v, dict):
        items = [pad + " " + json.dumps(k) + ": " + dump(x, ind + 1).lstrip(" ") for k, x in v.items()]
        return pad + "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return pad + "[\n" + ",\n".join(dump(x, ind + 1) for x in v) + "\n" + pad + "]"
    return pad + json.dumps(v, separators=(", ", ": "))


if __name__ == "__main__":
    sys.exit(main())
