"""GPUDiscoveryService: exo's device discovery over axl: the factory's backend, each of
its devices verified by a small allocate/copy/synchronise/free, and beside them every
accelerator axl's inventory knows, with axl's facts, whether a backend drives it or not."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from ..inventory import Device, Inventory
from ..inventory import open as _open_inventory
from .backend import _VENDOR_RUNTIME, _AXL_TO_EXO, _TENSOR_UNITS, AxlGPUBackend
from .factory import GPUBackendFactory
from .interface import GPUDevice

__all__ = ["GPUDiscoveryService", "inventory_device"]

log = logging.getLogger("axl.exo")


def inventory_device(d: Device, driven_by: str | None = None) -> GPUDevice:
    """A GPUDevice of an inventory device's facts (unknown: None). device_id is axl's id
    ("nvidia:0"); backend the exo backend that drives it, else the vendor's runtime;
    support_level "full" when driven by the vendor's runtime, "partial" by another,
    "experimental" when nothing here drives it."""
    units = tensor = None
    for row in d.raw.get("compute_units") or []:
        if row.get("name") in _TENSOR_UNITS:
            tensor = row.get("count")
        elif units is None:
            units = row.get("count")
    clocks = d.raw.get("clocks") or {}
    vendor = (d.vendor or "").lower() or None
    runtime = _VENDOR_RUNTIME.get(vendor or "")
    backend = driven_by or (_AXL_TO_EXO.get(runtime) if runtime else None)
    level = ("experimental" if driven_by is None else
             "full" if _AXL_TO_EXO.get(runtime or "") == driven_by else "partial")
    return GPUDevice(
        device_id=d.id, name=d.model, vendor=vendor, backend=backend,  # type: ignore[arg-type]
        compute_capability=d.get("compute_capability") or d.architecture,
        memory_bytes=d.memory_total_bytes, memory_available=None,  # type: ignore[arg-type]
        compute_units=units, tensor_core_count=tensor,  # type: ignore[arg-type]
        max_threads_per_block=None,  # type: ignore[arg-type]
        clock_rate_mhz=clocks.get("graphics_max_mhz") or clocks.get("sm_max_mhz"),
        bandwidth_gbps=d.memory_bandwidth_gbps,  # type: ignore[arg-type]
        support_level=level, driver_version=d.get("driver.version"),
        backend_name="axl-inventory")


class GPUDiscoveryService:
    """discover_all_devices() -> {"devices": verified backend devices,
    "inventory_devices": every accelerator of axl's inventory, "backend_name",
    "discovery_status": "success" | "partial", "timestamp"}; the registry JSON
    (default ~/.exo/gpu_registry.json) records both."""

    def __init__(self, registry_path: Optional[Path] = None, *,
                 inventory: Inventory | None = None,
                 sim: str | os.PathLike[str] | None = None) -> None:
        self.registry_path = Path(registry_path) if registry_path is not None else \
            Path.home() / ".exo" / "gpu_registry.json"
        self._inventory = inventory
        self._own_inventory = inventory is None
        self._sim = sim
        self.backend: AxlGPUBackend | None = None
        self._last: dict[str, Any] | None = None

    async def _verify(self, b: AxlGPUBackend, dev: GPUDevice) -> bool:
        try:
            h = await b.allocate(dev.device_id, 1 << 20)
            try:
                await b.copy_to_device(bytes(1024), h)
                await b.synchronize(dev.device_id)
                ok = await b.copy_from_device(h, 0, 1024) == bytes(1024)
            finally:
                await b.deallocate(h)
            return ok
        except RuntimeError as e:
            log.warning("device %s failed verification: %s", dev.device_id, e)
            return False

    async def discover_all_devices(self) -> dict[str, Any]:
        try:
            if self._inventory is None:
                self._inventory = (_open_inventory(sim=self._sim) if self._sim is not None
                                   else _open_inventory())
            if self.backend is None:
                self.backend = await GPUBackendFactory.create_backend(inventory=self._inventory)
            b = self.backend
            devices = b.list_devices()
            verified = [d for d in devices if await self._verify(b, d)]
            driven = {d.inv.id: b.name for d in b._devs.values()  # noqa: SLF001
                      if d.inv is not None}
        except RuntimeError:
            raise
        except Exception as e:
            raise RuntimeError("GPU discovery failed: %s" % e) from e
        inv_devs = [inventory_device(d, driven.get(d.id)) for d in self._inventory.devices]
        result = {
            "devices": verified, "inventory_devices": inv_devs,
            "backend_name": type(b).__name__ + ":" + b.name,
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

    def load_registry(self) -> Optional[dict[str, Any]]:
        """The registry last written, None when there is none (or it is unreadable)."""
        try:
            return json.loads(self.registry_path.read_text())
        except (OSError, ValueError):
            return None

    def get_device_by_id(self, device_id: str) -> Optional[GPUDevice]:
        """A device of the last discovery (backend or inventory id), None if unknown."""
        if self._last is None:
            return None
        for g in self._last["devices"] + self._last["inventory_devices"]:
            if g.device_id == device_id:
                return g
        return None

    async def shutdown(self) -> None:
        if self.backend is not None:
            await self.backend.shutdown()
            self.backend = None
        if self._own_inventory and self._inventory is not None:
            self._inventory.close()
            self._inventory = None
