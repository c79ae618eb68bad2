"""axl.exo: exo's asynchronous GPU backend on the real cpu, opencl (PoCL) and vulkan
(lavapipe) compute backends; the factory; discovery on a sim node. Coroutines run with
asyncio.run inside plain tests (no pytest-asyncio)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import os
import threading
import time
import weakref

import pytest

import axl
from axl.exo import (AxlGPUBackend, GPUBackend, GPUBackendFactory, GPUDevice, GPUDiscoveryService,
                     MemoryHandle, device_telemetry)

BACKENDS = ["cpu", "opencl", "vulkan"]
MiB = 1 << 20


def _pattern(n: int, seed: int = 0) -> bytes:
    return bytes((i * 7 + seed) & 0xFF for i in range(256)) * (n // 256) + \
        bytes((i * 7 + seed) & 0xFF for i in range(n % 256))


async def _open(name: str) -> AxlGPUBackend:
    b = AxlGPUBackend(name)
    try:
        await b.initialize()
    except RuntimeError as e:
        if name != "cpu" and "No %s devices" % name in str(e):
            pytest.skip("%s runtime missing: %s" % (name, e))
        raise
    return b


def run(coro):
    return asyncio.run(coro)


def test_interface_shape():
    assert [f.name for f in dataclasses.fields(GPUDevice)] == [
        "device_id", "name", "vendor", "backend", "compute_capability", "memory_bytes",
        "memory_available", "compute_units", "tensor_core_count", "max_threads_per_block",
        "clock_rate_mhz", "bandwidth_gbps", "support_level", "driver_version", "backend_name"]
    assert [f.name for f in dataclasses.fields(MemoryHandle)] == [
        "handle_id", "device_id", "size_bytes", "allocated_at"]
    h = MemoryHandle(device_id="cpu:0", size_bytes=4)
    assert h.handle_id != MemoryHandle(device_id="cpu:0", size_bytes=4).handle_id
    assert h.allocated_at.tzinfo is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.size_bytes = 5  # type: ignore[misc]
    assert issubclass(AxlGPUBackend, GPUBackend)
    with pytest.raises(TypeError):
        GPUBackend()  # type: ignore[abstract]
    for m in ("initialize", "shutdown", "allocate", "deallocate", "copy_to_device",
              "copy_from_device", "copy_device_to_device", "synchronize",
              "get_device_memory_info", "get_device_temperature", "get_device_power_usage",
              "get_device_clock_rate"):
        assert asyncio.iscoroutinefunction(getattr(AxlGPUBackend, m)), m
    assert not asyncio.iscoroutinefunction(AxlGPUBackend.list_devices)


@pytest.mark.parametrize("name", BACKENDS)
def test_roundtrip(name):
    async def body():
        b = await _open(name)
        try:
            devs = b.list_devices()
            assert devs and all(d.backend == name for d in devs)
            did = devs[0].device_id
            assert did == "%s:0" % name and b.get_device(did) is devs[0]
            assert b.get_device("%s:99" % name) is None
            for size in (1, 3, 4097, 1_000_003, 64 * MiB):
                h = await b.allocate(did, size)
                assert h.device_id == did and h.size_bytes == size
                data = _pattern(size, size)
                await b.copy_to_device(data, h)
                assert await b.copy_from_device(h, 0, size) == data
                if size > 8:
                    await b.copy_to_device(bytearray(b"\xaa\xbb"), h, offset_bytes=5)
                    assert await b.copy_from_device(h, 4, 4) == data[4:5] + b"\xaa\xbb" + data[7:8]
                await b.deallocate(h)
            # device to device (two allocations of the device)
            a = await b.allocate(did, 3 * MiB + 5)
            c = await b.allocate(did, 3 * MiB + 5)
            data = _pattern(3 * MiB + 5, 9)
            await b.copy_to_device(data, a)
            await b.copy_device_to_device(a, c, 3 * MiB + 5)
            await b.synchronize(did)
            assert await b.copy_from_device(c, 0, 3 * MiB + 5) == data
            info = await b.get_device_memory_info(did)
            assert set(info) == {"total_bytes", "used_bytes", "available_bytes", "reserved_bytes"}
            assert 0 < info["available_bytes"] <= info["total_bytes"]
            assert info["used_bytes"] == info["total_bytes"] - info["available_bytes"]
            # host CPU and emulated devices have no sensors: None, not 0
            assert await b.get_device_temperature(did) is None
            assert await b.get_device_power_usage(did) is None
            assert await b.get_device_clock_rate(did) is None
            await b.deallocate(a)
            await b.deallocate(c)
        finally:
            await b.shutdown()
    run(body())


@pytest.mark.parametrize("name", BACKENDS)
def test_concurrent_copies(name):
    async def one(b, did, k):
        size = 2 * MiB + k * 4099
        h = await b.allocate(did, size)
        data = _pattern(size, k)
        await b.copy_to_device(data, h)
        out = await b.copy_from_device(h, 0, size)
        await b.deallocate(h)
        return out == data

    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            assert all(await asyncio.gather(*(one(b, did, k) for k in range(8))))
        finally:
            await b.shutdown()
    run(body())


@pytest.mark.parametrize("name", BACKENDS)
def test_loop_stays_responsive(name):
    """While 64 MiB copies run, a ticker coroutine keeps ticking: the waits are on the
    waiter thread, not the loop."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            size = 64 * MiB
            h = await b.allocate(did, size)
            data = _pattern(size, 3)
            ticks: list[float] = []
            stop = asyncio.Event()

            async def ticker():
                while not stop.is_set():
                    ticks.append(time.perf_counter())
                    await asyncio.sleep(0.001)

            t = asyncio.ensure_future(ticker())
            await asyncio.sleep(0)
            t0 = time.perf_counter()
            for _ in range(4):
                await b.copy_to_device(data, h)
                out = await b.copy_from_device(h, 0, size)
            elapsed = time.perf_counter() - t0
            stop.set()
            await t
            assert out == data
            during = [x for x in ticks if t0 <= x <= t0 + elapsed]
            # the copies took long enough to see; the ticker ran throughout them
            assert elapsed > 0.02
            assert len(during) >= 5, (len(during), elapsed)
            await b.deallocate(h)
        finally:
            await b.shutdown()
    run(body())


