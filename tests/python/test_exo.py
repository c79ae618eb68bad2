"""axl.exo: exo's asynchronous GPU backend on the real cpu, opencl (PoCL) and vulkan
(lavapipe) compute backends; the factory; discovery on a sim node. Coroutines run with
asyncio.run inside plain tests (no pytest-asyncio)."""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import gc
import json
import mmap
import os
import threading
import time
import weakref

import pytest

import axl
from axl.exo import (UNKNOWN_FLOAT, UNKNOWN_INT, UNKNOWN_STR, AxlGPUBackend, AxlGPUDevice, CPUBackend,
                     GPUBackend, GPUBackendFactory, GPUDevice, GPUDiscoveryService, HostBuffer,
                     MemoryHandle, cuda_compute_capability, device_telemetry, exo_node_profile)

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


def test_memory_handle_dumps_as_pydantic():
    """exo's MemoryHandle is a pydantic model, and the fork's tests serialise it:
    model_dump() and model_dump_json() give its four fields, the time as pydantic writes
    a UTC datetime."""
    import json
    from datetime import datetime, timezone
    at = datetime(2026, 11, 29, 12, 0, 1, 250000, tzinfo=timezone.utc)
    h = MemoryHandle(device_id="cuda:0", size_bytes=1024, allocated_at=at)
    d = h.model_dump()
    assert d == {"handle_id": h.handle_id, "device_id": "cuda:0", "size_bytes": 1024, "allocated_at": at}
    text = h.model_dump_json()
    assert " " not in text
    assert json.loads(text) == dict(d, allocated_at="2026-11-29T12:00:01.250000Z")


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


async def _has(inv, name: str) -> bool:
    probe = AxlGPUBackend(name, inventory=inv)
    try:
        await probe.initialize()
    except RuntimeError:
        return False
    await probe.shutdown()
    return True


def test_factory(sim_h100x2, monkeypatch):
    monkeypatch.delenv("AXL_EXO_BACKEND", raising=False)
    assert GPUBackendFactory.priority("linux") == ["cuda", "rocm", "vulkan", "cpu"]
    assert GPUBackendFactory.priority("sunos") == ["vulkan", "cpu"]

    async def body():
        GPUBackendFactory.clear_backend_override()
        with axl.open(sim=sim_h100x2) as inv:
            # the design's order: CUDA, ROCm, Vulkan, then the CPU; nothing drives the sim
            # node's GPUs, and Vulkan's software device (lavapipe, physical device type
            # CPU) is not chosen ahead of the CPU backend: a GPU-less node gets the CPU
            have_vulkan = await _has(inv, "vulkan")
            b = await GPUBackendFactory.create_backend(inventory=inv)
            assert b.name == "cpu" and type(b) is CPUBackend and b._initialized
            assert b.list_devices()[0].device_id == "cpu:0"
            await b.shutdown()
            assert not b._initialized
            # ... unless asked for: with allow_emulated=True, or by name (the override)
            b = await GPUBackendFactory.create_backend(inventory=inv, allow_emulated=True)
            assert b.name == ("vulkan" if have_vulkan else "cpu")
            await b.shutdown()
            if have_vulkan:
                GPUBackendFactory.set_backend_override("vulkan")
                try:
                    b = await GPUBackendFactory.create_backend(inventory=inv)
                    assert b.name == "vulkan" and b.list_devices()[0].support_level == "experimental"
                    await b.shutdown()
                finally:
                    GPUBackendFactory.clear_backend_override()
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
                # any name is taken (the design's factory takes it); making it fails
                GPUBackendFactory.set_backend_override("directml")
                with pytest.raises(RuntimeError, match="Unknown backend"):
                    await GPUBackendFactory.create_backend(inventory=inv)
                with pytest.raises(RuntimeError, match="Unknown backend"):
                    GPUBackendFactory.set_backend_override(3)
            finally:
                GPUBackendFactory.clear_backend_override()
            monkeypatch.setenv("AXL_EXO_BACKEND", "cpu")
            b = await GPUBackendFactory.create_backend(inventory=inv, allow_emulated=True)
            assert b.name == "cpu"
            await b.shutdown()
            monkeypatch.delenv("AXL_EXO_BACKEND")
            avail = await GPUBackendFactory.detect_available_backends(inventory=inv)
            assert avail == (["vulkan", "cpu"] if have_vulkan else ["cpu"])
            assert await GPUBackendFactory.detect_available_backends(
                inventory=inv, allow_emulated=False) == ["cpu"]
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
    assert len(r["devices"]) == 1                                    # verified by a round trip
    assert r["devices"][0].device_id in ("vulkan:0", "cpu:0")
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
        assert g.max_threads_per_block == UNKNOWN_INT                 # unknown, not 0 or None
        assert g.compute_capability == "9.0"                          # CUDA's, not "Hopper"
        assert g.peak_flops_fp32 == 67e12 and g.peak_flops_fp16 == 989.4e12
        assert g.peak_flops_int8 == 1978.9e12
        assert g.support_level == "experimental"                      # nothing drives it here
    saved = json.loads(reg.read_text())
    assert saved == run(s.load_registry())
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
        assert t["utilization_percent"] == d.get("utilization_percent")
        assert device_telemetry(smp, "nvidia:9") == {
            "temperature_celsius": None, "power_watts": None, "clock_mhz": None,
            "utilization_percent": None}


