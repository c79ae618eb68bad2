"""Stand-in: AbstractComputeDevice, AbstractComputePlugin, ComputePluginContext,
known_slot_types, Mount and KernelResourceSpec's writer of ai.backend.agent.resources.

ComputePluginContext mirrors upstream's at the same commit: BasePluginContext (the
stand-in's ai.backend.common.plugin) over the group backendai_accelerator_v21, with the
intrinsic plugins ("cpu", "mem") sorted after the accelerators.

Mount mirrors upstream's attrs class at the same commit (type: MountTypes, source, target,
permission = READ_ONLY, opts): what the docker agent makes of each mount (get_runner_mount).

KernelResourceSpec.write_to_string mirrors lablup/backend.ai, src/ai/backend/agent/
resources.py at commit c0032c472e4b40e0eb012bdd1cd3f081854dd891: SCRATCH_SIZE (BinarySize,
"m"), MOUNTS, SLOTS (JSON), UNIFIED_DEVICES (JSON), then one <SLOT>_SHARES line a slot, each
amount written with BinarySize's "s" format when known_slot_types says the slot is
"bytes" ("MEM_SHARES=root:8g"), as a number otherwise."""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

import json
from dataclasses import dataclass, field
from decimal import Decimal

from pathlib import Path

from ai.backend.common.plugin import AbstractPlugin, BasePluginContext
from ai.backend.common.types import BinarySize, MountPermission, MountTypes

from .alloc_map import DeviceSlotInfo, DiscretePropertyAllocMap, FractionAllocMap  # noqa: F401  (re-export "for plugins")


@dataclass(slots=True)
class Mount:
    type: MountTypes
    source: Path | None
    target: Path
    permission: MountPermission = MountPermission.READ_ONLY
    opts: Mapping[str, Any] | None = None


class AbstractComputeDevice:
    def __init__(self, device_id: Any, hw_location: str, memory_size: int, processing_units: int,
                 numa_node: int | None = None, device_name: str | None = None) -> None:
        self.device_id = device_id
        self.hw_location = hw_location
        self.memory_size = memory_size
        self.processing_units = processing_units
        self.numa_node = numa_node
        self._device_name = device_name

    @property
    def device_name(self) -> str:
        return self._device_name or type(self).__name__.removesuffix("Device").lower()

    def __hash__(self) -> int:
        return hash("%s-%s" % (self.device_name, self.device_id))

    def __eq__(self, other: object) -> bool:
        return hash(self) == hash(other)


class AbstractComputePlugin(AbstractPlugin):
    key = "accelerator"

    @abstractmethod
    def get_metadata(self) -> Any: ...
    @abstractmethod
    async def list_devices(self) -> Any: ...
    @abstractmethod
    async def available_slots(self) -> Any: ...
    @abstractmethod
    def get_version(self) -> str: ...
    @abstractmethod
    async def extra_info(self) -> Any: ...
    @abstractmethod
    async def gather_node_measures(self, ctx: Any) -> Any: ...
    @abstractmethod
    async def gather_container_measures(self, ctx: Any, container_ids: Any) -> Any: ...
    @abstractmethod
    async def gather_process_measures(self, ctx: Any, pid_map: Any) -> Any: ...
    @abstractmethod
    async def create_alloc_map(self) -> Any: ...
    @abstractmethod
    async def get_hooks(self, distro: str, arch: str) -> Any: ...
    @abstractmethod
    async def generate_docker_args(self, docker: Any, device_alloc: Any) -> Any: ...

    async def generate_resource_data(self, device_alloc: Any) -> Any:
        return {}

    @abstractmethod
    async def restore_from_container(self, container: Any, alloc_map: Any) -> None: ...
    @abstractmethod
    async def get_attached_devices(self, device_alloc: Any) -> Any: ...

    async def get_node_hwinfo(self) -> Any:
        raise NotImplementedError

    @abstractmethod
    async def get_docker_networks(self, device_alloc: Any) -> list[str]: ...
    @abstractmethod
    async def generate_mounts(self, source_path: Any, device_alloc: Any) -> list[Any]: ...

    def get_additional_gids(self) -> list[int]:
        return []

    def get_additional_allowed_syscalls(self) -> list[str]:
        return []


# filled by the agent from every plugin's slot_types (docker/resources.py); the writer and
# reader look byte slots up here
known_slot_types: dict[str, str] = {}


@dataclass
class KernelResourceSpec:
    slots: Mapping[str, Any]
    allocations: Mapping[str, Mapping[str, Mapping[str, Decimal]]]
    scratch_disk_size: int
    mounts: list[Any] = field(default_factory=list)
    unified_devices: list[tuple[str, str]] = field(default_factory=list)

    def write_to_string(self) -> str:
        out = ""
        out += f"SCRATCH_SIZE={BinarySize(self.scratch_disk_size):m}\n"
        out += "MOUNTS=%s\n" % ",".join(map(str, self.mounts))
        out += "SLOTS=%s\n" % json.dumps({k: str(v) for k, v in self.slots.items()})
        out += "UNIFIED_DEVICES=%s\n" % json.dumps([(str(d), str(s)) for d, s in self.unified_devices])
        for device_name, slots in self.allocations.items():
            for slot_name, per_device_alloc in slots.items():
                if not (slot_name.startswith(f"{device_name}.") or slot_name == device_name):
                    raise ValueError(f"device_name ({device_name}) must be a prefix of slot_name ({slot_name})")
                pieces = []
                for dev_id, alloc in per_device_alloc.items():
                    if known_slot_types.get(slot_name, "count") == "bytes":
                        pieces.append(f"{dev_id}:{BinarySize(alloc):s}")
                    else:
                        pieces.append(f"{dev_id}:{alloc}")
                out += f"{slot_name.upper()}_SHARES={','.join(pieces)}\n"
        return out


class ComputePluginContext(BasePluginContext[AbstractComputePlugin]):
    plugin_group = "backendai_accelerator_v21"

    @classmethod
    def discover_plugins(cls, plugin_group: str, allowlist: set[str] | None = None,
                         blocklist: set[str] | None = None):
        found = list(super().discover_plugins(plugin_group, allowlist, blocklist))
        # the accelerators first, the intrinsic "cpu" and "mem" plugins after them
        yield from sorted(found, key=lambda item: item[0] in ("cpu", "mem"))

    def attach_intrinsic_device(self, plugin: AbstractComputePlugin) -> None:
        self.plugins[plugin.key] = plugin
