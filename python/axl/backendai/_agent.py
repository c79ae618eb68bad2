"""The Backend.AI agent's types for :mod:`axl.backendai`: its ``AbstractComputeDevice``,
``AbstractComputePlugin``, alloc maps, measurement and slot types when ``ai.backend.agent``
is importable (``HAVE_AGENT``), otherwise small stand-ins with the same names, fields and
signatures, for using the package without an agent (tests, tools). An agent that is
installed but fails to import is reported (logged as an error and warned), and no plugin
is made on stand-ins: ``AGENT_IMPORT_ERROR`` says why."""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any


# --------------------------------------------------------------------------------------
# The agent's types, or stand-ins with the same names and fields.
try:  # pragma: no cover - depends on the agent being installed
    from ai.backend.agent.resources import AbstractComputeDevice as _DeviceBase
    from ai.backend.agent.resources import AbstractComputePlugin as _PluginBase
    try:
        from ai.backend.agent.alloc_map import (DeviceSlotInfo, DiscretePropertyAllocMap,
                                                FractionAllocMap)
    except ImportError:
        from ai.backend.agent.resources import (DeviceSlotInfo,  # type: ignore[no-redef]
                                                DiscretePropertyAllocMap, FractionAllocMap)
    from ai.backend.agent.stats import (ContainerMeasurement, Measurement, MetricTypes,
                                        NodeMeasurement, ProcessMeasurement)
    from ai.backend.common.types import MountTypes, SlotName, SlotTypes
    # the agent's MountInfo (mode: MountTypes): ai.backend.agent.types at lablup/backend.ai
    # c0032c47; older agents kept it elsewhere
    try:
        from ai.backend.agent.types import MountInfo
    except ImportError:
        try:
            from ai.backend.common.types import MountInfo  # type: ignore[no-redef]
        except ImportError:
            from ai.backend.agent.resources import MountInfo  # type: ignore[no-redef]
    HAVE_AGENT = True
    AGENT_IMPORT_ERROR: str | None = None
    AGENT_BROKEN = False
