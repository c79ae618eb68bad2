#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl's Level Zero backend against the Level Zero test double (tests/vendorlib/level_zero/double), which
answers sysman calls from the JSON device descriptions in tests/vendorlib/level_zero/double/fixtures. The
expected values are read from the same JSON here, with Python's own reading of the rules
in docs/vendor-libraries.md, so the double, axl's backend and this checker are three
separate readings of one file. The struct layouts are checked a third way: ctypes
declarations of the specification's structs, filled by the double.

  check_ze.py --axl build/axl --double build/tests/vendorlib/level_zero/double/libze_loader.so.1 \
      --old build/tests/vendorlib/level_zero/double_old/libze_loader.so.1 --work build/level_zero \
      --case json:max-1550-2x | --case fault:hang | --list

Prints "N passed, N failed"; exits non-zero on a failure.
"""
import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
FIXTURES = os.path.join(HERE, "double", "fixtures")
NODES = os.path.join(HERE, "..", "..", "trees", "nodes")
DEVICEDB = os.path.join(ROOT, "data", "devices.db")

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


def fixtures():
    return sorted(f[:-5] for f in os.listdir(FIXTURES) if f.endswith(".json"))


def load(name):
    with open(os.path.join(FIXTURES, name + ".json")) as f:
        return json.load(f)


def devicedb():
    """vendor:device -> the entry's name and memory type, read from data/devices.db."""
    out, entry, matches = {}, {}, []

    def flush():
        for m in matches:
            out.setdefault(m, dict(entry))
    with open(DEVICEDB) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                flush()
                entry, matches = {}, []
            elif "=" in line and not line.startswith("#"):
                k, v = (x.strip() for x in line.split("=", 1))
                if k == "match" and len(v.split(":")) == 2:
                    matches.append(v.lower())
                elif k in ("name", "memory_type"):
                    entry[k] = v
    flush()
    return out


DB = devicedb()

HOST = {"hostname": "ze-test", "osrelease": "6.8.0", "memory_kb": 16000000, "numa": [{"memory_kb": 16000000}],
        "cpu": {"arch": "x86_64", "vendor_id": "GenuineIntel", "family": 6, "model": 143, "stepping": 8,
                "model_name": "Xeon", "sockets": 1, "cores_per_socket": 4, "threads_per_core": 1,
                "flags": "fpu sse2 avx2"}}