@pytest.mark.parametrize("name", BACKENDS)
def test_software_devices_are_not_hardware(name):
    """Issue 35: the host CPU and a runtime's emulated device (lavapipe/llvmpipe, PoCL) are
    reported under the software vendor ("system", the fork's CPUBackend's), never the
    host CPU's maker; a clock not known is 0, the fork's own unknown (its tests ask
    clock_rate_mhz >= 0)."""
    from axl.exo import CLOCK_UNKNOWN_MHZ, SOFTWARE_VENDOR

    async def body():
        b = await _open(name)
        try:
            return b.list_devices()
        finally:
            await b.shutdown()
    for g in run(body()):
        assert g.host_memory and g.vendor == SOFTWARE_VENDOR == "system", g
        assert g.clock_rate_mhz >= 0
        if name != "opencl":      # OpenCL says its clock (CL_DEVICE_MAX_CLOCK_FREQUENCY)
            assert g.clock_rate_mhz == CLOCK_UNKNOWN_MHZ == 0
        if "llvmpipe" in g.name:
            assert g.support_level == "experimental"


@pytest.mark.parametrize("name", BACKENDS)
def test_allocation_past_available_memory(name):
    """Issue 35, the seed's rule "all backend methods raise RuntimeError on failure": an
    allocation past the device's available memory is a RuntimeError on every backend,
    the cpu backend (whose host memory is overcommitted) and lavapipe (a fixed heap)
    included, and the backend goes on working."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            free = (await b.get_device_memory_info(did))["available_bytes"]
            with pytest.raises(RuntimeError, match="out of memory"):
                await b.allocate(did, free + (1 << 30))
            h = await b.allocate(did, MiB)
            await b.copy_to_device(b"after", h)
            assert await b.copy_from_device(h, 0, 5) == b"after"
            await b.deallocate(h)
        finally:
            await b.shutdown()
    run(body())


# the first two GPUs of the CUDA double's document, by UUID, as a simulated node: axl's
# compute API matches the double's CUDA devices to the node's by UUID
_CUDA_XML = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "vendorlib", "nvml", "double", "fixtures", "hgx-8x-h100-q2x.xml")
_CUDA_UUIDS = ["GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa", "GPU-47daa2ad-a218-6286-252b-af45f0dfaf00"]


def test_cuda_backend_on_the_cuda_double(tmp_path, monkeypatch):
    """Issue 35: the fork's exo.gpu.backends.cuda_backend.CUDABackend is axl's CUDA path;
    on the CUDA driver double (tests/vendorlib/cuda/double, $AXL_TEST_CUDA_DOUBLE) it does
    what the fork's test_cuda_backend.py asks of it (which skips itself without CuPy):
    devices of vendor nvidia and backend cuda with memory, None for an unknown id, the
    allocation in _memory_handles until freed, copies with an offset and between
    allocations, synchronize, memory info, telemetry from axl's sampler; an allocation
    past the device's free memory is a RuntimeError; the factory picks it over the CPU."""
    from axl.exo import CUDABackend
    double = os.environ.get("AXL_TEST_CUDA_DOUBLE")
    if not double or not os.path.isfile(double):
        pytest.skip("the CUDA double is not built ($AXL_TEST_CUDA_DOUBLE)")
    sim = tmp_path / "cuda.json"
    sim.write_text(json.dumps({"schema": "axl.sim", "schema_version": 1, "devices": [
        {"model": "NVIDIA H100 80GB HBM3", "uuids": _CUDA_UUIDS}]}))
    monkeypatch.setenv("AXL_CUDA_LIBRARY", double)
    monkeypatch.setenv("AXL_CUDA_DOUBLE_XML", _CUDA_XML)
    monkeypatch.delenv("AXL_EXO_BACKEND", raising=False)

    async def body():
        b = CUDABackend(sim=str(sim))
        assert not b._initialized and b._device_count == 0
        await b.initialize()
        try:
            assert b._initialized and b._device_count == 2
            devs = b.list_devices()
            assert [d.device_id for d in devs] == ["cuda:0", "cuda:1"]
            for d in devs:
                assert d.vendor == "nvidia" and d.backend == "cuda" and d.memory_bytes > 0
                assert not d.host_memory and d.support_level == "full"
            did = devs[0].device_id
            assert b.get_device(did) is devs[0] and b.get_device("cuda:999") is None
            h = await b.allocate(did, MiB)
            assert h.device_id == did and h.size_bytes == MiB and h.handle_id in b._memory_handles
            await b.copy_to_device(b"offset_test", h, offset_bytes=256)
            assert await b.copy_from_device(h, offset_bytes=256, size_bytes=11) == b"offset_test"
            h2 = await b.allocate(devs[1].device_id, MiB)
            await b.copy_device_to_device(h, h2, 512)
            assert (await b.copy_from_device(h2, 256, 11)) == b"offset_test"
            await b.synchronize(did)
            info = await b.get_device_memory_info(did)
            assert info["total_bytes"] > 0 and info["used_bytes"] >= MiB
            assert info["available_bytes"] == info["total_bytes"] - info["used_bytes"]
            with pytest.raises(RuntimeError, match="out of memory"):
                await b.allocate(did, info["available_bytes"] + (1 << 30))
            t = await b.get_device_temperature(did)
            assert isinstance(t, float) and t > -100
            clock = await b.get_device_clock_rate(did)
            assert isinstance(clock, int) and clock > 0
            for x in (h, h2):
                await b.deallocate(x)
                assert x.handle_id not in b._memory_handles
        finally:
            await b.shutdown()
        assert not b._initialized
        f = await GPUBackendFactory.create_backend(sim=str(sim))
        try:
            assert type(f) is CUDABackend and f.name == "cuda"
        finally:
            await f.shutdown()
    run(body())


