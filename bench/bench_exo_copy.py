#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/bench_exo_copy.py: the exo backend's (axl.exo) host -> device and device -> host
bandwidth beside the C benchmark's (`axl bench copy --backend B --json`) for the same copy.

For each backend (cpu, opencl, vulkan; one missing here is reported and skipped) it times
SIZE-byte copy_to_device / copy_from_device awaits (ITERATIONS after 2 warm-ups, wall
clock around each await, median GB/s = 10^9 B/s, the data verified), then runs the C
benchmark on the same device with pinned host memory (its default) and --pageable (the
exo backend copies from Python bytes, ordinary pageable memory).

Environment: AXL (default build/axl), AXL_LIBRARY (default build/libaxl.so.0), SIZE (bytes,
default 67108864), ITERATIONS (default 10), BACKENDS (default "cpu opencl vulkan").
Always exits 0: a benchmark, not a test. Run with Debian's /usr/bin/python3.
"""
from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("AXL_LIBRARY", os.path.join(ROOT, "build", "libaxl.so.0"))

from axl.exo import AxlGPUBackend  # noqa: E402

AXL = os.environ.get("AXL", os.path.join(ROOT, "build", "axl"))
SIZE = int(os.environ.get("SIZE", str(64 << 20)))
ITER = int(os.environ.get("ITERATIONS", "10"))
BACKENDS = os.environ.get("BACKENDS", "cpu opencl vulkan").split()
C_DEVICE = {"cpu": "host", "opencl": "host/opencl", "vulkan": "host/vulkan"}


async def exo_figures(name: str) -> dict[str, float] | str:
    """Median GB/s of the exo backend's two directions, or why it could not run."""
    b = AxlGPUBackend(name)
    try:
        await b.initialize()
    except RuntimeError as e:
        return str(e)
    try:
        did = b.list_devices()[0].device_id
        h = await b.allocate(did, SIZE)
        data = bytes(range(256)) * (SIZE // 256) + bytes(SIZE % 256)
        h2d, d2h = [], []
        out = b""
        for i in range(ITER + 2):
            t0 = time.perf_counter()
            await b.copy_to_device(data, h)
            t1 = time.perf_counter()
            out = await b.copy_from_device(h, 0, SIZE)
            t2 = time.perf_counter()
            if i >= 2:
                h2d.append(SIZE / (t1 - t0) / 1e9)
                d2h.append(SIZE / (t2 - t1) / 1e9)
        if out != data:
            return "data did not round-trip"
        await b.deallocate(h)
        return {"host_to_device": statistics.median(h2d),
                "device_to_host": statistics.median(d2h)}
    finally:
        await b.shutdown()


def c_figures(name: str, pageable: bool) -> dict[str, float] | str:
    cmd = [AXL, "bench", "copy", C_DEVICE[name], "--backend", name, "--size", str(SIZE),
           "--iterations", str(ITER), "--json"] + (["--pageable"] if pageable else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return "axl bench copy failed: %s" % r.stderr.strip()[:200]
    return {x["test"]: x["gbps"] for x in doc.get("results", [])
            if x["test"] in ("host_to_device", "device_to_host") and x.get("gbps") is not None}


def main() -> int:
    print("copy of %d bytes, median of %d (GB/s = 10^9 B/s)" % (SIZE, ITER))
    print("%-8s %-14s %12s %12s %12s" % ("backend", "direction", "axl.exo", "C pageable",
                                           "C pinned"))
    for name in BACKENDS:
        exo = asyncio.run(exo_figures(name))
        if isinstance(exo, str):
            print("%-8s skipped: %s" % (name, exo))
            continue
        pageable, pinned = c_figures(name, True), c_figures(name, False)
        for d in ("host_to_device", "device_to_host"):
            def f(x: dict[str, float] | str) -> str:
                return "%12.2f" % x[d] if isinstance(x, dict) and d in x else "%12s" % "-"
            print("%-8s %-14s %12.2f %s %s" % (name, d, exo[d], f(pageable), f(pinned)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