@pytest.mark.parametrize("name", BACKENDS)
def test_errors(name):
    async def body():
        b = await _open(name)
        other = await _open("cpu")
        try:
            did = b.list_devices()[0].device_id
            h = await b.allocate(did, 4096)
            await b.deallocate(h)
            with pytest.raises(RuntimeError, match="Invalid memory handle"):
                await b.deallocate(h)                         # twice
            with pytest.raises(RuntimeError, match="Invalid memory handle"):
                await b.copy_from_device(h, 0, 1)             # freed
            oh = await other.allocate("cpu:0", 4096)
            with pytest.raises(RuntimeError, match="Invalid memory handle"):
                await b.copy_to_device(b"x", oh)              # another backend's handle
            with pytest.raises(RuntimeError, match="Invalid memory handle"):
                await b.deallocate(MemoryHandle(device_id=did, size_bytes=4096))
            with pytest.raises(RuntimeError):
                await b.allocate(did, 1 << 62)                # huge
            with pytest.raises(RuntimeError):
                await b.allocate(did, 0)
            with pytest.raises(RuntimeError, match="Invalid device"):
                await b.allocate("cuda:7", 16)                # unknown device
            with pytest.raises(RuntimeError, match="Invalid device"):
                await b.synchronize("nope")
            with pytest.raises(RuntimeError, match="Invalid device"):
                await b.get_device_memory_info("nope:0")
            h = await b.allocate(did, 16)
            with pytest.raises(RuntimeError, match="do not fit"):
                await b.copy_to_device(b"x" * 17, h)
            with pytest.raises(RuntimeError, match="do not fit"):
                await b.copy_from_device(h, 10, 7)
            # wrong argument types: RuntimeError, as the design promises for every failure
            with pytest.raises(RuntimeError, match="bytes-like"):
                await b.copy_to_device("text", h)  # type: ignore[arg-type]
            with pytest.raises(RuntimeError, match="must be an int"):
                await b.allocate(did, 1.5)  # type: ignore[arg-type]
            with pytest.raises(RuntimeError, match="must be an int"):
                await b.copy_from_device(h, "0", 1)  # type: ignore[arg-type]
            with pytest.raises(RuntimeError, match="Invalid device"):
                await b.allocate(0, 16)  # type: ignore[arg-type]
            with pytest.raises(RuntimeError, match="Invalid memory handle"):
                await b.deallocate("handle")  # type: ignore[arg-type]
            with pytest.raises(RuntimeError, match="writable"):
                await b.copy_from_device(h, 0, 4, out=b"immutable")
            with pytest.raises(RuntimeError, match="holds 2 bytes"):
                await b.copy_from_device(h, 0, 4, out=bytearray(2))
            # the backend still works after every error
            await b.copy_to_device(b"0123456789abcdef", h)
            assert await b.copy_from_device(h, 0, 16) == b"0123456789abcdef"
            await b.shutdown()
            await b.shutdown()                                 # idempotent
            for coro in (b.allocate(did, 16), b.deallocate(h), b.synchronize(did),
                         b.copy_from_device(h, 0, 1), b.get_device_temperature(did)):
                with pytest.raises(RuntimeError, match="shut down"):
                    await coro
            assert b.list_devices() == [] and b.get_device(did) is None
            with pytest.raises(RuntimeError):
                await b.initialize()
        finally:
            await b.shutdown()
            await other.shutdown()
    run(body())


