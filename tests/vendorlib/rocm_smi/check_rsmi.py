#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl's ROCm SMI backend against the ROCm SMI test double (tests/vendorlib/rocm_smi/double), which
answers from real `rocm-smi --showallinfo --json` captures (and, for facts such a capture
cannot hold, an extra file). The expected values are read from the same files here, with
Python's own JSON reader, so the double, axl's backend and this checker are three separate
readings of one capture.

  check_rsmi.py --axl build/axl --double build/tests/vendorlib/rocm_smi/double/librocm_smi64.so.7 \
      --old build/tests/vendorlib/rocm_smi/double_old/librocm_smi64.so.5 --work build/rocm_smi \
      --case json:telegraf-mi100_rocm571 | --case fault:hang | --list

Cases: json:<capture> (ROCm SMI alone, on an empty sysroot), tree:<capture> (on a sysfs
tree holding the capture's GPUs bound to amdgpu), board:<node> (a full real-topology tree
of tests/trees/nodes with its synthetic capture), fault:<kind>, capture:<name> (axl
capture with the double, replayed without it). Prints "N passed, N failed".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "double", "fixtures")
TREES = os.path.join(HERE, "..", "..", "trees")

passed = 0
failed = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def eq(got, want, what):
    ok(got == want, "%s: got %r, want %r" % (what, got, want))


# ---- reading a capture (independently of the double) ------------------------------------------

def captures():
    return sorted(f[:-5] for f in os.listdir(FIXTURES) if f.endswith(".json"))


def extra_path(name):
    """The extra file of a capture: <name>.extra, or the one its family shares."""
    for cand in (name, re.sub(r"_rocm\d+$", "", name)):
        p = os.path.join(FIXTURES, cand + ".extra")
        if os.path.exists(p):
            return p
    return None


def present(v):
    return v is not None and v.strip() != "" and not v.strip().startswith("N/A") and v.strip() not in (
        "Unsupported", "unknown")


def first(card, *keys):
    for k in keys:
        if k in card:
            return card[k]
    return None


def address(bus):
    dom, b, rest = bus.split(":")
    dev, fn = rest.split(".")
    return "%04x:%02x:%02x.%x" % (int(dom, 16), int(b, 16), int(dev, 16), int(fn, 16))


class Capture:
    def __init__(self, name):
        self.name = name
        with open(os.path.join(FIXTURES, name + ".json")) as f:
            doc = json.load(f)
        self.system = doc.get("system", {})
        keys = sorted((k for k in doc if re.match(r"^card\d+$", k)), key=lambda k: int(k[4:]))
        self.cards = [doc[k] for k in keys]
        self.keys = keys
        self.partition = [0] * len(self.cards)
        self.clocks = [{} for _ in self.cards]   # "sys"/"mem" -> (levels, current or None)
        self.power = [{} for _ in self.cards]
        self.modes = [{} for _ in self.cards]    # "compute"/"memory" -> mode
        self.links = {}                          # (a, b) a < b -> {type, hops, min, max, p2p}
        topo = {}
        for k, v in self.system.items():
            m = re.match(r"^\(Topology\) (Weight|Hops|Link type) between DRM devices (\d+) and (\d+)$", k)
            if m:
                a, b = sorted((int(m.group(2)), int(m.group(3))))
                topo.setdefault((a, b), {})[m.group(1)] = v
        for pair, t in topo.items():
            link = self.links.setdefault(pair, {})
            if "Link type" in t:
                link["type"] = t["Link type"].lower()
            if "Hops" in t:
                link["hops"] = int(t["Hops"])
        path = extra_path(name)
        if path:
            self.read_extra(path)

    def select(self, sel):
        if sel == "*":
            return list(range(len(self.cards)))
        if sel.startswith("card"):
            return [self.keys.index(sel)]
        return [i for i, c in enumerate(self.cards) if "PCI Bus" in c and address(c["PCI Bus"]) == address(sel)]

    def read_extra(self, path):
        for line in open(path):
            f = line.split("#")[0].split()
            if not f:
                continue
            kv = dict(x.split("=", 1) for x in f if "=" in x)
            if f[0] == "clocks":
                cur = int(kv["current"]) if "current" in kv else None
                for i in self.select(f[1]):
                    self.clocks[i][f[2]] = ([int(x) for x in kv["levels"].split(",")], cur)
            elif f[0] == "power":
                for i in self.select(f[1]):
                    self.power[i].update({k: float(v) for k, v in kv.items()})
            elif f[0] == "partition":
                for i in self.select(f[1]):
                    if "id" in kv:
                        self.partition[i] = int(kv["id"])
                    for m in ("compute", "memory"):
                        if m in kv:
                            self.modes[i][m] = kv[m]
            elif f[0] == "hive":
                pass
            elif f[0] == "link":
                for a in self.select(f[1]):
                    for b in self.select(f[2]):
                        if a != b:
                            link = self.links.setdefault(tuple(sorted((a, b))), {})
                            for k in ("type", "hops", "min", "max", "p2p"):
                                if k in kv:
                                    link[k] = kv[k] if k == "type" else int(kv[k])
            else:
                raise SystemExit("%s: unknown extra record %s" % (path, f[0]))

    def gpus(self):
        """(index, card) of the whole GPUs (partition 0) that have a PCI address"""
        return [(i, c) for i, c in enumerate(self.cards) if "PCI Bus" in c and self.partition[i] == 0]

    def clock(self, i, which):
        """(current MHz or None, max MHz or None) of clock 'sys'/'mem' of card i"""
        prefix = "sclk" if which == "sys" else "mclk"
        card = self.cards[i]
        speed = card.get(prefix + " clock speed:")
        level = card.get(prefix + " clock level:")
        if which in self.clocks[i]:
            levels, cur = self.clocks[i][which]
            if cur is None:
                cur = int(level) if present(level) else 0
        elif present(speed):
            levels, cur = [int(re.match(r"^\(?(\d+)", speed).group(1))], 0
        else:
            return None, None
        top = max(levels)
        return (levels[cur] if cur < len(levels) else None), (top if top > 0 else None)


