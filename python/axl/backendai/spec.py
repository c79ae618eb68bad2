"""BEP-1000 facts of :mod:`axl.backendai`: the precision formats (``BEP_PRECISIONS``),
GiB/s conversion, and the memory spec, precision support and partitioning support of
a device's device-info document (schema/backendai-device-info.schema.json)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from .. import inventory as _inventory


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


def _memory_spec(dev: _inventory.Device, src: _inventory.Device) -> dict[str, Any]:
    mem = dev.raw.get("memory") or {}
    smem = src.raw.get("memory") or {}
    # A partition has its own total; per-unit caches, type and channels are its GPU's.
    return {
        "total_memory": mem.get("total_bytes"),
        "memory_type": smem.get("type"),
        "bandwidth": gbps_to_gibps(smem.get("bandwidth_gbps")) if dev is src else None,
        "l1_cache_per_core": smem.get("l1_cache_bytes_per_unit"),
        "l2_cache": smem.get("l2_cache_bytes") if dev is src else None,
        "shared_mem_per_core": smem.get("shared_memory_bytes_per_unit"),
        "memory_channels": smem.get("channels") if dev is src else None,
        "memory_stacks": smem.get("stacks") if dev is src else None,
        "bus_width_bits": smem.get("bus_width_bits") if dev is src else None,
    }


def _precisions(dev: _inventory.Device) -> list[dict[str, Any]]:
    out = []
    for p in dev.raw.get("precision", []):
        if p.get("support") in ("native", "emulated", "none") and isinstance(p.get("format"), str):
            row: dict[str, Any] = {"format": p["format"], "support": p["support"]}
            if p.get("peak_tflops") is not None:
                row["peak_tflops"] = p["peak_tflops"]
            out.append(row)
    return out


def _partitioning(dev: _inventory.Device) -> list[dict[str, Any]]:
    out = []
    for p in dev.raw.get("partitioning", []):
        if not isinstance(p.get("technology"), str):
            continue
        out.append({"technology": p["technology"], "max_partitions": p.get("max_partitions"),
                    "mode": p.get("mode"), "profiles": list(p.get("profiles", []))})
    return out
