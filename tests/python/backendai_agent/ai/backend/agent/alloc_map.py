"""Stand-in: the allocation maps of ai.backend.agent.alloc_map (AffinityHint and
AffinityPolicy imported from the stand-in's affinity_map, as upstream imports them).

AbstractAllocMap (allocations: a defaultdict of defaultdicts, clear(), get_current_allocations
with an affinity hint, update_affinity_hint) and DiscretePropertyAllocMap's EVENLY strategy
(upstream's default) mirror lablup/backend.ai, src/ai/backend/agent/alloc_map.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891. FractionAllocMap keeps the rules only (shares
filled from the freest device)."""
from __future__ import annotations

import fnmatch
import itertools
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Any

from ai.backend.common.types import SlotName, SlotTypes

from .affinity_map import AffinityHint, AffinityPolicy


class ResourceError(ValueError):
    pass


class InsufficientResource(ResourceError):
    pass


class InvalidResourceArgument(ResourceError):
    pass


class InvalidResourceCombination(ResourceError):
    pass


class NotMultipleOfQuantum(ResourceError):
    pass


@dataclass
class DeviceSlotInfo:
    slot_type: SlotTypes
    slot_name: SlotName
    amount: Decimal


def _interleave_longest(*seqs: Sequence[Any]) -> list[Any]:
    out = []
    for group in itertools.zip_longest(*seqs, fillvalue=_interleave_longest):
        out.extend(x for x in group if x is not _interleave_longest)
    return out


def distribute(num_items: int, groups: Sequence[Any]) -> Mapping[Any, int]:
    base, extra = divmod(num_items, len(groups))
    return dict(zip(groups, ((base + (1 if i < extra else 0)) for i in range(len(groups))), strict=True))


class AbstractAllocMap:
    def __init__(self, *, device_slots: Mapping[Any, DeviceSlotInfo] | None = None,
                 device_mask: Iterable[Any] | None = None,
                 exclusive_slot_types: Collection[str] | None = None) -> None:
        self.exclusive_slot_types = set(exclusive_slot_types or ())
        self.device_slots = dict(device_slots or {})
        self.slot_types = {str(i.slot_name): i.slot_type for i in self.device_slots.values()}
        self.device_mask = frozenset(device_mask or ())
        # upstream: a defaultdict of defaultdicts, so that reading a device under a slot it
        # does not belong to inserts it there (get_current_allocations does)
        self.allocations: Any = defaultdict(lambda: defaultdict(Decimal))
        for dev_id, info in self.device_slots.items():
            self.allocations[str(info.slot_name)][dev_id] = Decimal(0)

    def clear(self) -> None:
        self.allocations.clear()
        for dev_id, info in self.device_slots.items():
            self.allocations[str(info.slot_name)][dev_id] = Decimal(0)

    def check_exclusive(self, a: str, b: str) -> bool:
        if a == b:
            return False
        ma = any(fnmatch.fnmatchcase(a, p) for p in self.exclusive_slot_types)
        mb = any(fnmatch.fnmatchcase(b, p) for p in self.exclusive_slot_types)
        return ma and mb

    def apply_allocation(self, existing_alloc: Mapping[Any, Mapping[Any, Decimal]]) -> None:
        for s, per in existing_alloc.items():
            for d, v in per.items():
                self.allocations[str(s)][d] += Decimal(v)

    def free(self, existing_alloc: Mapping[Any, Mapping[Any, Decimal]]) -> None:
        for s, per in existing_alloc.items():
            for d, v in per.items():
                self.allocations[str(s)][d] -= Decimal(v)

    def get_current_allocations(self, affinity_hint: AffinityHint | None, slot_name: str
                                ) -> Sequence[tuple[Any, Decimal]]:
        device_name = str(slot_name).partition(".")[0]
        if affinity_hint is None:
            return sorted(self.allocations[slot_name].items(),
                          key=lambda pair: self.device_slots[pair[0]].amount - pair[1], reverse=True)
        if not affinity_hint.devices:
            primary_sets = affinity_hint.affinity_map.get_device_clusters_with_lowest_distance(device_name)
            secondary_set: Sequence[Any] = []
        else:
            primary_sets, secondary_set = affinity_hint.affinity_map.get_distance_ordered_neighbors(
                affinity_hint.devices, device_name)
        if not primary_sets:
            raise ResourceError("No suitable devices found (searched: %s)" % device_name)
        # as upstream: the sort key reads allocations[slot_name][device_id] for every
        # device of the plugin, which inserts the ones of other slots
        primary_sets = sorted(primary_sets, key=lambda device_set: sum(
            (self.allocations[slot_name][device.device_id] for device in device_set), start=Decimal(0)))

        def convert_to_sorted_dev_alloc(device_set: Iterable[Any]) -> list[tuple[Any, Decimal]]:
            device_ids = {d.device_id for d in device_set}
            return sorted(((device_id, alloc) for device_id, alloc in self.allocations[slot_name].items()
                           if device_id in device_ids),
                          key=lambda pair: self.device_slots[pair[0]].amount - pair[1], reverse=True)

        primary = [convert_to_sorted_dev_alloc(ps) for ps in primary_sets]
        secondary = convert_to_sorted_dev_alloc(secondary_set)
        if not affinity_hint.devices and affinity_hint.policy == AffinityPolicy.PREFER_SINGLE_NODE:
            return [*itertools.chain(*primary)] + secondary
        return _interleave_longest(*primary) + secondary

    def update_affinity_hint(self, device_alloc: Mapping[Any, Decimal], affinity_hint: AffinityHint | None) -> None:
        if affinity_hint is None:
            return
        nxt = []
        for dev_id, alloc in device_alloc.items():
            if alloc == Decimal(0):
                continue
            nxt.extend(dev for dev in affinity_hint.affinity_map.nodes if dev.device_id == dev_id)
        affinity_hint.devices = nxt

    def _check(self, slots: Mapping[Any, Decimal]) -> dict[str, Decimal]:
        req = {str(k): Decimal(v) for k, v in slots.items() if Decimal(v) > 0}
        names = list(req)
        for i, a in enumerate(names):
            if a not in self.slot_types:
                raise InvalidResourceArgument("unknown slot %s" % a)
            for b in names[i + 1:]:
                if self.check_exclusive(a, b):
                    raise InvalidResourceCombination("%s and %s are exclusive" % (a, b))
        return req


