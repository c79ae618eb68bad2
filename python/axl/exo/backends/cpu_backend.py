"""exo's CPUBackend (the fork's src/exo/gpu/backends/cpu_backend.py): axl's backend on the
host CPU device, "cpu:0". The factory makes this class for "cpu", so code that tells the
CPU fallback by its class (the fork's tests skip GPU-only checks on a ``CPUBackend``)
sees it."""

from __future__ import annotations

import os

from ...inventory import Inventory
from ..backend import AxlGPUBackend

__all__ = ["CPUBackend"]


class CPUBackend(AxlGPUBackend):
    """The host CPU as exo's fallback device ("cpu:0", vendor "system")."""

    def __init__(self, *, inventory: Inventory | None = None,
                 sim: str | os.PathLike[str] | None = None, allow_emulated: bool = True) -> None:
        super().__init__("cpu", inventory=inventory, sim=sim, allow_emulated=allow_emulated)
