"""axl: discover, describe, watch, partition and drive AI accelerators (libaxl over ctypes).

    import axl
    with axl.open(sim="tests/sim/h100x2.json") as inv:
        for d in inv.devices:
            print(d.id, d.model, d.memory_total_bytes, d.source("memory.total_bytes"))
        s = axl.sample(inv)
        p = axl.plan("llama3.1-8b", inv)

See docs/python.md.
"""

from __future__ import annotations

from . import compute, runtime  # submodules usable after a plain `import axl`
from ._lib import SUPPORTED_MAJOR, LibraryNotFoundError, lib, library_path
from .control import (Limit, Partition, cleanup_partitions, clear_limit, create_partition,
                      destroy_partition, limit_env, limits, partitions, set_limit,
                      set_partition_mode)
from .errors import (AxlError, AxlTimeoutError, BusyError, ClosedError, DeviceLostError,
                     InvalidArgumentError, NoSpaceError, NotFoundError, NotSupportedError,
                     NotThisSystemError, OutOfMemoryError, OutOfRangeError, ParseError,
                     PermissionDeniedError, UnknownError)
from .inventory import (ComputeUnit, Device, Host, Inventory, Link, Memory, Nic, Partitioning, Precision, Warning,
                        backends, open)
from .metrics import DeviceSample, Process, Sample, Sampler, metric_names, metric_unit, sample
from .plan import ModelInfo, Plan, catalog, model_info, plan

__version__ = "0.1.0"


def version() -> str:
    """The version of the libaxl loaded ("0.1.0")."""
    return lib().axl_version().decode()


__all__ = [
    "AxlError", "AxlTimeoutError", "BusyError", "ClosedError", "ComputeUnit", "Device", "DeviceLostError",
    "DeviceSample", "Host", "Inventory", "InvalidArgumentError", "Limit", "LibraryNotFoundError",
    "Link", "Memory", "ModelInfo", "Nic", "NoSpaceError", "NotFoundError", "NotSupportedError",
    "NotThisSystemError", "OutOfMemoryError", "OutOfRangeError", "ParseError", "Partition", "Partitioning",
    "PermissionDeniedError", "Plan", "Precision", "Process", "Sample", "Sampler", "SUPPORTED_MAJOR",
    "UnknownError", "Warning", "backends", "catalog", "cleanup_partitions", "clear_limit",
    "compute", "create_partition", "destroy_partition", "library_path", "limit_env", "limits",
    "metric_names", "metric_unit", "model_info", "open", "partitions", "plan", "runtime", "sample",
    "set_limit", "set_partition_mode", "version",
]
