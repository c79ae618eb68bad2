#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl's NVML live metrics (src/lib/backend/nvml_sample.c) against the NVML test double.

A scenario is a copy of a real `nvidia-smi -q -x` capture with the values this checker
sets itself (utilisation, temperature, power, clocks, PCIe, fan, throttle reasons,
processes), an extra file (energy, ECC, per-process utilisation) and a sysfs tree with
/proc entries for the processes; `axl metrics --json --sysroot TREE` must report exactly
those values, and faults injected with AXL_NVML_DOUBLE_FAIL must cost only what they hit.

  check_nvml_metrics.py --axl build/axl --double build/tests/vendorlib/nvml/double/libnvidia-ml.so.1 \
      --old build/tests/vendorlib/nvml/double_old/libnvidia-ml.so.1 --work build/nvml-metrics --case values | --list
"""
import argparse
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_nvml as base  # noqa: E402  (tree_for, address, FIXTURES)

MIB = 1 << 20
DUAL = os.path.join(base.FIXTURES, "telegraf-dual_a5000-v13.xml")
A100 = os.path.join(base.FIXTURES, "telegraf-a100-sxm4-v12.xml")
CONTAINER = "0123456789abcdef" * 4
CGROUP = "/kubepods.slice/kubepods-pod1.slice/cri-containerd-%s.scope" % CONTAINER

# per GPU (file order): what the scenario sets
GPUS = [
    {"addr": "0000:81:00.0", "util": 37, "mem_util": 12, "enc": 5, "dec": 7, "temp": 61, "power": "212.34 W",
     "limit": "230.00 W", "sm": 1710, "mem": 7601, "tx": 1000, "rx": 2000, "fan": 44,
     "reasons": ["sw_power_cap", "hw_slowdown"], "energy_mj": 123456789, "ecc": (3, 1),
     "procs": [(100477, "C", "22430 MiB"), (4242, "C+G", "N/A"), (4343, "G", "100 MiB")],
     "putil": {100477: (55, 3, 4)}},
    {"addr": "0000:c1:00.0", "util": 88, "mem_util": 41, "enc": 0, "dec": 9, "temp": 72, "power": "180.50 W",
     "limit": "230.00 W", "sm": 1500, "mem": 8001, "tx": 300, "rx": 400, "fan": 61,
     "reasons": [], "energy_mj": None, "ecc": None,
     "procs": [(100477, "C", "17240 MiB")], "putil": {}},
]
REASON_TAGS = {"gpu_idle": "idle", "applications_clocks_setting": "app_clocks", "sw_power_cap": "sw_power_cap",
               "hw_slowdown": "hw_slowdown", "sync_boost": "sync_boost", "sw_thermal_slowdown": "sw_thermal",
               "hw_thermal_slowdown": "hw_thermal", "hw_power_brake_slowdown": "hw_power_brake",
               "display_clocks_setting": "display_clocks"}
COMM = {100477: "llama-server", 4242: "Xorg", 4343: "glxgears"}

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


def setx(parent, path, value):
    e = parent.find(path)
    if e is None:
        raise SystemExit("fixture lacks " + path)
    e.text = value


def scenario(work, energy_step=None, gpu1_energy=False):
    """The XML, extra file and tree of the values scenario; returns (xml, extra, tree)."""
    os.makedirs(work, exist_ok=True)
    tree = ET.parse(DUAL)
    gpus = tree.getroot().findall("gpu")
    for g, want in zip(gpus, GPUS):
        setx(g, "utilization/gpu_util", "%d %%" % want["util"])
        setx(g, "utilization/memory_util", "%d %%" % want["mem_util"])
        setx(g, "utilization/encoder_util", "%d %%" % want["enc"])
        setx(g, "utilization/decoder_util", "%d %%" % want["dec"])
        setx(g, "temperature/gpu_temp", "%d C" % want["temp"])
        pr = g.find("gpu_power_readings")
        for tag in ("power_draw", "average_power_draw", "instant_power_draw"):
            e = pr.find(tag)
            if e is not None:
                e.text = "N/A"
        setx(pr, "average_power_draw", want["power"])
        setx(pr, "current_power_limit", want["limit"])
        setx(g, "clocks/sm_clock", "%d MHz" % want["sm"])
        setx(g, "clocks/mem_clock", "%d MHz" % want["mem"])
        setx(g, "pci/tx_util", "%d KB/s" % want["tx"])
        setx(g, "pci/rx_util", "%d KB/s" % want["rx"])
        setx(g, "fan_speed", "%d %%" % want["fan"])
        for e in g.find("clocks_event_reasons"):
            key = e.tag.replace("clocks_event_reason_", "")
            e.text = "Active" if REASON_TAGS.get(key) in want["reasons"] else "Not Active"
        ps = g.find("processes")
        for p in list(ps):
            ps.remove(p)
        for pid, typ, mem in want["procs"]:
            p = ET.SubElement(ps, "process_info")
            for tag, val in (("gpu_instance_id", "N/A"), ("compute_instance_id", "N/A"), ("pid", str(pid)),
                             ("type", typ), ("process_name", COMM.get(pid, "")), ("used_memory", mem)):
                ET.SubElement(p, tag).text = val
    xml = os.path.join(work, "scenario.xml")
    tree.write(xml)
    lines = []
    for i, want in enumerate(GPUS):
        mj = want["energy_mj"]
        if mj is None and i == 1 and gpu1_energy:
            mj = 5000000
        if mj is not None:
            lines.append("energy %s mj=%d%s" % (want["addr"], mj, " step=%d" % energy_step if energy_step else ""))
        if want["ecc"]:
            lines.append("ecc %s corrected=%d uncorrected=%d" % (want["addr"], want["ecc"][0], want["ecc"][1]))
        for pid, (sm, enc, dec) in want["putil"].items():
            lines.append("procutil %s pid=%d sm=%d enc=%d dec=%d" % (want["addr"], pid, sm, enc, dec))
    extra = os.path.join(work, "scenario.extra")
    with open(extra, "w") as f:
        f.write("\n".join(lines) + "\n")
    root = base.tree_for(xml, work)
    for pid, name in COMM.items():
        d = os.path.join(root, "proc", str(pid))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "comm"), "w") as f:
            f.write(name + "\n")
        with open(os.path.join(d, "cgroup"), "w") as f:
            f.write("0::%s\n" % (CGROUP if pid == 100477 else "/user.slice"))
    return xml, extra, root


def metrics(args, env_extra, root, extra_args=(), timeout=60):
    env = dict(os.environ)
    env.update({"AXL_NVML_LIBRARY": args.double})
    env.update(env_extra)
    t0 = time.monotonic()
    p = subprocess.run([args.axl, "metrics", "--json", "--sysroot", root] + list(extra_args), env=env,
                       capture_output=True, text=True, timeout=timeout)
    took = time.monotonic() - t0
    doc = None
    if p.returncode == 0 and p.stdout.strip() and "--interval" not in extra_args:
        doc = json.loads(p.stdout)
    return p, doc, took


def by_id(doc):
    return {d["id"]: d for d in doc["devices"]} if doc else {}


def check_values(tag, d, want, skip=()):
    """Every value the scenario set for one GPU."""
    exp = {
        "utilization_percent": want["util"], "memory_utilization_percent": want["mem_util"],
        "encoder_utilization_percent": want["enc"], "decoder_utilization_percent": want["dec"],
        "temperature_celsius": want["temp"], "power_watts": float(want["power"].split()[0]),
        "power_limit_watts": float(want["limit"].split()[0]), "sm_clock_mhz": want["sm"],
        "memory_clock_mhz": want["mem"], "pcie_tx_bytes_per_s": want["tx"] * 1024,
        "pcie_rx_bytes_per_s": want["rx"] * 1024, "fan_speed_percent": want["fan"],
        "throttle_reasons": want["reasons"],
    }
    for k, v in exp.items():
        if k in skip:
            ok(k not in d, "%s: %s absent (got %r)" % (tag, k, d.get(k)))
            continue
        got = d.get(k)
        if isinstance(v, float):
            ok(got is not None and abs(got - v) < 1e-6, "%s %s: got %r, want %r" % (tag, k, got, v))
        elif k == "throttle_reasons":
            eq(sorted(got or []), sorted(v), tag + " " + k)
        else:
            eq(got, v, tag + " " + k)
        if k not in skip and got is not None:
            eq(d.get("sources", {}).get(k), "nvml", tag + " source of " + k)


def xml_memory(xml, index):
    g = ET.parse(xml).getroot().findall("gpu")[index]
    total = base.number(g, "fb_memory_usage/total", "MiB")
    used = base.number(g, "fb_memory_usage/used", "MiB")
    return int(total) * MIB, int(used) * MIB


def case_values(args):
    xml, extra, root = scenario(os.path.join(args.work, "values"))
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra}, root)
    eq(p.returncode, 0, "values: exit code (stderr %s)" % p.stderr[-400:])
    devs = by_id(doc)
    eq(sorted(devs), ["nvidia:0", "nvidia:1"], "values: devices")
    for i, want in enumerate(GPUS):
        d = devs.get("nvidia:%d" % i, {})
        tag = "values GPU %d" % i
        eq(d.get("state"), "ok", tag + " state")
        check_values(tag, d, want)
        total, used = xml_memory(xml, i)
        eq(d.get("memory_total_bytes"), total, tag + " memory total")
        eq(d.get("memory_used_bytes"), used, tag + " memory used")
        if want["energy_mj"] is not None:
            eq(d.get("energy_joules"), want["energy_mj"] / 1000.0, tag + " energy (mJ -> J)")
        else:
            ok("energy_joules" not in d, tag + " no energy without a counter")
        ecc = d.get("ecc_errors", {})
        if want["ecc"]:
            eq(ecc, {"corrected": want["ecc"][0], "uncorrected": want["ecc"][1]}, tag + " ECC")
        else:
            eq(ecc, {}, tag + " no ECC counts")
        procs = {p["pid"]: p for p in d.get("processes", [])}
        nvml_procs = {pid: p for pid, p in procs.items() if p.get("source") == "nvml"}
        eq(sorted(nvml_procs), sorted(pid for pid, _, _ in want["procs"]), tag + " process pids")
        for pid, typ, mem in want["procs"]:
            pr = nvml_procs.get(pid, {})
            ptag = "%s pid %d" % (tag, pid)
            eq(pr.get("type"), {"C": "compute", "G": "graphics", "C+G": "compute+graphics"}[typ], ptag + " type")
            eq(pr.get("name"), COMM[pid], ptag + " name")
            want_mem = None if mem == "N/A" else int(mem.split()[0]) * MIB
            eq(pr.get("memory_used_bytes"), want_mem, ptag + " memory")
            util = want["putil"].get(pid)
            eq(pr.get("utilization_percent"), util[0] if util else None, ptag + " SM utilisation")
            eq(pr.get("encoder_utilization_percent"), util[1] if util else None, ptag + " encoder utilisation")
            eq(pr.get("decoder_utilization_percent"), util[2] if util else None, ptag + " decoder utilisation")
            if pid == 100477:
                eq(pr.get("cgroup"), CGROUP, ptag + " cgroup")
                eq(pr.get("container_id"), CONTAINER, ptag + " container id")
            else:
                eq(pr.get("container_id"), None, ptag + " no container")
    # without processes asked for: none
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra}, root,
                        ["--no-processes"])
    if p.returncode == 0 and doc:
        eq(sum(len(d.get("processes", [])) for d in doc["devices"]), 0, "values: --no-processes lists none")


def case_lost(args):
    """GPU 0 is lost in the middle of a sample (its temperature call): GPU 0 reports
    "lost" with no values, GPU 1 keeps every value."""
    xml, extra, root = scenario(os.path.join(args.work, "lost"))
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra,
                               "AXL_NVML_DOUBLE_FAIL": "nvmlDeviceGetTemperature@0=GPU_IS_LOST"}, root)
    eq(p.returncode, 0, "lost: exit code (stderr %s)" % p.stderr[-400:])
    devs = by_id(doc)
    d0, d1 = devs.get("nvidia:0", {}), devs.get("nvidia:1", {})
    eq(d0.get("state"), "lost", "lost: GPU 0 state")
    vals = [k for k in d0 if k not in ("id", "state", "sources", "processes")]
    eq(vals, [], "lost: GPU 0 has no values")
    eq([p for p in d0.get("processes", []) if p.get("source") == "nvml"], [], "lost: GPU 0 has no NVML processes")
    eq(d1.get("state"), "ok", "lost: GPU 1 state")
    check_values("lost: GPU 1", d1, GPUS[1])
    # NVML's "unknown error", again and again: lost too
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra,
                               "AXL_NVML_DOUBLE_FAIL": "nvmlDeviceGetUtilizationRates@1=UNKNOWN,"
                                                       "nvmlDeviceGetEncoderUtilization@1=UNKNOWN,"
                                                       "nvmlDeviceGetDecoderUtilization@1=UNKNOWN,"
                                                       "nvmlDeviceGetMemoryInfo_v2@1=UNKNOWN,"
                                                       "nvmlDeviceGetMemoryInfo@1=UNKNOWN"}, root)
    devs = by_id(doc)
    eq(devs.get("nvidia:1", {}).get("state"), "lost", "unknown x3: GPU 1 lost")
    eq(devs.get("nvidia:0", {}).get("temperature_celsius"), GPUS[0]["temp"], "unknown x3: GPU 0 unaffected")


def case_permission(args):
    """A call NVML refuses costs only its value."""
    xml, extra, root = scenario(os.path.join(args.work, "permission"))
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra,
                               "AXL_NVML_DOUBLE_FAIL": "nvmlDeviceGetPowerUsage@1=NO_PERMISSION,"
                                                       "nvmlDeviceGetFanSpeed@1=NO_PERMISSION,"
                                                       "nvmlDeviceGetComputeRunningProcesses_v3@0=NO_PERMISSION"},
                        root)
    eq(p.returncode, 0, "permission: exit code (stderr %s)" % p.stderr[-400:])
    devs = by_id(doc)
    d0, d1 = devs.get("nvidia:0", {}), devs.get("nvidia:1", {})
    eq(d1.get("state"), "ok", "permission: GPU 1 state")
    check_values("permission: GPU 1", d1, GPUS[1], skip=("power_watts", "fan_speed_percent"))
    check_values("permission: GPU 0", d0, GPUS[0])
    # GPU 0's compute list was refused: its graphics processes remain
    pids = sorted(p["pid"] for p in d0.get("processes", []) if p.get("source") == "nvml")
    eq(pids, [4242, 4343], "permission: GPU 0 graphics processes only")


def case_energy(args):
    """Power from the energy counter where NVML gives no power reading; a counter that
    goes backwards gives no power (never a negative one), the energy itself stays."""
    for step, want_power in ((20000, True), (-1000, False)):
        tag = "energy step %d" % step
        xml, extra, root = scenario(os.path.join(args.work, "energy%d" % step), energy_step=step)
        p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra,
                                   "AXL_NVML_DOUBLE_FAIL": "nvmlDeviceGetPowerUsage@0=NOT_SUPPORTED"}, root)
        eq(p.returncode, 0, tag + ": exit code")
        d0 = by_id(doc).get("nvidia:0", {})
        # the sampler's second sample is the shown one: mj + step
        eq(d0.get("energy_joules"), (GPUS[0]["energy_mj"] + step) / 1000.0, tag + ": energy")
        pw = d0.get("power_watts")
        if want_power:
            # 20 J over an interval of ~100 ms (at least 50 ms, at most 5 s): 4..400 W
            ok(pw is not None and 4 <= pw <= 400, tag + ": power from the counter, got %r" % pw)
        else:
            eq(pw, None, tag + ": no power from a counter that went back")


def case_nonsense(args):
    """A buggy driver's answers are dropped, never reported."""
    xml, extra, root = scenario(os.path.join(args.work, "nonsense"))
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra,
                               "AXL_NVML_DOUBLE_NONSENSE": "1"}, root)
    eq(p.returncode, 0, "nonsense: exit code (stderr %s)" % p.stderr[-400:])
    for d in (doc or {}).get("devices", []):
        tag = "nonsense " + d["id"]
        for k in ("utilization_percent", "memory_utilization_percent", "encoder_utilization_percent",
                  "decoder_utilization_percent", "fan_speed_percent"):
            ok(d.get(k) is None or 0 <= d[k] <= 100, "%s: %s %r" % (tag, k, d.get(k)))
        ok(d.get("temperature_celsius") is None, tag + ": temperature 1000000 C dropped")
        ok(d.get("sm_clock_mhz") is None, tag + ": clock 4294967295 MHz dropped")
        ok(d.get("power_watts") is None, tag + ": power 4294967 W dropped")
        ok(d.get("energy_joules") is None, tag + ": energy 2^64-1 mJ dropped")
        ok(d.get("pcie_rx_bytes_per_s") is None, tag + ": PCIe 4 TB/s dropped")
        mu, mt = d.get("memory_used_bytes"), d.get("memory_total_bytes")
        ok(mu is None or (mt is not None and mu <= mt), tag + ": memory used <= total")
        ok(set(d.get("throttle_reasons", [])) <= set(REASON_TAGS.values()), tag + ": throttle reasons are NVML's 9")
        for pr in d.get("processes", []):
            ok(pr["pid"] > 0, tag + ": no pid 0")


