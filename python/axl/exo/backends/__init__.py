"""exo's ``exo.gpu.backends`` package over axl: the fork's module paths (HautlyS/exo
src/exo/gpu/backends/<name>_backend.py) with its class names, each axl's backend of that
runtime (docs/exo.md). Code written against the fork imports them where it expects them."""

from .cpu_backend import CPUBackend
from .cuda_backend import CUDABackend

__all__ = ["CPUBackend", "CUDABackend"]