# ---- running axl ----------------------------------------------------------------------------------

HOST = {"hostname": "rsmi-test", "osrelease": "6.1.0", "memory_kb": 16000000, "numa": [{"memory_kb": 16000000}],
        "cpu": {"arch": "x86_64", "vendor_id": "AuthenticAMD", "family": 25, "model": 1, "stepping": 1,
                "model_name": "EPYC", "sockets": 1, "cores_per_socket": 4, "threads_per_core": 1,
                "flags": "fpu sse2 avx2"}}


def tree_for(cap, work, asleep=(), no_hwmon=()):
    """A sysfs tree holding the capture's GPUs as PCI functions bound to amdgpu (built by
    tests/trees/mktree.py): ids, the VBIOS version and the driver version in sysfs, the
    rest for ROCm SMI to tell: each GPU's hwmon directory holds only its name (as amdgpu
    leaves it when every attribute is hidden, hwmon_attributes_visible), so the power caps
    ROCm SMI reads there come from the capture. asleep: addresses whose runtime PM status
    is suspended; no_hwmon: addresses without a hwmon directory (amdgpu with DPM off)."""
    devices = []
    for i, c in cap.gpus():
        addr = address(c["PCI Bus"])
        did = int(first(c, "Device ID", "GPU ID"), 16)
        dev = {"bdf": addr, "id": "1002:%04x" % did, "class": "0x030000", "driver": "amdgpu", "attrs": {},
               "classdev": [{"class": "hwmon", "name": "hwmon%d" % (len(devices) + 1), "attrs": {"name": "amdgpu"}}]}
        if present(c.get("VBIOS version")):
            dev["attrs"]["vbios_version"] = c["VBIOS version"]
        if addr in asleep:
            dev["attrs"]["power"] = {"dir": {"runtime_status": "suspended", "control": "auto"}}
        if addr in no_hwmon:
            del dev["classdev"]
        devices.append(dev)
    roots = {}
    for d in devices:
        roots.setdefault(d["bdf"][:4], []).append(d)
    spec = {"name": "rsmi", "provenance": "generated from " + cap.name, "host": HOST,
            "pci": [{"root": dom + ":00", "numa": 0, "devices": devs} for dom, devs in sorted(roots.items())],
            "drivers": {"amdgpu": {"module": "amdgpu", "version": cap.system.get("Driver version", "1.0")}}}
    out = os.path.join(work, "tree-" + cap.name + ("-asleep" if asleep else "") + ("-nohwmon" if no_hwmon else ""))
    with open(out + ".json", "w") as f:
        json.dump(spec, f)
    subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"), out + ".json", out], check=True)
    return out


