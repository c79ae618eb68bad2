"""GPUDiscoveryService: exo's device discovery over axl: the factory's backend, each of
its devices verified by a small allocate/copy/synchronise/free, and beside them every
accelerator axl's inventory knows, with axl's facts, whether a backend drives it or not."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from ..inventory import Device, Inventory
from ..inventory import open as _open_inventory
from .backend import _VENDOR_RUNTIME, _AXL_TO_EXO, inventory_facts
from .factory import GPUBackendFactory
from .interface import UNKNOWN_FLOAT, UNKNOWN_INT, UNKNOWN_STR, AxlGPUDevice, GPUBackend, GPUDevice

__all__ = ["GPUDiscoveryService", "discover_gpu_devices", "get_peak_flops",
           "get_total_gpu_memory", "inventory_device", "peak_flops_known"]

log = logging.getLogger("axl.exo")


def inventory_device(d: Device, driven_by: str | None = None) -> AxlGPUDevice:
    """A GPUDevice of an inventory device's facts (inventory_facts; unknown: UNKNOWN_*).
    device_id is axl's id ("nvidia:0"); backend the exo backend that drives it, else the
    vendor's runtime's ("unknown" when the vendor has none here); support_level "full"
    when driven by the vendor's runtime, "partial" by another, "experimental" when
    nothing here drives it. memory_available is the total less what axl's sampler says
    is used, when the caller passes it through discovery; here the total is all we know
    of it: UNKNOWN_INT. max_threads_per_block is a runtime's fact: UNKNOWN_INT here."""
    f = inventory_facts(d)
    runtime = _VENDOR_RUNTIME.get(f["vendor"])
    backend = driven_by or (_AXL_TO_EXO.get(runtime) if runtime else None) or UNKNOWN_STR
    level = ("experimental" if driven_by is None else
             "full" if _AXL_TO_EXO.get(runtime or "") == driven_by else "partial")
    flops = f["flops"]
    return AxlGPUDevice(
        device_id=d.id, name=d.model or UNKNOWN_STR, vendor=f["vendor"], backend=backend,
        compute_capability=f["compute_capability"],
        memory_bytes=d.memory_total_bytes if d.memory_total_bytes is not None else UNKNOWN_INT,
        memory_available=UNKNOWN_INT, compute_units=f["compute_units"],
        tensor_core_count=f["tensor_core_count"], max_threads_per_block=UNKNOWN_INT,
        clock_rate_mhz=f["clock_rate_mhz"], bandwidth_gbps=f["bandwidth_gbps"],
        support_level=level, driver_version=f["driver_version"],
        backend_name="axl-inventory", inventory_id=d.id, host_memory=d.family == "cpu",
        peak_flops_fp32=flops.get("FP32", UNKNOWN_FLOAT),
        peak_flops_fp16=flops.get("FP16", UNKNOWN_FLOAT),
        peak_flops_int8=flops.get("INT8", UNKNOWN_FLOAT))


class GPUDiscoveryService:
    """discover_all_devices() -> {"devices": verified backend devices,
    "inventory_devices": every accelerator of axl's inventory, "backend_name",
    "discovery_status": "success" | "partial", "timestamp"}; the registry JSON
    (default ~/.exo/gpu_registry.json) records both."""

    def __init__(self, registry_path: Optional[Path] | GPUBackend = None, *,
                 inventory: Inventory | None = None,
                 sim: str | os.PathLike[str] | None = None,
                 backend: GPUBackend | None = None) -> None:
        # the design's worker passes its backend (GPUDiscoveryService(self.gpu_backend)),
        # the fork's code a registry path: both are taken. A backend given is the
        # caller's: discovery uses it as it is and shutdown() leaves it running.
        if isinstance(registry_path, GPUBackend):
            backend, registry_path = registry_path, None
        self.registry_path = Path(registry_path) if registry_path is not None else \
            Path.home() / ".exo" / "gpu_registry.json"
        self._inventory = inventory
        self._own_inventory = inventory is None
        self._sim = sim
        self.backend: GPUBackend | None = backend
        self._own_backend = backend is None
        self._last: dict[str, Any] | None = None

    async def _verify(self, b: GPUBackend, dev: GPUDevice) -> bool:
        try:
            h = await b.allocate(dev.device_id, 1 << 20)
            try:
                await b.copy_to_device(bytes(1024), h)
                await b.synchronize(dev.device_id)
                ok = await b.copy_from_device(h, 0, 1024) == bytes(1024)
            finally:
                await b.deallocate(h)
            return ok
        except Exception as e:  # any backend's failure (the fork's verification catches all)
            log.warning("device %s failed verification: %s", dev.device_id, e)
            return False

    async def discover_all_devices(self) -> dict[str, Any]:
        try:
            if self._inventory is None:
                inv = getattr(self.backend, "_inventory", None)
                if isinstance(inv, Inventory) and not inv.closed:
                    self._inventory, self._own_inventory = inv, False
                else:
                    self._inventory = (_open_inventory(sim=self._sim) if self._sim is not None
                                       else _open_inventory())
            if self.backend is None:
                self.backend = await GPUBackendFactory.create_backend(inventory=self._inventory)
            b = self.backend
            devices = b.list_devices()
            verified = [d for d in devices if await self._verify(b, d)]
            driven = {d.inventory_id: d.backend for d in devices
                      if getattr(d, "inventory_id", "")}
        except RuntimeError:
            raise
        except Exception as e:
            raise RuntimeError("GPU discovery failed: %s" % e) from e
        inv_devs = [inventory_device(d, driven.get(d.id)) for d in self._inventory.devices]
        result = {
            "devices": verified, "inventory_devices": inv_devs,
            "backend_name": type(b).__name__ + ":" + str(getattr(b, "name", "")),
            "discovery_status": "success" if len(verified) == len(devices) else "partial",
            "timestamp": datetime.now(tz=timezone.utc).isoformat(),
        }
        self._last = result
        self._save(result)
        return result

    def _save(self, result: dict[str, Any]) -> None:
        def row(g: GPUDevice) -> dict[str, Any]:
            d = dataclasses.asdict(g) if dataclasses.is_dataclass(g) else dict(vars(g))
            return {k: d[k] for k in ("device_id", "name", "vendor", "backend", "memory_bytes",
                                      "compute_units", "support_level")}
        doc = {"devices": [row(g) for g in result["devices"]],
               "inventory_devices": [row(g) for g in result["inventory_devices"]],
               "backend_name": result["backend_name"], "timestamp": result["timestamp"]}
        try:
            self.registry_path.parent.mkdir(parents=True, exist_ok=True)
            self.registry_path.write_text(json.dumps(doc, indent=2))
        except OSError as e:
            log.warning("cannot write the GPU registry %s: %s", self.registry_path, e)

    async def load_registry(self) -> Optional[dict[str, Any]]:
        """The registry last written, None when there is none (or it is unreadable). A
        coroutine, as exo's: the file is read on a thread, off the event loop."""
        def read() -> Optional[dict[str, Any]]:
            try:
                return json.loads(self.registry_path.read_text())
            except (OSError, ValueError):
                return None
        return await asyncio.to_thread(read)

    def get_device_by_id(self, device_id: str) -> Optional[GPUDevice]:
        """A device of the last discovery (backend or inventory id), None if unknown."""
        if self._last is None:
            return None
        for g in self._last["devices"] + self._last["inventory_devices"]:
            if g.device_id == device_id:
                return g
        return None

    async def shutdown(self) -> None:
        if self.backend is not None and self._own_backend:
            await self.backend.shutdown()
            self.backend = None
        if self._own_inventory and self._inventory is not None:
            self._inventory.close()
            self._inventory = None


