"""The device of :mod:`axl.backendai`'s plugins, :class:`AxlComputeDevice`: an
accelerator or partition as the agent sees it, with its BEP-1000 device-info document."""

from __future__ import annotations

from typing import Any

from .. import inventory as _inventory
from ..runtime import Runtime
from ._agent import _DeviceBase
from .spec import BEP_PRECISIONS, _memory_spec, _partitioning, _precisions


class AxlComputeDevice(_DeviceBase):
    """An accelerator (or an existing MIG device / partition) as the agent sees it, with
    the BEP-1000 facts: memory_spec, compute_units, precision_support,
    partitioning_support. ``axl_device`` is the axl Device it came from."""

    def __init__(self, *, device_id: str, hw_location: str, memory_size: int | None,
                 processing_units: int | None, numa_node: int | None, device_name: str,
                 model_name: str | None, uuid: str | None, axl_device: _inventory.Device,
                 parent: _inventory.Device | None = None, runtime: Runtime | None = None) -> None:
        super().__init__(device_id=device_id, hw_location=hw_location,
                         memory_size=memory_size,  # type: ignore[arg-type]
                         processing_units=processing_units,  # type: ignore[arg-type]
                         numa_node=numa_node, device_name=device_name)
        self.model_name = model_name
        self.uuid = uuid
        self.axl_device = axl_device
        self.parent = parent
        self.runtime = runtime
        part = axl_device.raw.get("partition") or {}
        self.partition_profile: str | None = part.get("profile") if parent is not None else None
        self.partition_technology: str | None = None
        if parent is not None:
            techs = [p.get("technology") for p in parent.raw.get("partitioning", [])
                     if p.get("mode") == "enabled"]
            self.partition_technology = techs[0] if techs else (runtime.partitions if runtime else None)
        src = parent if parent is not None else axl_device
        self.memory_spec = _memory_spec(axl_device, src)
        self.compute_units = [{"name": c["name"], "count": c["count"]}
                              for c in axl_device.raw.get("compute_units", [])
                              if isinstance(c.get("count"), int)]
        self.precision_support = _precisions(src)
        self.partitioning_support: list[dict[str, Any]] = _partitioning(axl_device)

    @property
    def is_partition(self) -> bool:
        return self.parent is not None

    def device_info(self) -> dict[str, Any]:
        """The BEP-1000 device-info document (schema/backendai-device-info.schema.json)."""
        known = {p["format"] for p in self.precision_support}
        return {
            "device_id": str(self.device_id), "device_name": self.device_name,
            "hw_location": self.hw_location, "numa_node": self.numa_node,
            "model_name": self.model_name, "uuid": self.uuid,
            "axl_id": self.axl_device.id,
            "memory_size": self.memory_size, "processing_units": self.processing_units,
            "memory_spec": dict(self.memory_spec),
            "compute_units": list(self.compute_units),
            "precision_support": list(self.precision_support),
            "precision_unknown": [f for f in BEP_PRECISIONS if f not in known],
            "partitioning_support": list(self.partitioning_support),
            "partition": ({"technology": self.partition_technology,
                           "profile": self.partition_profile,
                           "parent_uuid": self.parent.uuid if self.parent else None}
                          if self.is_partition else None),
        }
