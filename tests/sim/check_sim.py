#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Simulated nodes (docs/sim.md) through the axl command.

usage: check_sim.py --list
       check_sim.py --axl AXL --work DIR --case NAME

Cases:
  inventory.SPEC   axl list --json --sim SPEC validates against the schema and holds
                   exactly the spec's devices: ids, UUIDs, memory from the database, MIG
                   profiles and mode, links of the spec; list, show and topo work
  metrics.SPEC     axl metrics --json --interval 50ms --count 3: values in range,
                   utilisation changing, energy increasing; top --batch; Prometheus
  refuses.NAME     a malformed spec is refused with exit 1 and a message naming the
                   line and the field
  no_hardware      no vendor library, no sysfs: a missing NVML library draws no warning,
                   the inventory has no warnings and only the spec's devices
  deterministic    the same spec gives the same UUIDs run after run
  sysroot_conflict --sim with --sysroot is a usage error; AXL_SIM works like --sim
  visibility_env   the shell's CUDA_VISIBLE_DEVICES is not applied to a simulated node and
                   draws one warning naming it and --env (JSON and stderr); with --env
                   it applies and draws none; without it, none
  newer            a spec of schema_version 99 with keys this axl does not know gives
                   the same node as version 1 and exactly one warning naming the file
                   and both versions (list, list --json, plan)
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMAS = os.path.join(ROOT, "schema")
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import visvars  # noqa: E402  the visibility variables: a shell's do not reach the tests

SPECS = {
    "h100x2": "h100x2.json",
    "h100x8_nvswitch": "h100x8-nvswitch.json",
    "mi300x8": "mi300x8.json",
    "mixed": "mixed.json",
    "a100_mig_off": "a100-mig-off.json",
}

# What each spec must give: [(prefix, model, memory GiB, MIG mode or None)], links
EXPECT = {
    "h100x2": {"devices": [("nvidia", "NVIDIA H100 80GB HBM3", 80, "enabled")] * 2,
               "uuids": ["stub-device-0", "stub-device-1"], "links": {}},
    # no "mig" key: MIG-capable GPUs start with MIG off, as the hardware ships
    "h100x8_nvswitch": {"devices": [("nvidia", "NVIDIA H100 80GB HBM3", 80, "disabled")] * 8,
                        "links": {"nvswitch": 28}, "numa": [0, 0, 0, 0, 1, 1, 1, 1],
                        "hostname": "dgx-h100-sim"},
    "mi300x8": {"devices": [("amdgpu", "AMD Instinct MI300X", 192, None)] * 8, "links": {"xgmi": 28}},
    "mixed": {"devices": [("nvidia", "NVIDIA H100 80GB HBM3", 80, "disabled")] * 2 +
              [("nvidia", "NVIDIA L4", 24, None)] * 2 + [("nvidia", "NVIDIA GeForce RTX 4090", 24, None),
                                                          ("amdgpu", "AMD Instinct MI300X", 192, None)],
              "uuids": ["GPU-mixed-h100-a", "GPU-mixed-h100-b", None, None, None, None],
              "links": {"nvlink": 1}, "numa": [0, 0, 1, 1, 1, 0]},
    "a100_mig_off": {"devices": [("nvidia", "NVIDIA A100-SXM4-80GB", 80, "disabled")] * 2 +
                     [("nvidia", "NVIDIA H100 80GB HBM3", 80, "enabled")], "links": {}},
}