def case_hang(args):
    """A metric call that never returns costs the deadline once; the sample still comes."""
    xml, extra, root = scenario(os.path.join(args.work, "hang"))
    p, doc, took = metrics(args, {"AXL_NVML_DOUBLE_XML": xml, "AXL_NVML_DOUBLE_EXTRA": extra,
                                  "AXL_NVML_DOUBLE_HANG": "nvmlDeviceGetFanSpeed", "AXL_VENDOR_TIMEOUT_MS": "700"},
                           root, ["--interval", "50ms", "--count", "3"], timeout=30)
    eq(p.returncode, 0, "hang: exit code (stderr %s)" % p.stderr[-300:])
    ok(took < 6, "hang: three samples in %.1f s (one deadline of 0.7 s, not three)" % took)
    docs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    eq(len(docs), 3, "hang: three documents")
    for k, doc in enumerate(docs):
        for d in doc["devices"]:
            ok(d.get("sources", {}).get("temperature_celsius") != "nvml",
               "hang: sample %d %s has no NVML values after the deadline" % (k, d["id"]))


def case_mig(args):
    """MIG devices: their own memory, from their MIG handles."""
    root = base.tree_for(A100, args.work)
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": A100}, root)
    eq(p.returncode, 0, "mig: exit code (stderr %s)" % p.stderr[-300:])
    devs = by_id(doc)
    migs = [d for i, d in devs.items() if "/" in i]
    g = ET.parse(A100).getroot().find("gpu")
    want = sorted((int(base.number(m, "fb_memory_usage/total", "MiB")) * MIB,
                   int(base.number(m, "fb_memory_usage/used", "MiB")) * MIB)
                  for m in g.findall("mig_devices/mig_device"))
    ok(len(want) == 4, "mig: the fixture has 4 MIG devices")
    got = sorted((d.get("memory_total_bytes"), d.get("memory_used_bytes")) for d in migs)
    eq(got, want, "mig: each MIG device's memory total and used")
    for d in migs:
        eq(d.get("sources", {}).get("memory_used_bytes"), "nvml", "mig %s: memory source" % d["id"])
    gpu = devs.get("nvidia:0", {})
    eq(gpu.get("temperature_celsius"), int(base.number(g, "temperature/gpu_temp", "C")), "mig: the GPU's temperature")
    # the GPU is lost in the middle of a sample: its MIG devices went with it
    p, doc, _ = metrics(args, {"AXL_NVML_DOUBLE_XML": A100,
                               "AXL_NVML_DOUBLE_FAIL": "nvmlDeviceGetTemperature@0=GPU_IS_LOST"}, root)
    states = sorted(set(d.get("state") for d in (doc or {}).get("devices", [])))
    eq(states, ["lost"], "mig: a lost GPU's MIG devices are lost too")


