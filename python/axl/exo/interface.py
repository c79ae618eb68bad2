"""The exo GPU backend interface (exo's ``exo.gpu.backend``): MemoryHandle, GPUDevice and
the GPUBackend ABC, with the names, fields, field order and method signatures exo gives.

When exo itself is importable (``exo.gpu.backend``), its own classes are used, so that an
axl backend *is* an exo backend; otherwise this module's definitions stand in for them.
exo's MemoryHandle is a frozen pydantic model; here (pydantic is not a dependency of
axl) it is a frozen dataclass with the same fields, defaults and keyword construction.

Every GPUDevice field holds a value of its declared type. A fact axl does not know is
UNKNOWN_STR / UNKNOWN_INT / UNKNOWN_FLOAT ("unknown", -1, -1.0), never a made-up number
(exo's own backends fill in guesses such as 4 GiB or 1 GHz) and never None or 0, with one
exception that is the fork's own: a clock rate not known is CLOCK_UNKNOWN_MHZ, 0, as the
fork's CPU, Vulkan and Metal backends write it and its tests (clock_rate_mhz >= 0) read it.
"""

from __future__ import annotations

import abc
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional
from uuid import uuid4

__all__ = ["MemoryHandle", "GPUDevice", "GPUBackend", "EXO_INTERFACE", "AxlGPUDevice",
           "UNKNOWN_STR", "UNKNOWN_INT", "UNKNOWN_FLOAT", "CLOCK_UNKNOWN_MHZ", "SOFTWARE_VENDOR"]

try:  # exo's own interface, when exo is installed
    from exo.gpu.backend import GPUBackend as _ExoGPUBackend  # type: ignore[import-not-found]
    from exo.gpu.backend import GPUDevice as _ExoGPUDevice  # type: ignore[import-not-found]
    from exo.gpu.backend import MemoryHandle as _ExoMemoryHandle  # type: ignore[import-not-found]
except Exception:  # ImportError, or an exo without the gpu package
    _ExoGPUBackend = _ExoGPUDevice = _ExoMemoryHandle = None

#: "exo" when exo's own classes are in use, "axl" for this module's stand-ins.
EXO_INTERFACE: str = "exo" if _ExoGPUBackend is not None else "axl"


def _now() -> datetime:
    return datetime.now(tz=timezone.utc)


if _ExoMemoryHandle is not None:
    MemoryHandle = _ExoMemoryHandle
    GPUDevice = _ExoGPUDevice
    GPUBackend = _ExoGPUBackend
