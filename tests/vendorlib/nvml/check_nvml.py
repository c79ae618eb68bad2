#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl's NVML backend against the NVML test double (tests/vendorlib/nvml/double), which answers
from real `nvidia-smi -q -x` captures. The expected values are read from the same XML
here, with Python's own XML parser, so the double, axl's backend and this checker are
three separate readings of one file.

  check_nvml.py --axl build/axl --double build/tests/vendorlib/nvml/double/libnvidia-ml.so.1 \
      --old build/tests/vendorlib/nvml/double_old/libnvidia-ml.so.1 --work build/nvml \
      --case xml:telegraf-a100-sxm4-v12 | --case fault:lost | --list

Prints "N passed, N failed"; exits non-zero on a failure.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "double", "fixtures")
MIB = 1 << 20

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


def xmls():
    return sorted(f[:-4] for f in os.listdir(FIXTURES) if f.endswith(".xml"))


def text(e, path):
    x = e.find(path)
    if x is None or x.text is None:
        return None
    t = x.text.strip()
    if t in ("", "N/A", "[N/A]", "Not Supported", "[Not Supported]", "Unknown Error", "None"):
        return None
    return t


def number(e, path, unit=None):
    t = text(e, path)
    if t is None:
        return None
    m = re.match(r"^(-?[0-9.]+)\s*([A-Za-z/]*)", t)
    if not m:
        return None
    if unit and m.group(2) and m.group(2) != unit:
        raise ValueError("%s: unit %s, expected %s" % (path, m.group(2), unit))
    return float(m.group(1))


def address(busid):
    """'00000000:1E:00.0' -> '0000:1e:00.0'"""
    dom, rest = busid.rsplit(":", 2)[0], busid.rsplit(":", 2)[1:]
    return "%04x:%s:%s" % (int(dom, 16), rest[0].lower(), rest[1].lower())


HOST = {"hostname": "nvml-test", "osrelease": "6.1.0", "memory_kb": 16000000, "numa": [{"memory_kb": 16000000}],
        "cpu": {"arch": "x86_64", "vendor_id": "GenuineIntel", "family": 6, "model": 85, "stepping": 7,
                "model_name": "Xeon", "sockets": 1, "cores_per_socket": 4, "threads_per_core": 1,
                "flags": "fpu sse2 avx2"}}


def tree_for(xml_path, work):
    """A sysfs tree holding the capture's GPUs as PCI functions bound to nvidia (built by
    tests/trees/mktree.py), so that NVML's answers must meet the kernel's view."""
    root = ET.parse(xml_path).getroot()
    devices = []
    for g in root.findall("gpu"):
        addr = address(g.get("id"))
        pid = text(g, "pci/pci_device_id") or ""
        dev = int(pid[:4], 16) if len(pid) == 8 and pid[4:].upper() == "10DE" else 0xffff
        devices.append({"bdf": addr, "id": "10de:%04x" % dev, "class": "0x030000", "driver": "nvidia"})
    spec = {"name": "nvml", "provenance": "generated from " + os.path.basename(xml_path), "host": HOST,
            "pci": [{"root": "0000:00", "numa": 0, "devices": devices}],
            "drivers": {"nvidia": {"module": "nvidia", "version": text(root, "driver_version") or "1.0"}}}
    out = os.path.join(work, "tree-" + os.path.basename(xml_path)[:-4])
    spec_path = out + ".json"
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "trees", "mktree.py"), spec_path, out], check=True)
    return out


def run(args, env_extra, work, timeout=60, root=None):
    if root is None:
        root = os.path.join(work, "empty-root")
        os.makedirs(root, exist_ok=True)
    env = dict(os.environ)
    env.update(env_extra)
    t0 = time.monotonic()
    p = subprocess.run([args.axl, "list", "--json", "--sysroot", root], env=env, capture_output=True,
                       text=True, timeout=timeout)
    took = time.monotonic() - t0
    doc = None
    if p.returncode == 0:
        doc = json.loads(p.stdout)
    return p, doc, took