GOOD = '"schema": "axl.sim",\n  "schema_version": 1,\n'
# name: (spec text, what the message must hold)
BAD = {
    "json_syntax": ('{\n  ' + GOOD + '  "devices": [\n    {"model": "NVIDIA H100 80GB HBM3", "count": 2,}\n  ]\n}\n',
                    ":5: (json): expected a key"),
    "schema": ('{\n  "schema": "axl.inventory",\n  "schema_version": 1,\n  "devices": []\n}\n', ":2: schema: must be \"axl.sim\""),
    "schema_version": ('{\n  "schema": "axl.sim",\n  "schema_version": 0,\n  "devices": []\n}\n',
                       ":3: schema_version: must be a positive integer (this axl reads 1)"),
    "schema_version_string": ('{\n  "schema": "axl.sim",\n  "schema_version": "2",\n  "devices": []\n}\n',
                              ":3: schema_version: must be a positive integer (this axl reads 1)"),
    # a later version skips keys it does not know, not values it does
    "newer_bad_value": ('{\n  "schema": "axl.sim",\n  "schema_version": 99,\n  "devices": [{"model": "NVIDIA L4",\n'
                        '    "count": 0, "added_later": 1}]\n}\n', ":5: devices[0].count: must be an integer 1..1024"),
    "no_devices": ('{\n  ' + GOOD + '  "devices": []\n}\n', ":4: devices: must be an array of 1 to 256 objects"),
    "unknown_model": ('{\n  ' + GOOD + '  "devices": [\n    {"model": "NVIDIA H100 SXM", "count": 1}\n  ]\n}\n',
                      ":5: devices[0].model: 'NVIDIA H100 SXM' is not a model of the device database; close: "),
    "bad_count": ('{\n  ' + GOOD + '  "devices": [\n    {"model": "NVIDIA L4",\n     "count": 0}\n  ]\n}\n',
                  ":6: devices[0].count: must be an integer 1..1024"),
    "count_float": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "count": 1.5}]\n}\n',
                    ":4: devices[0].count: must be an integer 1..1024"),
    "duplicate_uuid": ('{\n  ' + GOOD + '  "devices": [\n    {"model": "NVIDIA L4", "uuids": ["a"]},\n'
                       '    {"model": "NVIDIA L4", "uuids": ["b",\n      "A"]}\n  ]\n}\n',
                       ":7: devices[1].uuids[1]: 'A' is given twice"),
    "uuid_colon": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "uuids": ["GPU:0"]}]\n}\n',
                   ":4: devices[0].uuids[0]: 'GPU:0' holds ':'"),
    "uuid_comma": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "uuids": ["a,b"]}]\n}\n',
                   ":4: devices[0].uuids[0]: 'a,b' holds ','"),
    "unknown_key": ('{\n  ' + GOOD + '  "devices": [\n    {"model": "NVIDIA L4", "count": 1,\n     "numa": 0}\n  ]\n}\n',
                    ":6: devices[0].numa: unknown key"),
    "unknown_top_key": ('{\n  ' + GOOD + '  "device": [{"model": "NVIDIA L4", "count": 1}]\n}\n',
                        ":4: device: unknown key"),
    "uuids_and_count": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "count": 1, "uuids": ["x"]}]\n}\n',
                        ":4: devices[0].count: give uuids or count, not both"),
    "mig_no_mig": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "count": 1,\n    "mig": true}]\n}\n',
                   ":5: devices[0].mig: NVIDIA L4 has no MIG"),
    "bad_numa": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "count": 1, "numa_node": -1}]\n}\n',
                 ":4: devices[0].numa_node: must be an integer 0..63"),
    "link_index": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "count": 2}],\n'
                   '  "links": [{"a": 0, "b": 2, "kind": "nvlink"}]\n}\n', ":5: links[0].b: must be an integer 0..1"),
    "fabric": ('{\n  ' + GOOD + '  "devices": [{"model": "NVIDIA L4", "count": 2, "fabric": "nvswitch"}]\n}\n',
               ":4: devices[0].fabric: NVIDIA L4 does not attach to an NVSwitch"),
    "host_numa": ('{\n  ' + GOOD + '  "host": {"numa_nodes": 1},\n  "devices": [{"model": "NVIDIA L4", "count": 1, "numa_node": 1}]\n}\n',
                  ":4: host.numa_nodes: 1, but a device is on NUMA node 1"),
    "not_object": ('[1, 2]\n', ":1: (document): must be an object"),
    "empty": ('', ":1: (json): unexpected end"),
}


def run(args, env=None, check=True):
    e = visvars.clean(os.environ)
    e.pop("AXL_SIM", None)
    e.pop("AXL_SYSROOT", None)
    if env:
        e.update(env)
    p = subprocess.run(args, capture_output=True, text=True, env=e, timeout=60)
    if check and p.returncode != 0:
        raise SystemExit("FAIL: %s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def validate(schema, path):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tools", "validate_json.py"),
                        os.path.join(SCHEMAS, schema), path], capture_output=True, text=True)
    if p.returncode == 77:
        print("jsonschema missing: schema not checked")
        return
    if p.returncode != 0:
        raise SystemExit("FAIL: %s does not validate against %s:\n%s%s" % (path, schema, p.stdout, p.stderr))


def fail(msg):
    raise SystemExit("FAIL: " + msg)