def node_tree(name, work):
    out = os.path.join(work, "tree-" + name)
    subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"), os.path.join(TREES, "nodes", name + ".json"),
                    out], check=True)
    return out


def double_env(args, cap_name, lib=None, **more):
    env = {"AXL_ROCM_SMI_LIBRARY": lib or args.double,
           "AXL_RSMI_DOUBLE_JSON": os.path.join(FIXTURES, cap_name + ".json")}
    x = extra_path(cap_name)
    if x:
        env["AXL_RSMI_DOUBLE_EXTRA"] = x
    env.update(more)
    return env


def run(args, env_extra, root=None, timeout=60, extra_args=()):
    if root is None:
        root = os.path.join(args.work, "empty-root")
        os.makedirs(root, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    env.update(env_extra)
    t0 = time.monotonic()
    p = subprocess.run([args.axl, "list", "--json", "--sysroot", root] + list(extra_args), env=env,
                       capture_output=True, text=True, timeout=timeout)
    took = time.monotonic() - t0
    doc = json.loads(p.stdout) if p.returncode == 0 else None
    return p, doc, took


def warnings(doc):
    return [w["message"] for w in doc.get("warnings", [])]


# ---- what axl must say about a capture --------------------------------------------------------------

def check_capture(args, cap, doc, tag, tree, old=False, devicedb=True):
    """Every GPU of the capture against axl's document. tree: sysfs also knows the GPU
    (ids, VBIOS, driver version, NUMA node: those keep source sysfs)."""
    devs = {d.get("pci", {}).get("address"): d for d in doc["devices"]}
    gpus = cap.gpus()
    eq(len(doc["devices"]), len(gpus), tag + ": number of GPUs")
    driver = cap.system.get("Driver version")
    for i, c in gpus:
        addr = address(c["PCI Bus"])
        d = devs.get(addr)
        ok(d is not None, "%s: GPU %s listed" % (tag, addr))
        if d is None:
            continue
        t = "%s %s" % (tag, addr)
        fs = d.get("field_sources", {})
        sysfs_or_rsmi = "sysfs" if tree else "rocm-smi"
        eq(fs.get("pci.address"), sysfs_or_rsmi, t + " address source")
        eq(d.get("vendor_id"), "0x1002", t + " vendor id")
        eq(d.get("device_id"), "0x%04x" % int(first(c, "Device ID", "GPU ID"), 16), t + " device id")
        eq(fs.get("device_id"), sysfs_or_rsmi, t + " device id source")
        if not tree:
            rev = c.get("Device Rev")
            eq(d.get("revision"), "0x%02x" % int(rev, 16) if rev and not old else None, t + " revision")
        name = first(c, "Device Name", "Card series", "Card Series")
        usable = present(name) and not re.match(r"^0x[0-9a-fA-F]+$", name)
        if fs.get("model") == "rocm-smi":
            eq(d.get("model"), name, t + " model")
        if not devicedb and not tree and usable:
            eq((d.get("model"), fs.get("model")), (name, "rocm-smi"), t + " model without the device database")
        ok(usable or fs.get("model") != "rocm-smi", t + " no model from a bare id")
        uid = c.get("Unique ID")
        if present(uid) and int(uid, 16):
            eq(d.get("uuid"), "GPU-%016x" % int(uid, 16), t + " uuid")
        else:
            eq(d.get("uuid"), None, t + " no uuid")
        serial = c.get("Serial Number")
        eq(d.get("serial"), serial if present(serial) else None, t + " serial")
        vbios = c.get("VBIOS version")
        if present(vbios):
            eq(d.get("firmware", {}).get("vbios"), vbios, t + " vbios")
            eq(fs.get("firmware.vbios"), sysfs_or_rsmi, t + " vbios source")
        if driver:
            eq(d.get("driver", {}).get("version"), driver, t + " driver version")
            eq(fs.get("driver.version"), sysfs_or_rsmi, t + " driver version source")
        mem = d.get("memory", {})

        def b(key):
            v = c.get(key)
            return int(v) if present(v) else None
        total = b("VRAM Total Memory (B)")
        if total is None and present(c.get("vram Total Memory (MiB)")):
            total = int(c["vram Total Memory (MiB)"]) << 20
        eq(mem.get("total_bytes"), total, t + " VRAM")
        if total:
            eq(fs.get("memory.total_bytes"), "rocm-smi", t + " VRAM source")
        eq(mem.get("used_bytes"), b("VRAM Total Used Memory (B)"), t + " VRAM used")
        eq(mem.get("visible_bytes"), b("VIS_VRAM Total Memory (B)"), t + " visible VRAM")
        eq(mem.get("gtt_bytes"), b("GTT Total Memory (B)"), t + " GTT")
        numa = c.get("(Topology) Numa Node")
        if tree:
            eq((d.get("numa_node"), fs.get("numa_node")), (0, "sysfs"), t + " NUMA node of the tree")
        elif present(numa):
            eq(d.get("numa_node"), int(numa), t + " NUMA node")
        power = d.get("power", {})
        cap_w = c.get("Max Graphics Package Power (W)")
        eq(power.get("limit_watts"), float(cap_w) if present(cap_w) else None, t + " power cap")
        eq(power.get("default_limit_watts"), cap.power[i].get("default"), t + " default power cap")
        eq(power.get("max_limit_watts"), cap.power[i].get("max"), t + " highest power cap")
        clocks = d.get("clocks", {})
        for which, key in (("sys", "graphics"), ("mem", "memory")):
            cur, top = cap.clock(i, which)
            eq(clocks.get(key + "_mhz"), cur, t + " " + key + " clock")
            eq(clocks.get(key + "_max_mhz"), top, t + " highest " + key + " clock")
        parts = {p["technology"]: p for p in d.get("partitioning", [])}
        for tech, m in (("AMD-CPX", "compute"), ("AMD-NPS", "memory")):
            want = cap.modes[i].get(m) if not old else None
            got = parts.get(tech, {}).get("mode")
            eq(got, want, t + " " + m + " partition mode")
            if want:
                eq(parts[tech].get("source"), "rocm-smi", t + " " + m + " partition source")
    # links between the GPUs: XGMI from ROCm SMI, PCIe pairs left to the tree or NUMA
    ids = {address(c["PCI Bus"]): devs[address(c["PCI Bus"])]["id"] for i, c in gpus if address(c["PCI Bus"]) in devs}
    links = {(l["a"], l["b"]): l for l in doc["links"]}
    index = {i: ids.get(address(c["PCI Bus"])) for i, c in gpus}
    for (a, bb), want in cap.links.items():
        ia, ib = index.get(a), index.get(bb)
        if not ia or not ib:
            continue
        l = links.get((ia, ib)) or links.get((ib, ia))
        t = "%s link %s-%s" % (tag, ia, ib)
        ok(l is not None, t + " exists")
        if not l:
            continue
        if want.get("type") == "xgmi":
            eq((l["kind"], l["source"]), ("xgmi", "rocm-smi"), t + " kind")
            one = want.get("hops") == 1 and want.get("min", 0) > 0
            eq(l.get("bandwidth_gbps"), want["max"] / 1000 if one else None, t + " bandwidth")
            eq(l.get("link_count"), want["max"] // want["min"] if one else None, t + " link count")
            if "p2p" in want:
                eq(l.get("p2p"), {"read": bool(want["p2p"]), "write": bool(want["p2p"]),
                                  "atomics": bool(want["p2p"]), "nvlink": False}, t + " p2p")
        elif not tree:
            numa = [cap.cards[x].get("(Topology) Numa Node") for x in (a, bb)]
            eq(l["kind"], "numa" if numa[0] == numa[1] else "system", t + " kind from NUMA placement")
    eq([w for w in warnings(doc)], [], tag + ": warnings")


def check_json(args, name, tree):
    cap = Capture(name)
    root = tree_for(cap, args.work) if tree else None
    tag = name + (" (sysfs tree)" if tree else " (ROCm SMI alone)")
    p, doc, _ = run(args, double_env(args, name), root=root)
    eq(p.returncode, 0, tag + ": exit code (stderr: %s)" % p.stderr[-400:])
    if doc:
        check_capture(args, cap, doc, tag, tree)
    if not tree:
        p, doc, _ = run(args, double_env(args, name, AXL_BACKENDS="-devicedb"))
        eq(p.returncode, 0, tag + " without the device database: exit code")
        if doc:
            check_capture(args, cap, doc, tag + " without the device database", tree, devicedb=False)


def check_board(args, node):
    """A real-topology tree with every sysfs and KFD fact, and its synthetic capture:
    sysfs keeps what it has, ROCm SMI fills the facts the tree's damage removed."""
    name = {"mi300x-8x": "synthetic-mi300x-8x", "mi300x-2x-cpx-nps4": "synthetic-mi300x-2x-cpx"}[node]
    cap = Capture(name)
    root = node_tree(node, args.work)
    base, _, _ = run(args, {"AXL_BACKENDS": "-rocm-smi"}, root=root)
    base_doc = json.loads(base.stdout)
    p, doc, _ = run(args, double_env(args, name), root=root)
    eq(p.returncode, 0, node + ": exit code (stderr %s)" % p.stderr[-300:])
    if not doc:
        return
    eq(len(doc["devices"]), len(cap.gpus()), node + ": number of GPUs")
    before = {d["id"]: d for d in base_doc["devices"]}
    for d in doc["devices"]:
        b = before[d["id"]]
        fs, bfs = d["field_sources"], b["field_sources"]
        t = node + " " + d["id"]
        # every fact the tree gave stays, with its source
        for k, src in bfs.items():
            eq(fs.get(k), src, t + " keeps the source of " + k)
        added = sorted(k for k in fs if k not in bfs)
        ok(all(fs[k] == "rocm-smi" for k in added), t + " added only ROCm SMI facts: %r" % added)
        eq(len(d.get("children", [])), len(b.get("children", [])), t + " partitions (KFD)")
        i = [x for x, c in cap.gpus() if address(c["PCI Bus"]) == d["pci"]["address"]][0]
        if d["pci"]["address"] == "0000:bf:00.0" and node == "mi300x-8x":
            # its pp_dpm_sclk is damaged ('busy'): the real ROCm SMI reads that same file, and
            # ROCm SMI 5 asserts on it (rocm_smi.real.mi300x-8x), so axl does not ask (rsmi.c
            # dpm_parses) and the current clock stays unknown, whatever the double would say
            eq((d["clocks"].get("graphics_mhz"), fs.get("clocks.graphics_mhz")), (None, None),
               t + " current clock not asked of ROCm SMI")
        if d["pci"]["address"] == "0000:df:00.0" and node == "mi300x-8x":
            # its power1_cap is garbage: the cap comes from ROCm SMI
            eq((d["power"].get("limit_watts"), fs.get("power.limit_watts")), (750.0, "rocm-smi"),
               t + " power cap from ROCm SMI")
    blinks = {(l["a"], l["b"]): l for l in base_doc["links"]}
    for l in doc["links"]:
        bl = blinks.get((l["a"], l["b"]))
        if node == "mi300x-8x":
            eq(l, bl, node + " link %s-%s as the KFD gave it" % (l["a"], l["b"]))
        else:
            # partitioned GPUs: the KFD has no io_links worth reading; ROCm SMI says XGMI
            # and peer-to-peer
            eq((l["kind"], l["source"], l.get("p2p", {}).get("read"), l.get("bandwidth_gbps")),
               ("xgmi", "rocm-smi", True, None), node + " link %s-%s" % (l["a"], l["b"]))
    eq(len(doc["links"]), len(base_doc["links"]), node + ": no link more or less")
    eq(warnings(doc), warnings(base_doc), node + ": only the tree's own warnings")


# ---- faults -----------------------------------------------------------------------------------------

def fault(args, kind):
    mi100 = "telegraf-mi100_rocm571"
    cap = Capture(mi100)
    if kind == "missing-library":
        p, doc, _ = run(args, {"AXL_ROCM_SMI_LIBRARY": os.path.join(args.work, "no-such-librocm_smi64.so.7")},
                        root=tree_for(cap, args.work))
        eq(p.returncode, 0, "missing-library: exit code")
        if doc:
            eq(len(doc["devices"]), 6, "missing-library: the GPUs stay listed from sysfs")
            ok(any("ROCm SMI not loaded" in w for w in warnings(doc)), "missing-library: warning")
    elif kind == "no-capture":
        # the double without a capture: a library on a node without AMD GPUs
        p, doc, _ = run(args, {"AXL_ROCM_SMI_LIBRARY": args.double})
        eq(p.returncode, 0, "no-capture: exit code")
        if doc:
            eq((doc["devices"], warnings(doc)), ([], []), "no-capture: nothing, quietly")
    elif kind == "init":
        p, doc, _ = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_FAIL="rsmi_init=INIT_ERROR"),
                        root=tree_for(cap, args.work))
        eq(p.returncode, 0, "init: exit code")
        if doc:
            eq(len(doc["devices"]), 6, "init: the GPUs stay listed")
            ok(all("rocm-smi" not in d["sources"] for d in doc["devices"]), "init: nothing from ROCm SMI")
            ok(any("rsmi_init: RSMI_STATUS_INIT_ERROR" in w for w in warnings(doc)), "init: warning")
    elif kind == "permission":
        p, doc, _ = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_FAIL="rsmi_dev_memory_usage_get@1=PERMISSION"),
                        root=tree_for(cap, args.work))
        eq(p.returncode, 0, "permission: exit code")
        if doc:
            used = [d.get("memory", {}).get("used_bytes") for d in doc["devices"]]
            ok(used[0] is not None and used[1] is None and all(u is not None for u in used[2:]),
               "permission: only GPU 1 lost its used memory: %r" % used)
            ok(doc["devices"][1].get("memory", {}).get("total_bytes") == 34342961152,
               "permission: GPU 1 keeps its other facts")
            ok(any("RSMI_STATUS_PERMISSION" in w for w in warnings(doc)), "permission: warning")
    elif kind == "no-address":
        # ROCm SMI cannot say where GPU 0 is: its answers are not used, the others are
        p, doc, _ = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_FAIL="rsmi_dev_pci_id_get@0=UNKNOWN_ERROR"),
                        root=tree_for(cap, args.work))
        eq(p.returncode, 0, "no-address: exit code")
        if doc:
            eq(len(doc["devices"]), 6, "no-address: every GPU listed")
            srcs = ["rocm-smi" in d["sources"] for d in doc["devices"]]
            eq(srcs, [False] + [True] * 5, "no-address: only GPU 0 without ROCm SMI")
            ok(any("rsmi_dev_pci_id_get: RSMI_STATUS_UNKNOWN_ERROR" in w for w in warnings(doc)),
               "no-address: warning")
    elif kind == "hang":
        p, doc, took = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_HANG="rsmi_dev_serial_number_get",
                                            AXL_VENDOR_TIMEOUT_MS="700"), root=tree_for(cap, args.work), timeout=30)
        eq(p.returncode, 0, "hang: exit code")
        ok(took < 10, "hang: axl list returned after %.1f s" % took)
        if doc:
            eq(len(doc["devices"]), 6, "hang: the GPUs stay listed")
            ok(any("did not answer" in w for w in warnings(doc)), "hang: a timeout warning")
    elif kind == "nonsense":
        p, doc, _ = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_NONSENSE="1"), root=tree_for(cap, args.work))
        eq(p.returncode, 0, "nonsense: exit code (stderr %s)" % p.stderr[-300:])
        if doc:
            eq(len(doc["devices"]), 6, "nonsense: the GPUs are listed")
            for d in doc["devices"]:
                t = "nonsense " + d["id"]
                eq((d.get("vendor_id"), d.get("device_id")), ("0x1002", "0x738c"), t + ": ids of sysfs")
                for k in ("model", "uuid", "serial"):
                    v = d.get(k)
                    ok(v is None or not any(ord(ch) < 0x20 or ord(ch) == 0x7f for ch in v),
                       "%s: %s has no control characters" % (t, k))
                fs = d["field_sources"]
                eq(sorted(k for k in fs if k.startswith("memory.") and fs[k] == "rocm-smi"), [],
                   t + ": no memory facts from ROCm SMI")
                eq(d.get("clocks", {}), {}, t + ": no clocks")
                eq(d.get("power", {}).get("limit_watts"), None, t + ": no power cap")
                eq(d.get("numa_node"), 0, t + ": the tree's NUMA node")
                eq(d.get("partitioning", []), [], t + ": no partition modes")
            eq([l["source"] for l in doc["links"] if l["source"] == "rocm-smi"], [], "nonsense: no links from ROCm SMI")
            ok(len(warnings(doc)) > 10, "nonsense: warnings say what was dropped")
    elif kind == "old-library":
        # ROCm SMI 5: the ROCm 5 rsmi_frequencies_t, no partition or revision calls
        for name in (mi100, "synthetic-mi300x-8x"):
            c = Capture(name)
            p, doc, _ = run(args, double_env(args, name, lib=args.old))
            eq(p.returncode, 0, "old-library %s: exit code" % name)
            if doc:
                check_capture(args, c, doc, "old-library " + name, False, old=True)
    elif kind == "version-1":
        # Debian's ROCm SMI 5.7 build and ROCm 7.2 both say 1.x: the layout comes from
        # whether rsmi_dev_activity_metric_get exists
        for lib, old in ((args.double, False), (args.old, True)):
            p, doc, _ = run(args, double_env(args, mi100, lib=lib, AXL_RSMI_DOUBLE_VERSION="1.0.0"))
            eq(p.returncode, 0, "version-1: exit code")
            if doc:
                check_capture(args, cap, doc, "version-1 (%s)" % ("old" if old else "current"), False, old=old)
    elif kind == "lying-version":
        # a ROCm 5 library that claims 7.x: axl reads the wrong layout and must not
        # believe it (no crash, no clock from garbage)
        p, doc, _ = run(args, double_env(args, mi100, lib=args.old, AXL_RSMI_DOUBLE_VERSION="7.0.0"))
        eq(p.returncode, 0, "lying-version: exit code")
        if doc:
            for d in doc["devices"]:
                c = d.get("clocks", {})
                ok(all(0 <= v < 100000 for v in c.values()), "lying-version %s: clocks %r" % (d["id"], c))
                eq(d.get("memory", {}).get("total_bytes"), 34342961152, "lying-version %s: the rest as usual" % d["id"])
    elif kind == "asleep":
        # a runtime-suspended GPU is not asked for clocks or power (they would wake it)
        asleep = address(cap.cards[0]["PCI Bus"])
        log = os.path.join(args.work, "asleep.log")
        if os.path.exists(log):
            os.unlink(log)
        p, doc, _ = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_LOG=log),
                        root=tree_for(cap, args.work, asleep=(asleep,)))
        eq(p.returncode, 0, "asleep: exit code")
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        woke = [l for l in lines if re.match(r"^rsmi_dev_(gpu_clk_freq|power_cap\w*)_get\(0,", l)]
        eq(woke, [], "asleep: no clock or power call for GPU 0")
        ok(any(re.match(r"^rsmi_dev_gpu_clk_freq_get\(1,", l) for l in lines), "asleep: GPU 1 asked")
        if doc:
            d = {x["pci"]["address"]: x for x in doc["devices"]}
            eq((d[asleep].get("clocks"), d[asleep].get("power", {}).get("limit_watts")), (None, None),
               "asleep: GPU 0 without clocks and power")
            eq(d[asleep].get("memory", {}).get("total_bytes"), 34342961152, "asleep: GPU 0 keeps its memory")
    elif kind == "no-hwmon":
        # a GPU without a hwmon directory (amdgpu registers none while DPM is off:
        # amdgpu_pm_sysfs_init) is not asked for its power caps: ROCm SMI reads them from
        # hwmon, and ROCm SMI 5 asserts there is one (rocm_smi.cc get_dev_mon_value,
        # rocm-5.2.3), which aborts the process (tests/vendorlib/rocm_smi/real shows it)
        bare = address(cap.cards[0]["PCI Bus"])
        log = os.path.join(args.work, "no-hwmon.log")
        if os.path.exists(log):
            os.unlink(log)
        p, doc, _ = run(args, double_env(args, mi100, AXL_RSMI_DOUBLE_LOG=log),
                        root=tree_for(cap, args.work, no_hwmon=(bare,)))
        eq(p.returncode, 0, "no-hwmon: exit code")
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        eq([l for l in lines if re.match(r"^rsmi_dev_power_cap\w*_get\(0,", l)], [], "no-hwmon: no power call for GPU 0")
        ok(any(re.match(r"^rsmi_dev_power_cap_get\(1,", l) for l in lines), "no-hwmon: GPU 1 asked")
        ok(any(re.match(r"^rsmi_dev_gpu_clk_freq_get\(0,", l) for l in lines), "no-hwmon: GPU 0's clocks asked")
        if doc:
            d = {x["pci"]["address"]: x for x in doc["devices"]}
            eq(d[bare].get("power", {}).get("limit_watts"), None, "no-hwmon: GPU 0 without a power cap")
            eq(d[bare].get("memory", {}).get("total_bytes"), 34342961152, "no-hwmon: GPU 0 keeps its memory")
            eq(warnings(doc), [], "no-hwmon: no warning")
    elif kind == "calls-once":
        log = os.path.join(args.work, "calls.log")
        if os.path.exists(log):
            os.unlink(log)
        p, doc, _ = run(args, double_env(args, "synthetic-mi300x-8x", AXL_RSMI_DOUBLE_LOG=log))
        eq(p.returncode, 0, "calls-once: exit code")
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        eq(len([l for l in lines if l.startswith("rsmi_init(")]), 1, "calls-once: rsmi_init called once")
        ok(0 < len(lines) < 400, "calls-once: %d ROCm SMI calls for 8 GPUs" % len(lines))
    else:
        raise SystemExit("unknown fault " + kind)