def warnings(doc):
    return [w["message"] for w in doc.get("warnings", [])]


def check_xml(args, name, tree):
    path = os.path.join(FIXTURES, name + ".xml")
    root = ET.parse(path).getroot()
    sysroot = tree_for(path, args.work) if tree else None
    name += " (sysfs tree)" if tree else " (NVML alone)"
    p, doc, _ = run(args, {"AXL_NVML_LIBRARY": args.double, "AXL_NVML_DOUBLE_XML": path}, args.work, root=sysroot)
    eq(p.returncode, 0, name + ": exit code (stderr: %s)" % p.stderr[-400:])
    if doc is None:
        return
    devs = {d.get("pci", {}).get("address"): d for d in doc["devices"]}
    gpus = root.findall("gpu")
    eq(len(doc["devices"]), len(gpus), name + ": number of GPUs")
    driver = text(root, "driver_version")
    cuda = text(root, "cuda_version")
    for g in gpus:
        addr = address(g.get("id"))
        d = devs.get(addr)
        ok(d is not None, "%s: GPU %s listed" % (name, addr))
        if d is None:
            continue
        tag = "%s %s" % (name, addr)
        fs = d.get("field_sources", {})
        eq(fs.get("pci.address"), "sysfs" if tree else "nvml", tag + " address source")
        model = text(g, "product_name")
        if model and model != "Graphics Device":
            eq(d.get("model"), model, tag + " model")
            eq(fs.get("model"), "nvml", tag + " model source")
        for key, xpath in (("uuid", "uuid"), ("serial", "serial"), ("board_part_number", "board_part_number")):
            want = text(g, xpath)
            if want and not want.startswith("0000000000") and key != "serial":
                eq(d.get(key), want, tag + " " + key)
            elif want and key == "serial":
                eq(d.get(key), want, tag + " serial")
        want = text(g, "vbios_version")
        if want:
            eq(d.get("firmware", {}).get("vbios"), want, tag + " vbios")
        want = text(g, "inforom_version/img_version")
        if want:
            eq(d.get("firmware", {}).get("inforom"), want, tag + " inforom")
        if driver:
            eq(d.get("driver", {}).get("version"), driver, tag + " driver version")
        if cuda:
            eq(d.get("driver", {}).get("cuda_version"), cuda, tag + " CUDA version")
        mem = d.get("memory", {})
        total = number(g, "fb_memory_usage/total", "MiB")
        if total:
            eq(mem.get("total_bytes"), int(total) * MIB, tag + " memory total")
            eq(fs.get("memory.total_bytes"), "nvml", tag + " memory source")
        reserved = number(g, "fb_memory_usage/reserved", "MiB")
        if reserved is not None:
            eq(mem.get("reserved_bytes"), int(reserved) * MIB, tag + " memory reserved")
        used = number(g, "fb_memory_usage/used", "MiB")
        if used is not None:
            eq(mem.get("used_bytes"), int(used) * MIB, tag + " memory used")
        bar1 = number(g, "bar1_memory_usage/total", "MiB")
        if bar1:
            eq(mem.get("bar1_bytes"), int(bar1) * MIB, tag + " BAR1")
        minor = text(g, "minor_number")
        if minor is not None:
            ok("/dev/nvidia%s" % minor in d.get("device_nodes", []), tag + " /dev/nvidia" + minor)
        persist = text(g, "persistence_mode")
        if persist in ("Enabled", "Disabled"):
            eq(d.get("modes", {}).get("persistence"), persist == "Enabled", tag + " persistence")
        cm = text(g, "compute_mode")
        if cm:
            want = {"Default": "default", "Exclusive_Process": "exclusive-process",
                    "Prohibited": "prohibited", "Exclusive_Thread": "exclusive-thread"}[cm]
            eq(d.get("modes", {}).get("compute"), want, tag + " compute mode")
        ecc = text(g, "ecc_mode/current_ecc")
        if ecc in ("Enabled", "Disabled"):
            eq(d.get("ecc", {}).get("enabled"), ecc == "Enabled", tag + " ECC")
        link = d.get("pci", {}).get("link", {})
        for key, xpath in (("max_gen", "pci/pci_gpu_link_info/pcie_gen/max_link_gen"),
                           ("current_gen", "pci/pci_gpu_link_info/pcie_gen/current_link_gen"),
                           ("max_width", "pci/pci_gpu_link_info/link_widths/max_link_width"),
                           ("current_width", "pci/pci_gpu_link_info/link_widths/current_link_width")):
            want = text(g, xpath)
            if want:
                eq(link.get(key), int(want.rstrip("x")), tag + " PCIe " + key)
        limit = number(g, "power_readings/power_limit", "W") or number(g, "gpu_power_readings/current_power_limit", "W")
        if limit:
            eq(d.get("power", {}).get("limit_watts"), limit, tag + " power limit")
        dlimit = number(g, "power_readings/default_power_limit", "W") or number(g, "gpu_power_readings/default_power_limit", "W")
        if dlimit:
            eq(d.get("power", {}).get("default_limit_watts"), dlimit, tag + " default power limit")
        clocks = d.get("clocks", {})
        for key, xpath in (("graphics_max_mhz", "max_clocks/graphics_clock"), ("sm_max_mhz", "max_clocks/sm_clock"),
                           ("memory_max_mhz", "max_clocks/mem_clock"), ("graphics_mhz", "clocks/graphics_clock"),
                           ("sm_mhz", "clocks/sm_clock"), ("memory_mhz", "clocks/mem_clock")):
            want = number(g, xpath, "MHz")
            if want:
                eq(clocks.get(key), int(want), tag + " clock " + key)
        mig = text(g, "mig_mode/current_mig")
        parts = {p["technology"]: p for p in d.get("partitioning", [])}
        migdevs = g.findall("mig_devices/mig_device")
        if mig in ("Enabled", "Disabled"):
            p = parts.get("MIG")
            ok(p is not None and p.get("source") == "nvml", tag + " MIG partitioning from NVML")
            if p:
                eq(p.get("mode"), mig.lower(), tag + " MIG mode")
                eq(p.get("pending_mode"), text(g, "mig_mode/pending_mig").lower(), tag + " MIG pending mode")
        children = d.get("children", [])
        eq(len(children), len(migdevs) if mig == "Enabled" else 0, tag + " MIG devices")
        byid = {(c.get("partition", {}).get("gpu_instance_id"), c.get("partition", {}).get("compute_instance_id")): c
                for c in children}
        for m in migdevs if mig == "Enabled" else []:
            gi, ci = int(text(m, "gpu_instance_id")), int(text(m, "compute_instance_id"))
            c = byid.get((gi, ci))
            ok(c is not None, "%s MIG device gi %d ci %d" % (tag, gi, ci))
            if not c:
                continue
            eq(c["id"], "%s/mig%d.%d" % (d["id"], gi, ci), tag + " MIG device id")
            eq(c.get("memory", {}).get("total_bytes"), int(number(m, "fb_memory_usage/total", "MiB")) * MIB,
               tag + " MIG device memory")
            sms = [u["count"] for u in c.get("compute_units", []) if u["name"] == "SM"]
            eq(sms, [int(text(m, "device_attributes/shared/multiprocessor_count"))], tag + " MIG device SMs")
            ok(str(c.get("uuid", "")).startswith("MIG-"), tag + " MIG device UUID")
            ok("/dev/nvidia%s" % minor in c.get("device_nodes", []), tag + " MIG device nodes")
    # nothing NVML said was an error on a healthy capture, except ids the capture mangled
    # (the A10G file says 000000DE): those are refused, with a warning
    bad_ids = sum(1 for g in gpus if re.match(r"^[0-9A-Fa-f]{8}$", text(g, "pci/pci_device_id") or "") and
                  text(g, "pci/pci_device_id")[-4:].upper() != "10DE")
    noise = [w for w in warnings(doc) if "nvml" in w.lower() or "GPU" in w]
    eq(len([w for w in noise if "is not NVIDIA's" in w]), bad_ids, name + ": warnings about PCI ids")
    eq([w for w in noise if "is not NVIDIA's" not in w], [], name + ": warnings")


