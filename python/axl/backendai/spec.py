"""BEP-1000 facts of :mod:`axl.backendai`: the precision formats (``BEP_PRECISIONS``),
GiB/s conversion, the BEP's device types (``ComputePrecisionSupportLevel``,
``ComputePrecisionSupport``, ``ComputeUnit``, ``MemorySpec``, ``PartitioningCapability``,
named and typed as lablup/backend.ai proposals/BEP-1000-redefining-accelerator-metadata.md
"Proposed structure" declares them, with axl's extra fields after the BEP's, defaulted),
and the memory spec, precision support and partitioning support of a device, as those
types and in its device-info document (schema/backendai-device-info.schema.json).

Unknown is not zero: a fact axl does not have is None, even where the BEP types the field
as int or str (``total_memory``, ``memory_type``, ``max_partitions``)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from decimal import Decimal, InvalidOperation
from typing import Any, Optional

from .. import inventory as _inventory
from .errors import BackendAIPluginError


#: The BEP-1000 precision formats, widest first.
BEP_PRECISIONS = ("FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "FP6", "FP4", "INT8", "INT4")
_GIB = Decimal(1 << 30)


def _dec_or_none(v: Any) -> Decimal | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return Decimal(str(v))
    except InvalidOperation:
        return None


def gbps_to_gibps(gbps: float | int | None) -> float | None:
    """axl's bandwidth (10^9 B/s) in GiB/s (2^30 B/s) as BEP-1000 specifies; None stays None."""
    if gbps is None:
        return None
    return round(float(gbps) * 1e9 / (1 << 30), 3)


class ComputePrecisionSupportLevel(str, enum.Enum):
    """BEP-1000's ``enum.StrEnum`` with ``enum.auto()`` values (the lower-cased names);
    a ``str`` subclass, so a level compares equal to "native" / "emulated" / "none"."""
    NATIVE = "native"
    EMULATED = "emulated"
    NONE = "none"

    def __str__(self) -> str:
        return self.value


@dataclass
class ComputePrecisionSupport:
    """BEP-1000: one number format and how the device supports it. ``peak_tflops``
    (axl's, dense TFLOPS or TOPS) is axl's addition."""
    format: str  # "FP64" "FP32" "TF32" "BF16" "FP16" "FP8" "FP6" "FP4" "INT8" "INT4"
    support: ComputePrecisionSupportLevel
    peak_tflops: Optional[float] = None


@dataclass
class ComputeUnit:
    """BEP-1000: a kind of compute unit ("SM", "Tensor Core", "CU", "Xe-core", ...) and
    how many the device has."""
    name: str
    count: int


@dataclass
class MemorySpec:
    """BEP-1000: the device's memory; bandwidth in GiB/s. ``memory_stacks`` and
    ``bus_width_bits`` are axl's additions."""
    total_memory: Optional[int]
    memory_type: Optional[str]
    bandwidth: Optional[float] = None
    l1_cache_per_core: Optional[int] = None
    l2_cache: Optional[int] = None
    shared_mem_per_core: Optional[int] = None
    memory_channels: Optional[int] = None
    memory_stacks: Optional[int] = None
    bus_width_bits: Optional[int] = None


@dataclass
class PartitioningCapability:
    """BEP-1000: a partitioning technology ("MIG", "fGPU", an AMD compute partition
    mode) and how many partitions it makes (None: not known). ``mode`` (enabled or
    disabled now) and ``profiles`` are axl's additions."""
    max_partitions: Optional[int] = 1
    technology: Optional[str] = None
    mode: Optional[str] = None
    profiles: list[str] = field(default_factory=list)


def memory_spec_doc(m: MemorySpec) -> dict[str, Any]:
    return asdict(m)


def precision_doc(p: ComputePrecisionSupport) -> dict[str, Any]:
    row: dict[str, Any] = {"format": p.format, "support": str(p.support)}
    if p.peak_tflops is not None:
        row["peak_tflops"] = p.peak_tflops
    return row


