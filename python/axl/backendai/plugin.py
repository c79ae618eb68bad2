"""The generic compute plugin of :mod:`axl.backendai`, :class:`AxlComputePlugin`: slots,
lifecycle, devices, the BEP-1000 resource spec, allocations, container set-up (docker
args, mounts, resource.txt data) and measurements, for the devices of one kind."""

from __future__ import annotations

import fnmatch
import grp
import os
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .. import inventory as _inventory
from .._lib import LibraryNotFoundError
from ..metrics import Sample, Sampler
from ..runtime import Runtime, cdi_kind, device_runtime
from . import _agent
from ._agent import (ContainerMeasurement, DeviceSlotInfo, DiscretePropertyAllocMap,
                     FractionAllocMap, Measurement, MetricTypes, MountInfo, MountTypes,
                     NodeMeasurement, ProcessMeasurement, SlotName, SlotTypes, _PluginBase)
from .device import AxlComputeDevice
from .errors import BackendAIPluginError
from .resource_txt import _config_dir_of, read_resource_txt
from .spec import PartitioningCapability, _dec_or_none


# upstream's mock plugin: the fewest processing units a share is given
_MIN_SMP_COUNT = 4
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")


def _config_bool(config: Mapping[str, Any], key: str, default: bool) -> bool:
    """A boolean of the plugin's configuration: the agent's etcd hands every value over as
    a string ("false" must be false), a TOML file as a bool. BackendAIPluginError for
    anything else."""
    v = config.get(key, default)
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in _TRUE + _FALSE:
        return v.strip().lower() in _TRUE
    raise BackendAIPluginError("%s must be true or false, not %r" % (key, v))


def _own_slots_only(amap: Any, slot_name: Any, pairs: Any) -> list[Any]:
    """What get_current_allocations returned, less the devices of other slots; and those
    devices taken out of allocations[slot_name] again. The agent's map keeps allocations as
    a defaultdict of defaultdicts, and its get_current_allocations, given an affinity
    hint, reads allocations[slot][device] for every device of the plugin (lablup/backend.ai
    c0032c47, alloc_map.py): that inserts whole GPUs under a MIG slot, and the EVENLY
    strategy then books one there."""
    own = {d for d, info in amap.device_slots.items() if str(info.slot_name) == str(slot_name)}
    per = amap.allocations.get(slot_name) if hasattr(amap.allocations, "get") else None
    if per is not None:
        for d in [d for d in per if d not in own]:
            if not per[d]:
                del per[d]
    return [pair for pair in pairs if pair[0] in own]


class _DiscreteMap(DiscretePropertyAllocMap):  # type: ignore[misc, valid-type]
    """The agent's DiscretePropertyAllocMap, each device under its own slot only."""

    def get_current_allocations(self, affinity_hint: Any, slot_name: Any) -> Any:
        return _own_slots_only(self, slot_name, super().get_current_allocations(affinity_hint, slot_name))


class _FractionMap(FractionAllocMap):  # type: ignore[misc, valid-type]
    """The agent's FractionAllocMap, each device under its own slot only."""

    def get_current_allocations(self, affinity_hint: Any, slot_name: Any) -> Any:
        return _own_slots_only(self, slot_name, super().get_current_allocations(affinity_hint, slot_name))


def _safe_id(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "-", s)


def _cdi_name(s: str) -> str:
    """A CDI device name as `axl cdi` writes it: letters, digits, _ - . : kept."""
    return re.sub(r"[^A-Za-z0-9_.:-]", "-", s)