def test_monitoring_over_axl():
    """exo's monitoring (the fork's exo.gpu.monitoring) over an axl backend: memory from
    the runtime, temperature, power and utilisation from axl's sampler, which has none
    for the host CPU: unknown (-1.0), left out of the Prometheus text, no alert."""
    from axl.exo import GPUMetricsCollector, GPUMonitoringService

    async def body():
        b = await _open("cpu")
        try:
            dev = b.list_devices()[0]
            c = GPUMetricsCollector(dev, b)
            s = await c.collect_snapshot()
            assert s.memory_total_bytes == dev.memory_bytes > 0
            assert 0 <= s.memory_used_bytes <= s.memory_total_bytes
            assert s.temperature_c == s.power_usage_w == s.compute_utilization_percent == -1.0
            summ = c.get_summary()
            assert summ.temperature_current_c == summ.temperature_avg_c == -1.0
            assert summ.high_temperature_alerts == 0
            st = c.get_device_gpu_state()
            assert st.device_id == "cpu:0" and st.thermal_temperature_c == -1.0
            svc = GPUMonitoringService(b)
            alerts = []
            svc.set_alert_callback(alerts.append)   # a plain callable works too
            await svc.start(collection_interval_seconds=0.05)
            for _ in range(100):
                if svc.get_summaries():
                    break
                await asyncio.sleep(0.01)
            await svc.stop()
            text = svc.get_prometheus_metrics()
            assert 'gpu_memory_used_bytes{device_id="cpu:0"}' in text
            assert "gpu_temperature_celsius" not in text and "gpu_power_watts" not in text
            assert not [a for a in alerts if a["type"] == "high_temperature"]
        finally:
            await b.shutdown()
    run(body())


class _Gate:
    """What _hold_waiter holds: the waiter thread (a job blocked on a threading.Event)
    and the reading of libaxl's completion notifications (axl.exo._Notes: its pipe is
    not read, so completed copies stay unsettled); set() lets both go."""

    def __init__(self, b: AxlGPUBackend) -> None:
        self._ev = threading.Event()
        self._notes = b._notes  # noqa: SLF001
        self._loop = self._notes._loop if self._notes is not None else None  # noqa: SLF001
        if self._loop is not None:
            self._loop.remove_reader(self._notes._r)  # noqa: SLF001

    def wait(self) -> None:
        self._ev.wait()

    def set(self) -> None:
        self._ev.set()
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            loop.add_reader(self._notes._r, self._notes._ready)  # noqa: SLF001


