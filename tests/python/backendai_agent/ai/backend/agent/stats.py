"""Stand-in: the measurement types of ai.backend.agent.stats."""
from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any


class MetricTypes(enum.Enum):
    GAUGE = 0
    USAGE = 0
    RATE = 1
    UTILIZATION = 2
    ACCUMULATION = 3


@dataclass
class Measurement:
    value: Decimal
    capacity: Decimal | None = None


@dataclass
class NodeMeasurement:
    key: str
    type: MetricTypes
    per_node: Measurement
    per_device: Mapping[Any, Measurement] = field(default_factory=dict)
    stats_filter: frozenset[str] = frozenset()
    current_hook: Callable[[Any], Decimal] | None = None
    unit_hint: str = "count"


@dataclass
class ContainerMeasurement:
    key: str
    type: MetricTypes
    per_container: Mapping[str, Measurement] = field(default_factory=dict)
    stats_filter: frozenset[str] = frozenset()
    current_hook: Callable[[Any], Decimal] | None = None
    unit_hint: str = "count"


@dataclass
class ProcessMeasurement:
    key: str
    type: MetricTypes
    per_process: Mapping[int, Measurement] = field(default_factory=dict)
    stats_filter: frozenset[str] = frozenset()
    current_hook: Callable[[Any], Decimal] | None = None
    unit_hint: str = "count"