class AxlComputePlugin(_PluginBase):
    """The generic compute plugin: the devices of ``id_prefixes`` (axl's id prefixes,
    "nvidia" of "nvidia:0") of the node axl sees.

    plugin_config keys (all optional): ``sim`` / ``sysroot`` (another node, for tests
    and demos), ``state_dir`` (AXL_STATE_DIR: partitions and limits), ``device_mask``
    (comma-separated UUIDs or axl ids left out), ``allocation_mode`` ("discrete" or
    "fractional"), ``quantum_size`` (default "0.1"), ``unit_mem`` (bytes, default 2 GiB),
    ``unit_proc`` (default 8), ``device_injector`` ("auto", "nvidia", "cdi", "devices"),
    ``hooks`` (paths of LD_PRELOAD libraries), ``mount_libraries`` (bind the vendor's
    user-space libraries in "devices" mode).
    """

    key: str = "accelerator"
    id_prefixes: tuple[str, ...] = ()
    families: tuple[str, ...] | None = None
    #: only devices whose device-database key is one of these (None: any); and never
    #: those of exclude_db_keys (the models another plugin class takes, as upstream has a
    #: plugin a model: gaudi2, gaudi3, tt-n300)
    db_keys: tuple[str, ...] | None = None
    exclude_db_keys: tuple[str, ...] = ()
    human_readable_name: str = "Accelerator"
    display_unit: str = "Device"
    display_icon: str = "npu1"
    default_groups: tuple[str, ...] = ()
    config_watch_enabled = False

    def __init__(self, plugin_config: Mapping[str, Any], local_config: Mapping[str, Any]) -> None:
        if _agent.AGENT_BROKEN:
            # made on stand-ins, the plugin would not be the agent's AbstractComputePlugin
            # and the agent would skip it without a word: refuse, saying why
            raise BackendAIPluginError(
                "the Backend.AI agent is installed but does not import (%s): axl's %s plugin "
                "is not made on stand-ins" % (_agent.AGENT_IMPORT_ERROR, type(self).__name__))
        super().__init__(plugin_config, local_config)
        self.plugin_config = dict(plugin_config or {})
        self.local_config = local_config
        self.enabled = False
        self.disabled_reason: str | None = None
        self.inventory: _inventory.Inventory | None = None
        self.devices: list[AxlComputeDevice] = []
        self.mig_parents: list[AxlComputeDevice] = []
        self._by_id: dict[str, AxlComputeDevice] = {}
        self._sampler: Sampler | None = None
        mode = self.plugin_config.get("allocation_mode", "discrete")
        if mode not in ("discrete", "fractional"):
            raise BackendAIPluginError("allocation_mode must be 'discrete' or 'fractional', not %r" % mode)
        self.allocation_mode: str = mode
        try:
            self.quantum_size = Decimal(str(self.plugin_config.get("quantum_size", "0.1")))
            self.unit_mem = Decimal(str(self.plugin_config.get("unit_mem", 2 << 30)))
            self.unit_proc = Decimal(str(self.plugin_config.get("unit_proc", 8)))
            # what the runtime keeps for itself on a shared device (the mock plugin's
            # reserved_memory, 64 MiB by default; written as <KEY>_RESERVED_MEMORY)
            self.reserved_memory = int(Decimal(str(self.plugin_config.get("reserved_memory", 64 << 20))))
        except InvalidOperation:
            raise BackendAIPluginError(
                "quantum_size, unit_mem, unit_proc and reserved_memory must be numbers") from None
        if self.quantum_size <= 0 or self.unit_mem <= 0 or self.unit_proc <= 0:
            raise BackendAIPluginError("quantum_size, unit_mem and unit_proc must be positive")

    # -- slot names ---------------------------------------------------------------------
    @property
    def device_slot(self) -> str:
        return "%s.device" % self.key

    @property
    def shares_slot(self) -> str:
        return "%s.shares" % self.key

    def partition_slot(self, dev: AxlComputeDevice) -> str:
        tech = (dev.partition_technology or "part").lower()
        return "%s.device:%s-%s" % (self.key, dev.partition_profile or "unknown", tech)

    @property
    def slot_types(self) -> Sequence[tuple[Any, SlotTypes]]:  # type: ignore[override]
        out: list[tuple[Any, SlotTypes]] = []
        whole = [d for d in self.devices if not d.is_partition]
        if whole:
            out.append((SlotName(self.device_slot if self.allocation_mode == "discrete"
                                 else self.shares_slot), SlotTypes.COUNT))
        for s in sorted({self.partition_slot(d) for d in self.devices if d.is_partition}):
            out.append((SlotName(s), SlotTypes.UNIQUE))
        return out

    @property
    def exclusive_slot_types(self) -> set[str]:  # type: ignore[override]
        return {"%s.device:*" % self.key, self.device_slot, self.shares_slot}

    # -- lifecycle ------------------------------------------------------------------------
    async def init(self, context: Any = None) -> None:
        """Open the node through axl and read its devices of this kind. Without libaxl the
        plugin stays disabled (no devices, no slots), as the agent's plugins do."""
        cfg = self.plugin_config
        env = {"AXL_STATE_DIR": str(cfg["state_dir"])} if cfg.get("state_dir") else None
        try:
            inv = _inventory.open(cfg.get("sysroot"), sim=cfg.get("sim"), env=env)
        except LibraryNotFoundError as e:
            self.enabled, self.disabled_reason = False, str(e)
            return
        self.inventory = inv
        mask = {m.strip() for m in str(cfg.get("device_mask", "")).split(",") if m.strip()}
        self.devices, self.mig_parents, self._by_id = [], [], {}
        for pos, d in enumerate(x for x in inv.devices if self._mine(x)):
            if d.uuid in mask or d.id in mask:
                continue
            rt = device_runtime(inv, d.id)
            dev = self._make(d, None, rt, pos)
            if d.children or any(p.get("mode") == "enabled" and p.get("technology") == (rt.partitions if rt else None)
                                 for p in d.raw.get("partitioning", [])):
                self.mig_parents.append(dev)
                for c in d.children:
                    if c.uuid in mask or c.id in mask:
                        continue
                    self._add(self._make(c, d, rt, pos))
            else:
                self._add_fractional(dev)
                self._add(dev)
        self.enabled = True

    def _add_fractional(self, dev: AxlComputeDevice) -> None:
        """BEP-1000 partitioning: fractional sharing ("fGPU") where a preloaded limiter
        can hold a share (AXL_RUNTIME_PRELOAD_LIMITS), max_partitions = shares / quantum."""
        share = self.share_of(dev)
        if dev.runtime is None or not dev.runtime.preload_limits or share is None:
            return
        n = int(share / self.quantum_size)
        if n >= 1:
            dev.partitioning_support.append(PartitioningCapability(
                max_partitions=n, technology="fGPU", profiles=[],
                mode="enabled" if self.allocation_mode == "fractional" else "disabled"))

    def _mine(self, d: _inventory.Device) -> bool:
        prefix = d.id.split(":", 1)[0]
        if prefix not in self.id_prefixes or (self.families is not None and d.family not in self.families):
            return False
        key = d.get("devicedb_key")
        if self.db_keys is not None and key not in self.db_keys:
            return False
        return key not in self.exclude_db_keys

    def _add(self, dev: AxlComputeDevice) -> None:
        if str(dev.device_id) in self._by_id:
            raise BackendAIPluginError("two devices with the id %s" % dev.device_id)
        self._by_id[str(dev.device_id)] = dev
        self.devices.append(dev)

    def _make(self, d: _inventory.Device, parent: _inventory.Device | None,
              rt: Runtime | None, pos: int) -> AxlComputeDevice:
        if parent is None:
            devid = str(d.index) if d.index is not None else _safe_id(d.id)
        else:
            devid = _safe_id(d.uuid) if d.uuid else _safe_id(d.id)
        units = [c.get("count") for c in d.raw.get("compute_units", []) if isinstance(c.get("count"), int)]
        return AxlComputeDevice(
            device_id=devid, hw_location=d.pci_address or d.id,
            memory_size=d.memory_total_bytes, processing_units=units[0] if units else None,
            numa_node=d.numa_node, device_name=self.key, model_name=d.model, uuid=d.uuid,
            axl_device=d, parent=parent, runtime=rt)

    async def cleanup(self) -> None:
        """Close the sampler and the inventory."""
        if self._sampler is not None:
            self._sampler.close()
            self._sampler = None
        if self.inventory is not None:
            self.inventory.close()
            self.inventory = None

    async def update_plugin_config(self, plugin_config: Mapping[str, Any]) -> None:
        """config_watch_enabled is False: a new config takes effect at the next start."""
        self.plugin_config = dict(plugin_config)

    def get_version(self) -> str:
        from .. import __version__
        return __version__

    # -- devices and slots ------------------------------------------------------------------
    async def list_devices(self) -> Collection[AxlComputeDevice]:
        return list(self.devices)

    def device(self, device_id: Any) -> AxlComputeDevice:
        """The device of an agent DeviceId; BackendAIPluginError when unknown."""
        dev = self._by_id.get(str(device_id))
        if dev is None:
            raise BackendAIPluginError("%s: no device %r (known: %s)" % (
                self.key, device_id, ", ".join(self._by_id) or "none"))
        return dev

    def share_of(self, dev: AxlComputeDevice) -> Decimal | None:
        """The fractional capacity of a whole device: min(memory / unit_mem,
        processing_units / unit_proc) rounded down to 0.01; None when neither is known."""
        parts = []
        if dev.memory_size:
            parts.append(Decimal(dev.memory_size) / self.unit_mem)
        if dev.processing_units:
            parts.append(Decimal(dev.processing_units) / self.unit_proc)
        if not parts:
            return None
        return min(parts).quantize(Decimal("0.01"), rounding=ROUND_DOWN)

    def slot_of(self, d: AxlComputeDevice) -> str:
        """The one slot device d is allocated under: its partition's slot, else the device
        slot (discrete) or the shares slot (fractional)."""
        if d.is_partition:
            return str(self.partition_slot(d))
        return str(self.device_slot if self.allocation_mode == "discrete" else self.shares_slot)

    def _device_slots(self) -> dict[str, Any]:
        slots: dict[str, Any] = {}
        for d in self.devices:
            if d.is_partition:
                slots[str(d.device_id)] = DeviceSlotInfo(SlotTypes.UNIQUE, SlotName(self.partition_slot(d)), Decimal(1))
            elif self.allocation_mode == "discrete":
                slots[str(d.device_id)] = DeviceSlotInfo(SlotTypes.COUNT, SlotName(self.device_slot), Decimal(1))
            else:
                share = self.share_of(d)
                if share is not None and share > 0:
                    slots[str(d.device_id)] = DeviceSlotInfo(SlotTypes.COUNT, SlotName(self.shares_slot), share)
        return slots

    async def available_slots(self) -> Mapping[Any, Decimal]:
        out: dict[Any, Decimal] = {}
        for info in self._device_slots().values():
            out[info.slot_name] = out.get(info.slot_name, Decimal(0)) + Decimal(info.amount)
        return out

    async def create_alloc_map(self) -> Any:
        """The agent's own allocation map (DiscretePropertyAllocMap, or FractionAllocMap in
        fractional mode), as a subclass that keeps every device under its own slot (see
        _own_slots_only)."""
        slots = self._device_slots()
        excl = self.exclusive_slot_types
        if self.allocation_mode == "fractional":
            return _FractionMap(device_slots=slots, exclusive_slot_types=excl,
                                quantum_size=self.quantum_size)
        return _DiscreteMap(device_slots=slots, exclusive_slot_types=excl)

    def _slot_meta(self, slot: str) -> dict[str, Any]:
        if slot == self.shares_slot:
            return {"slot_name": slot, "description": "%s (fractional share)" % self.human_readable_name,
                    "human_readable_name": "f" + self.human_readable_name,
                    "display_unit": "f" + self.display_unit,
                    "number_format": {"binary": False, "round_length": 2},
                    "display_icon": self.display_icon}
        if slot == self.device_slot:
            return {"slot_name": slot, "description": "%s (whole device)" % self.human_readable_name,
                    "human_readable_name": self.human_readable_name, "display_unit": self.display_unit,
                    "number_format": {"binary": False, "round_length": 0},
                    "display_icon": self.display_icon}
        minor = slot.split(":", 1)[1]
        return {"slot_name": slot, "description": "%s partition %s" % (self.human_readable_name, minor),
                "human_readable_name": "%s %s" % (self.human_readable_name, minor.upper()),
                "display_unit": minor.rsplit("-", 1)[-1].upper(),
                "number_format": {"binary": False, "round_length": 0},
                "display_icon": self.display_icon}

    def get_metadata(self) -> dict[str, Any]:
        """AcceleratorMetadata of the plugin's main slot (.device or .shares); the other
        slots are in get_resource_spec()."""
        return self._slot_meta(self.device_slot if self.allocation_mode == "discrete" else self.shares_slot)

    def _all_slot_names(self) -> list[str]:
        out = []
        if any(not d.is_partition for d in self.devices):
            out += [self.device_slot, self.shares_slot]
        out += sorted({self.partition_slot(d) for d in self.devices if d.is_partition})
        return out

    def get_metadata_per_slot(self) -> dict[str, dict[str, Any]]:
        """BEP-1000: one AcceleratorMetadata per slot this node can offer (whole devices,
        fractional shares, every partition profile); get_metadata() stays the one
        AcceleratorMetadata the current agent takes."""
        return {s: self._slot_meta(s) for s in self._all_slot_names()}

    # -- BEP-1016 (accelerator interface v2) -------------------------------------------------
    def configurable_slots(self) -> list[dict[str, Any]]:
        """Every slot type this plugin could offer on this node, whatever the current
        allocation_mode, with its slot type and display metadata."""
        out = []
        for s in self._all_slot_names():
            t = "unique" if s not in (self.device_slot, self.shares_slot) else "count"
            out.append({**self._slot_meta(s), "slot_type": t})
        return out

    def create_lifecycle_hook(self, workload: Any, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> Any:
        """BEP-1016: an AxlLifecycleHook for a workload (Workload) and its allocation."""
        from .v2 import AxlLifecycleHook
        return AxlLifecycleHook(self, workload, device_alloc)

    async def alloc_to_devices(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> list[dict[str, Any]]:
        """BEP-1016: the devices an allocation uses, each with its slot, amount and
        device-info document (BEP-1000)."""
        return [{"slot_name": slot, "amount": str(amt), "device_id": str(d.device_id),
                 "device_info": d.device_info()} for d, slot, amt in self._alloc(device_alloc)]

    async def get_node_info(self) -> dict[str, Any]:
        """BEP-1016: driver/runtime versions (extra_info) and hardware status
        (get_node_hwinfo) in one structure."""
        return {"plugin": self.key, "version": self.get_version(),
                "versions": dict(await self.extra_info()),
                "hardware": dict(await self.get_node_hwinfo())}

    def get_resource_spec(self) -> dict[str, Any]:
        """BEP-1000: every slot definition of this node (whole devices, fractional shares,
        one per partition profile) with its type, display metadata, capacity, devices and
        whether the current allocation_mode allocates it; and every device's info
        (schema/backendai-resource-spec.schema.json)."""
        slots: list[dict[str, Any]] = []
        whole = [d for d in self.devices if not d.is_partition]
        if whole:
            slots.append({**self._slot_meta(self.device_slot), "slot_type": "count",
                          "allocatable": self.allocation_mode == "discrete",
                          "capacity": str(Decimal(len(whole))),
                          "devices": [str(d.device_id) for d in whole]})
            shared = [(d, self.share_of(d)) for d in whole]
            shared = [(d, s) for d, s in shared if s is not None and s > 0]
            if shared:
                slots.append({**self._slot_meta(self.shares_slot), "slot_type": "count",
                              "allocatable": self.allocation_mode == "fractional",
                              "capacity": str(sum((s for _, s in shared), Decimal(0))),
                              "devices": [str(d.device_id) for d, _ in shared]})
        by_slot: dict[str, list[AxlComputeDevice]] = {}
        for d in self.devices:
            if d.is_partition:
                by_slot.setdefault(self.partition_slot(d), []).append(d)
        for s in sorted(by_slot):
            ds = by_slot[s]
            slots.append({**self._slot_meta(s), "slot_type": "unique", "allocatable": True,
                          "capacity": str(Decimal(len(ds))),
                          "devices": [str(d.device_id) for d in ds],
                          "partition": {"technology": ds[0].partition_technology,
                                        "profile": ds[0].partition_profile}})
        return {"schema": "axl.backendai.resource-spec", "plugin": self.key,
                "version": self.get_version(), "allocation_mode": self.allocation_mode,
                "slots": slots,
                "devices": [d.device_info() for d in self.devices],
                "partitioned_devices": [d.device_info() for d in self.mig_parents]}

    # -- BEP-1000: the translated methods, beside the v21 ones ------------------------------
    # lablup/backend.ai proposals/BEP-1000-redefining-accelerator-metadata.md, "Translation
    # of existing APIs": each composes the v21 methods it renames or unifies, so the two
    # interfaces give the same answers. get_resource_spec (above) is the BEP's unification
    # of get_metadata and available_slots.
    def metadata_per_slot_type(self) -> list[dict[str, Any]]:
        """One AcceleratorMetadata per slot type the plugin declares (slot_types): on a
        mixed MIG node, one for whole devices and one per MIG profile. BEP-1000's
        get_metadata() (axl.backendai.bep1000's classes return it)."""
        return [self._slot_meta(str(s)) for s, _t in self.slot_types]

    async def reconstruct_from_kernel(self, container: Any, alloc_map: Any) -> None:
        """BEP-1000's name of restore_from_container: re-apply a running kernel's
        allocation (its /home/config/resource.txt) to alloc_map."""
        await self.restore_from_container(container, alloc_map)

    async def write_into_kernel(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> Mapping[str, str]:
        """BEP-1000's name of generate_resource_data: the resource.txt lines the kernel
        gets for its allocation."""
        return await self.generate_resource_data(device_alloc)

    async def to_device_list(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> Sequence[Mapping[str, Any]]:
        """BEP-1000's name of get_attached_devices: the devices an allocation uses, as
        DeviceModelInfo (device_id, model_name, data: smp, mem)."""
        return await self.get_attached_devices(device_alloc)

    async def query_workload_config(self, device_alloc: Mapping[Any, Mapping[Any, Any]], *,
                                    docker: Any = None, source_path: Path | None = None,
                                    distro: str = "", arch: str = "") -> Any:
        """BEP-1000's unification of generate_docker_args, generate_mounts, get_hooks,
        get_docker_networks, get_additional_gids and get_additional_allowed_syscalls: one
        AcceleratorWorkloadConfig, each field what the v21 method returns (docker for
        the injector's choice, as generate_docker_args takes it; source_path as
        generate_mounts takes it, axl writes nothing under it; distro and arch as
        get_hooks takes them)."""
        from .bep1000 import AcceleratorWorkloadConfig
        self._alloc(device_alloc)  # a bad allocation fails before anything is composed
        return AcceleratorWorkloadConfig(
            docker_args=dict(await self.generate_docker_args(docker, device_alloc)),
            mounts=list(await self.generate_mounts(source_path if source_path is not None else Path("/"),
                                                   device_alloc)),
            hooks=list(await self.get_hooks(distro, arch)),
            networks=list(await self.get_docker_networks(device_alloc)),
            additional_gids=list(self.get_additional_gids()),
            additional_allowed_syscalls=list(self.get_additional_allowed_syscalls()))

    async def extra_info(self) -> Mapping[str, str]:
        out = {"%s_support" % self.key: "true" if self.devices else "false",
               "axl_version": self.get_version()}
        if self.disabled_reason:
            out["disabled_reason"] = self.disabled_reason
        drivers = sorted({d.axl_device.get("driver.version") for d in self.devices
                          if d.axl_device.get("driver.version")})
        if drivers:
            out["driver_version"] = ",".join(drivers)
        models = sorted({d.model_name for d in self.devices if d.model_name})
        if models:
            out["models"] = ",".join(models)
        if self.inventory is not None and self.inventory.simulated:
            out["simulated"] = "true"
        return out

    async def get_node_hwinfo(self) -> Mapping[str, Any]:
        """HardwareMetadata: healthy with devices, degraded with axl warnings, unavailable
        when disabled; metadata holds per-device model and UUID."""
        if not self.enabled or self.inventory is None:
            return {"status": "unavailable", "status_info": self.disabled_reason, "metadata": {}}
        meta = {"%s.model" % d.device_id: d.model_name or "" for d in self.devices}
        meta.update({"%s.uuid" % d.device_id: d.uuid or "" for d in self.devices})
        warns = [w.message for w in self.inventory.warnings]
        if not self.devices:
            return {"status": "offline", "status_info": "no %s device" % self.key, "metadata": meta}
        return {"status": "degraded" if warns else "healthy",
                "status_info": "; ".join(warns[:5]) or None, "metadata": meta}

    # -- allocations ------------------------------------------------------------------------
    def _alloc(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> list[tuple[AxlComputeDevice, str, Decimal]]:
        if not isinstance(device_alloc, Mapping):
            raise BackendAIPluginError("device_alloc must be a mapping slot -> device -> amount")
        out = []
        for slot, per in device_alloc.items():
            if not str(slot).startswith(self.key + ".") and str(slot) != self.key:
                raise BackendAIPluginError("slot %s is not a %s slot" % (slot, self.key))
            if not isinstance(per, Mapping):
                raise BackendAIPluginError("slot %s: allocation must be a mapping" % slot)
            for devid, amount in per.items():
                amt = _dec_or_none(amount)
                if amt is None or amt < 0:
                    raise BackendAIPluginError("slot %s device %s: bad amount %r" % (slot, devid, amount))
                dev = self.device(devid)
                if amt > 0:
                    # a device is handed out only under its own slot, whatever the map says
                    # (a whole GPU under a MIG slot would be booked twice)
                    own = self.slot_of(dev)
                    if own != str(slot):
                        raise BackendAIPluginError("device %s is allocated under %s, but its slot is %s: "
                                                   "refused" % (devid, slot, own))
                    out.append((dev, str(slot), amt))
        out.sort(key=lambda t: (t[0].is_partition, int(t[0].device_id) if str(t[0].device_id).isdigit() else 0,
                                str(t[0].device_id)))
        return out

    async def _injector(self, docker: Any, devs: list[AxlComputeDevice]) -> str:
        mode = self.plugin_config.get("device_injector", "auto")
        if mode not in ("auto", "nvidia", "cdi", "devices"):
            raise BackendAIPluginError("device_injector %r is not auto, nvidia, cdi or devices" % mode)
        if mode != "auto":
            return mode
        is_nvidia = any(d.runtime is not None and d.runtime.kind == "nvidia.com/gpu" for d in devs)
        info: Mapping[str, Any] = {}
        version: Mapping[str, Any] = {}
        if docker is not None:
            try:
                info = await docker.system.info()
                version = await docker.version()
            except Exception:
                info, version = {}, {}
        comps = [str(c.get("Name", "")) for c in (version.get("Components") or []) if isinstance(c, Mapping)]
        if any("podman" in c.lower() for c in comps):
            return "cdi"
        if is_nvidia and "nvidia" in (info.get("Runtimes") or {}):
            return "nvidia"
        return "devices"

    async def generate_docker_args(self, docker: Any,
                                   device_alloc: Mapping[Any, Mapping[Any, Any]]) -> Mapping[str, Any]:
        """Docker create parameters that give the container its devices: NVIDIA driver
        device requests, CDI device names (Podman, as `axl cdi` names them) or the
        devices' nodes with cgroup permissions and groups."""
        rows = self._alloc(device_alloc)
        devs = list(dict.fromkeys(d for d, _, _ in rows))
        if not devs:
            return {}
        mode = await self._injector(docker, devs)
        if mode == "nvidia":
            ids = [d.uuid if d.is_partition and d.uuid else str(d.device_id) for d in devs]
            return {"HostConfig": {"DeviceRequests": [{
                "Driver": "nvidia", "DeviceIDs": ids,
                "Capabilities": [["utility", "compute", "video", "graphics", "display"]]}]}}
        if mode == "cdi":
            names = []
            for d in devs:
                # axl's kind (axl.dev/nvidia-gpu), not the vendor's: nvidia-ctk's own spec
                # of nvidia.com/gpu may sit in the same folder (docs/cdi.md)
                kind = cdi_kind(self.inventory, d.axl_device.id)
                ident = d.uuid or (str(d.axl_device.index) if d.axl_device.index is not None else None)
                if ident is None:
                    raise BackendAIPluginError("device %s has neither UUID nor index for a CDI name" % d.device_id)
                names.append("%s=%s" % (kind, _cdi_name(ident)))
            return {"HostConfig": {"DeviceRequests": [{"Driver": "cdi", "DeviceIDs": names}]}}
        nodes: list[str] = []
        for d in devs:
            nodes.extend(d.axl_device.device_nodes)
            if d.runtime:
                root = self.inventory.sysroot if self.inventory else "/"
                for c in d.runtime.control_nodes:
                    if c in nodes or (self.inventory and not self.inventory.simulated
                                      and os.path.exists(os.path.join(root, c.lstrip("/")))):
                        nodes.append(c)
        nodes = list(dict.fromkeys(nodes))
        if not nodes:
            raise BackendAIPluginError("the allocated %s devices have no device nodes" % self.key)
        args: dict[str, Any] = {"HostConfig": {
            "Devices": [{"PathOnHost": n, "PathInContainer": n, "CgroupPermissions": "mrw"} for n in nodes]}}
        groups = [g for g in self.default_groups if _group_exists(g)] + [str(g) for g in self._node_gids(nodes)]
        if groups:
            args["HostConfig"]["GroupAdd"] = list(dict.fromkeys(groups))
        env = [e for d in devs if d.runtime for e in d.runtime.env if not e.endswith("=void")]
        if env:
            args["Env"] = list(dict.fromkeys(env))
        return args

    def _node_gids(self, nodes: Iterable[str]) -> list[int]:
        if self.inventory is None or self.inventory.simulated:
            return []
        root = self.inventory.sysroot
        gids = []
        for n in nodes:
            try:
                gid = os.stat(os.path.join(root, n.lstrip("/"))).st_gid
            except OSError:
                continue
            if gid != 0:
                gids.append(gid)
        return sorted(set(gids))

    async def generate_resource_data(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> Mapping[str, str]:
        """resource.txt lines: <KEY>_GLOBAL_DEVICE_IDS, <KEY>_RESOURCE_VIRTUALIZED, and
        for shares <KEY>_MEMORY_LIMITS (bytes), <KEY>_PROCESSOR_LIMITS (units) and
        <KEY>_COMPUTE_PERCENT per device; for partitions <KEY>_PARTITION_PROFILES."""
        rows = self._alloc(device_alloc)
        if not rows:
            return {}
        k = re.sub(r"[^A-Z0-9]", "_", self.key.upper())
        devs = list(dict.fromkeys(d for d, _, _ in rows))
        out = {"%s_GLOBAL_DEVICE_IDS" % k: ",".join("%d:%s" % (i, d.device_id) for i, d in enumerate(devs))}
        shares = [(d, amt) for d, slot, amt in rows if slot == self.shares_slot]
        out["%s_RESOURCE_VIRTUALIZED" % k] = "1" if shares else "0"
        if shares:
            mem, proc, pct = [], [], []
            for d, amt in shares:
                cap = self.share_of(d)
                if cap is None or cap <= 0:
                    raise BackendAIPluginError("device %s has no share capacity" % d.device_id)
                frac = min(amt / cap, Decimal(1))
                # as upstream's mock plugin (_share_to_spec, lablup/backend.ai c0032c47):
                # memory unit_mem x share, processors max(unit_proc x share, 4), and
                # never more than the device has
                m = int(self.unit_mem * amt)
                if d.memory_size:
                    m = min(m, int(d.memory_size))
                mem.append("%s:%d" % (d.device_id, m))
                u = max(int(self.unit_proc * amt), _MIN_SMP_COUNT)
                if d.processing_units:
                    u = min(u, int(d.processing_units))
                proc.append("%s:%d" % (d.device_id, u))
                pct.append("%s:%s" % (d.device_id, (frac * 100).quantize(Decimal("0.01"), rounding=ROUND_DOWN)))
            out["%s_MEMORY_LIMITS" % k] = ",".join(mem)
            out["%s_PROCESSOR_LIMITS" % k] = ",".join(proc)
            out["%s_RESERVED_MEMORY" % k] = str(self.reserved_memory)
            out["%s_COMPUTE_PERCENT" % k] = ",".join(pct)
        parts = [d for d in devs if d.is_partition]
        if parts:
            out["%s_PARTITION_PROFILES" % k] = ",".join("%s:%s" % (d.device_id, d.partition_profile) for d in parts)
        return out

    async def get_attached_devices(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> Sequence[Mapping[str, Any]]:
        out = []
        for d in dict.fromkeys(d for d, _, _ in self._alloc(device_alloc)):
            out.append({"device_id": d.device_id, "model_name": d.model_name or "",
                        "data": {"smp": d.processing_units, "mem": d.memory_size}})
        return out

    async def restore_from_container(self, container: Any, alloc_map: Any) -> None:
        """Re-apply a running container's allocation from its /home/config/resource.txt.
        Nothing happens for a container without one; ResourceTxtError for a malformed
        file, BackendAIPluginError for a device this node does not have."""
        if not self.enabled:
            return
        cfg = _config_dir_of(container)
        if cfg is None or not (cfg / "resource.txt").exists():
            return
        allocs = read_resource_txt(cfg / "resource.txt").get(self.key, {})
        apply: dict[Any, dict[Any, Decimal]] = {}
        for slot_name, _t in self.slot_types:
            per = allocs.get(str(slot_name), {})
            for devid in per:
                self.device(devid)
            apply[slot_name] = {i: Decimal(per.get(str(i), 0)) for i, info in alloc_map.device_slots.items()
                                if str(info.slot_name) == str(slot_name)}
        unknown = set(allocs) - {str(s) for s, _ in self.slot_types}
        if unknown:
            raise BackendAIPluginError("resource.txt has %s slots this node does not offer: %s" % (
                self.key, ", ".join(sorted(unknown))))
        alloc_map.apply_allocation(apply)

    # -- container set-up ---------------------------------------------------------------
    async def get_hooks(self, distro: str, arch: str) -> Sequence[Path]:
        """The configured LD_PRELOAD libraries (``hooks``) that exist on this host."""
        hooks = self.plugin_config.get("hooks") or []
        if isinstance(hooks, str):
            hooks = [h for h in hooks.split(",") if h]
        return [Path(h) for h in hooks if Path(h).is_file()]

    async def generate_mounts(self, source_path: Path, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> list[Any]:
        """With ``mount_libraries`` and the "devices" injector: the vendor's user-space
        libraries found on this host (axl_device_runtime's patterns and folders),
        bind-mounted read-only at the same path."""
        rows = self._alloc(device_alloc)
        if not rows or not _config_bool(self.plugin_config, "mount_libraries", False):
            return []
        if self.plugin_config.get("device_injector", "auto") in ("nvidia", "cdi"):
            return []
        seen: dict[str, Any] = {}
        for rt in {id(d.runtime): d.runtime for d, _, _ in rows if d.runtime}.values():
            for folder in rt.library_dirs:
                try:
                    names = sorted(os.listdir(folder))
                except OSError:
                    continue
                for n in names:
                    if any(fnmatch.fnmatchcase(n, p) for p in rt.libraries):
                        p = os.path.join(folder, n)
                        if n not in seen:
                            # the agent mounts it read-only; mode is the mount's type
                            seen[n] = MountInfo(MountTypes.BIND, Path(p), Path(p))
        return list(seen.values())

    async def get_docker_networks(self, device_alloc: Mapping[Any, Mapping[Any, Any]]) -> list[str]:
        self._alloc(device_alloc)
        return []

    def get_additional_gids(self) -> list[int]:
        """The groups owning the device nodes (a live node), and the vendor's groups."""
        gids = [g.gr_gid for g in (_group(n) for n in self.default_groups) if g is not None]
        gids += self._node_gids(n for d in self.devices for n in d.axl_device.device_nodes)
        return sorted(set(gids))

    def get_additional_allowed_syscalls(self) -> list[str]:
        return []

    # -- measurements -----------------------------------------------------------------------
    def _sample(self, processes: bool) -> Sample | None:
        if self.inventory is None:
            return None
        if not processes:
            if self._sampler is None:
                self._sampler = Sampler(self.inventory)
            return self._sampler.sample()
        with Sampler(self.inventory, processes=True) as s:
            return s.sample()

    def _whole_by_axl(self) -> dict[str, AxlComputeDevice]:
        return {d.axl_device.id: d for d in self.devices}

    async def gather_node_measures(self, ctx: Any) -> Sequence[Any]:
        """<key>_mem (bytes, max), <key>_util (percent, avg/max), <key>_power (Watts) and
        <key>_temperature (Celsius), per device and per node, from axl's sampler; a device
        whose value axl does not know is left out of that metric."""
        smp = self._sample(False)
        if smp is None or not self.devices:
            return []
        mine = self._whole_by_axl()
        specs = [("mem", "memory_used_bytes", "memory_total_bytes", MetricTypes.GAUGE, "bytes", {"max"}),
                 ("util", "utilization_percent", None, MetricTypes.UTILIZATION, "percent", {"avg", "max"}),
                 ("power", "power_watts", "power_limit_watts", MetricTypes.GAUGE, "Watts", {"avg", "max"}),
                 ("temperature", "temperature_celsius", None, MetricTypes.GAUGE, "Celsius", {"avg", "max"})]
        out = []
        for suffix, vname, cname, mtype, unit, filt in specs:
            per: dict[Any, Any] = {}
            tv, tc, all_cap = Decimal(0), Decimal(0), True
            for ds in smp.devices:
                d = mine.get(ds.id)
                v = ds.get(vname)
                if d is None or v is None:
                    continue
                if cname is not None:
                    c = _dec_or_none(ds.get(cname))
                elif suffix == "util":
                    c = Decimal(100)
                else:
                    c = None
                per[d.device_id] = Measurement(_dec_or_none(v), c)  # type: ignore[arg-type]
                tv += _dec_or_none(v) or 0
                if c is None:
                    all_cap = False
                else:
                    tc += c
            if per:
                out.append(NodeMeasurement(f"{self.key}_{suffix}", mtype,  # type: ignore[arg-type]
                                           per_node=Measurement(tv, tc if all_cap else None),
                                           per_device=per, stats_filter=frozenset(filt), unit_hint=unit))
        return out

    async def gather_container_measures(self, ctx: Any, container_ids: Sequence[str]) -> Sequence[Any]:
        """<key>_mem (bytes) and <key>_util (percent) per container: the sum over axl's
        per-process rows whose container id (or cgroup path) names the container."""
        smp = self._sample(True)
        if smp is None or not container_ids:
            return []
        mine = self._whole_by_axl()
        mem: dict[str, Decimal] = {}
        util: dict[str, Decimal] = {}
        used: dict[str, set[str]] = {}
        for p in smp.processes:
            d = mine.get(p.device)
            if d is None:
                continue
            for cid in container_ids:
                if _process_in(p, cid):
                    used.setdefault(cid, set()).add(p.device)
                    if p.memory_used_bytes is not None:
                        mem[cid] = mem.get(cid, Decimal(0)) + p.memory_used_bytes
                    if p.utilization_percent is not None:
                        pct = _dec_or_none(p.utilization_percent)
                        util[cid] = util.get(cid, Decimal(0)) + pct  # type: ignore[operator]
        out = []
        if mem:
            out.append(ContainerMeasurement(
                f"{self.key}_mem", MetricTypes.GAUGE, per_container={  # type: ignore[arg-type]
                c: Measurement(v, _sum_or_none(mine[x].memory_size for x in used[c])) for c, v in mem.items()},
                stats_filter=frozenset({"max"}), unit_hint="bytes"))
        if util:
            out.append(ContainerMeasurement(
                f"{self.key}_util", MetricTypes.UTILIZATION, per_container={  # type: ignore[arg-type]
                c: Measurement(v, Decimal(100 * len(used[c]))) for c, v in util.items()},
                stats_filter=frozenset({"avg", "max"}), unit_hint="percent"))
        return out

    async def gather_process_measures(self, ctx: Any, pid_map: Mapping[int, str]) -> Sequence[Any]:
        """<key>_mem (bytes) and <key>_util (percent) per process of pid_map, from axl's
        per-process rows (summed over this kind's devices)."""
        smp = self._sample(True)
        if smp is None or not pid_map:
            return []
        mine = self._whole_by_axl()
        mem: dict[int, Decimal] = {}
        util: dict[int, Decimal] = {}
        for p in smp.processes:
            if p.pid not in pid_map or p.device not in mine:
                continue
            if p.memory_used_bytes is not None:
                mem[p.pid] = mem.get(p.pid, Decimal(0)) + p.memory_used_bytes
            if p.utilization_percent is not None:
                pct = _dec_or_none(p.utilization_percent)
                util[p.pid] = util.get(p.pid, Decimal(0)) + pct  # type: ignore[operator]
        out = []
        if mem:
            out.append(ProcessMeasurement(f"{self.key}_mem", MetricTypes.GAUGE,  # type: ignore[arg-type]
                                          per_process={k: Measurement(v) for k, v in mem.items()},
                                          stats_filter=frozenset({"max"}), unit_hint="bytes"))
        if util:
            out.append(ProcessMeasurement(f"{self.key}_util", MetricTypes.UTILIZATION,  # type: ignore[arg-type]
                                          per_process={k: Measurement(v, Decimal(100)) for k, v in util.items()},
                                          stats_filter=frozenset({"avg", "max"}), unit_hint="percent"))
        return out


def _process_in(p: Any, cid: str) -> bool:
    if not cid:
        return False
    if p.container_id and (p.container_id.startswith(cid) or cid.startswith(p.container_id)):
        return True
    return bool(p.cgroup and cid in p.cgroup)


def _sum_or_none(vals: Iterable[int | None]) -> Decimal | None:
    tot = Decimal(0)
    for v in vals:
        if v is None:
            return None
        tot += v
    return tot


def _group(name: str) -> Any:
    try:
        return grp.getgrnam(name)
    except KeyError:
        return None


def _group_exists(name: str) -> bool:
    return _group(name) is not None
