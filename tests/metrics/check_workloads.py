#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Limited workloads in axl metrics (--json and text), axl top --batch and Prometheus.

mkregion writes a limiter region (src/limiter/region.c's API) under <state dir>/limiter/
for the two devices of tests/sim/h100x2.json: limits, usage of two live processes and of
a dead one (never counted). Then corrupted, truncated and newer-version regions beside it:
a warning each, the good one's rows intact.

Usage: check_workloads.py --axl AXL --mkregion MKREGION --work DIR
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promparse  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(HERE, "..", "sim", "h100x2.json")
SCHEMA = os.path.join(HERE, "..", "..", "schema", "axl-metrics.schema.json")
GiB, MiB = 1 << 30, 1 << 20
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(axl, env, *args):
    p = subprocess.run([axl, "--sim", SIM] + list(args), env=env, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "axl %s: rc %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def expected_rows(region):
    return [
        {"region": region, "uuid": "stub-device-0", "device": "nvidia:0", "memory_used_bytes": GiB + 256 * MiB,
         "memory_limit_bytes": 2 * GiB, "compute_limit_percent": 30, "processes": 2},
        {"region": region, "uuid": "stub-device-1", "device": "nvidia:1", "memory_used_bytes": 512 * MiB,
         "memory_limit_bytes": 4 * GiB, "compute_limit_percent": 50, "processes": 2},
    ]


def verify(axl, env, region, bad):
    # JSON: schema-valid, exact rows, a warning per bad region
    doc = json.loads(run(axl, env, "metrics", "--json").stdout)
    try:
        from jsonschema import Draft202012Validator
        errs = list(Draft202012Validator(json.load(open(SCHEMA))).iter_errors(doc))
        check(not errs, "schema: %s" % [e.message for e in errs[:3]])
    except ImportError:
        print("python3-jsonschema is missing: schema not checked")
    check(doc.get("workloads") == expected_rows(region), "workloads: %s" % doc.get("workloads"))
    warns = doc.get("warnings", [])
    check(len(warns) == len(bad), "warnings %s for %s" % (warns, bad))
    for path, word in bad:
        check(any(path in w and word in w for w in warns), "no warning with '%s' for %s: %s" % (word, path, warns))
    check([d["id"] for d in doc["devices"]] == ["nvidia:0", "nvidia:1"], "devices intact")
    # text
    p = run(axl, env, "metrics")
    lines = [l.split() for l in p.stdout.splitlines()]
    rows = [l for l in lines if l and l[-1] == region]
    check(len(rows) == 2, "text rows: %s" % p.stdout)
    if len(rows) == 2:
        check(rows[0][:3] == ["nvidia:0", "stub-device-0", "1.2"] and "30%" in rows[0] and rows[0][-2] == "2",
              "text row 0: %s" % rows[0])
        check(rows[1][:3] == ["nvidia:1", "stub-device-1", "512.0"] and "50%" in rows[1], "text row 1: %s" % rows[1])
    check(p.stderr.count("axl: warning:") == len(bad), "text warnings: %s" % p.stderr)
    # top --batch
    tenv = dict(env, COLUMNS="120", LINES="30")
    p = run(axl, tenv, "top", "--batch", "--count", "1", "--interval", "50ms")
    wl = [l for l in p.stdout.splitlines() if "workload " in l]
    check(len(wl) == 2, "top workload lines: %s" % p.stdout)
    if len(wl) == 2:
        check("nvidia:0" in wl[0] and "mem 1.2Gi/2.0Gi" in wl[0] and "compute -/30%" in wl[0] and "procs 2" in wl[0],
              "top line 0: %r" % wl[0])
        check("nvidia:1" in wl[1] and "mem 512Mi/4.0Gi" in wl[1] and "/50%" in wl[1], "top line 1: %r" % wl[1])
    check(len(p.stdout.splitlines()) == 30, "top frame is 30 lines")


def serve_scrape(axl, env):
    """/metrics of `axl serve` on the simulated node; None when serve was not built."""
    import socket
    import time
    import urllib.request
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    proc = subprocess.Popen([axl, "serve", "--listen", "127.0.0.1:%d" % port, "--sim", SIM], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            if proc.poll() is not None:
                err = proc.stderr.read()
                if "not built" in err:
                    print("axl serve not built: Prometheus not checked")
                    return None
                check(False, "axl serve exited: %s" % err)
                return None
            try:
                return urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read().decode()
            except OSError:
                time.sleep(0.1)
        check(False, "axl serve did not answer")
        return None
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--mkregion", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    sd = os.path.join(a.work, "state")
    os.makedirs(os.path.join(sd, "limiter"))
    env = dict(os.environ, AXL_STATE_DIR=sd)
    env.pop("AXL_LIMITER_REGION", None)
    region = os.path.join(sd, "limiter", "pod-a.region")
    mk = subprocess.Popen([a.mkregion, region, "stub-device-0", str(2 * GiB), "30", "stub-device-1", str(4 * GiB), "50"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        check(mk.stdout.readline().strip() == "ready", "mkregion ready")
        verify(a.axl, env, region, [])
        text = serve_scrape(a.axl, env)
        if text is not None:
            fams = promparse.parse(text)
            by = {}
            for fam in ("axl_workload_memory_used_bytes", "axl_workload_memory_limit_bytes",
                        "axl_workload_compute_limit_ratio", "axl_workload_processes"):
                f = fams.get(fam)
                check(f is not None and f["type"] == "gauge", "prom family %s" % fam)
                by[fam] = {lab.get("device"): v for _, lab, v in (f["samples"] if f else [])}
            check(by["axl_workload_memory_used_bytes"] == {"nvidia:0": GiB + 256 * MiB, "nvidia:1": 512 * MiB},
                  "prom used %s" % by["axl_workload_memory_used_bytes"])
            check(by["axl_workload_memory_limit_bytes"] == {"nvidia:0": 2 * GiB, "nvidia:1": 4 * GiB}, "prom limit")
            check(by["axl_workload_compute_limit_ratio"] == {"nvidia:0": 0.3, "nvidia:1": 0.5}, "prom compute")
            check(by["axl_workload_processes"] == {"nvidia:0": 2, "nvidia:1": 2}, "prom processes")
        # hostile regions beside the good one
        good = open(region, "rb").read()
        open(os.path.join(sd, "limiter", "bad-magic.region"), "wb").write(b"\0" * len(good))
        open(os.path.join(sd, "limiter", "short.region"), "wb").write(good[: len(good) // 2])
        newer = bytearray(good)
        newer[4:6] = struct.pack("<H", 2)
        open(os.path.join(sd, "limiter", "newer.region"), "wb").write(bytes(newer))
        corrupt = bytearray(good)
        corrupt[200] ^= 0xFF  # inside the device table: the checksum no longer matches
        open(os.path.join(sd, "limiter", "sum.region"), "wb").write(bytes(corrupt))
        ld = os.path.join(sd, "limiter")
        verify(a.axl, env, region, [(os.path.join(ld, "bad-magic.region"), "not a limiter region"),
                                    (os.path.join(ld, "short.region"), "truncated"),
                                    (os.path.join(ld, "newer.region"), "newer"),
                                    (os.path.join(ld, "sum.region"), "checksum")])
    finally:
        mk.stdin.close()
        mk.wait(timeout=30)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