def fault(args, kind):
    a100 = os.path.join(FIXTURES, "telegraf-a100-sxm4-v12.xml")
    dual = os.path.join(FIXTURES, "telegraf-dual_a5000-v13.xml")
    base = {"AXL_NVML_LIBRARY": args.double}
    if kind == "no-xml":
        # the double without a capture behaves like a library without a driver
        p, doc, _ = run(args, base, args.work)
        eq(p.returncode, 0, "no-xml: exit code")
        ok(doc is not None and any("nvmlInit" in w for w in warnings(doc)), "no-xml: nvmlInit warning")
    elif kind == "missing-library":
        missing = {"AXL_NVML_LIBRARY": os.path.join(args.work, "no-such-libnvidia-ml.so.1")}
        p, doc, _ = run(args, missing, args.work)
        eq(p.returncode, 0, "missing-library: exit code")
        # said where the NVIDIA kernel driver is loaded; silent where NVML had nothing to
        # tell (one configuration for every node of a fleet)
        here = os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/sys/module/nvidia")
        said = doc is not None and any("NVML not loaded" in w for w in warnings(doc))
        ok(said == here, "missing-library: warned %s, NVIDIA driver here %s" % (said, here))
        # on a node with NVIDIA devices and their driver: the warning
        dual = os.path.join(FIXTURES, "telegraf-dual_a5000-v13.xml")
        p, doc, _ = run(args, missing, args.work, root=tree_for(dual, args.work))
        eq(p.returncode, 0, "missing-library tree: exit code")
        ok(doc is not None and any("NVML not loaded" in w for w in warnings(doc)), "missing-library tree: warning")
    elif kind == "permission":
        p, doc, _ = run(args, dict(base, AXL_NVML_DOUBLE_XML=dual,
                                   AXL_NVML_DOUBLE_FAIL="nvmlDeviceGetMemoryInfo_v2@1=NO_PERMISSION,"
                                                        "nvmlDeviceGetMemoryInfo@1=NO_PERMISSION"), args.work,
                        root=tree_for(dual, args.work))
        eq(p.returncode, 0, "permission: exit code")
        if doc:
            eq(len(doc["devices"]), 2, "permission: both GPUs listed")
            mem = [d.get("memory", {}).get("used_bytes") for d in doc["devices"]]
            ok(mem[0] is not None and mem[1] is None, "permission: only GPU 1 lost its memory facts: %r" % mem)
            ok(doc["devices"][1].get("uuid", "").startswith("GPU-"), "permission: GPU 1 keeps its other facts")
            ok(any("Insufficient Permissions" in w for w in warnings(doc)), "permission: warning")
    elif kind == "lost":
        # every call about GPU 0 fails: NVML cannot even say where it is; it stays listed
        # from sysfs, the other GPU keeps everything
        p, doc, _ = run(args, dict(base, AXL_NVML_DOUBLE_XML=dual, AXL_NVML_DOUBLE_FAIL="*@0=GPU_IS_LOST"), args.work,
                        root=tree_for(dual, args.work))
        eq(p.returncode, 0, "lost-early: exit code")
        if doc:
            eq(len(doc["devices"]), 2, "lost-early: both GPUs listed")
            srcs = {d["pci"]["address"]: d["field_sources"].get("model") == "nvml" for d in doc["devices"]}
            eq(srcs, {"0000:81:00.0": False, "0000:c1:00.0": True}, "lost-early: only GPU 1 described by NVML")
            ok(any("lost" in w for w in warnings(doc)), "lost-early: warning")
        # GPU 0 falls off the bus after it was found
        p, doc, _ = run(args, dict(base, AXL_NVML_DOUBLE_XML=dual,
                                   AXL_NVML_DOUBLE_FAIL="nvmlDeviceGetMemoryInfo_v2@0=GPU_IS_LOST,"
                                                        "nvmlDeviceGetMemoryInfo@0=GPU_IS_LOST"), args.work,
                        root=tree_for(dual, args.work))
        eq(p.returncode, 0, "lost: exit code")
        if doc:
            eq(len(doc["devices"]), 2, "lost: both GPUs listed")
            # NVML's GPU 0 is the first in PCI order: 0000:81:00.0
            states = {d["pci"]["address"]: d.get("state") for d in doc["devices"]}
            eq(states, {"0000:81:00.0": "lost", "0000:c1:00.0": None}, "lost: GPU 0 marked lost, GPU 1 not")
            ok(doc["devices"][1].get("memory", {}).get("total_bytes") == 24564 * MIB, "lost: GPU 1 unaffected")
            ok(any("lost" in w for w in warnings(doc)), "lost: warning")
    elif kind == "nonsense":
        p, doc, _ = run(args, dict(base, AXL_NVML_DOUBLE_XML=a100, AXL_NVML_DOUBLE_NONSENSE="1"), args.work,
                        root=tree_for(a100, args.work))
        eq(p.returncode, 0, "nonsense: exit code (stderr %s)" % p.stderr[-300:])
        if doc:
            eq(len(doc["devices"]), 1, "nonsense: the GPU is listed")
            d = doc["devices"][0] if doc["devices"] else {}
            link = d.get("pci", {}).get("link", {})
            ok(link.get("current_gen") in (None, 1, 2, 3, 4, 5, 6, 7), "nonsense: link generation %r" % link)
            mem = d.get("memory", {})
            ok(mem.get("used_bytes") is None or mem.get("used_bytes") <= mem.get("total_bytes", 0), "nonsense: used <= total")
            ok(len(d.get("children", [])) <= 7, "nonsense: at most 7 MIG devices")
            for k in ("model", "uuid", "serial", "board_part_number"):
                v = d.get(k)
                ok(v is None or not any(ord(c) < 0x20 for c in v), "nonsense: %s has no control characters" % k)
            ok(len(warnings(doc)) > 0, "nonsense: warnings say what was dropped")
    elif kind == "hang":
        t0 = time.monotonic()
        p, doc, took = run(args, dict(base, AXL_NVML_DOUBLE_XML=a100, AXL_NVML_DOUBLE_HANG="nvmlDeviceGetSerial",
                                      AXL_VENDOR_TIMEOUT_MS="700"), args.work, timeout=30)
        eq(p.returncode, 0, "hang: exit code")
        ok(took < 10, "hang: axl list returned after %.1f s" % took)
        if doc:
            ok(any("did not answer" in w for w in warnings(doc)), "hang: a timeout warning")
    elif kind == "old-driver":
        p, doc, _ = run(args, {"AXL_NVML_LIBRARY": args.old, "AXL_NVML_DOUBLE_XML": a100}, args.work)
        eq(p.returncode, 0, "old-driver: exit code")
        if doc and doc["devices"]:
            d = doc["devices"][0]
            eq(d.get("memory", {}).get("total_bytes"), 81920 * MIB, "old-driver: memory through nvmlDeviceGetMemoryInfo")
            eq(d.get("memory", {}).get("reserved_bytes"), None, "old-driver: no reserved memory without _v2")
            eq(d.get("pci", {}).get("address"), "0000:01:00.0", "old-driver: PCI through the base nvmlDeviceGetPciInfo")
            eq(d.get("children", []), [], "old-driver: no MIG calls, no MIG devices")
    elif kind == "calls-once":
        log = os.path.join(args.work, "calls.log")
        if os.path.exists(log):
            os.unlink(log)
        p, doc, _ = run(args, dict(base, AXL_NVML_DOUBLE_XML=dual, AXL_NVML_DOUBLE_LOG=log), args.work)
        eq(p.returncode, 0, "calls-once: exit code")
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        inits = [l for l in lines if re.match(r"^nvmlInit", l)]
        eq(len(inits), 1, "calls-once: nvmlInit called once")
        ok(0 < len(lines) < 400, "calls-once: %d NVML calls for 2 GPUs" % len(lines))
    else:
        raise SystemExit("unknown fault " + kind)