def case_inventory(axl, work, name):
    spec = os.path.join(HERE, SPECS[name])
    exp = EXPECT[name]
    p = run([axl, "--sim", spec, "list", "--json"])
    out = os.path.join(work, name + ".json")
    with open(out, "w") as f:
        f.write(p.stdout)
    validate("axl-inventory.schema.json", out)
    doc = json.loads(p.stdout)
    devs = doc["devices"]
    if len(devs) != len(exp["devices"]):
        fail("%d devices, the spec has %d" % (len(devs), len(exp["devices"])))
    if doc.get("warnings"):
        fail("warnings on a simulated node: %s" % doc["warnings"])
    counters = {}
    seen = set()
    for i, (d, (prefix, model, gib, mig)) in enumerate(zip(devs, exp["devices"])):
        idx = counters.get(prefix, 0)
        counters[prefix] = idx + 1
        if d["id"] != "%s:%d" % (prefix, idx):
            fail("device %d: id %s, expected %s:%d" % (i, d["id"], prefix, idx))
        if d["model"] != model:
            fail("%s: model %r, expected %r" % (d["id"], d["model"], model))
        if d["memory"]["total_bytes"] != gib << 30:
            fail("%s: memory %s" % (d["id"], d["memory"]))
        src = d.get("field_sources", {})
        if src.get("uuid") != "sim" or src.get("memory.total_bytes") != "devicedb" or src.get("pci.address") != "sim":
            fail("%s: sources %s" % (d["id"], src))
        uuids = exp.get("uuids")
        if uuids and uuids[i] and d["uuid"] != uuids[i]:
            fail("%s: uuid %r, expected %r" % (d["id"], d["uuid"], uuids[i]))
        if prefix == "nvidia" and not (uuids and uuids[i]) and not re.match(r"^GPU-[0-9a-f]{8}-", d["uuid"]):
            fail("%s: generated uuid %r is not GPU-..." % (d["id"], d["uuid"]))
        if d["uuid"] in seen:
            fail("uuid %s twice" % d["uuid"])
        seen.add(d["uuid"])
        if "numa" in exp and d["numa_node"] != exp["numa"][i]:
            fail("%s: numa_node %s, expected %s" % (d["id"], d["numa_node"], exp["numa"][i]))
        migs = [p for p in d.get("partitioning", []) if p["technology"] == "MIG"]
        if mig is None:
            if migs:
                fail("%s: MIG on a GPU without it" % d["id"])
        else:
            if len(migs) != 1 or migs[0].get("mode") != mig or not migs[0].get("profiles"):
                fail("%s: MIG %s, expected mode %s with profiles" % (d["id"], migs, mig))
    kinds = {}
    for l in doc.get("links", []):
        kinds[l["kind"]] = kinds.get(l["kind"], 0) + 1
    for k, n in exp["links"].items():
        if kinds.get(k) != n:
            fail("%d %s links, expected %d (links: %s)" % (kinds.get(k, 0), k, n, kinds))
    if "hostname" in exp and doc["host"]["hostname"] != exp["hostname"]:
        fail("hostname %s" % doc["host"]["hostname"])
    # the tables too
    run([axl, "--sim", spec, "list"])
    run([axl, "--sim", spec, "topo"])
    s = run([axl, "--sim", spec, "show", devs[-1]["uuid"]]).stdout
    if devs[-1]["id"] not in s:
        fail("show by UUID did not show %s" % devs[-1]["id"])
    a = run([axl, "--sim", spec, "list", "--json", "--all"])
    out2 = os.path.join(work, name + "-all.json")
    with open(out2, "w") as f:
        f.write(a.stdout)
    validate("axl-inventory.schema.json", out2)