# ---- capture and replay ------------------------------------------------------------------------------

def capture(args, name):
    """axl capture with ROCm SMI answering (the double), then the capture replayed on a
    machine without it: the ROCm SMI code runs again on the recorded answers."""
    if name.startswith("synthetic-mi300x-8x"):
        tree = node_tree("mi300x-8x", args.work)
    else:
        tree = tree_for(Capture(name), args.work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    env.update(double_env(args, name))
    cap = os.path.join(args.work, name + ".tar.gz")
    p = subprocess.run([args.axl, "capture", "-o", cap, "--sysroot", tree], env=env, capture_output=True, text=True)
    eq(p.returncode, 0, name + ": axl capture (stderr %s)" % p.stderr[-300:])
    p = subprocess.run([args.axl, "list", "--json", "--all", "--sysroot", tree], env=env, capture_output=True,
                       text=True)
    want = json.loads(p.stdout)
    ok(any("rocm-smi" in d.get("sources", []) for d in want.get("devices", [])), name + ": the live run used ROCm SMI")
    bare = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    p = subprocess.run([args.axl, "list", "--json", "--all", "--sysroot", cap], env=bare, capture_output=True,
                       text=True)
    eq(p.returncode, 0, name + ": replay (stderr %s)" % p.stderr[-300:])
    got = json.loads(p.stdout) if p.returncode == 0 else {}
    ok(any("rocm-smi" in d.get("sources", []) for d in got.get("devices", [])),
       name + ": the replay used ROCm SMI's answers")
    for key in ("devices", "links", "warnings", "switches", "nics"):
        eq(got.get(key), want.get(key), name + ": replayed " + key)


# ---- main -------------------------------------------------------------------------------------------

FAULTS = ["missing-library", "no-capture", "init", "permission", "no-address", "hang", "nonsense", "old-library",
          "version-1", "lying-version", "asleep", "no-hwmon", "calls-once"]


def all_cases():
    telegraf = [c for c in captures() if c.startswith("telegraf-")]
    return (["json:" + c for c in captures()] + ["tree:" + c for c in telegraf] +
            ["board:mi300x-8x", "board:mi300x-2x-cpx-nps4"] + ["fault:" + f for f in FAULTS] +
            ["capture:telegraf-mi100_rocm571", "capture:synthetic-mi300x-8x"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--double")
    ap.add_argument("--old")
    ap.add_argument("--work", default="build/rocm_smi")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print(";".join(all_cases()))
        return 0
    args.work = os.path.join(os.path.abspath(args.work), (args.case or "all").replace(":", "-"))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    for c in [args.case] if args.case else all_cases():
        kind, name = c.split(":", 1)
        if kind in ("json", "tree"):
            check_json(args, name, kind == "tree")
        elif kind == "board":
            check_board(args, name)
        elif kind == "capture":
            capture(args, name)
        else:
            fault(args, name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