def case_old(args):
    """A 2017-era driver: base process and memory calls."""
    xml, extra, root = scenario(os.path.join(args.work, "old"))
    p, doc, _ = metrics(args, {"AXL_NVML_LIBRARY": args.old, "AXL_NVML_DOUBLE_XML": xml,
                               "AXL_NVML_DOUBLE_EXTRA": extra}, root)
    eq(p.returncode, 0, "old: exit code (stderr %s)" % p.stderr[-300:])
    d0 = by_id(doc).get("nvidia:0", {})
    eq(d0.get("throttle_reasons"), GPUS[0]["reasons"], "old: ...ClocksThrottleReasons")
    total, used = xml_memory(xml, 0)
    eq(d0.get("memory_total_bytes"), total, "old: memory total through the base call")
    pids = sorted(p["pid"] for p in d0.get("processes", []) if p.get("source") == "nvml")
    eq(pids, [4242, 4343, 100477], "old: processes through the base calls")


def case_replay(args):
    """axl capture records the metric answers too; the capture replays them."""
    xml, extra, root = scenario(os.path.join(args.work, "replay"))
    out = os.path.join(args.work, "replay", "capture.tar.gz")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, AXL_NVML_LIBRARY=args.double, AXL_NVML_DOUBLE_XML=xml, AXL_NVML_DOUBLE_EXTRA=extra)
    p = subprocess.run([args.axl, "capture", "--sysroot", root, "-o", out], env=env, capture_output=True, text=True,
                       timeout=60)
    eq(p.returncode, 0, "replay: capture exit code (stderr %s)" % p.stderr[-300:])
    env = dict(os.environ)
    env.pop("AXL_NVML_LIBRARY", None)
    p = subprocess.run([args.axl, "metrics", "--json", "--sysroot", out], env=env, capture_output=True, text=True,
                       timeout=60)
    eq(p.returncode, 0, "replay: metrics exit code (stderr %s)" % p.stderr[-300:])
    doc = json.loads(p.stdout) if p.returncode == 0 else None
    devs = by_id(doc)
    for i, want in enumerate(GPUS):
        d = devs.get("nvidia:%d" % i, {})
        check_values("replay GPU %d" % i, d, want)
        total, used = xml_memory(xml, i)
        eq(d.get("memory_used_bytes"), used, "replay GPU %d: memory used" % i)
        if want["energy_mj"] is not None:
            eq(d.get("energy_joules"), want["energy_mj"] / 1000.0, "replay GPU %d: energy" % i)
        # the capture's sample lists no processes (it does not sweep /proc)
        procs = [p for p in d.get("processes", []) if p.get("source") == "nvml"]
        eq(procs, [], "replay GPU %d: no NVML processes recorded" % i)


CASES = {"values": case_values, "lost": case_lost, "permission": case_permission, "energy": case_energy,
         "nonsense": case_nonsense, "hang": case_hang, "mig": case_mig, "old": case_old, "replay": case_replay}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--double")
    ap.add_argument("--old")
    ap.add_argument("--work", default="nvml-metrics")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        print(";".join(CASES))
        return 0
    args.work = os.path.join(os.path.abspath(args.work), args.case or "all")
    os.makedirs(args.work, exist_ok=True)
    for c in [args.case] if args.case else list(CASES):
        CASES[c](args)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
