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
        device_cluster_list = [(self.min_weight, c) for c in self._components(device_name, self.min_weight)]
        # sort by: low distance first, large component first
        device_cluster_list.sort(key=lambda item: (item[0], -len(item[1])))
        return [[*device_set] for _distance, device_set in device_cluster_list]

    def get_distance_ordered_neighbors(self, src_devices: Sequence[Any], device_name: str
                                       ) -> tuple[Sequence[Sequence[Any]], Sequence[Any]]:
        if not src_devices:
            raise RuntimeError("This method must be called when there are previously allocated "
                               "devices in a single allocation run.")
        if next(iter(src_devices)).device_name == device_name:
            raise RuntimeError("This is a logic error trying to allocate the same resource slots "
                               "twice in a single allocation run.")
        src_numa_nodes = {d.numa_node for d in src_devices}
        primary_sets = []
        secondary_set = set()
        for numa_node in src_numa_nodes:
            primary_set = set()
            for u in self.nodes:
                if u.device_name == device_name:
                    if u.numa_node == numa_node:
                        primary_set.add(u)
                    else:
                        secondary_set.add(u)
            primary_sets.append(primary_set)
        for primary_set in primary_sets:
            secondary_set -= primary_set
        return [*(list(primary_set) for primary_set in primary_sets)], list(secondary_set)

    @classmethod
    def build(cls, devices: Sequence[Any]) -> AffinityMap:
        g = cls()
        max_weight = min_weight = 0
        devices_copy = list(devices)
        while devices_copy:
            device1 = devices_copy.pop(0)
            g.add_edge(device1, device1, weight=0)
            for device2 in devices_copy:
                weight = 0 if device1.numa_node == device2.numa_node else 1
                max_weight = max(max_weight, weight)
                min_weight = min(min_weight, weight)
                g.add_edge(device1, device2, weight=weight)
        g.max_weight = max_weight
        g.min_weight = min_weight
        return g
