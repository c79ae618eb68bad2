#!/usr/bin/python3
"""axl dra-plugin's partitionable devices (slices.h, pool.h) against the fake API server
(fake_apiserver.py, which validates every slice against the v1 schema and the counter
rules of pkg/apis/resource/validation): MIG instances made with `axl partition create` on
the simulated 8xH100 with two GPUs in MIG mode (tests/sim/h100x8-mig2.json), published as
devices that consume the counters of their GPU's counter set, the GPU consuming all of
them; read back as the scheduler's allocator reads counters (KEP-4815: a set of devices is
allocatable together when, for each counter set, what they consume fits in its counters).

usage: check_partitions.py --axl AXL --work DIR --case CASE
  CASE partitions: the counters, their consistency, the scheduler's view; mi300x8 and mixed
                   (no partitions) publish no counters; --partitionable-devices off: whole
                   devices only; two MI300X in CPX mode (tests/trees/nodes/mi300x-2x-cpx-nps4:
                   partitions that replace their GPU, AXL_RUNTIME_PARTITIONS_REPLACE): the 16
                   partitions, not the GPUs, without counters, in every mode
  CASE gate_off:   a server without the DRAPartitionableDevices gate (it drops the fields as
                   strategy.go does): auto falls back to whole devices, said once, no request
                   after; on keeps publishing without counters, said once, no loop
  CASE prepare:    NodePrepareResources through the fake kubelet (check_kubelet.py's Env)
                   for a claim of a MIG device and one of a GPU: the CDI id of each, from the
                   specs the driver wrote, the MIG device's own UUID
  CASE limits:     26 GPUs, 20 in MIG mode with 3 partitions each: 20 counter sets over 3
                   slices (at most 8 a slice), 86 devices over 2 slices (at most 64 with
                   counters), no slice with both
The work directory is removed when the check passes, kept when it fails (tests/workdir.py).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_slices import (DRIVER, TOKEN, Fail, Plugin, Server, check, kubeconfig, make_certs,  # noqa: E402
                          wait_for, write_sim)

UNITS = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3,
         "Ti": 1024**4}


def qty(s):
    for suf in sorted(UNITS, key=len, reverse=True):
        if suf and s.endswith(suf):
            return int(s[:-len(suf)]) * UNITS[suf]
    return int(s)


def pool(srv, node):
    """(devices, counter sets) of a complete pool (one generation, every slice there), else None"""
    slices = srv.pool(node)
    if not slices:
        return None
    if len({s["spec"]["pool"]["generation"] for s in slices}) != 1 or \
            {s["spec"]["pool"]["resourceSliceCount"] for s in slices} != {len(slices)}:
        return None
    return ([d for s in slices for d in s["spec"].get("devices") or []],
            [c for s in slices for c in s["spec"].get("sharedCounters") or []])


def partition(axl, sim, env, dev, profile):
    r = subprocess.run([axl, "--sim", sim, "partition", "create", dev, profile], capture_output=True, text=True,
                       env=env, timeout=60)
    check(r.returncode == 0, "axl partition create %s %s: %s" % (dev, profile, r.stderr[-300:]))


def fits(devs, sets):
    """The allocator's check (KEP-4815): the devices' consumption of each counter fits."""
    left = {c["name"]: {k: qty(v["value"]) for k, v in c["counters"].items()} for c in sets}
    for d in devs:
        for cc in d.get("consumesCounters") or []:
            for k, v in cc["counters"].items():
                left[cc["counterSet"]][k] -= qty(v["value"])
    return all(v >= 0 for c in left.values() for v in c.values())


def check_counters(devs, sets, parts_of):
    """The counters are valid and consistent; parts_of: {gpu name: number of partitions}."""
    byname = {d["name"]: d for d in devs}
    setnames = {c["name"]: c for c in sets}
    check(sorted(setnames) == sorted(g for g, n in parts_of.items() if n),
          "counter sets %s, GPUs with partitions %s" % (sorted(setnames), parts_of))
    for gpu, n in parts_of.items():
        d = byname[gpu]
        if not n:
            check("consumesCounters" not in d, "%s has no partition but consumes counters" % gpu)
            continue
        cs = setnames[gpu]["counters"]
        check(len(cs) <= 32 and cs["partitions"]["value"] == str(n), "%s: counters %s" % (gpu, cs))
        # the whole GPU consumes its set in full
        check(d["consumesCounters"] == [{"counterSet": gpu, "counters": cs}], "%s consumes %s" % (gpu, d))
        parts = [p for p in devs if p["attributes"].get("parent", {}).get("string") == gpu]
        check(len(parts) == n, "%s: %d partitions published, %d made" % (gpu, len(parts), n))
        for p in parts:
            cc = p["consumesCounters"]
            check(len(cc) == 1 and cc[0]["counterSet"] == gpu and set(cc[0]["counters"]) == set(cs),
                  "%s consumes %s" % (p["name"], cc))
            check(cc[0]["counters"]["partitions"]["value"] == "1", "%s: %s" % (p["name"], cc))
            if "memory" in cs:
                check(cc[0]["counters"]["memory"]["value"] == p["capacity"]["memory"]["value"],
                      "%s: memory %s, capacity %s" % (p["name"], cc, p["capacity"]))
            # as the scheduler sees it: a partition alone fits, never with its GPU
            check(fits([p], sets) and not fits([p, d], sets), "%s with %s: counters %s" % (p["name"], gpu, cs))
        check(fits(parts, sets), "%s: its partitions do not fit together" % gpu)
        check(fits([d], sets), "%s alone does not fit" % gpu)


def mig_node(axl, work, name, layout):
    """A copy of h100x8-mig2 with its own state directory and the MIG devices of layout
    ({gpu id: [profiles]}); (sim path, env)"""
    path = os.path.join(work, name + ".json")
    write_sim(path, "h100x8-mig2.json")
    env = dict(os.environ, AXL_STATE_DIR=os.path.join(work, "state-" + name))
    os.makedirs(env["AXL_STATE_DIR"])
    for dev, profiles in layout.items():
        for prof in profiles:
            partition(axl, path, env, dev, prof)
    return path, env


def plugin(axl, work, sim, node, kcfg, env, extra=()):
    return Plugin(axl, work, sim, node, kcfg, extra=list(extra), env_extra={"AXL_STATE_DIR": env["AXL_STATE_DIR"]})


def case_partitions(axl, work, srv, kcfg):
    sim, env = mig_node(axl, work, "mig", {"nvidia:0": ["3g.40gb", "2g.20gb", "1g.10gb"], "nvidia:1": ["7g.80gb"]})
    ps = [plugin(axl, work, sim, "node-0", kcfg, env),
          plugin(axl, work, sim, "node-1", kcfg, env, ["--partitionable-devices", "off"])]
    try:
        devs, sets = wait_for("published", lambda: pool(srv, "node-0"), 10, ps[0])
        parts_of = {"nvidia-%d" % i: 0 for i in range(8)}
        parts_of.update({"nvidia-0": 3, "nvidia-1": 1})
        check(len(devs) == 12, "%d devices: %s" % (len(devs), [d["name"] for d in devs]))
        check_counters(devs, sets, parts_of)
        cs0 = {c["name"]: c["counters"] for c in sets}["nvidia-0"]
        check(set(cs0) == {"partitions", "memory", "compute-units"} and cs0["memory"]["value"] == "80Gi",
              "nvidia-0's counters: %s" % cs0)
        for p in devs:
            if "parent" in p["attributes"]:
                at = p["attributes"]
                check(at["uuid"]["string"].startswith("MIG-") and "profile" in at, "%s: %s" % (p["name"], at))
        for s in srv.pool("node-0"):
            check(not (s["spec"].get("devices") and s["spec"].get("sharedCounters")), "a slice with both")
        print("h100x8-mig2 with 4 MIG devices: %d devices, counter sets %s, nvidia-0's %s" %
              (len(devs), sorted(c["name"] for c in sets), {k: v["value"] for k, v in cs0.items()}))
        whole, wsets = wait_for("published (off)", lambda: pool(srv, "node-1"), 10, ps[1])
        check(not wsets and sorted(d["name"] for d in whole) == sorted(parts_of) and
              not any("consumesCounters" in d for d in whole), "off: %s" % [d["name"] for d in whole])
        print("--partitionable-devices off: the 8 GPUs, no counters")
    finally:
        for p in ps:
            p.stop()
    # nodes without partitions: as without the option
    for i, (base, n) in enumerate((("mi300x8.json", 8), ("mixed.json", 6))):
        path = os.path.join(work, base)
        write_sim(path, base)
        p = Plugin(axl, work, path, "node-%d" % (i + 2), kcfg)
        try:
            devs, sets = wait_for("%s published" % base, lambda: pool(srv, "node-%d" % (i + 2)), 10, p)
            check(len(devs) == n and not sets and not any("consumesCounters" in d for d in devs),
                  "%s: %s" % (base, devs))
            print("%s (no partitions): %d devices, no counters" % (base, n))
        finally:
            p.stop()
    cpx(axl, work, srv, kcfg)
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def cpx(axl, work, srv, kcfg):
    trees = os.path.join(HERE, "..", "..", "trees")
    t = os.path.join(work, "tree-cpx")
    subprocess.run([sys.executable, os.path.join(trees, "mktree.py"),
                    os.path.join(trees, "nodes", "mi300x-2x-cpx-nps4.json"), t], check=True, stdout=subprocess.DEVNULL)
    for mode, node in (("auto", "node-4"), ("off", "node-5")):
        p = Plugin(axl, work, None, node, kcfg, extra=["--partitionable-devices", mode], node_args=["--sysroot", t])
        try:
            devs, sets = wait_for("CPX published (%s)" % mode, lambda: pool(srv, node), 15, p)
            names = sorted(d["name"] for d in devs)
            check(len(devs) == 16 and not sets and not any("consumesCounters" in d for d in devs) and
                  all(d["attributes"].get("parent", {}).get("string") in ("amdgpu-0", "amdgpu-1") for d in devs),
                  "CPX, %s: %s" % (mode, names))
        finally:
            p.stop()
    print("2 MI300X in CPX mode: the 16 partitions (%s ...), not the GPUs, no counters, auto and off" % names[0])


def case_gate_off(axl, work, srv, kcfg):
    srv.call("POST", "/_fake/gate", {"name": "DRAPartitionableDevices", "enabled": False})
    sim, env = mig_node(axl, work, "mig", {"nvidia:0": ["3g.40gb", "3g.40gb"]})
    p = plugin(axl, work, sim, "node-0", kcfg, env)
    try:
        def whole():
            got = pool(srv, "node-0")
            return got if got and len(got[0]) == 8 else None
        devs, sets = wait_for("whole devices", whole, 10, p)
        check(not sets and not any("consumesCounters" in d or "parent" in d["attributes"] for d in devs),
              "whole devices: %s" % devs)
        time.sleep(0.5)
        t0 = time.time()
        time.sleep(2)
        reqs = srv.requests(t0)
        text = p.text()
        check(not reqs, "requests after the fallback: %s" % reqs)
        check(text.count("DRAPartitionableDevices") == 1, "said %d times:\n%s" %
              (text.count("DRAPartitionableDevices"), text[-2000:]))
        print("gate off, auto: the 8 GPUs whole, said once, no request in the 2 s after")
    finally:
        p.stop()
    p = plugin(axl, work, sim, "node-1", kcfg, env, ["--partitionable-devices", "on"])
    try:
        devs, sets = wait_for("published (on)", lambda: pool(srv, "node-1"), 10, p)
        check(len(devs) == 10 and not sets and not any("consumesCounters" in d for d in devs),
              "on: %s" % [d["name"] for d in devs])
        time.sleep(0.5)
        t0 = time.time()
        time.sleep(2)
        reqs = srv.requests(t0)
        text = p.text()
        check(not reqs and text.count("DRAPartitionableDevices") == 1, "on: %s\n%s" % (reqs, text[-2000:]))
        print("gate off, on: 10 devices without counters, said once, no request in the 2 s after")
    finally:
        p.stop()
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def case_limits(axl, work, srv, kcfg):
    path = os.path.join(work, "big.json")
    d = json.load(open(os.path.join(HERE, "..", "..", "sim", "h100x8-mig2.json")))
    d["devices"][0]["count"] = 20
    with open(path, "w") as f:
        json.dump(d, f)
    env = dict(os.environ, AXL_STATE_DIR=os.path.join(work, "state-big"))
    os.makedirs(env["AXL_STATE_DIR"])
    for i in range(20):
        for _ in range(3):
            partition(axl, path, env, "nvidia:%d" % i, "1g.10gb")
    p = plugin(axl, work, path, "node-big", kcfg, env)
    try:
        devs, sets = wait_for("published", lambda: pool(srv, "node-big"), 30, p)
        slices = srv.pool("node-big")
        nsets = [len(s["spec"]["sharedCounters"]) for s in slices if s["spec"].get("sharedCounters")]
        ndevs = [len(s["spec"]["devices"]) for s in slices if s["spec"].get("devices")]
        check(sorted(nsets) == [4, 8, 8] and sorted(ndevs) == [22, 64] and len(slices) == 5,
              "counter sets %s, devices %s in %d slices" % (nsets, ndevs, len(slices)))
        parts_of = {"nvidia-%d" % i: 3 if i < 20 else 0 for i in range(26)}
        check_counters(devs, sets, parts_of)
        print("26 GPUs, 60 MIG devices: counter sets in slices of %s, devices in slices of %s" % (nsets, ndevs))
    finally:
        p.stop()
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])
    refused(srv)


def refused(srv):
    """The fake API server refuses what validation.go refuses (so that the checks above can fail)."""
    def cset(name, n=1):
        return {"name": name, "counters": {"c%d" % i: {"value": "1"} for i in range(n)}}

    def dev(name, sets):
        return {"name": name, "consumesCounters": [{"counterSet": c, "counters": {"c0": {"value": "1"}}} for c in sets]}

    bad = {
        "devices and sharedCounters": {"devices": [dev("d", ["a"])], "sharedCounters": [cset("a")]},
        "9 counter sets": {"sharedCounters": [cset("s%d" % i) for i in range(9)]},
        "33 counters in a set": {"sharedCounters": [cset("a", 33)]},
        "a counter set twice": {"sharedCounters": [cset("a"), cset("a")]},
        "a counter set not a DNS label": {"sharedCounters": [cset("Nvidia_0")]},
        "3 consumptions": {"devices": [dev("d", ["a", "b", "c"])]},
        "65 devices with counters": {"devices": [dev("d%d" % i, ["a"]) for i in range(65)]},
    }
    for what, spec in bad.items():
        obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "bad-slice"},
               "spec": dict(spec, driver=DRIVER, nodeName="node-0",
                            pool={"name": "node-0", "generation": 1, "resourceSliceCount": 1})}
        try:
            srv.call("POST", "/apis/resource.k8s.io/v1/resourceslices", obj, token=TOKEN)
            raise Fail("the fake API server took a slice with %s" % what)
        except urllib.error.HTTPError as e:
            check(e.code == 422, "%s: HTTP %d" % (what, e.code))
    print("the fake API server refuses: %s" % ", ".join(bad))


def case_prepare(axl, work):
    import check_kubelet as ck  # grpc: only this case needs it
    env = ck.Env(axl, work, os.path.join(work, "mig.json"))
    write_sim(env.sim, "h100x8-mig2.json")
    os.makedirs(env.state, exist_ok=True)
    penv = dict(os.environ, AXL_STATE_DIR=env.state)
    for prof in ("3g.40gb", "3g.40gb"):
        partition(axl, env.sim, penv, "nvidia:0", prof)
    try:
        env.start_server()
        env.kubelet.start()
        env.start_driver()
        devs = wait_for("the pool", lambda: pool(env.srv, env.node), 15)[0]
        env.stop_driver()
        env.srv.stop()
        parts = [d for d in devs if "parent" in d["attributes"]]
        check(len(parts) == 2, "partitions published: %s" % [d["name"] for d in devs])
        mig, gpu = parts[0], "nvidia-2"
        env.add_claims([ck.claim("mig", "uid-mig", env.node, [("gpus", ck.DRIVER, mig["name"], False)]),
                        ck.claim("gpu", "uid-gpu", env.node, [("gpus", ck.DRIVER, gpu, False)])])
        env.start_server()
        env.start_driver()
        env.registered()
        r = env.kubelet.prepare(ck.DRIVER, [(ck.NS, "uid-mig", "mig"), (ck.NS, "uid-gpu", "gpu")])
        ck.check_prepared(env, r, "uid-mig", [mig["name"]])
        ck.check_prepared(env, r, "uid-gpu", [gpu])
        ids = list(r.claims["uid-mig"].devices[0].cdi_device_ids)
        check(len(ids) == 1 and ids[0].endswith("=" + mig["attributes"]["uuid"]["string"]),
              "%s: CDI ids %s, not its UUID" % (mig["name"], ids))
        print("prepare: %s is %s, %s is %s" % (mig["name"], ids[0], gpu,
                                              list(r.claims["uid-gpu"].devices[0].cdi_device_ids)[0]))
        u = env.kubelet.unprepare(ck.DRIVER, [(ck.NS, "uid-mig", "mig"), (ck.NS, "uid-gpu", "gpu")])
        check(not any(v.error for v in u.claims.values()), "unprepare: %s" % u)
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", required=True, choices=["partitions", "gate_off", "limits", "prepare"])
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    make_certs(work)
    if args.case == "prepare":
        try:
            case_prepare(args.axl, work)
        except Fail as e:
            print("FAIL: %s\n(the work directory %s is kept)" % (e, work))
            return 1
        print("ok")
        return 0
    srv = Server(work, ["node-0", "node-1", "node-2", "node-3", "node-4", "node-5", "node-big"])
    srv.start()
    try:
        kcfg = kubeconfig(work, srv.port, ca_inline=False)
        {"partitions": case_partitions, "gate_off": case_gate_off, "limits": case_limits}[args.case](
            args.axl, work, srv, kcfg)
    except Fail as e:
        print("FAIL: %s\n(the work directory %s is kept)" % (e, work))
        return 1
    finally:
        srv.stop()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
