#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/bench_device_plugin.py: axl device-plugin as a kubelet sees it
(tests/compat/kubernetes/fake_kubelet.py: real gRPC over unix sockets), on the synthetic
8xH100 sysroot tree (tests/trees/nodes/hgx-8x-h100.json):

  Allocate       ITERATIONS calls of one device, wall clock at the client: p50, p99, max,
                 beside PreStartContainer (the same round trip doing nothing: the gRPC
                 floor) and the ratio of the two; target p99 <= 1 ms
  change seen    a GPU's device node removed, then put back, CHANGES times: from the
                 rename to the ListAndWatch message at the kubelet; median and max;
                 target <= 1 s (the watch settles 0.2 s after the last event)
  idle CPU       the plugin's user+system time over IDLE seconds with nothing asked and
                 nothing changing, as a share of one core; target <= 0.1 %

Environment: AXL (default build/axl), ITERATIONS (2000), CHANGES (10), IDLE (30).
Exits 0 (a benchmark, not a test); run with Debian's /usr/bin/python3 (python3-grpcio).
"""
from __future__ import annotations

import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "compat", "kubernetes"))
import fake_kubelet as fk  # noqa: E402

AXL = os.environ.get("AXL", os.path.join(TOP, "build", "axl"))
ITER = int(os.environ.get("ITERATIONS", "2000"))
CHANGES = int(os.environ.get("CHANGES", "10"))
IDLE = float(os.environ.get("IDLE", "30"))


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    work = tempfile.mkdtemp(prefix="axl-dpb-")
    try:
        tree = os.path.join(work, "tree")
        subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"),
                        os.path.join(TOP, "tests", "trees", "nodes", "hgx-8x-h100.json"), tree],
                       check=True, stdout=subprocess.DEVNULL)
        pb = fk.load_pb(work)
        k = fk.Kubelet(pb, os.path.join(work, "dp"))
        k.start()
        env = {x: v for x, v in os.environ.items() if not x.startswith(("AXL_", "CUDA_"))}
        p = subprocess.Popen([AXL, "--sysroot", tree, "device-plugin", "--kubelet-dir", k.dir], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not k.wait_clients(["nvidia.com/gpu"], 20):
            print("the plugin did not register (is build/kubernetes/axl-kubernetes.so built?)")
            return 0
        c = k.clients["nvidia.com/gpu"]
        c.wait_update(1)
        ids = sorted(c.devices())
        # warm up
        for _ in range(50):
            c.allocate([ids[0]])
            c.prestart_rpc(pb.PreStartContainerRequest(devices_ids=[ids[0]]))
        alloc, floor = [], []
        for i in range(ITER):
            t0 = time.perf_counter()
            c.allocate([ids[i % len(ids)]])
            t1 = time.perf_counter()
            c.prestart_rpc(pb.PreStartContainerRequest(devices_ids=[ids[0]]))
            t2 = time.perf_counter()
            alloc.append((t1 - t0) * 1e6)
            floor.append((t2 - t1) * 1e6)
        print("axl device-plugin on the 8xH100 tree, fake kubelet over gRPC (python3-grpcio)")
        print("%-22s %10s %10s %10s" % ("", "p50 us", "p99 us", "max us"))
        print("%-22s %10.0f %10.0f %10.0f" % ("Allocate (1 device)", pct(alloc, .5), pct(alloc, .99), max(alloc)))
        print("%-22s %10.0f %10.0f %10.0f" % ("PreStartContainer", pct(floor, .5), pct(floor, .99), max(floor)))
        print("Allocate p99 / gRPC floor p99 = %.2f; p99 %.3f ms: %s the 1 ms target" % (
            pct(alloc, .99) / pct(floor, .99), pct(alloc, .99) / 1e3, "meets" if pct(alloc, .99) <= 1000 else "MISSES"))

        node = os.path.join(tree, "dev", "nvidia3")
        seen = []
        for i in range(CHANGES):
            for src, dst in ((node, node + ".gone"), (node + ".gone", node)):
                n = len(c.updates)
                t0 = time.monotonic()
                os.rename(src, dst)
                if c.wait_update(n + 1, 5) is None:
                    seen.append(5.0)
                    continue
                seen.append(c.updates[n][0] - t0)
            time.sleep(0.3)
        print("change seen (%d device-node changes): median %.3f s, max %.3f s: %s the 1 s target" % (
            len(seen), statistics.median(seen), max(seen), "meets" if max(seen) <= 1.0 else "MISSES"))

        time.sleep(1)
        c0, t0 = cpu_seconds(p.pid), time.monotonic()
        time.sleep(IDLE)
        used, wall = cpu_seconds(p.pid) - c0, time.monotonic() - t0
        share = 100 * used / wall
        print("idle CPU over %.0f s: %.3f s, %.4f %% of a core: %s the 0.1 %% target (clock tick %.0f ms)" % (
            wall, used, share, "meets" if share <= 0.1 else "MISSES", 1000 / os.sysconf("SC_CLK_TCK")))
        p.send_signal(signal.SIGTERM)
        p.wait(10)
        k.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