def tree_for(name, work):
    """The sysfs tree a description stands on: the node of tests/trees when there is one
    of that name, else one made of its devices (PCI functions bound to their driver)."""
    out = os.path.join(work, "tree-" + name)
    node = os.path.join(NODES, name + ".json")
    if os.path.exists(node):
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "trees", "mktree.py"), node, out], check=True,
                       stdout=subprocess.DEVNULL)
        return out
    devices, drivers = [], {}
    for d in load(name)["devices"]:
        drv = d.get("driver", "i915")
        cls = d.get("class", "0x120000" if d.get("type") == "vpu" else "0x030000")
        devices.append({"bdf": d["pci"]["address"], "id": "8086:%04x" % int(d["device_id"], 16), "class": cls,
                        "driver": drv})
        drivers[drv] = {"module": drv}
    spec = {"name": name, "provenance": "generated from tests/vendorlib/level_zero/double/fixtures/%s.json" % name, "host": HOST,
            "pci": [{"root": "0000:00", "numa": 0, "devices": devices}], "drivers": drivers}
    with open(out + ".json", "w") as f:
        json.dump(spec, f)
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "trees", "mktree.py"), out + ".json", out], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def run(args, env_extra, work, root=None, timeout=60, cmd="list", bare=False):
    if root is None:
        root = os.path.join(work, "empty-root")
        os.makedirs(root, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AXL_", "ZES_", "ZE_"))} if bare else \
        dict(os.environ)
    env.update(env_extra)
    t0 = time.monotonic()
    p = subprocess.run([args.axl, cmd, "--json", "--sysroot", root], env=env, capture_output=True, text=True,
                       timeout=timeout)
    took = time.monotonic() - t0
    doc = json.loads(p.stdout) if p.returncode == 0 else None
    return p, doc, took


def warnings(doc, source="level-zero"):
    return [w["message"] for w in doc.get("warnings", []) if w.get("source") == source]


def known(s):
    return s is not None and s.strip() != "" and s.strip().lower() not in ("unknown", "unkown")


MEM_TYPES = {"HBM", "DDR", "DDR3", "DDR4", "DDR5", "LPDDR", "LPDDR3", "LPDDR4", "LPDDR5", "GDDR4", "GDDR5", "GDDR5X",
             "GDDR6", "GDDR6X", "GDDR7"}
MEDIA = ("media-decode-single", "media-encode-single", "media-enhancement-single", "media-codec-single")


def expect_device(d):
    """What Level Zero should contribute for one description, by the documented rules,
    before sysfs and the device database have their say."""
    e = {}
    db = DB.get("8086:%04x" % int(d["device_id"], 16), {})
    gpu = d.get("type", "gpu") == "gpu"
    if not db.get("name"):
        e["model"] = d["model"] if known(d.get("model")) else d.get("name")
    u = d.get("uuid", "")
    if u.strip("0"):
        e["uuid"] = "%s-%s-%s-%s-%s" % (u[0:8], u[8:12], u[12:16], u[16:20], u[20:32])
    if known(d.get("board_number")):
        e["serial"] = d["board_number"]
    elif known(d.get("serial")):
        e["serial"] = d["serial"]
    if known(d.get("driver_version")):
        e["driver.version"] = d["driver_version"]
    pci = d["pci"]
    for key, f in (("pci.link.max_gen", "max_gen"), ("pci.link.current_gen", "gen")):
        if 1 <= pci.get(f, -1) <= 7:
            e[key] = pci[f]
    for key, f in (("pci.link.max_width", "max_width"), ("pci.link.current_width", "width")):
        if pci.get(f, -1) in (1, 2, 4, 8, 12, 16, 32):
            e[key] = pci[f]
    mods = [m for m in d.get("memory", []) if m.get("location", "device") == "device" and m["type"] in MEM_TYPES]
    if mods:
        if all(m.get("size", 0) > 0 for m in mods):
            e["memory.total_bytes"] = sum(m["size"] for m in mods)
            e["memory.used_bytes"] = sum(m["size"] - m.get("free", m["size"]) for m in mods)
        if all(m.get("bus_width", -1) > 0 for m in mods):
            e["memory.bus_width_bits"] = sum(m["bus_width"] for m in mods)
        types = {m["type"] for m in mods}
        if len(types) == 1:
            t = types.pop()
            dbt = db.get("memory_type", "")
            if not (len(dbt) > len(t) and dbt.lower().startswith(t.lower())):
                e["memory.type"] = t
    gpu_max = [f["max"] for f in d.get("frequency", []) if f.get("domain", "gpu") == "gpu"]
    mem_max = [f["max"] for f in d.get("frequency", []) if f.get("domain") == "memory"]
    if gpu_max:
        e["clocks.graphics_max_mhz"] = round(max(gpu_max))
    elif d.get("core_clock_mhz"):
        e["clocks.graphics_max_mhz"] = d["core_clock_mhz"]
    if mem_max:
        e["clocks.memory_max_mhz"] = round(max(mem_max))
    roots = [p for p in d.get("power", []) if p.get("subdevice") is None]
    rank = {"card": 3, "package": 2}
    if roots:
        best = max(roots, key=lambda p: rank.get(p.get("domain"), 1))
        for lim in best.get("limits", []):
            if lim["level"] == "sustained" and lim.get("unit", "power") == "power":
                if lim.get("enabled", True):
                    e["power.limit_watts"] = lim["limit_mw"] / 1000
                break
        if best.get("default_mw", -1) > 0:
            e["power.default_limit_watts"] = best["default_mw"] / 1000
        if best.get("max_mw", -1) > 0 and best["max_mw"] >= best.get("default_mw", -1):
            e["power.max_limit_watts"] = best["max_mw"] / 1000
    cus = {}
    if gpu:
        if d.get("slices") and d.get("subslices_per_slice"):
            cus["Xe-core"] = d["slices"] * d["subslices_per_slice"]
            if d.get("eus_per_subslice"):
                cus["EU"] = cus["Xe-core"] * d["eus_per_subslice"]
        cus["tile"] = d.get("subdevices") or 1
    count = {}
    for g in d.get("engines", []):
        count[g["group"]] = count.get(g["group"], 0) + g.get("count", 1)
    for name, n in (("compute engine", count.get("compute-single", 0)), ("render engine", count.get("render-single", 0)),
                    ("copy engine", count.get("copy-single", 0)), ("media engine", sum(count.get(m, 0) for m in MEDIA))):
        if n:
            cus[name] = n
    e["compute_units"] = cus
    return e


def get(doc, path):
    for k in path.split("."):
        if not isinstance(doc, dict) or k not in doc:
            return None
        doc = doc[k]
    return doc


def check_json(args, name, tree):
    spec = load(name)
    work = args.work
    root = tree_for(name, work) if tree else None
    tag0 = name + (" (sysfs tree)" if tree else " (Level Zero alone)")
    base = None
    if tree:
        # sysfs (and the device database) alone: what sysfs says must stay
        p, base, _ = run(args, {}, work, root=root, bare=True)
        eq(p.returncode, 0, tag0 + ": baseline exit code")
    p, doc, _ = run(args, {"AXL_ZE_LIBRARY": args.double, "AXL_ZE_DOUBLE_JSON": os.path.join(FIXTURES, name + ".json")},
                    work, root=root)
    eq(p.returncode, 0, tag0 + ": exit code (stderr: %s)" % p.stderr[-400:])
    if doc is None:
        return
    path = os.path.join(work, "doc-%s-%s.json" % (name, "tree" if tree else "alone"))
    with open(path, "w") as f:
        f.write(p.stdout)
    v = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tools", "validate_json.py"),
                        os.path.join(ROOT, "schema", "axl-inventory.schema.json"), path], capture_output=True, text=True)
    # 77: no jsonschema module on this machine (the replay tests say so too)
    ok(v.returncode in (0, 77), tag0 + ": the document validates (%s)" % (v.stdout + v.stderr)[-300:])
    devs = {get(d, "pci.address"): d for d in doc["devices"]}
    bdevs = {get(d, "pci.address"): d for d in base["devices"]} if base else {}
    descs = spec["devices"]
    if not tree:
        eq(len(doc["devices"]), len(descs), tag0 + ": number of devices")
    for desc in descs:
        addr = desc["pci"]["address"]
        d = devs.get(addr)
        tag = "%s %s" % (tag0, addr)
        ok(d is not None, tag + " listed")
        if d is None:
            continue
        fs = d.get("field_sources", {})
        bfs = bdevs.get(addr, {}).get("field_sources", {})
        eq(fs.get("pci.address"), "sysfs" if tree else "level-zero", tag + " address source")
        ok("level-zero" in d.get("sources", []), tag + " level-zero among its sources")
        e = expect_device(desc)
        cus = e.pop("compute_units")
        for key, want in sorted(e.items()):
            if bfs.get(key) in ("sysfs", "procfs"):
                # the kernel's value stays
                eq(get(d, key), get(bdevs[addr], key), tag + " " + key + " (sysfs's)")
                eq(fs.get(key), bfs.get(key), tag + " " + key + " source")
                continue
            if isinstance(want, float):
                ok(get(d, key) is not None and abs(get(d, key) - want) < 1e-9, "%s %s: got %r, want %r" % (
                    tag, key, get(d, key), want))
            else:
                eq(get(d, key), want, tag + " " + key)
            eq(fs.get(key), "level-zero", tag + " " + key + " source")
        db = DB.get("8086:%04x" % int(desc["device_id"], 16), {})
        if db.get("name"):
            eq(d.get("model"), db["name"], tag + " model (the device database's)")
            eq(fs.get("model"), "devicedb", tag + " model source")
        if "memory.type" not in e and db.get("memory_type") and desc.get("memory"):
            eq(get(d, "memory.type"), db["memory_type"], tag + " memory type (the database's refinement)")
        got = {c["name"]: (c["count"], c["source"]) for c in d.get("compute_units", [])}
        for cname, n in cus.items():
            if cname == "tile" and any(c["name"] == "tile" for c in bdevs.get(addr, {}).get("compute_units", [])):
                want = [(c["count"], c["source"]) for c in bdevs[addr]["compute_units"] if c["name"] == "tile"][0]
                eq(got.get("tile"), want, tag + " tiles (sysfs's)")
            else:
                eq(got.get(cname), (n, "level-zero"), tag + " compute units " + cname)
        if desc.get("type") == "vpu":
            eq([c for c in got if c in ("Xe-core", "EU")], [], tag + " no Xe-cores on an NPU")
        check_ports(spec, desc, d, devs, tag)
    check_links(spec, doc, tag0)
    eq(warnings(doc), [], tag0 + ": Level Zero warnings")