def board(args, name):
    """The 8-GPU HGX H100 board: the real PCI tree (tests/trees/nodes/hgx-8x-h100.json),
    NVML answering from the board's nvidia-smi -q capture and its NVLink fabric file. The
    expected fabric is read from that file here."""
    spec = os.path.join(HERE, "..", "..", "trees", "nodes", name + ".json")
    tree = os.path.join(args.work, "tree-" + name)
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "trees", "mktree.py"), spec, tree], check=True)
    xml = os.path.join(FIXTURES, name + "-q2x.xml")
    extra = os.path.join(FIXTURES, name + ".extra")
    p, doc, _ = run(args, {"AXL_NVML_LIBRARY": args.double, "AXL_NVML_DOUBLE_XML": xml,
                           "AXL_NVML_DOUBLE_EXTRA": extra}, args.work, root=tree)
    eq(p.returncode, 0, name + ": exit code")
    if not doc:
        return
    fabric = {}  # GPU address -> [(link, switch address)]
    for line in open(extra):
        f = line.split()
        if f and f[0] == "nvlink":
            kv = dict(x.split("=", 1) for x in f[2:])
            if kv.get("state", "1") == "1" and kv.get("type") == "switch":
                fabric.setdefault(f[1].lower(), []).append((int(kv["link"]), kv["remote"].lower()))
    gpus = [d for d in doc["devices"] if d["vendor_id"] == "0x10de"]
    eq(len(gpus), 8, name + ": 8 GPUs")
    eq(sorted(d["pci"]["address"] for d in gpus), sorted(fabric), name + ": the GPUs of the fabric file")
    for d in gpus:
        eq(d["field_sources"].get("pci.address"), "sysfs", name + " " + d["id"] + ": matched to sysfs")
        eq(d["field_sources"].get("memory.total_bytes"), "nvml", name + " " + d["id"] + ": memory from NVML")
        ports = sorted((x["index"], x.get("remote_pci")) for x in d.get("ports", []) if x.get("remote_kind") == "nvswitch")
        eq(ports, sorted(fabric.get(d["pci"]["address"], [])), name + " " + d["id"] + ": NVLink ports")
        ok(all(x.get("bandwidth_gbps") == 25 and x.get("version") == 4 for x in d.get("ports", [])),
           name + " " + d["id"] + ": NVLink 4 at 25 GB/s per direction")
    links = [l for l in doc["links"] if l["a"].startswith("nvidia") and l["b"].startswith("nvidia")]
    eq(len(links), 28, name + ": a link for every pair")
    eq(sorted({(l["kind"], l.get("link_count"), l.get("bandwidth_gbps"), l["source"]) for l in links}),
       [("nvswitch", 18, 450, "nvml")], name + ": NVSwitch, 18 links, 450 GB/s per direction")
    # GPU 0's link 0 goes down: its pairs lose one link, the others keep 18
    first = sorted(fabric)[0]
    broken = os.path.join(args.work, name + "-link0-down.extra")
    with open(extra) as src, open(broken, "w") as dst:
        for line in src:
            f = line.split()
            if f and f[0] == "nvlink" and f[1].lower() == first and "link=0" in f:
                line = line.replace("state=1", "state=0")
            dst.write(line)
    p, doc, _ = run(args, {"AXL_NVML_LIBRARY": args.double, "AXL_NVML_DOUBLE_XML": xml,
                           "AXL_NVML_DOUBLE_EXTRA": broken}, args.work, root=tree)
    if doc:
        gpu0 = [d["id"] for d in doc["devices"] if d["pci"]["address"] == first][0]
        got = sorted({(gpu0 in (l["a"], l["b"]), l.get("link_count"), l.get("bandwidth_gbps"))
                      for l in doc["links"] if l["kind"] == "nvswitch"})
        eq(got, [(False, 18, 450), (True, 17, 425)], name + ": link 0 of " + gpu0 + " down")
        up = [x for x in next(d for d in doc["devices"] if d["id"] == gpu0)["ports"] if x.get("active")]
        eq(len(up), 17, name + ": 17 ports up on " + gpu0)


