"""Stand-in: AffinityPolicy, AffinityHint and AffinityMap of ai.backend.agent.affinity_map.

Mirrors lablup/backend.ai, src/ai/backend/agent/affinity_map.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891. Upstream's AffinityMap is a networkx Graph that
AffinityMap.build(devices) fills with an edge between every pair of devices (and each to
itself) weighing 0 on one NUMA node and 1 across; its queries are reproduced here over the
same edges without networkx: get_device_clusters_with_lowest_distance (the connected
components of one device name over edges of the lowest weight, large components first)
and get_distance_ordered_neighbors (devices of a name on the NUMA nodes of those already
allocated, then the rest, with upstream's two RuntimeErrors). `nodes` is a mapping from
each device, as networkx's node view is (alloc_map reads `affinity_map.nodes.keys()`)."""
from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class AffinityPolicy(enum.Enum):
    PREFER_SINGLE_NODE = 0
    INTERLEAVED = 1


@dataclass
class AffinityHint:
    devices: Sequence[Any] | None
    affinity_map: AffinityMap
    policy: AffinityPolicy


class AffinityMap:
    def __init__(self) -> None:
        self.min_weight = 0
        self.max_weight = 0
        self.nodes: dict[Any, dict] = {}
        self._weight: dict[tuple[int, int], int] = {}

    def add_edge(self, u: Any, v: Any, weight: int) -> None:
        self.nodes.setdefault(u, {})
        self.nodes.setdefault(v, {})
        self._weight[(id(u), id(v))] = self._weight[(id(v), id(u))] = weight

    def _components(self, device_name: str, weight: int) -> list[set[Any]]:
        """Connected components of the devices named device_name over edges of weight."""
        left = [u for u in self.nodes if u.device_name == device_name]
        out: list[set[Any]] = []
        while left:
            comp, todo = set(), [left.pop(0)]
            while todo:
                u = todo.pop()
                comp.add(u)
                for v in [v for v in left if self._weight.get((id(u), id(v))) == weight]:
                    left.remove(v)
                    todo.append(v)
            out.append(comp)
        return out

    def get_device_clusters_with_lowest_distance(self, device_name: str) -> Sequence[Sequence[Any]]:
        comps = self._components(device_name, self.min_weight)
        comps.sort(key=len, reverse=True)  # one weight only: the largest first (stable)
        return [list(c) for c in comps]

    def get_distance_ordered_neighbors(self, src_devices: Sequence[Any], device_name: str
                                       ) -> tuple[Sequence[Sequence[Any]], Sequence[Any]]:
        """For each NUMA node of src_devices, the devices named device_name on it; then
        those on no such node. Upstream raises RuntimeError when src_devices is empty or
        of device_name itself (a slot allocated twice in one run)."""
        if not src_devices:
            raise RuntimeError("no devices allocated yet in this allocation run")
        if next(iter(src_devices)).device_name == device_name:
            raise RuntimeError("%s allocated twice in one allocation run" % device_name)
        numa_nodes = list(dict.fromkeys(d.numa_node for d in src_devices))
        named = [u for u in self.nodes if u.device_name == device_name]
        near = [[u for u in named if u.numa_node == n] for n in numa_nodes]
        far = [u for u in named if u.numa_node not in numa_nodes]
        return near, far

    @classmethod
    def build(cls, devices: Sequence[Any]) -> AffinityMap:
        g = cls()
        devs = list(devices)
        for i, a in enumerate(devs):
            for b in devs[i:]:  # each pair once, each device with itself
                g.add_edge(a, b, weight=0 if a.numa_node == b.numa_node else 1)
        weights = set(g._weight.values())
        g.min_weight, g.max_weight = min(weights, default=0), max(weights, default=0)
        return g