def fabric_owner(spec):
    owner = {}
    for dd in spec["devices"]:
        for p in dd.get("fabric_ports", []):
            owner[p["id"][0]] = dd["pci"]["address"]
    return owner


def check_ports(spec, desc, d, devs, tag):
    owner = fabric_owner(spec)
    ports = [p for p in d.get("ports", []) if p["technology"] == "xelink"]
    want = desc.get("fabric_ports", [])
    eq(len(ports), len(want), tag + " Xe Link ports")
    for k, (p, w) in enumerate(zip(ports, want)):
        st = w.get("status", "unknown")
        active = True if st in ("healthy", "degraded") else False if st in ("failed", "disabled") else None
        eq(p.get("index"), k, tag + " port %d index" % k)
        eq(p.get("active"), active, tag + " port %d active" % k)
        if active:
            remote = owner.get(w["remote"][0]) if owner.get(w["remote"][0]) != desc["pci"]["address"] else None
            eq(p.get("remote_pci"), remote, tag + " port %d remote" % k)
            eq(p.get("remote_kind"), "gpu" if remote else "unknown", tag + " port %d remote kind" % k)
            if remote:
                eq(p.get("remote_id"), devs[remote]["id"], tag + " port %d remote id" % k)
            eq(p.get("bandwidth_gbps"), w["bps"] / 8e9 if w.get("bps", -1) > 0 else None, tag + " port %d GB/s" % k)


def check_links(spec, doc, tag):
    owner = fabric_owner(spec)
    ids = {get(d, "pci.address"): d["id"] for d in doc["devices"]}
    want = {}
    for dd in spec["devices"]:
        a = dd["pci"]["address"]
        for p in dd.get("fabric_ports", []):
            r = owner.get(p["remote"][0]) if p.get("status") in ("healthy", "degraded") else None
            if r and r != a:
                key = tuple(sorted((a, r)))
                if a == key[0]:
                    n, g = want.get(key, (0, 0))
                    want[key] = (n + 1, g + p["bps"] / 8e9)
    got = {tuple(sorted((l["a"], l["b"]))): l for l in doc.get("links", []) if l["kind"] == "xelink"}
    eq(len(got), len(want), tag + ": Xe Link pairs")
    for (a, b), (n, g) in want.items():
        l = got.get(tuple(sorted((ids[a], ids[b]))))
        ok(l is not None, "%s: an xelink link %s - %s" % (tag, a, b))
        if l:
            eq(l.get("link_count"), n, tag + " link count")
            ok(abs(l.get("bandwidth_gbps", 0) - g) < 1e-6, "%s: link GB/s %r, want %r" % (tag, l.get("bandwidth_gbps"), g))
            eq(l.get("source"), "level-zero", tag + " link source")


# ---- the layouts, through ctypes ----------------------------------------------------------
class Speed(ctypes.Structure):
    _fields_ = [("gen", ctypes.c_int32), ("width", ctypes.c_int32), ("maxBandwidth", ctypes.c_int64)]


class PciProps(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("domain", ctypes.c_uint32),
                ("bus", ctypes.c_uint32), ("device", ctypes.c_uint32), ("function", ctypes.c_uint32),
                ("maxSpeed", Speed), ("haveBandwidthCounters", ctypes.c_uint8), ("havePacketCounters", ctypes.c_uint8),
                ("haveReplayCounters", ctypes.c_uint8)]


