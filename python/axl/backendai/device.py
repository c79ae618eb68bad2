"""The device of :mod:`axl.backendai`'s plugins, :class:`AxlComputeDevice`: an
accelerator or partition as the agent sees it, with its BEP-1000 device-info document."""

from __future__ import annotations

from typing import Any

from .. import inventory as _inventory
from ..runtime import Runtime
from ._agent import _DeviceBase
from .spec import (BEP_PRECISIONS, ComputePrecisionSupport, ComputeUnit, MemorySpec,
                   PartitioningCapability, compute_units_of, memory_spec_doc, memory_spec_of,
                   partitioning_doc, partitioning_of, precision_doc, precisions_of)


class AxlComputeDevice(_DeviceBase):
    """An accelerator (or an existing MIG device / partition) as the agent sees it, with
    the BEP-1000 facts typed as the BEP types them: ``memory_spec`` (MemorySpec),
    ``compute_units`` (ComputeUnit), ``precision_support`` (ComputePrecisionSupport) and
    ``partitioning_support`` (PartitioningCapability), also under the BEP's own spelling
    ``partioning_support`` (the same list). ``axl_device`` is the axl Device it came from."""

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
        self.memory_spec: MemorySpec = memory_spec_of(axl_device, src)
        self.compute_units: list[ComputeUnit] = compute_units_of(axl_device)
        self.precision_support: list[ComputePrecisionSupport] = precisions_of(src)
        self.partitioning_support: list[PartitioningCapability] = partitioning_of(axl_device)

    @property
    def partioning_support(self) -> list[PartitioningCapability]:
        """BEP-1000's spelling of ``partitioning_support`` (its AbstractComputeDevice
        declares ``partioning_support``): the same list."""
        return self.partitioning_support

    @partioning_support.setter
    def partioning_support(self, value: list[PartitioningCapability]) -> None:
        self.partitioning_support = value

    @property
    def is_partition(self) -> bool:
        return self.parent is not None

    def device_info(self) -> dict[str, Any]:
        """The BEP-1000 device-info document (schema/backendai-device-info.schema.json):
        partitioning support under both ``partitioning_support`` and the BEP's
        ``partioning_support``."""
        known = {p.format for p in self.precision_support}
        parts = [partitioning_doc(p) for p in self.partitioning_support]
        return {
            "device_id": str(self.device_id), "device_name": self.device_name,
            "hw_location": self.hw_location, "numa_node": self.numa_node,
            "model_name": self.model_name, "uuid": self.uuid,
            "axl_id": self.axl_device.id,
            "memory_size": self.memory_size, "processing_units": self.processing_units,
            "memory_spec": memory_spec_doc(self.memory_spec),
            "compute_units": [{"name": c.name, "count": c.count} for c in self.compute_units],
            "precision_support": [precision_doc(p) for p in self.precision_support],
            "precision_unknown": [f for f in BEP_PRECISIONS if f not in known],
            "partitioning_support": parts,
            # BEP-1000's own spelling, for a reader that follows the BEP to the letter
            "partioning_support": [dict(p) for p in parts],
            "partition": ({"technology": self.partition_technology,
                           "profile": self.partition_profile,
                           "parent_uuid": self.parent.uuid if self.parent else None}
                          if self.is_partition else None),
        }