def partitioning_doc(p: PartitioningCapability) -> dict[str, Any]:
    return {"technology": p.technology, "max_partitions": p.max_partitions,
            "mode": p.mode, "profiles": list(p.profiles)}


def _capability(row: Any) -> PartitioningCapability:
    if isinstance(row, PartitioningCapability):
        return row
    if not isinstance(row, Mapping) or not isinstance(row.get("technology"), str):
        raise BackendAIPluginError("a partitioning row needs a technology: %r" % (row,))
    mp = row.get("max_partitions")
    if mp is not None and (isinstance(mp, bool) or not isinstance(mp, int) or mp < 1):
        raise BackendAIPluginError("max_partitions must be a positive integer or null, not %r" % (mp,))
    return PartitioningCapability(max_partitions=mp, technology=row["technology"],
                                  mode=row.get("mode"), profiles=[str(x) for x in row.get("profiles", [])])


def read_partitioning_support(doc: Any) -> list[PartitioningCapability]:
    """The partitioning support of a device-info document or a device object, under
    the corrected key ``partitioning_support`` or BEP-1000's own spelling
    ``partioning_support`` (its AbstractComputeDevice has that name). Both present must
    agree; neither is an empty list. BackendAIPluginError for a malformed row."""
    def get(name: str) -> Any:
        if isinstance(doc, Mapping):
            return doc.get(name)
        return getattr(doc, name, None)
    right, bep = get("partitioning_support"), get("partioning_support")
    rows = [[_capability(r) for r in v] if v is not None else None for v in (right, bep)]
    if rows[0] is not None and rows[1] is not None and rows[0] != rows[1]:
        raise BackendAIPluginError("partitioning_support and partioning_support disagree")
    return rows[0] if rows[0] is not None else (rows[1] or [])


def memory_spec_of(dev: _inventory.Device, src: _inventory.Device) -> MemorySpec:
    """A device's MemorySpec from axl's ``memory.*``; a partition (dev is not src) has
    its own total, and its GPU's type and per-unit caches; chip-wide figures are None."""
    mem = dev.raw.get("memory") or {}
    smem = src.raw.get("memory") or {}
    whole = dev is src
    return MemorySpec(
        total_memory=mem.get("total_bytes"),
        memory_type=smem.get("type"),
        bandwidth=gbps_to_gibps(smem.get("bandwidth_gbps")) if whole else None,
        l1_cache_per_core=smem.get("l1_cache_bytes_per_unit"),
        l2_cache=smem.get("l2_cache_bytes") if whole else None,
        shared_mem_per_core=smem.get("shared_memory_bytes_per_unit"),
        memory_channels=smem.get("channels") if whole else None,
        memory_stacks=smem.get("stacks") if whole else None,
        bus_width_bits=smem.get("bus_width_bits") if whole else None,
    )


def precisions_of(dev: _inventory.Device) -> list[ComputePrecisionSupport]:
    """axl's precision rows: native, emulated (a vendor documents the format as
    supported through emulation) or none."""
    out = []
    for p in dev.raw.get("precision", []):
        if p.get("support") in ("native", "emulated", "none") and isinstance(p.get("format"), str):
            out.append(ComputePrecisionSupport(p["format"], ComputePrecisionSupportLevel(p["support"]),
                                               p.get("peak_tflops")))
    return out


def compute_units_of(dev: _inventory.Device) -> list[ComputeUnit]:
    return [ComputeUnit(c["name"], c["count"]) for c in dev.raw.get("compute_units", [])
            if isinstance(c.get("count"), int) and isinstance(c.get("name"), str)]


def partitioning_of(dev: _inventory.Device) -> list[PartitioningCapability]:
    return [PartitioningCapability(max_partitions=p.get("max_partitions"), technology=p["technology"],
                                   mode=p.get("mode"), profiles=list(p.get("profiles", [])))
            for p in dev.raw.get("partitioning", []) if isinstance(p.get("technology"), str)]


def bep_fields(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]