def capture(args, name):
    """axl capture with NVML answering (the double), then the capture replayed on a machine
    without it: the NVML code runs again on the recorded answers and says the same."""
    if name == "hgx-8x-h100":
        spec = os.path.join(HERE, "..", "..", "trees", "nodes", name + ".json")
        tree = os.path.join(args.work, "tree-" + name)
        subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "trees", "mktree.py"), spec, tree], check=True)
        env = {"AXL_NVML_DOUBLE_XML": os.path.join(FIXTURES, name + "-q2x.xml"),
               "AXL_NVML_DOUBLE_EXTRA": os.path.join(FIXTURES, name + ".extra")}
    else:
        xml = os.path.join(FIXTURES, name + ".xml")
        tree = tree_for(xml, args.work)
        env = {"AXL_NVML_DOUBLE_XML": xml}
    env["AXL_NVML_LIBRARY"] = args.double
    live_env = dict(os.environ, **env)
    cap = os.path.join(args.work, name + ".tar.gz")
    p = subprocess.run([args.axl, "capture", "-o", cap, "--sysroot", tree], env=live_env, capture_output=True, text=True)
    eq(p.returncode, 0, name + ": axl capture (stderr %s)" % p.stderr[-300:])
    p = subprocess.run([args.axl, "list", "--json", "--all", "--sysroot", tree], env=live_env, capture_output=True,
                       text=True)
    want = json.loads(p.stdout)
    bare = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    p = subprocess.run([args.axl, "list", "--json", "--all", "--sysroot", cap], env=bare, capture_output=True, text=True)
    eq(p.returncode, 0, name + ": replay (stderr %s)" % p.stderr[-300:])
    got = json.loads(p.stdout) if p.returncode == 0 else {}
    ok(any("nvml" in d.get("sources", []) for d in got.get("devices", [])), name + ": the replay used NVML's answers")
    for key in ("devices", "links", "warnings", "switches", "nics"):
        eq(got.get(key), want.get(key), name + ": replayed " + key)


FAULTS = ["no-xml", "missing-library", "permission", "lost", "nonsense", "hang", "old-driver", "calls-once"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--double")
    ap.add_argument("--old")
    ap.add_argument("--work", default="build/nvml")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print(";".join(["xml:" + x for x in xmls()] + ["tree:" + x for x in xmls()] + ["fault:" + f for f in FAULTS] +
                       ["board:hgx-8x-h100", "capture:hgx-8x-h100", "capture:telegraf-a100-sxm4-v12"]))
        return 0
    args.work = os.path.join(os.path.abspath(args.work), (args.case or "all").replace(":", "-"))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    cases = [args.case] if args.case else ["xml:" + x for x in xmls()] + ["tree:" + x for x in xmls()] + \
        ["fault:" + f for f in FAULTS] + ["board:hgx-8x-h100", "capture:hgx-8x-h100",
                                          "capture:telegraf-a100-sxm4-v12"]
    for c in cases:
        kind, name = c.split(":", 1)
        if kind in ("xml", "tree"):
            check_xml(args, name, kind == "tree")
        elif kind == "board":
            board(args, name)
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