# ===== exo's helper functions (the fork's discovery.py) =====

async def discover_gpu_devices(registry_path: Optional[Path] = None, **kwargs: Any) -> dict[str, Any]:
    """One discovery (GPUDiscoveryService(registry_path).discover_all_devices()), then
    shutdown. kwargs: GPUDiscoveryService's (inventory, sim)."""
    service = GPUDiscoveryService(registry_path, **kwargs)
    try:
        return await service.discover_all_devices()
    finally:
        await service.shutdown()


def _host_memory(d: GPUDevice) -> bool:
    hm = getattr(d, "host_memory", None)
    return bool(hm) if hm is not None else d.backend == "cpu"


def get_total_gpu_memory(devices: list[GPUDevice]) -> int:
    """Bytes of accelerator memory of the devices: the host's RAM (the cpu backend's
    device, a runtime's emulated device: host_memory, or for a GPUDevice not of axl,
    backend "cpu") is not GPU memory and is not counted, nor is a size not known."""
    return sum(d.memory_bytes for d in devices
               if not _host_memory(d) and isinstance(d.memory_bytes, int) and d.memory_bytes > 0)


_FLOPS_FIELD = {"fp32": "peak_flops_fp32", "fp16": "peak_flops_fp16", "int8": "peak_flops_int8"}


def get_peak_flops(devices: list[GPUDevice], precision: str = "fp32") -> float:
    """Peak FLOPS (OPS/s for int8) of the devices added up: each device's dense peak of
    that precision from axl's inventory (peak_flops_fp32 / _fp16 / _int8). A device with
    no such figure (a GPUDevice not of axl, or one the inventory has none for) counts
    with the fork's estimate, compute_units x clock_rate_mhz x 10^6 x 64, when both are
    known; otherwise it adds nothing (its peak is unknown, not zero: see
    peak_flops_known)."""
    field = _FLOPS_FIELD.get(precision.lower())
    if field is None:
        raise RuntimeError("precision must be one of %s" % ", ".join(_FLOPS_FIELD))
    total = 0.0
    for d in devices:
        v = getattr(d, field, None)
        if isinstance(v, (int, float)) and v >= 0:
            total += float(v)
        elif precision.lower() == "fp32" and isinstance(d.compute_units, int) \
                and d.compute_units > 0 and isinstance(d.clock_rate_mhz, int) \
                and d.clock_rate_mhz > 0:
            total += d.compute_units * d.clock_rate_mhz * 1e6 * 64
    return total


def peak_flops_known(devices: list[GPUDevice], precision: str = "fp32") -> bool:
    """Whether get_peak_flops had a figure (or the fork's estimate) for every device."""
    field = _FLOPS_FIELD.get(precision.lower(), "")
    for d in devices:
        v = getattr(d, field, None)
        if isinstance(v, (int, float)) and v >= 0:
            continue
        if precision.lower() == "fp32" and isinstance(d.compute_units, int) and \
                d.compute_units > 0 and isinstance(d.clock_rate_mhz, int) and d.clock_rate_mhz > 0:
            continue
        return False
    return True
