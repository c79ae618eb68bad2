#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/bench_exo_copy.py: the exo backend's (axl.exo) copy bandwidth beside the C
benchmark's (`axl bench copy --backend B --json`) for the same device and size, and the
ratio of the two for device -> host.

For each backend (cpu, opencl, vulkan; one missing here is reported and skipped) and each
size it times, after 2 warm-ups, ITERATIONS awaits of each of:
  h2d        copy_to_device(bytes, h)
  d2h out=   copy_from_device(h, 0, size, out=buf), one buffer reused: the backend's
             host_buffer(size) (page-aligned, pages mapped, as the C benchmark's host
             buffer is allocated once and reused)
  d2h bytes  copy_from_device(h, 0, size): exo's signature, a new bytes object each time
(wall clock around each await, median GB/s = 10^9 B/s, the data verified), and, in
alternation with ITERATIONS more "d2h bytes" awaits, makes the same number of new bytes
objects of the size from memory the process already has (bytes(buf): what any function
returning new bytes pays at least, pages faulted in included): "bytes floor" is the
median of those pairs' ratios (the issue-35 target: >= 0.80 from 16 MiB); then runs the
C benchmark on the same device twice: with pinned host memory (its default) and with
--pageable. The ratio columns are d2h out= / C d2h for each; the target (issue 24) is
>= 0.90 for sizes of 16 MiB and more. Noise on a shared machine is 10-30% from run to
run: ROUNDS > 1 alternates the exo and C measurements and keeps each one's best median.
"ratio here" takes the noise out: in this process, each of INTERLEAVED rounds (default
30) makes one C-path copy (axl_copy into pinned memory, timed by the backend's events as
`axl bench copy` times it), one more waited for on the calling thread (wall clock: what
a C caller that waits sees) and one exo await (wall clock), in rotating order; "ratio
here" is the median over rounds (of all ROUNDS) of each round's exo / event-timed ratio,
"vs C wall" the same against the waited one: the copies of one round run within a few
ms, so the machine's drift in memory bandwidth (up to 2x between runs here) falls on
both sides of a ratio.
The first line is this machine's floor for any await: how long an event loop takes to
wake after 2 ms asleep (wake_probe). The last table times awaits of 4 KiB, 1 MiB and
16 MiB copies woken by libaxl's notification (axl_event_notify: the backend's way) and
through the waiter thread (its fallback), AB_ROUNDS (default 100) of each, alternating.

