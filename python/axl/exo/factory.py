"""GPUBackendFactory: picks the exo backend by exo's platform priority from what axl
drives (and any backend added with register_backend), with an override (exo's
``set_backend_override`` or ``$AXL_EXO_BACKEND``); exo's module-level helpers."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Callable, Optional

from ..inventory import Inventory
from .backend import EXO_TO_AXL, AxlGPUBackend
from .backends.cpu_backend import CPUBackend
from .backends.cuda_backend import CUDABackend
from .interface import GPUBackend, GPUDevice

__all__ = ["GPUBackendFactory", "detect_available_backends", "get_gpu_backend_info"]

log = logging.getLogger("axl.exo")


class GPUBackendFactory:
    """exo's factory. On Linux the order is the design's: CUDA, ROCm, Vulkan, then the
    CPU, which always works (a ``CPUBackend``). A runtime's emulated device (Vulkan's
    lavapipe/llvmpipe, physical device type CPU) is software on the host CPU: it is not
    chosen ahead of the CPU backend unless asked for, by name (the override) or with
    ``allow_emulated=True``.

    Adding a backend (the design's "Adding a New Backend"): write a GPUBackend subclass,
    ``register_backend("mygpu", MyGPUBackend)`` (or override ``_create_specific_backend``
    in a subclass of the factory), and put the name in ``PLATFORM_BACKEND_PRIORITY``."""

    PLATFORM_BACKEND_PRIORITY: dict[str, list[str]] = {
        "linux": ["cuda", "rocm", "vulkan"],
        "linux2": ["cuda", "rocm", "vulkan"],
        "win32": ["directml", "cuda", "rocm"],
        "darwin": ["metal"],
        "android": ["tensorflow_lite_gpu"],
        "ios": ["metal"],
    }
    _override_backend: Optional[str] = None
    #: backends added with register_backend: name -> a callable making an uninitialised
    #: GPUBackend (a class, or a function of no argument)
    _registered: dict[str, Callable[[], GPUBackend]] = {}

    @classmethod
    def known(cls) -> list[str]:
        """Every backend name the factory can make: axl's and the registered ones."""
        return list(EXO_TO_AXL) + [n for n in cls._registered if n not in EXO_TO_AXL]

    @classmethod
    def register_backend(cls, name: str, make: Callable[[], GPUBackend]) -> None:
        """Add a backend: make() returns an uninitialised GPUBackend (the factory calls
        initialize(), whose RuntimeError means "not available here"). A registered name
        replaces axl's backend of that name."""
        if not isinstance(name, str) or not name.strip() or not callable(make):
            raise RuntimeError("register_backend needs a name and a callable")
        cls._registered[name.lower().strip()] = make

    @classmethod
    def unregister_backend(cls, name: str) -> None:
        cls._registered.pop(name.lower().strip(), None)

    @classmethod
    def set_backend_override(cls, backend_name: str) -> None:
        """Use this backend only (no fallback). Any name is taken, as the design's factory
        takes it (its own tests set "invalid_backend"); create_backend() then raises
        RuntimeError for a name it has no backend for. Not a string: RuntimeError now."""
        if not isinstance(backend_name, str):
            raise RuntimeError("Unknown backend: %r" % (backend_name,))
        cls._override_backend = backend_name.lower().strip()

    @classmethod
    def clear_backend_override(cls) -> None:
        cls._override_backend = None

    @classmethod
    def override(cls) -> Optional[str]:
        """The override in force: set_backend_override's, else $AXL_EXO_BACKEND."""
        return cls._override_backend or (os.environ.get("AXL_EXO_BACKEND") or None)

    @classmethod
    def priority(cls, platform: Optional[str] = None) -> list[str]:
        """The order tried on a platform (default: this one), the CPU last; names the
        factory cannot make (metal, directml here) are left out."""
        order = cls.PLATFORM_BACKEND_PRIORITY.get(platform or sys.platform, ["vulkan"])
        known = cls.known()
        return [b for b in order if b in known and b != "cpu"] + ["cpu"]

    @classmethod
    async def _create_specific_backend(cls, backend_name: str, *,
                                       inventory: Inventory | None = None,
                                       sim: str | os.PathLike[str] | None = None,
                                       allow_emulated: bool = True) -> GPUBackend:
        """An initialised backend of that name; RuntimeError when it is unknown or does
        not start (nothing is left open then)."""
        name = backend_name.lower().strip() if isinstance(backend_name, str) else ""
        make = cls._registered.get(name)
        if make is not None:
            b = make()
        elif name == "cpu":
            b = CPUBackend(inventory=inventory, sim=sim)
        elif name == "cuda":
            b = CUDABackend(inventory=inventory, sim=sim)
        elif name in EXO_TO_AXL:
            b = AxlGPUBackend(name, inventory=inventory, sim=sim, allow_emulated=allow_emulated)
        else:
            raise RuntimeError("Unknown backend: %r" % (backend_name,))
        try:
            await b.initialize()
        except BaseException:
            try:
                await b.shutdown()
            except Exception:  # pragma: no cover - a failed start has little to free
                pass
            raise
        return b

    @classmethod
    async def create_backend(cls, *, inventory: Inventory | None = None,
                             sim: str | os.PathLike[str] | None = None,
                             allow_emulated: bool = False) -> GPUBackend:
        """An initialised backend: the override's (RuntimeError when it cannot start; an
        emulated device counts there: it was asked for by name), else the first of the
        priority that drives a device that is not emulated (any, with
        allow_emulated=True), else the CPU."""
        name = cls.override()
        if name:
            try:
                return await cls._create_specific_backend(name, inventory=inventory, sim=sim)
            except RuntimeError as e:
                raise RuntimeError("backend %r (override) is not available: %s" % (name, e)) from e
        for name in cls.priority():
            try:
                return await cls._create_specific_backend(
                    name, inventory=inventory, sim=sim,
                    allow_emulated=allow_emulated or name == "cpu")
            except RuntimeError as e:
                log.info("exo backend %s not available: %s", name, e)
        raise RuntimeError("no backend could start, not even the CPU")  # pragma: no cover

    @classmethod
    async def detect_available_backends(cls, *, inventory: Inventory | None = None,
                                        sim: str | os.PathLike[str] | None = None,
                                        allow_emulated: bool = True) -> list[str]:
        """Every backend of the priority that starts with a device, the CPU last."""
        found = []
        for name in cls.priority():
            try:
                b = await cls._create_specific_backend(
                    name, inventory=inventory, sim=sim,
                    allow_emulated=allow_emulated or name == "cpu")
            except RuntimeError:
                continue
            found.append(name)
            await b.shutdown()
        return found


# ===== exo's helper functions (the fork's factory.py) =====

async def detect_available_backends(**kwargs: Any) -> list[str]:
    """The backends that start here, the CPU last (GPUBackendFactory's; kwargs:
    inventory, sim, allow_emulated)."""
    return await GPUBackendFactory.detect_available_backends(**kwargs)


async def get_gpu_backend_info(**kwargs: Any) -> dict[str, list[GPUDevice]]:
    """{backend name: its devices} of the backend create_backend() picks (kwargs as
    create_backend's); {"cpu": []} when none starts."""
    try:
        b = await GPUBackendFactory.create_backend(**kwargs)
    except RuntimeError as e:
        log.error("failed to get backend info: %s", e)
        return {"cpu": []}
    try:
        devs = b.list_devices()
        return {(devs[0].backend if devs else "cpu"): devs}
    finally:
        await b.shutdown()