def test_not_initialized_and_unknown_backend():
    async def body():
        b = AxlGPUBackend("cpu")
        with pytest.raises(RuntimeError, match="not initialized"):
            await b.allocate("cpu:0", 1)
        with pytest.raises(RuntimeError, match="Unknown backend"):
            AxlGPUBackend("metal")
    run(body())


def test_no_devices_is_an_error(sim_h100x2):
    """On a sim node nothing drives the H100s: the cuda backend fails to initialise (so
    the factory falls through), as exo's backends do."""
    async def body():
        with axl.open(sim=sim_h100x2) as inv:
            b = AxlGPUBackend("cuda", inventory=inv)
            with pytest.raises(RuntimeError, match="No cuda devices"):
                await b.initialize()
            assert not inv.closed                              # the caller's, left open
    run(body())


def test_factory(sim_h100x2, monkeypatch):
    monkeypatch.delenv("AXL_EXO_BACKEND", raising=False)
    assert GPUBackendFactory.priority("linux") == ["cuda", "rocm", "vulkan", "cpu"]
    assert GPUBackendFactory.priority("sunos") == ["vulkan", "cpu"]

    async def body():
        GPUBackendFactory.clear_backend_override()
        with axl.open(sim=sim_h100x2) as inv:
            # no runtime drives the sim node's GPUs, and lavapipe is passed over: the CPU
            b = await GPUBackendFactory.create_backend(inventory=inv)
            assert b.name == "cpu" and b.list_devices()[0].device_id == "cpu:0"
            await b.shutdown()
            # letting emulated devices count, Vulkan (lavapipe) comes before the CPU
            probe = AxlGPUBackend("vulkan", inventory=inv)
            try:
                await probe.initialize()
                have_vulkan = True
                await probe.shutdown()
            except RuntimeError:
                have_vulkan = False
            b = await GPUBackendFactory.create_backend(inventory=inv, allow_emulated=True)
            assert b.name == ("vulkan" if have_vulkan else "cpu")
            await b.shutdown()
            # the override: that backend only, no fallback
            GPUBackendFactory.set_backend_override("opencl")
            try:
                try:
                    b = await GPUBackendFactory.create_backend(inventory=inv)
                    assert b.name == "opencl"
                    await b.shutdown()
                except RuntimeError as e:
                    assert "override" in str(e)
                GPUBackendFactory.set_backend_override("cuda")
                with pytest.raises(RuntimeError, match="override"):
                    await GPUBackendFactory.create_backend(inventory=inv)
                with pytest.raises(RuntimeError, match="Unknown backend"):
                    GPUBackendFactory.set_backend_override("directml")
            finally:
                GPUBackendFactory.clear_backend_override()
            monkeypatch.setenv("AXL_EXO_BACKEND", "cpu")
            b = await GPUBackendFactory.create_backend(inventory=inv, allow_emulated=True)
            assert b.name == "cpu"
            await b.shutdown()
            monkeypatch.delenv("AXL_EXO_BACKEND")
            avail = await GPUBackendFactory.detect_available_backends(inventory=inv)
            assert avail == ["cpu"]
    run(body())


def test_discovery_sim(sim_h100x2, tmp_path, monkeypatch):
    monkeypatch.delenv("AXL_EXO_BACKEND", raising=False)
    reg = tmp_path / "gpu_registry.json"

    async def body():
        with axl.open(sim=sim_h100x2) as inv:
            s = GPUDiscoveryService(reg, inventory=inv)
            r = await s.discover_all_devices()
            await s.shutdown()
            return r, inv.devices, s
    r, invdevs, s = run(body())
    assert r["discovery_status"] == "success"
    assert [d.device_id for d in r["devices"]] == ["cpu:0"]          # verified by a round trip
    assert len(r["inventory_devices"]) == len(invdevs) == 2
    for g, d in zip(r["inventory_devices"], invdevs):
        assert isinstance(g, GPUDevice)
        # axl's facts, as the inventory gives them
        assert g.device_id == d.id and g.name == d.model == "NVIDIA H100 80GB HBM3"
        assert g.vendor == "nvidia" and g.backend == "cuda"
        assert g.memory_bytes == d.memory_total_bytes == 85899345920
        assert g.bandwidth_gbps == d.memory_bandwidth_gbps
        sm = [u["count"] for u in d.raw["compute_units"] if u["name"] == "SM"]
        assert [g.compute_units] == sm
        assert g.max_threads_per_block is None                        # unknown, not 0
        assert g.support_level == "experimental"                      # nothing drives it here
    saved = json.loads(reg.read_text())
    assert saved == s.load_registry()
    assert [x["device_id"] for x in saved["inventory_devices"]] == ["nvidia:0", "nvidia:1"]
    assert s.get_device_by_id("nvidia:1") is r["inventory_devices"][1]
    assert s.get_device_by_id("nvidia:9") is None