def case_metrics(axl, work, name):
    spec = os.path.join(HERE, SPECS[name])
    inv = json.loads(run([axl, "--sim", spec, "list", "--json"]).stdout)
    tdp = {d["id"]: d.get("power", {}).get("tdp_watts") for d in inv["devices"]}
    mem = {d["id"]: d["memory"]["total_bytes"] for d in inv["devices"]}
    p = run([axl, "--sim", spec, "metrics", "--json", "--interval", "50ms", "--count", "3"])
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    if len(lines) != 3:
        fail("%d documents, expected 3" % len(lines))
    docs = []
    for k, l in enumerate(lines):
        path = os.path.join(work, "%s-metrics-%d.json" % (name, k))
        with open(path, "w") as f:
            f.write(l)
        validate("axl-metrics.schema.json", path)
        docs.append(json.loads(l))
    ids = [d["id"] for d in docs[0]["devices"]]
    if ids != [d["id"] for d in inv["devices"]]:
        fail("metrics devices %s, inventory %s" % (ids, [d["id"] for d in inv["devices"]]))
    for dev_id in ids:
        rows = [next(x for x in doc["devices"] if x["id"] == dev_id) for doc in docs]
        for r in rows:
            if r["state"] != "ok":
                fail("%s: state %s" % (dev_id, r["state"]))
            if r["sources"].get("power_watts") != "sim" or r["sources"].get("utilization_percent") != "sim":
                fail("%s: power source %s" % (dev_id, r["sources"]))
            if not 0 <= r["utilization_percent"] <= 100:
                fail("%s: utilisation %s" % (dev_id, r["utilization_percent"]))
            if not 0 < r["memory_used_bytes"] <= mem[dev_id]:
                fail("%s: memory used %s of %s" % (dev_id, r["memory_used_bytes"], mem[dev_id]))
            if r["memory_total_bytes"] != mem[dev_id]:
                fail("%s: memory total %s" % (dev_id, r["memory_total_bytes"]))
            if tdp[dev_id] and not 0 < r["power_watts"] <= tdp[dev_id]:
                fail("%s: power %s W, TDP %s W" % (dev_id, r["power_watts"], tdp[dev_id]))
            if not 20 <= r["temperature_celsius"] <= 100:
                fail("%s: temperature %s" % (dev_id, r["temperature_celsius"]))
            if r["ecc_errors"] != {"corrected": 0, "uncorrected": 0}:
                fail("%s: ecc %s" % (dev_id, r["ecc_errors"]))
            if not 100 <= r["sm_clock_mhz"] <= 3000:
                fail("%s: sm clock %s" % (dev_id, r["sm_clock_mhz"]))
        e = [r["energy_joules"] for r in rows]
        if not e[0] < e[1] < e[2]:
            fail("%s: energy does not increase: %s" % (dev_id, e))
        u = [r["utilization_percent"] for r in rows]
        if len(set(u)) == 1:
            fail("%s: utilisation does not change: %s" % (dev_id, u))
    if any(doc.get("processes") for doc in docs):
        fail("processes on a simulated node")
    # the other consumers of samples
    t = run([axl, "--sim", spec, "top", "--batch", "--count", "2", "--interval", "50ms"]).stdout
    if t.count("axl top") != 2 or ids[0] not in t:
        fail("top --batch:\n" + t)
    run([axl, "--sim", spec, "metrics"])
    # same spec, same walk: the values are a function of the UUID and the sample's number
    p2 = run([axl, "--sim", spec, "metrics", "--json", "--interval", "50ms", "--count", "3"])
    again = [json.loads(l) for l in p2.stdout.splitlines() if l.strip()]
    if [[d["utilization_percent"] for d in x["devices"]] for x in again] != \
            [[d["utilization_percent"] for d in x["devices"]] for x in docs]:
        fail("the utilisation differs between runs of the same spec")


def case_refuses(axl, work, name):
    text, want = BAD[name]
    path = os.path.join(work, "bad-%s.json" % name)
    with open(path, "w") as f:
        f.write(text)
    for args, env in (([axl, "--sim", path, "list"], None), ([axl, "list"], {"AXL_SIM": path})):
        p = run(args, env=env, check=False)
        if p.returncode != 1:
            fail("%s: exit %d, expected 1\n%s%s" % (name, p.returncode, p.stdout, p.stderr))
        if path + want not in p.stderr:
            fail("%s: message %r does not hold %r" % (name, p.stderr, path + want))
        if p.stdout:
            fail("%s: printed %r" % (name, p.stdout))
    print(p.stderr.strip())