def _hold_waiter(b: AxlGPUBackend):
    """Hold the backend's waiter thread (test hook: a job that blocks until released) and
    its notification reader, so that what is queued is still pending when a test cancels
    its caller. Returns (the gate, whose set() releases both; the holding job's future).
    The backend must have awaited a copy already (its reader is attached)."""
    gate = _Gate(b)
    _GATES.append(gate)
    return gate, b._waiter.submit(gate.wait)  # noqa: SLF001


_GATES: list[_Gate] = []


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
            # the backend's host buffer: page-aligned, allocated once, reused
            hb = b.host_buffer(size)
            addr = ctypes.addressof(ctypes.c_char.from_buffer(hb))
            assert addr % mmap.PAGESIZE == 0 and len(hb) == size
            for _ in range(2):
                assert await b.copy_from_device(h, 0, size, out=hb) is hb
                assert hb[:] == data
            del addr
            hb.close()
            with pytest.raises(RuntimeError):
                b.host_buffer(0)
            await b.deallocate(h)
        finally:
            await b.shutdown()
    run(body())


@pytest.mark.parametrize("name", BACKENDS)
def test_host_buffer_is_wrapped_once(name):
    """host_buffer(): wrapped by the backend when made, so a copy into it wraps nothing
    (the compute context's wrap is made to fail, and the copies still land), while any
    other out= still needs one; dropping it gives its wrapping back; a copy in flight
    keeps it open (close() and ``with`` raise BufferError, as an exported mmap does);
    resize is refused; after shutdown its memory is still the caller's."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            size = 2 * MiB + 5
            h = await b.allocate(did, size)
            data = _pattern(size, 9)
            await b.copy_to_device(data, h)
            hb = b.host_buffer(size)
            assert isinstance(hb, HostBuffer) and isinstance(hb, mmap.mmap)
            c = b._compute  # noqa: SLF001
            live = len(c._objects)  # noqa: SLF001

            def no_wrap(*a, **k):
                raise AssertionError("wrapped at copy time")
            real_wrap = c.wrap
            c.wrap = no_wrap
            try:
                for _ in range(3):
                    assert await b.copy_from_device(h, 0, size, out=hb) is hb
                    assert hb[:] == data
                assert await b.copy_from_device(h, 100, 4096, out=hb) is hb
                assert hb[:4096] == data[100:4196]
                with pytest.raises(AssertionError):
                    await b.copy_from_device(h, 0, 16, out=bytearray(16))
            finally:
                c.wrap = real_wrap
            assert len(c._objects) == live  # noqa: SLF001 (no event, no wrap left behind)

            # a copy in flight keeps the buffer open
            gate, held = _hold_waiter(b)
            t = asyncio.ensure_future(b.copy_from_device(h, 0, size, out=hb))
            await asyncio.sleep(0)
            with pytest.raises(BufferError):
                hb.close()
            with pytest.raises(BufferError):
                with hb:
                    pass
            assert not hb.closed
            gate.set()
            await held
            assert await t is hb and hb[:] == data
            with pytest.raises(BufferError):
                hb.resize(size * 2)

            # dropped or closed: the wrapping is freed with it
            live = len(c._objects)  # noqa: SLF001
            extra = [b.host_buffer(4096) for _ in range(3)]
            assert len(c._objects) == live + 3  # noqa: SLF001
            extra[0].close()
            with extra[1]:
                pass
            del extra
            gc.collect()
            assert len(c._objects) == live  # noqa: SLF001

            # another backend's buffer is copied into the ordinary way
            b2 = await _open(name)
            try:
                h2 = await b2.allocate(b2.list_devices()[0].device_id, 4096)
                await b2.copy_to_device(data[:4096], h2)
                assert await b2.copy_from_device(h2, 0, 4096, out=hb) is hb
                assert hb[:4096] == data[:4096]
            finally:
                await b2.shutdown()
            await b.deallocate(h)
        finally:
            _release_gates()
            await b.shutdown()
        # shut down: the memory is still there, and closes
        assert hb[:4096] == data[:4096]
        hb.close()
        # a closed buffer (ours or any mmap) is a RuntimeError, not a ValueError
        b3 = await _open(name)
        try:
            h3 = await b3.allocate(b3.list_devices()[0].device_id, 4096)
            for closed in (hb, mmap.mmap(-1, 4096)):
                closed.close()
                with pytest.raises(RuntimeError):
                    await b3.copy_from_device(h3, 0, 16, out=closed)
                with pytest.raises(RuntimeError):
                    await b3.copy_to_device(closed, h3)
        finally:
            await b3.shutdown()
        with pytest.raises(RuntimeError, match="shut down"):
            b.host_buffer(4096)
    run(body())


@pytest.mark.parametrize("name", BACKENDS)
def test_copies_complete_on_notification(name):
    """Copies are awaited on libaxl's completion notification (axl_event_notify), not
    through the waiter thread: with that thread held, a copy into a host buffer and one
    between two allocations complete (a copy that wrapped the caller's memory still
    unwraps it on that thread before it returns). A
    notification that misses the deadline is settled by the waiter thread instead (the
    result is right, nothing stays in flight, the late handle is ignored). An error in
    the completion handler reaches the await instead of hanging it. Copies in flight at
    shutdown complete before the context closes."""
    async def body():
        b = await _open(name)
        gate = threading.Event()
        _GATES.append(gate)  # type: ignore[arg-type]
        try:
            did = b.list_devices()[0].device_id
            size = 4 * MiB + 3
            h = await b.allocate(did, size)
            h2 = await b.allocate(did, size)
            data = _pattern(size, 3)
            hb = b.host_buffer(size)
            await b.copy_to_device(data, h)
            held = b._waiter.submit(gate.wait)  # noqa: SLF001
            wait = asyncio.wait_for
            await wait(b.copy_device_to_device(h, h2, size), 10)
            assert await wait(b.copy_from_device(h2, 0, size, out=hb), 10) is hb
            assert hb[:] == data
            assert not held.done()
            gate.set()
            await held

            notes = b._notes  # noqa: SLF001
            assert notes is not None and not notes._pending  # noqa: SLF001
            deadline, notes._deadline = notes._deadline, 0.0  # noqa: SLF001
            try:
                for i in range(4):
                    assert await b.copy_from_device(h, 0, size, out=hb) is hb
                    assert hb[:] == data
                    assert await b.copy_from_device(h2, i, 4096) == data[i:i + 4096]
            finally:
                notes._deadline = deadline  # noqa: SLF001
            await b.synchronize(did)
            assert b.inflight() == 0 and not notes._pending  # noqa: SLF001

            # whatever fails in the completion handler reaches the await, never hangs it
            from axl.exo import backend as exo_backend
            real_wait = exo_backend._RawEvent.wait  # noqa: SLF001

            def broken(self):
                raise ValueError("broken handler")
            exo_backend._RawEvent.wait = broken  # type: ignore[method-assign]  # noqa: SLF001
            try:
                with pytest.raises(RuntimeError, match="broken handler"):
                    await wait(b.copy_from_device(h, 0, 4096, out=hb), 10)
            finally:
                exo_backend._RawEvent.wait = real_wait  # type: ignore[method-assign]  # noqa: SLF001
            assert b.inflight() == 0 and not notes._pending  # noqa: SLF001

            tasks = [asyncio.ensure_future(b.copy_from_device(h, 0, size)) for _ in range(6)]
            await asyncio.sleep(0)
            assert notes._pending  # noqa: SLF001
            await b.shutdown()
            for t in tasks:
                assert await t == data
        finally:
            _release_gates()
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
    writes (the caller's out, a host buffer, or the new bytes) until the copy's event
    completed, then lets it go; a host buffer stays open meanwhile."""
    async def body():
        b = await _open(name)
        try:
            did = b.list_devices()[0].device_id
            size = 8 * MiB
            h = await b.allocate(did, size)
            await b.copy_to_device(_pattern(size, 1), h)
            for kind in ("bytearray", "host_buffer", None):
                gate, held = _hold_waiter(b)
                out = (_OutBuf(size) if kind == "bytearray" else
                       b.host_buffer(size) if kind == "host_buffer" else None)
                ref = weakref.ref(out) if out is not None else None
                t = asyncio.ensure_future(b.copy_from_device(h, 0, size, out=out))
                await asyncio.sleep(0)            # the copy is queued; its wait is held
                t.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await t
                if kind == "host_buffer":
                    with pytest.raises(BufferError):
                        out.close()
                del out
                gc.collect()
                assert b.inflight() == 1          # the backend holds the copy's memory
                if ref is not None:
                    assert ref() is not None
                gate.set()
                await held
                await b.synchronize(did)
                # released once the copy's completion is noticed: its notification reaches
                # the loop's reader on its own schedule, which a loaded machine (the ASan
                # stage, two test processes per core) can put after synchronize returns
                for _ in range(500):
                    if b.inflight() == 0:
                        break
                    await asyncio.sleep(0.01)
                assert b.inflight() == 0          # released once the copy completed
                gc.collect()
                if ref is not None:
                    assert ref() is None
            await b.deallocate(h)
        finally:
            _release_gates()
            await b.shutdown()
    run(body())