def test_telemetry_from_sampler(sim_h100x2):
    """Temperature, power and clock come from axl's sampler (the sim node's values)."""
    with axl.open(sim=sim_h100x2) as inv:
        smp = axl.sample(inv)
        t = device_telemetry(smp, "nvidia:0")
        d = smp.device("nvidia:0")
        assert t["temperature_celsius"] == d.get("temperature_celsius") is not None
        assert t["power_watts"] == d.get("power_watts") is not None
        assert t["clock_mhz"] == d.get("sm_clock_mhz") is not None
        assert device_telemetry(smp, "nvidia:9") == {
            "temperature_celsius": None, "power_watts": None, "clock_mhz": None}


def _hold_waiter(b: AxlGPUBackend):
    """Hold the backend's waiter thread (test hook: a job that blocks until released), so
    that what is queued behind it is still pending when a test cancels its caller.
    Returns (release event, the holding job's future)."""
    gate = threading.Event()
    _GATES.append(gate)
    return gate, b._waiter.submit(gate.wait)  # noqa: SLF001


_GATES: list[threading.Event] = []


def _release_gates() -> None:
    """Release every held waiter (a failed assertion must not leave a thread blocked)."""
    while _GATES:
        _GATES.pop().set()


class _OutBuf(bytearray):
    """A bytearray that can be weakly referenced (to see who holds it)."""


@pytest.mark.parametrize("name", BACKENDS)
def test_copy_from_device_out(name):
    """copy_from_device(out=): the copy lands in the caller's buffer, which is returned."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            size = 3 * MiB + 7
            h = await b.allocate(did, size)
            data = _pattern(size, 5)
            await b.copy_to_device(data, h)
            out = bytearray(size + 16)
            assert await b.copy_from_device(h, 0, size, out=out) is out
            assert out[:size] == data and out[size:] == bytes(16)
            mv = memoryview(out)[8:]
            assert await b.copy_from_device(h, 100, 1000, out=mv) is mv
            assert out[8:1008] == data[100:1100]
            assert await b.copy_from_device(h, 0, 0, out=out) is out
            await b.deallocate(h)
        finally:
            await b.shutdown()
    run(body())


@pytest.mark.parametrize("name", ["opencl", "vulkan"])
def test_cancelled_allocate_is_freed(name):
    """Four 256 MiB allocations cancelled while queued: the runtime's used memory comes
    back to where it was (the allocations were freed, not dropped until shutdown)."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            before = (await b.get_device_memory_info(did))["used_bytes"]
            gate, held = _hold_waiter(b)
            tasks = [asyncio.ensure_future(b.allocate(did, 256 * MiB)) for _ in range(4)]
            await asyncio.sleep(0)                # each allocation queued behind the gate
            for t in tasks:
                t.cancel()
            gate.set()
            await held
            for t in tasks:
                with pytest.raises(asyncio.CancelledError):
                    await t
            await b.synchronize(did)              # after the allocations (and their frees)
            after = (await b.get_device_memory_info(did))["used_bytes"]
            assert after - before < 256 * MiB, (before, after)
            assert b._handles == {}               # noqa: SLF001
        finally:
            _release_gates()
            await b.shutdown()
    run(body())


@pytest.mark.parametrize("name", BACKENDS)
def test_cancelled_copy_owns_its_buffer(name):
    """A device-to-host copy cancelled while queued: the backend owns the memory the copy
    writes (the caller's out, or the new bytes) until the copy's event completed, then
    lets it go."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            size = 8 * MiB
            h = await b.allocate(did, size)
            await b.copy_to_device(_pattern(size, 1), h)
            for use_out in (True, False):
                gate, held = _hold_waiter(b)
                out = _OutBuf(size) if use_out else None
                ref = weakref.ref(out) if use_out else None
                t = asyncio.ensure_future(b.copy_from_device(h, 0, size, out=out))
                del out
                await asyncio.sleep(0)            # the copy is queued; its wait is held
                t.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await t
                gc.collect()
                assert b.inflight() == 1          # the backend holds the copy's memory
                if ref is not None:
                    assert ref() is not None
                gate.set()
                await held
                await b.synchronize(did)
                assert b.inflight() == 0          # released once the copy completed
                gc.collect()
                if ref is not None:
                    assert ref() is None
            await b.deallocate(h)
        finally:
            _release_gates()
            await b.shutdown()
    run(body())
