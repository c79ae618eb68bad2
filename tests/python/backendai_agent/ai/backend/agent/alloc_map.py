"""Stand-in: the allocation maps of ai.backend.agent.alloc_map (the rules the notes give)."""
from __future__ import annotations

import fnmatch
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Any

from ai.backend.common.types import SlotName, SlotTypes


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


class AbstractAllocMap:
    def __init__(self, *, device_slots: Mapping[Any, DeviceSlotInfo] | None = None,
                 device_mask: Iterable[Any] | None = None,
                 exclusive_slot_types: Collection[str] | None = None) -> None:
        self.device_slots = dict(device_slots or {})
        self.device_mask = frozenset(device_mask or ())
        self.exclusive_slot_types = set(exclusive_slot_types or ())
        self.slot_types = {str(i.slot_name): i.slot_type for i in self.device_slots.values()}
        self.allocations: dict[str, dict[Any, Decimal]] = {}
        self.clear()

    def clear(self) -> None:
        self.allocations = {s: {d: Decimal(0) for d, i in self.device_slots.items() if str(i.slot_name) == s}
                            for s in self.slot_types}

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
    def allocate(self, slots: Mapping[Any, Decimal], *, affinity_hint: Any = None,
                 context_tag: str | None = None) -> Mapping[str, Mapping[Any, Decimal]]:
        out: dict[str, dict[Any, Decimal]] = {}
        for s, want in self._check(slots).items():
            if self.slot_types[s] == SlotTypes.UNIQUE and want != 1:
                raise InvalidResourceArgument("%s is unique: request exactly 1" % s)
            if want != want.to_integral_value():
                raise InvalidResourceArgument("%s: whole devices only" % s)
            free = [d for d, a in self.allocations[s].items() if self.device_slots[d].amount - a >= 1]
            if len(free) < want:
                raise InsufficientResource("%s: %s wanted, %d free" % (s, want, len(free)))
            out[s] = {d: Decimal(1) for d in free[:int(want)]}
        self.apply_allocation(out)
        return out


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
