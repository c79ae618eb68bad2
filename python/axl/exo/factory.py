"""GPUBackendFactory: picks the exo backend by exo's platform priority from what axl
drives, with an override (exo's ``set_backend_override`` or ``$AXL_EXO_BACKEND``)."""

from __future__ import annotations

import logging
import os
import sys
from typing import Optional

from ..inventory import Inventory
from .backend import EXO_TO_AXL, AxlGPUBackend

__all__ = ["GPUBackendFactory"]

log = logging.getLogger("axl.exo")


class GPUBackendFactory:
    """exo's factory. On Linux the order is CUDA, ROCm, Vulkan, then the CPU, which
    always works. A runtime's emulated host device (lavapipe, PoCL) is a CPU in disguise:
    the automatic choice passes over it unless ``allow_emulated``; an override drives it."""

    PLATFORM_BACKEND_PRIORITY: dict[str, list[str]] = {
        "linux": ["cuda", "rocm", "vulkan"],
        "linux2": ["cuda", "rocm", "vulkan"],
        "win32": ["directml", "cuda", "rocm"],
        "darwin": ["metal"],
        "android": ["tensorflow_lite_gpu"],
        "ios": ["metal"],
    }
    _override_backend: Optional[str] = None

    @classmethod
    def set_backend_override(cls, backend_name: str) -> None:
        """Use this backend only (no fallback); RuntimeError for a name axl has no
        backend for."""
        if not isinstance(backend_name, str) or backend_name.lower() not in EXO_TO_AXL:
            raise RuntimeError("Unknown backend: %r" % (backend_name,))
        cls._override_backend = backend_name.lower()

    @classmethod
    def clear_backend_override(cls) -> None:
        cls._override_backend = None

    @classmethod
    def override(cls) -> Optional[str]:
        """The override in force: set_backend_override's, else $AXL_EXO_BACKEND."""
        return cls._override_backend or (os.environ.get("AXL_EXO_BACKEND") or None)

    @classmethod
    def priority(cls, platform: Optional[str] = None) -> list[str]:
        """The order tried on a platform (default: this one), the CPU last."""
        order = cls.PLATFORM_BACKEND_PRIORITY.get(platform or sys.platform, ["vulkan"])
        return [b for b in order if b in EXO_TO_AXL] + ["cpu"]

    @classmethod
    async def create_backend(cls, *, inventory: Inventory | None = None,
                             sim: str | os.PathLike[str] | None = None,
                             allow_emulated: bool = False) -> AxlGPUBackend:
        """An initialised backend: the override's (RuntimeError when it cannot start),
        else the first of the priority that drives a device, else the CPU."""
        name = cls.override()
        if name:
            b = AxlGPUBackend(name, inventory=inventory, sim=sim, allow_emulated=True)
            try:
                await b.initialize()
            except RuntimeError as e:
                raise RuntimeError("backend %r (override) is not available: %s" % (name, e)) from e
            return b
        for name in cls.priority():
            b = AxlGPUBackend(name, inventory=inventory, sim=sim,
                              allow_emulated=allow_emulated or name == "cpu")
            try:
                await b.initialize()
                return b
            except RuntimeError as e:
                log.info("exo backend %s not available: %s", name, e)
        raise RuntimeError("no backend could start, not even the CPU")  # pragma: no cover

    @classmethod
    async def detect_available_backends(cls, *, inventory: Inventory | None = None,
                                        sim: str | os.PathLike[str] | None = None,
                                        allow_emulated: bool = False) -> list[str]:
        """Every backend of the priority that starts with a device, the CPU last."""
        found = []
        for name in cls.priority():
            b = AxlGPUBackend(name, inventory=inventory, sim=sim,
                              allow_emulated=allow_emulated or name == "cpu")
            try:
                await b.initialize()
            except RuntimeError:
                continue
            found.append(name)
            await b.shutdown()
        return found