except ImportError as _e:
    HAVE_AGENT = False
    # Said loudly: an agent that is installed but does not import (a missing dependency, a
    # version this package does not know) would otherwise get stand-ins and skip the
    # plugins, since they are not its AbstractComputePlugin. axl.backendai.plugin refuses
    # to make plugins then (create_plugin, the classes' __init__).
    AGENT_IMPORT_ERROR = "%s: %s" % (type(_e).__name__, _e)
    import importlib.util as _ilu
    try:
        _agent_there = _ilu.find_spec("ai.backend.agent") is not None
    except (ImportError, ValueError):
        _agent_there = False
    AGENT_BROKEN = _agent_there
    if _agent_there:
        import logging as _logging
        import warnings as _warnings
        _msg = ("axl.backendai: the Backend.AI agent (ai.backend.agent) is installed but does not "
                "import (%s): axl's compute plugins are NOT available to it; fix the agent's "
                "environment" % AGENT_IMPORT_ERROR)
        _logging.getLogger("axl.backendai").error(_msg)
        _warnings.warn(_msg, RuntimeWarning, stacklevel=2)

    class MountTypes(str, enum.Enum):  # type: ignore[no-redef]
        """The agent's mount types (ai.backend.common.types.MountTypes, a StrEnum)."""
        VOLUME = "volume"
        BIND = "bind"
        TMPFS = "tmpfs"
        OVERLAY = "overlay"
        K8S_GENERIC = "k8s-generic"
        K8S_HOSTPATH = "k8s-hostpath"

    class SlotTypes(str, enum.Enum):  # type: ignore[no-redef]
        """Slot types of the interface."""
        COUNT = "count"
        BYTES = "bytes"
        UNIQUE = "unique"
        UNIFIED = "unified"

    def SlotName(s: str) -> str:  # type: ignore[no-redef]  # noqa: N802
        """Slot names are plain strings without the agent."""
        return str(s)

    class MetricTypes(enum.Enum):  # type: ignore[no-redef]
        """Metric types of the interface (metadata only)."""
        GAUGE = 0
        RATE = 1
        UTILIZATION = 2
        ACCUMULATION = 3

    @dataclass
    class Measurement:  # type: ignore[no-redef]
        value: Decimal
        capacity: Decimal | None = None

    @dataclass
    class NodeMeasurement:  # type: ignore[no-redef]
        key: str
        type: MetricTypes
        per_node: Measurement
        per_device: Mapping[str, Measurement] = field(default_factory=dict)
        stats_filter: frozenset[str] = frozenset()
        current_hook: Any = None
        unit_hint: str = "count"

    @dataclass
    class ContainerMeasurement:  # type: ignore[no-redef]
        key: str
        type: MetricTypes
        per_container: Mapping[str, Measurement] = field(default_factory=dict)
        stats_filter: frozenset[str] = frozenset()
        current_hook: Any = None
        unit_hint: str = "count"

    @dataclass
    class ProcessMeasurement:  # type: ignore[no-redef]
        key: str
        type: MetricTypes
        per_process: Mapping[int, Measurement] = field(default_factory=dict)
        stats_filter: frozenset[str] = frozenset()
        current_hook: Any = None
        unit_hint: str = "count"

    @dataclass
    class MountInfo:  # type: ignore[no-redef]
        """ai.backend.agent.types.MountInfo: the agent mounts each read-only, of type mode."""
        mode: MountTypes
        src_path: Path
        dst_path: Path

    @dataclass
    class DeviceSlotInfo:  # type: ignore[no-redef]
        slot_type: SlotTypes
        slot_name: str
        amount: Decimal

    class _AllocMap:
        """A minimal allocation map (used only without the agent): device_slots,
        allocations, apply_allocation, free, clear, allocate."""

        fractional = False

        def __init__(self, *, device_slots: Mapping[str, DeviceSlotInfo] | None = None,
                     device_mask: Iterable[str] | None = None,
                     exclusive_slot_types: Collection[str] | None = None,
                     quantum_size: Decimal = Decimal("0.01"), **_: Any) -> None:
            self.device_slots = dict(device_slots or {})
            self.device_mask = frozenset(device_mask or ())
            self.exclusive_slot_types = set(exclusive_slot_types or ())
            self.quantum_size = Decimal(quantum_size)
            self.slot_types = {i.slot_name: i.slot_type for i in self.device_slots.values()}
            self.allocations: dict[str, dict[str, Decimal]] = {}
            self.clear()

        def clear(self) -> None:
            self.allocations = {s: {d: Decimal(0) for d, i in self.device_slots.items()
                                    if i.slot_name == s} for s in self.slot_types}

        def apply_allocation(self, existing_alloc: Mapping[str, Mapping[str, Decimal]]) -> None:
            for s, per in existing_alloc.items():
                for d, v in per.items():
                    self.allocations.setdefault(s, {}).setdefault(d, Decimal(0))
                    self.allocations[s][d] += Decimal(v)

        def free(self, existing_alloc: Mapping[str, Mapping[str, Decimal]]) -> None:
            for s, per in existing_alloc.items():
                for d, v in per.items():
                    self.allocations[s][d] -= Decimal(v)

        def allocate(self, slots: Mapping[str, Decimal], *, affinity_hint: Any = None,
                     context_tag: str | None = None, **_: Any) -> Mapping[str, Mapping[str, Decimal]]:
            out: dict[str, dict[str, Decimal]] = {}
            for s, want in slots.items():
                want = Decimal(want)
                if want <= 0:
                    continue
                if s not in self.slot_types:
                    raise ValueError("slot %s is not one of this map's" % s)
                if self.fractional and self.slot_types[s] != SlotTypes.UNIQUE:
                    want = (want / self.quantum_size).to_integral_value(rounding=ROUND_DOWN) * self.quantum_size
                elif want != want.to_integral_value():
                    raise ValueError("%s: %s is not a whole number of devices" % (s, want))
                got: dict[str, Decimal] = {}
                free = sorted(((self.device_slots[d].amount - a, d)
                               for d, a in self.allocations[s].items()), reverse=True)
                for avail, d in free:
                    if want <= 0:
                        break
                    if self.fractional and self.slot_types[s] != SlotTypes.UNIQUE:
                        take = min(avail, want)
                    else:
                        take = Decimal(1) if avail >= 1 else Decimal(0)
                    if take > 0:
                        got[d] = take
                        want -= take
                if want > 0:
                    raise ValueError("insufficient %s" % s)
                out[s] = got
            self.apply_allocation(out)
            return out

    class DiscretePropertyAllocMap(_AllocMap):  # type: ignore[no-redef]
        """Whole devices (stand-in)."""

    class FractionAllocMap(_AllocMap):  # type: ignore[no-redef]
        """Fractional shares (stand-in)."""
        fractional = True

    class _DeviceBase:  # type: ignore[no-redef]
        """The fields of the agent's AbstractComputeDevice."""

        def __init__(self, device_id: str, hw_location: str, memory_size: int,
                     processing_units: int, numa_node: int | None = None,
                     device_name: str | None = None) -> None:
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

    class _PluginBase:  # type: ignore[no-redef]
        """The constructor of the agent's AbstractPlugin."""

        config_watch_enabled = True
        require_explicit_allow = False

        def __init__(self, plugin_config: Mapping[str, Any], local_config: Mapping[str, Any]) -> None:
            self.plugin_config = plugin_config
            self.local_config = local_config