_DESIGN_TYPES = {"device_id": str, "name": str, "vendor": str, "backend": str,
                 "compute_capability": str, "memory_bytes": int, "memory_available": int,
                 "compute_units": int, "tensor_core_count": int, "max_threads_per_block": int,
                 "clock_rate_mhz": int, "bandwidth_gbps": float, "support_level": str,
                 "driver_version": str, "backend_name": str}


def _fork_peak_flops(devices) -> float:
    """The fork's get_peak_flops, as its discovery.py computes it."""
    return sum(d.compute_units * d.clock_rate_mhz * 1e6 * 64 for d in devices)


def _check_typed(g) -> None:
    for k, t in _DESIGN_TYPES.items():
        v = getattr(g, k)
        assert type(v) is t, (g.device_id, k, v)  # never None, never a bool for an int


@pytest.mark.parametrize("name", BACKENDS)
def test_device_fields_are_typed(name):
    """Every GPUDevice field holds a value of the design's type (the fork's own helpers
    run on them); compute units come from the runtime; the host's RAM is not GPU memory."""
    from axl.exo.discovery import get_peak_flops, get_total_gpu_memory

    async def body():
        b = await _open(name)
        try:
            return b.list_devices()
        finally:
            await b.shutdown()
    devs = run(body())
    for g in devs:
        _check_typed(g)
        assert isinstance(g, AxlGPUDevice) and g.host_memory
        assert g.compute_units > 0 and g.memory_bytes > 0 and g.memory_available > 0
        assert g.tensor_core_count == 0
    _fork_peak_flops(devs)                                   # no TypeError
    assert get_total_gpu_memory(devs) == 0                   # host RAM (or emulated on it)
    assert get_peak_flops(devs) >= 0.0
    if name == "opencl":
        from axl.exo.opencl_facts import opencl_device_facts
        rt = opencl_device_facts()[devs[0].name]             # clGetDeviceInfo
        assert devs[0].compute_units == rt["compute_units"]
        assert devs[0].max_threads_per_block == rt["max_work_group_size"] > 0
        assert devs[0].driver_version == rt["driver_version"]