Environment: AXL (default build/axl), AXL_LIBRARY (default build/libaxl.so.0), SIZES
(MiB, default "16 64 256"), ITERATIONS (default 10), ROUNDS (default 3), INTERLEAVED
(default 30), BACKENDS (default "cpu opencl vulkan"). Always exits 0: a benchmark, not
a test. Run with Debian's /usr/bin/python3.
"""
from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("AXL_LIBRARY", os.path.join(ROOT, "build", "libaxl.so.0"))

from axl.exo import AxlGPUBackend  # noqa: E402

MiB = 1 << 20
AXL = os.environ.get("AXL", os.path.join(ROOT, "build", "axl"))
SIZES = [int(x) * MiB for x in os.environ.get("SIZES", "16 64 256").split()]
ITER = int(os.environ.get("ITERATIONS", "10"))
ROUNDS = max(1, int(os.environ.get("ROUNDS", "3")))
BACKENDS = os.environ.get("BACKENDS", "cpu opencl vulkan").split()
C_DEVICE = {"cpu": "host", "opencl": "host/opencl", "vulkan": "host/vulkan"}
TARGET = 0.90
# rounds of the interleaved comparison ("ratio here"): more than ITERATIONS, since its
# point is a ratio steady from run to run
INTERLEAVED = max(1, int(os.environ.get("INTERLEAVED", "30")))
# issue 35: copy_from_device's new bytes at >= 0.8 of making new bytes in the process
BYTES_TARGET = 0.80


async def _median_gbps(size: int, op) -> float:
    xs = []
    for i in range(ITER + 2):
        t0 = time.perf_counter()
        await op()
        dt = time.perf_counter() - t0
        if i >= 2:
            xs.append(size / dt / 1e9)
    return statistics.median(xs)


async def _interleaved(b: AxlGPUBackend, h, size: int, out) -> dict[str, Any]:
    """exo's d2h out= and the C path's d2h, each once in each of INTERLEAVED rounds (after
    2 warm-ups), in an order that rotates from round to round, in this process. The C
    path is libaxl's axl_copy from the same allocation into pinned host memory on the
    backend's own queue, measured two ways: by the backend's events (an event recorded
    before, the copy's done event after, as `axl bench copy` times it: the copy alone),
    and by the wall clock around the copy and axl_event_wait on this thread (what a C
    caller that waits for the copy sees: the copy and one wake-up). exo's is the wall
    clock around the await. All three see the same machine state, so their ratios carry
    little of the run-to-run noise."""
    c = b._compute  # noqa: SLF001 (the bench's view of the backend's own context)
    buf, d = b._buf(h)  # noqa: SLF001
    pinned = c.alloc(d.cdev, size, "pinned")
    got: dict[str, list[float]] = {"c": [], "wall": [], "exo": []}
    order = list(got)
    round_gbps: dict[str, float] = {}
    try:
        for i in range(INTERLEAVED + 2):
            # the order rotates: what one copy leaves behind (on the cpu backend an await
            # right after a copy into pinned memory ran 30% slower in some runs) falls on
            # each of them alike
            k = i % len(order)
            for which in order[k:] + order[:k]:
                if which == "c":
                    e0 = d.queue.record()
                    cr = c.copy(pinned, buf, size, queue=d.queue, event=True)
                    assert cr.event is not None
                    ns = e0.elapsed_ns(cr.event)
                    e0.free()
                    cr.event.free()
                    gbps = size / max(ns, 1)
                elif which == "wall":
                    t0 = time.perf_counter()
                    cr = c.copy(pinned, buf, size, queue=d.queue, event=True)
                    assert cr.event is not None
                    cr.event.wait()
                    dt = time.perf_counter() - t0
                    cr.event.free()
                    gbps = size / dt / 1e9
                else:
                    t0 = time.perf_counter()
                    await b.copy_from_device(h, 0, size, out=out)
                    gbps = size / (time.perf_counter() - t0) / 1e9
                round_gbps[which] = gbps
                if i >= 2:
                    got[which].append(gbps)
            if i >= 2:
                # this round's ratios: the three copies ran within a few ms of each
                # other, so a drift in the machine's memory bandwidth (here up to 2x
                # between runs) falls on both sides of each ratio
                got.setdefault("pairs here", []).append(round_gbps["exo"] / round_gbps["c"])
                got.setdefault("pairs wall", []).append(round_gbps["exo"] / round_gbps["wall"])
    finally:
        pinned.free()
    m = statistics.median
    return {"C d2h here": m(got["c"]), "C wall here": m(got["wall"]),
            "d2h out= here": m(got["exo"]), "pairs here": got["pairs here"],
            "pairs wall": got["pairs wall"]}


def wake_probe(rounds: int = 200, busy_s: float = 0.002) -> tuple[float, float]:
    """This machine's cost of waking an event loop that has slept while a thread worked
    busy_s: (median, p90) microseconds from that thread's pipe write to the loop's read
    callback. Every await of a copy pays at least one; on a virtual machine whose idle
    CPUs halt it is about 0.1 ms."""
    async def run() -> list[float]:
        loop = asyncio.get_running_loop()
        rfd, wfd = os.pipe()
        os.set_blocking(rfd, False)
        box: dict[str, Any] = {}

        def ready() -> None:
            os.read(rfd, 64)
            box["t"] = time.perf_counter()
            box["f"].set_result(None)
        loop.add_reader(rfd, ready)
        go, stamp = threading.Event(), {}

        def worker() -> None:
            for _ in range(rounds):
                go.wait()
                go.clear()
                end = time.perf_counter() + busy_s
                while time.perf_counter() < end:
                    pass
                stamp["w"] = time.perf_counter()
                os.write(wfd, b"x")
        threading.Thread(target=worker, daemon=True).start()
        lat = []
        try:
            for _ in range(rounds):
                box["f"] = loop.create_future()
                go.set()
                await box["f"]
                lat.append((box["t"] - stamp["w"]) * 1e6)
        finally:
            loop.remove_reader(rfd)
            os.close(rfd)
            os.close(wfd)
        return lat
    lat = sorted(asyncio.run(run()))
    return statistics.median(lat), lat[int(len(lat) * 0.9)]


async def _backend(name: str) -> AxlGPUBackend | str:
    """An initialized exo backend, or why there is none."""
    b = AxlGPUBackend(name)
    try:
        await b.initialize()
    except RuntimeError as e:
        return str(e)
    return b


async def exo_figures(name: str, size: int) -> dict[str, Any] | str:
    """Median GB/s of the exo backend's copies of size bytes, with the interleaved
    rounds' ratios, or why it could not run."""
    b = await _backend(name)
    if isinstance(b, str):
        return b
    try:
        did = b.list_devices()[0].device_id
        h = await b.allocate(did, size)
        data = bytes(range(256)) * (size // 256) + bytes(size % 256)
        out = b.host_buffer(size)  # allocated once, page-aligned, pages mapped
        r = {"h2d": await _median_gbps(size, lambda: b.copy_to_device(data, h)),
             "d2h out=": await _median_gbps(size, lambda: b.copy_from_device(h, 0, size,
                                                                             out=out)),
             "d2h bytes": await _median_gbps(size, lambda: b.copy_from_device(h, 0, size))}
        # d2h bytes against the floor of making new bytes of that size here, alternating
        floor = []
        for i in range(ITER + 2):
            t0 = time.perf_counter()
            got = await b.copy_from_device(h, 0, size)
            t1 = time.perf_counter()
            made = bytes(out)
            t2 = time.perf_counter()
            del got, made
            if i >= 2:
                floor.append((t2 - t1) / (t1 - t0))
        r["bytes floor"] = statistics.median(floor)
        r.update(await _interleaved(b, h, size, out))
        if out[:] != data or await b.copy_from_device(h, 0, size) != data:
            return "data did not round-trip"
        await b.deallocate(h)
        return r
    finally:
        await b.shutdown()


def c_figures(name: str, size: int, pageable: bool) -> dict[str, float] | str:
    cmd = [AXL, "bench", "copy", C_DEVICE[name], "--backend", name, "--size", "%dB" % size,
           "--iterations", str(ITER), "--json"] + (["--pageable"] if pageable else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return "axl bench copy failed: %s" % r.stderr.strip()[:200]
    names = {"host_to_device": "h2d", "device_to_host": "d2h"}
    return {names[x["test"]]: x["gbps"] for x in doc.get("results", [])
            if x["test"] in names and x.get("gbps") is not None}


def _best(a: dict[str, Any] | str | None, b: dict[str, Any] | str) -> dict[str, Any] | str:
    """Each figure's best of two rounds; the per-round ratios ("pairs ...") of both."""
    if not isinstance(a, dict):
        return b
    if not isinstance(b, dict):
        return a
    return {k: (a.get(k, []) + b.get(k, [])) if k.startswith("pairs") else
            max(a.get(k, 0.0), b.get(k, 0.0)) for k in set(a) | set(b)}


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], q[1], q[2]


async def await_ab(name: str, sizes: list[int], rounds: int) -> list[tuple[int, float, float]] | str:
    """Median microseconds of a copy_from_device(out=host_buffer) await per size, woken by
    libaxl's notification (axl_event_notify, the backend's way) and through the waiter
    thread (the backend's fallback: the wait handed to its thread, which hands it to
    libaxl's deadline worker), alternating in rotating order in one process."""
    b = await _backend(name)
    if isinstance(b, str):
        return b
    try:
        did = b.list_devices()[0].device_id
        notes = b._notes  # noqa: SLF001 (the bench switches the backend's path)
        if notes is None:
            return "no notification pipe"
        rows = []
        for size in sizes:
            h = await b.allocate(did, size)
            out = b.host_buffer(size)
            got: dict[str, list[float]] = {"notified": [], "waiter": []}
            for i in range(rounds + 2):
                for which in (("notified", "waiter") if i % 2 else ("waiter", "notified")):
                    b._notes = notes if which == "notified" else None  # noqa: SLF001
                    t0 = time.perf_counter()
                    await b.copy_from_device(h, 0, size, out=out)
                    if i >= 2:
                        got[which].append((time.perf_counter() - t0) * 1e6)
            b._notes = notes  # noqa: SLF001
            await b.deallocate(h)
            out.close()
            rows.append((size, statistics.median(got["notified"]),
                         statistics.median(got["waiter"])))
        return rows
    finally:
        await b.shutdown()


def main() -> int:
    print("axl.exo beside axl bench copy: median of %d copies, best of %d rounds, GB/s "
          "(10^9 B/s)" % (ITER, ROUNDS))
    med, p90 = wake_probe()
    print("an event loop woken after 2 ms asleep, here: %.0f us median, %.0f us p90 "
          "(every await pays one)" % (med, p90))
    print("%-7s %9s %8s %10s %10s %11s %11s %9s %9s %10s %10s" % (
        "backend", "size", "h2d", "d2h out=", "d2h bytes", "C d2h pin", "C d2h page",
        "ratio pin", "ratio pg", "ratio here", "vs C wall"))
    for name in BACKENDS:
        for size in SIZES:
            exo: dict[str, Any] | str | None = None
            pin: dict[str, float] | str | None = None
            page: dict[str, float] | str | None = None
            for _ in range(ROUNDS):
                exo = _best(exo, asyncio.run(exo_figures(name, size)))
                if isinstance(exo, str):
                    break
                pin = _best(pin, c_figures(name, size, False))
                page = _best(page, c_figures(name, size, True))
            if isinstance(exo, str) or exo is None:
                print("%-7s skipped: %s" % (name, exo))
                break

            def f(x: dict[str, float] | str | None, k: str = "d2h") -> str:
                return "%.2f" % x[k] if isinstance(x, dict) and k in x else "-"

            def ratio(x: dict[str, float] | str | None) -> str:
                if not isinstance(x, dict) or not x.get("d2h"):
                    return "-"
                return "%.2f" % (exo["d2h out="] / x["d2h"])  # type: ignore[index]
            # the median of the rounds' own ratios (pooled over ROUNDS)
            q1, here, q3 = _quartiles(exo["pairs here"])
            w1, wall, w3 = _quartiles(exo["pairs wall"])
            print("%-7s %5d MiB %8.2f %10.2f %10.2f %11s %11s %9s %9s %10.2f %10.2f" % (
                name, size // MiB, exo["h2d"], exo["d2h out="], exo["d2h bytes"], f(pin),
                f(page), ratio(pin), ratio(page), here, wall))
            if size >= 16 * MiB:
                print("        d2h bytes / making new bytes of the size here (bytes(buf), "
                      "alternating, median of %d pairs' ratios) = %.3f: %s the %.2f target"
                      % (ITER, exo["bytes floor"], "meets" if exo["bytes floor"] >= BYTES_TARGET
                         else "BELOW", BYTES_TARGET))
                if isinstance(pin, dict) and pin.get("d2h"):
                    r = exo["d2h out="] / pin["d2h"]
                    print("        d2h out= / axl bench copy d2h (pinned, another process) "
                          "= %.3f: %s the %.2f target" % (r, "meets" if r >= TARGET
                                                          else "BELOW", TARGET))
                print("        d2h out= / C d2h (pinned, interleaved here: %.2f / %.2f GB/s; "
                      "median of %d rounds' ratios %.3f, quartiles %.3f-%.3f): %s the %.2f "
                      "target" % (exo["d2h out= here"], exo["C d2h here"],
                                  len(exo["pairs here"]), here, q1, q3,
                                  "meets" if here >= TARGET else "BELOW", TARGET))
                print("        d2h out= / C d2h waited for on the calling thread (%.2f GB/s; "
                      "the C path's own wall clock: %.2f of its event time): %.3f, quartiles "
                      "%.3f-%.3f" % (exo["C wall here"], exo["C wall here"] / exo["C d2h here"],
                                     wall, w1, w3))
    ab_rounds = int(os.environ.get("AB_ROUNDS", "100"))
    print("\nawait of copy_from_device(out=host_buffer): median us of %d, notified "
          "(axl_event_notify) vs through the waiter thread, alternating" % ab_rounds)
    print("%-7s %9s %10s %10s %8s" % ("backend", "size", "notified", "waiter", "saved"))
    for name in BACKENDS:
        r = asyncio.run(await_ab(name, [4096, MiB, 16 * MiB], ab_rounds))
        if isinstance(r, str):
            print("%-7s skipped: %s" % (name, r))
            continue
        for size, n, w in r:
            label = "%d KiB" % (size // 1024) if size < MiB else "%d MiB" % (size // MiB)
            print("%-7s %9s %10.0f %10.0f %8.0f" % (name, label, n, w, w - n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