class DiscretePropertyAllocMap(AbstractAllocMap):
    """Whole units; upstream's default strategy, EVENLY (_allocate_evenly)."""

    def allocate(self, slots: Mapping[Any, Decimal], *, affinity_hint: Any = None,
                 context_tag: str | None = None) -> Mapping[str, Mapping[Any, Decimal]]:
        allocation: dict[str, dict[Any, Decimal]] = {}
        for slot_name, requested_alloc in self._check(slots).items():
            if self.slot_types[slot_name] == SlotTypes.UNIQUE and requested_alloc != 1:
                raise InvalidResourceArgument("You may allocate only 1 for the unique-type slot %s" % slot_name)
            new_alloc: Any = defaultdict(Decimal)
            remaining_alloc = int(Decimal(requested_alloc))
            repeats = 0
            while remaining_alloc > 0:
                if repeats >= 100:
                    raise ResourceError("too many repeats until allocation")
                sorted_dev_allocs = self.get_current_allocations(affinity_hint, slot_name)
                total_allocatable = int(sum(self.device_slots[dev_id].amount - cur - new_alloc[dev_id]
                                            for dev_id, cur in self.allocations[slot_name].items()))
                if total_allocatable < remaining_alloc:
                    raise InsufficientResource("DiscretePropertyAllocMap: insufficient allocatable amount!")
                nonzero_devs = [dev_id for dev_id, cur in sorted_dev_allocs
                                if self.device_slots[dev_id].amount - cur - new_alloc[dev_id] > 0]
                if not nonzero_devs:
                    raise InsufficientResource("DiscretePropertyAllocMap: insufficient allocatable candidate devices!")
                initial_diffs = distribute(remaining_alloc, nonzero_devs)
                diffs = {dev_id: min(int(self.device_slots[dev_id].amount - cur - new_alloc[dev_id]),
                                     initial_diffs.get(dev_id, 0))
                         for dev_id, cur in self.allocations[slot_name].items()}
                for dev_id, _cur in sorted_dev_allocs:
                    diff = diffs[dev_id]
                    new_alloc[dev_id] += diff
                    remaining_alloc -= diff
                    if remaining_alloc == 0:
                        break
                repeats += 1
            for dev_id, allocated in new_alloc.items():
                self.allocations[slot_name][dev_id] += allocated
            allocation[slot_name] = {k: Decimal(v) for k, v in new_alloc.items() if v > 0}
            self.update_affinity_hint(new_alloc, affinity_hint)
        return allocation


class FractionAllocMap(AbstractAllocMap):
    def __init__(self, *, quantum_size: Decimal = Decimal("0.01"), **kw: Any) -> None:
        super().__init__(**kw)
        self.quantum_size = Decimal(quantum_size)

    def allocate(self, slots: Mapping[Any, Decimal], *, affinity_hint: Any = None,
                 context_tag: str | None = None, min_memory: Decimal = Decimal("0.01"),
                 allow_resource_fragmentation: bool = True) -> Mapping[str, Mapping[Any, Decimal]]:
        out: dict[str, dict[Any, Decimal]] = {}
        for s, want in self._check(slots).items():
            if self.slot_types[s] == SlotTypes.UNIQUE:
                if want != 1:
                    raise InvalidResourceArgument("%s is unique: request exactly 1" % s)
                free = [d for d, a in self.allocations[s].items() if a == 0]
                if not free:
                    raise InsufficientResource(s)
                out[s] = {free[0]: Decimal(1)}
                continue
            q = (want / self.quantum_size).to_integral_value(rounding=ROUND_DOWN) * self.quantum_size
            if q == 0:
                raise NotMultipleOfQuantum("%s below the quantum %s" % (want, self.quantum_size))
            got: dict[Any, Decimal] = {}
            for d, a in sorted(self.allocations[s].items(), key=lambda t: self.device_slots[t[0]].amount - t[1], reverse=True):
                avail = self.device_slots[d].amount - a
                if q <= 0 or avail <= 0:
                    continue
                take = min(avail, q)
                got[d], q = take, q - take
            if q > 0:
                raise InsufficientResource("%s: %s more wanted" % (s, q))
            out[s] = got
        self.apply_allocation(out)
        return out