def test_helpers_on_inventory_devices(sim_h100x2, tmp_path, monkeypatch):
    """The fork's module-level helpers: discover_gpu_devices, get_total_gpu_memory
    (accelerators only), get_peak_flops (the inventory's peaks), async load_registry."""
    from axl.exo.discovery import (GPUDiscoveryService as Service, discover_gpu_devices,
                                   get_peak_flops, get_total_gpu_memory)
    monkeypatch.delenv("AXL_EXO_BACKEND", raising=False)
    reg = tmp_path / "r.json"
    with axl.open(sim=sim_h100x2) as inv:
        r = run(discover_gpu_devices(reg, inventory=inv))
    assert asyncio.iscoroutinefunction(Service.load_registry)
    assert run(Service(reg).load_registry()) == json.loads(reg.read_text())
    assert run(Service(tmp_path / "none.json").load_registry()) is None
    gpus = r["inventory_devices"]
    for g in gpus:
        _check_typed(g)
    every = r["devices"] + gpus                               # with the verified host device
    assert get_total_gpu_memory(every) == 2 * 85899345920
    assert get_peak_flops(gpus) == 2 * 67e12
    assert get_peak_flops(gpus, "fp16") == 2 * 989.4e12
    assert get_peak_flops(gpus, "int8") == 2 * 1978.9e12
    with pytest.raises(RuntimeError):
        get_peak_flops(gpus, "fp128")
    # a GPUDevice not of axl (the fork's own): counted by its backend, the fork's estimate
    other = GPUDevice(device_id="x:0", name="x", vendor="x", backend="rocm",
                      compute_capability="RDNA2", memory_bytes=1 << 30, memory_available=0,
                      compute_units=2, tensor_core_count=0, max_threads_per_block=256,
                      clock_rate_mhz=1000, bandwidth_gbps=1.0, support_level="full",
                      driver_version="1", backend_name="x")
    assert get_total_gpu_memory([other]) == 1 << 30
    assert get_peak_flops([other]) == 2 * 1000 * 1e6 * 64


def test_cuda_compute_capability():
    assert cuda_compute_capability("Hopper", "NVIDIA H100 80GB HBM3") == "9.0"
    assert cuda_compute_capability("Ampere", "NVIDIA A100-SXM4-80GB") == "8.0"
    assert cuda_compute_capability("Ampere", "NVIDIA RTX A6000") == "8.6"
    assert cuda_compute_capability("Ada Lovelace", "NVIDIA L40S") == "8.9"
    assert cuda_compute_capability("Blackwell", "NVIDIA B200") == "10.0"
    assert cuda_compute_capability("Pascal", "Tesla P100") is None      # not told: unknown


