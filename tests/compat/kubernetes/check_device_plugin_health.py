#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl device-plugin's health from the errors vendors report (docs/kubernetes.md, "Health"),
against the fake kubelet (check_device_plugin.py's harness), one case per run:

  nvml   the 8xH100 tree with NVML answering from the double, events injected through
         $AXL_NVML_DOUBLE_EVENTS: an application's Xid (13) leaves the GPU Healthy; Xid 79
         makes it Unhealthy within two health samples, named in the log, refused by
         Allocate, the other seven Healthy; Healthy again --health-recovery seconds after
         the last error, and not before a second Xid's time is up; a double-bit ECC error
         counts too. DP_DISABLE_HEALTHCHECKS=79 skips Xid 79 and not 48; =xids turns the
         checks off, DP_ENABLE_HEALTHCHECKS=13 then brings Xid 13 back; --health-checks
         none ignores all; --health-recovery 0 never recovers
  amd    the 8xMI300X tree with amdgpu's ras/<block>_err_count files written while the plugin
         runs: a rising "ue:" makes that GPU Unhealthy (named with its block), a rising
         "ce:", a "de:" line and "Query currently inaccessible" do not; Healthy again after
         --health-recovery seconds; --health-checks none ignores it

usage: check_device_plugin_health.py --axl AXL --double LIBNVML --case CASE --work DIR
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import grpc  # noqa: E402

import check_device_plugin as cdp  # noqa: E402
import fake_kubelet as fk  # noqa: E402

check = cdp.check
XML = os.path.join(cdp.TESTS, "vendorlib", "nvml", "double", "fixtures", "hgx-8x-h100-q2x.xml")
RECOVERY = 3


def wait_health(c, dev, want, timeout):
    """Seconds until dev's health in the last list is want; None when it was not within timeout."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if c.devices().get(dev, ("?",))[0] == want:
            return time.monotonic() - t0
        time.sleep(0.05)
    return None


def stays(c, dev, want, seconds):
    """dev's health stays want for that long."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if c.devices().get(dev, ("?",))[0] != want:
            return False
        time.sleep(0.05)
    return True


def healthy_count(c):
    return sum(1 for h, _ in c.devices().values() if h == "Healthy")


def refused(c, dev):
    try:
        c.allocate([dev])
    except grpc.RpcError as e:
        return e.code() == grpc.StatusCode.FAILED_PRECONDITION
    return False


# ---- NVIDIA: NVML events through the double ----------------------------------------------

class Nvml:
    def __init__(self, a, name):
        self.a = a
        self.t = cdp.tree(a, "hgx-8x-h100")
        self.events = os.path.join(a.work, name + ".events")
        with open(self.events, "w") as f:
            f.write("# NVML events, one a line: <uuid> xid N | <uuid> dbe\n")

    def env(self, **extra):
        env = cdp.base_env(self.a)
        for k in ("DP_DISABLE_HEALTHCHECKS", "DP_ENABLE_HEALTHCHECKS"):
            env.pop(k, None)
        env.update({"AXL_NVML_LIBRARY": self.a.double, "AXL_NVML_DOUBLE_XML": XML,
                    "AXL_NVML_DOUBLE_EVENTS": self.events})
        env.update(extra)
        return env

    def inject(self, uuid, what):
        with open(self.events, "a") as f:
            f.write("%s %s\n" % (uuid, what))

    def start(self, extra=(), **env):
        return cdp.start(self.a, self.pb, ["--sysroot", self.t], ["nvidia.com/gpu"],
                         ["--interval", "1s", "--health-recovery", "%ds" % RECOVERY, *extra], env=self.env(**env))


def case_nvml(a, pb):
    n = Nvml(a, "nvml")
    n.pb = pb
    inv = cdp.axl_json(a, ["--sysroot", n.t], "list", "--json", env=n.env())
    gpus = [d["uuid"] for d in inv.get("devices", []) if d["id"].startswith("nvidia:")]
    if not check(len(gpus) == 8 and all(g.startswith("GPU-") for g in gpus), "8 GPUs with NVML's UUIDs: %s" % gpus):
        return
    victim, other = gpus[3], gpus[5]
    k, p = n.start()
    c = k.clients.get("nvidia.com/gpu")
    if not c:
        cdp.stop(k, p)
        return
    check(healthy_count(c) == 8, "all eight Healthy at the start: %s" % c.devices())
    check(re.search(r"health: the errors vendors call critical; Healthy again after 3 s", p.stderr()),
          "the policy said at the start: %s" % p.stderr()[-500:])
    # an application's Xid: the GPU stays usable
    n.inject(victim, "xid 13")
    check(stays(c, victim, "Healthy", 2.5), "Xid 13 (an application's) leaves %s Healthy" % victim)
    check(p.wait_log(r"Xid 13 \(Graphics Engine Exception: an application's error\): ignored", 15),
          "Xid 13 said as ignored (-v): %s" % p.stderr()[-400:])
    # Xid 79: Unhealthy, the reason in the log, Allocate refuses it
    n.inject(victim, "xid 79")
    t0 = time.monotonic()
    dt = wait_health(c, victim, "Unhealthy", 5)
    check(dt is not None and dt <= 2.5, "Xid 79: %s Unhealthy within two health samples (%s s)" % (victim, dt))
    check(healthy_count(c) == 7, "the other seven stay Healthy: %s" % c.devices())
    check(re.search(r"nvidia:\d \(%s\): Xid 79 \(GPU has fallen off the bus\): Unhealthy until 3 s pass" % victim,
                    p.stderr()), "the Xid and its meaning in the log: %s" % p.stderr()[-600:])
    check(re.search(r"nvidia.com/gpu %s \(nvidia:\d\): unhealthy \(Xid 79" % victim, p.stderr()),
          "the health change says why: %s" % p.stderr()[-600:])
    check(refused(c, victim), "Allocate refuses the unhealthy GPU")
    check(len(c.allocate([other]).container_responses) == 1, "Allocate of another GPU still works")
    # a second Xid before the time is up: the time runs from the last one
    time.sleep(1.5)
    n.inject(victim, "xid 94")
    t1 = time.monotonic()
    back = wait_health(c, victim, "Healthy", 10)
    check(back is not None and time.monotonic() - t1 >= RECOVERY - 0.5,
          "Healthy again %s s after the last Xid (the first was %.1f s before it)" % (
              None if back is None else round(time.monotonic() - t1, 1), t1 - t0))
    check(back is not None and time.monotonic() - t1 <= RECOVERY + 3, "and not much later")
    check(p.wait_log(r"no critical error for 3 s \(the last: Xid 94 \(Contained ECC error\)\): Healthy again", 15),
          "the recovery said: %s" % p.stderr()[-400:])
    # a double-bit ECC error counts
    n.inject(other, "dbe")
    check(wait_health(c, other, "Unhealthy", 5) is not None, "a double-bit ECC error: %s Unhealthy" % other)
    check(p.wait_log(r"double-bit ECC error: Unhealthy", 15), "the ECC error in the log")
    check(cdp.stop(k, p) == 0, "SIGTERM: 0")

    # DP_DISABLE_HEALTHCHECKS with Xids: those are skipped, others still count
    k, p = n.start(DP_DISABLE_HEALTHCHECKS="79, 64")
    c = k.clients.get("nvidia.com/gpu")
    if c:
        check(p.wait_log(r"not Xid 79,64", 15), "the skipped Xids said: %s" % p.stderr()[-400:])
        n.inject(victim, "xid 79")
        check(stays(c, victim, "Healthy", 2.5), "DP_DISABLE_HEALTHCHECKS=79: Xid 79 ignored")
        check(p.wait_log(r"Xid 79 .*ignored \(DP_DISABLE_HEALTHCHECKS\)", 15), "said as skipped")
        n.inject(victim, "xid 48")
        check(wait_health(c, victim, "Unhealthy", 5) is not None, "DP_DISABLE_HEALTHCHECKS=79: Xid 48 still counts")
        cdp.stop(k, p)
    # =xids: the checks are off; DP_ENABLE_HEALTHCHECKS=13 then makes Xid 13 count
    k, p = n.start(DP_DISABLE_HEALTHCHECKS="xids", DP_ENABLE_HEALTHCHECKS="13")
    c = k.clients.get("nvidia.com/gpu")
    if c:
        n.inject(victim, "xid 79")
        n.inject(other, "dbe")
        check(stays(c, victim, "Healthy", 2.5) and c.devices()[other][0] == "Healthy",
              "DP_DISABLE_HEALTHCHECKS=xids: nothing counts")
        n.inject(victim, "xid 13")
        check(wait_health(c, victim, "Unhealthy", 5) is not None, "... but DP_ENABLE_HEALTHCHECKS=13 does")
        cdp.stop(k, p)
    # --health-checks none: no event counts, whatever the variables say
    k, p = n.start(["--health-checks", "none"], DP_ENABLE_HEALTHCHECKS="all")
    c = k.clients.get("nvidia.com/gpu")
    if c:
        check(p.wait_log(r"health checks off \(--health-checks none\)", 15), "the checks said off")
        n.inject(victim, "xid 79")
        check(stays(c, victim, "Healthy", 2.5), "--health-checks none: Xid 79 ignored")
        cdp.stop(k, p)
    # --health-recovery 0: as NVIDIA's plugin, Unhealthy until a restart
    k, p = cdp.start(a, pb, ["--sysroot", n.t], ["nvidia.com/gpu"], ["--interval", "1s", "--health-recovery", "0"],
                     env=n.env())
    c = k.clients.get("nvidia.com/gpu")
    if c:
        n.inject(victim, "xid 79")
        check(wait_health(c, victim, "Unhealthy", 5) is not None, "--health-recovery 0: Unhealthy")
        check(stays(c, victim, "Unhealthy", RECOVERY + 2), "--health-recovery 0: and it stays so")
        cdp.stop(k, p)
    # bad options
    for bad in (["--health-checks", "some"], ["--health-recovery", "-1"], ["--health-recovery", "x"]):
        r = subprocess.run([a.axl, "--sysroot", n.t, "device-plugin", "--kubelet-dir", a.work, *bad],
                               capture_output=True, text=True, env=n.env(), timeout=30)
        check(r.returncode == 2 and bad[0] in r.stderr, "%s: usage error (%d %s)" % (bad, r.returncode, r.stderr))


# ---- AMD: amdgpu's RAS counters ---------------------------------------------------------

def write(path, text):
    """In place, as the driver's file changes: the plugin keeps it open and reads it again."""
    with open(path, "w") as f:
        f.write(text)


def ras_dir(t, addr):
    return os.path.join(os.path.realpath(os.path.join(t, "sys", "bus", "pci", "devices", addr)), "ras")


def case_amd(a, pb):
    t = cdp.tree(a, "mi300x-8x")
    node = ["--sysroot", t]
    inv = cdp.axl_json(a, node, "list", "--json")
    gpus = [d for d in inv.get("devices", []) if d["id"].startswith("amdgpu:")]
    if not check(len(gpus) == 8, "8 MI300X: %s" % [d["id"] for d in gpus]):
        return
    # the files amdgpu_ras.c makes (ue/ce; UMC's with de on newer kernels), all zero
    for d in gpus:
        r = ras_dir(t, d["pci"]["address"])
        os.makedirs(r, exist_ok=True)
        write(os.path.join(r, "umc_err_count"), "ue: 0\nce: 0\nde: 0\n")
        write(os.path.join(r, "gfx_err_count"), "ue: 0\nce: 0\n")
        write(os.path.join(r, "xgmi_wafl_err_count"), "ue: 1\nce: 4\n")
    ids = {d["id"]: d.get("uuid") or d["pci"]["address"] for d in gpus}
    victim, other = gpus[2], gpus[6]
    vid, oid = ids[victim["id"]], ids[other["id"]]
    vras, oras = ras_dir(t, victim["pci"]["address"]), ras_dir(t, other["pci"]["address"])
    k, p = cdp.start(a, pb, node, ["amd.com/gpu"], ["--interval", "1s", "--health-recovery", "%ds" % RECOVERY])
    c = k.clients.get("amd.com/gpu")
    if not c:
        cdp.stop(k, p)
        return
    check(healthy_count(c) == 8, "all eight Healthy at the start (counts already above 0 are the baseline): %s"
          % c.devices())
    # corrected and deferred errors, and a query the driver cannot answer now: no change
    write(os.path.join(oras, "umc_err_count"), "ue: 0\nce: 17\nde: 3\n")
    write(os.path.join(vras, "gfx_err_count"), "Query currently inaccessible\n")
    check(stays(c, oid, "Healthy", 2.5) and c.devices()[vid][0] == "Healthy",
          "ce, de and an inaccessible query leave the GPUs Healthy")
    # uncorrectable errors grow: Unhealthy
    write(os.path.join(vras, "umc_err_count"), "ue: 2\nce: 0\nde: 0\n")
    dt = wait_health(c, vid, "Unhealthy", 5)
    check(dt is not None and dt <= 2.5, "ue 0 -> 2 in umc: %s Unhealthy within two samples (%s s)" % (vid, dt))
    check(healthy_count(c) == 7, "the other seven stay Healthy: %s" % c.devices())
    check(re.search(r"%s \(%s\): RAS: 2 new uncorrectable errors in umc \(2 since the driver loaded\): Unhealthy"
                    % (re.escape(victim["id"]), re.escape(victim.get("uuid", ""))), p.stderr()),
          "the block and the count in the log: %s" % p.stderr()[-600:])
    check(refused(c, vid), "Allocate refuses it")
    # the query answers again, unchanged: nothing new
    write(os.path.join(vras, "gfx_err_count"), "ue: 0\nce: 0\n")
    back = wait_health(c, vid, "Healthy", RECOVERY + 4)
    check(back is not None and back >= RECOVERY - 1.5, "Healthy again about %d s after the last error (%s s)"
          % (RECOVERY, back))
    check(p.wait_log(r"RAS: 2 new uncorrectable errors in umc .*\): Healthy again", 15), "the recovery said")
    # again, in another block
    write(os.path.join(vras, "gfx_err_count"), "ue: 1\nce: 0\n")
    check(wait_health(c, vid, "Unhealthy", 5) is not None, "ue 0 -> 1 in gfx: Unhealthy again")
    check(p.wait_log(r"RAS: 1 new uncorrectable error in gfx", 15), "gfx named")
    # a count that went down (the driver reloaded) is a new baseline, not an error
    write(os.path.join(oras, "xgmi_wafl_err_count"), "ue: 0\nce: 0\n")
    check(stays(c, oid, "Healthy", 2.5), "a count that went down leaves the GPU Healthy")
    check(cdp.stop(k, p) == 0, "SIGTERM: 0")
    # --health-checks none
    k, p = cdp.start(a, pb, node, ["amd.com/gpu"], ["--interval", "1s", "--health-checks", "none"])
    c = k.clients.get("amd.com/gpu")
    if c:
        write(os.path.join(oras, "umc_err_count"), "ue: 9\nce: 17\nde: 3\n")
        check(stays(c, oid, "Healthy", 2.5), "--health-checks none: a rising ue leaves the GPU Healthy")
        cdp.stop(k, p)


CASES = {"nvml": case_nvml, "amd": case_amd}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--double", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    os.makedirs(os.path.join(a.work, "state-empty"))
    pb = fk.load_pb(a.work)
    a.sock = cdp.socket_dir()  # the kubelet's sockets: a short path (check_device_plugin.py)
    try:
        CASES[a.case](a, pb)
    finally:
        shutil.rmtree(a.sock, ignore_errors=True)
    failures = cdp.failures
    print("device_plugin.health_%s: %s (%d failures)" % (a.case, "FAILED" if failures else "ok", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
