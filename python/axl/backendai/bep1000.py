"""The BEP-1000 interface of :mod:`axl.backendai`, beside the v21 one.

lablup/backend.ai proposals/BEP-1000-redefining-accelerator-metadata.md (Draft) changes
``AbstractComputePlugin.get_metadata()`` to return a ``Sequence[AcceleratorMetadata]``,
one per resource slot, and renames or unifies v21 methods ("Translation of existing
APIs"). Its "Potential impacts" section suggests adding the new interface beside the
existing one rather than replacing it, and that is what this module does:

* every axl plugin class (``axl.backendai.CUDAPlugin``, ...) keeps the v21 interface the
  agent of today loads through ``backendai_accelerator_v21``: ``get_metadata()`` returns
  the one AcceleratorMetadata of the main slot, since the agent reads
  ``metadata["slot_name"]`` of it and stores it as one JSON object; and it also offers
  the BEP's translated methods (``get_resource_spec``, ``reconstruct_from_kernel``,
  ``write_into_kernel``, ``to_device_list``, ``query_workload_config``) and the BEP's
  device types (``memory_spec``, ``compute_units``, ``precision_support``,
  ``partitioning_support`` / ``partioning_support``);
* the classes of the same names here (``axl.backendai.bep1000.CUDAPlugin``, ...;
  ``BEP1000_PLUGINS`` by key) are those classes with the BEP's ``get_metadata()``: a
  list with one AcceleratorMetadata per slot type (a mixed MIG node: one for whole
  GPUs, one per MIG profile). Every other method is the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .kinds import PLUGINS
from .plugin import AxlComputePlugin
from .spec import (ComputePrecisionSupport, ComputePrecisionSupportLevel, ComputeUnit, MemorySpec,
                   PartitioningCapability, read_partitioning_support)


@dataclass
class AcceleratorWorkloadConfig:
    """What ``query_workload_config`` returns: each field the answer of the v21 method
    BEP-1000 unifies into it."""
    docker_args: Mapping[str, Any] = field(default_factory=dict)  # generate_docker_args
    mounts: list[Any] = field(default_factory=list)                # generate_mounts (MountInfo)
    hooks: list[Path] = field(default_factory=list)                # get_hooks
    networks: list[str] = field(default_factory=list)              # get_docker_networks
    additional_gids: list[int] = field(default_factory=list)       # get_additional_gids
    additional_allowed_syscalls: list[str] = field(default_factory=list)  # get_additional_allowed_syscalls


class BEP1000Interface:
    """Mixin: BEP-1000's ``get_metadata()``, a sequence with one AcceleratorMetadata
    per slot type (AxlComputePlugin.metadata_per_slot_type)."""

    def get_metadata(self) -> Sequence[dict[str, Any]]:  # type: ignore[override]
        return self.metadata_per_slot_type()  # type: ignore[attr-defined, no-any-return]


def _bep_class(cls: type[AxlComputePlugin]) -> type[AxlComputePlugin]:
    return type(cls.__name__, (BEP1000Interface, cls), {
        "__module__": __name__, "__qualname__": cls.__name__,
        "__doc__": "%s with BEP-1000's get_metadata() (a sequence, one per slot type)." % cls.__name__})


#: The BEP-1000 class of every plugin, by key.
BEP1000_PLUGINS: dict[str, type[AxlComputePlugin]] = {k: _bep_class(c) for k, c in PLUGINS.items()}
for _c in BEP1000_PLUGINS.values():
    globals()[_c.__name__] = _c
del _c

__all__ = ["AcceleratorWorkloadConfig", "BEP1000Interface", "BEP1000_PLUGINS",
           "ComputePrecisionSupport", "ComputePrecisionSupportLevel", "ComputeUnit", "MemorySpec",
           "PartitioningCapability", "read_partitioning_support"] + [c.__name__ for c in BEP1000_PLUGINS.values()]