def test_mixed_inventory_fields(tmp_path):
    """Every accelerator of the mixed sim node: typed fields; AMD keeps its architecture
    as compute_capability (the design's "RDNA2")."""
    from axl.exo import inventory_device
    sim = os.path.join(os.path.dirname(os.path.dirname(__file__)), "sim", "mixed.json")
    with axl.open(sim=sim) as inv:
        for d in inv.devices:
            g = inventory_device(d)
            _check_typed(g)
            if g.vendor == "amd":
                assert g.compute_capability == (d.architecture or UNKNOWN_STR)


class _ToyBackend(GPUBackend):
    """A backend written as the design's "Adding a New Backend" says (a GPUBackend
    subclass): one device, memory in a dict."""

    def __init__(self):
        self.dev = GPUDevice(device_id="toy:0", name="toy", vendor="toy", backend="toy",
                             compute_capability="1", memory_bytes=1 << 20,
                             memory_available=1 << 20, compute_units=1, tensor_core_count=0,
                             max_threads_per_block=1, clock_rate_mhz=1, bandwidth_gbps=1.0,
                             support_level="experimental", driver_version="1",
                             backend_name="toy")
        self.mem: dict[str, bytearray] = {}
        self.up = False

    async def initialize(self): self.up = True
    async def shutdown(self): self.up = False
    def list_devices(self): return [self.dev]
    def get_device(self, device_id): return self.dev if device_id == "toy:0" else None

    async def allocate(self, device_id, size_bytes):
        h = MemoryHandle(device_id=device_id, size_bytes=size_bytes)
        self.mem[h.handle_id] = bytearray(size_bytes)
        return h

    async def deallocate(self, handle): del self.mem[handle.handle_id]

    async def copy_to_device(self, src, dst_handle, offset_bytes=0):
        self.mem[dst_handle.handle_id][offset_bytes:offset_bytes + len(src)] = src

    async def copy_from_device(self, src_handle, offset_bytes, size_bytes):
        return bytes(self.mem[src_handle.handle_id][offset_bytes:offset_bytes + size_bytes])

    async def copy_device_to_device(self, src_handle, dst_handle, size_bytes):
        self.mem[dst_handle.handle_id][:size_bytes] = self.mem[src_handle.handle_id][:size_bytes]

    async def synchronize(self, device_id): pass

    async def get_device_memory_info(self, device_id):
        return {"total_bytes": 1 << 20, "used_bytes": 0, "available_bytes": 1 << 20,
                "reserved_bytes": 0}

    async def get_device_temperature(self, device_id): return None
    async def get_device_power_usage(self, device_id): return None
    async def get_device_clock_rate(self, device_id): return None


def test_add_a_backend(monkeypatch):
    """The design's steps: a GPUBackend subclass, registered with the factory, put in
    PLATFORM_BACKEND_PRIORITY: the factory creates it, detects it, overrides to it."""
    monkeypatch.delenv("AXL_EXO_BACKEND", raising=False)
    monkeypatch.setitem(GPUBackendFactory.PLATFORM_BACKEND_PRIORITY, "linux",
                        ["toy", "cuda", "rocm", "vulkan"])
    GPUBackendFactory.register_backend("toy", _ToyBackend)
    try:
        assert GPUBackendFactory.priority("linux")[0] == "toy"

        async def body():
            b = await GPUBackendFactory.create_backend()
            assert isinstance(b, _ToyBackend) and b.up
            h = await b.allocate("toy:0", 8)
            await b.copy_to_device(b"abc", h)
            assert await b.copy_from_device(h, 0, 3) == b"abc"
            await b.shutdown()
            GPUBackendFactory.set_backend_override("toy")
            try:
                assert isinstance(await GPUBackendFactory.create_backend(), _ToyBackend)
            finally:
                GPUBackendFactory.clear_backend_override()
            from axl.exo.factory import detect_available_backends
            avail = await detect_available_backends()
            assert avail[0] == "toy" and avail[-1] == "cpu"
        run(body())
    finally:
        GPUBackendFactory.unregister_backend("toy")
    GPUBackendFactory.set_backend_override("toy")
    try:
        with pytest.raises(RuntimeError, match="Unknown backend"):
            asyncio.run(GPUBackendFactory.create_backend())
    finally:
        GPUBackendFactory.clear_backend_override()