else:

    @dataclass(frozen=True)
    class MemoryHandle:  # type: ignore[no-redef]
        """Opaque handle of allocated device memory: no pointer, only an id; the backend
        that made it maps the id to its buffer."""

        device_id: str
        size_bytes: int
        handle_id: str = field(default_factory=lambda: str(uuid4()))
        allocated_at: datetime = field(default_factory=_now)

        def model_dump(self, mode: str = "python") -> dict[str, Any]:
            """exo's handle is a pydantic model: its fields as model_dump() gives them
            (mode="json": the time as pydantic writes it, ISO 8601, UTC as "Z")."""
            at: Any = self.allocated_at
            if mode == "json":
                at = at.isoformat().replace("+00:00", "Z")
            return {"handle_id": self.handle_id, "device_id": self.device_id,
                    "size_bytes": self.size_bytes, "allocated_at": at}

        def model_dump_json(self) -> str:
            """As pydantic's model_dump_json(): compact JSON of model_dump(mode="json")."""
            return json.dumps(self.model_dump(mode="json"), separators=(",", ":"))

    # exo declares handle_id first; a dataclass cannot put defaulted fields before the
    # required ones, so the field order is restored for introspection (fields(), repr)
    # while construction stays by keyword, as exo's pydantic model requires anyway.
    _mh_fields = MemoryHandle.__dataclass_fields__  # type: ignore[attr-defined]
    MemoryHandle.__dataclass_fields__ = {  # type: ignore[attr-defined]
        k: _mh_fields[k] for k in ("handle_id", "device_id", "size_bytes", "allocated_at")}

    @dataclass(frozen=True)
    class GPUDevice:  # type: ignore[no-redef]
        """A device a backend drives. Fields in exo's order and of exo's types."""

        device_id: str
        name: str
        vendor: str
        backend: str
        compute_capability: str
        memory_bytes: int
        memory_available: int
        compute_units: int
        tensor_core_count: int
        max_threads_per_block: int
        clock_rate_mhz: int
        bandwidth_gbps: float
        support_level: str
        driver_version: str
        backend_name: str

    class GPUBackend(abc.ABC):  # type: ignore[no-redef]
        """Asynchronous GPU backend. Failing operations raise RuntimeError; telemetry
        getters return None when the value is not available."""

        @abc.abstractmethod
        async def initialize(self) -> None:
            """Detect devices and set up; RuntimeError when that fails (no devices)."""

        @abc.abstractmethod
        async def shutdown(self) -> None:
            """Release everything."""

        @abc.abstractmethod
        def list_devices(self) -> list[GPUDevice]:
            """The devices (empty when none)."""

        @abc.abstractmethod
        def get_device(self, device_id: str) -> Optional[GPUDevice]:
            """The device of that id, None when there is none."""

        @abc.abstractmethod
        async def allocate(self, device_id: str, size_bytes: int) -> MemoryHandle:
            """Allocate device memory; RuntimeError on OOM or an invalid device."""

        @abc.abstractmethod
        async def deallocate(self, handle: MemoryHandle) -> None:
            """Free device memory; RuntimeError when it cannot be."""

        @abc.abstractmethod
        async def copy_to_device(self, src: bytes, dst_handle: MemoryHandle,
                                 offset_bytes: int = 0) -> None:
            """Copy host bytes into device memory at offset_bytes."""

        @abc.abstractmethod
        async def copy_from_device(self, src_handle: MemoryHandle, offset_bytes: int,
                                   size_bytes: int) -> bytes:
            """Copy size_bytes at offset_bytes of device memory to the host."""

        @abc.abstractmethod
        async def copy_device_to_device(self, src_handle: MemoryHandle,
                                        dst_handle: MemoryHandle, size_bytes: int) -> None:
            """Copy between two allocations (of one device or two)."""

        @abc.abstractmethod
        async def synchronize(self, device_id: str) -> None:
            """Wait for every pending operation on the device."""

        @abc.abstractmethod
        async def get_device_memory_info(self, device_id: str) -> dict[str, int]:
            """total_bytes, used_bytes, available_bytes, reserved_bytes."""

        @abc.abstractmethod
        async def get_device_temperature(self, device_id: str) -> Optional[float]:
            """Degrees Celsius, None when unavailable."""

        @abc.abstractmethod
        async def get_device_power_usage(self, device_id: str) -> Optional[float]:
            """Watts, None when unavailable."""

        @abc.abstractmethod
        async def get_device_clock_rate(self, device_id: str) -> Optional[int]:
            """MHz, None when unavailable."""


#: What a GPUDevice field carries when the fact is not known: a value of the field's own
#: type that no real device has (unknown is not zero). docs/exo.md says, per field,
#: where each value comes from.
UNKNOWN_STR: str = "unknown"
UNKNOWN_INT: int = -1
UNKNOWN_FLOAT: float = -1.0
#: clock_rate_mhz not known: 0, the fork's own value for it (HautlyS/exo 1c6dd01: its
#: cpu_backend.py, vulkan_backend.py and metal_backend.py write clock_rate_mhz=0 where they
#: have no clock; its tests ask clock_rate_mhz >= 0). No device runs at 0 MHz, so 0 is as
#: unambiguous as -1; a product (the fork's compute_units x clock peak estimate) is 0, not
#: a negative figure.
CLOCK_UNKNOWN_MHZ: int = 0
#: the vendor of a device that is software on the host CPU (the cpu backend, a runtime's
#: emulated device: lavapipe/llvmpipe, PoCL): "system", the vendor the fork's CPUBackend
#: gives its host device. The hardware vendors are the GPU makers' names ("nvidia", "amd",
#: "intel", ...); a rasterizer running on an AMD CPU is not an AMD device.
SOFTWARE_VENDOR: str = "system"


@dataclass(frozen=True)
class AxlGPUDevice(GPUDevice):  # type: ignore[misc,valid-type]
    """exo's GPUDevice (every field of its type, unknown as UNKNOWN_*) with what axl adds
    after exo's fields: ``inventory_id`` (axl's id of the accelerator, "" for the host
    CPU or a runtime's emulated device), ``host_memory`` (the device's memory is the
    host's RAM: the cpu backend, PoCL, lavapipe) and the dense peaks of axl's inventory
    in FLOPS (OPS/s for int8): ``peak_flops_fp32``, ``peak_flops_fp16``,
    ``peak_flops_int8`` (UNKNOWN_FLOAT when the inventory has no figure)."""

    inventory_id: str = ""
    host_memory: bool = False
    peak_flops_fp32: float = UNKNOWN_FLOAT
    peak_flops_fp16: float = UNKNOWN_FLOAT
    peak_flops_int8: float = UNKNOWN_FLOAT