class CoreProps(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("type", ctypes.c_uint32),
                ("vendorId", ctypes.c_uint32), ("deviceId", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("subdeviceId", ctypes.c_uint32), ("coreClockRate", ctypes.c_uint32),
                ("maxMemAllocSize", ctypes.c_uint64), ("maxHardwareContexts", ctypes.c_uint32),
                ("maxCommandQueuePriority", ctypes.c_uint32), ("numThreadsPerEU", ctypes.c_uint32),
                ("physicalEUSimdWidth", ctypes.c_uint32), ("numEUsPerSubslice", ctypes.c_uint32),
                ("numSubslicesPerSlice", ctypes.c_uint32), ("numSlices", ctypes.c_uint32),
                ("timerResolution", ctypes.c_uint64), ("timestampValidBits", ctypes.c_uint32),
                ("kernelTimestampValidBits", ctypes.c_uint32), ("uuid", ctypes.c_uint8 * 16), ("name", ctypes.c_char * 256)]


class DevProps(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("core", CoreProps),
                ("numSubdevices", ctypes.c_uint32), ("serialNumber", ctypes.c_char * 64),
                ("boardNumber", ctypes.c_char * 64), ("brandName", ctypes.c_char * 64),
                ("modelName", ctypes.c_char * 64), ("vendorName", ctypes.c_char * 64),
                ("driverVersion", ctypes.c_char * 64)]


class MemProps(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("type", ctypes.c_uint32),
                ("onSubdevice", ctypes.c_uint8), ("subdeviceId", ctypes.c_uint32), ("location", ctypes.c_uint32),
                ("physicalSize", ctypes.c_uint64), ("busWidth", ctypes.c_int32), ("numChannels", ctypes.c_int32)]


class FreqProps(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("type", ctypes.c_uint32),
                ("onSubdevice", ctypes.c_uint8), ("subdeviceId", ctypes.c_uint32), ("canControl", ctypes.c_uint8),
                ("isThrottleEventSupported", ctypes.c_uint8), ("min", ctypes.c_double), ("max", ctypes.c_double)]


class LimitDesc(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("level", ctypes.c_uint32),
                ("source", ctypes.c_uint32), ("limitUnit", ctypes.c_uint32), ("enabledStateLocked", ctypes.c_uint8),
                ("enabled", ctypes.c_uint8), ("intervalValueLocked", ctypes.c_uint8), ("interval", ctypes.c_int32),
                ("limitValueLocked", ctypes.c_uint8), ("limit", ctypes.c_int32)]


class PortId(ctypes.Structure):
    _fields_ = [("fabricId", ctypes.c_uint32), ("attachId", ctypes.c_uint32), ("portNumber", ctypes.c_uint8)]


class PortSpeed(ctypes.Structure):
    _fields_ = [("bitRate", ctypes.c_int64), ("width", ctypes.c_int32)]


class PortState(ctypes.Structure):
    _fields_ = [("stype", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("status", ctypes.c_uint32),
                ("qualityIssues", ctypes.c_uint32), ("failureReasons", ctypes.c_uint32), ("remotePortId", PortId),
                ("rxSpeed", PortSpeed), ("txSpeed", PortSpeed)]


def sanitizer_runtimes(lib):
    """The sanitizer runtimes a library was linked with (an ASan build of the double):
    they must be preloaded before Python can load it."""
    p = subprocess.run(["ldd", lib], capture_output=True, text=True)
    return [m.group(1) for m in re.finditer(r"=>\s*(\S*lib(?:asan|ubsan)\.so[.0-9]*)", p.stdout)]


def check_layout(args):
    """Sizes the C layout rules give the specification's structs (ze_api.h static_asserts
    say the same for axl's declarations), then the double's answers read through them."""
    global passed, failed
    rt = sanitizer_runtimes(args.double)
    if rt and "AXL_ZE_LAYOUT_CHILD" not in os.environ:
        env = dict(os.environ, LD_PRELOAD=":".join(rt), AXL_ZE_LAYOUT_CHILD="1",
                   ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0")
        p = subprocess.run([sys.executable] + sys.argv, env=env, capture_output=True, text=True)
        sys.stdout.write("".join(l + "\n" for l in p.stdout.splitlines() if l.startswith("FAIL")))
        m = re.search(r"(\d+) passed, (\d+) failed", p.stdout)
        ok(m is not None, "layout: the check under the sanitizer runtimes ran (%s)" % p.stderr[-300:])
        if m:
            passed += int(m.group(1))
            failed += int(m.group(2))
        return
    for cls, size in ((CoreProps, 368), (DevProps, 776), (PciProps, 56), (MemProps, 48), (FreqProps, 48),
                      (LimitDesc, 48), (PortState, 72)):
        eq(ctypes.sizeof(cls), size, "layout: sizeof " + cls.__name__)
    name = "max-1550-2x"
    spec = load(name)
    os.environ["AXL_ZE_DOUBLE_JSON"] = os.path.join(FIXTURES, name + ".json")
    lib = ctypes.CDLL(args.double)
    eq(lib.zesInit(0), 0, "layout: zesInit")
    n = ctypes.c_uint32(0)
    eq(lib.zesDriverGet(ctypes.byref(n), None), 0, "layout: zesDriverGet")
    drv = (ctypes.c_void_p * 1)()
    lib.zesDriverGet(ctypes.byref(n), drv)
    n = ctypes.c_uint32(0)
    lib.zesDeviceGet(ctypes.c_void_p(drv[0]), ctypes.byref(n), None)
    eq(n.value, len(spec["devices"]), "layout: zesDeviceGet count")
    devs = (ctypes.c_void_p * n.value)()
    lib.zesDeviceGet(ctypes.c_void_p(drv[0]), ctypes.byref(n), devs)
    for i, desc in enumerate(spec["devices"]):
        props = DevProps(stype=1)
        eq(lib.zesDeviceGetProperties(ctypes.c_void_p(devs[i]), ctypes.byref(props)), 0, "layout: properties")
        eq(props.core.numSlices, desc["slices"], "layout: numSlices")
        eq(props.core.deviceId, int(desc["device_id"], 16), "layout: deviceId")
        eq(props.core.name.decode(), desc["name"], "layout: name")
        eq(bytes(props.core.uuid).hex(), desc["uuid"], "layout: uuid")
        eq(props.numSubdevices, desc["subdevices"], "layout: numSubdevices")
        eq(props.driverVersion.decode(), desc["driver_version"], "layout: driverVersion")
        pci = PciProps(stype=2)
        lib.zesDevicePciGetProperties(ctypes.c_void_p(devs[i]), ctypes.byref(pci))
        eq("%04x:%02x:%02x.%x" % (pci.domain, pci.bus, pci.device, pci.function), desc["pci"]["address"], "layout: BDF")
        eq((pci.maxSpeed.gen, pci.maxSpeed.width, pci.maxSpeed.maxBandwidth),
           (desc["pci"]["max_gen"], desc["pci"]["max_width"], desc["pci"]["max_bandwidth"]), "layout: maxSpeed")
        for kind, fn, cls, check in (
                ("memory", lib.zesDeviceEnumMemoryModules, MemProps,
                 lambda o, w: (o.physicalSize, o.busWidth, o.onSubdevice) == (w["size"], w["bus_width"], 1)),
                ("frequency", lib.zesDeviceEnumFrequencyDomains, FreqProps,
                 lambda o, w: (o.min, o.max) == (w["min"], w["max"]))):
            m = ctypes.c_uint32(0)
            fn(ctypes.c_void_p(devs[i]), ctypes.byref(m), None)
            eq(m.value, len(desc[kind]), "layout: %s count" % kind)
            hs = (ctypes.c_void_p * m.value)()
            fn(ctypes.c_void_p(devs[i]), ctypes.byref(m), hs)
            get_fn = lib.zesMemoryGetProperties if kind == "memory" else lib.zesFrequencyGetProperties
            for k, w in enumerate(desc[kind]):
                o = cls()
                get_fn(ctypes.c_void_p(hs[k]), ctypes.byref(o))
                ok(check(o, w), "layout: %s %d read back" % (kind, k))
        m = ctypes.c_uint32(0)
        lib.zesDeviceEnumPowerDomains(ctypes.c_void_p(devs[i]), ctypes.byref(m), None)
        hs = (ctypes.c_void_p * m.value)()
        lib.zesDeviceEnumPowerDomains(ctypes.c_void_p(devs[i]), ctypes.byref(m), hs)
        c = ctypes.c_uint32(0)
        lib.zesPowerGetLimitsExt(ctypes.c_void_p(hs[0]), ctypes.byref(c), None)
        lims = (LimitDesc * c.value)()
        lib.zesPowerGetLimitsExt(ctypes.c_void_p(hs[0]), ctypes.byref(c), lims)
        eq([(l.level, l.limit, l.enabled) for l in lims],
           [({"sustained": 1, "peak": 3}[w["level"]], w["limit_mw"], 1) for w in desc["power"][0]["limits"]],
           "layout: power limits")
        m = ctypes.c_uint32(0)
        lib.zesDeviceEnumFabricPorts(ctypes.c_void_p(devs[i]), ctypes.byref(m), None)
        hs = (ctypes.c_void_p * m.value)()
        lib.zesDeviceEnumFabricPorts(ctypes.c_void_p(devs[i]), ctypes.byref(m), hs)
        st = PortState()
        lib.zesFabricPortGetState(ctypes.c_void_p(hs[0]), ctypes.byref(st))
        w = desc["fabric_ports"][0]
        eq((st.status, st.remotePortId.fabricId, st.remotePortId.portNumber, st.rxSpeed.bitRate),
           (1, w["remote"][0], w["remote"][2], w["bps"]), "layout: fabric port state")


# ---- faults ------------------------------------------------------------------------------------
def fault(args, kind):
    b580 = os.path.join(FIXTURES, "xe-desktop-b580.json")
    pvc = os.path.join(FIXTURES, "max-1550-2x.json")
    base = {"AXL_ZE_LIBRARY": args.double}
    w = args.work
    if kind == "no-json":
        # the double without a description is a loader without a driver
        p, doc, _ = run(args, base, w)
        eq(p.returncode, 0, "no-json: exit code")
        ok(doc is not None and any("zeInit" in m or "zesInit" in m for m in warnings(doc)), "no-json: an init warning")
        eq(doc and doc["devices"], [], "no-json: no devices")
    elif kind == "missing-library":
        p, doc, _ = run(args, {"AXL_ZE_LIBRARY": os.path.join(w, "no-such-libze_loader.so.1")}, w)
        eq(p.returncode, 0, "missing-library: exit code")
        intel_here = any(os.path.exists("/sys/module/" + m) for m in ("i915", "xe", "intel_vpu"))
        said = doc is not None and any("Level Zero not loaded" in m for m in warnings(doc))
        # said where an Intel kernel driver is loaded; silent where the library had nothing to tell
        ok(said == intel_here, "missing-library: warned %s, Intel driver here %s" % (said, intel_here))
        # on a tree with Intel devices: sysfs alone, as without Level Zero, and the warning
        tree = tree_for("xe-desktop-b580", w)
        p, doc, _ = run(args, {"AXL_ZE_LIBRARY": os.path.join(w, "no-such-libze_loader.so.1")}, w, root=tree)
        eq(p.returncode, 0, "missing-library tree: exit code")
        if doc:
            eq(len(doc["devices"]), 3, "missing-library tree: the three Intel devices from sysfs")
            ok(all("level-zero" not in d.get("sources", []) for d in doc["devices"]), "missing-library: no Level Zero facts")
            ok(any("Level Zero not loaded" in m for m in warnings(doc)), "missing-library tree: warning")
        # a re-rooted tree never loads this machine's library by itself
        p, doc, _ = run(args, {"AXL_ZE_DOUBLE_JSON": b580}, w, root=tree, bare=True)
        eq(p.returncode, 0, "rerooted: exit code")
        if doc:
            ok(all("level-zero" not in d.get("sources", []) for d in doc["devices"]), "rerooted: no library, no facts")
            eq(warnings(doc), [], "rerooted: silent")
    elif kind == "unsupported":
        # features a device lacks cost their fields, silently
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_FAIL=(
            "zesDeviceEnumMemoryModules=UNSUPPORTED_FEATURE,zesDeviceEnumFabricPorts=UNSUPPORTED_FEATURE,"
            "zesPowerGetLimitsExt@1=UNSUPPORTED_FEATURE")), w)
        eq(p.returncode, 0, "unsupported: exit code")
        if doc:
            eq(len(doc["devices"]), 2, "unsupported: both devices")
            for d in doc["devices"]:
                eq(d.get("field_sources", {}).get("memory.used_bytes"), None, "unsupported: no memory use")
                eq(d.get("field_sources", {}).get("memory.total_bytes"), "devicedb", "unsupported: memory from the database")
                eq(d.get("ports", []), [], "unsupported: no ports")
                eq(d.get("field_sources", {}).get("clocks.graphics_max_mhz"), "level-zero", "unsupported: clocks stay")
            # device 1 falls back to the deprecated zesPowerGetLimits
            eq([get(d, "power.limit_watts") for d in doc["devices"]], [600, 600], "unsupported: power limits")
            eq(doc.get("links", []), [], "unsupported: no Xe Link links")
            eq(warnings(doc), [], "unsupported: no warnings")
    elif kind == "permission":
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc,
                                   AXL_ZE_DOUBLE_FAIL="zesDeviceEnumPowerDomains@1=INSUFFICIENT_PERMISSIONS"), w)
        eq(p.returncode, 0, "permission: exit code")
        if doc:
            eq([get(d, "power.limit_watts") for d in doc["devices"]], [600, None], "permission: only device 1 lost its power facts")
            eq(doc["devices"][1].get("field_sources", {}).get("power.tdp_watts"), "devicedb", "permission: TDP from the database")
            eq(len(doc["devices"][1].get("ports", [])), 8, "permission: device 1 keeps its ports")
            ok(any("INSUFFICIENT_PERMISSIONS" in m for m in warnings(doc)), "permission: warning")
    elif kind == "lost":
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_FAIL="zesDeviceEnumPowerDomains@0=DEVICE_LOST"),
                        w, root=tree_for("max-1550-2x", w))
        eq(p.returncode, 0, "lost: exit code")
        if doc:
            eq([d.get("state") for d in doc["devices"]], ["lost", None], "lost: device 0 marked lost")
            d0, d1 = doc["devices"]
            eq(d0.get("field_sources", {}).get("memory.used_bytes"), "level-zero", "lost: what came before stays")
            eq(d0.get("ports", []), [], "lost: nothing asked after")
            eq(len(d1.get("ports", [])), 8, "lost: device 1 unaffected")
            eq(get(d1, "power.limit_watts"), 600, "lost: device 1 power")
            ok(any("lost" in m for m in warnings(doc)), "lost: warning")
        # every call about device 0 fails: it stays listed from sysfs
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_FAIL="*@0=DEVICE_LOST"), w,
                        root=tree_for("max-1550-2x", w))
        if doc:
            eq(len(doc["devices"]), 2, "lost early: both listed")
            eq(["level-zero" in d.get("sources", []) for d in doc["devices"]], [False, True], "lost early: only device 1 described")
    elif kind == "nonsense":
        tree = tree_for("max-1550-2x", w)
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_NONSENSE="1"), w, root=tree)
        eq(p.returncode, 0, "nonsense: exit code (stderr %s)" % p.stderr[-300:])
        if doc:
            eq(len(doc["devices"]), 2, "nonsense: both listed")
            for d in doc["devices"]:
                fs = d.get("field_sources", {})
                z = sorted(k for k, v in fs.items() if v == "level-zero")
                eq(z, [], "nonsense: nothing believed")
                eq([c for c in d.get("compute_units", []) if c["source"] == "level-zero"], [], "nonsense: no compute units")
                for k in ("model", "serial", "uuid"):
                    v = d.get(k)
                    ok(v is None or not any(ord(c) < 0x20 for c in v), "nonsense: %s without control characters" % k)
                ok(all(p.get("bandwidth_gbps") is None for p in d.get("ports", [])), "nonsense: no port rates %r" % [
                    p.get("bandwidth_gbps") for p in d.get("ports", [])])
            ok(len(warnings(doc)) >= 10, "nonsense: warnings say what was dropped (%d)" % len(warnings(doc)))
    elif kind == "hang":
        p, doc, took = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_HANG="zesDeviceEnumFabricPorts",
                                      AXL_VENDOR_TIMEOUT_MS="700"), w, timeout=30, root=tree_for("max-1550-2x", w))
        eq(p.returncode, 0, "hang: exit code")
        ok(took < 10, "hang: axl list returned after %.1f s" % took)
        if doc:
            ok(any("did not answer" in m for m in warnings(doc)), "hang: a timeout warning")
            eq(len(doc["devices"]), 2, "hang: the devices from sysfs")
            ok(all("level-zero" not in d.get("sources", []) for d in doc["devices"]), "hang: described without it")
        # an init that hangs: the same
        p, doc, took = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_HANG="zesInit",
                                      AXL_VENDOR_TIMEOUT_MS="500"), w, timeout=30)
        ok(p.returncode == 0 and took < 10, "hang in zesInit: returned after %.1f s" % took)
    elif kind == "old-loader":
        # a loader before zesInit: sysman only with ZES_ENABLE_SYSMAN=1 from the start
        log = os.path.join(w, "old.log")
        p, doc, _ = run(args, {"AXL_ZE_LIBRARY": args.old, "AXL_ZE_DOUBLE_JSON": pvc, "AXL_ZE_DOUBLE_LOG": log}, w,
                        bare=True)
        eq(p.returncode, 0, "old-loader: exit code")
        if doc:
            eq(doc["devices"], [], "old-loader without ZES_ENABLE_SYSMAN: nothing")
            ok(any("ZES_ENABLE_SYSMAN=1" in m for m in warnings(doc)), "old-loader: the warning names ZES_ENABLE_SYSMAN")
            eq(open(log).read() if os.path.exists(log) else "", "", "old-loader: zeInit not even called")
        p, doc, _ = run(args, {"AXL_ZE_LIBRARY": args.old, "AXL_ZE_DOUBLE_JSON": pvc, "ZES_ENABLE_SYSMAN": "1"}, w, bare=True)
        if doc:
            eq(len(doc["devices"]), 2, "old-loader with ZES_ENABLE_SYSMAN=1: both devices")
            # no zesPowerGetLimitsExt, no power extension: the deprecated calls
            eq([get(d, "power.limit_watts") for d in doc["devices"]], [600, 600], "old-loader: zesPowerGetLimits")
            eq([get(d, "power.default_limit_watts") for d in doc["devices"]], [600, 600], "old-loader: defaultLimit")
            eq(warnings(doc), [], "old-loader: no warnings")
    elif kind == "zesinit-fails":
        # a runtime whose zesInit fails (hwloc saw that in 2023): zeInit, if the process opted in
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_FAIL="zesInit=UNINITIALIZED",
                                   ZES_ENABLE_SYSMAN="1"), w)
        eq(p.returncode, 0, "zesinit-fails: exit code")
        if doc:
            eq(len(doc["devices"]), 2, "zesinit-fails: both devices through zeInit")
            ok(any("zesInit" in m and "zeInit" in m for m in warnings(doc)), "zesinit-fails: says which init was used")
    elif kind == "calls-once":
        log = os.path.join(w, "calls.log")
        if os.path.exists(log):
            os.unlink(log)
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_ZE_DOUBLE_LOG=log), w)
        eq(p.returncode, 0, "calls-once: exit code")
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        eq(len([l for l in lines if l.startswith(("zesInit", "zeInit"))]), 1, "calls-once: one initialisation")
        ok(0 < len(lines) < 400, "calls-once: %d calls for 2 devices" % len(lines))
        ok(not any(l.startswith("zeInit") for l in lines), "calls-once: zesInit, not zeInit")
    elif kind == "hostile-replay":
        # a capture's answers are input like any file: absurd counts, wrong types, huge
        # strings, unknown handles, broken lines must cost nothing but their values
        tree = tree_for("xe-desktop-b580", w)
        os.makedirs(os.path.join(tree, "axl-capture"), exist_ok=True)
        big = "x" * 100000
        recs = [
            {"f": "zesInit", "r": 0},
            {"f": "zesDriverGet", "r": 0, "o": 4294967295},
            {"f": "zesDeviceGet", "d": "drv0", "r": 0, "o": 1 << 40},
            {"f": "zesDevicePciGetProperties", "d": "0", "r": 0,
             "o": {"address.domain": 0, "address.bus": 3, "address.device": 0, "address.function": 0,
                   "maxSpeed.gen": "four", "maxSpeed.width": -99999999999}},
            {"f": "zesDeviceGetProperties", "d": "0", "r": 0,
             "o": {"core.vendorId": 32902, "core.name": big, "modelName": [1, 2], "core.uuid": "zz" * 40,
                   "core.numSlices": 1e300, "numSubdevices": -1, "boardNumber": {"a": 1}}},
            {"f": "zesDeviceEnumMemoryModules", "d": "0", "r": 0, "o": -5},
            {"f": "zesDeviceEnumFrequencyDomains", "d": "0", "r": 0, "o": 3},
            {"f": "zesFrequencyGetProperties", "d": "0/freq0", "r": 0, "o": {"type": 0, "min": None, "max": "fast"}},
            {"f": "zesFrequencyGetProperties", "d": "0/freq1", "r": 0, "o": {"type": 0, "min": 1, "max": 1e308}},
            {"f": "zesDeviceEnumPowerDomains", "d": "0", "r": 0, "o": 1},
            {"f": "zesPowerGetProperties", "d": "0/pwr0", "a": [1], "r": 0, "o": {"p.onSubdevice": 0, "e.domain": 1}},
            {"f": "zesPowerGetLimitsExt", "d": "0/pwr0", "r": 0, "o": [{"level": 1, "limitUnit": 2, "enabled": 1,
                                                                          "limit": 2147483647}] * 50},
            {"f": "zesDevicePciGetProperties", "d": "7", "r": 0, "o": {}},
            {"f": "zesDeviceEnumFabricPorts", "d": "0", "r": -1, "o": 99},
        ]
        with open(os.path.join(tree, "axl-capture", "level-zero.jsonl"), "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
        p, doc, _ = run(args, {}, w, root=tree, bare=True)
        eq(p.returncode, 0, "hostile-replay: exit code (stderr %s)" % p.stderr[-300:])
        if doc:
            eq(len(doc["devices"]), 3, "hostile-replay: the three devices of the tree")
            b580 = [d for d in doc["devices"] if get(d, "pci.address") == "0000:03:00.0"][0]
            ok(len(b580.get("model", "")) < 1000, "hostile-replay: no 100 kB model")
            eq(get(b580, "power.limit_watts"), 190, "hostile-replay: hwmon's power limit stays")
            ok(all(len(m) < 2000 for m in warnings(doc)), "hostile-replay: bounded warnings")
        with open(os.path.join(tree, "axl-capture", "level-zero.jsonl"), "w") as f:
            f.write('{"f":"zesInit","r":0}\n{"f": broken\n')
        p, doc, _ = run(args, {}, w, root=tree, bare=True)
        eq(p.returncode, 0, "hostile-replay broken line: exit code")
        if doc:
            ok(any("not replayed" in m for m in warnings(doc)), "hostile-replay: a broken file is not replayed")
    elif kind == "backend-off":
        p, doc, _ = run(args, dict(base, AXL_ZE_DOUBLE_JSON=pvc, AXL_BACKENDS="-level-zero"), w,
                        root=tree_for("max-1550-2x", w))
        if doc:
            ok(all("level-zero" not in d.get("sources", []) for d in doc["devices"]), "backend-off: no Level Zero")
    else:
        raise SystemExit("unknown fault " + kind)


def capture(args, name):
    """axl capture with the double answering, then the capture replayed without it: the
    Level Zero code runs again on the recorded answers and says the same."""
    tree = tree_for(name, args.work)
    env = dict(os.environ, AXL_ZE_LIBRARY=args.double, AXL_ZE_DOUBLE_JSON=os.path.join(FIXTURES, name + ".json"))
    cap = os.path.join(args.work, name + ".tar.gz")
    p = subprocess.run([args.axl, "capture", "-o", cap, "--sysroot", tree], env=env, capture_output=True, text=True)
    eq(p.returncode, 0, name + ": axl capture (stderr %s)" % p.stderr[-300:])
    p = subprocess.run([args.axl, "list", "--json", "--all", "--sysroot", tree], env=env, capture_output=True, text=True)
    want = json.loads(p.stdout)
    bare = {k: v for k, v in os.environ.items() if not k.startswith(("AXL_", "ZES_", "ZE_"))}
    p = subprocess.run([args.axl, "list", "--json", "--all", "--sysroot", cap], env=bare, capture_output=True, text=True)
    eq(p.returncode, 0, name + ": replay (stderr %s)" % p.stderr[-300:])
    got = json.loads(p.stdout) if p.returncode == 0 else {}
    ok(any("level-zero" in d.get("sources", []) for d in got.get("devices", [])), name + ": the replay used Level Zero's answers")
    for key in ("devices", "links", "warnings", "switches", "nics"):
        eq(got.get(key), want.get(key), name + ": replayed " + key)
    # the records are in the capture, under the library's name
    p = subprocess.run(["tar", "-tzf", cap], capture_output=True, text=True)
    ok("axl-capture/level-zero.jsonl" in p.stdout.split(), name + ": axl-capture/level-zero.jsonl in the capture")


FAULTS = ["no-json", "missing-library", "unsupported", "permission", "lost", "nonsense", "hang", "old-loader",
          "zesinit-fails", "calls-once", "backend-off", "hostile-replay"]


def cases():
    return (["json:" + x for x in fixtures()] + ["tree:" + x for x in fixtures()] + ["fault:" + f for f in FAULTS] +
            ["layout:ctypes"] + ["capture:" + x for x in ("xe-desktop-b580", "max-1550-2x")])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--double")
    ap.add_argument("--old")
    ap.add_argument("--work", default="build/level_zero")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print(";".join(cases()))
        return 0
    args.work = os.path.join(os.path.abspath(args.work), (args.case or "all").replace(":", "-"))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    for c in [args.case] if args.case else cases():
        kind, name = c.split(":", 1)
        if kind in ("json", "tree"):
            check_json(args, name, kind == "tree")
        elif kind == "layout":
            check_layout(args)
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