@pytest.mark.parametrize("name", BACKENDS)
def test_design_usage_client(name, tmp_path, monkeypatch):
    """A client written from the design's usage text (src/exo/gpu/README.md, steps 1-7,
    Troubleshooting, Worker integration, Monitoring), on each backend by override."""
    from axl.exo.discovery import GPUDiscoveryService as DiscoveryService
    from axl.exo.factory import GPUBackendFactory as Factory, detect_available_backends
    monkeypatch.setenv("HOME", str(tmp_path))                 # the default registry path

    async def client():
        Factory.set_backend_override(name)
        try:
            backend = await Factory.create_backend()
        except RuntimeError as e:
            if name != "cpu" and "No %s devices" % name in str(e):
                pytest.skip("%s runtime missing" % name)
            raise
        finally:
            Factory.clear_backend_override()
        devices = backend.list_devices()
        lines = []
        for device in devices:
            lines.append(f"{device.device_id}: {device.name}")
            lines.append(f"  Memory: {device.memory_bytes / 1e9:.1f} GB")
            lines.append(f"  Compute: {device.compute_units} CUs")
        device_id = devices[0].device_id
        handle = await backend.allocate(device_id, size_bytes=64 * 1024 * 1024)
        host_data = b"tensor data"
        await backend.copy_to_device(host_data, handle)
        result = await backend.copy_from_device(handle, offset_bytes=0, size_bytes=len(host_data))
        assert result == host_data and isinstance(result, bytes)
        handle2 = await backend.allocate(devices[-1].device_id, size_bytes=64 * 1024 * 1024)
        await backend.copy_device_to_device(handle, handle2, size_bytes=1024 * 1024)
        await backend.synchronize(device_id)
        assert await backend.copy_from_device(handle2, 0, 11) == host_data
        try:
            await backend.allocate(device_id, size_bytes=1 << 62)
            raise AssertionError("a huge allocation succeeded")
        except RuntimeError as e:
            lines.append(f"Allocation failed: {e}")
        memory_info = await backend.get_device_memory_info(device_id)
        temp = await backend.get_device_temperature(device_id)
        power = await backend.get_device_power_usage(device_id)
        clock = await backend.get_device_clock_rate(device_id)
        assert memory_info["total_bytes"] > 0 and (temp, power, clock) == (None, None, None)
        await backend.deallocate(handle)
        await backend.deallocate(handle2)
        # Worker integration: the discovery service over the worker's backend
        discovery = DiscoveryService(backend)
        gpu_info = await discovery.discover_all_devices()
        assert [d.device_id for d in gpu_info["devices"]] == [d.device_id for d in devices]
        await discovery.shutdown()
        assert backend.list_devices() == devices               # the worker's, left running
        await backend.shutdown()
        # 7. Discover devices
        service = DiscoveryService()
        result = await service.discover_all_devices()
        lines.append(f"Backend: {result['backend_name']}")
        lines.append(f"Devices: {len(result['devices'])}")
        for device in result["devices"]:
            lines.append(f"  {device.device_id}: {device.name}")
        await service.shutdown()
        assert (tmp_path / ".exo" / "gpu_registry.json").exists()
        available = await detect_available_backends()
        assert available[-1] == "cpu"
        assert (name in available) == (name in Factory.priority())  # opencl: not in the order
        return lines
    lines = run(client())
    assert any("CUs" in x and "None" not in x for x in lines)


def test_exo_node_profile(sim_h100x2):
    """The bridge for upstream exo: MemoryUsage.from_bytes' arguments from axl (the GPUs'
    memory, less what the sampler says is used), backends, links."""
    with axl.open(sim=sim_h100x2) as inv:
        p = exo_node_profile(inv)
        smp = axl.sample(inv)
        used = [int(smp.device(d.id).get("memory_used_bytes")) for d in inv.devices]
        assert not inv.closed
    assert set(p["memory"]) == {"ram_total", "ram_available", "swap_total", "swap_available"}
    assert p["memory_source"] == "accelerators" and p["memory_unknown_devices"] == 0
    assert p["memory"]["ram_total"] == 2 * 85899345920
    assert p["memory"]["ram_available"] == 2 * 85899345920 - sum(used)
    assert p["backends"][-1] == "cpu" and "cuda" not in p["backends"]   # nothing drives them
    assert p["links"] == [{"a": "nvidia:0", "b": "nvidia:1", "kind": "numa",
                           "bandwidth_gbps": 63.008}]
    assert p["rdma"] is False and p["nics"] == []
    host = exo_node_profile()                                  # this machine: no accelerator
    if host["memory_source"] == "host":
        assert 0 < host["memory"]["ram_available"] <= host["memory"]["ram_total"]