def case_no_hardware(axl, work):
    spec = os.path.join(HERE, SPECS["h100x2"])
    env = {"AXL_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1", "AXL_ROCM_SMI_LIBRARY": "/nonexistent/librocm.so",
           "AXL_ZE_LIBRARY": "/nonexistent/libze.so"}
    p = run([axl, "-v", "--sim", spec, "list", "--json", "--timing"], env=env)
    doc = json.loads(p.stdout)
    if p.stderr.strip():
        fail("diagnostics on a simulated node: %r" % p.stderr)
    if doc.get("warnings"):
        fail("warnings: %s" % doc["warnings"])
    if [d["uuid"] for d in doc["devices"]] != ["stub-device-0", "stub-device-1"]:
        fail("devices %s" % [d["id"] for d in doc["devices"]])
    if list(doc.get("timing", {})) != ["sim"]:
        fail("discovery stages ran: %s" % doc.get("timing"))
    # given explicitly, the variables apply to the simulated node
    e = json.loads(run([axl, "--sim", spec, "--env", "CUDA_VISIBLE_DEVICES=1", "--env",
                       "CUDA_DEVICE_ORDER=PCI_BUS_ID", "list", "--json"]).stdout)
    if [d["visibility"]["visible"] for d in e["devices"]] != [False, True]:
        fail("--env CUDA_VISIBLE_DEVICES=1: %s" % [d["visibility"] for d in e["devices"]])
    m = run([axl, "-v", "--sim", spec, "metrics", "--json"], env=env)
    if m.stderr.strip():
        fail("diagnostics while sampling: %r" % m.stderr)
    # strace, where there is one: no /sys, /proc/<pid>, /dev or vendor library is opened
    if subprocess.run(["sh", "-c", "command -v strace"], capture_output=True).returncode == 0:
        log = os.path.join(work, "strace.log")
        r = subprocess.run(["strace", "-f", "-e", "trace=open,openat,openat2", "-o", log, axl, "--sim", spec,
                            "metrics", "--json"], capture_output=True, text=True)
        if r.returncode == 0:
            opened = open(log).read()
            for bad in ("\"/sys/", "\"sys/", "\"/dev", "\"dev", "\"/proc/", "\"proc/", "libnvidia-ml", "librocm",
                        "libze_loader", "fdinfo"):
                if bad in opened:
                    fail("a simulated node tried to open %s:\n%s" % (bad, opened))


def case_visibility_env(axl, work):
    spec = os.path.join(HERE, SPECS["h100x8_nvswitch"])
    shell = {"CUDA_VISIBLE_DEVICES": "0"}
    line = ("%s: CUDA_VISIBLE_DEVICES set in the environment is not applied to a simulated node; "
            "--env CUDA_VISIBLE_DEVICES=... judges visibility on it (axl_context_options.env)" % spec)
    # the shell's variable: not applied, said once (JSON warnings[], and one line on stderr)
    p = run([axl, "--sim", spec, "list", "--json"], env=shell)
    doc = json.loads(p.stdout)
    ws = doc["warnings"]
    if len(ws) != 1 or ws[0].get("source") != "visibility" or "%s: %s" % (ws[0].get("path"),
                                                                            ws[0].get("message")) != line:
        fail("CUDA_VISIBLE_DEVICES=0 in the environment: warnings %r, expected one: %r" % (ws, line))
    if not all(d["visibility"]["visible"] for d in doc["devices"]):
        fail("the process's CUDA_VISIBLE_DEVICES applied to a simulated node: %s" %
             [d["visibility"] for d in doc["devices"]])
    p = run([axl, "--sim", spec, "list"], env=shell)
    if p.stderr.splitlines() != ["axl: warning: " + line]:
        fail("axl list with CUDA_VISIBLE_DEVICES=0: stderr %r" % p.stderr)
    # given explicitly it applies, and there is nothing to say
    for args in (["list", "--json"], ["list"]):
        p = run([axl, "--sim", spec, "--env", "CUDA_VISIBLE_DEVICES=0"] + args, env=shell)
        if p.stderr.strip():
            fail("--env CUDA_VISIBLE_DEVICES=0 %s: stderr %r" % (" ".join(args), p.stderr))
    doc = json.loads(run([axl, "--sim", spec, "--env", "CUDA_VISIBLE_DEVICES=0", "list", "--json"],
                         env=shell).stdout)
    if doc["warnings"]:
        fail("--env CUDA_VISIBLE_DEVICES=0: warnings %r" % doc["warnings"])
    vis = [d["visibility"]["visible"] for d in doc["devices"]]
    if len(vis) != 8 or vis != [True] + [False] * 7:
        fail("--env CUDA_VISIBLE_DEVICES=0: visible %s" % vis)
    # no variable: no warning
    p = run([axl, "--sim", spec, "list", "--json"])
    doc = json.loads(p.stdout)
    if doc["warnings"] or p.stderr.strip():
        fail("no variable: warnings %r, stderr %r" % (doc["warnings"], p.stderr))


