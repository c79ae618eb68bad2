"""exo's CUDABackend (the fork's src/exo/gpu/backends/cuda_backend.py, which drives CUDA
through CuPy): here axl's backend on CUDA (libaxl's CUDA driver-API path, no CuPy), so
code importing ``exo.gpu.backends.cuda_backend.CUDABackend`` runs on axl. Besides exo's
interface it answers what the fork's own CUDA tests read of its class: ``_initialized``,
``_device_count`` and ``_memory_handles`` (the live allocations by handle id)."""

from __future__ import annotations

import os
from typing import Any

from ...inventory import Inventory
from ..backend import AxlGPUBackend

__all__ = ["CUDABackend"]


class CUDABackend(AxlGPUBackend):
    """NVIDIA GPUs through CUDA ("cuda:0", ...); RuntimeError from initialize() when CUDA
    drives no device here."""

    def __init__(self, *, inventory: Inventory | None = None,
                 sim: str | os.PathLike[str] | None = None) -> None:
        super().__init__("cuda", inventory=inventory, sim=sim, allow_emulated=False)

    @property
    def _device_count(self) -> int:
        return len(self.list_devices()) if self._initialized else 0

    @property
    def _memory_handles(self) -> dict[str, Any]:
        return self._handles