def case_deterministic(axl, work):
    spec = os.path.join(HERE, SPECS["mi300x8"])
    a = json.loads(run([axl, "--sim", spec, "list", "--json"]).stdout)
    b = json.loads(run([axl, "--sim", spec, "list", "--json"]).stdout)
    ua = [d["uuid"] for d in a["devices"]]
    if ua != [d["uuid"] for d in b["devices"]] or len(set(ua)) != len(ua):
        fail("UUIDs differ between runs or repeat: %s" % ua)


def case_sysroot_conflict(axl, work):
    spec = os.path.join(HERE, SPECS["h100x2"])
    p = run([axl, "--sim", spec, "--sysroot", "/", "list"], check=False)
    if p.returncode != 2 or "--sim and --sysroot" not in p.stderr:
        fail("--sim with --sysroot: exit %d %r" % (p.returncode, p.stderr))
    p = run([axl, "list"], env={"AXL_SIM": spec, "AXL_SYSROOT": "/"}, check=False)
    if p.returncode != 1 or "AXL_SIM" not in p.stderr:
        fail("AXL_SIM with AXL_SYSROOT: exit %d %r" % (p.returncode, p.stderr))
    p = run([axl, "list", "--json"], env={"AXL_SIM": spec})
    if [d["uuid"] for d in json.loads(p.stdout)["devices"]] != ["stub-device-0", "stub-device-1"]:
        fail("AXL_SIM did not simulate")
    p = run([axl, "--sim", spec, "capture", "-o", os.path.join(work, "x.tar.gz")], check=False)
    if p.returncode == 0:
        fail("capture of a simulated node")


def case_newer(axl, work):
    src = os.path.join(HERE, SPECS["h100x8_nvswitch"])
    with open(src) as f:
        spec = json.load(f)
    spec["schema_version"] = 99
    spec["added_later"] = {"power_cap_w": 700}
    spec["devices"][0]["added_later"] = "x"
    spec.setdefault("host", {})["added_later"] = 1
    path = os.path.join(work, "node-v99.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    want = json.loads(run([axl, "--sim", src, "list", "--json"]).stdout)
    got = json.loads(run([axl, "--sim", path, "list", "--json"]).stdout)
    for k in ("host", "devices", "links"):
        if got.get(k) != want.get(k):
            fail("%s differs from the version 1 spec's" % k)
    line = "%s: schema_version 99 is newer than this axl reads (1); reading what it understands" % path
    ws = got.get("warnings", [])
    if len(ws) != 1 or "%s: %s" % (ws[0].get("path"), ws[0].get("message")) != line:
        fail("warnings %r" % ws)
    for args in (["list"], ["plan", "llama3.1-70b"], ["topo"]):
        p = run([axl, "--sim", path] + args)
        if p.stderr.splitlines() != ["axl: warning: " + line]:
            fail("%s: stderr %r" % (" ".join(args), p.stderr))
    p1 = run([axl, "--sim", src, "plan", "llama3.1-70b", "--json"])
    p99 = run([axl, "--sim", path, "plan", "llama3.1-70b", "--json"])
    if p1.stdout != p99.stdout:
        fail("the plan differs from the version 1 spec's")


def cases():
    return (["inventory." + n for n in SPECS] + ["metrics." + n for n in SPECS] +
            ["refuses." + n for n in BAD] + ["no_hardware", "visibility_env", "deterministic", "sysroot_conflict",
                                             "newer"])


def main():
    args = sys.argv[1:]
    if args == ["--list"]:
        print(";".join(cases()))
        return 0
    opts = dict(zip(args[::2], args[1::2]))
    axl, work, case = opts["--axl"], opts["--work"], opts["--case"]
    os.makedirs(work, exist_ok=True)
    kind, _, name = case.partition(".")
    if kind == "inventory":
        case_inventory(axl, work, name)
    elif kind == "metrics":
        case_metrics(axl, work, name)
    elif kind == "refuses":
        case_refuses(axl, work, name)
    elif case == "no_hardware":
        case_no_hardware(axl, work)
    elif case == "visibility_env":
        case_visibility_env(axl, work)
    elif case == "deterministic":
        case_deterministic(axl, work)
    elif case == "sysroot_conflict":
        case_sysroot_conflict(axl, work)
    elif case == "newer":
        case_newer(axl, work)
    else:
        print("unknown case " + case)
        return 2
    print("ok " + case)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
